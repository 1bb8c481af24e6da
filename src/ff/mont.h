/*
 * Generic Montgomery arithmetic over n 64-bit limbs, portable C with unsigned __int128.
 * Every function is static inline and takes n as a compile-time constant at its call sites
 * (fp.c: 6, fr.c: 4), so the compiler unrolls the loops. These are the reference back end;
 * the x86-64 mulx/adx back end (ff_adx.c) replaces mul/sqr when CZK_FF_ADX is defined and
 * a test cross-checks the two.
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

static inline void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            int n)
{
    uint64_t t[CZK__MONT_MAX_LIMBS];
    czk__u128 c = 0;
    for (int i = 0; i < n; i++) {
        c += (czk__u128)a[i] + b[i];
        t[i] = (uint64_t)c;
        c >>= 64;
    }
    mont_final_sub(r, t, (uint64_t)c, m, n);
}

static inline void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            int n)
{
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
