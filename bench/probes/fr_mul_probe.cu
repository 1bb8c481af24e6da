/*
 * Fr multiplication variants on the GPU: rate and agreement. ptxas fuses a PTX
 * mad.lo.cc / madc.hi.cc pair into one IMAD.WIDE.U32.X only in some contexts; an H200 SASS
 * dump of czk's Fr multiply showed about half of its pairs left as IMAD.X + IMAD.HI.U32.X
 * (the high half at half rate), against nearly all fused for Fp. This probe times the same
 * CIOS code with the modulus and the reduction in different forms to find what blocks the
 * fusion:
 *   A  czk's fr_t (constant-memory modulus with an initializer, r = 1 mod 2^32 reduction)
 *   B  the same modulus, the generic reduction (q = x0 · m0)
 *   C  the modulus in constant memory filled at run time (opaque to the compiler), r = 1 path
 *   D  run-time modulus, generic reduction
 *   E, F  the product and the Montgomery reduction as two passes (mul_wide, redc_wide),
 *         constant and run-time modulus
 * and Fp: fp_t as it is, with a run-time modulus, and as two passes.
 * Each kernel runs CHAINS independent dependent-multiply chains per thread; results of all
 * variants must agree bit for bit. The CMake target fr_mul_probe (a CUDA build with the
 * benchmarks); `bash bench/run.sh msm` runs it.
 */
#include <cstdio>
#include <cstring>
#include <vector>

#include "ff.cuh"

using namespace czk_gpu;

__constant__ u32s<8> rt_mod_d;
__constant__ u32s<8> rt_one_d;
__constant__ u32s<8> rt_rr_d;
__constant__ u32s<8> rt_pm2_d;
__constant__ uint32_t rt_m0_d;

struct pB : fr_params {
    static constexpr bool low_word_one = false;
};
struct pC : fr_params {
    static __device__ __forceinline__ const uint32_t *mod() { return rt_mod_d.v; }
    static __device__ __forceinline__ const uint32_t *one() { return rt_one_d.v; }
    static __device__ __forceinline__ const uint32_t *rr() { return rt_rr_d.v; }
    static __device__ __forceinline__ uint32_t m0() { return rt_m0_d; }
    static __device__ __forceinline__ const uint32_t *pm2() { return rt_pm2_d.v; }
};
struct pD : pC {
    static constexpr bool low_word_one = false;
};

/* Fp with its modulus and m0 uploaded at run time. */
__constant__ u32s<12> rt_fp_mod_d;
__constant__ uint32_t rt_fp_m0_d;
struct qB : fp_params {
    static __device__ __forceinline__ const uint32_t *mod() { return rt_fp_mod_d.v; }
    static __device__ __forceinline__ uint32_t m0() { return rt_fp_m0_d; }
};

constexpr int CHAINS = 4;

template <class P, bool WIDE> __device__ __forceinline__ mont_t<P> mul(const mont_t<P> &a,
                                                                      const mont_t<P> &b)
{
    if (!WIDE) return a * b;
    uint32_t w[2 * P::n];
    mont_t<P> r;
    mont_t<P>::mul_wide(w, a.v, b.v);
    mont_t<P>::redc_wide(r.v, w);
    return r;
}

template <class P, bool WIDE = false>
__global__ void rate_kernel(const uint32_t *in, uint32_t *out, unsigned reps)
{
    using F = mont_t<P>;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    constexpr int N = P::n;
    F a[CHAINS], b;
    for (int k = 0; k < N; k++) b.v[k] = in[(i * (CHAINS + 1) + CHAINS) * 12 + k];
    for (int c = 0; c < CHAINS; c++)
        for (int k = 0; k < N; k++) a[c].v[k] = in[(i * (CHAINS + 1) + c) * 12 + k];
    for (unsigned r = 0; r < reps; r++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++) a[c] = mul<P, WIDE>(a[c], b);
    for (int c = 0; c < CHAINS; c++)
        for (int k = 0; k < N; k++) out[(i * CHAINS + c) * 12 + k] = a[c].v[k];
}

template <class P, bool WIDE = false>
double run(const char *name, const uint32_t *din, uint32_t *dout, size_t threads, unsigned reps,
           std::vector<uint32_t> &host)
{
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    rate_kernel<P, WIDE><<<threads / 256, 256>>>(din, dout, 4); /* warm-up */
    cudaEventRecord(e0);
    rate_kernel<P, WIDE><<<threads / 256, 256>>>(din, dout, reps);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        printf("%s: %s\n", name, cudaGetErrorString(e));
        return 0;
    }
    host.resize(threads * CHAINS * 12);
    cudaMemcpy(host.data(), dout, host.size() * 4, cudaMemcpyDeviceToHost);
    double rate = (double)threads * CHAINS * reps / (ms * 1e-3);
    printf("%-50s %8.2f G mul/s\n", name, rate / 1e9);
    return rate;
}

int main()
{
    cudaMemcpyToSymbol(rt_mod_d, &fr_mod_h, sizeof fr_mod_h);
    cudaMemcpyToSymbol(rt_one_d, &fr_one_h, sizeof fr_one_h);
    cudaMemcpyToSymbol(rt_rr_d, &fr_rr_h, sizeof fr_rr_h);
    cudaMemcpyToSymbol(rt_pm2_d, &fr_pm2_h, sizeof fr_pm2_h);
    cudaMemcpyToSymbol(rt_m0_d, &fr_m0_h, sizeof fr_m0_h);
    const size_t threads = 132 * 2048;
    const unsigned reps = 2000;
    cudaMemcpyToSymbol(rt_fp_mod_d, &fp_mod_h, sizeof fp_mod_h);
    cudaMemcpyToSymbol(rt_fp_m0_d, &fp_m0_h, sizeof fp_m0_h);
    std::vector<uint32_t> in(threads * (CHAINS + 1) * 12);
    uint64_t s = 0x1234567;
    for (size_t i = 0; i < in.size(); i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        in[i] = (uint32_t)(s >> 32);
        if (i % 12 == 7) in[i] &= 0x3fffffff; /* < 2^254 < r (Fr reads words 0..7) */
        if (i % 12 == 11) in[i] &= 0x0fffffff; /* < 2^380 < p */
    }
    uint32_t *din, *dout;
    cudaMalloc(&din, in.size() * 4);
    cudaMalloc(&dout, threads * CHAINS * 48);
    cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice);
    std::vector<uint32_t> ra, rb, rc, rd, re, rf;
    run<fr_params>("A czk fr_t (const modulus, r=1 mod 2^32 path)", din, dout, threads, reps, ra);
    run<pB>("B const modulus, generic reduction", din, dout, threads, reps, rb);
    run<pC>("C run-time modulus, r=1 path", din, dout, threads, reps, rc);
    run<pD>("D run-time modulus, generic reduction", din, dout, threads, reps, rd);
    run<fr_params, true>("E wide product + separate REDC, const modulus", din, dout, threads,
                         reps, re);
    run<pC, true>("F wide product + separate REDC, run-time modulus", din, dout, threads, reps,
                  rf);
    bool same = ra == rb && ra == rc && ra == rd && ra == re && ra == rf;
    std::vector<uint32_t> qa, qb, qe;
    run<fp_params>("Fp A czk fp_t (const modulus)", din, dout, threads, reps / 2, qa);
    run<qB>("Fp B run-time modulus", din, dout, threads, reps / 2, qb);
    run<fp_params, true>("Fp E wide product + separate REDC", din, dout, threads, reps / 2, qe);
    same = same && qa == qb && qa == qe;
    printf("results %s\n", same ? "agree" : "DIFFER");
    return same ? 0 : 1;
}
