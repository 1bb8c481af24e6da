/*
 * Shared by the PoRep end-to-end tests (tests/slow/test_fil_prove_2k.c and _8m.c): a
 * sector sealed on the CPU from random data → C1 (czk_porep_c1_from_sector) → C1 JSON
 * inside cuzk's envelope → czk_fil_job → prove → verify, and the same from a synthetic C1
 * fixture (czk_porep_fixture); each proof must fail against the other job's inputs.
 */
#ifndef CZK_FIL_PROVE_POREP_H
#define CZK_FIL_PROVE_POREP_H

#include "e2e/fil_prove_util.h"

#include "czk/porep_vanilla.h"
#include "czk/sector.h"

/* The job of a C1, its JSON sent as is or inside cuzk's envelope. */
static czk_fil_job *fp_porep_job(const czk_porep_c1_output *c1, bool envelope, uint64_t sector_size)
{
    czk_err err;
    uint8_t *json = NULL, *env = NULL;
    size_t len = 0, env_len = 0;
    CHECK_STATUS(czk_porep_c1_write_json(c1, &json, &len, &err), CZK_OK);
    if (json == NULL) return NULL;
    czk_fil_job_input in;
    memset(&in, 0, sizeof in);
    in.kind = CZK_FIL_POREP;
    in.registered_proof = c1->proof;
    in.vanilla_proof = json;
    in.vanilla_proof_len = len;
    if (envelope) {
        CHECK_STATUS(czk_porep_envelope_encode(json, len, 1, sector_size, &env, &env_len, &err),
                     CZK_OK);
        in.vanilla_proof = env;
        in.vanilla_proof_len = env_len;
        in.sector_size = sector_size;
    }
    czk_fil_job *j = NULL;
    czk_status s = czk_fil_job_create(&j, &in, &err);
    CHECK_MSG(s == CZK_OK, "%s", err.msg);
    czk_free(json);
    czk_free(env);
    return j;
}

/* Prove job `j` (one partition), verify, and check the proof against the other job. */
static void fp_porep_prove_one(const czk_fil_job *j, const czk_fil_job *other, const fp_keys *k,
                               czk_pool *pool)
{
    if (j == NULL) return;
    size_t n = 0;
    czk_groth16_proof *p = fp_prove(j, k, pool, &n);
    CHECK(p != NULL && n == 1);
    if (p != NULL && other != NULL) fp_cross_check(p, n, other, k);
    czk_free(p);
}

/* The whole test for one registered proof and its circuit id ("porep-2k", ...). */
static void fp_porep_sealed_and_fixture(czk_seal_proof proof, const char *circuit_id,
                                        czk_pool *pool)
{
    fp_keys k;
    if (!fp_keys_load(&k, circuit_id, pool)) return;
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    const size_t size = (size_t)info->sector_size;
    czk_err err;

    /* A sealed sector: random data (each node a canonical Fr), miner 1000, sector 7. */
    czk_sector_seal_input si;
    memset(&si, 0, sizeof si);
    si.proof = proof;
    czk_seal_prover_id_from_actor(si.prover_id, 1000);
    si.sector_id = 7;
    czk_test_rand_bytes(si.ticket, 32);
    si.ticket[31] &= 0x3f;
    uint8_t *data = czk_malloc(size);
    czk_test_rand_bytes(data, size);
    for (size_t i = 0; i < size / 32; i++) data[32 * i + 31] &= 0x3f;
    si.data = data;
    czk_sector *sec = NULL;
    CHECK_STATUS(czk_sector_seal(&sec, &si, pool, &err), CZK_OK);
    czk_porep_c1_output *c1 = NULL, *fx = NULL;
    uint8_t seed[32];
    czk_test_rand_bytes(seed, 32);
    if (sec != NULL)
        CHECK_STATUS(czk_porep_c1_from_sector(&c1, sec, si.ticket, seed, pool, &err), CZK_OK);
    CHECK_STATUS(czk_porep_fixture(&fx, proof, czk_test_rand64(), pool, &err), CZK_OK);

    czk_fil_job *js = c1 ? fp_porep_job(c1, true, size) : NULL;
    czk_fil_job *jf = fx ? fp_porep_job(fx, false, size) : NULL;
    fp_porep_prove_one(js, jf, &k, pool);
    fp_porep_prove_one(jf, js, &k, pool);
    czk_fil_job_destroy(js);
    czk_fil_job_destroy(jf);
    czk_porep_c1_output_free(c1);
    czk_porep_c1_output_free(fx);
    czk_sector_destroy(sec);
    czk_free(data);
    fp_keys_free(&k);
}

#endif
