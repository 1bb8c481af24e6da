/* Fp12 = Fp6[w]/(w^2 − v): c0 + c1·w. Equivalently Fp2[w]/(w^6 − ξ) with ξ = u + 1. */
#include "czk/bls12_381.h"
#include "consts.h"
#include "tower_internal.h"

/* gamma[k−1][e−1] = ξ^(e (p^k − 1)/6): see scripts/gen_consts.py. */
static const czk_fp2 FROB_GAMMA[11][5] = CZK__FP12_FROB_GAMMA;

void czk_fp12_set_one(czk_fp12 *out)
{
    out->c0.c0 = CZK_FP2_ONE;
    out->c0.c1 = CZK_FP2_ZERO;
    out->c0.c2 = CZK_FP2_ZERO;
    out->c1.c0 = CZK_FP2_ZERO;
    out->c1.c1 = CZK_FP2_ZERO;
    out->c1.c2 = CZK_FP2_ZERO;
}

bool czk_fp12_eq(const czk_fp12 *a, const czk_fp12 *b)
{
    return czk_fp6_eq(&a->c0, &b->c0) && czk_fp6_eq(&a->c1, &b->c1);
}

bool czk_fp12_is_one(const czk_fp12 *a)
{
    return czk_fp2_is_one(&a->c0.c0) && czk_fp2_is_zero(&a->c0.c1) &&
           czk_fp2_is_zero(&a->c0.c2) && czk_fp6_is_zero(&a->c1);
}

void czk_fp12_conj(czk_fp12 *out, const czk_fp12 *a)
{
    out->c0 = a->c0;
    czk_fp6_neg(&out->c1, &a->c1);
}

void czk_fp12_mul(czk_fp12 *out, const czk_fp12 *a, const czk_fp12 *b)
{
    /* Karatsuba: c0 = a0 b0 + v a1 b1, c1 = (a0 + a1)(b0 + b1) − a0 b0 − a1 b1. */
    czk_fp6 t0, t1, s, r;
    czk_fp6_mul(&t0, &a->c0, &b->c0);
    czk_fp6_mul(&t1, &a->c1, &b->c1);
    czk_fp6_add(&s, &a->c0, &a->c1);
    czk_fp6_add(&r, &b->c0, &b->c1);
    czk_fp6_mul(&s, &s, &r);
    czk_fp6_sub(&s, &s, &t0);
    czk_fp6_sub(&out->c1, &s, &t1);
    czk_fp6_mul_by_nonresidue(&t1, &t1);
    czk_fp6_add(&out->c0, &t0, &t1);
}

void czk_fp12_sqr(czk_fp12 *out, const czk_fp12 *a)
{
    /* Complex squaring, 2 Fp6 products: with t = a0 a1,
     *   c0 = a0^2 + v a1^2 = (a0 + a1)(a0 + v a1) − t − v t,  c1 = 2 t. */
    czk_fp6 t, s, r;
    czk_fp6_mul(&t, &a->c0, &a->c1);
    czk_fp6_add(&s, &a->c0, &a->c1);
    czk_fp6_mul_by_nonresidue(&r, &a->c1);
    czk_fp6_add(&r, &r, &a->c0);
    czk_fp6_mul(&s, &s, &r);
    czk_fp6_sub(&s, &s, &t);
    czk_fp6_mul_by_nonresidue(&r, &t);
    czk_fp6_sub(&out->c0, &s, &r);
    czk_fp6_add(&out->c1, &t, &t);
}

void czk_fp12_inv(czk_fp12 *out, const czk_fp12 *a)
{
    /* (a0 + a1 w)^-1 = (a0 − a1 w)/(a0^2 − v a1^2), the norm to Fp6; zero maps to zero. */
    czk_fp6 t0, t1;
    czk_fp6_sqr(&t0, &a->c0);
    czk_fp6_sqr(&t1, &a->c1);
    czk_fp6_mul_by_nonresidue(&t1, &t1);
    czk_fp6_sub(&t0, &t0, &t1);
    czk_fp6_inv(&t0, &t0);
    czk_fp6_mul(&out->c0, &a->c0, &t0);
    czk_fp6_mul(&t1, &a->c1, &t0);
    czk_fp6_neg(&out->c1, &t1);
}

void czk_fp12_frobenius(czk_fp12 *out, const czk_fp12 *a, unsigned power)
{
    /* Coefficient e of the basis w^e (c0.cj at e = 2j, c1.cj at e = 2j + 1) becomes
     * conj^power(a_e)·ξ^(e (p^power − 1)/6). */
    power %= 12;
    if (power == 0) {
        *out = *a;
        return;
    }
    const czk_fp2 *g = FROB_GAMMA[power - 1];
    const czk_fp2 *in[6] = {&a->c0.c0, &a->c1.c0, &a->c0.c1, &a->c1.c1, &a->c0.c2, &a->c1.c2};
    czk_fp2 r[6];
    for (int e = 0; e < 6; e++) {
        if (power & 1)
            fp2_conj(&r[e], in[e]);
        else
            r[e] = *in[e];
        if (e > 0) fp2_mul(&r[e], &r[e], &g[e - 1]);
    }
    out->c0.c0 = r[0];
    out->c1.c0 = r[1];
    out->c0.c1 = r[2];
    out->c1.c1 = r[3];
    out->c0.c2 = r[4];
    out->c1.c2 = r[5];
}

void czk_fp12_pow(czk_fp12 *out, const czk_fp12 *a, const uint64_t *e, size_t nlimbs)
{
    /* Left-to-right square and multiply; exponents here are public. */
    czk_fp12 acc, base = *a;
    czk_fp12_set_one(&acc);
    bool started = false;
    for (size_t i = nlimbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            if (started) czk_fp12_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) {
                czk_fp12_mul(&acc, &acc, &base);
                started = true;
            }
        }
    }
    *out = acc;
}

void czk_fp12_to_bytes(uint8_t out[576], const czk_fp12 *a)
{
    const czk_fp6 *h[2] = {&a->c0, &a->c1};
    for (int i = 0; i < 2; i++) {
        const czk_fp2 *q[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};
        for (int j = 0; j < 3; j++) {
            czk_fp_to_bytes_be(out + 48 * (6 * i + 2 * j), &q[j]->c0);
            czk_fp_to_bytes_be(out + 48 * (6 * i + 2 * j + 1), &q[j]->c1);
        }
    }
}

void czk__fp12_mul_by_014(czk_fp12 *f, const czk_fp2 *c0, const czk_fp2 *c1, const czk_fp2 *c4)
{
    /* Karatsuba with the sparse factor l = l0 + l1 w, l0 = c0 + c1 v, l1 = c4 v:
     * f0 l0 (5 Fp2 products), f1 l1 (3) and (f0 + f1)(l0 + l1) (5): 13 instead of 18. */
    czk_fp6 t0, t1, s;
    czk_fp2 c14;
    czk__fp6_mul_by_01(&t0, &f->c0, c0, c1);
    czk__fp6_mul_by_1(&t1, &f->c1, c4);
    czk_fp6_add(&s, &f->c0, &f->c1);
    fp2_add(&c14, c1, c4);
    czk__fp6_mul_by_01(&s, &s, c0, &c14);
    czk_fp6_sub(&s, &s, &t0);
    czk_fp6_sub(&f->c1, &s, &t1);
    czk_fp6_mul_by_nonresidue(&t1, &t1);
    czk_fp6_add(&f->c0, &t0, &t1);
}

/* (a + b s)^2 in Fp4 = Fp2[s]/(s^2 − ξ): (a^2 + ξ b^2) + ((a + b)^2 − a^2 − b^2) s. */
static void fp4_sqr(czk_fp2 *r0, czk_fp2 *r1, const czk_fp2 *a, const czk_fp2 *b)
{
    czk_fp2 t0, t1, t;
    fp2_sqr(&t0, a);
    fp2_sqr(&t1, b);
    fp2_add(&t, a, b);
    fp2_sqr(&t, &t);
    fp2_sub(&t, &t, &t0);
    fp2_sub(r1, &t, &t1);
    fp2_mul_by_nonresidue(&t1, &t1);
    fp2_add(r0, &t0, &t1);
}

/* r = 3 t − 2 z and r = 3 t + 2 z, the two shapes of the Granger–Scott update. */
static void gs_minus(czk_fp2 *z, const czk_fp2 *t)
{
    czk_fp2 d;
    fp2_sub(&d, t, z);
    fp2_dbl(&d, &d);
    fp2_add(z, &d, t);
}

static void gs_plus(czk_fp2 *z, const czk_fp2 *t)
{
    czk_fp2 d;
    fp2_add(&d, t, z);
    fp2_dbl(&d, &d);
    fp2_add(z, &d, t);
}

void czk__fp12_cyclotomic_sqr(czk_fp12 *out, const czk_fp12 *a)
{
    /* Granger and Scott, "Faster squaring in the cyclotomic subgroup of sixth degree
     * extensions" (PKC 2010): over Fp4 = Fp2[w^3] the element is (z0 + z1 w^3) +
     * (z2 + z3 w^3) w + (z4 + z5 w^3) w^2, and on the cyclotomic subgroup its square needs
     * only the three Fp4 squares A = (z0, z1)^2, B = (z2, z3)^2, C = (z4, z5)^2:
     *   z0' = 3 A0 − 2 z0,  z1' = 3 A1 + 2 z1,
     *   z2' = 3 ξ C1 + 2 z2, z3' = 3 C0 − 2 z3,
     *   z4' = 3 B0 − 2 z4,  z5' = 3 B1 + 2 z5. */
    czk_fp2 z0 = a->c0.c0, z1 = a->c1.c1, z2 = a->c1.c0, z3 = a->c0.c2, z4 = a->c0.c1,
            z5 = a->c1.c2;
    czk_fp2 A0, A1, B0, B1, C0, C1;
    fp4_sqr(&A0, &A1, &z0, &z1);
    fp4_sqr(&B0, &B1, &z2, &z3);
    fp4_sqr(&C0, &C1, &z4, &z5);
    gs_minus(&z0, &A0);
    gs_plus(&z1, &A1);
    fp2_mul_by_nonresidue(&C1, &C1);
    gs_plus(&z2, &C1);
    gs_minus(&z3, &C0);
    gs_minus(&z4, &B0);
    gs_plus(&z5, &B1);
    out->c0.c0 = z0;
    out->c1.c1 = z1;
    out->c1.c0 = z2;
    out->c0.c2 = z3;
    out->c0.c1 = z4;
    out->c1.c2 = z5;
}
