/* Private to src/ntt and its tests: plan selection hooks. */
#ifndef CZK_NTT_INTERNAL_H
#define CZK_NTT_INTERNAL_H

#include "czk/ntt.h"

/*
 * czk_ntt_domain_create with an explicit plan: log_rows = 0 runs every transform as one
 * in-place radix-2 pass over the whole vector (the "direct" plan); 1 <= log_rows < log_n
 * runs the four-step plan with 2^log_rows rows of 2^(log_n - log_rows) points. The tests
 * use it to check both plans, at every split, against the naive DFT and each other.
 */
czk_status czk__ntt_domain_create_plan(czk_ntt_domain **out, unsigned log_n, czk_roots roots,
                                       unsigned log_rows, czk_err *err);

/* The plan a domain runs: 0 for direct, else its number of rows as a power of two. */
unsigned czk__ntt_domain_log_rows(const czk_ntt_domain *d);

/* Tuning knobs, for benchmarks and tests (not thread-safe: set before transforms run). */
typedef struct czk__ntt_tuning {
    unsigned direct_max_log, leaf_log, group_buf_log, tile_log, max_log_rows;
    bool columns_in_place; /* skip the gather into per-thread buffers (the ENOMEM path) */
} czk__ntt_tuning;
void czk__ntt_get_tuning(czk__ntt_tuning *out);
void czk__ntt_set_tuning(const czk__ntt_tuning *t);

#endif
