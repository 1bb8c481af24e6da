/*
 * czk — Filecoin's parent-cache files of an SDR graph (rust-fil-proofs
 * storage-proofs-porep stacked/vanilla/cache.rs).
 *
 * Parent-cache files, as rust-fil-proofs writes and reads them: for every node its 14
 * parents as u32 little-endian (56 bytes a node), in a file named
 * "v28-sdr-parent-<hex SHA-256(\"poseidon_hasher\" ‖ graph identifier ‖ Feistel keys as
 * u64 LE ‖ nodes as u32 LE)>.cache" inside the parent-cache directory.
 */
#ifndef CZK_PARENT_CACHE_H
#define CZK_PARENT_CACHE_H

#include "czk/common.h"
#include "czk/pool.h"
#include "czk/sdr.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Length of a parent-cache file name, including the terminating NUL. */
#define CZK_PARENT_CACHE_NAME_SIZE 86

/** Bytes of one node's entry in a parent-cache file. */
#define CZK_PARENT_CACHE_ENTRY_BYTES (CZK_SDR_DEGREE * 4)

/** The file name ("v28-sdr-parent-….cache") of a graph's parent cache. */
CZK_API czk_status czk_parent_cache_name(const czk_sdr_graph *g,
                                         char out[CZK_PARENT_CACHE_NAME_SIZE], czk_err *err);

/**
 * The parent-cache directory, as rust-fil-proofs resolves it from its two settings (which
 * a program reads from $FIL_PROOFS_PARENT_CACHE and $FIL_PROOFS_CACHE_DIR where it starts;
 * NULL or empty: unset): parent_cache, else cache_dir followed by "filecoin-parents",
 * else /var/tmp/filecoin-parents. CZK_EINVAL if it does not fit in `cap` bytes.
 */
CZK_API czk_status czk_parent_cache_dir(const char *parent_cache, const char *cache_dir,
                                        char *out, size_t cap, czk_err *err);

/** Directory `dir` (czk_parent_cache_dir) joined with the graph's file name. */
CZK_API czk_status czk_parent_cache_path(const czk_sdr_graph *g, const char *dir, char *out,
                                         size_t cap, czk_err *err);

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

/** The SHA-256 of a parent-cache file (of any file) on disk, to compare with
 *  czk_parent_cache_known_digest. CZK_ENOENT if it does not exist, CZK_EIO on read
 *  errors. */
CZK_API czk_status czk_parent_cache_file_digest(const char *path, uint8_t digest[32], czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_PARENT_CACHE_H */
