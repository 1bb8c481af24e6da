/*
 * Groth16 verifier (bellperson's equations, docs/formats.md §4.5): single proofs with a
 * prepared key, and batches with a random linear combination that costs one Miller loop
 * per proof plus three, and one final exponentiation in all.
 */
#include "czk/alloc.h"
#include "czk/groth16.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

void czk_groth16_prepare_vk(czk_groth16_pvk *out, const czk_groth16_vk *vk)
{
    czk_pairing(&out->alpha_beta, &vk->alpha_g1, &vk->beta_g2);
    out->gamma_g2 = vk->gamma_g2;
    out->delta_g2 = vk->delta_g2;
    czk_g2_affine_neg(&out->neg_gamma_g2, &vk->gamma_g2);
    czk_g2_affine_neg(&out->neg_delta_g2, &vk->delta_g2);
    out->vk = vk;
}

/* acc = Σ_i coeff_i · ic[i] over all ic_len points (coeff_0 included). */
static czk_status ic_combination(czk_g1_affine *out, const czk_groth16_vk *vk,
                                 const czk_scalar *coeffs, czk_err *err)
{
    czk_g1_jac acc;
    czk_g1s_msm(&acc, vk->ic, coeffs, vk->ic_len, NULL, NULL, NULL);
    czk_g1_jac_to_affine(out, &acc);
    return CZK_OK;
}

czk_status czk_groth16_verify(const czk_groth16_pvk *pvk, const czk_groth16_proof *proof,
                              const czk_fr *pub, size_t n_pub, czk_err *err)
{
    const czk_groth16_vk *vk = pvk->vk;
    if (n_pub + 1 != vk->ic_len)
        return czk_err_set(err, CZK_EINVAL,
                           "verify: %zu public inputs given, the key expects %zu", n_pub,
                           vk->ic_len - 1);
    czk_scalar *coeffs = czk_malloc((n_pub + 1) * sizeof *coeffs);
    if (coeffs == NULL) return czk_err_set(err, CZK_ENOMEM, "verify: out of memory");
    czk_fr one = CZK_FR_ONE;
    czk_frs_to_scalars(coeffs, &one, 1, NULL);
    if (n_pub > 0) czk_frs_to_scalars(coeffs + 1, pub, n_pub, NULL);
    czk_g1_affine acc;
    czk_status st = ic_combination(&acc, vk, coeffs, err);
    czk_free(coeffs);
    if (st != CZK_OK) return st;

    /* e(A, B) · e(acc, −γ) · e(C, −δ) == e(α, β) */
    czk_g1_affine ps[3] = {proof->a, acc, proof->c};
    czk_g2_affine qs[3] = {proof->b, pvk->neg_gamma_g2, pvk->neg_delta_g2};
    czk_fp12 f, e;
    czk_miller_loop(&f, ps, qs, 3);
    czk_final_exp(&e, &f);
    if (!czk_fp12_eq(&e, &pvk->alpha_beta))
        return czk_err_set(err, CZK_EVERIFY, "verify: pairing check failed");
    return CZK_OK;
}

static czk_status random_u128(uint64_t out[2])
{
    uint8_t buf[16];
    size_t got = 0;
    while (got < sizeof buf) {
        ssize_t n = getrandom(buf + got, sizeof buf - got, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return CZK_EIO;
        }
        got += (size_t)n;
    }
    memcpy(out, buf, sizeof buf);
    return CZK_OK;
}

czk_status czk_groth16_verify_batch(const czk_groth16_pvk *pvk, const czk_groth16_proof *proofs,
                                    size_t n_proofs, const czk_fr *pub, size_t n_pub, czk_err *err)
{
    const czk_groth16_vk *vk = pvk->vk;
    if (n_pub + 1 != vk->ic_len)
        return czk_err_set(err, CZK_EINVAL,
                           "verify: %zu public inputs per proof given, the key expects %zu",
                           n_pub, vk->ic_len - 1);
    if (n_proofs == 0) return CZK_OK;
    if (n_proofs == 1) return czk_groth16_verify(pvk, proofs, pub, n_pub, err);

    /*
     * With random 128-bit z_j:
     *   Π_j e(z_j·A_j, B_j) · e(Σ_j z_j·acc_j, −γ) · e(Σ_j z_j·C_j, −δ) == e(α, β)^(Σ_j z_j)
     * where Σ_j z_j·acc_j = Σ_i (Σ_j z_j·x_{j,i})·ic_i with x_{j,0} = 1.
     */
    czk_status st = CZK_OK;
    size_t np = n_proofs + 2;
    czk_g1_affine *ps = czk_malloc(np * sizeof *ps);
    czk_g2_affine *qs = czk_malloc(np * sizeof *qs);
    czk_fr *icw = czk_calloc(vk->ic_len, sizeof *icw);
    czk_scalar *coeffs = czk_malloc(vk->ic_len * sizeof *coeffs);
    if (!ps || !qs || !icw || !coeffs) {
        st = czk_err_set(err, CZK_ENOMEM, "verify batch: out of memory");
        goto done;
    }
    czk_fr zsum = CZK_FR_ZERO;
    czk_g1_jac csum;
    czk_g1_jac_set_inf(&csum);
    for (size_t j = 0; j < n_proofs; j++) {
        uint64_t zl[4] = {0, 0, 0, 0};
        if ((st = random_u128(zl)) != CZK_OK) {
            czk_err_set(err, st, "verify batch: no randomness from the OS");
            goto done;
        }
        czk_fr z;
        czk_fr_from_u64s(&z, zl); /* < 2^128 < r */
        czk_fr_add(&zsum, &zsum, &z);
        czk_fr_add(&icw[0], &icw[0], &z);
        for (size_t i = 0; i < n_pub; i++) {
            czk_fr t;
            czk_fr_mul(&t, &z, &pub[j * n_pub + i]);
            czk_fr_add(&icw[i + 1], &icw[i + 1], &t);
        }
        czk_g1_jac a, c;
        czk_g1_jac_from_affine(&a, &proofs[j].a);
        czk_g1_jac_mul(&a, &a, zl, 2);
        czk_g1_jac_to_affine(&ps[j], &a);
        qs[j] = proofs[j].b;
        czk_g1_jac_from_affine(&c, &proofs[j].c);
        czk_g1_jac_mul(&c, &c, zl, 2);
        czk_g1_jac_add(&csum, &csum, &c);
    }
    czk_frs_to_scalars(coeffs, icw, vk->ic_len, NULL);
    if ((st = ic_combination(&ps[n_proofs], vk, coeffs, err)) != CZK_OK) goto done;
    qs[n_proofs] = pvk->neg_gamma_g2;
    czk_g1_jac_to_affine(&ps[n_proofs + 1], &csum);
    qs[n_proofs + 1] = pvk->neg_delta_g2;

    czk_fp12 f, lhs, rhs;
    czk_miller_loop(&f, ps, qs, np);
    czk_final_exp(&lhs, &f);
    uint64_t e[4];
    czk_fr_to_u64s(e, &zsum);
    czk_fp12_pow(&rhs, &pvk->alpha_beta, e, 4);
    if (!czk_fp12_eq(&lhs, &rhs)) st = czk_err_set(err, CZK_EVERIFY, "verify batch: pairing check failed");
done:
    czk_free(ps);
    czk_free(qs);
    czk_free(icw);
    czk_free(coeffs);
    return st;
}
