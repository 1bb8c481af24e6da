/*
 * The safegcd inversion (src/ff/inverse.c) against OpenSSL's BN_mod_inverse on random and
 * adversarial inputs: 0, 1, m − 1, powers of two, values with long runs of zero or one
 * bits (which drive the variable-time loop through its longest runs), small values and
 * values just below m. Also the Montgomery-form wrappers czk_fp_inv / czk_fr_inv, and,
 * when built, the adx multiplication on the inputs that stress its final subtraction.
 */
#include "czk/bls12_381.h"
#include "czk_test.h"
#include "ff/ff_internal.h"
#include "ff/inverse.h"

#include <openssl/bn.h>

static BN_CTX *ctx;

static BIGNUM *bn_from_limbs(const uint64_t *l, int n)
{
    uint8_t be[48];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) be[8 * (n - 1 - i) + j] = (uint8_t)(l[i] >> (56 - 8 * j));
    return BN_bin2bn(be, 8 * n, NULL);
}

static void limbs_from_bn(uint64_t *l, int n, const BIGNUM *b)
{
    uint8_t be[48];
    CHECK(BN_bn2binpad(b, be, 8 * n) == 8 * n);
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int j = 0; j < 8; j++) w = (w << 8) | be[8 * (n - 1 - i) + j];
        l[i] = w;
    }
}

/* Input number i for modulus m (n limbs): a mix of edge patterns and random values, all
 * reduced below m. */
static void pick(uint64_t *x, int n, const uint64_t *m, long i, BIGNUM *bm)
{
    int kind = (int)(i % 12);
    memset(x, 0, sizeof(uint64_t) * (size_t)n);
    switch (kind) {
    case 0: x[0] = (uint64_t)(i / 12) + 1; break;                  /* small */
    case 1: x[(i / 12) % n] = (uint64_t)1 << ((i / 12) % 64); break; /* power of two */
    case 2: /* m − small */
        memcpy(x, m, sizeof(uint64_t) * (size_t)n);
        x[0] -= (uint64_t)(i / 12) % 1000 + 1;
        break;
    case 3: /* long runs: random limbs masked to 0 or all ones */
        for (int j = 0; j < n; j++) {
            uint64_t r = czk_test_rand64();
            x[j] = (r & 1) ? ~(uint64_t)0 : 0;
            x[j] ^= czk_test_rand64() & czk_test_rand64() & czk_test_rand64() & 0xff;
        }
        break;
    case 4: /* one random limb, rest zero */
        x[(i / 12) % n] = czk_test_rand64();
        break;
    default:
        for (int j = 0; j < n; j++) x[j] = czk_test_rand64();
    }
    /* Reduce below m through BIGNUM. */
    BIGNUM *b = bn_from_limbs(x, n);
    BN_nnmod(b, b, bm, ctx);
    limbs_from_bn(x, n, b);
    BN_free(b);
}

static void check_field(int n, const uint64_t *m, bool (*inv)(uint64_t *, const uint64_t *),
                        long iters)
{
    BIGNUM *bm = bn_from_limbs(m, n);
    uint64_t x[6], got[6], want[6];
    for (long i = -1; i < iters; i++) {
        if (i < 0)
            memset(x, 0, sizeof x); /* zero maps to zero */
        else
            pick(x, n, m, i, bm);
        memset(got, 0xa5, sizeof got);
        bool ok = inv(got, x);
        CHECK(ok);
        BIGNUM *bx = bn_from_limbs(x, n);
        if (BN_is_zero(bx)) {
            memset(want, 0, sizeof want);
        } else {
            BIGNUM *bi = BN_mod_inverse(NULL, bx, bm, ctx);
            CHECK(bi != NULL);
            limbs_from_bn(want, n, bi);
            BN_free(bi);
        }
        BN_free(bx);
        CHECK_MSG(memcmp(got, want, sizeof(uint64_t) * (size_t)n) == 0, "input %ld (kind %ld)",
                  i, i % 12);
    }
    BN_free(bm);
}

static bool fp_inv_fn(uint64_t *o, const uint64_t *x) { return czk__fp_inv_safegcd(o, x); }
static bool fr_inv_fn(uint64_t *o, const uint64_t *x) { return czk__fr_inv_safegcd(o, x); }

static void test_fp_safegcd(void) { check_field(6, CZK_FP_MODULUS, fp_inv_fn, 30000); }
static void test_fr_safegcd(void) { check_field(4, CZK_FR_MODULUS, fr_inv_fn, 30000); }

/* The public Montgomery wrappers: a·a^-1 = 1, and 0 ↦ 0. */
static void test_wrappers(void)
{
    czk_fp z;
    czk_fp_inv(&z, &CZK_FP_ZERO);
    CHECK(czk_fp_is_zero(&z));
    czk_fr zr;
    czk_fr_inv(&zr, &CZK_FR_ZERO);
    CHECK(czk_fr_is_zero(&zr));
    for (int i = 0; i < 3000; i++) {
        uint8_t w[64];
        czk_test_rand_bytes(w, 64);
        czk_fp a, b, c;
        czk_fp_from_wide_bytes(&a, w);
        if (i == 0) a = CZK_FP_ONE;
        if (i == 1) czk_fp_neg(&a, &CZK_FP_ONE);
        czk_fp_inv(&b, &a);
        czk_fp_mul(&c, &a, &b);
        CHECK(czk_fp_is_one(&c) || czk_fp_is_zero(&a));
        czk_fr x, y, t;
        czk_fr_from_wide_bytes(&x, w);
        if (i == 0) x = CZK_FR_ONE;
        if (i == 1) czk_fr_neg(&x, &CZK_FR_ONE);
        czk_fr_inv(&y, &x);
        czk_fr_mul(&t, &x, &y);
        CHECK(czk_fr_is_one(&t) || czk_fr_is_zero(&x));
    }
}

/*
 * adx multiplication on operands near the modulus (canonical m − small, in Montgomery
 * form), where the product before the final subtraction is closest to 2m, against
 * BIGNUM directly (a·b·R^-1 mod m on the raw limbs), plus aliasing out = a = b.
 */
static void test_adx_edges(void)
{
#if defined(CZK_FF_ADX)
    BIGNUM *bp = bn_from_limbs(CZK_FP_MODULUS, 6), *br = bn_from_limbs(CZK_FR_MODULUS, 4);
    BIGNUM *Rp = BN_new(), *Rr = BN_new(), *t = BN_new();
    BN_set_bit(t, 384);
    BN_mod_inverse(Rp, t, bp, ctx); /* 2^-384 mod p */
    BN_zero(t);
    BN_set_bit(t, 256);
    BN_mod_inverse(Rr, t, br, ctx); /* 2^-256 mod r */
    for (long i = 0; i < 20000; i++) {
        czk_fp a, b, c;
        pick(a.l, 6, CZK_FP_MODULUS, i, bp);
        pick(b.l, 6, CZK_FP_MODULUS, i * 7 + 2, bp);
        czk__fp_mul_adx(&c, &a, &b);
        BIGNUM *x = bn_from_limbs(a.l, 6), *y = bn_from_limbs(b.l, 6), *z = BN_new();
        BN_mod_mul(z, x, y, bp, ctx);
        BN_mod_mul(z, z, Rp, bp, ctx);
        uint64_t want[6];
        limbs_from_bn(want, 6, z);
        CHECK_MSG(memcmp(c.l, want, sizeof want) == 0, "fp mul input %ld", i);
        czk_fp s = a;
        czk__fp_sqr_adx(&s, &s); /* out aliases a */
        BN_mod_mul(z, x, x, bp, ctx);
        BN_mod_mul(z, z, Rp, bp, ctx);
        limbs_from_bn(want, 6, z);
        CHECK_MSG(memcmp(s.l, want, sizeof want) == 0, "fp sqr input %ld", i);
        BN_free(x), BN_free(y), BN_free(z);

        czk_fr u, v, w;
        pick(u.l, 4, CZK_FR_MODULUS, i, br);
        pick(v.l, 4, CZK_FR_MODULUS, i * 7 + 2, br);
        w = u;
        czk__fr_mul_adx(&w, &w, &v); /* out aliases a */
        x = bn_from_limbs(u.l, 4), y = bn_from_limbs(v.l, 4), z = BN_new();
        BN_mod_mul(z, x, y, br, ctx);
        BN_mod_mul(z, z, Rr, br, ctx);
        uint64_t wr[4];
        limbs_from_bn(wr, 4, z);
        CHECK_MSG(memcmp(w.l, wr, sizeof wr) == 0, "fr mul input %ld", i);
        czk_fr s2 = u;
        czk__fr_sqr_adx(&s2, &s2);
        BN_mod_mul(z, x, x, br, ctx);
        BN_mod_mul(z, z, Rr, br, ctx);
        limbs_from_bn(wr, 4, z);
        CHECK_MSG(memcmp(s2.l, wr, sizeof wr) == 0, "fr sqr input %ld", i);
        BN_free(x), BN_free(y), BN_free(z);
    }
    BN_free(bp), BN_free(br), BN_free(Rp), BN_free(Rr), BN_free(t);
#else
    printf("  (adx back end not built)\n");
#endif
}

int main(void)
{
    czk_test_seed();
    ctx = BN_CTX_new();
    RUN(test_fp_safegcd);
    RUN(test_fr_safegcd);
    RUN(test_wrappers);
    RUN(test_adx_edges);
    BN_CTX_free(ctx);
    return czk_test_finish();
}
