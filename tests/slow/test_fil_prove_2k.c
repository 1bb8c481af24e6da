/*
 * End to end on the CPU, PoRep C2 and SnapDeals at 2 KiB (label slow: their test
 * parameters take minutes to generate on two cores the first time; they are then kept in
 * the build tree and a run takes about a minute):
 *   - PoRep from a 2 KiB sector sealed on the CPU: czk_sector_seal → C1
 *     (czk_porep_c1_from_sector) → C1 JSON inside cuzk's envelope → czk_fil_job →
 *     prove → verify; and from a synthetic C1 fixture (czk_porep_fixture);
 *   - SnapDeals from a synthetic update (czk_snap_fixture_create), bincode partition
 *     proofs as cuzk receives them.
 * Each proof is 192 bytes, verifies with the job's public inputs and the .vk file, and
 * fails against another request's inputs or with one input changed.
 */
#include "e2e/fil_prove_porep.h"
#include "czk/snap_vanilla.h"

static czk_pool *pool;

static void test_porep_2k(void)
{
    fp_porep_sealed_and_fixture(CZK_SEAL_StackedDrg2KiBV1_1, "porep-2k", pool);
}

static czk_fil_job *snap_job(const czk_snap_fixture *f)
{
    czk_err err;
    size_t P = f->npartitions;
    uint8_t **bufs = czk_calloc(P, sizeof *bufs);
    size_t *lens = czk_calloc(P, sizeof *lens);
    for (size_t k = 0; k < P; k++)
        CHECK_STATUS(czk_snap_partition_proof_write(f->partitions[k], &bufs[k], &lens[k], &err),
                     CZK_OK);
    czk_fil_job_input in;
    memset(&in, 0, sizeof in);
    in.kind = CZK_FIL_SNAP;
    in.registered_proof = f->update_proof;
    in.vanilla_proofs = (const uint8_t *const *)bufs;
    in.vanilla_proof_lens = lens;
    in.n_vanilla_proofs = P;
    in.comm_r_old = f->comms.comm_r_old;
    in.comm_r_new = f->comms.comm_r_new;
    in.comm_d_new = f->comms.comm_d_new;
    in.comm_r_old_len = in.comm_r_new_len = in.comm_d_new_len = 32;
    czk_fil_job *j = NULL;
    czk_status s = czk_fil_job_create(&j, &in, &err);
    CHECK_MSG(s == CZK_OK, "%s", err.msg);
    for (size_t k = 0; k < P; k++) czk_free(bufs[k]);
    czk_free(bufs);
    czk_free(lens);
    return j;
}

static void test_snap_2k(void)
{
    fp_keys k;
    if (!fp_keys_load(&k, "snap-2k", pool)) return;
    czk_err err;
    czk_snap_fixture *f1 = NULL, *f2 = NULL;
    CHECK_STATUS(czk_snap_fixture_create(&f1, 2048, czk_test_rand64(), &err), CZK_OK);
    CHECK_STATUS(czk_snap_fixture_create(&f2, 2048, czk_test_rand64(), &err), CZK_OK);
    czk_fil_job *j1 = f1 ? snap_job(f1) : NULL, *j2 = f2 ? snap_job(f2) : NULL;
    if (j1 != NULL) {
        CHECK(strcmp(czk_fil_job_circuit_id(j1), "snap-2k") == 0);
        size_t n = 0;
        czk_groth16_proof *p = fp_prove(j1, &k, pool, &n);
        CHECK(p != NULL && n == 1);
        if (p != NULL && j2 != NULL) fp_cross_check(p, n, j2, &k);
        czk_free(p);
    }
    czk_fil_job_destroy(j1);
    czk_fil_job_destroy(j2);
    czk_snap_fixture_destroy(f1);
    czk_snap_fixture_destroy(f2);
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
    RUN(test_porep_2k);
    RUN(test_snap_2k);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
