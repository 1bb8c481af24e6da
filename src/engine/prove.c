/*
 * The prove workers: each takes the best synthesized partition of its lane and proves it,
 * on its GPU under that GPU's lock (with the GPU to itself when it ran out of memory, then
 * on the CPU if that fails too) or with the CPU back end, and hands it to the finalizer.
 */
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

#include <inttypes.h>
#include <string.h>

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
    /* An express proof of a planned set runs beside the proof that holds the GPU, on
     * streams of higher priority, instead of waiting up to a whole streamed call for it:
     * the set's plan, or the plans of the sets loaded after it, left room on the device
     * for one proof of every other set beside it (czk__budget_load). */
    const bool beside = pv->express && pe->planned;
    const uint64_t t_wait = czk_clock_us();
    if (beside)
        czk__sched_gpu_enter(&e->gpu_mu[g]);
    else
        czk__sched_gpu_lock(&e->gpu_mu[g], pv->express);
    const uint64_t t_locked = czk_clock_us();
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
    gpu_release rel = {&e->gpu_mu[g], beside, 0};
    czk_gpu_prove_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.on_compute = beside ? NULL : gpu_release_early;
    opts.on_compute_arg = beside ? NULL : &rel;
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
    if (beside) rel.t = t0; /* held nothing */
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
     * overlap); the wait for the lock and the whole call's time are in the note. */
    uint64_t dt = rel.t - t0;
    /* Where the device time went, in the gpu_end event (czk timeline and ops read it). */
    snprintf(p->prove_note, sizeof p->prove_note,
             "wait_s=%.3f held_s=%.3f call_s=%.3f overlap=%d%s packed=%d gpu_s=%.3f h2d_s=%.3f pinned=%d "
             "h2d_bytes=%" PRIu64 " ntt_s=%.3f "
             "msm_h_s=%.3f msm_l_s=%.3f msm_a_s=%.3f msm_b1_s=%.3f msm_b2_s=%.3f "
             "at_queued=%.3f at_h=%.3f at_handoff=%.3f at_msm_h=%.3f at_l=%.3f at_a=%.3f "
             "at_b1=%.3f at_b2=%.3f",
             (double)(t_locked - t_wait) / 1e6, (double)dt / 1e6, (double)(t1 - t0) / 1e6,
             stats.overlapped ? 1 : 0,
             retried ? " retried=1" : "", stats.packed_vectors, stats.gpu_s, stats.h2d_s, stats.host_pinned ? 1 : 0,
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
     * status call must not wait behind a 12 s proof), as synthesis is; its express prover
     * stays above them, on a pool of its own, so that a WinningPoSt takes the cores from
     * the proof in progress. A GPU prover's thread stays at normal priority: it feeds the
     * device. */
    if (pv->gpu < 0 && !pv->express) czk_thread_lower_priority(e->synth_nice);
    czk_pool *cpu_pool = pv->gpu < 0 && pv->express ? e->express_pool : e->pool;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (e->stopping) break;
        size_t bi = e->pause_provers || czk__engine_aborting(e) ? SIZE_MAX
                    : pv->express ? czk__sched_best_express(e->prove_q, e->n_prove_q)
                                  : czk__sched_best_ordinary(e->prove_q, e->n_prove_q);
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
            st = czk_groth16_prove(&p->proof, &pe->pk, &asg, NULL, NULL, cpu_pool, NULL, &err);
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
