/*
 * czk — the Merkle trees of a Filecoin sector, byte for byte as rust-fil-proofs computes
 * them (docs/formats.md §1, §5.3, §5.6, §6.1, §7): trees over 32-byte nodes stored level by
 * level in one array, tree_d (binary SHA-256, merkletree's BinaryMerkleTree<Sha256Hasher>)
 * and the Poseidon trees tree_c / tree_r_last of shape base-sub-top (8-0-0, 8-8-0, 8-8-2,
 * merkletree's MerkleTree<_, _, _, U8, SubTreeArity, TopTreeArity>). SHA-256 and its
 * 254-bit truncation are czk/sha256.h's, fr32 padding czk/fr32.h's and the commitments
 * built from the trees czk/comm.h's.
 *
 * Every 32-byte value (leaf, node, root) is the little-endian repr of an Fr element, as
 * rust-fil-proofs' Domain types hold it; Poseidon trees reject leaves that are not below
 * r.
 *
 * Compound shapes. rust-fil-proofs builds a tree of shape B-S-T over n leaves as
 * S·max(T,1) base trees of arity B over consecutive slices of the leaves, hashes the
 * roots of each group of S base trees with a Poseidon-S node, and (when T > 0) the T
 * sub-tree roots with a Poseidon-T node (merkletree from_trees / from_sub_trees). That
 * is the same as one tree whose levels have arities B, …, B, S, T from the bottom, with
 * a leaf's path indices being the mixed-radix digits of its index, lowest level first —
 * which is how czk stores and proves it. A 32 GiB tree_r_last (8-8-0) is thus 8 base
 * octrees of 2^27 leaves (9 levels each) under one arity-8 level: 10 levels in all.
 */
#ifndef CZK_MERKLE_H
#define CZK_MERKLE_H

#include "czk/common.h"
#include "czk/pool.h"
#include "czk/sha256.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of a tree node, leaf or root. */
#define CZK_MERKLE_NODE_BYTES 32

/** Node hash of a tree. */
typedef enum czk_merkle_hasher {
    /** trunc254(SHA-256(left ‖ right)); binary trees only (tree_d, piece trees). */
    CZK_MERKLE_SHA256 = 0,
    /** Poseidon with the MerkleTree domain tag, arity 2, 4, 8 or 16 per level
     *  (tree_c, tree_r_last: 8 at the base and sub levels, 2 at the top). */
    CZK_MERKLE_POSEIDON = 1,
} czk_merkle_hasher;

/** Most levels a tree may have, and most sibling nodes on one inclusion path. */
#define CZK_MERKLE_MAX_LEVELS   64
#define CZK_MERKLE_MAX_SIBLINGS 256

/** Shape and storage of a tree. */
typedef struct czk_merkle_config {
    czk_merkle_hasher hasher;
    /** Arity of every base level: 2 for SHA-256; 2, 4, 8 or 16 for Poseidon. */
    unsigned base_arity;
    /** Arity of the sub-tree level above the base trees, 0 for none (Poseidon only). */
    unsigned sub_arity;
    /** Arity of the top level above the sub-trees, 0 for none; needs sub_arity > 0. */
    unsigned top_arity;
    /**
     * Store levels ≥ keep_from only (the leaves are level 0). 0 stores a copy of the
     * leaves too, so the tree needs nothing else to prove; 1 stores every hashed level
     * (the caller keeps the leaves); larger values keep only the top of a big tree, as
     * rust-fil-proofs' LevelCacheStore does with rows_to_discard, and proofs rebuild the
     * missing levels of one small sub-tree from the leaves. Values above the height are
     * treated as the height (the root is always kept).
     */
    unsigned keep_from;
} czk_merkle_config;

/** tree_d: binary SHA-256, every level stored except the leaves (keep_from = 1). */
CZK_API czk_merkle_config czk_merkle_config_tree_d(void);

/**
 * tree_c / tree_r_last of a sector of `sector_size` bytes: Poseidon, base arity 8, sub
 * arity 8 from 32 GiB, top arity 2 from 64 GiB (filecoin-proofs' sector shapes);
 * keep_from = 1. Sizes that are not a power of two give base arity 0 (rejected by build).
 */
CZK_API czk_merkle_config czk_merkle_config_tree_r(uint64_t sector_size);

/** A built tree: an opaque, immutable object; any number of threads may prove with it. */
typedef struct czk_merkle_tree czk_merkle_tree;

/**
 * Number of levels above the leaves of a tree of this shape over `nleaves` leaves, or 0
 * when the shape or count is invalid: nleaves must be base_arity^k · max(sub,1) ·
 * max(top,1) with k ≥ 1.
 */
CZK_API unsigned czk_merkle_height(const czk_merkle_config *cfg, uint64_t nleaves);

/** Bytes a tree of this config and leaf count keeps (0 when invalid). */
CZK_API uint64_t czk_merkle_storage_bytes(const czk_merkle_config *cfg, uint64_t nleaves);

/**
 * Build a tree over `nleaves` 32-byte leaves, spread over `pool` (NULL: this thread).
 * The leaves are read, never kept (unless keep_from is 0, which copies them).
 * CZK_EINVAL for a bad shape or count, CZK_ENONCANONICAL for a Poseidon leaf ≥ r
 * (the message names its index), CZK_ENOMEM, CZK_EINTERNAL if OpenSSL fails.
 */
CZK_API czk_status czk_merkle_build(czk_merkle_tree **out, const czk_merkle_config *cfg,
                                    const uint8_t *leaves, uint64_t nleaves, czk_pool *pool,
                                    czk_err *err);

/** The root of the tree the config describes over `leaves`, keeping nothing. */
CZK_API czk_status czk_merkle_root_of(uint8_t root[32], const czk_merkle_config *cfg,
                                      const uint8_t *leaves, uint64_t nleaves, czk_pool *pool,
                                      czk_err *err);

CZK_API void czk_merkle_destroy(czk_merkle_tree *tree);

CZK_API void czk_merkle_root(const czk_merkle_tree *tree, uint8_t root[32]);
CZK_API uint64_t czk_merkle_leaf_count(const czk_merkle_tree *tree);
/** Levels above the leaves; level `levels` holds the root alone. */
CZK_API unsigned czk_merkle_levels(const czk_merkle_tree *tree);
/** Arity of the hashes that produce level `level` (1 ≤ level ≤ levels); 0 otherwise. */
CZK_API unsigned czk_merkle_level_arity(const czk_merkle_tree *tree, unsigned level);
/** The nodes of `level` (count to *count), or NULL when that level is not stored. */
CZK_API const uint8_t *czk_merkle_level_nodes(const czk_merkle_tree *tree, unsigned level,
                                              uint64_t *count);

/** An inclusion path, bottom level first. */
typedef struct czk_merkle_path {
    uint64_t leaf_index;
    unsigned levels;
    uint8_t arity[CZK_MERKLE_MAX_LEVELS]; /* arity of level i's hash */
    uint8_t index[CZK_MERKLE_MAX_LEVELS]; /* position of the path's node among its siblings */
    uint8_t leaf[32];
    /* arity[i] − 1 siblings per level, in order of position with the path's own node left
     * out (merkletree's lemma order), level 0 first. */
    uint8_t siblings[CZK_MERKLE_MAX_SIBLINGS][32];
} czk_merkle_path;

/**
 * The inclusion path of leaf `leaf_index`. `leaves` is the leaf array the tree was built
 * from; it may be NULL when the tree stores every level the path needs (keep_from 0).
 * CZK_EINVAL for an index out of range or missing leaves, CZK_ENOMEM, CZK_EINTERNAL.
 */
CZK_API czk_status czk_merkle_prove(const czk_merkle_tree *tree, uint64_t leaf_index,
                                    const uint8_t *leaves, czk_merkle_path *path, czk_err *err);

/**
 * The root a path leads to: its leaf hashed with its siblings level by level.
 * CZK_EINVAL for a malformed path (levels, arities, indices), CZK_ENONCANONICAL for a
 * Poseidon path holding a value ≥ r, CZK_EINTERNAL if OpenSSL fails.
 */
CZK_API czk_status czk_merkle_path_root(uint8_t root[32], czk_merkle_hasher hasher,
                                        const czk_merkle_path *path, czk_err *err);

/**
 * Verify a path against a root and a challenged leaf index: the indices must be the
 * mixed-radix digits of `leaf_index` and the path must hash to `root`. CZK_OK when it
 * does, CZK_EVERIFY when it does not, or an error of czk_merkle_path_root.
 */
CZK_API czk_status czk_merkle_path_verify(const czk_merkle_path *path, czk_merkle_hasher hasher,
                                          const uint8_t root[32], uint64_t leaf_index,
                                          czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_MERKLE_H */
