/*
 * Shared by tests/unit/test_setup_stream.c and tests/gpu/test_gpu_setup.c: a random
 * circuit written against the cs API (the same structure on every run of one ctx, a
 * witness when the cs has one), and byte-for-byte comparison of keys. Include after
 * czk_test.h.
 */
#ifndef CZK_TEST_SETUP_CIRCUIT_H
#define CZK_TEST_SETUP_CIRCUIT_H

#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/groth16.h"

/* ---- A random circuit, the same structure on every run of one ctx ------------------- */

struct rc {
    uint64_t seed;
    uint32_t n_pub, n_free, n_mul;
    const czk_fr *pub; /* n_pub values for a witness run */
};

static inline uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline void fr_of(czk_fr *out, uint64_t *s)
{
    uint8_t w[64];
    for (int i = 0; i < 8; i++) {
        uint64_t v = splitmix(s);
        memcpy(w + 8 * i, &v, 8);
    }
    czk_fr_from_wide_bytes(out, w);
}

static inline czk_status rand_circuit(czk_cs *cs, void *p)
{
    const struct rc *x = p;
    uint64_t s = x->seed;
    const bool wit = czk_cs_has_witness(cs);
    size_t nvars = 0, cap = 1 + x->n_pub + x->n_free + x->n_mul;
    czk_var *vars = czk_malloc(cap * sizeof *vars);
    if (vars == NULL) return CZK_ENOMEM;
    vars[nvars++] = czk_cs_one();
    for (uint32_t i = 0; i < x->n_pub; i++)
        vars[nvars++] = czk_cs_alloc_input(cs, wit ? &x->pub[i] : NULL);
    for (uint32_t i = 0; i < x->n_free; i++) {
        czk_fr v;
        fr_of(&v, &s);
        vars[nvars++] = czk_cs_alloc(cs, wit ? &v : NULL);
    }
    czk_lc a, b, c;
    czk_lc_init(&a, cs);
    czk_lc_init(&b, cs);
    czk_lc_init(&c, cs);
    for (uint32_t j = 0; j < x->n_mul; j++) {
        czk_lc_clear(&a);
        czk_lc_clear(&b);
        czk_lc_clear(&c);
        unsigned terms = 1 + (unsigned)(splitmix(&s) % 5);
        for (unsigned t = 0; t < terms; t++) {
            czk_var v = vars[splitmix(&s) % nvars];
            czk_fr k;
            switch (splitmix(&s) % 4) {
            case 0: czk_lc_add(&a, v); break;
            case 1: czk_lc_sub(&a, v); break;
            case 2:
                fr_of(&k, &s);
                czk_lc_add_term(&a, &k, v);
                break;
            default: /* the same variable twice: merged into one term */
                fr_of(&k, &s);
                czk_lc_add_term(&a, &k, v);
                czk_lc_sub(&a, v);
                break;
            }
        }
        if (splitmix(&s) % 3 == 0) {
            czk_fr k;
            fr_of(&k, &s);
            czk_lc_add_const(&a, &k);
        }
        /* B: mostly the first half of the variables, so its densities are partial. */
        czk_lc_add(&b, vars[splitmix(&s) % (nvars / 2 + 1)]);
        if (splitmix(&s) % 4 == 0) czk_lc_add(&b, czk_cs_one());
        czk_fr prod;
        czk_fr_mul(&prod, czk_lc_value(&a), czk_lc_value(&b));
        czk_var out = czk_cs_alloc(cs, wit ? &prod : NULL);
        czk_lc_add(&c, out);
        czk_cs_enforce(cs, &a, &b, &c);
        if (nvars < cap) vars[nvars++] = out;
    }
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
    czk_free(vars);
    return czk_cs_status(cs);
}

/* ---- Helpers ------------------------------------------------------------------------ */

static inline bool vk_equal(const czk_groth16_vk *x, const czk_groth16_vk *y)
{
    return memcmp(&x->alpha_g1, &y->alpha_g1, sizeof x->alpha_g1) == 0 &&
           memcmp(&x->beta_g1, &y->beta_g1, sizeof x->beta_g1) == 0 &&
           memcmp(&x->delta_g1, &y->delta_g1, sizeof x->delta_g1) == 0 &&
           memcmp(&x->beta_g2, &y->beta_g2, sizeof x->beta_g2) == 0 &&
           memcmp(&x->gamma_g2, &y->gamma_g2, sizeof x->gamma_g2) == 0 &&
           memcmp(&x->delta_g2, &y->delta_g2, sizeof x->delta_g2) == 0 && x->ic_len == y->ic_len &&
           memcmp(x->ic, y->ic, x->ic_len * sizeof *x->ic) == 0;
}

/* Every field and point of two host-array keys, with a message naming the first difference. */
static inline bool params_equal(const czk_groth16_params *x, const czk_groth16_params *y)
{
    const char *what = NULL;
    if (x->conv != y->conv || x->n_inputs != y->n_inputs || x->n_aux != y->n_aux ||
        x->log_m != y->log_m || x->h_len != y->h_len || x->l_len != y->l_len ||
        x->a_len != y->a_len || x->b_g1_len != y->b_g1_len || x->b_g2_len != y->b_g2_len)
        what = "shape";
    else if (!vk_equal(&x->vk, &y->vk))
        what = "vk";
    else if (memcmp(x->h, y->h, x->h_len * sizeof *x->h) != 0)
        what = "h";
    else if (memcmp(x->l, y->l, x->l_len * sizeof *x->l) != 0)
        what = "l";
    else if (memcmp(x->a, y->a, x->a_len * sizeof *x->a) != 0)
        what = "a";
    else if (memcmp(x->b_g1, y->b_g1, x->b_g1_len * sizeof *x->b_g1) != 0)
        what = "b_g1";
    else if (memcmp(x->b_g2, y->b_g2, x->b_g2_len * sizeof *x->b_g2) != 0)
        what = "b_g2";
    if (what != NULL) fprintf(stderr, "  keys differ first in %s\n", what);
    return what == NULL;
}


/* Witness, a/b/c (2^log_m each) and densities of one EVAL run of the circuit, as the
 * prover takes them; free with setup_eval_free. */
struct setup_eval {
    czk_fr *inputs, *aux, *a, *b, *c;
    uint64_t *da, *dbi, *dba;
    czk_groth16_assignment asg;
};

static inline void setup_eval(struct setup_eval *e, const czk_groth16_params *pk, struct rc *x)
{
    size_t m = (size_t)1 << pk->log_m;
    e->inputs = czk_malloc((pk->n_inputs + 1) * sizeof *e->inputs);
    e->aux = czk_malloc((pk->n_aux + 1) * sizeof *e->aux);
    e->a = czk_calloc(m, sizeof *e->a);
    e->b = czk_calloc(m, sizeof *e->b);
    e->c = czk_calloc(m, sizeof *e->c);
    size_t wa = (pk->n_aux + 63) / 64 + 1, wi = (pk->n_inputs + 63) / 64 + 1;
    e->da = czk_calloc(wa, 8);
    e->dbi = czk_calloc(wi, 8);
    e->dba = czk_calloc(wa, 8);
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_EVAL;
    cfg.buf.inputs = e->inputs;
    cfg.buf.inputs_cap = pk->n_inputs;
    cfg.buf.aux = e->aux;
    cfg.buf.aux_cap = pk->n_aux;
    cfg.buf.a = e->a;
    cfg.buf.b = e->b;
    cfg.buf.c = e->c;
    cfg.buf.rows_cap = m;
    czk_cs *cs = NULL;
    czk_err err;
    czk_cs_counts cnt;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    CHECK_STATUS(rand_circuit(cs, x), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    czk_cs_get_counts(cs, &cnt);
    czk_cs_get_densities(cs, e->da, e->dbi, e->dba);
    czk_cs_destroy(cs);
    czk_groth16_assignment asg = {e->inputs, e->aux, e->a, e->b, e->c, cnt.n_constraints,
                                  e->da, e->dbi, e->dba};
    e->asg = asg;
}

static inline void setup_eval_free(struct setup_eval *e)
{
    czk_free(e->inputs);
    czk_free(e->aux);
    czk_free(e->a);
    czk_free(e->b);
    czk_free(e->c);
    czk_free(e->da);
    czk_free(e->dbi);
    czk_free(e->dba);
}

#endif
