/*
 * bench_merkle: tree building throughput, one thread and all threads.
 *
 *   tree_d     binary SHA-256 tree (czk_merkle_build, every level but the leaves kept),
 *              in MB/s of leaves. Floor: a tree over L bytes of leaves hashes ≈ L/32
 *              messages of 64 bytes, two SHA-256 compressions each (data + padding
 *              block), so ≈ 4·L bytes go through the compression function; the floor is
 *              OpenSSL's bulk SHA-256 rate (1 MiB messages) / 4 per thread.
 *   octree     Poseidon arity-8 tree (tree_r_last / tree_c base shape), in leaves/s.
 *              Floor: (n − 1)/7 hashes for n leaves at the measured czk_poseidon_merkle
 *              time per hash, i.e. 7 / t_hash leaves/s per thread.
 *   fr32       padding and unpadding of piece data, MB/s of raw data (memory bound).
 *
 * Medians over --reps runs after one warm-up run: thread CPU time for the one-thread
 * rows and the floors, wall-clock time for the all-threads rows (whose speedup is only
 * meaningful on an otherwise idle machine).
 *
 *   bench_merkle [--log2-sha N] [--log8-poseidon K] [--reps R] [--threads T] [--quick]
 */
#include "czk/bls12_381.h"
#include "czk/fr32.h"
#include "czk/merkle.h"
#include "czk/pool.h"
#include "czk/poseidon.h"

#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Single-thread rows use this thread's CPU time, so that other jobs on a shared machine
 * do not inflate them; rows on the pool use wall-clock time. */
static bool use_cpu_clock;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(use_cpu_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
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

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        p[i] = (uint8_t)(seed >> 56);
    }
}

/* Median seconds of building the tree `reps` times. */
static double time_build(const czk_merkle_config *cfg, const uint8_t *leaves, uint64_t n,
                         czk_pool *pool, int reps)
{
    double t[64];
    use_cpu_clock = pool == NULL;
    for (int r = -1; r < reps; r++) {
        czk_merkle_tree *tree = NULL;
        czk_err err;
        double t0 = now_s();
        if (czk_merkle_build(&tree, cfg, leaves, n, pool, &err) != CZK_OK) {
            fprintf(stderr, "bench_merkle: %s\n", err.msg);
            exit(1);
        }
        double dt = now_s() - t0;
        czk_merkle_destroy(tree);
        if (r >= 0) t[r] = dt;
    }
    return median(t, reps);
}

/* OpenSSL's bulk SHA-256 rate in MB/s (1 MiB messages). */
static double sha_bulk_mbps(void)
{
    size_t len = 1 << 20;
    uint8_t *buf = calloc(len, 1), out[32];
    unsigned olen;
    double t[5];
    use_cpu_clock = true;
    for (int r = 0; r < 5; r++) {
        double t0 = now_s();
        for (int i = 0; i < 32; i++) EVP_Digest(buf, len, out, &olen, EVP_sha256(), NULL);
        t[r] = now_s() - t0;
    }
    free(buf);
    return 32.0 * (double)len / median(t, 5) / 1e6;
}

/* Seconds per Poseidon-8 Merkle hash (dependent chain). */
static double poseidon8_hash_s(void)
{
    const czk_poseidon_params *p = czk_poseidon_params_get(8);
    czk_fr in[8], out;
    for (int i = 0; i < 8; i++) czk_fr_from_u64(&in[i], (uint64_t)i + 1);
    double t[5];
    use_cpu_clock = true;
    for (int r = 0; r < 5; r++) {
        double t0 = now_s();
        for (int i = 0; i < 400; i++) {
            czk_poseidon_merkle(&out, p, in);
            in[0] = out;
        }
        t[r] = (now_s() - t0) / 400;
    }
    return median(t, 5);
}

int main(int argc, char **argv)
{
    unsigned log2_sha = 22, log8_pos = 6, threads = 0;
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--log2-sha") == 0 && i + 1 < argc) {
            log2_sha = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--log8-poseidon") == 0 && i + 1 < argc) {
            log8_pos = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--quick") == 0) {
            log2_sha = 18;
            log8_pos = 5;
            reps = 3;
        } else {
            fprintf(stderr, "usage: bench_merkle [--log2-sha N] [--log8-poseidon K] [--reps R] "
                            "[--threads T] [--quick]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 64 || log2_sha < 1 || log2_sha > 30 || log8_pos < 1 || log8_pos > 10) {
        fprintf(stderr, "bench_merkle: bad arguments\n");
        return 2;
    }
    czk_pool *pool = NULL;
    if (czk_pool_create(&pool, threads, NULL) != CZK_OK) return 1;
    unsigned nthreads = czk_pool_size(pool);

    /* tree_d */
    uint64_t n_sha = UINT64_C(1) << log2_sha;
    uint8_t *sha_leaves = malloc((size_t)(32 * n_sha));
    fill(sha_leaves, (size_t)(32 * n_sha), 1);
    czk_merkle_config d = czk_merkle_config_tree_d();
    double sha_1 = time_build(&d, sha_leaves, n_sha, NULL, reps);
    double sha_n = time_build(&d, sha_leaves, n_sha, pool, reps);
    double mb = 32.0 * (double)n_sha / 1e6;
    double bulk = sha_bulk_mbps();
    double ns_node = sha_1 / (double)(n_sha - 1) * 1e9;

    /* Poseidon octree */
    uint64_t n_pos = UINT64_C(1) << (3 * log8_pos);
    uint8_t *pos_leaves = malloc((size_t)(32 * n_pos));
    fill(pos_leaves, (size_t)(32 * n_pos), 2);
    for (uint64_t i = 0; i < n_pos; i++) pos_leaves[32 * i + 31] &= 0x3f;
    czk_merkle_config r = czk_merkle_config_tree_r(UINT64_C(2048));
    int preps = reps < 3 ? reps : 3;
    double pos_1 = time_build(&r, pos_leaves, n_pos, NULL, preps);
    double pos_n = time_build(&r, pos_leaves, n_pos, pool, preps);
    double t_hash = poseidon8_hash_s();

    /* fr32 */
    size_t raw_len = (size_t)127 << 16, pad_len = (size_t)128 << 16;
    uint8_t *raw = malloc(raw_len), *pad = malloc(pad_len), *back = malloc(raw_len);
    fill(raw, raw_len, 3);
    double tp[16], tu[16];
    use_cpu_clock = true;
    for (int k = -1; k < 9; k++) {
        double t0 = now_s();
        czk_fr32_pad(pad, raw, raw_len);
        double t1 = now_s();
        czk_fr32_unpad(back, pad, pad_len, 0, raw_len, NULL);
        double t2 = now_s();
        if (k >= 0) {
            tp[k] = t1 - t0;
            tu[k] = t2 - t1;
        }
    }
    if (memcmp(raw, back, raw_len) != 0) {
        fprintf(stderr, "bench_merkle: fr32 round trip failed\n");
        return 1;
    }
    double pad_mbps = (double)raw_len / median(tp, 9) / 1e6;
    double unpad_mbps = (double)raw_len / median(tu, 9) / 1e6;

    printf("Merkle trees, %u threads available (field back end %s), medians of %d runs\n", nthreads,
           czk_ff_backend(), reps);
    printf("%-34s %14s %14s %8s %16s\n", "what", "1 thread", "all threads", "speedup",
           "floor/thread");
    printf("%-34s %11.1f MB/s %9.1f MB/s %7.2fx %11.1f MB/s\n", "tree_d SHA-256 (MB/s of leaves)",
           mb / sha_1, mb / sha_n, sha_1 / sha_n, bulk / 4);
    printf("%-34s %9.0f leaf/s %7.0f leaf/s %7.2fx %9.0f leaf/s\n", "octree Poseidon-8 (leaves/s)",
           (double)n_pos / pos_1, (double)n_pos / pos_n, pos_1 / pos_n, 7.0 / t_hash);
    printf("%-34s %11.1f MB/s\n", "fr32 pad (MB/s of raw data)", pad_mbps);
    printf("%-34s %11.1f MB/s\n", "fr32 unpad (MB/s of raw data)", unpad_mbps);
    printf("tree_d: 2^%u leaves, %.0f ns per node on one thread (OpenSSL bulk SHA-256 %.0f MB/s);"
           " octree: 8^%u leaves, Poseidon-8 hash %.1f us\n",
           log2_sha, ns_node, bulk, log8_pos, t_hash * 1e6);
    printf(
        "JSON {\"bench\":\"merkle\",\"threads\":%u,\"ff_backend\":\"%s\",\"tree_d_log2_leaves\":%u,"
        "\"tree_d_mbps_1t\":%.1f,\"tree_d_mbps_nt\":%.1f,\"tree_d_ns_per_node_1t\":%.1f,"
        "\"sha256_bulk_mbps\":%.1f,\"octree_log8_leaves\":%u,\"octree_leaves_per_s_1t\":%.0f,"
        "\"octree_leaves_per_s_nt\":%.0f,\"poseidon8_hash_us\":%.2f,"
        "\"octree_floor_leaves_per_s_1t\":%.0f,\"fr32_pad_mbps\":%.1f,\"fr32_unpad_mbps\":%.1f}\n",
        nthreads, czk_ff_backend(), log2_sha, mb / sha_1, mb / sha_n, ns_node, bulk, log8_pos,
        (double)n_pos / pos_1, (double)n_pos / pos_n, t_hash * 1e6, 7.0 / t_hash, pad_mbps,
        unpad_mbps);
    free(sha_leaves);
    free(pos_leaves);
    free(raw);
    free(pad);
    free(back);
    czk_pool_destroy(pool);
    return 0;
}
