/*
 * czk — Filecoin primitives, byte-for-byte as rust-fil-proofs and
 * rust-filecoin-proofs-api compute them (see docs/formats.md §5.1, §5.5, §5.6).
 *
 *   1. Registered seal proofs: names, Go abi numbers, per-size parameters, porep_id,
 *      prover_id and replica_id.
 *   2. The SDR (stacked DRG) graph: the 6 bucket-sampling DRG parents and 8 Feistel
 *      expander parents of every node, and Filecoin's parent-cache files.
 *
 * Poseidon lives in czk/poseidon.h.
 */
#ifndef CZK_FILECOIN_H
#define CZK_FILECOIN_H

#include "czk/common.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =======================================================================================
 * 1. Registered seal proofs, porep_id, replica_id
 * ======================================================================================= */

/** Proofs API version of a registered proof (rust-fil-proofs `ApiVersion`). */
typedef enum czk_api_version {
    CZK_API_V1_0_0 = 0, /* StackedDrg*V1: legacy graph (predecessor last, u32 expander) */
    CZK_API_V1_1_0 = 1, /* StackedDrg*V1_1 */
    CZK_API_V1_2_0 = 2, /* the SyntheticPoRep and NonInteractivePoRep variants */
} czk_api_version;

/** PoRep feature of a registered proof (rust-fil-proofs `ApiFeature`). */
typedef enum czk_porep_feature {
    CZK_POREP_INTERACTIVE = 0,
    CZK_POREP_SYNTHETIC = 1,
    CZK_POREP_NON_INTERACTIVE = 2,
} czk_porep_feature;

/*
 * RegisteredSealProof, one row per variant: name as rust-filecoin-proofs-api spells it
 * (also Go's abi.RegisteredSealProof_<name>), id (the abi number, which is also the
 * first u64 of porep_id), log2 of the sector size, API version and feature. The enum
 * value of CZK_SEAL_<name> is the id.
 */
#define CZK_SEAL_PROOF_MAP(X)                                                                      \
    X(StackedDrg2KiBV1, 0, 11, CZK_API_V1_0_0, CZK_POREP_INTERACTIVE)                              \
    X(StackedDrg8MiBV1, 1, 23, CZK_API_V1_0_0, CZK_POREP_INTERACTIVE)                              \
    X(StackedDrg512MiBV1, 2, 29, CZK_API_V1_0_0, CZK_POREP_INTERACTIVE)                            \
    X(StackedDrg32GiBV1, 3, 35, CZK_API_V1_0_0, CZK_POREP_INTERACTIVE)                             \
    X(StackedDrg64GiBV1, 4, 36, CZK_API_V1_0_0, CZK_POREP_INTERACTIVE)                             \
    X(StackedDrg2KiBV1_1, 5, 11, CZK_API_V1_1_0, CZK_POREP_INTERACTIVE)                            \
    X(StackedDrg8MiBV1_1, 6, 23, CZK_API_V1_1_0, CZK_POREP_INTERACTIVE)                            \
    X(StackedDrg512MiBV1_1, 7, 29, CZK_API_V1_1_0, CZK_POREP_INTERACTIVE)                          \
    X(StackedDrg32GiBV1_1, 8, 35, CZK_API_V1_1_0, CZK_POREP_INTERACTIVE)                           \
    X(StackedDrg64GiBV1_1, 9, 36, CZK_API_V1_1_0, CZK_POREP_INTERACTIVE)                           \
    X(StackedDrg2KiBV1_1_Feat_SyntheticPoRep, 10, 11, CZK_API_V1_2_0, CZK_POREP_SYNTHETIC)         \
    X(StackedDrg8MiBV1_1_Feat_SyntheticPoRep, 11, 23, CZK_API_V1_2_0, CZK_POREP_SYNTHETIC)         \
    X(StackedDrg512MiBV1_1_Feat_SyntheticPoRep, 12, 29, CZK_API_V1_2_0, CZK_POREP_SYNTHETIC)       \
    X(StackedDrg32GiBV1_1_Feat_SyntheticPoRep, 13, 35, CZK_API_V1_2_0, CZK_POREP_SYNTHETIC)        \
    X(StackedDrg64GiBV1_1_Feat_SyntheticPoRep, 14, 36, CZK_API_V1_2_0, CZK_POREP_SYNTHETIC)        \
    X(StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, 15, 11, CZK_API_V1_2_0,                         \
      CZK_POREP_NON_INTERACTIVE)                                                                   \
    X(StackedDrg8MiBV1_2_Feat_NonInteractivePoRep, 16, 23, CZK_API_V1_2_0,                         \
      CZK_POREP_NON_INTERACTIVE)                                                                   \
    X(StackedDrg512MiBV1_2_Feat_NonInteractivePoRep, 17, 29, CZK_API_V1_2_0,                       \
      CZK_POREP_NON_INTERACTIVE)                                                                   \
    X(StackedDrg32GiBV1_2_Feat_NonInteractivePoRep, 18, 35, CZK_API_V1_2_0,                        \
      CZK_POREP_NON_INTERACTIVE)                                                                   \
    X(StackedDrg64GiBV1_2_Feat_NonInteractivePoRep, 19, 36, CZK_API_V1_2_0,                        \
      CZK_POREP_NON_INTERACTIVE)

typedef enum czk_seal_proof {
#define CZK__SEAL_ENUM(name, id, log2size, ver, feat) CZK_SEAL_##name = id,
    CZK_SEAL_PROOF_MAP(CZK__SEAL_ENUM)
#undef CZK__SEAL_ENUM
        CZK_SEAL_PROOF_COUNT = 20
} czk_seal_proof;

/** Everything the proof system fixes for one registered seal proof. */
typedef struct czk_seal_proof_info {
    czk_seal_proof proof;
    const char *name;     /* "StackedDrg32GiBV1_1" */
    uint64_t sector_size; /* bytes */
    uint64_t nodes;       /* sector_size / 32 */
    czk_api_version api_version;
    czk_porep_feature feature;
    unsigned layers;                   /* 2 (test sizes) or 11 */
    unsigned partitions;               /* 1 / 10 interactive; 13 / 126 non-interactive */
    unsigned min_challenges;           /* 2 / 176 interactive; 26 / 2253 non-interactive */
    unsigned challenges_per_partition; /* ceil(min_challenges / partitions): 2 or 18 */
    /* Shape of tree_c and tree_r_last: base arity (8), sub-tree arity (0 or 8) and top
     * arity (0 or 2), as filecoin-proofs' SectorShape types. */
    unsigned tree_base_arity, tree_sub_arity, tree_top_arity;
} czk_seal_proof_info;

/** The info of a registered seal proof; NULL for a value outside the enum. */
CZK_API const czk_seal_proof_info *czk_seal_proof_get(czk_seal_proof proof);

/** "StackedDrg2KiBV1" etc.; NULL for a value outside the enum. */
CZK_API const char *czk_seal_proof_name(czk_seal_proof proof);

/** "1.0.0", "1.1.0" or "1.2.0". */
CZK_API const char *czk_api_version_string(czk_api_version v);

/**
 * Parse a registered seal proof name, as spelled by rust-filecoin-proofs-api
 * ("StackedDrg32GiBV1_1") or with Go's "RegisteredSealProof_" prefix. Case-sensitive.
 * CZK_EINVAL for anything else, with a message naming the unknown name and the valid ones.
 */
CZK_API czk_status czk_seal_proof_parse(const char *name, czk_seal_proof *out, czk_err *err);

/** porep_id = u64 LE proof id ‖ u64 LE nonce (0 for every proof) ‖ 16 zero bytes. */
CZK_API void czk_porep_id(uint8_t out[32], czk_seal_proof proof);

/**
 * prover_id of a miner actor id: the payload of its Filecoin ID address, i.e. the
 * unsigned LEB128 encoding of the id, zero-padded to 32 bytes.
 */
CZK_API void czk_prover_id_from_actor(uint8_t out[32], uint64_t actor_id);

/**
 * replica_id = SHA-256(prover_id ‖ sector_id as u64 BE ‖ ticket ‖ comm_d ‖ porep_id) with
 * the two top bits of byte 31 cleared, so that it is a canonical Fr element in
 * little-endian bytes (rust-fil-proofs `generate_replica_id`). CZK_EINTERNAL only when
 * OpenSSL fails.
 */
CZK_API czk_status czk_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                                  const uint8_t ticket[32], const uint8_t comm_d[32],
                                  const uint8_t porep_id[32], czk_err *err);

/* =======================================================================================
 * 2. The SDR graph and parent caches
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

/*
 * Parent-cache files, as rust-fil-proofs writes and reads them: for every node its 14
 * parents as u32 little-endian (56 bytes a node), in a file named
 * "v28-sdr-parent-<hex SHA-256(\"poseidon_hasher\" ‖ graph identifier ‖ Feistel keys as
 * u64 LE ‖ nodes as u32 LE)>.cache" inside the parent-cache directory.
 */

/** Length of a parent-cache file name, including the terminating NUL. */
#define CZK_PARENT_CACHE_NAME_SIZE 86

/** Bytes of one node's entry in a parent-cache file. */
#define CZK_PARENT_CACHE_ENTRY_BYTES (CZK_SDR_DEGREE * 4)

/** The file name ("v28-sdr-parent-….cache") of a graph's parent cache. */
CZK_API czk_status czk_parent_cache_name(const czk_sdr_graph *g,
                                         char out[CZK_PARENT_CACHE_NAME_SIZE], czk_err *err);

/**
 * The parent-cache directory, as rust-fil-proofs resolves it: $FIL_PROOFS_PARENT_CACHE,
 * else $FIL_PROOFS_CACHE_DIR followed by "filecoin-parents", else
 * /var/tmp/filecoin-parents. CZK_EINVAL if it does not fit in `cap` bytes.
 */
CZK_API czk_status czk_parent_cache_dir(char *out, size_t cap, czk_err *err);

/** The parent-cache directory joined with the graph's file name. */
CZK_API czk_status czk_parent_cache_path(const czk_sdr_graph *g, char *out, size_t cap,
                                         czk_err *err);

/** The SHA-256 digest rust-fil-proofs' parent_cache.json records for a cache file name
 *  (with or without the directory and ".cache"), or NULL when it records none. The
 *  digest is 64 lower-case hex characters. */
CZK_API const char *czk_parent_cache_known_digest(const char *name);

/** Print a progress bar on stderr while generating. */
#define CZK_PARENT_CACHE_PROGRESS 1u

/**
 * Generate the graph's parent cache into `path`: written to a temporary file in the same
 * directory (created if missing), flushed to disk and renamed over `path`, so readers
 * never see a partial file. Parents are computed on `pool` (NULL: this thread). The
 * SHA-256 of the file goes to `digest` (may be NULL). When parent_cache.json records a
 * digest for this file name and the result differs, nothing is renamed and the call
 * returns CZK_EVERIFY. CZK_EIO on file errors.
 */
CZK_API czk_status czk_parent_cache_generate(const czk_sdr_graph *g, const char *path,
                                             czk_pool *pool, unsigned flags, uint8_t digest[32],
                                             czk_err *err);

/** The SHA-256 a parent-cache file of this graph would have, computed without writing
 *  anything (streams the parents through the hash in chunks). */
CZK_API czk_status czk_parent_cache_compute_digest(const czk_sdr_graph *g, czk_pool *pool,
                                                   unsigned flags, uint8_t digest[32],
                                                   czk_err *err);

/** SHA-256 of a whole file. CZK_ENOENT if it does not exist, CZK_EIO on read errors. */
CZK_API czk_status czk_file_sha256(const char *path, uint8_t digest[32], czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_FILECOIN_H */
