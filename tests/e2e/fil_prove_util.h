/*
 * Shared by the Filecoin end-to-end proving tests (tests/e2e/test_fil_prove.c,
 * tests/slow/test_fil_prove_*.c): czk test parameters generated once into the build
 * tree, and one job proven and verified the way the engine does it — every partition
 * synthesized in EVAL mode straight into the prover's buffers, czk_groth16_prove_batch
 * over the partitions, each proof written as its 192 bytes, read back and verified
 * against the job's public inputs with the verifying key read from the .vk file.
 */
#ifndef CZK_FIL_PROVE_UTIL_H
#define CZK_FIL_PROVE_UTIL_H

#include "czk_test.h"

#include "czk/alloc.h"
#include "czk/fil_job.h"
#include "czk/groth16.h"

#include <sys/stat.h>
#include <time.h>

static double fp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Test parameters live in the build tree so that later runs reuse them
 * ($CZK_FIL_TEST_PARAMS overrides the directory). */
static const char *fp_param_dir(void)
{
    const char *env = getenv("CZK_FIL_TEST_PARAMS");
    return env != NULL && env[0] ? env : CZK_BINARY_DIR "/fil-test-params";
}

typedef struct fp_keys {
    czk_groth16_params pk;
    czk_groth16_vk vk; /* read from the .vk file, not taken from pk */
    czk_groth16_pvk pvk;
    bool ok;
} fp_keys;

/* Generate (first run only) and load the test parameters of a circuit. */
static bool fp_keys_load(fp_keys *k, const char *circuit_id, czk_pool *pool)
{
    czk_err err;
    memset(k, 0, sizeof *k);
    const char *dir = fp_param_dir(), *name = NULL;
    CHECK_STATUS(czk_fil_circuit_lookup(circuit_id, NULL, NULL, &name, &err), CZK_OK);
    if (name == NULL) return false;
    bool gen = false;
    double t0 = fp_now();
    czk_status s = czk_fil_test_params_generate(circuit_id, dir, false, pool, NULL, NULL, &gen, &err);
    CHECK_MSG(s == CZK_OK, "%s: %s", circuit_id, err.msg);
    if (s != CZK_OK) return false;
    if (gen) printf("  %s: generated test parameters in %.1f s\n", circuit_id, fp_now() - t0);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.params", dir, name);
    t0 = fp_now();
    s = czk_groth16_params_read_file(&k->pk, path, false, pool, &err);
    CHECK_MSG(s == CZK_OK, "%s: %s", path, err.msg);
    if (s != CZK_OK) return false;
    printf("  %s: loaded %s.params (2^%u domain) in %.1f s\n", circuit_id, name, k->pk.log_m,
           fp_now() - t0);
    snprintf(path, sizeof path, "%s/%s.vk", dir, name);
    s = czk_groth16_vk_read_file(&k->vk, path, &err);
    CHECK_MSG(s == CZK_OK, "%s: %s", path, err.msg);
    if (s != CZK_OK) {
        czk_groth16_params_free(&k->pk);
        return false;
    }
    czk_groth16_prepare_vk(&k->pvk, &k->vk);
    k->ok = true;
    return true;
}

static void fp_keys_free(fp_keys *k)
{
    if (!k->ok) return;
    czk_groth16_params_free(&k->pk);
    czk_groth16_vk_free(&k->vk);
    k->ok = false;
}

/* One partition's prover buffers. */
typedef struct fp_part {
    czk_fr *in, *aux, *a, *b, *c;
    uint64_t *da, *dbi, *dba;
    size_t n_rows;
} fp_part;

/*
 * Prove every partition of `j` and verify each proof with its public inputs. Returns the
 * proofs (czk_malloc'd, `*n` of them) for further checks, or NULL on failure.
 */
static czk_groth16_proof *fp_prove(const czk_fil_job *j, const fp_keys *k, czk_pool *pool,
                                   size_t *n_out)
{
    czk_err err;
    const size_t P = czk_fil_job_partitions(j);
    const size_t m = (size_t)1 << k->pk.log_m;
    czk_cs_counts cnt;
    czk_fil_job_counts(j, &cnt);
    CHECK(cnt.n_inputs == k->vk.ic_len);
    CHECK(cnt.n_aux == k->pk.n_aux);
    fp_part *parts = czk_calloc(P, sizeof *parts);
    czk_groth16_assignment *asg = czk_calloc(P, sizeof *asg);
    czk_groth16_proof *proofs = czk_calloc(P, sizeof *proofs);
    bool ok = parts && asg && proofs;
    double t0 = fp_now();
    for (size_t p = 0; ok && p < P; p++) {
        fp_part *x = &parts[p];
        size_t wa = (cnt.n_aux + 63) / 64, wi = (cnt.n_inputs + 63) / 64;
        x->in = czk_malloc(cnt.n_inputs * sizeof(czk_fr));
        x->aux = czk_malloc(cnt.n_aux * sizeof(czk_fr));
        x->a = czk_malloc(m * sizeof(czk_fr));
        x->b = czk_malloc(m * sizeof(czk_fr));
        x->c = czk_malloc(m * sizeof(czk_fr));
        x->da = czk_calloc(wa, 8);
        x->dbi = czk_calloc(wi, 8);
        x->dba = czk_calloc(wa, 8);
        czk_cs_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.mode = CZK_CS_EVAL;
        cfg.buf = (czk_cs_buffers){x->in, cnt.n_inputs, x->aux, cnt.n_aux, x->a, x->b, x->c, m};
        czk_cs *cs = NULL;
        CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
        czk_status s = czk_fil_job_synthesize(j, p, cs, &err);
        CHECK_MSG(s == CZK_OK, "synthesize %zu: %s", p, err.msg);
        s = czk_cs_finish(cs, &err);
        CHECK_MSG(s == CZK_OK, "finish %zu: %s", p, err.msg);
        czk_cs_counts got;
        czk_cs_get_counts(cs, &got);
        CHECK(memcmp(&got, &cnt, sizeof got) == 0);
        czk_cs_get_densities(cs, x->da, x->dbi, x->dba);
        czk_cs_destroy(cs);
        x->n_rows = got.n_constraints;
        asg[p] = (czk_groth16_assignment){x->in, x->aux, x->a, x->b, x->c, x->n_rows,
                                          x->da, x->dbi, x->dba};
        ok = s == CZK_OK;
        /* The witness's inputs are exactly the job's public inputs. */
        czk_fr *pub = czk_malloc(cnt.n_inputs * sizeof *pub);
        size_t np = 0;
        CHECK_STATUS(czk_fil_job_public_inputs(j, p, pub, cnt.n_inputs, &np, &err), CZK_OK);
        CHECK(np + 1 == cnt.n_inputs && czk_fr_is_one(&x->in[0]));
        CHECK_MSG(memcmp(pub, x->in + 1, np * sizeof *pub) == 0, "partition %zu: inputs differ", p);
        czk_free(pub);
    }
    double t1 = fp_now();
    czk_groth16_timings tm;
    memset(&tm, 0, sizeof tm);
    if (ok) {
        czk_status s = czk_groth16_prove_batch(proofs, &k->pk, asg, P, NULL, NULL, pool, &tm, &err);
        CHECK_MSG(s == CZK_OK, "prove: %s", err.msg);
        ok = s == CZK_OK;
    }
    double t2 = fp_now();
    printf("  %s: %zu partition(s), %llu constraints: synthesis %.2f s, prove %.2f s "
           "(ntt %.2f, msm h %.2f l %.2f a %.2f b1 %.2f b2 %.2f)\n",
           czk_fil_job_circuit_id(j), P, (unsigned long long)cnt.n_constraints, t1 - t0, t2 - t1,
           tm.ntt, tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b_g1, tm.msm_b_g2);

    /* Each proof as bytes, read back, verified with the job's inputs; a changed input
     * fails. */
    size_t ni = cnt.n_inputs - 1;
    czk_fr *pub = czk_malloc(cnt.n_inputs * sizeof *pub);
    for (size_t p = 0; ok && p < P; p++) {
        uint8_t bytes[CZK_GROTH16_PROOF_SIZE];
        czk_groth16_proof_write(bytes, &proofs[p]);
        czk_groth16_proof back;
        CHECK_STATUS(czk_groth16_proof_read(&back, bytes, &err), CZK_OK);
        size_t np = 0;
        CHECK_STATUS(czk_fil_job_public_inputs(j, p, pub, cnt.n_inputs, &np, &err), CZK_OK);
        czk_status s = czk_groth16_verify(&k->pvk, &back, pub, ni, &err);
        CHECK_MSG(s == CZK_OK, "%s partition %zu does not verify: %s", czk_fil_job_circuit_id(j),
                  p, err.msg);
        ok = s == CZK_OK;
        czk_fr_add(&pub[ni - 1], &pub[ni - 1], &CZK_FR_ONE);
        CHECK_STATUS(czk_groth16_verify(&k->pvk, &back, pub, ni, &err), CZK_EVERIFY);
        proofs[p] = back;
    }
    czk_free(pub);
    for (size_t p = 0; parts != NULL && p < P; p++) {
        fp_part *x = &parts[p];
        czk_free(x->in);
        czk_free(x->aux);
        czk_free(x->a);
        czk_free(x->b);
        czk_free(x->c);
        czk_free(x->da);
        czk_free(x->dbi);
        czk_free(x->dba);
    }
    czk_free(parts);
    czk_free(asg);
    if (!ok) {
        czk_free(proofs);
        return NULL;
    }
    *n_out = P;
    return proofs;
}

/* Verify proofs of one job against another job's public inputs: must fail, not crash. */
static void fp_cross_check(const czk_groth16_proof *proofs, size_t n, const czk_fil_job *other,
                           const fp_keys *k)
{
    czk_err err;
    czk_cs_counts cnt;
    czk_fil_job_counts(other, &cnt);
    czk_fr *pub = czk_malloc(cnt.n_inputs * sizeof *pub);
    for (size_t p = 0; p < n && p < czk_fil_job_partitions(other); p++) {
        size_t np = 0;
        CHECK_STATUS(czk_fil_job_public_inputs(other, p, pub, cnt.n_inputs, &np, &err), CZK_OK);
        CHECK_STATUS(czk_groth16_verify(&k->pvk, &proofs[p], pub, np, &err), CZK_EVERIFY);
    }
    czk_free(pub);
}

#endif /* CZK_FIL_PROVE_UTIL_H */
