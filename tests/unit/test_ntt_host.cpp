/*
 * The GPU NTT's kernels (cuda/ntt.cuh) compiled for the host and checked without a GPU.
 *
 * Passes: ntt_pass runs the one- and two-pass DIF and DIT networks of forward transforms of
 * 2^5..2^18 points (2^18: two passes of 9 bits, as at 2^27), both root families, boundary
 * twiddles whole and split, each block's threads as POSIX threads meeting at a barrier for
 * __syncthreads. Outputs must equal the CPU library's transform
 * (src/ntt, checked against a naive DFT and @noble/curves in test_ntt.c), permuted into the
 * network's order.
 *
 * Tables: whole twiddle tables as cuda/ntt.cu builds them (split_powers, then
 * table_expand). A table of c·w^e, e < 2^M, expanded from its split form must hold, byte for
 * byte, what the host's chain of czk_fr products (the form cuda/ntt.cu stored before) holds
 * and, for sampled e, the Montgomery form of c·w^e mod r computed with OpenSSL BIGNUM from
 * the limbs of c and w. The boundary twiddles of both root families in both directions
 * (c = 1) and coset tables (w = 7 or a random shift, c = 1/2^M or a random constant),
 * M = 10..16 (split at h = ceil(M/2), odd and even M). The kernel runs over a small grid, so
 * that its grid-stride loop takes several turns per thread, as on the device at 2^27.
 */
#include <openssl/bn.h>
#include <pthread.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "czk/bls12_381.h"
#include "czk/ntt.h"
#include "czk_test.h"
#include "czk_test_fr.h"

/* What ntt.cuh needs from the CUDA headers, for the host: the vector type, the launch
 * coordinates (set by run_grid below) and the kernel qualifiers. */
struct uint4 {
    uint32_t x, y, z, w;
};
inline uint4 make_uint4(uint32_t x, uint32_t y, uint32_t z, uint32_t w) { return {x, y, z, w}; }
struct host_dim {
    unsigned x, y, z;
};
static thread_local host_dim threadIdx, blockIdx;
static host_dim blockDim, gridDim;
static pthread_barrier_t g_barrier;
#define __global__ inline
#define __launch_bounds__(a, b)
#define __syncthreads() ((void)pthread_barrier_wait(&g_barrier))
/* Blocks run one after the other: one tile's shared memory is enough. */
inline uint4 *host_smem()
{
    static uint4 words[(2u << 11) + 4];
    return words;
}
#define CZK_NTT_SMEM() host_smem()

#include "ntt.cuh"

using czk_gpu::ntt::fr_t;
using czk_gpu::ntt::pass_params;
using czk_gpu::ntt::pow_table;

/* A kernel launch, one thread after the other. */
template <class K, class... A>
static void run_grid(K kern, unsigned grid, unsigned block, A... args)
{
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) {
            blockIdx = {b, 0, 0};
            threadIdx = {t, 0, 0};
            kern(args...);
        }
}

/* A uniform field element, as the other field tests draw them. */

static BIGNUM *bn_of(const czk_fr &a)
{
    return BN_lebin2bn(reinterpret_cast<const unsigned char *>(a.l), sizeof a.l, nullptr);
}

static czk_fr *alloc_fr(size_t n)
{
    czk_fr *p = static_cast<czk_fr *>(malloc(n * sizeof(czk_fr)));
    if (p == nullptr) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/*
 * One table: expand c·w^e from its split form and compare with the chain of products and
 * with BIGNUM. In Montgomery form (R = 2^256) the limbs of x are x·R mod r, so the entry
 * for e must be c_m·(w_m·R^-1)^e mod r, c_m and w_m the limbs of c and w.
 */
static void check_table(const czk_fr &w, const czk_fr &c, unsigned M, const char *what)
{
    const unsigned h = czk_gpu::ntt::split_bits(M);
    const size_t n = (size_t)1 << M, nlo = (size_t)1 << h, nhi = n >> h;
    czk_fr *lo = alloc_fr(nlo), *hi = alloc_fr(nhi), *whole = alloc_fr(n), *chain = alloc_fr(n);
    czk_gpu::ntt::split_powers(lo, hi, w, c, M);
    /* The same bytes on both sides (ntt.cuh's static_assert): the host arrays are read as
     * device tables, as cudaMemcpy hands them over. */
    pow_table t{reinterpret_cast<const fr_t *>(lo), reinterpret_cast<const fr_t *>(hi), h};
    memset(whole, 0xa5, n * sizeof *whole);
    run_grid(czk_gpu::ntt::table_expand, 3, 32, reinterpret_cast<fr_t *>(whole), t, (uint32_t)M);
    czk_gpu::ntt::host_powers(chain, n, c, w);
    size_t bad = 0, first_bad = 0;
    for (size_t e = 0; e < n; e++)
        if (memcmp(&whole[e], &chain[e], sizeof *whole) != 0 && bad++ == 0) first_bad = e;
    CHECK_MSG(bad == 0, "%s, M = %u: %zu of %zu entries differ from the chain, first e = %zu",
              what, M, bad, n, first_bad);

    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *r = BN_lebin2bn(reinterpret_cast<const unsigned char *>(CZK_FR_MODULUS), 32, nullptr);
    BIGNUM *rinv = BN_new(), *base = BN_new(), *want = BN_new(), *ex = BN_new();
    BIGNUM *cm = bn_of(c), *wm = bn_of(w);
    BN_one(rinv);
    BN_lshift(rinv, rinv, 256);
    BN_mod_inverse(rinv, rinv, r, ctx);
    BN_mod_mul(base, wm, rinv, r, ctx); /* w as an integer */
    const size_t edges[4] = {0, 1, nlo - 1, n - 1};
    for (int i = 0; i < 64; i++) {
        size_t e = i < 4 ? edges[i] : czk_test_rand64() % n;
        BN_set_word(ex, e);
        BN_mod_exp(want, base, ex, r, ctx);
        BN_mod_mul(want, want, cm, r, ctx);
        BIGNUM *got = bn_of(whole[e]);
        CHECK_MSG(BN_cmp(got, want) == 0, "%s, M = %u: entry %zu is not c·w^e (BIGNUM)", what,
                  M, e);
        BN_free(got);
    }
    BN_free(r), BN_free(rinv), BN_free(base), BN_free(want), BN_free(ex), BN_free(cm),
        BN_free(wm);
    BN_CTX_free(ctx);
    free(lo), free(hi), free(whole), free(chain);
}

static void test_boundary_tables(void)
{
    const czk_roots fams[2] = {CZK_ROOTS_BELLPERSON, CZK_ROOTS_SNARKJS};
    for (unsigned M = 10; M <= 16; M++)
        for (int f = 0; f < 2; f++) {
            czk_fr w;
            czk_fr_root_of_unity(&w, M, fams[f]);
            /* The forward table of one family, the inverse one of the other. */
            if ((M + (unsigned)f) % 2 == 1) czk_fr_inv(&w, &w);
            check_table(w, CZK_FR_ONE, M, f == 0 ? "bellperson twiddles" : "snarkjs twiddles");
        }
}

static void test_coset_tables(void)
{
    for (unsigned M = 10; M <= 16; M++) {
        czk_fr g, c, n;
        czk_fr_from_u64(&g, 7);
        czk_fr_from_u64(&n, (uint64_t)1 << M);
        czk_fr_inv(&c, &n);
        check_table(g, c, M, "coset 7, 1/n");
        czk_test_rand_fr(&g);
        czk_test_rand_fr(&c);
        check_table(g, c, M, "random coset and constant");
    }
}

/* ------------------------------------------------------------------------------------ */
/* Passes                                                                               */
/* ------------------------------------------------------------------------------------ */

struct pass_job {
    const pass_params *p;
    unsigned t;
    bool dit;
};

/* One thread of every block in turn; the blocks share the shared memory, so all threads
 * finish a block before any starts the next. */
static void *pass_thread(void *arg)
{
    const pass_job *j = static_cast<const pass_job *>(arg);
    threadIdx = {j->t, 0, 0};
    for (unsigned b = 0; b < gridDim.x; b++) {
        blockIdx = {b, 0, 0};
        if (j->dit)
            czk_gpu::ntt::ntt_pass<true>(*j->p);
        else
            czk_gpu::ntt::ntt_pass<false>(*j->p);
        pthread_barrier_wait(&g_barrier);
    }
    return nullptr;
}

/* One pass launch as cuda/ntt.cu's run_network makes it: 2^(L−e) blocks of 2^(e−3) threads. */
static void run_pass(const pass_params &p, bool dit)
{
    const unsigned T = 1u << (p.e - 3);
    gridDim = {1u << (p.lg_n - p.e), 1, 1};
    blockDim = {T, 1, 1};
    pthread_t th[czk_gpu::ntt::THREADS_MAX];
    pass_job jobs[czk_gpu::ntt::THREADS_MAX];
    CHECK(pthread_barrier_init(&g_barrier, nullptr, T) == 0);
    for (unsigned t = 0; t < T; t++) {
        jobs[t] = {&p, t, dit};
        CHECK(pthread_create(&th[t], nullptr, pass_thread, &jobs[t]) == 0);
    }
    for (unsigned t = 0; t < T; t++) pthread_join(th[t], nullptr);
    pthread_barrier_destroy(&g_barrier);
}

static uint32_t bitrev(uint32_t x, unsigned bits)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1u) << (bits - 1 - i);
    return r;
}

/*
 * The forward transform of 2^L points through ntt_pass: cuda/ntt.cu's plan for L <= 22 (one
 * pass up to the 2^11 tile, else two of L/2 and ceil(L/2) bits) and its tables, the top
 * level's boundary twiddles whole or split. DIF takes natural order to bit-reversed, DIT
 * bit-reversed to natural; both against the CPU.
 */
static void check_network(unsigned L, czk_roots fam, bool dit, bool split)
{
    const size_t n = (size_t)1 << L;
    const unsigned TL = czk_gpu::ntt::TILE_LOG;
    unsigned P = L <= TL ? 1 : 2, e = L <= TL ? L : TL, k[2], lo[2] = {0, 0};
    if (P == 1) {
        k[0] = L;
    } else {
        k[1] = (L + 1) / 2;
        k[0] = L / 2;
        lo[0] = k[1];
    }
    czk_fr *inner = alloc_fr(czk_gpu::ntt::INNER_SIZE), *v = alloc_fr(n), *ref = alloc_fr(n);
    czk_fr w11;
    czk_fr_root_of_unity(&w11, czk_gpu::ntt::INNER_LOG, fam);
    czk_gpu::ntt::host_powers(inner, czk_gpu::ntt::INNER_SIZE, CZK_FR_ONE, w11);
    /* The top level's table: powers of the primitive 2^L-th root (M = lo + k = L). */
    const unsigned M = L, h = czk_gpu::ntt::split_bits(M);
    czk_fr *tlo = alloc_fr(n), *thi = alloc_fr(n), wl;
    czk_fr_root_of_unity(&wl, M, fam);
    pow_table tw{reinterpret_cast<const fr_t *>(tlo), nullptr, 0};
    if (split) {
        czk_gpu::ntt::split_powers(tlo, thi, wl, CZK_FR_ONE, M);
        tw = {reinterpret_cast<const fr_t *>(tlo), reinterpret_cast<const fr_t *>(thi), h};
    } else {
        czk_gpu::ntt::host_powers(tlo, n, CZK_FR_ONE, wl);
    }

    for (size_t i = 0; i < n; i++) czk_test_rand_fr(&ref[i]);
    for (size_t i = 0; i < n; i++) v[dit ? bitrev((uint32_t)i, L) : i] = ref[i];
    czk_ntt_domain *d = nullptr;
    czk_err err;
    CHECK_STATUS(czk_ntt_domain_create(&d, L, fam, &err), CZK_OK);
    czk_ntt_forward(d, ref, nullptr);
    czk_ntt_domain_destroy(d);

    for (unsigned step = 0; step < P; step++) {
        unsigned p = dit ? P - 1 - step : step;
        pass_params pp{};
        pp.v = reinterpret_cast<fr_t *>(v);
        pp.inner = reinterpret_cast<const fr_t *>(inner);
        pp.lg_n = L;
        pp.lo = lo[p];
        pp.k = k[p];
        pp.e = e;
        if (p + 1 < P) pp.tw = tw;
        pp.sc_const = fr_t::one();
        czk_gpu::ntt::set_rounds(pp, dit);
        run_pass(pp, dit);
    }
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        size_t at = dit ? i : bitrev((uint32_t)i, L);
        if (memcmp(&v[at], &ref[i], sizeof *v) != 0) bad++;
    }
    CHECK_MSG(bad == 0, "2^%u %s %s, %s twiddles: %zu of %zu outputs differ from the CPU", L,
              fam == CZK_ROOTS_BELLPERSON ? "bellperson" : "snarkjs", dit ? "DIT" : "DIF",
              split ? "split" : "whole", bad, n);
    free(inner), free(v), free(ref), free(tlo), free(thi);
}

static void test_passes(void)
{
    const unsigned sizes[] = {5, 9, 11, 12, 13, 15, 18};
    const czk_roots fams[2] = {CZK_ROOTS_BELLPERSON, CZK_ROOTS_SNARKJS};
    for (unsigned L : sizes)
        for (int f = 0; f < 2; f++)
            for (int dit = 0; dit < 2; dit++) check_network(L, fams[f], dit != 0, (L + f) % 2);
}

int main(void)
{
    czk_test_seed();
    RUN(test_boundary_tables);
    RUN(test_coset_tables);
    RUN(test_passes);
    return czk_test_finish();
}
