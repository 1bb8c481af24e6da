/*
 * Circuit gadgets (include/czk/gadgets.h) against upstream's own numbers and independent
 * references. Every circuit runs in COUNT mode and with a witness in EVAL mode (every row
 * a·b = c checked, counts and density bitmaps equal to COUNT's); small ones also in
 * RECORD mode (czk_r1cs_is_satisfied on the recording, the recording's evaluation equal
 * to EVAL's rows) and HASH mode.
 *
 * Upstream's numbers reproduced here (sources in each test):
 *   - the R1CS hash and size of zcash's Sprout JoinSplit circuit, made of bellman's
 *     AllocatedBit, Boolean, sha256 and multipack gadgets only:
 *     1a228d3c…b84c, 1,989,085 constraints, 10 inputs (librustzcash
 *     zcash_proofs/src/circuit/sprout/mod.rs test_sprout_constraints);
 *   - SHA-256: 0 constraints for a constant block, 25,840 per allocated block, 44,874 for
 *     a 512-bit message (bellperson/bellpepper sha256.rs tests), 45,387 for
 *     hash_leaf_bits_circuit (rust-fil-proofs util.rs), 532,025 for create_label_circuit
 *     (rust-fil-proofs stacked/circuit/create_label.rs);
 *   - Poseidon: 311, 377, 505, 761, 1009, 1385 for arities 2, 4, 8, 16, 24, 36 (neptune
 *     circuit.rs test_poseidon_hash), 598 for arity 11 (rust-fil-proofs
 *     stacked/circuit/hash.rs);
 *   - insertion: size − 1 for select, 2 / 8 / 22 / 240 for insert (insertion.rs tests);
 *   - PoR: every shape of rust-fil-proofs storage-proofs-core/tests/por_circuit.rs
 *     (inputs and constraints, public and private roots).
 * Values are checked against OpenSSL (SHA-256, the bare compression function), native
 * Poseidon and published Poseidon digests (docs/formats.md §7), and czk's Merkle trees.
 * Golden R1CS hashes of czk's own small gadget circuits guard against regressions only.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* SHA256_Transform: the bare compression function */

#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "czk/cs.h"
#include "czk/gadgets.h"
#include "czk/merkle.h"
#include "czk/poseidon.h"
#include "czk_test.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

/* ------------------------------------------------------------------------------------ */
/* Running a circuit in every mode                                                      */
/* ------------------------------------------------------------------------------------ */

enum { M_RECORD = 1, M_HASH = 2 };

typedef struct outcome {
    czk_cs_counts counts;
    czk_fr *z;     /* EVAL's witness: inputs ‖ aux */
    long eval_bad; /* first EVAL row with a·b ≠ c, −1 if none */
    bool recorded;
    czk_r1cs r1cs;
    long rec_bad; /* first failing row of the recording, −1 if none */
    char hex[65];
} outcome;

static void outcome_free(outcome *o)
{
    czk_free(o->z);
    if (o->recorded) czk_r1cs_free(&o->r1cs);
    memset(o, 0, sizeof *o);
}

static bool counts_eq(const czk_cs_counts *x, const czk_cs_counts *y)
{
    return x->n_inputs == y->n_inputs && x->n_aux == y->n_aux &&
           x->n_constraints == y->n_constraints && x->a_aux_density == y->a_aux_density &&
           x->b_input_density == y->b_input_density && x->b_aux_density == y->b_aux_density;
}

static void run_modes(czk_cs_circuit_fn fn, void *ctx, outcome *o, unsigned flags)
{
    memset(o, 0, sizeof *o);
    o->eval_bad = o->rec_bad = -1;
    czk_err err;
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);

    /* COUNT */
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    CHECK_STATUS(fn(cs, ctx), CZK_OK);
    czk_status s = czk_cs_finish(cs, &err);
    CHECK_MSG(s == CZK_OK, "count: %s", err.msg);
    czk_cs_counts cnt;
    czk_cs_get_counts(cs, &cnt);
    size_t ni = cnt.n_inputs, na = cnt.n_aux, nc = cnt.n_constraints;
    size_t aw = (na + 63) / 64 + 1, iw = (ni + 63) / 64 + 1;
    uint64_t *bm = czk_calloc(4 * aw + 2 * iw, 8);
    uint64_t *ca = bm, *cba = bm + aw, *cbi = bm + 2 * aw;
    uint64_t *ea = bm + 2 * aw + iw, *eba = ea + aw, *ebi = eba + aw;
    czk_cs_get_densities(cs, ca, cbi, cba);
    czk_cs_destroy(cs);
    o->counts = cnt;

    /* EVAL into exact-size buffers. */
    o->z = czk_malloc((ni + na + 1) * sizeof *o->z);
    czk_fr *abc = czk_malloc(3 * (nc + 1) * sizeof *abc);
    cfg.mode = CZK_CS_EVAL;
    cfg.buf.inputs = o->z;
    cfg.buf.inputs_cap = ni;
    cfg.buf.aux = o->z + ni;
    cfg.buf.aux_cap = na;
    cfg.buf.a = abc;
    cfg.buf.b = abc + nc + 1;
    cfg.buf.c = abc + 2 * (nc + 1);
    cfg.buf.rows_cap = nc;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    CHECK_STATUS(fn(cs, ctx), CZK_OK);
    s = czk_cs_finish(cs, &err);
    CHECK_MSG(s == CZK_OK, "eval: %s", err.msg);
    czk_cs_counts ec;
    czk_cs_get_counts(cs, &ec);
    CHECK(counts_eq(&cnt, &ec));
    czk_cs_get_densities(cs, ea, ebi, eba);
    CHECK(memcmp(ca, ea, aw * 8) == 0 && memcmp(cba, eba, aw * 8) == 0 &&
          memcmp(cbi, ebi, iw * 8) == 0);
    czk_cs_destroy(cs);
    for (size_t j = 0; j < nc; j++) {
        czk_fr ab;
        czk_fr_mul(&ab, &cfg.buf.a[j], &cfg.buf.b[j]);
        if (!czk_fr_eq(&ab, &cfg.buf.c[j])) {
            o->eval_bad = (long)j;
            break;
        }
    }

    /* RECORD with the witness kept too. */
    if (flags & M_RECORD) {
        czk_fr *z2 = czk_malloc((ni + na + 1) * sizeof *z2);
        czk_cs_config rc;
        memset(&rc, 0, sizeof rc);
        rc.mode = CZK_CS_RECORD;
        rc.buf.inputs = z2;
        rc.buf.inputs_cap = ni;
        rc.buf.aux = z2 + ni;
        rc.buf.aux_cap = na;
        CHECK_STATUS(czk_cs_create(&cs, &rc, &err), CZK_OK);
        CHECK_STATUS(fn(cs, ctx), CZK_OK);
        CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
        czk_cs_counts rcn;
        czk_cs_get_counts(cs, &rcn);
        CHECK(counts_eq(&cnt, &rcn));
        CHECK_STATUS(czk_cs_take_r1cs(cs, &o->r1cs, &err), CZK_OK);
        czk_cs_destroy(cs);
        o->recorded = true;
        CHECK(memcmp(z2, o->z, (ni + na) * sizeof *z2) == 0);
        uint32_t bad = 0;
        if (!czk_r1cs_is_satisfied(&o->r1cs, o->z, &bad)) o->rec_bad = (long)bad;
        czk_fr *abc2 = czk_malloc(3 * (nc + 1) * sizeof *abc2);
        czk_r1cs_eval(&o->r1cs, o->z, abc2, abc2 + nc + 1, abc2 + 2 * (nc + 1), NULL);
        CHECK(memcmp(abc2, cfg.buf.a, nc * 32) == 0 &&
              memcmp(abc2 + nc + 1, cfg.buf.b, nc * 32) == 0 &&
              memcmp(abc2 + 2 * (nc + 1), cfg.buf.c, nc * 32) == 0);
        czk_free(abc2);
        czk_free(z2);
    }
    czk_free(abc);
    czk_free(bm);

    if (flags & M_HASH) {
        czk_cs_counts hc;
        CHECK_STATUS(czk_cs_hash_circuit(fn, ctx, o->hex, &hc, &err), CZK_OK);
        CHECK(counts_eq(&cnt, &hc));
    }
}

/* The witness satisfies the circuit, by EVAL's rows and (if recorded) the recording. */
#define CHECK_SAT(o)                                                                               \
    CHECK_MSG((o)->eval_bad < 0 && (o)->rec_bad < 0, "rows %ld / %ld fail", (o)->eval_bad,         \
              (o)->rec_bad)

static size_t zi(const outcome *o, czk_var v)
{
    return czk_var_is_aux(v) ? (size_t)o->counts.n_inputs + czk_var_index(v) : czk_var_index(v);
}

/* The first failing row of the recording with z[idx] replaced by v; −1 if none. */
static long tampered(const outcome *o, czk_var var, const czk_fr *v)
{
    size_t i = zi(o, var);
    czk_fr keep = o->z[i];
    o->z[i] = *v;
    uint32_t bad = 0;
    bool ok = czk_r1cs_is_satisfied(&o->r1cs, o->z, &bad);
    o->z[i] = keep;
    return ok ? -1 : (long)bad;
}

static czk_fr fr_u64(uint64_t v)
{
    czk_fr r;
    czk_fr_from_u64(&r, v);
    return r;
}

static czk_fr fr_rand(void)
{
    uint8_t b[64];
    czk_test_rand_bytes(b, sizeof b);
    czk_fr r;
    czk_fr_from_wide_bytes(&r, b);
    return r;
}

static czk_fr fr_hex(const char *hex)
{
    if (hex[0] == '0' && hex[1] == 'x') hex += 2;
    uint8_t be[32] = {0};
    size_t len = strlen(hex);
    for (size_t i = 0; i < len; i++) {
        char ch = hex[len - 1 - i];
        unsigned d = ch <= '9' ? (unsigned)(ch - '0') : (unsigned)((ch | 32) - 'a' + 10);
        be[31 - i / 2] |= (uint8_t)(d << (4 * (i % 2)));
    }
    czk_fr r;
    CHECK(czk_fr_from_bytes_be(&r, be));
    return r;
}

static czk_fr fr_le_bytes(const uint8_t b[32])
{
    czk_fr r = CZK_FR_ZERO;
    CHECK(czk_fr_from_bytes_le(&r, b));
    return r;
}

static void sha256_evp(uint8_t out[32], const uint8_t *msg, size_t n)
{
    unsigned len = 0;
    CHECK(EVP_Digest(msg, n, out, &len, EVP_sha256(), NULL) == 1 && len == 32);
}

/* Bits of bytes, most significant first (the SHA-256 gadget's order). */
static void bits_be(uint8_t *bits, const uint8_t *bytes, size_t n)
{
    czk_multipack_bytes_to_bits(bits, bytes, n);
}

/* Booleans' values against bits. */
static bool bools_eq_bits(const czk_bool *b, const uint8_t *bits, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((b[i].val != 0) != (bits[i] != 0)) return false;
    return true;
}

/* ------------------------------------------------------------------------------------ */
/* Booleans                                                                             */
/* ------------------------------------------------------------------------------------ */

/* bellpepper's OperandType: True, False, AllocatedTrue, AllocatedFalse,
 * NegatedAllocatedTrue, NegatedAllocatedFalse. */
static czk_bool operand(czk_cs *cs, int v)
{
    switch (v) {
    case 0:
        return czk_bool_const(true);
    case 1:
        return czk_bool_const(false);
    case 2:
        return czk_bit_alloc(cs, true);
    case 3:
        return czk_bit_alloc(cs, false);
    case 4:
        return czk_bool_not(czk_bit_alloc(cs, true));
    default:
        return czk_bool_not(czk_bit_alloc(cs, false));
    }
}
static bool operand_val(int v)
{
    return v == 0 || v == 2 || v == 5;
}
static bool operand_const(int v)
{
    return v < 2;
}
static int operand_kind(int v)
{
    return v < 2 ? CZK_BOOL_CONST : v < 4 ? CZK_BOOL_IS : CZK_BOOL_NOT;
}

enum { OP_XOR, OP_AND, OP_OR, OP_CH, OP_MAJ, OP_EQ };

typedef struct bool_ctx {
    int op, v[3];
    czk_bool out;
    czk_status eq_status;
} bool_ctx;

static czk_status bool_circuit(czk_cs *cs, void *p)
{
    bool_ctx *x = p;
    czk_bool a = operand(cs, x->v[0]), b = operand(cs, x->v[1]);
    czk_bool c = x->op == OP_CH || x->op == OP_MAJ ? operand(cs, x->v[2]) : czk_bool_const(false);
    switch (x->op) {
    case OP_XOR:
        x->out = czk_bool_xor(cs, a, b);
        break;
    case OP_AND:
        x->out = czk_bool_and(cs, a, b);
        break;
    case OP_OR:
        x->out = czk_bool_or(cs, a, b);
        break;
    case OP_CH:
        x->out = czk_bool_sha256_ch(cs, a, b, c);
        break;
    case OP_MAJ:
        x->out = czk_bool_sha256_maj(cs, a, b, c);
        break;
    default:
        x->eq_status = czk_bool_enforce_equal(cs, a, b);
        break;
    }
    return czk_cs_status(cs);
}

/* bellpepper-core boolean.rs test_boolean_{xor,and,or,sha256_ch,sha256_maj}: every
 * combination of constant, allocated and negated operands. */
static void test_boolean_ops(void)
{
    int fails = 0;
    for (int op = OP_XOR; op <= OP_MAJ; op++) {
        int n3 = op >= OP_CH ? 6 : 1;
        for (int va = 0; va < 6; va++)
            for (int vb = 0; vb < 6; vb++)
                for (int vc = 0; vc < n3; vc++) {
                    bool_ctx x = {.op = op, .v = {va, vb, op >= OP_CH ? vc : 1}};
                    outcome o;
                    run_modes(bool_circuit, &x, &o, M_RECORD);
                    bool a = operand_val(va), b = operand_val(vb), c = operand_val(vc);
                    bool want = op == OP_XOR   ? a ^ b
                                : op == OP_AND ? a & b
                                : op == OP_OR  ? a | b
                                : op == OP_CH  ? (a & b) ^ (!a & c)
                                               : (a & b) ^ (a & c) ^ (b & c);
                    bool ok = o.eval_bad < 0 && o.rec_bad < 0 && (x.out.val != 0) == want;
                    unsigned nops = op >= OP_CH ? 3 : 2;
                    unsigned nconst = operand_const(va) + operand_const(vb) +
                                      (op >= OP_CH ? operand_const(vc) : 0);
                    unsigned allocs = nops - nconst;
                    uint64_t own = o.counts.n_constraints - allocs;
                    if (op <= OP_OR) {
                        bool both = !operand_const(va) && !operand_const(vb);
                        ok = ok && own == (both ? 1u : 0u);
                        /* Result kinds as upstream's tests list them. */
                        int ka = operand_kind(va), kb = operand_kind(vb), want_kind;
                        if (op == OP_XOR) {
                            if (ka == CZK_BOOL_CONST)
                                want_kind =
                                    kb == CZK_BOOL_CONST ? CZK_BOOL_CONST : (a ? 3 - kb : kb);
                            else if (kb == CZK_BOOL_CONST)
                                want_kind = b ? 3 - ka : ka;
                            else
                                want_kind = ka == kb ? CZK_BOOL_IS : CZK_BOOL_NOT;
                        } else if (op == OP_AND) {
                            if ((ka == CZK_BOOL_CONST && !a) || (kb == CZK_BOOL_CONST && !b))
                                want_kind = CZK_BOOL_CONST;
                            else if (ka == CZK_BOOL_CONST)
                                want_kind = kb;
                            else if (kb == CZK_BOOL_CONST)
                                want_kind = ka;
                            else
                                want_kind = CZK_BOOL_IS;
                        } else {
                            if ((ka == CZK_BOOL_CONST && a) || (kb == CZK_BOOL_CONST && b))
                                want_kind = CZK_BOOL_CONST;
                            else if (ka == CZK_BOOL_CONST)
                                want_kind = kb;
                            else if (kb == CZK_BOOL_CONST)
                                want_kind = ka;
                            else
                                want_kind = CZK_BOOL_NOT;
                        }
                        ok = ok && x.out.kind == want_kind;
                        if (both) {
                            /* The result bit is pinned by the operation's row, the last. */
                            czk_fr flip = fr_u64(x.out.kind == CZK_BOOL_IS ? !want : want);
                            ok = ok && tampered(&o, czk_bool_var(x.out), &flip) ==
                                           (long)o.counts.n_constraints - 1;
                        }
                    } else if (nconst == nops) {
                        ok = ok && own == 0 && x.out.kind == CZK_BOOL_CONST;
                    } else if (nconst == 0) {
                        ok = ok && own == (op == OP_CH ? 1u : 2u) && x.out.kind == CZK_BOOL_IS;
                        /* upstream: setting "ch"/"maj" wrong breaks "ch/maj computation". */
                        czk_fr flip = fr_u64(!want);
                        ok = ok && tampered(&o, czk_bool_var(x.out), &flip) ==
                                       (long)o.counts.n_constraints - 1;
                    } else {
                        ok = ok && own <= 1;
                    }
                    if (!ok && fails++ < 5)
                        fprintf(stderr,
                                "  op %d operands %d %d %d: value %d kind %d, %llu own rows\n", op,
                                va, vb, vc, x.out.val, x.out.kind, (unsigned long long)own);
                    outcome_free(&o);
                }
    }
    CHECK(fails == 0);
}

/* Operands whose variables no other row names: raw bits (czk_cs_alloc_bit, no boolean
 * constraint), plain or negated, bits on input variables, constants. Every density bit
 * then comes from the operation's own rows, so run_modes' comparison of EVAL's densities
 * and rows (the gadgets' direct rows, cs_internal.h) with COUNT's and RECORD's (LCs)
 * checks exactly which variables each row names. */
static czk_bool raw_operand(czk_cs *cs, int v)
{
    czk_fr one = CZK_FR_ONE, zero = CZK_FR_ZERO;
    switch (v) {
    case 0:
        return czk_bool_const(true);
    case 1:
        return czk_bool_const(false);
    case 2:
    case 3: {
        czk_bool b = {czk_cs_alloc_bit(cs, v == 2).id, CZK_BOOL_IS, (uint8_t)(v == 2), 0};
        return b;
    }
    case 4:
    case 5: {
        czk_bool b = {czk_cs_alloc_bit(cs, v == 4).id, CZK_BOOL_IS, (uint8_t)(v == 4), 0};
        return czk_bool_not(b);
    }
    default: {
        czk_bool b = {czk_cs_alloc_input(cs, v == 6 ? &one : &zero).id, CZK_BOOL_IS,
                      (uint8_t)(v == 6), 0};
        return b;
    }
    }
}

typedef struct raw_ctx {
    int op, v[3];
    bool share; /* the last operand is the one before it: a repeated variable */
} raw_ctx;

static czk_status raw_circuit(czk_cs *cs, void *p)
{
    raw_ctx *x = p;
    czk_bool a = raw_operand(cs, x->v[0]), b = raw_operand(cs, x->v[1]), c;
    if (x->op == OP_CH || x->op == OP_MAJ)
        c = x->share ? b : raw_operand(cs, x->v[2]);
    else if (x->share)
        b = a;
    switch (x->op) {
    case OP_XOR:
        czk_bool_xor(cs, a, b);
        break;
    case OP_AND:
        czk_bool_and(cs, a, b);
        break;
    case OP_OR:
        czk_bool_or(cs, a, b);
        break;
    case OP_CH:
        czk_bool_sha256_ch(cs, a, b, c);
        break;
    case OP_MAJ:
        czk_bool_sha256_maj(cs, a, b, c);
        break;
    default: /* AllocatedBit::alloc_conditionally on an IS bit */
        if (a.kind == CZK_BOOL_IS) czk_bit_alloc_conditionally(cs, b.val, a);
        break;
    }
    czk_bit_alloc(cs, x->v[0] & 1);
    return czk_cs_status(cs);
}

static void test_boolean_direct_rows(void)
{
    int fails = 0;
    for (int op = OP_XOR; op <= OP_EQ; op++) {
        int n3 = op == OP_CH || op == OP_MAJ ? 8 : 1;
        for (int share = 0; share < 2; share++)
            for (int va = 0; va < 8; va++)
                for (int vb = 0; vb < 8; vb++)
                    for (int vc = 0; vc < n3; vc++) {
                        raw_ctx x = {.op = op, .v = {va, vb, vc}, .share = share != 0};
                        outcome o;
                        int before = czk_test_failed_checks;
                        run_modes(raw_circuit, &x, &o, M_RECORD);
                        if (czk_test_failed_checks != before && fails++ < 5)
                            fprintf(stderr, "  op %d operands %d %d %d share %d\n", op, va, vb, vc,
                                    share);
                        outcome_free(&o);
                    }
    }
    CHECK(fails == 0);
}

/* bellpepper-core test_enforce_equal: satisfied exactly when the values agree; unequal
 * constants are refused. */
static void test_enforce_equal(void)
{
    int fails = 0;
    for (int va = 0; va < 6; va++)
        for (int vb = 0; vb < 6; vb++) {
            bool_ctx x = {.op = OP_EQ, .v = {va, vb, 1}};
            bool same = operand_val(va) == operand_val(vb);
            if (operand_const(va) && operand_const(vb)) {
                czk_cs_config cfg = {.mode = CZK_CS_COUNT};
                czk_cs *cs = NULL;
                CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
                bool_circuit(cs, &x);
                czk_cs_counts c;
                czk_cs_get_counts(cs, &c);
                if ((x.eq_status == CZK_OK) != same || c.n_constraints != 0) fails++;
                czk_cs_destroy(cs);
                continue;
            }
            outcome o;
            run_modes(bool_circuit, &x, &o, M_RECORD);
            if ((o.rec_bad < 0) != same || (o.eval_bad < 0) != same) fails++;
            outcome_free(&o);
        }
    CHECK(fails == 0);
}

typedef struct bit_ctx {
    int op;
    bool a, b;
    czk_bool out;
} bit_ctx;

static czk_status bit_circuit(czk_cs *cs, void *p)
{
    bit_ctx *x = p;
    czk_bool a = czk_bit_alloc(cs, x->a);
    if (x->op == 4) { /* alloc_conditionally(b, must_be_false = a) */
        x->out = czk_bit_alloc_conditionally(cs, x->b, a);
        return czk_cs_status(cs);
    }
    czk_bool b = czk_bit_alloc(cs, x->b);
    x->out = x->op == 0   ? czk_bit_xor(cs, a, b)
             : x->op == 1 ? czk_bit_and(cs, a, b)
             : x->op == 2 ? czk_bit_and_not(cs, a, b)
                          : czk_bit_nor(cs, a, b);
    return czk_cs_status(cs);
}

/* bellpepper-core test_allocated_bit, test_xor/and/and_not/nor, test_alloc_conditionally. */
static void test_allocated_bits(void)
{
    for (int op = 0; op < 5; op++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                bit_ctx x = {op, a, b, {0, 0, 0, 0}};
                outcome o;
                run_modes(bit_circuit, &x, &o, M_RECORD);
                if (op == 4) {
                    /* must_be_false = a: with a = 1 a true b is unsatisfiable. */
                    CHECK(o.counts.n_constraints == 2);
                    CHECK((o.rec_bad < 0) == !(a && b));
                    CHECK((o.eval_bad < 0) == !(a && b));
                    outcome_free(&o);
                    continue;
                }
                bool want = op == 0 ? a ^ b : op == 1 ? a & b : op == 2 ? a & !b : !a & !b;
                CHECK(o.counts.n_constraints == 3 && o.counts.n_aux == 3);
                CHECK_SAT(&o);
                CHECK((x.out.val != 0) == want && x.out.kind == CZK_BOOL_IS);
                czk_fr flip = fr_u64(!want);
                CHECK(tampered(&o, czk_bool_var(x.out), &flip) == 2);
                /* A bit of value 2 breaks its boolean constraint. */
                czk_fr two = fr_u64(2);
                czk_var first = {CZK_VAR_AUX | 0};
                CHECK(tampered(&o, first, &two) == 0);
                outcome_free(&o);
            }
}

/* ------------------------------------------------------------------------------------ */
/* UInt32 and MultiEq                                                                   */
/* ------------------------------------------------------------------------------------ */

typedef struct u32_ctx {
    uint32_t a, b, c, d;
    unsigned nadd; /* batching test: additions of 4 words */
    uint32_t words[16][4];
    czk_uint32 r;
    uint32_t sums[16];
    bool sums_ok;
} u32_ctx;

/* bellpepper uint32.rs test_uint32_addmany: a alloc, b constant, c and d alloc,
 * r = (a ^ b) + c + d in one MultiEq. */
static czk_status u32_addmany_circuit(czk_cs *cs, void *p)
{
    u32_ctx *x = p;
    czk_uint32 ops[3], a, b;
    czk_uint32_alloc(cs, &a, x->a);
    czk_uint32_constant(&b, x->b);
    czk_uint32_alloc(cs, &ops[1], x->c);
    czk_uint32_alloc(cs, &ops[2], x->d);
    czk_uint32_xor(cs, &ops[0], &a, &b);
    czk_multieq me;
    czk_multieq_init(&me, cs);
    czk_uint32_addmany(&me, &x->r, ops, 3);
    czk_multieq_finish(&me);
    czk_multieq_free(&me);
    return czk_cs_status(cs);
}

static czk_status u32_batch_circuit(czk_cs *cs, void *p)
{
    u32_ctx *x = p;
    czk_multieq me;
    czk_multieq_init(&me, cs);
    x->sums_ok = true;
    for (unsigned k = 0; k < x->nadd; k++) {
        czk_uint32 ops[4], r;
        uint32_t want = 0;
        for (int i = 0; i < 4; i++) {
            uint32_t v = x->words[k][i];
            want += v;
            czk_uint32_alloc(cs, &ops[i], v);
        }
        czk_uint32_addmany(&me, &r, ops, 4);
        if (czk_cs_has_witness(cs) && r.value != want) x->sums_ok = false;
    }
    czk_multieq_finish(&me);
    czk_multieq_free(&me);
    return czk_cs_status(cs);
}

static void test_uint32(void)
{
    /* Constant, rotations and shifts: values and bits (uint32.rs test_uint32_constant,
     * test_uint32_rotr, test_uint32_shr). */
    for (int it = 0; it < 50; it++) {
        uint32_t v = (uint32_t)czk_test_rand64();
        czk_uint32 c, r;
        czk_uint32_constant(&c, v);
        bool ok = c.value == v;
        for (int i = 0; i < 32; i++)
            ok &= c.bits[i].kind == CZK_BOOL_CONST && c.bits[i].val == ((v >> i) & 1);
        for (unsigned by = 0; by < 40; by++) {
            czk_uint32_rotr(&r, &c, by);
            uint32_t w = (v >> (by % 32)) | (by % 32 ? v << (32 - by % 32) : 0);
            ok &= r.value == w;
            for (int i = 0; i < 32; i++) ok &= r.bits[i].val == ((w >> i) & 1);
            czk_uint32_shr(&r, &c, by);
            w = v >> (by % 32);
            ok &= r.value == w;
            for (int i = 0; i < 32; i++) ok &= r.bits[i].val == ((w >> i) & 1);
        }
        czk_bool be[32];
        czk_uint32_to_bits_be(be, &c);
        czk_uint32_from_bits_be(&r, be);
        ok &= r.value == v && be[0].val == (v >> 31);
        czk_uint32_from_bits_le(&r, c.bits);
        ok &= r.value == v;
        CHECK(ok);
    }

    /* addmany with a constant operand folded by xor, then the result bits tampered. */
    for (int it = 0; it < 10; it++) {
        u32_ctx x;
        memset(&x, 0, sizeof x);
        x.a = (uint32_t)czk_test_rand64();
        x.b = (uint32_t)czk_test_rand64();
        x.c = (uint32_t)czk_test_rand64();
        x.d = (uint32_t)czk_test_rand64();
        outcome o;
        run_modes(u32_addmany_circuit, &x, &o, M_RECORD);
        uint32_t want = (x.a ^ x.b) + x.c + x.d;
        CHECK_SAT(&o);
        CHECK(x.r.value == want);
        bool bits_ok = true;
        for (int i = 0; i < 32; i++)
            bits_ok &= x.r.bits[i].kind == CZK_BOOL_IS && x.r.bits[i].val == ((want >> i) & 1);
        CHECK(bits_ok);
        /* 96 allocated operand bits, xor with a constant is free, 34 result bits and one
         * MultiEq row. */
        CHECK(o.counts.n_constraints == 96 + 34 + 1);
        czk_fr flip = fr_u64(!(want & 1));
        CHECK(tampered(&o, czk_bool_var(x.r.bits[0]), &flip) == (long)o.counts.n_constraints - 1);
        outcome_free(&o);
    }

    /* All-constant additions are constants (test_uint32_addmany_constants). */
    {
        czk_cs_config cfg = {.mode = CZK_CS_COUNT};
        czk_cs *cs = NULL;
        CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
        czk_multieq me;
        czk_multieq_init(&me, cs);
        czk_uint32 ops[3], r;
        uint32_t v[3] = {(uint32_t)czk_test_rand64(), (uint32_t)czk_test_rand64(), 0xffffffffu};
        for (int i = 0; i < 3; i++) czk_uint32_constant(&ops[i], v[i]);
        czk_uint32_addmany(&me, &r, ops, 3);
        czk_multieq_finish(&me);
        czk_multieq_free(&me);
        czk_cs_counts c;
        czk_cs_get_counts(cs, &c);
        CHECK(c.n_constraints == 0 && c.n_aux == 0 && r.value == v[0] + v[1] + v[2]);
        bool ok = true;
        for (int i = 0; i < 32; i++) ok &= r.bits[i].kind == CZK_BOOL_CONST;
        CHECK(ok);
        czk_cs_destroy(cs);
    }

    /* MultiEq batching: 34-bit results, 7 per row (238 < 254); the 8th addition's row is
     * enforced after its result bits, as upstream's MultiEq::enforce_equal does. */
    {
        u32_ctx x;
        memset(&x, 0, sizeof x);
        x.nadd = 10;
        for (int k = 0; k < 10; k++)
            for (int i = 0; i < 4; i++) x.words[k][i] = (uint32_t)czk_test_rand64();
        outcome o;
        run_modes(u32_batch_circuit, &x, &o, M_RECORD);
        CHECK_SAT(&o);
        CHECK(x.sums_ok);
        CHECK(o.counts.n_constraints == 10 * (4 * 32 + 34) + 2);
        /* Each addition: 128 operand bits, 34 result bits. Row 8·162 is the first MultiEq
         * row, after the 8th addition's result bits: B = ONE, C = 7·34 result bits. */
        uint64_t row = 8 * (4 * 32 + 34);
        const czk_r1cs *m = &o.r1cs;
        CHECK(m->b.row_ptr[row + 1] - m->b.row_ptr[row] == 1 && m->b.col[m->b.row_ptr[row]] == 0);
        CHECK(m->c.row_ptr[row + 1] - m->c.row_ptr[row] == 7 * 34);
        CHECK(m->a.row_ptr[row + 1] - m->a.row_ptr[row] == 7 * 4 * 32);
        /* The last row holds the remaining three additions. */
        uint64_t last = o.counts.n_constraints - 1;
        CHECK(m->c.row_ptr[last + 1] - m->c.row_ptr[last] == 3 * 34);
        outcome_free(&o);
    }
}

/* ------------------------------------------------------------------------------------ */
/* SHA-256                                                                              */
/* ------------------------------------------------------------------------------------ */

typedef struct sha_ctx {
    int kind;
    size_t nbytes;
    uint8_t msg[1248];
    czk_bool out[256];
    czk_var num;
} sha_ctx;

enum { SHA_BLANK, SHA_BLOCK, SHA_HASH, SHA_LEAF_BITS, SHA_NUMS2 };

static void alloc_msg_bits(czk_cs *cs, czk_bool *bits, const uint8_t *msg, size_t nbytes)
{
    for (size_t i = 0; i < 8 * nbytes; i++)
        bits[i] = czk_bit_alloc(cs, (msg[i / 8] >> (7 - i % 8)) & 1);
}

static czk_status sha_circuit(czk_cs *cs, void *p)
{
    sha_ctx *x = p;
    czk_bool in[1248 * 8];
    switch (x->kind) {
    case SHA_BLANK: { /* sha256.rs test_blank_hash: the padded empty message, constant */
        for (int i = 0; i < 512; i++) in[i] = czk_bool_const(i == 0);
        czk_uint32 iv[8], h[8];
        czk_sha256_circuit_iv(iv);
        czk_sha256_circuit_compress(cs, h, in, iv);
        for (int i = 0; i < 8; i++) czk_uint32_to_bits_be(x->out + 32 * i, &h[i]);
        break;
    }
    case SHA_BLOCK:
        alloc_msg_bits(cs, in, x->msg, 64);
        czk_sha256_circuit_block(cs, x->out, in);
        break;
    case SHA_HASH:
        alloc_msg_bits(cs, in, x->msg, x->nbytes);
        czk_sha256_circuit(cs, x->out, in, 8 * x->nbytes);
        break;
    case SHA_LEAF_BITS: {
        /* util.rs hash_leaf_bits_circuit: left and right as 256 bits each, least
         * significant bit of each byte first (bytes_into_boolean_vec), then
         * Sha256Function::hash_leaf_bits_circuit. */
        for (size_t i = 0; i < 512; i++) in[i] = czk_bit_alloc(cs, (x->msg[i / 8] >> (i % 8)) & 1);
        czk_bool pre[512];
        czk_bits_reverse_numbering(pre, in, 256);
        czk_bits_reverse_numbering(pre + 256, in + 256, 256);
        czk_sha256_circuit_hash_bits(cs, &x->num, pre, 512);
        break;
    }
    default: { /* Sha256Function::hash2_circuit of two numbers */
        czk_var v[2];
        for (int i = 0; i < 2; i++) {
            czk_fr f = fr_le_bytes(x->msg + 32 * i);
            v[i] = czk_cs_alloc(cs, &f);
        }
        czk_sha256_circuit_hash_nums(cs, &x->num, v, 2);
        break;
    }
    }
    return czk_cs_status(cs);
}

static void random_fr_bytes(uint8_t *b, size_t n32)
{
    czk_test_rand_bytes(b, 32 * n32);
    for (size_t i = 0; i < n32; i++) b[32 * i + 31] &= 0x3f;
}

static void test_sha256_counts_and_values(void)
{
    sha_ctx *x = czk_calloc(1, sizeof *x);
    outcome o;
    uint8_t bits[512], digest[32];

    /* test_blank_hash: no constraints, the digest of the empty message. */
    x->kind = SHA_BLANK;
    run_modes(sha_circuit, x, &o, M_RECORD | M_HASH);
    CHECK(o.counts.n_constraints == 0 && o.counts.n_aux == 0);
    sha256_evp(digest, NULL, 0);
    bits_be(bits, digest, 32);
    CHECK(bools_eq_bits(x->out, bits, 256));
    CHECK(digest[0] == 0xe3 && digest[31] == 0x55);
    outcome_free(&o);

    /* test_full_block: 25,840 constraints past the 512 input bits; the output is the bare
     * compression function of OpenSSL's SHA256_Transform. */
    x->kind = SHA_BLOCK;
    czk_test_rand_bytes(x->msg, 64);
    run_modes(sha_circuit, x, &o, M_RECORD);
    CHECK_SAT(&o);
    CHECK(o.counts.n_constraints - 512 == 25840);
    SHA256_CTX ctx;
    SHA256_Init(&ctx);
    SHA256_Transform(&ctx, x->msg);
    uint8_t state[32];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) state[4 * i + j] = (uint8_t)(ctx.h[i] >> (24 - 8 * j));
    bits_be(bits, state, 32);
    CHECK(bools_eq_bits(x->out, bits, 256));
    /* A wrong output bit breaks the circuit (the output bits are allocated). */
    czk_bool ob = x->out[0];
    if (ob.kind != CZK_BOOL_CONST) {
        czk_fr flip = fr_u64(ob.kind == CZK_BOOL_IS ? !ob.val : ob.val);
        CHECK(tampered(&o, czk_bool_var(ob), &flip) >= 0);
    }
    outcome_free(&o);

    /* test_full_hash: 44,874 past the input bits; the digest is OpenSSL's. */
    x->kind = SHA_HASH;
    x->nbytes = 64;
    czk_test_rand_bytes(x->msg, 64);
    run_modes(sha_circuit, x, &o, M_RECORD);
    CHECK_SAT(&o);
    CHECK(o.counts.n_constraints - 512 == 44874);
    sha256_evp(digest, x->msg, 64);
    bits_be(bits, digest, 32);
    CHECK(bools_eq_bits(x->out, bits, 256));
    outcome_free(&o);

    /* util.rs hash_leaf_bits_circuit: 45,387 constraints; the value is
     * trunc254(SHA-256(left ‖ right)) (Sha256Function::node). */
    x->kind = SHA_LEAF_BITS;
    random_fr_bytes(x->msg, 2);
    run_modes(sha_circuit, x, &o, 0);
    CHECK_SAT(&o);
    CHECK(o.counts.n_constraints == 45387);
    CHECK_STATUS(czk_sha256_nodes(digest, x->msg, 1), CZK_OK);
    czk_fr want = fr_le_bytes(digest);
    CHECK(czk_fr_eq(&o.z[zi(&o, x->num)], &want));
    outcome_free(&o);

    /* hash2_circuit of two numbers: 2·256 (to_bits_le) + SHA-256 of 512 bits with two
     * constant bits + 1 = 45,379, the per-level cost por_circuit.rs's SHA-256 base-2
     * count implies (272,295 = 6·(1 + 2 + 45,379) + 3). */
    x->kind = SHA_NUMS2;
    random_fr_bytes(x->msg, 2);
    run_modes(sha_circuit, x, &o, 0);
    CHECK_SAT(&o);
    CHECK(o.counts.n_constraints == 45379);
    CHECK_STATUS(czk_sha256_nodes(digest, x->msg, 1), CZK_OK);
    want = fr_le_bytes(digest);
    CHECK(czk_fr_eq(&o.z[zi(&o, x->num)], &want));
    outcome_free(&o);
    czk_free(x);
}

/* sha256.rs test_against_vectors: messages of 0..31 bytes and 32..248 in steps of 8. */
static void test_sha256_vectors(void)
{
    sha_ctx *x = czk_calloc(1, sizeof *x);
    int fails = 0;
    for (size_t len = 0; len < 256; len += len < 32 ? 1 : 8) {
        x->kind = SHA_HASH;
        x->nbytes = len;
        czk_test_rand_bytes(x->msg, len);
        outcome o;
        run_modes(sha_circuit, x, &o, len < 4 ? M_RECORD : 0);
        uint8_t digest[32], bits[256];
        sha256_evp(digest, x->msg, len);
        bits_be(bits, digest, 32);
        if (o.eval_bad >= 0 || o.rec_bad >= 0 || !bools_eq_bits(x->out, bits, 256)) fails++;
        /* Per block: 25,840 with every input bit allocated; the empty message has none. */
        if (len == 0 && o.counts.n_constraints != 0) fails++;
        outcome_free(&o);
    }
    CHECK(fails == 0);
    czk_free(x);
}

/* rust-fil-proofs create_label_circuit, as its test builds it: 37 parents and the
 * replica id as 256 allocated bits each (most significant bit of each byte first),
 * layer 3 and node 22 as constants. */
typedef struct label_ctx {
    uint8_t id[32], parents[37][32];
    czk_var out;
} label_ctx;

static czk_status label_circuit(czk_cs *cs, void *p)
{
    label_ctx *x = p;
    static czk_bool pre[1248 * 8];
    czk_bool parent_bits[37][256], id_bits[256];
    for (int i = 0; i < 37; i++) alloc_msg_bits(cs, parent_bits[i], x->parents[i], 32);
    alloc_msg_bits(cs, id_bits, x->id, 32);
    czk_uint32 layer;
    czk_uint64 node;
    czk_uint32_constant(&layer, 3);
    czk_uint64_constant(&node, 22);
    size_t n = 0;
    memcpy(pre, id_bits, sizeof id_bits);
    n = 256;
    czk_uint32_to_bits_be(pre + n, &layer);
    n += 32;
    czk_uint64_to_bits_be(pre + n, &node);
    n += 64;
    while (n < 512) pre[n++] = czk_bool_const(false);
    for (int i = 0; i < 37; i++) {
        memcpy(pre + n, parent_bits[i], sizeof parent_bits[i]);
        n += 256;
    }
    czk_bool digest[256], le[256];
    czk_sha256_circuit(cs, digest, pre, n);
    czk_bits_reverse_numbering(le, digest, 256);
    x->out = czk_multipack_pack_bits(cs, le, CZK_MULTIPACK_CAPACITY);
    return czk_cs_status(cs);
}

static void test_create_label(void)
{
    label_ctx *x = czk_calloc(1, sizeof *x);
    random_fr_bytes(x->id, 1);
    random_fr_bytes(&x->parents[0][0], 37);
    outcome o;
    run_modes(label_circuit, x, &o, 0);
    CHECK_SAT(&o);
    CHECK(o.counts.n_constraints == 532025);
    /* The label: trunc254(SHA-256(id ‖ layer BE32 ‖ node BE64 ‖ 0^20 ‖ parents)). */
    uint8_t pre[1248] = {0}, label[32];
    memcpy(pre, x->id, 32);
    pre[35] = 3;
    pre[43] = 22;
    memcpy(pre + 64, x->parents, sizeof x->parents);
    CHECK_STATUS(czk_sha256_trunc(label, pre, sizeof pre), CZK_OK);
    czk_fr want = fr_le_bytes(label);
    CHECK(czk_fr_eq(&o.z[zi(&o, x->out)], &want));
    outcome_free(&o);
    czk_free(x);
}

/* ------------------------------------------------------------------------------------ */
/* zcash's Sprout JoinSplit circuit (librustzcash zcash_proofs/src/circuit/sprout), built  */
/* from AllocatedBit, Boolean, sha256 and multipack only: its R1CS hash is upstream's     */
/* check of all of them at once.                                                           */
/* ------------------------------------------------------------------------------------ */

#define SPROUT_DEPTH 29

typedef struct note_value {
    czk_bool bits[64]; /* least significant first */
} note_value;

typedef struct sprout_ctx {
    uint64_t seed;
    uint64_t rng;
} sprout_ctx;

static bool sprout_bit(sprout_ctx *x)
{
    x->rng ^= x->rng << 13;
    x->rng ^= x->rng >> 7;
    x->rng ^= x->rng << 17;
    return x->rng & 1;
}

/* NoteValue::new with value 0 (every note value is zero: the witness then satisfies the
 * balance and lets `enforce` be zero). */
static void note_value_new(czk_cs *cs, note_value *v)
{
    for (int i = 0; i < 64; i++) v->bits[i] = czk_bit_alloc(cs, false);
}

static void note_value_lc(czk_lc *lc, const note_value *v)
{
    czk_fr coeff = CZK_FR_ONE;
    for (int i = 0; i < 64; i++) {
        czk_lc_add_term(lc, &coeff, czk_bool_var(v->bits[i]));
        czk_fr_dbl(&coeff, &coeff);
    }
}

/* NoteValue::bits_le: bytes in order, each byte's bits most significant first. */
static void note_value_bits_le(czk_bool out[64], const note_value *v)
{
    for (int i = 0; i < 64; i++) out[i] = v->bits[(i & ~7) + (7 - (i & 7))];
}

static void witness_bits(czk_cs *cs, sprout_ctx *x, czk_bool *out, int n)
{
    for (int i = 0; i < n; i++) out[i] = czk_bit_alloc(cs, sprout_bit(x));
}

/* prf: sha256_block_no_padding([a, b, c, d] ‖ x (252) ‖ y (256)). */
static void sprout_prf(czk_cs *cs, czk_bool out[256], int a, int b, int c, int d,
                       const czk_bool *x252, const czk_bool *y256)
{
    czk_bool img[512];
    img[0] = czk_bool_const(a);
    img[1] = czk_bool_const(b);
    img[2] = czk_bool_const(c);
    img[3] = czk_bool_const(d);
    memcpy(img + 4, x252, 252 * sizeof *img);
    memcpy(img + 256, y256, 256 * sizeof *img);
    czk_sha256_circuit_block(cs, out, img);
}

/* note_comm: sha256([1,0,1,1,0,0,0,0] ‖ a_pk ‖ value ‖ rho ‖ r). */
static void note_comm(czk_cs *cs, czk_bool out[256], const czk_bool *a_pk, const czk_bool *value,
                      const czk_bool *rho, const czk_bool *r)
{
    czk_bool img[8 + 256 + 64 + 256 + 256];
    static const int lead[8] = {1, 0, 1, 1, 0, 0, 0, 0};
    for (int i = 0; i < 8; i++) img[i] = czk_bool_const(lead[i]);
    memcpy(img + 8, a_pk, 256 * sizeof *img);
    memcpy(img + 264, value, 64 * sizeof *img);
    memcpy(img + 328, rho, 256 * sizeof *img);
    memcpy(img + 584, r, 256 * sizeof *img);
    czk_sha256_circuit(cs, out, img, 840);
}

/* conditionally_swap_u256 (input.rs). */
static void swap_u256(czk_cs *cs, czk_bool out[512], const czk_bool *lhs, const czk_bool *rhs,
                      czk_bool cond)
{
    for (int i = 0; i < 256; i++) {
        bool c = cond.val != 0;
        czk_bool xb = czk_bit_alloc(cs, c ? rhs[i].val : lhs[i].val);
        czk_lc a, b, cc;
        czk_lc_init(&a, cs);
        czk_lc_init(&b, cs);
        czk_lc_init(&cc, cs);
        czk_bool_lc_add(&a, rhs[i], NULL);
        czk_bool_lc_sub(&a, lhs[i], NULL);
        czk_lc_add(&b, czk_bool_var(cond));
        czk_bool_lc_add(&cc, xb, NULL);
        czk_bool_lc_sub(&cc, lhs[i], NULL);
        czk_cs_enforce(cs, &a, &b, &cc);
        czk_bool yb = czk_bit_alloc(cs, c ? lhs[i].val : rhs[i].val);
        czk_lc_clear(&a);
        czk_lc_clear(&cc);
        czk_bool_lc_add(&a, lhs[i], NULL);
        czk_bool_lc_sub(&a, rhs[i], NULL);
        czk_bool_lc_add(&cc, yb, NULL);
        czk_bool_lc_sub(&cc, rhs[i], NULL);
        czk_cs_enforce(cs, &a, &b, &cc);
        czk_lc_free(&a);
        czk_lc_free(&b);
        czk_lc_free(&cc);
        out[i] = xb;
        out[256 + i] = yb;
    }
}

static czk_status sprout_circuit(czk_cs *cs, void *p)
{
    sprout_ctx *x = p;
    x->rng = x->seed | 1;
    note_value vpub_old, vpub_new;
    note_value_new(cs, &vpub_old);
    note_value_new(cs, &vpub_new);
    czk_lc lhs, rhs, one, tmp;
    czk_lc_init(&lhs, cs);
    czk_lc_init(&rhs, cs);
    czk_lc_init(&one, cs);
    czk_lc_init(&tmp, cs);
    czk_lc_add(&one, czk_cs_one());
    note_value_lc(&lhs, &vpub_old);
    note_value_lc(&rhs, &vpub_new);
    static czk_bool rt[256], h_sig[256], phi[252], pub[2 * 256 + 4 * 256 + 2 * 256 + 128];
    witness_bits(cs, x, rt, 256);
    witness_bits(cs, x, h_sig, 256);
    witness_bits(cs, x, phi, 252);
    size_t npub = 0;
    static czk_bool nf[2][256], mac[2][256], cm[2][256];

    for (int in = 0; in < 2; in++) {
        note_value value;
        note_value_new(cs, &value);
        /* InputNote::compute */
        czk_bool a_sk[252], rho[256], r[256], a_pk[256], zeros[256], vbits[64], cur[256];
        witness_bits(cs, x, a_sk, 252);
        witness_bits(cs, x, rho, 256);
        witness_bits(cs, x, r, 256);
        for (int i = 0; i < 256; i++) zeros[i] = czk_bool_const(false);
        sprout_prf(cs, a_pk, 1, 1, 0, 0, a_sk, zeros);
        sprout_prf(cs, nf[in], 1, 1, 1, 0, a_sk, rho);
        sprout_prf(cs, mac[in], 0, in, 0, 0, a_sk, h_sig);
        note_value_bits_le(vbits, &value);
        note_comm(cs, cur, a_pk, vbits, rho, r);
        for (int layer = 0; layer < SPROUT_DEPTH; layer++) {
            czk_bool right = czk_bit_alloc(cs, sprout_bit(x));
            czk_bool sib[256], pre[512];
            witness_bits(cs, x, sib, 256);
            swap_u256(cs, pre, cur, sib, right);
            czk_sha256_circuit_block(cs, cur, pre);
        }
        czk_bool enf = czk_bit_alloc(cs, false); /* value is zero */
        /* value·(1 − enforce) = 0 */
        czk_lc a, b;
        czk_lc_init(&a, cs);
        czk_lc_init(&b, cs);
        note_value_lc(&a, &value);
        czk_lc_add(&b, czk_cs_one());
        czk_lc_sub(&b, czk_bool_var(enf));
        czk_cs_enforce(cs, &a, &b, NULL);
        /* (cur − rt)·enforce = 0 per bit */
        czk_lc_clear(&b);
        czk_lc_add(&b, czk_bool_var(enf));
        for (int i = 0; i < 256; i++) {
            czk_lc_clear(&a);
            czk_bool_lc_add(&a, cur[i], NULL);
            czk_bool_lc_sub(&a, rt[i], NULL);
            czk_cs_enforce(cs, &a, &b, NULL);
        }
        czk_lc_free(&a);
        czk_lc_free(&b);
        note_value_lc(&lhs, &value);
    }
    {
        note_value total;
        note_value_new(cs, &total);
        czk_lc_clear(&tmp);
        note_value_lc(&tmp, &total);
        czk_cs_enforce(cs, &lhs, &one, &tmp);
    }
    for (int out = 0; out < 2; out++) {
        note_value value;
        note_value_new(cs, &value);
        /* OutputNote::compute */
        czk_bool rho[256], a_pk[256], r[256], vbits[64];
        sprout_prf(cs, rho, 0, out, 1, 0, phi, h_sig);
        witness_bits(cs, x, a_pk, 256);
        witness_bits(cs, x, r, 256);
        note_value_bits_le(vbits, &value);
        note_comm(cs, cm[out], a_pk, vbits, rho, r);
        note_value_lc(&rhs, &value);
    }
    czk_cs_enforce(cs, &lhs, &one, &rhs);

    memcpy(pub + npub, rt, sizeof rt);
    npub += 256;
    memcpy(pub + npub, h_sig, sizeof h_sig);
    npub += 256;
    for (int in = 0; in < 2; in++) {
        memcpy(pub + npub, nf[in], sizeof nf[in]);
        npub += 256;
        memcpy(pub + npub, mac[in], sizeof mac[in]);
        npub += 256;
    }
    for (int out = 0; out < 2; out++) {
        memcpy(pub + npub, cm[out], sizeof cm[out]);
        npub += 256;
    }
    note_value_bits_le(pub + npub, &vpub_old);
    npub += 64;
    note_value_bits_le(pub + npub, &vpub_new);
    npub += 64;
    czk_multipack_pack_into_inputs(cs, pub, npub);
    czk_lc_free(&lhs);
    czk_lc_free(&rhs);
    czk_lc_free(&one);
    czk_lc_free(&tmp);
    return czk_cs_status(cs);
}

static void test_sprout_hash(void)
{
    sprout_ctx x = {czk_test_rand64(), 0};
    outcome o;
    run_modes(sprout_circuit, &x, &o, M_HASH);
    CHECK_SAT(&o);
    CHECK(o.counts.n_constraints == 1989085);
    CHECK(o.counts.n_inputs == 10);
    CHECK_MSG(strcmp(o.hex, "1a228d3c6377130d1778c7885811dc8b8864049cb5af8aff7e6cd46c5bc4b84c") ==
                  0,
              "hash %s", o.hex);
    outcome_free(&o);
}

/* ------------------------------------------------------------------------------------ */
/* Poseidon                                                                             */
/* ------------------------------------------------------------------------------------ */

typedef struct pos_ctx {
    const czk_poseidon_params *p;
    czk_poseidon_hash_type type;
    uint64_t param;
    czk_fr in[CZK_POSEIDON_MAX_ARITY];
    czk_var out;
} pos_ctx;

static czk_status pos_circuit(czk_cs *cs, void *p)
{
    pos_ctx *x = p;
    unsigned a = czk_poseidon_arity(x->p);
    czk_var v[CZK_POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < a; i++) v[i] = czk_cs_alloc(cs, &x->in[i]);
    return czk_poseidon_circuit(cs, &x->out, x->p, x->type, x->param, v);
}

static void test_poseidon(void)
{
    /* neptune circuit.rs test_poseidon_hash (standard strength); arity 11 from
     * rust-fil-proofs hash.rs test_hash_single_column_circuit. */
    static const unsigned arity[] = {2, 4, 8, 11, 16, 24, 36};
    static const uint64_t want_rows[] = {311, 377, 505, 598, 761, 1009, 1385};
    /* docs/formats.md §7: neptune's MerkleTree digests of [0, 1, …, arity − 1]. */
    static const char *merkle_kat[] = {
        "0x396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff",
        "0x58a54b10a9e5848a00db3c6579229399fb6b4605bf1327ec019814ff6662075d",
        "0x2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6",
        "0x0c0fc1b2e5227f286ca537e232ebe87a09f3dcd8ccb08fc1cee3bbc32b693163",
        "0x2d3ae2663381ae8ac1c2fb5a6f871e635b8dbc6d30680a6f1291c74060266d37",
        "0x63beb8831f11ae15066f39bf783f3d9fc3e779f6468815b1d7ef3569f585b321",
        "0x699303082a6e5d5f540a30e03c10bbaa75cd368df8a8ac3c4473606dfa4e8140",
    };
    pos_ctx x;
    for (size_t k = 0; k < sizeof arity / sizeof arity[0]; k++) {
        memset(&x, 0, sizeof x);
        x.p = czk_poseidon_params_get(arity[k]);
        x.type = CZK_POSEIDON_MERKLE_TREE;
        for (unsigned i = 0; i < arity[k]; i++) x.in[i] = fr_u64(i);
        outcome o;
        run_modes(pos_circuit, &x, &o, M_RECORD | M_HASH);
        CHECK_SAT(&o);
        CHECK_MSG(o.counts.n_constraints == want_rows[k], "arity %u: %llu rows", arity[k],
                  (unsigned long long)o.counts.n_constraints);
        czk_fr kat = fr_hex(merkle_kat[k]);
        CHECK(czk_fr_eq(&o.z[zi(&o, x.out)], &kat));
        /* A wrong result breaks the last row. */
        czk_fr bad = fr_u64(12345);
        CHECK(tampered(&o, x.out, &bad) == (long)o.counts.n_constraints - 1);
        outcome_free(&o);

        /* Random preimages against the native hash, three hash types. */
        for (int ty = 0; ty < 3; ty++) {
            x.type = ty == 0   ? CZK_POSEIDON_MERKLE_TREE
                     : ty == 1 ? CZK_POSEIDON_CUSTOM
                               : CZK_POSEIDON_CONSTANT_LENGTH;
            x.param = ty == 1 ? 1 : ty == 2 ? arity[k] : 0;
            for (unsigned i = 0; i < arity[k]; i++) x.in[i] = fr_rand();
            run_modes(pos_circuit, &x, &o, arity[k] <= 11 ? M_RECORD : 0);
            CHECK_SAT(&o);
            CHECK(o.counts.n_constraints == want_rows[k]);
            czk_fr nat;
            CHECK_STATUS(czk_poseidon_hash(&nat, x.p, x.type, x.param, x.in, arity[k]), CZK_OK);
            CHECK(czk_fr_eq(&o.z[zi(&o, x.out)], &nat));
            outcome_free(&o);
        }
    }

    /* Published vectors of other hash types (docs/formats.md §7). */
    memset(&x, 0, sizeof x);
    x.p = czk_poseidon_params_get(2);
    x.type = CZK_POSEIDON_MERKLE_TREE;
    x.in[0] = fr_u64(1);
    outcome o;
    run_modes(pos_circuit, &x, &o, 0);
    czk_fr kat = fr_hex("0x042f94ffbe786bc393c003cc74a24f26ec5907b3dc3094afb339ff6079800b5e");
    CHECK(czk_fr_eq(&o.z[zi(&o, x.out)], &kat)); /* rfp Poseidon2(1, 0) */
    outcome_free(&o);
    x.p = czk_poseidon_params_get(4);
    x.type = CZK_POSEIDON_CONSTANT_LENGTH;
    x.param = 4;
    for (unsigned i = 0; i < 4; i++) x.in[i] = fr_u64(i);
    run_modes(pos_circuit, &x, &o, 0);
    kat = fr_hex("0x3a21a6ae86754a2939443980077d75934984de08542c99778935b00a07909d45");
    CHECK(czk_fr_eq(&o.z[zi(&o, x.out)], &kat)); /* neptune ConstantLength(4), arity 4 */
    CHECK(o.counts.n_constraints == 377);
    outcome_free(&o);

    /* Unsupported types are refused. */
    czk_cs_config cfg = {.mode = CZK_CS_COUNT};
    czk_cs *cs = NULL;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
    czk_var v[2] = {czk_cs_alloc(cs, NULL), czk_cs_alloc(cs, NULL)}, out;
    CHECK_STATUS(czk_poseidon_circuit(cs, &out, czk_poseidon_params_get(2),
                                      CZK_POSEIDON_CONSTANT_LENGTH, 1, v),
                 CZK_EINVAL);
    czk_cs_destroy(cs);
}

/* ------------------------------------------------------------------------------------ */
/* Numbers, insertion, packing                                                          */
/* ------------------------------------------------------------------------------------ */

typedef struct ins_ctx {
    int op; /* 0 select, 1 insert */
    unsigned nbits, index;
    czk_fr vals[17];
    czk_var elems[17], out[16];
} ins_ctx;

static czk_status ins_circuit(czk_cs *cs, void *p)
{
    ins_ctx *x = p;
    unsigned size = 1u << x->nbits;
    unsigned nel = x->op == 0 ? size : size; /* insert: size − 1 elements and the new one */
    for (unsigned i = 0; i < nel; i++) x->elems[i] = czk_cs_alloc(cs, &x->vals[i]);
    czk_bool bits[8];
    for (unsigned i = 0; i < x->nbits; i++) bits[i] = czk_bit_alloc(cs, (x->index >> i) & 1);
    if (x->op == 0)
        x->out[0] = czk_num_select(cs, x->elems, bits, x->nbits);
    else
        czk_num_insert(cs, x->elems[size - 1], bits, x->nbits, x->elems, x->out);
    return czk_cs_status(cs);
}

/* insertion.rs test_select and test_insert. */
static void test_insertion(void)
{
    int fails = 0;
    for (int op = 0; op < 2; op++)
        for (unsigned nbits = 1; nbits <= 4; nbits++) {
            unsigned size = 1u << nbits;
            for (unsigned index = 0; index < size; index++) {
                ins_ctx x;
                memset(&x, 0, sizeof x);
                x.op = op;
                x.nbits = nbits;
                x.index = index;
                for (unsigned i = 0; i < size; i++) x.vals[i] = fr_rand();
                outcome o;
                run_modes(ins_circuit, &x, &o, M_RECORD);
                uint64_t own = o.counts.n_constraints - nbits;
                bool ok = o.eval_bad < 0 && o.rec_bad < 0;
                if (op == 0) {
                    ok = ok && own == size - 1 && czk_fr_eq(&o.z[zi(&o, x.out[0])], &x.vals[index]);
                } else {
                    uint64_t want = size == 8 ? 22 : size == 4 ? 8 : (uint64_t)size * (size - 1);
                    ok = ok && own == want;
                    /* element (vals[size−1]) at `index`, the others in order around it. */
                    for (unsigned pos = 0; pos < size; pos++) {
                        const czk_fr *w = pos < index    ? &x.vals[pos]
                                          : pos == index ? &x.vals[size - 1]
                                                         : &x.vals[pos - 1];
                        ok = ok && czk_fr_eq(&o.z[zi(&o, x.out[pos])], w);
                    }
                    czk_fr bad = fr_u64(7);
                    ok = ok && tampered(&o, x.out[index], &bad) >= 0;
                }
                if (!ok && fails++ < 5)
                    fprintf(stderr, "  op %d size %u index %u: %llu rows\n", op, size, index,
                            (unsigned long long)own);
                outcome_free(&o);
            }
        }
    CHECK(fails == 0);
}

typedef struct num_ctx {
    int op;
    czk_fr a, b;
    bool cond;
    czk_var out[4];
    czk_bool bits[255];
} num_ctx;

static czk_status num_circuit(czk_cs *cs, void *p)
{
    num_ctx *x = p;
    czk_var a = czk_cs_alloc(cs, &x->a), b = czk_cs_alloc(cs, &x->b);
    switch (x->op) {
    case 0:
        czk_num_to_bits_le(cs, a, x->bits);
        break;
    case 1:
        czk_num_to_bits_le_strict(cs, a, x->bits);
        break;
    case 2:
        x->out[0] = czk_num_add(cs, a, b);
        x->out[1] = czk_num_sub(cs, a, b);
        x->out[2] = czk_num_mul(cs, a, b);
        x->out[3] = czk_num_square(cs, a);
        break;
    case 3: {
        czk_bool c = czk_bit_alloc(cs, x->cond);
        czk_num_conditionally_reverse(cs, a, b, c, &x->out[0], &x->out[1]);
        x->out[2] = czk_num_pick(cs, c, a, b);
        break;
    }
    case 4:
        czk_num_assert_nonzero(cs, a);
        x->out[0] = czk_num_inputize(cs, b);
        czk_num_enforce_equal(cs, x->out[0], b);
        break;
    }
    return czk_cs_status(cs);
}

static void test_num(void)
{
    num_ctx x;
    outcome o;
    /* to_bits_le: 255 bits and one unpacking row (num.rs test_into_bits). */
    for (int it = 0; it < 5; it++) {
        memset(&x, 0, sizeof x);
        x.a = fr_rand();
        run_modes(num_circuit, &x, &o, M_RECORD);
        CHECK_SAT(&o);
        CHECK(o.counts.n_constraints == 256);
        uint64_t l[4];
        czk_fr_to_u64s(l, &x.a);
        bool ok = true;
        for (int i = 0; i < 255; i++) ok &= x.bits[i].val == ((l[i / 64] >> (i % 64)) & 1);
        CHECK(ok);
        czk_fr flip = fr_u64(!x.bits[7].val);
        CHECK(tampered(&o, czk_bool_var(x.bits[7]), &flip) == 255);
        outcome_free(&o);
    }
    /* to_bits_le_strict of −1 (num.rs test_into_bits_strict): satisfied; setting the least
     * significant bit to one (the bits then spell r) breaks a conditional boolean row.
     * 255 bits plus popcount(r − 1) − 1 ANDs plus the unpacking row = 255 + 133. */
    memset(&x, 0, sizeof x);
    x.op = 1;
    czk_fr_neg(&x.a, &CZK_FR_ONE);
    run_modes(num_circuit, &x, &o, M_RECORD);
    CHECK_SAT(&o);
    CHECK(o.counts.n_constraints == 255 + 133);
    czk_fr one = CZK_FR_ONE;
    long bad = tampered(&o, czk_bool_var(x.bits[0]), &one);
    CHECK(bad >= 0 && bad < (long)o.counts.n_constraints - 1);
    outcome_free(&o);
    for (int it = 0; it < 5; it++) {
        x.a = fr_rand();
        run_modes(num_circuit, &x, &o, M_RECORD);
        CHECK_SAT(&o);
        uint64_t l[4];
        czk_fr_to_u64s(l, &x.a);
        bool ok = true;
        for (int i = 0; i < 255; i++) ok &= x.bits[i].val == ((l[i / 64] >> (i % 64)) & 1);
        CHECK(ok && o.counts.n_constraints == 388);
        outcome_free(&o);
    }
    /* Arithmetic. */
    memset(&x, 0, sizeof x);
    x.op = 2;
    x.a = fr_rand();
    x.b = fr_rand();
    run_modes(num_circuit, &x, &o, M_RECORD);
    CHECK_SAT(&o);
    czk_fr w;
    czk_fr_add(&w, &x.a, &x.b);
    CHECK(czk_fr_eq(&o.z[zi(&o, x.out[0])], &w));
    czk_fr_sub(&w, &x.a, &x.b);
    CHECK(czk_fr_eq(&o.z[zi(&o, x.out[1])], &w));
    czk_fr_mul(&w, &x.a, &x.b);
    CHECK(czk_fr_eq(&o.z[zi(&o, x.out[2])], &w));
    czk_fr_sqr(&w, &x.a);
    CHECK(czk_fr_eq(&o.z[zi(&o, x.out[3])], &w));
    CHECK(o.counts.n_constraints == 4);
    for (int i = 0; i < 4; i++) CHECK(tampered(&o, x.out[i], &one) == i);
    outcome_free(&o);
    /* conditionally_reverse and pick (num.rs test_num_conditional_reversal). */
    for (int c = 0; c < 2; c++) {
        memset(&x, 0, sizeof x);
        x.op = 3;
        x.cond = c;
        x.a = fr_rand();
        x.b = fr_rand();
        run_modes(num_circuit, &x, &o, M_RECORD);
        CHECK_SAT(&o);
        CHECK(czk_fr_eq(&o.z[zi(&o, x.out[0])], c ? &x.b : &x.a));
        CHECK(czk_fr_eq(&o.z[zi(&o, x.out[1])], c ? &x.a : &x.b));
        CHECK(czk_fr_eq(&o.z[zi(&o, x.out[2])], c ? &x.a : &x.b));
        CHECK(tampered(&o, x.out[0], c ? &x.a : &x.b) == 1);
        outcome_free(&o);
    }
    /* assert_nonzero, inputize. */
    memset(&x, 0, sizeof x);
    x.op = 4;
    x.a = fr_rand();
    x.b = fr_rand();
    run_modes(num_circuit, &x, &o, M_RECORD);
    CHECK_SAT(&o);
    CHECK(o.counts.n_inputs == 2 && czk_fr_eq(&o.z[1], &x.b));
    czk_fr zero = CZK_FR_ZERO;
    czk_var av = {CZK_VAR_AUX | 0};
    CHECK(tampered(&o, av, &zero) == 0);
    outcome_free(&o);
    /* assert_nonzero of zero is refused with a witness. */
    czk_fr zb[4], rows[3];
    czk_cs_config cfg = {.mode = CZK_CS_EVAL,
                         .buf = {zb, 2, zb + 2, 2, rows, rows + 1, rows + 2, 1}};
    czk_cs *cs = NULL;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
    czk_num_assert_nonzero(cs, czk_cs_alloc(cs, &zero));
    CHECK(czk_cs_status(cs) != CZK_OK);
    czk_cs_destroy(cs);
}

typedef struct pack_ctx {
    size_t n;
    uint8_t bits[700];
    uint64_t u64;
    czk_var packed;
} pack_ctx;

static czk_status pack_circuit(czk_cs *cs, void *p)
{
    pack_ctx *x = p;
    czk_bool b[700];
    for (size_t i = 0; i < x->n; i++) {
        /* every kind of Boolean: allocated, negated, constant */
        switch (i % 3) {
        case 0:
            b[i] = czk_bit_alloc(cs, x->bits[i]);
            break;
        case 1:
            b[i] = czk_bool_not(czk_bit_alloc(cs, !x->bits[i]));
            break;
        default:
            b[i] = czk_bool_const(x->bits[i]);
            break;
        }
    }
    czk_multipack_pack_into_inputs(cs, b, x->n);
    x->packed = czk_multipack_pack_bits(cs, b, x->n);
    czk_uint64 u;
    czk_uint64_alloc(cs, &u, x->u64);
    czk_uint64_pack_into_input(cs, &u);
    return czk_cs_status(cs);
}

/* multipack.rs test_multipacking: the inputs equal compute_multipacking of the bits;
 * UInt64::pack_into_input gives the value. */
static void test_multipack(void)
{
    pack_ctx x;
    memset(&x, 0, sizeof x);
    x.n = 600;
    czk_test_rand_bytes(x.bits, x.n);
    for (size_t i = 0; i < x.n; i++) x.bits[i] &= 1;
    x.u64 = czk_test_rand64();
    outcome o;
    run_modes(pack_circuit, &x, &o, M_RECORD | M_HASH);
    CHECK_SAT(&o);
    czk_fr want[3];
    CHECK(czk_multipack_compute(want, x.bits, x.n) == 3);
    CHECK(o.counts.n_inputs == 1 + 3 + 1);
    for (int i = 0; i < 3; i++) CHECK(czk_fr_eq(&o.z[1 + i], &want[i]));
    CHECK(czk_fr_eq(&o.z[zi(&o, x.packed)], &want[0]));
    czk_fr u = fr_u64(x.u64);
    CHECK(czk_fr_eq(&o.z[4], &u));
    /* An input that disagrees with its bits breaks its packing row. */
    czk_var in1 = {1};
    czk_fr bad = fr_u64(5);
    CHECK(tampered(&o, in1, &bad) >= 0);
    outcome_free(&o);

    /* bytes_to_bits orders and reverse_bit_numbering. */
    uint8_t by[2] = {0x81, 0x02}, be[16], le[16];
    czk_multipack_bytes_to_bits(be, by, 2);
    czk_multipack_bytes_to_bits_le(le, by, 2);
    CHECK(be[0] == 1 && be[7] == 1 && be[14] == 1 && le[0] == 1 && le[7] == 1 && le[9] == 1);
    czk_bool in[10], out[16];
    for (int i = 0; i < 10; i++) in[i] = czk_bool_const(i == 0 || i == 9);
    CHECK(czk_bits_reverse_numbering(out, in, 10) == 16);
    CHECK(out[7].val == 1 && out[0].val == 0 && out[14].val == 1 && out[15].kind == CZK_BOOL_CONST);
}

/* ------------------------------------------------------------------------------------ */
/* Merkle inclusion                                                                     */
/* ------------------------------------------------------------------------------------ */

typedef struct por_ctx {
    czk_por_shape shape;
    const czk_merkle_path *path;
    czk_fr leaf, root;
    bool private_root;
} por_ctx;

static czk_status por_circuit_fn(czk_cs *cs, void *p)
{
    por_ctx *x = p;
    return czk_por_circuit(cs, &x->shape, NULL, &x->leaf, NULL, &x->root, x->path, x->private_root);
}

/* rust-fil-proofs storage-proofs-core/tests/por_circuit.rs: 64·(base trees) leaves. */
static void test_por_counts(void)
{
    static const struct {
        czk_merkle_hasher h;
        unsigned base, sub, top, levels;
        bool priv;
        uint64_t rows;
    } cases[] = {
        {CZK_MERKLE_POSEIDON, 2, 0, 0, 6, false, 1887},
        {CZK_MERKLE_POSEIDON, 4, 0, 0, 3, false, 1164},
        {CZK_MERKLE_POSEIDON, 8, 0, 0, 2, false, 1063},
        {CZK_MERKLE_POSEIDON, 8, 2, 0, 2, false, 1377},
        {CZK_MERKLE_POSEIDON, 8, 4, 2, 2, false, 1764},
        {CZK_MERKLE_POSEIDON, 8, 8, 0, 2, false, 1593},
        {CZK_MERKLE_POSEIDON, 8, 8, 2, 2, false, 1907},
        {CZK_MERKLE_POSEIDON, 8, 2, 4, 2, false, 1764},
        {CZK_MERKLE_SHA256, 2, 0, 0, 6, false, 272295},
        {CZK_MERKLE_SHA256, 4, 0, 0, 3, false, 216258},
        {CZK_MERKLE_SHA256, 8, 0, 0, 2, false, 250987},
        {CZK_MERKLE_POSEIDON, 2, 0, 0, 6, true, 1886},
        {CZK_MERKLE_POSEIDON, 4, 0, 0, 3, true, 1163},
        {CZK_MERKLE_POSEIDON, 8, 0, 0, 2, true, 1062},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        por_ctx x;
        memset(&x, 0, sizeof x);
        x.shape =
            (czk_por_shape){cases[k].h, cases[k].base, cases[k].sub, cases[k].top, cases[k].levels};
        x.private_root = cases[k].priv;
        czk_cs_config cfg = {.mode = CZK_CS_COUNT};
        czk_cs *cs = NULL;
        CHECK_STATUS(czk_cs_create(&cs, &cfg, NULL), CZK_OK);
        CHECK_STATUS(por_circuit_fn(cs, &x), CZK_OK);
        czk_cs_counts c;
        czk_cs_get_counts(cs, &c);
        CHECK_MSG(c.n_constraints == cases[k].rows && c.n_inputs == (cases[k].priv ? 2u : 3u),
                  "case %zu: %llu rows, %llu inputs", k, (unsigned long long)c.n_constraints,
                  (unsigned long long)c.n_inputs);
        czk_cs_destroy(cs);
    }
}

/* Real trees: the witness satisfies the circuit, the inputs are the challenge and the
 * root, and a wrong root does not satisfy it. */
static void test_por_eval(void)
{
    static const struct {
        czk_merkle_hasher h;
        unsigned base, sub, top;
        uint64_t leaves;
    } shapes[] = {
        {CZK_MERKLE_POSEIDON, 8, 0, 0, 64},   {CZK_MERKLE_POSEIDON, 8, 8, 0, 512},
        {CZK_MERKLE_POSEIDON, 8, 8, 2, 1024}, {CZK_MERKLE_POSEIDON, 2, 0, 0, 16},
        {CZK_MERKLE_POSEIDON, 4, 0, 0, 64},   {CZK_MERKLE_POSEIDON, 8, 4, 2, 512},
        {CZK_MERKLE_SHA256, 2, 0, 0, 8},
    };
    static uint8_t leaves[1024 * 32];
    static czk_merkle_path path;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        czk_merkle_config cfg = {shapes[k].h, shapes[k].base, shapes[k].sub, shapes[k].top, 0};
        uint64_t n = shapes[k].leaves;
        random_fr_bytes(leaves, n);
        czk_merkle_tree *tree = NULL;
        czk_err err;
        CHECK_STATUS(czk_merkle_build(&tree, &cfg, leaves, n, NULL, &err), CZK_OK);
        if (tree == NULL) continue;
        uint8_t root[32];
        czk_merkle_root(tree, root);
        for (int it = 0; it < 3; it++) {
            uint64_t idx = czk_test_rand64() % n;
            CHECK_STATUS(czk_merkle_prove(tree, idx, leaves, &path, &err), CZK_OK);
            por_ctx x;
            memset(&x, 0, sizeof x);
            unsigned levels = czk_merkle_levels(tree);
            x.shape = (czk_por_shape){cfg.hasher, cfg.base_arity, cfg.sub_arity, cfg.top_arity,
                                      levels - (cfg.sub_arity > 0) - (cfg.top_arity > 0)};
            x.path = &path;
            x.leaf = fr_le_bytes(leaves + 32 * idx);
            x.root = fr_le_bytes(root);
            outcome o;
            run_modes(por_circuit_fn, &x, &o, cfg.hasher == CZK_MERKLE_POSEIDON ? M_RECORD : 0);
            CHECK_SAT(&o);
            czk_fr ci = fr_u64(idx);
            CHECK(o.counts.n_inputs == 3 && czk_fr_eq(&o.z[1], &ci) && czk_fr_eq(&o.z[2], &x.root));
            outcome_free(&o);
            x.root = fr_u64(1);
            run_modes(por_circuit_fn, &x, &o, 0);
            CHECK(o.eval_bad == (long)o.counts.n_constraints - 2); /* computed root · 1 = root */
            outcome_free(&o);
        }
        czk_merkle_destroy(tree);
    }
}

/* por_no_challenge_input on a 8-8-2 tree (SnapDeals' use, por_circuit.rs
 * test_por_no_challenge_input_32kib_8_8_2 with 1024 leaves). */
typedef struct pnc_ctx {
    const czk_merkle_path *path;
    czk_fr leaf, root;
    uint64_t idx;
} pnc_ctx;

static czk_status pnc_circuit(czk_cs *cs, void *p)
{
    pnc_ctx *x = p;
    czk_por_shape shape = {CZK_MERKLE_POSEIDON, 8, 8, 2, 2};
    czk_var root = czk_cs_alloc(cs, &x->root);
    czk_var leaf = czk_cs_alloc(cs, &x->leaf);
    czk_bool bits[10];
    for (int i = 0; i < 10; i++) bits[i] = czk_bit_alloc(cs, (x->idx >> i) & 1);
    czk_var sibs[3 * 7 + 1];
    for (int i = 0; i < 3 * 7 + 1; i++) {
        czk_fr v = CZK_FR_ZERO;
        if (czk_cs_has_witness(cs)) v = fr_le_bytes(x->path->siblings[i]);
        sibs[i] = czk_cs_alloc(cs, &v);
    }
    return czk_por_no_challenge_input(cs, &shape, bits, leaf, sibs, root);
}

static void test_por_no_challenge_input(void)
{
    static uint8_t leaves[1024 * 32];
    static czk_merkle_path path;
    czk_merkle_config cfg = {CZK_MERKLE_POSEIDON, 8, 8, 2, 0};
    random_fr_bytes(leaves, 1024);
    czk_merkle_tree *tree = NULL;
    CHECK_STATUS(czk_merkle_build(&tree, &cfg, leaves, 1024, NULL, NULL), CZK_OK);
    if (tree == NULL) return;
    uint8_t root[32];
    czk_merkle_root(tree, root);
    pnc_ctx x;
    x.idx = czk_test_rand64() % 1024;
    CHECK_STATUS(czk_merkle_prove(tree, x.idx, leaves, &path, NULL), CZK_OK);
    x.path = &path;
    x.leaf = fr_le_bytes(leaves + 32 * x.idx);
    x.root = fr_le_bytes(root);
    outcome o;
    run_modes(pnc_circuit, &x, &o, M_RECORD);
    CHECK_SAT(&o);
    /* 10 bits; three octree levels (22 + 505), one binary (2 + 311); the root row. */
    CHECK(o.counts.n_constraints == 10 + 3 * (22 + 505) + (2 + 311) + 1 && o.counts.n_inputs == 1);
    czk_var rv = {CZK_VAR_AUX | 0};
    czk_fr bad = fr_u64(3);
    CHECK(tampered(&o, rv, &bad) == (long)o.counts.n_constraints - 1);
    outcome_free(&o);
    czk_merkle_destroy(tree);
}

/* ------------------------------------------------------------------------------------ */
/* Golden hashes                                                                        */
/* ------------------------------------------------------------------------------------ */

/*
 * R1CS hashes of czk's own gadget circuits, recorded from this implementation after it
 * reproduced every upstream number above. They are no independent reference: they catch
 * a later change to any gadget's structure (variable order, row order, coefficients).
 */
static czk_status golden_circuit(czk_cs *cs, void *p)
{
    int which = *(int *)p;
    if (which == 0) { /* every Boolean operation over every operand kind */
        for (int op = OP_XOR; op <= OP_MAJ; op++)
            for (int va = 0; va < 6; va++)
                for (int vb = 0; vb < 6; vb++) {
                    bool_ctx x = {.op = op, .v = {va, vb, (va + vb) % 6}};
                    bool_circuit(cs, &x);
                }
        return czk_cs_status(cs);
    }
    if (which == 1) { /* Poseidon 2, 8, 11 and Custom(1) */
        static const unsigned ar[] = {2, 8, 11};
        for (int k = 0; k < 3; k++) {
            pos_ctx x = {.p = czk_poseidon_params_get(ar[k]), .type = CZK_POSEIDON_MERKLE_TREE};
            pos_circuit(cs, &x);
        }
        pos_ctx x = {.p = czk_poseidon_params_get(2), .type = CZK_POSEIDON_CUSTOM, .param = 1};
        return pos_circuit(cs, &x);
    }
    if (which == 3) { /* numbers, insertion of 16, packing, a 64-bit word */
        for (int op = 0; op < 5; op++) {
            num_ctx x;
            memset(&x, 0, sizeof x);
            x.op = op;
            x.a = x.b = CZK_FR_ONE;
            num_circuit(cs, &x);
        }
        ins_ctx y;
        memset(&y, 0, sizeof y);
        y.op = 1;
        y.nbits = 4;
        ins_circuit(cs, &y);
        pack_ctx z;
        memset(&z, 0, sizeof z);
        z.n = 300;
        return pack_circuit(cs, &z);
    }
    /* PoR 8-8-2 with a public root, and a SHA-256 block */
    por_ctx x;
    memset(&x, 0, sizeof x);
    x.shape = (czk_por_shape){CZK_MERKLE_POSEIDON, 8, 8, 2, 2};
    por_circuit_fn(cs, &x);
    sha_ctx *s = czk_calloc(1, sizeof *s);
    s->kind = SHA_BLOCK;
    sha_circuit(cs, s);
    czk_free(s);
    return czk_cs_status(cs);
}

static void test_golden_hashes(void)
{
    static const char *want[] = {
        "330679be93402115ff0419bdbdb7174f2ffc1d9e27f263d9f2af32cd63227eec",
        "f84de34e1d5f754669751627e97f8dced475c8bc8cf5483a6b2dfe13031b1fc3",
        "f2f1a96f198144e5833df619c92cf1d86568ad6c56eea1870d6657314c6f443f",
        "a8b31e6b43064173a913bc574227974b19ab1dc6d0760db10b1324bf6d8d4f90",
    };
    for (int k = 0; k < 4; k++) {
        char hex[65];
        czk_cs_counts c;
        CHECK_STATUS(czk_cs_hash_circuit(golden_circuit, &k, hex, &c, NULL), CZK_OK);
        CHECK_MSG(strcmp(hex, want[k]) == 0, "golden %d: %s (%llu rows)", k, hex,
                  (unsigned long long)c.n_constraints);
    }
}

int main(void)
{
    czk_test_seed();
    RUN(test_allocated_bits);
    RUN(test_boolean_ops);
    RUN(test_boolean_direct_rows);
    RUN(test_enforce_equal);
    RUN(test_uint32);
    RUN(test_num);
    RUN(test_insertion);
    RUN(test_multipack);
    RUN(test_sha256_counts_and_values);
    RUN(test_sha256_vectors);
    RUN(test_create_label);
    RUN(test_poseidon);
    RUN(test_por_counts);
    RUN(test_por_eval);
    RUN(test_por_no_challenge_input);
    RUN(test_sprout_hash);
    RUN(test_golden_hashes);
    return czk_test_finish();
}
