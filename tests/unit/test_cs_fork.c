/*
 * czk_cs_fork / czk_cs_join (include/czk/cs.h) and the parallel PoRep synthesis built on
 * them (czk_porep_circuit_par, czk_fil_job_synthesize_pool).
 *
 * The reference is the serial EVAL synthesis of the same circuit, itself checked against
 * bellperson's constraint counts, densities and R1CS hashes in test_cs.c and
 * test_porep_circuit.c; here every byte of the forked result (inputs, aux, a/b/c, counts,
 * densities) must equal it. Independently of both, each satisfied circuit must hold row by
 * row (a·b = c, with czk_fr_mul), and a tampered witness must break it in the same rows.
 *   - a hand circuit: a prologue, then identical segments, each on its own child on a
 *     4-thread pool, then more constraints on the parent after the join; segments use
 *     prologue variables in A and B (shared density words, set atomically) and LCs with
 *     duplicate variables (the child's own merge scratch);
 *   - the join's errors: a child forked one constraint off (CZK_EINTERNAL naming the
 *     child), a child reading a sibling's or a not-yet-synthesized variable (CZK_EINVAL),
 *     a child's own error (the first child's in order wins), bad forks;
 *   - SnapDeals (czk_snap_synthesize_par through czk_fil_job_synthesize_pool): synthetic
 *     updates of 2 KiB and 8 MiB, 10 challenges a partition;
 *   - PoRep: synthetic C1 fixtures (czk_porep_fixture) for 2 KiB and 8 MiB, their
 *     challenges repeated to 4 and 3 per partition so the parallel path runs (2 or fewer is
 *     serial by design); a non-canonical value in one challenge gives the serial error.
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/fil_job.h"
#include "czk/pool.h"
#include "czk/porep.h"
#include "czk/porep_vanilla.h"
#include "czk/snap_vanilla.h"
#include "czk/vanilla.h"
#include "czk_test.h"

static czk_pool *g_pool;

/* ------------------------------------------------------------------------------------ */
/* Buffers                                                                              */
/* ------------------------------------------------------------------------------------ */

typedef struct bufs {
    czk_fr *z, *abc;
    czk_cs_buffers b;
    size_t nc;
} bufs;

static bool bufs_alloc(bufs *x, const czk_cs_counts *n)
{
    memset(x, 0, sizeof *x);
    x->nc = n->n_constraints;
    x->z = czk_calloc(n->n_inputs + n->n_aux, sizeof(czk_fr));
    x->abc = czk_calloc(3 * x->nc + 1, sizeof(czk_fr));
    if (x->z == NULL || x->abc == NULL) return false;
    x->b.inputs = x->z;
    x->b.inputs_cap = n->n_inputs;
    x->b.aux = x->z + n->n_inputs;
    x->b.aux_cap = n->n_aux;
    x->b.a = x->abc;
    x->b.b = x->abc + x->nc;
    x->b.c = x->abc + 2 * x->nc;
    x->b.rows_cap = x->nc;
    return true;
}

static void bufs_free(bufs *x)
{
    czk_free(x->z);
    czk_free(x->abc);
}

static czk_cs *eval_cs(const bufs *x)
{
    czk_cs_config cc;
    memset(&cc, 0, sizeof cc);
    cc.mode = CZK_CS_EVAL;
    cc.buf = x->b;
    czk_cs *cs = NULL;
    czk_err err;
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
    return cs;
}

/* The first row where a·b ≠ c, or −1. */
static long first_bad_row(const bufs *x)
{
    for (size_t j = 0; j < x->nc; j++) {
        czk_fr ab;
        czk_fr_mul(&ab, &x->b.a[j], &x->b.b[j]);
        if (!czk_fr_eq(&ab, &x->b.c[j])) return (long)j;
    }
    return -1;
}

/* A finished cs's counts and densities. */
typedef struct result {
    czk_cs_counts n;
    uint64_t *a_aux, *b_in, *b_aux;
} result;

static void result_take(result *r, czk_cs *cs)
{
    czk_cs_get_counts(cs, &r->n);
    size_t aw = (size_t)(r->n.n_aux + 63) / 64 + 1, iw = (size_t)(r->n.n_inputs + 63) / 64 + 1;
    r->a_aux = czk_calloc(aw, 8);
    r->b_aux = czk_calloc(aw, 8);
    r->b_in = czk_calloc(iw, 8);
    CHECK(r->a_aux && r->b_aux && r->b_in);
    if (r->a_aux && r->b_aux && r->b_in) czk_cs_get_densities(cs, r->a_aux, r->b_in, r->b_aux);
}

static void result_free(result *r)
{
    czk_free(r->a_aux);
    czk_free(r->b_aux);
    czk_free(r->b_in);
}

/* Everything equal: counts, densities, and every buffer byte. */
static void check_same(const result *s, const bufs *sb, const result *p, const bufs *pb,
                       const char *what)
{
    CHECK_MSG(memcmp(&s->n, &p->n, sizeof s->n) == 0,
              "%s: counts %llu/%llu/%llu dens %llu/%llu/%llu vs %llu/%llu/%llu dens "
              "%llu/%llu/%llu",
              what, (unsigned long long)s->n.n_inputs, (unsigned long long)s->n.n_aux,
              (unsigned long long)s->n.n_constraints, (unsigned long long)s->n.a_aux_density,
              (unsigned long long)s->n.b_input_density, (unsigned long long)s->n.b_aux_density,
              (unsigned long long)p->n.n_inputs, (unsigned long long)p->n.n_aux,
              (unsigned long long)p->n.n_constraints, (unsigned long long)p->n.a_aux_density,
              (unsigned long long)p->n.b_input_density, (unsigned long long)p->n.b_aux_density);
    if (memcmp(&s->n, &p->n, sizeof s->n) != 0) return;
    size_t aw = (size_t)(s->n.n_aux + 63) / 64, iw = (size_t)(s->n.n_inputs + 63) / 64;
    CHECK_MSG(memcmp(s->a_aux, p->a_aux, aw * 8) == 0, "%s: a_aux density bitmap", what);
    CHECK_MSG(memcmp(s->b_aux, p->b_aux, aw * 8) == 0, "%s: b_aux density bitmap", what);
    CHECK_MSG(memcmp(s->b_in, p->b_in, iw * 8) == 0, "%s: b_input density bitmap", what);
    CHECK_MSG(memcmp(sb->b.inputs, pb->b.inputs, (size_t)s->n.n_inputs * sizeof(czk_fr)) == 0,
              "%s: inputs", what);
    CHECK_MSG(memcmp(sb->b.aux, pb->b.aux, (size_t)s->n.n_aux * sizeof(czk_fr)) == 0, "%s: aux",
              what);
    size_t nc = (size_t)s->n.n_constraints;
    for (int m = 0; m < 3; m++) {
        const czk_fr *x = m == 0 ? sb->b.a : m == 1 ? sb->b.b : sb->b.c;
        const czk_fr *y = m == 0 ? pb->b.a : m == 1 ? pb->b.b : pb->b.c;
        size_t j = 0;
        while (j < nc && memcmp(&x[j], &y[j], sizeof(czk_fr)) == 0) j++;
        CHECK_MSG(j == nc, "%s: %c differs first at row %zu of %zu", what, "abc"[m], j, nc);
    }
}

/* ------------------------------------------------------------------------------------ */
/* A hand circuit: prologue, identical segments, epilogue                               */
/* ------------------------------------------------------------------------------------ */

#define SEGMENTS 7
#define SEG_LEN  40 /* multiplications per segment */

typedef struct hand {
    czk_fr seed[SEGMENTS];
    czk_var x, y;        /* prologue: an input and an aux */
    czk_var out[SEGMENTS]; /* each segment's last product */
} hand;

static void prologue(czk_cs *cs, hand *h)
{
    czk_fr v;
    czk_fr_from_u64(&v, 7);
    h->x = czk_cs_alloc_input(cs, &v);
    czk_fr_from_u64(&v, 11);
    h->y = czk_cs_alloc(cs, &v);
    czk_lc a, b, c;
    czk_lc_init(&a, cs);
    czk_lc_init(&b, cs);
    czk_lc_init(&c, cs);
    czk_fr p;
    czk_fr_mul(&p, czk_cs_value(cs, h->x), czk_cs_value(cs, h->y));
    czk_var xy = czk_cs_alloc(cs, &p);
    czk_lc_add(&a, h->x);
    czk_lc_add(&b, h->y);
    czk_lc_add(&c, xy);
    czk_cs_enforce(cs, &a, &b, &c);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
}

/*
 * Segment k: an input (its seed), then a chain t_{i+1} = (t_i + x) · (y + y − y + s),
 * with x and y from the prologue (shared density words) and y named three times in B (a
 * merge in the child's own scratch). `peek` (not NULL) is an extra variable the segment
 * adds to one A LC, for the error tests.
 */
static void segment(czk_cs *cs, const hand *h, unsigned k, const czk_var *peek, czk_var *out)
{
    czk_var s = czk_cs_alloc_input(cs, &h->seed[k]);
    czk_lc a, b, c;
    czk_lc_init(&a, cs);
    czk_lc_init(&b, cs);
    czk_lc_init(&c, cs);
    czk_var t = s;
    for (unsigned i = 0; i < SEG_LEN; i++) {
        czk_lc_clear(&a);
        czk_lc_clear(&b);
        czk_lc_clear(&c);
        czk_lc_add(&a, t);
        czk_lc_add(&a, h->x);
        if (peek != NULL && i == SEG_LEN / 2) czk_lc_add(&a, *peek);
        czk_lc_add(&b, h->y);
        czk_lc_add(&b, h->y);
        czk_lc_sub(&b, h->y);
        czk_lc_add(&b, s);
        czk_fr v;
        czk_fr_mul(&v, czk_lc_value(&a), czk_lc_value(&b));
        t = czk_cs_alloc(cs, &v);
        czk_lc_add(&c, t);
        czk_cs_enforce(cs, &a, &b, &c);
    }
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
    *out = t;
}

/* Epilogue on the parent: the sum of every segment's output, times x. */
static void epilogue(czk_cs *cs, const hand *h)
{
    czk_lc a, b, c;
    czk_lc_init(&a, cs);
    czk_lc_init(&b, cs);
    czk_lc_init(&c, cs);
    for (unsigned k = 0; k < SEGMENTS; k++) czk_lc_add(&a, h->out[k]);
    czk_lc_add(&b, h->x);
    czk_fr v;
    czk_fr_mul(&v, czk_lc_value(&a), czk_lc_value(&b));
    czk_var r = czk_cs_alloc_input(cs, &v);
    czk_lc_add(&c, r);
    czk_cs_enforce(cs, &a, &b, &c);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
}

static czk_status hand_serial(czk_cs *cs, void *ctx)
{
    hand *h = ctx;
    prologue(cs, h);
    for (unsigned k = 0; k < SEGMENTS; k++) segment(cs, h, k, NULL, &h->out[k]);
    epilogue(cs, h);
    return czk_cs_status(cs);
}

/* Per-segment counts: one input, SEG_LEN aux, SEG_LEN constraints. */
static czk_cs_counts seg_at(const czk_cs_counts *start, unsigned k, uint64_t extra_rows)
{
    czk_cs_counts at = *start;
    at.n_inputs += k;
    at.n_aux += (uint64_t)k * SEG_LEN;
    at.n_constraints += (uint64_t)k * SEG_LEN + extra_rows;
    return at;
}

typedef struct hand_par {
    hand *h;
    czk_cs **child;
    int peek_mode; /* 0 none, 1 child 3 reads child 1's output, 2 child 2 reads a future var */
    int fail_a, fail_b; /* children calling czk_cs_fail, −1 none */
} hand_par;

static void hand_task(void *arg, size_t k, unsigned worker)
{
    (void)worker;
    hand_par *p = arg;
    czk_cs *cs = p->child[k];
    czk_var peek, *pp = NULL;
    if (p->peek_mode == 1 && k == 3) {
        peek.id = CZK_VAR_AUX | (3 + 1 * SEG_LEN + 5); /* inside child 1's aux range */
        pp = &peek;
    }
    if (p->peek_mode == 2 && k == 2) {
        peek.id = CZK_VAR_AUX | (2 + 2 * SEG_LEN + 30); /* its own, made only later */
        pp = &peek;
    }
    if ((int)k == p->fail_a || (int)k == p->fail_b) czk_cs_fail(cs, CZK_EFORMAT, "boom %zu", k);
    segment(cs, p->h, (unsigned)k, pp, &p->h->out[k]);
}

/* The parallel run: prologue, forks at the given offsets, pool, join, epilogue. */
static czk_status hand_parallel(czk_cs *cs, hand_par *p, uint64_t skew_child, czk_err *err)
{
    prologue(cs, p->h);
    czk_cs_counts start;
    czk_cs_get_counts(cs, &start);
    czk_cs *child[SEGMENTS];
    for (unsigned k = 0; k < SEGMENTS; k++) {
        czk_cs_counts at = seg_at(&start, k, k >= skew_child ? 1 : 0);
        CHECK_STATUS(czk_cs_fork(cs, &at, &child[k], err), CZK_OK);
    }
    p->child = child;
    czk_pool_run(g_pool, SEGMENTS, hand_task, p);
    czk_status s = czk_cs_join(cs, child, SEGMENTS, err);
    epilogue(cs, p->h);
    return s;
}

static void hand_init(hand *h)
{
    for (unsigned k = 0; k < SEGMENTS; k++) czk_fr_from_u64(&h->seed[k], czk_test_rand64());
}

static void test_hand_equal(void)
{
    hand h;
    hand_init(&h);
    czk_cs_config cc;
    memset(&cc, 0, sizeof cc);
    cc.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_err err;
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
    hand_serial(cs, &h);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    czk_cs_counts n;
    czk_cs_get_counts(cs, &n);
    czk_cs_destroy(cs);
    CHECK(n.n_constraints == 1 + SEGMENTS * SEG_LEN + 1);

    bufs sb, pb;
    CHECK(bufs_alloc(&sb, &n) && bufs_alloc(&pb, &n));
    result rs, rp;
    cs = eval_cs(&sb);
    CHECK_STATUS(hand_serial(cs, &h), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    result_take(&rs, cs);
    czk_cs_destroy(cs);
    CHECK(first_bad_row(&sb) == -1);
    CHECK(rs.n.b_input_density >= 1 + SEGMENTS); /* x and every segment's input in B */

    for (int rep = 0; rep < 3; rep++) {
        memset(pb.z, 0x5a, (size_t)(n.n_inputs + n.n_aux) * sizeof(czk_fr));
        memset(pb.abc, 0xa5, 3 * pb.nc * sizeof(czk_fr));
        cs = eval_cs(&pb);
        hand_par p = {&h, NULL, 0, -1, -1};
        CHECK_STATUS(hand_parallel(cs, &p, SEGMENTS, &err), CZK_OK);
        CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
        result_take(&rp, cs);
        czk_cs_destroy(cs);
        check_same(&rs, &sb, &rp, &pb, "hand circuit");
        CHECK(first_bad_row(&pb) == -1);
        result_free(&rp);
    }
    /* The comparison can fail: one changed witness value is seen. */
    pb.b.aux[5].l[0] ^= 1;
    CHECK(memcmp(sb.b.aux, pb.b.aux, (size_t)n.n_aux * sizeof(czk_fr)) != 0);
    result_free(&rs);
    bufs_free(&sb);
    bufs_free(&pb);
}

/* Runs the parallel hand circuit with a fault; returns finish's status, message in err. */
static czk_status hand_fault(int peek_mode, int fail_a, int fail_b, uint64_t skew, czk_err *err)
{
    hand h;
    hand_init(&h);
    czk_cs_counts n = {0};
    n.n_inputs = 3 + SEGMENTS;
    n.n_aux = 2 + SEGMENTS * SEG_LEN + 1;
    n.n_constraints = 3 + SEGMENTS * SEG_LEN;
    bufs b;
    CHECK(bufs_alloc(&b, &n));
    czk_cs *cs = eval_cs(&b);
    hand_par p = {&h, NULL, peek_mode, fail_a, fail_b};
    czk_err jerr;
    czk_status js = hand_parallel(cs, &p, skew, &jerr);
    czk_status s = czk_cs_finish(cs, err);
    CHECK(js == s);
    czk_cs_destroy(cs);
    bufs_free(&b);
    return s;
}

static void test_hand_errors(void)
{
    czk_err err;
    /* Child 4 forked one constraint late: child 3 ends one short of its start. */
    CHECK_STATUS(hand_fault(0, -1, -1, 4, &err), CZK_EINTERNAL);
    CHECK_MSG(strstr(err.msg, "child 3 ended") != NULL, "%s", err.msg);
    /* A sibling's variable, and a variable of its own range not made yet. */
    CHECK_STATUS(hand_fault(1, -1, -1, SEGMENTS, &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "unknown variable") != NULL, "%s", err.msg);
    CHECK_STATUS(hand_fault(2, -1, -1, SEGMENTS, &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "unknown variable") != NULL, "%s", err.msg);
    /* A child's own error, the first in order winning (whatever thread ran first). */
    CHECK_STATUS(hand_fault(0, 5, 2, SEGMENTS, &err), CZK_EFORMAT);
    CHECK_MSG(strcmp(err.msg, "boom 2") == 0, "%s", err.msg);
    /* A child's error goes before the count mismatch it may cause. */
    CHECK_STATUS(hand_fault(0, 6, -1, 1, &err), CZK_EFORMAT);

    /* Bad forks. */
    hand h;
    hand_init(&h);
    czk_cs_counts n = {0};
    n.n_inputs = 8;
    n.n_aux = 8;
    n.n_constraints = 8;
    bufs b;
    CHECK(bufs_alloc(&b, &n));
    czk_cs *cs = eval_cs(&b), *child = NULL, *grand = NULL;
    prologue(cs, &h);
    czk_cs_counts at;
    czk_cs_get_counts(cs, &at);
    at.n_aux--;
    CHECK_STATUS(czk_cs_fork(cs, &at, &child, &err), CZK_EINVAL); /* before the parent */
    CHECK(child == NULL);
    at.n_aux++;
    CHECK_STATUS(czk_cs_fork(cs, &at, &child, &err), CZK_OK);
    CHECK_STATUS(czk_cs_fork(child, &at, &grand, &err), CZK_EINVAL);
    czk_cs_config cc;
    memset(&cc, 0, sizeof cc);
    cc.mode = CZK_CS_COUNT;
    CHECK_STATUS(czk_cs_reset(child, &cc, &err), CZK_EINVAL);
    /* Running past the shared buffers is a sticky CZK_ERESOURCE in the child. */
    for (int i = 0; i < 12; i++) czk_cs_alloc_bit(child, true);
    CHECK(czk_cs_status(child) == CZK_ERESOURCE);
    CHECK_STATUS(czk_cs_join(cs, &child, 1, &err), CZK_ERESOURCE);
    czk_cs_counts got;
    czk_cs_get_counts(cs, &got);
    CHECK(got.n_aux == at.n_aux + 12);
    czk_cs_destroy(cs);

    /* Only from EVAL. */
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
    CHECK_STATUS(czk_cs_fork(cs, &at, &child, &err), CZK_EINVAL);
    czk_cs_destroy(cs);
    bufs_free(&b);
}

/* ------------------------------------------------------------------------------------ */
/* PoRep                                                                                */
/* ------------------------------------------------------------------------------------ */

static bool to_path(const czk_vanilla_merkle_proof *mp, czk_merkle_path *path)
{
    uint64_t leaf;
    czk_err err;
    return czk_vanilla_to_path(mp, path, &leaf, &err) == CZK_OK;
}

/* The witness of partition 0 with `n` challenges: the fixture's, repeated in turn. */
static czk_porep_challenge *witness_of(const czk_porep_c1_output *c1, const czk_porep_config *cfg,
                                       unsigned n, czk_porep_witness *w)
{
    const czk_porep_vanilla_proof *vp = c1->vanilla_proofs[0];
    size_t have = c1->challenge_counts[0];
    czk_porep_challenge *ch = czk_calloc(n, sizeof *ch);
    if (ch == NULL) return NULL;
    memset(w, 0, sizeof *w);
    memcpy(w->replica_id, c1->replica_id, 32);
    memcpy(w->comm_d, c1->comm_d, 32);
    memcpy(w->comm_r, c1->comm_r, 32);
    memcpy(w->comm_r_last, vp[0].comm_r_last_proof.root, 32);
    memcpy(w->comm_c, vp[0].c_x.inclusion_proof.root, 32);
    for (unsigned i = 0; i < n; i++) {
        const czk_porep_vanilla_proof *v = &vp[i % have];
        czk_porep_challenge *c = &ch[i];
        c->challenge = v->labeling_proofs[0].node;
        memcpy(c->data_leaf, v->comm_d_proofs.leaf, 32);
        CHECK(to_path(&v->comm_d_proofs, &c->comm_d_path));
        CHECK(to_path(&v->comm_r_last_proof, &c->comm_r_last_path));
        CHECK(to_path(&v->c_x.inclusion_proof, &c->comm_c_path));
        for (unsigned l = 0; l < cfg->layers; l++) memcpy(c->c_x[l], v->c_x.rows[l], 32);
        for (unsigned j = 0; j < CZK_SDR_DEGREE; j++) {
            const czk_vanilla_column_proof *cp = j < CZK_SDR_DRG_DEGREE
                                                     ? &v->drg_parents[j]
                                                     : &v->exp_parents[j - CZK_SDR_DRG_DEGREE];
            czk_porep_column *pc =
                j < CZK_SDR_DRG_DEGREE ? &c->drg[j] : &c->exp[j - CZK_SDR_DRG_DEGREE];
            for (unsigned l = 0; l < cfg->layers; l++) memcpy(pc->rows[l], cp->rows[l], 32);
            CHECK(to_path(&cp->inclusion_proof, &pc->path));
        }
    }
    w->challenges = ch;
    return ch;
}

/* Serial and parallel EVAL of one witness: identical; returns the first bad row (−1 when
 * satisfied) or −2 when synthesis failed (with the same error both ways). */
static long porep_compare(const czk_porep_circuit_ctx *ctx, const czk_cs_counts *n,
                          const char *what)
{
    bufs sb, pb;
    if (!bufs_alloc(&sb, n) || !bufs_alloc(&pb, n)) {
        CHECK_MSG(false, "%s: out of memory", what);
        bufs_free(&sb);
        bufs_free(&pb);
        return -3;
    }
    memset(pb.z, 0x5a, (size_t)(n->n_inputs + n->n_aux) * sizeof(czk_fr));
    czk_err es, ep;
    czk_cs *cs = eval_cs(&sb);
    czk_status ss = czk_porep_circuit(cs, (void *)ctx);
    ss = czk_cs_finish(cs, &es);
    result rs, rp;
    result_take(&rs, cs);
    czk_cs_destroy(cs);
    cs = eval_cs(&pb);
    czk_status ps = czk_porep_circuit_par(cs, ctx, g_pool);
    ps = czk_cs_finish(cs, &ep);
    result_take(&rp, cs);
    czk_cs_destroy(cs);
    long bad = -2;
    CHECK_MSG(ss == ps, "%s: serial %s, parallel %s", what, czk_status_name(ss),
              czk_status_name(ps));
    if (ss != CZK_OK) {
        CHECK_MSG(strcmp(es.msg, ep.msg) == 0, "%s: '%s' vs '%s'", what, es.msg, ep.msg);
    } else {
        check_same(&rs, &sb, &rp, &pb, what);
        bad = first_bad_row(&sb);
        CHECK(first_bad_row(&pb) == bad);
    }
    result_free(&rs);
    result_free(&rp);
    bufs_free(&sb);
    bufs_free(&pb);
    return bad;
}

static void porep_size(czk_seal_proof proof, unsigned nch)
{
    czk_err err;
    czk_porep_c1_output *c1 = NULL;
    CHECK_STATUS(czk_porep_fixture(&c1, proof, czk_test_rand64(), g_pool, &err), CZK_OK);
    if (c1 == NULL) return;
    czk_porep_circuit_ctx ctx;
    CHECK_STATUS(czk_porep_config_for_proof(&ctx.config, proof, &err), CZK_OK);
    ctx.config.challenges = nch;
    czk_porep_witness w;
    czk_porep_challenge *ch = witness_of(c1, &ctx.config, nch, &w);
    ctx.witness = &w;
    czk_cs_counts n;
    CHECK_STATUS(czk_porep_count(&ctx.config, &n, &err), CZK_OK);
    printf("  %s, %u challenges: %llu constraints\n", czk_seal_proof_name(proof), nch,
           (unsigned long long)n.n_constraints);
    if (ch != NULL) {
        CHECK(porep_compare(&ctx, &n, "porep") == -1);
        /* A changed parent row in the last challenge breaks the same rows both ways. */
        ch[nch - 1].exp[1].rows[1][7] ^= 1;
        CHECK(porep_compare(&ctx, &n, "porep, tampered") >= 0);
        ch[nch - 1].exp[1].rows[1][7] ^= 1;
        /* A non-canonical data leaf in challenge 1: the serial error, both ways. */
        memset(ch[1].data_leaf, 0xff, 32);
        CHECK(porep_compare(&ctx, &n, "porep, bad value") == -2);
    }
    czk_free(ch);
    czk_porep_c1_output_free(c1);
}

static void test_porep_2k(void)
{
    porep_size(CZK_SEAL_StackedDrg2KiBV1_1, 4);
}

static void test_porep_8m(void)
{
    porep_size(CZK_SEAL_StackedDrg8MiBV1_1, 3);
}

/* Partition p of a job synthesized serially and on the pool: identical and satisfied. */
static void job_compare(const czk_fil_job *j, size_t part, const char *what)
{
    czk_err err;
    czk_cs_counts n;
    czk_fil_job_counts(j, &n);
    bufs sb, pb;
    CHECK(bufs_alloc(&sb, &n) && bufs_alloc(&pb, &n));
    memset(pb.z, 0x5a, (size_t)(n.n_inputs + n.n_aux) * sizeof(czk_fr));
    result rs, rp;
    czk_cs *cs = eval_cs(&sb);
    CHECK_STATUS(czk_fil_job_synthesize(j, part, cs, &err), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    result_take(&rs, cs);
    czk_cs_destroy(cs);
    cs = eval_cs(&pb);
    CHECK_STATUS(czk_fil_job_synthesize_pool(j, part, cs, g_pool, &err), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    result_take(&rp, cs);
    czk_cs_destroy(cs);
    check_same(&rs, &sb, &rp, &pb, what);
    CHECK(first_bad_row(&pb) == -1);
    result_free(&rs);
    result_free(&rp);
    bufs_free(&sb);
    bufs_free(&pb);
}

/* SnapDeals through the job layer (10 challenges a partition at these sizes: the
 * parallel path), from synthetic updates (czk_snap_fixture_create). */
static void test_snap(void)
{
    static const uint64_t sizes[] = {2048, 8u << 20};
    for (size_t t = 0; t < 2; t++) {
        czk_err err;
        czk_snap_fixture *f = NULL;
        CHECK_STATUS(czk_snap_fixture_create(&f, sizes[t], czk_test_rand64(), &err), CZK_OK);
        if (f == NULL) continue;
        CHECK(f->params.challenge_count == 10);
        size_t np = f->npartitions;
        uint8_t **pb = czk_calloc(np, sizeof *pb);
        size_t *pl = czk_calloc(np, sizeof *pl);
        for (size_t k = 0; k < np; k++)
            CHECK_STATUS(czk_snap_partition_proof_write(f->partitions[k], &pb[k], &pl[k], &err),
                         CZK_OK);
        czk_fil_job_input in;
        memset(&in, 0, sizeof in);
        in.kind = CZK_FIL_SNAP;
        in.registered_proof = f->update_proof;
        in.vanilla_proofs = (const uint8_t *const *)pb;
        in.vanilla_proof_lens = pl;
        in.n_vanilla_proofs = np;
        in.comm_r_old = f->comms.comm_r_old;
        in.comm_r_new = f->comms.comm_r_new;
        in.comm_d_new = f->comms.comm_d_new;
        in.comm_r_old_len = in.comm_r_new_len = in.comm_d_new_len = 32;
        czk_fil_job *j = NULL;
        CHECK_STATUS(czk_fil_job_create(&j, &in, &err), CZK_OK);
        if (j != NULL) {
            job_compare(j, np - 1, "snap");
            czk_fil_job_destroy(j);
        }
        for (size_t k = 0; k < np; k++) czk_free(pb[k]);
        czk_free(pb);
        czk_free(pl);
        czk_snap_fixture_destroy(f);
    }
}

/* The job layer: a 2 KiB job (2 challenges: the serial path) gives the same both ways. */
static void test_fil_job(void)
{
    czk_err err;
    czk_porep_c1_output *c1 = NULL;
    CHECK_STATUS(czk_porep_fixture(&c1, CZK_SEAL_StackedDrg2KiBV1_1, czk_test_rand64(), NULL, &err),
                 CZK_OK);
    if (c1 == NULL) return;
    uint8_t *json = NULL;
    size_t len = 0;
    CHECK_STATUS(czk_porep_c1_write_json(c1, &json, &len, &err), CZK_OK);
    czk_fil_job_input in;
    memset(&in, 0, sizeof in);
    in.kind = CZK_FIL_POREP;
    in.registered_proof = CZK_SEAL_StackedDrg2KiBV1_1;
    in.vanilla_proof = json;
    in.vanilla_proof_len = len;
    czk_fil_job *j = NULL;
    CHECK_STATUS(czk_fil_job_create(&j, &in, &err), CZK_OK);
    if (j != NULL) {
        job_compare(j, 0, "fil_job porep");
        CHECK_STATUS(czk_fil_job_synthesize_pool(j, 1, NULL, g_pool, &err), CZK_EINVAL);
        czk_fil_job_destroy(j);
    }
    czk_free(json);
    czk_porep_c1_output_free(c1);
}

int main(void)
{
    czk_test_seed();
    czk_err err;
    if (czk_pool_create(&g_pool, 4, &err) != CZK_OK) {
        fprintf(stderr, "pool: %s\n", err.msg);
        return 1;
    }
    RUN(test_hand_equal);
    RUN(test_hand_errors);
    RUN(test_porep_2k);
    RUN(test_porep_8m);
    RUN(test_fil_job);
    RUN(test_snap);
    czk_pool_destroy(g_pool);
    return czk_test_finish();
}
