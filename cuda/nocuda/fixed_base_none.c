/* GPU fixed-base multiplication for builds without the CUDA backend: CZK_ENOGPU. */
#include "czk/gpu.h"
#include "gpu_internal.h"

czk_status czk_gpu_g1s_fixed_base(int gpu, czk_g1_affine *out, const czk_fr *k, size_t n,
                                  czk_err *err)
{
    (void)out, (void)k, (void)n;
    return czk_err_set(err, CZK_ENOGPU, "GPU %d: this build has no CUDA backend", gpu);
}

czk_status czk_gpu_g2s_fixed_base(int gpu, czk_g2_affine *out, const czk_fr *k, size_t n,
                                  czk_err *err)
{
    (void)out, (void)k, (void)n;
    return czk_err_set(err, CZK_ENOGPU, "GPU %d: this build has no CUDA backend", gpu);
}

void czk_gpu_fixed_base_release(int gpu) { (void)gpu; }

czk_status czk__gpu_fixed_base_dev(int gpu, int group, void *out_dev, const czk_fr *k, size_t n,
                                   czk_err *err)
{
    (void)group, (void)out_dev, (void)k, (void)n;
    return czk_err_set(err, CZK_ENOGPU, "GPU %d: this build has no CUDA backend", gpu);
}
