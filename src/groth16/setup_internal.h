/*
 * Private to src/groth16: the parts of test-parameter generation that the R1CS entry
 * (setup.c) and the streaming entry (setup_stream.c) share. Both evaluate the QAP at τ
 * into u, v, w (one value per variable, inputs first) their own way; everything after
 * that (scalars, fixed-base, verifying key) is czk__setup_keys.
 */
#ifndef CZK_GROTH16_SETUP_INTERNAL_H
#define CZK_GROTH16_SETUP_INTERNAL_H

#include "czk/groth16.h"
#include "groth16/fixed_base.h"

/** The toxic waste of one setup. */
typedef struct czk__setup_waste {
    czk_fr tau, alpha, beta, gamma, delta;
} czk__setup_waste;

/**
 * Draw the waste: from `seed` (32 bytes) deterministically, or from the OS CSPRNG when
 * seed is NULL. The seeded derivation (stable: keys made from one seed must stay the same
 * keys) is, for each label in "tau", "alpha", "beta", "gamma", "delta" and a counter
 * c = 0, 1, ... until the value is non-zero:
 *   SHA-512("czk groth16 setup v1" ‖ seed ‖ label ‖ c as u32 LE), read as a 512-bit
 *   little-endian integer and reduced mod r.
 */
czk_status czk__setup_draw(czk__setup_waste *w, const uint8_t *seed, czk_err *err);

/** Overwrite one secret scalar with zeros (the compiler may not drop the stores). */
void czk__setup_scrub_fr(czk_fr *v);

/** Overwrite the waste with zeros (the compiler may not drop the stores). */
void czk__setup_scrub(czk__setup_waste *w);

/** log2 of the domain for `rows` rows (at least 2); 0 when above 2^28. */
unsigned czk__setup_log_m(size_t rows);

/** lag[j] = L_j(τ), j < 2^log_m, on bellperson's domain, in parallel on `pool` (may be
 *  NULL). CZK_EINTERNAL when τ is in the domain (probability 2^log_m / r). */
czk_status czk__setup_lagrange(czk_fr *lag, const czk_fr *tau, unsigned log_m, czk_pool *pool,
                               czk_err *err);

/** The QAP at τ, handed to czk__setup_keys, which frees every array in it. */
typedef struct czk__setup_qap {
    size_t ni, na;         /* inputs (ONE included) and aux variables */
    size_t n_constraints;  /* the circuit's rows; the input rows follow them */
    unsigned log_m;
    czk_fr *lag;           /* 2^log_m values L_j(τ) */
    czk_fr *u, *v, *w;     /* ni + na each: the circuit's rows only (no input rows yet) */
    uint64_t *a_aux, *b_in, *b_aux; /* bellperson's density bitmaps */
    uint64_t n_terms;      /* terms the streaming pass accumulated (0 from an R1CS) */
} czk__setup_qap;

/** Units of progress czk__setup_keys reports for q (points, a G2 one counting two). */
uint64_t czk__setup_units(const czk__setup_qap *q);

/** Free q's arrays (NULL is fine) and set them to NULL. */
void czk__setup_qap_free(czk__setup_qap *q);

/**
 * From u, v, w: the scalars of every section, their fixed-base multiples (into out's host
 * arrays, or into an SRS on each of opts' GPUs), and the verifying key. Takes q's arrays
 * and frees each as soon as it is used up, so the host peak stays at lag, u, v and w.
 * On error out is freed and zeroed, and no SRS is returned.
 */
czk_status czk__setup_keys(czk_groth16_params *out, const czk__setup_waste *tw,
                           czk__setup_qap *q, const czk_groth16_setup_opts *opts,
                           czk_pool *pool, czk__progress *pr, czk_err *err);

/**
 * The streaming entry's QAP pass (setup_stream.c): `circuit` in COUNT mode (sizes and
 * densities into q), the waste from `seed` (NULL: random) into tw, then the circuit in
 * RECORD mode with a sink that accumulates u, v, w. pr's total is set to the rows plus
 * czk__setup_units(q), and it advances by the rows. On error q and tw are freed/scrubbed.
 */
czk_status czk__setup_stream_qap(czk__setup_qap *q, czk__setup_waste *tw,
                                 czk_cs_circuit_fn circuit, void *circuit_ctx,
                                 const uint8_t *seed, czk_pool *pool, czk__progress *pr,
                                 czk_err *err);

#endif
