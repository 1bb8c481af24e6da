/*
 * zcash / bellperson point encodings (blstrs = blst, zkcrypto/bls12_381): big-endian Fp
 * elements, Fp2 written c1 then c0, flags in the three high bits of byte 0:
 *   0x80 compressed form, 0x40 point at infinity (every other bit zero), 0x20 y is the
 *   lexicographically largest of ±y (compressed, finite points only).
 * Decoding checks in the order blst does (flags, canonical coordinates, curve, subgroup),
 * so each malformed input gets one well-defined status.
 */
#include <string.h>

#include "czk/bls12_381.h"

#define FLAG_COMPRESSED 0x80u
#define FLAG_INFINITY 0x40u
#define FLAG_SORT 0x20u
#define FLAG_MASK 0xe0u

static bool bytes_are_zero(const uint8_t *b, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= b[i];
    return acc == 0;
}

/* An infinity encoding must be exactly the flag byte (`want`) followed by zeros. */
static czk_status check_infinity(const uint8_t *in, size_t n, uint8_t want, unsigned flags)
{
    if (in[0] != want || !bytes_are_zero(in + 1, n - 1)) return CZK_EBADFLAGS;
    if (flags & CZK_DECODE_REJECT_INFINITY) return CZK_EINFINITY;
    return CZK_OK;
}

/* Fp element from 48 big-endian bytes whose flag bits (first chunk only) are cleared. */
static bool fp_from_flagged_be(czk_fp *out, const uint8_t in[48], bool first)
{
    uint8_t b[48];
    memcpy(b, in, 48);
    if (first) b[0] &= (uint8_t)~FLAG_MASK;
    return czk_fp_from_bytes_be(out, b);
}

/* Fp2 as c1 ‖ c0; `first`: these are the leading bytes of the encoding, flags in in[0]. */
static bool fp2_from_flagged_be(czk_fp2 *out, const uint8_t in[96], bool first)
{
    return fp_from_flagged_be(&out->c1, in, first) && fp_from_flagged_be(&out->c0, in + 48, false);
}

static void fp2_to_be(uint8_t out[96], const czk_fp2 *a)
{
    czk_fp_to_bytes_be(out, &a->c1);
    czk_fp_to_bytes_be(out + 48, &a->c0);
}

/* --- G1 --- */

void czk_g1_to_compressed(uint8_t out[48], const czk_g1_affine *p)
{
    if (czk_g1_affine_is_inf(p)) {
        memset(out, 0, 48);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    czk_fp_to_bytes_be(out, &p->x);
    out[0] |= FLAG_COMPRESSED;
    if (czk_fp_is_lex_largest(&p->y)) out[0] |= FLAG_SORT;
}

void czk_g1_to_uncompressed(uint8_t out[96], const czk_g1_affine *p)
{
    if (czk_g1_affine_is_inf(p)) {
        memset(out, 0, 96);
        out[0] = FLAG_INFINITY;
        return;
    }
    czk_fp_to_bytes_be(out, &p->x);
    czk_fp_to_bytes_be(out + 48, &p->y);
}

static czk_status g1_finish(czk_g1_affine *out, const czk_g1_affine *pt, unsigned flags)
{
    if ((flags & CZK_DECODE_CHECK_SUBGROUP) && !czk_g1_affine_in_subgroup(pt))
        return CZK_ENOTINSUBGROUP;
    *out = *pt;
    return CZK_OK;
}

czk_status czk_g1_from_compressed(czk_g1_affine *out, const uint8_t in[48], unsigned flags)
{
    if (!(in[0] & FLAG_COMPRESSED)) return CZK_EBADFLAGS;
    if (in[0] & FLAG_INFINITY) {
        czk_status s = check_infinity(in, 48, FLAG_COMPRESSED | FLAG_INFINITY, flags);
        if (s == CZK_OK) *out = (czk_g1_affine){{{0}}, {{0}}};
        return s;
    }
    czk_g1_affine pt;
    if (!fp_from_flagged_be(&pt.x, in, true)) return CZK_ENONCANONICAL;
    czk_fp rhs, four;
    czk_fp_from_u64(&four, 4);
    czk_fp_sqr(&rhs, &pt.x);
    czk_fp_mul(&rhs, &rhs, &pt.x);
    czk_fp_add(&rhs, &rhs, &four);
    if (!czk_fp_sqrt(&pt.y, &rhs)) return CZK_ENOTONCURVE;
    /* y ≠ 0 (E(Fp) has odd order), so exactly one of ±y is lexicographically largest. */
    if (czk_fp_is_lex_largest(&pt.y) != ((in[0] & FLAG_SORT) != 0)) czk_fp_neg(&pt.y, &pt.y);
    return g1_finish(out, &pt, flags);
}

czk_status czk_g1_from_uncompressed(czk_g1_affine *out, const uint8_t in[96], unsigned flags)
{
    if (in[0] & (FLAG_COMPRESSED | FLAG_SORT)) return CZK_EBADFLAGS;
    if (in[0] & FLAG_INFINITY) {
        czk_status s = check_infinity(in, 96, FLAG_INFINITY, flags);
        if (s == CZK_OK) *out = (czk_g1_affine){{{0}}, {{0}}};
        return s;
    }
    czk_g1_affine pt;
    if (!fp_from_flagged_be(&pt.x, in, true) || !fp_from_flagged_be(&pt.y, in + 48, false))
        return CZK_ENONCANONICAL;
    /* (0, 0) is our infinity and passes czk_g1_affine_on_curve, but without the
     * infinity flag it is just a point that is not on the curve. */
    if (czk_g1_affine_is_inf(&pt) || !czk_g1_affine_on_curve(&pt)) return CZK_ENOTONCURVE;
    return g1_finish(out, &pt, flags);
}

/* --- G2 --- */

void czk_g2_to_compressed(uint8_t out[96], const czk_g2_affine *p)
{
    if (czk_g2_affine_is_inf(p)) {
        memset(out, 0, 96);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    fp2_to_be(out, &p->x);
    out[0] |= FLAG_COMPRESSED;
    if (czk_fp2_is_lex_largest(&p->y)) out[0] |= FLAG_SORT;
}

void czk_g2_to_uncompressed(uint8_t out[192], const czk_g2_affine *p)
{
    if (czk_g2_affine_is_inf(p)) {
        memset(out, 0, 192);
        out[0] = FLAG_INFINITY;
        return;
    }
    fp2_to_be(out, &p->x);
    fp2_to_be(out + 96, &p->y);
}

static czk_status g2_finish(czk_g2_affine *out, const czk_g2_affine *pt, unsigned flags)
{
    if ((flags & CZK_DECODE_CHECK_SUBGROUP) && !czk_g2_affine_in_subgroup(pt))
        return CZK_ENOTINSUBGROUP;
    *out = *pt;
    return CZK_OK;
}

czk_status czk_g2_from_compressed(czk_g2_affine *out, const uint8_t in[96], unsigned flags)
{
    if (!(in[0] & FLAG_COMPRESSED)) return CZK_EBADFLAGS;
    if (in[0] & FLAG_INFINITY) {
        czk_status s = check_infinity(in, 96, FLAG_COMPRESSED | FLAG_INFINITY, flags);
        if (s == CZK_OK) *out = (czk_g2_affine){{{{0}}, {{0}}}, {{{0}}, {{0}}}};
        return s;
    }
    czk_g2_affine pt;
    if (!fp2_from_flagged_be(&pt.x, in, true)) return CZK_ENONCANONICAL;
    czk_fp2 rhs, b;
    czk_fp_from_u64(&b.c0, 4);
    b.c1 = b.c0; /* b = 4(u + 1) */
    czk_fp2_sqr(&rhs, &pt.x);
    czk_fp2_mul(&rhs, &rhs, &pt.x);
    czk_fp2_add(&rhs, &rhs, &b);
    if (!czk_fp2_sqrt(&pt.y, &rhs)) return CZK_ENOTONCURVE;
    if (czk_fp2_is_lex_largest(&pt.y) != ((in[0] & FLAG_SORT) != 0)) czk_fp2_neg(&pt.y, &pt.y);
    return g2_finish(out, &pt, flags);
}

czk_status czk_g2_from_uncompressed(czk_g2_affine *out, const uint8_t in[192], unsigned flags)
{
    if (in[0] & (FLAG_COMPRESSED | FLAG_SORT)) return CZK_EBADFLAGS;
    if (in[0] & FLAG_INFINITY) {
        czk_status s = check_infinity(in, 192, FLAG_INFINITY, flags);
        if (s == CZK_OK) *out = (czk_g2_affine){{{{0}}, {{0}}}, {{{0}}, {{0}}}};
        return s;
    }
    czk_g2_affine pt;
    if (!fp2_from_flagged_be(&pt.x, in, true) || !fp2_from_flagged_be(&pt.y, in + 96, false))
        return CZK_ENONCANONICAL;
    if (czk_g2_affine_is_inf(&pt) || !czk_g2_affine_on_curve(&pt)) return CZK_ENOTONCURVE;
    return g2_finish(out, &pt, flags);
}
