/*
 * czk — the vanilla (Merkle-proof) side of Proof-of-Spacetime, as rust-fil-proofs'
 * storage-proofs-post fallback/vanilla.rs and filecoin-proofs api/post_util.rs compute
 * it, and synthetic PoSts for any sector size (docs/formats.md §8.3, §8.4, §8.5).
 *
 *   1. The SectorProof of one sector (tree_r_last inclusion proofs, comm_c, comm_r_last)
 *      and its bincode 1.3 legacy encoding: parse and write.
 *   2. The challenged leaves of a sector, its SectorProof and its verification; the
 *      FallbackPoStSectorProof wrapper (sector_id, comm_r, Proof{sectors}) that the
 *      proofs API and cuzk carry as bytes.
 *   3. Synthetic fixtures, on the "virtual" trees of czk/snap_vanilla.h §4: the roots
 *      and commitments are consistent and the challenges derived from them exactly as
 *      the real prover does, so the vanilla proofs verify and the circuit is satisfied.
 *
 * All 32-byte values are little-endian Fr reprs (rust-fil-proofs Domain bytes).
 */
#ifndef CZK_POST_VANILLA_H
#define CZK_POST_VANILLA_H

#include "czk/common.h"
#include "czk/merkle.h"
#include "czk/pool.h"
#include "czk/post.h"
#include "czk/sector.h"
#include "czk/vanilla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =======================================================================================
 * 1. Sector proofs
 * ======================================================================================= */

/** PoSt SectorProof (storage-proofs-post fallback/vanilla.rs). */
typedef struct czk_post_sector_proof {
    czk_vanilla_arena *arena;
    czk_vanilla_merkle_proof *inclusion_proofs;
    size_t ninclusion_proofs;
    uint8_t comm_c[32];
    uint8_t comm_r_last[32];
} czk_post_sector_proof;

/** Release a sector proof (its arena and the struct). NULL is ignored. */
CZK_API void czk_post_sector_proof_free(czk_post_sector_proof *p);

/** Parse one bincode SectorProof; trailing bytes, truncation and impossible lengths give
 *  CZK_EFORMAT naming the field and byte offset. */
CZK_API czk_status czk_post_sector_proof_parse(czk_post_sector_proof **out, const uint8_t *buf,
                                               size_t len, czk_err *err);
CZK_API czk_status czk_post_sector_proof_write(const czk_post_sector_proof *p, uint8_t **out,
                                               size_t *len, czk_err *err);

/* =======================================================================================
 * 2. Challenges, proofs and their verification
 * ======================================================================================= */

/** Challenges in one sector's vanilla proof: challenge_count for Window PoSt, and for
 *  Winning PoSt all sector_count · challenge_count (66) on its one sector. */
CZK_API unsigned czk_post_vanilla_challenge_count(const czk_post_params *p, bool winning);

/**
 * The challenged leaves of one sector (generate_fallback_sector_challenges): for n <
 * czk_post_vanilla_challenge_count, czk_post_leaf_challenge(randomness, sector_id,
 * czk_post_challenge_index(version, sector_index, count, n)). `sector_index` is the
 * sector's position in the whole proof (partition_index · sector_count + i; 0 for Winning).
 */
CZK_API void czk_post_sector_challenges(uint64_t *out, const czk_post_params *p, bool winning,
                                        const uint8_t randomness[32], uint64_t sector_id,
                                        uint64_t sector_index);

/**
 * Winning PoSt's challenged sectors (generate_winning_post_sector_challenge): `count`
 * indices into a sector set of `sector_set_len` sectors.
 */
CZK_API void czk_post_winning_sectors(uint64_t *out, unsigned count, const uint8_t randomness[32],
                                      uint64_t sector_set_len, const uint8_t prover_id[32]);

/**
 * The SectorProof of one sector from its tree_r_last (`leaves`: the replica, as
 * czk_merkle_prove wants it) and comm_c. Free with czk_post_sector_proof_free.
 */
CZK_API czk_status czk_post_sector_prove(czk_post_sector_proof **out, const czk_post_params *p,
                                         bool winning, const czk_merkle_tree *tree_r_last,
                                         const uint8_t *leaves, const uint8_t comm_c[32],
                                         const uint8_t randomness[32], uint64_t sector_id,
                                         uint64_t sector_index, czk_err *err);

/** The same from a sector sealed by czk_sector_seal. */
CZK_API czk_status czk_post_sector_prove_sealed(czk_post_sector_proof **out,
                                                const czk_post_params *p, bool winning,
                                                const czk_sector *s, const uint8_t randomness[32],
                                                uint64_t sector_id, uint64_t sector_index,
                                                czk_err *err);

/**
 * Verify a SectorProof (FallbackPoSt::verify for one sector): comm_r =
 * Poseidon2(comm_c, comm_r_last), the count of inclusion proofs, their shape, each
 * proof's root = comm_r_last, leaf index = the derived challenge, and path.
 * CZK_EVERIFY naming the challenge, CZK_EINVAL for a bad shape.
 */
CZK_API czk_status czk_post_sector_verify(const czk_post_sector_proof *sp, const czk_post_params *p,
                                          bool winning, const uint8_t randomness[32],
                                          uint64_t sector_id, uint64_t sector_index,
                                          const uint8_t comm_r[32], czk_err *err);

/**
 * bincode of filecoin-proofs' FallbackPoStSectorProof {sector_id: u64, comm_r: [u8;32],
 * vanilla_proof: Proof {sectors: Vec<SectorProof>}} with one SectorProof: the bytes the
 * proofs API's *_with_vanilla calls and cuzk's vanilla_proofs carry for PoSt.
 */
CZK_API czk_status czk_post_fallback_proof_write(uint64_t sector_id, const uint8_t comm_r[32],
                                                 const czk_post_sector_proof *p, uint8_t **out,
                                                 size_t *len, czk_err *err);
/** Parse it; a sectors vector of other than one entry is CZK_EFORMAT. */
CZK_API czk_status czk_post_fallback_proof_parse(uint64_t *sector_id, uint8_t comm_r[32],
                                                 czk_post_sector_proof **out, const uint8_t *buf,
                                                 size_t len, czk_err *err);

/* =======================================================================================
 * 3. Synthetic fixtures
 * ======================================================================================= */

/** A synthetic PoSt: one Window PoSt partition, or one Winning PoSt. */
typedef struct czk_post_fixture {
    czk_post_proof proof;
    czk_post_params params;
    bool winning;
    uint64_t miner_id;
    uint8_t prover_id[32];
    uint8_t randomness[32];   /* top two bits clear, as Lotus/Curio pass it */
    uint64_t partition_index; /* Window */
    uint64_t sector_set_len;  /* Winning: the set the challenged sector was drawn from */
    size_t nsectors;          /* proved sectors (Winning: 1) */
    czk_post_public_sector *sectors;
    czk_post_sector_proof **proofs; /* one per sector */
} czk_post_fixture;

/**
 * Build a synthetic PoSt for `proof`, deterministic in `seed`: Window → partition 0 of
 * `nsectors` sectors (0: the full sector_count); Winning → the sector the challenge
 * picks from a set of max(nsectors, 1) sectors. Each proof passes
 * czk_post_sector_verify and the sectors satisfy czk_post_circuit.
 */
CZK_API czk_status czk_post_fixture_create(czk_post_fixture **out, czk_post_proof proof,
                                           uint64_t seed, size_t nsectors, czk_err *err);
CZK_API void czk_post_fixture_destroy(czk_post_fixture *f);

#ifdef __cplusplus
}
#endif
#endif /* CZK_POST_VANILLA_H */
