/*
 * Device curve arithmetic for BLS12-381 G1 (over fp_t) and G2 (over fp2_t): affine,
 * Jacobian and XYZZ points with the same layout as the host's czk_g1_* / czk_g2_* structs,
 * so arrays of host points are read on the device as they are.
 *
 * Both curves have a = 0 (y^2 = x^3 + b), and none of the formulas below uses b.
 * Conventions match the host: affine (0, 0) is the point at infinity, Jacobian Z = 0 is
 * infinity, XYZZ ZZ = ZZZ = 0 is infinity (an all-zero XYZZ point is infinity, so a memset
 * bucket array starts empty).
 *
 * Formulas (EFD, "g1p/shortw"): XYZZ madd-2008-s (8M + 2S), add-2008-s (12M + 2S),
 * dbl-2008-s-1 and mdbl-2008-s-1; Jacobian add-2007-bl, madd-2007-bl, dbl-2009-l. The
 * incomplete formulas are guarded: equal inputs are doubled, opposite inputs give infinity.
 * Doublings are out of line: in the additions they are a rare branch, and inlining them
 * there doubled the code (and compile time) of every bucket kernel.
 */
#ifndef CZK_CUDA_EC_CUH
#define CZK_CUDA_EC_CUH

#include "ff.cuh"

namespace czk_gpu {

/*
 * Field operations for xyzz_t::add_affine_lean<true>, the G2 bucket accumulation's
 * (msm_kernels.cuh). For Fp they are the field's own. For Fp2 they are out-of-line
 * functions of their own with the operands by value, the same formulas as fp2_t's: through
 * them G2 2^24 took 355.3 ms on an H200, through fp2_t's own products (by value too, another
 * register allocation) 378.9.
 */
template <class F> struct lean_ops {
    static CZK_HD F mul(const F &a, const F &b) { return a * b; }
    static CZK_HD F sqr(const F &a) { return a.sqr(); }
    /* a·b − c·d, fused as in add_affine. */
    static CZK_HD F mul_sub(const F &a, const F &b, const F &c, const F &d)
    {
        return F::mul_sub(a, b, c, d);
    }
};
template <> struct lean_ops<fp2_t> {
    static CZK_HD_NOINLINE fp2_t mul(fp2_t a, fp2_t b)
    {
        fp_t t0 = a.c0 * b.c0;
        fp_t t1 = a.c1 * b.c1;
        fp_t t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
        return {t0 - t1, t2 - t0 - t1};
    }
    static CZK_HD_NOINLINE fp2_t sqr(fp2_t a)
    {
        fp_t t = a.c0 * a.c1;
        return {(a.c0 + a.c1) * (a.c0 - a.c1), t.dbl()};
    }
    static CZK_HD fp2_t mul_sub(const fp2_t &a, const fp2_t &b, const fp2_t &c, const fp2_t &d)
    {
        return mul(a, b) - mul(c, d);
    }
};

template <class F> struct affine_t {
    F x, y;
    CZK_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
    static CZK_HD affine_t inf() { return {F::zero(), F::zero()}; }
    CZK_HD affine_t cneg(bool flag) const { return {x, y.cneg(flag)}; }
};

template <class F> struct xyzz_t {
    F x, y, zz, zzz;

    static CZK_HD xyzz_t inf() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
    CZK_HD bool is_inf() const { return zz.is_zero(); }
    static CZK_HD xyzz_t from_affine(const affine_t<F> &p)
    {
        if (p.is_inf()) return inf();
        return {p.x, p.y, F::one(), F::one()};
    }
    CZK_HD xyzz_t operator-() const { return {x, -y, zz, zzz}; }

    /* 2·(x, y) for an affine point (mdbl-2008-s-1). */
    static CZK_HD_NOINLINE xyzz_t dbl_affine(const affine_t<F> &p)
    {
        F u = p.y.dbl();
        F v = u.sqr();
        F w = u * v;
        F s = p.x * v;
        F xx = p.x.sqr();
        F m = xx.dbl() + xx;
        F x3 = m.sqr() - s.dbl();
        F y3 = m * (s - x3) - w * p.y;
        return {x3, y3, v, w};
    }

    /* 2·this (dbl-2008-s-1). Infinity and points with y = 0 (none on these curves' prime
     * subgroups) map to ZZ = 0, that is infinity. */
    CZK_HD_NOINLINE xyzz_t dbl() const
    {
        F u = y.dbl();
        F v = u.sqr();
        F w = u * v;
        F s = x * v;
        F xx = x.sqr();
        F m = xx.dbl() + xx;
        F x3 = m.sqr() - s.dbl();
        F y3 = m * (s - x3) - w * y;
        return {x3, y3, v * zz, w * zzz};
    }

    /* this += affine p (madd-2008-s). */
    CZK_HD void add_affine(const affine_t<F> &p)
    {
        if (p.is_inf()) return;
        if (is_inf()) {
            *this = from_affine(p);
            return;
        }
        F u2 = p.x * zz;
        F s2 = p.y * zzz;
        F pp_ = u2 - x; /* P */
        F r = s2 - y;   /* R */
        if (pp_.is_zero()) {
            if (r.is_zero())
                *this = dbl_affine(p);
            else
                *this = inf();
            return;
        }
        F pp = pp_.sqr();
        F ppp = pp_ * pp;
        F q = x * pp;
        F x3 = r.sqr() - ppp - q.dbl();
        F y3 = F::mul_sub(r, q - x3, y, ppp);
        x = x3;
        y = y3;
        zz = zz * pp;
        zzz = zzz * ppp;
    }

    /*
     * this += affine p (madd-2008-s), the same formula as add_affine ordered so that fewer
     * values are live at once, for the register-bound bucket accumulation (msm_kernels.cuh:
     * G2's, and G1's with CZK_MSM_G1_LEAN). p dies right after U2 = x_p·ZZ and S2 = y_p·ZZZ:
     * the doubling branch (p equal to this point) doubles this XYZZ point instead of p. ZZ·PP
     * is formed as soon as PP exists and X1 dies in Q = X1·PP, so P, PP, X1 and the old ZZ
     * are never live together; PPP then replaces P and PP. At most 6 field values stay live
     * across a multiplication besides its operands, against 7 in add_affine. The result is
     * the same point in the same representation, except after a doubling. ptxas (CUDA 13.0,
     * sm_90) bucket accumulation in msm.cu: G1 196 → 176 registers, G2 246 → 224, no
     * spills; neither crosses an occupancy step (168 registers for 12 warps per SM).
     */
    template <bool BYVAL = false> CZK_HD void add_affine_lean(const affine_t<F> &p)
    {
        if (p.is_inf()) return;
        if (is_inf()) {
            *this = from_affine(p);
            return;
        }
        F P, R, PP, Q, PPP;
        if constexpr (BYVAL) {
            using O = lean_ops<F>;
            P = O::mul(p.x, zz) - x;  /* U2 − X1 */
            R = O::mul(p.y, zzz) - y; /* S2 − Y1 */
        } else {
            P = p.x * zz - x;
            R = p.y * zzz - y;
        }
        if (P.is_zero()) {
            if (R.is_zero())
                *this = dbl();
            else
                *this = inf();
            return;
        }
        if constexpr (BYVAL) {
            using O = lean_ops<F>;
            PP = O::sqr(P);
            zz = O::mul(zz, PP);
            Q = O::mul(x, PP);
            PPP = O::mul(P, PP);
            zzz = O::mul(zzz, PPP);
            x = O::sqr(R) - PPP - Q.dbl();
            y = O::mul_sub(R, Q - x, y, PPP);
        } else {
            PP = P.sqr();
            zz = zz * PP;
            Q = x * PP;
            PPP = P * PP;
            zzz = zzz * PPP;
            x = R.sqr() - PPP - Q.dbl();
            y = F::mul_sub(R, Q - x, y, PPP);
        }
    }

    /* this += q (add-2008-s). */
    CZK_HD void add(const xyzz_t &q)
    {
        if (q.is_inf()) return;
        if (is_inf()) {
            *this = q;
            return;
        }
        F u1 = x * q.zz;
        F u2 = q.x * zz;
        F s1 = y * q.zzz;
        F s2 = q.y * zzz;
        F p = u2 - u1;
        F r = s2 - s1;
        if (p.is_zero()) {
            if (r.is_zero())
                *this = dbl();
            else
                *this = inf();
            return;
        }
        F pp = p.sqr();
        F ppp = p * pp;
        F qq = u1 * pp;
        F x3 = r.sqr() - ppp - qq.dbl();
        F y3 = F::mul_sub(r, qq - x3, s1, ppp);
        x = x3;
        y = y3;
        zz = zz * q.zz * pp;
        zzz = zzz * q.zzz * ppp;
    }

    /* [k]this for a small non-negative k (double-and-add, most significant bit first). */
    CZK_HD xyzz_t mul_small(uint32_t k) const
    {
        xyzz_t r = inf();
        for (int b = 31; b >= 0; b--) {
            r = r.dbl();
            if ((k >> b) & 1) r.add(*this);
        }
        return r;
    }
};

template <class F> struct jac_t {
    F x, y, z;

    static CZK_HD jac_t inf() { return {F::one(), F::one(), F::zero()}; }
    CZK_HD bool is_inf() const { return z.is_zero(); }
    static CZK_HD jac_t from_affine(const affine_t<F> &p)
    {
        if (p.is_inf()) return inf();
        return {p.x, p.y, F::one()};
    }
    CZK_HD jac_t operator-() const { return {x, -y, z}; }

    /* dbl-2009-l. */
    CZK_HD_NOINLINE jac_t dbl() const
    {
        if (is_inf()) return *this;
        F a = x.sqr();
        F b = y.sqr();
        F c = b.sqr();
        F d = ((x + b).sqr() - a - c).dbl();
        F e = a.dbl() + a;
        F f = e.sqr();
        F x3 = f - d.dbl();
        F c8 = c.dbl().dbl().dbl();
        F y3 = e * (d - x3) - c8;
        F z3 = (y * z).dbl();
        return {x3, y3, z3};
    }

    /* this + affine q (madd-2007-bl). */
    CZK_HD jac_t add_affine(const affine_t<F> &q) const
    {
        if (q.is_inf()) return *this;
        if (is_inf()) return from_affine(q);
        F z1z1 = z.sqr();
        F u2 = q.x * z1z1;
        F s2 = q.y * z * z1z1;
        F h = u2 - x;
        F r = (s2 - y).dbl();
        if (h.is_zero()) {
            if (r.is_zero()) return dbl();
            return inf();
        }
        F hh = h.sqr();
        F i = hh.dbl().dbl();
        F j = h * i;
        F v = x * i;
        F x3 = r.sqr() - j - v.dbl();
        F y3 = r * (v - x3) - (y * j).dbl();
        F z3 = (z + h).sqr() - z1z1 - hh;
        return {x3, y3, z3};
    }

    /* this + q (add-2007-bl). */
    CZK_HD jac_t add(const jac_t &q) const
    {
        if (q.is_inf()) return *this;
        if (is_inf()) return q;
        F z1z1 = z.sqr();
        F z2z2 = q.z.sqr();
        F u1 = x * z2z2;
        F u2 = q.x * z1z1;
        F s1 = y * q.z * z2z2;
        F s2 = q.y * z * z1z1;
        F h = u2 - u1;
        F r = (s2 - s1).dbl();
        if (h.is_zero()) {
            if (r.is_zero()) return dbl();
            return inf();
        }
        F i = h.dbl().sqr();
        F j = h * i;
        F v = u1 * i;
        F x3 = r.sqr() - j - v.dbl();
        F y3 = r * (v - x3) - (s1 * j).dbl();
        F z3 = ((z + q.z).sqr() - z1z1 - z2z2) * h;
        return {x3, y3, z3};
    }

    /* Affine form by one inversion (slow; setup and tests only). */
    CZK_HD affine_t<F> to_affine() const
    {
        if (is_inf()) return affine_t<F>::inf();
        F zi = z.inv();
        F zi2 = zi.sqr();
        return {x * zi2, y * zi2 * zi};
    }
};

using g1_affine_t = affine_t<fp_t>;
using g1_xyzz_t = xyzz_t<fp_t>;
using g1_jac_t = jac_t<fp_t>;
using g2_affine_t = affine_t<fp2_t>;
using g2_xyzz_t = xyzz_t<fp2_t>;
using g2_jac_t = jac_t<fp2_t>;

static_assert(sizeof(g1_affine_t) == sizeof(czk_g1_affine), "layout");
static_assert(sizeof(g1_xyzz_t) == sizeof(czk_g1_xyzz), "layout");
static_assert(sizeof(g1_jac_t) == sizeof(czk_g1_jac), "layout");
static_assert(sizeof(g2_affine_t) == sizeof(czk_g2_affine), "layout");
static_assert(sizeof(g2_xyzz_t) == sizeof(czk_g2_xyzz), "layout");
static_assert(sizeof(g2_jac_t) == sizeof(czk_g2_jac), "layout");

} // namespace czk_gpu

#endif /* CZK_CUDA_EC_CUH */
