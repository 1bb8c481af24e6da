/* Fp6 = Fp2[v]/(v^3 − ξ), ξ = u + 1: c0 + c1·v + c2·v^2. */
#include "czk/bls12_381.h"
#include "tower_internal.h"

void czk_fp6_add(czk_fp6 *out, const czk_fp6 *a, const czk_fp6 *b)
{
    fp2_add(&out->c0, &a->c0, &b->c0);
    fp2_add(&out->c1, &a->c1, &b->c1);
    fp2_add(&out->c2, &a->c2, &b->c2);
}

void czk_fp6_sub(czk_fp6 *out, const czk_fp6 *a, const czk_fp6 *b)
{
    fp2_sub(&out->c0, &a->c0, &b->c0);
    fp2_sub(&out->c1, &a->c1, &b->c1);
    fp2_sub(&out->c2, &a->c2, &b->c2);
}

void czk_fp6_neg(czk_fp6 *out, const czk_fp6 *a)
{
    fp2_neg(&out->c0, &a->c0);
    fp2_neg(&out->c1, &a->c1);
    fp2_neg(&out->c2, &a->c2);
}

void czk_fp6_mul_by_nonresidue(czk_fp6 *out, const czk_fp6 *a)
{
    /* (a0 + a1 v + a2 v^2)·v = ξ a2 + a0 v + a1 v^2, since v^3 = ξ. */
    czk_fp2 t;
    fp2_mul_by_nonresidue(&t, &a->c2);
    out->c2 = a->c1;
    out->c1 = a->c0;
    out->c0 = t;
}

void czk_fp6_mul(czk_fp6 *out, const czk_fp6 *a, const czk_fp6 *b)
{
    /* Karatsuba over the three coefficients: 6 Fp2 products instead of 9.
     *   c0 = a0 b0 + ξ (a1 b2 + a2 b1) = t0 + ξ ((a1 + a2)(b1 + b2) − t1 − t2)
     *   c1 = a0 b1 + a1 b0 + ξ a2 b2   = (a0 + a1)(b0 + b1) − t0 − t1 + ξ t2
     *   c2 = a0 b2 + a2 b0 + a1 b1     = (a0 + a2)(b0 + b2) − t0 − t2 + t1 */
    czk_fp2 t0, t1, t2, s, r, c0, c1, c2;
    fp2_mul(&t0, &a->c0, &b->c0);
    fp2_mul(&t1, &a->c1, &b->c1);
    fp2_mul(&t2, &a->c2, &b->c2);

    fp2_add(&s, &a->c1, &a->c2);
    fp2_add(&r, &b->c1, &b->c2);
    fp2_mul(&c0, &s, &r);
    fp2_sub(&c0, &c0, &t1);
    fp2_sub(&c0, &c0, &t2);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_add(&c0, &c0, &t0);

    fp2_add(&s, &a->c0, &a->c1);
    fp2_add(&r, &b->c0, &b->c1);
    fp2_mul(&c1, &s, &r);
    fp2_sub(&c1, &c1, &t0);
    fp2_sub(&c1, &c1, &t1);
    fp2_mul_by_nonresidue(&s, &t2);
    fp2_add(&c1, &c1, &s);

    fp2_add(&s, &a->c0, &a->c2);
    fp2_add(&r, &b->c0, &b->c2);
    fp2_mul(&c2, &s, &r);
    fp2_sub(&c2, &c2, &t0);
    fp2_sub(&c2, &c2, &t2);
    fp2_add(&c2, &c2, &t1);

    out->c0 = c0;
    out->c1 = c1;
    out->c2 = c2;
}

void czk_fp6_sqr(czk_fp6 *out, const czk_fp6 *a)
{
    /* Chung–Hasan SQR2: 2 Fp2 products and 3 Fp2 squarings.
     *   s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 − a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2
     *   c0 = s0 + ξ s3, c1 = s1 + ξ s4, c2 = s1 + s2 + s3 − s0 − s4
     * (s2 expands to a0^2 + a1^2 + a2^2 − 2 a0 a1 + 2 a0 a2 − 2 a1 a2, so the c2 sum leaves
     * a1^2 + 2 a0 a2, the v^2 coefficient of the square.) */
    czk_fp2 s0, s1, s2, s3, s4, t;
    fp2_sqr(&s0, &a->c0);
    fp2_mul(&s1, &a->c0, &a->c1);
    fp2_dbl(&s1, &s1);
    fp2_sub(&t, &a->c0, &a->c1);
    fp2_add(&t, &t, &a->c2);
    fp2_sqr(&s2, &t);
    fp2_mul(&s3, &a->c1, &a->c2);
    fp2_dbl(&s3, &s3);
    fp2_sqr(&s4, &a->c2);

    fp2_mul_by_nonresidue(&t, &s3);
    fp2_add(&out->c0, &s0, &t);
    fp2_add(&out->c2, &s1, &s2);
    fp2_add(&out->c2, &out->c2, &s3);
    fp2_sub(&out->c2, &out->c2, &s0);
    fp2_sub(&out->c2, &out->c2, &s4);
    fp2_mul_by_nonresidue(&t, &s4);
    fp2_add(&out->c1, &s1, &t);
}

void czk_fp6_inv(czk_fp6 *out, const czk_fp6 *a)
{
    /* a^-1 = adj(a)/N(a) with the adjugate
     *   A = a0^2 − ξ a1 a2, B = ξ a2^2 − a0 a1, C = a1^2 − a0 a2
     * and N(a) = a0 A + ξ (a2 B + a1 C) in Fp2; zero maps to zero. */
    czk_fp2 A, B, C, t, n;
    fp2_sqr(&A, &a->c0);
    fp2_mul(&t, &a->c1, &a->c2);
    fp2_mul_by_nonresidue(&t, &t);
    fp2_sub(&A, &A, &t);

    fp2_sqr(&B, &a->c2);
    fp2_mul_by_nonresidue(&B, &B);
    fp2_mul(&t, &a->c0, &a->c1);
    fp2_sub(&B, &B, &t);

    fp2_sqr(&C, &a->c1);
    fp2_mul(&t, &a->c0, &a->c2);
    fp2_sub(&C, &C, &t);

    fp2_mul(&n, &a->c2, &B);
    fp2_mul(&t, &a->c1, &C);
    fp2_add(&n, &n, &t);
    fp2_mul_by_nonresidue(&n, &n);
    fp2_mul(&t, &a->c0, &A);
    fp2_add(&n, &n, &t);
    czk_fp2_inv(&n, &n);

    fp2_mul(&out->c0, &A, &n);
    fp2_mul(&out->c1, &B, &n);
    fp2_mul(&out->c2, &C, &n);
}

bool czk_fp6_eq(const czk_fp6 *a, const czk_fp6 *b)
{
    return czk_fp2_eq(&a->c0, &b->c0) && czk_fp2_eq(&a->c1, &b->c1) &&
           czk_fp2_eq(&a->c2, &b->c2);
}

bool czk_fp6_is_zero(const czk_fp6 *a)
{
    return czk_fp2_is_zero(&a->c0) && czk_fp2_is_zero(&a->c1) && czk_fp2_is_zero(&a->c2);
}

void czk__fp6_mul_by_01(czk_fp6 *out, const czk_fp6 *a, const czk_fp2 *b0, const czk_fp2 *b1)
{
    /* (a0 + a1 v + a2 v^2)(b0 + b1 v), 5 Fp2 products:
     *   c0 = a0 b0 + ξ a2 b1             = t0 + ξ ((a1 + a2) b1 − t1)
     *   c1 = a0 b1 + a1 b0               = (a0 + a1)(b0 + b1) − t0 − t1
     *   c2 = a1 b1 + a2 b0               = (a0 + a2) b0 − t0 + t1 */
    czk_fp2 t0, t1, s, r, c0, c1, c2;
    fp2_mul(&t0, &a->c0, b0);
    fp2_mul(&t1, &a->c1, b1);

    fp2_add(&s, &a->c1, &a->c2);
    fp2_mul(&c0, &s, b1);
    fp2_sub(&c0, &c0, &t1);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_add(&c0, &c0, &t0);

    fp2_add(&s, &a->c0, &a->c1);
    fp2_add(&r, b0, b1);
    fp2_mul(&c1, &s, &r);
    fp2_sub(&c1, &c1, &t0);
    fp2_sub(&c1, &c1, &t1);

    fp2_add(&s, &a->c0, &a->c2);
    fp2_mul(&c2, &s, b0);
    fp2_sub(&c2, &c2, &t0);
    fp2_add(&c2, &c2, &t1);

    out->c0 = c0;
    out->c1 = c1;
    out->c2 = c2;
}

void czk__fp6_mul_by_1(czk_fp6 *out, const czk_fp6 *a, const czk_fp2 *b1)
{
    /* (a0 + a1 v + a2 v^2)·b1 v = ξ a2 b1 + a0 b1 v + a1 b1 v^2. */
    czk_fp2 c0;
    fp2_mul(&c0, &a->c2, b1);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_mul(&out->c2, &a->c1, b1);
    fp2_mul(&out->c1, &a->c0, b1);
    out->c0 = c0;
}
