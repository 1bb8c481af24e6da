/*
 * Numbers, bit packing and 64-bit words: bellpepper-core's AllocatedNum (gadgets/num.rs),
 * bellperson's multipack.rs, and rust-fil-proofs' constraint.rs, insertion.rs and
 * uint64.rs, constraint for constraint.
 *
 * Every gadget allocates its result before it enforces anything, as upstream's do; values
 * come from czk_cs_value (zero without a witness), so the same code runs in every mode.
 */
#include "gadgets/gadgets_internal.h"

#include <string.h>

/* One constraint's LCs on the stack. */
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

/* ------------------------------------------------------------------------------------ */
/* AllocatedNum                                                                         */
/* ------------------------------------------------------------------------------------ */

czk_var czk_num_inputize(czk_cs *cs, czk_var num)
{
    czk_var in = czk_cs_alloc_input(cs, czk_cs_value(cs, num));
    /* input·1 = num */
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, in);
    czk_lc_add(&l.b, czk_cs_one());
    czk_lc_add(&l.c, num);
    lc3_enforce_free(&l, cs);
    return in;
}

/* 0·0 = Σ 2^i·bit_i − num over n bits (LSB first): the unpacking constraint. */
static void enforce_unpacking(czk_cs *cs, czk_var num, const czk_bool *bits, unsigned n)
{
    const czk_fr *pow2 = czk__gadget_pow2();
    czk_lc c;
    czk_lc_init(&c, cs);
    for (unsigned i = 0; i < n; i++) czk_lc_add_term(&c, &pow2[i], czk_bool_var(bits[i]));
    czk_lc_sub(&c, num);
    czk_cs_enforce(cs, NULL, NULL, &c);
    czk_lc_free(&c);
}

void czk_num_to_bits_le(czk_cs *cs, czk_var num, czk_bool out[255])
{
    czk_bits_alloc_fr_le(cs, czk_cs_value(cs, num), out);
    enforce_unpacking(cs, num, out, 255);
}

/* kary_and of to_bits_le_strict: AND the bits one after the other; one bit is itself. */
static czk_bool kary_and(czk_cs *cs, const czk_bool *v, unsigned n)
{
    czk_bool cur = v[0];
    for (unsigned i = 1; i < n; i++) cur = czk_bit_and(cs, cur, v[i]);
    return cur;
}

void czk_num_to_bits_le_strict(czk_cs *cs, czk_var num, czk_bool out[255])
{
    /* The bits of a are compared with those of r − 1 from the top: inside a run of ones
     * of r − 1 a's bits are free; after a run ends, a bit of a under a zero of r − 1 must
     * be zero while every bit of the runs so far matched (last_run), which keeps a ≤ r − 1. */
    uint64_t rm1[4];
    memcpy(rm1, CZK_FR_MODULUS, sizeof rm1);
    rm1[0] -= 1; /* r is odd: no borrow */
    uint64_t a[4] = {0, 0, 0, 0};
    if (czk_cs_has_witness(cs)) czk_fr_to_u64s(a, czk_cs_value(cs, num));

    czk_bool result[255]; /* most significant first */
    czk_bool run[256];
    unsigned nres = 0, nrun = 0;
    czk_bool last_run = czk_bool_const(false);
    bool have_last = false, found_one = false;
    for (int pos = 255; pos >= 0; pos--) {
        bool b = (rm1[pos / 64] >> (pos % 64)) & 1;
        bool a_bit = (a[pos / 64] >> (pos % 64)) & 1;
        found_one |= b;
        if (!found_one) continue;
        if (b) {
            czk_bool bit = czk_bit_alloc(cs, a_bit);
            run[nrun++] = bit;
            result[nres++] = bit;
        } else {
            if (nrun > 0) {
                if (have_last) run[nrun++] = last_run;
                last_run = kary_and(cs, run, nrun);
                have_last = true;
                nrun = 0;
            }
            result[nres++] = czk_bit_alloc_conditionally(cs, a_bit, last_run);
        }
    }
    if (nres != 255) { /* cannot happen: r − 1 has 255 significant bits */
        czk_cs_fail(cs, CZK_EINTERNAL, "gadgets: to_bits_le_strict made %u bits", nres);
        return;
    }
    for (unsigned i = 0; i < 255; i++) out[i] = result[254 - i];
    enforce_unpacking(cs, num, out, 255);
}

czk_var czk_num_add(czk_cs *cs, czk_var a, czk_var b)
{
    czk_fr v;
    czk_fr_add(&v, czk_cs_value(cs, a), czk_cs_value(cs, b));
    czk_var c = czk_cs_alloc(cs, &v);
    czk_num_enforce_sum(cs, a, b, c);
    return c;
}

czk_var czk_num_sub(czk_cs *cs, czk_var a, czk_var b)
{
    czk_fr v;
    czk_fr_sub(&v, czk_cs_value(cs, a), czk_cs_value(cs, b));
    czk_var c = czk_cs_alloc(cs, &v);
    czk_num_enforce_difference(cs, a, b, c);
    return c;
}

czk_var czk_num_mul(czk_cs *cs, czk_var a, czk_var b)
{
    czk_fr v;
    czk_fr_mul(&v, czk_cs_value(cs, a), czk_cs_value(cs, b));
    czk_var c = czk_cs_alloc(cs, &v);
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, a);
    czk_lc_add(&l.b, b);
    czk_lc_add(&l.c, c);
    lc3_enforce_free(&l, cs);
    return c;
}

czk_var czk_num_square(czk_cs *cs, czk_var a)
{
    czk_fr v;
    czk_fr_sqr(&v, czk_cs_value(cs, a));
    czk_var c = czk_cs_alloc(cs, &v);
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, a);
    czk_lc_add(&l.b, a);
    czk_lc_add(&l.c, c);
    lc3_enforce_free(&l, cs);
    return c;
}

void czk_num_assert_nonzero(czk_cs *cs, czk_var a)
{
    czk_fr inv = CZK_FR_ZERO;
    if (czk_cs_has_witness(cs)) {
        const czk_fr *x = czk_cs_value(cs, a);
        if (czk_fr_is_zero(x))
            czk_cs_fail(cs, CZK_EINVAL, "gadgets: assert_nonzero of zero (division by zero)");
        else
            czk_fr_inv(&inv, x);
    }
    czk_var iv = czk_cs_alloc(cs, &inv);
    /* a·inv = 1 */
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, a);
    czk_lc_add(&l.b, iv);
    czk_lc_add(&l.c, czk_cs_one());
    lc3_enforce_free(&l, cs);
}

void czk_num_conditionally_reverse(czk_cs *cs, czk_var a, czk_var b, czk_bool cond, czk_var *c,
                                   czk_var *d)
{
    bool swap = cond.val != 0;
    *c = czk_cs_alloc(cs, czk_cs_value(cs, swap ? b : a));
    /* (a − b)·cond = a − c */
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, a);
    czk_lc_sub(&l.a, b);
    czk_bool_lc_add(&l.b, cond, NULL);
    czk_lc_add(&l.c, a);
    czk_lc_sub(&l.c, *c);
    lc3_enforce_free(&l, cs);

    *d = czk_cs_alloc(cs, czk_cs_value(cs, swap ? a : b));
    /* (b − a)·cond = b − d */
    lc3_init(&l, cs);
    czk_lc_add(&l.a, b);
    czk_lc_sub(&l.a, a);
    czk_bool_lc_add(&l.b, cond, NULL);
    czk_lc_add(&l.c, b);
    czk_lc_sub(&l.c, *d);
    lc3_enforce_free(&l, cs);
}

void czk_num_enforce_equal(czk_cs *cs, czk_var a, czk_var b)
{
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, a);
    czk_lc_add(&l.b, czk_cs_one());
    czk_lc_add(&l.c, b);
    lc3_enforce_free(&l, cs);
}

void czk_num_enforce_sum(czk_cs *cs, czk_var a, czk_var b, czk_var sum)
{
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, a);
    czk_lc_add(&l.a, b);
    czk_lc_add(&l.b, czk_cs_one());
    czk_lc_add(&l.c, sum);
    lc3_enforce_free(&l, cs);
}

void czk_num_enforce_difference(czk_cs *cs, czk_var a, czk_var b, czk_var diff)
{
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, diff);
    czk_lc_add(&l.a, b);
    czk_lc_add(&l.b, czk_cs_one());
    czk_lc_add(&l.c, a);
    lc3_enforce_free(&l, cs);
}

/* ------------------------------------------------------------------------------------ */
/* insertion.rs                                                                         */
/* ------------------------------------------------------------------------------------ */

czk_var czk_num_pick(czk_cs *cs, czk_bool cond, czk_var a, czk_var b)
{
    czk_var c = czk_cs_alloc(cs, czk_cs_value(cs, cond.val ? a : b));
    /* (b − a)·cond = b − c */
    lc3 l;
    lc3_init(&l, cs);
    czk_lc_add(&l.a, b);
    czk_lc_sub(&l.a, a);
    czk_bool_lc_add(&l.b, cond, NULL);
    czk_lc_add(&l.c, b);
    czk_lc_sub(&l.c, c);
    lc3_enforce_free(&l, cs);
    return c;
}

#define MAX_SELECT_BITS 8

czk_var czk_num_select(czk_cs *cs, const czk_var *from, const czk_bool *bits, unsigned nbits)
{
    if (nbits == 0 || nbits > MAX_SELECT_BITS) {
        czk_cs_fail(cs, CZK_EINVAL, "gadgets: select over 2^%u elements", nbits);
        return from[0];
    }
    czk_var state[1u << MAX_SELECT_BITS];
    size_t half = (size_t)1 << (nbits - 1);
    memcpy(state, from, 2 * half * sizeof *state);
    /* Most significant bit first: each pick halves the candidates. */
    for (unsigned i = 0; i < nbits; i++) {
        czk_bool bit = bits[nbits - 1 - i];
        for (size_t j = 0; j < half; j++)
            state[j] = czk_num_pick(cs, bit, state[half + j], state[j]);
        half /= 2;
    }
    return state[0];
}

static void insert_4(czk_cs *cs, czk_var a, const czk_bool *bits, const czk_var *e, czk_var *out)
{
    czk_bool b0 = bits[0], b1 = bits[1];
    czk_var b = e[0], c = e[1], d = e[2];
    czk_var p0_x0 = czk_num_pick(cs, b0, b, a);
    out[0] = czk_num_pick(cs, b1, b, p0_x0);
    czk_var p1_x0 = czk_num_pick(cs, b0, a, b);
    out[1] = czk_num_pick(cs, b1, c, p1_x0);
    czk_var p2_x1 = czk_num_pick(cs, b0, d, a);
    out[2] = czk_num_pick(cs, b1, p2_x1, c);
    czk_var p3_x1 = czk_num_pick(cs, b0, a, d);
    out[3] = czk_num_pick(cs, b1, p3_x1, d);
}

static void insert_8(czk_cs *cs, czk_var a, const czk_bool *bits, const czk_var *e, czk_var *out)
{
    czk_bool b0 = bits[0], b1 = bits[1], b2 = bits[2];
    if (b0.kind != CZK_BOOL_IS || b1.kind != CZK_BOOL_IS) {
        czk_cs_fail(cs, CZK_EINVAL, "gadgets: insert_8 needs allocated, unnegated bits");
        for (unsigned i = 0; i < 8; i++) out[i] = a;
        return;
    }
    czk_var b = e[0], c = e[1], d = e[2], ee = e[3], f = e[4], g = e[5], h = e[6];
    /* (1 − b0)·(1 − b1) and b0·b1, each used twice below. */
    czk_bool b0_nor_b1 = czk_bit_nor(cs, b0, b1);
    czk_bool b0_and_b1 = czk_bit_and(cs, b0, b1);

    czk_var p0_xx0 = czk_num_pick(cs, b0_nor_b1, a, b);
    out[0] = czk_num_pick(cs, b2, b, p0_xx0);

    czk_var p1_x00 = czk_num_pick(cs, b0, a, b);
    czk_var p1_xx0 = czk_num_pick(cs, b1, c, p1_x00);
    out[1] = czk_num_pick(cs, b2, c, p1_xx0);

    czk_var p2_x10 = czk_num_pick(cs, b0, d, a);
    czk_var p2_xx0 = czk_num_pick(cs, b1, p2_x10, c);
    out[2] = czk_num_pick(cs, b2, d, p2_xx0);

    czk_var p3_xx0 = czk_num_pick(cs, b0_and_b1, a, d);
    out[3] = czk_num_pick(cs, b2, ee, p3_xx0);

    czk_var p4_xx1 = czk_num_pick(cs, b0_nor_b1, a, f);
    out[4] = czk_num_pick(cs, b2, p4_xx1, ee);

    czk_var p5_x01 = czk_num_pick(cs, b0, a, f);
    czk_var p5_xx1 = czk_num_pick(cs, b1, g, p5_x01);
    out[5] = czk_num_pick(cs, b2, p5_xx1, f);

    czk_var p6_x11 = czk_num_pick(cs, b0, h, a);
    czk_var p6_xx1 = czk_num_pick(cs, b1, p6_x11, g);
    out[6] = czk_num_pick(cs, b2, p6_xx1, g);

    czk_var p7_xx1 = czk_num_pick(cs, b0_and_b1, a, h);
    out[7] = czk_num_pick(cs, b2, p7_xx1, h);
}

void czk_num_insert(czk_cs *cs, czk_var element, const czk_bool *bits, unsigned nbits,
                    const czk_var *elements, czk_var *out)
{
    if (nbits == 0 || nbits > MAX_SELECT_BITS) {
        czk_cs_fail(cs, CZK_EINVAL, "gadgets: insert into 2^%u positions", nbits);
        out[0] = element;
        return;
    }
    size_t size = (size_t)1 << nbits;
    if (size == 2) {
        out[0] = czk_num_pick(cs, bits[0], elements[0], element);
        out[1] = czk_num_pick(cs, bits[0], element, elements[0]);
        return;
    }
    if (size == 4) {
        insert_4(cs, element, bits, elements, out);
        return;
    }
    if (size == 8) {
        insert_8(cs, element, bits, elements, out);
        return;
    }
    /* The general algorithm: position pos of the result is picked among the values it
     * takes for each insertion index. */
    czk_var choices[1u << MAX_SELECT_BITS];
    for (size_t pos = 0; pos < size; pos++) {
        for (size_t index = 0; index < size; index++)
            choices[index] = pos < index    ? elements[pos]
                             : pos == index ? element
                                            : elements[pos - 1];
        out[pos] = czk_num_select(cs, choices, bits, nbits);
    }
}

/* ------------------------------------------------------------------------------------ */
/* multipack.rs                                                                         */
/* ------------------------------------------------------------------------------------ */

/* lc = Σ 2^i·bits[i] (Num::add_bool_with_coeff); its value is the packed value. */
static void pack_lc(czk_lc *lc, const czk_bool *bits, size_t n)
{
    const czk_fr *pow2 = czk__gadget_pow2();
    for (size_t i = 0; i < n; i++) czk_bool_lc_add(lc, bits[i], &pow2[i]);
}

void czk_multipack_pack_into_inputs(czk_cs *cs, const czk_bool *bits, size_t n)
{
    czk_lc lc, one, in;
    czk_lc_init(&lc, cs);
    czk_lc_init(&one, cs);
    czk_lc_init(&in, cs);
    czk_lc_add(&one, czk_cs_one());
    for (size_t off = 0; off < n; off += CZK_MULTIPACK_CAPACITY) {
        size_t len = n - off < CZK_MULTIPACK_CAPACITY ? n - off : CZK_MULTIPACK_CAPACITY;
        czk_lc_clear(&lc);
        pack_lc(&lc, bits + off, len);
        czk_var x = czk_cs_alloc_input(cs, czk_lc_value(&lc));
        /* num·1 = input */
        czk_lc_clear(&in);
        czk_lc_add(&in, x);
        czk_cs_enforce(cs, &lc, &one, &in);
    }
    czk_lc_free(&lc);
    czk_lc_free(&one);
    czk_lc_free(&in);
}

czk_var czk_multipack_pack_bits(czk_cs *cs, const czk_bool *bits, size_t n)
{
    if (n > CZK_MULTIPACK_CAPACITY) n = CZK_MULTIPACK_CAPACITY;
    lc3 l;
    lc3_init(&l, cs);
    pack_lc(&l.a, bits, n);
    czk_var x = czk_cs_alloc(cs, czk_lc_value(&l.a));
    /* num·1 = x */
    czk_lc_add(&l.b, czk_cs_one());
    czk_lc_add(&l.c, x);
    lc3_enforce_free(&l, cs);
    return x;
}

size_t czk_multipack_compute(czk_fr *out, const uint8_t *bits, size_t n)
{
    const czk_fr *pow2 = czk__gadget_pow2();
    size_t count = 0;
    for (size_t off = 0; off < n; off += CZK_MULTIPACK_CAPACITY) {
        size_t len = n - off < CZK_MULTIPACK_CAPACITY ? n - off : CZK_MULTIPACK_CAPACITY;
        czk_fr cur = CZK_FR_ZERO;
        for (size_t i = 0; i < len; i++)
            if (bits[off + i]) czk_fr_add(&cur, &cur, &pow2[i]);
        out[count++] = cur;
    }
    return count;
}

void czk_multipack_bytes_to_bits(uint8_t *bits, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned j = 0; j < 8; j++) bits[8 * i + j] = (bytes[i] >> (7 - j)) & 1;
}

void czk_multipack_bytes_to_bits_le(uint8_t *bits, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned j = 0; j < 8; j++) bits[8 * i + j] = (bytes[i] >> j) & 1;
}

/* ------------------------------------------------------------------------------------ */
/* uint64.rs                                                                            */
/* ------------------------------------------------------------------------------------ */

void czk_uint64_constant(czk_uint64 *out, uint64_t value)
{
    for (unsigned i = 0; i < 64; i++) out->bits[i] = czk_bool_const((value >> i) & 1);
    out->value = value;
}

void czk_uint64_alloc(czk_cs *cs, czk_uint64 *out, uint64_t value)
{
    czk_bits_alloc_u64_le(cs, value, out->bits);
    out->value = value;
}

void czk_uint64_to_bits_be(czk_bool out[64], const czk_uint64 *x)
{
    for (unsigned i = 0; i < 64; i++) out[i] = x->bits[63 - i];
}

void czk_uint64_pack_into_input(czk_cs *cs, const czk_uint64 *x)
{
    czk_multipack_pack_into_inputs(cs, x->bits, 64);
}
