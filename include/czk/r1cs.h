/*
 * czk — R1CS matrices in CSR form, shared by the .r1cs reader, the constraint system's
 * recording mode (the pre-compiled constraint evaluator) and the snarkjs zkey reader.
 *
 * Variable numbering is the witness vector z: z[0] = 1 (the ONE input), z[1 .. n_inputs-1]
 * the other public inputs in allocation order, then z[n_inputs .. n_inputs+n_aux-1] the
 * aux variables in allocation order. For a circom .r1cs this is exactly the wire order
 * (wire 0 = 1, outputs, public inputs, then the rest), with n_inputs = 1 + nOutputs +
 * nPubInputs.
 */
#ifndef CZK_R1CS_H
#define CZK_R1CS_H

#include "czk/bls12_381.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One sparse matrix, rows = constraints. Row j's terms are col[row_ptr[j] .. row_ptr[j+1]). */
typedef struct czk_csr {
    uint64_t *row_ptr; /* n_rows + 1 entries */
    uint32_t *col;     /* variable index into z */
    czk_fr *val;       /* coefficient, Montgomery form, non-zero */
    uint64_t nnz;
} czk_csr;

typedef struct czk_r1cs {
    uint32_t n_inputs;      /* public inputs including ONE */
    uint32_t n_aux;         /* private variables */
    uint32_t n_constraints; /* rows */
    czk_csr a, b, c;
    bool has_c; /* false for matrices from a zkey (snarkjs sets C = A·B pointwise) */
} czk_r1cs;

/** Allocate an empty r1cs with room for the given counts (row_ptr arrays sized, nnz 0). */
CZK_API czk_status czk_r1cs_alloc(czk_r1cs *r, uint32_t n_inputs, uint32_t n_aux,
                                  uint32_t n_constraints, uint64_t nnz_a, uint64_t nnz_b,
                                  uint64_t nnz_c, czk_err *err);
CZK_API void czk_r1cs_free(czk_r1cs *r);

/**
 * Evaluate a = A·z, b = B·z, c = C·z (c = a∘b when !has_c) into caller buffers of at least
 * n_constraints elements, in parallel over the pool. z holds n_inputs + n_aux elements.
 */
CZK_API void czk_r1cs_eval(const czk_r1cs *r, const czk_fr *z, czk_fr *a, czk_fr *b, czk_fr *c,
                           czk_pool *pool);

/** True when every constraint holds for z; *first_bad gets the first failing row. */
CZK_API bool czk_r1cs_is_satisfied(const czk_r1cs *r, const czk_fr *z, uint32_t *first_bad);

/**
 * Density bitmaps as bellperson tracks them: bit k of a_aux set iff aux k has a non-zero
 * coefficient in some row of A; b_input bit i iff input i occurs in B; b_aux likewise.
 * Bitmaps are ceil(n/64) words each, caller-allocated.
 */
CZK_API void czk_r1cs_densities(const czk_r1cs *r, uint64_t *a_aux, uint64_t *b_input,
                                uint64_t *b_aux);

#ifdef __cplusplus
}
#endif
#endif
