/*
 * czk — Groth16 over BLS12-381: keys, proofs, prover, verifier, file formats.
 *
 * Two conventions exist for the H term (see docs/formats.md §9.4 and docs/formats.md §4.2):
 *   - bellperson (Filecoin .params): h = m−1 points τ^i·t(τ)/δ, coset shift 7, division by
 *     Z on the coset, roots of unity from 7; the prover appends one row x_i·0 = 0 per input.
 *   - snarkjs (.zkey): h = n points of the odd 2n-th Lagrange basis, coset shift ω_2n, no
 *     division and no final inverse transform, roots from 5; the extra input rows are in
 *     the zkey's A matrix.
 * One in-memory parameter structure serves both; `conv` says which.
 */
#ifndef CZK_GROTH16_H
#define CZK_GROTH16_H

#include "czk/bls12_381.h"
#include "czk/cs.h"
#include "czk/msm.h"
#include "czk/pool.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum czk_h_convention { CZK_H_BELLPERSON = 0, CZK_H_SNARKJS = 1 } czk_h_convention;

typedef struct czk_groth16_vk {
    czk_g1_affine alpha_g1, beta_g1, delta_g1;
    czk_g2_affine beta_g2, gamma_g2, delta_g2;
    czk_g1_affine *ic; /* one per public input, ONE first */
    size_t ic_len;
} czk_groth16_vk;

typedef struct czk_groth16_proof {
    czk_g1_affine a;
    czk_g2_affine b;
    czk_g1_affine c;
} czk_groth16_proof;

/**
 * Proving key. Bases are decoded affine points. For bellperson parameters `a` holds the
 * inputs then the A-dense aux variables, `b_g1`/`b_g2` the B-dense inputs then B-dense aux;
 * for snarkjs every variable has a base (infinity where absent) and densities are full.
 */
typedef struct czk_groth16_params {
    czk_h_convention conv;
    czk_groth16_vk vk;
    uint32_t n_inputs; /* including ONE */
    uint32_t n_aux;
    uint32_t log_m; /* domain 2^log_m */
    czk_g1_affine *h;
    size_t h_len;
    czk_g1_affine *l; /* one per aux variable */
    size_t l_len;
    czk_g1_affine *a;
    size_t a_len;
    czk_g1_affine *b_g1;
    size_t b_g1_len;
    czk_g2_affine *b_g2;
    size_t b_g2_len;
} czk_groth16_params;

CZK_API void czk_groth16_vk_free(czk_groth16_vk *vk);
CZK_API void czk_groth16_params_free(czk_groth16_params *p);

/** The point sections of a proving key, in the .params file's order. */
typedef enum czk_groth16_section {
    CZK_G16_H = 0,
    CZK_G16_L = 1,
    CZK_G16_A = 2,
    CZK_G16_B_G1 = 3,
    CZK_G16_B_G2 = 4 /* the only G2 section */
} czk_groth16_section;
#define CZK_G16_SECTIONS 5

/** "h", "l", "a", "b_g1", "b_g2" ("?" for anything else). */
CZK_API const char *czk_groth16_section_name(czk_groth16_section s);
/** Points in section s of p (its *_len field). */
CZK_API size_t czk_groth16_section_len(const czk_groth16_params *p, czk_groth16_section s);
/** Bytes of one decoded point of section s: sizeof(czk_g1_affine), or czk_g2_affine's. */
CZK_API size_t czk_groth16_section_elem(czk_groth16_section s);

/* ------------------------------------------------------------------------------------ */
/* Prover                                                                               */
/* ------------------------------------------------------------------------------------ */

/**
 * One circuit's assignment. a, b, c are the row evaluations <A_j,z>, <B_j,z>, <C_j,z>
 * for j < n_rows, in buffers of at least 2^log_m elements that the prover overwrites
 * (the transforms run in place). For CZK_H_BELLPERSON, n_rows counts the synthesized rows
 * only: the prover appends the input rows itself. Density bitmaps may be NULL (full).
 */
typedef struct czk_groth16_assignment {
    const czk_fr *inputs; /* n_inputs values, inputs[0] = 1 */
    const czk_fr *aux;    /* n_aux values */
    czk_fr *a, *b, *c;
    size_t n_rows;
    const uint64_t *a_aux_density;
    const uint64_t *b_input_density;
    const uint64_t *b_aux_density;
} czk_groth16_assignment;

/** Stage timings of one proof, in seconds. */
typedef struct czk_groth16_timings {
    double ntt, msm_h, msm_l, msm_a, msm_b_g1, msm_b_g2, assemble;
} czk_groth16_timings;

/**
 * Prove. r and s are the blinding scalars: pass NULL for fresh ones from the OS CSPRNG;
 * tests pass fixed values (r = s = 0 gives the deterministic proof snarkjs's oracle uses).
 * `timings` may be NULL. CZK_ECANCELED, within one chunk of its NTTs or MSMs, when the
 * calling thread's work is cancelled (czk_pool_set_cancel); *out is then unspecified.
 */
CZK_API czk_status czk_groth16_prove(czk_groth16_proof *out, const czk_groth16_params *pk,
                                     const czk_groth16_assignment *asg, const czk_fr *r,
                                     const czk_fr *s, czk_pool *pool, czk_groth16_timings *timings,
                                     czk_err *err);

/**
 * Prove n circuits of the same key (the partitions of one sector) with one set of twiddle
 * tables; r and s are arrays of n blinding scalars or NULL for fresh ones. `timings` gets
 * the sums over the batch. An error names the circuit.
 */
CZK_API czk_status czk_groth16_prove_batch(czk_groth16_proof *out, const czk_groth16_params *pk,
                                           const czk_groth16_assignment *asgs, size_t n,
                                           const czk_fr *r, const czk_fr *s, czk_pool *pool,
                                           czk_groth16_timings *timings, czk_err *err);

/**
 * The H scalars of one assignment (after the transforms), canonical: m−1 for bellperson,
 * n for snarkjs. Exposed for tests that compare the NTT stage against a reference.
 */
CZK_API czk_status czk_groth16_compute_h(czk_scalar *h_out, size_t *h_len,
                                         const czk_groth16_params *pk,
                                         const czk_groth16_assignment *asg, czk_pool *pool,
                                         czk_err *err);

/* ------------------------------------------------------------------------------------ */
/* Verifier                                                                             */
/* ------------------------------------------------------------------------------------ */

/** Prepared verifying key: e(α, β) and the negated G2 elements. */
typedef struct czk_groth16_pvk {
    czk_fp12 alpha_beta;
    czk_g2_affine neg_gamma_g2, neg_delta_g2, gamma_g2, delta_g2;
    const czk_groth16_vk *vk; /* borrowed: ic */
} czk_groth16_pvk;

CZK_API void czk_groth16_prepare_vk(czk_groth16_pvk *out, const czk_groth16_vk *vk);

/**
 * Verify one proof; `pub` are the public inputs without ONE (ic_len − 1 of them).
 * CZK_OK when valid, CZK_EVERIFY when not, CZK_EINVAL for a wrong input count.
 */
CZK_API czk_status czk_groth16_verify(const czk_groth16_pvk *pvk, const czk_groth16_proof *proof,
                                      const czk_fr *pub, size_t n_pub, czk_err *err);

/**
 * Batch verification with a random linear combination (random 128-bit weights): all
 * n_proofs proofs share the key; pub holds n_proofs × n_pub inputs, proof-major.
 * CZK_OK only if every proof is valid (with overwhelming probability).
 */
CZK_API czk_status czk_groth16_verify_batch(const czk_groth16_pvk *pvk,
                                            const czk_groth16_proof *proofs, size_t n_proofs,
                                            const czk_fr *pub, size_t n_pub, czk_err *err);

/* ------------------------------------------------------------------------------------ */
/* Test parameters                                                                      */
/* ------------------------------------------------------------------------------------ */

/** Progress callback: done out of total units of work. */
typedef void (*czk_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/**
 * Generate bellperson-convention parameters for an R1CS from random toxic waste
 * (INSECURE: for tests only; the waste is discarded). Densities are taken from the
 * matrices, with the input rows appended as bellperson's generator does.
 */
CZK_API czk_status czk_groth16_setup(czk_groth16_params *out, const czk_r1cs *r1cs,
                                     czk_pool *pool, czk_progress_fn progress, void *progress_ctx,
                                     czk_err *err);

struct czk_gpu_srs; /* include/czk/gpu.h */

/** Options of the seeded and streaming setup entries; zero-initialised means random waste
 *  and host arrays. */
typedef struct czk_groth16_setup_opts {
    /** 32 bytes: τ, α, β, γ, δ are derived from them, so one seed and one circuit give
     *  byte-identical keys on every path. For each label "tau", "alpha", "beta", "gamma",
     *  "delta" and a counter c = 0, 1, ... until non-zero: SHA-512("czk groth16 setup v1"
     *  ‖ seed ‖ label ‖ c as u32 LE) as a 512-bit little-endian integer mod r. Anyone who
     *  knows the seed knows the waste. NULL: fresh waste from the OS CSPRNG. */
    const uint8_t *seed;
    /** ngpus > 0: the proving key's sections (h, l, a, b_g1, b_g2) are made by fixed-base
     *  multiplication straight into a GPU-resident SRS on each of gpus[0..ngpus), returned
     *  in srs_out[0..ngpus) (czk_gpu_srs_destroy); the scalars are computed once. The
     *  params then keep only vk (with vk.ic) and the lengths: h, l, a, b_g1, b_g2 are NULL.
     *  ngpus == 0: host arrays, as czk_groth16_setup. */
    const int *gpus;
    size_t ngpus;
    struct czk_gpu_srs **srs_out;
} czk_groth16_setup_opts;

/** czk_groth16_setup with options (NULL: the defaults). */
CZK_API czk_status czk_groth16_setup_r1cs(czk_groth16_params *out, const czk_r1cs *r1cs,
                                          const czk_groth16_setup_opts *opts, czk_pool *pool,
                                          czk_progress_fn progress, void *progress_ctx,
                                          czk_err *err);

/**
 * The same keys as czk_groth16_setup_r1cs on the circuit's recorded R1CS, without ever
 * holding the R1CS: `circuit` runs once in COUNT mode (sizes), then once in RECORD mode
 * with a sink that adds coeff·L_row(τ) into u, v, w as each row is synthesized. Host
 * memory peaks at about four arrays of 32 bytes per variable or row (plus the points when
 * they go to host arrays). Progress counts the rows of the QAP pass, then the points.
 * `circuit` must synthesize the same structure both times (it sees no witness).
 */
CZK_API czk_status czk_groth16_setup_circuit(czk_groth16_params *out, czk_cs_circuit_fn circuit,
                                             void *circuit_ctx,
                                             const czk_groth16_setup_opts *opts, czk_pool *pool,
                                             czk_progress_fn progress, void *progress_ctx,
                                             czk_err *err);

/* ------------------------------------------------------------------------------------ */
/* Encodings (bellperson / Filecoin)                                                    */
/* ------------------------------------------------------------------------------------ */

#define CZK_GROTH16_PROOF_SIZE 192

/** A ‖ B ‖ C compressed (48 + 96 + 48). */
CZK_API void czk_groth16_proof_write(uint8_t out[192], const czk_groth16_proof *p);
/** Decode with subgroup checks; identity points are rejected as bellperson does. */
CZK_API czk_status czk_groth16_proof_read(czk_groth16_proof *out, const uint8_t in[192],
                                          czk_err *err);

/** Verifying key bytes: uncompressed points, u32 BE ic_len (868 + 96·ic_len bytes). */
CZK_API size_t czk_groth16_vk_size(const czk_groth16_vk *vk);
CZK_API czk_status czk_groth16_vk_write(uint8_t *out, size_t cap, const czk_groth16_vk *vk,
                                        czk_err *err);
CZK_API czk_status czk_groth16_vk_read(czk_groth16_vk *out, const uint8_t *in, size_t len,
                                       czk_err *err);
CZK_API czk_status czk_groth16_vk_read_file(czk_groth16_vk *out, const char *path, czk_err *err);

/**
 * Read a bellperson .params file (mmap, every section validated: lengths, coordinates < p,
 * on-curve; subgroup checks when `check_subgroup`, as bellperson's checked read). n_inputs,
 * n_aux and log_m are derived from the section lengths where possible (n_aux = len(l)).
 * As bellperson, the identity is rejected in every section; the VK is always subgroup-
 * checked; bytes after b_g2 are an error. `pool` (may be NULL) decodes in parallel.
 */
CZK_API czk_status czk_groth16_params_read_file(czk_groth16_params *out, const char *path,
                                                bool check_subgroup, czk_pool *pool,
                                                czk_err *err);
CZK_API czk_status czk_groth16_params_write_file(const czk_groth16_params *p, const char *path,
                                                 czk_err *err);

/**
 * A .params file opened for loading in parts, for keys too large to hold twice: the file
 * is mapped read-only, its verifying key and section lengths validated as by
 * czk_groth16_params_read_file, and its points decoded on demand, a range at a time, into
 * memory the caller chooses (a GPU's staging buffer, page-locked host memory). The pages a
 * decode read are dropped from the process afterwards, so the open file holds no memory
 * between calls (they are read from the file again if needed).
 */
typedef struct czk_groth16_params_file czk_groth16_params_file;

/**
 * Open `path`. *shape gets the key without its points: conv, vk (owned by *shape: free it
 * with czk_groth16_params_free), n_inputs, n_aux, log_m and every section length, the
 * point arrays NULL. Errors as czk_groth16_params_read_file's.
 */
CZK_API czk_status czk_groth16_params_file_open(czk_groth16_params_file **out, const char *path,
                                                czk_groth16_params *shape, czk_err *err);
/**
 * Decode points [first, first + n) of section `sec` into dst (czk_g1_affine, or
 * czk_g2_affine for b_g2), with the checks of czk_groth16_params_read_file (identity
 * rejected, subgroup when check_subgroup); `pool` (may be NULL) decodes in parallel. An
 * error names the file, the section and the index of the first bad point in the section.
 * Several threads may decode disjoint ranges of one file at once.
 */
CZK_API czk_status czk_groth16_params_file_decode(czk_groth16_params_file *f,
                                                  czk_groth16_section sec, size_t first,
                                                  size_t n, void *dst, bool check_subgroup,
                                                  czk_pool *pool, czk_err *err);
/** Ask the kernel to start reading points [first, first + n) of `sec` (a hint). */
CZK_API void czk_groth16_params_file_prefetch(czk_groth16_params_file *f, czk_groth16_section sec,
                                              size_t first, size_t n);
/**
 * Read the encoded points [first, first + n) of `sec` into dst as they are in the file
 * (uncompressed zcash encodings: 96 bytes a G1 point, 192 a B_G2 one), unchecked, for
 * decoders of their own (czk_gpu_loader_decode). With `pool`, in pieces on its threads:
 * reads from the page cache, with no page of the file mapped into the process. CZK_EINVAL
 * outside the section, CZK_EIO when the read fails.
 */
CZK_API czk_status czk_groth16_params_file_read(czk_groth16_params_file *f,
                                                czk_groth16_section sec, size_t first,
                                                size_t n, void *dst, czk_pool *pool,
                                                czk_err *err);
/** Points in section `sec` (0 for a bad section). */
CZK_API size_t czk_groth16_params_file_len(const czk_groth16_params_file *f,
                                           czk_groth16_section sec);
/** The file's path and size in bytes. */
CZK_API const char *czk_groth16_params_file_path(const czk_groth16_params_file *f);
CZK_API uint64_t czk_groth16_params_file_size(const czk_groth16_params_file *f);
/** Unmap and free (NULL is ignored). */
CZK_API void czk_groth16_params_file_close(czk_groth16_params_file *f);

/* ------------------------------------------------------------------------------------ */
/* circom / snarkjs                                                                     */
/* ------------------------------------------------------------------------------------ */

/** Read a circom .r1cs (BLS12-381 prime required). n_inputs = 1 + outputs + public inputs. */
CZK_API czk_status czk_r1cs_read_file(czk_r1cs *out, const char *path, czk_err *err);
/** Write a .r1cs (for test circuits too large for circom). */
CZK_API czk_status czk_r1cs_write_file(const czk_r1cs *r, const char *path, czk_err *err);
/** Read a .wtns: *out gets n values (Montgomery), to free with czk_free. */
CZK_API czk_status czk_wtns_read_file(czk_fr **out, size_t *n, const char *path, czk_err *err);
/** Decode a .wtns held in memory (a request's payload): every value is checked, the first
 * min(n, cap) are written to out (NULL: only checked); *n is the count. name heads the
 * error messages. */
CZK_API czk_status czk_wtns_decode(const uint8_t *buf, size_t len, const char *name, czk_fr *out,
                                   size_t cap, size_t *n, czk_err *err);
CZK_API czk_status czk_wtns_write_file(const czk_fr *w, size_t n, const char *path, czk_err *err);

/**
 * Read a Groth16 .zkey: the proving key (conv CZK_H_SNARKJS) and the A/B coefficient
 * matrices of its section 4 (rows include the extra input rows; has_c = false). `ab` may
 * be NULL when only the key is wanted. Every point is checked on the curve; the key
 * elements and IC also in the subgroup. Same as czk_zkey_read_file_ex(..., false, NULL, ...).
 */
CZK_API czk_status czk_zkey_read_file(czk_groth16_params *pk, czk_r1cs *ab, const char *path,
                                      czk_err *err);
/** As czk_zkey_read_file; `check_subgroup` also checks every base (slow), `pool` (may be
 *  NULL) decodes the points in parallel. */
CZK_API czk_status czk_zkey_read_file_ex(czk_groth16_params *pk, czk_r1cs *ab, const char *path,
                                         bool check_subgroup, czk_pool *pool, czk_err *err);

/**
 * INSECURE, for tests and benchmarks only: write a Groth16 .zkey in snarkjs's layout for
 * `r1cs` (which needs its C matrix) from random toxic waste that is discarded, with γ = 1
 * as snarkjs has and an empty contributions section. snarkjs proves and verifies with it.
 * `vk_out` (may be NULL) gets the verifying key, IC included (czk_groth16_vk_free).
 */
CZK_API czk_status czk_groth16_setup_zkey(const char *path, const czk_r1cs *r1cs,
                                          czk_groth16_vk *vk_out, czk_pool *pool,
                                          czk_progress_fn progress, void *progress_ctx,
                                          czk_err *err);

/**
 * snarkjs JSON: proof.json, public.json, verification_key.json (read and write). Readers
 * check numbers decimal and below p / r, and points on the curve and in the subgroup
 * (infinity allowed, as snarkjs allows it). verification_key.json has no β₁ and δ₁: the
 * vk reader leaves them at infinity; the writer omits vk_alphabeta_12 (unused by verify).
 */
CZK_API czk_status czk_snarkjs_proof_write_json(const czk_groth16_proof *p, const char *path,
                                                czk_err *err);
CZK_API czk_status czk_snarkjs_proof_read_json(czk_groth16_proof *out, const char *path,
                                               czk_err *err);
CZK_API czk_status czk_snarkjs_public_write_json(const czk_fr *pub, size_t n, const char *path,
                                                 czk_err *err);
CZK_API czk_status czk_snarkjs_public_read_json(czk_fr **out, size_t *n, const char *path,
                                                czk_err *err);
CZK_API czk_status czk_snarkjs_vk_write_json(const czk_groth16_vk *vk, const char *path,
                                             czk_err *err);
CZK_API czk_status czk_snarkjs_vk_read_json(czk_groth16_vk *out, const char *path,
                                            czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
