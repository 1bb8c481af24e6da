/*
 * Multi-scalar multiplication on the GPU: Pippenger with signed windows over G1 and G2,
 * with the Groth16 split of 0 and 1 scalars. The public API is in include/czk/gpu.h.
 *
 * One MSM, all on one stream:
 *  1. classify: each scalar with its density bit set is reduced mod r and sorted into
 *     "zero" (dropped), "one" (its base index goes to a list that one batch addition sums)
 *     and "significant" (its scalar index and base index go on through Pippenger). The
 *     base index of scalar i is the number of density bits set before i, from a scan of the
 *     bitmap's word popcounts. Compaction is cub::DeviceSelect (stable order). The counts
 *     come back to the host once, to size everything after.
 *  2. for each window w of c_w bits (the W = ceil(256/c) windows get widths c or c − 1
 *     that add up to 256, to shrink step 4: msm_kernels.cuh, win_split): a Booth digit d
 *     in [−2^(c_w−1), 2^(c_w−1)] per significant scalar, stored as key |d| − 1 (zero digits
 *     get the key 2^(c−1), which sorts last and is skipped) and value base index | sign <<
 *     31; cub::DeviceRadixSort over c key bits puts each window's entries in bucket order.
 *  3. bucket accumulation, balanced whatever the scalars: the sorted entries of a window are
 *     cut into chunks of L; one thread per chunk walks it adding ±base into an XYZZ
 *     accumulator (8M + 2S per point) and writes each bucket it finishes. A bucket that
 *     began in an earlier chunk is not the thread's to write: its partial sum goes to a carry
 *     slot instead, and a few short passes ("levels") fold the carries into their buckets the
 *     same way. So a bucket holding most of the points (many equal scalars) costs the same
 *     as uniform buckets; no thread waits on a long bucket.
 *  4. bucket reduction: sum_j (j + 1)·B_j per window, each window cut into segments; a
 *     thread does the running sum over its segment (2 additions per bucket) and adds
 *     lo·(segment sum) for its offset; the segments of a window are folded by the same
 *     carry passes. The window sums and the ones' sum come back to the host, which
 *     combines them with c_w doublings per window (Horner) using the CPU library.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <new>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "check.cuh"
#include "czk/gpu.h"
#include "czk/msm.h"
#include "ec.cuh"
#include "gpu_internal.h"
#include "msm_kernels.cuh"
#include "ones_affine.cuh"

using namespace czk_gpu;
using namespace czk_gpu::msm;

namespace {

constexpr int EC_THREADS = 128; /* curve kernels: register-heavy, small blocks */
constexpr int SIMPLE_THREADS = 256;

/* One-line kernels around the bodies in msm_kernels.cuh. */
__global__ void density_popc_kernel(const uint64_t *density, size_t n, size_t nwords,
                                    uint32_t *counts)
{
    density_popc_body((size_t)blockIdx.x * blockDim.x + threadIdx.x, density, n, nwords, counts);
}

__global__ void classify_kernel(const czk_scalar *scalars, size_t n, const uint64_t *density,
                                const uint32_t *prefix, uint64_t *ik, uint8_t *fsig,
                                uint8_t *fone)
{
    classify_body((size_t)blockIdx.x * blockDim.x + threadIdx.x, scalars, n, density, prefix, ik,
                  fsig, fone);
}

__global__ void digits_group_kernel(const czk_scalar *scalars, const uint64_t *sig_ik,
                                    uint32_t nsig, win_split ws, unsigned w0, unsigned w1,
                                    uint32_t zkey, uint32_t *keys0, uint32_t *vals0,
                                    uint32_t *keys, uint32_t *vals)
{
    digits_group_body(blockIdx.x * blockDim.x + threadIdx.x, scalars, sig_ik, nsig, ws, w0, w1,
                      zkey, keys0, vals0, keys, vals);
}

/* Bucket accumulation asks ptxas for one resident block per SM, which leaves it every
 * register it wants (G1 196, G2 246: 8 warps an SM): capped at 168 for 3 blocks (12 warps) the
 * kernels spill, and on an H200 G1 2^26 took 417.1 ms against 411.3, G2 2^24 495.8 against
 * 447.1. */
template <class F>
__global__ void __launch_bounds__(EC_THREADS, 1)
    bucket_acc_kernel(const affine_t<F> *bases, const uint32_t *keys, const uint32_t *vals,
                      uint32_t nsig, uint32_t chunks, uint32_t nwin, uint32_t L, uint32_t nb,
                      xyzz_t<F> *buckets, uint32_t *ckeys, xyzz_t<F> *cpts, uint32_t g0,
                      uint32_t gend, uint32_t w_base)
{
    /* Threads [g0, gend) of the nwin·chunks: a group of windows; keys and vals start at
     * window w_base. */
    uint32_t g = g0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= gend) return;
    bucket_acc_body<F>(g, bases, keys, vals, nsig, chunks, nwin, L, nb, buckets, ckeys, cpts,
                       w_base);
}

template <class F>
__global__ void __launch_bounds__(EC_THREADS)
    fold_kernel(const uint32_t *keys, const xyzz_t<F> *pts, uint32_t m, uint32_t L,
                xyzz_t<F> *out, uint32_t *okeys, xyzz_t<F> *opts)
{
    fold_body<F>(blockIdx.x * blockDim.x + threadIdx.x, keys, pts, m, L, out, okeys, opts);
}

template <class F>
__global__ void __launch_bounds__(EC_THREADS)
    ones_kernel(const affine_t<F> *bases, const uint64_t *ik, uint32_t m, uint32_t L,
                uint32_t *okeys, xyzz_t<F> *opts)
{
    ones_body<F>(blockIdx.x * blockDim.x + threadIdx.x, bases, ik, m, L, okeys, opts);
}

/* The accumulator's gather (msm_acc) of significant scalars with their bases into the
 * compact set, and the compact set's index list (scalar i against base i). */
template <class F>
__global__ void gather_sig_kernel(const affine_t<F> *bases, const czk_scalar *scalars,
                                  const uint64_t *ik, uint32_t n, affine_t<F> *ob, czk_scalar *os)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint64_t v = ik[i];
    ob[i] = bases[(uint32_t)v];
    os[i] = scalars[v >> 32];
}

__global__ void iota_ik_kernel(uint64_t *ik, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ik[i] = (uint64_t)i << 32 | i;
}

/* The ones' batch-affine tree (cuda/ones_affine.cuh describes the steps). */
template <class F>
__global__ void __launch_bounds__(EC_THREADS)
    ones_prefix_kernel(ones::pt_src<F> src, uint32_t n, uint32_t K, F *pre, F *tot)
{
    ones::level_prefix_body<F>(blockIdx.x * blockDim.x + threadIdx.x, src, n, K, pre, tot);
}

template <class F>
__global__ void __launch_bounds__(EC_THREADS)
    ones_scan_up_kernel(const F *a, uint32_t n, uint32_t M, F *pre, F *next)
{
    ones::scan_up_body<F>(blockIdx.x * blockDim.x + threadIdx.x, a, n, M, pre, next);
}

template <class F> __global__ void ones_invert_kernel(F *x)
{
    ones::invert_body<F>(blockIdx.x * blockDim.x + threadIdx.x, x);
}

template <class F>
__global__ void __launch_bounds__(EC_THREADS)
    ones_scan_down_kernel(F *a, uint32_t n, uint32_t M, const F *pre, const F *next)
{
    ones::scan_down_body<F>(blockIdx.x * blockDim.x + threadIdx.x, a, n, M, pre, next);
}

template <class F>
__global__ void __launch_bounds__(EC_THREADS)
    ones_sum_kernel(ones::pt_src<F> src, uint32_t n, uint32_t K, const F *pre, const F *tot,
                    affine_t<F> *out)
{
    ones::level_sum_body<F>(blockIdx.x * blockDim.x + threadIdx.x, src, n, K, pre, tot, out);
}

template <class F>
__global__ void __launch_bounds__(EC_THREADS)
    ones_xyzz_kernel(const affine_t<F> *pts, uint32_t m, uint32_t L, uint32_t *okeys,
                     xyzz_t<F> *opts)
{
    ones::xyzz_sum_body<F>(blockIdx.x * blockDim.x + threadIdx.x, pts, m, L, okeys, opts);
}

template <class F>
__global__ void __launch_bounds__(EC_THREADS)
    bucket_sum_kernel(const xyzz_t<F> *buckets, uint32_t nwin, uint32_t nb, uint32_t wide,
                      uint32_t seg, uint32_t *okeys, xyzz_t<F> *opts)
{
    bucket_sum_body<F>(blockIdx.x * blockDim.x + threadIdx.x, buckets, nwin, nb, wide, seg,
                       okeys, opts);
}

/* ------------------------------------------------------------------------------------ */
/* Synthetic bases: P = H + t·D2 + j·D1                                                  */
/* ------------------------------------------------------------------------------------ */

constexpr int SYNTH_PER_THREAD = 32;
constexpr int SYNTH_GROUP = 16; /* points sharing one inversion */

template <class F>
__global__ void __launch_bounds__(EC_THREADS)
    synth_kernel(affine_t<F> *out, size_t n, affine_t<F> h, affine_t<F> d1, affine_t<F> d2)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t first = t * SYNTH_PER_THREAD;
    if (first >= n) return;
    jac_t<F> acc = jac_t<F>::inf();
    for (int b = 40; b >= 0; b--) {
        acc = acc.dbl();
        if ((t >> b) & 1) acc = acc.add_affine(d2);
    }
    acc = acc.add_affine(h);
    jac_t<F> pts[SYNTH_GROUP];
    F prod[SYNTH_GROUP];
    for (int g0 = 0; g0 < SYNTH_PER_THREAD; g0 += SYNTH_GROUP) {
        for (int j = 0; j < SYNTH_GROUP; j++) {
            pts[j] = acc;
            prod[j] = j == 0 ? acc.z : prod[j - 1] * acc.z;
            acc = acc.add_affine(d1);
        }
        /* One inversion for the group (Montgomery's trick); a zero Z (probability ~2^-255)
         * would zero the group, which then shows up as infinity bases. */
        F inv = prod[SYNTH_GROUP - 1].inv();
        for (int j = SYNTH_GROUP - 1; j >= 0; j--) {
            F zi = j > 0 ? inv * prod[j - 1] : inv;
            if (j > 0) inv = inv * pts[j].z;
            F zi2 = zi.sqr();
            size_t idx = first + g0 + j;
            if (idx < n) out[idx] = {pts[j].x * zi2, pts[j].y * zi2 * zi};
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* Self-test kernels                                                                    */
/* ------------------------------------------------------------------------------------ */

template <class O, class A, class B, class Op>
__global__ void eval2_kernel(O *out, const A *a, const B *b, size_t n, Op op)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = op(a[i], b[i]);
}

template <class T>
__global__ void mul_rate_kernel(T *data, unsigned reps)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    T a = data[2 * i], b = data[2 * i + 1];
    for (unsigned r = 0; r < reps; r++) a = a * b;
    data[2 * i] = a;
}

/* ------------------------------------------------------------------------------------ */
/* Host side: errors, streams, scratch                                                  */
/* ------------------------------------------------------------------------------------ */

} // namespace

namespace {

czk_status select_gpu(int gpu, czk_err *err)
{
    int n = czk_gpu_count();
    if (gpu < 0 || gpu >= n)
        return czk_err_set(err, CZK_ENOGPU, "GPU %d: %d device(s) present", gpu, n);
    CZK_CUDA_TRY(err, cudaSetDevice(gpu));
    return CZK_OK;
}

/* Everything one call allocates on its stream, released (stream-ordered) at the end. */
static thread_local uint64_t t_msm_scratch_cap = 0;

/* One MSM's device memory, from the per-GPU pool and within the calling thread's cap
 * (czk__gpu_set_thread_msm_scratch_cap; 0: none): over it, alloc fails as the device being
 * full would, and try_alloc declines. */
struct scratch {
    cudaStream_t st = nullptr;
    cudaMemPool_t pool = nullptr;
    void *ptrs[48];
    size_t sizes[48];
    int np = 0;
    uint64_t cap = t_msm_scratch_cap, used = 0;
    cudaEvent_t ev0 = nullptr, ev1 = nullptr;

    ~scratch()
    {
        for (int i = 0; i < np; i++) cudaFreeAsync(ptrs[i], st);
        if (st != nullptr) {
            cudaStreamSynchronize(st);
            cudaStreamDestroy(st);
        }
        if (ev0 != nullptr) cudaEventDestroy(ev0);
        if (ev1 != nullptr) cudaEventDestroy(ev1);
        (void)cudaGetLastError();
    }
    czk_status init(int gpu, czk_err *err)
    {
        TRY_STATUS(select_gpu(gpu, err));
        TRY_STATUS(czk__gpu_mem_pool(gpu, &pool, err));
        CZK_CUDA_TRY(err, cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking,
                                         czk__gpu_thread_msm_priority()));
        CZK_CUDA_TRY(err, cudaEventCreate(&ev0));
        CZK_CUDA_TRY(err, cudaEventCreate(&ev1));
        return CZK_OK;
    }
    template <class T> czk_status alloc(T **out, size_t count, czk_err *err)
    {
        if (np == (int)(sizeof ptrs / sizeof ptrs[0]))
            return czk_err_set(err, CZK_EINTERNAL, "msm: too many scratch buffers");
        void *p = nullptr;
        size_t bytes = count * sizeof(T);
        if (bytes == 0) bytes = 16;
        if (cap != 0 && used + bytes > cap)
            return czk_err_set(err, CZK_ERESOURCE,
                               "msm: %zu more bytes of scratch exceed the plan's %llu", bytes,
                               (unsigned long long)cap);
        CZK_CUDA_TRY(err, cudaMallocFromPoolAsync(&p, bytes, pool, st));
        sizes[np] = bytes;
        ptrs[np++] = p;
        used += bytes;
        *out = (T *)p;
        return CZK_OK;
    }
    /* As alloc, but running out of device memory is no error: false, nothing allocated. */
    template <class T> bool try_alloc(T **out, size_t count)
    {
        if (np == (int)(sizeof ptrs / sizeof ptrs[0])) return false;
        void *p = nullptr;
        size_t bytes = count * sizeof(T);
        if (bytes == 0) bytes = 16;
        if (cap != 0 && used + bytes > cap) return false;
        if (cudaMallocFromPoolAsync(&p, bytes, pool, st) != cudaSuccess) {
            (void)cudaGetLastError();
            return false;
        }
        sizes[np] = bytes;
        ptrs[np++] = p;
        used += bytes;
        *out = (T *)p;
        return true;
    }
    /* Give back (stream-ordered) everything allocated since np was `mark`. */
    void release_to(int mark)
    {
        while (np > mark) {
            --np;
            used -= sizes[np];
            cudaFreeAsync(ptrs[np], st);
        }
    }
};

/*
 * Page-locked host slots for an MSM's readbacks (its counts and its window sums). A copy
 * from the device into pageable memory returns only once it is done, and it goes through
 * the driver's staging memory, which copies on other threads then wait for. In the
 * partition prover (src/groth16/gpu_prove.cu) the H MSM's window readback, issued right behind its
 * kernels, held back the witness MSMs of other threads until the H MSM ended: in czkd on an
 * H200 each L MSM ended with the H MSM to the millisecond, its own device work 0.08 s of
 * the 0.9 s. Into a slot the copy is asynchronous, and the thread then waits with
 * cudaStreamSynchronize, which blocks only itself. Measured there: a proof's witness MSMs
 * done 0.5-1.5 s into its call instead of 1.2-2.6 s; the pipelined partition 1.177 ->
 * 1.121 s and one partition alone 1.369 -> 1.292 s (bench_gpu_prove --real). A slot is
 * taken per MSM and given back; slots are made on demand (as many as MSMs in flight at
 * once) and kept for the process.
 * Without a slot (cudaHostAlloc failed, or more than PIN_SLOTS MSMs at once) the readback
 * uses ordinary memory: correct, and only slower beside other proofs.
 */
constexpr size_t PIN_SLOT_BYTES = 32 << 10;
constexpr int PIN_SLOTS = 64;
pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
void *pin_free[PIN_SLOTS];
int pin_nfree, pin_made;

struct pinned_slot {
    void *p = nullptr;
    bool pinned = false;
    alignas(16) uint8_t fallback[PIN_SLOT_BYTES];

    pinned_slot()
    {
        pthread_mutex_lock(&pin_lock);
        if (pin_nfree > 0) {
            p = pin_free[--pin_nfree];
        } else if (pin_made < PIN_SLOTS) {
            if (cudaHostAlloc(&p, PIN_SLOT_BYTES, cudaHostAllocPortable) == cudaSuccess)
                pin_made++;
            else
                p = nullptr;
            (void)cudaGetLastError();
        }
        pthread_mutex_unlock(&pin_lock);
        pinned = p != nullptr;
        if (!pinned) p = fallback;
    }
    ~pinned_slot()
    {
        if (!pinned) return;
        pthread_mutex_lock(&pin_lock);
        pin_free[pin_nfree++] = p; /* at most pin_made ≤ PIN_SLOTS slots are out */
        pthread_mutex_unlock(&pin_lock);
    }
    pinned_slot(const pinned_slot &) = delete;
    pinned_slot &operator=(const pinned_slot &) = delete;
};

unsigned blocks_for(size_t n, int threads) { return (unsigned)((n + threads - 1) / threads); }

unsigned log2_floor(size_t x)
{
    unsigned r = 0;
    while (x >>= 1) r++;
    return r;
}

/* ------------------------------------------------------------------------------------ */
/* Group traits: device field, host types and host finishing                            */
/* ------------------------------------------------------------------------------------ */

struct g1_traits {
    using F = fp_t;
    using host_affine = czk_g1_affine;
    using host_xyzz = czk_g1_xyzz;
    using host_jac = czk_g1_jac;
    static constexpr int group = 1;
    /* Widest window: W·2^(c−1) buckets of 192 bytes; 22 bits = 4.8 GB of buckets. */
    static constexpr unsigned max_window = 22;
    static void dbl(host_xyzz *o, const host_xyzz *a) { czk_g1_xyzz_dbl(o, a); }
    static void add(host_xyzz *o, const host_xyzz *a, const host_xyzz *b)
    {
        czk_g1_xyzz_add(o, a, b);
    }
    static void set_inf(host_xyzz *o) { czk_g1_xyzz_set_inf(o); }
    static void to_jac(host_jac *o, const host_xyzz *a) { czk_g1_xyzz_to_jac(o, a); }
    static void jac_inf(host_jac *o) { czk_g1_jac_set_inf(o); }
    static void jac_add(host_jac *o, const host_jac *a, const host_jac *b) { czk_g1_jac_add(o, a, b); }
};
struct g2_traits {
    using F = fp2_t;
    using host_affine = czk_g2_affine;
    using host_xyzz = czk_g2_xyzz;
    using host_jac = czk_g2_jac;
    static constexpr int group = 2;
    /* 384-byte buckets: 20 bits = 2.6 GB. */
    static constexpr unsigned max_window = 20;
    static void dbl(host_xyzz *o, const host_xyzz *a) { czk_g2_xyzz_dbl(o, a); }
    static void add(host_xyzz *o, const host_xyzz *a, const host_xyzz *b)
    {
        czk_g2_xyzz_add(o, a, b);
    }
    static void set_inf(host_xyzz *o) { czk_g2_xyzz_set_inf(o); }
    static void to_jac(host_jac *o, const host_xyzz *a) { czk_g2_xyzz_to_jac(o, a); }
    static void jac_inf(host_jac *o) { czk_g2_jac_set_inf(o); }
    static void jac_add(host_jac *o, const host_jac *a, const host_jac *b) { czk_g2_jac_add(o, a, b); }
};

/*
 * Window width from the number of significant scalars: about log2(n) − 4, which balances
 * n·W bucket additions against W·2^c reduction additions (docs/gpu.md §6.1 puts
 * the G1 optimum at 16 bits for 2^20, 20 for 2^24 and 22 for 2^26..2^27). Measured on an
 * H200 (czk_gpu_tuning.msm_window, windows all of c bits then): 21 and 23 bits were 1–9% slower
 * than 22 at 2^26 and 2^27 (21 needs 13 windows, 23 doubles the reduction for the same 12),
 * and 21 was 9% slower than 20 for G2 at 2^24. Since the widths are split (win_split) the
 * 12 windows of c = 22 are 4 of 22 bits and 8 of 21, which took the reduction at 2^26 from
 * 40.2 to 28.1 ms and the MSM from 415.0 to 401.4 ms (2^27: 780.8 → 770.3 ms).
 */
template <class G> unsigned pick_window(size_t nsig)
{
    int c = (int)log2_floor(nsig) - 4;
    if (c < 4) c = 4;
    if (c > (int)G::max_window) c = (int)G::max_window;
    return (unsigned)c;
}

/* The tests' failure of the ones' tree scratch (czk__gpu_msm_fail_ones_alloc; 0: none). */
std::atomic<unsigned> g_fail_ones_alloc{0};

/* Fold carry entries (m of them, in ka/pa) into out[], level by level; kb/pb hold the
 * next level (at least ceil(m / FOLD_L) entries). */
constexpr uint32_t FOLD_L = 32;

template <class F>
czk_status fold_all(scratch &sc, uint32_t *ka, xyzz_t<F> *pa, uint32_t *kb, xyzz_t<F> *pb,
                    uint32_t m, xyzz_t<F> *out, czk_err *err)
{
    while (m > 0) {
        uint32_t chunks = (m + FOLD_L - 1) / FOLD_L;
        fold_kernel<F><<<blocks_for(chunks, EC_THREADS), EC_THREADS, 0, sc.st>>>(ka, pa, m, FOLD_L,
                                                                                out, kb, pb);
        CZK_CUDA_TRY_LAUNCH(err);
        if (chunks == 1) break;
        uint32_t *tk = ka;
        ka = kb;
        kb = tk;
        xyzz_t<F> *tp = pa;
        pa = pb;
        pb = tp;
        m = chunks;
    }
    return CZK_OK;
}

/* The scalars that classify() kept, on the device: scalar index << 32 | base index. */
struct classified {
    uint64_t *sig_ik = nullptr, *one_ik = nullptr;
    uint32_t nsig = 0, none = 0;
};

/*
 * 1. Classify and compact (the header's step 1): the significant scalars into sig_ik, the
 * ones into one_ik, and their counts back to the host through the readback slot. sc.ev0,
 * the start of the call's device time, is recorded after the density's upload.
 */
czk_status classify(scratch &sc, const pinned_slot &readback, const czk_scalar *scalars, size_t n,
                    const uint64_t *density_host, const uint64_t *density_dev, classified *cl,
                    czk_err *err)
{
    size_t nwords = (n + 63) / 64;
    size_t nalloc = n > 0 ? n : 1;

    uint64_t *density = nullptr;
    uint32_t *counts = nullptr, *prefix = nullptr, *nsel = nullptr;
    uint64_t *ik = nullptr, *sig_ik = nullptr, *one_ik = nullptr;
    uint8_t *fsig = nullptr, *fone = nullptr;
    TRY_STATUS(sc.alloc(&ik, nalloc, err));
    TRY_STATUS(sc.alloc(&sig_ik, nalloc, err));
    TRY_STATUS(sc.alloc(&one_ik, nalloc, err));
    TRY_STATUS(sc.alloc(&fsig, nalloc, err));
    TRY_STATUS(sc.alloc(&fone, nalloc, err));
    TRY_STATUS(sc.alloc(&nsel, 2, err));
    if (density_host != nullptr) {
        if (density_dev != nullptr)
            density = (uint64_t *)density_dev;
        else
            TRY_STATUS(sc.alloc(&density, nwords, err));
        TRY_STATUS(sc.alloc(&counts, nwords, err));
        TRY_STATUS(sc.alloc(&prefix, nwords, err));
    }
    /* CUB temporary storage: the largest of the scan and the two selections. */
    size_t tmp_scan = 0, tmp_sel = 0;
    CZK_CUDA_TRY(err, cub::DeviceScan::ExclusiveSum(nullptr, tmp_scan, counts, prefix, (int)nwords, sc.st));
    CZK_CUDA_TRY(err, cub::DeviceSelect::Flagged(nullptr, tmp_sel, ik, fsig, sig_ik, nsel, (int)n, sc.st));
    void *tmp1 = nullptr;
    size_t tmp1_bytes = tmp_scan > tmp_sel ? tmp_scan : tmp_sel;
    TRY_STATUS(sc.alloc((uint8_t **)&tmp1, tmp1_bytes, err));

    if (density_host != nullptr && density_dev == nullptr)
        CZK_CUDA_TRY(err, cudaMemcpyAsync(density, density_host, nwords * sizeof(uint64_t),
                            cudaMemcpyHostToDevice, sc.st));
    CZK_CUDA_TRY(err, cudaEventRecord(sc.ev0, sc.st));

    if (density_host != nullptr) {
        density_popc_kernel<<<blocks_for(nwords, SIMPLE_THREADS), SIMPLE_THREADS, 0, sc.st>>>(
            density, n, nwords, counts);
        CZK_CUDA_TRY_LAUNCH(err);
        CZK_CUDA_TRY(err, cub::DeviceScan::ExclusiveSum(tmp1, tmp_scan, counts, prefix, (int)nwords, sc.st));
    }
    uint32_t nsig = 0, none = 0;
    if (n > 0) {
        classify_kernel<<<blocks_for(n, SIMPLE_THREADS), SIMPLE_THREADS, 0, sc.st>>>(
            scalars, n, density, prefix, ik, fsig, fone);
        CZK_CUDA_TRY_LAUNCH(err);
        size_t t = tmp1_bytes;
        CZK_CUDA_TRY(err, cub::DeviceSelect::Flagged(tmp1, t, ik, fsig, sig_ik, nsel, (int)n, sc.st));
        t = tmp1_bytes;
        CZK_CUDA_TRY(err, cub::DeviceSelect::Flagged(tmp1, t, ik, fone, one_ik, nsel + 1, (int)n, sc.st));
        uint32_t *hc = (uint32_t *)readback.p;
        CZK_CUDA_TRY(err, cudaMemcpyAsync(hc, nsel, 2 * sizeof *hc, cudaMemcpyDeviceToHost, sc.st));
        CZK_CUDA_TRY(err, cudaStreamSynchronize(sc.st));
        nsig = hc[0];
        none = hc[1];
    }
    cl->sig_ik = sig_ik;
    cl->one_ik = one_ik;
    cl->nsig = nsig;
    cl->none = none;
    return CZK_OK;
}

/*
 * Windows are sorted and accumulated a group at a time, so that the sorted entries (8 bytes
 * per significant scalar and window) are held for one group, not for all windows: at 2^27
 * all 12 windows took 12.9 GB, and with two proofs' H MSMs on one H200 the partition prover
 * (src/groth16/gpu_prove.cu, room_for_next) then found no room to hand the GPU on. A group
 * holds at most KEYS_BUDGET bytes of entries (whole windows, at least one): at 2^27 four
 * windows (three groups), at 2^26 eight (two), at 2^24 all. The msm_group knob sets the
 * windows per group.
 */
template <class F>
uint32_t window_group(const scratch &sc, const czk_gpu_tuning &tu, uint32_t nsig, unsigned nwin,
                      uint32_t nb, uint32_t L)
{
    constexpr uint64_t KEYS_BUDGET = 4ull << 30;
    uint32_t gw = (uint32_t)(KEYS_BUDGET / (8ull * nsig));
    if (tu.msm_group != 0) gw = tu.msm_group;
    if (sc.cap != 0) {
        /* Under a scratch cap, fewer windows a group: what the group's entries may take
         * is what the cap leaves after the sort's temporaries, the buckets and the
         * carries of chunks of L entries. */
        const uint64_t X = sizeof(xyzz_t<F>);
        const uint64_t rest = 16ull * nsig + (uint64_t)nwin * nb * X +
                              ((uint64_t)nwin * (nsig / L + 1)) * (X + 4) * 33 / 32 +
                              (1ull << 17) * (X + 4) * 33 / 32;
        const uint64_t room = sc.cap > sc.used + rest ? sc.cap - sc.used - rest : 0;
        const uint64_t fit = room / (8ull * nsig);
        if (fit < gw) gw = (uint32_t)fit;
    }
    if (gw < 1) gw = 1;
    if (gw > nwin) gw = nwin;
    return gw;
}

/*
 * Chunk length: several average buckets, so most buckets are finished by the thread that
 * starts them: G1 eight, within [32, 512]; G2 four, within [32, 256]. On an H200 (msm_chunk
 * sweep, medians of 5) G1 2^26 took 431.3 ms at 256 or 512 against 433.9 at 128 and 443 at
 * 64, and 2^27 813.7 at 512 against 816.4 at 256 and 887 at 64; G2 2^24 was fastest at 128
 * (448.8 against 451.0 at 256).
 */
template <class G> uint32_t chunk_length(const czk_gpu_tuning &tu, uint32_t nsig, uint32_t nb)
{
    uint32_t avg = nsig / nb;
    const uint32_t chunk_mul = G::group == 1 ? 8 : 4, chunk_max = G::group == 1 ? 512 : 256;
    uint32_t L = 32;
    while (L < chunk_mul * avg && L < chunk_max) L <<= 1;
    if (tu.msm_chunk != 0) L = tu.msm_chunk;
    return L;
}

/*
 * 2. Digits and sorts of windows [w0, w1): one digits pass for the whole group, window w0's
 * entries in keys_tmp, the others' in their own slots of keys and vals, each sorted in place
 * through a double buffer with keys_tmp (copied back when the sort ends there); window w0
 * is sorted from keys_tmp into its slot. tmp2 is the sort's temporary storage.
 */
czk_status sort_windows(scratch &sc, const czk_scalar *scalars, const uint64_t *sig_ik,
                        uint32_t nsig, const win_split &ws, unsigned w0, unsigned w1, uint32_t nb,
                        unsigned c, uint32_t *keys_tmp, uint32_t *vals_tmp, uint32_t *keys,
                        uint32_t *vals, void *tmp2, size_t tmp_sort, czk_err *err)
{
    digits_group_kernel<<<blocks_for(nsig, SIMPLE_THREADS), SIMPLE_THREADS, 0, sc.st>>>(
        scalars, sig_ik, nsig, ws, w0, w1, nb, keys_tmp, vals_tmp, keys, vals);
    CZK_CUDA_TRY_LAUNCH(err);
    for (unsigned w = w0; w < w1; w++) {
        uint32_t *ko = keys + (size_t)(w - w0) * nsig, *vo = vals + (size_t)(w - w0) * nsig;
        size_t t = tmp_sort;
        if (w > w0) {
            cub::DoubleBuffer<uint32_t> dk(ko, keys_tmp), dv(vo, vals_tmp);
            CZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(tmp2, t, dk, dv, (int)nsig, 0, (int)c,
                                                sc.st));
            if (dk.Current() != ko)
                CZK_CUDA_TRY(err, cudaMemcpyAsync(ko, dk.Current(), (size_t)nsig * sizeof *ko,
                                    cudaMemcpyDeviceToDevice, sc.st));
            if (dv.Current() != vo)
                CZK_CUDA_TRY(err, cudaMemcpyAsync(vo, dv.Current(), (size_t)nsig * sizeof *vo,
                                    cudaMemcpyDeviceToDevice, sc.st));
            continue;
        }
        CZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(tmp2, t, keys_tmp, ko, vals_tmp, vo,
                                            (int)nsig, 0, (int)c, sc.st));
    }
    return CZK_OK;
}

/* 3. Bucket accumulation of windows [w0, w1), whose sorted entries keys and vals hold: the
 * buckets each chunk finishes, and a carry (cka, ca) for a bucket begun in the chunk before. */
template <class F>
czk_status accumulate(scratch &sc, const affine_t<F> *bases, const uint32_t *keys,
                      const uint32_t *vals, uint32_t nsig, uint32_t chunks, unsigned nwin,
                      uint32_t L, uint32_t nb, xyzz_t<F> *buckets, uint32_t *cka, xyzz_t<F> *ca,
                      unsigned w0, unsigned w1, czk_err *err)
{
    const uint32_t g0 = w0 * chunks, g1 = w1 * chunks;
    bucket_acc_kernel<F><<<blocks_for(g1 - g0, EC_THREADS), EC_THREADS, 0, sc.st>>>(
        bases, keys, vals, nsig, chunks, nwin, L, nb, buckets, cka, ca, g0, g1, w0);
    CZK_CUDA_TRY_LAUNCH(err);
    return CZK_OK;
}

/*
 * 4. Bucket reduction: sum_j (j + 1)·B_j of each window into win, in segments of buckets per
 * thread folded by the carry passes. Enough threads to fill the GPU (~64K), and at most 256
 * buckets each; only the narrow windows' lower half gets threads. On an H200 (G1, before the
 * split widths) 128-bucket segments reduced fastest at 2^24 (32 took 16.9 ms against 14.3:
 * more carries to fold) and 2^26 (512: 46 ms against 40); with the split, at 2^26, 256 (98K
 * threads, a third on empty buckets) took 27.2 ms against 28.8 for 128 and 42.7 for 1024
 * (msm_red_threads).
 */
template <class F>
czk_status reduce_windows(scratch &sc, const czk_gpu_tuning &tu, const xyzz_t<F> *buckets,
                          const win_split &ws, uint32_t nb, xyzz_t<F> *win, czk_err *err)
{
    using X = xyzz_t<F>;
    const unsigned nwin = ws.nwin;
    const uint32_t wide = ws.extra > 0 ? ws.extra : nwin; /* windows of nb buckets */
    const uint32_t nb_min = wide < nwin ? nb / 2 : nb;
    uint64_t red_threads = 65536;
    uint32_t seg_max = 256;
    if (tu.msm_red_threads != 0) {
        red_threads = tu.msm_red_threads;
        seg_max = 1u << 31; /* the knob alone decides */
    }
    uint32_t seg = 8;
    while (seg < nb_min && seg < seg_max &&
           bucket_sum_threads(nwin, nb, wide, seg) > red_threads)
        seg <<= 1;
    if (seg > nb_min) seg = nb_min;
    uint32_t nseg = bucket_sum_threads(nwin, nb, wide, seg);
    /* Reuse the carry buffers (m ≥ nseg is not guaranteed: allocate). */
    X *sa, *sb;
    uint32_t *ska, *skb;
    TRY_STATUS(sc.alloc(&sa, nseg, err));
    TRY_STATUS(sc.alloc(&ska, nseg, err));
    TRY_STATUS(sc.alloc(&sb, (nseg + FOLD_L - 1) / FOLD_L, err));
    TRY_STATUS(sc.alloc(&skb, (nseg + FOLD_L - 1) / FOLD_L, err));
    bucket_sum_kernel<F><<<blocks_for(nseg, EC_THREADS), EC_THREADS, 0, sc.st>>>(
        buckets, nwin, nb, wide, seg, ska, sa);
    CZK_CUDA_TRY_LAUNCH(err);
    TRY_STATUS(fold_all<F>(sc, ska, sa, skb, sb, nseg, win, err));
    return CZK_OK;
}

/*
 * 2..4. Pippenger over the nsig significant scalars into the window sums win: each group of
 * windows sorted, then accumulated, all on sc.st, so the next group's sorts overwrite keys
 * and vals only after they were read; then the carries folded into their buckets, and the
 * buckets reduced.
 */
template <class G>
czk_status pippenger(scratch &sc, const czk_gpu_tuning &tu, const affine_t<typename G::F> *bases,
                     const czk_scalar *scalars, const uint64_t *sig_ik, uint32_t nsig,
                     const win_split &ws, xyzz_t<typename G::F> *win, czk_err *err)
{
    using F = typename G::F;
    using X = xyzz_t<F>;
    const unsigned nwin = ws.nwin;
    const unsigned c = ws.max_width();
    const uint32_t nb = 1u << (c - 1);
    const uint32_t L = chunk_length<G>(tu, nsig, nb);
    const uint32_t gw = window_group<F>(sc, tu, nsig, nwin, nb, L);
    uint32_t *keys_tmp, *vals_tmp, *keys, *vals;
    TRY_STATUS(sc.alloc(&keys_tmp, nsig, err));
    TRY_STATUS(sc.alloc(&vals_tmp, nsig, err));
    TRY_STATUS(sc.alloc(&keys, (size_t)gw * nsig, err));
    TRY_STATUS(sc.alloc(&vals, (size_t)gw * nsig, err));
    size_t tmp_sort = 0, tmp_db = 0;
    CZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(nullptr, tmp_sort, keys_tmp, keys, vals_tmp, vals,
                                        (int)nsig, 0, (int)c, sc.st));
    {
        cub::DoubleBuffer<uint32_t> dk(keys, keys_tmp), dv(vals, vals_tmp);
        CZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(nullptr, tmp_db, dk, dv, (int)nsig, 0, (int)c,
                                            sc.st));
    }
    if (tmp_db > tmp_sort) tmp_sort = tmp_db;
    void *tmp2;
    TRY_STATUS(sc.alloc((uint8_t **)&tmp2, tmp_sort, err));

    uint32_t chunks = (nsig + L - 1) / L;
    uint32_t m = nwin * chunks;

    X *buckets, *ca, *cb;
    uint32_t *cka, *ckb;
    TRY_STATUS(sc.alloc(&buckets, (size_t)nwin * nb, err));
    TRY_STATUS(sc.alloc(&ca, m, err));
    TRY_STATUS(sc.alloc(&cka, m, err));
    TRY_STATUS(sc.alloc(&cb, (m + FOLD_L - 1) / FOLD_L, err));
    TRY_STATUS(sc.alloc(&ckb, (m + FOLD_L - 1) / FOLD_L, err));
    CZK_CUDA_TRY(err, cudaMemsetAsync(buckets, 0, (size_t)nwin * nb * sizeof(X), sc.st));

    for (unsigned w0 = 0; w0 < nwin; w0 += gw) {
        const unsigned w1 = w0 + gw < nwin ? w0 + gw : nwin;
        TRY_STATUS(sort_windows(sc, scalars, sig_ik, nsig, ws, w0, w1, nb, c, keys_tmp, vals_tmp,
                                keys, vals, tmp2, tmp_sort, err));
        TRY_STATUS(accumulate<F>(sc, bases, keys, vals, nsig, chunks, nwin, L, nb, buckets, cka,
                                 ca, w0, w1, err));
    }
    /* Carries: folded into their buckets, level by level. */
    TRY_STATUS(fold_all<F>(sc, cka, ca, ckb, cb, m, buckets, err));
    return reduce_windows<F>(sc, tu, buckets, ws, nb, win, err);
}

/* One level of the ones' tree (cuda/ones_affine.cuh): the n points of src to ceil(n/2) in
 * out, with one field inversion; pre and tv are the level's scratch. */
template <class F>
czk_status ones_level(scratch &sc, ones::pt_src<F> src, uint32_t n, uint32_t K, uint32_t M,
                      F *pre, F *tv, affine_t<F> *out, czk_err *err)
{
    const uint32_t T = ones::pass_threads(n / 2, K);
    const ones::tree_plan tp = ones::plan_tree(T, M);
    ones_prefix_kernel<F><<<blocks_for(T, EC_THREADS), EC_THREADS, 0, sc.st>>>(
        src, n, K, pre, tv + tp.vals[0]);
    CZK_CUDA_TRY_LAUNCH(err);
    for (uint32_t k = 0; k < tp.depth; k++) {
        ones_scan_up_kernel<F>
            <<<blocks_for(tp.n[k + 1], EC_THREADS), EC_THREADS, 0, sc.st>>>(
                tv + tp.vals[k], tp.n[k], M, tv + tp.pre[k], tv + tp.vals[k + 1]);
        CZK_CUDA_TRY_LAUNCH(err);
    }
    ones_invert_kernel<F><<<1, 1, 0, sc.st>>>(tv + tp.vals[tp.depth]);
    CZK_CUDA_TRY_LAUNCH(err);
    for (uint32_t k = tp.depth; k-- > 0;) {
        ones_scan_down_kernel<F>
            <<<blocks_for(tp.n[k + 1], EC_THREADS), EC_THREADS, 0, sc.st>>>(
                tv + tp.vals[k], tp.n[k], M, tv + tp.pre[k], tv + tp.vals[k + 1]);
        CZK_CUDA_TRY_LAUNCH(err);
    }
    ones_sum_kernel<F><<<blocks_for(T, EC_THREADS), EC_THREADS, 0, sc.st>>>(
        src, n, K, pre, tv + tp.vals[0], out);
    CZK_CUDA_TRY_LAUNCH(err);
    return CZK_OK;
}

/*
 * The ones: one batch addition into *ones. By default a tree of batch-affine additions
 * (cuda/ones_affine.cuh: 5M + 1S an addition against XYZZ's 8M + 2S) halves the points
 * level by level, one field inversion a level, until at most `stop` are left; the XYZZ
 * chunks and carry folds then sum those. Knobs (czk_gpu_tuning):
 *   msm_ones_stop  points left to the XYZZ path (default 2^22: below a few million
 *                  points a level's single inversion and its launches cost more than
 *                  the additions it saves; on an H200 the 90 % {0,1} MSM at 2^26, 30 M
 *                  ones, took 72.4 ms with 64K, 69.2 with 1M, 68.8 with 4M, 70.5 by
 *                  XYZZ alone)
 *   msm_ones_k     pairs per thread in a level (default 16)
 *   msm_ones_seg   most ones in one tree (0, the default: 4 GiB of tree buffers)
 * Memory: a tree over s points takes s/2 sums and s/4 for the next level (ping-pong) and
 * s/2 prefixes, 96 bytes a point for G1 and 192 for G2; more ones than a segment's worth
 * are summed as several trees, one after the other, their leftovers summed together.
 * *by_tree is how many the tree summed (all or none).
 */
template <class G>
czk_status sum_ones(scratch &sc, const czk_gpu_tuning &tu, const affine_t<typename G::F> *bases,
                    const uint64_t *one_ik, uint32_t none, xyzz_t<typename G::F> *ones,
                    size_t *by_tree, czk_err *err)
{
    using F = typename G::F;
    using X = xyzz_t<F>;
    using A = affine_t<F>;
    bool tree = true;
    const uint32_t stop = tu.msm_ones_stop, K = tu.msm_ones_k;
    /* Elements per thread in the tree of totals: its levels are 1/K of the pairs or
     * less, so their cost hardly matters; 32 keeps the tree shallow (at most 5 levels
     * above 2^25 totals). */
    const uint32_t M = 32;
    constexpr uint64_t SEG_BYTES = 4ull << 30;
    uint64_t seg_max = SEG_BYTES / (sizeof(A) / 2 + sizeof(A) / 4 + sizeof(F) / 2);
    if (tu.msm_ones_seg != 0) seg_max = tu.msm_ones_seg;
    if (seg_max < 2ull * stop) seg_max = 2ull * stop;

    const A *rest = bases;        /* what the XYZZ path sums: the bases through */
    const uint64_t *rest_ik = one_ik; /* rest_ik, or an array of points */
    uint32_t nrest = none;
    /* The tree's scratch (about 3.8 GB for a PoRep partition's 62 M ones in G1) is
     * optional: where the device has no room for it, the XYZZ path sums all the ones,
     * as it did before the tree, rather than failing the MSM. A test may make the tree's
     * k-th allocation fail (czk__gpu_msm_fail_ones_alloc), so that the ones allocated
     * before it are given back. */
    const unsigned fail_at = g_fail_ones_alloc.load(std::memory_order_relaxed);
    /* nseg segments whose sizes differ by at most 1: segment s is
     * [s·none/nseg, (s + 1)·none/nseg), at least seg_max/2 ≥ stop points (at least 2, as
     * a level needs) and at most seg. */
    const uint32_t nseg = (uint32_t)((none + seg_max - 1) / seg_max);
    const uint32_t seg = (uint32_t)(((uint64_t)none + nseg - 1) / nseg);
    const uint32_t half = (seg + 1) / 2;
    A *pa = nullptr, *pb = nullptr, *fin = nullptr;
    F *pre = nullptr, *tv = nullptr;
    ones::tree_plan big{};
    if (tree && none > stop) {
        big = ones::plan_tree(ones::pass_threads(seg / 2, K), M);
        const int mark = sc.np;
        /* Several segments leave their last levels side by side in fin; one leaves them
         * where its last level wrote them (no copy, and stop points less memory: 0.4 GB
         * for G1, 0.8 GB for G2 at the default stop). */
        unsigned k = 0;
        auto take = [&](auto **out, size_t count) {
            return ++k != fail_at && sc.try_alloc(out, count);
        };
        tree = take(&pa, half) && take(&pb, (half + 1) / 2) && take(&pre, seg / 2) &&
               take(&tv, big.size) && (nseg == 1 || take(&fin, (size_t)nseg * stop));
        if (!tree) sc.release_to(mark);
    }
    if (tree && none > stop) {
        uint32_t nfin = 0;
        for (uint32_t s = 0; s < nseg; s++) {
            const uint32_t s0 = (uint32_t)((uint64_t)s * none / nseg);
            uint32_t n = (uint32_t)((uint64_t)(s + 1) * none / nseg) - s0;
            ones::pt_src<F> src{bases, one_ik + s0};
            A *out = pa;
            do {
                TRY_STATUS(ones_level<F>(sc, src, n, K, M, pre, tv, out, err));
                n = (n + 1) / 2;
                src = ones::pt_src<F>{out, nullptr};
                out = out == pa ? pb : pa;
            } while (n > stop);
            if (nseg == 1) {
                fin = const_cast<A *>(src.pts);
            } else {
                CZK_CUDA_TRY(err, cudaMemcpyAsync(fin + nfin, src.pts, (size_t)n * sizeof(A),
                                    cudaMemcpyDeviceToDevice, sc.st));
            }
            nfin += n;
        }
        rest = fin;
        rest_ik = nullptr;
        nrest = nfin;
        *by_tree = none;
    }
    uint32_t L = 64;
    uint32_t chunks = (nrest + L - 1) / L;
    X *oa, *ob;
    uint32_t *oka, *okb;
    TRY_STATUS(sc.alloc(&oa, chunks, err));
    TRY_STATUS(sc.alloc(&oka, chunks, err));
    TRY_STATUS(sc.alloc(&ob, (chunks + FOLD_L - 1) / FOLD_L, err));
    TRY_STATUS(sc.alloc(&okb, (chunks + FOLD_L - 1) / FOLD_L, err));
    if (rest_ik != nullptr)
        ones_kernel<F><<<blocks_for(chunks, EC_THREADS), EC_THREADS, 0, sc.st>>>(
            rest, rest_ik, nrest, L, oka, oa);
    else
        ones_xyzz_kernel<F><<<blocks_for(chunks, EC_THREADS), EC_THREADS, 0, sc.st>>>(
            rest, nrest, L, oka, oa);
    CZK_CUDA_TRY_LAUNCH(err);
    TRY_STATUS(fold_all<F>(sc, oka, oa, okb, ob, chunks, ones, err));
    return CZK_OK;
}

/* Back to the host: the window sums and the ones' sum through the readback slot, combined
 * there with c_w doublings per window (Horner); sc.ev1 ends the call's device time. */
template <class G>
czk_status finish(scratch &sc, const pinned_slot &readback, const xyzz_t<typename G::F> *win,
                  const xyzz_t<typename G::F> *ones, const win_split &ws,
                  typename G::host_jac *out, czk_err *err)
{
    using X = xyzz_t<typename G::F>;
    const unsigned nwin = ws.nwin;
    typename G::host_xyzz hw[64], hones;
    static_assert(sizeof(typename G::host_xyzz) == sizeof(X), "layout");
    static_assert(65 * sizeof(X) <= PIN_SLOT_BYTES, "readback slot");
    X *rb = (X *)readback.p;
    CZK_CUDA_TRY(err, cudaMemcpyAsync(rb, win, nwin * sizeof(X), cudaMemcpyDeviceToHost, sc.st));
    CZK_CUDA_TRY(err, cudaMemcpyAsync(rb + 64, ones, sizeof(X), cudaMemcpyDeviceToHost, sc.st));
    CZK_CUDA_TRY(err, cudaEventRecord(sc.ev1, sc.st));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(sc.st));
    memcpy(hw, rb, nwin * sizeof(X));
    memcpy(&hones, rb + 64, sizeof(X));

    typename G::host_xyzz acc;
    G::set_inf(&acc);
    for (int w = (int)nwin - 1; w >= 0; w--) {
        /* Window w + 1 weighs 2^width(w) times window w. */
        if (w != (int)nwin - 1)
            for (unsigned k = 0; k < ws.width((unsigned)w); k++) G::dbl(&acc, &acc);
        G::add(&acc, &acc, &hw[w]);
    }
    G::add(&acc, &acc, &hones);
    G::to_jac(out, &acc);
    return CZK_OK;
}

/* An MSM's (or a piece's) sizes: fewer than 2^31 scalars, a base for each one the density
 * keeps; *need gets that count. */
czk_status check_sizes(size_t n, const uint64_t *density_host, size_t nbases, size_t *need,
                       czk_err *err)
{
    if (n >= ((size_t)1 << 31))
        return czk_err_set(err, CZK_EINVAL, "msm: %zu scalars, at most 2^31 - 1", n);
    *need = density_host != nullptr ? czk_density_count(density_host, n) : n;
    if (*need > nbases)
        return czk_err_set(err, CZK_EINVAL, "msm: %zu bases needed, %zu given", *need, nbases);
    return CZK_OK;
}

/* One MSM (the header's steps): classify, then Pippenger over the significant scalars and
 * the batch addition of the ones, then the sums back to the host. */
template <class G>
czk_status msm_device(int gpu, typename G::host_jac *out, const affine_t<typename G::F> *bases,
                      size_t nbases, const czk_scalar *scalars, size_t n,
                      const uint64_t *density_host, const uint64_t *density_dev,
                      czk_gpu_msm_stats *stats, czk_err *err)
{
    using F = typename G::F;
    using X = xyzz_t<F>;
    if (out == nullptr) return czk_err_set(err, CZK_EINVAL, "msm: out is NULL");
    size_t need = 0;
    TRY_STATUS(check_sizes(n, density_host, nbases, &need, err));

    /* The tuning knobs, once a call (cuda/tuning.c); zeros leave the choices below. */
    czk_gpu_tuning tu;
    czk_gpu_get_tuning(&tu);
    /* Before the scratch: its destructor waits for the stream, so a copy still bound for
     * the slot (an error path) lands before the slot is given back. */
    pinned_slot readback;
    scratch sc;
    TRY_STATUS(sc.init(gpu, err));
    classified cl;
    TRY_STATUS(classify(sc, readback, scalars, n, density_host, density_dev, &cl, err));
    const uint32_t nsig = cl.nsig, none = cl.none;

    unsigned c = pick_window<G>(nsig > 0 ? nsig : 1);
    if (tu.msm_window != 0) c = tu.msm_window;
    /* ceil(256/c) windows of as equal widths as possible (msm_kernels.cuh, win_split), at
     * most c bits; c from here on is the widest. */
    const win_split ws = split_windows(c);
    const unsigned nwin = ws.nwin;
    c = ws.max_width();

    X *win = nullptr, *ones = nullptr;
    TRY_STATUS(sc.alloc(&win, nwin, err));
    TRY_STATUS(sc.alloc(&ones, 1, err));
    CZK_CUDA_TRY(err, cudaMemsetAsync(win, 0, nwin * sizeof(X), sc.st));
    CZK_CUDA_TRY(err, cudaMemsetAsync(ones, 0, sizeof(X), sc.st));
    if (nsig > 0) TRY_STATUS(pippenger<G>(sc, tu, bases, scalars, cl.sig_ik, nsig, ws, win, err));
    size_t ones_by_tree = 0;
    if (none > 0)
        TRY_STATUS(sum_ones<G>(sc, tu, bases, cl.one_ik, none, ones, &ones_by_tree, err));
    TRY_STATUS(finish<G>(sc, readback, win, ones, ws, out, err));

    if (stats != nullptr) {
        float ms = 0;
        CZK_CUDA_TRY(err, cudaEventElapsedTime(&ms, sc.ev0, sc.ev1));
        stats->n_sig = nsig;
        stats->n_one = none;
        stats->n_one_tree = ones_by_tree;
        stats->n_zero = need - nsig - none;
        stats->window_bits = c;
        stats->windows = nwin;
        stats->device_ms = ms;
    }
    return CZK_OK;
}

/*
 * An MSM whose bases come in pieces, for mostly-0/1 scalars (the partition prover's witness
 * MSMs over bases it streams or cuts into calls): each piece is classified, its significant
 * scalars gathered with their bases into one compact set, and its ones added into one sum
 * on the device; the end runs one Pippenger over the compact set. Calls of their own paid
 * for a Pippenger every piece: on an H200 a PoRep partition's L profile (1.3 % significant,
 * 47 % ones) took 49.2 ms in one call of 2^27 and 8 × 14.7 ms in calls of 2^24, of which the
 * significant scalars 8 × 8.9 against 23.2 ms whole (bench_gpu_msm --witness). Taking the
 * ones' trees further down each piece (to 2^16 points, kept for one sum at the end) cost
 * more than it saved: 92.2 ms in pieces against 6.2 ms of ones a piece alone, each level
 * having a fixed cost of its own. A compact set that fills up, or a piece with more
 * significant scalars than it holds, is summed on its own and added on the host. All of it
 * is within the thread's scratch cap; an error leaves the accumulator unusable (the caller
 * starts over another way).
 */
constexpr size_t ACC_SIG_BYTES = 320ull << 20; /* the compact set: bases and scalars */
/* Tests only (czk__gpu_msm_acc_set_limit; 0: the default above). */
std::atomic<uint32_t> g_acc_sig{0};

template <class G> struct msm_acc {
    using F = typename G::F;
    using X = xyzz_t<F>;
    using A = affine_t<F>;
    czk_gpu_tuning tu;
    pinned_slot readback; /* before sc: its destructor waits for the stream */
    scratch sc;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    A *sig_b = nullptr;
    czk_scalar *sig_s = nullptr;
    X *ones = nullptr;
    uint32_t nsig = 0, cap_sig = 0;
    typename G::host_jac total;
    czk_gpu_msm_stats st{};

    ~msm_acc()
    {
        if (e0 != nullptr) cudaEventDestroy(e0);
        if (e1 != nullptr) cudaEventDestroy(e1);
    }

    /* n_hint: the most scalars the pieces will hold (the compact set needs no more). */
    czk_status begin(int gpu, size_t n_hint, czk_err *err)
    {
        czk_gpu_get_tuning(&tu);
        TRY_STATUS(sc.init(gpu, err));
        CZK_CUDA_TRY(err, cudaEventCreate(&e0));
        CZK_CUDA_TRY(err, cudaEventCreate(&e1));
        const uint32_t ts = g_acc_sig.load();
        cap_sig = ts != 0 ? ts : (uint32_t)(ACC_SIG_BYTES / (sizeof(A) + sizeof(czk_scalar)));
        const uint32_t hint = n_hint < (1u << 31) ? (uint32_t)(n_hint > 0 ? n_hint : 1) : 1u << 31;
        if (hint < cap_sig) cap_sig = hint;
        TRY_STATUS(sc.alloc(&sig_b, cap_sig, err));
        TRY_STATUS(sc.alloc(&sig_s, cap_sig, err));
        TRY_STATUS(sc.alloc(&ones, 1, err));
        CZK_CUDA_TRY(err, cudaMemsetAsync(ones, 0, sizeof(X), sc.st));
        G::jac_inf(&total);
        return CZK_OK;
    }

    /* Pippenger over n significant scalars (ik: scalar index << 32 | base index) into the
     * host total, with the ones' sum too when with_ones. */
    czk_status part(const A *bases, const czk_scalar *scalars, const uint64_t *ik, uint32_t n,
                    bool with_ones, czk_err *err)
    {
        const int mark = sc.np;
        unsigned c = pick_window<G>(n > 0 ? n : 1);
        if (tu.msm_window != 0) c = tu.msm_window;
        const win_split ws = split_windows(c);
        X *win = nullptr, *z = ones;
        TRY_STATUS(sc.alloc(&win, ws.nwin, err));
        CZK_CUDA_TRY(err, cudaMemsetAsync(win, 0, ws.nwin * sizeof(X), sc.st));
        if (!with_ones) {
            TRY_STATUS(sc.alloc(&z, 1, err));
            CZK_CUDA_TRY(err, cudaMemsetAsync(z, 0, sizeof(X), sc.st));
        }
        if (n > 0) TRY_STATUS(pippenger<G>(sc, tu, bases, scalars, ik, n, ws, win, err));
        typename G::host_jac r;
        TRY_STATUS(finish<G>(sc, readback, win, z, ws, &r, err));
        add_total(&r);
        st.window_bits = ws.max_width();
        st.windows = ws.nwin;
        st.calls++;
        sc.release_to(mark);
        return CZK_OK;
    }

    /* The compact set's Pippenger, emptying it. */
    czk_status flush_sig(bool with_ones, czk_err *err)
    {
        const int mark = sc.np;
        uint64_t *ik = nullptr;
        TRY_STATUS(sc.alloc(&ik, nsig > 0 ? nsig : 1, err));
        if (nsig > 0) {
            iota_ik_kernel<<<blocks_for(nsig, SIMPLE_THREADS), SIMPLE_THREADS, 0, sc.st>>>(ik, nsig);
            CZK_CUDA_TRY_LAUNCH(err);
        }
        TRY_STATUS(part(sig_b, sig_s, ik, nsig, with_ones, err));
        sc.release_to(mark);
        nsig = 0;
        return CZK_OK;
    }

    void add_total(const typename G::host_jac *r) { G::jac_add(&total, &total, r); }

    /* The device time since e0 was recorded on the stream, into the stats, once done. */
    czk_status tally_time(czk_err *err)
    {
        CZK_CUDA_TRY(err, cudaEventRecord(e1, sc.st));
        CZK_CUDA_TRY(err, cudaEventSynchronize(e1));
        float ms = 0;
        CZK_CUDA_TRY(err, cudaEventElapsedTime(&ms, e0, e1));
        st.device_ms += ms;
        return CZK_OK;
    }

    czk_status add(const A *bases, size_t nbases, const czk_scalar *scalars, size_t n,
                   const uint64_t *density_host, const uint64_t *density_dev, czk_err *err)
    {
        size_t need = 0;
        TRY_STATUS(check_sizes(n, density_host, nbases, &need, err));
        const int mark = sc.np;
        CZK_CUDA_TRY(err, cudaEventRecord(e0, sc.st));
        classified cl;
        TRY_STATUS(classify(sc, readback, scalars, n, density_host, density_dev, &cl, err));
        st.n_sig += cl.nsig;
        st.n_one += cl.none;
        st.n_zero += need - cl.nsig - cl.none;
        if (cl.nsig > cap_sig) {
            TRY_STATUS(part(bases, scalars, cl.sig_ik, cl.nsig, false, err));
        } else if (cl.nsig > 0) {
            if (nsig + cl.nsig > cap_sig) TRY_STATUS(flush_sig(false, err));
            gather_sig_kernel<F><<<blocks_for(cl.nsig, SIMPLE_THREADS), SIMPLE_THREADS, 0, sc.st>>>(
                bases, scalars, cl.sig_ik, cl.nsig, sig_b + nsig, sig_s + nsig);
            CZK_CUDA_TRY_LAUNCH(err);
            nsig += cl.nsig;
        }
        if (cl.none > 0) {
            size_t by_tree = 0;
            TRY_STATUS(sum_ones<G>(sc, tu, bases, cl.one_ik, cl.none, ones, &by_tree, err));
            st.n_one_tree += by_tree;
        }
        TRY_STATUS(tally_time(err));
        st.calls++;
        sc.release_to(mark);
        return CZK_OK;
    }

    czk_status end(typename G::host_jac *out, czk_gpu_msm_stats *stats, czk_err *err)
    {
        CZK_CUDA_TRY(err, cudaEventRecord(e0, sc.st));
        TRY_STATUS(flush_sig(true, err));
        TRY_STATUS(tally_time(err));
        *out = total;
        if (stats != nullptr) *stats = st;
        return CZK_OK;
    }
};

} // namespace

/* ------------------------------------------------------------------------------------ */
/* Handles                                                                              */
/* ------------------------------------------------------------------------------------ */

struct czk_gpu_bases {
    int gpu;
    int group;
    size_t n;
    void *d;
};

struct czk_gpu_scalars {
    int gpu;
    size_t n;
    czk_scalar *d;
};

namespace {

czk_status bases_alloc(int gpu, int group, size_t n, czk_gpu_bases **out, czk_err *err)
{
    TRY_STATUS(select_gpu(gpu, err));
    czk_gpu_bases *b = (czk_gpu_bases *)calloc(1, sizeof *b);
    if (b == nullptr) return czk_err_set(err, CZK_ENOMEM, "bases handle");
    b->gpu = gpu;
    b->group = group;
    b->n = n;
    size_t elem = group == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
    cudaError_t e = cudaMalloc(&b->d, (n > 0 ? n : 1) * elem);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        free(b);
        return czk__cuda_fail(err, e, "cudaMalloc(bases)", __FILE__, __LINE__);
    }
    *out = b;
    return CZK_OK;
}

czk_status bases_upload(int gpu, int group, const void *host, size_t n, czk_gpu_bases **out,
                        czk_err *err)
{
    if (out == nullptr || (host == nullptr && n > 0))
        return czk_err_set(err, CZK_EINVAL, "bases upload: NULL argument");
    czk_gpu_bases *b;
    TRY_STATUS(bases_alloc(gpu, group, n, &b, err));
    size_t elem = group == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
    cudaError_t e = cudaMemcpy(b->d, host, n * elem, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        czk_gpu_bases_destroy(b);
        return czk__cuda_fail(err, e, "cudaMemcpy(bases)", __FILE__, __LINE__);
    }
    *out = b;
    return CZK_OK;
}

/* Random subgroup point [k]G from a splitmix64 stream (CPU; a few per call). */
uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
void random_fr(czk_fr *k, uint64_t *s)
{
    uint8_t w[64];
    for (int i = 0; i < 8; i++) {
        uint64_t v = splitmix(s);
        memcpy(w + 8 * i, &v, 8);
    }
    czk_fr_from_wide_bytes(k, w);
}

template <class G>
czk_status synthesize(int gpu, size_t n, uint64_t seed, void *dout, cudaStream_t st, czk_err *err)
{
    using F = typename G::F;
    typename G::host_affine pts[3];
    uint64_t s = seed;
    for (int i = 0; i < 3; i++) {
        czk_fr k;
        random_fr(&k, &s);
        if (G::group == 1) {
            czk_g1_jac j, g;
            czk_g1_jac_from_affine(&g, &CZK_G1_GENERATOR);
            czk_g1_jac_mul_fr(&j, &g, &k);
            czk_g1_jac_to_affine((czk_g1_affine *)&pts[i], &j);
        } else {
            czk_g2_jac j, g;
            czk_g2_jac_from_affine(&g, &CZK_G2_GENERATOR);
            czk_g2_jac_mul_fr(&j, &g, &k);
            czk_g2_jac_to_affine((czk_g2_affine *)&pts[i], &j);
        }
    }
    affine_t<F> h, d1, d2;
    memcpy(&h, &pts[0], sizeof h);
    memcpy(&d1, &pts[1], sizeof d1);
    memcpy(&d2, &pts[2], sizeof d2);
    size_t threads = (n + SYNTH_PER_THREAD - 1) / SYNTH_PER_THREAD;
    if (threads > 0) {
        synth_kernel<F><<<blocks_for(threads, EC_THREADS), EC_THREADS, 0, st>>>(
            (affine_t<F> *)dout, n, h, d1, d2);
        CZK_CUDA_TRY_LAUNCH(err);
    }
    CZK_CUDA_TRY(err, cudaStreamSynchronize(st));
    return CZK_OK;
}

template <class G>
czk_status msm_resident(typename G::host_jac *out, const czk_gpu_bases *bases,
                        const czk_gpu_scalars *scalars, size_t n, const uint64_t *density,
                        czk_gpu_msm_stats *stats, czk_err *err)
{
    if (bases == nullptr || scalars == nullptr)
        return czk_err_set(err, CZK_EINVAL, "msm: NULL handle");
    if (bases->group != G::group)
        return czk_err_set(err, CZK_EINVAL, "msm: bases are G%d, not G%d", bases->group,
                           G::group);
    if (bases->gpu != scalars->gpu)
        return czk_err_set(err, CZK_EINVAL, "msm: bases on GPU %d, scalars on GPU %d",
                           bases->gpu, scalars->gpu);
    if (n > scalars->n)
        return czk_err_set(err, CZK_EINVAL, "msm: %zu scalars asked, %zu uploaded", n,
                           scalars->n);
    return msm_device<G>(bases->gpu, out, (const affine_t<typename G::F> *)bases->d, bases->n,
                         scalars->d, n, density, nullptr, stats, err);
}

template <class G>
czk_status msm_host(int gpu, typename G::host_jac *out, const typename G::host_affine *bases,
                    const czk_scalar *scalars, size_t n, const uint64_t *density, czk_err *err)
{
    if (out == nullptr || (n > 0 && (bases == nullptr || scalars == nullptr)))
        return czk_err_set(err, CZK_EINVAL, "msm: NULL argument");
    size_t nb = density != nullptr ? czk_density_count(density, n) : n;
    czk_gpu_bases *b = nullptr;
    czk_gpu_scalars *s = nullptr;
    czk_status st = bases_upload(gpu, G::group, bases, nb, &b, err);
    if (st == CZK_OK) st = czk_gpu_scalars_upload(gpu, scalars, n, &s, err);
    if (st == CZK_OK) st = msm_resident<G>(out, b, s, n, density, nullptr, err);
    czk_gpu_scalars_destroy(s);
    czk_gpu_bases_destroy(b);
    return st;
}

} // namespace

extern "C" {

czk_status czk_gpu_g1_bases_upload(int gpu, const czk_g1_affine *bases, size_t n,
                                   czk_gpu_bases **out, czk_err *err)
{
    return bases_upload(gpu, 1, bases, n, out, err);
}

czk_status czk_gpu_g2_bases_upload(int gpu, const czk_g2_affine *bases, size_t n,
                                   czk_gpu_bases **out, czk_err *err)
{
    return bases_upload(gpu, 2, bases, n, out, err);
}

czk_status czk_gpu_bases_synthesize(int gpu, int group, size_t n, uint64_t seed,
                                    czk_gpu_bases **out, czk_err *err)
{
    if (out == nullptr || (group != 1 && group != 2))
        return czk_err_set(err, CZK_EINVAL, "synthesize: group %d", group);
    czk_gpu_bases *b;
    TRY_STATUS(bases_alloc(gpu, group, n, &b, err));
    cudaStream_t st;
    cudaError_t e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        czk_gpu_bases_destroy(b);
        return czk__cuda_fail(err, e, "cudaStreamCreate", __FILE__, __LINE__);
    }
    czk_status s = group == 1 ? synthesize<g1_traits>(gpu, n, seed, b->d, st, err)
                              : synthesize<g2_traits>(gpu, n, seed, b->d, st, err);
    cudaStreamDestroy(st);
    if (s != CZK_OK) {
        czk_gpu_bases_destroy(b);
        return s;
    }
    *out = b;
    return CZK_OK;
}

czk_status czk_gpu_bases_download(const czk_gpu_bases *b, size_t first, size_t count, void *out,
                                  czk_err *err)
{
    if (b == nullptr || out == nullptr || first > b->n || count > b->n - first)
        return czk_err_set(err, CZK_EINVAL, "bases download: range out of bounds");
    TRY_STATUS(select_gpu(b->gpu, err));
    size_t elem = b->group == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
    CZK_CUDA_TRY(err, cudaMemcpy(out, (const uint8_t *)b->d + first * elem, count * elem,
                   cudaMemcpyDeviceToHost));
    return CZK_OK;
}

size_t czk_gpu_bases_count(const czk_gpu_bases *b) { return b != nullptr ? b->n : 0; }

void czk_gpu_bases_destroy(czk_gpu_bases *b)
{
    if (b == nullptr) return;
    cudaSetDevice(b->gpu);
    cudaFree(b->d);
    (void)cudaGetLastError();
    free(b);
}

czk_status czk_gpu_scalars_upload(int gpu, const czk_scalar *scalars, size_t n,
                                  czk_gpu_scalars **out, czk_err *err)
{
    if (out == nullptr || (scalars == nullptr && n > 0))
        return czk_err_set(err, CZK_EINVAL, "scalars upload: NULL argument");
    TRY_STATUS(select_gpu(gpu, err));
    czk_gpu_scalars *s = (czk_gpu_scalars *)calloc(1, sizeof *s);
    if (s == nullptr) return czk_err_set(err, CZK_ENOMEM, "scalars handle");
    s->gpu = gpu;
    s->n = n;
    cudaError_t e = cudaMalloc(&s->d, (n > 0 ? n : 1) * sizeof(czk_scalar));
    if (e == cudaSuccess && n > 0)
        e = cudaMemcpy(s->d, scalars, n * sizeof(czk_scalar), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        czk_gpu_scalars_destroy(s);
        return czk__cuda_fail(err, e, "scalars upload", __FILE__, __LINE__);
    }
    *out = s;
    return CZK_OK;
}

void czk_gpu_scalars_destroy(czk_gpu_scalars *s)
{
    if (s == nullptr) return;
    cudaSetDevice(s->gpu);
    cudaFree(s->d);
    (void)cudaGetLastError();
    free(s);
}

czk_status czk_gpu_g1s_msm_resident(czk_g1_jac *out, const czk_gpu_bases *bases,
                                    const czk_gpu_scalars *scalars, size_t n,
                                    const uint64_t *density, czk_gpu_msm_stats *stats,
                                    czk_err *err)
{
    return msm_resident<g1_traits>(out, bases, scalars, n, density, stats, err);
}

czk_status czk_gpu_g2s_msm_resident(czk_g2_jac *out, const czk_gpu_bases *bases,
                                    const czk_gpu_scalars *scalars, size_t n,
                                    const uint64_t *density, czk_gpu_msm_stats *stats,
                                    czk_err *err)
{
    return msm_resident<g2_traits>(out, bases, scalars, n, density, stats, err);
}

czk_status czk_gpu_g1s_msm(int gpu, czk_g1_jac *out, const czk_g1_affine *bases,
                           const czk_scalar *scalars, size_t n, const uint64_t *density,
                           czk_err *err)
{
    return msm_host<g1_traits>(gpu, out, bases, scalars, n, density, err);
}

czk_status czk_gpu_g2s_msm(int gpu, czk_g2_jac *out, const czk_g2_affine *bases,
                           const czk_scalar *scalars, size_t n, const uint64_t *density,
                           czk_err *err)
{
    return msm_host<g2_traits>(gpu, out, bases, scalars, n, density, err);
}

void czk__gpu_set_thread_msm_scratch_cap(uint64_t bytes) { t_msm_scratch_cap = bytes; }

uint64_t czk__gpu_thread_msm_scratch_cap(void) { return t_msm_scratch_cap; }

void czk__gpu_msm_fail_ones_alloc(unsigned k) { g_fail_ones_alloc.store(k, std::memory_order_relaxed); }

} /* extern "C" */

/* ------------------------------------------------------------------------------------ */
/* Self-tests (cuda/gpu_internal.h)                                                     */
/* ------------------------------------------------------------------------------------ */

namespace {

template <class O, class A, class B, class Op>
czk_status eval_run(void *out, const void *a, const void *b, size_t n, Op op, czk_err *err)
{
    O *dout;
    A *da;
    B *db;
    CZK_CUDA_TRY(err, cudaMalloc(&dout, n * sizeof(O)));
    cudaError_t e = cudaMalloc(&da, n * sizeof(A));
    if (e == cudaSuccess) e = cudaMalloc(&db, n * sizeof(B));
    else db = nullptr;
    if (e == cudaSuccess) e = cudaMemcpy(da, a, n * sizeof(A), cudaMemcpyHostToDevice);
    if (e == cudaSuccess && b != nullptr) e = cudaMemcpy(db, b, n * sizeof(B), cudaMemcpyHostToDevice);
    if (e == cudaSuccess && b == nullptr) e = cudaMemset(db, 0, n * sizeof(B));
    if (e == cudaSuccess) {
        eval2_kernel<O, A, B, Op><<<blocks_for(n, 64), 64>>>(dout, da, db, n, op);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(out, dout, n * sizeof(O), cudaMemcpyDeviceToHost);
    cudaFree(dout);
    cudaFree(da);
    cudaFree(db);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return czk__cuda_fail(err, e, "gpu eval", __FILE__, __LINE__);
    }
    return CZK_OK;
}

/* Device functors for czk__gpu_eval (no extended lambdas needed). */
#define CZK_EVAL_OP(name, expr)                                                                \
    struct name {                                                                              \
        template <class O, class A, class B>                                                   \
        __device__ O apply(const A &x, const B &y) const                                       \
        {                                                                                      \
            (void)y;                                                                           \
            expr;                                                                              \
        }                                                                                      \
    };
CZK_EVAL_OP(op_mul, return x * y)
CZK_EVAL_OP(op_sqr, return x.sqr())
CZK_EVAL_OP(op_add, return x + y)
CZK_EVAL_OP(op_sub, return x - y)
CZK_EVAL_OP(op_neg, return -x)
CZK_EVAL_OP(op_inv, return x.inv())
CZK_EVAL_OP(op_xyzz_madd, O r = x; r.add_affine(y); return r)
CZK_EVAL_OP(op_xyzz_add, O r = x; r.add(y); return r)
CZK_EVAL_OP(op_dbl, return x.dbl())
CZK_EVAL_OP(op_jac_madd, return x.add_affine(y))
CZK_EVAL_OP(op_jac_add, return x.add(y))
#undef CZK_EVAL_OP

template <class O, class A, class B, class Op> struct bound_op {
    __device__ O operator()(const A &x, const B &y) const { return Op().template apply<O, A, B>(x, y); }
};

#define EVAL(O, A, B, OP) eval_run<O, A, B>(out, a, b, n, bound_op<O, A, B, OP>(), err)

} // namespace

extern "C" czk_status czk__gpu_eval(int gpu, czk__gpu_op op, void *out, const void *a,
                                    const void *b, size_t n, czk_err *err)
{
    TRY_STATUS(select_gpu(gpu, err));
    if (n == 0) return CZK_OK;
    using A1 = affine_t<fp_t>;
    using X1 = xyzz_t<fp_t>;
    using J1 = jac_t<fp_t>;
    using A2 = affine_t<fp2_t>;
    using X2 = xyzz_t<fp2_t>;
    using J2 = jac_t<fp2_t>;
    switch (op) {
    case CZK__GPU_FP_MUL: return EVAL(fp_t, fp_t, fp_t, op_mul);
    case CZK__GPU_FP_SQR: return EVAL(fp_t, fp_t, fp_t, op_sqr);
    case CZK__GPU_FP_ADD: return EVAL(fp_t, fp_t, fp_t, op_add);
    case CZK__GPU_FP_SUB: return EVAL(fp_t, fp_t, fp_t, op_sub);
    case CZK__GPU_FP_NEG: return EVAL(fp_t, fp_t, fp_t, op_neg);
    case CZK__GPU_FP_INV: return EVAL(fp_t, fp_t, fp_t, op_inv);
    case CZK__GPU_FR_MUL: return EVAL(fr_t, fr_t, fr_t, op_mul);
    case CZK__GPU_FR_SQR: return EVAL(fr_t, fr_t, fr_t, op_sqr);
    case CZK__GPU_FR_ADD: return EVAL(fr_t, fr_t, fr_t, op_add);
    case CZK__GPU_FR_SUB: return EVAL(fr_t, fr_t, fr_t, op_sub);
    case CZK__GPU_FR_INV: return EVAL(fr_t, fr_t, fr_t, op_inv);
    case CZK__GPU_FP2_MUL: return EVAL(fp2_t, fp2_t, fp2_t, op_mul);
    case CZK__GPU_FP2_SQR: return EVAL(fp2_t, fp2_t, fp2_t, op_sqr);
    case CZK__GPU_FP2_INV: return EVAL(fp2_t, fp2_t, fp2_t, op_inv);
    case CZK__GPU_G1_XYZZ_ADD_AFFINE: return EVAL(X1, X1, A1, op_xyzz_madd);
    case CZK__GPU_G1_XYZZ_ADD: return EVAL(X1, X1, X1, op_xyzz_add);
    case CZK__GPU_G1_XYZZ_DBL: return EVAL(X1, X1, X1, op_dbl);
    case CZK__GPU_G1_JAC_ADD_AFFINE: return EVAL(J1, J1, A1, op_jac_madd);
    case CZK__GPU_G1_JAC_ADD: return EVAL(J1, J1, J1, op_jac_add);
    case CZK__GPU_G1_JAC_DBL: return EVAL(J1, J1, J1, op_dbl);
    case CZK__GPU_G2_XYZZ_ADD_AFFINE: return EVAL(X2, X2, A2, op_xyzz_madd);
    case CZK__GPU_G2_XYZZ_ADD: return EVAL(X2, X2, X2, op_xyzz_add);
    case CZK__GPU_G2_XYZZ_DBL: return EVAL(X2, X2, X2, op_dbl);
    case CZK__GPU_G2_JAC_ADD_AFFINE: return EVAL(J2, J2, A2, op_jac_madd);
    case CZK__GPU_G2_JAC_ADD: return EVAL(J2, J2, J2, op_jac_add);
    case CZK__GPU_G2_JAC_DBL: return EVAL(J2, J2, J2, op_dbl);
    default: break;
    }
    return czk_err_set(err, CZK_EINVAL, "gpu eval: unknown op %d", (int)op);
}

extern "C" czk_status czk__gpu_ff_mul_rate(int gpu, int field, unsigned reps,
                                           double *muls_per_s, czk_err *err)
{
    TRY_STATUS(select_gpu(gpu, err));
    cudaDeviceProp prop;
    CZK_CUDA_TRY(err, cudaGetDeviceProperties(&prop, gpu));
    size_t threads = (size_t)prop.multiProcessorCount * 2048;
    size_t elem = field == 0 ? sizeof(fp_t) : sizeof(fr_t);
    void *d;
    CZK_CUDA_TRY(err, cudaMalloc(&d, 2 * threads * elem));
    /* Every limb 0x11111111: below both moduli, so a valid (reduced) element. */
    cudaError_t e = cudaMemset(d, 0x11, 2 * threads * elem);
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    float ms = 0;
    if (e == cudaSuccess) e = cudaEventCreate(&e0);
    if (e == cudaSuccess) e = cudaEventCreate(&e1);
    for (int pass = 0; pass < 2 && e == cudaSuccess; pass++) { /* warm-up, then timed */
        cudaEventRecord(e0);
        if (field == 0)
            mul_rate_kernel<fp_t><<<blocks_for(threads, 256), 256>>>((fp_t *)d, reps);
        else
            mul_rate_kernel<fr_t><<<blocks_for(threads, 256), 256>>>((fr_t *)d, reps);
        e = cudaGetLastError();
        cudaEventRecord(e1);
        if (e == cudaSuccess) e = cudaEventSynchronize(e1);
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, e0, e1);
    }
    if (e0 != nullptr) cudaEventDestroy(e0);
    if (e1 != nullptr) cudaEventDestroy(e1);
    cudaFree(d);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return czk__cuda_fail(err, e, "mul rate", __FILE__, __LINE__);
    }
    *muls_per_s = (double)threads * reps / (ms * 1e-3);
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Device-pointer entry points for the Groth16 prover (cuda/gpu_internal.h)             */
/* ------------------------------------------------------------------------------------ */

extern "C" const void *czk__gpu_bases_dev(const czk_gpu_bases *b)
{
    return b != nullptr ? b->d : nullptr;
}

extern "C" const czk_scalar *czk__gpu_scalars_dev(const czk_gpu_scalars *s)
{
    return s != nullptr ? s->d : nullptr;
}

extern "C" czk_status czk__gpu_bases_alloc(int gpu, int group, size_t n, czk_gpu_bases **out,
                                           czk_err *err)
{
    if (out == nullptr || (group != 1 && group != 2))
        return czk_err_set(err, CZK_EINVAL, "bases alloc: bad argument");
    *out = nullptr;
    return bases_alloc(gpu, group, n, out, err);
}

/* The accumulator's handle: one of the two groups' (cuda/gpu_internal.h). */
struct czk__gpu_msm_acc {
    int group;
    msm_acc<g1_traits> *g1 = nullptr;
    msm_acc<g2_traits> *g2 = nullptr;
};

extern "C" czk_status czk__gpu_msm_acc_begin(int gpu, int group, size_t n_hint,
                                             czk__gpu_msm_acc **out, czk_err *err)
{
    *out = nullptr;
    if (group != 1 && group != 2) return czk_err_set(err, CZK_EINVAL, "msm: group %d", group);
    czk__gpu_msm_acc *a = new (std::nothrow) czk__gpu_msm_acc;
    if (a == nullptr) return czk_err_set(err, CZK_ENOMEM, "msm: out of host memory");
    a->group = group;
    czk_status st;
    if (group == 1) {
        a->g1 = new (std::nothrow) msm_acc<g1_traits>;
        st = a->g1 != nullptr ? a->g1->begin(gpu, n_hint, err)
                              : czk_err_set(err, CZK_ENOMEM, "msm: out of host memory");
    } else {
        a->g2 = new (std::nothrow) msm_acc<g2_traits>;
        st = a->g2 != nullptr ? a->g2->begin(gpu, n_hint, err)
                              : czk_err_set(err, CZK_ENOMEM, "msm: out of host memory");
    }
    if (st != CZK_OK) {
        czk__gpu_msm_acc_free(a);
        return st;
    }
    *out = a;
    return CZK_OK;
}

extern "C" czk_status czk__gpu_msm_acc_add(czk__gpu_msm_acc *a, const void *bases_dev,
                                           size_t nbases, const czk_scalar *scalars_dev, size_t n,
                                           const uint64_t *density, const uint64_t *density_dev,
                                           czk_err *err)
{
    if (a == nullptr || bases_dev == nullptr || (scalars_dev == nullptr && n > 0))
        return czk_err_set(err, CZK_EINVAL, "msm: NULL accumulator or device pointer");
    if (n == 0) return CZK_OK;
    if (a->group == 1)
        return a->g1->add((const affine_t<fp_t> *)bases_dev, nbases, scalars_dev, n, density,
                          density_dev, err);
    return a->g2->add((const affine_t<fp2_t> *)bases_dev, nbases, scalars_dev, n, density,
                      density_dev, err);
}

extern "C" czk_status czk__gpu_msm_acc_end(czk__gpu_msm_acc *a, void *out,
                                           czk_gpu_msm_stats *stats, czk_err *err)
{
    if (a == nullptr || out == nullptr)
        return czk_err_set(err, CZK_EINVAL, "msm: NULL accumulator or result");
    if (a->group == 1) return a->g1->end((czk_g1_jac *)out, stats, err);
    return a->g2->end((czk_g2_jac *)out, stats, err);
}

extern "C" void czk__gpu_msm_acc_free(czk__gpu_msm_acc *a)
{
    if (a == nullptr) return;
    delete a->g1;
    delete a->g2;
    delete a;
}

extern "C" void czk__gpu_msm_acc_set_limit(uint32_t sig) { g_acc_sig.store(sig); }

extern "C" czk_status czk__gpu_msm_dev(int gpu, int group, void *out, const void *bases_dev,
                                       size_t nbases, const czk_scalar *scalars_dev, size_t n,
                                       const uint64_t *density, const uint64_t *density_dev,
                                       czk_gpu_msm_stats *stats, czk_err *err)
{
    if (bases_dev == nullptr || (scalars_dev == nullptr && n > 0))
        return czk_err_set(err, CZK_EINVAL, "msm: NULL device pointer");
    if (group == 1)
        return msm_device<g1_traits>(gpu, (czk_g1_jac *)out, (const affine_t<fp_t> *)bases_dev,
                                     nbases, scalars_dev, n, density, density_dev, stats, err);
    if (group == 2)
        return msm_device<g2_traits>(gpu, (czk_g2_jac *)out, (const affine_t<fp2_t> *)bases_dev,
                                     nbases, scalars_dev, n, density, density_dev, stats, err);
    return czk_err_set(err, CZK_EINVAL, "msm: group %d", group);
}
