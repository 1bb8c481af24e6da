/*
 * The Poseidon circuit of neptune's circuit.rs (poseidon_hash, the "legacy" circuit that
 * Filecoin's trusted setups were made with), constraint for constraint.
 *
 * What upstream does. The state holds `Elt`s: allocated numbers, or `Num`s (a value and a
 * linear combination). The circuit follows the optimized permutation
 * (hash/poseidon_internal.h): round constants pre-added (compressed), the MDS matrix
 * of the last first-half full round replaced by the pre-sparse matrix, and one sparse
 * matrix per partial round. An S-box first makes its input an allocated number
 * (ensure_allocated: new x, lc·1 = x, unless it is already one), then x² and x⁴ by
 * squaring and x⁵ + k by mul_sum: four constraints, three in the first round, where the
 * inputs are the allocated preimage and the pre-round constant is folded in
 * ((x + k₀)² and (x + k₀)·x⁴ + k₁), and none for the domain tag, whose first S-box is a
 * constant. Matrix products are free: they only combine Nums. The result is state[1]
 * after the last round, allocated the same way. Per hash: 3·arity + 28·t + 4·R_P + 1.
 *
 * The linear combinations. After a full round every element is a combination of that
 * round's t S-box outputs with matrix entries as coefficients (plus ONE, with the tag's
 * constant, after the first round). Across the partial rounds the combinations grow: the
 * first element of partial round k combines the t outputs of the pre-sparse round and
 * the k previous partial S-box outputs, and so do all t elements entering the first
 * second-half full round. Their merged coefficients depend only on the parameters, so
 * they are computed once per arity (a symbolic run of the sparse rounds, like upstream's
 * Num arithmetic) and kept; a hash then only copies them into its LCs, in increasing
 * variable order so the constraint system never has to sort or merge them.
 */
#include "gadgets/gadgets_internal.h"

#include "czk/alloc.h"
#include "hash/poseidon_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define MAXT  CZK_POSEIDON_MAX_WIDTH
#define MAXRP 64 /* R_P is at most 60 (arity 36) */

/* ------------------------------------------------------------------------------------ */
/* Per-arity coefficient tables                                                         */
/* ------------------------------------------------------------------------------------ */

/*
 * Slots: 0..t−1 are the S-box outputs of the last first-half full round (the one whose
 * product is the pre-sparse matrix), t + k the output of partial round k.
 *   partial row k (k < R_P): the input of partial round k's S-box over slots 0..t+k−1,
 *                            at partial + k·t + k(k−1)/2;
 *   after row j (j < t):     element j entering the first second-half full round, over
 *                            slots 0..t+R_P−1, at after + j·(t + R_P).
 */
typedef struct coeffs {
    unsigned t, rp;
    czk_fr *partial;
    czk_fr *after;
} coeffs;

static _Atomic(coeffs *) tables[CZK_POSEIDON_MAX_ARITY + 1];
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

static inline size_t partial_off(unsigned t, unsigned k)
{
    return (size_t)k * t + (size_t)k * (k - (k > 0)) / 2;
}

/* Upstream's sparse rounds run on coefficient vectors instead of values. */
static coeffs *coeffs_build(const czk_poseidon_params *p)
{
    unsigned t = p->t, rp = p->rp, w = t + rp;
    coeffs *c = czk_calloc(1, sizeof *c);
    czk_fr *e = czk_calloc((size_t)t * w, sizeof *e); /* element j: e + j·w */
    czk_fr *e0 = czk_calloc(w, sizeof *e0);
    if (c != NULL) {
        c->partial = czk_calloc(partial_off(t, rp), sizeof *c->partial);
        c->after = czk_calloc((size_t)t * w, sizeof *c->after);
    }
    if (c == NULL || e == NULL || e0 == NULL || c->partial == NULL || c->after == NULL) {
        if (c != NULL) {
            czk_free(c->partial);
            czk_free(c->after);
        }
        czk_free(c);
        czk_free(e);
        czk_free(e0);
        return NULL;
    }
    c->t = t;
    c->rp = rp;
    /* After the pre-sparse product: element j = Σ_l pre[l][j]·slot l. */
    for (unsigned j = 0; j < t; j++)
        for (unsigned l = 0; l < t; l++) e[(size_t)j * w + l] = p->pre_sparse[l * t + j];
    for (unsigned k = 0; k < rp; k++) {
        unsigned len = t + k;
        memcpy(c->partial + partial_off(t, k), e, len * sizeof *e);
        /* The S-box replaces element 0 by slot t + k; then the sparse product:
         *   e0' = w_hat[0]·slot(t+k) + Σ_{i≥1} w_hat[i]·e_i,  e_j' = e_j + v_rest[j−1]·slot(t+k).
         */
        const czk_fr *wh = p->w_hat + (size_t)k * t;
        const czk_fr *vr = p->v_rest + (size_t)k * (t - 1);
        memset(e0, 0, w * sizeof *e0);
        for (unsigned i = 1; i < t; i++) {
            const czk_fr *ei = e + (size_t)i * w;
            for (unsigned s = 0; s < len; s++) {
                czk_fr m;
                czk_fr_mul(&m, &wh[i], &ei[s]);
                czk_fr_add(&e0[s], &e0[s], &m);
            }
        }
        e0[t + k] = wh[0];
        for (unsigned j = 1; j < t; j++) e[(size_t)j * w + t + k] = vr[j - 1];
        memcpy(e, e0, w * sizeof *e0);
    }
    memcpy(c->after, e, (size_t)t * w * sizeof *e);
    czk_free(e);
    czk_free(e0);
    return c;
}

static const coeffs *coeffs_get(const czk_poseidon_params *p)
{
    unsigned a = p->arity;
    coeffs *c = atomic_load_explicit(&tables[a], memory_order_acquire);
    if (c != NULL) return c;
    pthread_mutex_lock(&tables_lock);
    c = atomic_load_explicit(&tables[a], memory_order_relaxed);
    if (c == NULL) {
        c = coeffs_build(p);
        if (c != NULL) atomic_store_explicit(&tables[a], c, memory_order_release);
    }
    pthread_mutex_unlock(&tables_lock);
    return c;
}

/* ------------------------------------------------------------------------------------ */
/* The circuit                                                                          */
/* ------------------------------------------------------------------------------------ */

typedef struct hasher {
    czk_cs *cs;
    const czk_poseidon_params *p;
    czk_lc lc, a, b, c; /* the S-box input, and one constraint's LCs */
} hasher;

/* c = x⁵-part: new res = l4·x (+ post), and (x + pre)·l4 = res − post. `xv` is the value of
 * x + pre. */
static czk_var mul_sum(hasher *h, czk_var x, const czk_fr *pre, czk_var l4, const czk_fr *xv,
                       const czk_fr *post)
{
    czk_cs *cs = h->cs;
    czk_fr v;
    czk_fr_mul(&v, xv, czk_cs_value(cs, l4));
    if (post != NULL) czk_fr_add(&v, &v, post);
    czk_var res = czk_cs_alloc(cs, &v);
    czk_lc_clear(&h->a);
    czk_lc_clear(&h->b);
    czk_lc_clear(&h->c);
    czk_lc_add(&h->a, x);
    if (pre != NULL) czk_lc_add_const(&h->a, pre);
    czk_lc_add(&h->b, l4);
    czk_lc_add(&h->c, res);
    if (post != NULL) czk_lc_sub_term(&h->c, post, czk_cs_one());
    czk_cs_enforce(cs, &h->a, &h->b, &h->c);
    return res;
}

/* The S-box of a full or partial round on the Num in h->lc, with an optional post key:
 * ensure_allocated, two squarings, mul_sum. Returns the output variable. */
static czk_var sbox(hasher *h, const czk_fr *post)
{
    czk_cs *cs = h->cs;
    czk_var x = czk_cs_alloc(cs, czk_lc_value(&h->lc));
    czk_lc_clear(&h->b);
    czk_lc_clear(&h->c);
    czk_lc_add(&h->b, czk_cs_one());
    czk_lc_add(&h->c, x);
    czk_cs_enforce(cs, &h->lc, &h->b, &h->c); /* lc·1 = x */
    czk_var l2 = czk_num_square(cs, x);
    czk_var l4 = czk_num_square(cs, l2);
    return mul_sum(h, x, NULL, l4, czk_cs_value(cs, x), post);
}

/* The first round's S-box on preimage element x: (x + pre)², its square, and
 * (x + pre)·x⁴ + post. */
static czk_var sbox_first(hasher *h, czk_var x, const czk_fr *pre, const czk_fr *post)
{
    czk_cs *cs = h->cs;
    czk_fr xv;
    czk_fr_add(&xv, czk_cs_value(cs, x), pre);
    czk_fr sq;
    czk_fr_sqr(&sq, &xv);
    czk_var l2 = czk_cs_alloc(cs, &sq);
    czk_lc_clear(&h->a);
    czk_lc_clear(&h->c);
    czk_lc_add(&h->a, x);
    czk_lc_add_const(&h->a, pre);
    czk_lc_add(&h->c, l2);
    czk_cs_enforce(cs, &h->a, &h->a, &h->c); /* (x + pre)·(x + pre) = l2 */
    czk_var l4 = czk_num_square(cs, l2);
    return mul_sum(h, x, pre, l4, &xv, post);
}

/* h->lc = Σ_i m[i·t + j]·in[i]: element j of a product by a dense matrix. */
static void dense_lc(hasher *h, const czk_fr *m, unsigned j, const czk_var *in)
{
    unsigned t = h->p->t;
    czk_lc_clear(&h->lc);
    for (unsigned i = 0; i < t; i++) czk_lc_add_term(&h->lc, &m[i * t + j], in[i]);
}

/* h->lc = Σ_s coeff[s]·slot s, slots being base[0..t) then part[0..n − t). */
static void slot_lc(hasher *h, const czk_fr *coeff, unsigned n, const czk_var *base,
                    const czk_var *part)
{
    unsigned t = h->p->t;
    czk_lc_clear(&h->lc);
    for (unsigned s = 0; s < n; s++)
        czk_lc_add_term(&h->lc, &coeff[s], s < t ? base[s] : part[s - t]);
}

czk_status czk_poseidon_circuit(czk_cs *cs, czk_var *out, const czk_poseidon_params *p,
                                czk_poseidon_hash_type type, uint64_t param,
                                const czk_var *preimage)
{
    *out = czk_cs_one();
    if (p == NULL) return czk_cs_fail(cs, CZK_EINVAL, "gadgets: Poseidon without parameters");
    if (type == CZK_POSEIDON_VARIABLE_LENGTH)
        return czk_cs_fail(cs, CZK_EUNSUPPORTED, "gadgets: Poseidon VariableLength circuit");
    if (type == CZK_POSEIDON_CONSTANT_LENGTH && param != p->arity)
        return czk_cs_fail(cs, CZK_EINVAL,
                           "gadgets: the Poseidon circuit needs ConstantLength(arity), got %llu",
                           (unsigned long long)param);
    czk_fr tag;
    if (czk_poseidon_domain_tag(&tag, p, type, param) != CZK_OK)
        return czk_cs_fail(cs, CZK_EINVAL, "gadgets: bad Poseidon hash type or parameter");
    if (p->t > MAXT || p->rp > MAXRP || p->rf != CZK__POSEIDON_RF)
        return czk_cs_fail(cs, CZK_EINTERNAL, "gadgets: unexpected Poseidon parameter sizes");
    const coeffs *tab = coeffs_get(p);
    if (tab == NULL)
        return czk_cs_fail(cs, CZK_ENOMEM, "gadgets: out of memory for Poseidon tables");

    unsigned t = p->t, rp = p->rp, half = CZK__POSEIDON_RF / 2;
    const czk_fr *crc = p->crc;
    hasher h = {.cs = cs, .p = p};
    czk_lc_init(&h.lc, cs);
    czk_lc_init(&h.a, cs);
    czk_lc_init(&h.b, cs);
    czk_lc_init(&h.c, cs);

    czk_var prev[MAXT], base[MAXT], part[MAXRP];

    /* Round 0: the tag's S-box is a constant; ONE carries it into round 1. */
    czk_fr c0;
    czk_fr_add(&c0, &tag, &crc[0]);
    czk_fr sq;
    czk_fr_sqr(&sq, &c0);
    czk_fr_sqr(&sq, &sq);
    czk_fr_mul(&c0, &c0, &sq);
    czk_fr_add(&c0, &c0, &crc[t]);
    prev[0] = czk_cs_one();
    for (unsigned i = 1; i < t; i++)
        prev[i] = sbox_first(&h, preimage[i - 1], &crc[i], &crc[t + i]);
    size_t off = 2 * (size_t)t;

    /* Rounds 1 .. half−1: inputs are the previous round's outputs times M. In round 1,
     * prev[0] (ONE) stands for the tag's constant c0, so its coefficient is M[0][j]·c0. */
    for (unsigned r = 1; r < half; r++) {
        czk_var cur[MAXT];
        for (unsigned j = 0; j < t; j++) {
            if (r == 1) {
                czk_fr k;
                czk_fr_mul(&k, &p->mds[j], &c0);
                czk_lc_clear(&h.lc);
                czk_lc_add_term(&h.lc, &k, czk_cs_one());
                for (unsigned i = 1; i < t; i++)
                    czk_lc_add_term(&h.lc, &p->mds[i * t + j], prev[i]);
            } else {
                dense_lc(&h, p->mds, j, prev);
            }
            cur[j] = sbox(&h, &crc[off + j]);
        }
        off += t;
        memcpy(prev, cur, t * sizeof *cur);
    }
    /* Round half−1's product is the pre-sparse matrix: its outputs are the tables' base
     * slots. */
    memcpy(base, prev, t * sizeof *prev);

    /* Partial rounds. */
    for (unsigned k = 0; k < rp; k++) {
        slot_lc(&h, tab->partial + partial_off(t, k), t + k, base, part);
        part[k] = sbox(&h, &crc[off]);
        off += 1;
    }

    /* Second-half full rounds; the first takes its inputs from the tables, the last has
     * no round constants. */
    for (unsigned r = 0; r < half; r++) {
        czk_var cur[MAXT];
        bool last = r == half - 1;
        for (unsigned j = 0; j < t; j++) {
            if (r == 0)
                slot_lc(&h, tab->after + (size_t)j * (t + rp), t + rp, base, part);
            else
                dense_lc(&h, p->mds, j, prev);
            cur[j] = sbox(&h, last ? NULL : &crc[off + j]);
        }
        if (!last) off += t;
        memcpy(prev, cur, t * sizeof *cur);
    }

    /* The result: element 1 of the last product by M, allocated. */
    dense_lc(&h, p->mds, 1, prev);
    czk_var res = czk_cs_alloc(cs, czk_lc_value(&h.lc));
    czk_lc_clear(&h.b);
    czk_lc_clear(&h.c);
    czk_lc_add(&h.b, czk_cs_one());
    czk_lc_add(&h.c, res);
    czk_cs_enforce(cs, &h.lc, &h.b, &h.c);
    *out = res;

    czk_lc_free(&h.lc);
    czk_lc_free(&h.a);
    czk_lc_free(&h.b);
    czk_lc_free(&h.c);
    if (off != (size_t)t * CZK__POSEIDON_RF + rp)
        return czk_cs_fail(cs, CZK_EINTERNAL, "gadgets: Poseidon used %zu round constants", off);
    return czk_cs_status(cs);
}
