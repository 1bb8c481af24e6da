/*
 * czk — the SnapDeals circuit: rust-fil-proofs' EmptySectorUpdateCircuit
 * (storage-proofs-update/src/{circuit,gadgets,constants,challenges,compound}.rs),
 * constraint for constraint, and what it needs around it: the per-size parameters, the
 * witness of one partition, the public inputs as EmptySectorUpdateCompound generates
 * them, and the native phi / rho / challenge derivations (docs/formats.md §6).
 *
 * One partition k of a sector of `nodes` = 2^B nodes proves, for challenge_count
 * challenges c drawn from comm_r_new and k, that leaf_r_new = leaf_r_old + leaf_d_new·rho
 * with rho = H(phi, c >> (B − h)), phi = H(comm_d_new, comm_r_old), H being Poseidon-2
 * with the Custom(1) domain tag (2^40); that the three leaves sit at c in TreeROld,
 * TreeDNew and TreeRNew; and that comm_r_old / comm_r_new / comm_d_new commit to those
 * trees (through comm_c and the partition's apex leaves of TreeDNew).
 *
 * All 32-byte values (commitments, leaves, siblings) are little-endian Fr reprs, as
 * rust-fil-proofs' Domain types hold them.
 */
#ifndef CZK_SNAP_H
#define CZK_SNAP_H

#include "czk/circuits.h"
#include "czk/cs.h"
#include "czk/gadgets.h"
#include "czk/merkle.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Number of h values the circuit chooses among (constants.rs hs). */
#define CZK_SNAP_HS 6

/** PublicParams::from_sector_size plus the TreeR shape validate_tree_r_shape expects. */
typedef struct czk_snap_params {
    uint64_t sector_size; /* bytes */
    uint64_t nodes;       /* sector_size / 32, a power of two */
    unsigned challenge_count;
    unsigned challenge_bit_len; /* log2(nodes) */
    unsigned partition_count;
    unsigned partition_bit_len;
    unsigned apex_leaf_count;
    unsigned apex_leaf_bit_len;
    unsigned hs[CZK_SNAP_HS]; /* the allowed h; h_default = hs[3] */
    czk_por_shape tree_r;     /* Poseidon TreeR shape (8-0-0, 8-8-0, 8-8-2, test shapes) */
} czk_snap_params;

/**
 * The parameters of a sector size allowed by storage-proofs-update: the published sizes
 * (2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB) and the test sizes (1, 4, 8, 16, 32 KiB,
 * 16 MiB), each with its TreeR shape. CZK_EINVAL for any other size.
 */
CZK_API czk_status czk_snap_params_get(czk_snap_params *out, uint64_t sector_size, czk_err *err);

/** h_default: hs[3] (10 for production sizes, 1 for the KiB test sizes). */
CZK_API unsigned czk_snap_h_default(const czk_snap_params *p);

/** The witness of one challenge: the three inclusion paths of the challenged node c
 *  (leaf_index c, leaf and siblings as czk_merkle_prove gives them). */
typedef struct czk_snap_challenge_witness {
    czk_merkle_path r_old; /* TreeROld (Poseidon, p->tree_r shape) */
    czk_merkle_path d_new; /* TreeDNew (binary SHA-256, challenge_bit_len levels) */
    czk_merkle_path r_new; /* TreeRNew */
} czk_snap_challenge_witness;

/**
 * The witness of one partition (circuit.rs PublicInputs::new + PrivateInputs::new).
 * root_r_old / root_r_new are the roots of TreeROld / TreeRNew (upstream takes them from
 * challenge 0's proofs); the partition path is the top partition_bit_len levels of
 * challenge 0's TreeDNew path (every challenge shares it).
 */
typedef struct czk_snap_witness {
    uint64_t k; /* partition index */
    unsigned h; /* one of params.hs; selects h_select */
    uint8_t comm_r_old[32], comm_d_new[32], comm_r_new[32];
    uint8_t comm_c[32], root_r_old[32], root_r_new[32];
    const uint8_t (*apex_leafs)[32];            /* apex_leaf_count nodes of TreeDNew */
    const czk_snap_challenge_witness *challenges; /* challenge_count of them, in order */
} czk_snap_witness;

/**
 * EmptySectorUpdateCircuit::synthesize of one partition into cs. `w` is the witness (may
 * be NULL when cs has no witness: structure only, as the blank circuit of the parameter
 * generation). With a witness, a malformed one (k out of range, h not allowed, path shapes,
 * values ≥ r) is CZK_EINVAL; a consistent-shaped but wrong witness synthesizes and simply
 * does not satisfy the constraints.
 */
CZK_API czk_status czk_snap_synthesize(czk_cs *cs, const czk_snap_params *p,
                                       const czk_snap_witness *w);

/**
 * czk_snap_synthesize in EVAL mode on `pool`: the part before the challenges on the
 * caller, then each challenge on its own czk_cs_fork of cs (the offsets from two small
 * cached COUNT syntheses), joined in order: bit for bit the serial result. Any other mode,
 * a NULL or one-thread pool, or at most 2 challenges: czk_snap_synthesize.
 */
CZK_API czk_status czk_snap_synthesize_par(czk_cs *cs, const czk_snap_params *p,
                                           const czk_snap_witness *w, czk_pool *pool);

/** Context of czk_snap_circuit (a czk_cs_circuit_fn). */
typedef struct czk_snap_circuit_ctx {
    const czk_snap_params *params;
    const czk_snap_witness *witness; /* NULL: structure only */
} czk_snap_circuit_ctx;

/** czk_cs_circuit_fn adapter: ctx is a czk_snap_circuit_ctx. */
CZK_API czk_status czk_snap_circuit(czk_cs *cs, void *ctx);

/** Sizes of one partition's circuit from a COUNT synthesis (no witness). */
CZK_API czk_status czk_snap_count(const czk_snap_params *p, czk_circuit_info *out, czk_err *err);

/**
 * The 4 public inputs of partition k (EmptySectorUpdateCompound::generate_public_inputs):
 * [k | h_select << partition_bit_len, comm_r_old, comm_d_new, comm_r_new], with
 * h_select = 2^index of h in hs. CZK_EINVAL for k ≥ partitions, an h not in hs, or a
 * commitment ≥ r.
 */
CZK_API czk_status czk_snap_public_inputs(czk_fr out[4], const czk_snap_params *p, uint64_t k,
                                          unsigned h, const uint8_t comm_r_old[32],
                                          const uint8_t comm_d_new[32],
                                          const uint8_t comm_r_new[32], czk_err *err);

/** phi = H(comm_d_new, comm_r_old) (vanilla.rs phi), as 32 LE bytes. */
CZK_API czk_status czk_snap_phi(uint8_t out[32], const uint8_t comm_d_new[32],
                                const uint8_t comm_r_old[32], czk_err *err);

/** rho(c) = H(phi, c >> (challenge_bit_len − h)) (vanilla.rs rho). */
CZK_API czk_status czk_snap_rho(czk_fr *out, const czk_snap_params *p, const uint8_t phi[32],
                                uint64_t c, unsigned h, czk_err *err);

/**
 * The challenge_count challenges of partition k (challenges.rs Challenges::new): random
 * bits from H(comm_r_new, k·digests + j), the partition index appended as high bits.
 */
CZK_API czk_status czk_snap_challenges(uint32_t *out, const czk_snap_params *p,
                                       const uint8_t comm_r_new[32], uint64_t k, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_SNAP_H */
