/*
 * A .params file's points decoded on the GPUs (API in include/czk/gpu.h).
 *
 * On the host, turning 47 GB of big-endian coordinates into checked Montgomery points is
 * about two core-minutes of field arithmetic (a G1 point 0.24 µs, a G2 point 0.57 µs), so
 * a warm load was bound by 16 cores' decoding, not by memory or PCIe. Here the host only
 * reads bytes (pread on the pool's threads, from the page cache): points for an SRS into
 * one of SLOTS page-locked staging buffers, points the host keeps straight into their
 * page-locked home. Each device checks its chunk, one thread a point, and rewrites it in
 * place in Montgomery form; the host's points go back where they were read to. SLOTS
 * chunks are in flight, so one chunk's copies and kernel overlap the next one's read.
 *
 * The checks are the host reader's (src/ec/encode.c) without the subgroup, which the
 * planned load never asked for: no compression, sort or infinity flag (the identity is
 * refused in every section), both coordinates below p, not (0, 0), on the curve. A chunk
 * records the lowest index that failed; that point is decoded again on the host, whose
 * error names the file, the section, the index and the reason, as it always did.
 */
#include <string.h>

#include <new>

#include "check.cuh"
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "ff.cuh"
#include "gpu_prove.cuh"

using czk_gpu::fp_params;
using czk_gpu::fp_t;
using czk_gpu::fp2_t;

namespace {

/* Staging buffers in flight, and the bytes of each: a few copies deep, and large enough
 * that a copy's fixed cost is noise (64 MiB at 50 GB/s is 1.3 ms). */
constexpr int SLOTS = 4;
constexpr size_t SLOT_BYTES = (size_t)64 << 20;
constexpr int DECODE_THREADS = 128;
constexpr unsigned long long NONE = ~0ull;

/* An Fp element from 12 words loaded little-endian from 48 big-endian bytes; `flagged`:
 * the first coordinate of an encoding, whose top three bits are flags. */
__device__ __forceinline__ fp_t be_words(const uint32_t *w, bool flagged)
{
    fp_t x;
#pragma unroll
    for (int j = 0; j < 12; j++) x.v[j] = __byte_perm(w[11 - j], 0, 0x0123);
    if (flagged) x.v[11] &= 0x1fffffffu;
    return x;
}

__device__ __forceinline__ bool below_p(const fp_t &x)
{
    const uint32_t *m = fp_params::mod();
#pragma unroll
    for (int i = 11; i >= 0; i--) {
        if (x.v[i] != m[i]) return x.v[i] < m[i];
    }
    return false;
}

/* 4 in Montgomery form: the constant of y^2 = x^3 + 4 (G1) and of 4(u + 1) (G2). */
__device__ __forceinline__ fp_t four() { return fp_t::one().dbl().dbl(); }

/* G1: 96 bytes (x ‖ y) in, czk_g1_affine out, in place. */
__global__ void decode_g1(uint8_t *pts, size_t n, unsigned long long *bad)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 *p = reinterpret_cast<uint4 *>(pts + i * 96);
    uint32_t w[24];
#pragma unroll
    for (int q = 0; q < 6; q++) {
        uint4 t = p[q];
        w[4 * q] = t.x, w[4 * q + 1] = t.y, w[4 * q + 2] = t.z, w[4 * q + 3] = t.w;
    }
    const bool flags = (w[0] & 0xe0u) != 0; /* byte 0's compression, infinity, sort bits */
    fp_t x = be_words(w, true), y = be_words(w + 12, false);
    bool ok = !flags && below_p(x) && below_p(y) && !(x.is_zero() && y.is_zero());
    if (ok) {
        x = x.to_mont();
        y = y.to_mont();
        ok = y.sqr() == x.sqr() * x + four();
    }
    if (!ok) {
        atomicMin(bad, (unsigned long long)i);
        return;
    }
    const uint32_t *o[2] = {x.v, y.v};
#pragma unroll
    for (int q = 0; q < 6; q++) {
        const uint32_t *s = o[q / 3] + 4 * (q % 3);
        p[q] = make_uint4(s[0], s[1], s[2], s[3]);
    }
}

/* G2: 192 bytes (x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0) in, czk_g2_affine (x.c0, x.c1, y.c0, y.c1)
 * out, in place. */
__global__ void decode_g2(uint8_t *pts, size_t n, unsigned long long *bad)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 *p = reinterpret_cast<uint4 *>(pts + i * 192);
    uint32_t w[48];
#pragma unroll
    for (int q = 0; q < 12; q++) {
        uint4 t = p[q];
        w[4 * q] = t.x, w[4 * q + 1] = t.y, w[4 * q + 2] = t.z, w[4 * q + 3] = t.w;
    }
    const bool flags = (w[0] & 0xe0u) != 0;
    fp2_t x{be_words(w + 12, false), be_words(w, true)};
    fp2_t y{be_words(w + 36, false), be_words(w + 24, false)};
    bool ok = !flags && below_p(x.c0) && below_p(x.c1) && below_p(y.c0) && below_p(y.c1) &&
              !(x.is_zero() && y.is_zero());
    if (ok) {
        x = {x.c0.to_mont(), x.c1.to_mont()};
        y = {y.c0.to_mont(), y.c1.to_mont()};
        const fp2_t b{four(), four()};
        ok = y.sqr() == x.sqr() * x + b;
    }
    if (!ok) {
        atomicMin(bad, (unsigned long long)i);
        return;
    }
    const uint32_t *o[4] = {x.c0.v, x.c1.v, y.c0.v, y.c1.v};
#pragma unroll
    for (int q = 0; q < 12; q++) {
        const uint32_t *s = o[q / 3] + 4 * (q % 3);
        p[q] = make_uint4(s[0], s[1], s[2], s[3]);
    }
}

/* One chunk in flight: its staging (for points no host memory receives) and each
 * device's verdict. */
struct slot {
    uint8_t *in = nullptr;
    unsigned long long *bad = nullptr; /* page-locked, one per device */
    cudaEvent_t done[CZK_GPU_MAX] = {};
    bool busy = false;
    size_t first = 0; /* the chunk's first point, as an index in the section */
};

struct device_t {
    int gpu = -1;
    cudaStream_t s = nullptr;
    unsigned long long *bad = nullptr; /* SLOTS words on the device */
    uint8_t *tmp[SLOTS] = {};          /* for points only the host keeps (first device) */
};

} // namespace

struct czk_gpu_loader {
    czk_groth16_params_file *f;
    czk_pool *pool;
    size_t ndev;
    device_t dev[CZK_GPU_MAX];
    slot slots[SLOTS];
};

namespace {

czk_status loader_setup(czk_gpu_loader *l, czk_err *err)
{
    for (int k = 0; k < SLOTS; k++) {
        slot &sl = l->slots[k];
        TRY_STATUS(czk_gpu_host_alloc((void **)&sl.in, SLOT_BYTES, err));
        TRY_STATUS(czk_gpu_host_alloc((void **)&sl.bad, CZK_GPU_MAX * sizeof *sl.bad, err));
    }
    for (size_t d = 0; d < l->ndev; d++) {
        device_t &dv = l->dev[d];
        CZK_CUDA_TRY(err, cudaSetDevice(dv.gpu));
        CZK_CUDA_TRY(err, cudaStreamCreateWithFlags(&dv.s, cudaStreamNonBlocking));
        CZK_CUDA_TRY(err, cudaMalloc(&dv.bad, SLOTS * sizeof *dv.bad));
        for (int k = 0; k < SLOTS; k++)
            CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&l->slots[k].done[d],
                                                       cudaEventDisableTiming));
    }
    return CZK_OK;
}

/* The first device's chunk buffers, for points that no SRS holds, made when first needed. */
czk_status tmp_buffers(czk_gpu_loader *l, czk_err *err)
{
    device_t &dv = l->dev[0];
    if (dv.tmp[0] != nullptr) return CZK_OK;
    CZK_CUDA_TRY(err, cudaSetDevice(dv.gpu));
    for (int k = 0; k < SLOTS; k++) CZK_CUDA_TRY(err, cudaMalloc(&dv.tmp[k], SLOT_BYTES));
    return CZK_OK;
}

/* The device's verdict on a point the GPU refused: the host reader's error for it. */
czk_status refused(czk_gpu_loader *l, czk_groth16_section sec, size_t index, czk_err *err)
{
    alignas(64) uint8_t pt[sizeof(czk_g2_affine)];
    czk_status st = czk_groth16_params_file_decode(l->f, sec, index, 1, pt, false, nullptr, err);
    if (st != CZK_OK) return st;
    return czk_err_set(err, CZK_EINTERNAL,
                       "%s: %s point %zu: the GPU refused a point the host reader accepts",
                       czk_groth16_params_file_path(l->f), czk_groth16_section_name(sec), index);
}

/* Wait for a slot's chunk and judge it. */
czk_status finish(czk_gpu_loader *l, slot &sl, czk_groth16_section sec, czk_err *err)
{
    if (!sl.busy) return CZK_OK;
    sl.busy = false;
    czk_status st = CZK_OK;
    for (size_t d = 0; d < l->ndev; d++) {
        cudaError_t e = cudaEventSynchronize(sl.done[d]);
        if (e != cudaSuccess && st == CZK_OK)
            st = czk__cuda_fail(err, e, "cudaEventSynchronize(chunk)", __FILE__, __LINE__);
    }
    if (st != CZK_OK) return st;
    unsigned long long low = NONE;
    for (size_t d = 0; d < l->ndev; d++)
        if (sl.bad[d] < low) low = sl.bad[d];
    if (low != NONE) return refused(l, sec, sl.first + (size_t)low, err);
    return CZK_OK;
}

/* Every chunk in flight waited for and judged, in file order: the first error stands.
 * After one, what a failed launch left queued is waited for too. */
czk_status drain(czk_gpu_loader *l, size_t next, czk_groth16_section sec, czk_status st,
                 czk_err *err)
{
    if (st != CZK_OK)
        for (size_t d = 0; d < l->ndev; d++)
            if (cudaSetDevice(l->dev[d].gpu) == cudaSuccess) (void)cudaStreamSynchronize(l->dev[d].s);
    for (int k = 0; k < SLOTS; k++) {
        slot &sl = l->slots[(next + k) % SLOTS];
        czk_err e2;
        czk_status s2 = finish(l, sl, sec, st == CZK_OK ? err : &e2);
        if (st == CZK_OK) st = s2;
    }
    return st;
}

/*
 * Read points [first, first + n) of sec and start their work on the first `ntargets`
 * devices: into dst[d] (a section's device points) or the first device's chunk buffer,
 * and back to `host` when it is not NULL. Points for one device and the host are read
 * straight into the host's memory and decoded there and back; others through the slot.
 */
czk_status launch(czk_gpu_loader *l, slot &sl, size_t si, czk_groth16_section sec, size_t first,
                  size_t n, uint8_t *const *dst, size_t ntargets, uint8_t *host, czk_err *err)
{
    const size_t el = sec == CZK_G16_B_G2 ? 192 : 96;
    const size_t bytes = n * el;
    uint8_t *src = host != nullptr && ntargets == 1 ? host : sl.in;
    TRY_STATUS(czk_groth16_params_file_read(l->f, sec, first, n, src, l->pool, err));
    sl.first = first;
    const unsigned blocks = (unsigned)((n + DECODE_THREADS - 1) / DECODE_THREADS);
    for (size_t d = 0; d < ntargets; d++) {
        device_t &dv = l->dev[d];
        uint8_t *to = dst[d] != nullptr ? dst[d] + first * el : dv.tmp[si];
        CZK_CUDA_TRY(err, cudaSetDevice(dv.gpu));
        CZK_CUDA_TRY(err, cudaMemsetAsync(dv.bad + si, 0xff, sizeof *dv.bad, dv.s));
        CZK_CUDA_TRY(err, cudaMemcpyAsync(to, src, bytes, cudaMemcpyHostToDevice, dv.s));
        if (sec == CZK_G16_B_G2)
            decode_g2<<<blocks, DECODE_THREADS, 0, dv.s>>>(to, n, dv.bad + si);
        else
            decode_g1<<<blocks, DECODE_THREADS, 0, dv.s>>>(to, n, dv.bad + si);
        CZK_CUDA_TRY_LAUNCH(err);
        CZK_CUDA_TRY(err, cudaMemcpyAsync(sl.bad + d, dv.bad + si, sizeof *dv.bad,
                                          cudaMemcpyDeviceToHost, dv.s));
        if (host != nullptr && d == 0)
            CZK_CUDA_TRY(err, cudaMemcpyAsync(host, to, bytes, cudaMemcpyDeviceToHost, dv.s));
    }
    for (size_t d = ntargets; d < l->ndev; d++) sl.bad[d] = NONE;
    for (size_t d = 0; d < l->ndev; d++) {
        CZK_CUDA_TRY(err, cudaSetDevice(l->dev[d].gpu));
        CZK_CUDA_TRY(err, cudaEventRecord(sl.done[d], l->dev[d].s));
    }
    sl.busy = true;
    return CZK_OK;
}

} // namespace

extern "C" {

czk_status czk_gpu_loader_create(czk_gpu_loader **out, czk_groth16_params_file *f,
                                 const int *gpus, size_t ngpus, czk_pool *pool, czk_err *err)
{
    if (out == nullptr || f == nullptr || gpus == nullptr || ngpus == 0 || ngpus > CZK_GPU_MAX)
        return czk_err_set(err, CZK_EINVAL, "gpu loader: bad arguments");
    *out = nullptr;
    czk_gpu_loader *l = new (std::nothrow) czk_gpu_loader();
    if (l == nullptr) return czk_err_set(err, CZK_ENOMEM, "gpu loader: out of memory");
    l->f = f;
    l->pool = pool;
    l->ndev = ngpus;
    for (size_t d = 0; d < ngpus; d++) l->dev[d].gpu = gpus[d];
    czk_status st = loader_setup(l, err);
    if (st != CZK_OK) {
        czk_gpu_loader_destroy(l);
        return st;
    }
    *out = l;
    return CZK_OK;
}

czk_status czk_gpu_loader_decode(czk_gpu_loader *l, czk_groth16_section sec, size_t first,
                                 size_t n, czk_gpu_srs *const *srs, size_t nsrs, void *host,
                                 czk_err *err)
{
    if (l == nullptr || (unsigned)sec >= CZK_G16_SECTIONS || nsrs > l->ndev ||
        (nsrs > 0 && srs == nullptr))
        return czk_err_set(err, CZK_EINVAL, "gpu loader: bad arguments");
    if (n == 0) return CZK_OK;
    const size_t len = czk_groth16_params_file_len(l->f, sec);
    if (first > len || n > len - first)
        return czk_err_set(err, CZK_EINVAL, "%s: %s points [%zu, %zu) are outside the section's %zu",
                           czk_groth16_params_file_path(l->f), czk_groth16_section_name(sec),
                           first, first + n, len);
    /* Target d is device d: its SRS's section, or (no SRS: points for the host only) the
     * first device's own buffers. */
    uint8_t *dst[CZK_GPU_MAX] = {};
    for (size_t d = 0; d < nsrs; d++) {
        if (czk_gpu_srs_gpu(srs[d]) != l->dev[d].gpu || czk_gpu_srs_resident(srs[d], sec) < first + n)
            return czk_err_set(err, CZK_EINVAL,
                               "gpu loader: SRS %zu is not on gpu%d or lacks %s points [%zu, %zu)",
                               d, l->dev[d].gpu, czk_groth16_section_name(sec), first, first + n);
        dst[d] = static_cast<uint8_t *>(czk__gpu_srs_dev(srs[d], sec));
    }
    size_t ntargets = nsrs;
    if (ntargets == 0) {
        if (host == nullptr) return CZK_OK;
        TRY_STATUS(tmp_buffers(l, err));
        ntargets = 1;
    }
    const size_t el = sec == CZK_G16_B_G2 ? 192 : 96;
    const size_t per = SLOT_BYTES / el;
    const size_t chunks = (n + per - 1) / per;
    czk_status st = CZK_OK;
    size_t c = 0;
    for (; c < chunks && st == CZK_OK; c++) {
        slot &sl = l->slots[c % SLOTS];
        st = finish(l, sl, sec, err);
        if (st != CZK_OK) break;
        const size_t a = c * per, k = n - a < per ? n - a : per;
        uint8_t *h = host != nullptr ? static_cast<uint8_t *>(host) + a * el : nullptr;
        st = launch(l, sl, c % SLOTS, sec, first + a, k, dst, ntargets, h, err);
    }
    /* A launch that failed part-way still recorded nothing to wait for: its slot is idle. */
    return drain(l, c, sec, st, err);
}

void czk_gpu_loader_destroy(czk_gpu_loader *l)
{
    if (l == nullptr) return;
    for (size_t d = 0; d < l->ndev; d++) {
        device_t &dv = l->dev[d];
        if (cudaSetDevice(dv.gpu) != cudaSuccess) continue;
        if (dv.s != nullptr) (void)cudaStreamSynchronize(dv.s);
        for (int k = 0; k < SLOTS; k++) {
            if (dv.tmp[k] != nullptr) (void)cudaFree(dv.tmp[k]);
            if (l->slots[k].done[d] != nullptr) (void)cudaEventDestroy(l->slots[k].done[d]);
        }
        if (dv.bad != nullptr) (void)cudaFree(dv.bad);
        if (dv.s != nullptr) (void)cudaStreamDestroy(dv.s);
    }
    for (int k = 0; k < SLOTS; k++) {
        czk_gpu_host_free(l->slots[k].in);
        czk_gpu_host_free(l->slots[k].bad);
    }
    (void)cudaGetLastError();
    delete l;
}

} // extern "C"
