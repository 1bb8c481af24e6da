/*
 * GPU fixed-base multiplication of the generators (cuda/fixed_base.cu) against the CPU, on
 * fresh random scalars every run. Skips (exit 77) without a GPU.
 *
 *  - Special scalars (0, 1, 2, r − 1, repeated values) and n = 1: every point against an
 *    independent double-and-add on the CPU (czk_g1_jac_mul_fr / czk_g2_jac_mul_fr), and the
 *    bytes of every point (infinity's encoding included) against the CPU fixed-base path.
 *  - Sizes: G1 at 1000, 2^20 and 2^21 + 12345 (three chunks, so both streams and the reuse
 *    of a stream's buffers run), G2 at 333 and 2^16, with special scalars sprinkled in:
 *    byte-equal to the CPU fixed-base path (CZK__FIXED_BASE_CPU), and a random sample of points
 *    against the double-and-add.
 *  - czk_groth16_setup with CZK__FIXED_BASE_GPU (every fixed-base call on the GPU, checked in
 *    the log) of a small random R1CS: the parameters give proofs that verify, and a proof
 *    for wrong public inputs does not.
 *  - czk_gpu_fixed_base_release between calls; no such GPU: CZK_ENOGPU.
 */
#include <stdlib.h>
#include <string.h>

#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "czk/log.h"
#include "czk/r1cs.h"
#include "czk_test.h"
#include "czk_test_fr.h"
#include "groth16/fixed_base.h"

static czk_pool *pool;

static const uint64_t R_MINUS_1[4] = {0xffffffff00000000ULL, 0x53bda402fffe5bfeULL,
                                      0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

static void *xmalloc(size_t n)
{
    void *p = malloc(n > 0 ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* Random scalars with 0, 1, 2, r − 1 and repeats of earlier entries at random places. */
static void fill_scalars(czk_fr *k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t sel = czk_test_rand64() % 16;
        if (sel == 0)
            k[i] = CZK_FR_ZERO;
        else if (sel == 1)
            k[i] = CZK_FR_ONE;
        else if (sel == 2)
            czk_fr_from_u64(&k[i], 2);
        else if (sel == 3)
            CHECK(czk_fr_from_u64s(&k[i], R_MINUS_1));
        else if (sel == 4 && i > 0)
            k[i] = k[czk_test_rand64() % i];
        else
            czk_test_rand_fr(&k[i]);
    }
}

/* The CPU fixed-base path, kept off the GPU. */
static void cpu_g1(czk_g1_affine *out, const czk_fr *k, size_t n)
{
    czk__fixed_base_set_where(CZK__FIXED_BASE_CPU);
    czk__progress pr = {0};
    czk_err err;
    CHECK_STATUS(czk__g1s_fixed_base(out, k, n, pool, &pr, &err), CZK_OK);
    CHECK(pr.done == n);
    czk__fixed_base_set_where(CZK__FIXED_BASE_AUTO);
}

static void cpu_g2(czk_g2_affine *out, const czk_fr *k, size_t n)
{
    czk__fixed_base_set_where(CZK__FIXED_BASE_CPU);
    czk__progress pr = {0};
    czk_err err;
    CHECK_STATUS(czk__g2s_fixed_base(out, k, n, pool, &pr, &err), CZK_OK);
    CHECK(pr.done == 2 * n);
    czk__fixed_base_set_where(CZK__FIXED_BASE_AUTO);
}

/* k·G by the CPU library's double-and-add: a reference independent of any window table. */
static bool g1_matches(const czk_g1_affine *p, const czk_fr *k)
{
    czk_g1_jac g, r;
    czk_g1_jac_from_affine(&g, &CZK_G1_GENERATOR);
    czk_g1_jac_mul_fr(&r, &g, k);
    czk_g1_affine a;
    czk_g1_jac_to_affine(&a, &r);
    return czk_g1_affine_eq(&a, p) && memcmp(&a, p, sizeof a) == 0;
}

static bool g2_matches(const czk_g2_affine *p, const czk_fr *k)
{
    czk_g2_jac g, r;
    czk_g2_jac_from_affine(&g, &CZK_G2_GENERATOR);
    czk_g2_jac_mul_fr(&r, &g, k);
    czk_g2_affine a;
    czk_g2_jac_to_affine(&a, &r);
    return czk_g2_affine_eq(&a, p) && memcmp(&a, p, sizeof a) == 0;
}

static void test_special(void)
{
    czk_fr k[40];
    size_t n = 0;
    k[n++] = CZK_FR_ZERO;
    k[n++] = CZK_FR_ONE;
    czk_fr_from_u64(&k[n++], 2);
    CHECK(czk_fr_from_u64s(&k[n++], R_MINUS_1));
    k[n++] = CZK_FR_ZERO;
    k[n++] = CZK_FR_ONE;
    czk_fr_from_u64(&k[n++], 1023); /* exactly one full window */
    czk_fr_from_u64(&k[n++], 1024); /* the second window's lowest digit */
    while (n < 37) {
        czk_test_rand_fr(&k[n]);
        k[n + 1] = k[n];
        n += 2;
    }
    czk_g1_affine g1[40], c1[40];
    czk_g2_affine g2[40], c2[40];
    czk_err err;
    CHECK_STATUS(czk_gpu_g1s_fixed_base(0, g1, k, n, &err), CZK_OK);
    CHECK_STATUS(czk_gpu_g2s_fixed_base(0, g2, k, n, &err), CZK_OK);
    cpu_g1(c1, k, n);
    cpu_g2(c2, k, n);
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(g1_matches(&g1[i], &k[i]), "G1 point %zu", i);
        CHECK_MSG(g2_matches(&g2[i], &k[i]), "G2 point %zu", i);
    }
    CHECK_MEM(g1, c1, n * sizeof g1[0]);
    CHECK_MEM(g2, c2, n * sizeof g2[0]);
    CHECK(czk_g1_affine_is_inf(&g1[0]) && czk_g2_affine_is_inf(&g2[0]));
    CHECK(czk_g1_affine_eq(&g1[1], &CZK_G1_GENERATOR));
    CHECK(czk_g2_affine_eq(&g2[1], &CZK_G2_GENERATOR));

    /* n = 1, for each special value and one random one. */
    for (size_t i = 0; i < 5; i++) {
        czk_fr one_k = k[i < 4 ? i : 9];
        czk_g1_affine p1;
        czk_g2_affine p2;
        CHECK_STATUS(czk_gpu_g1s_fixed_base(0, &p1, &one_k, 1, &err), CZK_OK);
        CHECK_STATUS(czk_gpu_g2s_fixed_base(0, &p2, &one_k, 1, &err), CZK_OK);
        CHECK_MSG(g1_matches(&p1, &one_k), "G1 n=1 case %zu", i);
        CHECK_MSG(g2_matches(&p2, &one_k), "G2 n=1 case %zu", i);
    }
    /* n = 0 writes nothing and succeeds. */
    CHECK_STATUS(czk_gpu_g1s_fixed_base(0, NULL, NULL, 0, &err), CZK_OK);

    /* After the working memory is released, the next calls allocate it again. */
    czk_gpu_fixed_base_release(0);
    czk_g1_affine again1[40];
    czk_g2_affine again2[40];
    CHECK_STATUS(czk_gpu_g1s_fixed_base(0, again1, k, n, &err), CZK_OK);
    czk_gpu_fixed_base_release(0);
    CHECK_STATUS(czk_gpu_g2s_fixed_base(0, again2, k, n, &err), CZK_OK);
    CHECK_MEM(again1, c1, n * sizeof c1[0]);
    CHECK_MEM(again2, c2, n * sizeof c2[0]);
}

static void check_g1_size(size_t n)
{
    czk_fr *k = xmalloc(n * sizeof *k);
    czk_g1_affine *g = xmalloc(n * sizeof *g), *c = xmalloc(n * sizeof *c);
    fill_scalars(k, n);
    czk_err err;
    CHECK_STATUS(czk_gpu_g1s_fixed_base(0, g, k, n, &err), CZK_OK);
    cpu_g1(c, k, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += memcmp(&g[i], &c[i], sizeof g[i]) != 0;
    CHECK_MSG(bad == 0, "G1 n=%zu: %zu points differ from the CPU", n, bad);
    for (int s = 0; s < 48; s++) {
        size_t i = s == 0 ? n - 1 : (size_t)(czk_test_rand64() % n);
        CHECK_MSG(g1_matches(&g[i], &k[i]), "G1 n=%zu point %zu", n, i);
    }
    free(k);
    free(g);
    free(c);
}

static void check_g2_size(size_t n)
{
    czk_fr *k = xmalloc(n * sizeof *k);
    czk_g2_affine *g = xmalloc(n * sizeof *g), *c = xmalloc(n * sizeof *c);
    fill_scalars(k, n);
    czk_err err;
    CHECK_STATUS(czk_gpu_g2s_fixed_base(0, g, k, n, &err), CZK_OK);
    cpu_g2(c, k, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += memcmp(&g[i], &c[i], sizeof g[i]) != 0;
    CHECK_MSG(bad == 0, "G2 n=%zu: %zu points differ from the CPU", n, bad);
    for (int s = 0; s < 24; s++) {
        size_t i = s == 0 ? n - 1 : (size_t)(czk_test_rand64() % n);
        CHECK_MSG(g2_matches(&g[i], &k[i]), "G2 n=%zu point %zu", n, i);
    }
    free(k);
    free(g);
    free(c);
}

static void test_sizes(void)
{
    check_g1_size(1000);
    check_g1_size((size_t)1 << 20);
    check_g1_size(((size_t)1 << 21) + 12345);
    check_g2_size(333);
    check_g2_size((size_t)1 << 16);
}

/*
 * A random satisfiable R1CS: n_pub public inputs, then n_mul rows each defining a new aux
 * variable as the product of two random multiples of earlier variables. Returns the witness.
 */
static czk_fr *random_circuit(czk_r1cs *r, uint32_t n_pub, uint32_t n_mul)
{
    uint32_t ni = 1 + n_pub, na = n_mul + 1, nv = ni + na;
    czk_fr *z = czk_malloc(nv * sizeof *z);
    z[0] = CZK_FR_ONE;
    for (uint32_t i = 1; i < ni + 1; i++) czk_test_rand_fr(&z[i]); /* inputs and one free aux */
    CHECK_STATUS(czk_r1cs_alloc(r, ni, na, n_mul, n_mul, n_mul, n_mul, NULL), CZK_OK);
    r->has_c = true;
    for (uint32_t j = 0; j < n_mul; j++) {
        uint32_t out = ni + 1 + j;
        uint32_t u = (uint32_t)(czk_test_rand64() % out), v = (uint32_t)(czk_test_rand64() % out);
        czk_fr ca, cb, av, bv;
        czk_test_rand_fr(&ca);
        czk_test_rand_fr(&cb);
        r->a.row_ptr[j] = r->b.row_ptr[j] = r->c.row_ptr[j] = j;
        r->a.col[j] = u;
        r->a.val[j] = ca;
        r->b.col[j] = v;
        r->b.val[j] = cb;
        r->c.col[j] = out;
        r->c.val[j] = CZK_FR_ONE;
        czk_fr_mul(&av, &ca, &z[u]);
        czk_fr_mul(&bv, &cb, &z[v]);
        czk_fr_mul(&z[out], &av, &bv);
    }
    r->a.row_ptr[n_mul] = r->b.row_ptr[n_mul] = r->c.row_ptr[n_mul] = n_mul;
    r->a.nnz = r->b.nnz = r->c.nnz = n_mul;
    return z;
}

static void test_setup_round_trip(void)
{
    const uint32_t n_pub = 3, n_mul = 3000;
    czk_r1cs r;
    czk_fr *z = random_circuit(&r, n_pub, n_mul);
    uint32_t first_bad = 0;
    CHECK(czk_r1cs_is_satisfied(&r, z, &first_bad));

    /* Every fixed-base call on the GPU; the log says which backend ran (the CPU path logs
     * small calls at debug level). */
    FILE *log = tmpfile();
    CHECK(log != NULL);
    if (log == NULL) return;
    int old_level = czk_log_min_level;
    czk_log_set_level(CZK_LOG_DEBUG);
    czk_log_set_stream(log);
    czk__fixed_base_set_where(CZK__FIXED_BASE_GPU);
    czk_groth16_params pk;
    czk_err err;
    czk_status st = czk_groth16_setup(&pk, &r, pool, NULL, NULL, &err);
    czk__fixed_base_set_where(CZK__FIXED_BASE_AUTO);
    czk_log_set_stream(stderr);
    czk_log_set_level((czk_log_level)old_level);
    CHECK_STATUS(st, CZK_OK);
    char line[1024];
    int gpu_lines = 0, cpu_lines = 0;
    rewind(log);
    while (fgets(line, sizeof line, log) != NULL) {
        gpu_lines += strstr(line, "backend=gpu") != NULL;
        cpu_lines += strstr(line, "backend=cpu") != NULL;
    }
    fclose(log);
    CHECK_MSG(gpu_lines >= 5 && cpu_lines == 0, "fixed-base log: %d gpu, %d cpu lines",
              gpu_lines, cpu_lines);
    if (st != CZK_OK) {
        czk_r1cs_free(&r);
        czk_free(z);
        return;
    }

    size_t m = (size_t)1 << pk.log_m;
    size_t wa = (r.n_aux + 63) / 64 + 1, wi = (r.n_inputs + 63) / 64 + 1;
    uint64_t *a_aux = czk_calloc(wa, 8), *b_in = czk_calloc(wi, 8), *b_aux = czk_calloc(wa, 8);
    czk_r1cs_densities(&r, a_aux, b_in, b_aux);
    czk_fr *a = czk_malloc(m * sizeof *a), *b = czk_malloc(m * sizeof *b);
    czk_fr *c = czk_malloc(m * sizeof *c);
    czk_r1cs_eval(&r, z, a, b, c, pool);
    czk_groth16_assignment asg;
    memset(&asg, 0, sizeof asg);
    asg.inputs = z;
    asg.aux = z + r.n_inputs;
    asg.a = a;
    asg.b = b;
    asg.c = c;
    asg.n_rows = r.n_constraints;
    asg.a_aux_density = a_aux;
    asg.b_input_density = b_in;
    asg.b_aux_density = b_aux;
    czk_groth16_proof proof;
    CHECK_STATUS(czk_groth16_prove(&proof, &pk, &asg, NULL, NULL, pool, NULL, &err), CZK_OK);
    czk_groth16_pvk pvk;
    czk_groth16_prepare_vk(&pvk, &pk.vk);
    CHECK_STATUS(czk_groth16_verify(&pvk, &proof, z + 1, n_pub, &err), CZK_OK);
    czk_fr bad[3] = {z[1], z[2], z[3]};
    czk_fr_add(&bad[1], &bad[1], &CZK_FR_ONE);
    CHECK_STATUS(czk_groth16_verify(&pvk, &proof, bad, n_pub, &err), CZK_EVERIFY);

    czk_groth16_params_free(&pk);
    czk_free(a_aux);
    czk_free(b_in);
    czk_free(b_aux);
    czk_free(a);
    czk_free(b);
    czk_free(c);
    czk_r1cs_free(&r);
    czk_free(z);
}

static void test_errors(void)
{
    czk_fr k = CZK_FR_ONE;
    czk_g1_affine p1;
    czk_g2_affine p2;
    czk_err err;
    CHECK_STATUS(czk_gpu_g1s_fixed_base(1000, &p1, &k, 1, &err), CZK_ENOGPU);
    CHECK_STATUS(czk_gpu_g2s_fixed_base(-1, &p2, &k, 1, &err), CZK_ENOGPU);
}

int main(void)
{
    czk_test_seed();
    if (czk_gpu_count() == 0) CZK_TEST_SKIP("no GPU");
    czk_err err;
    if (czk_pool_create(&pool, czk_cpu_count(), &err) != CZK_OK) {
        fprintf(stderr, "pool: %s\n", err.msg);
        return 1;
    }
    RUN(test_special);
    RUN(test_sizes);
    RUN(test_setup_round_trip);
    RUN(test_errors);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
