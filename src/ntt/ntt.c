/*
 * Number-theoretic transforms over Fr on the CPU.
 *
 * Every transform is a radix-2 decimation-in-frequency (DIF) network, which takes natural
 * order in and leaves bit-reversed order out, followed by one in-place bit-reversal pass.
 * The inverse is the same network with omega^-1, its 1/n folded into a multiplication
 * the network does anyway, so forward, inverse and both cosets share one code path.
 *
 * Small domains (the "direct" plan) run the network over the whole vector in one thread.
 * Larger ones use the four-step (Bailey) split n = n2·n1, the vector seen as n2 rows of
 * n1 points, v[i1 + n1·i2]:
 *   1. column pass: for each column i1, an n2-point DIF over v[i1 + n1·i2] (stride n1).
 *      Columns are processed G at a time: the group is gathered into a per-thread
 *      buffer, so that the strided reads use whole cache lines and the butterflies run
 *      in cache (a power-of-two stride in place would also map every row of the column
 *      onto the same cache sets);
 *   2. row pass: row r now holds Y[i1][j2] with j2 = rev(r); it is multiplied by the
 *      cross twiddle omega^(i1·j2) and run through an n1-point DIF, in place;
 *   3. bit reversal of the whole vector, in tiles.
 * Rows and column groups are the tasks of the thread pool. The output of steps 1–2 is the
 * full n-point DIF output (bit-reversed), so step 3 gives natural order.
 *
 * Twiddles stay small: one table of the stages of a 2^B-point DIF (B = the larger of the
 * two sub-sizes, about log n / 2, so 2^14 entries at n = 2^28), which also holds every
 * smaller power-of-two DIF (stage s of the 2^b-point DIF is stage B - b + s of the
 * 2^B-point one), plus omega^j for j < n2. The cross twiddles t^i1 (t = omega^j2) are
 * built per row from two tables of ~sqrt(n1) powers of t, one multiplication each.
 *
 * The coset transforms fold their scaling into the passes: forward multiplies the
 * gathered column i1 by (g^n1)^i2 and puts g^i1 into the row twiddle ((g·omega^j2)^i1);
 * inverse multiplies by g^-p while the bit-reversal pass writes position p.
 */
#include "czk/alloc.h"
#include "czk/ntt.h"
#include "ntt/ntt_arith.h"
#include "ntt/ntt_internal.h"

#include <string.h>

/*
 * Tuning knobs (tests and benchmarks change them through czk__ntt_set_tuning):
 *   direct_max_log: largest log n that the direct plan serves;
 *   leaf_log: depth-first recursion stops at blocks of 2^leaf_log elements;
 *   group_buf_log: column groups aim at buffers of 2^group_buf_log elements per thread,
 *     with at least two columns (a cache line) and at most GROUP_MAX;
 *   tile_log: bit reversal moves tiles of 2^tile_log x 2^tile_log elements;
 *   max_log_rows: cap on the column length of the four-step split (default: log n / 2).
 * Measured on the H200 host (16-vCPU Xeon, Emerald Rapids, under KVM; medians of 5-7
 * runs, which move by +-5% from run to run), forward NTT on 16 threads:
 *   group_buf_log 15 (1 MB buffers: 8 columns at n2 = 2^12): 2^24 in 506 ms, against
 *     579 ms at 13 (2 columns) and 524 ms at 17; 2^16 and 2^20 do not care. Wider groups
 *     read longer runs per row of the strided column.
 *   leaf_log 8 / 10 / 12: 602 / 608 / 592 ms at 2^24, noise; tile_log 3 / 4 / 5:
 *     580 / 608 / 617 ms, noise; max_log_rows 10 or 11 instead of log n / 2: noise at
 *     2^22 and 2^24.
 * direct_max_log 10: on one thread the direct plan is ~20% cheaper per butterfly (no
 * cross twiddles: 17.4 against 21.5 ns on the dev machine), but from 2^11 on the
 * four-step plan's threads win (2^12: 0.36 ms on 16 threads, 1.05 ms on one).
 * Per butterfly the transform is ~80% Fr multiplication (perf, 2^20 on one thread), the
 * gather/scatter memcpy 6%, bit reversal under 1%: it is bound by the multiplier, not by
 * memory, up to 2^24 at least.
 */
#define GROUP_MAX    16
#define TILE_LOG_MAX 5
static czk__ntt_tuning tune = {.direct_max_log = 10,
                               .leaf_log = 10,
                               .group_buf_log = 15,
                               .tile_log = 4,
                               .max_log_rows = 16,
                               .columns_in_place = false};

void czk__ntt_get_tuning(czk__ntt_tuning *out)
{
    *out = tune;
}

void czk__ntt_set_tuning(const czk__ntt_tuning *t)
{
    tune = *t;
    if (tune.tile_log > TILE_LOG_MAX) tune.tile_log = TILE_LOG_MAX;
    if (tune.tile_log < 1) tune.tile_log = 1;
    if (tune.leaf_log < 1) tune.leaf_log = 1;
    if (tune.max_log_rows < 1) tune.max_log_rows = 1;
}

enum { FWD = 0, INV = 1 };

struct czk_ntt_domain {
    unsigned log_n;
    czk_roots roots;
    unsigned log_rows; /* 0: direct plan; else n2 = 2^log_rows rows ... */
    unsigned log_cols; /* ... of n1 = 2^log_cols points */
    unsigned log_tab;  /* B: tw[] holds the stages of a 2^B-point DIF */
    czk_fr omega, omega_inv, n_inv;
    /* tw[dir]: stage t of the 2^B-point DIF at offset 2^B - 2^(B-t), 2^(B-t-1) entries,
     * entry k = omega_B^(±2^t·k) with omega_B the primitive 2^B-th root. */
    czk_fr *tw[2];
    /* rowroot[dir][j] = omega^(±j), j < n2: the base of the cross twiddles of row rev(j). */
    czk_fr *rowroot[2];
};

/* ------------------------------------------------------------------------------------ */
/* Roots of unity                                                                       */
/* ------------------------------------------------------------------------------------ */

static const czk_fr ROOT7 = {CZK__FR_ROOT_OF_UNITY_MONT};
static const czk_fr ROOT5 = {CZK__FR_ROOT_OF_UNITY_5_MONT};

void czk_fr_root_of_unity(czk_fr *out, unsigned k, czk_roots roots)
{
    if (k > 32) {
        /* Fr has no element of order 2^k: say so with a value no root can take. */
        *out = CZK_FR_ZERO;
        return;
    }
    czk_fr w = roots == CZK_ROOTS_SNARKJS ? ROOT5 : ROOT7;
    for (unsigned i = k; i < 32; i++) czk_fr_sqr(&w, &w);
    *out = w;
}

static inline uint32_t bitrev(uint32_t x, unsigned bits)
{
    if (bits == 0) return 0;
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = __builtin_bswap32(x);
    return x >> (32 - bits);
}

/* a^(2^k). */
static void fr_pow2k(czk_fr *out, const czk_fr *a, unsigned k)
{
    czk_fr t = *a;
    for (unsigned i = 0; i < k; i++) czk_fr_sqr(&t, &t);
    *out = t;
}

/* out[i] = first·step^i for i < n. */
static void fr_powers(czk_fr *out, size_t n, const czk_fr *first, const czk_fr *step)
{
    if (n == 0) return;
    out[0] = *first;
    for (size_t i = 1; i < n; i++) ntt_mul(&out[i], &out[i - 1], step);
}

/* ------------------------------------------------------------------------------------ */
/* Domains                                                                              */
/* ------------------------------------------------------------------------------------ */

void czk_ntt_domain_destroy(czk_ntt_domain *d)
{
    if (d == NULL) return;
    for (int dir = 0; dir < 2; dir++) {
        czk_free(d->tw[dir]);
        czk_free(d->rowroot[dir]);
    }
    czk_free(d);
}

czk_status czk__ntt_domain_create_plan(czk_ntt_domain **out, unsigned log_n, czk_roots roots,
                                       unsigned log_rows, czk_err *err)
{
    if (out == NULL) return czk_err_set(err, CZK_EINVAL, "ntt: NULL output domain");
    *out = NULL;
    if (log_n < 1 || log_n > 32)
        return czk_err_set(err, CZK_EINVAL, "ntt: log_n %u outside 1..32", log_n);
    if (roots != CZK_ROOTS_BELLPERSON && roots != CZK_ROOTS_SNARKJS)
        return czk_err_set(err, CZK_EINVAL, "ntt: unknown root family %d", (int)roots);
    if (log_rows >= log_n)
        return czk_err_set(err, CZK_EINVAL, "ntt: %u rows do not split 2^%u", log_rows, log_n);

    czk_ntt_domain *d = czk_calloc(1, sizeof *d);
    if (d == NULL) return czk_err_set(err, CZK_ENOMEM, "ntt: out of memory");
    d->log_n = log_n;
    d->roots = roots;
    d->log_rows = log_rows;
    d->log_cols = log_n - log_rows;
    d->log_tab = log_rows == 0 ? log_n : (d->log_cols > log_rows ? d->log_cols : log_rows);

    czk_fr_root_of_unity(&d->omega, log_n, roots);
    czk_fr_inv(&d->omega_inv, &d->omega);
    czk_fr n_fr;
    czk_fr_from_u64(&n_fr, (uint64_t)1 << log_n);
    czk_fr_inv(&d->n_inv, &n_fr);

    size_t m = (size_t)1 << d->log_tab;
    size_t n2 = log_rows ? (size_t)1 << log_rows : 0;
    const czk_fr *base[2] = {&d->omega, &d->omega_inv};
    for (int dir = 0; dir < 2; dir++) {
        d->tw[dir] = czk_aligned_alloc(64, m * sizeof(czk_fr));
        if (n2) d->rowroot[dir] = czk_aligned_alloc(64, n2 * sizeof(czk_fr));
        if (d->tw[dir] == NULL || (n2 && d->rowroot[dir] == NULL)) {
            unsigned log_tab = d->log_tab;
            czk_ntt_domain_destroy(d);
            return czk_err_set(err, CZK_ENOMEM, "ntt: out of memory for 2^%u twiddles", log_tab);
        }
        /* Stage 0: powers of the primitive 2^B-th root; stage t: every 2^t-th of them. */
        czk_fr wb;
        fr_pow2k(&wb, base[dir], log_n - d->log_tab);
        czk_fr *tw = d->tw[dir];
        fr_powers(tw, m / 2, &CZK_FR_ONE, &wb);
        for (unsigned t = 1; t < d->log_tab; t++) {
            const czk_fr *prev = tw + (m - (m >> (t - 1)));
            czk_fr *cur = tw + (m - (m >> t));
            for (size_t k = 0; k < (m >> (t + 1)); k++) cur[k] = prev[2 * k];
        }
        if (n2) fr_powers(d->rowroot[dir], n2, &CZK_FR_ONE, base[dir]);
    }
    *out = d;
    return CZK_OK;
}

czk_status czk_ntt_domain_create(czk_ntt_domain **out, unsigned log_n, czk_roots roots,
                                 czk_err *err)
{
    /* Rows at least as long as columns: rows run in place and contiguous, columns in a
     * gathered buffer that should stay in the L2 cache. */
    unsigned log_rows = log_n / 2 < tune.max_log_rows ? log_n / 2 : tune.max_log_rows;
    if (log_n <= tune.direct_max_log) log_rows = 0;
    return czk__ntt_domain_create_plan(out, log_n, roots, log_rows, err);
}

unsigned czk_ntt_domain_log_size(const czk_ntt_domain *d)
{
    return d->log_n;
}
unsigned czk__ntt_domain_log_rows(const czk_ntt_domain *d)
{
    return d->log_rows;
}
void czk_ntt_domain_omega(const czk_ntt_domain *d, czk_fr *out)
{
    *out = d->omega;
}

/* ------------------------------------------------------------------------------------ */
/* The DIF network                                                                      */
/* ------------------------------------------------------------------------------------ */

/*
 * Points are `width` consecutive elements each (a group of columns, butterflied
 * together with one twiddle), point i at x + i·stride.
 */
typedef struct dif_shape {
    size_t stride;
    unsigned width;
    const czk_fr *tab; /* the domain's stage table ... */
    unsigned log_tab;  /* ... of a 2^log_tab-point DIF */
} dif_shape;

/* First stage of a 2^b-point DIF: butterflies (i, i + 2^(b-1)) with omega_b^i. */
static void dif_stage(czk_fr *x, unsigned b, const dif_shape *sh)
{
    size_t half = (size_t)1 << (b - 1);
    size_t m = (size_t)1 << sh->log_tab;
    const czk_fr *tw = sh->tab + (m - (m >> (sh->log_tab - b)));
    size_t stride = sh->stride;
    unsigned width = sh->width;
    czk_fr *hi = x + half * stride;
    if (width == 1) {
        ntt_bfly1(&x[0], &hi[0]);
        for (size_t k = 1; k < half; k++) ntt_bfly(&x[k * stride], &hi[k * stride], &tw[k]);
        return;
    }
    for (unsigned g = 0; g < width; g++) ntt_bfly1(&x[g], &hi[g]);
    for (size_t k = 1; k < half; k++) {
        czk_fr *a = x + k * stride, *c = hi + k * stride;
        for (unsigned g = 0; g < width; g++) ntt_bfly(&a[g], &c[g], &tw[k]);
    }
}

/*
 * Stage s of a 2^b-point DIF over all its 2^s blocks. The last two stages, where blocks
 * hold one or two butterflies, get loops of their own: a call per block would cost as
 * much as the butterfly.
 */
static void dif_level(czk_fr *x, unsigned b, unsigned s, const dif_shape *sh)
{
    size_t n = (size_t)1 << b, stride = sh->stride;
    unsigned width = sh->width;
    if (s + 1 == b) {
        /* Blocks of two points, twiddle 1. */
        for (size_t i = 0; i < n; i += 2) {
            czk_fr *p = x + i * stride, *q = p + stride;
            for (unsigned g = 0; g < width; g++) ntt_bfly1(&p[g], &q[g]);
        }
        return;
    }
    if (s + 2 == b) {
        /* Blocks of four points: twiddles 1 and omega_4. */
        size_t m = (size_t)1 << sh->log_tab;
        const czk_fr *w4 = sh->tab + (m - (m >> (sh->log_tab - 2))) + 1;
        for (size_t i = 0; i < n; i += 4) {
            czk_fr *p0 = x + i * stride, *p1 = p0 + stride, *p2 = p1 + stride, *p3 = p2 + stride;
            for (unsigned g = 0; g < width; g++) {
                ntt_bfly1(&p0[g], &p2[g]);
                ntt_bfly(&p1[g], &p3[g], w4);
            }
        }
        return;
    }
    size_t blk = n >> s;
    for (size_t i = 0; i < n; i += blk) dif_stage(x + i * stride, b - s, sh);
}

/*
 * 2^b-point DIF, depth first: after the first stage the two halves are independent
 * 2^(b-1)-point DIFs, so recursion reaches blocks that fit the L1 cache and finishes them
 * there, stage after stage, instead of streaming the whole vector through once per stage.
 */
static void dif(czk_fr *x, unsigned b, const dif_shape *sh, unsigned leaf)
{
    if (b == 0) return;
    if (b > leaf) {
        dif_stage(x, b, sh);
        size_t half = (size_t)1 << (b - 1);
        dif(x, b - 1, sh, leaf);
        dif(x + half * sh->stride, b - 1, sh, leaf);
        return;
    }
    for (unsigned s = 0; s < b; s++) dif_level(x, b, s, sh);
}

static unsigned leaf_log(unsigned width)
{
    unsigned w = 0;
    while ((1u << w) < width) w++;
    return tune.leaf_log > w ? tune.leaf_log - w : 1;
}

/* ------------------------------------------------------------------------------------ */
/* One transform                                                                        */
/* ------------------------------------------------------------------------------------ */

typedef struct job {
    const czk_ntt_domain *d;
    czk_fr *v;
    int dir;
    /* Column pass. */
    unsigned width;
    czk_fr *bufs;            /* width·n2 elements per worker, or NULL: columns in place */
    const czk_fr *col_scale; /* coset forward: (g^n1)^i2, or NULL */
    /* Row pass. */
    bool row_coset; /* coset forward: row twiddle base g·omega^j2 */
    czk_fr g;
    size_t rows_per_task;
    /* Bit-reversal pass: position p is multiplied by scale_hi[p >> scale_bits] ·
     * scale_lo[p & mask] when scale_lo is set, else by `scalar` when has_scalar. */
    const czk_fr *scale_lo, *scale_hi;
    unsigned scale_bits;
    bool has_scalar;
    czk_fr scalar;
    unsigned tile_log;
    size_t tiles_per_task;
} job;

static void column_task(void *p, size_t task, unsigned worker)
{
    /* A cancelled transform (czk_pool_cancelled) leaves the vector unspecified. */
    if (czk_pool_cancelled()) return;
    const job *j = p;
    const czk_ntt_domain *d = j->d;
    size_t n1 = (size_t)1 << d->log_cols, n2 = (size_t)1 << d->log_rows;
    unsigned width = j->width;
    czk_fr *col = j->v + task * width;
    dif_shape sh = {.width = width, .tab = d->tw[j->dir], .log_tab = d->log_tab};
    if (j->bufs == NULL) {
        /* No scratch: run on the columns in place. */
        if (j->col_scale)
            for (size_t i = 0; i < n2; i++)
                for (unsigned g = 0; g < width; g++)
                    ntt_mul(&col[i * n1 + g], &col[i * n1 + g], &j->col_scale[i]);
        sh.stride = n1;
        dif(col, d->log_rows, &sh, leaf_log(width));
        return;
    }
    czk_fr *buf = j->bufs + (size_t)worker * width * n2;
    size_t bytes = width * sizeof(czk_fr);
    for (size_t i = 0; i < n2; i++) memcpy(buf + i * width, col + i * n1, bytes);
    if (j->col_scale)
        for (size_t i = 0; i < n2; i++)
            for (unsigned g = 0; g < width; g++)
                ntt_mul(&buf[i * width + g], &buf[i * width + g], &j->col_scale[i]);
    sh.stride = width;
    dif(buf, d->log_rows, &sh, leaf_log(width));
    for (size_t i = 0; i < n2; i++) memcpy(col + i * n1, buf + i * width, bytes);
}

/*
 * x[i] *= s·t^i for i < 2^log_len (s NULL: 1). The factors come from two tables of about
 * sqrt(len) powers of t, lo[a] = s·t^a and hi[b] = t^(A·b), one multiplication each;
 * rows longer than 2^16 go in chunks of 2^16.
 */
static void scale_by_powers(czk_fr *x, unsigned log_len, const czk_fr *t, const czk_fr *s)
{
    enum { CHUNK_LOG = 16, HALF_MAX = 1u << (CHUNK_LOG / 2) };
    if (log_len > CHUNK_LOG) {
        czk_fr sc = s ? *s : CZK_FR_ONE, step;
        fr_pow2k(&step, t, CHUNK_LOG);
        for (size_t c = 0; c < ((size_t)1 << (log_len - CHUNK_LOG)); c++) {
            scale_by_powers(x + (c << CHUNK_LOG), CHUNK_LOG, t, &sc);
            ntt_mul(&sc, &sc, &step);
        }
        return;
    }
    unsigned ca = log_len / 2, cb = log_len - ca;
    size_t na = (size_t)1 << ca, nb = (size_t)1 << cb;
    czk_fr lo[HALF_MAX], hi[HALF_MAX];
    fr_powers(lo, na, s ? s : &CZK_FR_ONE, t);
    czk_fr tc;
    fr_pow2k(&tc, t, ca);
    fr_powers(hi, nb, &CZK_FR_ONE, &tc);
    for (size_t a = 0; a < na; a++) ntt_mul(&x[a], &x[a], &lo[a]);
    for (size_t b = 1; b < nb; b++) {
        czk_fr *xb = x + b * na;
        for (size_t a = 0; a < na; a++) {
            czk_fr f;
            ntt_mul(&f, &lo[a], &hi[b]);
            ntt_mul(&xb[a], &xb[a], &f);
        }
    }
}

static void row_task(void *p, size_t task, unsigned worker)
{
    /* A cancelled transform (czk_pool_cancelled) leaves the vector unspecified. */
    if (czk_pool_cancelled()) return;
    const job *j = p;
    const czk_ntt_domain *d = j->d;
    size_t n1 = (size_t)1 << d->log_cols, n2 = (size_t)1 << d->log_rows;
    dif_shape sh = {.stride = 1, .width = 1, .tab = d->tw[j->dir], .log_tab = d->log_tab};
    size_t r0 = task * j->rows_per_task, r1 = r0 + j->rows_per_task;
    if (r1 > n2) r1 = n2;
    for (size_t r = r0; r < r1; r++) {
        czk_fr *x = j->v + r * n1;
        /* Cross twiddles (s·t^i1) with t = omega^(±j2), times g for the forward coset
         * (its g^i1), and s = 1/n for the inverse. Row j2 = 0 of a plain forward
         * transform has all twiddles 1. */
        uint32_t j2 = bitrev((uint32_t)r, d->log_rows);
        czk_fr t = d->rowroot[j->dir][j2];
        if (j->row_coset) ntt_mul(&t, &t, &j->g);
        if (j->dir == INV)
            scale_by_powers(x, d->log_cols, &t, &d->n_inv);
        else if (!czk_fr_is_one(&t))
            scale_by_powers(x, d->log_cols, &t, NULL);
        dif(x, d->log_cols, &sh, tune.leaf_log);
    }
}

static inline void scale_at(const job *j, czk_fr *x, size_t pos)
{
    if (j->scale_lo) {
        czk_fr f;
        size_t mask = ((size_t)1 << j->scale_bits) - 1;
        ntt_mul(&f, &j->scale_hi[pos >> j->scale_bits], &j->scale_lo[pos & mask]);
        ntt_mul(x, x, &f);
    } else if (j->has_scalar) {
        ntt_mul(x, x, &j->scalar);
    }
}

/*
 * Bit reversal in tiles. With index bits p = (x, m, y), x and y tile_log bits each,
 * rev(p) = (rev y, rev m, rev x): the 2^tile_log rows {(x, m, ·)} of tile m hold exactly
 * the elements that belong in tile rev(m), transposed. So tiles m and rev(m) are read
 * whole (rows of contiguous elements), then written to each other's place.
 */
static void bitrev_task(void *p, size_t task, unsigned worker)
{
    /* A cancelled transform (czk_pool_cancelled) leaves the vector unspecified. */
    if (czk_pool_cancelled()) return;
    const job *j = p;
    unsigned log_n = j->d->log_n, q = j->tile_log, mid = log_n - 2 * q;
    size_t side = (size_t)1 << q, row_stride = (size_t)1 << (log_n - q);
    size_t ntiles = (size_t)1 << mid;
    czk_fr a[1u << (2 * TILE_LOG_MAX)], b[1u << (2 * TILE_LOG_MAX)];
    uint32_t rq[1u << TILE_LOG_MAX];
    for (size_t i = 0; i < side; i++) rq[i] = bitrev((uint32_t)i, q);
    size_t m0 = task * j->tiles_per_task, m1 = m0 + j->tiles_per_task;
    if (m1 > ntiles) m1 = ntiles;
    czk_fr *v = j->v;
    for (size_t m = m0; m < m1; m++) {
        size_t mr = bitrev((uint32_t)m, mid);
        if (mr < m) continue; /* done with its partner */
        size_t base_m = m * side, base_r = mr * side;
        for (size_t x = 0; x < side; x++)
            memcpy(a + x * side, v + x * row_stride + base_m, side * sizeof(czk_fr));
        if (mr != m)
            for (size_t x = 0; x < side; x++)
                memcpy(b + x * side, v + x * row_stride + base_r, side * sizeof(czk_fr));
        for (size_t x = 0; x < side; x++) {
            czk_fr *dst = v + x * row_stride + base_r;
            for (size_t y = 0; y < side; y++) {
                dst[y] = a[rq[y] * side + rq[x]];
                scale_at(j, &dst[y], x * row_stride + base_r + y);
            }
        }
        if (mr == m) continue;
        for (size_t x = 0; x < side; x++) {
            czk_fr *dst = v + x * row_stride + base_m;
            for (size_t y = 0; y < side; y++) {
                dst[y] = b[rq[y] * side + rq[x]];
                scale_at(j, &dst[y], x * row_stride + base_m + y);
            }
        }
    }
}

static size_t div_ceil(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

/* Direct plan: the whole network on the calling thread. */
static void direct_task(void *p, size_t task, unsigned worker)
{
    const job *j = p;
    dif_shape sh = {.stride = 1, .width = 1, .tab = j->d->tw[j->dir], .log_tab = j->d->log_tab};
    dif(j->v, j->d->log_n, &sh, tune.leaf_log);
}

/*
 * coset: NULL for the plain transforms, else g (forward: scale by g^i first; inverse:
 * scale by g^-i after).
 */
static void transform(const czk_ntt_domain *d, czk_fr *v, int dir, const czk_fr *coset,
                      czk_pool *pool)
{
    if (d == NULL || v == NULL) return;
    unsigned log_n = d->log_n;
    size_t n = (size_t)1 << log_n;
    unsigned nworkers = czk_pool_size(pool);
    job j = {.d = d, .v = v, .dir = dir};

    /* Scratch: column buffers, and the coset tables. */
    size_t n1 = (size_t)1 << d->log_cols, n2 = d->log_rows ? (size_t)1 << d->log_rows : 0;
    if (d->log_rows) {
        unsigned width = 2;
        while (width < GROUP_MAX && width < n1 &&
               ((size_t)width * 2 * n2) <= ((size_t)1 << tune.group_buf_log))
            width *= 2;
        if (width > n1) width = (unsigned)n1;
        j.width = width;
    }
    size_t buf_elems =
        (d->log_rows && !tune.columns_in_place) ? (size_t)nworkers * j.width * n2 : 0;
    size_t col_scale_elems = (coset && dir == FWD && d->log_rows) ? n2 : 0;
    unsigned sb = (log_n + 1) / 2;
    size_t scale_elems =
        (coset && dir == INV) ? ((size_t)1 << sb) + ((size_t)1 << (log_n - sb)) : 0;
    czk_fr *scratch = NULL;
    size_t total = buf_elems + col_scale_elems + scale_elems;
    if (total) scratch = czk_aligned_alloc(64, total * sizeof(czk_fr));
    if (scratch == NULL && (col_scale_elems || scale_elems)) {
        /* Out of memory for even the small tables: give up on the column buffers, which
         * are most of it, and try again. */
        buf_elems = 0;
        total = col_scale_elems + scale_elems;
        scratch = czk_aligned_alloc(64, total * sizeof(czk_fr));
    }
    czk_fr *sp = scratch;
    if (scratch && buf_elems) {
        j.bufs = sp;
        sp += buf_elems;
    }

    /* Coset forward: v[i] *= g^i. */
    if (coset && dir == FWD) {
        if (d->log_rows == 0 || sp == NULL) {
            czk_fr gi = CZK_FR_ONE;
            for (size_t i = 0; i < n; i++) {
                ntt_mul(&v[i], &v[i], &gi);
                ntt_mul(&gi, &gi, coset);
            }
        } else {
            czk_fr gn1;
            fr_pow2k(&gn1, coset, d->log_cols);
            fr_powers(sp, n2, &CZK_FR_ONE, &gn1);
            j.col_scale = sp;
            sp += n2;
            j.row_coset = true;
            j.g = *coset;
        }
    }

    if (d->log_rows == 0) {
        czk_pool_run(NULL, 1, direct_task, &j);
    } else {
        czk_pool_run(pool, n1 / j.width, column_task, &j);
        /* Rows of at least 2^10 points per task keep the pool's hand-out cost small. */
        j.rows_per_task = n1 >= 1024 ? 1 : 1024 / n1;
        czk_pool_run(pool, div_ceil(n2, j.rows_per_task), row_task, &j);
    }

    /* Bit reversal, with the inverse's scaling: 1/n (direct plan; the four-step one has
     * it in the row twiddles) and g^-p for the coset. */
    if (dir == INV && d->log_rows == 0) {
        j.has_scalar = true;
        j.scalar = d->n_inv;
    }
    bool late_coset = false;
    if (coset && dir == INV) {
        czk_fr ginv;
        czk_fr_inv(&ginv, coset);
        if (sp != NULL) {
            czk_fr ghi;
            fr_pow2k(&ghi, &ginv, sb);
            czk_fr *lo = sp, *hi = sp + ((size_t)1 << sb);
            fr_powers(lo, (size_t)1 << sb, j.has_scalar ? &j.scalar : &CZK_FR_ONE, &ginv);
            fr_powers(hi, (size_t)1 << (log_n - sb), &CZK_FR_ONE, &ghi);
            j.scale_lo = lo;
            j.scale_hi = hi;
            j.scale_bits = sb;
        } else {
            late_coset = true;
        }
    }
    if (log_n >= 2 || j.scale_lo || j.has_scalar) {
        unsigned q = log_n / 2 < tune.tile_log ? log_n / 2 : tune.tile_log;
        j.tile_log = q;
        size_t ntiles = (size_t)1 << (log_n - 2 * q);
        j.tiles_per_task = ntiles >= 1024 ? ntiles / 256 : (ntiles >= 4 ? 4 : ntiles);
        /* Small domains are not worth waking the pool for. */
        czk_pool *bp = log_n >= 14 ? pool : NULL;
        czk_pool_run(bp, div_ceil(ntiles, j.tiles_per_task), bitrev_task, &j);
    }
    if (late_coset) {
        czk_fr ginv, gi = CZK_FR_ONE;
        czk_fr_inv(&ginv, coset);
        for (size_t i = 0; i < n; i++) {
            ntt_mul(&v[i], &v[i], &gi);
            ntt_mul(&gi, &gi, &ginv);
        }
    }
    czk_free(scratch);
}

void czk_ntt_forward(const czk_ntt_domain *d, czk_fr *v, czk_pool *pool)
{
    transform(d, v, FWD, NULL, pool);
}

void czk_ntt_inverse(const czk_ntt_domain *d, czk_fr *v, czk_pool *pool)
{
    transform(d, v, INV, NULL, pool);
}

void czk_ntt_coset_forward(const czk_ntt_domain *d, czk_fr *v, const czk_fr *g, czk_pool *pool)
{
    transform(d, v, FWD, g, pool);
}

void czk_ntt_coset_inverse(const czk_ntt_domain *d, czk_fr *v, const czk_fr *g, czk_pool *pool)
{
    transform(d, v, INV, g, pool);
}
