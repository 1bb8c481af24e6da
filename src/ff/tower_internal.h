/*
 * Private to src/ff and src/ec: the Fp6/Fp12 tower's inner arithmetic and the sparse and
 * cyclotomic operations the pairing needs, none of which is part of the public field API.
 *
 * A pairing performs about 40 000 Fp additions and subtractions next to 15 000 products,
 * and an addition costs about as much as the call that would reach it: with calls to
 * czk_fp_add and czk_fp2_* the additions took more than half of a pairing (perf, Zen 4).
 * So the tower inlines mont.h's additions and its own Fp2 helpers, and its products call
 * the configured multiplication back end directly instead of through czk_fp_mul.
 */
#ifndef CZK_TOWER_INTERNAL_H
#define CZK_TOWER_INTERNAL_H

#include "czk/bls12_381.h"
#include "consts.h"
#include "ff_internal.h"
#include "mont.h"

static const uint64_t TOWER_P[6] = CZK__FP_P;

/* mont.h's additions, inlined: on x86-64 they are one carry chain, a trial subtraction and
 * a cmov select. */
static inline void fp_add(czk_fp *out, const czk_fp *a, const czk_fp *b)
{
    mont_add(out->l, a->l, b->l, TOWER_P, 6);
}

static inline void fp_sub(czk_fp *out, const czk_fp *a, const czk_fp *b)
{
    mont_sub(out->l, a->l, b->l, TOWER_P, 6);
}

static inline void fp_dbl(czk_fp *out, const czk_fp *a) { fp_add(out, a, a); }

static inline void fp_neg(czk_fp *out, const czk_fp *a)
{
    /* 0 − a: p − a for a ≠ 0, and 0 for 0. */
    fp_sub(out, &CZK_FP_ZERO, a);
}

static inline void fp_mul(czk_fp *out, const czk_fp *a, const czk_fp *b)
{
#if defined(CZK_FF_ADX)
    czk__fp_mul_adx(out, a, b);
#else
    czk__fp_mul_portable(out, a, b);
#endif
}

/* --- Fp2 --- */

static inline void fp2_add(czk_fp2 *out, const czk_fp2 *a, const czk_fp2 *b)
{
    fp_add(&out->c0, &a->c0, &b->c0);
    fp_add(&out->c1, &a->c1, &b->c1);
}

static inline void fp2_sub(czk_fp2 *out, const czk_fp2 *a, const czk_fp2 *b)
{
    fp_sub(&out->c0, &a->c0, &b->c0);
    fp_sub(&out->c1, &a->c1, &b->c1);
}

static inline void fp2_dbl(czk_fp2 *out, const czk_fp2 *a)
{
    fp_add(&out->c0, &a->c0, &a->c0);
    fp_add(&out->c1, &a->c1, &a->c1);
}

static inline void fp2_neg(czk_fp2 *out, const czk_fp2 *a)
{
    fp_neg(&out->c0, &a->c0);
    fp_neg(&out->c1, &a->c1);
}

static inline void fp2_conj(czk_fp2 *out, const czk_fp2 *a)
{
    out->c0 = a->c0;
    fp_neg(&out->c1, &a->c1);
}

/* a·ξ = (a0 + a1 u)(1 + u) = (a0 − a1) + (a0 + a1) u. */
static inline void fp2_mul_by_nonresidue(czk_fp2 *out, const czk_fp2 *a)
{
    czk_fp t;
    fp_sub(&t, &a->c0, &a->c1);
    fp_add(&out->c1, &a->c0, &a->c1);
    out->c0 = t;
}

/* Karatsuba: (a0 b0 − a1 b1) + ((a0 + a1)(b0 + b1) − a0 b0 − a1 b1) u. */
static inline void fp2_mul(czk_fp2 *out, const czk_fp2 *a, const czk_fp2 *b)
{
    czk_fp t0, t1, s0, s1;
    fp_mul(&t0, &a->c0, &b->c0);
    fp_mul(&t1, &a->c1, &b->c1);
    fp_add(&s0, &a->c0, &a->c1);
    fp_add(&s1, &b->c0, &b->c1);
    fp_mul(&s0, &s0, &s1);
    fp_sub(&s0, &s0, &t0);
    fp_sub(&out->c1, &s0, &t1);
    fp_sub(&out->c0, &t0, &t1);
}

/* Complex squaring: (a0 + a1)(a0 − a1) + 2 a0 a1 u. */
static inline void fp2_sqr(czk_fp2 *out, const czk_fp2 *a)
{
    czk_fp s, d, m;
    fp_add(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    fp_mul(&m, &a->c0, &a->c1);
    fp_mul(&out->c0, &s, &d);
    fp_add(&out->c1, &m, &m);
}

static inline void fp2_mul_fp(czk_fp2 *out, const czk_fp2 *a, const czk_fp *b)
{
    fp_mul(&out->c0, &a->c0, b);
    fp_mul(&out->c1, &a->c1, b);
}

/* --- Sparse and cyclotomic operations (fp6.c, fp12.c) --- */

/* out = a · (b0 + b1·v): a product with an Fp6 element whose v^2 coefficient is zero. */
void czk__fp6_mul_by_01(czk_fp6 *out, const czk_fp6 *a, const czk_fp2 *b0, const czk_fp2 *b1);

/* out = a · (b1·v). */
void czk__fp6_mul_by_1(czk_fp6 *out, const czk_fp6 *a, const czk_fp2 *b1);

/*
 * f ·= (c0 + c1·v) + (c4·v)·w, the product with a Miller-loop line for the M-twist: the
 * line has non-zero coefficients only at c0.c0, c0.c1 and c1.c1 (basis positions 0, 1 and 4
 * of (c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2)).
 */
void czk__fp12_mul_by_014(czk_fp12 *f, const czk_fp2 *c0, const czk_fp2 *c1, const czk_fp2 *c4);

/* Granger–Scott squaring, correct only on the cyclotomic subgroup (elements with
 * a^(p^4 − p^2 + 1) = 1), where every value lies after the easy part of the final
 * exponentiation: 9 Fp2 squarings instead of the 12 Fp2 products of a general square. */
void czk__fp12_cyclotomic_sqr(czk_fp12 *out, const czk_fp12 *a);

#endif
