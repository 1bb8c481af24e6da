/*
 * PoRep challenge derivation, as rust-fil-proofs' storage-proofs-porep
 * stacked/vanilla/challenges.rs gives it for the three PoRep features
 * (docs/formats.md §5.6).
 *
 * Every rule ends in bigint_to_challenge: a little-endian integer reduced mod
 * (nodes − 1), plus one, so that node 0 (whose label has no parents) is never challenged.
 */
#include "filecoin/vanilla/porep_vanilla_internal.h"
#include "filecoin/seal/sdr_internal.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <string.h>

/* (LE-int(b[0..n)) mod m) + 1 for m < 2^32: Horner from the most significant byte keeps
 * every intermediate below 2^40. */
static uint64_t to_challenge(const uint8_t *b, size_t n, uint64_t nodes)
{
    uint64_t m = nodes - 1, r = 0;
    for (size_t i = n; i-- > 0;) r = (r * 256 + b[i]) % m;
    return r + 1;
}

czk_status czk__porep_interactive_challenges(uint64_t *out, uint64_t nodes, unsigned cpp,
                                             const uint8_t replica_id[32], const uint8_t seed[32],
                                             unsigned k)
{
    for (unsigned i = 0; i < cpp; i++) {
        uint32_t j = cpp * k + i;
        uint8_t jb[4] = {(uint8_t)j, (uint8_t)(j >> 8), (uint8_t)(j >> 16), (uint8_t)(j >> 24)};
        const void *parts[3] = {replica_id, seed, jb};
        const size_t lens[3] = {32, 32, 4};
        uint8_t h[32];
        czk_status s = czk__sha256_parts(h, parts, lens, 3);
        if (s) return s;
        out[i] = to_challenge(h, 32, nodes);
    }
    return CZK_OK;
}

static czk_status non_interactive(uint64_t *out, const czk_seal_proof_info *info,
                                  const uint8_t replica_id[32], const uint8_t comm_r[32],
                                  unsigned k)
{
    static const char tag[] = "filecoin.io|PoRep|1|NonInteractive|1";
    unsigned cpp = info->challenges_per_partition;
    for (unsigned i = 0; i < cpp; i++) {
        uint32_t j = cpp * k + i;
        uint8_t jb[4] = {(uint8_t)j, (uint8_t)(j >> 8), (uint8_t)(j >> 16), (uint8_t)(j >> 24)};
        const void *parts[4] = {tag, replica_id, comm_r, jb};
        const size_t lens[4] = {sizeof tag - 1, 32, 32, 4};
        uint8_t h[32];
        czk_status s = czk__sha256_parts(h, parts, lens, 4);
        if (s) return s;
        out[i] = to_challenge(h, 32, info->nodes);
    }
    return CZK_OK;
}

/* BLAKE2b with a 32-byte digest keyed by `key` (blake2b_simd Params::hash_length(32)
 * .key(key)) over a ‖ b: OpenSSL's BLAKE2BMAC with its size parameter set is exactly
 * that keyed, truncated-parameter-block BLAKE2b. */
static czk_status blake2b256_keyed(uint8_t out[32], const char *key, const uint8_t a[32],
                                   const uint8_t b[32])
{
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2BMAC", NULL);
    EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
    size_t size = 32, outl = 0;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
                           OSSL_PARAM_construct_end()};
    bool ok = ctx && EVP_MAC_init(ctx, (const unsigned char *)key, strlen(key), params) &&
              EVP_MAC_update(ctx, a, 32) && EVP_MAC_update(ctx, b, 32) &&
              EVP_MAC_final(ctx, out, &outl, 32) && outl == 32;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return ok ? CZK_OK : CZK_EINTERNAL;
}

/* The chacha20 crate's ChaCha20 (RFC 8439: 32-bit block counter in word 12, 96-bit nonce
 * in words 13..15) on czk's Bernstein-layout block function, whose 64-bit counter and
 * stream fill the same four words: the nonce's first word rides in the counter's high
 * half. Writes `len` keystream bytes starting at byte offset `pos`. */
static void chacha20_ietf(uint8_t *out, size_t len, const uint8_t key[32], uint64_t pos)
{
    static const uint8_t nonce[12] = "synth-porep";
    uint32_t kw[8], blk[16];
    for (int i = 0; i < 8; i++)
        kw[i] = (uint32_t)key[4 * i] | (uint32_t)key[4 * i + 1] << 8 |
                (uint32_t)key[4 * i + 2] << 16 | (uint32_t)key[4 * i + 3] << 24;
    uint32_t nw[3];
    for (int i = 0; i < 3; i++)
        nw[i] = (uint32_t)nonce[4 * i] | (uint32_t)nonce[4 * i + 1] << 8 |
                (uint32_t)nonce[4 * i + 2] << 16 | (uint32_t)nonce[4 * i + 3] << 24;
    while (len > 0) {
        uint64_t block = pos / 64;
        size_t off = (size_t)(pos % 64), n = 64 - off < len ? 64 - off : len;
        czk__chacha_block(blk, kw, (block & 0xffffffffu) | (uint64_t)nw[0] << 32,
                          nw[1] | (uint64_t)nw[2] << 32, 20);
        uint8_t bytes[64];
        for (int i = 0; i < 16; i++)
            for (int b = 0; b < 4; b++) bytes[4 * i + b] = (uint8_t)(blk[i] >> (8 * b));
        memcpy(out, bytes + off, n);
        out += n;
        len -= n;
        pos += n;
    }
}

/* rust-fil-proofs' DEFAULT_SYNTH_CHALLENGE_COUNT: synthetic challenges per sector (fewer
 * when the sector has fewer nodes). */
#define SYNTH_CHALLENGES (1u << 18)

czk_status czk__porep_synth_indexes(uint64_t *out, uint64_t nodes, unsigned cpp,
                                    const uint8_t replica_id[32], const uint8_t seed[32],
                                    unsigned k)
{
    uint8_t sel_key[32];
    czk_status s = blake2b256_keyed(sel_key, "filecoin.io|PoRep|1|Synthetic|1|Selection",
                                    replica_id, seed);
    if (s) return s;
    uint64_t nsynth = nodes < SYNTH_CHALLENGES ? nodes : SYNTH_CHALLENGES;
    for (unsigned i = 0; i < cpp; i++) {
        /* The selection stream gives a u32 index per PoRep challenge. */
        uint8_t ib[4];
        chacha20_ietf(ib, 4, sel_key, 4 * ((uint64_t)cpp * k + i));
        out[i] = ((uint64_t)ib[0] | (uint64_t)ib[1] << 8 | (uint64_t)ib[2] << 16 |
                  (uint64_t)ib[3] << 24) %
                 nsynth;
    }
    return CZK_OK;
}

static czk_status synthetic(uint64_t *out, const czk_seal_proof_info *info,
                            const uint8_t replica_id[32], const uint8_t seed[32],
                            const uint8_t comm_r[32], unsigned k)
{
    uint8_t gen_key[32];
    czk_status s = blake2b256_keyed(gen_key, "filecoin.io|PoRep|1|Synthetic|1|Generation",
                                    replica_id, comm_r);
    if (!s)
        s = czk__porep_synth_indexes(out, info->nodes, info->challenges_per_partition, replica_id,
                                     seed, k);
    if (s) return s;
    for (unsigned i = 0; i < info->challenges_per_partition; i++) {
        /* The generation stream gives a 32-byte integer per synthetic challenge. */
        uint8_t cb[32];
        chacha20_ietf(cb, 32, gen_key, 32 * out[i]);
        out[i] = to_challenge(cb, 32, info->nodes);
    }
    return CZK_OK;
}

czk_status czk_porep_challenges(uint64_t *out, czk_seal_proof proof, const uint8_t replica_id[32],
                                const uint8_t *seed, const uint8_t *comm_r, unsigned partition,
                                czk_err *err)
{
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    if (!info) return czk_err_set(err, CZK_EINVAL, "PoRep challenges: unknown proof %d", (int)proof);
    if (partition >= info->partitions)
        return czk_err_set(err, CZK_EINVAL, "PoRep challenges: partition %u, %s has %u", partition,
                           info->name, info->partitions);
    czk_status s;
    switch (info->feature) {
    case CZK_SEAL_FEATURE_INTERACTIVE:
        if (!seed) return czk_err_set(err, CZK_EINVAL, "PoRep challenges: %s needs a seed", info->name);
        s = czk__porep_interactive_challenges(out, info->nodes, info->challenges_per_partition,
                                              replica_id, seed, partition);
        break;
    case CZK_SEAL_FEATURE_SYNTHETIC:
        if (!seed || !comm_r)
            return czk_err_set(err, CZK_EINVAL, "PoRep challenges: %s needs a seed and comm_r",
                               info->name);
        s = synthetic(out, info, replica_id, seed, comm_r, partition);
        break;
    default:
        if (!comm_r)
            return czk_err_set(err, CZK_EINVAL, "PoRep challenges: %s needs comm_r", info->name);
        s = non_interactive(out, info, replica_id, comm_r, partition);
        break;
    }
    if (s) return czk_err_set(err, s, "PoRep challenges: OpenSSL SHA-256 or BLAKE2b failed");
    return CZK_OK;
}
