/*
 * czk — the Proof-of-Spacetime circuit: rust-fil-proofs' FallbackPoStCircuit
 * (storage-proofs-post/src/fallback/{circuit,compound,vanilla,utils}.rs), which both
 * Window PoSt (one partition of up to sector_count sectors, challenge_count = 10 each)
 * and Winning PoSt (66 "sectors" of one challenge each, filecoin-proofs parameters.rs
 * winning_post_setup_params) prove, constraint for constraint.
 *
 * Per sector: comm_r (an input) = Poseidon2_merkle(comm_c, comm_r_last), and for each
 * challenge a PoR of a leaf of tree_r_last under comm_r_last whose index bits are packed
 * into one public input (the challenged leaf index).
 *
 * All 32-byte values are little-endian Fr reprs (rust-fil-proofs Domain bytes).
 */
#ifndef CZK_POST_H
#define CZK_POST_H

#include "czk/api_version.h"
#include "czk/circuits.h"
#include "czk/cs.h"
#include "czk/gadgets.h"
#include "czk/merkle.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * RegisteredPoStProof (rust-filecoin-proofs-api registry.rs; Go abi.RegisteredPoStProof):
 * name, id (the enum value), log2 of the sector size, Winning (1) or Window (0), API
 * version. Window V1_2 is "V1_1" in Go (StackedDrgWindow32GiBV1_1 = 13).
 */
#define CZK_POST_PROOF_MAP(X)                                                                      \
    X(StackedDrgWinning2KiBV1, 0, 11, 1, CZK_API_V1_0_0)                                           \
    X(StackedDrgWinning8MiBV1, 1, 23, 1, CZK_API_V1_0_0)                                           \
    X(StackedDrgWinning512MiBV1, 2, 29, 1, CZK_API_V1_0_0)                                         \
    X(StackedDrgWinning32GiBV1, 3, 35, 1, CZK_API_V1_0_0)                                          \
    X(StackedDrgWinning64GiBV1, 4, 36, 1, CZK_API_V1_0_0)                                          \
    X(StackedDrgWindow2KiBV1, 5, 11, 0, CZK_API_V1_0_0)                                            \
    X(StackedDrgWindow8MiBV1, 6, 23, 0, CZK_API_V1_0_0)                                            \
    X(StackedDrgWindow512MiBV1, 7, 29, 0, CZK_API_V1_0_0)                                          \
    X(StackedDrgWindow32GiBV1, 8, 35, 0, CZK_API_V1_0_0)                                           \
    X(StackedDrgWindow64GiBV1, 9, 36, 0, CZK_API_V1_0_0)                                           \
    X(StackedDrgWindow2KiBV1_2, 10, 11, 0, CZK_API_V1_2_0)                                         \
    X(StackedDrgWindow8MiBV1_2, 11, 23, 0, CZK_API_V1_2_0)                                         \
    X(StackedDrgWindow512MiBV1_2, 12, 29, 0, CZK_API_V1_2_0)                                       \
    X(StackedDrgWindow32GiBV1_2, 13, 35, 0, CZK_API_V1_2_0)                                        \
    X(StackedDrgWindow64GiBV1_2, 14, 36, 0, CZK_API_V1_2_0)

typedef enum czk_post_proof {
#define CZK__POST_ENUM(name, id, log2size, winning, ver) CZK_POST_##name = id,
    CZK_POST_PROOF_MAP(CZK__POST_ENUM)
#undef CZK__POST_ENUM
        CZK_POST_PROOF_COUNT = 15
} czk_post_proof;

/** filecoin-proofs constants.rs */
#define CZK_POST_WINNING_CHALLENGE_COUNT 66
#define CZK_POST_WINNING_SECTOR_COUNT    1
#define CZK_POST_WINDOW_CHALLENGE_COUNT  10

/** fallback::PublicParams of one circuit, plus the tree_r_last shape. */
typedef struct czk_post_params {
    uint64_t sector_size;     /* bytes */
    uint64_t nodes;           /* leaves of tree_r_last */
    unsigned challenge_count; /* per sector */
    unsigned sector_count;    /* sectors per partition (circuit) */
    czk_api_version api_version;
    czk_por_shape tree; /* Poseidon, 8-0-0 / 8-8-0 / 8-8-2 */
} czk_post_params;

/**
 * The circuit parameters of a registered PoSt proof: Window → challenge_count 10 and
 * WINDOW_POST_SECTOR_COUNT (2 for the test sizes, 2349 at 32 GiB, 2300 at 64 GiB);
 * Winning → winning_post_setup_params(66 challenges, 1 sector) = 66 sectors × 1
 * challenge. CZK_EINVAL for an unknown value.
 */
CZK_API czk_status czk_post_params_get(czk_post_params *out, czk_post_proof proof, czk_err *err);

/**
 * Parameters of an arbitrary configuration (upstream's tests): `nodes` leaves in a
 * Poseidon tree of the given base/sub/top arities. CZK_EINVAL for a shape that does not
 * divide nodes.
 */
CZK_API czk_status czk_post_params_custom(czk_post_params *out, uint64_t nodes,
                                          unsigned challenge_count, unsigned sector_count,
                                          unsigned base_arity, unsigned sub_arity,
                                          unsigned top_arity, czk_api_version version,
                                          czk_err *err);

/**
 * The registered PoSt proof of a sector size: Winning V1, or Window V1_2 (the version
 * the network uses since the grindability fix; V1 has the same circuit and parameters,
 * only its challenge indices differ). CZK_EINVAL for a size with no PoSt proof.
 */
CZK_API czk_status czk_post_proof_for_size(uint64_t sector_size, bool winning, czk_post_proof *out,
                                           czk_err *err);

/** "StackedDrgWindow32GiBV1_2" etc.; NULL outside the enum. */
CZK_API const char *czk_post_proof_name(czk_post_proof proof);
/** True for the Winning PoSt proofs. */
CZK_API bool czk_post_proof_is_winning(czk_post_proof proof);

/** The witness of one sector (circuit.rs Sector::circuit). */
typedef struct czk_post_sector_witness {
    uint8_t comm_r[32]; /* public */
    uint8_t comm_c[32];
    uint8_t comm_r_last[32];
    const czk_merkle_path *paths; /* challenge_count paths of tree_r_last (leaf included) */
} czk_post_sector_witness;

/**
 * FallbackPoStCircuit::synthesize (synthesize_default: sectors in order) of sector_count
 * sectors. `sectors` may be NULL when cs has no witness. A short partition repeats its
 * last sector, as the caller must arrange (upstream's vanilla prover pads the same way).
 */
CZK_API czk_status czk_post_synthesize(czk_cs *cs, const czk_post_params *p,
                                       const czk_post_sector_witness *sectors);

typedef struct czk_post_circuit_ctx {
    const czk_post_params *params;
    const czk_post_sector_witness *sectors; /* NULL: structure only */
} czk_post_circuit_ctx;

/** czk_cs_circuit_fn adapter: ctx is a czk_post_circuit_ctx. */
CZK_API czk_status czk_post_circuit(czk_cs *cs, void *ctx);

/**
 * Sizes of the circuit from a COUNT synthesis of all sector_count sectors (seconds at
 * 32 GiB Window PoSt: 125 M constraints).
 */
CZK_API czk_status czk_post_count(const czk_post_params *p, czk_circuit_info *out, czk_err *err);

/**
 * The same numbers from COUNT syntheses of one and of two sectors: every sector is a
 * structurally identical, independent copy (its own variables, its own constraints, one
 * input block), so each count is c1 + (sector_count − 1)·(c2 − c1) exactly; the unit test
 * checks this against czk_post_count. Milliseconds at any size.
 */
CZK_API czk_status czk_post_count_fast(const czk_post_params *p, czk_circuit_info *out,
                                       czk_err *err);

/** get_challenge_index: V1.0/V1.1 sector_index·challenge_count + n; V1.2 n. */
CZK_API uint64_t czk_post_challenge_index(czk_api_version v, uint64_t sector_index,
                                          uint64_t challenge_count, uint64_t n);

/** generate_leaf_challenge: LE u64 of SHA-256(randomness ‖ sector_id LE ‖ challenge_index
 *  LE)[0..8] mod nodes. */
CZK_API uint64_t czk_post_leaf_challenge(const czk_post_params *p, const uint8_t randomness[32],
                                         uint64_t sector_id, uint64_t challenge_index);

/** generate_sector_challenge (Winning PoSt's choice of sectors): LE u64 of
 *  SHA-256(prover_id ‖ randomness ‖ n LE)[0..8] mod sector_set_len. */
CZK_API uint64_t czk_post_sector_challenge(const uint8_t randomness[32], uint64_t n,
                                           uint64_t sector_set_len, const uint8_t prover_id[32]);

/** A public sector: id and comm_r. */
typedef struct czk_post_public_sector {
    uint64_t id;
    uint8_t comm_r[32];
} czk_post_public_sector;

/** Inputs of one circuit (ONE excluded): sector_count · (1 + challenge_count). */
CZK_API size_t czk_post_num_inputs(const czk_post_params *p);

/**
 * FallbackPoStCompound::generate_public_inputs for partition k: the chunk k of `sectors`
 * (sector_count per chunk); per sector comm_r, then each challenge's leaf index; a short
 * chunk repeats its last sector's inputs. `out` needs czk_post_num_inputs(p) elements.
 * Winning PoSt: pass the challenged sector sector_count (66) times, as filecoin-proofs
 * winning_post.rs does, so that slot i gets challenge index i.
 * CZK_EINVAL when chunk k is empty or a comm_r is not a field element.
 */
CZK_API czk_status czk_post_public_inputs(czk_fr *out, const czk_post_params *p,
                                          const uint8_t randomness[32],
                                          const czk_post_public_sector *sectors, size_t nsectors,
                                          uint64_t k, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_POST_H */
