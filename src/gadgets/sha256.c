/*
 * SHA-256: bellperson's sha256.rs (the bellman gadget), constraint for constraint, and
 * filecoin-hashers' SHA-256 circuits on top of it.
 *
 * The compression function keeps upstream's "deferred" additions: the new a and e of a
 * round are not added at once but carried as their operand lists and summed by the next
 * round (or the final feed-forward) in one addmany, so e = d + temp1 and a = temp1 + temp2
 * each cost one addition of 6 or 7 words instead of two. All additions of one block share
 * one MultiEq, enforced at the end of the block.
 */
#include "gadgets/gadgets_internal.h"

#include "czk/alloc.h"

#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

void czk_sha256_circuit_iv(czk_uint32 out[8])
{
    for (int i = 0; i < 8; i++) czk_uint32_constant(&out[i], IV[i]);
}

/* upstream's Maybe: a word that is either known or the operands of a pending addition. */
typedef struct maybe {
    bool deferred;
    unsigned n;
    czk_uint32 ops[8]; /* concrete: ops[0] */
} maybe;

/* Maybe::compute: a concrete word as it is (the extra operands are ignored, as upstream
 * does), a deferred one summed with the extra operands appended. */
static void maybe_compute(czk_multieq *me, czk_uint32 *out, maybe *m, const czk_uint32 *extra)
{
    if (!m->deferred) {
        *out = m->ops[0];
        return;
    }
    unsigned n = m->n;
    if (extra != NULL) m->ops[n++] = *extra;
    czk_uint32_addmany(me, out, m->ops, n);
}

/* x rotr r0 ⊕ x rotr r1 ⊕ (x shr r2 | x rotr r2): upstream's order of the two xors. */
static void sigma(czk_cs *cs, czk_uint32 *out, const czk_uint32 *x, unsigned r0, unsigned r1,
                  unsigned r2, bool shift)
{
    czk_uint32 t, u;
    czk_uint32_rotr(&t, x, r0);
    czk_uint32_rotr(&u, x, r1);
    czk_uint32_xor(cs, &t, &t, &u);
    if (shift)
        czk_uint32_shr(&u, x, r2);
    else
        czk_uint32_rotr(&u, x, r2);
    czk_uint32_xor(cs, out, &t, &u);
}

void czk_sha256_circuit_compress(czk_cs *cs, czk_uint32 out[8], const czk_bool input[512],
                                 const czk_uint32 cur[8])
{
    czk_uint32 w[64];
    for (int i = 0; i < 16; i++) czk_uint32_from_bits_be(&w[i], input + 32 * i);

    czk_multieq me;
    czk_multieq_init(&me, cs);

    for (int i = 16; i < 64; i++) {
        czk_uint32 ops[4];
        ops[0] = w[i - 16];
        sigma(cs, &ops[1], &w[i - 15], 7, 18, 3, true);
        ops[2] = w[i - 7];
        sigma(cs, &ops[3], &w[i - 2], 17, 19, 10, true);
        czk_uint32_addmany(&me, &w[i], ops, 4);
    }

    /* a..h; a and e start concrete and become deferred additions. */
    static const maybe zero_maybe;
    maybe a = zero_maybe, e = zero_maybe;
    a.ops[0] = cur[0];
    e.ops[0] = cur[4];
    czk_uint32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];

    for (int i = 0; i < 64; i++) {
        czk_uint32 new_e, new_a, s1, ch, s0, maj;
        maybe_compute(&me, &new_e, &e, NULL);
        sigma(cs, &s1, &new_e, 6, 11, 25, false);
        czk_uint32_sha256_ch(cs, &ch, &new_e, &f, &g);

        /* temp1 = h + S1 + ch + k[i] + w[i] */
        czk_uint32 temp1[5];
        temp1[0] = h;
        temp1[1] = s1;
        temp1[2] = ch;
        czk_uint32_constant(&temp1[3], K[i]);
        temp1[4] = w[i];

        maybe_compute(&me, &new_a, &a, NULL);
        sigma(cs, &s0, &new_a, 2, 13, 22, false);
        czk_uint32_sha256_maj(cs, &maj, &new_a, &b, &c);

        h = g;
        g = f;
        f = new_e;
        e.deferred = true;
        memcpy(e.ops, temp1, sizeof temp1);
        e.ops[5] = d;
        e.n = 6;
        d = c;
        c = b;
        b = new_a;
        a.deferred = true;
        memcpy(a.ops, temp1, sizeof temp1);
        a.ops[5] = s0;
        a.ops[6] = maj;
        a.n = 7;
    }

    /* Feed-forward, in upstream's order. */
    czk_uint32 r[8], pair[2];
    maybe_compute(&me, &r[0], &a, &cur[0]);
    const czk_uint32 *regs[8] = {NULL, &b, &c, &d, NULL, &f, &g, &h};
    for (int k = 1; k < 8; k++) {
        if (k == 4) {
            maybe_compute(&me, &r[4], &e, &cur[4]);
            continue;
        }
        pair[0] = cur[k];
        pair[1] = *regs[k];
        czk_uint32_addmany(&me, &r[k], pair, 2);
    }
    czk_multieq_finish(&me);
    czk_multieq_free(&me);
    memcpy(out, r, sizeof r);
}

void czk_sha256_circuit_block(czk_cs *cs, czk_bool out[256], const czk_bool input[512])
{
    czk_uint32 iv[8], h[8];
    czk_sha256_circuit_iv(iv);
    czk_sha256_circuit_compress(cs, h, input, iv);
    for (int i = 0; i < 8; i++) czk_uint32_to_bits_be(out + 32 * i, &h[i]);
}

czk_status czk_sha256_circuit(czk_cs *cs, czk_bool out[256], const czk_bool *input, size_t n)
{
    if (n % 8 != 0) {
        czk_cs_fail(cs, CZK_EINVAL, "gadgets: sha256 of %zu bits (not whole bytes)", n);
        for (int i = 0; i < 256; i++) out[i] = czk_bool_const(false);
        return CZK_EINVAL;
    }
    /* Message, a one bit, zeros up to 448 mod 512, the bit length as a 64-bit big-endian
     * integer — all padding is constant. Blocks are formed one at a time. */
    uint64_t nblocks = (n + 1 + 64 + 511) / 512;
    czk_uint32 h[8];
    czk_sha256_circuit_iv(h);
    czk_bool block[512];
    for (uint64_t k = 0; k < nblocks; k++) {
        for (size_t i = 0; i < 512; i++) {
            uint64_t pos = k * 512 + i;
            if (pos < n)
                block[i] = input[pos];
            else if (pos == n)
                block[i] = czk_bool_const(true);
            else if (pos >= nblocks * 512 - 64)
                block[i] = czk_bool_const(((uint64_t)n >> (nblocks * 512 - 1 - pos)) & 1);
            else
                block[i] = czk_bool_const(false);
        }
        czk_sha256_circuit_compress(cs, h, block, h);
    }
    for (int i = 0; i < 8; i++) czk_uint32_to_bits_be(out + 32 * i, &h[i]);
    return CZK_OK;
}

czk_status czk_sha256_circuit_hash_bits(czk_cs *cs, czk_var *out, const czk_bool *input, size_t n)
{
    czk_bool be[256], le[256];
    czk_status s = czk_sha256_circuit(cs, be, input, n);
    /* Bits reversed inside each byte: the digest as a little-endian bit string; its first
     * 254 bits are the truncated field element. */
    czk_bits_reverse_numbering(le, be, 256);
    *out = czk_multipack_pack_bits(cs, le, CZK_MULTIPACK_CAPACITY);
    return s;
}

czk_status czk_sha256_circuit_hash_nums(czk_cs *cs, czk_var *out, const czk_var *nums, size_t n)
{
    if (n == 0 || n > 64) {
        *out = czk_cs_one();
        return czk_cs_fail(cs, CZK_EINVAL, "gadgets: SHA-256 hash of %zu numbers", n);
    }
    czk_bool *bits = czk_malloc(n * 256 * sizeof *bits);
    if (bits == NULL) {
        *out = czk_cs_one();
        return czk_cs_fail(cs, CZK_ENOMEM, "gadgets: out of memory for %zu numbers' bits", n);
    }
    for (size_t i = 0; i < n; i++) {
        czk_bool le[256];
        czk_num_to_bits_le(cs, nums[i], le);
        /* 255 bits padded to 256 with a constant zero, then each byte's bits reversed:
         * the number's 32-byte little-endian repr, MSB of each byte first. */
        czk_bits_reverse_numbering(bits + 256 * i, le, 255);
    }
    czk_status s = czk_sha256_circuit_hash_bits(cs, out, bits, n * 256);
    czk_free(bits);
    return s;
}
