/*
 * czk — a fork-join thread pool for data-parallel math (NTT, MSM, synthesis).
 *
 * czk_pool_run(pool, n, fn, ctx) calls fn(ctx, i, worker) for every i in [0, n), spread over
 * the pool's threads plus the caller, and returns when all calls are done. Tasks are
 * handed out by an atomic counter, so uneven tasks balance themselves. A NULL pool runs
 * everything on the caller. Runs from several threads proceed at once: each caller works
 * on its own run as worker 0, and the pool's threads take the oldest run with tasks left,
 * staying with it until they are all handed out, so a lone run gets every thread and
 * concurrent ones share them, oldest first. Worker indices are unique within a run. Nested
 * runs on the same pool execute inline on the calling worker.
 */
#ifndef CZK_POOL_H
#define CZK_POOL_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_pool czk_pool;

/** fn(ctx, task index, worker index in [0, czk_pool_size(pool))). */
typedef void (*czk_pool_fn)(void *ctx, size_t task, unsigned worker);

/** A pool of `nthreads` workers including a caller; 0 means one per online CPU. */
CZK_API czk_status czk_pool_create(czk_pool **out, unsigned nthreads, czk_err *err);
CZK_API void czk_pool_destroy(czk_pool *pool);
/** Number of workers (the caller counts as one); 1 for a NULL pool. */
CZK_API unsigned czk_pool_size(const czk_pool *pool);
CZK_API void czk_pool_run(czk_pool *pool, size_t ntasks, czk_pool_fn fn, void *ctx);
/**
 * As czk_pool_create, with the pool's threads running `nice` steps below the creating
 * thread's priority (Linux nice values, per thread; 0 = the same): bulk work that must not
 * delay latency-sensitive threads on a full host. The caller of czk_pool_run works at its
 * own priority (see czk_thread_lower_priority).
 */
CZK_API czk_status czk_pool_create_nice(czk_pool **out, unsigned nthreads, int nice, czk_err *err);
/** Lower the calling thread's priority by `nice` steps (at most to 19); 0 does nothing. */
CZK_API void czk_thread_lower_priority(int nice);
/**
 * Cooperative cancellation of the calling thread's work. After czk_pool_set_cancel(flag)
 * the runs this thread starts, and the runs their tasks start on any pool, carry `flag`
 * (an int the caller owns; any thread sets it non-zero to cancel; NULL ends it). Long
 * loops (NTT, MSM, synthesis) check czk_pool_cancelled() once per chunk and stop early,
 * leaving their output unspecified; the function that started them then returns
 * CZK_ECANCELED. The check is one relaxed load.
 */
CZK_API void czk_pool_set_cancel(const int *flag);
/** The work the calling thread does, as a task of a run or on its own, is cancelled. */
CZK_API bool czk_pool_cancelled(void);
/** Number of online CPUs. */
CZK_API unsigned czk_cpu_count(void);

#ifdef __cplusplus
}
#endif
#endif
