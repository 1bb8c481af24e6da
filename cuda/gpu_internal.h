/*
 * Private GPU entry points (not part of the public API) for the partition prover and for
 * tests: device-pointer MSMs and H steps, the device memory pool, per-thread MSM settings,
 * test hooks, and elementwise evaluation of device field and curve operations so that tests
 * can compare the device arithmetic with the CPU library. Plain C; each declaration names
 * the file that defines it; without CUDA, cuda/nocuda/ stands in (CZK_ENOGPU).
 */
#ifndef CZK_GPU_INTERNAL_H
#define CZK_GPU_INTERNAL_H

#include "czk/common.h"
#include "czk/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operations: out[i] = op(a[i], b[i]) with the host types named (same bytes on the device). */
typedef enum czk__gpu_op {
    CZK__GPU_FP_MUL,   /* czk_fp × czk_fp -> czk_fp */
    CZK__GPU_FP_SQR,   /* czk_fp -> czk_fp (b unused) */
    CZK__GPU_FP_ADD,
    CZK__GPU_FP_SUB,
    CZK__GPU_FP_NEG,   /* b unused */
    CZK__GPU_FP_INV,   /* b unused */
    CZK__GPU_FR_MUL,   /* czk_fr × czk_fr -> czk_fr */
    CZK__GPU_FR_SQR,
    CZK__GPU_FR_ADD,
    CZK__GPU_FR_SUB,
    CZK__GPU_FR_INV,
    CZK__GPU_FP2_MUL,  /* czk_fp2 × czk_fp2 -> czk_fp2 */
    CZK__GPU_FP2_SQR,
    CZK__GPU_FP2_INV,
    CZK__GPU_G1_XYZZ_ADD_AFFINE, /* czk_g1_xyzz × czk_g1_affine -> czk_g1_xyzz */
    CZK__GPU_G1_XYZZ_ADD,        /* czk_g1_xyzz × czk_g1_xyzz -> czk_g1_xyzz */
    CZK__GPU_G1_XYZZ_DBL,        /* czk_g1_xyzz -> czk_g1_xyzz */
    CZK__GPU_G1_JAC_ADD_AFFINE,  /* czk_g1_jac × czk_g1_affine -> czk_g1_jac */
    CZK__GPU_G1_JAC_ADD,         /* czk_g1_jac × czk_g1_jac -> czk_g1_jac */
    CZK__GPU_G1_JAC_DBL,         /* czk_g1_jac -> czk_g1_jac */
    CZK__GPU_G2_XYZZ_ADD_AFFINE, /* the same over G2 */
    CZK__GPU_G2_XYZZ_ADD,
    CZK__GPU_G2_XYZZ_DBL,
    CZK__GPU_G2_JAC_ADD_AFFINE,
    CZK__GPU_G2_JAC_ADD,
    CZK__GPU_G2_JAC_DBL,
    CZK__GPU_OP_COUNT
} czk__gpu_op;

/** Run `op` on n elements on GPU `gpu`; host arrays in and out. */
czk_status czk__gpu_eval(int gpu, czk__gpu_op op, void *out, const void *a, const void *b,
                         size_t n, czk_err *err);

/**
 * Time `reps` dependent multiplications per thread over a grid that fills the device, for
 * field 0 (Fp) or 1 (Fr); writes the rate in multiplications per second. Benchmarks only.
 */
czk_status czk__gpu_ff_mul_rate(int gpu, int field, unsigned reps, double *muls_per_s,
                                czk_err *err);

#ifdef __CUDACC__
/**
 * The per-device stream-ordered memory pool (cuda/device_pool.cu) that the MSM and the
 * partition prover allocate their scratch from; it keeps its memory between calls until
 * czk_gpu_msm_trim.
 */
czk_status czk__gpu_mem_pool(int gpu, cudaMemPool_t *out, czk_err *err);
#endif

/** Device address of the first point of a bases handle (cuda/msm.cu; for src/groth16/gpu_prove.cu). */
const void *czk__gpu_bases_dev(const czk_gpu_bases *b);
/** Device address of the first scalar of an uploaded scalar array (cuda/msm.cu; tests). */
const czk_scalar *czk__gpu_scalars_dev(const czk_gpu_scalars *s);

/** A bases handle of n points of group 1 or 2 on GPU `gpu` with its memory reserved and
 *  not set (cuda/msm.cu), for an SRS that the fixed-base kernels fill in place. */
czk_status czk__gpu_bases_alloc(int gpu, int group, size_t n, czk_gpu_bases **out,
                                czk_err *err);

/**
 * out_dev[i] = k[i]·G for i < n (G1 generator for group 1, G2's for group 2), out_dev a
 * device pointer of GPU `gpu` (cuda/fixed_base.cu): the kernels of czk_gpu_g1s_fixed_base
 * with the device array as their destination. k are host scalars (Montgomery form).
 * Returns when the points are written.
 */
czk_status czk__gpu_fixed_base_dev(int gpu, int group, void *out_dev, const czk_fr *k, size_t n,
                                   czk_err *err);

/* Priority of the streams the MSMs started on the calling thread run on (CUDA's scale:
 * 0 the default, lower is more urgent; cudaDeviceGetStreamPriorityRange gives the range;
 * cuda/device_pool.cu). */
void czk__gpu_set_thread_msm_priority(int priority);
int czk__gpu_thread_msm_priority(void);

/* Device bytes of scratch each MSM started on the calling thread may take (0: no bound):
 * above it the MSM fails with CZK_ERESOURCE, as when the device is full, and the partition
 * prover cuts the call in two (the plan's msm_scratch; cuda/msm.cu). */
void czk__gpu_set_thread_msm_scratch_cap(uint64_t bytes);
uint64_t czk__gpu_thread_msm_scratch_cap(void);

/**
 * MSM on GPU `gpu` over device memory: `nbases` affine points of group 1 or 2 at
 * `bases_dev` and n canonical scalars at `scalars_dev`, with the semantics of
 * czk_gpu_g1s_msm_resident (density on the host, NULL for full). density_dev, when not
 * NULL, holds the same bits on the device, so the call copies nothing from the host: a
 * copy of its own would queue behind the bases a streamed MSM is copying meanwhile. `out`
 * is a czk_g1_jac or a czk_g2_jac. Returns when the result is on the host. The caller
 * orders any earlier work that writes the scalars or density_dev (this call runs on a
 * stream of its own).
 */
czk_status czk__gpu_msm_dev(int gpu, int group, void *out, const void *bases_dev, size_t nbases,
                            const czk_scalar *scalars_dev, size_t n, const uint64_t *density,
                            const uint64_t *density_dev, czk_gpu_msm_stats *stats,
                            czk_err *err);

/**
 * One MSM over bases that come in pieces, for mostly-0/1 scalars (cuda/msm.cu, msm_acc):
 * begin on GPU `gpu` for group 1 or 2 and at most n_hint scalars in all (what the compact
 * set is sized by); add one piece at a time (its bases on the device,
 * read before add returns, and its scalars and density as czk__gpu_msm_dev takes them); end
 * puts the sum of every piece in *out (a czk_g1_jac or czk_g2_jac). Its device memory comes
 * within the calling thread's scratch cap (taken at begin): CZK_ERESOURCE when it does not
 * fit, after which the accumulator can only be freed.
 */
typedef struct czk__gpu_msm_acc czk__gpu_msm_acc;
czk_status czk__gpu_msm_acc_begin(int gpu, int group, size_t n_hint, czk__gpu_msm_acc **out,
                                  czk_err *err);
czk_status czk__gpu_msm_acc_add(czk__gpu_msm_acc *a, const void *bases_dev, size_t nbases,
                                const czk_scalar *scalars_dev, size_t n, const uint64_t *density,
                                const uint64_t *density_dev, czk_err *err);
czk_status czk__gpu_msm_acc_end(czk__gpu_msm_acc *a, void *out, czk_gpu_msm_stats *stats,
                                czk_err *err);
void czk__gpu_msm_acc_free(czk__gpu_msm_acc *a);
/* Tests only: the compact set's capacity in scalars (0: the default), so that small MSMs
 * reach every flush. */
void czk__gpu_msm_acc_set_limit(uint32_t sig);

/**
 * The Groth16 H step of czk_gpu_groth16_h_dev one vector at a time (cuda/ntt.cu; for
 * src/groth16/gpu_prove.cu, which starts each vector as its copy lands): begin makes the tables for a
 * 2^log_m domain; vector prepares a (which 0), b (1) or c (2) in place on `stream`; finish
 * leaves the H scalars (canonical limbs) in a. end releases the handle once every stream
 * that used it is done.
 */
typedef struct czk__gpu_h czk__gpu_h;
czk_status czk__gpu_h_begin(int gpu, unsigned log_m, czk_h_convention conv, czk__gpu_h **out,
                            czk_err *err);
czk_status czk__gpu_h_vector(const czk__gpu_h *h, czk_fr *v_dev, int which, void *stream,
                             czk_err *err);
czk_status czk__gpu_h_finish(const czk__gpu_h *h, czk_fr *a_dev, czk_fr *b_dev,
                             const czk_fr *c_dev, void *stream, czk_err *err);
/* finish in two steps, for a plan that holds two vectors at a time: combine forms a·b in
 * a once a and b are prepared; finish_c completes H in a once c is prepared (in b's memory,
 * say). */
czk_status czk__gpu_h_combine(const czk__gpu_h *h, czk_fr *a_dev, const czk_fr *b_dev,
                              void *stream, czk_err *err);
czk_status czk__gpu_h_finish_c(const czk__gpu_h *h, czk_fr *a_dev, const czk_fr *c_dev,
                               void *stream, czk_err *err);
void czk__gpu_h_end(czk__gpu_h *h);

/**
 * Tests only (cuda/ntt.cu): twiddle tables built from now on are stored whole up to
 * 2^boundary_max_log entries (boundary levels) and 2^scale_max_log entries (coset tables),
 * split above; -1 restores the default choice. Cached tables keep their form until
 * czk_gpu_ntt_release.
 */
void czk__gpu_ntt_set_whole_max(int boundary_max_log, int scale_max_log);

/* GPU discovery's one read of the spin_wait knob (cuda/tuning.c): from then on
 * czk_gpu_set_tuning refuses to change it. */
bool czk__gpu_tuning_take_spin_wait(void);

/**
 * Tests only (cuda/msm.cu): the k-th scratch allocation of the ones' batch-affine tree in
 * each MSM from now on fails as if the device were full (1..5: the fifth exists only with
 * several segments; 0: none), so that the MSM must fall back to the XYZZ additions after
 * giving back what the tree took.
 */
void czk__gpu_msm_fail_ones_alloc(unsigned k);

#ifdef __cplusplus
}
#endif
#endif
