/*
 * Fixed-base multiplication for the test-parameter generators (see fixed_base.h). Scalars
 * are cut into c-bit windows; table w holds d·2^(wc)·G for d = 1 .. 2^c − 1, so k·G is
 * the sum of one table entry per non-zero window. Work is split into chunks of points
 * whose Jacobian results share one batch inversion on the way to affine.
 */
#include <stdlib.h>
#include <string.h>

#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/log.h"
#include "groth16/fixed_base.h"

#define CHUNK 1024

/* Window width for n scalars: larger tables pay off only for many scalars. */
static unsigned window_bits(size_t n)
{
    if (n < (1u << 10)) return 6;
    if (n < (1u << 16)) return 10;
    return 14;
}

struct g1_table {
    unsigned c, nwin;
    czk_g1_affine *t; /* nwin × (2^c − 1): t[w·(2^c−1) + d − 1] = d·2^(wc)·G */
};

struct g1_table_ctx {
    struct g1_table *tab;
    const czk_g1_affine *base;
};

static void g1_table_task(void *p, size_t w, unsigned worker)
{
    struct g1_table_ctx *x = p;
    const size_t per = ((size_t)1 << x->tab->c) - 1;
    czk_g1_jac b, acc;
    czk_g1_jac_from_affine(&b, x->base);
    for (size_t k = 0; k < w * x->tab->c; k++) czk_g1_jac_dbl(&b, &b);
    czk_g1_jac *tmp = czk_malloc(per * sizeof *tmp);
    acc = b;
    for (size_t d = 0; d < per; d++) {
        tmp[d] = acc;
        czk_g1_jac_add(&acc, &acc, &b);
    }
    czk_g1s_jac_to_affine(x->tab->t + w * per, tmp, per, NULL);
    czk_free(tmp);
}

struct g1_mul_ctx {
    const struct g1_table *tab;
    const czk_fr *k;
    czk_g1_affine *out;
    size_t n;
};

static unsigned digit(const uint64_t l[4], unsigned bit, unsigned c)
{
    unsigned v = 0;
    for (unsigned i = 0; i < c && bit + i < 256; i++)
        v |= (unsigned)((l[(bit + i) / 64] >> ((bit + i) % 64)) & 1) << i;
    return v;
}

static void g1_mul_task(void *p, size_t t, unsigned worker)
{
    struct g1_mul_ctx *x = p;
    size_t lo = t * CHUNK, hi = lo + CHUNK < x->n ? lo + CHUNK : x->n;
    const unsigned c = x->tab->c;
    const size_t per = ((size_t)1 << c) - 1;
    czk_g1_jac acc[CHUNK];
    for (size_t i = lo; i < hi; i++) {
        uint64_t l[4];
        czk_fr_to_u64s(l, &x->k[i]);
        czk_g1_jac_set_inf(&acc[i - lo]);
        for (unsigned w = 0; w < x->tab->nwin; w++) {
            unsigned d = digit(l, w * c, c);
            if (d) czk_g1_jac_add_affine(&acc[i - lo], &acc[i - lo], &x->tab->t[w * per + d - 1]);
        }
    }
    czk_g1s_jac_to_affine(x->out + lo, acc, hi - lo, NULL);
}

struct g2_table {
    unsigned c, nwin;
    czk_g2_affine *t;
};

struct g2_table_ctx {
    struct g2_table *tab;
    const czk_g2_affine *base;
};

static void g2_table_task(void *p, size_t w, unsigned worker)
{
    struct g2_table_ctx *x = p;
    const size_t per = ((size_t)1 << x->tab->c) - 1;
    czk_g2_jac b, acc;
    czk_g2_jac_from_affine(&b, x->base);
    for (size_t k = 0; k < w * x->tab->c; k++) czk_g2_jac_dbl(&b, &b);
    czk_g2_jac *tmp = czk_malloc(per * sizeof *tmp);
    acc = b;
    for (size_t d = 0; d < per; d++) {
        tmp[d] = acc;
        czk_g2_jac_add(&acc, &acc, &b);
    }
    czk_g2s_jac_to_affine(x->tab->t + w * per, tmp, per, NULL);
    czk_free(tmp);
}

struct g2_mul_ctx {
    const struct g2_table *tab;
    const czk_fr *k;
    czk_g2_affine *out;
    size_t n;
};

#define G2_CHUNK 256

static void g2_mul_task(void *p, size_t t, unsigned worker)
{
    struct g2_mul_ctx *x = p;
    size_t lo = t * G2_CHUNK, hi = lo + G2_CHUNK < x->n ? lo + G2_CHUNK : x->n;
    const unsigned c = x->tab->c;
    const size_t per = ((size_t)1 << c) - 1;
    czk_g2_jac acc[G2_CHUNK];
    for (size_t i = lo; i < hi; i++) {
        uint64_t l[4];
        czk_fr_to_u64s(l, &x->k[i]);
        czk_g2_jac_set_inf(&acc[i - lo]);
        for (unsigned w = 0; w < x->tab->nwin; w++) {
            unsigned d = digit(l, w * c, c);
            if (d) czk_g2_jac_add_affine(&acc[i - lo], &acc[i - lo], &x->tab->t[w * per + d - 1]);
        }
    }
    czk_g2s_jac_to_affine(x->out + lo, acc, hi - lo, NULL);
}

void czk__progress_add(czk__progress *pr, uint64_t n)
{
    pr->done += n;
    if (pr->fn) pr->fn(pr->ctx, pr->done, pr->total);
}

/*
 * GPU dispatch: calls of at least GPU_MIN_N points go to GPU 0 when there is one, since
 * below that the CPU finishes before the GPU's setup (streams, pinned staging, the first
 * call's table) has paid off. Tests force every call onto the CPU, or onto GPU 0 for small
 * circuits (czk__fixed_base_set_where).
 */
#define GPU_MIN_N ((size_t)1 << 14)
/* Points per GPU call: one progress step each (a few tenths of a second on an H200). */
#define GPU_ROUND ((size_t)1 << 22)

static int g_where = CZK__FIXED_BASE_AUTO;

void czk__fixed_base_set_where(czk__fixed_base_where w)
{
    __atomic_store_n(&g_where, (int)w, __ATOMIC_RELAXED);
}

static bool use_gpu(size_t n)
{
    const int where = __atomic_load_n(&g_where, __ATOMIC_RELAXED);
    if (where == CZK__FIXED_BASE_CPU) return false;
    if (where != CZK__FIXED_BASE_GPU && n < GPU_MIN_N) return false;
    return czk_gpu_count() > 0;
}

/* Run the GPU path in rounds of GPU_ROUND points; on failure, log it and return false so
 * the caller computes everything again on the CPU (correct, only slower). The GPU's working
 * memory is kept across the rounds and handed back at the end: a setup is rare, and a
 * daemon should not hold a gigabyte for it. */
static bool g1_gpu(czk_g1_affine *out, const czk_fr *k, size_t n, czk__progress *pr)
{
    for (size_t lo = 0; lo < n; lo += GPU_ROUND) {
        size_t cnt = n - lo < GPU_ROUND ? n - lo : GPU_ROUND;
        czk_err e = {0};
        if (czk_gpu_g1s_fixed_base(0, out + lo, k + lo, cnt, &e) != CZK_OK) {
            CZK_LOG_WARN("fixed-base on the GPU failed, using the CPU", "group=1 n=%zu err=\"%s\"",
                         n, e.msg);
            pr->done -= lo;
            czk_gpu_fixed_base_release(0);
            return false;
        }
        czk__progress_add(pr, cnt);
    }
    czk_gpu_fixed_base_release(0);
    return true;
}

static bool g2_gpu(czk_g2_affine *out, const czk_fr *k, size_t n, czk__progress *pr)
{
    for (size_t lo = 0; lo < n; lo += GPU_ROUND) {
        size_t cnt = n - lo < GPU_ROUND ? n - lo : GPU_ROUND;
        czk_err e = {0};
        if (czk_gpu_g2s_fixed_base(0, out + lo, k + lo, cnt, &e) != CZK_OK) {
            CZK_LOG_WARN("fixed-base on the GPU failed, using the CPU", "group=2 n=%zu err=\"%s\"",
                         n, e.msg);
            pr->done -= 2 * lo;
            czk_gpu_fixed_base_release(0);
            return false;
        }
        czk__progress_add(pr, 2 * cnt);
    }
    czk_gpu_fixed_base_release(0);
    return true;
}

czk_status czk__g1s_fixed_base(czk_g1_affine *out, const czk_fr *k, size_t n, czk_pool *pool,
                               czk__progress *pr, czk_err *err)
{
    if (n == 0) return CZK_OK;
    if (use_gpu(n)) {
        if (g1_gpu(out, k, n, pr)) {
            CZK_LOG_INFO("fixed-base G1 done", "n=%zu backend=gpu gpu=0", n);
            return CZK_OK;
        }
    }
    CZK_LOG(n >= GPU_MIN_N ? CZK_LOG_INFO : CZK_LOG_DEBUG, "fixed-base G1", "n=%zu backend=cpu", n);
    struct g1_table tab;
    tab.c = window_bits(n);
    tab.nwin = (255 + tab.c - 1) / tab.c;
    size_t per = ((size_t)1 << tab.c) - 1;
    tab.t = czk_malloc(tab.nwin * per * sizeof *tab.t);
    if (tab.t == NULL)
        return czk_err_set(err, CZK_ENOMEM, "fixed-base: out of memory for the G1 table");
    struct g1_table_ctx tc = {&tab, &CZK_G1_GENERATOR};
    czk_pool_run(pool, tab.nwin, g1_table_task, &tc);
    size_t nch = (n + CHUNK - 1) / CHUNK, round = 64;
    for (size_t first = 0; first < nch; first += round) {
        size_t cnt = first + round < nch ? round : nch - first;
        size_t lo = first * CHUNK, hi = (first + cnt) * CHUNK < n ? (first + cnt) * CHUNK : n;
        struct g1_mul_ctx mc = {&tab, k + lo, out + lo, hi - lo};
        czk_pool_run(pool, cnt, g1_mul_task, &mc);
        czk__progress_add(pr, hi - lo);
    }
    czk_free(tab.t);
    return CZK_OK;
}

czk_status czk__g2s_fixed_base(czk_g2_affine *out, const czk_fr *k, size_t n, czk_pool *pool,
                               czk__progress *pr, czk_err *err)
{
    if (n == 0) return CZK_OK;
    if (use_gpu(n)) {
        if (g2_gpu(out, k, n, pr)) {
            CZK_LOG_INFO("fixed-base G2 done", "n=%zu backend=gpu gpu=0", n);
            return CZK_OK;
        }
    }
    CZK_LOG(n >= GPU_MIN_N ? CZK_LOG_INFO : CZK_LOG_DEBUG, "fixed-base G2", "n=%zu backend=cpu", n);
    struct g2_table tab;
    tab.c = window_bits(n) > 10 ? 10 : window_bits(n);
    tab.nwin = (255 + tab.c - 1) / tab.c;
    size_t per = ((size_t)1 << tab.c) - 1;
    tab.t = czk_malloc(tab.nwin * per * sizeof *tab.t);
    if (tab.t == NULL)
        return czk_err_set(err, CZK_ENOMEM, "fixed-base: out of memory for the G2 table");
    struct g2_table_ctx tc = {&tab, &CZK_G2_GENERATOR};
    czk_pool_run(pool, tab.nwin, g2_table_task, &tc);
    size_t nch = (n + G2_CHUNK - 1) / G2_CHUNK, round = 64;
    for (size_t first = 0; first < nch; first += round) {
        size_t cnt = first + round < nch ? round : nch - first;
        size_t lo = first * G2_CHUNK;
        size_t hi = (first + cnt) * G2_CHUNK < n ? (first + cnt) * G2_CHUNK : n;
        struct g2_mul_ctx mc = {&tab, k + lo, out + lo, hi - lo};
        czk_pool_run(pool, cnt, g2_mul_task, &mc);
        czk__progress_add(pr, 2 * (hi - lo)); /* a G2 multiplication costs about two G1 ones */
    }
    czk_free(tab.t);
    return CZK_OK;
}
