/*
 * czk — the hashes, padding and Merkle trees of a Filecoin sector, byte for byte as
 * rust-fil-proofs computes them (docs/formats.md §1, §5.3, §5.6, §6.1, §7).
 *
 *   1. SHA-256 through OpenSSL EVP (which uses the SHA extensions when the CPU has them),
 *      and Filecoin's 254-bit truncation: byte 31 &= 0x3f, so that a digest read as a
 *      little-endian integer is a canonical Fr element (filecoin-hashers sha256.rs).
 *   2. fr32 padding (fr32 crate): every 254 bits of piece data become one 32-byte
 *      element whose two top bits are zero; 127 bytes become 128.
 *   3. Merkle trees over 32-byte nodes stored level by level in one array:
 *      tree_d (binary SHA-256, merkletree's BinaryMerkleTree<Sha256Hasher>) and the
 *      Poseidon trees tree_c / tree_r_last of shape base-sub-top (8-0-0, 8-8-0, 8-8-2,
 *      merkletree's MerkleTree<_, _, _, U8, SubTreeArity, TopTreeArity>).
 *   4. Commitments: the zero-piece ladder, comm_d of a sector from its pieces
 *      (filecoin-proofs pieces.rs compute_comm_d), comm_p of piece data, and
 *      comm_r = Poseidon2(comm_c, comm_r_last).
 *
 * Every 32-byte value (leaf, node, root, commitment) is the little-endian repr of an Fr
 * element, as rust-fil-proofs' Domain types hold it; Poseidon trees reject leaves that
 * are not below r.
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

/** Bytes of a tree node, leaf or commitment. */
#define CZK_NODE_BYTES 32

/* =======================================================================================
 * 1. SHA-256
 * ======================================================================================= */

/* czk_fr32_trim, czk_sha256, czk_sha256_trunc, czk_sha256_nodes: include/czk/sha256.h. */

/* =======================================================================================
 * 2. fr32 padding
 * ======================================================================================= */

/**
 * Padded size of `unpadded` bytes of piece data as fr32's to_padded_bytes: bit count
 * 8·unpadded spread as 254 data bits per 256, rounded up to whole bytes. For piece
 * sizes (multiples of 127) this is unpadded·128/127.
 */
CZK_API uint64_t czk_fr32_padded_size(uint64_t unpadded);

/** Unpadded size of `padded` bytes as fr32's to_unpadded_bytes (rounded down): the most
 *  raw bytes a padded buffer of that length holds. 128 → 127. */
CZK_API uint64_t czk_fr32_unpadded_size(uint64_t padded);

/** Bytes czk_fr32_pad writes for `unpadded` input bytes: whole 32-byte elements,
 *  32·ceil(8·unpadded / 254), as fr32's Fr32Reader emits them. */
CZK_API uint64_t czk_fr32_pad_output_size(uint64_t unpadded);

/**
 * Pad `n` bytes of raw data into czk_fr32_pad_output_size(n) bytes, exactly as
 * Fr32Reader: the raw bit stream (bytes in order, bits LSB first) is cut into 254-bit
 * units, each written as one little-endian 32-byte element with its two top bits zero;
 * a final partial unit is zero-extended to a full element. `out` must not overlap `in`.
 */
CZK_API void czk_fr32_pad(uint8_t *out, const uint8_t *in, size_t n);

/**
 * The raw bytes [offset, offset + len) of fr32-padded data `in` of `in_len` bytes
 * (fr32's write_unpadded). CZK_EINVAL when the range passes czk_fr32_unpadded_size(in_len).
 * The padding bits of `in` are ignored. `out` must not overlap `in`.
 */
CZK_API czk_status czk_fr32_unpad(uint8_t *out, const uint8_t *in, size_t in_len, uint64_t offset,
                                  size_t len, czk_err *err);

/** True for a valid padded piece size: a power of two of at least 128 bytes. */
CZK_API bool czk_piece_size_valid(uint64_t padded_size);

/* =======================================================================================
 * 3. Merkle trees
 * ======================================================================================= */

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

/* =======================================================================================
 * 4. Commitments
 * ======================================================================================= */

/**
 * Level k of the zero ladder: the root of a binary SHA-256 tree over 2^k zero leaves,
 * i.e. the piece commitment of 2^(k+5) zero bytes of padded data (0 ≤ k < 64).
 * Level 0 is 32 zero bytes, level 1 = trunc(SHA-256(0^64)) = f5a5fd42….
 * CZK_EINVAL for k ≥ 64, CZK_EINTERNAL if OpenSSL fails.
 */
CZK_API czk_status czk_zero_comm(uint8_t out[32], unsigned level);

/** comm_d of an empty (all-zero) sector or piece of `padded_size` bytes, a power of two
 *  from 32 to 2^63 bytes. CZK_EINVAL otherwise. */
CZK_API czk_status czk_comm_d_zero(uint8_t out[32], uint64_t padded_size, czk_err *err);

/** A piece: its commitment and padded size (a power of two ≥ 128). */
typedef struct czk_piece_info {
    uint8_t comm_p[32];
    uint64_t padded_size;
} czk_piece_info;

/**
 * comm_d of a sector from its pieces in order, as filecoin-proofs' compute_comm_d: a
 * stack that pads with zero pieces to align each piece to its size, then pads until one
 * node remains. Like upstream it does not pad up to the sector size: the pieces are
 * expected to fill the sector (Lotus and Curio add filler pieces), and pieces that do
 * not give the root of their own padded span. No pieces gives the zero sector's comm_d.
 * CZK_EINVAL for a bad sector
 * or piece size, more pieces than the sector holds (unpadded size / 127), or pieces
 * larger than the sector in total.
 */
CZK_API czk_status czk_comm_d_from_pieces(uint8_t out[32], uint64_t sector_size,
                                          const czk_piece_info *pieces, size_t npieces,
                                          czk_err *err);

/**
 * comm_p of `len` bytes of raw piece data, `len` a valid unpadded piece size
 * (127·2^k): the root of the binary SHA-256 tree over the fr32-padded data, computed in
 * chunks spread over `pool` without padding the whole piece at once.
 */
CZK_API czk_status czk_comm_p(uint8_t out[32], const uint8_t *data, uint64_t len, czk_pool *pool,
                              czk_err *err);

/** comm_r = Poseidon2_merkle(comm_c, comm_r_last) (tag 3). CZK_ENONCANONICAL if an
 *  input is not below r. */
CZK_API czk_status czk_comm_r(uint8_t out[32], const uint8_t comm_c[32],
                              const uint8_t comm_r_last[32], czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_MERKLE_H */
