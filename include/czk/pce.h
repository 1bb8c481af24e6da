/*
 * czk — the pre-compiled constraint evaluator (PCE).
 *
 * A circuit's R1CS is recorded once (CZK_CS_RECORD with a sink) into a compact form and
 * kept next to the parameters. A proof is then synthesized in two steps: the circuit runs
 * in CZK_CS_WITNESS mode (values only: an LC is summed only when a gadget reads it, and
 * enforce only counts), and a
 * parallel row-blocked sparse matrix-vector product computes a = A·z, b = B·z, c = C·z
 * straight into the caller's (pinned) buffers.
 *
 * The compact form, per matrix (rows = constraints):
 *   - one byte per row: the row's number of terms, 255 meaning "see the escape list"
 *     (a u32 per long row, in row order);
 *   - per block of CZK_PCE_BLOCK_ROWS rows: the offset of its first term and of its first
 *     escape, so blocks are evaluated independently;
 *   - per term: a u32 column, the czk_var id (input i is i, aux k is CZK_VAR_AUX | k: the
 *     witness stays in its two caller arrays), and an index into a COEFFICIENT DICTIONARY
 *     of the distinct coefficients (entry 0 is +1, entry 1 is −1), 1, 2 or 4 bytes wide
 *     as the dictionary's size needs. PoRep's coefficients are almost all ±1 and powers of
 *     two, so a term costs 5–6 bytes instead of the 36–40 of a (column, Fr) pair.
 * The density bitmaps (a_aux, b_input, b_aux) are kept with the matrices.
 *
 * File format (little-endian, version 1): a 128-byte header (magic "CZKPCE\0\1", version,
 * circuit id, counts, the R1CS hash, a 64-bit checksum of everything else), then the
 * sections in a fixed order, each starting on a 64-byte boundary; czk_pce_save writes
 * a temporary file and renames it into place; czk_pce_load maps the file read-only and
 * validates every count, offset, column and coefficient index before use, so a corrupt
 * or truncated file is an error that names what is wrong.
 *
 * The R1CS hash is a SHA-256 of the counts, the dictionary and the matrices' length,
 * escape, column and coefficient-index sections: recording is deterministic, so it
 * identifies the circuit (a caller keeps it next to the parameters and passes it to
 * czk_pce_load), while the checksum only guards the file's bytes.
 *
 * Sizes: PoRep's dictionary holds ~1,500–2,500 coefficients (±1, powers of two, Poseidon's
 * constants), so indices take 2 bytes and a term 6.6 bytes with the row lengths; a 32 GiB
 * PoRep partition (722 M terms) makes a 4.4 GiB file, against cuzk's 25.7 GiB.
 *
 * A czk_pce is immutable once recorded or loaded: any number of threads may evaluate it
 * at once (one czk_pce serves every synthesis worker).
 */
#ifndef CZK_PCE_H
#define CZK_PCE_H

#include "czk/cs.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Rows per evaluation block (and per pool task). */
#define CZK_PCE_BLOCK_ROWS 4096
/** Longest circuit id, without its NUL. */
#define CZK_PCE_ID_MAX 47

typedef struct czk_pce czk_pce;

/** Sizes of a PCE. */
typedef struct czk_pce_info {
    char circuit_id[CZK_PCE_ID_MAX + 1];
    uint64_t n_inputs, n_aux, n_constraints; /* n_inputs includes ONE */
    uint64_t nnz[3];                         /* terms of A, B, C */
    uint64_t long_rows[3];                   /* rows of 255 terms or more */
    uint32_t n_coeffs;                       /* dictionary entries */
    uint32_t coeff_width;                    /* bytes per coefficient index: 1, 2 or 4 */
    uint64_t a_aux_density, b_input_density, b_aux_density;
    uint64_t bytes; /* the file's size (memory use is the same) */
    uint8_t r1cs_hash[32];
} czk_pce_info;

/**
 * Record `circuit` (run once without a witness in RECORD mode) into a PCE named
 * circuit_id (at most CZK_PCE_ID_MAX characters, stored in the file). Memory stays near
 * the final size: rows are compacted as they are recorded.
 */
CZK_API czk_status czk_pce_record(czk_pce **out, czk_cs_circuit_fn circuit, void *ctx,
                                  const char *circuit_id, czk_err *err);
CZK_API void czk_pce_destroy(czk_pce *pce);

CZK_API void czk_pce_get_info(const czk_pce *pce, czk_pce_info *out);
/** Density bitmaps in czk_cs_get_densities' layout; any pointer may be NULL. */
CZK_API void czk_pce_get_densities(const czk_pce *pce, uint64_t *a_aux, uint64_t *b_input,
                                   uint64_t *b_aux);

/** Write the PCE to `path` (via path.tmp.<pid> and rename). */
CZK_API czk_status czk_pce_save(const czk_pce *pce, const char *path, czk_err *err);

/** czk_pce_load flags: skip the whole-file checksum (the structure is still validated). */
#define CZK_PCE_LOAD_NO_CHECKSUM 1u

/**
 * Map a PCE file. When expect_id is not NULL the file's circuit id must equal it; when
 * expect_hash is not NULL its R1CS hash must equal it (CZK_EINVAL otherwise). CZK_ENOENT
 * for a missing file, CZK_EIO for an unreadable one, CZK_ETRUNCATED for a short one and
 * CZK_EFORMAT for a corrupt one; err's message names the file and what is wrong.
 */
CZK_API czk_status czk_pce_load(czk_pce **out, const char *path, const char *expect_id,
                                const uint8_t expect_hash[32], unsigned flags, czk_err *err);

/**
 * a = A·z, b = B·z, c = C·z for the witness z = inputs ‖ aux (n_inputs and n_aux
 * elements, Montgomery form) into caller buffers of n_constraints elements, in parallel
 * over the pool (NULL: the caller's thread).
 */
CZK_API void czk_pce_eval(const czk_pce *pce, const czk_fr *inputs, const czk_fr *aux, czk_fr *a,
                          czk_fr *b, czk_fr *c, czk_pool *pool);

/**
 * Synthesize one proof's a/b/c: run `circuit` in CZK_CS_WITNESS mode into buf->inputs and
 * buf->aux, check its counts against the PCE's, then czk_pce_eval into buf->a/b/c
 * (rows_cap ≥ n_constraints). counts (optional) gets the counts with the PCE's densities.
 */
CZK_API czk_status czk_pce_synthesize(const czk_pce *pce, czk_cs_circuit_fn circuit, void *ctx,
                                      const czk_cs_buffers *buf, czk_pool *pool,
                                      czk_cs_counts *counts, czk_err *err);

/** Circuit families that czk_pce_recommended knows. */
typedef enum czk_pce_circuit {
    CZK_PCE_CIRCUIT_POREP = 0,
    CZK_PCE_CIRCUIT_SNAP = 1,
    CZK_PCE_CIRCUIT_WINDOW_POST = 2,
    CZK_PCE_CIRCUIT_WINNING_POST = 3,
} czk_pce_circuit;

/**
 * Whether the PCE path is the faster way to synthesize this circuit family, by
 * bench_synth's measurements (src/cs/pce.c states them); false means the evaluating
 * path (CZK_CS_EVAL) is the default.
 */
CZK_API bool czk_pce_recommended(czk_pce_circuit circuit);

#ifdef __cplusplus
}
#endif
#endif /* CZK_PCE_H */
