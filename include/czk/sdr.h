/*
 * czk — the SDR (stacked DRG) graph and its labelling on the CPU, byte for byte as
 * rust-fil-proofs computes them (docs/formats.md §5.5, §5.6; rust-fil-proofs
 * storage-proofs-porep stacked/vanilla/{create_label, graph.rs, proof.rs}).
 *
 *   1. The graph: the 6 bucket-sampling DRG parents and 8 Feistel expander parents of
 *      every node.
 *   2. Labels. label(ℓ, v) = trunc254(SHA-256(replica_id ‖ ℓ as u32 BE ‖ v as u64 BE ‖
 *      20 zero bytes ‖ 37 parent labels)). The 37 parents are the node's parents in the
 *      graph repeated cyclically: on layer 1 its 6 DRG parents (of layer 1) six times and
 *      then the first again; on layer ℓ > 1 its 6 DRG parents of layer ℓ and 8 expander
 *      parents of layer ℓ − 1, twice, then the first 9. Node 0 hashes the first 64 bytes
 *      alone. Layers are numbered from 1 as upstream does. With them, the column hashes
 *      (tree_c's leaves) and the encoding of data into a replica.
 */
#ifndef CZK_SDR_H
#define CZK_SDR_H

#include "czk/api_version.h"
#include "czk/common.h"
#include "czk/pool.h"
#include "czk/seal_proof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =======================================================================================
 * 1. The graph
 * ======================================================================================= */

#define CZK_SDR_DRG_DEGREE 6  /* BASE_DEGREE: bucket-sampling parents */
#define CZK_SDR_EXP_DEGREE 8  /* EXP_DEGREE: Feistel expander parents */
#define CZK_SDR_DEGREE     14 /* parents per node, DRG first */

/**
 * The stacked-DRG graph of one porep_id, size and API version. Immutable once created,
 * so any number of threads may query it at once. Creation hashes the Feistel round
 * function over its whole domain once (3·2^17 BLAKE2b calls at 64 GiB: 0.1-0.3 s on one core) so
 * that parent queries compute no hash at all.
 */
typedef struct czk_sdr_graph czk_sdr_graph;

/**
 * A graph of `nodes` nodes (2 ≤ nodes < 2^32). CZK_EINVAL for a bad size or version,
 * CZK_ENOMEM, CZK_EINTERNAL when OpenSSL lacks SHA-256 or BLAKE2b-512.
 */
CZK_API czk_status czk_sdr_graph_create(czk_sdr_graph **out, uint64_t nodes,
                                        const uint8_t porep_id[32], czk_api_version version,
                                        czk_err *err);
/** The graph of a registered seal proof (its node count, porep_id and API version). */
CZK_API czk_status czk_sdr_graph_create_for_proof(czk_sdr_graph **out, czk_seal_proof proof,
                                                  czk_err *err);
CZK_API void czk_sdr_graph_destroy(czk_sdr_graph *g);

CZK_API uint64_t czk_sdr_graph_nodes(const czk_sdr_graph *g);
CZK_API czk_api_version czk_sdr_graph_version(const czk_sdr_graph *g);
/** The 28-byte DRG seed, SHA-256("Filecoin_DRSample" ‖ porep_id)[0..28]. */
CZK_API void czk_sdr_graph_drg_seed(const czk_sdr_graph *g, uint8_t out[28]);
/** The 4 Feistel keys: LE u64 words of SHA-256("Filecoin_Feistel" ‖ porep_id). */
CZK_API void czk_sdr_graph_feistel_keys(const czk_sdr_graph *g, uint64_t out[4]);

/**
 * The 6 DRG parents of `node` (< nodes). V1.1 and later put the predecessor node−1
 * first, V1.0 last; nodes 0 and 1 have six parents 0.
 */
CZK_API void czk_sdr_drg_parents(const czk_sdr_graph *g, uint32_t node, uint32_t out[6]);

/** The 8 expander parents of `node`: Feistel-permuted (node·8 + i) / 8, unsorted. */
CZK_API void czk_sdr_exp_parents(const czk_sdr_graph *g, uint32_t node, uint32_t out[8]);

/** All 14 parents of `node`: the 6 DRG parents, then the 8 expander parents. */
CZK_API void czk_sdr_parents(const czk_sdr_graph *g, uint32_t node, uint32_t out[14]);

/**
 * The parents of nodes [first, first + count) into out[14·count] (host-order u32),
 * spread over `pool` (NULL: the calling thread only). CZK_EINVAL if the range leaves
 * the graph.
 */
CZK_API czk_status czk_sdr_parents_range(const czk_sdr_graph *g, uint64_t first, uint64_t count,
                                         uint32_t *out, czk_pool *pool, czk_err *err);

/* =======================================================================================
 * 2. Labelling
 * ======================================================================================= */

/** Bytes of the labelling preimage of a node other than node 0: 64 + 37 · 32. */
#define CZK_SDR_LABEL_PREIMAGE_BYTES 1248
/** Parent labels in one labelling preimage. */
#define CZK_SDR_LABEL_PARENTS 37
/** Most layers of any registered proof (the column hash arity). */
#define CZK_SDR_MAX_LAYERS 11

/**
 * Label one node from its 37 expanded parent labels (`parents`, 37 · 32 bytes, the list
 * rust-fil-proofs' LabelingProof carries), or from none when `node` is 0 (`parents` is
 * then ignored and may be NULL). Uses the same SHA-256 code as the bulk labeller.
 */
CZK_API void czk_sdr_label_hash(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer,
                                uint64_t node, const uint8_t *parents);

/**
 * The 37 expanded parent labels of (layer, node) into out[37 · 32], read from `cur` (the
 * labels of `layer`) and, for layer > 1, `prev` (the labels of layer − 1), both arrays of
 * nodes · 32 bytes; only the parents' entries are read. Node 0 has no parents: `out` is
 * zero-filled and the call returns false; otherwise it returns true.
 */
CZK_API bool czk_sdr_label_parents(uint8_t *out, const czk_sdr_graph *g, uint32_t layer,
                                   uint32_t node, const uint8_t *cur, const uint8_t *prev);

/**
 * Label every layer: labels[(ℓ − 1) · nodes · 32 + v · 32] = label(ℓ, v) for ℓ = 1..layers
 * (1 ≤ layers ≤ CZK_SDR_MAX_LAYERS). A layer is a chain (node v − 1 is always a parent of
 * v), so one thread hashes; with a pool of two or more workers, up to three more
 * prefetch: they compute the parents of the nodes ahead and copy the parent labels that
 * already exist next to each other, as rust-fil-proofs' create_label/multi.rs does, and
 * the hashing thread fills in the few that did not exist yet. The result does not depend
 * on the pool. `parents` may give every node's 14 parents (14 · nodes host-order u32, the
 * layout of czk_sdr_parents_range and of a parent-cache file on little-endian hosts);
 * NULL computes them on the fly. CZK_EINVAL for bad arguments, CZK_ENOMEM.
 */
CZK_API czk_status czk_sdr_label_layers(uint8_t *labels, const czk_sdr_graph *g, unsigned layers,
                                        const uint8_t replica_id[32], const uint32_t *parents,
                                        czk_pool *pool, czk_err *err);

/** Name of the SHA-256 compression the labeller runs: "sha-ni" or "portable". */
CZK_API const char *czk_sdr_sha256_backend(void);

/**
 * Column hashes: out[v] = Poseidon-`layers`(labels of layers 1..layers at node v), the
 * leaves of tree_c, 32-byte LE each, spread over `pool`. `layers` must be 2 or 11
 * (rust-fil-proofs hash_single_column); labels as czk_sdr_label_layers writes them.
 * CZK_EINVAL for another arity, CZK_ENONCANONICAL for a label ≥ r.
 */
CZK_API czk_status czk_sdr_column_hashes(uint8_t *out, const uint8_t *labels, unsigned layers,
                                         uint64_t nodes, czk_pool *pool, czk_err *err);

/**
 * Encoding: replica[v] = data[v] + key[v] in Fr (32-byte LE elements, n of them), spread
 * over `pool`. `replica` may alias `data`. CZK_ENONCANONICAL (naming the node) when an
 * input is not below r.
 */
CZK_API czk_status czk_sdr_encode(uint8_t *replica, const uint8_t *data, const uint8_t *key,
                                  uint64_t n, czk_pool *pool, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_SDR_H */
