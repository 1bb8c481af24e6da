/*
 * Private to src/msm: what the G1 and G2 Pippenger share — the classification of scalars
 * into zeros, ones and the rest, Booth digits, the choice of window and batch, and the
 * scratch layout.
 *
 * How an MSM runs (czk_g1s_msm, czk_g2s_msm):
 *  1. Prepare (parallel over the scalars, czk__msm_prepare): one pass classifies every
 *     scalar whose density bit is set as 0, 1 or "other", into two bitmaps (one bit per
 *     scalar index), and records per 64-bit word the index of the word's first base and
 *     running counts of ones and others. This is the compaction of (scalar, base) pairs:
 *     0.6 bytes per scalar, instead of an index list of 8, and walking the set bits of
 *     a word gives both the scalar (its position) and the base (the popcount of the
 *     density bits below it).
 *  2. Plan (czk__msm_plan_choose): a cost model over the window width c, the number of
 *     point ranges each window is split into, and the bucket kind (batch-affine or
 *     XYZZ), for the number of "other" scalars and their largest bit length.
 *  3. One pool run: tasks (window, point range) accumulate Booth digits into buckets and
 *     reduce them to a partial window sum; further tasks sum the bases of scalar 1.
 *  4. The caller combines the window sums (Horner, c doublings per window).
 */
#ifndef CZK_MSM_INTERNAL_H
#define CZK_MSM_INTERNAL_H

#include "czk/msm.h"

#include <stdint.h>

/*
 * Largest window width; bucket arrays are 2^(c−1) points. Wider windows save additions
 * on paper from about 2^21 points on, but their buckets leave the caches: G1 at 2^22, one
 * thread, measured 4.25 us a point with c = 16, 4.45 with 17 and 4.53 with 19.
 */
#define CZK__MSM_C_MAX 16
/* Most point ranges one window is split into, and most (window, range) tasks. */
#define CZK__MSM_SPLIT_MAX 16
#define CZK__MSM_TASKS_MAX 512
/* Most segments of the batch-affine bucket reduction (see pippenger_impl.h). */
#define CZK__MSM_RED_SEG_MAX 256
/* Most tasks that sum the bases of scalar 1. */
#define CZK__MSM_ONES_TASKS_MAX 64
/* Scalars are classified in chunks of this many 64-bit words, one pool task each. */
#define CZK__MSM_PREP_CHUNK_WORDS 1024

/** Result of the classification pass; arrays live in the scratch area. */
typedef struct czk__msm_prep {
    size_t n;                /* scalars */
    size_t nwords;           /* ceil(n / 64) */
    const uint64_t *density; /* NULL: base i belongs to scalar i */
    uint64_t *other_mask;    /* bit i: density bit set and scalar i not in {0, 1} */
    uint64_t *one_mask;      /* bit i: density bit set and scalar i == 1 */
    uint64_t *base_off;      /* [w]: index of the base of the first density bit in word w */
    uint64_t *other_pre;     /* [w]: others before word w; [nwords] = total */
    uint64_t *one_pre;       /* [w]: ones before word w; [nwords] = total */
    uint64_t *chunk_cnt;     /* per chunk: bases, ones, others (3 words), then the OR of the
                                other scalars' limbs (4 words) */
    size_t n_other, n_one;
    unsigned nbits; /* bit length of the largest "other" scalar, 0 if none */
} czk__msm_prep;

/** Relative costs of one group's operations, in Fp multiplications, for the plan. */
typedef struct czk__msm_group {
    size_t fe_size, aff_size, xyzz_size;
    double madd;        /* XYZZ += affine */
    double add;         /* XYZZ += XYZZ */
    double dbl;         /* XYZZ doubling */
    double ba_add;      /* one batch-affine addition without its share of the inversion */
    double acc_extra;   /* per point accumulated: digit, bucket state, memory */
    double inv;         /* one field inversion */
    unsigned batch_max; /* largest batch of affine additions */
} czk__msm_group;

/** What one MSM does. */
typedef struct czk__msm_plan {
    unsigned c;      /* window width in bits; buckets per window 2^(c−1) */
    unsigned nwin;   /* windows: ceil((nbits + 1) / c) */
    unsigned nsplit; /* point ranges per window */
    unsigned batch;  /* affine additions per batch; 0: XYZZ buckets */
    unsigned nones;  /* tasks that sum the bases of scalar 1 */
} czk__msm_plan;

/** Where everything lives in the scratch area, for n scalars on nthreads workers. */
typedef struct czk__msm_layout {
    size_t nwords, nchunks;
    unsigned c_cap;     /* largest window width the worker areas hold */
    unsigned batch_cap; /* largest batch the worker areas hold */
    size_t nb_cap;      /* buckets per worker: 2^(c_cap − 1) */
    /* Byte offsets from the (64-byte aligned) start. */
    size_t off_masks, off_results, off_workers;
    size_t worker_stride;
    /* Offsets inside one worker area. */
    size_t w_state, w_aff, w_xyzz, w_dx, w_den, w_pre, w_pend, w_seg;
    size_t total; /* bytes, including 63 for aligning a caller's pointer */
} czk__msm_layout;

/** A pending batch-affine addition: *dst += ±*src (affine points of the group). */
typedef struct czk__msm_pend {
    const void *src;
    void *dst;
    uint32_t b;     /* the bucket (or segment) dst belongs to */
    uint32_t flags; /* CZK__MSM_PEND_* */
} czk__msm_pend;
#define CZK__MSM_PEND_NEG    1u /* add −src */
#define CZK__MSM_PEND_DBL    2u /* src equals dst: a doubling */
#define CZK__MSM_PEND_CANCEL 4u /* src is minus dst: the sum is infinity */

/*
 * Overrides for measurements (bench_msm: --xyzz, --batch, --window) and tests, 0 meaning "as the
 * plan chooses". czk__msm_force_batch < 0 forces XYZZ buckets, > 0 that batch size (capped by the
 * scratch); czk__msm_force_c forces the window width (capped likewise). Not for production use:
 * plain globals, read once per MSM.
 */
extern int czk__msm_force_batch;
extern unsigned czk__msm_force_c;
/* Tests: take the path that runs when scratch cannot be allocated. */
extern bool czk__msm_force_fallback;

void czk__msm_layout_compute(czk__msm_layout *L, size_t n, unsigned nthreads,
                             const czk__msm_group *g);
void czk__msm_prepare(czk__msm_prep *prep, const czk_scalar *scalars, size_t n,
                      const uint64_t *density, const czk__msm_layout *L, uint8_t *base,
                      czk_pool *pool);
void czk__msm_plan_choose(czk__msm_plan *plan, size_t m, unsigned nbits, size_t n_one,
                          unsigned nthreads, unsigned c_cap, unsigned batch_cap,
                          const czk__msm_group *g);

/* Group descriptions (msm_g1.c, msm_g2.c). */
extern const czk__msm_group czk__msm_g1_group, czk__msm_g2_group;

/*
 * Signed (Booth) digit of window w, width c: d = v − 2^c·t, where v is the c-bit window
 * at bits [wc, wc + c) plus the bit just below it (bit wc − 1, zero for w = 0), and t is
 * the window's top bit. The sum of d·2^(wc) over windows telescopes to the scalar, and
 * |d| ≤ 2^(c−1), so a window needs only 2^(c−1) buckets (the sign goes on the point).
 * Each digit reads only c + 1 bits, so windows are independent: no carry runs through.
 * Bits at and above 256 are zero; with ceil((nbits + 1)/c) windows, the top window's top
 * bit is zero and nothing is lost.
 */
static inline int32_t czk__msm_booth_digit(const czk_scalar *s, unsigned w, unsigned c)
{
    uint64_t bits;
    uint64_t mask = ((uint64_t)1 << (c + 1)) - 1;
    if (w == 0) {
        bits = (s->l[0] << 1) & mask;
    } else {
        unsigned lo = w * c - 1;
        unsigned limb = lo >> 6, off = lo & 63;
        if (limb >= 4) return 0;
        bits = s->l[limb] >> off;
        if (off + c + 1 > 64 && limb + 1 < 4) bits |= s->l[limb + 1] << (64 - off);
        bits &= mask;
    }
    int32_t v = (int32_t)((bits >> 1) + (bits & 1));
    return v - (int32_t)((bits >> c) << c);
}

/* Iterates the set bits of one bitmap (others or ones) from a given ordinal on, giving
 * each one's scalar index and base index. */
typedef struct czk__msm_iter {
    const uint64_t *mask, *density, *base_off;
    size_t word;
    uint64_t bits;
} czk__msm_iter;

/* Position the iterator at the set bit with ordinal `lo` (0-based) of `mask`, whose
 * per-word prefix counts are `pre` (nwords + 1 entries). */
static inline void czk__msm_iter_init(czk__msm_iter *it, const czk__msm_prep *prep,
                                      const uint64_t *mask, const uint64_t *pre, size_t lo)
{
    /* Largest word w with pre[w] <= lo and a set bit left at or after ordinal lo. */
    size_t a = 0, b = prep->nwords; /* pre[a] <= lo < pre[b] */
    while (b - a > 1) {
        size_t mid = a + (b - a) / 2;
        if (pre[mid] <= lo)
            a = mid;
        else
            b = mid;
    }
    uint64_t bits = mask[a];
    for (uint64_t skip = lo - pre[a]; skip > 0; skip--) bits &= bits - 1;
    it->mask = mask;
    it->density = prep->density;
    it->base_off = prep->base_off;
    it->word = a;
    it->bits = bits;
}

/* Next set bit (the caller knows how many are left): scalar index *i, base index *k. */
static inline void czk__msm_iter_next(czk__msm_iter *it, size_t *i, size_t *k)
{
    while (it->bits == 0) it->bits = it->mask[++it->word];
    unsigned b = (unsigned)__builtin_ctzll(it->bits);
    it->bits &= it->bits - 1;
    *i = it->word * 64 + b;
    if (it->density == NULL) {
        *k = *i;
    } else {
        uint64_t below = it->density[it->word] & (((uint64_t)1 << b) - 1);
        *k = it->base_off[it->word] + (size_t)__builtin_popcountll(below);
    }
}

#endif
