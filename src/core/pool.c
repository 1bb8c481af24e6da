#include "czk/alloc.h"
#include "czk/pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One czk_pool_run in progress; it lives on its caller's stack. */
struct run {
    czk_pool_fn fn;
    void *ctx;
    size_t ntasks;
    atomic_size_t next;
    const int *cancel; /* czk_pool_set_cancel's flag of the caller, or NULL */
    unsigned helpers;  /* the pool's threads inside it (guarded by the pool's lock) */
    struct run *after; /* the next younger run in the pool's list */
};

struct czk_pool {
    unsigned nthreads; /* workers including a caller */
    pthread_t *threads;
    pthread_mutex_t lock; /* guards the fields below and every listed run's helpers */
    pthread_cond_t wake;  /* a run is posted, or shutdown */
    pthread_cond_t done;  /* a helper left a run */
    struct run *runs, **runs_tail; /* runs that take helpers, oldest first */
    bool shutdown;
    int nice; /* the workers' priority below the creator's */
};

/* The pool and run whose task the current thread is executing, for nested runs and the
 * cancel flag. */
static _Thread_local czk_pool *current_pool;
static _Thread_local const struct run *current_run;
static _Thread_local unsigned current_worker;
/* The flag of czk_pool_set_cancel, for work the thread does outside any run's task. */
static _Thread_local const int *thread_cancel;

/* The cancel flag of what the calling thread is doing: the run it is a task of, if any. */
static const int *effective_cancel(void)
{
    return current_run != NULL ? current_run->cancel : thread_cancel;
}

void czk_pool_set_cancel(const int *flag) { thread_cancel = flag; }

bool czk_pool_cancelled(void)
{
    const int *f = effective_cancel();
    return f != NULL && __atomic_load_n(f, __ATOMIC_RELAXED) != 0;
}

unsigned czk_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* Run r's tasks on the calling thread as `worker` until none is left to hand out. */
static void drain(czk_pool *pool, struct run *r, unsigned worker)
{
    czk_pool *saved_pool = current_pool;
    const struct run *saved_run = current_run;
    unsigned saved_worker = current_worker;
    current_pool = pool;
    current_run = r;
    current_worker = worker;
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed);
        if (i >= r->ntasks) break;
        r->fn(r->ctx, i, worker);
    }
    current_pool = saved_pool;
    current_run = saved_run;
    current_worker = saved_worker;
}

/* The oldest listed run with tasks still to hand out (pool locked), or NULL. */
static struct run *open_run(czk_pool *pool)
{
    for (struct run *r = pool->runs; r != NULL; r = r->after)
        if (atomic_load_explicit(&r->next, memory_order_relaxed) < r->ntasks) return r;
    return NULL;
}

struct worker_arg {
    czk_pool *pool;
    unsigned index;
};

void czk_thread_lower_priority(int nice)
{
    if (nice <= 0) return;
    /* Linux keeps a nice value per thread (PRIO_PROCESS with a thread id). Lowering it
     * needs no privilege; a failure (another OS) leaves the thread as it was. */
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int cur = getpriority(PRIO_PROCESS, tid);
    if (cur == -1 && errno != 0) return;
    int want = cur + nice > 19 ? 19 : cur + nice;
    (void)setpriority(PRIO_PROCESS, tid, want);
}

/* A helper takes the oldest run that has tasks left and stays with it until they are all
 * handed out: the oldest run finishes first, and a lone run gets every thread. */
static void *worker_main(void *p)
{
    struct worker_arg *arg = p;
    czk_pool *pool = arg->pool;
    unsigned index = arg->index;
    czk_free(arg);
    czk_thread_lower_priority(pool->nice);
    pthread_mutex_lock(&pool->lock);
    while (!pool->shutdown) {
        struct run *r = open_run(pool);
        if (r == NULL) {
            pthread_cond_wait(&pool->wake, &pool->lock);
            continue;
        }
        r->helpers++;
        pthread_mutex_unlock(&pool->lock);
        drain(pool, r, index);
        pthread_mutex_lock(&pool->lock);
        if (--r->helpers == 0) pthread_cond_broadcast(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

czk_status czk_pool_create(czk_pool **out, unsigned nthreads, czk_err *err)
{
    return czk_pool_create_nice(out, nthreads, 0, err);
}

czk_status czk_pool_create_nice(czk_pool **out, unsigned nthreads, int nice, czk_err *err)
{
    if (nthreads == 0) nthreads = czk_cpu_count();
    czk_pool *pool = czk_calloc(1, sizeof *pool);
    if (pool == NULL) return czk_err_set(err, CZK_ENOMEM, "thread pool: out of memory");
    pool->nthreads = nthreads;
    pool->nice = nice > 0 ? nice : 0;
    pool->runs_tail = &pool->runs;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    if (nthreads > 1) {
        pool->threads = czk_calloc(nthreads - 1, sizeof *pool->threads);
        if (pool->threads == NULL) {
            czk_pool_destroy(pool);
            return czk_err_set(err, CZK_ENOMEM, "thread pool: out of memory");
        }
    }
    for (unsigned i = 1; i < nthreads; i++) {
        struct worker_arg *arg = czk_malloc(sizeof *arg);
        if (arg == NULL) {
            pool->nthreads = i;
            czk_pool_destroy(pool);
            return czk_err_set(err, CZK_ENOMEM, "thread pool: out of memory");
        }
        arg->pool = pool;
        arg->index = i;
        if (pthread_create(&pool->threads[i - 1], NULL, worker_main, arg) != 0) {
            czk_free(arg);
            pool->nthreads = i;
            czk_pool_destroy(pool);
            return czk_err_set(err, CZK_ERESOURCE, "thread pool: cannot start thread %u", i);
        }
    }
    *out = pool;
    return CZK_OK;
}

void czk_pool_destroy(czk_pool *pool)
{
    if (pool == NULL) return;
    pthread_mutex_lock(&pool->lock);
    pool->shutdown = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 1; i < pool->nthreads; i++) pthread_join(pool->threads[i - 1], NULL);
    czk_free(pool->threads);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    czk_free(pool);
}

unsigned czk_pool_size(const czk_pool *pool) { return pool ? pool->nthreads : 1; }

void czk_pool_run(czk_pool *pool, size_t ntasks, czk_pool_fn fn, void *ctx)
{
    if (ntasks == 0) return;
    if (pool == NULL || pool->nthreads == 1 || ntasks == 1 || current_pool == pool) {
        /* Serial, or nested inside one of this pool's tasks: run inline. */
        unsigned w = (current_pool == pool) ? current_worker : 0;
        for (size_t i = 0; i < ntasks; i++) fn(ctx, i, w);
        return;
    }
    struct run r = {.fn = fn, .ctx = ctx, .ntasks = ntasks, .cancel = effective_cancel()};
    atomic_init(&r.next, 0);
    pthread_mutex_lock(&pool->lock);
    *pool->runs_tail = &r;
    pool->runs_tail = &r.after;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    drain(pool, &r, 0);

    /* Unlisted, no helper joins any more; wait for those inside to finish their tasks. */
    pthread_mutex_lock(&pool->lock);
    struct run **link = &pool->runs;
    while (*link != &r) link = &(*link)->after;
    *link = r.after;
    if (pool->runs_tail == &r.after) pool->runs_tail = link;
    while (r.helpers != 0) pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}
