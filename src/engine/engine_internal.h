/*
 * Private to src/engine (and its tests): the engine's data structures and the pieces the
 * engine's files share — the pinned pool (pinned.c), the parameter cache and witness
 * decoding (params.c), the SQLite journal (journal.c), metrics and status (report.c), and
 * the engine itself: its lifetime (engine.c), scheduling and the GPU locks (sched.c),
 * events (events.c), the memory budget (budget.c), jobs (job.c), the synthesis workers
 * (synth.c), the prove workers (prove.c), the finalizer (finalize.c) and the public calls
 * (api.c).
 *
 * Locking. One engine mutex `mu` guards the job table, the queues, the budget and the
 * parameter cache's states. The event mutex `ev_mu` serialises callbacks (watch, on_done)
 * and is always taken BEFORE `mu`, never while holding it: callbacks run with ev_mu held
 * and mu free, so they may call czk_engine_get. The pinned pool and the journal have their
 * own mutexes, taken after mu or with nothing held, never the other way round.
 */
#ifndef CZK_ENGINE_INTERNAL_H
#define CZK_ENGINE_INTERNAL_H

#include "czk/engine.h"
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "czk/pack.h"
#include "czk/pool.h"

#include <pthread.h>
#include <stdio.h>

/* ------------------------------------------------------------------------------------ */
/* Pinned pool                                                                          */
/* ------------------------------------------------------------------------------------ */

typedef enum czk__pin_how {
    CZK__PIN_CUDA = 0, /* anonymous mmap, faulted in, czk_gpu_host_register'ed */
    CZK__PIN_MLOCK = 1, /* anonymous mmap, mlock'ed */
    CZK__PIN_MMAP = 2,  /* anonymous mmap, mlock refused (still pooled, but pageable) */
    CZK__PIN_HEAP = 3,  /* fallback: ordinary memory, freed at checkin */
} czk__pin_how;

typedef struct czk__pinned_buf {
    void *p;
    size_t n;
    czk__pin_how how;
} czk__pinned_buf;

typedef struct czk__pinned_pool {
    pthread_mutex_t mu;
    czk__pinned_buf *free_list;
    size_t n_free, cap_free;
    uint64_t limit;        /* pooled bytes allowed (0: no limit) */
    bool use_gpu;          /* page-locked for the GPU (czk_gpu_host_register), not mlock'ed */
    bool disabled;         /* pageable_buffers: every checkout is a heap fallback */
    bool mlock_warned;
    uint64_t total_bytes;  /* pooled bytes allocated, free or checked out */
    uint64_t free_bytes;   /* of which on the free list */
    uint64_t allocations, reuses, fallbacks, frees;
    uint64_t fault_bytes;  /* test hook: pretend allocations above this fail (0: off) */
} czk__pinned_pool;

void czk__pinned_init(czk__pinned_pool *pp, uint64_t limit, bool use_gpu, bool disabled);
/* Fault in [p, p + n) from several threads (the kernel zeroes the pages: about 3 GB/s a
 * core), so that page-locking it afterwards only pins. */
void czk__pinned_touch(uint8_t *p, size_t n);
void czk__pinned_destroy(czk__pinned_pool *pp);
/**
 * A buffer of at least n bytes: the smallest free one that fits, else a new pooled one,
 * else ordinary memory (*fallback set, counted). Fails only when even malloc fails.
 */
czk_status czk__pinned_checkout(czk__pinned_pool *pp, size_t n, czk__pinned_buf *out,
                                bool *fallback, czk_err *err);
/**
 * Allocate up to `count` more pooled buffers of n bytes and leave them idle (stops early
 * when the limit or the system refuses); returns how many were made.
 */
size_t czk__pinned_prewarm(czk__pinned_pool *pp, size_t n, size_t count);
/** Only an idle pooled buffer of at least n bytes, or false (never allocates). */
bool czk__pinned_try_reuse(czk__pinned_pool *pp, size_t n, czk__pinned_buf *out);
/** Return a buffer: pooled ones go back on the free list, fallbacks are freed. */
void czk__pinned_checkin(czk__pinned_pool *pp, czk__pinned_buf *b);
/** Free idle pooled buffers, largest first, until `want` bytes are freed; returns freed. */
uint64_t czk__pinned_shrink(czk__pinned_pool *pp, uint64_t want);
uint64_t czk__pinned_free_bytes(czk__pinned_pool *pp);
/** An idle pooled buffer of at least n bytes exists. */
bool czk__pinned_has_fit(czk__pinned_pool *pp, size_t n);
/** How many idle buffers hold n bytes. */
size_t czk__pinned_count_fit(czk__pinned_pool *pp, size_t n);

typedef struct czk__pinned_stats {
    uint64_t total_bytes, free_bytes, allocations, reuses, fallbacks, frees;
} czk__pinned_stats;
void czk__pinned_get_stats(czk__pinned_pool *pp, czk__pinned_stats *out);

/* ------------------------------------------------------------------------------------ */
/* Parameter cache entries                                                              */
/* ------------------------------------------------------------------------------------ */

_Static_assert(CZK_ENGINE_MAX_GPUS == CZK_GPU_MAX, "engine and GPU layer agree on the most GPUs");

typedef enum czk__pe_state { CZK__PE_COLD = 0, CZK__PE_LOADING = 1, CZK__PE_LOADED = 2 } czk__pe_state;

typedef struct czk__params {
    char id[64];   /* "circom:NAME", "porep-32g", ... */
    char path[4200];
    bool circom;   /* .zkey (with the A/B matrices) rather than bellperson .params */
    czk__pe_state state;
    czk_groth16_params pk;
    czk_r1cs ab;   /* circom: the zkey's A/B matrices (C = A∘B) */
    czk_groth16_pvk pvk;
    uint64_t bytes;     /* host bytes while loaded (or the reservation while loading) */
    uint32_t refs;      /* jobs that hold it */
    uint64_t last_used_ms;
    uint64_t load_ms;
    uint64_t loads, evictions;
    /* Bases resident per GPU slot (engine's gpu index); failed: do not retry the upload. */
    struct czk_gpu_srs *gpu_srs[CZK_GPU_MAX];
    bool gpu_srs_failed[CZK_GPU_MAX];
    bool generated; /* test parameters made in memory (czk_engine_config.test_params) */
    /* gpus.pack_copies: a, b, c or aux of this circuit had more than half its elements
     * neither 0 nor 1 in a partition (a PoSt's Poseidon rows): copied plain from then on,
     * without the packing pass (atomic: synthesis workers set and read it). */
    bool pack_dense[4];
    /* A .params file loaded for GPUs (czk__params_load with gen->plan): each GPU's plan,
     * its resident points in gpu_srs, and the streamed points of every section from
     * tail_first[s] on decoded into one page-locked host mapping (tail_mem; section s at
     * tail[s]). pk holds the shape only. */
    bool planned;
    czk_gpu_plan plan[CZK_GPU_MAX];
    void *tail_mem;
    size_t tail_len;
    bool tail_pinned;
    uint8_t *tail[CZK_G16_SECTIONS];
    size_t tail_first[CZK_G16_SECTIONS];
    struct czk__params *next;
} czk__params;

/** How czk__params_load loads: test parameters instead of a missing file, and plans. */
typedef struct czk__params_gen {
    bool test;        /* engine config test_params */
    const int *gpus;  /* the engine's GPU ordinals, by slot */
    size_t ngpus;
    /* With GPUs, a .params file is planned on each (slot g): within gpu_budget[g] bytes,
     * leaving other_working[g] for other keys' proofs, at h2d_gbps[g]. */
    bool plan;
    const uint64_t *gpu_budget;
    const uint64_t *other_working;
    const double *h2d_gbps;
    /* Called once the plans are made, before the points are read: the engine page-locks
     * the partition buffers meanwhile (NULL: nothing). */
    void (*planned)(void *arg);
    void *planned_arg;
} czk__params_gen;

/**
 * Load the entry's file into pk (and ab for circom); the entry's lock is not held. With
 * gen->test and no file, make test parameters in memory instead: resident on every GPU of
 * gen (pe->gpu_srs, with pk's point arrays NULL) or on the host without GPUs, and write
 * the .vk and .meta beside where the .params would be.
 */
czk_status czk__params_load(czk__params *pe, const czk__params_gen *gen, czk_pool *pool,
                            czk_err *err);
/** The key's points are on the host (false for test parameters made on the GPUs). */
bool czk__params_on_host(const czk__params *pe);
/** Free what a load allocated; back to COLD. */
void czk__params_unload(czk__params *pe);
/** Host bytes the loaded key and matrices take. */
uint64_t czk__params_size(const czk__params *pe);
/**
 * Where a key's streamed points live on the host when GPUs of different plans share one
 * copy: section s from first[s] (the least resident prefix over the plans) on, at byte
 * off[s] of one mapping (each section page-aligned); returns the mapping's size. GPU g
 * streams section s from point plans[g].resident[s], which is in the mapping.
 */
size_t czk__params_tail_layout(const czk_groth16_params *shape, const czk_gpu_plan *plans,
                               size_t ngpus, size_t first[CZK_G16_SECTIONS],
                               size_t off[CZK_G16_SECTIONS]);
/** Device bytes a loaded set keeps on GPU slot g, and what its proofs need beside them. */
uint64_t czk__params_gpu_resident(const czk__params *pe, size_t g);
uint64_t czk__params_gpu_working(const czk__params *pe, size_t g);

/* ------------------------------------------------------------------------------------ */
/* Jobs                                                                                 */
/* ------------------------------------------------------------------------------------ */

typedef enum czk__part_state {
    CZK__PART_PENDING = 0,     /* in the synthesis queue */
    CZK__PART_SYNTH = 1,       /* a synthesis worker has it */
    CZK__PART_SYNTHESIZED = 2, /* in the prove queue */
    CZK__PART_PROVING = 3,
    CZK__PART_PROVED = 4,      /* in the finalizer's queue */
    CZK__PART_DONE = 5,        /* verified */
    CZK__PART_DROPPED = 6,     /* its job ended first */
} czk__part_state;

struct czk__job;

typedef struct czk__part {
    struct czk__job *job;
    uint32_t idx;
    czk__part_state state;
    unsigned retries;
    uint64_t reserved;     /* budget bytes held */
    czk__pinned_buf buf;   /* a, b, c and the witness */
    bool have_buf;
    bool heap_buf;  /* express partition: ordinary memory, never the pinned pool */
    czk_fr *a, *b, *c, *z; /* into buf */
    size_t n_rows;
    czk_fr *pub;           /* public inputs without ONE (heap, kept past checkin) */
    size_t n_pub;
    uint64_t *dens;        /* a_aux, b_input, b_aux bitmaps (Filecoin) */
    czk_packed_vec packed[4]; /* a, b, c, aux packed into buf's pack area (gpus.pack_copies) */
    bool has_packed[4];
    czk_groth16_proof proof;
    czk_status prove_status;
    char prove_msg[CZK_ERR_MSG_MAX];
    char prove_note[512]; /* the GPU prover's stage times, for the gpu_end event */
    uint64_t t_synth_start, t_synth_end, t_prove_start, t_prove_end; /* monotonic µs */
    char worker[32];
    /* The cancel flag (czk_pool_set_cancel) of the synthesis or prove worker holding the
     * partition, NULL when none does (mu): set when its job ends or the engine aborts, so
     * that a cancelled or failed job's CPU work stops within one chunk. */
    int *cancel;
} czk__part;

typedef struct czk__event_log {
    czk_job_event *ev;
    size_t n, cap;
} czk__event_log;

typedef struct czk__job {
    char id[CZK_JOB_ID_MAX];
    char request_id[CZK_REQUEST_ID_MAX];
    char log_rid[CZK_REQUEST_ID_MAX]; /* request_id as a log value (czk__log_safe) */
    uint64_t seq; /* submission order: FIFO within a priority */
    czk_job_kind kind;
    czk_job_priority prio;
    czk_job_state state;
    char circuit_id[64];
    uint8_t *payload; /* the request, serialized (journal.c) */
    size_t payload_len;
    bool payload_counted; /* in the engine's payload_bytes */
    uint8_t payload_hash[32]; /* SHA-256 of the payload's bytes */
    /* What the request means, for request_id deduplication (request_meaning): the payload
     * with its priority left out and a PoRep C1 in canonical form. has_meaning is false
     * only for finished jobs recovered from a journal that predates it. */
    uint8_t meaning[32];
    bool has_meaning;
    const uint8_t *wtns; /* circom: into payload */
    size_t wtns_len;
    size_t n_witness;
    void *fil; /* czk_fil_job * for the Filecoin kinds */
    czk__params *params;
    bool params_ref;
    uint32_t nparts, nsynth, nproved, nverified;
    czk__part *parts;
    uint32_t inflight; /* partitions holding buffers or budget */
    uint8_t *proof;
    size_t proof_len;
    uint64_t submitted_unix_ms, finished_unix_ms;
    uint64_t t_submit, t_first_synth, t_done; /* monotonic µs */
    czk_job_timings timings;
    char assigned[32];
    czk_status error;
    char error_message[512];
    czk__event_log events;
    /* czk_engine_forget: gone from every lookup and from the journal; the struct is freed
     * once no worker holds a partition and its terminal event has been delivered. */
    bool forgotten;
    bool terminal_delivered;
    struct czk__job *next; /* table list, newest first */
} czk__job;

/* journal_request.c: the serialized request (journal payload) and its parse, which borrows
 * from buf. */
uint8_t *czk__request_serialize(const czk_job_request *req, size_t *len);
czk_status czk__request_parse(const uint8_t *buf, size_t len, czk_job_request *req,
                              const uint8_t ***vp_store, size_t **vl_store, czk_err *err);

/* ------------------------------------------------------------------------------------ */
/* Journal                                                                              */
/* ------------------------------------------------------------------------------------ */

typedef struct czk__journal czk__journal;

typedef struct czk__journal_row {
    char job_id[CZK_JOB_ID_MAX];
    char request_id[CZK_REQUEST_ID_MAX];
    uint64_t seq;
    int kind, priority, state;
    uint8_t *payload;
    size_t payload_len;
    uint8_t meaning[32];
    bool has_meaning;
    uint64_t submitted_ms, finished_ms;
    uint8_t *proof;
    size_t proof_len;
    bool proof_damaged; /* DONE, but the stored proof failed its checksum (proof NULL) */
    int error;
    char error_message[512];
    czk_job_timings timings;
} czk__journal_row;

/** A verified partition proof of an unfinished job, kept across a drain. */
typedef struct czk__journal_part {
    char job_id[CZK_JOB_ID_MAX];
    uint32_t idx;
    uint8_t proof[CZK_GROTH16_PROOF_SIZE];
} czk__journal_part;

/** What the journal found wrong with its file (the metrics and the engine's readiness). */
typedef struct czk__journal_health {
    bool damaged_at_open;    /* failed PRAGMA quick_check at open, and was moved aside */
    bool damaged_now;        /* a write found the open file damaged */
    uint64_t damage_events;  /* both, counted */
    size_t rows_recovered, rows_lost; /* of the damaged file, at open */
    char aside[4300];        /* where the damaged file went */
    char check[256];         /* what the check said */
} czk__journal_health;

/** Open (or create) the journal; a damaged one is moved aside and its rows recovered. */
czk_status czk__journal_open(czk__journal **out, const char *data_dir, czk_err *err);
void czk__journal_close(czk__journal *jr);
void czk__journal_health_get(czk__journal *jr, czk__journal_health *out);
czk_status czk__journal_insert(czk__journal *jr, const czk__job *j, czk_err *err);
/** Record a terminal state (with the proof and its checksum for DONE). */
czk_status czk__journal_finish(czk__journal *jr, const czk__job *j, czk_err *err);
/** A DONE row whose proof was found damaged goes back to QUEUED, to be proved again. */
czk_status czk__journal_requeue(czk__journal *jr, const char *job_id, czk_err *err);
/** Every row; older finished ones than min_finished_ms are deleted first. */
czk_status czk__journal_load(czk__journal *jr, uint64_t min_finished_ms, czk__journal_row **rows,
                             size_t *n, czk_err *err);
void czk__journal_rows_free(czk__journal_row *rows, size_t n);
czk_status czk__journal_delete(czk__journal *jr, const char *job_id, czk_err *err);
/** Keep n verified partition proofs (192 bytes each, proofs[i] of partition idx[i]). */
czk_status czk__journal_save_parts(czk__journal *jr, const char *job_id, const uint32_t *idx,
                                   const uint8_t *proofs, size_t n, czk_err *err);
/** Every kept partition proof whose checksum holds; *damaged counts the others. */
czk_status czk__journal_load_parts(czk__journal *jr, czk__journal_part **out, size_t *n,
                                   size_t *damaged, czk_err *err);

/* ------------------------------------------------------------------------------------ */
/* Metrics                                                                              */
/* ------------------------------------------------------------------------------------ */

enum { CZK__ST_QUEUE, CZK__ST_PARAMS, CZK__ST_SYNTH, CZK__ST_PROVE, CZK__ST_FINALIZE, CZK__ST_TOTAL,
       CZK__ST_COUNT };
#define CZK__HIST_BUCKETS 14

typedef struct czk__hist {
    uint64_t bucket[CZK__HIST_BUCKETS]; /* cumulative counts are computed when printed */
    uint64_t count;
    double sum;
} czk__hist;

void czk__hist_add(czk__hist *h, double seconds);
extern const double czk__hist_bounds[CZK__HIST_BUCKETS];
extern const char *const czk__stage_names[CZK__ST_COUNT];

/* ------------------------------------------------------------------------------------ */
/* The engine                                                                           */
/* ------------------------------------------------------------------------------------ */

typedef struct czk__watch {
    uint64_t handle;
    char job_id[CZK_JOB_ID_MAX]; /* "" = every job */
    czk_job_event_fn fn;
    void *ctx;
    uint64_t from_seq; /* events before this were replayed at registration */
    struct czk__watch *next;
} czk__watch;

typedef struct czk__done_reg {
    uint64_t handle;
    char job_id[CZK_JOB_ID_MAX];
    czk_job_done_fn fn;
    void *ctx;
    struct czk__done_reg *next;
} czk__done_reg;

typedef struct czk__qevent {
    czk_job_event ev;
    uint64_t seq;
    bool terminal;
} czk__qevent;

typedef struct czk__prover {
    char name[32]; /* "cpu", "gpu0", "gpu0-express" */
    int gpu;       /* -1 for the CPU backend */
    bool express;  /* takes only express partitions (czk__sched_express) */
    double busy_s;
    char current_job[CZK_JOB_ID_MAX];
    char current_kind[16];
} czk__prover;

/*
 * One GPU's lock, held around device work. Urgent holders (the express lane's) go
 * before every ordinary waiter, so a WinningPoSt waits for at most the partition the GPU
 * is busy with, never for the ones queued behind it.
 */
typedef struct czk__gpu_lock {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool busy;
    unsigned urgent_waiting;
    unsigned inflight; /* proofs on the GPU: the holder's and those that handed it on */
    bool alone;        /* the holder asked for the GPU to itself */
} czk__gpu_lock;

struct czk_engine {
    /* configuration, resolved */
    char data_dir[4096], param_dir[4096];
    uint64_t budget_total, retention_s, srs_idle_evict_s;
    unsigned max_queued, n_synth_workers, n_prove_workers;
    uint64_t max_queued_bytes, payload_bytes; /* payloads held by unfinished jobs (mu) */
    /* Express lane: one more synthesis worker, and one more prover per GPU, that take only
     * small or CRITICAL partitions (a WinningPoSt) so they never queue behind 32 GiB ones. */
    unsigned n_express_prove_workers;
    size_t max_prove_queue; /* synthesized partitions waiting for a prover, at most */
    unsigned synth_started; /* names the synthesis workers */
    bool use_gpu;
    bool gpu_pack; /* gpus.pack_copies: pack partitions for the GPU */
    bool test_params;

    pthread_mutex_t mu;
    pthread_cond_t cv_work;  /* synthesis queue, budget, parameter loads */
    pthread_cond_t cv_prove; /* prove queue */
    pthread_cond_t cv_fin;   /* finalizer queue */
    pthread_cond_t cv_state; /* a job changed state (await), workers went idle (drain) */
    pthread_cond_t cv_ev;    /* event queue */

    czk__job *jobs; /* newest first */
    size_t njobs;
    uint64_t next_seq;
    czk__part **synth_q;
    size_t n_synth_q, cap_synth_q;
    czk__part **prove_q;
    size_t n_prove_q, cap_prove_q;
    czk__part **fin_q;
    size_t n_fin_q, cap_fin_q;
    czk__params *params;

    uint64_t reserved; /* partition reservations */
    uint64_t params_bytes;
    uint32_t inflight_parts;
    unsigned busy_workers; /* synthesis + prove + finalize steps in progress */

    bool draining, stopping, crashed, closed;
    /* Set (atomically) when a drain's grace ends or czk_engine_abort is called; every
     * partition a worker holds then has its cancel flag set too, so a CPU proof or a
     * synthesis stops within one chunk. What was cancelled stays journaled as queued. */
    int abort;
    bool pause_provers; /* test hook */
    uint64_t fail_verify_count; /* test hook: corrupt the next n proofs */
    uint64_t fail_gpu_oom_count; /* test hook: the next n GPU proofs run out of memory */
    int synth_nice;             /* synthesis threads' nice steps below the provers' */

    czk__pinned_pool pinned;
    czk__journal *journal;
    pthread_mutex_t submit_mu; /* dedup check + journal insert + table insert */
    pthread_mutex_t drain_mu;  /* one drain at a time */

    czk_pool *pool;
    /* The CPU back end's express prover's threads, at normal priority (the math pool runs
     * at synthesis.nice there), so that a WinningPoSt does not wait for a PoRep proof. */
    czk_pool *express_pool;
    /* The synthesis workers' pool: a partition's independent sections (a PoRep
     * partition's challenges) are synthesized on its threads, which a lone synthesis has
     * to itself and concurrent ones share. The express lane synthesizes on its own thread. */
    czk_pool *synth_pool;
    pthread_t *threads;
    size_t nthreads;
    czk__prover *provers;
    czk__gpu_lock *gpu_mu;
    int *gpu_ordinals;
    size_t ngpus;

    /* events */
    pthread_mutex_t ev_mu;
    pthread_t ev_thread;
    czk__qevent *evq;
    size_t n_evq, cap_evq;
    uint64_t ev_seq;
    czk__watch *watches;
    czk__done_reg *dones;
    uint64_t next_handle;
    bool ev_stop;

    /* counters */
    uint64_t started_unix_ms, t_start;
    uint64_t completed, failed, cancelled, verify_failures, retries;
    uint64_t proofs_damaged;  /* stored proofs that failed their checksum when read back */
    uint64_t parts_restored;  /* partition proofs a drain kept, used after the restart */
    uint64_t h2d_bytes; /* host-to-device bytes of the GPU provers (atomic) */
    uint64_t h2d_us;    /* their copies' time, first start to last end per proof (atomic) */
    /* Per GPU slot (atomic): time its lock was held by a proof, and partitions proved. */
    uint64_t gpu_device_us[CZK_GPU_MAX];
    uint64_t gpu_parts[CZK_GPU_MAX];
    /* Per GPU slot: device bytes czk may use (gpus.memory_limit, or the free memory at
     * start less a margin) and the measured host-to-device rate (GB/s, 0 if unknown). */
    uint64_t gpu_limit[CZK_GPU_MAX];
    double gpu_h2d_gbps[CZK_GPU_MAX];
    uint64_t by_kind_state[5][5];
    czk__hist hist[CZK__ST_COUNT];
};

/* ------------------------------------------------------------------------------------ */
/* What the engine's files share                                                        */
/* ------------------------------------------------------------------------------------ */

/* sched.c: queue order, the express lane, the GPU locks. */
/** Partitions at most this large (a/b/c and witness) may take the express lane. */
#define CZK__EXPRESS_MAX_BYTES ((uint64_t)1 << 30)
/** Append p to a queue (q, n, cap); false when out of memory (mu held). */
bool czk__sched_push(czk__part ***q, size_t *n, size_t *cap, czk__part *p);
/** Index of the partition to take next, SIZE_MAX when there is none (mu held). */
size_t czk__sched_best(czk__part **q, size_t n);
/** p belongs to the express lane: small or CRITICAL (mu held). */
bool czk__sched_express(const czk__part *p);
/** czk__sched_best among the express lane's partitions only. */
size_t czk__sched_best_express(czk__part **q, size_t n);
/** czk__sched_best among the others: only the express lane (every engine has one) takes
 * its partitions, so that one never waits behind a 32 GiB proof for an ordinary worker. */
size_t czk__sched_best_ordinary(czk__part **q, size_t n);
/** Remove entry i keeping the others' order (mu held). */
void czk__sched_remove(czk__part **q, size_t *n, size_t i);
/** Remove every entry of job j (mu held). */
void czk__sched_remove_job(czk__part **q, size_t *n, const czk__job *j);
/** Wait on cv (mu held) for at most ms milliseconds. */
void czk__sched_timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu, unsigned ms);
/** Set up a GPU lock, free. */
void czk__sched_gpu_lock_init(czk__gpu_lock *l);
/** Tear down a GPU lock nobody holds. */
void czk__sched_gpu_lock_destroy(czk__gpu_lock *l);
/** Take the GPU; `alone`: also wait until no proof that handed it on is still running. */
void czk__sched_gpu_lock_ex(czk__gpu_lock *l, bool urgent, bool alone);
/** czk__sched_gpu_lock_ex, not alone. */
void czk__sched_gpu_lock(czk__gpu_lock *l, bool urgent);
/** Run beside the holder without taking the GPU (counted in flight until czk__sched_gpu_done). */
void czk__sched_gpu_enter(czk__gpu_lock *l);
/** Hand the GPU on: the next holder may start beside the proof still running. */
void czk__sched_gpu_unlock(czk__gpu_lock *l);
/** A proof taken with czk__sched_gpu_lock has left the GPU. */
void czk__sched_gpu_done(czk__gpu_lock *l);

/* events.c: job events and their delivery. */
/** Record an event in j's history and queue it for delivery (mu held); fmt may be NULL. */
void czk__events_emit(czk_engine *e, czk__job *j, czk_job_event_type type, int32_t part,
                      const char *worker, const char *fmt, ...);
/** The event thread (arg: the engine). */
void *czk__events_main(void *arg);

/* budget.c: the memory budget and the parameter cache's entries. */
/** Budget in use: partition reservations + loaded parameters + idle pinned buffers. */
uint64_t czk__budget_used(czk_engine *e);
/** Some parameter set is LOADING (mu held). */
bool czk__budget_params_loading(czk_engine *e);
/** `need` more bytes may be reserved now, after giving memory back if it must (mu held). */
bool czk__budget_fit(czk_engine *e, uint64_t need, bool pinned);
/** The cache entry of parameter set `id`, new ones COLD; NULL when out of memory (mu held). */
czk__params *czk__budget_params_get(czk_engine *e, const char *id, const char *path,
                                    bool circom);
/** Bytes of one partition: a, b, c over the domain and the witness. */
uint64_t czk__budget_part_base_bytes(const czk__params *pe);
/** The partitions of pe get packed copies for the GPU (gpus.pack_copies). */
bool czk__budget_part_packs(const czk_engine *e, const czk__params *pe);
/** Bytes a partition's buffer takes (and its budget reservation). */
uint64_t czk__budget_part_bytes(const czk_engine *e, const czk__params *pe);
/** A load of pe has ended with st after dt_us: the entry is LOADED, its bytes counted and
 * its time recorded, or COLD again (mu held). */
void czk__budget_load_ended(czk_engine *e, czk__params *pe, czk_status st, uint64_t dt_us);
/**
 * Load pe, charged at est bytes meanwhile, with its partition buffers warmed beside it
 * (mu held on entry and return, released during the load). pe is LOADING on return, its
 * bytes charged to nothing: czk__budget_load_ended counts them.
 */
czk_status czk__budget_load(czk_engine *e, czk__params *pe, uint64_t est, czk_err *err);

/* job.c: the job table, a job's life, building one from a request, snapshots. */
/** s as a quoted log value: quotes, backslashes and control bytes become '?'. */
void czk__log_safe(char *out, size_t cap, const char *s);
/** Index of a job kind in the per-kind counts, -1 for an unknown kind. */
int czk__kind_index(czk_job_kind k);
/** Set a job's request_id and its log value (mu held, or the job not yet shared). */
void czk__job_set_request_id(czk__job *j, const char *rid);
/** DONE, FAILED or CANCELLED. */
bool czk__job_terminal(czk_job_state s);
/** A job by id, forgotten ones included (mu held). */
czk__job *czk__job_find_any(czk_engine *e, const char *id);
/** A job by id, as every caller of the API sees the table (mu held). */
czk__job *czk__job_find(czk_engine *e, const char *id);
/** Stop the work a worker is doing on p, if one is (mu held). */
void czk__job_part_cancel(czk__part *p);
/** A worker takes p with its cancel flag, clear unless the engine is aborting (mu held). */
void czk__job_part_hold(const czk_engine *e, czk__part *p, int *cancel);
/** Give a partition's buffer and reservation back (mu held). */
void czk__job_part_release(czk_engine *e, czk__part *p);
/** Free a partition's public inputs and densities. */
void czk__job_part_free_heap(czk__part *p);
/** Free what a terminal job no longer needs once no worker holds a partition (mu held). */
void czk__job_trim(czk_engine *e, czk__job *j);
/** Move a job to a terminal state, journal it, tell waiters (mu held); fmt may be NULL. */
void czk__job_end(czk_engine *e, czk__job *j, czk_job_state state, czk_status st,
                  const char *fmt, ...);
/** Drop terminal jobs past their retention and forgotten ones nobody needs (mu held). */
void czk__job_gc(czk_engine *e);
/** A circuit name fit for a file name: [A-Za-z0-9._-], 1 to 48, no leading dot. */
bool czk__job_circuit_name_ok(const char *s);
/** Free a job that is not in the table. */
void czk__job_free(czk__job *j);
/** Validate a request and build its job (not in the table, no id), and its params path. */
czk_status czk__job_build(czk_engine *e, const czk_job_request *req, czk__job **out,
                          char *params_path, size_t params_path_cap, czk_err *err);
/** A new random job id, "j-" and 32 hex digits. */
void czk__job_make_id(char out[CZK_JOB_ID_MAX]);
/** Put a built job in the table and its partitions in the synthesis queue (mu held). */
czk_status czk__job_enqueue(czk_engine *e, czk__job *j, const char *params_path,
                            czk_err *err);
/** 1-based position of a queued job among the queued jobs (mu held). */
uint32_t czk__job_queue_pos(const czk_engine *e, const czk__job *j);
/** Snapshot of j, its queue position included (mu held). */
void czk__job_snapshot(const czk_engine *e, const czk__job *j, bool with_proof, czk_job_info *out);
/** Snapshot of j; `position`: work out its queue position (a scan of the table). */
void czk__job_snapshot_ex(const czk_engine *e, const czk__job *j, bool with_proof,
                          bool position, czk_job_info *out);

/* synth.c: the synthesis workers. */
/** A synthesis worker's thread (arg: the engine); the last one started is the express one. */
void *czk__synth_main(void *arg);

/* prove.c: the prove workers. */
/** What a prove worker's thread starts with (heap, freed by the thread). */
typedef struct czk__prover_arg {
    czk_engine *e;
    size_t idx;
} czk__prover_arg;
/** A prove worker's thread (arg: a czk__prover_arg). */
void *czk__prove_main(void *arg);

/* finalize.c: self-verification and the job's proof. */
/** Every partition verified: assemble the job's proof and end it DONE (mu held). */
void czk__finalize_complete(czk_engine *e, czk__job *j);
/** The finalizer's thread (arg: the engine). */
void *czk__finalize_main(void *arg);

/* engine.c: the engine's lifetime, and the test hooks (tests/unit/test_engine*.c). */
/** The drain's grace is over, or czk_engine_abort was called (atomic, any lock). */
bool czk__engine_aborting(const czk_engine *e);
/** Stop the workers without journaling anything more, as a crash would; then destroy. */
void czk__engine_crash(czk_engine *e);
/** Hold synthesized partitions before proving (true) or let them go. */
void czk__engine_pause_provers(czk_engine *e, bool pause);
/** Corrupt the next n proofs before self-verification. */
void czk__engine_fail_next_verifications(czk_engine *e, uint64_t n);
/** The next n GPU proofs fail with CZK_ERESOURCE before they start. */
void czk__engine_fail_next_gpu_proofs_oom(czk_engine *e, uint64_t n);
/** Make pooled pinned allocations fail (fallback path). */
void czk__engine_pinned_fault(czk_engine *e, bool on);
/** The pinned pool's counters. */
void czk__engine_pinned_stats(czk_engine *e, czk__pinned_stats *out);

#endif
