/*
 * Private to src/groth16 (and its tests): the pieces the file-format readers and writers
 * share. Read-only whole-file mappings, atomic file writes, the snarkjs point encoding
 * (Montgomery little-endian, all-zero infinity) and a parallel, validating point decoder
 * whose error names the file, the section and the first offending point.
 */
#ifndef CZK_GROTH16_IO_INTERNAL_H
#define CZK_GROTH16_IO_INTERNAL_H

#include "czk/groth16.h"

#include <stdio.h>

/* ------------------------------------------------------------------------------------ */
/* Byte order                                                                           */
/* ------------------------------------------------------------------------------------ */

static inline uint32_t czk__ld32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t czk__ld64le(const uint8_t *p)
{
    return (uint64_t)czk__ld32le(p) | (uint64_t)czk__ld32le(p + 4) << 32;
}

static inline uint32_t czk__ld32be(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void czk__st32le(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void czk__st64le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void czk__st32be(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* ------------------------------------------------------------------------------------ */
/* Files                                                                                */
/* ------------------------------------------------------------------------------------ */

/** A whole file mapped read-only; data is NULL when the file is empty. */
typedef struct czk__map {
    const uint8_t *data;
    size_t len;
} czk__map;

/** Map a regular file. CZK_ENOENT when it does not exist, CZK_EIO for other failures. */
czk_status czk__map_open(czk__map *m, const char *path, czk_err *err);
void czk__map_close(czk__map *m);

/**
 * A file written under a temporary name beside its final path and renamed into place on
 * commit, so that a reader (or a crash) never sees half a parameter file. Writes are
 * buffered; the first I/O error is remembered and reported by commit.
 */
typedef struct czk__wfile {
    FILE *f;
    char *tmp_path;
    const char *path;
    int err_no;
} czk__wfile;

czk_status czk__wfile_open(czk__wfile *w, const char *path, czk_err *err);
void czk__wfile_put(czk__wfile *w, const void *p, size_t n);
/** Flush, close and rename; on failure the temporary file is removed. */
czk_status czk__wfile_commit(czk__wfile *w, czk_err *err);
/** Discard: close and remove the temporary file. */
void czk__wfile_abort(czk__wfile *w);

/* ------------------------------------------------------------------------------------ */
/* Points                                                                               */
/* ------------------------------------------------------------------------------------ */

/** How a point is stored in a file. */
typedef enum czk__point_enc {
    CZK__G1_ZCASH, /* 96 B uncompressed, big-endian, flag bits (bellperson .params) */
    CZK__G2_ZCASH, /* 192 B, c1 before c0 */
    CZK__G1_MONT,  /* 96 B x ‖ y, Montgomery little-endian, all zero = infinity (zkey) */
    CZK__G2_MONT   /* 192 B x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1 */
} czk__point_enc;

static inline size_t czk__point_enc_size(czk__point_enc e)
{
    return (e == CZK__G1_ZCASH || e == CZK__G1_MONT) ? 96 : 192;
}

static inline bool czk__point_enc_is_g2(czk__point_enc e)
{
    return e == CZK__G2_ZCASH || e == CZK__G2_MONT;
}

/** Fp from 48 little-endian bytes that already hold the Montgomery form; false if ≥ p. */
bool czk__fp_from_mont_le(czk_fp *out, const uint8_t in[48]);
void czk__fp_to_mont_le(uint8_t out[48], const czk_fp *a);

/**
 * snarkjs points. Statuses as czk_g1_from_uncompressed: CZK_ENONCANONICAL,
 * CZK_ENOTONCURVE, CZK_ENOTINSUBGROUP (with CZK_DECODE_CHECK_SUBGROUP), CZK_EINFINITY
 * (with CZK_DECODE_REJECT_INFINITY).
 */
czk_status czk__g1_from_mont_le(czk_g1_affine *out, const uint8_t in[96], unsigned flags);
czk_status czk__g2_from_mont_le(czk_g2_affine *out, const uint8_t in[192], unsigned flags);
void czk__g1_to_mont_le(uint8_t out[96], const czk_g1_affine *p);
void czk__g2_to_mont_le(uint8_t out[192], const czk_g2_affine *p);

/** One point of any encoding into `dst` (a czk_g1_affine or czk_g2_affine). */
czk_status czk__point_decode(void *dst, const uint8_t *src, czk__point_enc enc, unsigned flags);

/** A run of `n` encoded points to decode into the array `dst`. */
typedef struct czk__point_range {
    const char *what; /* names the run in errors: "h", "section 5 (A)" */
    czk__point_enc enc;
    unsigned flags; /* CZK_DECODE_* */
    const uint8_t *src;
    size_t n;
    void *dst;
    size_t first; /* index of src's first point in its section, for errors */
} czk__point_range;

/**
 * Decode every range, in parallel over the pool (NULL: on the caller). On failure the
 * error names `file`, the range and the index of the first bad point in file order, the
 * same point whatever the thread count.
 */
czk_status czk__points_decode(const czk__point_range *ranges, size_t n_ranges, czk_pool *pool,
                              const char *file, czk_err *err);

/** Allocate an array of n points for a decoder (64-byte aligned); NULL for n = 0. */
void *czk__points_alloc(size_t n, size_t elem_size);

/* ------------------------------------------------------------------------------------ */
/* circom / snarkjs constants                                                            */
/* ------------------------------------------------------------------------------------ */

/** Whether `n` little-endian bytes are BLS12-381's r (n = 32) or p (n = 48). */
bool czk__is_fr_modulus_le(const uint8_t *b, size_t n);
bool czk__is_fp_modulus_le(const uint8_t *b, size_t n);
/** Whether they are BN254's r or q: recognised only to name that curve in errors. */
bool czk__is_bn254_prime_le(const uint8_t *b, size_t n);
/** r as 32 little-endian bytes, as circom and snarkjs write it. */
void czk__fr_modulus_to_le(uint8_t out[32]);

/** Fr from a 32-byte little-endian value that holds c·R² (zkey coefficients) → c·R. */
bool czk__fr_from_double_mont_le(czk_fr *out, const uint8_t in[32]);

#endif
