/*
 * Shape checks, blinding and proof assembly shared by the CPU and GPU Groth16 provers
 * (moved here from prover.c unchanged, so that both provers make the same bytes).
 */
#include "prove_common.h"

#include "czk/msm.h"

czk_status czk__groth16_check_shapes(const czk_groth16_params *pk,
                                     const czk_groth16_assignment *asg, czk_err *err)
{
    if (pk == NULL || asg == NULL || asg->a == NULL || asg->b == NULL || asg->c == NULL ||
        asg->inputs == NULL || (asg->aux == NULL && pk->n_aux > 0))
        return czk_err_set(err, CZK_EINVAL, "prove: missing key or assignment buffers");
    if (pk->log_m == 0 || pk->log_m > 31)
        return czk_err_set(err, CZK_EINVAL, "parameters: log_m %u out of range", pk->log_m);
    size_t m = (size_t)1 << pk->log_m;
    size_t want_h = pk->conv == CZK_H_BELLPERSON ? m - 1 : m;
    if (pk->h_len != want_h)
        return czk_err_set(err, CZK_EINVAL, "parameters: %zu H points, expected %zu", pk->h_len,
                           want_h);
    if (pk->l_len != pk->n_aux)
        return czk_err_set(err, CZK_EINVAL, "parameters: %zu L points for %u aux variables",
                           pk->l_len, pk->n_aux);
    size_t a_need = pk->n_inputs + (asg->a_aux_density
                                        ? czk_density_count(asg->a_aux_density, pk->n_aux)
                                        : pk->n_aux);
    size_t b_need = (asg->b_input_density ? czk_density_count(asg->b_input_density, pk->n_inputs)
                                          : pk->n_inputs) +
                    (asg->b_aux_density ? czk_density_count(asg->b_aux_density, pk->n_aux)
                                        : pk->n_aux);
    if (pk->a_len != a_need)
        return czk_err_set(err, CZK_EINVAL,
                           "parameters: %zu A points, the assignment's density needs %zu",
                           pk->a_len, a_need);
    if (pk->b_g1_len != b_need || pk->b_g2_len != b_need)
        return czk_err_set(err, CZK_EINVAL,
                           "parameters: %zu/%zu B points, the assignment's density needs %zu",
                           pk->b_g1_len, pk->b_g2_len, b_need);
    if (pk->vk.ic_len != pk->n_inputs)
        return czk_err_set(err, CZK_EINVAL, "parameters: %zu IC points for %u inputs",
                           pk->vk.ic_len, pk->n_inputs);
    return CZK_OK;
}

czk_status czk__groth16_blinding(czk_fr *r, czk_fr *s, const czk_fr *r_in, const czk_fr *s_in,
                                 czk_err *err)
{
    czk_status st;
    if (r_in != NULL) {
        *r = *r_in;
    } else if ((st = czk_fr_random(r)) != CZK_OK) {
        return czk_err_set(err, st, "prove: no randomness from the OS");
    }
    if (s_in != NULL) {
        *s = *s_in;
    } else if ((st = czk_fr_random(s)) != CZK_OK) {
        return czk_err_set(err, st, "prove: no randomness from the OS");
    }
    return CZK_OK;
}

void czk__groth16_assemble(czk_groth16_proof *out, const czk_groth16_params *pk,
                           const czk__groth16_msms *m, const czk_fr *r, const czk_fr *s)
{
    czk_g1_jac acc_a, acc_b1, t, c;
    czk_g1_jac_add(&acc_a, &m->a_in, &m->a_aux);
    czk_g1_jac_add(&acc_b1, &m->b1_in, &m->b1_aux);

    czk_g1_jac pa, alpha, beta1, delta1;
    czk_g1_jac_from_affine(&alpha, &pk->vk.alpha_g1);
    czk_g1_jac_from_affine(&beta1, &pk->vk.beta_g1);
    czk_g1_jac_from_affine(&delta1, &pk->vk.delta_g1);
    czk_g1_jac_mul_fr(&t, &delta1, r);
    czk_g1_jac_add(&pa, &alpha, &acc_a);
    czk_g1_jac_add(&pa, &pa, &t);

    czk_g2_jac pb, beta2, delta2, t2j;
    czk_g2_jac_from_affine(&beta2, &pk->vk.beta_g2);
    czk_g2_jac_from_affine(&delta2, &pk->vk.delta_g2);
    czk_g2_jac_add(&pb, &m->b2_in, &m->b2_aux);
    czk_g2_jac_add(&pb, &pb, &beta2);
    czk_g2_jac_mul_fr(&t2j, &delta2, s);
    czk_g2_jac_add(&pb, &pb, &t2j);

    czk_fr rs;
    czk_fr_mul(&rs, r, s);
    czk_g1_jac_mul_fr(&c, &acc_a, s);
    czk_g1_jac_mul_fr(&t, &acc_b1, r);
    czk_g1_jac_add(&c, &c, &t);
    czk_g1_jac_mul_fr(&t, &delta1, &rs);
    czk_g1_jac_add(&c, &c, &t);
    czk_g1_jac_mul_fr(&t, &alpha, s);
    czk_g1_jac_add(&c, &c, &t);
    czk_g1_jac_mul_fr(&t, &beta1, r);
    czk_g1_jac_add(&c, &c, &t);
    czk_g1_jac_add(&c, &c, &m->h);
    czk_g1_jac_add(&c, &c, &m->l);

    czk_g1_jac_to_affine(&out->a, &pa);
    czk_g2_jac_to_affine(&out->b, &pb);
    czk_g1_jac_to_affine(&out->c, &c);
}
