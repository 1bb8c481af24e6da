/*
 * czk — sealing a sector on the CPU, byte for byte as rust-fil-proofs'
 * seal_pre_commit_phase1 and _phase2 compute it (docs/formats.md §5.1, §5.3, §5.6;
 * rust-fil-proofs storage-proofs-porep stacked/vanilla/proof.rs, filecoin-proofs
 * api/seal.rs), from the labels of czk/sdr.h:
 *
 *   1. tree_c: every node's column (its labels on layers 1..L) hashed with Poseidon of
 *      arity L (2 or 11) and the MerkleTree tag; comm_c is the root of the sector-shaped
 *      Poseidon tree (czk_merkle_config_tree_r) over those column hashes.
 *   2. Encoding: replica node = data node + last-layer label in Fr; comm_r_last is the
 *      root of the same-shaped tree over the replica; comm_r = Poseidon2(comm_c,
 *      comm_r_last) (czk_comm_r).
 *   3. comm_d: the root of the binary SHA-256 tree (tree_d) over the fr32-padded data;
 *      replica_id hashes it (czk_seal_replica_id).
 *
 * A sealed sector (czk_sector) keeps everything that vanilla proofs for challenged
 * nodes need, in memory: the padded data, the labels of every layer, the replica and
 * tree_d, tree_c and tree_r_last. Memory is about sector_size · (layers + 4.3): 2 KiB
 * and 8 MiB sectors are small, a 512 MiB sector (2 layers) takes about 3.2 GiB.
 */
#ifndef CZK_SECTOR_H
#define CZK_SECTOR_H

#include "czk/common.h"
#include "czk/merkle.h"
#include "czk/pool.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a seal needs (filecoin-proofs seal_pre_commit_phase1 arguments). */
typedef struct czk_sector_seal_input {
    czk_seal_proof proof;
    uint8_t prover_id[32]; /* czk_seal_prover_id_from_actor() of the miner actor id */
    uint64_t sector_id;
    uint8_t ticket[32];
    /** The sector's fr32-padded data (the staged sector file), sector_size bytes, every
     *  32-byte node below r; NULL for an all-zero (CC) sector. Copied. */
    const uint8_t *data;
} czk_sector_seal_input;

/** The commitments of a sealed sector, 32-byte LE Fr values as upstream holds them. */
typedef struct czk_sector_seal_comms {
    uint8_t comm_d[32];
    uint8_t comm_r[32];
    uint8_t comm_c[32];
    uint8_t comm_r_last[32];
    uint8_t replica_id[32];
} czk_sector_seal_comms;

/** Seconds each stage of a seal took (wall clock). */
typedef struct czk_sector_seal_timings {
    double tree_d, labels, tree_c, encode, tree_r_last, total;
} czk_sector_seal_timings;

/** A sealed sector: immutable once created; any number of threads may read it. */
typedef struct czk_sector czk_sector;

/**
 * Seal a sector: tree_d and comm_d, replica_id, the labels of every layer, tree_c,
 * the replica and tree_r_last, comm_r — spread over `pool` (NULL: this thread).
 * CZK_EINVAL for an unknown proof, a proof larger than 512 MiB (this CPU path keeps
 * the sector in memory) or data not below r (CZK_ENONCANONICAL), CZK_ENOMEM,
 * CZK_EINTERNAL if OpenSSL fails.
 */
CZK_API czk_status czk_sector_seal(czk_sector **out, const czk_sector_seal_input *in,
                                   czk_pool *pool, czk_err *err);
CZK_API void czk_sector_destroy(czk_sector *s);

CZK_API const czk_seal_proof_info *czk_sector_info(const czk_sector *s);
CZK_API void czk_sector_comms(const czk_sector *s, czk_sector_seal_comms *out);
CZK_API void czk_sector_timings(const czk_sector *s, czk_sector_seal_timings *out);
/** The sector's SDR graph (for the parents of challenged nodes). */
CZK_API const czk_sdr_graph *czk_sector_graph(const czk_sector *s);

/** The padded data (sector_size bytes), the replica (sealed sector file, sector_size
 *  bytes) and the labels of layer `layer` (1..layers, nodes · 32 bytes; NULL outside). */
CZK_API const uint8_t *czk_sector_data(const czk_sector *s);
CZK_API const uint8_t *czk_sector_replica(const czk_sector *s);
CZK_API const uint8_t *czk_sector_layer(const czk_sector *s, unsigned layer);
/** The column hashes (tree_c's leaves), nodes · 32 bytes. */
CZK_API const uint8_t *czk_sector_columns(const czk_sector *s);

/** label(layer, node) into out. CZK_EINVAL for a layer outside 1..layers or a node
 *  outside the sector. */
CZK_API czk_status czk_sector_label(const czk_sector *s, unsigned layer, uint64_t node,
                                    uint8_t out[32], czk_err *err);

/** The column of `node`: its labels on layers 1..layers into out[layers · 32]
 *  (rust-fil-proofs Column::rows). CZK_EINVAL for a node outside the sector. */
CZK_API czk_status czk_sector_column(const czk_sector *s, uint64_t node, uint8_t *out,
                                     czk_err *err);

/** The 37 expanded parent labels of (layer, node), as LabelingProof::parents holds them.
 *  CZK_EINVAL for a bad layer or node, or node 0 (which has none). */
CZK_API czk_status czk_sector_label_parents(const czk_sector *s, unsigned layer, uint64_t node,
                                            uint8_t out[CZK_SDR_LABEL_PARENTS * 32], czk_err *err);

/** The three trees. Their leaves are czk_sector_data() (tree_d), czk_sector_columns()
 *  (tree_c) and czk_sector_replica() (tree_r_last). */
CZK_API const czk_merkle_tree *czk_sector_tree_d(const czk_sector *s);
CZK_API const czk_merkle_tree *czk_sector_tree_c(const czk_sector *s);
CZK_API const czk_merkle_tree *czk_sector_tree_r_last(const czk_sector *s);

/** Inclusion paths of `node` in tree_d (comm_d), tree_c (comm_c) and tree_r_last
 *  (comm_r_last). CZK_EINVAL for a node outside the sector. */
CZK_API czk_status czk_sector_prove_d(const czk_sector *s, uint64_t node, czk_merkle_path *path,
                                      czk_err *err);
CZK_API czk_status czk_sector_prove_c(const czk_sector *s, uint64_t node, czk_merkle_path *path,
                                      czk_err *err);
CZK_API czk_status czk_sector_prove_r_last(const czk_sector *s, uint64_t node,
                                           czk_merkle_path *path, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_SECTOR_H */
