/*
 * The constraint system (src/cs) and the R1CS CSR helpers (src/cs/r1cs.c).
 *
 * Three circuits written with the API (x^3 + x + 5 = 35, a 64-bit decomposition with
 * packing into an aux variable and an input, a random R1CS generator with duplicates,
 * cancellations, long LCs and LC arithmetic) run in all four modes, and:
 *   - EVAL's a/b/c equal czk_r1cs_eval over RECORD's matrices with EVAL's witness
 *     (serial and on a pool), and every row satisfies a·b = c;
 *   - counts agree across modes, EVAL/COUNT densities equal czk_r1cs_densities of the
 *     recording, and both equal the counts of the independent Python model;
 *   - the R1CS hash equals the one tests/unit/test_cs_hash_ref.py computes from
 *     bellpepper-core's TestConstraintSystem::hash (BLAKE2s, hashlib), with the same
 *     counts and density counts;
 *   - the cubic's recording equals a hand-written CSR;
 *   - a wrong witness fails czk_r1cs_is_satisfied at the right row;
 *   - too-small buffers give a sticky CZK_ERESOURCE, full counts, and untouched memory
 *     past each capacity; misuse gives CZK_EINVAL;
 *   - the gadgets' direct rows (czk__cs_enforce_small, czk__cs_enforce_lin,
 *     czk__cs_alloc_bit) write the same witness, a/b/c, counts and densities as the
 *     same rows built from LCs, and refuse (doing nothing) where the LC path must run.
 */
#include "cs/cs_internal.h"
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/pool.h"
#include "czk_test.h"

/* ------------------------------------------------------------------------------------ */
/* Helpers                                                                              */
/* ------------------------------------------------------------------------------------ */

/* splitmix64, the structure stream test_cs_hash_ref.py re-states. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static czk_fr fr_u64(uint64_t v)
{
    czk_fr r;
    czk_fr_from_u64(&r, v);
    return r;
}

/* A value below 2^254 < r from four words of the stream. */
static czk_fr fr_big(uint64_t *s)
{
    uint64_t w[4];
    for (int i = 0; i < 4; i++) w[i] = rng_next(s);
    w[3] &= 0x3fffffffffffffffULL;
    czk_fr r;
    bool ok = czk_fr_from_u64s(&r, w);
    CHECK(ok);
    return r;
}

/* Witness values: bit-heavy like real circuits, with some general ones. */
static czk_fr rand_value(uint64_t *s)
{
    switch (rng_next(s) % 4) {
    case 0:
        return fr_u64(0);
    case 1:
        return fr_u64(1);
    case 2:
        return fr_u64(rng_next(s));
    default:
        return fr_big(s);
    }
}

static bool fr_same(const czk_fr *a, const czk_fr *b)
{
    return czk_fr_eq(a, b);
}

/* ------------------------------------------------------------------------------------ */
/* Circuits                                                                             */
/* ------------------------------------------------------------------------------------ */

/* x^3 + x + 5 = out, out a public input. */
struct cubic_ctx {
    uint64_t x;
    int64_t out_delta; /* added to the honest out: a wrong witness */
};

static czk_status cubic_circuit(czk_cs *cs, void *p)
{
    const struct cubic_ctx *ctx = p;
    czk_fr xv = fr_u64(ctx->x), x2v, x3v, outv, five = fr_u64(5);
    czk_fr_mul(&x2v, &xv, &xv);
    czk_fr_mul(&x3v, &x2v, &xv);
    czk_fr_add(&outv, &x3v, &xv);
    czk_fr_add(&outv, &outv, &five);
    if (ctx->out_delta != 0) {
        czk_fr d = fr_u64((uint64_t)ctx->out_delta);
        czk_fr_add(&outv, &outv, &d);
    }
    czk_lc a, b, c;
    czk_lc_init(&a, cs);
    czk_lc_init(&b, cs);
    czk_lc_init(&c, cs);

    czk_var x = czk_cs_alloc(cs, &xv);
    czk_var x2 = czk_cs_alloc(cs, &x2v);
    czk_lc_add(&a, x);
    czk_lc_add(&b, x);
    czk_lc_add(&c, x2);
    czk_cs_enforce(cs, &a, &b, &c);

    czk_var x3 = czk_cs_alloc(cs, &x3v);
    czk_lc_clear(&a);
    czk_lc_clear(&c);
    czk_lc_add(&a, x2);
    czk_lc_add(&c, x3);
    czk_cs_enforce(cs, &a, &b, &c); /* b is still x */

    czk_var out = czk_cs_alloc_input(cs, &outv);
    czk_lc_clear(&a);
    czk_lc_clear(&b);
    czk_lc_clear(&c);
    czk_lc_add(&a, x3);
    czk_lc_add(&a, x);
    czk_lc_add_const(&a, &five);
    czk_lc_add(&b, czk_cs_one());
    czk_lc_add(&c, out);
    czk_cs_enforce(cs, &a, &b, &c);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
    return CZK_OK;
}

/* n-bit decomposition of v (Boolean::alloc's (1 − b)·b = 0), packed into an aux num
 * and into a public input. */
struct bits_ctx {
    unsigned n;
    uint64_t v;
    int bad_bit; /* ≥ 0: that bit gets the value 2 */
};

static czk_status bits_circuit(czk_cs *cs, void *p)
{
    const struct bits_ctx *ctx = p;
    czk_fr vv = fr_u64(ctx->v);
    czk_var num = czk_cs_alloc(cs, &vv);
    czk_lc a, b, packed;
    czk_lc_init(&a, cs);
    czk_lc_init(&b, cs);
    czk_lc_init(&packed, cs);
    for (unsigned i = 0; i < ctx->n; i++) {
        czk_var bit;
        if ((int)i == ctx->bad_bit) {
            czk_fr two = fr_u64(2);
            bit = czk_cs_alloc(cs, &two);
        } else {
            bit = czk_cs_alloc_bit(cs, (ctx->v >> i) & 1);
        }
        czk_lc_clear(&a);
        czk_lc_clear(&b);
        czk_lc_add(&a, czk_cs_one());
        czk_lc_sub(&a, bit);
        czk_lc_add(&b, bit);
        czk_cs_enforce(cs, &a, &b, NULL);
        czk_fr k = fr_u64(1ULL << i);
        czk_lc_add_term(&packed, &k, bit);
    }
    czk_lc_clear(&b);
    czk_lc_add(&b, czk_cs_one());
    czk_lc_clear(&a);
    czk_lc_add(&a, num);
    czk_cs_enforce(cs, &packed, &b, &a);
    czk_var inp = czk_cs_alloc_input(cs, czk_lc_value(&packed));
    czk_lc_clear(&a);
    czk_lc_add(&a, inp);
    czk_cs_enforce(cs, &packed, &b, &a);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&packed);
    return CZK_OK;
}

/* Random R1CS: structure from `seed` (mirrored by test_cs_hash_ref.py), values from
 * `vseed`. Each row allocates w = <A>·<B> − <C> and adds it to C, so it holds. */
struct rnd_ctx {
    uint64_t seed, vseed;
    uint32_t n_cons;
    bool corrupt_last; /* w of the last row off by one */
};

struct rnd_state {
    czk_cs *cs;
    uint64_t st, vs;
    czk_var *vars;
    size_t nvars;
};

static czk_var rnd_pick(struct rnd_state *r)
{
    return r->vars[rng_next(&r->st) % r->nvars];
}

static void rnd_build(struct rnd_state *r, czk_lc *lc)
{
    uint64_t n = rng_next(&r->st) % 6;
    if (rng_next(&r->st) % 16 == 0) n = 40 + rng_next(&r->st) % 10;
    for (uint64_t t = 0; t < n; t++) {
        czk_var v = rnd_pick(r);
        switch (rng_next(&r->st) % 5) {
        case 0:
            czk_lc_add(lc, v);
            break;
        case 1:
            czk_lc_sub(lc, v);
            break;
        case 2: {
            czk_fr k = fr_u64(rng_next(&r->st) % 5);
            czk_lc_add_term(lc, &k, v);
            break;
        }
        case 3: {
            czk_fr k = fr_big(&r->st);
            czk_lc_add_term(lc, &k, v);
            break;
        }
        default: {
            czk_fr k = fr_u64(rng_next(&r->st) % 3 + 1);
            czk_lc_add_term(lc, &k, v);
            czk_lc_sub_term(lc, &k, v);
            break;
        }
        }
    }
}

static czk_status rnd_circuit(czk_cs *cs, void *p)
{
    const struct rnd_ctx *ctx = p;
    struct rnd_state r = {cs, ctx->seed, ctx->vseed, NULL, 0};
    r.vars = czk_malloc((14 + (size_t)ctx->n_cons) * sizeof *r.vars);
    if (r.vars == NULL) return CZK_ENOMEM;
    r.vars[r.nvars++] = czk_cs_one();
    for (int i = 0; i < 3; i++) {
        czk_fr v = rand_value(&r.vs);
        r.vars[r.nvars++] = czk_cs_alloc_input(cs, &v);
    }
    for (int i = 0; i < 10; i++) {
        czk_fr v = rand_value(&r.vs);
        r.vars[r.nvars++] = czk_cs_alloc(cs, &v);
    }
    czk_lc a, b, c;
    czk_lc_init(&a, cs);
    czk_lc_init(&b, cs);
    czk_lc_init(&c, cs);
    for (uint32_t j = 0; j < ctx->n_cons; j++) {
        czk_lc_clear(&a);
        czk_lc_clear(&b);
        czk_lc_clear(&c);
        rnd_build(&r, &a);
        rnd_build(&r, &b);
        rnd_build(&r, &c);
        switch (rng_next(&r.st) % 8) {
        case 0:
            czk_lc_add_lc(&a, NULL, &b);
            break;
        case 1:
            czk_lc_sub_lc(&c, NULL, &a);
            break;
        case 2: {
            czk_fr k = fr_u64(rng_next(&r.st) % 4 + 2);
            czk_lc_add_lc(&b, &k, &c);
            break;
        }
        case 3: {
            czk_fr k = fr_big(&r.st);
            czk_lc_sub_lc(&b, &k, &a);
            break;
        }
        case 4: {
            czk_fr k = fr_u64(rng_next(&r.st) % 4 + 2);
            czk_lc_add_lc(&a, &k, &a);
            break;
        }
        default:
            break;
        }
        czk_fr w;
        czk_fr_mul(&w, czk_lc_value(&a), czk_lc_value(&b));
        czk_fr_sub(&w, &w, czk_lc_value(&c));
        if (ctx->corrupt_last && j + 1 == ctx->n_cons) {
            czk_fr one = fr_u64(1);
            czk_fr_add(&w, &w, &one);
        }
        czk_var wv = czk_cs_alloc(cs, &w);
        r.vars[r.nvars++] = wv;
        czk_lc_add(&c, wv);
        czk_cs_enforce(cs, &a, &b, &c);
    }
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
    czk_free(r.vars);
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Running a circuit in every mode                                                      */
/* ------------------------------------------------------------------------------------ */

typedef struct run {
    czk_cs_counts counts;
    /* EVAL */
    czk_fr *z; /* inputs then aux */
    czk_fr *a, *b, *c;
    uint64_t *da, *dbi, *dba;
    /* RECORD */
    czk_r1cs r1cs;
    char hex[65];
} run;

static void run_free(run *r)
{
    czk_free(r->z);
    czk_free(r->a);
    czk_free(r->b);
    czk_free(r->c);
    czk_free(r->da);
    czk_free(r->dbi);
    czk_free(r->dba);
    czk_r1cs_free(&r->r1cs);
    memset(r, 0, sizeof *r);
}

static bool counts_eq(const czk_cs_counts *x, const czk_cs_counts *y)
{
    return x->n_inputs == y->n_inputs && x->n_aux == y->n_aux &&
           x->n_constraints == y->n_constraints && x->a_aux_density == y->a_aux_density &&
           x->b_input_density == y->b_input_density && x->b_aux_density == y->b_aux_density;
}

/* EVAL into exact-size buffers; z gets inputs ‖ aux. */
static czk_status eval_circuit(czk_cs_circuit_fn fn, void *ctx, const czk_cs_counts *cnt, run *r,
                               czk_cs *reuse)
{
    size_t ni = cnt->n_inputs, na = cnt->n_aux, nc = cnt->n_constraints;
    czk_fr *inputs = czk_malloc(ni * sizeof *inputs);
    r->z = czk_malloc((ni + na + 1) * sizeof *r->z);
    r->a = czk_malloc((nc + 1) * sizeof *r->a);
    r->b = czk_malloc((nc + 1) * sizeof *r->b);
    r->c = czk_malloc((nc + 1) * sizeof *r->c);
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_EVAL;
    cfg.buf.inputs = inputs;
    cfg.buf.inputs_cap = ni;
    cfg.buf.aux = r->z + ni;
    cfg.buf.aux_cap = na;
    cfg.buf.a = r->a;
    cfg.buf.b = r->b;
    cfg.buf.c = r->c;
    cfg.buf.rows_cap = nc;
    czk_cs *cs = reuse;
    czk_err err;
    czk_status s = reuse != NULL ? czk_cs_reset(cs, &cfg, &err) : czk_cs_create(&cs, &cfg, &err);
    CHECK_STATUS(s, CZK_OK);
    if (s != CZK_OK) {
        czk_free(inputs);
        return s;
    }
    CHECK(czk_cs_has_witness(cs));
    CHECK(czk_cs_get_mode(cs) == CZK_CS_EVAL);
    CHECK_STATUS(fn(cs, ctx), CZK_OK);
    s = czk_cs_finish(cs, &err);
    CHECK_MSG(s == CZK_OK, "%s", err.msg);
    czk_cs_get_counts(cs, &r->counts);
    size_t aw = (na + 63) / 64 + 1, iw = (ni + 63) / 64 + 1;
    r->da = czk_calloc(aw, 8);
    r->dba = czk_calloc(aw, 8);
    r->dbi = czk_calloc(iw, 8);
    czk_cs_get_densities(cs, r->da, r->dbi, r->dba);
    memcpy(r->z, inputs, ni * sizeof *inputs);
    czk_free(inputs);
    if (reuse == NULL) czk_cs_destroy(cs);
    return s;
}

static bool bitmaps_eq(const uint64_t *x, const uint64_t *y, uint64_t nbits)
{
    return memcmp(x, y, (size_t)((nbits + 63) / 64) * 8) == 0;
}

/*
 * COUNT, EVAL, RECORD and HASH of one circuit, with every cross-check that needs no
 * outside reference. Leaves EVAL's buffers, the recording and the hash in *r.
 */
static void run_all_modes(czk_cs_circuit_fn fn, void *ctx, run *r, czk_pool *pool)
{
    memset(r, 0, sizeof *r);
    czk_err err;
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);

    /* COUNT */
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    CHECK(!czk_cs_has_witness(cs));
    CHECK_STATUS(fn(cs, ctx), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    czk_cs_counts cnt;
    czk_cs_get_counts(cs, &cnt);
    size_t aw = (size_t)(cnt.n_aux + 63) / 64 + 1, iw = (size_t)(cnt.n_inputs + 63) / 64 + 1;
    uint64_t *ca = czk_calloc(aw, 8), *cba = czk_calloc(aw, 8), *cbi = czk_calloc(iw, 8);
    czk_cs_get_densities(cs, ca, cbi, cba);
    czk_cs_destroy(cs);

    /* EVAL */
    eval_circuit(fn, ctx, &cnt, r, NULL);
    CHECK(counts_eq(&cnt, &r->counts));
    CHECK(bitmaps_eq(ca, r->da, cnt.n_aux));
    CHECK(bitmaps_eq(cba, r->dba, cnt.n_aux));
    CHECK(bitmaps_eq(cbi, r->dbi, cnt.n_inputs));

    /* RECORD */
    cfg.mode = CZK_CS_RECORD;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    CHECK_STATUS(fn(cs, ctx), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    czk_cs_counts rc;
    czk_cs_get_counts(cs, &rc);
    CHECK(counts_eq(&cnt, &rc));
    CHECK_STATUS(czk_cs_take_r1cs(cs, &r->r1cs, &err), CZK_OK);
    czk_cs_destroy(cs);
    const czk_r1cs *m = &r->r1cs;
    CHECK(m->n_inputs == cnt.n_inputs && m->n_aux == cnt.n_aux &&
          m->n_constraints == cnt.n_constraints && m->has_c);

    /* Densities of the recording, by the CSR helper. */
    uint64_t *ra = czk_calloc(aw, 8), *rba = czk_calloc(aw, 8), *rbi = czk_calloc(iw, 8);
    czk_r1cs_densities(m, ra, rbi, rba);
    CHECK(bitmaps_eq(ra, r->da, cnt.n_aux));
    CHECK(bitmaps_eq(rba, r->dba, cnt.n_aux));
    CHECK(bitmaps_eq(rbi, r->dbi, cnt.n_inputs));
    czk_free(ra);
    czk_free(rba);
    czk_free(rbi);
    czk_free(ca);
    czk_free(cba);
    czk_free(cbi);

    /* The pre-compiled evaluator reproduces EVAL's a/b/c, serially and on the pool. */
    size_t nc = cnt.n_constraints;
    czk_fr *a2 = czk_malloc((nc + 1) * 32), *b2 = czk_malloc((nc + 1) * 32),
           *c2 = czk_malloc((nc + 1) * 32);
    for (int pass = 0; pass < 2; pass++) {
        memset(a2, 0xa5, (nc + 1) * 32);
        memset(b2, 0xa5, (nc + 1) * 32);
        memset(c2, 0xa5, (nc + 1) * 32);
        czk_r1cs_eval(m, r->z, a2, b2, c2, pass == 0 ? NULL : pool);
        size_t bad = 0;
        for (size_t j = 0; j < nc; j++)
            if (!fr_same(&a2[j], &r->a[j]) || !fr_same(&b2[j], &r->b[j]) ||
                !fr_same(&c2[j], &r->c[j]))
                bad++;
        CHECK_MSG(bad == 0, "pass %d: %zu of %zu rows differ from EVAL", pass, bad, nc);
        /* Nothing written past the last row. */
        uint8_t canary[32];
        memset(canary, 0xa5, 32);
        CHECK(memcmp(&a2[nc], canary, 32) == 0 && memcmp(&c2[nc], canary, 32) == 0);
    }
    czk_free(a2);
    czk_free(b2);
    czk_free(c2);

    /* HASH (COUNT then HASH inside). */
    czk_cs_counts hc;
    CHECK_STATUS(czk_cs_hash_circuit(fn, ctx, r->hex, &hc, &err), CZK_OK);
    CHECK(counts_eq(&cnt, &hc));
}

/* Every EVAL row satisfies a·b = c; returns the first that does not, or -1. */
static long eval_first_bad(const run *r)
{
    for (size_t j = 0; j < r->counts.n_constraints; j++) {
        czk_fr ab;
        czk_fr_mul(&ab, &r->a[j], &r->b[j]);
        if (!fr_same(&ab, &r->c[j])) return (long)j;
    }
    return -1;
}

static czk_pool *test_pool;

/* ------------------------------------------------------------------------------------ */
/* Tests                                                                                */
/* ------------------------------------------------------------------------------------ */

static void test_cubic(void)
{
    struct cubic_ctx ctx = {3, 0};
    run r;
    run_all_modes(cubic_circuit, &ctx, &r, test_pool);
    /* Counts and hash from test_cs_hash_ref.py. */
    CHECK(r.counts.n_inputs == 2 && r.counts.n_aux == 3 && r.counts.n_constraints == 3);
    CHECK(r.counts.a_aux_density == 3 && r.counts.b_input_density == 1 &&
          r.counts.b_aux_density == 1);
    CHECK_MSG(strcmp(r.hex, "8d6da92510454d6e548289644c650d0e4792a80c3912987952620e36b14836ac") ==
                  0,
              "hash %s", r.hex);
    /* The witness and the row values. */
    czk_fr v35 = fr_u64(35), v27 = fr_u64(27), v9 = fr_u64(9), v3 = fr_u64(3), one = fr_u64(1);
    CHECK(fr_same(&r.z[0], &one) && fr_same(&r.z[1], &v35));
    CHECK(fr_same(&r.z[2], &v3) && fr_same(&r.z[3], &v9) && fr_same(&r.z[4], &v27));
    CHECK(fr_same(&r.a[2], &v35) && fr_same(&r.b[2], &one) && fr_same(&r.c[2], &v35));
    CHECK(eval_first_bad(&r) == -1);
    uint32_t bad = 99;
    CHECK(czk_r1cs_is_satisfied(&r.r1cs, r.z, &bad));

    /* The recording equals the matrices written by hand. z = (1, out, x, x2, x3). */
    static const uint64_t a_ptr[] = {0, 1, 2, 5}, b_ptr[] = {0, 1, 2, 3}, c_ptr[] = {0, 1, 2, 3};
    static const uint32_t a_col[] = {2, 3, 0, 2, 4}, b_col[] = {2, 2, 0}, c_col[] = {3, 4, 1};
    const uint64_t a_val[] = {1, 1, 5, 1, 1}, b_val[] = {1, 1, 1}, c_val[] = {1, 1, 1};
    const czk_r1cs *m = &r.r1cs;
    CHECK(m->a.nnz == 5 && m->b.nnz == 3 && m->c.nnz == 3);
    if (m->a.nnz == 5 && m->b.nnz == 3 && m->c.nnz == 3) {
        CHECK(memcmp(m->a.row_ptr, a_ptr, sizeof a_ptr) == 0);
        CHECK(memcmp(m->b.row_ptr, b_ptr, sizeof b_ptr) == 0);
        CHECK(memcmp(m->c.row_ptr, c_ptr, sizeof c_ptr) == 0);
        CHECK(memcmp(m->a.col, a_col, sizeof a_col) == 0);
        CHECK(memcmp(m->b.col, b_col, sizeof b_col) == 0);
        CHECK(memcmp(m->c.col, c_col, sizeof c_col) == 0);
        for (int k = 0; k < 5; k++) {
            czk_fr v = fr_u64(a_val[k]);
            CHECK(fr_same(&m->a.val[k], &v));
        }
        for (int k = 0; k < 3; k++) {
            czk_fr vb = fr_u64(b_val[k]), vc = fr_u64(c_val[k]);
            CHECK(fr_same(&m->b.val[k], &vb) && fr_same(&m->c.val[k], &vc));
        }
    }

    /* RECORD given witness buffers stores the same witness as EVAL. */
    {
        czk_fr win[2], waux[3];
        czk_cs_config cfg = {CZK_CS_RECORD, {win, 2, waux, 3, NULL, NULL, NULL, 0}, 0, 0, 0};
        czk_cs *cs;
        CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
        CHECK(czk_cs_has_witness(cs));
        cubic_circuit(cs, &ctx);
        CHECK_STATUS(czk_cs_finish(cs, NULL), CZK_OK);
        CHECK(memcmp(win, r.z, sizeof win) == 0 && memcmp(waux, r.z + 2, sizeof waux) == 0);
        czk_cs_destroy(cs);
    }

    /* A wrong public output fails the last row. */
    struct cubic_ctx wrong = {3, 1};
    run w;
    memset(&w, 0, sizeof w);
    eval_circuit(cubic_circuit, &wrong, &r.counts, &w, NULL);
    CHECK(!czk_r1cs_is_satisfied(&r.r1cs, w.z, &bad));
    CHECK(bad == 2);
    CHECK(eval_first_bad(&w) == 2);
    run_free(&w);
    run_free(&r);
}

static void test_bits(void)
{
    struct bits_ctx ctx = {64, czk_test_rand64(), -1};
    run r;
    run_all_modes(bits_circuit, &ctx, &r, test_pool);
    CHECK(r.counts.n_inputs == 2 && r.counts.n_aux == 65 && r.counts.n_constraints == 66);
    CHECK(r.counts.a_aux_density == 64 && r.counts.b_input_density == 1 &&
          r.counts.b_aux_density == 64);
    CHECK_MSG(strcmp(r.hex, "499f7fdf090e0887fd0ea07f752587cc7dfe4c7c4ac89292cb68f9b4d64c5642") ==
                  0,
              "hash %s", r.hex);
    CHECK(eval_first_bad(&r) == -1);
    uint32_t bad = 0;
    CHECK(czk_r1cs_is_satisfied(&r.r1cs, r.z, &bad));
    /* The packed input is v. */
    czk_fr v = fr_u64(ctx.v);
    CHECK(fr_same(&r.z[1], &v));
    /* Bit j = 2 breaks its boolean row j first (the packing rows fail later). */
    struct bits_ctx wrong = ctx;
    wrong.bad_bit = (int)(czk_test_rand64() % 64);
    run w;
    memset(&w, 0, sizeof w);
    eval_circuit(bits_circuit, &wrong, &r.counts, &w, NULL);
    CHECK(!czk_r1cs_is_satisfied(&r.r1cs, w.z, &bad));
    CHECK_MSG(bad == (uint32_t)wrong.bad_bit, "first bad row %u, bit %d", bad, wrong.bad_bit);
    CHECK(eval_first_bad(&w) == wrong.bad_bit);
    run_free(&w);
    run_free(&r);
}

static void test_random_reference(void)
{
    /* The structure of seed 42 is fixed; values are fresh each run. */
    struct rnd_ctx ctx = {42, czk_test_rand64(), 300, false};
    run r;
    run_all_modes(rnd_circuit, &ctx, &r, test_pool);
    CHECK(r.counts.n_inputs == 4 && r.counts.n_aux == 310 && r.counts.n_constraints == 300);
    CHECK_MSG(r.counts.a_aux_density == 253 && r.counts.b_input_density == 4 &&
                  r.counts.b_aux_density == 251,
              "densities %" PRIu64 " %" PRIu64 " %" PRIu64, r.counts.a_aux_density,
              r.counts.b_input_density, r.counts.b_aux_density);
    CHECK_MSG(strcmp(r.hex, "cb7b9e52796e11e78129a400767bd13273e9694e8c2f51de29b3df77b8319334") ==
                  0,
              "hash %s", r.hex);
    CHECK(eval_first_bad(&r) == -1);
    uint32_t bad = 0;
    CHECK(czk_r1cs_is_satisfied(&r.r1cs, r.z, &bad));
    run_free(&r);
}

static void test_random_large(void)
{
    /* Fresh structure and values; 20000 rows make several pool tasks. */
    struct rnd_ctx ctx = {czk_test_rand64(), czk_test_rand64(), 20000, false};
    run r;
    run_all_modes(rnd_circuit, &ctx, &r, test_pool);
    CHECK(r.counts.n_constraints == 20000 && r.counts.n_aux == 20010);
    CHECK(eval_first_bad(&r) == -1);
    uint32_t bad = 0;
    CHECK(czk_r1cs_is_satisfied(&r.r1cs, r.z, &bad));

    /* A wrong w in the last row: only that row uses it. */
    struct rnd_ctx wrong = ctx;
    wrong.corrupt_last = true;
    run w;
    memset(&w, 0, sizeof w);
    eval_circuit(rnd_circuit, &wrong, &r.counts, &w, NULL);
    CHECK(!czk_r1cs_is_satisfied(&r.r1cs, w.z, &bad));
    CHECK(bad == 19999);
    CHECK(eval_first_bad(&w) == 19999);

    /* The same czk_cs reused for another witness gives what a fresh one gives. */
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
    run again;
    memset(&again, 0, sizeof again);
    eval_circuit(rnd_circuit, &ctx, &r.counts, &again, cs);
    CHECK(counts_eq(&again.counts, &r.counts));
    CHECK(memcmp(again.a, r.a, r.counts.n_constraints * 32) == 0);
    CHECK(memcmp(again.c, r.c, r.counts.n_constraints * 32) == 0);
    CHECK(memcmp(again.z, r.z, (r.counts.n_inputs + r.counts.n_aux) * 32) == 0);
    CHECK(bitmaps_eq(again.da, r.da, r.counts.n_aux));
    CHECK(bitmaps_eq(again.dba, r.dba, r.counts.n_aux));
    czk_cs_destroy(cs);
    run_free(&again);
    run_free(&w);
    run_free(&r);
}

/* Duplicates merge, cancellations vanish from densities and matrices, inputs in A are
 * untracked. */
static czk_status merge_circuit(czk_cs *cs, void *p)
{
    (void)p;
    czk_fr v5 = fr_u64(5), v7 = fr_u64(7), v2 = fr_u64(2), v10 = fr_u64(10), v3 = fr_u64(3);
    czk_var x = czk_cs_alloc(cs, &v5);
    czk_var y = czk_cs_alloc(cs, &v7);
    czk_var in = czk_cs_alloc_input(cs, &v2);
    czk_var z = czk_cs_alloc(cs, &v10);
    czk_lc a, b, c;
    czk_lc_init(&a, cs);
    czk_lc_init(&b, cs);
    czk_lc_init(&c, cs);
    /* Row 0: (y + x + x − y + in − in)·(in − in + ONE) = z, i.e. 2x·1 = z. */
    czk_lc_add(&a, y);
    czk_lc_add(&a, x);
    czk_lc_add(&a, x);
    czk_lc_sub(&a, y);
    czk_lc_add(&a, in);
    czk_lc_sub(&a, in);
    czk_lc_add(&b, in);
    czk_lc_sub(&b, in);
    czk_lc_add(&b, czk_cs_one());
    czk_lc_add(&c, z);
    CHECK(czk_lc_len(&a) == 6);
    if (czk_cs_has_witness(cs)) CHECK(fr_same(czk_lc_value(&a), &v10));
    czk_cs_enforce(cs, &a, &b, &c);
    /* Row 1: in·(3·z − 3·z + y) = ... only the values matter here: in·y = 14, C = 2·y. */
    czk_lc_clear(&a);
    czk_lc_clear(&b);
    czk_lc_clear(&c);
    czk_lc_add(&a, in);
    czk_lc_add_term(&b, &v3, z);
    czk_lc_add(&b, y);
    czk_lc_sub_term(&b, &v3, z);
    czk_lc_add_term(&c, &v2, y);
    czk_cs_enforce(cs, &a, &b, &c);
    /* Row 2: long LCs out of id order (the duplicate finder's hash set): A the sum of 40
     * new bits, B the last 20 of them plus v[5] − v[5], C their product w. */
    czk_var v[40];
    for (int i = 0; i < 40; i++) v[i] = czk_cs_alloc_bit(cs, (i * 7) % 3 == 0);
    czk_lc_clear(&a);
    czk_lc_clear(&b);
    czk_lc_clear(&c);
    for (int i = 39; i >= 0; i--) czk_lc_add(&a, v[i]);
    for (int i = 39; i >= 20; i--) {
        czk_lc_add(&b, v[i]);
        if (i == 30) czk_lc_add(&b, v[5]);
    }
    czk_lc_sub(&b, v[5]);
    czk_fr w;
    czk_fr_mul(&w, czk_lc_value(&a), czk_lc_value(&b));
    czk_lc_add(&c, czk_cs_alloc(cs, &w));
    czk_cs_enforce(cs, &a, &b, &c);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
    return CZK_OK;
}

static void test_merge_semantics(void)
{
    run r;
    run_all_modes(merge_circuit, NULL, &r, test_pool);
    CHECK(eval_first_bad(&r) == -1);
    /* a_aux: x (y cancelled) and the 40 bits (aux 3..42); b_input: only ONE (in
     * cancelled); b_aux: y and v[20..39] (aux 23..42), not z nor v[5] (cancelled). */
    CHECK(r.counts.a_aux_density == 41 && r.da[0] == 0x7fffffffff9ULL);
    CHECK(r.counts.b_input_density == 1 && (r.dbi[0] & 3) == 1);
    CHECK(r.counts.b_aux_density == 21 && r.dba[0] == (0x7ffff800000ULL | 2));
    /* Matrices of rows 0 and 1: z = (1, in, x, y, z, ...). */
    const czk_r1cs *m = &r.r1cs;
    czk_fr two = fr_u64(2), one = fr_u64(1);
    CHECK(m->a.row_ptr[2] == 2 && m->b.row_ptr[2] == 2 && m->c.row_ptr[2] == 2);
    if (m->a.row_ptr[2] == 2 && m->b.row_ptr[2] == 2) {
        CHECK(m->a.col[0] == 2 && fr_same(&m->a.val[0], &two)); /* 2x */
        CHECK(m->a.col[1] == 1 && fr_same(&m->a.val[1], &one)); /* in */
        CHECK(m->b.col[0] == 0 && fr_same(&m->b.val[0], &one)); /* ONE */
        CHECK(m->b.col[1] == 3 && fr_same(&m->b.val[1], &one)); /* y */
        CHECK(m->c.col[1] == 3 && fr_same(&m->c.val[1], &two)); /* 2y */
    }
    /* Row 2 is recorded sorted and merged: 40 and 20 terms. */
    CHECK(m->a.row_ptr[3] - m->a.row_ptr[2] == 40 && m->b.row_ptr[3] - m->b.row_ptr[2] == 20);
    for (uint64_t k = m->a.row_ptr[2] + 1; k < m->a.row_ptr[3]; k++)
        CHECK(m->a.col[k] > m->a.col[k - 1]);
    run_free(&r);
}

/* Buffers one short of what a circuit needs, with canaries after them. */
static void check_overflow(size_t in_short, size_t aux_short, size_t rows_short,
                           const char *want_msg)
{
    struct rnd_ctx ctx = {czk_test_rand64(), czk_test_rand64(), 500, false};
    czk_cs_counts full;
    {
        czk_cs_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.mode = CZK_CS_COUNT;
        czk_cs *cs;
        CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
        rnd_circuit(cs, &ctx);
        CHECK_STATUS(czk_cs_finish(cs, NULL), CZK_OK);
        czk_cs_get_counts(cs, &full);
        czk_cs_destroy(cs);
    }
    enum { CANARY = 8 };
    size_t ni = full.n_inputs - in_short, na = full.n_aux - aux_short,
           nr = full.n_constraints - rows_short;
    czk_fr *in = czk_malloc((ni + CANARY) * 32), *aux = czk_malloc((na + CANARY) * 32);
    czk_fr *a = czk_malloc((nr + CANARY) * 32), *b = czk_malloc((nr + CANARY) * 32),
           *c = czk_malloc((nr + CANARY) * 32);
    memset(in, 0x5a, (ni + CANARY) * 32);
    memset(aux, 0x5a, (na + CANARY) * 32);
    memset(a, 0x5a, (nr + CANARY) * 32);
    memset(b, 0x5a, (nr + CANARY) * 32);
    memset(c, 0x5a, (nr + CANARY) * 32);
    czk_cs_config cfg = {CZK_CS_EVAL, {in, ni, aux, na, a, b, c, nr}, 0, 0, 0};
    czk_cs *cs;
    czk_err err;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    CHECK_STATUS(rnd_circuit(cs, &ctx), CZK_OK);
    CHECK_STATUS(czk_cs_status(cs), CZK_ERESOURCE);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_ERESOURCE);
    CHECK_MSG(strstr(err.msg, want_msg) != NULL, "message '%s'", err.msg);
    /* Counting went on: the counts say what the buffers must hold. */
    czk_cs_counts got;
    czk_cs_get_counts(cs, &got);
    CHECK(got.n_inputs == full.n_inputs && got.n_aux == full.n_aux &&
          got.n_constraints == full.n_constraints);
    /* Sticky: a second finish says the same. */
    CHECK_STATUS(czk_cs_finish(cs, NULL), CZK_ERESOURCE);
    czk_cs_destroy(cs);
    uint8_t canary[CANARY * 32];
    memset(canary, 0x5a, sizeof canary);
    CHECK(memcmp(in + ni, canary, sizeof canary) == 0);
    CHECK(memcmp(aux + na, canary, sizeof canary) == 0);
    CHECK(memcmp(a + nr, canary, sizeof canary) == 0);
    CHECK(memcmp(b + nr, canary, sizeof canary) == 0);
    CHECK(memcmp(c + nr, canary, sizeof canary) == 0);
    czk_free(in);
    czk_free(aux);
    czk_free(a);
    czk_free(b);
    czk_free(c);
}

static void test_overflow(void)
{
    check_overflow(0, 1, 0, "aux buffer full");
    check_overflow(0, 200, 0, "aux buffer full");
    check_overflow(0, 0, 1, "a/b/c buffers full");
    check_overflow(1, 0, 0, "inputs buffer full");
    check_overflow(3, 300, 400, "inputs buffer full"); /* the first error is kept */
}

static void test_misuse(void)
{
    czk_err err;
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_EVAL; /* no buffers */
    czk_cs *cs = NULL;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_EINVAL);
    CHECK(cs == NULL);
    cfg.mode = (czk_cs_mode)7;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_EINVAL);

    /* Unknown variable in an LC. */
    cfg.mode = CZK_CS_COUNT;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    czk_lc lc;
    czk_lc_init(&lc, cs);
    czk_var bogus = {CZK_VAR_AUX | 3};
    czk_lc_add(&lc, bogus);
    CHECK_STATUS(czk_cs_status(cs), CZK_EINVAL);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_EINVAL);
    CHECK(strstr(err.msg, "unknown variable") != NULL);
    CHECK_STATUS(czk_cs_take_r1cs(cs, &(czk_r1cs){0}, NULL), CZK_EINVAL);
    CHECK_STATUS(czk_cs_get_hash(cs, NULL, NULL, NULL), CZK_EINVAL);
    czk_lc_free(&lc);
    czk_cs_destroy(cs);

    /* An LC of another cs; enforce after finish. */
    czk_cs *other = NULL;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
    CHECK_STATUS(czk_cs_create(&other, &cfg, NULL), CZK_OK);
    czk_lc_init(&lc, other);
    czk_cs_enforce(cs, &lc, NULL, NULL);
    CHECK_STATUS(czk_cs_status(cs), CZK_EINVAL);
    czk_cs_enforce(other, &lc, NULL, NULL);
    CHECK_STATUS(czk_cs_finish(other, NULL), CZK_OK);
    czk_cs_enforce(other, &lc, NULL, NULL);
    CHECK_STATUS(czk_cs_finish(other, &err), CZK_EINVAL);
    czk_lc_free(&lc);
    czk_cs_destroy(cs);
    czk_cs_destroy(other);

    /* A witness mode needs values; without a witness values read as zero. */
    czk_fr in[2], aux[2], a[1], b[1], c[1];
    czk_cs_config ecfg = {CZK_CS_EVAL, {in, 2, aux, 2, a, b, c, 1}, 0, 0, 0};
    CHECK_STATUS(czk_cs_create(&cs, &ecfg, NULL), CZK_OK);
    czk_fr nine = fr_u64(9);
    czk_var v = czk_cs_alloc(cs, &nine);
    CHECK(fr_same(czk_cs_value(cs, v), &nine) && czk_cs_value_bit(cs, v));
    CHECK(fr_same(czk_cs_value(cs, czk_cs_one()), &CZK_FR_ONE));
    czk_cs_alloc(cs, NULL);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_EINVAL);
    CHECK(strstr(err.msg, "without a value") != NULL);
    czk_cs_destroy(cs);
    CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
    v = czk_cs_alloc(cs, &nine);
    CHECK(czk_fr_is_zero(czk_cs_value(cs, v)) && !czk_cs_value_bit(cs, v));
    czk_cs_alloc(cs, NULL); /* fine without a witness */
    czk_cs_fail(cs, CZK_EFORMAT, "circuit says %d", 42);
    czk_cs_fail(cs, CZK_EIO, "second error is dropped");
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_EFORMAT);
    CHECK(strcmp(err.msg, "circuit says 42") == 0);
    czk_cs_destroy(cs);

    /* A failed reset leaves the cs refusing work until a good reset. */
    CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
    czk_cs_config bad;
    memset(&bad, 0, sizeof bad);
    bad.mode = CZK_CS_EVAL;
    CHECK_STATUS(czk_cs_reset(cs, &bad, NULL), CZK_EINVAL);
    czk_cs_alloc(cs, NULL);
    CHECK_STATUS(czk_cs_finish(cs, NULL), CZK_EINVAL);
    CHECK_STATUS(czk_cs_reset(cs, &cfg, NULL), CZK_OK);
    czk_cs_alloc(cs, NULL);
    CHECK_STATUS(czk_cs_finish(cs, NULL), CZK_OK);
    czk_cs_destroy(cs);

    /* HASH with counts that the circuit does not match. */
    cfg.mode = CZK_CS_HASH;
    cfg.hash_n_inputs = 2;
    cfg.hash_n_aux = 3;
    cfg.hash_n_constraints = 4;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
    struct cubic_ctx cc = {3, 0};
    cubic_circuit(cs, &cc);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_EINVAL);
    CHECK(strstr(err.msg, "expected") != NULL);
    czk_cs_destroy(cs);
}

/* czk_r1cs_* on matrices built by hand: 3 rows over z = (1, u, v, w). */
static void test_r1cs_helpers(void)
{
    czk_r1cs r;
    CHECK_STATUS(czk_r1cs_alloc(&r, 2, 2, 3, 4, 3, 3, NULL), CZK_OK);
    CHECK(r.has_c && r.a.nnz == 0 && r.a.row_ptr[3] == 0);
    /* u·v = w ; (u + 2)·1 = v ; (−w)·(v) = −w·v */
    static const uint64_t ap[] = {0, 1, 3, 4}, bp[] = {0, 1, 2, 3}, cp[] = {0, 1, 2, 3};
    static const uint32_t ac[] = {1, 1, 0, 3}, bc[] = {2, 0, 2}, cc[] = {3, 2, 0};
    memcpy(r.a.row_ptr, ap, sizeof ap);
    memcpy(r.b.row_ptr, bp, sizeof bp);
    memcpy(r.c.row_ptr, cp, sizeof cp);
    memcpy(r.a.col, ac, sizeof ac);
    memcpy(r.b.col, bc, sizeof bc);
    memcpy(r.c.col, cc, sizeof cc);
    czk_fr one = fr_u64(1), two = fr_u64(2), m1;
    czk_fr_neg(&m1, &one);
    r.a.val[0] = one;
    r.a.val[1] = one;
    r.a.val[2] = two;
    r.a.val[3] = m1;
    r.b.val[0] = one;
    r.b.val[1] = one;
    r.b.val[2] = one;
    r.c.val[0] = one;
    r.c.val[1] = one;
    czk_fr u = fr_big(&(uint64_t){czk_test_rand64()}), v, w, t;
    czk_fr_add(&v, &u, &two);
    czk_fr_mul(&w, &u, &v);
    czk_fr_mul(&t, &w, &v);
    czk_fr_neg(&r.c.val[2], &t); /* a constant row: −w·v·ONE */
    r.a.nnz = 4;
    r.b.nnz = 3;
    r.c.nnz = 3;
    czk_fr z[4] = {one, u, v, w};
    czk_fr a[3], b[3], c[3];
    czk_r1cs_eval(&r, z, a, b, c, test_pool);
    czk_fr up2;
    czk_fr_add(&up2, &u, &two);
    czk_fr mw;
    czk_fr_neg(&mw, &w);
    CHECK(fr_same(&a[0], &u) && fr_same(&b[0], &v) && fr_same(&c[0], &w));
    CHECK(fr_same(&a[1], &up2) && fr_same(&b[1], &one) && fr_same(&c[1], &v));
    CHECK(fr_same(&a[2], &mw) && fr_same(&b[2], &v) && fr_same(&c[2], &r.c.val[2]));
    uint32_t bad = 77;
    CHECK(czk_r1cs_is_satisfied(&r, z, &bad));
    /* A wrong constant in row 2 fails row 2 only. */
    czk_fr keep = r.c.val[2];
    czk_fr_add(&r.c.val[2], &r.c.val[2], &one);
    CHECK(!czk_r1cs_is_satisfied(&r, z, &bad) && bad == 2);
    r.c.val[2] = keep;
    /* A wrong v breaks rows 0, 1 and 2; the first is reported. */
    czk_fr_add(&z[2], &z[2], &one);
    CHECK(!czk_r1cs_is_satisfied(&r, z, &bad) && bad == 0);
    z[2] = v;
    /* Densities: A aux = {w} (index 1); B inputs = {ONE}; B aux = {v} (index 0). */
    uint64_t da = 0, dbi = 0, dba = 0;
    czk_r1cs_densities(&r, &da, &dbi, &dba);
    CHECK(da == 2 && dbi == 1 && dba == 1);
    /* Without C (snarkjs zkey matrices) c = a∘b. */
    r.has_c = false;
    czk_r1cs_eval(&r, z, a, b, c, NULL);
    czk_fr ab;
    czk_fr_mul(&ab, &a[0], &b[0]);
    CHECK(fr_same(&c[0], &ab));
    CHECK(czk_r1cs_is_satisfied(&r, z, NULL));
    czk_r1cs_free(&r);
    CHECK(r.a.row_ptr == NULL);
    czk_r1cs_free(&r); /* twice is harmless */
}

/* ------------------------------------------------------------------------------------ */
/* Direct rows (src/cs/cs_internal.h)                                                  */
/* ------------------------------------------------------------------------------------ */

typedef struct direct_cs {
    czk_cs *cs;
    czk_fr z[16], abc[3 * 8];
} direct_cs;

static void direct_open(direct_cs *d, czk_cs_mode mode, size_t rows)
{
    memset(d, 0, sizeof *d);
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = mode;
    cfg.buf.inputs = d->z;
    cfg.buf.inputs_cap = 2;
    cfg.buf.aux = d->z + 2;
    cfg.buf.aux_cap = 14;
    if (mode == CZK_CS_EVAL) {
        cfg.buf.a = d->abc;
        cfg.buf.b = d->abc + 8;
        cfg.buf.c = d->abc + 16;
        cfg.buf.rows_cap = rows;
    }
    czk_err err;
    CHECK_STATUS(czk_cs_create(&d->cs, &cfg, &err), CZK_OK);
}

/* Both constraint systems hold the same witness, rows, counts and densities. */
static void direct_compare(direct_cs *x, direct_cs *y)
{
    czk_cs_counts cx, cy;
    czk_cs_get_counts(x->cs, &cx);
    czk_cs_get_counts(y->cs, &cy);
    CHECK(memcmp(&cx, &cy, sizeof cx) == 0);
    CHECK_MEM(x->z, y->z, sizeof x->z);
    CHECK_MEM(x->abc, y->abc, sizeof x->abc);
    uint64_t dx[3], dy[3];
    czk_cs_get_densities(x->cs, &dx[0], &dx[1], &dx[2]);
    czk_cs_get_densities(y->cs, &dy[0], &dy[1], &dy[2]);
    CHECK(memcmp(dx, dy, sizeof dx) == 0);
}

static void test_direct_rows(void)
{
    /* The small-value table: k·R for k = −2..2. */
    for (int k = -2; k <= 2; k++) {
        czk_fr want = fr_u64((uint64_t)(k < 0 ? -k : k));
        if (k < 0) czk_fr_neg(&want, &want);
        CHECK(czk_fr_eq(&czk__cs_fr_small[k + 2], &want));
    }

    static const czk_cs_mode modes[2] = {CZK_CS_EVAL, CZK_CS_WITNESS};
    for (int m = 0; m < 2; m++) {
        czk_cs_mode mode = modes[m];
        direct_cs lc_side, dir;
        direct_open(&lc_side, mode, 8);
        direct_open(&dir, mode, 8);
        czk_fr in1 = fr_u64(77);
        czk_var x = czk_cs_alloc_input(lc_side.cs, &in1);
        (void)czk_cs_alloc_input(dir.cs, &in1);
        /* Bits p = 1, q = 0, r = 1; then rows of boolean gadgets' shapes. */
        czk_var p = czk_cs_alloc_bit(lc_side.cs, true), q = czk_cs_alloc_bit(lc_side.cs, false),
                r = czk_cs_alloc_bit(lc_side.cs, true);
        czk_var dp = czk__cs_alloc_bit(dir.cs, true), dq = czk__cs_alloc_bit(dir.cs, false),
                dr = czk__cs_alloc_bit(dir.cs, true);
        CHECK(dp.id == p.id && dq.id == q.id && dr.id == r.id);

        /* (2p)·q = p + q − r: values 2, 0, 0. */
        czk_lc a, b, c;
        czk_lc_init(&a, lc_side.cs);
        czk_lc_init(&b, lc_side.cs);
        czk_lc_init(&c, lc_side.cs);
        czk_lc_add_term(&a, &czk__cs_fr_small[4], p);
        czk_lc_add(&b, q);
        czk_lc_add(&c, p);
        czk_lc_add(&c, q);
        czk_lc_sub(&c, r);
        czk_cs_enforce(lc_side.cs, &a, &b, &c);
        CHECK(czk__cs_enforce_small(dir.cs, 2, 0, 0, &p.id, 1, &q.id, 1));

        direct_compare(&lc_side, &dir); /* each row's bits, before later rows set them */
        /* MultiEq's shape: (4p + 2q + r + 3x)·1 = 5 + 3·77 with both sides' values. */
        czk_fr k4 = fr_u64(4), k3 = fr_u64(3), v = fr_u64(5 + 3 * 77);
        czk_lc_clear(&a);
        czk_lc_clear(&b);
        czk_lc_clear(&c);
        czk_lc_add_term(&a, &k4, p);
        czk_lc_add_term(&a, &czk__cs_fr_small[4], q);
        czk_lc_add(&a, r);
        czk_lc_add_term(&a, &k3, x);
        czk_lc_add(&b, czk_cs_one());
        czk_lc_add_const(&c, &v);
        czk_cs_enforce(lc_side.cs, &a, &b, &c);
        uint32_t vars[4] = {p.id, q.id, r.id, x.id};
        czk_fr coeffs[4] = {k4, czk__cs_fr_small[4], czk__cs_fr_small[3], k3};
        CHECK(czk__cs_enforce_lin(dir.cs, vars, coeffs, 4, &v, &v));
        /* A zero merged coefficient leaves its variable (a new bit t) out of the density. */
        czk_var t = czk_cs_alloc_bit(lc_side.cs, false);
        CHECK(czk__cs_alloc_bit(dir.cs, false).id == t.id);
        czk_lc_clear(&a);
        czk_lc_add(&a, x);
        czk_cs_enforce(lc_side.cs, &a, &b, &a);
        czk_fr zc[2] = {CZK_FR_ZERO, CZK_FR_ONE};
        uint32_t zv[2] = {t.id, x.id};
        CHECK(czk__cs_enforce_lin(dir.cs, zv, zc, 2, &in1, &in1));
        direct_compare(&lc_side, &dir); /* each row's bits, before later rows set them */
        /* (q − r)·(1 − p) = −r: values −1, 0, −1; ONE and an input in B. */
        czk_lc_clear(&a);
        czk_lc_clear(&b);
        czk_lc_clear(&c);
        czk_lc_add(&a, q);
        czk_lc_sub(&a, r);
        czk_lc_add(&b, czk_cs_one());
        czk_lc_sub(&b, p);
        czk_lc_sub(&c, r);
        czk_cs_enforce(lc_side.cs, &a, &b, &c);
        uint32_t a_ids[2] = {q.id, r.id}, b_ids[2] = {0, p.id};
        CHECK(czk__cs_enforce_small(dir.cs, -1, 0, -1, a_ids, 2, b_ids, 2));

        czk_lc_free(&a);
        czk_lc_free(&b);
        czk_lc_free(&c);
        direct_compare(&lc_side, &dir);

        /* Refusals do nothing: an unknown variable, then a full row buffer (EVAL). */
        czk_cs_counts before, after;
        czk_cs_get_counts(dir.cs, &before);
        uint32_t unknown = CZK_VAR_AUX | 9;
        CHECK(!czk__cs_enforce_small(dir.cs, 0, 0, 0, &unknown, 1, &p.id, 1));
        CHECK(!czk__cs_enforce_lin(dir.cs, &unknown, &k3, 1, &v, &v));
        czk_cs_get_counts(dir.cs, &after);
        CHECK(memcmp(&before, &after, sizeof before) == 0);
        CHECK_STATUS(czk_cs_status(dir.cs), CZK_OK);
        if (mode == CZK_CS_EVAL) {
            for (int i = 0; i < 4; i++)
                CHECK(czk__cs_enforce_small(dir.cs, 1, 1, 1, NULL, 0, NULL, 0));
            CHECK(!czk__cs_enforce_small(dir.cs, 1, 1, 1, NULL, 0, NULL, 0));
            CHECK_STATUS(czk_cs_status(dir.cs), CZK_OK);
        }
        czk_cs_destroy(lc_side.cs);
        czk_cs_destroy(dir.cs);
    }

    /* COUNT mode always takes the LC path; an alloc without a witness too. */
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_err err;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    czk_var v = czk__cs_alloc_bit(cs, true);
    CHECK(v.id == (CZK_VAR_AUX | 0));
    CHECK(!czk__cs_enforce_small(cs, 0, 1, 0, &v.id, 1, &v.id, 1));
    czk_cs_counts n;
    czk_cs_get_counts(cs, &n);
    CHECK(n.n_aux == 1 && n.n_constraints == 0);
    czk_cs_destroy(cs);
}

int main(void)
{
    czk_test_seed();
    if (czk_pool_create(&test_pool, 3, NULL) != CZK_OK) return 1;
    RUN(test_cubic);
    RUN(test_bits);
    RUN(test_random_reference);
    RUN(test_random_large);
    RUN(test_merge_semantics);
    RUN(test_overflow);
    RUN(test_misuse);
    RUN(test_r1cs_helpers);
    RUN(test_direct_rows);
    czk_pool_destroy(test_pool);
    return czk_test_finish();
}
