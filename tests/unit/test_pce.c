/*
 * The pre-compiled constraint evaluator (include/czk/pce.h) and the constraint system's
 * WITNESS mode.
 *
 *   - PCE path (WITNESS-mode synthesis + czk_pce_eval) against the EVAL path, bit for bit:
 *     witness, a, b, c and densities, on random circuits whose dictionaries need 1-, 2-
 *     and 4-byte coefficient indices (general coefficients, merged duplicates, long LCs),
 *     a SHA-256 gadget circuit and the 2 KiB PoRep partition circuit (random witness).
 *   - Independent checks: the SHA-256 circuit's output equals OpenSSL's SHA-256 of the
 *     same bytes (trunc254), and its a∘b = c on every row; the PCE's a/b/c equal
 *     czk_r1cs_eval of the plain CSR recording.
 *   - Files: save/load round trip (same info, hash, a/b/c), wrong id or hash refused,
 *     a truncated file, every single-byte flip of a small file (checksum), and targeted
 *     corruptions of columns, coefficient indices, row lengths and the block index with
 *     the checksum skipped: each is an error naming the problem, never a crash.
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/gadgets.h"
#include "czk/merkle.h"
#include "czk/pce.h"
#include "czk/pool.h"
#include "czk/porep.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"
#include "czk_test.h"

#include <inttypes.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static czk_pool *pool;
static char tmpdir[256];
static bool width_seen[5]; /* coefficient index widths the circuits produced */

/* ------------------------------------------------------------------------------------ */
/* Running both paths                                                                   */
/* ------------------------------------------------------------------------------------ */

typedef struct paths {
    czk_cs_counts counts;
    czk_fr *z, *a, *b, *c; /* EVAL path: z = inputs ‖ aux */
    uint64_t *dens;        /* a_aux, b_input, b_aux (EVAL) */
    size_t aux_words, in_words;
} paths;

static void paths_free(paths *p)
{
    czk_free(p->z);
    czk_free(p->a);
    czk_free(p->dens);
    memset(p, 0, sizeof *p);
}

static czk_cs_buffers buffers(const czk_cs_counts *cnt, czk_fr *z, czk_fr *abc)
{
    czk_cs_buffers b;
    memset(&b, 0, sizeof b);
    b.inputs = z;
    b.inputs_cap = cnt->n_inputs;
    b.aux = z + cnt->n_inputs;
    b.aux_cap = cnt->n_aux;
    b.a = abc;
    b.b = abc + cnt->n_constraints;
    b.c = abc + 2 * cnt->n_constraints;
    b.rows_cap = cnt->n_constraints;
    return b;
}

/* The EVAL path, with counts from a COUNT run. */
static bool run_eval(czk_cs_circuit_fn fn, void *ctx, paths *p)
{
    memset(p, 0, sizeof *p);
    czk_cs_config cc;
    memset(&cc, 0, sizeof cc);
    cc.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_err err;
    if (czk_cs_create(&cs, &cc, &err) != CZK_OK) return false;
    fn(cs, ctx);
    bool ok = czk_cs_finish(cs, &err) == CZK_OK;
    czk_cs_get_counts(cs, &p->counts);
    czk_cs_destroy(cs);
    if (!ok) return false;
    const czk_cs_counts *n = &p->counts;
    p->z = czk_malloc((n->n_inputs + n->n_aux) * sizeof(czk_fr));
    p->a = czk_malloc((3 * n->n_constraints + 1) * sizeof(czk_fr));
    p->b = p->a + n->n_constraints;
    p->c = p->b + n->n_constraints;
    p->aux_words = (n->n_aux + 63) / 64;
    p->in_words = (n->n_inputs + 63) / 64;
    p->dens = czk_calloc(2 * p->aux_words + p->in_words + 1, 8);
    cc.mode = CZK_CS_EVAL;
    cc.buf = buffers(n, p->z, p->a);
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
    CHECK_STATUS(fn(cs, ctx), CZK_OK);
    ok = czk_cs_finish(cs, &err) == CZK_OK;
    CHECK_MSG(ok, "eval: %s", err.msg);
    czk_cs_get_densities(cs, p->dens, p->dens + p->aux_words, p->dens + p->aux_words + p->in_words);
    czk_cs_destroy(cs);
    return ok;
}

/* Record a PCE, synthesize through it and compare everything with the EVAL path. */
static czk_pce *check_pce_path(czk_cs_circuit_fn fn, void *ctx, const paths *ev,
                               unsigned expect_width)
{
    czk_err err;
    czk_pce *pce = NULL;
    CHECK_STATUS(czk_pce_record(&pce, fn, ctx, "test-circuit", &err), CZK_OK);
    if (pce == NULL) return NULL;
    czk_pce_info info;
    czk_pce_get_info(pce, &info);
    const czk_cs_counts *n = &ev->counts;
    CHECK(info.n_inputs == n->n_inputs && info.n_aux == n->n_aux &&
          info.n_constraints == n->n_constraints);
    CHECK(info.a_aux_density == n->a_aux_density && info.b_input_density == n->b_input_density &&
          info.b_aux_density == n->b_aux_density);
    CHECK(strcmp(info.circuit_id, "test-circuit") == 0);
    unsigned want = info.n_coeffs <= 256 ? 1 : info.n_coeffs <= 65536 ? 2 : 4;
    CHECK_MSG(info.coeff_width == want, "width %u for %u coefficients", info.coeff_width,
              info.n_coeffs);
    if (expect_width != 0)
        CHECK_MSG(info.coeff_width == expect_width, "width %u (%u coefficients), expected %u",
                  info.coeff_width, info.n_coeffs, expect_width);
    width_seen[info.coeff_width] = true;

    size_t nz = n->n_inputs + n->n_aux, nc = n->n_constraints;
    czk_fr *z = czk_malloc((nz + 1) * sizeof *z), *abc = czk_malloc((3 * nc + 1) * sizeof *abc);
    for (int round = 0; round < 2; round++) {
        memset(z, 0xa5, nz * sizeof *z); /* stale values must all be overwritten */
        memset(abc, 0x5a, 3 * nc * sizeof *abc);
        czk_cs_buffers buf = buffers(n, z, abc);
        czk_cs_counts got;
        CHECK_STATUS(czk_pce_synthesize(pce, fn, ctx, &buf, round ? pool : NULL, &got, &err),
                     CZK_OK);
        CHECK(memcmp(&got, n, sizeof got) == 0);
        CHECK_MEM(z, ev->z, nz * sizeof *z);
        CHECK_MEM(abc, ev->a, 3 * nc * sizeof *abc);
    }
    uint64_t *d = czk_calloc(2 * ev->aux_words + ev->in_words + 1, 8);
    czk_pce_get_densities(pce, d, d + ev->aux_words, d + ev->aux_words + ev->in_words);
    CHECK_MEM(d, ev->dens, (2 * ev->aux_words + ev->in_words) * 8);
    czk_free(d);
    czk_free(z);
    czk_free(abc);
    return pce;
}

/* The plain CSR recording evaluated by czk_r1cs_eval gives the same a/b/c. */
static void check_against_csr(czk_cs_circuit_fn fn, void *ctx, const paths *ev)
{
    czk_cs_config cc;
    memset(&cc, 0, sizeof cc);
    cc.mode = CZK_CS_RECORD;
    czk_cs *cs = NULL;
    czk_err err;
    czk_r1cs r;
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
    fn(cs, ctx);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    CHECK_STATUS(czk_cs_take_r1cs(cs, &r, &err), CZK_OK);
    czk_cs_destroy(cs);
    size_t nc = ev->counts.n_constraints;
    czk_fr *abc = czk_malloc((3 * nc + 1) * sizeof *abc);
    czk_r1cs_eval(&r, ev->z, abc, abc + nc, abc + 2 * nc, pool);
    CHECK_MEM(abc, ev->a, 3 * nc * sizeof *abc);
    czk_free(abc);
    czk_r1cs_free(&r);
}

/* ------------------------------------------------------------------------------------ */
/* Random circuits                                                                      */
/* ------------------------------------------------------------------------------------ */

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

static czk_fr fr_big(uint64_t *s)
{
    uint64_t w[4];
    for (int i = 0; i < 4; i++) w[i] = rng_next(s);
    w[3] &= 0x3fffffffffffffffULL;
    czk_fr r;
    CHECK(czk_fr_from_u64s(&r, w));
    return r;
}

struct rnd_ctx {
    uint64_t seed;
    uint32_t n_cons;
    uint32_t n_big; /* distinct general coefficients drawn from; UINT32_MAX: a new one
                     * each time */
    bool long_rows; /* some LCs of 255+ terms (escaped lengths) */
};

/* Random rows over a growing pool of variables; values are mostly bits, some general. The
 * structure and values both come from `seed` (the same every run of one ctx). */
static czk_status rnd_circuit(czk_cs *cs, void *p)
{
    const struct rnd_ctx *x = p;
    uint64_t st = x->seed;
    size_t cap = 20 + (size_t)x->n_cons, nv = 0;
    czk_var *vars = czk_malloc(cap * sizeof *vars);
    bool fresh = x->n_big == UINT32_MAX;
    czk_fr *big = czk_malloc(((size_t)(fresh ? 0 : x->n_big) + 1) * sizeof *big);
    uint64_t bs = x->seed ^ 0x1234;
    for (uint32_t i = 0; i < x->n_big && !fresh; i++) big[i] = fr_big(&bs);
    vars[nv++] = czk_cs_one();
    for (int i = 0; i < 4; i++) {
        czk_fr v = fr_u64(rng_next(&st) % 3);
        vars[nv++] = czk_cs_alloc_input(cs, &v);
    }
    for (int i = 0; i < 12; i++) {
        czk_fr v = rng_next(&st) % 2 ? fr_u64(rng_next(&st) & 1) : fr_big(&st);
        vars[nv++] = czk_cs_alloc(cs, &v);
    }
    czk_lc lc[3];
    for (int m = 0; m < 3; m++) czk_lc_init(&lc[m], cs);
    for (uint32_t j = 0; j < x->n_cons; j++) {
        for (int m = 0; m < 3; m++) {
            czk_lc_clear(&lc[m]);
            uint64_t n = rng_next(&st) % 6;
            if (x->long_rows && rng_next(&st) % 64 == 0) n = 400 + rng_next(&st) % 100;
            for (uint64_t t = 0; t < n; t++) {
                czk_var v = vars[rng_next(&st) % nv];
                switch (rng_next(&st) % 6) {
                case 0:
                    czk_lc_add(&lc[m], v);
                    break;
                case 1:
                    czk_lc_sub(&lc[m], v);
                    break;
                case 2: {
                    czk_fr k = fr_u64(1ull << (rng_next(&st) % 40));
                    czk_lc_add_term(&lc[m], &k, v);
                    break;
                }
                case 3:
                    if (fresh) {
                        czk_fr k = fr_big(&st);
                        czk_lc_add_term(&lc[m], &k, v);
                        break;
                    }
                    if (x->n_big > 0) {
                        czk_lc_add_term(&lc[m], &big[rng_next(&st) % x->n_big], v);
                        break;
                    }
                    /* fall through */
                default: {
                    czk_fr k = fr_u64(rng_next(&st) % 3 + 1);
                    czk_lc_add_term(&lc[m], &k, v);
                    if (rng_next(&st) % 2) czk_lc_sub_term(&lc[m], &k, v); /* merges to 0 */
                    break;
                }
                }
            }
        }
        if (rng_next(&st) % 4 == 0) czk_lc_add_lc(&lc[0], NULL, &lc[1]);
        if (rng_next(&st) % 4 == 0) {
            czk_fr k = fr_u64(7);
            czk_lc_sub_lc(&lc[2], &k, &lc[0]);
        }
        czk_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
        if (nv < cap) {
            czk_fr v = rng_next(&st) % 3 ? fr_u64(rng_next(&st) & 1) : fr_big(&st);
            vars[nv++] = czk_cs_alloc(cs, &v);
        }
    }
    for (int m = 0; m < 3; m++) czk_lc_free(&lc[m]);
    czk_free(vars);
    czk_free(big);
    return czk_cs_status(cs);
}

static void check_random(uint32_t n_cons, uint32_t n_big, bool long_rows, unsigned width)
{
    struct rnd_ctx x = {czk_test_rand64(), n_cons, n_big, long_rows};
    paths ev;
    CHECK(run_eval(rnd_circuit, &x, &ev));
    czk_pce *pce = check_pce_path(rnd_circuit, &x, &ev, width);
    check_against_csr(rnd_circuit, &x, &ev);
    czk_pce_destroy(pce);
    paths_free(&ev);
}

static void test_random_circuits(void)
{
    /* Small dictionaries: 40 powers of two, ±1 and a few small ints fit one byte. */
    check_random(3000, 0, false, 0);
    check_random(3000, 0, true, 0);
    check_random(4000, 2000, true, 2);
    check_random(60000, UINT32_MAX, false, 4);
    check_random(0, 0, false, 1); /* no constraints at all: the dictionary is ±1 */
    CHECK(width_seen[1] && width_seen[2] && width_seen[4]);
}

/* ------------------------------------------------------------------------------------ */
/* SHA-256 gadget                                                                       */
/* ------------------------------------------------------------------------------------ */

struct sha_ctx {
    uint8_t in[2][32]; /* two LE field elements */
    czk_var out;
};

static czk_status sha_circuit(czk_cs *cs, void *p)
{
    struct sha_ctx *x = p;
    czk_var nums[2];
    for (int i = 0; i < 2; i++) {
        czk_fr v = CZK_FR_ZERO;
        if (czk_cs_has_witness(cs)) CHECK(czk_fr_from_bytes_le(&v, x->in[i]));
        nums[i] = czk_cs_alloc(cs, &v);
    }
    return czk_sha256_circuit_hash_nums(cs, &x->out, nums, 2);
}

static void test_sha256_gadget(void)
{
    struct sha_ctx x;
    for (int i = 0; i < 2; i++) {
        czk_test_rand_bytes(x.in[i], 32);
        x.in[i][31] &= 0x3f;
    }
    paths ev;
    CHECK(run_eval(sha_circuit, &x, &ev));
    czk_pce *pce = check_pce_path(sha_circuit, &x, &ev, 0);
    czk_pce_info info;
    czk_pce_get_info(pce, &info);
    printf("  sha256 of 2 nums: %" PRIu64 " constraints, nnz %" PRIu64 "/%" PRIu64 "/%" PRIu64
           ", %u coefficients, %" PRIu64 " bytes\n",
           info.n_constraints, info.nnz[0], info.nnz[1], info.nnz[2], info.n_coeffs, info.bytes);
    /* The output equals OpenSSL's trunc254(SHA-256(in0 ‖ in1)) read little-endian. */
    uint8_t md[32], got[32];
    SHA256(&x.in[0][0], 64, md);
    md[31] &= 0x3f;
    czk_fr_to_bytes_le(got, &ev.z[ev.counts.n_inputs + czk_var_index(x.out)]);
    CHECK(czk_var_is_aux(x.out));
    CHECK_MEM(got, md, 32);
    /* And the PCE's a/b/c satisfy every row. */
    size_t nc = ev.counts.n_constraints;
    long bad = -1;
    for (size_t j = 0; j < nc && bad < 0; j++) {
        czk_fr ab;
        czk_fr_mul(&ab, &ev.a[j], &ev.b[j]);
        if (!czk_fr_eq(&ab, &ev.c[j])) bad = (long)j;
    }
    CHECK_MSG(bad < 0, "row %ld fails", bad);
    check_against_csr(sha_circuit, &x, &ev);
    czk_pce_destroy(pce);
    paths_free(&ev);
}

/* ------------------------------------------------------------------------------------ */
/* The 2 KiB PoRep partition with a random witness                                      */
/* ------------------------------------------------------------------------------------ */

static void rand_fr_bytes(uint8_t *b)
{
    czk_test_rand_bytes(b, 32);
    b[31] &= 0x3f;
}

/* A path of the right shape with random index digits and siblings. */
static void rand_path(czk_merkle_path *p, unsigned base_arity, unsigned base_levels, unsigned sub,
                      unsigned top)
{
    memset(p, 0, sizeof *p);
    unsigned ar[CZK_MERKLE_MAX_LEVELS], n = 0, sib = 0;
    for (unsigned i = 0; i < base_levels; i++) ar[n++] = base_arity;
    if (sub) ar[n++] = sub;
    if (top) ar[n++] = top;
    p->levels = n;
    for (unsigned i = 0; i < n; i++) {
        p->arity[i] = (uint8_t)ar[i];
        p->index[i] = (uint8_t)(czk_test_rand64() % ar[i]);
        for (unsigned k = 0; k + 1 < ar[i]; k++) rand_fr_bytes(p->siblings[sib++]);
    }
}

static unsigned log_base(uint64_t n, unsigned base)
{
    unsigned l = 0;
    while (n > 1) {
        n /= base;
        l++;
    }
    return l;
}

static void test_porep_2kib(void)
{
    czk_porep_circuit_ctx ctx;
    czk_err err;
    CHECK_STATUS(czk_porep_config_for_proof(&ctx.config, CZK_SEAL_StackedDrg2KiBV1_1, &err),
                 CZK_OK);
    const czk_porep_config *cfg = &ctx.config;
    unsigned upper = (cfg->tree_sub_arity ? cfg->tree_sub_arity : 1) *
                     (cfg->tree_top_arity ? cfg->tree_top_arity : 1);
    unsigned d_levels = log_base(cfg->nodes, 2);
    unsigned r_levels = log_base(cfg->nodes / upper, cfg->tree_base_arity);
    czk_porep_challenge *ch = czk_calloc(cfg->challenges, sizeof *ch);
    czk_porep_witness w;
    rand_fr_bytes(w.replica_id);
    rand_fr_bytes(w.comm_d);
    rand_fr_bytes(w.comm_r);
    rand_fr_bytes(w.comm_r_last);
    rand_fr_bytes(w.comm_c);
    for (unsigned i = 0; i < cfg->challenges; i++) {
        czk_porep_challenge *c = &ch[i];
        c->challenge = czk_test_rand64() % cfg->nodes;
        rand_fr_bytes(c->data_leaf);
        rand_path(&c->comm_d_path, 2, d_levels, 0, 0);
        rand_path(&c->comm_r_last_path, cfg->tree_base_arity, r_levels, cfg->tree_sub_arity,
                  cfg->tree_top_arity);
        rand_path(&c->comm_c_path, cfg->tree_base_arity, r_levels, cfg->tree_sub_arity,
                  cfg->tree_top_arity);
        for (unsigned j = 0; j < CZK_SDR_DRG_DEGREE + CZK_SDR_EXP_DEGREE; j++) {
            czk_porep_column *col =
                j < CZK_SDR_DRG_DEGREE ? &c->drg[j] : &c->exp[j - CZK_SDR_DRG_DEGREE];
            for (unsigned l = 0; l < cfg->layers; l++) rand_fr_bytes(col->rows[l]);
            rand_path(&col->path, cfg->tree_base_arity, r_levels, cfg->tree_sub_arity,
                      cfg->tree_top_arity);
        }
    }
    w.challenges = ch;
    ctx.witness = &w;
    paths ev;
    CHECK(run_eval(czk_porep_circuit, &ctx, &ev));
    czk_pce *pce = check_pce_path(czk_porep_circuit, &ctx, &ev, 0);
    czk_pce_info info;
    czk_pce_get_info(pce, &info);
    uint64_t nnz = info.nnz[0] + info.nnz[1] + info.nnz[2];
    printf("  PoRep 2 KiB: %" PRIu64 " constraints, nnz %" PRIu64 " (A %" PRIu64 " B %" PRIu64
           " C %" PRIu64 "), %u coefficients (%u-byte indices), %" PRIu64 " long rows, %" PRIu64
           " bytes = %.2f bytes/nnz\n",
           info.n_constraints, nnz, info.nnz[0], info.nnz[1], info.nnz[2], info.n_coeffs,
           info.coeff_width, info.long_rows[0] + info.long_rows[1] + info.long_rows[2], info.bytes,
           (double)info.bytes / (double)nnz);
    /* Round trip through a file. */
    char path[512];
    snprintf(path, sizeof path, "%s/porep2k.pce", tmpdir);
    CHECK_STATUS(czk_pce_save(pce, path, &err), CZK_OK);
    czk_pce *back = NULL;
    CHECK_STATUS(czk_pce_load(&back, path, "test-circuit", info.r1cs_hash, 0, &err), CZK_OK);
    if (back != NULL) {
        size_t nz = ev.counts.n_inputs + ev.counts.n_aux, nc = ev.counts.n_constraints;
        czk_fr *z = czk_malloc(nz * sizeof *z), *abc = czk_malloc(3 * nc * sizeof *abc);
        czk_cs_buffers buf = buffers(&ev.counts, z, abc);
        CHECK_STATUS(czk_pce_synthesize(back, czk_porep_circuit, &ctx, &buf, pool, NULL, &err),
                     CZK_OK);
        CHECK_MEM(abc, ev.a, 3 * nc * sizeof *abc);
        czk_free(z);
        czk_free(abc);
    }
    czk_pce_destroy(back);
    unlink(path);
    czk_pce_destroy(pce);
    paths_free(&ev);
    czk_free(ch);
}

/* ------------------------------------------------------------------------------------ */
/* Files                                                                                */
/* ------------------------------------------------------------------------------------ */

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = czk_malloc(*n + 1);
    if (fread(b, 1, *n, f) != *n) {
        czk_free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f == NULL) return;
    CHECK(fwrite(b, 1, n, f) == n);
    fclose(f);
}

/* Load `bytes` written to `path`; returns the status, with the message in err. */
static czk_status load_bytes(const char *path, const uint8_t *b, size_t n, unsigned flags,
                             czk_err *err, czk_pce **keep)
{
    write_file(path, b, n);
    czk_pce *p = NULL;
    czk_status s = czk_pce_load(&p, path, NULL, NULL, flags, err);
    if (keep != NULL)
        *keep = p;
    else
        czk_pce_destroy(p);
    return s;
}

/* Header offsets the targeted corruptions use (pce.c's pce_header). */
enum { OFF_WIDTH = 92, OFF_NNZ = 104, OFF_FILE_BYTES = 176, HEADER = 256 };

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void test_file_corruption(void)
{
    struct rnd_ctx x = {czk_test_rand64(), 1000, 300, true};
    paths ev;
    CHECK(run_eval(rnd_circuit, &x, &ev));
    czk_pce *pce = check_pce_path(rnd_circuit, &x, &ev, 2);
    czk_err err;
    char path[512], bad[512];
    snprintf(path, sizeof path, "%s/rnd.pce", tmpdir);
    snprintf(bad, sizeof bad, "%s/bad.pce", tmpdir);
    CHECK_STATUS(czk_pce_save(pce, path, &err), CZK_OK);
    czk_pce_info info;
    czk_pce_get_info(pce, &info);

    /* Round trip, expected id and hash. */
    czk_pce *back = NULL;
    CHECK_STATUS(czk_pce_load(&back, path, "test-circuit", info.r1cs_hash, 0, &err), CZK_OK);
    if (back != NULL) {
        czk_pce_info bi;
        czk_pce_get_info(back, &bi);
        CHECK(memcmp(&bi, &info, sizeof bi) == 0);
        size_t nc = ev.counts.n_constraints;
        czk_fr *abc = czk_malloc(3 * nc * sizeof *abc);
        czk_pce_eval(back, ev.z, ev.z + ev.counts.n_inputs, abc, abc + nc, abc + 2 * nc, pool);
        CHECK_MEM(abc, ev.a, 3 * nc * sizeof *abc);
        czk_free(abc);
        czk_pce_destroy(back);
    }
    CHECK_STATUS(czk_pce_load(&back, path, "other-circuit", NULL, 0, &err), CZK_EINVAL);
    uint8_t h2[32];
    memcpy(h2, info.r1cs_hash, 32);
    h2[7] ^= 1;
    CHECK_STATUS(czk_pce_load(&back, path, NULL, h2, 0, &err), CZK_EINVAL);
    CHECK_STATUS(czk_pce_load(&back, bad, NULL, NULL, 0, &err), CZK_ENOENT);

    size_t n = 0;
    uint8_t *img = read_file(path, &n);
    CHECK(img != NULL && n == info.bytes);
    if (img == NULL) goto out;
    uint8_t *b = czk_malloc(n);

    /* Truncated anywhere. */
    size_t cuts[] = {0, 100, HEADER, n / 2, n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        czk_status s = load_bytes(bad, img, cuts[i], 0, &err, NULL);
        CHECK_MSG(s == CZK_ETRUNCATED, "cut at %zu: %s", cuts[i], czk_status_name(s));
    }
    /* Longer than its header says. */
    uint8_t *longer = czk_calloc(n + 64, 1);
    memcpy(longer, img, n);
    CHECK_STATUS(load_bytes(bad, longer, n + 64, 0, &err, NULL), CZK_EFORMAT);
    czk_free(longer);

    /* Every single-byte change of the file is caught (by the checksum at the latest). */
    size_t step = n > 20000 ? n / 20000 : 1, missed = 0, tried = 0;
    for (size_t off = 0; off < n; off += step) {
        memcpy(b, img, n);
        b[off] ^= (uint8_t)(1u << (off % 8));
        tried++;
        if (load_bytes(bad, b, n, 0, &err, NULL) == CZK_OK) {
            if (missed < 5) printf("  flip at %zu of %zu loaded\n", off, n);
            missed++;
        }
    }
    CHECK_MSG(missed == 0, "%zu of %zu byte flips loaded", missed, tried);

    /* Without the checksum, structural validation names what is wrong. */
    struct corruption {
        const char *what; /* part of the expected message */
        uint64_t off;
        uint8_t val; /* byte written at off */
    } cases[8];
    int nc = 0;
    /* The sections of matrix A start after the dictionary: len, esc, blk_nnz, blk_esc,
     * col, cidx, each 64-byte aligned. */
    uint64_t rows = info.n_constraints, nb = (rows + CZK_PCE_BLOCK_ROWS - 1) / CZK_PCE_BLOCK_ROWS;
    uint64_t o_len = HEADER + ((uint64_t)info.n_coeffs * 32 + 63) / 64 * 64;
    uint64_t o_esc = o_len + (rows + 63) / 64 * 64;
    uint64_t o_bn = o_esc + (info.long_rows[0] * 4 + 63) / 64 * 64;
    uint64_t o_be = o_bn + ((nb + 1) * 8 + 63) / 64 * 64;
    uint64_t o_col = o_be + ((nb + 1) * 4 + 63) / 64 * 64;
    uint64_t o_ci = o_col + (info.nnz[0] * 4 + 63) / 64 * 64;
    CHECK(rd64(img + OFF_NNZ) == info.nnz[0] && rd64(img + OFF_FILE_BYTES) == n);
    cases[nc++] = (struct corruption){"unknown variable", o_col + 4 * (info.nnz[0] / 2) + 3, 0x7f};
    cases[nc++] = (struct corruption){"coefficient index", o_ci + 2 * (info.nnz[0] / 3) + 1, 0xff};
    uint64_t row = rows / 2;
    while (img[o_len + row] >= 200) row++; /* a short row: ±1 keeps it short */
    cases[nc++] =
        (struct corruption){"matrix A: block 0", o_len + row, (uint8_t)(img[o_len + row] ^ 1)};
    CHECK(info.long_rows[0] > 0);
    cases[nc++] = (struct corruption){"invalid", o_esc + 3, 0x7f};
    cases[nc++] = (struct corruption){"does not start at 0", o_bn, 1};
    cases[nc++] = (struct corruption){"not below the modulus", HEADER + 2 * 32 + 31, 0xff};
    cases[nc++] = (struct corruption){"dictionary of", OFF_WIDTH, 3};
    cases[nc++] = (struct corruption){"magic", 0, 'X'};
    for (int i = 0; i < nc; i++) {
        memcpy(b, img, n);
        b[cases[i].off] = cases[i].val;
        czk_status s = load_bytes(bad, b, n, CZK_PCE_LOAD_NO_CHECKSUM, &err, NULL);
        CHECK_MSG(s != CZK_OK && strstr(err.msg, cases[i].what) != NULL, "%s: got %s '%s'",
                  cases[i].what, czk_status_name(s), err.msg);
    }

    /* Random byte changes without the checksum: an error, or a PCE that evaluates
     * without reading out of bounds (the sanitizer build would notice). */
    size_t ncons = ev.counts.n_constraints, loaded = 0;
    czk_fr *abc = czk_malloc(3 * ncons * sizeof *abc + 1);
    for (int i = 0; i < 300; i++) {
        memcpy(b, img, n);
        for (int k = 0; k < 3; k++) b[czk_test_rand64() % n] = (uint8_t)czk_test_rand64();
        czk_pce *p = NULL;
        if (load_bytes(bad, b, n, CZK_PCE_LOAD_NO_CHECKSUM, &err, &p) == CZK_OK) {
            loaded++;
            czk_pce_eval(p, ev.z, ev.z + ev.counts.n_inputs, abc, abc + ncons, abc + 2 * ncons,
                         NULL);
            czk_pce_destroy(p);
        }
    }
    printf("  %zu of 300 randomly damaged files still structurally valid\n", loaded);
    czk_free(abc);
    czk_free(b);
    czk_free(img);
out:
    unlink(path);
    unlink(bad);
    czk_pce_destroy(pce);
    paths_free(&ev);
}

/* A record sink that counts the terms it is given per matrix. */
static czk_status count_sink(void *ctx, unsigned matrix, uint64_t row, const czk_lc_term *t,
                             uint32_t n)
{
    (void)row;
    uint64_t *seen = ctx;
    if (seen == NULL) return CZK_EINTERNAL;
    CHECK(n == 0 || t[0].kind == CZK_LC_COEFF_GENERAL); /* 2·q after merging */
    seen[matrix] += n;
    return CZK_OK;
}

/* WITNESS mode on its own: LC values are there when read (gadgets read some), counts
 * are kept, densities are not; and the record sink's rules. */
static void test_witness_mode(void)
{
    czk_fr z[8], one = fr_u64(1), three = fr_u64(3), five = fr_u64(5);
    czk_cs_config cc;
    memset(&cc, 0, sizeof cc);
    cc.mode = CZK_CS_WITNESS;
    cc.buf.inputs = z;
    cc.buf.inputs_cap = 2;
    cc.buf.aux = z + 2;
    cc.buf.aux_cap = 6;
    czk_cs *cs = NULL;
    czk_err err;
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
    CHECK(czk_cs_has_witness(cs) && czk_cs_get_mode(cs) == CZK_CS_WITNESS);
    czk_var x = czk_cs_alloc_input(cs, &three), y = czk_cs_alloc(cs, &five);
    czk_lc a, b;
    czk_lc_init(&a, cs);
    czk_lc_init(&b, cs);
    czk_lc_add(&a, x);
    czk_lc_add_term(&a, &three, y); /* 3 + 15 = 18 */
    czk_lc_sub(&a, czk_cs_one());   /* 17 */
    czk_lc_add_lc(&b, &three, &a);  /* 51 */
    czk_lc_assign(&a, &b);
    czk_fr v = fr_u64(51);
    CHECK(czk_fr_eq(czk_lc_value(&a), &v) && czk_fr_eq(czk_lc_value(&b), &v));
    CHECK(czk_lc_len(&b) == 3);
    czk_cs_enforce(cs, &a, &b, NULL);
    czk_cs_enforce(cs, NULL, NULL, NULL);
    czk_var w = czk_cs_alloc(cs, czk_lc_value(&b));
    CHECK(czk_fr_eq(&z[2 + czk_var_index(w)], &v));
    CHECK(czk_fr_eq(&z[0], &one));
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    czk_cs_counts cnt;
    czk_cs_get_counts(cs, &cnt);
    CHECK(cnt.n_inputs == 2 && cnt.n_aux == 2 && cnt.n_constraints == 2);
    CHECK(cnt.a_aux_density == 0 && cnt.b_aux_density == 0);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_cs_destroy(cs);
    /* The record sink is a RECORD-mode, before-the-first-row setting. */
    cc.mode = CZK_CS_COUNT;
    cc.buf.inputs = NULL;
    cc.buf.inputs_cap = cc.buf.aux_cap = 0;
    cc.buf.aux = NULL;
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
    CHECK_STATUS(czk_cs_set_record_sink(cs, count_sink, NULL), CZK_EINVAL);
    cc.mode = CZK_CS_RECORD;
    CHECK_STATUS(czk_cs_reset(cs, &cc, &err), CZK_OK);
    uint64_t seen[3] = {0, 0, 0};
    CHECK_STATUS(czk_cs_set_record_sink(cs, count_sink, seen), CZK_OK);
    czk_var q = czk_cs_alloc(cs, NULL);
    czk_lc_init(&a, cs);
    czk_lc_add(&a, q);
    czk_lc_add(&a, q); /* merged: one term of coefficient 2 */
    czk_cs_enforce(cs, &a, &a, NULL);
    CHECK_STATUS(czk_cs_set_record_sink(cs, count_sink, seen), CZK_EINVAL);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 0);
    czk_r1cs r;
    CHECK_STATUS(czk_cs_take_r1cs(cs, &r, &err), CZK_EINVAL);
    czk_lc_free(&a);
    czk_cs_destroy(cs);
    cc.mode = CZK_CS_WITNESS;
    /* A witness buffer is required. */
    cc.buf.inputs = NULL;
    cc.buf.inputs_cap = 0;
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_EINVAL);
}

int main(void)
{
    czk_test_seed();
    czk_err err;
    CHECK_STATUS(czk_pool_create(&pool, 4, &err), CZK_OK);
    /* tmpfs when there is one: the file tests write thousands of small files. */
    struct stat st;
    const char *t = getenv("TMPDIR");
    if (t == NULL && stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)) t = "/dev/shm";
    snprintf(tmpdir, sizeof tmpdir, "%s/czk_test_pce.%ld", t != NULL ? t : "/tmp", (long)getpid());
    CHECK(mkdir(tmpdir, 0700) == 0);
    RUN(test_witness_mode);
    RUN(test_random_circuits);
    RUN(test_sha256_gadget);
    RUN(test_porep_2kib);
    RUN(test_file_corruption);
    rmdir(tmpdir);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
