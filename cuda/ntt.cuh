/*
 * Private to cuda/ntt.cu: the NTT kernels over Fr and their parameter blocks.
 *
 * A transform of n = 2^L points is a radix-2 network split into P passes (P = 1..3 for
 * L <= 33), each over k <= 11 consecutive bits of the element index, so the data crosses
 * device memory P times. Pass p of the decimation-in-frequency (DIF, Gentleman-Sande)
 * network is the four-step split applied recursively: with the bits below the pass called
 * i1 (lo of them) and the pass's own bits j, every group {fixed i1, fixed higher bits} is an
 * independent 2^k-point DIF over j, after which the element at position j is multiplied by
 * the boundary twiddle w_M^(i1 · rev_k(j)), w_M the primitive 2^M-th root, M = lo + k.
 * The last pass (lo = 0) has no boundary twiddle. The result is the transform in
 * bit-reversed order (NR). The decimation-in-time (DIT, Cooley-Tukey) network is the
 * transpose of that: the same passes in the opposite order, the boundary twiddle applied
 * to the input of a pass, and each group transformed by a 2^k-point DIT; it takes
 * bit-reversed input to natural output (RN). Both use the same tables.
 *
 * Inside a pass, one thread block owns a tile of 2^e elements (e = 11 normally: 2048
 * elements, 64 KB): 2^(e-k) whole groups. The tile is copied in with coalesced 16-byte
 * loads into shared memory, transformed there in rounds, and copied back. In each round
 * a thread holds 8 elements whose tile indices differ in 3 chosen bit positions and runs up
 * to 3 radix-2 stages on them in registers (a radix-8 step), then writes them back; rounds
 * are separated by one barrier. Shared memory holds the low and high 16 bytes of each
 * element in two planes, each 16-byte word index XOR-swizzled so that strided accesses of
 * a quarter warp hit 8 different bank quads.
 *
 * Twiddles: inner stages read powers of the primitive 2^11-th root from a 1024-entry table
 * (32 KB, L1-resident); boundary twiddles read one entry of a per-level table holding
 * every power of w_M (whole: ntt.cu decides when, and builds it on the device from the
 * split form with table_expand) or the product of two entries of a split table
 * (w_M^(e mod 2^h) · w_M^(2^h·(e >> h))). Coset shifts and the factor 1/n are
 * applied in the first or last pass by the same kind of split table (g^e, with the
 * constant folded into its high half), so they cost no extra pass over memory.
 *
 * This header also compiles for the host (as ff.cuh does) when the including file provides
 * threadIdx/blockIdx/__syncthreads and CZK_NTT_SMEM(); that is how the kernels can be
 * exercised on a machine without a GPU.
 */
#ifndef CZK_CUDA_NTT_CUH
#define CZK_CUDA_NTT_CUH

#include <stdint.h>

#include "ff.cuh"

namespace czk_gpu {
namespace ntt {

/* The transforms' field: Fr with the run-time modulus (ff.cuh's fr_rt_params says why; the
 * including file uploads it on each device before the first kernel). Same bytes as fr_t. */
using fr_t = mont_t<fr_rt_params>;
static_assert(sizeof(fr_t) == sizeof(czk_fr), "the transforms' Fr must have czk_fr's bytes");

/* Largest tile (elements per block) and the root whose powers the inner table holds.
 * 2^11-element tiles: the same 16 warps an SM as smaller ones, with longer contiguous runs
 * per group (forward NR 2^27 46.1 ms on an H200, 49.2 with 2^10). */
constexpr unsigned TILE_LOG = 11;
constexpr unsigned INNER_LOG = 11;
constexpr unsigned INNER_SIZE = 1u << (INNER_LOG - 1);
constexpr unsigned MAX_ROUNDS = 4; /* ceil(11 / 3): passes have k <= 11 */
constexpr unsigned THREADS_MAX = 1u << (TILE_LOG - 3);
/* Shared memory of one tile: two planes of 16-byte words, the second offset by 4 words so
 * that the two halves of one element fall into different banks during the copies. */
constexpr unsigned smem_words(unsigned e) { return (2u << e) + 4; }

enum scale_mode : uint32_t {
    SCALE_NONE = 0,
    SCALE_CONST = 1,   /* x · c */
    SCALE_NATURAL = 2, /* x · c·g^pos */
    SCALE_BITREV = 3   /* x · c·g^rev_L(pos) */
};

/* Powers of one element: lo[e] when hi is null, else lo[e mod 2^h] · hi[e >> h]. */
struct pow_table {
    const fr_t *lo;
    const fr_t *hi;
    uint32_t h;
};

struct pass_params {
    fr_t *v;            /* the whole vector, transformed in place */
    const fr_t *inner;  /* w_2^11^i, i < 1024, of the transform's direction */
    pow_table tw;       /* boundary twiddles (powers of w_M); tw.lo null when lo = 0 */
    pow_table sc;       /* scale table for SCALE_NATURAL / SCALE_BITREV */
    fr_t sc_const;      /* the constant of SCALE_CONST */
    uint32_t lg_n;      /* L */
    uint32_t lo, k, e;  /* bits below the pass, bits of the pass, bits of a tile */
    uint32_t scale_in, scale_out; /* scale_mode applied on load / before store */
    /* When set (last pass only): after the output scale, position pos also gets
     * add_rev[rev_L(pos)] added (the Groth16 H step's c term, stored bit-reversed). */
    const fr_t *add_rev;
    uint32_t nrounds;
    /* Per round: tile bit positions s0 < s1 < s2 in bytes 0..2, in byte 3 a mask of which
     * of them are transform bits processed in this round (bit q for s_q). */
    uint32_t round[MAX_ROUNDS];
};

/*
 * Rounds of a pass: transform bits in chunks of three, DIF from the top, DIT from the
 * bottom. A short chunk is padded with the lowest other tile bits, which only decides how
 * the elements are spread over threads. (Host code: ntt.cu fills pass_params with it.)
 */
inline void set_rounds(pass_params &pp, bool dit)
{
    const unsigned k = pp.k, e = pp.e, joff = pp.lo == 0 ? 0 : e - k;
    pp.nrounds = (k + 2) / 3;
    for (unsigned r = 0; r < pp.nrounds; r++) {
        unsigned b_lo, b_hi;
        if (dit) {
            b_lo = 3 * r;
            b_hi = b_lo + 3 < k ? b_lo + 3 : k;
        } else {
            b_hi = k - 3 * r;
            b_lo = b_hi >= 3 ? b_hi - 3 : 0;
        }
        bool used[32] = {};
        for (unsigned b = b_lo; b < b_hi; b++) used[b + joff] = true;
        unsigned need = 3 - (b_hi - b_lo);
        for (unsigned s = 0; need > 0 && s < e; s++)
            if (!used[s]) used[s] = true, need--;
        uint32_t d = 0, q = 0, act = 0;
        for (unsigned s = 0; s < e && q < 3; s++) {
            if (!used[s]) continue;
            d |= (uint32_t)s << (8 * q);
            if (s >= b_lo + joff && s < b_hi + joff) act |= 1u << q;
            q++;
        }
        pp.round[r] = d | (act << 24);
    }
}

/* ------------------------------------------------------------------------------------ */
/* Small helpers                                                                        */
/* ------------------------------------------------------------------------------------ */

CZK_HD uint32_t brev(uint32_t x, uint32_t bits)
{
#if defined(__CUDA_ARCH__)
    return __brev(x) >> (32 - bits);
#else
    uint32_t r = 0;
    for (uint32_t i = 0; i < bits; i++) r |= ((x >> i) & 1u) << (bits - 1 - i);
    return r;
#endif
}

CZK_HD fr_t fr_of(const uint4 &a, const uint4 &b)
{
    fr_t r;
    r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w;
    r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
    return r;
}
CZK_HD uint4 lo4(const fr_t &x) { return make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]); }
CZK_HD uint4 hi4(const fr_t &x) { return make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]); }

/* Read-only table entry (through the non-coherent cache on the device). */
CZK_HD fr_t ld_table(const fr_t *t, uint32_t i)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(t) + 2 * (size_t)i;
#if defined(__CUDA_ARCH__)
    return fr_of(__ldg(q), __ldg(q + 1));
#else
    return fr_of(q[0], q[1]);
#endif
}

CZK_HD fr_t pow_lookup(const pow_table &t, uint32_t e)
{
    if (t.hi == nullptr) return ld_table(t.lo, e);
    return ld_table(t.lo, e & ((1u << t.h) - 1)) * ld_table(t.hi, e >> t.h);
}

CZK_HD fr_t ld_elem(const fr_t *v, size_t i)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(v) + 2 * i;
    return fr_of(q[0], q[1]);
}
CZK_HD void st_elem(fr_t *v, size_t i, const fr_t &x)
{
    uint4 *q = reinterpret_cast<uint4 *>(v) + 2 * i;
    q[0] = lo4(x);
    q[1] = hi4(x);
}

/* Insert a zero bit at position s (everything from s up moves one place left). */
CZK_HD uint32_t insert_zero(uint32_t x, uint32_t s)
{
    return ((x >> s) << (s + 1)) | (x & ((1u << s) - 1));
}

/* XOR swizzle of a 16-byte word index inside its aligned group of 8 (see the header). */
CZK_HD uint32_t swz(uint32_t u) { return u ^ (((u >> 3) ^ (u >> 6) ^ (u >> 9)) & 7u); }

#if !defined(CZK_NTT_SMEM)
__device__ __forceinline__ uint4 *ntt_smem()
{
    extern __shared__ uint4 czk_ntt_smem_words[];
    return czk_ntt_smem_words;
}
#define CZK_NTT_SMEM() ::czk_gpu::ntt::ntt_smem()
#endif

/* ------------------------------------------------------------------------------------ */
/* One pass                                                                             */
/* ------------------------------------------------------------------------------------ */

/*
 * Tile geometry of a pass. A strided pass (lo > 0) takes the low gb = e - k bits of the
 * tile index from the global index bits [0, gb) (runs of 2^gb contiguous elements, one per
 * group) and the next k bits as j, at global bits [lo, lo + k); the block index supplies
 * global bits [gb, lo) and [lo + k, L). A contiguous pass (lo = 0) takes 2^(e-k) whole
 * consecutive groups: tile index = global index mod 2^e.
 */
struct tile_geom {
    uint32_t bpart; /* the block's contribution to the global index */
    uint32_t gb, lo, k;

    CZK_HD uint32_t pos(uint32_t u) const
    {
        if (lo == 0) return bpart | u;
        return bpart | (u & ((1u << gb) - 1)) | ((u >> gb) << lo);
    }
    CZK_HD uint32_t j(uint32_t u) const { return (u >> gb) & ((1u << k) - 1); }
};

CZK_HD tile_geom make_geom(const pass_params &p, uint32_t block)
{
    tile_geom g;
    g.lo = p.lo;
    g.k = p.k;
    if (p.lo == 0) {
        g.gb = 0;
        g.bpart = block << p.e;
    } else {
        g.gb = p.e - p.k;
        uint32_t lb = p.lo - g.gb;
        g.bpart = ((block & ((1u << lb) - 1)) << g.gb) | ((block >> lb) << (p.lo + p.k));
    }
    return g;
}

CZK_HD fr_t scale_factor(const pass_params &p, uint32_t mode, uint32_t pos)
{
    if (mode == SCALE_CONST) return p.sc_const;
    return pow_lookup(p.sc, mode == SCALE_NATURAL ? pos : brev(pos, p.lg_n));
}

/*
 * One pass of the DIF (DIT = false) or DIT (DIT = true) network over the tile of block
 * blockIdx.x; blockDim.x = 2^(e-3). ADD: the pass adds p.add_rev (a separate instance, so
 * that the passes without it keep their registers: 116 against 128).
 */
template <bool DIT, bool ADD = false>
__global__ void __launch_bounds__(THREADS_MAX, 2) ntt_pass(const pass_params p)
{
    uint4 *sm = CZK_NTT_SMEM();
    const uint32_t E = 1u << p.e, T = E >> 3, t = threadIdx.x;
    const tile_geom g = make_geom(p, blockIdx.x);
    uint4 *gv = reinterpret_cast<uint4 *>(p.v);

    /* Copy in: 16 words per thread; consecutive threads take consecutive words. */
#pragma unroll
    for (uint32_t i = 0; i < 16; i++) {
        uint32_t c = t + i * T, u = c >> 1, half = c & 1;
        sm[half * (E + 4) + swz(u)] = gv[2 * (size_t)g.pos(u) + half];
    }
    __syncthreads();

    for (uint32_t r = 0; r < p.nrounds; r++) {
        const uint32_t d = p.round[r];
        const uint32_t s[3] = {d & 0xff, (d >> 8) & 0xff, (d >> 16) & 0xff};
        const uint32_t act = d >> 24;
        const uint32_t base = insert_zero(insert_zero(insert_zero(t, s[0]), s[1]), s[2]);
#define CZK_NTT_U(m) (base | (((m)&1u) << s[0]) | ((((m) >> 1) & 1u) << s[1]) | (((m) >> 2) << s[2]))

        fr_t x[8];
#pragma unroll
        for (uint32_t m = 0; m < 8; m++) {
            uint32_t w = swz(CZK_NTT_U(m));
            x[m] = fr_of(sm[w], sm[E + 4 + w]);
        }

        if (r == 0) {
            if (DIT && p.tw.lo != nullptr) {
#pragma unroll
                for (uint32_t m = 0; m < 8; m++) {
                    uint32_t u = CZK_NTT_U(m), pos = g.pos(u);
                    uint32_t ex = (pos & ((1u << p.lo) - 1)) * brev(g.j(u), p.k);
                    x[m] = x[m] * pow_lookup(p.tw, ex);
                }
            }
            if (p.scale_in != SCALE_NONE) {
#pragma unroll
                for (uint32_t m = 0; m < 8; m++)
                    x[m] = x[m] * scale_factor(p, p.scale_in, g.pos(CZK_NTT_U(m)));
            }
        }

        /* Stages on the active positions: DIF from the high bit down, DIT from the low bit
         * up. A butterfly on transform bit b with lower index j uses w_2^(b+1)^(j mod 2^b),
         * which is inner[(j mod 2^b) << (10 - b)]; for b = 0 it is 1 and skipped. In the
         * round over the pass's bits 0..2 (`low`: s[q] = gb + q), j mod 2^b of the pair at
         * register m is m mod 2^q, known at compile time: the pairs where it is 0 (w = 1:
         * three of the round's eight products) skip the product too (forward NR 2^27 37.7 ms
         * on an H200 against 40.0 with the products). */
        const bool low = act == 7u && s[0] == g.gb;
#pragma unroll
        for (int qq = 0; qq < 3; qq++) {
            const int q = DIT ? qq : 2 - qq;
            if (!((act >> q) & 1u)) continue;
            const uint32_t b = s[q] - g.gb;
            const uint32_t jmask = (1u << b) - 1, sh = (INNER_LOG - 1) - b;
#pragma unroll
            for (uint32_t m = 0; m < 8; m++) {
                if (m & (1u << q)) continue;
                const uint32_t m2 = m | (1u << q);
                if (b == 0 || (low && (m & ((1u << q) - 1)) == 0)) {
                    fr_t a = x[m], c = x[m2];
                    x[m] = a + c;
                    x[m2] = a - c;
                } else {
                    fr_t w = ld_table(p.inner, (g.j(CZK_NTT_U(m)) & jmask) << sh);
                    if (DIT) {
                        fr_t a = x[m], c = x[m2] * w;
                        x[m] = a + c;
                        x[m2] = a - c;
                    } else {
                        fr_t a = x[m], c = x[m2];
                        x[m] = a + c;
                        x[m2] = (a - c) * w;
                    }
                }
            }
        }

        if (r == p.nrounds - 1) {
            if (!DIT && p.tw.lo != nullptr) {
#pragma unroll
                for (uint32_t m = 0; m < 8; m++) {
                    uint32_t u = CZK_NTT_U(m), pos = g.pos(u);
                    uint32_t ex = (pos & ((1u << p.lo) - 1)) * brev(g.j(u), p.k);
                    x[m] = x[m] * pow_lookup(p.tw, ex);
                }
            }
            if (p.scale_out != SCALE_NONE) {
#pragma unroll
                for (uint32_t m = 0; m < 8; m++)
                    x[m] = x[m] * scale_factor(p, p.scale_out, g.pos(CZK_NTT_U(m)));
            }
            if (ADD) {
#pragma unroll
                for (uint32_t m = 0; m < 8; m++)
                    x[m] = x[m] + ld_elem(p.add_rev, brev(g.pos(CZK_NTT_U(m)), p.lg_n));
            }
        }

        /* Each thread writes back exactly the words it read: no barrier needed between. */
#pragma unroll
        for (uint32_t m = 0; m < 8; m++) {
            uint32_t w = swz(CZK_NTT_U(m));
            sm[w] = lo4(x[m]);
            sm[E + 4 + w] = hi4(x[m]);
        }
#undef CZK_NTT_U
        __syncthreads();
    }

#pragma unroll
    for (uint32_t i = 0; i < 16; i++) {
        uint32_t c = t + i * T, u = c >> 1, half = c & 1;
        gv[2 * (size_t)g.pos(u) + half] = sm[half * (E + 4) + swz(u)];
    }
}

/* ------------------------------------------------------------------------------------ */
/* Twiddle tables                                                                       */
/* ------------------------------------------------------------------------------------ */

/* Host: out[i] = first·step^i, i < n. */
inline void host_powers(czk_fr *out, size_t n, const czk_fr &first, const czk_fr &step)
{
    if (n == 0) return;
    out[0] = first;
    for (size_t i = 1; i < n; i++) czk_fr_mul(&out[i], &out[i - 1], &step);
}

/* Bits of the low half of a split table of 2^M entries. */
inline unsigned split_bits(unsigned M) { return (M + 1) / 2; }

/*
 * Host: the split form of the table c·w^e, e < 2^M: lo[i] = w^i for i < 2^h and
 * hi[i] = c·w^(i·2^h) for i < 2^(M−h), h = split_bits(M), so that
 * c·w^e = lo[e mod 2^h] · hi[e >> h] (pow_lookup).
 */
inline void split_powers(czk_fr *lo, czk_fr *hi, const czk_fr &w, const czk_fr &c, unsigned M)
{
    const unsigned h = split_bits(M);
    host_powers(lo, (size_t)1 << h, CZK_FR_ONE, w);
    czk_fr wh = w;
    for (unsigned i = 0; i < h; i++) czk_fr_sqr(&wh, &wh);
    host_powers(hi, (size_t)1 << (M - h), c, wh);
}

/*
 * whole[e] = t's entry e for e < 2^lg_n: a split table expanded into a whole one on the
 * device. Every value is fully reduced (ff.cuh), so each product is the one canonical
 * Montgomery representation of c·w^e: the same bytes as the host's chain of products.
 */
__global__ void table_expand(fr_t *whole, const pow_table t, uint32_t lg_n)
{
    const size_t n = (size_t)1 << lg_n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        st_elem(whole, i, pow_lookup(t, (uint32_t)i));
}

/* ------------------------------------------------------------------------------------ */
/* Element-wise kernels                                                                 */
/* ------------------------------------------------------------------------------------ */

/* In-place bit-reversal permutation: each pair {i, rev(i)} is swapped by one thread. */
__global__ void bitrev_permute(fr_t *v, uint32_t lg_n)
{
    const size_t n = (size_t)1 << lg_n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t r = brev((uint32_t)i, lg_n);
        if (i < r) {
            fr_t a = ld_elem(v, i), b = ld_elem(v, r);
            st_elem(v, i, b);
            st_elem(v, r, a);
        }
    }
}

/*
 * a <- a·b - c element-wise, or a <- a·b when c is null. With `swap`, the result of
 * position i is stored at rev_L(i) (pairs handled by one thread, so in place is safe): the
 * bit reversal that turns natural order into the input order of a DIT pass comes for free
 * with this memory-bound step.
 */
CZK_HD fr_t abc_at(const fr_t *a, const fr_t *b, const fr_t *c, size_t i)
{
    fr_t x = ld_elem(a, i) * ld_elem(b, i);
    return c != nullptr ? x - ld_elem(c, i) : x;
}

__global__ void abc_combine(fr_t *a, const fr_t *b, const fr_t *c, uint32_t lg_n, bool swap)
{
    const size_t n = (size_t)1 << lg_n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (!swap) {
            st_elem(a, i, abc_at(a, b, c, i));
            continue;
        }
        size_t r = brev((uint32_t)i, lg_n);
        if (i > r) continue;
        fr_t x = abc_at(a, b, c, i);
        if (i < r) st_elem(a, i, abc_at(a, b, c, r));
        st_elem(a, r, x);
    }
}

/* a <- a - c element-wise: snarkjs's H when a·b was formed before c arrived. */
__global__ void sub_elems(fr_t *a, const fr_t *c, uint32_t lg_n)
{
    const size_t n = (size_t)1 << lg_n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        st_elem(a, i, ld_elem(a, i) - ld_elem(c, i));
}

} // namespace ntt
} // namespace czk_gpu

#endif /* CZK_CUDA_NTT_CUH */
