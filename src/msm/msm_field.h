/*
 * Private to src/msm: inline Fp and Fp2 addition, subtraction and tests for the MSM's
 * inner loops. A batch-affine or XYZZ addition does about as many additions as
 * multiplications; the library's czk_fp_add is a call across translation units, and
 * inlining the cheap operations here while the multiplications stay calls into the
 * field back end (czk_fp_mul: portable or mulx/adx) keeps the hot loop free of call
 * overhead where it matters. Same semantics as czk_fp_add etc.: inputs and outputs
 * fully reduced, Montgomery form, aliasing allowed.
 */
#ifndef CZK_MSM_FIELD_H
#define CZK_MSM_FIELD_H

#include "czk/bls12_381.h"

typedef unsigned __int128 msm_u128;

#if defined(__x86_64__)
/*
 * x86-64: one add/adc (sub/sbb) chain in registers. GCC 12 neither unrolls the portable
 * limb loops below at -O2 nor keeps them in registers (it spills to the stack), which made
 * these cheap operations cost almost half as much as the multiplications in the
 * batch-affine loop. The result is selected with cmov, without branches.
 */
static inline void msm_fp_add(czk_fp *r, const czk_fp *a, const czk_fp *b)
{
    uint64_t t0, t1, t2, t3, t4, t5;
    /* t = a + b (< 2^382, no carry out); store it; t −= p; on a borrow, reload a + b. */
    __asm__ volatile("mov 0(%[a]), %[t0]\n\t"
                     "mov 8(%[a]), %[t1]\n\t"
                     "mov 16(%[a]), %[t2]\n\t"
                     "mov 24(%[a]), %[t3]\n\t"
                     "mov 32(%[a]), %[t4]\n\t"
                     "mov 40(%[a]), %[t5]\n\t"
                     "add 0(%[b]), %[t0]\n\t"
                     "adc 8(%[b]), %[t1]\n\t"
                     "adc 16(%[b]), %[t2]\n\t"
                     "adc 24(%[b]), %[t3]\n\t"
                     "adc 32(%[b]), %[t4]\n\t"
                     "adc 40(%[b]), %[t5]\n\t"
                     "mov %[t0], 0(%[r])\n\t"
                     "mov %[t1], 8(%[r])\n\t"
                     "mov %[t2], 16(%[r])\n\t"
                     "mov %[t3], 24(%[r])\n\t"
                     "mov %[t4], 32(%[r])\n\t"
                     "mov %[t5], 40(%[r])\n\t"
                     "sub 0(%[p]), %[t0]\n\t"
                     "sbb 8(%[p]), %[t1]\n\t"
                     "sbb 16(%[p]), %[t2]\n\t"
                     "sbb 24(%[p]), %[t3]\n\t"
                     "sbb 32(%[p]), %[t4]\n\t"
                     "sbb 40(%[p]), %[t5]\n\t"
                     "cmovc 0(%[r]), %[t0]\n\t"
                     "cmovc 8(%[r]), %[t1]\n\t"
                     "cmovc 16(%[r]), %[t2]\n\t"
                     "cmovc 24(%[r]), %[t3]\n\t"
                     "cmovc 32(%[r]), %[t4]\n\t"
                     "cmovc 40(%[r]), %[t5]\n\t"
                     "mov %[t0], 0(%[r])\n\t"
                     "mov %[t1], 8(%[r])\n\t"
                     "mov %[t2], 16(%[r])\n\t"
                     "mov %[t3], 24(%[r])\n\t"
                     "mov %[t4], 32(%[r])\n\t"
                     "mov %[t5], 40(%[r])"
                     : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
                       [t4] "=&r"(t4), [t5] "=&r"(t5)
                     : [r] "r"(r->l), [a] "r"(a->l), [b] "r"(b->l), [p] "r"(CZK_FP_MODULUS)
                     : "cc", "memory");
}

static inline void msm_fp_sub(czk_fp *r, const czk_fp *a, const czk_fp *b)
{
    uint64_t t0, t1, t2, t3, t4, t5, m;
    /* t = a − b, m = −borrow; store t; t += p; without a borrow, reload a − b. */
    __asm__ volatile("mov 0(%[a]), %[t0]\n\t"
                     "mov 8(%[a]), %[t1]\n\t"
                     "mov 16(%[a]), %[t2]\n\t"
                     "mov 24(%[a]), %[t3]\n\t"
                     "mov 32(%[a]), %[t4]\n\t"
                     "mov 40(%[a]), %[t5]\n\t"
                     "sub 0(%[b]), %[t0]\n\t"
                     "sbb 8(%[b]), %[t1]\n\t"
                     "sbb 16(%[b]), %[t2]\n\t"
                     "sbb 24(%[b]), %[t3]\n\t"
                     "sbb 32(%[b]), %[t4]\n\t"
                     "sbb 40(%[b]), %[t5]\n\t"
                     "sbb %[m], %[m]\n\t"
                     "mov %[t0], 0(%[r])\n\t"
                     "mov %[t1], 8(%[r])\n\t"
                     "mov %[t2], 16(%[r])\n\t"
                     "mov %[t3], 24(%[r])\n\t"
                     "mov %[t4], 32(%[r])\n\t"
                     "mov %[t5], 40(%[r])\n\t"
                     "add 0(%[p]), %[t0]\n\t"
                     "adc 8(%[p]), %[t1]\n\t"
                     "adc 16(%[p]), %[t2]\n\t"
                     "adc 24(%[p]), %[t3]\n\t"
                     "adc 32(%[p]), %[t4]\n\t"
                     "adc 40(%[p]), %[t5]\n\t"
                     "test %[m], %[m]\n\t"
                     "cmovz 0(%[r]), %[t0]\n\t"
                     "cmovz 8(%[r]), %[t1]\n\t"
                     "cmovz 16(%[r]), %[t2]\n\t"
                     "cmovz 24(%[r]), %[t3]\n\t"
                     "cmovz 32(%[r]), %[t4]\n\t"
                     "cmovz 40(%[r]), %[t5]\n\t"
                     "mov %[t0], 0(%[r])\n\t"
                     "mov %[t1], 8(%[r])\n\t"
                     "mov %[t2], 16(%[r])\n\t"
                     "mov %[t3], 24(%[r])\n\t"
                     "mov %[t4], 32(%[r])\n\t"
                     "mov %[t5], 40(%[r])"
                     : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
                       [t4] "=&r"(t4), [t5] "=&r"(t5), [m] "=&r"(m)
                     : [r] "r"(r->l), [a] "r"(a->l), [b] "r"(b->l), [p] "r"(CZK_FP_MODULUS)
                     : "cc", "memory");
}
#else
static inline void msm_fp_add(czk_fp *r, const czk_fp *a, const czk_fp *b)
{
    const uint64_t *p = CZK_FP_MODULUS;
    uint64_t t[6], s[6];
    msm_u128 c = 0;
    /* p < 2^381, so a + b < 2^382 fits six limbs without a carry out. */
    for (int i = 0; i < 6; i++) {
        c += (msm_u128)a->l[i] + b->l[i];
        t[i] = (uint64_t)c;
        c >>= 64;
    }
    uint64_t borrow = 0;
    for (int i = 0; i < 6; i++) {
        msm_u128 d = (msm_u128)t[i] - p[i] - borrow;
        s[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t keep_t = (uint64_t)0 - borrow; /* t < p: no subtraction */
    for (int i = 0; i < 6; i++) r->l[i] = (t[i] & keep_t) | (s[i] & ~keep_t);
}

static inline void msm_fp_sub(czk_fp *r, const czk_fp *a, const czk_fp *b)
{
    const uint64_t *p = CZK_FP_MODULUS;
    uint64_t t[6], borrow = 0;
    for (int i = 0; i < 6; i++) {
        msm_u128 d = (msm_u128)a->l[i] - b->l[i] - borrow;
        t[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t mask = (uint64_t)0 - borrow; /* a < b: add p back */
    msm_u128 c = 0;
    for (int i = 0; i < 6; i++) {
        c += (msm_u128)t[i] + (p[i] & mask);
        r->l[i] = (uint64_t)c;
        c >>= 64;
    }
}
#endif

static inline bool msm_fp_is_zero(const czk_fp *a)
{
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}

static inline void msm_fp_neg(czk_fp *r, const czk_fp *a)
{
    const uint64_t *p = CZK_FP_MODULUS;
    uint64_t mask = msm_fp_is_zero(a) ? 0 : ~(uint64_t)0;
    uint64_t borrow = 0;
    for (int i = 0; i < 6; i++) {
        msm_u128 d = (msm_u128)p[i] - a->l[i] - borrow;
        r->l[i] = (uint64_t)d & mask;
        borrow = (uint64_t)(d >> 64) & 1;
    }
}

static inline bool msm_fp_eq(const czk_fp *a, const czk_fp *b)
{
    uint64_t acc = 0;
    for (int i = 0; i < 6; i++) acc |= a->l[i] ^ b->l[i];
    return acc == 0;
}

/* Fp2 = Fp[u]/(u^2 + 1). */
static inline void msm_fp2_add(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b)
{
    msm_fp_add(&r->c0, &a->c0, &b->c0);
    msm_fp_add(&r->c1, &a->c1, &b->c1);
}

static inline void msm_fp2_sub(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b)
{
    msm_fp_sub(&r->c0, &a->c0, &b->c0);
    msm_fp_sub(&r->c1, &a->c1, &b->c1);
}

static inline void msm_fp2_neg(czk_fp2 *r, const czk_fp2 *a)
{
    msm_fp_neg(&r->c0, &a->c0);
    msm_fp_neg(&r->c1, &a->c1);
}

static inline bool msm_fp2_is_zero(const czk_fp2 *a)
{
    return msm_fp_is_zero(&a->c0) && msm_fp_is_zero(&a->c1);
}

static inline bool msm_fp2_eq(const czk_fp2 *a, const czk_fp2 *b)
{
    return msm_fp_eq(&a->c0, &b->c0) && msm_fp_eq(&a->c1, &b->c1);
}

/* Karatsuba: three Fp products. */
static inline void msm_fp2_mul(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b)
{
    czk_fp t0, t1, s0, s1;
    czk_fp_mul(&t0, &a->c0, &b->c0);
    czk_fp_mul(&t1, &a->c1, &b->c1);
    msm_fp_add(&s0, &a->c0, &a->c1);
    msm_fp_add(&s1, &b->c0, &b->c1);
    czk_fp_mul(&s0, &s0, &s1);
    msm_fp_sub(&s0, &s0, &t0);
    msm_fp_sub(&r->c1, &s0, &t1);
    msm_fp_sub(&r->c0, &t0, &t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 − a1) + 2 a0 a1 u: two Fp products. */
static inline void msm_fp2_sqr(czk_fp2 *r, const czk_fp2 *a)
{
    czk_fp s, d, m;
    msm_fp_add(&s, &a->c0, &a->c1);
    msm_fp_sub(&d, &a->c0, &a->c1);
    czk_fp_mul(&m, &a->c0, &a->c1);
    czk_fp_mul(&r->c0, &s, &d);
    msm_fp_add(&r->c1, &m, &m);
}

#endif
