/*
 * fr32 padding of piece data (rust-fil-proofs fr32/src/{padding,reader}.rs).
 *
 * The raw data is read as one bit stream — bytes in order, bits least significant
 * first — and cut into 254-bit units; unit j becomes the 32-byte little-endian element j
 * with its two top bits zero, so that every element is below r. Four units take exactly
 * 127 raw bytes and give 128 padded bytes, so both directions work on 127/128-byte
 * blocks of sixteen 64-bit words: unit j's word k holds raw bits [254j + 64k, +64).
 */
#include "czk/comm.h"
#include "czk/fr32.h"

#include <string.h>

#define RAW_BLOCK 127
#define PAD_BLOCK 128
#define TOP62     ((UINT64_C(1) << 62) - 1) /* the 62 data bits of an element's last word */

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline void store64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

/* 64 bits of the word array starting at bit `pos` (pos + 64 ≤ 1024). */
static inline uint64_t bits64(const uint64_t w[16], unsigned pos)
{
    unsigned q = pos / 64, r = pos % 64;
    return r == 0 ? w[q] : (w[q] >> r) | (w[q + 1] << (64 - r));
}

/* Pad one block: `raw` must have 128 readable bytes, of which the last is ignored (raw
 * bits ≥ 1016 only ever land in masked-off positions). */
static void pad_block(uint8_t out[PAD_BLOCK], const uint8_t raw[PAD_BLOCK])
{
    uint64_t w[16];
    for (int i = 0; i < 16; i++) w[i] = load64(raw + 8 * i);
    for (unsigned j = 0; j < 4; j++) {
        for (unsigned k = 0; k < 4; k++) {
            uint64_t v = bits64(w, 254 * j + 64 * k);
            if (k == 3) v &= TOP62;
            store64(out + 32 * j + 8 * k, v);
        }
    }
}

/* Unpad one block of 128 padded bytes into 128 bytes, of which the first 127 are the raw
 * data (the last is zero). The padding bits are ignored. */
static void unpad_block(uint8_t out[PAD_BLOCK], const uint8_t in[PAD_BLOCK])
{
    uint64_t o[16] = {0};
    for (unsigned j = 0; j < 4; j++) {
        for (unsigned k = 0; k < 4; k++) {
            uint64_t v = load64(in + 32 * j + 8 * k);
            if (k == 3) v &= TOP62;
            unsigned pos = 254 * j + 64 * k, q = pos / 64, r = pos % 64;
            o[q] |= v << r;
            if (r != 0) o[q + 1] |= v >> (64 - r);
        }
    }
    for (int i = 0; i < 16; i++) store64(out + 8 * i, o[i]);
}

uint64_t czk_fr32_padded_size(uint64_t unpadded)
{
    unsigned __int128 bits = (unsigned __int128)unpadded * 8;
    unsigned __int128 pbits = bits / 254 * 256 + bits % 254;
    return (uint64_t)((pbits + 7) / 8);
}

uint64_t czk_fr32_unpadded_size(uint64_t padded)
{
    unsigned __int128 bits = (unsigned __int128)padded * 8;
    unsigned __int128 rbits = bits / 256 * 254 + bits % 256;
    return (uint64_t)(rbits / 8);
}

uint64_t czk_fr32_pad_output_size(uint64_t unpadded)
{
    unsigned __int128 bits = (unsigned __int128)unpadded * 8;
    return (uint64_t)((bits + 253) / 254 * 32);
}

bool czk_comm_piece_size_valid(uint64_t padded_size)
{
    return padded_size >= 128 && (padded_size & (padded_size - 1)) == 0;
}

void czk_fr32_pad(uint8_t *out, const uint8_t *in, size_t n)
{
    size_t nb = n / RAW_BLOCK, rem = n % RAW_BLOCK;
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *raw = in + RAW_BLOCK * b;
        if (RAW_BLOCK * b + PAD_BLOCK <= n) {
            pad_block(out + PAD_BLOCK * b, raw); /* the 128th byte exists and is ignored */
        } else {
            uint8_t buf[PAD_BLOCK];
            memcpy(buf, raw, RAW_BLOCK);
            buf[RAW_BLOCK] = 0;
            pad_block(out + PAD_BLOCK * b, buf);
        }
    }
    if (rem != 0) {
        /* A final partial block: zero-extended, and only its whole elements written. */
        uint8_t buf[PAD_BLOCK] = {0}, padded[PAD_BLOCK];
        memcpy(buf, in + RAW_BLOCK * nb, rem);
        pad_block(padded, buf);
        memcpy(out + PAD_BLOCK * nb, padded, (size_t)czk_fr32_pad_output_size(rem));
    }
}

czk_status czk_fr32_unpad(uint8_t *out, const uint8_t *in, size_t in_len, uint64_t offset,
                          size_t len, czk_err *err)
{
    uint64_t avail = czk_fr32_unpadded_size(in_len);
    if (offset > avail || len > avail - offset)
        return czk_err_set(err, CZK_EINVAL,
                           "fr32 unpad: range [%llu, +%zu) exceeds the %llu raw bytes of %zu "
                           "padded bytes",
                           (unsigned long long)offset, len, (unsigned long long)avail, in_len);
    size_t done = 0;
    while (done < len) {
        uint64_t pos = offset + done;
        uint64_t b = pos / RAW_BLOCK;
        size_t skip = (size_t)(pos % RAW_BLOCK);
        size_t take = RAW_BLOCK - skip;
        if (take > len - done) take = len - done;
        uint8_t raw[PAD_BLOCK];
        uint64_t start = b * PAD_BLOCK;
        if (start + PAD_BLOCK <= in_len) {
            unpad_block(raw, in + start);
        } else {
            /* The last, partial block: missing padded bytes read as zero; the range check
             * above guarantees none of them carries a byte we return. */
            uint8_t buf[PAD_BLOCK] = {0};
            memcpy(buf, in + start, (size_t)(in_len - start));
            unpad_block(raw, buf);
        }
        memcpy(out + done, raw + skip, take);
        done += take;
    }
    return CZK_OK;
}
