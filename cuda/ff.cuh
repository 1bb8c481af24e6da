/*
 * Device field arithmetic for BLS12-381: Fr (8 × 32-bit limbs), Fp (12 × 32-bit limbs), Fp2.
 *
 * Representation: exactly the host's. A czk_fr (4 × u64, Montgomery, R = 2^256) and an fr_t
 * (8 × u32, Montgomery, R = 2^256) are the same 32 bytes, and likewise czk_fp / fp_t (48 bytes,
 * R = 2^384) and czk_fp2 / fp2_t, so arrays of host elements are copied to the device as they
 * are and read there through these types. Every value is kept fully reduced (< modulus).
 *
 * Minimal interface (what the NTT and MSM code use):
 *   fr_t a = fr_from(host_fr);      fr_to(&host_fr, a);      // same bytes, no conversion
 *   a + b, a - b, a * b, a.sqr(), a.dbl(), -a, a.inv(), a == b, a.is_zero()
 *   fr_t::zero(), fr_t::one()                                 // Montgomery 0 and 1
 *   a.to_mont(), a.from_mont()                                // canonical <-> Montgomery
 *
 * Multiplication is Montgomery CIOS with 32-bit limbs in PTX carry chains. The partial
 * products a[j]·b[i] of even j accumulate in one array and those of odd j in another that
 * is one word out of step, so every step is a run of mad.lo.cc / madc.hi.cc pairs on two
 * adjacent words, which ptxas fuses into one IMAD.WIDE.U32(.X) each: the full 64-bit product
 * in one full-rate instruction instead of a half-rate IMAD.HI plus an IMAD. (This is the
 * layout sppark's ff/mont_t.cuh uses; on an H200 it measured 27.6 G Fp mul/s against 17.5 for
 * a CIOS with separate lo and hi passes.) Reduction is interleaved with the products, and the
 * two arrays swap roles every step instead of being shifted. Both moduli leave spare top bits
 * (p < 2^381, r < 2^255), so the accumulator never needs an extra carry word: every value
 * before a division by 2^32 is below 2^33·modulus < 2^(32(n+1)).
 *
 * Host build: the same code compiles for the host (the PTX carry flag is emulated with a
 * thread-local variable), so the device algorithms can be cross-checked against the CPU
 * library on a machine without a GPU; the emulation is slow and only for tests.
 */
#ifndef CZK_CUDA_FF_CUH
#define CZK_CUDA_FF_CUH

#include <stddef.h>
#include <stdint.h>

#include "czk/bls12_381.h"
#include "ff/consts.h"

#if defined(__CUDACC__)
#define CZK_HD __host__ __device__ __forceinline__
/* Out of line: for large bodies where a call costs little against the work (an Fp2
 * multiplication is three Fp ones) and inlining every use would multiply compile time. */
#define CZK_HD_NOINLINE __host__ __device__ __noinline__
#else
#define CZK_HD inline
#define CZK_HD_NOINLINE inline
/* A plain C++ compiler (the host-only cross-check test) spells nvcc's __align__ alignas. */
#ifndef __align__
#define __align__(n) alignas(n)
#endif
#endif

namespace czk_gpu {

/* Set bits of a 64-bit word (bitmaps: the MSM's densities, packed vectors). */
CZK_HD uint32_t popc64(uint64_t x)
{
#if defined(__CUDA_ARCH__)
    return (uint32_t)__popcll(x);
#else
    return (uint32_t)__builtin_popcountll(x);
#endif
}

/* ------------------------------------------------------------------------------------ */
/* Carry-chain primitives                                                               */
/* ------------------------------------------------------------------------------------ */

#if defined(__CUDA_ARCH__)
/* Each primitive is one volatile asm statement, so the compiler keeps their order; the carry
 * flag (CC.CF) lives between consecutive statements. Names follow the PTX mnemonics: "c"
 * before the operation consumes the carry, ".cc" after it produces one. */
#define CZK_PTX3(name, op)                                                                     \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b)                           \
    {                                                                                          \
        uint32_t r;                                                                            \
        asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                            \
        return r;                                                                              \
    }
#define CZK_PTX4(name, op)                                                                     \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c)               \
    {                                                                                          \
        uint32_t r;                                                                            \
        asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                \
        return r;                                                                              \
    }
CZK_PTX3(add_cc, "add.cc.u32")
CZK_PTX3(addc_cc, "addc.cc.u32")
CZK_PTX3(addc, "addc.u32")
CZK_PTX3(sub_cc, "sub.cc.u32")
CZK_PTX3(subc_cc, "subc.cc.u32")
CZK_PTX3(subc, "subc.u32")
CZK_PTX4(mad_lo_cc, "mad.lo.cc.u32")
CZK_PTX4(madc_lo_cc, "madc.lo.cc.u32")
CZK_PTX4(mad_hi_cc, "mad.hi.cc.u32")
CZK_PTX4(madc_hi_cc, "madc.hi.cc.u32")
CZK_PTX4(madc_hi, "madc.hi.u32")
#undef CZK_PTX3
#undef CZK_PTX4
__device__ __forceinline__ uint32_t mul_lo(uint32_t a, uint32_t b) { return a * b; }
__device__ __forceinline__ uint32_t mul_hi(uint32_t a, uint32_t b) { return __umulhi(a, b); }
#else
/* Host emulation of the PTX carry flag. */
struct host_cc {
    static inline thread_local uint32_t cf = 0;
};
inline uint32_t add_cc(uint32_t a, uint32_t b)
{
    uint64_t s = (uint64_t)a + b;
    host_cc::cf = (uint32_t)(s >> 32);
    return (uint32_t)s;
}
inline uint32_t addc_cc(uint32_t a, uint32_t b)
{
    uint64_t s = (uint64_t)a + b + host_cc::cf;
    host_cc::cf = (uint32_t)(s >> 32);
    return (uint32_t)s;
}
inline uint32_t addc(uint32_t a, uint32_t b) { return a + b + host_cc::cf; }
inline uint32_t sub_cc(uint32_t a, uint32_t b)
{
    uint64_t d = (uint64_t)a - b;
    host_cc::cf = (uint32_t)(d >> 63);
    return (uint32_t)d;
}
inline uint32_t subc_cc(uint32_t a, uint32_t b)
{
    uint64_t d = (uint64_t)a - b - host_cc::cf;
    host_cc::cf = (uint32_t)(d >> 63);
    return (uint32_t)d;
}
inline uint32_t subc(uint32_t a, uint32_t b) { return a - b - host_cc::cf; }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return add_cc((uint32_t)((uint64_t)a * b), c);
}
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return addc_cc((uint32_t)((uint64_t)a * b), c);
}
inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return add_cc((uint32_t)(((uint64_t)a * b) >> 32), c);
}
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return addc_cc((uint32_t)(((uint64_t)a * b) >> 32), c);
}
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c)
{
    return addc((uint32_t)(((uint64_t)a * b) >> 32), c);
}
inline uint32_t mul_lo(uint32_t a, uint32_t b) { return a * b; }
inline uint32_t mul_hi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
#endif

/* ------------------------------------------------------------------------------------ */
/* Constants: written once in src/ff/consts.h (64-bit limbs), split here into 32-bit limbs   */
/* ------------------------------------------------------------------------------------ */

template <int N> struct u32s {
    uint32_t v[N];
};

/* 64-bit little-endian limbs to twice as many 32-bit ones, at compile time. */
template <int N64> constexpr u32s<2 * N64> split64(const uint64_t (&a)[N64])
{
    u32s<2 * N64> r{};
    for (int i = 0; i < N64; i++) {
        r.v[2 * i] = (uint32_t)a[i];
        r.v[2 * i + 1] = (uint32_t)(a[i] >> 32);
    }
    return r;
}

namespace host_consts {
constexpr uint64_t fp_p[6] = CZK__FP_P, fp_r[6] = CZK__FP_R, fp_r2[6] = CZK__FP_R2;
constexpr uint64_t fp_pm2[6] = CZK__FP_PM2;
constexpr uint64_t fr_p[4] = CZK__FR_P, fr_r[4] = CZK__FR_R, fr_r2[4] = CZK__FR_R2;
constexpr uint64_t fr_pm2[4] = CZK__FR_PM2;
constexpr uint64_t fp_four[6] = CZK__FP_FOUR_MONT;
constexpr uint64_t g1_gen_x[6] = CZK__G1_GEN_X, g1_gen_y[6] = CZK__G1_GEN_Y;
} // namespace host_consts

/*
 * The moduli and Montgomery constants live in constant memory on the device: a multiply-add
 * with a constant-bank operand costs nothing extra in SASS, and a load from there keeps the
 * compiler from special-casing r's M0 = 0xffffffff into slower code. The host build reads
 * identical host copies.
 */
#if defined(__CUDACC__)
#define CZK_CONST_ARR(name, N, init)                                                           \
    [[maybe_unused]] static __device__ __constant__ const u32s<N> name##_d = init;             \
    [[maybe_unused]] static const u32s<N> name##_h = init;
#define CZK_CONST_U32(name, init)                                                              \
    [[maybe_unused]] static __device__ __constant__ const uint32_t name##_d = init;            \
    [[maybe_unused]] static const uint32_t name##_h = init;
#if defined(__CUDA_ARCH__)
#define CZK_CONST(name) name##_d
#else
#define CZK_CONST(name) name##_h
#endif
#else
#define CZK_CONST_ARR(name, N, init) [[maybe_unused]] static const u32s<N> name##_h = init;
#define CZK_CONST_U32(name, init) [[maybe_unused]] static const uint32_t name##_h = init;
#define CZK_CONST(name) name##_h
#endif

CZK_CONST_ARR(fp_mod, 12, split64(host_consts::fp_p))
CZK_CONST_ARR(fp_one, 12, split64(host_consts::fp_r))
CZK_CONST_ARR(fp_rr, 12, split64(host_consts::fp_r2))
CZK_CONST_ARR(fp_pm2, 12, split64(host_consts::fp_pm2))
CZK_CONST_U32(fp_m0, (uint32_t)CZK__FP_INV) /* −p^−1 mod 2^32 = low word of −p^−1 mod 2^64 */
CZK_CONST_ARR(fr_mod, 8, split64(host_consts::fr_p))
CZK_CONST_ARR(fr_one, 8, split64(host_consts::fr_r))
CZK_CONST_ARR(fr_rr, 8, split64(host_consts::fr_r2))
CZK_CONST_ARR(fr_pm2, 8, split64(host_consts::fr_pm2))
CZK_CONST_U32(fr_m0, (uint32_t)CZK__FR_INV)

/*
 * r's lowest 32-bit word is 1 (2^32 divides r − 1), so −r^−1 mod 2^32 is 0xffffffff: each
 * reduction step's m is −x[0], and m·r[0] + x[0] is 0 with a carry exactly when x[0] != 0.
 * Fr's reduction uses that (low_word_one): three multiply-adds per row become one negation
 * and two additions, off the IMAD pipe (bare Fr multiply 52.6 G/s against 50.3 on an H200).
 * p has no such form.
 */
static_assert((host_consts::fr_p[0] & 0xffffffffu) == 1, "r = 1 mod 2^32");
static_assert((uint32_t)CZK__FR_INV == 0xffffffffu, "-r^-1 = -1 mod 2^32");

struct fp_params {
    static constexpr int n = 12;
    static constexpr bool low_word_one = false;
    static CZK_HD const uint32_t *mod() { return CZK_CONST(fp_mod).v; }
    static CZK_HD const uint32_t *one() { return CZK_CONST(fp_one).v; }
    static CZK_HD const uint32_t *rr() { return CZK_CONST(fp_rr).v; }
    static CZK_HD uint32_t m0() { return CZK_CONST(fp_m0); }
    static CZK_HD const uint32_t *pm2() { return CZK_CONST(fp_pm2).v; }
};
struct fr_params {
    static constexpr int n = 8;
    static constexpr bool low_word_one = true;
    static CZK_HD const uint32_t *mod() { return CZK_CONST(fr_mod).v; }
    static CZK_HD uint32_t m0() { return CZK_CONST(fr_m0); }
    static CZK_HD const uint32_t *one() { return CZK_CONST(fr_one).v; }
    static CZK_HD const uint32_t *rr() { return CZK_CONST(fr_rr).v; }
    static CZK_HD const uint32_t *pm2() { return CZK_CONST(fr_pm2).v; }
};

/*
 * Fr for the hot loops of the NTT (cuda/ntt.cuh's fr_t): the same numbers, but the modulus
 * and m0 come from constant memory that the translation unit fills at run time on each
 * device (fr_rt_upload), and the reduction is the generic one (q = x0·m0). ptxas fuses a
 * mad.lo.cc/madc.hi.cc pair into one IMAD.WIDE.U32.X only when it cannot see the operands'
 * values: with r's limbs known (1, 0xffffffff, ...) or with the r = 1 mod 2^32 shortcut,
 * about half the pairs stayed IMAD.X + a half-rate IMAD.HI.U32.X. On an H200
 * (bench/probes/fr_mul_probe.cu): 56.3 G Fr mul/s against 51.1 for fr_params, every pair
 * fused; the 2^27 forward transform 45.7 → 42.1 ms, the Groth16 H step 312.7 → 284.6 ms.
 * A separate type, so that other translation units, which do not upload, keep fr_params.
 */
#if defined(__CUDACC__)
[[maybe_unused]] static __device__ __constant__ u32s<8> fr_mod_rt_d;
[[maybe_unused]] static __device__ __constant__ uint32_t fr_m0_rt_d;
/* Fill this translation unit's copies on the current device. */
[[maybe_unused]] static cudaError_t fr_rt_upload()
{
    cudaError_t e = cudaMemcpyToSymbol(fr_mod_rt_d, &fr_mod_h, sizeof fr_mod_h);
    if (e == cudaSuccess) e = cudaMemcpyToSymbol(fr_m0_rt_d, &fr_m0_h, sizeof fr_m0_h);
    return e;
}
#endif
struct fr_rt_params : fr_params {
    static constexpr bool low_word_one = false;
#if defined(__CUDA_ARCH__)
    static CZK_HD const uint32_t *mod() { return fr_mod_rt_d.v; }
    static CZK_HD uint32_t m0() { return fr_m0_rt_d; }
#endif
};

/* ------------------------------------------------------------------------------------ */
/* Montgomery field of n 32-bit limbs                                                   */
/* ------------------------------------------------------------------------------------ */

template <class P> struct __align__(16) mont_t {
    static constexpr int n = P::n;
    uint32_t v[n];

    CZK_HD uint32_t &operator[](int i) { return v[i]; }
    CZK_HD const uint32_t &operator[](int i) const { return v[i]; }

    static CZK_HD mont_t zero()
    {
        mont_t r;
#pragma unroll
        for (int i = 0; i < n; i++) r.v[i] = 0;
        return r;
    }
    static CZK_HD mont_t one()
    {
        mont_t r;
        const uint32_t *o = P::one();
#pragma unroll
        for (int i = 0; i < n; i++) r.v[i] = o[i];
        return r;
    }

    CZK_HD bool is_zero() const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < n; i++) acc |= v[i];
        return acc == 0;
    }
    CZK_HD bool is_one() const { return *this == one(); }
    friend CZK_HD bool operator==(const mont_t &a, const mont_t &b)
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < n; i++) acc |= a.v[i] ^ b.v[i];
        return acc == 0;
    }
    friend CZK_HD bool operator!=(const mont_t &a, const mont_t &b) { return !(a == b); }

    /* x − p if x ≥ p, else x; x < 2p. */
    static CZK_HD void final_sub(uint32_t *x)
    {
        const uint32_t *m = P::mod();
        uint32_t t[n];
        t[0] = sub_cc(x[0], m[0]);
#pragma unroll
        for (int i = 1; i < n; i++) t[i] = subc_cc(x[i], m[i]);
        uint32_t borrow = subc(0, 0); /* 0 or 0xffffffff */
#pragma unroll
        for (int i = 0; i < n; i++) x[i] = borrow ? x[i] : t[i];
    }

    friend CZK_HD mont_t operator+(const mont_t &a, const mont_t &b)
    {
        /* Spare top bits: a + b < 2p fits in n words without a carry out. */
        mont_t r;
        r.v[0] = add_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < n - 1; i++) r.v[i] = addc_cc(a.v[i], b.v[i]);
        r.v[n - 1] = addc(a.v[n - 1], b.v[n - 1]);
        final_sub(r.v);
        return r;
    }
    friend CZK_HD mont_t operator-(const mont_t &a, const mont_t &b)
    {
        const uint32_t *m = P::mod();
        mont_t r;
        r.v[0] = sub_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < n; i++) r.v[i] = subc_cc(a.v[i], b.v[i]);
        uint32_t borrow = subc(0, 0);
        /* Add p back, masked by the borrow. */
        r.v[0] = add_cc(r.v[0], m[0] & borrow);
#pragma unroll
        for (int i = 1; i < n - 1; i++) r.v[i] = addc_cc(r.v[i], m[i] & borrow);
        r.v[n - 1] = addc(r.v[n - 1], m[n - 1] & borrow);
        return r;
    }
    CZK_HD mont_t operator-() const { return zero() - *this; }
    CZK_HD mont_t dbl() const { return *this + *this; }
    CZK_HD mont_t &operator+=(const mont_t &b) { return *this = *this + b; }
    CZK_HD mont_t &operator-=(const mont_t &b) { return *this = *this - b; }
    CZK_HD mont_t &operator*=(const mont_t &b) { return *this = *this * b; }

    /* Negate when flag is set (branch-free; 0 stays 0). */
    CZK_HD mont_t cneg(bool flag) const
    {
        mont_t ng = -*this;
        mont_t r;
#pragma unroll
        for (int i = 0; i < n; i++) r.v[i] = flag ? ng.v[i] : v[i];
        return r;
    }

  private:
    /* First row: x = a_even·b0 (x[k] at weight k), y = a_odd·b0 (y[k] at weight k+1). */
    static CZK_HD void mul_first(uint32_t *x, uint32_t *y, const uint32_t *a, uint32_t b0)
    {
#pragma unroll
        for (int j = 0; j < n; j += 2) {
            x[j] = mul_lo(a[j], b0);
            x[j + 1] = mul_hi(a[j], b0);
            y[j] = mul_lo(a[j + 1], b0);
            y[j + 1] = mul_hi(a[j + 1], b0);
        }
    }

    /*
     * Add m·p with m = x[0]·(−p^−1) so that word 0 becomes zero; x is the array aligned at
     * weight 0, y the one at weight 1. The carry out of y's top word is provably zero (see
     * the header comment); x's carry out (weight n) lands in y's top word.
     */
    static CZK_HD void reduce(uint32_t *x, uint32_t *y)
    {
        const uint32_t *m = P::mod();
        uint32_t q = P::low_word_one ? 0u - x[0] : x[0] * P::m0();
        y[0] = mad_lo_cc(m[1], q, y[0]);
        y[1] = madc_hi_cc(m[1], q, y[1]);
#pragma unroll
        for (int j = 2; j < n; j += 2) {
            y[j] = madc_lo_cc(m[j + 1], q, y[j]);
            y[j + 1] = madc_hi_cc(m[j + 1], q, y[j + 1]);
        }
        if (P::low_word_one) { /* m[0] = 1: q·m[0] = q, with a zero high word */
            x[0] = add_cc(x[0], q);
            x[1] = addc_cc(x[1], 0);
        } else {
            x[0] = mad_lo_cc(m[0], q, x[0]);
            x[1] = madc_hi_cc(m[0], q, x[1]);
        }
#pragma unroll
        for (int j = 2; j < n; j += 2) {
            x[j] = madc_lo_cc(m[j], q, x[j]);
            x[j + 1] = madc_hi_cc(m[j], q, x[j + 1]);
        }
        y[n - 1] = addc(y[n - 1], 0);
    }

    /*
     * One CIOS row after a division by 2^32. On entry x was the odd array of the previous
     * row, so x[k] now has weight k; y was the even one, reduced so y[0] = 0, so y[1] has
     * weight 0 and y[k] weight k − 1. Fold y[1] into x[0] and slide y down two words while
     * adding a_odd·bi into it (leaving y[k] at weight k + 1 again), then add a_even·bi to x.
     */
    static CZK_HD void mul_row(uint32_t *x, uint32_t *y, const uint32_t *a, uint32_t bi)
    {
        x[0] = add_cc(x[0], y[1]);
#pragma unroll
        for (int j = 0; j < n - 2; j += 2) {
            y[j] = madc_lo_cc(a[j + 1], bi, y[j + 2]);
            y[j + 1] = madc_hi_cc(a[j + 1], bi, y[j + 3]);
        }
        y[n - 2] = madc_lo_cc(a[n - 1], bi, 0);
        y[n - 1] = madc_hi(a[n - 1], bi, 0);

        x[0] = mad_lo_cc(a[0], bi, x[0]);
        x[1] = madc_hi_cc(a[0], bi, x[1]);
#pragma unroll
        for (int j = 2; j < n; j += 2) {
            x[j] = madc_lo_cc(a[j], bi, x[j]);
            x[j + 1] = madc_hi_cc(a[j], bi, x[j + 1]);
        }
        y[n - 1] = addc(y[n - 1], 0);
        reduce(x, y);
    }

  public:
    friend CZK_HD mont_t operator*(const mont_t &a, const mont_t &b)
    {
        uint32_t e[n], o[n];
        mul_first(e, o, a.v, b.v[0]);
        reduce(e, o);
#pragma unroll
        for (int i = 1; i < n - 1; i += 2) {
            mul_row(o, e, a.v, b.v[i]);     /* odd rows: o is the aligned array */
            mul_row(e, o, a.v, b.v[i + 1]); /* even rows: e is */
        }
        mul_row(o, e, a.v, b.v[n - 1]);
        /* The last row (n − 1, odd: n is even) left o aligned with o[0] = 0; divide by 2^32. */
        mont_t r;
        r.v[0] = add_cc(e[0], o[1]);
#pragma unroll
        for (int k = 1; k < n - 1; k++) r.v[k] = addc_cc(e[k], o[k + 1]);
        r.v[n - 1] = addc(e[n - 1], 0);
        final_sub(r.v);
        return r;
    }

    /*
     * Double-width products and a separate Montgomery reduction. A product that is reduced
     * only once after several products have been added or subtracted (a·b − c·d, Fp2's
     * Karatsuba) saves whole reductions, and a square needs only about half the products.
     * Every routine keeps the even/odd layout of operator*: within one carry chain the
     * products land on disjoint word pairs, so each pair is one IMAD.WIDE.
     */

    /*
     * w = a·b as 2n words, for any a, b < 2^(32n). Products a[j]·b[i] with even j accumulate
     * in e at word i + j, those with odd j in o at word i + j. After row i, e holds a_even
     * times b's first i + 1 words, where a_even = Σ a[j]·2^(32j) over even j is below
     * 2^(32(n−1)) (its word n − 1 is zero): e < 2^(32(n+i)), so row i's chain (words i to
     * i + n − 1) never carries out and word i + n starts the next row at zero. Likewise
     * o < 2^(32n)·2^(32(i+1)) fits words 0..n+i, so its top word i + n takes no carry out.
     */
    static CZK_HD void mul_wide(uint32_t *w, const uint32_t *a, const uint32_t *b)
    {
        uint32_t e[2 * n], o[2 * n];
#pragma unroll
        for (int j = 0; j < n; j += 2) {
            e[j] = mul_lo(a[j], b[0]);
            e[j + 1] = mul_hi(a[j], b[0]);
            o[j + 1] = mul_lo(a[j + 1], b[0]);
            o[j + 2] = mul_hi(a[j + 1], b[0]);
        }
        o[0] = 0;
        e[n] = 0; /* row 1's chain reaches it */
#pragma unroll
        for (int i = 1; i < n; i++) {
            const uint32_t bi = b[i];
            e[i] = mad_lo_cc(a[0], bi, e[i]);
            e[i + 1] = madc_hi_cc(a[0], bi, e[i + 1]);
#pragma unroll
            for (int j = 2; j < n - 2; j += 2) {
                e[i + j] = madc_lo_cc(a[j], bi, e[i + j]);
                e[i + j + 1] = madc_hi_cc(a[j], bi, e[i + j + 1]);
            }
            e[i + n - 2] = madc_lo_cc(a[n - 2], bi, e[i + n - 2]);
            e[i + n - 1] = madc_hi(a[n - 2], bi, e[i + n - 1]);
            e[i + n] = 0;
            o[i + 1] = mad_lo_cc(a[1], bi, o[i + 1]);
            o[i + 2] = madc_hi_cc(a[1], bi, o[i + 2]);
#pragma unroll
            for (int j = 3; j < n - 1; j += 2) {
                o[i + j] = madc_lo_cc(a[j], bi, o[i + j]);
                o[i + j + 1] = madc_hi_cc(a[j], bi, o[i + j + 1]);
            }
            o[i + n - 1] = madc_lo_cc(a[n - 1], bi, o[i + n - 1]);
            o[i + n] = madc_hi(a[n - 1], bi, 0);
        }
        /* The sum is a·b < 2^(64n): no carry out of the top word. */
        w[0] = e[0];
        w[1] = add_cc(e[1], o[1]);
#pragma unroll
        for (int k = 2; k < 2 * n - 1; k++) w[k] = addc_cc(e[k], o[k]);
        w[2 * n - 1] = addc(e[2 * n - 1], o[2 * n - 1]);
    }

    /*
     * w = a·b + c·d as 2n words, for operands below 2^(32n) whose result is below 2^(64n).
     * Row i of c·d follows row i of a·b in the same two arrays, so only one pair of
     * accumulators is live (mul_wide twice and an addition would hold two).
     * Carries: the even-word half of an operand, Σ x[j]·2^(32j) over even j, is at most
     * (2^(32n) − 1)/(2^32 + 1), and the odd-word half at most 2^32 times that. After row i
     * of a·b (and row i − 1 of c·d) e is therefore below 2^(32n)/(2^32 + 1)·(2^(32(i+1)) +
     * 2^(32i)) = 2^(32(n+i)), and o below 2^(32(n+i+1)): a·b's chains carry out of neither
     * array. After row i of c·d as well the bounds double, so c·d's chains carry once, into
     * e's word i + n and o's word i + n + 1, both still zero then; in the last row o's top
     * word is word 2n − 1, where the result's bound leaves no carry.
     */
    static CZK_HD void mul2_wide(uint32_t *w, const uint32_t *a, const uint32_t *b,
                                 const uint32_t *c, const uint32_t *d)
    {
        uint32_t e[2 * n], o[2 * n];
#pragma unroll
        for (int j = 0; j < n; j += 2) {
            e[j] = mul_lo(a[j], b[0]);
            e[j + 1] = mul_hi(a[j], b[0]);
            o[j + 1] = mul_lo(a[j + 1], b[0]);
            o[j + 2] = mul_hi(a[j + 1], b[0]);
        }
        o[0] = 0;
        e[n] = 0;
        o[n + 1] = 0;
#pragma unroll
        for (int i = 0; i < n; i++) {
#pragma unroll
            for (int k = 0; k < 2; k++) {
                if (i == 0 && k == 0) continue; /* row 0 of a·b: the plain products above */
                const uint32_t *x = k == 0 ? a : c;
                const uint32_t bi = k == 0 ? b[i] : d[i];
                e[i] = mad_lo_cc(x[0], bi, e[i]);
                e[i + 1] = madc_hi_cc(x[0], bi, e[i + 1]);
#pragma unroll
                for (int j = 2; j < n - 2; j += 2) {
                    e[i + j] = madc_lo_cc(x[j], bi, e[i + j]);
                    e[i + j + 1] = madc_hi_cc(x[j], bi, e[i + j + 1]);
                }
                e[i + n - 2] = madc_lo_cc(x[n - 2], bi, e[i + n - 2]);
                if (k == 0) {
                    e[i + n - 1] = madc_hi(x[n - 2], bi, e[i + n - 1]);
                    e[i + n] = 0;
                } else {
                    e[i + n - 1] = madc_hi_cc(x[n - 2], bi, e[i + n - 1]);
                    e[i + n] = addc(0, 0);
                }
                o[i + 1] = mad_lo_cc(x[1], bi, o[i + 1]);
                o[i + 2] = madc_hi_cc(x[1], bi, o[i + 2]);
#pragma unroll
                for (int j = 3; j < n - 1; j += 2) {
                    o[i + j] = madc_lo_cc(x[j], bi, o[i + j]);
                    o[i + j + 1] = madc_hi_cc(x[j], bi, o[i + j + 1]);
                }
                o[i + n - 1] = madc_lo_cc(x[n - 1], bi, o[i + n - 1]);
                if (k == 0 || i == n - 1) {
                    o[i + n] = madc_hi(x[n - 1], bi, o[i + n]);
                    if (k == 0 && i + n + 1 < 2 * n) o[i + n + 1] = 0;
                } else {
                    o[i + n] = madc_hi_cc(x[n - 1], bi, o[i + n]);
                    o[i + n + 1] = addc(0, 0);
                }
            }
        }
        w[0] = e[0];
        w[1] = add_cc(e[1], o[1]);
#pragma unroll
        for (int k = 2; k < 2 * n - 1; k++) w[k] = addc_cc(e[k], o[k]);
        w[2 * n - 1] = addc(e[2 * n - 1], o[2 * n - 1]);
    }

    /*
     * w = a^2 as 2n words: each off-diagonal product a[i]·a[j] (i < j) once, the sum doubled,
     * then the squares a[i]^2 added: (n^2 + n)/2 products instead of n^2. Row i's products
     * with j − i odd start at odd words (array o), those with j − i even at even words (e).
     * After row i each array is below a[0..i]·2^(32n) < 2^(32(n+i+1)), that is within words
     * 0..n+i; a row's chain ends at word i + n − 1, and one carry into word i + n completes
     * it, or at word i + n, which cannot carry out.
     */
    static CZK_HD void sqr_wide(uint32_t *w, const uint32_t *a)
    {
        uint32_t e[2 * n], o[2 * n];
#pragma unroll
        for (int k = 0; k < 2 * n; k++) e[k] = o[k] = 0;
#pragma unroll
        for (int i = 0; i < n - 1; i++) {
            const uint32_t ai = a[i];
            o[2 * i + 1] = mad_lo_cc(a[i + 1], ai, o[2 * i + 1]);
            o[2 * i + 2] = madc_hi_cc(a[i + 1], ai, o[2 * i + 2]);
            int top = 2 * i + 2;
#pragma unroll
            for (int j = i + 3; j < n; j += 2) {
                o[i + j] = madc_lo_cc(a[j], ai, o[i + j]);
                o[i + j + 1] = madc_hi_cc(a[j], ai, o[i + j + 1]);
                top = i + j + 1;
            }
            if (top < i + n) o[top + 1] = addc(o[top + 1], 0);
            if (i + 2 < n) {
                e[2 * i + 2] = mad_lo_cc(a[i + 2], ai, e[2 * i + 2]);
                e[2 * i + 3] = madc_hi_cc(a[i + 2], ai, e[2 * i + 3]);
                top = 2 * i + 3;
#pragma unroll
                for (int j = i + 4; j < n; j += 2) {
                    e[i + j] = madc_lo_cc(a[j], ai, e[i + j]);
                    e[i + j + 1] = madc_hi_cc(a[j], ai, e[i + j + 1]);
                    top = i + j + 1;
                }
                if (top < i + n) e[top + 1] = addc(e[top + 1], 0);
            }
        }
        /* Off-diagonal sum (< a^2/2, so no carry out), doubled, plus the diagonal. */
        w[0] = add_cc(e[0], o[0]);
#pragma unroll
        for (int k = 1; k < 2 * n - 1; k++) w[k] = addc_cc(e[k], o[k]);
        w[2 * n - 1] = addc(e[2 * n - 1], o[2 * n - 1]);
        w[0] = add_cc(w[0], w[0]);
#pragma unroll
        for (int k = 1; k < 2 * n - 1; k++) w[k] = addc_cc(w[k], w[k]);
        w[2 * n - 1] = addc(w[2 * n - 1], w[2 * n - 1]);
        w[0] = mad_lo_cc(a[0], a[0], w[0]);
        w[1] = madc_hi_cc(a[0], a[0], w[1]);
#pragma unroll
        for (int i = 1; i < n - 1; i++) {
            w[2 * i] = madc_lo_cc(a[i], a[i], w[2 * i]);
            w[2 * i + 1] = madc_hi_cc(a[i], a[i], w[2 * i + 1]);
        }
        w[2 * n - 2] = madc_lo_cc(a[n - 1], a[n - 1], w[2 * n - 2]);
        w[2 * n - 1] = madc_hi(a[n - 1], a[n - 1], w[2 * n - 1]);
    }

  private:
    /*
     * One reduction step of redc_wide after a division by 2^32, in the layout of mul_row
     * without its products: x (the previous step's odd array) is aligned at weight 0, y (the
     * previous aligned array, y[0] = 0) has y[1] at weight 0. Fold y[1] into x[0]; its carry
     * (weight 1) enters the chain that slides y down two words while adding the odd words of
     * q·p. That chain stays below 2^(32(n−2)) + 1 + q·p/2^32 < 2^(32n) (spare top bits), so
     * its top word needs no carry out; x's carry out (weight n) lands in y's top word.
     */
    static CZK_HD void redc_row(uint32_t *x, uint32_t *y)
    {
        const uint32_t *m = P::mod();
        x[0] = add_cc(x[0], y[1]);
        /* mul.lo and neg leave the carry flag alone, so the fold's carry survives this. */
        uint32_t q = P::low_word_one ? 0u - x[0] : x[0] * P::m0();
#pragma unroll
        for (int j = 0; j < n - 2; j += 2) {
            y[j] = madc_lo_cc(m[j + 1], q, y[j + 2]);
            y[j + 1] = madc_hi_cc(m[j + 1], q, y[j + 3]);
        }
        y[n - 2] = madc_lo_cc(m[n - 1], q, 0);
        y[n - 1] = madc_hi(m[n - 1], q, 0);
        if (P::low_word_one) {
            x[0] = add_cc(x[0], q);
            x[1] = addc_cc(x[1], 0);
        } else {
            x[0] = mad_lo_cc(m[0], q, x[0]);
            x[1] = madc_hi_cc(m[0], q, x[1]);
        }
#pragma unroll
        for (int j = 2; j < n; j += 2) {
            x[j] = madc_lo_cc(m[j], q, x[j]);
            x[j + 1] = madc_hi_cc(m[j], q, x[j + 1]);
        }
        y[n - 1] = addc(y[n - 1], 0);
    }

  public:
    /*
     * r = T·2^(−32n) mod p, fully reduced, for T < p·2^(32n) given as 2n words w. Write
     * T = H·2^(32n) + L. The n steps reduce L alone: (L + Q·p)/2^(32n) with Q < 2^(32n) is
     * at most p, and H < p, so the sum is below 2p and one conditional subtraction ends it.
     * Within the steps the running value stays below 2^(32n) + 2^32·p < 2^(32(n+1)) as in
     * operator*, so reduce() and redc_row() need no extra carry word.
     */
    static CZK_HD void redc_wide(uint32_t *r, const uint32_t *w)
    {
        uint32_t x[n], y[n];
#pragma unroll
        for (int k = 0; k < n; k++) {
            x[k] = w[k];
            y[k] = 0;
        }
        reduce(x, y);
#pragma unroll
        for (int i = 1; i < n - 1; i += 2) {
            redc_row(y, x);
            redc_row(x, y);
        }
        redc_row(y, x);
        /* y is aligned with y[0] = 0 (n is even): divide by 2^32, then add H. */
        r[0] = add_cc(x[0], y[1]);
#pragma unroll
        for (int k = 1; k < n - 1; k++) r[k] = addc_cc(x[k], y[k + 1]);
        r[n - 1] = addc(x[n - 1], 0);
        r[0] = add_cc(r[0], w[n]);
#pragma unroll
        for (int k = 1; k < n - 1; k++) r[k] = addc_cc(r[k], w[n + k]);
        r[n - 1] = addc(r[n - 1], w[2 * n - 1]);
        final_sub(r);
    }

    /*
     * a·b − c·d with one reduction, as a·b + c·(−d): the sum is congruent and, both products
     * being below p^2, lies in [0, 2p^2) ⊂ [0, p·2^(32n)) (2p < 2^(32n)), redc_wide's range,
     * with no sign to correct. For Fp about 444 multiply instructions against 600.
     */
    static CZK_HD mont_t mul_sub(const mont_t &a, const mont_t &b, const mont_t &c,
                                 const mont_t &d)
    {
        const mont_t nd = -d;
        uint32_t t[2 * n];
        mul2_wide(t, a.v, b.v, c.v, nd.v);
        mont_t r;
        redc_wide(r.v, t);
        return r;
    }

    /* Half the products of a multiplication (sqr_wide), then one reduction: for Fp about
     * 234 multiply instructions against operator*'s 300 (with ec.cuh's fused y3, the G1 MSM
     * at 2^26 took 410.5 ms against 430.6 on an H200). */
    CZK_HD mont_t sqr() const
    {
        uint32_t w[2 * n];
        sqr_wide(w, v);
        mont_t r;
        redc_wide(r.v, w);
        return r;
    }

    /* a^e for e given as 64-bit limbs, least significant first (not secret: not constant time). */
    template <int K> CZK_HD mont_t pow(const uint64_t (&e)[K]) const
    {
        mont_t r = one();
        for (int i = K - 1; i >= 0; i--) {
            uint64_t w = e[i];
            for (int b = 63; b >= 0; b--) {
                r = r.sqr();
                if ((w >> b) & 1) r = r * *this;
            }
        }
        return r;
    }
    /* Fermat: a^(p−2); the inverse of 0 is 0. */
    CZK_HD mont_t inv() const
    {
        const uint32_t *e = P::pm2();
        mont_t r = one();
        for (int i = n - 1; i >= 0; i--) {
            uint32_t w = e[i];
            for (int b = 31; b >= 0; b--) {
                r = r.sqr();
                if ((w >> b) & 1) r = r * *this;
            }
        }
        return r;
    }

    /* Canonical value -> Montgomery form (multiply by R^2) and back (multiply by 1). */
    CZK_HD mont_t to_mont() const
    {
        mont_t rr;
        const uint32_t *c = P::rr();
#pragma unroll
        for (int i = 0; i < n; i++) rr.v[i] = c[i];
        return *this * rr;
    }
    CZK_HD mont_t from_mont() const
    {
        mont_t u = zero();
        u.v[0] = 1;
        return *this * u;
    }
};

using fp_t = mont_t<fp_params>;
using fr_t = mont_t<fr_params>;

static_assert(sizeof(fp_t) == sizeof(czk_fp), "fp_t must have czk_fp's bytes");
static_assert(sizeof(fr_t) == sizeof(czk_fr), "fr_t must have czk_fr's bytes");

/* Same bytes on host and device: these are reinterpretations, not conversions. fr_from
 * gives fr_t, or the same bytes as another Fr type (fr_from<fr_rt_params>). */
template <class P = fr_params> CZK_HD mont_t<P> fr_from(const czk_fr &h)
{
    mont_t<P> r;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        r.v[2 * i] = (uint32_t)h.l[i];
        r.v[2 * i + 1] = (uint32_t)(h.l[i] >> 32);
    }
    return r;
}
CZK_HD void fr_to(czk_fr *h, const fr_t &a)
{
#pragma unroll
    for (int i = 0; i < 4; i++) h->l[i] = (uint64_t)a.v[2 * i] | ((uint64_t)a.v[2 * i + 1] << 32);
}
CZK_HD fp_t fp_from(const czk_fp &h)
{
    fp_t r;
#pragma unroll
    for (int i = 0; i < 6; i++) {
        r.v[2 * i] = (uint32_t)h.l[i];
        r.v[2 * i + 1] = (uint32_t)(h.l[i] >> 32);
    }
    return r;
}
CZK_HD void fp_to(czk_fp *h, const fp_t &a)
{
#pragma unroll
    for (int i = 0; i < 6; i++) h->l[i] = (uint64_t)a.v[2 * i] | ((uint64_t)a.v[2 * i + 1] << 32);
}

/* ------------------------------------------------------------------------------------ */
/* Fp2 = Fp[u]/(u^2 + 1)                                                                 */
/* ------------------------------------------------------------------------------------ */

struct __align__(16) fp2_t {
    fp_t c0, c1;

    static CZK_HD fp2_t zero() { return {fp_t::zero(), fp_t::zero()}; }
    static CZK_HD fp2_t one() { return {fp_t::one(), fp_t::zero()}; }
    CZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    friend CZK_HD bool operator==(const fp2_t &a, const fp2_t &b)
    {
        return a.c0 == b.c0 && a.c1 == b.c1;
    }
    friend CZK_HD bool operator!=(const fp2_t &a, const fp2_t &b) { return !(a == b); }
    friend CZK_HD fp2_t operator+(const fp2_t &a, const fp2_t &b)
    {
        return {a.c0 + b.c0, a.c1 + b.c1};
    }
    friend CZK_HD fp2_t operator-(const fp2_t &a, const fp2_t &b)
    {
        return {a.c0 - b.c0, a.c1 - b.c1};
    }
    CZK_HD fp2_t operator-() const { return {-c0, -c1}; }
    CZK_HD fp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }
    CZK_HD fp2_t cneg(bool flag) const { return {c0.cneg(flag), c1.cneg(flag)}; }
    CZK_HD fp2_t &operator+=(const fp2_t &b) { return *this = *this + b; }
    CZK_HD fp2_t &operator-=(const fp2_t &b) { return *this = *this - b; }
    CZK_HD fp2_t &operator*=(const fp2_t &b) { return *this = *this * b; }

    /*
     * Karatsuba: three Fp multiplications. Out of line, with the operands by value so that
     * they travel in registers instead of through the caller's stack frame: inline at every
     * use the G2 MSM at 2^24 took 413.3 ms against 355.3, by reference its bucket reduction
     * 48.9 ms against 43.3 (H200).
     */
    friend CZK_HD_NOINLINE fp2_t operator*(fp2_t a, fp2_t b)
    {
        fp_t t0 = a.c0 * b.c0;
        fp_t t1 = a.c1 * b.c1;
        fp_t t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
        return {t0 - t1, t2 - t0 - t1};
    }
    /* a·b − c·d. (A lazy Fp2 product with two reductions instead of three, fused here,
     * spilled and made the G2 MSM at 2^24 slower: 476.3 ms against 446.8.) */
    static CZK_HD fp2_t mul_sub(const fp2_t &a, const fp2_t &b, const fp2_t &c, const fp2_t &d)
    {
        return a * b - c * d;
    }
    /* (c0 + c1 u)^2 = (c0 + c1)(c0 − c1) + 2 c0 c1 u: two multiplications. */
    CZK_HD fp2_t sqr() const { return sqr_of(*this); }
    static CZK_HD_NOINLINE fp2_t sqr_of(fp2_t a)
    {
        fp_t t = a.c0 * a.c1;
        return {(a.c0 + a.c1) * (a.c0 - a.c1), t.dbl()};
    }
    CZK_HD fp2_t mul_fp(const fp_t &b) const { return {c0 * b, c1 * b}; }
    /* 1/(c0 + c1 u) = (c0 − c1 u)/(c0^2 + c1^2); inverse of 0 is 0. */
    CZK_HD fp2_t inv() const
    {
        fp_t t = (c0.sqr() + c1.sqr()).inv();
        return {c0 * t, -(c1 * t)};
    }
};

static_assert(sizeof(fp2_t) == sizeof(czk_fp2), "fp2_t must have czk_fp2's bytes");

CZK_HD fp2_t fp2_from(const czk_fp2 &h) { return {fp_from(h.c0), fp_from(h.c1)}; }
CZK_HD void fp2_to(czk_fp2 *h, const fp2_t &a)
{
    fp_to(&h->c0, a.c0);
    fp_to(&h->c1, a.c1);
}

} // namespace czk_gpu

#endif /* CZK_CUDA_FF_CUH */
