/*
 * czk fixture porep|snap|wpost|winning: write synthetic TEST inputs for the prover, for
 * any registered proof, 32 GiB and 64 GiB included, in seconds. `porep` writes a C1
 * (SealCommitPhase1Output JSON, or cuzk's envelope) from czk_porep_fixture; snap, wpost
 * and winning are dispatched to czk_fixture_sp.c. The output is test data, not the proof
 * material of any sealed sector (include/czk/porep_vanilla.h §7).
 */
#include "czk/alloc.h"
#include "czk/pool.h"
#include "czk/porep_vanilla.h"
#include "czk/seal_proof.h"
#include "czk/vanilla.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: czk fixture porep --registered-proof NAME --out FILE [--seed N]\n"
            "                         [--envelope SECTOR_NUM] [--threads N] [--no-verify]\n"
            "       czk fixture snap|wpost|winning ...   (see czk fixture KIND --help)\n"
            "\n"
            "Writes a synthetic C1 output (SealCommitPhase1Output JSON) for any registered seal\n"
            "proof: TEST DATA whose every Merkle path, column and label satisfies the PoRep\n"
            "circuit, built from pseudo-random sparse trees instead of a sealed sector.\n"
            "\n"
            "  --registered-proof NAME  e.g. StackedDrg32GiBV1_1 (or RegisteredSealProof_...)\n"
            "  --out FILE               where to write the JSON\n"
            "  --seed N                 fixture seed, a decimal u64 (default 0)\n"
            "  --envelope SECTOR_NUM    wrap the C1 in cuzk's {SectorNum, Phase1Out, SectorSize}\n"
            "  --threads N              worker threads (default: all CPUs)\n"
            "  --no-verify              skip the final czk_porep_c1_verify\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (*s == '\0' || *s == '-') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno != 0) return false;
    *out = v;
    return true;
}

static int porep_main(int argc, char **argv)
{
    const char *proof_name = NULL, *out_path = NULL;
    uint64_t seed = 0, sector_num = 0, threads = 0;
    bool envelope = false, verify = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        if (strcmp(a, "--registered-proof") == 0 && has) {
            proof_name = argv[++i];
        } else if (strcmp(a, "--out") == 0 && has) {
            out_path = argv[++i];
        } else if (strcmp(a, "--seed") == 0 && has) {
            if (!parse_u64(argv[++i], &seed)) {
                fprintf(stderr, "czk fixture porep: bad --seed '%s' (a decimal u64)\n", argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--envelope") == 0 && has) {
            if (!parse_u64(argv[++i], &sector_num)) {
                fprintf(stderr, "czk fixture porep: bad --envelope '%s'\n", argv[i]);
                return 2;
            }
            envelope = true;
        } else if (strcmp(a, "--threads") == 0 && has) {
            if (!parse_u64(argv[++i], &threads) || threads > 4096) {
                fprintf(stderr, "czk fixture porep: bad --threads '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--no-verify") == 0) {
            verify = false;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "czk fixture porep: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!proof_name || !out_path) {
        fprintf(stderr, "czk fixture porep: --registered-proof and --out are required\n");
        usage(stderr);
        return 2;
    }
    czk_err err;
    czk_seal_proof proof;
    if (czk_seal_proof_parse(proof_name, &proof, &err) != CZK_OK) {
        fprintf(stderr, "czk fixture porep: %s\n", err.msg);
        return 2;
    }
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    czk_pool *pool = NULL;
    if (czk_pool_create(&pool, (unsigned)threads, &err) != CZK_OK) {
        fprintf(stderr, "czk fixture porep: %s\n", err.msg);
        return 1;
    }
    double t0 = czk_clock_s();
    czk_porep_c1_output *c1 = NULL;
    czk_status st = czk_porep_fixture(&c1, proof, seed, pool, &err);
    czk_pool_destroy(pool);
    if (st) {
        fprintf(stderr, "czk fixture porep: %s\n", err.msg);
        return 1;
    }
    double t1 = czk_clock_s();
    /* Synthetic and non-interactive fixtures take their challenges by the interactive
     * rule (their own rules need comm_r, which the challenged paths determine). */
    if (verify &&
        (st = czk_porep_c1_verify(
             c1, proof,
             info->feature == CZK_SEAL_FEATURE_INTERACTIVE ? 0 : CZK_POREP_VERIFY_ANY_CHALLENGES,
             &err))) {
        fprintf(stderr, "czk fixture porep: the fixture does not verify: %s\n", err.msg);
        czk_porep_c1_output_free(c1);
        return 1;
    }
    uint8_t *json = NULL, *env = NULL;
    size_t len = 0, env_len = 0;
    st = czk_porep_c1_write_json(c1, &json, &len, &err);
    czk_porep_c1_output_free(c1);
    if (!st && envelope)
        st = czk_porep_envelope_encode(json, len, sector_num, info->sector_size, &env, &env_len,
                                       &err);
    if (st) {
        fprintf(stderr, "czk fixture porep: %s\n", err.msg);
        czk_free(json);
        return 1;
    }
    const uint8_t *buf = envelope ? env : json;
    size_t n = envelope ? env_len : len;
    FILE *f = fopen(out_path, "wb");
    bool ok = f && fwrite(buf, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = false;
    czk_free(json);
    czk_free(env);
    if (!ok) {
        fprintf(stderr, "czk fixture porep: cannot write %s: %s\n", out_path, strerror(errno));
        return 1;
    }
    printf("%s PoRep fixture (seed %llu, TEST DATA): %zu bytes to %s in %.2f s%s\n", info->name,
           (unsigned long long)seed, n, out_path, t1 - t0, verify ? ", verified" : "");
    return 0;
}

int czk_cli_fixture(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *kind = argv[1];
    if (strcmp(kind, "porep") == 0) return porep_main(argc - 1, argv + 1);
    if (strcmp(kind, "snap") == 0) return czk_fixture_snap_main(argc - 1, argv + 1);
    if (strcmp(kind, "wpost") == 0) return czk_fixture_post_main(argc - 1, argv + 1, false);
    if (strcmp(kind, "winning") == 0) return czk_fixture_post_main(argc - 1, argv + 1, true);
    fprintf(stderr, "czk fixture: unknown kind '%s' (porep, snap, wpost or winning)\n", kind);
    return 2;
}
