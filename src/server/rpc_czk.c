/*
 * The czk.v1.Czk handlers: czk's own job API over the engine (Submit, Await, Prove,
 * Cancel, Forget, GetJob, ListJobs, GetStatus, Preload, Evict). Cancel, Preload, Evict and
 * the engine's half of GetStatus share their bodies with the cuzk.v1 handlers
 * (rpc_cuzk.c), GetMetrics is cuzk.v1's handler itself, and WatchJob is in rpc_await.c.
 */
#include "server_internal.h"

#include "czk/alloc.h"

#include <stdio.h>
#include <string.h>

/* Submits a czk.v1 request; on success *info is the new (or deduplicated) job. */
static bool czk_submit_common(czk__rpc *r, const Czk__V1__SubmitRequest *p, czk_job_info *info)
{
    czk_job_request q;
    memset(&q, 0, sizeof q);
    czk_err err;
    czk_err_clear(&err);
    czk__rpc_note_request_id(r, p->request_id);
    q.request_id = p->request_id;
    q.priority = (czk_job_priority)p->priority;
    const uint8_t **ptrs = NULL;
    size_t *lens = NULL;
    bool ok = false;
    switch ((int)p->kind) {
    case CZK_JOB_POREP:
    case CZK_JOB_SNAP:
    case CZK_JOB_WPOST:
    case CZK_JOB_WINNING: {
        q.kind = (czk_job_kind)p->kind;
        if (!p->filecoin) {
            czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, "filecoin: missing for a Filecoin kind", NULL);
            return false;
        }
        size_t n = p->filecoin->n_vanilla_proofs;
        ptrs = czk_calloc(n + 1, sizeof *ptrs);
        lens = czk_calloc(n + 1, sizeof *lens);
        if (!ptrs || !lens) {
            czk__rpc_reply(r, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
            goto out;
        }
        czk__jobs_fil_request(&q, p->filecoin, ptrs, lens, &err);
        break;
    }
    case CZK_JOB_CIRCOM:
        q.kind = CZK_JOB_CIRCOM;
        if (!*p->circuit) {
            czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, "circuit: empty (name of <param_dir>/NAME.zkey)", NULL);
            return false;
        }
        q.circuit = p->circuit;
        q.vanilla_proof = p->witness.data;
        q.vanilla_proof_len = p->witness.len;
        break;
    default: {
        char msg[128];
        snprintf(msg, sizeof msg, "kind: %d is not POREP, SNAP, WPOST, WINNING or CIRCOM", (int)p->kind);
        czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, msg, NULL);
        return false;
    }
    }
    czk_status st = czk__jobs_submit(r, &q, info, &err);
    if (st != CZK_OK) czk__rpc_reply_err(r, st, &err);
    else ok = true;
out:
    czk_free(ptrs);
    czk_free(lens);
    return ok;
}

void czk__czk_submit(czk__rpc *r, ProtobufCMessage *m)
{
    czk_job_info info;
    if (!czk_submit_common(r, (Czk__V1__SubmitRequest *)m, &info)) return;
    Czk__V1__SubmitResponse o = CZK__V1__SUBMIT_RESPONSE__INIT;
    Czk__V1__Job j = CZK__V1__JOB__INIT;
    Czk__V1__Timings t = CZK__V1__TIMINGS__INIT;
    czk__jobs_fill_job(&j, &t, &info, false);
    o.job = &j;
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &o.base);
    czk_job_info_clear(&info);
}

void czk__czk_await(czk__rpc *r, ProtobufCMessage *m)
{
    Czk__V1__AwaitRequest *a = (Czk__V1__AwaitRequest *)m;
    r->czk_api = true;
    r->omit_proof = a->omit_proof;
    czk__await_start(r, a->job_id, a->timeout_ms);
}

void czk__czk_prove(czk__rpc *r, ProtobufCMessage *m)
{
    Czk__V1__ProveRequest *p = (Czk__V1__ProveRequest *)m;
    if (!p->submit) {
        czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, "submit: missing", NULL);
        return;
    }
    czk_job_info info;
    if (!czk_submit_common(r, p->submit, &info)) return;
    r->czk_api = true;
    char id[CZK_JOB_ID_MAX];
    snprintf(id, sizeof id, "%s", info.job_id);
    czk_job_info_clear(&info);
    czk__await_start(r, id, p->timeout_ms);
}

void czk__czk_cancel(czk__rpc *r, ProtobufCMessage *m)
{
    Czk__V1__CancelRequest *c = (Czk__V1__CancelRequest *)m;
    bool was_running = false;
    if (czk__cuzk_cancel(r, c->job_id, &was_running) != CZK_OK) return;
    Czk__V1__CancelResponse o = CZK__V1__CANCEL_RESPONSE__INIT;
    o.was_running = was_running;
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &o.base);
}

void czk__czk_forget(czk__rpc *r, ProtobufCMessage *m)
{
    Czk__V1__ForgetRequest *f = (Czk__V1__ForgetRequest *)m;
    czk__rpc_note_job(r, f->job_id);
    bool was_running = false;
    czk_job_state state = CZK_JOB_QUEUED;
    czk_err err;
    czk_status st = czk_engine_forget(r->srv->engine, f->job_id, &was_running, &state, &err);
    if (st != CZK_OK) {
        czk__rpc_reply_job_err(r, st, &err, f->job_id);
        return;
    }
    Czk__V1__ForgetResponse o = CZK__V1__FORGET_RESPONSE__INIT;
    o.was_running = was_running;
    o.state = (Czk__V1__JobState)state;
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &o.base);
}

void czk__czk_get_job(czk__rpc *r, ProtobufCMessage *m)
{
    Czk__V1__GetJobRequest *g = (Czk__V1__GetJobRequest *)m;
    czk__rpc_note_job(r, g->job_id);
    czk_job_info info;
    czk_err err;
    czk_status st = czk_engine_get(r->srv->engine, g->job_id, g->with_proof, &info, &err);
    if (st != CZK_OK) {
        czk__rpc_reply_job_err(r, st, &err, g->job_id);
        return;
    }
    Czk__V1__Job j = CZK__V1__JOB__INIT;
    Czk__V1__Timings t = CZK__V1__TIMINGS__INIT;
    czk__jobs_fill_job(&j, &t, &info, g->with_proof);
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &j.base);
    czk_job_info_clear(&info);
}

void czk__czk_list(czk__rpc *r, ProtobufCMessage *m)
{
    Czk__V1__ListJobsRequest *l = (Czk__V1__ListJobsRequest *)m;
    unsigned mask = 0;
    for (size_t i = 0; i < l->n_states; i++) {
        if ((unsigned)l->states[i] > CZK_JOB_CANCELLED) {
            czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, "states: unknown JobState", NULL);
            return;
        }
        mask |= 1u << l->states[i];
    }
    czk_job_info *list = NULL;
    size_t n = 0;
    czk_err err;
    czk_status st = czk_engine_list(r->srv->engine, mask, l->limit, &list, &n, &err);
    if (st != CZK_OK) {
        czk__rpc_reply_err(r, st, &err);
        return;
    }
    Czk__V1__Job *jobs = czk_calloc(n + 1, sizeof *jobs);
    Czk__V1__Job **ptrs = czk_calloc(n + 1, sizeof *ptrs);
    Czk__V1__Timings *tms = czk_calloc(n + 1, sizeof *tms);
    if (!jobs || !ptrs || !tms) {
        czk__rpc_reply(r, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
    } else {
        for (size_t i = 0; i < n; i++) {
            czk__v1__job__init(&jobs[i]);
            czk__v1__timings__init(&tms[i]);
            czk__jobs_fill_job(&jobs[i], &tms[i], &list[i], false);
            ptrs[i] = &jobs[i];
        }
        Czk__V1__ListJobsResponse o = CZK__V1__LIST_JOBS_RESPONSE__INIT;
        o.n_jobs = n;
        o.jobs = ptrs;
        czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &o.base);
    }
    czk_free(jobs);
    czk_free(ptrs);
    czk_free(tms);
    czk_engine_list_free(list, n);
}

void czk__czk_status(czk__rpc *r, ProtobufCMessage *m)
{
    (void)m;
    czk_engine_status st;
    czk_err err;
    czk_status s = czk_engine_get_status(r->srv->engine, &st, &err);
    if (s != CZK_OK) {
        czk__rpc_reply_err(r, s, &err);
        return;
    }
    Cuzk__V1__GetStatusResponse e = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    Czk__V1__StatusResponse o = CZK__V1__STATUS_RESPONSE__INIT;
    czk__status_mem mem;
    if (!czk__cuzk_fill_status(&e, &st, &mem, false)) {
        czk__rpc_reply(r, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
    } else {
        o.engine = &e;
        o.ready = st.ready && !atomic_load(&r->srv->draining);
        o.draining = st.draining || atomic_load(&r->srv->draining);
        o.backend = st.backend;
        o.total_proofs_cancelled = st.cancelled;
        o.pinned_memory_in_use_bytes = st.pinned_in_use;
        o.memory_budget_bytes = st.budget_total;
        o.memory_budget_used_bytes = st.budget_used;
        o.version = CZK__S(czk_version());
        /* Each parameter set's memory, host and device (the engine's srs list). */
        size_t ngs = 0;
        for (size_t i = 0; i < st.nsrs; i++) ngs += st.srs[i].ngpus;
        Czk__V1__ParameterSet *ps = czk_calloc(st.nsrs + 1, sizeof *ps);
        Czk__V1__ParameterSet **pp = czk_calloc(st.nsrs + 1, sizeof *pp);
        Czk__V1__ParameterGpu *pg = czk_calloc(ngs + 1, sizeof *pg);
        Czk__V1__ParameterGpu **pgp = czk_calloc(ngs + 1, sizeof *pgp);
        if (ps == NULL || pp == NULL || pg == NULL || pgp == NULL) {
            czk__rpc_reply(r, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
        } else {
            size_t k = 0;
            for (size_t i = 0; i < st.nsrs; i++) {
                const czk_engine_srs_status *x = &st.srs[i];
                czk__v1__parameter_set__init(&ps[i]);
                ps[i].circuit_id = CZK__S(x->circuit_id);
                ps[i].host_bytes = x->host_bytes;
                ps[i].pinned_bytes = x->pinned_bytes;
                ps[i].load_ms = x->load_ms;
                ps[i].gpus = pgp + k;
                ps[i].n_gpus = x->ngpus;
                for (size_t g = 0; g < x->ngpus; g++, k++) {
                    czk__v1__parameter_gpu__init(&pg[k]);
                    pg[k].ordinal = (uint32_t)x->gpus[g].ordinal;
                    pg[k].resident_bytes = x->gpus[g].resident_bytes;
                    pg[k].streamed_bytes = x->gpus[g].streamed_bytes;
                    pg[k].budget_bytes = x->gpus[g].budget_bytes;
                    pg[k].plan = CZK__S(x->gpus[g].plan);
                    pgp[k] = &pg[k];
                }
                pp[i] = &ps[i];
            }
            o.n_parameters = st.nsrs;
            o.parameters = pp;
            czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &o.base);
        }
        czk_free(ps);
        czk_free(pp);
        czk_free(pg);
        czk_free(pgp);
    }
    czk__cuzk_free_status_mem(&mem);
    czk_engine_status_clear(&st);
}

void czk__czk_preload(czk__rpc *r, ProtobufCMessage *m)
{
    czk__cuzk_preload(r, ((Czk__V1__PreloadRequest *)m)->circuit_id);
}

void czk__czk_evict(czk__rpc *r, ProtobufCMessage *m)
{
    czk__cuzk_evict(r, ((Czk__V1__EvictRequest *)m)->circuit_id);
}
