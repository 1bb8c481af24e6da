/*
 * czk — circuit information for Filecoin's proof circuits: the sizes and densities of one
 * partition's constraint system, as a COUNT-mode synthesis gives them without a witness.
 * Each circuit kind has its own function; `czk circuit-info` dispatches on --proof.
 */
#ifndef CZK_CIRCUITS_H
#define CZK_CIRCUITS_H

#include <stdint.h>

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Sizes of one partition's circuit (inputs include ONE; densities count set bits). */
typedef struct czk_circuit_info {
    uint64_t constraints;
    uint64_t inputs;
    uint64_t aux;
    uint64_t a_aux_density;
    uint64_t b_input_density;
    uint64_t b_aux_density;
} czk_circuit_info;

/** The PoRep StackedCircuit (one partition) of registered seal proof `seal_proof`
 *  (a czk_seal_proof value of czk/seal_proof.h). */
CZK_API czk_status czk_circuit_porep_count(int seal_proof, czk_circuit_info *out, czk_err *err);
/** The SnapDeals EmptySectorUpdateCircuit (one partition) of `seal_proof`'s sector size. */
CZK_API czk_status czk_circuit_snap_count(int seal_proof, czk_circuit_info *out, czk_err *err);
/** The Window PoSt FallbackPoStCircuit (one partition) of `post_proof`. */
CZK_API czk_status czk_circuit_wpost_count(int post_proof, czk_circuit_info *out, czk_err *err);
/** The Winning PoSt FallbackPoStCircuit of `post_proof`. */
CZK_API czk_status czk_circuit_winning_count(int post_proof, czk_circuit_info *out, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_CIRCUITS_H */
