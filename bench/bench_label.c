/*
 * bench_label: SDR labelling throughput, and the tree_c / tree_r_last stages of a seal.
 *
 * Rows, each a median over --reps timed runs after one untimed warm-up:
 *  - OpenSSL's SHA-256, ns per 64-byte block (one thread): the floor of a label;
 *    the floor of a label is 20 of them (header, 18 parent blocks, last block);
 *  - labelling all layers of a 2-layer 8 MiB sector (StackedDrg8MiBV1_1), in MB/s of
 *    labels and ns per label: one thread with parents computed inline, one thread with
 *    a precomputed parents array, and the pool (hashing thread + prefetchers);
 *  - one layer of a 512 MiB sector (2^24 labels) on the pool, once (--no-big skips it);
 *  - tree_c of the 8 MiB sector (column hashes + Poseidon octree) and tree_r_last
 *    (encoding + octree) on the pool.
 * Single-thread rows use this thread's CPU time (robust to other load on a shared
 * machine); pool rows use wall-clock time. Output: a table, then one "JSON {...}" line.
 *
 *   bench_label [--reps R] [--threads T] [--no-big]
 */
#include "czk/merkle.h"
#include "czk/pool.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"
#include "filecoin/seal/seal_internal.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(bool cpu)
{
    struct timespec ts;
    clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
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

static volatile uint32_t sink;

/* ns per 64-byte block of OpenSSL's SHA-256 over 1280-byte messages (a label's size). */
static double sha_block_ns(int reps)
{
    static uint8_t msg[20 * 64];
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 131 + 7);
    const int iters = 20000;
    double t[32];
    if (reps > 32) reps = 32;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    uint8_t out[32];
    for (int r = -1; r < reps; r++) {
        double t0 = now_s(true);
        for (int i = 0; i < iters; i++) {
            EVP_DigestInit_ex(md, EVP_sha256(), NULL);
            EVP_DigestUpdate(md, msg, sizeof msg);
            unsigned int len = 32;
            EVP_DigestFinal_ex(md, out, &len);
            msg[0] = out[0];
        }
        double dt = now_s(true) - t0;
        sink = out[1];
        if (r >= 0) t[r] = dt;
    }
    EVP_MD_CTX_free(md);
    return median(t, reps) * 1e9 / (iters * 21.0); /* 20 blocks + padding block */
}

typedef struct label_run {
    const czk_sdr_graph *g;
    uint8_t *labels;
    unsigned layers;
    const uint32_t *parents;
    czk_pool *pool;
} label_run;

static double label_time(const label_run *lr, bool cpu_clock)
{
    uint8_t replica_id[32];
    for (int i = 0; i < 32; i++) replica_id[i] = (uint8_t)(i * 7 + 1);
    replica_id[31] &= 0x3f;
    double t0 = now_s(cpu_clock);
    czk_err err;
    if (czk_sdr_label_layers(lr->labels, lr->g, lr->layers, replica_id, lr->parents, lr->pool,
                             &err) != CZK_OK) {
        fprintf(stderr, "bench_label: %s\n", err.msg);
        exit(1);
    }
    return now_s(cpu_clock) - t0;
}

static double label_median(const label_run *lr, bool cpu_clock, int reps)
{
    double t[64];
    if (reps > 64) reps = 64;
    for (int r = -1; r < reps; r++) {
        double dt = label_time(lr, cpu_clock);
        if (r >= 0) t[r] = dt;
    }
    return median(t, reps);
}

int main(int argc, char **argv)
{
    int reps = 5;
    unsigned threads = 0;
    bool big = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--no-big") == 0)
            big = false;
        else {
            fprintf(stderr, "usage: bench_label [--reps R] [--threads T] [--no-big]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    czk_err err;
    czk_pool *pool = NULL;
    if (czk_pool_create(&pool, threads, &err) != CZK_OK) {
        fprintf(stderr, "bench_label: %s\n", err.msg);
        return 1;
    }
    unsigned nthreads = czk_pool_size(pool);

    /* SHA-256 floor: a label is 20 blocks. */
    double ns_block = sha_block_ns(reps);
    double floor_label_ns = 20 * ns_block;

    /* 8 MiB, 2 layers. */
    czk_sdr_graph *g = NULL;
    if (czk_sdr_graph_create_for_proof(&g, CZK_SEAL_StackedDrg8MiBV1_1, &err) != CZK_OK) {
        fprintf(stderr, "bench_label: %s\n", err.msg);
        return 1;
    }
    const uint64_t n8 = czk_sdr_graph_nodes(g);
    const double mb8 = 2.0 * n8 * 32 / 1e6;
    uint8_t *labels = malloc(2 * n8 * 32);
    uint32_t *parents = malloc(n8 * CZK_SDR_DEGREE * sizeof *parents);
    if (labels == NULL || parents == NULL) return 1;
    czk_sdr_parents_range(g, 0, n8, parents, pool, NULL);
    label_run lr = {g, labels, 2, NULL, NULL};
    double t_1t = label_median(&lr, true, reps);
    lr.parents = parents;
    double t_1t_par = label_median(&lr, true, reps);
    lr.parents = NULL;
    lr.pool = pool;
    double t_pool = label_median(&lr, false, reps);

    /* tree_c and tree_r_last of the 8 MiB sector (labels from the last run). */
    uint8_t *cols = malloc(n8 * 32), *data = calloc(n8, 32), *rep = malloc(n8 * 32);
    czk_merkle_config cfg = czk_merkle_config_tree_r(n8 * 32);
    double tc[64], tr[64];
    int treps = reps < 64 ? reps : 64;
    for (int r = -1; r < treps; r++) {
        double t0 = now_s(false);
        czk_merkle_tree *tree = NULL;
        if (czk_sdr_column_hashes(cols, labels, 2, n8, pool, &err) != CZK_OK ||
            czk_merkle_build(&tree, &cfg, cols, n8, pool, &err) != CZK_OK) {
            fprintf(stderr, "bench_label: %s\n", err.msg);
            return 1;
        }
        czk_merkle_destroy(tree);
        double t1 = now_s(false);
        if (czk_sdr_encode(rep, data, labels + n8 * 32, n8, pool, &err) != CZK_OK ||
            czk_merkle_build(&tree, &cfg, rep, n8, pool, &err) != CZK_OK) {
            fprintf(stderr, "bench_label: %s\n", err.msg);
            return 1;
        }
        czk_merkle_destroy(tree);
        double t2 = now_s(false);
        if (r >= 0) tc[r] = t1 - t0, tr[r] = t2 - t1;
    }
    double t_tree_c = median(tc, treps), t_tree_r = median(tr, treps);
    free(cols);
    free(data);
    free(rep);
    free(labels);
    free(parents);
    czk_sdr_graph_destroy(g);

    /* 512 MiB, one layer, once. */
    double t_big = 0;
    uint64_t n512 = 0;
    if (big) {
        if (czk_sdr_graph_create_for_proof(&g, CZK_SEAL_StackedDrg512MiBV1_1, &err) != CZK_OK) {
            fprintf(stderr, "bench_label: %s\n", err.msg);
            return 1;
        }
        n512 = czk_sdr_graph_nodes(g);
        labels = malloc(n512 * 32);
        if (labels == NULL) return 1;
        memset(labels, 0, n512 * 32); /* fault the pages in outside the timing */
        label_run big_run = {g, labels, 1, NULL, pool};
        t_big = label_time(&big_run, false);
        free(labels);
        czk_sdr_graph_destroy(g);
    }

    printf("bench_label: SHA-256 %s, %u threads, median of %d\n", czk_sdr_sha256_backend(),
           nthreads, reps);
    printf("  %-46s %12s %12s %10s\n", "measurement", "value", "ns/label", "vs floor");
    printf("  %-46s %9.1f ns\n", "SHA-256 (OpenSSL), per 64-byte block", ns_block);
    printf("  %-46s %9.1f ns\n", "label floor = 20 blocks", floor_label_ns);
    double nl = 2.0 * n8;
    printf("  %-46s %7.1f MB/s %12.0f %9.2fx\n", "8 MiB x 2 layers, 1 thread, parents inline",
           mb8 / t_1t, t_1t * 1e9 / nl, t_1t * 1e9 / nl / floor_label_ns);
    printf("  %-46s %7.1f MB/s %12.0f %9.2fx\n", "8 MiB x 2 layers, 1 thread, parents array",
           mb8 / t_1t_par, t_1t_par * 1e9 / nl, t_1t_par * 1e9 / nl / floor_label_ns);
    printf("  %-46s %7.1f MB/s %12.0f %9.2fx\n", "8 MiB x 2 layers, pool (hasher + prefetch)",
           mb8 / t_pool, t_pool * 1e9 / nl, t_pool * 1e9 / nl / floor_label_ns);
    if (big)
        printf("  %-46s %7.1f MB/s %12.0f %9.2fx  (%.1f s)\n", "512 MiB x 1 layer, pool",
               n512 * 32 / 1e6 / t_big, t_big * 1e9 / (double)n512,
               t_big * 1e9 / (double)n512 / floor_label_ns, t_big);
    printf("  %-46s %9.2f s\n", "8 MiB tree_c (columns + octree), pool", t_tree_c);
    printf("  %-46s %9.2f s\n", "8 MiB tree_r_last (encode + octree), pool", t_tree_r);
    printf(
        "JSON {\"bench\":\"label\",\"sha256\":\"%s\",\"threads\":%u,\"reps\":%d,"
        "\"sha_block_ns\":%.2f,\"label_floor_ns\":%.1f,"
        "\"label_8m_1t_mb_s\":%.2f,\"label_8m_1t_parents_mb_s\":%.2f,\"label_8m_pool_mb_s\":%.2f,"
        "\"label_8m_pool_ns\":%.1f,\"label_512m_layer_s\":%.3f,\"label_512m_mb_s\":%.2f,"
        "\"tree_c_8m_s\":%.3f,\"tree_r_last_8m_s\":%.3f}\n",
        czk_sdr_sha256_backend(), nthreads, reps, ns_block, floor_label_ns, mb8 / t_1t,
        mb8 / t_1t_par, mb8 / t_pool, t_pool * 1e9 / nl, t_big, big ? n512 * 32 / 1e6 / t_big : 0.0,
        t_tree_c, t_tree_r);
    czk_pool_destroy(pool);
    return 0;
}
