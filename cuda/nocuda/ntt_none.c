/* GPU NTT entry points for builds without the CUDA backend: every call reports no GPU. */
#include "czk/gpu.h"

czk_status czk_gpu_ntt(int gpu, czk_fr *v, unsigned log_n, czk_roots roots, czk_gpu_ntt_kind kind,
                       const czk_fr *shift, czk_err *err)
{
    (void)v, (void)log_n, (void)roots, (void)kind, (void)shift;
    return czk_err_set(err, CZK_ENOGPU, "GPU %d: this build has no CUDA backend", gpu);
}

czk_status czk_gpu_ntt_dev(int gpu, czk_fr *v_dev, unsigned log_n, czk_roots roots,
                           czk_gpu_ntt_kind kind, const czk_fr *shift, czk_gpu_ntt_order order,
                           void *stream, czk_err *err)
{
    (void)v_dev, (void)log_n, (void)roots, (void)kind, (void)shift, (void)order, (void)stream;
    return czk_err_set(err, CZK_ENOGPU, "GPU %d: this build has no CUDA backend", gpu);
}

czk_status czk_gpu_groth16_h(int gpu, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_m,
                             czk_h_convention conv, size_t *h_len, czk_err *err)
{
    (void)a, (void)b, (void)c, (void)log_m, (void)conv, (void)h_len;
    return czk_err_set(err, CZK_ENOGPU, "GPU %d: this build has no CUDA backend", gpu);
}

czk_status czk_gpu_groth16_h_dev(int gpu, czk_fr *a_dev, czk_fr *b_dev, czk_fr *c_dev,
                                 unsigned log_m, czk_h_convention conv, void *stream, czk_err *err)
{
    (void)a_dev, (void)b_dev, (void)c_dev, (void)log_m, (void)conv, (void)stream;
    return czk_err_set(err, CZK_ENOGPU, "GPU %d: this build has no CUDA backend", gpu);
}

void czk_gpu_ntt_release(int gpu)
{
    (void)gpu;
}
