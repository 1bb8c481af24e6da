/*
 * Groth16 end to end on the CPU: random satisfiable R1CS → test parameters → proof →
 * single and batch verification; tampered proofs, wrong inputs and an unsatisfied
 * witness fail; fixed r, s give reproducible bytes; the prover's H scalars match a
 * direct polynomial division computed independently here.
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/gadgets.h"
#include "czk/groth16.h"
#include "czk/ntt.h"
#include "czk_test.h"
#include "czk_test_fr.h"

/*
 * A random circuit with n_pub public inputs and n_mul multiplication constraints: each row
 * multiplies two random LCs of earlier variables and defines a new aux variable as the
 * product (C = the new variable, plus random extra terms moved to both sides). Returns the
 * witness z (inputs then aux).
 */
static czk_fr *random_circuit(czk_r1cs *r, uint32_t n_pub, uint32_t n_mul)
{
    uint32_t ni = 1 + n_pub, na = n_mul + 2, nv = ni + na;
    czk_fr *z = czk_malloc(nv * sizeof *z);
    z[0] = CZK_FR_ONE;
    for (uint32_t i = 1; i < ni; i++) czk_test_rand_fr(&z[i]);
    /* two free aux variables, so A/B densities of aux are partial */
    czk_test_rand_fr(&z[ni]);
    czk_fr_from_u64(&z[ni + 1], czk_test_rand64() & 1);
    uint64_t nnz = (uint64_t)n_mul * 3;
    CHECK_STATUS(czk_r1cs_alloc(r, ni, na, n_mul, nnz, nnz, nnz, NULL), CZK_OK);
    r->has_c = true;
    uint64_t ka = 0, kb = 0, kc = 0;
    for (uint32_t j = 0; j < n_mul; j++) {
        uint32_t out = ni + 2 + j;
        uint32_t prev = out; /* variables < prev are assigned */
        /* A: up to 2 terms over inputs and earlier aux; B: up to 2 terms. */
        czk_fr av = CZK_FR_ZERO, bv = CZK_FR_ZERO;
        r->a.row_ptr[j] = ka;
        r->b.row_ptr[j] = kb;
        r->c.row_ptr[j] = kc;
        uint32_t na_terms = 1 + (uint32_t)(czk_test_rand64() % 2);
        uint32_t last = UINT32_MAX;
        for (uint32_t t = 0; t < na_terms; t++) {
            uint32_t v = (uint32_t)(czk_test_rand64() % prev);
            if (v == last) continue;
            last = v;
            czk_fr coeff;
            czk_test_rand_fr(&coeff);
            r->a.col[ka] = v;
            r->a.val[ka++] = coeff;
            czk_fr tmp;
            czk_fr_mul(&tmp, &coeff, &z[v]);
            czk_fr_add(&av, &av, &tmp);
        }
        /* B only touches inputs or the first aux half, so b_aux density is partial */
        uint32_t v = (uint32_t)(czk_test_rand64() % (ni + 1));
        czk_fr coeff;
        czk_test_rand_fr(&coeff);
        r->b.col[kb] = v;
        r->b.val[kb++] = coeff;
        czk_fr_mul(&bv, &coeff, &z[v]);
        czk_fr_mul(&z[out], &av, &bv);
        r->c.col[kc] = out;
        r->c.val[kc++] = CZK_FR_ONE;
    }
    r->a.row_ptr[n_mul] = ka;
    r->b.row_ptr[n_mul] = kb;
    r->c.row_ptr[n_mul] = kc;
    r->a.nnz = ka;
    r->b.nnz = kb;
    r->c.nnz = kc;
    return z;
}

struct fixture {
    czk_r1cs r;
    czk_fr *z;
    czk_groth16_params pk;
    uint64_t *a_aux, *b_in, *b_aux;
    czk_fr *a, *b, *c;
    size_t m;
};

static void fixture_init(struct fixture *f, uint32_t n_pub, uint32_t n_mul, czk_pool *pool)
{
    memset(f, 0, sizeof *f);
    f->z = random_circuit(&f->r, n_pub, n_mul);
    uint32_t first_bad = 0;
    CHECK(czk_r1cs_is_satisfied(&f->r, f->z, &first_bad));
    czk_err err;
    CHECK_STATUS(czk_groth16_setup(&f->pk, &f->r, pool, NULL, NULL, &err), CZK_OK);
    f->m = (size_t)1 << f->pk.log_m;
    size_t wa = (f->r.n_aux + 63) / 64 + 1, wi = (f->r.n_inputs + 63) / 64 + 1;
    f->a_aux = czk_calloc(wa, 8);
    f->b_in = czk_calloc(wi, 8);
    f->b_aux = czk_calloc(wa, 8);
    czk_r1cs_densities(&f->r, f->a_aux, f->b_in, f->b_aux);
    f->a = czk_malloc(f->m * sizeof(czk_fr));
    f->b = czk_malloc(f->m * sizeof(czk_fr));
    f->c = czk_malloc(f->m * sizeof(czk_fr));
}

static void fixture_assign(struct fixture *f, czk_groth16_assignment *asg, czk_pool *pool)
{
    czk_r1cs_eval(&f->r, f->z, f->a, f->b, f->c, pool);
    asg->inputs = f->z;
    asg->aux = f->z + f->r.n_inputs;
    asg->a = f->a;
    asg->b = f->b;
    asg->c = f->c;
    asg->n_rows = f->r.n_constraints;
    asg->a_aux_density = f->a_aux;
    asg->b_input_density = f->b_in;
    asg->b_aux_density = f->b_aux;
}

static void fixture_free(struct fixture *f)
{
    czk_r1cs_free(&f->r);
    czk_free(f->z);
    czk_groth16_params_free(&f->pk);
    czk_free(f->a_aux);
    czk_free(f->b_in);
    czk_free(f->b_aux);
    czk_free(f->a);
    czk_free(f->b);
    czk_free(f->c);
}

static czk_pool *pool;

static void test_prove_verify(void)
{
    static const uint32_t shapes[][2] = {{1, 3}, {3, 60}, {2, 1000}, {9, 4000}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        struct fixture f;
        fixture_init(&f, shapes[s][0], shapes[s][1], pool);
        czk_groth16_assignment asg;
        fixture_assign(&f, &asg, pool);
        czk_groth16_proof proof;
        czk_err err;
        CHECK_STATUS(czk_groth16_prove(&proof, &f.pk, &asg, NULL, NULL, pool, NULL, &err), CZK_OK);
        czk_groth16_pvk pvk;
        czk_groth16_prepare_vk(&pvk, &f.pk.vk);
        const czk_fr *pub = f.z + 1;
        size_t np = f.r.n_inputs - 1;
        CHECK_STATUS(czk_groth16_verify(&pvk, &proof, pub, np, &err), CZK_OK);
        CHECK(czk_g1_affine_in_subgroup(&proof.a) && czk_g2_affine_in_subgroup(&proof.b));

        /* Encoded and decoded, the proof still verifies. */
        uint8_t bytes[192];
        czk_groth16_proof back;
        czk_groth16_proof_write(bytes, &proof);
        CHECK_STATUS(czk_groth16_proof_read(&back, bytes, &err), CZK_OK);
        CHECK_STATUS(czk_groth16_verify(&pvk, &back, pub, np, &err), CZK_OK);

        /* A wrong public input fails. */
        czk_fr *bad = czk_malloc(np * sizeof *bad);
        memcpy(bad, pub, np * sizeof *bad);
        czk_fr_add(&bad[np - 1], &bad[np - 1], &CZK_FR_ONE);
        CHECK_STATUS(czk_groth16_verify(&pvk, &proof, bad, np, &err), CZK_EVERIFY);
        CHECK_STATUS(czk_groth16_verify(&pvk, &proof, pub, np - 1, &err), CZK_EINVAL);
        czk_free(bad);

        /* A tampered proof fails: C moved by a generator. */
        czk_groth16_proof t = proof;
        czk_g1_jac cj, gj;
        czk_g1_jac_from_affine(&cj, &t.c);
        czk_g1_jac_from_affine(&gj, &CZK_G1_GENERATOR);
        czk_g1_jac_add(&cj, &cj, &gj);
        czk_g1_jac_to_affine(&t.c, &cj);
        CHECK_STATUS(czk_groth16_verify(&pvk, &t, pub, np, &err), CZK_EVERIFY);
        /* Swapped A and C fails. */
        t = proof;
        t.a = proof.c;
        t.c = proof.a;
        CHECK_STATUS(czk_groth16_verify(&pvk, &t, pub, np, &err), CZK_EVERIFY);

        /* Batch: three fresh proofs of the same witness verify together; one bad spoils it. */
        czk_groth16_proof ps[3];
        czk_fr *pubs = czk_malloc(3 * np * sizeof *pubs);
        for (int j = 0; j < 3; j++) {
            fixture_assign(&f, &asg, pool);
            CHECK_STATUS(czk_groth16_prove(&ps[j], &f.pk, &asg, NULL, NULL, pool, NULL, &err),
                         CZK_OK);
            memcpy(pubs + j * np, pub, np * sizeof *pubs);
        }
        CHECK_STATUS(czk_groth16_verify_batch(&pvk, ps, 3, pubs, np, &err), CZK_OK);
        czk_fr_add(&pubs[np], &pubs[np], &CZK_FR_ONE);
        CHECK_STATUS(czk_groth16_verify_batch(&pvk, ps, 3, pubs, np, &err), CZK_EVERIFY);
        czk_free(pubs);

        /* An unsatisfied witness gives a proof that does not verify. */
        czk_fr_add(&f.z[f.r.n_inputs + 2], &f.z[f.r.n_inputs + 2], &CZK_FR_ONE);
        fixture_assign(&f, &asg, pool);
        CHECK_STATUS(czk_groth16_prove(&proof, &f.pk, &asg, NULL, NULL, pool, NULL, &err), CZK_OK);
        CHECK_STATUS(czk_groth16_verify(&pvk, &proof, pub, np, &err), CZK_EVERIFY);
        fixture_free(&f);
    }
}

/* Fixed r, s: the same bytes twice, different bytes for different r. Zero blinding too. */
static void test_deterministic(void)
{
    struct fixture f;
    fixture_init(&f, 2, 200, pool);
    czk_groth16_assignment asg;
    czk_fr r, s;
    czk_test_rand_fr(&r);
    czk_test_rand_fr(&s);
    uint8_t b1[192], b2[192], b3[192];
    czk_groth16_proof p;
    czk_err err;
    fixture_assign(&f, &asg, pool);
    CHECK_STATUS(czk_groth16_prove(&p, &f.pk, &asg, &r, &s, pool, NULL, &err), CZK_OK);
    czk_groth16_proof_write(b1, &p);
    fixture_assign(&f, &asg, NULL);
    CHECK_STATUS(czk_groth16_prove(&p, &f.pk, &asg, &r, &s, NULL, NULL, &err), CZK_OK);
    czk_groth16_proof_write(b2, &p);
    CHECK_MEM(b1, b2, 192);
    czk_fr_add(&r, &r, &CZK_FR_ONE);
    fixture_assign(&f, &asg, pool);
    CHECK_STATUS(czk_groth16_prove(&p, &f.pk, &asg, &r, &s, pool, NULL, &err), CZK_OK);
    czk_groth16_proof_write(b3, &p);
    CHECK(memcmp(b1, b3, 192) != 0);
    czk_groth16_pvk pvk;
    czk_groth16_prepare_vk(&pvk, &f.pk.vk);
    fixture_assign(&f, &asg, pool);
    CHECK_STATUS(czk_groth16_prove(&p, &f.pk, &asg, &CZK_FR_ZERO, &CZK_FR_ZERO, pool, NULL, &err),
                 CZK_OK);
    CHECK_STATUS(czk_groth16_verify(&pvk, &p, f.z + 1, f.r.n_inputs - 1, &err), CZK_OK);
    fixture_free(&f);
}

/*
 * The H scalars against an independent computation: interpolate a, b, c by a naive
 * O(m^2) inverse DFT with the bellperson roots, form a·b − c as coefficient polynomials by
 * schoolbook multiplication, divide by X^m − 1, and compare the quotient's m − 1
 * coefficients with the prover's coset-NTT pipeline.
 */
static void test_h_against_division(void)
{
    struct fixture f;
    fixture_init(&f, 1, 20, pool);
    const size_t m = f.m;
    czk_groth16_assignment asg;
    fixture_assign(&f, &asg, pool);
    /* Rows with the input rows appended, as the prover sees them. */
    czk_fr *rows[3];
    for (int k = 0; k < 3; k++) rows[k] = czk_calloc(m, sizeof(czk_fr));
    for (size_t j = 0; j < f.r.n_constraints; j++) {
        rows[0][j] = f.a[j];
        rows[1][j] = f.b[j];
        rows[2][j] = f.c[j];
    }
    for (size_t i = 0; i < f.r.n_inputs; i++) rows[0][f.r.n_constraints + i] = f.z[i];
    czk_scalar *h = czk_malloc(m * sizeof *h);
    size_t h_len = 0;
    czk_err err;
    CHECK_STATUS(czk_groth16_compute_h(h, &h_len, &f.pk, &asg, pool, &err), CZK_OK);
    CHECK(h_len == m - 1);

    czk_fr omega, oinv, minv;
    czk_fr_root_of_unity(&omega, f.pk.log_m, CZK_ROOTS_BELLPERSON);
    czk_fr_inv(&oinv, &omega);
    czk_fr_from_u64(&minv, m);
    czk_fr_inv(&minv, &minv);
    czk_fr *coef[3];
    for (int k = 0; k < 3; k++) {
        coef[k] = czk_calloc(m, sizeof(czk_fr));
        for (size_t i = 0; i < m; i++) {
            czk_fr acc = CZK_FR_ZERO, wi, wij = CZK_FR_ONE;
            uint64_t e = i;
            czk_fr_pow(&wi, &oinv, &e, 1);
            for (size_t j = 0; j < m; j++) {
                czk_fr t;
                czk_fr_mul(&t, &rows[k][j], &wij);
                czk_fr_add(&acc, &acc, &t);
                czk_fr_mul(&wij, &wij, &wi);
            }
            czk_fr_mul(&coef[k][i], &acc, &minv);
        }
    }
    /* p = a·b − c, degree ≤ 2m − 2 */
    czk_fr *p = czk_calloc(2 * m, sizeof(czk_fr));
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++) {
            czk_fr t;
            czk_fr_mul(&t, &coef[0][i], &coef[1][j]);
            czk_fr_add(&p[i + j], &p[i + j], &t);
        }
    for (size_t i = 0; i < m; i++) czk_fr_sub(&p[i], &p[i], &coef[2][i]);
    /* divide by X^m − 1: q_{i} = p_{i+m} + q_{i+m}, from the top down */
    czk_fr *q = czk_calloc(2 * m, sizeof(czk_fr));
    for (size_t i = 2 * m; i-- > m;) {
        czk_fr_add(&q[i - m], &p[i], &q[i]);
    }
    /* remainder must vanish: p_i + q_i == 0 for i < m */
    bool rem_zero = true;
    for (size_t i = 0; i < m; i++) {
        czk_fr t;
        czk_fr_add(&t, &p[i], &q[i]);
        if (!czk_fr_is_zero(&t)) rem_zero = false;
    }
    CHECK(rem_zero);
    size_t mism = 0;
    for (size_t i = 0; i + 1 < m; i++) {
        uint64_t l[4];
        czk_fr_to_u64s(l, &q[i]);
        if (memcmp(l, h[i].l, sizeof l) != 0) mism++;
    }
    CHECK_MSG(mism == 0, "%zu of %zu H scalars differ", mism, m - 1);
    for (int k = 0; k < 3; k++) {
        czk_free(rows[k]);
        czk_free(coef[k]);
    }
    czk_free(p);
    czk_free(q);
    czk_free(h);
    fixture_free(&f);
}

/* A batch of circuits (partitions) of one key: every proof verifies; an oversized
 * assignment is reported with the circuit's index. */
static void test_prove_batch(void)
{
    enum { n = 3 };
    struct fixture f[n];
    fixture_init(&f[0], 2, 300, pool);
    czk_groth16_assignment asg[n];
    for (int i = 1; i < n; i++) {
        /* Same circuit and witness, own buffers: a copy of fixture 0's shape. */
        f[i] = f[0];
        f[i].a = czk_malloc(f[0].m * sizeof(czk_fr));
        f[i].b = czk_malloc(f[0].m * sizeof(czk_fr));
        f[i].c = czk_malloc(f[0].m * sizeof(czk_fr));
    }
    for (int i = 0; i < n; i++) fixture_assign(&f[i], &asg[i], pool);
    czk_groth16_proof proofs[n];
    czk_err err;
    czk_groth16_timings tm;
    CHECK_STATUS(czk_groth16_prove_batch(proofs, &f[0].pk, asg, n, NULL, NULL, pool, &tm, &err),
                 CZK_OK);
    CHECK(tm.ntt > 0 && tm.msm_h > 0);
    czk_groth16_pvk pvk;
    czk_groth16_prepare_vk(&pvk, &f[0].pk.vk);
    size_t np = f[0].r.n_inputs - 1;
    czk_fr *pubs = czk_malloc(n * np * sizeof *pubs);
    for (int i = 0; i < n; i++) {
        CHECK_STATUS(czk_groth16_verify(&pvk, &proofs[i], f[0].z + 1, np, &err), CZK_OK);
        memcpy(pubs + i * np, f[0].z + 1, np * sizeof *pubs);
    }
    CHECK_STATUS(czk_groth16_verify_batch(&pvk, proofs, n, pubs, np, &err), CZK_OK);
    /* Circuit 2 claims more rows than the domain holds. */
    for (int i = 0; i < n; i++) fixture_assign(&f[i], &asg[i], pool);
    asg[2].n_rows = f[0].m + 1;
    CHECK_STATUS(czk_groth16_prove_batch(proofs, &f[0].pk, asg, n, NULL, NULL, pool, NULL, &err),
                 CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "circuit 2 of 3") != NULL, "message: %s", err.msg);
    czk_free(pubs);
    for (int i = 1; i < n; i++) {
        czk_free(f[i].a);
        czk_free(f[i].b);
        czk_free(f[i].c);
    }
    fixture_free(&f[0]);
}

/*
 * A circuit written with czk's own constraint system and gadgets: x decomposed into
 * bits (strict), y = x^3 + x + 5 made public. RECORD mode gives the matrices for the
 * test parameters; EVAL mode writes a/b/c and the witness straight into the prover's
 * buffers with the densities the prover needs: the path Filecoin circuits take.
 */
static czk_status cubic_circuit(czk_cs *cs, void *ctx)
{
    const czk_fr *xv = ctx;
    czk_var x = czk_cs_alloc(cs, czk_cs_has_witness(cs) ? xv : NULL);
    czk_bool bits[255];
    czk_num_to_bits_le_strict(cs, x, bits);
    czk_var x3 = czk_num_mul(cs, czk_num_square(cs, x), x);
    czk_fr yv = CZK_FR_ZERO, five;
    czk_fr_from_u64(&five, 5);
    if (czk_cs_has_witness(cs)) {
        czk_fr_add(&yv, czk_cs_value(cs, x3), czk_cs_value(cs, x));
        czk_fr_add(&yv, &yv, &five);
    }
    czk_var y = czk_cs_alloc(cs, czk_cs_has_witness(cs) ? &yv : NULL);
    czk_lc a, one, c;
    czk_lc_init(&a, cs);
    czk_lc_init(&one, cs);
    czk_lc_init(&c, cs);
    czk_lc_add(&a, x3);
    czk_lc_add(&a, x);
    czk_lc_add_const(&a, &five);
    czk_lc_add(&one, czk_cs_one());
    czk_lc_add(&c, y);
    czk_cs_enforce(cs, &a, &one, &c); /* (x^3 + x + 5) · 1 = y */
    czk_lc_free(&a);
    czk_lc_free(&one);
    czk_lc_free(&c);
    czk_num_inputize(cs, y);
    return czk_cs_status(cs);
}

static void test_cs_circuit(void)
{
    czk_fr x;
    czk_test_rand_fr(&x);
    czk_err err;
    /* RECORD: matrices, then test parameters. */
    czk_cs_config cfg = {0};
    cfg.mode = CZK_CS_RECORD;
    czk_cs *cs = NULL;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    CHECK_STATUS(cubic_circuit(cs, &x), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    czk_r1cs r;
    CHECK_STATUS(czk_cs_take_r1cs(cs, &r, &err), CZK_OK);
    czk_cs_counts counts;
    czk_cs_get_counts(cs, &counts);
    czk_cs_destroy(cs);
    CHECK(counts.n_inputs == 2 && r.n_inputs == 2);
    czk_groth16_params pk;
    CHECK_STATUS(czk_groth16_setup(&pk, &r, pool, NULL, NULL, &err), CZK_OK);
    const size_t m = (size_t)1 << pk.log_m;

    /* EVAL straight into the prover's buffers. */
    czk_fr *in = czk_malloc(counts.n_inputs * sizeof *in);
    czk_fr *aux = czk_malloc(counts.n_aux * sizeof *aux);
    czk_fr *a = czk_malloc(m * sizeof *a), *b = czk_malloc(m * sizeof *b);
    czk_fr *c = czk_malloc(m * sizeof *c);
    size_t wa = (counts.n_aux + 63) / 64, wi = (counts.n_inputs + 63) / 64;
    uint64_t *da = czk_calloc(wa, 8), *dbi = czk_calloc(wi, 8), *dba = czk_calloc(wa, 8);
    czk_cs_config ecfg = {0};
    ecfg.mode = CZK_CS_EVAL;
    ecfg.buf = (czk_cs_buffers){in, counts.n_inputs, aux, counts.n_aux, a, b, c, m};
    CHECK_STATUS(czk_cs_create(&cs, &ecfg, &err), CZK_OK);
    CHECK_STATUS(cubic_circuit(cs, &x), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    czk_cs_get_densities(cs, da, dbi, dba);
    czk_cs_destroy(cs);

    czk_groth16_assignment asg = {in, aux, a, b, c, r.n_constraints, da, dbi, dba};
    czk_groth16_proof proofs[2];
    CHECK_STATUS(czk_groth16_prove(&proofs[0], &pk, &asg, NULL, NULL, pool, NULL, &err), CZK_OK);
    czk_groth16_pvk pvk;
    czk_groth16_prepare_vk(&pvk, &pk.vk);
    CHECK_STATUS(czk_groth16_verify(&pvk, &proofs[0], &in[1], 1, &err), CZK_OK);
    /* A second proof from a fresh EVAL run, both through the batch verifier. */
    CHECK_STATUS(czk_cs_create(&cs, &ecfg, &err), CZK_OK);
    CHECK_STATUS(cubic_circuit(cs, &x), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    czk_cs_destroy(cs);
    CHECK_STATUS(czk_groth16_prove(&proofs[1], &pk, &asg, NULL, NULL, pool, NULL, &err), CZK_OK);
    czk_fr pubs[2] = {in[1], in[1]};
    CHECK_STATUS(czk_groth16_verify_batch(&pvk, proofs, 2, pubs, 1, &err), CZK_OK);
    /* y is x^3 + x + 5, checked natively; a wrong y fails both verifiers. */
    czk_fr want, t;
    czk_fr_sqr(&t, &x);
    czk_fr_mul(&t, &t, &x);
    czk_fr_add(&t, &t, &x);
    czk_fr_from_u64(&want, 5);
    czk_fr_add(&want, &want, &t);
    CHECK(czk_fr_eq(&want, &in[1]));
    czk_fr_add(&pubs[1], &pubs[1], &CZK_FR_ONE);
    CHECK_STATUS(czk_groth16_verify(&pvk, &proofs[1], &pubs[1], 1, &err), CZK_EVERIFY);
    CHECK_STATUS(czk_groth16_verify_batch(&pvk, proofs, 2, pubs, 1, &err), CZK_EVERIFY);
    czk_free(in);
    czk_free(aux);
    czk_free(a);
    czk_free(b);
    czk_free(c);
    czk_free(da);
    czk_free(dbi);
    czk_free(dba);
    czk_r1cs_free(&r);
    czk_groth16_params_free(&pk);
}

int main(void)
{
    czk_test_seed();
    CHECK_STATUS(czk_pool_create(&pool, 0, NULL), CZK_OK);
    RUN(test_h_against_division);
    RUN(test_prove_verify);
    RUN(test_deterministic);
    RUN(test_prove_batch);
    RUN(test_cs_circuit);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
