/*
 * bench_setup_stream: the QAP pass of streaming test-parameter generation
 * (czk_groth16_setup_circuit: the circuit in COUNT mode, then in RECORD mode with a sink
 * that adds coeff·L_row(τ) into u, v, w), on a Filecoin circuit, against the parts it is
 * made of. Median of --reps runs after one warm-up. The synthesis and the sink run on one
 * thread; the Lagrange basis on --threads (default: every CPU).
 *
 * Rows:
 *   count        the circuit in COUNT mode (sizes and densities)
 *   record_noop  the circuit in RECORD mode with a sink that only counts terms: the
 *                synthesis and LC merging the QAP pass cannot avoid
 *   lagrange     L_j(τ) for the whole domain (one batch inversion)
 *   qap_pass     czk__setup_stream_qap: count + lagrange + record with the QAP sink
 *   sink         qap_pass − count − lagrange − record_noop: the accumulation itself
 * and the extrapolation to a 32 GiB PoRep partition (130 278 541 rows, 722 M terms), and
 * the host memory of the pass (lag, u, v, w) against the CSR the R1CS path records.
 *
 *   bench_setup_stream [--circuit ID] [--reps N] [--threads N]   (default porep-2k, 3, 0)
 *   bench_setup_stream --full [--gpus N] [--circuit ID] [--threads N]
 *
 * --full times one whole czk_fil_test_params_make (what czkd runs for a missing parameter
 * file): QAP pass, scalars and fixed-base into a GPU-resident SRS on GPUs 0..N-1 (N = 0:
 * host arrays), with the time at which the QAP pass ended, and the peak RSS.
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/fil_job.h"
#include "czk/gpu.h"
#include "czk/pool.h"
#include "groth16/setup_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define POREP32_ROWS 130278541.0
#define POREP32_TERMS 722e6

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[n / 2];
}

static czk_status shape(czk_cs *cs, void *id);

struct full_progress {
    double t0, t_qap;
    uint64_t rows;
};

static void full_progress_fn(void *ctx, uint64_t done, uint64_t total)
{
    struct full_progress *f = ctx;
    (void)total;
    if (f->t_qap == 0 && done >= f->rows) f->t_qap = wall_s() - f->t0;
}

/* One czk_fil_test_params_make on GPUs 0..ngpus-1 (or host arrays), timed. */
static int run_full(const char *id, int ngpus, czk_pool *pool)
{
    czk_cs_counts cnt;
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_err err;
    if (czk_cs_create(&cs, &cfg, &err) != CZK_OK || shape(cs, (void *)id) != CZK_OK ||
        czk_cs_finish(cs, &err) != CZK_OK) {
        fprintf(stderr, "%s: %s\n", id, err.msg);
        return 1;
    }
    czk_cs_get_counts(cs, &cnt);
    czk_cs_destroy(cs);
    int gpus[64];
    struct czk_gpu_srs *srs[64] = {0};
    if (ngpus < 0 || ngpus > 64) ngpus = 0;
    for (int g = 0; g < ngpus; g++) gpus[g] = g;
    struct full_progress fp = {wall_s(), 0, cnt.n_constraints};
    czk_groth16_params pk;
    czk_status st = czk_fil_test_params_make(id, gpus, (size_t)ngpus, &pk, srs, pool,
                                             full_progress_fn, &fp, &err);
    double t = wall_s() - fp.t0;
    if (st != CZK_OK) {
        fprintf(stderr, "%s: %s\n", id, err.msg);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s: %llu rows, %u threads, %d GPU(s): %.1f s in all, QAP pass done at %.1f s; "
           "h %zu, l %zu, a %zu, b %zu points; peak RSS %.2f GB\n",
           id, (unsigned long long)cnt.n_constraints, czk_pool_size(pool), ngpus, t, fp.t_qap,
           pk.h_len, pk.l_len, pk.a_len, pk.b_g1_len, (double)ru.ru_maxrss / 1e6);
    printf("{\"bench\":\"setup_full\",\"circuit\":\"%s\",\"gpus\":%d,\"total_s\":%.2f,"
           "\"qap_s\":%.2f,\"peak_rss_gb\":%.2f}\n",
           id, ngpus, t, fp.t_qap, (double)ru.ru_maxrss / 1e6);
    for (int g = 0; g < ngpus; g++) czk_gpu_srs_destroy(srs[g]);
    czk_groth16_params_free(&pk);
    return 0;
}

static czk_status shape(czk_cs *cs, void *id)
{
    czk_err e = {0};
    czk_status s = czk_fil_circuit_synthesize_shape(id, cs, &e);
    if (s != CZK_OK && czk_cs_status(cs) == CZK_OK) czk_cs_fail(cs, s, "%s", e.msg);
    return s;
}

static czk_status count_sink(void *ctx, unsigned matrix, uint64_t row,
                             const struct czk_lc_term *t, uint32_t n)
{
    (void)matrix, (void)row, (void)t;
    *(uint64_t *)ctx += n;
    return CZK_OK;
}

/* One run of the circuit in `mode` (RECORD: with the counting sink); seconds. */
static double run_mode(const char *id, czk_cs_mode mode, uint64_t *terms)
{
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = mode;
    czk_cs *cs = NULL;
    czk_err err;
    double t0 = wall_s();
    if (czk_cs_create(&cs, &cfg, &err) != CZK_OK) exit(1);
    if (mode == CZK_CS_RECORD) czk_cs_set_record_sink(cs, count_sink, terms);
    if (shape(cs, (void *)id) != CZK_OK || czk_cs_finish(cs, &err) != CZK_OK) {
        fprintf(stderr, "%s: %s\n", id, err.msg);
        exit(1);
    }
    czk_cs_destroy(cs);
    return wall_s() - t0;
}

int main(int argc, char **argv)
{
    const char *id = "porep-2k";
    int reps = 3;
    unsigned threads = 0;
    bool full = false;
    int ngpus = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--circuit") == 0 && i + 1 < argc)
            id = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--full") == 0)
            full = true;
        else if (strcmp(argv[i], "--gpus") == 0 && i + 1 < argc)
            ngpus = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_setup_stream [--circuit ID] [--reps N] [--threads N]\n"
                            "       bench_setup_stream --full [--gpus N] [--circuit ID] "
                            "[--threads N]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 100) reps = 3;
    czk_pool *pool = NULL;
    czk_err perr;
    if (czk_pool_create(&pool, threads, &perr) != CZK_OK) return 1;
    if (full) {
        int rc = run_full(id, ngpus, pool);
        czk_pool_destroy(pool);
        return rc;
    }
    double t_count[100], t_noop[100], t_lag[100], t_qap[100];
    uint64_t terms = 0, rows = 0;
    size_t nv = 0, m = 0;
    for (int r = -1; r < reps; r++) {
        double c = run_mode(id, CZK_CS_COUNT, NULL);
        uint64_t tn = 0;
        double n = run_mode(id, CZK_CS_RECORD, &tn);
        czk__setup_qap q;
        czk__setup_waste tw;
        czk__progress pr = {NULL, NULL, 0, 0};
        czk_err err;
        double t0 = wall_s();
        if (czk__setup_stream_qap(&q, &tw, shape, (void *)id, NULL, pool, &pr, &err) != CZK_OK) {
            fprintf(stderr, "%s: %s\n", id, err.msg);
            return 1;
        }
        double qp = wall_s() - t0;
        t0 = wall_s();
        czk__setup_lagrange(q.lag, &tw.tau, q.log_m, pool, &err);
        double lg = wall_s() - t0;
        if (r >= 0) {
            t_count[r] = c;
            t_noop[r] = n;
            t_lag[r] = lg;
            t_qap[r] = qp;
        }
        terms = q.n_terms;
        rows = q.n_constraints;
        nv = q.ni + q.na;
        m = (size_t)1 << q.log_m;
        if (tn != terms) fprintf(stderr, "term counts differ: %llu vs %llu\n",
                                 (unsigned long long)tn, (unsigned long long)terms);
        czk__setup_qap_free(&q);
        czk__setup_scrub(&tw);
    }
    double c = median(t_count, reps), n = median(t_noop, reps), lg = median(t_lag, reps);
    double qp = median(t_qap, reps), sink = qp - c - lg - n;
    printf("circuit %s: %llu rows, %llu terms (%.2f a row), %zu variables, domain 2^%u\n", id,
           (unsigned long long)rows, (unsigned long long)terms, (double)terms / (double)rows, nv,
           (unsigned)__builtin_ctzll(m));
    printf("%-12s %10s %14s %12s\n", "stage", "s", "rows/s", "ns/term");
    printf("%-12s %10.3f %14.0f %12.1f\n", "count", c, rows / c, 1e9 * c / terms);
    printf("%-12s %10.3f %14.0f %12.1f\n", "record_noop", n, rows / n, 1e9 * n / terms);
    printf("%-12s %10.3f %14s %12s\n", "lagrange", lg, "-", "-");
    printf("%-12s %10.3f %14.0f %12.1f\n", "qap_pass", qp, rows / qp, 1e9 * qp / terms);
    printf("%-12s %10.3f %14.0f %12.1f\n", "sink", sink, rows / sink, 1e9 * sink / terms);
    double ns_term = 1e9 * (qp - lg) / terms, lag_per = lg / (double)m;
    printf("32 GiB PoRep partition (%.0f rows, %.0f terms, domain 2^27), scaled per term and "
           "per domain point, %u threads for Lagrange: %.0f s (%.0f s count+record+sink, %.0f s Lagrange)\n",
           POREP32_ROWS, POREP32_TERMS, czk_pool_size(pool), ns_term * POREP32_TERMS / 1e9 + lag_per * 134217728.0,
           ns_term * POREP32_TERMS / 1e9, lag_per * 134217728.0);
    double stream_b = 32.0 * ((double)m + 3.0 * (double)nv);
    double csr_b = (double)terms * (4 + 32) + 3.0 * 8.0 * (double)rows + 3.0 * 32.0 * (double)nv +
                   32.0 * (double)m;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("host memory of the pass: %.1f MB (lag, u, v, w) vs %.1f MB for the CSR path "
           "(CSR + the same arrays); peak RSS %.1f MB\n",
           stream_b / 1e6, csr_b / 1e6, (double)ru.ru_maxrss / 1e3);
    printf("{\"bench\":\"setup_stream\",\"circuit\":\"%s\",\"rows\":%llu,\"terms\":%llu,"
           "\"count_s\":%.4f,\"record_noop_s\":%.4f,\"lagrange_s\":%.4f,\"qap_pass_s\":%.4f,"
           "\"sink_ns_per_term\":%.2f}\n",
           id, (unsigned long long)rows, (unsigned long long)terms, c, n, lg, qp,
           1e9 * sink / terms);
    czk_pool_destroy(pool);
    return 0;
}
