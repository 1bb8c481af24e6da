/*
 * The constraint system: one circuit-building API, four modes (see include/czk/cs.h).
 *
 * Evaluating mode is the hot path (≈130 M constraints per PoRep partition), so:
 *   - witness values live in the caller's flat arrays, read back by index;
 *   - an LC accumulates its value while it is built, with no multiplication for a term
 *     whose value is 0 or 1 or whose coefficient is ±1 (coefficient kind tags), so
 *     czk_cs_enforce only copies three values and sets density bits;
 *   - LC terms sit in the LC's inline storage or in heap storage the LC keeps across
 *     czk_lc_clear, so synthesis allocates nothing per constraint;
 *   - duplicates (bellpepper merges them) are only looked for where they matter: in
 *     EVAL/COUNT mode only the A and B densities depend on them, and an LC whose ids were
 *     added in strictly increasing order cannot hold any;
 *   - the gadgets that make nearly all of a partition's rows (SHA-256's bit operations,
 *     MultiEq) skip LCs altogether in EVAL and WITNESS modes: they know each row's values
 *     and merged A and B, and write them through cs_internal.h (czk__cs_enforce_small,
 *     czk__cs_enforce_lin), 2.8x less CPU time per 32 GiB PoRep partition than through
 *     LCs (bench_synth eval row, one thread).
 */
#include "czk/cs.h"
#include "czk/alloc.h"
#include "cs/cs_internal.h"
#include "ff/consts.h"
#include "ff/mont.h"

#include <inttypes.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4

static const uint64_t P[N] = CZK__FR_P;
static const czk_fr FR_ZERO = {{0}};
static const czk_fr FR_ONE = {CZK__FR_R};
/* k·R mod r for k = −2..2 (cs_internal.h). */
const czk_fr czk__cs_fr_small[5] = {
    {CZK__FR_SMALL_M2_MONT}, {CZK__FR_SMALL_M1_MONT}, {{0, 0, 0, 0}}, {CZK__FR_R},
    {CZK__FR_SMALL_2_MONT},
};
/* p − R: the Montgomery form of −1. */
static const czk_fr FR_MINUS_ONE = {
    {0xfffffffd00000003ULL, 0xfb38ec08fffb13fcULL, 0x99ad88181ce5880fULL, 0x5bc8f5f97cd877d8ULL}};

/* Initial density bitmap size when nothing says better: 2^16 variables. */
#define BITS_INITIAL (1u << 16)

/* ------------------------------------------------------------------------------------ */
/* Small helpers                                                                        */
/* ------------------------------------------------------------------------------------ */

static inline bool fr_is_zero(const czk_fr *a)
{
    return limbs_is_zero(a->l, N);
}
static inline bool fr_eq(const czk_fr *a, const czk_fr *b)
{
    return limbs_eq(a->l, b->l, N);
}
static inline void fr_add(czk_fr *r, const czk_fr *a, const czk_fr *b)
{
    mont_add(r->l, a->l, b->l, P, N);
}
static inline void fr_sub(czk_fr *r, const czk_fr *a, const czk_fr *b)
{
    mont_sub(r->l, a->l, b->l, P, N);
}

/* Coefficient kind of a non-zero coefficient; the caller filters zero. */
static inline uint32_t coeff_kind(const czk_fr *c)
{
    if (fr_eq(c, &FR_ONE)) return CZK_LC_COEFF_ONE;
    if (fr_eq(c, &FR_MINUS_ONE)) return CZK_LC_COEFF_MINUS_ONE;
    return CZK_LC_COEFF_GENERAL;
}

static inline const czk_fr *term_coeff(const czk_lc_term *t)
{
    if (t->kind == CZK_LC_COEFF_ONE) return &FR_ONE;
    if (t->kind == CZK_LC_COEFF_MINUS_ONE) return &FR_MINUS_ONE;
    return &t->coeff;
}

static czk_status cs_vfail(czk_cs *cs, czk_status s, const char *fmt, va_list ap)
{
    if (cs->status != CZK_OK) return cs->status;
    cs->status = s;
    vsnprintf(cs->msg, sizeof cs->msg, fmt, ap);
    /* After the first error nothing more is stored: values no longer go to the caller's
     * buffers, LC values stop accumulating. Counting goes on, so the counts say how
     * large the buffers must be. */
    cs->witness = false;
    return s;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static czk_status
cs_failf(czk_cs *cs, czk_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    czk_status r = cs_vfail(cs, s, fmt, ap);
    va_end(ap);
    return r;
}

czk_status czk_cs_fail(czk_cs *cs, czk_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    czk_status r = cs_vfail(cs, s == CZK_OK ? CZK_EINTERNAL : s, fmt, ap);
    va_end(ap);
    return r;
}

/* Grow a bitmap to hold at least `bits` bits, new words zero. */
static bool bits_grow(uint64_t **words, size_t *nwords, uint64_t bits)
{
    size_t need = (size_t)((bits + 63) / 64);
    if (need <= *nwords) return true;
    size_t n = *nwords > 0 ? *nwords : BITS_INITIAL / 64;
    while (n < need) n *= 2;
    uint64_t *w = czk_realloc(*words, n * sizeof *w);
    if (w == NULL) return false;
    memset(w + *nwords, 0, (n - *nwords) * sizeof *w);
    *words = w;
    *nwords = n;
    return true;
}

/* Grow both aux bitmaps (they share one size). */
static bool aux_bits_grow(czk_cs *cs, uint64_t bits)
{
    size_t words = cs->aux_words;
    if (!bits_grow(&cs->a_aux_bits, &words, bits)) return false;
    words = cs->aux_words;
    if (!bits_grow(&cs->b_aux_bits, &words, bits)) return false;
    cs->aux_words = words;
    return true;
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
}

/* ------------------------------------------------------------------------------------ */
/* Hash                                                                                 */
/* ------------------------------------------------------------------------------------ */

/*
 * The R1CS hash, exactly as bellpepper-core's TestConstraintSystem::hash (util_cs/
 * test_cs.rs; bellperson's is the same function) computes it. BLAKE2s with a 32-byte
 * digest, no key, salt or personalization, over:
 *
 *   u64 BE  number of inputs (ONE included)
 *   u64 BE  number of aux variables
 *   u64 BE  number of constraints
 *   then for every constraint in order, for each of its LCs A, B, C in that order:
 *     u64 BE  number of terms of the LC after merging duplicate variables (summing
 *             their coefficients) and dropping terms whose coefficient is zero
 *     per term, in variable order (all inputs by index, then all aux by index):
 *       1 byte   'I' (0x49) for an input, 'A' (0x41) for an aux variable
 *       u64 BE   the variable's index among the inputs / among the aux variables
 *       32 bytes the coefficient, canonical (not Montgomery), big-endian
 *
 * The digest is printed as 64 lowercase hex digits. Names and namespaces of variables
 * and constraints take no part in it, so this API needs none.
 */
static void hash_flush(czk_cs *cs)
{
    if (cs->hlen > 0 && EVP_DigestUpdate(cs->md, cs->hbuf, cs->hlen) != 1)
        cs_failf(cs, CZK_EINTERNAL, "cs: BLAKE2s update failed");
    cs->hlen = 0;
}

static inline uint8_t *hash_reserve(czk_cs *cs, size_t n)
{
    if (cs->hlen + n > CZK__CS_HASH_BUF) hash_flush(cs);
    uint8_t *p = cs->hbuf + cs->hlen;
    cs->hlen += n;
    return p;
}

/* Canonical big-endian bytes of 1 and of r − 1 = −1: ±1 coefficients skip the
 * conversion out of Montgomery form. */
static const uint8_t BE_ONE[32] = {[31] = 1};
static const uint8_t BE_MINUS_ONE[32] = {
    0x73, 0xed, 0xa7, 0x53, 0x29, 0x9d, 0x7d, 0x48, 0x33, 0x39, 0xd8, 0x08, 0x09, 0xa1, 0xd8, 0x05,
    0x53, 0xbd, 0xa4, 0x02, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00};

static void hash_lc(czk_cs *cs, const czk_lc_term *t, uint32_t n)
{
    put_be64(hash_reserve(cs, 8), n);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *p = hash_reserve(cs, 41);
        p[0] = (t[i].var & CZK_VAR_AUX) ? 'A' : 'I';
        put_be64(p + 1, t[i].var & ~CZK_VAR_AUX);
        if (t[i].kind == CZK_LC_COEFF_ONE)
            memcpy(p + 9, BE_ONE, 32);
        else if (t[i].kind == CZK_LC_COEFF_MINUS_ONE)
            memcpy(p + 9, BE_MINUS_ONE, 32);
        else
            czk_fr_to_bytes_be(p + 9, &t[i].coeff);
    }
}

static czk_status hash_start(czk_cs *cs)
{
    if (cs->md == NULL) cs->md = EVP_MD_CTX_new();
    if (cs->md == NULL || EVP_DigestInit_ex(cs->md, EVP_blake2s256(), NULL) != 1)
        return cs_failf(cs, CZK_EINTERNAL, "cs: BLAKE2s-256 unavailable from OpenSSL");
    cs->hlen = 0;
    uint8_t *p = hash_reserve(cs, 24);
    put_be64(p, cs->hash_expect[0]);
    put_be64(p + 8, cs->hash_expect[1]);
    put_be64(p + 16, cs->hash_expect[2]);
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Creation                                                                             */
/* ------------------------------------------------------------------------------------ */

static czk_status cs_configure(czk_cs *cs, const czk_cs_config *cfg, czk_err *err)
{
    const czk_cs_buffers *b = &cfg->buf;
    if ((unsigned)cfg->mode > CZK_CS_WITNESS)
        return czk_err_set(err, CZK_EINVAL, "cs: unknown mode %d", (int)cfg->mode);
    if ((b->inputs == NULL && b->inputs_cap > 0) || (b->aux == NULL && b->aux_cap > 0))
        return czk_err_set(err, CZK_EINVAL, "cs: witness buffer NULL with a capacity");
    bool witness = cfg->mode == CZK_CS_EVAL || cfg->mode == CZK_CS_WITNESS || b->inputs != NULL;
    if (witness && (b->inputs == NULL || b->inputs_cap < 1))
        return czk_err_set(err, CZK_EINVAL, "cs: witness needs an inputs buffer (ONE at 0)");
    if (cfg->mode == CZK_CS_EVAL && b->rows_cap > 0 &&
        (b->a == NULL || b->b == NULL || b->c == NULL))
        return czk_err_set(err, CZK_EINVAL, "cs: eval mode needs a, b and c buffers");

    cs->mode = cfg->mode;
    cs->status = CZK_OK;
    cs->msg[0] = '\0';
    cs->finished = false;
    cs->witness = witness;
    cs->buf = *b;
    if (!witness) {
        cs->buf.inputs = cs->buf.aux = NULL;
        cs->buf.inputs_cap = cs->buf.aux_cap = 0;
    }
    if (cfg->mode != CZK_CS_EVAL) {
        cs->buf.a = cs->buf.b = cs->buf.c = NULL;
        cs->buf.rows_cap = 0;
    }
    cs->n_inputs = cs->fast_inputs = 1;
    cs->n_aux = cs->fast_aux = 0;
    cs->n_constraints = 0;
    if (witness) cs->buf.inputs[0] = FR_ONE;

    /* Size the bitmaps for the buffers given, so EVAL mode never grows them. */
    uint64_t aux_bits = cs->buf.aux_cap > BITS_INITIAL ? cs->buf.aux_cap : BITS_INITIAL;
    if (!aux_bits_grow(cs, aux_bits) || !bits_grow(&cs->b_input_bits, &cs->input_words, 64))
        return czk_err_set(err, CZK_ENOMEM, "cs: out of memory for density bitmaps");
    memset(cs->a_aux_bits, 0, cs->aux_words * sizeof(uint64_t));
    memset(cs->b_aux_bits, 0, cs->aux_words * sizeof(uint64_t));
    memset(cs->b_input_bits, 0, cs->input_words * sizeof(uint64_t));

    for (int m = 0; m < 3; m++) cs->rec[m].nnz = 0;
    cs->r1cs_ready = false;
    cs->sink = NULL;
    cs->sink_ctx = NULL;
    if (cfg->mode == CZK_CS_RECORD) {
        for (int m = 0; m < 3; m++) {
            if (cs->rec[m].row_ptr == NULL) {
                cs->rec[m].row_ptr = czk_malloc(1024 * sizeof(uint64_t));
                if (cs->rec[m].row_ptr == NULL)
                    return czk_err_set(err, CZK_ENOMEM, "cs: out of memory for matrices");
            }
            cs->rec[m].row_ptr[0] = 0;
        }
        if (cs->rec_rows_cap == 0) cs->rec_rows_cap = 1024;
    }

    cs->hash_ready = false;
    if (cfg->mode == CZK_CS_HASH) {
        cs->hash_expect[0] = cfg->hash_n_inputs;
        cs->hash_expect[1] = cfg->hash_n_aux;
        cs->hash_expect[2] = cfg->hash_n_constraints;
        if (hash_start(cs) != CZK_OK) return czk_err_set(err, cs->status, "%s", cs->msg);
    }
    return CZK_OK;
}

czk_status czk_cs_create(czk_cs **out, const czk_cs_config *cfg, czk_err *err)
{
    *out = NULL;
    czk_cs *cs = czk_calloc(1, sizeof *cs);
    if (cs == NULL) return czk_err_set(err, CZK_ENOMEM, "cs: out of memory");
    czk_status s = cs_configure(cs, cfg, err);
    if (s != CZK_OK) {
        czk_cs_destroy(cs);
        return s;
    }
    *out = cs;
    return CZK_OK;
}

czk_status czk_cs_reset(czk_cs *cs, const czk_cs_config *cfg, czk_err *err)
{
    if (cs->parent != NULL) /* reconfiguring would resize the parent's bitmaps */
        return czk_err_set(err, CZK_EINVAL, "cs: reset of a fork's child");
    czk_status s = cs_configure(cs, cfg, err);
    if (s != CZK_OK) {
        /* Half-configured: refuse any further use until a reset succeeds. */
        cs->status = CZK_OK;
        cs_failf(cs, s, "cs: reset failed: %s", czk_strerror(s));
        cs->finished = true;
    }
    return s;
}

void czk_cs_destroy(czk_cs *cs)
{
    if (cs == NULL) return;
    if (cs->parent == NULL) { /* a child's bitmaps are its parent's */
        czk_free(cs->a_aux_bits);
        czk_free(cs->b_aux_bits);
        czk_free(cs->b_input_bits);
    }
    czk_free(cs->scratch);
    czk_free(cs->dup_tab);
    for (int m = 0; m < 3; m++) {
        czk_free(cs->rec[m].row_ptr);
        czk_free(cs->rec[m].col);
        czk_free(cs->rec[m].val);
    }
    if (cs->md != NULL) EVP_MD_CTX_free(cs->md);
    czk_free(cs);
}

czk_status czk_cs_set_record_sink(czk_cs *cs, czk_cs_record_sink sink, void *ctx)
{
    if (cs->mode != CZK_CS_RECORD || cs->n_constraints > 0 || cs->finished) return CZK_EINVAL;
    cs->sink = sink;
    cs->sink_ctx = ctx;
    return CZK_OK;
}

czk_cs_mode czk_cs_get_mode(const czk_cs *cs)
{
    return cs->mode;
}
bool czk_cs_has_witness(const czk_cs *cs)
{
    return cs->witness;
}
czk_status czk_cs_status(const czk_cs *cs)
{
    return cs->status;
}

/* ------------------------------------------------------------------------------------ */
/* Variables                                                                            */
/* ------------------------------------------------------------------------------------ */

static inline czk_var var_of(uint32_t id)
{
    czk_var v = {id};
    return v;
}

static inline czk_var alloc_aux(czk_cs *cs, const czk_fr *value)
{
    uint64_t i = cs->n_aux;
    if (cs->finished || i >= CZK_CS_MAX_VARS) {
        cs_failf(cs, CZK_EINVAL,
                 cs->finished ? "cs: alloc after finish" : "cs: more than 2^31-1 aux variables");
        return var_of(CZK_VAR_AUX | CZK_CS_MAX_VARS);
    }
    if (i >= (uint64_t)cs->aux_words * 64) {
        /* A child's bitmaps are its parent's and other children's: never moved. */
        if (cs->parent != NULL) {
            cs_failf(cs, CZK_ERESOURCE, "cs: aux %" PRIu64 " past a fork's density bitmaps", i);
            return var_of(CZK_VAR_AUX | CZK_CS_MAX_VARS);
        }
        if (!aux_bits_grow(cs, i + 1)) {
            cs_failf(cs, CZK_ENOMEM, "cs: out of memory for density bitmaps");
            return var_of(CZK_VAR_AUX | CZK_CS_MAX_VARS);
        }
    }
    if (cs->witness) {
        if (i >= cs->buf.aux_cap)
            cs_failf(cs, CZK_ERESOURCE, "cs: aux buffer full (%zu values)", cs->buf.aux_cap);
        else if (value == NULL)
            cs_failf(cs, CZK_EINVAL, "cs: aux %" PRIu64 " allocated without a value", i);
        else
            cs->buf.aux[i] = *value;
    }
    cs->n_aux = i + 1;
    if (cs->parent == NULL) cs->fast_aux = i + 1;
    return var_of(CZK_VAR_AUX | (uint32_t)i);
}

czk_var czk_cs_alloc(czk_cs *cs, const czk_fr *value)
{
    return alloc_aux(cs, value);
}

czk_var czk_cs_alloc_bit(czk_cs *cs, bool bit)
{
    return alloc_aux(cs, bit ? &FR_ONE : &FR_ZERO);
}

czk_var czk_cs_alloc_input(czk_cs *cs, const czk_fr *value)
{
    uint64_t i = cs->n_inputs;
    if (cs->finished || i >= CZK_CS_MAX_VARS) {
        cs_failf(cs, CZK_EINVAL,
                 cs->finished ? "cs: alloc after finish" : "cs: more than 2^31-1 inputs");
        return var_of(CZK_CS_MAX_VARS);
    }
    if (i >= (uint64_t)cs->input_words * 64) {
        if (cs->parent != NULL) {
            cs_failf(cs, CZK_ERESOURCE, "cs: input %" PRIu64 " past a fork's density bitmaps", i);
            return var_of(CZK_CS_MAX_VARS);
        }
        if (!bits_grow(&cs->b_input_bits, &cs->input_words, i + 1)) {
            cs_failf(cs, CZK_ENOMEM, "cs: out of memory for density bitmaps");
            return var_of(CZK_CS_MAX_VARS);
        }
    }
    if (cs->witness) {
        if (i >= cs->buf.inputs_cap)
            cs_failf(cs, CZK_ERESOURCE, "cs: inputs buffer full (%zu values)", cs->buf.inputs_cap);
        else if (value == NULL)
            cs_failf(cs, CZK_EINVAL, "cs: input %" PRIu64 " allocated without a value", i);
        else
            cs->buf.inputs[i] = *value;
    }
    cs->n_inputs = i + 1;
    if (cs->parent == NULL) cs->fast_inputs = i + 1;
    return var_of((uint32_t)i);
}

bool czk__cs_var_valid_slow(const czk_cs *cs, uint32_t id)
{
    uint64_t i = id & ~CZK_VAR_AUX;
    if (id & CZK_VAR_AUX) return i >= cs->lo_aux && i < cs->n_aux;
    return i >= cs->lo_inputs && i < cs->n_inputs;
}

/* Value of a valid variable while cs->witness holds: every allocated one is stored. */
static inline const czk_fr *value_of(const czk_cs *cs, uint32_t id)
{
    uint32_t i = id & ~CZK_VAR_AUX;
    return (id & CZK_VAR_AUX) ? &cs->buf.aux[i] : &cs->buf.inputs[i];
}

const czk_fr *czk_cs_value(czk_cs *cs, czk_var v)
{
    if (!czk__cs_var_valid(cs, v.id)) {
        cs_failf(cs, CZK_EINVAL, "cs: value of unknown variable 0x%08x", v.id);
        return &FR_ZERO;
    }
    if (!cs->witness) return &FR_ZERO;
    return value_of(cs, v.id);
}

bool czk_cs_value_bit(czk_cs *cs, czk_var v)
{
    return !fr_is_zero(czk_cs_value(cs, v));
}

/* ------------------------------------------------------------------------------------ */
/* Linear combinations                                                                  */
/* ------------------------------------------------------------------------------------ */

static inline czk_lc_term *lc_terms(czk_lc *lc)
{
    return lc->heap != NULL ? lc->heap : lc->inl;
}
static inline const czk_lc_term *lc_cterms(const czk_lc *lc)
{
    return lc->heap != NULL ? lc->heap : lc->inl;
}

void czk_lc_init(czk_lc *lc, czk_cs *cs)
{
    lc->cs = cs;
    lc->heap = NULL;
    lc->len = 0;
    lc->cap = CZK_LC_INLINE;
    lc->unsorted = 0;
    lc->pad_ = 0;
    lc->value = FR_ZERO;
}

void czk_lc_free(czk_lc *lc)
{
    czk_free(lc->heap);
    lc->heap = NULL;
    lc->len = 0;
    lc->cap = CZK_LC_INLINE;
    lc->unsorted = 0;
    lc->value = FR_ZERO;
}

void czk_lc_clear(czk_lc *lc)
{
    lc->len = 0;
    lc->unsorted = 0;
    lc->value = FR_ZERO;
}

static bool lc_reserve(czk_lc *lc, uint32_t need)
{
    if (need <= lc->cap) return true;
    uint64_t cap = lc->cap;
    while (cap < need) cap *= 2;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    czk_lc_term *h = czk_realloc(lc->heap, (size_t)cap * sizeof *h);
    if (h == NULL) {
        cs_failf(lc->cs, CZK_ENOMEM, "cs: out of memory for a %u-term LC", need);
        return false;
    }
    if (lc->heap == NULL) memcpy(h, lc->inl, (size_t)lc->len * sizeof *h);
    lc->heap = h;
    lc->cap = (uint32_t)cap;
    return true;
}

/*
 * value += coeff·x where coeff has kind `kind`. A ±1 coefficient costs one addition or
 * subtraction, whatever x is. A general coefficient (packing's 2^i) with a bit value adds
 * the coefficient masked by the bit: no multiplication, and no branch on the bit, whose
 * value is as unpredictable as the witness (a branch on it cost ~20% of eval time in
 * bench_cs). Only a general coefficient times a general value multiplies.
 */
static inline void accumulate(czk_fr *value, uint32_t kind, const czk_fr *coeff, const czk_fr *x)
{
    if (kind == CZK_LC_COEFF_ONE) {
        fr_add(value, value, x);
        return;
    }
    if (kind == CZK_LC_COEFF_MINUS_ONE) {
        fr_sub(value, value, x);
        return;
    }
    bool is0 = fr_is_zero(x), is1 = fr_eq(x, &FR_ONE);
    if (is0 | is1) {
        uint64_t mask = (uint64_t)0 - (uint64_t)is1;
        czk_fr t;
        for (int i = 0; i < N; i++) t.l[i] = coeff->l[i] & mask;
        fr_add(value, value, &t);
    } else {
        czk_fr t;
        czk_fr_mul(&t, coeff, x);
        fr_add(value, value, &t);
    }
}

/* Append one term (coefficient non-zero); `acc` adds its value to the LC's value. */
static inline void lc_push(czk_lc *lc, uint32_t id, uint32_t kind, const czk_fr *coeff, bool acc)
{
    czk_cs *cs = lc->cs;
    if (!czk__cs_var_valid(cs, id)) {
        cs_failf(cs, CZK_EINVAL, "cs: LC term with unknown variable 0x%08x", id);
        return;
    }
    if (lc->len == lc->cap && !lc_reserve(lc, lc->len + 1)) return;
    czk_lc_term *t = lc_terms(lc) + lc->len;
    if (lc->len > 0 && id <= t[-1].var) lc->unsorted = 1;
    t->var = id;
    t->kind = kind;
    if (kind == CZK_LC_COEFF_GENERAL) t->coeff = *coeff;
    lc->len++;
    /* WITNESS mode computes an LC's value only when it is read (czk_lc_value). */
    if (acc && cs->witness && cs->mode != CZK_CS_WITNESS)
        accumulate(&lc->value, kind, coeff, value_of(cs, id));
}

void czk_lc_add(czk_lc *lc, czk_var v)
{
    lc_push(lc, v.id, CZK_LC_COEFF_ONE, NULL, true);
}
void czk_lc_sub(czk_lc *lc, czk_var v)
{
    lc_push(lc, v.id, CZK_LC_COEFF_MINUS_ONE, NULL, true);
}

void czk_lc_add_term(czk_lc *lc, const czk_fr *coeff, czk_var v)
{
    /* bellpepper would store a zero coefficient, but it adds nothing to the merged
     * coefficient and zero terms are dropped everywhere, so it is not stored at all. */
    if (fr_is_zero(coeff)) return;
    lc_push(lc, v.id, coeff_kind(coeff), coeff, true);
}

void czk_lc_sub_term(czk_lc *lc, const czk_fr *coeff, czk_var v)
{
    if (fr_is_zero(coeff)) return;
    uint32_t kind = coeff_kind(coeff);
    if (kind == CZK_LC_COEFF_ONE) {
        lc_push(lc, v.id, CZK_LC_COEFF_MINUS_ONE, NULL, true);
    } else if (kind == CZK_LC_COEFF_MINUS_ONE) {
        lc_push(lc, v.id, CZK_LC_COEFF_ONE, NULL, true);
    } else {
        czk_fr neg;
        mont_neg(neg.l, coeff->l, P, N);
        lc_push(lc, v.id, CZK_LC_COEFF_GENERAL, &neg, true);
    }
}

void czk_lc_add_const(czk_lc *lc, const czk_fr *k)
{
    czk_lc_add_term(lc, k, czk_cs_one());
}

/* lc += k·other for a non-zero k of kind `kk`. */
static void lc_add_scaled(czk_lc *lc, uint32_t kk, const czk_fr *k, const czk_lc *other)
{
    czk_cs *cs = lc->cs;
    if (other->cs != cs) {
        cs_failf(cs, CZK_EINVAL, "cs: adding an LC of another constraint system");
        return;
    }
    /* The value first: other may be lc itself. */
    if (cs->witness && cs->mode != CZK_CS_WITNESS) {
        czk_fr ov = other->value;
        if (kk == CZK_LC_COEFF_ONE) {
            fr_add(&lc->value, &lc->value, &ov);
        } else if (kk == CZK_LC_COEFF_MINUS_ONE) {
            fr_sub(&lc->value, &lc->value, &ov);
        } else {
            czk_fr t;
            czk_fr_mul(&t, k, &ov);
            fr_add(&lc->value, &lc->value, &t);
        }
    }
    uint32_t n = other->len;
    if (!lc_reserve(lc, lc->len + n)) return;
    for (uint32_t i = 0; i < n; i++) {
        czk_lc_term t = lc_cterms(other)[i];
        if (kk == CZK_LC_COEFF_MINUS_ONE) {
            if (t.kind == CZK_LC_COEFF_ONE)
                t.kind = CZK_LC_COEFF_MINUS_ONE;
            else if (t.kind == CZK_LC_COEFF_MINUS_ONE)
                t.kind = CZK_LC_COEFF_ONE;
            else
                mont_neg(t.coeff.l, t.coeff.l, P, N);
        } else if (kk == CZK_LC_COEFF_GENERAL) {
            if (t.kind == CZK_LC_COEFF_ONE) {
                t.coeff = *k;
            } else if (t.kind == CZK_LC_COEFF_MINUS_ONE) {
                mont_neg(t.coeff.l, k->l, P, N);
            } else {
                czk_fr_mul(&t.coeff, &t.coeff, k);
            }
            t.kind = coeff_kind(&t.coeff); /* k·c ≠ 0 but may be ±1 */
        }
        lc_push(lc, t.var, t.kind, &t.coeff, false);
    }
}

void czk_lc_add_lc(czk_lc *lc, const czk_fr *coeff, const czk_lc *other)
{
    if (coeff == NULL) {
        lc_add_scaled(lc, CZK_LC_COEFF_ONE, &FR_ONE, other);
    } else if (!fr_is_zero(coeff)) {
        lc_add_scaled(lc, coeff_kind(coeff), coeff, other);
    }
}

void czk_lc_sub_lc(czk_lc *lc, const czk_fr *coeff, const czk_lc *other)
{
    if (coeff == NULL) {
        lc_add_scaled(lc, CZK_LC_COEFF_MINUS_ONE, &FR_MINUS_ONE, other);
    } else if (!fr_is_zero(coeff)) {
        czk_fr neg;
        mont_neg(neg.l, coeff->l, P, N);
        lc_add_scaled(lc, coeff_kind(&neg), &neg, other);
    }
}

void czk_lc_assign(czk_lc *lc, const czk_lc *src)
{
    if (lc == src) return;
    lc->cs = src->cs;
    lc->len = 0;
    if (!lc_reserve(lc, src->len)) {
        czk_lc_clear(lc);
        return;
    }
    memcpy(lc_terms(lc), lc_cterms(src), (size_t)src->len * sizeof(czk_lc_term));
    lc->len = src->len;
    lc->unsorted = src->unsorted;
    lc->value = src->value;
}

const czk_fr *czk_lc_value(const czk_lc *lc)
{
    const czk_cs *cs = lc->cs;
    if (!cs->witness) return &FR_ZERO;
    if (cs->mode == CZK_CS_WITNESS) {
        /* Few LCs are ever read (a Poseidon round's, a packing's), so WITNESS mode sums the
         * terms here rather than on every addition. The LC is the caller's mutable object
         * (czk_lc_init wrote it), so caching the sum in it is sound. */
        czk_lc *m = (czk_lc *)lc;
        czk_fr acc = FR_ZERO;
        const czk_lc_term *t = lc_cterms(lc);
        for (uint32_t i = 0; i < lc->len; i++)
            accumulate(&acc, t[i].kind, &t[i].coeff, value_of(cs, t[i].var));
        m->value = acc;
    }
    return &lc->value;
}
size_t czk_lc_len(const czk_lc *lc)
{
    return lc->len;
}

/* ------------------------------------------------------------------------------------ */
/* Normalisation: bellpepper's merged, zero-free, ordered term map                      */
/* ------------------------------------------------------------------------------------ */

static int term_cmp(const void *x, const void *y)
{
    uint32_t a = ((const czk_lc_term *)x)->var, b = ((const czk_lc_term *)y)->var;
    return (a > b) - (a < b);
}

/*
 * The LC's terms as bellpepper's LinearCombination holds them after all additions: one
 * term per variable with the sum of its coefficients, ordered inputs then aux by index
 * (= by id), zero sums removed. An LC built in strictly increasing id order already is
 * that and is returned as it is; otherwise the terms are sorted and merged in the scratch.
 */
static const czk_lc_term *lc_normalize(czk_cs *cs, const czk_lc *lc, uint32_t *n_out)
{
    const czk_lc_term *src = lc_cterms(lc);
    uint32_t n = lc->len;
    if (!lc->unsorted) {
        *n_out = n;
        return src;
    }
    if (n > cs->scratch_cap) {
        size_t cap = cs->scratch_cap > 0 ? cs->scratch_cap : 64;
        while (cap < n) cap *= 2;
        czk_lc_term *s = czk_realloc(cs->scratch, cap * sizeof *s);
        if (s == NULL) {
            cs_failf(cs, CZK_ENOMEM, "cs: out of memory normalising a %u-term LC", n);
            *n_out = 0;
            return cs->scratch;
        }
        cs->scratch = s;
        cs->scratch_cap = cap;
    }
    czk_lc_term *s = cs->scratch;
    memcpy(s, src, (size_t)n * sizeof *s);
    if (n <= 32) {
        for (uint32_t i = 1; i < n; i++) {
            czk_lc_term t = s[i];
            uint32_t j = i;
            while (j > 0 && s[j - 1].var > t.var) {
                s[j] = s[j - 1];
                j--;
            }
            s[j] = t;
        }
    } else {
        qsort(s, n, sizeof *s, term_cmp);
    }
    uint32_t out = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        if (j < n && s[j].var == s[i].var) {
            czk_fr sum = *term_coeff(&s[i]);
            for (; j < n && s[j].var == s[i].var; j++) fr_add(&sum, &sum, term_coeff(&s[j]));
            if (!fr_is_zero(&sum)) {
                s[out].var = s[i].var;
                s[out].kind = coeff_kind(&sum);
                s[out].coeff = sum;
                out++;
            }
        } else {
            s[out++] = s[i];
        }
        i = j;
    }
    *n_out = out;
    return s;
}

/*
 * Does the LC name some variable twice? Only then can merged coefficients differ from the
 * terms' own (all non-zero). Long packing LCs (100–230 terms in SHA-256 additions) are
 * often out of id order, and sorting them just to find no duplicate was half the time of
 * COUNT mode; a hash set finds the answer in linear time.
 */
static bool lc_has_duplicates(czk_cs *cs, const czk_lc *lc)
{
    if (!lc->unsorted) return false;
    const czk_lc_term *t = lc_cterms(lc);
    uint32_t n = lc->len;
    if (n <= 16) {
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = 0; j < i; j++)
                if (t[i].var == t[j].var) return true;
        return false;
    }
    uint32_t log = 6;
    while ((1u << log) < 2 * n && log < 31) log++;
    if (log > cs->dup_log || cs->dup_tab == NULL) {
        uint64_t *tab = czk_calloc((size_t)1 << log, sizeof *tab);
        if (tab == NULL) return true; /* the merging path is always correct */
        czk_free(cs->dup_tab);
        cs->dup_tab = tab;
        cs->dup_log = log;
        cs->dup_gen = 0;
    }
    if (++cs->dup_gen == 0) { /* generation wrapped: really empty the table */
        memset(cs->dup_tab, 0, ((size_t)1 << cs->dup_log) * sizeof *cs->dup_tab);
        cs->dup_gen = 1;
    }
    uint64_t *tab = cs->dup_tab;
    uint32_t shift = 32 - cs->dup_log, mask = (1u << cs->dup_log) - 1;
    uint64_t gen = (uint64_t)cs->dup_gen << 32;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = t[i].var;
        uint32_t h = (id * 0x9e3779b1u) >> shift;
        for (;;) {
            uint64_t e = tab[h];
            if ((e & ~(uint64_t)UINT32_MAX) != gen) {
                tab[h] = gen | id;
                break;
            }
            if ((uint32_t)e == id) return true;
            h = (h + 1) & mask;
        }
    }
    return false;
}

/* mark_density in a fork's child. After an error a child keeps counting past its
 * buffers, so ids beyond the borrowed bitmaps are skipped rather than written. */
static void mark_density_shared(const czk_cs *cs, const czk_lc_term *t, uint32_t n,
                                uint64_t *aux_bits, uint64_t *input_bits)
{
    uint64_t aux_bits_n = (uint64_t)cs->aux_words * 64, in_bits_n = (uint64_t)cs->input_words * 64;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = t[i].var, k = id & ~CZK_VAR_AUX;
        if (id & CZK_VAR_AUX) {
            if (k < aux_bits_n) czk__bit_set_shared(aux_bits, k);
        } else if (input_bits != NULL && k < in_bits_n) {
            czk__bit_set_shared(input_bits, k);
        }
    }
}

/* Set the density bits of one normalised A (inputs untracked) or B LC. */
static inline void mark_density(czk_cs *cs, const czk_lc_term *t, uint32_t n, uint64_t *aux_bits,
                                uint64_t *input_bits)
{
    if (__builtin_expect(cs->parent != NULL, 0)) {
        mark_density_shared(cs, t, n, aux_bits, input_bits);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = t[i].var;
        if (id & CZK_VAR_AUX)
            czk__bit_set(aux_bits, id & ~CZK_VAR_AUX);
        else if (input_bits != NULL)
            czk__bit_set(input_bits, id);
    }
}

/* ------------------------------------------------------------------------------------ */
/* Constraints                                                                          */
/* ------------------------------------------------------------------------------------ */

static void record_row(czk_cs *cs, int m, const czk_lc_term *t, uint32_t n, uint64_t row)
{
    czk__rec_mat *r = &cs->rec[m];
    if (r->nnz + n > r->nnz_cap) {
        uint64_t cap = r->nnz_cap > 0 ? r->nnz_cap : 4096;
        while (cap < r->nnz + n) cap *= 2;
        uint32_t *col = czk_realloc(r->col, (size_t)cap * sizeof *col);
        if (col != NULL) r->col = col;
        czk_fr *val = col != NULL ? czk_realloc(r->val, (size_t)cap * sizeof *val) : NULL;
        if (val == NULL) {
            cs_failf(cs, CZK_ENOMEM, "cs: out of memory recording %" PRIu64 " terms", cap);
            return;
        }
        r->val = val;
        r->nnz_cap = cap;
    }
    for (uint32_t i = 0; i < n; i++) {
        r->col[r->nnz + i] = t[i].var;
        r->val[r->nnz + i] = *term_coeff(&t[i]);
    }
    r->nnz += n;
    r->row_ptr[row + 1] = r->nnz;
}

static bool record_rows_reserve(czk_cs *cs, uint64_t rows)
{
    if (rows + 1 <= cs->rec_rows_cap) return true;
    size_t cap = cs->rec_rows_cap;
    while (cap < rows + 1) cap *= 2;
    for (int m = 0; m < 3; m++) {
        uint64_t *p = czk_realloc(cs->rec[m].row_ptr, cap * sizeof *p);
        if (p == NULL) {
            cs_failf(cs, CZK_ENOMEM, "cs: out of memory recording %" PRIu64 " rows", rows);
            return false;
        }
        cs->rec[m].row_ptr = p;
    }
    cs->rec_rows_cap = cap;
    return true;
}

static const czk_lc EMPTY_LC_TEMPLATE; /* zero-initialised: no terms */

void czk_cs_enforce(czk_cs *cs, const czk_lc *a, const czk_lc *b, const czk_lc *c)
{
    if (cs->finished) {
        cs_failf(cs, CZK_EINVAL, "cs: enforce after finish");
        return;
    }
    if ((a != NULL && a->cs != cs) || (b != NULL && b->cs != cs) || (c != NULL && c->cs != cs)) {
        cs_failf(cs, CZK_EINVAL, "cs: enforce with an LC of another constraint system");
        return;
    }
    if (a == NULL) a = &EMPTY_LC_TEMPLATE;
    if (b == NULL) b = &EMPTY_LC_TEMPLATE;
    if (c == NULL) c = &EMPTY_LC_TEMPLATE;
    uint64_t j = cs->n_constraints++;

    /* WITNESS: no densities, no a/b/c: they come from the recording. */
    if (cs->mode == CZK_CS_WITNESS) return;

    if (cs->mode == CZK_CS_EVAL || cs->mode == CZK_CS_COUNT) {
        if (cs->mode == CZK_CS_EVAL && cs->status == CZK_OK) {
            if (j < cs->buf.rows_cap) {
                /* A NULL LC is the template, whose value is zero. */
                cs->buf.a[j] = a->value;
                cs->buf.b[j] = b->value;
                cs->buf.c[j] = c->value;
            } else {
                cs_failf(cs, CZK_ERESOURCE, "cs: a/b/c buffers full (%zu rows)", cs->buf.rows_cap);
            }
        }
        /* Densities need the merged LC only when a variable occurs twice. */
        uint32_t n = a->len;
        const czk_lc_term *t = lc_cterms(a);
        if (lc_has_duplicates(cs, a)) t = lc_normalize(cs, a, &n);
        mark_density(cs, t, n, cs->a_aux_bits, NULL);
        n = b->len;
        t = lc_cterms(b);
        if (lc_has_duplicates(cs, b)) t = lc_normalize(cs, b, &n);
        mark_density(cs, t, n, cs->b_aux_bits, cs->b_input_bits);
        return;
    }

    /* RECORD and HASH need every LC in its merged form; both stop storing after an
     * error but keep counting. */
    bool store = cs->status == CZK_OK;
    if (cs->mode == CZK_CS_RECORD && store && cs->sink == NULL)
        store = record_rows_reserve(cs, j + 1);
    const czk_lc *lcs[3] = {a, b, c};
    for (int m = 0; m < 3; m++) {
        uint32_t n;
        const czk_lc_term *t = lc_normalize(cs, lcs[m], &n);
        if (m == 0) mark_density(cs, t, n, cs->a_aux_bits, NULL);
        if (m == 1) mark_density(cs, t, n, cs->b_aux_bits, cs->b_input_bits);
        if (!store || cs->status != CZK_OK) continue;
        if (cs->mode == CZK_CS_RECORD && cs->sink != NULL) {
            czk_status s = cs->sink(cs->sink_ctx, (unsigned)m, j, t, n);
            if (s != CZK_OK) cs_failf(cs, s, "cs: record sink failed at row %" PRIu64, j);
        } else if (cs->mode == CZK_CS_RECORD)
            record_row(cs, m, t, n, j);
        else
            hash_lc(cs, t, n);
    }
}


bool czk__cs_enforce_lin(czk_cs *cs, const uint32_t *vars, const czk_fr *coeffs, uint32_t n,
                         const czk_fr *a, const czk_fr *c)
{
    if (cs->status != CZK_OK || cs->finished) return false;
    if (cs->mode != CZK_CS_EVAL && cs->mode != CZK_CS_WITNESS) return false;
    for (uint32_t i = 0; i < n; i++)
        if (!czk__cs_var_valid(cs, vars[i])) return false;
    uint64_t j = cs->n_constraints;
    if (cs->mode == CZK_CS_EVAL) {
        if (j >= cs->buf.rows_cap) return false;
        cs->buf.a[j] = *a;
        cs->buf.b[j] = FR_ONE;
        cs->buf.c[j] = *c;
        bool shared = cs->parent != NULL;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t id = vars[i];
            if (!(id & CZK_VAR_AUX) || fr_is_zero(&coeffs[i])) continue;
            if (shared)
                czk__bit_set_shared(cs->a_aux_bits, id & ~CZK_VAR_AUX);
            else
                czk__bit_set(cs->a_aux_bits, id & ~CZK_VAR_AUX);
        }
        if (shared)
            czk__bit_set_shared(cs->b_input_bits, 0);
        else
            czk__bit_set(cs->b_input_bits, 0);
    }
    cs->n_constraints = j + 1;
    return true;
}

/* ------------------------------------------------------------------------------------ */
/* Results                                                                              */
/* ------------------------------------------------------------------------------------ */

static uint64_t popcount_words(const uint64_t *w, size_t n)
{
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) c += (uint64_t)__builtin_popcountll(w[i]);
    return c;
}

void czk_cs_get_counts(const czk_cs *cs, czk_cs_counts *out)
{
    out->n_inputs = cs->n_inputs;
    out->n_aux = cs->n_aux;
    out->n_constraints = cs->n_constraints;
    size_t aux_words = (size_t)((cs->n_aux + 63) / 64);
    size_t in_words = (size_t)((cs->n_inputs + 63) / 64);
    out->a_aux_density = popcount_words(cs->a_aux_bits, aux_words);
    out->b_aux_density = popcount_words(cs->b_aux_bits, aux_words);
    out->b_input_density = popcount_words(cs->b_input_bits, in_words);
}

void czk_cs_get_densities(const czk_cs *cs, uint64_t *a_aux, uint64_t *b_input, uint64_t *b_aux)
{
    /* Bits are only ever set for allocated variables, so whole words copy cleanly. */
    size_t aux_words = (size_t)((cs->n_aux + 63) / 64);
    size_t in_words = (size_t)((cs->n_inputs + 63) / 64);
    if (a_aux != NULL) memcpy(a_aux, cs->a_aux_bits, aux_words * sizeof *a_aux);
    if (b_aux != NULL) memcpy(b_aux, cs->b_aux_bits, aux_words * sizeof *b_aux);
    if (b_input != NULL) memcpy(b_input, cs->b_input_bits, in_words * sizeof *b_input);
}

czk_status czk_cs_finish(czk_cs *cs, czk_err *err)
{
    if (!cs->finished) {
        cs->finished = true;
        if (cs->mode == CZK_CS_HASH && cs->status == CZK_OK) {
            hash_flush(cs);
            unsigned len = 0;
            if (cs->status == CZK_OK &&
                (EVP_DigestFinal_ex(cs->md, cs->digest, &len) != 1 || len != 32))
                cs_failf(cs, CZK_EINTERNAL, "cs: BLAKE2s final failed");
            if (cs->status == CZK_OK &&
                (cs->n_inputs != cs->hash_expect[0] || cs->n_aux != cs->hash_expect[1] ||
                 cs->n_constraints != cs->hash_expect[2]))
                cs_failf(cs, CZK_EINVAL,
                         "cs: hash mode expected %" PRIu64 "/%" PRIu64 "/%" PRIu64
                         " inputs/aux/constraints, the circuit gave %" PRIu64 "/%" PRIu64
                         "/%" PRIu64,
                         cs->hash_expect[0], cs->hash_expect[1], cs->hash_expect[2], cs->n_inputs,
                         cs->n_aux, cs->n_constraints);
            cs->hash_ready = cs->status == CZK_OK;
        }
        if (cs->mode == CZK_CS_RECORD && cs->status == CZK_OK) {
            if (cs->n_inputs + cs->n_aux > UINT32_MAX || cs->n_constraints > UINT32_MAX) {
                cs_failf(cs, CZK_ERESOURCE,
                         "cs: %" PRIu64 " variables / %" PRIu64
                         " rows do not fit the 32-bit r1cs indices",
                         cs->n_inputs + cs->n_aux, cs->n_constraints);
            } else {
                /* Ids become z indices: inputs keep theirs, aux k moves to n_inputs + k. */
                uint32_t n_in = (uint32_t)cs->n_inputs;
                for (int m = 0; m < 3; m++) {
                    czk__rec_mat *r = &cs->rec[m];
                    for (uint64_t k = 0; k < r->nnz; k++) {
                        uint32_t id = r->col[k];
                        r->col[k] = (id & CZK_VAR_AUX) ? n_in + (id & ~CZK_VAR_AUX) : id;
                    }
                }
                cs->r1cs_ready = true;
            }
        }
    }
    if (cs->status != CZK_OK) return czk_err_set(err, cs->status, "%s", cs->msg);
    return CZK_OK;
}

czk_status czk_cs_take_r1cs(czk_cs *cs, czk_r1cs *out, czk_err *err)
{
    memset(out, 0, sizeof *out);
    if (cs->mode != CZK_CS_RECORD || !cs->r1cs_ready || cs->sink != NULL)
        return czk_err_set(err, CZK_EINVAL, "cs: no finished recording to take");
    out->n_inputs = (uint32_t)cs->n_inputs;
    out->n_aux = (uint32_t)cs->n_aux;
    out->n_constraints = (uint32_t)cs->n_constraints;
    out->has_c = true;
    czk_csr *dst[3] = {&out->a, &out->b, &out->c};
    for (int m = 0; m < 3; m++) {
        czk__rec_mat *r = &cs->rec[m];
        /* Give back the growth slack: the recording of a partition is kept for long. */
        size_t keep = r->nnz > 0 ? (size_t)r->nnz : 1;
        uint32_t *col = czk_realloc(r->col, keep * sizeof *col);
        if (col != NULL) r->col = col;
        czk_fr *val = czk_realloc(r->val, keep * sizeof *val);
        if (val != NULL) r->val = val;
        if (r->col == NULL) r->col = czk_malloc(sizeof *r->col);
        if (r->val == NULL) r->val = czk_malloc(sizeof *r->val);
        dst[m]->row_ptr = r->row_ptr;
        dst[m]->col = r->col;
        dst[m]->val = r->val;
        dst[m]->nnz = r->nnz;
        memset(r, 0, sizeof *r);
    }
    cs->rec_rows_cap = 0;
    cs->r1cs_ready = false;
    if (out->a.col == NULL || out->a.val == NULL || out->b.col == NULL || out->b.val == NULL ||
        out->c.col == NULL || out->c.val == NULL) {
        czk_r1cs_free(out);
        return czk_err_set(err, CZK_ENOMEM, "cs: out of memory handing over the matrices");
    }
    return CZK_OK;
}

czk_status czk_cs_get_hash(const czk_cs *cs, uint8_t digest[32], char hex[65], czk_err *err)
{
    if (cs->mode != CZK_CS_HASH || !cs->hash_ready)
        return czk_err_set(err, CZK_EINVAL, "cs: no finished hash");
    if (digest != NULL) memcpy(digest, cs->digest, 32);
    if (hex != NULL) {
        static const char digits[] = "0123456789abcdef";
        for (int i = 0; i < 32; i++) {
            hex[2 * i] = digits[cs->digest[i] >> 4];
            hex[2 * i + 1] = digits[cs->digest[i] & 15];
        }
        hex[64] = '\0';
    }
    return CZK_OK;
}

czk_status czk_cs_hash_circuit(czk_cs_circuit_fn circuit, void *ctx, char hex[65],
                               czk_cs_counts *counts, czk_err *err)
{
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_status s = czk_cs_create(&cs, &cfg, err);
    if (s != CZK_OK) return s;
    s = circuit(cs, ctx);
    if (s != CZK_OK) {
        czk_cs_fail(cs, s, "cs: circuit failed: %s", czk_strerror(s));
    }
    s = czk_cs_finish(cs, err);
    if (s != CZK_OK) goto out;
    czk_cs_counts c;
    czk_cs_get_counts(cs, &c);
    cfg.mode = CZK_CS_HASH;
    cfg.hash_n_inputs = c.n_inputs;
    cfg.hash_n_aux = c.n_aux;
    cfg.hash_n_constraints = c.n_constraints;
    s = czk_cs_reset(cs, &cfg, err);
    if (s != CZK_OK) goto out;
    s = circuit(cs, ctx);
    if (s != CZK_OK) czk_cs_fail(cs, s, "cs: circuit failed: %s", czk_strerror(s));
    s = czk_cs_finish(cs, err);
    if (s != CZK_OK) goto out;
    if (counts != NULL) czk_cs_get_counts(cs, counts);
    s = czk_cs_get_hash(cs, NULL, hex, err);
out:
    czk_cs_destroy(cs);
    return s;
}

/* ------------------------------------------------------------------------------------ */
/* Fork/join                                                                            */
/* ------------------------------------------------------------------------------------ */

czk_status czk_cs_fork(czk_cs *parent, const czk_cs_counts *at, czk_cs **child, czk_err *err)
{
    *child = NULL;
    if (parent->parent != NULL)
        return czk_err_set(err, CZK_EINVAL, "cs: fork of a fork's child");
    if (parent->mode != CZK_CS_EVAL || parent->finished)
        return czk_err_set(err, CZK_EINVAL, "cs: fork needs an unfinished EVAL constraint system");
    if (parent->status != CZK_OK) return czk_err_set(err, parent->status, "%s", parent->msg);
    if (at->n_inputs < parent->n_inputs || at->n_aux < parent->n_aux ||
        at->n_constraints < parent->n_constraints || at->n_inputs > CZK_CS_MAX_VARS ||
        at->n_aux > CZK_CS_MAX_VARS)
        return czk_err_set(err, CZK_EINVAL,
                           "cs: fork at %" PRIu64 "/%" PRIu64 "/%" PRIu64
                           " inputs/aux/constraints, the parent is at %" PRIu64 "/%" PRIu64
                           "/%" PRIu64,
                           at->n_inputs, at->n_aux, at->n_constraints, parent->n_inputs,
                           parent->n_aux, parent->n_constraints);
    /* Children never grow the bitmaps they share: size the input one now for every input
     * the buffer holds (cs_configure already sized the aux ones for aux_cap). */
    if (!bits_grow(&parent->b_input_bits, &parent->input_words, parent->buf.inputs_cap))
        return czk_err_set(err, CZK_ENOMEM, "cs: out of memory for density bitmaps");
    czk_cs *c = czk_calloc(1, sizeof *c);
    if (c == NULL) return czk_err_set(err, CZK_ENOMEM, "cs: out of memory");
    c->mode = CZK_CS_EVAL;
    c->status = CZK_OK;
    c->witness = true;
    c->buf = parent->buf;
    c->n_inputs = c->lo_inputs = at->n_inputs;
    c->n_aux = c->lo_aux = at->n_aux;
    c->n_constraints = c->lo_constraints = at->n_constraints;
    c->shared_inputs = c->fast_inputs = parent->n_inputs;
    c->shared_aux = c->fast_aux = parent->n_aux;
    c->a_aux_bits = parent->a_aux_bits;
    c->b_aux_bits = parent->b_aux_bits;
    c->aux_words = parent->aux_words;
    c->b_input_bits = parent->b_input_bits;
    c->input_words = parent->input_words;
    c->parent = parent;
    *child = c;
    return CZK_OK;
}

czk_status czk_cs_join(czk_cs *parent, czk_cs *const *children, size_t n, czk_err *err)
{
    czk_status s = CZK_OK;
    for (size_t k = 0; k < n; k++) {
        if (children[k] == NULL || children[k]->parent != parent) {
            cs_failf(parent, CZK_EINVAL, "cs: join of child %zu: not a fork of this cs", k);
            s = czk_err_set(err, parent->status, "%s", parent->msg);
            goto out;
        }
    }
    /* The children's own errors come first: an error may well be why a child stopped
     * short of its successor's start. */
    for (size_t k = 0; k < n && parent->status == CZK_OK; k++)
        if (children[k]->status != CZK_OK)
            cs_failf(parent, children[k]->status, "%s", children[k]->msg);
    for (size_t k = 0; k + 1 < n && parent->status == CZK_OK; k++) {
        const czk_cs *a = children[k], *b = children[k + 1];
        if (a->n_inputs != b->lo_inputs || a->n_aux != b->lo_aux ||
            a->n_constraints != b->lo_constraints)
            cs_failf(parent, CZK_EINTERNAL,
                     "cs: join: child %zu ended at %" PRIu64 "/%" PRIu64 "/%" PRIu64
                     " inputs/aux/constraints, child %zu started at %" PRIu64 "/%" PRIu64
                     "/%" PRIu64,
                     k, a->n_inputs, a->n_aux, a->n_constraints, k + 1, b->lo_inputs, b->lo_aux,
                     b->lo_constraints);
    }
    if (n > 0) {
        const czk_cs *last = children[n - 1];
        parent->n_inputs = last->n_inputs;
        parent->n_aux = last->n_aux;
        parent->n_constraints = last->n_constraints;
        /* A child that failed counted on past its buffers, and the parent's bitmaps must
         * cover its counts for get_counts and get_densities. */
        if (!aux_bits_grow(parent, parent->n_aux) ||
            !bits_grow(&parent->b_input_bits, &parent->input_words, parent->n_inputs)) {
            cs_failf(parent, CZK_ENOMEM, "cs: out of memory for density bitmaps");
            if (parent->n_aux > (uint64_t)parent->aux_words * 64)
                parent->n_aux = (uint64_t)parent->aux_words * 64;
            if (parent->n_inputs > (uint64_t)parent->input_words * 64)
                parent->n_inputs = (uint64_t)parent->input_words * 64;
        }
        parent->fast_inputs = parent->n_inputs;
        parent->fast_aux = parent->n_aux;
    }
    if (parent->status != CZK_OK) s = czk_err_set(err, parent->status, "%s", parent->msg);
out:
    for (size_t k = 0; k < n; k++)
        if (children[k] != NULL && children[k]->parent == parent) czk_cs_destroy(children[k]);
    return s;
}
