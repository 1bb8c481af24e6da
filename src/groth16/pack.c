/*
 * Packed vectors of Fr (include/czk/pack.h): the host side, in two passes over ranges of
 * 64-element words on the pool's workers.
 *  1. Classify: the bitmaps and the range's own running counts, with no branch on the
 *     values (a's mix of 0, 1 and others defeats a branch predictor) and no stores of
 *     values.
 *  2. Place: each range's base added to its counts, and its values copied straight to
 *     their final places, found through the bitmap (only the cache lines holding values
 *     are read again).
 * No scratch memory: an earlier version kept each range's values in a growing buffer of
 * its own, and on a's profile (a third of the elements are values) spent most of its time
 * faulting in those fresh pages and copying them (2.4 GB/s a core, against 13 for b).
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

typedef struct pack_ctx {
    czk_packed_vec *p;
    const czk_fr *v;
    size_t *count; /* pass 1: each task's values; pass 2: each task's first value's index */
} pack_ctx;

static void task_words(const czk_packed_vec *p, size_t t, size_t *w0, size_t *w1)
{
    const size_t nw = czk_packed_words(p->n);
    *w0 = t * PACK_TASK_WORDS;
    *w1 = *w0 + PACK_TASK_WORDS < nw ? *w0 + PACK_TASK_WORDS : nw;
}

static void pack_classify_task(void *vctx, size_t t, unsigned worker)
{
    (void)worker;
    pack_ctx *x = vctx;
    czk_packed_vec *p = x->p;
    size_t w0, w1;
    task_words(p, t, &w0, &w1);
    const uint64_t o0 = CZK_FR_ONE.l[0], o1 = CZK_FR_ONE.l[1], o2 = CZK_FR_ONE.l[2],
                   o3 = CZK_FR_ONE.l[3];
    uint32_t count = 0;
    for (size_t w = w0; w < w1; w++) {
        const size_t i0 = w * 64;
        const size_t len = p->n - i0 < 64 ? p->n - i0 : 64;
        const czk_fr *e = &x->v[i0];
        uint64_t one = 0, other = 0;
        for (size_t j = 0; j < len; j++) {
            const uint64_t l0 = e[j].l[0], l1 = e[j].l[1], l2 = e[j].l[2], l3 = e[j].l[3];
            const uint64_t is_zero = (l0 | l1 | l2 | l3) == 0;
            const uint64_t is_one = ((l0 ^ o0) | (l1 ^ o1) | (l2 ^ o2) | (l3 ^ o3)) == 0;
            one |= is_one << j;
            other |= (1 ^ (is_zero | is_one)) << j;
        }
        p->ones[w] = one;
        p->others[w] = other;
        p->prefix[w] = count; /* the range's own count; its base comes in pass 2 */
        count += (uint32_t)__builtin_popcountll(other);
    }
    x->count[t] = count;
}

static void pack_place_task(void *vctx, size_t t, unsigned worker)
{
    (void)worker;
    pack_ctx *x = vctx;
    czk_packed_vec *p = x->p;
    size_t w0, w1;
    task_words(p, t, &w0, &w1);
    const uint32_t base = (uint32_t)x->count[t];
    czk_fr *out = p->vals + base;
    for (size_t w = w0; w < w1; w++) {
        p->prefix[w] += base;
        for (uint64_t bits = p->others[w]; bits != 0; bits &= bits - 1)
            *out++ = x->v[w * 64 + (size_t)__builtin_ctzll(bits)];
    }
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
    size_t *count = czk_malloc(ntasks * sizeof *count);
    if (count == NULL) return czk_err_set(err, CZK_ENOMEM, "pack: %zu task counts", ntasks);
    pack_ctx x = {p, v, count};
    czk_pool_run(pool, ntasks, pack_classify_task, &x);
    size_t total = 0;
    for (size_t t = 0; t < ntasks; t++) {
        const size_t c = count[t];
        count[t] = total;
        total += c;
    }
    p->n_other = total;
    czk_status rc = CZK_OK;
    if (total > p->vals_cap) {
        rc = czk_err_set(err, CZK_ERESOURCE,
                         "pack: %zu of %zu elements are neither 0 nor 1, room for %zu", total,
                         n, p->vals_cap);
    } else if (total > 0 && p->vals == NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "pack: vals is NULL");
    } else {
        czk_pool_run(pool, ntasks, pack_place_task, &x);
    }
    czk_free(count);
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
