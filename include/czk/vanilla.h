/*
 * czk — the parts Filecoin's vanilla proofs are made of, as rust-fil-proofs and
 * rust-filecoin-proofs-api write them (docs/formats.md §5.6, §6.1, §8).
 *
 *   1. Types: MerkleProof (Single / Sub / Top, each an InclusionPath of levels
 *      {hashes[arity − 1], index}) and the PoRep column and labeling proofs.
 *   2. MerkleProofs to and from czk_merkle_paths, and their verification.
 *
 * The proofs of each kind are built from these: PoRep's per-challenge Proof and the C1
 * output in czk/porep_vanilla.h, SnapDeals' PartitionProof in czk/snap_vanilla.h and
 * PoSt's SectorProof in czk/post_vanilla.h, with their JSON and bincode codecs.
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
    CZK_VANILLA_SINGLE = 0,
    CZK_VANILLA_SUB = 1,
    CZK_VANILLA_TOP = 2,
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

/** The VanillaSealProof variant name of a registered proof: "StackedDrg<size>V1". */
CZK_API const char *czk_vanilla_seal_key(czk_seal_proof proof);

/* =======================================================================================
 * 2. Merkle paths
 * ======================================================================================= */

/**
 * Convert a MerkleProof into a czk_merkle_path (levels of base, sub, top in order) and
 * the leaf index its path indices spell. CZK_EINVAL when it has too many levels or a
 * level whose arity czk_merkle does not support.
 */
CZK_API czk_status czk_vanilla_to_path(const czk_vanilla_merkle_proof *mp, czk_merkle_path *path,
                                       uint64_t *leaf_index, czk_err *err);

/**
 * The MerkleProof of a czk_merkle_path, as rust-fil-proofs' gen_cached_proof / gen_proof
 * shape it: Single for a tree without sub arity, Sub (base path + one sub level) for
 * sub_arity > 0, Top (base + sub + top levels) for top_arity > 0. Arrays live in `a`.
 * CZK_EINVAL when the path's levels do not fit the shape, CZK_ENOMEM.
 */
CZK_API czk_status czk_vanilla_from_path(czk_vanilla_merkle_proof *out, czk_vanilla_arena *a,
                                         const czk_merkle_path *path, const uint8_t root[32],
                                         unsigned sub_arity, unsigned top_arity, czk_err *err);

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
