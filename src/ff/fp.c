/* Fp, the BLS12-381 base field, six 64-bit limbs in Montgomery form. */
#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "consts.h"
#include "ff_internal.h"
#include "inverse.h"
#include "mont.h"

#define N 6

static const uint64_t P[N] = CZK__FP_P;
static const czk_fp R2F = {CZK__FP_R2};
static const uint64_t R2[N] = CZK__FP_R2;
static const uint64_t R3[N] = CZK__FP_R3;
static const uint64_t PM2[N] = CZK__FP_PM2;
static const uint64_t PM1H[N] = CZK__FP_PM1H;
static const uint64_t PP1Q[N] = CZK__FP_PP1Q;

const uint64_t CZK_FP_MODULUS[6] = CZK__FP_P;
const czk_fp CZK_FP_ZERO = {{0}};
const czk_fp CZK_FP_ONE = {CZK__FP_R};

void czk__fp_mul_portable(czk_fp *out, const czk_fp *a, const czk_fp *b)
{
    mont_mul(out->l, a->l, b->l, P, CZK__FP_INV, N);
}

void czk__fp_sqr_portable(czk_fp *out, const czk_fp *a)
{
    mont_mul(out->l, a->l, a->l, P, CZK__FP_INV, N);
}

void czk_fp_mul(czk_fp *out, const czk_fp *a, const czk_fp *b)
{
#if defined(CZK_FF_ADX)
    czk__fp_mul_adx(out, a, b);
#else
    czk__fp_mul_portable(out, a, b);
#endif
}

void czk_fp_sqr(czk_fp *out, const czk_fp *a)
{
#if defined(CZK_FF_ADX)
    czk__fp_sqr_adx(out, a);
#else
    czk__fp_sqr_portable(out, a);
#endif
}

void czk_fp_add(czk_fp *out, const czk_fp *a, const czk_fp *b) { mont_add(out->l, a->l, b->l, P, N); }
void czk_fp_sub(czk_fp *out, const czk_fp *a, const czk_fp *b) { mont_sub(out->l, a->l, b->l, P, N); }
void czk_fp_dbl(czk_fp *out, const czk_fp *a) { mont_add(out->l, a->l, a->l, P, N); }
void czk_fp_neg(czk_fp *out, const czk_fp *a) { mont_neg(out->l, a->l, P, N); }
bool czk_fp_is_zero(const czk_fp *a) { return limbs_is_zero(a->l, N); }
bool czk_fp_is_one(const czk_fp *a) { return limbs_eq(a->l, CZK_FP_ONE.l, N); }
bool czk_fp_eq(const czk_fp *a, const czk_fp *b) { return limbs_eq(a->l, b->l, N); }

void czk_fp_pow(czk_fp *out, const czk_fp *a, const uint64_t *e, size_t nlimbs)
{
    /* Left-to-right square and multiply; exponents here are public. */
    czk_fp acc = CZK_FP_ONE, base = *a;
    for (size_t i = nlimbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            czk_fp_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) czk_fp_mul(&acc, &acc, &base);
        }
    }
    *out = acc;
}

void czk_fp_inv(czk_fp *out, const czk_fp *a)
{
    /* safegcd (inverse.c) on the Montgomery limbs a·R gives a^-1·R^-1; a Montgomery
     * product with R^3 turns that into a^-1·R. 1.7 us against 20 us for Fermat, a^(p-2),
     * which remains as the fallback should the safegcd iteration guard ever trip. Zero
     * maps to zero on both paths. */
    static const czk_fp r3 = {CZK__FP_R3};
    czk_fp t;
    if (czk__fp_inv_safegcd(t.l, a->l))
        czk_fp_mul(out, &t, &r3);
    else
        czk_fp_pow(out, a, PM2, N);
}

void czk_fps_inv(czk_fp *v, size_t n, czk_fp *scratch)
{
    if (n == 0) return;
    czk_fp *pre = scratch;
    if (pre == NULL) pre = czk_malloc(n * sizeof *pre);
    /* pre[i] = product of the non-zero v[0..i-1]. */
    czk_fp acc = CZK_FP_ONE;
    for (size_t i = 0; i < n; i++) {
        pre[i] = acc;
        if (!czk_fp_is_zero(&v[i])) czk_fp_mul(&acc, &acc, &v[i]);
    }
    czk_fp_inv(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (czk_fp_is_zero(&v[i])) continue;
        czk_fp t;
        czk_fp_mul(&t, &acc, &pre[i]);
        czk_fp_mul(&acc, &acc, &v[i]);
        v[i] = t;
    }
    if (scratch == NULL) czk_free(pre);
}

int czk_fp_legendre(const czk_fp *a)
{
    if (czk_fp_is_zero(a)) return 0;
    czk_fp t;
    czk_fp_pow(&t, a, PM1H, N);
    return czk_fp_is_one(&t) ? 1 : -1;
}

bool czk_fp_sqrt(czk_fp *out, const czk_fp *a)
{
    /* p = 3 mod 4: a^((p+1)/4) is a root whenever one exists. */
    czk_fp s, chk;
    czk_fp_pow(&s, a, PP1Q, N);
    czk_fp_sqr(&chk, &s);
    if (!czk_fp_eq(&chk, a)) return false;
    *out = s;
    return true;
}

bool czk_fp_from_u64s(czk_fp *out, const uint64_t in[6])
{
    if (!limbs_lt(in, P, N)) return false;
    czk_fp t;
    memcpy(t.l, in, sizeof t.l);
    czk_fp_mul(out, &t, &R2F);
    return true;
}

void czk_fp_to_u64s(uint64_t out[6], const czk_fp *a)
{
    static const czk_fp one_raw = {{1, 0, 0, 0, 0, 0}};
    czk_fp t;
    czk_fp_mul(&t, a, &one_raw);
    memcpy(out, t.l, sizeof t.l);
}

void czk_fp_from_u64(czk_fp *out, uint64_t v)
{
    uint64_t l[N] = {v, 0, 0, 0, 0, 0};
    if (!czk_fp_from_u64s(out, l)) *out = CZK_FP_ZERO; /* unreachable: v < p */
}

bool czk_fp_from_bytes_be(czk_fp *out, const uint8_t in[48])
{
    uint64_t l[N];
    limbs_from_be(l, in, N);
    return czk_fp_from_u64s(out, l);
}

void czk_fp_to_bytes_be(uint8_t out[48], const czk_fp *a)
{
    uint64_t l[N];
    czk_fp_to_u64s(l, a);
    limbs_to_be(out, l, N);
}

bool czk_fp_from_bytes_le(czk_fp *out, const uint8_t in[48])
{
    uint64_t l[N];
    limbs_from_le(l, in, N);
    return czk_fp_from_u64s(out, l);
}

void czk_fp_to_bytes_le(uint8_t out[48], const czk_fp *a)
{
    uint64_t l[N];
    czk_fp_to_u64s(l, a);
    limbs_to_le(out, l, N);
}

bool czk_fp_is_lex_largest(const czk_fp *a)
{
    uint64_t l[N];
    czk_fp_to_u64s(l, a);
    return limbs_lt(PM1H, l, N); /* (p-1)/2 < a */
}

void czk_fp_from_wide_bytes(czk_fp *out, const uint8_t in[64])
{
    /* Value = lo + hi·2^384 with lo the low 48 bytes (LE) and hi the top 16 bytes.
     * mont_mul(lo, R2) = lo·R and mont_mul(hi, R3) = hi·2^384·R; lo < 2^384 < 4p keeps the
     * CIOS output below 2p, which its final subtraction brings below p. */
    uint64_t lo[N], hi[N] = {0};
    limbs_from_le(lo, in, N);
    limbs_from_le(hi, in + 48, 2);
    czk_fp a, b;
    mont_mul(a.l, lo, R2, P, CZK__FP_INV, N);
    mont_mul(b.l, hi, R3, P, CZK__FP_INV, N);
    czk_fp_add(out, &a, &b);
}
