/*
 * NTT over Fr on the GPU: pass plans, twiddle tables cached per GPU, the public transforms
 * of include/czk/gpu.h and the fused Groth16 H step. The kernels, and why the passes look
 * the way they do, are described in ntt.cuh.
 *
 * Multiplications per element for one transform of 2^27 points (3 passes of 9 bits): 12 in
 * the butterflies (8 non-trivial stages of 9 per pass, half an element each), 2 to apply the
 * boundary twiddles and, where the 2^27-entry level is split, 1 to form the first level's
 * twiddle (whole_policy stores it whole where the device has room): 14 or 15, less the
 * products by 1 of each pass's lowest round that ntt.cuh skips, so 12.875 or 13.875, against
 * 13.5 for the radix-2 count that docs/gpu.md §6.2's 35 ms floor assumes.
 * A coset shift or 1/n adds 1 (constant) or 2 (split table) in the first or last pass, never
 * another pass over memory.
 *
 * Measured on an H200 (bench/bench_gpu_ntt.c, data on the device, median of 5), with the
 * transforms' Fr of ntt.cuh (every product pair fused, see ff.cuh's fr_rt_params), the
 * 2^27-entry levels whole (built on the GPU) and the products by 1 skipped: forward NR 2^26
 * 18.6 ms, 2^27 37.7 ms (sppark 20.9 / 42.3), inverse NR 2^27 40.1 ms; the Groth16 H step at
 * 2^27 260.9 ms (bellperson, 6 transforms: the H section below) and 246.6 ms (snarkjs, 6).
 * The passes' time follows their multiplication count (ncu: the three passes of a 2^27
 * transform took 18.1, 15.6 and 12.4 ms for 6, 5 and 4 multiplications per element, with
 * the IMAD pipe ~82% busy and 16 warps per SM).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.cuh"
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "gpu_internal.h"
#include "ntt.cuh"

using czk_gpu::ntt::fr_t;
using namespace czk_gpu::ntt;

/* Kernel launches go through one macro so that a host harness can run them. */
#ifndef CZK_NTT_LAUNCH
#define CZK_NTT_LAUNCH(kern, grid, block, smem, stream, ...)                                   \
    kern<<<(grid), (block), (smem), (stream)>>>(__VA_ARGS__)
#endif

namespace {

constexpr unsigned MAX_PASSES = 3;
/* Boundary twiddle levels of up to 2^20 entries (32 MB) are always stored whole: one load
 * instead of two loads and a multiplication. */
constexpr unsigned DIRECT_MAX = 20;

/*
 * Whole tables are expanded on the device from their split form (table_expand, one
 * multiplication per entry: a 2^27 table in a few milliseconds against ~30 s for the host's
 * chain of products), and boundary levels above DIRECT_MAX are stored whole too when the
 * device has room (whole_policy): forward NR 2^27 40.00 ms against 42.03 split on an H200,
 * the bellperson H step 274.9 against 284.8, for 8 GiB of device memory (the 2^27 level,
 * both directions) kept for the process's life.
 */

/* The tests' overrides of the choice (czk__gpu_ntt_set_whole_max; -1: none). Read and
 * written under g_lock. */
int g_hook_whole = -1, g_hook_scale = -1;

/*
 * Whether a boundary level of 2^M entries is stored whole, by default (under g_lock, with
 * the GPU current). Whole when the table is at most 1/16 of the device's memory and the
 * device keeps at least four times the table free before it is allocated; levels of up to
 * DIRECT_MAX bits always. The first pass's twiddle becomes one load instead of two loads
 * and a multiplication. The price, for the process lifetime (the tables are cached): a
 * 2^27 transform's top level is 2^27 entries, 4 GiB, once per direction, so 8 GiB for a
 * root family's 2^27 domain (its other level, 2^18, is 8 MB); a 141 GB H200 qualifies, a
 * 24 GB card does not (4 GiB > 1.5 GB). In czkd the SRS (~47 GB) and two proofs' buffers
 * (~60 GB) leave room for it (though it narrows gpu_prove.cu's room_for_next margin). Coset
 * tables stay split: whole, they would take two more 4 GiB tables per H convention at 2^27
 * to save one product per element in three of the six H transforms, and each whole table
 * adds a 4 GiB read to the pass that uses it.
 */
bool whole_policy(unsigned M)
{
    if (M <= DIRECT_MAX) return true;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    const uint64_t bytes = (uint64_t)sizeof(fr_t) << M;
    /* A device memory limit (czk_gpu_set_memory_limit) stands for the device's size. */
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess) {
        const uint64_t lim = czk_gpu_memory_limit(dev);
        if (lim != 0 && lim < total_b) total_b = (size_t)lim;
    } else {
        (void)cudaGetLastError();
    }
    return bytes <= total_b / 16 && free_b / 4 >= bytes;
}

/* Whether a boundary level (scale: a coset table) of 2^M entries is stored whole (under
 * g_lock, with the GPU current). */
bool want_whole(unsigned M, bool scale)
{
    const int hook = scale ? g_hook_scale : g_hook_whole;
    if (hook >= 0) return M <= (unsigned)hook;
    if (scale) return M == 0;
    return whole_policy(M);
}

/* Coset/scale tables cached per GPU (each at most 2 × 2^14 entries: 1 MB). */
constexpr unsigned MAX_SCALES = 32;
/* The element-wise kernels: enough blocks to fill an H200 several times over. */
constexpr unsigned EW_THREADS = 256, EW_BLOCKS_MAX = 132 * 16;

enum { FWD = 0, INV = 1 };

unsigned ew_blocks(unsigned L)
{
    size_t b = (((size_t)1 << L) + EW_THREADS - 1) / EW_THREADS;
    return b < EW_BLOCKS_MAX ? (unsigned)b : EW_BLOCKS_MAX;
}

/* ------------------------------------------------------------------------------------ */
/* Plans                                                                                */
/* ------------------------------------------------------------------------------------ */

struct plan {
    unsigned L, P, e;
    unsigned k[MAX_PASSES], lo[MAX_PASSES]; /* pass 0 holds the top bits */
};

/*
 * One pass up to 2^11 (a whole tile), two up to 2^22, three beyond. For a fixed number of
 * passes the multiplication count does not depend on the split, so the split only has to
 * keep strided passes at k <= 9 where it can (runs of >= 4 consecutive elements per group,
 * 128 bytes) and the contiguous last pass at k <= 11.
 */
plan make_plan(unsigned L)
{
    const unsigned tl = TILE_LOG;
    plan p{};
    p.L = L;
    if (L <= tl) {
        p.P = 1;
        p.e = L;
        p.k[0] = L;
        return p;
    }
    p.e = tl;
    if (L <= 2 * tl) {
        p.P = 2;
        p.k[1] = (L + 1) / 2;
        p.k[0] = L / 2;
        p.lo[0] = p.k[1];
        return p;
    }
    p.P = 3;
    unsigned base = L / 3, rem = L % 3;
    p.k[0] = base;
    p.k[1] = base + (rem == 2);
    p.k[2] = base + (rem >= 1);
    p.lo[1] = p.k[2];
    p.lo[0] = p.k[1] + p.k[2];
    return p;
}

/* ------------------------------------------------------------------------------------ */
/* Per-GPU tables                                                                       */
/* ------------------------------------------------------------------------------------ */

struct dev_table {
    fr_t *lo, *hi;
    unsigned h;
    pow_table view() const { return {lo, hi, h}; }
};

struct dom_entry {
    bool ready;
    dev_table lv[2][MAX_PASSES - 1]; /* [direction][level]: boundary twiddles of pass level */
};

struct scale_entry {
    unsigned L;
    czk_fr g, c;
    dev_table t;
};

struct gpu_state {
    bool init;
    fr_t *inner[2][2]; /* [family][direction] */
    dom_entry dom[2][CZK_GPU_NTT_MAX_LOG + 1];
    scale_entry scales[MAX_SCALES];
    unsigned nscales;
};

gpu_state g_states[CZK_GPU_MAX];
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* Device memory running out is CZK_ERESOURCE, as for the MSM. */
czk_status dev_alloc(fr_t **p, size_t count, czk_err *err)
{
    void *q = nullptr;
    cudaError_t e = cudaMalloc(&q, count * sizeof(fr_t));
    if (e != cudaSuccess) {
        *p = nullptr;
        (void)cudaGetLastError();
        return czk_err_set(err, e == cudaErrorMemoryAllocation ? CZK_ERESOURCE : CZK_ECUDA,
                           "gpu ntt: cudaMalloc of %zu bytes failed: %s (%s)",
                           count * sizeof(fr_t), cudaGetErrorString(e), cudaGetErrorName(e));
    }
    *p = static_cast<fr_t *>(q);
    return CZK_OK;
}

void dev_free(fr_t *p)
{
    if (p != nullptr) (void)cudaFree(p);
}

void table_free(dev_table *t)
{
    dev_free(t->lo);
    dev_free(t->hi);
    *t = dev_table{};
}

czk_status upload(fr_t **dst, const czk_fr *src, size_t n, czk_err *err)
{
    czk_status st = dev_alloc(dst, n, err);
    if (st != CZK_OK) return st;
    cudaError_t e = cudaMemcpy(*dst, src, n * sizeof(czk_fr), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        dev_free(*dst);
        *dst = nullptr;
        CZK_CUDA_TRY(err, e);
    }
    return CZK_OK;
}

/*
 * A split table made whole on the device (table_expand), its split buffers freed. Device
 * memory running short is not an error: the table then stays split, which computes the
 * same values.
 */
czk_status expand_table(dev_table *t, unsigned M, czk_err *err)
{
    void *q = nullptr;
    if (cudaMalloc(&q, sizeof(fr_t) << M) != cudaSuccess) {
        (void)cudaGetLastError();
        return CZK_OK;
    }
    fr_t *whole = static_cast<fr_t *>(q);
    /* A stream of its own: the caller's streams may be non-blocking ones that the legacy
     * stream does not order against, and a wait for this stream alone leaves other work on
     * the device (another proof's MSMs) running. */
    cudaStream_t s = nullptr;
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e == cudaSuccess) {
        CZK_NTT_LAUNCH(table_expand, ew_blocks(M), EW_THREADS, 0, s, whole, t->view(), M);
        e = cudaGetLastError();
        cudaError_t e2 = cudaStreamSynchronize(s);
        if (e == cudaSuccess) e = e2;
        (void)cudaStreamDestroy(s);
    }
    if (e != cudaSuccess) {
        dev_free(whole);
        CZK_CUDA_TRY(err, e);
    }
    table_free(t);
    t->lo = whole;
    return CZK_OK;
}

/*
 * The table of c·w^e for e < 2^M: split at h = split_bits(M) into lo[i] = w^i and
 * hi[i] = c·w^(i·2^h), built on the host (2^h + 2^(M−h) entries), or whole, expanded from
 * the split form on the device.
 */
czk_status build_table(dev_table *out, const czk_fr &w, const czk_fr &c, unsigned M, bool whole,
                       czk_err *err)
{
    *out = dev_table{};
    if (whole) {
        czk_status st = build_table(out, w, c, M, false, err);
        if (st == CZK_OK) st = expand_table(out, M, err);
        if (st != CZK_OK) table_free(out);
        return st;
    }
    const unsigned h = split_bits(M);
    const size_t nlo = (size_t)1 << h, nhi = (size_t)1 << (M - h);
    czk_fr *buf = static_cast<czk_fr *>(czk_malloc((nlo + nhi) * sizeof(czk_fr)));
    if (buf == nullptr) return czk_err_set(err, CZK_ENOMEM, "gpu ntt: out of host memory");
    split_powers(buf, buf + nlo, w, c, M);
    czk_status st = upload(&out->lo, buf, nlo, err);
    if (st == CZK_OK) st = upload(&out->hi, buf + nlo, nhi, err);
    out->h = h;
    czk_free(buf);
    if (st != CZK_OK) table_free(out);
    return st;
}

/* Primitive 2^log-th root of a family, or its inverse. */
czk_fr family_root(czk_roots fam, unsigned log, int dir)
{
    czk_fr w;
    czk_fr_root_of_unity(&w, log, fam);
    if (dir == INV) czk_fr_inv(&w, &w);
    return w;
}

czk_roots family_of(int f) { return f == 0 ? CZK_ROOTS_BELLPERSON : CZK_ROOTS_SNARKJS; }

void state_free(gpu_state *st)
{
    for (int f = 0; f < 2; f++)
        for (int d = 0; d < 2; d++) dev_free(st->inner[f][d]);
    for (int f = 0; f < 2; f++)
        for (unsigned L = 0; L <= CZK_GPU_NTT_MAX_LOG; L++)
            for (int d = 0; d < 2; d++)
                for (unsigned l = 0; l + 1 < MAX_PASSES; l++) table_free(&st->dom[f][L].lv[d][l]);
    for (unsigned i = 0; i < st->nscales; i++) table_free(&st->scales[i].t);
    memset(static_cast<void *>(st), 0, sizeof *st);
}

/* Under g_lock, with the GPU current. */
czk_status state_init(gpu_state *st, czk_err *err)
{
    if (st->init) return CZK_OK;
    CZK_CUDA_TRY(err, czk_gpu::fr_rt_upload()); /* the transforms' modulus (ntt.cuh) */
    size_t smem = (size_t)smem_words(TILE_LOG) * sizeof(uint4);
    CZK_CUDA_TRY(err, cudaFuncSetAttribute(ntt_pass<false>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    CZK_CUDA_TRY(err, cudaFuncSetAttribute(ntt_pass<true>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    CZK_CUDA_TRY(err, cudaFuncSetAttribute(ntt_pass<true, true>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    czk_fr *buf = static_cast<czk_fr *>(czk_malloc(INNER_SIZE * sizeof(czk_fr)));
    if (buf == nullptr) return czk_err_set(err, CZK_ENOMEM, "gpu ntt: out of host memory");
    czk_status st_ = CZK_OK;
    for (int f = 0; f < 2 && st_ == CZK_OK; f++)
        for (int d = 0; d < 2 && st_ == CZK_OK; d++) {
            host_powers(buf, INNER_SIZE, CZK_FR_ONE, family_root(family_of(f), INNER_LOG, d));
            st_ = upload(&st->inner[f][d], buf, INNER_SIZE, err);
        }
    czk_free(buf);
    if (st_ != CZK_OK) {
        state_free(st);
        return st_;
    }
    st->init = true;
    return CZK_OK;
}

/* Boundary twiddles of every level of the plan of 2^L, both directions (under g_lock). */
czk_status domain_init(gpu_state *st, int f, unsigned L, czk_err *err)
{
    dom_entry *de = &st->dom[f][L];
    if (de->ready) return CZK_OK;
    plan pl = make_plan(L);
    for (int d = 0; d < 2; d++)
        for (unsigned l = 0; l + 1 < pl.P; l++) {
            unsigned M = pl.lo[l] + pl.k[l];
            czk_status s = build_table(&de->lv[d][l], family_root(family_of(f), M, d), CZK_FR_ONE,
                                       M, want_whole(M, false), err);
            if (s != CZK_OK) {
                for (int d2 = 0; d2 < 2; d2++)
                    for (unsigned l2 = 0; l2 + 1 < MAX_PASSES; l2++) table_free(&de->lv[d2][l2]);
                return s;
            }
        }
    de->ready = true;
    return CZK_OK;
}

/* A scale table c·g^e, e < 2^L, from the cache or freshly built (*owned: caller frees). */
czk_status scale_get(gpu_state *st, unsigned L, const czk_fr &g, const czk_fr &c, dev_table *out,
                     bool *owned, czk_err *err)
{
    *owned = false;
    pthread_mutex_lock(&g_lock);
    for (unsigned i = 0; i < st->nscales; i++) {
        const scale_entry &s = st->scales[i];
        if (s.L == L && czk_fr_eq(&s.g, &g) && czk_fr_eq(&s.c, &c)) {
            *out = s.t;
            pthread_mutex_unlock(&g_lock);
            return CZK_OK;
        }
    }
    /* Split unless a knob says otherwise: the table is read once per element, and 2^L
     * entries would cost as much memory as the vector (want_whole). */
    czk_status rc = build_table(out, g, c, L, want_whole(L, true), err);
    if (rc == CZK_OK) {
        if (st->nscales < MAX_SCALES) {
            st->scales[st->nscales++] = scale_entry{L, g, c, *out};
        } else {
            *owned = true;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

/* Make GPU `gpu` current and its tables for (family, L) ready. */
czk_status acquire(int gpu, int f, unsigned L, gpu_state **out, czk_err *err)
{
    CZK_CUDA_TRY(err, cudaSetDevice(gpu));
    gpu_state *st = &g_states[gpu];
    pthread_mutex_lock(&g_lock);
    czk_status rc = state_init(st, err);
    if (rc == CZK_OK) rc = domain_init(st, f, L, err);
    pthread_mutex_unlock(&g_lock);
    *out = st;
    return rc;
}

/* ------------------------------------------------------------------------------------ */
/* Running the network                                                                  */
/* ------------------------------------------------------------------------------------ */

struct scale_spec {
    uint32_t mode_in, mode_out;
    pow_table tab;
    fr_t cst;
    const fr_t *add_rev; /* added bit-reversed after the output scale (pass_params) */
};

scale_spec no_scale()
{
    scale_spec s{};
    s.cst = fr_t::one();
    return s;
}

/* All passes of the DIF (natural in, bit-reversed out) or DIT (bit-reversed in, natural
 * out) network of direction dir; the scale's input mode applies to the first pass run, its
 * output mode to the last. */
czk_status run_network(const gpu_state *st, fr_t *v, const plan &pl, int f, int dir, bool dit,
                       const scale_spec &sc, cudaStream_t s, czk_err *err)
{
    const dom_entry &de = st->dom[f][pl.L];
    if (sc.add_rev != nullptr && !dit)
        return czk_err_set(err, CZK_EINTERNAL, "gpu ntt: add_rev needs the DIT network");
    for (unsigned step = 0; step < pl.P; step++) {
        unsigned p = dit ? pl.P - 1 - step : step;
        pass_params pp{};
        pp.v = v;
        pp.inner = st->inner[f][dir];
        pp.lg_n = pl.L;
        pp.lo = pl.lo[p];
        pp.k = pl.k[p];
        pp.e = pl.e;
        if (p + 1 < pl.P) pp.tw = de.lv[dir][p].view();
        pp.sc = sc.tab;
        pp.sc_const = sc.cst;
        pp.scale_in = step == 0 ? sc.mode_in : SCALE_NONE;
        pp.scale_out = step + 1 == pl.P ? sc.mode_out : SCALE_NONE;
        pp.add_rev = step + 1 == pl.P ? sc.add_rev : nullptr;
        set_rounds(pp, dit);
        unsigned blocks = 1u << (pl.L - pl.e), threads = 1u << (pl.e - 3);
        size_t smem = (size_t)smem_words(pl.e) * sizeof(uint4);
        if (dit && pp.add_rev != nullptr)
            CZK_NTT_LAUNCH((ntt_pass<true, true>), blocks, threads, smem, s, pp);
        else if (dit)
            CZK_NTT_LAUNCH(ntt_pass<true>, blocks, threads, smem, s, pp);
        else
            CZK_NTT_LAUNCH(ntt_pass<false>, blocks, threads, smem, s, pp);
        CZK_CUDA_TRY_LAUNCH(err);
    }
    return CZK_OK;
}

/* The NN orders' extra pass: 7.3 ms at 2^27 on an H200 (53.4 vs 46.1 ms for NR), since each
 * thread swaps two scattered 32-byte elements; a tiled permutation through shared memory
 * would be the next step if NN transforms matter. */
czk_status run_bitrev(fr_t *v, unsigned L, cudaStream_t s, czk_err *err)
{
    CZK_NTT_LAUNCH(bitrev_permute, ew_blocks(L), EW_THREADS, 0, s, v, L);
    CZK_CUDA_TRY_LAUNCH(err);
    return CZK_OK;
}

czk_fr fr_inv_n(unsigned L)
{
    czk_fr n, r;
    czk_fr_from_u64(&n, (uint64_t)1 << L);
    czk_fr_inv(&r, &n);
    return r;
}

/* One transform on device data; a freshly built scale table goes to *tmp (caller frees
 * after the stream is done with it). */
czk_status transform(gpu_state *st, fr_t *v, unsigned L, int f, czk_gpu_ntt_kind kind,
                     const czk_fr *shift, czk_gpu_ntt_order order, cudaStream_t s,
                     dev_table *tmp, czk_err *err)
{
    *tmp = dev_table{};
    const plan pl = make_plan(L);
    const bool inverse = kind == CZK_GPU_NTT_INVERSE || kind == CZK_GPU_NTT_COSET_INVERSE;
    const int dir = inverse ? INV : FWD;
    const bool dit = order == CZK_GPU_NTT_RN;
    scale_spec sc = no_scale();
    if (kind == CZK_GPU_NTT_INVERSE) {
        sc.cst = czk_gpu::fr_from<czk_gpu::fr_rt_params>(fr_inv_n(L));
        sc.mode_out = SCALE_CONST;
    } else if (kind == CZK_GPU_NTT_COSET_FORWARD || kind == CZK_GPU_NTT_COSET_INVERSE) {
        /* Forward: coefficient i times g^i, on the input. Inverse: coefficient i times
         * g^-i/n, on the output. Coefficients are in natural order on the DIF side and
         * bit-reversed on the DIT side. */
        czk_fr g = *shift, c = CZK_FR_ONE;
        if (inverse) {
            czk_fr_inv(&g, &g);
            c = fr_inv_n(L);
        }
        dev_table t;
        bool owned;
        czk_status rc = scale_get(st, L, g, c, &t, &owned, err);
        if (rc != CZK_OK) return rc;
        if (owned) *tmp = t;
        sc.tab = t.view();
        uint32_t mode = (inverse != dit) ? SCALE_BITREV : SCALE_NATURAL;
        (inverse ? sc.mode_out : sc.mode_in) = mode;
    }
    czk_status rc = run_network(st, v, pl, f, dir, dit, sc, s, err);
    if (rc == CZK_OK && order == CZK_GPU_NTT_NN) rc = run_bitrev(v, L, s, err);
    return rc;
}

/* ------------------------------------------------------------------------------------ */
/* Groth16 H                                                                            */
/* ------------------------------------------------------------------------------------ */

/*
 * The H step, bellperson: h = (A·B − C)/Z on the coset 7·H, back to coefficients. Written
 * the usual way it takes seven transforms (a, b, c each to coefficients and onto the coset,
 * then one coset inverse). It takes six here, with the same bytes out: Z is the constant
 * g^m − 1 on the coset, and the coset inverse transform is linear, so
 *   h = coset_inv(A_c·B_c)/Z − coset_inv(C_c)/Z,
 * and coset_inv(C_c) is c's coefficient vector itself (C has degree < m, so the coset
 * forward transform and its inverse cancel). So c only goes to coefficients (one inverse
 * transform, scaled by −1/(n·Z)·R^-1, left bit-reversed), and the final coset inverse of
 * A_c·B_c adds it in its last pass, reading position rev(i) for output i. On a 2^27 domain
 * this drops one transform and the c term of the pointwise step: 98 instead of 115
 * multiplications per element (see the count at the top of this file).
 * snarkjs needs C on the coset itself (its H query takes evaluations), so it keeps c's two
 * transforms and has no final one: six either way.
 */
/* Everything the H step needs besides the vectors. */
struct h_ctx {
    gpu_state *st;
    plan pl;
    int f;
    bool bell;
    dev_table sa, sbc, sfin; /* scale tables: a; b (and snarkjs's c); the final coset inverse */
    bool own_a, own_bc, own_fin;
    fr_t c_scale; /* bellperson: c's inverse transform scale, −1/(n·(g^m − 1))·R^-1 */
};

void h_ctx_release(h_ctx *x)
{
    if (x->own_a) table_free(&x->sa);
    if (x->own_bc) table_free(&x->sbc);
    if (x->own_fin) table_free(&x->sfin);
    x->own_a = x->own_bc = x->own_fin = false;
}

bool h_ctx_owns(const h_ctx *x) { return x->own_a || x->own_bc || x->own_fin; }

/*
 * Constants. a's and b's (and snarkjs's c's) inverse transforms end with the coset scaling
 * g^i/n; for snarkjs, b and c also take a factor R^-1 so that the Montgomery product a·b
 * and the difference with c come out as canonical integers; for bellperson the final coset
 * inverse carries g^-i · 1/n · 1/(g^m - 1) · R^-1 and c's inverse transform the constant
 * −1/n · 1/(g^m - 1) · R^-1, which leaves canonical limbs as well. (R^-1 in Montgomery form
 * is the integer 1.)
 */
czk_status h_ctx_init(h_ctx *x, int gpu, unsigned L, czk_h_convention conv, czk_err *err)
{
    memset(static_cast<void *>(x), 0, sizeof *x);
    x->bell = conv == CZK_H_BELLPERSON;
    x->f = x->bell ? 0 : 1;
    x->pl = make_plan(L);
    czk_status rc = acquire(gpu, x->f, L, &x->st, err);
    if (rc != CZK_OK) return rc;
    czk_fr g, n_inv = fr_inv_n(L), r_inv = {{1, 0, 0, 0}};
    if (x->bell) {
        czk_fr_from_u64(&g, 7);
    } else {
        czk_fr_root_of_unity(&g, L + 1, CZK_ROOTS_SNARKJS);
    }
    rc = scale_get(x->st, L, g, n_inv, &x->sa, &x->own_a, err);
    if (rc != CZK_OK) return rc;
    if (x->bell) {
        x->sbc = x->sa;
        czk_fr gm = g, ginv, c;
        for (unsigned i = 0; i < L; i++) czk_fr_sqr(&gm, &gm);
        czk_fr_sub(&gm, &gm, &CZK_FR_ONE);
        czk_fr_inv(&c, &gm);
        czk_fr_mul(&c, &c, &n_inv);
        czk_fr_mul(&c, &c, &r_inv);
        czk_fr_inv(&ginv, &g);
        czk_fr cneg;
        czk_fr_neg(&cneg, &c);
        x->c_scale = czk_gpu::fr_from<czk_gpu::fr_rt_params>(cneg);
        rc = scale_get(x->st, L, ginv, c, &x->sfin, &x->own_fin, err);
    } else {
        czk_fr c;
        czk_fr_mul(&c, &n_inv, &r_inv);
        rc = scale_get(x->st, L, g, c, &x->sbc, &x->own_bc, err);
    }
    if (rc != CZK_OK) h_ctx_release(x);
    return rc;
}

/* Row evaluations -> (inverse transform, coset scaling) -> evaluations on the coset. The
 * inverse runs DIF and leaves bit-reversed coefficients, which the forward DIT takes as
 * they are. Bellperson's c (which = 2) stops at its scaled, bit-reversed coefficients. */
czk_status h_prepare(const h_ctx *x, fr_t *v, int which, cudaStream_t s, czk_err *err)
{
    scale_spec sc = no_scale();
    if (x->bell && which == 2) {
        sc.mode_out = SCALE_CONST;
        sc.cst = x->c_scale;
        return run_network(x->st, v, x->pl, x->f, INV, false, sc, s, err);
    }
    sc.mode_out = SCALE_BITREV;
    sc.tab = (which == 0 ? x->sa : x->sbc).view();
    czk_status rc = run_network(x->st, v, x->pl, x->f, INV, false, sc, s, err);
    if (rc != CZK_OK) return rc;
    return run_network(x->st, v, x->pl, x->f, FWD, true, no_scale(), s, err);
}

/* snarkjs: a·b - c. Bellperson: a·b, then the coset inverse transform with the division by
 * Z, whose last pass adds c's prepared coefficients. */
/* The step for a and b only, c still to come (also the two-vector order of a plan):
 * a <- a·b, bit-reversed for bellperson's last transform. */
czk_status h_combine(const h_ctx *x, fr_t *a, const fr_t *b, cudaStream_t s, czk_err *err)
{
    const unsigned L = x->pl.L;
    CZK_NTT_LAUNCH(abc_combine, ew_blocks(L), EW_THREADS, 0, s, a, b, nullptr, L, x->bell);
    CZK_CUDA_TRY_LAUNCH(err);
    return CZK_OK;
}

/* ... and the rest once c is prepared: snarkjs subtracts it, bellperson's last coset
 * inverse transform adds it in its last pass. */
czk_status h_finish_c(const h_ctx *x, fr_t *a, const fr_t *c, cudaStream_t s, czk_err *err)
{
    const unsigned L = x->pl.L;
    if (!x->bell) {
        CZK_NTT_LAUNCH(sub_elems, ew_blocks(L), EW_THREADS, 0, s, a, c, L);
        CZK_CUDA_TRY_LAUNCH(err);
        return CZK_OK;
    }
    scale_spec sc = no_scale();
    sc.mode_out = SCALE_NATURAL;
    sc.tab = x->sfin.view();
    sc.add_rev = c;
    return run_network(x->st, a, x->pl, x->f, INV, true, sc, s, err);
}

/* snarkjs forms a·b − c in one pass; bellperson's c only enters the last transform. */
czk_status h_finish(const h_ctx *x, fr_t *a, const fr_t *b, const fr_t *c, cudaStream_t s,
                    czk_err *err)
{
    if (x->bell) {
        czk_status rc = h_combine(x, a, b, s, err);
        return rc != CZK_OK ? rc : h_finish_c(x, a, c, s, err);
    }
    const unsigned L = x->pl.L;
    CZK_NTT_LAUNCH(abc_combine, ew_blocks(L), EW_THREADS, 0, s, a, b, c, L, false);
    CZK_CUDA_TRY_LAUNCH(err);
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Argument checks                                                                      */
/* ------------------------------------------------------------------------------------ */

czk_status check_gpu(int gpu, czk_err *err)
{
    int n = czk_gpu_count();
    if (gpu < 0 || gpu >= n || gpu >= CZK_GPU_MAX)
        return czk_err_set(err, CZK_ENOGPU, "gpu ntt: GPU %d: %d device(s) present", gpu, n);
    return CZK_OK;
}

czk_status check_log(unsigned log_n, czk_err *err)
{
    if (log_n < CZK_GPU_NTT_MIN_LOG || log_n > CZK_GPU_NTT_MAX_LOG)
        return czk_err_set(err, CZK_EINVAL, "gpu ntt: log_n %u outside %u..%u", log_n,
                           CZK_GPU_NTT_MIN_LOG, CZK_GPU_NTT_MAX_LOG);
    return CZK_OK;
}

czk_status check_ntt_args(int gpu, const void *v, unsigned log_n, czk_roots roots,
                          czk_gpu_ntt_kind kind, const czk_fr *shift, czk_gpu_ntt_order order,
                          czk_err *err)
{
    czk_status rc = check_gpu(gpu, err);
    if (rc != CZK_OK) return rc;
    if ((rc = check_log(log_n, err)) != CZK_OK) return rc;
    if (v == nullptr) return czk_err_set(err, CZK_EINVAL, "gpu ntt: NULL vector");
    if (roots != CZK_ROOTS_BELLPERSON && roots != CZK_ROOTS_SNARKJS)
        return czk_err_set(err, CZK_EINVAL, "gpu ntt: unknown root family %d", (int)roots);
    if ((unsigned)kind > CZK_GPU_NTT_COSET_INVERSE)
        return czk_err_set(err, CZK_EINVAL, "gpu ntt: unknown transform %d", (int)kind);
    if ((unsigned)order > CZK_GPU_NTT_RN)
        return czk_err_set(err, CZK_EINVAL, "gpu ntt: unknown order %d", (int)order);
    if (kind == CZK_GPU_NTT_COSET_FORWARD || kind == CZK_GPU_NTT_COSET_INVERSE) {
        if (shift == nullptr || czk_fr_is_zero(shift))
            return czk_err_set(err, CZK_EINVAL, "gpu ntt: a coset needs a nonzero shift");
    }
    return CZK_OK;
}

czk_status check_h_args(int gpu, const void *a, const void *b, const void *c, unsigned log_m,
                        czk_h_convention conv, czk_err *err)
{
    czk_status rc = check_gpu(gpu, err);
    if (rc != CZK_OK) return rc;
    if ((rc = check_log(log_m, err)) != CZK_OK) return rc;
    if (a == nullptr || b == nullptr || c == nullptr)
        return czk_err_set(err, CZK_EINVAL, "gpu groth16 h: NULL vector");
    if (conv != CZK_H_BELLPERSON && conv != CZK_H_SNARKJS)
        return czk_err_set(err, CZK_EINVAL, "gpu groth16 h: unknown convention %d", (int)conv);
    return CZK_OK;
}

/* Host-API work on device buffers that the caller allocated and frees. */
czk_status ntt_host_body(gpu_state *st, czk_fr *v, fr_t *d, unsigned L, int f,
                         czk_gpu_ntt_kind kind, const czk_fr *shift, cudaStream_t s,
                         dev_table *tmp, czk_err *err)
{
    size_t bytes = ((size_t)1 << L) * sizeof(czk_fr);
    CZK_CUDA_TRY(err, cudaMemcpyAsync(d, v, bytes, cudaMemcpyHostToDevice, s));
    czk_status rc = transform(st, d, L, f, kind, shift, CZK_GPU_NTT_NN, s, tmp, err);
    if (rc != CZK_OK) return rc;
    CZK_CUDA_TRY(err, cudaMemcpyAsync(v, d, bytes, cudaMemcpyDeviceToHost, s));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(s));
    return CZK_OK;
}

/* Copies on one stream, transforms on another, so that b and c arrive while a is being
 * transformed. */
czk_status h_host_body(const h_ctx *x, czk_fr *const host[3], fr_t *const dev[3],
                       cudaStream_t s, cudaStream_t cs, cudaEvent_t ev[3], size_t h_len,
                       czk_err *err)
{
    size_t bytes = ((size_t)1 << x->pl.L) * sizeof(czk_fr);
    for (int i = 0; i < 3; i++) {
        CZK_CUDA_TRY(err, cudaMemcpyAsync(dev[i], host[i], bytes, cudaMemcpyHostToDevice, cs));
        CZK_CUDA_TRY(err, cudaEventRecord(ev[i], cs));
    }
    for (int i = 0; i < 3; i++) {
        CZK_CUDA_TRY(err, cudaStreamWaitEvent(s, ev[i], 0));
        czk_status rc = h_prepare(x, dev[i], i, s, err);
        if (rc != CZK_OK) return rc;
    }
    czk_status rc = h_finish(x, dev[0], dev[1], dev[2], s, err);
    if (rc != CZK_OK) return rc;
    CZK_CUDA_TRY(err, cudaMemcpyAsync(host[0], dev[0], h_len * sizeof(czk_fr),
                                      cudaMemcpyDeviceToHost, s));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(s));
    return CZK_OK;
}

} // namespace

/* ------------------------------------------------------------------------------------ */
/* Public API                                                                           */
/* ------------------------------------------------------------------------------------ */

/* The H step one vector at a time (cuda/gpu_internal.h). */
struct czk__gpu_h {
    h_ctx x;
};

extern "C" czk_status czk__gpu_h_begin(int gpu, unsigned log_m, czk_h_convention conv,
                                       czk__gpu_h **out, czk_err *err)
{
    *out = nullptr;
    czk_status rc = check_gpu(gpu, err);
    if (rc != CZK_OK) return rc;
    if ((rc = check_log(log_m, err)) != CZK_OK) return rc;
    if (conv != CZK_H_BELLPERSON && conv != CZK_H_SNARKJS)
        return czk_err_set(err, CZK_EINVAL, "gpu groth16 h: unknown convention %d", (int)conv);
    czk__gpu_h *h = static_cast<czk__gpu_h *>(calloc(1, sizeof *h));
    if (h == nullptr) return czk_err_set(err, CZK_ENOMEM, "gpu groth16 h: out of host memory");
    if ((rc = h_ctx_init(&h->x, gpu, log_m, conv, err)) != CZK_OK) {
        free(h);
        return rc;
    }
    *out = h;
    return CZK_OK;
}

extern "C" czk_status czk__gpu_h_vector(const czk__gpu_h *h, czk_fr *v_dev, int which,
                                        void *stream, czk_err *err)
{
    if (h == nullptr || v_dev == nullptr || which < 0 || which > 2)
        return czk_err_set(err, CZK_EINVAL, "gpu groth16 h: bad vector arguments");
    return h_prepare(&h->x, reinterpret_cast<fr_t *>(v_dev), which,
                     static_cast<cudaStream_t>(stream), err);
}

extern "C" czk_status czk__gpu_h_finish(const czk__gpu_h *h, czk_fr *a_dev, czk_fr *b_dev,
                                        const czk_fr *c_dev, void *stream, czk_err *err)
{
    if (h == nullptr || a_dev == nullptr || b_dev == nullptr || c_dev == nullptr)
        return czk_err_set(err, CZK_EINVAL, "gpu groth16 h: NULL vector");
    return h_finish(&h->x, reinterpret_cast<fr_t *>(a_dev), reinterpret_cast<fr_t *>(b_dev),
                    reinterpret_cast<const fr_t *>(c_dev), static_cast<cudaStream_t>(stream),
                    err);
}

extern "C" czk_status czk__gpu_h_combine(const czk__gpu_h *h, czk_fr *a_dev, const czk_fr *b_dev,
                                         void *stream, czk_err *err)
{
    if (h == nullptr || a_dev == nullptr || b_dev == nullptr)
        return czk_err_set(err, CZK_EINVAL, "gpu groth16 h: NULL vector");
    return h_combine(&h->x, reinterpret_cast<fr_t *>(a_dev), reinterpret_cast<const fr_t *>(b_dev),
                     static_cast<cudaStream_t>(stream), err);
}

extern "C" czk_status czk__gpu_h_finish_c(const czk__gpu_h *h, czk_fr *a_dev,
                                          const czk_fr *c_dev, void *stream, czk_err *err)
{
    if (h == nullptr || a_dev == nullptr || c_dev == nullptr)
        return czk_err_set(err, CZK_EINVAL, "gpu groth16 h: NULL vector");
    return h_finish_c(&h->x, reinterpret_cast<fr_t *>(a_dev),
                      reinterpret_cast<const fr_t *>(c_dev), static_cast<cudaStream_t>(stream),
                      err);
}

extern "C" void czk__gpu_h_end(czk__gpu_h *h)
{
    if (h == nullptr) return;
    h_ctx_release(&h->x);
    free(h);
}

extern "C" czk_status czk_gpu_ntt_dev(int gpu, czk_fr *v_dev, unsigned log_n, czk_roots roots,
                                      czk_gpu_ntt_kind kind, const czk_fr *shift,
                                      czk_gpu_ntt_order order, void *stream, czk_err *err)
{
    czk_status rc = check_ntt_args(gpu, v_dev, log_n, roots, kind, shift, order, err);
    if (rc != CZK_OK) return rc;
    int f = roots == CZK_ROOTS_BELLPERSON ? 0 : 1;
    gpu_state *st;
    if ((rc = acquire(gpu, f, log_n, &st, err)) != CZK_OK) return rc;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    dev_table tmp;
    rc = transform(st, reinterpret_cast<fr_t *>(v_dev), log_n, f, kind, shift, order, s, &tmp,
                   err);
    if (tmp.lo != nullptr) {
        /* A scale table that did not fit the cache: free it once the stream is done. */
        cudaError_t e = cudaStreamSynchronize(s);
        table_free(&tmp);
        if (rc == CZK_OK) CZK_CUDA_TRY(err, e);
    }
    return rc;
}

extern "C" czk_status czk_gpu_ntt(int gpu, czk_fr *v, unsigned log_n, czk_roots roots,
                                  czk_gpu_ntt_kind kind, const czk_fr *shift, czk_err *err)
{
    czk_status rc = check_ntt_args(gpu, v, log_n, roots, kind, shift, CZK_GPU_NTT_NN, err);
    if (rc != CZK_OK) return rc;
    int f = roots == CZK_ROOTS_BELLPERSON ? 0 : 1;
    gpu_state *st;
    if ((rc = acquire(gpu, f, log_n, &st, err)) != CZK_OK) return rc;
    fr_t *d = nullptr;
    if ((rc = dev_alloc(&d, (size_t)1 << log_n, err)) != CZK_OK) return rc;
    cudaStream_t s = nullptr;
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    dev_table tmp{};
    if (e != cudaSuccess) {
        rc = czk_err_set(err, CZK_ECUDA, "gpu ntt: cudaStreamCreateWithFlags failed: %s",
                         cudaGetErrorString(e));
    } else {
        rc = ntt_host_body(st, v, d, log_n, f, kind, shift, s, &tmp, err);
        (void)cudaStreamSynchronize(s);
        (void)cudaStreamDestroy(s);
    }
    table_free(&tmp);
    dev_free(d);
    return rc;
}

extern "C" czk_status czk_gpu_groth16_h_dev(int gpu, czk_fr *a_dev, czk_fr *b_dev,
                                            czk_fr *c_dev, unsigned log_m,
                                            czk_h_convention conv, void *stream, czk_err *err)
{
    czk_status rc = check_h_args(gpu, a_dev, b_dev, c_dev, log_m, conv, err);
    if (rc != CZK_OK) return rc;
    h_ctx x;
    if ((rc = h_ctx_init(&x, gpu, log_m, conv, err)) != CZK_OK) return rc;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    fr_t *v[3] = {reinterpret_cast<fr_t *>(a_dev), reinterpret_cast<fr_t *>(b_dev),
                  reinterpret_cast<fr_t *>(c_dev)};
    for (int i = 0; i < 3 && rc == CZK_OK; i++) rc = h_prepare(&x, v[i], i, s, err);
    if (rc == CZK_OK) rc = h_finish(&x, v[0], v[1], v[2], s, err);
    if (h_ctx_owns(&x)) {
        cudaError_t e = cudaStreamSynchronize(s);
        h_ctx_release(&x);
        if (rc == CZK_OK) CZK_CUDA_TRY(err, e);
    }
    return rc;
}

extern "C" czk_status czk_gpu_groth16_h(int gpu, czk_fr *a, czk_fr *b, czk_fr *c,
                                        unsigned log_m, czk_h_convention conv, size_t *h_len,
                                        czk_err *err)
{
    czk_status rc = check_h_args(gpu, a, b, c, log_m, conv, err);
    if (rc != CZK_OK) return rc;
    const size_t m = (size_t)1 << log_m;
    const size_t hl = conv == CZK_H_BELLPERSON ? m - 1 : m;
    h_ctx x;
    if ((rc = h_ctx_init(&x, gpu, log_m, conv, err)) != CZK_OK) return rc;

    fr_t *dev[3] = {nullptr, nullptr, nullptr};
    cudaStream_t s = nullptr, cs = nullptr;
    cudaEvent_t ev[3] = {nullptr, nullptr, nullptr};
    for (int i = 0; i < 3 && rc == CZK_OK; i++) rc = dev_alloc(&dev[i], m, err);
    if (rc == CZK_OK) {
        cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
        for (int i = 0; i < 3 && e == cudaSuccess; i++)
            e = cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming);
        if (e != cudaSuccess)
            rc = czk_err_set(err, CZK_ECUDA, "gpu groth16 h: stream/event creation failed: %s",
                             cudaGetErrorString(e));
    }
    if (rc == CZK_OK) {
        czk_fr *host[3] = {a, b, c};
        rc = h_host_body(&x, host, dev, s, cs, ev, hl, err);
    }
    /* Whatever happened, nothing may still be using the buffers when they are freed. */
    if (s != nullptr) (void)cudaStreamSynchronize(s);
    if (cs != nullptr) (void)cudaStreamSynchronize(cs);
    for (int i = 0; i < 3; i++)
        if (ev[i] != nullptr) (void)cudaEventDestroy(ev[i]);
    if (s != nullptr) (void)cudaStreamDestroy(s);
    if (cs != nullptr) (void)cudaStreamDestroy(cs);
    for (int i = 0; i < 3; i++) dev_free(dev[i]);
    h_ctx_release(&x);
    if (rc == CZK_OK && h_len != nullptr) *h_len = hl;
    return rc;
}

extern "C" void czk__gpu_ntt_set_whole_max(int boundary_max_log, int scale_max_log)
{
    pthread_mutex_lock(&g_lock);
    g_hook_whole = boundary_max_log;
    g_hook_scale = scale_max_log;
    pthread_mutex_unlock(&g_lock);
}

extern "C" void czk_gpu_ntt_release(int gpu)
{
    if (gpu < 0 || gpu >= CZK_GPU_MAX) return;
    pthread_mutex_lock(&g_lock);
    if (g_states[gpu].init && cudaSetDevice(gpu) == cudaSuccess) state_free(&g_states[gpu]);
    pthread_mutex_unlock(&g_lock);
}
