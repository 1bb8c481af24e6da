/* G2: y^2 = x^3 + 4(u + 1) over Fp2, the M-twist. The formulas live in curve_impl.h; this
 * file binds them to Fp2 and adds the G2-specific parts (generator, psi subgroup test). */
#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "ff/consts.h"
#include "ff/mont.h"

/* Field binding for curve_impl.h: Fp2 additions inlined from mont.h, multiplications
 * through czk_fp2_mul/sqr (Karatsuba, 3 Fp multiplications). */
typedef czk_fp2 fe;
typedef czk_g2_affine ec_aff;
typedef czk_g2_jac ec_jac;
typedef czk_g2_xyzz ec_xyzz;

static const uint64_t P[6] = CZK__FP_P;
static const fe FE_ZERO = {{{0}}, {{0}}};
static const fe FE_ONE = {{CZK__FP_R}, {{0}}};
static const fe EC_B = {{CZK__FP_FOUR_MONT}, {CZK__FP_FOUR_MONT}}; /* 4(u + 1) */

static inline void fe_add(fe *o, const fe *a, const fe *b)
{
    mont_add(o->c0.l, a->c0.l, b->c0.l, P, 6);
    mont_add(o->c1.l, a->c1.l, b->c1.l, P, 6);
}
static inline void fe_sub(fe *o, const fe *a, const fe *b)
{
    mont_sub(o->c0.l, a->c0.l, b->c0.l, P, 6);
    mont_sub(o->c1.l, a->c1.l, b->c1.l, P, 6);
}
static inline void fe_dbl(fe *o, const fe *a) { fe_add(o, a, a); }
static inline void fe_neg(fe *o, const fe *a)
{
    mont_neg(o->c0.l, a->c0.l, P, 6);
    mont_neg(o->c1.l, a->c1.l, P, 6);
}
static inline void fe_mul(fe *o, const fe *a, const fe *b) { czk_fp2_mul(o, a, b); }
static inline void fe_sqr(fe *o, const fe *a) { czk_fp2_sqr(o, a); }
static inline void fe_inv(fe *o, const fe *a) { czk_fp2_inv(o, a); }
static inline bool fe_is_zero(const fe *a)
{
    return limbs_is_zero(a->c0.l, 6) && limbs_is_zero(a->c1.l, 6);
}
static inline bool fe_eq(const fe *a, const fe *b)
{
    return limbs_eq(a->c0.l, b->c0.l, 6) && limbs_eq(a->c1.l, b->c1.l, 6);
}

#include "curve_impl.h"

const czk_g2_affine CZK_G2_GENERATOR = {{{CZK__G2_GEN_X0}, {CZK__G2_GEN_X1}},
                                        {{CZK__G2_GEN_Y0}, {CZK__G2_GEN_Y1}}};

/* psi(x, y) = (conj(x)·cx, conj(y)·cy), cx = 1/(u+1)^((p−1)/3), cy = 1/(u+1)^((p−1)/2):
 * untwist, p-power Frobenius, twist (derived and checked in scripts/gen_consts.py). */
static const fe PSI_CX = {{CZK__G2_PSI_CX0}, {CZK__G2_PSI_CX1}};
static const fe PSI_CY = {{CZK__G2_PSI_CY0}, {CZK__G2_PSI_CY1}};

bool czk_g2_affine_is_inf(const czk_g2_affine *p) { return ec_aff_is_inf(p); }

bool czk_g2_affine_on_curve(const czk_g2_affine *p)
{
    return ec_aff_is_inf(p) || ec_aff_satisfies_equation(p);
}

bool czk_g2_affine_eq(const czk_g2_affine *a, const czk_g2_affine *b)
{
    return fe_eq(&a->x, &b->x) && fe_eq(&a->y, &b->y);
}

void czk_g2_affine_neg(czk_g2_affine *out, const czk_g2_affine *p)
{
    out->x = p->x;
    fe_neg(&out->y, &p->y);
}

void czk_g2_jac_set_inf(czk_g2_jac *out) { ec_jac_set_inf(out); }
bool czk_g2_jac_is_inf(const czk_g2_jac *p) { return fe_is_zero(&p->z); }
void czk_g2_jac_from_affine(czk_g2_jac *out, const czk_g2_affine *p) { ec_jac_from_aff(out, p); }
void czk_g2_jac_to_affine(czk_g2_affine *out, const czk_g2_jac *p) { ec_jac_to_aff(out, p); }

void czk_g2s_jac_to_affine(czk_g2_affine *out, const czk_g2_jac *in, size_t n, czk_fp2 *scratch)
{
    if (n == 0) return;
    czk_fp2 *s = scratch;
    if (s == NULL) s = czk_malloc(n * sizeof *s);
    ec_jacs_to_aff(out, in, n, s);
    if (scratch == NULL) czk_free(s);
}

bool czk_g2_jac_eq(const czk_g2_jac *a, const czk_g2_jac *b) { return ec_jac_eq(a, b); }
bool czk_g2_jac_on_curve(const czk_g2_jac *p) { return ec_jac_on_curve(p); }
void czk_g2_jac_neg(czk_g2_jac *out, const czk_g2_jac *p) { ec_jac_neg(out, p); }
void czk_g2_jac_add(czk_g2_jac *out, const czk_g2_jac *a, const czk_g2_jac *b) { ec_jac_add(out, a, b); }
void czk_g2_jac_dbl(czk_g2_jac *out, const czk_g2_jac *a) { ec_jac_dbl(out, a); }

void czk_g2_jac_add_affine(czk_g2_jac *out, const czk_g2_jac *a, const czk_g2_affine *b)
{
    ec_jac_add_aff(out, a, b);
}

void czk_g2_jac_mul(czk_g2_jac *out, const czk_g2_jac *p, const uint64_t *k, size_t nlimbs)
{
    ec_jac_mul(out, p, k, nlimbs);
}

void czk_g2_jac_mul_fr(czk_g2_jac *out, const czk_g2_jac *p, const czk_fr *k)
{
    uint64_t l[4];
    czk_fr_to_u64s(l, k);
    ec_jac_mul(out, p, l, 4);
}

void czk_g2_xyzz_set_inf(czk_g2_xyzz *out) { ec_xyzz_set_inf(out); }
bool czk_g2_xyzz_is_inf(const czk_g2_xyzz *p) { return ec_xyzz_is_inf(p); }
void czk_g2_xyzz_from_affine(czk_g2_xyzz *out, const czk_g2_affine *p) { ec_xyzz_from_aff(out, p); }
void czk_g2_xyzz_to_jac(czk_g2_jac *out, const czk_g2_xyzz *p) { ec_xyzz_to_jac(out, p); }
void czk_g2_xyzz_to_affine(czk_g2_affine *out, const czk_g2_xyzz *p) { ec_xyzz_to_aff(out, p); }
void czk_g2_xyzz_dbl(czk_g2_xyzz *out, const czk_g2_xyzz *a) { ec_xyzz_dbl(out, a); }
void czk_g2_xyzz_neg(czk_g2_xyzz *out, const czk_g2_xyzz *a) { ec_xyzz_neg(out, a); }

void czk_g2_xyzz_add(czk_g2_xyzz *out, const czk_g2_xyzz *a, const czk_g2_xyzz *b)
{
    ec_xyzz_add(out, a, b);
}

void czk_g2_xyzz_add_affine(czk_g2_xyzz *out, const czk_g2_xyzz *a, const czk_g2_affine *b)
{
    ec_xyzz_add_aff(out, a, b);
}

/* Conjugation, the p-power Frobenius of Fp2. */
static inline void fe_conj(fe *o, const fe *a)
{
    o->c0 = a->c0;
    mont_neg(o->c1.l, a->c1.l, P, 6);
}

/*
 * Scott 2021: a point P of E'(Fp2) is in G2 iff psi(P) == [x]P, that is [p]P == [x]P
 * since p = x mod r. x < 0, so [x]P = −[|x|]P: 63 doublings and 5 additions.
 */
bool czk_g2_affine_in_subgroup(const czk_g2_affine *p)
{
    if (ec_aff_is_inf(p)) return true;
    czk_g2_jac q;
    ec_jac_mul_by_x_abs_aff(&q, p, CZK__BLS_X_ABS);
    ec_jac_neg(&q, &q);
    czk_g2_affine psi;
    fe_conj(&psi.x, &p->x);
    fe_mul(&psi.x, &psi.x, &PSI_CX);
    fe_conj(&psi.y, &p->y);
    fe_mul(&psi.y, &psi.y, &PSI_CY);
    return ec_jac_eq_aff(&q, &psi);
}

bool czk_g2_jac_in_subgroup(const czk_g2_jac *p)
{
    if (fe_is_zero(&p->z)) return true;
    czk_g2_jac q, psi;
    ec_jac_mul_by_x_abs(&q, p, CZK__BLS_X_ABS);
    ec_jac_neg(&q, &q);
    /* Conjugation is a field automorphism, so it commutes with the Jacobian scaling:
     * psi(X/Z^2, Y/Z^3) = (conj(X)·cx/conj(Z)^2, conj(Y)·cy/conj(Z)^3). */
    fe_conj(&psi.x, &p->x);
    fe_mul(&psi.x, &psi.x, &PSI_CX);
    fe_conj(&psi.y, &p->y);
    fe_mul(&psi.y, &psi.y, &PSI_CY);
    fe_conj(&psi.z, &p->z);
    return ec_jac_eq(&q, &psi);
}
