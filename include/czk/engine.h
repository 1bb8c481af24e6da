/*
 * czk — the proving engine: job table, priority scheduler, memory budget, pinned pool,
 * synthesis workers, GPU (or CPU) prove workers, finalizer (self-verification), parameter
 * cache and the SQLite journal. The gRPC server (src/server) is one client of this API;
 * tests and the `czk` tool are others. Nothing here knows about gRPC, config files or
 * signals.
 *
 * Threading: every function is thread-safe. Callbacks (done, watch) run on engine threads;
 * they must not block and must not call back into the engine except czk_engine_get.
 */
#ifndef CZK_ENGINE_H
#define CZK_ENGINE_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Job kinds: 1..4 are cuzk.v1.ProofKind's numbers; circom is czk's own. */
typedef enum czk_job_kind {
    CZK_JOB_POREP = 1,
    CZK_JOB_SNAP = 2,
    CZK_JOB_WPOST = 3,
    CZK_JOB_WINNING = 4,
    CZK_JOB_CIRCOM = 16, /* snarkjs .zkey in the parameter directory + .wtns from the client */
} czk_job_kind;

/** cuzk.v1.Priority's numbers; DEFAULT: Winning CRITICAL, Window HIGH, others NORMAL. */
typedef enum czk_job_priority {
    CZK_PRIO_DEFAULT = 0,
    CZK_PRIO_LOW = 1,
    CZK_PRIO_NORMAL = 2,
    CZK_PRIO_HIGH = 3,
    CZK_PRIO_CRITICAL = 4,
} czk_job_priority;

typedef enum czk_job_state {
    CZK_JOB_QUEUED = 0,
    CZK_JOB_RUNNING = 1,
    CZK_JOB_DONE = 2,
    CZK_JOB_FAILED = 3,
    CZK_JOB_CANCELLED = 4,
} czk_job_state;

#define CZK_JOB_ID_MAX     40  /* "j-" + 32 hex + NUL, with room */
#define CZK_REQUEST_ID_MAX 129 /* request ids longer than 128 bytes are rejected */

/** A submission (borrowed for the call; the engine copies what it keeps). */
typedef struct czk_job_request {
    const char *request_id; /* idempotency key; NULL or "" = none */
    czk_job_kind kind;
    czk_job_priority priority;
    /* Filecoin kinds: the cuzk.v1 SubmitProofRequest fields, see czk/fil_job.h. */
    uint64_t sector_size;
    uint64_t registered_proof;
    const uint8_t *vanilla_proof; /* PoRep C1 JSON / envelope; circom: the .wtns bytes */
    size_t vanilla_proof_len;
    const uint8_t *const *vanilla_proofs;
    const size_t *vanilla_proof_lens;
    size_t n_vanilla_proofs;
    uint64_t sector_number;
    uint64_t miner_id;
    const uint8_t *randomness;
    size_t randomness_len;
    uint32_t partition_index;
    const uint8_t *comm_r_old, *comm_r_new, *comm_d_new;
    size_t comm_r_old_len, comm_r_new_len, comm_d_new_len;
    /* Circom: the circuit's name; the engine proves with <param_dir>/<circuit>.zkey. */
    const char *circuit;
} czk_job_request;

/** Per-stage wall times of a job, milliseconds. */
typedef struct czk_job_timings {
    uint64_t queue_wait_ms; /* submit → first partition starts synthesis */
    uint64_t srs_load_ms;   /* parameter loading this job waited for */
    uint64_t synthesis_ms;  /* sum over partitions */
    uint64_t gpu_compute_ms; /* sum over partitions of prover time (GPU or CPU backend) */
    uint64_t finalize_ms;   /* assembly + self-verification */
    uint64_t total_ms;      /* submit → terminal state */
} czk_job_timings;

/** A snapshot of one job. `proof` is owned by the snapshot (czk_job_info_clear). */
typedef struct czk_job_info {
    char job_id[CZK_JOB_ID_MAX];
    char request_id[CZK_REQUEST_ID_MAX];
    czk_job_kind kind;
    czk_job_priority priority; /* resolved, never DEFAULT */
    czk_job_state state;
    char circuit_id[64]; /* "porep-32g", "circom:NAME", ... */
    uint32_t partitions;
    uint32_t partitions_synthesized;
    uint32_t partitions_proved;
    uint32_t queue_position; /* among queued jobs, 0 when not queued */
    char assigned_gpu[32];   /* "gpu0", "cpu", "" before dispatch */
    uint64_t submitted_unix_ms, finished_unix_ms;
    czk_job_timings timings;
    czk_status error;         /* CZK_OK unless FAILED */
    char error_message[512];  /* FAILED / CANCELLED: why */
    uint8_t *proof;           /* DONE, when asked for: 192 bytes per partition, in order */
    size_t proof_len;
} czk_job_info;

CZK_API void czk_job_info_clear(czk_job_info *info);
CZK_API const char *czk_job_kind_name(czk_job_kind k);   /* "porep", "snap", "wpost", ... */
CZK_API const char *czk_job_state_name(czk_job_state s); /* "queued", "running", ... */

/** Configuration; zero means the documented default for every field. */
typedef struct czk_engine_config {
    const char *data_dir;  /* journal lives here; default "./czk-data" */
    const char *param_dir; /* .params/.vk/.zkey; default /var/tmp/filecoin-proof-parameters
                              (czkd fills in $FIL_PROOFS_PARAMETER_CACHE at start) */
    uint64_t memory_budget;        /* bytes; 0 = physical memory minus memory_margin */
    uint64_t memory_margin;        /* default 5 GiB (or 1/8 of memory when smaller) */
    uint64_t pinned_limit;         /* bytes of pinned pool; 0 = no limit beyond the budget */
    bool pageable_buffers;         /* true: no pinned pool (to measure what it buys) */
    unsigned synthesis_threads;    /* threads of the math pool; 0 = all CPUs */
    unsigned synthesis_workers;    /* partitions synthesized at once; 0 = auto */
    unsigned synthesis_nice;       /* synthesis threads' nice steps below the daemon's (0..19) */
    int gpu_mode;                  /* 0 auto, 1 CPU only, 2 GPU required */
    const int *gpus;               /* ordinals to use; NULL = all */
    size_t ngpus;
    unsigned gpu_workers_per_device; /* default 2 */
    /* Partitions larger than the express lane's are packed after synthesis (include/czk/
     * pack.h) and the GPU copies the packed forms (gpus.pack_copies). Costs pinned memory
     * beside each partition: its bitmaps and up to a sixth of its bytes. */
    bool gpu_pack_copies;
    /* Threads waiting for a GPU spin instead of blocking (gpus.spin_wait; the GPU layer's
     * czk_gpu_tuning.spin_wait, set before the engine's first GPU call). CZK_EBUSY when
     * another engine of the process already started the GPUs the other way. */
    bool gpu_spin_wait;
    /* Device bytes czk may use on each GPU (gpus.memory_limit); 0: what each device has
     * free at start, less a margin. Never more than what is free at start. A .params file's
     * key is planned within it (czk_gpu_plan_make): resident as far as it fits, the rest
     * streamed from page-locked host memory. A limit below what a 2^27 partition needs is
     * CZK_EINVAL naming that minimum. */
    uint64_t gpu_memory_limit;
    uint64_t retention_s;          /* finished jobs and proofs kept; default 24 h */
    uint64_t srs_idle_evict_s;     /* idle parameter sets may be evicted after; default 300 */
    unsigned max_queued_jobs;      /* submit beyond this is CZK_ERESOURCE; default 10000 */
    /* Payload bytes (request serialisations: C1 outputs, witnesses) held by unfinished
     * jobs, which lie outside memory_budget; a submit past it is CZK_ERESOURCE; 0 = no
     * limit. */
    uint64_t max_queued_bytes;
    /*
     * INSECURE, for benchmarks and tests: a Filecoin circuit whose .params file is missing
     * gets czk TEST parameters made in memory (czk_fil_test_params_make: toxic waste from a
     * seed derived from the file name, so every run makes the same keys), resident on the
     * engine's GPUs when it has any, and its .vk and .meta are written to param_dir so
     * clients can verify. Proofs made with them are valid for no real verifier.
     */
    bool test_params;
} czk_engine_config;

typedef struct czk_engine czk_engine;

/**
 * Open the journal, re-queue unfinished jobs from it, detect GPUs, start the workers.
 * Errors name the path or setting (e.g. an unwritable data_dir).
 */
CZK_API czk_status czk_engine_create(czk_engine **out, const czk_engine_config *cfg,
                                     czk_err *err);

/**
 * Stop accepting (submit → CZK_EBUSY), let the partitions already admitted finish for up
 * to grace_ms, then cancel what still runs, on the GPU and the CPU back end alike (a CPU
 * proof or a synthesis stops within one chunk of its loops). Jobs not finished stay
 * journaled as queued and run again after the next start, once; the partitions of theirs
 * that were verified inside the grace are journaled and not proved again. Returns when the
 * workers have stopped.
 */
CZK_API void czk_engine_drain(czk_engine *e, uint64_t grace_ms);
/**
 * Cancel the work in progress now (a drain's second signal): submissions are refused, a
 * drain in progress stops waiting for its grace. Safe from any thread, any number of times.
 */
CZK_API void czk_engine_abort(czk_engine *e);
/** Drain (if not done) and free everything. */
CZK_API void czk_engine_destroy(czk_engine *e);

/**
 * Validate, journal (durably, before returning) and queue a job. `out` gets the job's
 * snapshot (id, queue position). request_id deduplication: a job of the same request_id
 * that is queued, running or done and the same request (its meaning: a PoRep C1 in
 * canonical form, other payloads as bytes, the priority left out) is returned, CZK_OK.
 * Another request under that id, or any request after a failed or cancelled job of it, is
 * a new job, which the id names from then on (the older job stays listed under its own
 * job id until its retention ends). Bad
 * input: CZK_EINVAL / CZK_EFORMAT / CZK_ETRUNCATED / CZK_EMISMATCH naming the field.
 * Missing parameter file: CZK_ENOENT naming it, before the payload is parsed. Draining:
 * CZK_EBUSY. Too many queued: CZK_ERESOURCE.
 */
CZK_API czk_status czk_engine_submit(czk_engine *e, const czk_job_request *req,
                                     czk_job_info *out, czk_err *err);

/** Snapshot of a job (with a copy of the proof when with_proof). CZK_ENOENT if unknown. */
CZK_API czk_status czk_engine_get(czk_engine *e, const char *job_id, bool with_proof,
                                  czk_job_info *out, czk_err *err);

/** Block until the job is terminal or timeout_ms passes (0: forever; then CZK_ETIMEDOUT). */
CZK_API czk_status czk_engine_await(czk_engine *e, const char *job_id, uint64_t timeout_ms,
                                    czk_job_info *out, czk_err *err);

/** Called once when the job reaches a terminal state (info includes the proof). */
typedef void (*czk_job_done_fn)(void *ctx, const czk_job_info *info);

/**
 * Register fn to run when the job is terminal; if it already is, fn runs on the calling
 * thread before this returns. *handle identifies the registration.
 */
CZK_API czk_status czk_engine_on_done(czk_engine *e, const char *job_id, czk_job_done_fn fn,
                                      void *ctx, uint64_t *handle, czk_err *err);
/**
 * Remove a registration. Returns true if it was removed before firing; false if fn has
 * run or is running (then it has returned by the time this returns).
 */
CZK_API bool czk_engine_on_done_cancel(czk_engine *e, uint64_t handle);

/**
 * Cancel in any state; frees the job's memory, and its synthesis or CPU proof in progress
 * stops within one chunk of its loops. was_running: it had started work. A cancelled job
 * does not block a new submission of its request_id.
 */
CZK_API czk_status czk_engine_cancel(czk_engine *e, const char *job_id, bool *was_running,
                                     czk_err *err);

/**
 * Drop a job: cancel it if it is queued or running, then delete it (and its proof) from
 * the table and the journal, so that no call finds it and its request_id is free for a
 * new job. `state` (may be NULL) gets the state it had. Waiters on it are answered as for
 * a cancel. CZK_ENOENT for an unknown id.
 */
CZK_API czk_status czk_engine_forget(czk_engine *e, const char *job_id, bool *was_running,
                                     czk_job_state *state, czk_err *err);

typedef enum czk_job_event_type {
    CZK_EV_QUEUED = 0,
    CZK_EV_PARTITION_SYNTH_START = 1,
    CZK_EV_PARTITION_SYNTHESIZED = 2,
    CZK_EV_GPU_START = 3,
    CZK_EV_GPU_END = 4,
    CZK_EV_VERIFIED = 5,
    CZK_EV_DONE = 6,
    CZK_EV_FAILED = 7,
    CZK_EV_CANCELLED = 8,
    CZK_EV_PARAMS_LOADING = 9,
    CZK_EV_PARAMS_LOADED = 10,
} czk_job_event_type;

typedef struct czk_job_event {
    char job_id[CZK_JOB_ID_MAX];
    czk_job_event_type type;
    int32_t partition; /* -1 when the event is about the whole job */
    char worker[32];   /* "gpu0", "cpu", "synth3", "" */
    uint64_t unix_us;  /* when it happened */
    char message[512]; /* failure details, the GPU prover's stage times, etc. */
} czk_job_event;

CZK_API const char *czk_job_event_name(czk_job_event_type t); /* "queued", "gpu_start", ... */

typedef void (*czk_job_event_fn)(void *ctx, const czk_job_event *ev);
/**
 * Stream a job's events: the past ones are replayed first, in order, then new ones as they
 * happen, ending with a terminal event (done/failed/cancelled). job_id NULL: every job's
 * events (the timeline). fn runs on engine threads and must not block.
 */
CZK_API czk_status czk_engine_watch(czk_engine *e, const char *job_id, czk_job_event_fn fn,
                                    void *ctx, uint64_t *handle, czk_err *err);
/** Stop a watch; when this returns fn is not running and will not run again. */
CZK_API void czk_engine_unwatch(czk_engine *e, uint64_t handle);

/** Jobs, newest first; states_mask bit (1 << state), 0 = all; limit 0 = all. */
CZK_API czk_status czk_engine_list(czk_engine *e, unsigned states_mask, size_t limit,
                                   czk_job_info **out, size_t *n, czk_err *err);
CZK_API void czk_engine_list_free(czk_job_info *list, size_t n);

/** Engine-wide state, for cuzk's GetStatus and czk status. */
typedef struct czk_engine_gpu_status {
    int ordinal;
    char name[96];
    uint64_t vram_total, vram_free;
    char current_job_id[CZK_JOB_ID_MAX];
    char current_kind[16];
    double busy_seconds;
} czk_engine_gpu_status;

#define CZK_ENGINE_MAX_GPUS 16

/** One parameter set on one GPU. */
typedef struct czk_engine_srs_gpu {
    int ordinal;
    uint64_t resident_bytes; /* bases kept on the device */
    uint64_t streamed_bytes; /* bases copied from the host for each proof, at most */
    uint64_t budget_bytes;   /* device memory the plan was made for (0: not planned) */
    char plan[400];          /* the plan as one line (czk_gpu_plan_format), "" if none */
} czk_engine_srs_gpu;

typedef struct czk_engine_srs_status {
    char circuit_id[64];
    int tier; /* 0 HOT (ready: on the GPU, or loaded for the CPU back end), 1 WARM (host
                 memory, not yet on the GPU), 2 COLD (on disk only) */
    uint64_t size_bytes; /* what the memory budget charges for it */
    uint32_t ref_count;
    uint64_t host_bytes;   /* points on the host: the whole key on the CPU, streamed parts
                              with GPUs (none when the GPUs hold it all) */
    uint64_t pinned_bytes; /* of which page-locked */
    uint64_t load_ms;      /* the last load */
    size_t ngpus;
    czk_engine_srs_gpu gpus[CZK_ENGINE_MAX_GPUS];
} czk_engine_srs_status;

typedef struct czk_engine_queue_status {
    czk_job_kind kind;
    uint32_t pending, in_progress;
} czk_engine_queue_status;

typedef struct czk_engine_status {
    czk_engine_gpu_status *gpus;
    size_t ngpus;
    czk_engine_srs_status *srs;
    size_t nsrs;
    czk_engine_queue_status queues[5]; /* porep, snap, wpost, winning, circom */
    uint64_t completed, failed, cancelled;
    uint64_t uptime_s;
    uint64_t pinned_bytes, pinned_in_use, pinned_limit;
    uint64_t budget_total, budget_used;
    bool ready;     /* accepting work: not draining, journal open, memory not exhausted */
    bool draining;
    char backend[16]; /* "gpu" or "cpu" */
} czk_engine_status;

CZK_API czk_status czk_engine_get_status(czk_engine *e, czk_engine_status *out, czk_err *err);
CZK_API void czk_engine_status_clear(czk_engine_status *st);

/** `/status` JSON: engine status plus every live job and its partitions (free with czk_free). */
CZK_API char *czk_engine_status_json(czk_engine *e);
/** Prometheus text of the engine's metrics (free with czk_free; the server appends its own). */
CZK_API char *czk_engine_metrics_text(czk_engine *e);

/** Load a parameter set now ("porep-32g", "circom:NAME"); already_loaded if it was. */
CZK_API czk_status czk_engine_preload(czk_engine *e, const char *circuit_id, bool *already_loaded,
                                      uint64_t *load_ms, czk_err *err);
/** Drop a parameter set from memory (waits for jobs using it to release it: CZK_EBUSY if any). */
CZK_API czk_status czk_engine_evict(czk_engine *e, const char *circuit_id, bool *was_loaded,
                                    uint64_t *freed_bytes, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_ENGINE_H */
