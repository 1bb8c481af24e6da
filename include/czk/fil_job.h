/*
 * czk — one Filecoin proving job, from the client's request fields to the partitions the
 * engine proves: parse and check the vanilla proofs (C1 JSON, cuzk envelope, bincode),
 * turn each partition into a circuit witness, give its public inputs, and name the
 * parameter file. The engine (src/engine) knows nothing about Filecoin beyond this header.
 *
 * Every check runs in czk_fil_job_create, before any memory is reserved or a GPU touched:
 * a vanilla proof that does not fit the circuit is an error naming the partition, the
 * challenge and the field.
 */
#ifndef CZK_FIL_JOB_H
#define CZK_FIL_JOB_H

#include "czk/bls12_381.h"
#include "czk/common.h"
#include "czk/cs.h"
#include "czk/groth16.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The four Filecoin proof kinds; the numbers are cuzk.v1.ProofKind's. */
typedef enum czk_fil_kind {
    CZK_FIL_POREP = 1,   /* POREP_SEAL_COMMIT: PoRep C2 from a C1 output */
    CZK_FIL_SNAP = 2,    /* SNAP_DEALS_UPDATE: empty-sector-update partitions */
    CZK_FIL_WPOST = 3,   /* WINDOW_POST_PARTITION: one WindowPoSt partition */
    CZK_FIL_WINNING = 4, /* WINNING_POST */
} czk_fil_kind;

/** The request, as the cuzk.v1 SubmitProofRequest carries it (borrowed for the call). */
typedef struct czk_fil_job_input {
    czk_fil_kind kind;
    uint64_t registered_proof; /* RegisteredSealProof / PoStProof / UpdateProof number */
    uint64_t sector_size;      /* bytes; 0 = take it from the registered proof */
    /* PoRep: the C1 output, as filecoin-proofs' JSON or inside cuzk's envelope. */
    const uint8_t *vanilla_proof;
    size_t vanilla_proof_len;
    /* PoSt: one bincode sector proof per sector; Snap: one bincode partition proof each. */
    const uint8_t *const *vanilla_proofs;
    const size_t *vanilla_proof_lens;
    size_t n_vanilla_proofs;
    uint64_t sector_number;
    uint64_t miner_id;
    const uint8_t *randomness; /* PoSt: 32 bytes */
    size_t randomness_len;
    uint32_t partition_index; /* WindowPoSt */
    const uint8_t *comm_r_old, *comm_r_new, *comm_d_new; /* Snap: 32 bytes each */
    size_t comm_r_old_len, comm_r_new_len, comm_d_new_len;
} czk_fil_job_input;

typedef struct czk_fil_job czk_fil_job;

/**
 * Parse and check everything; on error nothing is allocated and err names the field
 * (e.g. "vanilla_proof: partition 3 challenge 17: comm_d path root mismatch").
 * CZK_EINVAL / CZK_EFORMAT / CZK_ETRUNCATED for bad input, CZK_EMISMATCH for vanilla
 * proofs that do not match their own commitments, challenges, randomness or the sector
 * the request names (miner_id and sector_number: the PoRep replica_id is recomputed from
 * them), CZK_EUNSUPPORTED for a known but unsupported proof.
 */
CZK_API czk_status czk_fil_job_create(czk_fil_job **out, const czk_fil_job_input *in,
                                      czk_err *err);
CZK_API void czk_fil_job_destroy(czk_fil_job *j);

/**
 * The circuit id and parameter file name (as czk_fil_job_circuit_id / _params_name) of a
 * request, from its kind, registered proof and sector size alone, which are checked with
 * the same errors as czk_fil_job_create: so that a missing parameter file is refused
 * before a 50 MB payload is parsed. The strings are static.
 */
CZK_API czk_status czk_fil_job_circuit(const czk_fil_job_input *in, const char **circuit_id,
                                       const char **params_name, czk_err *err);

/**
 * A PoRep job's C1 in canonical form, hashed (SHA-256 of the C1 as czk writes it: the same
 * for the same C1 however its JSON was spaced, ordered or wrapped in cuzk's envelope);
 * false for the kinds whose vanilla proofs are binary (bincode compares as bytes).
 */
CZK_API bool czk_fil_job_digest(const czk_fil_job *j, uint8_t out[32]);

/** Number of partition circuits (10 for a 32 GiB PoRep, 16 for Snap 32 GiB, 1 for PoSt). */
CZK_API size_t czk_fil_job_partitions(const czk_fil_job *j);

/** cuzk's circuit id: "porep-32g", "snap-2k", "wpost-32g", "winning-32g", ... */
CZK_API const char *czk_fil_job_circuit_id(const czk_fil_job *j);

/**
 * The Filecoin parameter file name for this circuit, without directory or extension
 * ("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d…");
 * add ".params" / ".vk" / ".meta".
 */
CZK_API const char *czk_fil_job_params_name(const czk_fil_job *j);

/** Sizes of one partition circuit (every partition of a job has the same). */
CZK_API void czk_fil_job_counts(const czk_fil_job *j, czk_cs_counts *out);

/**
 * Synthesize partition `p` into `cs` (any mode; EVAL writes a/b/c and the witness into the
 * cs's caller buffers). Thread-safe: partitions may be synthesized concurrently.
 */
CZK_API czk_status czk_fil_job_synthesize(const czk_fil_job *j, size_t p, czk_cs *cs,
                                          czk_err *err);

/**
 * czk_fil_job_synthesize with the partition's own work spread over `pool`: in EVAL mode a
 * PoRep or SnapDeals partition synthesizes each challenge on its own thread
 * (czk_porep_circuit_par, czk_snap_synthesize_par), bit for bit the serial result; PoSt,
 * other modes, or a NULL pool run serially.
 * Partitions may still be synthesized concurrently (czk_pool_run serialises runs of one
 * pool, so concurrent callers should each have their own pool).
 */
CZK_API czk_status czk_fil_job_synthesize_pool(const czk_fil_job *j, size_t p, czk_cs *cs,
                                               czk_pool *pool, czk_err *err);

/**
 * Public inputs of partition `p`, without the leading ONE (what the verifier's IC[1..]
 * multiplies); `*n` gets their number. `out` has room for `cap`.
 */
CZK_API czk_status czk_fil_job_public_inputs(const czk_fil_job *j, size_t p, czk_fr *out,
                                             size_t cap, size_t *n, czk_err *err);

/** Circuit id and parameter file name from kind + registered proof alone (PreloadSRS). */
CZK_API czk_status czk_fil_circuit_lookup(const char *circuit_id, czk_fil_kind *kind,
                                          uint64_t *registered_proof, const char **params_name,
                                          czk_err *err);

/**
 * Synthesize the circuit of `circuit_id` without a witness (COUNT, RECORD or HASH mode):
 * what `czk setup --circuit ID` records to generate test parameters, and what the PCE
 * records. Same constraint order as czk_fil_job_synthesize.
 */
CZK_API czk_status czk_fil_circuit_synthesize_shape(const char *circuit_id, czk_cs *cs,
                                                    czk_err *err);

/**
 * INSECURE, for tests only: czk TEST parameters for `circuit_id` (czk_fil_test_params_make:
 * keys from toxic waste derived from the parameter file name, not from a ceremony),
 * written as dir/<params name>.params, .vk and .meta ({"sector_size":N}), each through a
 * temporary file and a rename. When all three exist and `force` is false nothing is done.
 * `*generated` (may be NULL) says whether files were written. `dir` is created if missing
 * (its parent must exist). The keys are the ones czk_fil_test_params_make gives in memory.
 */
CZK_API czk_status czk_fil_test_params_generate(const char *circuit_id, const char *dir,
                                                bool force, czk_pool *pool,
                                                czk_progress_fn progress, void *progress_ctx,
                                                bool *generated, czk_err *err);

struct czk_gpu_srs; /* include/czk/gpu.h */

/**
 * INSECURE, for tests only: czk TEST parameters for `circuit_id` made in memory, writing
 * nothing. The circuit's QAP is evaluated while it is synthesized (czk_groth16_setup_circuit,
 * no R1CS is held), from toxic waste derived from the seed SHA-256("czk test parameters v1"
 * ‖ params name), so every run, on disk (czk_fil_test_params_generate) or in memory, makes
 * the same keys for one circuit. ngpus ≥ 1: the proving key's points are made on each of
 * gpus[0..ngpus) into srs_per_gpu[0..ngpus) (czk_gpu_srs_destroy), and `out` keeps only the
 * verifying key and the lengths (its point arrays NULL); ngpus == 0: host arrays in `out`.
 */
CZK_API czk_status czk_fil_test_params_make(const char *circuit_id, const int *gpus,
                                            size_t ngpus, czk_groth16_params *out,
                                            struct czk_gpu_srs **srs_per_gpu, czk_pool *pool,
                                            czk_progress_fn progress, void *progress_ctx,
                                            czk_err *err);

/**
 * Write dir/<params name>.vk (vk's bytes, czk_groth16_vk_write) and .meta
 * ({"sector_size":N}) for `circuit_id`, each through a temporary file and a rename: what
 * a client needs to verify proofs of in-memory test parameters.
 */
CZK_API czk_status czk_fil_test_vk_write(const char *circuit_id, const char *dir,
                                         const czk_groth16_vk *vk, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_FIL_JOB_H */
