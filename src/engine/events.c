/*
 * Job events: each is recorded in its job's history and queued; the event thread delivers
 * the queue to the watchers and fires the on_done registrations of the jobs that ended.
 * Callbacks run with ev_mu held and mu free (engine_internal.h, Locking).
 */
#include "czk/alloc.h"
#include "engine/engine_internal.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

/* Record an event in the job's history and queue it for delivery (mu held). */
void czk__events_emit(czk_engine *e, czk__job *j, czk_job_event_type type, int32_t part,
                      const char *worker, const char *fmt, ...)
{
    czk_job_event ev;
    memset(&ev, 0, sizeof ev);
    snprintf(ev.job_id, sizeof ev.job_id, "%s", j->id);
    ev.type = type;
    ev.partition = part;
    snprintf(ev.worker, sizeof ev.worker, "%s", worker ? worker : "");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ev.unix_us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ev.message, sizeof ev.message, fmt, ap);
        va_end(ap);
    }
    czk__event_log *log = &j->events;
    if (log->n == log->cap) {
        size_t nc = log->cap ? 2 * log->cap : 16;
        czk_job_event *ne = czk_realloc(log->ev, nc * sizeof *ne);
        if (ne != NULL) {
            log->ev = ne;
            log->cap = nc;
        }
    }
    if (log->n < log->cap) log->ev[log->n++] = ev;
    if (e->n_evq == e->cap_evq) {
        size_t nc = e->cap_evq ? 2 * e->cap_evq : 256;
        czk__qevent *nq = czk_realloc(e->evq, nc * sizeof *nq);
        if (nq == NULL) return; /* the history keeps it; live watchers miss it */
        e->evq = nq;
        e->cap_evq = nc;
    }
    czk__qevent *q = &e->evq[e->n_evq++];
    q->ev = ev;
    q->seq = e->ev_seq++;
    q->terminal = type == CZK_EV_DONE || type == CZK_EV_FAILED || type == CZK_EV_CANCELLED;
    pthread_cond_signal(&e->cv_ev);
}

/* Deliver queued events: ev_mu is held while callbacks run, mu is not. */
void *czk__events_main(void *arg)
{
    czk_engine *e = arg;
    czk__qevent *batch = NULL;
    size_t cap = 0;
    for (;;) {
        pthread_mutex_lock(&e->mu);
        while (e->n_evq == 0 && !e->ev_stop) pthread_cond_wait(&e->cv_ev, &e->mu);
        if (e->n_evq == 0 && e->ev_stop) {
            pthread_mutex_unlock(&e->mu);
            break;
        }
        size_t n = e->n_evq;
        if (n > cap) {
            czk__qevent *nb = czk_realloc(batch, n * sizeof *nb);
            if (nb == NULL) {
                pthread_mutex_unlock(&e->mu);
                continue;
            }
            batch = nb;
            cap = n;
        }
        memcpy(batch, e->evq, n * sizeof *batch);
        e->n_evq = 0;
        pthread_mutex_unlock(&e->mu);

        pthread_mutex_lock(&e->ev_mu);
        for (size_t i = 0; i < n; i++) {
            const czk__qevent *q = &batch[i];
            for (czk__watch *w = e->watches; w != NULL; w = w->next) {
                if (q->seq < w->from_seq) continue;
                if (w->job_id[0] != '\0' && strcmp(w->job_id, q->ev.job_id) != 0) continue;
                w->fn(w->ctx, &q->ev);
            }
            if (!q->terminal) continue;
            /* on_done registrations of this job fire once, then go. */
            czk__done_reg **pp = &e->dones;
            bool have = false;
            for (czk__done_reg *d = e->dones; d != NULL; d = d->next)
                if (strcmp(d->job_id, q->ev.job_id) == 0) have = true;
            czk_job_info info;
            memset(&info, 0, sizeof info);
            pthread_mutex_lock(&e->mu);
            czk__job *j = czk__job_find_any(e, q->ev.job_id);
            if (j != NULL && have) czk__job_snapshot(e, j, true, &info);
            /* A forgotten job may be freed once its end has reached everybody. */
            if (j != NULL) j->terminal_delivered = true;
            pthread_mutex_unlock(&e->mu);
            if (j == NULL || !have) continue;
            while (*pp != NULL) {
                czk__done_reg *d = *pp;
                if (strcmp(d->job_id, q->ev.job_id) == 0) {
                    *pp = d->next;
                    d->fn(d->ctx, &info);
                    czk_free(d);
                } else {
                    pp = &d->next;
                }
            }
            czk_job_info_clear(&info);
        }
        pthread_mutex_unlock(&e->ev_mu);
    }
    czk_free(batch);
    return NULL;
}

czk_status czk_engine_on_done(czk_engine *e, const char *job_id, czk_job_done_fn fn, void *ctx,
                              uint64_t *handle, czk_err *err)
{
    if (handle) *handle = 0;
    if (job_id == NULL || fn == NULL) return czk_err_set(err, CZK_EINVAL, "job_id or fn: NULL");
    czk__done_reg *d = czk_calloc(1, sizeof *d);
    if (d == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory");
    pthread_mutex_lock(&e->ev_mu);
    pthread_mutex_lock(&e->mu);
    czk__job *j = czk__job_find(e, job_id);
    if (j == NULL) {
        pthread_mutex_unlock(&e->mu);
        pthread_mutex_unlock(&e->ev_mu);
        czk_free(d);
        return czk_err_set(err, CZK_ENOENT, "job_id: no job %s", job_id);
    }
    d->handle = e->next_handle++;
    if (handle) *handle = d->handle;
    if (czk__job_terminal(j->state)) {
        czk_job_info info;
        czk__job_snapshot(e, j, true, &info);
        pthread_mutex_unlock(&e->mu);
        fn(ctx, &info);
        czk_job_info_clear(&info);
        pthread_mutex_unlock(&e->ev_mu);
        czk_free(d);
        return CZK_OK;
    }
    snprintf(d->job_id, sizeof d->job_id, "%s", job_id);
    d->fn = fn;
    d->ctx = ctx;
    d->next = e->dones;
    e->dones = d;
    pthread_mutex_unlock(&e->mu);
    pthread_mutex_unlock(&e->ev_mu);
    return CZK_OK;
}

bool czk_engine_on_done_cancel(czk_engine *e, uint64_t handle)
{
    bool removed = false;
    pthread_mutex_lock(&e->ev_mu);
    for (czk__done_reg **pp = &e->dones; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->handle == handle) {
            czk__done_reg *d = *pp;
            *pp = d->next;
            czk_free(d);
            removed = true;
            break;
        }
    }
    pthread_mutex_unlock(&e->ev_mu);
    return removed;
}

czk_status czk_engine_watch(czk_engine *e, const char *job_id, czk_job_event_fn fn, void *ctx,
                            uint64_t *handle, czk_err *err)
{
    if (handle) *handle = 0;
    if (fn == NULL) return czk_err_set(err, CZK_EINVAL, "fn: NULL");
    czk__watch *w = czk_calloc(1, sizeof *w);
    if (w == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory");
    w->fn = fn;
    w->ctx = ctx;
    snprintf(w->job_id, sizeof w->job_id, "%s", job_id ? job_id : "");
    /* ev_mu first: no delivery runs while the history is replayed, and events queued but
     * not yet delivered (seq below from_seq) are in the replayed history already. */
    pthread_mutex_lock(&e->ev_mu);
    pthread_mutex_lock(&e->mu);
    czk_job_event *hist = NULL;
    size_t nh = 0;
    czk_status st = CZK_OK;
    if (job_id != NULL) {
        czk__job *j = czk__job_find(e, job_id);
        if (j == NULL) {
            st = czk_err_set(err, CZK_ENOENT, "job_id: no job %s", job_id);
        } else if (j->events.n > 0) {
            hist = czk_malloc(j->events.n * sizeof *hist);
            if (hist != NULL) {
                memcpy(hist, j->events.ev, j->events.n * sizeof *hist);
                nh = j->events.n;
            }
        }
    } else {
        /* The timeline: the history of the jobs still queued or running, oldest job
         * first (ended jobs' histories stay available per job). */
        size_t total = 0;
        for (czk__job *j = e->jobs; j != NULL; j = j->next)
            if (!czk__job_terminal(j->state)) total += j->events.n;
        hist = total ? czk_malloc(total * sizeof *hist) : NULL;
        if (hist != NULL) {
            /* e->jobs is newest first: fill from the end. */
            size_t at = total;
            for (czk__job *j = e->jobs; j != NULL; j = j->next) {
                if (czk__job_terminal(j->state)) continue;
                at -= j->events.n;
                memcpy(hist + at, j->events.ev, j->events.n * sizeof *hist);
            }
            nh = total;
        }
    }
    w->from_seq = e->ev_seq;
    w->handle = e->next_handle++;
    pthread_mutex_unlock(&e->mu);
    if (st != CZK_OK) {
        pthread_mutex_unlock(&e->ev_mu);
        czk_free(w);
        return st;
    }
    for (size_t i = 0; i < nh; i++) fn(ctx, &hist[i]);
    czk_free(hist);
    w->next = e->watches;
    e->watches = w;
    if (handle) *handle = w->handle;
    pthread_mutex_unlock(&e->ev_mu);
    return CZK_OK;
}

void czk_engine_unwatch(czk_engine *e, uint64_t handle)
{
    pthread_mutex_lock(&e->ev_mu);
    for (czk__watch **pp = &e->watches; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->handle == handle) {
            czk__watch *w = *pp;
            *pp = w->next;
            czk_free(w);
            break;
        }
    }
    pthread_mutex_unlock(&e->ev_mu);
}
