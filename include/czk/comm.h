/*
 * czk — the commitments of a Filecoin sector and its pieces, byte for byte as
 * rust-fil-proofs computes them (docs/formats.md §1, §5.6): the zero-piece ladder,
 * comm_d of a sector from its pieces (filecoin-proofs pieces.rs compute_comm_d), comm_p
 * of piece data, and comm_r = Poseidon2(comm_c, comm_r_last).
 *
 * Every commitment is the little-endian repr of an Fr element, as rust-fil-proofs'
 * Domain types hold it; the trees behind them are czk/merkle.h's.
 */
#ifndef CZK_COMM_H
#define CZK_COMM_H

#include "czk/common.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Level k of the zero ladder: the root of a binary SHA-256 tree over 2^k zero leaves,
 * i.e. the piece commitment of 2^(k+5) zero bytes of padded data (0 ≤ k < 64).
 * Level 0 is 32 zero bytes, level 1 = trunc(SHA-256(0^64)) = f5a5fd42….
 * CZK_EINVAL for k ≥ 64, CZK_EINTERNAL if OpenSSL fails.
 */
CZK_API czk_status czk_comm_zero(uint8_t out[32], unsigned level);

/** comm_d of an empty (all-zero) sector or piece of `padded_size` bytes, a power of two
 *  from 32 to 2^63 bytes. CZK_EINVAL otherwise. */
CZK_API czk_status czk_comm_d_zero(uint8_t out[32], uint64_t padded_size, czk_err *err);

/** A piece: its commitment and padded size (a power of two ≥ 128). */
typedef struct czk_comm_piece_info {
    uint8_t comm_p[32];
    uint64_t padded_size;
} czk_comm_piece_info;

/** True for a valid padded piece size: a power of two of at least 128 bytes. */
CZK_API bool czk_comm_piece_size_valid(uint64_t padded_size);

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
                                          const czk_comm_piece_info *pieces, size_t npieces,
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
#endif /* CZK_COMM_H */
