/*
 * The SnapDeals EmptySectorUpdateCircuit and the Fallback PoSt circuit (Window, Winning).
 *
 * Independent references:
 *   - constraint and input counts asserted by rust-fil-proofs' own tests:
 *     storage-proofs-update/tests/circuit.rs (1-32 KiB isolated-testing sizes and the
 *     32 GiB partition, 81,049,499), gadgets.rs test_gen_challenge_bits_gadget (568 /
 *     4,544 / 5,680), storage-proofs-post/tests/fallback_circuit.rs (16,869 / 22,674 /
 *     27,384 / 11,246 constraints, 19 / 13 inputs, 266,665 for 5 sectors at 32 GiB) and
 *     filecoin-proofs constants.rs (2349 sectors → 125,279,217; 2300 → 129,887,900);
 *     Winning PoSt's 370,590 / 133 (66 sectors × 1 challenge);
 *   - docs/formats.md §7 GenRandomness vectors (Poseidon-2, tag 2^40) for phi / rho;
 *   - satisfiability: witnesses built from czk/merkle.h trees over random leaves (the
 *     trees and the encoding computed natively, independently of the circuit) satisfy the
 *     circuits in EVAL mode, the public inputs generated as upstream's compound.rs equal
 *     the circuit's inputs, and tampered witnesses fail.
 *   - golden R1CS hashes (bellpepper TestConstraintSystem::hash) of the small circuits,
 *     a regression guard recorded from this implementation once its counts matched.
 * CZK_TEST_QUICK=1 skips the counts of the sizes from 512 MiB up (for sanitizer runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "czk/alloc.h"
#include "czk/comm.h"
#include "czk/post.h"
#include "czk/seal_proof.h"
#include "czk/snap.h"
#include "czk_test.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CZK_TEST_QUICK set: skip the counts of the published sizes from 512 MiB up (seconds
 * each), e.g. under sanitizers. */
static bool quick(void)
{
    return getenv("CZK_TEST_QUICK") != NULL;
}

static void rand_node(uint8_t out[32])
{
    czk_test_rand_bytes(out, 32);
    out[31] &= 0x3f; /* below 2^254 < r: a canonical Fr repr */
}

/* ------------------------------------------------------------------------------------ */
/* Running a circuit                                                                    */
/* ------------------------------------------------------------------------------------ */

typedef struct eval_out {
    czk_cs_counts counts;
    czk_fr *inputs; /* n_inputs values (ONE first) */
    long bad;       /* first row with a·b ≠ c, −1 when satisfied */
} eval_out;

/* COUNT for the sizes, then EVAL into exact buffers and check every row. */
static czk_status eval_circuit(czk_cs_circuit_fn fn, void *ctx, eval_out *o)
{
    czk_err err = {0};
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    o->inputs = NULL;
    o->bad = -1;
    czk_status s = czk_cs_create(&cs, &cfg, &err);
    if (s != CZK_OK) return s;
    (void)fn(cs, ctx);
    s = czk_cs_finish(cs, &err);
    czk_cs_get_counts(cs, &o->counts);
    czk_cs_destroy(cs);
    if (s != CZK_OK) return s;
    size_t ni = o->counts.n_inputs, na = o->counts.n_aux, nc = o->counts.n_constraints;
    czk_fr *aux = czk_malloc(na * sizeof *aux), *abc = czk_malloc(3 * nc * sizeof *abc);
    o->inputs = czk_malloc(ni * sizeof *o->inputs);
    cfg.mode = CZK_CS_EVAL;
    cfg.buf.inputs = o->inputs;
    cfg.buf.inputs_cap = ni;
    cfg.buf.aux = aux;
    cfg.buf.aux_cap = na;
    cfg.buf.a = abc;
    cfg.buf.b = abc + nc;
    cfg.buf.c = abc + 2 * nc;
    cfg.buf.rows_cap = nc;
    s = czk_cs_create(&cs, &cfg, &err);
    if (s == CZK_OK) {
        (void)fn(cs, ctx);
        s = czk_cs_finish(cs, &err);
        czk_cs_counts ec;
        czk_cs_get_counts(cs, &ec);
        czk_cs_destroy(cs);
        if (s == CZK_OK && (ec.n_constraints != nc || ec.n_aux != na || ec.n_inputs != ni))
            s = CZK_EINTERNAL;
    }
    if (s != CZK_OK) printf("  eval: %s\n", err.msg);
    for (size_t j = 0; s == CZK_OK && j < nc; j++) {
        czk_fr ab;
        czk_fr_mul(&ab, &abc[j], &abc[nc + j]);
        if (!czk_fr_eq(&ab, &abc[2 * nc + j])) {
            o->bad = (long)j;
            break;
        }
    }
    czk_free(aux);
    czk_free(abc);
    return s;
}

static czk_cs_counts count_circuit(czk_cs_circuit_fn fn, void *ctx, double *secs)
{
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_cs_counts c;
    memset(&c, 0, sizeof c);
    double t0 = now_s();
    if (czk_cs_create(&cs, &cfg, NULL) != CZK_OK) return c;
    CHECK_STATUS(fn(cs, ctx), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, NULL), CZK_OK);
    czk_cs_get_counts(cs, &c);
    czk_cs_destroy(cs);
    if (secs) *secs = now_s() - t0;
    return c;
}

/* ------------------------------------------------------------------------------------ */
/* SnapDeals: parameters and counts                                                     */
/* ------------------------------------------------------------------------------------ */

/* docs/formats.md §6.1 and constants.rs. */
static void test_snap_params(void)
{
    static const struct {
        uint64_t size;
        unsigned partitions, challenges, h, apex, sub, top, base_levels;
    } t[] = {
        {2048, 1, 10, 1, 8, 0, 0, 2},
        {8ull << 20, 4, 10, 10, 128, 0, 0, 6},
        {512ull << 20, 16, 86, 10, 128, 0, 0, 8},
        {32ull << 30, 16, 86, 10, 128, 8, 0, 9},
        {64ull << 30, 16, 86, 10, 128, 8, 2, 9},
        {1024, 1, 10, 1, 8, 4, 0, 1},
        {16384, 2, 10, 1, 128, 8, 0, 2},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        czk_snap_params p;
        CHECK_STATUS(czk_snap_params_get(&p, t[i].size, NULL), CZK_OK);
        CHECK(p.partition_count == t[i].partitions && p.challenge_count == t[i].challenges);
        CHECK(czk_snap_h_default(&p) == t[i].h && p.apex_leaf_count == t[i].apex);
        CHECK(p.tree_r.sub_arity == t[i].sub && p.tree_r.top_arity == t[i].top &&
              p.tree_r.base_levels == t[i].base_levels && p.tree_r.base_arity == 8);
    }
    czk_snap_params p;
    czk_err err;
    CHECK_STATUS(czk_snap_params_get(&p, 4096 * 3, &err), CZK_EINVAL);
    CHECK_STATUS(czk_snap_params_get(&p, 1ull << 40, &err), CZK_EINVAL);
}

/* storage-proofs-update/tests/circuit.rs: the isolated-testing sizes (their TreeR shapes
 * are the ones validate_tree_r_shape requires, which czk_snap_params_get picks). */
static void test_snap_counts_small(void)
{
    static const struct {
        uint64_t size, constraints;
    } t[] = {
        {1024, 1248389}, {2048, 1705039},  {4096, 2165109},
        {8192, 2620359}, {16384, 6300021}, {32768, 6760091},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        czk_snap_params p;
        CHECK_STATUS(czk_snap_params_get(&p, t[i].size, NULL), CZK_OK);
        czk_snap_circuit_ctx ctx = {&p, NULL};
        double secs = 0;
        czk_cs_counts c = count_circuit(czk_snap_circuit, &ctx, &secs);
        CHECK_MSG(c.n_constraints == t[i].constraints && c.n_inputs == 5,
                  "%llu B: %llu constraints, %llu inputs", (unsigned long long)t[i].size,
                  (unsigned long long)c.n_constraints, (unsigned long long)c.n_inputs);
        CHECK(c.b_input_density == 1);
    }
}

/* gadgets.rs test_gen_challenge_bits_gadget: 568 for sizes <= 16 MiB, 4,544 at 512 MiB,
 * 5,680 at 32 and 64 GiB. The gadget lives inside the circuit, so measure it there: with
 * 0, 1 and 2 challenges the circuit makes 0, 1 and 1 digests, so one digest costs
 * 2·n(1) − n(0) − n(2) constraints; upstream's digest count is ceil(cc / floor(254 /
 * (B − P))). */
typedef struct gcb_ctx {
    const czk_snap_params *p;
    unsigned challenges;
} gcb_ctx;

static czk_status snap_with_challenges(czk_cs *cs, void *ctx)
{
    const gcb_ctx *g = ctx;
    czk_snap_params q = *g->p;
    q.challenge_count = g->challenges;
    return czk_snap_synthesize(cs, &q, NULL);
}

static void test_gen_challenge_bits_cost(void)
{
    static const struct {
        uint64_t size, expect;
    } t[] = {{2048, 568}, {8ull << 20, 568}, {512ull << 20, 4544}, {32ull << 30, 5680}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (quick() && t[i].size > (8ull << 20)) continue;
        czk_snap_params p;
        CHECK_STATUS(czk_snap_params_get(&p, t[i].size, NULL), CZK_OK);
        unsigned per = 254 / (p.challenge_bit_len - p.partition_bit_len);
        unsigned digests = (p.challenge_count + per - 1) / per;
        uint64_t n[3];
        for (unsigned cc = 0; cc < 3; cc++) {
            gcb_ctx g = {&p, cc};
            n[cc] = count_circuit(snap_with_challenges, &g, NULL).n_constraints;
        }
        uint64_t one_digest = 2 * n[1] - n[0] - n[2];
        CHECK_MSG(one_digest * digests == t[i].expect, "%llu B: %llu per digest x %u",
                  (unsigned long long)t[i].size, (unsigned long long)one_digest, digests);
    }
}

/* tests/circuit.rs test_empty_sector_update_constraints_32gib, and the other sizes. */
static void test_snap_counts_published(void)
{
    if (quick()) return;
    static const struct {
        uint64_t size, constraints;
    } t[] = {{2048, 1705039},
             {8ull << 20, 0},
             {512ull << 20, 0},
             {32ull << 30, 81049499},
             {64ull << 30, 0}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        czk_snap_params p;
        CHECK_STATUS(czk_snap_params_get(&p, t[i].size, NULL), CZK_OK);
        czk_circuit_info info;
        double t0 = now_s();
        CHECK_STATUS(czk_snap_count(&p, &info, NULL), CZK_OK);
        printf("  snap %6llu MiB: %llu constraints, %llu inputs, %llu aux, A %llu, Bin %llu, "
               "Baux %llu (%.2f s)\n",
               (unsigned long long)(t[i].size >> 20), (unsigned long long)info.constraints,
               (unsigned long long)info.inputs, (unsigned long long)info.aux,
               (unsigned long long)info.a_aux_density, (unsigned long long)info.b_input_density,
               (unsigned long long)info.b_aux_density, now_s() - t0);
        CHECK(info.inputs == 5 && info.b_input_density == 1);
        if (t[i].constraints != 0) CHECK(info.constraints == t[i].constraints);
    }
    /* The registered-proof entry point picks the sector size of the seal proof. */
    czk_circuit_info a, b;
    CHECK_STATUS(czk_circuit_snap_count(CZK_SEAL_StackedDrg2KiBV1_1, &a, NULL), CZK_OK);
    CHECK(a.constraints == 1705039);
    czk_err err;
    CHECK_STATUS(czk_circuit_snap_count(99, &b, &err), CZK_EINVAL);
}

/* ------------------------------------------------------------------------------------ */
/* SnapDeals: witnesses                                                                 */
/* ------------------------------------------------------------------------------------ */

/* docs/formats.md §7: GenRandomness H(1,2) and H(0,0) (big-endian hex). */
static void test_snap_phi_rho_vectors(void)
{
    static const char *h12 = "702c879bafdb05ab3018f4fbc1d4c74854af845cdbb6bb53e40d5f9cb5e92f3c";
    static const char *h00 = "2378125c8da03c26753fb1b88e0e51952e811cc365e44bc06c4fc1b9a38df1b3";
    uint8_t one[32] = {1}, two[32] = {2}, zero[32] = {0}, phi[32], want[32];
    for (int i = 0; i < 32; i++) sscanf(h12 + 2 * i, "%2hhx", &want[31 - i]);
    CHECK_STATUS(czk_snap_phi(phi, one, two, NULL), CZK_OK); /* H(comm_d_new, comm_r_old) */
    CHECK_MEM(phi, want, 32);
    for (int i = 0; i < 32; i++) sscanf(h00 + 2 * i, "%2hhx", &want[31 - i]);
    /* rho(c) = H(phi, c >> (B − h)): phi = 0 and a c whose high bits are 0. */
    czk_snap_params p;
    CHECK_STATUS(czk_snap_params_get(&p, 32ull << 30, NULL), CZK_OK);
    czk_fr rho;
    uint8_t got[32];
    CHECK_STATUS(czk_snap_rho(&rho, &p, zero, (1u << 20) - 1, 10, NULL), CZK_OK);
    czk_fr_to_bytes_le(got, &rho);
    CHECK_MEM(got, want, 32);
    /* c = 2^29 + 2^20: high 10 bits = 2^9 + 1 = 513 → H(0, 513) ≠ H(0, 0). */
    CHECK_STATUS(czk_snap_rho(&rho, &p, zero, (1u << 29) | (1u << 20), 10, NULL), CZK_OK);
    czk_fr_to_bytes_le(got, &rho);
    CHECK(memcmp(got, want, 32) != 0);
}

typedef struct snap_fixture {
    czk_snap_params p;
    unsigned h;
    uint8_t *r_old, *d_new, *r_new;
    czk_merkle_tree *t_r_old, *t_d_new, *t_r_new;
    uint8_t comm_c[32], comm_r_old[32], comm_d_new[32], comm_r_new[32], root_old[32], root_new[32];
    uint8_t (*apex)[32];
    czk_snap_challenge_witness *cp;
    uint32_t *challenges;
    czk_snap_witness w;
} snap_fixture;

/* Sector-wide data: random TreeROld and TreeDNew leaves, the encoding, the three trees. */
static void snap_fixture_init(snap_fixture *f, const czk_snap_params *p, unsigned h)
{
    memset(f, 0, sizeof *f);
    f->p = *p;
    f->h = h;
    uint64_t n = p->nodes;
    f->r_old = czk_malloc(n * 32);
    f->d_new = czk_malloc(n * 32);
    f->r_new = czk_malloc(n * 32);
    for (uint64_t i = 0; i < n; i++) {
        rand_node(f->r_old + 32 * i);
        rand_node(f->d_new + 32 * i);
    }
    czk_merkle_config cr = {CZK_MERKLE_POSEIDON, 8, p->tree_r.sub_arity, p->tree_r.top_arity, 0};
    czk_merkle_config cd = {CZK_MERKLE_SHA256, 2, 0, 0, 0};
    CHECK_STATUS(czk_merkle_build(&f->t_r_old, &cr, f->r_old, n, NULL, NULL), CZK_OK);
    CHECK_STATUS(czk_merkle_build(&f->t_d_new, &cd, f->d_new, n, NULL, NULL), CZK_OK);
    czk_merkle_root(f->t_r_old, f->root_old);
    czk_merkle_root(f->t_d_new, f->comm_d_new);
    rand_node(f->comm_c);
    CHECK_STATUS(czk_comm_r(f->comm_r_old, f->comm_c, f->root_old, NULL), CZK_OK);
    /* new_replica = sector_key + data · rho(node) (vanilla.rs encode). */
    uint8_t phi[32];
    CHECK_STATUS(czk_snap_phi(phi, f->comm_d_new, f->comm_r_old, NULL), CZK_OK);
    for (uint64_t i = 0; i < n; i++) {
        czk_fr rho, o, d;
        CHECK_STATUS(czk_snap_rho(&rho, p, phi, i, h, NULL), CZK_OK);
        czk_fr_from_bytes_le(&o, f->r_old + 32 * i);
        czk_fr_from_bytes_le(&d, f->d_new + 32 * i);
        czk_fr_mul(&d, &d, &rho);
        czk_fr_add(&o, &o, &d);
        czk_fr_to_bytes_le(f->r_new + 32 * i, &o);
    }
    CHECK_STATUS(czk_merkle_build(&f->t_r_new, &cr, f->r_new, n, NULL, NULL), CZK_OK);
    czk_merkle_root(f->t_r_new, f->root_new);
    CHECK_STATUS(czk_comm_r(f->comm_r_new, f->comm_c, f->root_new, NULL), CZK_OK);
    f->apex = czk_malloc(p->apex_leaf_count * 32);
    f->cp = czk_malloc(p->challenge_count * sizeof *f->cp);
    f->challenges = czk_malloc(p->challenge_count * sizeof *f->challenges);
}

/* The witness of partition k (the vanilla proof of vanilla.rs prove, as circuit inputs). */
static void snap_fixture_partition(snap_fixture *f, uint64_t k)
{
    const czk_snap_params *p = &f->p;
    CHECK_STATUS(czk_snap_challenges(f->challenges, p, f->comm_r_new, k, NULL), CZK_OK);
    for (unsigned i = 0; i < p->challenge_count; i++) {
        uint64_t c = f->challenges[i];
        CHECK(c >> (p->challenge_bit_len - p->partition_bit_len) == k);
        CHECK_STATUS(czk_merkle_prove(f->t_r_old, c, f->r_old, &f->cp[i].r_old, NULL), CZK_OK);
        CHECK_STATUS(czk_merkle_prove(f->t_d_new, c, f->d_new, &f->cp[i].d_new, NULL), CZK_OK);
        CHECK_STATUS(czk_merkle_prove(f->t_r_new, c, f->r_new, &f->cp[i].r_new, NULL), CZK_OK);
    }
    /* Apex leaves: TreeDNew's level B − P − A, this partition's chunk. */
    unsigned level = p->challenge_bit_len - p->partition_bit_len - p->apex_leaf_bit_len;
    uint64_t count = 0;
    const uint8_t *nodes = czk_merkle_level_nodes(f->t_d_new, level, &count);
    CHECK(nodes != NULL && count == (uint64_t)p->partition_count * p->apex_leaf_count);
    if (nodes != NULL)
        memcpy(f->apex, nodes + 32 * k * p->apex_leaf_count, 32 * p->apex_leaf_count);
    f->w.k = k;
    f->w.h = f->h;
    memcpy(f->w.comm_r_old, f->comm_r_old, 32);
    memcpy(f->w.comm_d_new, f->comm_d_new, 32);
    memcpy(f->w.comm_r_new, f->comm_r_new, 32);
    memcpy(f->w.comm_c, f->comm_c, 32);
    memcpy(f->w.root_r_old, f->root_old, 32);
    memcpy(f->w.root_r_new, f->root_new, 32);
    f->w.apex_leafs = (const uint8_t(*)[32])f->apex;
    f->w.challenges = f->cp;
}

static void snap_fixture_free(snap_fixture *f)
{
    czk_merkle_destroy(f->t_r_old);
    czk_merkle_destroy(f->t_d_new);
    czk_merkle_destroy(f->t_r_new);
    czk_free(f->r_old);
    czk_free(f->d_new);
    czk_free(f->r_new);
    czk_free(f->apex);
    czk_free(f->cp);
    czk_free(f->challenges);
}

/* EVAL with f's witness: satisfied? (−1 = yes, else the first bad row; −2 = synthesis error) */
static long snap_eval(snap_fixture *f, bool check_inputs)
{
    czk_snap_circuit_ctx ctx = {&f->p, &f->w};
    eval_out o;
    czk_status s = eval_circuit(czk_snap_circuit, &ctx, &o);
    long r = s == CZK_OK ? o.bad : -2;
    if (s == CZK_OK && check_inputs) {
        /* compound.rs generate_public_inputs equals what the circuit inputized. */
        czk_fr pub[4];
        CHECK_STATUS(czk_snap_public_inputs(pub, &f->p, f->w.k, f->w.h, f->comm_r_old,
                                            f->comm_d_new, f->comm_r_new, NULL),
                     CZK_OK);
        CHECK(o.counts.n_inputs == 5 && czk_fr_is_one(&o.inputs[0]));
        for (int i = 0; i < 4; i++) CHECK_MSG(czk_fr_eq(&pub[i], &o.inputs[1 + i]), "input %d", i);
    }
    czk_free(o.inputs);
    return r;
}

/* The 1 KiB upstream configuration (8-4-0 TreeR, one partition), h = hs[2] as the
 * upstream test's H_SELECT, then wrong witnesses. */
static void test_snap_witness_1kib(void)
{
    czk_snap_params p;
    CHECK_STATUS(czk_snap_params_get(&p, 1024, NULL), CZK_OK);
    snap_fixture f;
    snap_fixture_init(&f, &p, p.hs[2]);
    snap_fixture_partition(&f, 0);
    long r = snap_eval(&f, true);
    CHECK_MSG(r == -1, "row %ld", r);

    /* A wrong data leaf: the encoding and the TreeD path break. */
    uint8_t keep[32];
    memcpy(keep, f.cp[3].d_new.leaf, 32);
    f.cp[3].d_new.leaf[0] ^= 1;
    CHECK(snap_eval(&f, false) >= 0);
    memcpy(f.cp[3].d_new.leaf, keep, 32);
    /* A wrong apex leaf. */
    f.apex[5][3] ^= 0x10;
    CHECK(snap_eval(&f, false) >= 0);
    f.apex[5][3] ^= 0x10;
    /* A wrong comm_c (comm_r_old = H(comm_c, root_r_old) fails). */
    f.w.comm_c[7] ^= 2;
    CHECK(snap_eval(&f, false) >= 0);
    f.w.comm_c[7] ^= 2;
    /* A sibling of TreeRNew. */
    f.cp[9].r_new.siblings[4][0] ^= 1;
    CHECK(snap_eval(&f, false) >= 0);
    f.cp[9].r_new.siblings[4][0] ^= 1;
    CHECK(snap_eval(&f, false) == -1);
    snap_fixture_free(&f);
}

/* Two partitions (k = 1 exercises the partition path, partition bits and digest index
 * k·digests + j). Upstream's 2-partition sizes (16, 32 KiB) have 128 apex leaves (6 M
 * constraints), too large for a unit EVAL, so this is a tiny configuration of the same
 * generic circuit: the 4 KiB tree (8-2-0, 2^7 nodes) split into 2 partitions of 8 apex
 * leaves (P = 1, A = 3), 3 challenges per partition, and hs = 1..6 to exercise h_select. */
static void test_snap_witness_partitions(void)
{
    czk_snap_params p;
    CHECK_STATUS(czk_snap_params_get(&p, 4096, NULL), CZK_OK);
    p.partition_count = 2;
    p.partition_bit_len = 1;
    p.challenge_count = 3;
    for (unsigned i = 0; i < CZK_SNAP_HS; i++) p.hs[i] = 1 + i;
    snap_fixture f;
    snap_fixture_init(&f, &p, 4);
    for (uint64_t k = 0; k < 2; k++) {
        snap_fixture_partition(&f, k);
        long r = snap_eval(&f, true);
        CHECK_MSG(r == -1, "k = %llu: row %ld", (unsigned long long)k, r);
    }
    /* Claiming another h than the one the replica was encoded with. */
    f.w.h = 3;
    CHECK(snap_eval(&f, false) >= 0);
    f.w.h = 4;
    /* Claiming partition 0 with partition 1's proofs. */
    f.w.k = 0;
    CHECK(snap_eval(&f, false) >= 0);
    f.w.k = 1;
    /* Malformed witnesses are errors, not unsatisfied circuits. */
    f.w.h = 7;
    CHECK(snap_eval(&f, false) == -2);
    f.w.h = 4;
    f.cp[1].d_new.siblings[6][0] ^= 1; /* another partition path than challenge 0's */
    CHECK(snap_eval(&f, false) == -2);
    f.cp[1].d_new.siblings[6][0] ^= 1;
    CHECK(snap_eval(&f, false) == -1);
    czk_err err;
    czk_fr pub[4];
    CHECK_STATUS(
        czk_snap_public_inputs(pub, &p, 2, 4, f.comm_r_old, f.comm_d_new, f.comm_r_new, &err),
        CZK_EINVAL);
    snap_fixture_free(&f);
}

/* The k_and_h_select input of a production size: k + 128 at 32 GiB (h = 10). */
static void test_snap_public_inputs(void)
{
    czk_snap_params p;
    CHECK_STATUS(czk_snap_params_get(&p, 32ull << 30, NULL), CZK_OK);
    uint8_t a[32], b[32], c[32];
    rand_node(a);
    rand_node(b);
    rand_node(c);
    czk_fr pub[4], want;
    CHECK_STATUS(czk_snap_public_inputs(pub, &p, 5, 10, a, b, c, NULL), CZK_OK);
    czk_fr_from_u64(&want, 5 + 128);
    CHECK(czk_fr_eq(&pub[0], &want));
    CHECK_STATUS(czk_snap_public_inputs(pub, &p, 15, 7, a, b, c, NULL), CZK_OK);
    czk_fr_from_u64(&want, 15 + 16);
    CHECK(czk_fr_eq(&pub[0], &want));
    czk_fr_from_bytes_le(&want, b);
    CHECK(czk_fr_eq(&pub[2], &want));
    /* Challenges stay in partition k's range and are 26 random bits + k. */
    uint32_t ch[86];
    CHECK_STATUS(czk_snap_challenges(ch, &p, c, 9, NULL), CZK_OK);
    for (int i = 0; i < 86; i++) CHECK(ch[i] >> 26 == 9);
}

/* ------------------------------------------------------------------------------------ */
/* PoSt                                                                                 */
/* ------------------------------------------------------------------------------------ */

static void test_post_counts(void)
{
    /* storage-proofs-post/tests/fallback_circuit.rs: 64·base_tree_count leaves, 5
     * challenges per sector. */
    static const struct {
        unsigned sub, top, sectors;
        uint64_t inputs, constraints;
    } t[] = {
        {0, 0, 3, 19, 16869},
        {4, 0, 3, 19, 22674},
        {4, 2, 3, 19, 27384},
        {0, 0, 2, 13, 11246},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        czk_post_params p;
        uint64_t leaves = 64 * (t[i].sub ? t[i].sub : 1) * (t[i].top ? t[i].top : 1);
        CHECK_STATUS(czk_post_params_custom(&p, leaves, 5, t[i].sectors, 8, t[i].sub, t[i].top,
                                            CZK_API_V1_1_0, NULL),
                     CZK_OK);
        czk_post_circuit_ctx ctx = {&p, NULL};
        czk_cs_counts c = count_circuit(czk_post_circuit, &ctx, NULL);
        CHECK_MSG(c.n_inputs == t[i].inputs && c.n_constraints == t[i].constraints,
                  "%u-%u: %llu inputs %llu constraints", t[i].sub, t[i].top,
                  (unsigned long long)c.n_inputs, (unsigned long long)c.n_constraints);
    }
    /* test_fallback_post_circuit_poseidon_base_8_bench_cs: 32 GiB, 8-0-0, 10 × 5. */
    czk_post_params p;
    CHECK_STATUS(czk_post_params_custom(&p, 1ull << 30, 10, 5, 8, 0, 0, CZK_API_V1_1_0, NULL),
                 CZK_OK);
    czk_post_circuit_ctx ctx = {&p, NULL};
    CHECK(count_circuit(czk_post_circuit, &ctx, NULL).n_constraints == 266665);

    /* Registered proofs. */
    static const struct {
        czk_post_proof proof;
        uint64_t constraints, inputs;
    } r[] = {
        {CZK_POST_StackedDrgWinning32GiBV1, 370590, 133},
        {CZK_POST_StackedDrgWindow32GiBV1_2, 125279217, 25840},
        {CZK_POST_StackedDrgWindow64GiBV1_2, 129887900, 25301},
        {CZK_POST_StackedDrgWindow32GiBV1, 125279217, 25840},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        czk_circuit_info info;
        bool win = czk_post_proof_is_winning(r[i].proof);
        czk_status s = win ? czk_circuit_winning_count((int)r[i].proof, &info, NULL)
                           : czk_circuit_wpost_count((int)r[i].proof, &info, NULL);
        CHECK_STATUS(s, CZK_OK);
        CHECK_MSG(info.constraints == r[i].constraints && info.inputs == r[i].inputs,
                  "%s: %llu / %llu", czk_post_proof_name(r[i].proof),
                  (unsigned long long)info.constraints, (unsigned long long)info.inputs);
    }
    czk_circuit_info info;
    czk_err err;
    CHECK_STATUS(czk_circuit_winning_count(CZK_POST_StackedDrgWindow2KiBV1, &info, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_circuit_wpost_count(CZK_POST_StackedDrgWinning2KiBV1, &info, &err),
                 CZK_EINVAL);
    czk_post_proof pp;
    CHECK_STATUS(czk_post_proof_for_size(32ull << 30, false, &pp, NULL), CZK_OK);
    CHECK(pp == CZK_POST_StackedDrgWindow32GiBV1_2);
    CHECK_STATUS(czk_post_proof_for_size(2048, true, &pp, NULL), CZK_OK);
    CHECK(pp == CZK_POST_StackedDrgWinning2KiBV1);
}

static bool info_eq(const czk_circuit_info *a, const czk_circuit_info *b)
{
    return a->constraints == b->constraints && a->inputs == b->inputs && a->aux == b->aux &&
           a->a_aux_density == b->a_aux_density && a->b_input_density == b->b_input_density &&
           a->b_aux_density == b->b_aux_density;
}

/* czk_post_count_fast (two small syntheses, extrapolated) equals the full synthesis, on
 * every registered size, including the 125 M-constraint 32 GiB Window PoSt. */
static void test_post_fast_count(void)
{
    for (int pr = 0; pr < CZK_POST_PROOF_COUNT; pr++) {
        czk_post_params p;
        CHECK_STATUS(czk_post_params_get(&p, (czk_post_proof)pr, NULL), CZK_OK);
        if (pr >= CZK_POST_StackedDrgWindow2KiBV1_2) break; /* V1_2 = V1 circuits */
        czk_circuit_info full, fast;
        /* The full 125 M-constraint synthesis takes 10-20 s: once, at 32 GiB (64 GiB has
         * the same sector structure plus one level); none with CZK_TEST_QUICK. */
        bool big = p.nodes >= (UINT64_C(1) << 30) && p.sector_count > 66;
        bool do_full = !big || (!quick() && pr == CZK_POST_StackedDrgWindow32GiBV1);
        double t0 = now_s();
        CHECK_STATUS(czk_post_count_fast(&p, &fast, NULL), CZK_OK);
        double t1 = now_s();
        full = fast;
        if (do_full) {
            CHECK_STATUS(czk_post_count(&p, &full, NULL), CZK_OK);
            CHECK(info_eq(&full, &fast));
        }
        double t2 = now_s();
        printf("  %-26s %10llu constraints %6llu inputs %10llu aux A %llu Bin %llu Baux %llu "
               "(fast %.3f s, full %.2f s)\n",
               czk_post_proof_name((czk_post_proof)pr), (unsigned long long)full.constraints,
               (unsigned long long)full.inputs, (unsigned long long)full.aux,
               (unsigned long long)full.a_aux_density, (unsigned long long)full.b_input_density,
               (unsigned long long)full.b_aux_density, t1 - t0, t2 - t1);
    }
}

/* Independent transcription of generate_leaf_challenge with OpenSSL's SHA-256 API. */
static uint64_t ref_leaf_challenge(const uint8_t rnd[32], uint64_t sector_id, uint64_t idx,
                                   uint64_t nodes)
{
    uint8_t msg[48], h[32];
    memcpy(msg, rnd, 32);
    for (int i = 0; i < 8; i++) msg[32 + i] = (uint8_t)(sector_id >> (8 * i));
    for (int i = 0; i < 8; i++) msg[40 + i] = (uint8_t)(idx >> (8 * i));
    CHECK(EVP_Digest(msg, sizeof msg, h, NULL, EVP_sha256(), NULL) == 1);
    uint64_t v = 0;
    memcpy(&v, h, 8); /* little-endian host */
    return v % nodes;
}

typedef struct post_fixture {
    czk_post_params p;
    unsigned ntrees;
    uint8_t *leaves[4];
    czk_merkle_tree *trees[4];
    uint8_t comm_c[4][32], comm_r_last[4][32];
    czk_post_public_sector pub[4];
    czk_merkle_path *paths;     /* sector_count × challenge_count */
    czk_post_sector_witness *w; /* sector_count */
    uint8_t randomness[32];
} post_fixture;

/* ntrees real sectors; the circuit's sector_count slots of partition k take chunk k and
 * repeat its last sector (compound.rs circuit / vanilla prove_all_partitions). */
static void post_fixture_build(post_fixture *f, unsigned ntrees, uint64_t k)
{
    const czk_post_params *p = &f->p;
    czk_merkle_config cfg = {CZK_MERKLE_POSEIDON, p->tree.base_arity, p->tree.sub_arity,
                             p->tree.top_arity, 0};
    if (f->ntrees == 0) {
        f->ntrees = ntrees;
        rand_node(f->randomness);
        for (unsigned t = 0; t < ntrees; t++) {
            f->leaves[t] = czk_malloc(p->nodes * 32);
            for (uint64_t i = 0; i < p->nodes; i++) rand_node(f->leaves[t] + 32 * i);
            CHECK_STATUS(czk_merkle_build(&f->trees[t], &cfg, f->leaves[t], p->nodes, NULL, NULL),
                         CZK_OK);
            czk_merkle_root(f->trees[t], f->comm_r_last[t]);
            rand_node(f->comm_c[t]);
            f->pub[t].id = 1000 + 7 * t;
            CHECK_STATUS(czk_comm_r(f->pub[t].comm_r, f->comm_c[t], f->comm_r_last[t], NULL),
                         CZK_OK);
        }
        f->paths = czk_malloc((size_t)p->sector_count * p->challenge_count * sizeof *f->paths);
        f->w = czk_malloc(p->sector_count * sizeof *f->w);
    }
    size_t first = (size_t)k * p->sector_count;
    size_t real = f->ntrees - first < p->sector_count ? f->ntrees - first : p->sector_count;
    for (unsigned s = 0; s < p->sector_count; s++) {
        size_t t = first + (s < real ? s : real - 1); /* repeat the last sector */
        size_t proof_slot = s < real ? s : real - 1;
        czk_post_sector_witness *w = &f->w[s];
        memcpy(w->comm_r, f->pub[t].comm_r, 32);
        memcpy(w->comm_c, f->comm_c[t], 32);
        memcpy(w->comm_r_last, f->comm_r_last[t], 32);
        w->paths = f->paths + (size_t)s * p->challenge_count;
        for (unsigned c = 0; c < p->challenge_count; c++) {
            /* The padding sector repeats the last proof, challenges included. */
            uint64_t idx =
                czk_post_challenge_index(p->api_version, first + proof_slot, p->challenge_count, c);
            uint64_t leaf = czk_post_leaf_challenge(p, f->randomness, f->pub[t].id, idx);
            CHECK(leaf == ref_leaf_challenge(f->randomness, f->pub[t].id, idx, p->nodes));
            CHECK_STATUS(czk_merkle_prove(f->trees[t], leaf, f->leaves[t],
                                          (czk_merkle_path *)&w->paths[c], NULL),
                         CZK_OK);
        }
    }
}

static void post_fixture_free(post_fixture *f)
{
    for (unsigned t = 0; t < f->ntrees; t++) {
        czk_merkle_destroy(f->trees[t]);
        czk_free(f->leaves[t]);
    }
    czk_free(f->paths);
    czk_free(f->w);
}

static long post_eval(post_fixture *f, uint64_t k, bool check_inputs)
{
    czk_post_circuit_ctx ctx = {&f->p, f->w};
    eval_out o;
    czk_status s = eval_circuit(czk_post_circuit, &ctx, &o);
    long r = s == CZK_OK ? o.bad : -2;
    if (s == CZK_OK && check_inputs) {
        size_t n = czk_post_num_inputs(&f->p);
        czk_fr *pub = czk_malloc(n * sizeof *pub);
        CHECK_STATUS(czk_post_public_inputs(pub, &f->p, f->randomness, f->pub, f->ntrees, k, NULL),
                     CZK_OK);
        CHECK(o.counts.n_inputs == n + 1);
        for (size_t i = 0; i < n && i + 1 < o.counts.n_inputs; i++)
            CHECK_MSG(czk_fr_eq(&pub[i], &o.inputs[1 + i]), "input %zu", i);
        czk_free(pub);
    }
    czk_free(o.inputs);
    return r;
}

/* Upstream's 8-4-2 test shape (512 leaves), 3 sectors × 5 challenges, over 4 sectors in
 * two partitions: partition 1 holds one real sector and two repeats. */
static void test_post_witness(void)
{
    post_fixture f;
    memset(&f, 0, sizeof f);
    CHECK_STATUS(czk_post_params_custom(&f.p, 512, 5, 3, 8, 4, 2, CZK_API_V1_1_0, NULL), CZK_OK);
    for (uint64_t k = 0; k < 2; k++) {
        post_fixture_build(&f, 4, k);
        long r = post_eval(&f, k, true);
        CHECK_MSG(r == -1, "k = %llu: row %ld", (unsigned long long)k, r);
    }
    /* Wrong witnesses. */
    czk_merkle_path *path = (czk_merkle_path *)&f.w[0].paths[2];
    path->siblings[3][1] ^= 1;
    CHECK(post_eval(&f, 1, false) >= 0);
    path->siblings[3][1] ^= 1;
    path->leaf[0] ^= 1;
    CHECK(post_eval(&f, 1, false) >= 0);
    path->leaf[0] ^= 1;
    f.w[1].comm_c[4] ^= 8;
    CHECK(post_eval(&f, 1, false) >= 0);
    f.w[1].comm_c[4] ^= 8;
    CHECK(post_eval(&f, 1, false) == -1);
    czk_fr pub[64];
    czk_err err;
    CHECK_STATUS(czk_post_public_inputs(pub, &f.p, f.randomness, f.pub, 4, 2, &err), CZK_EINVAL);
    post_fixture_free(&f);
}

/* Winning PoSt 2 KiB as registered: one sector, 66 slots of one challenge each with
 * challenge index = slot (API 1.0.0), as filecoin-proofs winning_post.rs arranges it. */
static void test_winning_witness(void)
{
    post_fixture f;
    memset(&f, 0, sizeof f);
    CHECK_STATUS(czk_post_params_get(&f.p, CZK_POST_StackedDrgWinning2KiBV1, NULL), CZK_OK);
    CHECK(f.p.sector_count == 66 && f.p.challenge_count == 1 && f.p.nodes == 64);
    /* winning_post.rs passes the sector param_sector_count times: 66 public sectors. */
    post_fixture_build(&f, 1, 0);
    /* Give every slot its own challenge index, as with 66 public sector copies. */
    for (unsigned s = 0; s < f.p.sector_count; s++) {
        uint64_t leaf = czk_post_leaf_challenge(&f.p, f.randomness, f.pub[0].id, s);
        CHECK_STATUS(czk_merkle_prove(f.trees[0], leaf, f.leaves[0], &f.paths[s], NULL), CZK_OK);
    }
    czk_post_public_sector copies[66];
    for (int i = 0; i < 66; i++) copies[i] = f.pub[0];
    czk_post_circuit_ctx ctx = {&f.p, f.w};
    eval_out o;
    CHECK_STATUS(eval_circuit(czk_post_circuit, &ctx, &o), CZK_OK);
    CHECK(o.bad == -1 && o.counts.n_constraints == 90750 && o.counts.n_inputs == 133);
    czk_fr pub[132];
    CHECK_STATUS(czk_post_public_inputs(pub, &f.p, f.randomness, copies, 66, 0, NULL), CZK_OK);
    for (int i = 0; i < 132; i++) CHECK_MSG(czk_fr_eq(&pub[i], &o.inputs[1 + i]), "input %d", i);
    czk_free(o.inputs);
    post_fixture_free(&f);
}

/* ------------------------------------------------------------------------------------ */
/* Golden R1CS hashes                                                                   */
/* ------------------------------------------------------------------------------------ */

#define GOLDEN_SNAP_1KIB    "9aa72227dad454f80a1ccbe181a4cae6d74c61eefde0323939b9df51d1f800b4"
#define GOLDEN_POST_BASE8   "aabc663ba989f3613ad4d3f9a623ea354ad306dc951d848e57e4bdcd9096675c"
#define GOLDEN_WINNING_2KIB "ce8079a9875ac8fafc46902e0e2368fa997e7f2ffb2065d2666ef92bc3ca2f67"

static void test_golden_hashes(void)
{
    char hex[65];
    czk_cs_counts c;
    czk_snap_params sp;
    CHECK_STATUS(czk_snap_params_get(&sp, 1024, NULL), CZK_OK);
    czk_snap_circuit_ctx sctx = {&sp, NULL};
    CHECK_STATUS(czk_cs_hash_circuit(czk_snap_circuit, &sctx, hex, &c, NULL), CZK_OK);
    printf("  snap 1 KiB     %s\n", hex);
    CHECK(strcmp(hex, GOLDEN_SNAP_1KIB) == 0);

    czk_post_params pp;
    CHECK_STATUS(czk_post_params_custom(&pp, 64, 5, 3, 8, 0, 0, CZK_API_V1_1_0, NULL), CZK_OK);
    czk_post_circuit_ctx pctx = {&pp, NULL};
    CHECK_STATUS(czk_cs_hash_circuit(czk_post_circuit, &pctx, hex, &c, NULL), CZK_OK);
    printf("  post 8, 3×5    %s\n", hex);
    CHECK(strcmp(hex, GOLDEN_POST_BASE8) == 0);

    CHECK_STATUS(czk_post_params_get(&pp, CZK_POST_StackedDrgWinning2KiBV1, NULL), CZK_OK);
    CHECK_STATUS(czk_cs_hash_circuit(czk_post_circuit, &pctx, hex, &c, NULL), CZK_OK);
    printf("  winning 2 KiB  %s\n", hex);
    CHECK(strcmp(hex, GOLDEN_WINNING_2KIB) == 0);
}

int main(void)
{
    czk_test_seed();
    RUN(test_snap_params);
    RUN(test_snap_counts_small);
    RUN(test_gen_challenge_bits_cost);
    RUN(test_snap_phi_rho_vectors);
    RUN(test_snap_public_inputs);
    RUN(test_snap_witness_1kib);
    RUN(test_snap_witness_partitions);
    RUN(test_post_counts);
    RUN(test_post_witness);
    RUN(test_winning_witness);
    RUN(test_golden_hashes);
    RUN(test_snap_counts_published);
    RUN(test_post_fast_count);
    return czk_test_finish();
}
