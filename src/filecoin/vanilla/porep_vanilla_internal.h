/*
 * Private to src/filecoin: what the C1 of a sealed sector (porep_vanilla.c) and the
 * synthetic fixture (fixture/porep_fixture.c) share — a C1 skeleton whose every array is
 * allocated up front, so that challenges can then be filled concurrently (the arena is
 * not thread-safe), and the copy of a czk_merkle_path into a preallocated MerkleProof.
 */
#ifndef CZK_FILECOIN_VANILLA_POREP_VANILLA_INTERNAL_H
#define CZK_FILECOIN_VANILLA_POREP_VANILLA_INTERNAL_H

#include "czk/porep_vanilla.h"

/**
 * An empty C1 for `proof`: registered_proof, vanilla key, partitions and challenge
 * counts set, and every proof's arrays (paths of the tree shapes, 6 + 8 + 1 columns of
 * `layers` rows, `layers` labeling proofs and the encoding proof of 37 parents each)
 * allocated and zeroed. CZK_EINVAL for an unknown proof, CZK_ENOMEM.
 */
czk_status czk__c1_skeleton(czk_porep_c1_output **out, czk_seal_proof proof, czk_err *err);

/**
 * Copy `path` (levels base, then sub, then top) and `root` into a MerkleProof the
 * skeleton allocated. False when the path's levels or arities differ from the skeleton's.
 */
bool czk__vanilla_fill(czk_vanilla_merkle_proof *mp, const czk_merkle_path *path,
                       const uint8_t root[32]);

/** The 37 expanded parent labels of a challenge at `layer` from its parents' columns:
 *  the 6 DRG parents' row layer − 1 (then, above layer 1, the 8 expander parents' row
 *  layer − 2) repeated cyclically, as rust-fil-proofs' prove_layers builds them. */
void czk__label_parents_from_columns(uint8_t out[CZK_SDR_LABEL_PARENTS][32],
                                     const czk_porep_vanilla_proof *p, unsigned layer);

/** The interactive rule (InteractiveChallenges::derive) for any node count and
 *  challenges per partition: what the fixture uses for every feature. CZK_EINTERNAL
 *  only when OpenSSL fails. */
czk_status czk__porep_interactive_challenges(uint64_t *out, uint64_t nodes, unsigned cpp,
                                             const uint8_t replica_id[32], const uint8_t seed[32],
                                             unsigned k);

/** The synthetic challenge indexes (SynthChallenges::derive_indexes) that select
 *  partition k's PoRep challenges among min(nodes, 2^18) synthetic challenges: they depend
 *  on replica_id and seed only. CZK_EINTERNAL only when OpenSSL fails. */
czk_status czk__porep_synth_indexes(uint64_t *out, uint64_t nodes, unsigned cpp,
                                    const uint8_t replica_id[32], const uint8_t seed[32],
                                    unsigned k);

#endif /* CZK_FILECOIN_VANILLA_POREP_VANILLA_INTERNAL_H */
