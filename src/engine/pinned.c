/*
 * The pinned host-memory pool: page-locked buffers for a/b/c and the witness, checked out
 * by a synthesis worker and checked in as soon as the prover is done with them.
 * Page-locking is expensive (cudaHostAlloc about 0.5 s per GiB), so buffers are kept and
 * reused; idle ones count against the memory budget and are the first thing the budget
 * gives back under pressure (czk__pinned_shrink). When the pool cannot grow, the checkout
 * falls back to ordinary memory: slower transfers, never a failed job.
 */
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

#include <string.h>
#include <sys/mman.h>

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
    case CZK__PIN_CUDA: czk_gpu_host_free(b->p); break;
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

/*
 * A new pooled buffer, or false when the pool cannot grow. Called WITHOUT mu: page-locking
 * takes seconds per buffer (cudaHostAlloc about 0.5 s per GiB), and holding the pool's lock
 * meanwhile would stall every other checkout, a WinningPoSt's included. The caller has
 * already counted n in total_bytes (so concurrent growth respects the limit) and takes it
 * back on failure.
 */
static bool grow(czk__pinned_pool *pp, size_t n, czk__pinned_buf *out)
{
    if (pp->use_gpu) {
        void *p = NULL;
        if (czk_gpu_host_alloc(&p, n, NULL) != CZK_OK) return false;
        *out = (czk__pinned_buf){p, n, CZK__PIN_CUDA};
        return true;
    }
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
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
