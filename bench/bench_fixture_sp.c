/*
 * bench_fixture_sp: time to build the synthetic SnapDeals and PoSt fixtures
 * (czk_snap_fixture_create, czk_post_fixture_create) at production sizes.
 *
 *   snap 32/64 GiB      three virtual trees (TreeROld, TreeDNew, TreeRNew) and all 16
 *                       partition proofs of 86 challenges
 *   winning 32 GiB      one sector, 66 challenges
 *   wpost 32 GiB        one full Window PoSt partition: 2349 sectors × 10 challenges
 *
 * Medians of --reps runs (default 3) after one warm-up, in thread CPU time (the builders
 * are single-threaded), so that other jobs on a shared machine do not inflate them. The
 * peer figure is what a real sector would cost: one 32 GiB TreeR alone is 2^30/7
 * Poseidon-8 hashes, timed here per hash.
 *
 *   bench_fixture_sp [--reps R] [--quick]
 */
#include "czk/bls12_381.h"
#include "czk/poseidon.h"
#include "czk/post_vanilla.h"
#include "czk/snap_vanilla.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
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

typedef struct row {
    const char *name;
    bool snap;
    uint64_t size;       /* snap */
    czk_post_proof post; /* PoSt */
    double median;
} row;

static bool run_once(const row *r, double *secs)
{
    czk_err err;
    double t0 = now_s();
    czk_status s;
    if (r->snap) {
        czk_snap_fixture *f = NULL;
        s = czk_snap_fixture_create(&f, r->size, 1, &err);
        *secs = now_s() - t0;
        czk_snap_fixture_destroy(f);
    } else {
        czk_post_fixture *f = NULL;
        s = czk_post_fixture_create(&f, r->post, 1, 0, &err);
        *secs = now_s() - t0;
        czk_post_fixture_destroy(f);
    }
    if (s != CZK_OK) fprintf(stderr, "bench_fixture_sp: %s: %s\n", r->name, err.msg);
    return s == CZK_OK;
}

int main(int argc, char **argv)
{
    int reps = 3;
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else {
            fprintf(stderr, "usage: bench_fixture_sp [--reps R] [--quick]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 100) reps = 3;
    row rows[] = {
        {"snap 32 GiB (16 partitions)", true, 32ull << 30, 0, 0},
        {"snap 64 GiB (16 partitions)", true, 64ull << 30, 0, 0},
        {"winning 32 GiB (1 sector)", false, 0, CZK_POST_StackedDrgWinning32GiBV1, 0},
        {"wpost 32 GiB (2349 sectors)", false, 0, CZK_POST_StackedDrgWindow32GiBV1_2, 0},
    };
    size_t nrows = quick ? 1 : sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < nrows; i++) {
        double t[100], warm;
        if (!run_once(&rows[i], &warm)) return 1;
        for (int k = 0; k < reps; k++)
            if (!run_once(&rows[i], &t[k])) return 1;
        qsort(t, (size_t)reps, sizeof t[0], cmp_double);
        rows[i].median = t[reps / 2];
    }
    /* The peer figure: one Poseidon-8 node hash, and a real 32 GiB TreeR's 2^30/7 of them. */
    czk_fr in[8], out;
    for (int i = 0; i < 8; i++) czk_fr_from_u64(&in[i], (uint64_t)i + 1);
    const czk_poseidon_params *p8 = czk_poseidon_params_get(8);
    int nh = 20000;
    double t0 = now_s();
    for (int i = 0; i < nh; i++) {
        czk_poseidon_merkle(&out, p8, in);
        in[0] = out;
    }
    double t_hash = (now_s() - t0) / nh;
    double tree32 = (double)(1ull << 30) / 7.0 * t_hash;
    printf("Synthetic SnapDeals / PoSt fixtures, one thread, CPU time, medians of %d runs\n", reps);
    printf("%-30s %12s\n", "fixture", "seconds");
    for (size_t i = 0; i < nrows; i++) printf("%-30s %12.3f\n", rows[i].name, rows[i].median);
    printf("peer: one real 32 GiB TreeR = 2^30/7 Poseidon-8 hashes at %.1f us = %.0f s "
           "(a SnapDeals update builds two)\n",
           t_hash * 1e6, tree32);
    printf("{\"bench\":\"fixture_sp\",\"reps\":%d,\"poseidon8_us\":%.2f,\"tree_r_32g_s\":%.0f",
           reps, t_hash * 1e6, tree32);
    static const char *keys[] = {"snap_32g_s", "snap_64g_s", "winning_32g_s", "wpost_32g_s"};
    for (size_t i = 0; i < nrows; i++) printf(",\"%s\":%.3f", keys[i], rows[i].median);
    printf("}\n");
    return 0;
}
