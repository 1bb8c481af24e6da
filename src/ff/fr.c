/* Fr, the BLS12-381 scalar field, four 64-bit limbs in Montgomery form. */
#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "consts.h"
#include "ff_internal.h"
#include "inverse.h"
#include "mont.h"

#include <errno.h>
#include <sys/random.h>

#define N 4

static const uint64_t P[N] = CZK__FR_P;
static const czk_fr R2F = {CZK__FR_R2};
static const uint64_t R2[N] = CZK__FR_R2;
static const uint64_t R3[N] = CZK__FR_R3;
static const uint64_t PM2[N] = CZK__FR_PM2;
static const uint64_t PM1H[N] = CZK__FR_PM1H;
static const uint64_t T_M1H[N] = CZK__FR_TM1H;
static const czk_fr ROOT_OF_UNITY = {CZK__FR_ROOT_OF_UNITY_MONT};

const uint64_t CZK_FR_MODULUS[4] = CZK__FR_P;
const czk_fr CZK_FR_ZERO = {{0}};
const czk_fr CZK_FR_ONE = {CZK__FR_R};

void czk__fr_mul_portable(czk_fr *out, const czk_fr *a, const czk_fr *b)
{
    mont_mul(out->l, a->l, b->l, P, CZK__FR_INV, N);
}

void czk__fr_sqr_portable(czk_fr *out, const czk_fr *a)
{
    mont_mul(out->l, a->l, a->l, P, CZK__FR_INV, N);
}

void czk_fr_mul(czk_fr *out, const czk_fr *a, const czk_fr *b)
{
#if defined(CZK_FF_ADX)
    czk__fr_mul_adx(out, a, b);
#else
    czk__fr_mul_portable(out, a, b);
#endif
}

void czk_fr_sqr(czk_fr *out, const czk_fr *a)
{
#if defined(CZK_FF_ADX)
    czk__fr_sqr_adx(out, a);
#else
    czk__fr_sqr_portable(out, a);
#endif
}

void czk_fr_add(czk_fr *out, const czk_fr *a, const czk_fr *b) { mont_add(out->l, a->l, b->l, P, N); }
void czk_fr_sub(czk_fr *out, const czk_fr *a, const czk_fr *b) { mont_sub(out->l, a->l, b->l, P, N); }
void czk_fr_dbl(czk_fr *out, const czk_fr *a) { mont_add(out->l, a->l, a->l, P, N); }
void czk_fr_neg(czk_fr *out, const czk_fr *a) { mont_neg(out->l, a->l, P, N); }
bool czk_fr_is_zero(const czk_fr *a) { return limbs_is_zero(a->l, N); }
bool czk_fr_is_one(const czk_fr *a) { return limbs_eq(a->l, CZK_FR_ONE.l, N); }
bool czk_fr_eq(const czk_fr *a, const czk_fr *b) { return limbs_eq(a->l, b->l, N); }

void czk_fr_pow(czk_fr *out, const czk_fr *a, const uint64_t *e, size_t nlimbs)
{
    czk_fr acc = CZK_FR_ONE, base = *a;
    for (size_t i = nlimbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            czk_fr_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) czk_fr_mul(&acc, &acc, &base);
        }
    }
    *out = acc;
}

void czk_fr_inv(czk_fr *out, const czk_fr *a)
{
    /* As czk_fp_inv: safegcd gives (a·R)^-1, the product with R^3 restores the Montgomery
     * factor, and Fermat, a^(r-2), is the fallback (1.1 us against 7.9 us). Zero maps to
     * zero. */
    static const czk_fr r3 = {CZK__FR_R3};
    czk_fr t;
    if (czk__fr_inv_safegcd(t.l, a->l))
        czk_fr_mul(out, &t, &r3);
    else
        czk_fr_pow(out, a, PM2, N);
}

void czk_frs_inv(czk_fr *v, size_t n, czk_fr *scratch)
{
    if (n == 0) return;
    czk_fr *pre = scratch;
    if (pre == NULL) pre = czk_malloc(n * sizeof *pre);
    czk_fr acc = CZK_FR_ONE;
    for (size_t i = 0; i < n; i++) {
        pre[i] = acc;
        if (!czk_fr_is_zero(&v[i])) czk_fr_mul(&acc, &acc, &v[i]);
    }
    czk_fr_inv(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (czk_fr_is_zero(&v[i])) continue;
        czk_fr t;
        czk_fr_mul(&t, &acc, &pre[i]);
        czk_fr_mul(&acc, &acc, &v[i]);
        v[i] = t;
    }
    if (scratch == NULL) czk_free(pre);
}

int czk_fr_legendre(const czk_fr *a)
{
    if (czk_fr_is_zero(a)) return 0;
    czk_fr t;
    czk_fr_pow(&t, a, PM1H, N);
    return czk_fr_is_one(&t) ? 1 : -1;
}

bool czk_fr_sqrt(czk_fr *out, const czk_fr *a)
{
    /* Tonelli-Shanks with r - 1 = 2^32·t, z = 7^t the 2^32-th root of unity. */
    if (czk_fr_is_zero(a)) {
        *out = CZK_FR_ZERO;
        return true;
    }
    if (czk_fr_legendre(a) != 1) return false;
    czk_fr w, x, b, z = ROOT_OF_UNITY;
    czk_fr_pow(&w, a, T_M1H, N); /* w = a^((t-1)/2) */
    czk_fr_mul(&x, &w, a);       /* x = a^((t+1)/2) */
    czk_fr_mul(&b, &x, &w);      /* b = a^t */
    unsigned v = 32;
    while (!czk_fr_is_one(&b)) {
        /* Smallest k with b^(2^k) = 1. */
        unsigned k = 0;
        czk_fr b2k = b;
        while (!czk_fr_is_one(&b2k)) {
            czk_fr_sqr(&b2k, &b2k);
            k++;
        }
        czk_fr wz = z;
        for (unsigned j = 0; j < v - k - 1; j++) czk_fr_sqr(&wz, &wz);
        czk_fr_sqr(&z, &wz);
        czk_fr_mul(&b, &b, &z);
        czk_fr_mul(&x, &x, &wz);
        v = k;
    }
    *out = x;
    return true;
}

bool czk_fr_from_u64s(czk_fr *out, const uint64_t in[4])
{
    if (!limbs_lt(in, P, N)) return false;
    czk_fr t;
    memcpy(t.l, in, sizeof t.l);
    czk_fr_mul(out, &t, &R2F);
    return true;
}

void czk_fr_to_u64s(uint64_t out[4], const czk_fr *a)
{
    static const czk_fr one_raw = {{1, 0, 0, 0}};
    czk_fr t;
    czk_fr_mul(&t, a, &one_raw);
    memcpy(out, t.l, sizeof t.l);
}

void czk_fr_from_u64(czk_fr *out, uint64_t v)
{
    uint64_t l[N] = {v, 0, 0, 0};
    if (!czk_fr_from_u64s(out, l)) *out = CZK_FR_ZERO;
}

bool czk_fr_from_bytes_le(czk_fr *out, const uint8_t in[32])
{
    uint64_t l[N];
    limbs_from_le(l, in, N);
    return czk_fr_from_u64s(out, l);
}

void czk_fr_to_bytes_le(uint8_t out[32], const czk_fr *a)
{
    uint64_t l[N];
    czk_fr_to_u64s(l, a);
    limbs_to_le(out, l, N);
}

bool czk_fr_from_bytes_be(czk_fr *out, const uint8_t in[32])
{
    uint64_t l[N];
    limbs_from_be(l, in, N);
    return czk_fr_from_u64s(out, l);
}

void czk_fr_to_bytes_be(uint8_t out[32], const czk_fr *a)
{
    uint64_t l[N];
    czk_fr_to_u64s(l, a);
    limbs_to_be(out, l, N);
}

void czk_fr_from_wide_bytes(czk_fr *out, const uint8_t in[64])
{
    /* lo + hi·2^256: mont_mul(lo, R2) = lo·R, mont_mul(hi, R3) = hi·2^256·R. Inputs up to
     * 2^256 > r still give a CIOS result below 2r since r > 2^254. */
    uint64_t lo[N], hi[N];
    limbs_from_le(lo, in, N);
    limbs_from_le(hi, in + 32, N);
    czk_fr a, b;
    mont_mul(a.l, lo, R2, P, CZK__FR_INV, N);
    mont_mul(b.l, hi, R3, P, CZK__FR_INV, N);
    czk_fr_add(out, &a, &b);
}

czk_status czk_fr_random(czk_fr *out)
{
    uint8_t buf[64];
    size_t got = 0;
    while (got < sizeof buf) {
        ssize_t n = getrandom(buf + got, sizeof buf - got, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return CZK_EIO;
        }
        got += (size_t)n;
    }
    czk_fr_from_wide_bytes(out, buf);
    return CZK_OK;
}

const char *czk_ff_backend(void)
{
#if defined(CZK_FF_ADX)
    return "adx";
#else
    return "portable";
#endif
}
