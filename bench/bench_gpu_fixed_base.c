/*
 * Fixed-base multiplication of the generators (test-parameter generation): the GPU
 * (czk_gpu_g1s/g2s_fixed_base, host arrays in and out, copies included) against the CPU
 * path of src/groth16/fixed_base.c on a pool of --threads workers. Random canonical
 * scalars. The GPU is warmed up once (its first call builds the window table), then the
 * median of --reps runs; the CPU takes the median of --cpu-reps runs. Both results are
 * compared byte for byte (the last CPU run against the last GPU run).
 *
 *   bench_gpu_fixed_base [--g1-log 24] [--g2-log 22] [--reps 5] [--cpu-reps 3]
 *                        [--threads 16] [--no-cpu] [--gpu 0]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "czk/gpu.h"
#include "czk/pool.h"
#include "groth16/fixed_base.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rand64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

struct opts {
    unsigned g1_log, g2_log;
    int reps, cpu_reps, gpu;
    unsigned threads;
    int no_cpu;
};

/* One group: GPU median, CPU median, comparison. Returns 0 when all went well. */
static int bench_group(int group, unsigned log_n, const struct opts *o, czk_pool *pool)
{
    size_t n = (size_t)1 << log_n;
    size_t psz = group == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
    czk_fr *k = xmalloc(n * sizeof *k);
    for (size_t i = 0; i < n; i++) {
        uint64_t w[8];
        for (int j = 0; j < 8; j++) w[j] = rand64();
        czk_fr_from_wide_bytes(&k[i], (const uint8_t *)w);
    }
    void *g = xmalloc(n * psz);
    czk_err err;
    double t[64];
    int reps = o->reps > 64 ? 64 : o->reps;
    for (int r = -1; r < reps; r++) {
        double t0 = now();
        czk_status st = group == 1 ? czk_gpu_g1s_fixed_base(o->gpu, g, k, n, &err)
                                   : czk_gpu_g2s_fixed_base(o->gpu, g, k, n, &err);
        if (st != CZK_OK) {
            fprintf(stderr, "GPU G%d 2^%u: %s\n", group, log_n, err.msg);
            return 1;
        }
        if (r >= 0) t[r] = now() - t0;
        else printf("G%d 2^%u GPU first call (table build included): %.3f s\n", group, log_n,
                    now() - t0);
    }
    double gpu_s = median(t, reps);
    printf("G%d 2^%u GPU: median %.3f s over %d runs, %.2f M points/s\n", group, log_n, gpu_s,
           reps, (double)n / gpu_s / 1e6);
    int rc = 0;
    if (!o->no_cpu) {
        void *c = xmalloc(n * psz);
        int cr = o->cpu_reps > 64 ? 64 : (o->cpu_reps < 1 ? 1 : o->cpu_reps);
        czk__fixed_base_set_where(CZK__FIXED_BASE_CPU);
        for (int r = 0; r < cr; r++) {
            czk__progress pr = {0};
            double t0 = now();
            czk_status st = group == 1 ? czk__g1s_fixed_base(c, k, n, pool, &pr, &err)
                                       : czk__g2s_fixed_base(c, k, n, pool, &pr, &err);
            if (st != CZK_OK) {
                fprintf(stderr, "CPU G%d: %s\n", group, err.msg);
                return 1;
            }
            t[r] = now() - t0;
        }
        double cpu_s = median(t, cr);
        int same = memcmp(c, g, n * psz) == 0;
        printf("G%d 2^%u CPU (%u threads): median %.3f s over %d runs, %.2f M points/s; "
               "GPU speedup %.1fx; results %s\n",
               group, log_n, o->threads, cpu_s, cr, (double)n / cpu_s / 1e6, cpu_s / gpu_s,
               same ? "identical" : "DIFFER");
        rc = !same;
        free(c);
    }
    free(k);
    free(g);
    return rc;
}

int main(int argc, char **argv)
{
    struct opts o = {24, 22, 5, 3, 0, 16, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!strcmp(a, "--g1-log")) o.g1_log = (unsigned)atoi(v), i++;
        else if (!strcmp(a, "--g2-log")) o.g2_log = (unsigned)atoi(v), i++;
        else if (!strcmp(a, "--reps")) o.reps = atoi(v), i++;
        else if (!strcmp(a, "--cpu-reps")) o.cpu_reps = atoi(v), i++;
        else if (!strcmp(a, "--threads")) o.threads = (unsigned)atoi(v), i++;
        else if (!strcmp(a, "--gpu")) o.gpu = atoi(v), i++;
        else if (!strcmp(a, "--no-cpu")) o.no_cpu = 1;
        else {
            fprintf(stderr, "unknown option %s\n", a);
            return 2;
        }
    }
    if (o.reps < 1) o.reps = 1;
    if (czk_gpu_count() == 0) {
        fprintf(stderr, "no GPU\n");
        return 77;
    }
    czk_gpu_info info;
    czk_err err;
    if (czk_gpu_get_info(o.gpu, &info, &err) == CZK_OK) printf("GPU %d: %s\n", o.gpu, info.name);
    czk_pool *pool = NULL;
    if (czk_pool_create(&pool, o.threads, &err) != CZK_OK) {
        fprintf(stderr, "pool: %s\n", err.msg);
        return 1;
    }
    int rc = bench_group(1, o.g1_log, &o, pool);
    rc |= bench_group(2, o.g2_log, &o, pool);
    czk_pool_destroy(pool);
    return rc;
}
