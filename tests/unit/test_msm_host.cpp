/*
 * The GPU MSM's bucket stage (cuda/msm_kernels.cuh) replayed on the host, thread by thread,
 * for G1 and G2, in every variant of the bucket accumulation (the prefetch pipeline on and off,
 * add_affine and both forms of add_affine_lean), whatever the build's defaults.
 *
 * Inputs: random sorted keys per window with runs of every length (1, across one chunk
 * boundary, across several chunks, ending exactly at a boundary), zero-digit entries (key
 * nb, which sort last and must be ignored), random signs, and bases drawn partly from a small
 * pool that includes the point at infinity, so runs hit the additions' special cases (the
 * same point twice: a doubling; a point and its negation: infinity; adding to infinity).
 *
 * Checked against a naive sum with the CPU library (Jacobian additions, czk_g1_jac_* and
 * czk_g2_jac_*, a different formula from the device's XYZZ ones):
 *  - level 0 (bucket_acc_body): every bucket with entries is the run's first chunk's
 *    partial sum, and that plus the carries with its key is the naive sum; buckets without
 *    entries are not written (they keep a sentinel);
 *  - the variants write the same bytes (buckets, carry keys and carry points) as the default
 *    one, except that the lean addition may represent a doubled point differently, so lean
 *    variants are compared with each other and each against the naive sums;
 *  - the carry folding (fold_body, levels of FOLD_L as in msm.cu's fold_all) leaves the naive
 *    bucket sums, and bucket_sum_body plus a fold gives each window's sum_j (j + 1)·B_j.
 */
#include <vector>

#include "czk/bls12_381.h"
#include "czk_test.h"
#include "ec.cuh"
#include "ff.cuh"
#include "msm_kernels.cuh"
#include "host_groups.hpp"

using namespace czk_gpu;
using namespace czk_gpu::msm;

/* g1_side, g2_side: tests/unit/host_groups.hpp. */

/* Carry levels of this many entries per thread, as msm.cu's FOLD_L (32) but small, so that
 * the test's few carries still take several levels. */
static const uint32_t TEST_FOLD_L = 3;

static uint32_t rnd(uint32_t n) { return (uint32_t)(czk_test_rand64() % n); }

/* A device XYZZ point as a host affine one (same bytes: ec.cuh's static_asserts). */
template <class S> static typename S::A affine_of(const xyzz_t<typename S::F> &p)
{
    typename S::X h;
    memcpy(&h, &p, sizeof h);
    typename S::A a;
    S::xyzz_to_affine(&a, &h);
    return a;
}
template <class S> static typename S::A affine_of_jac(const typename S::J &j)
{
    typename S::A a;
    S::jac_to_affine(&a, &j);
    return a;
}

/* One test case: bases, the sorted entries of every window and the naive bucket sums. */
template <class S> struct msm_case {
    using F = typename S::F;
    uint32_t nbases, nsig, nwin, nb, L, chunks;
    std::vector<affine_t<F>> bases;
    std::vector<uint32_t> keys, vals;
    std::vector<typename S::J> want; /* nwin·nb naive bucket sums */
    std::vector<bool> used;          /* bucket has at least one entry */
    xyzz_t<F> sentinel;

    msm_case(uint32_t nbases_, uint32_t nsig_, uint32_t nwin_, uint32_t c, uint32_t L_)
        : nbases(nbases_), nsig(nsig_), nwin(nwin_), nb(1u << (c - 1)), L(L_),
          chunks((nsig_ + L_ - 1) / L_)
    {
        /* Bases: infinity at index 0, then random multiples of the generator. */
        std::vector<typename S::A> hb(nbases);
        memset(&hb[0], 0, sizeof hb[0]);
        typename S::J g;
        S::jac_from_affine(&g, S::gen());
        for (uint32_t i = 1; i < nbases; i++) {
            uint64_t k[2] = {czk_test_rand64(), czk_test_rand64() | 1};
            typename S::J p;
            S::jac_mul(&p, &g, k, 2);
            S::jac_to_affine(&hb[i], &p);
        }
        bases.resize(nbases);
        memcpy(bases.data(), hb.data(), nbases * sizeof hb[0]);
        /* The sentinel: a point no bucket sum is likely to be, as XYZZ with ZZ = 1. */
        sentinel = xyzz_t<F>::from_affine(bases[nbases - 1]);

        keys.resize((size_t)nwin * nsig);
        vals.resize((size_t)nwin * nsig);
        for (uint32_t w = 0; w < nwin; w++) make_window(w);

        /* Naive sums with the CPU library. */
        want.resize((size_t)nwin * nb);
        used.assign((size_t)nwin * nb, false);
        for (auto &j : want) S::jac_set_inf(&j);
        for (uint32_t w = 0; w < nwin; w++)
            for (uint32_t i = 0; i < nsig; i++) {
                uint32_t k = keys[(size_t)w * nsig + i], v = vals[(size_t)w * nsig + i];
                if (k >= nb) continue;
                typename S::A p = hb[v & ~SIGN_BIT];
                if (v & SIGN_BIT) S::neg(&p, &p);
                typename S::J &b = want[(size_t)w * nb + k];
                S::jac_add_affine(&b, &b, &p);
                used[(size_t)w * nb + k] = true;
            }
    }

    /* Sorted keys of window w: runs of random lengths, some spanning chunks, with gaps
     * (empty buckets) between them, and a tail of zero digits in most windows. Window 2 is
     * all zero digits when there are at least 3 windows. */
    void make_window(uint32_t w)
    {
        uint32_t *wk = &keys[(size_t)w * nsig], *wv = &vals[(size_t)w * nsig];
        uint32_t zeros = w == 2 ? nsig : rnd(3) == 0 ? 0 : rnd(nsig / 4 + 1);
        uint32_t n = nsig - zeros, i = 0, key = rnd(2);
        while (i < n && key < nb) {
            uint32_t len;
            switch (rnd(5)) {
            case 0: len = 1; break;
            case 1: len = L - (i % L); break;           /* ends exactly at a chunk boundary */
            case 2: len = 2 * L + 1 + rnd(2 * L); break; /* across several chunks */
            default: len = 1 + rnd(L + 2); break;
            }
            if (key == nb - 1 || len > n - i) len = n - i;
            for (uint32_t e = 0; e < len; e++, i++) wk[i] = key;
            key += 1 + (rnd(3) == 0 ? rnd(3) : 0);
        }
        for (; i < nsig; i++) wk[i] = nb; /* zero digits sort last */
        for (i = 0; i < nsig; i++) {
            /* A quarter from a pool of 4 bases (infinity included), so that a run meets a
             * base again, with the same sign (doubling) or the other (cancellation). */
            uint32_t b = rnd(4) == 0 ? rnd(4) : rnd(nbases);
            wv[i] = b | (rnd(2) ? SIGN_BIT : 0);
        }
        /* A run of one base with alternating signs: it cancels to infinity and restarts. */
        if (n >= 4) {
            uint32_t j = rnd(n - 3);
            if (wk[j] == wk[j + 3]) {
                uint32_t b = 1 + rnd(nbases - 1);
                wv[j] = b;
                wv[j + 1] = b | SIGN_BIT;
                wv[j + 2] = b;
                wv[j + 3] = b;
            }
        }
    }
};

/* Output of level 0 for one variant. */
template <class F> struct level0 {
    std::vector<xyzz_t<F>> buckets, cpts;
    std::vector<uint32_t> ckeys;
};

template <class S, bool PF, int LEAN> static level0<typename S::F> run_level0(const msm_case<S> &t)
{
    using F = typename S::F;
    level0<F> r;
    uint32_t m = t.nwin * t.chunks;
    r.buckets.assign((size_t)t.nwin * t.nb, t.sentinel);
    r.cpts.assign(m, xyzz_t<F>::inf());
    r.ckeys.assign(m, 0x12345678u); /* every slot must be written */
    for (uint32_t g = 0; g < m; g++)
        bucket_acc_body<F, PF, LEAN>(g, t.bases.data(), t.keys.data(), t.vals.data(), t.nsig,
                                     t.chunks, t.nwin, t.L, t.nb, r.buckets.data(), r.ckeys.data(),
                                     r.cpts.data());
    return r;
}

template <class F> static bool same_bytes(const level0<F> &a, const level0<F> &b)
{
    return a.buckets.size() == b.buckets.size() && a.ckeys == b.ckeys &&
           memcmp(a.buckets.data(), b.buckets.data(), a.buckets.size() * sizeof a.buckets[0]) ==
               0 &&
           memcmp(a.cpts.data(), b.cpts.data(), a.cpts.size() * sizeof a.cpts[0]) == 0;
}

/* Level 0 against the naive sums; then the carry folds and the window sums. */
template <class S>
static void check_level0(const msm_case<S> &t, const level0<typename S::F> &r, const char *what)
{
    using J = typename S::J;
    uint32_t m = t.nwin * t.chunks;
    std::vector<J> tot((size_t)t.nwin * t.nb);
    int bad_key = 0, bad_sum = 0, bad_untouched = 0;
    for (size_t b = 0; b < tot.size(); b++) {
        if (!t.used[b]) {
            if (memcmp(&r.buckets[b], &t.sentinel, sizeof t.sentinel) != 0) bad_untouched++;
            S::jac_set_inf(&tot[b]);
            continue;
        }
        typename S::X hx;
        memcpy(&hx, &r.buckets[b], sizeof hx);
        S::xyzz_to_jac(&tot[b], &hx);
    }
    for (uint32_t g = 0; g < m; g++) {
        uint32_t k = r.ckeys[g];
        if (k == KEY_NONE) continue;
        if (k >= t.nwin * t.nb || !t.used[k]) {
            bad_key++;
            continue;
        }
        typename S::X hx;
        memcpy(&hx, &r.cpts[g], sizeof hx);
        J j;
        S::xyzz_to_jac(&j, &hx);
        S::jac_add(&tot[k], &tot[k], &j);
    }
    for (size_t b = 0; b < tot.size(); b++) {
        typename S::A got = affine_of_jac<S>(tot[b]), want = affine_of_jac<S>(t.want[b]);
        if (!S::eq(&got, &want)) bad_sum++;
    }
    CHECK_MSG(bad_key == 0 && bad_sum == 0 && bad_untouched == 0,
              "%s %s level 0: %d bad carry keys, %d wrong bucket sums, %d empty buckets written",
              S::name, what, bad_key, bad_sum, bad_untouched);
}

template <class S> static void check_folds(const msm_case<S> &t, const level0<typename S::F> &r)
{
    using F = typename S::F;
    using X = xyzz_t<F>;
    /* As msm.cu: buckets start at infinity (memset) and the carry levels add into them. */
    std::vector<X> buckets = r.buckets;
    for (size_t b = 0; b < buckets.size(); b++)
        if (!t.used[b]) buckets[b] = X::inf();
    auto fold_all = [](std::vector<uint32_t> ka, std::vector<X> pa, X *out) {
        uint32_t m = (uint32_t)ka.size();
        int levels = 0;
        while (m > 0) {
            uint32_t chunks = (m + TEST_FOLD_L - 1) / TEST_FOLD_L;
            std::vector<uint32_t> kb(chunks);
            std::vector<X> pb(chunks);
            for (uint32_t g = 0; g < chunks; g++)
                fold_body<F>(g, ka.data(), pa.data(), m, TEST_FOLD_L, out, kb.data(), pb.data());
            levels++;
            if (chunks == 1) break;
            ka.swap(kb);
            pa.swap(pb);
            m = chunks;
        }
        return levels;
    };
    int levels = fold_all(r.ckeys, r.cpts, buckets.data());
    int bad = 0;
    for (size_t b = 0; b < buckets.size(); b++) {
        typename S::A got = affine_of<S>(buckets[b]), want = affine_of_jac<S>(t.want[b]);
        if (!S::eq(&got, &want)) bad++;
    }
    CHECK_MSG(bad == 0, "%s folds (%d levels): %d wrong buckets", S::name, levels, bad);

    /* Window sums: segments of 2 buckets, folded by window key; all windows of nb buckets,
     * then only window 0 with nb and the rest narrow (nb/2: their upper half is left out,
     * as msm.cu's split widths leave it empty). */
    for (uint32_t wide : {t.nwin, 1u}) {
        uint32_t seg = 2, nseg = bucket_sum_threads(t.nwin, t.nb, wide, seg);
        std::vector<uint32_t> sk(nseg + 5);
        std::vector<X> sp(nseg + 5);
        /* A few threads past the end must do nothing. */
        for (uint32_t g = 0; g < nseg + 5; g++) {
            sk[g] = KEY_NONE;
            bucket_sum_body<F>(g, buckets.data(), t.nwin, t.nb, wide, seg, sk.data(), sp.data());
        }
        sk.resize(nseg);
        sp.resize(nseg);
        std::vector<X> win(t.nwin, X::inf());
        fold_all(sk, sp, win.data());
        int bad_win = 0;
        for (uint32_t w = 0; w < t.nwin; w++) {
            typename S::J want, term;
            S::jac_set_inf(&want);
            for (uint32_t j = 0; j < (w < wide ? t.nb : t.nb / 2); j++) {
                uint64_t k = j + 1;
                S::jac_mul(&term, &t.want[(size_t)w * t.nb + j], &k, 1);
                S::jac_add(&want, &want, &term);
            }
            typename S::A got = affine_of<S>(win[w]), wa = affine_of_jac<S>(want);
            if (!S::eq(&got, &wa)) bad_win++;
        }
        CHECK_MSG(bad_win == 0, "%s window sums (%u wide): %d of %u wrong", S::name, wide,
                  bad_win, t.nwin);
    }
}

template <class S> static void check_group(uint32_t nbases, uint32_t nsig, uint32_t nwin, uint32_t c,
                                           uint32_t L)
{
    msm_case<S> t(nbases, nsig, nwin, c, L);
    /* The default variant, then each switch value against it. */
    level0<typename S::F> r00 = run_level0<S, false, 0>(t);
    level0<typename S::F> r10 = run_level0<S, true, 0>(t);
    level0<typename S::F> r01 = run_level0<S, false, 1>(t);
    level0<typename S::F> r11 = run_level0<S, true, 1>(t);
    level0<typename S::F> r02 = run_level0<S, false, 2>(t);
    level0<typename S::F> r12 = run_level0<S, true, 2>(t);
    check_level0(t, r00, "add_affine");
    check_level0(t, r10, "add_affine, prefetch");
    check_level0(t, r01, "lean");
    check_level0(t, r11, "lean, prefetch");
    check_level0(t, r02, "lean by value");
    check_level0(t, r12, "lean by value, prefetch");
    CHECK_MSG(same_bytes(r00, r10), "%s: prefetch changed level 0's bytes", S::name);
    CHECK_MSG(same_bytes(r01, r11), "%s: prefetch changed level 0's bytes (lean)", S::name);
    CHECK_MSG(same_bytes(r01, r02), "%s: lean by value differs from lean", S::name);
    CHECK_MSG(same_bytes(r02, r12), "%s: prefetch changed level 0's bytes (lean by value)",
              S::name);
    check_folds(t, r00);
    check_folds(t, r11);
}

/* The same set of cases several times with fresh random inputs; chunk sizes 1 (every entry
 * its own chunk), small and larger than most runs. */
static void test_g1_buckets(void)
{
    static const uint32_t Ls[] = {1, 3, 5, 16, 40};
    for (int round = 0; round < 6; round++)
        for (uint32_t L : Ls) check_group<g1_side>(64, 600, 4, 6, L);
}

static void test_g2_buckets(void)
{
    static const uint32_t Ls[] = {1, 4, 7, 24};
    for (int round = 0; round < 6; round++)
        for (uint32_t L : Ls) check_group<g2_side>(32, 200, 3, 5, L);
}

/* The variant the build's switches select (the kernels in msm.cu call bucket_acc_body<F>
 * with these defaults): the same bytes as the explicit variant, and right. */
template <class S> static void check_build_default(uint32_t nbases)
{
    using F = typename S::F;
    msm_case<S> t(nbases, 64, 3, 4, 5);
    level0<F> a = run_level0<S, acc_config<F>::prefetch, acc_config<F>::lean>(t);
    level0<F> b;
    b.buckets.assign((size_t)t.nwin * t.nb, t.sentinel);
    b.cpts.assign(t.nwin * t.chunks, xyzz_t<F>::inf());
    b.ckeys.assign(t.nwin * t.chunks, 0);
    for (uint32_t g = 0; g < t.nwin * t.chunks; g++)
        bucket_acc_body<F>(g, t.bases.data(), t.keys.data(), t.vals.data(), t.nsig, t.chunks,
                           t.nwin, t.L, t.nb, b.buckets.data(), b.ckeys.data(), b.cpts.data());
    CHECK(same_bytes(a, b));
    check_level0(t, b, "build default");
    /* Windows sorted a group at a time (msm.cu keeps only one group's sorted entries):
     * the thread of chunk g reads its window from a buffer that starts at window w_base. */
    for (uint32_t gw = 1; gw <= t.nwin; gw++) {
        level0<F> c;
        c.buckets.assign((size_t)t.nwin * t.nb, t.sentinel);
        c.cpts.assign(t.nwin * t.chunks, xyzz_t<F>::inf());
        c.ckeys.assign(t.nwin * t.chunks, 0);
        for (uint32_t w0 = 0; w0 < t.nwin; w0 += gw) {
            uint32_t w1 = w0 + gw < t.nwin ? w0 + gw : t.nwin;
            std::vector<uint32_t> gk(t.keys.begin() + (size_t)w0 * t.nsig,
                                     t.keys.begin() + (size_t)w1 * t.nsig);
            std::vector<uint32_t> gv(t.vals.begin() + (size_t)w0 * t.nsig,
                                     t.vals.begin() + (size_t)w1 * t.nsig);
            for (uint32_t g = w0 * t.chunks; g < w1 * t.chunks; g++)
                bucket_acc_body<F>(g, t.bases.data(), gk.data(), gv.data(), t.nsig, t.chunks,
                                   t.nwin, t.L, t.nb, c.buckets.data(), c.ckeys.data(),
                                   c.cpts.data(), w0);
        }
        CHECK_MSG(same_bytes(b, c), "%u windows a group", gw);
    }
}

static void test_build_defaults(void)
{
    printf("CZK_MSM_ACC_PREFETCH=%d CZK_MSM_G1_LEAN=%d\n", CZK_MSM_ACC_PREFETCH, CZK_MSM_G1_LEAN);
    check_build_default<g1_side>(32);
    check_build_default<g2_side>(16);
}

/*
 * Window split and Booth digits (msm.cu's steps 2 and 5): for every window cap c, the
 * ceil(256/c) windows have widths c or c − 1 adding up to 256, the widest is the cap or
 * one less, each starts where the one below ends, and their digits, each within
 * [−2^(width−1), 2^(width−1)], rebuild the scalar (reduced mod r) through Horner with
 * the per-window shifts the host combination uses. Scalars: 0, 1, r − 1, r (reduced to 0),
 * 2^256 − 1 (reduced), powers of two near the windows' edges, and random 256-bit values.
 */
static void test_window_split(void)
{
    const uint32_t *r = CZK_CONST(r_limbs).v;
    int bad_split = 0, bad_range = 0, bad_sum = 0;
    for (unsigned c = 2; c <= 24; c++) {
        const win_split ws = split_windows(c);
        unsigned total = 0, maxw = 0;
        for (unsigned w = 0; w < ws.nwin; w++) {
            if (ws.pos(w) != total) bad_split++;
            total += ws.width(w);
            if (ws.width(w) > maxw) maxw = ws.width(w);
            if (ws.width(w) + 1 < ws.max_width()) bad_split++;
        }
        if (total != 256 || maxw != ws.max_width() || maxw > c || ws.nwin != (256 + c - 1) / c)
            bad_split++;
        for (int it = 0; it < 64; it++) {
            czk_scalar in;
            for (int l = 0; l < 4; l++) in.l[l] = czk_test_rand64();
            if (it < 8) memset(&in, 0, sizeof in);
            if (it == 1) in.l[0] = 1;
            if (it == 2 || it == 3)
                for (int l = 0; l < 4; l++)
                    in.l[l] = (uint64_t)r[2 * l] | (uint64_t)r[2 * l + 1] << 32;
            if (it == 2) in.l[0] -= 1; /* r − 1 (r is odd) */
            if (it == 4) memset(&in, 0xff, sizeof in);
            if (it >= 5 && it < 8) {
                unsigned b = ws.pos(rnd(ws.nwin)) + rnd(3) - 1; /* a window edge, ±1 */
                if (b < 255) in.l[b / 64] = (uint64_t)1 << (b % 64);
            }
            uint32_t s[8];
            load_scalar_mod_r(s, in);
            /* acc = sum d_w 2^pos(w), 320-bit two's complement, Horner from the top. */
            uint64_t acc[5] = {0, 0, 0, 0, 0};
            for (unsigned w = ws.nwin; w-- > 0;) {
                const unsigned cw = ws.width(w);
                int d = booth_digit(s, ws.pos(w), cw);
                if (d > (1 << (cw - 1)) || d < -(1 << (cw - 1))) bad_range++;
                /* Window w + 1 weighs 2^width(w) times window w. */
                czk_test_horner320(acc, w != ws.nwin - 1 ? cw : 0, d);
            }
            bool same = acc[4] == 0;
            for (int l = 0; l < 4; l++)
                same &= acc[l] == ((uint64_t)s[2 * l] | (uint64_t)s[2 * l + 1] << 32);
            if (!same) bad_sum++;
        }
    }
    /* One digits pass for a group of windows writes what the per-window pass does, window
     * w0's into the first arrays and the others' into their slots of the group's. */
    const uint32_t nsig = 97;
    std::vector<czk_scalar> sc(nsig + 3);
    for (auto &x : sc)
        for (int l = 0; l < 4; l++) x.l[l] = czk_test_rand64();
    std::vector<uint64_t> ik(nsig);
    for (uint32_t j = 0; j < nsig; j++) ik[j] = (uint64_t)(j + rnd(3)) << 32 | rnd(1000);
    int bad_group = 0;
    for (unsigned c : {16u, 20u, 22u}) {
        const win_split ws = split_windows(c);
        const uint32_t zkey = 1u << (ws.max_width() - 1);
        for (unsigned w0 = 0; w0 < ws.nwin; w0 += 5) {
            const unsigned w1 = w0 + 5 < ws.nwin ? w0 + 5 : ws.nwin;
            std::vector<uint32_t> k0(nsig), v0(nsig), kg((w1 - w0) * nsig), vg((w1 - w0) * nsig);
            std::vector<uint32_t> kw(nsig), vw(nsig);
            for (uint32_t j = 0; j < nsig + 2; j++) /* threads past nsig do nothing */
                digits_group_body(j, sc.data(), ik.data(), nsig, ws, w0, w1, zkey, k0.data(),
                                  v0.data(), kg.data(), vg.data());
            for (unsigned w = w0; w < w1; w++) {
                for (uint32_t j = 0; j < nsig; j++)
                    digits_body(j, sc.data(), ik.data(), nsig, ws.pos(w), ws.width(w), zkey,
                                kw.data(), vw.data());
                const uint32_t *gk = w == w0 ? k0.data() : &kg[(w - w0) * nsig];
                const uint32_t *gv = w == w0 ? v0.data() : &vg[(w - w0) * nsig];
                if (memcmp(gk, kw.data(), nsig * 4) != 0 || memcmp(gv, vw.data(), nsig * 4) != 0)
                    bad_group++;
            }
        }
    }
    CHECK_MSG(bad_group == 0, "digits of a group: %d windows differ from the per-window pass",
              bad_group);
    CHECK_MSG(bad_split == 0, "window split: %d bad widths or positions", bad_split);
    CHECK_MSG(bad_range == 0, "Booth digits: %d out of their window's range", bad_range);
    CHECK_MSG(bad_sum == 0, "Booth digits: %d scalars not rebuilt", bad_sum);
}

int main(void)
{
    czk_test_seed();
    RUN(test_window_split);
    RUN(test_g1_buckets);
    RUN(test_g2_buckets);
    RUN(test_build_defaults);
    return czk_test_finish();
}
