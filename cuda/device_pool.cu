/*
 * The per-device stream-ordered memory pool that the MSM's scratch and the partition
 * prover's buffers come from (czk__gpu_mem_pool, cuda/gpu_internal.h), its release and its
 * statistics (include/czk/gpu.h), and the stream priority of the MSMs a thread starts.
 */
#include <pthread.h>
#include <string.h>

#include "check.cuh"
#include "czk/gpu.h"
#include "gpu_internal.h"

namespace {

pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
cudaMemPool_t pools[CZK_GPU_MAX];

} // namespace

/* The per-device scratch pool, shared by the MSM and the partition prover (src/groth16/gpu_prove.cu):
 * stream-ordered allocations that keep their memory between calls (release threshold:
 * unlimited), so a steady stream of MSMs and proofs maps memory once. An allocation may
 * wait for another stream's pending free (cudaMemPoolReuseAllowInternalDependencies, CUDA's
 * default): without it the pipelined partition took 1.203 s against 1.180 on an H200. */
extern "C" czk_status czk__gpu_mem_pool(int gpu, cudaMemPool_t *out, czk_err *err)
{
    if (gpu < 0 || gpu >= CZK_GPU_MAX) return czk_err_set(err, CZK_EINVAL, "GPU %d out of range", gpu);
    pthread_mutex_lock(&pool_lock);
    if (pools[gpu] == nullptr) {
        cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = gpu;
        cudaMemPool_t p;
        cudaError_t e = cudaMemPoolCreate(&p, &props);
        if (e == cudaSuccess) {
            uint64_t thr = UINT64_MAX;
            e = cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &thr);
            if (e == cudaSuccess)
                pools[gpu] = p;
            else
                cudaMemPoolDestroy(p);
        }
        if (e != cudaSuccess) {
            pthread_mutex_unlock(&pool_lock);
            (void)cudaGetLastError();
            return czk__cuda_fail(err, e, "cudaMemPoolCreate", __FILE__, __LINE__);
        }
    }
    *out = pools[gpu];
    pthread_mutex_unlock(&pool_lock);
    return CZK_OK;
}

extern "C" {

/* The MSM stream priority of the calling thread (0, CUDA's default, unless a prover set it
 * for an urgent proof). Thread-local: proofs on other threads keep theirs. */
static thread_local int t_msm_priority = 0;

void czk__gpu_set_thread_msm_priority(int priority) { t_msm_priority = priority; }

int czk__gpu_thread_msm_priority(void) { return t_msm_priority; }

void czk_gpu_msm_trim(int gpu)
{
    if (gpu < 0 || gpu >= CZK_GPU_MAX) return;
    pthread_mutex_lock(&pool_lock);
    if (pools[gpu] != nullptr) {
        cudaMemPoolTrimTo(pools[gpu], 0);
        (void)cudaGetLastError();
    }
    pthread_mutex_unlock(&pool_lock);
}

void czk_gpu_pool_stats(int gpu, czk_gpu_pool_usage *out, bool reset_high)
{
    memset(out, 0, sizeof *out);
    if (gpu < 0 || gpu >= CZK_GPU_MAX) return;
    pthread_mutex_lock(&pool_lock);
    cudaMemPool_t p = pools[gpu];
    pthread_mutex_unlock(&pool_lock);
    if (p == nullptr) return;
    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(p, cudaMemPoolAttrUsedMemCurrent, &v) == cudaSuccess)
        out->used = v;
    if (cudaMemPoolGetAttribute(p, cudaMemPoolAttrUsedMemHigh, &v) == cudaSuccess)
        out->used_high = v;
    if (cudaMemPoolGetAttribute(p, cudaMemPoolAttrReservedMemCurrent, &v) == cudaSuccess)
        out->reserved = v;
    if (reset_high) {
        uint64_t zero = 0;
        (void)cudaMemPoolSetAttribute(p, cudaMemPoolAttrUsedMemHigh, &zero);
    }
    (void)cudaGetLastError();
}

} /* extern "C" */
