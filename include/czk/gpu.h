/*
 * czk — GPU discovery. Works in every build: without the CUDA backend it reports no GPUs.
 */
#ifndef CZK_GPU_H
#define CZK_GPU_H

#include "czk/common.h"
#include "czk/groth16.h"
#include "czk/ntt.h"
#include "czk/msm.h"

/* The most GPUs one process drives (per-device tables are this long); devices past it
 * are not used. */
#define CZK_GPU_MAX 16

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_gpu_info {
    int ordinal;
    char name[128];
    int sm_major, sm_minor;
    int sm_count;
    size_t total_mem;
    size_t free_mem;
} czk_gpu_info;

/** True when this build contains the CUDA backend. */
CZK_API bool czk_gpu_built(void);
/** Number of usable CUDA devices (0 without a driver or a device); never fails. */
CZK_API int czk_gpu_count(void);
/** Properties of device `ordinal`. */
CZK_API czk_status czk_gpu_get_info(int ordinal, czk_gpu_info *out, czk_err *err);

/**
 * Page-locked host memory that every device can read at full PCIe speed
 * (cudaHostAlloc, portable). CZK_ENOGPU without the CUDA backend or a device,
 * CZK_ERESOURCE when the driver cannot pin that much; the caller then falls back to
 * ordinary memory. Expensive (about 0.5 s per GiB): pool it, never allocate per job.
 */
CZK_API czk_status czk_gpu_host_alloc(void **out, size_t n, czk_err *err);
/** Free memory from czk_gpu_host_alloc; NULL is ignored. */
CZK_API void czk_gpu_host_free(void *p);
/**
 * Page-lock n bytes of memory the caller already holds (cudaHostRegister, portable), so
 * that every device copies from it at full PCIe speed: for memory that is filled first
 * (a key's streamed sections decoded from the file), where czk_gpu_host_alloc would
 * allocate twice. CZK_ERESOURCE when the system refuses (the memory stays usable, at
 * pageable speed); CZK_ENOGPU without a device. Unregister before freeing it.
 */
CZK_API czk_status czk_gpu_host_register(void *p, size_t n, czk_err *err);
CZK_API void czk_gpu_host_unregister(void *p);

/**
 * The device memory czk may use on GPU `gpu` (bytes; 0: no limit). Caches that size
 * themselves by the device (the NTT's whole twiddle tables) then size themselves by this
 * instead, so a plan made for the limit holds.
 */
CZK_API void czk_gpu_set_memory_limit(int gpu, uint64_t bytes);
CZK_API uint64_t czk_gpu_memory_limit(int gpu);

/** Host-to-device rate of GPU `gpu` from page-locked memory (GB/s), by timing one copy of
 *  `bytes`. */
CZK_API czk_status czk_gpu_measure_h2d(int gpu, size_t bytes, double *gbps, czk_err *err);

/* ------------------------------------------------------------------------------------ */
/* Tuning (cuda/tuning.c)                                                               */
/* ------------------------------------------------------------------------------------ */

/**
 * The GPU layer's knobs, one table of rows (name, type, default, bounds, help) in
 * cuda/tuning.c; the defaults are the measured choices. spin_wait is an operator's choice
 * (czkd: gpus.spin_wait). The MSM knobs are for benchmarks that sweep them on other GPUs:
 * the device memory planner (czk_gpu_plan_make) assumes their defaults. A zero in a knob
 * whose default is zero leaves the choice to the code.
 */
typedef struct czk_gpu_tuning {
    /** Host threads spin while they wait for a GPU (CUDA's default) instead of blocking. */
    bool spin_wait;
    uint32_t msm_window;      /**< window bits of the widest window, 4..24 */
    uint32_t msm_chunk;       /**< sorted entries a bucket-accumulation thread adds, 16..2^16 */
    uint32_t msm_red_threads; /**< threads the bucket reduction aims for, 1024..2^24 */
    uint32_t msm_group;       /**< windows sorted and accumulated at a time, 1..64 */
    uint32_t msm_ones_stop;   /**< ones the batch-affine tree leaves to XYZZ additions (2^22) */
    uint32_t msm_ones_k;      /**< pairs a thread adds in a level of the ones' tree (16) */
    uint32_t msm_ones_seg;    /**< most ones in one tree, 1024..2^31 − 1 */
} czk_gpu_tuning;

/** The table's defaults. */
CZK_API void czk_gpu_tuning_defaults(czk_gpu_tuning *out);
/**
 * Set the knob named `name` (the field's name, "msm_window") in `t` from text ("20",
 * "true"); NULL or "" sets its default. CZK_EINVAL for an unknown name or a value out of
 * its bounds (the message gives them).
 */
CZK_API czk_status czk_gpu_tuning_parse(czk_gpu_tuning *t, const char *name, const char *value,
                                        czk_err *err);
/** `t` as one line of name=value pairs in the table's order; returns its length (as
 *  snprintf: the bytes it needs). */
CZK_API size_t czk_gpu_tuning_format(const czk_gpu_tuning *t, char *buf, size_t cap);
/** The knobs in force: the defaults until czk_gpu_set_tuning. */
CZK_API void czk_gpu_get_tuning(czk_gpu_tuning *out);
/**
 * Make `t` the knobs in force once every field is within its bounds (CZK_EINVAL names the
 * first that is not); MSMs started from then on use them. spin_wait is applied when the
 * first call touches a GPU (czk_gpu_count and everything after it): changing it after
 * that is CZK_EBUSY, and nothing changes.
 */
CZK_API czk_status czk_gpu_set_tuning(const czk_gpu_tuning *t, czk_err *err);

/* ------------------------------------------------------------------------------------ */
/* Multi-scalar multiplication on the GPU (cuda/msm.cu)                                 */
/* ------------------------------------------------------------------------------------ */

/*
 * out = sum_i s_i · P_i with the semantics of czk_g1s_msm / czk_g2s_msm (include/czk/msm.h):
 * canonical scalars, optional density bitmap (scalars cover all n variables, bases only the
 * set bits), infinity bases allowed. Scalars are taken modulo r, so the bases must lie in
 * the prime-order subgroup (every SRS point does). Scalars equal to 0 are skipped, those
 * equal to 1 are summed by one batch addition, and only the rest go through Pippenger
 * (signed windows, radix-sorted buckets, XYZZ bucket sums).
 *
 * Two ways in: the plain calls take host arrays and upload bases and scalars per call; the
 * resident calls take bases uploaded once (czk_gpu_bases, e.g. an SRS section kept on the
 * device for many proofs) and scalars already on the device (czk_gpu_scalars). Scratch
 * memory comes from a per-device pool that keeps its peak size between calls (no cudaMalloc
 * on the hot path); czk_gpu_msm_trim() hands it back. Every failure, a failed allocation
 * included, is a status: CZK_ENOGPU without a usable GPU, CZK_ERESOURCE when device memory
 * runs out, CZK_ECUDA for other CUDA errors, CZK_EINVAL for bad arguments.
 */
typedef struct czk_gpu_bases czk_gpu_bases;
typedef struct czk_gpu_scalars czk_gpu_scalars;

/** What one MSM did; optional output of the resident calls. */
typedef struct czk_gpu_msm_stats {
    size_t n_zero;      /**< scalars with a set density bit that are 0 mod r (skipped) */
    size_t n_one;       /**< scalars equal to 1 mod r (batch-added) */
    size_t n_one_tree;  /**< of n_one, summed by the batch-affine tree (0: all by XYZZ
                             additions: below the tree's threshold, or no room for it) */
    size_t n_sig;       /**< the rest, through Pippenger */
    unsigned window_bits; /**< the widest window's bits (the others have one less) */
    unsigned windows;
    double device_ms;   /**< CUDA-event time from the first kernel to the last copy back */
    unsigned calls;     /**< device MSMs it took (the partition prover cuts large ones) */
    unsigned cuts;      /**< of which halves of a call whose scratch did not fit */
} czk_gpu_msm_stats;

/** Upload n affine bases to GPU `gpu`; the handle keeps them until destroyed. */
CZK_API czk_status czk_gpu_g1_bases_upload(int gpu, const czk_g1_affine *bases, size_t n,
                                           czk_gpu_bases **out, czk_err *err);
CZK_API czk_status czk_gpu_g2_bases_upload(int gpu, const czk_g2_affine *bases, size_t n,
                                           czk_gpu_bases **out, czk_err *err);
/**
 * Make n distinct pseudo-random bases of G1 (group 1) or G2 (group 2) on the GPU, for
 * benchmarks and tests at sizes where generating points on the CPU is too slow:
 * P = H + t·D2 + j·D1 for random subgroup points H, D1, D2 derived from `seed`.
 */
CZK_API czk_status czk_gpu_bases_synthesize(int gpu, int group, size_t n, uint64_t seed,
                                            czk_gpu_bases **out, czk_err *err);
/** Copy bases [first, first + count) back to the host (czk_g1_affine or czk_g2_affine). */
CZK_API czk_status czk_gpu_bases_download(const czk_gpu_bases *b, size_t first, size_t count,
                                          void *out, czk_err *err);
CZK_API size_t czk_gpu_bases_count(const czk_gpu_bases *b);
CZK_API void czk_gpu_bases_destroy(czk_gpu_bases *b);

/** Upload n canonical scalars to GPU `gpu`. */
CZK_API czk_status czk_gpu_scalars_upload(int gpu, const czk_scalar *s, size_t n,
                                          czk_gpu_scalars **out, czk_err *err);
CZK_API void czk_gpu_scalars_destroy(czk_gpu_scalars *s);

/** MSM over resident bases and scalars (same GPU); n ≤ scalar count, and the bases must
 *  cover n (or the density's set bits). `stats` may be NULL. */
CZK_API czk_status czk_gpu_g1s_msm_resident(czk_g1_jac *out, const czk_gpu_bases *bases,
                                            const czk_gpu_scalars *scalars, size_t n,
                                            const uint64_t *density, czk_gpu_msm_stats *stats,
                                            czk_err *err);
CZK_API czk_status czk_gpu_g2s_msm_resident(czk_g2_jac *out, const czk_gpu_bases *bases,
                                            const czk_gpu_scalars *scalars, size_t n,
                                            const uint64_t *density, czk_gpu_msm_stats *stats,
                                            czk_err *err);
/** MSM from host arrays (bases and scalars uploaded for this call). */
CZK_API czk_status czk_gpu_g1s_msm(int gpu, czk_g1_jac *out, const czk_g1_affine *bases,
                                   const czk_scalar *scalars, size_t n,
                                   const uint64_t *density, czk_err *err);
CZK_API czk_status czk_gpu_g2s_msm(int gpu, czk_g2_jac *out, const czk_g2_affine *bases,
                                   const czk_scalar *scalars, size_t n,
                                   const uint64_t *density, czk_err *err);
/** Release the MSM scratch pool of GPU `gpu` (kept between calls otherwise;
 *  cuda/device_pool.cu). */
CZK_API void czk_gpu_msm_trim(int gpu);

/** The per-GPU pool the prover's buffers and the MSMs' scratch come from, in bytes. */
typedef struct czk_gpu_pool_usage {
    uint64_t used;      /**< handed out now */
    uint64_t used_high; /**< the most handed out at once since the last reset */
    uint64_t reserved;  /**< held from the device (used, and kept for reuse) */
} czk_gpu_pool_usage;
/** GPU `gpu`'s pool (zeros before its first use); reset_high starts a new high mark. */
CZK_API void czk_gpu_pool_stats(int gpu, czk_gpu_pool_usage *out, bool reset_high);

/* ------------------------------------------------------------------------------------ */
/* NTT over Fr and the Groth16 H step (cuda/ntt.cu)                                     */
/* ------------------------------------------------------------------------------------ */

/** The four transforms of include/czk/ntt.h, with the same meaning and the same roots. */
typedef enum czk_gpu_ntt_kind {
    CZK_GPU_NTT_FORWARD = 0,       /* v[j] <- sum_i v[i]·omega^(ij) */
    CZK_GPU_NTT_INVERSE = 1,       /* its inverse, including 1/n */
    CZK_GPU_NTT_COSET_FORWARD = 2, /* coefficients to evaluations on the coset g·H */
    CZK_GPU_NTT_COSET_INVERSE = 3  /* evaluations on g·H to coefficients */
} czk_gpu_ntt_kind;

/**
 * Element order of input and output. NN costs one more pass over memory than the others
 * (an in-place bit-reversal permutation). NR followed by RN (e.g. an inverse transform
 * NR, then a coset forward RN) needs no permutation at all.
 */
typedef enum czk_gpu_ntt_order {
    CZK_GPU_NTT_NN = 0, /* natural in, natural out */
    CZK_GPU_NTT_NR = 1, /* natural in, bit-reversed out */
    CZK_GPU_NTT_RN = 2  /* bit-reversed in, natural out */
} czk_gpu_ntt_order;

/* Domain sizes the GPU transforms accept. */
#define CZK_GPU_NTT_MIN_LOG 3
#define CZK_GPU_NTT_MAX_LOG 28

/**
 * Transform v (2^log_n elements in host memory, Montgomery form, natural order) in place on
 * GPU `gpu`: copy in, transform, copy out; returns when done. `shift` is the coset
 * generator g for the coset kinds (nonzero) and ignored otherwise. The result is
 * bit-identical to the CPU's czk_ntt_* of the same family. Host memory should be
 * page-locked for full copy speed; pageable memory works.
 */
CZK_API czk_status czk_gpu_ntt(int gpu, czk_fr *v, unsigned log_n, czk_roots roots,
                               czk_gpu_ntt_kind kind, const czk_fr *shift, czk_err *err);

/**
 * The same on a vector already in device memory (`v_dev`, a device pointer of GPU `gpu`),
 * in the given order, enqueued on `stream` (a cudaStream_t; NULL for the default stream).
 * The call returns once the work is enqueued, except the first time a (log_n, roots)
 * pair is used on a GPU, when its twiddle tables are built and uploaded synchronously;
 * tables stay cached until czk_gpu_ntt_release().
 */
CZK_API czk_status czk_gpu_ntt_dev(int gpu, czk_fr *v_dev, unsigned log_n, czk_roots roots,
                                   czk_gpu_ntt_kind kind, const czk_fr *shift,
                                   czk_gpu_ntt_order order, void *stream, czk_err *err);

/**
 * The Groth16 H step, as czk_groth16_compute_h does it on the CPU, for vectors a, b, c of
 * m = 2^log_m row evaluations each (Montgomery, natural order) that the caller has already
 * padded to m (for CZK_H_BELLPERSON including the appended input rows a = x_i, b = c = 0):
 *   bellperson: H = coset_inverse(coset(a)·coset(b) − coset(c)) / (g^m − 1), g = 7,
 *               roots from 7; *h_len = m − 1.
 *   snarkjs:    H = coset(a)·coset(b) − coset(c) on the coset g = omega_2m, roots from 5,
 *               no division and no inverse transform; *h_len = m.
 * (coset(x) is the coset forward transform of the inverse transform of x.) The H scalars
 * are written to a[0..*h_len) as canonical limbs (czk_scalar layout), b and c are left
 * unspecified. Host pointers; page-locked memory lets the copies overlap the transforms.
 */
CZK_API czk_status czk_gpu_groth16_h(int gpu, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_m,
                                     czk_h_convention conv, size_t *h_len, czk_err *err);

/**
 * The same on device pointers of GPU `gpu`, enqueued on `stream` (cudaStream_t or NULL):
 * H (all m values; for bellperson the last is zero for a satisfied assignment) replaces
 * a_dev as canonical limbs in natural order; b_dev and c_dev are used as scratch. This is
 * the form for a prover that keeps H on the GPU for its MSM.
 */
CZK_API czk_status czk_gpu_groth16_h_dev(int gpu, czk_fr *a_dev, czk_fr *b_dev, czk_fr *c_dev,
                                         unsigned log_m, czk_h_convention conv, void *stream,
                                         czk_err *err);

/**
 * Free the twiddle and coset tables cached for GPU `gpu` (no transform may be running on
 * it). A later transform builds them again.
 */
CZK_API void czk_gpu_ntt_release(int gpu);

/* ------------------------------------------------------------------------------------ */
/* Device memory plan of the partition prover (src/groth16/gpu_plan.c)                  */
/* ------------------------------------------------------------------------------------ */

/**
 * How one key's proofs fit a GPU's memory. As much of the SRS stays resident as fits,
 * first the sections whose copies their MSMs would not hide (L, A, B_G1, B_G2, then H; the
 * last one taken partly: src/groth16/gpu_plan.c says why); the rest streams from
 * page-locked host memory through double buffers, each copy beside the MSM of the chunk
 * before. a, b, c go through the H step two at a time when
 * three do not fit, the witness comes after the H MSM when it cannot sit beside it, and
 * every MSM is cut into calls whose scratch fits. The planner is arithmetic on the key's
 * shape and the budget: the same plan on every machine, which the tests and the log show.
 */
typedef struct czk_gpu_plan {
    uint64_t budget;                   /**< device bytes the plan was made for */
    size_t resident[CZK_G16_SECTIONS]; /**< leading points of each section on the device */
    uint64_t resident_bytes;
    uint64_t streamed_bytes;           /**< base bytes copied per proof, at most */
    uint64_t copy_bytes;               /**< a, b, c and witness bytes copied per proof */
    bool abc_in_turn;  /**< a, b, c two at a time: a·b is formed before c is copied */
    bool witness_late; /**< the witness is copied after the H MSM, once H's memory is free */
    bool overlap;      /**< the witness MSMs run beside the H transforms and the H MSM */
    bool whole_tables; /**< the NTT keeps its 2^log_m twiddle level whole (2 vectors) */
    size_t msm_chunk;  /**< G1 scalars per MSM call and per streamed copy (G2: half); 0: whole */
    uint64_t msm_scratch; /**< scratch one MSM call may take (the bound it runs under; 0
                               with whole calls: unbounded) */
    uint64_t peak_bytes;  /**< estimated device bytes at the peak, resident included */
    uint64_t min_budget;  /**< the least budget any plan of this key fits */
    double est_copy_s;    /**< the copies of one proof at the planned bandwidth */
    double est_s;         /**< the planner's estimate of one proof (what it minimised) */
} czk_gpu_plan;

/** Inputs besides the key's shape and the budget; zero-initialised means the defaults. */
typedef struct czk_gpu_plan_opts {
    double h2d_gbps;   /**< host-to-device rate, GB/s (default 25: PCIe Gen4 x16) */
    /** Device bytes that another key's proof needs beside this key's resident sections
     *  (its working memory): resident sections leave it free. */
    uint64_t other_working;
    /** Per-proof device time when nothing streams, seconds (default: from the domain size,
     *  scaled from an H200's 2^27 partition). Streaming below it costs nothing. */
    double compute_s;
} czk_gpu_plan_opts;

/**
 * The fastest plan for proofs of `shape` (only its lengths are read) within `budget`
 * device bytes. CZK_ERESOURCE when no plan fits: the message names the minimum, which is
 * also in out->min_budget.
 */
CZK_API czk_status czk_gpu_plan_make(czk_gpu_plan *out, const czk_groth16_params *shape,
                                     uint64_t budget, const czk_gpu_plan_opts *opts,
                                     czk_err *err);
/** Whether every point of every section is resident. */
CZK_API bool czk_gpu_plan_all_resident(const czk_gpu_plan *p, const czk_groth16_params *shape);
/** The plan as one logfmt-style line ("resident=h,l:37% streamed_gb=..."); returns its length. */
CZK_API size_t czk_gpu_plan_format(const czk_gpu_plan *p, const czk_groth16_params *shape,
                                   char *buf, size_t cap);
/**
 * Scratch bytes one MSM of n scalars in group 1 (G1) or 2 (G2) may take on the device at
 * most (every scalar significant): the bound the planner cuts MSMs by.
 */
CZK_API uint64_t czk_gpu_msm_scratch_bound(int group, size_t n);

/* ------------------------------------------------------------------------------------ */
/* Groth16 partition prover (src/groth16/gpu_prove.cu)                                             */
/* ------------------------------------------------------------------------------------ */

/**
 * A proving key's bases (H, L, A, B_G1, B_G2) resident on one GPU, uploaded once and used
 * by every proof of that key on that GPU. A 32 GiB PoRep key takes about 48 GB; when it
 * does not fit, czk_gpu_srs_create fails with CZK_ERESOURCE and the caller proves with
 * srs = NULL (bases streamed from the host key in chunks, slower). Read-only once made:
 * several threads may prove with one SRS at the same time.
 */
typedef struct czk_gpu_srs czk_gpu_srs;

/** Upload pk's bases to GPU `gpu`. CZK_ERESOURCE when device memory runs out. */
CZK_API czk_status czk_gpu_srs_create(czk_gpu_srs **out, int gpu, const czk_groth16_params *pk,
                                      czk_err *err);
/**
 * For benchmarks at sizes where real bases are too slow to make: an SRS of the shape of
 * `pk` (only its lengths are read; its point arrays may be NULL) filled with distinct
 * pseudo-random subgroup points made on the GPU (czk_gpu_bases_synthesize). Proofs made
 * with it are not valid for any key.
 */
CZK_API czk_status czk_gpu_srs_synthesize(czk_gpu_srs **out, int gpu,
                                          const czk_groth16_params *pk, uint64_t seed,
                                          czk_err *err);
CZK_API void czk_gpu_srs_destroy(czk_gpu_srs *srs);


/**
 * An SRS of the shape of `pk` (only its lengths are read; its point arrays may be NULL)
 * with its device memory reserved and its points not yet set: czk_gpu_srs_fixed_base
 * fills it. For test parameters made straight on the GPU (czk_groth16_setup_circuit), so
 * that the points never exist on the host. CZK_ERESOURCE when device memory runs out.
 */
CZK_API czk_status czk_gpu_srs_create_empty(czk_gpu_srs **out, int gpu,
                                            const czk_groth16_params *pk, czk_err *err);
/**
 * Section `sec`[first + i] = k[i]·G for i < n (G the G1 generator, or G2's for B_G2),
 * k host scalars in Montgomery form: the fixed-base kernels of czk_gpu_g1s_fixed_base
 * write into the SRS directly, device to device, with no host copy of the points. Returns
 * when the points are written. CZK_EINVAL when [first, first + n) is outside the section.
 * Not to be called while the SRS is in use by a proof.
 */
CZK_API czk_status czk_gpu_srs_fixed_base(czk_gpu_srs *srs, czk_groth16_section sec,
                                          size_t first, const czk_fr *k, size_t n,
                                          czk_err *err);
/** Copy points [first, first + count) of section `sec` to the host (czk_g1_affine, or
 *  czk_g2_affine for B_G2). */
CZK_API czk_status czk_gpu_srs_download(const czk_gpu_srs *srs, czk_groth16_section sec,
                                        size_t first, size_t count, void *out, czk_err *err);
/**
 * An SRS of the shape of `shape` (only its lengths are read) holding on the device the
 * leading plan->resident[s] points of each section, their memory reserved and the points
 * not yet set (czk_gpu_srs_write fills them): for keys loaded straight from a file, whose
 * resident points never stay on the host. The other points stream at proof time from host
 * memory that czk_gpu_srs_set_host names. CZK_ERESOURCE when device memory runs out.
 */
CZK_API czk_status czk_gpu_srs_create_plan(czk_gpu_srs **out, int gpu,
                                           const czk_groth16_params *shape,
                                           const czk_gpu_plan *plan, czk_err *err);
/** Copy n decoded points from host memory (page-locked: at full speed) into resident
 *  points [first, first + n) of section sec; returns when they are on the device. */
CZK_API czk_status czk_gpu_srs_write(czk_gpu_srs *srs, czk_groth16_section sec, size_t first,
                                     const void *pts, size_t n, czk_err *err);
/**
 * Host memory holding section sec's points from its first non-resident one on (`tail`
 * points at point czk_gpu_srs_resident(srs, sec)), which proofs stream; page-locked for
 * full speed. The caller keeps it while the SRS is in use.
 */
CZK_API void czk_gpu_srs_set_host(czk_gpu_srs *srs, czk_groth16_section sec, const void *tail);
/**
 * A .params file's points decoded by the GPUs instead of the host's cores: the encoded
 * bytes are read from the file into page-locked memory and copied to each device, which
 * converts them to Montgomery form and checks what czk_groth16_params_file_decode checks
 * without the subgroup (flags, identity, canonical coordinates, the curve). A point it
 * refuses is decoded again on the host for the error, which names the file, the section
 * and the index as the host reader does. One loader serves one thread.
 */
typedef struct czk_gpu_loader czk_gpu_loader;
/** A loader for file f on the GPUs `gpus` (the first also decodes points for the host);
 *  `pool` (may be NULL) copies the bytes. CZK_ERESOURCE when its staging does not fit. */
CZK_API czk_status czk_gpu_loader_create(czk_gpu_loader **out, czk_groth16_params_file *f,
                                         const int *gpus, size_t ngpus, czk_pool *pool,
                                         czk_err *err);
/**
 * Decode points [first, first + n) of section sec into resident points [first, first + n)
 * of each of srs[0 .. nsrs) (SRSs on the loader's GPUs; the range must be resident in
 * each), and when `host` is not NULL into host[0 .. n) as well (czk_g1_affine, or
 * czk_g2_affine for B_G2; page-locked for full speed: the encoded points are read into it
 * and decoded there and back). Returns when every point is written.
 */
CZK_API czk_status czk_gpu_loader_decode(czk_gpu_loader *l, czk_groth16_section sec,
                                         size_t first, size_t n, czk_gpu_srs *const *srs,
                                         size_t nsrs, void *host, czk_err *err);
CZK_API void czk_gpu_loader_destroy(czk_gpu_loader *l);
/** Points of section sec on the device. */
CZK_API size_t czk_gpu_srs_resident(const czk_gpu_srs *srs, czk_groth16_section sec);
/** Device bytes the SRS holds. */
CZK_API uint64_t czk_gpu_srs_bytes(const czk_gpu_srs *srs);
/** The GPU the SRS lives on, or -1 for NULL. */
CZK_API int czk_gpu_srs_gpu(const czk_gpu_srs *srs);

/** Where the B_G2 MSM runs. */
typedef enum czk_gpu_b2_where {
    CZK_GPU_B2_AUTO = 0, /* the default: see src/groth16/gpu_prove.cu for the measured choice */
    CZK_GPU_B2_GPU = 1,  /* on the GPU after the G1 MSMs */
    CZK_GPU_B2_CPU = 2   /* on the CPU pool (czk_g2s_msm), concurrently with the GPU work */
} czk_gpu_b2_where;

/** Options of czk_gpu_prove_ex; zero-initialised means the defaults. */
typedef struct czk_gpu_prove_opts {
    czk_gpu_b2_where b2;
    /** Bases per streamed chunk when srs is NULL (0: the default, 2^24). */
    size_t stream_chunk;
    /** Run the witness MSMs (L, A, B) after H instead of beside it on a second host
     *  thread (for measurements; streaming always runs them after H). */
    bool no_overlap;
    /**
     * Called at most once, on the calling thread, when every copy of this proof has landed
     * and H is ready, if the device has room for a second proof beside this one's MSMs
     * (the buffers of the largest proof this GPU has run and, in the worst case, two of
     * its H MSMs' scratch at once: the next proof may be of another circuit).
     * From then on this proof only computes, so a caller that serializes proofs on a GPU
     * may let the next one start: its copies then overlap these MSMs instead of leaving
     * the SMs idle while they run. Not called when the room is missing.
     */
    void (*on_compute)(void *arg);
    void *on_compute_arg;
    /** A latency-bound proof (the express lane's WinningPoSt): its MSMs run on streams of
     *  the device's highest priority, so their blocks go before those of the long proofs
     *  it shares the GPU with. */
    bool urgent;
    /**
     * Packed forms (include/czk/pack.h) of a, b, c (asg->n_rows elements each: the rows
     * before bellperson's input rows) and of the aux values, or NULL: each one given is
     * copied in place of its plain vector and expanded on the device, a much shorter copy
     * for a Filecoin partition's mostly-0/1 vectors. They must hold the assignment's
     * values (the plain vectors are still read for bellperson's input rows and by B_G2 on
     * the CPU). Page-locked buffers copy at full speed.
     */
    const struct czk_packed_vec *packed_abc[3];
    const struct czk_packed_vec *packed_aux;
    /**
     * The device memory plan of this key on this GPU (czk_gpu_plan_make), or NULL: the
     * order of the H step (a, b, c at once or two at a time), when the witness is copied,
     * whether the witness MSMs overlap H, and the size of each MSM call and its scratch.
     * Which points are resident is the SRS's (czk_gpu_srs_create_plan). Packed copies are
     * used only with the at-once order and an early witness. NULL: a, b, c at once, whole
     * MSMs over a resident SRS, streamed ones in calls of stream_chunk.
     */
    const czk_gpu_plan *plan;
} czk_gpu_prove_opts;

/** What one GPU proof did; CUDA-event times of the device stages in seconds. */
typedef struct czk_gpu_prove_stats {
    uint64_t h2d_bytes;   /**< witness and a, b, c bytes copied to the device */
    double h2d_s;         /**< from the first copy's start to the last copy's end */
    uint64_t srs_h2d_bytes; /**< bases streamed from the host (0 with a resident SRS) */
    bool host_pinned;     /**< a, b, c and aux were all page-locked host memory */
    bool b2_on_cpu;
    double ntt_s;         /**< H: transforms and the elementwise steps */
    double msm_h_s, msm_l_s, msm_a_s, msm_b1_s, msm_b2_s; /**< device time of each MSM
                                                            (msm_b2_s: CPU wall time there) */
    double gpu_s;         /**< wall time from the first copy to the last MSM result */
    size_t h_sig, l_sig;  /**< significant (not 0/1) scalars in the H and L MSMs */
    bool overlapped;      /**< opts.on_compute was called */
    /** Host wall clock from the call's start to: the copies and transforms queued
     * (t_queued_s), H ready (t_h_s), on_compute called (t_handoff_s, 0 if not), the H MSM's
     * result (t_msm_h_s), and each witness MSM's result (t_l_s, t_a_s, t_b1_s, t_b2_s; on
     * their own thread, beside the H MSM). Where a proof's time goes when proofs overlap. */
    double t_queued_s, t_h_s, t_handoff_s, t_msm_h_s, t_l_s, t_a_s, t_b1_s, t_b2_s;
    int packed_vectors; /**< how many of a, b, c and aux came packed (opts.packed_*) */
    unsigned msm_calls; /**< device MSM calls of the proof (more than 8 when cut by a plan) */
    unsigned msm_cuts;  /**< calls cut in two because their scratch did not fit */
} czk_gpu_prove_stats;

/**
 * Prove one circuit (one partition) on GPU `gpu`, with the bytes czk_groth16_prove makes
 * for the same r and s (r, s NULL: fresh from the OS CSPRNG). The assignment's a, b, c
 * and aux are copied straight from the caller's buffers with asynchronous copies that
 * overlap the transforms: page-locked buffers (czk_gpu_host_alloc) copy at full PCIe
 * speed, ordinary memory works at a fraction of it. As in czk_groth16_prove, a, b, c must
 * hold 2^log_m elements and are overwritten (for bellperson the input rows are appended
 * in them). srs: the key's bases resident on this GPU, or NULL to stream them from pk.
 * `pool` runs the host-side parts (B_G2 when it runs on the CPU). `t` (may be NULL) gets
 * the stage times. CZK_ENOGPU without a usable GPU, CZK_ERESOURCE when device memory
 * runs out, CZK_ECUDA for other CUDA failures, CZK_EINVAL for inconsistent shapes.
 * Device memory besides the SRS: a, b, c and the witness (17 GB at 2^27, from a pool
 * kept between proofs) and the MSM scratch (about 21 GB at its peak, for the H MSM at
 * 2^27). Several threads may prove at once on one GPU (measured on an H200 with the
 * measured PoRep witness profile: two 2^27 partitions at once 1.29 s a partition, one at a
 * time 1.36 s, back to back handed on at opts.on_compute 1.15 s).
 */
CZK_API czk_status czk_gpu_prove(czk_groth16_proof *out, int gpu, const czk_groth16_params *pk,
                                 const czk_gpu_srs *srs, const czk_groth16_assignment *asg,
                                 const czk_fr *r, const czk_fr *s, czk_pool *pool,
                                 czk_groth16_timings *t, czk_err *err);

/** czk_gpu_prove with options (NULL: defaults) and statistics (NULL: none). */
CZK_API czk_status czk_gpu_prove_ex(czk_groth16_proof *out, int gpu,
                                    const czk_groth16_params *pk, const czk_gpu_srs *srs,
                                    const czk_groth16_assignment *asg, const czk_fr *r,
                                    const czk_fr *s, czk_pool *pool,
                                    const czk_gpu_prove_opts *opts, czk_groth16_timings *t,
                                    czk_gpu_prove_stats *stats, czk_err *err);

/* ------------------------------------------------------------------------------------ */
/* Fixed-base multiplication of the generators (cuda/fixed_base.cu)                     */
/* ------------------------------------------------------------------------------------ */

/**
 * out[i] = k[i]·G for the standard generator G of G1 (or G2), i < n, in affine form with
 * the CPU library's encoding (a zero scalar gives infinity, (0, 0)); the result is the same
 * as the CPU's. For generating test parameters. Host arrays; n may exceed device memory
 * (it is processed in chunks). A window table of the generator (2.6 MB for G1, 5.1 MB for
 * G2) is built on the first call per GPU and kept until the process exits; the working
 * memory (about 0.5 GB page-locked and 1 GB on the device at most) is kept between calls
 * until czk_gpu_fixed_base_release. Concurrent calls on one GPU take turns.
 * CZK_ENOGPU without a usable GPU, CZK_ERESOURCE when device or pinned memory runs out,
 * CZK_ECUDA for other CUDA failures.
 */
CZK_API czk_status czk_gpu_g1s_fixed_base(int gpu, czk_g1_affine *out, const czk_fr *k,
                                          size_t n, czk_err *err);
CZK_API czk_status czk_gpu_g2s_fixed_base(int gpu, czk_g2_affine *out, const czk_fr *k,
                                          size_t n, czk_err *err);
/** Free the working memory the fixed-base calls keep for GPU `gpu` (none may be running). */
CZK_API void czk_gpu_fixed_base_release(int gpu);

#ifdef __cplusplus
}
#endif
#endif
