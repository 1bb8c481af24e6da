/*
 * Test parameters: Groth16 keys in bellperson's convention for any R1CS, from toxic waste
 * drawn here (or derived from a seed) and discarded. INSECURE by construction (whoever
 * runs this could keep the waste); for tests and benchmarks only.
 *
 * For each variable i: u_i(τ), v_i(τ), w_i(τ) = Σ_rows coeff · L_row(τ), with L_j the
 * Lagrange basis of the domain (bellperson's roots, from 7) and the input rows x_i·0 = 0
 * appended after the circuit's rows, as bellperson's generator does. Then
 *   a    = [u_i]₁, inputs then A-dense aux      b = [v_i]₁,₂, B-dense inputs then aux
 *   ic   = [(β·u_i + α·v_i + w_i)/γ]₁            l = [(β·u_k + α·v_k + w_k)/δ]₁
 *   h    = [τ^i·(τ^m − 1)/δ]₁, i < m − 1
 *
 * This file holds what both entries share (waste, Lagrange basis, czk__setup_keys) and the
 * R1CS entry; setup_stream.c evaluates the QAP while a circuit is synthesized.
 */
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "czk/ntt.h"
#include "groth16/setup_internal.h"

#include <openssl/evp.h>
#include <string.h>

/* ---- Toxic waste ------------------------------------------------------------------- */

static czk_status seeded_scalar(czk_fr *out, const uint8_t seed[32], const char *label,
                                czk_err *err)
{
    static const char DOMAIN[] = "czk groth16 setup v1";
    for (uint32_t c = 0;; c++) {
        uint8_t ctr[4] = {(uint8_t)c, (uint8_t)(c >> 8), (uint8_t)(c >> 16), (uint8_t)(c >> 24)};
        uint8_t wide[64];
        unsigned len = 0;
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        bool ok = md != NULL && EVP_DigestInit_ex(md, EVP_sha512(), NULL) == 1 &&
                  EVP_DigestUpdate(md, DOMAIN, sizeof DOMAIN - 1) == 1 &&
                  EVP_DigestUpdate(md, seed, 32) == 1 &&
                  EVP_DigestUpdate(md, label, strlen(label)) == 1 &&
                  EVP_DigestUpdate(md, ctr, 4) == 1 && EVP_DigestFinal_ex(md, wide, &len) == 1 &&
                  len == 64;
        EVP_MD_CTX_free(md);
        if (!ok) return czk_err_set(err, CZK_EINTERNAL, "setup: SHA-512 failed");
        czk_fr_from_wide_bytes(out, wide);
        memset(wide, 0, sizeof wide);
        if (!czk_fr_is_zero(out)) return CZK_OK;
    }
}

static czk_status random_nonzero(czk_fr *out, czk_err *err)
{
    do {
        if (czk_fr_random(out) != CZK_OK)
            return czk_err_set(err, CZK_EIO, "setup: no randomness from the OS");
    } while (czk_fr_is_zero(out));
    return CZK_OK;
}

czk_status czk__setup_draw(czk__setup_waste *w, const uint8_t *seed, czk_err *err)
{
    czk_fr *v[5] = {&w->tau, &w->alpha, &w->beta, &w->gamma, &w->delta};
    static const char *const LABELS[5] = {"tau", "alpha", "beta", "gamma", "delta"};
    for (int i = 0; i < 5; i++) {
        czk_status st = seed != NULL ? seeded_scalar(v[i], seed, LABELS[i], err)
                                     : random_nonzero(v[i], err);
        if (st != CZK_OK) return st;
    }
    return CZK_OK;
}

void czk__setup_scrub_fr(czk_fr *v)
{
    volatile uint8_t *p = (volatile uint8_t *)v;
    for (size_t i = 0; i < sizeof *v; i++) p[i] = 0;
}

void czk__setup_scrub(czk__setup_waste *w)
{
    /* A volatile pointer keeps the stores: the waste must not outlive the setup. */
    volatile uint8_t *p = (volatile uint8_t *)w;
    for (size_t i = 0; i < sizeof *w; i++) p[i] = 0;
}

unsigned czk__setup_log_m(size_t rows)
{
    unsigned log_m = 1;
    while (((size_t)1 << log_m) < rows) log_m++;
    return log_m > 28 ? 0 : log_m;
}

/* Domain points per Lagrange task: its batch inversion's scratch is 2 MB. */
#define LAG_CHUNK ((size_t)1 << 16)

struct lag_ctx {
    czk_fr *lag;
    size_t m;
    czk_fr tau, omega, zt; /* zt = (τ^m − 1)/m */
    bool hit;              /* τ is a domain point (set by at most one task) */
};

/* Chunk t of L_j(τ) = zt · ω^j/(τ − ω^j). ω^j is walked twice (before and after the batch
 * inversion) instead of being stored: one multiplication a point saves 32 bytes a point. */
static void lag_task(void *p, size_t t, unsigned worker)
{
    (void)worker;
    struct lag_ctx *x = p;
    size_t lo = t * LAG_CHUNK, hi = lo + LAG_CHUNK < x->m ? lo + LAG_CHUNK : x->m;
    uint64_t e[1] = {lo};
    czk_fr w0, wj;
    czk_fr_pow(&w0, &x->omega, e, 1);
    wj = w0;
    for (size_t j = lo; j < hi; j++) {
        czk_fr_sub(&x->lag[j], &x->tau, &wj);
        if (czk_fr_is_zero(&x->lag[j])) __atomic_store_n(&x->hit, true, __ATOMIC_RELAXED);
        czk_fr_mul(&wj, &wj, &x->omega);
    }
    czk_frs_inv(x->lag + lo, hi - lo, NULL);
    wj = w0;
    for (size_t j = lo; j < hi; j++) {
        czk_fr_mul(&x->lag[j], &x->lag[j], &wj);
        czk_fr_mul(&x->lag[j], &x->lag[j], &x->zt);
        czk_fr_mul(&wj, &wj, &x->omega);
    }
}

czk_status czk__setup_lagrange(czk_fr *lag, const czk_fr *tau, unsigned log_m, czk_pool *pool,
                               czk_err *err)
{
    struct lag_ctx x;
    memset(&x, 0, sizeof x);
    x.lag = lag;
    x.m = (size_t)1 << log_m;
    x.tau = *tau;
    czk_fr tm = *tau, mfr;
    czk_fr_root_of_unity(&x.omega, log_m, CZK_ROOTS_BELLPERSON);
    for (unsigned i = 0; i < log_m; i++) czk_fr_sqr(&tm, &tm);
    czk_fr_sub(&x.zt, &tm, &CZK_FR_ONE);
    czk_fr_from_u64(&mfr, x.m);
    czk_fr_inv(&mfr, &mfr);
    czk_fr_mul(&x.zt, &x.zt, &mfr);
    czk_pool_run(pool, (x.m + LAG_CHUNK - 1) / LAG_CHUNK, lag_task, &x);
    czk__setup_scrub_fr(&x.tau);
    if (x.hit) /* probability m/r */
        return czk_err_set(err, CZK_EINTERNAL, "setup: tau hit the domain; run again");
    return CZK_OK;
}

/* ---- From u, v, w to the keys ------------------------------------------------------ */

static bool bit(const uint64_t *bm, size_t i) { return (bm[i / 64] >> (i % 64)) & 1; }

static size_t count_bits(const uint64_t *bm, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += bit(bm, i);
    return c;
}

uint64_t czk__setup_units(const czk__setup_qap *q)
{
    size_t m = (size_t)1 << q->log_m;
    size_t a_len = q->ni + count_bits(q->a_aux, q->na);
    size_t b_len = count_bits(q->b_in, q->ni) + count_bits(q->b_aux, q->na);
    return q->ni + q->na + (m - 1) + a_len + 3 * b_len;
}

void czk__setup_qap_free(czk__setup_qap *q)
{
    czk_free(q->lag);
    czk_free(q->u);
    czk_free(q->v);
    czk_free(q->w);
    czk_free(q->a_aux);
    czk_free(q->b_in);
    czk_free(q->b_aux);
    q->lag = q->u = q->v = q->w = NULL;
    q->a_aux = q->b_in = q->b_aux = NULL;
}

/* Points per GPU call: one progress step each (a few tenths of a second on an H200). */
#define GPU_ROUND ((size_t)1 << 22)

/* One round of one section on every GPU at once, a pool task per GPU (each call blocks
 * until its GPU is done; the GPUs share nothing but the host scalars). */
#define MAX_SETUP_GPUS 64

struct gpu_round {
    czk_gpu_srs **srs;
    czk_groth16_section sec;
    size_t first, n;
    const czk_fr *k;
    czk_status st[MAX_SETUP_GPUS];
    czk_err err[MAX_SETUP_GPUS];
};

static void gpu_round_task(void *p, size_t g, unsigned worker)
{
    (void)worker;
    struct gpu_round *x = p;
    x->st[g] = czk_gpu_srs_fixed_base(x->srs[g], x->sec, x->first, x->k, x->n, &x->err[g]);
}

/*
 * One section's points from its scalars k[0..n): into a new host array *host (ngpus == 0),
 * or into section `sec` of every SRS, in rounds so that the progress bar moves. A G2
 * point counts two units of progress.
 */
static czk_status section(void *host, int group, czk_groth16_section sec, const czk_fr *k,
                          size_t n, const czk_groth16_setup_opts *o, czk_gpu_srs **srs,
                          czk_pool *pool, czk__progress *pr, czk_err *err)
{
    if (o->ngpus == 0) {
        if (host == NULL)
            return czk_err_set(err, CZK_ENOMEM, "setup: out of memory for %zu points", n);
        return group == 1 ? czk__g1s_fixed_base(host, k, n, pool, pr, err)
                          : czk__g2s_fixed_base(host, k, n, pool, pr, err);
    }
    struct gpu_round *r = czk_calloc(1, sizeof *r);
    if (r == NULL) return czk_err_set(err, CZK_ENOMEM, "setup: out of memory");
    czk_status st = CZK_OK;
    for (size_t lo = 0; lo < n && st == CZK_OK; lo += GPU_ROUND) {
        size_t cnt = n - lo < GPU_ROUND ? n - lo : GPU_ROUND;
        r->srs = srs;
        r->sec = sec;
        r->first = lo;
        r->n = cnt;
        r->k = k + lo;
        if (o->ngpus == 1)
            gpu_round_task(r, 0, 0);
        else
            czk_pool_run(pool, o->ngpus, gpu_round_task, r);
        for (size_t g = 0; g < o->ngpus && st == CZK_OK; g++)
            if (r->st[g] != CZK_OK)
                st = czk_err_set(err, r->st[g], "setup: GPU %d: %s", czk_gpu_srs_gpu(srs[g]),
                                 r->err[g].msg);
        if (st == CZK_OK) czk__progress_add(pr, (uint64_t)cnt * (group == 1 ? 1 : 2));
    }
    czk_free(r);
    return st;
}

/* Scalars per task of the parallel loops below. */
#define SCALAR_CHUNK ((size_t)1 << 16)

struct scalars_ctx {
    czk__setup_qap *q;
    const czk__setup_waste *tw;
    czk_fr *kic;
    czk_fr ginv, dinv, zt; /* 1/γ, 1/δ, (τ^m − 1)/δ */
};

/* ic_i = (β·u_i + α·v_i + w_i)/γ for the inputs, l_k the same over δ in place of w. */
static void icl_task(void *p, size_t t, unsigned worker)
{
    (void)worker;
    struct scalars_ctx *x = p;
    const size_t ni = x->q->ni, nv = ni + x->q->na;
    size_t lo = t * SCALAR_CHUNK, hi = lo + SCALAR_CHUNK < nv ? lo + SCALAR_CHUNK : nv;
    for (size_t i = lo; i < hi; i++) {
        czk_fr a, b;
        czk_fr_mul(&a, &x->tw->beta, &x->q->u[i]);
        czk_fr_mul(&b, &x->tw->alpha, &x->q->v[i]);
        czk_fr_add(&a, &a, &b);
        czk_fr_add(&a, &a, &x->q->w[i]);
        czk_fr_mul(i < ni ? &x->kic[i] : &x->q->w[i], &a, i < ni ? &x->ginv : &x->dinv);
    }
}

/* h_i = τ^i·(τ^m − 1)/δ for i < m − 1, into lag; each chunk starts from τ^lo. */
static void h_task(void *p, size_t t, unsigned worker)
{
    (void)worker;
    struct scalars_ctx *x = p;
    const size_t n = ((size_t)1 << x->q->log_m) - 1;
    size_t lo = t * SCALAR_CHUNK, hi = lo + SCALAR_CHUNK < n ? lo + SCALAR_CHUNK : n;
    uint64_t e[1] = {lo};
    czk_fr pw;
    czk_fr_pow(&pw, &x->tw->tau, e, 1);
    czk_fr_mul(&pw, &pw, &x->zt);
    for (size_t i = lo; i < hi; i++) {
        x->q->lag[i] = pw;
        czk_fr_mul(&pw, &pw, &x->tw->tau);
    }
    czk__setup_scrub_fr(&pw);
}

/* A host array for n points of `elem` bytes, or NULL when the points go to GPUs. */
static void *host_points(const czk_groth16_setup_opts *o, size_t n, size_t elem)
{
    return o->ngpus == 0 ? czk_malloc((n ? n : 1) * elem) : NULL;
}

czk_status czk__setup_keys(czk_groth16_params *out, const czk__setup_waste *tw,
                           czk__setup_qap *q, const czk_groth16_setup_opts *opts,
                           czk_pool *pool, czk__progress *pr, czk_err *err)
{
    static const czk_groth16_setup_opts NO_OPTS;
    const czk_groth16_setup_opts *o = opts != NULL ? opts : &NO_OPTS;
    const size_t ni = q->ni, na = q->na, nv = ni + na, m = (size_t)1 << q->log_m;
    czk_gpu_srs **srs = NULL;
    czk_fr *kic = NULL;
    czk_status st = CZK_OK;
    memset(out, 0, sizeof *out);
    if (o->ngpus > 0 && (o->gpus == NULL || o->srs_out == NULL)) {
        st = czk_err_set(err, CZK_EINVAL, "setup: GPUs without a place for their SRS");
        goto fail;
    }
    if (o->ngpus > MAX_SETUP_GPUS) {
        st = czk_err_set(err, CZK_EINVAL, "setup: %zu GPUs, at most %d", o->ngpus,
                         MAX_SETUP_GPUS);
        goto fail;
    }

    /* The input rows x_i·0 = 0 follow the circuit's rows: they put L_row(τ) into u_i. */
    for (size_t i = 0; i < ni; i++) czk_fr_add(&q->u[i], &q->u[i], &q->lag[q->n_constraints + i]);

    /* ic (inputs, over γ) apart, l (aux, over δ) in place of w. */
    kic = czk_malloc(ni * sizeof *kic);
    if (kic == NULL) {
        st = czk_err_set(err, CZK_ENOMEM, "setup: out of memory");
        goto fail;
    }
    {
        /* h goes in place of the Lagrange basis, which the QAP no longer needs. */
        struct scalars_ctx sx = {q, tw, kic, {{0}}, {{0}}, {{0}}};
        czk_fr tm = tw->tau;
        czk_fr_inv(&sx.ginv, &tw->gamma);
        czk_fr_inv(&sx.dinv, &tw->delta);
        for (unsigned i = 0; i < q->log_m; i++) czk_fr_sqr(&tm, &tm);
        czk_fr_sub(&sx.zt, &tm, &CZK_FR_ONE);
        czk_fr_mul(&sx.zt, &sx.zt, &sx.dinv);
        czk_pool_run(pool, (nv + SCALAR_CHUNK - 1) / SCALAR_CHUNK, icl_task, &sx);
        czk_pool_run(pool, (m - 1 + SCALAR_CHUNK - 1) / SCALAR_CHUNK, h_task, &sx);
        czk__setup_scrub_fr(&sx.ginv);
        czk__setup_scrub_fr(&sx.dinv);
        czk__setup_scrub_fr(&sx.zt);
    }
    /* a and b compacted in place of u and v (index out ≤ index in, so forward is safe):
     * the inputs, then the dense aux variables. */
    size_t a_len = ni, b_len = 0;
    for (size_t i = 0; i < ni; i++)
        if (bit(q->b_in, i)) q->v[b_len++] = q->v[i];
    for (size_t k = 0; k < na; k++) {
        if (bit(q->a_aux, k)) q->u[a_len++] = q->u[ni + k];
        if (bit(q->b_aux, k)) q->v[b_len++] = q->v[ni + k];
    }

    out->conv = CZK_H_BELLPERSON;
    out->n_inputs = (uint32_t)ni;
    out->n_aux = (uint32_t)na;
    out->log_m = q->log_m;
    out->vk.ic_len = ni;
    out->h_len = m - 1;
    out->l_len = na;
    out->a_len = a_len;
    out->b_g1_len = b_len;
    out->b_g2_len = b_len;

    if (o->ngpus > 0) {
        srs = czk_calloc(o->ngpus, sizeof *srs);
        if (srs == NULL) {
            st = czk_err_set(err, CZK_ENOMEM, "setup: out of memory");
            goto fail;
        }
        for (size_t g = 0; g < o->ngpus; g++)
            if ((st = czk_gpu_srs_create_empty(&srs[g], o->gpus[g], out, err)) != CZK_OK)
                goto fail;
    }

    out->vk.ic = czk_malloc(ni * sizeof *out->vk.ic);
    if (out->vk.ic == NULL) {
        st = czk_err_set(err, CZK_ENOMEM, "setup: out of memory");
        goto fail;
    }
    if ((st = czk__g1s_fixed_base(out->vk.ic, kic, ni, pool, pr, err)) != CZK_OK) goto fail;
    czk_free(kic);
    kic = NULL;
    /* Each scalar array is freed as soon as its section is made. */
    out->l = host_points(o, na, sizeof *out->l);
    if ((st = section(out->l, 1, CZK_G16_L, q->w + ni, na, o, srs, pool, pr, err)))
        goto fail;
    czk_free(q->w);
    q->w = NULL;
    out->h = host_points(o, m - 1, sizeof *out->h);
    if ((st = section(out->h, 1, CZK_G16_H, q->lag, m - 1, o, srs, pool, pr, err)))
        goto fail;
    czk_free(q->lag);
    q->lag = NULL;
    out->a = host_points(o, a_len, sizeof *out->a);
    if ((st = section(out->a, 1, CZK_G16_A, q->u, a_len, o, srs, pool, pr, err)))
        goto fail;
    czk_free(q->u);
    q->u = NULL;
    out->b_g1 = host_points(o, b_len, sizeof *out->b_g1);
    if ((st = section(out->b_g1, 1, CZK_G16_B_G1, q->v, b_len, o, srs, pool, pr, err)))
        goto fail;
    out->b_g2 = host_points(o, b_len, sizeof *out->b_g2);
    if ((st = section(out->b_g2, 2, CZK_G16_B_G2, q->v, b_len, o, srs, pool, pr, err)))
        goto fail;

    /* The verifying key's fixed elements. */
    {
        czk_g1_jac g1, t1;
        czk_g2_jac g2, t2;
        czk_g1_jac_from_affine(&g1, &CZK_G1_GENERATOR);
        czk_g2_jac_from_affine(&g2, &CZK_G2_GENERATOR);
        czk_g1_jac_mul_fr(&t1, &g1, &tw->alpha);
        czk_g1_jac_to_affine(&out->vk.alpha_g1, &t1);
        czk_g1_jac_mul_fr(&t1, &g1, &tw->beta);
        czk_g1_jac_to_affine(&out->vk.beta_g1, &t1);
        czk_g1_jac_mul_fr(&t1, &g1, &tw->delta);
        czk_g1_jac_to_affine(&out->vk.delta_g1, &t1);
        czk_g2_jac_mul_fr(&t2, &g2, &tw->beta);
        czk_g2_jac_to_affine(&out->vk.beta_g2, &t2);
        czk_g2_jac_mul_fr(&t2, &g2, &tw->gamma);
        czk_g2_jac_to_affine(&out->vk.gamma_g2, &t2);
        czk_g2_jac_mul_fr(&t2, &g2, &tw->delta);
        czk_g2_jac_to_affine(&out->vk.delta_g2, &t2);
    }
    for (size_t g = 0; g < o->ngpus; g++) {
        /* The fixed-base working memory (about 1 GB a GPU) is not the prover's to keep. */
        czk_gpu_fixed_base_release(o->gpus[g]);
        o->srs_out[g] = srs[g];
    }
    czk_free(srs);
    czk__setup_qap_free(q);
    return CZK_OK;
fail:
    if (srs != NULL)
        for (size_t g = 0; g < o->ngpus; g++) {
            czk_gpu_srs_destroy(srs[g]);
            czk_gpu_fixed_base_release(o->gpus[g]);
        }
    czk_free(srs);
    czk_free(kic);
    czk__setup_qap_free(q);
    czk_groth16_params_free(out);
    memset(out, 0, sizeof *out);
    return st;
}

/* ---- The R1CS entry ---------------------------------------------------------------- */

struct qap_ctx {
    const czk_r1cs *r;
    const czk_fr *lag; /* L_j(τ), j < m */
    czk_fr *u, *v, *w;
};

static void qap_task(void *p, size_t which, unsigned worker)
{
    (void)worker;
    struct qap_ctx *x = p;
    const czk_csr *mat = which == 0 ? &x->r->a : which == 1 ? &x->r->b : &x->r->c;
    czk_fr *out = which == 0 ? x->u : which == 1 ? x->v : x->w;
    if (which == 2 && !x->r->has_c) return;
    for (uint32_t j = 0; j < x->r->n_constraints; j++) {
        for (uint64_t k = mat->row_ptr[j]; k < mat->row_ptr[j + 1]; k++) {
            czk_fr t;
            czk_fr_mul(&t, &mat->val[k], &x->lag[j]);
            czk_fr_add(&out[mat->col[k]], &out[mat->col[k]], &t);
        }
    }
}

czk_status czk_groth16_setup_r1cs(czk_groth16_params *out, const czk_r1cs *r1cs,
                                  const czk_groth16_setup_opts *opts, czk_pool *pool,
                                  czk_progress_fn progress, void *progress_ctx, czk_err *err)
{
    memset(out, 0, sizeof *out);
    if (r1cs == NULL || r1cs->n_inputs == 0)
        return czk_err_set(err, CZK_EINVAL, "setup: the R1CS needs at least the ONE input");
    if (!r1cs->has_c)
        return czk_err_set(err, CZK_EINVAL, "setup: the R1CS has no C matrix");
    const size_t ni = r1cs->n_inputs, na = r1cs->n_aux, nv = ni + na;
    const size_t rows = (size_t)r1cs->n_constraints + ni;
    const unsigned log_m = czk__setup_log_m(rows);
    if (log_m == 0) return czk_err_set(err, CZK_EINVAL, "setup: %zu rows is too many", rows);

    czk__setup_waste tw;
    czk__setup_qap q;
    memset(&q, 0, sizeof q);
    q.ni = ni;
    q.na = na;
    q.n_constraints = r1cs->n_constraints;
    q.log_m = log_m;
    czk_status st = czk__setup_draw(&tw, opts != NULL ? opts->seed : NULL, err);
    if (st != CZK_OK) goto done;
    size_t words_a = (na + 63) / 64 + 1, words_bi = (ni + 63) / 64 + 1;
    q.lag = czk_malloc(((size_t)1 << log_m) * sizeof *q.lag);
    q.u = czk_calloc(nv, sizeof *q.u);
    q.v = czk_calloc(nv, sizeof *q.v);
    q.w = czk_calloc(nv, sizeof *q.w);
    q.a_aux = czk_calloc(words_a, 8);
    q.b_in = czk_calloc(words_bi, 8);
    q.b_aux = czk_calloc(words_a, 8);
    if (!q.lag || !q.u || !q.v || !q.w || !q.a_aux || !q.b_in || !q.b_aux) {
        st = czk_err_set(err, CZK_ENOMEM, "setup: out of memory for %zu variables", nv);
        goto done;
    }
    if ((st = czk__setup_lagrange(q.lag, &tw.tau, log_m, pool, err)) != CZK_OK) goto done;
    struct qap_ctx qc = {r1cs, q.lag, q.u, q.v, q.w};
    czk_pool_run(pool, 3, qap_task, &qc);
    czk_r1cs_densities(r1cs, q.a_aux, q.b_in, q.b_aux);

    czk__progress pr = {progress, progress_ctx, 0, czk__setup_units(&q)};
    st = czk__setup_keys(out, &tw, &q, opts, pool, &pr, err);
done:
    czk__setup_qap_free(&q);
    czk__setup_scrub(&tw);
    return st;
}

czk_status czk_groth16_setup(czk_groth16_params *out, const czk_r1cs *r1cs, czk_pool *pool,
                             czk_progress_fn progress, void *progress_ctx, czk_err *err)
{
    return czk_groth16_setup_r1cs(out, r1cs, NULL, pool, progress, progress_ctx, err);
}
