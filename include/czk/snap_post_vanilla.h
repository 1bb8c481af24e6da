/*
 * czk — the vanilla (Merkle-proof) sides of SnapDeals and Proof-of-Spacetime, and
 * synthetic fixtures of both for any sector size (docs/formats.md §6, §8.3, §8.4).
 *
 *   1. SnapDeals encoding (storage-proofs-update vanilla.rs encode_into / decode_from):
 *      new_replica[c] = sector_key[c] + data[c]·rho(c), rho(c) = H(phi, c >> (B − h)),
 *      phi = H(comm_d_new, comm_r_old); decoding multiplies by rho⁻¹.
 *   2. An updated sector (czk_snap_sector): the sector key (old replica) and its comm_c,
 *      the new data, TreeDNew (binary SHA-256), TreeRNew (Poseidon, the sector's TreeR
 *      shape), comm_r_new = Poseidon2(comm_c, root_r_new), and the PartitionProof of
 *      every partition (EmptySectorUpdate::prove_inner) and its verification
 *      (EmptySectorUpdate::verify).
 *   3. PoSt (storage-proofs-post fallback/vanilla.rs, filecoin-proofs api/post_util.rs):
 *      the challenged leaves of a sector, its SectorProof (tree_r_last inclusion proofs,
 *      comm_c, comm_r_last) and its verification; the FallbackPoStSectorProof wrapper
 *      (sector_id, comm_r, Proof{sectors}) that the proofs API and cuzk carry as bytes.
 *   4. Synthetic fixtures: every tree is "virtual" — its leaves repeat a small
 *      pseudo-random template inside aligned regions, so that each level holds few
 *      distinct nodes and a 32 GiB tree's root and any path cost milliseconds — yet every
 *      node is the true hash of its children, the roots and commitments are consistent
 *      and the challenges are derived from them exactly as the real provers do, so the
 *      vanilla proofs verify and the circuits are satisfied.
 *
 * All 32-byte values are little-endian Fr reprs (rust-fil-proofs Domain bytes).
 */
#ifndef CZK_SNAP_POST_VANILLA_H
#define CZK_SNAP_POST_VANILLA_H

#include "czk/common.h"
#include "czk/merkle.h"
#include "czk/pool.h"
#include "czk/post.h"
#include "czk/sector.h"
#include "czk/snap.h"
#include "czk/vanilla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =======================================================================================
 * 0. Merkle proofs
 * ======================================================================================= */

/**
 * The MerkleProof of a czk_merkle_path, as rust-fil-proofs' gen_cached_proof / gen_proof
 * shape it: Single for a tree without sub arity, Sub (base path + one sub level) for
 * sub_arity > 0, Top (base + sub + top levels) for top_arity > 0. Arrays live in `a`.
 * CZK_EINVAL when the path's levels do not fit the shape, CZK_ENOMEM.
 */
CZK_API czk_status czk_vanilla_from_path(czk_vanilla_merkle_proof *out, czk_vanilla_arena *a,
                                         const czk_merkle_path *path, const uint8_t root[32],
                                         unsigned sub_arity, unsigned top_arity, czk_err *err);

/* =======================================================================================
 * 1. SnapDeals encoding
 * ======================================================================================= */

/**
 * new_replica[i] = sector_key[i] + data[i]·rho(i) for the p->nodes nodes, spread over
 * `pool`. `new_replica` may alias either input. CZK_ENONCANONICAL (naming the node) for
 * an input not below r, CZK_EINVAL for an h not in p->hs.
 */
CZK_API czk_status czk_snap_encode(uint8_t *new_replica, const uint8_t *sector_key,
                                   const uint8_t *data, const czk_snap_params *p, unsigned h,
                                   const uint8_t comm_d_new[32], const uint8_t comm_r_old[32],
                                   czk_pool *pool, czk_err *err);

/** data[i] = (new_replica[i] − sector_key[i])·rho(i)⁻¹ (vanilla.rs decode_from). */
CZK_API czk_status czk_snap_decode(uint8_t *data, const uint8_t *new_replica,
                                   const uint8_t *sector_key, const czk_snap_params *p, unsigned h,
                                   const uint8_t comm_d_new[32], const uint8_t comm_r_old[32],
                                   czk_pool *pool, czk_err *err);

/* =======================================================================================
 * 2. An updated sector and its partition proofs
 * ======================================================================================= */

/** What an update needs (filecoin-proofs encode_into arguments). */
typedef struct czk_snap_update_input {
    uint64_t sector_size;
    const uint8_t *sector_key; /* the old replica, sector_size bytes (copied) */
    uint8_t comm_c[32];        /* of the sealed sector */
    const uint8_t *data;       /* new fr32-padded data, sector_size bytes (copied) */
    unsigned h;                /* 0: czk_snap_h_default */
} czk_snap_update_input;

/** The commitments of an update. */
typedef struct czk_snap_comms {
    uint8_t comm_r_old[32], comm_d_new[32], comm_r_new[32];
    uint8_t comm_c[32], root_r_old[32], root_r_new[32];
    unsigned h;
} czk_snap_comms;

typedef struct czk_snap_sector czk_snap_sector;

/**
 * Encode new data into a sector key: TreeROld over the key, TreeDNew over the data,
 * the new replica and TreeRNew, spread over `pool`. CZK_EINVAL for a size SnapDeals does
 * not allow or a bad h, CZK_ENONCANONICAL for a node not below r, CZK_ENOMEM.
 */
CZK_API czk_status czk_snap_sector_update(czk_snap_sector **out, const czk_snap_update_input *in,
                                          czk_pool *pool, czk_err *err);

/** The same from a sector sealed by czk_sector_seal (its replica is the sector key). */
CZK_API czk_status czk_snap_sector_update_sealed(czk_snap_sector **out, const czk_sector *key,
                                                 const uint8_t *data, unsigned h, czk_pool *pool,
                                                 czk_err *err);

CZK_API void czk_snap_sector_destroy(czk_snap_sector *s);
CZK_API const czk_snap_params *czk_snap_sector_params(const czk_snap_sector *s);
CZK_API void czk_snap_sector_comms(const czk_snap_sector *s, czk_snap_comms *out);
/** The new replica, sector_size bytes. */
CZK_API const uint8_t *czk_snap_sector_replica(const czk_snap_sector *s);

/**
 * The PartitionProof of partition k (EmptySectorUpdate::prove_inner): comm_c, the
 * partition's apex leaves of TreeDNew, and per challenge the TreeROld, TreeDNew and
 * TreeRNew proofs. Free with czk_snap_partition_proof_free.
 */
CZK_API czk_status czk_snap_sector_prove(const czk_snap_sector *s, uint64_t k,
                                         czk_snap_partition_proof **out, czk_err *err);

/**
 * EmptySectorUpdate::verify of one partition proof, plus the shape checks upstream leaves
 * to deserialization (proof kinds and path lengths of the TreeR shape, every value below
 * r): comm_r_old / comm_r_new = H(comm_c, challenge 0's roots); per challenge the three
 * paths at c (derived from comm_r_new and k), TreeDNew's root = comm_d_new, the encoding
 * leaf_r_new = leaf_r_old + leaf_d_new·rho, and the apex path matching the apex leaves.
 * CZK_EVERIFY naming the challenge and the failed check, CZK_EINVAL for a bad shape.
 */
CZK_API czk_status czk_snap_partition_verify(const czk_snap_partition_proof *pp,
                                             const czk_snap_params *p, uint64_t k, unsigned h,
                                             const uint8_t comm_r_old[32],
                                             const uint8_t comm_d_new[32],
                                             const uint8_t comm_r_new[32], czk_err *err);

/** RegisteredUpdateProof (filecoin-proofs-api registry.rs): name, number, log2 size. */
#define CZK_UPDATE_PROOF_MAP(X)                                                                    \
    X(StackedDrg2KiBV1, 0, 11)                                                                     \
    X(StackedDrg8MiBV1, 1, 23)                                                                     \
    X(StackedDrg512MiBV1, 2, 29)                                                                   \
    X(StackedDrg32GiBV1, 3, 35)                                                                    \
    X(StackedDrg64GiBV1, 4, 36)

/** Parse an update proof name ("StackedDrg32GiBV1", or with Go's
 *  "RegisteredUpdateProof_" prefix) into its number and sector size. CZK_EINVAL else. */
CZK_API czk_status czk_update_proof_parse(const char *name, uint64_t *id, uint64_t *sector_size,
                                          czk_err *err);

/* =======================================================================================
 * 3. PoSt
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
 * 4. Synthetic fixtures
 * ======================================================================================= */

/** A synthetic SnapDeals update: commitments and every partition's proof. */
typedef struct czk_snap_fixture {
    czk_snap_params params;
    uint64_t update_proof; /* RegisteredUpdateProof number */
    czk_snap_comms comms;
    size_t npartitions;
    czk_snap_partition_proof **partitions;
} czk_snap_fixture;

/**
 * Build a synthetic update of any SnapDeals size (seconds at 32/64 GiB), deterministic in
 * `seed`. The proofs pass czk_snap_partition_verify and satisfy czk_snap_circuit.
 */
CZK_API czk_status czk_snap_fixture_create(czk_snap_fixture **out, uint64_t sector_size,
                                           uint64_t seed, czk_err *err);
CZK_API void czk_snap_fixture_destroy(czk_snap_fixture *f);

/** A synthetic PoSt: one Window PoSt partition, or one Winning PoSt. */
typedef struct czk_post_fixture {
    czk_post_proof proof;
    czk_post_params params;
    bool winning;
    uint64_t miner_id;
    uint8_t prover_id[32];
    uint8_t randomness[32]; /* top two bits clear, as Lotus/Curio pass it */
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
#endif /* CZK_SNAP_POST_VANILLA_H */
