/*
 * R1CS matrices in CSR form: allocation, the parallel evaluator a = A·z, b = B·z, c = C·z
 * (the pre-compiled constraint evaluator behind the constraint system's recording mode),
 * the satisfaction check and bellperson's density bitmaps.
 */
#include "czk/r1cs.h"
#include "czk/alloc.h"
#include "czk/pool.h"
#include "ff/consts.h"
#include "ff/mont.h"

#include <string.h>

#define N 4

static const uint64_t P[N] = CZK__FR_P;
static const czk_fr FR_ONE = {CZK__FR_R};
/* p − R: the Montgomery form of −1. */
static const czk_fr FR_MINUS_ONE = {
    {0xfffffffd00000003ULL, 0xfb38ec08fffb13fcULL, 0x99ad88181ce5880fULL, 0x5bc8f5f97cd877d8ULL}};

/*
 * Rows per pool task. 4096 rows of a bit-heavy circuit are ~10^4 terms, tens of
 * microseconds: large enough to amortise the task hand-out, small enough to balance.
 */
#define ROWS_PER_TASK 4096

static void free_csr(czk_csr *m)
{
    czk_free(m->row_ptr);
    czk_free(m->col);
    czk_free(m->val);
    memset(m, 0, sizeof *m);
}

static bool alloc_csr(czk_csr *m, uint32_t n_rows, uint64_t nnz)
{
    memset(m, 0, sizeof *m);
    size_t cap = nnz > 0 ? (size_t)nnz : 1;
    m->row_ptr = czk_calloc((size_t)n_rows + 1, sizeof *m->row_ptr);
    m->col = czk_malloc(cap * sizeof *m->col);
    m->val = czk_malloc(cap * sizeof *m->val);
    return m->row_ptr != NULL && m->col != NULL && m->val != NULL;
}

czk_status czk_r1cs_alloc(czk_r1cs *r, uint32_t n_inputs, uint32_t n_aux, uint32_t n_constraints,
                          uint64_t nnz_a, uint64_t nnz_b, uint64_t nnz_c, czk_err *err)
{
    memset(r, 0, sizeof *r);
    if ((uint64_t)n_inputs + n_aux > UINT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "r1cs: %u inputs + %u aux exceed 2^32 columns",
                           n_inputs, n_aux);
    r->n_inputs = n_inputs;
    r->n_aux = n_aux;
    r->n_constraints = n_constraints;
    r->has_c = true;
    bool ok = alloc_csr(&r->a, n_constraints, nnz_a);
    ok = alloc_csr(&r->b, n_constraints, nnz_b) && ok;
    ok = alloc_csr(&r->c, n_constraints, nnz_c) && ok;
    if (!ok) {
        czk_r1cs_free(r);
        return czk_err_set(err, CZK_ENOMEM, "r1cs: out of memory for %u rows", n_constraints);
    }
    return CZK_OK;
}

void czk_r1cs_free(czk_r1cs *r)
{
    if (r == NULL) return;
    free_csr(&r->a);
    free_csr(&r->b);
    free_csr(&r->c);
    memset(r, 0, sizeof *r);
}

static inline bool fr_is_zero(const czk_fr *a)
{
    return limbs_is_zero(a->l, N);
}
static inline bool fr_eq(const czk_fr *a, const czk_fr *b)
{
    return limbs_eq(a->l, b->l, N);
}

/*
 * <row j, z>. Witness values of bit-heavy circuits are mostly 0 or 1 and coefficients
 * mostly ±1, so each term first tries the paths that need no Montgomery multiplication:
 * a zero value adds nothing, a one value adds the coefficient, a ±1 coefficient adds or
 * subtracts the value. The zero test branches, though a bit's value is unpredictable:
 * it skips loading the 32-byte coefficient, and a branch-free masked add that always
 * loads it ran 40% slower in bench_cs (the coefficient stream is the bandwidth).
 */
static inline void row_dot(czk_fr *out, const czk_csr *m, uint64_t j, const czk_fr *z)
{
    czk_fr acc = {{0}};
    uint64_t end = m->row_ptr[j + 1];
    for (uint64_t k = m->row_ptr[j]; k < end; k++) {
        const czk_fr *x = &z[m->col[k]];
        const czk_fr *v = &m->val[k];
        if (fr_is_zero(x)) continue;
        if (fr_eq(x, &FR_ONE)) {
            mont_add(acc.l, acc.l, v->l, P, N);
        } else if (fr_eq(v, &FR_ONE)) {
            mont_add(acc.l, acc.l, x->l, P, N);
        } else if (fr_eq(v, &FR_MINUS_ONE)) {
            mont_sub(acc.l, acc.l, x->l, P, N);
        } else {
            czk_fr t;
            czk_fr_mul(&t, x, v);
            mont_add(acc.l, acc.l, t.l, P, N);
        }
    }
    *out = acc;
}

struct eval_ctx {
    const czk_r1cs *r;
    const czk_fr *z;
    czk_fr *a, *b, *c;
};

static void eval_task(void *p, size_t task, unsigned worker)
{
    (void)worker;
    const struct eval_ctx *e = p;
    const czk_r1cs *r = e->r;
    /* Cancelled (czk_pool_cancelled): these rows stay unspecified. */
    if (czk_pool_cancelled()) return;
    uint64_t lo = (uint64_t)task * ROWS_PER_TASK;
    uint64_t hi = lo + ROWS_PER_TASK;
    if (hi > r->n_constraints) hi = r->n_constraints;
    for (uint64_t j = lo; j < hi; j++) {
        row_dot(&e->a[j], &r->a, j, e->z);
        row_dot(&e->b[j], &r->b, j, e->z);
        if (r->has_c)
            row_dot(&e->c[j], &r->c, j, e->z);
        else
            czk_fr_mul(&e->c[j], &e->a[j], &e->b[j]);
    }
}

void czk_r1cs_eval(const czk_r1cs *r, const czk_fr *z, czk_fr *a, czk_fr *b, czk_fr *c,
                   czk_pool *pool)
{
    struct eval_ctx e = {r, z, a, b, c};
    size_t ntasks = ((size_t)r->n_constraints + ROWS_PER_TASK - 1) / ROWS_PER_TASK;
    czk_pool_run(pool, ntasks, eval_task, &e);
}

bool czk_r1cs_is_satisfied(const czk_r1cs *r, const czk_fr *z, uint32_t *first_bad)
{
    if (!r->has_c) return true; /* c is defined as a∘b */
    for (uint32_t j = 0; j < r->n_constraints; j++) {
        czk_fr a, b, c, ab;
        row_dot(&a, &r->a, j, z);
        row_dot(&b, &r->b, j, z);
        row_dot(&c, &r->c, j, z);
        czk_fr_mul(&ab, &a, &b);
        if (!fr_eq(&ab, &c)) {
            if (first_bad != NULL) *first_bad = j;
            return false;
        }
    }
    return true;
}

void czk_r1cs_densities(const czk_r1cs *r, uint64_t *a_aux, uint64_t *b_input, uint64_t *b_aux)
{
    size_t aux_words = ((size_t)r->n_aux + 63) / 64;
    size_t in_words = ((size_t)r->n_inputs + 63) / 64;
    if (a_aux != NULL) memset(a_aux, 0, aux_words * sizeof *a_aux);
    if (b_aux != NULL) memset(b_aux, 0, aux_words * sizeof *b_aux);
    if (b_input != NULL) memset(b_input, 0, in_words * sizeof *b_input);
    uint64_t nnz_a = r->a.row_ptr != NULL ? r->a.row_ptr[r->n_constraints] : 0;
    uint64_t nnz_b = r->b.row_ptr != NULL ? r->b.row_ptr[r->n_constraints] : 0;
    /* Stored coefficients are non-zero by contract; a zero one is skipped anyway, as
     * bellperson's tracker skips zero coefficients. */
    if (a_aux != NULL) {
        for (uint64_t k = 0; k < nnz_a; k++) {
            uint32_t col = r->a.col[k];
            if (col < r->n_inputs || fr_is_zero(&r->a.val[k])) continue;
            uint32_t i = col - r->n_inputs;
            a_aux[i >> 6] |= 1ULL << (i & 63);
        }
    }
    for (uint64_t k = 0; k < nnz_b; k++) {
        uint32_t col = r->b.col[k];
        if (fr_is_zero(&r->b.val[k])) continue;
        if (col < r->n_inputs) {
            if (b_input != NULL) b_input[col >> 6] |= 1ULL << (col & 63);
        } else if (b_aux != NULL) {
            uint32_t i = col - r->n_inputs;
            b_aux[i >> 6] |= 1ULL << (i & 63);
        }
    }
}
