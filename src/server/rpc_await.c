/*
 * Awaiting a job, for both APIs (cuzk.v1's AwaitProof and Prove, czk.v1's Await and
 * Prove), and czk.v1's WatchJob stream. An await is a race between the engine's done
 * callback, a libuv timer (timeout_ms) and the call's cancellation: whichever wins
 * czk__rpc_try_finish ends the call, and none of them holds a thread while it waits.
 */
#include "server_internal.h"

#include "czk/alloc.h"

#include <stdio.h>
#include <string.h>

/* A watch whose client reads slower than events arrive is ended rather than buffering
 * without bound. */
#define WATCH_QUEUE_MAX 65536

static void send_await_reply(czk__rpc *r, const czk_job_info *info, bool timed_out)
{
    czk_server *s = r->srv;
    /* A job the engine cancelled because the daemon is draining is still journaled and
     * will run after the restart: tell the client to retry, not that it was cancelled. */
    if (!timed_out && info->state == CZK_JOB_CANCELLED && atomic_load(&s->draining)) {
        czk__rpc_finish(r, GRPC_STATUS_UNAVAILABLE,
                        "the daemon is shutting down; the job stays journaled and runs after the restart",
                        NULL);
        return;
    }
    if (r->czk_api) {
        Czk__V1__AwaitResponse a = CZK__V1__AWAIT_RESPONSE__INIT;
        Czk__V1__Job j = CZK__V1__JOB__INIT;
        Czk__V1__Timings t = CZK__V1__TIMINGS__INIT;
        czk__jobs_fill_job(&j, &t, info, !r->omit_proof);
        a.job = &j;
        a.timed_out = timed_out;
        czk__rpc_finish(r, GRPC_STATUS_OK, NULL, &a.base);
    } else if (r->midx == 2) { /* cuzk Prove */
        Cuzk__V1__ProveResponse p = CUZK__V1__PROVE_RESPONSE__INIT;
        Cuzk__V1__AwaitProofResponse a = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
        czk__jobs_fill_await_proof(&a, info, timed_out);
        p.result = &a;
        czk__rpc_finish(r, GRPC_STATUS_OK, NULL, &p.base);
    } else {
        Cuzk__V1__AwaitProofResponse a = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
        czk__jobs_fill_await_proof(&a, info, timed_out);
        czk__rpc_finish(r, GRPC_STATUS_OK, NULL, &a.base);
    }
}

static void timer_close_cb(uv_handle_t *h)
{
    czk__rpc_unref(h->data);
}

void czk__await_stop_timer(czk_server *s, czk__rpc *r)
{
    (void)s;
    if (r->timer_started && !r->timer_closed) {
        r->timer_closed = true;
        uv_timer_stop(&r->timer);
        uv_close((uv_handle_t *)&r->timer, timer_close_cb);
    }
    czk__rpc_unref(r); /* the reference that came with this inbox item */
}

static void await_done(void *ctx, const czk_job_info *info)
{
    czk__rpc *r = ctx;
    if (czk__rpc_try_finish(r)) {
        send_await_reply(r, info, false);
        if (r->timeout_ms) {
            czk__rpc_ref(r);
            czk__server_post(r->srv, czk__await_stop_timer, r);
        }
    }
    czk__rpc_unref(r); /* the registration's reference */
}

/* Remove the engine registration if it has not fired; drops its reference if so. */
void czk__await_cancel_registration(czk__rpc *r)
{
    pthread_mutex_lock(&r->mu);
    bool reg = r->done_registered;
    r->done_registered = false;
    uint64_t h = r->done_handle;
    pthread_mutex_unlock(&r->mu);
    if (reg && czk_engine_on_done_cancel(r->srv->engine, h)) czk__rpc_unref(r);
}

static void timer_cb(uv_timer_t *t)
{
    czk__rpc *r = t->data;
    if (czk__rpc_try_finish(r)) {
        czk__await_cancel_registration(r);
        czk_job_info info;
        czk_err err;
        czk_status st = czk_engine_get(r->srv->engine, r->job_id, false, &info, &err);
        if (st == CZK_OK) {
            send_await_reply(r, &info, true);
            czk_job_info_clear(&info);
        } else {
            czk__rpc_finish(r, czk__grpc_code(st, true), err.msg, NULL);
        }
    }
    r->timer_closed = true;
    uv_close((uv_handle_t *)t, timer_close_cb);
}

static void start_timer(czk_server *s, czk__rpc *r)
{
    /* Already answered (the job was done at registration): no timer needed. */
    if (atomic_load(&r->finished) || r->timer_closed) {
        czk__rpc_unref(r);
        return;
    }
    uv_timer_init(s->loop, &r->timer);
    r->timer.data = r;
    r->timer_started = true;
    uv_timer_start(&r->timer, timer_cb, r->timeout_ms, 0); /* keeps the inbox reference */
}

/* Register for the job's completion; answers at once if it is already terminal. */
void czk__await_start(czk__rpc *r, const char *job_id, uint64_t timeout_ms)
{
    snprintf(r->job_id, sizeof r->job_id, "%s", job_id);
    r->timeout_ms = timeout_ms;
    if (strlen(job_id) >= CZK_JOB_ID_MAX) {
        czk__rpc_reply(r, czk__grpc_code(CZK_ENOENT, true), "job_id: too long to be a job id", NULL);
        return;
    }
    if (timeout_ms) {
        czk__rpc_ref(r);
        czk__server_post(r->srv, start_timer, r);
    }
    czk_err err;
    czk__rpc_ref(r); /* for the registration */
    pthread_mutex_lock(&r->mu);
    uint64_t h = 0;
    czk_status st = czk_engine_on_done(r->srv->engine, job_id, await_done, r, &h, &err);
    if (st == CZK_OK) {
        r->done_handle = h;
        r->done_registered = true;
    }
    pthread_mutex_unlock(&r->mu);
    if (st != CZK_OK) {
        czk__rpc_unref(r);
        if (czk__rpc_try_finish(r)) {
            char msg[CZK_ERR_MSG_MAX + 64];
            if (st == CZK_ENOENT) snprintf(msg, sizeof msg, "job_id: no job '%s'", job_id);
            else snprintf(msg, sizeof msg, "%s: %s", czk_status_name(st), err.msg);
            czk__rpc_finish(r, czk__grpc_code(st, true), msg, NULL);
        }
        return;
    }
    czk__rpc_list_add(r, CZK__RPC_LIST_PENDING);
    /* A call cancelled while we registered: czk__await_on_cancelled may have run before the
     * registration existed, so check again. */
    if (r->cancelled) czk__await_cancel_registration(r);
}

/* A watch sends no more: its registration (and the reference it holds) is dropped once. */
static void watch_stop(czk__rpc *r)
{
    pthread_mutex_lock(&r->mu);
    bool unwatch = r->watch_registered && r->watch_active;
    r->watch_active = false;
    r->watch_ended = true;
    pthread_mutex_unlock(&r->mu);
    if (unwatch) {
        czk_engine_unwatch(r->srv->engine, r->watch_handle);
        czk__rpc_unref(r);
    }
}

void czk__await_on_cancelled(czk__rpc *r)
{
    czk__rpc_try_finish(r); /* nothing more will be sent */
    czk__rpc_pool_leave(r);
    czk__await_cancel_registration(r);
    if (r->timeout_ms) {
        czk__rpc_ref(r);
        czk__server_post(r->srv, czk__await_stop_timer, r);
    }
    watch_stop(r);
}

/* WatchJob: events are queued by the engine's threads and sent one at a time, each next
 * send started from the previous one's completion (grpc allows one outstanding send). */

static bool terminal_event(czk_job_event_type t)
{
    return t == CZK_EV_DONE || t == CZK_EV_FAILED || t == CZK_EV_CANCELLED;
}

/* Called with r->mu held; starts the send of the queue's head if none is outstanding. */
static void watch_pump_locked(czk__rpc *r)
{
    if (r->sending || !r->q_head || r->watch_ended) return;
    czk__ev_node *n = r->q_head;
    r->q_head = n->next;
    if (!r->q_head) r->q_tail = NULL;
    r->q_len--;
    Czk__V1__JobEvent e = CZK__V1__JOB_EVENT__INIT;
    e.job_id = n->ev.job_id;
    e.type = CZK__S(czk_job_event_name(n->ev.type));
    e.partition = n->ev.partition;
    e.worker = n->ev.worker;
    e.unix_us = n->ev.unix_us;
    e.message = n->ev.message;
    r->sending = true;
    czk__rpc_send_msg(r, &e.base);
    czk_free(n);
}

static void watch_event(void *ctx, const czk_job_event *ev)
{
    czk__rpc *r = ctx;
    pthread_mutex_lock(&r->mu);
    if (r->watch_ended || r->terminal_seen) {
        pthread_mutex_unlock(&r->mu);
        return;
    }
    if (r->q_len >= WATCH_QUEUE_MAX) {
        r->watch_ended = true;
        pthread_mutex_unlock(&r->mu);
        czk__rpc_reply(r, GRPC_STATUS_RESOURCE_EXHAUSTED, "watch: the client reads events too slowly", NULL);
        return;
    }
    czk__ev_node *n = czk_malloc(sizeof *n);
    if (n) {
        n->next = NULL;
        n->ev = *ev;
        if (r->q_tail) r->q_tail->next = n;
        else r->q_head = n;
        r->q_tail = n;
        r->q_len++;
    }
    if (r->job_id[0] && terminal_event(ev->type)) r->terminal_seen = true;
    watch_pump_locked(r);
    pthread_mutex_unlock(&r->mu);
}

/* After the last event of a job's watch is sent: end the stream with OK. */
static void watch_end(czk__rpc *r)
{
    watch_stop(r);
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, NULL);
}


void czk__watch_sent(czk__rpc *r)
{
    if (r->health_watch) {
        czk__health_sent(r);
        return;
    }
    pthread_mutex_lock(&r->mu);
    r->sending = false;
    watch_pump_locked(r);
    bool end = !r->sending && r->terminal_seen && !r->q_head && !r->watch_ended;
    pthread_mutex_unlock(&r->mu);
    if (end) watch_end(r);
}

void czk__czk_watch(czk__rpc *r, ProtobufCMessage *m)
{
    Czk__V1__WatchJobRequest *w = (Czk__V1__WatchJobRequest *)m;
    if (strlen(w->job_id) >= CZK_JOB_ID_MAX) {
        czk__rpc_reply(r, czk__grpc_code(CZK_ENOENT, true), "job_id: too long to be a job id", NULL);
        return;
    }
    snprintf(r->job_id, sizeof r->job_id, "%s", w->job_id);
    czk__rpc_ref(r); /* for the watch registration */
    uint64_t h = 0;
    czk_err err;
    czk_status st = czk_engine_watch(r->srv->engine, *w->job_id ? w->job_id : NULL, watch_event, r,
                                     &h, &err);
    if (st != CZK_OK) {
        czk__rpc_unref(r);
        czk__rpc_reply_job_err(r, st, &err, w->job_id);
        return;
    }
    czk__rpc_list_add(r, CZK__RPC_LIST_PENDING);
    pthread_mutex_lock(&r->mu);
    r->watch_handle = h;
    r->watch_registered = true;
    r->watch_active = !r->watch_ended;
    bool end_now = !r->watch_active;
    /* The replay may already have delivered and sent the terminal event. */
    bool finished_stream = r->watch_active && !r->sending && r->terminal_seen && !r->q_head;
    pthread_mutex_unlock(&r->mu);
    if (end_now) { /* cancelled (or overflowed) while registering */
        czk_engine_unwatch(r->srv->engine, h);
        czk__rpc_unref(r);
    } else if (finished_stream) {
        watch_end(r);
    }
}
