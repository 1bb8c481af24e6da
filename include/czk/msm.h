/*
 * czk — multi-scalar multiplication on the CPU (Pippenger, multithreaded).
 *
 * out = sum_i s_i · P_i. Scalars are canonical (not Montgomery) 256-bit little-endian limbs,
 * as Fr::to_repr gives them; values >= r are allowed and taken as integers.
 *
 * Density: Groth16 parameter files store bases only for the variables that occur in a
 * matrix. With a density bitmap (bit i of word i/64, LSB first), scalars cover all n
 * variables and the next base is consumed only for a set bit, exactly as bellperson's
 * density-filtered multiexp. NULL density means one base per scalar.
 */
#ifndef CZK_MSM_H
#define CZK_MSM_H

#include "czk/bls12_381.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A canonical scalar: four 64-bit limbs, least significant first. */
typedef struct czk_scalar {
    uint64_t l[4];
} czk_scalar;

/** Convert Montgomery Fr elements to canonical scalars (in parallel over the pool). */
CZK_API void czk_frs_to_scalars(czk_scalar *out, const czk_fr *in, size_t n, czk_pool *pool);

/** Number of set bits among the first n bits of a density bitmap. */
CZK_API size_t czk_density_count(const uint64_t *density, size_t n);

/** Scratch bytes czk_g1s_msm needs for n scalars on `nthreads` workers. */
CZK_API size_t czk_g1s_msm_scratch_size(size_t n, unsigned nthreads);
CZK_API size_t czk_g2s_msm_scratch_size(size_t n, unsigned nthreads);

/**
 * out = sum over i < n with density bit i set (all i when density is NULL) of
 * scalars[i] · bases[k(i)], k(i) = number of set bits before i. `scratch` holds
 * czk_g1s_msm_scratch_size(n, czk_pool_size(pool)) bytes, or is NULL to allocate.
 * Infinity bases are allowed (they contribute nothing).
 */
CZK_API void czk_g1s_msm(czk_g1_jac *out, const czk_g1_affine *bases, const czk_scalar *scalars,
                         size_t n, const uint64_t *density, void *scratch, czk_pool *pool);
CZK_API void czk_g2s_msm(czk_g2_jac *out, const czk_g2_affine *bases, const czk_scalar *scalars,
                         size_t n, const uint64_t *density, void *scratch, czk_pool *pool);

/** Straightforward reference: sum of scalar multiplications (tests only; slow). */
CZK_API void czk_g1s_msm_naive(czk_g1_jac *out, const czk_g1_affine *bases,
                               const czk_scalar *scalars, size_t n, const uint64_t *density);
CZK_API void czk_g2s_msm_naive(czk_g2_jac *out, const czk_g2_affine *bases,
                               const czk_scalar *scalars, size_t n, const uint64_t *density);

#ifdef __cplusplus
}
#endif
#endif
