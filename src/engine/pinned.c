/*
 * The pinned host-memory pool: page-locked buffers for a/b/c and the witness, checked out
 * by a synthesis worker and checked in as soon as the prover is done with them.
 * Page-locking is expensive (about 50 ms per GiB), so buffers are kept and reused; idle ones count against the memory budget and are the first thing the budget
 * gives back under pressure (czk__pinned_shrink). When the pool cannot grow, the checkout
 * falls back to ordinary memory: slower transfers, never a failed job.
 */
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void czk__pinned_init(czk__pinned_pool *pp, uint64_t limit, bool use_gpu, bool disabled)
{
    memset(pp, 0, sizeof *pp);
    pthread_mutex_init(&pp->mu, NULL);
    pp->limit = limit;
    pp->use_gpu = use_gpu;
    pp->disabled = disabled;
}

static void release(czk__pinned_buf *b)
{
    switch (b->how) {
    case CZK__PIN_CUDA:
        czk_gpu_host_unregister(b->p);
        munmap(b->p, b->n);
        break;
    case CZK__PIN_MLOCK:
        munlock(b->p, b->n);
        munmap(b->p, b->n);
        break;
    case CZK__PIN_MMAP: munmap(b->p, b->n); break;
    case CZK__PIN_HEAP: czk_free(b->p); break;
    }
    b->p = NULL;
}

void czk__pinned_destroy(czk__pinned_pool *pp)
{
    for (size_t i = 0; i < pp->n_free; i++) release(&pp->free_list[i]);
    czk_free(pp->free_list);
    pthread_mutex_destroy(&pp->mu);
    memset(pp, 0, sizeof *pp);
}

/* Fault in [p, p + n) from several threads: the kernel zeroes the pages, about 3 GB/s on
 * one core. */
typedef struct touch_arg {
    uint8_t *p;
    size_t n;
} touch_arg;

static void *touch_main(void *arg)
{
    touch_arg *t = arg;
    memset(t->p, 0, t->n);
    return NULL;
}

#define TOUCH_THREADS 16
#define TOUCH_MIN ((size_t)256 << 20)

void czk__pinned_touch(uint8_t *p, size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = n / TOUCH_MIN;
    if (k > TOUCH_THREADS) k = TOUCH_THREADS;
    if (cpus > 0 && k > (size_t)cpus) k = (size_t)cpus;
    if (k < 2) {
        memset(p, 0, n);
        return;
    }
    pthread_t th[TOUCH_THREADS];
    touch_arg ta[TOUCH_THREADS];
    bool on[TOUCH_THREADS] = {false};
    size_t per = (n / k + 4095) & ~(size_t)4095;
    for (size_t i = 0; i < k; i++) {
        size_t lo = i * per < n ? i * per : n;
        size_t hi = lo + per < n && i + 1 < k ? lo + per : n;
        ta[i] = (touch_arg){p + lo, hi - lo};
        on[i] = pthread_create(&th[i], NULL, touch_main, &ta[i]) == 0;
        if (!on[i]) touch_main(&ta[i]);
    }
    for (size_t i = 0; i < k; i++)
        if (on[i]) pthread_join(th[i], NULL);
}

/*
 * A new pooled buffer, or false when the pool cannot grow. Called WITHOUT mu: page-locking
 * takes a while, and holding the pool's lock meanwhile would stall every other checkout, a
 * WinningPoSt's included. The caller has already counted n in total_bytes (so concurrent
 * growth respects the limit) and takes it back on failure.
 *
 * For the GPU: an anonymous mapping (huge pages where the kernel has them), faulted in by
 * several threads, then registered with the driver. Measured on the H200 for 16 GiB:
 * 0.84 s (0.46 s faulting, 0.38 s registering), against 11.2 s for cudaHostAlloc, which
 * also holds the driver's lock throughout, so that copies beside it stalled for 8.5 s
 * (0.47 s at most beside the registration); both copy at 55 GB/s.
 */
static bool grow(czk__pinned_pool *pp, size_t n, czk__pinned_buf *out)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    if (pp->use_gpu) {
        (void)madvise(p, n, MADV_HUGEPAGE);
        czk__pinned_touch(p, n);
        if (czk_gpu_host_register(p, n, NULL) != CZK_OK) {
            munmap(p, n);
            return false;
        }
        *out = (czk__pinned_buf){p, n, CZK__PIN_CUDA};
        return true;
    }
    czk__pin_how how = CZK__PIN_MLOCK;
    if (mlock(p, n) != 0) {
        /* RLIMIT_MEMLOCK is small by default outside containers and services; pooled
         * pageable memory still saves the allocation and page faults of every proof. */
        how = CZK__PIN_MMAP;
        if (!pp->mlock_warned) {
            pp->mlock_warned = true;
            CZK_LOG_WARN("pinned pool: mlock refused, buffers stay pageable",
                         "bytes=%zu hint=\"raise RLIMIT_MEMLOCK (LimitMEMLOCK=infinity)\"", n);
        }
    }
    *out = (czk__pinned_buf){p, n, how};
    return true;
}

/* Take the smallest idle buffer of at least n bytes (mu held). */
static bool take_fit(czk__pinned_pool *pp, size_t n, czk__pinned_buf *out)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < pp->n_free; i++)
        if (pp->free_list[i].n >= n &&
            (best == SIZE_MAX || pp->free_list[i].n < pp->free_list[best].n))
            best = i;
    if (best == SIZE_MAX) return false;
    *out = pp->free_list[best];
    pp->free_list[best] = pp->free_list[--pp->n_free];
    pp->free_bytes -= out->n;
    pp->reuses++;
    return true;
}

bool czk__pinned_try_reuse(czk__pinned_pool *pp, size_t n, czk__pinned_buf *out)
{
    n = (n + 4095) & ~(size_t)4095;
    pthread_mutex_lock(&pp->mu);
    bool ok = !pp->disabled && take_fit(pp, n, out);
    pthread_mutex_unlock(&pp->mu);
    return ok;
}

czk_status czk__pinned_checkout(czk__pinned_pool *pp, size_t n, czk__pinned_buf *out,
                                bool *fallback, czk_err *err)
{
    *fallback = false;
    /* Page granularity keeps mmap'ed sizes exact, so reuse compares like with like. */
    n = (n + 4095) & ~(size_t)4095;
    pthread_mutex_lock(&pp->mu);
    if (!pp->disabled) {
        if (take_fit(pp, n, out)) {
            pthread_mutex_unlock(&pp->mu);
            return CZK_OK;
        }
        bool may_grow = (pp->limit == 0 || pp->total_bytes + n <= pp->limit) &&
                        pp->fault_bytes == 0;
        if (may_grow) {
            pp->total_bytes += n; /* reserved while the lock is released */
            pthread_mutex_unlock(&pp->mu);
            bool grown = grow(pp, n, out);
            pthread_mutex_lock(&pp->mu);
            if (grown) {
                pp->allocations++;
                pthread_mutex_unlock(&pp->mu);
                return CZK_OK;
            }
            pp->total_bytes -= n;
        }
        pp->fallbacks++;
        *fallback = true;
    }
    pthread_mutex_unlock(&pp->mu);
    void *p = czk_aligned_alloc(64, n);
    if (p == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory for a %zu-byte buffer", n);
    *out = (czk__pinned_buf){p, n, CZK__PIN_HEAP};
    return CZK_OK;
}

void czk__pinned_checkin(czk__pinned_pool *pp, czk__pinned_buf *b)
{
    if (b->p == NULL) return;
    if (b->how == CZK__PIN_HEAP) {
        release(b);
        return;
    }
    pthread_mutex_lock(&pp->mu);
    if (pp->n_free == pp->cap_free) {
        size_t cap = pp->cap_free ? 2 * pp->cap_free : 8;
        czk__pinned_buf *nl = czk_realloc(pp->free_list, cap * sizeof *nl);
        if (nl == NULL) {
            /* Cannot keep it: give it back to the system rather than leak it. */
            pp->total_bytes -= b->n;
            pp->frees++;
            pthread_mutex_unlock(&pp->mu);
            release(b);
            return;
        }
        pp->free_list = nl;
        pp->cap_free = cap;
    }
    pp->free_list[pp->n_free++] = *b;
    pp->free_bytes += b->n;
    pthread_mutex_unlock(&pp->mu);
    b->p = NULL;
}

uint64_t czk__pinned_shrink(czk__pinned_pool *pp, uint64_t want)
{
    uint64_t freed = 0;
    pthread_mutex_lock(&pp->mu);
    while (freed < want && pp->n_free > 0) {
        size_t big = 0;
        for (size_t i = 1; i < pp->n_free; i++)
            if (pp->free_list[i].n > pp->free_list[big].n) big = i;
        czk__pinned_buf b = pp->free_list[big];
        pp->free_list[big] = pp->free_list[--pp->n_free];
        pp->free_bytes -= b.n;
        pp->total_bytes -= b.n;
        pp->frees++;
        freed += b.n;
        release(&b);
    }
    pthread_mutex_unlock(&pp->mu);
    return freed;
}

size_t czk__pinned_prewarm(czk__pinned_pool *pp, size_t n, size_t count)
{
    n = (n + 4095) & ~(size_t)4095;
    size_t made = 0;
    for (size_t i = 0; i < count; i++) {
        pthread_mutex_lock(&pp->mu);
        bool may_grow = !pp->disabled && (pp->limit == 0 || pp->total_bytes + n <= pp->limit) &&
                        pp->fault_bytes == 0;
        if (may_grow) pp->total_bytes += n;
        pthread_mutex_unlock(&pp->mu);
        if (!may_grow) break;
        czk__pinned_buf b;
        if (!grow(pp, n, &b)) {
            pthread_mutex_lock(&pp->mu);
            pp->total_bytes -= n;
            pthread_mutex_unlock(&pp->mu);
            break;
        }
        pthread_mutex_lock(&pp->mu);
        pp->allocations++;
        pthread_mutex_unlock(&pp->mu);
        czk__pinned_checkin(pp, &b);
        made++;
    }
    return made;
}

uint64_t czk__pinned_free_bytes(czk__pinned_pool *pp)
{
    pthread_mutex_lock(&pp->mu);
    uint64_t v = pp->free_bytes;
    pthread_mutex_unlock(&pp->mu);
    return v;
}

bool czk__pinned_has_fit(czk__pinned_pool *pp, size_t n)
{
    n = (n + 4095) & ~(size_t)4095;
    bool fit = false;
    pthread_mutex_lock(&pp->mu);
    for (size_t i = 0; i < pp->n_free && !fit; i++) fit = pp->free_list[i].n >= n;
    pthread_mutex_unlock(&pp->mu);
    return fit;
}

size_t czk__pinned_count_fit(czk__pinned_pool *pp, size_t n)
{
    n = (n + 4095) & ~(size_t)4095;
    size_t k = 0;
    pthread_mutex_lock(&pp->mu);
    for (size_t i = 0; i < pp->n_free; i++) k += pp->free_list[i].n >= n;
    pthread_mutex_unlock(&pp->mu);
    return k;
}

void czk__pinned_get_stats(czk__pinned_pool *pp, czk__pinned_stats *out)
{
    pthread_mutex_lock(&pp->mu);
    out->total_bytes = pp->total_bytes;
    out->free_bytes = pp->free_bytes;
    out->allocations = pp->allocations;
    out->reuses = pp->reuses;
    out->fallbacks = pp->fallbacks;
    out->frees = pp->frees;
    pthread_mutex_unlock(&pp->mu);
}
