/*
 * Private entry points of the GPU prover (src/groth16/gpu_prove.cu) for benchmarks and the
 * parameter loader (src/groth16/gpu_load.cu): plain C declarations; builds without CUDA get versions that report CZK_ENOGPU
 * (src/groth16/gpu_prove_none.c).
 */
#ifndef CZK_GROTH16_GPU_PROVE_CUH
#define CZK_GROTH16_GPU_PROVE_CUH

#include "czk/common.h"
#include "czk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Copy nbuf (≤ 8) host buffers of `bytes` each to fresh device buffers of GPU `gpu`, back
 * to back on one stream, and report the rate in GB/s (CUDA events around the copies). The
 * device buffers come from cudaMalloc, or with `pooled` from the GPU's stream-ordered pool
 * that the prover's buffers come from.
 */
czk_status czk__gpu_h2d_rate(int gpu, void *const *host, size_t nbuf, size_t bytes, int pooled,
                             double *gbps, czk_err *err);

/** Device address of resident point 0 of section sec (NULL when none is resident). */
void *czk__gpu_srs_dev(struct czk_gpu_srs *srs, czk_groth16_section sec);

#ifdef __cplusplus
}
#endif
#endif
