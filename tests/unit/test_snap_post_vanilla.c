/*
 * SnapDeals and PoSt vanilla proofs: from real (sealed) small sectors and from the
 * synthetic fixtures of any size.
 *
 * Independent references:
 *   - the circuits (czk_snap_circuit, czk_post_circuit: constraint-for-constraint ports of
 *     rust-fil-proofs' EmptySectorUpdateCircuit / FallbackPoStCircuit, whose counts
 *     test_snap_post_circuits checks against upstream's tests) are satisfied in EVAL mode
 *     by the witnesses taken from the vanilla proofs, and their public inputs equal
 *     upstream's generate_public_inputs; tampered proofs leave a row unsatisfied;
 *   - the encoding checked node by node with plain field arithmetic, and decoding as its
 *     inverse;
 *   - PoSt leaf and Winning sector challenges recomputed with OpenSSL's SHA-256 from
 *     upstream's definition (generate_leaf_challenge, generate_sector_challenge);
 *   - the 32 GiB PartitionProof bincode size derived in docs/formats.md §8.3
 *     (561,768 bytes) from upstream's types.
 * A 32 GiB SnapDeals partition circuit has 81 M constraints (about 8 GB of EVAL rows), too
 * big for a unit test: at 32 GiB the synthetic SnapDeals proofs are checked by the vanilla
 * verifier, the 32 GiB Winning PoSt by its circuit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "czk/alloc.h"
#include "czk/post_vanilla.h"
#include "czk/snap_vanilla.h"
#include "czk_test.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void rand_node(uint8_t out[32])
{
    czk_test_rand_bytes(out, 32);
    out[31] &= 0x3f;
}

/* ------------------------------------------------------------------------------------ */
/* Circuits in EVAL mode                                                                */
/* ------------------------------------------------------------------------------------ */

/* Synthesize with a witness; -1 when every row holds (a·b = c), the first bad row
 * otherwise, -2 for a synthesis error. `inputs` (optional) gets the inputs after ONE. */
static long eval_circuit(czk_cs_circuit_fn fn, void *ctx, czk_fr *inputs, size_t ninputs)
{
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_err err = {0};
    if (czk_cs_create(&cs, &cfg, &err) != CZK_OK) return -2;
    czk_status s = fn(cs, ctx);
    if (s == CZK_OK) s = czk_cs_finish(cs, &err);
    czk_cs_counts c;
    czk_cs_get_counts(cs, &c);
    czk_cs_destroy(cs);
    if (s != CZK_OK) return -2;
    size_t ni = c.n_inputs, na = c.n_aux, nc = c.n_constraints;
    czk_fr *in = czk_malloc(ni * sizeof *in), *aux = czk_malloc(na * sizeof *aux);
    czk_fr *abc = czk_malloc(3 * nc * sizeof *abc);
    long bad = -2;
    cfg.mode = CZK_CS_EVAL;
    cfg.buf.inputs = in;
    cfg.buf.inputs_cap = ni;
    cfg.buf.aux = aux;
    cfg.buf.aux_cap = na;
    cfg.buf.a = abc;
    cfg.buf.b = abc + nc;
    cfg.buf.c = abc + 2 * nc;
    cfg.buf.rows_cap = nc;
    if (in && aux && abc && czk_cs_create(&cs, &cfg, &err) == CZK_OK) {
        s = fn(cs, ctx);
        if (s == CZK_OK) s = czk_cs_finish(cs, &err);
        czk_cs_destroy(cs);
        if (s == CZK_OK) {
            bad = -1;
            for (size_t j = 0; j < nc; j++) {
                czk_fr ab;
                czk_fr_mul(&ab, &abc[j], &abc[nc + j]);
                if (!czk_fr_eq(&ab, &abc[2 * nc + j])) {
                    bad = (long)j;
                    break;
                }
            }
            if (inputs) {
                CHECK(ni == ninputs + 1 && czk_fr_is_one(&in[0]));
                if (ni == ninputs + 1) memcpy(inputs, in + 1, ninputs * sizeof *inputs);
            }
        } else {
            printf("  eval: %s\n", err.msg);
        }
    }
    czk_free(in);
    czk_free(aux);
    czk_free(abc);
    return bad;
}

/*
 * The same check without the a/b/c row buffers (3 · 32 bytes per constraint, 7.8 GB for
 * an 81 M-constraint 32 GiB SnapDeals partition): RECORD mode with the witness kept in
 * caller buffers and a sink that evaluates each row's three LCs as they are emitted
 * (every variable is allocated, hence valued, before a constraint uses it).
 */
typedef struct stream_chk {
    const czk_fr *inputs, *aux;
    czk_fr ab[2];
    long bad;
} stream_chk;

static czk_status stream_sink(void *ctx, unsigned matrix, uint64_t row,
                              const struct czk_lc_term *t, uint32_t n)
{
    stream_chk *sc = ctx;
    czk_fr v = CZK_FR_ZERO, x;
    for (uint32_t i = 0; i < n; i++) {
        czk_var var = {t[i].var};
        const czk_fr *z = czk_var_is_aux(var) ? &sc->aux[czk_var_index(var)]
                                              : &sc->inputs[czk_var_index(var)];
        if (t[i].kind == CZK_LC_COEFF_ONE) {
            czk_fr_add(&v, &v, z);
        } else if (t[i].kind == CZK_LC_COEFF_MINUS_ONE) {
            czk_fr_sub(&v, &v, z);
        } else {
            czk_fr_mul(&x, z, &t[i].coeff);
            czk_fr_add(&v, &v, &x);
        }
    }
    if (matrix < 2) {
        sc->ab[matrix] = v;
    } else {
        czk_fr_mul(&x, &sc->ab[0], &sc->ab[1]);
        if (sc->bad < 0 && !czk_fr_eq(&x, &v)) sc->bad = (long)row;
    }
    return CZK_OK;
}

/* -1 when every row holds, the first bad row, or -2 for a synthesis error. */
static long stream_check(czk_cs_circuit_fn fn, void *ctx, size_t *nconstraints)
{
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_err err = {0};
    if (czk_cs_create(&cs, &cfg, &err) != CZK_OK) return -2;
    czk_status s = fn(cs, ctx);
    if (s == CZK_OK) s = czk_cs_finish(cs, &err);
    czk_cs_counts c;
    czk_cs_get_counts(cs, &c);
    czk_cs_destroy(cs);
    if (s != CZK_OK) return -2;
    if (nconstraints) *nconstraints = c.n_constraints;
    stream_chk sc = {czk_malloc(c.n_inputs * sizeof(czk_fr)), czk_malloc(c.n_aux * sizeof(czk_fr)),
                     {CZK_FR_ZERO, CZK_FR_ZERO}, -1};
    long r = -2;
    cfg.mode = CZK_CS_RECORD;
    cfg.buf.inputs = (czk_fr *)sc.inputs;
    cfg.buf.inputs_cap = c.n_inputs;
    cfg.buf.aux = (czk_fr *)sc.aux;
    cfg.buf.aux_cap = c.n_aux;
    if (sc.inputs && sc.aux && czk_cs_create(&cs, &cfg, &err) == CZK_OK) {
        s = czk_cs_set_record_sink(cs, stream_sink, &sc);
        if (s == CZK_OK) s = fn(cs, ctx);
        if (s == CZK_OK) s = czk_cs_finish(cs, &err);
        czk_cs_destroy(cs);
        if (s == CZK_OK) r = sc.bad;
        else printf("  stream: %s\n", err.msg);
    }
    czk_free((void *)sc.inputs);
    czk_free((void *)sc.aux);
    return r;
}

/* ------------------------------------------------------------------------------------ */
/* SnapDeals: witness from a PartitionProof (what helper C's job layer does)            */
/* ------------------------------------------------------------------------------------ */

typedef struct snap_w {
    czk_snap_witness w;
    czk_snap_challenge_witness *cw;
} snap_w;

static void snap_w_from_proof(snap_w *sw, const czk_snap_partition_proof *pp,
                              const czk_snap_params *p, uint64_t k, const czk_snap_comms *c)
{
    memset(sw, 0, sizeof *sw);
    sw->cw = czk_malloc(pp->nchallenge_proofs * sizeof *sw->cw);
    sw->w.k = k;
    sw->w.h = c->h;
    memcpy(sw->w.comm_r_old, c->comm_r_old, 32);
    memcpy(sw->w.comm_d_new, c->comm_d_new, 32);
    memcpy(sw->w.comm_r_new, c->comm_r_new, 32);
    memcpy(sw->w.comm_c, pp->comm_c, 32);
    memcpy(sw->w.root_r_old, pp->challenge_proofs[0].proof_r_old.root, 32);
    memcpy(sw->w.root_r_new, pp->challenge_proofs[0].proof_r_new.root, 32);
    sw->w.apex_leafs = (const uint8_t(*)[32])pp->apex_leafs;
    sw->w.challenges = sw->cw;
    uint64_t leaf;
    for (size_t i = 0; i < pp->nchallenge_proofs; i++) {
        const czk_snap_challenge_proof *cp = &pp->challenge_proofs[i];
        CHECK_STATUS(czk_vanilla_to_path(&cp->proof_r_old, &sw->cw[i].r_old, &leaf, NULL), CZK_OK);
        CHECK_STATUS(czk_vanilla_to_path(&cp->proof_d_new, &sw->cw[i].d_new, &leaf, NULL), CZK_OK);
        CHECK_STATUS(czk_vanilla_to_path(&cp->proof_r_new, &sw->cw[i].r_new, &leaf, NULL), CZK_OK);
    }
    (void)p;
}

/* EVAL the partition circuit of pp; checks the inputs against compound.rs. */
static long snap_eval(const czk_snap_partition_proof *pp, const czk_snap_params *p, uint64_t k,
                      const czk_snap_comms *c)
{
    snap_w sw;
    snap_w_from_proof(&sw, pp, p, k, c);
    czk_snap_circuit_ctx ctx = {p, &sw.w};
    czk_fr got[4], want[4];
    long r = eval_circuit(czk_snap_circuit, &ctx, got, 4);
    CHECK_STATUS(czk_snap_public_inputs(want, p, k, c->h, c->comm_r_old, c->comm_d_new,
                                        c->comm_r_new, NULL),
                 CZK_OK);
    if (r == -1)
        for (int i = 0; i < 4; i++) CHECK_MSG(czk_fr_eq(&got[i], &want[i]), "input %d", i);
    czk_free(sw.cw);
    return r;
}

/* The streaming check of the partition circuit of pp (no row buffers). */
static long snap_stream(const czk_snap_partition_proof *pp, const czk_snap_params *p, uint64_t k,
                        const czk_snap_comms *c, size_t *nconstraints)
{
    snap_w sw;
    snap_w_from_proof(&sw, pp, p, k, c);
    czk_snap_circuit_ctx ctx = {p, &sw.w};
    long r = stream_check(czk_snap_circuit, &ctx, nconstraints);
    czk_free(sw.cw);
    return r;
}

static czk_status snap_verify(const czk_snap_partition_proof *pp, const czk_snap_params *p,
                              uint64_t k, const czk_snap_comms *c, czk_err *err)
{
    return czk_snap_partition_verify(pp, p, k, c->h, c->comm_r_old, c->comm_d_new, c->comm_r_new,
                                     err);
}

/* bincode write → parse → write gives the same bytes, and the parsed proof verifies. */
static czk_snap_partition_proof *snap_bincode_roundtrip(const czk_snap_partition_proof *pp,
                                                        size_t *len_out)
{
    uint8_t *b1 = NULL, *b2 = NULL;
    size_t l1 = 0, l2 = 0;
    czk_snap_partition_proof *q = NULL;
    CHECK_STATUS(czk_snap_partition_proof_write(pp, &b1, &l1, NULL), CZK_OK);
    CHECK_STATUS(czk_snap_partition_proof_parse(&q, b1, l1, NULL), CZK_OK);
    if (q) {
        CHECK_STATUS(czk_snap_partition_proof_write(q, &b2, &l2, NULL), CZK_OK);
        CHECK(l1 == l2 && b2 && memcmp(b1, b2, l1) == 0);
    }
    if (len_out) *len_out = l1;
    czk_free(b1);
    czk_free(b2);
    return q;
}

/* Tampering: each breaks the vanilla check (CZK_EVERIFY) and the circuit. */
static void snap_tamper(czk_snap_partition_proof *pp, const czk_snap_params *p, uint64_t k,
                        const czk_snap_comms *c, bool with_circuit)
{
    czk_err err;
    unsigned i = p->challenge_count - 1;
    czk_snap_challenge_proof *cp = &pp->challenge_proofs[i];
    /* A TreeRNew sibling. */
    cp->proof_r_new.base.elems[0].hashes[0][0] ^= 1;
    CHECK_STATUS(snap_verify(pp, p, k, c, &err), CZK_EVERIFY);
    if (with_circuit) CHECK(snap_eval(pp, p, k, c) >= 0);
    cp->proof_r_new.base.elems[0].hashes[0][0] ^= 1;
    /* The new data leaf (breaks the encoding and the TreeDNew path). */
    cp->proof_d_new.leaf[1] ^= 4;
    CHECK_STATUS(snap_verify(pp, p, k, c, &err), CZK_EVERIFY);
    if (with_circuit) CHECK(snap_eval(pp, p, k, c) >= 0);
    cp->proof_d_new.leaf[1] ^= 4;
    /* An apex leaf. */
    pp->apex_leafs[p->apex_leaf_count - 1][2] ^= 8;
    CHECK_STATUS(snap_verify(pp, p, k, c, &err), CZK_EVERIFY);
    if (with_circuit) CHECK(snap_eval(pp, p, k, c) >= 0);
    pp->apex_leafs[p->apex_leaf_count - 1][2] ^= 8;
    /* comm_c. */
    pp->comm_c[5] ^= 1;
    CHECK_STATUS(snap_verify(pp, p, k, c, &err), CZK_EVERIFY);
    if (with_circuit) CHECK(snap_eval(pp, p, k, c) >= 0);
    pp->comm_c[5] ^= 1;
    /* Shapes: a TreeROld path one level short, a TreeDNew proof of another kind. */
    cp->proof_r_old.base.len--;
    CHECK_STATUS(snap_verify(pp, p, k, c, &err), CZK_EINVAL);
    CHECK(strstr(err.msg, "proof_r_old") != NULL);
    cp->proof_r_old.base.len++;
    cp->proof_d_new.kind = CZK_VANILLA_SUB;
    CHECK_STATUS(snap_verify(pp, p, k, c, &err), CZK_EINVAL);
    cp->proof_d_new.kind = CZK_VANILLA_SINGLE;
    /* A wrong public comm_d_new. */
    czk_snap_comms bad = *c;
    bad.comm_d_new[0] ^= 1;
    CHECK_STATUS(snap_verify(pp, p, k, &bad, &err), CZK_EVERIFY);
    if (with_circuit) CHECK(snap_eval(pp, p, k, &bad) >= 0);
    CHECK_STATUS(snap_verify(pp, p, k, c, &err), CZK_OK);
}

/* ------------------------------------------------------------------------------------ */
/* SnapDeals tests                                                                      */
/* ------------------------------------------------------------------------------------ */

/* Encoding of an 8 MiB sector (h = 10: 1024 rho values) node by node against plain field arithmetic, decoding as
 * its inverse, and bad inputs. */
static void test_snap_encode_decode(void)
{
    czk_snap_params p;
    CHECK_STATUS(czk_snap_params_get(&p, 8ull << 20, NULL), CZK_OK);
    size_t n = (size_t)p.nodes;
    uint8_t *key = czk_malloc(32 * n), *data = czk_malloc(32 * n), *rep = czk_malloc(32 * n),
            *dec = czk_malloc(32 * n);
    for (size_t i = 0; i < n; i++) {
        rand_node(key + 32 * i);
        rand_node(data + 32 * i);
    }
    uint8_t cd[32], cr[32], phi[32];
    rand_node(cd);
    rand_node(cr);
    unsigned h = czk_snap_h_default(&p);
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 2, NULL), CZK_OK);
    CHECK_STATUS(czk_snap_encode(rep, key, data, &p, h, cd, cr, pool, NULL), CZK_OK);
    CHECK_STATUS(czk_snap_phi(phi, cd, cr, NULL), CZK_OK);
    for (int t = 0; t < 64; t++) {
        size_t i = t < 2 ? (t ? n - 1 : 0) : (size_t)(czk_test_rand64() % n);
        czk_fr rho, a, d, want, got;
        CHECK_STATUS(czk_snap_rho(&rho, &p, phi, i, h, NULL), CZK_OK);
        czk_fr_from_bytes_le(&a, key + 32 * i);
        czk_fr_from_bytes_le(&d, data + 32 * i);
        czk_fr_mul(&d, &d, &rho);
        czk_fr_add(&want, &a, &d);
        czk_fr_from_bytes_le(&got, rep + 32 * i);
        CHECK_MSG(czk_fr_eq(&want, &got), "node %zu", i);
    }
    CHECK_STATUS(czk_snap_decode(dec, rep, key, &p, h, cd, cr, pool, NULL), CZK_OK);
    CHECK_MEM(dec, data, 32 * n);
    /* Another h decodes to other data. */
    CHECK_STATUS(czk_snap_decode(dec, rep, key, &p, p.hs[0], cd, cr, pool, NULL), CZK_OK);
    CHECK(memcmp(dec, data, 32 * n) != 0);
    czk_err err;
    CHECK_STATUS(czk_snap_encode(rep, key, data, &p, 99, cd, cr, pool, &err), CZK_EINVAL);
    memset(data + 32 * 77, 0xff, 32);
    CHECK_STATUS(czk_snap_encode(rep, key, data, &p, h, cd, cr, pool, &err), CZK_ENONCANONICAL);
    CHECK(strstr(err.msg, "node 77") != NULL);
    czk_pool_destroy(pool);
    czk_free(key);
    czk_free(data);
    czk_free(rep);
    czk_free(dec);
}

/* A real 2 KiB CC sector, updated with random data: partition proof, vanilla check,
 * bincode, circuit, tampering, decoding the new replica. */
static void test_snap_real_2k(void)
{
    czk_sector_seal_input in;
    memset(&in, 0, sizeof in);
    in.proof = CZK_SEAL_StackedDrg2KiBV1_1;
    czk_seal_prover_id_from_actor(in.prover_id, 1000);
    in.sector_id = 7;
    rand_node(in.ticket);
    czk_sector *sec = NULL;
    CHECK_STATUS(czk_sector_seal(&sec, &in, NULL, NULL), CZK_OK);
    if (!sec) return;
    uint8_t data[2048];
    for (int i = 0; i < 64; i++) rand_node(data + 32 * i);
    czk_snap_sector *ss = NULL;
    CHECK_STATUS(czk_snap_sector_update_sealed(&ss, sec, data, 0, NULL, NULL), CZK_OK);
    if (!ss) goto out;
    const czk_snap_params *p = czk_snap_sector_params(ss);
    czk_snap_comms c;
    czk_snap_sector_comms(ss, &c);
    czk_sector_seal_comms sc;
    czk_sector_comms(sec, &sc);
    CHECK_MEM(c.comm_r_old, sc.comm_r, 32); /* the sector key's comm_r */
    CHECK(c.h == 1 && p->partition_count == 1);
    /* The new replica decodes back to the data. */
    uint8_t dec[2048];
    CHECK_STATUS(czk_snap_decode(dec, czk_snap_sector_replica(ss), czk_sector_replica(sec), p, c.h,
                                 c.comm_d_new, c.comm_r_old, NULL, NULL),
                 CZK_OK);
    CHECK_MEM(dec, data, sizeof data);
    czk_snap_partition_proof *pp = NULL;
    czk_err err;
    CHECK_STATUS(czk_snap_sector_prove(ss, 1, &pp, &err), CZK_EINVAL);
    CHECK(pp == NULL);
    CHECK_STATUS(czk_snap_sector_prove(ss, 0, &pp, NULL), CZK_OK);
    if (!pp) goto out;
    CHECK_STATUS(snap_verify(pp, p, 0, &c, &err), CZK_OK);
    czk_snap_partition_proof *q = snap_bincode_roundtrip(pp, NULL);
    if (q) {
        CHECK_STATUS(snap_verify(q, p, 0, &c, &err), CZK_OK);
        long r = snap_eval(q, p, 0, &c);
        CHECK_MSG(r == -1, "row %ld", r);
        snap_tamper(q, p, 0, &c, true);
        /* Claiming another h than the encoding's. */
        czk_snap_comms other = c;
        other.h = 7;
        CHECK_STATUS(snap_verify(q, p, 0, &other, &err), CZK_EINVAL);
    }
    czk_snap_partition_proof_free(q);
    czk_snap_partition_proof_free(pp);
out:
    czk_snap_sector_destroy(ss);
    czk_sector_destroy(sec);
}

#ifdef CZK_SNAP_POST_VANILLA_SLOW
/* A real 8 MiB sector (4 partitions): every partition verifies and is not another
 * partition's; tampering breaks partition 3 (the 8 MiB circuit, millions of
 * constraints, is left to the e2e proofs). Run from tests/slow. */
static void test_snap_real_8m(void)
{
    czk_sector_seal_input in;
    memset(&in, 0, sizeof in);
    in.proof = CZK_SEAL_StackedDrg8MiBV1_1;
    czk_seal_prover_id_from_actor(in.prover_id, 1001);
    in.sector_id = 3;
    rand_node(in.ticket);
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 2, NULL), CZK_OK);
    double t0 = now_s();
    czk_sector *sec = NULL;
    CHECK_STATUS(czk_sector_seal(&sec, &in, pool, NULL), CZK_OK);
    double t1 = now_s();
    uint8_t *data = czk_malloc(8u << 20);
    for (size_t i = 0; i < (8u << 20) / 32; i++) rand_node(data + 32 * i);
    czk_snap_sector *ss = NULL;
    if (sec) CHECK_STATUS(czk_snap_sector_update_sealed(&ss, sec, data, 0, pool, NULL), CZK_OK);
    double t2 = now_s();
    if (ss) {
        const czk_snap_params *p = czk_snap_sector_params(ss);
        czk_snap_comms c;
        czk_snap_sector_comms(ss, &c);
        CHECK(p->partition_count == 4 && c.h == 10);
        for (uint64_t k = 0; k < p->partition_count; k++) {
            czk_snap_partition_proof *pp = NULL;
            czk_err err;
            CHECK_STATUS(czk_snap_sector_prove(ss, k, &pp, NULL), CZK_OK);
            if (!pp) continue;
            CHECK_STATUS(snap_verify(pp, p, k, &c, &err), CZK_OK);
            /* Partition k's proof is not partition k^1's. */
            CHECK_STATUS(snap_verify(pp, p, k ^ 1, &c, &err), CZK_EVERIFY);
            if (k == 3) snap_tamper(pp, p, k, &c, false);
            czk_snap_partition_proof_free(pp);
        }
    }
    printf("  8 MiB: seal %.2f s, update %.2f s, 4 partitions proved + verified %.2f s\n", t1 - t0,
           t2 - t1, now_s() - t2);
    czk_free(data);
    czk_snap_sector_destroy(ss);
    czk_sector_destroy(sec);
    czk_pool_destroy(pool);
}

/* The 32 GiB synthetic SnapDeals partitions: all 16 pass the vanilla check, two satisfy
 * the 81 M-constraint circuit (checked row by row as it is synthesized), and a tampered
 * one does not. */
static void test_snap_fixture_32g_circuit(void)
{
    czk_snap_fixture *f = NULL;
    CHECK_STATUS(czk_snap_fixture_create(&f, 32ull << 30, 9, NULL), CZK_OK);
    if (!f) return;
    czk_err err;
    for (uint64_t k = 0; k < f->npartitions; k++)
        CHECK_STATUS(snap_verify(f->partitions[k], &f->params, k, &f->comms, &err), CZK_OK);
    uint64_t ks[2] = {0, 15};
    for (int i = 0; i < 2; i++) {
        double t0 = now_s();
        size_t nc = 0;
        long r = snap_stream(f->partitions[ks[i]], &f->params, ks[i], &f->comms, &nc);
        CHECK_MSG(r == -1, "partition %llu: row %ld", (unsigned long long)ks[i], r);
        CHECK(nc == 81049499);
        printf("  32 GiB partition %llu: %zu constraints satisfied (%.1f s)\n",
               (unsigned long long)ks[i], nc, now_s() - t0);
    }
    f->partitions[15]->challenge_proofs[85].proof_d_new.leaf[0] ^= 1;
    CHECK(snap_stream(f->partitions[15], &f->params, 15, &f->comms, NULL) >= 0);
    czk_snap_fixture_destroy(f);
}
#endif

/* Synthetic 2 KiB: verifies, satisfies the circuit, tampering breaks both; determinism. */
static void test_snap_fixture_2k(void)
{
    czk_snap_fixture *f = NULL, *g = NULL;
    CHECK_STATUS(czk_snap_fixture_create(&f, 2048, 42, NULL), CZK_OK);
    if (!f) return;
    CHECK(f->npartitions == 1 && f->update_proof == 0);
    czk_err err;
    CHECK_STATUS(snap_verify(f->partitions[0], &f->params, 0, &f->comms, &err), CZK_OK);
    long r = snap_eval(f->partitions[0], &f->params, 0, &f->comms);
    CHECK_MSG(r == -1, "row %ld", r);
    czk_snap_partition_proof *q = snap_bincode_roundtrip(f->partitions[0], NULL);
    /* Every tampering against the vanilla check; one against the circuit too (the real
     * sector's test runs them all through the circuit). */
    if (q) {
        snap_tamper(q, &f->params, 0, &f->comms, false);
        q->challenge_proofs[3].proof_r_old.leaf[0] ^= 1;
        CHECK_STATUS(snap_verify(q, &f->params, 0, &f->comms, &err), CZK_EVERIFY);
        CHECK(snap_eval(q, &f->params, 0, &f->comms) >= 0);
        /* The streaming checker (what the slow tier runs at 32 GiB) agrees. */
        CHECK(snap_stream(q, &f->params, 0, &f->comms, NULL) >= 0);
        q->challenge_proofs[3].proof_r_old.leaf[0] ^= 1;
        size_t nc = 0;
        CHECK(snap_stream(q, &f->params, 0, &f->comms, &nc) == -1);
        CHECK(nc == 1705039);
    }
    czk_snap_partition_proof_free(q);
    CHECK_STATUS(czk_snap_fixture_create(&g, 2048, 42, NULL), CZK_OK);
    if (g) CHECK_MEM(&g->comms, &f->comms, sizeof f->comms);
    czk_snap_fixture_destroy(g);
    CHECK_STATUS(czk_snap_fixture_create(&g, 2048, 43, NULL), CZK_OK);
    if (g) CHECK(memcmp(g->comms.comm_r_new, f->comms.comm_r_new, 32) != 0);
    czk_snap_fixture_destroy(g);
    czk_snap_fixture_destroy(f);
    CHECK_STATUS(czk_snap_fixture_create(&g, 4096 * 3, 1, &err), CZK_EINVAL);
}

/* Synthetic 32 GiB: seconds to build, partitions of 86 challenges verify, the
 * partition bincode has the size docs/formats.md §8.3 derives from upstream's types. */
static void test_snap_fixture_32g(void)
{
    double t0 = now_s();
    czk_snap_fixture *f = NULL;
    CHECK_STATUS(czk_snap_fixture_create(&f, 32ull << 30, 7, NULL), CZK_OK);
    double t1 = now_s();
    if (!f) return;
    CHECK(f->npartitions == 16 && f->update_proof == 3 && f->comms.h == 10);
    czk_err err;
    /* Three partitions here (first, middle, last: the partition bits and digest indices
     * vary); the slow tier verifies all 16. */
    static const uint64_t ks[3] = {0, 7, 15};
    for (int i = 0; i < 3; i++)
        CHECK_STATUS(snap_verify(f->partitions[ks[i]], &f->params, ks[i], &f->comms, &err), CZK_OK);
    double t2 = now_s();
    size_t len = 0;
    czk_snap_partition_proof *q = snap_bincode_roundtrip(f->partitions[5], &len);
    CHECK_MSG(len == 561768, "%zu bytes", len);
    if (q) {
        CHECK(q->challenge_proofs[0].proof_r_old.kind == CZK_VANILLA_SUB);
        snap_tamper(q, &f->params, 5, &f->comms, false);
        CHECK_STATUS(snap_verify(q, &f->params, 4, &f->comms, &err), CZK_EVERIFY);
    }
    czk_snap_partition_proof_free(q);
    printf("  32 GiB synthetic SnapDeals: build %.2f s, verify 3 partitions %.2f s\n", t1 - t0,
           t2 - t1);
    czk_snap_fixture_destroy(f);
    /* 64 GiB: Top proofs. */
    CHECK_STATUS(czk_snap_fixture_create(&f, 64ull << 30, 8, NULL), CZK_OK);
    if (f) {
        CHECK(f->partitions[0]->challenge_proofs[0].proof_r_new.kind == CZK_VANILLA_TOP);
        CHECK_STATUS(snap_verify(f->partitions[15], &f->params, 15, &f->comms, &err), CZK_OK);
    }
    czk_snap_fixture_destroy(f);
}

static void test_update_proof_names(void)
{
    uint64_t id, size;
    CHECK_STATUS(czk_snap_update_proof_parse("StackedDrg32GiBV1", &id, &size, NULL), CZK_OK);
    CHECK(id == 3 && size == (32ull << 30));
    CHECK_STATUS(
        czk_snap_update_proof_parse("RegisteredUpdateProof_StackedDrg2KiBV1", &id, &size, NULL),
        CZK_OK);
    CHECK(id == 0 && size == 2048);
    czk_err err;
    CHECK_STATUS(czk_snap_update_proof_parse("StackedDrg32GiBV1_1", &id, &size, &err), CZK_EINVAL);
}

/* ------------------------------------------------------------------------------------ */
/* PoSt                                                                                 */
/* ------------------------------------------------------------------------------------ */

/* generate_leaf_challenge and generate_sector_challenge with OpenSSL. */
static uint64_t ref_sha_mod(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
                            uint64_t x, uint64_t y, int nints, uint64_t mod)
{
    uint8_t msg[96], h[32];
    size_t n = 0;
    memcpy(msg + n, a, alen);
    n += alen;
    if (blen) memcpy(msg + n, b, blen);
    n += blen;
    uint64_t ints[2] = {x, y};
    for (int k = 0; k < nints; k++)
        for (int i = 0; i < 8; i++) msg[n++] = (uint8_t)(ints[k] >> (8 * i));
    CHECK(EVP_Digest(msg, n, h, NULL, EVP_sha256(), NULL) == 1);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | h[i];
    return v % mod;
}

/* The circuit witness of a PoSt: `sectors` slots, slot i taking proof sp[i]'s
 * inclusion proofs (Window), or slot i taking the one sector's proof i (Winning). */
typedef struct post_w {
    czk_post_sector_witness *w;
    czk_merkle_path *paths;
} post_w;

static void post_w_build(post_w *pw, const czk_post_params *p, bool winning,
                         czk_post_sector_proof *const *sp, const czk_post_public_sector *pub,
                         size_t nproofs)
{
    pw->w = czk_calloc(p->sector_count, sizeof *pw->w);
    pw->paths = czk_malloc((size_t)p->sector_count * p->challenge_count * sizeof *pw->paths);
    uint64_t leaf;
    for (unsigned s = 0; s < p->sector_count; s++) {
        size_t src = winning ? 0 : (s < nproofs ? s : nproofs - 1); /* pad: repeat the last */
        czk_post_sector_witness *w = &pw->w[s];
        memcpy(w->comm_r, pub[src].comm_r, 32);
        memcpy(w->comm_c, sp[src]->comm_c, 32);
        memcpy(w->comm_r_last, sp[src]->comm_r_last, 32);
        w->paths = pw->paths + (size_t)s * p->challenge_count;
        for (unsigned c = 0; c < p->challenge_count; c++) {
            size_t n = winning ? s : c;
            CHECK_STATUS(czk_vanilla_to_path(&sp[src]->inclusion_proofs[n],
                                             &pw->paths[(size_t)s * p->challenge_count + c], &leaf,
                                             NULL),
                         CZK_OK);
        }
    }
}

/* EVAL the PoSt circuit: -1 when satisfied with FallbackPoStCompound's public inputs,
 * -3 when satisfied with other inputs, the first bad row, or -2. */
static long post_eval(const czk_post_params *p, bool winning, czk_post_sector_proof *const *sp,
                      const czk_post_public_sector *pub, size_t nproofs,
                      const uint8_t randomness[32])
{
    post_w pw;
    post_w_build(&pw, p, winning, sp, pub, nproofs);
    czk_post_circuit_ctx ctx = {p, pw.w};
    size_t ni = czk_post_num_inputs(p);
    czk_fr *got = czk_malloc(ni * sizeof *got), *want = czk_malloc(ni * sizeof *want);
    long r = eval_circuit(czk_post_circuit, &ctx, got, ni);
    /* Winning: the challenged sector sector_count times (winning_post.rs). */
    czk_post_public_sector *sectors = czk_malloc(p->sector_count * sizeof *sectors);
    size_t ns = winning ? p->sector_count : nproofs;
    for (size_t i = 0; i < ns; i++) sectors[i] = pub[winning ? 0 : i];
    CHECK_STATUS(czk_post_public_inputs(want, p, randomness, sectors, ns, 0, NULL), CZK_OK);
    /* A satisfied circuit whose inputs are not the verifier's fails Groth16 verification
     * just the same: report it as -3. */
    for (size_t i = 0; r == -1 && i < ni; i++)
        if (!czk_fr_eq(&got[i], &want[i])) r = -3;
    czk_free(sectors);
    czk_free(got);
    czk_free(want);
    czk_free(pw.w);
    czk_free(pw.paths);
    return r;
}

/* Challenges against the OpenSSL transcription of upstream. */
static void check_post_challenges(const czk_post_params *p, bool winning, const uint8_t rnd[32],
                                  uint64_t id, uint64_t sector_index)
{
    unsigned count = czk_post_vanilla_challenge_count(p, winning);
    uint64_t ch[66];
    CHECK(count <= 66);
    czk_post_sector_challenges(ch, p, winning, rnd, id, sector_index);
    for (unsigned n = 0; n < count; n++) {
        /* V1.2: challenge index n; V1.0: sector_index · count + n. */
        uint64_t ci = p->api_version == CZK_API_V1_2_0 ? n : sector_index * count + n;
        CHECK(ch[n] == ref_sha_mod(rnd, 32, NULL, 0, id, ci, 2, p->nodes));
    }
}

/* Window PoSt 2 KiB with two real sealed sectors (the partition's sector_count). */
static void test_post_window_real_2k(void)
{
    czk_post_params p;
    CHECK_STATUS(czk_post_params_get(&p, CZK_POST_StackedDrgWindow2KiBV1_2, NULL), CZK_OK);
    CHECK(p.sector_count == 2 && p.challenge_count == 10);
    czk_sector *sec[2] = {NULL, NULL};
    czk_post_public_sector pub[2];
    czk_post_sector_proof *sp[2] = {NULL, NULL};
    uint8_t rnd[32];
    rand_node(rnd);
    czk_err err;
    for (int i = 0; i < 2; i++) {
        czk_sector_seal_input in;
        memset(&in, 0, sizeof in);
        in.proof = CZK_SEAL_StackedDrg2KiBV1_1;
        czk_seal_prover_id_from_actor(in.prover_id, 1000);
        in.sector_id = 10 + (uint64_t)i;
        rand_node(in.ticket);
        CHECK_STATUS(czk_sector_seal(&sec[i], &in, NULL, NULL), CZK_OK);
        if (!sec[i]) goto out;
        czk_sector_seal_comms sc;
        czk_sector_comms(sec[i], &sc);
        pub[i].id = in.sector_id;
        memcpy(pub[i].comm_r, sc.comm_r, 32);
        check_post_challenges(&p, false, rnd, pub[i].id, (uint64_t)i);
        CHECK_STATUS(czk_post_sector_prove_sealed(&sp[i], &p, false, sec[i], rnd, pub[i].id,
                                                  (uint64_t)i, NULL),
                     CZK_OK);
        if (!sp[i]) goto out;
        CHECK_STATUS(czk_post_sector_verify(sp[i], &p, false, rnd, pub[i].id, (uint64_t)i,
                                            pub[i].comm_r, &err),
                     CZK_OK);
        /* FallbackPoStSectorProof round trip. */
        uint8_t *b = NULL, *b2 = NULL;
        size_t len = 0, len2 = 0;
        uint64_t id = 0;
        uint8_t cr[32];
        czk_post_sector_proof *q = NULL;
        CHECK_STATUS(czk_post_fallback_proof_write(pub[i].id, pub[i].comm_r, sp[i], &b, &len, NULL),
                     CZK_OK);
        CHECK_STATUS(czk_post_fallback_proof_parse(&id, cr, &q, b, len, NULL), CZK_OK);
        if (q) {
            CHECK(id == pub[i].id && memcmp(cr, pub[i].comm_r, 32) == 0);
            CHECK_STATUS(czk_post_fallback_proof_write(id, cr, q, &b2, &len2, NULL), CZK_OK);
            CHECK(len == len2 && memcmp(b, b2, len) == 0);
        }
        czk_post_sector_proof_free(q);
        CHECK_STATUS(czk_post_fallback_proof_parse(&id, cr, &q, b, len - 1, &err), CZK_ETRUNCATED);
        b[40] = 2; /* two SectorProofs */
        CHECK_STATUS(czk_post_fallback_proof_parse(&id, cr, &q, b, len, &err), CZK_EFORMAT);
        czk_free(b);
        czk_free(b2);
    }
    long r = post_eval(&p, false, sp, pub, 2, rnd);
    CHECK_MSG(r == -1, "row %ld", r);
    /* One sector alone: the circuit repeats it in the second slot. */
    r = post_eval(&p, false, sp, pub, 1, rnd);
    CHECK_MSG(r == -1, "row %ld", r);
    /* Tampering: a sibling; the randomness; the sector id; comm_r. */
    sp[1]->inclusion_proofs[4].base.elems[1].hashes[3][0] ^= 1;
    CHECK_STATUS(czk_post_sector_verify(sp[1], &p, false, rnd, pub[1].id, 1, pub[1].comm_r, &err),
                 CZK_EVERIFY);
    CHECK(post_eval(&p, false, sp, pub, 2, rnd) >= 0);
    sp[1]->inclusion_proofs[4].base.elems[1].hashes[3][0] ^= 1;
    uint8_t rnd2[32];
    memcpy(rnd2, rnd, 32);
    rnd2[0] ^= 1;
    CHECK_STATUS(czk_post_sector_verify(sp[1], &p, false, rnd2, pub[1].id, 1, pub[1].comm_r, &err),
                 CZK_EVERIFY);
    CHECK(post_eval(&p, false, sp, pub, 2, rnd2) == -3); /* the challenged leaves differ */
    pub[0].comm_r[0] ^= 1;
    CHECK_STATUS(czk_post_sector_verify(sp[0], &p, false, rnd, pub[0].id, 0, pub[0].comm_r, &err),
                 CZK_EVERIFY);
    CHECK(post_eval(&p, false, sp, pub, 2, rnd) != -1);
    pub[0].comm_r[0] ^= 1;
    CHECK(post_eval(&p, false, sp, pub, 2, rnd) == -1);
    /* Shape: one inclusion proof missing. */
    sp[0]->ninclusion_proofs--;
    CHECK_STATUS(czk_post_sector_verify(sp[0], &p, false, rnd, pub[0].id, 0, pub[0].comm_r, &err),
                 CZK_EINVAL);
    sp[0]->ninclusion_proofs++;
out:
    for (int i = 0; i < 2; i++) {
        czk_post_sector_proof_free(sp[i]);
        czk_sector_destroy(sec[i]);
    }
}

/*
 * Golden: curio's lib/proof/testgolden/post.vproof (24,960 bytes, SHA-256 3c906a39…c41e9),
 * a FallbackPoStSectorProof rust-fil-proofs produced for sector 1 of miner 1000,
 * StackedDrgWindow32GiBV1 (PoStProof 8 in postpub.json), randomness all zero. Parsing it
 * and verifying it against the challenges czk derives checks the wrapper format, the
 * leaf-challenge derivation and the verifier against upstream's own output. The file is
 * upstream's, so it is not committed: $CZK_TEST_CURIO_POST_VPROOF names a copy (the same
 * variable test_vanilla's golden check reads).
 */
static void test_post_golden_curio(void)
{
    const char *path = getenv("CZK_TEST_CURIO_POST_VPROOF");
    if (path == NULL || path[0] == '\0') {
        printf("  skipped: set CZK_TEST_CURIO_POST_VPROOF to curio's "
               "lib/proof/testgolden/post.vproof\n");
        return;
    }
    FILE *fp = fopen(path, "rb");
    CHECK_MSG(fp != NULL, "cannot open %s", path);
    if (!fp) return;
    static uint8_t buf[32768];
    size_t len = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    CHECK(len == 24960);
    /* The digest of postpub.json's SealedCID bagboea4b5abcbx3…mtl. */
    static const char cid_digest[] =
        "df691086e3c673c95a45908713d4c5938e5ced43f21b888bd9bc6e181c9f326b";
    uint8_t want[32], comm_r[32], rnd[32] = {0};
    for (int i = 0; i < 32; i++) sscanf(cid_digest + 2 * i, "%2hhx", &want[i]);
    uint64_t id = 0;
    czk_post_sector_proof *sp = NULL;
    czk_err err;
    CHECK_STATUS(czk_post_fallback_proof_parse(&id, comm_r, &sp, buf, len, &err), CZK_OK);
    if (!sp) return;
    CHECK(id == 1);
    CHECK_MEM(comm_r, want, 32);
    czk_post_params p;
    CHECK_STATUS(czk_post_params_get(&p, CZK_POST_StackedDrgWindow32GiBV1, NULL), CZK_OK);
    CHECK_STATUS(czk_post_sector_verify(sp, &p, false, rnd, id, 0, comm_r, &err), CZK_OK);
    /* Re-encoding gives upstream's bytes back. */
    uint8_t *b = NULL;
    size_t blen = 0;
    CHECK_STATUS(czk_post_fallback_proof_write(id, comm_r, sp, &b, &blen, NULL), CZK_OK);
    CHECK(blen == len && b && memcmp(b, buf, len) == 0);
    czk_free(b);
    /* Another randomness or sector id challenges other leaves. */
    rnd[0] = 1;
    CHECK_STATUS(czk_post_sector_verify(sp, &p, false, rnd, id, 0, comm_r, &err), CZK_EVERIFY);
    rnd[0] = 0;
    CHECK_STATUS(czk_post_sector_verify(sp, &p, false, rnd, 2, 0, comm_r, &err), CZK_EVERIFY);
    czk_post_sector_proof_free(sp);
}

/* Synthetic fixtures: Winning 2 KiB / 32 GiB and Window 2 KiB / 32 GiB (a few sectors). */
static void post_fixture_check(czk_post_proof proof, size_t nsectors, bool circuit)
{
    double t0 = now_s();
    czk_post_fixture *f = NULL;
    czk_err err;
    CHECK_STATUS(czk_post_fixture_create(&f, proof, 11, nsectors, &err), CZK_OK);
    double t1 = now_s();
    if (!f) return;
    const czk_post_params *p = &f->params;
    uint8_t pid[32];
    czk_seal_prover_id_from_actor(pid, f->miner_id);
    CHECK_MEM(pid, f->prover_id, 32);
    if (f->winning) {
        CHECK(f->nsectors == 1);
        /* The chosen sector: generate_sector_challenge(prover_id ‖ randomness ‖ 0). */
        uint64_t idx = ref_sha_mod(f->prover_id, 32, f->randomness, 32, 0, 0, 1, f->sector_set_len);
        uint64_t got;
        czk_post_winning_sectors(&got, 1, f->randomness, f->sector_set_len, f->prover_id);
        CHECK(got == idx);
    }
    for (size_t i = 0; i < f->nsectors; i++) {
        uint64_t si = f->winning ? 0 : i;
        check_post_challenges(p, f->winning, f->randomness, f->sectors[i].id, si);
        CHECK_STATUS(czk_post_sector_verify(f->proofs[i], p, f->winning, f->randomness,
                                            f->sectors[i].id, si, f->sectors[i].comm_r, &err),
                     CZK_OK);
    }
    if (circuit) {
        long r = post_eval(p, f->winning, f->proofs, f->sectors, f->nsectors, f->randomness);
        CHECK_MSG(r == -1, "%s: row %ld", czk_post_proof_name(proof), r);
        czk_vanilla_merkle_proof *mp = &f->proofs[0]->inclusion_proofs[0];
        mp->leaf[0] ^= 1;
        CHECK_STATUS(czk_post_sector_verify(f->proofs[0], p, f->winning, f->randomness,
                                            f->sectors[0].id, 0, f->sectors[0].comm_r, &err),
                     CZK_EVERIFY);
        CHECK(post_eval(p, f->winning, f->proofs, f->sectors, f->nsectors, f->randomness) >= 0);
        mp->leaf[0] ^= 1;
    }
    printf("  %-26s %zu sector(s): fixture %.3f s\n", czk_post_proof_name(proof), f->nsectors,
           t1 - t0);
    czk_post_fixture_destroy(f);
}

static void test_post_fixtures(void)
{
    post_fixture_check(CZK_POST_StackedDrgWinning2KiBV1, 5, true);
    post_fixture_check(CZK_POST_StackedDrgWindow2KiBV1_2, 0, true);
    post_fixture_check(CZK_POST_StackedDrgWindow2KiBV1, 1, true);
    post_fixture_check(CZK_POST_StackedDrgWinning32GiBV1, 1000, true);
    post_fixture_check(CZK_POST_StackedDrgWinning64GiBV1, 3, false);
    post_fixture_check(CZK_POST_StackedDrgWindow32GiBV1_2, 6, false);
    czk_post_fixture *f = NULL;
    czk_err err;
    CHECK_STATUS(czk_post_fixture_create(&f, CZK_POST_StackedDrgWindow2KiBV1_2, 1, 3, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_post_fixture_create(&f, (czk_post_proof)99, 1, 1, &err), CZK_EINVAL);
}

/* tests/slow/test_snap_post_vanilla_8m.c includes this file for the 8 MiB test (25 s of
 * sealing and tree building on a 2-core machine) and brings its own main. */
#ifndef CZK_SNAP_POST_VANILLA_SLOW
int main(void)
{
    czk_test_seed();
    RUN(test_update_proof_names);
    RUN(test_snap_encode_decode);
    RUN(test_snap_real_2k);
    RUN(test_snap_fixture_2k);
    RUN(test_snap_fixture_32g);
    RUN(test_post_window_real_2k);
    RUN(test_post_golden_curio);
    RUN(test_post_fixtures);
    return czk_test_finish();
}
#endif
