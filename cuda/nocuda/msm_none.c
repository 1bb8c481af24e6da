/* GPU MSM for builds without the CUDA backend: every call reports CZK_ENOGPU. */
#include "czk/gpu.h"

#include "gpu_internal.h"

#define NO_GPU(err) czk_err_set((err), CZK_ENOGPU, "this build has no CUDA backend")

czk_status czk_gpu_g1_bases_upload(int gpu, const czk_g1_affine *bases, size_t n,
                                   czk_gpu_bases **out, czk_err *err)
{
    (void)gpu, (void)bases, (void)n, (void)out;
    return NO_GPU(err);
}

czk_status czk_gpu_g2_bases_upload(int gpu, const czk_g2_affine *bases, size_t n,
                                   czk_gpu_bases **out, czk_err *err)
{
    (void)gpu, (void)bases, (void)n, (void)out;
    return NO_GPU(err);
}

czk_status czk_gpu_bases_synthesize(int gpu, int group, size_t n, uint64_t seed,
                                    czk_gpu_bases **out, czk_err *err)
{
    (void)gpu, (void)group, (void)n, (void)seed, (void)out;
    return NO_GPU(err);
}

czk_status czk_gpu_bases_download(const czk_gpu_bases *b, size_t first, size_t count, void *out,
                                  czk_err *err)
{
    (void)b, (void)first, (void)count, (void)out;
    return NO_GPU(err);
}

size_t czk_gpu_bases_count(const czk_gpu_bases *b)
{
    (void)b;
    return 0;
}

void czk_gpu_bases_destroy(czk_gpu_bases *b) { (void)b; }

czk_status czk_gpu_scalars_upload(int gpu, const czk_scalar *s, size_t n,
                                  czk_gpu_scalars **out, czk_err *err)
{
    (void)gpu, (void)s, (void)n, (void)out;
    return NO_GPU(err);
}

void czk_gpu_scalars_destroy(czk_gpu_scalars *s) { (void)s; }

czk_status czk_gpu_g1s_msm_resident(czk_g1_jac *out, const czk_gpu_bases *bases,
                                    const czk_gpu_scalars *scalars, size_t n,
                                    const uint64_t *density, czk_gpu_msm_stats *stats,
                                    czk_err *err)
{
    (void)out, (void)bases, (void)scalars, (void)n, (void)density, (void)stats;
    return NO_GPU(err);
}

czk_status czk_gpu_g2s_msm_resident(czk_g2_jac *out, const czk_gpu_bases *bases,
                                    const czk_gpu_scalars *scalars, size_t n,
                                    const uint64_t *density, czk_gpu_msm_stats *stats,
                                    czk_err *err)
{
    (void)out, (void)bases, (void)scalars, (void)n, (void)density, (void)stats;
    return NO_GPU(err);
}

czk_status czk_gpu_g1s_msm(int gpu, czk_g1_jac *out, const czk_g1_affine *bases,
                           const czk_scalar *scalars, size_t n, const uint64_t *density,
                           czk_err *err)
{
    (void)gpu, (void)out, (void)bases, (void)scalars, (void)n, (void)density;
    return NO_GPU(err);
}

czk_status czk_gpu_g2s_msm(int gpu, czk_g2_jac *out, const czk_g2_affine *bases,
                           const czk_scalar *scalars, size_t n, const uint64_t *density,
                           czk_err *err)
{
    (void)gpu, (void)out, (void)bases, (void)scalars, (void)n, (void)density;
    return NO_GPU(err);
}

czk_status czk__gpu_eval(int gpu, czk__gpu_op op, void *out, const void *a, const void *b,
                         size_t n, czk_err *err)
{
    (void)gpu, (void)op, (void)out, (void)a, (void)b, (void)n;
    return NO_GPU(err);
}

czk_status czk__gpu_ff_mul_rate(int gpu, int field, unsigned reps, double *muls_per_s,
                                czk_err *err)
{
    (void)gpu, (void)field, (void)reps, (void)muls_per_s;
    return NO_GPU(err);
}

const void *czk__gpu_bases_dev(const czk_gpu_bases *b)
{
    (void)b;
    return NULL;
}

czk_status czk__gpu_msm_dev(int gpu, int group, void *out, const void *bases_dev, size_t nbases,
                            const czk_scalar *scalars_dev, size_t n, const uint64_t *density,
                            const uint64_t *density_dev, czk_gpu_msm_stats *stats, czk_err *err)
{
    (void)gpu, (void)group, (void)out, (void)bases_dev, (void)nbases, (void)scalars_dev;
    (void)n, (void)density, (void)density_dev, (void)stats;
    return NO_GPU(err);
}

czk_status czk__gpu_bases_alloc(int gpu, int group, size_t n, czk_gpu_bases **out, czk_err *err)
{
    (void)gpu, (void)group, (void)n;
    if (out != NULL) *out = NULL;
    return NO_GPU(err);
}

void czk__gpu_msm_fail_ones_alloc(unsigned k) { (void)k; }

const czk_scalar *czk__gpu_scalars_dev(const czk_gpu_scalars *s)
{
    (void)s;
    return NULL;
}

czk_status czk__gpu_msm_acc_begin(int gpu, int group, size_t n_hint, czk__gpu_msm_acc **out,
                                  czk_err *err)
{
    (void)gpu, (void)group, (void)n_hint;
    if (out != NULL) *out = NULL;
    return NO_GPU(err);
}

czk_status czk__gpu_msm_acc_add(czk__gpu_msm_acc *a, const void *bases_dev, size_t nbases,
                                const czk_scalar *scalars_dev, size_t n, const uint64_t *density,
                                const uint64_t *density_dev, czk_err *err)
{
    (void)a, (void)bases_dev, (void)nbases, (void)scalars_dev, (void)n, (void)density;
    (void)density_dev;
    return NO_GPU(err);
}

czk_status czk__gpu_msm_acc_end(czk__gpu_msm_acc *a, void *out, czk_gpu_msm_stats *stats,
                                czk_err *err)
{
    (void)a, (void)out, (void)stats;
    return NO_GPU(err);
}

void czk__gpu_msm_acc_free(czk__gpu_msm_acc *a) { (void)a; }

void czk__gpu_msm_acc_set_limit(uint32_t sig) { (void)sig; }
