/*
 * czk — Poseidon over the BLS12-381 scalar field, exactly as neptune (the hash of
 * rust-fil-proofs) computes it: width t = arity + 1, S-box x^5, R_F = 8 full rounds,
 * R_P partial rounds per arity (2:55, 4:56, 8:57, 11:57, 16:59, 24:59, 36:60), round
 * constants from the Grain LFSR, Cauchy MDS matrix M[i][j] = 1/(i + t + j), digest =
 * state[1] after the permutation.
 *
 * The initial state is [domain tag, preimage..., zero padding]. Parameter sets are
 * derived on first use (thread-safe) and live for the whole process; hashing allocates
 * nothing and cannot fail once its arguments are valid.
 *
 * Field elements are czk_fr (Montgomery form), as everywhere in czk.
 */
#ifndef CZK_POSEIDON_H
#define CZK_POSEIDON_H

#include "czk/bls12_381.h"
#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest supported arity (neptune supports up to 36); the width is arity + 1. */
#define CZK_POSEIDON_MAX_ARITY 36
#define CZK_POSEIDON_MAX_WIDTH (CZK_POSEIDON_MAX_ARITY + 1)

/** The constants of one arity: round constants, MDS matrix and the optimized form's
 *  compressed constants and sparse matrices. Opaque; obtained from czk_poseidon_params_get(). */
typedef struct czk_poseidon_params czk_poseidon_params;

/**
 * The parameter set of `arity` (2, 4, 8, 11, 16, 24 or 36), or NULL for any other arity.
 * The first call for an arity derives its constants (from under 1 ms for arity 2 to
 * tens of ms for arity 36); concurrent first calls are safe and later calls only load a
 * pointer.
 */
CZK_API const czk_poseidon_params *czk_poseidon_params_get(unsigned arity);

/** The arity of a parameter set. */
CZK_API unsigned czk_poseidon_arity(const czk_poseidon_params *p);

/** neptune's HashType: selects the domain tag (state[0]) and the preimage rules. */
typedef enum czk_poseidon_hash_type {
    /** 2^arity − 1; the preimage has exactly `arity` elements (Filecoin's trees, columns). */
    CZK_POSEIDON_MERKLE_TREE = 0,
    /** L·2^64; preimage of L elements, 1 ≤ L ≤ arity, zero-padded to the width. */
    CZK_POSEIDON_CONSTANT_LENGTH,
    /** id·2^40, id in 1..256; preimage of exactly `arity` elements. rust-fil-proofs'
     *  GenRandomness hashes with Custom(1) at arity 2. */
    CZK_POSEIDON_CUSTOM,
    /** 2^32; preimage of exactly `arity` elements. */
    CZK_POSEIDON_ENCRYPTION,
    /** 2^64. neptune defines the tag but refuses to hash with it, and so does czk:
     *  czk_poseidon_domain_tag() gives the tag, czk_poseidon_hash() returns EUNSUPPORTED. */
    CZK_POSEIDON_VARIABLE_LENGTH,
} czk_poseidon_hash_type;

/**
 * The domain tag of a hash type. `param` is L for CONSTANT_LENGTH (1..arity), the id for
 * CUSTOM (1..256), and ignored otherwise. CZK_EINVAL for an out-of-range param or type.
 */
CZK_API czk_status czk_poseidon_domain_tag(czk_fr *out, const czk_poseidon_params *p,
                                           czk_poseidon_hash_type type, uint64_t param);

/**
 * Poseidon hash of `in[0..n)` with the given hash type (param as in
 * czk_poseidon_domain_tag). CZK_EINVAL when n does not fit the type (see the enum),
 * CZK_EUNSUPPORTED for VARIABLE_LENGTH. Uses the optimized permutation.
 */
CZK_API czk_status czk_poseidon_hash(czk_fr *out, const czk_poseidon_params *p,
                                     czk_poseidon_hash_type type, uint64_t param, const czk_fr *in,
                                     size_t n);

/** Merkle-tree node: the hash of exactly arity(p) children with the MerkleTree tag. */
CZK_API void czk_poseidon_merkle(czk_fr *out, const czk_poseidon_params *p, const czk_fr *in);

/** Binary Merkle node H(a, b) (arity 2, MerkleTree tag): comm_r = H(comm_c, comm_r_last). */
CZK_API void czk_poseidon_merkle2(czk_fr *out, const czk_fr *a, const czk_fr *b);

/**
 * The permutation alone, in place on a full state of arity(p) + 1 elements (state[0]
 * is the domain tag slot). Optimized form; the result equals the plain permutation.
 */
CZK_API void czk_poseidon_permute(const czk_poseidon_params *p, czk_fr *state);

#ifdef __cplusplus
}
#endif
#endif /* CZK_POSEIDON_H */
