/*
 * czk — SHA-256 as Filecoin's trees and commitments use it (rust-fil-proofs
 * filecoin-hashers sha256.rs): plain, truncated to 254 bits, and a tree_d level at a time.
 * Through OpenSSL; below the circuits and the trees that use it.
 */
#ifndef CZK_SHA256_H
#define CZK_SHA256_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Clear the two top bits of byte 31: the 254-bit truncation of rust-fil-proofs'
 *  trim_to_fr32 / bytes_into_fr_repr_safe. */
CZK_API void czk_fr32_trim(uint8_t node[32]);

/** Plain SHA-256 of `len` bytes. CZK_EINTERNAL only if OpenSSL fails. */
CZK_API czk_status czk_sha256(uint8_t out[32], const void *data, size_t len);

/** SHA-256 truncated to 254 bits (Sha256Function::hash): replica_id, labels, tree_d. */
CZK_API czk_status czk_sha256_trunc(uint8_t out[32], const void *data, size_t len);

/**
 * `n` tree_d nodes: out[i] = trunc(SHA-256(in[64·i .. 64·i + 64))), i.e. the hash of a
 * left child followed by its right sibling (Sha256Function::node). `out` may alias `in`
 * (out[i] is written after in[i] is read). CZK_EINTERNAL only if OpenSSL fails.
 */
CZK_API czk_status czk_sha256_nodes(uint8_t *out, const uint8_t *in, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* CZK_SHA256_H */
