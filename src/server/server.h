/*
 * czk's gRPC front end (private to czkd, the czk tool and their tests): the daemon's
 * configuration table, the gRPC server over the engine, the HTTP /metrics endpoint, the
 * reflection index, the status mapping, and a small blocking gRPC client.
 */
#ifndef CZK_SERVER_H
#define CZK_SERVER_H

#include "czk/common.h"
#include "czk/engine.h"

#include <stdio.h>

#include <grpc/grpc.h>

struct uv_loop_s;
struct ProtobufCMessage;
struct ProtobufCMessageDescriptor;

/* ----------------------------------------------------------------------------------- */
/* Configuration: one table (config.c) drives the file, the environment, the flags, the */
/* dump and the sample file.                                                            */
/* ----------------------------------------------------------------------------------- */

typedef struct czk_daemon_config {
    /* [daemon] */
    char *listen;          /* host:port or unix:PATH */
    char *metrics_listen;  /* host:port; "" = off */
    char *data_dir;
    char *param_dir;
    char *pid_file;
    char *ready_file;      /* JSON {pid, grpc_port, metrics_port} once listening */
    uint64_t grpc_threads;
    uint64_t max_message_size;
    uint64_t max_concurrent_streams;
    uint64_t max_connections;
    uint64_t handshake_timeout_ms;
    uint64_t max_client_resets;
    uint64_t max_concurrent_receives;
    uint64_t max_queued_bytes;
    uint64_t metrics_max_connections;
    uint64_t metrics_timeout_ms;
    uint64_t unix_socket_mode;
    uint64_t drain_grace_ms;
    uint64_t retention_ms;
    uint64_t max_queued_jobs;
    char *auth_token;
    char *auth_token_file;
    /* [memory] */
    uint64_t memory_budget;  /* 0 = auto */
    uint64_t memory_margin;
    uint64_t pinned_limit;
    bool pageable_buffers;
    uint64_t srs_idle_evict_ms;
    /* [params] */
    bool test_params;
    /* [gpus] */
    char *gpu_mode;        /* auto, cpu, gpu */
    char *gpu_devices;     /* "0,1" or "" = all */
    uint64_t gpu_workers_per_device;
    uint64_t gpu_memory_limit;
    bool gpu_pack_copies;
    bool gpu_spin_wait;
    /* [synthesis] */
    uint64_t synthesis_threads;
    uint64_t synthesis_workers;
    uint64_t synthesis_nice;
    /* [logging] */
    char *log_level;
    char *log_format;      /* logfmt or json */
    char *grpc_verbosity;  /* error, info, debug: gRPC's own messages passed on */
    /* [tls] */
    char *tls_cert;
    char *tls_key;
    char *tls_client_ca;   /* set: mTLS, clients must present a certificate it signed */
    /* [timeline] */
    bool timeline_enabled;
    char *timeline_path;   /* "" = <data_dir>/timeline.jsonl */
    uint64_t timeline_max_size;
    uint64_t timeline_keep;
} czk_daemon_config;

/** Every option at its default. */
void czk__config_defaults(czk_daemon_config *c);
void czk__config_free(czk_daemon_config *c);
/** Set "section.key" (or its flag spelling "section-key") from text; err names the option. */
czk_status czk__config_set(czk_daemon_config *c, const char *section, const char *key,
                           const char *value, czk_err *err);
/** Parse an INI file's text (sections and keys of the table only); err names file:line. */
czk_status czk__config_parse_string(czk_daemon_config *c, const char *text, const char *name,
                                    czk_err *err);
czk_status czk__config_load_file(czk_daemon_config *c, const char *path, czk_err *err);
/** CZKD_<SECTION>_<KEY> variables from the environment. */
czk_status czk__config_load_env(czk_daemon_config *c, czk_err *err);
/** Every option as an INI file: with_help writes the sample file (help and defaults). */
void czk__config_write(const czk_daemon_config *c, FILE *f, bool with_help);
/** The engine configuration the daemon's options describe (gpus is malloc'd into *gpus). */
czk_status czk__config_to_engine(const czk_daemon_config *c, czk_engine_config *ec, int **gpus,
                                 czk_err *err);
/** "5GiB", "512M", "1024" → bytes; "30s", "5m", "24h", "250ms", "10" (seconds) → ms. */
bool czk__parse_bytes(const char *s, uint64_t *out);
bool czk__parse_duration_ms(const char *s, uint64_t *out);

/* ----------------------------------------------------------------------------------- */
/* Status mapping and conversions (convert.c)                                            */
/* ----------------------------------------------------------------------------------- */

/**
 * The one place czk_status becomes a gRPC code. `job_lookup`: the status answers a call
 * naming a job id (Await, Cancel, GetJob, WatchJob), where ENOENT means "no such job"
 * (NOT_FOUND); elsewhere ENOENT is a missing parameter file (FAILED_PRECONDITION).
 */
grpc_status_code czk__grpc_code(czk_status s, bool job_lookup);
/** "OK", "INVALID_ARGUMENT", ... */
const char *czk__grpc_code_name(grpc_status_code c);

/**
 * Every string field of a serialized message (nested messages included, `d` its type) is
 * valid UTF-8 without control characters; else false, with the field's path
 * ("submit.request_id") in `field` and what is wrong in *fault. Checked on the wire bytes:
 * protobuf-c's unpacked strings end at their first NUL.
 */
bool czk__proto_strings_ok(const struct ProtobufCMessageDescriptor *d, const uint8_t *data,
                           size_t len, char *field, size_t cap, czk_text_fault *fault);
/** The field a refusal's message names ("request_id" of "EINVAL: request_id: ..."), or "". */
void czk__refusal_field(const char *msg, char *out, size_t cap);
/** n bytes as a log value: quotes, backslashes and control bytes (and, if the bytes are
 *  not valid UTF-8, every non-ASCII byte) become '?'. */
void czk__log_text(const char *s, size_t n, char *out, size_t cap);

/* Parsed from and printed as "porep", "snap", "wpost", "winning", "circom". */
bool czk__kind_parse(const char *s, czk_job_kind *out);
bool czk__priority_parse(const char *s, czk_job_priority *out);
const char *czk__priority_name(czk_job_priority p);

/* ----------------------------------------------------------------------------------- */
/* The gRPC server (server.c, its rpc_*.c, metrics.c) and its HTTP side (http.c)         */
/* ----------------------------------------------------------------------------------- */

typedef struct czk_server czk_server;

/**
 * Create and start the gRPC server for `engine` with the daemon options; timers, the
 * inbox and the HTTP endpoint live on `loop` (which the caller runs). *grpc_port gets the
 * bound TCP port (0 for a unix socket).
 */
czk_status czk__server_start(czk_server **out, czk_engine *engine, const czk_daemon_config *cfg,
                             struct uv_loop_s *loop, int *grpc_port, int *metrics_port,
                             czk_err *err);
/**
 * Begin draining: health turns NOT_SERVING, new connections are refused, the engine drains
 * for grace_ms, then calls still open are cancelled. `on_stopped` runs on the loop thread
 * once every call has ended and the server is destroyed.
 */
void czk__server_drain(czk_server *s, uint64_t grace_ms, void (*on_stopped)(void *ctx),
                       void *ctx);
/** A second signal: cancel the engine's work in progress and every call, now. */
void czk__server_cancel_all(czk_server *s);
/** Free what is left after on_stopped ran (the engine is the caller's). */
void czk__server_free(czk_server *s);

/** Prometheus text of the server's own counters and the process (free with czk_free). */
char *czk__server_metrics_text(czk_server *s);
/** The engine's metrics followed by the server's (free with czk_free). */
char *czk__server_all_metrics(czk_server *s);
czk_engine *czk__server_engine(czk_server *s);
bool czk__server_serving(czk_server *s);

typedef struct czk_http czk_http;
/**
 * Serve GET/HEAD /metrics, /status, /healthz for `srv` on addr (host:port) on `loop`, at
 * most max_connections at once, each request whole within timeout_ms.
 */
czk_status czk__http_start(czk_http **out, czk_server *srv, struct uv_loop_s *loop,
                           const char *addr, unsigned max_connections, uint64_t timeout_ms,
                           int *port, czk_err *err);
/** Connections refused for the limit, and closed for a slow request, since the start. */
void czk__http_counts(const czk_http *h, uint64_t *refused, uint64_t *timed_out);
/** Close the listener and open connections (handles close on the loop's next turns). */
void czk__http_stop(czk_http *h);

/* ----------------------------------------------------------------------------------- */
/* TLS material (tls.c)                                                                  */
/* ----------------------------------------------------------------------------------- */

typedef struct czk_tls_files {
    char *cert, *key, *ca; /* PEM text; ca NULL without tls.client_ca */
} czk_tls_files;

/**
 * Read tls.cert, tls.key and tls.client_ca and check them with OpenSSL: each readable PEM
 * of the right kind, the key the certificate's. err names the option, file and fault.
 */
czk_status czk__tls_load(const czk_daemon_config *c, czk_tls_files *out, czk_err *err);
void czk__tls_files_free(czk_tls_files *f);

/* ----------------------------------------------------------------------------------- */
/* The gRPC listener (listener.c): czkd accepts, gRPC serves                             */
/* ----------------------------------------------------------------------------------- */

typedef struct czk_listener czk_listener;

typedef struct czk_listener_opts {
    const char *addr;              /* daemon.listen: host:port or unix:PATH */
    unsigned unix_mode;            /* the socket file's mode */
    unsigned max_connections;
    uint64_t handshake_timeout_ms; /* plaintext: first bytes within this */
    unsigned max_client_resets;    /* per 10 s per connection; 0 = no limit */
    grpc_server *gs;               /* started; plaintext connections go to it by fd */
    const char *relay_path;        /* TLS: relay connections to gRPC's listener here */
} czk_listener_opts;

typedef struct czk_listener_stats {
    uint64_t open, max, accepted, refused_limit, refused_fds, closed_idle, closed_resets;
} czk_listener_stats;

/** Bind and listen on o->addr (*port: the TCP port bound, 0 for a unix socket). */
czk_status czk__listener_start(czk_listener **out, struct uv_loop_s *loop,
                               const czk_listener_opts *o, int *port, czk_err *err);
/** False while a new connection would be refused (the limit, no descriptors, closed). */
bool czk__listener_accepting(czk_listener *l);
/** A call from `peer` (grpc_call_get_peer) was cancelled by its client. Any thread. */
void czk__listener_client_cancel(czk_listener *l, const char *peer);
void czk__listener_stats(czk_listener *l, czk_listener_stats *s);
/** Stop accepting (the socket file of a unix listener is removed). Loop thread. */
void czk__listener_close(czk_listener *l);
/** Close every connection still watched and free the listener once its handles closed. */
void czk__listener_stop(czk_listener *l);

/* ----------------------------------------------------------------------------------- */
/* Timeline writer (timeline.c)                                                          */
/* ----------------------------------------------------------------------------------- */

typedef struct czk_timeline czk_timeline;
/**
 * Write every engine event as a JSON line to `path` (appending), rotating to path.1 ..
 * path.<keep> when the file passes max_size bytes. Events are buffered and written by a
 * thread of its own, so the engine never waits for the disk. Errors name the path.
 */
czk_status czk__timeline_start(czk_timeline **out, czk_engine *engine, const char *path,
                               uint64_t max_size, unsigned keep, czk_err *err);
/** Stop watching, write what is buffered, close the file (NULL: nothing). */
void czk__timeline_stop(czk_timeline *t);

/* ----------------------------------------------------------------------------------- */
/* Reflection index (reflection.c)                                                        */
/* ----------------------------------------------------------------------------------- */

typedef struct czk_reflection czk_reflection;
/** Index a serialized FileDescriptorSet: files by name, symbols to their file. */
czk_status czk__reflection_create(czk_reflection **out, const uint8_t *set, size_t len,
                                  czk_err *err);
void czk__reflection_destroy(czk_reflection *r);
/**
 * Answer one ServerReflectionRequest (v1 and v1alpha share the wire format) with a
 * packed ServerReflectionResponse; `services` lists the service names to report.
 */
uint8_t *czk__reflection_answer(const czk_reflection *r, const uint8_t *req, size_t req_len,
                                const char *const *services, size_t nservices, size_t *out_len);

/* The descriptor set protoc wrote at build time (gen/descset.c). */
extern const unsigned char czk__descset[];
extern const size_t czk__descset_len;

/* ----------------------------------------------------------------------------------- */
/* Blocking client (client.c), for the czk tool and tests                                */
/* ----------------------------------------------------------------------------------- */

typedef struct czk_client_opts {
    const char *addr;        /* host:port or unix:PATH */
    const char *token;       /* bearer token or NULL */
    const char *tls_ca;      /* PEM file: use TLS, verify the server with it */
    const char *tls_cert;    /* PEM files: client certificate for mTLS */
    const char *tls_key;
    const char *server_name; /* TLS name override (tests with a localhost certificate) */
    uint64_t max_message_size;
} czk_client_opts;

typedef struct czk_client czk_client;

czk_status czk__client_open(czk_client **out, const czk_client_opts *o, czk_err *err);
void czk__client_close(czk_client *c);

/**
 * One unary call: `method` like "/czk.v1.Czk/Submit", `timeout_ms` 0 = none. *reply is
 * unpacked with reply_desc (free with protobuf_c_message_free_unpacked). Returns the gRPC
 * code; the status message goes into err (err->status CZK_EIO on a non-OK code).
 */
grpc_status_code czk__client_unary(czk_client *c, const char *method,
                                   const struct ProtobufCMessage *req,
                                   const struct ProtobufCMessageDescriptor *reply_desc,
                                   uint64_t timeout_ms, struct ProtobufCMessage **reply,
                                   czk_err *err);

/** Server streaming: on_msg runs for each message until it returns false or the stream ends. */
grpc_status_code czk__client_stream(czk_client *c, const char *method,
                                    const struct ProtobufCMessage *req,
                                    const struct ProtobufCMessageDescriptor *msg_desc,
                                    uint64_t timeout_ms,
                                    bool (*on_msg)(void *ctx, const struct ProtobufCMessage *m),
                                    void *ctx, czk_err *err);

#endif /* CZK_SERVER_H */
