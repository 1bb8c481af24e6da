/*
 * The proving engine: job table, priority scheduler with memory-budget admission,
 * synthesis workers, prove workers, the finalizer (self-verification), events, and
 * restart recovery from the journal.
 *
 * Flow of one partition: PENDING in the synthesis queue → a synthesis worker admits it
 * (parameters loaded, budget reserved — in strict priority order, because a worker only
 * ever takes the head of the queue and waits while the head does not fit) → SYNTH into a
 * checked-out pinned buffer → SYNTHESIZED in the prove queue (same order) → PROVING →
 * buffer checked in and budget released → PROVED in the finalizer's queue → verified →
 * DONE. A proof that does not verify sends its partition back to PENDING once; a second
 * failure fails the job. An invalid proof is never returned.
 *
 * Admission also waits while 2 × (number of provers) synthesized partitions are already
 * waiting: synthesizing further ahead only holds memory no prover can use yet. One
 * partition larger than the whole budget still runs, alone (czk__budget_fit).
 *
 * Jobs stay in the table after they end (state, proof, events) until retention_s has
 * passed; their partitions, payload and parameter reference go as soon as no worker holds
 * one of their partitions (czk__job_trim).
 */
#include "czk/alloc.h"
#include "czk/circuits.h"
#include "czk/cs.h"
#include "czk/fil_job.h"
#include "czk/gpu.h"
#include "czk/log.h"
#include "czk/post.h"
#include "engine/engine_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GIB ((uint64_t)1 << 30)

/* ------------------------------------------------------------------------------------ */
/* Small helpers                                                                        */
/* ------------------------------------------------------------------------------------ */

/* The drain's grace is over (or czk_engine_abort): results still arriving are dropped and
 * their jobs stay journaled as queued. */
bool czk__engine_aborting(const czk_engine *e)
{
    return __atomic_load_n(&e->abort, __ATOMIC_RELAXED) != 0;
}

/* ------------------------------------------------------------------------------------ */
/* Budget and parameters                                                                */
/* ------------------------------------------------------------------------------------ */

static uint64_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* A 64-byte aligned slice of `bytes` from *cur. */
static void *pack_take(uint8_t **cur, size_t bytes)
{
    uint8_t *p = *cur;
    *cur += (bytes + 63) / 64 * 64;
    return p;
}

/*
 * Pack a synthesized partition's vectors into the pack area behind them (mu not held),
 * on the synthesis worker's pool: b and the witness first (nearly all 0 and 1), then c,
 * then a, each with the room the ones before it left. Never fails the partition: a vector
 * that cannot be packed is copied plain. A vector with more than half its elements
 * neither 0 nor 1 saves too little copy time for its pass: it is refused (vals_cap), and
 * the circuit's vector is not packed again (pe->pack_dense).
 */
static void pack_partition(czk_engine *e, czk__part *p, czk_pool *pool)
{
    czk__params *pe = p->job->params;
    memset(p->packed, 0, sizeof p->packed);
    memset(p->has_packed, 0, sizeof p->has_packed);
    if (!czk__budget_part_packs(e, pe) || p->heap_buf || p->buf.n < czk__budget_part_bytes(e, pe))
        return;
    const size_t m = (size_t)1 << pe->pk.log_m;
    const size_t nv = (size_t)pe->pk.n_inputs + pe->pk.n_aux;
    uint8_t *cur = (uint8_t *)p->buf.p + (3 * m + nv) * sizeof(czk_fr);
    cur = (uint8_t *)(((uintptr_t)cur + 63) & ~(uintptr_t)63);
    uint8_t *end = (uint8_t *)p->buf.p + p->buf.n;
    const czk_fr *src[4] = {p->a, p->b, p->c, p->z + pe->pk.n_inputs};
    const size_t len[4] = {p->n_rows, p->n_rows, p->n_rows, pe->pk.n_aux};
    for (int k = 0; k < 4; k++) {
        size_t w = czk_packed_words(len[k]);
        p->packed[k].ones = pack_take(&cur, w * 8);
        p->packed[k].others = pack_take(&cur, w * 8);
        p->packed[k].prefix = pack_take(&cur, w * 4);
    }
    const uint64_t t0 = czk_clock_us();
    static const int order[4] = {1, 3, 2, 0};
    uint64_t plain = 0, packed = 0;
    for (int i = 0; i < 4; i++) {
        const int k = order[i];
        czk_packed_vec *v = &p->packed[k];
        plain += (uint64_t)len[k] * sizeof(czk_fr);
        if (__atomic_load_n(&pe->pack_dense[k], __ATOMIC_RELAXED)) {
            packed += (uint64_t)len[k] * sizeof(czk_fr);
            continue;
        }
        v->vals = (czk_fr *)cur;
        v->vals_cap = cur < end ? (size_t)(end - cur) / sizeof(czk_fr) : 0;
        if (v->vals_cap > len[k] / 2) v->vals_cap = len[k] / 2;
        czk_err err;
        czk_status st = czk_pack_vec(v, src[k], len[k], pool, &err);
        if (st == CZK_ERESOURCE && v->n_other > len[k] / 2)
            __atomic_store_n(&pe->pack_dense[k], true, __ATOMIC_RELAXED);
        if (st != CZK_OK) {
            CZK_LOG_DEBUG("vector copied plain",
                          "job=%s request_id=\"%s\" partition=%u vector=%c reason=\"%s\"",
                          p->job->id, p->job->log_rid, p->idx, "abcw"[k], err.msg);
            packed += (uint64_t)len[k] * sizeof(czk_fr);
            continue;
        }
        p->has_packed[k] = true;
        packed += czk_packed_bytes(v);
        cur += (v->n_other * sizeof(czk_fr) + 63) / 64 * 64;
    }
    CZK_LOG_DEBUG("partition packed", "job=%s request_id=\"%s\" partition=%u plain_bytes=%" PRIu64
                  " packed_bytes=%" PRIu64 " ms=%" PRIu64,
                  p->job->id, p->job->log_rid, p->idx, plain, packed, (czk_clock_us() - t0) / 1000u);
}

/* ------------------------------------------------------------------------------------ */
/* Workers                                                                              */
/* ------------------------------------------------------------------------------------ */

/*
 * A Filecoin partition: the circuit writes its witness and a/b/c straight into the
 * checked-out buffer (EVAL mode); the prover appends the input rows itself.
 */
static czk_status synthesize_fil(czk__part *p, size_t m, czk_pool *pool, czk_err *err)
{
    czk__job *j = p->job;
    czk__params *pe = j->params;
    const czk_fil_job *fj = j->fil;
    czk_cs_counts cnt;
    czk_fil_job_counts(fj, &cnt);
    if (cnt.n_inputs != pe->pk.n_inputs || cnt.n_aux != pe->pk.n_aux)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: the circuit has %llu inputs and %llu aux variables, the "
                           "parameters %u and %u",
                           pe->path, (unsigned long long)cnt.n_inputs,
                           (unsigned long long)cnt.n_aux, pe->pk.n_inputs, pe->pk.n_aux);
    if (cnt.n_constraints + cnt.n_inputs > m)
        return czk_err_set(err, CZK_EFORMAT, "%s: %llu constraints do not fit the domain 2^%u",
                           pe->path, (unsigned long long)cnt.n_constraints, pe->pk.log_m);
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_EVAL;
    cfg.buf.inputs = p->z;
    cfg.buf.inputs_cap = pe->pk.n_inputs;
    cfg.buf.aux = p->z + pe->pk.n_inputs;
    cfg.buf.aux_cap = pe->pk.n_aux;
    cfg.buf.a = p->a;
    cfg.buf.b = p->b;
    cfg.buf.c = p->c;
    cfg.buf.rows_cap = m;
    czk_cs *cs = NULL;
    czk_status st = czk_cs_create(&cs, &cfg, err);
    if (st != CZK_OK) return st;
    st = czk_fil_job_synthesize_pool(fj, p->idx, cs, pool, err);
    if (st == CZK_OK) st = czk_cs_finish(cs, err);
    if (st == CZK_OK) {
        czk_cs_counts got;
        czk_cs_get_counts(cs, &got);
        p->n_rows = got.n_constraints;
        size_t wa = ((size_t)pe->pk.n_aux + 63) / 64 + 1, wi = ((size_t)pe->pk.n_inputs + 63) / 64 + 1;
        p->dens = czk_calloc(2 * wa + wi, sizeof *p->dens);
        if (p->dens == NULL) st = czk_err_set(err, CZK_ENOMEM, "out of memory");
        else czk_cs_get_densities(cs, p->dens, p->dens + wa, p->dens + wa + wi);
    }
    czk_cs_destroy(cs);
    if (st != CZK_OK) return st;
    p->n_pub = pe->pk.n_inputs - 1;
    p->pub = czk_malloc((p->n_pub ? p->n_pub : 1) * sizeof *p->pub);
    if (p->pub == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory");
    size_t n = 0;
    /* The job's own public inputs, not the synthesized ones: self-verification then also
     * checks that the circuit computed what the vanilla proof claims. */
    return czk_fil_job_public_inputs(fj, p->idx, p->pub, p->n_pub, &n, err);
}

/* Synthesize partition p into a checked-out buffer (mu not held), on the worker's pool. */
static czk_status synthesize(czk_engine *e, czk__part *p, czk_pool *pool, czk_err *err)
{
    czk__job *j = p->job;
    czk__params *pe = j->params;
    size_t m = (size_t)1 << pe->pk.log_m;
    size_t nv = (size_t)pe->pk.n_inputs + pe->pk.n_aux;
    bool fallback = false;
    czk_status st = CZK_OK;
    if (!p->have_buf && p->heap_buf) {
        void *q = czk_aligned_alloc(64, p->reserved);
        if (q == NULL)
            return czk_err_set(err, CZK_ENOMEM, "out of memory for a %" PRIu64 "-byte buffer",
                               p->reserved);
        p->buf = (czk__pinned_buf){q, p->reserved, CZK__PIN_HEAP};
    } else if (!p->have_buf) {
        st = czk__pinned_checkout(&e->pinned, p->reserved, &p->buf, &fallback, err);
    }
    if (st != CZK_OK) return st;
    p->have_buf = true;
    if (fallback)
        CZK_LOG_WARN("pinned pool cannot grow: partition uses ordinary memory",
                     "job=%s request_id=\"%s\" partition=%u bytes=%" PRIu64, j->id, j->log_rid,
                     p->idx, p->reserved);
    czk_fr *base = p->buf.p;
    p->a = base;
    p->b = base + m;
    p->c = base + 2 * m;
    p->z = base + 3 * m;
    if (!pe->circom) return synthesize_fil(p, m, pool, err);
    size_t n = 0;
    st = czk__wtns_parse(j->wtns, j->wtns_len, p->z, nv, &n, err);
    if (st != CZK_OK) return st;
    if (n != nv)
        return czk_err_set(err, CZK_EINVAL,
                           "vanilla_proof (.wtns): %zu witness values, %s needs %zu", n,
                           pe->path, nv);
    czk_r1cs_eval(&pe->ab, p->z, p->a, p->b, p->c, pool);
    p->n_rows = pe->ab.n_constraints;
    p->n_pub = pe->pk.n_inputs - 1;
    p->pub = czk_malloc((p->n_pub ? p->n_pub : 1) * sizeof *p->pub);
    if (p->pub == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory");
    memcpy(p->pub, p->z + 1, p->n_pub * sizeof *p->pub);
    return CZK_OK;
}

void *czk__synth_main(void *arg)
{
    czk_engine *e = arg;
    char name[32];
    pthread_mutex_lock(&e->mu);
    unsigned widx = e->synth_started++;
    bool express = widx == e->n_synth_workers;
    if (express)
        snprintf(name, sizeof name, "synth-express");
    else
        snprintf(name, sizeof name, "synth%u", widx);
    czk_pool *spool = e->synth_pools[widx];
    if (!express) czk_thread_lower_priority(e->synth_nice);
    int cancel = 0; /* czk__job_part_hold / czk__job_part_cancel */
    czk_pool_set_cancel(&cancel);
    for (;;) {
        if (e->stopping) break;
        size_t bi = e->draining ? SIZE_MAX
                    : express     ? czk__sched_best_express(e->synth_q, e->n_synth_q)
                                  : czk__sched_best(e->synth_q, e->n_synth_q);
        if (bi == SIZE_MAX) {
            czk__sched_timed_wait(&e->cv_work, &e->mu, 1000);
            continue;
        }
        czk__part *p = e->synth_q[bi];
        czk__job *j = p->job;
        czk__params *pe = j->params;
        if (pe->state == CZK__PE_LOADING) {
            czk__sched_timed_wait(&e->cv_work, &e->mu, 1000);
            continue;
        }
        if (!j->params_ref) {
            pe->refs++;
            j->params_ref = true;
        }
        /* With GPUs, one load at a time: each plans within what the others left. */
        if (pe->state == CZK__PE_COLD && e->use_gpu && czk__budget_params_loading(e)) {
            czk__sched_timed_wait(&e->cv_work, &e->mu, 1000);
            continue;
        }
        if (pe->state == CZK__PE_COLD) {
            uint64_t est = file_size(pe->path);
            /* Test parameters made in memory: the QAP pass holds about five vectors of
             * 32 bytes per variable or row on the host while it runs. */
            if (est == 0 && e->test_params && !pe->circom && j->fil != NULL) {
                czk_cs_counts cnt;
                czk_fil_job_counts(j->fil, &cnt);
                uint64_t n = cnt.n_inputs + cnt.n_aux;
                if (cnt.n_constraints + cnt.n_inputs > n) n = cnt.n_constraints + cnt.n_inputs;
                est = 5 * 32 * n;
            }
            if (!czk__budget_fit(e, est, false)) {
                czk__sched_timed_wait(&e->cv_work, &e->mu, 1000);
                continue;
            }
            pe->state = CZK__PE_LOADING;
            pe->bytes = est;
            e->params_bytes += est;
            czk__events_emit(e, j, CZK_EV_PARAMS_LOADING, -1, name, "%s", pe->path);
            e->busy_workers++;
            czk__budget_gen_ctx gen;
            czk__budget_gen_fill(e, pe, &gen);
            pthread_mutex_unlock(&e->mu);
            czk_err err;
            czk_err_clear(&err);
            uint64_t t0 = czk_clock_us();
            /* A load is not cancelled: test parameters made in memory write their .vk, which
             * must never come from a transform cut short. */
            czk_pool_set_cancel(NULL);
            czk_status st = czk__params_load(pe, &gen.gen, e->pool, &err);
            czk_pool_set_cancel(&cancel);
            pthread_mutex_lock(&e->mu);
            e->params_bytes -= est;
            if (st == CZK_OK) {
                /* The real size now, so that the warm-up sees the budget's true room;
                 * the entry stays LOADING meanwhile, so no partition competes with it. */
                pe->bytes = czk__params_size(pe);
                e->params_bytes += pe->bytes;
                pthread_mutex_unlock(&e->mu);
                czk__budget_prewarm(e, pe);
                pthread_mutex_lock(&e->mu);
                e->params_bytes -= pe->bytes;
            }
            uint64_t dt = czk_clock_us() - t0;
            e->busy_workers--;
            if (st != CZK_OK) {
                pe->state = CZK__PE_COLD;
                pe->bytes = 0;
                czk__job_end(e, j, CZK_JOB_FAILED, st, "%s", err.msg);
            } else {
                pe->bytes = czk__params_size(pe);
                e->params_bytes += pe->bytes;
                pe->state = CZK__PE_LOADED;
                pe->load_ms = dt / 1000u;
                pe->loads++;
                pe->last_used_ms = czk_unix_ms();
                j->timings.srs_load_ms += dt / 1000u;
                czk__hist_add(&e->hist[CZK__ST_PARAMS], (double)dt / 1e6);
                czk__events_emit(e, j, CZK_EV_PARAMS_LOADED, -1, name,
                                 "%s: %" PRIu64 " bytes in %" PRIu64 " ms", pe->id, pe->bytes,
                                 dt / 1000u);
                CZK_LOG_INFO("parameters loaded", "circuit=%s bytes=%" PRIu64 " ms=%" PRIu64,
                             pe->id, pe->bytes, dt / 1000u);
            }
            pthread_cond_broadcast(&e->cv_work);
            continue;
        }
        /* Synthesis runs ahead of the provers by a bounded number of partitions: more
         * would only hold memory (and pinned buffers) that no prover can use yet. */
        if (e->n_prove_q >= e->max_prove_queue && !express) {
            czk__sched_timed_wait(&e->cv_work, &e->mu, 1000);
            continue;
        }
        /* An express partition is never packed (pack_partition): no pack area. */
        const bool exp = czk__sched_express(p);
        uint64_t need = exp ? czk__budget_part_base_bytes(pe) : czk__budget_part_bytes(e, pe);
        if (!czk__budget_fit(e, need, true)) {
            czk__sched_timed_wait(&e->cv_work, &e->mu, 1000);
            continue;
        }
        czk__sched_remove(e->synth_q, &e->n_synth_q, bi);
        p->state = CZK__PART_SYNTH;
        /* An idle buffer that fits is taken now, under the lock, so that a waiting
         * admission's shrink cannot free it between this admission and the checkout. A new
         * one is allocated outside the lock, in synthesize (page-locking is slow). */
        /* An express partition (a WinningPoSt's 50 MB) takes ordinary memory: copying it
         * from pageable memory costs milliseconds, and it must never wait for the pool,
         * whose growth page-locks gigabytes at a time. */
        p->heap_buf = exp;
        p->have_buf = !p->heap_buf && czk__pinned_try_reuse(&e->pinned, need, &p->buf);
        p->reserved = need;
        e->reserved += need;
        e->inflight_parts++;
        j->inflight++;
        pe->last_used_ms = czk_unix_ms();
        if (j->state == CZK_JOB_QUEUED) {
            int k = czk__kind_index(j->kind);
            e->by_kind_state[k][CZK_JOB_QUEUED]--;
            e->by_kind_state[k][CZK_JOB_RUNNING]++;
            j->state = CZK_JOB_RUNNING;
            j->t_first_synth = czk_clock_us();
            j->timings.queue_wait_ms = (j->t_first_synth - j->t_submit) / 1000u;
            czk__hist_add(&e->hist[CZK__ST_QUEUE], (double)(j->t_first_synth - j->t_submit) / 1e6);
        }
        czk__events_emit(e, j, CZK_EV_PARTITION_SYNTH_START, (int32_t)p->idx, name, NULL);
        e->busy_workers++;
        czk__job_part_hold(e, p, &cancel);
        pthread_mutex_unlock(&e->mu);

        czk_err err;
        czk_err_clear(&err);
        p->t_synth_start = czk_clock_us();
        czk_status st = synthesize(e, p, spool, &err);
        if (st == CZK_OK) pack_partition(e, p, spool);
        p->t_synth_end = czk_clock_us();

        pthread_mutex_lock(&e->mu);
        e->busy_workers--;
        j->inflight--;
        p->cancel = NULL;
        if (czk__job_terminal(j->state)) {
            czk__job_part_release(e, p);
            p->state = CZK__PART_DROPPED;
            czk__job_trim(e, j);
            continue;
        }
        /* cancelled by the drain: the partition waits for the restart */
        if (czk__engine_aborting(e)) {
            czk__job_part_release(e, p);
            czk__job_part_free_heap(p);
            p->state = CZK__PART_PENDING;
            pthread_cond_broadcast(&e->cv_state);
            continue;
        }
        if (st != CZK_OK) {
            czk__job_part_release(e, p);
            p->state = CZK__PART_DROPPED;
            czk__job_end(e, j, CZK_JOB_FAILED, st, "partition %u: %s", p->idx, err.msg);
            continue;
        }
        double ds = (double)(p->t_synth_end - p->t_synth_start) / 1e6;
        j->timings.synthesis_ms += (p->t_synth_end - p->t_synth_start) / 1000u;
        czk__hist_add(&e->hist[CZK__ST_SYNTH], ds);
        p->state = CZK__PART_SYNTHESIZED;
        j->nsynth++;
        czk__events_emit(e, j, CZK_EV_PARTITION_SYNTHESIZED, (int32_t)p->idx, name, NULL);
        if (!czk__sched_push(&e->prove_q, &e->n_prove_q, &e->cap_prove_q, p)) {
            czk__job_part_release(e, p);
            czk__job_end(e, j, CZK_JOB_FAILED, CZK_ENOMEM, "partition %u: out of memory", p->idx);
            continue;
        }
        j->inflight++; /* the queue holds its buffer */
        pthread_cond_signal(&e->cv_prove);
    }
    pthread_cond_broadcast(&e->cv_state);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* Index of a GPU ordinal among the engine's GPUs. */
static size_t gpu_slot(const czk_engine *e, int gpu)
{
    for (size_t g = 0; g < e->ngpus; g++)
        if (e->gpu_ordinals[g] == gpu) return g;
    return 0;
}

/* The prover's on_compute hook: the proof's copies are done and only its MSMs are left,
 * so the next proof may take the GPU (its copies overlap these MSMs). */
typedef struct gpu_release {
    czk__gpu_lock *lock;
    bool released;
    uint64_t t;
} gpu_release;

static void gpu_release_early(void *arg)
{
    gpu_release *r = arg;
    if (r->released) return;
    r->t = czk_clock_us();
    czk__sched_gpu_unlock(r->lock);
    r->released = true;
}

/*
 * Prove on a GPU under its mutex, which the prover hands back as soon as this proof only
 * computes (czk_gpu_prove_opts.on_compute, when the device has room for two proofs):
 * the next partition's copies then run beside this one's MSMs, where the copy engine is
 * idle, instead of in front of its own transforms, where the SMs would be. The key's bases
 * are uploaded on first use and stay on the device with the parameter set; when they do
 * not fit, the prover streams them and proofs do not overlap.
 */
static czk_status gpu_prove(czk_engine *e, czk__prover *pv, czk__params *pe, czk__part *p,
                            const czk_groth16_assignment *asg, czk_err *err)
{
    size_t g = gpu_slot(e, pv->gpu);
    if (pe->gpu_srs[g] == NULL && !czk__params_on_host(pe))
        return czk_err_set(err, CZK_EINTERNAL, "%s: the test parameters are not on gpu%d",
                           pe->id, pv->gpu);
    czk__sched_gpu_lock(&e->gpu_mu[g], pv->express);
    if (pe->gpu_srs[g] == NULL && !pe->gpu_srs_failed[g]) {
        czk_err serr;
        if (czk_gpu_srs_create(&pe->gpu_srs[g], pv->gpu, &pe->pk, &serr) != CZK_OK) {
            pe->gpu_srs[g] = NULL;
            pe->gpu_srs_failed[g] = true;
            CZK_LOG_WARN("parameters do not stay on the GPU: streaming them",
                         "circuit=%s gpu=%d error=\"%s\"", pe->id, pv->gpu, serr.msg);
        }
    }
    czk_gpu_prove_stats stats;
    memset(&stats, 0, sizeof stats);
    gpu_release rel = {&e->gpu_mu[g], false, 0};
    czk_gpu_prove_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.on_compute = gpu_release_early;
    opts.on_compute_arg = &rel;
    opts.urgent = pv->express;
    opts.plan = pe->planned ? &pe->plan[g] : NULL;
    for (int k = 0; k < 3; k++) opts.packed_abc[k] = p->has_packed[k] ? &p->packed[k] : NULL;
    opts.packed_aux = p->has_packed[3] ? &p->packed[3] : NULL;
    uint64_t t0 = czk_clock_us();
    czk_status st;
    /* Test hook: take one of the injected failures, if any, without a lock. */
    uint64_t inject = __atomic_load_n(&e->fail_gpu_oom_count, __ATOMIC_RELAXED);
    while (inject > 0 && !__atomic_compare_exchange_n(&e->fail_gpu_oom_count, &inject,
                                                      inject - 1, false, __ATOMIC_RELAXED,
                                                      __ATOMIC_RELAXED)) {
    }
    if (inject > 0)
        st = czk_err_set(err, CZK_ERESOURCE, "test hook: out of device memory");
    else
        st = czk_gpu_prove_ex(&p->proof, pv->gpu, &pe->pk, pe->gpu_srs[g], asg, NULL, NULL,
                              e->pool, &opts, NULL, &stats, err);
    uint64_t t1 = czk_clock_us();
    if (!rel.released) {
        rel.t = t1;
        czk__sched_gpu_unlock(&e->gpu_mu[g]);
    }
    czk__sched_gpu_done(&e->gpu_mu[g]);
    bool retried = false;
    if (st == CZK_ERESOURCE) {
        /* Out of device memory, most likely beside a proof this GPU's lock was handed on
         * by (the hand-on check estimates the next proof's needs). Prove it again with the
         * GPU to itself: wait until every other proof has left it, and hand nothing on.
         * Only if that fails too does the caller fall back to the CPU. */
        CZK_LOG_WARN("GPU out of memory: proving the partition again with the GPU to itself",
                     "job=%s request_id=\"%s\" partition=%u gpu=%d error=\"%s\"", p->job->id,
                     p->job->log_rid, p->idx, pv->gpu,
                     err->msg);
        czk_err_clear(err);
        memset(&stats, 0, sizeof stats);
        opts.on_compute = NULL;
        opts.on_compute_arg = NULL;
        czk__sched_gpu_lock_ex(&e->gpu_mu[g], pv->express, true);
        t0 = czk_clock_us();
        st = czk_gpu_prove_ex(&p->proof, pv->gpu, &pe->pk, pe->gpu_srs[g], asg, NULL, NULL,
                              e->pool, &opts, NULL, &stats, err);
        t1 = czk_clock_us();
        rel.t = t1;
        rel.released = false;
        czk__sched_gpu_unlock(&e->gpu_mu[g]);
        czk__sched_gpu_done(&e->gpu_mu[g]);
        retried = true;
    }
    /* The lock-held time feeds the busy metric (at most the wall time even when proofs
     * overlap); the whole call's time is in the note. */
    uint64_t dt = rel.t - t0;
    /* Where the device time went, in the gpu_end event (czk timeline and ops read it). */
    snprintf(p->prove_note, sizeof p->prove_note,
             "held_s=%.3f call_s=%.3f overlap=%d%s%s packed=%d gpu_s=%.3f h2d_s=%.3f pinned=%d "
             "h2d_bytes=%" PRIu64 " ntt_s=%.3f "
             "msm_h_s=%.3f msm_l_s=%.3f msm_a_s=%.3f msm_b1_s=%.3f msm_b2_s=%.3f "
             "at_queued=%.3f at_h=%.3f at_handoff=%.3f at_msm_h=%.3f at_l=%.3f at_a=%.3f "
             "at_b1=%.3f at_b2=%.3f",
             (double)dt / 1e6, (double)(t1 - t0) / 1e6, stats.overlapped ? 1 : 0,
             retried ? " retried=1" : "", stats.witness_copied_first ? " witness_first=1" : "",
             stats.packed_vectors, stats.gpu_s, stats.h2d_s, stats.host_pinned ? 1 : 0,
             stats.h2d_bytes, stats.ntt_s, stats.msm_h_s, stats.msm_l_s,
             stats.msm_a_s, stats.msm_b1_s, stats.msm_b2_s, stats.t_queued_s, stats.t_h_s,
             stats.t_handoff_s, stats.t_msm_h_s, stats.t_l_s, stats.t_a_s, stats.t_b1_s,
             stats.t_b2_s);
    __atomic_add_fetch(&e->gpu_device_us[g], dt, __ATOMIC_RELAXED);
    if (st == CZK_OK) __atomic_add_fetch(&e->gpu_parts[g], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&e->h2d_bytes, stats.h2d_bytes + stats.srs_h2d_bytes, __ATOMIC_RELAXED);
    __atomic_add_fetch(&e->h2d_us, (uint64_t)(stats.h2d_s * 1e6), __ATOMIC_RELAXED);
    return st;
}

void *czk__prove_main(void *arg)
{
    czk_engine *e = ((czk__prover_arg *)arg)->e;
    czk__prover *pv = &e->provers[((czk__prover_arg *)arg)->idx];
    czk_free(arg);
    int cancel = 0; /* czk__job_part_hold / czk__job_part_cancel */
    czk_pool_set_cancel(&cancel);
    /* The CPU back end proves on every core: below the threads that answer the API (a
     * status call must not wait behind a 12 s proof), as synthesis is. A GPU prover's
     * thread stays at normal priority: it feeds the device. */
    if (pv->gpu < 0) czk_thread_lower_priority(e->synth_nice);
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (e->stopping) break;
        size_t bi = e->pause_provers || czk__engine_aborting(e) ? SIZE_MAX
                    : pv->express ? czk__sched_best_express(e->prove_q, e->n_prove_q)
                                  : czk__sched_best(e->prove_q, e->n_prove_q);
        if (bi == SIZE_MAX) {
            czk__sched_timed_wait(&e->cv_prove, &e->mu, 1000);
            continue;
        }
        czk__part *p = e->prove_q[bi];
        czk__job *j = p->job;
        czk__sched_remove(e->prove_q, &e->n_prove_q, bi);
        pthread_cond_broadcast(&e->cv_work); /* room in the lookahead */
        p->state = CZK__PART_PROVING;
        snprintf(p->worker, sizeof p->worker, "%s", pv->name);
        if (j->assigned[0] == '\0') snprintf(j->assigned, sizeof j->assigned, "%s", pv->name);
        snprintf(pv->current_job, sizeof pv->current_job, "%s", j->id);
        snprintf(pv->current_kind, sizeof pv->current_kind, "%s", czk_job_kind_name(j->kind));
        czk__events_emit(e, j, CZK_EV_GPU_START, (int32_t)p->idx, pv->name, NULL);
        e->busy_workers++;
        czk__job_part_hold(e, p, &cancel);
        czk__params *pe = j->params;
        pthread_mutex_unlock(&e->mu);

        czk_groth16_assignment asg;
        memset(&asg, 0, sizeof asg);
        asg.inputs = p->z;
        asg.aux = p->z + pe->pk.n_inputs;
        asg.a = p->a;
        asg.b = p->b;
        asg.c = p->c;
        asg.n_rows = p->n_rows;
        if (p->dens != NULL) {
            size_t wa = ((size_t)pe->pk.n_aux + 63) / 64 + 1;
            asg.a_aux_density = p->dens;
            asg.b_input_density = p->dens + wa;
            asg.b_aux_density = p->dens + wa + ((size_t)pe->pk.n_inputs + 63) / 64 + 1;
        }
        czk_err err;
        czk_err_clear(&err);
        p->t_prove_start = czk_clock_us();
        czk_status st;
        if (pv->gpu >= 0) {
            st = gpu_prove(e, pv, pe, p, &asg, &err);
            if (st != CZK_OK && st != CZK_EINVAL && czk__params_on_host(pe) &&
                !czk__engine_aborting(e)) {
                /* A GPU that fails (out of device memory, a CUDA error) must not fail the
                 * job: the CPU prover makes the same proof, slower. */
                CZK_LOG_WARN("GPU prover failed, proving on the CPU",
                             "job=%s request_id=\"%s\" partition=%u gpu=%d status=%s "
                             "error=\"%s\"",
                             j->id, j->log_rid, p->idx,
                             pv->gpu, czk_status_name(st), err.msg);
                czk_err_clear(&err);
                st = czk_groth16_prove(&p->proof, &pe->pk, &asg, NULL, NULL, e->pool, NULL,
                                       &err);
            }
        } else {
            st = czk_groth16_prove(&p->proof, &pe->pk, &asg, NULL, NULL, e->pool, NULL, &err);
        }
        p->t_prove_end = czk_clock_us();

        pthread_mutex_lock(&e->mu);
        e->busy_workers--;
        p->cancel = NULL;
        double ds = (double)(p->t_prove_end - p->t_prove_start) / 1e6;
        pv->busy_s += ds;
        pv->current_job[0] = '\0';
        pv->current_kind[0] = '\0';
        /* The prover is done with a/b/c and the witness: back to the pool now, before
         * verification, so the next synthesis can use them. */
        czk__job_part_release(e, p);
        j->inflight--;
        if (czk__job_terminal(j->state)) {
            p->state = CZK__PART_DROPPED;
            czk__job_trim(e, j);
            continue;
        }
        /* cancelled by the drain: the partition waits for the restart */
        if (czk__engine_aborting(e)) {
            czk__job_part_free_heap(p);
            p->state = CZK__PART_PENDING;
            j->nsynth--;
            pthread_cond_broadcast(&e->cv_state);
            continue;
        }
        j->timings.gpu_compute_ms += (p->t_prove_end - p->t_prove_start) / 1000u;
        czk__hist_add(&e->hist[CZK__ST_PROVE], ds);
        p->prove_status = st;
        snprintf(p->prove_msg, sizeof p->prove_msg, "%s", st == CZK_OK ? "" : err.msg);
        p->state = CZK__PART_PROVED;
        j->nproved++;
        czk__events_emit(e, j, CZK_EV_GPU_END, (int32_t)p->idx, pv->name,
                         p->prove_note[0] ? "%s" : NULL, p->prove_note);
        if (!czk__sched_push(&e->fin_q, &e->n_fin_q, &e->cap_fin_q, p)) {
            czk__job_end(e, j, CZK_JOB_FAILED, CZK_ENOMEM, "partition %u: out of memory", p->idx);
            continue;
        }
        pthread_cond_signal(&e->cv_fin);
    }
    pthread_cond_broadcast(&e->cv_state);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* Every partition verified: assemble the job's proof and end it DONE (mu held). */
void czk__finalize_complete(czk_engine *e, czk__job *j)
{
    uint8_t *proof = czk_malloc((size_t)j->nparts * CZK_GROTH16_PROOF_SIZE);
    if (proof == NULL) {
        czk__job_end(e, j, CZK_JOB_FAILED, CZK_ENOMEM, "out of memory assembling the proof");
        return;
    }
    for (uint32_t i = 0; i < j->nparts; i++)
        czk_groth16_proof_write(proof + (size_t)i * CZK_GROTH16_PROOF_SIZE, &j->parts[i].proof);
    j->proof = proof;
    j->proof_len = (size_t)j->nparts * CZK_GROTH16_PROOF_SIZE;
    czk__events_emit(e, j, CZK_EV_VERIFIED, -1, "finalizer", NULL);
    czk__job_end(e, j, CZK_JOB_DONE, CZK_OK, NULL);
}

void *czk__finalize_main(void *arg)
{
    czk_engine *e = arg;
    uint64_t last_gc = 0;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (e->stopping) break;
        if (czk_clock_us() - last_gc > 1000000u) {
            czk__job_gc(e);
            last_gc = czk_clock_us();
        }
        if (e->n_fin_q == 0) {
            czk__sched_timed_wait(&e->cv_fin, &e->mu, 1000);
            continue;
        }
        czk__part *p = e->fin_q[0];
        czk__sched_remove(e->fin_q, &e->n_fin_q, 0);
        czk__job *j = p->job;
        czk__params *pe = j->params;
        bool corrupt = false;
        if (e->fail_verify_count > 0 && p->prove_status == CZK_OK) {
            e->fail_verify_count--;
            corrupt = true;
        }
        j->inflight++;
        e->busy_workers++;
        pthread_mutex_unlock(&e->mu);

        uint64_t t0 = czk_clock_us();
        czk_err err;
        czk_err_clear(&err);
        czk_status st = p->prove_status;
        bool verify_failed = false;
        if (st == CZK_OK) {
            if (corrupt) {
                /* Test hook: a proof with A and C swapped is (overwhelmingly) invalid. */
                czk_g1_affine t = p->proof.a;
                p->proof.a = p->proof.c;
                p->proof.c = t;
            }
            st = czk_groth16_verify(&pe->pvk, &p->proof, p->pub, p->n_pub, &err);
            verify_failed = st != CZK_OK;
        } else {
            snprintf(err.msg, sizeof err.msg, "%s", p->prove_msg);
        }
        uint64_t dt = czk_clock_us() - t0;

        pthread_mutex_lock(&e->mu);
        e->busy_workers--;
        j->inflight--;
        j->timings.finalize_ms += dt / 1000u;
        czk__hist_add(&e->hist[CZK__ST_FINALIZE], (double)dt / 1e6);
        if (czk__job_terminal(j->state)) {
            p->state = CZK__PART_DROPPED;
            czk__job_trim(e, j);
            continue;
        }
        if (st != CZK_OK) {
            if (verify_failed) e->verify_failures++;
            CZK_LOG_WARN(verify_failed ? "self-verification failed" : "prover failed",
                         "job=%s request_id=\"%s\" partition=%u retry=%u status=%s error=\"%s\"",
                         j->id, j->log_rid, p->idx,
                         p->retries, czk_status_name(st), err.msg);
            if (p->retries == 0) {
                p->retries++;
                e->retries++;
                j->nproved--;
                j->nsynth--;
                p->state = CZK__PART_PENDING;
                czk__job_part_free_heap(p);
                if (czk__sched_push(&e->synth_q, &e->n_synth_q, &e->cap_synth_q, p)) {
                    pthread_cond_broadcast(&e->cv_work);
                    continue;
                }
            }
            czk__job_end(e, j, CZK_JOB_FAILED, verify_failed ? CZK_EVERIFY : st,
                         "partition %u: %s%s", p->idx,
                         verify_failed ? "proof failed self-verification twice: " : "",
                         err.msg[0] ? err.msg : czk_strerror(st));
            continue;
        }
        p->state = CZK__PART_DONE;
        j->nverified++;
        if (j->nverified == j->nparts) czk__finalize_complete(e, j);
    }
    pthread_cond_broadcast(&e->cv_state);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ------------------------------------------------------------------------------------ */
/* Create / drain / destroy                                                             */
/* ------------------------------------------------------------------------------------ */

static uint64_t physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psz <= 0) return 16 * GIB;
    return (uint64_t)pages * (uint64_t)psz;
}

/* Re-queue the journal's unfinished jobs and keep its finished ones for retention. */
static czk_status recover(czk_engine *e, czk_err *err)
{
    czk__journal_row *rows = NULL;
    size_t n = 0;
    uint64_t now = czk_unix_ms();
    uint64_t min_ms = now > e->retention_s * 1000u ? now - e->retention_s * 1000u : 0;
    czk_status st = czk__journal_load(e->journal, min_ms, &rows, &n, err);
    if (st != CZK_OK) return st;
    czk__journal_part *parts = NULL;
    size_t nparts = 0, parts_damaged = 0;
    st = czk__journal_load_parts(e->journal, &parts, &nparts, &parts_damaged, err);
    if (st != CZK_OK) {
        czk__journal_rows_free(rows, n);
        return st;
    }
    if (parts_damaged > 0) {
        e->proofs_damaged += parts_damaged;
        CZK_LOG_WARN("stored partition proofs damaged: those partitions are proved again",
                     "partitions=%zu", parts_damaged);
    }
    size_t requeued = 0, kept = 0;
    for (size_t i = 0; i < n; i++) {
        czk__journal_row *r = &rows[i];
        if (r->seq >= e->next_seq) e->next_seq = r->seq + 1;
        if (czk__kind_index((czk_job_kind)r->kind) < 0) continue;
        bool damaged = r->state == CZK_JOB_DONE && r->proof_damaged;
        if (damaged) {
            /* Never served: the job is proved again, under its id, from its payload. */
            e->proofs_damaged++;
            char rid[CZK_REQUEST_ID_MAX];
            czk__log_safe(rid, sizeof rid, r->request_id);
            CZK_LOG_ERROR("stored proof damaged (checksum mismatch): proving the job again",
                          "job=%s request_id=\"%s\"", r->job_id, rid);
            czk_err jerr;
            if (czk__journal_requeue(e->journal, r->job_id, &jerr) != CZK_OK)
                CZK_LOG_ERROR("journal write failed", "job=%s request_id=\"%s\" error=\"%s\"",
                              r->job_id, rid, jerr.msg);
        }
        if (!damaged && r->state >= CZK_JOB_DONE && r->state <= CZK_JOB_CANCELLED) {
            czk__job *j = czk_calloc(1, sizeof *j);
            if (j == NULL) break;
            snprintf(j->id, sizeof j->id, "%s", r->job_id);
            czk__job_set_request_id(j, r->request_id);
            j->seq = r->seq;
            j->kind = (czk_job_kind)r->kind;
            j->prio = (czk_job_priority)r->priority;
            j->state = (czk_job_state)r->state;
            if (r->payload != NULL) SHA256(r->payload, r->payload_len, j->payload_hash);
            memcpy(j->meaning, r->meaning, 32);
            j->has_meaning = r->has_meaning;
            j->terminal_delivered = true;
            j->submitted_unix_ms = r->submitted_ms;
            j->finished_unix_ms = r->finished_ms;
            j->proof = r->proof;
            j->proof_len = r->proof_len;
            r->proof = NULL;
            j->nparts = (uint32_t)(j->proof_len / CZK_GROTH16_PROOF_SIZE);
            j->nsynth = j->nproved = j->nverified = j->nparts;
            j->error = (czk_status)r->error;
            snprintf(j->error_message, sizeof j->error_message, "%s", r->error_message);
            j->timings = r->timings;
            j->t_submit = j->t_done = czk_clock_us();
            /* The circuit id is not a column: rebuild it from the payload when we can. */
            czk_job_request req;
            const uint8_t **vp;
            size_t *vl;
            if (r->payload != NULL &&
                czk__request_parse(r->payload, r->payload_len, &req, &vp, &vl, NULL) == CZK_OK) {
                if (req.kind == CZK_JOB_CIRCOM && req.circuit != NULL)
                    snprintf(j->circuit_id, sizeof j->circuit_id, "circom:%s", req.circuit);
                czk_free(vp);
                czk_free(vl);
            }
            j->next = e->jobs;
            e->jobs = j;
            e->njobs++;
            e->by_kind_state[czk__kind_index(j->kind)][j->state]++;
            kept++;
            continue;
        }
        /* Unfinished: validate again and queue with the same id. */
        czk_job_request req;
        const uint8_t **vp = NULL;
        size_t *vl = NULL;
        czk_err jerr;
        czk_err_clear(&jerr);
        czk__job *j = NULL;
        char path[4200];
        czk_status js = r->payload ? czk__request_parse(r->payload, r->payload_len, &req, &vp,
                                                        &vl, &jerr)
                                   : czk_err_set(&jerr, CZK_EFORMAT, "no payload");
        if (js == CZK_OK) {
            req.request_id = r->request_id;
            js = czk__job_build(e, &req, &j, path, sizeof path, &jerr);
        }
        czk_free(vp);
        czk_free(vl);
        if (js == CZK_OK) {
            snprintf(j->id, sizeof j->id, "%s", r->job_id);
            j->seq = r->seq;
            j->submitted_unix_ms = r->submitted_ms;
            j->t_submit = czk_clock_us();
            /* Partitions a drain kept, verified before it: not proved again. */
            for (size_t k = 0; k < nparts; k++) {
                if (strcmp(parts[k].job_id, j->id) != 0 || parts[k].idx >= j->nparts) continue;
                czk__part *p = &j->parts[parts[k].idx];
                if (p->state == CZK__PART_DONE ||
                    czk_groth16_proof_read(&p->proof, parts[k].proof, NULL) != CZK_OK)
                    continue;
                p->state = CZK__PART_DONE;
                j->nsynth++;
                j->nproved++;
                j->nverified++;
                e->parts_restored++;
            }
            js = czk__job_enqueue(e, j, path, &jerr);
            if (js != CZK_OK) czk__job_free(j);
            else if (j->nverified == j->nparts) czk__finalize_complete(e, j);
        }
        if (js == CZK_OK) {
            requeued++;
            continue;
        }
        /* It cannot run again: keep it as FAILED with the reason. */
        czk__job *f = czk_calloc(1, sizeof *f);
        if (f == NULL) break;
        snprintf(f->id, sizeof f->id, "%s", r->job_id);
        czk__job_set_request_id(f, r->request_id);
        f->seq = r->seq;
        f->kind = (czk_job_kind)r->kind;
        f->prio = (czk_job_priority)r->priority;
        f->state = CZK_JOB_FAILED;
        f->error = js;
        snprintf(f->error_message, sizeof f->error_message, "%s%.440s",
                 damaged ? "stored proof damaged and the job cannot be proved again: "
                         : "after restart: ",
                 jerr.msg);
        f->submitted_unix_ms = r->submitted_ms;
        f->finished_unix_ms = now;
        f->t_submit = f->t_done = czk_clock_us();
        f->terminal_delivered = true;
        if (r->payload != NULL) SHA256(r->payload, r->payload_len, f->payload_hash);
        f->next = e->jobs;
        e->jobs = f;
        e->njobs++;
        e->by_kind_state[czk__kind_index(f->kind)][CZK_JOB_FAILED]++;
        czk__journal_finish(e->journal, f, NULL);
    }
    czk__journal_rows_free(rows, n);
    czk_free(parts);
    if (requeued || kept)
        CZK_LOG_INFO("journal recovered", "requeued=%zu finished=%zu partitions_kept=%" PRIu64,
                     requeued, kept, e->parts_restored);
    return CZK_OK;
}

static czk_status start_thread(czk_engine *e, void *(*fn)(void *), void *arg, czk_err *err)
{
    if (pthread_create(&e->threads[e->nthreads], NULL, fn, arg) != 0)
        return czk_err_set(err, CZK_ERESOURCE, "cannot start an engine thread");
    e->nthreads++;
    return CZK_OK;
}

static void synth_pools_free(czk_engine *e)
{
    if (e->synth_pools == NULL) return;
    for (unsigned i = 0; i <= e->n_synth_workers; i++) czk_pool_destroy(e->synth_pools[i]);
    czk_free(e->synth_pools);
    e->synth_pools = NULL;
}

static void stop_threads(czk_engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->stopping = true;
    pthread_cond_broadcast(&e->cv_work);
    pthread_cond_broadcast(&e->cv_prove);
    pthread_cond_broadcast(&e->cv_fin);
    pthread_mutex_unlock(&e->mu);
    for (size_t i = 0; i < e->nthreads; i++) pthread_join(e->threads[i], NULL);
    e->nthreads = 0;
}

/* A Filecoin circuit's key shape from its counts (bellperson's layout: the input rows
 * appended, A and B dense over their set bits). */
static void shape_of_counts(const czk_circuit_info *c, czk_groth16_params *k)
{
    memset(k, 0, sizeof *k);
    const uint64_t rows = c->constraints + c->inputs;
    unsigned lg = 0;
    while (((uint64_t)1 << lg) < rows) lg++;
    k->log_m = lg;
    k->n_inputs = (uint32_t)c->inputs;
    k->n_aux = (uint32_t)c->aux;
    k->h_len = ((size_t)1 << lg) - 1;
    k->l_len = (size_t)c->aux;
    k->a_len = (size_t)(c->inputs + c->a_aux_density);
    k->b_g1_len = k->b_g2_len = (size_t)(c->b_input_density + c->b_aux_density);
}

/* The least device memory that every Filecoin circuit's partition proves in (the 32 and
 * 64 GiB sectors' PoRep, SnapDeals and Window PoSt, 2^27 domains), and which one it is. */
static uint64_t largest_partition_min(char *what, size_t cap)
{
    uint64_t most = 0;
    const int seals[2] = {CZK_SEAL_StackedDrg32GiBV1_1, CZK_SEAL_StackedDrg64GiBV1_1};
    const uint64_t sizes[2] = {32 * GIB, 64 * GIB};
    for (int i = 0; i < 2; i++) {
        for (int kind = 0; kind < 3; kind++) {
            czk_circuit_info ci;
            czk_status st;
            if (kind == 0) {
                st = czk_circuit_porep_count(seals[i], &ci, NULL);
            } else if (kind == 1) {
                st = czk_circuit_snap_count(seals[i], &ci, NULL);
            } else {
                czk_post_proof pp;
                st = czk_post_proof_for_size(sizes[i], false, &pp, NULL);
                if (st == CZK_OK) st = czk_circuit_wpost_count((int)pp, &ci, NULL);
            }
            if (st != CZK_OK) continue;
            czk_groth16_params k;
            shape_of_counts(&ci, &k);
            czk_gpu_plan p;
            (void)czk_gpu_plan_make(&p, &k, 0, NULL, NULL);
            if (p.min_budget > most) {
                most = p.min_budget;
                snprintf(what, cap, "a %s %u GiB partition", kind == 0 ? "PoRep" : kind == 1 ? "SnapDeals" : "Window PoSt",
                         (unsigned)(sizes[i] / GIB));
            }
        }
    }
    return most;
}

/*
 * Each GPU's device memory for czk: gpus.memory_limit, or what the device has free now
 * (another process may hold the rest), less a margin for the CUDA context's growth and
 * the pools' fragmentation, whichever is less; and its host-to-device rate, which the
 * plans weigh streaming by. A configured limit below what the largest partitions need is
 * refused; a device with less free than that is only warned about (smaller circuits still
 * prove on it).
 */
static czk_status gpu_budgets(czk_engine *e, uint64_t cfg_limit, czk_err *err)
{
    char what[64] = "";
    const uint64_t need = largest_partition_min(what, sizeof what);
    if (cfg_limit != 0 && cfg_limit < need)
        return czk_err_set(err, CZK_EINVAL,
                           "gpus.memory_limit: %.2f GiB is less than %s needs on a GPU "
                           "(%.2f GiB)", (double)cfg_limit / GIB, what, (double)need / GIB);
    for (size_t g = 0; g < e->ngpus; g++) {
        const int ord = e->gpu_ordinals[g];
        czk_gpu_info gi;
        czk_err gerr;
        if (czk_gpu_get_info(ord, &gi, &gerr) != CZK_OK)
            return czk_err_set(err, CZK_ENOGPU, "gpu%d: %s", ord, gerr.msg);
        uint64_t margin = gi.total_mem / 50;
        if (margin < 512ull << 20) margin = 512ull << 20;
        const uint64_t avail = gi.free_mem > margin ? gi.free_mem - margin : 0;
        uint64_t lim = avail;
        if (cfg_limit != 0) {
            if (cfg_limit > avail)
                CZK_LOG_WARN("gpus.memory_limit is more than the GPU has free: planning within "
                             "what is free", "gpu=%d limit=%" PRIu64 " free=%zu", ord, cfg_limit,
                             gi.free_mem);
            else
                lim = cfg_limit;
        }
        if (lim < need)
            CZK_LOG_WARN("GPU memory below what the largest partitions need: their parameters "
                         "will not load on this GPU", "gpu=%d bytes=%" PRIu64 " need=%" PRIu64
                         " for=\"%s\"", ord, lim, need, what);
        e->gpu_limit[g] = lim;
        czk_gpu_set_memory_limit(ord, lim);
        double gbps = 0;
        if (czk_gpu_measure_h2d(ord, 256u << 20, &gbps, &gerr) != CZK_OK) gbps = 0;
        e->gpu_h2d_gbps[g] = gbps;
        CZK_LOG_INFO("gpu memory", "gpu=%d name=\"%s\" total=%zu free=%zu limit=%" PRIu64
                     " h2d_gbps=%.1f", ord, gi.name, gi.total_mem, gi.free_mem, lim, gbps);
    }
    return CZK_OK;
}

czk_status czk_engine_create(czk_engine **out, const czk_engine_config *cfg_in, czk_err *err)
{
    *out = NULL;
    czk_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (cfg_in != NULL) cfg = *cfg_in;
    czk_engine *e = czk_calloc(1, sizeof *e);
    if (e == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory");
    const char *pd = cfg.param_dir;
    if (pd == NULL || pd[0] == '\0') pd = getenv("FIL_PROOFS_PARAMETER_CACHE");
    if (pd == NULL || pd[0] == '\0') pd = "/var/tmp/filecoin-proof-parameters";
    snprintf(e->data_dir, sizeof e->data_dir, "%s",
             cfg.data_dir && cfg.data_dir[0] ? cfg.data_dir : "./czk-data");
    snprintf(e->param_dir, sizeof e->param_dir, "%s", pd);
    uint64_t phys = physical_memory();
    uint64_t margin = cfg.memory_margin;
    if (margin == 0) margin = 5 * GIB < phys / 8 ? 5 * GIB : phys / 8;
    e->budget_total = cfg.memory_budget ? cfg.memory_budget : (phys > margin ? phys - margin : phys);
    e->retention_s = cfg.retention_s ? cfg.retention_s : 24 * 3600;
    e->srs_idle_evict_s = cfg.srs_idle_evict_s ? cfg.srs_idle_evict_s : 300;
    e->max_queued = cfg.max_queued_jobs ? cfg.max_queued_jobs : 10000;
    e->max_queued_bytes = cfg.max_queued_bytes;
    e->next_seq = 1;
    e->next_handle = 1;
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->ev_mu, NULL);
    pthread_mutex_init(&e->submit_mu, NULL);
    pthread_mutex_init(&e->drain_mu, NULL);
    pthread_cond_init(&e->cv_work, NULL);
    pthread_cond_init(&e->cv_prove, NULL);
    pthread_cond_init(&e->cv_fin, NULL);
    pthread_cond_init(&e->cv_state, NULL);
    pthread_cond_init(&e->cv_ev, NULL);
    e->started_unix_ms = czk_unix_ms();
    e->t_start = czk_clock_us();

    /* GPUs: the configured ordinals, or all; none in CPU-only mode. */
    int ngpu = cfg.gpu_mode == 1 ? 0 : czk_gpu_count();
    if (cfg.gpu_mode == 2 && ngpu == 0) {
        czk_free(e);
        return czk_err_set(err, CZK_ENOGPU, "gpu_mode requires a GPU and none is usable");
    }
    size_t ng = 0;
    if (ngpu > 0) {
        e->gpu_ordinals = czk_calloc(cfg.gpus ? cfg.ngpus + 1 : (size_t)ngpu, sizeof(int));
        if (cfg.gpus != NULL) {
            for (size_t i = 0; i < cfg.ngpus; i++) {
                if (cfg.gpus[i] < 0 || cfg.gpus[i] >= ngpu) {
                    czk_free(e->gpu_ordinals);
                    czk_free(e);
                    return czk_err_set(err, CZK_EINVAL, "gpus: ordinal %d not present (%d GPUs)",
                                       cfg.gpus[i], ngpu);
                }
                e->gpu_ordinals[ng++] = cfg.gpus[i];
            }
        } else {
            for (int i = 0; i < ngpu; i++) e->gpu_ordinals[ng++] = i;
        }
    }
    if (ng > CZK__MAX_GPUS) ng = CZK__MAX_GPUS;
    e->ngpus = ng;
    e->use_gpu = ng > 0;
    const char *pk_env = getenv("CZK_GPU_PACK");
    e->gpu_pack = pk_env != NULL ? strcmp(pk_env, "0") != 0 : cfg.gpu_pack_copies;
    czk__pinned_init(&e->pinned, cfg.pinned_limit, e->use_gpu, cfg.pageable_buffers);

    czk_status st = e->use_gpu ? gpu_budgets(e, cfg.gpu_memory_limit, err) : CZK_OK;
    if (st != CZK_OK) goto fail;
    st = czk__journal_open(&e->journal, e->data_dir, err);
    if (st != CZK_OK) goto fail;
    e->synth_nice = cfg.synthesis_nice > 19 ? 19 : (int)cfg.synthesis_nice;
    /* The math pool runs the provers: on the CPU back end it takes every core for seconds
     * at a time, so it runs below the threads that answer the API, as synthesis does; a
     * GPU engine's pool feeds the devices and stays at normal priority. */
    st = czk_pool_create_nice(&e->pool, cfg.synthesis_threads, e->use_gpu ? 0 : e->synth_nice,
                              err);
    if (st != CZK_OK) goto fail;
    st = recover(e, err);
    if (st != CZK_OK) goto fail;

    /* CPU backend: one prover (it uses every core through the pool). GPU: per device. */
    unsigned per = cfg.gpu_workers_per_device ? cfg.gpu_workers_per_device : 2;
    e->n_express_prove_workers = e->use_gpu ? (unsigned)ng : 0;
    e->n_prove_workers = (e->use_gpu ? per * (unsigned)ng : 1) + e->n_express_prove_workers;
    /* Auto: one synthesis worker per 16 GiB of budget (a 32 GiB PoRep partition's a/b/c
     * and witness take about that), 2 to 16. Idle workers cost nothing: admission is by
     * budget, so extra ones only wait. */
    uint64_t auto_synth = e->budget_total / (16 * GIB);
    if (auto_synth < 2) auto_synth = 2;
    if (auto_synth > 16) auto_synth = 16;
    e->n_synth_workers = cfg.synthesis_workers ? cfg.synthesis_workers : (unsigned)auto_synth;
    e->test_params = cfg.test_params;
    if (e->test_params)
        CZK_LOG_WARN("TEST PARAMETERS: missing Filecoin parameters are made in memory from a "
                     "known seed; proofs are valid for no real verifier", "param_dir=%s",
                     e->param_dir);
    /* The synthesis threads are shared out among the workers, one pool each (the
     * callers count as threads), so partitions that split into sections use them all. */
    {
        unsigned total = cfg.synthesis_threads ? cfg.synthesis_threads : czk_cpu_count();
        unsigned per_worker = total / e->n_synth_workers;
        if (per_worker < 1) per_worker = 1;
        /* The last worker is the express lane's: small partitions, on its own thread. */
        e->synth_pools = czk_calloc(e->n_synth_workers + 1, sizeof *e->synth_pools);
        if (e->synth_pools == NULL) {
            st = czk_err_set(err, CZK_ENOMEM, "out of memory");
            goto fail;
        }
        /* Synthesis is bulk work on every core; the threads that feed the GPUs (woken from
         * blocking waits between an MSM's phases, dozens of times a proof) must get a core at
         * once, or the device idles. With a spinning load on all 32 vCPUs of an H200 host the
         * pipelined partition took 1.270 s against 1.218 s unloaded, and 1.222 s with the
         * load at nice 19 (bench_gpu_prove --real --pipeline 10 --hog). The express lane's
         * synthesis stays at normal priority: its latency is the point. */
        for (unsigned i = 0; i <= e->n_synth_workers && st == CZK_OK; i++)
            st = czk_pool_create_nice(&e->synth_pools[i],
                                      i < e->n_synth_workers ? per_worker : 1,
                                      i < e->n_synth_workers ? e->synth_nice : 0, err);
        if (st != CZK_OK) goto fail;
    }
    e->max_prove_queue = 2 * (e->n_prove_workers - e->n_express_prove_workers);
    e->provers = czk_calloc(e->n_prove_workers, sizeof *e->provers);
    e->gpu_mu = czk_calloc(ng ? ng : 1, sizeof *e->gpu_mu);
    e->threads = czk_calloc(e->n_prove_workers + e->n_synth_workers + 2, sizeof *e->threads);
    if (e->provers == NULL || e->gpu_mu == NULL || e->threads == NULL) {
        st = czk_err_set(err, CZK_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t g = 0; g < ng; g++) czk__sched_gpu_lock_init(&e->gpu_mu[g]);
    for (unsigned i = 0; i < e->n_prove_workers; i++) {
        czk__prover *pv = &e->provers[i];
        unsigned ordinary = e->n_prove_workers - e->n_express_prove_workers;
        pv->express = i >= ordinary;
        pv->gpu = !e->use_gpu ? -1
                  : pv->express ? e->gpu_ordinals[i - ordinary]
                                : e->gpu_ordinals[i / per];
        if (pv->gpu >= 0)
            snprintf(pv->name, sizeof pv->name, "gpu%d%s", pv->gpu, pv->express ? "-express" : "");
        else
            snprintf(pv->name, sizeof pv->name, "cpu");
    }
    if (pthread_create(&e->ev_thread, NULL, czk__events_main, e) != 0) {
        st = czk_err_set(err, CZK_ERESOURCE, "cannot start the event thread");
        goto fail;
    }
    for (unsigned i = 0; i <= e->n_synth_workers && st == CZK_OK; i++)
        st = start_thread(e, czk__synth_main, e, err);
    for (unsigned i = 0; i < e->n_prove_workers && st == CZK_OK; i++) {
        czk__prover_arg *pa = czk_malloc(sizeof *pa);
        if (pa == NULL) {
            st = czk_err_set(err, CZK_ENOMEM, "out of memory");
            break;
        }
        pa->e = e;
        pa->idx = i;
        st = start_thread(e, czk__prove_main, pa, err);
        if (st != CZK_OK) czk_free(pa);
    }
    if (st == CZK_OK) st = start_thread(e, czk__finalize_main, e, err);
    if (st != CZK_OK) {
        e->closed = false;
        czk_engine_destroy(e);
        return st;
    }
    CZK_LOG_INFO("engine started",
                 "data_dir=%s param_dir=%s budget=%" PRIu64 " backend=%s provers=%u synth=%u",
                 e->data_dir, e->param_dir, e->budget_total, e->use_gpu ? "gpu" : "cpu",
                 e->n_prove_workers, e->n_synth_workers);
    *out = e;
    return CZK_OK;
fail:
    czk__journal_close(e->journal);
    czk_pool_destroy(e->pool);
    synth_pools_free(e);
    czk__pinned_destroy(&e->pinned);
    for (czk__job *j = e->jobs, *nx; j != NULL; j = nx) {
        nx = j->next;
        czk__job_free(j);
    }
    for (czk__params *pe = e->params, *nx; pe != NULL; pe = nx) {
        nx = pe->next;
        czk_free(pe);
    }
    czk_free(e->synth_q);
    czk_free(e->evq);
    czk_free(e->provers);
    czk_free(e->gpu_mu);
    czk_free(e->threads);
    czk_free(e->gpu_ordinals);
    czk_free(e);
    return st;
}

/*
 * Keep the verified partition proofs of the jobs a drain leaves unfinished, so that the
 * restart proves only the rest (mu held; the workers are idle or stopped).
 */
static void keep_partitions(czk_engine *e)
{
    size_t kept = 0;
    for (czk__job *j = e->jobs; j != NULL; j = j->next) {
        if (czk__job_terminal(j->state) || j->forgotten || j->parts == NULL || j->nverified == 0)
            continue;
        uint32_t *idx = czk_malloc(j->nverified * sizeof *idx);
        uint8_t *proofs = czk_malloc((size_t)j->nverified * CZK_GROTH16_PROOF_SIZE);
        size_t n = 0;
        for (uint32_t i = 0; idx != NULL && proofs != NULL && i < j->nparts; i++) {
            if (j->parts[i].state != CZK__PART_DONE || n == j->nverified) continue;
            idx[n] = i;
            czk_groth16_proof_write(proofs + n * CZK_GROTH16_PROOF_SIZE, &j->parts[i].proof);
            n++;
        }
        czk_err jerr;
        if (n > 0 && czk__journal_save_parts(e->journal, j->id, idx, proofs, n, &jerr) != CZK_OK)
            CZK_LOG_ERROR("journal write failed: the job's proved partitions will be proved again",
                          "job=%s request_id=\"%s\" error=\"%s\"", j->id, j->log_rid, jerr.msg);
        else
            kept += n;
        czk_free(idx);
        czk_free(proofs);
    }
    if (kept > 0)
        CZK_LOG_INFO("drain: verified partitions of unfinished jobs kept for the restart",
                     "partitions=%zu", kept);
}

void czk_engine_abort(czk_engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->draining = true;
    if (!czk__engine_aborting(e))
        CZK_LOG_WARN("cancelling the work in progress; it stays journaled and runs after the "
                     "next start",
                     "busy_workers=%u", e->busy_workers);
    __atomic_store_n(&e->abort, 1, __ATOMIC_RELAXED);
    for (czk__job *j = e->jobs; j != NULL; j = j->next)
        for (uint32_t i = 0; j->parts != NULL && i < j->nparts; i++)
            czk__job_part_cancel(&j->parts[i]);
    pthread_cond_broadcast(&e->cv_state);
    pthread_cond_broadcast(&e->cv_work);
    pthread_cond_broadcast(&e->cv_prove);
    pthread_cond_broadcast(&e->cv_fin);
    pthread_mutex_unlock(&e->mu);
}

/* After an abort, the cancelled work returns within one chunk of its loop and the
 * finalizer verifies what was proved before it; a parameter load is not cancelled, so the
 * wait is bounded and stop_threads then waits for it alone. */
#define ABORT_SETTLE_MS 5000

void czk_engine_drain(czk_engine *e, uint64_t grace_ms)
{
    /* Concurrent drains: the second waits for the first, then finds nothing to stop. */
    pthread_mutex_lock(&e->drain_mu);
    pthread_mutex_lock(&e->mu);
    e->draining = true;
    uint64_t deadline = czk_clock_us() + grace_ms * 1000u;
    /* Partitions already admitted finish within the grace; queued ones wait for the next
     * start. */
    bool busy = false;
    for (;;) {
        busy = e->busy_workers > 0 || e->n_prove_q > 0 || e->n_fin_q > 0;
        if (!busy || czk__engine_aborting(e) || czk_clock_us() >= deadline) break;
        uint64_t left = (deadline - czk_clock_us()) / 1000u;
        czk__sched_timed_wait(&e->cv_state, &e->mu, left < 100 ? (unsigned)left + 1 : 100);
    }
    if (busy) {
        /* The grace is over: cancel what still runs, on either back end. */
        pthread_mutex_unlock(&e->mu);
        if (grace_ms > 0 && !czk__engine_aborting(e))
            CZK_LOG_WARN("drain: the grace is over", "grace_ms=%" PRIu64, grace_ms);
        czk_engine_abort(e);
        pthread_mutex_lock(&e->mu);
        uint64_t settle = czk_clock_us() + ABORT_SETTLE_MS * 1000u;
        while ((e->busy_workers > 0 || e->n_fin_q > 0) && czk_clock_us() < settle)
            czk__sched_timed_wait(&e->cv_state, &e->mu, 20);
    }
    if (!e->crashed && e->journal != NULL) keep_partitions(e);
    pthread_mutex_unlock(&e->mu);
    stop_threads(e);
    pthread_mutex_unlock(&e->drain_mu);
}

void czk_engine_destroy(czk_engine *e)
{
    if (e == NULL) return;
    if (!e->closed) {
        czk_engine_drain(e, 0);
        e->closed = true;
    }
    pthread_mutex_lock(&e->mu);
    e->ev_stop = true;
    pthread_cond_broadcast(&e->cv_ev);
    pthread_mutex_unlock(&e->mu);
    if (e->ev_thread) pthread_join(e->ev_thread, NULL);
    for (czk__job *j = e->jobs, *nx; j != NULL; j = nx) {
        nx = j->next;
        if (j->parts != NULL)
            for (uint32_t i = 0; i < j->nparts; i++) czk__job_part_release(e, &j->parts[i]);
        czk__job_free(j);
    }
    for (czk__params *pe = e->params, *nx; pe != NULL; pe = nx) {
        nx = pe->next;
        czk__params_unload(pe);
        czk_free(pe);
    }
    for (czk__watch *w = e->watches, *nx; w != NULL; w = nx) {
        nx = w->next;
        czk_free(w);
    }
    for (czk__done_reg *d = e->dones, *nx; d != NULL; d = nx) {
        nx = d->next;
        czk_free(d);
    }
    czk__pinned_destroy(&e->pinned);
    czk__journal_close(e->journal);
    czk_pool_destroy(e->pool);
    synth_pools_free(e);
    for (size_t g = 0; g < e->ngpus; g++) czk__sched_gpu_lock_destroy(&e->gpu_mu[g]);
    czk_free(e->gpu_mu);
    czk_free(e->gpu_ordinals);
    czk_free(e->provers);
    czk_free(e->threads);
    czk_free(e->synth_q);
    czk_free(e->prove_q);
    czk_free(e->fin_q);
    czk_free(e->evq);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->ev_mu);
    pthread_mutex_destroy(&e->submit_mu);
    pthread_mutex_destroy(&e->drain_mu);
    pthread_cond_destroy(&e->cv_work);
    pthread_cond_destroy(&e->cv_prove);
    pthread_cond_destroy(&e->cv_fin);
    pthread_cond_destroy(&e->cv_state);
    pthread_cond_destroy(&e->cv_ev);
    czk_free(e);
}

/* ------------------------------------------------------------------------------------ */
/* Submit, get, await, cancel, list                                                     */
/* ------------------------------------------------------------------------------------ */

/*
 * A queued, running or done job of this request_id (mu held), with these payload bytes
 * when hash is given, newest first. A job that failed or was cancelled does not block a
 * new attempt under the same id (it stays listed, as history, until its retention ends);
 * a forgotten one is gone. Several live jobs share an id when it was reused for other
 * requests (dedup_locked).
 */
static czk__job *live_job_of(czk_engine *e, const char *request_id, const uint8_t *hash)
{
    for (czk__job *o = e->jobs; o != NULL; o = o->next) {
        if (o->forgotten || o->state == CZK_JOB_FAILED || o->state == CZK_JOB_CANCELLED)
            continue;
        if (strcmp(o->request_id, request_id) != 0) continue;
        if (hash == NULL || memcmp(o->payload_hash, hash, 32) == 0) return o;
    }
    return NULL;
}

/*
 * The live job of j's request_id when it is the same request (meaning, or bytes for a job
 * recovered from a journal that predates the meaning): true, *st = CZK_OK and its snapshot
 * in out (mu held). Another request under the id is a new job, which the id names from
 * then on: Curio's ids are fixed per object (porep-<miner>-<sector>), so a sector sealed
 * again, or a deadline's next proving period, comes back under the id of a finished or
 * still running job, and refusing it would fail the client's task until the old job's
 * retention ends. The older job stays under its own job id.
 */
static bool dedup_locked(czk_engine *e, const czk__job *j, czk_job_info *out, czk_status *st,
                         czk_err *err)
{
    (void)err;
    const czk__job *other = NULL;
    for (czk__job *o = e->jobs; o != NULL; o = o->next) {
        if (o->forgotten || o->state == CZK_JOB_FAILED || o->state == CZK_JOB_CANCELLED ||
            strcmp(o->request_id, j->request_id) != 0)
            continue;
        bool same = o->has_meaning ? memcmp(o->meaning, j->meaning, 32) == 0
                                   : memcmp(o->payload_hash, j->payload_hash, 32) == 0;
        if (same) {
            *st = CZK_OK;
            if (out != NULL) czk__job_snapshot(e, o, false, out);
            return true;
        }
        if (other == NULL) other = o;
    }
    if (other != NULL)
        CZK_LOG_INFO("request_id reused for another request: a new job", "request_id=%s "
                     "earlier=%s earlier_state=%s", j->request_id, other->id,
                     czk_job_state_name(other->state));
    return false;
}

czk_status czk_engine_submit(czk_engine *e, const czk_job_request *req, czk_job_info *out,
                             czk_err *err)
{
    if (out != NULL) memset(out, 0, sizeof *out);
    if (req == NULL) return czk_err_set(err, CZK_EINVAL, "request: NULL");
    pthread_mutex_lock(&e->mu);
    bool draining = e->draining;
    pthread_mutex_unlock(&e->mu);
    if (draining) return czk_err_set(err, CZK_EBUSY, "the engine is draining");
    czk_status st = CZK_OK;
    /* A retry with the very same bytes is answered before the (possibly expensive: a 50 MB
     * C1 JSON) validation runs. Anything else is decided under submit_mu below, on the
     * request's meaning, which czk__job_build works out. */
    if (req->request_id != NULL && req->request_id[0] != '\0' &&
        strlen(req->request_id) < CZK_REQUEST_ID_MAX) {
        pthread_mutex_lock(&e->mu);
        bool live = live_job_of(e, req->request_id, NULL) != NULL;
        pthread_mutex_unlock(&e->mu);
        size_t plen = 0;
        uint8_t *payload = live ? czk__request_serialize(req, &plen) : NULL;
        if (payload != NULL) {
            uint8_t hash[32];
            SHA256(payload, plen, hash);
            czk_free(payload);
            pthread_mutex_lock(&e->mu);
            const czk__job *same = live_job_of(e, req->request_id, hash);
            if (same != NULL && out != NULL) czk__job_snapshot(e, same, false, out);
            pthread_mutex_unlock(&e->mu);
            if (same != NULL) return CZK_OK;
        }
    }
    czk__job *j = NULL;
    char path[4200];
    st = czk__job_build(e, req, &j, path, sizeof path, err);
    if (st != CZK_OK) return st;

    pthread_mutex_lock(&e->submit_mu);
    pthread_mutex_lock(&e->mu);
    if (j->request_id[0] != '\0' && dedup_locked(e, j, out, &st, err)) {
        pthread_mutex_unlock(&e->mu);
        pthread_mutex_unlock(&e->submit_mu);
        czk__job_free(j);
        return st;
    }
    size_t queued = 0;
    for (int k = 0; k < 5; k++) queued += e->by_kind_state[k][CZK_JOB_QUEUED];
    if (queued >= e->max_queued || e->draining) {
        bool dr = e->draining;
        pthread_mutex_unlock(&e->mu);
        pthread_mutex_unlock(&e->submit_mu);
        czk__job_free(j);
        return dr ? czk_err_set(err, CZK_EBUSY, "the engine is draining")
                  : czk_err_set(err, CZK_ERESOURCE, "%zu jobs queued (max_queued_jobs)", queued);
    }
    /* Payloads wait in memory outside the budget: their total is bounded on its own. */
    if (e->max_queued_bytes && e->payload_bytes + j->payload_len > e->max_queued_bytes) {
        uint64_t held = e->payload_bytes;
        pthread_mutex_unlock(&e->mu);
        pthread_mutex_unlock(&e->submit_mu);
        size_t need = j->payload_len;
        czk__job_free(j);
        return czk_err_set(err, CZK_ERESOURCE,
                           "unfinished jobs hold %" PRIu64 " bytes of payload and this one adds %zu "
                           "(max_queued_bytes %" PRIu64 ")", held, need, e->max_queued_bytes);
    }
    czk__job_make_id(j->id);
    j->seq = e->next_seq++;
    j->submitted_unix_ms = czk_unix_ms();
    j->t_submit = czk_clock_us();
    pthread_mutex_unlock(&e->mu);

    /* Durable before we answer: a crash after this returns re-runs the job. */
    st = czk__journal_insert(e->journal, j, err);
    if (st == CZK_OK) {
        pthread_mutex_lock(&e->mu);
        st = czk__job_enqueue(e, j, path, err);
        if (st == CZK_OK && out != NULL) czk__job_snapshot(e, j, false, out);
        pthread_mutex_unlock(&e->mu);
        if (st != CZK_OK) czk__journal_delete(e->journal, j->id, NULL);
    }
    pthread_mutex_unlock(&e->submit_mu);
    if (st != CZK_OK) {
        czk__job_free(j);
        return st;
    }
    /* At the default level: the line that ties the client's request_id to czk's job id. */
    if (czk_log_min_level <= CZK_LOG_INFO) {
        char rid[CZK_REQUEST_ID_MAX];
        czk__log_safe(rid, sizeof rid, req->request_id ? req->request_id : "");
        CZK_LOG_INFO("job accepted", "job=%s request_id=\"%s\" kind=%s circuit=%s priority=%d",
                      out ? out->job_id : "", rid, czk_job_kind_name(req->kind),
                      out ? out->circuit_id : "", (int)req->priority);
    }
    return CZK_OK;
}

czk_status czk_engine_get(czk_engine *e, const char *job_id_in, bool with_proof,
                          czk_job_info *out, czk_err *err)
{
    if (job_id_in == NULL) return czk_err_set(err, CZK_EINVAL, "job_id: NULL");
    /* job_id may point into *out (out->job_id of an earlier snapshot). */
    char job_id[CZK_JOB_ID_MAX + 8];
    snprintf(job_id, sizeof job_id, "%s", job_id_in);
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    czk__job *j = czk__job_find(e, job_id);
    if (j != NULL) czk__job_snapshot(e, j, with_proof, out);
    pthread_mutex_unlock(&e->mu);
    if (j == NULL) return czk_err_set(err, CZK_ENOENT, "job_id: no job %s", job_id);
    return CZK_OK;
}

czk_status czk_engine_await(czk_engine *e, const char *job_id_in, uint64_t timeout_ms,
                            czk_job_info *out, czk_err *err)
{
    if (job_id_in == NULL) return czk_err_set(err, CZK_EINVAL, "job_id: NULL");
    char job_id[CZK_JOB_ID_MAX + 8];
    snprintf(job_id, sizeof job_id, "%s", job_id_in);
    memset(out, 0, sizeof *out);
    uint64_t deadline = czk_clock_us() + timeout_ms * 1000u;
    pthread_mutex_lock(&e->mu);
    czk_status st = CZK_OK;
    for (;;) {
        czk__job *j = czk__job_find(e, job_id);
        if (j == NULL) {
            st = czk_err_set(err, CZK_ENOENT, "job_id: no job %s", job_id);
            break;
        }
        if (czk__job_terminal(j->state)) {
            czk__job_snapshot(e, j, true, out);
            break;
        }
        if (timeout_ms != 0 && czk_clock_us() >= deadline) {
            czk__job_snapshot(e, j, false, out);
            st = czk_err_set(err, CZK_ETIMEDOUT, "job %s is still %s after %" PRIu64 " ms",
                             job_id, czk_job_state_name(j->state), timeout_ms);
            break;
        }
        unsigned wait_ms = 200;
        if (timeout_ms != 0) {
            uint64_t left = (deadline - czk_clock_us()) / 1000u + 1;
            if (left < wait_ms) wait_ms = (unsigned)left;
        }
        czk__sched_timed_wait(&e->cv_state, &e->mu, wait_ms);
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

czk_status czk_engine_cancel(czk_engine *e, const char *job_id, bool *was_running, czk_err *err)
{
    if (was_running) *was_running = false;
    if (job_id == NULL) return czk_err_set(err, CZK_EINVAL, "job_id: NULL");
    pthread_mutex_lock(&e->mu);
    czk__job *j = czk__job_find(e, job_id);
    czk_status st = CZK_OK;
    if (j == NULL) {
        st = czk_err_set(err, CZK_ENOENT, "job_id: no job %s", job_id);
    } else if (czk__job_terminal(j->state)) {
        /* Idempotent: a job that has already ended stays as it ended (was_running false). */
    } else {
        if (was_running) *was_running = j->state == CZK_JOB_RUNNING;
        czk__job_end(e, j, CZK_JOB_CANCELLED, CZK_ECANCELED, "cancelled by request");
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

czk_status czk_engine_forget(czk_engine *e, const char *job_id, bool *was_running,
                             czk_job_state *state, czk_err *err)
{
    if (was_running) *was_running = false;
    if (job_id == NULL) return czk_err_set(err, CZK_EINVAL, "job_id: NULL");
    pthread_mutex_lock(&e->mu);
    czk__job *j = czk__job_find(e, job_id);
    if (j == NULL) {
        pthread_mutex_unlock(&e->mu);
        return czk_err_set(err, CZK_ENOENT, "job_id: no job %s", job_id);
    }
    if (state) *state = j->state;
    if (!czk__job_terminal(j->state)) {
        if (was_running) *was_running = j->state == CZK_JOB_RUNNING;
        czk__job_end(e, j, CZK_JOB_CANCELLED, CZK_ECANCELED, "forgotten by request");
    }
    /* From here on no lookup finds it and its request_id is free; the journal row goes
     * now, so a restart does not bring it back. */
    j->forgotten = true;
    e->by_kind_state[czk__kind_index(j->kind)][j->state]--;
    czk_status st = CZK_OK;
    czk_err jerr;
    if (!e->crashed && czk__journal_delete(e->journal, j->id, &jerr) != CZK_OK) {
        CZK_LOG_ERROR("journal write failed", "job=%s request_id=\"%s\" error=\"%s\"", j->id,
                      j->log_rid, jerr.msg);
        st = czk_err_set(err, jerr.status, "%s", jerr.msg);
    }
    CZK_LOG_INFO("job forgotten", "job=%s request_id=\"%s\"", j->id, j->log_rid);
    pthread_mutex_unlock(&e->mu);
    return st;
}

/* Sort key of a queued job: higher priority first, then older first. */
static uint64_t queue_key(czk_job_priority prio, uint64_t seq)
{
    return ((uint64_t)(CZK_PRIO_CRITICAL - prio) << 56) | (seq & (((uint64_t)1 << 56) - 1));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

czk_status czk_engine_list(czk_engine *e, unsigned states_mask, size_t limit, czk_job_info **out,
                           size_t *n, czk_err *err)
{
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&e->mu);
    size_t cnt = 0;
    for (czk__job *j = e->jobs; j != NULL; j = j->next)
        if (!j->forgotten && (states_mask == 0 || (states_mask & (1u << j->state)))) cnt++;
    if (limit != 0 && cnt > limit) cnt = limit;
    czk_job_info *v = cnt ? czk_calloc(cnt, sizeof *v) : NULL;
    if (cnt && v == NULL) {
        pthread_mutex_unlock(&e->mu);
        return czk_err_set(err, CZK_ENOMEM, "out of memory");
    }
    size_t k = 0;
    uint64_t *vkeys = cnt ? czk_malloc(cnt * sizeof *vkeys) : NULL;
    for (czk__job *j = e->jobs; j != NULL && k < cnt; j = j->next)
        if (!j->forgotten && (states_mask == 0 || (states_mask & (1u << j->state)))) {
            if (vkeys != NULL) vkeys[k] = queue_key(j->prio, j->seq);
            czk__job_snapshot_ex(e, j, false, vkeys == NULL, &v[k++]);
        }
    /* Queue positions by one sort of the queued jobs rather than a scan per job: a list
     * of 10,000 queued jobs would otherwise cost 10^8 comparisons under the lock. */
    size_t nq = 0;
    for (int kk = 0; kk < 5; kk++) nq += e->by_kind_state[kk][CZK_JOB_QUEUED];
    uint64_t *keys = nq && vkeys ? czk_malloc(nq * sizeof *keys) : NULL;
    if (keys == NULL && vkeys != NULL) {
        /* No memory for the sort: the slow way. */
        for (size_t i = 0; i < k; i++)
            if (v[i].state == CZK_JOB_QUEUED) {
                czk__job *j = czk__job_find(e, v[i].job_id);
                if (j != NULL) v[i].queue_position = (uint32_t)(czk__job_queue_pos(e, j));
            }
    }
    if (keys != NULL) {
        size_t m = 0;
        for (czk__job *j = e->jobs; j != NULL && m < nq; j = j->next)
            if (j->state == CZK_JOB_QUEUED) keys[m++] = queue_key(j->prio, j->seq);
        qsort(keys, m, sizeof *keys, cmp_u64);
        for (size_t i = 0; i < k; i++) {
            if (v[i].state != CZK_JOB_QUEUED) continue;
            uint64_t key = vkeys[i];
            size_t lo = 0, hi = m;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (keys[mid] < key) lo = mid + 1;
                else hi = mid;
            }
            v[i].queue_position = (uint32_t)lo + 1;
        }
        czk_free(keys);
    }
    czk_free(vkeys);
    pthread_mutex_unlock(&e->mu);
    *out = v;
    *n = k;
    return CZK_OK;
}

void czk_engine_list_free(czk_job_info *list, size_t n)
{
    for (size_t i = 0; i < n; i++) czk_job_info_clear(&list[i]);
    czk_free(list);
}

/* ------------------------------------------------------------------------------------ */
/* Preload / evict                                                                      */
/* ------------------------------------------------------------------------------------ */

static czk_status circuit_path(czk_engine *e, const char *circuit_id, char *path, size_t cap,
                               czk_err *err)
{
    if (circuit_id != NULL && strncmp(circuit_id, "circom:", 7) == 0 &&
        czk__job_circuit_name_ok(circuit_id + 7)) {
        snprintf(path, cap, "%s/%s.zkey", e->param_dir, circuit_id + 7);
        return CZK_OK;
    }
    czk_fil_kind kind;
    uint64_t rp;
    const char *name = NULL;
    czk_status st = czk_fil_circuit_lookup(circuit_id, &kind, &rp, &name, err);
    if (st != CZK_OK) return st;
    snprintf(path, cap, "%s/%s.params", e->param_dir, name);
    return CZK_OK;
}

czk_status czk_engine_preload(czk_engine *e, const char *circuit_id, bool *already_loaded,
                              uint64_t *load_ms, czk_err *err)
{
    if (already_loaded) *already_loaded = false;
    if (load_ms) *load_ms = 0;
    char path[4200];
    czk_status st = circuit_path(e, circuit_id, path, sizeof path, err);
    if (st != CZK_OK) return st;
    struct stat sb;
    bool circom = strncmp(circuit_id, "circom:", 7) == 0;
    if (stat(path, &sb) != 0) {
        if (!e->test_params || circom)
            return czk_err_set(err, CZK_ENOENT, "parameter file %s: %s", path, strerror(errno));
        sb.st_size = 0; /* made in memory by the load below */
    }
    pthread_mutex_lock(&e->mu);
    czk__params *pe = czk__budget_params_get(e, circuit_id, path, circom);
    if (pe == NULL) {
        pthread_mutex_unlock(&e->mu);
        return czk_err_set(err, CZK_ENOMEM, "out of memory");
    }
    while (pe->state == CZK__PE_LOADING || (pe->state == CZK__PE_COLD && e->use_gpu &&
                                            czk__budget_params_loading(e)))
        czk__sched_timed_wait(&e->cv_work, &e->mu, 100);
    if (pe->state == CZK__PE_LOADED) {
        pe->last_used_ms = czk_unix_ms();
        pthread_mutex_unlock(&e->mu);
        if (already_loaded) *already_loaded = true;
        return CZK_OK;
    }
    uint64_t est = (uint64_t)sb.st_size;
    /* make room if we can; an explicit preload loads regardless */
    (void)czk__budget_fit(e, est, false);
    pe->state = CZK__PE_LOADING;
    pe->bytes = est;
    e->params_bytes += est;
    czk__budget_gen_ctx gen;
    czk__budget_gen_fill(e, pe, &gen);
    pthread_mutex_unlock(&e->mu);
    uint64_t t0 = czk_clock_us();
    st = czk__params_load(pe, &gen.gen, e->pool, err);
    if (st == CZK_OK) czk__budget_prewarm(e, pe);
    /* A preload also makes the key resident on every GPU (HOT), while the entry is still
     * LOADING: no job can use it and no evict can drop it meanwhile. Jobs of parameters
     * loaded on demand upload them lazily in gpu_prove instead. */
    for (size_t g = 0; st == CZK_OK && g < e->ngpus; g++) {
        czk__sched_gpu_lock(&e->gpu_mu[g], false);
        if (pe->gpu_srs[g] == NULL && !pe->gpu_srs_failed[g]) {
            czk_err serr;
            if (czk_gpu_srs_create(&pe->gpu_srs[g], e->gpu_ordinals[g], &pe->pk, &serr) !=
                CZK_OK) {
                pe->gpu_srs[g] = NULL;
                pe->gpu_srs_failed[g] = true;
                CZK_LOG_WARN("parameters do not stay on the GPU: streaming them",
                             "circuit=%s gpu=%d error=\"%s\"", pe->id, e->gpu_ordinals[g],
                             serr.msg);
            }
        }
        czk__sched_gpu_unlock(&e->gpu_mu[g]);
        czk__sched_gpu_done(&e->gpu_mu[g]);
    }
    uint64_t dt = czk_clock_us() - t0;
    pthread_mutex_lock(&e->mu);
    e->params_bytes -= est;
    if (st != CZK_OK) {
        pe->state = CZK__PE_COLD;
        pe->bytes = 0;
    } else {
        pe->bytes = czk__params_size(pe);
        e->params_bytes += pe->bytes;
        pe->state = CZK__PE_LOADED;
        pe->load_ms = dt / 1000u;
        pe->loads++;
        pe->last_used_ms = czk_unix_ms();
        czk__hist_add(&e->hist[CZK__ST_PARAMS], (double)dt / 1e6);
    }
    pthread_cond_broadcast(&e->cv_work);
    pthread_mutex_unlock(&e->mu);
    if (load_ms) *load_ms = dt / 1000u;
    return st;
}

czk_status czk_engine_evict(czk_engine *e, const char *circuit_id, bool *was_loaded,
                            uint64_t *freed_bytes, czk_err *err)
{
    if (was_loaded) *was_loaded = false;
    if (freed_bytes) *freed_bytes = 0;
    if (circuit_id == NULL) return czk_err_set(err, CZK_EINVAL, "circuit_id: NULL");
    pthread_mutex_lock(&e->mu);
    czk_status st = CZK_OK;
    for (czk__params *pe = e->params; pe != NULL; pe = pe->next) {
        if (strcmp(pe->id, circuit_id) != 0) continue;
        if (pe->state == CZK__PE_LOADING || (pe->state == CZK__PE_LOADED && pe->refs > 0)) {
            st = czk_err_set(err, CZK_EBUSY, "%s is in use by %u job(s)", circuit_id, pe->refs);
            break;
        }
        if (pe->state == CZK__PE_LOADED) {
            if (was_loaded) *was_loaded = true;
            if (freed_bytes) *freed_bytes = pe->bytes;
            e->params_bytes -= pe->bytes;
            pe->bytes = 0;
            pe->evictions++;
            czk__params_unload(pe);
            pthread_cond_broadcast(&e->cv_work);
        }
        break;
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

/* ------------------------------------------------------------------------------------ */
/* Test hooks                                                                           */
/* ------------------------------------------------------------------------------------ */

void czk__engine_crash(czk_engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->crashed = true;
    pthread_mutex_unlock(&e->mu);
    stop_threads(e);
    e->closed = true;
    czk_engine_destroy(e);
}

void czk__engine_pause_provers(czk_engine *e, bool pause)
{
    pthread_mutex_lock(&e->mu);
    e->pause_provers = pause;
    pthread_cond_broadcast(&e->cv_prove);
    pthread_mutex_unlock(&e->mu);
}

void czk__engine_fail_next_gpu_proofs_oom(czk_engine *e, uint64_t n)
{
    __atomic_store_n(&e->fail_gpu_oom_count, n, __ATOMIC_RELAXED);
}

void czk__engine_fail_next_verifications(czk_engine *e, uint64_t n)
{
    pthread_mutex_lock(&e->mu);
    e->fail_verify_count = n;
    pthread_mutex_unlock(&e->mu);
}

void czk__engine_pinned_fault(czk_engine *e, bool on)
{
    pthread_mutex_lock(&e->pinned.mu);
    e->pinned.fault_bytes = on ? 1 : 0;
    pthread_mutex_unlock(&e->pinned.mu);
}

void czk__engine_pinned_stats(czk_engine *e, czk__pinned_stats *out)
{
    czk__pinned_get_stats(&e->pinned, out);
}
