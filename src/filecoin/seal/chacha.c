/*
 * ChaCha keystream and RNG, compatible with rand_chacha 0.3 (ChaCha8Rng is what
 * rust-fil-proofs' BucketGraph draws DRG parents from). Written from Bernstein's
 * description of ChaCha; no library in the build offers the 8-round variant.
 */
#include "filecoin/seal/sdr_internal.h"

#include <string.h>

static inline uint32_t rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static inline uint32_t load32_le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define QUARTER(a, b, c, d)                                                                        \
    do {                                                                                           \
        a += b;                                                                                    \
        d = rotl32(d ^ a, 16);                                                                     \
        c += d;                                                                                    \
        b = rotl32(b ^ c, 12);                                                                     \
        a += b;                                                                                    \
        d = rotl32(d ^ a, 8);                                                                      \
        c += d;                                                                                    \
        b = rotl32(b ^ c, 7);                                                                      \
    } while (0)

void czk__chacha_block(uint32_t out[16], const uint32_t key[8], uint64_t counter, uint64_t stream,
                       unsigned rounds)
{
    /* "expand 32-byte k" as four LE words. */
    /* clang-format off */
    const uint32_t in[16] = {
        0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u,
        key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
        (uint32_t)counter, (uint32_t)(counter >> 32), (uint32_t)stream, (uint32_t)(stream >> 32),
    };
    /* clang-format on */
    uint32_t x0 = in[0], x1 = in[1], x2 = in[2], x3 = in[3], x4 = in[4], x5 = in[5], x6 = in[6],
             x7 = in[7], x8 = in[8], x9 = in[9], x10 = in[10], x11 = in[11], x12 = in[12],
             x13 = in[13], x14 = in[14], x15 = in[15];
    /* A double round is a column round then a diagonal round. */
    for (unsigned i = 0; i < rounds; i += 2) {
        QUARTER(x0, x4, x8, x12);
        QUARTER(x1, x5, x9, x13);
        QUARTER(x2, x6, x10, x14);
        QUARTER(x3, x7, x11, x15);
        QUARTER(x0, x5, x10, x15);
        QUARTER(x1, x6, x11, x12);
        QUARTER(x2, x7, x8, x13);
        QUARTER(x3, x4, x9, x14);
    }
    out[0] = x0 + in[0];
    out[1] = x1 + in[1];
    out[2] = x2 + in[2];
    out[3] = x3 + in[3];
    out[4] = x4 + in[4];
    out[5] = x5 + in[5];
    out[6] = x6 + in[6];
    out[7] = x7 + in[7];
    out[8] = x8 + in[8];
    out[9] = x9 + in[9];
    out[10] = x10 + in[10];
    out[11] = x11 + in[11];
    out[12] = x12 + in[12];
    out[13] = x13 + in[13];
    out[14] = x14 + in[14];
    out[15] = x15 + in[15];
}

void czk__chacha_rng_init(czk__chacha_rng *r, const uint8_t seed[32], uint64_t stream,
                          unsigned rounds)
{
    for (int i = 0; i < 8; i++) r->key[i] = load32_le(seed + 4 * i);
    r->counter = 0;
    r->stream = stream;
    r->rounds = rounds;
    r->pos = 16;
}

static void refill(czk__chacha_rng *r)
{
    czk__chacha_block(r->buf, r->key, r->counter, r->stream, r->rounds);
    r->counter++;
    r->pos = 0;
}

uint32_t czk__chacha_rng_u32(czk__chacha_rng *r)
{
    if (r->pos == 16) refill(r);
    return r->buf[r->pos++];
}

/* Two consecutive words, low first. rand_core's BlockRng does the same, also when the
 * pair straddles a refill (last word of one block, first of the next). */
uint64_t czk__chacha_rng_u64(czk__chacha_rng *r)
{
    uint64_t lo = czk__chacha_rng_u32(r);
    uint64_t hi = czk__chacha_rng_u32(r);
    return lo | hi << 32;
}

/* Whole words, LE, the tail of a partly used word discarded: BlockRng's fill_bytes
 * consumes words the same way. */
void czk__chacha_rng_bytes(czk__chacha_rng *r, uint8_t *out, size_t n)
{
    while (n > 0) {
        uint32_t w = czk__chacha_rng_u32(r);
        for (int i = 0; i < 4 && n > 0; i++, n--) *out++ = (uint8_t)(w >> (8 * i));
    }
}
