/*
 * Test parameters made straight into a GPU-resident SRS (czk_groth16_setup_circuit with
 * GPUs; czk_gpu_srs_create_empty + czk_gpu_srs_fixed_base): for random circuits of 2^12
 * to 2^16 rows, the same seed made on the host (CPU fixed-base, CZK__FIXED_BASE_CPU) and
 * on the GPU gives the same keys, every section downloaded from the SRS equal to the host
 * arrays byte for byte (on every listed GPU); the GPU params keep no points on the host;
 * a proof made on the GPU with that SRS verifies and equals the CPU prover's proof with
 * the host keys for the same r and s. Also the SRS calls' argument checks.
 */
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "czk_test.h"
#include "groth16/fixed_base.h"
#include "unit/setup_circuit.h"

static czk_pool *pool;

/* Section `sec` of srs equals the host array `host` of n points. */
static bool section_equal(const czk_gpu_srs *srs, czk_groth16_section sec, const void *host,
                          size_t n, size_t elem)
{
    void *buf = czk_malloc((n ? n : 1) * elem);
    czk_err err;
    bool ok = buf != NULL &&
              czk_gpu_srs_download(srs, sec, 0, n, buf, &err) == CZK_OK &&
              memcmp(buf, host, n * elem) == 0;
    if (!ok) fprintf(stderr, "  SRS section %d differs from the host keys\n", (int)sec);
    czk_free(buf);
    return ok;
}

static void gpu_equals_host(uint32_t n_pub, uint32_t n_mul)
{
    czk_fr pub[8];
    for (uint32_t i = 0; i < n_pub && i < 8; i++) {
        uint64_t s = czk_test_rand64();
        fr_of(&pub[i], &s);
    }
    struct rc x = {czk_test_rand64(), n_pub, 5, n_mul, pub};
    uint8_t seed[32];
    czk_test_rand_bytes(seed, sizeof seed);
    czk_err err;

    /* Host keys with the CPU's fixed-base: an independent implementation of the points. */
    czk__fixed_base_set_where(CZK__FIXED_BASE_CPU);
    czk_groth16_setup_opts o;
    memset(&o, 0, sizeof o);
    o.seed = seed;
    czk_groth16_params host;
    CHECK_STATUS(czk_groth16_setup_circuit(&host, rand_circuit, &x, &o, pool, NULL, NULL, &err),
                 CZK_OK);
    czk__fixed_base_set_where(CZK__FIXED_BASE_AUTO);

    int gpus[2] = {0, 1};
    czk_gpu_srs *srs[2] = {NULL, NULL};
    o.gpus = gpus;
    o.ngpus = czk_gpu_count() >= 2 ? 2 : 1;
    o.srs_out = srs;
    czk_groth16_params dev;
    czk_status st = czk_groth16_setup_circuit(&dev, rand_circuit, &x, &o, pool, NULL, NULL, &err);
    CHECK_MSG(st == CZK_OK, "%s", err.msg);
    if (st != CZK_OK) {
        czk_groth16_params_free(&host);
        return;
    }
    CHECK(dev.h == NULL && dev.l == NULL && dev.a == NULL && dev.b_g1 == NULL &&
          dev.b_g2 == NULL);
    CHECK(dev.h_len == host.h_len && dev.l_len == host.l_len && dev.a_len == host.a_len &&
          dev.b_g1_len == host.b_g1_len && dev.b_g2_len == host.b_g2_len &&
          dev.log_m == host.log_m && dev.n_inputs == host.n_inputs && dev.n_aux == host.n_aux);
    CHECK(vk_equal(&dev.vk, &host.vk));
    for (size_t g = 0; g < o.ngpus; g++) {
        CHECK(srs[g] != NULL && czk_gpu_srs_gpu(srs[g]) == gpus[g]);
        CHECK(section_equal(srs[g], CZK_G16_H, host.h, host.h_len, sizeof *host.h));
        CHECK(section_equal(srs[g], CZK_G16_L, host.l, host.l_len, sizeof *host.l));
        CHECK(section_equal(srs[g], CZK_G16_A, host.a, host.a_len, sizeof *host.a));
        CHECK(section_equal(srs[g], CZK_G16_B_G1, host.b_g1, host.b_g1_len,
                            sizeof *host.b_g1));
        CHECK(section_equal(srs[g], CZK_G16_B_G2, host.b_g2, host.b_g2_len,
                            sizeof *host.b_g2));
    }

    /* Prove on the GPU with the made SRS (no host points), and on the CPU with the host
     * keys, for the same r and s. */
    struct setup_eval e;
    setup_eval(&e, &host, &x);
    czk_fr r, s;
    uint64_t sd = czk_test_rand64();
    fr_of(&r, &sd);
    fr_of(&s, &sd);
    czk_groth16_proof p_gpu, p_cpu;
    st = czk_gpu_prove(&p_gpu, gpus[0], &dev, srs[0], &e.asg, &r, &s, pool, NULL, &err);
    CHECK_MSG(st == CZK_OK, "%s", err.msg);
    setup_eval_free(&e);
    setup_eval(&e, &host, &x); /* the prover overwrote a, b, c */
    CHECK_STATUS(czk_groth16_prove(&p_cpu, &host, &e.asg, &r, &s, pool, NULL, &err), CZK_OK);
    uint8_t b1[192], b2[192];
    czk_groth16_proof_write(b1, &p_gpu);
    czk_groth16_proof_write(b2, &p_cpu);
    CHECK_MEM(b1, b2, 192);
    czk_groth16_pvk pvk;
    czk_groth16_prepare_vk(&pvk, &dev.vk);
    CHECK_STATUS(czk_groth16_verify(&pvk, &p_gpu, e.inputs + 1, n_pub, &err), CZK_OK);
    setup_eval_free(&e);
    for (size_t g = 0; g < o.ngpus; g++) czk_gpu_srs_destroy(srs[g]);
    czk_groth16_params_free(&dev);
    czk_groth16_params_free(&host);
}

static void test_setup_2_12(void) { gpu_equals_host(2, 4000); }
static void test_setup_2_16(void) { gpu_equals_host(5, 60000); }

static void test_srs_args(void)
{
    czk_groth16_params shape;
    memset(&shape, 0, sizeof shape);
    shape.h_len = 7;
    shape.l_len = 3;
    shape.a_len = 4;
    shape.b_g1_len = shape.b_g2_len = 2;
    czk_gpu_srs *srs = NULL;
    czk_err err;
    CHECK_STATUS(czk_gpu_srs_create_empty(&srs, 0, &shape, &err), CZK_OK);
    czk_fr k[8];
    for (int i = 0; i < 8; i++) czk_fr_from_u64(&k[i], (uint64_t)i + 1);
    /* Outside the section. */
    CHECK_STATUS(czk_gpu_srs_fixed_base(srs, CZK_G16_H, 5, k, 3, &err), CZK_EINVAL);
    CHECK_STATUS(czk_gpu_srs_fixed_base(srs, (czk_groth16_section)9, 0, k, 1, &err), CZK_EINVAL);
    /* A partial fill at an offset lands where asked: H[2..7) = (1..5)·G. */
    CHECK_STATUS(czk_gpu_srs_fixed_base(srs, CZK_G16_H, 2, k, 5, &err), CZK_OK);
    czk_g1_affine got[5], want[5];
    CHECK_STATUS(czk_gpu_srs_download(srs, CZK_G16_H, 2, 5, got, &err), CZK_OK);
    czk_g1_jac g, t;
    czk_g1_jac_from_affine(&g, &CZK_G1_GENERATOR);
    for (int i = 0; i < 5; i++) {
        czk_g1_jac_mul_fr(&t, &g, &k[i]);
        czk_g1_jac_to_affine(&want[i], &t);
    }
    CHECK_MEM(got, want, sizeof got);
    czk_g2_affine got2[2], want2[2];
    CHECK_STATUS(czk_gpu_srs_fixed_base(srs, CZK_G16_B_G2, 0, k + 3, 2, &err), CZK_OK);
    CHECK_STATUS(czk_gpu_srs_download(srs, CZK_G16_B_G2, 0, 2, got2, &err), CZK_OK);
    czk_g2_jac g2, t2;
    czk_g2_jac_from_affine(&g2, &CZK_G2_GENERATOR);
    for (int i = 0; i < 2; i++) {
        czk_g2_jac_mul_fr(&t2, &g2, &k[3 + i]);
        czk_g2_jac_to_affine(&want2[i], &t2);
    }
    CHECK_MEM(got2, want2, sizeof got2);
    czk_gpu_srs_destroy(srs);
    czk_gpu_fixed_base_release(0);
}

int main(void)
{
    czk_test_seed();
    if (czk_gpu_count() == 0) CZK_TEST_SKIP("no GPU");
    czk_err err;
    if (czk_pool_create(&pool, 0, &err) != CZK_OK) return 1;
    RUN(test_srs_args);
    RUN(test_setup_2_12);
    RUN(test_setup_2_16);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
