/*
 * CPU MSM benchmark: median time of czk_g1s_msm for 2^g1-min .. 2^g1-max points and of
 * czk_g2s_msm for 2^g2-min .. 2^g2-max, with us per point per core (median × threads /
 * n; and CPU us per point, the process's CPU time / n, which a busy machine disturbs
 * less) next to the targets and the peer (blst's single-threaded Pippenger on this machine
 * class), then one "JSON {...}" line.
 *
 *   bench_msm [--g1-min 16] [--g1-max 22] [--g2-min 16] [--g2-max 20] [--threads T]
 *             [--bits01 F] [--reps R] [--xyzz] [--batch K] [--window C]
 *
 * --bits01 F makes a fraction F of the scalars 0 or 1 (half each), as in the witnesses of
 * SHA-256-heavy circuits; the rest are uniform in [0, r). --xyzz, --batch and --window
 * override the plan (for measuring the choices the plan makes). Bases are a random walk
 * (P_i = P_{i−1} + one of 64 random multiples of the generator), built once for the
 * largest size; timings use prefixes of them with fresh random scalars.
 */
#include "czk/alloc.h"
#include "czk/msm.h"
#include "msm/msm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Targets and the peer, in us per point per core (G1 at 2^20, G2 at 2^18). */
#define G1_TARGET 5.0
#define G1_PEER   6.3
#define G2_TARGET 16.0
#define G2_PEER   19.7

static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint64_t rand64(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rand_fr(czk_fr *a)
{
    uint8_t w[64];
    for (int i = 0; i < 8; i++) {
        uint64_t v = rand64();
        memcpy(w + 8 * i, &v, 8);
    }
    czk_fr_from_wide_bytes(a, w);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the whole process (all threads): on a shared machine, time spent waiting
 * for a core is not counted, so CPU us per point is steadier than wall time. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void fill_scalars(czk_scalar *s, size_t n, double bits01)
{
    for (size_t i = 0; i < n; i++) {
        double u = (double)(rand64() >> 11) * 0x1.0p-53;
        if (u < bits01) {
            memset(&s[i], 0, sizeof s[i]);
            s[i].l[0] = rand64() & 1;
        } else {
            czk_fr f;
            rand_fr(&f);
            czk_fr_to_u64s(s[i].l, &f);
        }
    }
}

#define NSTEPS 64

static czk_g1_affine *g1_bases(size_t n)
{
    czk_g1_affine *p = czk_malloc(n * sizeof *p);
    czk_g1_jac *jac = czk_malloc(n * sizeof *jac);
    czk_g1_jac step[NSTEPS], g, cur;
    czk_g1_jac_from_affine(&g, &CZK_G1_GENERATOR);
    for (int j = 0; j < NSTEPS; j++) {
        czk_fr f;
        uint64_t e[4];
        rand_fr(&f);
        czk_fr_to_u64s(e, &f);
        czk_g1_jac_mul(&step[j], &g, e, 4);
    }
    cur = step[0];
    for (size_t i = 0; i < n; i++) {
        czk_g1_jac_add(&cur, &cur, &step[rand64() % NSTEPS]);
        jac[i] = cur;
    }
    czk_g1s_jac_to_affine(p, jac, n, NULL);
    czk_free(jac);
    return p;
}

static czk_g2_affine *g2_bases(size_t n)
{
    czk_g2_affine *p = czk_malloc(n * sizeof *p);
    czk_g2_jac *jac = czk_malloc(n * sizeof *jac);
    czk_g2_jac step[NSTEPS], g, cur;
    czk_g2_jac_from_affine(&g, &CZK_G2_GENERATOR);
    for (int j = 0; j < NSTEPS; j++) {
        czk_fr f;
        uint64_t e[4];
        rand_fr(&f);
        czk_fr_to_u64s(e, &f);
        czk_g2_jac_mul(&step[j], &g, e, 4);
    }
    cur = step[0];
    for (size_t i = 0; i < n; i++) {
        czk_g2_jac_add(&cur, &cur, &step[rand64() % NSTEPS]);
        jac[i] = cur;
    }
    czk_g2s_jac_to_affine(p, jac, n, NULL);
    czk_free(jac);
    return p;
}

struct result {
    int group, lg;
    double median_ms, us_pt_core, cpu_us_pt;
    czk__msm_plan plan;
};

static void print_plan(const czk__msm_plan *p)
{
    printf("c=%-2u win=%-3u split=%-2u %s", p->c, p->nwin, p->nsplit,
           p->batch ? "batch-affine" : "xyzz");
    if (p->batch) printf(" K=%u", p->batch);
}

int main(int argc, char **argv)
{
    int g1_min = 16, g1_max = 22, g2_min = 16, g2_max = 20, reps = 0;
    unsigned threads = 0;
    double bits01 = 0.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--xyzz")) {
            czk__msm_force_batch = -1;
            continue;
        }
        if (v == NULL) goto usage;
        if (!strcmp(a, "--g1-min"))
            g1_min = atoi(v);
        else if (!strcmp(a, "--g1-max"))
            g1_max = atoi(v);
        else if (!strcmp(a, "--g2-min"))
            g2_min = atoi(v);
        else if (!strcmp(a, "--g2-max"))
            g2_max = atoi(v);
        else if (!strcmp(a, "--threads"))
            threads = (unsigned)atoi(v);
        else if (!strcmp(a, "--bits01"))
            bits01 = atof(v);
        else if (!strcmp(a, "--reps"))
            reps = atoi(v);
        else if (!strcmp(a, "--batch"))
            czk__msm_force_batch = atoi(v);
        else if (!strcmp(a, "--window"))
            czk__msm_force_c = (unsigned)atoi(v);
        else
            goto usage;
        i++;
    }
    if (threads == 0) threads = czk_cpu_count();
    czk_pool *pool = NULL;
    if (czk_pool_create(&pool, threads, NULL) != CZK_OK) {
        fprintf(stderr, "cannot create a pool of %u threads\n", threads);
        return 1;
    }
    printf("czk MSM (CPU): field back end %s, %u threads, bits01 %.2f\n", czk_ff_backend(), threads,
           bits01);
    printf("targets (us/point/core): G1 %.1f at 2^20 (peer blst 1 thread: %.1f), G2 %.1f at "
           "2^18 (peer %.1f)\n",
           G1_TARGET, G1_PEER, G2_TARGET, G2_PEER);
    printf("%-5s %-6s %12s %14s %10s %8s %8s  %s\n", "group", "n", "median ms", "us/pt/core",
           "cpu us/pt", "target", "peer", "plan");

    struct result res[64];
    int nres = 0;
    for (int group = 1; group <= 2; group++) {
        int lo = group == 1 ? g1_min : g2_min, hi = group == 1 ? g1_max : g2_max;
        if (hi < lo || hi <= 0) continue;
        size_t nmax = (size_t)1 << hi;
        void *bases = group == 1 ? (void *)g1_bases(nmax) : (void *)g2_bases(nmax);
        czk_scalar *s = czk_malloc(nmax * sizeof *s);
        size_t ss = group == 1 ? czk_g1s_msm_scratch_size(nmax, threads)
                               : czk_g2s_msm_scratch_size(nmax, threads);
        void *scratch = czk_malloc(ss);
        for (int lg = lo; lg <= hi; lg++) {
            size_t n = (size_t)1 << lg;
            int r = reps > 0 ? reps : lg <= 17 ? 7 : lg <= 19 ? 5 : 3;
            double t[32], tc[32];
            if (r > 32) r = 32;
            fill_scalars(s, n, bits01);
            for (int k = -1; k < r; k++) { /* k = −1: warm-up */
                czk_g1_jac o1;
                czk_g2_jac o2;
                double t0 = now(), c0 = cpu_now();
                if (group == 1)
                    czk_g1s_msm(&o1, bases, s, n, NULL, scratch, pool);
                else
                    czk_g2s_msm(&o2, bases, s, n, NULL, scratch, pool);
                if (k >= 0) {
                    t[k] = now() - t0;
                    tc[k] = cpu_now() - c0;
                }
            }
            qsort(t, (size_t)r, sizeof t[0], cmp_double);
            qsort(tc, (size_t)r, sizeof tc[0], cmp_double);
            struct result *R = &res[nres++];
            R->group = group;
            R->lg = lg;
            R->median_ms = 1e3 * t[r / 2];
            R->us_pt_core = 1e6 * t[r / 2] * threads / (double)n;
            R->cpu_us_pt = 1e6 * tc[r / 2] / (double)n;
            /* The plan the MSM used (same inputs to the plan as inside). */
            czk__msm_layout L;
            const czk__msm_group *g = group == 1 ? &czk__msm_g1_group : &czk__msm_g2_group;
            czk__msm_layout_compute(&L, nmax, threads, g);
            size_t n01 = 0, n1 = 0;
            unsigned nbits = 0;
            for (size_t i = 0; i < n; i++) {
                bool small = (s[i].l[1] | s[i].l[2] | s[i].l[3]) == 0 && s[i].l[0] <= 1;
                n01 += small;
                n1 += small && s[i].l[0] == 1;
                if (!small) nbits = 255;
            }
            czk__msm_plan_choose(&R->plan, n - n01, nbits, n1, threads, L.c_cap, L.batch_cap, g);
            printf("G%d    2^%-4d %12.1f %14.2f %10.2f %8.1f %8.1f  ", group, lg, R->median_ms,
                   R->us_pt_core, R->cpu_us_pt, group == 1 ? G1_TARGET : G2_TARGET,
                   group == 1 ? G1_PEER : G2_PEER);
            print_plan(&R->plan);
            printf("\n");
            fflush(stdout);
        }
        czk_free(scratch);
        czk_free(s);
        czk_free(bases);
    }

    printf("JSON {\"bench\":\"msm\",\"backend\":\"%s\",\"threads\":%u,\"bits01\":%.3f,"
           "\"targets\":{\"g1\":%.1f,\"g2\":%.1f},\"peers\":{\"g1\":%.1f,\"g2\":%.1f},"
           "\"results\":[",
           czk_ff_backend(), threads, bits01, G1_TARGET, G2_TARGET, G1_PEER, G2_PEER);
    for (int i = 0; i < nres; i++) {
        printf("%s{\"group\":\"g%d\",\"log_n\":%d,\"median_ms\":%.3f,\"us_per_point_core\":%.3f,"
               "\"cpu_us_per_point\":%.3f,\"c\":%u,\"batch\":%u,\"split\":%u}",
               i ? "," : "", res[i].group, res[i].lg, res[i].median_ms, res[i].us_pt_core,
               res[i].cpu_us_pt, res[i].plan.c, res[i].plan.batch, res[i].plan.nsplit);
    }
    printf("]}\n");
    czk_pool_destroy(pool);
    return 0;

usage:
    fprintf(stderr,
            "usage: %s [--g1-min L] [--g1-max L] [--g2-min L] [--g2-max L] [--threads T] "
            "[--bits01 F] [--reps R] [--xyzz] [--batch K] [--window C]\n",
            argv[0]);
    return 2;
}
