/*
 * czk vanilla-verify: check a C1 output (SealCommitPhase1Output JSON, or cuzk's envelope
 * around it) against a registered proof: its structure and every Merkle path, so that a
 * bad C1 is rejected with a message naming the partition, challenge and field before
 * any proving starts.
 */
#include "czk/alloc.h"
#include "czk/vanilla.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: czk vanilla-verify --registered-proof NAME --c1 FILE\n"
               "\n"
               "FILE is the C1 output JSON of seal_commit_phase1, or cuzk's PoRep envelope\n"
               "{\"SectorNum\", \"Phase1Out\": base64 C1, \"SectorSize\"} (detected). Exit 0 when it is\n"
               "well-formed for NAME and every Merkle path verifies, 2 otherwise.\n");
}

static czk_status read_file(const char *path, uint8_t **out, size_t *len, czk_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return czk_err_set(err, CZK_ENOENT, "cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = czk_malloc(cap);
    while (buf) {
        if (n == cap) {
            uint8_t *nb = czk_realloc(buf, cap * 2);
            if (!nb) {
                czk_free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf) return czk_err_set(err, CZK_ENOMEM, "out of memory reading %s", path);
    if (bad) {
        czk_free(buf);
        return czk_err_set(err, CZK_EIO, "error reading %s", path);
    }
    *out = buf;
    *len = n;
    return CZK_OK;
}

int czk_cli_vanilla_verify(int argc, char **argv)
{
    const char *name = NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--registered-proof") == 0 && i + 1 < argc) {
            name = argv[++i];
        } else if (strcmp(argv[i], "--c1") == 0 && i + 1 < argc) {
            file = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "czk vanilla-verify: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!name || !file) {
        usage(stderr);
        return 2;
    }
    czk_err err = {0};
    czk_seal_proof proof;
    uint8_t *buf = NULL, *c1json = NULL;
    size_t len = 0, c1len = 0;
    czk_c1_output *c1 = NULL;
    uint64_t sector_num = 0, sector_size = 0;
    bool envelope = false;
    czk_status s = czk_seal_proof_parse(name, &proof, &err);
    if (!s) s = read_file(file, &buf, &len, &err);
    if (!s) {
        /* A C1 opens with its "registered_proof" key (serde writes it first); anything
         * else is tried as an envelope. Looking first saves parsing a 50 MB C1 twice. */
        size_t head = len < 256 ? len : 256;
        bool plain = memmem(buf, head, "\"registered_proof\"", 18) != NULL;
        s = plain ? CZK_ENOENT
                  : czk_cuzk_envelope_decode(buf, len, &c1json, &c1len, &sector_num, &sector_size,
                                             &err);
        if (s == CZK_OK) {
            envelope = true;
            const czk_seal_proof_info *info = czk_seal_proof_get(proof);
            if (sector_size != info->sector_size)
                s = czk_err_set(&err, CZK_EINVAL,
                                "cuzk envelope: SectorSize %llu does not match %s (%llu bytes)",
                                (unsigned long long)sector_size, info->name,
                                (unsigned long long)info->sector_size);
        } else if (s == CZK_ENOENT) {
            /* Not an envelope: plain C1 JSON. */
            s = CZK_OK;
        }
    }
    if (!s) s = czk_c1_parse_json(&c1, envelope ? c1json : buf, envelope ? c1len : len, &err);
    if (!s) s = czk_c1_check(c1, proof, &err);
    if (!s) {
        printf("ok: %s%s: %zu partitions × %zu challenges, every Merkle path verifies",
               name, envelope ? " (cuzk envelope)" : "", c1->npartitions,
               c1->npartitions ? c1->challenge_counts[0] : 0);
        if (envelope) printf(", sector %llu", (unsigned long long)sector_num);
        printf("\n");
    } else {
        fprintf(stderr, "czk vanilla-verify: %s: %s\n", file, err.msg);
    }
    czk_c1_output_free(c1);
    czk_free(c1json);
    czk_free(buf);
    return s ? 2 : 0;
}
