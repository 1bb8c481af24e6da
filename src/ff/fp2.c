/* Fp2 = Fp[u]/(u^2 + 1). */
#include "czk/bls12_381.h"
#include "consts.h"

static const uint64_t PM3Q[6] = CZK__FP_PM3Q;
static const uint64_t PM1H[6] = CZK__FP_PM1H;

const czk_fp2 CZK_FP2_ZERO = {{{0}}, {{0}}};
const czk_fp2 CZK_FP2_ONE = {{CZK__FP_R}, {{0}}};

void czk_fp2_add(czk_fp2 *out, const czk_fp2 *a, const czk_fp2 *b)
{
    czk_fp_add(&out->c0, &a->c0, &b->c0);
    czk_fp_add(&out->c1, &a->c1, &b->c1);
}

void czk_fp2_sub(czk_fp2 *out, const czk_fp2 *a, const czk_fp2 *b)
{
    czk_fp_sub(&out->c0, &a->c0, &b->c0);
    czk_fp_sub(&out->c1, &a->c1, &b->c1);
}

void czk_fp2_neg(czk_fp2 *out, const czk_fp2 *a)
{
    czk_fp_neg(&out->c0, &a->c0);
    czk_fp_neg(&out->c1, &a->c1);
}

void czk_fp2_dbl(czk_fp2 *out, const czk_fp2 *a)
{
    czk_fp_dbl(&out->c0, &a->c0);
    czk_fp_dbl(&out->c1, &a->c1);
}

void czk_fp2_conj(czk_fp2 *out, const czk_fp2 *a)
{
    out->c0 = a->c0;
    czk_fp_neg(&out->c1, &a->c1);
}

void czk_fp2_mul(czk_fp2 *out, const czk_fp2 *a, const czk_fp2 *b)
{
    /* Karatsuba: (a0 + a1 u)(b0 + b1 u) = (a0 b0 − a1 b1) + ((a0 + a1)(b0 + b1) − a0 b0 − a1 b1) u */
    czk_fp t0, t1, s0, s1;
    czk_fp_mul(&t0, &a->c0, &b->c0);
    czk_fp_mul(&t1, &a->c1, &b->c1);
    czk_fp_add(&s0, &a->c0, &a->c1);
    czk_fp_add(&s1, &b->c0, &b->c1);
    czk_fp_mul(&s0, &s0, &s1);
    czk_fp_sub(&s0, &s0, &t0);
    czk_fp_sub(&out->c1, &s0, &t1);
    czk_fp_sub(&out->c0, &t0, &t1);
}

void czk_fp2_sqr(czk_fp2 *out, const czk_fp2 *a)
{
    /* Complex squaring: (a0 + a1)(a0 − a1) + 2 a0 a1 u */
    czk_fp s, d, m;
    czk_fp_add(&s, &a->c0, &a->c1);
    czk_fp_sub(&d, &a->c0, &a->c1);
    czk_fp_mul(&m, &a->c0, &a->c1);
    czk_fp_mul(&out->c0, &s, &d);
    czk_fp_dbl(&out->c1, &m);
}

void czk_fp2_mul_by_nonresidue(czk_fp2 *out, const czk_fp2 *a)
{
    /* (a0 + a1 u)(1 + u) = (a0 − a1) + (a0 + a1) u */
    czk_fp t;
    czk_fp_sub(&t, &a->c0, &a->c1);
    czk_fp_add(&out->c1, &a->c0, &a->c1);
    out->c0 = t;
}

void czk_fp2_mul_fp(czk_fp2 *out, const czk_fp2 *a, const czk_fp *b)
{
    czk_fp_mul(&out->c0, &a->c0, b);
    czk_fp_mul(&out->c1, &a->c1, b);
}

void czk_fp2_inv(czk_fp2 *out, const czk_fp2 *a)
{
    /* 1/(a0 + a1 u) = (a0 − a1 u)/(a0^2 + a1^2) */
    czk_fp n, t;
    czk_fp_sqr(&n, &a->c0);
    czk_fp_sqr(&t, &a->c1);
    czk_fp_add(&n, &n, &t);
    czk_fp_inv(&n, &n);
    czk_fp_mul(&out->c0, &a->c0, &n);
    czk_fp_mul(&t, &a->c1, &n);
    czk_fp_neg(&out->c1, &t);
}

void czk_fp2_pow(czk_fp2 *out, const czk_fp2 *a, const uint64_t *e, size_t nlimbs)
{
    czk_fp2 acc = CZK_FP2_ONE, base = *a;
    for (size_t i = nlimbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            czk_fp2_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) czk_fp2_mul(&acc, &acc, &base);
        }
    }
    *out = acc;
}

bool czk_fp2_is_zero(const czk_fp2 *a) { return czk_fp_is_zero(&a->c0) && czk_fp_is_zero(&a->c1); }
bool czk_fp2_is_one(const czk_fp2 *a) { return czk_fp_is_one(&a->c0) && czk_fp_is_zero(&a->c1); }
bool czk_fp2_eq(const czk_fp2 *a, const czk_fp2 *b)
{
    return czk_fp_eq(&a->c0, &b->c0) && czk_fp_eq(&a->c1, &b->c1);
}

bool czk_fp2_is_lex_largest(const czk_fp2 *a)
{
    if (!czk_fp_is_zero(&a->c1)) return czk_fp_is_lex_largest(&a->c1);
    return czk_fp_is_lex_largest(&a->c0);
}

bool czk_fp2_sqrt(czk_fp2 *out, const czk_fp2 *a)
{
    /* Adj and Rodríguez-Henríquez, "Square root computation over even extension fields",
     * algorithm 9, for p = 3 mod 4. */
    if (czk_fp2_is_zero(a)) {
        *out = CZK_FP2_ZERO;
        return true;
    }
    czk_fp2 a1, alpha, a0, x0, minus_one, x;
    czk_fp2_neg(&minus_one, &CZK_FP2_ONE);
    czk_fp2_pow(&a1, a, PM3Q, 6);
    czk_fp2_sqr(&alpha, &a1);
    czk_fp2_mul(&alpha, &alpha, a); /* alpha = a^((p-1)/2) */
    czk_fp2_conj(&a0, &alpha);       /* alpha^p */
    czk_fp2_mul(&a0, &a0, &alpha);
    if (czk_fp2_eq(&a0, &minus_one)) return false;
    czk_fp2_mul(&x0, &a1, a);
    if (czk_fp2_eq(&alpha, &minus_one)) {
        /* x = u · x0 */
        czk_fp t = x0.c0;
        czk_fp_neg(&x.c0, &x0.c1);
        x.c1 = t;
    } else {
        czk_fp2 b;
        czk_fp2_add(&b, &alpha, &CZK_FP2_ONE);
        czk_fp2_pow(&b, &b, PM1H, 6);
        czk_fp2_mul(&x, &b, &x0);
    }
    czk_fp2 chk;
    czk_fp2_sqr(&chk, &x);
    if (!czk_fp2_eq(&chk, a)) return false;
    *out = x;
    return true;
}
