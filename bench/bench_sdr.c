/*
 * bench_sdr: SDR parent generation and parent-cache files.
 *
 * Figures, each a median over `reps` timed runs after one untimed warm-up:
 *  - graph creation (the Feistel round tables: 3·2^half_bits BLAKE2b calls);
 *  - parents of `nodes` nodes from the middle of the graph, nodes/s, on 1 thread and on
 *    all threads of the pool, with the DRG and expander halves timed apart on 1 thread;
 *  - the whole parent cache of the graph: streamed through SHA-256 only, and written to
 *    a file in --dir (atomic write, fsync, as `czk parent-cache` does).
 * Next to them, floors this program measures: two ChaCha8 blocks per node (the DRG's
 * keystream, nothing else) and OpenSSL SHA-256 over the 56 bytes a node of the file.
 * Output: a table, then one "JSON {...}" line.
 *
 *   bench_sdr [--proof StackedDrg512MiBV1_1] [--nodes 1048576] [--reps 5] [--threads N]
 *             [--cache-reps 3] [--dir /tmp] [--no-cache]
 */
#include "czk/parent_cache.h"
#include "czk/pool.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"
#include "filecoin/seal/sdr_internal.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static volatile uint32_t sink;

/* Seconds for the DRG (what = 0) or expander (what = 1) parents of [first, first+n). */
static double half_time(const czk_sdr_graph *g, uint64_t first, uint64_t n, int what)
{
    uint32_t p[8], acc = 0;
    double t0 = now_s();
    for (uint64_t i = first; i < first + n; i++) {
        if (what == 0)
            czk_sdr_drg_parents(g, (uint32_t)i, p);
        else
            czk_sdr_exp_parents(g, (uint32_t)i, p);
        acc += p[1];
    }
    sink = acc;
    return now_s() - t0;
}

/* Seconds for two ChaCha8 blocks per node over n nodes: the DRG's keystream alone. */
static double chacha_time(uint64_t n)
{
    uint32_t key[8] = {1, 2, 3, 4, 5, 6, 7, 0}, out[32], acc = 0;
    double t0 = now_s();
    for (uint64_t i = 0; i < n; i++) {
        key[7] = (uint32_t)i;
        czk__chacha_block(out, key, 0, 0, 8);
        czk__chacha_block(out + 16, key, 1, 0, 8);
        acc += out[3] ^ out[19];
    }
    sink = acc;
    return now_s() - t0;
}

/* OpenSSL SHA-256 throughput in bytes/s over a 16 MiB buffer. */
static double sha256_rate(void)
{
    size_t n = 16u << 20;
    uint8_t *buf = calloc(n, 1), d[32];
    unsigned len;
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = now_s();
        EVP_Digest(buf, n, d, &len, EVP_sha256(), NULL);
        double t = now_s() - t0;
        if (t < best) best = t;
    }
    free(buf);
    return (double)n / best;
}

int main(int argc, char **argv)
{
    const char *proof_name = "StackedDrg512MiBV1_1", *dir = "/tmp";
    uint64_t nodes = 1u << 20;
    int reps = 5, cache_reps = 3;
    unsigned threads = 0;
    bool do_cache = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--proof") == 0 && i + 1 < argc)
            proof_name = argv[++i];
        else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
            nodes = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--cache-reps") == 0 && i + 1 < argc)
            cache_reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--no-cache") == 0)
            do_cache = false;
        else {
            fprintf(stderr, "usage: bench_sdr [--proof NAME] [--nodes N] [--reps R] [--threads N] "
                            "[--cache-reps R] [--dir DIR] [--no-cache]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (cache_reps < 1) cache_reps = 1;
    czk_err err;
    czk_seal_proof proof;
    if (czk_seal_proof_parse(proof_name, &proof, &err) != CZK_OK) {
        fprintf(stderr, "bench_sdr: %s\n", err.msg);
        return 2;
    }
    czk_pool *pool = NULL;
    if (czk_pool_create(&pool, threads, &err) != CZK_OK) {
        fprintf(stderr, "bench_sdr: %s\n", err.msg);
        return 1;
    }
    unsigned nthreads = czk_pool_size(pool);

    double *t = calloc((size_t)(reps > cache_reps ? reps : cache_reps), sizeof(double));
    czk_sdr_graph *g = NULL;
    for (int r = 0; r <= reps; r++) {
        czk_sdr_graph_destroy(g);
        double t0 = now_s();
        if (czk_sdr_graph_create_for_proof(&g, proof, &err) != CZK_OK) {
            fprintf(stderr, "bench_sdr: %s\n", err.msg);
            return 1;
        }
        if (r > 0) t[r - 1] = now_s() - t0;
    }
    double create_ms = median(t, reps) * 1e3;
    uint64_t total = czk_sdr_graph_nodes(g);
    if (nodes > total) nodes = total;
    uint64_t first = (total - nodes) / 2;
    uint32_t *out = malloc(nodes * CZK_PARENT_CACHE_ENTRY_BYTES);

    double rate[2];
    for (int k = 0; k < 2; k++) {
        czk_pool *p = k == 0 ? NULL : pool;
        for (int r = 0; r <= reps; r++) {
            double t0 = now_s();
            czk_sdr_parents_range(g, first, nodes, out, p, NULL);
            if (r > 0) t[r - 1] = now_s() - t0;
        }
        rate[k] = (double)nodes / median(t, reps);
    }
    double half_ns[2];
    for (int what = 0; what < 2; what++) {
        for (int r = 0; r <= reps; r++) {
            double s = half_time(g, first, nodes, what);
            if (r > 0) t[r - 1] = s;
        }
        half_ns[what] = median(t, reps) / (double)nodes * 1e9;
    }
    for (int r = 0; r <= reps; r++) {
        double s = chacha_time(nodes);
        if (r > 0) t[r - 1] = s;
    }
    double chacha_ns = median(t, reps) / (double)nodes * 1e9;
    double sha_rate = sha256_rate();
    double sha_floor_s = (double)total * CZK_PARENT_CACHE_ENTRY_BYTES / sha_rate;

    double digest_s = 0, file_s = 0;
    char path[1024] = "";
    if (do_cache) {
        for (int r = 0; r < cache_reps; r++) {
            uint8_t d[32];
            double t0 = now_s();
            if (czk_parent_cache_compute_digest(g, pool, 0, d, &err) != CZK_OK) {
                fprintf(stderr, "bench_sdr: %s\n", err.msg);
                return 1;
            }
            t[r] = now_s() - t0;
        }
        digest_s = median(t, cache_reps);
        char name[CZK_PARENT_CACHE_NAME_SIZE];
        czk_parent_cache_name(g, name, NULL);
        snprintf(path, sizeof path, "%s/czk-bench-%ld-%s", dir, (long)getpid(), name);
        for (int r = 0; r < cache_reps; r++) {
            uint8_t d[32];
            double t0 = now_s();
            if (czk_parent_cache_generate(g, path, pool, 0, d, &err) != CZK_OK) {
                fprintf(stderr, "bench_sdr: %s\n", err.msg);
                return 1;
            }
            t[r] = now_s() - t0;
            unlink(path);
        }
        file_s = median(t, cache_reps);
    }

    printf("bench_sdr: %s, %llu nodes, sample %llu nodes, %u threads, median of %d (cache %d)\n",
           proof_name, (unsigned long long)total, (unsigned long long)nodes, nthreads, reps,
           cache_reps);
    printf("  %-44s %12s %14s\n", "measurement", "value", "floor");
    printf("  %-44s %9.1f ms\n", "graph create (Feistel tables)", create_ms);
    printf("  %-44s %9.2f M/s %11.1f ns/node\n", "parents, 1 thread", rate[0] / 1e6, 1e9 / rate[0]);
    printf("  %-44s %9.2f M/s %11.1f ns/node\n", "parents, all threads", rate[1] / 1e6,
           1e9 / rate[1]);
    printf("  %-44s %9.1f ns %10.1f ns (2 ChaCha8 blocks)\n", "  DRG parents / node, 1 thread",
           half_ns[0], chacha_ns);
    printf("  %-44s %9.1f ns\n", "  expander parents / node, 1 thread", half_ns[1]);
    if (do_cache) {
        printf("  %-44s %9.2f s %10.2f s (SHA-256 of file at %.2f GB/s)\n",
               "whole cache -> SHA-256 only, all threads", digest_s, sha_floor_s, sha_rate / 1e9);
        printf("  %-44s %9.2f s %10.2f s (parents at 1-thread rate / threads)\n",
               "whole cache -> file (write+fsync+rename)", file_s,
               (double)total / rate[0] / nthreads);
    }
    printf("JSON {\"bench\":\"sdr\",\"proof\":\"%s\",\"nodes\":%llu,\"sample_nodes\":%llu,"
           "\"threads\":%u,\"create_ms\":%.2f,\"parents_per_s_1t\":%.0f,"
           "\"parents_per_s_all\":%.0f,\"drg_ns_per_node\":%.1f,\"exp_ns_per_node\":%.1f,"
           "\"chacha8_2blocks_ns\":%.1f,\"sha256_gb_per_s\":%.3f,\"cache_digest_s\":%.3f,"
           "\"cache_file_s\":%.3f}\n",
           proof_name, (unsigned long long)total, (unsigned long long)nodes, nthreads, create_ms,
           rate[0], rate[1], half_ns[0], half_ns[1], chacha_ns, sha_rate / 1e9, digest_s, file_s);
    free(out);
    free(t);
    czk_sdr_graph_destroy(g);
    czk_pool_destroy(pool);
    return 0;
}
