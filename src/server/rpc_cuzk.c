/*
 * The cuzk.v1.ProvingEngine handlers, the API czkd shares with cuzk (SubmitProof,
 * AwaitProof, Prove, CancelProof, GetStatus, GetMetrics, PreloadSRS, EvictSRS), and the
 * bodies czk.v1's handlers reuse: cancel, preload, evict and the engine's status as
 * cuzk.v1's GetStatusResponse.
 */
#include "server_internal.h"

#include "czk/alloc.h"

#include <stdio.h>
#include <string.h>

void czk__cuzk_submit_proof(czk__rpc *r, ProtobufCMessage *m)
{
    Cuzk__V1__SubmitProofRequest *p = (Cuzk__V1__SubmitProofRequest *)m;
    czk__rpc_note_request_id(r, p->request_id);
    if (p->proof_kind < 1 || p->proof_kind > 4) {
        char msg[128];
        snprintf(msg, sizeof msg, "proof_kind: %d is not POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE, "
                                  "WINDOW_POST_PARTITION or WINNING_POST", (int)p->proof_kind);
        czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, msg, NULL);
        return;
    }
    czk_job_request q;
    memset(&q, 0, sizeof q);
    const uint8_t **ptrs = czk_calloc(p->n_vanilla_proofs + 1, sizeof *ptrs);
    size_t *lens = czk_calloc(p->n_vanilla_proofs + 1, sizeof *lens);
    czk_err err;
    czk_err_clear(&err);
    if (!ptrs || !lens) {
        czk__rpc_reply(r, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
        goto out;
    }
    czk__rpc_note_request_id(r, p->request_id);
    q.request_id = p->request_id;
    q.kind = (czk_job_kind)p->proof_kind;
    q.priority = (czk_job_priority)p->priority;
    czk__jobs_fil_request(&q, p, ptrs, lens, &err);
    czk_job_info info;
    czk_status st = czk__jobs_submit(r, &q, &info, &err);
    if (st != CZK_OK) {
        czk__rpc_reply_err(r, st, &err);
        goto out;
    }
    if (r->midx == 2) { /* Prove: now wait for it */
        char id[CZK_JOB_ID_MAX];
        snprintf(id, sizeof id, "%s", info.job_id);
        czk_job_info_clear(&info);
        czk__await_start(r, id, 0);
        goto out;
    }
    Cuzk__V1__SubmitProofResponse resp = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
    resp.job_id = info.job_id;
    resp.queue_position = info.queue_position;
    resp.assigned_gpu = info.assigned_gpu;
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &resp.base);
    czk_job_info_clear(&info);
out:
    czk_free(ptrs);
    czk_free(lens);
}

void czk__cuzk_await_proof(czk__rpc *r, ProtobufCMessage *m)
{
    Cuzk__V1__AwaitProofRequest *a = (Cuzk__V1__AwaitProofRequest *)m;
    czk__await_start(r, a->job_id, a->timeout_ms);
}

void czk__cuzk_prove(czk__rpc *r, ProtobufCMessage *m)
{
    Cuzk__V1__ProveRequest *p = (Cuzk__V1__ProveRequest *)m;
    if (!p->submit) {
        czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, "submit: missing", NULL);
        return;
    }
    czk__cuzk_submit_proof(r, &p->submit->base);
}

czk_status czk__cuzk_cancel(czk__rpc *r, const char *job_id, bool *was_running)
{
    czk__rpc_note_job(r, job_id);
    czk_err err;
    czk_status st = czk_engine_cancel(r->srv->engine, job_id, was_running, &err);
    if (st != CZK_OK) czk__rpc_reply_job_err(r, st, &err, job_id);
    return st;
}

void czk__cuzk_cancel_proof(czk__rpc *r, ProtobufCMessage *m)
{
    Cuzk__V1__CancelProofRequest *c = (Cuzk__V1__CancelProofRequest *)m;
    bool was_running = false;
    if (czk__cuzk_cancel(r, c->job_id, &was_running) != CZK_OK) return;
    Cuzk__V1__CancelProofResponse resp = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
    resp.was_running = was_running;
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &resp.base);
}

static const char *const queue_kind_names[5] = {"porep", "snap", "wpost", "winning", "circom"};

/*
 * cuzk_view: the answer of cuzk.v1's GetStatus, which carries only what cuzk's clients
 * understand: the four Filecoin queues (Curio's HasCapacity adds up every queue it gets
 * against MaxPending, so a circom queue would count as Curio's work) and no circom
 * parameter sets. czk.v1's GetStatus has them all.
 */
bool czk__cuzk_fill_status(Cuzk__V1__GetStatusResponse *o, const czk_engine_status *st,
                           czk__status_mem *mem, bool cuzk_view)
{
    memset(mem, 0, sizeof *mem);
    mem->gpus = czk_calloc(st->ngpus + 1, sizeof *mem->gpus);
    mem->gpu_ptrs = czk_calloc(st->ngpus + 1, sizeof *mem->gpu_ptrs);
    mem->srs = czk_calloc(st->nsrs + 1, sizeof *mem->srs);
    mem->srs_ptrs = czk_calloc(st->nsrs + 1, sizeof *mem->srs_ptrs);
    if (!mem->gpus || !mem->gpu_ptrs || !mem->srs || !mem->srs_ptrs) return false;
    for (size_t i = 0; i < st->ngpus; i++) {
        Cuzk__V1__GPUStatus *g = &mem->gpus[i];
        cuzk__v1__gpustatus__init(g);
        g->ordinal = (uint32_t)st->gpus[i].ordinal;
        g->name = CZK__S(st->gpus[i].name);
        g->vram_total_bytes = st->gpus[i].vram_total;
        g->vram_free_bytes = st->gpus[i].vram_free;
        g->current_job_id = CZK__S(st->gpus[i].current_job_id);
        g->current_proof_kind = CZK__S(st->gpus[i].current_kind);
        mem->gpu_ptrs[i] = g;
    }
    size_t nsrs = 0;
    for (size_t i = 0; i < st->nsrs; i++) {
        if (cuzk_view && strncmp(st->srs[i].circuit_id, "circom:", 7) == 0) continue;
        Cuzk__V1__SRSStatus *x = &mem->srs[nsrs];
        cuzk__v1__srsstatus__init(x);
        x->circuit_id = CZK__S(st->srs[i].circuit_id);
        x->tier = (Cuzk__V1__SRSStatus__Tier)st->srs[i].tier;
        x->size_bytes = st->srs[i].size_bytes;
        x->ref_count = st->srs[i].ref_count;
        mem->srs_ptrs[nsrs++] = x;
    }
    size_t nq = 0;
    for (size_t i = 0; i < 5; i++) {
        if (cuzk_view && st->queues[i].kind == CZK_JOB_CIRCOM) continue;
        Cuzk__V1__QueueStatus *q = &mem->queues[nq];
        cuzk__v1__queue_status__init(q);
        const char *name = czk_job_kind_name(st->queues[i].kind);
        q->proof_kind = CZK__S(name && *name ? name : queue_kind_names[i]);
        q->pending = st->queues[i].pending;
        q->in_progress = st->queues[i].in_progress;
        mem->queue_ptrs[nq++] = q;
    }
    o->n_gpus = st->ngpus;
    o->gpus = mem->gpu_ptrs;
    o->n_loaded_srs = nsrs;
    o->loaded_srs = mem->srs_ptrs;
    o->n_queues = nq;
    o->queues = mem->queue_ptrs;
    o->total_proofs_completed = st->completed;
    o->total_proofs_failed = st->failed;
    o->uptime_seconds = st->uptime_s;
    o->pinned_memory_bytes = st->pinned_bytes;
    o->pinned_memory_limit_bytes = st->pinned_limit;
    return true;
}

void czk__cuzk_free_status_mem(czk__status_mem *mem)
{
    czk_free(mem->gpus);
    czk_free(mem->gpu_ptrs);
    czk_free(mem->srs);
    czk_free(mem->srs_ptrs);
}

void czk__cuzk_get_status(czk__rpc *r, ProtobufCMessage *m)
{
    (void)m;
    czk_engine_status st;
    czk_err err;
    czk_status s = czk_engine_get_status(r->srv->engine, &st, &err);
    if (s != CZK_OK) {
        czk__rpc_reply_err(r, s, &err);
        return;
    }
    Cuzk__V1__GetStatusResponse o = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    czk__status_mem mem;
    if (!czk__cuzk_fill_status(&o, &st, &mem, true))
        czk__rpc_reply(r, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
    else czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &o.base);
    czk__cuzk_free_status_mem(&mem);
    czk_engine_status_clear(&st);
}

void czk__cuzk_get_metrics(czk__rpc *r, ProtobufCMessage *m)
{
    (void)m;
    char *text = czk__server_all_metrics(r->srv);
    Cuzk__V1__GetMetricsResponse o = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    o.prometheus_text = text ? text : CZK__S("");
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &o.base);
    czk_free(text);
}

void czk__cuzk_preload(czk__rpc *r, const char *circuit_id)
{
    if (!*circuit_id) {
        czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, "circuit_id: empty", NULL);
        return;
    }
    bool already = false;
    uint64_t ms = 0;
    czk_err err;
    czk_status st = czk_engine_preload(r->srv->engine, circuit_id, &already, &ms, &err);
    if (st != CZK_OK) {
        czk__rpc_reply_err(r, st, &err);
        return;
    }
    Cuzk__V1__PreloadSrsResponse o = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
    o.already_loaded = already;
    o.load_time_ms = ms;
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &o.base);
}

void czk__cuzk_evict(czk__rpc *r, const char *circuit_id)
{
    if (!*circuit_id) {
        czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, "circuit_id: empty", NULL);
        return;
    }
    bool was = false;
    uint64_t freed = 0;
    czk_err err;
    czk_status st = czk_engine_evict(r->srv->engine, circuit_id, &was, &freed, &err);
    if (st != CZK_OK) {
        czk__rpc_reply_err(r, st, &err);
        return;
    }
    Cuzk__V1__EvictSrsResponse o = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
    o.was_loaded = was;
    o.freed_bytes = freed;
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &o.base);
}

void czk__cuzk_preload_srs(czk__rpc *r, ProtobufCMessage *m)
{
    czk__cuzk_preload(r, ((Cuzk__V1__PreloadSrsRequest *)m)->circuit_id);
}

void czk__cuzk_evict_srs(czk__rpc *r, ProtobufCMessage *m)
{
    czk__cuzk_evict(r, ((Cuzk__V1__EvictSrsRequest *)m)->circuit_id);
}
