/*
 * czk — the vanilla side of a PoRep: challenge derivation, vanilla proofs of a sealed
 * sector and the C1 output (SealCommitPhase1Output) built from them, as rust-fil-proofs'
 * seal_commit_phase1 computes them (storage-proofs-porep stacked/vanilla/{challenges.rs,
 * proof_scheme.rs, proof.rs, params.rs}; filecoin-proofs api/seal.rs; docs/formats.md
 * §5.6, §8.1).
 *
 *   1. Challenges. Interactive PoRep (V1, V1_1): challenge i of partition k is
 *      (LE-int(SHA-256(replica_id ‖ seed ‖ j as u32 LE)) mod (nodes − 1)) + 1 with
 *      j = challenges_per_partition · k + i, so node 0 is never challenged; synthetic
 *      and non-interactive PoRep as czk_porep_challenges says.
 *   2. C1 from a sealed sector (czk_sector of czk/sector.h): per partition and challenge the
 *      tree_d and tree_r_last inclusion proofs, the challenged column and the 6 DRG and 8
 *      expander parents' columns with their tree_c proofs, the labeling proofs of every
 *      layer and the encoding proof.
 *   3. Synthetic fixtures — TEST DATA, NOT A SEALED SECTOR. czk_porep_fixture builds a
 *      C1 output for any registered seal proof (32 GiB and 64 GiB included) in seconds
 *      without sealing: only the challenged nodes, their parents' columns and the Merkle
 *      paths are materialised. Every tree node off a challenged path is a deterministic
 *      pseudo-random Fr element drawn from the fixture seed, and the roots are computed
 *      from that sparse tree, so all challenges share one comm_d, comm_c and
 *      comm_r_last and every path verifies. The labels of a challenged node are the real
 *      label hashes of its (pseudo-random) parent labels, the column hashes the real
 *      Poseidon hashes of the columns and the replica leaf is data + last label in Fr,
 *      so the PoRep circuit is satisfied and czk_c1_check accepts the result. What it
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
 * 1. Challenges
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
 * 2. Vanilla proofs and C1 of a sealed sector
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
 * czk_c1_write_json; free it with czk_c1_output_free. CZK_ENOMEM.
 */
CZK_API czk_status czk_porep_c1_from_sector(czk_c1_output **out, const czk_sector *s,
                                            const uint8_t ticket[32], const uint8_t seed[32],
                                            czk_pool *pool, czk_err *err);

/** czk_porep_c1_verify: do not check that the challenges are the seed's. */
#define CZK_POREP_VERIFY_ANY_CHALLENGES 1u

/**
 * Everything czk_c1_check checks, and what it cannot without the replica_id and seed
 * semantics: every labeling proof's 37 parents are its challenge's parent columns'
 * rows (DRG parents on the same layer, expander parents on the layer below, repeated
 * cyclically), every label c_x.column.rows[ℓ − 1] is the label hash of those parents,
 * the encoding proof carries the last layer's parents, and (unless `flags` has
 * CZK_POREP_VERIFY_ANY_CHALLENGES) partition k's challenges are czk_porep_challenges'
 * for the C1's replica_id, seed and comm_r. This is what rust-fil-proofs'
 * StackedDrg::verify_all_partitions checks. CZK_EVERIFY with a message naming the
 * partition, challenge and field; the errors of czk_c1_check.
 */
CZK_API czk_status czk_porep_c1_verify(const czk_c1_output *c1, czk_seal_proof proof,
                                       unsigned flags, czk_err *err);

/* =======================================================================================
 * 3. Synthetic fixtures (test data; see the comment at the top)
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
CZK_API czk_status czk_porep_fixture(czk_c1_output **out, czk_seal_proof proof,
                                     uint64_t seed_value, czk_pool *pool, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_POREP_VANILLA_H */
