/*
 * Groth16 file formats: bellperson proof / vk / .params, circom .r1cs / .wtns, snarkjs
 * .zkey and JSON.
 *
 * References independent of the code under test: the published generator encodings
 * (docs/formats.md §1) and the Filecoin vk sizes (§2); the snarkjs generator bytes in
 * Montgomery form (docs/formats.md §9.3); byte images of .r1cs / .wtns / .zkey built here
 * from docs/formats.md §1-§3 and §9, with every field element converted by OpenSSL BIGNUM (standard
 * form, Montgomery x·2^384 mod p, double Montgomery c·2^512 mod r), and decimal strings
 * from BN_bn2dec. Round trips cover the writers; every malformed input asserts its status
 * and that the message names the place.
 */
#include "czk/alloc.h"
#include "czk/groth16.h"
#include "czk/pool.h"
#include "czk/r1cs.h"
#include "czk_test.h"
#include "czk_test_fr.h"
#include "groth16/io_internal.h"

#include <dirent.h>
#include <jansson.h>
#include <openssl/bn.h>
#include <sys/stat.h>
#include <unistd.h>

static const char P_HEX[] = "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624"
                            "1eabfffeb153ffffb9feffffffffaaab";
static const char R_HEX[] = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";
static const char BN254_R_HEX[] =
    "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001";
static const char BN254_Q_HEX[] =
    "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47";
/* docs/formats.md §1: compressed generators. */
static const char G1_COMPRESSED_HEX[] = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f"
                                        "171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char G2_COMPRESSED_HEX[] =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d05"
    "5d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbe"
    "fd48056c8c121bdb8";

static BN_CTX *bnctx;
static BIGNUM *bn_p, *bn_r;
static char tmpdir[64];
static czk_pool *pool;

/* ------------------------------------------------------------------------------------ */
/* Helpers                                                                              */
/* ------------------------------------------------------------------------------------ */

static void hex_to_bytes(uint8_t *out, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) sscanf(hex + 2 * i, "%2hhx", &out[i]);
}

static BIGNUM *bn_hex(const char *hex)
{
    BIGNUM *b = NULL;
    BN_hex2bn(&b, hex);
    return b;
}

static const char *tpath(const char *name)
{
    static char bufs[8][512];
    static int k;
    char *b = bufs[k++ % 8];
    snprintf(b, 512, "%s/%s", tmpdir, name);
    return b;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        perror(path);
        exit(1);
    }
    if (len) fwrite(data, 1, len, f);
    fclose(f);
}

static uint8_t *read_whole(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    *len = fread(b, 1, (size_t)n, f);
    fclose(f);
    return b;
}

static void cleanup_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        unlink(tpath(e->d_name));
    }
    closedir(d);
    rmdir(tmpdir);
}

/* Growable byte buffer for building file images. */
typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void b_put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void b_u32(buf *b, uint32_t v)
{
    uint8_t x[4];
    for (int i = 0; i < 4; i++) x[i] = (uint8_t)(v >> (8 * i));
    b_put(b, x, 4);
}

static void b_u64(buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)(v >> (8 * i));
    b_put(b, x, 8);
}

static void b_bn_le(buf *b, const BIGNUM *v, size_t n)
{
    uint8_t x[64];
    BN_bn2lebinpad(v, x, (int)n);
    b_put(b, x, n);
}

static void b_free(buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* Field elements through BIGNUM. */
static BIGNUM *fp_bn(const czk_fp *a)
{
    uint8_t be[48];
    czk_fp_to_bytes_be(be, a);
    return BN_bin2bn(be, 48, NULL);
}

static bool fr_eq_bn(const czk_fr *a, const BIGNUM *v)
{
    uint8_t be[32];
    czk_fr_to_bytes_be(be, a);
    BIGNUM *x = BN_bin2bn(be, 32, NULL);
    bool eq = BN_cmp(x, v) == 0;
    BN_free(x);
    return eq;
}

/* x·2^384 mod p, 48 bytes LE: the zkey form of an Fp element. */
static void b_fp_mont(buf *b, const czk_fp *a)
{
    BIGNUM *x = fp_bn(a);
    BN_lshift(x, x, 384);
    BN_mod(x, x, bn_p, bnctx);
    b_bn_le(b, x, 48);
    BN_free(x);
}

static void b_g1_mont(buf *b, const czk_g1_affine *p)
{
    if (czk_g1_affine_is_inf(p)) {
        uint8_t z[96] = {0};
        b_put(b, z, 96);
        return;
    }
    b_fp_mont(b, &p->x);
    b_fp_mont(b, &p->y);
}

static void b_g2_mont(buf *b, const czk_g2_affine *p)
{
    if (czk_g2_affine_is_inf(p)) {
        uint8_t z[192] = {0};
        b_put(b, z, 192);
        return;
    }
    b_fp_mont(b, &p->x.c0);
    b_fp_mont(b, &p->x.c1);
    b_fp_mont(b, &p->y.c0);
    b_fp_mont(b, &p->y.c1);
}

/* Standard-form Fr from a small signed integer, as BIGNUM mod r. */
static BIGNUM *bn_small(long v)
{
    BIGNUM *x = BN_new();
    BN_set_word(x, (BN_ULONG)(v < 0 ? -v : v));
    if (v < 0) BN_sub(x, bn_r, x);
    return x;
}

/* c·2^512 mod r, the zkey coefficient form. */
static void b_fr_double_mont(buf *b, const BIGNUM *c)
{
    BIGNUM *x = BN_dup(c);
    BN_lshift(x, x, 512);
    BN_mod(x, x, bn_r, bnctx);
    b_bn_le(b, x, 32);
    BN_free(x);
}

static void rand_g1(czk_g1_affine *out)
{
    czk_fr k;
    czk_g1_jac g, r;
    czk_test_rand_fr(&k);
    czk_g1_jac_from_affine(&g, &CZK_G1_GENERATOR);
    czk_g1_jac_mul_fr(&r, &g, &k);
    czk_g1_jac_to_affine(out, &r);
}

static void rand_g2(czk_g2_affine *out)
{
    czk_fr k;
    czk_g2_jac g, r;
    czk_test_rand_fr(&k);
    czk_g2_jac_from_affine(&g, &CZK_G2_GENERATOR);
    czk_g2_jac_mul_fr(&r, &g, &k);
    czk_g2_jac_to_affine(out, &r);
}

/* n distinct non-identity subgroup points quickly: P, P + Q, P + 2Q, ... */
static void rand_g1s(czk_g1_affine *out, size_t n)
{
    czk_g1_affine p, q;
    rand_g1(&p);
    rand_g1(&q);
    czk_g1_jac *j = malloc(n * sizeof *j);
    czk_g1_jac_from_affine(&j[0], &p);
    for (size_t i = 1; i < n; i++) czk_g1_jac_add_affine(&j[i], &j[i - 1], &q);
    czk_g1s_jac_to_affine(out, j, n, NULL);
    free(j);
}

static void rand_g2s(czk_g2_affine *out, size_t n)
{
    for (size_t i = 0; i < n; i++) rand_g2(&out[i]);
}

/* A point on E(Fp) outside the order-r subgroup: x = 1, 2, ... until x^3 + 4 is a square
 * and the point fails the subgroup test (the cofactor is about 2^126, so almost all do). */
static void non_subgroup_g1(czk_g1_affine *out)
{
    czk_fp four, rhs;
    czk_fp_from_u64(&four, 4);
    for (uint64_t x = 1;; x++) {
        czk_fp_from_u64(&out->x, x);
        czk_fp_sqr(&rhs, &out->x);
        czk_fp_mul(&rhs, &rhs, &out->x);
        czk_fp_add(&rhs, &rhs, &four);
        if (czk_fp_sqrt(&out->y, &rhs) && czk_g1_affine_on_curve(out) &&
            !czk_g1_affine_in_subgroup(out))
            return;
    }
}

static void non_subgroup_g2(czk_g2_affine *out)
{
    czk_fp2 b, rhs;
    czk_fp_from_u64(&b.c0, 4);
    czk_fp_from_u64(&b.c1, 4);
    for (uint64_t x = 1;; x++) {
        czk_fp_from_u64(&out->x.c0, x);
        out->x.c1 = CZK_FP_ONE;
        czk_fp2_sqr(&rhs, &out->x);
        czk_fp2_mul(&rhs, &rhs, &out->x);
        czk_fp2_add(&rhs, &rhs, &b);
        if (czk_fp2_sqrt(&out->y, &rhs) && czk_g2_affine_on_curve(out) &&
            !czk_g2_affine_in_subgroup(out))
            return;
    }
}

#define CHECK_ERR(expr, want_status, needle)                                                       \
    do {                                                                                           \
        czk_err e_;                                                                                \
        czk_err_clear(&e_);                                                                        \
        CHECK_STATUS((expr), (want_status));                                                       \
        CHECK_MSG(strstr(e_.msg, (needle)) != NULL, "message \"%s\" lacks \"%s\"", e_.msg,         \
                  (needle));                                                                       \
    } while (0)
/* CHECK_ERR's expression refers to the error buffer as ERR. */
#define ERR (&e_)

static bool g1_eq_arr(const czk_g1_affine *a, const czk_g1_affine *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!czk_g1_affine_eq(&a[i], &b[i])) return false;
    return true;
}

static bool g2_eq_arr(const czk_g2_affine *a, const czk_g2_affine *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!czk_g2_affine_eq(&a[i], &b[i])) return false;
    return true;
}

/* ------------------------------------------------------------------------------------ */
/* Proof                                                                                */
/* ------------------------------------------------------------------------------------ */

static void test_proof_known_answer(void)
{
    /* The generators encode to the published compressed bytes. */
    czk_groth16_proof p = {CZK_G1_GENERATOR, CZK_G2_GENERATOR, CZK_G1_GENERATOR};
    uint8_t out[CZK_GROTH16_PROOF_SIZE], want[192];
    hex_to_bytes(want, G1_COMPRESSED_HEX, 48);
    hex_to_bytes(want + 48, G2_COMPRESSED_HEX, 96);
    hex_to_bytes(want + 144, G1_COMPRESSED_HEX, 48);
    czk_groth16_proof_write(out, &p);
    CHECK_MEM(out, want, 192);
    czk_groth16_proof q;
    CHECK_STATUS(czk_groth16_proof_read(&q, want, NULL), CZK_OK);
    CHECK(czk_g1_affine_eq(&q.a, &CZK_G1_GENERATOR) && czk_g2_affine_eq(&q.b, &CZK_G2_GENERATOR) &&
          czk_g1_affine_eq(&q.c, &CZK_G1_GENERATOR));
}

static void test_proof_roundtrip(void)
{
    for (int it = 0; it < 8; it++) {
        czk_groth16_proof p, q;
        rand_g1(&p.a);
        rand_g2(&p.b);
        rand_g1(&p.c);
        uint8_t b[192];
        czk_groth16_proof_write(b, &p);
        CHECK_STATUS(czk_groth16_proof_read(&q, b, NULL), CZK_OK);
        CHECK(czk_g1_affine_eq(&p.a, &q.a) && czk_g2_affine_eq(&p.b, &q.b) &&
              czk_g1_affine_eq(&p.c, &q.c));
    }
}

static void test_proof_bad(void)
{
    czk_groth16_proof p, q;
    rand_g1(&p.a);
    rand_g2(&p.b);
    rand_g1(&p.c);
    uint8_t good[192], b[192];
    czk_groth16_proof_write(good, &p);

    /* Identity in each element: bellperson rejects it. */
    memcpy(b, good, 192);
    memset(b, 0, 48);
    b[0] = 0xc0;
    CHECK_ERR(czk_groth16_proof_read(&q, b, ERR), CZK_EINFINITY, "A");
    memcpy(b, good, 192);
    memset(b + 48, 0, 96);
    b[48] = 0xc0;
    CHECK_ERR(czk_groth16_proof_read(&q, b, ERR), CZK_EINFINITY, "B");
    memcpy(b, good, 192);
    memset(b + 144, 0, 48);
    b[144] = 0xc0;
    CHECK_ERR(czk_groth16_proof_read(&q, b, ERR), CZK_EINFINITY, "C");

    /* Off the subgroup. */
    czk_g1_affine ns;
    non_subgroup_g1(&ns);
    memcpy(b, good, 192);
    czk_g1_to_compressed(b + 144, &ns);
    CHECK_ERR(czk_groth16_proof_read(&q, b, ERR), CZK_ENOTINSUBGROUP, "C");
    czk_g2_affine ns2;
    non_subgroup_g2(&ns2);
    memcpy(b, good, 192);
    czk_g2_to_compressed(b + 48, &ns2);
    CHECK_ERR(czk_groth16_proof_read(&q, b, ERR), CZK_ENOTINSUBGROUP, "B");

    /* x = p with the compression flag: not canonical. Missing compression flag: flags. */
    memcpy(b, good, 192);
    hex_to_bytes(b, P_HEX, 48);
    b[0] |= 0x80;
    CHECK_ERR(czk_groth16_proof_read(&q, b, ERR), CZK_ENONCANONICAL, "A");
    memcpy(b, good, 192);
    b[0] &= 0x7f;
    CHECK_ERR(czk_groth16_proof_read(&q, b, ERR), CZK_EBADFLAGS, "A");
}

/* ------------------------------------------------------------------------------------ */
/* Verifying key                                                                        */
/* ------------------------------------------------------------------------------------ */

static void make_vk(czk_groth16_vk *vk, size_t ic_len)
{
    rand_g1(&vk->alpha_g1);
    rand_g1(&vk->beta_g1);
    rand_g1(&vk->delta_g1);
    rand_g2(&vk->beta_g2);
    rand_g2(&vk->gamma_g2);
    rand_g2(&vk->delta_g2);
    vk->ic_len = ic_len;
    vk->ic = czk_malloc(ic_len * sizeof *vk->ic);
    rand_g1s(vk->ic, ic_len);
}

static bool vk_eq(const czk_groth16_vk *a, const czk_groth16_vk *b, bool with_g1_extras)
{
    return czk_g1_affine_eq(&a->alpha_g1, &b->alpha_g1) &&
           (!with_g1_extras || (czk_g1_affine_eq(&a->beta_g1, &b->beta_g1) &&
                                czk_g1_affine_eq(&a->delta_g1, &b->delta_g1))) &&
           czk_g2_affine_eq(&a->beta_g2, &b->beta_g2) &&
           czk_g2_affine_eq(&a->gamma_g2, &b->gamma_g2) &&
           czk_g2_affine_eq(&a->delta_g2, &b->delta_g2) && a->ic_len == b->ic_len &&
           g1_eq_arr(a->ic, b->ic, a->ic_len);
}

static void test_vk_size_known_answer(void)
{
    /* docs/formats.md §2: 868 + 96·ic_len; PoRep 32 GiB (328) 32,356 B, PoRep 2K..512M
     * (40) 4,708 B, SnapDeals (5) 1,348 B. */
    czk_groth16_vk vk = {0};
    vk.ic_len = 328;
    CHECK(czk_groth16_vk_size(&vk) == 32356);
    vk.ic_len = 40;
    CHECK(czk_groth16_vk_size(&vk) == 4708);
    vk.ic_len = 5;
    CHECK(czk_groth16_vk_size(&vk) == 1348);

    /* Layout: generators land at the published offsets, ic_len big-endian at 864. */
    czk_g1_affine ic[2] = {CZK_G1_GENERATOR, CZK_G1_GENERATOR};
    czk_groth16_vk g = {CZK_G1_GENERATOR,
                        CZK_G1_GENERATOR,
                        CZK_G1_GENERATOR,
                        CZK_G2_GENERATOR,
                        CZK_G2_GENERATOR,
                        CZK_G2_GENERATOR,
                        ic,
                        2};
    uint8_t out[868 + 192], x1[48], x2[96];
    CHECK_STATUS(czk_groth16_vk_write(out, sizeof out, &g, NULL), CZK_OK);
    hex_to_bytes(x1, G1_COMPRESSED_HEX, 48);
    hex_to_bytes(x2, G2_COMPRESSED_HEX, 96);
    x1[0] &= 0x1f; /* uncompressed: no flags */
    x2[0] &= 0x1f;
    static const size_t g1_offs[] = {0, 96, 576, 868, 964};
    static const size_t g2_offs[] = {192, 384, 672};
    for (size_t i = 0; i < 5; i++) CHECK_MEM(out + g1_offs[i], x1, 48);
    for (size_t i = 0; i < 3; i++) CHECK_MEM(out + g2_offs[i], x2, 96);
    static const uint8_t len_be[4] = {0, 0, 0, 2};
    CHECK_MEM(out + 864, len_be, 4);
    czk_err e;
    CHECK_STATUS(czk_groth16_vk_write(out, sizeof out - 1, &g, &e), CZK_EINVAL);
}

static void test_vk_roundtrip(void)
{
    czk_groth16_vk vk = {0}, back;
    make_vk(&vk, 5);
    size_t n = czk_groth16_vk_size(&vk);
    uint8_t *b = malloc(n);
    CHECK_STATUS(czk_groth16_vk_write(b, n, &vk, NULL), CZK_OK);
    CHECK_STATUS(czk_groth16_vk_read(&back, b, n, NULL), CZK_OK);
    CHECK(vk_eq(&vk, &back, true));
    czk_groth16_vk_free(&back);
    CHECK(back.ic == NULL && back.ic_len == 0);

    write_file(tpath("k.vk"), b, n);
    CHECK_STATUS(czk_groth16_vk_read_file(&back, tpath("k.vk"), NULL), CZK_OK);
    CHECK(vk_eq(&vk, &back, true));
    czk_groth16_vk_free(&back);
    CHECK_ERR(czk_groth16_vk_read_file(&back, tpath("missing.vk"), ERR), CZK_ENOENT, "missing.vk");
    free(b);
    czk_groth16_vk_free(&vk);
}

static void test_vk_bad(void)
{
    czk_groth16_vk vk = {0}, back;
    make_vk(&vk, 4);
    size_t n = czk_groth16_vk_size(&vk);
    uint8_t *good = malloc(n + 1), *b = malloc(n + 1);
    CHECK_STATUS(czk_groth16_vk_write(good, n, &vk, NULL), CZK_OK);

    for (size_t len = 0; len < n; len++)
        CHECK_ERR(czk_groth16_vk_read(&back, good, len, ERR), CZK_ETRUNCATED, "truncated");
    good[n] = 0;
    CHECK_ERR(czk_groth16_vk_read(&back, good, n + 1, ERR), CZK_EFORMAT, "trailing");

    /* Identity IC point 2. */
    memcpy(b, good, n);
    memset(b + 868 + 2 * 96, 0, 96);
    b[868 + 2 * 96] = 0x40;
    CHECK_ERR(czk_groth16_vk_read(&back, b, n, ERR), CZK_EINFINITY, "ic point 2");
    /* ic_len 0. */
    memcpy(b, good, n);
    memset(b + 864, 0, 4);
    CHECK_ERR(czk_groth16_vk_read(&back, b, 868, ERR), CZK_EFORMAT, "ic_len");
    /* Coordinate ≥ p in gamma_g2 (x.c1 = p). */
    memcpy(b, good, n);
    hex_to_bytes(b + 384, P_HEX, 48);
    CHECK_ERR(czk_groth16_vk_read(&back, b, n, ERR), CZK_ENONCANONICAL, "gamma_g2");
    /* Off the curve: alpha_g1 with y changed. */
    memcpy(b, good, n);
    b[95] ^= 1;
    CHECK_ERR(czk_groth16_vk_read(&back, b, n, ERR), CZK_ENOTONCURVE, "alpha_g1");
    /* Outside the subgroup: delta_g1. */
    czk_g1_affine ns;
    non_subgroup_g1(&ns);
    memcpy(b, good, n);
    czk_g1_to_uncompressed(b + 576, &ns);
    CHECK_ERR(czk_groth16_vk_read(&back, b, n, ERR), CZK_ENOTINSUBGROUP, "delta_g1");
    /* A stray compression flag. */
    memcpy(b, good, n);
    b[868 + 96] |= 0x80;
    CHECK_ERR(czk_groth16_vk_read(&back, b, n, ERR), CZK_EBADFLAGS, "ic point 1");
    free(good);
    free(b);
    czk_groth16_vk_free(&vk);
}

/* ------------------------------------------------------------------------------------ */
/* .params                                                                              */
/* ------------------------------------------------------------------------------------ */

static void make_params(czk_groth16_params *p, size_t ic, size_t m, size_t aux, size_t a_aux,
                        size_t b_len)
{
    memset(p, 0, sizeof *p);
    p->conv = CZK_H_BELLPERSON;
    make_vk(&p->vk, ic);
    p->h_len = m - 1;
    p->l_len = aux;
    p->a_len = ic + a_aux;
    p->b_g1_len = p->b_g2_len = b_len;
    p->h = czk_malloc(p->h_len * sizeof(czk_g1_affine));
    p->l = czk_malloc(aux * sizeof(czk_g1_affine));
    p->a = czk_malloc(p->a_len * sizeof(czk_g1_affine));
    p->b_g1 = czk_malloc(b_len * sizeof(czk_g1_affine));
    p->b_g2 = czk_malloc(b_len * sizeof(czk_g2_affine));
    rand_g1s(p->h, p->h_len);
    rand_g1s(p->l, aux);
    rand_g1s(p->a, p->a_len);
    rand_g1s(p->b_g1, b_len);
    rand_g2s(p->b_g2, b_len);
    p->n_inputs = (uint32_t)ic;
    p->n_aux = (uint32_t)aux;
    while (((size_t)1 << p->log_m) < m) p->log_m++;
}

static bool params_eq(const czk_groth16_params *a, const czk_groth16_params *b)
{
    return a->conv == b->conv && a->n_inputs == b->n_inputs && a->n_aux == b->n_aux &&
           a->log_m == b->log_m && vk_eq(&a->vk, &b->vk, true) && a->h_len == b->h_len &&
           a->l_len == b->l_len && a->a_len == b->a_len && a->b_g1_len == b->b_g1_len &&
           a->b_g2_len == b->b_g2_len && g1_eq_arr(a->h, b->h, a->h_len) &&
           g1_eq_arr(a->l, b->l, a->l_len) && g1_eq_arr(a->a, b->a, a->a_len) &&
           g1_eq_arr(a->b_g1, b->b_g1, a->b_g1_len) && g2_eq_arr(a->b_g2, b->b_g2, a->b_g2_len);
}

static void test_params_roundtrip(void)
{
    czk_groth16_params p, q;
    make_params(&p, 3, 8, 5, 4, 4);
    const char *f = tpath("small.params");
    CHECK_STATUS(czk_groth16_params_write_file(&p, f, NULL), CZK_OK);
    size_t len;
    uint8_t *img = read_whole(f, &len);
    /* VK, then five u32-prefixed sections. */
    CHECK(len == 868 + 96 * 3 + 5 * 4 + 96 * (7 + 5 + 7 + 4) + 192 * 4);
    CHECK(img != NULL && img[868 + 288] == 0 && img[868 + 288 + 3] == 7); /* len(h) BE */
    free(img);

    bool sub[2] = {false, true};
    czk_pool *pools[2] = {NULL, pool};
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < 2; k++) {
            CHECK_STATUS(czk_groth16_params_read_file(&q, f, sub[s], pools[k], NULL), CZK_OK);
            CHECK(q.conv == CZK_H_BELLPERSON && q.log_m == 3 && q.n_inputs == 3 && q.n_aux == 5);
            CHECK(params_eq(&p, &q));
            czk_groth16_params_free(&q);
            CHECK(q.h == NULL && q.vk.ic == NULL);
        }
    }
    czk_groth16_params_free(&p);
}

/* Offsets of the sections of a params image made by make_params(). */
typedef struct params_layout {
    size_t h, l, a, b_g1, b_g2, end; /* offsets of the length prefixes */
} params_layout;

static params_layout layout_of(const czk_groth16_params *p)
{
    params_layout o;
    o.h = 868 + 96 * p->vk.ic_len;
    o.l = o.h + 4 + 96 * p->h_len;
    o.a = o.l + 4 + 96 * p->l_len;
    o.b_g1 = o.a + 4 + 96 * p->a_len;
    o.b_g2 = o.b_g1 + 4 + 96 * p->b_g1_len;
    o.end = o.b_g2 + 4 + 192 * p->b_g2_len;
    return o;
}

static void test_params_bad(void)
{
    czk_groth16_params p, q;
    make_params(&p, 2, 4, 3, 2, 3);
    const char *f = tpath("p.params"), *g = tpath("bad.params");
    CHECK_STATUS(czk_groth16_params_write_file(&p, f, NULL), CZK_OK);
    size_t n;
    uint8_t *good = read_whole(f, &n);
    params_layout o = layout_of(&p);
    CHECK(o.end == n);
    uint8_t *b = malloc(n + 200);

    /* Truncated at every length. */
    for (size_t len = 0; len < n; len++) {
        write_file(g, good, len);
        CHECK_ERR(czk_groth16_params_read_file(&q, g, false, NULL, ERR), CZK_ETRUNCATED,
                  "truncated");
    }
    /* A trailing byte. */
    memcpy(b, good, n);
    b[n] = 0;
    write_file(g, b, n + 1);
    CHECK_ERR(czk_groth16_params_read_file(&q, g, false, NULL, ERR), CZK_EFORMAT, "trailing");

    /* Identity in l point 1 (bellperson rejects identity in every section). */
    memcpy(b, good, n);
    memset(b + o.l + 4 + 96, 0, 96);
    b[o.l + 4 + 96] = 0x40;
    write_file(g, b, n);
    CHECK_ERR(czk_groth16_params_read_file(&q, g, false, pool, ERR), CZK_EINFINITY, "l point 1");
    /* Off the curve: a point 3. */
    memcpy(b, good, n);
    b[o.a + 4 + 3 * 96 + 95] ^= 4;
    write_file(g, b, n);
    CHECK_ERR(czk_groth16_params_read_file(&q, g, false, pool, ERR), CZK_ENOTONCURVE, "a point 3");
    /* x ≥ p: h point 0. */
    memcpy(b, good, n);
    hex_to_bytes(b + o.h + 4, P_HEX, 48);
    write_file(g, b, n);
    CHECK_ERR(czk_groth16_params_read_file(&q, g, false, pool, ERR), CZK_ENONCANONICAL,
              "h point 0");
    /* Outside the subgroup: b_g2 point 2, caught only when checking. */
    czk_g2_affine ns2;
    non_subgroup_g2(&ns2);
    memcpy(b, good, n);
    czk_g2_to_uncompressed(b + o.b_g2 + 4 + 2 * 192, &ns2);
    write_file(g, b, n);
    CHECK_ERR(czk_groth16_params_read_file(&q, g, true, pool, ERR), CZK_ENOTINSUBGROUP,
              "b_g2 point 2");
    CHECK_STATUS(czk_groth16_params_read_file(&q, g, false, pool, NULL), CZK_OK);
    czk_groth16_params_free(&q);
    /* The same in b_g1 point 0, G1. */
    czk_g1_affine ns;
    non_subgroup_g1(&ns);
    memcpy(b, good, n);
    czk_g1_to_uncompressed(b + o.b_g1 + 4, &ns);
    write_file(g, b, n);
    CHECK_ERR(czk_groth16_params_read_file(&q, g, true, NULL, ERR), CZK_ENOTINSUBGROUP,
              "b_g1 point 0");

    /* Counts that do not fit together. h of 2 points: m = 3 is not a power of two. */
    {
        czk_groth16_params r = p;
        r.h_len = 2;
        CHECK_STATUS(czk_groth16_params_write_file(&r, g, NULL), CZK_OK);
        CHECK_ERR(czk_groth16_params_read_file(&q, g, false, NULL, ERR), CZK_EFORMAT,
                  "power of two");
        /* a shorter than the inputs. */
        r = p;
        r.a_len = 1;
        CHECK_STATUS(czk_groth16_params_write_file(&r, g, NULL), CZK_OK);
        CHECK_ERR(czk_groth16_params_read_file(&q, g, false, NULL, ERR), CZK_EFORMAT,
                  "a has 1 points");
        /* b_g1 and b_g2 of different lengths. */
        r = p;
        r.b_g2_len = 2;
        CHECK_STATUS(czk_groth16_params_write_file(&r, g, NULL), CZK_OK);
        CHECK_ERR(czk_groth16_params_read_file(&q, g, false, NULL, ERR), CZK_EFORMAT, "b_g2 2");
    }
    /* A length prefix near 2^32: the size check comes before any allocation. */
    memcpy(b, good, n);
    b[o.l] = 0xff, b[o.l + 1] = 0xff, b[o.l + 2] = 0xff, b[o.l + 3] = 0xfe;
    write_file(g, b, n);
    CHECK_ERR(czk_groth16_params_read_file(&q, g, false, NULL, ERR), CZK_ETRUNCATED, "l truncated");
    CHECK_ERR(czk_groth16_params_read_file(&q, tpath("nope.params"), false, NULL, ERR), CZK_ENOENT,
              "nope.params");
    CHECK_ERR(czk_groth16_params_read_file(&q, tmpdir, false, NULL, ERR), CZK_EIO,
              "not a regular file");
    free(b);
    free(good);
    czk_groth16_params_free(&p);
}

/* The ranged reader: any range of any section decodes to the same points as the whole
 * read, the shape matches, and a bad point is named by its index in its section whatever
 * range finds it. */
static void test_params_file_ranges(void)
{
    czk_groth16_params p, shape;
    make_params(&p, 3, 4096, 700, 500, 300);
    const char *f = tpath("ranges.params");
    CHECK_STATUS(czk_groth16_params_write_file(&p, f, NULL), CZK_OK);
    czk_groth16_params_file *pf;
    CHECK_STATUS(czk_groth16_params_file_open(&pf, f, &shape, NULL), CZK_OK);
    CHECK(shape.h == NULL && shape.l == NULL && shape.a == NULL && shape.b_g1 == NULL &&
          shape.b_g2 == NULL);
    CHECK(shape.conv == CZK_H_BELLPERSON && shape.log_m == p.log_m &&
          shape.n_inputs == p.n_inputs && shape.n_aux == p.n_aux && vk_eq(&shape.vk, &p.vk, true));
    const void *whole[CZK_G16_SECTIONS] = {p.h, p.l, p.a, p.b_g1, p.b_g2};
    for (int k = 0; k < CZK_G16_SECTIONS; k++)
        CHECK(czk_groth16_section_len(&shape, (czk_groth16_section)k) ==
              czk_groth16_section_len(&p, (czk_groth16_section)k));
    CHECK(czk_groth16_params_file_size(pf) == layout_of(&p).end);
    uint8_t *pts = malloc(4096 * sizeof(czk_g2_affine));
    for (int t = 0; t < 40; t++) {
        czk_groth16_section sec = (czk_groth16_section)(czk_test_rand64() % CZK_G16_SECTIONS);
        size_t len = czk_groth16_section_len(&p, sec), el = czk_groth16_section_elem(sec);
        size_t first = (size_t)(czk_test_rand64() % (len + 1));
        size_t n = (size_t)(czk_test_rand64() % (len - first + 1));
        czk_groth16_params_file_prefetch(pf, sec, first, n);
        CHECK_STATUS(czk_groth16_params_file_decode(pf, sec, first, n, pts, t & 1,
                                                    t & 2 ? pool : NULL, NULL),
                     CZK_OK);
        CHECK(memcmp(pts, (const uint8_t *)whole[sec] + first * el, n * el) == 0);
    }
    /* Ranges past the end are refused by name. */
    CHECK_ERR(czk_groth16_params_file_decode(pf, CZK_G16_L, 600, 101, pts, false, NULL, ERR),
              CZK_EINVAL, "l: points [600, 701)");
    /* The raw reader (the GPU loader's): any range's bytes as the file holds them, on the
     * pool or not; the lengths as the shape's. */
    {
        size_t flen;
        uint8_t *img = read_whole(f, &flen);
        params_layout lo = layout_of(&p);
        const size_t at[CZK_G16_SECTIONS] = {lo.h, lo.l, lo.a, lo.b_g1, lo.b_g2};
        for (int t = 0; t < 20; t++) {
            czk_groth16_section sec = (czk_groth16_section)(t % CZK_G16_SECTIONS);
            size_t len = czk_groth16_section_len(&p, sec), el = sec == CZK_G16_B_G2 ? 192 : 96;
            CHECK(czk_groth16_params_file_len(pf, sec) == len);
            size_t first = (size_t)(czk_test_rand64() % (len + 1));
            size_t n = (size_t)(czk_test_rand64() % (len - first + 1));
            memset(pts, 0x5a, n * el);
            CHECK_STATUS(czk_groth16_params_file_read(pf, sec, first, n, pts, t & 1 ? pool : NULL,
                                                      NULL),
                         CZK_OK);
            CHECK(memcmp(pts, img + at[sec] + 4 + first * el, n * el) == 0);
        }
        CHECK_ERR(czk_groth16_params_file_read(pf, CZK_G16_A, 500, 10, pts, NULL, ERR),
                  CZK_EINVAL, "a points [500, 510)");
        /* Cut short after it was opened: the read fails by name, not with stale bytes. */
        write_file(f, img, lo.b_g2);
        CHECK_ERR(czk_groth16_params_file_read(pf, CZK_G16_B_G2, 0, 300, pts, pool, ERR),
                  CZK_EIO, "reading b_g2 at offset");
        write_file(f, img, flen);
        free(img);
    }
    czk_groth16_params_file_close(pf);
    czk_groth16_params_free(&shape);

    /* Off the curve at a point 321: found by a range that starts before it, named by its
     * index in the section (not in the range); ranges that end before it decode. */
    size_t n;
    uint8_t *img = read_whole(f, &n);
    params_layout o = layout_of(&p);
    img[o.a + 4 + 321 * 96 + 95] ^= 4;
    write_file(f, img, n);
    CHECK_STATUS(czk_groth16_params_file_open(&pf, f, &shape, NULL), CZK_OK);
    CHECK_STATUS(czk_groth16_params_file_decode(pf, CZK_G16_A, 0, 321, pts, false, pool, NULL),
                 CZK_OK);
    CHECK_ERR(czk_groth16_params_file_decode(pf, CZK_G16_A, 300, 50, pts, false, pool, ERR),
              CZK_ENOTONCURVE, "ranges.params: a point 321");
    CHECK_ERR(czk_groth16_params_file_decode(pf, CZK_G16_A, 321, 1, pts, false, NULL, ERR),
              CZK_ENOTONCURVE, "a point 321");
    czk_groth16_params_file_close(pf);
    czk_groth16_params_free(&shape);
    free(img);
    free(pts);
    czk_groth16_params_free(&p);
}

static void test_params_first_error_parallel(void)
{
    /* 4095 h points span two decoder tasks; with bad points in both, the error must name
     * the first one in file order whatever the thread count. */
    czk_groth16_params p, q;
    make_params(&p, 1, 4096, 1, 0, 1);
    const char *f = tpath("big.params");
    CHECK_STATUS(czk_groth16_params_write_file(&p, f, NULL), CZK_OK);
    size_t n;
    uint8_t *b = read_whole(f, &n);
    params_layout o = layout_of(&p);
    b[o.h + 4 + 3000 * 96 + 95] ^= 1;
    b[o.h + 4 + 2100 * 96 + 95] ^= 1;
    write_file(f, b, n);
    for (int rep = 0; rep < 4; rep++)
        CHECK_ERR(czk_groth16_params_read_file(&q, f, false, pool, ERR), CZK_ENOTONCURVE,
                  "h point 2100");
    b[o.h + 4 + 10 * 96 + 95] ^= 1;
    write_file(f, b, n);
    CHECK_ERR(czk_groth16_params_read_file(&q, f, false, pool, ERR), CZK_ENOTONCURVE,
              "h point 10:");
    free(b);
    czk_groth16_params_free(&p);
}

/* ------------------------------------------------------------------------------------ */
/* circom / snarkjs binary files                                                        */
/* ------------------------------------------------------------------------------------ */

typedef struct section {
    uint32_t id;
    buf data;
} section;

/* A binfile image from sections in the given order. */
static void assemble(buf *out, const char *magic, uint32_t version, section *const *secs, size_t n)
{
    memset(out, 0, sizeof *out);
    b_put(out, magic, 4);
    b_u32(out, version);
    b_u32(out, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        b_u32(out, secs[i]->id);
        b_u64(out, secs[i]->data.n);
        b_put(out, secs[i]->data.p, secs[i]->data.n);
    }
}

/* The out = a·b·k circuit of docs/formats.md §9.1: wires 0 = 1, 1 = out, 2 = k, 3 = a, 4 = b,
 * 5 = a·b; constraint 0: (−a)·b = −t; constraint 1: (−t)·k = −out. */
typedef struct term {
    uint32_t wire;
    long coef;
} term;
static const term tiny_terms[2][3][1] = {
    {{{3, -1}}, {{4, 1}}, {{5, -1}}},
    {{{5, -1}}, {{2, 1}}, {{1, -1}}},
};
static const long tiny_witness[6] = {1, 165, 5, 3, 11, 33};

static void r1cs_sections(section s[4], const char *prime_hex, uint32_t n_constraints)
{
    for (int i = 0; i < 4; i++) memset(&s[i], 0, sizeof s[i]);
    s[1].id = 1;
    BIGNUM *prime = bn_hex(prime_hex);
    b_u32(&s[1].data, 32);
    b_bn_le(&s[1].data, prime, 32);
    BN_free(prime);
    b_u32(&s[1].data, 6); /* nWires */
    b_u32(&s[1].data, 1); /* nOutputs */
    b_u32(&s[1].data, 1); /* nPubInputs */
    b_u32(&s[1].data, 2); /* nPrvInputs */
    b_u64(&s[1].data, 6); /* nLabels */
    b_u32(&s[1].data, n_constraints);
    s[2].id = 2;
    for (int j = 0; j < 2; j++) {
        for (int x = 0; x < 3; x++) {
            b_u32(&s[2].data, 1);
            b_u32(&s[2].data, tiny_terms[j][x][0].wire);
            BIGNUM *c = bn_small(tiny_terms[j][x][0].coef);
            b_bn_le(&s[2].data, c, 32);
            BN_free(c);
        }
    }
    s[3].id = 3;
    for (uint64_t i = 0; i < 6; i++) b_u64(&s[3].data, i);
}

static void free_sections(section *s, size_t n)
{
    for (size_t i = 0; i < n; i++) b_free(&s[i].data);
}

static void tiny_z(czk_fr z[6])
{
    for (int i = 0; i < 6; i++) czk_fr_from_u64(&z[i], (uint64_t)tiny_witness[i]);
}

static bool csr_row_is(const czk_csr *m, uint32_t row, uint32_t wire, long coef)
{
    if (m->row_ptr[row + 1] - m->row_ptr[row] != 1) return false;
    uint64_t k = m->row_ptr[row];
    BIGNUM *c = bn_small(coef);
    bool ok = m->col[k] == wire && fr_eq_bn(&m->val[k], c);
    BN_free(c);
    return ok;
}

static void test_r1cs_tiny_image(void)
{
    section s[4];
    r1cs_sections(s, R_HEX, 2);
    /* circom's section order: constraints before the header. */
    section *order[3] = {&s[2], &s[1], &s[3]};
    buf img;
    assemble(&img, "r1cs", 1, order, 3);
    const char *f = tpath("tiny.r1cs");
    write_file(f, img.p, img.n);
    czk_r1cs r;
    CHECK_STATUS(czk_r1cs_read_file(&r, f, NULL), CZK_OK);
    CHECK(r.n_inputs == 3 && r.n_aux == 3 && r.n_constraints == 2 && r.has_c);
    const czk_csr *m[3] = {&r.a, &r.b, &r.c};
    for (int j = 0; j < 2; j++)
        for (int x = 0; x < 3; x++)
            CHECK_MSG(
                csr_row_is(m[x], (uint32_t)j, tiny_terms[j][x][0].wire, tiny_terms[j][x][0].coef),
                "constraint %d matrix %d", j, x);
    /* The witness satisfies it; a wrong output does not. */
    czk_fr z[6];
    uint32_t bad = 99;
    tiny_z(z);
    CHECK(czk_r1cs_is_satisfied(&r, z, &bad));
    czk_fr_from_u64(&z[1], 166);
    CHECK(!czk_r1cs_is_satisfied(&r, z, &bad) && bad == 1);

    /* Written back and read again: the same matrices. */
    czk_r1cs r2;
    CHECK_STATUS(czk_r1cs_write_file(&r, tpath("tiny2.r1cs"), NULL), CZK_OK);
    CHECK_STATUS(czk_r1cs_read_file(&r2, tpath("tiny2.r1cs"), NULL), CZK_OK);
    CHECK(r2.n_inputs == 3 && r2.n_aux == 3 && r2.n_constraints == 2);
    for (int j = 0; j < 2; j++)
        CHECK(csr_row_is(&r2.c, (uint32_t)j, tiny_terms[j][2][0].wire, tiny_terms[j][2][0].coef));
    czk_r1cs_free(&r2);
    czk_r1cs_free(&r);
    b_free(&img);
    free_sections(s, 4);
}

static bool csr_eq(const czk_csr *a, const czk_csr *b, uint32_t rows)
{
    if (a->nnz != b->nnz) return false;
    for (uint32_t j = 0; j <= rows; j++)
        if (a->row_ptr[j] != b->row_ptr[j]) return false;
    for (uint64_t k = 0; k < a->nnz; k++)
        if (a->col[k] != b->col[k] || !czk_fr_eq(&a->val[k], &b->val[k])) return false;
    return true;
}

static void test_r1cs_roundtrip(void)
{
    /* A random sparse system with 0..4 terms per row and full-size coefficients. */
    const uint32_t ni = 4, na = 30, nc = 25;
    uint64_t nnz = 4 * nc;
    czk_r1cs r, back;
    CHECK_STATUS(czk_r1cs_alloc(&r, ni, na, nc, nnz, nnz, nnz, NULL), CZK_OK);
    czk_csr *m[3] = {&r.a, &r.b, &r.c};
    for (int x = 0; x < 3; x++) {
        m[x]->nnz = 0;
        for (uint32_t j = 0; j < nc; j++) {
            uint32_t k = (uint32_t)(czk_test_rand64() % 5);
            for (uint32_t t = 0; t < k; t++) {
                m[x]->col[m[x]->nnz] = (uint32_t)(czk_test_rand64() % (ni + na));
                do czk_test_rand_fr(&m[x]->val[m[x]->nnz]);
                while (czk_fr_is_zero(&m[x]->val[m[x]->nnz]));
                m[x]->nnz++;
            }
            m[x]->row_ptr[j + 1] = m[x]->nnz;
        }
    }
    const char *f = tpath("rand.r1cs");
    CHECK_STATUS(czk_r1cs_write_file(&r, f, NULL), CZK_OK);
    CHECK_STATUS(czk_r1cs_read_file(&back, f, NULL), CZK_OK);
    CHECK(back.n_inputs == ni && back.n_aux == na && back.n_constraints == nc && back.has_c);
    CHECK(csr_eq(&r.a, &back.a, nc) && csr_eq(&r.b, &back.b, nc) && csr_eq(&r.c, &back.c, nc));
    czk_r1cs_free(&back);

    /* The header fields as circom defines them. */
    size_t n;
    uint8_t *img = read_whole(f, &n);
    CHECK(memcmp(img, "r1cs", 4) == 0 && img[4] == 1 && img[8] == 3);
    BIGNUM *rr = bn_hex(R_HEX);
    uint8_t rle[32];
    BN_bn2lebinpad(rr, rle, 32);
    BN_free(rr);
    CHECK(czk__ld32le(img + 12) == 1 && czk__ld64le(img + 16) == 64);
    CHECK(czk__ld32le(img + 24) == 32 && memcmp(img + 28, rle, 32) == 0);
    CHECK(czk__ld32le(img + 60) == ni + na && czk__ld32le(img + 68) == ni - 1 &&
          czk__ld32le(img + 84) == nc);
    free(img);

    r.has_c = false;
    CHECK_ERR(czk_r1cs_write_file(&r, f, ERR), CZK_EINVAL, "no C matrix");
    czk_r1cs_free(&r);
}

static void test_r1cs_bad(void)
{
    section s[4];
    buf img;
    czk_r1cs r;
    const char *f = tpath("bad.r1cs");
    r1cs_sections(s, R_HEX, 2);
    section *order[3] = {&s[2], &s[1], &s[3]};
    assemble(&img, "r1cs", 1, order, 3);

    for (size_t len = 0; len < img.n; len++) {
        write_file(f, img.p, len);
        CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_ETRUNCATED, "bad.r1cs");
    }
    buf b = {0};
    b_put(&b, img.p, img.n);
    memcpy(b.p, "r1cz", 4);
    write_file(f, b.p, b.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EFORMAT, "magic");
    memcpy(b.p, "r1cs", 4);
    b.p[4] = 2;
    write_file(f, b.p, b.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EUNSUPPORTED, "version 2");
    b_free(&b);
    b_free(&img);

    /* A stray byte after the last section. */
    assemble(&img, "r1cs", 1, order, 3);
    b_put(&img, "x", 1);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EFORMAT, "stray");
    b_free(&img);

    /* Duplicate and missing sections. */
    section *dup[4] = {&s[2], &s[1], &s[3], &s[3]};
    assemble(&img, "r1cs", 1, dup, 4);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EFORMAT, "duplicate section 3");
    b_free(&img);
    section *miss[2] = {&s[1], &s[3]};
    assemble(&img, "r1cs", 1, miss, 2);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EFORMAT, "missing section 2");
    b_free(&img);
    free_sections(s, 4);

    /* The BN254 prime, and some other prime. */
    r1cs_sections(s, BN254_R_HEX, 2);
    assemble(&img, "r1cs", 1, order, 3);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EUNSUPPORTED, "BN254");
    b_free(&img);
    free_sections(s, 4);
    r1cs_sections(s, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000003", 2);
    assemble(&img, "r1cs", 1, order, 3);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EUNSUPPORTED, "not BLS12-381");
    b_free(&img);
    free_sections(s, 4);

    /* nConstraints 3 where the section holds 2; and 1 (bytes left over). */
    r1cs_sections(s, R_HEX, 3);
    assemble(&img, "r1cs", 1, order, 3);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EFORMAT, "inside constraint 2");
    b_free(&img);
    free_sections(s, 4);
    r1cs_sections(s, R_HEX, 1);
    assemble(&img, "r1cs", 1, order, 3);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EFORMAT, "after constraint 1");
    b_free(&img);
    free_sections(s, 4);

    /* A wire index out of range; a coefficient equal to r; a term count too large. The
     * constraint section is: per LC u32 count, u32 wire, 32 B value (40 bytes per LC). */
    r1cs_sections(s, R_HEX, 2);
    czk__st32le(s[2].data.p + 40 * 3 + 4, 9); /* constraint 1, A, wire 9 */
    assemble(&img, "r1cs", 1, order, 3);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EFORMAT, "constraint 1 A term 0: wire 9");
    b_free(&img);
    free_sections(s, 4);
    r1cs_sections(s, R_HEX, 2);
    BIGNUM *rr = bn_hex(R_HEX);
    BN_bn2lebinpad(rr, s[2].data.p + 40 * 4 + 8, 32); /* constraint 1, B */
    BN_free(rr);
    assemble(&img, "r1cs", 1, order, 3);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_ENONCANONICAL, "constraint 1 B term 0");
    b_free(&img);
    free_sections(s, 4);
    r1cs_sections(s, R_HEX, 2);
    czk__st32le(s[2].data.p + 40 * 2, 0x7fffffff); /* constraint 0, C */
    assemble(&img, "r1cs", 1, order, 3);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EFORMAT, "constraint 0 C: 2147483647 terms");
    b_free(&img);
    free_sections(s, 4);

    /* Header counts that cannot fit: 6 outputs in 6 wires. */
    r1cs_sections(s, R_HEX, 2);
    czk__st32le(s[1].data.p + 40, 6);
    assemble(&img, "r1cs", 1, order, 3);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_r1cs_read_file(&r, f, ERR), CZK_EFORMAT, "nWires 6");
    b_free(&img);
    free_sections(s, 4);
}

/* .wtns */

static void wtns_image(buf *img, const char *prime_hex, uint32_t count, const long *vals,
                       size_t n_vals)
{
    section s1 = {1, {0}}, s2 = {2, {0}};
    BIGNUM *prime = bn_hex(prime_hex);
    b_u32(&s1.data, 32);
    b_bn_le(&s1.data, prime, 32);
    b_u32(&s1.data, count);
    BN_free(prime);
    for (size_t i = 0; i < n_vals; i++) {
        BIGNUM *v = bn_small(vals[i]);
        b_bn_le(&s2.data, v, 32);
        BN_free(v);
    }
    section *order[2] = {&s2, &s1};
    assemble(img, "wtns", 2, order, 2);
    b_free(&s1.data);
    b_free(&s2.data);
}

static void test_wtns(void)
{
    buf img;
    const char *f = tpath("tiny.wtns");
    wtns_image(&img, R_HEX, 6, tiny_witness, 6);
    write_file(f, img.p, img.n);
    czk_fr *w;
    size_t n;
    CHECK_STATUS(czk_wtns_read_file(&w, &n, f, NULL), CZK_OK);
    CHECK(n == 6);
    for (size_t i = 0; i < n && n == 6; i++) {
        BIGNUM *v = bn_small(tiny_witness[i]);
        CHECK(fr_eq_bn(&w[i], v));
        BN_free(v);
    }
    czk_free(w);

    /* Round trip of full-size values through the writer, and its bytes. */
    czk_fr vals[300], *back;
    vals[0] = CZK_FR_ONE;
    for (int i = 1; i < 300; i++) czk_test_rand_fr(&vals[i]);
    CHECK_STATUS(czk_wtns_write_file(vals, 300, tpath("w.wtns"), NULL), CZK_OK);
    CHECK_STATUS(czk_wtns_read_file(&back, &n, tpath("w.wtns"), NULL), CZK_OK);
    CHECK(n == 300 && memcmp(back, vals, sizeof vals) == 0);
    czk_free(back);
    size_t len;
    uint8_t *raw = read_whole(tpath("w.wtns"), &len);
    CHECK(len == 12 + 12 + 40 + 12 + 300 * 32);
    uint8_t le[32];
    czk_fr_to_bytes_le(le, &vals[7]);
    CHECK(raw != NULL && memcmp(raw + 76 + 7 * 32, le, 32) == 0);
    free(raw);

    /* Bad files. */
    for (size_t l = 0; l < img.n; l++) {
        write_file(f, img.p, l);
        CHECK_ERR(czk_wtns_read_file(&w, &n, f, ERR), CZK_ETRUNCATED, "tiny.wtns");
    }
    b_free(&img);
    wtns_image(&img, R_HEX, 7, tiny_witness, 6);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_wtns_read_file(&w, &n, f, ERR), CZK_EFORMAT, "nWitness 7");
    b_free(&img);
    wtns_image(&img, BN254_R_HEX, 6, tiny_witness, 6);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_wtns_read_file(&w, &n, f, ERR), CZK_EUNSUPPORTED, "BN254");
    b_free(&img);
    long notone[6] = {2, 165, 5, 3, 11, 33};
    wtns_image(&img, R_HEX, 6, notone, 6);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_wtns_read_file(&w, &n, f, ERR), CZK_EFORMAT, "value 0 must be 1");
    b_free(&img);
    wtns_image(&img, R_HEX, 6, tiny_witness, 6);
    /* Value 4 := r. The witness section comes first: 12 + 12 bytes, then the values. */
    BIGNUM *rr = bn_hex(R_HEX);
    BN_bn2lebinpad(rr, img.p + 24 + 4 * 32, 32);
    BN_free(rr);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_wtns_read_file(&w, &n, f, ERR), CZK_ENONCANONICAL, "value 4");
    img.p[4] = 1;
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_wtns_read_file(&w, &n, f, ERR), CZK_EUNSUPPORTED, "version 1");
    b_free(&img);
    CHECK(w == NULL && n == 0);
}

/* The same decoder over bytes in memory (a request's payload): the values, a short output
 * buffer (the rest still checked), and the file's errors under the caller's name. */
static void test_wtns_decode(void)
{
    buf img;
    wtns_image(&img, R_HEX, 6, tiny_witness, 6);
    czk_fr w[6];
    size_t n = 99;
    CHECK_STATUS(czk_wtns_decode(img.p, img.n, "payload", w, 6, &n, NULL), CZK_OK);
    CHECK(n == 6);
    for (size_t i = 0; i < 6 && n == 6; i++) {
        BIGNUM *v = bn_small(tiny_witness[i]);
        CHECK(fr_eq_bn(&w[i], v));
        BN_free(v);
    }
    czk_fr two[2];
    CHECK_STATUS(czk_wtns_decode(img.p, img.n, "payload", two, 2, &n, NULL), CZK_OK);
    CHECK(n == 6 && memcmp(two, w, sizeof two) == 0);
    CHECK_STATUS(czk_wtns_decode(img.p, img.n, "payload", NULL, 0, &n, NULL), CZK_OK);
    CHECK(n == 6);
    for (size_t l = 0; l < img.n; l++)
        CHECK_ERR(czk_wtns_decode(img.p, l, "payload", NULL, 0, &n, ERR), CZK_ETRUNCATED, "payload");
    CHECK(n == 0);
    /* Value 4 := r, past the end of a two-value buffer: still refused. */
    BIGNUM *rr = bn_hex(R_HEX);
    BN_bn2lebinpad(rr, img.p + 24 + 4 * 32, 32);
    BN_free(rr);
    CHECK_ERR(czk_wtns_decode(img.p, img.n, "payload", two, 2, &n, ERR), CZK_ENONCANONICAL,
              "payload: section 2 (witness) value 4");
    b_free(&img);
    wtns_image(&img, BN254_R_HEX, 6, tiny_witness, 6);
    CHECK_ERR(czk_wtns_decode(img.p, img.n, "payload", NULL, 0, &n, ERR), CZK_EUNSUPPORTED, "BN254");
    b_free(&img);
    long notone[6] = {2, 165, 5, 3, 11, 33};
    wtns_image(&img, R_HEX, 6, notone, 6);
    CHECK_ERR(czk_wtns_decode(img.p, img.n, "payload", NULL, 0, &n, ERR), CZK_EFORMAT,
              "value 0 must be 1");
    b_free(&img);
    CHECK_ERR(czk_wtns_decode((const uint8_t *)"zkey\x02\0\0\0\0\0\0\0", 12, "payload", NULL, 0,
                              &n, ERR),
              CZK_EFORMAT, "bad magic");
}

/* .zkey */

typedef struct zk_fixture {
    czk_g1_affine alpha1, beta1, delta1;
    czk_g2_affine beta2, gamma2, delta2;
    czk_g1_affine ic[3], a[6], b1[6], c[3], h[8];
    czk_g2_affine b2[6];
} zk_fixture;

/* The coefficient entries of the tiny circuit's zkey: its A and B terms, then the extra
 * rows {A, 2 + s, s, 1} for s = 0..nPublic. */
typedef struct coef {
    uint32_t matrix, row, signal;
    long value;
} coef;
static const coef tiny_coefs[7] = {{0, 0, 3, -1}, {1, 0, 4, 1}, {0, 1, 5, -1}, {1, 1, 2, 1},
                                   {0, 2, 0, 1},  {0, 3, 1, 1}, {0, 4, 2, 1}};

static void zk_fixture_make(zk_fixture *z)
{
    memset(z, 0, sizeof *z);
    rand_g1(&z->alpha1);
    rand_g1(&z->beta1);
    rand_g1(&z->delta1);
    rand_g2(&z->beta2);
    z->gamma2 = CZK_G2_GENERATOR; /* snarkjs: γ = 1 */
    rand_g2(&z->delta2);
    rand_g1s(z->ic, 3);
    rand_g1s(z->a, 6);
    rand_g1s(z->b1, 6);
    rand_g2s(z->b2, 6);
    rand_g1s(z->c, 3);
    rand_g1s(z->h, 8);
    /* Wires absent from a matrix have zero points: b (4) is not in A; only k (2) and b (4)
     * are in B. */
    memset(&z->a[4], 0, sizeof z->a[4]);
    for (int i = 0; i < 6; i++) {
        if (i == 2 || i == 4) continue;
        memset(&z->b1[i], 0, sizeof z->b1[i]);
        memset(&z->b2[i], 0, sizeof z->b2[i]);
    }
}

/* Sections 1..10 of the zkey (index = id). `q_hex`/`n8q` allow a BN254 header. */
static void zk_sections(section s[11], const zk_fixture *z, const char *q_hex, uint32_t n8q)
{
    for (int i = 0; i < 11; i++) {
        memset(&s[i], 0, sizeof s[i]);
        s[i].id = (uint32_t)i;
    }
    b_u32(&s[1].data, 1);
    BIGNUM *q = bn_hex(q_hex), *r = bn_hex(R_HEX);
    b_u32(&s[2].data, n8q);
    b_bn_le(&s[2].data, q, n8q);
    b_u32(&s[2].data, 32);
    b_bn_le(&s[2].data, r, 32);
    BN_free(q);
    BN_free(r);
    b_u32(&s[2].data, 6); /* nVars */
    b_u32(&s[2].data, 2); /* nPublic */
    b_u32(&s[2].data, 8); /* domainSize */
    b_g1_mont(&s[2].data, &z->alpha1);
    b_g1_mont(&s[2].data, &z->beta1);
    b_g2_mont(&s[2].data, &z->beta2);
    b_g2_mont(&s[2].data, &z->gamma2);
    b_g1_mont(&s[2].data, &z->delta1);
    b_g2_mont(&s[2].data, &z->delta2);
    for (int i = 0; i < 3; i++) b_g1_mont(&s[3].data, &z->ic[i]);
    b_u32(&s[4].data, 7);
    for (int i = 0; i < 7; i++) {
        b_u32(&s[4].data, tiny_coefs[i].matrix);
        b_u32(&s[4].data, tiny_coefs[i].row);
        b_u32(&s[4].data, tiny_coefs[i].signal);
        BIGNUM *v = bn_small(tiny_coefs[i].value);
        b_fr_double_mont(&s[4].data, v);
        BN_free(v);
    }
    for (int i = 0; i < 6; i++) b_g1_mont(&s[5].data, &z->a[i]);
    for (int i = 0; i < 6; i++) b_g1_mont(&s[6].data, &z->b1[i]);
    for (int i = 0; i < 6; i++) b_g2_mont(&s[7].data, &z->b2[i]);
    for (int i = 0; i < 3; i++) b_g1_mont(&s[8].data, &z->c[i]);
    for (int i = 0; i < 8; i++) b_g1_mont(&s[9].data, &z->h[i]);
    uint8_t hash[64] = {0};
    b_put(&s[10].data, hash, 64);
    b_u32(&s[10].data, 0);
}

/* The section order of `snarkjs groth16 setup`. */
static const int setup_order[10] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};

static void zk_image(buf *img, section s[11], const int *order, size_t n)
{
    section *o[16];
    for (size_t i = 0; i < n; i++) o[i] = &s[order[i]];
    assemble(img, "zkey", 1, o, n);
}

static void write_zkey(const char *path, section s[11], const int *order, size_t n)
{
    buf img;
    zk_image(&img, s, order, n);
    write_file(path, img.p, img.n);
    b_free(&img);
}

static void test_zkey_generator_bytes(void)
{
    /* docs/formats.md §9.3: the G1 generator in a zkey starts 160c53fd9087b35c f5ff7699. */
    buf b = {0};
    b_g1_mont(&b, &CZK_G1_GENERATOR);
    static const uint8_t want[12] = {0x16, 0x0c, 0x53, 0xfd, 0x90, 0x87,
                                     0xb3, 0x5c, 0xf5, 0xff, 0x76, 0x99};
    CHECK_MEM(b.p, want, 12);
    /* and the decoder's own encoder agrees with BIGNUM's. */
    uint8_t mine[96];
    czk__g1_to_mont_le(mine, &CZK_G1_GENERATOR);
    CHECK_MEM(mine, b.p, 96);
    b_free(&b);
}

static void check_zkey_matches(const czk_groth16_params *p, const czk_r1cs *ab, const zk_fixture *z)
{
    CHECK(p->conv == CZK_H_SNARKJS && p->n_inputs == 3 && p->n_aux == 3 && p->log_m == 3);
    CHECK(czk_g1_affine_eq(&p->vk.alpha_g1, &z->alpha1) &&
          czk_g1_affine_eq(&p->vk.beta_g1, &z->beta1) &&
          czk_g1_affine_eq(&p->vk.delta_g1, &z->delta1) &&
          czk_g2_affine_eq(&p->vk.beta_g2, &z->beta2) &&
          czk_g2_affine_eq(&p->vk.gamma_g2, &z->gamma2) &&
          czk_g2_affine_eq(&p->vk.delta_g2, &z->delta2));
    CHECK(p->vk.ic_len == 3 && g1_eq_arr(p->vk.ic, z->ic, 3));
    CHECK(p->a_len == 6 && g1_eq_arr(p->a, z->a, 6));
    CHECK(p->b_g1_len == 6 && g1_eq_arr(p->b_g1, z->b1, 6));
    CHECK(p->b_g2_len == 6 && g2_eq_arr(p->b_g2, z->b2, 6));
    CHECK(p->l_len == 3 && g1_eq_arr(p->l, z->c, 3));
    CHECK(p->h_len == 8 && g1_eq_arr(p->h, z->h, 8));
    CHECK(czk_g1_affine_is_inf(&p->a[4]) && czk_g2_affine_is_inf(&p->b_g2[0]));
    if (ab == NULL) return;
    /* Rows: the two constraints and the three input rows; values c (Montgomery), read
     * back from c·R². */
    CHECK(ab->n_constraints == 5 && !ab->has_c && ab->n_inputs == 3 && ab->n_aux == 3);
    CHECK(ab->a.nnz == 5 && ab->b.nnz == 2 && ab->c.nnz == 0);
    if (ab->n_constraints != 5) return;
    for (int i = 0; i < 7; i++) {
        const coef *c = &tiny_coefs[i];
        CHECK_MSG(csr_row_is(c->matrix ? &ab->b : &ab->a, c->row, c->signal, c->value),
                  "coefficient entry %d", i);
    }
    for (uint32_t j = 2; j < 5; j++) CHECK(ab->b.row_ptr[j + 1] == ab->b.row_ptr[j]);
    /* a∘b on the witness equals the r1cs C rows: the zkey's A/B agree with the circuit. */
    czk_fr zz[6], va[5], vb[5], vc[5];
    tiny_z(zz);
    czk_r1cs_eval(ab, zz, va, vb, vc, NULL);
    for (int j = 0; j < 2; j++) {
        BIGNUM *want = bn_small(-tiny_witness[tiny_terms[j][2][0].wire]);
        CHECK(fr_eq_bn(&vc[j], want));
        BN_free(want);
    }
}

static void test_zkey_read(void)
{
    zk_fixture z;
    zk_fixture_make(&z);
    section s[11];
    zk_sections(s, &z, P_HEX, 48);
    const char *f = tpath("tiny.zkey");
    czk_groth16_params p;
    czk_r1cs ab;

    write_zkey(f, s, setup_order, 10);
    CHECK_STATUS(czk_zkey_read_file(&p, &ab, f, NULL), CZK_OK);
    check_zkey_matches(&p, &ab, &z);
    czk_groth16_params_free(&p);
    czk_r1cs_free(&ab);

    /* Another section order (after `zkey contribute`: 1..10), with the pool and subgroup
     * checks, and without the matrices. */
    static const int sorted[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    write_zkey(f, s, sorted, 10);
    CHECK_STATUS(czk_zkey_read_file_ex(&p, &ab, f, true, pool, NULL), CZK_OK);
    check_zkey_matches(&p, &ab, &z);
    czk_groth16_params_free(&p);
    czk_r1cs_free(&ab);
    static const int reversed[9] = {9, 8, 7, 6, 5, 4, 3, 2, 1}; /* no contributions */
    write_zkey(f, s, reversed, 9);
    CHECK_STATUS(czk_zkey_read_file(&p, NULL, f, NULL), CZK_OK);
    check_zkey_matches(&p, NULL, &z);
    czk_groth16_params_free(&p);

    /* The zkey's first two A/B rows are the r1cs's A/B. */
    section rs[4];
    r1cs_sections(rs, R_HEX, 2);
    section *ro[3] = {&rs[1], &rs[2], &rs[3]};
    buf img;
    assemble(&img, "r1cs", 1, ro, 3);
    write_file(tpath("x.r1cs"), img.p, img.n);
    czk_r1cs r;
    write_zkey(f, s, setup_order, 10);
    CHECK_STATUS(czk_r1cs_read_file(&r, tpath("x.r1cs"), NULL), CZK_OK);
    CHECK_STATUS(czk_zkey_read_file(&p, &ab, f, NULL), CZK_OK);
    for (uint32_t j = 0; j < 2; j++)
        for (int x = 0; x < 2; x++) {
            const czk_csr *u = x ? &r.b : &r.a, *v = x ? &ab.b : &ab.a;
            CHECK(u->row_ptr[j + 1] - u->row_ptr[j] == v->row_ptr[j + 1] - v->row_ptr[j]);
            CHECK(u->col[u->row_ptr[j]] == v->col[v->row_ptr[j]] &&
                  czk_fr_eq(&u->val[u->row_ptr[j]], &v->val[v->row_ptr[j]]));
        }
    czk_r1cs_free(&r);
    czk_r1cs_free(&ab);
    czk_groth16_params_free(&p);
    b_free(&img);
    free_sections(rs, 4);
    free_sections(s, 11);
}

/* Build the fixture's zkey with one section altered by `edit`, read it, check the error. */
typedef void (*zk_edit)(section s[11]);

static void zk_expect(const zk_fixture *z, zk_edit edit, bool check_subgroup, czk_status want,
                      const char *needle)
{
    section s[11];
    zk_sections(s, z, P_HEX, 48);
    if (edit != NULL) edit(s);
    const char *f = tpath("bad.zkey");
    write_zkey(f, s, setup_order, 10);
    czk_groth16_params p;
    czk_r1cs ab;
    CHECK_ERR(czk_zkey_read_file_ex(&p, &ab, f, check_subgroup, pool, ERR), want, needle);
    if (want == CZK_OK) {
        if (edit == NULL) check_zkey_matches(&p, &ab, z);
        czk_groth16_params_free(&p);
        czk_r1cs_free(&ab);
    } else {
        /* Nothing is left allocated on failure. */
        CHECK(p.h == NULL && p.vk.ic == NULL && ab.a.row_ptr == NULL);
    }
    free_sections(s, 11);
}

static void ed_protocol(section s[11])
{
    czk__st32le(s[1].data.p, 2);
}
static void ed_nvars(section s[11])
{
    czk__st32le(s[2].data.p + 88, 7);
}
static void ed_domain(section s[11])
{
    czk__st32le(s[2].data.p + 96, 6);
}
static void ed_domain16(section s[11])
{
    czk__st32le(s[2].data.p + 96, 16);
}
static void ed_npublic(section s[11])
{
    czk__st32le(s[2].data.p + 92, 6);
}
static void ed_a_off_curve(section s[11])
{
    s[5].data.p[3 * 96 + 48] ^= 1;
} /* A point 3, y */
static void ed_h_noncanonical(section s[11])
{
    BIGNUM *p = bn_hex(P_HEX);
    BN_bn2lebinpad(p, s[9].data.p + 7 * 96, 48); /* H point 7, x = p */
    BN_free(p);
}
static void ed_b1_not_subgroup(section s[11])
{
    czk_g1_affine ns;
    non_subgroup_g1(&ns);
    buf b = {0};
    b_g1_mont(&b, &ns);
    memcpy(s[6].data.p + 2 * 96, b.p, 96);
    b_free(&b);
}
static void ed_b2_not_subgroup(section s[11])
{
    czk_g2_affine ns;
    non_subgroup_g2(&ns);
    buf b = {0};
    b_g2_mont(&b, &ns);
    memcpy(s[7].data.p + 5 * 192, b.p, 192);
    b_free(&b);
}
static void ed_alpha_not_subgroup(section s[11])
{
    czk_g1_affine ns;
    non_subgroup_g1(&ns);
    buf b = {0};
    b_g1_mont(&b, &ns);
    memcpy(s[2].data.p + 100, b.p, 96);
    b_free(&b);
}
static void ed_delta2_infinity(section s[11])
{
    memset(s[2].data.p + 772, 0, 192);
}
static void ed_coef_value(section s[11])
{
    BIGNUM *r = bn_hex(R_HEX);
    BN_bn2lebinpad(r, s[4].data.p + 4 + 3 * 44 + 12, 32); /* entry 3 value = r */
    BN_free(r);
}
static void ed_coef_row(section s[11])
{
    czk__st32le(s[4].data.p + 4 + 5 * 44 + 4, 8);
}
static void ed_coef_matrix(section s[11])
{
    czk__st32le(s[4].data.p + 4 + 1 * 44, 2);
}
static void ed_coef_signal(section s[11])
{
    czk__st32le(s[4].data.p + 4 + 6 * 44 + 8, 6);
}
static void ed_coef_count(section s[11])
{
    czk__st32le(s[4].data.p, 8);
}
static void ed_c_short(section s[11])
{
    s[8].data.n -= 96;
}
static void ed_ic_short(section s[11])
{
    s[3].data.n -= 1;
}
static void ed_ic_off_curve(section s[11])
{
    s[3].data.p[96 + 50] ^= 1;
}

static void test_zkey_bad(void)
{
    zk_fixture z;
    zk_fixture_make(&z);
    zk_expect(&z, NULL, true, CZK_OK, "");
    zk_expect(&z, ed_protocol, false, CZK_EUNSUPPORTED, "protocol 2 (PLONK)");
    zk_expect(&z, ed_nvars, false, CZK_EFORMAT, "section 5 (A) is 576 bytes; nVars = 7");
    zk_expect(&z, ed_npublic, false, CZK_EFORMAT, "nPublic 6");
    zk_expect(&z, ed_domain, false, CZK_EFORMAT, "domainSize 6");
    zk_expect(&z, ed_domain16, false, CZK_EFORMAT, "section 9 (H)");
    zk_expect(&z, ed_a_off_curve, false, CZK_ENOTONCURVE, "section 5 (A) point 3: ");
    zk_expect(&z, ed_h_noncanonical, false, CZK_ENONCANONICAL, "section 9 (H) point 7");
    zk_expect(&z, ed_b1_not_subgroup, true, CZK_ENOTINSUBGROUP, "section 6 (B1) point 2");
    zk_expect(&z, ed_b2_not_subgroup, true, CZK_ENOTINSUBGROUP, "section 7 (B2) point 5");
    zk_expect(&z, ed_b1_not_subgroup, false, CZK_OK, "");
    zk_expect(&z, ed_alpha_not_subgroup, false, CZK_ENOTINSUBGROUP, "alpha1");
    zk_expect(&z, ed_delta2_infinity, false, CZK_EINFINITY, "delta2");
    zk_expect(&z, ed_coef_value, false, CZK_ENONCANONICAL, "section 4 (coefficients) entry 3");
    zk_expect(&z, ed_coef_row, false, CZK_EFORMAT, "entry 5");
    zk_expect(&z, ed_coef_matrix, false, CZK_EFORMAT, "entry 1: matrix 2");
    zk_expect(&z, ed_coef_signal, false, CZK_EFORMAT, "signal 6");
    zk_expect(&z, ed_coef_count, false, CZK_EFORMAT, "nCoef = 8");
    zk_expect(&z, ed_c_short, false, CZK_EFORMAT, "section 8 (C)");
    zk_expect(&z, ed_ic_short, false, CZK_EFORMAT, "section 3 (IC)");
    zk_expect(&z, ed_ic_off_curve, false, CZK_ENOTONCURVE, "section 3 (IC) point 1");

    /* Container-level problems. */
    section s[11];
    zk_sections(s, &z, P_HEX, 48);
    buf img;
    zk_image(&img, s, setup_order, 10);
    const char *f = tpath("bad.zkey");
    czk_groth16_params p;
    czk_r1cs ab;
    for (size_t len = 0; len < img.n; len++) {
        write_file(f, img.p, len);
        CHECK_ERR(czk_zkey_read_file(&p, &ab, f, ERR), CZK_ETRUNCATED, "bad.zkey");
    }
    memcpy(img.p, "ptau", 4);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_zkey_read_file(&p, &ab, f, ERR), CZK_EFORMAT, "magic");
    memcpy(img.p, "zkey", 4);
    img.p[4] = 2;
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_zkey_read_file(&p, &ab, f, ERR), CZK_EUNSUPPORTED, "version 2");
    b_free(&img);
    static const int dup[11] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10, 8};
    write_zkey(f, s, dup, 11);
    CHECK_ERR(czk_zkey_read_file(&p, &ab, f, ERR), CZK_EFORMAT, "duplicate section 8 (C)");
    static const int miss[9] = {1, 2, 4, 3, 8, 5, 6, 7, 10};
    write_zkey(f, s, miss, 9);
    CHECK_ERR(czk_zkey_read_file(&p, &ab, f, ERR), CZK_EFORMAT, "missing section 9 (H)");
    /* A section size near 2^64: must not wrap the bounds check. */
    zk_image(&img, s, setup_order, 10);
    czk__st64le(img.p + 16, UINT64_MAX - 4);
    write_file(f, img.p, img.n);
    CHECK_ERR(czk_zkey_read_file(&p, &ab, f, ERR), CZK_ETRUNCATED, "section 1 (header)");
    b_free(&img);
    free_sections(s, 11);

    /* A BN254 zkey header (32-byte q). */
    zk_sections(s, &z, BN254_Q_HEX, 32);
    write_zkey(f, s, setup_order, 10);
    CHECK_ERR(czk_zkey_read_file(&p, &ab, f, ERR), CZK_EUNSUPPORTED, "BN254");
    free_sections(s, 11);
}

/* ------------------------------------------------------------------------------------ */
/* JSON                                                                                 */
/* ------------------------------------------------------------------------------------ */

static char *fp_dec_bn(const czk_fp *a)
{
    BIGNUM *x = fp_bn(a);
    char *d = BN_bn2dec(x);
    BN_free(x);
    return d;
}

static void test_json_proof(void)
{
    czk_groth16_proof p, q;
    rand_g1(&p.a);
    rand_g2(&p.b);
    p.c = CZK_G1_GENERATOR;
    const char *f = tpath("proof.json");
    CHECK_STATUS(czk_snarkjs_proof_write_json(&p, f, NULL), CZK_OK);
    CHECK_STATUS(czk_snarkjs_proof_read_json(&q, f, NULL), CZK_OK);
    CHECK(czk_g1_affine_eq(&p.a, &q.a) && czk_g2_affine_eq(&p.b, &q.b) &&
          czk_g1_affine_eq(&p.c, &q.c));

    /* The file's numbers are BN_bn2dec's decimals; the layout is snarkjs's. */
    json_t *j = json_load_file(f, 0, NULL);
    CHECK(j != NULL);
    BIGNUM *gx = NULL;
    uint8_t gxb[48];
    hex_to_bytes(gxb, G1_COMPRESSED_HEX, 48);
    gxb[0] &= 0x1f;
    gx = BN_bin2bn(gxb, 48, NULL);
    char *gxd = BN_bn2dec(gx);
    CHECK(strcmp(json_string_value(json_array_get(json_object_get(j, "pi_c"), 0)), gxd) == 0);
    CHECK(strcmp(json_string_value(json_array_get(json_object_get(j, "pi_c"), 2)), "1") == 0);
    char *bx1 = fp_dec_bn(&p.b.x.c1);
    json_t *pib = json_object_get(j, "pi_b");
    CHECK(strcmp(json_string_value(json_array_get(json_array_get(pib, 0), 1)), bx1) == 0);
    CHECK(strcmp(json_string_value(json_array_get(json_array_get(pib, 2), 0)), "1") == 0 &&
          strcmp(json_string_value(json_array_get(json_array_get(pib, 2), 1)), "0") == 0);
    CHECK(strcmp(json_string_value(json_object_get(j, "protocol")), "groth16") == 0);
    CHECK(strcmp(json_string_value(json_object_get(j, "curve")), "bls12381") == 0);
    OPENSSL_free(bx1);
    OPENSSL_free(gxd);
    BN_free(gx);

    /* Jacobian input (z = 2: X = 4x, Y = 8y) is read as snarkjs reads it. */
    czk_fp two, four, eight, X, Y;
    czk_fp_from_u64(&two, 2);
    czk_fp_from_u64(&four, 4);
    czk_fp_from_u64(&eight, 8);
    czk_fp_mul(&X, &p.a.x, &four);
    czk_fp_mul(&Y, &p.a.y, &eight);
    char *xd = fp_dec_bn(&X), *yd = fp_dec_bn(&Y);
    json_t *pia = json_pack("[s,s,s]", xd, yd, "2");
    json_object_set_new(j, "pi_a", pia);
    /* Infinity in the snarkjs forms. */
    json_object_set_new(j, "pi_c", json_pack("[s,s,s]", "0", "1", "0"));
    json_dump_file(j, f, 0);
    CHECK_STATUS(czk_snarkjs_proof_read_json(&q, f, NULL), CZK_OK);
    CHECK(czk_g1_affine_eq(&q.a, &p.a) && czk_g1_affine_is_inf(&q.c));
    OPENSSL_free(xd);
    OPENSSL_free(yd);
    /* ... which is also what the writer emits for infinity. */
    czk_groth16_proof inf;
    memset(&inf, 0, sizeof inf);
    CHECK_STATUS(czk_snarkjs_proof_write_json(&inf, tpath("inf.json"), NULL), CZK_OK);
    json_t *ji = json_load_file(tpath("inf.json"), 0, NULL);
    char *s = json_dumps(json_object_get(ji, "pi_b"), JSON_COMPACT);
    CHECK(s != NULL && strcmp(s, "[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]") == 0);
    free(s);
    s = json_dumps(json_object_get(ji, "pi_a"), JSON_COMPACT);
    CHECK(s != NULL && strcmp(s, "[\"0\",\"1\",\"0\"]") == 0);
    free(s);
    json_decref(ji);

    /* Bad proofs. */
    json_t *bad = json_deep_copy(j);
    json_object_del(bad, "pi_b");
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_EFORMAT, "pi_b: missing");
    json_decref(bad);
    bad = json_deep_copy(j);
    json_object_set_new(bad, "curve", json_string("bn128"));
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_EUNSUPPORTED, "BN254");
    json_decref(bad);
    bad = json_deep_copy(j);
    json_object_set_new(bad, "pi_a", json_pack("[s,s,s]", "1", "2", "1"));
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_ENOTONCURVE, "pi_a");
    json_decref(bad);
    /* (0, 0) with z = 1 is not the identity. */
    bad = json_deep_copy(j);
    json_object_set_new(bad, "pi_a", json_pack("[s,s,s]", "0", "0", "1"));
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_ENOTONCURVE, "pi_a");
    json_decref(bad);
    char *pd = NULL;
    {
        BIGNUM *pp = bn_hex(P_HEX);
        pd = BN_bn2dec(pp);
        BN_free(pp);
    }
    bad = json_deep_copy(j);
    json_object_set_new(bad, "pi_a", json_pack("[s,s,s]", pd, "2", "1"));
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_ENONCANONICAL, "pi_a[0]");
    json_decref(bad);
    OPENSSL_free(pd);
    bad = json_deep_copy(j);
    json_object_set_new(bad, "pi_a", json_pack("[s,i,s]", "1", 2, "1"));
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_EFORMAT, "pi_a[1]: expected a decimal");
    json_decref(bad);
    bad = json_deep_copy(j);
    json_array_set_new(json_array_get(json_object_get(bad, "pi_b"), 1), 0, json_string("0x12"));
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_EFORMAT, "pi_b[1][0]");
    json_decref(bad);
    czk_g1_affine ns;
    non_subgroup_g1(&ns);
    char *nx = fp_dec_bn(&ns.x), *ny = fp_dec_bn(&ns.y);
    bad = json_deep_copy(j);
    json_object_set_new(bad, "pi_c", json_pack("[s,s,s]", nx, ny, "1"));
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_ENOTINSUBGROUP, "pi_c");
    json_decref(bad);
    OPENSSL_free(nx);
    OPENSSL_free(ny);
    json_decref(j);

    write_file(f, "{\"pi_a\": [", 10);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_EFORMAT, "invalid JSON");
    write_file(f, "[1,2]", 5);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_EFORMAT, "object");
    write_file(f, "{\"pi_a\":1,\"pi_a\":2}", 19);
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, f, ERR), CZK_EFORMAT, "invalid JSON");
    CHECK_ERR(czk_snarkjs_proof_read_json(&q, tpath("none.json"), ERR), CZK_ENOENT, "none.json");
}

static void test_json_public(void)
{
    /* Values at the edges and random ones; decimals compared with BN_bn2dec. */
    czk_fr v[6], *back;
    size_t n;
    v[0] = CZK_FR_ZERO;
    v[1] = CZK_FR_ONE;
    czk_fr_neg(&v[2], &CZK_FR_ONE); /* r − 1 */
    czk_fr_from_u64(&v[3], 10000000000000000000ULL);
    czk_test_rand_fr(&v[4]);
    czk_test_rand_fr(&v[5]);
    const char *f = tpath("public.json");
    CHECK_STATUS(czk_snarkjs_public_write_json(v, 6, f, NULL), CZK_OK);
    CHECK_STATUS(czk_snarkjs_public_read_json(&back, &n, f, NULL), CZK_OK);
    CHECK(n == 6 && memcmp(back, v, sizeof v) == 0);
    czk_free(back);
    json_t *j = json_load_file(f, 0, NULL);
    CHECK(json_is_array(j) && json_array_size(j) == 6);
    for (size_t i = 0; i < 6 && json_array_size(j) == 6; i++) {
        uint8_t be[32];
        czk_fr_to_bytes_be(be, &v[i]);
        BIGNUM *x = BN_bin2bn(be, 32, NULL);
        char *d = BN_bn2dec(x);
        CHECK_MSG(strcmp(json_string_value(json_array_get(j, i)), d) == 0, "%s vs %s",
                  json_string_value(json_array_get(j, i)), d);
        OPENSSL_free(d);
        BN_free(x);
    }
    json_decref(j);

    /* docs/formats.md §9.6's example; leading zeros are still decimal. */
    write_file(f, "[\"165\", \"0005\"]", 15);
    CHECK_STATUS(czk_snarkjs_public_read_json(&back, &n, f, NULL), CZK_OK);
    czk_fr w165, w5;
    czk_fr_from_u64(&w165, 165);
    czk_fr_from_u64(&w5, 5);
    CHECK(n == 2 && czk_fr_eq(&back[0], &w165) && czk_fr_eq(&back[1], &w5));
    czk_free(back);
    write_file(f, "[]", 2);
    CHECK_STATUS(czk_snarkjs_public_read_json(&back, &n, f, NULL), CZK_OK);
    CHECK(n == 0 && back == NULL);

    /* r itself, a 2^256-sized number, non-decimal text, a number, a sign, not an array. */
    char text[400];
    snprintf(text, sizeof text,
             "[\"1\", "
             "\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]");
    write_file(f, text, strlen(text));
    CHECK_ERR(czk_snarkjs_public_read_json(&back, &n, f, ERR), CZK_ENONCANONICAL, "public[1]");
    snprintf(text, sizeof text, "[\"%s\"]",
             "115792089237316195423570985008687907853269984665640564039457584007913129639936");
    write_file(f, text, strlen(text));
    CHECK_ERR(czk_snarkjs_public_read_json(&back, &n, f, ERR), CZK_ENONCANONICAL, "public[0]");
    static const char *const bad_text[] = {"[\"12a\"]", "[\"\"]", "[\"-1\"]", "[\" 1\"]",
                                           "[\"1e3\"]", "[7]",    "{\"a\":1}"};
    static const char *const needle[] = {"public[0]", "public[0]", "public[0]", "public[0]",
                                         "public[0]", "public[0]", "array"};
    for (size_t i = 0; i < sizeof bad_text / sizeof *bad_text; i++) {
        write_file(f, bad_text[i], strlen(bad_text[i]));
        CHECK_ERR(czk_snarkjs_public_read_json(&back, &n, f, ERR), CZK_EFORMAT, needle[i]);
        CHECK(back == NULL && n == 0);
    }
}

static void test_json_vk(void)
{
    czk_groth16_vk vk = {0}, back;
    make_vk(&vk, 3);
    memset(&vk.ic[1], 0, sizeof vk.ic[1]); /* infinity survives the round trip */
    const char *f = tpath("verification_key.json");
    CHECK_STATUS(czk_snarkjs_vk_write_json(&vk, f, NULL), CZK_OK);
    CHECK_STATUS(czk_snarkjs_vk_read_json(&back, f, NULL), CZK_OK);
    CHECK(vk_eq(&vk, &back, false));
    CHECK(czk_g1_affine_is_inf(&back.beta_g1) && czk_g1_affine_is_inf(&back.delta_g1));
    czk_groth16_vk_free(&back);

    json_t *j = json_load_file(f, 0, NULL);
    CHECK(json_integer_value(json_object_get(j, "nPublic")) == 2);
    CHECK(json_array_size(json_object_get(j, "IC")) == 3);
    json_t *bad = json_deep_copy(j);
    json_object_set_new(bad, "nPublic", json_integer(3));
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_vk_read_json(&back, f, ERR), CZK_EFORMAT, "nPublic");
    json_decref(bad);
    bad = json_deep_copy(j);
    json_object_del(bad, "vk_delta_2");
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_vk_read_json(&back, f, ERR), CZK_EFORMAT, "vk_delta_2: missing");
    json_decref(bad);
    bad = json_deep_copy(j);
    json_array_set_new(json_object_get(bad, "IC"), 2, json_pack("[s,s,s]", "3", "4", "1"));
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_vk_read_json(&back, f, ERR), CZK_ENOTONCURVE, "IC[2]");
    CHECK(back.ic == NULL);
    json_decref(bad);
    bad = json_deep_copy(j);
    json_object_set_new(bad, "IC", json_array());
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_vk_read_json(&back, f, ERR), CZK_EFORMAT, "IC");
    json_decref(bad);
    bad = json_deep_copy(j);
    json_object_set_new(bad, "protocol", json_string("plonk"));
    json_dump_file(bad, f, 0);
    CHECK_ERR(czk_snarkjs_vk_read_json(&back, f, ERR), CZK_EUNSUPPORTED, "protocol");
    json_decref(bad);
    json_decref(j);
    czk_groth16_vk_free(&vk);
}

/* ------------------------------------------------------------------------------------ */

int main(void)
{
    czk_test_seed();
    bnctx = BN_CTX_new();
    bn_p = bn_hex(P_HEX);
    bn_r = bn_hex(R_HEX);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/czk_formats_XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    if (czk_pool_create(&pool, 4, NULL) != CZK_OK) return 1;

    RUN(test_proof_known_answer);
    RUN(test_proof_roundtrip);
    RUN(test_proof_bad);
    RUN(test_vk_size_known_answer);
    RUN(test_vk_roundtrip);
    RUN(test_vk_bad);
    RUN(test_params_roundtrip);
    RUN(test_params_bad);
    RUN(test_params_first_error_parallel);
    RUN(test_params_file_ranges);
    RUN(test_r1cs_tiny_image);
    RUN(test_r1cs_roundtrip);
    RUN(test_r1cs_bad);
    RUN(test_wtns);
    RUN(test_wtns_decode);
    RUN(test_zkey_generator_bytes);
    RUN(test_zkey_read);
    RUN(test_zkey_bad);
    RUN(test_json_proof);
    RUN(test_json_public);
    RUN(test_json_vk);

    czk_pool_destroy(pool);
    cleanup_tmpdir();
    BN_free(bn_p);
    BN_free(bn_r);
    BN_CTX_free(bnctx);
    return czk_test_finish();
}
