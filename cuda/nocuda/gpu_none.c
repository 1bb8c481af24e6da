/* GPU discovery for builds without the CUDA backend: there are no GPUs. */
#include "czk/gpu.h"

bool czk_gpu_built(void) { return false; }
int czk_gpu_count(void) { return 0; }

czk_status czk_gpu_get_info(int ordinal, czk_gpu_info *out, czk_err *err)
{
    (void)out;
    return czk_err_set(err, CZK_ENOGPU, "GPU %d: this build has no CUDA backend", ordinal);
}

czk_status czk_gpu_host_alloc(void **out, size_t n, czk_err *err)
{
    *out = NULL;
    return czk_err_set(err, CZK_ENOGPU, "pinned host memory (%zu bytes): this build has no CUDA backend", n);
}

void czk_gpu_host_free(void *p) { (void)p; }

czk_status czk_gpu_host_register(void *p, size_t n, czk_err *err)
{
    (void)p;
    return czk_err_set(err, CZK_ENOGPU, "page-locking %zu bytes: this build has no CUDA backend", n);
}

void czk_gpu_host_unregister(void *p) { (void)p; }

void czk_gpu_set_memory_limit(int gpu, uint64_t bytes) { (void)gpu, (void)bytes; }

uint64_t czk_gpu_memory_limit(int gpu)
{
    (void)gpu;
    return 0;
}

czk_status czk_gpu_measure_h2d(int gpu, size_t bytes, double *gbps, czk_err *err)
{
    (void)bytes;
    *gbps = 0;
    return czk_err_set(err, CZK_ENOGPU, "GPU %d: this build has no CUDA backend", gpu);
}
