/*
 * G1 and G2 arithmetic, subgroup checks and zcash encodings.
 *
 * Independent references: OpenSSL's generic prime-curve code (EC_GROUP over y^2 = x^3 + 4,
 * an unrelated implementation) for G1 addition, doubling and scalar multiplication; the
 * zkcrypto/bls12_381 test vectors (encodings of i·G, i = 0..999, checked by SHA-256) and
 * the generator encodings of docs/formats.md §1 for both groups; the group order r and
 * the cofactors h1, h2 (derived from x in the comments below), through [r]P == inf,
 * [h·r]P == inf on the full curve and the slow subgroup test [r]P == inf. Group laws
 * (sums of multiples, associativity, exceptional cases, the three coordinate systems) are
 * checked on fresh random points every run.
 */
#include "czk/bls12_381.h"
#include "czk_test.h"
#include "czk_test_fr.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>

#define ITERS 40

/* r, little-endian limbs. */
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                    0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
/* h1 = (p + 1 − t)/r with t = x + 1: the cofactor of G1 in E(Fp). */
static const uint64_t H1[2] = {0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL};
/* h2 = (x^8 − 4x^7 + 5x^6 − 4x^4 + 6x^3 − 4x^2 − 4x + 13)/9: the cofactor of G2 in
 * E'(Fp2) (h2·r = p^2 + 1 − (t2 − 3f)/2 with t2 = t^2 − 2p, 3f^2 = 4p^2 − t2^2). */
static const uint64_t H2[8] = {0xcf1c38e31c7238e5ULL, 0x1616ec6e786f0c70ULL, 0x21537e293a6691aeULL,
                               0xa628f1cb4d9e82efULL, 0xa68a205b2e5a7ddfULL, 0xcd91de4547085abaULL,
                               0x091d50792876a202ULL, 0x05d543a95414e7f1ULL};

static BN_CTX *ctx;

/* ------------------------------------------------------------------------------------ */
/* Random inputs                                                                        */
/* ------------------------------------------------------------------------------------ */

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

static void g1_rand(czk_g1_jac *out)
{
    czk_fr k;
    czk_test_rand_fr(&k);
    czk_g1_jac g;
    czk_g1_jac_from_affine(&g, &CZK_G1_GENERATOR);
    czk_g1_jac_mul_fr(out, &g, &k);
}

static void g2_rand(czk_g2_jac *out)
{
    czk_fr k;
    czk_test_rand_fr(&k);
    czk_g2_jac g;
    czk_g2_jac_from_affine(&g, &CZK_G2_GENERATOR);
    czk_g2_jac_mul_fr(out, &g, &k);
}

/* A random point of the whole curve E(Fp): almost surely outside G1. */
static void g1_rand_curve(czk_g1_affine *out)
{
    czk_fp four, rhs;
    czk_fp_from_u64(&four, 4);
    for (;;) {
        rand_fp(&out->x);
        czk_fp_sqr(&rhs, &out->x);
        czk_fp_mul(&rhs, &rhs, &out->x);
        czk_fp_add(&rhs, &rhs, &four);
        if (czk_fp_sqrt(&out->y, &rhs)) break;
    }
    if (czk_test_rand64() & 1) czk_fp_neg(&out->y, &out->y);
}

static void g2_rand_curve(czk_g2_affine *out)
{
    czk_fp2 b, rhs;
    czk_fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    for (;;) {
        rand_fp2(&out->x);
        czk_fp2_sqr(&rhs, &out->x);
        czk_fp2_mul(&rhs, &rhs, &out->x);
        czk_fp2_add(&rhs, &rhs, &b);
        if (czk_fp2_sqrt(&out->y, &rhs)) break;
    }
    if (czk_test_rand64() & 1) czk_fp2_neg(&out->y, &out->y);
}

/* The same point with a random Z: (X z^2, Y z^3, Z z). */
static void g1_rescale(czk_g1_jac *p)
{
    czk_fp z, z2, z3;
    rand_fp(&z);
    czk_fp_sqr(&z2, &z);
    czk_fp_mul(&z3, &z2, &z);
    czk_fp_mul(&p->x, &p->x, &z2);
    czk_fp_mul(&p->y, &p->y, &z3);
    czk_fp_mul(&p->z, &p->z, &z);
}

static void g2_rescale(czk_g2_jac *p)
{
    czk_fp2 z, z2, z3;
    rand_fp2(&z);
    czk_fp2_sqr(&z2, &z);
    czk_fp2_mul(&z3, &z2, &z);
    czk_fp2_mul(&p->x, &p->x, &z2);
    czk_fp2_mul(&p->y, &p->y, &z3);
    czk_fp2_mul(&p->z, &p->z, &z);
}

/* ------------------------------------------------------------------------------------ */
/* G1 against OpenSSL's EC_GROUP                                                        */
/* ------------------------------------------------------------------------------------ */

static BIGNUM *fp_bn(const czk_fp *a)
{
    uint8_t b[48];
    czk_fp_to_bytes_be(b, a);
    return BN_bin2bn(b, 48, NULL);
}

static EC_POINT *ossl_point(const EC_GROUP *grp, const czk_g1_affine *p)
{
    EC_POINT *q = EC_POINT_new(grp);
    if (czk_g1_affine_is_inf(p)) {
        EC_POINT_set_to_infinity(grp, q);
        return q;
    }
    BIGNUM *x = fp_bn(&p->x), *y = fp_bn(&p->y);
    if (EC_POINT_set_affine_coordinates(grp, q, x, y, ctx) != 1) {
        EC_POINT_free(q);
        q = NULL;
    }
    BN_free(x);
    BN_free(y);
    return q;
}

static bool ossl_eq(const EC_GROUP *grp, const EC_POINT *q, const czk_g1_jac *p)
{
    czk_g1_affine a;
    czk_g1_jac_to_affine(&a, p);
    if (EC_POINT_is_at_infinity(grp, q)) return czk_g1_affine_is_inf(&a);
    if (czk_g1_affine_is_inf(&a)) return false;
    BIGNUM *x = BN_new(), *y = BN_new();
    EC_POINT_get_affine_coordinates(grp, q, x, y, ctx);
    BIGNUM *ax = fp_bn(&a.x), *ay = fp_bn(&a.y);
    bool eq = BN_cmp(x, ax) == 0 && BN_cmp(y, ay) == 0;
    BN_free(x);
    BN_free(y);
    BN_free(ax);
    BN_free(ay);
    return eq;
}

static BIGNUM *limbs_bn(const uint64_t *k, size_t n)
{
    uint8_t b[8 * 32];
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) b[8 * (n - 1 - i) + j] = (uint8_t)(k[i] >> (56 - 8 * j));
    return BN_bin2bn(b, (int)(8 * n), NULL);
}

static void test_g1_vs_openssl(void)
{
    BIGNUM *p = limbs_bn(CZK_FP_MODULUS, 6), *a = BN_new(), *b = BN_new();
    BN_zero(a);
    BN_set_word(b, 4);
    EC_GROUP *grp = EC_GROUP_new_curve_GFp(p, a, b, ctx);
    CHECK(grp != NULL);
    if (grp == NULL) return;
    /* OpenSSL's ladder needs the order and cofactor; with them it reduces long scalars
     * modulo #E = h1·r, which is valid for every point of E(Fp). */
    EC_POINT *gen = ossl_point(grp, &CZK_G1_GENERATOR);
    BIGNUM *order = limbs_bn(R_LIMBS, 4), *cof = limbs_bn(H1, 2);
    CHECK(EC_GROUP_set_generator(grp, gen, order, cof) == 1);
    CHECK(EC_POINT_is_on_curve(grp, gen, ctx) == 1);

    for (int it = 0; it < ITERS; it++) {
        /* Points of G1 and of the whole curve, and scalars of 1..8 limbs. */
        czk_g1_affine pa, qa;
        czk_g1_jac pj, qj, r;
        if (it & 1) {
            g1_rand_curve(&pa);
            czk_g1_jac_from_affine(&pj, &pa);
        } else {
            g1_rand(&pj);
            czk_g1_jac_to_affine(&pa, &pj);
        }
        g1_rand(&qj);
        czk_g1_jac_to_affine(&qa, &qj);
        EC_POINT *op = ossl_point(grp, &pa), *oq = ossl_point(grp, &qa), *or = EC_POINT_new(grp);
        CHECK(op != NULL && oq != NULL);
        if (op == NULL || oq == NULL) break;

        czk_g1_jac_add(&r, &pj, &qj);
        EC_POINT_add(grp, or, op, oq, ctx);
        CHECK(ossl_eq(grp, or, &r));
        czk_g1_jac_add_affine(&r, &pj, &qa);
        CHECK(ossl_eq(grp, or, &r));
        czk_g1_jac_dbl(&r, &pj);
        EC_POINT_dbl(grp, or, op, ctx);
        CHECK(ossl_eq(grp, or, &r));

        size_t nl = 1 + (size_t)(it % 8);
        uint64_t k[8];
        for (size_t i = 0; i < nl; i++) k[i] = czk_test_rand64();
        if (it % 5 == 0) k[nl - 1] >>= 37; /* odd lengths */
        BIGNUM *kb = limbs_bn(k, nl);
        czk_g1_jac_mul(&r, &pj, k, nl);
        CHECK(EC_POINT_mul(grp, or, NULL, op, kb, ctx) == 1);
        CHECK_MSG(ossl_eq(grp, or, &r), "iteration %d, %zu limbs", it, nl);
        BN_free(kb);
        EC_POINT_free(op);
        EC_POINT_free(oq);
        EC_POINT_free(or);
    }
    EC_POINT_free(gen);
    BN_free(order);
    BN_free(cof);
    EC_GROUP_free(grp);
    BN_free(p);
    BN_free(a);
    BN_free(b);
}

/* ------------------------------------------------------------------------------------ */
/* Group laws                                                                           */
/* ------------------------------------------------------------------------------------ */

static void test_g1_group_laws(void)
{
    czk_g1_jac g, inf;
    czk_g1_jac_from_affine(&g, &CZK_G1_GENERATOR);
    czk_g1_jac_set_inf(&inf);
    CHECK(czk_g1_jac_is_inf(&inf));
    CHECK(czk_g1_jac_on_curve(&g));
    CHECK(czk_g1_affine_on_curve(&CZK_G1_GENERATOR));

    for (int it = 0; it < ITERS; it++) {
        czk_fr a, b, c;
        czk_test_rand_fr(&a);
        czk_test_rand_fr(&b);
        czk_fr_add(&c, &a, &b);
        czk_g1_jac pa, pb, pc, t, u;
        czk_g1_jac_mul_fr(&pa, &g, &a);
        czk_g1_jac_mul_fr(&pb, &g, &b);
        czk_g1_jac_mul_fr(&pc, &g, &c);
        CHECK(czk_g1_jac_on_curve(&pa));
        /* [a]G + [b]G == [a + b]G, both orders, and with random Z. */
        czk_g1_jac_add(&t, &pa, &pb);
        CHECK(czk_g1_jac_eq(&t, &pc));
        g1_rescale(&pa);
        CHECK(czk_g1_jac_on_curve(&pa));
        czk_g1_jac_add(&t, &pb, &pa);
        CHECK(czk_g1_jac_eq(&t, &pc));
        /* [a]([b]G) == [ab]G. */
        czk_fr ab;
        czk_fr_mul(&ab, &a, &b);
        czk_g1_jac_mul_fr(&t, &pb, &a);
        czk_g1_jac_mul_fr(&u, &g, &ab);
        CHECK(czk_g1_jac_eq(&t, &u));
        /* Associativity. */
        czk_g1_jac_add(&t, &pa, &pb);
        czk_g1_jac_add(&t, &t, &pc);
        czk_g1_jac_add(&u, &pb, &pc);
        czk_g1_jac_add(&u, &pa, &u);
        CHECK(czk_g1_jac_eq(&t, &u));
        /* Identity and inverse. */
        czk_g1_jac_add(&t, &pa, &inf);
        CHECK(czk_g1_jac_eq(&t, &pa));
        czk_g1_jac_add(&t, &inf, &pa);
        CHECK(czk_g1_jac_eq(&t, &pa));
        czk_g1_jac_neg(&u, &pa);
        czk_g1_jac_add(&t, &pa, &u);
        CHECK(czk_g1_jac_is_inf(&t));
        CHECK(!czk_g1_jac_eq(&u, &pa));
        /* P + P via the addition formulas falls back to doubling. */
        czk_g1_jac pa2 = pa;
        g1_rescale(&pa2);
        czk_g1_jac_add(&t, &pa, &pa2);
        czk_g1_jac_dbl(&u, &pa);
        CHECK(czk_g1_jac_eq(&t, &u));
        czk_g1_jac_dbl(&t, &t); /* and doubling equals adding twice more */
        czk_g1_jac_add(&u, &u, &pa);
        czk_g1_jac_add(&u, &u, &pa);
        CHECK(czk_g1_jac_eq(&t, &u));

        /* Mixed addition, including its exceptional cases. */
        czk_g1_affine aa, ab_, na;
        czk_g1_jac_to_affine(&aa, &pa);
        czk_g1_jac_to_affine(&ab_, &pb);
        czk_g1_affine_neg(&na, &aa);
        CHECK(czk_g1_affine_on_curve(&aa));
        czk_g1_jac_add_affine(&t, &pb, &aa);
        CHECK(czk_g1_jac_eq(&t, &pc));
        czk_g1_jac_add_affine(&t, &pa, &aa);
        czk_g1_jac_dbl(&u, &pa);
        CHECK(czk_g1_jac_eq(&t, &u));
        czk_g1_jac_add_affine(&t, &pa, &na);
        CHECK(czk_g1_jac_is_inf(&t));
        czk_g1_jac_add_affine(&t, &inf, &aa);
        CHECK(czk_g1_jac_eq(&t, &pa));
        czk_g1_affine ainf = {{{0}}, {{0}}};
        CHECK(czk_g1_affine_is_inf(&ainf) && czk_g1_affine_on_curve(&ainf));
        czk_g1_jac_add_affine(&t, &pa, &ainf);
        CHECK(czk_g1_jac_eq(&t, &pa));

        /* XYZZ agrees with Jacobian. */
        czk_g1_xyzz xa, xb, xr, xinf;
        czk_g1_xyzz_from_affine(&xa, &aa);
        czk_g1_xyzz_from_affine(&xb, &ab_);
        czk_g1_xyzz_set_inf(&xinf);
        CHECK(czk_g1_xyzz_is_inf(&xinf));
        czk_g1_xyzz_add(&xr, &xa, &xb);
        czk_g1_xyzz_to_jac(&t, &xr);
        CHECK(czk_g1_jac_eq(&t, &pc));
        CHECK(czk_g1_jac_on_curve(&t));
        czk_g1_xyzz_dbl(&xr, &xr); /* non-trivial ZZ, ZZZ from here on */
        czk_g1_xyzz_add_affine(&xr, &xr, &aa);
        czk_g1_jac_dbl(&u, &pc);
        czk_g1_jac_add(&u, &u, &pa);
        czk_g1_xyzz_to_jac(&t, &xr);
        CHECK(czk_g1_jac_eq(&t, &u));
        czk_g1_affine xaff, jaff;
        czk_g1_xyzz_to_affine(&xaff, &xr);
        czk_g1_jac_to_affine(&jaff, &u);
        CHECK(czk_g1_affine_eq(&xaff, &jaff));
        /* XYZZ exceptional cases: P + P, P − P, P + inf, with non-trivial ZZ. */
        czk_g1_xyzz xp, xq;
        czk_g1_xyzz_from_affine(&xp, &aa);
        czk_g1_xyzz_dbl(&xp, &xp);  /* 2A */
        czk_g1_xyzz_add(&xq, &xp, &xp);
        czk_g1_xyzz_dbl(&xr, &xp);
        czk_g1_xyzz_to_affine(&xaff, &xq);
        czk_g1_xyzz_to_affine(&jaff, &xr);
        CHECK(czk_g1_affine_eq(&xaff, &jaff));
        czk_g1_xyzz_neg(&xq, &xp);
        czk_g1_xyzz_add(&xr, &xp, &xq);
        CHECK(czk_g1_xyzz_is_inf(&xr));
        czk_g1_xyzz_add(&xr, &xp, &xinf);
        czk_g1_xyzz_add(&xq, &xinf, &xp);
        czk_g1_xyzz_to_affine(&xaff, &xr);
        czk_g1_xyzz_to_affine(&jaff, &xq);
        CHECK(czk_g1_affine_eq(&xaff, &jaff));
        czk_g1_xyzz_from_affine(&xp, &aa);
        czk_g1_xyzz_add(&xq, &xp, &xb); /* A + B, ZZ ≠ 1 */
        czk_g1_xyzz_add_affine(&xr, &xq, &na);
        czk_g1_xyzz_add_affine(&xr, &xr, &na); /* A + B − A − A = B − A */
        czk_g1_jac_neg(&u, &pa);
        czk_g1_jac_add(&u, &u, &pb);
        czk_g1_xyzz_to_jac(&t, &xr);
        CHECK(czk_g1_jac_eq(&t, &u));
        czk_g1_xyzz_add_affine(&xr, &xa, &aa); /* madd doubling case */
        czk_g1_jac_dbl(&u, &pa);
        czk_g1_xyzz_to_jac(&t, &xr);
        CHECK(czk_g1_jac_eq(&t, &u));
        czk_g1_xyzz_add_affine(&xr, &xa, &na);
        CHECK(czk_g1_xyzz_is_inf(&xr));
        czk_g1_xyzz_add_affine(&xr, &xinf, &aa);
        czk_g1_xyzz_to_jac(&t, &xr);
        CHECK(czk_g1_jac_eq(&t, &pa));
        czk_g1_xyzz_add_affine(&xr, &xa, &ainf);
        czk_g1_xyzz_to_jac(&t, &xr);
        CHECK(czk_g1_jac_eq(&t, &pa));
        czk_g1_xyzz_to_jac(&t, &xinf);
        CHECK(czk_g1_jac_is_inf(&t));
        czk_g1_xyzz_to_affine(&xaff, &xinf);
        CHECK(czk_g1_affine_is_inf(&xaff));
        czk_g1_xyzz_from_affine(&xr, &ainf);
        CHECK(czk_g1_xyzz_is_inf(&xr));

        /* Off-curve points are recognised. */
        czk_g1_affine bad = aa;
        czk_fp_add(&bad.x, &bad.x, &CZK_FP_ONE);
        CHECK(!czk_g1_affine_on_curve(&bad));
        czk_g1_jac badj = pa;
        czk_fp_add(&badj.y, &badj.y, &CZK_FP_ONE);
        CHECK(!czk_g1_jac_on_curve(&badj));
    }
    czk_g1_affine ia;
    czk_g1_jac_to_affine(&ia, &inf);
    CHECK(czk_g1_affine_is_inf(&ia));
    CHECK(czk_g1_jac_on_curve(&inf));
    CHECK(czk_g1_jac_eq(&inf, &inf) && !czk_g1_jac_eq(&inf, &g) && !czk_g1_jac_eq(&g, &inf));
    czk_g1_jac_dbl(&inf, &inf);
    CHECK(czk_g1_jac_is_inf(&inf));
}

static void test_g2_group_laws(void)
{
    czk_g2_jac g, inf;
    czk_g2_jac_from_affine(&g, &CZK_G2_GENERATOR);
    czk_g2_jac_set_inf(&inf);
    CHECK(czk_g2_jac_is_inf(&inf));
    CHECK(czk_g2_jac_on_curve(&g));
    CHECK(czk_g2_affine_on_curve(&CZK_G2_GENERATOR));

    for (int it = 0; it < ITERS; it++) {
        czk_fr a, b, c;
        czk_test_rand_fr(&a);
        czk_test_rand_fr(&b);
        czk_fr_add(&c, &a, &b);
        czk_g2_jac pa, pb, pc, t, u;
        czk_g2_jac_mul_fr(&pa, &g, &a);
        czk_g2_jac_mul_fr(&pb, &g, &b);
        czk_g2_jac_mul_fr(&pc, &g, &c);
        CHECK(czk_g2_jac_on_curve(&pa));
        czk_g2_jac_add(&t, &pa, &pb);
        CHECK(czk_g2_jac_eq(&t, &pc));
        g2_rescale(&pa);
        CHECK(czk_g2_jac_on_curve(&pa));
        czk_g2_jac_add(&t, &pb, &pa);
        CHECK(czk_g2_jac_eq(&t, &pc));
        czk_fr ab;
        czk_fr_mul(&ab, &a, &b);
        czk_g2_jac_mul_fr(&t, &pb, &a);
        czk_g2_jac_mul_fr(&u, &g, &ab);
        CHECK(czk_g2_jac_eq(&t, &u));
        czk_g2_jac_add(&t, &pa, &pb);
        czk_g2_jac_add(&t, &t, &pc);
        czk_g2_jac_add(&u, &pb, &pc);
        czk_g2_jac_add(&u, &pa, &u);
        CHECK(czk_g2_jac_eq(&t, &u));
        czk_g2_jac_add(&t, &pa, &inf);
        CHECK(czk_g2_jac_eq(&t, &pa));
        czk_g2_jac_add(&t, &inf, &pa);
        CHECK(czk_g2_jac_eq(&t, &pa));
        czk_g2_jac_neg(&u, &pa);
        czk_g2_jac_add(&t, &pa, &u);
        CHECK(czk_g2_jac_is_inf(&t));
        CHECK(!czk_g2_jac_eq(&u, &pa));
        czk_g2_jac pa2 = pa;
        g2_rescale(&pa2);
        czk_g2_jac_add(&t, &pa, &pa2);
        czk_g2_jac_dbl(&u, &pa);
        CHECK(czk_g2_jac_eq(&t, &u));
        czk_g2_jac_dbl(&t, &t);
        czk_g2_jac_add(&u, &u, &pa);
        czk_g2_jac_add(&u, &u, &pa);
        CHECK(czk_g2_jac_eq(&t, &u));

        czk_g2_affine aa, ab_, na;
        czk_g2_jac_to_affine(&aa, &pa);
        czk_g2_jac_to_affine(&ab_, &pb);
        czk_g2_affine_neg(&na, &aa);
        CHECK(czk_g2_affine_on_curve(&aa));
        czk_g2_jac_add_affine(&t, &pb, &aa);
        CHECK(czk_g2_jac_eq(&t, &pc));
        czk_g2_jac_add_affine(&t, &pa, &aa);
        czk_g2_jac_dbl(&u, &pa);
        CHECK(czk_g2_jac_eq(&t, &u));
        czk_g2_jac_add_affine(&t, &pa, &na);
        CHECK(czk_g2_jac_is_inf(&t));
        czk_g2_jac_add_affine(&t, &inf, &aa);
        CHECK(czk_g2_jac_eq(&t, &pa));
        czk_g2_affine ainf = {{{{0}}, {{0}}}, {{{0}}, {{0}}}};
        CHECK(czk_g2_affine_is_inf(&ainf) && czk_g2_affine_on_curve(&ainf));
        czk_g2_jac_add_affine(&t, &pa, &ainf);
        CHECK(czk_g2_jac_eq(&t, &pa));

        czk_g2_xyzz xa, xb, xr, xinf;
        czk_g2_xyzz_from_affine(&xa, &aa);
        czk_g2_xyzz_from_affine(&xb, &ab_);
        czk_g2_xyzz_set_inf(&xinf);
        CHECK(czk_g2_xyzz_is_inf(&xinf));
        czk_g2_xyzz_add(&xr, &xa, &xb);
        czk_g2_xyzz_to_jac(&t, &xr);
        CHECK(czk_g2_jac_eq(&t, &pc));
        czk_g2_xyzz_dbl(&xr, &xr);
        czk_g2_xyzz_add_affine(&xr, &xr, &aa);
        czk_g2_jac_dbl(&u, &pc);
        czk_g2_jac_add(&u, &u, &pa);
        czk_g2_xyzz_to_jac(&t, &xr);
        CHECK(czk_g2_jac_eq(&t, &u));
        czk_g2_affine xaff, jaff;
        czk_g2_xyzz_to_affine(&xaff, &xr);
        czk_g2_jac_to_affine(&jaff, &u);
        CHECK(czk_g2_affine_eq(&xaff, &jaff));
        czk_g2_xyzz xp, xq;
        czk_g2_xyzz_from_affine(&xp, &aa);
        czk_g2_xyzz_dbl(&xp, &xp);
        czk_g2_xyzz_add(&xq, &xp, &xp);
        czk_g2_xyzz_dbl(&xr, &xp);
        czk_g2_xyzz_to_affine(&xaff, &xq);
        czk_g2_xyzz_to_affine(&jaff, &xr);
        CHECK(czk_g2_affine_eq(&xaff, &jaff));
        czk_g2_xyzz_neg(&xq, &xp);
        czk_g2_xyzz_add(&xr, &xp, &xq);
        CHECK(czk_g2_xyzz_is_inf(&xr));
        czk_g2_xyzz_add(&xr, &xp, &xinf);
        czk_g2_xyzz_add(&xq, &xinf, &xp);
        czk_g2_xyzz_to_affine(&xaff, &xr);
        czk_g2_xyzz_to_affine(&jaff, &xq);
        CHECK(czk_g2_affine_eq(&xaff, &jaff));
        czk_g2_xyzz_from_affine(&xp, &aa);
        czk_g2_xyzz_add(&xq, &xp, &xb);
        czk_g2_xyzz_add_affine(&xr, &xq, &na);
        czk_g2_xyzz_add_affine(&xr, &xr, &na);
        czk_g2_jac_neg(&u, &pa);
        czk_g2_jac_add(&u, &u, &pb);
        czk_g2_xyzz_to_jac(&t, &xr);
        CHECK(czk_g2_jac_eq(&t, &u));
        czk_g2_xyzz_add_affine(&xr, &xa, &aa);
        czk_g2_jac_dbl(&u, &pa);
        czk_g2_xyzz_to_jac(&t, &xr);
        CHECK(czk_g2_jac_eq(&t, &u));
        czk_g2_xyzz_add_affine(&xr, &xa, &na);
        CHECK(czk_g2_xyzz_is_inf(&xr));
        czk_g2_xyzz_add_affine(&xr, &xinf, &aa);
        czk_g2_xyzz_to_jac(&t, &xr);
        CHECK(czk_g2_jac_eq(&t, &pa));
        czk_g2_xyzz_add_affine(&xr, &xa, &ainf);
        czk_g2_xyzz_to_jac(&t, &xr);
        CHECK(czk_g2_jac_eq(&t, &pa));
        czk_g2_xyzz_to_jac(&t, &xinf);
        CHECK(czk_g2_jac_is_inf(&t));
        czk_g2_xyzz_to_affine(&xaff, &xinf);
        CHECK(czk_g2_affine_is_inf(&xaff));
        czk_g2_xyzz_from_affine(&xr, &ainf);
        CHECK(czk_g2_xyzz_is_inf(&xr));

        czk_g2_affine bad = aa;
        czk_fp_add(&bad.x.c1, &bad.x.c1, &CZK_FP_ONE);
        CHECK(!czk_g2_affine_on_curve(&bad));
        czk_g2_jac badj = pa;
        czk_fp_add(&badj.y.c0, &badj.y.c0, &CZK_FP_ONE);
        CHECK(!czk_g2_jac_on_curve(&badj));
    }
    czk_g2_affine ia;
    czk_g2_jac_to_affine(&ia, &inf);
    CHECK(czk_g2_affine_is_inf(&ia));
    CHECK(czk_g2_jac_on_curve(&inf));
    CHECK(czk_g2_jac_eq(&inf, &inf) && !czk_g2_jac_eq(&inf, &g) && !czk_g2_jac_eq(&g, &inf));
    czk_g2_jac_dbl(&inf, &inf);
    CHECK(czk_g2_jac_is_inf(&inf));
}

/* ------------------------------------------------------------------------------------ */
/* Scalar multiplication edge cases, batch conversion                                   */
/* ------------------------------------------------------------------------------------ */

/* k mod r of an n-limb k, as 4 limbs, via BIGNUM. */
static void mod_r(uint64_t out[4], const uint64_t *k, size_t n)
{
    BIGNUM *kb = limbs_bn(k, n), *rb = limbs_bn(R_LIMBS, 4), *m = BN_new();
    BN_mod(m, kb, rb, ctx);
    uint8_t b[32];
    BN_bn2binpad(m, b, 32);
    for (int i = 0; i < 4; i++) {
        out[i] = 0;
        for (int j = 0; j < 8; j++) out[i] = (out[i] << 8) | b[8 * (3 - i) + j];
    }
    BN_free(kb);
    BN_free(rb);
    BN_free(m);
}

static void test_scalar_mul_edges(void)
{
    czk_g1_jac g1, p1, t1, u1;
    czk_g2_jac g2, p2, t2, u2;
    czk_g1_jac_from_affine(&g1, &CZK_G1_GENERATOR);
    czk_g2_jac_from_affine(&g2, &CZK_G2_GENERATOR);
    g1_rand(&p1);
    g2_rand(&p2);
    uint64_t zero[4] = {0}, one[1] = {1};
    uint64_t rm1[4], rp1[4];
    memcpy(rm1, R_LIMBS, sizeof rm1);
    memcpy(rp1, R_LIMBS, sizeof rp1);
    rm1[0]--;
    rp1[0]++;

    czk_g1_jac_mul(&t1, &p1, zero, 4);
    CHECK(czk_g1_jac_is_inf(&t1));
    czk_g1_jac_mul(&t1, &p1, zero, 0);
    CHECK(czk_g1_jac_is_inf(&t1));
    czk_g1_jac_mul(&t1, &p1, one, 1);
    CHECK(czk_g1_jac_eq(&t1, &p1));
    czk_g1_jac_mul(&t1, &p1, R_LIMBS, 4);
    CHECK(czk_g1_jac_is_inf(&t1));
    czk_g1_jac_mul(&t1, &g1, R_LIMBS, 4);
    CHECK(czk_g1_jac_is_inf(&t1));
    czk_g1_jac_mul(&t1, &p1, rm1, 4);
    czk_g1_jac_neg(&u1, &p1);
    CHECK(czk_g1_jac_eq(&t1, &u1));
    czk_g1_jac_mul(&t1, &p1, rp1, 4);
    CHECK(czk_g1_jac_eq(&t1, &p1));
    czk_g1_jac_set_inf(&u1);
    czk_g1_jac_mul(&t1, &u1, rp1, 4);
    CHECK(czk_g1_jac_is_inf(&t1));

    czk_g2_jac_mul(&t2, &p2, zero, 4);
    CHECK(czk_g2_jac_is_inf(&t2));
    czk_g2_jac_mul(&t2, &p2, one, 1);
    CHECK(czk_g2_jac_eq(&t2, &p2));
    czk_g2_jac_mul(&t2, &p2, R_LIMBS, 4);
    CHECK(czk_g2_jac_is_inf(&t2));
    czk_g2_jac_mul(&t2, &g2, R_LIMBS, 4);
    CHECK(czk_g2_jac_is_inf(&t2));
    czk_g2_jac_mul(&t2, &p2, rm1, 4);
    czk_g2_jac_neg(&u2, &p2);
    CHECK(czk_g2_jac_eq(&t2, &u2));
    czk_g2_jac_mul(&t2, &p2, rp1, 4);
    CHECK(czk_g2_jac_eq(&t2, &p2));

    /* Long scalars, including the binary path beyond 16 limbs and scalars of all ones
     * (carry out of the top of the wNAF recoding): [k]P == [k mod r]P on the subgroup. */
    for (int it = 0; it < 12; it++) {
        uint64_t k[20], km[4];
        size_t n = (it < 4) ? 4 : (it < 8 ? 8 : 20);
        for (size_t i = 0; i < n; i++) k[i] = (it % 4 == 3) ? ~(uint64_t)0 : czk_test_rand64();
        mod_r(km, k, n);
        czk_g1_jac_mul(&t1, &p1, k, n);
        czk_g1_jac_mul(&u1, &p1, km, 4);
        CHECK_MSG(czk_g1_jac_eq(&t1, &u1), "G1, %zu limbs", n);
        czk_g2_jac_mul(&t2, &p2, k, n);
        czk_g2_jac_mul(&u2, &p2, km, 4);
        CHECK_MSG(czk_g2_jac_eq(&t2, &u2), "G2, %zu limbs", n);
    }
    /* Aliasing of output and input. */
    uint64_t k5[1] = {5};
    czk_g1_jac_mul(&u1, &p1, k5, 1);
    t1 = p1;
    czk_g1_jac_mul(&t1, &t1, k5, 1);
    CHECK(czk_g1_jac_eq(&t1, &u1));
    czk_g2_jac_mul(&u2, &p2, k5, 1);
    t2 = p2;
    czk_g2_jac_mul(&t2, &t2, k5, 1);
    CHECK(czk_g2_jac_eq(&t2, &u2));
    /* Small multiples against repeated addition. */
    czk_g1_jac_set_inf(&u1);
    czk_g2_jac_set_inf(&u2);
    for (uint64_t k = 0; k < 70; k++) {
        czk_g1_jac_mul(&t1, &p1, &k, 1);
        CHECK_MSG(czk_g1_jac_eq(&t1, &u1), "G1 k = %" PRIu64, k);
        czk_g2_jac_mul(&t2, &p2, &k, 1);
        CHECK_MSG(czk_g2_jac_eq(&t2, &u2), "G2 k = %" PRIu64, k);
        czk_g1_jac_add(&u1, &u1, &p1);
        czk_g2_jac_add(&u2, &u2, &p2);
    }
}

static void test_batch_to_affine(void)
{
    enum { N = 37 };
    czk_g1_jac j1[N];
    czk_g2_jac j2[N];
    czk_g1_affine a1[N], s1;
    czk_g2_affine a2[N], s2;
    czk_fp scratch1[N];
    for (int i = 0; i < N; i++) {
        if (i % 7 == 3) {
            czk_g1_jac_set_inf(&j1[i]);
            czk_g2_jac_set_inf(&j2[i]);
        } else {
            g1_rand(&j1[i]);
            g2_rand(&j2[i]);
        }
    }
    czk_g1s_jac_to_affine(a1, j1, N, scratch1);
    czk_g2s_jac_to_affine(a2, j2, N, NULL);
    for (int i = 0; i < N; i++) {
        czk_g1_jac_to_affine(&s1, &j1[i]);
        czk_g2_jac_to_affine(&s2, &j2[i]);
        CHECK_MSG(czk_g1_affine_eq(&a1[i], &s1), "G1 point %d", i);
        CHECK_MSG(czk_g2_affine_eq(&a2[i], &s2), "G2 point %d", i);
        CHECK(czk_g1_affine_on_curve(&a1[i]) && czk_g2_affine_on_curve(&a2[i]));
        CHECK(czk_g1_affine_is_inf(&a1[i]) == (i % 7 == 3));
    }
    czk_g1s_jac_to_affine(a1, j1, 0, NULL); /* n = 0 is a no-op */
}

/* ------------------------------------------------------------------------------------ */
/* Subgroup checks                                                                      */
/* ------------------------------------------------------------------------------------ */

static bool g1_slow_in_subgroup(const czk_g1_affine *p)
{
    czk_g1_jac j, t;
    czk_g1_jac_from_affine(&j, p);
    czk_g1_jac_mul(&t, &j, R_LIMBS, 4);
    return czk_g1_jac_is_inf(&t);
}

static bool g2_slow_in_subgroup(const czk_g2_affine *p)
{
    czk_g2_jac j, t;
    czk_g2_jac_from_affine(&j, p);
    czk_g2_jac_mul(&t, &j, R_LIMBS, 4);
    return czk_g2_jac_is_inf(&t);
}

static void test_g1_subgroup(void)
{
    int in = 0, out = 0;
    for (int it = 0; it < ITERS; it++) {
        czk_g1_affine p;
        czk_g1_jac j, t;
        g1_rand_curve(&p);
        /* The curve order is h1·r. */
        czk_g1_jac_from_affine(&j, &p);
        czk_g1_jac_mul(&t, &j, H1, 2);
        czk_g1_jac_mul(&t, &t, R_LIMBS, 4);
        CHECK(czk_g1_jac_is_inf(&t));
        /* Three kinds: a random curve point, its cofactor-cleared multiple (in G1) and
         * [k]G. */
        for (int kind = 0; kind < 3; kind++) {
            if (kind == 1) {
                czk_g1_jac_mul(&t, &j, H1, 2);
                czk_g1_jac_to_affine(&p, &t);
            } else if (kind == 2) {
                g1_rand(&t);
                czk_g1_jac_to_affine(&p, &t);
            }
            bool slow = g1_slow_in_subgroup(&p), fast = czk_g1_affine_in_subgroup(&p);
            CHECK_MSG(slow == fast, "kind %d: slow %d, fast %d", kind, slow, fast);
            czk_g1_jac_from_affine(&t, &p);
            g1_rescale(&t);
            CHECK(czk_g1_jac_in_subgroup(&t) == slow);
            CHECK(slow == (kind != 0)); /* a random curve point is in G1 with prob. 1/h1 */
            in += slow;
            out += !slow;
        }
    }
    /* Points of order 3, (0, ±2), and their sums with G1 points: on the curve, not in G1. */
    czk_g1_affine t3 = {{{0}}, {{0}}};
    czk_fp_from_u64(&t3.y, 2);
    CHECK(czk_g1_affine_on_curve(&t3));
    CHECK(!czk_g1_affine_in_subgroup(&t3) && !g1_slow_in_subgroup(&t3));
    czk_g1_affine_neg(&t3, &t3);
    CHECK(!czk_g1_affine_in_subgroup(&t3));
    czk_g1_jac j3, g;
    czk_g1_jac_from_affine(&j3, &t3);
    uint64_t three = 3;
    czk_g1_jac_mul(&g, &j3, &three, 1);
    CHECK(czk_g1_jac_is_inf(&g));
    g1_rand(&g);
    czk_g1_jac_add(&g, &g, &j3);
    CHECK(!czk_g1_jac_in_subgroup(&g));
    czk_g1_affine ga;
    czk_g1_jac_to_affine(&ga, &g);
    CHECK(!czk_g1_affine_in_subgroup(&ga) && !g1_slow_in_subgroup(&ga));
    /* Identity and generator. */
    czk_g1_affine inf = {{{0}}, {{0}}};
    czk_g1_jac jinf;
    czk_g1_jac_set_inf(&jinf);
    CHECK(czk_g1_affine_in_subgroup(&inf) && czk_g1_jac_in_subgroup(&jinf));
    CHECK(czk_g1_affine_in_subgroup(&CZK_G1_GENERATOR));
    CHECK(in > 0 && out > 0);
}

static void test_g2_subgroup(void)
{
    for (int it = 0; it < ITERS; it++) {
        czk_g2_affine p;
        czk_g2_jac j, t;
        g2_rand_curve(&p);
        czk_g2_jac_from_affine(&j, &p);
        czk_g2_jac_mul(&t, &j, H2, 8);
        czk_g2_jac_mul(&t, &t, R_LIMBS, 4);
        CHECK(czk_g2_jac_is_inf(&t));
        for (int kind = 0; kind < 3; kind++) {
            if (kind == 1) {
                czk_g2_jac_mul(&t, &j, H2, 8);
                czk_g2_jac_to_affine(&p, &t);
            } else if (kind == 2) {
                g2_rand(&t);
                czk_g2_jac_to_affine(&p, &t);
            }
            bool slow = g2_slow_in_subgroup(&p), fast = czk_g2_affine_in_subgroup(&p);
            CHECK_MSG(slow == fast, "kind %d: slow %d, fast %d", kind, slow, fast);
            czk_g2_jac_from_affine(&t, &p);
            g2_rescale(&t);
            CHECK(czk_g2_jac_in_subgroup(&t) == slow);
            CHECK(slow == (kind != 0));
        }
        /* A G2 point plus a point of the cofactor part ([r]P, of order dividing h2). */
        czk_g2_jac_mul(&t, &j, R_LIMBS, 4);
        czk_g2_jac s;
        g2_rand(&s);
        czk_g2_jac_add(&s, &s, &t);
        czk_g2_affine sa;
        czk_g2_jac_to_affine(&sa, &s);
        CHECK(!czk_g2_affine_in_subgroup(&sa) && !czk_g2_jac_in_subgroup(&s));
        CHECK(!g2_slow_in_subgroup(&sa));
    }
    czk_g2_affine inf = {{{{0}}, {{0}}}, {{{0}}, {{0}}}};
    czk_g2_jac jinf;
    czk_g2_jac_set_inf(&jinf);
    CHECK(czk_g2_affine_in_subgroup(&inf) && czk_g2_jac_in_subgroup(&jinf));
    CHECK(czk_g2_affine_in_subgroup(&CZK_G2_GENERATOR));
}

/* ------------------------------------------------------------------------------------ */
/* zcash encodings                                                                      */
/* ------------------------------------------------------------------------------------ */

static void hex_to_bytes(uint8_t *out, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void sha256_hex(char out[65], const uint8_t *data, size_t n)
{
    uint8_t md[32];
    unsigned mdlen = 0;
    EVP_Digest(data, n, md, &mdlen, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static void test_zcash_vectors(void)
{
    enum { N = 1000 };
    czk_g1_jac *j1 = malloc(N * sizeof *j1);
    czk_g2_jac *j2 = malloc(N * sizeof *j2);
    czk_g1_affine *a1 = malloc(N * sizeof *a1);
    czk_g2_affine *a2 = malloc(N * sizeof *a2);
    uint8_t *c1 = malloc(N * 48), *u1 = malloc(N * 96), *c2 = malloc(N * 96), *u2 = malloc(N * 192);
    czk_g1_jac_set_inf(&j1[0]);
    czk_g2_jac_set_inf(&j2[0]);
    for (int i = 1; i < N; i++) {
        czk_g1_jac_add_affine(&j1[i], &j1[i - 1], &CZK_G1_GENERATOR);
        czk_g2_jac_add_affine(&j2[i], &j2[i - 1], &CZK_G2_GENERATOR);
    }
    czk_g1s_jac_to_affine(a1, j1, N, NULL);
    czk_g2s_jac_to_affine(a2, j2, N, NULL);
    for (int i = 0; i < N; i++) {
        czk_g1_to_compressed(c1 + 48 * i, &a1[i]);
        czk_g1_to_uncompressed(u1 + 96 * i, &a1[i]);
        czk_g2_to_compressed(c2 + 96 * i, &a2[i]);
        czk_g2_to_uncompressed(u2 + 192 * i, &a2[i]);
    }
    char h[65];
    sha256_hex(h, c1, N * 48);
    CHECK_MSG(strcmp(h, "8acaa1d512b4cf96f4740e4c9afc19ba4618d48fe251c452a19382395bcd0929") == 0, "G1 compressed %s", h);
    sha256_hex(h, u1, N * 96);
    CHECK_MSG(strcmp(h, "e25aae8e95c9cd39cdb1eec0100c8245e297510fef0091cbf80b91d49de6b685") == 0, "G1 uncompressed %s", h);
    sha256_hex(h, c2, N * 96);
    CHECK_MSG(strcmp(h, "b75bc2e41289adda41e448e56a1ea39b11009a27b02e8676c8b86defedc05deb") == 0, "G2 compressed %s", h);
    sha256_hex(h, u2, N * 192);
    CHECK_MSG(strcmp(h, "80fd0516c8115b13165589324558649fa94f49e714caa3b735537d073a9cfb65") == 0, "G2 uncompressed %s", h);

    /* The generators, docs/formats.md §1. */
    uint8_t want[96];
    hex_to_bytes(want, "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb", 48);
    CHECK_MEM(c1 + 48, want, 48);
    hex_to_bytes(want, "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
                       "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8", 96);
    CHECK_MEM(c2 + 96, want, 96);

    /* Every encoding decodes back to its point, with the subgroup check on. */
    for (int i = 0; i < N; i++) {
        czk_g1_affine d1;
        czk_g2_affine d2;
        CHECK_STATUS(czk_g1_from_compressed(&d1, c1 + 48 * i, CZK_DECODE_DEFAULT), CZK_OK);
        CHECK(czk_g1_affine_eq(&d1, &a1[i]));
        CHECK_STATUS(czk_g1_from_uncompressed(&d1, u1 + 96 * i, CZK_DECODE_DEFAULT), CZK_OK);
        CHECK(czk_g1_affine_eq(&d1, &a1[i]));
        if (i % 10 == 0) { /* G2 decompression (Fp2 sqrt) is the slow part */
            CHECK_STATUS(czk_g2_from_compressed(&d2, c2 + 96 * i, CZK_DECODE_DEFAULT), CZK_OK);
            CHECK(czk_g2_affine_eq(&d2, &a2[i]));
        }
        CHECK_STATUS(czk_g2_from_uncompressed(&d2, u2 + 192 * i, CZK_DECODE_DEFAULT), CZK_OK);
        CHECK(czk_g2_affine_eq(&d2, &a2[i]));
    }
    free(j1);
    free(j2);
    free(a1);
    free(a2);
    free(c1);
    free(u1);
    free(c2);
    free(u2);
}

/* Random points of G1/G2 (both signs of y occur) round-trip through all four forms. */
static void test_encode_roundtrip(void)
{
    int sort_set = 0;
    for (int it = 0; it < ITERS; it++) {
        czk_g1_jac j1;
        czk_g2_jac j2;
        czk_g1_affine p1, d1;
        czk_g2_affine p2, d2;
        g1_rand(&j1);
        g2_rand(&j2);
        czk_g1_jac_to_affine(&p1, &j1);
        czk_g2_jac_to_affine(&p2, &j2);
        uint8_t b[192];
        czk_g1_to_compressed(b, &p1);
        sort_set += (b[0] & 0x20) != 0;
        CHECK((b[0] & 0xc0) == 0x80);
        CHECK_STATUS(czk_g1_from_compressed(&d1, b, CZK_DECODE_DEFAULT | CZK_DECODE_REJECT_INFINITY), CZK_OK);
        CHECK(czk_g1_affine_eq(&d1, &p1));
        czk_g1_to_uncompressed(b, &p1);
        CHECK((b[0] & 0xe0) == 0);
        CHECK_STATUS(czk_g1_from_uncompressed(&d1, b, CZK_DECODE_DEFAULT | CZK_DECODE_REJECT_INFINITY), CZK_OK);
        CHECK(czk_g1_affine_eq(&d1, &p1));
        czk_g2_to_compressed(b, &p2);
        CHECK((b[0] & 0xc0) == 0x80);
        CHECK_STATUS(czk_g2_from_compressed(&d2, b, CZK_DECODE_DEFAULT), CZK_OK);
        CHECK(czk_g2_affine_eq(&d2, &p2));
        czk_g2_to_uncompressed(b, &p2);
        CHECK_STATUS(czk_g2_from_uncompressed(&d2, b, CZK_DECODE_DEFAULT), CZK_OK);
        CHECK(czk_g2_affine_eq(&d2, &p2));
    }
    CHECK(sort_set > 0 && sort_set < ITERS);
}

/* Big-endian bytes of p + d (d small) into out[48]. */
static void p_plus(uint8_t out[48], uint64_t d)
{
    uint64_t l[6];
    memcpy(l, CZK_FP_MODULUS, sizeof l);
    l[0] += d; /* no carry: the low limb of p is far from 2^64 */
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++) out[8 * (5 - i) + j] = (uint8_t)(l[i] >> (56 - 8 * j));
}

static void test_g1_bad_encodings(void)
{
    czk_g1_affine d, p, q;
    czk_g1_jac j;
    g1_rand(&j);
    czk_g1_jac_to_affine(&p, &j);
    uint8_t c[48], u[96], b[96];
    czk_g1_to_compressed(c, &p);
    czk_g1_to_uncompressed(u, &p);
    d = CZK_G1_GENERATOR;

    /* Wrong form flags. */
    memcpy(b, c, 48);
    b[0] &= 0x7f;
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    memcpy(b, u, 96);
    b[0] |= 0x80;
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    memcpy(b, u, 96);
    b[0] |= 0x20;
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    CHECK(czk_g1_affine_eq(&d, &CZK_G1_GENERATOR)); /* untouched on failure */

    /* Infinity: accepted exactly, rejected with stray bits or when not allowed. */
    memset(b, 0, 96);
    b[0] = 0xc0;
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_OK);
    CHECK(czk_g1_affine_is_inf(&d));
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT | CZK_DECODE_REJECT_INFINITY), CZK_EINFINITY);
    b[47] = 1;
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    b[47] = 0;
    b[0] = 0xe0;
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    b[0] = 0xc1;
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    memcpy(b, c, 48);
    b[0] |= 0x40; /* infinity flag on a real x */
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    memset(b, 0, 96);
    b[0] = 0x40;
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_OK);
    CHECK(czk_g1_affine_is_inf(&d));
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_REJECT_INFINITY), CZK_EINFINITY);
    b[95] = 1;
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    b[95] = 0;
    b[0] = 0x60;
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    b[0] = 0x41;
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    /* All zeros without a flag: (0, 0) is not a curve point. */
    memset(b, 0, 96);
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, 0), CZK_ENOTONCURVE);

    /* Coordinates ≥ p. */
    p_plus(b, 0);
    b[0] |= 0x80;
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENONCANONICAL);
    p_plus(b, 5);
    b[0] |= 0xa0;
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENONCANONICAL);
    memset(b, 0xff, 48);
    b[0] = 0x9f; /* 2^381 − 1 */
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENONCANONICAL);
    memcpy(b, u, 96);
    p_plus(b, 1);
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENONCANONICAL);
    memcpy(b, u, 96);
    p_plus(b + 48, 0);
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENONCANONICAL);
    /* y + p: a flag-like high bit in y is not masked off. */
    memcpy(b, u, 96);
    b[48] |= 0x80;
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENONCANONICAL);

    /* Not on the curve: an x with x^3 + 4 a non-square, and a wrong y. */
    czk_fp x, rhs, four;
    czk_fp_from_u64(&four, 4);
    do {
        rand_fp(&x);
        czk_fp_sqr(&rhs, &x);
        czk_fp_mul(&rhs, &rhs, &x);
        czk_fp_add(&rhs, &rhs, &four);
    } while (czk_fp_legendre(&rhs) != -1);
    czk_fp_to_bytes_be(b, &x);
    b[0] |= 0x80;
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENOTONCURVE);
    q = p;
    czk_fp_add(&q.y, &q.y, &CZK_FP_ONE);
    czk_fp_to_bytes_be(b, &q.x);
    czk_fp_to_bytes_be(b + 48, &q.y);
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, 0), CZK_ENOTONCURVE);

    /* On the curve, outside G1: rejected by default, accepted without the check. */
    g1_rand_curve(&q);
    CHECK(!g1_slow_in_subgroup(&q));
    czk_g1_to_compressed(b, &q);
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENOTINSUBGROUP);
    CHECK_STATUS(czk_g1_from_compressed(&d, b, 0), CZK_OK);
    CHECK(czk_g1_affine_eq(&d, &q));
    czk_g1_to_uncompressed(b, &q);
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENOTINSUBGROUP);
    CHECK_STATUS(czk_g1_from_uncompressed(&d, b, CZK_DECODE_REJECT_INFINITY), CZK_OK);
    CHECK(czk_g1_affine_eq(&d, &q));
    /* The order-3 point (0, 2). */
    memset(b, 0, 96);
    b[0] = 0x80;
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENOTINSUBGROUP);

    /* The sort flag picks the sign of y. */
    memcpy(b, c, 48);
    b[0] ^= 0x20;
    CHECK_STATUS(czk_g1_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_OK);
    czk_g1_affine_neg(&q, &p);
    CHECK(czk_g1_affine_eq(&d, &q));
}

static void test_g2_bad_encodings(void)
{
    czk_g2_affine d, p, q;
    czk_g2_jac j;
    g2_rand(&j);
    czk_g2_jac_to_affine(&p, &j);
    uint8_t c[96], u[192], b[192];
    czk_g2_to_compressed(c, &p);
    czk_g2_to_uncompressed(u, &p);

    memcpy(b, c, 96);
    b[0] &= 0x7f;
    CHECK_STATUS(czk_g2_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    memcpy(b, u, 192);
    b[0] |= 0x80;
    CHECK_STATUS(czk_g2_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    memcpy(b, u, 192);
    b[0] |= 0x20;
    CHECK_STATUS(czk_g2_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);

    memset(b, 0, 192);
    b[0] = 0xc0;
    CHECK_STATUS(czk_g2_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_OK);
    CHECK(czk_g2_affine_is_inf(&d));
    CHECK_STATUS(czk_g2_from_compressed(&d, b, CZK_DECODE_REJECT_INFINITY), CZK_EINFINITY);
    b[60] = 4; /* stray bit in x.c0 */
    CHECK_STATUS(czk_g2_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    b[60] = 0;
    b[0] = 0xe0;
    CHECK_STATUS(czk_g2_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    memset(b, 0, 192);
    b[0] = 0x40;
    CHECK_STATUS(czk_g2_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_OK);
    CHECK(czk_g2_affine_is_inf(&d));
    CHECK_STATUS(czk_g2_from_uncompressed(&d, b, CZK_DECODE_DEFAULT | CZK_DECODE_REJECT_INFINITY), CZK_EINFINITY);
    b[150] = 1;
    CHECK_STATUS(czk_g2_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_EBADFLAGS);
    memset(b, 0, 192);
    CHECK_STATUS(czk_g2_from_uncompressed(&d, b, 0), CZK_ENOTONCURVE);

    /* Each of the four coordinates ≥ p. */
    for (int k = 0; k < 4; k++) {
        memcpy(b, u, 192);
        p_plus(b + 48 * k, (uint64_t)k);
        CHECK_MSG(czk_g2_from_uncompressed(&d, b, CZK_DECODE_DEFAULT) == CZK_ENONCANONICAL, "coordinate %d", k);
    }
    for (int k = 0; k < 2; k++) {
        memcpy(b, c, 96);
        p_plus(b + 48 * k, 3);
        b[0] |= 0x80;
        CHECK_MSG(czk_g2_from_compressed(&d, b, CZK_DECODE_DEFAULT) == CZK_ENONCANONICAL, "coordinate %d", k);
    }
    memcpy(b, u, 192);
    b[96] |= 0x80; /* high bit of y.c1 is not a flag */
    CHECK_STATUS(czk_g2_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENONCANONICAL);
    memcpy(b, c, 96);
    b[48] |= 0x80; /* nor that of x.c0 */
    CHECK_STATUS(czk_g2_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENONCANONICAL);

    /* Not on the curve. */
    czk_fp2 x, rhs, bb;
    czk_fp_from_u64(&bb.c0, 4);
    bb.c1 = bb.c0;
    czk_fp2 y;
    do {
        rand_fp2(&x);
        czk_fp2_sqr(&rhs, &x);
        czk_fp2_mul(&rhs, &rhs, &x);
        czk_fp2_add(&rhs, &rhs, &bb);
    } while (czk_fp2_sqrt(&y, &rhs));
    czk_fp_to_bytes_be(b, &x.c1);
    czk_fp_to_bytes_be(b + 48, &x.c0);
    b[0] |= 0x80;
    CHECK_STATUS(czk_g2_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENOTONCURVE);
    memcpy(b, u, 192);
    b[191] ^= 1;
    CHECK_STATUS(czk_g2_from_uncompressed(&d, b, 0), CZK_ENOTONCURVE);

    /* Outside G2. */
    g2_rand_curve(&q);
    CHECK(!g2_slow_in_subgroup(&q));
    czk_g2_to_compressed(b, &q);
    CHECK_STATUS(czk_g2_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENOTINSUBGROUP);
    CHECK_STATUS(czk_g2_from_compressed(&d, b, 0), CZK_OK);
    CHECK(czk_g2_affine_eq(&d, &q));
    czk_g2_to_uncompressed(b, &q);
    CHECK_STATUS(czk_g2_from_uncompressed(&d, b, CZK_DECODE_DEFAULT), CZK_ENOTINSUBGROUP);
    CHECK_STATUS(czk_g2_from_uncompressed(&d, b, 0), CZK_OK);
    CHECK(czk_g2_affine_eq(&d, &q));

    memcpy(b, c, 96);
    b[0] ^= 0x20;
    CHECK_STATUS(czk_g2_from_compressed(&d, b, CZK_DECODE_DEFAULT), CZK_OK);
    czk_g2_affine_neg(&q, &p);
    CHECK(czk_g2_affine_eq(&d, &q));
}

int main(void)
{
    czk_test_seed();
    ctx = BN_CTX_new();
    RUN(test_g1_vs_openssl);
    RUN(test_g1_group_laws);
    RUN(test_g2_group_laws);
    RUN(test_scalar_mul_edges);
    RUN(test_batch_to_affine);
    RUN(test_g1_subgroup);
    RUN(test_g2_subgroup);
    RUN(test_zcash_vectors);
    RUN(test_encode_roundtrip);
    RUN(test_g1_bad_encodings);
    RUN(test_g2_bad_encodings);
    BN_CTX_free(ctx);
    return czk_test_finish();
}
