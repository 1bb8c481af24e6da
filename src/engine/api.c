/*
 * The engine's public calls on jobs and parameter sets: submit (with request_id
 * deduplication), get, await, cancel, forget and list; preload and evict.
 */
#include "czk/alloc.h"
#include "czk/fil_job.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    uint64_t t0 = czk_clock_us();
    st = czk__budget_load(e, pe, est, err);
    pthread_mutex_unlock(&e->mu);
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
    czk__budget_load_ended(e, pe, st, dt);
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
