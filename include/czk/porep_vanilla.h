/*
 * czk — the vanilla side of a PoRep: the C1 output (SealCommitPhase1Output) with its
 * per-challenge vanilla proofs, its JSON and cuzk's envelope, challenge derivation, and
 * the C1 of a sealed sector built from its vanilla proofs, as rust-fil-proofs'
 * seal_commit_phase1 computes them (storage-proofs-porep stacked/vanilla/{challenges.rs,
 * proof_scheme.rs, proof.rs, params.rs}; filecoin-proofs api/seal.rs; docs/formats.md
 * §5.6, §8.1, §8.4).
 *
 *   1. The C1 output: the PoRep per-challenge Proof (of the parts in czk/vanilla.h) and
 *      SealCommitPhase1Output, every array of it in one arena.
 *   2. C1 JSON (serde_json): parse, and write byte-for-byte as serde_json::to_vec.
 *   3. Structural checks of a C1 against a registered proof.
 *   4. cuzk's PoRep envelope {"SectorNum", "Phase1Out" (base64 C1 JSON), "SectorSize"}.
 *   5. Challenges. Interactive PoRep (V1, V1_1): challenge i of partition k is
 *      (LE-int(SHA-256(replica_id ‖ seed ‖ j as u32 LE)) mod (nodes − 1)) + 1 with
 *      j = challenges_per_partition · k + i, so node 0 is never challenged; synthetic
 *      and non-interactive PoRep as czk_porep_challenges says.
 *   6. C1 from a sealed sector (czk_sector of czk/sector.h): per partition and challenge the
 *      tree_d and tree_r_last inclusion proofs, the challenged column and the 6 DRG and 8
 *      expander parents' columns with their tree_c proofs, the labeling proofs of every
 *      layer and the encoding proof.
 *   7. Synthetic fixtures — TEST DATA, NOT A SEALED SECTOR. czk_porep_fixture builds a
 *      C1 output for any registered seal proof (32 GiB and 64 GiB included) in seconds
 *      without sealing: only the challenged nodes, their parents' columns and the Merkle
 *      paths are materialised. Every tree node off a challenged path is a deterministic
 *      pseudo-random Fr element drawn from the fixture seed, and the roots are computed
 *      from that sparse tree, so all challenges share one comm_d, comm_c and
 *      comm_r_last and every path verifies. The labels of a challenged node are the real
 *      label hashes of its (pseudo-random) parent labels, the column hashes the real
 *      Poseidon hashes of the columns and the replica leaf is data + last label in Fr,
 *      so the PoRep circuit is satisfied and czk_porep_c1_check accepts the result. What it
 *      cannot be is consistent with a real sector: parent labels are not themselves
 *      labels of their parents, comm_d commits to arbitrary data and replica_id is drawn
 *      from the seed rather than from a prover, sector and ticket. Use it to exercise
 *      and benchmark the prover (C2), never as evidence that a sector was sealed.
 */
#ifndef CZK_POREP_VANILLA_H
#define CZK_POREP_VANILLA_H

#include "czk/common.h"
#include "czk/pool.h"
#include "czk/seal_proof.h"
#include "czk/sector.h"
#include "czk/vanilla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =======================================================================================
 * 1. The C1 output
 * ======================================================================================= */

/** The PoRep vanilla proof of one challenge (stacked/vanilla/params.rs Proof). */
typedef struct czk_porep_vanilla_proof {
    czk_vanilla_merkle_proof comm_d_proofs;     /* tree_d, binary SHA-256 */
    czk_vanilla_merkle_proof comm_r_last_proof; /* tree_r_last, Poseidon */
    czk_vanilla_column_proof c_x;               /* replica_column_proofs */
    czk_vanilla_column_proof *drg_parents;
    size_t ndrg_parents;
    czk_vanilla_column_proof *exp_parents;
    size_t nexp_parents;
    czk_vanilla_labeling_proof *labeling_proofs;
    size_t nlabeling_proofs;
    czk_vanilla_labeling_proof encoding_proof;
} czk_porep_vanilla_proof;

/** SealCommitPhase1Output. vanilla_proofs[k] holds challenge_counts[k] proofs. */
typedef struct czk_porep_c1_output {
    czk_vanilla_arena *arena;
    const char *registered_proof; /* as written, e.g. "StackedDrg32GiBV1_1" */
    czk_seal_proof proof;         /* registered_proof parsed */
    const char *vanilla_key;      /* VanillaSealProof variant, e.g. "StackedDrg32GiBV1" */
    czk_porep_vanilla_proof **vanilla_proofs;
    size_t *challenge_counts;
    size_t npartitions;
    uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
} czk_porep_c1_output;

/** Release a C1 output (its arena and the struct). NULL is ignored. */
CZK_API void czk_porep_c1_output_free(czk_porep_c1_output *c1);

/* =======================================================================================
 * 2. C1 JSON
 * ======================================================================================= */

/**
 * Parse a SealCommitPhase1Output JSON document. Missing, duplicate or unknown keys,
 * wrong JSON types, numbers out of range, byte arrays that are not 32 integers in
 * 0..255 and unknown enum variants give CZK_EFORMAT with a message naming the path of
 * the bad value (e.g. "vanilla_proofs[0][1].comm_d_proofs.data.Single.path.path[3].index").
 * Only the syntax is checked here; czk_porep_c1_check checks the structure.
 */
CZK_API czk_status czk_porep_c1_parse_json(czk_porep_c1_output **out, const void *json, size_t len,
                                           czk_err *err);

/** Write a C1 as serde_json::to_vec does (field order, no spaces) into a czk_malloc'd
 *  buffer (*out, *len; the caller czk_frees it). */
CZK_API czk_status czk_porep_c1_write_json(const czk_porep_c1_output *c1, uint8_t **out,
                                           size_t *len, czk_err *err);

/* =======================================================================================
 * 3. Checks
 * ======================================================================================= */

/**
 * Check a C1 against a registered proof: the registered_proof and vanilla key agree with
 * it; partition and per-partition challenge counts; 6 DRG and 8 expander columns of
 * `layers` rows; `layers` labeling proofs; path lengths and arities per tree shape; every
 * 32-byte value below r; comm_c and comm_r_last equal across challenges and
 * comm_r = Poseidon2(comm_c, comm_r_last); comm_d_proofs roots equal comm_d; challenge
 * indices consistent (labeling node, column index, path indices); the 6 DRG and 8
 * expander columns being those of the challenge's parents in the SDR graph; each column
 * leaf equal to the Poseidon hash of its rows; the replica leaf equal to data leaf +
 * last label; and every Merkle path hashing to its root. CZK_EVERIFY (a Merkle path or a
 * consistency check failed), CZK_EINVAL (shape) or CZK_ENONCANONICAL (a value ≥ r), with
 * a message naming the partition, challenge and field. Builds the SDR graph of `proof`
 * (0.1-0.3 s at 32 GiB).
 */
CZK_API czk_status czk_porep_c1_check(const czk_porep_c1_output *c1, czk_seal_proof proof,
                                      czk_err *err);

/* =======================================================================================
 * 4. cuzk envelope
 * ======================================================================================= */

/**
 * If `buf` is cuzk's PoRep envelope {"SectorNum": n, "Phase1Out": "<base64>",
 * "SectorSize": n}, decode Phase1Out into a czk_malloc'd buffer (*c1_json, *c1_len) and
 * return the sector number and size; CZK_ENOENT when `buf` is not such an envelope (no
 * "Phase1Out" key: treat it as plain C1 JSON), CZK_EFORMAT for a broken envelope.
 */
CZK_API czk_status czk_porep_envelope_decode(const void *buf, size_t len, uint8_t **c1_json,
                                             size_t *c1_len, uint64_t *sector_num,
                                             uint64_t *sector_size, czk_err *err);

/** Write the envelope (key order SectorNum, Phase1Out, SectorSize) into a czk_malloc'd
 *  buffer. */
CZK_API czk_status czk_porep_envelope_encode(const uint8_t *c1_json, size_t c1_len,
                                             uint64_t sector_num, uint64_t sector_size,
                                             uint8_t **out, size_t *out_len, czk_err *err);

/* =======================================================================================
 * 5. Challenges
 * ======================================================================================= */

/**
 * The challenges of partition `partition` of a PoRep: challenges_per_partition node
 * indices (czk_seal_proof_get(proof)) into `out`, in the order rust-fil-proofs derives
 * them for the proof's feature:
 *   - interactive (V1, V1_1): InteractiveChallenges, from replica_id and seed;
 *   - synthetic: SynthChallenges, the seed selecting among 2^18 synthetic challenges
 *     (ChaCha20 keyed by BLAKE2b-256 of replica_id and comm_r);
 *   - non-interactive: NiChallenges, from replica_id and comm_r (the seed is unused).
 * `comm_r` may be NULL for interactive proofs, `seed` for non-interactive ones.
 * CZK_EINVAL for an unknown proof, a partition ≥ partitions or a missing input.
 */
CZK_API czk_status czk_porep_challenges(uint64_t *out, czk_seal_proof proof,
                                        const uint8_t replica_id[32], const uint8_t *seed,
                                        const uint8_t *comm_r, unsigned partition, czk_err *err);

/* =======================================================================================
 * 6. Vanilla proofs and C1 of a sealed sector
 * ======================================================================================= */

/**
 * The vanilla proof of challenge node `challenge` (1 ≤ challenge < nodes) of a sealed
 * sector, with every array allocated in `arena`. CZK_EINVAL for a bad node, CZK_ENOMEM.
 */
CZK_API czk_status czk_porep_vanilla_prove(czk_porep_vanilla_proof *out, czk_vanilla_arena *arena,
                                           const czk_sector *s, uint64_t challenge, czk_err *err);

/**
 * The C1 output of a sealed sector for seed `seed` (interactive randomness; unused by
 * non-interactive proofs): every partition's challenges (czk_porep_challenges, with the
 * sector's comm_r) proven with czk_porep_vanilla_prove, challenges spread over `pool`
 * (NULL: this thread), and seed, `ticket` (the one the sector was sealed with: the
 * sector does not keep it, and C2 only copies it), comm_d, comm_r, replica_id, registered_proof
 * and vanilla key filled in. The result passes czk_porep_c1_verify and writes with
 * czk_porep_c1_write_json; free it with czk_porep_c1_output_free. CZK_ENOMEM.
 */
CZK_API czk_status czk_porep_c1_from_sector(czk_porep_c1_output **out, const czk_sector *s,
                                            const uint8_t ticket[32], const uint8_t seed[32],
                                            czk_pool *pool, czk_err *err);

/** czk_porep_c1_verify: do not check that the challenges are the seed's. */
#define CZK_POREP_VERIFY_ANY_CHALLENGES 1u

/**
 * Everything czk_porep_c1_check checks, and what it cannot without the replica_id and seed
 * semantics: every labeling proof's 37 parents are its challenge's parent columns'
 * rows (DRG parents on the same layer, expander parents on the layer below, repeated
 * cyclically), every label c_x.column.rows[ℓ − 1] is the label hash of those parents,
 * the encoding proof carries the last layer's parents, and (unless `flags` has
 * CZK_POREP_VERIFY_ANY_CHALLENGES) partition k's challenges are czk_porep_challenges'
 * for the C1's replica_id, seed and comm_r. This is what rust-fil-proofs'
 * StackedDrg::verify_all_partitions checks. CZK_EVERIFY with a message naming the
 * partition, challenge and field; the errors of czk_porep_c1_check.
 */
CZK_API czk_status czk_porep_c1_verify(const czk_porep_c1_output *c1, czk_seal_proof proof,
                                       unsigned flags, czk_err *err);

/* =======================================================================================
 * 7. Synthetic fixtures (test data; see the comment at the top)
 * ======================================================================================= */

/**
 * A synthetic C1 output for `proof` (any registered seal proof, 32 GiB and 64 GiB
 * included: 1.7-5 s on two loaded cores), deterministic in (proof, seed_value). Its
 * replica_id, seed and ticket are drawn from seed_value and its challenges follow the
 * interactive rule for every feature (the synthetic and non-interactive rules need
 * comm_r, which the challenged paths determine), so it passes czk_porep_c1_verify, for
 * those two features with CZK_POREP_VERIFY_ANY_CHALLENGES, and satisfies the PoRep
 * circuit; it is test data, not the C1 of any sector. Work is spread over `pool` (NULL:
 * this thread). CZK_EINVAL for an unknown proof, CZK_ENOMEM.
 */
CZK_API czk_status czk_porep_fixture(czk_porep_c1_output **out, czk_seal_proof proof,
                                     uint64_t seed_value, czk_pool *pool, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_POREP_VANILLA_H */
