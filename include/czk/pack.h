/*
 * czk — packed vectors of Fr for the copy to the GPU.
 *
 * A Filecoin partition's vectors are mostly 0 and 1. On a 32 GiB PoRep partition
 * (bench_synth's profile) the witness is 98.7 % 0 or 1, b 99.1 %, c 83 % and a 67 %: the
 * four 4 GiB copies of a 2^27 partition (305 ms of PCIe at 55 GB/s, most of the time before
 * H is ready) carry about 0.6 GiB of information. A packed vector is two bitmaps (which
 * elements are 1, which are neither 0 nor 1), a running count of the latter per 64
 * elements, and those values in order: 2 bits and 4 bytes per 64 elements beside the
 * values. The GPU expands it into the plain vector (cuda/pack.cuh) after a much shorter copy.
 *
 * Elements are compared in the form they are stored in (Montgomery form, as czk_fr is):
 * "one" is CZK_FR_ONE's limbs.
 */
#ifndef CZK_PACK_H
#define CZK_PACK_H

#include "czk/bls12_381.h"
#include "czk/common.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_packed_vec {
    size_t n;         /**< elements described (at most 2^32 − 1) */
    size_t n_other;   /**< elements neither 0 nor 1: the values in vals */
    uint64_t *ones;   /**< czk_packed_words(n) words: bit j of word w, element 64w + j is 1 */
    uint64_t *others; /**< the same for the elements that are neither 0 nor 1 */
    uint32_t *prefix; /**< per word: the elements of `others` in the words before it */
    czk_fr *vals;     /**< the n_other values, in order, as stored in the source */
    size_t vals_cap;  /**< room in vals, in elements */
} czk_packed_vec;

/** Words of each bitmap (and entries of prefix) for n elements: ceil(n / 64). */
static inline size_t czk_packed_words(size_t n) { return (n + 63) / 64; }

/** Bytes the packed form of p takes (bitmaps, prefix and values): what a copy moves. */
CZK_API uint64_t czk_packed_bytes(const czk_packed_vec *p);

/**
 * Pack v[0..n) into p, whose ones, others, prefix (czk_packed_words(n) entries each), vals
 * and vals_cap the caller has set (any memory: page-locked for fast copies). Runs on
 * `pool` (NULL: the calling thread). CZK_ERESOURCE when more than vals_cap elements are
 * neither 0 nor 1 (p->n_other then holds their count, and the rest of p is unspecified):
 * the caller copies the plain vector instead. CZK_EINVAL for n ≥ 2^32 or a missing
 * buffer, CZK_ENOMEM when its per-task counts cannot be allocated.
 */
CZK_API czk_status czk_pack_vec(czk_packed_vec *p, const czk_fr *v, size_t n, czk_pool *pool,
                                czk_err *err);

/** The plain vector back from its packed form (out: p->n elements); the host reference of
 *  the GPU's expansion. */
CZK_API void czk_unpack_vec(czk_fr *out, const czk_packed_vec *p);

#ifdef __cplusplus
}
#endif
#endif
