/*
 * Parent-cache files in rust-fil-proofs' format (storage-proofs-porep/src/stacked/
 * vanilla/cache.rs): 14 u32 LE parents per node, named by a SHA-256 over the graph's
 * identifier and Feistel keys, checked against the digests of parent_cache.json.
 */
#include "filecoin/seal/sdr_internal.h"

#include "czk/alloc.h"
#include "czk/parent_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* storage-proofs-core parameter_cache.rs VERSION: the "v28-" prefix of cache names. */
#define CACHE_VERSION 28
/* filecoin-hashers PoseidonHasher::name(): every production graph is Poseidon's. */
#define HASHER_NAME "poseidon_hasher"

/*
 * Data from upstream: filecoin-project/rust-fil-proofs storage-proofs-porep/
 * parent_cache.json at commit 87348a74 (filecoin-proofs 19.1.0), all ten entries. The
 * names were re-derived here for the proofs listed (test_sdr checks it), and the
 * digests of 2 KiB, 8 MiB (test_sdr) and 512 MiB (tests/slow/test_parent_cache_512m)
 * were reproduced by generating the files; the 32 and 64 GiB digests (56 and 112 GiB
 * files) are upstream's word only.
 */
static const struct known_cache {
    const char *name; /* file stem, without ".cache" */
    uint64_t sector_size;
    const char *digest;
} known_caches[] = {
    /* StackedDrg2KiBV1 */
    {"v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899", 2048,
     "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"},
    /* StackedDrg2KiBV1_1 */
    {"v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b", 2048,
     "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"},
    /* StackedDrg8MiBV1 */
    {"v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc", 8388608,
     "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"},
    /* StackedDrg8MiBV1_1 */
    {"v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5", 8388608,
     "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab"},
    /* StackedDrg512MiBV1 */
    {"v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42", 536870912,
     "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5"},
    /* StackedDrg512MiBV1_1 */
    {"v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34", 536870912,
     "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a"},
    /* StackedDrg32GiBV1 */
    {"v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13",
     34359738368ULL, "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6"},
    /* StackedDrg32GiBV1_1 */
    {"v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117",
     34359738368ULL, "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da"},
    /* StackedDrg64GiBV1 */
    {"v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6",
     68719476736ULL, "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c"},
    /* StackedDrg64GiBV1_1 */
    {"v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b",
     68719476736ULL, "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03"},
};

static void to_hex(char *out, const uint8_t *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

czk_status czk_parent_cache_name(const czk_sdr_graph *g, char out[CZK_PARENT_CACHE_NAME_SIZE],
                                 czk_err *err)
{
    /* StackedGraph's ParameterSetMetadata::identifier(), BucketGraph's nested in it. */
    char id[256];
    snprintf(id, sizeof id,
             "stacked_graph::StackedGraph{expansion_degree: %d base_graph: "
             "drgraph::BucketGraph{size: %llu; degree: %d; hasher: %s} }",
             CZK_SDR_EXP_DEGREE, (unsigned long long)g->nodes, CZK_SDR_DRG_DEGREE, HASHER_NAME);
    uint8_t keys[32], n_le[4];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 8; i++) keys[8 * k + i] = (uint8_t)(g->feistel_keys[k] >> (8 * i));
    for (int i = 0; i < 4; i++) n_le[i] = (uint8_t)(g->nodes >> (8 * i));
    const void *parts[4] = {HASHER_NAME, id, keys, n_le};
    const size_t lens[4] = {strlen(HASHER_NAME), strlen(id), 32, 4};
    uint8_t h[32];
    if (czk__sha256_parts(h, parts, lens, 4) != CZK_OK)
        return czk_err_set(err, CZK_EINTERNAL, "parent cache: OpenSSL SHA-256 failed");
    char hex[65];
    to_hex(hex, h, 32);
    snprintf(out, CZK_PARENT_CACHE_NAME_SIZE, "v%d-sdr-parent-%s.cache", CACHE_VERSION, hex);
    return CZK_OK;
}

czk_status czk_parent_cache_dir(const char *parent_cache, const char *cache_dir, char *out,
                                size_t cap, czk_err *err)
{
    /* rust-fil-proofs settings.rs: the `parent_cache` setting (FIL_PROOFS_PARENT_CACHE); its
     * default is cache("filecoin-parents"), i.e. the `cache_dir` setting
     * (FIL_PROOFS_CACHE_DIR, default "/var/tmp/") with the name appended as is. */
    int n;
    if (parent_cache != NULL && parent_cache[0] != '\0') {
        n = snprintf(out, cap, "%s", parent_cache);
    } else {
        const char *base = cache_dir != NULL && cache_dir[0] != '\0' ? cache_dir : "/var/tmp/";
        n = snprintf(out, cap, "%sfilecoin-parents", base);
    }
    if (n < 0 || (size_t)n >= cap)
        return czk_err_set(err, CZK_EINVAL, "parent cache directory name longer than %zu bytes",
                           cap);
    return CZK_OK;
}

czk_status czk_parent_cache_path(const czk_sdr_graph *g, const char *dir, char *out, size_t cap,
                                 czk_err *err)
{
    char name[CZK_PARENT_CACHE_NAME_SIZE];
    czk_status s = czk_parent_cache_name(g, name, err);
    if (s != CZK_OK) return s;
    if (dir == NULL) return czk_err_set(err, CZK_EINVAL, "parent cache: no directory");
    int d = snprintf(out, cap, "%s", dir);
    if (d < 0 || (size_t)d >= cap)
        return czk_err_set(err, CZK_EINVAL, "parent cache path longer than %zu bytes", cap);
    size_t len = strlen(out);
    int n = snprintf(out + len, cap - len, "%s%s", len > 0 && out[len - 1] == '/' ? "" : "/", name);
    if (n < 0 || (size_t)n >= cap - len)
        return czk_err_set(err, CZK_EINVAL, "parent cache path longer than %zu bytes", cap);
    return CZK_OK;
}

const char *czk_parent_cache_known_digest(const char *name)
{
    if (name == NULL) return NULL;
    const char *base = strrchr(name, '/');
    base = base != NULL ? base + 1 : name;
    size_t len = strlen(base);
    if (len > 6 && strcmp(base + len - 6, ".cache") == 0) len -= 6;
    for (size_t i = 0; i < sizeof known_caches / sizeof known_caches[0]; i++)
        if (strlen(known_caches[i].name) == len && memcmp(known_caches[i].name, base, len) == 0)
            return known_caches[i].digest;
    return NULL;
}

/* ---------------------------------------------------------------------------------------
 * Streaming the parents: chunks of nodes generated on the pool, each handed to a sink
 * (file write) and hashed.
 * ------------------------------------------------------------------------------------- */

/* 2^18 nodes (14.7 MB) a chunk: 64 progress steps at 512 MiB, 4096 at 32 GiB, and a
 * buffer small next to any machine that seals. */
#define CHUNK_NODES (1u << 18)

typedef czk_status (*sink_fn)(void *ctx, const uint8_t *data, size_t n, czk_err *err);

static void progress(uint64_t done, uint64_t total, double t0, bool final)
{
    enum { WIDTH = 30 };
    unsigned filled = (unsigned)(done * WIDTH / total);
    char bar[WIDTH + 1];
    for (unsigned i = 0; i < WIDTH; i++) bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\rparent cache [%s] %5.1f%%  %llu/%llu nodes  %.1f s%s", bar,
            100.0 * (double)done / (double)total, (unsigned long long)done,
            (unsigned long long)total, czk_clock_s() - t0, final ? "\n" : "");
    fflush(stderr);
}

static czk_status stream_parents(const czk_sdr_graph *g, czk_pool *pool, unsigned flags,
                                 sink_fn sink, void *sink_ctx, uint8_t digest[32], czk_err *err)
{
    uint32_t *buf = czk_malloc((size_t)CHUNK_NODES * CZK_PARENT_CACHE_ENTRY_BYTES);
    EVP_MD_CTX *sha = EVP_MD_CTX_new();
    czk_status s = CZK_OK;
    if (buf == NULL || sha == NULL) {
        s = czk_err_set(err, CZK_ENOMEM, "parent cache: no memory for a %u-node chunk",
                        CHUNK_NODES);
        goto done;
    }
    if (EVP_DigestInit_ex(sha, EVP_sha256(), NULL) != 1) {
        s = czk_err_set(err, CZK_EINTERNAL, "parent cache: OpenSSL SHA-256 failed");
        goto done;
    }
    double t0 = czk_clock_s();
    bool show = (flags & CZK_PARENT_CACHE_PROGRESS) != 0;
    for (uint64_t first = 0; first < g->nodes; first += CHUNK_NODES) {
        uint64_t count = g->nodes - first < CHUNK_NODES ? g->nodes - first : CHUNK_NODES;
        s = czk_sdr_parents_range(g, first, count, buf, pool, err);
        if (s != CZK_OK) goto done;
        size_t bytes = (size_t)count * CZK_PARENT_CACHE_ENTRY_BYTES;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        for (size_t i = 0; i < count * CZK_SDR_DEGREE; i++) buf[i] = __builtin_bswap32(buf[i]);
#endif
        if (EVP_DigestUpdate(sha, buf, bytes) != 1) {
            s = czk_err_set(err, CZK_EINTERNAL, "parent cache: OpenSSL SHA-256 failed");
            goto done;
        }
        if (sink != NULL) {
            s = sink(sink_ctx, (const uint8_t *)buf, bytes, err);
            if (s != CZK_OK) goto done;
        }
        if (show) progress(first + count, g->nodes, t0, first + count == g->nodes);
    }
    unsigned len = 0;
    uint8_t h[32];
    if (EVP_DigestFinal_ex(sha, h, &len) != 1 || len != 32) {
        s = czk_err_set(err, CZK_EINTERNAL, "parent cache: OpenSSL SHA-256 failed");
        goto done;
    }
    if (digest != NULL) memcpy(digest, h, 32);
done:
    EVP_MD_CTX_free(sha);
    czk_free(buf);
    return s;
}

czk_status czk_parent_cache_compute_digest(const czk_sdr_graph *g, czk_pool *pool, unsigned flags,
                                           uint8_t digest[32], czk_err *err)
{
    if (g == NULL || digest == NULL)
        return czk_err_set(err, CZK_EINVAL, "parent cache: NULL argument");
    return stream_parents(g, pool, flags, NULL, NULL, digest, err);
}

struct file_sink {
    int fd;
    const char *path;
};

static czk_status write_all(void *ctx, const uint8_t *data, size_t n, czk_err *err)
{
    const struct file_sink *f = ctx;
    while (n > 0) {
        ssize_t w = write(f->fd, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return czk_err_set(err, CZK_EIO, "parent cache: writing %s: %s", f->path,
                               strerror(errno));
        }
        data += w;
        n -= (size_t)w;
    }
    return CZK_OK;
}

/* mkdir -p of the directory part of `path`. */
static czk_status make_parent_dirs(const char *path, czk_err *err)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return czk_err_set(err, CZK_EINVAL, "parent cache: path too long");
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) return CZK_OK;
    *slash = '\0';
    for (char *p = dir + 1; *p != '\0'; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return czk_err_set(err, CZK_EIO, "parent cache: mkdir %s: %s", dir, strerror(errno));
        *p = '/';
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return czk_err_set(err, CZK_EIO, "parent cache: mkdir %s: %s", dir, strerror(errno));
    return CZK_OK;
}

czk_status czk_parent_cache_generate(const czk_sdr_graph *g, const char *path, czk_pool *pool,
                                     unsigned flags, uint8_t digest[32], czk_err *err)
{
    if (g == NULL || path == NULL || path[0] == '\0')
        return czk_err_set(err, CZK_EINVAL, "parent cache: NULL argument");
    char name[CZK_PARENT_CACHE_NAME_SIZE];
    czk_status s = czk_parent_cache_name(g, name, err);
    if (s != CZK_OK) return s;
    s = make_parent_dirs(path, err);
    if (s != CZK_OK) return s;

    /* The temporary file sits next to the target so that rename() is atomic. */
    size_t plen = strlen(path);
    char *tmp = czk_malloc(plen + 16);
    if (tmp == NULL) return czk_err_set(err, CZK_ENOMEM, "parent cache: out of memory");
    snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        s = czk_err_set(err, CZK_EIO, "parent cache: creating %s: %s", tmp, strerror(errno));
        czk_free(tmp);
        return s;
    }
    (void)fchmod(fd, 0644);

    uint8_t h[32];
    struct file_sink sink = {fd, tmp};
    s = stream_parents(g, pool, flags, write_all, &sink, h, err);
    if (s == CZK_OK && fsync(fd) != 0)
        s = czk_err_set(err, CZK_EIO, "parent cache: fsync %s: %s", tmp, strerror(errno));
    if (close(fd) != 0 && s == CZK_OK)
        s = czk_err_set(err, CZK_EIO, "parent cache: close %s: %s", tmp, strerror(errno));
    if (s == CZK_OK) {
        /* As rust-fil-proofs does after generating: a file whose digest parent_cache.json
         * records must match it, or it is not installed. */
        const char *want = czk_parent_cache_known_digest(name);
        char hex[65];
        to_hex(hex, h, 32);
        if (want != NULL && strcmp(want, hex) != 0)
            s = czk_err_set(err, CZK_EVERIFY,
                            "parent cache: generated digest %s differs from %s recorded in "
                            "parent_cache.json for %s",
                            hex, want, name);
    }
    if (s == CZK_OK && rename(tmp, path) != 0)
        s = czk_err_set(err, CZK_EIO, "parent cache: rename %s to %s: %s", tmp, path,
                        strerror(errno));
    if (s != CZK_OK) {
        unlink(tmp);
    } else {
        /* Make the rename itself durable. */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash == NULL)
            snprintf(dir, sizeof dir, ".");
        else
            slash[slash == dir ? 1 : 0] = '\0';
        int dfd = open(dir, O_RDONLY | O_DIRECTORY);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
        if (digest != NULL) memcpy(digest, h, 32);
    }
    czk_free(tmp);
    return s;
}

czk_status czk_parent_cache_file_digest(const char *path, uint8_t digest[32], czk_err *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return czk_err_set(err, errno == ENOENT ? CZK_ENOENT : CZK_EIO, "%s: %s", path,
                           strerror(errno));
    enum { BUF = 1 << 20 };
    uint8_t *buf = czk_malloc(BUF);
    EVP_MD_CTX *sha = EVP_MD_CTX_new();
    czk_status s = CZK_OK;
    if (buf == NULL || sha == NULL || EVP_DigestInit_ex(sha, EVP_sha256(), NULL) != 1) {
        s = czk_err_set(err, CZK_ENOMEM, "sha256 %s: out of memory", path);
        goto done;
    }
    for (;;) {
        ssize_t r = read(fd, buf, BUF);
        if (r < 0) {
            if (errno == EINTR) continue;
            s = czk_err_set(err, CZK_EIO, "reading %s: %s", path, strerror(errno));
            goto done;
        }
        if (r == 0) break;
        if (EVP_DigestUpdate(sha, buf, (size_t)r) != 1) {
            s = czk_err_set(err, CZK_EINTERNAL, "sha256 %s: OpenSSL failed", path);
            goto done;
        }
    }
    unsigned len = 0;
    if (EVP_DigestFinal_ex(sha, digest, &len) != 1 || len != 32)
        s = czk_err_set(err, CZK_EINTERNAL, "sha256 %s: OpenSSL failed", path);
done:
    EVP_MD_CTX_free(sha);
    czk_free(buf);
    close(fd);
    return s;
}
