/*
 * GPU NTT and Groth16 H step against the CPU (src/ntt, src/groth16/prover.c), which is
 * itself checked against a naive DFT and @noble/curves in tests/unit/test_ntt.c:
 *   - all four transforms, both root families, every size 2^3..2^24 (one, two and three
 *     passes, every tile shape), coset shifts 7, omega_2n and a random one: bit-identical
 *     outputs on fresh random inputs;
 *   - the device-pointer form in all three orders (NN, NR, RN) against the CPU result
 *     permuted, and the NR -> RN chain without a permutation;
 *   - round trips, and a repeated transform giving identical bytes (a race would not);
 *   - the Groth16 H step, both conventions, against czk_groth16_compute_h on satisfied and
 *     on random (unsatisfied) assignments, host and device forms;
 *   - the twiddle tables in both forms whatever the device's default: every table split,
 *     then every table whole (expanded on the GPU from the split form), at 2^12..2^22;
 *   - bad arguments.
 * CZK_GPU_NTT_TEST_MAX_LOG (default 24: two- and three-pass plans) caps the sizes, e.g. for
 * runs under compute-sanitizer.
 */
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "czk/ntt.h"
#include "czk/pool.h"
#include "czk_test.h"

#ifdef CZK_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "../cuda/gpu_internal.h"
#endif

static const czk_roots FAMILIES[2] = {CZK_ROOTS_BELLPERSON, CZK_ROOTS_SNARKJS};
static const char *FAMILY_NAME[2] = {"bellperson", "snarkjs"};
static const char *KIND_NAME[4] = {"forward", "inverse", "coset-forward", "coset-inverse"};

static czk_pool *pool;
static unsigned max_log = 24;

/* Uniform in [0, r), used directly as a Montgomery representation (rejection sampling). */
static void rand_fr(czk_fr *a)
{
    for (;;) {
        for (int i = 0; i < 4; i++) a->l[i] = czk_test_rand64();
        a->l[3] &= 0x7fffffffffffffffULL;
        for (int i = 3; i >= 0; i--) {
            if (a->l[i] < CZK_FR_MODULUS[i]) return;
            if (a->l[i] > CZK_FR_MODULUS[i]) break;
        }
    }
}

static void rand_vec(czk_fr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) rand_fr(&v[i]);
}

static czk_fr *vec_alloc(size_t n)
{
    czk_fr *v = malloc(n * sizeof(czk_fr));
    if (v == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return v;
}

/* The CPU transform of the same kind: the reference. */
static void cpu_ntt(czk_fr *v, unsigned log_n, czk_roots fam, czk_gpu_ntt_kind kind,
                    const czk_fr *g)
{
    czk_ntt_domain *d = NULL;
    czk_err err;
    if (czk_ntt_domain_create(&d, log_n, fam, &err) != CZK_OK) {
        fprintf(stderr, "cpu domain: %s\n", err.msg);
        exit(1);
    }
    switch (kind) {
    case CZK_GPU_NTT_FORWARD:
        czk_ntt_forward(d, v, pool);
        break;
    case CZK_GPU_NTT_INVERSE:
        czk_ntt_inverse(d, v, pool);
        break;
    case CZK_GPU_NTT_COSET_FORWARD:
        czk_ntt_coset_forward(d, v, g, pool);
        break;
    case CZK_GPU_NTT_COSET_INVERSE:
        czk_ntt_coset_inverse(d, v, g, pool);
        break;
    }
    czk_ntt_domain_destroy(d);
}

/* Shift number `which`: 7 (bellperson's), omega_2n (snarkjs's), or a random element. */
static void pick_shift(czk_fr *g, int which, unsigned log_n, czk_roots fam)
{
    if (which == 0) {
        czk_fr_from_u64(g, 7);
    } else if (which == 1) {
        czk_fr_root_of_unity(g, log_n + 1, fam);
    } else {
        do rand_fr(g);
        while (czk_fr_is_zero(g));
    }
}

/* Host API against the CPU: every kind, both families, every size (above 2^20, two kinds
 * per family, to bound the CPU time). */
static void test_host_vs_cpu(void)
{
    for (unsigned L = CZK_GPU_NTT_MIN_LOG; L <= max_log; L++) {
        size_t n = (size_t)1 << L;
        czk_fr *v = vec_alloc(n), *ref = vec_alloc(n);
        for (int f = 0; f < 2; f++)
            for (int k = 0; k < 4; k++) {
                if (L > 20 && (k + f) % 2 == 1) continue;
                czk_fr g;
                pick_shift(&g, (int)((L + (unsigned)f + (unsigned)k) % 3), L, FAMILIES[f]);
                rand_vec(v, n);
                memcpy(ref, v, n * sizeof *v);
                cpu_ntt(ref, L, FAMILIES[f], (czk_gpu_ntt_kind)k, &g);
                czk_err err;
                czk_status st = czk_gpu_ntt(0, v, L, FAMILIES[f], (czk_gpu_ntt_kind)k, &g, &err);
                CHECK_MSG(st == CZK_OK, "2^%u %s %s: %s", L, FAMILY_NAME[f], KIND_NAME[k], err.msg);
                CHECK_MSG(memcmp(v, ref, n * sizeof *v) == 0, "2^%u %s %s: differs from CPU", L,
                          FAMILY_NAME[f], KIND_NAME[k]);
            }
        free(v);
        free(ref);
    }
}

/* forward∘inverse and coset_forward∘coset_inverse are the identity; a repeat is identical. */
static void test_round_trip(void)
{
    const unsigned sizes[] = {3, 11, 12, 17, 23, 25};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        unsigned L = sizes[si];
        if (L > max_log + 1) continue;
        size_t n = (size_t)1 << L;
        czk_fr *v = vec_alloc(n), *orig = vec_alloc(n), *once = vec_alloc(n);
        for (int f = 0; f < 2; f++) {
            czk_fr g;
            pick_shift(&g, 2, L, FAMILIES[f]);
            rand_vec(orig, n);
            memcpy(v, orig, n * sizeof *v);
            CHECK_STATUS(czk_gpu_ntt(0, v, L, FAMILIES[f], CZK_GPU_NTT_FORWARD, NULL, NULL),
                         CZK_OK);
            CHECK(memcmp(v, orig, n * sizeof *v) != 0);
            memcpy(once, v, n * sizeof *v);
            memcpy(v, orig, n * sizeof *v);
            CHECK_STATUS(czk_gpu_ntt(0, v, L, FAMILIES[f], CZK_GPU_NTT_FORWARD, NULL, NULL),
                         CZK_OK);
            CHECK_MSG(memcmp(v, once, n * sizeof *v) == 0, "2^%u: repeat differs", L);
            CHECK_STATUS(czk_gpu_ntt(0, v, L, FAMILIES[f], CZK_GPU_NTT_INVERSE, NULL, NULL),
                         CZK_OK);
            CHECK_MSG(memcmp(v, orig, n * sizeof *v) == 0, "2^%u %s: inverse(forward) != id", L,
                      FAMILY_NAME[f]);
            CHECK_STATUS(czk_gpu_ntt(0, v, L, FAMILIES[f], CZK_GPU_NTT_COSET_FORWARD, &g, NULL),
                         CZK_OK);
            CHECK_STATUS(czk_gpu_ntt(0, v, L, FAMILIES[f], CZK_GPU_NTT_COSET_INVERSE, &g, NULL),
                         CZK_OK);
            CHECK_MSG(memcmp(v, orig, n * sizeof *v) == 0, "2^%u %s: coset round trip != id", L,
                      FAMILY_NAME[f]);
        }
        free(v);
        free(orig);
        free(once);
    }
}

#ifdef CZK_HAVE_CUDA
static uint32_t bitrev(uint32_t x, unsigned bits)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1u) << (bits - 1 - i);
    return r;
}

static void permute(czk_fr *out, const czk_fr *in, unsigned log_n)
{
    for (uint32_t i = 0; i < (1u << log_n); i++) out[bitrev(i, log_n)] = in[i];
}

static czk_fr *dev_alloc(size_t n)
{
    void *p = NULL;
    if (cudaMalloc(&p, n * sizeof(czk_fr)) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        exit(1);
    }
    return p;
}

static void h2d(czk_fr *d, const czk_fr *h, size_t n)
{
    CHECK(cudaMemcpy(d, h, n * sizeof *h, cudaMemcpyHostToDevice) == cudaSuccess);
}

static void d2h(czk_fr *h, const czk_fr *d, size_t n)
{
    CHECK(cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost) == cudaSuccess);
}

/* Device pointers in the three orders, on a stream of our own. */
static void test_device_orders(void)
{
    const unsigned sizes[] = {4, 10, 11, 12, 16, 21, 22};
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s) == cudaSuccess);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        unsigned L = sizes[si];
        if (L > max_log) continue;
        size_t n = (size_t)1 << L;
        czk_fr *v = vec_alloc(n), *ref = vec_alloc(n), *tmp = vec_alloc(n), *out = vec_alloc(n);
        czk_fr *d = dev_alloc(n);
        for (int f = 0; f < 2; f++)
            for (int k = 0; k < 4; k++)
                for (int o = 0; o < 3; o++) {
                    czk_fr g;
                    pick_shift(&g, (k + o) % 3, L, FAMILIES[f]);
                    rand_vec(v, n);
                    memcpy(ref, v, n * sizeof *v);
                    cpu_ntt(ref, L, FAMILIES[f], (czk_gpu_ntt_kind)k, &g);
                    if (o == CZK_GPU_NTT_RN) {
                        permute(tmp, v, L);
                        h2d(d, tmp, n);
                    } else {
                        h2d(d, v, n);
                    }
                    czk_err err;
                    czk_status st = czk_gpu_ntt_dev(0, d, L, FAMILIES[f], (czk_gpu_ntt_kind)k, &g,
                                                    (czk_gpu_ntt_order)o, s, &err);
                    CHECK_MSG(st == CZK_OK, "%s", err.msg);
                    CHECK(cudaStreamSynchronize(s) == cudaSuccess);
                    d2h(out, d, n);
                    if (o == CZK_GPU_NTT_NR) {
                        permute(tmp, ref, L);
                        memcpy(ref, tmp, n * sizeof *v);
                    }
                    CHECK_MSG(memcmp(out, ref, n * sizeof *v) == 0,
                              "2^%u %s %s order %d: differs from CPU", L, FAMILY_NAME[f],
                              KIND_NAME[k], o);
                }
        /* inverse NR then coset forward RN: the Groth16 chain, no permutation between. */
        for (int f = 0; f < 2; f++) {
            czk_fr g;
            pick_shift(&g, 1, L, FAMILIES[f]);
            rand_vec(v, n);
            memcpy(ref, v, n * sizeof *v);
            cpu_ntt(ref, L, FAMILIES[f], CZK_GPU_NTT_INVERSE, NULL);
            cpu_ntt(ref, L, FAMILIES[f], CZK_GPU_NTT_COSET_FORWARD, &g);
            h2d(d, v, n);
            CHECK_STATUS(czk_gpu_ntt_dev(0, d, L, FAMILIES[f], CZK_GPU_NTT_INVERSE, NULL,
                                         CZK_GPU_NTT_NR, NULL, NULL),
                         CZK_OK);
            CHECK_STATUS(czk_gpu_ntt_dev(0, d, L, FAMILIES[f], CZK_GPU_NTT_COSET_FORWARD, &g,
                                         CZK_GPU_NTT_RN, NULL, NULL),
                         CZK_OK);
            CHECK(cudaDeviceSynchronize() == cudaSuccess);
            d2h(out, d, n);
            CHECK_MSG(memcmp(out, ref, n * sizeof *v) == 0, "2^%u %s: NR->RN chain differs", L,
                      FAMILY_NAME[f]);
        }
        CHECK(cudaFree(d) == cudaSuccess);
        free(v);
        free(ref);
        free(tmp);
        free(out);
    }
    CHECK(cudaStreamDestroy(s) == cudaSuccess);
}
#endif

/*
 * A parameter structure with no points but consistent lengths: compute_h reads only the
 * convention, log_m and the lengths that check_shapes validates.
 */
static void fake_params(czk_groth16_params *pk, czk_h_convention conv, unsigned log_m)
{
    memset(pk, 0, sizeof *pk);
    size_t m = (size_t)1 << log_m;
    pk->conv = conv;
    pk->n_inputs = 1;
    pk->n_aux = 0;
    pk->log_m = log_m;
    pk->h_len = conv == CZK_H_BELLPERSON ? m - 1 : m;
    pk->l_len = 0;
    pk->a_len = 1;
    pk->b_g1_len = pk->b_g2_len = 1;
    pk->vk.ic_len = 1;
}

/* The H step at 2^L, both conventions, satisfied and random, against the CPU. */
static void groth16_h_at(unsigned L)
{
    size_t m = (size_t)1 << L;
    czk_fr *a = vec_alloc(m), *b = vec_alloc(m), *c = vec_alloc(m);
    czk_fr *ca = vec_alloc(m), *cb = vec_alloc(m), *cc = vec_alloc(m);
    czk_scalar *h_ref = malloc(m * sizeof *h_ref);
    for (int conv = 0; conv < 2; conv++)
        for (int satisfied = 0; satisfied < 2; satisfied++) {
            czk_groth16_params pk;
            fake_params(&pk, (czk_h_convention)conv, L);
            size_t rows = conv == CZK_H_BELLPERSON ? m - 1 : m;
            rand_vec(a, m);
            rand_vec(b, m);
            rand_vec(c, m);
            if (satisfied)
                for (size_t i = 0; i < rows; i++) czk_fr_mul(&c[i], &a[i], &b[i]);
            memcpy(ca, a, m * sizeof *a);
            memcpy(cb, b, m * sizeof *a);
            memcpy(cc, c, m * sizeof *a);
            czk_fr one = CZK_FR_ONE;
            czk_groth16_assignment asg = {0};
            asg.inputs = &one;
            asg.a = ca;
            asg.b = cb;
            asg.c = cc;
            asg.n_rows = rows;
            size_t h_len_ref = 0;
            czk_err err;
            CHECK_STATUS(czk_groth16_compute_h(h_ref, &h_len_ref, &pk, &asg, pool, &err),
                         CZK_OK);
            /* The GPU takes the vectors as the CPU pads them: bellperson's input row. */
            if (conv == CZK_H_BELLPERSON) {
                a[m - 1] = one;
                b[m - 1] = CZK_FR_ZERO;
                c[m - 1] = CZK_FR_ZERO;
            }
#ifdef CZK_HAVE_CUDA
            czk_fr *da = dev_alloc(m), *db = dev_alloc(m), *dc = dev_alloc(m);
            h2d(da, a, m);
            h2d(db, b, m);
            h2d(dc, c, m);
#endif
            size_t h_len = 0;
            czk_status st =
                czk_gpu_groth16_h(0, a, b, c, L, (czk_h_convention)conv, &h_len, &err);
            CHECK_MSG(st == CZK_OK, "%s", err.msg);
            CHECK(h_len == h_len_ref);
            CHECK_MSG(memcmp(a, h_ref, h_len_ref * sizeof *a) == 0,
                      "2^%u %s %s: H differs from the CPU's", L, FAMILY_NAME[conv],
                      satisfied ? "satisfied" : "random");
#ifdef CZK_HAVE_CUDA
            st = czk_gpu_groth16_h_dev(0, da, db, dc, L, (czk_h_convention)conv, NULL, &err);
            CHECK_MSG(st == CZK_OK, "%s", err.msg);
            CHECK(cudaDeviceSynchronize() == cudaSuccess);
            d2h(b, da, m);
            CHECK_MSG(memcmp(b, h_ref, h_len_ref * sizeof *a) == 0,
                      "2^%u %s: device-form H differs", L, FAMILY_NAME[conv]);
            /* Satisfied bellperson: a·b - c vanishes on H, the quotient has degree < m-1. */
            if (conv == CZK_H_BELLPERSON && satisfied) CHECK(czk_fr_is_zero(&b[m - 1]));
            CHECK(cudaFree(da) == cudaSuccess);
            CHECK(cudaFree(db) == cudaSuccess);
            CHECK(cudaFree(dc) == cudaSuccess);
#endif
        }
    free(a);
    free(b);
    free(c);
    free(ca);
    free(cb);
    free(cc);
    free(h_ref);
}

static void test_groth16_h(void)
{
    const unsigned sizes[] = {3, 10, 12, 15, 19, 22};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        if (sizes[si] <= max_log) groth16_h_at(sizes[si]);
}

#ifdef CZK_HAVE_CUDA
/*
 * Both table forms whatever the device's default (cuda/ntt.cu's whole_policy): first every
 * twiddle and coset table split, then every one whole, expanded on the GPU from its split
 * form (at 2^21 and 2^22 the boundary levels of 2^21 and 2^22 entries, which earlier builds
 * never stored whole), through all four transforms of both families and the H step.
 */
static void test_table_forms(void)
{
    const unsigned sizes[] = {12, 17, 21, 22};
    const int forms[2] = {0, 28};
    for (int fi = 0; fi < 2; fi++) {
        czk__gpu_ntt_set_whole_max(forms[fi], forms[fi]);
        czk_gpu_ntt_release(0);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            unsigned L = sizes[si];
            if (L > max_log) continue;
            size_t n = (size_t)1 << L;
            czk_fr *v = vec_alloc(n), *ref = vec_alloc(n);
            for (int f = 0; f < 2; f++)
                for (int k = 0; k < 4; k++) {
                    czk_fr g;
                    pick_shift(&g, (int)((L + (unsigned)k) % 3), L, FAMILIES[f]);
                    rand_vec(v, n);
                    memcpy(ref, v, n * sizeof *v);
                    cpu_ntt(ref, L, FAMILIES[f], (czk_gpu_ntt_kind)k, &g);
                    czk_err err;
                    czk_status st =
                        czk_gpu_ntt(0, v, L, FAMILIES[f], (czk_gpu_ntt_kind)k, &g, &err);
                    CHECK_MSG(st == CZK_OK, "%s", err.msg);
                    CHECK_MSG(memcmp(v, ref, n * sizeof *v) == 0,
                              "2^%u %s %s, tables %s: differs from CPU", L, FAMILY_NAME[f],
                              KIND_NAME[k], fi == 0 ? "split" : "whole");
                }
            free(v);
            free(ref);
        }
        groth16_h_at(max_log < 21 ? max_log : 21);
    }
    czk__gpu_ntt_set_whole_max(-1, -1);
    czk_gpu_ntt_release(0);
}
#endif

static void test_bad_args(void)
{
    czk_fr v[16] = {{{0}}}, zero = CZK_FR_ZERO, seven;
    czk_fr_from_u64(&seven, 7);
    czk_err err;
    CHECK_STATUS(czk_gpu_ntt(0, v, 2, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_FORWARD, NULL, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_gpu_ntt(0, v, 29, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_FORWARD, NULL, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_gpu_ntt(0, NULL, 4, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_FORWARD, NULL, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_gpu_ntt(0, v, 4, (czk_roots)7, CZK_GPU_NTT_FORWARD, NULL, &err), CZK_EINVAL);
    CHECK_STATUS(czk_gpu_ntt(0, v, 4, CZK_ROOTS_BELLPERSON, (czk_gpu_ntt_kind)9, NULL, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_gpu_ntt(0, v, 4, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_COSET_FORWARD, NULL, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_gpu_ntt(0, v, 4, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_COSET_INVERSE, &zero, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_gpu_ntt(-1, v, 4, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_FORWARD, NULL, &err),
                 CZK_ENOGPU);
    CHECK_STATUS(czk_gpu_ntt(1000, v, 4, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_FORWARD, NULL, &err),
                 CZK_ENOGPU);
    CHECK_STATUS(czk_gpu_ntt_dev(0, v, 4, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_FORWARD, NULL,
                                 (czk_gpu_ntt_order)5, NULL, &err),
                 CZK_EINVAL);
    size_t hl;
    CHECK_STATUS(czk_gpu_groth16_h(0, v, v, NULL, 4, CZK_H_BELLPERSON, &hl, &err), CZK_EINVAL);
    CHECK_STATUS(czk_gpu_groth16_h(0, v, v, v, 4, (czk_h_convention)3, &hl, &err), CZK_EINVAL);
    CHECK_STATUS(czk_gpu_groth16_h(0, v, v, v, 40, CZK_H_SNARKJS, &hl, &err), CZK_EINVAL);
    /* A valid call still works after the rejected ones, and did not touch v before. */
    for (int i = 0; i < 16; i++) czk_fr_from_u64(&v[i], (uint64_t)i + 1);
    CHECK_STATUS(
        czk_gpu_ntt(0, v, 4, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_COSET_FORWARD, &seven, &err),
        CZK_OK);
    CHECK_STATUS(
        czk_gpu_ntt(0, v, 4, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_COSET_INVERSE, &seven, &err),
        CZK_OK);
    czk_fr want;
    czk_fr_from_u64(&want, 16);
    CHECK(czk_fr_eq(&v[15], &want));
}

int main(void)
{
    if (czk_gpu_count() == 0) CZK_TEST_SKIP("no GPU");
    czk_test_seed();
    const char *env = getenv("CZK_GPU_NTT_TEST_MAX_LOG");
    if (env != NULL) max_log = (unsigned)strtoul(env, NULL, 10);
    if (max_log > 26) max_log = 26;
    czk_err err;
    if (czk_pool_create(&pool, 0, &err) != CZK_OK) {
        fprintf(stderr, "pool: %s\n", err.msg);
        return 1;
    }
    RUN(test_bad_args);
    RUN(test_host_vs_cpu);
    RUN(test_round_trip);
#ifdef CZK_HAVE_CUDA
    RUN(test_device_orders);
#endif
    RUN(test_groth16_h);
#ifdef CZK_HAVE_CUDA
    RUN(test_table_forms);
#endif
    czk_gpu_ntt_release(0);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
