/*
 * 32-bit words and MultiEq: bellperson's uint32.rs and multieq.rs, constraint for
 * constraint.
 *
 * MultiEq. Upstream builds each addition's equality Σ_k Σ_j 2^j·op_k,j = Σ_i 2^i·r_i, and
 * MultiEq::enforce_equal scales both sides by 2^bits_used and adds them to a pending batch
 * (lhs, rhs); when an addition would not fit in the 254 bits of capacity, the pending batch
 * is enforced as lhs·1 = rhs first and the addition starts a new batch at offset 0. That
 * enforcement happens inside enforce_equal, i.e. after the addition's result bits (and
 * their boolean constraints) were allocated. czk writes every term straight into the batch
 * it ends up in, with its final coefficient 2^(j + offset) from a table (no scaling pass):
 * when the new addition does not fit, its terms go to the second batch while the first is
 * still pending, and the first is enforced after the result bits, where upstream enforces
 * it.
 *
 * Merging. One variable can occur in several additions of a batch (temp1's words feed
 * both SHA-256's new e and new a), and bellpepper's LinearCombination merges such terms
 * by summing their coefficients. The lhs is merged here as it is built (a small hash
 * table per MultiEq), and ONE's terms (constant-true bits, the ONE half of negated bits)
 * are summed into one coefficient, so the constraint system meets no duplicate in a
 * ~1,100-term LC and never sorts it: sorting was a fifth of SHA-256's eval time. The
 * merged LC — what every mode and the R1CS hash see — is upstream's.
 */
#include "gadgets/gadgets_internal.h"

#include "cs/cs_internal.h"

#include "czk/alloc.h"

#include <string.h>

/* Fr::CAPACITY: the bits one MultiEq constraint holds. */
#define CAPACITY 254u

/* ------------------------------------------------------------------------------------ */
/* MultiEq                                                                              */
/* ------------------------------------------------------------------------------------ */

/* The merge table: open addressing over variable ids, entries tagged with a generation
 * so that starting a new batch empties it without clearing it. 2^13 slots for at most
 * ~2,300 terms per batch (7 additions of 10 words). */
#define TAB_LOG  13
#define TAB_SIZE (1u << TAB_LOG)

void czk_multieq_init(czk_multieq *me, czk_cs *cs)
{
    memset(me, 0, sizeof *me);
    me->cs = cs;
    for (int k = 0; k < 2; k++) czk_lc_init(&me->rhs[k], cs);
    czk_lc_init(&me->lhs_lc, cs);
    me->tab_var = czk_malloc(TAB_SIZE * sizeof *me->tab_var);
    me->tab_info = czk_calloc(TAB_SIZE, sizeof *me->tab_info);
    me->gen = 1;
    czk_cs_mode mode = czk_cs_get_mode(cs);
    me->rhs_lc = mode == CZK_CS_RECORD || mode == CZK_CS_HASH;
    if (me->tab_var == NULL || me->tab_info == NULL)
        czk_cs_fail(cs, CZK_ENOMEM, "gadgets: out of memory for a MultiEq");
}

/* Start filling a new batch: forget the table's entries. */
static void new_generation(czk_multieq *me)
{
    if (++me->gen == 0x10000) {
        if (me->tab_info != NULL) memset(me->tab_info, 0, TAB_SIZE * sizeof *me->tab_info);
        me->gen = 1;
    }
}

/* side += c·v (negated when `neg`), merging a variable seen before in this batch. */
static void side_add(czk_multieq *me, czk__multieq_terms *t, uint32_t v, const czk_fr *c, bool neg)
{
    if (me->tab_info == NULL) return;
    uint32_t h = (v * 0x9e3779b1u) >> (32 - TAB_LOG);
    for (;;) {
        uint32_t info = me->tab_info[h];
        if ((info >> 16) != me->gen) break;
        if (me->tab_var[h] == v) {
            czk_fr *k = &t->coeff[info & 0xffff];
            if (neg)
                czk_fr_sub(k, k, c);
            else
                czk_fr_add(k, k, c);
            return;
        }
        h = (h + 1) & (TAB_SIZE - 1);
    }
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 512;
        uint32_t *nv = czk_realloc(t->var, cap * sizeof *nv);
        if (nv != NULL) t->var = nv;
        czk_fr *nc = nv != NULL ? czk_realloc(t->coeff, cap * sizeof *nc) : NULL;
        if (nc == NULL || cap > 0xffff) {
            czk_cs_fail(me->cs, CZK_ENOMEM, "gadgets: out of memory for a MultiEq batch");
            return;
        }
        t->coeff = nc;
        t->cap = cap;
    }
    t->var[t->n] = v;
    if (neg)
        czk_fr_neg(&t->coeff[t->n], c);
    else
        t->coeff[t->n] = *c;
    me->tab_var[h] = v;
    me->tab_info[h] = (me->gen << 16) | t->n;
    t->n++;
}

/* acc += v·2^off, for a 256-bit acc that stays below 2^254 (MultiEq's capacity). */
static void sum_add_shifted(uint64_t acc[4], uint64_t v, unsigned off)
{
    unsigned w = off / 64, s = off % 64;
    uint64_t part[2] = {v << s, s > 0 ? v >> (64 - s) : 0};
    unsigned carry = 0;
    for (unsigned i = w; i < 4; i++) {
        uint64_t add = i - w < 2 ? part[i - w] : 0;
        uint64_t x = acc[i] + add;
        unsigned c1 = x < add;
        uint64_t y = x + carry;
        carry = c1 | (y < x);
        acc[i] = y;
    }
}

/*
 * Enforce batch k: lhs·1 = rhs (MultiEq::accumulate), and empty it. Both sides have the
 * batch's value (each addition's lhs and rhs are the same integer), which EVAL mode keeps
 * as an integer; so the EVAL and WITNESS modes write the row from the merged terms alone,
 * without the ~1,000 field additions of an LC's value, and C's terms are built only in
 * the modes that read them. Where the direct row is refused, the general path runs with
 * whatever rhs there is: it then reports an error, after which C is never read.
 */
static void emit(czk_multieq *me, unsigned k)
{
    czk_cs *cs = me->cs;
    czk__multieq_terms *t = &me->lhs[k];
    if (!me->rhs_lc) {
        czk_fr value = CZK_FR_ZERO;
        if (czk_cs_get_mode(cs) == CZK_CS_EVAL) czk_fr_from_u64s(&value, t->sum);
        if (czk__cs_enforce_lin(cs, t->var, t->coeff, t->n, &value, &value)) {
            czk_lc_clear(&me->rhs[k]);
            t->n = 0;
            memset(t->one_sum, 0, sizeof t->one_sum);
            memset(t->sum, 0, sizeof t->sum);
            return;
        }
    }
    czk_lc *lhs = &me->lhs_lc;
    czk_lc_clear(lhs);
    for (uint32_t i = 0; i < t->n; i++) {
        czk_var v = {t->var[i]};
        czk_lc_add_term(lhs, &t->coeff[i], v);
    }
    czk_fr_from_u64s(&t->one, t->one_sum);
    czk_lc_add_const(lhs, &t->one);
    czk_lc one;
    czk_lc_init(&one, cs);
    czk_lc_add(&one, czk_cs_one());
    czk_cs_enforce(cs, lhs, &one, &me->rhs[k]);
    czk_lc_free(&one);
    czk_lc_clear(&me->rhs[k]);
    t->n = 0;
    memset(t->one_sum, 0, sizeof t->one_sum);
    memset(t->sum, 0, sizeof t->sum);
}

void czk_multieq_finish(czk_multieq *me)
{
    if (me->bits_used > 0) emit(me, me->cur);
    me->bits_used = 0;
    new_generation(me);
}

void czk_multieq_free(czk_multieq *me)
{
    for (int k = 0; k < 2; k++) {
        czk_free(me->lhs[k].var);
        czk_free(me->lhs[k].coeff);
        czk_lc_free(&me->rhs[k]);
    }
    czk_lc_free(&me->lhs_lc);
    czk_free(me->tab_var);
    czk_free(me->tab_info);
    memset(me, 0, sizeof *me);
}

/* ------------------------------------------------------------------------------------ */
/* UInt32                                                                               */
/* ------------------------------------------------------------------------------------ */

void czk_uint32_constant(czk_uint32 *out, uint32_t value)
{
    for (unsigned i = 0; i < 32; i++) out->bits[i] = czk_bool_const((value >> i) & 1);
    out->value = value;
}

void czk_uint32_alloc(czk_cs *cs, czk_uint32 *out, uint32_t value)
{
    for (unsigned i = 0; i < 32; i++) out->bits[i] = czk_bit_alloc(cs, (value >> i) & 1);
    out->value = value;
}

void czk_uint32_from_bits_be(czk_uint32 *out, const czk_bool bits[32])
{
    czk_uint32 t;
    t.value = 0;
    for (unsigned i = 0; i < 32; i++) {
        t.value = (t.value << 1) | bits[i].val;
        t.bits[31 - i] = bits[i];
    }
    *out = t;
}

void czk_uint32_from_bits_le(czk_uint32 *out, const czk_bool bits[32])
{
    czk_uint32 t;
    t.value = 0;
    for (unsigned i = 0; i < 32; i++) {
        t.value |= (uint32_t)bits[i].val << i;
        t.bits[i] = bits[i];
    }
    *out = t;
}

void czk_uint32_to_bits_be(czk_bool out[32], const czk_uint32 *x)
{
    for (unsigned i = 0; i < 32; i++) out[i] = x->bits[31 - i];
}

void czk_uint32_rotr(czk_uint32 *out, const czk_uint32 *x, unsigned by)
{
    by %= 32;
    czk_uint32 t;
    for (unsigned i = 0; i < 32; i++) t.bits[i] = x->bits[(i + by) % 32];
    t.value = by == 0 ? x->value : (x->value >> by) | (x->value << (32 - by));
    *out = t;
}

void czk_uint32_shr(czk_uint32 *out, const czk_uint32 *x, unsigned by)
{
    by %= 32;
    czk_uint32 t;
    for (unsigned i = 0; i < 32; i++)
        t.bits[i] = i + by < 32 ? x->bits[i + by] : czk_bool_const(false);
    t.value = x->value >> by;
    *out = t;
}

void czk_uint32_xor(czk_cs *cs, czk_uint32 *out, const czk_uint32 *a, const czk_uint32 *b)
{
    uint32_t v = a->value ^ b->value;
    for (unsigned i = 0; i < 32; i++) out->bits[i] = czk_bool_xor(cs, a->bits[i], b->bits[i]);
    out->value = v;
}

void czk_uint32_sha256_ch(czk_cs *cs, czk_uint32 *out, const czk_uint32 *a, const czk_uint32 *b,
                          const czk_uint32 *c)
{
    uint32_t v = (a->value & b->value) ^ (~a->value & c->value);
    for (unsigned i = 0; i < 32; i++)
        out->bits[i] = czk_bool_sha256_ch(cs, a->bits[i], b->bits[i], c->bits[i]);
    out->value = v;
}

void czk_uint32_sha256_maj(czk_cs *cs, czk_uint32 *out, const czk_uint32 *a, const czk_uint32 *b,
                           const czk_uint32 *c)
{
    uint32_t v = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    for (unsigned i = 0; i < 32; i++)
        out->bits[i] = czk_bool_sha256_maj(cs, a->bits[i], b->bits[i], c->bits[i]);
    out->value = v;
}

void czk_uint32_addmany(czk_multieq *me, czk_uint32 *out, const czk_uint32 *ops, unsigned n)
{
    czk_cs *cs = me->cs;
    if (n < 2 || n > 10) {
        czk_cs_fail(cs, CZK_EINVAL, "gadgets: addmany of %u operands (2..10)", n);
        czk_uint32_constant(out, 0);
        return;
    }
    /* Result bits: enough for n·(2^32 − 1). */
    uint64_t max_value = (uint64_t)n * 0xffffffffu;
    unsigned num_bits = 0;
    while (max_value != 0) {
        num_bits++;
        max_value >>= 1;
    }
    uint64_t sum = 0;
    for (unsigned k = 0; k < n; k++) sum += ops[k].value;
    bool all_constants = true;
    for (unsigned k = 0; k < n && all_constants; k++)
        for (unsigned j = 0; j < 32 && all_constants; j++)
            all_constants = czk_bool_is_const(ops[k].bits[j]);
    if (all_constants) {
        czk_uint32_constant(out, (uint32_t)sum);
        return;
    }

    /* The pair this addition lands in, and its offset (see the file comment). */
    bool flush = CAPACITY <= me->bits_used + num_bits;
    unsigned tgt = flush ? 1 - me->cur : me->cur;
    unsigned off = flush ? 0 : me->bits_used;
    const czk_fr *pow2 = czk__gadget_pow2() + off;
    if (flush) new_generation(me); /* the table now tracks the new batch */
    czk__multieq_terms *lhs = &me->lhs[tgt];
    czk_lc *rhs = &me->rhs[tgt];

    /* ONE's coefficient is summed as an integer (below n·2^32), shifted in once. */
    uint64_t one = 0;
    for (unsigned k = 0; k < n; k++) {
        for (unsigned j = 0; j < 32; j++) {
            czk_bool b = ops[k].bits[j];
            switch (b.kind) {
            case CZK_BOOL_CONST:
                one += (uint64_t)b.val << j;
                break;
            case CZK_BOOL_IS:
                side_add(me, lhs, b.var, &pow2[j], false);
                break;
            default: /* NOT: 2^j·(1 − bit) */
                one += (uint64_t)1 << j;
                side_add(me, lhs, b.var, &pow2[j], true);
                break;
            }
        }
    }
    sum_add_shifted(lhs->one_sum, one, off);
    czk_uint32 r;
    for (unsigned i = 0; i < num_bits; i++) {
        czk_bool b = czk_bit_alloc(cs, (sum >> i) & 1);
        if (me->rhs_lc) czk_lc_add_term(rhs, &pow2[i], czk_bool_var(b));
        if (i < 32) r.bits[i] = b; /* carry bits are discarded */
    }
    sum_add_shifted(lhs->sum, sum, off);
    if (flush) {
        emit(me, me->cur);
        me->cur = tgt;
        me->bits_used = 0;
    }
    me->bits_used += num_bits;
    r.value = (uint32_t)sum;
    *out = r;
}
