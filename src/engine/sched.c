/*
 * Scheduling: the order in which partitions leave the synthesis, prove and finalizer
 * queues (priority, then job age, then partition), the express lane's share of them, and
 * each GPU's lock, which urgent holders take before every ordinary waiter.
 */
#include "czk/alloc.h"
#include "engine/engine_internal.h"

#include <string.h>
#include <time.h>

/* a goes before b: higher priority, then older job, then lower partition. */
static bool part_before(const czk__part *a, const czk__part *b)
{
    if (a->job->prio != b->job->prio) return a->job->prio > b->job->prio;
    if (a->job->seq != b->job->seq) return a->job->seq < b->job->seq;
    return a->idx < b->idx;
}

/* Queues are small arrays scanned for their head: a few hundred entries at most in
 * practice, and a scan keeps removal of a cancelled job's entries trivial. */
bool czk__sched_push(czk__part ***q, size_t *n, size_t *cap, czk__part *p)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        czk__part **nq = czk_realloc(*q, nc * sizeof *nq);
        if (nq == NULL) return false;
        *q = nq;
        *cap = nc;
    }
    (*q)[(*n)++] = p;
    return true;
}

size_t czk__sched_best(czk__part **q, size_t n)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (best == SIZE_MAX || part_before(q[i], q[best])) best = i;
    return best;
}

/*
 * The express lane's partitions: small ones (a WinningPoSt's is 50 MB) of HIGH or CRITICAL
 * priority, which must not queue behind 32 GiB partitions. Before its parameters are
 * loaded a partition's size is unknown: then a CRITICAL one (WinningPoSt by default)
 * counts as express, so that the lane loads its parameters at once.
 */
bool czk__sched_express(const czk__part *p)
{
    const czk__params *pe = p->job->params;
    if (pe == NULL || pe->state != CZK__PE_LOADED) return p->job->prio == CZK_PRIO_CRITICAL;
    return p->job->prio >= CZK_PRIO_HIGH &&
           czk__budget_part_base_bytes(pe) <= CZK__EXPRESS_MAX_BYTES;
}

/* czk__sched_best among the express lane's partitions only. */
size_t czk__sched_best_express(czk__part **q, size_t n)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (czk__sched_express(q[i]) && (best == SIZE_MAX || part_before(q[i], q[best]))) best = i;
    return best;
}

/* czk__sched_best among the partitions the express lane does not take. */
size_t czk__sched_best_ordinary(czk__part **q, size_t n)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (!czk__sched_express(q[i]) && (best == SIZE_MAX || part_before(q[i], q[best]))) best = i;
    return best;
}

/* Remove entry i keeping the others' order (the finalizer's queue is FIFO). */
void czk__sched_remove(czk__part **q, size_t *n, size_t i)
{
    memmove(&q[i], &q[i + 1], (*n - i - 1) * sizeof *q);
    (*n)--;
}

void czk__sched_remove_job(czk__part **q, size_t *n, const czk__job *j)
{
    size_t w = 0;
    for (size_t i = 0; i < *n; i++)
        if (q[i]->job != j) q[w++] = q[i];
    *n = w;
}

void czk__sched_timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu, unsigned ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(cv, mu, &ts);
}

void czk__sched_gpu_lock_init(czk__gpu_lock *l)
{
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    l->busy = false;
    l->alone = false;
    l->urgent_waiting = 0;
    l->inflight = 0;
}

void czk__sched_gpu_lock_destroy(czk__gpu_lock *l)
{
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
}

/* Take the GPU; `alone`: also wait until no proof that handed it on is still running. */
void czk__sched_gpu_lock_ex(czk__gpu_lock *l, bool urgent, bool alone)
{
    pthread_mutex_lock(&l->mu);
    if (urgent) l->urgent_waiting++;
    while (l->busy || (!urgent && l->urgent_waiting > 0) || (alone && l->inflight > 0))
        pthread_cond_wait(&l->cv, &l->mu);
    if (urgent) l->urgent_waiting--;
    l->busy = true;
    l->alone = alone;
    l->inflight++;
    pthread_mutex_unlock(&l->mu);
}

void czk__sched_gpu_lock(czk__gpu_lock *l, bool urgent)
{
    czk__sched_gpu_lock_ex(l, urgent, false);
}

/* A proof that runs beside the one holding the GPU (an express proof planned with room for
 * it): counted in flight, so that a proof that needs the GPU alone waits for it too. */
void czk__sched_gpu_enter(czk__gpu_lock *l)
{
    pthread_mutex_lock(&l->mu);
    while (l->busy && l->alone) pthread_cond_wait(&l->cv, &l->mu);
    l->inflight++;
    pthread_mutex_unlock(&l->mu);
}

/* A proof taken with czk__sched_gpu_lock has left the GPU (after its czk__sched_gpu_unlock or
 * hand-on). */
void czk__sched_gpu_done(czk__gpu_lock *l)
{
    pthread_mutex_lock(&l->mu);
    l->inflight--;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

void czk__sched_gpu_unlock(czk__gpu_lock *l)
{
    pthread_mutex_lock(&l->mu);
    l->busy = false;
    l->alone = false;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}
