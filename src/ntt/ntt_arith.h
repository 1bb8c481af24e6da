/*
 * Private to src/ntt: the Fr operations of the butterflies, inlined.
 *
 * A transform of 2^k points spends almost all its time in about k·2^(k-1)
 * multiplications and twice as many additions, so add and sub are static inline copies
 * specialised to four limbs rather than calls into src/ff: a call per addition would
 * cost more than the addition. Values are fully reduced Montgomery residues, as
 * everywhere in czk.
 *
 * Multiplication: with the adx back end, src/ff's mulx/adcx/adox routine (a call). With
 * the portable one, the "no-carry" CIOS below: r's top limb is below 2^62, so each row
 * is two multiply-accumulate chains without a fifth carry word.
 */
#ifndef CZK_NTT_ARITH_H
#define CZK_NTT_ARITH_H

#include "czk/bls12_381.h"
#include "ff/consts.h"
#include "ff/ff_internal.h"

#include <stdint.h>

typedef unsigned __int128 ntt_u128;

static const uint64_t NTT_R[4] = CZK__FR_P;
#define NTT_R_INV CZK__FR_INV

#if defined(__x86_64__)
#include <x86intrin.h>
/* Carry chains for the C code paths: gcc turns unsigned __int128 additions into stack
 * spills, the carry intrinsics into adc/sbb. */
#define NTT_ADDC(c, a, b, out) ((c) = _addcarry_u64((c), (a), (b), (unsigned long long *)(out)))
#define NTT_SUBB(c, a, b, out) ((c) = _subborrow_u64((c), (a), (b), (unsigned long long *)(out)))
#else
#define NTT_ADDC(c, a, b, out)                                                                     \
    do {                                                                                           \
        ntt_u128 s_ = (ntt_u128)(a) + (b) + (c);                                                   \
        *(out) = (uint64_t)s_;                                                                     \
        (c) = (unsigned char)(s_ >> 64);                                                           \
    } while (0)
#define NTT_SUBB(c, a, b, out)                                                                     \
    do {                                                                                           \
        ntt_u128 d_ = (ntt_u128)(a) - (b) - (c);                                                   \
        *(out) = (uint64_t)d_;                                                                     \
        (c) = (unsigned char)((d_ >> 64) & 1);                                                     \
    } while (0)
#endif

/* out = t - r when t >= r, else t (t < 2r). The selection is a mask: written as a
 * conditional, gcc 12 emits a branch, which mispredicts half the time on random data. */
static inline __attribute__((always_inline)) void ntt_reduce_once(czk_fr *out, const uint64_t t[4])
{
    uint64_t s0, s1, s2, s3;
    unsigned char b = 0;
    NTT_SUBB(b, t[0], NTT_R[0], &s0);
    NTT_SUBB(b, t[1], NTT_R[1], &s1);
    NTT_SUBB(b, t[2], NTT_R[2], &s2);
    NTT_SUBB(b, t[3], NTT_R[3], &s3);
    uint64_t keep = (uint64_t)0 - b; /* a borrow: t < r, keep t */
    out->l[0] = s0 ^ ((t[0] ^ s0) & keep);
    out->l[1] = s1 ^ ((t[1] ^ s1) & keep);
    out->l[2] = s2 ^ ((t[2] ^ s2) & keep);
    out->l[3] = s3 ^ ((t[3] ^ s3) & keep);
}

/*
 * On x86-64 add and sub are a few lines of assembly (plain x86-64: no BMI2/ADX needed);
 * elsewhere, or with -DCZK_NTT_NO_ASM (to test it), the C in the #else branch.
 * From the carry intrinsics gcc 12 makes a branch for the final selection, SSE shuffles,
 * or saves and restores the carry flag inside the chain; on the 2-core EPYC dev machine
 * this assembly took an add from 5.4 to 1.6 ns and add+sub from 8.2 to 3.1 ns, and the
 * butterfly from 23.5 to 20.1 ns (with the 16.4 ns adx multiplication).
 */
#if defined(__x86_64__) && !defined(CZK_NTT_NO_ASM)
static inline __attribute__((always_inline)) void ntt_add(czk_fr *out, const czk_fr *a,
                                                          const czk_fr *b)
{
    /* a, b < r < 2^255: the sum t fits in four limbs; then t - r unless that borrows. */
    uint64_t t0, t1, t2, t3, s0, s1, s2, s3;
    __asm__("mov 0(%[a]), %[t0]\n\t"
            "add 0(%[b]), %[t0]\n\t"
            "mov 8(%[a]), %[t1]\n\t"
            "adc 8(%[b]), %[t1]\n\t"
            "mov 16(%[a]), %[t2]\n\t"
            "adc 16(%[b]), %[t2]\n\t"
            "mov 24(%[a]), %[t3]\n\t"
            "adc 24(%[b]), %[t3]\n\t"
            "mov %[t0], %[s0]\n\t"
            "sub %[p], %[s0]\n\t"
            "mov %[t1], %[s1]\n\t"
            "sbb 8+%[p], %[s1]\n\t"
            "mov %[t2], %[s2]\n\t"
            "sbb 16+%[p], %[s2]\n\t"
            "mov %[t3], %[s3]\n\t"
            "sbb 24+%[p], %[s3]\n\t"
            "cmovc %[t0], %[s0]\n\t"
            "cmovc %[t1], %[s1]\n\t"
            "cmovc %[t2], %[s2]\n\t"
            "cmovc %[t3], %[s3]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [s0] "=&r"(s0),
              [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
            : [a] "r"(a->l), [b] "r"(b->l), "m"(*(const uint64_t(*)[4])a->l),
              "m"(*(const uint64_t(*)[4])b->l), [p] "m"(NTT_R)
            : "cc");
    out->l[0] = s0;
    out->l[1] = s1;
    out->l[2] = s2;
    out->l[3] = s3;
}

static inline __attribute__((always_inline)) void ntt_sub(czk_fr *out, const czk_fr *a,
                                                          const czk_fr *b)
{
    /* t = a - b; if that borrows, t + r. */
    uint64_t t0, t1, t2, t3, u0, u1, u2, u3, m;
    __asm__("mov 0(%[a]), %[t0]\n\t"
            "sub 0(%[b]), %[t0]\n\t"
            "mov 8(%[a]), %[t1]\n\t"
            "sbb 8(%[b]), %[t1]\n\t"
            "mov 16(%[a]), %[t2]\n\t"
            "sbb 16(%[b]), %[t2]\n\t"
            "mov 24(%[a]), %[t3]\n\t"
            "sbb 24(%[b]), %[t3]\n\t"
            "sbb %[m], %[m]\n\t"
            "mov %[t0], %[u0]\n\t"
            "add %[p], %[u0]\n\t"
            "mov %[t1], %[u1]\n\t"
            "adc 8+%[p], %[u1]\n\t"
            "mov %[t2], %[u2]\n\t"
            "adc 16+%[p], %[u2]\n\t"
            "mov %[t3], %[u3]\n\t"
            "adc 24+%[p], %[u3]\n\t"
            "test %[m], %[m]\n\t"
            "cmovnz %[u0], %[t0]\n\t"
            "cmovnz %[u1], %[t1]\n\t"
            "cmovnz %[u2], %[t2]\n\t"
            "cmovnz %[u3], %[t3]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [u0] "=&r"(u0),
              [u1] "=&r"(u1), [u2] "=&r"(u2), [u3] "=&r"(u3), [m] "=&r"(m)
            : [a] "r"(a->l), [b] "r"(b->l), "m"(*(const uint64_t(*)[4])a->l),
              "m"(*(const uint64_t(*)[4])b->l), [p] "m"(NTT_R)
            : "cc");
    out->l[0] = t0;
    out->l[1] = t1;
    out->l[2] = t2;
    out->l[3] = t3;
}
#else
static inline __attribute__((always_inline)) void ntt_add(czk_fr *out, const czk_fr *a,
                                                          const czk_fr *b)
{
    /* a, b < r < 2^255: the sum fits in four limbs. */
    uint64_t t[4];
    unsigned char c = 0;
    NTT_ADDC(c, a->l[0], b->l[0], &t[0]);
    NTT_ADDC(c, a->l[1], b->l[1], &t[1]);
    NTT_ADDC(c, a->l[2], b->l[2], &t[2]);
    NTT_ADDC(c, a->l[3], b->l[3], &t[3]);
    ntt_reduce_once(out, t);
}

static inline __attribute__((always_inline)) void ntt_sub(czk_fr *out, const czk_fr *a,
                                                          const czk_fr *b)
{
    uint64_t t[4];
    unsigned char c = 0;
    NTT_SUBB(c, a->l[0], b->l[0], &t[0]);
    NTT_SUBB(c, a->l[1], b->l[1], &t[1]);
    NTT_SUBB(c, a->l[2], b->l[2], &t[2]);
    NTT_SUBB(c, a->l[3], b->l[3], &t[3]);
    /* a < b: add r back. The masked words are formed before the carry chain, so that no
     * flag-clobbering `and` sits inside it (gcc would save and restore the carry). */
    uint64_t mask = (uint64_t)0 - c;
    uint64_t m0 = NTT_R[0] & mask, m1 = NTT_R[1] & mask, m2 = NTT_R[2] & mask, m3 = NTT_R[3] & mask;
    c = 0;
    NTT_ADDC(c, t[0], m0, &out->l[0]);
    NTT_ADDC(c, t[1], m1, &out->l[1]);
    NTT_ADDC(c, t[2], m2, &out->l[2]);
    NTT_ADDC(c, t[3], m3, &out->l[3]);
}

#endif

#if !defined(CZK_FF_ADX)
static inline __attribute__((always_inline)) void ntt_mul_c(czk_fr *out, const czk_fr *a,
                                                            const czk_fr *b)
{
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t bi = b->l[i];
        ntt_u128 c = (ntt_u128)a->l[0] * bi + t0;
        t0 = (uint64_t)c;
        uint64_t hi_a = (uint64_t)(c >> 64);
        uint64_t m = t0 * NTT_R_INV;
        c = (ntt_u128)m * NTT_R[0] + t0;
        uint64_t hi_m = (uint64_t)(c >> 64);
        c = (ntt_u128)a->l[1] * bi + t1 + hi_a;
        t1 = (uint64_t)c;
        hi_a = (uint64_t)(c >> 64);
        c = (ntt_u128)m * NTT_R[1] + t1 + hi_m;
        t0 = (uint64_t)c;
        hi_m = (uint64_t)(c >> 64);
        c = (ntt_u128)a->l[2] * bi + t2 + hi_a;
        t2 = (uint64_t)c;
        hi_a = (uint64_t)(c >> 64);
        c = (ntt_u128)m * NTT_R[2] + t2 + hi_m;
        t1 = (uint64_t)c;
        hi_m = (uint64_t)(c >> 64);
        c = (ntt_u128)a->l[3] * bi + t3 + hi_a;
        t3 = (uint64_t)c;
        hi_a = (uint64_t)(c >> 64);
        c = (ntt_u128)m * NTT_R[3] + t3 + hi_m;
        t2 = (uint64_t)c;
        hi_m = (uint64_t)(c >> 64);
        t3 = hi_m + hi_a;
    }
    const uint64_t t[4] = {t0, t1, t2, t3};
    ntt_reduce_once(out, t);
}
#endif

static inline __attribute__((always_inline)) void ntt_mul(czk_fr *out, const czk_fr *a,
                                                          const czk_fr *b)
{
    /* With the adx back end, src/ff's mulx/adcx/adox routine. An inlined copy of it, and
     * one specialised to r's low limb 2^64 - 2^32 + 1 (28 instead of 36 multiplications),
     * measured no faster, within noise, on the dev machine and the H200 host. */
#if defined(CZK_FF_ADX)
    czk__fr_mul_adx(out, a, b);
#else
    ntt_mul_c(out, a, b);
#endif
}

/* Decimation-in-frequency butterfly: (u, v) <- (u + v, (u - v)·w). */
static inline __attribute__((always_inline)) void ntt_bfly(czk_fr *u, czk_fr *v, const czk_fr *w)
{
    czk_fr d;
    ntt_sub(&d, u, v);
    ntt_add(u, u, v);
    ntt_mul(v, &d, w);
}

/* The same with w = 1. */
static inline __attribute__((always_inline)) void ntt_bfly1(czk_fr *u, czk_fr *v)
{
    czk_fr d;
    ntt_sub(&d, u, v);
    ntt_add(u, u, v);
    *v = d;
}

#endif
