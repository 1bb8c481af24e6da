/*
 * What the engine tells the outside: names, the status structure, the /status JSON
 * (jansson) and the Prometheus text. All three read the same counters under the engine
 * lock, so they agree with each other.
 */
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/strbuf.h"
#include "engine/engine_internal.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <string.h>

/* Latency buckets, seconds: from a WinningPoSt's tens of milliseconds to a cold
 * 32 GiB parameter load of minutes. */
const double czk__hist_bounds[CZK__HIST_BUCKETS] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                     1,     2.5,  5,     10,   30,  60,   300};
const char *const czk__stage_names[CZK__ST_COUNT] = {"queue",     "param_load", "synthesis",
                                                     "gpu",       "finalize",   "total"};

void czk__hist_add(czk__hist *h, double seconds)
{
    for (int i = 0; i < CZK__HIST_BUCKETS; i++)
        if (seconds <= czk__hist_bounds[i]) {
            h->bucket[i]++;
            break;
        }
    h->count++;
    h->sum += seconds;
}

const char *czk_job_kind_name(czk_job_kind k)
{
    switch (k) {
    case CZK_JOB_POREP: return "porep";
    case CZK_JOB_SNAP: return "snap";
    case CZK_JOB_WPOST: return "wpost";
    case CZK_JOB_WINNING: return "winning";
    case CZK_JOB_CIRCOM: return "circom";
    }
    return "unknown";
}

const char *czk_job_state_name(czk_job_state s)
{
    switch (s) {
    case CZK_JOB_QUEUED: return "queued";
    case CZK_JOB_RUNNING: return "running";
    case CZK_JOB_DONE: return "done";
    case CZK_JOB_FAILED: return "failed";
    case CZK_JOB_CANCELLED: return "cancelled";
    }
    return "unknown";
}

const char *czk_job_event_name(czk_job_event_type t)
{
    switch (t) {
    case CZK_EV_QUEUED: return "queued";
    case CZK_EV_PARTITION_SYNTH_START: return "partition_synth_start";
    case CZK_EV_PARTITION_SYNTHESIZED: return "partition_synthesized";
    case CZK_EV_GPU_START: return "gpu_start";
    case CZK_EV_GPU_END: return "gpu_end";
    case CZK_EV_VERIFIED: return "verified";
    case CZK_EV_DONE: return "done";
    case CZK_EV_FAILED: return "failed";
    case CZK_EV_CANCELLED: return "cancelled";
    case CZK_EV_PARAMS_LOADING: return "params_loading";
    case CZK_EV_PARAMS_LOADED: return "params_loaded";
    }
    return "unknown";
}

static const czk_job_kind kinds[5] = {CZK_JOB_POREP, CZK_JOB_SNAP, CZK_JOB_WPOST, CZK_JOB_WINNING,
                                      CZK_JOB_CIRCOM};

/* Queue depths by kind: pending = queued jobs, in_progress = running (mu held). */
static void queue_counts(czk_engine *e, czk_engine_queue_status q[5])
{
    for (int k = 0; k < 5; k++) {
        q[k].kind = kinds[k];
        q[k].pending = (uint32_t)e->by_kind_state[k][CZK_JOB_QUEUED];
        q[k].in_progress = (uint32_t)e->by_kind_state[k][CZK_JOB_RUNNING];
    }
}

czk_status czk_engine_get_status(czk_engine *e, czk_engine_status *out, czk_err *err)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    size_t nsrs = 0;
    for (czk__params *pe = e->params; pe != NULL; pe = pe->next) nsrs++;
    out->srs = nsrs ? czk_calloc(nsrs, sizeof *out->srs) : NULL;
    out->gpus = e->ngpus ? czk_calloc(e->ngpus, sizeof *out->gpus) : NULL;
    if ((nsrs && out->srs == NULL) || (e->ngpus && out->gpus == NULL)) {
        pthread_mutex_unlock(&e->mu);
        czk_engine_status_clear(out);
        return czk_err_set(err, CZK_ENOMEM, "out of memory");
    }
    size_t i = 0;
    for (czk__params *pe = e->params; pe != NULL; pe = pe->next, i++) {
        czk_engine_srs_status *s = &out->srs[i];
        snprintf(s->circuit_id, sizeof s->circuit_id, "%s", pe->id);
        /* cuzk's tiers: HOT ready to prove, WARM in host memory but not where the prover
         * reads it (the GPU), COLD on disk only. The CPU back end proves from host memory,
         * so there a loaded set is HOT. */
        bool on_gpu = false;
        for (int g = 0; g < CZK_GPU_MAX; g++) on_gpu = on_gpu || pe->gpu_srs[g] != NULL;
        s->tier = pe->state != CZK__PE_LOADED ? 2 : on_gpu || !e->use_gpu ? 0 : 1;
        s->size_bytes = pe->bytes;
        s->ref_count = pe->refs;
        s->load_ms = pe->load_ms;
        if (pe->state == CZK__PE_LOADED) {
            s->host_bytes = czk__params_size(pe);
            s->pinned_bytes = pe->tail_pinned ? pe->tail_len : 0;
        }
        s->ngpus = e->ngpus < CZK_ENGINE_MAX_GPUS ? e->ngpus : CZK_ENGINE_MAX_GPUS;
        for (size_t g = 0; g < s->ngpus; g++) {
            czk_engine_srs_gpu *sg = &s->gpus[g];
            sg->ordinal = e->gpu_ordinals[g];
            if (pe->state != CZK__PE_LOADED) continue;
            sg->resident_bytes = czk__params_gpu_resident(pe, g);
            if (pe->planned) {
                sg->streamed_bytes = pe->plan[g].streamed_bytes;
                sg->budget_bytes = pe->plan[g].budget;
                czk_gpu_plan_format(&pe->plan[g], &pe->pk, sg->plan, sizeof sg->plan);
            } else if (pe->gpu_srs[g] == NULL && czk__params_on_host(pe)) {
                sg->streamed_bytes = czk__params_size(pe);
            }
        }
    }
    out->nsrs = nsrs;
    for (size_t g = 0; g < e->ngpus; g++) {
        czk_engine_gpu_status *gs = &out->gpus[g];
        gs->ordinal = e->gpu_ordinals[g];
        for (unsigned w = 0; w < e->n_prove_workers; w++) {
            czk__prover *pv = &e->provers[w];
            if (pv->gpu != gs->ordinal) continue;
            gs->busy_seconds += pv->busy_s;
            if (pv->current_job[0] && !gs->current_job_id[0]) {
                snprintf(gs->current_job_id, sizeof gs->current_job_id, "%s", pv->current_job);
                snprintf(gs->current_kind, sizeof gs->current_kind, "%s", pv->current_kind);
            }
        }
    }
    out->ngpus = e->ngpus;
    queue_counts(e, out->queues);
    out->completed = e->completed;
    out->failed = e->failed;
    out->cancelled = e->cancelled;
    out->uptime_s = (czk_clock_us() - e->t_start) / 1000000u;
    czk__pinned_stats ps;
    czk__pinned_get_stats(&e->pinned, &ps);
    out->pinned_bytes = ps.total_bytes;
    out->pinned_in_use = ps.total_bytes - ps.free_bytes;
    out->pinned_limit = e->pinned.limit;
    out->budget_total = e->budget_total;
    out->budget_used = czk__budget_used(e);
    out->draining = e->draining;
    /* A journal found damaged while running refuses every submission: not ready. */
    czk__journal_health jh;
    memset(&jh, 0, sizeof jh);
    if (e->journal != NULL) czk__journal_health_get(e->journal, &jh);
    out->ready = !e->draining && !e->stopping && e->journal != NULL && !jh.damaged_now;
    snprintf(out->backend, sizeof out->backend, "%s", e->use_gpu ? "gpu" : "cpu");
    pthread_mutex_unlock(&e->mu);
    /* Device properties outside the lock: the driver call may be slow. */
    for (size_t g = 0; g < out->ngpus; g++) {
        czk_gpu_info gi;
        if (czk_gpu_get_info(out->gpus[g].ordinal, &gi, NULL) == CZK_OK) {
            snprintf(out->gpus[g].name, sizeof out->gpus[g].name, "%.95s", gi.name);
            out->gpus[g].vram_total = gi.total_mem;
            out->gpus[g].vram_free = gi.free_mem;
        }
    }
    return CZK_OK;
}

void czk_engine_status_clear(czk_engine_status *st)
{
    if (st == NULL) return;
    czk_free(st->gpus);
    czk_free(st->srs);
    st->gpus = NULL;
    st->srs = NULL;
    st->ngpus = st->nsrs = 0;
}

static const char *part_state_name(czk__part_state s)
{
    static const char *const n[] = {"pending", "synthesizing", "synth_done", "proving",
                                    "verifying", "done", "dropped"};
    return (unsigned)s < 7 ? n[s] : "unknown";
}

char *czk_engine_status_json(czk_engine *e)
{
    czk_engine_status st;
    if (czk_engine_get_status(e, &st, NULL) != CZK_OK) return NULL;
    json_t *root = json_object();
    json_object_set_new(root, "backend", json_string(st.backend));
    json_object_set_new(root, "ready", json_boolean(st.ready));
    json_object_set_new(root, "draining", json_boolean(st.draining));
    json_object_set_new(root, "uptime_s", json_integer((json_int_t)st.uptime_s));
    json_t *mem = json_object();
    json_object_set_new(mem, "budget_total", json_integer((json_int_t)st.budget_total));
    json_object_set_new(mem, "budget_used", json_integer((json_int_t)st.budget_used));
    json_object_set_new(mem, "pinned_bytes", json_integer((json_int_t)st.pinned_bytes));
    json_object_set_new(mem, "pinned_in_use", json_integer((json_int_t)st.pinned_in_use));
    json_object_set_new(mem, "pinned_limit", json_integer((json_int_t)st.pinned_limit));
    json_object_set_new(root, "memory", mem);
    json_t *counters = json_object();
    json_object_set_new(counters, "completed", json_integer((json_int_t)st.completed));
    json_object_set_new(counters, "failed", json_integer((json_int_t)st.failed));
    json_object_set_new(counters, "cancelled", json_integer((json_int_t)st.cancelled));
    json_object_set_new(root, "counters", counters);
    json_t *queues = json_array();
    for (int k = 0; k < 5; k++) {
        json_t *q = json_object();
        json_object_set_new(q, "kind", json_string(czk_job_kind_name(st.queues[k].kind)));
        json_object_set_new(q, "pending", json_integer(st.queues[k].pending));
        json_object_set_new(q, "in_progress", json_integer(st.queues[k].in_progress));
        json_array_append_new(queues, q);
    }
    json_object_set_new(root, "queues", queues);
    json_t *srs = json_array();
    for (size_t i = 0; i < st.nsrs; i++) {
        json_t *s = json_object();
        json_object_set_new(s, "circuit_id", json_string(st.srs[i].circuit_id));
        json_object_set_new(s, "tier", json_string(st.srs[i].tier == 0   ? "hot"
                                                   : st.srs[i].tier == 1 ? "warm"
                                                                         : "cold"));
        json_object_set_new(s, "bytes", json_integer((json_int_t)st.srs[i].size_bytes));
        json_object_set_new(s, "ref_count", json_integer(st.srs[i].ref_count));
        json_object_set_new(s, "host_bytes", json_integer((json_int_t)st.srs[i].host_bytes));
        json_object_set_new(s, "pinned_bytes", json_integer((json_int_t)st.srs[i].pinned_bytes));
        json_object_set_new(s, "load_ms", json_integer((json_int_t)st.srs[i].load_ms));
        json_t *pg = json_array();
        for (size_t g = 0; g < st.srs[i].ngpus; g++) {
            const czk_engine_srs_gpu *sg = &st.srs[i].gpus[g];
            json_t *o = json_object();
            json_object_set_new(o, "gpu", json_integer(sg->ordinal));
            json_object_set_new(o, "resident_bytes", json_integer((json_int_t)sg->resident_bytes));
            json_object_set_new(o, "streamed_bytes", json_integer((json_int_t)sg->streamed_bytes));
            json_object_set_new(o, "budget_bytes", json_integer((json_int_t)sg->budget_bytes));
            json_object_set_new(o, "plan", json_string(sg->plan));
            json_array_append_new(pg, o);
        }
        json_object_set_new(s, "gpus", pg);
        json_array_append_new(srs, s);
    }
    json_object_set_new(root, "parameters", srs);
    json_t *gpus = json_array();
    for (size_t i = 0; i < st.ngpus; i++) {
        json_t *g = json_object();
        json_object_set_new(g, "ordinal", json_integer(st.gpus[i].ordinal));
        json_object_set_new(g, "name", json_string(st.gpus[i].name));
        json_object_set_new(g, "busy_seconds", json_real(st.gpus[i].busy_seconds));
        json_object_set_new(g, "current_job", json_string(st.gpus[i].current_job_id));
        json_array_append_new(gpus, g);
    }
    json_object_set_new(root, "gpus", gpus);
    czk_engine_status_clear(&st);

    /* Live jobs with their partitions. */
    json_t *jobs = json_array();
    pthread_mutex_lock(&e->mu);
    for (czk__job *j = e->jobs; j != NULL; j = j->next) {
        if (j->state != CZK_JOB_QUEUED && j->state != CZK_JOB_RUNNING) continue;
        json_t *jo = json_object();
        json_object_set_new(jo, "job_id", json_string(j->id));
        json_object_set_new(jo, "kind", json_string(czk_job_kind_name(j->kind)));
        json_object_set_new(jo, "state", json_string(czk_job_state_name(j->state)));
        json_object_set_new(jo, "circuit_id", json_string(j->circuit_id));
        json_object_set_new(jo, "priority", json_integer(j->prio));
        json_object_set_new(jo, "age_ms", json_integer((json_int_t)((czk_clock_us() - j->t_submit) / 1000u)));
        json_t *parts = json_array();
        for (uint32_t i = 0; j->parts != NULL && i < j->nparts; i++) {
            const czk__part *p = &j->parts[i];
            json_t *po = json_object();
            json_object_set_new(po, "index", json_integer(i));
            json_object_set_new(po, "state", json_string(part_state_name(p->state)));
            if (p->t_synth_end > p->t_synth_start)
                json_object_set_new(po, "synth_ms", json_integer((json_int_t)((p->t_synth_end - p->t_synth_start) / 1000u)));
            if (p->t_prove_end > p->t_prove_start)
                json_object_set_new(po, "gpu_ms", json_integer((json_int_t)((p->t_prove_end - p->t_prove_start) / 1000u)));
            if (p->worker[0]) json_object_set_new(po, "worker", json_string(p->worker));
            json_array_append_new(parts, po);
        }
        json_object_set_new(jo, "partitions", parts);
        json_array_append_new(jobs, jo);
    }
    pthread_mutex_unlock(&e->mu);
    json_object_set_new(root, "jobs", jobs);
    char *s = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    if (s == NULL) return NULL;
    /* jansson allocates with its own allocator: hand back czk_malloc'd memory. */
    size_t n = strlen(s) + 1;
    char *out = czk_malloc(n);
    if (out != NULL) memcpy(out, s, n);
    free(s);
    return out;
}

char *czk_engine_metrics_text(czk_engine *e)
{
    czk_sbuf t = {0};
    czk__pinned_stats ps;
    czk__pinned_get_stats(&e->pinned, &ps);
    pthread_mutex_lock(&e->mu);
    czk_sbuf_printf(&t, "# HELP czk_jobs Jobs in the table by kind and state.\n# TYPE czk_jobs gauge\n");
    for (int k = 0; k < 5; k++)
        for (int s = 0; s < 5; s++)
            czk_sbuf_printf(&t, "czk_jobs{kind=\"%s\",state=\"%s\"} %" PRIu64 "\n",
                    czk_job_kind_name(kinds[k]), czk_job_state_name((czk_job_state)s),
                    e->by_kind_state[k][s]);
    czk_sbuf_printf(&t, "# HELP czk_jobs_completed_total Jobs finished with a verified proof.\n"
                "# TYPE czk_jobs_completed_total counter\nczk_jobs_completed_total %" PRIu64 "\n",
            e->completed);
    czk_sbuf_printf(&t, "# TYPE czk_jobs_failed_total counter\nczk_jobs_failed_total %" PRIu64 "\n",
            e->failed);
    czk_sbuf_printf(&t, "# TYPE czk_jobs_cancelled_total counter\nczk_jobs_cancelled_total %" PRIu64 "\n",
            e->cancelled);
    czk_sbuf_printf(&t, "# HELP czk_queue_depth Partitions waiting, by stage.\n# TYPE czk_queue_depth gauge\n"
                "czk_queue_depth{stage=\"synthesis\"} %zu\nczk_queue_depth{stage=\"prove\"} %zu\n"
                "czk_queue_depth{stage=\"finalize\"} %zu\n",
            e->n_synth_q, e->n_prove_q, e->n_fin_q);
    czk_sbuf_printf(&t, "# HELP czk_stage_seconds Latency of each stage.\n# TYPE czk_stage_seconds histogram\n");
    for (int s = 0; s < CZK__ST_COUNT; s++) {
        const czk__hist *h = &e->hist[s];
        uint64_t cum = 0;
        for (int b = 0; b < CZK__HIST_BUCKETS; b++) {
            cum += h->bucket[b];
            czk_sbuf_printf(&t, "czk_stage_seconds_bucket{stage=\"%s\",le=\"%g\"} %" PRIu64 "\n",
                    czk__stage_names[s], czk__hist_bounds[b], cum);
        }
        czk_sbuf_printf(&t, "czk_stage_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %" PRIu64 "\n",
                czk__stage_names[s], h->count);
        czk_sbuf_printf(&t, "czk_stage_seconds_sum{stage=\"%s\"} %.6f\n", czk__stage_names[s], h->sum);
        czk_sbuf_printf(&t, "czk_stage_seconds_count{stage=\"%s\"} %" PRIu64 "\n", czk__stage_names[s],
                h->count);
    }
    czk_sbuf_printf(&t, "# HELP czk_prover_busy_seconds_total Time each prover spent proving.\n"
                "# TYPE czk_prover_busy_seconds_total counter\n");
    for (unsigned w = 0; w < e->n_prove_workers; w++)
        czk_sbuf_printf(&t, "czk_prover_busy_seconds_total{prover=\"%s\",worker=\"%u\"} %.6f\n",
                e->provers[w].name, w, e->provers[w].busy_s);
    czk_sbuf_printf(&t, "# HELP czk_h2d_bytes_total Bytes copied host to device by the GPU provers.\n"
                "# TYPE czk_h2d_bytes_total counter\nczk_h2d_bytes_total %" PRIu64 "\n",
            __atomic_load_n(&e->h2d_bytes, __ATOMIC_RELAXED));
    czk_sbuf_printf(&t, "# HELP czk_h2d_seconds_total Time of those copies (per proof, first copy's "
                "start to last copy's end).\n"
                "# TYPE czk_h2d_seconds_total counter\nczk_h2d_seconds_total %.6f\n",
            (double)__atomic_load_n(&e->h2d_us, __ATOMIC_RELAXED) / 1e6);
    czk_sbuf_printf(&t, "# HELP czk_gpu_device_seconds_total Time each GPU was held by a proof (its lock, "
                "not the wait for it; a proof hands the lock on once only its MSMs are left).\n"
                "# TYPE czk_gpu_device_seconds_total counter\n");
    for (size_t g = 0; g < e->ngpus; g++)
        czk_sbuf_printf(&t, "czk_gpu_device_seconds_total{gpu=\"%d\"} %.6f\n", e->gpu_ordinals[g],
                (double)__atomic_load_n(&e->gpu_device_us[g], __ATOMIC_RELAXED) / 1e6);
    czk_sbuf_printf(&t, "# HELP czk_gpu_partitions_total Partitions each GPU proved.\n"
                "# TYPE czk_gpu_partitions_total counter\n");
    for (size_t g = 0; g < e->ngpus; g++)
        czk_sbuf_printf(&t, "czk_gpu_partitions_total{gpu=\"%d\"} %" PRIu64 "\n", e->gpu_ordinals[g],
                __atomic_load_n(&e->gpu_parts[g], __ATOMIC_RELAXED));
    czk_sbuf_printf(&t, "# TYPE czk_pinned_bytes gauge\nczk_pinned_bytes %" PRIu64 "\n", ps.total_bytes);
    czk_sbuf_printf(&t, "# TYPE czk_pinned_in_use_bytes gauge\nczk_pinned_in_use_bytes %" PRIu64 "\n",
            ps.total_bytes - ps.free_bytes);
    czk_sbuf_printf(&t, "# TYPE czk_pinned_allocations_total counter\nczk_pinned_allocations_total %" PRIu64 "\n",
            ps.allocations);
    czk_sbuf_printf(&t, "# TYPE czk_pinned_reuses_total counter\nczk_pinned_reuses_total %" PRIu64 "\n",
            ps.reuses);
    czk_sbuf_printf(&t, "# HELP czk_pinned_fallbacks_total Partitions that ran in ordinary memory.\n"
                "# TYPE czk_pinned_fallbacks_total counter\nczk_pinned_fallbacks_total %" PRIu64 "\n",
            ps.fallbacks);
    czk_sbuf_printf(&t, "# TYPE czk_budget_bytes gauge\nczk_budget_bytes %" PRIu64 "\n", e->budget_total);
    czk_sbuf_printf(&t, "# TYPE czk_budget_used_bytes gauge\nczk_budget_used_bytes %" PRIu64 "\n",
            e->reserved + e->params_bytes + ps.free_bytes);
    czk_sbuf_printf(&t, "# TYPE czk_param_cache_bytes gauge\nczk_param_cache_bytes %" PRIu64 "\n",
            e->params_bytes);
    czk_sbuf_printf(&t, "# HELP czk_params_host_bytes A loaded parameter set's points on the host "
                "(streamed parts when GPUs hold the rest).\n# TYPE czk_params_host_bytes gauge\n");
    for (const czk__params *pe = e->params; pe != NULL; pe = pe->next)
        if (pe->state == CZK__PE_LOADED)
            czk_sbuf_printf(&t, "czk_params_host_bytes{circuit=\"%s\"} %" PRIu64 "\n", pe->id,
                    czk__params_size(pe));
    czk_sbuf_printf(&t, "# HELP czk_params_pinned_bytes Of those, page-locked.\n"
                "# TYPE czk_params_pinned_bytes gauge\n");
    for (const czk__params *pe = e->params; pe != NULL; pe = pe->next)
        if (pe->state == CZK__PE_LOADED)
            czk_sbuf_printf(&t, "czk_params_pinned_bytes{circuit=\"%s\"} %" PRIu64 "\n", pe->id,
                    pe->tail_pinned ? (uint64_t)pe->tail_len : 0);
    czk_sbuf_printf(&t, "# HELP czk_params_load_seconds The last load of a parameter set.\n"
                "# TYPE czk_params_load_seconds gauge\n");
    for (const czk__params *pe = e->params; pe != NULL; pe = pe->next)
        if (pe->loads > 0)
            czk_sbuf_printf(&t, "czk_params_load_seconds{circuit=\"%s\"} %.3f\n", pe->id,
                    (double)pe->load_ms / 1e3);
    czk_sbuf_printf(&t, "# HELP czk_params_gpu_resident_bytes Bases a parameter set keeps on a GPU.\n"
                "# TYPE czk_params_gpu_resident_bytes gauge\n");
    for (const czk__params *pe = e->params; pe != NULL; pe = pe->next)
        if (pe->state == CZK__PE_LOADED)
            for (size_t g = 0; g < e->ngpus; g++)
                czk_sbuf_printf(&t, "czk_params_gpu_resident_bytes{circuit=\"%s\",gpu=\"%d\"} %" PRIu64
                            "\n", pe->id, e->gpu_ordinals[g], czk__params_gpu_resident(pe, g));
    czk_sbuf_printf(&t, "# HELP czk_params_gpu_streamed_bytes Bases a proof copies to a GPU from the "
                "host, at most.\n# TYPE czk_params_gpu_streamed_bytes gauge\n");
    for (const czk__params *pe = e->params; pe != NULL; pe = pe->next)
        if (pe->state == CZK__PE_LOADED && pe->planned)
            for (size_t g = 0; g < e->ngpus; g++)
                czk_sbuf_printf(&t, "czk_params_gpu_streamed_bytes{circuit=\"%s\",gpu=\"%d\"} %" PRIu64
                            "\n", pe->id, e->gpu_ordinals[g], pe->plan[g].streamed_bytes);
    czk_sbuf_printf(&t, "# HELP czk_gpu_memory_limit_bytes Device memory czk plans within on a GPU.\n"
                "# TYPE czk_gpu_memory_limit_bytes gauge\n");
    for (size_t g = 0; g < e->ngpus; g++)
        czk_sbuf_printf(&t, "czk_gpu_memory_limit_bytes{gpu=\"%d\"} %" PRIu64 "\n", e->gpu_ordinals[g],
                e->gpu_limit[g]);
    czk_sbuf_printf(&t, "# HELP czk_gpu_pool_bytes The GPU pool proofs' buffers and MSM scratch come "
                "from: in use, and held from the device.\n# TYPE czk_gpu_pool_bytes gauge\n");
    for (size_t g = 0; g < e->ngpus; g++) {
        czk_gpu_pool_usage pu;
        czk_gpu_pool_stats(e->gpu_ordinals[g], &pu, false);
        czk_sbuf_printf(&t, "czk_gpu_pool_bytes{gpu=\"%d\",state=\"used\"} %" PRIu64 "\n"
                    "czk_gpu_pool_bytes{gpu=\"%d\",state=\"reserved\"} %" PRIu64 "\n",
                e->gpu_ordinals[g], pu.used, e->gpu_ordinals[g], pu.reserved);
    }
    czk_sbuf_printf(&t, "# HELP czk_queued_payload_bytes Request payloads held by unfinished jobs.\n"
                "# TYPE czk_queued_payload_bytes gauge\nczk_queued_payload_bytes %" PRIu64 "\n",
            e->payload_bytes);
    czk_sbuf_printf(&t, "# HELP czk_verification_failures_total Proofs that failed self-verification.\n"
                "# TYPE czk_verification_failures_total counter\n"
                "czk_verification_failures_total %" PRIu64 "\n",
            e->verify_failures);
    czk_sbuf_printf(&t, "# TYPE czk_partition_retries_total counter\nczk_partition_retries_total %" PRIu64 "\n",
            e->retries);
    czk_sbuf_printf(&t, "# HELP czk_proofs_damaged_total Stored proofs that failed their checksum when "
                "read back (never served; the job or partition is proved again).\n"
                "# TYPE czk_proofs_damaged_total counter\nczk_proofs_damaged_total %" PRIu64 "\n",
            e->proofs_damaged);
    czk_sbuf_printf(&t, "# HELP czk_partitions_restored_total Partition proofs a drain kept, used after "
                "the restart instead of proving again.\n"
                "# TYPE czk_partitions_restored_total counter\n"
                "czk_partitions_restored_total %" PRIu64 "\n",
            e->parts_restored);
    czk__journal_health jh;
    memset(&jh, 0, sizeof jh);
    if (e->journal != NULL) czk__journal_health_get(e->journal, &jh);
    czk_sbuf_printf(&t, "# HELP czk_journal_damaged_total Times the journal was found damaged: at start "
                "(moved aside, its readable rows recovered) or by a write while running.\n"
                "# TYPE czk_journal_damaged_total counter\nczk_journal_damaged_total %" PRIu64 "\n"
                "# HELP czk_journal_damaged The open journal is damaged: submissions fail until "
                "a restart moves it aside.\n"
                "# TYPE czk_journal_damaged gauge\nczk_journal_damaged %d\n"
                "# HELP czk_journal_rows_recovered Rows copied from a damaged journal at this "
                "start.\n"
                "# TYPE czk_journal_rows_recovered gauge\nczk_journal_rows_recovered %zu\n"
                "# HELP czk_journal_rows_lost Rows of a damaged journal that could not be read at "
                "this start.\n"
                "# TYPE czk_journal_rows_lost gauge\nczk_journal_rows_lost %zu\n",
            jh.damage_events, jh.damaged_now ? 1 : 0, jh.rows_recovered, jh.rows_lost);
    czk_sbuf_printf(&t, "# TYPE czk_uptime_seconds gauge\nczk_uptime_seconds %" PRIu64 "\n",
            (czk_clock_us() - e->t_start) / 1000000u);
    pthread_mutex_unlock(&e->mu);
    return czk_sbuf_take(&t);
}
