/*
 * Booleans: bellpepper-core's AllocatedBit and Boolean (gadgets/boolean.rs), constraint for
 * constraint. The case analysis of every Boolean operation follows upstream's match arms in
 * their order, because the first matching arm decides which circuit (if any) is built,
 * and the operand order inside AllocatedBit::xor decides which bit sits in A and which
 * in B.
 *
 * LCs live on the stack: CZK_LC_INLINE terms hold every LC built here, so nothing is
 * allocated and nothing needs freeing (czk__lc_release).
 */
#include "gadgets/gadgets_internal.h"

#include "cs/cs_internal.h"

#include <pthread.h>

/* ------------------------------------------------------------------------------------ */
/* Powers of two                                                                        */
/* ------------------------------------------------------------------------------------ */

static czk_fr pow2_table[CZK__POW2_COUNT];
static pthread_once_t pow2_once = PTHREAD_ONCE_INIT;

static void pow2_init(void)
{
    pow2_table[0] = CZK_FR_ONE;
    for (unsigned i = 1; i < CZK__POW2_COUNT; i++) czk_fr_dbl(&pow2_table[i], &pow2_table[i - 1]);
}

const czk_fr *czk__gadget_pow2(void)
{
    pthread_once(&pow2_once, pow2_init);
    return pow2_table;
}

/* ------------------------------------------------------------------------------------ */
/* Boolean::lc                                                                          */
/* ------------------------------------------------------------------------------------ */

void czk_bool_lc_add(czk_lc *lc, czk_bool b, const czk_fr *coeff)
{
    czk_var v = czk_bool_var(b);
    switch (b.kind) {
    case CZK_BOOL_CONST:
        if (b.val) {
            if (coeff == NULL)
                czk_lc_add(lc, czk_cs_one());
            else
                czk_lc_add_term(lc, coeff, czk_cs_one());
        }
        break;
    case CZK_BOOL_IS:
        if (coeff == NULL)
            czk_lc_add(lc, v);
        else
            czk_lc_add_term(lc, coeff, v);
        break;
    default: /* NOT: coeff·ONE − coeff·bit */
        if (coeff == NULL) {
            czk_lc_add(lc, czk_cs_one());
            czk_lc_sub(lc, v);
        } else {
            czk_lc_add_term(lc, coeff, czk_cs_one());
            czk_lc_sub_term(lc, coeff, v);
        }
        break;
    }
}

void czk_bool_lc_sub(czk_lc *lc, czk_bool b, const czk_fr *coeff)
{
    czk_var v = czk_bool_var(b);
    switch (b.kind) {
    case CZK_BOOL_CONST:
        if (b.val) {
            if (coeff == NULL)
                czk_lc_sub(lc, czk_cs_one());
            else
                czk_lc_sub_term(lc, coeff, czk_cs_one());
        }
        break;
    case CZK_BOOL_IS:
        if (coeff == NULL)
            czk_lc_sub(lc, v);
        else
            czk_lc_sub_term(lc, coeff, v);
        break;
    default:
        if (coeff == NULL) {
            czk_lc_sub(lc, czk_cs_one());
            czk_lc_add(lc, v);
        } else {
            czk_lc_sub_term(lc, coeff, czk_cs_one());
            czk_lc_add_term(lc, coeff, v);
        }
        break;
    }
}

/* ------------------------------------------------------------------------------------ */
/* AllocatedBit                                                                         */
/* ------------------------------------------------------------------------------------ */

/* Three LCs for one constraint. */
typedef struct lc3 {
    czk_lc a, b, c;
} lc3;

static inline void lc3_init(lc3 *l, czk_cs *cs)
{
    czk_lc_init(&l->a, cs);
    czk_lc_init(&l->b, cs);
    czk_lc_init(&l->c, cs);
}

static inline void lc3_enforce_free(lc3 *l, czk_cs *cs)
{
    czk_cs_enforce(cs, &l->a, &l->b, &l->c);
    czk__lc_release(&l->a);
    czk__lc_release(&l->b);
    czk__lc_release(&l->c);
}

/*
 * Fast rows (czk__cs_enforce_small): a row's values follow from its bits' values, and its
 * merged A and B from their variables, as long as no variable is ONE itself or occurs
 * twice in one LC (then coefficients would merge); such rows take the LC path.
 */
static inline bool aux_bit(czk_bool b)
{
    return b.kind != CZK_BOOL_CONST && (b.var & CZK_VAR_AUX) != 0;
}

/* The variables of Boolean::lc(b) for an IS, NOT or constant-true b: ONE for a NOT or a
 * true constant, the bit for IS and NOT. Returns the number written. */
static inline unsigned bool_ids(uint32_t *ids, czk_bool b)
{
    unsigned n = 0;
    if (b.kind != CZK_BOOL_IS) ids[n++] = 0;
    if (b.kind != CZK_BOOL_CONST) ids[n++] = b.var;
    return n;
}

static bool require_is(czk_cs *cs, czk_bool a, czk_bool b, const char *what)
{
    if (a.kind == CZK_BOOL_IS && b.kind == CZK_BOOL_IS) return true;
    czk_cs_fail(cs, CZK_EINVAL, "gadgets: %s needs allocated (IS) bits", what);
    return false;
}

czk_bool czk_bit_alloc(czk_cs *cs, bool value)
{
    czk_var v = czk__cs_alloc_bit(cs, value);
    /* (1 − b)·b = 0 */
    if (czk__cs_enforce_small(cs, !value, value, 0, &v.id, 1, &v.id, 1))
        return czk__bool_is(v, value);
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, czk_cs_one());
    czk_lc_sub(&l.a, v);
    czk_lc_add(&l.b, v);
    lc3_enforce_free(&l, cs);
    return czk__bool_is(v, value);
}

czk_bool czk_bit_alloc_conditionally(czk_cs *cs, bool value, czk_bool must_be_false)
{
    if (must_be_false.kind != CZK_BOOL_IS)
        czk_cs_fail(cs, CZK_EINVAL, "gadgets: alloc_conditionally needs an allocated bit");
    czk_var v = czk__cs_alloc_bit(cs, value);
    /* (1 − must_be_false − b)·b = 0 */
    if (aux_bit(must_be_false) && must_be_false.var != v.id) {
        uint32_t a_ids[2] = {must_be_false.var, v.id};
        if (czk__cs_enforce_small(cs, 1 - must_be_false.val - value, value, 0, a_ids, 2, &v.id, 1))
            return czk__bool_is(v, value);
    }
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, czk_cs_one());
    czk_lc_sub(&l.a, czk_bool_var(must_be_false));
    czk_lc_sub(&l.a, v);
    czk_lc_add(&l.b, v);
    lc3_enforce_free(&l, cs);
    return czk__bool_is(v, value);
}

/* The body of czk_bit_xor, inlined into the Boolean operations that call it. */
static inline czk_bool bit_xor(czk_cs *cs, czk_bool a, czk_bool b)
{
    require_is(cs, a, b, "AllocatedBit::xor");
    bool r = (a.val ^ b.val) != 0;
    czk_var rv = czk__cs_alloc_bit(cs, r);
    /* (a + a)·b = a + b − r; "a + a" merges to 2·a. */
    if (aux_bit(a) && aux_bit(b) &&
        czk__cs_enforce_small(cs, 2 * a.val, b.val, a.val + b.val - r, &a.var, 1, &b.var, 1))
        return czk__bool_is(rv, r);
    const czk_fr *two = &czk__gadget_pow2()[1];
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add_term(&l.a, two, czk_bool_var(a));
    czk_lc_add(&l.b, czk_bool_var(b));
    czk_lc_add(&l.c, czk_bool_var(a));
    czk_lc_add(&l.c, czk_bool_var(b));
    czk_lc_sub(&l.c, rv);
    lc3_enforce_free(&l, cs);
    return czk__bool_is(rv, r);
}

czk_bool czk_bit_xor(czk_cs *cs, czk_bool a, czk_bool b)
{
    return bit_xor(cs, a, b);
}

/* The body of czk_bit_and, inlined into the Boolean operations that call it. */
static inline czk_bool bit_and(czk_cs *cs, czk_bool a, czk_bool b)
{
    require_is(cs, a, b, "AllocatedBit::and");
    bool r = (a.val & b.val) != 0;
    czk_var rv = czk__cs_alloc_bit(cs, r);
    /* a·b = r */
    if (aux_bit(a) && aux_bit(b) &&
        czk__cs_enforce_small(cs, a.val, b.val, r, &a.var, 1, &b.var, 1))
        return czk__bool_is(rv, r);
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, czk_bool_var(a));
    czk_lc_add(&l.b, czk_bool_var(b));
    czk_lc_add(&l.c, rv);
    lc3_enforce_free(&l, cs);
    return czk__bool_is(rv, r);
}

czk_bool czk_bit_and(czk_cs *cs, czk_bool a, czk_bool b)
{
    return bit_and(cs, a, b);
}

/* The body of czk_bit_and_not, inlined into the Boolean operations that call it. */
static inline czk_bool bit_and_not(czk_cs *cs, czk_bool a, czk_bool b)
{
    require_is(cs, a, b, "AllocatedBit::and_not");
    bool r = a.val && !b.val;
    czk_var rv = czk__cs_alloc_bit(cs, r);
    /* a·(1 − b) = r */
    if (aux_bit(a) && aux_bit(b)) {
        uint32_t b_ids[2] = {0, b.var};
        if (czk__cs_enforce_small(cs, a.val, 1 - b.val, r, &a.var, 1, b_ids, 2))
            return czk__bool_is(rv, r);
    }
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, czk_bool_var(a));
    czk_lc_add(&l.b, czk_cs_one());
    czk_lc_sub(&l.b, czk_bool_var(b));
    czk_lc_add(&l.c, rv);
    lc3_enforce_free(&l, cs);
    return czk__bool_is(rv, r);
}

czk_bool czk_bit_and_not(czk_cs *cs, czk_bool a, czk_bool b)
{
    return bit_and_not(cs, a, b);
}

/* The body of czk_bit_nor, inlined into the Boolean operations that call it. */
static inline czk_bool bit_nor(czk_cs *cs, czk_bool a, czk_bool b)
{
    require_is(cs, a, b, "AllocatedBit::nor");
    bool r = !a.val && !b.val;
    czk_var rv = czk__cs_alloc_bit(cs, r);
    /* (1 − a)·(1 − b) = r */
    if (aux_bit(a) && aux_bit(b)) {
        uint32_t b_ids[2] = {0, b.var};
        if (czk__cs_enforce_small(cs, 1 - a.val, 1 - b.val, r, &a.var, 1, b_ids, 2))
            return czk__bool_is(rv, r);
    }
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, czk_cs_one());
    czk_lc_sub(&l.a, czk_bool_var(a));
    czk_lc_add(&l.b, czk_cs_one());
    czk_lc_sub(&l.b, czk_bool_var(b));
    czk_lc_add(&l.c, rv);
    lc3_enforce_free(&l, cs);
    return czk__bool_is(rv, r);
}

czk_bool czk_bit_nor(czk_cs *cs, czk_bool a, czk_bool b)
{
    return bit_nor(cs, a, b);
}

/* ------------------------------------------------------------------------------------ */
/* Boolean                                                                              */
/* ------------------------------------------------------------------------------------ */

/* The underlying allocated bit of an IS or NOT Boolean, as an IS Boolean. */
static inline czk_bool underlying(czk_bool b)
{
    return b.kind == CZK_BOOL_NOT ? czk_bool_not(b) : b;
}

static inline bool is_false(czk_bool b)
{
    return b.kind == CZK_BOOL_CONST && !b.val;
}
static inline bool is_true(czk_bool b)
{
    return b.kind == CZK_BOOL_CONST && b.val;
}

czk_bool czk_bool_xor(czk_cs *cs, czk_bool a, czk_bool b)
{
    if (is_false(a)) return b;
    if (is_false(b)) return a;
    if (is_true(a)) return czk_bool_not(b);
    if (is_true(b)) return czk_bool_not(a);
    if (a.kind == b.kind) /* (Is, Is) or (Not, Not): xor of the underlying bits */
        return bit_xor(cs, underlying(a), underlying(b));
    /* (Is, Not) or (Not, Is): not(xor(is, underlying(not))), the Is operand first. */
    czk_bool is = a.kind == CZK_BOOL_IS ? a : b;
    czk_bool nt = a.kind == CZK_BOOL_IS ? b : a;
    return czk_bool_not(bit_xor(cs, is, underlying(nt)));
}

czk_bool czk_bool_and(czk_cs *cs, czk_bool a, czk_bool b)
{
    if (is_false(a) || is_false(b)) return czk_bool_const(false);
    if (is_true(a)) return b;
    if (is_true(b)) return a;
    if (a.kind == CZK_BOOL_IS && b.kind == CZK_BOOL_NOT) return bit_and_not(cs, a, underlying(b));
    if (a.kind == CZK_BOOL_NOT && b.kind == CZK_BOOL_IS) return bit_and_not(cs, b, underlying(a));
    if (a.kind == CZK_BOOL_NOT) return bit_nor(cs, underlying(a), underlying(b));
    return bit_and(cs, a, b);
}

czk_bool czk_bool_or(czk_cs *cs, czk_bool a, czk_bool b)
{
    return czk_bool_not(czk_bool_and(cs, czk_bool_not(a), czk_bool_not(b)));
}

czk_bool czk_bool_sha256_ch(czk_cs *cs, czk_bool a, czk_bool b, czk_bool c)
{
    bool value = ((a.val && b.val) != (!a.val && c.val));
    bool ca = czk_bool_is_const(a), cb = czk_bool_is_const(b), cc = czk_bool_is_const(c);
    if (ca && cb && cc) return czk_bool_const(value);
    if (is_false(a)) return c;
    if (is_false(b)) return czk_bool_and(cs, czk_bool_not(a), c);
    if (is_false(c)) return czk_bool_and(cs, a, b);
    if (is_true(c)) return czk_bool_not(czk_bool_and(cs, a, czk_bool_not(b)));
    if (is_true(b)) return czk_bool_not(czk_bool_and(cs, czk_bool_not(a), czk_bool_not(c)));
    /* a constant true a, or no constant at all: the general circuit. */
    czk_var ch = czk__cs_alloc_bit(cs, value);
    /* (b − c)·a = ch − c */
    if (aux_bit(b) && aux_bit(c) && b.var != c.var && (a.kind != CZK_BOOL_CONST || a.val) &&
        (a.kind == CZK_BOOL_CONST || aux_bit(a))) {
        uint32_t a_ids[2] = {b.var, c.var}, b_ids[2];
        unsigned nb = bool_ids(b_ids, a);
        if (czk__cs_enforce_small(cs, b.val - c.val, a.val, value - c.val, a_ids, 2, b_ids, nb))
            return czk__bool_is(ch, value);
    }
    lc3 l;
    lc3_init(&l, cs);
    czk_bool_lc_add(&l.a, b, NULL);
    czk_bool_lc_sub(&l.a, c, NULL);
    czk_bool_lc_add(&l.b, a, NULL);
    czk_lc_add(&l.c, ch);
    czk_bool_lc_sub(&l.c, c, NULL);
    lc3_enforce_free(&l, cs);
    return czk__bool_is(ch, value);
}

czk_bool czk_bool_sha256_maj(czk_cs *cs, czk_bool a, czk_bool b, czk_bool c)
{
    bool value = ((a.val & b.val) ^ (a.val & c.val) ^ (b.val & c.val)) != 0;
    bool ca = czk_bool_is_const(a), cb = czk_bool_is_const(b), cc = czk_bool_is_const(c);
    if (ca && cb && cc) return czk_bool_const(value);
    if (is_false(a)) return czk_bool_and(cs, b, c);
    if (is_false(b)) return czk_bool_and(cs, a, c);
    if (is_false(c)) return czk_bool_and(cs, a, b);
    if (is_true(c)) return czk_bool_not(czk_bool_and(cs, czk_bool_not(a), czk_bool_not(b)));
    if (is_true(b)) return czk_bool_not(czk_bool_and(cs, czk_bool_not(a), czk_bool_not(c)));
    if (is_true(a)) return czk_bool_not(czk_bool_and(cs, czk_bool_not(b), czk_bool_not(c)));
    /* maj is allocated before b ∧ c: the order upstream allocates them in. */
    czk_var maj = czk__cs_alloc_bit(cs, value);
    czk_bool bc = czk_bool_and(cs, b, c);
    /* (bc + bc − b − c)·a = bc − maj */
    if (aux_bit(a) && aux_bit(b) && aux_bit(c) && aux_bit(bc) && b.var != c.var &&
        bc.var != b.var && bc.var != c.var) {
        uint32_t a_ids[3] = {bc.var, b.var, c.var}, b_ids[2];
        unsigned nb = bool_ids(b_ids, a);
        if (czk__cs_enforce_small(cs, 2 * bc.val - b.val - c.val, a.val, bc.val - value, a_ids, 3,
                                  b_ids, nb))
            return czk__bool_is(maj, value);
    }
    const czk_fr *two = &czk__gadget_pow2()[1];
    lc3 l;
    lc3_init(&l, cs);
    czk_bool_lc_add(&l.a, bc, two);
    czk_bool_lc_sub(&l.a, b, NULL);
    czk_bool_lc_sub(&l.a, c, NULL);
    czk_bool_lc_add(&l.b, a, NULL);
    czk_bool_lc_add(&l.c, bc, NULL);
    czk_lc_sub(&l.c, maj);
    lc3_enforce_free(&l, cs);
    return czk__bool_is(maj, value);
}

czk_status czk_bool_enforce_equal(czk_cs *cs, czk_bool a, czk_bool b)
{
    if (czk_bool_is_const(a) && czk_bool_is_const(b)) {
        if (a.val == b.val) return CZK_OK;
        return czk_cs_fail(cs, CZK_EINVAL, "gadgets: enforce_equal of unequal constants");
    }
    lc3 l;
    lc3_init(&l, cs);
    if (is_true(a) || is_true(b)) {
        /* 0·0 = 1 − x */
        czk_lc_add(&l.c, czk_cs_one());
        czk_bool_lc_sub(&l.c, is_true(a) ? b : a, NULL);
    } else if (is_false(a) || is_false(b)) {
        /* 0·0 = x */
        czk_bool_lc_add(&l.c, is_false(a) ? b : a, NULL);
    } else {
        czk_bool_lc_add(&l.c, a, NULL);
        czk_bool_lc_sub(&l.c, b, NULL);
    }
    lc3_enforce_free(&l, cs);
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Bit vectors                                                                          */
/* ------------------------------------------------------------------------------------ */

void czk_bits_alloc_u64_le(czk_cs *cs, uint64_t value, czk_bool out[64])
{
    for (unsigned i = 0; i < 64; i++) out[i] = czk_bit_alloc(cs, (value >> i) & 1);
}

void czk_bits_alloc_fr_le(czk_cs *cs, const czk_fr *value, czk_bool out[255])
{
    uint64_t l[4] = {0, 0, 0, 0};
    if (value != NULL && czk_cs_has_witness(cs)) czk_fr_to_u64s(l, value);
    /* Bits 0..254 of the canonical value (the field's NUM_BITS), least significant first;
     * bit 255 of a canonical value is always zero. */
    for (unsigned i = 0; i < 255; i++) out[i] = czk_bit_alloc(cs, (l[i / 64] >> (i % 64)) & 1);
}

size_t czk_bits_reverse_numbering(czk_bool *out, const czk_bool *in, size_t n)
{
    size_t padded = (n + 7) / 8 * 8;
    for (size_t i = 0; i < padded; i++) {
        /* out byte k, bit j ← in byte k, bit 7 − j */
        size_t src = (i & ~(size_t)7) + (7 - (i & 7));
        out[i] = src < n ? in[src] : czk_bool_const(false);
    }
    return padded;
}
