/* GPU discovery through the CUDA runtime, and the one path CUDA failures take (check.cuh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.cuh"
#include "czk/gpu.h"
#include "gpu_internal.h"

extern "C" bool czk_gpu_built(void) { return true; }

czk_status czk__cuda_fail(czk_err *err, cudaError_t e, const char *what, const char *file,
                          int line)
{
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation)
        return czk_err_set(err, CZK_ERESOURCE, "%s at %s:%d: out of GPU memory", what, file,
                           line);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
        return czk_err_set(err, CZK_ENOGPU, "%s: %s", what, cudaGetErrorString(e));
    return czk_err_set(err, CZK_ECUDA, "%s failed at %s:%d: %s (%s)", what, file, line,
                       cudaGetErrorString(e), cudaGetErrorName(e));
}

/*
 * Host threads that wait for a GPU sleep instead of spinning. With one context and many
 * CPUs CUDA's default ("auto") spins, so every thread waiting for a kernel or a copy burns
 * a core: the prover's two waiting threads took cores from synthesis, which on a 16-core
 * H200 host keeps pace with the GPU only barely. A blocking wait costs microseconds per
 * synchronisation, against a proof of 1.5 s; in czkd on an H200 synthesis took 4.3 s a
 * partition against 5.8 with spinning waits. The spin_wait knob keeps CUDA's default.
 */
static void set_blocking_sync(void)
{
    if (czk__gpu_tuning_take_spin_wait()) return;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    for (int d = 0; d < n; d++) {
        if (cudaSetDevice(d) != cudaSuccess || cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess)
            (void)cudaGetLastError();
    }
    if (n > 0 && cudaSetDevice(0) != cudaSuccess) (void)cudaGetLastError();
}

extern "C" int czk_gpu_count(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, set_blocking_sync);
    int n = 0;
    /* No driver, no device, or a driver older than the runtime: all mean "no usable GPU". */
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" czk_status czk_gpu_get_info(int ordinal, czk_gpu_info *out, czk_err *err)
{
    int n = czk_gpu_count();
    if (ordinal < 0 || ordinal >= n)
        return czk_err_set(err, CZK_ENOGPU, "GPU %d: %d device(s) present", ordinal, n);
    cudaDeviceProp prop;
    CZK_CUDA_TRY(err, cudaGetDeviceProperties(&prop, ordinal));
    memset(out, 0, sizeof *out);
    out->ordinal = ordinal;
    snprintf(out->name, sizeof out->name, "%s", prop.name);
    out->sm_major = prop.major;
    out->sm_minor = prop.minor;
    out->sm_count = prop.multiProcessorCount;
    out->total_mem = prop.totalGlobalMem;
    CZK_CUDA_TRY(err, cudaSetDevice(ordinal));
    size_t free_b = 0, total_b = 0;
    CZK_CUDA_TRY(err, cudaMemGetInfo(&free_b, &total_b));
    out->free_mem = free_b;
    return CZK_OK;
}

extern "C" czk_status czk_gpu_host_alloc(void **out, size_t n, czk_err *err)
{
    *out = NULL;
    if (czk_gpu_count() == 0)
        return czk_err_set(err, CZK_ENOGPU, "pinned host memory: no CUDA device");
    void *p = NULL;
    cudaError_t e = cudaHostAlloc(&p, n ? n : 1, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky error so later calls are unaffected */
        return czk_err_set(err, CZK_ERESOURCE, "cudaHostAlloc(%zu bytes): %s", n,
                           cudaGetErrorString(e));
    }
    *out = p;
    return CZK_OK;
}

extern "C" void czk_gpu_host_free(void *p)
{
    if (p)
        (void)cudaFreeHost(p);
}

extern "C" czk_status czk_gpu_host_register(void *p, size_t n, czk_err *err)
{
    if (czk_gpu_count() == 0)
        return czk_err_set(err, CZK_ENOGPU, "page-locking host memory: no CUDA device");
    if (p == NULL || n == 0) return CZK_OK;
    cudaError_t e = cudaHostRegister(p, n, cudaHostRegisterPortable);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return czk_err_set(err, CZK_ERESOURCE, "cudaHostRegister(%zu bytes): %s", n,
                           cudaGetErrorString(e));
    }
    return CZK_OK;
}

extern "C" void czk_gpu_host_unregister(void *p)
{
    if (p != NULL && cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
}

/* Per-GPU limits (czk_gpu_set_memory_limit): set once at start, read by the NTT's table
 * policy. */
static uint64_t g_mem_limit[64];

extern "C" void czk_gpu_set_memory_limit(int gpu, uint64_t bytes)
{
    if (gpu >= 0 && gpu < 64) __atomic_store_n(&g_mem_limit[gpu], bytes, __ATOMIC_RELAXED);
}

extern "C" uint64_t czk_gpu_memory_limit(int gpu)
{
    return gpu >= 0 && gpu < 64 ? __atomic_load_n(&g_mem_limit[gpu], __ATOMIC_RELAXED) : 0;
}

extern "C" czk_status czk_gpu_measure_h2d(int gpu, size_t bytes, double *gbps, czk_err *err)
{
    *gbps = 0;
    void *h = NULL, *d = NULL;
    czk_status st = czk_gpu_host_alloc(&h, bytes, err);
    if (st != CZK_OK) return st;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    cudaError_t ce = cudaSetDevice(gpu);
    if (ce == cudaSuccess) ce = cudaMalloc(&d, bytes);
    if (ce == cudaSuccess) ce = cudaEventCreate(&e0);
    if (ce == cudaSuccess) ce = cudaEventCreate(&e1);
    /* A first copy maps the pages; the second is timed. */
    if (ce == cudaSuccess) ce = cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    if (ce == cudaSuccess) ce = cudaEventRecord(e0, 0);
    if (ce == cudaSuccess) ce = cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, 0);
    if (ce == cudaSuccess) ce = cudaEventRecord(e1, 0);
    if (ce == cudaSuccess) ce = cudaEventSynchronize(e1);
    float ms = 0;
    if (ce == cudaSuccess) ce = cudaEventElapsedTime(&ms, e0, e1);
    if (ce == cudaSuccess && ms > 0) *gbps = (double)bytes / (ms * 1e-3) / 1e9;
    if (e0 != nullptr) cudaEventDestroy(e0);
    if (e1 != nullptr) cudaEventDestroy(e1);
    if (d != nullptr) cudaFree(d);
    czk_gpu_host_free(h);
    if (ce != cudaSuccess) {
        (void)cudaGetLastError();
        return czk_err_set(err, CZK_ECUDA, "GPU %d: timing a host-to-device copy: %s", gpu,
                           cudaGetErrorString(ce));
    }
    return CZK_OK;
}
