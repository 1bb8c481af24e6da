/*
 * Groth16 prover: the H polynomial by NTTs, the five MSMs, and the assembly with r, s.
 * The arithmetic is bellperson's (docs/formats.md §4) or snarkjs's (docs/formats.md §9.1
 * §4.4) depending on the parameters' convention; the MSMs and the assembly are shared.
 */
#include "czk/alloc.h"
#include "czk/groth16.h"
#include "czk/ntt.h"
#include "prove_common.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Elementwise work split over the pool in chunks. */
#define CHUNK 4096

struct abc_ctx {
    czk_fr *a, *b, *c;
    size_t n;
    czk_fr scale; /* bellperson: 1/(g^m − 1); snarkjs: unused (one) */
    bool scaled;
};

static void abc_task(void *p, size_t t, unsigned w)
{
    struct abc_ctx *x = p;
    size_t lo = t * CHUNK, hi = lo + CHUNK < x->n ? lo + CHUNK : x->n;
    for (size_t i = lo; i < hi; i++) {
        czk_fr_mul(&x->a[i], &x->a[i], &x->b[i]);
        czk_fr_sub(&x->a[i], &x->a[i], &x->c[i]);
        if (x->scaled) czk_fr_mul(&x->a[i], &x->a[i], &x->scale);
    }
}

struct conv_ctx {
    czk_fr *v;
    size_t n;
};

/* Montgomery to canonical in place: czk_fr and czk_scalar are both four 64-bit limbs. */
static void to_scalar_task(void *p, size_t t, unsigned w)
{
    struct conv_ctx *x = p;
    size_t lo = t * CHUNK, hi = lo + CHUNK < x->n ? lo + CHUNK : x->n;
    for (size_t i = lo; i < hi; i++) {
        uint64_t l[4];
        czk_fr_to_u64s(l, &x->v[i]);
        memcpy(x->v[i].l, l, sizeof l);
    }
}

static size_t nchunks(size_t n) { return (n + CHUNK - 1) / CHUNK; }

static czk_roots domain_roots(const czk_groth16_params *pk)
{
    return pk->conv == CZK_H_BELLPERSON ? CZK_ROOTS_BELLPERSON : CZK_ROOTS_SNARKJS;
}

/*
 * Transform a, b, c (row evaluations, zero-padded to m) into the H scalars in a[0..h_len):
 * canonical limbs, ready for the MSM against pk->h.
 */
static czk_status compute_h(const czk_groth16_params *pk, const czk_groth16_assignment *asg,
                            const czk_ntt_domain *shared, size_t *h_len, czk_pool *pool,
                            czk_err *err)
{
    const size_t m = (size_t)1 << pk->log_m;
    size_t rows = asg->n_rows;
    if (pk->conv == CZK_H_BELLPERSON) {
        if (rows + pk->n_inputs > m)
            return czk_err_set(err, CZK_EINVAL,
                               "assignment: %zu rows + %u input rows exceed the domain 2^%u",
                               rows, pk->n_inputs, pk->log_m);
        /* bellperson appends enforce(x_i · 0 = 0) for every input, ONE included. */
        for (uint32_t i = 0; i < pk->n_inputs; i++) {
            asg->a[rows + i] = asg->inputs[i];
            asg->b[rows + i] = CZK_FR_ZERO;
            asg->c[rows + i] = CZK_FR_ZERO;
        }
        rows += pk->n_inputs;
    } else if (rows > m) {
        return czk_err_set(err, CZK_EINVAL, "assignment: %zu rows exceed the domain 2^%u", rows,
                           pk->log_m);
    }
    for (size_t i = rows; i < m; i++) {
        asg->a[i] = CZK_FR_ZERO;
        asg->b[i] = CZK_FR_ZERO;
        asg->c[i] = CZK_FR_ZERO;
    }

    czk_ntt_domain *own = NULL;
    const czk_ntt_domain *d = shared;
    if (d == NULL) {
        czk_status st = czk_ntt_domain_create(&own, pk->log_m, domain_roots(pk), err);
        if (st != CZK_OK) return st;
        d = own;
    }

    czk_fr g;
    struct abc_ctx x = {asg->a, asg->b, asg->c, m, CZK_FR_ONE, false};
    if (pk->conv == CZK_H_BELLPERSON) {
        /* Evaluations on H → coefficients → evaluations on the coset 7·H, where
         * Z(7·ω^j) = 7^m − 1 for every j. */
        czk_fr_from_u64(&g, 7);
        czk_fr gm = g;
        for (unsigned i = 0; i < pk->log_m; i++) czk_fr_sqr(&gm, &gm);
        czk_fr_sub(&gm, &gm, &CZK_FR_ONE);
        czk_fr_inv(&x.scale, &gm);
        x.scaled = true;
    } else {
        /* snarkjs: the coset of the odd 2n-th roots, g = ω_2n; Z = −2 there, folded into
         * the zkey's H points, so no division and no inverse transform. */
        czk_fr_root_of_unity(&g, pk->log_m + 1, CZK_ROOTS_SNARKJS);
    }
    czk_fr *vs[3] = {asg->a, asg->b, asg->c};
    for (int k = 0; k < 3; k++) {
        czk_ntt_inverse(d, vs[k], pool);
        czk_ntt_coset_forward(d, vs[k], &g, pool);
    }
    czk_pool_run(pool, nchunks(m), abc_task, &x);
    if (pk->conv == CZK_H_BELLPERSON) {
        czk_ntt_coset_inverse(d, asg->a, &g, pool);
        *h_len = m - 1; /* the top coefficient is zero for a satisfied assignment */
    } else {
        *h_len = m;
    }
    czk_ntt_domain_destroy(own);
    struct conv_ctx cc = {asg->a, *h_len};
    czk_pool_run(pool, nchunks(*h_len), to_scalar_task, &cc);
    return CZK_OK;
}

static czk_status check_shapes(const czk_groth16_params *pk, const czk_groth16_assignment *asg,
                               czk_err *err)
{
    return czk__groth16_check_shapes(pk, asg, err);
}

czk_status czk_groth16_compute_h(czk_scalar *h_out, size_t *h_len, const czk_groth16_params *pk,
                                 const czk_groth16_assignment *asg, czk_pool *pool, czk_err *err)
{
    czk_status st = check_shapes(pk, asg, err);
    if (st != CZK_OK) return st;
    st = compute_h(pk, asg, NULL, h_len, pool, err);
    if (st != CZK_OK) return st;
    memcpy(h_out, asg->a, *h_len * sizeof *h_out);
    return CZK_OK;
}

/* Between the prover's stages: a cancelled one (czk_pool_cancelled) stops here. */
static czk_status cancelled(czk_err *err)
{
    return czk_err_set(err, CZK_ECANCELED, "prove: cancelled");
}

static czk_status prove_one(czk_groth16_proof *out, const czk_groth16_params *pk,
                            const czk_groth16_assignment *asg, const czk_ntt_domain *domain,
                            const czk_fr *r_in, const czk_fr *s_in, czk_pool *pool,
                            czk_groth16_timings *timings, czk_err *err)
{
    czk_status st = check_shapes(pk, asg, err);
    if (st != CZK_OK) return st;
    czk_groth16_timings tm = {0};
    double t0 = czk_clock_s();

    czk_fr r, s;
    if ((st = czk__groth16_blinding(&r, &s, r_in, s_in, err)) != CZK_OK) return st;

    size_t h_len = 0;
    st = compute_h(pk, asg, domain, &h_len, pool, err);
    if (st != CZK_OK) return st;
    if (czk_pool_cancelled()) return cancelled(err);
    double t1 = czk_clock_s();
    tm.ntt = t1 - t0;

    /* Witness scalars, canonical: inputs then aux (one buffer, so A and B can address
     * inputs and aux as the two halves). */
    const size_t ni = pk->n_inputs, na = pk->n_aux;
    czk_scalar *z = czk_malloc((ni + na) * sizeof *z);
    if (z == NULL) return czk_err_set(err, CZK_ENOMEM, "prove: witness scalars");
    czk_frs_to_scalars(z, asg->inputs, ni, pool);
    if (na > 0) czk_frs_to_scalars(z + ni, asg->aux, na, pool);

    czk__groth16_msms ms;
    czk_g1s_msm(&ms.h, pk->h, (const czk_scalar *)asg->a, h_len, NULL, NULL, pool);
    double t2 = czk_clock_s();
    tm.msm_h = t2 - t1;
    czk_g1s_msm(&ms.l, pk->l, z + ni, na, NULL, NULL, pool);
    double t3 = czk_clock_s();
    tm.msm_l = t3 - t2;
    czk_g1s_msm(&ms.a_in, pk->a, z, ni, NULL, NULL, pool);
    czk_g1s_msm(&ms.a_aux, pk->a + ni, z + ni, na, asg->a_aux_density, NULL, pool);
    double t4 = czk_clock_s();
    tm.msm_a = t4 - t3;
    size_t b_in_count =
        asg->b_input_density ? czk_density_count(asg->b_input_density, ni) : ni;
    bool stop = czk_pool_cancelled();
    if (!stop) {
        czk_g1s_msm(&ms.b1_in, pk->b_g1, z, ni, asg->b_input_density, NULL, pool);
        czk_g1s_msm(&ms.b1_aux, pk->b_g1 + b_in_count, z + ni, na, asg->b_aux_density, NULL,
                    pool);
    }
    double t5 = czk_clock_s();
    tm.msm_b_g1 = t5 - t4;
    stop = stop || czk_pool_cancelled();
    if (!stop) {
        czk_g2s_msm(&ms.b2_in, pk->b_g2, z, ni, asg->b_input_density, NULL, pool);
        czk_g2s_msm(&ms.b2_aux, pk->b_g2 + b_in_count, z + ni, na, asg->b_aux_density, NULL,
                    pool);
    }
    double t6 = czk_clock_s();
    tm.msm_b_g2 = t6 - t5;
    czk_free(z);
    if (stop || czk_pool_cancelled()) return cancelled(err);

    /* A, B, C from the MSM results and r, s (prove_common.c, shared with the GPU prover). */
    czk__groth16_assemble(out, pk, &ms, &r, &s);
    tm.assemble = czk_clock_s() - t6;
    if (timings != NULL) *timings = tm;
    return CZK_OK;
}

czk_status czk_groth16_prove(czk_groth16_proof *out, const czk_groth16_params *pk,
                             const czk_groth16_assignment *asg, const czk_fr *r, const czk_fr *s,
                             czk_pool *pool, czk_groth16_timings *timings, czk_err *err)
{
    return prove_one(out, pk, asg, NULL, r, s, pool, timings, err);
}

czk_status czk_groth16_prove_batch(czk_groth16_proof *out, const czk_groth16_params *pk,
                                   const czk_groth16_assignment *asgs, size_t n, const czk_fr *r,
                                   const czk_fr *s, czk_pool *pool, czk_groth16_timings *timings,
                                   czk_err *err)
{
    if (n == 0) return CZK_OK;
    if (pk == NULL || asgs == NULL || out == NULL)
        return czk_err_set(err, CZK_EINVAL, "prove batch: missing key, assignments or output");
    /* One domain (twiddle tables) serves every circuit of the batch. */
    czk_ntt_domain *d = NULL;
    czk_status st = czk_ntt_domain_create(&d, pk->log_m, domain_roots(pk), err);
    if (st != CZK_OK) return st;
    czk_groth16_timings sum = {0};
    for (size_t i = 0; i < n && st == CZK_OK; i++) {
        czk_groth16_timings t;
        st = prove_one(&out[i], pk, &asgs[i], d, r ? &r[i] : NULL, s ? &s[i] : NULL, pool, &t,
                       err);
        if (st != CZK_OK) {
            /* Name the circuit: the message so far says what went wrong inside it. */
            char inner[CZK_ERR_MSG_MAX];
            snprintf(inner, sizeof inner, "%s", err ? err->msg : "");
            czk_err_set(err, st, "circuit %zu of %zu: %s", i, n, inner);
            break;
        }
        sum.ntt += t.ntt;
        sum.msm_h += t.msm_h;
        sum.msm_l += t.msm_l;
        sum.msm_a += t.msm_a;
        sum.msm_b_g1 += t.msm_b_g1;
        sum.msm_b_g2 += t.msm_b_g2;
        sum.assemble += t.assemble;
    }
    czk_ntt_domain_destroy(d);
    if (timings != NULL) *timings = sum;
    return st;
}
