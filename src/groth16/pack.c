/*
 * Packed vectors of Fr (include/czk/pack.h): the host side. One pass over the vector on the
 * pool's workers, each on its own range of 64-element words: the bitmaps and the range's
 * own running counts go straight to their places, the values to a scratch buffer of the
 * worker's task; a second, short pass adds each range's base to its counts and moves its
 * values into place. The vector is read once; only the values (a few percent of it on a
 * Filecoin partition) are written twice.
 */
#include "czk/pack.h"

#include "czk/alloc.h"

#include <string.h>

/* Words per task: 2^14 words are 2^20 elements, 32 MiB of input. */
#define PACK_TASK_WORDS ((size_t)1 << 14)

uint64_t czk_packed_bytes(const czk_packed_vec *p)
{
    uint64_t w = czk_packed_words(p->n);
    return w * (2 * sizeof(uint64_t) + sizeof(uint32_t)) + (uint64_t)p->n_other * sizeof(czk_fr);
}

typedef struct pack_task {
    czk_fr *vals; /* the task's values (scratch) */
    size_t count, cap;
    bool failed;
} pack_task;

typedef struct pack_ctx {
    czk_packed_vec *p;
    const czk_fr *v;
    pack_task *tasks;
    size_t ntasks;
    const size_t *base; /* second pass: each task's first value's index */
} pack_ctx;

static void pack_scan_task(void *vctx, size_t t, unsigned worker)
{
    (void)worker;
    pack_ctx *x = vctx;
    czk_packed_vec *p = x->p;
    pack_task *tk = &x->tasks[t];
    const size_t nw = czk_packed_words(p->n);
    const size_t w0 = t * PACK_TASK_WORDS;
    const size_t w1 = w0 + PACK_TASK_WORDS < nw ? w0 + PACK_TASK_WORDS : nw;
    size_t count = 0;
    const uint64_t o0 = CZK_FR_ONE.l[0], o1 = CZK_FR_ONE.l[1], o2 = CZK_FR_ONE.l[2],
                   o3 = CZK_FR_ONE.l[3];
    for (size_t w = w0; w < w1; w++) {
        const size_t i0 = w * 64;
        const size_t len = p->n - i0 < 64 ? p->n - i0 : 64;
        /* Room for a whole word's values: the loop below stores every element at the end
         * of the list and keeps it only when it is neither 0 nor 1, with no branch on the
         * value (a's mix of 0, 1 and others defeats a branch predictor). */
        if (count + 64 > tk->cap) {
            size_t cap = tk->cap ? 2 * tk->cap : 4096;
            czk_fr *nv = czk_realloc(tk->vals, cap * sizeof(czk_fr));
            if (nv == NULL) {
                tk->failed = true;
                return;
            }
            tk->vals = nv;
            tk->cap = cap;
        }
        uint64_t one = 0, other = 0;
        p->prefix[w] = (uint32_t)count; /* the range's own count; the base comes later */
        const czk_fr *e = &x->v[i0];
        czk_fr *out = tk->vals;
        for (size_t j = 0; j < len; j++) {
            const uint64_t l0 = e[j].l[0], l1 = e[j].l[1], l2 = e[j].l[2], l3 = e[j].l[3];
            const uint64_t is_zero = (l0 | l1 | l2 | l3) == 0;
            const uint64_t is_one = ((l0 ^ o0) | (l1 ^ o1) | (l2 ^ o2) | (l3 ^ o3)) == 0;
            const uint64_t is_other = 1 ^ (is_zero | is_one);
            one |= is_one << j;
            other |= is_other << j;
            out[count] = e[j];
            count += is_other;
        }
        p->ones[w] = one;
        p->others[w] = other;
    }
    tk->count = count;
}

static void pack_place_task(void *vctx, size_t t, unsigned worker)
{
    (void)worker;
    pack_ctx *x = vctx;
    czk_packed_vec *p = x->p;
    const pack_task *tk = &x->tasks[t];
    const size_t nw = czk_packed_words(p->n);
    const size_t w0 = t * PACK_TASK_WORDS;
    const size_t w1 = w0 + PACK_TASK_WORDS < nw ? w0 + PACK_TASK_WORDS : nw;
    const uint32_t b = (uint32_t)x->base[t];
    for (size_t w = w0; w < w1; w++) p->prefix[w] += b;
    if (tk->count) memcpy(p->vals + x->base[t], tk->vals, tk->count * sizeof(czk_fr));
}

czk_status czk_pack_vec(czk_packed_vec *p, const czk_fr *v, size_t n, czk_pool *pool,
                        czk_err *err)
{
    if (p == NULL) return czk_err_set(err, CZK_EINVAL, "pack: the packed vector is NULL");
    if (n >= ((size_t)1 << 32))
        return czk_err_set(err, CZK_EINVAL, "pack: n = %zu elements, at most 2^32 - 1", n);
    if (n > 0 && (v == NULL || p->ones == NULL || p->others == NULL || p->prefix == NULL))
        return czk_err_set(err, CZK_EINVAL, "pack: %s is NULL",
                           v == NULL         ? "the vector"
                           : p->ones == NULL ? "ones"
                           : p->others == NULL ? "others"
                                               : "prefix");
    p->n = n;
    p->n_other = 0;
    const size_t nw = czk_packed_words(n);
    const size_t ntasks = (nw + PACK_TASK_WORDS - 1) / PACK_TASK_WORDS;
    if (ntasks == 0) return CZK_OK;
    pack_task *tasks = czk_calloc(ntasks, sizeof *tasks);
    size_t *base = czk_malloc(ntasks * sizeof *base);
    if (tasks == NULL || base == NULL) {
        czk_free(tasks);
        czk_free(base);
        return czk_err_set(err, CZK_ENOMEM, "pack: %zu task records", ntasks);
    }
    pack_ctx x = {p, v, tasks, ntasks, base};
    czk_pool_run(pool, ntasks, pack_scan_task, &x);
    czk_status rc = CZK_OK;
    size_t total = 0;
    for (size_t t = 0; t < ntasks; t++) {
        if (tasks[t].failed) rc = CZK_ENOMEM;
        base[t] = total;
        total += tasks[t].count;
    }
    p->n_other = total;
    if (rc != CZK_OK) {
        czk_err_set(err, rc, "pack: a worker's scratch for the values");
    } else if (total > p->vals_cap) {
        rc = czk_err_set(err, CZK_ERESOURCE,
                         "pack: %zu of %zu elements are neither 0 nor 1, room for %zu", total,
                         n, p->vals_cap);
    } else if (total > 0 && p->vals == NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "pack: vals is NULL");
    } else {
        czk_pool_run(pool, ntasks, pack_place_task, &x);
    }
    for (size_t t = 0; t < ntasks; t++) czk_free(tasks[t].vals);
    czk_free(tasks);
    czk_free(base);
    return rc;
}

void czk_unpack_vec(czk_fr *out, const czk_packed_vec *p)
{
    for (size_t i = 0; i < p->n; i++) {
        const size_t w = i / 64;
        const uint64_t bit = (uint64_t)1 << (i % 64);
        if (p->others[w] & bit) {
            const uint64_t below = p->others[w] & (bit - 1);
            out[i] = p->vals[p->prefix[w] + (size_t)__builtin_popcountll(below)];
        } else if (p->ones[w] & bit) {
            out[i] = CZK_FR_ONE;
        } else {
            out[i] = CZK_FR_ZERO;
        }
    }
}
