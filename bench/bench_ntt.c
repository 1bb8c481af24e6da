/*
 * bench_ntt: CPU NTT over Fr, median milliseconds per transform.
 *
 * For each size 2^min..2^max: forward NTT on 1 thread and on all threads of the pool,
 * and inverse and coset forward on all threads. One untimed warm-up run, then `reps`
 * timed runs (fewer for large sizes), median reported. The floor column is the time the
 * (n/2)·log n butterfly multiplications alone take at the Fr multiplication throughput
 * this program measures first, divided by the thread count: the transform cannot beat it
 * without a cheaper multiplication. Output: a table, then one "JSON {...}" line.
 *
 *   bench_ntt [--min 16] [--max 24] [--threads N (0 = all CPUs)] [--reps 9] [--family 0|1]
 */
#include "czk/bls12_381.h"
#include "czk/ntt.h"
#include "czk/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void fill_random(czk_fr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t l[4] = {rng64(), rng64(), rng64(), rng64() & 0x3fffffffffffffffULL};
        if (!czk_fr_from_u64s(&v[i], l)) v[i] = CZK_FR_ONE;
    }
}

/* Fr multiplications per nanosecond on one thread, many independent products in flight
 * as in a butterfly pass. */
static double mul_ns(void)
{
    enum { N = 256 };
    static czk_fr x[N], w[N];
    fill_random(x, N);
    fill_random(w, N);
    double best = 1e30;
    for (int rep = 0; rep < 7; rep++) {
        double t0 = now_ms();
        for (int r = 0; r < 2000; r++)
            for (int i = 0; i < N; i++) czk_fr_mul(&x[i], &x[i], &w[i]);
        double ns = (now_ms() - t0) * 1e6 / (2000.0 * N);
        if (ns < best) best = ns;
    }
    volatile uint64_t sink = x[7].l[0];
    (void)sink;
    return best;
}

enum { FWD, INV, COSET };

static double median_ms(const czk_ntt_domain *d, czk_fr *v, czk_pool *pool, int kind, int reps)
{
    double t[64];
    if (reps > 64) reps = 64;
    czk_fr g;
    czk_fr_from_u64(&g, 7);
    for (int i = -1; i < reps; i++) {
        double t0 = now_ms();
        switch (kind) {
        case FWD:
            czk_ntt_forward(d, v, pool);
            break;
        case INV:
            czk_ntt_inverse(d, v, pool);
            break;
        default:
            czk_ntt_coset_forward(d, v, &g, pool);
            break;
        }
        if (i >= 0) t[i] = now_ms() - t0; /* i = -1: warm-up */
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    return t[reps / 2];
}

int main(int argc, char **argv)
{
    unsigned min = 16, max = 24, threads = 0;
    int reps = 9, family = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--min") == 0 && i + 1 < argc)
            min = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
            max = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--family") == 0 && i + 1 < argc)
            family = atoi(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: %s [--min 16] [--max 24] [--threads N] [--reps 9] [--family 0|1]\n",
                    argv[0]);
            return 2;
        }
    }
    if (min < 1 || max > 28 || min > max || reps < 1) {
        fprintf(stderr, "bench_ntt: need 1 <= min <= max <= 28, reps >= 1\n");
        return 2;
    }
    czk_pool *one = NULL, *all = NULL;
    if (czk_pool_create(&one, 1, NULL) != CZK_OK ||
        czk_pool_create(&all, threads, NULL) != CZK_OK) {
        fprintf(stderr, "bench_ntt: cannot create thread pools\n");
        return 1;
    }
    unsigned nt = czk_pool_size(all);
    double tmul = mul_ns();
    printf("bench_ntt: Fr %s back end, mul %.2f ns (throughput), %u threads, roots %s\n",
           czk_ff_backend(), tmul, nt, family ? "snarkjs" : "bellperson");
    printf("%6s %12s %12s %8s %12s %12s %12s %12s\n", "log_n", "fwd 1T ms", "fwd all ms", "speedup",
           "floor 1T ms", "floor all", "inv all ms", "coset all");

    char json[8192];
    int jl = snprintf(json, sizeof json,
                      "{\"bench\":\"ntt\",\"backend\":\"%s\",\"mul_ns\":%.3f,\"threads\":%u,"
                      "\"results\":[",
                      czk_ff_backend(), tmul, nt);
    for (unsigned log_n = min; log_n <= max; log_n++) {
        size_t n = (size_t)1 << log_n;
        czk_fr *v = malloc(n * sizeof(czk_fr));
        czk_ntt_domain *d = NULL;
        if (v == NULL || czk_ntt_domain_create(&d, log_n, (czk_roots)family, NULL) != CZK_OK) {
            fprintf(stderr, "bench_ntt: 2^%u: out of memory\n", log_n);
            free(v);
            break;
        }
        fill_random(v, n);
        /* Fewer repetitions where one run takes long. */
        int r = log_n >= 23 ? (reps < 5 ? reps : 5) : reps;
        double f1 = median_ms(d, v, one, FWD, log_n >= 23 ? (r < 3 ? r : 3) : r);
        double fa = median_ms(d, v, all, FWD, r);
        double ia = median_ms(d, v, all, INV, r);
        double ca = median_ms(d, v, all, COSET, r);
        double floor1 = (double)(n / 2) * log_n * tmul / 1e6;
        printf("%6u %12.2f %12.2f %8.2f %12.2f %12.2f %12.2f %12.2f\n", log_n, f1, fa, f1 / fa,
               floor1, floor1 / nt, ia, ca);
        fflush(stdout);
        if (jl < (int)sizeof json - 256)
            jl += snprintf(json + jl, sizeof json - (size_t)jl,
                           "%s{\"log_n\":%u,\"fwd_1t_ms\":%.3f,\"fwd_all_ms\":%.3f,"
                           "\"inv_all_ms\":%.3f,\"coset_fwd_all_ms\":%.3f,\"floor_1t_ms\":%.3f}",
                           log_n == min ? "" : ",", log_n, f1, fa, ia, ca, floor1);
        czk_ntt_domain_destroy(d);
        free(v);
    }
    printf("JSON %s]}\n", json);
    czk_pool_destroy(one);
    czk_pool_destroy(all);
    return 0;
}
