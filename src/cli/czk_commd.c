/*
 * czk comm-d: the comm_d of an all-zero sector (the unsealed CID of a CC sector), from
 * the zero ladder of binary SHA-256 trees, as hex and as the piece CID Lotus and Curio
 * print (CIDv1, codec fil-commitment-unsealed, multihash sha2-256-trunc254-padded).
 * The 32 and 64 GiB lines equal go-fil-commcid's commcid_test.go fixtures "empty32GiB"
 * (baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq) and "empty64GiB".
 */
#include "czk/comm.h"
#include "czk/seal_proof.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: czk comm-d [--sector-size SIZE] [--json]\n"
               "\n"
               "Prints the comm_d of an all-zero sector or piece of SIZE padded bytes (a power of\n"
               "two: bytes, or with a KiB/MiB/GiB suffix, e.g. 2KiB, 32GiB), as hex and as a\n"
               "piece CID. Without --sector-size it prints every registered sector size.\n");
}

/* CIDv1 of a piece commitment in multibase base32 (lower case, no padding). */
static void piece_cid(char *out, size_t cap, const uint8_t comm[32])
{
    /* version 1, codec 0xf101 and multihash 0x1012 as varints, digest length 32. */
    uint8_t bin[39] = {0x01, 0x81, 0xe2, 0x03, 0x92, 0x20, 0x20};
    memcpy(bin + 7, comm, 32);
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    size_t o = 0;
    if (cap < 2) return;
    out[o++] = 'b';
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < sizeof bin && o + 1 < cap; i++) {
        acc = (acc << 8) | bin[i];
        bits += 8;
        while (bits >= 5 && o + 1 < cap) {
            out[o++] = alphabet[(acc >> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    if (bits > 0 && o + 1 < cap) out[o++] = alphabet[(acc << (5 - bits)) & 31];
    out[o] = '\0';
}

static void size_name(char *out, size_t cap, uint64_t size)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    while (u < 4 && size >= 1024 && size % 1024 == 0) {
        size /= 1024;
        u++;
    }
    snprintf(out, cap, "%llu%s", (unsigned long long)size, units[u]);
}

static int print_one(uint64_t size, bool json, bool first)
{
    uint8_t comm[32];
    czk_err err;
    if (czk_comm_d_zero(comm, size, &err) != CZK_OK) {
        fprintf(stderr, "czk comm-d: %s\n", err.msg);
        return 2;
    }
    char hex[65], cid[80], name[32];
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", comm[i]);
    piece_cid(cid, sizeof cid, comm);
    size_name(name, sizeof name, size);
    if (json)
        printf("%s{\"sector_size\":%llu,\"comm_d\":\"%s\",\"cid\":\"%s\"}", first ? "" : ",",
               (unsigned long long)size, hex, cid);
    else
        printf("%-8s %s %s\n", name, hex, cid);
    return 0;
}

int czk_cli_comm_d(int argc, char **argv)
{
    uint64_t size = 0;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sector-size") == 0 && i + 1 < argc) {
            if (!czk_cli_parse_size(argv[++i], &size)) {
                fprintf(stderr, "czk comm-d: bad --sector-size '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "czk comm-d: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (size != 0) {
        int rc = print_one(size, json, true);
        if (json && rc == 0) printf("\n");
        return rc;
    }
    /* Every distinct registered sector size, smallest first. */
    uint64_t sizes[CZK_SEAL_PROOF_COUNT];
    unsigned n = 0;
    for (unsigned p = 0; p < CZK_SEAL_PROOF_COUNT; p++) {
        uint64_t s = czk_seal_proof_get((czk_seal_proof)p)->sector_size;
        bool seen = false;
        for (unsigned j = 0; j < n; j++) seen = seen || sizes[j] == s;
        if (!seen) sizes[n++] = s;
    }
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
            uint64_t t = sizes[j];
            sizes[j] = sizes[j - 1];
            sizes[j - 1] = t;
        }
    if (json) printf("[");
    for (unsigned i = 0; i < n; i++)
        if (print_one(sizes[i], json, i == 0) != 0) return 1;
    if (json) printf("]\n");
    return 0;
}
