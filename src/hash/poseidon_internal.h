/*
 * Private to czk: the layout of a Poseidon parameter set, for the Poseidon circuit gadget
 * (src/gadgets), which must allocate exactly the intermediate states of neptune's
 * optimized ("static") algorithm, and for tests and benchmarks.
 *
 * Matrices are row-major t×t arrays, A[i][j] = a[i·t + j], and are applied to the state
 * as a row vector: state' [j] = sum_i state[i]·A[i][j] (neptune's product_mds_with_matrix).
 *
 * The optimized permutation, which the circuit mirrors step for step:
 *
 *   state += crc[0..t)                                     (pre-round constants)
 *   for r in 0..R_F/2:       state[i] = state[i]^5 + crc[off + i]; off += t;
 *                            state = state × (r < R_F/2 − 1 ? mds : pre_sparse)
 *   for k in 0..R_P:         state[0] = state[0]^5 + crc[off]; off += 1;
 *                            state = state × S_k, that is
 *                              state'[0] = sum_i w_hat[k·t + i]·state[i]
 *                              state'[j] = state[j] + v_rest[k·(t−1) + j − 1]·state[0], j ≥ 1
 *   for r in 1..R_F/2:       state[i] = state[i]^5 + crc[off + i]; off += t; state = state × mds
 *   last round:              state[i] = state[i]^5; state = state × mds
 *
 * with off starting at t and ending at t·R_F + R_P = len(crc).
 */
#ifndef CZK_FILECOIN_POSEIDON_INTERNAL_H
#define CZK_FILECOIN_POSEIDON_INTERNAL_H

#include "czk/poseidon.h"

#define CZK__POSEIDON_RF 8 /* full rounds, half before and half after the partial rounds */

struct czk_poseidon_params {
    unsigned arity;           /* preimage length of a Merkle hash */
    unsigned t;               /* width, arity + 1 */
    unsigned rf, rp;          /* full rounds (8) and partial rounds */
    czk_fr merkle_tag;        /* 2^arity − 1 */
    const czk_fr *rc;         /* (rf + rp)·t plain round constants, round r at rc + r·t */
    const czk_fr *mds;        /* t·t, M[i][j] = 1/(i + t + j), symmetric */
    const czk_fr *crc;        /* rf·t + rp compressed round constants (neptune
                               * compressed_round_constants) */
    const czk_fr *pre_sparse; /* t·t, replaces M in the last first-half full round */
    const czk_fr *w_hat;      /* rp·t: first column of sparse matrix k, S_k[i][0] (including
                               * S_k[0][0]), neptune SparseMatrix::w_hat */
    const czk_fr *v_rest;     /* rp·(t−1): S_k[0][j] for j ≥ 1, neptune SparseMatrix::v_rest */
};

/** The plain (unoptimized) permutation, the reference: per round add rc, S-box on all
 *  (full) or state[0] (partial) elements, multiply by M. */
void czk__poseidon_permute_plain(const czk_poseidon_params *p, czk_fr *state);

/** The optimized permutation (the algorithm above); czk_poseidon_permute calls it. Its
 *  matrix products reduce once per output element (lazy reduction). */
void czk__poseidon_permute_opt(const czk_poseidon_params *p, czk_fr *state);

/** out = sum_i a[i]·b[i] for n ≤ CZK_POSEIDON_MAX_WIDTH, with a single Montgomery
 *  reduction; inputs are any representations < r; out may alias an input. */
void czk__poseidon_dot(czk_fr *out, const czk_fr *a, const czk_fr *b, unsigned n);

#endif
