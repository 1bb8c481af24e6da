/*
 * Private to the gRPC server's files in src/server: a call (czk__rpc), the server's state
 * (struct czk_server), the method table, and the functions those files share, each under
 * the file that defines it. server.h is the interface to czkd, the czk tool and the tests.
 *
 *   server.c          the method table, the life of a call, start, drain and stop
 *   rpc_jobs.c        what both job APIs share: jobs as messages, submission
 *   rpc_await.c       the await race (engine, timer, cancellation) and WatchJob
 *   rpc_cuzk.c        the cuzk.v1.ProvingEngine handlers
 *   rpc_czk.c         the czk.v1.Czk handlers
 *   rpc_health.c      grpc.health.v1.Health: Check, Watch, the serving-status poll
 *   rpc_reflection.c  server reflection's stream
 *   metrics.c         the Prometheus text of the server's own counters
 */
#ifndef CZK_SERVER_INTERNAL_H
#define CZK_SERVER_INTERNAL_H

#include "server.h"

#include "cuzk/v1/proving.pb-c.h"
#include "czk/v1/czk.pb-c.h"

#include <grpc/grpc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <uv.h>

/* ----------------------------------------------------------------------------------- */
/* Calls and the server's state (server.c)                                             */
/* ----------------------------------------------------------------------------------- */

/* Rows of czk__methods and of czk__service_names (server.c checks both), and the gRPC
 * status codes counted per method. */
#define CZK__NMETHODS  24
#define CZK__NSERVICES ((size_t)5)
#define CZK__NCODES    17

typedef enum czk__tag_kind {
    CZK__TAG_NEW, CZK__TAG_CLOSE, CZK__TAG_SEND, CZK__TAG_RECV, CZK__TAG_STATUS, CZK__TAG_SHUTDOWN
} czk__tag_kind;

typedef struct czk__rpc czk__rpc;
typedef struct czk__tag {
    czk__tag_kind kind;
    czk__rpc *r;
} czk__tag;

typedef enum czk__mtype { CZK__M_UNARY, CZK__M_STREAM, CZK__M_BIDI } czk__mtype;

typedef void (*czk__handler_fn)(czk__rpc *r, ProtobufCMessage *req);

typedef struct czk__method {
    const char *service; /* "cuzk.v1.ProvingEngine" */
    const char *name;    /* "SubmitProof" */
    czk__mtype type;
    const ProtobufCMessageDescriptor *req_desc;
    czk__handler_fn fn;
    bool heavy;   /* runs on the libuv pool: may block for I/O or long validation */
    bool no_auth; /* health checks work without the token (for probes) */
} czk__method;

typedef struct czk__ev_node {
    struct czk__ev_node *next;
    czk_job_event ev;
} czk__ev_node;

struct czk__rpc {
    czk__tag t_new, t_close, t_send, t_recv, t_status;
    czk_server *srv;
    int midx; /* index in czk__methods[], or CZK__NMETHODS for a generic (unknown) call */
    int cq;
    grpc_call *call;
    gpr_timespec deadline;
    grpc_metadata_array md;
    grpc_byte_buffer *payload; /* the request's message, once read */
    int recv_pool;             /* the receive pool whose slot the message holds, or -1 */
    struct czk__rpc *pool_next; /* waiting for a slot */
    bool pool_queued;          /* in its pool's queue (under the pool's lock) */
    int queued_pool;           /* the pool it was queued in, or -1 (its cq thread only) */
    grpc_call_details details;
    int cancelled;
    atomic_int refs;
    atomic_bool finished; /* the final status has been started (or the call is dead) */
    bool md_sent;         /* initial metadata went out with a message */
    grpc_byte_buffer *send_bb;
    grpc_byte_buffer *recv_bb;
    grpc_slice status_slice;
    bool status_slice_set;
    pthread_mutex_t mu;
    ProtobufCMessage *req; /* decoded request, owned */
    uv_work_t work;
    /* What a refusal's log line names: the request's request_id (log-safe, czk__log_text)
     * and, for calls about a job, job_id below. */
    char log_rid[CZK_REQUEST_ID_MAX];
    /* Await / Prove. */
    bool czk_api; /* reply in czk.v1 shape (else cuzk.v1) */
    bool omit_proof;
    char job_id[CZK_JOB_ID_MAX];
    uint64_t timeout_ms;
    uint64_t done_handle;
    bool done_registered;
    uv_timer_t timer;
    bool timer_started, timer_closed; /* loop thread only */
    /* WatchJob. */
    uint64_t watch_handle;
    bool watch_registered, watch_active, watch_ended, sending, terminal_seen;
    czk__ev_node *q_head, *q_tail;
    size_t q_len;
    /* Awaits and watches are listed on the server (CZK__RPC_LIST_PENDING), so that a drain
     * can answer them UNAVAILABLE ("retry elsewhere or later") instead of a bare
     * cancellation; health watches on a list of their own (CZK__RPC_LIST_HEALTH), since a
     * drain ends them with its own message. */
    struct czk__rpc_link {
        struct czk__rpc *prev, *next;
        bool listed;
    } link[2];
    /* Health/Watch: the status last asked for and the one whose send was started last
     * (both GRPC__HEALTH__V1__...__SERVING_STATUS values). */
    bool health_watch;
    int hw_want, hw_sent;
};

enum { CZK__RPC_LIST_PENDING = 0, CZK__RPC_LIST_HEALTH = 1 };

/* Messages are read only after the call's token was checked, and only so many at once
 * (one pool for authorized calls, daemon.max_concurrent_receives, one for health): the
 * rest wait for a slot, each holding no more than its stream's flow-control window. A
 * slot is held until the message's bytes are freed (after decoding). */
typedef struct czk__recv_pool {
    pthread_mutex_t mu;
    unsigned busy, max;
    unsigned waiting, max_waiting; /* max_waiting 0: no limit */
    struct czk__rpc *head, *tail;
} czk__recv_pool;

typedef struct czk__inbox_item {
    struct czk__inbox_item *next;
    void (*fn)(czk_server *s, czk__rpc *r);
    czk__rpc *r;
} czk__inbox_item;

struct czk_server {
    czk_engine *engine;
    grpc_server *gs;
    int ncq;
    grpc_completion_queue **cqs;
    pthread_t *threads;
    void *mhandles[CZK__NMETHODS];
    uv_loop_t *loop;
    uv_async_t inbox_async;
    pthread_mutex_t inbox_mu;
    czk__inbox_item *inbox_head, *inbox_tail;
    atomic_int calls_held;
    atomic_bool draining;
    atomic_bool shutdown_seen;
    bool stopped;
    char *token;
    czk_reflection *refl;
    czk__tag shutdown_tag;
    czk_http *http;
    bool gpu_engine; /* the engine proves on GPUs (its status asks the driver) */
    czk_listener *listener;
    char tls_dir[256]; /* TLS: the private directory of gRPC's own listener socket */
    char tls_sock[300];
    uint64_t max_msg;
    czk__recv_pool pools[2];
    /* Drain. */
    pthread_t drain_thread;
    bool drain_thread_started;
    uint64_t grace_ms;
    void (*on_stopped)(void *ctx);
    void *on_stopped_ctx;
    /* Refused calls' log lines: a token bucket, so that a flood of bad calls cannot fill
     * the disk (REFUSAL_LOG_RATE lines a second, bursts of REFUSAL_LOG_BURST). */
    pthread_mutex_t refusal_mu;
    double refusal_tokens;
    uint64_t refusal_last_us;
    uint64_t refusal_dropped;   /* since the last line written, reported in it */
    atomic_ulong refusal_dropped_total;
    /* Metrics (go-grpc-prometheus names). */
    atomic_ulong started[CZK__NMETHODS + 1];
    atomic_ulong handled[CZK__NMETHODS + 1][CZK__NCODES];
    atomic_ulong cancelled_calls;
    /* The calls listed for the drain, by czk__rpc_link list (under pend_mu), and the loop
     * timer that notices changes of the serving status for health watches (engine readiness
     * has no callback, so it is polled). */
    pthread_mutex_t pend_mu;
    czk__rpc *list_head[2];
    uv_timer_t hw_timer;
    bool hw_timer_started;
    int hw_last; /* serving status seen by the last poll */
};

/* The C strings of protobuf-c messages are `char *`; we only ever read them through the
 * packer, so pointing them at const data is safe. */
#define CZK__S(x) ((char *)(x))

extern const czk__method czk__methods[];
extern const char *const czk__service_names[];

void czk__server_post(czk_server *s, void (*fn)(czk_server *, czk__rpc *), czk__rpc *r);
void czk__rpc_ref(czk__rpc *r);
void czk__rpc_unref(czk__rpc *r);
void czk__rpc_list_add(czk__rpc *r, int which);
czk__rpc **czk__server_list_snapshot(czk_server *s, int which, size_t *n);
void czk__rpc_note_request_id(czk__rpc *r, const char *request_id);
void czk__rpc_note_job(czk__rpc *r, const char *job_id);
bool czk__rpc_try_finish(czk__rpc *r);
void czk__rpc_finish(czk__rpc *r, grpc_status_code code, const char *msg,
                     const ProtobufCMessage *m);
void czk__rpc_reply(czk__rpc *r, grpc_status_code code, const char *msg,
                    const ProtobufCMessage *m);
void czk__rpc_reply_err(czk__rpc *r, czk_status st, const czk_err *err);
void czk__rpc_reply_job_err(czk__rpc *r, czk_status st, const czk_err *err, const char *job_id);
void czk__rpc_send_msg(czk__rpc *r, const ProtobufCMessage *m);
void czk__rpc_pool_leave(czk__rpc *r);

/* ----------------------------------------------------------------------------------- */
/* What both job APIs share (rpc_jobs.c)                                               */
/* ----------------------------------------------------------------------------------- */

void czk__jobs_fill_job(Czk__V1__Job *j, Czk__V1__Timings *t, const czk_job_info *in, bool proof);
void czk__jobs_fill_await_proof(Cuzk__V1__AwaitProofResponse *a, const czk_job_info *in,
                                bool timed_out);
czk_status czk__jobs_fil_request(czk_job_request *q, const Cuzk__V1__SubmitProofRequest *p,
                                 const uint8_t **ptrs, size_t *lens, czk_err *err);
czk_status czk__jobs_submit(czk__rpc *r, czk_job_request *q, czk_job_info *out, czk_err *err);

/* ----------------------------------------------------------------------------------- */
/* Await and WatchJob (rpc_await.c)                                                    */
/* ----------------------------------------------------------------------------------- */

void czk__await_start(czk__rpc *r, const char *job_id, uint64_t timeout_ms);
void czk__await_cancel_registration(czk__rpc *r);
void czk__await_stop_timer(czk_server *s, czk__rpc *r);
void czk__await_on_cancelled(czk__rpc *r);
void czk__watch_sent(czk__rpc *r);
void czk__czk_watch(czk__rpc *r, ProtobufCMessage *m);

/* ----------------------------------------------------------------------------------- */
/* cuzk.v1.ProvingEngine (rpc_cuzk.c)                                                  */
/* ----------------------------------------------------------------------------------- */

void czk__cuzk_submit_proof(czk__rpc *r, ProtobufCMessage *m);
void czk__cuzk_await_proof(czk__rpc *r, ProtobufCMessage *m);
void czk__cuzk_prove(czk__rpc *r, ProtobufCMessage *m);
void czk__cuzk_cancel_proof(czk__rpc *r, ProtobufCMessage *m);
void czk__cuzk_get_status(czk__rpc *r, ProtobufCMessage *m);
void czk__cuzk_get_metrics(czk__rpc *r, ProtobufCMessage *m);
void czk__cuzk_preload_srs(czk__rpc *r, ProtobufCMessage *m);
void czk__cuzk_evict_srs(czk__rpc *r, ProtobufCMessage *m);

/* What czk.v1's handlers reuse. */
czk_status czk__cuzk_cancel(czk__rpc *r, const char *job_id, bool *was_running);
void czk__cuzk_preload(czk__rpc *r, const char *circuit_id);
void czk__cuzk_evict(czk__rpc *r, const char *circuit_id);

/* Builds cuzk's status message from the engine's; the arrays live in `mem`. */
typedef struct czk__status_mem {
    Cuzk__V1__GPUStatus *gpus, **gpu_ptrs;
    Cuzk__V1__SRSStatus *srs, **srs_ptrs;
    Cuzk__V1__QueueStatus queues[5], *queue_ptrs[5];
} czk__status_mem;
bool czk__cuzk_fill_status(Cuzk__V1__GetStatusResponse *o, const czk_engine_status *st,
                           czk__status_mem *mem, bool cuzk_view);
void czk__cuzk_free_status_mem(czk__status_mem *mem);

/* ----------------------------------------------------------------------------------- */
/* czk.v1.Czk (rpc_czk.c)                                                              */
/* ----------------------------------------------------------------------------------- */

void czk__czk_submit(czk__rpc *r, ProtobufCMessage *m);
void czk__czk_await(czk__rpc *r, ProtobufCMessage *m);
void czk__czk_prove(czk__rpc *r, ProtobufCMessage *m);
void czk__czk_cancel(czk__rpc *r, ProtobufCMessage *m);
void czk__czk_forget(czk__rpc *r, ProtobufCMessage *m);
void czk__czk_get_job(czk__rpc *r, ProtobufCMessage *m);
void czk__czk_list(czk__rpc *r, ProtobufCMessage *m);
void czk__czk_status(czk__rpc *r, ProtobufCMessage *m);
void czk__czk_preload(czk__rpc *r, ProtobufCMessage *m);
void czk__czk_evict(czk__rpc *r, ProtobufCMessage *m);

/* ----------------------------------------------------------------------------------- */
/* grpc.health.v1.Health (rpc_health.c)                                                */
/* ----------------------------------------------------------------------------------- */

void czk__health_check(czk__rpc *r, ProtobufCMessage *m);
void czk__health_watch(czk__rpc *r, ProtobufCMessage *m);
void czk__health_sent(czk__rpc *r);
void czk__health_poll(uv_timer_t *t);
void czk__health_end_all(czk_server *s);

/* ----------------------------------------------------------------------------------- */
/* Server reflection's stream (rpc_reflection.c)                                       */
/* ----------------------------------------------------------------------------------- */

void czk__reflection_recv_done(czk__rpc *r, bool ok);

#endif /* CZK_SERVER_INTERNAL_H */
