/*
 * The engine's lifetime: czk_engine_create (configuration, each GPU's memory, the pools
 * and the threads), recovery of the journal's jobs, drain and abort, destroy; and the
 * test hooks.
 *
 * The proving engine as a whole (engine_internal.h says which file holds which part): job
 * table, priority scheduler with memory-budget admission, synthesis workers, prove
 * workers, the finalizer (self-verification), events, and restart recovery from the
 * journal.
 *
 * Flow of one partition: PENDING in the synthesis queue → a synthesis worker admits it
 * (parameters loaded, budget reserved — in strict priority order, because a worker only
 * ever takes the head of the queue and waits while the head does not fit) → SYNTH into a
 * checked-out pinned buffer → SYNTHESIZED in the prove queue (same order) → PROVING →
 * buffer checked in and budget released → PROVED in the finalizer's queue → verified →
 * DONE. A proof that does not verify sends its partition back to PENDING once; a second
 * failure fails the job. An invalid proof is never returned.
 */
#include "czk/alloc.h"
#include "czk/circuits.h"
#include "czk/gpu.h"
#include "czk/log.h"
#include "czk/post.h"
#include "czk/seal_proof.h"
#include "engine/engine_internal.h"

#include <inttypes.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------ */
/* Create / recover / drain / destroy                                                   */
/* ------------------------------------------------------------------------------------ */

#define GIB ((uint64_t)1 << 30)

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
        /* 2 % of what is free, not of the device: a card that another process mostly
         * holds is planned as a card of that size would be. */
        uint64_t margin = gi.free_mem / 50;
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
    /* The GPU layer's knobs before its first call, which applies spin_wait. */
    czk_gpu_tuning tuning;
    czk_gpu_get_tuning(&tuning);
    if (cfg.gpu_mode != 1) {
        tuning.spin_wait = cfg.gpu_spin_wait;
        czk_status tst = czk_gpu_set_tuning(&tuning, err);
        if (tst != CZK_OK) return tst;
    }
    czk_engine *e = czk_calloc(1, sizeof *e);
    if (e == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory");
    const char *pd = cfg.param_dir;
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
    if (ng > CZK_GPU_MAX) ng = CZK_GPU_MAX;
    e->ngpus = ng;
    e->use_gpu = ng > 0;
    e->gpu_pack = cfg.gpu_pack_copies;
    if (e->use_gpu) {
        char tb[256];
        czk_gpu_tuning_format(&tuning, tb, sizeof tb);
        CZK_LOG_INFO("gpu tuning", "%s", tb);
    }
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
    if (st == CZK_OK && !e->use_gpu)
        st = czk_pool_create_nice(&e->express_pool, cfg.synthesis_threads, 0, err);
    if (st != CZK_OK) goto fail;
    st = recover(e, err);
    if (st != CZK_OK) goto fail;

    /* CPU backend: one prover (it uses every core through the pool) and the express one
     * (on the express pool). GPU: per device, and one express prover per device. */
    unsigned per = cfg.gpu_workers_per_device ? cfg.gpu_workers_per_device : 2;
    e->n_express_prove_workers = e->use_gpu ? (unsigned)ng : 1;
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
    /* The workers share one pool of the synthesis threads (the callers count as threads),
     * so a partition synthesized alone, while the others wait for a buffer, runs on them
     * all. Synthesis is bulk work on every core; the threads that feed the GPUs (woken from
     * blocking waits between an MSM's phases, dozens of times a proof) must get a core at
     * once, or the device idles. With a spinning load on all 32 vCPUs of an H200 host the
     * pipelined partition took 1.270 s against 1.218 s unloaded, and 1.222 s with the
     * load at nice 19 (bench_gpu_prove --real --pipeline 10 --hog). */
    st = czk_pool_create_nice(&e->synth_pool,
                              cfg.synthesis_threads ? cfg.synthesis_threads : czk_cpu_count(),
                              e->synth_nice, err);
    if (st != CZK_OK) goto fail;
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
            snprintf(pv->name, sizeof pv->name, "cpu%s", pv->express ? "-express" : "");
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
    czk_pool_destroy(e->express_pool);
    czk_pool_destroy(e->synth_pool);
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

/* The drain's grace is over (or czk_engine_abort): results still arriving are dropped and
 * their jobs stay journaled as queued. */
bool czk__engine_aborting(const czk_engine *e)
{
    return __atomic_load_n(&e->abort, __ATOMIC_RELAXED) != 0;
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
    czk_pool_destroy(e->express_pool);
    czk_pool_destroy(e->synth_pool);
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
