/*
 * bench_poseidon: single-thread Poseidon hashes per second for every arity, optimized
 * (neptune "static", what czk_poseidon_merkle runs) and plain (the reference), plus the
 * one-off cost of deriving each arity's constants.
 *
 * Each hash row times a dependent chain of Merkle hashes (the digest feeds the next
 * preimage), repeated `reps` times after one untimed warm-up; the median is reported.
 * Times are thread CPU time, so other jobs on a shared machine do not inflate them.
 *
 * The "mul bound" column is the hash's count of Fr multiplications and squarings times
 * the measured throughput of czk_fr_mul (four independent chains): the floor for a hash
 * built from czk_fr_mul, as the ADX build's is. The portable build reduces its dot
 * products lazily (one reduction per output, not per product) and runs below it.
 * The init column is one measurement per arity (constants are derived once per process).
 *
 *   bench_poseidon [--quick] [--json-only]
 */
#include "czk/bls12_381.h"
#include "czk/poseidon.h"
#include "hash/poseidon_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const unsigned ARITIES[] = {2, 4, 8, 11, 16, 24, 36};
#define NARITIES (sizeof ARITIES / sizeof ARITIES[0])

static int reps = 15;
static double scale = 1.0;
static volatile uint64_t sink;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef void (*permute_fn)(const czk_poseidon_params *p, czk_fr *state);

/* `iters` dependent Merkle hashes: preimage = [digest, 1, 2, ...]. */
static void run_chain(const czk_poseidon_params *p, permute_fn fn, long iters)
{
    czk_fr s[CZK_POSEIDON_MAX_WIDTH], digest;
    czk_fr_from_u64(&digest, 12345);
    for (long k = 0; k < iters; k++) {
        s[0] = p->merkle_tag;
        s[1] = digest;
        for (unsigned i = 2; i < p->t; i++) czk_fr_from_u64(&s[i], i);
        fn(p, s);
        digest = s[1];
    }
    sink = digest.l[0];
}

static double median_ns_per_hash(const czk_poseidon_params *p, permute_fn fn, long iters)
{
    double t[64];
    int n = reps < 64 ? reps : 64;
    run_chain(p, fn, iters); /* warm-up */
    for (int i = 0; i < n; i++) {
        double t0 = now_ns();
        run_chain(p, fn, iters);
        t[i] = (now_ns() - t0) / (double)iters;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return t[n / 2];
}

/* Nanoseconds per czk_fr_mul: as a dependent chain (latency) when `lanes` is 1, or with
 * `lanes` independent chains interleaved (throughput, the figure a hash with independent
 * products per round can approach). */
static double fr_mul_ns(int lanes)
{
    double t[64];
    int n = reps < 64 ? reps : 64;
    long iters = (long)(2000000 * scale) / lanes + 1;
    czk_fr acc[4], b;
    for (int l = 0; l < 4; l++) czk_fr_from_u64(&acc[l], 3 + (uint64_t)l);
    czk_fr_from_u64(&b, 0x123456789abcdefULL);
    for (int i = 0; i < n; i++) {
        double t0 = now_ns();
        for (long k = 0; k < iters; k++)
            for (int l = 0; l < lanes; l++) czk_fr_mul(&acc[l], &acc[l], &b);
        t[i] = (now_ns() - t0) / (double)(iters * lanes);
    }
    sink = acc[0].l[0] ^ acc[lanes - 1].l[0];
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return t[n / 2];
}

/* Multiplications (squarings counted as one) per permutation. */
static double muls_opt(const czk_poseidon_params *p)
{
    double t = p->t;
    return p->rf * (3 * t + t * t) + p->rp * (3 + 2 * t - 1);
}

static double muls_plain(const czk_poseidon_params *p)
{
    double t = p->t;
    return p->rf * (3 * t + t * t) + p->rp * (3 + t * t);
}

int main(int argc, char **argv)
{
    bool json_only = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            scale = 0.1;
            reps = 5;
        } else if (strcmp(argv[i], "--json-only") == 0) {
            json_only = true;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--json-only]\n", argv[0]);
            return 2;
        }
    }

    double init_ms[NARITIES], opt_ns[NARITIES], plain_ns[NARITIES], bound_ns[NARITIES];
    const czk_poseidon_params *ps[NARITIES];
    for (size_t k = 0; k < NARITIES; k++) {
        double t0 = now_ns();
        ps[k] = czk_poseidon_params_get(ARITIES[k]);
        init_ms[k] = (now_ns() - t0) / 1e6;
    }
    double mul_lat_ns = fr_mul_ns(1), mul_ns = fr_mul_ns(4);
    for (size_t k = 0; k < NARITIES; k++) {
        const czk_poseidon_params *p = ps[k];
        /* About 20 ms of work per repetition at any arity. */
        long iters = (long)(2e7 / (muls_opt(p) * mul_ns) * scale) + 1;
        opt_ns[k] = median_ns_per_hash(p, czk__poseidon_permute_opt, iters);
        plain_ns[k] = median_ns_per_hash(p, czk__poseidon_permute_plain, iters / 2 + 1);
        bound_ns[k] = muls_opt(p) * mul_ns;
    }

    if (!json_only) {
        printf("Poseidon (neptune), single thread, field back end %s, czk_fr_mul %.1f ns "
               "(throughput; latency %.1f ns)\n",
               czk_ff_backend(), mul_ns, mul_lat_ns);
        printf("%-6s %4s %4s %12s %12s %10s %10s %9s %11s %12s %8s\n", "arity", "t", "R_P",
               "opt hash/s", "plain hash/s", "opt us", "plain us", "speedup", "muls o/p",
               "mul bound us", "init ms");
        for (size_t k = 0; k < NARITIES; k++) {
            const czk_poseidon_params *p = ps[k];
            printf("%-6u %4u %4u %12.0f %12.0f %10.2f %10.2f %8.2fx %5.0f/%-5.0f %12.2f %8.2f\n",
                   p->arity, p->t, p->rp, 1e9 / opt_ns[k], 1e9 / plain_ns[k], opt_ns[k] / 1e3,
                   plain_ns[k] / 1e3, plain_ns[k] / opt_ns[k], muls_opt(p), muls_plain(p),
                   bound_ns[k] / 1e3, init_ms[k]);
        }
    }
    printf("JSON {\"bench\":\"poseidon\",\"ff_backend\":\"%s\",\"fr_mul_ns\":%.2f,"
           "\"fr_mul_latency_ns\":%.2f",
           czk_ff_backend(), mul_ns, mul_lat_ns);
    for (size_t k = 0; k < NARITIES; k++)
        printf(",\"arity%u\":{\"opt_hash_per_s\":%.0f,\"plain_hash_per_s\":%.0f,\"opt_ns\":%.0f,"
               "\"plain_ns\":%.0f,\"mul_bound_ns\":%.0f,\"init_ms\":%.2f}",
               ARITIES[k], 1e9 / opt_ns[k], 1e9 / plain_ns[k], opt_ns[k], plain_ns[k], bound_ns[k],
               init_ms[k]);
    printf("}\n");
    return 0;
}
