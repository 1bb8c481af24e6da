/*
 * The finalizer: it self-verifies every proved partition, sends one whose proof failed
 * back to the synthesis queue once and fails its job the second time, and assembles the
 * job's proof once every partition verified. Its thread also drops, once a second, the
 * jobs whose retention has passed (czk__job_gc).
 */
#include "czk/alloc.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

#include <string.h>

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
