/* G1: y^2 = x^3 + 4 over Fp. The formulas live in curve_impl.h; this file binds them to
 * Fp and adds the G1-specific parts (generator, endomorphism subgroup test). */
#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "ff/consts.h"
#include "ff/mont.h"

/* Field binding for curve_impl.h. Additions are inlined from mont.h (a call costs as much
 * as the 6-limb addition itself); multiplications go through czk_fp_mul, which picks the
 * back end (portable or mulx/adx). */
typedef czk_fp fe;
typedef czk_g1_affine ec_aff;
typedef czk_g1_jac ec_jac;
typedef czk_g1_xyzz ec_xyzz;

static const uint64_t P[6] = CZK__FP_P;
static const fe FE_ZERO = {{0}};
static const fe FE_ONE = {CZK__FP_R};
static const fe EC_B = {CZK__FP_FOUR_MONT};

static inline void fe_add(fe *o, const fe *a, const fe *b) { mont_add(o->l, a->l, b->l, P, 6); }
static inline void fe_sub(fe *o, const fe *a, const fe *b) { mont_sub(o->l, a->l, b->l, P, 6); }
static inline void fe_dbl(fe *o, const fe *a) { mont_add(o->l, a->l, a->l, P, 6); }
static inline void fe_neg(fe *o, const fe *a) { mont_neg(o->l, a->l, P, 6); }
static inline void fe_mul(fe *o, const fe *a, const fe *b) { czk_fp_mul(o, a, b); }
static inline void fe_sqr(fe *o, const fe *a) { czk_fp_sqr(o, a); }
static inline void fe_inv(fe *o, const fe *a) { czk_fp_inv(o, a); }
static inline bool fe_is_zero(const fe *a) { return limbs_is_zero(a->l, 6); }
static inline bool fe_eq(const fe *a, const fe *b) { return limbs_eq(a->l, b->l, 6); }

#include "curve_impl.h"

const czk_g1_affine CZK_G1_GENERATOR = {{CZK__G1_GEN_X}, {CZK__G1_GEN_Y}};

/*
 * beta, the cube root of unity for phi(x, y) = (beta·x, y). On G1 phi acts as [lambda]
 * for one of the two cube roots of unity lambda mod r; Scott's test needs the beta with
 * lambda = −x^2, which is the smaller of the two (CZK__FP_CUBE_ROOT_A). With the other
 * one phi acts as [x^2 − 1] and the test rejects every point of G1: test_curve fails then
 * (it checks [k]G is accepted and agreement with [r]P == inf on random curve points).
 */
static const fe BETA = {CZK__FP_CUBE_ROOT_A};

bool czk_g1_affine_is_inf(const czk_g1_affine *p) { return ec_aff_is_inf(p); }

bool czk_g1_affine_on_curve(const czk_g1_affine *p)
{
    return ec_aff_is_inf(p) || ec_aff_satisfies_equation(p);
}

bool czk_g1_affine_eq(const czk_g1_affine *a, const czk_g1_affine *b)
{
    return fe_eq(&a->x, &b->x) && fe_eq(&a->y, &b->y);
}

void czk_g1_affine_neg(czk_g1_affine *out, const czk_g1_affine *p)
{
    out->x = p->x;
    fe_neg(&out->y, &p->y); /* −0 = 0 keeps infinity (0, 0) */
}

void czk_g1_jac_set_inf(czk_g1_jac *out) { ec_jac_set_inf(out); }
bool czk_g1_jac_is_inf(const czk_g1_jac *p) { return fe_is_zero(&p->z); }
void czk_g1_jac_from_affine(czk_g1_jac *out, const czk_g1_affine *p) { ec_jac_from_aff(out, p); }
void czk_g1_jac_to_affine(czk_g1_affine *out, const czk_g1_jac *p) { ec_jac_to_aff(out, p); }

void czk_g1s_jac_to_affine(czk_g1_affine *out, const czk_g1_jac *in, size_t n, czk_fp *scratch)
{
    if (n == 0) return;
    czk_fp *s = scratch;
    if (s == NULL) s = czk_malloc(n * sizeof *s);
    ec_jacs_to_aff(out, in, n, s);
    if (scratch == NULL) czk_free(s);
}

bool czk_g1_jac_eq(const czk_g1_jac *a, const czk_g1_jac *b) { return ec_jac_eq(a, b); }
bool czk_g1_jac_on_curve(const czk_g1_jac *p) { return ec_jac_on_curve(p); }
void czk_g1_jac_neg(czk_g1_jac *out, const czk_g1_jac *p) { ec_jac_neg(out, p); }
void czk_g1_jac_add(czk_g1_jac *out, const czk_g1_jac *a, const czk_g1_jac *b) { ec_jac_add(out, a, b); }
void czk_g1_jac_dbl(czk_g1_jac *out, const czk_g1_jac *a) { ec_jac_dbl(out, a); }

void czk_g1_jac_add_affine(czk_g1_jac *out, const czk_g1_jac *a, const czk_g1_affine *b)
{
    ec_jac_add_aff(out, a, b);
}

void czk_g1_jac_mul(czk_g1_jac *out, const czk_g1_jac *p, const uint64_t *k, size_t nlimbs)
{
    ec_jac_mul(out, p, k, nlimbs);
}

void czk_g1_jac_mul_fr(czk_g1_jac *out, const czk_g1_jac *p, const czk_fr *k)
{
    uint64_t l[4];
    czk_fr_to_u64s(l, k);
    ec_jac_mul(out, p, l, 4);
}

void czk_g1_xyzz_set_inf(czk_g1_xyzz *out) { ec_xyzz_set_inf(out); }
bool czk_g1_xyzz_is_inf(const czk_g1_xyzz *p) { return ec_xyzz_is_inf(p); }
void czk_g1_xyzz_from_affine(czk_g1_xyzz *out, const czk_g1_affine *p) { ec_xyzz_from_aff(out, p); }
void czk_g1_xyzz_to_jac(czk_g1_jac *out, const czk_g1_xyzz *p) { ec_xyzz_to_jac(out, p); }
void czk_g1_xyzz_to_affine(czk_g1_affine *out, const czk_g1_xyzz *p) { ec_xyzz_to_aff(out, p); }
void czk_g1_xyzz_dbl(czk_g1_xyzz *out, const czk_g1_xyzz *a) { ec_xyzz_dbl(out, a); }
void czk_g1_xyzz_neg(czk_g1_xyzz *out, const czk_g1_xyzz *a) { ec_xyzz_neg(out, a); }

void czk_g1_xyzz_add(czk_g1_xyzz *out, const czk_g1_xyzz *a, const czk_g1_xyzz *b)
{
    ec_xyzz_add(out, a, b);
}

void czk_g1_xyzz_add_affine(czk_g1_xyzz *out, const czk_g1_xyzz *a, const czk_g1_affine *b)
{
    ec_xyzz_add_aff(out, a, b);
}

/*
 * Scott 2021, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly
 * curves": a point P of E(Fp) is in G1 iff phi(P) == [−x^2]P. [x^2]P is computed as
 * [|x|]([|x|]P), two sparse 64-bit multiplications (126 doublings, 10 additions) instead
 * of the 255-bit [r]P.
 */
bool czk_g1_affine_in_subgroup(const czk_g1_affine *p)
{
    if (ec_aff_is_inf(p)) return true;
    czk_g1_jac q;
    ec_jac_mul_by_x_abs_aff(&q, p, CZK__BLS_X_ABS);
    ec_jac_mul_by_x_abs(&q, &q, CZK__BLS_X_ABS);
    ec_jac_neg(&q, &q);
    czk_g1_affine phi;
    fe_mul(&phi.x, &BETA, &p->x);
    phi.y = p->y;
    return ec_jac_eq_aff(&q, &phi);
}

bool czk_g1_jac_in_subgroup(const czk_g1_jac *p)
{
    if (fe_is_zero(&p->z)) return true;
    czk_g1_jac q, phi;
    ec_jac_mul_by_x_abs(&q, p, CZK__BLS_X_ABS);
    ec_jac_mul_by_x_abs(&q, &q, CZK__BLS_X_ABS);
    ec_jac_neg(&q, &q);
    /* phi commutes with the Jacobian scaling: beta·X/Z^2 = (beta·X)/Z^2. */
    fe_mul(&phi.x, &BETA, &p->x);
    phi.y = p->y;
    phi.z = p->z;
    return ec_jac_eq(&q, &phi);
}
