/* GPU Groth16 prover for builds without the CUDA backend: every call reports CZK_ENOGPU. */
#include "czk/gpu.h"
#include "gpu_prove.cuh"

#define NO_GPU(err) czk_err_set((err), CZK_ENOGPU, "this build has no CUDA backend")

czk_status czk_gpu_srs_create(czk_gpu_srs **out, int gpu, const czk_groth16_params *pk,
                              czk_err *err)
{
    (void)gpu, (void)pk;
    if (out != NULL) *out = NULL;
    return NO_GPU(err);
}

czk_status czk_gpu_srs_synthesize(czk_gpu_srs **out, int gpu, const czk_groth16_params *pk,
                                  uint64_t seed, czk_err *err)
{
    (void)gpu, (void)pk, (void)seed;
    if (out != NULL) *out = NULL;
    return NO_GPU(err);
}

void czk_gpu_srs_destroy(czk_gpu_srs *srs) { (void)srs; }

uint64_t czk_gpu_srs_bytes(const czk_gpu_srs *srs)
{
    (void)srs;
    return 0;
}

int czk_gpu_srs_gpu(const czk_gpu_srs *srs)
{
    (void)srs;
    return -1;
}

czk_status czk_gpu_prove(czk_groth16_proof *out, int gpu, const czk_groth16_params *pk,
                         const czk_gpu_srs *srs, const czk_groth16_assignment *asg,
                         const czk_fr *r, const czk_fr *s, czk_pool *pool,
                         czk_groth16_timings *t, czk_err *err)
{
    (void)out, (void)gpu, (void)pk, (void)srs, (void)asg, (void)r, (void)s, (void)pool, (void)t;
    return NO_GPU(err);
}

czk_status czk_gpu_prove_ex(czk_groth16_proof *out, int gpu, const czk_groth16_params *pk,
                            const czk_gpu_srs *srs, const czk_groth16_assignment *asg,
                            const czk_fr *r, const czk_fr *s, czk_pool *pool,
                            const czk_gpu_prove_opts *opts, czk_groth16_timings *t,
                            czk_gpu_prove_stats *stats, czk_err *err)
{
    (void)out, (void)gpu, (void)pk, (void)srs, (void)asg, (void)r, (void)s, (void)pool;
    (void)opts, (void)t, (void)stats;
    return NO_GPU(err);
}

czk_status czk__gpu_h2d_rate(int gpu, void *const *host, size_t nbuf, size_t bytes, int pooled,
                             double *gbps, czk_err *err)
{
    (void)gpu, (void)host, (void)nbuf, (void)bytes, (void)pooled, (void)gbps;
    return NO_GPU(err);
}

czk_status czk_gpu_srs_create_empty(czk_gpu_srs **out, int gpu, const czk_groth16_params *pk,
                                    czk_err *err)
{
    (void)gpu, (void)pk;
    if (out != NULL) *out = NULL;
    return NO_GPU(err);
}

czk_status czk_gpu_srs_fixed_base(czk_gpu_srs *srs, czk_groth16_section sec, size_t first,
                                  const czk_fr *k, size_t n, czk_err *err)
{
    (void)srs, (void)sec, (void)first, (void)k, (void)n;
    return NO_GPU(err);
}

czk_status czk_gpu_srs_download(const czk_gpu_srs *srs, czk_groth16_section sec, size_t first,
                                size_t count, void *out, czk_err *err)
{
    (void)srs, (void)sec, (void)first, (void)count, (void)out;
    return NO_GPU(err);
}

czk_status czk_gpu_srs_create_plan(czk_gpu_srs **out, int gpu, const czk_groth16_params *shape,
                                   const czk_gpu_plan *plan, czk_err *err)
{
    (void)gpu, (void)shape, (void)plan;
    if (out != NULL) *out = NULL;
    return NO_GPU(err);
}

czk_status czk_gpu_srs_write(czk_gpu_srs *srs, czk_groth16_section sec, size_t first,
                             const void *pts, size_t n, czk_err *err)
{
    (void)srs, (void)sec, (void)first, (void)pts, (void)n;
    return NO_GPU(err);
}

void czk_gpu_srs_set_host(czk_gpu_srs *srs, czk_groth16_section sec, const void *tail)
{
    (void)srs, (void)sec, (void)tail;
}

size_t czk_gpu_srs_resident(const czk_gpu_srs *srs, czk_groth16_section sec)
{
    (void)srs, (void)sec;
    return 0;
}

czk_status czk_gpu_loader_create(czk_gpu_loader **out, czk_groth16_params_file *f,
                                 const int *gpus, size_t ngpus, czk_pool *pool, czk_err *err)
{
    (void)f, (void)gpus, (void)ngpus, (void)pool;
    if (out != NULL) *out = NULL;
    return NO_GPU(err);
}

czk_status czk_gpu_loader_decode(czk_gpu_loader *l, czk_groth16_section sec, size_t first,
                                 size_t n, czk_gpu_srs *const *srs, size_t nsrs, void *host,
                                 czk_err *err)
{
    (void)l, (void)sec, (void)first, (void)n, (void)srs, (void)nsrs, (void)host;
    return NO_GPU(err);
}

void czk_gpu_loader_destroy(czk_gpu_loader *l) { (void)l; }

void *czk__gpu_srs_dev(struct czk_gpu_srs *srs, czk_groth16_section sec)
{
    (void)srs, (void)sec;
    return NULL;
}
