/*
 * The Fp6/Fp12 tower and the optimal ate pairing.
 *
 * Independent references: Fp12 products and Frobenius against OpenSSL BIGNUM arithmetic in
 * the flat representation Fp[W]/(W^12 − 2W^6 + 2) (W = w, u = W^6 − 1), which shares no
 * formula with the tower code; e(G1, G2) against the value zkcrypto/bls12_381 publishes as
 * Gt::generator(); bilinearity through the G1/G2 scalar multiplications. The rest are ring
 * and group laws on fresh random elements.
 */
#include "czk/bls12_381.h"
#include "czk_test.h"
#include "czk_test_fr.h"
#include "ff/tower_internal.h"

#include <openssl/bn.h>

#define ITERS 20

static BN_CTX *ctx;
static BIGNUM *bn_p;

static void rand_fp(czk_fp *a)
{
    uint8_t w[64];
    czk_test_rand_bytes(w, 64);
    czk_fp_from_wide_bytes(a, w);
}

static void rand_fp2(czk_fp2 *a)
{
    rand_fp(&a->c0);
    rand_fp(&a->c1);
}

static void rand_fp6(czk_fp6 *a)
{
    rand_fp2(&a->c0);
    rand_fp2(&a->c1);
    rand_fp2(&a->c2);
}

static void rand_fp12(czk_fp12 *a)
{
    rand_fp6(&a->c0);
    rand_fp6(&a->c1);
}

/* ---- The flat reference: 12 BIGNUM coefficients of W^0..W^11. ---- */

typedef struct flat {
    BIGNUM *a[12];
} flat;

static void flat_init(flat *f)
{
    for (int i = 0; i < 12; i++) f->a[i] = BN_new();
}

static void flat_free(flat *f)
{
    for (int i = 0; i < 12; i++) BN_free(f->a[i]);
}

static BIGNUM *fp_to_bn(const czk_fp *a)
{
    uint8_t b[48];
    czk_fp_to_bytes_be(b, a);
    return BN_bin2bn(b, 48, NULL);
}

static void bn_to_fp(czk_fp *out, const BIGNUM *x)
{
    uint8_t b[48];
    BN_bn2binpad(x, b, 48);
    CHECK(czk_fp_from_bytes_be(out, b));
}

/* Tower coefficient e of w^e (c0.cj at e = 2j, c1.cj at e = 2j + 1). */
static czk_fp2 *coeff_mut(czk_fp12 *a, int e)
{
    czk_fp6 *h = (e & 1) ? &a->c1 : &a->c0;
    return e / 2 == 0 ? &h->c0 : e / 2 == 1 ? &h->c1 : &h->c2;
}

static const czk_fp2 *coeff(const czk_fp12 *a, int e)
{
    const czk_fp6 *h = (e & 1) ? &a->c1 : &a->c0;
    return e / 2 == 0 ? &h->c0 : e / 2 == 1 ? &h->c1 : &h->c2;
}

/* (b0 + b1 u) w^e = (b0 − b1) W^e + b1 W^(e+6). */
static void to_flat(flat *f, const czk_fp12 *a)
{
    for (int e = 0; e < 6; e++) {
        BIGNUM *b0 = fp_to_bn(&coeff(a, e)->c0), *b1 = fp_to_bn(&coeff(a, e)->c1);
        BN_mod_sub(f->a[e], b0, b1, bn_p, ctx);
        BN_copy(f->a[e + 6], b1);
        BN_free(b0);
        BN_free(b1);
    }
}

static void from_flat(czk_fp12 *a, const flat *f)
{
    BIGNUM *t = BN_new();
    for (int e = 0; e < 6; e++) {
        BN_mod_add(t, f->a[e], f->a[e + 6], bn_p, ctx);
        bn_to_fp(&coeff_mut(a, e)->c0, t);
        bn_to_fp(&coeff_mut(a, e)->c1, f->a[e + 6]);
    }
    BN_free(t);
}

/* Schoolbook product reduced by W^12 = 2 W^6 − 2. */
static void flat_mul(flat *r, const flat *x, const flat *y)
{
    BIGNUM *t[23], *m = BN_new();
    for (int i = 0; i < 23; i++) t[i] = BN_new();
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            BN_mod_mul(m, x->a[i], y->a[j], bn_p, ctx);
            BN_mod_add(t[i + j], t[i + j], m, bn_p, ctx);
        }
    for (int k = 22; k >= 12; k--) {
        BN_mod_lshift1(m, t[k], bn_p, ctx);
        BN_mod_add(t[k - 6], t[k - 6], m, bn_p, ctx);
        BN_mod_sub(t[k - 12], t[k - 12], m, bn_p, ctx);
    }
    for (int i = 0; i < 12; i++) BN_copy(r->a[i], t[i]);
    for (int i = 0; i < 23; i++) BN_free(t[i]);
    BN_free(m);
}

/* W^p, for the Frobenius of the flat form, by square and multiply. */
static void flat_w_to_p(flat *wp)
{
    flat w;
    flat_init(&w);
    for (int i = 0; i < 12; i++) {
        BN_zero(w.a[i]);
        BN_zero(wp->a[i]);
    }
    BN_one(w.a[1]);
    BN_one(wp->a[0]);
    for (int bit = BN_num_bits(bn_p) - 1; bit >= 0; bit--) {
        flat_mul(wp, wp, wp);
        if (BN_is_bit_set(bn_p, bit)) flat_mul(wp, wp, &w);
    }
    flat_free(&w);
}

/* x^p in the flat form: the coefficients are fixed by the p-th power, so
 * (sum x_i W^i)^p = sum x_i (W^p)^i, evaluated by Horner's rule. */
static void flat_frobenius(flat *r, const flat *x, const flat *wp)
{
    flat t;
    flat_init(&t);
    for (int i = 0; i < 12; i++) BN_zero(t.a[i]);
    for (int i = 11; i >= 0; i--) {
        flat_mul(&t, &t, wp);
        BN_mod_add(t.a[0], t.a[0], x->a[i], bn_p, ctx);
    }
    for (int i = 0; i < 12; i++) BN_copy(r->a[i], t.a[i]);
    flat_free(&t);
}

/* ---- Tower tests. ---- */

static void test_fp12_mul_vs_flat(void)
{
    flat x, y, z;
    flat_init(&x);
    flat_init(&y);
    flat_init(&z);
    for (int it = 0; it < ITERS; it++) {
        czk_fp12 a, b, c, ref;
        rand_fp12(&a);
        rand_fp12(&b);
        to_flat(&x, &a);
        to_flat(&y, &b);
        flat_mul(&z, &x, &y);
        from_flat(&ref, &z);
        czk_fp12_mul(&c, &a, &b);
        CHECK(czk_fp12_eq(&c, &ref));
        czk_fp12_sqr(&c, &a);
        flat_mul(&z, &x, &x);
        from_flat(&ref, &z);
        CHECK(czk_fp12_eq(&c, &ref));
    }
    flat_free(&x);
    flat_free(&y);
    flat_free(&z);
}

static void test_frobenius_vs_flat(void)
{
    flat x, wp;
    flat_init(&x);
    flat_init(&wp);
    flat_w_to_p(&wp);
    czk_fp12 a, b, ref;
    rand_fp12(&a);
    to_flat(&x, &a);
    for (unsigned k = 1; k <= 11; k++) {
        flat_frobenius(&x, &x, &wp); /* x = a^(p^k) */
        from_flat(&ref, &x);
        czk_fp12_frobenius(&b, &a, k);
        CHECK_MSG(czk_fp12_eq(&b, &ref), "power %u", k);
    }
    flat_free(&x);
    flat_free(&wp);
}

static void test_tower_laws(void)
{
    for (int it = 0; it < ITERS; it++) {
        czk_fp6 a6, b6, c6, s, t, u6;
        rand_fp6(&a6);
        rand_fp6(&b6);
        rand_fp6(&c6);
        /* Fp6: associativity, distributivity, squaring, inverse, ·v. */
        czk_fp6_mul(&s, &a6, &b6);
        czk_fp6_mul(&s, &s, &c6);
        czk_fp6_mul(&t, &b6, &c6);
        czk_fp6_mul(&t, &a6, &t);
        CHECK(czk_fp6_eq(&s, &t));
        czk_fp6_add(&s, &b6, &c6);
        czk_fp6_mul(&s, &a6, &s);
        czk_fp6_mul(&t, &a6, &b6);
        czk_fp6_mul(&u6, &a6, &c6);
        czk_fp6_add(&t, &t, &u6);
        CHECK(czk_fp6_eq(&s, &t));
        czk_fp6_sqr(&s, &a6);
        czk_fp6_mul(&t, &a6, &a6);
        CHECK(czk_fp6_eq(&s, &t));
        czk_fp6_inv(&s, &a6);
        czk_fp6_mul(&s, &s, &a6);
        CHECK(czk_fp2_is_one(&s.c0) && czk_fp2_is_zero(&s.c1) && czk_fp2_is_zero(&s.c2));
        czk_fp6 v = {CZK_FP2_ZERO, CZK_FP2_ONE, CZK_FP2_ZERO};
        czk_fp6_mul(&s, &a6, &v);
        czk_fp6_mul_by_nonresidue(&t, &a6);
        CHECK(czk_fp6_eq(&s, &t));
        czk_fp6_sub(&s, &a6, &b6);
        czk_fp6_add(&s, &s, &b6);
        CHECK(czk_fp6_eq(&s, &a6));
        czk_fp6_neg(&s, &a6);
        czk_fp6_add(&s, &s, &a6);
        CHECK(czk_fp6_is_zero(&s));
        CHECK(!czk_fp6_is_zero(&a6));
        /* Sparse products against full ones. */
        czk_fp6 sp = {b6.c0, b6.c1, CZK_FP2_ZERO};
        czk__fp6_mul_by_01(&s, &a6, &b6.c0, &b6.c1);
        czk_fp6_mul(&t, &a6, &sp);
        CHECK(czk_fp6_eq(&s, &t));
        czk_fp6 sp1 = {CZK_FP2_ZERO, b6.c1, CZK_FP2_ZERO};
        czk__fp6_mul_by_1(&s, &a6, &b6.c1);
        czk_fp6_mul(&t, &a6, &sp1);
        CHECK(czk_fp6_eq(&s, &t));

        /* Fp12. */
        czk_fp12 a, b, c, x, y;
        rand_fp12(&a);
        rand_fp12(&b);
        rand_fp12(&c);
        czk_fp12_mul(&x, &a, &b);
        czk_fp12_mul(&x, &x, &c);
        czk_fp12_mul(&y, &b, &c);
        czk_fp12_mul(&y, &a, &y);
        CHECK(czk_fp12_eq(&x, &y));
        czk_fp12_inv(&x, &a);
        czk_fp12_mul(&x, &x, &a);
        CHECK(czk_fp12_is_one(&x));
        CHECK(!czk_fp12_is_one(&a));
        czk_fp12_sqr(&x, &a);
        czk_fp12_mul(&y, &a, &a);
        CHECK(czk_fp12_eq(&x, &y));
        /* Aliasing: out == in. */
        y = a;
        czk_fp12_mul(&y, &y, &y);
        CHECK(czk_fp12_eq(&x, &y));
        /* Frobenius: a^p by exponentiation, composition, order 12. */
        czk_fp12_frobenius(&x, &a, 1);
        czk_fp12_pow(&y, &a, CZK_FP_MODULUS, 6);
        CHECK(czk_fp12_eq(&x, &y));
        y = a;
        for (unsigned k = 1; k <= 11; k++) {
            czk_fp12_frobenius(&y, &y, 1);
            czk_fp12_frobenius(&x, &a, k);
            CHECK_MSG(czk_fp12_eq(&x, &y), "frobenius^%u", k);
        }
        czk_fp12_frobenius(&y, &y, 1);
        CHECK(czk_fp12_eq(&y, &a));
        czk_fp12_frobenius(&x, &a, 12);
        CHECK(czk_fp12_eq(&x, &a));
        /* Sparse line product against the full one. */
        czk_fp12 l;
        czk_fp12_set_one(&l);
        l.c0.c0 = b.c0.c0;
        l.c0.c1 = b.c0.c1;
        l.c1.c1 = b.c1.c1;
        czk_fp12_mul(&x, &a, &l);
        y = a;
        czk__fp12_mul_by_014(&y, &b.c0.c0, &b.c0.c1, &b.c1.c1);
        CHECK(czk_fp12_eq(&x, &y));
    }
}

/* a^((p^6 − 1)(p^2 + 1)), an element of the cyclotomic subgroup. */
static void to_cyclotomic(czk_fp12 *out, const czk_fp12 *a)
{
    czk_fp12 t, m;
    czk_fp12_inv(&t, a);
    czk_fp12_conj(&m, a);
    czk_fp12_mul(&m, &m, &t);
    czk_fp12_frobenius(&t, &m, 2);
    czk_fp12_mul(out, &m, &t);
}

static void test_cyclotomic(void)
{
    for (int it = 0; it < ITERS; it++) {
        czk_fp12 a, m, x, y;
        rand_fp12(&a);
        to_cyclotomic(&m, &a);
        /* On the cyclotomic subgroup the conjugate is the inverse ... */
        czk_fp12_conj(&x, &m);
        czk_fp12_mul(&x, &x, &m);
        CHECK(czk_fp12_is_one(&x));
        /* ... and the Granger–Scott square is the square. */
        czk__fp12_cyclotomic_sqr(&x, &m);
        czk_fp12_sqr(&y, &m);
        CHECK(czk_fp12_eq(&x, &y));
        x = m;
        czk__fp12_cyclotomic_sqr(&x, &x);
        CHECK(czk_fp12_eq(&x, &y));
        /* Off the subgroup neither holds (so the checks above can fail). */
        czk_fp12_conj(&x, &a);
        czk_fp12_mul(&x, &x, &a);
        CHECK(!czk_fp12_is_one(&x));
        czk__fp12_cyclotomic_sqr(&x, &a);
        czk_fp12_sqr(&y, &a);
        CHECK(!czk_fp12_eq(&x, &y));
    }
}

static void test_to_bytes(void)
{
    czk_fp12 a;
    rand_fp12(&a);
    uint8_t out[576], want[48];
    czk_fp12_to_bytes(out, &a);
    for (int i = 0; i < 12; i++) {
        /* Order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1. */
        const czk_fp6 *h = i < 6 ? &a.c0 : &a.c1;
        int j = (i % 6) / 2;
        const czk_fp2 *q = j == 0 ? &h->c0 : j == 1 ? &h->c1 : &h->c2;
        czk_fp_to_bytes_be(want, (i & 1) ? &q->c1 : &q->c0);
        CHECK_MEM(out + 48 * i, want, 48);
    }
}

/* ---- Pairing tests. ---- */

/*
 * zkcrypto/bls12_381 src/pairings.rs, Gt::generator(), documented there as
 * pairing(&G1Affine::generator(), &G2Affine::generator()): the Fp coefficients in the order
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1, as its Fp::from_raw_unchecked limbs, that
 * is Montgomery form with R = 2^384 (converted to canonical values with BIGNUM below).
 */
static const uint64_t ZKCRYPTO_GT_GENERATOR[12][6] = {
    {0x1972e433a01f85c5, 0x97d32b76fd772538, 0xc8ce546fc96bcdf9, 0xcef63e7366d40614,
     0xa611342781843780, 0x13f3448a3fc6d825},
    {0xd26331b02e9d6995, 0x9d68a482f7797e7d, 0x9c9b29248d39ea92, 0xf4801ca2e13107aa,
     0xa16c0732bdbcb066, 0x083ca4afba360478},
    {0x59e261db0916b641, 0x2716b6f4b23e960d, 0xc8e55b10a0bd9c45, 0x0bdb0bd99c4deda8,
     0x8cf89ebf57fdaac5, 0x12d6b7929e777a5e},
    {0x5fc85188b0e15f35, 0x34a06e3a8f096365, 0xdb3126a6e02ad62c, 0xfc6f5aa97d9a990b,
     0xa12f55f5eb89c210, 0x1723703a926f8889},
    {0x93588f2971828778, 0x43f65b8611ab7585, 0x3183aaf5ec279fdf, 0xfa73d7e18ac99df6,
     0x64e176a6a64c99b0, 0x179fa78c58388f1f},
    {0x672a0a11ca2aef12, 0x0d11b9b52aa3f16b, 0xa44412d0699d056e, 0xc01d0177221a5ba5,
     0x66e0cede6c735529, 0x05f5a71e9fddc339},
    {0xd30a88a1b062c679, 0x5ac56a5d35fc8304, 0xd0c834a6a81f290d, 0xcd5430c2da3707c7,
     0xf0c27ff780500af0, 0x09245da6e2d72eae},
    {0x9f2e0676791b5156, 0xe2d1c8234918fe13, 0x4c9e459f3c561bf4, 0xa3e85e53b9d3e3c1,
     0x820a121e21a70020, 0x15af618341c59acc},
    {0x7c95658c24993ab1, 0x73eb38721ca886b9, 0x5256d749477434bc, 0x8ba41902ea504a8b,
     0x04a3d3f80c86ce6d, 0x18a64a87fb686eaa},
    {0xbb83e71bb920cf26, 0x2a5277ac92a73945, 0xfc0ee59f94f046a0, 0x7158cdf3786058f7,
     0x7cc1061b82f945f6, 0x03f847aa9fdbe567},
    {0x8078dba56134e657, 0x1cd7ec9a43998a6e, 0xb1aa599a1a993766, 0xc9a0f62f0842ee44,
     0x8e159be3b605dffa, 0x0c86ba0d4af13fc2},
    {0xe80ff2a06a52ffb1, 0x7694ca48721a906c, 0x7583183e03b08514, 0xf567afdd40cee4e2,
     0x9a6d96d2e526a5fc, 0x197e9f49861f2242},
};

static void test_gt_generator(void)
{
    czk_fp12 e;
    czk_pairing(&e, &CZK_G1_GENERATOR, &CZK_G2_GENERATOR);
    uint8_t got[576];
    czk_fp12_to_bytes(got, &e);

    BIGNUM *two384 = BN_new(), *rinv = BN_new(), *v = BN_new();
    BN_set_bit(two384, 384);
    BN_mod_inverse(rinv, two384, bn_p, ctx);
    for (int i = 0; i < 12; i++) {
        uint8_t le[48], be[48];
        for (int j = 0; j < 48; j++) le[j] = (uint8_t)(ZKCRYPTO_GT_GENERATOR[i][j / 8] >> (8 * (j % 8)));
        BN_lebin2bn(le, 48, v);
        BN_mod_mul(v, v, rinv, bn_p, ctx);
        BN_bn2binpad(v, be, 48);
        CHECK_MSG(memcmp(got + 48 * i, be, 48) == 0, "coefficient %d", i);
    }
    BN_free(two384);
    BN_free(rinv);
    BN_free(v);

    /* Non-degenerate, and of order r. */
    czk_fp12 t;
    CHECK(!czk_fp12_is_one(&e));
    czk_fp12_pow(&t, &e, CZK_FR_MODULUS, 4);
    CHECK(czk_fp12_is_one(&t));
}

static void g1_mul(czk_g1_affine *out, const czk_g1_affine *p, const czk_fr *k)
{
    czk_g1_jac j;
    czk_g1_jac_from_affine(&j, p);
    czk_g1_jac_mul_fr(&j, &j, k);
    czk_g1_jac_to_affine(out, &j);
}

static void g2_mul(czk_g2_affine *out, const czk_g2_affine *q, const czk_fr *k)
{
    czk_g2_jac j;
    czk_g2_jac_from_affine(&j, q);
    czk_g2_jac_mul_fr(&j, &j, k);
    czk_g2_jac_to_affine(out, &j);
}

static void fp12_pow_fr(czk_fp12 *out, const czk_fp12 *a, const czk_fr *k)
{
    uint64_t l[4];
    czk_fr_to_u64s(l, k);
    czk_fp12_pow(out, a, l, 4);
}

static void test_bilinearity(void)
{
    czk_fp12 base, x, y;
    czk_pairing(&base, &CZK_G1_GENERATOR, &CZK_G2_GENERATOR);
    for (int it = 0; it < 3; it++) {
        czk_fr a, b, ab;
        czk_test_rand_fr(&a);
        czk_test_rand_fr(&b);
        czk_fr_mul(&ab, &a, &b);
        czk_g1_affine P;
        czk_g2_affine Q;
        g1_mul(&P, &CZK_G1_GENERATOR, &a);
        g2_mul(&Q, &CZK_G2_GENERATOR, &b);
        czk_pairing(&x, &P, &Q);
        fp12_pow_fr(&y, &base, &ab);
        CHECK(czk_fp12_eq(&x, &y));
        CHECK(!czk_fp12_is_one(&x));
        /* e([a]P, Q) == e(P, [a]Q) on arbitrary P, Q. */
        czk_g1_affine aP;
        czk_g2_affine aQ;
        g1_mul(&aP, &P, &a);
        g2_mul(&aQ, &Q, &a);
        czk_pairing(&x, &aP, &Q);
        czk_pairing(&y, &P, &aQ);
        CHECK(czk_fp12_eq(&x, &y));
        /* e(P, −Q) == e(−P, Q) == e(P, Q)^-1. */
        czk_g1_affine nP;
        czk_g2_affine nQ;
        czk_g1_affine_neg(&nP, &P);
        czk_g2_affine_neg(&nQ, &Q);
        czk_fp12 e, inv;
        czk_pairing(&e, &P, &Q);
        czk_fp12_inv(&inv, &e);
        czk_pairing(&x, &P, &nQ);
        czk_pairing(&y, &nP, &Q);
        CHECK(czk_fp12_eq(&x, &inv));
        CHECK(czk_fp12_eq(&y, &inv));
        /* e(P, Q1 + Q2) == e(P, Q1) e(P, Q2) exercises the addition law in G2 against the
         * pairing: Q1 + Q2 = [b + 1]G2 with Q1 = [b]G2, Q2 = G2. */
        czk_fr b1;
        czk_fr_add(&b1, &b, &CZK_FR_ONE);
        czk_g2_affine Q12;
        g2_mul(&Q12, &CZK_G2_GENERATOR, &b1);
        czk_pairing(&x, &P, &Q12);
        czk_pairing(&y, &P, &CZK_G2_GENERATOR);
        czk_fp12_mul(&y, &y, &e);
        CHECK(czk_fp12_eq(&x, &y));
    }
}

static void test_product(void)
{
    czk_fr a, a1;
    czk_test_rand_fr(&a);
    czk_fr_add(&a1, &a, &CZK_FR_ONE);
    czk_g1_affine P, aP, nP;
    czk_g2_affine Q, aQ, a1Q;
    czk_fr k;
    czk_test_rand_fr(&k);
    g1_mul(&P, &CZK_G1_GENERATOR, &k);
    czk_test_rand_fr(&k);
    g2_mul(&Q, &CZK_G2_GENERATOR, &k);
    g1_mul(&aP, &P, &a);
    g2_mul(&aQ, &Q, &a);
    g2_mul(&a1Q, &Q, &a1);
    czk_g1_affine_neg(&nP, &P);

    /* e(aP, Q) e(−P, aQ) == 1, and false with a wrong scalar. */
    czk_g1_affine ps[2] = {aP, nP};
    czk_g2_affine qs[2] = {Q, aQ};
    CHECK(czk_pairing_product_is_one(ps, qs, 2));
    qs[1] = a1Q;
    CHECK(!czk_pairing_product_is_one(ps, qs, 2));

    /* Pairs with an infinity are skipped: e(O, Q) = e(P, O) = 1. */
    czk_g1_affine inf1 = {CZK_FP_ZERO, CZK_FP_ZERO};
    czk_g2_affine inf2 = {CZK_FP2_ZERO, CZK_FP2_ZERO};
    czk_fp12 x, y;
    czk_pairing(&x, &inf1, &Q);
    CHECK(czk_fp12_is_one(&x));
    czk_pairing(&x, &P, &inf2);
    CHECK(czk_fp12_is_one(&x));
    czk_g1_affine ps4[4] = {inf1, aP, P, nP};
    czk_g2_affine qs4[4] = {Q, Q, inf2, aQ};
    CHECK(czk_pairing_product_is_one(ps4, qs4, 4));
    CHECK(czk_pairing_product_is_one(ps4, qs4, 0));
    CHECK(!czk_pairing_product_is_one(ps4, qs4, 2));

    /* A product of more pairs than the loop keeps on the stack equals the product of the
     * single pairings. */
    enum { NP = 11 };
    czk_g1_affine pm[NP];
    czk_g2_affine qm[NP];
    czk_fp12 prod, e;
    czk_fp12_set_one(&prod);
    for (int i = 0; i < NP; i++) {
        czk_test_rand_fr(&k);
        g1_mul(&pm[i], &CZK_G1_GENERATOR, &k);
        czk_test_rand_fr(&k);
        g2_mul(&qm[i], &CZK_G2_GENERATOR, &k);
        if (i == 5) pm[i] = inf1;
        czk_pairing(&e, &pm[i], &qm[i]);
        czk_fp12_mul(&prod, &prod, &e);
    }
    czk_miller_loop(&x, pm, qm, NP);
    czk_final_exp(&y, &x);
    CHECK(czk_fp12_eq(&y, &prod));
}

int main(void)
{
    czk_test_seed();
    ctx = BN_CTX_new();
    bn_p = BN_new();
    uint8_t pb[48];
    for (int i = 0; i < 48; i++) pb[i] = (uint8_t)(CZK_FP_MODULUS[5 - i / 8] >> (56 - 8 * (i % 8)));
    BN_bin2bn(pb, 48, bn_p);

    RUN(test_fp12_mul_vs_flat);
    RUN(test_frobenius_vs_flat);
    RUN(test_tower_laws);
    RUN(test_cyclotomic);
    RUN(test_to_bytes);
    RUN(test_gt_generator);
    RUN(test_bilinearity);
    RUN(test_product);

    BN_free(bn_p);
    BN_CTX_free(ctx);
    return czk_test_finish();
}
