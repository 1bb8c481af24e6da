/*
 * The synthesis workers: each admits the head of the synthesis queue (loading its
 * parameter set first when it is cold, then reserving its budget), synthesizes the
 * partition's witness and a/b/c into a checked-out buffer, packs them for the GPU, and
 * queues the partition for a prover.
 *
 * Admission also waits while 2 × (number of provers) synthesized partitions are already
 * waiting: synthesizing further ahead only holds memory no prover can use yet. One
 * partition larger than the whole budget still runs, alone (czk__budget_fit).
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/fil_job.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

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
    st = czk_wtns_decode(j->wtns, j->wtns_len, "vanilla_proof (.wtns)", p->z, nv, &n, err);
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
    /* The express lane's small partitions run on its own thread, at normal priority: its
     * latency is the point. */
    czk_pool *spool = express ? NULL : e->synth_pool;
    if (!express) czk_thread_lower_priority(e->synth_nice);
    int cancel = 0; /* czk__job_part_hold / czk__job_part_cancel */
    czk_pool_set_cancel(&cancel);
    for (;;) {
        if (e->stopping) break;
        size_t bi = e->draining ? SIZE_MAX
                    : express     ? czk__sched_best_express(e->synth_q, e->n_synth_q)
                                  : czk__sched_best_ordinary(e->synth_q, e->n_synth_q);
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
            czk__events_emit(e, j, CZK_EV_PARAMS_LOADING, -1, name, "%s", pe->path);
            e->busy_workers++;
            czk_err err;
            czk_err_clear(&err);
            uint64_t t0 = czk_clock_us();
            /* A load is not cancelled: test parameters made in memory write their .vk, which
             * must never come from a transform cut short. */
            czk_pool_set_cancel(NULL);
            czk_status st = czk__budget_load(e, pe, est, &err);
            czk_pool_set_cancel(&cancel);
            uint64_t dt = czk_clock_us() - t0;
            e->busy_workers--;
            czk__budget_load_ended(e, pe, st, dt);
            if (st != CZK_OK) {
                czk__job_end(e, j, CZK_JOB_FAILED, st, "%s", err.msg);
            } else {
                j->timings.srs_load_ms += dt / 1000u;
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
