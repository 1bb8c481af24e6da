/*
 * czk parent-cache: generate or verify a Filecoin SDR parent-cache file, named and laid
 * out as rust-fil-proofs does, so that either program can use the other's file.
 */
#include "czk/parent_cache.h"
#include "czk/pool.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(
        f, "usage: czk parent-cache --registered-proof NAME [--out FILE] [--verify]\n"
           "                        [--threads N] [--quiet]\n"
           "\n"
           "Generates the SDR parent cache of a registered seal proof (14 u32 LE parents per\n"
           "node) and prints its path, SHA-256 and the time taken. Without --out the file is\n"
           "the one rust-fil-proofs uses: v28-sdr-parent-<hash>.cache in $FIL_PROOFS_PARENT_CACHE\n"
           "(default /var/tmp/filecoin-parents). The file is written to a temporary name and\n"
           "renamed when complete.\n"
           "\n"
           "  --verify      check an existing file instead: its SHA-256 against the digest\n"
           "                rust-fil-proofs' parent_cache.json records (or, for proofs it does\n"
           "                not list, against the digest recomputed from the graph)\n"
           "  --threads N   worker threads (default: all CPUs)\n"
           "  --quiet       no progress bar\n");
}

static void list_names(FILE *f)
{
    fprintf(f, "valid registered seal proofs:\n");
    for (unsigned i = 0; i < CZK_SEAL_PROOF_COUNT; i++)
        fprintf(f, "  %s\n", czk_seal_proof_name((czk_seal_proof)i));
}

static void hex(char out[65], const uint8_t d[32])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int czk_cli_parent_cache(int argc, char **argv)
{
    const char *proof_name = NULL, *out = NULL;
    bool verify = false, quiet = false;
    unsigned threads = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--registered-proof") == 0 && i + 1 < argc) {
            proof_name = argv[++i];
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end != '\0' || v < 0 || v > 4096) {
                fprintf(stderr, "czk parent-cache: bad --threads '%s'\n", argv[i]);
                return 2;
            }
            threads = (unsigned)v;
        } else if (strcmp(argv[i], "--verify") == 0) {
            verify = true;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "czk parent-cache: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (proof_name == NULL) {
        fprintf(stderr, "czk parent-cache: --registered-proof is required\n");
        usage(stderr);
        list_names(stderr);
        return 2;
    }
    czk_err err;
    czk_seal_proof proof;
    if (czk_seal_proof_parse(proof_name, &proof, &err) != CZK_OK) {
        fprintf(stderr, "czk parent-cache: unknown registered seal proof '%s'\n", proof_name);
        list_names(stderr);
        return 2;
    }

    czk_sdr_graph *g = NULL;
    czk_pool *pool = NULL;
    int rc = 1;
    if (czk_sdr_graph_create_for_proof(&g, proof, &err) != CZK_OK ||
        czk_pool_create(&pool, threads, &err) != CZK_OK) {
        fprintf(stderr, "czk parent-cache: %s\n", err.msg);
        goto done;
    }
    char name[CZK_PARENT_CACHE_NAME_SIZE], path[4096], dir[4096];
    if (czk_parent_cache_name(g, name, &err) != CZK_OK) {
        fprintf(stderr, "czk parent-cache: %s\n", err.msg);
        goto done;
    }
    if (out != NULL) {
        snprintf(path, sizeof path, "%s", out);
    } else if (czk_parent_cache_dir(getenv("FIL_PROOFS_PARENT_CACHE"),
                                    getenv("FIL_PROOFS_CACHE_DIR"), dir, sizeof dir,
                                    &err) != CZK_OK ||
               czk_parent_cache_path(g, dir, path, sizeof path, &err) != CZK_OK) {
        fprintf(stderr, "czk parent-cache: %s\n", err.msg);
        goto done;
    }
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    const char *known = czk_parent_cache_known_digest(name);
    unsigned flags = quiet ? 0 : CZK_PARENT_CACHE_PROGRESS;
    printf("proof:  %s (%llu nodes, %u threads)\n", info->name, (unsigned long long)info->nodes,
           czk_pool_size(pool));
    printf("path:   %s\n", path);

    uint8_t digest[32];
    char dhex[65];
    double t0 = czk_clock_s();
    if (!verify) {
        if (czk_parent_cache_generate(g, path, pool, flags, digest, &err) != CZK_OK) {
            fprintf(stderr, "czk parent-cache: %s\n", err.msg);
            goto done;
        }
        hex(dhex, digest);
        printf("sha256: %s\n", dhex);
        printf("known:  %s\n", known != NULL ? "matches rust-fil-proofs parent_cache.json"
                                             : "not listed in rust-fil-proofs parent_cache.json");
        printf("time:   %.2f s\n", czk_clock_s() - t0);
        rc = 0;
        goto done;
    }

    if (czk_parent_cache_file_digest(path, digest, &err) != CZK_OK) {
        fprintf(stderr, "czk parent-cache: %s\n", err.msg);
        goto done;
    }
    hex(dhex, digest);
    printf("sha256: %s\n", dhex);
    char want[65];
    if (known != NULL) {
        snprintf(want, sizeof want, "%s", known);
        printf("expect: %s (rust-fil-proofs parent_cache.json)\n", want);
    } else {
        uint8_t w[32];
        if (czk_parent_cache_compute_digest(g, pool, flags, w, &err) != CZK_OK) {
            fprintf(stderr, "czk parent-cache: %s\n", err.msg);
            goto done;
        }
        hex(want, w);
        printf("expect: %s (recomputed; not in parent_cache.json)\n", want);
    }
    bool ok = strcmp(want, dhex) == 0;
    printf("verify: %s\n", ok ? "OK" : "MISMATCH");
    printf("time:   %.2f s\n", czk_clock_s() - t0);
    rc = ok ? 0 : 1;
done:
    czk_pool_destroy(pool);
    czk_sdr_graph_destroy(g);
    return rc;
}
