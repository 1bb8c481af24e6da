/*
 * czk vanilla-verify: check a vanilla proof file before any proving starts, so that bad
 * input is rejected with a message naming the partition, challenge or field instead of
 * failing (or worse, proving garbage) minutes into a C2.
 *
 *   - PoRep: a C1 output (SealCommitPhase1Output JSON, or cuzk's envelope around it),
 *     checked completely by czk_porep_c1_verify: structure, every Merkle path, the parent
 *     columns, every label and, unless --any-challenges, the challenges derived from the
 *     C1's replica_id and seed.
 *   - SnapDeals: the request JSON that `czk fixture snap` writes (commitments and one
 *     base64 bincode PartitionProof per partition), or raw bincode PartitionProof files
 *     with the commitments given as options; czk_snap_partition_verify per partition.
 *   - PoSt (Window and Winning): the request JSON of `czk fixture wpost|winning`, or raw
 *     bincode FallbackPoStSectorProof files with the randomness given as an option;
 *     czk_post_sector_verify per sector.
 *
 * Exit status: 0 when everything verifies, 2 for bad arguments, malformed input or a
 * failed check, 1 when a file cannot be read (or memory runs out).
 */
#include "czk/alloc.h"
#include "czk/pool.h"
#include "czk/porep_vanilla.h"
#include "czk/post_vanilla.h"
#include "czk/snap_vanilla.h"
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: czk vanilla-verify [--registered-proof NAME] FILE\n"
            "       czk vanilla-verify [--registered-proof NAME] --c1 FILE [--any-challenges]\n"
            "       czk vanilla-verify [--registered-proof NAME] --snap FILE\n"
            "       czk vanilla-verify --registered-proof NAME --snap FILE... --comm-r-old HEX\n"
            "                          --comm-r-new HEX --comm-d-new HEX [--h N] [--partition K]\n"
            "       czk vanilla-verify [--registered-proof NAME] --post FILE\n"
            "       czk vanilla-verify --registered-proof NAME --post FILE... --randomness HEX\n"
            "                          [--partition K]\n"
            "\n"
            "Checks a vanilla proof file before proving; exit 0 when everything verifies, 2 for\n"
            "bad arguments, malformed input or a failed check (the message names the\n"
            "partition, challenge or field), 1 when a file cannot be read.\n"
            "\n"
            "  FILE (no kind option)  the kind is detected: a C1 output, cuzk's PoRep envelope,\n"
            "                         or a request JSON of `czk fixture snap|wpost|winning`\n"
            "  --c1 FILE              PoRep: SealCommitPhase1Output JSON or cuzk's envelope\n"
            "                         {\"SectorNum\", \"Phase1Out\": base64 C1, \"SectorSize\"}.\n"
            "                         Checks shapes, every Merkle path, the parent columns and\n"
            "                         labels, and that the challenges are those of the C1's\n"
            "                         replica_id and seed (czk_porep_c1_verify)\n"
            "  --any-challenges       PoRep: accept any challenges (synthetic fixtures of the\n"
            "                         synthetic and non-interactive PoRep kinds need this)\n"
            "  --snap FILE...         SnapDeals: a request JSON (comm_r_old, comm_r_new,\n"
            "                         comm_d_new, h, vanilla_proofs: every partition's base64\n"
            "                         bincode PartitionProof), or, with --comm-r-old,\n"
            "                         --comm-r-new and --comm-d-new, raw bincode PartitionProof\n"
            "                         files of partitions K, K+1, ...\n"
            "  --post FILE...         Window or Winning PoSt: a request JSON (randomness,\n"
            "                         partition_index, sectors, vanilla_proofs: base64 bincode\n"
            "                         FallbackPoStSectorProof per sector), or, with\n"
            "                         --randomness, raw bincode FallbackPoStSectorProof files of\n"
            "                         the sectors of partition K, in order\n"
            "  --registered-proof NAME  C1: a RegisteredSealProof (default: the C1's own);\n"
            "                         snap: a RegisteredUpdateProof, e.g. StackedDrg32GiBV1;\n"
            "                         post: a RegisteredPoStProof, e.g. StackedDrgWindow32GiBV1_2\n"
            "                         or StackedDrgWinning32GiBV1 (Go's V1_1 spelling and\n"
            "                         RegisteredXxxProof_ prefixes accepted). Required for raw\n"
            "                         files; with a JSON file it must match the file's\n"
            "  --comm-r-old HEX, --comm-r-new HEX, --comm-d-new HEX, --randomness HEX\n"
            "                         64 hex digits, the 32 bytes in order (little-endian Fr\n"
            "                         repr, as Filecoin's Domain bytes); with a JSON file they\n"
            "                         must equal the file's values\n"
            "  --h N                  snap, raw files: the encoding's h (default: h_default)\n"
            "  --partition K          raw files: partition index of the first file (default 0)\n"
            "  --threads N            snap and post: check proofs on N threads (default: one\n"
            "                         per CPU)\n");
}

typedef enum kind { KIND_AUTO, KIND_C1, KIND_SNAP, KIND_POST } kind;

enum { MAX_FILES = 256 };

typedef struct opts {
    kind kind;
    const char *name;
    const char *files[MAX_FILES];
    size_t nfiles;
    bool any_challenges;
    bool have_comm_r_old, have_comm_r_new, have_comm_d_new, have_randomness, have_h, have_partition;
    uint8_t comm_r_old[32], comm_r_new[32], comm_d_new[32], randomness[32];
    unsigned h;
    uint64_t partition;
    unsigned threads; /* 0: one per CPU */
} opts;

/* The outcome of a check: the exit status and, when not 0, the message printed. */
typedef struct result {
    int rc;
    czk_err err;
} result;

/* Exit status of a failed library call: memory and I/O are the machine's fault (1),
 * everything else is the input's (2). */
static int rc_of(czk_status s)
{
    return s == CZK_OK ? 0 : (s == CZK_ENOMEM || s == CZK_EIO) ? 1 : 2;
}

static czk_status read_file(const char *path, uint8_t **out, size_t *len, czk_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return czk_err_set(err, CZK_EIO, "cannot open: %s", strerror(errno));
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
    if (!buf) return czk_err_set(err, CZK_ENOMEM, "out of memory reading");
    if (bad) {
        czk_free(buf);
        return czk_err_set(err, CZK_EIO, "read error");
    }
    *out = buf;
    *len = n;
    return CZK_OK;
}

static bool parse_hex32(const char *s, uint8_t out[32])
{
    if (strlen(s) != 64) return false;
    for (int i = 0; i < 32; i++) {
        unsigned v = 0;
        for (int j = 0; j < 2; j++) {
            char c = s[2 * i + j];
            unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                         : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                         : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                                : 16u;
            if (d == 16) return false;
            v = v * 16 + d;
        }
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

/* Standard padded base64 into a czk_malloc'd buffer. EVP_DecodeBlock counts the padding
 * as zero bytes, so the '=' characters are subtracted from its length. */
static czk_status base64_decode(const char *s, uint8_t **out, size_t *len, const char *what,
                                czk_err *err)
{
    size_t n = strlen(s);
    if (n % 4 != 0 || n > (size_t)1 << 30)
        return czk_err_set(err, CZK_EFORMAT, "%s: not padded base64 (%zu characters)", what, n);
    uint8_t *b = czk_malloc(n / 4 * 3 + 1);
    if (!b) return czk_err_set(err, CZK_ENOMEM, "%s: out of memory", what);
    int r = n ? EVP_DecodeBlock(b, (const unsigned char *)s, (int)n) : 0;
    if (r < 0) {
        czk_free(b);
        return czk_err_set(err, CZK_EFORMAT, "%s: not valid base64", what);
    }
    size_t pad = (n >= 1 && s[n - 1] == '=') + (n >= 2 && s[n - 2] == '=');
    *out = b;
    *len = (size_t)r - pad;
    return CZK_OK;
}

/* A RegisteredPoStProof name (Go's prefix, and its V1_1 spelling of Window V1_2). */
static bool post_proof_parse(const char *name, czk_post_proof *out)
{
    const char *prefix = "RegisteredPoStProof_";
    if (strncmp(name, prefix, strlen(prefix)) == 0) name += strlen(prefix);
    char buf[64];
    size_t n = strlen(name);
    if (n >= sizeof buf) return false;
    memcpy(buf, name, n + 1);
    if (strncmp(buf, "StackedDrgWindow", 16) == 0 && n > 4 && strcmp(buf + n - 4, "V1_1") == 0)
        buf[n - 1] = '2';
    for (int i = 0; i < CZK_POST_PROOF_COUNT; i++)
        if (strcmp(czk_post_proof_name((czk_post_proof)i), buf) == 0) {
            *out = (czk_post_proof)i;
            return true;
        }
    return false;
}

/* =======================================================================================
 * PoRep
 * ======================================================================================= */

static result check_c1(const opts *o, const char *file)
{
    result res = {0};
    czk_err *err = &res.err;
    uint8_t *buf = NULL, *c1json = NULL;
    size_t len = 0, c1len = 0;
    czk_porep_c1_output *c1 = NULL;
    uint64_t sector_num = 0, sector_size = 0;
    bool envelope = false;
    czk_seal_proof proof = 0;
    czk_status s = o->name ? czk_seal_proof_parse(o->name, &proof, err) : CZK_OK;
    if (s) {
        res.rc = 2;
        return res;
    }
    if ((s = read_file(file, &buf, &len, err))) {
        res.rc = 1;
        return res;
    }
    /* A C1 opens with its "registered_proof" key (serde writes it first); anything
     * else is tried as an envelope. Looking first saves parsing a 50 MB C1 twice. */
    size_t head = len < 256 ? len : 256;
    bool plain = memmem(buf, head, "\"registered_proof\"", 18) != NULL;
    s = plain
            ? CZK_ENOENT
            : czk_porep_envelope_decode(buf, len, &c1json, &c1len, &sector_num, &sector_size, err);
    if (s == CZK_OK) {
        envelope = true;
    } else if (s == CZK_ENOENT) {
        s = CZK_OK; /* not an envelope: plain C1 JSON */
    }
    if (!s) s = czk_porep_c1_parse_json(&c1, envelope ? c1json : buf, envelope ? c1len : len, err);
    /* Without --registered-proof the C1 names its own proof; with it, czk_porep_c1_check
     * rejects a C1 of another proof. */
    if (!s && !o->name) proof = c1->proof;
    const czk_seal_proof_info *info = s ? NULL : czk_seal_proof_get(proof);
    if (!s && envelope && sector_size != info->sector_size)
        s = czk_err_set(
            err, CZK_EINVAL, "cuzk envelope: SectorSize %llu does not match %s (%llu bytes)",
            (unsigned long long)sector_size, info->name, (unsigned long long)info->sector_size);
    if (!s)
        s = czk_porep_c1_verify(c1, proof, o->any_challenges ? CZK_POREP_VERIFY_ANY_CHALLENGES : 0,
                                err);
    /* Synthetic fixtures of the synthetic and non-interactive kinds take their challenges
     * by the interactive rule (their own rules need comm_r, which the challenged paths
     * determine), so the strict check rejects them: say how to check them anyway. */
    if (s == CZK_EVERIFY && !o->any_challenges && info->feature != CZK_SEAL_FEATURE_INTERACTIVE &&
        strstr(err->msg, "give challenge") != NULL) {
        char tmp[sizeof err->msg];
        snprintf(tmp, sizeof tmp, "%s", err->msg);
        czk_err_set(err, s, "%s (a synthetic `czk fixture porep` of %s needs --any-challenges)",
                    tmp, info->name);
    }
    if (!s) {
        printf("ok: %s C1%s: %zu partitions × %zu challenges: every Merkle path, column and "
               "label verifies, challenges %s",
               info->name, envelope ? " (cuzk envelope)" : "", c1->npartitions,
               c1->npartitions ? c1->challenge_counts[0] : 0,
               o->any_challenges ? "not checked (--any-challenges)" : "derived from the seed");
        if (envelope) printf(", sector %llu", (unsigned long long)sector_num);
        printf("\n");
    }
    res.rc = rc_of(s);
    czk_porep_c1_output_free(c1);
    czk_free(c1json);
    czk_free(buf);
    return res;
}

/* =======================================================================================
 * Request JSON helpers
 * ======================================================================================= */

/* A 32-byte hex field of a request; when the command line gave one too, they must agree. */
static czk_status json_hex32(const json_t *doc, const char *key, uint8_t out[32], bool have_cli,
                             const uint8_t cli[32], czk_err *err)
{
    const char *v = json_string_value(json_object_get(doc, key));
    if (!v) return czk_err_set(err, CZK_EFORMAT, "%s: missing or not a string", key);
    if (!parse_hex32(v, out))
        return czk_err_set(err, CZK_EFORMAT, "%s: '%s' is not 64 hex digits", key, v);
    if (have_cli && memcmp(cli, out, 32) != 0)
        return czk_err_set(err, CZK_EVERIFY, "%s: the file's %s differs from --%s", key, v,
                           strcmp(key, "comm_r_old") == 0   ? "comm-r-old"
                           : strcmp(key, "comm_r_new") == 0 ? "comm-r-new"
                           : strcmp(key, "comm_d_new") == 0 ? "comm-d-new"
                                                            : "randomness");
    return CZK_OK;
}

/* An unsigned integer field; `def` when absent and `optional`. */
static czk_status json_u64(const json_t *doc, const char *key, uint64_t *out, bool optional,
                           uint64_t def, czk_err *err)
{
    const json_t *v = json_object_get(doc, key);
    if (!v && optional) {
        *out = def;
        return CZK_OK;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return czk_err_set(err, CZK_EFORMAT, "%s: missing or not a non-negative integer", key);
    *out = (uint64_t)json_integer_value(v);
    return CZK_OK;
}

/* The proof name of a request: registered_proof_name, which --registered-proof (when
 * given) must name the same proof as; `same` compares two names of the kind. */
static czk_status json_proof_name(const json_t *doc, const opts *o, const char **out,
                                  bool (*same)(const char *, const char *), czk_err *err)
{
    const char *v = json_string_value(json_object_get(doc, "registered_proof_name"));
    if (!v) return czk_err_set(err, CZK_EFORMAT, "registered_proof_name: missing or not a string");
    if (o->name && !same(o->name, v))
        return czk_err_set(err, CZK_EINVAL,
                           "registered_proof_name: the file is for %s, --registered-proof says %s",
                           v, o->name);
    *out = o->name ? o->name : v;
    return CZK_OK;
}

static bool same_update(const char *a, const char *b)
{
    uint64_t ia, ib, sa, sb;
    return czk_snap_update_proof_parse(a, &ia, &sa, NULL) == CZK_OK &&
           czk_snap_update_proof_parse(b, &ib, &sb, NULL) == CZK_OK && ia == ib;
}

static bool same_post(const char *a, const char *b)
{
    czk_post_proof pa, pb;
    return post_proof_parse(a, &pa) && post_proof_parse(b, &pb) && pa == pb;
}

/* vanilla_proofs[i] of a request, decoded. */
static czk_status json_vanilla(const json_t *doc, size_t i, uint8_t **out, size_t *len,
                               czk_err *err)
{
    char what[48];
    snprintf(what, sizeof what, "vanilla_proofs[%zu]", i);
    const char *v = json_string_value(json_array_get(json_object_get(doc, "vanilla_proofs"), i));
    if (!v) return czk_err_set(err, CZK_EFORMAT, "%s: not a string", what);
    return base64_decode(v, out, len, what, err);
}

/* Prefix the message in `err` with `what` (the file, the vanilla proof). */
static void err_prefix(czk_err *err, const char *what)
{
    char tmp[sizeof err->msg];
    snprintf(tmp, sizeof tmp, "%s", err->msg);
    czk_err_set(err, err->status, "%s: %s", what, tmp);
}

/* =======================================================================================
 * Vanilla proofs in batches
 * ======================================================================================= */

/* One vanilla proof to check: its bytes, what names it in a message, what the request's
 * sector list says of it (PoSt), and the outcome. */
typedef struct item {
    uint8_t *buf;
    size_t len;
    char what[PATH_MAX]; /* a whole file path: messages must name it untruncated */
    bool have_sector;
    uint64_t want_id;
    uint8_t want_comm_r[32];
    czk_status s;
    czk_err err;
} item;

/* What every proof of a batch is checked against. */
typedef struct batch {
    item *items;
    size_t n;
    bool snap;
    /* SnapDeals: partition k0 + i, h, commitments */
    const czk_snap_params *snap_params;
    uint64_t k0;
    unsigned h;
    const uint8_t *comm_r_old, *comm_d_new, *comm_r_new;
    /* PoSt */
    const czk_post_params *post_params;
    bool winning;
    const uint8_t *randomness;
    uint64_t partition;
} batch;

static void items_free(item *items, size_t n)
{
    for (size_t i = 0; items && i < n; i++) czk_free(items[i].buf);
    czk_free(items);
}

/* Read the n proofs (request vanilla_proofs[i] or raw files) and, for PoSt, the request's
 * sector list. 0, or the exit status with the message in `err`. */
static int items_load(item **out, size_t n, const opts *o, const json_t *doc, bool post,
                      czk_err *err)
{
    item *items = czk_calloc(n ? n : 1, sizeof *items);
    *out = items;
    if (!items) {
        czk_err_set(err, CZK_ENOMEM, "out of memory");
        return 1;
    }
    const json_t *sectors = post && doc ? json_object_get(doc, "sectors") : NULL;
    if (sectors && json_array_size(sectors) != n) {
        czk_err_set(err, CZK_EINVAL, "sectors: %zu entries for %zu vanilla proofs",
                    json_array_size(sectors), n);
        return 2;
    }
    for (size_t i = 0; i < n; i++) {
        item *it = &items[i];
        czk_status s;
        if (doc) {
            snprintf(it->what, sizeof it->what, "vanilla_proofs[%zu]", i);
            s = json_vanilla(doc, i, &it->buf, &it->len, err);
        } else {
            snprintf(it->what, sizeof it->what, "%s", o->files[i]);
            s = read_file(o->files[i], &it->buf, &it->len, err);
            if (s) {
                if (o->nfiles > 1) err_prefix(err, it->what);
                return 1;
            }
        }
        if (!s && sectors) {
            const json_t *sec = json_array_get(sectors, i);
            it->have_sector = true;
            s = json_u64(sec, "sector_number", &it->want_id, false, 0, err);
            if (!s) s = json_hex32(sec, "comm_r", it->want_comm_r, false, NULL, err);
            if (s) {
                char w[32];
                snprintf(w, sizeof w, "sectors[%zu]", i);
                err_prefix(err, w);
            }
        }
        if (s) return rc_of(s);
    }
    return 0;
}

/* One PartitionProof in bincode: parse and verify. */
static czk_status snap_one(const batch *b, size_t i, czk_err *err)
{
    const item *it = &b->items[i];
    czk_snap_partition_proof *pp = NULL;
    czk_status s = czk_snap_partition_proof_parse(&pp, it->buf, it->len, err);
    if (!s)
        s = czk_snap_partition_verify(pp, b->snap_params, b->k0 + i, b->h, b->comm_r_old,
                                      b->comm_d_new, b->comm_r_new, err);
    czk_snap_partition_proof_free(pp);
    return s;
}

/* One FallbackPoStSectorProof: parse, check it against the request's sector list (when
 * given) and verify it at its place in the proof: Window, the sector's place in the
 * whole proof (V1's challenges depend on it); Winning, its one sector at 0. */
static czk_status post_one(const batch *b, size_t i, czk_err *err)
{
    const item *it = &b->items[i];
    czk_post_sector_proof *sp = NULL;
    uint8_t comm_r[32];
    uint64_t id = 0;
    czk_status s = czk_post_fallback_proof_parse(&id, comm_r, &sp, it->buf, it->len, err);
    if (!s && it->have_sector && id != it->want_id)
        s = czk_err_set(err, CZK_EVERIFY,
                        "the proof is of sector %llu, the request's sectors list says %llu",
                        (unsigned long long)id, (unsigned long long)it->want_id);
    if (!s && it->have_sector && memcmp(it->want_comm_r, comm_r, 32) != 0)
        s = czk_err_set(err, CZK_EVERIFY,
                        "sector %llu: the proof's comm_r differs from the request's sectors list",
                        (unsigned long long)id);
    uint64_t sector_index = b->winning ? 0 : b->partition * b->post_params->sector_count + i;
    if (!s)
        s = czk_post_sector_verify(sp, b->post_params, b->winning, b->randomness, id, sector_index,
                                   comm_r, err);
    czk_post_sector_proof_free(sp);
    return s;
}

static void batch_task(void *ctx, size_t i, unsigned worker)
{
    (void)worker;
    batch *b = ctx;
    item *it = &b->items[i];
    czk_err_clear(&it->err);
    it->s = b->snap ? snap_one(b, i, &it->err) : post_one(b, i, &it->err);
}

/* Check every proof of the batch over a pool of o->threads workers (a 32 GiB Window PoSt
 * partition is 2349 sectors of Poseidon paths: ~20 s on one core), then report the first
 * failure in file order, so that the message does not depend on the threads. */
static int batch_run(batch *b, const opts *o, czk_err *err)
{
    czk_pool *pool = NULL;
    czk_status s = b->n > 1 ? czk_pool_create(&pool, o->threads, err) : CZK_OK;
    if (s) return rc_of(s);
    czk_pool_run(pool, b->n, batch_task, b);
    czk_pool_destroy(pool);
    for (size_t i = 0; i < b->n; i++) {
        item *it = &b->items[i];
        if (it->s == CZK_OK) continue;
        *err = it->err;
        err->status = it->s;
        /* A single raw file is named by the caller's message already. */
        if (b->n > 1 || strncmp(it->what, "vanilla_proofs[", 15) == 0) err_prefix(err, it->what);
        return rc_of(it->s);
    }
    return 0;
}

/* =======================================================================================
 * SnapDeals
 * ======================================================================================= */

static result check_snap(const opts *o, const json_t *doc)
{
    result res = {0};
    czk_err *err = &res.err;
    const char *name = o->name;
    uint8_t comm_r_old[32], comm_r_new[32], comm_d_new[32];
    uint64_t h64 = 0, id = 0, size = 0, size_json = 0;
    czk_snap_params p;
    czk_status s = CZK_OK;
    if (doc) {
        s = json_proof_name(doc, o, &name, same_update, err);
        if (!s)
            s = json_hex32(doc, "comm_r_old", comm_r_old, o->have_comm_r_old, o->comm_r_old, err);
        if (!s)
            s = json_hex32(doc, "comm_r_new", comm_r_new, o->have_comm_r_new, o->comm_r_new, err);
        if (!s)
            s = json_hex32(doc, "comm_d_new", comm_d_new, o->have_comm_d_new, o->comm_d_new, err);
        if (!s) s = json_u64(doc, "h", &h64, false, 0, err);
        if (!s) s = json_u64(doc, "sector_size", &size_json, true, 0, err);
        if (!s && o->have_h && h64 != o->h)
            s = czk_err_set(err, CZK_EVERIFY, "h: the file's %llu differs from --h %u",
                            (unsigned long long)h64, o->h);
    } else {
        if (!name)
            s = czk_err_set(err, CZK_EINVAL, "raw PartitionProof files need --registered-proof");
        else if (!o->have_comm_r_old || !o->have_comm_r_new || !o->have_comm_d_new)
            s = czk_err_set(err, CZK_EINVAL,
                            "raw PartitionProof files need --comm-r-old, --comm-r-new and "
                            "--comm-d-new (or pass the request JSON)");
        memcpy(comm_r_old, o->comm_r_old, 32);
        memcpy(comm_r_new, o->comm_r_new, 32);
        memcpy(comm_d_new, o->comm_d_new, 32);
    }
    if (!s) s = czk_snap_update_proof_parse(name, &id, &size, err);
    if (!s) s = czk_snap_params_get(&p, size, err);
    if (!s && size_json && size_json != size)
        s = czk_err_set(err, CZK_EINVAL, "sector_size: %llu, but %s updates %llu-byte sectors",
                        (unsigned long long)size_json, name, (unsigned long long)size);
    /* A request carries every partition; raw files are partitions K, K+1, ... */
    size_t n = doc ? json_array_size(json_object_get(doc, "vanilla_proofs")) : o->nfiles;
    uint64_t k0 = doc ? 0 : o->partition;
    if (!s && doc && n != p.partition_count)
        s = czk_err_set(err, CZK_EINVAL, "vanilla_proofs: %zu partition proofs, %s has %u", n, name,
                        p.partition_count);
    else if (!s && !doc && k0 + n > p.partition_count)
        s = czk_err_set(err, CZK_EINVAL, "partitions %llu..%llu, but %s has %u",
                        (unsigned long long)k0, (unsigned long long)(k0 + n - 1), name,
                        p.partition_count);
    if (s) {
        res.rc = rc_of(s);
        return res;
    }
    if (!doc) h64 = o->have_h ? o->h : czk_snap_h_default(&p);
    /* An h out of range is rejected by the verifier as not allowed. */
    unsigned h = h64 > 64 ? 0 : (unsigned)h64;
    batch b = {.n = n,
               .snap = true,
               .snap_params = &p,
               .k0 = k0,
               .h = h,
               .comm_r_old = comm_r_old,
               .comm_d_new = comm_d_new,
               .comm_r_new = comm_r_new};
    res.rc = items_load(&b.items, n, o, doc, false, err);
    if (!res.rc) res.rc = batch_run(&b, o, err);
    items_free(b.items, n);
    if (!res.rc)
        printf("ok: %s SnapDeals update, h = %u: %zu of %u partition proofs (from partition "
               "%llu), %u challenges each, verify\n",
               name, h, n, p.partition_count, (unsigned long long)k0, p.challenge_count);
    return res;
}

/* =======================================================================================
 * PoSt
 * ======================================================================================= */

static result check_post(const opts *o, const json_t *doc)
{
    result res = {0};
    czk_err *err = &res.err;
    const char *name = o->name;
    uint8_t randomness[32];
    uint64_t partition = o->partition, size_json = 0;
    czk_post_proof proof = 0;
    czk_post_params p;
    czk_status s = CZK_OK;
    if (doc) {
        s = json_proof_name(doc, o, &name, same_post, err);
        if (!s)
            s = json_hex32(doc, "randomness", randomness, o->have_randomness, o->randomness, err);
        if (!s) s = json_u64(doc, "partition_index", &partition, true, 0, err);
        if (!s) s = json_u64(doc, "sector_size", &size_json, true, 0, err);
        if (!s && o->have_partition && partition != o->partition)
            s = czk_err_set(err, CZK_EVERIFY,
                            "partition_index: the file's %llu differs from --partition %llu",
                            (unsigned long long)partition, (unsigned long long)o->partition);
    } else if (!name) {
        s = czk_err_set(err, CZK_EINVAL,
                        "raw FallbackPoStSectorProof files need --registered-proof");
    } else if (!o->have_randomness) {
        s = czk_err_set(err, CZK_EINVAL,
                        "raw FallbackPoStSectorProof files need --randomness (or pass the "
                        "request JSON)");
    } else {
        memcpy(randomness, o->randomness, 32);
    }
    if (!s && !post_proof_parse(name, &proof))
        s = czk_err_set(err, CZK_EINVAL,
                        "unknown registered PoSt proof '%s' (expected e.g. "
                        "StackedDrgWindow32GiBV1_2 or StackedDrgWinning32GiBV1)",
                        name);
    if (!s) s = czk_post_params_get(&p, proof, err);
    if (!s && size_json && size_json != p.sector_size)
        s = czk_err_set(err, CZK_EINVAL, "sector_size: %llu, but %s proves %llu-byte sectors",
                        (unsigned long long)size_json, name, (unsigned long long)p.sector_size);
    bool winning = !s && czk_post_proof_is_winning(proof);
    /* The challenge derivation hashes the randomness as a field element. */
    czk_fr rv;
    if (!s && !czk_fr_from_bytes_le(&rv, randomness))
        s = czk_err_set(err, CZK_ENONCANONICAL, "randomness is not a field element (not below r)");
    size_t n = doc ? json_array_size(json_object_get(doc, "vanilla_proofs")) : o->nfiles;
    size_t max = winning ? CZK_POST_WINNING_SECTOR_COUNT : s ? 0 : p.sector_count;
    if (!s && (n == 0 || n > max))
        s = czk_err_set(err, CZK_EINVAL, "%zu sector proofs, a %s %s takes 1..%zu", n,
                        czk_post_proof_name(proof), winning ? "proof" : "partition", max);
    if (s) {
        res.rc = rc_of(s);
        return res;
    }
    batch b = {.n = n,
               .post_params = &p,
               .winning = winning,
               .randomness = randomness,
               .partition = partition};
    res.rc = items_load(&b.items, n, o, doc, true, err);
    if (!res.rc) res.rc = batch_run(&b, o, err);
    items_free(b.items, n);
    if (res.rc == 0 && winning)
        printf("ok: %s Winning PoSt: the sector proof (%u challenges) verifies\n",
               czk_post_proof_name(proof), czk_post_vanilla_challenge_count(&p, true));
    else if (res.rc == 0)
        printf("ok: %s Window PoSt partition %llu: %zu sector proof%s, %u challenges each, "
               "verif%s\n",
               czk_post_proof_name(proof), (unsigned long long)partition, n, n == 1 ? "" : "s",
               czk_post_vanilla_challenge_count(&p, false), n == 1 ? "ies" : "y");
    return res;
}

/* =======================================================================================
 * Dispatch
 * ======================================================================================= */

/* A request JSON's kind from its proof_kind (cuzk.v1 ProofKind numbers). */
static czk_status request_kind(const json_t *doc, kind *out, czk_err *err)
{
    const json_t *v = json_object_get(doc, "proof_kind");
    json_int_t pk = json_is_integer(v) ? json_integer_value(v) : -1;
    if (pk == 2)
        *out = KIND_SNAP;
    else if (pk == 3 || pk == 4)
        *out = KIND_POST;
    else
        return czk_err_set(err, CZK_EFORMAT,
                           "proof_kind: %s (expected 2 SNAP_DEALS_UPDATE, 3 WINDOW_POST_PARTITION "
                           "or 4 WINNING_POST)",
                           v ? "unsupported value" : "missing");
    return CZK_OK;
}

/* A JSON document opening with "proof_kind" in its first bytes is a request of `czk
 * fixture snap|wpost|winning`; anything else that is JSON is a C1 or an envelope. */
static bool looks_like_request(const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f) return false;
    char head[257];
    size_t n = fread(head, 1, 256, f);
    fclose(f);
    head[n] = '\0';
    return memmem(head, n, "\"proof_kind\"", 12) != NULL;
}

static result run(const opts *o)
{
    result res = {0};
    const char *file = o->files[0];
    kind k = o->kind;
    bool request = (k == KIND_AUTO || (k != KIND_C1 && o->nfiles == 1)) && looks_like_request(file);
    if (k == KIND_AUTO && !request) k = KIND_C1;
    if (k == KIND_C1) {
        if (o->nfiles != 1) {
            czk_err_set(&res.err, CZK_EINVAL, "--c1 takes one file");
            res.rc = 2;
            return res;
        }
        return check_c1(o, file);
    }
    if (!request) return k == KIND_SNAP ? check_snap(o, NULL) : check_post(o, NULL);

    uint8_t *buf = NULL;
    size_t len = 0;
    czk_status s = read_file(file, &buf, &len, &res.err);
    if (s) {
        res.rc = 1;
        return res;
    }
    json_error_t je;
    json_t *doc = json_loadb((const char *)buf, len, 0, &je);
    czk_free(buf);
    kind found = KIND_AUTO;
    if (!doc)
        s = czk_err_set(&res.err, CZK_EFORMAT, "not valid JSON: line %d column %d: %s", je.line,
                        je.column, je.text);
    else if (!json_is_object(doc))
        s = czk_err_set(&res.err, CZK_EFORMAT, "not a JSON object");
    if (!s) s = request_kind(doc, &found, &res.err);
    if (!s && k != KIND_AUTO && k != found)
        s = czk_err_set(&res.err, CZK_EINVAL, "the file is a %s request, not a %s one",
                        found == KIND_SNAP ? "SnapDeals" : "PoSt",
                        k == KIND_SNAP ? "SnapDeals" : "PoSt");
    if (s)
        res.rc = rc_of(s);
    else
        res = found == KIND_SNAP ? check_snap(o, doc) : check_post(o, doc);
    json_decref(doc);
    return res;
}

/* Add the file arguments that follow a kind option (up to the next option). */
static int take_files(opts *o, int argc, char **argv, int *i)
{
    while (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0) {
        if (o->nfiles == MAX_FILES) {
            fprintf(stderr, "czk vanilla-verify: more than %d files\n", MAX_FILES);
            return 2;
        }
        o->files[o->nfiles++] = argv[++*i];
    }
    return 0;
}

int czk_cli_vanilla_verify(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        kind k = strcmp(a, "--c1") == 0     ? KIND_C1
                 : strcmp(a, "--snap") == 0 ? KIND_SNAP
                 : strcmp(a, "--post") == 0 ? KIND_POST
                                            : KIND_AUTO;
        uint8_t *hex = strcmp(a, "--comm-r-old") == 0   ? o.comm_r_old
                       : strcmp(a, "--comm-r-new") == 0 ? o.comm_r_new
                       : strcmp(a, "--comm-d-new") == 0 ? o.comm_d_new
                       : strcmp(a, "--randomness") == 0 ? o.randomness
                                                        : NULL;
        if (k != KIND_AUTO) {
            if (o.kind != KIND_AUTO && o.kind != k) {
                fprintf(stderr, "czk vanilla-verify: --c1, --snap and --post exclude each other\n");
                return 2;
            }
            o.kind = k;
            int rc = take_files(&o, argc, argv, &i);
            if (rc) return rc;
        } else if (hex && has) {
            if (!parse_hex32(argv[++i], hex)) {
                fprintf(stderr, "czk vanilla-verify: %s wants 64 hex digits, got '%s'\n", a,
                        argv[i]);
                return 2;
            }
            o.have_comm_r_old |= hex == o.comm_r_old;
            o.have_comm_r_new |= hex == o.comm_r_new;
            o.have_comm_d_new |= hex == o.comm_d_new;
            o.have_randomness |= hex == o.randomness;
        } else if (strcmp(a, "--registered-proof") == 0 && has) {
            o.name = argv[++i];
        } else if (strcmp(a, "--threads") == 0 && has) {
            uint64_t v;
            if (!parse_u64(argv[++i], &v) || v > 4096) {
                fprintf(stderr, "czk vanilla-verify: bad --threads '%s'\n", argv[i]);
                return 2;
            }
            o.threads = (unsigned)v;
        } else if (strcmp(a, "--any-challenges") == 0) {
            o.any_challenges = true;
        } else if (strcmp(a, "--h") == 0 && has) {
            uint64_t v;
            if (!parse_u64(argv[++i], &v) || v > 64) {
                fprintf(stderr, "czk vanilla-verify: bad --h '%s'\n", argv[i]);
                return 2;
            }
            o.h = (unsigned)v;
            o.have_h = true;
        } else if (strcmp(a, "--partition") == 0 && has) {
            if (!parse_u64(argv[++i], &o.partition)) {
                fprintf(stderr, "czk vanilla-verify: bad --partition '%s'\n", argv[i]);
                return 2;
            }
            o.have_partition = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strncmp(a, "--", 2) != 0) {
            if (o.nfiles == MAX_FILES) {
                fprintf(stderr, "czk vanilla-verify: more than %d files\n", MAX_FILES);
                return 2;
            }
            o.files[o.nfiles++] = a;
        } else {
            fprintf(stderr, "czk vanilla-verify: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (o.nfiles == 0) {
        fprintf(stderr, "czk vanilla-verify: no file given\n");
        usage(stderr);
        return 2;
    }
    if (o.kind == KIND_AUTO && o.nfiles > 1) {
        fprintf(stderr, "czk vanilla-verify: several files need --snap or --post (raw bincode)\n");
        return 2;
    }
    if (o.kind == KIND_C1 &&
        (o.have_comm_r_old || o.have_comm_r_new || o.have_comm_d_new || o.have_randomness)) {
        fprintf(stderr, "czk vanilla-verify: commitment and randomness options are for --snap and "
                        "--post\n");
        return 2;
    }
    result r = run(&o);
    if (r.rc) {
        /* With several files each message names its own. */
        if (o.nfiles == 1)
            fprintf(stderr, "czk vanilla-verify: %s: %s\n", o.files[0], r.err.msg);
        else
            fprintf(stderr, "czk vanilla-verify: %s\n", r.err.msg);
    }
    return r.rc;
}
