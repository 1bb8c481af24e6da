/*
 * Jobs: the job table and its lookups, a job built and validated from a request (its id,
 * what the request means for request_id deduplication), queued, ended, trimmed and
 * dropped, and the snapshots callers get of it (czk_job_info).
 *
 * Jobs stay in the table after they end (state, proof, events) until retention_s has
 * passed; their partitions, payload and parameter reference go as soon as no worker holds
 * one of their partitions (czk__job_trim).
 */
#include "czk/alloc.h"
#include "czk/fil_job.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

void czk__log_safe(char *out, size_t cap, const char *s)
{
    if (cap == 0) return;
    size_t k = 0;
    for (; s[k] != 0 && k + 1 < cap; k++) {
        unsigned char c = (unsigned char)s[k];
        out[k] = c < 0x20 || c == 0x7f || c == '"' || c == '\\' ? '?' : (char)c;
    }
    out[k] = 0;
}

/* A job's request_id and the log value of it (mu held, or the job not yet shared). */
void czk__job_set_request_id(czk__job *j, const char *rid)
{
    snprintf(j->request_id, sizeof j->request_id, "%s", rid ? rid : "");
    czk__log_safe(j->log_rid, sizeof j->log_rid, j->request_id);
}

int czk__kind_index(czk_job_kind k)
{
    switch (k) {
    case CZK_JOB_POREP: return 0;
    case CZK_JOB_SNAP: return 1;
    case CZK_JOB_WPOST: return 2;
    case CZK_JOB_WINNING: return 3;
    case CZK_JOB_CIRCOM: return 4;
    }
    return -1;
}

bool czk__job_terminal(czk_job_state s)
{
    return s == CZK_JOB_DONE || s == CZK_JOB_FAILED || s == CZK_JOB_CANCELLED;
}

static czk_job_priority resolve_priority(czk_job_kind k, czk_job_priority p)
{
    if (p != CZK_PRIO_DEFAULT) return p;
    if (k == CZK_JOB_WINNING) return CZK_PRIO_CRITICAL;
    if (k == CZK_JOB_WPOST) return CZK_PRIO_HIGH;
    return CZK_PRIO_NORMAL;
}

/* A job by id, forgotten ones included (the event thread still delivers their end). */
czk__job *czk__job_find_any(czk_engine *e, const char *id)
{
    for (czk__job *j = e->jobs; j != NULL; j = j->next)
        if (strcmp(j->id, id) == 0) return j;
    return NULL;
}

/* A job by id, as every caller of the API sees the table (mu held). */
czk__job *czk__job_find(czk_engine *e, const char *id)
{
    czk__job *j = czk__job_find_any(e, id);
    return j != NULL && !j->forgotten ? j : NULL;
}

/* ------------------------------------------------------------------------------------ */
/* Job lifecycle                                                                        */
/* ------------------------------------------------------------------------------------ */

/* Stop the work a worker is doing on p, if one is (mu held). */
void czk__job_part_cancel(czk__part *p)
{
    if (p->cancel != NULL) __atomic_store_n(p->cancel, 1, __ATOMIC_RELAXED);
}

/* A worker takes p: its cancel flag starts clear unless the engine is aborting (mu held). */
void czk__job_part_hold(const czk_engine *e, czk__part *p, int *cancel)
{
    __atomic_store_n(cancel, czk__engine_aborting(e) ? 1 : 0, __ATOMIC_RELAXED);
    p->cancel = cancel;
}

/* Give a partition's buffer and reservation back (mu held). */
void czk__job_part_release(czk_engine *e, czk__part *p)
{
    memset(p->has_packed, 0, sizeof p->has_packed); /* they point into the buffer */
    if (p->have_buf) {
        czk__pinned_checkin(&e->pinned, &p->buf);
        p->have_buf = false;
    }
    if (p->reserved) {
        e->reserved -= p->reserved;
        p->reserved = 0;
        e->inflight_parts--;
    }
    pthread_cond_broadcast(&e->cv_work);
}

void czk__job_part_free_heap(czk__part *p)
{
    czk_free(p->pub);
    p->pub = NULL;
    czk_free(p->dens);
    p->dens = NULL;
}

/* Free what a terminal job no longer needs once no worker holds one of its partitions. */
void czk__job_trim(czk_engine *e, czk__job *j)
{
    if (!czk__job_terminal(j->state) || j->inflight != 0) return;
    /* The parameters stay referenced until no worker can still be reading them. */
    if (j->params_ref) {
        j->params->refs--;
        j->params->last_used_ms = czk_unix_ms();
        j->params_ref = false;
        pthread_cond_broadcast(&e->cv_work);
    }
    if (j->parts == NULL) return;
    for (uint32_t i = 0; i < j->nparts; i++) {
        czk__job_part_release(e, &j->parts[i]);
        czk__job_part_free_heap(&j->parts[i]);
    }
    czk_free(j->parts);
    j->parts = NULL;
    if (j->payload_counted) e->payload_bytes -= j->payload_len;
    j->payload_counted = false;
    czk_free(j->payload);
    j->payload = NULL;
    j->wtns = NULL;
    czk_fil_job_destroy(j->fil);
    j->fil = NULL;
}

/* Move a job to a terminal state: unqueue its partitions, release what it holds, journal
 * the outcome, tell waiters (mu held). */
void czk__job_end(czk_engine *e, czk__job *j, czk_job_state state, czk_status st,
                  const char *fmt, ...)
{
    if (czk__job_terminal(j->state)) return;
    czk_job_state prev = j->state;
    j->state = state;
    j->error = state == CZK_JOB_FAILED ? st : CZK_OK;
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->error_message, sizeof j->error_message, fmt, ap);
        va_end(ap);
    }
    czk__sched_remove_job(e->synth_q, &e->n_synth_q, j);
    czk__sched_remove_job(e->prove_q, &e->n_prove_q, j);
    czk__sched_remove_job(e->fin_q, &e->n_fin_q, j);
    if (j->parts != NULL)
        for (uint32_t i = 0; i < j->nparts; i++) {
            czk__part *p = &j->parts[i];
            /* Partitions a worker holds are released by that worker when it returns, which
             * it does within a chunk of its loops now. */
            if (p->state == CZK__PART_SYNTH || p->state == CZK__PART_PROVING) {
                czk__job_part_cancel(p);
                continue;
            }
            if (p->state == CZK__PART_SYNTHESIZED) j->inflight--; /* was in the prove queue */
            if (p->state != CZK__PART_PROVED) p->state = CZK__PART_DROPPED;
            czk__job_part_release(e, p);
        }
    j->finished_unix_ms = czk_unix_ms();
    j->t_done = czk_clock_us();
    j->timings.total_ms = (j->t_done - j->t_submit) / 1000u;
    int k = czk__kind_index(j->kind);
    e->by_kind_state[k][prev]--;
    e->by_kind_state[k][state]++;
    if (state == CZK_JOB_DONE) {
        e->completed++;
        czk__hist_add(&e->hist[CZK__ST_TOTAL], (double)(j->t_done - j->t_submit) / 1e6);
    } else if (state == CZK_JOB_FAILED) {
        e->failed++;
    } else {
        e->cancelled++;
    }
    /* A drain leaves unfinished jobs journaled as queued; a crash journals nothing. */
    if (!e->crashed) {
        czk_err jerr;
        if (czk__journal_finish(e->journal, j, &jerr) != CZK_OK)
            CZK_LOG_ERROR("journal write failed", "job=%s request_id=\"%s\" error=\"%s\"", j->id,
                          j->log_rid, jerr.msg);
    }
    if (state == CZK_JOB_DONE) {
        czk__events_emit(e, j, CZK_EV_DONE, -1, "", NULL);
        CZK_LOG_INFO("job done", "job=%s request_id=\"%s\" circuit=%s total_ms=%" PRIu64, j->id,
                     j->log_rid, j->circuit_id, j->timings.total_ms);
    } else if (state == CZK_JOB_FAILED) {
        czk__events_emit(e, j, CZK_EV_FAILED, -1, "", "%s", j->error_message);
        CZK_LOG_WARN("job failed", "job=%s request_id=\"%s\" circuit=%s status=%s error=\"%s\"",
                     j->id, j->log_rid, j->circuit_id, czk_status_name(st), j->error_message);
    } else {
        czk__events_emit(e, j, CZK_EV_CANCELLED, -1, "", "%s", j->error_message);
        CZK_LOG_INFO("job cancelled", "job=%s request_id=\"%s\" circuit=%s reason=\"%s\"", j->id,
                     j->log_rid, j->circuit_id, j->error_message);
    }
    czk__job_trim(e, j);
    pthread_cond_broadcast(&e->cv_state);
    pthread_cond_broadcast(&e->cv_work);
}

/* Drop terminal jobs whose retention has passed, from memory and the journal, and free
 * forgotten ones no worker or event delivery still needs (mu held). */
void czk__job_gc(czk_engine *e)
{
    uint64_t now = czk_unix_ms();
    czk__job **pp = &e->jobs;
    while (*pp != NULL) {
        czk__job *j = *pp;
        bool expired = czk__job_terminal(j->state) && j->inflight == 0 &&
                       now - j->finished_unix_ms > e->retention_s * 1000u;
        bool gone = j->forgotten && j->inflight == 0 && j->terminal_delivered;
        if (expired || gone) {
            *pp = j->next;
            e->njobs--;
            /* A forgotten job left the counts and the journal when it was forgotten. */
            if (!j->forgotten) {
                e->by_kind_state[czk__kind_index(j->kind)][j->state]--;
                if (!e->crashed) czk__journal_delete(e->journal, j->id, NULL);
            }
            czk__job_trim(e, j);
            czk_free(j->proof);
            czk_free(j->events.ev);
            czk_free(j);
        } else {
            pp = &j->next;
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* Building a job from a request                                                        */
/* ------------------------------------------------------------------------------------ */

/* Circuit names become file names: letters, digits, '.', '_', '-', no leading dot. */
bool czk__job_circuit_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 48 || s[0] == '.') return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

void czk__job_free(czk__job *j)
{
    if (j == NULL) return;
    czk_fil_job_destroy(j->fil);
    if (j->parts != NULL)
        for (uint32_t i = 0; i < j->nparts; i++) czk__job_part_free_heap(&j->parts[i]);
    czk_free(j->parts);
    czk_free(j->payload);
    czk_free(j->proof);
    czk_free(j->events.ev);
    czk_free(j);
}

/*
 * What a request means, for request_id deduplication: the serialized request (params.c's
 * layout) with its priority left out, and for PoRep the C1 replaced by the digest of its
 * canonical form (czk_fil_job_digest), so that a retry whose C1 JSON was re-encoded (key
 * order, spacing, cuzk's envelope) is the same request. Binary payloads (bincode, .wtns)
 * compare as bytes. A retry with another priority is the same request too: it asks for
 * the same proof.
 */
#define REQ_PRIORITY_OFFSET 12 /* "CZKR", version, kind, then the u32 priority */

static czk_status request_meaning(czk__job *j, const czk_job_request *req, czk_err *err)
{
    static const char domain[] = "czk request meaning v1";
    static const uint8_t zero[4] = {0, 0, 0, 0};
    uint8_t digest[32];
    uint8_t *buf = NULL;
    const uint8_t *p = j->payload;
    size_t n = j->payload_len;
    if (j->fil != NULL && czk_fil_job_digest(j->fil, digest)) {
        czk_job_request q = *req;
        q.vanilla_proof = digest;
        q.vanilla_proof_len = sizeof digest;
        buf = czk__request_serialize(&q, &n);
        if (buf == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory");
        p = buf;
    }
    unsigned len = 0;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md != NULL && n >= REQ_PRIORITY_OFFSET + 4 &&
              EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 &&
              EVP_DigestUpdate(md, domain, sizeof domain - 1) == 1 &&
              EVP_DigestUpdate(md, p, REQ_PRIORITY_OFFSET) == 1 &&
              EVP_DigestUpdate(md, zero, sizeof zero) == 1 &&
              EVP_DigestUpdate(md, p + REQ_PRIORITY_OFFSET + 4, n - REQ_PRIORITY_OFFSET - 4) == 1 &&
              EVP_DigestFinal_ex(md, j->meaning, &len) == 1 && len == 32;
    EVP_MD_CTX_free(md);
    czk_free(buf);
    if (!ok) return czk_err_set(err, CZK_EINTERNAL, "request: SHA-256 failed");
    j->has_meaning = true;
    return CZK_OK;
}

/* A string field that becomes an id, a log value and a protobuf string for other clients:
 * valid UTF-8 without control characters (CZK_EINVAL naming the field). */
static czk_status text_ok(const char *s, const char *field, czk_err *err)
{
    size_t at = 0;
    czk_text_fault f = czk_text_check(s, strlen(s), &at);
    if (f == CZK_TEXT_OK) return CZK_OK;
    return czk_err_set(err, CZK_EINVAL, "%s: %s at byte %zu", field,
                       f == CZK_TEXT_CONTROL ? "a control character" : "not valid UTF-8", at);
}

/* The Filecoin fields of a request. */
static void fil_input(czk_fil_job_input *in, const czk_job_request *req)
{
    memset(in, 0, sizeof *in);
    in->kind = (czk_fil_kind)req->kind;
    in->registered_proof = req->registered_proof;
    in->sector_size = req->sector_size;
    in->vanilla_proof = req->vanilla_proof;
    in->vanilla_proof_len = req->vanilla_proof_len;
    in->vanilla_proofs = req->vanilla_proofs;
    in->vanilla_proof_lens = req->vanilla_proof_lens;
    in->n_vanilla_proofs = req->n_vanilla_proofs;
    in->sector_number = req->sector_number;
    in->miner_id = req->miner_id;
    in->randomness = req->randomness;
    in->randomness_len = req->randomness_len;
    in->partition_index = req->partition_index;
    in->comm_r_old = req->comm_r_old;
    in->comm_r_new = req->comm_r_new;
    in->comm_d_new = req->comm_d_new;
    in->comm_r_old_len = req->comm_r_old_len;
    in->comm_r_new_len = req->comm_r_new_len;
    in->comm_d_new_len = req->comm_d_new_len;
}

/*
 * Validate a request and build its job (not yet in the table, no id): everything that can
 * be checked without the parameters is checked here, so bad input fails at submit. The
 * parameter file is looked for first, from the kind, registered proof and circuit name
 * alone: a 50 MB C1 is not parsed (seconds) to learn that it cannot be proved here.
 */
czk_status czk__job_build(czk_engine *e, const czk_job_request *req, czk__job **out,
                          char *params_path, size_t params_path_cap, czk_err *err)
{
    *out = NULL;
    if (czk__kind_index(req->kind) < 0)
        return czk_err_set(err, CZK_EINVAL, "kind: unknown proof kind %d", (int)req->kind);
    if ((int)req->priority < CZK_PRIO_DEFAULT || (int)req->priority > CZK_PRIO_CRITICAL)
        return czk_err_set(err, CZK_EINVAL, "priority: unknown value %d", (int)req->priority);
    czk_status st;
    if (req->request_id != NULL) {
        if (strlen(req->request_id) >= CZK_REQUEST_ID_MAX)
            return czk_err_set(err, CZK_EINVAL, "request_id: longer than %d bytes",
                               CZK_REQUEST_ID_MAX - 1);
        if ((st = text_ok(req->request_id, "request_id", err)) != CZK_OK) return st;
    }
    czk_fil_job_input in;
    fil_input(&in, req);
    if (req->kind == CZK_JOB_CIRCOM) {
        if (req->circuit == NULL || !czk__job_circuit_name_ok(req->circuit))
            return czk_err_set(err, CZK_EINVAL,
                               "circuit: \"%s\" is not a circuit name (1-48 of [A-Za-z0-9._-], no "
                               "leading dot)",
                               req->circuit && czk_text_check(req->circuit, strlen(req->circuit),
                                                              NULL) == CZK_TEXT_OK
                                   ? req->circuit
                                   : "");
        snprintf(params_path, params_path_cap, "%s/%s.zkey", e->param_dir, req->circuit);
    } else {
        const char *params_name = NULL;
        if ((st = czk_fil_job_circuit(&in, NULL, &params_name, err)) != CZK_OK) return st;
        snprintf(params_path, params_path_cap, "%s/%s.params", e->param_dir, params_name);
    }
    struct stat sb;
    if (stat(params_path, &sb) != 0 && !(e->test_params && req->kind != CZK_JOB_CIRCOM))
        return czk_err_set(err, CZK_ENOENT, "parameter file %s: %s", params_path,
                           strerror(errno));

    czk__job *j = czk_calloc(1, sizeof *j);
    if (j == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory");
    j->kind = req->kind;
    j->prio = resolve_priority(req->kind, req->priority);
    czk__job_set_request_id(j, req->request_id);
    j->payload = czk__request_serialize(req, &j->payload_len);
    if (j->payload == NULL) {
        czk__job_free(j);
        return czk_err_set(err, CZK_ENOMEM, "out of memory");
    }
    SHA256(j->payload, j->payload_len, j->payload_hash);
    if (req->kind == CZK_JOB_CIRCOM) {
        if (req->vanilla_proof == NULL || req->vanilla_proof_len == 0) {
            st = czk_err_set(err, CZK_EINVAL, "vanilla_proof: empty (a circom job needs the .wtns)");
            goto fail;
        }
        st = czk_wtns_decode(req->vanilla_proof, req->vanilla_proof_len, "vanilla_proof (.wtns)",
                             NULL, 0, &j->n_witness, err);
        if (st != CZK_OK) goto fail;
        snprintf(j->circuit_id, sizeof j->circuit_id, "circom:%s", req->circuit);
        j->nparts = 1;
    } else {
        czk_fil_job *fj = NULL;
        st = czk_fil_job_create(&fj, &in, err);
        if (st != CZK_OK) goto fail;
        j->fil = fj;
        snprintf(j->circuit_id, sizeof j->circuit_id, "%s", czk_fil_job_circuit_id(fj));
        size_t np = czk_fil_job_partitions(fj);
        if (np == 0 || np > 1024) {
            st = czk_err_set(err, CZK_EINVAL, "vanilla_proof: %zu partitions", np);
            goto fail;
        }
        j->nparts = (uint32_t)np;
    }
    if ((st = request_meaning(j, req, err)) != CZK_OK) goto fail;
    j->parts = czk_calloc(j->nparts, sizeof *j->parts);
    if (j->parts == NULL) {
        st = czk_err_set(err, CZK_ENOMEM, "out of memory");
        goto fail;
    }
    /* The witness bytes are the payload's vanilla_proof string: point into our copy. */
    if (req->kind == CZK_JOB_CIRCOM) {
        /* The serialized layout (params.c) puts vanilla_proof right after the 52-byte
         * fixed header and its 8-byte length. */
        j->wtns = j->payload + 52 + 8;
        j->wtns_len = req->vanilla_proof_len;
    }
    for (uint32_t i = 0; i < j->nparts; i++) {
        j->parts[i].job = j;
        j->parts[i].idx = i;
    }
    *out = j;
    return CZK_OK;
fail:
    czk__job_free(j);
    return st;
}

void czk__job_make_id(char out[CZK_JOB_ID_MAX])
{
    uint8_t r[16];
    if (RAND_bytes(r, sizeof r) != 1) {
        /* Unique enough for ids: time and a counter. */
        static uint64_t ctr;
        uint64_t t = czk_clock_us() ^ (__atomic_add_fetch(&ctr, 1, __ATOMIC_RELAXED) << 40);
        memcpy(r, &t, 8);
        memcpy(r + 8, &ctr, 8);
    }
    static const char hex[] = "0123456789abcdef";
    out[0] = 'j';
    out[1] = '-';
    for (int i = 0; i < 16; i++) {
        out[2 + 2 * i] = hex[r[i] >> 4];
        out[3 + 2 * i] = hex[r[i] & 15];
    }
    out[34] = '\0';
}

/* Put a built job in the table and its partitions in the queue (mu held). */
czk_status czk__job_enqueue(czk_engine *e, czk__job *j, const char *params_path, czk_err *err)
{
    j->params = czk__budget_params_get(e, j->circuit_id, params_path, j->kind == CZK_JOB_CIRCOM);
    if (j->params == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < j->nparts; i++) {
        if (j->parts[i].state != CZK__PART_PENDING) continue; /* kept by a drain */
        if (!czk__sched_push(&e->synth_q, &e->n_synth_q, &e->cap_synth_q, &j->parts[i])) {
            czk__sched_remove_job(e->synth_q, &e->n_synth_q, j);
            return czk_err_set(err, CZK_ENOMEM, "out of memory");
        }
    }
    j->state = CZK_JOB_QUEUED;
    j->next = e->jobs;
    e->jobs = j;
    e->njobs++;
    if (j->payload) {
        e->payload_bytes += j->payload_len;
        j->payload_counted = true;
    }
    e->by_kind_state[czk__kind_index(j->kind)][CZK_JOB_QUEUED]++;
    czk__events_emit(e, j, CZK_EV_QUEUED, -1, "", NULL);
    pthread_cond_broadcast(&e->cv_work);
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Snapshots                                                                            */
/* ------------------------------------------------------------------------------------ */

/* 1-based position among queued jobs: those of higher priority, then older ones, first. */
uint32_t czk__job_queue_pos(const czk_engine *e, const czk__job *j)
{
    uint32_t pos = 1;
    for (const czk__job *o = e->jobs; o != NULL; o = o->next)
        if (o != j && o->state == CZK_JOB_QUEUED &&
            (o->prio > j->prio || (o->prio == j->prio && o->seq < j->seq)))
            pos++;
    return pos;
}

void czk__job_snapshot(const czk_engine *e, const czk__job *j, bool with_proof, czk_job_info *out)
{
    czk__job_snapshot_ex(e, j, with_proof, true, out);
}

void czk__job_snapshot_ex(const czk_engine *e, const czk__job *j, bool with_proof, bool position,
                          czk_job_info *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->job_id, sizeof out->job_id, "%s", j->id);
    snprintf(out->request_id, sizeof out->request_id, "%s", j->request_id);
    out->kind = j->kind;
    out->priority = j->prio;
    out->state = j->state;
    snprintf(out->circuit_id, sizeof out->circuit_id, "%s", j->circuit_id);
    out->partitions = j->nparts;
    out->partitions_synthesized = j->nsynth;
    out->partitions_proved = j->nproved;
    if (j->state == CZK_JOB_QUEUED && position) out->queue_position = czk__job_queue_pos(e, j);
    snprintf(out->assigned_gpu, sizeof out->assigned_gpu, "%s", j->assigned);
    out->submitted_unix_ms = j->submitted_unix_ms;
    out->finished_unix_ms = j->finished_unix_ms;
    out->timings = j->timings;
    if (!czk__job_terminal(j->state))
        out->timings.total_ms = (czk_clock_us() - j->t_submit) / 1000u;
    out->error = j->error;
    snprintf(out->error_message, sizeof out->error_message, "%s", j->error_message);
    if (with_proof && j->proof != NULL) {
        out->proof = czk_malloc(j->proof_len);
        if (out->proof != NULL) {
            memcpy(out->proof, j->proof, j->proof_len);
            out->proof_len = j->proof_len;
        }
    }
}

void czk_job_info_clear(czk_job_info *info)
{
    if (info == NULL) return;
    czk_free(info->proof);
    info->proof = NULL;
    info->proof_len = 0;
}
