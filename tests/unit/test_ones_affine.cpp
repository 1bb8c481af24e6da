/*
 * The GPU MSM's sum of the ones by batch-affine additions (cuda/ones_affine.cuh) replayed on
 * the host, kernel by kernel and thread by thread (each pass's threads in a random order, and
 * a few threads past the last one, which must do nothing), for G1 and G2, driven level by
 * level as cuda/msm.cu drives the kernels: segments, levels down to `stop` points, the
 * XYZZ finish (xyzz_sum_body, then msm_kernels.cuh's fold_body).
 *
 * Inputs: index lists (level 0 gathers through them; their upper 32 bits, a scalar index in
 * msm.cu, are random) of odd and even lengths, over bases of which a share come from a small
 * pool: the point at infinity, a point P, −P, and a point that repeats, so that pairs meet
 * every special case (P + P, P + (−P), infinity on either side or both). Threads take 1 to
 * 16 pairs and the tree of totals 2 to 32 elements, so a level has many threads and the tree
 * several levels, and stops are small, so the points go through several levels.
 *
 * Checked against the CPU library (Jacobian additions, czk_g1_jac_* / czk_g2_jac_*, another
 * formula than the device's affine one): every level's every sum against the sum of its two
 * inputs, the odd point passed through, and the whole sum against a naive sum of the bases.
 * Scratch arrays start filled with a non-zero junk value, so reading an entry no pass wrote
 * shows up as a wrong sum.
 *
 * Mutants tried, each seen failing here (a copy of the header with one change, built
 * against this test; the header itself untouched): in level_sum_body pre[j] for pre[j − T]
 * (wrong sums from K = 3 on) and the odd point taken from src[n − 2] (odd points lost); in
 * level_prefix_body the total's predecessor not stored (i + 2 < cnt); in scan_up_body the
 * element a[g + i] for a[g + i·T]; in scan_down_body a[g] left as it was; in pair_denom y for
 * the doubling's 2y (P + P wrong at once), P + (−P) taken as a doubling, and the fast path
 * without its x ≠ 0 checks (infinity taken for a point; ∞ + ∞ puts 0 into the batch).
 * An odd point copied by thread 1 instead of 0 passed, rightly: threads past the last one
 * exist on the device too (and in the replay), so it is the same program.
 */
#include <algorithm>
#include <vector>

#include "czk/bls12_381.h"
#include "czk_test.h"
#include "ec.cuh"
#include "ff.cuh"
#include "host_groups.hpp"
#include "msm_kernels.cuh"
#include "ones_affine.cuh"

using namespace czk_gpu;
using namespace czk_gpu::ones;

static uint32_t rnd(uint32_t n) { return (uint32_t)(czk_test_rand64() % n); }

/* Run body(g) for every thread g < T, and a few past it, in a random order. */
template <class B> static void replay(uint32_t T, B body)
{
    std::vector<uint32_t> order(T + 3);
    for (uint32_t g = 0; g < T + 3; g++) order[g] = g;
    for (uint32_t g = T + 2; g > 0; g--) std::swap(order[g], order[rnd(g + 1)]);
    for (uint32_t g : order) body(g);
}

template <class S> static typename S::A host_of(const affine_t<typename S::F> &p)
{
    typename S::A a;
    memcpy(&a, &p, sizeof a);
    return a;
}

/* a + b with the CPU library, as affine. */
template <class S>
static typename S::A cpu_sum(const affine_t<typename S::F> &a, const affine_t<typename S::F> &b)
{
    typename S::A ha = host_of<S>(a), hb = host_of<S>(b), r;
    typename S::J j;
    S::jac_from_affine(&j, &ha);
    S::jac_add_affine(&j, &j, &hb);
    S::jac_to_affine(&r, &j);
    return r;
}

/* A junk field element: scratch starts full of it. */
template <class F> static F junk()
{
    F f = F::one();
    return f + f + f;
}

struct counts {
    int bad_sum = 0, bad_odd = 0, levels = 0, pairs = 0;
};

/*
 * One level, as msm.cu runs it: n points of src into ceil(n/2) of out, through the kernels'
 * bodies, with pre and tv (the tree of totals) as scratch. Every sum is checked.
 */
template <class S>
static void run_level(pt_src<typename S::F> src, uint32_t n, uint32_t K, uint32_t M,
                      std::vector<typename S::F> &pre, std::vector<typename S::F> &tv,
                      affine_t<typename S::F> *out, counts &c)
{
    using F = typename S::F;
    const uint32_t T = pass_threads(n / 2, K);
    const tree_plan tp = plan_tree(T, M);
    std::fill(pre.begin(), pre.end(), junk<F>());
    std::fill(tv.begin(), tv.end(), junk<F>());
    F *t = tv.data();
    replay(T, [&](uint32_t g) { level_prefix_body<F>(g, src, n, K, pre.data(), t + tp.vals[0]); });
    for (uint32_t k = 0; k < tp.depth; k++)
        replay(tp.n[k + 1], [&](uint32_t g) {
            scan_up_body<F>(g, t + tp.vals[k], tp.n[k], M, t + tp.pre[k], t + tp.vals[k + 1]);
        });
    replay(1, [&](uint32_t g) { invert_body<F>(g, t + tp.vals[tp.depth]); });
    for (uint32_t k = tp.depth; k-- > 0;)
        replay(tp.n[k + 1], [&](uint32_t g) {
            scan_down_body<F>(g, t + tp.vals[k], tp.n[k], M, t + tp.pre[k], t + tp.vals[k + 1]);
        });
    replay(T, [&](uint32_t g) {
        level_sum_body<F>(g, src, n, K, pre.data(), t + tp.vals[0], out);
    });
    for (uint32_t j = 0; j < n / 2; j++) {
        typename S::A want = cpu_sum<S>(src[2 * j], src[2 * j + 1]), got = host_of<S>(out[j]);
        if (!S::eq(&got, &want)) c.bad_sum++;
    }
    if (n & 1) {
        typename S::A want = host_of<S>(src[n - 1]), got = host_of<S>(out[n / 2]);
        if (!S::eq(&got, &want)) c.bad_odd++;
    }
    c.levels++;
    c.pairs += n / 2;
}

/*
 * msm.cu's ones block on the host: segments of at most seg_max points (whose sizes differ by
 * at most one), each halved level by level until at most stop points are left, the leftovers
 * summed by xyzz_sum_body in chunks of L and folded (fold_body, chunks of FL) into *sum.
 */
template <class S>
static void ones_sum(const std::vector<affine_t<typename S::F>> &bases,
                     const std::vector<uint64_t> &ik, uint32_t K, uint32_t M, uint32_t stop,
                     uint32_t seg_max, xyzz_t<typename S::F> *sum, counts &c)
{
    using F = typename S::F;
    using A = affine_t<F>;
    using X = xyzz_t<F>;
    const uint32_t none = (uint32_t)ik.size();
    const uint32_t nseg = (none + seg_max - 1) / seg_max;
    const uint32_t seg = (uint32_t)(((uint64_t)none + nseg - 1) / nseg);
    const uint32_t half = (seg + 1) / 2;
    const tree_plan big = plan_tree(pass_threads(seg / 2, K), M);
    std::vector<A> pa(half), pb((half + 1) / 2), fin((size_t)nseg * stop);
    std::vector<F> pre(seg / 2 > 0 ? seg / 2 : 1), tv(big.size);
    uint32_t nfin = 0;
    for (uint32_t s = 0; s < nseg; s++) {
        const uint32_t s0 = (uint32_t)((uint64_t)s * none / nseg);
        uint32_t n = (uint32_t)((uint64_t)(s + 1) * none / nseg) - s0;
        pt_src<F> src{bases.data(), ik.data() + s0};
        A *out = pa.data();
        do {
            run_level<S>(src, n, K, M, pre, tv, out, c);
            n = (n + 1) / 2;
            src = pt_src<F>{out, nullptr};
            out = out == pa.data() ? pb.data() : pa.data();
        } while (n > stop);
        memcpy(&fin[nfin], src.pts, n * sizeof(A));
        nfin += n;
    }
    /* The XYZZ finish and the carry folds (msm.cu's fold_all with a small fan-in). */
    const uint32_t L = 5, FL = 3;
    uint32_t m = (nfin + L - 1) / L;
    std::vector<uint32_t> ka(m, 0x12345678u);
    std::vector<X> pts(m);
    replay(m, [&](uint32_t g) { xyzz_sum_body<F>(g, fin.data(), nfin, L, ka.data(), pts.data()); });
    *sum = X::inf();
    while (m > 0) {
        uint32_t chunks = (m + FL - 1) / FL;
        std::vector<uint32_t> kb(chunks);
        std::vector<X> pb2(chunks);
        replay(chunks, [&](uint32_t g) {
            msm::fold_body<F>(g, ka.data(), pts.data(), m, FL, sum, kb.data(), pb2.data());
        });
        if (chunks == 1) break;
        ka.swap(kb);
        pts.swap(pb2);
        m = chunks;
    }
}

/* Random multiples of the generator. */
template <class S> static std::vector<affine_t<typename S::F>> random_points(uint32_t n)
{
    std::vector<affine_t<typename S::F>> v(n);
    typename S::J g, p;
    S::jac_from_affine(&g, S::gen());
    for (uint32_t i = 0; i < n; i++) {
        uint64_t k[2] = {czk_test_rand64(), czk_test_rand64() | 1};
        S::jac_mul(&p, &g, k, 2);
        typename S::A a;
        S::jac_to_affine(&a, &p);
        memcpy(&v[i], &a, sizeof a);
    }
    return v;
}

/*
 * One case: nb bases (0: infinity, 1: P, 2: −P, 3: a repeated point Q, the rest random),
 * m ones, a share `pool` (in 1/8) of them drawn from bases 0..3. Checks each level's sums and
 * the total against the naive sum.
 */
template <class S>
static void check_case(uint32_t nb, uint32_t m, uint32_t pool, uint32_t K, uint32_t M,
                       uint32_t stop, uint32_t seg_max)
{
    using F = typename S::F;
    std::vector<affine_t<F>> bases = random_points<S>(nb);
    bases[0] = affine_t<F>::inf();
    typename S::A p1 = host_of<S>(bases[1]), np1;
    S::neg(&np1, &p1);
    memcpy(&bases[2], &np1, sizeof np1);
    std::vector<uint64_t> ik(m);
    for (uint32_t i = 0; i < m; i++) {
        uint32_t b = rnd(8) < pool ? rnd(4) : rnd(nb);
        ik[i] = (uint64_t)czk_test_rand64() << 32 | b;
    }
    /* Adjacent pairs that level 0 sees for sure: P + P, P + (−P), ∞ + P, P + ∞, ∞ + ∞. */
    static const uint32_t pairs[][2] = {{1, 1}, {1, 2}, {0, 1}, {3, 0}, {0, 0}, {3, 3}};
    for (uint32_t k = 0; k < 6 && 2 * k + 1 < m; k++) {
        ik[2 * k] = pairs[k][0];
        ik[2 * k + 1] = pairs[k][1];
    }
    typename S::J want;
    S::jac_set_inf(&want);
    for (uint32_t i = 0; i < m; i++) {
        typename S::A a = host_of<S>(bases[(uint32_t)ik[i]]);
        S::jac_add_affine(&want, &want, &a);
    }
    xyzz_t<F> sum;
    counts c;
    ones_sum<S>(bases, ik, K, M, stop, seg_max, &sum, c);
    typename S::X hx;
    memcpy(&hx, &sum, sizeof hx);
    typename S::A got, wa;
    S::xyzz_to_affine(&got, &hx);
    S::jac_to_affine(&wa, &want);
    CHECK_MSG(c.bad_sum == 0 && c.bad_odd == 0,
              "%s m=%u K=%u M=%u stop=%u seg=%u: %d of %d pair sums wrong, %d odd points lost",
              S::name, m, K, M, stop, seg_max, c.bad_sum, c.pairs, c.bad_odd);
    CHECK_MSG(S::eq(&got, &wa), "%s m=%u K=%u M=%u stop=%u seg=%u (%d levels): wrong sum",
              S::name, m, K, M, stop, seg_max, c.levels);
}

/* The tree plan: level sizes shrink by M, end at one, and the offsets do not overlap. */
static void test_plan(void)
{
    int bad = 0;
    for (uint32_t t0 : {1u, 2u, 31u, 32u, 33u, 1000u, 1u << 20, 0xffffffffu})
        for (uint32_t M : {2u, 3u, 32u}) {
            tree_plan p = plan_tree(t0, M);
            if (p.n[0] != t0 || p.n[p.depth] != 1 || p.vals[0] != 0) bad++;
            size_t end = t0;
            for (uint32_t k = 0; k < p.depth; k++) {
                if (p.n[k + 1] != ((uint64_t)p.n[k] + M - 1) / M) bad++;
                if (p.pre[k] != end || p.vals[k + 1] != p.pre[k] + p.n[k]) bad++;
                end = p.vals[k + 1] + p.n[k + 1];
            }
            if (p.size != end) bad++;
        }
    CHECK_MSG(bad == 0, "tree plan: %d bad levels", bad);
}

static void test_g1(void)
{
    /* Odd and even counts; one thread a level (K large) and many; trees of several levels
     * (M = 2, 3); several segments; half or all of the ones from the small pool; msm.cu's
     * defaults (K = 16, M = 32) over enough pairs for a tree of two levels. */
    for (int round = 0; round < 4; round++) {
        check_case<g1_side>(40, 2, 4, 1, 2, 64, 1024);
        check_case<g1_side>(40, 3, 4, 1, 2, 64, 1024);
        check_case<g1_side>(40, 301, 4, 1, 2, 7, 1024);
        check_case<g1_side>(40, 300, 8, 3, 3, 5, 1024);
        check_case<g1_side>(40, 777, 4, 16, 32, 9, 1024);
        check_case<g1_side>(40, 1001, 6, 2, 2, 16, 260);
        check_case<g1_side>(16, 513, 8, 5, 4, 3, 100);
    }
    check_case<g1_side>(64, 40000 + 1, 4, 16, 32, 100, 1u << 20);
}

static void test_g2(void)
{
    for (int round = 0; round < 4; round++) {
        check_case<g2_side>(20, 3, 4, 1, 2, 64, 1024);
        check_case<g2_side>(20, 211, 4, 1, 2, 5, 1024);
        check_case<g2_side>(20, 256, 7, 4, 3, 7, 1024);
        check_case<g2_side>(12, 301, 6, 2, 2, 6, 90);
    }
    check_case<g2_side>(32, 20000 - 1, 4, 16, 32, 100, 1u << 20);
}

int main(void)
{
    czk_test_seed();
    RUN(test_plan);
    RUN(test_g1);
    RUN(test_g2);
    return czk_test_finish();
}
