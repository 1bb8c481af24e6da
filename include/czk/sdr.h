/*
 * czk — the SDR (stacked DRG) graph, byte for byte as rust-fil-proofs builds it
 * (docs/formats.md §5.5): the 6 bucket-sampling DRG parents and 8 Feistel expander
 * parents of every node.
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

#ifdef __cplusplus
}
#endif
#endif /* CZK_SDR_H */
