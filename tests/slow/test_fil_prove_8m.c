/*
 * End to end on the CPU, PoRep C2 at 8 MiB (label slow: the test parameters take many
 * minutes to generate on two cores the first time and are then kept in the build tree):
 * an 8 MiB sector sealed on the CPU (czk_sector_seal) → C1 (czk_porep_c1_from_sector) →
 * C1 JSON inside cuzk's envelope → czk_fil_job → prove → verify, and the same from a
 * synthetic C1 fixture (czk_porep_fixture); each proof fails against the other's inputs.
 */
#include "e2e/fil_prove_util.h"

#include "czk/porep_vanilla.h"
#include "czk/seal.h"

static czk_pool *pool;

static czk_fil_job *porep_job_from_c1(const czk_c1_output *c1, bool envelope)
{
    czk_err err;
    uint8_t *json = NULL, *env = NULL;
    size_t len = 0, env_len = 0;
    CHECK_STATUS(czk_c1_write_json(c1, &json, &len, &err), CZK_OK);
    if (json == NULL) return NULL;
    czk_fil_job_input in;
    memset(&in, 0, sizeof in);
    in.kind = CZK_FIL_POREP;
    in.registered_proof = c1->proof;
    in.vanilla_proof = json;
    in.vanilla_proof_len = len;
    if (envelope) {
        CHECK_STATUS(czk_cuzk_envelope_encode(json, len, 1, 8 << 20, &env, &env_len, &err), CZK_OK);
        in.vanilla_proof = env;
        in.vanilla_proof_len = env_len;
        in.sector_size = 8 << 20;
    }
    czk_fil_job *j = NULL;
    czk_status s = czk_fil_job_create(&j, &in, &err);
    CHECK_MSG(s == CZK_OK, "%s", err.msg);
    czk_free(json);
    czk_free(env);
    return j;
}

static void test_porep_8m(void)
{
    fp_keys k;
    if (!fp_keys_load(&k, "porep-8m", pool)) return;
    czk_err err;

    /* A sealed sector: random data, miner 1000, sector 7. */
    czk_seal_input si;
    memset(&si, 0, sizeof si);
    si.proof = CZK_SEAL_StackedDrg8MiBV1_1;
    czk_prover_id_from_actor(si.prover_id, 1000);
    si.sector_id = 7;
    czk_test_rand_bytes(si.ticket, 32);
    si.ticket[31] &= 0x3f;
    const size_t size = 8 << 20;
    uint8_t *data = czk_malloc(size);
    czk_test_rand_bytes(data, size);
    for (size_t i = 0; i < size / 32; i++) data[32 * i + 31] &= 0x3f;
    si.data = data;
    czk_sector *sec = NULL;
    CHECK_STATUS(czk_sector_seal(&sec, &si, pool, &err), CZK_OK);
    czk_c1_output *c1 = NULL, *fx = NULL;
    uint8_t seed[32];
    czk_test_rand_bytes(seed, 32);
    if (sec != NULL)
        CHECK_STATUS(czk_porep_c1_from_sector(&c1, sec, si.ticket, seed, pool, &err), CZK_OK);
    CHECK_STATUS(czk_porep_fixture(&fx, CZK_SEAL_StackedDrg8MiBV1_1, czk_test_rand64(), pool, &err),
                 CZK_OK);

    czk_fil_job *js = c1 ? porep_job_from_c1(c1, true) : NULL;
    czk_fil_job *jf = fx ? porep_job_from_c1(fx, false) : NULL;
    if (js != NULL) {
        size_t n = 0;
        czk_groth16_proof *p = fp_prove(js, &k, pool, &n);
        CHECK(p != NULL && n == 1);
        if (p != NULL && jf != NULL) fp_cross_check(p, n, jf, &k);
        czk_free(p);
    }
    if (jf != NULL) {
        size_t n = 0;
        czk_groth16_proof *p = fp_prove(jf, &k, pool, &n);
        CHECK(p != NULL && n == 1);
        if (p != NULL && js != NULL) fp_cross_check(p, n, js, &k);
        czk_free(p);
    }
    czk_fil_job_destroy(js);
    czk_fil_job_destroy(jf);
    czk_c1_output_free(c1);
    czk_c1_output_free(fx);
    czk_sector_destroy(sec);
    czk_free(data);
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
    RUN(test_porep_8m);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
