/*
 * The device field and curve code (cuda/ff.cuh, cuda/ec.cuh) compiled for the host, where the
 * PTX carry flag is emulated, and checked against independent references: a 64-bit
 * schoolbook product written here, OpenSSL BIGNUM for the Montgomery reduction of
 * double-width values, and the CPU library (czk_fp_*, czk_fr_*, czk_fp2_*, czk_g1_* and
 * czk_g2_*).
 *
 * Covered: mul_wide, mul2_wide, sqr_wide, redc_wide, sqr and mul_sub for Fp and Fr, and for
 * the NTT's Fr (fr_rt_params: the generic reduction); the Fp2 multiplication, its square and
 * mul_sub; the XYZZ additions (mixed and general, whose y3 uses F::mul_sub) over G1 and G2,
 * including their doubling and opposite-point branches.
 * Inputs are fresh random values each run plus edge values (0, 1, p − 1, p − 2, (p − 1)/2,
 * words of all ones below p, unreduced sums up to 2p − 2 and full 2^(32n) − 1 operands).
 */
#include <openssl/bn.h>

#include <initializer_list>

#include "czk/bls12_381.h"
#include "czk_test.h"
#include "ec.cuh"
#include "ff.cuh"
#include "host_groups.hpp"

using namespace czk_gpu;

static const int RANDOM_CASES = 200000;

/* ------------------------------------------------------------------------------------ */
/* One description per field: device type, host type and the CPU library's operations.  */
/* ------------------------------------------------------------------------------------ */

struct fp_side {
    using F = fp_t;
    using H = czk_fp;
    static constexpr int n = 12;
    static constexpr const char *name = "Fp";
    static const uint64_t *modulus() { return CZK_FP_MODULUS; }
    static void mul(H *o, const H *a, const H *b) { czk_fp_mul(o, a, b); }
    static void sqr(H *o, const H *a) { czk_fp_sqr(o, a); }
    static void sub(H *o, const H *a, const H *b) { czk_fp_sub(o, a, b); }
};
template <class FT> struct fr_side_t {
    using F = FT;
    using H = czk_fr;
    static constexpr int n = 8;
    static constexpr const char *name = "Fr";
    static const uint64_t *modulus() { return CZK_FR_MODULUS; }
    static void mul(H *o, const H *a, const H *b) { czk_fr_mul(o, a, b); }
    static void sqr(H *o, const H *a) { czk_fr_sqr(o, a); }
    static void sub(H *o, const H *a, const H *b) { czk_fr_sub(o, a, b); }
};
using fr_side = fr_side_t<fr_t>;
/* The NTT's Fr (generic reduction; its run-time modulus is the same numbers on the host). */
using fr_rt_side = fr_side_t<mont_t<fr_rt_params>>;

/* Device and host elements have the same bytes (ff.cuh's static_asserts); copy, no convert. */
template <class S> static typename S::F to_dev(const typename S::H &h)
{
    typename S::F f;
    memcpy(f.v, h.l, sizeof f.v);
    return f;
}
template <class S> static typename S::H to_host(const typename S::F &f)
{
    typename S::H h;
    memcpy(h.l, f.v, sizeof h.l);
    return h;
}

/* The modulus as n 32-bit words. */
template <class S> static void mod_words(uint32_t *m)
{
    for (int i = 0; i < S::n / 2; i++) {
        m[2 * i] = (uint32_t)S::modulus()[i];
        m[2 * i + 1] = (uint32_t)(S::modulus()[i] >> 32);
    }
}

static bool words_lt(const uint32_t *a, const uint32_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] < b[i];
    return false;
}

/* A uniformly random element below the modulus, by rejection on the modulus' bit length. */
template <class S> static typename S::F rand_elem()
{
    uint32_t m[S::n];
    mod_words<S>(m);
    int bits = 32 - __builtin_clz(m[S::n - 1]);
    uint32_t mask = bits == 32 ? 0xffffffffu : (1u << bits) - 1;
    typename S::F f;
    do {
        czk_test_rand_bytes(f.v, sizeof f.v);
        f.v[S::n - 1] &= mask;
    } while (!words_lt(f.v, m, S::n));
    return f;
}

/* Edge values below the modulus: 0, 1, 2, p − 1, p − 2, (p − 1)/2, (p + 1)/2, Montgomery
 * one, low words all ones, and p's top words over all-ones low words (just below p). */
template <class S> static int edge_elems(typename S::F *out)
{
    const int n = S::n;
    uint32_t m[S::n];
    mod_words<S>(m);
    int k = 0;
    auto small = [&](uint32_t v) {
        typename S::F f = S::F::zero();
        f.v[0] = v;
        out[k++] = f;
    };
    small(0);
    small(1);
    small(2);
    typename S::F pm1, pm2, half, half1;
    memcpy(pm1.v, m, sizeof m);
    pm1.v[0] -= 1; /* p is odd */
    pm2 = pm1;
    for (int i = 0; i < n && pm2.v[i]-- == 0; i++) { /* borrow: r − 1 ends in a zero word */
    }
    for (int i = 0; i < n; i++) /* (p − 1)/2: shift right by one */
        half.v[i] = (pm1.v[i] >> 1) | (i + 1 < n ? pm1.v[i + 1] << 31 : 0);
    half1 = half;
    half1.v[0] += 1; /* (p + 1)/2: half's low word is not all ones for either modulus */
    out[k++] = pm1;
    out[k++] = pm2;
    out[k++] = half;
    out[k++] = half1;
    out[k++] = S::F::one();
    for (int w = 1; w < n; w++) { /* low w words all ones (< 2^(32w) < p) */
        typename S::F f = S::F::zero();
        for (int i = 0; i < w; i++) f.v[i] = 0xffffffffu;
        out[k++] = f;
    }
    for (int w = 1; w < n; w++) { /* p's words w.., word w minus one, all ones below */
        if (m[w] == 0) continue;
        typename S::F f;
        for (int i = 0; i < n; i++) f.v[i] = i < w ? 0xffffffffu : m[i];
        f.v[w] -= 1;
        out[k++] = f;
    }
    for (int i = 0; i < k; i++) CHECK(words_lt(out[i].v, m, n));
    return k;
}

/* Reference product: schoolbook on 64-bit limbs with 128-bit intermediates. */
static void ref_mul(uint32_t *w, const uint32_t *a, const uint32_t *b, int n)
{
    uint64_t a64[8], b64[8], r64[16] = {0};
    int h = n / 2;
    for (int i = 0; i < h; i++) {
        a64[i] = a[2 * i] | (uint64_t)a[2 * i + 1] << 32;
        b64[i] = b[2 * i] | (uint64_t)b[2 * i + 1] << 32;
    }
    for (int i = 0; i < h; i++) {
        unsigned __int128 c = 0;
        for (int j = 0; j < h; j++) {
            c += (unsigned __int128)a64[i] * b64[j] + r64[i + j];
            r64[i + j] = (uint64_t)c;
            c >>= 64;
        }
        r64[i + h] = (uint64_t)c;
    }
    for (int i = 0; i < n; i++) {
        w[2 * i] = (uint32_t)r64[i];
        w[2 * i + 1] = (uint32_t)(r64[i] >> 32);
    }
}

/* Little-endian word arrays to and from BIGNUM (the host is little-endian). */
static BIGNUM *bn_words(const uint32_t *w, int n)
{
    return BN_lebin2bn((const unsigned char *)w, 4 * n, NULL);
}
static void words_bn(uint32_t *w, int n, const BIGNUM *b)
{
    memset(w, 0, 4 * (size_t)n);
    CHECK(BN_bn2lebinpad(b, (unsigned char *)w, 4 * n) == 4 * n);
}

/* ------------------------------------------------------------------------------------ */
/* Fp and Fr                                                                             */
/* ------------------------------------------------------------------------------------ */

/* Mismatch counter that prints the first few failures of one operation. */
struct tally {
    const char *what;
    long bad = 0, total = 0;
    explicit tally(const char *w) : what(w) {}
    void check(bool ok)
    {
        total++;
        if (!ok && bad++ < 3) fprintf(stderr, "  mismatch: %s (case %ld)\n", what, total);
    }
    void done(const char *field)
    {
        CHECK_MSG(bad == 0, "%s %s: %ld of %ld cases wrong", field, what, bad, total);
    }
};

template <class S> struct field_check {
    using F = typename S::F;
    using H = typename S::H;
    static constexpr int n = S::n;
    tally t_mul_wide{"mul_wide"}, t_sqr_wide{"sqr_wide"}, t_redc{"redc_wide(mul_wide)"},
        t_mul{"operator*"}, t_sqr{"sqr"}, t_mul_sub{"mul_sub"},
        t_wide_unred{"mul_wide/sqr_wide unreduced"}, t_mul2{"mul2_wide"};

    /* Every operation on one tuple of reduced inputs. */
    void one(const F &a, const F &b, const F &c, const F &d)
    {
        uint32_t w[2 * n], want[2 * n], w2[2 * n];
        ref_mul(want, a.v, b.v, n);
        F::mul_wide(w, a.v, b.v);
        t_mul_wide.check(memcmp(w, want, sizeof w) == 0);

        ref_mul(want, a.v, a.v, n);
        F::sqr_wide(w2, a.v);
        t_sqr_wide.check(memcmp(w2, want, sizeof w2) == 0);

        H ha = to_host<S>(a), hb = to_host<S>(b), hc = to_host<S>(c), hd = to_host<S>(d);
        H hab, hcd, hsq, hms;
        S::mul(&hab, &ha, &hb);
        S::mul(&hcd, &hc, &hd);
        S::sub(&hms, &hab, &hcd);
        S::sqr(&hsq, &ha);
        F r;
        mul2_ref(want, a.v, b.v, c.v, d.v);
        F::mul2_wide(w2, a.v, b.v, c.v, d.v);
        t_mul2.check(memcmp(w2, want, sizeof w2) == 0);
        F::redc_wide(r.v, w);
        t_redc.check(memcmp(r.v, hab.l, sizeof r.v) == 0);
        F p = a * b;
        t_mul.check(memcmp(p.v, hab.l, sizeof p.v) == 0);
        F s = a.sqr();
        t_sqr.check(memcmp(s.v, hsq.l, sizeof s.v) == 0);
        F ms = F::mul_sub(a, b, c, d);
        t_mul_sub.check(memcmp(ms.v, hms.l, sizeof ms.v) == 0);
    }

    /* mul_wide and sqr_wide on arbitrary n-word operands up to 2^(32n) − 1. */
    void full_range(const uint32_t *x, const uint32_t *y)
    {
        uint32_t w[2 * n], want[2 * n];
        ref_mul(want, x, y, n);
        F::mul_wide(w, x, y);
        bool ok = memcmp(w, want, sizeof w) == 0;
        ref_mul(want, x, x, n);
        F::sqr_wide(w, x);
        t_wide_unred.check(ok && memcmp(w, want, sizeof w) == 0);
        /* mul2_wide near its bound: x'·y + y'·x' with x', y' < 2^(32n−1). */
        uint32_t xh[n], yh[n];
        memcpy(xh, x, sizeof xh);
        memcpy(yh, y, sizeof yh);
        xh[n - 1] &= 0x7fffffffu;
        yh[n - 1] &= 0x7fffffffu;
        mul2_ref(want, xh, y, yh, xh);
        F::mul2_wide(w, xh, y, yh, xh);
        t_mul2.check(memcmp(w, want, sizeof w) == 0);
    }

    /* a·b + c·d by the reference product; false when it does not fit 2n words. */
    static bool mul2_ref(uint32_t *w, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                         const uint32_t *d)
    {
        uint32_t u[2 * n];
        ref_mul(w, a, b, n);
        ref_mul(u, c, d, n);
        uint64_t carry = 0;
        for (int k = 0; k < 2 * n; k++) {
            carry += (uint64_t)w[k] + u[k];
            w[k] = (uint32_t)carry;
            carry >>= 32;
        }
        return carry == 0;
    }

    void finish()
    {
        for (tally *t : {&t_mul_wide, &t_sqr_wide, &t_redc, &t_mul, &t_sqr, &t_mul_sub,
                         &t_wide_unred, &t_mul2})
            t->done(S::name);
    }
};

template <class S> static void check_field()
{
    using F = typename S::F;
    const int n = S::n;
    field_check<S> fc;
    F edge[64];
    int ne = edge_elems<S>(edge);
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ne; j++) fc.one(edge[i], edge[j], edge[j], edge[i]);
    for (int i = 0; i < ne; i++) { /* edges against random values, both sides of mul_sub */
        F r1 = rand_elem<S>(), r2 = rand_elem<S>();
        fc.one(edge[i], r1, r2, edge[i]);
        fc.one(r1, r2, edge[i], edge[(i + 1) % ne]);
    }
    for (int k = 0; k < RANDOM_CASES; k++) {
        F a = rand_elem<S>(), b = rand_elem<S>(), c = rand_elem<S>(), d = rand_elem<S>();
        fc.one(a, b, c, d);
    }
    uint32_t x[n], y[n], ones[n];
    memset(ones, 0xff, sizeof ones);
    fc.full_range(ones, ones);
    /* mul2_wide's carries at their bounds: all-ones a and c against b and d of lb and ld
     * all-ones low words, wherever the result fits 2n words. */
    for (int lb = 1; lb <= n; lb++)
        for (int ld = 1; ld <= n; ld++)
            for (int v = 0; v < 4; v++) {
                uint32_t a[n], b[n], c[n], d[n], w[2 * n], want[2 * n];
                for (int i = 0; i < n; i++) {
                    a[i] = c[i] = 0xffffffffu;
                    b[i] = i < lb ? 0xffffffffu : 0;
                    d[i] = i < ld ? 0xffffffffu : 0;
                }
                if (v & 1) a[n - 1] = 0x7fffffffu;
                if (v & 2) c[n - 1] = 0x7fffffffu;
                if (!field_check<S>::mul2_ref(want, a, b, c, d)) continue; /* overflows */
                F::mul2_wide(w, a, b, c, d);
                fc.t_mul2.check(memcmp(w, want, sizeof w) == 0);
            }
    for (int k = 0; k < RANDOM_CASES / 4; k++) {
        czk_test_rand_bytes(x, sizeof x);
        czk_test_rand_bytes(y, sizeof y);
        if (k & 1) x[n - 1] |= 0x80000000u;
        fc.full_range(x, y);
        fc.full_range(ones, y);
    }
    fc.finish();
}

/* redc_wide on T in [0, p·2^(32n)) against BIGNUM: T·2^(−32n) mod p. */
template <class S> static void check_redc()
{
    using F = typename S::F;
    const int n = S::n;
    uint32_t m[S::n];
    mod_words<S>(m);
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *p = bn_words(m, n), *rinv = BN_new(), *bound = BN_new(), *t = BN_new(),
           *want = BN_new(), *r = BN_new();
    BN_one(r);
    BN_lshift(r, r, 32 * n);
    BN_mod_inverse(rinv, r, p, ctx);
    BN_lshift(bound, p, 32 * n); /* p·2^(32n), the exclusive upper end */
    tally tl("redc_wide vs BIGNUM");
    for (int k = 0; k < RANDOM_CASES + 8; k++) {
        uint32_t w[2 * n], got[n], exp[n];
        if (k == 0) { /* the largest input */
            BN_sub(t, bound, BN_value_one());
        } else if (k == 1) {
            BN_zero(t);
        } else if (k == 2) { /* (p − 1)^2 */
            BN_sub(t, p, BN_value_one());
            BN_sqr(t, t, ctx);
        } else if (k == 3) { /* (p − 1)·2^(32n): zero low half */
            BN_sub(t, p, BN_value_one());
            BN_lshift(t, t, 32 * n);
        } else if (k < 8) { /* H = p − 1 with a random L */
            BN_rand(t, 32 * n, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY);
            BN_sub(want, p, BN_value_one());
            BN_lshift(want, want, 32 * n);
            BN_add(t, t, want);
        } else {
            czk_test_rand_bytes(w, sizeof w);
            BIGNUM *x = bn_words(w, 2 * n);
            BN_mod(t, x, bound, ctx);
            BN_free(x);
        }
        words_bn(w, 2 * n, t);
        F::redc_wide(got, w);
        BN_mod_mul(want, t, rinv, p, ctx);
        words_bn(exp, n, want);
        tl.check(memcmp(got, exp, sizeof got) == 0);
    }
    tl.done(S::name);
    BN_free(p), BN_free(rinv), BN_free(bound), BN_free(t), BN_free(want), BN_free(r);
    BN_CTX_free(ctx);
}

static void test_fp(void) { check_field<fp_side>(); }
static void test_fr(void) { check_field<fr_side>(); }
static void test_fr_rt(void) { check_field<fr_rt_side>(); }
static void test_fp_redc(void) { check_redc<fp_side>(); }
static void test_fr_redc(void) { check_redc<fr_side>(); }

/* ------------------------------------------------------------------------------------ */
/* Fp2                                                                                   */
/* ------------------------------------------------------------------------------------ */

static czk_fp2 h2(const fp2_t &a)
{
    czk_fp2 h;
    fp2_to(&h, a);
    return h;
}

static void test_fp2(void)
{
    fp_t edge[64];
    int ne = edge_elems<fp_side>(edge);
    tally t_mul("fp2 operator*"), t_sqr("fp2 sqr"), t_ms("fp2 mul_sub");
    auto one = [&](const fp2_t &a, const fp2_t &b, const fp2_t &c, const fp2_t &d) {
        czk_fp2 ha = h2(a), hb = h2(b), hc = h2(c), hd = h2(d), hab, hcd, hsq, hms;
        czk_fp2_mul(&hab, &ha, &hb);
        czk_fp2_mul(&hcd, &hc, &hd);
        czk_fp2_sub(&hms, &hab, &hcd);
        czk_fp2_sqr(&hsq, &ha);
        czk_fp2 g = h2(a * b);
        t_mul.check(memcmp(&g, &hab, sizeof g) == 0);
        g = h2(a.sqr());
        t_sqr.check(memcmp(&g, &hsq, sizeof g) == 0);
        g = h2(fp2_t::mul_sub(a, b, c, d));
        t_ms.check(memcmp(&g, &hms, sizeof g) == 0);
    };
    /* Edge components pairwise: (p − 1) + (p − 1) u makes both Karatsuba sums 2p − 2. */
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ne; j++) {
            fp2_t a = {edge[i], edge[j]}, b = {edge[j], edge[i]};
            fp2_t c = {edge[(i + 3) % ne], edge[i]}, d = {edge[j], edge[(j + 5) % ne]};
            one(a, b, c, d);
            one(a, a, b, b);
        }
    for (int k = 0; k < RANDOM_CASES; k++) {
        fp2_t a = {rand_elem<fp_side>(), rand_elem<fp_side>()};
        fp2_t b = {rand_elem<fp_side>(), rand_elem<fp_side>()};
        fp2_t c = {rand_elem<fp_side>(), rand_elem<fp_side>()};
        fp2_t d = {rand_elem<fp_side>(), rand_elem<fp_side>()};
        one(a, b, c, d);
    }
    t_mul.done("Fp2");
    t_sqr.done("Fp2");
    t_ms.done("Fp2");
}

/* ------------------------------------------------------------------------------------ */
/* XYZZ additions over G1 and G2                                                         */
/* ------------------------------------------------------------------------------------ */

/* Reinterpret between host and device points (identical layouts, ec.cuh's asserts). */
template <class D, class H> static D dev(const H &h)
{
    static_assert(sizeof(D) == sizeof(H), "layout");
    D d;
    memcpy((void *)&d, &h, sizeof d);
    return d;
}

/*
 * Two accumulators take random points [k]G (mixed additions); after every step the device
 * accumulator must be the host's point, and the general addition of the two accumulators
 * must match the host's too. Then the special branches: P + P, P + (−P), X + X, X + (−X).
 */
template <class S> static void check_curve(int steps)
{
    using F = typename S::F;
    using A = typename S::A;
    using X = typename S::X;
    using DA = affine_t<F>;
    using DX = xyzz_t<F>;
    typename S::J g, j;
    S::jac_from_affine(&g, S::gen());
    auto rand_point = [&](A *out) {
        uint64_t k[4];
        czk_test_rand_bytes(k, sizeof k);
        S::jac_mul(&j, &g, k, 4);
        S::jac_to_affine(out, &j);
    };
    auto same = [&](const DX &d, const X &h) {
        X dh;
        memcpy((void *)&dh, (const void *)&d, sizeof dh);
        A a1, a2;
        S::xyzz_to_affine(&a1, &dh);
        S::xyzz_to_affine(&a2, &h);
        return S::eq(&a1, &a2);
    };
    X ha, hb, hc;
    memset(&ha, 0, sizeof ha);
    memset(&hb, 0, sizeof hb);
    DX da = DX::inf(), db = DX::inf();
    tally t_madd("xyzz add_affine"), t_add("xyzz add"), t_special("xyzz special cases");
    for (int s = 0; s < steps; s++) {
        A p, q;
        rand_point(&p);
        rand_point(&q);
        S::xyzz_add_affine(&ha, &ha, &p);
        da.add_affine(dev<DA>(p));
        t_madd.check(same(da, ha));
        S::xyzz_add_affine(&hb, &hb, &q);
        db.add_affine(dev<DA>(q));
        t_madd.check(same(db, hb));
        S::xyzz_add(&hc, &ha, &hb);
        DX dc = da;
        dc.add(db);
        t_add.check(same(dc, hc));

        /* Special branches. */
        X h2p, hz;
        memset(&hz, 0, sizeof hz);
        S::xyzz_add_affine(&h2p, &hz, &p);
        S::xyzz_add_affine(&h2p, &h2p, &p); /* 2P on the host */
        DX d = DX::from_affine(dev<DA>(p));
        d.add_affine(dev<DA>(p));
        t_special.check(same(d, h2p));
        A np;
        S::neg(&np, &p);
        d = DX::from_affine(dev<DA>(p));
        d.add_affine(dev<DA>(np));
        t_special.check(d.is_inf());
        DX e = da;
        e.add(da);
        X h2a;
        S::xyzz_add(&h2a, &ha, &ha);
        t_special.check(same(e, h2a));
        e = da;
        e.add(-da);
        t_special.check(e.is_inf());
    }
    t_madd.done(S::name);
    t_add.done(S::name);
    t_special.done(S::name);
}

static void test_g1_xyzz(void) { check_curve<g1_side>(300); }
static void test_g2_xyzz(void) { check_curve<g2_side>(60); }

int main(void)
{
    czk_test_seed();
    RUN(test_fp);
    RUN(test_fr);
    RUN(test_fr_rt);
    RUN(test_fp_redc);
    RUN(test_fr_redc);
    RUN(test_fp2);
    RUN(test_g1_xyzz);
    RUN(test_g2_xyzz);
    return czk_test_finish();
}
