/*
 * Fixed-base scalar multiplication k_i·G of the G1 and G2 generators on the GPU, for the
 * test-parameter generators (src/groth16/fixed_base.c dispatches here for large n). The
 * public API is in include/czk/gpu.h.
 *
 * Method, per group:
 *  - A table of d·2^(wc)·G for every window w of c = 10 bits and d = 1 .. 2^c − 1 (26
 *    windows cover 255-bit scalars: 26 599 affine points, 2.6 MB for G1, 5.1 MB for G2,
 *    small enough to stay in L2). It is built once per GPU on the host with the CPU library
 *    and kept on the device for the life of the process: the generators never change.
 *  - mul_kernel: one thread per scalar converts it out of Montgomery form and adds one table
 *    entry per non-zero window into a Jacobian accumulator (madd-2007-bl); no doublings.
 *  - affine_kernel: each thread takes NORM_GROUP consecutive points and converts them with one
 *    field inversion (Montgomery's trick). A Fermat inversion costs about 570 Fp
 *    multiplications against about 290 for the 26 additions, so one inversion per point
 *    would triple the work; shared by 16 points it adds about 12%. The prefix products live
 *    in the x slots of the output, which the backward pass overwrites only after reading.
 *  - n is processed in chunks on two streams with page-locked staging buffers: while one
 *    stream computes a chunk, the host copies the previous chunk's result out of staging into
 *    the caller's (pageable) array.
 *  - With a device destination (czk__gpu_fixed_base_dev, which fills a GPU-resident SRS) the
 *    affine kernel writes each chunk straight into it, and nothing is copied back: the same
 *    kernels and chunks, only the destination differs.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.cuh"
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "ec.cuh"
#include "gpu_internal.h"

using namespace czk_gpu;

namespace {

constexpr unsigned WIN_BITS = 10;
constexpr unsigned NWIN = (255 + WIN_BITS - 1) / WIN_BITS;
constexpr size_t PER_WIN = ((size_t)1 << WIN_BITS) - 1;
constexpr int MUL_THREADS = 128;
constexpr int NORM_GROUP = 16;
/* Points per chunk: 2^20 keeps the two pinned staging pairs at 256 MB for G1 (448 MB for
 * G2) and the device buffers below 1 GB, while a chunk is still ~10^5 threads' work. */
constexpr size_t CHUNK = (size_t)1 << 20;

/* CZK_CUDA_TRY for a function that releases what it holds at `done`. */
#define TRY(expr)                                                                              \
    do {                                                                                       \
        cudaError_t e_ = (expr);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            st = czk__cuda_fail(err, e_, #expr, __FILE__, __LINE__);                           \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

/* Bits [bit, bit + WIN_BITS) of a canonical scalar in 32-bit limbs (bits past 255 are 0). */
CZK_HD unsigned window_digit(const uint32_t s[8], unsigned bit)
{
    unsigned limb = bit / 32, off = bit % 32;
    uint64_t lo = s[limb];
    uint64_t hi = limb + 1 < 8 ? s[limb + 1] : 0;
    uint64_t v = (lo | (hi << 32)) >> off;
    return (unsigned)(v & PER_WIN);
}

/* Thread i's work in mul_kernel (host-callable, so the logic can be checked without a GPU). */
template <class F>
CZK_HD void mul_body(size_t i, jac_t<F> *out, const czk_fr *k, const affine_t<F> *table)
{
    fr_t s = fr_from(k[i]).from_mont();
    jac_t<F> acc = jac_t<F>::inf();
    for (unsigned w = 0; w < NWIN; w++) {
        unsigned d = window_digit(s.v, w * WIN_BITS);
        if (d) acc = acc.add_affine(table[w * PER_WIN + d - 1]);
    }
    out[i] = acc;
}

/* Thread t's work in affine_kernel: points [t·NORM_GROUP, +NORM_GROUP) ∩ [0, n). */
template <class F>
CZK_HD void affine_body(size_t t, affine_t<F> *out, const jac_t<F> *in, size_t n)
{
    size_t first = t * NORM_GROUP;
    if (first >= n) return;
    size_t cnt = n - first < (size_t)NORM_GROUP ? n - first : (size_t)NORM_GROUP;
    /* Forward: prefix products of the Z coordinates, with 1 standing in for infinity. */
    F acc = F::one();
    for (size_t j = 0; j < cnt; j++) {
        F z = in[first + j].z;
        if (!z.is_zero()) acc = acc * z;
        out[first + j].x = acc;
    }
    F inv = acc.inv();
    /* Backward: inv holds 1/(z_0 ··· z_j) on entry to step j. */
    for (size_t j = cnt; j-- > 0;) {
        jac_t<F> p = in[first + j];
        if (p.z.is_zero()) {
            out[first + j] = affine_t<F>::inf();
            continue;
        }
        F zi = j > 0 ? inv * out[first + j - 1].x : inv;
        inv = inv * p.z;
        F zi2 = zi.sqr();
        out[first + j] = {p.x * zi2, p.y * zi2 * zi};
    }
}

template <class F>
__global__ void __launch_bounds__(MUL_THREADS)
    mul_kernel(jac_t<F> *out, const czk_fr *k, size_t n, const affine_t<F> *table)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mul_body<F>(i, out, k, table);
}

template <class F>
__global__ void __launch_bounds__(MUL_THREADS)
    affine_kernel(affine_t<F> *out, const jac_t<F> *in, size_t n)
{
    affine_body<F>((size_t)blockIdx.x * blockDim.x + threadIdx.x, out, in, n);
}

/* The window tables, built on the host (CPU library) once per GPU and group. */
pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
void *tables[2][CZK_GPU_MAX];

template <class G> struct host_ops;
template <> struct host_ops<czk_g1_affine> {
    using jac = czk_g1_jac;
    static const czk_g1_affine *gen() { return &CZK_G1_GENERATOR; }
    static void from_affine(jac *o, const czk_g1_affine *p) { czk_g1_jac_from_affine(o, p); }
    static void add(jac *o, const jac *a, const jac *b) { czk_g1_jac_add(o, a, b); }
    static void dbl(jac *o, const jac *a) { czk_g1_jac_dbl(o, a); }
    static void to_affine(czk_g1_affine *o, const jac *in, size_t n)
    {
        czk_g1s_jac_to_affine(o, in, n, NULL);
    }
};
template <> struct host_ops<czk_g2_affine> {
    using jac = czk_g2_jac;
    static const czk_g2_affine *gen() { return &CZK_G2_GENERATOR; }
    static void from_affine(jac *o, const czk_g2_affine *p) { czk_g2_jac_from_affine(o, p); }
    static void add(jac *o, const jac *a, const jac *b) { czk_g2_jac_add(o, a, b); }
    static void dbl(jac *o, const jac *a) { czk_g2_jac_dbl(o, a); }
    static void to_affine(czk_g2_affine *o, const jac *in, size_t n)
    {
        czk_g2s_jac_to_affine(o, in, n, NULL);
    }
};

/* The NWIN·PER_WIN table entries of group G on the host: host[w·PER_WIN + d − 1] =
 * d·2^(w·c)·G. False when out of memory. */
template <class G> bool build_host_table(G *host)
{
    using H = host_ops<G>;
    using J = typename H::jac;
    J *tmp = (J *)czk_malloc(PER_WIN * sizeof *tmp);
    if (tmp == NULL) return false;
    J b, acc;
    H::from_affine(&b, H::gen());
    for (unsigned w = 0; w < NWIN; w++) {
        /* b = 2^(w·c)·G on entry; tmp[d − 1] = d·b. */
        acc = b;
        for (size_t d = 0; d < PER_WIN; d++) {
            tmp[d] = acc;
            H::add(&acc, &acc, &b);
        }
        H::to_affine(host + w * PER_WIN, tmp, PER_WIN);
        for (unsigned j = 0; j < WIN_BITS; j++) H::dbl(&b, &b);
    }
    czk_free(tmp);
    return true;
}

/* Device table of group G on the current device (gpu); built on first use. */
template <class G>
czk_status get_table(int gpu, int group, const G **out, czk_err *err)
{
    czk_status st = CZK_OK;
    const size_t total = NWIN * PER_WIN;
    G *host = NULL;
    void *dev = NULL;
    pthread_mutex_lock(&table_lock);
    if (tables[group - 1][gpu] != NULL) {
        *out = (const G *)tables[group - 1][gpu];
        pthread_mutex_unlock(&table_lock);
        return CZK_OK;
    }
    host = (G *)czk_malloc(total * sizeof *host);
    if (host == NULL || !build_host_table<G>(host)) {
        st = czk_err_set(err, CZK_ENOMEM, "fixed-base: out of host memory for the table");
        goto done;
    }
    TRY(cudaMalloc(&dev, total * sizeof(G)));
    TRY(cudaMemcpy(dev, host, total * sizeof(G), cudaMemcpyHostToDevice));
    tables[group - 1][gpu] = dev;
    *out = (const G *)dev;
    dev = NULL;
done:
    pthread_mutex_unlock(&table_lock);
    if (dev != NULL) cudaFree(dev);
    czk_free(host);
    return st;
}

/*
 * Per-GPU working memory, kept between calls (the caller's rounds of a few million points
 * would otherwise pay cudaHostAlloc, about 0.5 s per GiB, every time) until
 * czk_gpu_fixed_base_release. Each of the two lanes has a stream, page-locked staging for
 * scalars and results, and device buffers for scalars, Jacobian and affine points; a buffer
 * grows when a call needs more. The context's lock is held for a whole call, so concurrent
 * calls on one GPU take turns.
 */
struct lane {
    cudaStream_t stream;
    void *h_k, *h_out, *d_k, *d_jac, *d_out;
    size_t cap_k, cap_out, cap_jac; /* bytes of h_k/d_k, h_out/d_out, d_jac */
    size_t lo, cnt;                 /* the chunk in flight; cnt == 0: none */
};

struct context {
    pthread_mutex_t lock;
    lane lanes[2];
};

context contexts[CZK_GPU_MAX];
pthread_once_t contexts_once = PTHREAD_ONCE_INIT;

void contexts_init()
{
    for (int g = 0; g < CZK_GPU_MAX; g++) {
        pthread_mutex_init(&contexts[g].lock, NULL);
        memset(contexts[g].lanes, 0, sizeof contexts[g].lanes);
    }
}

void lane_free(lane *l)
{
    if (l->stream) cudaStreamSynchronize(l->stream);
    cudaFreeHost(l->h_k);
    cudaFreeHost(l->h_out);
    cudaFree(l->d_k);
    cudaFree(l->d_jac);
    cudaFree(l->d_out);
    if (l->stream) cudaStreamDestroy(l->stream);
    memset(l, 0, sizeof *l);
}

/* Make sure lane l can hold a chunk of the given byte sizes. */
czk_status lane_reserve(lane *l, size_t bk, size_t bout, size_t bjac, czk_err *err)
{
    czk_status st = CZK_OK;
    if (l->stream == NULL) TRY(cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking));
    if (l->cap_k < bk) {
        cudaFreeHost(l->h_k);
        cudaFree(l->d_k);
        l->h_k = l->d_k = NULL;
        l->cap_k = 0;
        TRY(cudaHostAlloc(&l->h_k, bk, cudaHostAllocDefault));
        TRY(cudaMalloc(&l->d_k, bk));
        l->cap_k = bk;
    }
    if (l->cap_out < bout) {
        cudaFreeHost(l->h_out);
        cudaFree(l->d_out);
        l->h_out = l->d_out = NULL;
        l->cap_out = 0;
        TRY(cudaHostAlloc(&l->h_out, bout, cudaHostAllocDefault));
        TRY(cudaMalloc(&l->d_out, bout));
        l->cap_out = bout;
    }
    if (l->cap_jac < bjac) {
        cudaFree(l->d_jac);
        l->d_jac = NULL;
        l->cap_jac = 0;
        TRY(cudaMalloc(&l->d_jac, bjac));
        l->cap_jac = bjac;
    }
done:
    return st;
}

/* out: host destination, or NULL when dev_out (device memory of this GPU) takes the points. */
template <class G, class F>
czk_status run_chunks(context *ctx, G *out, G *dev_out, const czk_fr *k, size_t n,
                      const G *table, czk_err *err)
{
    czk_status st = CZK_OK;
    const size_t chunk = n < CHUNK ? n : CHUNK;
    const int nlanes = n > chunk ? 2 : 1;
    for (int i = 0; i < nlanes; i++) {
        st = lane_reserve(&ctx->lanes[i], chunk * sizeof(czk_fr),
                          dev_out != NULL ? 0 : chunk * sizeof(G), chunk * sizeof(jac_t<F>), err);
        if (st != CZK_OK) return st;
        ctx->lanes[i].cnt = 0;
    }
    for (size_t lo = 0, c = 0;; lo += chunk, c++) {
        lane *l = &ctx->lanes[c % nlanes];
        /* Finish this lane's previous chunk: its copy out of staging overlaps the other
         * lane's kernels. */
        if (l->cnt > 0) {
            TRY(cudaStreamSynchronize(l->stream));
            if (dev_out == NULL) memcpy(out + l->lo, l->h_out, l->cnt * sizeof(G));
            l->cnt = 0;
        }
        if (lo >= n) {
            if (ctx->lanes[(c + 1) % nlanes].cnt == 0) break;
            continue; /* drain the other lane on the next turn */
        }
        size_t cnt = n - lo < chunk ? n - lo : chunk;
        memcpy(l->h_k, k + lo, cnt * sizeof(czk_fr));
        TRY(cudaMemcpyAsync(l->d_k, l->h_k, cnt * sizeof(czk_fr), cudaMemcpyHostToDevice,
                            l->stream));
        unsigned blocks = (unsigned)((cnt + MUL_THREADS - 1) / MUL_THREADS);
        mul_kernel<F><<<blocks, MUL_THREADS, 0, l->stream>>>(
            (jac_t<F> *)l->d_jac, (const czk_fr *)l->d_k, cnt, (const affine_t<F> *)table);
        TRY(cudaGetLastError());
        size_t groups = (cnt + NORM_GROUP - 1) / NORM_GROUP;
        blocks = (unsigned)((groups + MUL_THREADS - 1) / MUL_THREADS);
        affine_kernel<F><<<blocks, MUL_THREADS, 0, l->stream>>>(
            (affine_t<F> *)(dev_out != NULL ? dev_out + lo : (G *)l->d_out),
            (const jac_t<F> *)l->d_jac, cnt);
        TRY(cudaGetLastError());
        if (dev_out == NULL)
            TRY(cudaMemcpyAsync(l->h_out, l->d_out, cnt * sizeof(G), cudaMemcpyDeviceToHost,
                                l->stream));
        l->lo = lo;
        l->cnt = cnt;
    }
done:
    if (st != CZK_OK) {
        /* Leave no work in flight on buffers the next call reuses. */
        for (int i = 0; i < nlanes; i++) {
            if (ctx->lanes[i].stream) cudaStreamSynchronize(ctx->lanes[i].stream);
            ctx->lanes[i].cnt = 0;
        }
        (void)cudaGetLastError();
    }
    return st;
}

template <class G, class F>
czk_status fixed_base(int gpu, int group, G *out, G *dev_out, const czk_fr *k, size_t n,
                      czk_err *err)
{
    static_assert(sizeof(G) == sizeof(affine_t<F>), "layout");
    czk_status st = CZK_OK;
    const G *table = NULL;
    int ngpu = czk_gpu_count();
    if (gpu < 0 || gpu >= ngpu || gpu >= CZK_GPU_MAX)
        return czk_err_set(err, CZK_ENOGPU, "GPU %d: %d device(s) present", gpu, ngpu);
    if (n == 0) return CZK_OK;
    if ((out == NULL && dev_out == NULL) || k == NULL)
        return czk_err_set(err, CZK_EINVAL, "fixed-base: NULL array");
    TRY(cudaSetDevice(gpu));
    st = get_table<G>(gpu, group, &table, err);
    if (st != CZK_OK) return st;
    pthread_once(&contexts_once, contexts_init);
    pthread_mutex_lock(&contexts[gpu].lock);
    st = run_chunks<G, F>(&contexts[gpu], out, dev_out, k, n, table, err);
    pthread_mutex_unlock(&contexts[gpu].lock);
done:
    return st;
}

} // namespace

czk_status czk_gpu_g1s_fixed_base(int gpu, czk_g1_affine *out, const czk_fr *k, size_t n,
                                  czk_err *err)
{
    return fixed_base<czk_g1_affine, fp_t>(gpu, 1, out, NULL, k, n, err);
}

czk_status czk_gpu_g2s_fixed_base(int gpu, czk_g2_affine *out, const czk_fr *k, size_t n,
                                  czk_err *err)
{
    return fixed_base<czk_g2_affine, fp2_t>(gpu, 2, out, NULL, k, n, err);
}

czk_status czk__gpu_fixed_base_dev(int gpu, int group, void *out_dev, const czk_fr *k, size_t n,
                                   czk_err *err)
{
    if (out_dev == NULL && n > 0) return czk_err_set(err, CZK_EINVAL, "fixed-base: NULL array");
    if (group == 1)
        return fixed_base<czk_g1_affine, fp_t>(gpu, 1, NULL, (czk_g1_affine *)out_dev, k, n, err);
    if (group == 2)
        return fixed_base<czk_g2_affine, fp2_t>(gpu, 2, NULL, (czk_g2_affine *)out_dev, k, n, err);
    return czk_err_set(err, CZK_EINVAL, "fixed-base: group %d", group);
}

void czk_gpu_fixed_base_release(int gpu)
{
    if (gpu < 0 || gpu >= CZK_GPU_MAX || gpu >= czk_gpu_count()) return;
    pthread_once(&contexts_once, contexts_init);
    pthread_mutex_lock(&contexts[gpu].lock);
    if (cudaSetDevice(gpu) == cudaSuccess) {
        lane_free(&contexts[gpu].lanes[0]);
        lane_free(&contexts[gpu].lanes[1]);
    }
    pthread_mutex_unlock(&contexts[gpu].lock);
}
