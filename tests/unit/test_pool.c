/* The thread pool: every task runs exactly once, worker indices are in range, nested runs
 * complete, many back-to-back runs neither lose nor repeat tasks, runs from several
 * threads proceed at once (a lone one on every thread, no worker index in two tasks of a
 * run at once), and a thread's cancel flag reaches the tasks of its runs (nested ones and
 * other pools' too), no one else's. */
#include "czk/pool.h"
#include "czk_test.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

struct count_ctx {
    atomic_int *hits;
    unsigned nworkers;
    atomic_int bad_worker;
};

static void count_task(void *p, size_t i, unsigned w)
{
    struct count_ctx *c = p;
    atomic_fetch_add(&c->hits[i], 1);
    if (w >= c->nworkers) atomic_fetch_add(&c->bad_worker, 1);
}

static void check_pool(unsigned nthreads)
{
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, nthreads, NULL), CZK_OK);
    enum { n = 10007 };
    static atomic_int hits[n];
    for (int round = 0; round < 50; round++) {
        for (int i = 0; i < n; i++) atomic_store(&hits[i], 0);
        struct count_ctx c = {hits, czk_pool_size(pool), 0};
        size_t ntasks = (size_t)(round * 200 + 1) % n + 1;
        czk_pool_run(pool, ntasks, count_task, &c);
        int wrong = 0;
        for (size_t i = 0; i < (size_t)n; i++)
            if (atomic_load(&hits[i]) != (i < ntasks ? 1 : 0)) wrong++;
        CHECK_MSG(wrong == 0, "round %d: %d tasks ran a wrong number of times", round, wrong);
        CHECK(atomic_load(&c.bad_worker) == 0);
    }
    czk_pool_destroy(pool);
}

static void test_pool_sizes(void)
{
    check_pool(1);
    check_pool(2);
    check_pool(4);
    check_pool(0);
    /* NULL pool runs serially. */
    static atomic_int hits[5];
    struct count_ctx c = {hits, 1, 0};
    czk_pool_run(NULL, 5, count_task, &c);
    for (int i = 0; i < 5; i++) CHECK(atomic_load(&hits[i]) == 1);
}

struct nest_ctx {
    czk_pool *pool;
    atomic_int total;
};

static void inner_task(void *p, size_t i, unsigned w)
{
    struct nest_ctx *c = p;
    atomic_fetch_add(&c->total, 1);
}

static void outer_task(void *p, size_t i, unsigned w)
{
    struct nest_ctx *c = p;
    czk_pool_run(c->pool, 10, inner_task, c);
}

static void test_nested(void)
{
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 3, NULL), CZK_OK);
    struct nest_ctx c = {pool, 0};
    czk_pool_run(pool, 20, outer_task, &c);
    CHECK(atomic_load(&c.total) == 200);
    czk_pool_destroy(pool);
}

/* The nice value of the thread running each task: workers at the pool's level, the caller
 * at its own. */
struct nice_ctx {
    atomic_int seen[4]; /* per worker index: nice + 100, 0 = not seen */
};

static void nice_task(void *p, size_t i, unsigned w)
{
    (void)i;
    struct nice_ctx *c = p;
    errno = 0;
    int v = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    if (w < 4 && !(v == -1 && errno != 0)) atomic_store(&c->seen[w], v + 100);
    usleep(2000); /* so that every worker takes a task */
}

static void test_nice(void)
{
    errno = 0;
    int base = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    if (base > 14) {
        printf("     (skipped: this thread already runs at nice %d)\n", base);
        return;
    }
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create_nice(&pool, 4, 5, NULL), CZK_OK);
    struct nice_ctx c;
    memset(&c, 0, sizeof c);
    czk_pool_run(pool, 64, nice_task, &c);
    CHECK_MSG(atomic_load(&c.seen[0]) == base + 100, "caller at nice %d, want %d",
              atomic_load(&c.seen[0]) - 100, base);
    for (unsigned w = 1; w < 4; w++)
        CHECK_MSG(atomic_load(&c.seen[w]) == 0 || atomic_load(&c.seen[w]) == base + 5 + 100,
                  "worker %u at nice %d, want %d", w, atomic_load(&c.seen[w]) - 100, base + 5);
    int workers_seen = 0;
    for (unsigned w = 1; w < 4; w++) workers_seen += atomic_load(&c.seen[w]) != 0;
    CHECK(workers_seen >= 1);
    czk_pool_destroy(pool);
    /* A thread lowers itself; the process's other threads keep their level. */
    CHECK(getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid)) == base);
}

/* Tasks record whether they see their run cancelled; task `trip` sets the flag. */
struct cancel_ctx {
    int *flag;
    size_t trip;
    czk_pool *other; /* a run on another pool from inside a task */
    atomic_int seen_before, seen_after, nested_seen, ran;
};

static void nested_task(void *p, size_t i, unsigned w)
{
    (void)i;
    (void)w;
    struct cancel_ctx *c = p;
    if (czk_pool_cancelled()) atomic_fetch_add(&c->nested_seen, 1);
}

static void cancel_task(void *p, size_t i, unsigned w)
{
    (void)w;
    struct cancel_ctx *c = p;
    atomic_fetch_add(&c->ran, 1);
    if (i == c->trip) __atomic_store_n(c->flag, 1, __ATOMIC_RELAXED);
    if (czk_pool_cancelled()) {
        atomic_fetch_add(i < c->trip ? &c->seen_before : &c->seen_after, 1);
        if (i == c->trip + 1 && c->other != NULL) czk_pool_run(c->other, 8, nested_task, c);
    }
}

struct probe_arg {
    czk_pool *pool;
    bool seen;
};

static void probe_task(void *p, size_t i, unsigned w)
{
    (void)i;
    (void)w;
    struct probe_arg *a = p;
    if (czk_pool_cancelled()) a->seen = true;
}

static void *other_thread(void *p)
{
    struct probe_arg *a = p;
    czk_pool_run(a->pool, 64, probe_task, a);
    return NULL;
}

static void test_cancel(void)
{
    czk_pool *pool = NULL, *other = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 4, NULL), CZK_OK);
    CHECK_STATUS(czk_pool_create(&other, 2, NULL), CZK_OK);
    CHECK(!czk_pool_cancelled());
    int flag = 0;
    czk_pool_set_cancel(&flag);
    CHECK(!czk_pool_cancelled());
    /* Serial (one task at a time on the caller), so the order is the task order. */
    struct cancel_ctx c = {&flag, 100, other, 0, 0, 0, 0};
    czk_pool_run(NULL, 1000, cancel_task, &c);
    CHECK(atomic_load(&c.seen_before) == 0 && atomic_load(&c.seen_after) == 900);
    CHECK(atomic_load(&c.nested_seen) == 8 && atomic_load(&c.ran) == 1000);
    CHECK(czk_pool_cancelled());
    /* On the pool's workers too: every task after the flag was set sees it. */
    flag = 0;
    struct cancel_ctx d = {&flag, 5, NULL, 0, 0, 0, 0};
    czk_pool_run(pool, 10000, cancel_task, &d);
    CHECK(atomic_load(&d.seen_after) >= 1 && atomic_load(&d.ran) == 10000);
    /* Another thread without a flag is not cancelled, on the same pool. */
    struct probe_arg a = {pool, false};
    pthread_t t;
    pthread_create(&t, NULL, other_thread, &a);
    pthread_join(t, NULL);
    CHECK(!a.seen);
    czk_pool_set_cancel(NULL);
    CHECK(!czk_pool_cancelled());
    czk_pool_destroy(other);
    czk_pool_destroy(pool);
}

/* Concurrent runs: each task records the thread that ran it and holds its worker index
 * while it sleeps, so two tasks of one run on one index at once are caught. */
enum { CONC_POOL = 4, CONC_TASKS = 48 };

struct conc_ctx {
    atomic_int busy[CONC_POOL];  /* tasks of this run on each worker index now */
    atomic_int clash;            /* a task found its index busy */
    atomic_int bad_worker;
    atomic_int hits[CONC_TASKS];
    pthread_t tid[CONC_TASKS];
    atomic_int inside;           /* this run's tasks in progress now */
    struct conc_ctx *peer;       /* the run beside it, or NULL */
    atomic_int overlap;          /* a task saw one of the peer's tasks in progress */
    czk_pool *pool;
};

static void conc_task(void *p, size_t i, unsigned w)
{
    struct conc_ctx *c = p;
    if (w >= CONC_POOL) {
        atomic_fetch_add(&c->bad_worker, 1);
        return;
    }
    if (atomic_fetch_add(&c->busy[w], 1) != 0) atomic_fetch_add(&c->clash, 1);
    atomic_fetch_add(&c->inside, 1);
    c->tid[i] = pthread_self();
    atomic_fetch_add(&c->hits[i], 1);
    usleep(3000);
    if (c->peer != NULL && atomic_load(&c->peer->inside) > 0) atomic_fetch_add(&c->overlap, 1);
    atomic_fetch_sub(&c->inside, 1);
    atomic_fetch_sub(&c->busy[w], 1);
}

static void *conc_caller(void *p)
{
    struct conc_ctx *c = p;
    czk_pool_run(c->pool, CONC_TASKS, conc_task, c);
    return NULL;
}

static size_t distinct_threads(const struct conc_ctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < CONC_TASKS; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++) seen = pthread_equal(c->tid[k], c->tid[i]);
        n += !seen;
    }
    return n;
}

static void check_conc(const struct conc_ctx *c)
{
    for (int i = 0; i < CONC_TASKS; i++) CHECK(atomic_load(&c->hits[i]) == 1);
    CHECK(atomic_load(&c->clash) == 0);
    CHECK(atomic_load(&c->bad_worker) == 0);
}

static void test_concurrent(void)
{
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, CONC_POOL, NULL), CZK_OK);
    /* Alone, a run gets the caller and every one of the pool's threads. */
    static struct conc_ctx lone;
    memset(&lone, 0, sizeof lone);
    lone.pool = pool;
    conc_caller(&lone);
    check_conc(&lone);
    CHECK_MSG(distinct_threads(&lone) == CONC_POOL, "a lone run ran on %zu threads, want %d",
              distinct_threads(&lone), CONC_POOL);
    /* Two callers at once: both complete, their tasks overlap in time (the second does not
     * wait for the first to end), and the two share the threads. */
    static struct conc_ctx x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    x.peer = &y;
    y.peer = &x;
    x.pool = y.pool = pool;
    pthread_t tx, ty;
    pthread_create(&tx, NULL, conc_caller, &x);
    pthread_create(&ty, NULL, conc_caller, &y);
    pthread_join(tx, NULL);
    pthread_join(ty, NULL);
    check_conc(&x);
    check_conc(&y);
    CHECK(atomic_load(&x.overlap) + atomic_load(&y.overlap) > 0);
    czk_pool_destroy(pool);
}

int main(void)
{
    czk_test_seed();
    RUN(test_pool_sizes);
    RUN(test_nested);
    RUN(test_concurrent);
    RUN(test_nice);
    RUN(test_cancel);
    return czk_test_finish();
}
