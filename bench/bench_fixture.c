/*
 * bench_fixture: how long a synthetic PoRep C1 fixture (czk_porep_fixture, test data)
 * takes for the production sizes, next to the target of "seconds" (10 s) that makes it
 * usable for GPU prover runs without sealing a sector.
 *
 * Rows, each a median over --reps timed runs after one untimed warm-up (which also
 * derives the Poseidon constants): fixture generation on the pool (wall clock) and on
 * one thread (wall clock and that thread's CPU time, which other load does not inflate), the full czk_porep_c1_verify of the result, and serializing it to C1 JSON
 * (with its size), for StackedDrg32GiBV1_1 and StackedDrg64GiBV1_1. Output: a table,
 * then one "JSON {...}" line. SDR labelling MB/s is bench_label's.
 *
 *   bench_fixture [--reps R] [--threads T]
 */
#include "czk/alloc.h"
#include "czk/pool.h"
#include "czk/porep_vanilla.h"
#include "czk/vanilla.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TARGET_S 10.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* This thread's CPU time: the single-thread row is robust to other load on a shared
 * machine this way. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct row {
    double gen_pool, gen_1, gen_1_cpu, verify, json;
    size_t json_bytes;
} row;

static int measure(czk_seal_proof proof, czk_pool *pool, int reps, row *r)
{
    double gp[16], g1[16], g1c[16], vf[16], js[16];
    czk_err err;
    for (int i = -1; i < reps; i++) {
        czk_porep_c1_output *c1 = NULL;
        double t0 = now_s();
        if (czk_porep_fixture(&c1, proof, (uint64_t)(i + 2), pool, &err)) goto fail;
        double t1 = now_s();
        czk_porep_c1_output *c1b = NULL;
        double c0 = cpu_s();
        if (czk_porep_fixture(&c1b, proof, (uint64_t)(i + 2), NULL, &err)) goto fail;
        double t2 = now_s(), c1t = cpu_s();
        czk_porep_c1_output_free(c1b);
        double t3 = now_s();
        if (czk_porep_c1_verify(c1, proof, 0, &err)) goto fail;
        double t4 = now_s();
        uint8_t *json = NULL;
        size_t len = 0;
        if (czk_porep_c1_write_json(c1, &json, &len, &err)) goto fail;
        double t5 = now_s();
        czk_free(json);
        czk_porep_c1_output_free(c1);
        if (i < 0) continue;
        gp[i] = t1 - t0;
        g1[i] = t2 - t1;
        g1c[i] = c1t - c0;
        vf[i] = t4 - t3;
        js[i] = t5 - t4;
        r->json_bytes = len;
    }
    r->gen_pool = median(gp, reps);
    r->gen_1 = median(g1, reps);
    r->gen_1_cpu = median(g1c, reps);
    r->verify = median(vf, reps);
    r->json = median(js, reps);
    return 0;
fail:
    fprintf(stderr, "bench_fixture: %s\n", err.msg);
    return 1;
}

int main(int argc, char **argv)
{
    int reps = 3;
    unsigned threads = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_fixture [--reps R] [--threads T]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 16) reps = 3;
    czk_pool *pool = NULL;
    czk_err err;
    if (czk_pool_create(&pool, threads, &err)) {
        fprintf(stderr, "bench_fixture: %s\n", err.msg);
        return 1;
    }
    static const czk_seal_proof proofs[] = {CZK_SEAL_StackedDrg32GiBV1_1,
                                            CZK_SEAL_StackedDrg64GiBV1_1};
    row r[2];
    printf("synthetic PoRep C1 fixtures (test data), median of %d, pool of %u threads\n", reps,
           czk_pool_size(pool));
    printf("  %-22s %10s %10s %10s %10s %10s %10s %8s\n", "proof", "gen pool", "gen 1 thr",
           "1 thr CPU", "verify", "JSON", "JSON MB", "target");
    for (int p = 0; p < 2; p++) {
        if (measure(proofs[p], pool, reps, &r[p])) return 1;
        printf("  %-22s %9.2fs %9.2fs %9.2fs %9.2fs %9.2fs %10.1f %7.0fs\n",
               czk_seal_proof_name(proofs[p]), r[p].gen_pool, r[p].gen_1, r[p].gen_1_cpu,
               r[p].verify, r[p].json, (double)r[p].json_bytes / 1e6, TARGET_S);
    }
    printf("JSON {\"bench\":\"fixture\",\"threads\":%u,\"reps\":%d,\"target_s\":%.0f", czk_pool_size(pool),
           reps, TARGET_S);
    for (int p = 0; p < 2; p++)
        printf(",\"%s\":{\"gen_pool_s\":%.3f,\"gen_1thread_s\":%.3f,\"gen_1thread_cpu_s\":%.3f,"
               "\"verify_s\":%.3f,\"json_s\":%.3f,\"json_bytes\":%zu}",
               czk_seal_proof_name(proofs[p]), r[p].gen_pool, r[p].gen_1, r[p].gen_1_cpu,
               r[p].verify, r[p].json, r[p].json_bytes);
    printf("}\n");
    czk_pool_destroy(pool);
    return 0;
}
