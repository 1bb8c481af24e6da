/*
 * The Groth16 partition prover on one GPU (API in include/czk/gpu.h): the same arithmetic
 * as the CPU prover (src/groth16/prover.c) and the same proof bytes for the same r and s.
 *
 * One proof:
 *  1. Copies. a, b, c (the rows actually filled), then the witness (inputs, aux), go to
 *     the device with cudaMemcpyAsync on a copy stream, straight from the caller's buffers,
 *     one event after each vector. Page-locked buffers copy at PCIe speed while the GPU
 *     computes; pageable ones work too (the driver stages them, slower).
 *  2. H, on the compute stream, each vector as soon as its copy is done, by cuda/ntt.cu's
 *     H step (czk__gpu_h_*): a and b go to coefficients and onto the coset (inverse
 *     transform natural in, bit-reversed out; coset forward bit-reversed in, natural out);
 *     bellperson's c only to coefficients, which the final coset inverse transform of a·b
 *     adds in its last pass (six transforms, not seven: ntt.cu says why that is exact).
 *     The constants fold in the division by Z = g^m − 1 and a factor R^-1 that turns the
 *     Montgomery results into canonical integers for the MSM, so no conversion pass is
 *     needed. a's transforms overlap b's and c's copies. The witness is converted to
 *     canonical scalars in place.
 *  3. MSMs on the device scalars against the SRS (resident, or streamed from the host key
 *     in chunks with the next chunk's copy overlapping the current MSM): H, L, A (inputs,
 *     aux with its density), B_G1, and B_G2 on the GPU or on CPU threads concurrently with
 *     all the GPU work. The MSMs are czk__gpu_msm_dev (cuda/msm.cu): density bitmaps and
 *     the 0/1 split there.
 *  4. Assembly with r, s on the host by the CPU prover's own code (prove_common.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <atomic>
#include <type_traits>

#include "check.cuh"
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/msm.h"
#include "czk/ntt.h"
#include "czk/pack.h"
#include "ff.cuh"
#include "gpu_internal.h"
#include "prove_common.h"
#include "pack.cuh"
#include "gpu_prove.cuh"

using czk_gpu::fr_t;

/* ------------------------------------------------------------------------------------ */
/* SRS                                                                                  */
/* ------------------------------------------------------------------------------------ */

/*
 * A key's bases on one GPU: for each section its leading `res` points on the device (all of
 * them for an SRS made by upload, synthesis or fixed-base work) and, for an SRS made by a
 * plan (czk_gpu_srs_create_plan), host memory holding the rest, which proofs stream.
 */
struct czk_gpu_srs {
    int gpu;
    czk_gpu_bases *sec[CZK_G16_SECTIONS];
    size_t len[CZK_G16_SECTIONS], res[CZK_G16_SECTIONS];
    const void *host[CZK_G16_SECTIONS]; /* point res[s] of section s, on the host */
    uint64_t bytes;
};

namespace {

constexpr int EW_THREADS = 256;
constexpr unsigned EW_BLOCKS_MAX = 132 * 16;

czk_status select_gpu(int gpu, czk_err *err)
{
    int n = czk_gpu_count();
    if (gpu < 0 || gpu >= n)
        return czk_err_set(err, CZK_ENOGPU, "GPU %d: %d device(s) present", gpu, n);
    CZK_CUDA_TRY(err, cudaSetDevice(gpu));
    return CZK_OK;
}

void srs_free(czk_gpu_srs *s)
{
    if (s == nullptr) return;
    for (czk_gpu_bases *b : s->sec) czk_gpu_bases_destroy(b);
    free(s);
}

int section_group(int sec) { return sec == CZK_G16_B_G2 ? 2 : 1; }
size_t section_elem(int sec) { return sec == CZK_G16_B_G2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine); }

/* A handle of pk's shape on GPU gpu with every point resident, no device memory yet (NULL
 * when out of host memory). */
static czk_gpu_srs *srs_handle(int gpu, const czk_groth16_params *pk)
{
    czk_gpu_srs *s = (czk_gpu_srs *)calloc(1, sizeof *s);
    if (s == nullptr) return nullptr;
    s->gpu = gpu;
    for (int k = 0; k < CZK_G16_SECTIONS; k++)
        s->len[k] = s->res[k] = czk_groth16_section_len(pk, (czk_groth16_section)k);
    return s;
}

static uint64_t srs_bytes(const czk_gpu_srs *s)
{
    uint64_t b = 0;
    for (int k = 0; k < CZK_G16_SECTIONS; k++) b += (uint64_t)s->res[k] * section_elem(k);
    return b;
}

bool srs_full(const czk_gpu_srs *s)
{
    if (s == nullptr) return false;
    for (int k = 0; k < CZK_G16_SECTIONS; k++)
        if (s->res[k] < s->len[k]) return false;
    return true;
}

czk_status srs_make(czk_gpu_srs **out, int gpu, const czk_groth16_params *pk, bool synth,
                    uint64_t seed, czk_err *err)
{
    if (out == nullptr || pk == nullptr)
        return czk_err_set(err, CZK_EINVAL, "gpu srs: NULL argument");
    *out = nullptr;
    const void *src[CZK_G16_SECTIONS] = {pk->h, pk->l, pk->a, pk->b_g1, pk->b_g2};
    if (!synth)
        for (int k = 0; k < CZK_G16_SECTIONS; k++)
            if (czk_groth16_section_len(pk, (czk_groth16_section)k) && src[k] == nullptr)
                return czk_err_set(err, CZK_EINVAL, "gpu srs: the key has no points");
    TRY_STATUS(select_gpu(gpu, err));
    czk_gpu_srs *s = srs_handle(gpu, pk);
    if (s == nullptr) return czk_err_set(err, CZK_ENOMEM, "gpu srs handle");
    czk_status st = CZK_OK;
    for (int k = 0; k < CZK_G16_SECTIONS && st == CZK_OK; k++) {
        if (synth)
            st = czk_gpu_bases_synthesize(gpu, section_group(k), s->len[k], seed + 1 + k,
                                          &s->sec[k], err);
        else if (section_group(k) == 1)
            st = czk_gpu_g1_bases_upload(gpu, (const czk_g1_affine *)src[k], s->len[k],
                                         &s->sec[k], err);
        else
            st = czk_gpu_g2_bases_upload(gpu, (const czk_g2_affine *)src[k], s->len[k],
                                         &s->sec[k], err);
    }
    if (st != CZK_OK) {
        srs_free(s);
        return st;
    }
    s->bytes = srs_bytes(s);
    *out = s;
    return CZK_OK;
}

/* An SRS of pk's shape with `res[k]` points of section k reserved on the device and not
 * yet set (every point when res is NULL): filled by fixed-base work or czk_gpu_srs_write. */
czk_status srs_make_empty(czk_gpu_srs **out, int gpu, const czk_groth16_params *pk,
                          const size_t *res, czk_err *err)
{
    if (out == nullptr || pk == nullptr)
        return czk_err_set(err, CZK_EINVAL, "gpu srs: NULL argument");
    *out = nullptr;
    TRY_STATUS(select_gpu(gpu, err));
    czk_gpu_srs *s = srs_handle(gpu, pk);
    if (s == nullptr) return czk_err_set(err, CZK_ENOMEM, "gpu srs handle");
    czk_status st = CZK_OK;
    for (int k = 0; k < CZK_G16_SECTIONS && st == CZK_OK; k++) {
        if (res != nullptr) s->res[k] = res[k] < s->len[k] ? res[k] : s->len[k];
        if (s->res[k] > 0)
            st = czk__gpu_bases_alloc(gpu, section_group(k), s->res[k], &s->sec[k], err);
    }
    if (st != CZK_OK) {
        srs_free(s);
        return st;
    }
    s->bytes = srs_bytes(s);
    *out = s;
    return CZK_OK;
}

/* Section `sec` of an SRS: its handle, resident points and group; false for an unknown
 * section. */
bool srs_section(const czk_gpu_srs *s, czk_groth16_section sec, czk_gpu_bases **b, size_t *len,
                 int *group)
{
    if ((unsigned)sec >= CZK_G16_SECTIONS) return false;
    *b = s->sec[sec];
    *len = s->res[sec];
    *group = section_group(sec);
    return true;
}

/* ------------------------------------------------------------------------------------ */
/* Kernels                                                                              */
/* ------------------------------------------------------------------------------------ */

/* Montgomery to canonical limbs in place (the czk_scalar layout). */
__global__ void from_mont_kernel(fr_t *v, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        v[i] = v[i].from_mont();
}

unsigned ew_blocks(size_t n)
{
    size_t b = (n + EW_THREADS - 1) / EW_THREADS;
    if (b == 0) b = 1;
    return b < EW_BLOCKS_MAX ? (unsigned)b : EW_BLOCKS_MAX;
}

/* Device memory: the per-GPU stream-ordered pool of cuda/device_pool.cu (czk__gpu_mem_pool),
 * which keeps its memory between calls: a partition prover runs back to back, and mapping
 * 17 GB again for every 2^27 partition would cost time. */

/* ------------------------------------------------------------------------------------ */
/* B_G2 on the CPU, concurrently with the GPU                                            */
/* ------------------------------------------------------------------------------------ */

struct cpu_b2_job {
    const czk_groth16_params *pk;
    const czk_groth16_assignment *asg;
    czk_pool *pool;
    czk_g2_jac in, aux;
    double seconds;
    czk_status st;
};

void *cpu_b2_main(void *p)
{
    cpu_b2_job *j = (cpu_b2_job *)p;
    double t0 = czk_clock_s();
    const size_t ni = j->pk->n_inputs, na = j->pk->n_aux;
    czk_scalar *z = (czk_scalar *)czk_malloc((ni + na) * sizeof *z);
    if (z == nullptr) {
        j->st = CZK_ENOMEM;
        return nullptr;
    }
    czk_frs_to_scalars(z, j->asg->inputs, ni, j->pool);
    if (na > 0) czk_frs_to_scalars(z + ni, j->asg->aux, na, j->pool);
    size_t b_in = j->asg->b_input_density ? czk_density_count(j->asg->b_input_density, ni) : ni;
    czk_g2s_msm(&j->in, j->pk->b_g2, z, ni, j->asg->b_input_density, nullptr, j->pool);
    czk_g2s_msm(&j->aux, j->pk->b_g2 + b_in, z + ni, na, j->asg->b_aux_density, nullptr,
                j->pool);
    czk_free(z);
    j->seconds = czk_clock_s() - t0;
    j->st = CZK_OK;
    return nullptr;
}

/* ------------------------------------------------------------------------------------ */
/* One proof                                                                            */
/* ------------------------------------------------------------------------------------ */

/*
 * One thread's streaming: two device buffers that bases are copied into, on a copy stream
 * of the thread's own, the next call's copy beside the current call's MSM. The buffers are
 * taken on first use and sized for the largest call (G2 calls take half the G1 scalars).
 */
struct streamer {
    cudaStream_t cs = nullptr;
    cudaEvent_t ev[2] = {};
    void *buf[2] = {};
    size_t bytes = 0;
    int prio = 0;
    ~streamer()
    {
        if (cs != nullptr) cudaStreamSynchronize(cs);
        for (void *b : buf)
            if (b != nullptr) cudaFree(b);
        for (cudaEvent_t e : ev)
            if (e != nullptr) cudaEventDestroy(e);
        if (cs != nullptr) cudaStreamDestroy(cs);
        (void)cudaGetLastError();
    }
    czk_status ready(size_t need, czk_err *err)
    {
        if (cs == nullptr) {
            CZK_CUDA_TRY(err, cudaStreamCreateWithPriority(&cs, cudaStreamNonBlocking, prio));
            for (cudaEvent_t &e : ev) CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        }
        if (bytes >= need) return CZK_OK;
        CZK_CUDA_TRY(err, cudaStreamSynchronize(cs));
        for (void *&b : buf)
            if (b != nullptr) {
                cudaFree(b);
                b = nullptr;
            }
        bytes = 0;
        for (void *&b : buf) CZK_CUDA_TRY(err, cudaMalloc(&b, need));
        bytes = need;
        return CZK_OK;
    }
};

/* Everything one proof holds, released in the destructor on every path (the CPU thread is
 * joined first: it reads the caller's buffers). */
struct prove_state {
    int gpu = -1;
    cudaStream_t s = nullptr, cs = nullptr;
    cudaMemPool_t pool = nullptr;
    fr_t *da = nullptr, *db = nullptr, *dc = nullptr, *dz = nullptr;
    fr_t *stage[4] = {nullptr, nullptr, nullptr, nullptr}; /* packed a, b, c, aux (device) */
    fr_t *dd = nullptr; /* the density bitmaps on the device (proof_copies::densities) */
    streamer sm; /* this thread's copy buffers for streamed bases */
    cudaEvent_t ev[12] = {};
    czk__gpu_h *h = nullptr; /* the H step's tables, released once the streams are done */
    bool thread_started = false;
    pthread_t thread;
    cpu_b2_job job;

    ~prove_state()
    {
        if (thread_started) pthread_join(thread, nullptr);
        if (s != nullptr) cudaStreamSynchronize(s);
        if (cs != nullptr) cudaStreamSynchronize(cs);
        cudaStream_t fs = s != nullptr ? s : cs;
        if (fs != nullptr) {
            fr_t *ps[9] = {da, db, dc, dz, stage[0], stage[1], stage[2], stage[3], dd};
            for (fr_t *p : ps)
                if (p != nullptr) cudaFreeAsync(p, fs);
            cudaStreamSynchronize(fs);
        }
        czk__gpu_h_end(h);
        for (cudaEvent_t e : ev)
            if (e != nullptr) cudaEventDestroy(e);
        if (s != nullptr) cudaStreamDestroy(s);
        if (cs != nullptr) cudaStreamDestroy(cs);
        (void)cudaGetLastError();
    }

    czk_status alloc(fr_t **p, size_t count, czk_err *err)
    {
        cudaError_t e = cudaMallocFromPoolAsync((void **)p, (count ? count : 1) * sizeof(fr_t),
                                                pool, s);
        if (e == cudaErrorMemoryAllocation) {
            /* The MSM's scratch pool may hold memory from earlier calls: hand it back and
             * try once more before giving up. */
            (void)cudaGetLastError();
            cudaStreamSynchronize(s);
            czk_gpu_msm_trim(gpu);
            cudaMemPoolTrimTo(pool, 0);
            e = cudaMallocFromPoolAsync((void **)p, (count ? count : 1) * sizeof(fr_t), pool, s);
        }
        if (e != cudaSuccess) {
            *p = nullptr;
            return czk__cuda_fail(err, e, "device buffer", __FILE__, __LINE__);
        }
        return CZK_OK;
    }
};

bool is_pinned(const void *p)
{
    if (p == nullptr) return true;
    cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return at.type == cudaMemoryTypeHost;
}

/*
 * Where an MSM's bases are: the section's leading `res` points on the device and the rest
 * in host memory from point `res` on (a resident SRS: res = the section's length; streamed
 * from the key: res = 0).
 */
struct base_src {
    const uint8_t *dev;  /* point 0 of the section on the device, or NULL (res = 0) */
    size_t res;
    const uint8_t *host; /* point `res` of the section on the host, or NULL (nothing streams) */
};

/* A density bitmap (one base per set bit; host NULL: every scalar has a base) on the host,
 * and its copy on the device (NULL: none, the MSM copies it); at(lo): from scalar lo on, lo
 * a multiple of 64. */
struct bits {
    const uint64_t *host = nullptr, *dev = nullptr;
    bits at(size_t lo) const
    {
        return bits{host != nullptr ? host + lo / 64 : nullptr, dev != nullptr ? dev + lo / 64 : nullptr};
    }
};

/* The point index in 0..n of the first scalar whose base is `target` or later: the scalar
 * count whose density bits (all set without a density) add up to `target`. */
size_t scalar_at_base(const uint64_t *density, size_t n, size_t target)
{
    if (density == nullptr) return target < n ? target : n;
    size_t seen = 0;
    for (size_t w = 0; w * 64 < n; w++) {
        uint64_t word = density[w];
        const size_t bits = n - w * 64 < 64 ? n - w * 64 : 64;
        if (bits < 64) word &= (1ull << bits) - 1;
        const size_t c = (size_t)__builtin_popcountll(word);
        if (seen + c < target || c == 0) {
            seen += c;
            continue;
        }
        for (size_t b = 0; b < bits; b++)
            if ((word >> b) & 1) {
                if (seen == target) return w * 64 + b;
                seen++;
            }
    }
    return n;
}

/* A cap on the calling thread's MSM scratch for one proof, restored on every path. */
struct scratch_cap_scope {
    uint64_t saved;
    explicit scratch_cap_scope(uint64_t cap) : saved(czk__gpu_thread_msm_scratch_cap())
    {
        czk__gpu_set_thread_msm_scratch_cap(cap);
    }
    ~scratch_cap_scope() { czk__gpu_set_thread_msm_scratch_cap(saved); }
};

/* Calls smaller than this are not cut further when a call's scratch does not fit (a
 * call of 256 scalars takes about 0.1 MB). */
constexpr size_t MSM_CALL_MIN = 256;

/*
 * One MSM call over bases already on the device: when its scratch does not fit (the
 * thread's cap, or the device), the call is cut in two halves and each half tried again.
 */
template <int G>
czk_status msm_call(int gpu, void *out, const uint8_t *bases, size_t nbases,
                    const czk_scalar *dsc, size_t n, const bits &density,
                    czk_gpu_msm_stats *acc, czk_err *err)
{
    using jac = typename std::conditional<G == 1, czk_g1_jac, czk_g2_jac>::type;
    const size_t elem = G == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
    czk_gpu_msm_stats cst;
    czk_status st =
        czk__gpu_msm_dev(gpu, G, out, bases, nbases, dsc, n, density.host, density.dev, &cst, err);
    if (st == CZK_OK) {
        acc->n_zero += cst.n_zero;
        acc->n_one += cst.n_one;
        acc->n_one_tree += cst.n_one_tree;
        acc->n_sig += cst.n_sig;
        acc->device_ms += cst.device_ms;
        acc->window_bits = cst.window_bits;
        acc->windows = cst.windows;
        acc->calls++;
        return CZK_OK;
    }
    if (st != CZK_ERESOURCE || n < 2 * MSM_CALL_MIN) return st;
    acc->cuts++;
    /* Halves on a density word boundary. */
    const size_t h = n / 2 / 64 * 64;
    const size_t bh = density.host != nullptr ? czk_density_count(density.host, h) : h;
    jac lo, hi;
    TRY_STATUS(msm_call<G>(gpu, &lo, bases, bh, dsc, h, density, acc, err));
    TRY_STATUS(msm_call<G>(gpu, &hi, bases + bh * elem, nbases - bh, dsc + h, n - h,
                           density.at(h), acc, err));
    if (G == 1)
        czk_g1_jac_add((czk_g1_jac *)out, (const czk_g1_jac *)&lo, (const czk_g1_jac *)&hi);
    else
        czk_g2_jac_add((czk_g2_jac *)out, (const czk_g2_jac *)&lo, (const czk_g2_jac *)&hi);
    return CZK_OK;
}

/* The most scalars a call of a sparse section takes per base it may hold: a PoRep
 * partition's B has a base for a quarter of the witness, so its calls stay full. */
constexpr size_t SCALARS_PER_BASE = 4;

/*
 * One MSM over device scalars dsc[0..n) against bases [first, ...) of a section (density:
 * one base per set bit), in calls of at most `chunk` bases and SCALARS_PER_BASE times as
 * many scalars (0: one call where the bases are all resident): resident bases are read
 * where they are; the others are copied from the host through the thread's streamer, each
 * copy issued before the MSM of the call before it, the first one before the resident
 * calls. Calls never straddle the resident boundary. Fewer, fuller calls matter for the
 * sparse sections: each call has fixed costs (classification, window reductions), which at
 * 2^27 made B_G2's sixteen streamed calls take 0.69 s against 0.13 s for one resident
 * call. With `sparse` (the witness sections' mostly-0/1 scalars) the pieces go into one
 * accumulator (czk__gpu_msm_acc) instead of calls of their own. `streamed` adds the bytes
 * copied.
 */
template <int G>
czk_status msm_pass(streamer &sm, int gpu, void *out, const base_src &src, size_t first,
                    const czk_scalar *dsc, size_t n, const bits &density, size_t chunk,
                    bool sparse, czk_gpu_msm_stats *stats, uint64_t *streamed, czk_err *err)
{
    using jac = typename std::conditional<G == 1, czk_g1_jac, czk_g2_jac>::type;
    const size_t elem = G == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
    jac *res = (jac *)out;
    if (stats != nullptr) memset(stats, 0, sizeof *stats);
    czk_gpu_msm_stats acc;
    memset(&acc, 0, sizeof acc);
    if (G == 1)
        czk_g1_jac_set_inf((czk_g1_jac *)res);
    else
        czk_g2_jac_set_inf((czk_g2_jac *)res);
    if (n == 0) return CZK_OK;
    /* Scalars [0, cut) have resident bases, [cut, n) go through the streamer. With a
     * density a call starts on a density word, so the first streamed call may begin with up
     * to 63 resident bases, which it copies from the device. */
    const uint64_t *dh = density.host;
    size_t cut = src.res <= first ? 0 : scalar_at_base(dh, n, src.res - first);
    if (dh != nullptr && cut < n) cut = cut / 64 * 64;
    if (cut < n && src.host == nullptr)
        return czk_err_set(err, CZK_EINVAL,
                           "gpu prove: bases from %zu on are neither resident nor on the host",
                           src.res);
    const size_t step = G == 1 ? chunk : chunk / 2;
    struct call {
        size_t lo, cnt, b0, bn;
    };
    /* Scalars [lo, lo + cnt) of [lo, end): at most `step` bases and SCALARS_PER_BASE × step
     * scalars, whole density words unless the call reaches `end`. */
    auto make_call = [&](size_t lo, size_t end) {
        call c;
        c.lo = lo;
        c.cnt = end - lo;
        if (step != 0 && c.cnt > step) {
            if (dh == nullptr) {
                c.cnt = step;
            } else {
                size_t k = scalar_at_base(dh + lo / 64, end - lo, step);
                if (k > SCALARS_PER_BASE * step) k = SCALARS_PER_BASE * step;
                if (k < end - lo) k = k / 64 * 64;
                c.cnt = k > 0 ? k : 64;
            }
        }
        c.b0 = dh != nullptr ? czk_density_count(dh, lo) : lo;
        size_t b1 = dh != nullptr ? czk_density_count(dh, lo + c.cnt) : lo + c.cnt;
        c.bn = b1 - c.b0;
        return c;
    };
    auto add = [&](const jac &part) {
        if (G == 1)
            czk_g1_jac_add((czk_g1_jac *)res, (const czk_g1_jac *)res, (const czk_g1_jac *)&part);
        else
            czk_g2_jac_add((czk_g2_jac *)res, (const czk_g2_jac *)res, (const czk_g2_jac *)&part);
    };
    /* Sparse pieces into one accumulator (freed on every path, after its stream is done
     * with the buffers); otherwise a call each. */
    struct acc_ref {
        czk__gpu_msm_acc *p = nullptr;
        ~acc_ref() { czk__gpu_msm_acc_free(p); }
    } sp;
    if (sparse && step != 0) TRY_STATUS(czk__gpu_msm_acc_begin(gpu, G, n, &sp.p, err));
    auto piece = [&](const uint8_t *b, size_t bn, const czk_scalar *sc, size_t cnt,
                     const bits &d) -> czk_status {
        if (sp.p != nullptr) return czk__gpu_msm_acc_add(sp.p, b, bn, sc, cnt, d.host, d.dev, err);
        jac part;
        TRY_STATUS(msm_call<G>(gpu, &part, b, bn, sc, cnt, d, &acc, err));
        add(part);
        return CZK_OK;
    };
    /* Streamed calls: copies into the buffer of the call's parity. */
    size_t next_lo = cut; /* the streamed call whose copy is issued next */
    int slot = 0;
    auto issue = [&]() -> czk_status {
        if (next_lo >= n) return CZK_OK;
        call c = make_call(next_lo, n);
        const size_t g0 = first + c.b0; /* the call's first base in the section */
        const size_t nd = g0 < src.res ? (c.bn < src.res - g0 ? c.bn : src.res - g0) : 0;
        uint8_t *dst = (uint8_t *)sm.buf[slot];
        if (nd > 0)
            CZK_CUDA_TRY(err, cudaMemcpyAsync(dst, src.dev + g0 * elem, nd * elem, cudaMemcpyDeviceToDevice,
                                sm.cs));
        if (c.bn > nd)
            CZK_CUDA_TRY(err, cudaMemcpyAsync(dst + nd * elem, src.host + (g0 + nd - src.res) * elem,
                                (c.bn - nd) * elem, cudaMemcpyHostToDevice, sm.cs));
        CZK_CUDA_TRY(err, cudaEventRecord(sm.ev[slot], sm.cs));
        *streamed += (c.bn - nd) * elem;
        next_lo += c.cnt;
        slot ^= 1;
        return CZK_OK;
    };
    if (cut < n) {
        const size_t per = step != 0 ? step : n - cut;
        TRY_STATUS(sm.ready(per * elem, err));
        TRY_STATUS(issue());
    }
    for (size_t lo = 0; lo < cut;) {
        const size_t end = cut;
        call c = step == 0 ? call{lo, end - lo, 0, 0} : make_call(lo, end);
        if (step == 0) {
            c.b0 = dh != nullptr ? czk_density_count(dh, lo) : lo;
            c.bn = (dh != nullptr ? czk_density_count(dh, end) : end) - c.b0;
        }
        TRY_STATUS(piece(src.dev + (first + c.b0) * elem, c.bn, dsc + c.lo, c.cnt,
                         density.at(c.lo)));
        lo += c.cnt;
    }
    int use = 0;
    for (size_t lo = cut; lo < n;) {
        call c = make_call(lo, n);
        CZK_CUDA_TRY(err, cudaEventSynchronize(sm.ev[use]));
        /* The other buffer was last read by the call before this one, which has returned. */
        TRY_STATUS(issue());
        TRY_STATUS(piece((const uint8_t *)sm.buf[use], c.bn, dsc + c.lo, c.cnt,
                         density.at(c.lo)));
        use ^= 1;
        lo += c.cnt;
    }
    if (sp.p != nullptr) {
        jac part;
        czk_gpu_msm_stats ast;
        TRY_STATUS(czk__gpu_msm_acc_end(sp.p, &part, &ast, err));
        add(part);
        acc = ast;
    }
    if (stats != nullptr) *stats = acc;
    return CZK_OK;
}

/* msm_pass, sparse where asked; an accumulator that runs out of its scratch (the plan's
 * cap, or the device) gives way to calls of their own, which cut themselves to fit. */
template <int G>
czk_status msm(streamer &sm, int gpu, void *out, const base_src &src, size_t first,
               const czk_scalar *dsc, size_t n, const bits &density, size_t chunk,
               czk_gpu_msm_stats *stats, uint64_t *streamed, czk_err *err, bool sparse = false)
{
    czk_status st =
        msm_pass<G>(sm, gpu, out, src, first, dsc, n, density, chunk, sparse, stats, streamed, err);
    if (st != CZK_ERESOURCE || !sparse) return st;
    czk_err_clear(err);
    return msm_pass<G>(sm, gpu, out, src, first, dsc, n, density, chunk, false, stats, streamed,
                       err);
}

/* The largest proof seen on each GPU so far: its buffers' bytes and its domain. */
std::atomic<uint64_t> g_max_bufs[CZK_GPU_MAX], g_max_m[CZK_GPU_MAX];

void atomic_max(std::atomic<uint64_t> &a, uint64_t v)
{
    uint64_t cur = a.load(std::memory_order_relaxed);
    while (cur < v && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
}

/*
 * Whether the device has room for a second proof beside this one's MSMs: its a, b, c and
 * witness, plus the largest MSM scratch twice (this proof's H MSM and the next one's,
 * should the next reach its H MSM first). The next proof may be of another circuit, so
 * the shape is the largest this GPU has proved (this one included), not this proof's. The
 * H MSM at 2^27 takes about 15 GB (≈ 115 bytes a point: classification 26, sort input and
 * temporary 16, one group of four windows' sorted entries 32, buckets 36, carries 5; all
 * twelve windows' entries at once took 21 GB), counted here as 120 bytes a point. Memory
 * the shared pool holds but does not use counts as free.
 */
void note_shape(int gpu, size_t m, size_t ni, size_t na)
{
    if (gpu < 0 || gpu >= CZK_GPU_MAX) return;
    atomic_max(g_max_bufs[gpu], (uint64_t)sizeof(czk_fr) * (3 * (uint64_t)m + ni + na));
    atomic_max(g_max_m[gpu], (uint64_t)m);
}

bool room_for_next(int gpu, cudaMemPool_t pool)
{
    if (gpu < 0 || gpu >= CZK_GPU_MAX) return false;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    uint64_t reserved = 0, used = 0;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) !=
            cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    uint64_t avail = (uint64_t)free_b + (reserved > used ? reserved - used : 0);
    uint64_t need = g_max_bufs[gpu].load(std::memory_order_relaxed) +
                    2 * (120 * g_max_m[gpu].load(std::memory_order_relaxed)) + (2ull << 30);
    return avail >= need;
}

/*
 * Packed vectors (include/czk/pack.h, cuda/pack.cuh) on the device: one staging buffer
 * each, the bitmaps, the running counts and the values one after the other (the values
 * 32-byte aligned). copy_packed queues the four copies; expand_packed writes the plain
 * vector from the staging buffer.
 */
struct packed_layout {
    size_t words, off_others, off_prefix, off_vals, bytes;
    explicit packed_layout(const czk_packed_vec *p)
    {
        words = czk_packed_words(p->n);
        off_others = words * sizeof(uint64_t);
        off_prefix = 2 * words * sizeof(uint64_t);
        off_vals = (off_prefix + words * sizeof(uint32_t) + 31) / 32 * 32;
        bytes = off_vals + p->n_other * sizeof(czk_fr);
    }
};

czk_status copy_packed(fr_t *stage, const czk_packed_vec *p, cudaStream_t cs, uint64_t *bytes,
                       czk_err *err)
{
    packed_layout l(p);
    uint8_t *d = (uint8_t *)stage;
    if (l.words > 0) {
        CZK_CUDA_TRY(err, cudaMemcpyAsync(d, p->ones, l.words * sizeof(uint64_t), cudaMemcpyHostToDevice, cs));
        CZK_CUDA_TRY(err, cudaMemcpyAsync(d + l.off_others, p->others, l.words * sizeof(uint64_t),
                            cudaMemcpyHostToDevice, cs));
        CZK_CUDA_TRY(err, cudaMemcpyAsync(d + l.off_prefix, p->prefix, l.words * sizeof(uint32_t),
                            cudaMemcpyHostToDevice, cs));
    }
    if (p->n_other > 0)
        CZK_CUDA_TRY(err, cudaMemcpyAsync(d + l.off_vals, p->vals, p->n_other * sizeof(czk_fr),
                            cudaMemcpyHostToDevice, cs));
    *bytes += (uint64_t)l.words * 20 + (uint64_t)p->n_other * sizeof(czk_fr);
    return CZK_OK;
}

/* dst[0..p->n) from the staging buffer, then the buffer back to the pool, on stream s.
 * canon: the witness (canonical limbs, canonical 1); otherwise Montgomery form. */
czk_status expand_packed(fr_t *dst, fr_t *&stage, const czk_packed_vec *p, bool canon,
                         cudaStream_t s, czk_err *err)
{
    packed_layout l(p);
    const uint8_t *d = (const uint8_t *)stage;
    const uint64_t *ones = (const uint64_t *)d, *others = (const uint64_t *)(d + l.off_others);
    const uint32_t *prefix = (const uint32_t *)(d + l.off_prefix);
    const fr_t *vals = (const fr_t *)(d + l.off_vals);
    if (p->n > 0) {
        if (canon) {
            fr_t one = fr_t::zero();
            one.v[0] = 1;
            czk_gpu::pack::expand_kernel<true><<<ew_blocks(p->n), EW_THREADS, 0, s>>>(
                dst, p->n, ones, others, prefix, vals, one);
        } else {
            czk_gpu::pack::expand_kernel<false><<<ew_blocks(p->n), EW_THREADS, 0, s>>>(
                dst, p->n, ones, others, prefix, vals, fr_t::one());
        }
        CZK_CUDA_TRY_LAUNCH(err);
    }
    CZK_CUDA_TRY(err, cudaFreeAsync(stage, s));
    stage = nullptr;
    return CZK_OK;
}

/*
 * The witness MSMs (L, A, B_G1 and, on the GPU, B_G2): they need only the witness scalars,
 * so with a resident SRS they run on a second host thread beside the H transforms and the
 * H MSM, on the SMs those leave idle. Measured on an H200 at 2^27 (median of 5): 1727 ms a
 * proof against 1810 ms with every MSM after H while the witness was copied first; with
 * a, b, c copied first, 1730 against 1739 ms. The GPU is then busy from the first copy on
 * (the kernels alone add up to ~1.62 s), so there is little idle time left to fill; the
 * overlap stays because it costs nothing and pays wherever the kernels leave gaps.
 */
struct witness_job {
    int gpu;
    const czk_groth16_params *pk;
    const czk_groth16_assignment *asg;
    base_src src[CZK_G16_SECTIONS];
    const czk_scalar *zs;
    bits d_a, d_bi, d_b; /* the assignment's densities, with their device copies */
    cudaEvent_t ready; /* the witness scalars (and the densities) are on the device */
    size_t chunk;
    uint64_t scratch_cap; /* the plan's bound on each MSM call's scratch (0: none) */
    bool b2_gpu;
    czk__groth16_msms *res;
    czk_gpu_prove_stats *st;
    streamer *sm;       /* this thread's copy buffers */
    uint64_t streamed;
    unsigned calls, cuts; /* device MSM calls, and cuts for scratch */
    double l_s, a_s, b1_s, b2_s; /* host wall times */
    double t_start;              /* the proof's start (now_s), for the stats' end marks */
    int msm_priority;            /* the witness MSMs' stream priority (see prove) */
    czk_status rc;
    czk_err err;
};

czk_status witness_msms(witness_job *j)
{
    czk_err *err = &j->err;
    const czk_groth16_params *pk = j->pk;
    const czk_groth16_assignment *asg = j->asg;
    const size_t ni = pk->n_inputs, na = pk->n_aux;
    const czk_scalar *zs = j->zs;
    czk__groth16_msms *res = j->res;
    czk_gpu_prove_stats *st = j->st;
    const int gpu = j->gpu;
    CZK_CUDA_TRY(err, cudaSetDevice(gpu));
    CZK_CUDA_TRY(err, cudaEventSynchronize(j->ready));
    scratch_cap_scope cap(j->scratch_cap);
    size_t b_in = asg->b_input_density ? czk_density_count(asg->b_input_density, ni) : ni;
    const base_src *src = j->src;
    streamer &sm = *j->sm;
    czk_gpu_msm_stats m1, m2;
    uint64_t *sb = &j->streamed;
    const size_t ch = j->chunk;
    double t0 = czk_clock_s();
    TRY_STATUS(
        msm<1>(sm, gpu, &res->l, src[CZK_G16_L], 0, zs + ni, na, bits{}, ch, &m1, sb, err, true));
    auto tally = [j](const czk_gpu_msm_stats &m) {
        j->calls += m.calls;
        j->cuts += m.cuts;
    };
    tally(m1);
    st->msm_l_s = m1.device_ms * 1e-3;
    st->l_sig = m1.n_sig;
    double t1 = czk_clock_s();
    st->t_l_s = t1 - j->t_start;
    j->l_s = t1 - t0;
    TRY_STATUS(msm<1>(sm, gpu, &res->a_in, src[CZK_G16_A], 0, zs, ni, bits{}, ch, &m1, sb, err));
    TRY_STATUS(msm<1>(sm, gpu, &res->a_aux, src[CZK_G16_A], ni, zs + ni, na, j->d_a, ch, &m2, sb,
                      err, true));
    tally(m1);
    tally(m2);
    st->msm_a_s = (m1.device_ms + m2.device_ms) * 1e-3;
    double t2 = czk_clock_s();
    st->t_a_s = t2 - j->t_start;
    j->a_s = t2 - t1;
    TRY_STATUS(msm<1>(sm, gpu, &res->b1_in, src[CZK_G16_B_G1], 0, zs, ni, j->d_bi, ch, &m1, sb,
                      err));
    TRY_STATUS(msm<1>(sm, gpu, &res->b1_aux, src[CZK_G16_B_G1], b_in, zs + ni, na, j->d_b, ch,
                      &m2, sb, err, true));
    tally(m1);
    tally(m2);
    st->msm_b1_s = (m1.device_ms + m2.device_ms) * 1e-3;
    double t3 = czk_clock_s();
    st->t_b1_s = t3 - j->t_start;
    j->b1_s = t3 - t2;
    if (j->b2_gpu) {
        TRY_STATUS(msm<2>(sm, gpu, &res->b2_in, src[CZK_G16_B_G2], 0, zs, ni, j->d_bi, ch, &m1,
                          sb, err));
        TRY_STATUS(msm<2>(sm, gpu, &res->b2_aux, src[CZK_G16_B_G2], b_in, zs + ni, na, j->d_b,
                          ch, &m2, sb, err, true));
        tally(m1);
        tally(m2);
        st->msm_b2_s = (m1.device_ms + m2.device_ms) * 1e-3;
        j->b2_s = czk_clock_s() - t3;
        st->t_b2_s = czk_clock_s() - j->t_start;
    }
    return CZK_OK;
}

void *witness_main(void *p)
{
    witness_job *j = (witness_job *)p;
    czk__gpu_set_thread_msm_priority(j->msm_priority);
    j->rc = witness_msms(j);
    return nullptr;
}

/* The calling thread's MSM stream priority for one proof, restored on every path. */
struct msm_priority_scope {
    int saved;
    explicit msm_priority_scope(int p) : saved(czk__gpu_thread_msm_priority())
    {
        czk__gpu_set_thread_msm_priority(p);
    }
    ~msm_priority_scope() { czk__gpu_set_thread_msm_priority(saved); }
};

/* The events of one proof (prove_state::ev). */
enum { EV_C0, EV_A, EV_B, EV_C, EV_Z, EV_S0, EV_H, EV_ZC, EV_CEND, EV_BFREE };

/*
 * Where each section's bases are: the SRS's resident points, then its host memory (or the
 * key's own arrays); without an SRS, the key's arrays streamed. CZK_EINVAL when the SRS is
 * of another GPU or shape, or when points to stream are nowhere on the host.
 */
czk_status base_sources(int gpu, const czk_groth16_params *pk, const czk_gpu_srs *srs,
                        base_src src[CZK_G16_SECTIONS], czk_err *err)
{
    const void *keypts[CZK_G16_SECTIONS] = {pk->h, pk->l, pk->a, pk->b_g1, pk->b_g2};
    if (srs != nullptr) {
        if (srs->gpu != gpu)
            return czk_err_set(err, CZK_EINVAL, "gpu prove: SRS on GPU %d, proving on GPU %d",
                               srs->gpu, gpu);
        for (int k = 0; k < CZK_G16_SECTIONS; k++)
            if (srs->len[k] != czk_groth16_section_len(pk, (czk_groth16_section)k))
                return czk_err_set(err, CZK_EINVAL, "gpu prove: the SRS is not of this key's shape");
        for (int k = 0; k < CZK_G16_SECTIONS; k++) {
            src[k].dev = srs->sec[k] != nullptr ? (const uint8_t *)czk__gpu_bases_dev(srs->sec[k])
                                                : nullptr;
            src[k].res = srs->res[k];
            src[k].host = nullptr;
            if (srs->res[k] < srs->len[k]) {
                src[k].host = srs->host[k] != nullptr
                                  ? (const uint8_t *)srs->host[k]
                                  : keypts[k] != nullptr
                                        ? (const uint8_t *)keypts[k] + srs->res[k] * section_elem(k)
                                        : nullptr;
                if (src[k].host == nullptr)
                    return czk_err_set(err, CZK_EINVAL,
                                       "gpu prove: section %s streams points [%zu, %zu), which "
                                       "no host memory holds",
                                       czk_groth16_section_name((czk_groth16_section)k),
                                       srs->res[k], srs->len[k]);
            }
        }
    } else {
        for (int k = 0; k < CZK_G16_SECTIONS; k++) {
            if (czk_groth16_section_len(pk, (czk_groth16_section)k) && keypts[k] == nullptr)
                return czk_err_set(err, CZK_EINVAL, "gpu prove: no SRS and the key has no points");
            src[k] = base_src{nullptr, 0, (const uint8_t *)keypts[k]};
        }
    }
    return CZK_OK;
}

/* The options against the key and the assignment; B_G2's place resolved in o->b2. */
czk_status check_opts(czk_gpu_prove_opts *o, const czk_groth16_params *pk,
                      const czk_groth16_assignment *asg, czk_err *err)
{
    for (int k = 0; k < 3; k++)
        if (o->packed_abc[k] != nullptr && o->packed_abc[k]->n != asg->n_rows)
            return czk_err_set(err, CZK_EINVAL,
                               "gpu prove: packed_abc[%d] holds %zu elements, the assignment "
                               "%zu rows", k, o->packed_abc[k]->n, asg->n_rows);
    if (o->packed_aux != nullptr && o->packed_aux->n != pk->n_aux)
        return czk_err_set(err, CZK_EINVAL,
                           "gpu prove: packed_aux holds %zu elements, the key %zu aux variables",
                           o->packed_aux->n, (size_t)pk->n_aux);
    /* B_G2 on the GPU unless the caller asks for the CPU: on an H200 with 16 host threads a
     * 2^27 PoRep-like partition's B_G2 took 145 ms of GPU time against 11.4 s on the CPU
     * beside the GPU work, which made the whole proof 6.6 times slower. */
    if (o->b2 == CZK_GPU_B2_AUTO) o->b2 = CZK_GPU_B2_GPU;
    if (o->b2 == CZK_GPU_B2_CPU && pk->b_g2_len > 0 && pk->b_g2 == nullptr)
        return czk_err_set(err, CZK_EINVAL, "gpu prove: B_G2 on the CPU needs the key's points");
    return CZK_OK;
}

/* The rows of a, b, c the H step reads, in *rows_out: the assignment's, and for bellperson
 * its input rows appended. */
czk_status input_rows(const czk_groth16_params *pk, const czk_groth16_assignment *asg, size_t m,
                      size_t *rows_out, czk_err *err)
{
    const size_t ni = pk->n_inputs;
    size_t rows = asg->n_rows;
    if (pk->conv == CZK_H_BELLPERSON) {
        if (rows + ni > m)
            return czk_err_set(err, CZK_EINVAL,
                               "assignment: %zu rows + %zu input rows exceed the domain 2^%u",
                               rows, ni, pk->log_m);
        /* bellperson appends enforce(x_i · 0 = 0) for every input, ONE included, as the CPU
         * prover does (in the caller's buffers, which the contract lets us overwrite). */
        for (size_t i = 0; i < ni; i++) {
            asg->a[rows + i] = asg->inputs[i];
            asg->b[rows + i] = CZK_FR_ZERO;
            asg->c[rows + i] = CZK_FR_ZERO;
        }
        rows += ni;
    } else if (rows > m) {
        return czk_err_set(err, CZK_EINVAL, "assignment: %zu rows exceed the domain 2^%u", rows,
                           pk->log_m);
    }
    *rows_out = rows;
    return CZK_OK;
}

/* The stream priorities of a proof's MSMs: the H MSM's and the witness MSMs'. */
struct msm_priorities {
    int msm, witness;
};

/*
 * The proof's compute stream (ps.s) and copy stream (ps.cs), its events, and the priorities
 * of its MSMs' streams. The transforms lead to the H MSM, the longest chain: their stream
 * gets the highest priority, so the witness MSMs beside them take the SMs they leave idle.
 */
czk_status open_streams(prove_state &ps, bool urgent, msm_priorities *pr, czk_err *err)
{
    int prio_least = 0, prio_greatest = 0;
    CZK_CUDA_TRY(err, cudaDeviceGetStreamPriorityRange(&prio_least, &prio_greatest));
    CZK_CUDA_TRY(err, cudaStreamCreateWithPriority(&ps.s, cudaStreamNonBlocking, prio_greatest));
    /* An urgent proof's MSMs (on their own streams, here and on the witness thread) go at
     * the transforms' priority, ahead of every other proof's MSMs: a WinningPoSt sharing
     * the GPU with PoRep partitions waits only for blocks already running.
     *
     * Otherwise the witness MSMs (L, A, B: a quarter of a second of device time at 2^27
     * with a PoRep witness) go one level below the transforms and the H MSM at the lowest
     * level: the small MSMs finish early and free their memory, and the long H MSM fills
     * whatever the others leave. On an H200 (bench_gpu_prove --real --pipeline 10) the
     * pipelined partition took 1.177 s against 1.198 with every MSM at one level, and a
     * partition alone 1.236 s against 1.306 with the H MSM at the witness MSMs' level. The
     * cost: a proof's call ends with its H MSM, about 2.3 s into it beside the next proof. */
    const int witness_level = prio_least - prio_greatest >= 2 ? prio_greatest + 1 : prio_greatest;
    pr->msm = urgent ? prio_greatest : prio_least;
    pr->witness = urgent ? prio_greatest : witness_level;
    /* The copy stream also makes the witness canonical (from_mont_kernel), which the
     * witness MSMs wait for: at their level, not behind another proof's H MSM. */
    CZK_CUDA_TRY(err, cudaStreamCreateWithPriority(&ps.cs, cudaStreamNonBlocking, pr->witness));
    ps.sm.prio = pr->msm;
    for (cudaEvent_t &e : ps.ev) CZK_CUDA_TRY(err, cudaEventCreate(&e));
    return CZK_OK;
}

/* The assignment's density bitmaps (A's aux, B's inputs, B's aux; NULL: none) and where
 * each starts in the proof's device copy of them, in words; returns the words in all. */
size_t density_layout(const czk_groth16_assignment *asg, size_t ni, size_t na,
                      const uint64_t *host[3], size_t off[3])
{
    host[0] = asg->a_aux_density;
    host[1] = asg->b_input_density;
    host[2] = asg->b_aux_density;
    const size_t bits_of[3] = {na, ni, na};
    size_t words = 0;
    for (int k = 0; k < 3; k++) {
        off[k] = words;
        if (host[k] != nullptr) words += (bits_of[k] + 63) / 64;
    }
    return words;
}

/*
 * The proof's device buffers from the pool, on the compute stream: a, b and c (in turn, c
 * lands in b's memory once a·b is formed), the witness unless it comes late, and a staging
 * buffer for each packed vector (opts.packed_abc, packed_aux), which is expanded on the
 * device: a, b, c on the compute stream before their transforms, the witness where it
 * becomes canonical. Packed copies go with the at-once order only (their staging buffers
 * are what the other orders save). Beside them the density bitmaps (proof_copies::densities).
 * The copies start once the buffers exist.
 */
czk_status alloc_buffers(prove_state &ps, const czk_gpu_prove_opts &o,
                         const czk_groth16_assignment *asg, size_t m, size_t ni, size_t na,
                         bool in_turn, bool late, const czk_packed_vec *pv[4],
                         czk_gpu_prove_stats *st, czk_err *err)
{
    const uint64_t *dh[3];
    size_t doff[3];
    const size_t dwords = density_layout(asg, ni, na, dh, doff);
    if (dwords > 0) TRY_STATUS(ps.alloc(&ps.dd, (dwords * sizeof(uint64_t) + 31) / 32, err));
    TRY_STATUS(ps.alloc(&ps.da, m, err));
    TRY_STATUS(ps.alloc(&ps.db, m, err));
    if (!in_turn) TRY_STATUS(ps.alloc(&ps.dc, m, err));
    if (!late) TRY_STATUS(ps.alloc(&ps.dz, ni + na, err));
    if (!in_turn && !late) {
        pv[0] = o.packed_abc[0];
        pv[1] = o.packed_abc[1];
        pv[2] = o.packed_abc[2];
        pv[3] = o.packed_aux;
    }
    for (int k = 0; k < 4; k++) {
        st->packed_vectors += pv[k] != nullptr;
        if (pv[k] != nullptr)
            TRY_STATUS(ps.alloc(&ps.stage[k], (packed_layout(pv[k]).bytes + 31) / 32, err));
    }
    CZK_CUDA_TRY(err, cudaEventRecord(ps.ev[EV_S0], ps.s));
    CZK_CUDA_TRY(err, cudaStreamWaitEvent(ps.cs, ps.ev[EV_S0], 0));
    return CZK_OK;
}

/*
 * One proof's host-to-device copies on the copy stream, straight from the caller's buffers,
 * one event after each vector: a, b and c (the rows filled, plain or packed), the witness
 * (inputs, then aux), and the witness made canonical once it has landed. `copied` counts
 * the bytes.
 */
struct proof_copies {
    prove_state &ps;
    const czk_groth16_assignment *asg;
    const czk_packed_vec *const *pv; /* packed a, b, c and aux, or NULL each */
    fr_t *dv[3];
    czk_fr *hv[3];
    size_t ni, na, rows, rows0; /* rows0: the rows before bellperson's input rows */
    uint64_t copied;

    czk_status witness(czk_err *err)
    {
        const size_t fb = sizeof(czk_fr);
        CZK_CUDA_TRY(err, cudaMemcpyAsync(ps.dz, asg->inputs, ni * fb, cudaMemcpyHostToDevice, ps.cs));
        copied += ni * fb;
        if (pv[3] != nullptr) {
            TRY_STATUS(copy_packed(ps.stage[3], pv[3], ps.cs, &copied, err));
        } else if (na > 0) {
            CZK_CUDA_TRY(err, cudaMemcpyAsync(ps.dz + ni, asg->aux, na * fb, cudaMemcpyHostToDevice, ps.cs));
            copied += na * fb;
        }
        CZK_CUDA_TRY(err, cudaEventRecord(ps.ev[EV_Z], ps.cs));
        return CZK_OK;
    }
    /* The density bitmaps, once a proof and first: an MSM call that copied its own would
     * queue behind the bases its section streams meanwhile, and a copy from pageable memory
     * queued behind a, b and c would hold this thread until they land (0.16 s later H at
     * 2^27 on an H200). */
    czk_status densities(czk_err *err)
    {
        const uint64_t *dh[3];
        size_t doff[3];
        if (density_layout(asg, ni, na, dh, doff) == 0) return CZK_OK;
        const size_t bits_of[3] = {na, ni, na};
        for (int k = 0; k < 3; k++)
            if (dh[k] != nullptr) {
                const size_t w = (bits_of[k] + 63) / 64;
                CZK_CUDA_TRY(err, cudaMemcpyAsync((uint64_t *)ps.dd + doff[k], dh[k], w * sizeof(uint64_t),
                                                  cudaMemcpyHostToDevice, ps.cs));
                copied += w * sizeof(uint64_t);
            }
        return CZK_OK;
    }
    czk_status vector(int k, czk_err *err)
    {
        const size_t fb = sizeof(czk_fr);
        if (pv[k] != nullptr) {
            TRY_STATUS(copy_packed(ps.stage[k], pv[k], ps.cs, &copied, err));
            /* bellperson's input rows, past the packed ones, as the plain copy has them */
            if (rows > rows0) {
                CZK_CUDA_TRY(err, cudaMemcpyAsync(dv[k] + rows0, hv[k] + rows0, (rows - rows0) * fb,
                                    cudaMemcpyHostToDevice, ps.cs));
                copied += (rows - rows0) * fb;
            }
        } else if (rows > 0) {
            CZK_CUDA_TRY(err, cudaMemcpyAsync(dv[k], hv[k], rows * fb, cudaMemcpyHostToDevice, ps.cs));
            copied += rows * fb;
        }
        CZK_CUDA_TRY(err, cudaEventRecord(ps.ev[EV_A + k], ps.cs));
        return CZK_OK;
    }
    /* The witness in canonical limbs (aux packed: expanded to them), once it has landed. */
    czk_status witness_canonical(cudaStream_t zst, czk_err *err)
    {
        if (pv[3] != nullptr) {
            TRY_STATUS(expand_packed(ps.dz + ni, ps.stage[3], pv[3], true, zst, err));
            from_mont_kernel<<<ew_blocks(ni), EW_THREADS, 0, zst>>>(ps.dz, ni);
        } else {
            from_mont_kernel<<<ew_blocks(ni + na), EW_THREADS, 0, zst>>>(ps.dz, ni + na);
        }
        CZK_CUDA_TRY_LAUNCH(err);
        CZK_CUDA_TRY(err, cudaEventRecord(ps.ev[EV_ZC], zst));
        return CZK_OK;
    }
};

/* a and b in the order of their copies' sizes, c last: c needs one transform after its
 * copy, a and b two each. With packed copies b is usually tiny (a Filecoin partition's b
 * is 99 % 0 or 1), so the transforms start after b's copy instead of a's. */
void vector_order(const czk_packed_vec *const pv[4], size_t rows0, int vorder[3])
{
    const size_t fb = sizeof(czk_fr);
    vorder[0] = 0;
    vorder[1] = 1;
    vorder[2] = 2;
    uint64_t vb[2];
    for (int k = 0; k < 2; k++)
        vb[k] = pv[k] != nullptr ? packed_layout(pv[k]).bytes : (uint64_t)rows0 * fb;
    if (vb[1] < vb[0]) {
        vorder[0] = 1;
        vorder[1] = 0;
    }
}

/*
 * 1. Copies, one event per vector: a, b, c first (H and its MSM are the longest chain),
 * then the witness. The copies of a, b, c bound the transforms (the GPU transforms a
 * vector faster than PCIe delivers the next), so H is ready sooner when they go first:
 * at 2^27 on an H200, H was ready after 441 ms against 513 ms with the witness first. In
 * turn, c's copy waits for a·b (queued with the transforms, h_step). Rows past `rows` are
 * zero. The witness becomes canonical scalars right after its copy, on the copy stream, so
 * that the witness MSMs do not wait for the transforms.
 */
czk_status start_copies(proof_copies &cp, const int vorder[3], bool in_turn, bool late, size_t m,
                        czk_err *err)
{
    prove_state &ps = cp.ps;
    const size_t fb = sizeof(czk_fr);
    const size_t rows = cp.rows;
    TRY_STATUS(cp.densities(err));
    for (int i = 0; i < 3; i++) {
        const int k = vorder[i];
        if (in_turn && k == 2) break;
        TRY_STATUS(cp.vector(k, err));
    }
    if (!late) TRY_STATUS(cp.witness(err));
    if (rows < m)
        for (int k = 0; k < (in_turn ? 2 : 3); k++)
            CZK_CUDA_TRY(err, cudaMemsetAsync(cp.dv[k] + rows, 0, (m - rows) * fb, ps.s));
    if (!late) TRY_STATUS(cp.witness_canonical(ps.cs, err));
    return CZK_OK;
}

/*
 * 2. H on the compute stream, each vector once its copy is done (cuda/ntt.cu's H step: six
 * transforms, the result in canonical limbs, in a). In turn: a and b, then a·b into a, then
 * c's copy into b's memory and its transform, then the rest of the step. Then b and c go
 * back to the pool (stream-ordered after the transforms), not at the end of the proof: at
 * 2^27 that is 8.6 GB more for the next proof, which otherwise (SRS 47 GB, whole NTT tables
 * 8 GiB, two proofs' buffers and H MSM scratch on a 141 GB H200) waited in its allocations
 * for this proof's H MSM to end, and handed the GPU on only every other time.
 */
czk_status h_step(proof_copies &cp, int gpu, const czk_groth16_params *pk, const int vorder[3],
                  bool in_turn, size_t m, czk_err *err)
{
    prove_state &ps = cp.ps;
    const size_t fb = sizeof(czk_fr);
    const size_t rows = cp.rows;
    fr_t *const *dv = cp.dv;
    const czk_packed_vec *const *pv = cp.pv;
    TRY_STATUS(czk__gpu_h_begin(gpu, pk->log_m, pk->conv, &ps.h, err));
    for (int i = 0; i < 3; i++) {
        const int k = vorder[i];
        if (in_turn && k == 2) break;
        CZK_CUDA_TRY(err, cudaStreamWaitEvent(ps.s, ps.ev[EV_A + k], 0));
        if (pv[k] != nullptr)
            TRY_STATUS(expand_packed(dv[k], ps.stage[k], pv[k], false, ps.s, err));
        TRY_STATUS(czk__gpu_h_vector(ps.h, (czk_fr *)dv[k], k, ps.s, err));
    }
    if (in_turn) {
        TRY_STATUS(czk__gpu_h_combine(ps.h, (czk_fr *)ps.da, (const czk_fr *)ps.db, ps.s, err));
        if (rows < m) CZK_CUDA_TRY(err, cudaMemsetAsync(ps.db + rows, 0, (m - rows) * fb, ps.s));
        CZK_CUDA_TRY(err, cudaEventRecord(ps.ev[EV_BFREE], ps.s));
        CZK_CUDA_TRY(err, cudaStreamWaitEvent(ps.cs, ps.ev[EV_BFREE], 0));
        TRY_STATUS(cp.vector(2, err));
        CZK_CUDA_TRY(err, cudaStreamWaitEvent(ps.s, ps.ev[EV_C], 0));
        TRY_STATUS(czk__gpu_h_vector(ps.h, (czk_fr *)ps.db, 2, ps.s, err));
        TRY_STATUS(czk__gpu_h_finish_c(ps.h, (czk_fr *)ps.da, (const czk_fr *)ps.db, ps.s, err));
    } else {
        TRY_STATUS(czk__gpu_h_finish(ps.h, (czk_fr *)ps.da, (czk_fr *)ps.db,
                                     (const czk_fr *)ps.dc, ps.s, err));
    }
    /* The last copy's end, whichever it is (in turn, c's). */
    CZK_CUDA_TRY(err, cudaEventRecord(ps.ev[EV_CEND], ps.cs));
    CZK_CUDA_TRY(err, cudaFreeAsync(ps.db, ps.s));
    ps.db = nullptr;
    if (ps.dc != nullptr) {
        CZK_CUDA_TRY(err, cudaFreeAsync(ps.dc, ps.s));
        ps.dc = nullptr;
    }
    CZK_CUDA_TRY(err, cudaEventRecord(ps.ev[EV_H], ps.s));
    return CZK_OK;
}

/* The wait for H, and the copies' and the H step's device times into st; *t1 the wall
 * clock when H was ready. */
czk_status wait_h(prove_state &ps, double t0, czk_gpu_prove_stats *st, czk_groth16_timings *tm,
                  double *t1_out, czk_err *err)
{
    st->t_queued_s = czk_clock_s() - t0;
    CZK_CUDA_TRY(err, cudaEventSynchronize(ps.ev[EV_H]));
    double t1 = czk_clock_s();
    st->t_h_s = t1 - t0;
    tm->ntt = t1 - t0;
    float ms = 0;
    CZK_CUDA_TRY(err, cudaEventSynchronize(ps.ev[EV_CEND]));
    CZK_CUDA_TRY(err, cudaEventElapsedTime(&ms, ps.ev[EV_C0], ps.ev[EV_CEND]));
    st->h2d_s = ms * 1e-3;
    CZK_CUDA_TRY(err, cudaEventElapsedTime(&ms, ps.ev[EV_S0], ps.ev[EV_H]));
    st->ntt_s = ms * 1e-3;
    *t1_out = t1;
    return CZK_OK;
}

/* Whether the caller may start the next proof beside this one's MSMs, once only MSMs
 * against the resident SRS are left (streamed bases would share the copy engine with its
 * copies): under a plan, only when its budget holds a second proof's buffers and H MSM
 * beside its peak, and only when the device has that room now (room_for_next). */
bool may_hand_on(const czk_gpu_plan *plan, int gpu, size_t m, bool full, cudaMemPool_t pool)
{
    const bool plan_room =
        plan == nullptr ||
        plan->budget >= plan->peak_bytes + g_max_bufs[gpu < CZK_GPU_MAX ? gpu : 0].load() +
                            czk_gpu_msm_scratch_bound(1, m);
    return full && plan_room && room_for_next(gpu, pool);
}

/* B_G2 from the CPU thread into res, after the GPU work; tm->msm_b_g2 is the wait for it. */
czk_status join_cpu_b2(prove_state &ps, czk__groth16_msms *res, czk_gpu_prove_stats *st,
                       czk_groth16_timings *tm, czk_err *err)
{
    double tb = czk_clock_s();
    pthread_join(ps.thread, nullptr);
    ps.thread_started = false;
    if (ps.job.st != CZK_OK)
        return czk_err_set(err, ps.job.st, "gpu prove: B_G2 on the CPU failed");
    res->b2_in = ps.job.in;
    res->b2_aux = ps.job.aux;
    st->msm_b2_s = ps.job.seconds;
    tm->msm_b_g2 = czk_clock_s() - tb; /* the wait for it, beyond the GPU work */
    return CZK_OK;
}

/* One proof (czk_gpu_prove_ex): the stages above, the MSMs (3.) and the assembly (4.). */
czk_status prove(czk_groth16_proof *out, int gpu, const czk_groth16_params *pk,
                 const czk_gpu_srs *srs, const czk_groth16_assignment *asg, const czk_fr *r_in,
                 const czk_fr *s_in, czk_pool *pool, const czk_gpu_prove_opts *opts,
                 czk_groth16_timings *tout, czk_gpu_prove_stats *sout, czk_err *err)
{
    if (out == nullptr) return czk_err_set(err, CZK_EINVAL, "gpu prove: out is NULL");
    TRY_STATUS(czk__groth16_check_shapes(pk, asg, err));
    czk_gpu_prove_opts o = opts != nullptr ? *opts : czk_gpu_prove_opts{};
    const czk_gpu_plan *plan = o.plan;

    base_src src[CZK_G16_SECTIONS];
    TRY_STATUS(base_sources(gpu, pk, srs, src, err));
    const bool full = srs_full(srs);
    TRY_STATUS(check_opts(&o, pk, asg, err));
    /* The plan's orders (include/czk/gpu.h): two vectors through the H step at a time, the
     * witness after the H MSM, MSM calls of bounded scratch. */
    const bool in_turn = plan != nullptr && plan->abc_in_turn;
    const bool late = plan != nullptr && plan->witness_late;
    size_t chunk = plan != nullptr ? plan->msm_chunk : 0;
    if (chunk == 0 && !full) chunk = o.stream_chunk ? o.stream_chunk : (size_t)1 << 24;
    /* G2 calls take half a chunk, and every call starts on a density word. */
    chunk = (chunk + 127) / 128 * 128;
    const uint64_t scratch_cap = plan != nullptr ? plan->msm_scratch : 0;
    /* The witness MSMs beside H: as the plan says; without one, with a resident SRS (the
     * streamed key once shared one pair of copy buffers between the threads). */
    const bool overlap = !o.no_overlap && !late && (plan != nullptr ? plan->overlap : full);

    czk_fr r, s;
    TRY_STATUS(czk__groth16_blinding(&r, &s, r_in, s_in, err));

    const size_t m = (size_t)1 << pk->log_m;
    const size_t ni = pk->n_inputs, na = pk->n_aux;
    size_t rows = 0;
    TRY_STATUS(input_rows(pk, asg, m, &rows, err));

    czk_gpu_prove_stats st;
    memset(&st, 0, sizeof st);
    czk_groth16_timings tm;
    memset(&tm, 0, sizeof tm);
    const double t0 = czk_clock_s();

    prove_state ps;
    ps.gpu = gpu;
    TRY_STATUS(select_gpu(gpu, err));
    note_shape(gpu, m, ni, na);
    TRY_STATUS(czk__gpu_mem_pool(gpu, &ps.pool, err));
    msm_priorities prio;
    TRY_STATUS(open_streams(ps, o.urgent, &prio, err));
    msm_priority_scope prio_scope(prio.msm);
    scratch_cap_scope cap_scope(scratch_cap);

    /* B_G2 on the CPU starts first: it needs nothing from the GPU. */
    st.b2_on_cpu = o.b2 == CZK_GPU_B2_CPU;
    if (st.b2_on_cpu) {
        ps.job = cpu_b2_job{pk, asg, pool, {}, {}, 0, CZK_EINTERNAL};
        if (pthread_create(&ps.thread, nullptr, cpu_b2_main, &ps.job) != 0)
            return czk_err_set(err, CZK_ERESOURCE, "gpu prove: cannot start the B_G2 thread");
        ps.thread_started = true;
    }

    const czk_packed_vec *pv[4] = {nullptr, nullptr, nullptr, nullptr};
    TRY_STATUS(alloc_buffers(ps, o, asg, m, ni, na, in_turn, late, pv, &st, err));

    st.host_pinned = is_pinned(asg->a) && is_pinned(asg->b) && is_pinned(asg->c) &&
                     is_pinned(asg->aux);
    CZK_CUDA_TRY(err, cudaEventRecord(ps.ev[EV_C0], ps.cs));
    /* a, b and c into the device buffers (in turn, c into b's), then the witness. */
    proof_copies cp{ps, asg, pv, {ps.da, ps.db, in_turn ? ps.db : ps.dc},
                    {asg->a, asg->b, asg->c}, ni, na, rows, asg->n_rows, 0};
    int vorder[3];
    vector_order(pv, cp.rows0, vorder);
    TRY_STATUS(start_copies(cp, vorder, in_turn, late, m, err));

    czk__groth16_msms res;
    /* The witness MSMs' thread has copy buffers of its own; after H they use this one's. */
    streamer wsm;
    wsm.prio = prio.witness;
    witness_job wj;
    memset((void *)&wj, 0, sizeof wj);
    wj.gpu = gpu;
    wj.pk = pk;
    wj.asg = asg;
    for (int k = 0; k < CZK_G16_SECTIONS; k++) wj.src[k] = src[k];
    wj.zs = (const czk_scalar *)ps.dz;
    {
        const uint64_t *dh[3];
        size_t doff[3];
        if (density_layout(asg, ni, na, dh, doff) > 0) {
            const uint64_t *dd = (const uint64_t *)ps.dd;
            wj.d_a = bits{dh[0], dh[0] != nullptr ? dd + doff[0] : nullptr};
            wj.d_bi = bits{dh[1], dh[1] != nullptr ? dd + doff[1] : nullptr};
            wj.d_b = bits{dh[2], dh[2] != nullptr ? dd + doff[2] : nullptr};
        }
    }
    wj.ready = ps.ev[EV_ZC];
    wj.chunk = chunk;
    wj.scratch_cap = scratch_cap;
    wj.b2_gpu = !st.b2_on_cpu;
    wj.res = &res;
    wj.st = &st;
    wj.sm = overlap ? &wsm : &ps.sm;
    wj.t_start = t0;
    wj.msm_priority = prio.witness;
    pthread_t wthread;
    bool wstarted = false;
    if (overlap) {
        if (pthread_create(&wthread, nullptr, witness_main, &wj) != 0)
            return czk_err_set(err, CZK_ERESOURCE, "gpu prove: cannot start the MSM thread");
        wstarted = true;
    }
    /* Joined on every path below before `wj`, `wsm` and `ps` go away. */
    struct joiner {
        pthread_t *t;
        bool *on;
        ~joiner()
        {
            if (*on) pthread_join(*t, nullptr);
        }
    } wjoin{&wthread, &wstarted};

    TRY_STATUS(h_step(cp, gpu, pk, vorder, in_turn, m, err));
    /* bellperson: the top coefficient is zero for a satisfied assignment */
    const size_t h_len = pk->conv == CZK_H_BELLPERSON ? m - 1 : m;
    double t1 = 0;
    TRY_STATUS(wait_h(ps, t0, &st, &tm, &t1, err));
    if (o.on_compute != nullptr && may_hand_on(plan, gpu, m, full, ps.pool)) {
        st.overlapped = true;
        st.t_handoff_s = czk_clock_s() - t0;
        o.on_compute(o.on_compute_arg);
    }

    /* 3. MSMs: H here, the witness MSMs on their thread (or here, after H). */
    czk_gpu_msm_stats mh;
    TRY_STATUS(msm<1>(ps.sm, gpu, &res.h, src[CZK_G16_H], 0, (const czk_scalar *)ps.da, h_len,
                      bits{}, chunk, &mh, &st.srs_h2d_bytes, err));
    st.msm_h_s = mh.device_ms * 1e-3;
    st.msm_calls = mh.calls;
    st.msm_cuts = mh.cuts;
    st.h_sig = mh.n_sig;
    double t2 = czk_clock_s();
    st.t_msm_h_s = t2 - t0;
    tm.msm_h = t2 - t1;
    if (wstarted) {
        pthread_join(wthread, nullptr);
        wstarted = false;
    } else {
        if (late) {
            /* H's memory back to the pool, then the witness into it. */
            CZK_CUDA_TRY(err, cudaFreeAsync(ps.da, ps.s));
            ps.da = nullptr;
            TRY_STATUS(ps.alloc(&ps.dz, ni + na, err));
            CZK_CUDA_TRY(err, cudaEventRecord(ps.ev[EV_S0], ps.s));
            CZK_CUDA_TRY(err, cudaStreamWaitEvent(ps.cs, ps.ev[EV_S0], 0));
            TRY_STATUS(cp.witness(err));
            TRY_STATUS(cp.witness_canonical(ps.cs, err));
            wj.zs = (const czk_scalar *)ps.dz;
        }
        msm_priority_scope wscope(prio.witness);
        wj.rc = witness_msms(&wj);
    }
    if (wj.rc != CZK_OK) {
        if (err != nullptr) *err = wj.err;
        return wj.rc;
    }
    st.h2d_bytes = cp.copied;
    st.srs_h2d_bytes += wj.streamed;
    st.msm_calls += wj.calls;
    st.msm_cuts += wj.cuts;
    tm.msm_l = wj.l_s;
    tm.msm_a = wj.a_s;
    tm.msm_b_g1 = wj.b1_s;
    tm.msm_b_g2 = wj.b2_s;
    if (st.b2_on_cpu) TRY_STATUS(join_cpu_b2(ps, &res, &st, &tm, err));
    double t6 = czk_clock_s();
    st.gpu_s = t6 - t0;

    /* 4. Assembly, the CPU prover's code. */
    czk__groth16_assemble(out, pk, &res, &r, &s);
    tm.assemble = czk_clock_s() - t6;
    if (tout != nullptr) *tout = tm;
    if (sout != nullptr) *sout = st;
    return CZK_OK;
}

} // namespace

extern "C" {

czk_status czk_gpu_srs_create(czk_gpu_srs **out, int gpu, const czk_groth16_params *pk,
                              czk_err *err)
{
    return srs_make(out, gpu, pk, false, 0, err);
}

czk_status czk_gpu_srs_synthesize(czk_gpu_srs **out, int gpu, const czk_groth16_params *pk,
                                  uint64_t seed, czk_err *err)
{
    return srs_make(out, gpu, pk, true, seed, err);
}

czk_status czk_gpu_srs_create_empty(czk_gpu_srs **out, int gpu, const czk_groth16_params *pk,
                                    czk_err *err)
{
    return srs_make_empty(out, gpu, pk, nullptr, err);
}

czk_status czk_gpu_srs_create_plan(czk_gpu_srs **out, int gpu, const czk_groth16_params *shape,
                                   const czk_gpu_plan *plan, czk_err *err)
{
    if (plan == nullptr) return czk_err_set(err, CZK_EINVAL, "gpu srs: NULL plan");
    return srs_make_empty(out, gpu, shape, plan->resident, err);
}

czk_status czk_gpu_srs_write(czk_gpu_srs *srs, czk_groth16_section sec, size_t first,
                             const void *pts, size_t n, czk_err *err)
{
    if (srs == nullptr || (unsigned)sec >= CZK_G16_SECTIONS)
        return czk_err_set(err, CZK_EINVAL, "gpu srs write: bad SRS or section");
    if (first > srs->res[sec] || n > srs->res[sec] - first)
        return czk_err_set(err, CZK_EINVAL,
                           "gpu srs write: %s points [%zu, %zu) are outside the %zu resident",
                           czk_groth16_section_name(sec), first, first + n, srs->res[sec]);
    if (n == 0) return CZK_OK;
    if (pts == nullptr) return czk_err_set(err, CZK_EINVAL, "gpu srs write: NULL points");
    TRY_STATUS(select_gpu(srs->gpu, err));
    const size_t el = section_elem(sec);
    uint8_t *dst = (uint8_t *)const_cast<void *>(czk__gpu_bases_dev(srs->sec[sec])) + first * el;
    CZK_CUDA_TRY(err, cudaMemcpy(dst, pts, n * el, cudaMemcpyHostToDevice));
    return CZK_OK;
}

void czk_gpu_srs_set_host(czk_gpu_srs *srs, czk_groth16_section sec, const void *tail)
{
    if (srs != nullptr && (unsigned)sec < CZK_G16_SECTIONS) srs->host[sec] = tail;
}

void *czk__gpu_srs_dev(czk_gpu_srs *srs, czk_groth16_section sec)
{
    if (srs == nullptr || (unsigned)sec >= CZK_G16_SECTIONS || srs->res[sec] == 0) return nullptr;
    return const_cast<void *>(czk__gpu_bases_dev(srs->sec[sec]));
}

size_t czk_gpu_srs_resident(const czk_gpu_srs *srs, czk_groth16_section sec)
{
    return srs != nullptr && (unsigned)sec < CZK_G16_SECTIONS ? srs->res[sec] : 0;
}

czk_status czk_gpu_srs_fixed_base(czk_gpu_srs *srs, czk_groth16_section sec, size_t first,
                                  const czk_fr *k, size_t n, czk_err *err)
{
    czk_gpu_bases *b;
    size_t len;
    int group;
    if (srs == nullptr || !srs_section(srs, sec, &b, &len, &group))
        return czk_err_set(err, CZK_EINVAL, "gpu srs fixed-base: bad SRS or section");
    if (first > len || n > len - first)
        return czk_err_set(err, CZK_EINVAL,
                           "gpu srs fixed-base: [%zu, %zu) is outside the section's %zu points",
                           first, first + n, len);
    if (n == 0) return CZK_OK;
    if (k == nullptr) return czk_err_set(err, CZK_EINVAL, "gpu srs fixed-base: NULL scalars");
    size_t elem = group == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
    /* The handle is this SRS's own memory: writing through it is how it gets filled. */
    uint8_t *dst = (uint8_t *)const_cast<void *>(czk__gpu_bases_dev(b)) + first * elem;
    return czk__gpu_fixed_base_dev(srs->gpu, group, dst, k, n, err);
}

czk_status czk_gpu_srs_download(const czk_gpu_srs *srs, czk_groth16_section sec, size_t first,
                                size_t count, void *out, czk_err *err)
{
    czk_gpu_bases *b;
    size_t len;
    int group;
    if (srs == nullptr || !srs_section(srs, sec, &b, &len, &group))
        return czk_err_set(err, CZK_EINVAL, "gpu srs download: bad SRS or section");
    if (first > len || count > len - first)
        return czk_err_set(err, CZK_EINVAL,
                           "gpu srs download: %s points [%zu, %zu) are outside the %zu resident",
                           czk_groth16_section_name(sec), first, first + count, len);
    if (count == 0) return CZK_OK;
    return czk_gpu_bases_download(b, first, count, out, err);
}

void czk_gpu_srs_destroy(czk_gpu_srs *srs) { srs_free(srs); }

uint64_t czk_gpu_srs_bytes(const czk_gpu_srs *srs) { return srs != nullptr ? srs->bytes : 0; }

int czk_gpu_srs_gpu(const czk_gpu_srs *srs) { return srs != nullptr ? srs->gpu : -1; }

czk_status czk_gpu_prove(czk_groth16_proof *out, int gpu, const czk_groth16_params *pk,
                         const czk_gpu_srs *srs, const czk_groth16_assignment *asg,
                         const czk_fr *r, const czk_fr *s, czk_pool *pool,
                         czk_groth16_timings *t, czk_err *err)
{
    return prove(out, gpu, pk, srs, asg, r, s, pool, nullptr, t, nullptr, err);
}

czk_status czk_gpu_prove_ex(czk_groth16_proof *out, int gpu, const czk_groth16_params *pk,
                            const czk_gpu_srs *srs, const czk_groth16_assignment *asg,
                            const czk_fr *r, const czk_fr *s, czk_pool *pool,
                            const czk_gpu_prove_opts *opts, czk_groth16_timings *t,
                            czk_gpu_prove_stats *stats, czk_err *err)
{
    return prove(out, gpu, pk, srs, asg, r, s, pool, opts, t, stats, err);
}

/* Copy rate host → device (src/groth16/gpu_prove.cuh). */
czk_status czk__gpu_h2d_rate(int gpu, void *const *host, size_t nbuf, size_t bytes, int pooled,
                             double *gbps, czk_err *err)
{
    TRY_STATUS(select_gpu(gpu, err));
    struct guard {
        void *d[8] = {};
        bool pooled = false; /* d from the pool: given back on st[0] before it goes */
        cudaStream_t st[8] = {};
        cudaEvent_t e0 = nullptr, e1 = nullptr;
        ~guard()
        {
            if (pooled && st[0] != nullptr)
                for (void *&p : d)
                    if (p != nullptr) {
                        cudaFreeAsync(p, st[0]);
                        p = nullptr;
                    }
            for (cudaStream_t s : st)
                if (s != nullptr) {
                    cudaStreamSynchronize(s);
                    cudaStreamDestroy(s);
                }
            for (void *p : d)
                if (p != nullptr) cudaFree(p);
            if (e0) cudaEventDestroy(e0);
            if (e1) cudaEventDestroy(e1);
            (void)cudaGetLastError();
        }
    } gd;
    if (nbuf == 0 || nbuf > 8) return czk_err_set(err, CZK_EINVAL, "h2d rate: 1..8 buffers");
    /* Touch the device buffers first, so that no first-write page mapping is timed. (On an
     * H200 this copy into cudaMalloc buffers measured 49-51 GB/s with or without it, while
     * the prover's 16.7 GB of copies into its pooled buffers ran at 55.5 GB/s; `pooled`
     * measures the latter's destination.) */
    CZK_CUDA_TRY(err, cudaStreamCreateWithFlags(&gd.st[0], cudaStreamNonBlocking));
    cudaMemPool_t pool = nullptr;
    if (pooled) TRY_STATUS(czk__gpu_mem_pool(gpu, &pool, err));
    gd.pooled = pooled != 0;
    for (size_t i = 0; i < nbuf; i++) {
        if (pooled)
            CZK_CUDA_TRY(err, cudaMallocFromPoolAsync(&gd.d[i], bytes, pool, gd.st[0]));
        else
            CZK_CUDA_TRY(err, cudaMalloc(&gd.d[i], bytes));
        CZK_CUDA_TRY(err, cudaMemsetAsync(gd.d[i], 0, bytes, gd.st[0]));
    }
    CZK_CUDA_TRY(err, cudaStreamSynchronize(gd.st[0]));
    CZK_CUDA_TRY(err, cudaDeviceSynchronize());
    CZK_CUDA_TRY(err, cudaEventCreate(&gd.e0));
    CZK_CUDA_TRY(err, cudaEventCreate(&gd.e1));
    /* One stream: the copies queue behind each other on the one copy engine that serves a
     * direction anyway, and the rate is the link's. */
    CZK_CUDA_TRY(err, cudaEventRecord(gd.e0, gd.st[0]));
    for (size_t i = 0; i < nbuf; i++)
        CZK_CUDA_TRY(err, cudaMemcpyAsync(gd.d[i], host[i], bytes, cudaMemcpyHostToDevice, gd.st[0]));
    CZK_CUDA_TRY(err, cudaEventRecord(gd.e1, gd.st[0]));
    CZK_CUDA_TRY(err, cudaEventSynchronize(gd.e1));
    float ms = 0;
    CZK_CUDA_TRY(err, cudaEventElapsedTime(&ms, gd.e0, gd.e1));
    *gbps = (double)nbuf * (double)bytes / (ms * 1e-3) / 1e9;
    return CZK_OK;
}

} /* extern "C" */
