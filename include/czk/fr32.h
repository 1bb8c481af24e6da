/*
 * czk — fr32 padding of piece data, byte for byte as rust-fil-proofs' fr32 crate
 * (fr32/src/{padding,reader}.rs): every 254 bits of piece data become one 32-byte
 * element whose two top bits are zero, so that each element is a canonical Fr element in
 * little-endian bytes; 127 bytes become 128.
 */
#ifndef CZK_FR32_H
#define CZK_FR32_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif /* CZK_FR32_H */
