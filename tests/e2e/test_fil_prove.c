/*
 * End to end on the CPU, Proof-of-Spacetime at 2 KiB: vanilla proofs as cuzk receives
 * them (bincode FallbackPoStSectorProof bytes) → czk_fil_job → EVAL synthesis →
 * czk_groth16_prove_batch with czk test parameters (generated into the build tree on the
 * first run, reused after) → 192-byte proofs verified with the public inputs of
 * FallbackPoStCompound::generate_public_inputs and the .vk file. A proof checked against
 * another request's inputs, or with one input changed, fails verification.
 *
 * The PoRep and SnapDeals circuits (2.7 M and 1.7 M constraints at 2 KiB) take minutes
 * to set up on two cores: they are proven in tests/slow/test_fil_prove_2k.c.
 */
#include "e2e/fil_prove_util.h"

#include "czk/post_vanilla.h"

static czk_pool *pool;

typedef struct post_req {
    czk_post_fixture *f;
    uint8_t **bufs;
    size_t *lens;
    czk_fil_job_input in;
} post_req;

static bool post_req_make(post_req *r, czk_post_proof proof, uint64_t seed, size_t nsectors)
{
    czk_err err;
    memset(r, 0, sizeof *r);
    CHECK_STATUS(czk_post_fixture_create(&r->f, proof, seed, nsectors, &err), CZK_OK);
    if (r->f == NULL) return false;
    r->bufs = czk_calloc(r->f->nsectors, sizeof *r->bufs);
    r->lens = czk_calloc(r->f->nsectors, sizeof *r->lens);
    for (size_t i = 0; i < r->f->nsectors; i++)
        CHECK_STATUS(czk_post_fallback_proof_write(r->f->sectors[i].id, r->f->sectors[i].comm_r,
                                                   r->f->proofs[i], &r->bufs[i], &r->lens[i], &err),
                     CZK_OK);
    r->in.kind = r->f->winning ? CZK_FIL_WINNING : CZK_FIL_WPOST;
    r->in.registered_proof = proof;
    r->in.vanilla_proofs = (const uint8_t *const *)r->bufs;
    r->in.vanilla_proof_lens = r->lens;
    r->in.n_vanilla_proofs = r->f->nsectors;
    r->in.randomness = r->f->randomness;
    r->in.randomness_len = 32;
    r->in.miner_id = r->f->miner_id;
    r->in.partition_index = (uint32_t)r->f->partition_index;
    return true;
}

static void post_req_free(post_req *r)
{
    for (size_t i = 0; r->f != NULL && i < r->f->nsectors; i++) czk_free(r->bufs[i]);
    czk_free(r->bufs);
    czk_free(r->lens);
    czk_post_fixture_destroy(r->f);
}

/* Prove one request of `proof` with `nsectors` sectors, and cross-check it against a
 * second request's inputs. */
static void prove_post(const fp_keys *k, czk_post_proof proof, const char *id, size_t nsectors)
{
    post_req r1, r2;
    if (post_req_make(&r1, proof, czk_test_rand64(), nsectors) &&
        post_req_make(&r2, proof, czk_test_rand64(), nsectors)) {
        czk_err err;
        czk_fil_job *j1 = NULL, *j2 = NULL;
        CHECK_STATUS(czk_fil_job_create(&j1, &r1.in, &err), CZK_OK);
        CHECK_STATUS(czk_fil_job_create(&j2, &r2.in, &err), CZK_OK);
        if (j1 != NULL && j2 != NULL) {
            CHECK(strcmp(czk_fil_job_circuit_id(j1), id) == 0);
            size_t n = 0;
            czk_groth16_proof *proofs = fp_prove(j1, k, pool, &n);
            CHECK(proofs != NULL && n == 1);
            if (proofs != NULL) fp_cross_check(proofs, n, j2, k);
            czk_free(proofs);
        }
        czk_fil_job_destroy(j1);
        czk_fil_job_destroy(j2);
    }
    post_req_free(&r1);
    post_req_free(&r2);
}

/* The .meta and .vk files are what rust-fil-proofs writes: CacheEntryMetadata's JSON and
 * a VerifyingKey of 868 + 96·ic_len bytes (docs/formats.md §2, §3.2). */
static void check_files(const char *id, uint64_t sector_size, size_t ic_len)
{
    const char *name = NULL;
    czk_err err;
    CHECK_STATUS(czk_fil_circuit_lookup(id, NULL, NULL, &name, &err), CZK_OK);
    if (name == NULL) return;
    char path[4096], want[64], got[64] = {0};
    snprintf(path, sizeof path, "%s/%s.meta", fp_param_dir(), name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f != NULL) {
        size_t n = fread(got, 1, sizeof got - 1, f);
        fclose(f);
        snprintf(want, sizeof want, "{\"sector_size\":%llu}", (unsigned long long)sector_size);
        CHECK_MSG(n == strlen(want) && strcmp(got, want) == 0, "%s: '%s'", path, got);
    }
    snprintf(path, sizeof path, "%s/%s.vk", fp_param_dir(), name);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (size_t)st.st_size == 868 + 96 * ic_len);
}

static void test_wpost_2k(void)
{
    fp_keys k;
    if (!fp_keys_load(&k, "wpost-2k", pool)) return;
    check_files("wpost-2k", 2048, 23);
    /* A full partition (2 sectors), then one sector in it: the circuit repeats it. */
    prove_post(&k, CZK_POST_StackedDrgWindow2KiBV1_2, "wpost-2k", 0);
    prove_post(&k, CZK_POST_StackedDrgWindow2KiBV1_2, "wpost-2k", 1);
    fp_keys_free(&k);
}

static void test_winning_2k(void)
{
    fp_keys k;
    if (!fp_keys_load(&k, "winning-2k", pool)) return;
    check_files("winning-2k", 2048, 133);
    prove_post(&k, CZK_POST_StackedDrgWinning2KiBV1, "winning-2k", 3);
    fp_keys_free(&k);
}

int main(void)
{
    czk_test_seed();
    czk_err err;
    if (czk_pool_create(&pool, 0, &err) != CZK_OK) {
        fprintf(stderr, "pool: %s\n", err.msg);
        return 1;
    }
    RUN(test_wpost_2k);
    RUN(test_winning_2k);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
