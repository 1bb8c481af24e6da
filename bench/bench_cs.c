/*
 * bench_cs: constraints per second of the constraint system on a bit-heavy, SHA-256-like
 * circuit, per core.
 *
 * The workload is the shape of bellperson's SHA-256 gadget (most of a PoRep partition's
 * 130 M constraints): message words allocated as bits with boolean constraints
 * (1 − b)·b = 0; a message schedule and 64 rounds per block made of 3-way XORs of rotated
 * words (two constraints 2a·b = a + b − c per bit), Ch (a·(b − c) = ch − c per bit), Maj
 * (a XOR and a Ch per bit), and modular additions of several words: the result and carry
 * bits allocated with boolean constraints and one packing constraint
 * (Σ_k Σ_i 2^i·x_k,i)·1 = Σ_i 2^i·r_i + 2^32·carry, 100–230 terms long. Witness values are
 * kept as plain integers by the circuit, as a fast circuit should.
 *
 * Rows (median of `reps` runs, thread CPU time for one-thread rows):
 *   eval      CZK_CS_EVAL into preallocated buffers (the prover's mode)
 *   count     CZK_CS_COUNT
 *   record    CZK_CS_RECORD (matrices kept)
 *   hash      CZK_CS_HASH (the second pass of czk_cs_hash_circuit)
 *   pce_1t    czk_r1cs_eval of the recording, one thread
 *   pce_mt    czk_r1cs_eval on a pool of all CPUs, wall time, reported per core too
 * The target column is issue 6's: ≥ 5 M constraints/s per core in eval mode.
 *
 *   bench_cs [--blocks N] [--reps N] [--json-only] [--eval-only]
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ------------------------------------------------------------------------------------ */
/* The SHA-256-like circuit                                                             */
/* ------------------------------------------------------------------------------------ */

typedef struct word {
    czk_var b[32];
    uint32_t v;
} word;

typedef struct sha_ctx {
    unsigned blocks;
    czk_fr pow2[34]; /* 2^i, Montgomery */
    czk_fr two;
} sha_ctx;

typedef struct gadget {
    czk_cs *cs;
    const sha_ctx *ctx;
    czk_lc a, b, c;
    czk_lc sum, out; /* add_words' packing LCs (alloc_bool reuses a and b) */
} gadget;

static czk_var alloc_bool(gadget *g, bool bit)
{
    czk_var v = czk_cs_alloc_bit(g->cs, bit);
    czk_lc_clear(&g->a);
    czk_lc_clear(&g->b);
    czk_lc_add(&g->a, czk_cs_one());
    czk_lc_sub(&g->a, v);
    czk_lc_add(&g->b, v);
    czk_cs_enforce(g->cs, &g->a, &g->b, NULL);
    return v;
}

static word alloc_word(gadget *g, uint32_t value)
{
    word w;
    w.v = value;
    for (int i = 0; i < 32; i++) w.b[i] = alloc_bool(g, (value >> i) & 1);
    return w;
}

/* c = x XOR y: 2x·y = x + y − c (bellman's Boolean::xor). */
static czk_var xor_bit(gadget *g, czk_var x, czk_var y, bool cv)
{
    czk_var c = czk_cs_alloc_bit(g->cs, cv);
    czk_lc_clear(&g->a);
    czk_lc_clear(&g->b);
    czk_lc_clear(&g->c);
    czk_lc_add_term(&g->a, &g->ctx->two, x);
    czk_lc_add(&g->b, y);
    czk_lc_add(&g->c, x);
    czk_lc_add(&g->c, y);
    czk_lc_sub(&g->c, c);
    czk_cs_enforce(g->cs, &g->a, &g->b, &g->c);
    return c;
}

/* ch = x ? y : z: x·(y − z) = ch − z. */
static czk_var ch_bit(gadget *g, czk_var x, czk_var y, czk_var z, bool chv)
{
    czk_var ch = czk_cs_alloc_bit(g->cs, chv);
    czk_lc_clear(&g->a);
    czk_lc_clear(&g->b);
    czk_lc_clear(&g->c);
    czk_lc_add(&g->a, x);
    czk_lc_add(&g->b, y);
    czk_lc_sub(&g->b, z);
    czk_lc_add(&g->c, ch);
    czk_lc_sub(&g->c, z);
    czk_cs_enforce(g->cs, &g->a, &g->b, &g->c);
    return ch;
}

static uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

/* rotr(x, r0) ^ rotr(x, r1) ^ (shift ? x >> r2 : rotr(x, r2)), two XORs per bit. */
static word sigma(gadget *g, const word *x, int r0, int r1, int r2, bool shift)
{
    uint32_t t = rotr(x->v, r0) ^ rotr(x->v, r1);
    uint32_t u = shift ? x->v >> r2 : rotr(x->v, r2);
    word out;
    out.v = t ^ u;
    for (int i = 0; i < 32; i++) {
        czk_var p = x->b[(i + r0) & 31], q = x->b[(i + r1) & 31];
        czk_var tb = xor_bit(g, p, q, (t >> i) & 1);
        if (shift && i + r2 >= 32) {
            out.b[i] = tb; /* XOR with a constant 0 bit */
        } else {
            out.b[i] = xor_bit(g, tb, x->b[(i + r2) & 31], (out.v >> i) & 1);
        }
    }
    return out;
}

static word ch_word(gadget *g, const word *x, const word *y, const word *z)
{
    word out;
    out.v = (x->v & y->v) ^ (~x->v & z->v);
    for (int i = 0; i < 32; i++) out.b[i] = ch_bit(g, x->b[i], y->b[i], z->b[i], (out.v >> i) & 1);
    return out;
}

/* maj(x, y, z) = (x XOR y) ? z : x. */
static word maj_word(gadget *g, const word *x, const word *y, const word *z)
{
    word out;
    out.v = (x->v & y->v) ^ (x->v & z->v) ^ (y->v & z->v);
    for (int i = 0; i < 32; i++) {
        bool xy = ((x->v ^ y->v) >> i) & 1;
        czk_var t = xor_bit(g, x->b[i], y->b[i], xy);
        out.b[i] = ch_bit(g, t, z->b[i], x->b[i], (out.v >> i) & 1);
    }
    return out;
}

/* Sum of n words mod 2^32 (n ≤ 7) plus a constant: result and carry bits, one packing row. */
static word add_words(gadget *g, const word *const *xs, int n, uint32_t k)
{
    uint64_t sum = k;
    for (int j = 0; j < n; j++) sum += xs[j]->v;
    word out;
    out.v = (uint32_t)sum;
    czk_lc_clear(&g->sum);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 32; i++) czk_lc_add_term(&g->sum, &g->ctx->pow2[i], xs[j]->b[i]);
    if (k != 0) {
        czk_fr kf;
        czk_fr_from_u64(&kf, k);
        czk_lc_add_const(&g->sum, &kf);
    }
    czk_var bits[35];
    int nbits = 35;
    for (int i = 0; i < nbits; i++) bits[i] = alloc_bool(g, (sum >> i) & 1);
    for (int i = 0; i < 32; i++) out.b[i] = bits[i];
    czk_lc_clear(&g->out);
    for (int i = 0; i < 32; i++) czk_lc_add_term(&g->out, &g->ctx->pow2[i], bits[i]);
    czk_fr carry_w;
    for (int i = 32; i < nbits; i++) {
        czk_fr_mul(&carry_w, &g->ctx->pow2[32], &g->ctx->pow2[i - 32]);
        czk_lc_add_term(&g->out, &carry_w, bits[i]);
    }
    czk_lc_clear(&g->b);
    czk_lc_add(&g->b, czk_cs_one());
    czk_cs_enforce(g->cs, &g->sum, &g->b, &g->out);
    return out;
}

/* Round constants: any fixed words do (the structure does not depend on them). */
static uint32_t round_k(int t)
{
    return 0x428a2f98u * (uint32_t)(t + 1) ^ 0x9e3779b9u;
}

static czk_status sha_circuit(czk_cs *cs, void *p)
{
    const sha_ctx *ctx = p;
    gadget g = {cs, ctx, {0}, {0}, {0}, {0}, {0}};
    czk_lc_init(&g.a, cs);
    czk_lc_init(&g.b, cs);
    czk_lc_init(&g.c, cs);
    czk_lc_init(&g.sum, cs);
    czk_lc_init(&g.out, cs);
    uint32_t seed = 0x6a09e667u;
    word st[8];
    for (int i = 0; i < 8; i++) st[i] = alloc_word(&g, seed = seed * 1664525u + 1013904223u);
    for (unsigned blk = 0; blk < ctx->blocks; blk++) {
        word w[64];
        for (int t = 0; t < 16; t++) w[t] = alloc_word(&g, seed = seed * 1664525u + 1013904223u);
        for (int t = 16; t < 64; t++) {
            word s0 = sigma(&g, &w[t - 15], 7, 18, 3, true);
            word s1 = sigma(&g, &w[t - 2], 17, 19, 10, true);
            const word *xs[4] = {&w[t - 16], &s0, &w[t - 7], &s1};
            w[t] = add_words(&g, xs, 4, 0);
        }
        word a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], gg = st[6],
             h = st[7];
        for (int t = 0; t < 64; t++) {
            word S1 = sigma(&g, &e, 6, 11, 25, false);
            word chw = ch_word(&g, &e, &f, &gg);
            word S0 = sigma(&g, &a, 2, 13, 22, false);
            word mj = maj_word(&g, &a, &b, &c);
            const word *t1[7] = {&h, &S1, &chw, &w[t], &S0, &mj, NULL};
            word na = add_words(&g, t1, 6, round_k(t));
            const word *t2[5] = {&d, &h, &S1, &chw, &w[t]};
            word ne = add_words(&g, t2, 5, round_k(t));
            h = gg;
            gg = f;
            f = e;
            e = ne;
            d = c;
            c = b;
            b = a;
            a = na;
        }
        word fin[8] = {a, b, c, d, e, f, gg, h};
        for (int i = 0; i < 8; i++) {
            const word *xs[2] = {&st[i], &fin[i]};
            st[i] = add_words(&g, xs, 2, 0);
        }
    }
    czk_lc_free(&g.a);
    czk_lc_free(&g.b);
    czk_lc_free(&g.c);
    czk_lc_free(&g.sum);
    czk_lc_free(&g.out);
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Driver                                                                               */
/* ------------------------------------------------------------------------------------ */

static void die(czk_status s, const czk_err *err, const char *what)
{
    fprintf(stderr, "bench_cs: %s: %s: %s\n", what, czk_status_name(s), err ? err->msg : "");
    exit(1);
}

int main(int argc, char **argv)
{
    unsigned blocks = 8;
    int reps = 7;
    bool json_only = false;
    bool eval_only = false; /* for profiling: 50 eval runs, nothing else */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--blocks") == 0 && i + 1 < argc) {
            blocks = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--eval-only") == 0) {
            eval_only = true;
        } else if (strcmp(argv[i], "--json-only") == 0) {
            json_only = true;
        } else {
            fprintf(stderr, "usage: bench_cs [--blocks N] [--reps N] [--json-only]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;

    sha_ctx ctx;
    ctx.blocks = blocks;
    for (int i = 0; i < 34; i++) czk_fr_from_u64(&ctx.pow2[i], 1ULL << i);
    czk_fr_from_u64(&ctx.two, 2);

    czk_err err;
    czk_status s;
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    if ((s = czk_cs_create(&cs, &cfg, &err)) != CZK_OK) die(s, &err, "create");

    /* COUNT (also sizes the buffers). */
    double t_count[64];
    czk_cs_counts cnt;
    for (int r = 0; r < reps + 1; r++) {
        if ((s = czk_cs_reset(cs, &cfg, &err)) != CZK_OK) die(s, &err, "reset");
        double t0 = thread_ns();
        sha_circuit(cs, &ctx);
        if ((s = czk_cs_finish(cs, &err)) != CZK_OK) die(s, &err, "count");
        double t1 = thread_ns();
        if (r > 0) t_count[r - 1] = t1 - t0;
    }
    czk_cs_get_counts(cs, &cnt);
    size_t ni = cnt.n_inputs, na = cnt.n_aux, nc = cnt.n_constraints;

    /* EVAL into buffers allocated once and touched before timing, as pinned buffers are. */
    czk_fr *z = czk_malloc((ni + na) * sizeof *z);
    czk_fr *a = czk_malloc(nc * sizeof *a), *b = czk_malloc(nc * sizeof *b),
           *c = czk_malloc(nc * sizeof *c);
    if (z == NULL || a == NULL || b == NULL || c == NULL) die(CZK_ENOMEM, NULL, "buffers");
    memset(z, 0, (ni + na) * sizeof *z);
    memset(a, 0, nc * sizeof *a);
    memset(b, 0, nc * sizeof *b);
    memset(c, 0, nc * sizeof *c);
    czk_cs_config ecfg = {CZK_CS_EVAL, {z, ni, z + ni, na, a, b, c, nc}, 0, 0, 0};
    double t_eval[64];
    for (int r = 0; r < (eval_only ? 50 : reps + 1); r++) {
        if ((s = czk_cs_reset(cs, &ecfg, &err)) != CZK_OK) die(s, &err, "reset");
        double t0 = thread_ns();
        sha_circuit(cs, &ctx);
        if ((s = czk_cs_finish(cs, &err)) != CZK_OK) die(s, &err, "eval");
        double t1 = thread_ns();
        if (r > 0 && r <= reps) t_eval[r - 1] = t1 - t0;
    }
    if (eval_only) {
        printf("eval %.1f ns/constraint\n", median(t_eval, reps) / (double)nc);
        return 0;
    }

    /* RECORD */
    czk_cs_config rcfg;
    memset(&rcfg, 0, sizeof rcfg);
    rcfg.mode = CZK_CS_RECORD;
    czk_r1cs r1cs;
    memset(&r1cs, 0, sizeof r1cs);
    double t_rec[64];
    for (int r = 0; r < reps + 1; r++) {
        czk_r1cs_free(&r1cs);
        if ((s = czk_cs_reset(cs, &rcfg, &err)) != CZK_OK) die(s, &err, "reset");
        double t0 = thread_ns();
        sha_circuit(cs, &ctx);
        if ((s = czk_cs_finish(cs, &err)) != CZK_OK) die(s, &err, "record");
        double t1 = thread_ns();
        if ((s = czk_cs_take_r1cs(cs, &r1cs, &err)) != CZK_OK) die(s, &err, "take");
        if (r > 0) t_rec[r - 1] = t1 - t0;
    }

    /* HASH */
    czk_cs_config hcfg;
    memset(&hcfg, 0, sizeof hcfg);
    hcfg.mode = CZK_CS_HASH;
    hcfg.hash_n_inputs = ni;
    hcfg.hash_n_aux = na;
    hcfg.hash_n_constraints = nc;
    double t_hash[64];
    char hex[65];
    for (int r = 0; r < reps + 1; r++) {
        if ((s = czk_cs_reset(cs, &hcfg, &err)) != CZK_OK) die(s, &err, "reset");
        double t0 = thread_ns();
        sha_circuit(cs, &ctx);
        if ((s = czk_cs_finish(cs, &err)) != CZK_OK) die(s, &err, "hash");
        double t1 = thread_ns();
        czk_cs_get_hash(cs, NULL, hex, NULL);
        if (r > 0) t_hash[r - 1] = t1 - t0;
    }
    czk_cs_destroy(cs);

    /* The pre-compiled evaluator over the recording, checked against EVAL. */
    czk_fr *a2 = czk_malloc(nc * sizeof *a2), *b2 = czk_malloc(nc * sizeof *b2),
           *c2 = czk_malloc(nc * sizeof *c2);
    if (a2 == NULL || b2 == NULL || c2 == NULL) die(CZK_ENOMEM, NULL, "buffers");
    double t_pce1[64], t_pcem[64];
    for (int r = 0; r < reps + 1; r++) {
        double t0 = thread_ns();
        czk_r1cs_eval(&r1cs, z, a2, b2, c2, NULL);
        double t1 = thread_ns();
        if (r > 0) t_pce1[r - 1] = t1 - t0;
    }
    if (memcmp(a, a2, nc * 32) != 0 || memcmp(b, b2, nc * 32) != 0 || memcmp(c, c2, nc * 32) != 0)
        die(CZK_EINTERNAL, NULL, "czk_r1cs_eval disagrees with EVAL");
    uint32_t first_bad = 0;
    bool satisfied = czk_r1cs_is_satisfied(&r1cs, z, &first_bad);
    if (!satisfied) fprintf(stderr, "bench_cs: workload unsatisfied at row %u\n", first_bad);
    czk_pool *pool = NULL;
    if ((s = czk_pool_create(&pool, 0, &err)) != CZK_OK) die(s, &err, "pool");
    unsigned nthr = czk_pool_size(pool);
    for (int r = 0; r < reps + 1; r++) {
        double t0 = wall_ns();
        czk_r1cs_eval(&r1cs, z, a2, b2, c2, pool);
        double t1 = wall_ns();
        if (r > 0) t_pcem[r - 1] = t1 - t0;
    }
    czk_pool_destroy(pool);

    double m_eval = median(t_eval, reps), m_count = median(t_count, reps),
           m_rec = median(t_rec, reps), m_hash = median(t_hash, reps),
           m_pce1 = median(t_pce1, reps), m_pcem = median(t_pcem, reps);
    double n = (double)nc;
    double r_eval = n / m_eval * 1e3, r_count = n / m_count * 1e3, r_rec = n / m_rec * 1e3,
           r_hash = n / m_hash * 1e3, r_pce1 = n / m_pce1 * 1e3, r_pcem = n / m_pcem * 1e3;
    uint64_t nnz = r1cs.a.nnz + r1cs.b.nnz + r1cs.c.nnz;

    if (!json_only) {
        printf("bench_cs: SHA-256-like circuit, %u blocks: %zu constraints, %zu aux, "
               "%.2f terms/row, backend %s\n",
               blocks, nc, na, (double)nnz / n, czk_ff_backend());
        printf("%-8s %14s %12s %10s\n", "mode", "Mconstr/s/core", "ns/constr", "target");
        printf("%-8s %14.2f %12.1f %10s\n", "eval", r_eval, m_eval / n, ">= 5.00");
        printf("%-8s %14.2f %12.1f %10s\n", "count", r_count, m_count / n, "");
        printf("%-8s %14.2f %12.1f %10s\n", "record", r_rec, m_rec / n, "");
        printf("%-8s %14.2f %12.1f %10s\n", "hash", r_hash, m_hash / n, "");
        printf("%-8s %14.2f %12.1f %10s\n", "pce_1t", r_pce1, m_pce1 / n, "");
        printf("%-8s %14.2f %12.1f %10s  (%u threads: %.2f M/s total, wall)\n", "pce_mt",
               r_pcem / nthr, m_pcem / n * nthr, "", nthr, r_pcem);
        printf("hash %s, witness %s\n", hex, satisfied ? "satisfies the recording" : "UNSATISFIED");
    }
    printf("JSON {\"bench\":\"cs\",\"blocks\":%u,\"constraints\":%zu,\"aux\":%zu,\"nnz\":%llu,"
           "\"backend\":\"%s\",\"eval_mcps\":%.3f,\"count_mcps\":%.3f,\"record_mcps\":%.3f,"
           "\"hash_mcps\":%.3f,\"pce_1t_mcps\":%.3f,\"pce_mt_mcps\":%.3f,\"pce_threads\":%u,"
           "\"satisfied\":%s,\"target_eval_mcps\":5.0}\n",
           blocks, nc, na, (unsigned long long)nnz, czk_ff_backend(), r_eval, r_count, r_rec,
           r_hash, r_pce1, r_pcem, nthr, satisfied ? "true" : "false");
    czk_r1cs_free(&r1cs);
    czk_free(z);
    czk_free(a);
    czk_free(b);
    czk_free(c);
    czk_free(a2);
    czk_free(b2);
    czk_free(c2);
    return 0;
}
