/*
 * Generic Montgomery arithmetic over n 64-bit limbs, portable C with unsigned __int128.
 * Every function is static inline and takes n as a compile-time constant at its call sites
 * (fp.c: 6, fr.c: 4), so the compiler unrolls the loops. These are the reference back end;
 * the x86-64 mulx/adx back end (ff_adx.c) replaces mul/sqr when CZK_FF_ADX is defined and
 * a test cross-checks the two. mont_add and mont_sub also have x86-64 asm paths for four
 * and six limbs (below), used in optimised builds whatever the multiplication back end.
 */
#ifndef CZK_FF_MONT_H
#define CZK_FF_MONT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef unsigned __int128 czk__u128;

#define CZK__MONT_MAX_LIMBS 6

/* r = t - m if t (with overflow word hi) >= m, else t. */
static inline void mont_final_sub(uint64_t *r, const uint64_t *t, uint64_t hi, const uint64_t *m,
                                  int n)
{
    uint64_t s[CZK__MONT_MAX_LIMBS];
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        czk__u128 d = (czk__u128)t[i] - m[i] - borrow;
        s[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    /* Keep t only when t < m, that is a borrow and no overflow word. */
    uint64_t keep_t = (uint64_t)0 - (uint64_t)(borrow & (hi == 0));
    for (int i = 0; i < n; i++) r[i] = (t[i] & keep_t) | (s[i] & ~keep_t);
}

/* CIOS Montgomery multiplication: r = a·b·2^(-64n) mod m, for a, b < m. */
static inline void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            uint64_t inv, int n)
{
    uint64_t t[CZK__MONT_MAX_LIMBS + 2] = {0};
    for (int i = 0; i < n; i++) {
        czk__u128 c = 0;
        for (int j = 0; j < n; j++) {
            c += (czk__u128)a[j] * b[i] + t[j];
            t[j] = (uint64_t)c;
            c >>= 64;
        }
        c += t[n];
        t[n] = (uint64_t)c;
        t[n + 1] = (uint64_t)(c >> 64);
        uint64_t k = t[0] * inv;
        c = (czk__u128)k * m[0] + t[0];
        c >>= 64;
        for (int j = 1; j < n; j++) {
            c += (czk__u128)k * m[j] + t[j];
            t[j - 1] = (uint64_t)c;
            c >>= 64;
        }
        c += t[n];
        t[n - 1] = (uint64_t)c;
        t[n] = t[n + 1] + (uint64_t)(c >> 64);
    }
    mont_final_sub(r, t, t[n], m, n);
}

#if defined(__x86_64__) && defined(__GNUC__) && defined(__OPTIMIZE__)
/*
 * x86-64 fast paths for the 4- and 6-limb additions (Fr and Fp): one add/adc chain, a
 * trial subtraction or addition of m, and a cmov select, about 4 ns for 6 limbs on the
 * Zen 4 CI machine against about 12 ns for the generic loops below, which GCC 12 compiles
 * with 128-bit temporaries, spills and vector reloads. Both of czk's moduli leave the top
 * bit free (m < 2^(64n−1)), so a + b never carries out of n limbs and d + m below
 * never exceeds 2^(64n) twice; mont_add and mont_sub take these paths only when m's top
 * bit is clear (a test the compiler folds for constant moduli). The a and b pointer registers are reused as scratch once read, which
 * keeps each asm at 12 registers, few enough for frame-pointer builds. Unoptimised builds
 * (-O0 gives every memory operand its own address register) use the generic loops.
 */
/* r = a + b mod m for n = 6. */
static inline void mont_add6_asm(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *m)
{
    uint64_t t0, t1, t2, t3, t4, t5, s0, s1, s2, s3;
    uint64_t ra = (uintptr_t)a, rb = (uintptr_t)b;
    __asm__("mov 0(%[ra]), %[t0]\n\t"
            "mov 8(%[ra]), %[t1]\n\t"
            "mov 16(%[ra]), %[t2]\n\t"
            "mov 24(%[ra]), %[t3]\n\t"
            "mov 32(%[ra]), %[t4]\n\t"
            "mov 40(%[ra]), %[t5]\n\t"
            "add 0(%[rb]), %[t0]\n\t"
            "adc 8(%[rb]), %[t1]\n\t"
            "adc 16(%[rb]), %[t2]\n\t"
            "adc 24(%[rb]), %[t3]\n\t"
            "adc 32(%[rb]), %[t4]\n\t"
            "adc 40(%[rb]), %[t5]\n\t"
            /* s = t − m; keep t where that borrows (t < m). */
            "mov %[t0], %[s0]\n\t"
            "mov %[t1], %[s1]\n\t"
            "mov %[t2], %[s2]\n\t"
            "mov %[t3], %[s3]\n\t"
            "mov %[t4], %[ra]\n\t"
            "mov %[t5], %[rb]\n\t"
            "sub %[m0], %[s0]\n\t"
            "sbb %[m1], %[s1]\n\t"
            "sbb %[m2], %[s2]\n\t"
            "sbb %[m3], %[s3]\n\t"
            "sbb %[m4], %[ra]\n\t"
            "sbb %[m5], %[rb]\n\t"
            "cmovc %[t0], %[s0]\n\t"
            "cmovc %[t1], %[s1]\n\t"
            "cmovc %[t2], %[s2]\n\t"
            "cmovc %[t3], %[s3]\n\t"
            "cmovc %[t4], %[ra]\n\t"
            "cmovc %[t5], %[rb]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
              [ra] "+r"(ra), [rb] "+r"(rb)
            : [m0] "m"(m[0]), [m1] "m"(m[1]), [m2] "m"(m[2]), [m3] "m"(m[3]), [m4] "m"(m[4]),
              [m5] "m"(m[5])
            : "cc", "memory");
    r[0] = s0, r[1] = s1, r[2] = s2, r[3] = s3, r[4] = ra, r[5] = rb;
}

/*
 * r = a − b mod m for n = 6: d = a − b, e = d + m, and a cmov on the carry out of the
 * second chain, which equals the borrow of the first (for a, b < m, d + m wraps past
 * 2^384 exactly when a < b), so no register has to keep the borrow.
 */
static inline void mont_sub6_asm(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *m)
{
    uint64_t t0, t1, t2, t3, t4, t5, s0, s1, s2, s3;
    uint64_t ra = (uintptr_t)a, rb = (uintptr_t)b;
    __asm__("mov 0(%[ra]), %[t0]\n\t"
            "mov 8(%[ra]), %[t1]\n\t"
            "mov 16(%[ra]), %[t2]\n\t"
            "mov 24(%[ra]), %[t3]\n\t"
            "mov 32(%[ra]), %[t4]\n\t"
            "mov 40(%[ra]), %[t5]\n\t"
            "sub 0(%[rb]), %[t0]\n\t"
            "sbb 8(%[rb]), %[t1]\n\t"
            "sbb 16(%[rb]), %[t2]\n\t"
            "sbb 24(%[rb]), %[t3]\n\t"
            "sbb 32(%[rb]), %[t4]\n\t"
            "sbb 40(%[rb]), %[t5]\n\t"
            "mov %[t0], %[s0]\n\t"
            "mov %[t1], %[s1]\n\t"
            "mov %[t2], %[s2]\n\t"
            "mov %[t3], %[s3]\n\t"
            "mov %[t4], %[ra]\n\t"
            "mov %[t5], %[rb]\n\t"
            "add %[m0], %[s0]\n\t"
            "adc %[m1], %[s1]\n\t"
            "adc %[m2], %[s2]\n\t"
            "adc %[m3], %[s3]\n\t"
            "adc %[m4], %[ra]\n\t"
            "adc %[m5], %[rb]\n\t"
            "cmovnc %[t0], %[s0]\n\t"
            "cmovnc %[t1], %[s1]\n\t"
            "cmovnc %[t2], %[s2]\n\t"
            "cmovnc %[t3], %[s3]\n\t"
            "cmovnc %[t4], %[ra]\n\t"
            "cmovnc %[t5], %[rb]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
              [ra] "+r"(ra), [rb] "+r"(rb)
            : [m0] "m"(m[0]), [m1] "m"(m[1]), [m2] "m"(m[2]), [m3] "m"(m[3]), [m4] "m"(m[4]),
              [m5] "m"(m[5])
            : "cc", "memory");
    r[0] = s0, r[1] = s1, r[2] = s2, r[3] = s3, r[4] = ra, r[5] = rb;
}

/* The same two for n = 4. */
static inline void mont_add4_asm(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *m)
{
    uint64_t t0, t1, t2, t3, s0, s1, s2, s3;
    __asm__("mov 0(%[a]), %[t0]\n\t"
            "mov 8(%[a]), %[t1]\n\t"
            "mov 16(%[a]), %[t2]\n\t"
            "mov 24(%[a]), %[t3]\n\t"
            "add 0(%[b]), %[t0]\n\t"
            "adc 8(%[b]), %[t1]\n\t"
            "adc 16(%[b]), %[t2]\n\t"
            "adc 24(%[b]), %[t3]\n\t"
            "mov %[t0], %[s0]\n\t"
            "mov %[t1], %[s1]\n\t"
            "mov %[t2], %[s2]\n\t"
            "mov %[t3], %[s3]\n\t"
            "sub %[m0], %[s0]\n\t"
            "sbb %[m1], %[s1]\n\t"
            "sbb %[m2], %[s2]\n\t"
            "sbb %[m3], %[s3]\n\t"
            "cmovc %[t0], %[s0]\n\t"
            "cmovc %[t1], %[s1]\n\t"
            "cmovc %[t2], %[s2]\n\t"
            "cmovc %[t3], %[s3]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [s0] "=&r"(s0),
              [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
            : [a] "r"(a), [b] "r"(b), [m0] "m"(m[0]), [m1] "m"(m[1]), [m2] "m"(m[2]),
              [m3] "m"(m[3])
            : "cc", "memory");
    r[0] = s0, r[1] = s1, r[2] = s2, r[3] = s3;
}

static inline void mont_sub4_asm(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *m)
{
    uint64_t t0, t1, t2, t3, s0, s1, s2, s3;
    __asm__("mov 0(%[a]), %[t0]\n\t"
            "mov 8(%[a]), %[t1]\n\t"
            "mov 16(%[a]), %[t2]\n\t"
            "mov 24(%[a]), %[t3]\n\t"
            "sub 0(%[b]), %[t0]\n\t"
            "sbb 8(%[b]), %[t1]\n\t"
            "sbb 16(%[b]), %[t2]\n\t"
            "sbb 24(%[b]), %[t3]\n\t"
            "mov %[t0], %[s0]\n\t"
            "mov %[t1], %[s1]\n\t"
            "mov %[t2], %[s2]\n\t"
            "mov %[t3], %[s3]\n\t"
            "add %[m0], %[s0]\n\t"
            "adc %[m1], %[s1]\n\t"
            "adc %[m2], %[s2]\n\t"
            "adc %[m3], %[s3]\n\t"
            "cmovnc %[t0], %[s0]\n\t"
            "cmovnc %[t1], %[s1]\n\t"
            "cmovnc %[t2], %[s2]\n\t"
            "cmovnc %[t3], %[s3]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [s0] "=&r"(s0),
              [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
            : [a] "r"(a), [b] "r"(b), [m0] "m"(m[0]), [m1] "m"(m[1]), [m2] "m"(m[2]),
              [m3] "m"(m[3])
            : "cc", "memory");
    r[0] = s0, r[1] = s1, r[2] = s2, r[3] = s3;
}
#define CZK__MONT_HAVE_ASM 1
#endif

/* r = a + b mod m, for a, b < m. */
static inline void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            int n)
{
#if defined(CZK__MONT_HAVE_ASM)
    if (n == 6 && !(m[5] >> 63)) {
        mont_add6_asm(r, a, b, m);
        return;
    }
    if (n == 4 && !(m[3] >> 63)) {
        mont_add4_asm(r, a, b, m);
        return;
    }
#endif
    uint64_t t[CZK__MONT_MAX_LIMBS];
    czk__u128 c = 0;
    for (int i = 0; i < n; i++) {
        c += (czk__u128)a[i] + b[i];
        t[i] = (uint64_t)c;
        c >>= 64;
    }
    mont_final_sub(r, t, (uint64_t)c, m, n);
}

/* r = a − b mod m, for a, b < m. */
static inline void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            int n)
{
#if defined(CZK__MONT_HAVE_ASM)
    if (n == 6 && !(m[5] >> 63)) {
        mont_sub6_asm(r, a, b, m);
        return;
    }
    if (n == 4 && !(m[3] >> 63)) {
        mont_sub4_asm(r, a, b, m);
        return;
    }
#endif
    uint64_t t[CZK__MONT_MAX_LIMBS];
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        czk__u128 d = (czk__u128)a[i] - b[i] - borrow;
        t[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t mask = (uint64_t)0 - borrow;
    czk__u128 c = 0;
    for (int i = 0; i < n; i++) {
        c += (czk__u128)t[i] + (m[i] & mask);
        r[i] = (uint64_t)c;
        c >>= 64;
    }
}

static inline bool limbs_is_zero(const uint64_t *a, int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++) acc |= a[i];
    return acc == 0;
}

static inline void mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, int n)
{
    uint64_t mask = limbs_is_zero(a, n) ? 0 : ~(uint64_t)0;
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        czk__u128 d = (czk__u128)m[i] - a[i] - borrow;
        r[i] = (uint64_t)d & mask;
        borrow = (uint64_t)(d >> 64) & 1;
    }
}

/* a < m as integers. */
static inline bool limbs_lt(const uint64_t *a, const uint64_t *m, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (a[i] != m[i]) return a[i] < m[i];
    }
    return false;
}

static inline bool limbs_eq(const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++) acc |= a[i] ^ b[i];
    return acc == 0;
}

/* Big-endian / little-endian byte conversion of n limbs (8n bytes). */
static inline void limbs_from_be(uint64_t *r, const uint8_t *in, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int j = 0; j < 8; j++) w = (w << 8) | in[8 * (n - 1 - i) + j];
        r[i] = w;
    }
}
static inline void limbs_to_be(uint8_t *out, const uint64_t *a, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) out[8 * (n - 1 - i) + j] = (uint8_t)(a[i] >> (56 - 8 * j));
}
static inline void limbs_from_le(uint64_t *r, const uint8_t *in, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--) w = (w << 8) | in[8 * i + j];
        r[i] = w;
    }
}
static inline void limbs_to_le(uint8_t *out, const uint64_t *a, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(a[i] >> (8 * j));
}

#endif
