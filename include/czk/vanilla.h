/*
 * czk — Filecoin vanilla proofs and their wire formats, as rust-fil-proofs and
 * rust-filecoin-proofs-api write them (docs/formats.md §5.1, §5.6, §6.1, §8).
 *
 *   1. Types: MerkleProof (Single / Sub / Top, each an InclusionPath of levels
 *      {hashes[arity − 1], index}), the PoRep column and labeling proofs, the SnapDeals
 *      PartitionProof and the PoSt SectorProof.
 *   2. bincode 1.3 legacy (little-endian fixint, u64 lengths, u32 enum tags) of the
 *      SnapDeals PartitionProof and the PoSt SectorProof: parse and write.
 *   3. Merkle path verification.
 *
 * The PoRep per-challenge Proof, the C1 output that carries them, its JSON and cuzk's
 * envelope are czk/porep_vanilla.h's.
 *
 * Every 32-byte value is a Domain element as rust-fil-proofs holds it: the little-endian
 * repr of an Fr element. Parsed objects own one arena: every array inside them lives
 * there, and one free call releases it all (so error paths leak nothing).
 */
#ifndef CZK_VANILLA_H
#define CZK_VANILLA_H

#include "czk/common.h"
#include "czk/merkle.h"
#include "czk/seal_proof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =======================================================================================
 * 1. Types
 * ======================================================================================= */

/** A bump allocator that owns every array of one parsed object. */
typedef struct czk_vanilla_arena czk_vanilla_arena;

CZK_API czk_vanilla_arena *czk_vanilla_arena_create(void);
CZK_API void czk_vanilla_arena_destroy(czk_vanilla_arena *a);
/** `n` zeroed bytes, 16-byte aligned, owned by the arena; NULL when out of memory. */
CZK_API void *czk_vanilla_arena_alloc(czk_vanilla_arena *a, size_t n);

/** One level of an inclusion path (rust-fil-proofs PathElement): the arity − 1 sibling
 *  hashes in lemma order and the position of the path's node among its siblings. */
typedef struct czk_vanilla_path_elem {
    uint8_t (*hashes)[32];
    size_t nhashes;
    uint64_t index;
} czk_vanilla_path_elem;

/** InclusionPath: levels leaf → root. */
typedef struct czk_vanilla_path {
    czk_vanilla_path_elem *elems;
    size_t len;
} czk_vanilla_path;

/** The variant of a MerkleProof's ProofData; the values are the bincode tags. */
typedef enum czk_vanilla_proof_kind {
    CZK_VPROOF_SINGLE = 0,
    CZK_VPROOF_SUB = 1,
    CZK_VPROOF_TOP = 2,
} czk_vanilla_proof_kind;

/** MerkleProof. Single uses `base` only (its "path"); Sub uses base and sub; Top all. */
typedef struct czk_vanilla_merkle_proof {
    czk_vanilla_proof_kind kind;
    czk_vanilla_path base, sub, top;
    uint8_t root[32];
    uint8_t leaf[32];
} czk_vanilla_merkle_proof;

/** ColumnProof: a column {index, rows[layers]} and its tree_c inclusion proof. */
typedef struct czk_vanilla_column_proof {
    uint32_t index;
    uint8_t (*rows)[32];
    size_t nrows;
    czk_vanilla_merkle_proof inclusion_proof;
} czk_vanilla_column_proof;

/** LabelingProof and EncodingProof (same fields). */
typedef struct czk_vanilla_labeling_proof {
    uint8_t (*parents)[32];
    size_t nparents;
    uint32_t layer_index;
    uint64_t node;
} czk_vanilla_labeling_proof;

/** SnapDeals ChallengeProof (storage-proofs-update vanilla.rs). */
typedef struct czk_snap_challenge_proof {
    czk_vanilla_merkle_proof proof_r_old, proof_d_new, proof_r_new;
} czk_snap_challenge_proof;

/** SnapDeals PartitionProof. */
typedef struct czk_snap_partition_proof {
    czk_vanilla_arena *arena;
    uint8_t comm_c[32];
    uint8_t (*apex_leafs)[32];
    size_t napex_leafs;
    czk_snap_challenge_proof *challenge_proofs;
    size_t nchallenge_proofs;
} czk_snap_partition_proof;

/** PoSt SectorProof (storage-proofs-post fallback/vanilla.rs). */
typedef struct czk_post_sector_proof {
    czk_vanilla_arena *arena;
    czk_vanilla_merkle_proof *inclusion_proofs;
    size_t ninclusion_proofs;
    uint8_t comm_c[32];
    uint8_t comm_r_last[32];
} czk_post_sector_proof;

/** Release a parsed object (its arena and the struct). NULL is ignored. */
CZK_API void czk_snap_partition_proof_free(czk_snap_partition_proof *p);
CZK_API void czk_post_sector_proof_free(czk_post_sector_proof *p);

/** The VanillaSealProof variant name of a registered proof: "StackedDrg<size>V1". */
CZK_API const char *czk_vanilla_seal_key(czk_seal_proof proof);

/* =======================================================================================
 * 2. bincode
 * ======================================================================================= */

/** Parse one bincode PartitionProof; trailing bytes, truncation and impossible lengths
 *  give CZK_EFORMAT naming the field and byte offset. */
CZK_API czk_status czk_snap_partition_proof_parse(czk_snap_partition_proof **out,
                                                  const uint8_t *buf, size_t len, czk_err *err);
CZK_API czk_status czk_snap_partition_proof_write(const czk_snap_partition_proof *p,
                                                  uint8_t **out, size_t *len, czk_err *err);
CZK_API czk_status czk_post_sector_proof_parse(czk_post_sector_proof **out, const uint8_t *buf,
                                               size_t len, czk_err *err);
CZK_API czk_status czk_post_sector_proof_write(const czk_post_sector_proof *p, uint8_t **out,
                                               size_t *len, czk_err *err);

/* =======================================================================================
 * 3. Checks
 * ======================================================================================= */

/**
 * Convert a MerkleProof into a czk_merkle_path (levels of base, sub, top in order) and
 * the leaf index its path indices spell. CZK_EINVAL when it has too many levels or a
 * level whose arity czk_merkle does not support.
 */
CZK_API czk_status czk_vanilla_to_path(const czk_vanilla_merkle_proof *mp, czk_merkle_path *path,
                                       uint64_t *leaf_index, czk_err *err);

/**
 * Verify a MerkleProof: every value below r (Poseidon), its path hashing its leaf to its
 * root, and, when `want_root` is not NULL, its root equal to want_root. `what` names it
 * in the error message. CZK_EVERIFY on mismatch.
 */
CZK_API czk_status czk_vanilla_merkle_verify(const czk_vanilla_merkle_proof *mp,
                                             czk_merkle_hasher hasher,
                                             const uint8_t *want_root, const char *what,
                                             czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_VANILLA_H */
