/*
 * The partition prover's device memory plan (include/czk/gpu.h, czk_gpu_plan): which
 * sections of the SRS stay on the GPU, how the H step and the MSMs are ordered, and how
 * large each MSM call may be, for a key's shape and a budget of device bytes.
 *
 * The model counts what src/groth16/gpu_prove.cu and cuda/msm.cu allocate. One vector of the domain
 * is V = 32·2^log_m bytes, the witness Z = 32·(inputs + aux). The orders, from the fastest:
 *   A  a, b, c and the witness at once, witness MSMs beside H   H step: 3V + Z + T + Sw + Bw
 *                                                                MSMs:   V + Z + T + Sh + Bh + Sw + Bw
 *   B  the same, the witness MSMs after the H MSM                H step: 3V + Z + T
 *                                                                MSMs:   V + Z + T + max(Sh + Bh, Sw + Bw)
 *   C  a·b formed before c is copied (two vectors), overlap      as A with 2V
 *   D  two vectors, no overlap                                   as B with 2V
 *   E  two vectors, the witness after the H MSM in H's memory    H step: 2V + T
 *                                                                H MSM:  V + T + Sh + B
 *                                                                witness: Z + T + Sw + B
 * T: the NTT's twiddle tables (2V when its top level is whole), S: one MSM call's scratch
 * (czk_gpu_msm_scratch_bound), B: a streaming thread's two copy buffers. What the peak leaves
 * holds the resident sections. Each candidate (order, MSM call size, tables) gets an
 * estimated proof time from measured costs (COSTS below): the H step, bounded by the copies
 * of a, b, c; then the MSMs, where each thread's streamed bases and its arithmetic overlap,
 * and the two threads overlap each other only in the orders that run them side by side;
 * and the fixed costs of each MSM call a chunk size adds. The least wins.
 */
#include "czk/gpu.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB (1ull << 30)
#define MIB (1ull << 20)

/*
 * Costs of the plan's choices, measured on an H200 at a 2^27 domain (bench_gpu_prove
 * --plan, one proof at a time, and czkd on the real path), scaled linearly by the domain:
 *   COMPUTE_S      a partition with nothing streamed: 1.16 s back to back
 *   H_FIXED        the H step beyond the copies of a, b, c: H ready after 0.337 s with
 *                  12.9 GB copied at 55 GB/s; in turn c's copy waits for a·b (0.412 s)
 *   H_MSM, W_MSM   the H MSM's and the witness MSMs' arithmetic, resident: 0.766 and
 *                  0.254 s (the H MSM's grows as calls of 2^j run windows of j − 4 bits
 *                  instead of 22); W_BESIDE what the witness MSMs add beside H (0.127 s)
 *   SPLIT_TABLES_S split top twiddle level: H step 284.8 against 274.9 ms
 *   CALL_S         the fixed costs of one more call of the H MSM (classification, window
 *                  reductions, two host round trips; not scaled): at 16 GiB, 33 calls
 *                  of 2^24 against 63 of 2^23 cost 0.43 s more (2.525 against 2.964 s,
 *                  before the witness sections' accumulator)
 *   PIECE_S        one more piece of a witness section's accumulator (classification, the
 *                  ones' sum and a host round trip a piece): with the witness MSMs beside
 *                  the H step, 90 more pieces (2^21 bases against 2^22) took 0.75 s more
 * The model gives 1.23 s a call for the whole GPU (measured 1.229 s), 1.56 s at 48, 32
 * and 24 GiB (calls on the real path 1.478, 1.503 and 1.651 s), 1.98 s at 16 GiB (1.843 s:
 * the witness MSMs beside H, in calls of 2^23) and 2.19 s at 12 GiB (2.410 s).
 */
static const struct {
    double compute_s, h_fixed, h_msm, w_msm, w_beside, split_tables_s, call_s, piece_s;
} COSTS = {1.16, 0.100, 0.766, 0.254, 0.127, 0.010, 0.015, 0.008};

/* The least and the largest MSM call the planner cuts to (below 2^20 the windows shrink
 * and per-call overheads dominate; above 2^24 a call's scratch outgrows most cards). */
#define CHUNK_MIN_LOG 20
#define CHUNK_MAX_LOG 24

/* Fragmentation and the pools' rounding: a fixed part and a share of the budget. */
#define RESERVE_FIXED (256 * MIB)
#define RESERVE_DIV 50

/* Split twiddle tables and coset tables: a few thousand entries per level. */
#define TABLES_SPLIT (64 * MIB)

static unsigned log2_floor64(uint64_t x)
{
    unsigned k = 0;
    while (x >>= 1) k++;
    return k;
}

uint64_t czk_gpu_msm_scratch_bound(int group, size_t n_in)
{
    /* cuda/msm.cu, msm_device: bucket points are XYZZ (4 coordinates), 192 bytes in G1 and
     * 384 in G2; windows of at most 22 (G1) or 20 (G2) bits. */
    const uint64_t X = group == 1 ? 192 : 384;
    const unsigned maxw = group == 1 ? 22 : 20;
    const uint64_t n = n_in > 0 ? n_in : 1;
    /* classification: three 8-byte index arrays and two flag bytes a scalar; density
     * words, their counts and prefix sums; CUB's temporary storage */
    uint64_t b = 26 * n + n / 4 + 8 * MIB + n / 16;
    /* window choice (pick_window, split_windows) with every scalar significant */
    int c = (int)log2_floor64(n) - 4;
    if (c < 4) c = 4;
    if (c > (int)maxw) c = (int)maxw;
    const uint64_t nwin = (256 + (unsigned)c - 1) / (unsigned)c;
    const uint64_t base = 256 / nwin, extra = 256 - nwin * base;
    const uint64_t width = base + (extra > 0 ? 1 : 0);
    const uint64_t nb = 1ull << (width - 1);
    /* sorted entries: a group of windows within 4 GiB and at most half of them (two
     * groups cost two passes over the digits, a fraction of a millisecond at 2^24, and
     * save a call of 2^24 0.8 GB), its temporaries, the radix sort's */
    uint64_t gw = (4 * GIB) / (8 * n);
    if (gw > (nwin + 1) / 2) gw = (nwin + 1) / 2;
    if (gw < 1) gw = 1;
    b += 8 * n + gw * 8 * n + 8 * n + MIB;
    /* buckets, and the accumulation's carries (chunks of L entries a window) */
    b += nwin * nb * X;
    const uint64_t avg = n / nb, mul = group == 1 ? 8 : 4, lmax = group == 1 ? 512 : 256;
    uint64_t L = 32;
    while (L < mul * avg && L < lmax) L <<= 1;
    const uint64_t carries = nwin * ((n + L - 1) / L);
    b += carries * (X + 4) + (carries / 32 + 1) * (X + 4);
    /* the reduction's segments (about 2^16 threads, each a partial sum) */
    b += (1ull << 17) * (X + 4) * 33 / 32;
    return b + b / 20 + 16 * MIB;
}

/* The key's numbers the model needs. */
typedef struct shape_sizes {
    uint64_t V, Z;
    uint64_t sec_bytes[CZK_G16_SECTIONS];
    size_t sec_len[CZK_G16_SECTIONS];
    uint64_t total;
    size_t m, n_aux, b_aux; /* the largest MSMs of each thread: H, and L/A/B */
    double scale;           /* domain / 2^27 */
} shape_sizes;

static void sizes_of(shape_sizes *z, const czk_groth16_params *k)
{
    memset(z, 0, sizeof *z);
    z->m = (size_t)1 << k->log_m;
    z->V = 32ull * z->m;
    z->Z = 32ull * ((uint64_t)k->n_inputs + k->n_aux);
    for (int s = 0; s < CZK_G16_SECTIONS; s++) {
        z->sec_len[s] = czk_groth16_section_len(k, (czk_groth16_section)s);
        z->sec_bytes[s] = (uint64_t)z->sec_len[s] * czk_groth16_section_elem((czk_groth16_section)s);
        z->total += z->sec_bytes[s];
    }
    z->n_aux = k->n_aux;
    z->b_aux = k->b_g1_len;
    z->scale = (double)z->m / (double)(1ull << 27);
}

/* One candidate: an order, an MSM call size (0: whole), the tables' form. */
typedef struct candidate {
    char order; /* 'A'..'E' */
    size_t chunk;
    bool whole_tables;
} candidate;

static bool order_in_turn(char o) { return o >= 'C'; }
static bool order_overlap(char o) { return o == 'A' || o == 'C'; }
static bool order_late(char o) { return o == 'E'; }

static uint64_t u64max(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Device bytes of a proof besides the resident sections, for a candidate; streams_h and
 * streams_w say whether the H MSM's thread and the witness MSMs' thread stream bases. */
static uint64_t working_bytes(const shape_sizes *z, const candidate *c, bool streams_h,
                              bool streams_w)
{
    const uint64_t T = c->whole_tables ? 2 * z->V + TABLES_SPLIT : TABLES_SPLIT;
    const size_t ch = c->chunk;
    const size_t nh = ch && ch < z->m ? ch : z->m;
    const size_t nl = ch && ch < z->n_aux ? ch : z->n_aux;
    const size_t nb = ch && ch / 2 < z->b_aux ? ch / 2 : z->b_aux;
    const uint64_t Sh = czk_gpu_msm_scratch_bound(1, nh);
    const uint64_t Sw = u64max(czk_gpu_msm_scratch_bound(1, nl), czk_gpu_msm_scratch_bound(2, nb));
    /* two copy buffers of a call's G1 bases; G2 calls take half as many scalars */
    const uint64_t buf = 2ull * (ch ? ch : (size_t)1 << CHUNK_MAX_LOG) * sizeof(czk_g1_affine);
    const uint64_t Bh = streams_h ? buf : 0, Bw = streams_w ? buf : 0;
    const uint64_t vecs = order_in_turn(c->order) ? 2 * z->V : 3 * z->V;
    if (order_late(c->order)) {
        const uint64_t B = (streams_h || streams_w) ? buf : 0;
        return u64max(vecs + T, u64max(z->V + T + Sh + B, z->Z + T + Sw + B));
    }
    if (order_overlap(c->order))
        return u64max(vecs + z->Z + T + Sw + Bw, z->V + z->Z + T + Sh + Bh + Sw + Bw);
    return u64max(vecs + z->Z + T, z->V + z->Z + T + u64max(Sh + Bh, Sw + Bw));
}

static uint64_t reserve_of(uint64_t budget) { return RESERVE_FIXED + budget / RESERVE_DIV; }

/*
 * The order sections become resident in: those whose copies their own MSMs would not hide
 * first. A 2^27 PoRep partition's H MSM computes for 765 ms over bases that copy in 235 ms
 * at 55 GB/s, so streamed H costs little; L and A (12.5 GB each, 227 ms to copy) have
 * mostly 0/1 scalars and MSMs of under 100 ms, so their copies would show; B_G1 likewise.
 * B_G2's G2 MSM (145 ms) covers its copy (116 ms), but with it resident the witness MSMs'
 * thread needs no copy buffers at all.
 */
static const czk_groth16_section FILL_ORDER[CZK_G16_SECTIONS] = {
    CZK_G16_L, CZK_G16_A, CZK_G16_B_G1, CZK_G16_B_G2, CZK_G16_H};

/*
 * Fill the resident sections for a candidate: the working bytes depend on whether the
 * witness sections, or H, stream, which depends on what fits, so each of the three cases
 * is tried (everything resident, H streaming, the witness sections streaming too).
 * Returns false when the working memory alone does not fit.
 */
static bool fill(czk_gpu_plan *p, const shape_sizes *z, const candidate *c, uint64_t budget,
                 uint64_t other_working)
{
    static const bool cases[3][2] = {{false, false}, {true, false}, {true, true}};
    const uint64_t reserve = reserve_of(budget);
    for (int k = 0; k < 3; k++) {
        const bool sh = cases[k][0], sw = cases[k][1];
        /* Whole MSM calls need every base resident: nothing to copy them through. */
        if (c->chunk == 0 && (sh || sw)) continue;
        uint64_t work = u64max(working_bytes(z, c, sh, sw), other_working);
        if (work + reserve > budget) continue;
        uint64_t room = budget - reserve - work;
        memset(p->resident, 0, sizeof p->resident);
        p->resident_bytes = 0;
        for (int k2 = 0; k2 < CZK_G16_SECTIONS; k2++) {
            const czk_groth16_section s = FILL_ORDER[k2];
            const uint64_t el = czk_groth16_section_elem(s);
            uint64_t take = room / el;
            if (take > z->sec_len[s]) take = z->sec_len[s];
            p->resident[s] = (size_t)take;
            p->resident_bytes += take * el;
            room -= take * el;
            if (take < z->sec_len[s]) break; /* the rest streams: only prefixes in order */
        }
        const bool h_streams = p->resident[CZK_G16_H] < z->sec_len[CZK_G16_H];
        bool w_streams = false;
        for (int s = CZK_G16_L; s < CZK_G16_SECTIONS; s++)
            w_streams |= p->resident[s] < z->sec_len[s];
        /* Consistent with the case assumed (more streaming than assumed needs buffers the
         * working bytes did not count). */
        if ((h_streams && !sh) || (w_streams && !sw)) continue;
        p->peak_bytes = p->resident_bytes + work;
        p->streamed_bytes = z->total - p->resident_bytes;
        return true;
    }
    return false;
}

/* The H MSM's calls of `chunk` G1 bases (0: whole). */
static double h_calls(const shape_sizes *z, size_t chunk)
{
    return chunk == 0 ? 1.0 : ceil((double)z->m / (double)chunk);
}

/* The witness MSMs' calls and pieces of `chunk` G1 bases (0: whole, seven; G2 calls hold
 * half the bases, and a sparse section's calls at most four times as many scalars as
 * bases: src/groth16/gpu_prove.cu, msm). */
static double w_pieces(const shape_sizes *z, size_t chunk)
{
    if (chunk == 0) return 7.0;
    const double ch = (double)chunk, na = (double)z->n_aux;
    const double b1 = fmax(ceil((double)z->sec_len[CZK_G16_B_G1] / ch), ceil(na / (4 * ch)));
    const double b2 = fmax(ceil((double)z->sec_len[CZK_G16_B_G2] / (ch / 2)), ceil(na / (2 * ch)));
    return ceil(na / ch) + 1 + ceil((double)z->sec_len[CZK_G16_A] / ch) + 1 + b1 + 1 + b2;
}

static double estimate(const czk_gpu_plan *p, const shape_sizes *z, const candidate *c,
                       double gbps, double compute_s)
{
    const double bw = gbps * 1e9, k = compute_s / COSTS.compute_s;
    const double h_streamed =
        (double)(z->sec_len[CZK_G16_H] - p->resident[CZK_G16_H]) * sizeof(czk_g1_affine);
    const double w_streamed = (double)p->streamed_bytes - h_streamed;
    /* The H step: a, b and c's copies, then the transforms the last copy waits for. */
    double t = 3.0 * (double)z->V / bw + COSTS.h_fixed * k;
    if (order_in_turn(c->order)) t += (double)z->V / bw;
    if (!c->whole_tables) t += COSTS.split_tables_s * z->scale;
    /* A call of 2^j scalars runs windows of j − 4 bits instead of 22: more additions. */
    double windows = 1.0;
    if (c->chunk != 0 && c->chunk < z->m) {
        const unsigned j = log2_floor64(c->chunk);
        if (j < 26) windows = 22.0 / ((double)j - 4.0);
    }
    const double hc = COSTS.h_msm * k * windows, wc = COSTS.w_msm * k;
    if (order_overlap(c->order)) {
        t += fmax(hc + COSTS.w_beside * k, (h_streamed + w_streamed) / bw);
    } else {
        t += fmax(hc, h_streamed / bw) + fmax(wc, w_streamed / bw);
        if (order_late(c->order)) t += (double)z->Z / bw;
    }
    return t + COSTS.call_s * (h_calls(z, c->chunk) - 1.0) +
           COSTS.piece_s * (w_pieces(z, c->chunk) - 7.0);
}

czk_status czk_gpu_plan_make(czk_gpu_plan *out, const czk_groth16_params *shape, uint64_t budget,
                             const czk_gpu_plan_opts *opts_in, czk_err *err)
{
    czk_gpu_plan_opts opts = opts_in != NULL ? *opts_in : (czk_gpu_plan_opts){0};
    const double gbps = opts.h2d_gbps > 0 ? opts.h2d_gbps : 25.0;
    shape_sizes z;
    sizes_of(&z, shape);
    const double compute_s = opts.compute_s > 0 ? opts.compute_s : COSTS.compute_s * z.scale;
    memset(out, 0, sizeof *out);
    out->budget = budget;

    static const char orders[] = "ABCDE";
    czk_gpu_plan best;
    bool have = false;
    uint64_t min_work = UINT64_MAX;
    for (const char *o = orders; *o; o++) {
        /* 0 (whole calls), then 2^24 down to 2^20; only sizes that cut something. */
        for (int lg = CHUNK_MAX_LOG + 1; lg >= CHUNK_MIN_LOG; lg--) {
            size_t chunk = lg > CHUNK_MAX_LOG ? 0 : (size_t)1 << lg;
            if (chunk != 0 && lg > CHUNK_MIN_LOG && chunk >= z.m * 2) continue;
            for (int wt = 1; wt >= 0; wt--) {
                candidate c = {*o, chunk, wt != 0};
                /* The NTT keeps a whole level only on a card with 16 of them (ntt.cu). */
                if (c.whole_tables && z.V > budget / 16) continue;
                /* The least working memory of any candidate, for the minimum. */
                if (chunk != 0) {
                    uint64_t w = u64max(working_bytes(&z, &c, true, true), opts.other_working);
                    if (w < min_work) min_work = w;
                }
                czk_gpu_plan p;
                memset(&p, 0, sizeof p);
                p.budget = budget;
                if (!fill(&p, &z, &c, budget, opts.other_working)) continue;
                p.copy_bytes = 3 * z.V + z.Z;
                p.abc_in_turn = order_in_turn(c.order);
                p.witness_late = order_late(c.order);
                p.overlap = order_overlap(c.order);
                p.whole_tables = c.whole_tables;
                p.msm_chunk = chunk;
                const size_t n1 = chunk ? chunk : (z.m > z.n_aux ? z.m : z.n_aux);
                const size_t n2 = chunk ? chunk / 2 : z.b_aux;
                /* Whole calls fit by construction and run unbounded, as on a device to
                 * themselves (their 0/1 scalars' batch-affine tree then always has room). */
                p.msm_scratch = chunk == 0 ? 0
                                           : u64max(czk_gpu_msm_scratch_bound(1, n1),
                                                    czk_gpu_msm_scratch_bound(2, n2));
                p.est_copy_s = (double)(p.streamed_bytes + p.copy_bytes) / (gbps * 1e9);
                p.est_s = estimate(&p, &z, &c, gbps, compute_s);
                if (!have || p.est_s < best.est_s - 1e-9) {
                    best = p;
                    have = true;
                }
            }
        }
    }
    /* The least b with b ≥ reserve_of(b) + min_work. */
    uint64_t min_budget = 0;
    if (min_work != UINT64_MAX) {
        min_budget = (RESERVE_FIXED + min_work) * RESERVE_DIV / (RESERVE_DIV - 1) + 2;
        while (min_budget > 0 && min_budget - 1 >= reserve_of(min_budget - 1) + min_work)
            min_budget--;
    }
    if (!have) {
        out->min_budget = min_budget;
        return czk_err_set(err, CZK_ERESOURCE,
                           "GPU memory: a proof of this key (domain 2^%u, %.1f GB of bases) "
                           "needs at least %.2f GiB of device memory, %.2f GiB given",
                           shape->log_m, (double)z.total / 1e9, (double)min_budget / GIB,
                           (double)budget / GIB);
    }
    *out = best;
    out->min_budget = min_budget;
    return CZK_OK;
}

bool czk_gpu_plan_all_resident(const czk_gpu_plan *p, const czk_groth16_params *shape)
{
    for (int s = 0; s < CZK_G16_SECTIONS; s++)
        if (p->resident[s] < czk_groth16_section_len(shape, (czk_groth16_section)s))
            return false;
    return true;
}

size_t czk_gpu_plan_format(const czk_gpu_plan *p, const czk_groth16_params *shape, char *buf,
                           size_t cap)
{
    char res[160] = "";
    size_t k = 0;
    for (int s = 0; s < CZK_G16_SECTIONS; s++) {
        size_t len = czk_groth16_section_len(shape, (czk_groth16_section)s);
        if (len == 0 || p->resident[s] == 0) continue;
        const char *name = czk_groth16_section_name((czk_groth16_section)s);
        int w = p->resident[s] == len
                    ? snprintf(res + k, sizeof res - k, "%s%s", k ? "," : "", name)
                    : snprintf(res + k, sizeof res - k, "%s%s:%.0f%%", k ? "," : "", name,
                               100.0 * (double)p->resident[s] / (double)len);
        if (w < 0 || (size_t)w >= sizeof res - k) break;
        k += (size_t)w;
    }
    int n = snprintf(buf, cap,
                     "budget_gib=%.2f resident=%s resident_gb=%.2f streamed_gb=%.2f "
                     "copied_gb=%.2f abc=%s witness=%s overlap=%d tables=%s msm_chunk=%zu "
                     "msm_scratch_gb=%.2f peak_gb=%.2f est_copy_s=%.3f est_s=%.3f min_gib=%.2f",
                     (double)p->budget / GIB, res[0] ? res : "none",
                     (double)p->resident_bytes / 1e9, (double)p->streamed_bytes / 1e9,
                     (double)p->copy_bytes / 1e9, p->abc_in_turn ? "in_turn" : "at_once",
                     p->witness_late ? "late" : "early", p->overlap ? 1 : 0,
                     p->whole_tables ? "whole" : "split", p->msm_chunk,
                     (double)p->msm_scratch / 1e9, (double)p->peak_bytes / 1e9, p->est_copy_s,
                     p->est_s, (double)p->min_budget / GIB);
    return n < 0 ? 0 : (size_t)n;
}
