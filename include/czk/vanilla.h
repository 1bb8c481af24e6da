/*
 * czk — Filecoin vanilla proofs and their wire formats, as rust-fil-proofs and
 * rust-filecoin-proofs-api write them (docs/formats.md §5.1, §5.6, §6.1, §8).
 *
 *   1. Types: MerkleProof (Single / Sub / Top, each an InclusionPath of levels
 *      {hashes[arity − 1], index}), the PoRep per-challenge Proof, the C1 output
 *      SealCommitPhase1Output, the SnapDeals PartitionProof and the PoSt SectorProof.
 *   2. C1 JSON (serde_json): parse, and write byte-for-byte as serde_json::to_vec.
 *   3. bincode 1.3 legacy (little-endian fixint, u64 lengths, u32 enum tags) of the
 *      SnapDeals PartitionProof and the PoSt SectorProof: parse and write.
 *   4. Structural checks against a registered proof, and Merkle path verification.
 *   5. cuzk's PoRep envelope {"SectorNum", "Phase1Out" (base64 C1 JSON), "SectorSize"}.
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

/** The PoRep vanilla proof of one challenge (stacked/vanilla/params.rs Proof). */
typedef struct czk_porep_vanilla_proof {
    czk_vanilla_merkle_proof comm_d_proofs;     /* tree_d, binary SHA-256 */
    czk_vanilla_merkle_proof comm_r_last_proof; /* tree_r_last, Poseidon */
    czk_vanilla_column_proof c_x;               /* replica_column_proofs */
    czk_vanilla_column_proof *drg_parents;
    size_t ndrg_parents;
    czk_vanilla_column_proof *exp_parents;
    size_t nexp_parents;
    czk_vanilla_labeling_proof *labeling_proofs;
    size_t nlabeling_proofs;
    czk_vanilla_labeling_proof encoding_proof;
} czk_porep_vanilla_proof;

/** SealCommitPhase1Output. vanilla_proofs[k] holds challenge_counts[k] proofs. */
typedef struct czk_c1_output {
    czk_vanilla_arena *arena;
    const char *registered_proof; /* as written, e.g. "StackedDrg32GiBV1_1" */
    czk_seal_proof proof;         /* registered_proof parsed */
    const char *vanilla_key;      /* VanillaSealProof variant, e.g. "StackedDrg32GiBV1" */
    czk_porep_vanilla_proof **vanilla_proofs;
    size_t *challenge_counts;
    size_t npartitions;
    uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
} czk_c1_output;

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
CZK_API void czk_c1_output_free(czk_c1_output *c1);
CZK_API void czk_snap_partition_proof_free(czk_snap_partition_proof *p);
CZK_API void czk_post_sector_proof_free(czk_post_sector_proof *p);

/** The VanillaSealProof variant name of a registered proof: "StackedDrg<size>V1". */
CZK_API const char *czk_vanilla_seal_key(czk_seal_proof proof);

/* =======================================================================================
 * 2. C1 JSON
 * ======================================================================================= */

/**
 * Parse a SealCommitPhase1Output JSON document. Missing, duplicate or unknown keys,
 * wrong JSON types, numbers out of range, byte arrays that are not 32 integers in
 * 0..255 and unknown enum variants give CZK_EFORMAT with a message naming the path of
 * the bad value (e.g. "vanilla_proofs[0][1].comm_d_proofs.data.Single.path.path[3].index").
 * Only the syntax is checked here; czk_c1_check checks the structure.
 */
CZK_API czk_status czk_c1_parse_json(czk_c1_output **out, const void *json, size_t len,
                                     czk_err *err);

/** Write a C1 as serde_json::to_vec does (field order, no spaces) into a czk_malloc'd
 *  buffer (*out, *len; the caller czk_frees it). */
CZK_API czk_status czk_c1_write_json(const czk_c1_output *c1, uint8_t **out, size_t *len,
                                     czk_err *err);

/* =======================================================================================
 * 3. bincode
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
 * 4. Checks
 * ======================================================================================= */

/**
 * Check a C1 against a registered proof: the registered_proof and vanilla key agree with
 * it; partition and per-partition challenge counts; 6 DRG and 8 expander columns of
 * `layers` rows; `layers` labeling proofs; path lengths and arities per tree shape; every
 * 32-byte value below r; comm_c and comm_r_last equal across challenges and
 * comm_r = Poseidon2(comm_c, comm_r_last); comm_d_proofs roots equal comm_d; challenge
 * indices consistent (labeling node, column index, path indices); the 6 DRG and 8
 * expander columns being those of the challenge's parents in the SDR graph; each column
 * leaf equal to the Poseidon hash of its rows; the replica leaf equal to data leaf +
 * last label; and every Merkle path hashing to its root. CZK_EVERIFY (a Merkle path or a
 * consistency check failed), CZK_EINVAL (shape) or CZK_ENONCANONICAL (a value ≥ r), with
 * a message naming the partition, challenge and field. Builds the SDR graph of `proof`
 * (0.1-0.3 s at 32 GiB).
 */
CZK_API czk_status czk_c1_check(const czk_c1_output *c1, czk_seal_proof proof, czk_err *err);

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

/* =======================================================================================
 * 5. cuzk envelope
 * ======================================================================================= */

/**
 * If `buf` is cuzk's PoRep envelope {"SectorNum": n, "Phase1Out": "<base64>",
 * "SectorSize": n}, decode Phase1Out into a czk_malloc'd buffer (*c1_json, *c1_len) and
 * return the sector number and size; CZK_ENOENT when `buf` is not such an envelope (no
 * "Phase1Out" key: treat it as plain C1 JSON), CZK_EFORMAT for a broken envelope.
 */
CZK_API czk_status czk_cuzk_envelope_decode(const void *buf, size_t len, uint8_t **c1_json,
                                            size_t *c1_len, uint64_t *sector_num,
                                            uint64_t *sector_size, czk_err *err);

/** Write the envelope (key order SectorNum, Phase1Out, SectorSize) into a czk_malloc'd
 *  buffer. */
CZK_API czk_status czk_cuzk_envelope_encode(const uint8_t *c1_json, size_t c1_len,
                                            uint64_t sector_num, uint64_t sector_size,
                                            uint8_t **out, size_t *out_len, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_VANILLA_H */
