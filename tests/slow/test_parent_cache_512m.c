/*
 * The 512 MiB parent caches (16,777,216 nodes, 896 MiB files), V1 and V1_1, generated
 * into a scratch directory with every CPU and compared with the SHA-256 digests that
 * rust-fil-proofs' storage-proofs-porep/parent_cache.json records (commit 87348a74).
 * The file is read back and hashed again, so the check covers what reached the disk.
 * Needs ~0.9 GB free in $TMPDIR (default /tmp); prints the generation time.
 */
#include "czk/parent_cache.h"
#include "czk/pool.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"
#include "czk_test.h"

#include <sys/stat.h>
#include <unistd.h>

static czk_pool *pool;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check_proof(czk_seal_proof proof, const char *want_name, const char *want_digest)
{
    czk_err err;
    czk_sdr_graph *g = NULL;
    czk_status s = czk_sdr_graph_create_for_proof(&g, proof, &err);
    CHECK_MSG(s == CZK_OK, "%s", err.msg);
    if (g == NULL) return;
    char name[CZK_PARENT_CACHE_NAME_SIZE];
    CHECK_STATUS(czk_parent_cache_name(g, name, NULL), CZK_OK);
    CHECK_MSG(strncmp(name, want_name, strlen(want_name)) == 0, "%s", name);

    const char *tmp = getenv("TMPDIR");
    char dir[512], path[768];
    snprintf(dir, sizeof dir, "%s/czk-test-pc512-XXXXXX", tmp != NULL ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        CHECK_MSG(0, "mkdtemp %s failed", dir);
        czk_sdr_graph_destroy(g);
        return;
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);

    uint8_t d[32], f[32];
    double t0 = now_s();
    s = czk_parent_cache_generate(g, path, pool, 0, d, &err);
    double secs = now_s() - t0;
    CHECK_MSG(s == CZK_OK, "%s", err.msg);
    char hex[65];
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
    CHECK_MSG(strcmp(hex, want_digest) == 0, "%s", hex);
    printf("  %s: generated %s in %.2f s on %u threads\n", czk_seal_proof_name(proof), name, secs,
           czk_pool_size(pool));

    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == (off_t)(16777216ULL * 56));
    CHECK_STATUS(czk_parent_cache_file_digest(path, f, NULL), CZK_OK);
    CHECK(memcmp(d, f, 32) == 0);
    unlink(path);
    CHECK(rmdir(dir) == 0);
    czk_sdr_graph_destroy(g);
}

static void test_512m_v1(void)
{
    check_proof(CZK_SEAL_StackedDrg512MiBV1,
                "v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42",
                "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5");
}

static void test_512m_v1_1(void)
{
    check_proof(CZK_SEAL_StackedDrg512MiBV1_1,
                "v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34",
                "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a");
}

int main(void)
{
    czk_test_seed();
    if (czk_pool_create(&pool, 0, NULL) != CZK_OK) return 1;
    RUN(test_512m_v1);
    RUN(test_512m_v1_1);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
