/*
 * GPU MSM benchmark: G1 at 2^20, 2^24, 2^26 (2^27 with --max-log 27) with random 255-bit
 * scalars, the PoRep-like profile (90% of scalars in {0, 1}, half each; the rest random) at
 * 2^26, and G2 at 2^--g2-log (default 24). Bases and scalars are already on the device; the
 * time is CUDA-event time of the MSM call (classification, sorting, buckets, reduction and
 * the copy of the window sums back; the final Horner on the host is < 0.1 ms). One warm-up,
 * then the median of --reps runs. Also the device Fp and Fr multiplication rates.
 *
 * Bases: distinct points made on the GPU (czk_gpu_bases_synthesize: P = H + t·D2 + j·D1
 * for random subgroup points H, D1, D2), since 2^26 random points would take the CPU hours.
 *
 *   bench_gpu_msm [--max-log 26] [--min-log 20] [--g2-log 24] [--no-01] [--witness]
 *                 [--reps 5] [--gpu 0] [--configs "W=21,L=64;W=22;..."]
 *
 * --configs sweeps the MSM tuning knobs (czk_gpu_tuning, include/czk/gpu.h): each
 * ';'-separated configuration sets msm_window (W), msm_chunk (L), msm_red_threads (R) and
 * msm_group (G), leaving unnamed ones at their defaults, and is timed on the same bases and
 * scalars; "-" is the defaults. The first configuration's figures go to the JSON line.
 *
 * Each line prints the floor (docs/gpu.md §6.1: XYZZ mixed adds at 2.59 G/s) and
 * the sppark peer on the same H200. A "JSON {...}" line closes the output.
 */
#include "czk/gpu.h"
#include "czk/msm.h"
#include "../cuda/gpu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* A share p_sig of uniform 255-bit scalars, p_one of ones, the rest zeros. */
static void fill_scalars(czk_scalar *s, size_t n, double p_sig, double p_one)
{
    for (size_t i = 0; i < n; i++) {
        double u = (double)(rand64() >> 11) * 0x1.0p-53;
        if (u >= p_sig) {
            memset(&s[i], 0, sizeof s[i]);
            s[i].l[0] = u < p_sig + p_one ? 1 : 0;
            continue;
        }
        for (int j = 0; j < 4; j++) s[i].l[j] = rand64();
        s[i].l[3] &= ~(1ULL << 63);
    }
}

typedef struct result {
    const char *name;
    unsigned log_n;
    double ms, floor_ms, peer_ms, target_ms;
    unsigned window;
} result;

static result results[16];
static int nresults;

/* The knob configurations of --configs, as "W=..,L=..,R=..,G=.." strings. */
#define MAX_CONFIGS 16
static char *configs[MAX_CONFIGS];
static int nconfigs;

/* Set the MSM tuning knobs (czk_gpu_tuning) for configuration k; the knobs it leaves out
 * get their defaults. */
static void apply_config(int k)
{
    static const struct {
        char key;
        const char *knob;
    } knobs[] = {
        {'W', "msm_window"}, {'L', "msm_chunk"}, {'R', "msm_red_threads"}, {'G', "msm_group"}};
    czk_gpu_tuning t;
    czk_err err;
    czk_gpu_get_tuning(&t);
    const char *cfg = k < nconfigs ? configs[k] : "";
    for (size_t j = 0; j < sizeof knobs / sizeof knobs[0]; j++) {
        char v[16] = "";
        for (const char *p = cfg; *p != '\0'; p++) {
            if (*p == knobs[j].key && p[1] == '=' && (p == cfg || p[-1] == ',')) {
                size_t len = strcspn(p + 2, ",");
                if (len >= sizeof v) len = sizeof v - 1;
                memcpy(v, p + 2, len);
                v[len] = '\0';
            }
        }
        if (czk_gpu_tuning_parse(&t, knobs[j].knob, v, &err) != CZK_OK)
            fprintf(stderr, "--configs: %s\n", err.msg);
    }
    if (czk_gpu_set_tuning(&t, &err) != CZK_OK) fprintf(stderr, "--configs: %s\n", err.msg);
}

/* n scalars of the profile (p_sig, p_one) drawn on the host and uploaded; NULL on failure. */
static czk_gpu_scalars *upload_scalars(int gpu, size_t n, double p_sig, double p_one)
{
    czk_err err;
    czk_scalar *s = malloc(n * sizeof *s);
    if (s == NULL) {
        fprintf(stderr, "out of host memory\n");
        return NULL;
    }
    fill_scalars(s, n, p_sig, p_one);
    czk_gpu_scalars *ds = NULL;
    if (czk_gpu_scalars_upload(gpu, s, n, &ds, &err) != CZK_OK) {
        fprintf(stderr, "upload: %s\n", err.msg);
        ds = NULL;
    }
    free(s);
    return ds;
}

static int run_msm(int gpu, int group, czk_gpu_bases *bases, size_t n, double p_sig,
                   double p_one, int reps, const char *name, unsigned log_n, double floor_ms,
                   double peer_ms, double target_ms)
{
    czk_err err;
    czk_gpu_scalars *ds = upload_scalars(gpu, n, p_sig, p_one);
    if (ds == NULL) return 1;
    if (reps > 31) reps = 31;
    int ncfg = nconfigs > 0 ? nconfigs : 1, failed = 0, any_failed = 0;
    for (int cfg = 0; cfg < ncfg; cfg++) {
        double t[32];
        czk_gpu_msm_stats st;
        memset(&st, 0, sizeof st);
        apply_config(cfg);
        for (int r = 0; r <= reps; r++) { /* r = 0: warm-up */
            czk_status rc;
            if (group == 1) {
                czk_g1_jac out;
                rc = czk_gpu_g1s_msm_resident(&out, bases, ds, n, NULL, &st, &err);
            } else {
                czk_g2_jac out;
                rc = czk_gpu_g2s_msm_resident(&out, bases, ds, n, NULL, &st, &err);
            }
            if (rc != CZK_OK) {
                fprintf(stderr, "%s: %s %s\n", name, czk_status_name(rc), err.msg);
                failed = 1;
                break;
            }
            if (r > 0) t[r - 1] = st.device_ms;
        }
        if (failed) { /* a configuration may fail (memory); the others still run */
            if (nconfigs > 0 && cfg + 1 < ncfg) {
                failed = 0;
                any_failed = 1;
                continue;
            }
            break;
        }
        qsort(t, (size_t)reps, sizeof t[0], cmp_double);
        double med = t[reps / 2];
        if (floor_ms > 0)
            printf("%-22s 2^%-2u %9.1f ms  window %2u  sig %10zu  floor %7.1f ms (%.2fx)  peer "
                   "%7.1f ms  target %7.1f ms  %s%s%s (min %.1f max %.1f)\n",
                   name, log_n, med, st.window_bits, st.n_sig, floor_ms, med / floor_ms, peer_ms,
                   target_ms, target_ms > 0 ? (med <= target_ms ? "MET" : "missed") : "",
                   nconfigs > 0 ? "  config " : "", nconfigs > 0 ? configs[cfg] : "", t[0],
                   t[reps - 1]);
        else /* a profile without a floor: its counts instead */
            printf("%-22s 2^%-2u %9.1f ms  window %2u  sig %10zu  ones %10zu (tree %zu)  %s%s "
                   "(min %.1f max %.1f)\n",
                   name, log_n, med, st.window_bits, st.n_sig, st.n_one, st.n_one_tree,
                   nconfigs > 0 ? "  config " : "", nconfigs > 0 ? configs[cfg] : "", t[0],
                   t[reps - 1]);
        fflush(stdout);
        if (cfg == 0 && nresults < 16)
            results[nresults++] =
                (result){name, log_n, med, floor_ms, peer_ms, target_ms, st.window_bits};
    }
    apply_config(nconfigs); /* back to the defaults */
    czk_gpu_scalars_destroy(ds);
    return failed || any_failed;
}

/* --witness: the same scalars in pieces of 2^piece_log through the accumulator the partition
 * prover's witness MSMs use (czk__gpu_msm_acc), device time summed over the pieces. */
static int run_acc(int gpu, czk_gpu_bases *bases, size_t n, unsigned piece_log, double p_sig,
                   double p_one, int reps, const char *name, unsigned log_n)
{
    czk_err err;
    czk_gpu_scalars *ds = upload_scalars(gpu, n, p_sig, p_one);
    if (ds == NULL) return 1;
    const czk_scalar *sd = czk__gpu_scalars_dev(ds);
    const czk_g1_affine *bd = czk__gpu_bases_dev(bases);
    const size_t piece = (size_t)1 << piece_log;
    double t[32];
    czk_gpu_msm_stats st;
    if (reps > 31) reps = 31;
    for (int r = 0; r <= reps; r++) {
        czk__gpu_msm_acc *a = NULL;
        czk_g1_jac out;
        czk_status rc = czk__gpu_msm_acc_begin(gpu, 1, n, &a, &err);
        for (size_t lo = 0; lo < n && rc == CZK_OK; lo += piece) {
            const size_t len = n - lo < piece ? n - lo : piece;
            rc = czk__gpu_msm_acc_add(a, bd + lo, len, sd + lo, len, NULL, NULL, &err);
        }
        if (rc == CZK_OK) rc = czk__gpu_msm_acc_end(a, &out, &st, &err);
        czk__gpu_msm_acc_free(a);
        if (rc != CZK_OK) {
            fprintf(stderr, "%s: %s\n", name, err.msg);
            czk_gpu_scalars_destroy(ds);
            return 1;
        }
        if (r > 0) t[r - 1] = st.device_ms;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    printf("%-22s 2^%-2u %9.1f ms  in pieces of 2^%u through the accumulator  sig %10zu  ones "
           "%10zu  (min %.1f max %.1f)\n",
           name, log_n, t[reps / 2], piece_log, st.n_sig, st.n_one, t[0], t[reps - 1]);
    fflush(stdout);
    czk_gpu_scalars_destroy(ds);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned max_log = 26, min_log = 0, g2_log = 24;
    int reps = 5, gpu = 0, with01 = 1, witness = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-log") && i + 1 < argc) max_log = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--g2-log") && i + 1 < argc) g2_log = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gpu") && i + 1 < argc) gpu = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--min-log") && i + 1 < argc) min_log = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-01")) with01 = 0;
        else if (!strcmp(argv[i], "--witness")) witness = 1;
        else if (!strcmp(argv[i], "--configs") && i + 1 < argc) {
            for (char *c = strtok(argv[++i], ";"); c != NULL && nconfigs < MAX_CONFIGS;
                 c = strtok(NULL, ";"))
                configs[nconfigs++] = c;
        } else {
            fprintf(stderr,
                    "usage: %s [--max-log N] [--min-log N] [--g2-log N] [--no-01] [--witness] "
                    "[--reps R] [--gpu G] [--configs \"W=22,L=128,R=65536,G=4;...\"]\n",
                    argv[0]);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (czk_gpu_count() == 0) {
        printf("no GPU: nothing to measure\n");
        return 0;
    }
    czk_gpu_info info;
    czk_err err;
    if (czk_gpu_get_info(gpu, &info, &err) != CZK_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("GPU %d: %s, %d SMs, %.1f GiB\n", gpu, info.name, info.sm_count,
           (double)info.total_mem / (1 << 30));

    double fp_rate = 0, fr_rate = 0;
    if (czk__gpu_ff_mul_rate(gpu, 0, 2000, &fp_rate, &err) != CZK_OK ||
        czk__gpu_ff_mul_rate(gpu, 1, 2000, &fr_rate, &err) != CZK_OK) {
        fprintf(stderr, "mul rate: %s\n", err.msg);
        return 1;
    }
    printf("Fp mul %.2f G/s (sppark-style peer 27.6, naive CIOS 17.5)\n", fp_rate * 1e-9);
    printf("Fr mul %.2f G/s (sppark-style peer 52.2, naive CIOS 35.5)\n", fr_rate * 1e-9);

    size_t nmax = (size_t)1 << max_log;
    czk_gpu_bases *b1 = NULL;
    double t0 = now();
    if (czk_gpu_bases_synthesize(gpu, 1, nmax, 42, &b1, &err) != CZK_OK) {
        fprintf(stderr, "synthesize G1: %s\n", err.msg);
        return 1;
    }
    printf("synthesized 2^%u G1 bases on the GPU in %.2f s\n", max_log, now() - t0);

    /* Floors: §6.1 (mixed adds + reduction at 2.59 G madd/s); the 90% profile: 10% of the
     * points through 12-13 windows plus one add per 1-scalar. */
    static const struct {
        unsigned lg;
        double floor, peer, target;
    } g1[] = {{20, 7, 22.6, 0}, {24, 92, 160, 0}, {26, 338, 561, 400}, {27, 649, 1103, 800}};
    int rc = 0;
    for (size_t k = 0; k < sizeof g1 / sizeof g1[0] && rc == 0; k++) {
        if (g1[k].lg > max_log || g1[k].lg < min_log) continue;
        rc = run_msm(gpu, 1, b1, (size_t)1 << g1[k].lg, 1.0, 0.0, reps, "G1 random", g1[k].lg,
                     g1[k].floor, g1[k].peer, g1[k].target);
    }
    if (rc == 0 && max_log >= 26 && with01) {
        size_t n = (size_t)1 << 26;
        double floor = (0.1 * n * 13 + 0.45 * n) / 2.59e9 * 1e3;
        rc = run_msm(gpu, 1, b1, n, 0.1, 0.45, reps, "G1 90% {0,1}", 26, floor, 170, 120);
    }
    /* --witness: a PoRep partition's L profile (1.31 % significant, 47.3 % ones: 1.70 M and
     * 61.6 M of 130 M), whole and in the planner's calls of 2^24, and each part alone: what a
     * call costs beyond its share of the whole; then the whole in pieces of 2^24 through the
     * accumulator. */
    if (rc == 0 && witness) {
        static const struct {
            const char *name;
            double sig, one;
        } prof[] = {{"L profile", 0.0131, 0.473},
                    {"L's significant only", 0.0131, 0},
                    {"L's ones only", 0, 0.473},
                    {"zeros only", 0, 0}};
        for (unsigned lg = 24; lg <= max_log && rc == 0; lg += max_log > 24 ? max_log - 24 : 1)
            for (size_t k = 0; k < sizeof prof / sizeof prof[0] && rc == 0; k++)
                rc = run_msm(gpu, 1, b1, (size_t)1 << lg, prof[k].sig, prof[k].one, reps,
                             prof[k].name, lg, 0, 0, 0);
        if (rc == 0 && max_log > 24)
            rc = run_acc(gpu, b1, (size_t)1 << max_log, 24, prof[0].sig, prof[0].one, reps,
                         prof[0].name, max_log);
    }
    czk_gpu_bases_destroy(b1);
    czk_gpu_msm_trim(gpu);

    if (rc == 0 && g2_log > 0) {
        czk_gpu_bases *b2 = NULL;
        t0 = now();
        if (czk_gpu_bases_synthesize(gpu, 2, (size_t)1 << g2_log, 43, &b2, &err) != CZK_OK) {
            fprintf(stderr, "synthesize G2: %s\n", err.msg);
            return 1;
        }
        printf("synthesized 2^%u G2 bases on the GPU in %.2f s\n", g2_log, now() - t0);
        /* G2 floor: ~3 Fp muls per Fp2 mul, so ~3x the G1 floor; target 3.5x G1. */
        double g1_ms = 0;
        for (int k = 0; k < nresults; k++)
            if (results[k].log_n == g2_log && !strcmp(results[k].name, "G1 random"))
                g1_ms = results[k].ms;
        double floor = g2_log == 24 ? 3 * 92.0 : 3 * 92.0 / (double)(1u << (24 - g2_log));
        rc = run_msm(gpu, 2, b2, (size_t)1 << g2_log, 1.0, 0.0, reps, "G2 random", g2_log, floor, 0,
                     g1_ms > 0 ? 3.5 * g1_ms : 0);
        czk_gpu_bases_destroy(b2);
        czk_gpu_msm_trim(gpu);
    }

    printf("JSON {\"bench\":\"gpu_msm\",\"gpu\":\"%s\",\"fp_mul_gps\":%.2f,\"fr_mul_gps\":%.2f,"
           "\"results\":[",
           info.name, fp_rate * 1e-9, fr_rate * 1e-9);
    for (int k = 0; k < nresults; k++)
        printf("%s{\"name\":\"%s\",\"log_n\":%u,\"ms\":%.2f,\"floor_ms\":%.1f,\"peer_ms\":%.1f,"
               "\"window\":%u}",
               k ? "," : "", results[k].name, results[k].log_n, results[k].ms,
               results[k].floor_ms, results[k].peer_ms, results[k].window);
    printf("]}\n");
    return rc;
}
