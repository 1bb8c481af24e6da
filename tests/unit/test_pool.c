/* The thread pool: every task runs exactly once, worker indices are in range, nested runs
 * complete, and many back-to-back runs neither lose nor repeat tasks. */
#include "czk/pool.h"
#include "czk_test.h"

#include <errno.h>
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

int main(void)
{
    czk_test_seed();
    RUN(test_pool_sizes);
    RUN(test_nested);
    RUN(test_nice);
    return czk_test_finish();
}
