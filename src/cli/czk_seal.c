/*
 * czk seal: seal a small sector on the CPU (SDR labels, tree_c, encoding, tree_r_last)
 * as rust-fil-proofs' seal_pre_commit_phase1/2 do, print comm_d and comm_r (hex and the
 * CIDs Lotus and Curio print), and write the sealed replica, the padded unsealed data and
 * a JSON file with every commitment into an output directory.
 */
#include "czk/alloc.h"
#include "czk/fr32.h"
#include "czk/pool.h"
#include "czk/porep_vanilla.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"
#include "czk/sector.h"
#include "czk/vanilla.h"
#include "cli.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: czk seal --registered-proof NAME [--data FILE [--padded] | --zero |\n"
            "                --random SEED] --prover-id N --sector-id N --ticket HEX\n"
            "                --out-dir DIR [--threads N] [--json] [--seed HEX --c1-out FILE]\n"
            "\n"
            "Seals a sector of up to 512 MiB in memory and writes DIR/sealed (the replica),\n"
            "DIR/unsealed (the fr32-padded data) and DIR/seal.json (comm_d, comm_r, comm_c,\n"
            "comm_r_last, replica_id, CIDs, stage timings).\n"
            "\n"
            "  --data FILE     raw piece bytes, fr32-padded into the sector (at most 127/128 of\n"
            "                  the sector size); the rest of the sector is zero\n"
            "  --padded        FILE is already fr32-padded (at most the sector size)\n"
            "  --zero          an all-zero (CC) sector (the default)\n"
            "  --random SEED   pseudo-random raw data: ChaCha20 keyed by SHA-256(SEED)\n"
            "  --prover-id N   miner actor id (1000, f01000 or t01000)\n"
            "  --sector-id N   sector number\n"
            "  --ticket HEX    32-byte ticket, 64 hex digits\n"
            "  --threads N     worker threads (default: all CPUs)\n"
            "  --json          print the JSON instead of the text summary\n"
            "  --seed HEX      32-byte interactive seed (64 hex digits) for --c1-out\n"
            "  --c1-out FILE   also write the C1 output (SealCommitPhase1Output JSON, as\n"
            "                  filecoin-proofs' seal_commit_phase1) for that seed\n");
}

static void hex(char out[65], const uint8_t d[32])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static bool parse_hex32(const char *s, uint8_t out[32])
{
    if (strncmp(s, "0x", 2) == 0) s += 2;
    if (strlen(s) != 64) return false;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return false;
        if (strchr("0123456789abcdefABCDEF", s[2 * i]) == NULL ||
            strchr("0123456789abcdefABCDEF", s[2 * i + 1]) == NULL)
            return false;
        out[i] = (uint8_t)v;
    }
    return true;
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

/*
 * CIDv1 of a commitment in multibase base32 (lower case, no padding), as go-fil-commcid:
 * unsealed = codec fil-commitment-unsealed (0xf101) with multihash
 * sha2-256-trunc254-padded (0x1012); sealed = fil-commitment-sealed (0xf102) with
 * poseidon-bls12_381-a2-fc1 (0xb401). Codes as unsigned varints, digest length 32.
 */
static void commitment_cid(char *out, size_t cap, const uint8_t comm[32], bool sealed)
{
    uint8_t bin[40];
    size_t n = 0;
    bin[n++] = 0x01;
    if (sealed) {
        memcpy(bin + n, (const uint8_t[]){0x82, 0xe2, 0x03, 0x81, 0xe8, 0x02}, 6);
    } else {
        memcpy(bin + n, (const uint8_t[]){0x81, 0xe2, 0x03, 0x92, 0x20}, 5);
    }
    n += sealed ? 6 : 5;
    bin[n++] = 0x20;
    memcpy(bin + n, comm, 32);
    n += 32;
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    size_t o = 0;
    if (cap < 2) return;
    out[o++] = 'b';
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
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

/* Read at most `cap` bytes of a file; fails when the file is longer. */
static int read_file(const char *path, uint8_t *buf, size_t cap, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "czk seal: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t n = fread(buf, 1, cap, f);
    int extra = fgetc(f);
    bool err = ferror(f) != 0;
    fclose(f);
    if (err) {
        fprintf(stderr, "czk seal: cannot read %s\n", path);
        return 1;
    }
    if (extra != EOF) {
        fprintf(stderr, "czk seal: %s is larger than the %zu bytes the sector holds\n", path, cap);
        return 1;
    }
    *len = n;
    return 0;
}

/* `n` pseudo-random bytes: the ChaCha20 keystream under SHA-256(seed), nonce zero. */
static int random_bytes(uint8_t *out, size_t n, const char *seed)
{
    uint8_t key[32], iv[16] = {0};
    if (czk_sha256(key, seed, strlen(seed)) != CZK_OK) return 1;
    memset(out, 0, n);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int ok = c != NULL && EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key, iv) == 1;
    for (size_t done = 0; ok && done < n;) {
        int step = n - done > (1u << 30) ? 1 << 30 : (int)(n - done), len = 0;
        ok = EVP_EncryptUpdate(c, out + done, &len, out + done, step) == 1 && len == step;
        done += (size_t)step;
    }
    EVP_CIPHER_CTX_free(c);
    if (!ok) fprintf(stderr, "czk seal: OpenSSL ChaCha20 failed\n");
    return ok ? 0 : 1;
}

static int write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "czk seal: cannot write %s: %s\n", path, strerror(errno));
        if (f != NULL) fclose(f);
        return 1;
    }
    return 0;
}

/* JSON string contents: the data source may hold a path. */
static void json_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
}

static void print_json(FILE *f, const czk_sector *s, uint64_t actor, uint64_t sector_id,
                       const uint8_t ticket[32], const char *source, unsigned threads)
{
    const czk_seal_proof_info *info = czk_sector_info(s);
    czk_sector_seal_comms c;
    czk_sector_seal_timings t;
    czk_sector_comms(s, &c);
    czk_sector_timings(s, &t);
    char h[6][65], cid_d[80], cid_r[80];
    hex(h[0], c.comm_d);
    hex(h[1], c.comm_r);
    hex(h[2], c.comm_c);
    hex(h[3], c.comm_r_last);
    hex(h[4], c.replica_id);
    hex(h[5], ticket);
    commitment_cid(cid_d, sizeof cid_d, c.comm_d, false);
    commitment_cid(cid_r, sizeof cid_r, c.comm_r, true);
    fprintf(f,
            "{\"registered_proof\":\"%s\",\"sector_size\":%llu,\"prover_actor_id\":%llu,"
            "\"sector_id\":%llu,\"ticket\":\"%s\",\"data\":\"",
            info->name, (unsigned long long)info->sector_size, (unsigned long long)actor,
            (unsigned long long)sector_id, h[5]);
    json_escape(f, source);
    fprintf(f,
            "\",\"comm_d\":\"%s\",\"comm_r\":\"%s\",\"comm_c\":\"%s\",\"comm_r_last\":\"%s\","
            "\"replica_id\":\"%s\",\"unsealed_cid\":\"%s\",\"sealed_cid\":\"%s\","
            "\"sha256_backend\":\"%s\",\"threads\":%u,\"timings_s\":{\"tree_d\":%.3f,"
            "\"labels\":%.3f,\"tree_c\":%.3f,\"encode\":%.3f,\"tree_r_last\":%.3f,"
            "\"total\":%.3f}}\n",
            h[0], h[1], h[2], h[3], h[4], cid_d, cid_r, czk_sdr_sha256_backend(), threads, t.tree_d,
            t.labels, t.tree_c, t.encode, t.tree_r_last, t.total);
}

/* The C1 output of the sealed sector for `seed`, checked before it is written. */
static czk_status write_c1(const char *path, const czk_sector *s, const uint8_t ticket[32],
                           const uint8_t seed[32], czk_pool *pool)
{
    czk_err err;
    czk_porep_c1_output *c1 = NULL;
    uint8_t *json = NULL;
    size_t len = 0;
    czk_seal_proof proof = czk_sector_info(s)->proof;
    czk_status st = czk_porep_c1_from_sector(&c1, s, ticket, seed, pool, &err);
    if (st == CZK_OK) st = czk_porep_c1_verify(c1, proof, 0, &err);
    if (st == CZK_OK) st = czk_porep_c1_write_json(c1, &json, &len, &err);
    czk_porep_c1_output_free(c1);
    if (st != CZK_OK) {
        fprintf(stderr, "czk seal: C1: %s\n", err.msg);
        return st;
    }
    FILE *f = fopen(path, "wb");
    bool ok = f != NULL && fwrite(json, 1, len, f) == len;
    if (f != NULL && fclose(f) != 0) ok = false;
    czk_free(json);
    if (!ok) {
        fprintf(stderr, "czk seal: cannot write %s: %s\n", path, strerror(errno));
        return CZK_EIO;
    }
    return CZK_OK;
}

int czk_cli_seal(int argc, char **argv)
{
    const char *proof_name = NULL, *data_path = NULL, *seed = NULL, *out_dir = NULL;
    const char *prover_arg = NULL, *sector_arg = NULL, *ticket_arg = NULL;
    const char *c1_seed_arg = NULL, *c1_out = NULL;
    bool padded = false, zero = false, json = false;
    unsigned threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        if (strcmp(a, "--registered-proof") == 0 && has)
            proof_name = argv[++i];
        else if (strcmp(a, "--data") == 0 && has)
            data_path = argv[++i];
        else if (strcmp(a, "--random") == 0 && has)
            seed = argv[++i];
        else if (strcmp(a, "--prover-id") == 0 && has)
            prover_arg = argv[++i];
        else if (strcmp(a, "--sector-id") == 0 && has)
            sector_arg = argv[++i];
        else if (strcmp(a, "--ticket") == 0 && has)
            ticket_arg = argv[++i];
        else if (strcmp(a, "--out-dir") == 0 && has)
            out_dir = argv[++i];
        else if (strcmp(a, "--seed") == 0 && has)
            c1_seed_arg = argv[++i];
        else if (strcmp(a, "--c1-out") == 0 && has)
            c1_out = argv[++i];
        else if (strcmp(a, "--threads") == 0 && has) {
            uint64_t v;
            if (!parse_u64(argv[++i], &v) || v > 4096) {
                fprintf(stderr, "czk seal: bad --threads '%s'\n", argv[i]);
                return 2;
            }
            threads = (unsigned)v;
        } else if (strcmp(a, "--padded") == 0)
            padded = true;
        else if (strcmp(a, "--zero") == 0)
            zero = true;
        else if (strcmp(a, "--json") == 0)
            json = true;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "czk seal: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (proof_name == NULL || prover_arg == NULL || sector_arg == NULL || ticket_arg == NULL ||
        out_dir == NULL) {
        fprintf(stderr, "czk seal: --registered-proof, --prover-id, --sector-id, --ticket and "
                        "--out-dir are required\n");
        usage(stderr);
        return 2;
    }
    if ((data_path != NULL) + (seed != NULL) + zero > 1 || (padded && data_path == NULL)) {
        fprintf(stderr, "czk seal: give one of --data FILE [--padded], --zero, --random SEED\n");
        return 2;
    }
    uint8_t c1_seed[32];
    if ((c1_seed_arg != NULL) != (c1_out != NULL)) {
        fprintf(stderr, "czk seal: --seed and --c1-out go together\n");
        return 2;
    }
    if (c1_seed_arg != NULL && !parse_hex32(c1_seed_arg, c1_seed)) {
        fprintf(stderr, "czk seal: bad --seed (need 64 hex digits)\n");
        return 2;
    }
    czk_err err;
    czk_sector_seal_input in = {0};
    if (czk_seal_proof_parse(proof_name, &in.proof, &err) != CZK_OK) {
        fprintf(stderr, "czk seal: %s\n", err.msg);
        return 2;
    }
    const char *p = prover_arg;
    if ((p[0] == 'f' || p[0] == 't') && p[1] == '0') p += 2;
    uint64_t actor = 0;
    if (!parse_u64(p, &actor)) {
        fprintf(stderr, "czk seal: bad --prover-id '%s' (an actor id: 1000, f01000)\n", prover_arg);
        return 2;
    }
    czk_seal_prover_id_from_actor(in.prover_id, actor);
    if (!parse_u64(sector_arg, &in.sector_id)) {
        fprintf(stderr, "czk seal: bad --sector-id '%s'\n", sector_arg);
        return 2;
    }
    if (!parse_hex32(ticket_arg, in.ticket)) {
        fprintf(stderr, "czk seal: bad --ticket (need 64 hex digits)\n");
        return 2;
    }
    const czk_seal_proof_info *info = czk_seal_proof_get(in.proof);
    if (info->sector_size > (512ull << 20)) {
        fprintf(stderr,
                "czk seal: %s sectors are too large for the in-memory CPU seal "
                "(up to 512 MiB)\n",
                info->name);
        return 2;
    }
    if (mkdir(out_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "czk seal: cannot create %s: %s\n", out_dir, strerror(errno));
        return 1;
    }

    /* The padded sector image. */
    size_t size = info->sector_size, unpadded_cap = (size_t)czk_fr32_unpadded_size(size);
    uint8_t *data = czk_calloc(1, size), *raw = NULL;
    char source[4200];
    int rc = 1;
    if (data == NULL) {
        fprintf(stderr, "czk seal: out of memory\n");
        return 1;
    }
    if (data_path != NULL && padded) {
        size_t len = 0;
        if (read_file(data_path, data, size, &len) != 0) goto out;
        snprintf(source, sizeof source, "padded:%s", data_path);
    } else if (data_path != NULL || seed != NULL) {
        raw = czk_malloc(unpadded_cap);
        if (raw == NULL) {
            fprintf(stderr, "czk seal: out of memory\n");
            goto out;
        }
        size_t len = unpadded_cap;
        if (data_path != NULL) {
            if (read_file(data_path, raw, unpadded_cap, &len) != 0) goto out;
            snprintf(source, sizeof source, "file:%s", data_path);
        } else {
            if (random_bytes(raw, len, seed) != 0) goto out;
            snprintf(source, sizeof source, "random:%s", seed);
        }
        czk_fr32_pad(data, raw, len);
        czk_free(raw); /* 508 MiB at 512 MiB: not kept through the seal */
        raw = NULL;
    } else {
        snprintf(source, sizeof source, "zero");
    }

    czk_pool *pool = NULL;
    if (czk_pool_create(&pool, threads, &err) != CZK_OK) {
        fprintf(stderr, "czk seal: %s\n", err.msg);
        goto out;
    }
    in.data = data;
    czk_sector *s = NULL;
    czk_status st = czk_sector_seal(&s, &in, pool, &err);
    unsigned nthreads = czk_pool_size(pool);
    if (st != CZK_OK) {
        czk_pool_destroy(pool);
        fprintf(stderr, "czk seal: %s\n", err.msg);
        goto out;
    }
    if (c1_out != NULL) {
        st = write_c1(c1_out, s, in.ticket, c1_seed, pool);
        if (st != CZK_OK) {
            czk_pool_destroy(pool);
            czk_sector_destroy(s);
            goto out;
        }
    }
    czk_pool_destroy(pool);
    if (write_file(out_dir, "sealed", czk_sector_replica(s), size) != 0 ||
        write_file(out_dir, "unsealed", czk_sector_data(s), size) != 0) {
        czk_sector_destroy(s);
        goto out;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/seal.json", out_dir);
    FILE *jf = fopen(path, "w");
    if (jf == NULL) {
        fprintf(stderr, "czk seal: cannot write %s: %s\n", path, strerror(errno));
        czk_sector_destroy(s);
        goto out;
    }
    print_json(jf, s, actor, in.sector_id, in.ticket, source, nthreads);
    bool werr = fclose(jf) != 0;
    if (werr) {
        fprintf(stderr, "czk seal: cannot write %s\n", path);
        czk_sector_destroy(s);
        goto out;
    }
    if (json) {
        print_json(stdout, s, actor, in.sector_id, in.ticket, source, nthreads);
    } else {
        czk_sector_seal_comms c;
        czk_sector_seal_timings t;
        czk_sector_comms(s, &c);
        czk_sector_timings(s, &t);
        char hd[65], hr[65], cd[80], cr[80];
        hex(hd, c.comm_d);
        hex(hr, c.comm_r);
        commitment_cid(cd, sizeof cd, c.comm_d, false);
        commitment_cid(cr, sizeof cr, c.comm_r, true);
        printf("%s sector %llu of f0%llu (%s data)\n", info->name, (unsigned long long)in.sector_id,
               (unsigned long long)actor, source);
        printf("comm_d  %s  %s\n", hd, cd);
        printf("comm_r  %s  %s\n", hr, cr);
        printf("time    %.2f s on %u threads (tree_d %.2f, labels %.2f, tree_c %.2f, encode "
               "%.2f, tree_r_last %.2f; SHA-256 %s)\n",
               t.total, nthreads, t.tree_d, t.labels, t.tree_c, t.encode, t.tree_r_last,
               czk_sdr_sha256_backend());
        printf("wrote   %s/{sealed,unsealed,seal.json}\n", out_dir);
        if (c1_out != NULL) printf("wrote   C1 output to %s\n", c1_out);
    }
    czk_sector_destroy(s);
    rc = 0;
out:
    czk_free(raw);
    czk_free(data);
    return rc;
}
