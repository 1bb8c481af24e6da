/*
 * Short Weierstrass curve formulas for y^2 = x^3 + b (a = 0), written once and used for
 * both G1 (over Fp) and G2 (over Fp2). Private to src/ec.
 *
 * The includer supplies the field and the point types under fixed names before including
 * this header, so that the same text can later be compiled for the device with
 * CZK_EC_INLINE defined as `static __device__ __forceinline__`:
 *
 *   typedef ... fe;                         field element
 *   typedef ... ec_aff, ec_jac, ec_xyzz;    point structs with members x, y / x, y, z /
 *                                           x, y, zz, zzz, as in czk/bls12_381.h
 *   fe_add, fe_sub, fe_dbl, fe_neg, fe_mul, fe_sqr, fe_inv    (out, in...) like czk_fp_*
 *   fe_is_zero, fe_eq                                         predicates
 *   FE_ZERO, FE_ONE, EC_B                   constants (EC_B: the curve's b, Montgomery)
 *
 * Formulas are those of the Explicit-Formulas Database (hyperelliptic.org/EFD, "g1p/
 * auto-shortw-jacobian-0" and "auto-shortw-xyzz"), named after their entries there. The
 * EFD formulas are incomplete; each function below handles the exceptional inputs
 * (infinity, P + P, P + (−P)) explicitly. Everything here is variable-time: the inputs
 * are public in czk (parameters, proofs, test data).
 */
#ifndef CZK_EC_CURVE_IMPL_H
#define CZK_EC_CURVE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef CZK_EC_INLINE
#define CZK_EC_INLINE static inline
#endif

/* ------------------------------------------------------------------------------------ */
/* Affine                                                                               */
/* ------------------------------------------------------------------------------------ */

CZK_EC_INLINE bool ec_aff_is_inf(const ec_aff *p)
{
    return fe_is_zero(&p->x) && fe_is_zero(&p->y);
}

/* y^2 == x^3 + b, without the special case for (0, 0): callers that decode untrusted
 * bytes must not accept (0, 0) as "on the curve" unless it carried the infinity flag. */
CZK_EC_INLINE bool ec_aff_satisfies_equation(const ec_aff *p)
{
    fe l, r;
    fe_sqr(&l, &p->y);
    fe_sqr(&r, &p->x);
    fe_mul(&r, &r, &p->x);
    fe_add(&r, &r, &EC_B);
    return fe_eq(&l, &r);
}

/* ------------------------------------------------------------------------------------ */
/* Jacobian: x = X/Z^2, y = Y/Z^3, Z = 0 at infinity                                    */
/* ------------------------------------------------------------------------------------ */

CZK_EC_INLINE void ec_jac_set_inf(ec_jac *out)
{
    out->x = FE_ONE;
    out->y = FE_ONE;
    out->z = FE_ZERO;
}

CZK_EC_INLINE void ec_jac_from_aff(ec_jac *out, const ec_aff *p)
{
    if (ec_aff_is_inf(p)) {
        ec_jac_set_inf(out);
        return;
    }
    out->x = p->x;
    out->y = p->y;
    out->z = FE_ONE;
}

/* dbl-2009-l: 2M + 5S. Z = 0 stays 0, so infinity needs no branch; y = 0 cannot occur
 * on a curve of odd order and would give Z3 = 0, infinity, which is also right. */
CZK_EC_INLINE void ec_jac_dbl(ec_jac *out, const ec_jac *p)
{
    fe a, b, c, d, e, f, t;
    fe_sqr(&a, &p->x);
    fe_sqr(&b, &p->y);
    fe_sqr(&c, &b);
    fe_add(&d, &p->x, &b);
    fe_sqr(&d, &d);
    fe_sub(&d, &d, &a);
    fe_sub(&d, &d, &c);
    fe_dbl(&d, &d);        /* D = 2((X + B)^2 − A − C) */
    fe_dbl(&e, &a);
    fe_add(&e, &e, &a);    /* E = 3A */
    fe_sqr(&f, &e);        /* F = E^2 */
    fe_mul(&t, &p->y, &p->z);
    fe_dbl(&out->z, &t);   /* Z3 = 2 Y1 Z1 (written first: p is no longer read but for Y1) */
    fe_dbl(&t, &d);
    fe_sub(&out->x, &f, &t); /* X3 = F − 2D */
    fe_sub(&t, &d, &out->x);
    fe_mul(&t, &e, &t);
    fe_dbl(&c, &c);
    fe_dbl(&c, &c);
    fe_dbl(&c, &c);
    fe_sub(&out->y, &t, &c); /* Y3 = E(D − X3) − 8C */
}

/* add-2007-bl: 11M + 5S, with the exceptional cases. */
CZK_EC_INLINE void ec_jac_add(ec_jac *out, const ec_jac *p, const ec_jac *q)
{
    if (fe_is_zero(&p->z)) {
        *out = *q;
        return;
    }
    if (fe_is_zero(&q->z)) {
        *out = *p;
        return;
    }
    fe z1z1, z2z2, u1, u2, s1, s2, h, i, j, r, v, t;
    fe_sqr(&z1z1, &p->z);
    fe_sqr(&z2z2, &q->z);
    fe_mul(&u1, &p->x, &z2z2);
    fe_mul(&u2, &q->x, &z1z1);
    fe_mul(&s1, &p->y, &q->z);
    fe_mul(&s1, &s1, &z2z2);
    fe_mul(&s2, &q->y, &p->z);
    fe_mul(&s2, &s2, &z1z1);
    fe_sub(&h, &u2, &u1);
    fe_sub(&r, &s2, &s1);
    if (fe_is_zero(&h)) {
        /* Same x: either the same point (double it) or opposite points (infinity). */
        if (fe_is_zero(&r)) {
            ec_jac_dbl(out, p);
        } else {
            ec_jac_set_inf(out);
        }
        return;
    }
    fe_dbl(&r, &r);          /* r = 2(S2 − S1) */
    fe_dbl(&i, &h);
    fe_sqr(&i, &i);          /* I = (2H)^2 */
    fe_mul(&j, &h, &i);      /* J = H·I */
    fe_mul(&v, &u1, &i);     /* V = U1·I */
    fe_add(&t, &p->z, &q->z);
    fe_sqr(&t, &t);
    fe_sub(&t, &t, &z1z1);
    fe_sub(&t, &t, &z2z2);
    fe_mul(&out->z, &t, &h); /* Z3 = ((Z1 + Z2)^2 − Z1Z1 − Z2Z2)·H */
    fe_sqr(&out->x, &r);
    fe_sub(&out->x, &out->x, &j);
    fe_dbl(&t, &v);
    fe_sub(&out->x, &out->x, &t); /* X3 = r^2 − J − 2V */
    fe_sub(&t, &v, &out->x);
    fe_mul(&t, &r, &t);
    fe_mul(&s1, &s1, &j);
    fe_dbl(&s1, &s1);
    fe_sub(&out->y, &t, &s1); /* Y3 = r(V − X3) − 2 S1 J */
}

/* madd-2007-bl: 7M + 4S, q affine (Z2 = 1), with the exceptional cases. */
CZK_EC_INLINE void ec_jac_add_aff(ec_jac *out, const ec_jac *p, const ec_aff *q)
{
    if (ec_aff_is_inf(q)) {
        *out = *p;
        return;
    }
    if (fe_is_zero(&p->z)) {
        ec_jac_from_aff(out, q);
        return;
    }
    fe z1z1, u2, s2, h, hh, i, j, r, v, t;
    fe_sqr(&z1z1, &p->z);
    fe_mul(&u2, &q->x, &z1z1);
    fe_mul(&s2, &q->y, &p->z);
    fe_mul(&s2, &s2, &z1z1);
    fe_sub(&h, &u2, &p->x);
    fe_sub(&r, &s2, &p->y);
    if (fe_is_zero(&h)) {
        if (fe_is_zero(&r)) {
            ec_jac_dbl(out, p);
        } else {
            ec_jac_set_inf(out);
        }
        return;
    }
    fe_dbl(&r, &r);          /* r = 2(S2 − Y1) */
    fe_sqr(&hh, &h);
    fe_dbl(&i, &hh);
    fe_dbl(&i, &i);          /* I = 4 HH */
    fe_mul(&j, &h, &i);      /* J = H·I */
    fe_mul(&v, &p->x, &i);   /* V = X1·I */
    fe_mul(&s2, &p->y, &j);  /* Y1·J, saved before out (which may alias p) is written */
    fe_add(&t, &p->z, &h);
    fe_sqr(&t, &t);
    fe_sub(&t, &t, &z1z1);
    fe_sub(&out->z, &t, &hh); /* Z3 = (Z1 + H)^2 − Z1Z1 − HH */
    fe_sqr(&out->x, &r);
    fe_sub(&out->x, &out->x, &j);
    fe_dbl(&t, &v);
    fe_sub(&out->x, &out->x, &t); /* X3 = r^2 − J − 2V */
    fe_sub(&t, &v, &out->x);
    fe_mul(&t, &r, &t);
    fe_dbl(&s2, &s2);
    fe_sub(&out->y, &t, &s2); /* Y3 = r(V − X3) − 2 Y1 J */
}

CZK_EC_INLINE void ec_jac_neg(ec_jac *out, const ec_jac *p)
{
    out->x = p->x;
    fe_neg(&out->y, &p->y);
    out->z = p->z;
}

/* X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3; infinity equals only infinity. */
CZK_EC_INLINE bool ec_jac_eq(const ec_jac *p, const ec_jac *q)
{
    bool pinf = fe_is_zero(&p->z), qinf = fe_is_zero(&q->z);
    if (pinf || qinf) return pinf && qinf;
    fe z1z1, z2z2, a, b;
    fe_sqr(&z1z1, &p->z);
    fe_sqr(&z2z2, &q->z);
    fe_mul(&a, &p->x, &z2z2);
    fe_mul(&b, &q->x, &z1z1);
    if (!fe_eq(&a, &b)) return false;
    fe_mul(&z1z1, &z1z1, &p->z);
    fe_mul(&z2z2, &z2z2, &q->z);
    fe_mul(&a, &p->y, &z2z2);
    fe_mul(&b, &q->y, &z1z1);
    return fe_eq(&a, &b);
}

/* Jacobian p equal to affine q; either may be infinity. */
CZK_EC_INLINE bool ec_jac_eq_aff(const ec_jac *p, const ec_aff *q)
{
    bool pinf = fe_is_zero(&p->z), qinf = ec_aff_is_inf(q);
    if (pinf || qinf) return pinf && qinf;
    fe zz, t;
    fe_sqr(&zz, &p->z);
    fe_mul(&t, &q->x, &zz);
    if (!fe_eq(&t, &p->x)) return false;
    fe_mul(&zz, &zz, &p->z);
    fe_mul(&t, &q->y, &zz);
    return fe_eq(&t, &p->y);
}

/* Y^2 == X^3 + b Z^6; infinity counts as on the curve. */
CZK_EC_INLINE bool ec_jac_on_curve(const ec_jac *p)
{
    if (fe_is_zero(&p->z)) return true;
    fe l, r, z6;
    fe_sqr(&l, &p->y);
    fe_sqr(&z6, &p->z);
    fe_mul(&z6, &z6, &p->z);
    fe_sqr(&z6, &z6);
    fe_mul(&z6, &z6, &EC_B);
    fe_sqr(&r, &p->x);
    fe_mul(&r, &r, &p->x);
    fe_add(&r, &r, &z6);
    return fe_eq(&l, &r);
}

/* Affine from Jacobian given zinv = 1/Z (Z ≠ 0). */
CZK_EC_INLINE void ec_jac_to_aff_with_zinv(ec_aff *out, const ec_jac *p, const fe *zinv)
{
    fe zi2, zi3;
    fe_sqr(&zi2, zinv);
    fe_mul(&zi3, &zi2, zinv);
    fe_mul(&out->x, &p->x, &zi2);
    fe_mul(&out->y, &p->y, &zi3);
}

CZK_EC_INLINE void ec_jac_to_aff(ec_aff *out, const ec_jac *p)
{
    if (fe_is_zero(&p->z)) {
        out->x = FE_ZERO;
        out->y = FE_ZERO;
        return;
    }
    fe zinv;
    fe_inv(&zinv, &p->z);
    ec_jac_to_aff_with_zinv(out, p, &zinv);
}

/* Montgomery's trick: one inversion for the n Z coordinates. scratch[i] holds the product
 * of the non-zero Z of points 0..i−1; infinities are skipped and come out as (0, 0). */
CZK_EC_INLINE void ec_jacs_to_aff(ec_aff *out, const ec_jac *in, size_t n, fe *scratch)
{
    fe acc = FE_ONE;
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!fe_is_zero(&in[i].z)) fe_mul(&acc, &acc, &in[i].z);
    }
    fe_inv(&acc, &acc); /* acc = 1/(product of all non-zero Z) */
    for (size_t i = n; i-- > 0;) {
        if (fe_is_zero(&in[i].z)) {
            out[i].x = FE_ZERO;
            out[i].y = FE_ZERO;
            continue;
        }
        fe zinv;
        fe_mul(&zinv, &acc, &scratch[i]);
        fe_mul(&acc, &acc, &in[i].z);
        ec_jac_to_aff_with_zinv(&out[i], &in[i], &zinv);
    }
}

/* ------------------------------------------------------------------------------------ */
/* XYZZ: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2, ZZ = ZZZ = 0 at infinity                    */
/* ------------------------------------------------------------------------------------ */

CZK_EC_INLINE void ec_xyzz_set_inf(ec_xyzz *out)
{
    out->x = FE_ONE;
    out->y = FE_ONE;
    out->zz = FE_ZERO;
    out->zzz = FE_ZERO;
}

CZK_EC_INLINE bool ec_xyzz_is_inf(const ec_xyzz *p)
{
    return fe_is_zero(&p->zz);
}

CZK_EC_INLINE void ec_xyzz_from_aff(ec_xyzz *out, const ec_aff *p)
{
    if (ec_aff_is_inf(p)) {
        ec_xyzz_set_inf(out);
        return;
    }
    out->x = p->x;
    out->y = p->y;
    out->zz = FE_ONE;
    out->zzz = FE_ONE;
}

/* With Z = ZZ the Jacobian coordinates are X·ZZ and Y·ZZZ: Z^2 = ZZ^2 and Z^3 = ZZ^3 =
 * ZZZ^2, so X/ZZ·Z^2 = X·ZZ and Y/ZZZ·Z^3 = Y·ZZZ. Infinity maps to Z = 0. */
CZK_EC_INLINE void ec_xyzz_to_jac(ec_jac *out, const ec_xyzz *p)
{
    if (ec_xyzz_is_inf(p)) {
        ec_jac_set_inf(out);
        return;
    }
    fe x, y;
    fe_mul(&x, &p->x, &p->zz);
    fe_mul(&y, &p->y, &p->zzz);
    out->z = p->zz;
    out->x = x;
    out->y = y;
}

CZK_EC_INLINE void ec_xyzz_to_aff(ec_aff *out, const ec_xyzz *p)
{
    if (ec_xyzz_is_inf(p)) {
        out->x = FE_ZERO;
        out->y = FE_ZERO;
        return;
    }
    /* One inversion: t = 1/(ZZ·ZZZ), then 1/ZZ = t·ZZZ and 1/ZZZ = t·ZZ. */
    fe t, u;
    fe_mul(&t, &p->zz, &p->zzz);
    fe_inv(&t, &t);
    fe_mul(&u, &t, &p->zzz);
    fe_mul(&t, &t, &p->zz);
    fe_mul(&out->x, &p->x, &u);
    fe_mul(&out->y, &p->y, &t);
}

CZK_EC_INLINE void ec_xyzz_neg(ec_xyzz *out, const ec_xyzz *p)
{
    out->x = p->x;
    fe_neg(&out->y, &p->y);
    out->zz = p->zz;
    out->zzz = p->zzz;
}

/* dbl-2008-s-1 (a = 0): 6M + 3S (2S here: M uses 3 X1^2). */
CZK_EC_INLINE void ec_xyzz_dbl(ec_xyzz *out, const ec_xyzz *p)
{
    fe u, v, w, s, m, t;
    fe_dbl(&u, &p->y);       /* U = 2 Y1 */
    fe_sqr(&v, &u);          /* V = U^2 */
    fe_mul(&w, &u, &v);      /* W = U·V */
    fe_mul(&s, &p->x, &v);   /* S = X1·V */
    fe_sqr(&m, &p->x);
    fe_dbl(&t, &m);
    fe_add(&m, &m, &t);      /* M = 3 X1^2 */
    fe_mul(&t, &w, &p->y);   /* W·Y1, before out (which may alias p) is written */
    fe_mul(&out->zz, &v, &p->zz);
    fe_mul(&out->zzz, &w, &p->zzz);
    fe_sqr(&out->x, &m);
    fe_sub(&out->x, &out->x, &s);
    fe_sub(&out->x, &out->x, &s); /* X3 = M^2 − 2S */
    fe_sub(&s, &s, &out->x);
    fe_mul(&s, &m, &s);
    fe_sub(&out->y, &s, &t);      /* Y3 = M(S − X3) − W·Y1 */
}

/* mdbl-2008-s-1: doubling of an affine point into XYZZ (ZZ3 = V, ZZZ3 = W). */
CZK_EC_INLINE void ec_xyzz_dbl_aff(ec_xyzz *out, const ec_aff *q)
{
    fe u, v, w, s, m, t;
    fe_dbl(&u, &q->y);
    fe_sqr(&v, &u);
    fe_mul(&w, &u, &v);
    fe_mul(&s, &q->x, &v);
    fe_sqr(&m, &q->x);
    fe_dbl(&t, &m);
    fe_add(&m, &m, &t);
    fe_mul(&t, &w, &q->y);
    out->zz = v;
    out->zzz = w;
    fe_sqr(&out->x, &m);
    fe_sub(&out->x, &out->x, &s);
    fe_sub(&out->x, &out->x, &s);
    fe_sub(&s, &s, &out->x);
    fe_mul(&s, &m, &s);
    fe_sub(&out->y, &s, &t);
}

/* add-2008-s: 12M + 2S, with the exceptional cases. */
CZK_EC_INLINE void ec_xyzz_add(ec_xyzz *out, const ec_xyzz *p, const ec_xyzz *q)
{
    if (ec_xyzz_is_inf(p)) {
        *out = *q;
        return;
    }
    if (ec_xyzz_is_inf(q)) {
        *out = *p;
        return;
    }
    fe u1, u2, s1, s2, pp, ppp, r, qq, t;
    fe_mul(&u1, &p->x, &q->zz);
    fe_mul(&u2, &q->x, &p->zz);
    fe_mul(&s1, &p->y, &q->zzz);
    fe_mul(&s2, &q->y, &p->zzz);
    fe_sub(&u2, &u2, &u1);   /* P = U2 − U1 */
    fe_sub(&r, &s2, &s1);    /* R = S2 − S1 */
    if (fe_is_zero(&u2)) {
        if (fe_is_zero(&r)) {
            ec_xyzz_dbl(out, p);
        } else {
            ec_xyzz_set_inf(out);
        }
        return;
    }
    fe_sqr(&pp, &u2);        /* PP = P^2 */
    fe_mul(&ppp, &u2, &pp);  /* PPP = P·PP */
    fe_mul(&qq, &u1, &pp);   /* Q = U1·PP */
    fe_mul(&t, &p->zz, &q->zz);
    fe_mul(&out->zz, &t, &pp);   /* ZZ3 = ZZ1·ZZ2·PP */
    fe_mul(&t, &p->zzz, &q->zzz);
    fe_mul(&out->zzz, &t, &ppp); /* ZZZ3 = ZZZ1·ZZZ2·PPP */
    fe_sqr(&out->x, &r);
    fe_sub(&out->x, &out->x, &ppp);
    fe_dbl(&t, &qq);
    fe_sub(&out->x, &out->x, &t); /* X3 = R^2 − PPP − 2Q */
    fe_sub(&t, &qq, &out->x);
    fe_mul(&t, &r, &t);
    fe_mul(&s1, &s1, &ppp);
    fe_sub(&out->y, &t, &s1);     /* Y3 = R(Q − X3) − S1·PPP */
}

/* madd-2008-s: 8M + 2S, q affine (ZZ2 = ZZZ2 = 1), with the exceptional cases. */
CZK_EC_INLINE void ec_xyzz_add_aff(ec_xyzz *out, const ec_xyzz *p, const ec_aff *q)
{
    if (ec_aff_is_inf(q)) {
        *out = *p;
        return;
    }
    if (ec_xyzz_is_inf(p)) {
        ec_xyzz_from_aff(out, q);
        return;
    }
    fe u2, s2, pp, ppp, r, qq, t;
    fe_mul(&u2, &q->x, &p->zz);
    fe_mul(&s2, &q->y, &p->zzz);
    fe_sub(&u2, &u2, &p->x);  /* P = U2 − X1 */
    fe_sub(&r, &s2, &p->y);   /* R = S2 − Y1 */
    if (fe_is_zero(&u2)) {
        if (fe_is_zero(&r)) {
            ec_xyzz_dbl_aff(out, q);
        } else {
            ec_xyzz_set_inf(out);
        }
        return;
    }
    fe_sqr(&pp, &u2);
    fe_mul(&ppp, &u2, &pp);
    fe_mul(&qq, &p->x, &pp);      /* Q = X1·PP */
    fe_mul(&s2, &p->y, &ppp);     /* Y1·PPP, before out (which may alias p) is written */
    fe_mul(&out->zz, &p->zz, &pp);
    fe_mul(&out->zzz, &p->zzz, &ppp);
    fe_sqr(&out->x, &r);
    fe_sub(&out->x, &out->x, &ppp);
    fe_dbl(&t, &qq);
    fe_sub(&out->x, &out->x, &t); /* X3 = R^2 − PPP − 2Q */
    fe_sub(&t, &qq, &out->x);
    fe_mul(&t, &r, &t);
    fe_sub(&out->y, &t, &s2);     /* Y3 = R(Q − X3) − Y1·PPP */
}

/* ------------------------------------------------------------------------------------ */
/* Scalar multiplication                                                                */
/* ------------------------------------------------------------------------------------ */

/*
 * wNAF with window 5: table of the odd multiples P, 3P, ..., 15P, one addition per
 * non-zero digit (about bits/6 of them) and one doubling per bit. Window 5 beats 4 for
 * 255-bit scalars (8 table points, ~43 additions against 4 and ~51). The scalar is
 * recoded on the fly from its bits with a carry, so k itself is never modified and may
 * have any length; k is used as an integer, not reduced mod r ([r]P is computed as such).
 */
#define CZK_EC_WNAF_W 5
#define CZK_EC_WNAF_TABLE (1 << (CZK_EC_WNAF_W - 2))
/* Longest scalar recoded into the stack buffer; longer ones use binary double-and-add. */
#define CZK_EC_WNAF_MAX_LIMBS 16

CZK_EC_INLINE unsigned ec_scalar_bit(const uint64_t *k, size_t nbits, size_t i)
{
    if (i >= nbits) return 0;
    return (unsigned)(k[i / 64] >> (i % 64)) & 1;
}

CZK_EC_INLINE size_t ec_scalar_bits(const uint64_t *k, size_t nlimbs)
{
    while (nlimbs > 0 && k[nlimbs - 1] == 0) nlimbs--;
    if (nlimbs == 0) return 0;
    uint64_t top = k[nlimbs - 1];
    size_t bits = 64 * (nlimbs - 1);
    while (top) {
        bits++;
        top >>= 1;
    }
    return bits;
}

CZK_EC_INLINE void ec_jac_mul(ec_jac *out, const ec_jac *p, const uint64_t *k, size_t nlimbs)
{
    size_t nbits = ec_scalar_bits(k, nlimbs);
    if (nbits == 0 || fe_is_zero(&p->z)) {
        ec_jac_set_inf(out);
        return;
    }
    ec_jac acc;
    if (nbits > 64 * CZK_EC_WNAF_MAX_LIMBS) {
        /* Binary double-and-add for the rare over-long scalar (tests, cofactors). */
        ec_jac base = *p;
        ec_jac_set_inf(&acc);
        for (size_t i = nbits; i-- > 0;) {
            ec_jac_dbl(&acc, &acc);
            if (ec_scalar_bit(k, nbits, i)) ec_jac_add(&acc, &acc, &base);
        }
        *out = acc;
        return;
    }

    /* Recode: digit i is odd in [−15, 15] or 0, and any two non-zero digits are at least
     * W positions apart. `carry` is the 1 borrowed from the higher bits by a negative
     * digit. */
    /* The highest non-zero digit sits at most at position nbits, followed by W − 1 zeros. */
    int8_t digit[64 * CZK_EC_WNAF_MAX_LIMBS + CZK_EC_WNAF_W + 1];
    size_t ndig = 0;
    unsigned carry = 0;
    const unsigned mask = (1u << CZK_EC_WNAF_W) - 1;
    for (size_t i = 0; i < nbits || carry;) {
        if (ec_scalar_bit(k, nbits, i) == carry) {
            digit[i++] = 0; /* (bit + carry) even: carry passes through unchanged */
            continue;
        }
        unsigned m = carry;
        for (unsigned j = 0; j < CZK_EC_WNAF_W; j++) m += ec_scalar_bit(k, nbits, i + j) << j;
        m &= mask; /* odd, below 2^W: bit 0 of (bits + carry) is 1, so no overflow */
        int d = (int)m;
        carry = 0;
        if (m > (mask >> 1)) {
            d -= 1 << CZK_EC_WNAF_W;
            carry = 1;
        }
        digit[i++] = (int8_t)d;
        ndig = i;
        for (unsigned j = 1; j < CZK_EC_WNAF_W; j++) digit[i++] = 0;
    }

    ec_jac table[CZK_EC_WNAF_TABLE], twice;
    table[0] = *p;
    ec_jac_dbl(&twice, p);
    for (int i = 1; i < CZK_EC_WNAF_TABLE; i++) ec_jac_add(&table[i], &table[i - 1], &twice);

    ec_jac_set_inf(&acc);
    for (size_t i = ndig; i-- > 0;) {
        ec_jac_dbl(&acc, &acc);
        int d = digit[i];
        if (d > 0) {
            ec_jac_add(&acc, &acc, &table[d >> 1]);
        } else if (d < 0) {
            ec_jac neg;
            ec_jac_neg(&neg, &table[(-d) >> 1]);
            ec_jac_add(&acc, &acc, &neg);
        }
    }
    *out = acc;
}

/* [e]P for a sparse 64-bit e with its top bit set, by plain double-and-add: for the BLS
 * parameter |x| = 0xd201000000010000 (bits 63, 62, 60, 57, 48, 16) that is 63 doublings
 * and 5 mixed additions, fewer than any window method. P affine. */
CZK_EC_INLINE void ec_jac_mul_by_x_abs_aff(ec_jac *out, const ec_aff *p, uint64_t x_abs)
{
    ec_jac acc;
    ec_jac_from_aff(&acc, p);
    for (int i = 62; i >= 0; i--) {
        ec_jac_dbl(&acc, &acc);
        if ((x_abs >> i) & 1) ec_jac_add_aff(&acc, &acc, p);
    }
    *out = acc;
}

/* Same for a Jacobian P (full additions). */
CZK_EC_INLINE void ec_jac_mul_by_x_abs(ec_jac *out, const ec_jac *p, uint64_t x_abs)
{
    ec_jac acc = *p, base = *p;
    for (int i = 62; i >= 0; i--) {
        ec_jac_dbl(&acc, &acc);
        if ((x_abs >> i) & 1) ec_jac_add(&acc, &acc, &base);
    }
    *out = acc;
}

#endif
