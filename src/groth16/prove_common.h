/*
 * Parts of the Groth16 prover shared by the CPU prover (prover.c) and the GPU prover
 * (src/groth16/gpu_prove.cu): the shape checks, the blinding scalars and the assembly of the proof
 * from the MSM results, so both make the same bytes for the same r and s.
 */
#ifndef CZK_GROTH16_PROVE_COMMON_H
#define CZK_GROTH16_PROVE_COMMON_H

#include "czk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The eight MSM results of one proof (inputs and aux halves kept apart, as computed). */
typedef struct czk__groth16_msms {
    czk_g1_jac h, l, a_in, a_aux, b1_in, b1_aux;
    czk_g2_jac b2_in, b2_aux;
} czk__groth16_msms;

/** Check that the key's section lengths fit the assignment's shape and densities. */
czk_status czk__groth16_check_shapes(const czk_groth16_params *pk,
                                     const czk_groth16_assignment *asg, czk_err *err);

/** r, s from the arguments, or fresh from the OS CSPRNG where NULL. */
czk_status czk__groth16_blinding(czk_fr *r, czk_fr *s, const czk_fr *r_in, const czk_fr *s_in,
                                 czk_err *err);

/**
 * The proof from the MSM results:
 *   A = α + Σ a_i·A_i + r·δ,  B = β + Σ b_i·B_i + s·δ (G2),
 *   C = s·(Σ a_i·A_i) + r·(Σ b_i·B1_i) + r·s·δ + s·α + r·β + H + L.
 */
void czk__groth16_assemble(czk_groth16_proof *out, const czk_groth16_params *pk,
                           const czk__groth16_msms *m, const czk_fr *r, const czk_fr *s);

#ifdef __cplusplus
}
#endif
#endif
