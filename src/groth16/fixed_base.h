/*
 * Private to src/groth16: fixed-base scalar multiplication k_i·G of the G1 and G2
 * generators, for the test-parameter generators (setup.c, bellperson layout; zkey_write.c,
 * snarkjs layout). A windowed table of d·2^(wc)·G is built once per call, then every
 * scalar costs one mixed addition per window and no doublings.
 */
#ifndef CZK_GROTH16_FIXED_BASE_H
#define CZK_GROTH16_FIXED_BASE_H

#include "czk/groth16.h"

/** Progress over several fixed-base runs: the callback sees done out of total. */
typedef struct czk__progress {
    czk_progress_fn fn;
    void *ctx;
    uint64_t done, total;
} czk__progress;

/** Count n more units done and tell the callback (if any). */
void czk__progress_add(czk__progress *pr, uint64_t n);

/**
 * out[i] = k[i]·G1 for i < n, affine (a zero scalar gives infinity). Advances `pr` by n,
 * in rounds so that a progress bar moves. CZK_ENOMEM when the table does not fit.
 */
czk_status czk__g1s_fixed_base(czk_g1_affine *out, const czk_fr *k, size_t n, czk_pool *pool,
                               czk__progress *pr, czk_err *err);

/** out[i] = k[i]·G2 for i < n; advances `pr` by 2n (a G2 multiplication costs about two
 *  G1 ones). */
czk_status czk__g2s_fixed_base(czk_g2_affine *out, const czk_fr *k, size_t n, czk_pool *pool,
                               czk__progress *pr, czk_err *err);

/** Where the fixed-base calls run: CZK__FIXED_BASE_AUTO (the default) on GPU 0 from
 *  2^14 points when there is a GPU, else on the CPU; tests and benchmarks force either. */
typedef enum czk__fixed_base_where {
    CZK__FIXED_BASE_AUTO = 0,
    CZK__FIXED_BASE_CPU = 1,
    CZK__FIXED_BASE_GPU = 2 /* GPU 0 for every call, when there is a GPU */
} czk__fixed_base_where;
void czk__fixed_base_set_where(czk__fixed_base_where w);

#endif
