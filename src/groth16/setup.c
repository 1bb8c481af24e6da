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
#include "groth16/fixed_base.h"

#include <string.h>

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

    czk__progress pr = {progress, progress_ctx, 0, ni + na + (m - 1) + a_len + 3 * b_len};
    if ((st = czk__g1s_fixed_base(out->vk.ic, kic, ni, pool, &pr, err)) ||
        (st = czk__g1s_fixed_base(out->l, kl, na, pool, &pr, err)) ||
        (st = czk__g1s_fixed_base(out->h, kh, m - 1, pool, &pr, err)) ||
        (st = czk__g1s_fixed_base(out->a, ka, a_len, pool, &pr, err)) ||
        (st = czk__g1s_fixed_base(out->b_g1, kb, b_len, pool, &pr, err)) ||
        (st = czk__g2s_fixed_base(out->b_g2, kb, b_len, pool, &pr, err)))
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
