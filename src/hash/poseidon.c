/*
 * Poseidon as neptune computes it (see include/czk/poseidon.h and poseidon_internal.h).
 *
 * Constants are derived at first use rather than compiled in as tables: all seven arities
 * together hold 25,832 field elements (807 KiB of binary, about 2 MiB as C limb
 * literals), while deriving one arity takes 1 ms (arity 2), 3 ms (arity 8), 4.5 ms
 * (arity 11) and 27 ms (arity 36) with the ADX back end — bench_poseidon's "init" column.
 * Each arity is derived once, under one mutex, into static storage (zero-filled BSS
 * until then) sized for it, so nothing is allocated and nothing can fail.
 *
 * Derivations follow neptune (round_constants.rs, mds.rs, preprocessing.rs) except where
 * a closed form gives the same values far faster; those places say so, and
 * tests/unit/test_poseidon.c checks the results against scripts/gen_poseidon.py, which
 * runs neptune's procedures literally.
 */
#include "hash/poseidon_internal.h"

#include "czk/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RF   CZK__POSEIDON_RF
#define MAXT CZK_POSEIDON_MAX_WIDTH

/* ------------------------------------------------------------------------------------ */
/* Parameter storage                                                                    */
/* ------------------------------------------------------------------------------------ */

/* Arity and R_P of every supported instance (neptune round_numbers.rs, standard strength). */
#define ARITIES(X) X(2, 55) X(4, 56) X(8, 57) X(11, 57) X(16, 59) X(24, 59) X(36, 60)

/* Elements one arity needs: rc, mds, crc, pre_sparse, w_hat, v_rest. */
#define STORAGE_LEN(t, rp)                                                                         \
    ((RF + (rp)) * (t) + (t) * (t) + (RF * (t) + (rp)) + (t) * (t) + (rp) * (t) + (rp) * ((t)-1))

#define DECLARE_STORAGE(a, rp) static czk_fr storage_##a[STORAGE_LEN((a) + 1, rp)];
ARITIES(DECLARE_STORAGE)

typedef struct slot {
    unsigned arity, rp;
    czk_fr *storage;
    size_t storage_len;
    atomic_bool ready; /* set (release) once params is complete */
    czk_poseidon_params params;
} slot;

#define SLOT(a, rp_)                                                                               \
    {.arity = (a), .rp = (rp_), .storage = storage_##a, .storage_len = STORAGE_LEN((a) + 1, rp_)},
static slot slots[] = {ARITIES(SLOT)};
#define NSLOTS (sizeof slots / sizeof slots[0])

/* Serializes derivations, which share the scratch matrices below. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static czk_fr scratch_minv[MAXT * MAXT];
static czk_fr scratch_aug[MAXT * 2 * MAXT];
static czk_fr scratch_hat[MAXT * MAXT], scratch_hat_inv[MAXT * MAXT];
static czk_fr scratch_pow[MAXT * MAXT], scratch_base[MAXT * MAXT], scratch_tmp[MAXT * MAXT];

/* ------------------------------------------------------------------------------------ */
/* Small field helpers                                                                  */
/* ------------------------------------------------------------------------------------ */

static inline void sbox(czk_fr *x)
{
    czk_fr x2, x4;
    czk_fr_sqr(&x2, x);
    czk_fr_sqr(&x4, &x2);
    czk_fr_mul(x, x, &x4);
}

/* out = s × A (row vector times row-major n×n matrix); out may alias s. */
static void vec_mat(czk_fr *out, const czk_fr *s, const czk_fr *a, unsigned n)
{
    czk_fr acc[MAXT], tmp;
    for (unsigned j = 0; j < n; j++) czk_fr_mul(&acc[j], &s[0], &a[j]);
    for (unsigned i = 1; i < n; i++) {
        const czk_fr *row = a + (size_t)i * n;
        for (unsigned j = 0; j < n; j++) {
            czk_fr_mul(&tmp, &s[i], &row[j]);
            czk_fr_add(&acc[j], &acc[j], &tmp);
        }
    }
    memcpy(out, acc, n * sizeof *out);
}

/* out = A × v (row-major n×n matrix times column vector, neptune's apply_matrix). */
static void mat_vec(czk_fr *out, const czk_fr *a, const czk_fr *v, unsigned n)
{
    czk_fr acc[MAXT], tmp;
    for (unsigned i = 0; i < n; i++) {
        const czk_fr *row = a + (size_t)i * n;
        czk_fr_mul(&acc[i], &row[0], &v[0]);
        for (unsigned j = 1; j < n; j++) {
            czk_fr_mul(&tmp, &row[j], &v[j]);
            czk_fr_add(&acc[i], &acc[i], &tmp);
        }
    }
    memcpy(out, acc, n * sizeof *out);
}

/* out = A × B for n×n matrices; out must not alias a or b. */
static void mat_mul(czk_fr *out, const czk_fr *a, const czk_fr *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++) vec_mat(out + (size_t)i * n, a + (size_t)i * n, b, n);
}

/* Gauss–Jordan inverse of an n×n matrix; false if singular (it never is for a Cauchy
 * matrix or its minors, whose every square submatrix is invertible). */
static bool mat_inv(czk_fr *out, const czk_fr *a, unsigned n)
{
    unsigned w = 2 * n;
    czk_fr *m = scratch_aug;
    for (unsigned i = 0; i < n; i++) {
        memcpy(m + (size_t)i * w, a + (size_t)i * n, n * sizeof *m);
        for (unsigned j = 0; j < n; j++)
            m[(size_t)i * w + n + j] = i == j ? CZK_FR_ONE : CZK_FR_ZERO;
    }
    for (unsigned c = 0; c < n; c++) {
        unsigned piv = c;
        while (piv < n && czk_fr_is_zero(&m[(size_t)piv * w + c])) piv++;
        if (piv == n) return false;
        if (piv != c) {
            for (unsigned j = 0; j < w; j++) {
                czk_fr x = m[(size_t)c * w + j];
                m[(size_t)c * w + j] = m[(size_t)piv * w + j];
                m[(size_t)piv * w + j] = x;
            }
        }
        czk_fr f, g, tmp;
        czk_fr_inv(&f, &m[(size_t)c * w + c]);
        for (unsigned j = 0; j < w; j++)
            czk_fr_mul(&m[(size_t)c * w + j], &m[(size_t)c * w + j], &f);
        for (unsigned r = 0; r < n; r++) {
            if (r == c || czk_fr_is_zero(&m[(size_t)r * w + c])) continue;
            g = m[(size_t)r * w + c];
            for (unsigned j = 0; j < w; j++) {
                czk_fr_mul(&tmp, &g, &m[(size_t)c * w + j]);
                czk_fr_sub(&m[(size_t)r * w + j], &m[(size_t)r * w + j], &tmp);
            }
        }
    }
    for (unsigned i = 0; i < n; i++)
        memcpy(out + (size_t)i * n, m + (size_t)i * w + n, n * sizeof *m);
    return true;
}

/* ------------------------------------------------------------------------------------ */
/* Lazy reduction for the hot path                                                      */
/* ------------------------------------------------------------------------------------ */

/*
 * A dot product sum_i a_i·b_i of Montgomery-form elements needs one Montgomery reduction,
 * not one per product: the full 512-bit products are summed in column accumulators and
 * reduced once. Every matrix product of the optimized permutation is made of such dot
 * products (up to 37 terms). With the portable back end this makes a hash 1.4x to 1.9x
 * faster (arity 8: 97 → 55 us, arity 36: 692 → 337 us on the 2-core EPYC). With the
 * mulx/adx back end a whole Montgomery multiplication costs about what this C product
 * alone costs, and the lazy form measured no better (arity 8: 36.3 us with czk_fr_mul,
 * 38.6 us lazy; arity 36: 284 vs 280 us), so that build keeps czk_fr_mul; HOT_VEC_MAT
 * and HOT_DOT below make the choice. A mulx/adx wide product in src/ff would bring the
 * same gain to that build.
 *
 * Bounds: each product of representations < r is < r^2 < 2^510, so 37 of them stay below
 * 2^516. Before reducing, the bits from 2^511 up (at most 15·2^511) are folded back with
 * 2^511 ≡ C511 (mod r), leaving T < 2^511 + 2^260. Montgomery reduction then returns
 * (T + m·r)/2^256 < 2^255 + r + 16 < 2.11·r, which two conditional subtractions bring
 * below r. derive() checks the constants below against the field layer once.
 */
typedef unsigned __int128 u128;

static const uint64_t R_MOD[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                  0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
static const uint64_t NEG_R_INV = 0xfffffffeffffffffULL; /* −r^−1 mod 2^64 */
static const uint64_t C511[4] = {0x64ccf4c7f9f94e37ULL, 0x3f9548e743c85c11ULL,
                                 0x9c86764f3dfb08caULL, 0x3d9b4096647bbe2cULL}; /* 2^511 mod r */

/* Column accumulator: column k holds a 128-bit sum of 64-bit product halves of weight
 * 2^(64k); carries between columns are resolved once, in wide_reduce. */
typedef struct wide {
    u128 col[9];
} wide;

/* acc += a·b, the full product of the two representations. */
static inline void wide_mac(wide *acc, const czk_fr *a, const czk_fr *b)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            u128 prod = (u128)a->l[j] * b->l[i];
            acc->col[i + j] += (uint64_t)prod;
            acc->col[i + j + 1] += (uint64_t)(prod >> 64);
        }
}

/* out = t·2^−256 mod r for an accumulator of at most 37 products. */
static inline void wide_reduce(czk_fr *out, const wide *acc)
{
    uint64_t t[9];
    u128 c = 0;
    for (int k = 0; k < 9; k++) {
        c += acc->col[k];
        t[k] = (uint64_t)c;
        c >>= 64;
    }
    uint64_t hi = (t[7] >> 63) | (t[8] << 1);
    t[7] &= 0x7fffffffffffffffULL;
    c = 0;
    for (int k = 0; k < 4; k++) {
        c += (u128)hi * C511[k] + t[k];
        t[k] = (uint64_t)c;
        c >>= 64;
    }
    for (int k = 4; k < 8; k++) {
        c += t[k];
        t[k] = (uint64_t)c;
        c >>= 64;
    }
    t[8] = (uint64_t)c;
    for (int i = 0; i < 4; i++) {
        uint64_t m = t[i] * NEG_R_INV;
        c = 0;
        for (int j = 0; j < 4; j++) {
            c += (u128)m * R_MOD[j] + t[i + j];
            t[i + j] = (uint64_t)c;
            c >>= 64;
        }
        for (int k = i + 4; k < 9; k++) {
            c += t[k];
            t[k] = (uint64_t)c;
            c >>= 64;
        }
    }
    uint64_t *v = t + 4; /* < 2.11·r < 2^256, so t[8] is zero here */
    for (int pass = 0; pass < 2; pass++) {
        int k = 3;
        while (k > 0 && v[k] == R_MOD[k]) k--;
        if (v[k] < R_MOD[k]) break; /* v < r */
        uint64_t borrow = 0;
        for (int j = 0; j < 4; j++) {
            u128 d = (u128)v[j] - R_MOD[j] - borrow;
            v[j] = (uint64_t)d;
            borrow = (uint64_t)(d >> 64) & 1;
        }
    }
    memcpy(out->l, v, sizeof out->l);
}

void czk__poseidon_dot(czk_fr *out, const czk_fr *a, const czk_fr *b, unsigned n)
{
    wide acc;
    memset(&acc, 0, sizeof acc);
    for (unsigned i = 0; i < n; i++) wide_mac(&acc, &a[i], &b[i]);
    wide_reduce(out, &acc);
}

/* out = s × A like vec_mat, with one reduction per output element; out may alias s. */
static inline void vec_mat_lazy(czk_fr *out, const czk_fr *s, const czk_fr *a, unsigned n)
{
    wide acc[MAXT];
    memset(acc, 0, n * sizeof acc[0]);
    for (unsigned i = 0; i < n; i++) {
        const czk_fr *row = a + (size_t)i * n;
        for (unsigned j = 0; j < n; j++) wide_mac(&acc[j], &s[i], &row[j]);
    }
    for (unsigned j = 0; j < n; j++) wide_reduce(&out[j], &acc[j]);
}

/* sum_i a[i]·b[i] with one czk_fr_mul per term; out may alias an input. */
static inline void dot_mul(czk_fr *out, const czk_fr *a, const czk_fr *b, unsigned n)
{
    czk_fr acc, tmp;
    czk_fr_mul(&acc, &a[0], &b[0]);
    for (unsigned i = 1; i < n; i++) {
        czk_fr_mul(&tmp, &a[i], &b[i]);
        czk_fr_add(&acc, &acc, &tmp);
    }
    *out = acc;
}

#if defined(CZK_FF_ADX)
#define HOT_VEC_MAT vec_mat
#define HOT_DOT     dot_mul
#else
#define HOT_VEC_MAT vec_mat_lazy
#define HOT_DOT     czk__poseidon_dot
#endif

/* The constants above are restated here, not taken from the field layer, so that the
 * compiler sees them; check them once against it. */
static void check_lazy_constants(void)
{
    czk_fr two, c511;
    const uint64_t e511 = 511;
    czk_fr_from_u64(&two, 2);
    czk_fr_pow(&c511, &two, &e511, 1);
    uint64_t limbs[4];
    czk_fr_to_u64s(limbs, &c511);
    if (memcmp(R_MOD, CZK_FR_MODULUS, sizeof R_MOD) != 0 || R_MOD[0] * NEG_R_INV != UINT64_MAX ||
        memcmp(limbs, C511, sizeof C511) != 0) {
        CZK_LOG_ERROR("poseidon: lazy-reduction constants disagree with the field layer", NULL);
        abort();
    }
}

/* ------------------------------------------------------------------------------------ */
/* Round constants: the Grain LFSR in self-shrinking mode (neptune round_constants.rs)    */
/* ------------------------------------------------------------------------------------ */

/* The bit sequence b_0, b_1, ... with b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23}
 * ^ b_{i+13} ^ b_i, kept in a 128-entry ring: every step reads 80 positions back at most. */
typedef struct grain {
    uint8_t ring[128];
    unsigned i; /* index of the oldest live bit, b_i */
} grain;

static unsigned grain_step(grain *g)
{
    unsigned i = g->i;
    uint8_t b = g->ring[(i + 62) & 127] ^ g->ring[(i + 51) & 127] ^ g->ring[(i + 38) & 127] ^
                g->ring[(i + 23) & 127] ^ g->ring[(i + 13) & 127] ^ g->ring[i & 127];
    g->ring[(i + 80) & 127] = b;
    g->i = i + 1;
    return b;
}

static void grain_push(grain *g, unsigned *n, unsigned nbits, unsigned value)
{
    for (unsigned k = nbits; k-- > 0;) g->ring[(*n)++] = (uint8_t)((value >> k) & 1);
}

/* Self-shrinking output: take bits in pairs, emit the second when the first is 1. */
static unsigned grain_next(grain *g)
{
    while (!grain_step(g)) grain_step(g);
    return grain_step(g);
}

static void derive_round_constants(czk_fr *rc, unsigned t, unsigned rp)
{
    grain g = {{0}, 0};
    unsigned n = 0;
    /* 80-bit initial state, each field MSB first: prime field (1), S-box x^5 (1), field
     * size 255, width, R_F, R_P, thirty ones. */
    grain_push(&g, &n, 2, 1);
    grain_push(&g, &n, 4, 1);
    grain_push(&g, &n, 12, 255);
    grain_push(&g, &n, 12, t);
    grain_push(&g, &n, 10, RF);
    grain_push(&g, &n, 10, rp);
    grain_push(&g, &n, 30, (1u << 30) - 1);
    for (int k = 0; k < 160; k++) grain_step(&g);

    size_t need = (size_t)(RF + rp) * t;
    for (size_t k = 0; k < need;) {
        /* A candidate is 255 emitted bits read MSB first; candidates ≥ r are skipped. */
        uint64_t limbs[4] = {0, 0, 0, 0};
        for (int bit = 254; bit >= 0; bit--)
            if (grain_next(&g)) limbs[bit / 64] |= (uint64_t)1 << (bit % 64);
        if (czk_fr_from_u64s(&rc[k], limbs)) k++;
    }
}

/* ------------------------------------------------------------------------------------ */
/* MDS matrix and the optimized form's constants                                        */
/* ------------------------------------------------------------------------------------ */

/* M[i][j] = 1/(x_i + y_j) with x = 0..t−1, y = t..2t−1 (neptune mds.rs generate_mds). The
 * 2t − 1 distinct sums t..3t−2 are inverted in one batch. */
static void derive_mds(czk_fr *m, unsigned t)
{
    czk_fr inv[3 * MAXT];
    for (unsigned s = 0; s < 2 * t - 1; s++) czk_fr_from_u64(&inv[s], t + s);
    czk_frs_inv(inv, 2 * t - 1, scratch_tmp);
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++) m[(size_t)i * t + j] = inv[i + j];
}

/*
 * neptune preprocessing.rs compress_round_constants, with every partial round
 * preprocessed. Round constants added before a linear layer are moved after the
 * previous S-box layer by multiplying them with M^-1; through the partial rounds only
 * the first element meets an S-box, so the rest accumulates backwards into the last
 * first-half full round, and each partial round keeps one constant.
 */
static void derive_compressed(czk_fr *crc, const czk_fr *rc, const czk_fr *m_inv, unsigned t,
                              unsigned rp)
{
    const unsigned half = RF / 2;
    size_t off = 0;
    memcpy(crc, rc, t * sizeof *crc); /* constants of round 0 stay before its S-boxes */
    off += t;
    for (unsigned r = 1; r < half; r++, off += t) mat_vec(crc + off, m_inv, rc + (size_t)r * t, t);

    /* acc starts as the constants of the first second-half full round and walks back. */
    czk_fr acc[MAXT], inverted[MAXT];
    memcpy(acc, rc + (size_t)(half + rp) * t, t * sizeof *acc);
    czk_fr *partial = crc + off + t; /* partial round k's constant at partial[k] */
    for (unsigned k = rp; k-- > 0;) {
        mat_vec(inverted, m_inv, acc, t);
        partial[k] = inverted[0];
        inverted[0] = CZK_FR_ZERO;
        const czk_fr *prev = rc + (size_t)(half + k) * t;
        for (unsigned i = 0; i < t; i++) czk_fr_add(&acc[i], &prev[i], &inverted[i]);
    }
    mat_vec(crc + off, m_inv, acc, t);
    off += t + rp;
    for (unsigned r = half + rp + 1; r < RF + rp; r++, off += t)
        mat_vec(crc + off, m_inv, rc + (size_t)r * t, t);
}

/* out = A^e for an n×n matrix, square and multiply; e ≥ 1. */
static void mat_pow(czk_fr *out, const czk_fr *a, unsigned e, unsigned n)
{
    size_t bytes = (size_t)n * n * sizeof *out;
    memcpy(scratch_base, a, bytes);
    bool have = false;
    for (;;) {
        if (e & 1) {
            if (have) {
                mat_mul(scratch_tmp, out, scratch_base, n);
                memcpy(out, scratch_tmp, bytes);
            } else {
                memcpy(out, scratch_base, bytes);
                have = true;
            }
        }
        e >>= 1;
        if (e == 0) break;
        mat_mul(scratch_tmp, scratch_base, scratch_base, n);
        memcpy(scratch_base, scratch_tmp, bytes);
    }
}

/*
 * neptune mds.rs factor_to_sparse_matrices, in closed form. neptune factors the current
 * matrix C (starting with C = M) as C = C' × C'' with C' = diag(1, Ĉ) (Ĉ = C without
 * its first row and column) and C'' sparse, keeps C'' for the next partial round counted
 * from the last, and continues with C = M × C'. Writing M = [[m00, v], [w, M̂]]
 * (w = vᵀ), induction gives after k steps C_k = [[m00, v·M̂^k], [w, M̂^(k+1)]], so
 *
 *   sparse matrix of step k:  first row [m00, v·M̂^k], first column [m00, M̂^-(k+1)·w]
 *   pre-sparse matrix:        C_rp = [[m00, v·M̂^rp], [w, M̂^(rp+1)]]
 *
 * and step k is filled for partial round rp − 1 − k. This costs O(t^2) per partial round
 * instead of neptune's fresh inversion and product, O(t^3) each.
 */
static void derive_sparse(czk_poseidon_params *p, czk_fr *w_hat, czk_fr *v_rest, czk_fr *pre)
{
    const unsigned t = p->t, n = t - 1, rp = p->rp;
    const czk_fr *m = p->mds;
    for (unsigned i = 0; i < n; i++)
        memcpy(scratch_hat + (size_t)i * n, m + (size_t)(i + 1) * t + 1, n * sizeof *m);
    if (!mat_inv(scratch_hat_inv, scratch_hat, n)) {
        CZK_LOG_ERROR("poseidon: MDS minor is singular", "t=%u", t);
        abort();
    }

    czk_fr w_k[MAXT], v_k[MAXT]; /* M̂^-(k+1)·w and v·M̂^k */
    for (unsigned i = 0; i < n; i++) w_k[i] = m[(size_t)(i + 1) * t];
    memcpy(v_k, m + 1, n * sizeof *m);
    for (unsigned k = 0; k < rp; k++) {
        mat_vec(w_k, scratch_hat_inv, w_k, n);
        unsigned round = rp - 1 - k;
        w_hat[(size_t)round * t] = m[0];
        memcpy(w_hat + (size_t)round * t + 1, w_k, n * sizeof *w_k);
        memcpy(v_rest + (size_t)round * n, v_k, n * sizeof *v_k);
        vec_mat(v_k, v_k, scratch_hat, n);
    }

    mat_pow(scratch_pow, scratch_hat, rp + 1, n);
    pre[0] = m[0];
    memcpy(pre + 1, v_k, n * sizeof *v_k);
    for (unsigned i = 0; i < n; i++) {
        pre[(size_t)(i + 1) * t] = m[(size_t)(i + 1) * t];
        memcpy(pre + (size_t)(i + 1) * t + 1, scratch_pow + (size_t)i * n, n * sizeof *pre);
    }
}

static void derive(slot *s)
{
    const double t0 = czk_clock_s();
    check_lazy_constants();
    czk_poseidon_params *p = &s->params;
    const unsigned t = s->arity + 1, rp = s->rp;
    p->arity = s->arity;
    p->t = t;
    p->rf = RF;
    p->rp = rp;
    czk_fr_from_u64(&p->merkle_tag, ((uint64_t)1 << s->arity) - 1);

    czk_fr *at = s->storage;
    czk_fr *rc = at;
    at += (size_t)(RF + rp) * t;
    czk_fr *mds = at;
    at += (size_t)t * t;
    czk_fr *crc = at;
    at += (size_t)RF * t + rp;
    czk_fr *pre = at;
    at += (size_t)t * t;
    czk_fr *w_hat = at;
    at += (size_t)rp * t;
    czk_fr *v_rest = at;
    at += (size_t)rp * (t - 1);
    if ((size_t)(at - s->storage) != s->storage_len) abort(); /* STORAGE_LEN out of step */

    derive_round_constants(rc, t, rp);
    derive_mds(mds, t);
    p->rc = rc;
    p->mds = mds;
    if (!mat_inv(scratch_minv, mds, t)) {
        CZK_LOG_ERROR("poseidon: MDS matrix is singular", "t=%u", t);
        abort();
    }
    derive_compressed(crc, rc, scratch_minv, t, rp);
    derive_sparse(p, w_hat, v_rest, pre);
    p->crc = crc;
    p->pre_sparse = pre;
    p->w_hat = w_hat;
    p->v_rest = v_rest;

    CZK_LOG_DEBUG("poseidon constants derived", "arity=%u ms=%.2f", s->arity,
                  (czk_clock_s() - t0) * 1e3);
}

const czk_poseidon_params *czk_poseidon_params_get(unsigned arity)
{
    for (size_t i = 0; i < NSLOTS; i++) {
        slot *s = &slots[i];
        if (s->arity != arity) continue;
        if (!atomic_load_explicit(&s->ready, memory_order_acquire)) {
            pthread_mutex_lock(&init_lock);
            if (!atomic_load_explicit(&s->ready, memory_order_relaxed)) {
                derive(s);
                atomic_store_explicit(&s->ready, true, memory_order_release);
            }
            pthread_mutex_unlock(&init_lock);
        }
        return &s->params;
    }
    return NULL;
}

unsigned czk_poseidon_arity(const czk_poseidon_params *p)
{
    return p->arity;
}

/* ------------------------------------------------------------------------------------ */
/* Permutations                                                                         */
/* ------------------------------------------------------------------------------------ */

void czk__poseidon_permute_plain(const czk_poseidon_params *p, czk_fr *s)
{
    const unsigned t = p->t, half = p->rf / 2;
    for (unsigned r = 0; r < p->rf + p->rp; r++) {
        const czk_fr *rc = p->rc + (size_t)r * t;
        for (unsigned i = 0; i < t; i++) czk_fr_add(&s[i], &s[i], &rc[i]);
        if (r < half || r >= half + p->rp) {
            for (unsigned i = 0; i < t; i++) sbox(&s[i]);
        } else {
            sbox(&s[0]);
        }
        vec_mat(s, s, p->mds, t);
    }
}

/* S-box on every element, then the next t compressed constants (none after the last). */
static inline void full_sbox(czk_fr *s, const czk_fr *c, unsigned t)
{
    for (unsigned i = 0; i < t; i++) {
        sbox(&s[i]);
        if (c != NULL) czk_fr_add(&s[i], &s[i], &c[i]);
    }
}

void czk__poseidon_permute_opt(const czk_poseidon_params *p, czk_fr *s)
{
    const unsigned t = p->t, half = p->rf / 2;
    const czk_fr *c = p->crc;
    for (unsigned i = 0; i < t; i++) czk_fr_add(&s[i], &s[i], &c[i]);
    c += t;
    for (unsigned r = 0; r < half; r++, c += t) {
        full_sbox(s, c, t);
        HOT_VEC_MAT(s, s, r + 1 < half ? p->mds : p->pre_sparse, t);
    }
    const czk_fr *w_hat = p->w_hat, *v_rest = p->v_rest;
    for (unsigned k = 0; k < p->rp; k++, c++, w_hat += t, v_rest += t - 1) {
        sbox(&s[0]);
        czk_fr_add(&s[0], &s[0], c);
        /* state × S_k: S_k is the identity except its first row and column. */
        const czk_fr s0 = s[0];
        HOT_DOT(&s[0], w_hat, s, t);
        for (unsigned i = 1; i < t; i++) {
            czk_fr tmp;
            czk_fr_mul(&tmp, &v_rest[i - 1], &s0);
            czk_fr_add(&s[i], &s[i], &tmp);
        }
    }
    for (unsigned r = 1; r < half; r++, c += t) {
        full_sbox(s, c, t);
        HOT_VEC_MAT(s, s, p->mds, t);
    }
    full_sbox(s, NULL, t);
    HOT_VEC_MAT(s, s, p->mds, t);
}

void czk_poseidon_permute(const czk_poseidon_params *p, czk_fr *state)
{
    czk__poseidon_permute_opt(p, state);
}

/* ------------------------------------------------------------------------------------ */
/* Hashing                                                                              */
/* ------------------------------------------------------------------------------------ */

czk_status czk_poseidon_domain_tag(czk_fr *out, const czk_poseidon_params *p,
                                   czk_poseidon_hash_type type, uint64_t param)
{
    if (p == NULL) return CZK_EINVAL;
    switch (type) {
    case CZK_POSEIDON_MERKLE_TREE:
        *out = p->merkle_tag;
        return CZK_OK;
    case CZK_POSEIDON_CONSTANT_LENGTH: {
        if (param < 1 || param > p->arity) return CZK_EINVAL;
        const uint64_t l[4] = {0, param, 0, 0}; /* L·2^64 */
        czk_fr_from_u64s(out, l);
        return CZK_OK;
    }
    case CZK_POSEIDON_CUSTOM:
        /* neptune asserts 1 ≤ id ≤ 256: id 0 would make the strengthened custom tag collide
         * with Encryption. */
        if (param < 1 || param > 256) return CZK_EINVAL;
        czk_fr_from_u64(out, param << 40);
        return CZK_OK;
    case CZK_POSEIDON_ENCRYPTION:
        czk_fr_from_u64(out, (uint64_t)1 << 32);
        return CZK_OK;
    case CZK_POSEIDON_VARIABLE_LENGTH: {
        const uint64_t l[4] = {0, 1, 0, 0}; /* 2^64 */
        czk_fr_from_u64s(out, l);
        return CZK_OK;
    }
    }
    return CZK_EINVAL;
}

czk_status czk_poseidon_hash(czk_fr *out, const czk_poseidon_params *p, czk_poseidon_hash_type type,
                             uint64_t param, const czk_fr *in, size_t n)
{
    if (p == NULL || (n > 0 && in == NULL)) return CZK_EINVAL;
    if (type == CZK_POSEIDON_VARIABLE_LENGTH) return CZK_EUNSUPPORTED;
    size_t want = type == CZK_POSEIDON_CONSTANT_LENGTH ? param : p->arity;
    if (n != want) return CZK_EINVAL;

    czk_fr s[MAXT];
    czk_status st = czk_poseidon_domain_tag(&s[0], p, type, param);
    if (st != CZK_OK) return st;
    memcpy(s + 1, in, n * sizeof *in);
    for (size_t i = n + 1; i < p->t; i++) s[i] = CZK_FR_ZERO;
    czk__poseidon_permute_opt(p, s);
    *out = s[1];
    return CZK_OK;
}

void czk_poseidon_merkle(czk_fr *out, const czk_poseidon_params *p, const czk_fr *in)
{
    czk_fr s[MAXT];
    s[0] = p->merkle_tag;
    memcpy(s + 1, in, p->arity * sizeof *in);
    czk__poseidon_permute_opt(p, s);
    *out = s[1];
}

void czk_poseidon_merkle2(czk_fr *out, const czk_fr *a, const czk_fr *b)
{
    const czk_poseidon_params *p = czk_poseidon_params_get(2);
    czk_fr s[3] = {p->merkle_tag, *a, *b};
    czk__poseidon_permute_opt(p, s);
    *out = s[1];
}
