/*
 * `czk vanilla-verify` end to end, through the built czk binary: 2 KiB fixtures of every
 * kind (PoRep C1 plain and in cuzk's envelope, synthetic-feature PoRep, SnapDeals,
 * Window PoSt V1 and V1_2, Winning PoSt) written by `czk fixture` verify (exit 0); the
 * same files with one byte of a Merkle path hash or of a commitment changed, truncated,
 * or checked against an unknown or other proof name fail with exit 2 and a message naming
 * what is wrong; an absent file is exit 1. Raw bincode proof files (taken out of the
 * request JSON) are checked with the commitments and randomness on the command line.
 *
 * The tampering is done here, independently of the code under test: jansson and OpenSSL's
 * base64 take the request JSON apart, and the byte offsets of the first path hash follow
 * the bincode layout of rust-fil-proofs' types (docs/formats.md §8).
 */
#include "czk_test.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *czk_bin = CZK_BINARY_DIR "/bin/czk";
static char dir[256];
static char out_buf[8192]; /* stdout and stderr of the last run */

/* Run czk with the given arguments (NULL-terminated); its exit status, output in out_buf. */
static int run_czk(const char *const *args)
{
    char log[300];
    snprintf(log, sizeof log, "%s/out.txt", dir);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(log, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0) _exit(126);
        char *argv[32];
        int n = 0;
        argv[n++] = (char *)czk_bin;
        for (; args[n - 1] && n < 31; n++) argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        execv(czk_bin, argv);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return -1;
    FILE *f = fopen(log, "r");
    size_t len = f ? fread(out_buf, 1, sizeof out_buf - 1, f) : 0;
    out_buf[len] = '\0';
    if (f) fclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define CZK(...) run_czk((const char *const[]){__VA_ARGS__, NULL})

/* Check the exit status and that the output holds every given substring. */
static void expect(const char *what, int rc, int want_rc, const char *const *needles)
{
    bool ok = rc == want_rc;
    for (size_t i = 0; needles[i]; i++) ok = ok && strstr(out_buf, needles[i]) != NULL;
    if (!ok || getenv("CZK_TEST_VERBOSE"))
        fprintf(stderr, "%s: rc %d (want %d), output:\n%s\n", what, rc, want_rc, out_buf);
    CHECK(ok);
}

#define EXPECT(what, rc, want, ...) expect(what, rc, want, (const char *const[]){__VA_ARGS__, NULL})

static char *path_of(const char *name)
{
    static char buf[8][320];
    static int i;
    char *p = buf[i++ % 8];
    snprintf(p, 320, "%s/%s", dir, name);
    return p;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = '\0';
    *len = (size_t)n;
    return b;
}

static bool spit(const char *path, const void *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(b, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = false;
    return ok;
}

/* A copy of `src` cut to `keep` bytes. */
static void truncate_copy(const char *src, const char *dst, size_t keep)
{
    size_t len = 0;
    uint8_t *b = slurp(src, &len);
    CHECK(b != NULL && keep < len);
    if (b) CHECK(spit(dst, b, keep < len ? keep : len));
    free(b);
}

/* A copy of the C1 JSON `src` with the first number after the n-th occurrence of `key`
 * changed in its last digit (d ↔ d ^ 1, which keeps a byte value within 0..255). */
static void tamper_json_text(const char *src, const char *dst, const char *key, int nth)
{
    size_t len = 0;
    char *b = (char *)slurp(src, &len);
    CHECK(b != NULL);
    if (!b) return;
    char *p = b;
    for (int i = 0; p && i <= nth; i++) p = strstr(i ? p + 1 : p, key);
    CHECK(p != NULL);
    if (p) {
        p += strlen(key);
        while (*p && (*p < '0' || *p > '9')) p++;
        while (p[1] >= '0' && p[1] <= '9') p++;
        *p = (char)('0' + ((*p - '0') ^ 1));
        CHECK(spit(dst, b, len));
    }
    free(b);
}

static uint8_t *b64_decode(const char *s, size_t *len)
{
    size_t n = strlen(s);
    uint8_t *b = malloc(n / 4 * 3 + 1);
    int r = EVP_DecodeBlock(b, (const unsigned char *)s, (int)n);
    *len = (size_t)r - (n && s[n - 1] == '=') - (n > 1 && s[n - 2] == '=');
    return b;
}

static char *b64_encode(const uint8_t *b, size_t n)
{
    char *s = malloc(4 * ((n + 2) / 3) + 1);
    EVP_EncodeBlock((unsigned char *)s, b, (int)n);
    return s;
}

/* The request's vanilla_proofs[i] decoded. */
static uint8_t *request_proof(const char *req, size_t i, size_t *len)
{
    json_t *doc = json_load_file(req, 0, NULL);
    const char *s = json_string_value(json_array_get(json_object_get(doc, "vanilla_proofs"), i));
    CHECK(s != NULL);
    uint8_t *b = s ? b64_decode(s, len) : NULL;
    json_decref(doc);
    return b;
}

static const char *request_str(const char *req, const char *key)
{
    static char buf[4][80];
    static int k;
    char *o = buf[k++ % 4];
    json_t *doc = json_load_file(req, 0, NULL);
    const char *s = json_string_value(json_object_get(doc, key));
    snprintf(o, 80, "%s", s ? s : "");
    json_decref(doc);
    return o;
}

/* Offset of the first sibling hash of a bincode MerkleProof at `off`: Single is
 * tag u32, root, leaf, path (u64 levels, u64 hash count, hashes...); Sub and Top start
 * with the base path. */
static size_t first_hash(const uint8_t *b, size_t off)
{
    uint32_t tag = (uint32_t)b[off] | (uint32_t)b[off + 1] << 8;
    return off + 4 + (tag == 0 ? 64 : 0) + 16;
}

static uint64_t le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

/* Write a copy of request `src` whose vanilla_proofs[i] has byte `off` flipped (low bit),
 * or, with off == SIZE_MAX, whose string field `key` has its first hex digit changed. */
static void tamper_request(const char *src, const char *dst, size_t i, size_t off, const char *key)
{
    json_t *doc = json_load_file(src, JSON_PRESERVE_ORDER, NULL);
    CHECK(doc != NULL);
    if (!doc) return;
    if (key) {
        json_t *obj = doc;
        if (strcmp(key, "sectors.comm_r") == 0) {
            obj = json_array_get(json_object_get(doc, "sectors"), i);
            key = "comm_r";
        }
        char v[80];
        snprintf(v, sizeof v, "%s", json_string_value(json_object_get(obj, key)));
        v[1] = v[1] == '0' ? '1' : '0'; /* the low nibble of byte 0: stays below r */
        json_object_set_new(obj, key, json_string(v));
    } else {
        json_t *arr = json_object_get(doc, "vanilla_proofs");
        size_t len = 0;
        uint8_t *b = b64_decode(json_string_value(json_array_get(arr, i)), &len);
        CHECK(off < len);
        if (off < len) b[off] ^= 1;
        char *s = b64_encode(b, len);
        json_array_set_new(arr, i, json_string(s));
        free(s);
        free(b);
    }
    CHECK(json_dump_file(doc, dst, JSON_PRESERVE_ORDER) == 0);
    json_decref(doc);
}

static void test_porep(void)
{
    const char *c1 = path_of("c1.json"), *env = path_of("env.json"), *syn = path_of("syn.json");
    int rc = CZK("fixture", "porep", "--registered-proof", "StackedDrg2KiBV1_1", "--out", c1,
                 "--threads", "1");
    CHECK(rc == 0);
    rc = CZK("fixture", "porep", "--registered-proof", "StackedDrg2KiBV1_1", "--out", env,
             "--envelope", "7", "--threads", "1");
    CHECK(rc == 0);
    rc = CZK("fixture", "porep", "--registered-proof", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
             "--out", syn, "--threads", "1");
    CHECK(rc == 0);

    EXPECT("c1 auto", CZK("vanilla-verify", c1), 0, "ok: StackedDrg2KiBV1_1 C1");
    EXPECT("c1 named",
           CZK("vanilla-verify", "--registered-proof", "StackedDrg2KiBV1_1", "--c1", c1), 0,
           "derived from the seed");
    EXPECT("envelope", CZK("vanilla-verify", "--c1", env), 0, "cuzk envelope", "sector 7");
    /* The synthetic feature's fixture cannot follow its own challenge rule. */
    EXPECT("synthetic strict", CZK("vanilla-verify", syn), 2, "partition 0 challenge",
           "--any-challenges");
    EXPECT("synthetic any", CZK("vanilla-verify", "--any-challenges", syn), 0, "not checked");

    const char *t = path_of("c1_bad.json");
    tamper_json_text(c1, t, "\"hashes\":[[", 0); /* partition 0, challenge 0, comm_d path */
    EXPECT("c1 path hash", CZK("vanilla-verify", t), 2, "partition 0", "challenge 0",
           "comm_d_proofs");
    tamper_json_text(c1, t, "\"comm_r\":[", 0);
    EXPECT("c1 comm_r", CZK("vanilla-verify", t), 2, "comm_r");
    tamper_json_text(c1, t, "\"seed\":[", 0); /* other seed, other challenges */
    EXPECT("c1 seed", CZK("vanilla-verify", t), 2, "challenge");
    size_t len = 0;
    free(slurp(c1, &len));
    truncate_copy(c1, t, len / 2);
    EXPECT("c1 truncated", CZK("vanilla-verify", t), 2, t);
    truncate_copy(env, t, 100);
    EXPECT("envelope truncated", CZK("vanilla-verify", "--c1", t), 2, t);
    EXPECT("c1 other proof", CZK("vanilla-verify", "--registered-proof", "StackedDrg2KiBV1", c1), 2,
           "StackedDrg2KiBV1_1");
    EXPECT("c1 unknown proof", CZK("vanilla-verify", "--registered-proof", "StackedDrg3KiBV1", c1),
           2, "StackedDrg3KiBV1");
    EXPECT("absent", CZK("vanilla-verify", path_of("absent.json")), 1, "cannot open");
}

static void test_snap(void)
{
    const char *req = path_of("snap.json"), *t = path_of("snap_bad.json");
    int rc = CZK("fixture", "snap", "--registered-proof", "StackedDrg2KiBV1", "--out", req);
    CHECK(rc == 0);
    EXPECT("snap auto", CZK("vanilla-verify", req), 0, "SnapDeals", "verify");
    EXPECT("snap named",
           CZK("vanilla-verify", "--registered-proof", "StackedDrg2KiBV1", "--snap", req), 0,
           "SnapDeals");

    /* The first sibling of challenge 0's TreeROld path. */
    size_t len = 0;
    uint8_t *b = request_proof(req, 0, &len);
    CHECK(b != NULL && len > 200);
    if (!b) return;
    size_t napex = le64(b + 32);
    size_t off = first_hash(b, 32 + 8 + 32 * napex + 8);
    tamper_request(req, t, 0, off, NULL);
    EXPECT("snap path hash", CZK("vanilla-verify", t), 2, "vanilla_proofs[0]", "challenge");
    tamper_request(req, t, 0, 0, NULL); /* comm_c */
    EXPECT("snap comm_c", CZK("vanilla-verify", t), 2, "vanilla_proofs[0]", "comm_r_old");
    tamper_request(req, t, 0, SIZE_MAX, "comm_d_new");
    EXPECT("snap comm_d_new", CZK("vanilla-verify", t), 2, "vanilla_proofs[0]");
    truncate_copy(req, t, 300);
    EXPECT("snap truncated json", CZK("vanilla-verify", t), 2, "JSON");
    EXPECT("snap other kind", CZK("vanilla-verify", "--post", req), 2, "SnapDeals");

    /* Raw bincode with the commitments on the command line. */
    const char *raw = path_of("snap.bin"), *rawt = path_of("snap_trunc.bin");
    CHECK(spit(raw, b, len));
    CHECK(spit(rawt, b, len - 5));
    const char *old = request_str(req, "comm_r_old"), *nw = request_str(req, "comm_r_new"),
               *d = request_str(req, "comm_d_new");
    EXPECT("snap raw",
           CZK("vanilla-verify", "--registered-proof", "StackedDrg2KiBV1", "--snap", raw,
               "--comm-r-old", old, "--comm-r-new", nw, "--comm-d-new", d),
           0, "SnapDeals");
    EXPECT("snap raw wrong comm",
           CZK("vanilla-verify", "--registered-proof", "StackedDrg2KiBV1", "--snap", raw,
               "--comm-r-old", nw, "--comm-r-new", nw, "--comm-d-new", d),
           2, "comm_r_old");
    EXPECT("snap raw truncated",
           CZK("vanilla-verify", "--registered-proof", "StackedDrg2KiBV1", "--snap", rawt,
               "--comm-r-old", old, "--comm-r-new", nw, "--comm-d-new", d),
           2, "PartitionProof");
    EXPECT("snap raw no comms",
           CZK("vanilla-verify", "--registered-proof", "StackedDrg2KiBV1", "--snap", raw), 2,
           "--comm-r-old");
    EXPECT("snap unknown proof",
           CZK("vanilla-verify", "--registered-proof", "StackedDrg4KiBV1", "--snap", raw,
               "--comm-r-old", old, "--comm-r-new", nw, "--comm-d-new", d),
           2, "StackedDrg4KiBV1");
    EXPECT("snap json vs option", CZK("vanilla-verify", "--comm-r-new", old, req), 2, "comm_r_new");
    free(b);
}

static void test_post(const char *kind, const char *name, const char *file)
{
    const char *req = path_of(file), *t = path_of("post_bad.json");
    bool winning = strcmp(kind, "winning") == 0;
    int rc = CZK("fixture", kind, "--registered-proof", name, "--out", req);
    CHECK(rc == 0);
    EXPECT(name, CZK("vanilla-verify", req), 0, winning ? "Winning PoSt" : "Window PoSt", "verif");
    EXPECT(name, CZK("vanilla-verify", "--registered-proof", name, "--post", req), 0, "ok:");

    /* FallbackPoStSectorProof: sector_id, comm_r, sectors (len), inclusion_proofs (len),
     * then the first MerkleProof. */
    size_t last = winning ? 0 : 1, len = 0;
    uint8_t *b = request_proof(req, last, &len);
    CHECK(b != NULL && len > 200);
    if (!b) return;
    tamper_request(req, t, last, first_hash(b, 8 + 32 + 8 + 8), NULL);
    char want[32];
    snprintf(want, sizeof want, "vanilla_proofs[%zu]", last);
    EXPECT("post path hash", CZK("vanilla-verify", t), 2, want, "inclusion_proofs[0]");
    tamper_request(req, t, last, 8, NULL); /* the proof's comm_r */
    EXPECT("post proof comm_r", CZK("vanilla-verify", t), 2, want, "comm_r");
    tamper_request(req, t, last, SIZE_MAX, "sectors.comm_r");
    EXPECT("post sectors comm_r", CZK("vanilla-verify", t), 2, want, "comm_r");
    tamper_request(req, t, 0, SIZE_MAX, "randomness");
    EXPECT("post randomness", CZK("vanilla-verify", t), 2, "vanilla_proofs[0]", "challenge");

    const char *raw = path_of("post.bin"), *rawt = path_of("post_trunc.bin");
    CHECK(spit(raw, b, len));
    CHECK(spit(rawt, b, len / 2));
    const char *rnd = request_str(req, "randomness");
    /* Window: the second sector alone is checked at place 0 of partition 0, not its own
     * place 1: V1's challenges depend on the place, V1_2's do not. */
    bool v1 = strstr(name, "V1_2") == NULL && !winning;
    EXPECT("post raw",
           CZK("vanilla-verify", "--registered-proof", name, "--post", raw, "--randomness", rnd,
               "--partition", "0"),
           v1 ? 2 : 0, v1 ? "challenge" : "ok:");
    if (!winning) {
        /* Both sectors as two files give each its place. */
        const char *raw0 = path_of("post0.bin");
        size_t len0 = 0;
        uint8_t *b0 = request_proof(req, 0, &len0);
        CHECK(b0 != NULL && spit(raw0, b0, len0));
        free(b0);
        EXPECT("post raw pair",
               CZK("vanilla-verify", "--registered-proof", name, "--post", raw0, raw,
                   "--randomness", rnd),
               0, "2 sector proofs");
        EXPECT("post raw absent",
               CZK("vanilla-verify", "--registered-proof", name, "--post", raw0,
                   path_of("absent.bin"), "--randomness", rnd),
               1, "absent.bin", "cannot open");
        /* Both sectors bad, checked on two threads: the message names the first. */
        const char *t2 = path_of("post_bad2.json");
        tamper_request(req, t, 1, first_hash(b, 8 + 32 + 8 + 8), NULL);
        tamper_request(t, t2, 0, 8, NULL);
        EXPECT("post first failure", CZK("vanilla-verify", "--threads", "2", t2), 2,
               "vanilla_proofs[0]");
    }
    EXPECT("post raw truncated",
           CZK("vanilla-verify", "--registered-proof", name, "--post", rawt, "--randomness", rnd),
           2, "inclusion_proofs", "only");
    EXPECT("post raw no randomness",
           CZK("vanilla-verify", "--registered-proof", name, "--post", raw), 2, "--randomness");
    EXPECT("post unknown proof",
           CZK("vanilla-verify", "--registered-proof", "StackedDrgWindow3KiBV1", "--post", raw,
               "--randomness", rnd),
           2, "StackedDrgWindow3KiBV1");
    EXPECT("post other proof",
           CZK("vanilla-verify", "--registered-proof",
               winning ? "StackedDrgWindow2KiBV1" : "StackedDrgWinning2KiBV1", req),
           2, "registered_proof_name");
    free(b);
}

static void test_window_post_v1_2(void)
{
    test_post("wpost", "StackedDrgWindow2KiBV1_2", "wpost.json");
}

static void test_window_post_v1(void)
{
    test_post("wpost", "StackedDrgWindow2KiBV1", "wpost1.json");
}

static void test_winning_post(void)
{
    test_post("winning", "StackedDrgWinning2KiBV1", "winning.json");
}

int main(void)
{
    /* CZK_TEST_CZK checks another czk binary (an installed one). */
    const char *alt = getenv("CZK_TEST_CZK");
    if (alt && *alt) czk_bin = alt;
    struct stat st;
    if (stat(czk_bin, &st) != 0) {
        /* Not a skip: a missing tool means the build is incomplete. */
        fprintf(stderr, "FAIL: %s is not built (build the czk target)\n", czk_bin);
        return 1;
    }
    snprintf(dir, sizeof dir, "%s/test_vanilla_verify_cli.%d", CZK_BINARY_DIR, (int)getpid());
    if (mkdir(dir, 0755) != 0) {
        perror(dir);
        return 1;
    }
    RUN(test_porep);
    RUN(test_snap);
    RUN(test_window_post_v1_2);
    RUN(test_window_post_v1);
    RUN(test_winning_post);
    /* Keep the directory of a failed run for inspection. */
    int rc = czk_test_finish();
    if (rc == 0) {
        char cmd[320];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    }
    return rc;
}
