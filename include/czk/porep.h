/*
 * czk — the PoRep circuit: rust-fil-proofs' StackedCircuit (storage-proofs-porep
 * stacked/circuit/{proof.rs, params.rs}) for one partition, constraint for constraint,
 * and the public inputs StackedCompound::generate_public_inputs gives it
 * (docs/formats.md §4.6, §5).
 *
 * Synthesis order (the order the published .params files encode):
 *   replica_id (aux, inputized, to_bits_le), comm_d (aux, inputized), comm_r (aux,
 *   inputized), comm_r_last, comm_c, Poseidon2(comm_c, comm_r_last) = comm_r; then per
 *   challenge: data_leaf and its tree_d inclusion; the 6 DRG then 8 expander parent columns
 *   (rows allocated, column hash, tree_c inclusion); the challenge as a UInt64 packed into
 *   one input; per layer the parents' bit decompositions and the label (SHA-256 of 37
 *   parents); encode (label + data) and its tree_r_last inclusion; the column hash of the
 *   labels and its tree_c inclusion. Every inclusion has a private root and one packed
 *   input of index bits.
 */
#ifndef CZK_POREP_H
#define CZK_POREP_H

#include "czk/common.h"
#include "czk/cs.h"
#include "czk/merkle.h"
#include "czk/pool.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most layers a sector has (11 for production sizes). */
#define CZK_POREP_MAX_LAYERS 11

/** The circuit's structure: everything a blank (witness-less) circuit depends on. */
typedef struct czk_porep_config {
    uint64_t nodes;      /* sector nodes (sector size / 32), a power of two */
    unsigned layers;     /* 1..CZK_POREP_MAX_LAYERS; the column hash needs 2 or 11 */
    unsigned challenges; /* challenges in this partition */
    /* tree_c / tree_r_last shape (Poseidon): base arity, sub arity (0: none), top arity
     * (0: none). tree_d is always binary SHA-256 over `nodes` leaves. */
    unsigned tree_base_arity, tree_sub_arity, tree_top_arity;
} czk_porep_config;

/** The config of one partition of a registered seal proof. CZK_EINVAL for an unknown one. */
CZK_API czk_status czk_porep_config_for_proof(czk_porep_config *out, czk_seal_proof proof,
                                              czk_err *err);

/** A parent's column: its labels in layers 1..layers (32-byte LE Fr reprs) and the tree_c
 *  inclusion path of its column hash. */
typedef struct czk_porep_column {
    uint8_t rows[CZK_POREP_MAX_LAYERS][32];
    czk_merkle_path path;
} czk_porep_column;

/** The witness of one challenge (a vanilla proof, as params.rs Proof::from takes it). */
typedef struct czk_porep_challenge {
    uint64_t challenge;               /* node index */
    uint8_t data_leaf[32];            /* unsealed node */
    czk_merkle_path comm_d_path;      /* tree_d (binary SHA-256) */
    czk_merkle_path comm_r_last_path; /* tree_r_last; its `leaf` is the replica node */
    /* The challenged node's own column (labels of every layer). The circuit recomputes the
     * labels and does not read these; they let a caller check its witness. */
    uint8_t c_x[CZK_POREP_MAX_LAYERS][32];
    czk_merkle_path comm_c_path; /* tree_c path of the challenged node's column hash */
    czk_porep_column drg[CZK_SDR_DRG_DEGREE];
    czk_porep_column exp[CZK_SDR_EXP_DEGREE];
} czk_porep_challenge;

/** The witness of one partition. Values are 32-byte little-endian Fr reprs. */
typedef struct czk_porep_witness {
    uint8_t replica_id[32];
    uint8_t comm_d[32];
    uint8_t comm_r[32];
    uint8_t comm_r_last[32];
    uint8_t comm_c[32];
    const czk_porep_challenge *challenges; /* config.challenges of them */
} czk_porep_witness;

/** The circuit's context for czk_porep_circuit: witness NULL for a blank circuit. */
typedef struct czk_porep_circuit_ctx {
    czk_porep_config config;
    const czk_porep_witness *witness;
} czk_porep_circuit_ctx;

/**
 * StackedCircuit::synthesize (a czk_cs_circuit_fn; ctx is a czk_porep_circuit_ctx). Without
 * a witness every value is zero and only the structure is built (COUNT, RECORD, HASH).
 * CZK_EINVAL for an unsupported config or a witness that does not fit it (a
 * non-canonical value, a path of the wrong shape).
 */
CZK_API czk_status czk_porep_circuit(czk_cs *cs, void *ctx);

/**
 * czk_porep_circuit in EVAL mode on `pool`: the prologue (replica_id, commitments) on the
 * caller, then every challenge on its own czk_cs_fork of `cs` at its precomputed offset
 * (the prologue's end plus i times one challenge's counts, from czk_porep_count's two
 * small COUNT syntheses, cached per config), joined in order. The result is bit for bit
 * the serial one: a/b/c, witness, counts, densities and the first error. Any other mode,
 * a NULL or one-thread pool, or at most 2 challenges runs czk_porep_circuit itself.
 * Called from inside one of the pool's own tasks, the challenges run one after another on
 * that thread (czk_pool_run nests inline): correct, but not parallel.
 */
CZK_API czk_status czk_porep_circuit_par(czk_cs *cs, const czk_porep_circuit_ctx *ctx,
                                         czk_pool *pool);

/**
 * The counts and densities a COUNT-mode synthesis of the whole partition gives, from
 * syntheses of one and two challenges (every further challenge adds the same): 32 GiB in
 * a ninth of a full synthesis's time. czk_circuit_porep_count (czk/circuits.h) uses it.
 */
CZK_API czk_status czk_porep_count(const czk_porep_config *cfg, czk_cs_counts *out, czk_err *err);

/** Number of public inputs of a partition, without ONE: 3 + 18 per challenge. */
CZK_API size_t czk_porep_num_inputs(const czk_porep_config *cfg);

/**
 * StackedCompound::generate_public_inputs for one partition whose challenges are given:
 * replica_id, comm_d, comm_r, then per challenge the tree_d index (the challenge), the
 * 6 DRG and 8 expander parents of `graph`, the challenge, and the challenge twice more
 * (tree_r_last, tree_c): czk_porep_num_inputs(cfg) elements (Montgomery form) into out.
 * CZK_EINVAL for a non-canonical value, a challenge outside the graph, or out_cap too small.
 */
CZK_API czk_status czk_porep_public_inputs(czk_fr *out, size_t out_cap, const czk_porep_config *cfg,
                                           const czk_sdr_graph *graph, const uint8_t replica_id[32],
                                           const uint8_t comm_d[32], const uint8_t comm_r[32],
                                           const uint64_t *challenges, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_POREP_H */
