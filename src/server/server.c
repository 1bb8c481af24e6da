/*
 * The gRPC server over gRPC C-core 1.51, and the life of each call: the method table
 * (cuzk.v1.ProvingEngine, czk.v1.Czk, grpc.health.v1.Health, server reflection v1 and
 * v1alpha, and an UNIMPLEMENTED catch-all), a call from its arrival through the token
 * check, the bounded read and decoding of its request and the dispatch to its handler
 * (rpc_*.c) to its final status, and the server's start, drain and stop.
 *
 * Threads. Each polling thread owns one completion queue (measured: 1.5-3x less CPU per
 * call than threads sharing one queue) and never blocks: handlers that may take time
 * (submission validates and journals a 50 MB C1 output; preload reads tens of GB) run on
 * libuv's thread pool, handed over through an inbox that the loop thread drains. Awaits
 * never occupy a thread at all: they complete from the engine's done callback, from a
 * libuv timer (timeout_ms) or from the call's cancellation (the client's deadline),
 * whichever comes first; an atomic flag picks the one that replies (rpc_await.c).
 *
 * Lifetime. Every call is a `czk__rpc` with a reference count: one for the handler, one
 * per outstanding batch, one per engine registration (done callback or watch) and one per
 * timer. The server counts the calls it holds; it is torn down only once the shutdown tag
 * has arrived AND that count is zero (tearing down on the tag alone aborts in grpc's
 * call.cc when a late batch starts on a dead queue).
 */
#include "server_internal.h"

#include "czk/alloc.h"
#include "czk/log.h"

#include "cuzk/v1/proving.pb-c.h"
#include "czk/v1/czk.pb-c.h"
#include "grpc/health/v1/health.pb-c.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

/* Calls pre-requested per method per completion queue: enough for bursts of new calls
 * between two turns of a polling thread; each costs a few hundred bytes. */
#define PREREQUEST 8
/* How often Health/Watch re-reads the serving status: readiness of the engine has no
 * callback; a drain is pushed at once. */
#define HW_POLL_MS 250
/* Requests of the methods that need no token (health) whose messages are read at once:
 * what a peer without the token can make czkd hold is this many max_message_size
 * messages. A health request is a few bytes; two let a probe through a slow one. Up to
 * UNAUTH_WAITING more wait (a burst of 200 checks at once is served), each holding at
 * most its 64 KiB window (64 MiB in all); beyond that they are answered
 * RESOURCE_EXHAUSTED at once. */
#define UNAUTH_RECEIVES 2
#define UNAUTH_WAITING 1024

/* czk_server's receive pools (server_internal.h says how they work). */
enum { POOL_AUTH = 0, POOL_UNAUTH = 1 };
enum { POOL_GOT, POOL_QUEUED, POOL_FULL };

#define CUZK "cuzk.v1.ProvingEngine"
#define CZKS "czk.v1.Czk"
const czk__method czk__methods[] = {
    {CUZK, "SubmitProof", CZK__M_UNARY, &cuzk__v1__submit_proof_request__descriptor, czk__cuzk_submit_proof, true, false},
    {CUZK, "AwaitProof", CZK__M_UNARY, &cuzk__v1__await_proof_request__descriptor, czk__cuzk_await_proof, false, false},
    {CUZK, "Prove", CZK__M_UNARY, &cuzk__v1__prove_request__descriptor, czk__cuzk_prove, true, false},
    {CUZK, "CancelProof", CZK__M_UNARY, &cuzk__v1__cancel_proof_request__descriptor, czk__cuzk_cancel_proof, true, false},
    {CUZK, "GetStatus", CZK__M_UNARY, &cuzk__v1__get_status_request__descriptor, czk__cuzk_get_status, true, false},
    {CUZK, "GetMetrics", CZK__M_UNARY, &cuzk__v1__get_metrics_request__descriptor, czk__cuzk_get_metrics, true, false},
    {CUZK, "PreloadSRS", CZK__M_UNARY, &cuzk__v1__preload_srs_request__descriptor, czk__cuzk_preload_srs, true, false},
    {CUZK, "EvictSRS", CZK__M_UNARY, &cuzk__v1__evict_srs_request__descriptor, czk__cuzk_evict_srs, true, false},
    {CZKS, "Submit", CZK__M_UNARY, &czk__v1__submit_request__descriptor, czk__czk_submit, true, false},
    {CZKS, "Await", CZK__M_UNARY, &czk__v1__await_request__descriptor, czk__czk_await, false, false},
    {CZKS, "Prove", CZK__M_UNARY, &czk__v1__prove_request__descriptor, czk__czk_prove, true, false},
    {CZKS, "Cancel", CZK__M_UNARY, &czk__v1__cancel_request__descriptor, czk__czk_cancel, true, false},
    {CZKS, "GetJob", CZK__M_UNARY, &czk__v1__get_job_request__descriptor, czk__czk_get_job, true, false},
    {CZKS, "ListJobs", CZK__M_UNARY, &czk__v1__list_jobs_request__descriptor, czk__czk_list, true, false},
    {CZKS, "WatchJob", CZK__M_STREAM, &czk__v1__watch_job_request__descriptor, czk__czk_watch, false, false},
    {CZKS, "GetStatus", CZK__M_UNARY, &czk__v1__get_status_request__descriptor, czk__czk_status, true, false},
    {CZKS, "GetMetrics", CZK__M_UNARY, &cuzk__v1__get_metrics_request__descriptor, czk__cuzk_get_metrics, true, false},
    {CZKS, "Preload", CZK__M_UNARY, &czk__v1__preload_request__descriptor, czk__czk_preload, true, false},
    {CZKS, "Evict", CZK__M_UNARY, &czk__v1__evict_request__descriptor, czk__czk_evict, true, false},
    {CZKS, "Forget", CZK__M_UNARY, &czk__v1__forget_request__descriptor, czk__czk_forget, true, false},
    {"grpc.health.v1.Health", "Check", CZK__M_UNARY, &grpc__health__v1__health_check_request__descriptor, czk__health_check, false, true},
    {"grpc.health.v1.Health", "Watch", CZK__M_STREAM, &grpc__health__v1__health_check_request__descriptor, czk__health_watch, false, true},
    {"grpc.reflection.v1.ServerReflection", "ServerReflectionInfo", CZK__M_BIDI, NULL, NULL, false, false},
    {"grpc.reflection.v1alpha.ServerReflection", "ServerReflectionInfo", CZK__M_BIDI, NULL, NULL, false, false},
};
_Static_assert(sizeof czk__methods / sizeof czk__methods[0] == CZK__NMETHODS,
               "CZK__NMETHODS (server_internal.h) is the number of rows of czk__methods");

/* Service names for reflection's list_services and for health's per-service check. */
const char *const czk__service_names[] = {
    CUZK, CZKS, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
};
_Static_assert(sizeof czk__service_names / sizeof czk__service_names[0] == CZK__NSERVICES,
               "CZK__NSERVICES (server_internal.h) is the number of czk__service_names");

/* ----------------------------------------------------------------------------------- */
/* Inbox: work for the loop thread, from any thread                                      */
/* ----------------------------------------------------------------------------------- */

void czk__server_post(czk_server *s, void (*fn)(czk_server *, czk__rpc *), czk__rpc *r)
{
    czk__inbox_item *it = czk_malloc(sizeof *it);
    if (!it) abort(); /* a lost hand-off would leak a call forever; better to die loudly */
    it->next = NULL;
    it->fn = fn;
    it->r = r;
    pthread_mutex_lock(&s->inbox_mu);
    if (s->inbox_tail) s->inbox_tail->next = it;
    else s->inbox_head = it;
    s->inbox_tail = it;
    pthread_mutex_unlock(&s->inbox_mu);
    uv_async_send(&s->inbox_async);
}

static void inbox_cb(uv_async_t *a)
{
    czk_server *s = a->data;
    pthread_mutex_lock(&s->inbox_mu);
    czk__inbox_item *it = s->inbox_head;
    s->inbox_head = s->inbox_tail = NULL;
    pthread_mutex_unlock(&s->inbox_mu);
    while (it) {
        czk__inbox_item *next = it->next;
        it->fn(s, it->r);
        czk_free(it);
        it = next;
    }
}

static void check_stopped(czk_server *s, czk__rpc *unused);

/* ----------------------------------------------------------------------------------- */
/* Calls                                                                                 */
/* ----------------------------------------------------------------------------------- */

static void request_call(czk_server *s, int midx, int cq);

static czk__rpc *rpc_new(czk_server *s, int midx, int cq)
{
    czk__rpc *r = czk_calloc(1, sizeof *r);
    if (!r) return NULL;
    r->srv = s;
    r->midx = midx;
    r->cq = cq;
    r->t_new = (czk__tag){CZK__TAG_NEW, r};
    r->t_close = (czk__tag){CZK__TAG_CLOSE, r};
    r->t_send = (czk__tag){CZK__TAG_SEND, r};
    r->t_recv = (czk__tag){CZK__TAG_RECV, r};
    r->t_status = (czk__tag){CZK__TAG_STATUS, r};
    r->recv_pool = -1;
    r->queued_pool = -1;
    grpc_metadata_array_init(&r->md);
    grpc_call_details_init(&r->details);
    pthread_mutex_init(&r->mu, NULL);
    atomic_init(&r->refs, 1);
    return r;
}

/* Put r on the server's list `which`. */
void czk__rpc_list_add(czk__rpc *r, int which)
{
    czk_server *s = r->srv;
    struct czk__rpc_link *l = &r->link[which];
    pthread_mutex_lock(&s->pend_mu);
    l->prev = NULL;
    l->next = s->list_head[which];
    if (l->next) l->next->link[which].prev = r;
    s->list_head[which] = r;
    l->listed = true;
    pthread_mutex_unlock(&s->pend_mu);
}

static void list_remove(czk__rpc *r, int which)
{
    czk_server *s = r->srv;
    struct czk__rpc_link *l = &r->link[which];
    pthread_mutex_lock(&s->pend_mu);
    if (l->listed) {
        if (l->prev) l->prev->link[which].next = l->next;
        else s->list_head[which] = l->next;
        if (l->next) l->next->link[which].prev = l->prev;
        l->listed = false;
    }
    pthread_mutex_unlock(&s->pend_mu);
}

static void drop_payload(czk__rpc *r);

static void rpc_free(czk__rpc *r)
{
    list_remove(r, CZK__RPC_LIST_PENDING);
    list_remove(r, CZK__RPC_LIST_HEALTH);
    grpc_metadata_array_destroy(&r->md);
    grpc_call_details_destroy(&r->details);
    drop_payload(r);
    if (r->req) protobuf_c_message_free_unpacked(r->req, NULL);
    pthread_mutex_destroy(&r->mu);
    for (czk__ev_node *n = r->q_head; n;) {
        czk__ev_node *next = n->next;
        czk_free(n);
        n = next;
    }
    czk_free(r);
}

void czk__rpc_ref(czk__rpc *r) { atomic_fetch_add(&r->refs, 1); }

/* A reference to a call found on a server list, unless its count already reached zero
 * (its rpc_free is then waiting for the list's lock to unlist it): taking one from zero
 * would free it twice. */
static bool rpc_tryref(czk__rpc *r)
{
    int n = atomic_load(&r->refs);
    while (n > 0)
        if (atomic_compare_exchange_weak(&r->refs, &n, n + 1)) return true;
    return false;
}

/* The calls on list `which`, each with a reference (the caller drops them); NULL if none.
 * References are taken under the lock, so that the replies can be sent outside it (a
 * final unref takes it). */
czk__rpc **czk__server_list_snapshot(czk_server *s, int which, size_t *n)
{
    size_t k = 0, cap = 0;
    pthread_mutex_lock(&s->pend_mu);
    for (czk__rpc *r = s->list_head[which]; r; r = r->link[which].next) cap++;
    czk__rpc **list = cap ? czk_malloc(cap * sizeof *list) : NULL;
    if (list)
        for (czk__rpc *r = s->list_head[which]; r; r = r->link[which].next)
            if (rpc_tryref(r)) list[k++] = r;
    pthread_mutex_unlock(&s->pend_mu);
    *n = k;
    return list;
}

void czk__rpc_unref(czk__rpc *r)
{
    if (atomic_fetch_sub(&r->refs, 1) != 1) return;
    czk_server *s = r->srv;
    if (r->call) grpc_call_unref(r->call);
    rpc_free(r);
    if (atomic_fetch_sub(&s->calls_held, 1) == 1 && atomic_load(&s->draining))
        czk__server_post(s, check_stopped, NULL);
}

bool czk__rpc_try_finish(czk__rpc *r) { return !atomic_exchange(&r->finished, true); }

static grpc_byte_buffer *pack(const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    grpc_slice sl = grpc_slice_malloc(n);
    protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(sl));
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&sl, 1);
    grpc_slice_unref(sl);
    return bb;
}

/* Unpack a request; with a message decoded, `bad_field` is the first string field that is
 * not valid UTF-8 or holds a control character ("" if none; *fault says which). */
static ProtobufCMessage *unpack(const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb,
                                char *bad_field, size_t cap, czk_text_fault *fault)
{
    if (cap > 0) bad_field[0] = 0;
    *fault = CZK_TEXT_OK;
    if (!bb) return NULL;
    grpc_byte_buffer_reader rd;
    if (!grpc_byte_buffer_reader_init(&rd, bb)) return NULL;
    grpc_slice sl = grpc_byte_buffer_reader_readall(&rd);
    ProtobufCMessage *m =
        protobuf_c_message_unpack(d, NULL, GRPC_SLICE_LENGTH(sl), GRPC_SLICE_START_PTR(sl));
    if (m != NULL)
        (void)czk__proto_strings_ok(d, GRPC_SLICE_START_PTR(sl), GRPC_SLICE_LENGTH(sl), bad_field,
                                    cap, fault);
    grpc_slice_unref(sl);
    grpc_byte_buffer_reader_destroy(&rd);
    return m;
}

static const char *method_label(const czk__rpc *r)
{
    return r->midx < CZK__NMETHODS ? czk__methods[r->midx].name : "unknown";
}

#define REFUSAL_LOG_RATE 10.0
#define REFUSAL_LOG_BURST 100.0

/*
 * One log line per refused call, at the default level: method, code, the field its
 * message names, request_id (or job) and the message. A call the client gave up on
 * (CANCELLED, DEADLINE_EXCEEDED) is no refusal. The daemon's own faults are warnings.
 */
static void log_refusal(czk__rpc *r, grpc_status_code code, const char *msg)
{
    if (code == GRPC_STATUS_OK || code == GRPC_STATUS_CANCELLED ||
        code == GRPC_STATUS_DEADLINE_EXCEEDED)
        return;
    bool ours = code == GRPC_STATUS_INTERNAL || code == GRPC_STATUS_UNKNOWN ||
                code == GRPC_STATUS_DATA_LOSS;
    czk_log_level lv = ours ? CZK_LOG_WARN : CZK_LOG_INFO;
    if ((int)lv < czk_log_min_level) return;
    czk_server *s = r->srv;
    uint64_t dropped = 0;
    bool write;
    pthread_mutex_lock(&s->refusal_mu);
    uint64_t now = czk_clock_us();
    if (s->refusal_last_us == 0) s->refusal_tokens = REFUSAL_LOG_BURST;
    else s->refusal_tokens += (double)(now - s->refusal_last_us) / 1e6 * REFUSAL_LOG_RATE;
    if (s->refusal_tokens > REFUSAL_LOG_BURST) s->refusal_tokens = REFUSAL_LOG_BURST;
    s->refusal_last_us = now;
    write = s->refusal_tokens >= 1.0;
    if (write) {
        s->refusal_tokens -= 1.0;
        dropped = s->refusal_dropped;
        s->refusal_dropped = 0;
    } else {
        s->refusal_dropped++;
    }
    pthread_mutex_unlock(&s->refusal_mu);
    if (!write) {
        atomic_fetch_add(&s->refusal_dropped_total, 1);
        return;
    }
    char field[64], detail[600], job[CZK_JOB_ID_MAX + 8];
    czk__refusal_field(msg, field, sizeof field);
    czk__log_text(msg ? msg : "", msg ? strlen(msg) : 0, detail, sizeof detail);
    czk__log_text(r->job_id, strlen(r->job_id), job, sizeof job);
    czk_log_write(lv, __FILE__, __LINE__, "call refused",
                  "method=%s code=%s field=%s request_id=\"%s\" job=%s detail=\"%s\" "
                  "lines_dropped=%llu",
                  method_label(r), czk__grpc_code_name(code), field[0] ? field : "-", r->log_rid,
                  job[0] ? job : "-", detail, (unsigned long long)dropped);
}

/* Note what a call is about, for its refusal's log line. */
void czk__rpc_note_request_id(czk__rpc *r, const char *request_id)
{
    czk__log_text(request_id, strlen(request_id), r->log_rid, sizeof r->log_rid);
}

void czk__rpc_note_job(czk__rpc *r, const char *job_id)
{
    snprintf(r->job_id, sizeof r->job_id, "%s", job_id);
}

/*
 * The call's final status, with an optional last message. Exactly one caller wins
 * czk__rpc_try_finish(); the others drop their reply. Safe from any thread.
 */
void czk__rpc_finish(czk__rpc *r, grpc_status_code code, const char *msg, const ProtobufCMessage *m)
{
    grpc_op ops[3];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    if (!r->md_sent) {
        ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
        n++;
        r->md_sent = true;
    }
    if (m && code == GRPC_STATUS_OK) {
        r->send_bb = pack(m);
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n].data.send_message.send_message = r->send_bb;
        n++;
    }
    r->status_slice = grpc_slice_from_copied_string(msg ? msg : "");
    r->status_slice_set = true;
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = code;
    ops[n].data.send_status_from_server.status_details = msg && *msg ? &r->status_slice : NULL;
    n++;
    atomic_fetch_add(&r->srv->handled[r->midx][code < CZK__NCODES ? code : GRPC_STATUS_UNKNOWN], 1);
    log_refusal(r, code, msg);
    czk__rpc_ref(r);
    grpc_call_error e = grpc_call_start_batch(r->call, ops, n, &r->t_status, NULL);
    if (e != GRPC_CALL_OK) {
        CZK_LOG_ERROR("grpc_call_start_batch failed", "method=%s error=%d", method_label(r), (int)e);
        czk__rpc_unref(r);
    }
}

void czk__rpc_reply(czk__rpc *r, grpc_status_code code, const char *msg, const ProtobufCMessage *m)
{
    if (czk__rpc_try_finish(r)) czk__rpc_finish(r, code, msg, m);
}

void czk__rpc_reply_err(czk__rpc *r, czk_status st, const czk_err *err)
{
    char msg[CZK_ERR_MSG_MAX + 64];
    snprintf(msg, sizeof msg, "%s: %s", czk_status_name(st),
             err && err->msg[0] ? err->msg : czk_strerror(st));
    czk__rpc_reply(r, czk__grpc_code(st, false), msg, NULL);
}

/* For calls that name a job: ENOENT is NOT_FOUND, with a message naming the id. */
void czk__rpc_reply_job_err(czk__rpc *r, czk_status st, const czk_err *err, const char *job_id)
{
    char msg[CZK_ERR_MSG_MAX + 64];
    if (st == CZK_ENOENT) snprintf(msg, sizeof msg, "job_id: no job '%s'", job_id);
    else snprintf(msg, sizeof msg, "%s: %s", czk_status_name(st), err && err->msg[0] ? err->msg : czk_strerror(st));
    czk__rpc_reply(r, czk__grpc_code(st, true), msg, NULL);
}

/* Send one stream message (the first carries the initial metadata). */
void czk__rpc_send_msg(czk__rpc *r, const ProtobufCMessage *m)
{
    grpc_op ops[2];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    if (!r->md_sent) {
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
        r->md_sent = true;
    }
    r->send_bb = pack(m);
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n].data.send_message.send_message = r->send_bb;
    n++;
    czk__rpc_ref(r);
    if (grpc_call_start_batch(r->call, ops, n, &r->t_send, NULL) != GRPC_CALL_OK) czk__rpc_unref(r);
}

static void start_recv(czk__rpc *r)
{
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &r->recv_bb;
    czk__rpc_ref(r);
    if (grpc_call_start_batch(r->call, &op, 1, &r->t_recv, NULL) != GRPC_CALL_OK) czk__rpc_unref(r);
}

/* ----------------------------------------------------------------------------------- */
/* Request dispatch                                                                      */
/* ----------------------------------------------------------------------------------- */

static bool authorized(const czk__rpc *r)
{
    const char *tok = r->srv->token;
    if (!tok || !*tok) return true;
    for (size_t i = 0; i < r->md.count; i++) {
        if (grpc_slice_str_cmp(r->md.metadata[i].key, "authorization") != 0) continue;
        grpc_slice v = r->md.metadata[i].value;
        size_t n = GRPC_SLICE_LENGTH(v), t = strlen(tok);
        const uint8_t *p = GRPC_SLICE_START_PTR(v);
        if (n != t + 7 || memcmp(p, "Bearer ", 7) != 0) return false;
        /* Compare in constant time: the token is a secret. */
        unsigned char diff = 0;
        for (size_t k = 0; k < t; k++) diff |= (unsigned char)(p[7 + k] ^ (unsigned char)tok[k]);
        return diff == 0;
    }
    return false;
}

static bool decode_request(czk__rpc *r);
static int pool_acquire(czk_server *s, int which, czk__rpc *r);
static void start_request_recv(czk__rpc *r);

/* Handlers copy what outlives them (the job id), so the request is freed once they
 * return: a Prove waiting for hours must not keep a 51 MB C1 output alive. */
static void run_handler(czk__rpc *r)
{
    if (decode_request(r)) czk__methods[r->midx].fn(r, r->req);
    if (r->req) protobuf_c_message_free_unpacked(r->req, NULL);
    r->req = NULL;
}

static void work_cb(uv_work_t *w)
{
    run_handler(w->data);
}

static void after_work_cb(uv_work_t *w, int status)
{
    czk__rpc *r = w->data;
    if (status == UV_ECANCELED) czk__rpc_reply(r, GRPC_STATUS_UNAVAILABLE, "daemon shutting down", NULL);
    czk__rpc_unref(r);
}

static void queue_work(czk_server *s, czk__rpc *r)
{
    r->work.data = r;
    if (uv_queue_work(s->loop, &r->work, work_cb, after_work_cb) != 0) {
        czk__rpc_reply(r, GRPC_STATUS_INTERNAL, "cannot queue work", NULL);
        czk__rpc_unref(r);
    }
}


static void on_new_call(czk_server *s, czk__rpc *r)
{
    atomic_fetch_add(&s->calls_held, 1);
    atomic_fetch_add(&s->started[r->midx], 1);
    /* Batch A: completes at the end of every call; its `cancelled` is the only sign of a
     * client cancel or an expired deadline. */
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &r->cancelled;
    czk__rpc_ref(r);
    if (grpc_call_start_batch(r->call, &op, 1, &r->t_close, NULL) != GRPC_CALL_OK) czk__rpc_unref(r);

    if (r->midx == CZK__NMETHODS) {
        char *m = grpc_slice_to_c_string(r->details.method);
        char msg[600];
        snprintf(msg, sizeof msg, "unknown method %s", m);
        gpr_free(m);
        czk__rpc_reply(r, GRPC_STATUS_UNIMPLEMENTED, msg, NULL);
        czk__rpc_unref(r);
        return;
    }
    const czk__method *m = &czk__methods[r->midx];
    if (!m->no_auth && !authorized(r)) {
        czk__rpc_reply(r, GRPC_STATUS_UNAUTHENTICATED, "missing or wrong 'authorization: Bearer' token", NULL);
        czk__rpc_unref(r);
        return;
    }
    if (m->type == CZK__M_BIDI) {
        start_recv(r);
        czk__rpc_unref(r);
        return;
    }
    /* The handler's reference travels with the call into the pool's queue. */
    int got = pool_acquire(s, m->no_auth ? POOL_UNAUTH : POOL_AUTH, r);
    if (got == POOL_GOT) {
        start_request_recv(r);
    } else if (got == POOL_FULL) {
        czk__rpc_reply(r, GRPC_STATUS_RESOURCE_EXHAUSTED, "too many calls without a token being read at once; retry", NULL);
        czk__rpc_unref(r);
    }
}

/* ----------------------------------------------------------------------------------- */
/* Reading requests: after the token check, a bounded number at once                    */
/* ----------------------------------------------------------------------------------- */

/* A slot for r (POOL_GOT), or r waits in the pool's queue for one (POOL_QUEUED), or the
 * queue is full (POOL_FULL: r holds nothing). */
static int pool_acquire(czk_server *s, int which, czk__rpc *r)
{
    czk__recv_pool *p = &s->pools[which];
    pthread_mutex_lock(&p->mu);
    int got = p->busy < p->max ? POOL_GOT : p->max_waiting && p->waiting >= p->max_waiting ? POOL_FULL : POOL_QUEUED;
    if (got != POOL_FULL) r->recv_pool = which;
    if (got == POOL_GOT) {
        p->busy++;
    } else if (got == POOL_QUEUED) {
        p->waiting++;
        r->pool_queued = true;
        r->queued_pool = which;
        r->pool_next = NULL;
        if (p->tail) p->tail->pool_next = r;
        else p->head = r;
        p->tail = r;
    }
    pthread_mutex_unlock(&p->mu);
    return got;
}

/* Frees the message's bytes and hands the slot to the next waiting call, if any. */
static void drop_payload(czk__rpc *r)
{
    if (r->payload) grpc_byte_buffer_destroy(r->payload);
    r->payload = NULL;
    if (r->recv_pool < 0) return;
    czk__recv_pool *p = &r->srv->pools[r->recv_pool];
    r->recv_pool = -1;
    pthread_mutex_lock(&p->mu);
    czk__rpc *next = p->head;
    if (next) {
        p->head = next->pool_next;
        if (!p->head) p->tail = NULL;
        p->waiting--;
        next->pool_queued = false;
    } else {
        p->busy--;
    }
    pthread_mutex_unlock(&p->mu);
    /* A call that was cancelled while it waited fails its read at once, which passes the
     * slot on again: a drain is never held up by the queue. */
    if (next) start_request_recv(next);
}

/* A call cancelled while it waits for a slot leaves the queue at once, with the handler's
 * reference: a flood of streams opened and reset must not fill the queue with dead ones. */
void czk__rpc_pool_leave(czk__rpc *r)
{
    if (r->queued_pool < 0) return;
    czk__recv_pool *p = &r->srv->pools[r->queued_pool];
    pthread_mutex_lock(&p->mu);
    bool found = false;
    if (r->pool_queued) {
        for (czk__rpc **pp = &p->head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->pool_next) {
            if (*pp != r) continue;
            *pp = r->pool_next;
            if (p->tail == r) p->tail = prev;
            found = true;
            break;
        }
        r->pool_queued = false;
        p->waiting--;
        r->recv_pool = -1;
    }
    pthread_mutex_unlock(&p->mu);
    if (found) czk__rpc_unref(r);
}

/* Batch R: the request's one message (the handler's reference is held meanwhile). */
static void start_request_recv(czk__rpc *r)
{
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &r->recv_bb;
    if (grpc_call_start_batch(r->call, &op, 1, &r->t_recv, NULL) != GRPC_CALL_OK) {
        drop_payload(r);
        czk__rpc_unref(r);
    }
}

static void request_received(czk__rpc *r, bool ok)
{
    czk_server *s = r->srv;
    r->payload = r->recv_bb;
    r->recv_bb = NULL;
    if (!ok || !r->payload) {
        /* Cancelled, or the client half-closed without a message. */
        drop_payload(r);
        if (ok) czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, "request: the call carried no message", NULL);
        czk__rpc_unref(r);
        return;
    }
    /* The status calls read the engine's counters under its lock. On the CPU back end that
     * takes microseconds, so they are answered on the polling thread, which keeps them at a
     * millisecond while a proof runs on every core (two fewer thread hand-offs); with GPUs
     * they also ask the driver for free memory, which can wait behind a page-locking
     * allocation, so they go to the pool. */
    const czk__method *m = &czk__methods[r->midx];
    bool status_call = m->fn == czk__cuzk_get_status || m->fn == czk__czk_status;
    if (m->heavy && !(status_call && !s->gpu_engine)) {
        /* Decoded on the pool too: a 51 MB C1 output takes 0.2-0.4 s to copy out of the
         * byte buffer and unpack on a loaded machine, too long for a polling thread. */
        czk__server_post(s, queue_work, r);
        return;
    }
    run_handler(r);
    czk__rpc_unref(r);
}

/* Unpacks the request; on failure answers INVALID_ARGUMENT and returns false. */
static bool decode_request(czk__rpc *r)
{
    const czk__method *m = &czk__methods[r->midx];
    char bad[128];
    czk_text_fault fault;
    const uint64_t t0 = czk_clock_us();
    r->req = unpack(m->req_desc, r->payload, bad, sizeof bad, &fault);
    const uint64_t t1 = czk_clock_us();
    size_t bytes = r->payload ? grpc_byte_buffer_length(r->payload) : 0;
    CZK_LOG_DEBUG("rpc", "method=%s bytes=%zu decode_us=%llu", m->name, bytes,
                  (unsigned long long)(t1 - t0));
    /* The request's bytes are not needed once decoded: free them now, not at the end of
     * a call that may wait for hours. */
    drop_payload(r);
    if (!r->req) {
        char msg[256];
        snprintf(msg, sizeof msg, "request: cannot decode %s (%zu bytes of protobuf)", m->req_desc->name, bytes);
        czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, msg, NULL);
        return false;
    }
    if (fault != CZK_TEXT_OK) {
        /* An id or a name that is not a string (a NUL, other control bytes, not UTF-8)
         * would be cut, stored and echoed to clients whose decoders refuse it. */
        char msg[256];
        snprintf(msg, sizeof msg, "%s: %s", bad,
                 fault == CZK_TEXT_CONTROL ? "holds a control character (NUL included)"
                                           : "is not valid UTF-8");
        czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, msg, NULL);
        return false;
    }
    return true;
}


static void *cq_thread(void *arg)
{
    czk_server *s = ((void **)arg)[0];
    int cq = (int)(intptr_t)((void **)arg)[1];
    czk_free(arg);
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cqs[cq], gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
        if (ev.type != GRPC_OP_COMPLETE) continue;
        czk__tag *t = ev.tag;
        czk__rpc *r = t->r;
        switch (t->kind) {
        case CZK__TAG_SHUTDOWN:
            atomic_store(&s->shutdown_seen, true);
            czk__server_post(s, check_stopped, NULL);
            break;
        case CZK__TAG_NEW:
            if (!ev.success) { /* the server is shutting down: no call was made */
                rpc_free(r);
                break;
            }
            if (!atomic_load(&s->draining)) request_call(s, r->midx, cq);
            on_new_call(s, r);
            break;
        case CZK__TAG_CLOSE:
            if (r->cancelled) {
                atomic_fetch_add(&s->cancelled_calls, 1);
                /* Counted against the connection (rapid reset), unless the drain did it. */
                if (s->listener && !atomic_load(&s->draining)) {
                    char *peer = grpc_call_get_peer(r->call);
                    czk__listener_client_cancel(s->listener, peer);
                    gpr_free(peer);
                }
                czk__await_on_cancelled(r);
            }
            czk__rpc_unref(r);
            break;
        case CZK__TAG_SEND:
            if (r->send_bb) grpc_byte_buffer_destroy(r->send_bb);
            r->send_bb = NULL;
            if (r->midx < CZK__NMETHODS && czk__methods[r->midx].type == CZK__M_BIDI) {
                if (ev.success) start_recv(r);
            } else if (ev.success) {
                czk__watch_sent(r);
            }
            czk__rpc_unref(r);
            break;
        case CZK__TAG_RECV:
            if (czk__methods[r->midx].type == CZK__M_BIDI) {
                czk__reflection_recv_done(r, ev.success);
                czk__rpc_unref(r);
            } else {
                request_received(r, ev.success); /* keeps or drops the handler's reference */
            }
            break;
        case CZK__TAG_STATUS:
            if (r->send_bb) grpc_byte_buffer_destroy(r->send_bb);
            r->send_bb = NULL;
            if (r->status_slice_set) grpc_slice_unref(r->status_slice);
            r->status_slice_set = false;
            czk__rpc_unref(r);
            break;
        }
    }
    return NULL;
}

static void request_call(czk_server *s, int midx, int cq)
{
    czk__rpc *r = rpc_new(s, midx, cq);
    if (!r) return;
    grpc_call_error e;
    if (midx == CZK__NMETHODS)
        e = grpc_server_request_call(s->gs, &r->call, &r->details, &r->md, s->cqs[cq], s->cqs[cq],
                                     &r->t_new);
    else
        e = grpc_server_request_registered_call(s->gs, s->mhandles[midx], &r->call, &r->deadline,
                                                &r->md, NULL, s->cqs[cq], s->cqs[cq], &r->t_new);
    if (e != GRPC_CALL_OK) rpc_free(r);
}

/* ----------------------------------------------------------------------------------- */
/* Start, drain, stop                                                                      */
/* ----------------------------------------------------------------------------------- */

static void gpr_log_to_czk(gpr_log_func_args *a)
{
    czk_log_level lv = a->severity == GPR_LOG_SEVERITY_ERROR  ? CZK_LOG_ERROR
                       : a->severity == GPR_LOG_SEVERITY_INFO ? CZK_LOG_INFO
                                                              : CZK_LOG_DEBUG;
    if ((int)lv >= czk_log_min_level)
        czk_log_write(lv, a->file, a->line, a->message, "source=grpc");
}

static char *read_file_text(const char *path, czk_err *err, const char *what)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        czk_err_set(err, CZK_ENOENT, "%s %s: %s", what, path, strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 && n < (64l << 20) ? czk_malloc((size_t)n + 1) : NULL;
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        czk_free(buf);
        fclose(f);
        czk_err_set(err, CZK_EIO, "%s %s: cannot read", what, path);
        return NULL;
    }
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* The token: daemon.auth_token, or the first line of daemon.auth_token_file, blanks
 * around it removed. A configured source that yields no token stops the start: running
 * without authentication because a file came out empty would fail open. */
static char *load_token(const czk_daemon_config *c, czk_err *err)
{
    const char *opt = c->auth_token_file[0] ? "daemon.auth_token_file" : "daemon.auth_token";
    char *t;
    if (c->auth_token_file[0]) {
        t = read_file_text(c->auth_token_file, err, opt);
        if (!t) return NULL;
        t[strcspn(t, "\r\n")] = 0;
    } else {
        size_t n = strlen(c->auth_token) + 1;
        t = czk_malloc(n);
        if (!t) {
            czk_err_set(err, CZK_ENOMEM, "%s: out of memory", opt);
            return NULL;
        }
        memcpy(t, c->auth_token, n);
        if (!t[0]) return t; /* no token configured: authentication is off */
    }
    size_t a = 0, b = strlen(t);
    while (a < b && (t[a] == ' ' || t[a] == '\t')) a++;
    while (b > a && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
    memmove(t, t + a, b - a);
    t[b - a] = 0;
    const char *what = !t[0] ? "holds no token (it is empty or blank)" : NULL;
    for (const char *p = t; *p && !what; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) what = "holds a control character, which no client can send";
    if (what) {
        if (c->auth_token_file[0]) czk_err_set(err, CZK_EINVAL, "%s: %s %s", opt, c->auth_token_file, what);
        else czk_err_set(err, CZK_EINVAL, "%s %s", opt, what);
        czk_free(t);
        return NULL;
    }
    return t;
}

/* Descriptors left to everything but connections: the journal, parameter files, GPU
 * driver handles, gRPC's and libuv's own. */
#define FD_RESERVE 128

/*
 * The connection limits, fitted to the process's descriptor limit (czkd raised its soft
 * limit to the hard one): each gRPC connection costs two descriptors (gRPC's and the
 * watched duplicate; three when TLS is relayed), each HTTP one.
 */
static czk_status fit_limits(const czk_daemon_config *cfg, bool tls, unsigned *grpc_max,
                             unsigned *http_max, czk_err *err)
{
    struct rlimit rl;
    uint64_t fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? rl.rlim_cur : 1u << 20;
    unsigned per = tls ? 3 : 2;
    if (fds < FD_RESERVE + 64)
        return czk_err_set(err, CZK_ERESOURCE,
                           "the file descriptor limit (RLIMIT_NOFILE %llu) leaves no room for connections: "
                           "raise it to at least %d (ulimit -n, LimitNOFILE=)",
                           (unsigned long long)fds, FD_RESERVE + 64);
    uint64_t room = fds - FD_RESERVE;
    uint64_t h = cfg->metrics_listen[0] ? cfg->metrics_max_connections : 0;
    if (h > room / 8) h = room / 8 ? room / 8 : 1;
    uint64_t g = cfg->max_connections;
    if (g * per > room - h) g = (room - h) / per;
    if (g < cfg->max_connections || (cfg->metrics_listen[0] && h < cfg->metrics_max_connections))
        CZK_LOG_WARN("connection limits lowered to fit the file descriptor limit",
                     "rlimit_nofile=%llu max_connections=%llu metrics_max_connections=%llu",
                     (unsigned long long)fds, (unsigned long long)g, (unsigned long long)h);
    *grpc_max = (unsigned)g;
    *http_max = (unsigned)(h ? h : 1);
    return CZK_OK;
}

/* TLS: gRPC's own listener on a unix socket in a fresh 0700 directory (under data_dir
 * when its name is short enough for a socket path, else the system's temporary one),
 * which the relay alone reaches. */
static czk_status make_tls_dir(czk_server *s, const czk_daemon_config *cfg, czk_err *err)
{
    const char *base = cfg->data_dir[0] ? cfg->data_dir : "./czk-data";
    char abs[PATH_MAX];
    if (!realpath(base, abs) || strlen(abs) + sizeof "/.czkd-tls-XXXXXX/grpc.sock" > 100) {
        snprintf(abs, sizeof abs, "%s", P_tmpdir);
    } else {
        /* The engine holds data_dir's lock, so a directory left there by a czkd that was
         * killed is nobody's: remove it. */
        DIR *d = opendir(abs);
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
            if (strncmp(e->d_name, ".czkd-tls-", 10) != 0) continue;
            char p[PATH_MAX + 300];
            snprintf(p, sizeof p, "%s/%s/grpc.sock", abs, e->d_name);
            unlink(p);
            snprintf(p, sizeof p, "%s/%s", abs, e->d_name);
            rmdir(p);
        }
        if (d) closedir(d);
    }
    if (snprintf(s->tls_dir, sizeof s->tls_dir, "%s/.czkd-tls-XXXXXX", abs) >= (int)sizeof s->tls_dir ||
        !mkdtemp(s->tls_dir)) {
        s->tls_dir[0] = 0;
        return czk_err_set(err, CZK_EIO, "tls: cannot make a private directory in %s: %s", abs, strerror(errno));
    }
    snprintf(s->tls_sock, sizeof s->tls_sock, "%s/grpc.sock", s->tls_dir);
    return CZK_OK;
}

static void remove_tls_dir(czk_server *s)
{
    if (!s->tls_dir[0]) return;
    unlink(s->tls_sock);
    rmdir(s->tls_dir);
    s->tls_dir[0] = 0;
}

czk_status czk__server_start(czk_server **out, czk_engine *engine, const czk_daemon_config *cfg,
                             uv_loop_t *loop, int *grpc_port, int *metrics_port, czk_err *err)
{
    *out = NULL;
    czk_server *s = czk_calloc(1, sizeof *s);
    if (!s) return czk_err_set(err, CZK_ENOMEM, "server: out of memory");
    s->engine = engine;
    s->loop = loop;
    s->max_msg = cfg->max_message_size;
    czk_engine_status es;
    if (czk_engine_get_status(engine, &es, NULL) == CZK_OK) {
        s->gpu_engine = strcmp(es.backend, "cpu") != 0;
        czk_engine_status_clear(&es);
    } else {
        s->gpu_engine = true; /* unknown: the pool, the safe side */
    }
    pthread_mutex_init(&s->inbox_mu, NULL);
    pthread_mutex_init(&s->pend_mu, NULL);
    pthread_mutex_init(&s->refusal_mu, NULL);
    for (int i = 0; i < 2; i++) pthread_mutex_init(&s->pools[i].mu, NULL);
    s->pools[POOL_AUTH].max = (unsigned)cfg->max_concurrent_receives;
    s->pools[POOL_UNAUTH].max = UNAUTH_RECEIVES;
    s->pools[POOL_UNAUTH].max_waiting = UNAUTH_WAITING;
    s->shutdown_tag = (czk__tag){CZK__TAG_SHUTDOWN, NULL};
    bool tls = cfg->tls_cert[0] != 0;
    czk_tls_files pem = {0};
    unsigned grpc_max = 0, http_max = 0;
    czk_status st = czk__reflection_create(&s->refl, czk__descset, czk__descset_len, err);
    if (st != CZK_OK) goto fail_early;
    s->token = load_token(cfg, err);
    if (!s->token) {
        st = err ? err->status : CZK_EIO;
        goto fail_early;
    }
    if (tls && (st = czk__tls_load(cfg, &pem, err)) != CZK_OK) goto fail_early;
    if ((st = fit_limits(cfg, tls, &grpc_max, &http_max, err)) != CZK_OK) goto fail_early;
    if (tls && (st = make_tls_dir(s, cfg, err)) != CZK_OK) goto fail_early;

    gpr_set_log_function(gpr_log_to_czk);
    gpr_set_log_verbosity(!strcmp(cfg->grpc_verbosity, "debug")  ? GPR_LOG_SEVERITY_DEBUG
                          : !strcmp(cfg->grpc_verbosity, "info") ? GPR_LOG_SEVERITY_INFO
                                                                 : GPR_LOG_SEVERITY_ERROR);
    grpc_init();
    grpc_arg args[8];
    memset(args, 0, sizeof args);
    int na = 0;
#define INT_ARG(k, v) (args[na].type = GRPC_ARG_INTEGER, args[na].key = (char *)(k), args[na++].value.integer = (int)(v))
    INT_ARG(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, cfg->max_message_size);
    INT_ARG(GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, cfg->max_message_size);
    INT_ARG(GRPC_ARG_MAX_CONCURRENT_STREAMS, cfg->max_concurrent_streams);
    /* Curio holds one connection for hours; keepalive pings find dead peers. */
    INT_ARG(GRPC_ARG_KEEPALIVE_TIME_MS, 60000);
    /* Identity only: C-core 1.51 inflates a compressed message whole before it compares
     * it with the size limit (1 MB of gzip became 1 GiB), so compressed requests are
     * refused (UNIMPLEMENTED) before their bytes are read. */
    INT_ARG(GRPC_COMPRESSION_CHANNEL_ENABLED_ALGORITHMS_BITSET, 1u << GRPC_COMPRESS_NONE);
    /* Unanswered HTTP/2 pings and SETTINGS floods are the transport's; a TLS handshake
     * that does not finish in time is dropped by gRPC (plaintext: by the listener). */
    INT_ARG(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, cfg->handshake_timeout_ms);
    /* A stream whose message czkd has not started to read holds at most its initial
     * window (64 KiB): the BDP probe would raise every stream's window (measured: 8
     * unread 48 MiB Submits arrived whole, +409 MiB RSS) and make the receive limit
     * moot. Reading is not slowed: a read opens the window to the message's length. */
    INT_ARG(GRPC_ARG_HTTP2_BDP_PROBE, 0);
#undef INT_ARG
    grpc_channel_args ca = {(size_t)na, args};
    s->gs = grpc_server_create(&ca, NULL);
    for (int i = 0; i < CZK__NMETHODS; i++) {
        char path[160];
        snprintf(path, sizeof path, "/%s/%s", czk__methods[i].service, czk__methods[i].name);
        /* No method reads its message before the handler asked for it: the token is
         * checked on the metadata first (a 200 MiB Submit without one costs nothing). */
        s->mhandles[i] = grpc_server_register_method(s->gs, path, NULL, GRPC_SRM_PAYLOAD_NONE, 0);
    }
    s->ncq = (int)cfg->grpc_threads;
    s->cqs = czk_calloc((size_t)s->ncq, sizeof *s->cqs);
    s->threads = czk_calloc((size_t)s->ncq, sizeof *s->threads);
    for (int i = 0; i < s->ncq; i++) {
        s->cqs[i] = grpc_completion_queue_create_for_next(NULL);
        grpc_server_register_completion_queue(s->gs, s->cqs[i], NULL);
    }
    if (tls) {
        grpc_ssl_pem_key_cert_pair p = {pem.key, pem.cert};
        grpc_server_credentials *cr = grpc_ssl_server_credentials_create_ex(
            pem.ca, &p, 1, pem.ca ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                  : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE, NULL);
        char target[320];
        snprintf(target, sizeof target, "unix:%s", s->tls_sock);
        int port = cr ? grpc_server_add_http2_port(s->gs, target, cr) : 0;
        if (cr) grpc_server_credentials_release(cr);
        if (port == 0) {
            st = czk_err_set(err, CZK_EIO, "tls: gRPC refused the credentials of %s / %s", cfg->tls_cert,
                             cfg->tls_key);
            goto fail;
        }
    }
    grpc_server_start(s->gs);
    czk_listener_opts lo = {
        .addr = cfg->listen,
        .unix_mode = (unsigned)cfg->unix_socket_mode,
        .max_connections = grpc_max,
        .handshake_timeout_ms = cfg->handshake_timeout_ms,
        .max_client_resets = (unsigned)cfg->max_client_resets,
        .gs = s->gs,
        .relay_path = tls ? s->tls_sock : NULL,
    };
    st = czk__listener_start(&s->listener, loop, &lo, grpc_port, err);
    if (st != CZK_OK) {
        /* Started but never reachable: stop it the orderly way before failing. */
        grpc_server_shutdown_and_notify(s->gs, s->cqs[0], &s->shutdown_tag);
        grpc_server_cancel_all_calls(s->gs);
        atomic_store(&s->draining, true);
    }
    uv_async_init(loop, &s->inbox_async, inbox_cb);
    s->inbox_async.data = s;
    s->hw_last = -1;
    uv_timer_init(loop, &s->hw_timer);
    s->hw_timer.data = s;
    /* The poll alone must not keep the loop running: check_stopped closes it anyway. */
    uv_unref((uv_handle_t *)&s->hw_timer);
    uv_timer_start(&s->hw_timer, czk__health_poll, HW_POLL_MS, HW_POLL_MS);
    s->hw_timer_started = true;
    if (!atomic_load(&s->draining))
        for (int c = 0; c < s->ncq; c++)
            for (int m = 0; m <= CZK__NMETHODS; m++)
                for (int k = 0; k < PREREQUEST; k++) request_call(s, m, c);
    for (int i = 0; i < s->ncq; i++) {
        void **arg = czk_malloc(2 * sizeof *arg);
        arg[0] = s;
        arg[1] = (void *)(intptr_t)i;
        pthread_create(&s->threads[i], NULL, cq_thread, arg);
    }
    czk__tls_files_free(&pem);
    if (st != CZK_OK) {
        *out = s;
        return st;
    }
    *metrics_port = 0;
    if (cfg->metrics_listen[0]) {
        st = czk__http_start(&s->http, s, loop, cfg->metrics_listen, http_max, cfg->metrics_timeout_ms,
                             metrics_port, err);
        if (st != CZK_OK) {
            /* The gRPC side is up; stop it the orderly way before failing. */
            czk__listener_close(s->listener);
            grpc_server_shutdown_and_notify(s->gs, s->cqs[0], &s->shutdown_tag);
            grpc_server_cancel_all_calls(s->gs);
            atomic_store(&s->draining, true);
            *out = s;
            return st;
        }
    }
    CZK_LOG_INFO("grpc listening",
                 "addr=%s port=%d threads=%d tls=%s token=%s max_message=%llu max_connections=%u "
                 "max_concurrent_streams=%llu compression=off",
                 cfg->listen, *grpc_port, s->ncq, tls ? (cfg->tls_client_ca[0] ? "mtls" : "tls") : "off",
                 s->token[0] ? "on" : "off", (unsigned long long)cfg->max_message_size, grpc_max,
                 (unsigned long long)cfg->max_concurrent_streams);
    *out = s;
    return CZK_OK;
fail:
    for (int i = 0; i < s->ncq; i++) {
        grpc_completion_queue_shutdown(s->cqs[i]);
        while (grpc_completion_queue_next(s->cqs[i], gpr_inf_past(GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN) {}
        grpc_completion_queue_destroy(s->cqs[i]);
    }
    grpc_server_destroy(s->gs);
    czk_free(s->cqs);
    czk_free(s->threads);
    grpc_shutdown();
fail_early:
    czk__tls_files_free(&pem);
    remove_tls_dir(s);
    if (s->refl) czk__reflection_destroy(s->refl);
    czk_free(s->token);
    for (int i = 0; i < 2; i++) pthread_mutex_destroy(&s->pools[i].mu);
    czk_free(s);
    return st;
}

static void drain_done(czk_server *s, czk__rpc *unused)
{
    (void)unused;
    if (!s->drain_thread_started) return;
    pthread_join(s->drain_thread, NULL);
    s->drain_thread_started = false;
    CZK_LOG_INFO("engine drained; ending the calls still open", "calls=%d", atomic_load(&s->calls_held));
    /* Awaits and watches still open: their jobs stay journaled and run after the restart,
     * so the client is told UNAVAILABLE (retry) rather than CANCELLED. */
    size_t cap = 0;
    czk__rpc **list = czk__server_list_snapshot(s, CZK__RPC_LIST_PENDING, &cap);
    for (size_t i = 0; i < cap; i++) {
        czk__rpc *r = list[i];
        if (czk__rpc_try_finish(r)) {
            czk__await_cancel_registration(r);
            if (r->timeout_ms) { /* its timer would hold the loop open until it fires */
                czk__rpc_ref(r);
                czk__server_post(s, czk__await_stop_timer, r);
            }
            pthread_mutex_lock(&r->mu);
            bool unwatch = r->watch_registered && r->watch_active;
            r->watch_active = false;
            r->watch_ended = true;
            /* A stream with a send outstanding cannot start its status batch now; the
             * cancellation below ends it. */
            bool can_send = !r->sending;
            pthread_mutex_unlock(&r->mu);
            if (unwatch) {
                czk_engine_unwatch(s->engine, r->watch_handle);
                czk__rpc_unref(r);
            }
            if (can_send)
                czk__rpc_finish(r, GRPC_STATUS_UNAVAILABLE,
                                "the daemon is shutting down; the job stays journaled and runs after the restart",
                                NULL);
        }
        czk__rpc_unref(r);
    }
    czk_free(list);
    czk__health_end_all(s);
    grpc_server_cancel_all_calls(s->gs);
    check_stopped(s, NULL);
}

static void *drain_main(void *arg)
{
    czk_server *s = arg;
    czk_engine_drain(s->engine, s->grace_ms);
    czk__server_post(s, drain_done, NULL);
    return NULL;
}

static void inbox_close_cb(uv_handle_t *h) { (void)h; }

static void check_stopped(czk_server *s, czk__rpc *unused)
{
    (void)unused;
    if (s->stopped || !atomic_load(&s->shutdown_seen) || s->drain_thread_started ||
        atomic_load(&s->calls_held) != 0)
        return;
    s->stopped = true;
    if (s->hw_timer_started) {
        s->hw_timer_started = false;
        uv_timer_stop(&s->hw_timer);
        uv_close((uv_handle_t *)&s->hw_timer, NULL);
    }
    for (int i = 0; i < s->ncq; i++) grpc_completion_queue_shutdown(s->cqs[i]);
    for (int i = 0; i < s->ncq; i++) pthread_join(s->threads[i], NULL);
    for (int i = 0; i < s->ncq; i++) grpc_completion_queue_destroy(s->cqs[i]);
    grpc_server_destroy(s->gs);
    s->gs = NULL;
    czk__listener_stop(s->listener);
    s->listener = NULL;
    remove_tls_dir(s);
    if (s->http) czk__http_stop(s->http);
    s->http = NULL;
    /* Items posted after this point (none should be) would be dropped with the handle. */
    inbox_cb(&s->inbox_async);
    uv_close((uv_handle_t *)&s->inbox_async, inbox_close_cb);
    CZK_LOG_INFO("grpc server stopped", NULL);
    if (s->on_stopped) s->on_stopped(s->on_stopped_ctx);
}

void czk__server_drain(czk_server *s, uint64_t grace_ms, void (*on_stopped)(void *ctx), void *ctx)
{
    s->on_stopped = on_stopped;
    s->on_stopped_ctx = ctx;
    if (atomic_exchange(&s->draining, true)) return;
    CZK_LOG_INFO("draining", "grace_ms=%llu calls=%d", (unsigned long long)grace_ms, atomic_load(&s->calls_held));
    czk__listener_close(s->listener);
    grpc_server_shutdown_and_notify(s->gs, s->cqs[0], &s->shutdown_tag);
    s->grace_ms = grace_ms;
    /* Health watchers learn of the drain at once, not at the next poll. */
    czk__health_poll(&s->hw_timer);
    /* czk_engine_drain blocks for up to the grace period: not on the loop thread, which
     * must keep serving timers, /metrics and the inbox meanwhile. */
    if (pthread_create(&s->drain_thread, NULL, drain_main, s) == 0) {
        s->drain_thread_started = true;
    } else {
        grpc_server_cancel_all_calls(s->gs);
    }
}

void czk__server_cancel_all(czk_server *s)
{
    /* The engine's work too: a drain waiting for its grace stops waiting now. */
    czk_engine_abort(s->engine);
    if (s->gs) grpc_server_cancel_all_calls(s->gs);
}

void czk__server_free(czk_server *s)
{
    if (!s) return;
    if (s->refl) czk__reflection_destroy(s->refl);
    czk_free(s->token);
    czk_free(s->cqs);
    czk_free(s->threads);
    pthread_mutex_destroy(&s->inbox_mu);
    pthread_mutex_destroy(&s->pend_mu);
    pthread_mutex_destroy(&s->refusal_mu);
    for (int i = 0; i < 2; i++) pthread_mutex_destroy(&s->pools[i].mu);
    czk_free(s);
    grpc_shutdown();
}

czk_engine *czk__server_engine(czk_server *s) { return s->engine; }
