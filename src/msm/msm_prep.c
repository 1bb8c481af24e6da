/*
 * The group-independent half of the MSM: scalar conversion, density counting, the
 * classification pass, the plan (window width, splits, bucket kind) and the scratch
 * layout. See msm_internal.h for the overall flow.
 */
#include "czk/alloc.h"
#include "msm_internal.h"

#include <math.h>
#include <string.h>

#define ROUND64(x) (((x) + 63) & ~(size_t)63)

/* ------------------------------------------------------------------------------------ */
/* Scalars and densities                                                                */
/* ------------------------------------------------------------------------------------ */

#define FRS_CHUNK 8192

struct frs_ctx {
    czk_scalar *out;
    const czk_fr *in;
    size_t n;
};

static void frs_task(void *vctx, size_t task, unsigned worker)
{
    (void)worker;
    struct frs_ctx *ctx = vctx;
    size_t lo = task * FRS_CHUNK, hi = lo + FRS_CHUNK;
    if (hi > ctx->n) hi = ctx->n;
    for (size_t i = lo; i < hi; i++) czk_fr_to_u64s(ctx->out[i].l, &ctx->in[i]);
}

void czk_frs_to_scalars(czk_scalar *out, const czk_fr *in, size_t n, czk_pool *pool)
{
    struct frs_ctx ctx = {out, in, n};
    czk_pool_run(pool, (n + FRS_CHUNK - 1) / FRS_CHUNK, frs_task, &ctx);
}

size_t czk_density_count(const uint64_t *density, size_t n)
{
    size_t full = n / 64, count = 0;
    for (size_t w = 0; w < full; w++) count += (size_t)__builtin_popcountll(density[w]);
    if (n % 64 != 0) {
        uint64_t last = density[full] & (((uint64_t)1 << (n % 64)) - 1);
        count += (size_t)__builtin_popcountll(last);
    }
    return count;
}

/* ------------------------------------------------------------------------------------ */
/* Plan                                                                                 */
/* ------------------------------------------------------------------------------------ */

/* Batch-affine accumulation needs enough buckets that a batch rarely meets its own
 * buckets again; below 2^4 buckets XYZZ is always cheaper. */
#define BATCH_MIN_C 5
#define BATCH_MIN   16

/* Ones per task of the 0/1 fast path: enough that a task's fixed cost vanishes. */
#define ONES_PER_TASK 8192

/* Largest batch the plan may use with 2^(c−1) buckets: half the buckets at most, so that
 * a point finds its bucket already in the batch at most about a quarter of the time. */
static unsigned batch_limit(unsigned c, unsigned batch_cap)
{
    if (c < BATCH_MIN_C) return 0;
    size_t half = (size_t)1 << (c - 2);
    size_t k = half < batch_cap ? half : batch_cap;
    unsigned p = 0;
    while (((size_t)1 << (p + 1)) <= k) p++; /* a power of two */
    return k < BATCH_MIN ? 0 : 1u << p;
}

/*
 * Estimated time, in Fp multiplications on one worker, of the bucket phase with window
 * width c, S point ranges per window and batch K (0: XYZZ buckets). A task accumulates
 * m/S points and then reduces its 2^(c−1) buckets with running sums (one addition into
 * the running sum per non-empty bucket, one into the total per bucket; batch-affine from
 * 256 buckets on when the accumulation is); tasks run in rounds of nthreads; the caller
 * then sums the S parts and doubles c times per window. Memory is not modelled: the
 * window is capped instead (CZK__MSM_C_MAX).
 */
static double plan_cost(size_t m, unsigned nwin, unsigned c, unsigned S, unsigned K,
                        unsigned nthreads, const czk__msm_group *g)
{
    double nb = (double)((size_t)1 << (c - 1));
    double per = (double)m / S;
    double acc = g->madd + g->acc_extra;
    if (K != 0) {
        /* A point whose bucket is already in the batch takes the XYZZ path. */
        double conflict = (K / 2.0) / nb;
        if (conflict > 1) conflict = 1;
        acc = g->ba_add + g->acc_extra + g->inv / K + conflict * (g->madd - g->ba_add);
    }
    double used = nb * (1.0 - exp(-per / nb));
    double reduce;
    if (K != 0 && nb >= 256) {
        /* Batch-affine reduction: an affine addition per non-empty bucket and one per
         * bucket, in batches of up to 256 (pippenger_impl.h). */
        double kr = nb / 16 < 256 ? nb / 16 : 256;
        reduce = (used + nb) * (g->ba_add + g->inv / kr) + nb * 0.05;
    } else {
        reduce = used * (K != 0 ? g->madd : g->add) + nb * g->add + nb * 0.05;
    }
    double task = per * acc + reduce;
    double rounds = (double)((nwin * S + nthreads - 1) / nthreads);
    return rounds * task + (double)nwin * S * g->add + (double)nwin * c * g->dbl;
}

int czk__msm_force_batch;
unsigned czk__msm_force_c;
bool czk__msm_force_fallback;

/* Whether the overrides let the plan use batch K (0: XYZZ) where kmax is the largest. */
static bool batch_allowed(unsigned K, unsigned kmax)
{
    if (czk__msm_force_batch < 0) return K == 0;
    if (czk__msm_force_batch > 0 && kmax > 0) {
        unsigned want = BATCH_MIN;
        while (2 * want <= (unsigned)czk__msm_force_batch && 2 * want <= kmax) want *= 2;
        return K == want;
    }
    return true;
}

void czk__msm_plan_choose(czk__msm_plan *plan, size_t m, unsigned nbits, size_t n_one,
                          unsigned nthreads, unsigned c_cap, unsigned batch_cap,
                          const czk__msm_group *g)
{
    memset(plan, 0, sizeof *plan);
    if (nthreads == 0) nthreads = 1;
    if (n_one > 0) {
        size_t t = (n_one + ONES_PER_TASK - 1) / ONES_PER_TASK;
        size_t cap = 4 * (size_t)nthreads;
        if (cap > CZK__MSM_ONES_TASKS_MAX) cap = CZK__MSM_ONES_TASKS_MAX;
        plan->nones = (unsigned)(t < cap ? t : cap);
    }
    if (m == 0 || nbits == 0) return;
    if (c_cap > CZK__MSM_C_MAX) c_cap = CZK__MSM_C_MAX;
    double best = INFINITY;
    unsigned c_lo = 1;
    if (czk__msm_force_c != 0) c_lo = c_cap = czk__msm_force_c < c_cap ? czk__msm_force_c : c_cap;
    for (unsigned c = c_lo; c <= c_cap; c++) {
        unsigned nwin = (nbits + c) / c; /* ceil((nbits + 1) / c) */
        unsigned kmax = batch_limit(c, batch_cap);
        for (unsigned K = 0;; K = (K == 0) ? BATCH_MIN : 2 * K) {
            if (K > kmax) break;
            if (!batch_allowed(K, kmax)) continue;
            for (unsigned S = 1; S <= CZK__MSM_SPLIT_MAX && nwin * S <= CZK__MSM_TASKS_MAX; S++) {
                if ((size_t)S > m) break;
                double cost = plan_cost(m, nwin, c, S, K, nthreads, g);
                if (cost < best) {
                    best = cost;
                    plan->c = c;
                    plan->nwin = nwin;
                    plan->nsplit = S;
                    plan->batch = K;
                }
            }
            if (kmax == 0) break;
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* Scratch layout                                                                       */
/* ------------------------------------------------------------------------------------ */

void czk__msm_layout_compute(czk__msm_layout *L, size_t n, unsigned nthreads,
                             const czk__msm_group *g)
{
    memset(L, 0, sizeof *L);
    if (nthreads == 0) nthreads = 1;
    L->nwords = (n + 63) / 64;
    L->nchunks = (L->nwords + CZK__MSM_PREP_CHUNK_WORDS - 1) / CZK__MSM_PREP_CHUNK_WORDS;

    /* Worker areas hold the widest window the plan picks for n scalars of 255 bits (any
     * canonical scalar) or 256; the plan for other inputs is capped at c_cap. Both sizes
     * count: with 2 threads at 2^20, 256 bits give c = 15 (17 or 18 windows both take 9
     * rounds) where 255 bits give c = 16 (16 windows, 8 rounds). */
    czk__msm_plan p255, p256;
    czk__msm_plan_choose(&p255, n, 255, 0, nthreads, CZK__MSM_C_MAX, g->batch_max, g);
    czk__msm_plan_choose(&p256, n, 256, 0, nthreads, CZK__MSM_C_MAX, g->batch_max, g);
    L->c_cap = p255.c > p256.c ? p255.c : p256.c;
    if (L->c_cap == 0) L->c_cap = 1;
    L->nb_cap = (size_t)1 << (L->c_cap - 1);
    L->batch_cap = batch_limit(L->c_cap, g->batch_max);

    size_t off = 0;
    L->off_masks = off;
    off += ROUND64(8 * (5 * (L->nwords + 1) + 7 * L->nchunks));
    L->off_results = off;
    off += ROUND64((CZK__MSM_TASKS_MAX + CZK__MSM_ONES_TASKS_MAX) * g->xyzz_size);
    L->off_workers = off;

    size_t w = 0;
    L->w_state = w;
    w += ROUND64(L->nb_cap);
    L->w_aff = w;
    w += L->batch_cap != 0 ? ROUND64(L->nb_cap * g->aff_size) : 0;
    L->w_xyzz = w;
    w += ROUND64(L->nb_cap * g->xyzz_size);
    L->w_dx = w;
    w += ROUND64(L->batch_cap * g->fe_size);
    L->w_den = w;
    w += ROUND64(L->batch_cap * g->fe_size);
    L->w_pre = w;
    w += ROUND64(L->batch_cap * g->fe_size);
    L->w_pend = w;
    w += ROUND64(L->batch_cap * sizeof(czk__msm_pend));
    L->w_seg = w;
    w += L->batch_cap != 0 ? ROUND64(2 * CZK__MSM_RED_SEG_MAX * g->aff_size) : 0;
    L->worker_stride = w;

    L->total = off + nthreads * w + 63;
}

/* ------------------------------------------------------------------------------------ */
/* Classification                                                                       */
/* ------------------------------------------------------------------------------------ */

struct prep_ctx {
    czk__msm_prep *prep;
    const czk_scalar *scalars;
};

/* Density bits of word w, limited to the first n. */
static inline uint64_t density_word(const czk__msm_prep *prep, size_t w)
{
    uint64_t d = prep->density != NULL ? prep->density[w] : ~(uint64_t)0;
    if (w == prep->nwords - 1 && prep->n % 64 != 0) d &= ((uint64_t)1 << (prep->n % 64)) - 1;
    return d;
}

/* Pass 1: masks and per-word counts (stored where the prefix sums will go), per-chunk
 * totals and the OR of the other scalars. */
static void prep_classify(void *vctx, size_t ch, unsigned worker)
{
    (void)worker;
    struct prep_ctx *ctx = vctx;
    czk__msm_prep *prep = ctx->prep;
    size_t lo = ch * CZK__MSM_PREP_CHUNK_WORDS, hi = lo + CZK__MSM_PREP_CHUNK_WORDS;
    if (hi > prep->nwords) hi = prep->nwords;
    uint64_t nbase = 0, none = 0, nother = 0, or0 = 0, or1 = 0, or2 = 0, or3 = 0;
    for (size_t w = lo; w < hi; w++) {
        uint64_t d = density_word(prep, w), om = 0, onem = 0;
        const czk_scalar *s = ctx->scalars + 64 * w;
        for (uint64_t bits = d; bits != 0; bits &= bits - 1) {
            unsigned b = (unsigned)__builtin_ctzll(bits);
            const uint64_t *l = s[b].l;
            uint64_t high = l[1] | l[2] | l[3];
            if (high == 0 && l[0] <= 1) {
                onem |= l[0] << b;
            } else {
                om |= (uint64_t)1 << b;
                or0 |= l[0];
                or1 |= l[1];
                or2 |= l[2];
                or3 |= l[3];
            }
        }
        prep->other_mask[w] = om;
        prep->one_mask[w] = onem;
        uint64_t cb = (uint64_t)__builtin_popcountll(d);
        uint64_t co = (uint64_t)__builtin_popcountll(om);
        uint64_t c1 = (uint64_t)__builtin_popcountll(onem);
        prep->base_off[w] = cb;
        prep->other_pre[w] = co;
        prep->one_pre[w] = c1;
        nbase += cb;
        nother += co;
        none += c1;
    }
    uint64_t *cc = prep->chunk_cnt + 7 * ch;
    cc[0] = nbase;
    cc[1] = none;
    cc[2] = nother;
    cc[3] = or0;
    cc[4] = or1;
    cc[5] = or2;
    cc[6] = or3;
}

/* Pass 2: per-word counts to exclusive prefix sums, starting from the chunk's offsets
 * (which the caller has stored in place of the chunk's totals). */
static void prep_prefix(void *vctx, size_t ch, unsigned worker)
{
    (void)worker;
    struct prep_ctx *ctx = vctx;
    czk__msm_prep *prep = ctx->prep;
    size_t lo = ch * CZK__MSM_PREP_CHUNK_WORDS, hi = lo + CZK__MSM_PREP_CHUNK_WORDS;
    if (hi > prep->nwords) hi = prep->nwords;
    const uint64_t *cc = prep->chunk_cnt + 7 * ch;
    uint64_t ab = cc[0], a1 = cc[1], ao = cc[2];
    for (size_t w = lo; w < hi; w++) {
        uint64_t cb = prep->base_off[w], c1 = prep->one_pre[w], co = prep->other_pre[w];
        prep->base_off[w] = ab;
        prep->one_pre[w] = a1;
        prep->other_pre[w] = ao;
        ab += cb;
        a1 += c1;
        ao += co;
    }
}

void czk__msm_prepare(czk__msm_prep *prep, const czk_scalar *scalars, size_t n,
                      const uint64_t *density, const czk__msm_layout *L, uint8_t *base,
                      czk_pool *pool)
{
    memset(prep, 0, sizeof *prep);
    prep->n = n;
    prep->nwords = L->nwords;
    prep->density = density;
    uint64_t *u = (uint64_t *)(base + L->off_masks);
    size_t nw1 = L->nwords + 1;
    prep->other_mask = u;
    prep->one_mask = u + nw1;
    prep->base_off = u + 2 * nw1;
    prep->other_pre = u + 3 * nw1;
    prep->one_pre = u + 4 * nw1;
    prep->chunk_cnt = u + 5 * nw1;
    /* A zero word past the end, so that nothing reads past the masks. */
    prep->other_mask[L->nwords] = 0;
    prep->one_mask[L->nwords] = 0;

    struct prep_ctx ctx = {prep, scalars};
    czk_pool_run(pool, L->nchunks, prep_classify, &ctx);

    /* Chunk totals to chunk offsets (few: one per 65536 scalars). */
    uint64_t ab = 0, a1 = 0, ao = 0, acc_or[4] = {0, 0, 0, 0};
    for (size_t ch = 0; ch < L->nchunks; ch++) {
        uint64_t *cc = prep->chunk_cnt + 7 * ch;
        uint64_t cb = cc[0], c1 = cc[1], co = cc[2];
        cc[0] = ab;
        cc[1] = a1;
        cc[2] = ao;
        ab += cb;
        a1 += c1;
        ao += co;
        for (int l = 0; l < 4; l++) acc_or[l] |= cc[3 + l];
    }
    czk_pool_run(pool, L->nchunks, prep_prefix, &ctx);
    prep->other_pre[L->nwords] = ao;
    prep->one_pre[L->nwords] = a1;
    prep->base_off[L->nwords] = ab;
    prep->n_other = ao;
    prep->n_one = a1;
    prep->nbits = 0;
    for (int l = 3; l >= 0; l--) {
        if (acc_or[l] != 0) {
            prep->nbits = 64 * (unsigned)l + 64 - (unsigned)__builtin_clzll(acc_or[l]);
            break;
        }
    }
}
