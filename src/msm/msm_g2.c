/* MSM over G2: the bucket method of pippenger_impl.h instantiated over Fp2. */
#include "msm_field.h"
#include "msm_internal.h"

typedef czk_fp2 fe;
typedef czk_g2_affine ec_aff;
typedef czk_g2_xyzz ec_xyzz;
typedef czk_g2_jac ec_jac;

#define fe_add     msm_fp2_add
#define fe_sub     msm_fp2_sub
#define fe_neg     msm_fp2_neg
#define fe_is_zero msm_fp2_is_zero
#define fe_eq      msm_fp2_eq
#define fe_mul     msm_fp2_mul
#define fe_sqr     msm_fp2_sqr
#define fe_inv     czk_fp2_inv
#define FE_ONE     CZK_FP2_ONE
#define MSM_GROUP  czk__msm_g2_group

static inline void fe_dbl(czk_fp2 *r, const czk_fp2 *a)
{
    msm_fp2_add(r, a, a);
}

/*
 * Batch inversions run over Fp: 1/d = conj(d)/N(d) with the norm N(d) = c0^2 + c1^2 in Fp.
 * Per element that is 2 squarings for the norm, 3 Fp products in Montgomery's trick and 2
 * for conj(d)·(1/N): 7 Fp multiplications instead of 9 for the trick over Fp2.
 */
typedef czk_fp fe_den;
#define DEN_ONE CZK_FP_ONE
#define den_mul czk_fp_mul
#define den_inv czk_fp_inv
static inline void den_from(czk_fp *n, const czk_fp2 *d)
{
    czk_fp t;
    czk_fp_sqr(n, &d->c0);
    czk_fp_sqr(&t, &d->c1);
    msm_fp_add(n, n, &t);
}
static inline void inv_finish(czk_fp2 *r, const czk_fp2 *d, const czk_fp *ninv)
{
    czk_fp t;
    czk_fp_mul(&r->c0, &d->c0, ninv);
    czk_fp_mul(&t, &d->c1, ninv);
    msm_fp_neg(&r->c1, &t);
}

/*
 * Costs in Fp multiplications: an Fp2 product is three, a square two, plus their
 * additions; a batch-affine addition is 17 with the norm trick above. Batch inversions
 * invert in Fp (about 55 multiplications).
 */
const czk__msm_group czk__msm_g2_group = {
    .fe_size = sizeof(czk_fp2),
    .aff_size = sizeof(czk_g2_affine),
    .xyzz_size = sizeof(czk_g2_xyzz),
    .madd = 32.0,
    .add = 45.0,
    .dbl = 26.0,
    .ba_add = 18.0,
    .acc_extra = 3.0,
    .inv = 60.0,
    .batch_max = 512,
};

#include "pippenger_impl.h"

size_t czk_g2s_msm_scratch_size(size_t n, unsigned nthreads)
{
    return msm_scratch_size(n, nthreads);
}

void czk_g2s_msm(czk_g2_jac *out, const czk_g2_affine *bases, const czk_scalar *scalars, size_t n,
                 const uint64_t *density, void *scratch, czk_pool *pool)
{
    czk_g2_xyzz acc;
    msm_run(&acc, bases, scalars, n, density, scratch, pool);
    xyzz_to_jac(out, &acc);
}

void czk_g2s_msm_naive(czk_g2_jac *out, const czk_g2_affine *bases, const czk_scalar *scalars,
                       size_t n, const uint64_t *density)
{
    czk_g2_jac_set_inf(out);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (density != NULL && !((density[i / 64] >> (i % 64)) & 1)) continue;
        czk_g2_jac p, t;
        czk_g2_jac_from_affine(&p, &bases[k++]);
        czk_g2_jac_mul(&t, &p, scalars[i].l, 4);
        czk_g2_jac_add(out, out, &t);
    }
}
