/*
 * Private to src/cs and src/gadgets: the constraint system's object, and fast paths for
 * gadgets that know their constraints' merged LCs and values without building czk_lc
 * objects. They are inline because the boolean gadgets' rows, ≈95% of a PoRep
 * partition's constraints, cost only a few dozen instructions each on them.
 */
#ifndef CZK_CS_INTERNAL_H
#define CZK_CS_INTERNAL_H

#include "czk/cs.h"

/* Hash input is gathered here so EVP_DigestUpdate runs on large blocks. */
#define CZK__CS_HASH_BUF 8192

typedef struct czk__rec_mat {
    uint64_t *row_ptr;
    uint32_t *col; /* czk_var ids while recording, z indices after czk_cs_finish */
    czk_fr *val;
    uint64_t nnz, nnz_cap;
} czk__rec_mat;

struct czk_cs {
    czk_cs_mode mode;
    czk_status status;
    char msg[CZK_ERR_MSG_MAX];
    bool finished;
    bool witness; /* values are kept in buf.inputs / buf.aux */
    czk_cs_buffers buf;
    uint64_t n_inputs, n_aux, n_constraints;

    /* Density bitmaps, grown as variables are allocated. */
    uint64_t *a_aux_bits, *b_aux_bits;
    size_t aux_words;
    uint64_t *b_input_bits;
    size_t input_words;

    /* Sort/merge scratch for LCs that may hold duplicate variables. */
    czk_lc_term *scratch;
    size_t scratch_cap;
    /* Duplicate finder: open addressing over ids, entries (generation << 32 | id), so a
     * new generation empties the table without clearing it. */
    uint64_t *dup_tab;
    uint32_t dup_log; /* table size 2^dup_log */
    uint32_t dup_gen;

    /*
     * Fork/join (czk_cs_fork). A child's counters start at `lo_*`, the ids it allocates
     * itself; it may also read ids below `shared_*`, the parent's counts at the fork. A
     * plain cs has both at zero, so its valid ids are [0, n) as before. A child borrows
     * its parent's buffers and density bitmaps and sets bits atomically.
     */
    czk_cs *parent; /* non-NULL in a child */
    uint64_t lo_inputs, lo_aux, lo_constraints;
    uint64_t shared_inputs, shared_aux;
    /* Ids below these are valid with no further test: the counts in a plain cs, `shared_*`
     * in a child (whose own ids take var_valid's slower path). */
    uint64_t fast_inputs, fast_aux;

    /* RECORD. */
    czk_cs_record_sink sink; /* NULL: rows go into rec */
    void *sink_ctx;
    czk__rec_mat rec[3];
    size_t rec_rows_cap; /* entries of each row_ptr */
    bool r1cs_ready;

    /* HASH. */
    struct evp_md_ctx_st *md; /* OpenSSL's EVP_MD_CTX */
    uint64_t hash_expect[3];
    uint8_t digest[32];
    bool hash_ready;
    size_t hlen;
    uint8_t hbuf[CZK__CS_HASH_BUF];
};

/** k·R mod r for k = −2..2, indexed by k + 2: the values of boolean gadgets' rows.
 *  test_cs checks them against czk_fr_from_u64. */
extern const czk_fr czk__cs_fr_small[5];

static inline void czk__bit_set(uint64_t *w, uint32_t i)
{
    w[i >> 6] |= 1ULL << (i & 63);
}

/*
 * czk__bit_set for a fork's child: neighbouring children's variables share bitmap words, and
 * every child marks the prologue's variables. Most bits a child sets are already set (a
 * shared variable, or a variable used in many rows), so a relaxed load first keeps the
 * locked read-modify-write, and the cache line's ping-pong, off the common case.
 */
static inline void czk__bit_set_shared(uint64_t *w, uint32_t i)
{
    uint64_t m = 1ULL << (i & 63), *p = &w[i >> 6];
    if (!(__atomic_load_n(p, __ATOMIC_RELAXED) & m)) __atomic_fetch_or(p, m, __ATOMIC_RELAXED);
}

/** A fork child's test of an id past the shared ones (its own, or invalid). */
bool czk__cs_var_valid_slow(const czk_cs *cs, uint32_t id);

/*
 * Variable ids are checked on every LC term, so the common case is one comparison with
 * `fast_*`: in a plain cs the counts, in a fork's child the parent's counts at the fork.
 * Only a child's own ids (and invalid ids) take the second test, in which a child
 * rejects ids in [shared, lo), its siblings'. (Testing for a child on every term instead
 * cost 4% more instructions in the serial bench_cs eval.)
 */

static inline bool czk__cs_var_valid(const czk_cs *cs, uint32_t id)
{
    uint32_t i = id & ~CZK_VAR_AUX;
    uint64_t fast = (id & CZK_VAR_AUX) ? cs->fast_aux : cs->fast_inputs;
    if (__builtin_expect(i < fast, 1)) return true;
    return cs->parent != NULL && czk__cs_var_valid_slow(cs, id);
}

/**
 * czk_cs_enforce for a row whose values are small integers (−2..2) and whose merged A
 * and B are known to the caller, without building LCs: EVAL mode writes the values and
 * sets the density bits, WITNESS mode only counts. `a_ids` / `b_ids` are the variables of
 * A and B with a non-zero merged coefficient, each named once (ONE is input id 0; A's
 * inputs are not tracked, as in czk_cs_enforce); every variable of C must be among them
 * or allocated since the cs last failed. Returns false, having done nothing, where the
 * general path must run instead (another mode, a sticky error, a full buffer, an id the
 * cs does not know): the caller then builds the LCs and calls czk_cs_enforce, which
 * reports the error the same way it always does.
 *
 * The boolean gadgets' rows (≈95% of a PoRep partition's constraints are SHA-256's bit
 * constraints) through czk_lc cost three LC initialisations, four or five term pushes
 * (each a validity test, a capacity test, an order test and a field addition) and the
 * general enforce; here they cost one validity test and one bit per A/B variable and
 * three table copies.
 */
static inline bool czk__cs_enforce_small(czk_cs *cs, int a, int b, int c, const uint32_t *a_ids,
                                         unsigned na, const uint32_t *b_ids, unsigned nb)
{
    if (cs->status != CZK_OK || cs->finished) return false;
    if (cs->mode != CZK_CS_EVAL && cs->mode != CZK_CS_WITNESS) return false;
    for (unsigned i = 0; i < na; i++)
        if (!czk__cs_var_valid(cs, a_ids[i])) return false;
    for (unsigned i = 0; i < nb; i++)
        if (!czk__cs_var_valid(cs, b_ids[i])) return false;
    uint64_t j = cs->n_constraints;
    if (cs->mode == CZK_CS_EVAL) {
        if (j >= cs->buf.rows_cap) return false;
        cs->buf.a[j] = czk__cs_fr_small[a + 2];
        cs->buf.b[j] = czk__cs_fr_small[b + 2];
        cs->buf.c[j] = czk__cs_fr_small[c + 2];
        if (__builtin_expect(cs->parent != NULL, 0)) {
            for (unsigned i = 0; i < na; i++)
                if (a_ids[i] & CZK_VAR_AUX)
                    czk__bit_set_shared(cs->a_aux_bits, a_ids[i] & ~CZK_VAR_AUX);
            for (unsigned i = 0; i < nb; i++) {
                uint32_t id = b_ids[i];
                czk__bit_set_shared(id & CZK_VAR_AUX ? cs->b_aux_bits : cs->b_input_bits,
                                    id & ~CZK_VAR_AUX);
            }
        } else {
            for (unsigned i = 0; i < na; i++)
                if (a_ids[i] & CZK_VAR_AUX) czk__bit_set(cs->a_aux_bits, a_ids[i] & ~CZK_VAR_AUX);
            for (unsigned i = 0; i < nb; i++) {
                uint32_t id = b_ids[i];
                czk__bit_set(id & CZK_VAR_AUX ? cs->b_aux_bits : cs->b_input_bits,
                             id & ~CZK_VAR_AUX);
            }
        }
    }
    cs->n_constraints = j + 1;
    return true;
}

/**
 * czk_cs_alloc_bit's common case inline: EVAL or WITNESS mode with room in the buffers
 * and the bitmaps; anything else takes czk_cs_alloc_bit, which reports errors.
 */
static inline czk_var czk__cs_alloc_bit(czk_cs *cs, bool bit)
{
    uint64_t i = cs->n_aux;
    if (__builtin_expect(!cs->witness || cs->finished || i >= cs->buf.aux_cap ||
                             i >= (uint64_t)cs->aux_words * 64 || i >= CZK_CS_MAX_VARS,
                         0))
        return czk_cs_alloc_bit(cs, bit);
    cs->buf.aux[i] = czk__cs_fr_small[2 + bit];
    cs->n_aux = i + 1;
    if (cs->parent == NULL) cs->fast_aux = i + 1;
    czk_var v = {CZK_VAR_AUX | (uint32_t)i};
    return v;
}

/**
 * czk_cs_enforce of A·ONE = C given A's value and C's, and A's terms other than inputs:
 * `vars` distinct, `coeffs` their merged coefficients (zero ones are skipped, as merging
 * drops them). For MultiEq, whose lhs and rhs have equal values and whose rhs is only
 * read for its value. Same modes and same false as czk__cs_enforce_small.
 */
bool czk__cs_enforce_lin(czk_cs *cs, const uint32_t *vars, const czk_fr *coeffs, uint32_t n,
                         const czk_fr *a, const czk_fr *c);

#endif
