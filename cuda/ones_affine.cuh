/*
 * The MSM's sum of the bases whose scalar is 1 ("the ones", cuda/msm.cu) by a tree of
 * batch-affine additions. Each level adds the points pairwise in affine coordinates,
 * halving their count (an odd last point passes through); level 0 reads the bases through
 * the ones' index list (no copy of the bases), later levels the previous level's output.
 * When few points are left (msm.cu's stop, 2^22 by default) the XYZZ path of old finishes.
 *
 * An affine addition needs 1/(x2 − x1); a level shares one field inversion among all its
 * pairs (Montgomery's simultaneous inversion):
 *  1. level_prefix_body: thread g of T takes K pairs (pair g + i·T for i < K, so that a
 *     warp's loads are adjacent), forms each pair's denominator d and the running products
 *     d_0, d_0·d_1, ... of its pairs into pre[], and its total into tot[g] (1M per pair);
 *  2. scan_up_body, level by level: the same over an array of field elements with M per
 *     thread, the totals of one level becoming the next, until one element is left;
 *  3. invert_body: that element's inverse, the level's only F::inv();
 *  4. scan_down_body, level by level back down: thread g has the inverse of its total and
 *     turns it into the inverse of each of its elements, last to first: inv_i = acc·pre_(i−1),
 *     then acc = acc·a_i (2M per element, in place);
 *  5. level_sum_body: the same walk over the pairs, which gives each pair's 1/d, and the sum:
 *     λ = (y2 − y1)/d (1M), x3 = λ² − x1 − x2 (1S), y3 = λ·(x1 − x3) − y1 (1M).
 * Per addition 5M + 1S (steps 1, 4 on the pairs and 5), plus 3M/K for the tree of totals and
 * a share of one inversion, against 8M + 2S for XYZZ's mixed addition (xyzz_t::add_affine).
 *
 * Memory traffic per pair (G1 sizes; G2's are twice): step 1 reads the two x coordinates
 * (96 bytes; the y's only for the rare equal or zero x) and writes one prefix (48); step 5
 * reads both points (192) and the prefix (48) and writes the sum (96). At level 0 the points
 * are gathered through the index list (8 bytes each, read in both steps); later levels read
 * the previous output in order. About 480 bytes per pair, or 240 per input point per level,
 * and the levels together see twice the input's points.
 *
 * Exceptional pairs are exact, and none puts a zero into the batch (a zero would make the
 * whole product, and every inverse drawn from it, zero): a pair with a point at infinity
 * (affine (0, 0)) or with P + (−P), or with 2y = 0 in a doubling, puts 1 into the batch and
 * yields the other point or infinity; P + P puts 2y and uses λ = 3x²/(2y).
 *
 * Each body takes its thread index and is __host__ __device__, so tests/unit/test_ones_affine
 * replays every kernel thread by thread on the CPU; msm.cu wraps each in a one-line kernel.
 */
#ifndef CZK_CUDA_ONES_AFFINE_CUH
#define CZK_CUDA_ONES_AFFINE_CUH

#include "ec.cuh"

namespace czk_gpu {
namespace ones {

/* A level's input: the bases through the index list (level 0: point i is
 * pts[(uint32_t)ik[i]], the list msm.cu's classification makes), or an array (ik null). */
template <class F> struct pt_src {
    const affine_t<F> *pts;
    const uint64_t *ik;
    CZK_HD const affine_t<F> &operator[](uint32_t i) const
    {
        return ik != nullptr ? pts[(uint32_t)ik[i]] : pts[i];
    }
};

/* How a pair (a, b) adds up. */
enum pair_kind : uint32_t {
    PAIR_ADD,    /* x1 ≠ x2, both finite: λ = (y2 − y1)/(x2 − x1) */
    PAIR_DBL,    /* a = b, y ≠ 0: λ = 3x²/(2y) */
    PAIR_FIRST,  /* b is infinity: the sum is a */
    PAIR_SECOND, /* a is infinity (b may be too): the sum is b */
    PAIR_INF,    /* b = −a, or a doubling with y = 0: infinity */
};

/*
 * The denominator d the pair puts into the batch, and its kind. The common case (both x
 * non-zero and different) reads only the two x coordinates; every other case reads the y's
 * too and is decided exactly. d is never zero: x2 − x1 ≠ 0 for PAIR_ADD, 2y ≠ 0 for PAIR_DBL
 * (p is odd), 1 otherwise.
 */
template <class F> CZK_HD pair_kind pair_denom(const affine_t<F> &a, const affine_t<F> &b, F &d)
{
    const F x1 = a.x, x2 = b.x;
    if (x1 != x2 && !x1.is_zero() && !x2.is_zero()) {
        d = x2 - x1;
        return PAIR_ADD;
    }
    d = F::one();
    if (a.is_inf()) return PAIR_SECOND;
    if (b.is_inf()) return PAIR_FIRST;
    if (x1 != x2) {
        d = x2 - x1;
        return PAIR_ADD;
    }
    const F y2 = a.y.dbl();
    if (a.y == b.y && !y2.is_zero()) {
        d = y2;
        return PAIR_DBL;
    }
    return PAIR_INF;
}

/* The pair's sum, given its kind and inv = 1/d. */
template <class F>
CZK_HD affine_t<F> pair_sum(const affine_t<F> &a, const affine_t<F> &b, pair_kind kind,
                            const F &inv)
{
    switch (kind) {
    case PAIR_FIRST: return a;
    case PAIR_SECOND: return b;
    case PAIR_INF: return affine_t<F>::inf();
    default: break;
    }
    const F x1 = a.x, y1 = a.y;
    F lam;
    if (kind == PAIR_ADD) {
        lam = (b.y - y1) * inv;
    } else {
        F xx = x1.sqr();
        lam = (xx.dbl() + xx) * inv;
    }
    /* x2 = x1 for a doubling, so one formula serves both. */
    F x3 = lam.sqr() - x1 - b.x;
    F y3 = lam * (x1 - x3) - y1;
    return {x3, y3};
}

/* Threads for a pass over n items, k per thread (pair_threads for a level's pairs). */
CZK_HD uint32_t pass_threads(uint32_t n, uint32_t k)
{
    return (uint32_t)(((uint64_t)n + k - 1) / k);
}

/* Items of thread g of T = pass_threads(n, k): indices g + i·T for i < count. */
CZK_HD uint32_t pass_count(uint32_t g, uint32_t n, uint32_t T)
{
    return g < n ? (n - g + T - 1) / T : 0;
}

/*
 * Step 1, thread g: pairs (2j, 2j + 1) for j = g + i·T, i < K, of the n input points. pre[j]
 * gets the product of the thread's denominators up to pair j (not for its last pair, whose
 * product is the total); tot[g] the total.
 */
template <class F>
CZK_HD void level_prefix_body(uint32_t g, pt_src<F> src, uint32_t n, uint32_t K, F *pre, F *tot)
{
    const uint32_t np = n / 2, T = pass_threads(np, K);
    if (g >= T) return;
    const uint32_t cnt = pass_count(g, np, T);
    F acc = F::one();
    for (uint32_t i = 0; i < cnt; i++) {
        const uint32_t j = g + i * T;
        F d;
        (void)pair_denom(src[2 * j], src[2 * j + 1], d);
        acc = i == 0 ? d : acc * d;
        if (i + 1 < cnt) pre[j] = acc;
    }
    tot[g] = acc;
}

/* Step 2, thread g: the same over n field elements a[], M per thread: pre[] the running
 * products, next[g] the thread's total. */
template <class F>
CZK_HD void scan_up_body(uint32_t g, const F *a, uint32_t n, uint32_t M, F *pre, F *next)
{
    const uint32_t T = pass_threads(n, M);
    if (g >= T) return;
    const uint32_t cnt = pass_count(g, n, T);
    F acc = a[g];
    for (uint32_t i = 1; i < cnt; i++) {
        pre[g + (i - 1) * T] = acc;
        acc = acc * a[g + i * T];
    }
    next[g] = acc;
}

/* Step 3: the one element left. */
template <class F> CZK_HD void invert_body(uint32_t g, F *x)
{
    if (g == 0) x[0] = x[0].inv();
}

/* Step 4, thread g: next[g] holds the inverse of the thread's total; each a[j] of the
 * thread is replaced by its inverse. */
template <class F>
CZK_HD void scan_down_body(uint32_t g, F *a, uint32_t n, uint32_t M, const F *pre, const F *next)
{
    const uint32_t T = pass_threads(n, M);
    if (g >= T) return;
    const uint32_t cnt = pass_count(g, n, T);
    F acc = next[g];
    for (uint32_t i = cnt; i-- > 1;) {
        const uint32_t j = g + i * T;
        F inv = acc * pre[j - T];
        acc = acc * a[j];
        a[j] = inv;
    }
    a[g] = acc;
}

/*
 * Step 5, thread g: tot[g] holds the inverse of the thread's total of denominators; out[j]
 * gets the sum of pair j, for the thread's pairs from last to first. Thread 0 also passes an
 * odd last point through to out[n/2], so out holds ceil(n/2) points.
 */
template <class F>
CZK_HD void level_sum_body(uint32_t g, pt_src<F> src, uint32_t n, uint32_t K, const F *pre,
                           const F *tot, affine_t<F> *out)
{
    const uint32_t np = n / 2, T = pass_threads(np, K);
    if (g == 0 && (n & 1)) out[np] = src[n - 1];
    if (g >= T) return;
    const uint32_t cnt = pass_count(g, np, T);
    F acc = tot[g];
    for (uint32_t i = cnt; i-- > 0;) {
        const uint32_t j = g + i * T;
        const affine_t<F> &a = src[2 * j], &b = src[2 * j + 1];
        F d;
        const pair_kind kind = pair_denom(a, b, d);
        F inv = acc;
        if (i > 0) {
            inv = acc * pre[j - T];
            acc = acc * d;
        }
        out[j] = pair_sum(a, b, kind, inv);
    }
}

/*
 * Layout of the tree of totals for a level whose step 1 has t0 threads: level 0 is the t0
 * totals, level k + 1 the pass_threads(n_k, M) totals of level k, up to a level of one.
 * vals[k] and pre[k] are offsets into one array of field elements (size elements in all);
 * size for the largest t0 serves every smaller one.
 */
constexpr int TREE_MAX = 34; /* M ≥ 2 and t0 < 2^32: at most 33 levels */

struct tree_plan {
    uint32_t depth;        /* levels above level 0 */
    uint32_t n[TREE_MAX];  /* elements of level k */
    size_t vals[TREE_MAX]; /* offset of level k's elements */
    size_t pre[TREE_MAX];  /* offset of level k's running products (k < depth) */
    size_t size;
};

CZK_HD tree_plan plan_tree(uint32_t t0, uint32_t M)
{
    tree_plan p;
    p.depth = 0;
    p.n[0] = t0;
    size_t off = 0;
    p.vals[0] = off;
    off += t0;
    while (p.n[p.depth] > 1) {
        const uint32_t k = p.depth;
        p.pre[k] = off;
        off += p.n[k];
        p.n[k + 1] = pass_threads(p.n[k], M);
        p.vals[k + 1] = off;
        off += p.n[k + 1];
        p.depth++;
    }
    p.size = off > 0 ? off : 1;
    return p;
}

/* The XYZZ finish over m affine points in an array, chunk g of L: msm_kernels.cuh's
 * ones_body without the index list; every chunk's sum is a carry entry with key 0. */
template <class F>
CZK_HD void xyzz_sum_body(uint32_t g, const affine_t<F> *pts, uint32_t m, uint32_t L,
                          uint32_t *okeys, xyzz_t<F> *opts)
{
    const uint32_t start = g * L;
    if (start >= m) return;
    const uint32_t end = start + L < m ? start + L : m;
    xyzz_t<F> acc = xyzz_t<F>::inf();
    for (uint32_t i = start; i < end; i++) acc.add_affine(pts[i]);
    okeys[g] = 0;
    opts[g] = acc;
}

} // namespace ones
} // namespace czk_gpu

#endif /* CZK_CUDA_ONES_AFFINE_CUH */
