/*
 * The per-thread bodies of the MSM kernels (cuda/msm.cu describes the pipeline). Each body
 * takes its thread index explicitly and is __host__ __device__, so the whole pipeline can be
 * replayed on the CPU, thread by thread, to check its logic against the CPU MSM on a machine
 * without a GPU; msm.cu wraps each body in a one-line kernel.
 */
#ifndef CZK_CUDA_MSM_KERNELS_CUH
#define CZK_CUDA_MSM_KERNELS_CUH

#include "czk/msm.h"
#include "ec.cuh"

namespace czk_gpu {
namespace msm {

constexpr uint32_t KEY_NONE = 0xffffffffu;
constexpr uint32_t SIGN_BIT = 0x80000000u;

CZK_HD uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* r as 32-bit limbs (constant memory on the device, a host copy for the host build). */
CZK_CONST_ARR(r_limbs, 8, split64(host_consts::fr_p))

/* Load a canonical scalar and reduce it mod r: s < 2^256 < 3r, so two conditional
 * subtractions leave s < r < 2^255. */
CZK_HD void load_scalar_mod_r(uint32_t s[8], const czk_scalar &in)
{
    const uint32_t *r = CZK_CONST(r_limbs).v;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        s[2 * i] = (uint32_t)in.l[i];
        s[2 * i + 1] = (uint32_t)(in.l[i] >> 32);
    }
#pragma unroll
    for (int pass = 0; pass < 2; pass++) {
        uint32_t t[8];
        t[0] = sub_cc(s[0], r[0]);
#pragma unroll
        for (int i = 1; i < 8; i++) t[i] = subc_cc(s[i], r[i]);
        uint32_t borrow = subc(0, 0);
#pragma unroll
        for (int i = 0; i < 8; i++) s[i] = borrow ? s[i] : t[i];
    }
}

/*
 * Window widths. Pippenger's cost is n additions per window plus 2^(c−1) buckets to reduce
 * per window, so for W windows covering the 256 bits a Booth recoding needs, the widths are
 * made as equal as possible: `extra` windows of base + 1 bits, then W − extra of base bits,
 * where base = floor(256/W). With c = 22 that is 4 windows of 22 bits and 8 of 21 (12
 * windows, as 12 of 22 would be), so the reduction covers 4·2^21 + 8·2^20 buckets instead
 * of 11·2^21 (the twelfth, the scalars' top 13 bits, is nearly empty either way): a quarter
 * less. The bucket array keeps 2^(max − 1) buckets a window; the narrow windows leave their
 * upper half empty.
 */
struct win_split {
    unsigned nwin, base, extra;
    CZK_HD unsigned width(unsigned w) const { return base + (w < extra ? 1u : 0u); }
    CZK_HD unsigned pos(unsigned w) const { return w * base + umin(w, extra); }
    CZK_HD unsigned max_width() const { return base + (extra > 0 ? 1u : 0u); }
};

/* The split for windows of at most c bits (c in 2..32): W = ceil(256/c) windows. */
CZK_HD win_split split_windows(unsigned c)
{
    win_split ws;
    ws.nwin = (256 + c - 1) / c;
    ws.base = 256 / ws.nwin;
    ws.extra = 256 - ws.nwin * ws.base;
    return ws;
}

/*
 * Booth digit of the window of c bits at bit pos: d = v + b − 2^c·t, where v is the
 * window's c bits, b the bit just below the window and t the window's top bit. Over
 * consecutive windows (each starting where the one below ends) the b and t terms
 * telescope, leaving s − t_top·2^256, and t_top = 0 because the windows cover 256 > 255 ≥
 * bits of s. |d| ≤ 2^(c−1).
 */
CZK_HD int booth_digit(const uint32_t s[8], unsigned pos, unsigned c)
{
    unsigned word = pos >> 5, sh = pos & 31;
    uint64_t lo = word < 8 ? s[word] : 0;
    uint64_t hi = word + 1 < 8 ? s[word + 1] : 0;
    uint32_t v = (uint32_t)(((lo | (hi << 32)) >> sh) & ((1u << c) - 1));
    uint32_t below = 0;
    if (pos > 0 && pos - 1 < 256) {
        unsigned q = pos - 1;
        below = (s[q >> 5] >> (q & 31)) & 1;
    }
    uint32_t top = v >> (c - 1);
    return (int)(v + below) - (int)(top << c);
}

/* Popcount of density word w (bits past n ignored). */
CZK_HD void density_popc_body(size_t w, const uint64_t *density, size_t n, size_t nwords,
                              uint32_t *counts)
{
    if (w >= nwords) return;
    uint64_t word = density[w];
    size_t bits = n - w * 64;
    if (bits < 64) word &= (1ull << bits) - 1;
    counts[w] = popc64(word);
}

/* Class of scalar i: fsig / fone flags and the packed (scalar index << 32 | base index). */
CZK_HD void classify_body(size_t i, const czk_scalar *scalars, size_t n, const uint64_t *density,
                          const uint32_t *prefix, uint64_t *ik, uint8_t *fsig, uint8_t *fone)
{
    if (i >= n) return;
    uint32_t k = (uint32_t)i;
    bool present = true;
    if (density != nullptr) {
        uint64_t word = density[i >> 6];
        uint64_t below = word & ((1ull << (i & 63)) - 1);
        present = (word >> (i & 63)) & 1;
        k = prefix[i >> 6] + popc64(below);
    }
    uint32_t s[8];
    load_scalar_mod_r(s, scalars[i]);
    uint32_t upper = s[1] | s[2] | s[3] | s[4] | s[5] | s[6] | s[7];
    bool zero = upper == 0 && s[0] == 0;
    bool one = upper == 0 && s[0] == 1;
    fsig[i] = present && !zero && !one;
    fone[i] = present && one;
    ik[i] = ((uint64_t)i << 32) | k;
}

/* Key and value of significant scalar j in the window of c bits at bit pos: key |d| − 1,
 * or zkey (the bucket count of the widest window) for d = 0, which sorts after every
 * bucket; value base index | sign. */
CZK_HD void digits_body(uint32_t j, const czk_scalar *scalars, const uint64_t *sig_ik,
                        uint32_t nsig, unsigned pos, unsigned c, uint32_t zkey, uint32_t *keys,
                        uint32_t *vals)
{
    if (j >= nsig) return;
    uint64_t e = sig_ik[j];
    uint32_t s[8];
    load_scalar_mod_r(s, scalars[e >> 32]);
    int d = booth_digit(s, pos, c);
    uint32_t mag = (uint32_t)(d < 0 ? -d : d);
    keys[j] = mag == 0 ? zkey : mag - 1;
    vals[j] = (uint32_t)e | (d < 0 ? SIGN_BIT : 0);
}

/*
 * The digits of a group of windows [w0, w1) in one pass, so each scalar is read once a
 * group rather than once a window (the per-window pass is bound by those 40-byte reads):
 * window w0's entries go to keys0/vals0, window w's for w > w0 to keys + (w − w0)·nsig
 * (vals the same), the slot its sorted entries will take; msm.cu then sorts those in place
 * through a double buffer.
 */
CZK_HD void digits_group_body(uint32_t j, const czk_scalar *scalars, const uint64_t *sig_ik,
                              uint32_t nsig, win_split ws, unsigned w0, unsigned w1,
                              uint32_t zkey, uint32_t *keys0, uint32_t *vals0, uint32_t *keys,
                              uint32_t *vals)
{
    if (j >= nsig) return;
    uint64_t e = sig_ik[j];
    uint32_t s[8];
    load_scalar_mod_r(s, scalars[e >> 32]);
    for (unsigned w = w0; w < w1; w++) {
        int d = booth_digit(s, ws.pos(w), ws.width(w));
        uint32_t mag = (uint32_t)(d < 0 ? -d : d);
        uint32_t k = mag == 0 ? zkey : mag - 1;
        uint32_t v = (uint32_t)e | (d < 0 ? SIGN_BIT : 0);
        if (w == w0) {
            keys0[j] = k;
            vals0[j] = v;
        } else {
            keys[(size_t)(w - w0) * nsig + j] = k;
            vals[(size_t)(w - w0) * nsig + j] = v;
        }
    }
}

/*
 * Two accumulation switches, off by default and not yet timed against it:
 *
 * CZK_MSM_ACC_PREFETCH, a bit mask: bit 0 for G1, bit 1 for G2. With a bit set, a thread
 * loads entry i + 1's key and affine base, and entry i + 2's value, before it adds entry i,
 * so the random global load of the next base overlaps one addition instead of being hidden
 * only by other warps, of which the register-heavy accumulation leaves few per SM. Costs
 * the registers of one affine point and one value: ptxas (CUDA 13.0, sm_90) G1 196 → 214,
 * G2 246 → 255, no spills; both stay at 8 warps per SM.
 *
 * CZK_MSM_G1_LEAN = 1: G1 adds with xyzz_t::add_affine_lean (cuda/ec.cuh), the same formula
 * ordered so that fewer field values are live at once (G1 196 → 176 registers, the same
 * occupancy).
 *
 * G2 always adds through add_affine_lean<true>, its Fp2 products through lean_ops: on an
 * H200 G2 2^24 took 355.3 ms, against 384.8 by add_affine.
 */
#ifndef CZK_MSM_ACC_PREFETCH
#define CZK_MSM_ACC_PREFETCH 0
#endif
#ifndef CZK_MSM_G1_LEAN
#define CZK_MSM_G1_LEAN 0
#endif

/* The build's choice of the switches above for each field. */
template <class F> struct acc_config {
    static constexpr bool prefetch = (CZK_MSM_ACC_PREFETCH & 1) != 0;
    static constexpr int lean = CZK_MSM_G1_LEAN;
};
template <> struct acc_config<fp2_t> {
    static constexpr bool prefetch = (CZK_MSM_ACC_PREFETCH & 2) != 0;
    static constexpr int lean = 2;
};

template <int LEAN, class F> CZK_HD void acc_add_affine(xyzz_t<F> &acc, const affine_t<F> &p)
{
    if constexpr (LEAN == 2)
        acc.template add_affine_lean<true>(p);
    else if constexpr (LEAN == 1)
        acc.template add_affine_lean<false>(p);
    else
        acc.add_affine(p);
}

/*
 * Bucket accumulation, level 0: thread g handles entries [t·L, t·L + L) of window w
 * (g = w·chunks + t) of the sorted keys/vals. Runs of equal keys are summed; a run that
 * starts a bucket is written to its bucket, a run that continues a bucket from the previous
 * chunk goes to carry slot g (key w·nb + bucket). ckeys[g] = KEY_NONE when there is none.
 * PF and LEAN pick the variants described with the switches above; every variant writes
 * the same buckets and carries (tests/unit/test_msm_host.cpp).
 */
template <class F, bool PF = acc_config<F>::prefetch, int LEAN = acc_config<F>::lean>
CZK_HD void bucket_acc_body(uint32_t g, const affine_t<F> *bases, const uint32_t *keys,
                            const uint32_t *vals, uint32_t nsig, uint32_t chunks, uint32_t nwin,
                            uint32_t L, uint32_t nb, xyzz_t<F> *buckets, uint32_t *ckeys,
                            xyzz_t<F> *cpts, uint32_t w_base = 0)
{
    if (g >= nwin * chunks) return;
    uint32_t w = g / chunks, t = g - w * chunks;
    /* keys and vals hold windows w_base.. (msm.cu sorts a group of windows at a time). */
    const uint32_t *wk = keys + (size_t)(w - w_base) * nsig;
    const uint32_t *wv = vals + (size_t)(w - w_base) * nsig;
    uint32_t start = t * L, end = umin(nsig, start + L);
    ckeys[g] = KEY_NONE;
    uint32_t cur = wk[start];
    if (cur >= nb) return; /* zero digits sort last: nothing left in this window */
    bool carry = start > 0 && wk[start - 1] == cur;
    xyzz_t<F> acc = xyzz_t<F>::inf();
    /* The prefetch pipeline (PF only): key kn, value v and base p of the entry being added,
     * value vn of the next one. Indices past the chunk are clamped to its last entry, so
     * every load stays in bounds; the values loaded there are never used. */
    uint32_t kn = cur, v = 0, vn = 0;
    affine_t<F> p = affine_t<F>::inf();
    if constexpr (PF) {
        v = wv[start];
        p = bases[v & ~SIGN_BIT];
        vn = wv[umin(start + 1, end - 1)];
    }
    for (uint32_t i = start; i < end; i++) {
        uint32_t k;
        if constexpr (PF)
            k = kn;
        else
            k = wk[i];
        if (k != cur) {
            if (carry) {
                ckeys[g] = w * nb + cur;
                cpts[g] = acc;
                carry = false;
            } else {
                buckets[(size_t)w * nb + cur] = acc;
            }
            if (k >= nb) return;
            cur = k;
            acc = xyzz_t<F>::inf();
        }
        if constexpr (PF) {
            affine_t<F> pn = bases[vn & ~SIGN_BIT];
            kn = wk[umin(i + 1, end - 1)];
            uint32_t vnn = wv[umin(i + 2, end - 1)];
            acc_add_affine<LEAN>(acc, p.cneg((v & SIGN_BIT) != 0));
            p = pn;
            v = vn;
            vn = vnn;
        } else {
            uint32_t vi = wv[i];
            affine_t<F> pi = bases[vi & ~SIGN_BIT];
            acc_add_affine<LEAN>(acc, pi.cneg((vi & SIGN_BIT) != 0));
        }
    }
    if (carry) {
        ckeys[g] = w * nb + cur;
        cpts[g] = acc;
    } else {
        buckets[(size_t)w * nb + cur] = acc;
    }
}

/*
 * One carry level: m entries (key, partial sum) with KEY_NONE holes, the entries of one key
 * contiguous. Thread g sums chunk g's runs; a run whose key is also the key of the entry
 * just before the chunk continues a run of the previous chunk and is carried to slot g of
 * the next level; every other run is its key's first at this level and is added into
 * out[key]. Each key thus has one writer per level, and a run of any length is folded in
 * log_L(length) levels.
 */
template <class F>
CZK_HD void fold_body(uint32_t g, const uint32_t *keys, const xyzz_t<F> *pts, uint32_t m,
                      uint32_t L, xyzz_t<F> *out, uint32_t *okeys, xyzz_t<F> *opts)
{
    uint32_t start = g * L;
    if (start >= m) return;
    uint32_t end = umin(m, start + L);
    uint32_t prev = start > 0 ? keys[start - 1] : KEY_NONE;
    okeys[g] = KEY_NONE;
    uint32_t cur = KEY_NONE;
    bool carry = false;
    xyzz_t<F> acc = xyzz_t<F>::inf();
    for (uint32_t i = start; i < end; i++) {
        uint32_t k = keys[i];
        if (k == KEY_NONE) continue;
        if (k != cur) {
            if (cur != KEY_NONE) {
                if (carry) {
                    okeys[g] = cur;
                    opts[g] = acc;
                } else {
                    out[cur].add(acc);
                }
            }
            carry = (i == start) && prev == k;
            cur = k;
            acc = xyzz_t<F>::inf();
        }
        acc.add(pts[i]);
    }
    if (cur != KEY_NONE) {
        if (carry) {
            okeys[g] = cur;
            opts[g] = acc;
        } else {
            out[cur].add(acc);
        }
    }
}

/* Sum of the bases of the scalars equal to 1, chunk g of L; every chunk's partial sum is a
 * carry entry with key 0. */
template <class F>
CZK_HD void ones_body(uint32_t g, const affine_t<F> *bases, const uint64_t *ik, uint32_t m,
                      uint32_t L, uint32_t *okeys, xyzz_t<F> *opts)
{
    uint32_t start = g * L;
    if (start >= m) return;
    uint32_t end = umin(m, start + L);
    xyzz_t<F> acc = xyzz_t<F>::inf();
    for (uint32_t i = start; i < end; i++) acc.add_affine(bases[(uint32_t)ik[i]]);
    okeys[g] = 0;
    opts[g] = acc;
}

/*
 * Window sums: bucket j (0-based) has weight j + 1. Windows below `wide` have nb buckets,
 * the others nb/2 (win_split's narrow windows, whose upper half stays empty and gets no
 * thread); seg divides the count of each. Thread g takes buckets [lo, lo + seg) of window
 * w, forms run = sum B_j and tot = sum (j − lo + 1)·B_j from the top down (two additions
 * per bucket), and emits tot + lo·run with key w.
 */
CZK_HD uint32_t bucket_sum_threads(uint32_t nwin, uint32_t nb, uint32_t wide, uint32_t seg)
{
    return wide * (nb / seg) + (nwin - wide) * (nb / 2 / seg);
}

template <class F>
CZK_HD void bucket_sum_body(uint32_t g, const xyzz_t<F> *buckets, uint32_t nwin, uint32_t nb,
                            uint32_t wide, uint32_t seg, uint32_t *okeys, xyzz_t<F> *opts)
{
    const uint32_t per_wide = nb / seg, first_narrow = wide * per_wide;
    if (g >= bucket_sum_threads(nwin, nb, wide, seg)) return;
    uint32_t w, s;
    if (g < first_narrow) {
        w = g / per_wide;
        s = g - w * per_wide;
    } else {
        const uint32_t per_narrow = nb / 2 / seg, h = g - first_narrow;
        w = wide + h / per_narrow;
        s = h - (w - wide) * per_narrow;
    }
    uint32_t lo = s * seg;
    const xyzz_t<F> *b = buckets + (size_t)w * nb;
    xyzz_t<F> run = xyzz_t<F>::inf(), tot = xyzz_t<F>::inf();
    for (int j = (int)(lo + seg) - 1; j >= (int)lo; j--) {
        run.add(b[j]);
        tot.add(run);
    }
    if (lo > 0 && !run.is_inf()) tot.add(run.mul_small(lo));
    okeys[g] = w;
    opts[g] = tot;
}

} // namespace msm
} // namespace czk_gpu

#endif /* CZK_CUDA_MSM_KERNELS_CUH */
