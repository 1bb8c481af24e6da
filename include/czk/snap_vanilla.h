/*
 * czk — the vanilla (Merkle-proof) side of SnapDeals, as rust-fil-proofs'
 * storage-proofs-update computes it, and synthetic updates for any sector size
 * (docs/formats.md §6, §8.3).
 *
 *   1. The PartitionProof of one partition and its bincode 1.3 legacy encoding
 *      (little-endian fixint, u64 lengths, u32 enum tags): parse and write.
 *   2. Encoding (vanilla.rs encode_into / decode_from):
 *      new_replica[c] = sector_key[c] + data[c]·rho(c), rho(c) = H(phi, c >> (B − h)),
 *      phi = H(comm_d_new, comm_r_old); decoding multiplies by rho⁻¹.
 *   3. An updated sector (czk_snap_sector): the sector key (old replica) and its comm_c,
 *      the new data, TreeDNew (binary SHA-256), TreeRNew (Poseidon, the sector's TreeR
 *      shape), comm_r_new = Poseidon2(comm_c, root_r_new), and the PartitionProof of
 *      every partition (EmptySectorUpdate::prove_inner) and its verification
 *      (EmptySectorUpdate::verify).
 *   4. Synthetic fixtures: every tree is "virtual" — its leaves repeat a small
 *      pseudo-random template inside aligned regions, so that each level holds few
 *      distinct nodes and a 32 GiB tree's root and any path cost milliseconds — yet every
 *      node is the true hash of its children, the roots and commitments are consistent
 *      and the challenges are derived from them exactly as the real prover does, so the
 *      vanilla proofs verify and the circuit is satisfied.
 *
 * All 32-byte values are little-endian Fr reprs (rust-fil-proofs Domain bytes).
 */
#ifndef CZK_SNAP_VANILLA_H
#define CZK_SNAP_VANILLA_H

#include "czk/common.h"
#include "czk/merkle.h"
#include "czk/pool.h"
#include "czk/sector.h"
#include "czk/snap.h"
#include "czk/vanilla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =======================================================================================
 * 1. Partition proofs
 * ======================================================================================= */

/** SnapDeals ChallengeProof (storage-proofs-update vanilla.rs). */
typedef struct czk_snap_challenge_proof {
    czk_vanilla_merkle_proof proof_r_old, proof_d_new, proof_r_new;
} czk_snap_challenge_proof;

/** SnapDeals PartitionProof. */
typedef struct czk_snap_partition_proof {
    czk_vanilla_arena *arena;
    uint8_t comm_c[32];
    uint8_t (*apex_leafs)[32];
    size_t napex_leafs;
    czk_snap_challenge_proof *challenge_proofs;
    size_t nchallenge_proofs;
} czk_snap_partition_proof;

/** Release a partition proof (its arena and the struct). NULL is ignored. */
CZK_API void czk_snap_partition_proof_free(czk_snap_partition_proof *p);

/** Parse one bincode PartitionProof; trailing bytes, truncation and impossible lengths
 *  give CZK_EFORMAT naming the field and byte offset. */
CZK_API czk_status czk_snap_partition_proof_parse(czk_snap_partition_proof **out,
                                                  const uint8_t *buf, size_t len, czk_err *err);
CZK_API czk_status czk_snap_partition_proof_write(const czk_snap_partition_proof *p, uint8_t **out,
                                                  size_t *len, czk_err *err);

/* =======================================================================================
 * 2. Encoding
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
 * 3. An updated sector and its partition proofs
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
#define CZK_SNAP_UPDATE_PROOF_MAP(X)                                                               \
    X(StackedDrg2KiBV1, 0, 11)                                                                     \
    X(StackedDrg8MiBV1, 1, 23)                                                                     \
    X(StackedDrg512MiBV1, 2, 29)                                                                   \
    X(StackedDrg32GiBV1, 3, 35)                                                                    \
    X(StackedDrg64GiBV1, 4, 36)

/** Parse an update proof name ("StackedDrg32GiBV1", or with Go's
 *  "RegisteredUpdateProof_" prefix) into its number and sector size. CZK_EINVAL else. */
CZK_API czk_status czk_snap_update_proof_parse(const char *name, uint64_t *id,
                                               uint64_t *sector_size, czk_err *err);

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

#ifdef __cplusplus
}
#endif
#endif /* CZK_SNAP_VANILLA_H */
