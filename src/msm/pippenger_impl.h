/*
 * Pippenger's bucket method, written once for G1 and G2 (private to src/msm). The
 * includer defines, before including:
 *
 *   fe, ec_aff, ec_xyzz, ec_jac     field element and point types (members as in
 *                                   czk/bls12_381.h)
 *   fe_add, fe_sub, fe_dbl, fe_neg, fe_mul, fe_sqr, fe_inv   (out, in...)
 *   fe_is_zero, fe_eq               predicates
 *   FE_ONE                          the constant 1 (Montgomery)
 *   fe_den, DEN_ONE, den_from, den_mul, den_inv, inv_finish
 *                                   how batch inversions run: den_from(&n, &d) maps a
 *                                   denominator d into the field where Montgomery's
 *                                   trick runs, den_mul/den_inv multiply and invert
 *                                   there, inv_finish(&r, &d, &ninv) turns the inverse
 *                                   of den_from(d) into 1/d
 *   MSM_GROUP                       the group's czk__msm_group (costs, sizes)
 *
 * and gets msm_run(), which computes the MSM into an XYZZ point.
 *
 * Buckets. A worker owns, for the task it runs, 2^(c−1) buckets. With batch-affine
 * accumulation (plan.batch > 0) a bucket is an affine point, and an addition into it is
 * queued; when `batch` additions are queued, their denominators x_P − x_B are inverted
 * together (Montgomery's trick: 3 multiplications each plus one inversion per batch), and
 * each addition then costs 1S + 2M: about 6.5 multiplications with the inversion's share,
 * against 8M + 2S for an XYZZ mixed addition. A point whose bucket already has an
 * addition queued goes into a second, XYZZ bucket of the same index (so a run of equal
 * digits never stalls the batch); the two are added at the reduction. With plan.batch =
 * 0 only the XYZZ buckets are used.
 *
 * Point formulas are the EFD's for a = 0 (hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html:
 * madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s-1), with the exceptional cases
 * (infinity, P + P, P − P) handled explicitly. Everything is variable-time: bases and
 * scalars of a proof are not secret from the prover that runs it.
 */
#ifndef CZK_MSM_PIPPENGER_IMPL_H
#define CZK_MSM_PIPPENGER_IMPL_H

#include "czk/alloc.h"
#include "msm_internal.h"

#include <string.h>

/* ------------------------------------------------------------------------------------ */
/* Points                                                                               */
/* ------------------------------------------------------------------------------------ */

static inline bool aff_is_inf(const ec_aff *p)
{
    return fe_is_zero(&p->x) && fe_is_zero(&p->y);
}

static inline void xyzz_set_inf(ec_xyzz *r)
{
    r->x = FE_ONE;
    r->y = FE_ONE;
    memset(&r->zz, 0, sizeof r->zz);
    memset(&r->zzz, 0, sizeof r->zzz);
}

static inline bool xyzz_is_inf(const ec_xyzz *p)
{
    return fe_is_zero(&p->zz);
}

static inline void xyzz_from_aff(ec_xyzz *r, const fe *x, const fe *y)
{
    r->x = *x;
    r->y = *y;
    r->zz = FE_ONE;
    r->zzz = FE_ONE;
}

/* mdbl-2008-s-1: r = 2·(x, y). */
static void xyzz_dbl_aff(ec_xyzz *r, const fe *x, const fe *y)
{
    fe u, v, w, s, m, t;
    fe_dbl(&u, y);      /* U = 2Y */
    fe_sqr(&v, &u);     /* V = U^2 */
    fe_mul(&w, &u, &v); /* W = U·V */
    fe_mul(&s, x, &v);  /* S = X·V */
    fe_sqr(&m, x);
    fe_dbl(&t, &m);
    fe_add(&m, &m, &t); /* M = 3X^2 */
    fe_mul(&t, &w, y);  /* W·Y */
    fe_sqr(&r->x, &m);
    fe_sub(&r->x, &r->x, &s);
    fe_sub(&r->x, &r->x, &s); /* X3 = M^2 − 2S */
    fe_sub(&s, &s, &r->x);
    fe_mul(&s, &m, &s);
    fe_sub(&r->y, &s, &t); /* Y3 = M(S − X3) − W·Y */
    r->zz = v;
    r->zzz = w;
}

/* dbl-2008-s-1: r = 2r (infinity stays infinity: ZZ3 = V·ZZ1 = 0). */
static void xyzz_dbl(ec_xyzz *r)
{
    fe u, v, w, s, m, t;
    fe_dbl(&u, &r->y);
    fe_sqr(&v, &u);
    fe_mul(&w, &u, &v);
    fe_mul(&s, &r->x, &v);
    fe_sqr(&m, &r->x);
    fe_dbl(&t, &m);
    fe_add(&m, &m, &t);
    fe_mul(&t, &w, &r->y);
    fe_mul(&r->zz, &r->zz, &v);
    fe_mul(&r->zzz, &r->zzz, &w);
    fe_sqr(&r->x, &m);
    fe_sub(&r->x, &r->x, &s);
    fe_sub(&r->x, &r->x, &s);
    fe_sub(&s, &s, &r->x);
    fe_mul(&s, &m, &s);
    fe_sub(&r->y, &s, &t);
}

/* madd-2008-s: r += (x2, y2), an affine point that is not infinity. */
static void xyzz_add_aff(ec_xyzz *r, const fe *x2, const fe *y2)
{
    if (xyzz_is_inf(r)) {
        xyzz_from_aff(r, x2, y2);
        return;
    }
    fe p, q, pp, ppp, t;
    fe_mul(&p, x2, &r->zz);
    fe_sub(&p, &p, &r->x); /* P = X2·ZZ1 − X1 */
    fe_mul(&q, y2, &r->zzz);
    fe_sub(&q, &q, &r->y); /* R = Y2·ZZZ1 − Y1 */
    if (fe_is_zero(&p)) {
        if (fe_is_zero(&q))
            xyzz_dbl_aff(r, x2, y2);
        else
            xyzz_set_inf(r);
        return;
    }
    fe_sqr(&pp, &p);       /* PP = P^2 */
    fe_mul(&ppp, &p, &pp); /* PPP = P·PP */
    fe_mul(&r->zz, &r->zz, &pp);
    fe_mul(&r->zzz, &r->zzz, &ppp);
    fe_mul(&pp, &r->x, &pp); /* Q = X1·PP */
    fe_sqr(&t, &q);
    fe_sub(&t, &t, &ppp);
    fe_sub(&t, &t, &pp);
    fe_sub(&r->x, &t, &pp); /* X3 = R^2 − PPP − 2Q */
    fe_sub(&t, &pp, &r->x);
    fe_mul(&t, &q, &t);
    fe_mul(&ppp, &r->y, &ppp);
    fe_sub(&r->y, &t, &ppp); /* Y3 = R(Q − X3) − Y1·PPP */
}

/* add-2008-s: r += q. */
static void xyzz_add(ec_xyzz *r, const ec_xyzz *q)
{
    if (xyzz_is_inf(q)) return;
    if (xyzz_is_inf(r)) {
        *r = *q;
        return;
    }
    fe u1, s1, p, rr, pp, ppp, t;
    fe_mul(&u1, &r->x, &q->zz); /* U1 = X1·ZZ2 */
    fe_mul(&p, &q->x, &r->zz);
    fe_sub(&p, &p, &u1);         /* P = U2 − U1 */
    fe_mul(&s1, &r->y, &q->zzz); /* S1 = Y1·ZZZ2 */
    fe_mul(&rr, &q->y, &r->zzz);
    fe_sub(&rr, &rr, &s1); /* R = S2 − S1 */
    if (fe_is_zero(&p)) {
        if (fe_is_zero(&rr))
            xyzz_dbl(r);
        else
            xyzz_set_inf(r);
        return;
    }
    fe_sqr(&pp, &p);
    fe_mul(&ppp, &p, &pp);
    fe_mul(&r->zz, &r->zz, &q->zz);
    fe_mul(&r->zz, &r->zz, &pp); /* ZZ3 = ZZ1·ZZ2·PP */
    fe_mul(&r->zzz, &r->zzz, &q->zzz);
    fe_mul(&r->zzz, &r->zzz, &ppp); /* ZZZ3 = ZZZ1·ZZZ2·PPP */
    fe_mul(&pp, &u1, &pp);          /* Q = U1·PP */
    fe_sqr(&t, &rr);
    fe_sub(&t, &t, &ppp);
    fe_sub(&t, &t, &pp);
    fe_sub(&r->x, &t, &pp); /* X3 = R^2 − PPP − 2Q */
    fe_sub(&t, &pp, &r->x);
    fe_mul(&t, &rr, &t);
    fe_mul(&ppp, &s1, &ppp);
    fe_sub(&r->y, &t, &ppp); /* Y3 = R(Q − X3) − S1·PPP */
}

/* ------------------------------------------------------------------------------------ */
/* Buckets                                                                              */
/* ------------------------------------------------------------------------------------ */

#define ST_AFF  1u /* aff[b] holds a point */
#define ST_BUSY 2u /* aff[b] has an addition queued in the batch */
#define ST_XYZZ 4u /* xyzz[b] holds a point */

typedef struct bucket_set {
    uint8_t *state;
    ec_aff *aff;
    ec_xyzz *xyzz;
    fe *dx;            /* per queued addition: the denominator */
    fe_den *den, *pre; /* its form for the inversion, and the prefix products */
    czk__msm_pend *pend;
    ec_aff *seg; /* 2·CZK__MSM_RED_SEG_MAX points: the reduction's running sums */
    unsigned batch, npend;
} bucket_set;

static void bucket_set_init(bucket_set *bs, uint8_t *area, const czk__msm_layout *L, unsigned batch,
                            size_t nb)
{
    bs->state = area + L->w_state;
    bs->aff = (ec_aff *)(area + L->w_aff);
    bs->xyzz = (ec_xyzz *)(area + L->w_xyzz);
    bs->dx = (fe *)(area + L->w_dx);
    bs->den = (fe_den *)(area + L->w_den);
    bs->pre = (fe_den *)(area + L->w_pre);
    bs->pend = (czk__msm_pend *)(area + L->w_pend);
    bs->seg = (ec_aff *)(area + L->w_seg);
    bs->batch = batch;
    bs->npend = 0;
    memset(bs->state, 0, nb);
}

/* xyzz[b] += (p->x, *y). */
static inline void bucket_add_xyzz(bucket_set *bs, uint32_t b, const ec_aff *p, const fe *y)
{
    if (bs->state[b] & ST_XYZZ) {
        xyzz_add_aff(&bs->xyzz[b], &p->x, y);
    } else {
        xyzz_from_aff(&bs->xyzz[b], &p->x, y);
        bs->state[b] |= ST_XYZZ;
    }
}

/* The y of ±p. */
static inline const fe *signed_y(const ec_aff *p, bool neg, fe *tmp)
{
    if (!neg) return &p->y;
    fe_neg(tmp, &p->y);
    return tmp;
}

/*
 * *dst += ±*src for the n entries (finite affine points, distinct dst), with one
 * inversion. Forward: denominators d_j = x_src − x_dst (2·y_dst for a doubling), in the
 * form the includer inverts (den_from: the element itself for Fp; its norm, an Fp element,
 * for Fp2), and their prefix products. Backward: each 1/d_j from the running inverse, then
 * λ, x3 = λ^2 − x_dst − x_src, y3 = λ(x_dst − x3) − y_dst. A sum at infinity sets
 * CZK__MSM_PEND_CANCEL (the caller empties dst).
 */
#define PREFETCH_AHEAD 8

static void batch_add(czk__msm_pend *e, unsigned n, fe *dx, fe_den *den, fe_den *pre)
{
    if (n == 0) return;
    fe_den acc = DEN_ONE;
    fe tmp;
    for (unsigned j = 0; j < n; j++) {
        const ec_aff *p = e[j].src;
        const ec_aff *B = e[j].dst;
        fe *d = &dx[j];
        if (j + PREFETCH_AHEAD < n) {
            __builtin_prefetch(e[j + PREFETCH_AHEAD].dst);
            __builtin_prefetch((const char *)e[j + PREFETCH_AHEAD].dst + sizeof(ec_aff) - 1);
        }
        fe_sub(d, &p->x, &B->x);
        if (fe_is_zero(d)) {
            /* Same x: src = dst doubles, src = −dst cancels. A point with y = 0 would be
             * 2-torsion, which neither curve has (both orders are odd); it is treated as
             * cancelling rather than divided by zero. */
            const fe *y = signed_y(p, e[j].flags & CZK__MSM_PEND_NEG, &tmp);
            if (fe_eq(y, &B->y) && !fe_is_zero(y)) {
                e[j].flags |= CZK__MSM_PEND_DBL;
                fe_dbl(d, &B->y);
            } else {
                e[j].flags |= CZK__MSM_PEND_CANCEL;
                continue;
            }
        }
        den_from(&den[j], d);
        pre[j] = acc;
        den_mul(&acc, &acc, &den[j]);
    }
    den_inv(&acc, &acc);
    for (unsigned j = n; j-- > 0;) {
        if (j >= PREFETCH_AHEAD) {
            __builtin_prefetch(e[j - PREFETCH_AHEAD].dst);
            __builtin_prefetch((const char *)e[j - PREFETCH_AHEAD].dst + sizeof(ec_aff) - 1);
            __builtin_prefetch(e[j - PREFETCH_AHEAD].src);
            __builtin_prefetch((const char *)e[j - PREFETCH_AHEAD].src + sizeof(ec_aff) - 1);
        }
        if (e[j].flags & CZK__MSM_PEND_CANCEL) continue;
        const ec_aff *p = e[j].src;
        ec_aff *B = e[j].dst;
        fe_den ninv;
        fe dinv, lam, t, x3;
        den_mul(&ninv, &acc, &pre[j]);
        den_mul(&acc, &acc, &den[j]);
        inv_finish(&dinv, &dx[j], &ninv);
        if (e[j].flags & CZK__MSM_PEND_DBL) {
            fe_sqr(&t, &B->x);
            fe_dbl(&lam, &t);
            fe_add(&t, &lam, &t); /* 3 x^2 */
        } else if (e[j].flags & CZK__MSM_PEND_NEG) {
            fe_add(&t, &p->y, &B->y);
            fe_neg(&t, &t); /* −y_src − y_dst */
        } else {
            fe_sub(&t, &p->y, &B->y);
        }
        fe_mul(&lam, &t, &dinv);
        fe_sqr(&x3, &lam);
        fe_sub(&x3, &x3, &B->x);
        fe_sub(&x3, &x3, &p->x);
        fe_sub(&t, &B->x, &x3);
        fe_mul(&t, &lam, &t);
        fe_sub(&B->y, &t, &B->y);
        B->x = x3;
    }
}

/* Carry out the queued additions into the affine buckets. */
static void bucket_flush(bucket_set *bs)
{
    unsigned n = bs->npend;
    batch_add(bs->pend, n, bs->dx, bs->den, bs->pre);
    for (unsigned j = 0; j < n; j++) {
        const czk__msm_pend *e = &bs->pend[j];
        uint8_t clear = (e->flags & CZK__MSM_PEND_CANCEL) ? (ST_AFF | ST_BUSY) : ST_BUSY;
        bs->state[e->b] &= (uint8_t)~clear;
    }
    bs->npend = 0;
}

/* Bucket b += ±p (p not infinity). */
static inline void bucket_add(bucket_set *bs, uint32_t b, const ec_aff *p, bool neg)
{
    uint8_t st = bs->state[b];
    if (bs->batch == 0 || (st & ST_BUSY)) {
        fe tmp;
        bucket_add_xyzz(bs, b, p, signed_y(p, neg, &tmp));
        return;
    }
    if (!(st & ST_AFF)) {
        bs->aff[b].x = p->x;
        if (neg)
            fe_neg(&bs->aff[b].y, &p->y);
        else
            bs->aff[b].y = p->y;
        bs->state[b] = (uint8_t)(st | ST_AFF);
        return;
    }
    czk__msm_pend *e = &bs->pend[bs->npend++];
    e->src = p;
    e->dst = &bs->aff[b];
    e->b = b;
    e->flags = neg ? CZK__MSM_PEND_NEG : 0;
    bs->state[b] = (uint8_t)(st | ST_BUSY);
    if (bs->npend == bs->batch) bucket_flush(bs);
}

/*
 * Move the XYZZ buckets (the points that found their bucket busy) into the affine ones:
 * in chunks, convert with one inversion of ZZ·ZZZ per chunk (1/ZZ = ZZZ/(ZZ·ZZZ), 1/ZZZ =
 * ZZ/(ZZ·ZZZ)), then add them to their affine twins in one batch.
 */
static void bucket_fold_xyzz(bucket_set *bs, size_t nb)
{
    unsigned cap = bs->batch < 2 * CZK__MSM_RED_SEG_MAX ? bs->batch : 2 * CZK__MSM_RED_SEG_MAX;
    ec_aff *tmp = bs->seg;
    size_t b = 0;
    for (;;) {
        unsigned n = 0;
        for (; b < nb && n < cap; b++) {
            if (!(bs->state[b] & ST_XYZZ)) continue;
            bs->state[b] &= (uint8_t)~ST_XYZZ;
            if (xyzz_is_inf(&bs->xyzz[b])) continue;
            bs->pend[n++].b = (uint32_t)b;
        }
        if (n == 0) break;
        fe_den acc = DEN_ONE;
        for (unsigned j = 0; j < n; j++) {
            const ec_xyzz *q = &bs->xyzz[bs->pend[j].b];
            fe_mul(&bs->dx[j], &q->zz, &q->zzz);
            den_from(&bs->den[j], &bs->dx[j]);
            bs->pre[j] = acc;
            den_mul(&acc, &acc, &bs->den[j]);
        }
        den_inv(&acc, &acc);
        for (unsigned j = n; j-- > 0;) {
            const ec_xyzz *q = &bs->xyzz[bs->pend[j].b];
            fe_den ninv;
            fe inv, t;
            den_mul(&ninv, &acc, &bs->pre[j]);
            den_mul(&acc, &acc, &bs->den[j]);
            inv_finish(&inv, &bs->dx[j], &ninv); /* 1/(ZZ·ZZZ) */
            fe_mul(&t, &inv, &q->zzz);
            fe_mul(&tmp[j].x, &q->x, &t);
            fe_mul(&t, &inv, &q->zz);
            fe_mul(&tmp[j].y, &q->y, &t);
        }
        unsigned m = 0;
        for (unsigned j = 0; j < n; j++) {
            uint32_t bj = bs->pend[j].b;
            if (bs->state[bj] & ST_AFF) {
                bs->pend[m++] = (czk__msm_pend){&tmp[j], &bs->aff[bj], bj, 0};
            } else {
                bs->aff[bj] = tmp[j];
                bs->state[bj] |= ST_AFF;
            }
        }
        batch_add(bs->pend, m, bs->dx, bs->den, bs->pre);
        for (unsigned j = 0; j < m; j++)
            if (bs->pend[j].flags & CZK__MSM_PEND_CANCEL)
                bs->state[bs->pend[j].b] &= (uint8_t)~ST_AFF;
    }
}

/* Segments of the batch-affine reduction for nb buckets; 0: use the XYZZ reduction. A
 * segment has at least 16 buckets, and a step's batch at least 16 additions. */
static unsigned reduce_segments(size_t nb, unsigned batch)
{
    size_t k = nb / 16;
    if (k > CZK__MSM_RED_SEG_MAX) k = CZK__MSM_RED_SEG_MAX;
    if (k > batch) k = batch;
    return k >= 16 ? (unsigned)k : 0;
}

/*
 * Sum over b of (b + 1)·bucket[b] with batch-affine additions. The nb buckets are cut into
 * K segments of L; the segments run their running sums in lockstep, from the top of each:
 * R_t += bucket[tL + i], then T_t += R_t, each step one batch of K additions (one
 * inversion) for the R's and one for the T's. That is two affine additions per bucket,
 * about 13 multiplications, against an XYZZ mixed plus a full addition (about 26) for a
 * plain running sum. Then T_t = sum_i (i + 1)·bucket[tL + i] and R_t = sum_i bucket[tL +
 * i], and the result is sum_t T_t + L·sum_t t·R_t (a short XYZZ running sum over t and
 * log2 L doublings).
 */
static void bucket_reduce_batch(ec_xyzz *out, bucket_set *bs, size_t nb, unsigned K)
{
    bucket_fold_xyzz(bs, nb);
    size_t L = nb / K;
    ec_aff *R = bs->seg, *T = bs->seg + K;
    uint8_t has_r[CZK__MSM_RED_SEG_MAX], has_t[CZK__MSM_RED_SEG_MAX];
    memset(has_r, 0, K);
    memset(has_t, 0, K);
    for (size_t i = L; i-- > 0;) {
        unsigned n = 0;
        for (unsigned t = 0; t < K; t++) {
            size_t b = t * L + i;
            if (!(bs->state[b] & ST_AFF)) continue;
            if (!has_r[t]) {
                R[t] = bs->aff[b];
                has_r[t] = 1;
            } else {
                bs->pend[n++] = (czk__msm_pend){&bs->aff[b], &R[t], t, 0};
            }
        }
        batch_add(bs->pend, n, bs->dx, bs->den, bs->pre);
        for (unsigned j = 0; j < n; j++)
            if (bs->pend[j].flags & CZK__MSM_PEND_CANCEL) has_r[bs->pend[j].b] = 0;
        n = 0;
        for (unsigned t = 0; t < K; t++) {
            if (!has_r[t]) continue;
            if (!has_t[t]) {
                T[t] = R[t];
                has_t[t] = 1;
            } else {
                bs->pend[n++] = (czk__msm_pend){&R[t], &T[t], t, 0};
            }
        }
        batch_add(bs->pend, n, bs->dx, bs->den, bs->pre);
        for (unsigned j = 0; j < n; j++)
            if (bs->pend[j].flags & CZK__MSM_PEND_CANCEL) has_t[bs->pend[j].b] = 0;
    }
    ec_xyzz acc, run, tot;
    xyzz_set_inf(&acc);
    xyzz_set_inf(&run);
    xyzz_set_inf(&tot);
    for (unsigned t = K; t-- > 0;) {
        if (has_t[t]) xyzz_add_aff(&acc, &T[t].x, &T[t].y);
        if (t == 0) break;
        if (has_r[t]) xyzz_add_aff(&run, &R[t].x, &R[t].y);
        xyzz_add(&tot, &run); /* tot = sum_t t·R_t */
    }
    for (size_t l = L; l > 1; l >>= 1) xyzz_dbl(&tot);
    xyzz_add(&acc, &tot);
    *out = acc;
}

/* Sum over b of (b + 1)·bucket[b], by running sums from the top. */
static void bucket_reduce(ec_xyzz *out, const bucket_set *bs, size_t nb)
{
    ec_xyzz run, tot;
    xyzz_set_inf(&run);
    xyzz_set_inf(&tot);
    for (size_t b = nb; b-- > 0;) {
        uint8_t st = bs->state[b];
        if (st & ST_AFF) xyzz_add_aff(&run, &bs->aff[b].x, &bs->aff[b].y);
        if (st & ST_XYZZ) xyzz_add(&run, &bs->xyzz[b]);
        if (!xyzz_is_inf(&run)) xyzz_add(&tot, &run);
    }
    *out = tot;
}

/* ------------------------------------------------------------------------------------ */
/* Tasks                                                                                */
/* ------------------------------------------------------------------------------------ */

struct msm_ctx {
    const ec_aff *bases;
    const czk_scalar *scalars;
    const czk__msm_prep *prep;
    const czk__msm_plan *plan;
    const czk__msm_layout *L;
    uint8_t *area; /* the aligned scratch start */
    ec_xyzz *results;
};

/* Task (window w, point range s) of the bucket method: its partial window sum. */
static void window_task(struct msm_ctx *ctx, size_t t, unsigned worker)
{
    const czk__msm_plan *plan = ctx->plan;
    const czk__msm_prep *prep = ctx->prep;
    unsigned c = plan->c, S = plan->nsplit;
    unsigned w = (unsigned)(t / S), s = (unsigned)(t % S);
    size_t m = prep->n_other;
    size_t lo = m * s / S, hi = m * (s + 1) / S;
    size_t nb = (size_t)1 << (c - 1);

    bucket_set bs;
    bucket_set_init(&bs, ctx->area + ctx->L->off_workers + worker * ctx->L->worker_stride, ctx->L,
                    plan->batch, nb);
    if (lo < hi) {
        czk__msm_iter it;
        czk__msm_iter_init(&it, prep, prep->other_mask, prep->other_pre, lo);
        for (size_t cnt = hi - lo; cnt > 0; cnt--) {
            size_t i, k;
            czk__msm_iter_next(&it, &i, &k);
            int32_t d = czk__msm_booth_digit(&ctx->scalars[i], w, c);
            if (d == 0) continue;
            const ec_aff *p = &ctx->bases[k];
            if (aff_is_inf(p)) continue;
            if (d > 0)
                bucket_add(&bs, (uint32_t)(d - 1), p, false);
            else
                bucket_add(&bs, (uint32_t)(-d - 1), p, true);
        }
        bucket_flush(&bs);
    }
    unsigned K = plan->batch != 0 ? reduce_segments(nb, plan->batch) : 0;
    if (K != 0)
        bucket_reduce_batch(&ctx->results[t], &bs, nb, K);
    else
        bucket_reduce(&ctx->results[t], &bs, nb);
}

/*
 * Sum of the affine buckets 0..nb−1 (nb a power of two) by a tree of batch-affine
 * additions: bucket i += bucket i + half, for half = nb/2, nb/4, ..., 1.
 */
static void bucket_sum_tree(ec_xyzz *out, bucket_set *bs, size_t nb)
{
    for (size_t half = nb / 2; half >= 1; half /= 2) {
        unsigned n = 0;
        for (size_t i = 0; i < half; i++) {
            if (bs->state[i + half] & ST_AFF) {
                if (!(bs->state[i] & ST_AFF)) {
                    bs->aff[i] = bs->aff[i + half];
                    bs->state[i] |= ST_AFF;
                } else {
                    bs->pend[n++] =
                        (czk__msm_pend){&bs->aff[i + half], &bs->aff[i], (uint32_t)i, 0};
                }
            }
            if (n == bs->batch || (i + 1 == half && n > 0)) {
                batch_add(bs->pend, n, bs->dx, bs->den, bs->pre);
                for (unsigned j = 0; j < n; j++)
                    if (bs->pend[j].flags & CZK__MSM_PEND_CANCEL)
                        bs->state[bs->pend[j].b] &= (uint8_t)~ST_AFF;
                n = 0;
            }
        }
    }
    xyzz_set_inf(out);
    if (bs->state[0] & ST_AFF) xyzz_from_aff(out, &bs->aff[0].x, &bs->aff[0].y);
}

/* Buckets of the batch-affine 0/1 path: points go round-robin, so a bucket is queued
 * again only after ONES_NB / 2 other points, and a batch of ONES_NB / 2 never waits on
 * itself. Below ONES_MIN points a task adds them in XYZZ directly. */
#define ONES_NB  1024
#define ONES_MIN 4096

/*
 * Task j of the 0/1 fast path: the sum of its share of the bases whose scalar is 1, with
 * batch-affine additions (about 6.5 multiplications a point against 10 for XYZZ) where
 * the worker areas have batch arrays.
 */
static void ones_task(struct msm_ctx *ctx, size_t t, size_t j, unsigned worker)
{
    const czk__msm_prep *prep = ctx->prep;
    const czk__msm_layout *L = ctx->L;
    size_t m = prep->n_one, nt = ctx->plan->nones;
    size_t lo = m * j / nt, hi = m * (j + 1) / nt;
    ec_xyzz *out = &ctx->results[t];
    xyzz_set_inf(out);
    if (lo >= hi) return;
    czk__msm_iter it;
    czk__msm_iter_init(&it, prep, prep->one_mask, prep->one_pre, lo);
    size_t nb = ONES_NB < L->nb_cap ? ONES_NB : L->nb_cap;
    if (hi - lo < ONES_MIN || L->batch_cap < nb / 2) {
        for (size_t cnt = hi - lo; cnt > 0; cnt--) {
            size_t i, k;
            czk__msm_iter_next(&it, &i, &k);
            const ec_aff *p = &ctx->bases[k];
            if (!aff_is_inf(p)) xyzz_add_aff(out, &p->x, &p->y);
        }
        return;
    }
    bucket_set bs;
    bucket_set_init(&bs, ctx->area + L->off_workers + worker * L->worker_stride, L,
                    (unsigned)(nb / 2), nb);
    uint32_t b = 0;
    for (size_t cnt = hi - lo; cnt > 0; cnt--) {
        size_t i, k;
        czk__msm_iter_next(&it, &i, &k);
        const ec_aff *p = &ctx->bases[k];
        if (aff_is_inf(p)) continue;
        bucket_add(&bs, b, p, false);
        b = (b + 1) & (uint32_t)(nb - 1);
    }
    bucket_flush(&bs);
    bucket_sum_tree(out, &bs, nb);
}

static void msm_task(void *vctx, size_t t, unsigned worker)
{
    struct msm_ctx *ctx = vctx;
    size_t nwt = (size_t)ctx->plan->nwin * ctx->plan->nsplit;
    /* Cancelled (czk_pool_cancelled): the task's part of the sum is left out, so the
     * result is unspecified but the reduction below stays well defined. */
    if (czk_pool_cancelled()) {
        xyzz_set_inf(&ctx->results[t]);
        return;
    }
    if (t < nwt)
        window_task(ctx, t, worker);
    else
        ones_task(ctx, t, t - nwt, worker);
}

/*
 * Without scratch memory (allocation failed): a serial bucket method with a small window
 * whose buckets fit on the stack, reading scalars and bases directly. Slow, but correct.
 */
#define FALLBACK_C 6
static void msm_fallback(ec_xyzz *out, const ec_aff *bases, const czk_scalar *scalars, size_t n,
                         const uint64_t *density)
{
    ec_xyzz buckets[1u << (FALLBACK_C - 1)], run, tot;
    xyzz_set_inf(out);
    for (unsigned w = (256 + FALLBACK_C) / FALLBACK_C; w-- > 0;) {
        for (unsigned d = 0; d < FALLBACK_C; d++) xyzz_dbl(out);
        for (unsigned b = 0; b < (1u << (FALLBACK_C - 1)); b++) xyzz_set_inf(&buckets[b]);
        size_t k = 0; /* base index */
        for (size_t i = 0; i < n; i++) {
            if (density != NULL && !((density[i / 64] >> (i % 64)) & 1)) continue;
            const ec_aff *p = &bases[k++];
            int32_t d = czk__msm_booth_digit(&scalars[i], w, FALLBACK_C);
            if (d == 0 || aff_is_inf(p)) continue;
            fe tmp;
            const fe *y = signed_y(p, d < 0, &tmp);
            xyzz_add_aff(&buckets[(d < 0 ? -d : d) - 1], &p->x, y);
        }
        xyzz_set_inf(&run);
        xyzz_set_inf(&tot);
        for (unsigned b = 1u << (FALLBACK_C - 1); b-- > 0;) {
            xyzz_add(&run, &buckets[b]);
            xyzz_add(&tot, &run);
        }
        xyzz_add(out, &tot);
    }
}

static size_t msm_scratch_size(size_t n, unsigned nthreads)
{
    czk__msm_layout L;
    czk__msm_layout_compute(&L, n, nthreads, &MSM_GROUP);
    return L.total;
}

static void msm_run(ec_xyzz *out, const ec_aff *bases, const czk_scalar *scalars, size_t n,
                    const uint64_t *density, void *scratch, czk_pool *pool)
{
    xyzz_set_inf(out);
    if (n == 0) return;
    if (czk__msm_force_fallback) {
        msm_fallback(out, bases, scalars, n, density);
        return;
    }
    unsigned nth = czk_pool_size(pool);
    czk__msm_layout L;
    czk__msm_layout_compute(&L, n, nth, &MSM_GROUP);
    void *mem = scratch;
    if (mem == NULL) {
        mem = czk_malloc(L.total);
        if (mem == NULL) {
            msm_fallback(out, bases, scalars, n, density);
            return;
        }
    }
    uint8_t *area = (uint8_t *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);

    czk__msm_prep prep;
    czk__msm_prepare(&prep, scalars, n, density, &L, area, pool);
    czk__msm_plan plan;
    czk__msm_plan_choose(&plan, prep.n_other, prep.nbits, prep.n_one, nth, L.c_cap, L.batch_cap,
                         &MSM_GROUP);

    struct msm_ctx ctx = {
        bases, scalars, &prep, &plan, &L, area, (ec_xyzz *)(area + L.off_results)};
    size_t nwt = (size_t)plan.nwin * plan.nsplit;
    czk_pool_run(pool, nwt + plan.nones, msm_task, &ctx);

    /* Horner over the windows, top first: acc = 2^c·acc + window sum. */
    for (unsigned w = plan.nwin; w-- > 0;) {
        if (!xyzz_is_inf(out))
            for (unsigned k = 0; k < plan.c; k++) xyzz_dbl(out);
        for (unsigned s = 0; s < plan.nsplit; s++)
            xyzz_add(out, &ctx.results[(size_t)w * plan.nsplit + s]);
    }
    for (unsigned j = 0; j < plan.nones; j++) xyzz_add(out, &ctx.results[nwt + j]);

    if (scratch == NULL) czk_free(mem);
}

/* XYZZ to Jacobian: Z = ZZ, X = x·ZZ, Y = y·ZZZ (Z^2 = ZZ^2, Z^3 = ZZ^3 = ZZZ^2). */
static void xyzz_to_jac(ec_jac *out, const ec_xyzz *p)
{
    if (xyzz_is_inf(p)) {
        out->x = FE_ONE;
        out->y = FE_ONE;
        memset(&out->z, 0, sizeof out->z);
        return;
    }
    fe x, y;
    fe_mul(&x, &p->x, &p->zz);
    fe_mul(&y, &p->y, &p->zzz);
    out->z = p->zz;
    out->x = x;
    out->y = y;
}

#endif
