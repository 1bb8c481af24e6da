/*
 * Private to src/filecoin: the ChaCha keystream behind the DRG, the SDR graph's layout,
 * and the hash helpers the registry, graph and parent-cache files share. Tests include it
 * to check the pieces against independent references.
 */
#ifndef CZK_FILECOIN_SEAL_SDR_INTERNAL_H
#define CZK_FILECOIN_SEAL_SDR_INTERNAL_H

#include "czk/api_version.h"
#include "czk/sdr.h"

/* ---------------------------------------------------------------------------------------
 * ChaCha (chacha.c): Bernstein's original layout, as rand_chacha 0.3 uses it. State words
 * 0..3 are "expand 32-byte k", 4..11 the 32-byte key (the RNG seed) as LE words, 12..13
 * a 64-bit block counter starting at 0, 14..15 the 64-bit stream id (0 after
 * SeedableRng::from_seed). Output words are consumed in order and u64 values are two
 * consecutive words, low first: exactly the LE byte keystream, which is what
 * rand_core's BlockRng hands out for next_u32 / next_u64 / fill_bytes alike.
 * ------------------------------------------------------------------------------------- */

/** One 16-word block of ChaCha with `rounds` rounds (8 or 20; must be even). */
void czk__chacha_block(uint32_t out[16], const uint32_t key[8], uint64_t counter, uint64_t stream,
                       unsigned rounds);

/** A ChaCha RNG in rand_chacha's ChaChaXRng form (seed = key, stream 0, counter 0). */
typedef struct czk__chacha_rng {
    uint32_t key[8];
    uint64_t counter; /* next block to generate */
    uint64_t stream;
    unsigned rounds;
    unsigned pos; /* next unread word of buf; 16 = empty */
    uint32_t buf[16];
} czk__chacha_rng;

void czk__chacha_rng_init(czk__chacha_rng *r, const uint8_t seed[32], uint64_t stream,
                          unsigned rounds);
uint32_t czk__chacha_rng_u32(czk__chacha_rng *r);
uint64_t czk__chacha_rng_u64(czk__chacha_rng *r);
void czk__chacha_rng_bytes(czk__chacha_rng *r, uint8_t *out, size_t n);

/* ---------------------------------------------------------------------------------------
 * Hashes through OpenSSL EVP (registry.c).
 * ------------------------------------------------------------------------------------- */

/** SHA-256 of the concatenation of n (ptr, len) parts. CZK_EINTERNAL on OpenSSL failure. */
czk_status czk__sha256_parts(uint8_t out[32], const void *const *parts, const size_t *lens,
                             size_t n);

/* ---------------------------------------------------------------------------------------
 * The SDR graph (sdr_graph.c).
 * ------------------------------------------------------------------------------------- */

struct czk_sdr_graph {
    uint64_t nodes;
    czk_api_version version;
    uint8_t porep_id[32];
    uint8_t drg_seed[28];
    uint32_t drg_key[8]; /* ChaCha key words of the DRG RNG; word 7 is the node */
    uint64_t feistel_keys[4];
    uint64_t exp_nodes;  /* nodes · EXP_DEGREE: the Feistel permutation's domain */
    unsigned half_bits;  /* smallest k ≥ 1 with 4^k ≥ exp_nodes */
    uint64_t right_mask; /* 2^half_bits − 1 */
    uint32_t *round_tab; /* 3 · 2^half_bits entries: F(r, key_i) for round i */
};

/**
 * The Feistel round function as rust-fil-proofs' feistel.rs defines it, hashed afresh:
 * the first 8 bytes, big-endian, of BLAKE2b-512(BE64(right) ‖ BE64(key)), masked with
 * right_mask. The graph uses a table of its values; tests compare the two.
 */
czk_status czk__feistel_round_hash(uint64_t *out, uint64_t right, uint64_t key,
                                   uint64_t right_mask);

/** The Feistel permutation of `index` in the graph's expander domain (table-driven). */
uint64_t czk__sdr_feistel_permute(const czk_sdr_graph *g, uint64_t index);

#endif
