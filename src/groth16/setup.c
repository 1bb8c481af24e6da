/*
 * Test parameters: Groth16 keys in bellperson's convention for any R1CS, from toxic waste
 * drawn here and discarded. INSECURE by construction (whoever runs this could keep the
 * waste); for tests and benchmarks only.
 *
 * For each variable i: u_i(τ), v_i(τ), w_i(τ) = Σ_rows coeff · L_row(τ), with L_j the
 * Lagrange basis of the domain (bellperson's roots, from 7) and the input rows x_i·0 = 0
 * appended after the circuit's rows, as bellperson's generator does. Then
 *   a    = [u_i]₁, inputs then A-dense aux      b = [v_i]₁,₂, B-dense inputs then aux
 *   ic   = [(β·u_i + α·v_i + w_i)/γ]₁            l = [(β·u_k + α·v_k + w_k)/δ]₁
 *   h    = [τ^i·(τ^m − 1)/δ]₁, i < m − 1
 */
#include "czk/alloc.h"
#include "czk/groth16.h"
#include "czk/ntt.h"

#include <string.h>

#define CHUNK 1024

/* ---- fixed-base scalar multiplication -------------------------------------------- */

/* Window width for n scalars: larger tables pay off only for many scalars. */
static unsigned window_bits(size_t n)
{
    if (n < (1u << 10)) return 6;
    if (n < (1u << 16)) return 10;
    return 14;
}

struct g1_table {
    unsigned c, nwin;
    czk_g1_affine *t; /* nwin × (2^c − 1): t[w·(2^c−1) + d − 1] = d·2^(wc)·G */
};

struct g1_table_ctx {
    struct g1_table *tab;
    const czk_g1_affine *base;
};

static void g1_table_task(void *p, size_t w, unsigned worker)
{
    struct g1_table_ctx *x = p;
    const size_t per = ((size_t)1 << x->tab->c) - 1;
    czk_g1_jac b, acc;
    czk_g1_jac_from_affine(&b, x->base);
    for (size_t k = 0; k < w * x->tab->c; k++) czk_g1_jac_dbl(&b, &b);
    czk_g1_jac *tmp = czk_malloc(per * sizeof *tmp);
    acc = b;
    for (size_t d = 0; d < per; d++) {
        tmp[d] = acc;
        czk_g1_jac_add(&acc, &acc, &b);
    }
    czk_g1s_jac_to_affine(x->tab->t + w * per, tmp, per, NULL);
    czk_free(tmp);
}

struct g1_mul_ctx {
    const struct g1_table *tab;
    const czk_fr *k;
    czk_g1_affine *out;
    size_t n;
};

static unsigned digit(const uint64_t l[4], unsigned bit, unsigned c)
{
    unsigned v = 0;
    for (unsigned i = 0; i < c && bit + i < 256; i++)
        v |= (unsigned)((l[(bit + i) / 64] >> ((bit + i) % 64)) & 1) << i;
    return v;
}

static void g1_mul_task(void *p, size_t t, unsigned worker)
{
    struct g1_mul_ctx *x = p;
    size_t lo = t * CHUNK, hi = lo + CHUNK < x->n ? lo + CHUNK : x->n;
    const unsigned c = x->tab->c;
    const size_t per = ((size_t)1 << c) - 1;
    czk_g1_jac acc[CHUNK];
    for (size_t i = lo; i < hi; i++) {
        uint64_t l[4];
        czk_fr_to_u64s(l, &x->k[i]);
        czk_g1_jac_set_inf(&acc[i - lo]);
        for (unsigned w = 0; w < x->tab->nwin; w++) {
            unsigned d = digit(l, w * c, c);
            if (d) czk_g1_jac_add_affine(&acc[i - lo], &acc[i - lo], &x->tab->t[w * per + d - 1]);
        }
    }
    czk_g1s_jac_to_affine(x->out + lo, acc, hi - lo, NULL);
}

struct g2_table {
    unsigned c, nwin;
    czk_g2_affine *t;
};

struct g2_table_ctx {
    struct g2_table *tab;
    const czk_g2_affine *base;
};

static void g2_table_task(void *p, size_t w, unsigned worker)
{
    struct g2_table_ctx *x = p;
    const size_t per = ((size_t)1 << x->tab->c) - 1;
    czk_g2_jac b, acc;
    czk_g2_jac_from_affine(&b, x->base);
    for (size_t k = 0; k < w * x->tab->c; k++) czk_g2_jac_dbl(&b, &b);
    czk_g2_jac *tmp = czk_malloc(per * sizeof *tmp);
    acc = b;
    for (size_t d = 0; d < per; d++) {
        tmp[d] = acc;
        czk_g2_jac_add(&acc, &acc, &b);
    }
    czk_g2s_jac_to_affine(x->tab->t + w * per, tmp, per, NULL);
    czk_free(tmp);
}

struct g2_mul_ctx {
    const struct g2_table *tab;
    const czk_fr *k;
    czk_g2_affine *out;
    size_t n;
};

#define G2_CHUNK 256

static void g2_mul_task(void *p, size_t t, unsigned worker)
{
    struct g2_mul_ctx *x = p;
    size_t lo = t * G2_CHUNK, hi = lo + G2_CHUNK < x->n ? lo + G2_CHUNK : x->n;
    const unsigned c = x->tab->c;
    const size_t per = ((size_t)1 << c) - 1;
    czk_g2_jac acc[G2_CHUNK];
    for (size_t i = lo; i < hi; i++) {
        uint64_t l[4];
        czk_fr_to_u64s(l, &x->k[i]);
        czk_g2_jac_set_inf(&acc[i - lo]);
        for (unsigned w = 0; w < x->tab->nwin; w++) {
            unsigned d = digit(l, w * c, c);
            if (d) czk_g2_jac_add_affine(&acc[i - lo], &acc[i - lo], &x->tab->t[w * per + d - 1]);
        }
    }
    czk_g2s_jac_to_affine(x->out + lo, acc, hi - lo, NULL);
}

struct progress {
    czk_progress_fn fn;
    void *ctx;
    uint64_t done, total;
};

static void progress_add(struct progress *pr, uint64_t n)
{
    pr->done += n;
    if (pr->fn) pr->fn(pr->ctx, pr->done, pr->total);
}

/* out[i] = k[i]·G for i < n, in rounds so the progress callback advances. */
static czk_status g1_fixed_base(czk_g1_affine *out, const czk_fr *k, size_t n, czk_pool *pool,
                                struct progress *pr, czk_err *err)
{
    if (n == 0) return CZK_OK;
    struct g1_table tab;
    tab.c = window_bits(n);
    tab.nwin = (255 + tab.c - 1) / tab.c;
    size_t per = ((size_t)1 << tab.c) - 1;
    tab.t = czk_malloc(tab.nwin * per * sizeof *tab.t);
    if (tab.t == NULL) return czk_err_set(err, CZK_ENOMEM, "setup: G1 table");
    struct g1_table_ctx tc = {&tab, &CZK_G1_GENERATOR};
    czk_pool_run(pool, tab.nwin, g1_table_task, &tc);
    size_t nch = (n + CHUNK - 1) / CHUNK, round = 64;
    for (size_t first = 0; first < nch; first += round) {
        size_t cnt = first + round < nch ? round : nch - first;
        size_t lo = first * CHUNK, hi = (first + cnt) * CHUNK < n ? (first + cnt) * CHUNK : n;
        struct g1_mul_ctx mc = {&tab, k + lo, out + lo, hi - lo};
        czk_pool_run(pool, cnt, g1_mul_task, &mc);
        progress_add(pr, hi - lo);
    }
    czk_free(tab.t);
    return CZK_OK;
}

static czk_status g2_fixed_base(czk_g2_affine *out, const czk_fr *k, size_t n, czk_pool *pool,
                                struct progress *pr, czk_err *err)
{
    if (n == 0) return CZK_OK;
    struct g2_table tab;
    tab.c = window_bits(n) > 10 ? 10 : window_bits(n);
    tab.nwin = (255 + tab.c - 1) / tab.c;
    size_t per = ((size_t)1 << tab.c) - 1;
    tab.t = czk_malloc(tab.nwin * per * sizeof *tab.t);
    if (tab.t == NULL) return czk_err_set(err, CZK_ENOMEM, "setup: G2 table");
    struct g2_table_ctx tc = {&tab, &CZK_G2_GENERATOR};
    czk_pool_run(pool, tab.nwin, g2_table_task, &tc);
    size_t nch = (n + G2_CHUNK - 1) / G2_CHUNK, round = 64;
    for (size_t first = 0; first < nch; first += round) {
        size_t cnt = first + round < nch ? round : nch - first;
        size_t lo = first * G2_CHUNK;
        size_t hi = (first + cnt) * G2_CHUNK < n ? (first + cnt) * G2_CHUNK : n;
        struct g2_mul_ctx mc = {&tab, k + lo, out + lo, hi - lo};
        czk_pool_run(pool, cnt, g2_mul_task, &mc);
        progress_add(pr, 2 * (hi - lo)); /* a G2 multiplication costs about two G1 ones */
    }
    czk_free(tab.t);
    return CZK_OK;
}

/* ---- QAP evaluation at τ ---------------------------------------------------------- */

struct qap_ctx {
    const czk_r1cs *r;
    const czk_fr *lag; /* L_j(τ), j < m */
    czk_fr *u, *v, *w;
};

static void qap_task(void *p, size_t which, unsigned worker)
{
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

static bool bit(const uint64_t *bm, size_t i) { return (bm[i / 64] >> (i % 64)) & 1; }

static czk_status random_nonzero(czk_fr *out, czk_err *err)
{
    do {
        if (czk_fr_random(out) != CZK_OK)
            return czk_err_set(err, CZK_EIO, "setup: no randomness from the OS");
    } while (czk_fr_is_zero(out));
    return CZK_OK;
}

czk_status czk_groth16_setup(czk_groth16_params *out, const czk_r1cs *r1cs, czk_pool *pool,
                             czk_progress_fn progress, void *progress_ctx, czk_err *err)
{
    memset(out, 0, sizeof *out);
    if (r1cs == NULL || r1cs->n_inputs == 0)
        return czk_err_set(err, CZK_EINVAL, "setup: the R1CS needs at least the ONE input");
    if (!r1cs->has_c)
        return czk_err_set(err, CZK_EINVAL, "setup: the R1CS has no C matrix");
    const size_t ni = r1cs->n_inputs, na = r1cs->n_aux, nv = ni + na;
    const size_t rows = (size_t)r1cs->n_constraints + ni;
    unsigned log_m = 1;
    while (((size_t)1 << log_m) < rows) log_m++;
    if (log_m > 28) return czk_err_set(err, CZK_EINVAL, "setup: 2^%u rows is too large", log_m);
    const size_t m = (size_t)1 << log_m;

    czk_status st = CZK_OK;
    czk_fr tau, alpha, beta, gamma, delta;
    if ((st = random_nonzero(&tau, err)) || (st = random_nonzero(&alpha, err)) ||
        (st = random_nonzero(&beta, err)) || (st = random_nonzero(&gamma, err)) ||
        (st = random_nonzero(&delta, err)))
        return st;

    size_t words_a = (na + 63) / 64 + 1, words_bi = (ni + 63) / 64 + 1;
    czk_fr *lag = czk_malloc(m * sizeof *lag);
    czk_fr *u = czk_calloc(nv, sizeof *u), *v = czk_calloc(nv, sizeof *v);
    czk_fr *w = czk_calloc(nv, sizeof *w);
    uint64_t *a_aux = czk_calloc(words_a, 8), *b_in = czk_calloc(words_bi, 8);
    uint64_t *b_aux = czk_calloc(words_a, 8);
    czk_fr *ka = NULL, *kb = NULL, *kic = NULL, *kl = NULL, *kh = NULL;
    if (!lag || !u || !v || !w || !a_aux || !b_in || !b_aux) {
        st = czk_err_set(err, CZK_ENOMEM, "setup: out of memory for %zu variables", nv);
        goto fail;
    }

    /* L_j(τ) = (τ^m − 1)/m · ω^j/(τ − ω^j). */
    {
        czk_fr omega, wj = CZK_FR_ONE, tm = tau, mfr, zt;
        czk_fr_root_of_unity(&omega, log_m, CZK_ROOTS_BELLPERSON);
        for (unsigned i = 0; i < log_m; i++) czk_fr_sqr(&tm, &tm);
        czk_fr_sub(&zt, &tm, &CZK_FR_ONE);
        czk_fr_from_u64(&mfr, m);
        czk_fr_inv(&mfr, &mfr);
        czk_fr_mul(&zt, &zt, &mfr);
        czk_fr *wpow = czk_malloc(m * sizeof *wpow);
        if (wpow == NULL) {
            st = czk_err_set(err, CZK_ENOMEM, "setup: out of memory");
            goto fail;
        }
        for (size_t j = 0; j < m; j++) {
            wpow[j] = wj;
            czk_fr_sub(&lag[j], &tau, &wj);
            if (czk_fr_is_zero(&lag[j])) { /* τ in the domain: probability m/r */
                czk_free(wpow);
                st = czk_err_set(err, CZK_EINTERNAL, "setup: tau hit the domain; run again");
                goto fail;
            }
            czk_fr_mul(&wj, &wj, &omega);
        }
        czk_frs_inv(lag, m, NULL);
        for (size_t j = 0; j < m; j++) {
            czk_fr_mul(&lag[j], &lag[j], &wpow[j]);
            czk_fr_mul(&lag[j], &lag[j], &zt);
        }
        czk_free(wpow);
    }

    struct qap_ctx qc = {r1cs, lag, u, v, w};
    czk_pool_run(pool, 3, qap_task, &qc);
    for (size_t i = 0; i < ni; i++) czk_fr_add(&u[i], &u[i], &lag[r1cs->n_constraints + i]);
    czk_r1cs_densities(r1cs, a_aux, b_in, b_aux);

    /* Scalars for every point. */
    size_t a_len = ni, b_len = 0;
    for (size_t k = 0; k < na; k++) a_len += bit(a_aux, k);
    for (size_t i = 0; i < ni; i++) b_len += bit(b_in, i);
    for (size_t k = 0; k < na; k++) b_len += bit(b_aux, k);
    ka = czk_malloc((a_len ? a_len : 1) * sizeof *ka);
    kb = czk_malloc((b_len ? b_len : 1) * sizeof *kb);
    kic = czk_malloc(ni * sizeof *kic);
    kl = czk_malloc((na ? na : 1) * sizeof *kl);
    kh = czk_malloc(m * sizeof *kh);
    out->vk.ic = czk_malloc(ni * sizeof *out->vk.ic);
    out->a = czk_malloc((a_len ? a_len : 1) * sizeof *out->a);
    out->b_g1 = czk_malloc((b_len ? b_len : 1) * sizeof *out->b_g1);
    out->b_g2 = czk_malloc((b_len ? b_len : 1) * sizeof *out->b_g2);
    out->l = czk_malloc((na ? na : 1) * sizeof *out->l);
    out->h = czk_malloc(m * sizeof *out->h);
    if (!ka || !kb || !kic || !kl || !kh || !out->vk.ic || !out->a || !out->b_g1 || !out->b_g2 ||
        !out->l || !out->h) {
        st = czk_err_set(err, CZK_ENOMEM, "setup: out of memory for the keys");
        goto fail;
    }
    size_t ia = 0, ib = 0;
    for (size_t i = 0; i < ni; i++) {
        ka[ia++] = u[i];
        if (bit(b_in, i)) kb[ib++] = v[i];
    }
    for (size_t k = 0; k < na; k++) {
        if (bit(a_aux, k)) ka[ia++] = u[ni + k];
        if (bit(b_aux, k)) kb[ib++] = v[ni + k];
    }
    czk_fr ginv, dinv;
    czk_fr_inv(&ginv, &gamma);
    czk_fr_inv(&dinv, &delta);
    for (size_t i = 0; i < nv; i++) {
        czk_fr t, s;
        czk_fr_mul(&t, &beta, &u[i]);
        czk_fr_mul(&s, &alpha, &v[i]);
        czk_fr_add(&t, &t, &s);
        czk_fr_add(&t, &t, &w[i]);
        if (i < ni)
            czk_fr_mul(&kic[i], &t, &ginv);
        else
            czk_fr_mul(&kl[i - ni], &t, &dinv);
    }
    {
        czk_fr tm = tau, zt, p = CZK_FR_ONE;
        for (unsigned i = 0; i < log_m; i++) czk_fr_sqr(&tm, &tm);
        czk_fr_sub(&zt, &tm, &CZK_FR_ONE);
        czk_fr_mul(&zt, &zt, &dinv);
        for (size_t i = 0; i + 1 < m; i++) {
            czk_fr_mul(&kh[i], &p, &zt);
            czk_fr_mul(&p, &p, &tau);
        }
    }

    struct progress pr = {progress, progress_ctx, 0, ni + na + (m - 1) + a_len + 3 * b_len};
    if ((st = g1_fixed_base(out->vk.ic, kic, ni, pool, &pr, err)) ||
        (st = g1_fixed_base(out->l, kl, na, pool, &pr, err)) ||
        (st = g1_fixed_base(out->h, kh, m - 1, pool, &pr, err)) ||
        (st = g1_fixed_base(out->a, ka, a_len, pool, &pr, err)) ||
        (st = g1_fixed_base(out->b_g1, kb, b_len, pool, &pr, err)) ||
        (st = g2_fixed_base(out->b_g2, kb, b_len, pool, &pr, err)))
        goto fail;

    /* The verifying key's fixed elements. */
    {
        czk_g1_jac g1, t1;
        czk_g2_jac g2, t2;
        czk_g1_jac_from_affine(&g1, &CZK_G1_GENERATOR);
        czk_g2_jac_from_affine(&g2, &CZK_G2_GENERATOR);
        czk_g1_jac_mul_fr(&t1, &g1, &alpha);
        czk_g1_jac_to_affine(&out->vk.alpha_g1, &t1);
        czk_g1_jac_mul_fr(&t1, &g1, &beta);
        czk_g1_jac_to_affine(&out->vk.beta_g1, &t1);
        czk_g1_jac_mul_fr(&t1, &g1, &delta);
        czk_g1_jac_to_affine(&out->vk.delta_g1, &t1);
        czk_g2_jac_mul_fr(&t2, &g2, &beta);
        czk_g2_jac_to_affine(&out->vk.beta_g2, &t2);
        czk_g2_jac_mul_fr(&t2, &g2, &gamma);
        czk_g2_jac_to_affine(&out->vk.gamma_g2, &t2);
        czk_g2_jac_mul_fr(&t2, &g2, &delta);
        czk_g2_jac_to_affine(&out->vk.delta_g2, &t2);
    }
    out->conv = CZK_H_BELLPERSON;
    out->n_inputs = (uint32_t)ni;
    out->n_aux = (uint32_t)na;
    out->log_m = log_m;
    out->vk.ic_len = ni;
    out->h_len = m - 1;
    out->l_len = na;
    out->a_len = a_len;
    out->b_g1_len = b_len;
    out->b_g2_len = b_len;
    goto done;
fail:
    czk_groth16_params_free(out);
    memset(out, 0, sizeof *out);
done:
    /* The toxic waste dies with this frame: scrub what held it. */
    memset(&tau, 0, sizeof tau);
    memset(&alpha, 0, sizeof alpha);
    memset(&beta, 0, sizeof beta);
    memset(&gamma, 0, sizeof gamma);
    memset(&delta, 0, sizeof delta);
    czk_free(lag);
    czk_free(u);
    czk_free(v);
    czk_free(w);
    czk_free(a_aux);
    czk_free(b_in);
    czk_free(b_aux);
    czk_free(ka);
    czk_free(kb);
    czk_free(kic);
    czk_free(kl);
    czk_free(kh);
    return st;
}
