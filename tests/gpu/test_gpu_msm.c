/*
 * GPU field, curve and MSM arithmetic (cuda/ff.cuh, cuda/ec.cuh, cuda/msm.cu) against the CPU
 * library on fresh random inputs. Skips (exit 77) without a GPU.
 *
 *  - Field: every device operation (Fp, Fr, Fp2) elementwise on random elements plus 0, 1
 *    and −1, byte-compared with the CPU result (the representations are the same bytes).
 *  - Curves: XYZZ and Jacobian mixed add, add and doubling for G1 and G2, including P + P,
 *    P + (−P) and infinity operands, compared in affine form.
 *  - MSM: G1 at 2^10 .. 2^20 and G2 at 2^10 .. 2^16 (sizes not powers of two too) against
 *    czk_g1s_msm / czk_g2s_msm (the CPU Pippenger, itself checked against discrete logs and
 *    the naive sum in test_msm), and at 2^10 also against the naive sum directly. Scalars mix
 *    0, 1, r − 1, r, r + 1, 2^256 − 1, small and random 256-bit values; other runs put every
 *    scalar in one bucket, use only small scalars, only zeros or only ones. Bases are made on
 *    the GPU (czk_gpu_bases_synthesize; a sample is checked on the curve and in the subgroup
 *    on the CPU), then edited on the host for infinity, repeated and opposite bases. Density
 *    bitmaps (random, empty, full) go through both the host-array and the resident calls.
 *  - The ones' batch-affine tree with a small stop (many levels), several segments and
 *    special pairs, the defaults at 2^18 ones, and the XYZZ path alone (test_ones_tree).
 *  - MSMs in pieces through the accumulator, every flush forced by small limits
 *    (test_msm_acc).
 *  - Errors: too few bases for a density, n beyond the uploaded scalars, wrong group.
 *
 * CZK_TEST_GPU_SMALL=1 caps the sizes at 2^12 (for compute-sanitizer runs).
 */
#include "czk/gpu.h"
#include "czk/msm.h"
#include "czk_test.h"
#include "czk_test_fr.h"

#include "../cuda/gpu_internal.h"

static czk_pool *pool;
static int small_mode;
static czk_gpu_bases *g1_bases, *g2_bases; /* synthesized, largest size */
static czk_g1_affine *g1_host;
static czk_g2_affine *g2_host;
static size_t g1_count, g2_count;

static const uint64_t R_LIMBS[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                    0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

static void rand_fp(czk_fp *a)
{
    uint8_t w[64];
    czk_test_rand_bytes(w, 64);
    czk_fp_from_wide_bytes(a, w);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n > 0 ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* ------------------------------------------------------------------------------------ */
/* Field                                                                                */
/* ------------------------------------------------------------------------------------ */

#define NF 2048

/* Elements 0..2 are 0, 1, −1; the rest random. */
static void fill_fp(czk_fp *v, size_t n)
{
    for (size_t i = 0; i < n; i++) rand_fp(&v[i]);
    v[0] = CZK_FP_ZERO;
    v[1] = CZK_FP_ONE;
    czk_fp_neg(&v[2], &CZK_FP_ONE);
}

static void fill_fr(czk_fr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) czk_test_rand_fr(&v[i]);
    v[0] = CZK_FR_ZERO;
    v[1] = CZK_FR_ONE;
    czk_fr_neg(&v[2], &CZK_FR_ONE);
}

static void test_fp_ops(void)
{
    czk_fp *a = xmalloc(NF * sizeof *a), *b = xmalloc(NF * sizeof *b);
    czk_fp *got = xmalloc(NF * sizeof *got), want;
    fill_fp(a, NF);
    fill_fp(b, NF);
    b[3] = a[3]; /* a − a = 0 */
    czk__gpu_op ops[] = {CZK__GPU_FP_MUL, CZK__GPU_FP_SQR, CZK__GPU_FP_ADD,
                         CZK__GPU_FP_SUB, CZK__GPU_FP_NEG, CZK__GPU_FP_INV};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t n = ops[k] == CZK__GPU_FP_INV ? 256 : NF;
        czk_err err;
        CHECK_STATUS(czk__gpu_eval(0, ops[k], got, a, b, n, &err), CZK_OK);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            switch (ops[k]) {
            case CZK__GPU_FP_MUL: czk_fp_mul(&want, &a[i], &b[i]); break;
            case CZK__GPU_FP_SQR: czk_fp_sqr(&want, &a[i]); break;
            case CZK__GPU_FP_ADD: czk_fp_add(&want, &a[i], &b[i]); break;
            case CZK__GPU_FP_SUB: czk_fp_sub(&want, &a[i], &b[i]); break;
            case CZK__GPU_FP_NEG: czk_fp_neg(&want, &a[i]); break;
            default: czk_fp_inv(&want, &a[i]); break;
            }
            bad += memcmp(&want, &got[i], sizeof want) != 0;
        }
        CHECK_MSG(bad == 0, "Fp op %d: %zu of %zu differ", (int)ops[k], bad, n);
    }
    free(a);
    free(b);
    free(got);
}

static void test_fr_ops(void)
{
    czk_fr *a = xmalloc(NF * sizeof *a), *b = xmalloc(NF * sizeof *b);
    czk_fr *got = xmalloc(NF * sizeof *got), want;
    fill_fr(a, NF);
    fill_fr(b, NF);
    czk__gpu_op ops[] = {CZK__GPU_FR_MUL, CZK__GPU_FR_SQR, CZK__GPU_FR_ADD, CZK__GPU_FR_SUB,
                         CZK__GPU_FR_INV};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t n = ops[k] == CZK__GPU_FR_INV ? 256 : NF;
        czk_err err;
        CHECK_STATUS(czk__gpu_eval(0, ops[k], got, a, b, n, &err), CZK_OK);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            switch (ops[k]) {
            case CZK__GPU_FR_MUL: czk_fr_mul(&want, &a[i], &b[i]); break;
            case CZK__GPU_FR_SQR: czk_fr_sqr(&want, &a[i]); break;
            case CZK__GPU_FR_ADD: czk_fr_add(&want, &a[i], &b[i]); break;
            case CZK__GPU_FR_SUB: czk_fr_sub(&want, &a[i], &b[i]); break;
            default: czk_fr_inv(&want, &a[i]); break;
            }
            bad += memcmp(&want, &got[i], sizeof want) != 0;
        }
        CHECK_MSG(bad == 0, "Fr op %d: %zu of %zu differ", (int)ops[k], bad, n);
    }
    free(a);
    free(b);
    free(got);
}

static void test_fp2_ops(void)
{
    size_t n = 512;
    czk_fp2 *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    czk_fp2 *got = xmalloc(n * sizeof *got), want;
    for (size_t i = 0; i < n; i++) {
        rand_fp(&a[i].c0);
        rand_fp(&a[i].c1);
        rand_fp(&b[i].c0);
        rand_fp(&b[i].c1);
    }
    a[0] = CZK_FP2_ZERO;
    a[1] = CZK_FP2_ONE;
    czk__gpu_op ops[] = {CZK__GPU_FP2_MUL, CZK__GPU_FP2_SQR, CZK__GPU_FP2_INV};
    for (size_t k = 0; k < 3; k++) {
        size_t m = ops[k] == CZK__GPU_FP2_INV ? 128 : n;
        czk_err err;
        CHECK_STATUS(czk__gpu_eval(0, ops[k], got, a, b, m, &err), CZK_OK);
        size_t bad = 0;
        for (size_t i = 0; i < m; i++) {
            if (ops[k] == CZK__GPU_FP2_MUL) czk_fp2_mul(&want, &a[i], &b[i]);
            else if (ops[k] == CZK__GPU_FP2_SQR) czk_fp2_sqr(&want, &a[i]);
            else czk_fp2_inv(&want, &a[i]);
            bad += memcmp(&want, &got[i], sizeof want) != 0;
        }
        CHECK_MSG(bad == 0, "Fp2 op %d: %zu of %zu differ", (int)ops[k], bad, m);
    }
    free(a);
    free(b);
    free(got);
}

/* ------------------------------------------------------------------------------------ */
/* Curves                                                                               */
/* ------------------------------------------------------------------------------------ */

#define NE 48

static void rand_g1(czk_g1_jac *p)
{
    czk_fr k;
    czk_g1_jac g;
    czk_test_rand_fr(&k);
    czk_g1_jac_from_affine(&g, &CZK_G1_GENERATOR);
    czk_g1_jac_mul_fr(p, &g, &k);
}

static void rand_g2(czk_g2_jac *p)
{
    czk_fr k;
    czk_g2_jac g;
    czk_test_rand_fr(&k);
    czk_g2_jac_from_affine(&g, &CZK_G2_GENERATOR);
    czk_g2_jac_mul_fr(p, &g, &k);
}

/*
 * Inputs: index 0: infinity first operand; 1: infinity second; 2: P + P; 3: P + (−P);
 * the rest random. XYZZ inputs get non-trivial ZZ by one CPU doubling of a point.
 */
static void test_g1_ops(void)
{
    czk_g1_jac ja[NE], jb[NE], jg[NE], jw;
    czk_g1_affine aa[NE], ab[NE];
    czk_g1_xyzz xa[NE], xb[NE], xg[NE], xw;
    for (int i = 0; i < NE; i++) {
        rand_g1(&ja[i]);
        rand_g1(&jb[i]);
    }
    czk_g1_jac_set_inf(&ja[0]);
    czk_g1_jac_set_inf(&jb[1]);
    jb[2] = ja[2];
    czk_g1_jac_neg(&jb[3], &ja[3]);
    for (int i = 0; i < NE; i++) {
        czk_g1_jac_to_affine(&aa[i], &ja[i]);
        czk_g1_jac_to_affine(&ab[i], &jb[i]);
        czk_g1_xyzz_from_affine(&xa[i], &aa[i]);
        czk_g1_xyzz_from_affine(&xb[i], &ab[i]);
    }
    /* Give the XYZZ inputs ZZ != 1: (X·λ^2, Y·λ^3, ZZ·λ^2, ZZZ·λ^3) is the same point. */
    for (int i = 0; i < NE; i++) {
        czk_fp l, l2, l3;
        rand_fp(&l);
        czk_fp_sqr(&l2, &l);
        czk_fp_mul(&l3, &l2, &l);
        czk_fp_mul(&xa[i].x, &xa[i].x, &l2);
        czk_fp_mul(&xa[i].y, &xa[i].y, &l3);
        czk_fp_mul(&xa[i].zz, &xa[i].zz, &l2);
        czk_fp_mul(&xa[i].zzz, &xa[i].zzz, &l3);
        rand_fp(&l);
        czk_fp_sqr(&l2, &l);
        czk_fp_mul(&l3, &l2, &l);
        czk_fp_mul(&xb[i].x, &xb[i].x, &l2);
        czk_fp_mul(&xb[i].y, &xb[i].y, &l3);
        czk_fp_mul(&xb[i].zz, &xb[i].zz, &l2);
        czk_fp_mul(&xb[i].zzz, &xb[i].zzz, &l3);
    }
    czk_err err;
    czk_g1_affine g, w;
    size_t bad;

    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G1_XYZZ_ADD_AFFINE, xg, xa, ab, NE, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < NE; i++) {
        czk_g1_xyzz_add_affine(&xw, &xa[i], &ab[i]);
        czk_g1_xyzz_to_affine(&w, &xw);
        czk_g1_xyzz_to_affine(&g, &xg[i]);
        bad += !czk_g1_affine_eq(&g, &w);
    }
    CHECK_MSG(bad == 0, "G1 xyzz madd: %zu differ", bad);

    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G1_XYZZ_ADD, xg, xa, xb, NE, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < NE; i++) {
        czk_g1_xyzz_add(&xw, &xa[i], &xb[i]);
        czk_g1_xyzz_to_affine(&w, &xw);
        czk_g1_xyzz_to_affine(&g, &xg[i]);
        bad += !czk_g1_affine_eq(&g, &w);
    }
    CHECK_MSG(bad == 0, "G1 xyzz add: %zu differ", bad);

    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G1_XYZZ_DBL, xg, xa, NULL, NE, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < NE; i++) {
        czk_g1_xyzz_dbl(&xw, &xa[i]);
        czk_g1_xyzz_to_affine(&w, &xw);
        czk_g1_xyzz_to_affine(&g, &xg[i]);
        bad += !czk_g1_affine_eq(&g, &w);
    }
    CHECK_MSG(bad == 0, "G1 xyzz dbl: %zu differ", bad);

    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G1_JAC_ADD_AFFINE, jg, ja, ab, NE, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < NE; i++) {
        czk_g1_jac_add_affine(&jw, &ja[i], &ab[i]);
        bad += !czk_g1_jac_eq(&jg[i], &jw);
    }
    CHECK_MSG(bad == 0, "G1 jac madd: %zu differ", bad);

    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G1_JAC_ADD, jg, ja, jb, NE, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < NE; i++) {
        czk_g1_jac_add(&jw, &ja[i], &jb[i]);
        bad += !czk_g1_jac_eq(&jg[i], &jw);
    }
    CHECK_MSG(bad == 0, "G1 jac add: %zu differ", bad);

    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G1_JAC_DBL, jg, ja, NULL, NE, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < NE; i++) {
        czk_g1_jac_dbl(&jw, &ja[i]);
        bad += !czk_g1_jac_eq(&jg[i], &jw);
    }
    CHECK_MSG(bad == 0, "G1 jac dbl: %zu differ", bad);
}

static void scale_g2_xyzz(czk_g2_xyzz *p)
{
    czk_fp2 l, l2, l3;
    rand_fp(&l.c0);
    rand_fp(&l.c1);
    czk_fp2_sqr(&l2, &l);
    czk_fp2_mul(&l3, &l2, &l);
    czk_fp2_mul(&p->x, &p->x, &l2);
    czk_fp2_mul(&p->y, &p->y, &l3);
    czk_fp2_mul(&p->zz, &p->zz, &l2);
    czk_fp2_mul(&p->zzz, &p->zzz, &l3);
}

static void test_g2_ops(void)
{
    enum { N2 = 24 };
    czk_g2_jac ja[N2], jb[N2], jg[N2], jw;
    czk_g2_affine aa[N2], ab[N2], g, w;
    czk_g2_xyzz xa[N2], xb[N2], xg[N2], xw;
    for (int i = 0; i < N2; i++) {
        rand_g2(&ja[i]);
        rand_g2(&jb[i]);
    }
    czk_g2_jac_set_inf(&ja[0]);
    czk_g2_jac_set_inf(&jb[1]);
    jb[2] = ja[2];
    czk_g2_jac_neg(&jb[3], &ja[3]);
    for (int i = 0; i < N2; i++) {
        czk_g2_jac_to_affine(&aa[i], &ja[i]);
        czk_g2_jac_to_affine(&ab[i], &jb[i]);
        czk_g2_xyzz_from_affine(&xa[i], &aa[i]);
        czk_g2_xyzz_from_affine(&xb[i], &ab[i]);
        scale_g2_xyzz(&xa[i]);
        scale_g2_xyzz(&xb[i]);
    }
    czk_err err;
    size_t bad;
    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G2_XYZZ_ADD_AFFINE, xg, xa, ab, N2, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < N2; i++) {
        czk_g2_xyzz_add_affine(&xw, &xa[i], &ab[i]);
        czk_g2_xyzz_to_affine(&w, &xw);
        czk_g2_xyzz_to_affine(&g, &xg[i]);
        bad += !czk_g2_affine_eq(&g, &w);
    }
    CHECK_MSG(bad == 0, "G2 xyzz madd: %zu differ", bad);
    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G2_XYZZ_ADD, xg, xa, xb, N2, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < N2; i++) {
        czk_g2_xyzz_add(&xw, &xa[i], &xb[i]);
        czk_g2_xyzz_to_affine(&w, &xw);
        czk_g2_xyzz_to_affine(&g, &xg[i]);
        bad += !czk_g2_affine_eq(&g, &w);
    }
    CHECK_MSG(bad == 0, "G2 xyzz add: %zu differ", bad);
    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G2_XYZZ_DBL, xg, xa, NULL, N2, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < N2; i++) {
        czk_g2_xyzz_dbl(&xw, &xa[i]);
        czk_g2_xyzz_to_affine(&w, &xw);
        czk_g2_xyzz_to_affine(&g, &xg[i]);
        bad += !czk_g2_affine_eq(&g, &w);
    }
    CHECK_MSG(bad == 0, "G2 xyzz dbl: %zu differ", bad);
    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G2_JAC_ADD_AFFINE, jg, ja, ab, N2, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < N2; i++) {
        czk_g2_jac_add_affine(&jw, &ja[i], &ab[i]);
        bad += !czk_g2_jac_eq(&jg[i], &jw);
    }
    CHECK_MSG(bad == 0, "G2 jac madd: %zu differ", bad);
    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G2_JAC_ADD, jg, ja, jb, N2, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < N2; i++) {
        czk_g2_jac_add(&jw, &ja[i], &jb[i]);
        bad += !czk_g2_jac_eq(&jg[i], &jw);
    }
    CHECK_MSG(bad == 0, "G2 jac add: %zu differ", bad);
    CHECK_STATUS(czk__gpu_eval(0, CZK__GPU_G2_JAC_DBL, jg, ja, NULL, N2, &err), CZK_OK);
    bad = 0;
    for (int i = 0; i < N2; i++) {
        czk_g2_jac_dbl(&jw, &ja[i]);
        bad += !czk_g2_jac_eq(&jg[i], &jw);
    }
    CHECK_MSG(bad == 0, "G2 jac dbl: %zu differ", bad);
}

/* ------------------------------------------------------------------------------------ */
/* MSM                                                                                  */
/* ------------------------------------------------------------------------------------ */

enum profile { MIXED, ONE_BUCKET, SMALL, ZEROS, ONES, BITS90 };

static void rand_scalar(czk_scalar *s)
{
    for (int j = 0; j < 4; j++) s->l[j] = czk_test_rand64();
}

static void fill_scalars(czk_scalar *s, size_t n, enum profile p)
{
    czk_scalar same;
    rand_scalar(&same);
    for (size_t i = 0; i < n; i++) {
        memset(&s[i], 0, sizeof s[i]);
        uint64_t u = czk_test_rand64() % 100;
        switch (p) {
        case ONE_BUCKET: s[i] = same; break;
        case SMALL: s[i].l[0] = czk_test_rand64() & 0xff; break;
        case ZEROS: break;
        case ONES: s[i].l[0] = 1; break;
        case BITS90:
            if (u < 45) break;
            if (u < 90) {
                s[i].l[0] = 1;
                break;
            }
            rand_scalar(&s[i]);
            break;
        case MIXED:
            if (u < 10) break;                                   /* 0 */
            if (u < 20) { s[i].l[0] = 1; break; }                /* 1 */
            if (u < 22) { s[i].l[0] = 2 + (u & 1); break; }      /* 2, 3 */
            if (u == 22) { memcpy(s[i].l, R_LIMBS, 32); break; } /* r ≡ 0 */
            if (u == 23) { memcpy(s[i].l, R_LIMBS, 32); s[i].l[0] += 1; break; } /* r + 1 ≡ 1 */
            if (u == 24) { memcpy(s[i].l, R_LIMBS, 32); s[i].l[0] -= 1; break; } /* r − 1 */
            if (u == 25) { memset(s[i].l, 0xff, 32); break; }    /* 2^256 − 1 */
            rand_scalar(&s[i]);                                  /* any 256-bit value */
            break;
        }
    }
}

static bool g1_msm_check(const char *what, const czk_g1_affine *bases, const czk_scalar *s,
                         size_t n, const uint64_t *density, bool resident)
{
    czk_g1_jac want, got;
    czk_g1s_msm(&want, bases, s, n, density, NULL, pool);
    czk_err err;
    czk_err_clear(&err);
    czk_status st;
    czk_gpu_msm_stats stats;
    memset(&stats, 0, sizeof stats);
    if (resident) {
        czk_gpu_scalars *ds = NULL;
        st = czk_gpu_scalars_upload(0, s, n, &ds, &err);
        if (st == CZK_OK) st = czk_gpu_g1s_msm_resident(&got, g1_bases, ds, n, density, &stats, &err);
        czk_gpu_scalars_destroy(ds);
    } else {
        st = czk_gpu_g1s_msm(0, &got, bases, s, n, density, &err);
    }
    CHECK_MSG(st == CZK_OK, "%s n=%zu: %s %s", what, n, czk_status_name(st), err.msg);
    bool ok = st == CZK_OK && czk_g1_jac_eq(&got, &want);
    CHECK_MSG(ok, "%s: G1 MSM n=%zu differs from the CPU (window %u, sig %zu, ones %zu)", what,
              n, stats.window_bits, stats.n_sig, stats.n_one);
    return ok;
}

static bool g2_msm_check(const char *what, const czk_g2_affine *bases, const czk_scalar *s,
                         size_t n, const uint64_t *density, bool resident)
{
    czk_g2_jac want, got;
    czk_g2s_msm(&want, bases, s, n, density, NULL, pool);
    czk_err err;
    czk_err_clear(&err);
    czk_status st;
    if (resident) {
        czk_gpu_scalars *ds = NULL;
        st = czk_gpu_scalars_upload(0, s, n, &ds, &err);
        if (st == CZK_OK) st = czk_gpu_g2s_msm_resident(&got, g2_bases, ds, n, density, NULL, &err);
        czk_gpu_scalars_destroy(ds);
    } else {
        st = czk_gpu_g2s_msm(0, &got, bases, s, n, density, &err);
    }
    CHECK_MSG(st == CZK_OK, "%s n=%zu: %s %s", what, n, czk_status_name(st), err.msg);
    bool ok = st == CZK_OK && czk_g2_jac_eq(&got, &want);
    CHECK_MSG(ok, "%s: G2 MSM n=%zu differs from the CPU", what, n);
    return ok;
}

static void test_synthesized_bases(void)
{
    /* A sample of the GPU-made bases must be distinct subgroup points. */
    size_t bad = 0;
    for (size_t i = 0; i < g1_count; i += (g1_count / 97) | 1) {
        bad += !czk_g1_affine_on_curve(&g1_host[i]) || !czk_g1_affine_in_subgroup(&g1_host[i]) ||
               czk_g1_affine_is_inf(&g1_host[i]);
        if (i + 1 < g1_count) bad += czk_g1_affine_eq(&g1_host[i], &g1_host[i + 1]);
    }
    for (size_t i = 0; i < g2_count; i += (g2_count / 31) | 1) {
        bad += !czk_g2_affine_on_curve(&g2_host[i]) || !czk_g2_affine_in_subgroup(&g2_host[i]) ||
               czk_g2_affine_is_inf(&g2_host[i]);
    }
    CHECK_MSG(bad == 0, "%zu synthesized bases are bad", bad);
}

static void test_g1_msm_sizes(void)
{
    size_t sizes[] = {1024, 4096 + 37, 65533, (size_t)1 << 18, (size_t)1 << 20};
    czk_scalar *s = xmalloc(g1_count * sizeof *s);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        if (n > g1_count) continue;
        fill_scalars(s, n, MIXED);
        g1_msm_check("mixed", g1_host, s, n, NULL, true);
    }
    /* An independent reference at the smallest size: the naive sum. */
    fill_scalars(s, 1024, MIXED);
    czk_g1_jac want, got;
    czk_g1s_msm_naive(&want, g1_host, s, 1024, NULL);
    czk_err err;
    CHECK_STATUS(czk_gpu_g1s_msm(0, &got, g1_host, s, 1024, NULL, &err), CZK_OK);
    CHECK(czk_g1_jac_eq(&got, &want));
    free(s);
}

static void test_g1_msm_profiles(void)
{
    size_t n = small_mode ? 4096 : 65536 + 11;
    if (n > g1_count) n = g1_count;
    czk_scalar *s = xmalloc(n * sizeof *s);
    enum profile ps[] = {ONE_BUCKET, SMALL, ZEROS, ONES, BITS90};
    const char *names[] = {"one bucket", "small", "zeros", "ones", "90% 0/1"};
    for (int k = 0; k < 5; k++) {
        fill_scalars(s, n, ps[k]);
        g1_msm_check(names[k], g1_host, s, n, NULL, true);
    }
    /* Tiny sizes: 0, 1, 2, 3 points. */
    for (size_t m = 0; m < 4; m++) {
        fill_scalars(s, m, MIXED);
        g1_msm_check("tiny", g1_host, s, m, NULL, false);
    }
    free(s);
}

/* n of the synthesized G1 bases (a fresh array) with every 7th at infinity, every 11th from
 * 3 a repeat of b[1] and every 13th from 5 the opposite of b[2]. */
static czk_g1_affine *edited_g1_bases(size_t n)
{
    czk_g1_affine *b = xmalloc(n * sizeof *b);
    memcpy(b, g1_host, n * sizeof *b);
    for (size_t i = 0; i < n; i += 7) memset(&b[i], 0, sizeof b[i]);   /* infinity */
    for (size_t i = 3; i < n; i += 11) b[i] = b[1];                     /* repeated */
    for (size_t i = 5; i < n; i += 13) czk_g1_affine_neg(&b[i], &b[2]); /* opposite */
    return b;
}

static void test_g1_msm_bases(void)
{
    /* Infinity, repeated and opposite bases through the host-array call. */
    size_t n = small_mode ? 3000 : 20000 + 3;
    czk_g1_affine *b = edited_g1_bases(n);
    czk_scalar *s = xmalloc(n * sizeof *s);
    fill_scalars(s, n, MIXED);
    g1_msm_check("edited bases", b, s, n, NULL, false);
    fill_scalars(s, n, ONE_BUCKET);
    g1_msm_check("edited bases, one bucket", b, s, n, NULL, false);
    free(s);
    free(b);
}

static void test_g1_msm_density(void)
{
    size_t n = small_mode ? 4096 + 5 : ((size_t)1 << 16) + 5;
    size_t nw = (n + 63) / 64;
    uint64_t *d = xmalloc(nw * sizeof *d);
    czk_scalar *s = xmalloc(n * sizeof *s);
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < nw; i++) {
            if (k == 0) d[i] = czk_test_rand64() | czk_test_rand64(); /* ~75% set */
            else d[i] = k == 1 ? 0 : ~0ULL;
        }
        size_t nb = czk_density_count(d, n);
        fill_scalars(s, n, MIXED);
        /* Stray bits past n must be ignored. */
        d[nw - 1] |= ~0ULL << (n % 64);
        g1_msm_check("density, host", g1_host, s, n, d, false);
        g1_msm_check("density, resident", g1_host, s, n, d, true);
        CHECK(nb <= g1_count);
    }
    free(d);
    free(s);
}

static void test_g2_msm(void)
{
    size_t sizes[] = {1024, 4096 + 3, 65536};
    czk_scalar *s = xmalloc(g2_count * sizeof *s);
    for (size_t k = 0; k < 3; k++) {
        size_t n = sizes[k];
        if (n > g2_count) continue;
        fill_scalars(s, n, MIXED);
        g2_msm_check("G2 mixed", g2_host, s, n, NULL, true);
    }
    size_t n = 5000;
    if (n > g2_count) n = g2_count;
    fill_scalars(s, n, ONE_BUCKET);
    g2_msm_check("G2 one bucket", g2_host, s, n, NULL, true);
    fill_scalars(s, n, BITS90);
    size_t nw = (n + 63) / 64;
    uint64_t *d = xmalloc(nw * sizeof *d);
    for (size_t i = 0; i < nw; i++) d[i] = czk_test_rand64() | czk_test_rand64();
    g2_msm_check("G2 density", g2_host, s, n, d, false);
    czk_g2_affine *b = xmalloc(n * sizeof *b);
    memcpy(b, g2_host, n * sizeof *b);
    for (size_t i = 0; i < n; i += 5) memset(&b[i], 0, sizeof b[i]);
    for (size_t i = 2; i < n; i += 9) b[i] = b[1];
    fill_scalars(s, n, MIXED);
    g2_msm_check("G2 edited bases", b, s, n, NULL, false);
    free(b);
    free(d);
    free(s);
}

/* Set GPU tuning knob `name` (czk_gpu_tuning) to `value` (NULL: its default) for the MSMs
 * from now on. */
static void set_knob(const char *name, const char *value)
{
    czk_gpu_tuning t;
    czk_err err;
    czk_gpu_get_tuning(&t);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, name, value, &err), CZK_OK);
    CHECK_STATUS(czk_gpu_set_tuning(&t, &err), CZK_OK);
}

/*
 * One G1 MSM of bases b (uploaded for it) with the ones' tree's `noroom`-th allocation
 * failing (czk__gpu_msm_fail_ones_alloc; 0: none): the sum must equal the CPU's, and the
 * stats must say whether the ones' tree summed the ones (all of them) or the XYZZ path did
 * (none by the tree).
 */
static void ones_path_check(const char *what, const czk_g1_affine *b, const czk_scalar *s, size_t n,
                            unsigned noroom, bool want_tree)
{
    czk_g1_jac want, got;
    czk_g1s_msm(&want, b, s, n, NULL, NULL, pool);
    czk__gpu_msm_fail_ones_alloc(noroom);
    czk_err err;
    czk_err_clear(&err);
    czk_gpu_bases *db = NULL;
    czk_gpu_scalars *ds = NULL;
    czk_gpu_msm_stats stats;
    memset(&stats, 0, sizeof stats);
    czk_status st = czk_gpu_g1_bases_upload(0, b, n, &db, &err);
    if (st == CZK_OK) st = czk_gpu_scalars_upload(0, s, n, &ds, &err);
    if (st == CZK_OK) st = czk_gpu_g1s_msm_resident(&got, db, ds, n, NULL, &stats, &err);
    czk_gpu_scalars_destroy(ds);
    czk_gpu_bases_destroy(db);
    czk__gpu_msm_fail_ones_alloc(0);
    CHECK_MSG(st == CZK_OK, "%s n=%zu: %s %s", what, n, czk_status_name(st), err.msg);
    if (st != CZK_OK) return;
    CHECK_MSG(czk_g1_jac_eq(&got, &want), "%s: G1 MSM n=%zu differs from the CPU", what, n);
    CHECK_MSG(stats.n_one > 64 && stats.n_one_tree == (want_tree ? stats.n_one : 0),
              "%s: %zu ones, %zu of them by the tree (want %s)", what, stats.n_one,
              stats.n_one_tree, want_tree ? "all" : "none");
}

/*
 * The ones' batch-affine tree (cuda/ones_affine.cuh). With the defaults it runs only past
 * 2^22 ones; msm_ones_stop = 64 makes these sizes take many levels (20000 ones: 9), and
 * msm_ones_seg = 4096 several trees, one after the other. Bases edited for infinity,
 * repeats and opposites meet every special pair (P + P, P + (−P), infinity) at level 0;
 * repeats also make later levels see equal points. Also 2^18 ones with a stop of 2^16 (two
 * levels of full-size launches) and with the defaults (the XYZZ path below the stop), the
 * XYZZ path alone (a stop above every count) on the same inputs, and the fallback to it when
 * the tree's scratch does not fit (simulated: czk__gpu_msm_fail_ones_alloc), which the
 * stats must show (n_one_tree).
 */
static void test_ones_tree(void)
{
    size_t n = small_mode ? 3000 : 20000 + 3;
    czk_g1_affine *b = edited_g1_bases(n);
    for (size_t i = 20; i + 1 < n; i += 40) b[i + 1] = b[i]; /* P + P at level 0 */
    for (size_t i = 30; i + 1 < n; i += 40) czk_g1_affine_neg(&b[i + 1], &b[i]); /* P + (−P) */
    czk_scalar *s = xmalloc(n * sizeof *s);
    const char *seg[] = {NULL, "4096"};
    for (int k = 0; k < 2; k++) {
        set_knob("msm_ones_stop", "64");
        if (seg[k] != NULL) set_knob("msm_ones_seg", seg[k]);
        fill_scalars(s, n, ONES);
        g1_msm_check(k ? "ones tree, segments" : "ones tree", b, s, n, NULL, false);
        fill_scalars(s, n, BITS90);
        g1_msm_check(k ? "ones tree 90% 0/1, segments" : "ones tree 90% 0/1", b, s, n, NULL,
                     false);
        set_knob("msm_ones_seg", NULL);
    }
    set_knob("msm_ones_stop", "1073741824");
    g1_msm_check("ones by XYZZ alone", b, s, n, NULL, false);
    set_knob("msm_ones_stop", NULL);
    /* No room for the tree's scratch (simulated): the XYZZ path sums them instead. The
     * stats say which path ran: all ones by the tree, then none when its first, its fourth
     * (three given back) or, with several segments, its fifth allocation fails. */
    fill_scalars(s, n, ONES);
    set_knob("msm_ones_stop", "64");
    ones_path_check("ones, room for the tree", b, s, n, 0, true);
    ones_path_check("ones, no room for the tree", b, s, n, 1, false);
    ones_path_check("ones, no room for the tree's fourth buffer", b, s, n, 4, false);
    if (n > 4096) {
        set_knob("msm_ones_seg", "4096");
        ones_path_check("ones in segments, room for the tree", b, s, n, 0, true);
        ones_path_check("ones in segments, no room for their sums", b, s, n, 5, false);
        set_knob("msm_ones_seg", NULL);
    }
    set_knob("msm_ones_stop", NULL);

    /* The G2 case reuses s: at most n scalars (small mode's n is 3000). */
    size_t m = small_mode ? 2048 : 5000;
    if (m > g2_count) m = g2_count;
    if (m > n) m = n;
    czk_g2_affine *b2 = xmalloc(m * sizeof *b2);
    memcpy(b2, g2_host, m * sizeof *b2);
    for (size_t i = 0; i < m; i += 5) memset(&b2[i], 0, sizeof b2[i]);
    for (size_t i = 2; i < m; i += 9) b2[i] = b2[1];
    for (size_t i = 6; i < m; i += 17) czk_g2_affine_neg(&b2[i], &b2[1]);
    fill_scalars(s, m, ONES);
    g2_msm_check("G2 ones tree", b2, s, m, NULL, false);
    fill_scalars(s, m, BITS90);
    g2_msm_check("G2 ones tree 90% 0/1", b2, s, m, NULL, false);
    set_knob("msm_ones_stop", NULL);

    /* 2^18 ones: two levels above a stop of 2^16, then the defaults (all below the stop). */
    size_t big = small_mode ? 4096 : (size_t)1 << 18;
    if (big > g1_count) big = g1_count;
    czk_scalar *sb = xmalloc(big * sizeof *sb);
    fill_scalars(sb, big, ONES);
    set_knob("msm_ones_stop", small_mode ? "1024" : "65536");
    g1_msm_check("ones tree, stop 2^16", g1_host, sb, big, NULL, true);
    set_knob("msm_ones_stop", NULL);
    g1_msm_check("ones, defaults", g1_host, sb, big, NULL, true);
    free(sb);
    free(b2);
    free(s);
    free(b);
}

/*
 * The accumulator of MSMs in pieces (czk__gpu_msm_acc, the partition prover's witness
 * MSMs): G1 and G2, with and without a density, pieces of uneven sizes (whole density
 * words) against the CPU's MSM of the whole. With a small compact set both flushes run:
 * the set filling up, and a piece with more significant scalars than it holds.
 */
static void acc_check(const char *what, int group, size_t n, enum profile p, bool dens,
                      bool small_limits)
{
    const size_t nmax = group == 1 ? g1_count : g2_count;
    if (n > nmax) n = nmax;
    czk_scalar *s = xmalloc(n * sizeof *s);
    fill_scalars(s, n, p);
    const size_t nw = (n + 63) / 64;
    uint64_t *d = NULL;
    if (dens) {
        d = xmalloc(nw * sizeof *d);
        for (size_t i = 0; i < nw; i++) d[i] = czk_test_rand64() | czk_test_rand64();
    }
    czk_err err;
    czk_gpu_scalars *ds = NULL;
    CHECK_STATUS(czk_gpu_scalars_upload(0, s, n, &ds, &err), CZK_OK);
    const czk_scalar *sd = czk__gpu_scalars_dev(ds);
    const uint8_t *bd = czk__gpu_bases_dev(group == 1 ? g1_bases : g2_bases);
    const size_t el = group == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
    if (small_limits) czk__gpu_msm_acc_set_limit(300);
    czk__gpu_msm_acc *a = NULL;
    CHECK_STATUS(czk__gpu_msm_acc_begin(0, group, n, &a, &err), CZK_OK);
    size_t pieces = 0;
    for (size_t lo = 0; lo < n && a != NULL;) {
        size_t len = 64 * (1 + czk_test_rand64() % (small_mode ? 24 : 160));
        if (lo + len > n) len = n - lo;
        const size_t b0 = d != NULL ? czk_density_count(d, lo) : lo;
        const size_t b1 = d != NULL ? czk_density_count(d, lo + len) : lo + len;
        czk_status st = czk__gpu_msm_acc_add(a, bd + b0 * el, b1 - b0, sd + lo, len,
                                             d != NULL ? d + lo / 64 : NULL, NULL, &err);
        CHECK_MSG(st == CZK_OK, "%s: piece at %zu: %s", what, lo, err.msg);
        if (st != CZK_OK) break;
        lo += len;
        pieces++;
    }
    czk_gpu_msm_stats st;
    memset(&st, 0, sizeof st);
    if (group == 1) {
        czk_g1_jac got, want;
        CHECK_STATUS(czk__gpu_msm_acc_end(a, &got, &st, &err), CZK_OK);
        czk_g1s_msm(&want, g1_host, s, n, d, NULL, pool);
        CHECK_MSG(czk_g1_jac_eq(&got, &want), "%s: G1, %zu pieces, differs from the CPU", what,
                  pieces);
    } else {
        czk_g2_jac got, want;
        CHECK_STATUS(czk__gpu_msm_acc_end(a, &got, &st, &err), CZK_OK);
        czk_g2s_msm(&want, g2_host, s, n, d, NULL, pool);
        CHECK_MSG(czk_g2_jac_eq(&got, &want), "%s: G2, %zu pieces, differs from the CPU", what,
                  pieces);
    }
    /* Every scalar counted once, in one of the three kinds. */
    const size_t need = d != NULL ? czk_density_count(d, n) : n;
    CHECK(st.n_sig + st.n_one + st.n_zero == need);
    CHECK(st.calls >= pieces);
    czk__gpu_msm_acc_free(a);
    czk__gpu_msm_acc_set_limit(0);
    czk_gpu_scalars_destroy(ds);
    free(d);
    free(s);
}

static void test_msm_acc(void)
{
    const size_t n1 = small_mode ? 4000 : 200000 + 7, n2 = small_mode ? 3000 : 40000 + 3;
    for (int lim = 0; lim < 2; lim++) {
        const char *w = lim ? "acc, small limits" : "acc";
        acc_check(w, 1, n1, BITS90, false, lim);
        acc_check(w, 1, n1, BITS90, true, lim);
        acc_check(w, 1, n1, MIXED, false, lim);
        acc_check(w, 1, n1, ONES, true, lim);
        acc_check(w, 1, n1, ZEROS, false, lim);
        acc_check(w, 2, n2, BITS90, true, lim);
        acc_check(w, 2, n2, MIXED, false, lim);
    }
    /* One piece is a plain MSM. */
    acc_check("acc, one piece", 1, 64, MIXED, false, false);
}

static void test_errors(void)
{
    czk_err err;
    czk_g1_jac out;
    czk_g2_jac out2;
    czk_scalar s[70];
    memset(s, 0, sizeof s);
    uint64_t d[2] = {~0ULL, ~0ULL};
    czk_gpu_bases *few = NULL;
    CHECK_STATUS(czk_gpu_g1_bases_upload(0, g1_host, 10, &few, &err), CZK_OK);
    czk_gpu_scalars *ds = NULL;
    CHECK_STATUS(czk_gpu_scalars_upload(0, s, 70, &ds, &err), CZK_OK);
    /* 70 density bits set but 10 bases. */
    CHECK_STATUS(czk_gpu_g1s_msm_resident(&out, few, ds, 70, d, NULL, &err), CZK_EINVAL);
    /* More scalars asked than uploaded. */
    CHECK_STATUS(czk_gpu_g1s_msm_resident(&out, g1_bases, ds, 71, NULL, NULL, &err), CZK_EINVAL);
    /* G1 bases in a G2 MSM. */
    CHECK_STATUS(czk_gpu_g2s_msm_resident(&out2, few, ds, 5, NULL, NULL, &err), CZK_EINVAL);
    /* No such GPU. */
    CHECK_STATUS(czk_gpu_g1s_msm(1000, &out, g1_host, s, 5, NULL, &err), CZK_ENOGPU);
    czk_gpu_scalars_destroy(ds);
    czk_gpu_bases_destroy(few);
}

int main(void)
{
    czk_test_seed();
    if (czk_gpu_count() == 0) CZK_TEST_SKIP("no GPU");
    small_mode = getenv("CZK_TEST_GPU_SMALL") != NULL;
    czk_err err;
    if (czk_pool_create(&pool, czk_cpu_count(), &err) != CZK_OK) {
        fprintf(stderr, "pool: %s\n", err.msg);
        return 1;
    }
    g1_count = small_mode ? 4096 + 64 : (size_t)1 << 20;
    g2_count = small_mode ? 4096 + 64 : (size_t)1 << 16;
    uint64_t seed = czk_test_rand64();
    if (czk_gpu_bases_synthesize(0, 1, g1_count, seed, &g1_bases, &err) != CZK_OK ||
        czk_gpu_bases_synthesize(0, 2, g2_count, seed + 1, &g2_bases, &err) != CZK_OK) {
        fprintf(stderr, "synthesize: %s\n", err.msg);
        return 1;
    }
    g1_host = xmalloc(g1_count * sizeof *g1_host);
    g2_host = xmalloc(g2_count * sizeof *g2_host);
    if (czk_gpu_bases_download(g1_bases, 0, g1_count, g1_host, &err) != CZK_OK ||
        czk_gpu_bases_download(g2_bases, 0, g2_count, g2_host, &err) != CZK_OK) {
        fprintf(stderr, "download: %s\n", err.msg);
        return 1;
    }

    RUN(test_fp_ops);
    RUN(test_fr_ops);
    RUN(test_fp2_ops);
    RUN(test_g1_ops);
    RUN(test_g2_ops);
    RUN(test_synthesized_bases);
    RUN(test_g1_msm_sizes);
    RUN(test_g1_msm_profiles);
    RUN(test_g1_msm_bases);
    RUN(test_g1_msm_density);
    RUN(test_g2_msm);
    RUN(test_ones_tree);
    RUN(test_msm_acc);
    RUN(test_errors);

    czk_gpu_bases_destroy(g1_bases);
    czk_gpu_bases_destroy(g2_bases);
    free(g1_host);
    free(g2_host);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
