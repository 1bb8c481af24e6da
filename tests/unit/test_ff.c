/*
 * Fp and Fr against OpenSSL's BIGNUM (an independent big-integer implementation) on fresh
 * random inputs: add, sub, neg, mul, sqr, inverse, batch inverse, pow, sqrt, Legendre,
 * byte conversions; and the portable and mulx/adx back ends against each other.
 */
#include "czk/bls12_381.h"
#include "czk_test.h"
#include "czk_test_fr.h"
#include "ff/ff_internal.h"

#include <openssl/bn.h>

#define ITERS 2000

static BN_CTX *ctx;
static BIGNUM *bn_p, *bn_r;

static BIGNUM *fp_to_bn(const czk_fp *a)
{
    uint8_t b[48];
    czk_fp_to_bytes_be(b, a);
    return BN_bin2bn(b, 48, NULL);
}

static BIGNUM *fr_to_bn(const czk_fr *a)
{
    uint8_t b[32];
    czk_fr_to_bytes_be(b, a);
    return BN_bin2bn(b, 32, NULL);
}

static void rand_fp(czk_fp *a)
{
    uint8_t w[64];
    czk_test_rand_bytes(w, 64);
    czk_fp_from_wide_bytes(a, w);
}

/* Edge values mixed into the random stream: 0, 1, p-1, small, large. */
static void pick_fp(czk_fp *a, int i)
{
    switch (i % 17) {
    case 0: *a = CZK_FP_ZERO; break;
    case 1: *a = CZK_FP_ONE; break;
    case 2: czk_fp_neg(a, &CZK_FP_ONE); break;
    case 3: czk_fp_from_u64(a, 2); break;
    default: rand_fp(a);
    }
}

static void pick_fr(czk_fr *a, int i)
{
    switch (i % 17) {
    case 0: *a = CZK_FR_ZERO; break;
    case 1: *a = CZK_FR_ONE; break;
    case 2: czk_fr_neg(a, &CZK_FR_ONE); break;
    case 3: czk_fr_from_u64(a, 2); break;
    default: czk_test_rand_fr(a);
    }
}

static bool bn_eq_fp(const BIGNUM *x, const czk_fp *a)
{
    BIGNUM *y = fp_to_bn(a);
    bool eq = BN_cmp(x, y) == 0;
    BN_free(y);
    return eq;
}

static bool bn_eq_fr(const BIGNUM *x, const czk_fr *a)
{
    BIGNUM *y = fr_to_bn(a);
    bool eq = BN_cmp(x, y) == 0;
    BN_free(y);
    return eq;
}

static void test_fp_vs_bignum(void)
{
    BIGNUM *t = BN_new(), *e = BN_new();
    for (int i = 0; i < ITERS; i++) {
        czk_fp a, b, c;
        pick_fp(&a, i);
        pick_fp(&b, i / 17 + 5);
        BIGNUM *x = fp_to_bn(&a), *y = fp_to_bn(&b);
        CHECK(BN_cmp(x, bn_p) < 0);
        czk_fp_add(&c, &a, &b);
        BN_mod_add(t, x, y, bn_p, ctx);
        CHECK(bn_eq_fp(t, &c));
        czk_fp_sub(&c, &a, &b);
        BN_mod_sub(t, x, y, bn_p, ctx);
        CHECK(bn_eq_fp(t, &c));
        czk_fp_mul(&c, &a, &b);
        BN_mod_mul(t, x, y, bn_p, ctx);
        CHECK(bn_eq_fp(t, &c));
        czk_fp_sqr(&c, &a);
        BN_mod_sqr(t, x, bn_p, ctx);
        CHECK(bn_eq_fp(t, &c));
        czk_fp_neg(&c, &a);
        BN_mod_sub(t, bn_p, x, bn_p, ctx);
        CHECK(bn_eq_fp(t, &c));
        czk_fp_dbl(&c, &a);
        BN_mod_add(t, x, x, bn_p, ctx);
        CHECK(bn_eq_fp(t, &c));
        if (i % 8 == 0) {
            czk_fp_inv(&c, &a);
            if (BN_is_zero(x)) {
                CHECK(czk_fp_is_zero(&c));
            } else {
                BN_mod_inverse(t, x, bn_p, ctx);
                CHECK(bn_eq_fp(t, &c));
            }
            uint64_t ex[2] = {czk_test_rand64(), czk_test_rand64()};
            czk_fp_pow(&c, &a, ex, 2);
            uint8_t eb[16];
            for (int k = 0; k < 16; k++) eb[15 - k] = (uint8_t)(ex[k / 8] >> (8 * (k % 8)));
            BN_bin2bn(eb, 16, e);
            BN_mod_exp(t, x, e, bn_p, ctx);
            CHECK(bn_eq_fp(t, &c));
            /* Legendre against Euler's criterion computed by BIGNUM. */
            BN_sub(e, bn_p, BN_value_one());
            BN_rshift1(e, e);
            BN_mod_exp(t, x, e, bn_p, ctx);
            int want = BN_is_zero(x) ? 0 : (BN_is_one(t) ? 1 : -1);
            CHECK(czk_fp_legendre(&a) == want);
            czk_fp s;
            bool ok = czk_fp_sqrt(&s, &a);
            CHECK(ok == (want >= 0));
            if (ok) {
                czk_fp s2;
                czk_fp_sqr(&s2, &s);
                CHECK(czk_fp_eq(&s2, &a));
            }
        }
        /* Byte round trips, both endiannesses. */
        uint8_t be[48], le[48];
        czk_fp_to_bytes_be(be, &a);
        czk_fp_to_bytes_le(le, &a);
        for (int k = 0; k < 48; k++) CHECK(be[k] == le[47 - k]);
        czk_fp back;
        CHECK(czk_fp_from_bytes_be(&back, be) && czk_fp_eq(&back, &a));
        CHECK(czk_fp_from_bytes_le(&back, le) && czk_fp_eq(&back, &a));
        /* Lex-largest matches a > (p-1)/2. */
        BN_sub(e, bn_p, BN_value_one());
        BN_rshift1(e, e);
        CHECK(czk_fp_is_lex_largest(&a) == (BN_cmp(x, e) > 0));
        BN_free(x);
        BN_free(y);
    }
    BN_free(t);
    BN_free(e);
}

static void test_fr_vs_bignum(void)
{
    BIGNUM *t = BN_new(), *e = BN_new();
    for (int i = 0; i < ITERS; i++) {
        czk_fr a, b, c;
        pick_fr(&a, i);
        pick_fr(&b, i / 17 + 5);
        BIGNUM *x = fr_to_bn(&a), *y = fr_to_bn(&b);
        CHECK(BN_cmp(x, bn_r) < 0);
        czk_fr_add(&c, &a, &b);
        BN_mod_add(t, x, y, bn_r, ctx);
        CHECK(bn_eq_fr(t, &c));
        czk_fr_sub(&c, &a, &b);
        BN_mod_sub(t, x, y, bn_r, ctx);
        CHECK(bn_eq_fr(t, &c));
        czk_fr_mul(&c, &a, &b);
        BN_mod_mul(t, x, y, bn_r, ctx);
        CHECK(bn_eq_fr(t, &c));
        czk_fr_sqr(&c, &a);
        BN_mod_sqr(t, x, bn_r, ctx);
        CHECK(bn_eq_fr(t, &c));
        czk_fr_neg(&c, &a);
        BN_mod_sub(t, bn_r, x, bn_r, ctx);
        CHECK(bn_eq_fr(t, &c));
        if (i % 8 == 0) {
            czk_fr_inv(&c, &a);
            if (BN_is_zero(x)) {
                CHECK(czk_fr_is_zero(&c));
            } else {
                BN_mod_inverse(t, x, bn_r, ctx);
                CHECK(bn_eq_fr(t, &c));
            }
            BN_sub(e, bn_r, BN_value_one());
            BN_rshift1(e, e);
            BN_mod_exp(t, x, e, bn_r, ctx);
            int want = BN_is_zero(x) ? 0 : (BN_is_one(t) ? 1 : -1);
            CHECK(czk_fr_legendre(&a) == want);
            czk_fr s;
            bool ok = czk_fr_sqrt(&s, &a);
            CHECK(ok == (want >= 0));
            if (ok) {
                czk_fr s2;
                czk_fr_sqr(&s2, &s);
                CHECK(czk_fr_eq(&s2, &a));
            }
        }
        uint8_t le[32], be[32];
        czk_fr_to_bytes_le(le, &a);
        czk_fr_to_bytes_be(be, &a);
        for (int k = 0; k < 32; k++) CHECK(be[k] == le[31 - k]);
        czk_fr back;
        CHECK(czk_fr_from_bytes_le(&back, le) && czk_fr_eq(&back, &a));
        BN_free(x);
        BN_free(y);
    }
    BN_free(t);
    BN_free(e);
}

static void test_wide_reduction(void)
{
    BIGNUM *t = BN_new();
    for (int i = 0; i < 500; i++) {
        uint8_t w[64], wbe[64];
        czk_test_rand_bytes(w, 64);
        if (i == 0) memset(w, 0xff, 64);
        for (int k = 0; k < 64; k++) wbe[k] = w[63 - k];
        BIGNUM *x = BN_bin2bn(wbe, 64, NULL);
        czk_fp a;
        czk_fp_from_wide_bytes(&a, w);
        BN_nnmod(t, x, bn_p, ctx);
        CHECK(bn_eq_fp(t, &a));
        czk_fr b;
        czk_fr_from_wide_bytes(&b, w);
        BN_nnmod(t, x, bn_r, ctx);
        CHECK(bn_eq_fr(t, &b));
        BN_free(x);
    }
    BN_free(t);
}

static void test_noncanonical_rejected(void)
{
    uint8_t b[48];
    uint64_t l[6];
    memcpy(l, CZK_FP_MODULUS, sizeof l);
    for (int k = 0; k < 6; k++)
        for (int j = 0; j < 8; j++) b[47 - 8 * k - j] = (uint8_t)(l[k] >> (8 * j));
    czk_fp a;
    CHECK(!czk_fp_from_bytes_be(&a, b)); /* p itself */
    b[47] -= 1;
    CHECK(czk_fp_from_bytes_be(&a, b)); /* p - 1 */
    memset(b, 0xff, 48);
    CHECK(!czk_fp_from_bytes_be(&a, b));
    uint8_t r[32];
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 8; j++) r[8 * k + j] = (uint8_t)(CZK_FR_MODULUS[k] >> (8 * j));
    czk_fr s;
    CHECK(!czk_fr_from_bytes_le(&s, r));
    r[0] -= 1;
    CHECK(czk_fr_from_bytes_le(&s, r));
}

static void test_batch_inverse(void)
{
    enum { n = 257 };
    czk_fp v[n], orig[n];
    czk_fr w[n], worig[n];
    for (int i = 0; i < n; i++) {
        pick_fp(&v[i], i * 7);
        orig[i] = v[i];
        pick_fr(&w[i], i * 7);
        worig[i] = w[i];
    }
    czk_fps_inv(v, n, NULL);
    czk_frs_inv(w, n, NULL);
    for (int i = 0; i < n; i++) {
        czk_fp e;
        czk_fp_inv(&e, &orig[i]);
        CHECK(czk_fp_eq(&e, &v[i]));
        czk_fr f;
        czk_fr_inv(&f, &worig[i]);
        CHECK(czk_fr_eq(&f, &w[i]));
    }
}

static void test_backends_agree(void)
{
    printf("  field back end: %s\n", czk_ff_backend());
#if defined(CZK_FF_ADX)
    for (int i = 0; i < 200000; i++) {
        czk_fp a, b, c1, c2;
        pick_fp(&a, i);
        pick_fp(&b, i + 3);
        czk__fp_mul_portable(&c1, &a, &b);
        czk__fp_mul_adx(&c2, &a, &b);
        CHECK(czk_fp_eq(&c1, &c2));
        czk__fp_sqr_portable(&c1, &a);
        czk__fp_sqr_adx(&c2, &a);
        CHECK(czk_fp_eq(&c1, &c2));
        czk_fr x, y, z1, z2;
        pick_fr(&x, i);
        pick_fr(&y, i + 3);
        czk__fr_mul_portable(&z1, &x, &y);
        czk__fr_mul_adx(&z2, &x, &y);
        CHECK(czk_fr_eq(&z1, &z2));
        czk__fr_sqr_portable(&z1, &x);
        czk__fr_sqr_adx(&z2, &x);
        CHECK(czk_fr_eq(&z1, &z2));
    }
#else
    printf("  (adx back end not built: the portable one is checked against BIGNUM above)\n");
#endif
}

static void test_fp2(void)
{
    for (int i = 0; i < 300; i++) {
        czk_fp2 a, b, c, d;
        pick_fp(&a.c0, i);
        pick_fp(&a.c1, i + 5);
        pick_fp(&b.c0, i + 7);
        pick_fp(&b.c1, i + 9);
        /* mul against the schoolbook formula */
        czk_fp2_mul(&c, &a, &b);
        czk_fp t0, t1;
        czk_fp_mul(&t0, &a.c0, &b.c0);
        czk_fp_mul(&t1, &a.c1, &b.c1);
        czk_fp_sub(&d.c0, &t0, &t1);
        czk_fp_mul(&t0, &a.c0, &b.c1);
        czk_fp_mul(&t1, &a.c1, &b.c0);
        czk_fp_add(&d.c1, &t0, &t1);
        CHECK(czk_fp2_eq(&c, &d));
        czk_fp2_sqr(&c, &a);
        czk_fp2_mul(&d, &a, &a);
        CHECK(czk_fp2_eq(&c, &d));
        if (!czk_fp2_is_zero(&a)) {
            czk_fp2_inv(&c, &a);
            czk_fp2_mul(&d, &c, &a);
            CHECK(czk_fp2_is_one(&d));
        }
        /* sqrt of a square exists and squares back; a non-square has none */
        czk_fp2_sqr(&c, &a);
        CHECK(czk_fp2_sqrt(&d, &c));
        czk_fp2 e;
        czk_fp2_sqr(&e, &d);
        CHECK(czk_fp2_eq(&e, &c));
        /* u + 1 is not a square in Fp2 (it defines the Fp6 tower), so (u+1)·a^2 is not either */
        czk_fp2_mul_by_nonresidue(&e, &c);
        if (!czk_fp2_is_zero(&a)) CHECK(!czk_fp2_sqrt(&d, &e));
    }
}

int main(void)
{
    czk_test_seed();
    ctx = BN_CTX_new();
    bn_p = BN_new();
    bn_r = BN_new();
    BN_hex2bn(&bn_p, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb"
                     "153ffffb9feffffffffaaab");
    BN_hex2bn(&bn_r, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
    RUN(test_fp_vs_bignum);
    RUN(test_fr_vs_bignum);
    RUN(test_wide_reduction);
    RUN(test_noncanonical_rejected);
    RUN(test_batch_inverse);
    RUN(test_backends_agree);
    RUN(test_fp2);
    BN_free(bn_p);
    BN_free(bn_r);
    BN_CTX_free(ctx);
    return czk_test_finish();
}
