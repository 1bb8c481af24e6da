/*
 * czk — BLS12-381 arithmetic on the CPU.
 *
 * Conventions (blst-like):
 *   - Output first, inputs const, aliasing of output and inputs allowed.
 *   - Field elements are plain limb structs, 64-bit limbs, least significant first, in
 *     Montgomery form unless a name says otherwise (`_from_mont`, `_u64s` canonical limbs).
 *   - Math that cannot fail returns void; predicates return bool; decoding of untrusted
 *     bytes returns czk_status.
 *   - Affine points use (0, 0) for the point at infinity (it is not on either curve, since
 *     b != 0); Jacobian points have Z = 0 at infinity; XYZZ points have ZZ = ZZZ = 0.
 */
#ifndef CZK_BLS12_381_H
#define CZK_BLS12_381_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Fields                                                                               */
/* ------------------------------------------------------------------------------------ */

/** Fp, the 381-bit base field, p = 0x1a0111ea...ffffaaab, Montgomery form, R = 2^384. */
typedef struct czk_fp {
    uint64_t l[6];
} czk_fp;

/** Fr, the 255-bit scalar field, r = 0x73eda753...00000001, Montgomery form, R = 2^256. */
typedef struct czk_fr {
    uint64_t l[4];
} czk_fr;

/** Fp2 = Fp[u]/(u^2 + 1): c0 + c1·u. */
typedef struct czk_fp2 {
    czk_fp c0, c1;
} czk_fp2;

/** Fp6 = Fp2[v]/(v^3 − (u + 1)): c0 + c1·v + c2·v^2. */
typedef struct czk_fp6 {
    czk_fp2 c0, c1, c2;
} czk_fp6;

/** Fp12 = Fp6[w]/(w^2 − v): c0 + c1·w. */
typedef struct czk_fp12 {
    czk_fp6 c0, c1;
} czk_fp12;

/* Constants (Montgomery form). */
CZK_API extern const czk_fp CZK_FP_ZERO, CZK_FP_ONE;
CZK_API extern const czk_fr CZK_FR_ZERO, CZK_FR_ONE;
/** Moduli as canonical limbs (not Montgomery). */
CZK_API extern const uint64_t CZK_FP_MODULUS[6];
CZK_API extern const uint64_t CZK_FR_MODULUS[4];

/* --- Fp --- */
CZK_API void czk_fp_add(czk_fp *out, const czk_fp *a, const czk_fp *b);
CZK_API void czk_fp_sub(czk_fp *out, const czk_fp *a, const czk_fp *b);
CZK_API void czk_fp_neg(czk_fp *out, const czk_fp *a);
CZK_API void czk_fp_dbl(czk_fp *out, const czk_fp *a);
CZK_API void czk_fp_mul(czk_fp *out, const czk_fp *a, const czk_fp *b);
CZK_API void czk_fp_sqr(czk_fp *out, const czk_fp *a);
/** a^e, e given as `nlimbs` 64-bit limbs, least significant first (not Montgomery). */
CZK_API void czk_fp_pow(czk_fp *out, const czk_fp *a, const uint64_t *e, size_t nlimbs);
/** Inverse; inverse of zero is zero. */
CZK_API void czk_fp_inv(czk_fp *out, const czk_fp *a);
/** Montgomery batch inversion of n elements in place (zeros stay zero). `scratch` holds
 *  n elements, or NULL to allocate. */
CZK_API void czk_fps_inv(czk_fp *v, size_t n, czk_fp *scratch);
/** Square root; returns false (out untouched) if a is not a square. */
CZK_API bool czk_fp_sqrt(czk_fp *out, const czk_fp *a);
/** Legendre symbol: 0 for zero, 1 for non-zero squares, -1 otherwise. */
CZK_API int czk_fp_legendre(const czk_fp *a);
CZK_API bool czk_fp_is_zero(const czk_fp *a);
CZK_API bool czk_fp_is_one(const czk_fp *a);
CZK_API bool czk_fp_eq(const czk_fp *a, const czk_fp *b);
/** Canonical limbs (value < p, not Montgomery) to Montgomery; false if ≥ p. */
CZK_API bool czk_fp_from_u64s(czk_fp *out, const uint64_t in[6]);
/** Montgomery to canonical limbs. */
CZK_API void czk_fp_to_u64s(uint64_t out[6], const czk_fp *a);
CZK_API void czk_fp_from_u64(czk_fp *out, uint64_t v);
/** Canonical 48-byte big-endian / little-endian encodings; decoding rejects values ≥ p. */
CZK_API bool czk_fp_from_bytes_be(czk_fp *out, const uint8_t in[48]);
CZK_API void czk_fp_to_bytes_be(uint8_t out[48], const czk_fp *a);
CZK_API bool czk_fp_from_bytes_le(czk_fp *out, const uint8_t in[48]);
CZK_API void czk_fp_to_bytes_le(uint8_t out[48], const czk_fp *a);
/** a > (p−1)/2, the zcash "lexicographically largest" test on the canonical value. */
CZK_API bool czk_fp_is_lex_largest(const czk_fp *a);
/** Uniform random element from 64 bytes of the given randomness (reduced mod p). */
CZK_API void czk_fp_from_wide_bytes(czk_fp *out, const uint8_t in[64]);

/* --- Fr --- */
CZK_API void czk_fr_add(czk_fr *out, const czk_fr *a, const czk_fr *b);
CZK_API void czk_fr_sub(czk_fr *out, const czk_fr *a, const czk_fr *b);
CZK_API void czk_fr_neg(czk_fr *out, const czk_fr *a);
CZK_API void czk_fr_dbl(czk_fr *out, const czk_fr *a);
CZK_API void czk_fr_mul(czk_fr *out, const czk_fr *a, const czk_fr *b);
CZK_API void czk_fr_sqr(czk_fr *out, const czk_fr *a);
CZK_API void czk_fr_pow(czk_fr *out, const czk_fr *a, const uint64_t *e, size_t nlimbs);
CZK_API void czk_fr_inv(czk_fr *out, const czk_fr *a);
CZK_API void czk_frs_inv(czk_fr *v, size_t n, czk_fr *scratch);
CZK_API bool czk_fr_sqrt(czk_fr *out, const czk_fr *a);
CZK_API int czk_fr_legendre(const czk_fr *a);
CZK_API bool czk_fr_is_zero(const czk_fr *a);
CZK_API bool czk_fr_is_one(const czk_fr *a);
CZK_API bool czk_fr_eq(const czk_fr *a, const czk_fr *b);
CZK_API bool czk_fr_from_u64s(czk_fr *out, const uint64_t in[4]);
CZK_API void czk_fr_to_u64s(uint64_t out[4], const czk_fr *a);
CZK_API void czk_fr_from_u64(czk_fr *out, uint64_t v);
/** 32-byte little-endian canonical repr (blstrs Scalar::to_repr); decoding rejects ≥ r. */
CZK_API bool czk_fr_from_bytes_le(czk_fr *out, const uint8_t in[32]);
CZK_API void czk_fr_to_bytes_le(uint8_t out[32], const czk_fr *a);
CZK_API bool czk_fr_from_bytes_be(czk_fr *out, const uint8_t in[32]);
CZK_API void czk_fr_to_bytes_be(uint8_t out[32], const czk_fr *a);
CZK_API void czk_fr_from_wide_bytes(czk_fr *out, const uint8_t in[64]);
/** Fill `out` with a uniformly random element from the OS CSPRNG (getrandom). */
CZK_API czk_status czk_fr_random(czk_fr *out);

/** Which multiplication back end this build uses: "adx" or "portable". */
CZK_API const char *czk_ff_backend(void);

/* --- Fp2 --- */
CZK_API void czk_fp2_add(czk_fp2 *out, const czk_fp2 *a, const czk_fp2 *b);
CZK_API void czk_fp2_sub(czk_fp2 *out, const czk_fp2 *a, const czk_fp2 *b);
CZK_API void czk_fp2_neg(czk_fp2 *out, const czk_fp2 *a);
CZK_API void czk_fp2_dbl(czk_fp2 *out, const czk_fp2 *a);
CZK_API void czk_fp2_mul(czk_fp2 *out, const czk_fp2 *a, const czk_fp2 *b);
CZK_API void czk_fp2_sqr(czk_fp2 *out, const czk_fp2 *a);
/** a · (u + 1), the Fp6 non-residue. */
CZK_API void czk_fp2_mul_by_nonresidue(czk_fp2 *out, const czk_fp2 *a);
CZK_API void czk_fp2_mul_fp(czk_fp2 *out, const czk_fp2 *a, const czk_fp *b);
CZK_API void czk_fp2_conj(czk_fp2 *out, const czk_fp2 *a);
CZK_API void czk_fp2_inv(czk_fp2 *out, const czk_fp2 *a);
CZK_API void czk_fp2_pow(czk_fp2 *out, const czk_fp2 *a, const uint64_t *e, size_t nlimbs);
CZK_API bool czk_fp2_sqrt(czk_fp2 *out, const czk_fp2 *a);
CZK_API bool czk_fp2_is_zero(const czk_fp2 *a);
CZK_API bool czk_fp2_is_one(const czk_fp2 *a);
CZK_API bool czk_fp2_eq(const czk_fp2 *a, const czk_fp2 *b);
/** zcash ordering: c1 ≠ 0 ? c1 lex-largest : c0 lex-largest. */
CZK_API bool czk_fp2_is_lex_largest(const czk_fp2 *a);
CZK_API extern const czk_fp2 CZK_FP2_ZERO, CZK_FP2_ONE;

/* --- Fp6, Fp12 --- */
CZK_API void czk_fp6_add(czk_fp6 *out, const czk_fp6 *a, const czk_fp6 *b);
CZK_API void czk_fp6_sub(czk_fp6 *out, const czk_fp6 *a, const czk_fp6 *b);
CZK_API void czk_fp6_neg(czk_fp6 *out, const czk_fp6 *a);
CZK_API void czk_fp6_mul(czk_fp6 *out, const czk_fp6 *a, const czk_fp6 *b);
CZK_API void czk_fp6_sqr(czk_fp6 *out, const czk_fp6 *a);
CZK_API void czk_fp6_inv(czk_fp6 *out, const czk_fp6 *a);
/** a · v. */
CZK_API void czk_fp6_mul_by_nonresidue(czk_fp6 *out, const czk_fp6 *a);
CZK_API bool czk_fp6_eq(const czk_fp6 *a, const czk_fp6 *b);
CZK_API bool czk_fp6_is_zero(const czk_fp6 *a);

CZK_API void czk_fp12_mul(czk_fp12 *out, const czk_fp12 *a, const czk_fp12 *b);
CZK_API void czk_fp12_sqr(czk_fp12 *out, const czk_fp12 *a);
CZK_API void czk_fp12_inv(czk_fp12 *out, const czk_fp12 *a);
CZK_API void czk_fp12_conj(czk_fp12 *out, const czk_fp12 *a);
/** Frobenius map a^(p^power), power in 1..11. */
CZK_API void czk_fp12_frobenius(czk_fp12 *out, const czk_fp12 *a, unsigned power);
CZK_API void czk_fp12_pow(czk_fp12 *out, const czk_fp12 *a, const uint64_t *e, size_t nlimbs);
CZK_API bool czk_fp12_eq(const czk_fp12 *a, const czk_fp12 *b);
CZK_API bool czk_fp12_is_one(const czk_fp12 *a);
CZK_API void czk_fp12_set_one(czk_fp12 *out);
/** Canonical 576-byte encoding, as @noble/curves' Fp12.toBytes: c0.c0.c0, c0.c0.c1, ...,
 *  c1.c2.c1, each Fp element 48 bytes big-endian. */
CZK_API void czk_fp12_to_bytes(uint8_t out[576], const czk_fp12 *a);

/* ------------------------------------------------------------------------------------ */
/* Curves                                                                               */
/* ------------------------------------------------------------------------------------ */

/* G1: y^2 = x^3 + 4 over Fp.  G2: y^2 = x^3 + 4(u + 1) over Fp2 (M-twist). */
typedef struct czk_g1_affine {
    czk_fp x, y;
} czk_g1_affine;
typedef struct czk_g1_jac {
    czk_fp x, y, z;
} czk_g1_jac;
/** XYZZ: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2. */
typedef struct czk_g1_xyzz {
    czk_fp x, y, zz, zzz;
} czk_g1_xyzz;

typedef struct czk_g2_affine {
    czk_fp2 x, y;
} czk_g2_affine;
typedef struct czk_g2_jac {
    czk_fp2 x, y, z;
} czk_g2_jac;
typedef struct czk_g2_xyzz {
    czk_fp2 x, y, zz, zzz;
} czk_g2_xyzz;

CZK_API extern const czk_g1_affine CZK_G1_GENERATOR;
CZK_API extern const czk_g2_affine CZK_G2_GENERATOR;

/* --- G1 --- */
CZK_API bool czk_g1_affine_is_inf(const czk_g1_affine *p);
CZK_API bool czk_g1_affine_on_curve(const czk_g1_affine *p); /* infinity counts as on */
CZK_API bool czk_g1_affine_eq(const czk_g1_affine *a, const czk_g1_affine *b);
CZK_API void czk_g1_affine_neg(czk_g1_affine *out, const czk_g1_affine *p);
CZK_API void czk_g1_jac_set_inf(czk_g1_jac *out);
CZK_API bool czk_g1_jac_is_inf(const czk_g1_jac *p);
CZK_API void czk_g1_jac_from_affine(czk_g1_jac *out, const czk_g1_affine *p);
CZK_API void czk_g1_jac_to_affine(czk_g1_affine *out, const czk_g1_jac *p);
/** Batch conversion with one inversion; `scratch` holds n czk_fp, or NULL to allocate. */
CZK_API void czk_g1s_jac_to_affine(czk_g1_affine *out, const czk_g1_jac *in, size_t n,
                                   czk_fp *scratch);
CZK_API bool czk_g1_jac_eq(const czk_g1_jac *a, const czk_g1_jac *b);
CZK_API bool czk_g1_jac_on_curve(const czk_g1_jac *p);
CZK_API void czk_g1_jac_neg(czk_g1_jac *out, const czk_g1_jac *p);
CZK_API void czk_g1_jac_add(czk_g1_jac *out, const czk_g1_jac *a, const czk_g1_jac *b);
CZK_API void czk_g1_jac_add_affine(czk_g1_jac *out, const czk_g1_jac *a, const czk_g1_affine *b);
CZK_API void czk_g1_jac_dbl(czk_g1_jac *out, const czk_g1_jac *a);
/** [k]P, k as canonical little-endian 64-bit limbs (`nlimbs` of them). */
CZK_API void czk_g1_jac_mul(czk_g1_jac *out, const czk_g1_jac *p, const uint64_t *k,
                            size_t nlimbs);
CZK_API void czk_g1_jac_mul_fr(czk_g1_jac *out, const czk_g1_jac *p, const czk_fr *k);
CZK_API void czk_g1_xyzz_set_inf(czk_g1_xyzz *out);
CZK_API bool czk_g1_xyzz_is_inf(const czk_g1_xyzz *p);
CZK_API void czk_g1_xyzz_from_affine(czk_g1_xyzz *out, const czk_g1_affine *p);
CZK_API void czk_g1_xyzz_to_jac(czk_g1_jac *out, const czk_g1_xyzz *p);
CZK_API void czk_g1_xyzz_to_affine(czk_g1_affine *out, const czk_g1_xyzz *p);
CZK_API void czk_g1_xyzz_add(czk_g1_xyzz *out, const czk_g1_xyzz *a, const czk_g1_xyzz *b);
CZK_API void czk_g1_xyzz_add_affine(czk_g1_xyzz *out, const czk_g1_xyzz *a,
                                    const czk_g1_affine *b);
CZK_API void czk_g1_xyzz_dbl(czk_g1_xyzz *out, const czk_g1_xyzz *a);
CZK_API void czk_g1_xyzz_neg(czk_g1_xyzz *out, const czk_g1_xyzz *a);
/** Subgroup membership by the endomorphism test (Scott 2021): φ(P) == [−x^2]P. */
CZK_API bool czk_g1_affine_in_subgroup(const czk_g1_affine *p);
CZK_API bool czk_g1_jac_in_subgroup(const czk_g1_jac *p);

/* --- G2 --- */
CZK_API bool czk_g2_affine_is_inf(const czk_g2_affine *p);
CZK_API bool czk_g2_affine_on_curve(const czk_g2_affine *p);
CZK_API bool czk_g2_affine_eq(const czk_g2_affine *a, const czk_g2_affine *b);
CZK_API void czk_g2_affine_neg(czk_g2_affine *out, const czk_g2_affine *p);
CZK_API void czk_g2_jac_set_inf(czk_g2_jac *out);
CZK_API bool czk_g2_jac_is_inf(const czk_g2_jac *p);
CZK_API void czk_g2_jac_from_affine(czk_g2_jac *out, const czk_g2_affine *p);
CZK_API void czk_g2_jac_to_affine(czk_g2_affine *out, const czk_g2_jac *p);
CZK_API void czk_g2s_jac_to_affine(czk_g2_affine *out, const czk_g2_jac *in, size_t n,
                                   czk_fp2 *scratch);
CZK_API bool czk_g2_jac_eq(const czk_g2_jac *a, const czk_g2_jac *b);
CZK_API bool czk_g2_jac_on_curve(const czk_g2_jac *p);
CZK_API void czk_g2_jac_neg(czk_g2_jac *out, const czk_g2_jac *p);
CZK_API void czk_g2_jac_add(czk_g2_jac *out, const czk_g2_jac *a, const czk_g2_jac *b);
CZK_API void czk_g2_jac_add_affine(czk_g2_jac *out, const czk_g2_jac *a, const czk_g2_affine *b);
CZK_API void czk_g2_jac_dbl(czk_g2_jac *out, const czk_g2_jac *a);
CZK_API void czk_g2_jac_mul(czk_g2_jac *out, const czk_g2_jac *p, const uint64_t *k,
                            size_t nlimbs);
CZK_API void czk_g2_jac_mul_fr(czk_g2_jac *out, const czk_g2_jac *p, const czk_fr *k);
CZK_API void czk_g2_xyzz_set_inf(czk_g2_xyzz *out);
CZK_API bool czk_g2_xyzz_is_inf(const czk_g2_xyzz *p);
CZK_API void czk_g2_xyzz_from_affine(czk_g2_xyzz *out, const czk_g2_affine *p);
CZK_API void czk_g2_xyzz_to_jac(czk_g2_jac *out, const czk_g2_xyzz *p);
CZK_API void czk_g2_xyzz_to_affine(czk_g2_affine *out, const czk_g2_xyzz *p);
CZK_API void czk_g2_xyzz_add(czk_g2_xyzz *out, const czk_g2_xyzz *a, const czk_g2_xyzz *b);
CZK_API void czk_g2_xyzz_add_affine(czk_g2_xyzz *out, const czk_g2_xyzz *a,
                                    const czk_g2_affine *b);
CZK_API void czk_g2_xyzz_dbl(czk_g2_xyzz *out, const czk_g2_xyzz *a);
CZK_API void czk_g2_xyzz_neg(czk_g2_xyzz *out, const czk_g2_xyzz *a);
/** Subgroup membership by the endomorphism test: ψ(P) == [x]P. */
CZK_API bool czk_g2_affine_in_subgroup(const czk_g2_affine *p);
CZK_API bool czk_g2_jac_in_subgroup(const czk_g2_jac *p);

/* --- zcash / bellperson encodings --- */
#define CZK_G1_COMPRESSED_SIZE   48
#define CZK_G1_UNCOMPRESSED_SIZE 96
#define CZK_G2_COMPRESSED_SIZE   96
#define CZK_G2_UNCOMPRESSED_SIZE 192

CZK_API void czk_g1_to_compressed(uint8_t out[48], const czk_g1_affine *p);
CZK_API void czk_g1_to_uncompressed(uint8_t out[96], const czk_g1_affine *p);
CZK_API void czk_g2_to_compressed(uint8_t out[96], const czk_g2_affine *p);
CZK_API void czk_g2_to_uncompressed(uint8_t out[192], const czk_g2_affine *p);

/** Decoding flags. */
#define CZK_DECODE_CHECK_SUBGROUP 0x1u /* default: reject points outside the subgroup */
#define CZK_DECODE_REJECT_INFINITY 0x2u /* reject the identity (proof elements, IC) */
#define CZK_DECODE_DEFAULT CZK_DECODE_CHECK_SUBGROUP

/**
 * Decode; statuses: CZK_EBADFLAGS (flag bits wrong for the form, infinity with stray
 * bits), CZK_ENONCANONICAL (a coordinate ≥ p), CZK_ENOTONCURVE (no such point, or x has no
 * square root), CZK_ENOTINSUBGROUP, CZK_EINFINITY (identity with REJECT_INFINITY).
 */
CZK_API czk_status czk_g1_from_compressed(czk_g1_affine *out, const uint8_t in[48],
                                          unsigned flags);
CZK_API czk_status czk_g1_from_uncompressed(czk_g1_affine *out, const uint8_t in[96],
                                            unsigned flags);
CZK_API czk_status czk_g2_from_compressed(czk_g2_affine *out, const uint8_t in[96],
                                          unsigned flags);
CZK_API czk_status czk_g2_from_uncompressed(czk_g2_affine *out, const uint8_t in[192],
                                            unsigned flags);

/* ------------------------------------------------------------------------------------ */
/* Pairing                                                                              */
/* ------------------------------------------------------------------------------------ */

/** Product of Miller loops f = prod_i f_{|x|,Q_i}(P_i) (pairs with an infinity are skipped). */
CZK_API void czk_miller_loop(czk_fp12 *out, const czk_g1_affine *p, const czk_g2_affine *q,
                             size_t n);
/** Final exponentiation f^((p^12 − 1)/r). */
CZK_API void czk_final_exp(czk_fp12 *out, const czk_fp12 *f);
/** e(P, Q) = final_exp(miller_loop(P, Q)). */
CZK_API void czk_pairing(czk_fp12 *out, const czk_g1_affine *p, const czk_g2_affine *q);
/** prod_i e(P_i, Q_i) == 1. */
CZK_API bool czk_pairing_product_is_one(const czk_g1_affine *p, const czk_g2_affine *q,
                                        size_t n);

#ifdef __cplusplus
}
#endif
#endif /* CZK_BLS12_381_H */
