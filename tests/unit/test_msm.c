/*
 * CPU multi-scalar multiplication (czk_g1s_msm, czk_g2s_msm) on fresh random inputs.
 *
 * Two independent references:
 *  - the naive sum of scalar multiplications (czk_g*s_msm_naive: double-and-add of the
 *    curve code, no buckets), for small sizes;
 *  - discrete logarithms: the bases are built as P_i = t_i·G with t_i known (a random
 *    walk P_i = P_{i−1} + u_j·G over 64 random steps), so sum s_i·P_i must equal
 *    (sum s_i·t_i mod r)·G, computed with Fr arithmetic (itself checked against OpenSSL
 *    BIGNUM in test_ff) and one scalar multiplication. This checks every size cheaply.
 * Edge cases: zero, one, r − 1 and 2^256 − 1 scalars, equal scalars (every point in one
 * bucket), short scalars, bit-heavy mixes; infinity, repeated and opposite bases;
 * density bitmaps (random, empty, full) against a manual compaction; 1, 2 and 3 threads;
 * caller scratch of exactly czk_g*s_msm_scratch_size bytes, guarded against overruns.
 */
#include "czk/alloc.h"
#include "czk/msm.h"
#include "czk_test.h"
#include "czk_test_fr.h"
#include "msm/msm_internal.h"

#include <openssl/bn.h>

static czk_pool *pools[4]; /* pools[t]: t workers (pools[1] is NULL: the caller alone) */

/* ------------------------------------------------------------------------------------ */
/* Helpers                                                                              */
/* ------------------------------------------------------------------------------------ */

static const uint64_t R_LIMBS[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                    0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

static bool limbs_ge(const uint64_t *a, const uint64_t *b)
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != b[i]) return a[i] > b[i];
    return true;
}

/* s mod r as an Fr element (s may be any 256-bit integer: < 2.3 r). */
static void fr_from_scalar(czk_fr *out, const czk_scalar *s)
{
    uint64_t t[4];
    memcpy(t, s->l, sizeof t);
    while (limbs_ge(t, R_LIMBS)) {
        unsigned __int128 borrow = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 d = (unsigned __int128)t[i] - R_LIMBS[i] - (uint64_t)borrow;
            t[i] = (uint64_t)d;
            borrow = (d >> 64) & 1;
        }
    }
    bool ok = czk_fr_from_u64s(out, t);
    CHECK(ok);
}

static void scalar_from_fr(czk_scalar *out, const czk_fr *a)
{
    czk_fr_to_u64s(out->l, a);
}

enum skind { S_RANDOM, S_ZERO, S_ONE, S_RM1, S_MAX, S_SMALL, S_TWO, S_BITS90, S_MIX, S_WIDE };

/* One scalar of the given kind. S_MIX draws from all kinds; S_BITS90: 90% in {0, 1}. */
static void pick_scalar(czk_scalar *s, enum skind kind)
{
    if (kind == S_MIX) kind = (enum skind)(czk_test_rand64() % S_MIX);
    if (kind == S_BITS90) {
        uint64_t r = czk_test_rand64() % 100;
        kind = r < 45 ? S_ZERO : r < 90 ? S_ONE : S_RANDOM;
    }
    memset(s, 0, sizeof *s);
    switch (kind) {
    case S_ZERO:
        break;
    case S_ONE:
        s->l[0] = 1;
        break;
    case S_TWO:
        s->l[0] = 2;
        break;
    case S_RM1:
        memcpy(s->l, R_LIMBS, sizeof s->l);
        s->l[0] -= 1;
        break;
    case S_MAX:
        memset(s->l, 0xff, sizeof s->l);
        break;
    case S_SMALL:
        s->l[0] = czk_test_rand64() >> 32;
        break;
    case S_WIDE: /* any 256-bit value, including >= r */
        for (int i = 0; i < 4; i++) s->l[i] = czk_test_rand64();
        break;
    default: {
        czk_fr f;
        czk_test_rand_fr(&f);
        scalar_from_fr(s, &f);
    }
    }
}

static void fill_scalars(czk_scalar *s, size_t n, enum skind kind)
{
    for (size_t i = 0; i < n; i++) pick_scalar(&s[i], kind);
}

/* Density bit i. */
static bool dens_bit(const uint64_t *d, size_t i)
{
    return d == NULL || ((d[i / 64] >> (i % 64)) & 1);
}

/* sum over set density bits of (s_i mod r)·t_k(i), in Fr. */
static void expected_log(czk_fr *out, const czk_fr *t, const czk_scalar *s, size_t n,
                         const uint64_t *density)
{
    czk_fr acc = CZK_FR_ZERO;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!dens_bit(density, i)) continue;
        czk_fr si, prod;
        fr_from_scalar(&si, &s[i]);
        czk_fr_mul(&prod, &si, &t[k++]);
        czk_fr_add(&acc, &acc, &prod);
    }
    *out = acc;
}

/* ------------------------------------------------------------------------------------ */
/* Bases with known discrete logarithms                                                  */
/* ------------------------------------------------------------------------------------ */

#define NSTEPS 64

typedef struct g1_set {
    czk_g1_affine *p;
    czk_fr *t;
    size_t n;
} g1_set;

typedef struct g2_set {
    czk_g2_affine *p;
    czk_fr *t;
    size_t n;
} g2_set;

static void g1_mul_fr(czk_g1_jac *out, const czk_g1_affine *base, const czk_fr *k)
{
    czk_g1_jac b;
    uint64_t e[4];
    czk_g1_jac_from_affine(&b, base);
    czk_fr_to_u64s(e, k);
    czk_g1_jac_mul(out, &b, e, 4);
}

static void g2_mul_fr(czk_g2_jac *out, const czk_g2_affine *base, const czk_fr *k)
{
    czk_g2_jac b;
    uint64_t e[4];
    czk_g2_jac_from_affine(&b, base);
    czk_fr_to_u64s(e, k);
    czk_g2_jac_mul(out, &b, e, 4);
}

static void g1_make(g1_set *s, size_t n)
{
    s->n = n;
    s->p = czk_malloc((n + 1) * sizeof *s->p);
    s->t = czk_malloc((n + 1) * sizeof *s->t);
    czk_g1_jac *jac = czk_malloc((n + 1) * sizeof *jac);
    czk_g1_jac step[NSTEPS];
    czk_fr u[NSTEPS];
    for (int j = 0; j < NSTEPS; j++) {
        czk_test_rand_fr(&u[j]);
        g1_mul_fr(&step[j], &CZK_G1_GENERATOR, &u[j]);
    }
    czk_fr t;
    czk_test_rand_fr(&t);
    czk_g1_jac cur;
    g1_mul_fr(&cur, &CZK_G1_GENERATOR, &t);
    for (size_t i = 0; i < n; i++) {
        unsigned j = (unsigned)(czk_test_rand64() % NSTEPS);
        czk_g1_jac_add(&cur, &cur, &step[j]);
        czk_fr_add(&t, &t, &u[j]);
        jac[i] = cur;
        s->t[i] = t;
    }
    czk_g1s_jac_to_affine(s->p, jac, n, NULL);
    czk_free(jac);
}

static void g2_make(g2_set *s, size_t n)
{
    s->n = n;
    s->p = czk_malloc((n + 1) * sizeof *s->p);
    s->t = czk_malloc((n + 1) * sizeof *s->t);
    czk_g2_jac *jac = czk_malloc((n + 1) * sizeof *jac);
    czk_g2_jac step[NSTEPS];
    czk_fr u[NSTEPS];
    for (int j = 0; j < NSTEPS; j++) {
        czk_test_rand_fr(&u[j]);
        g2_mul_fr(&step[j], &CZK_G2_GENERATOR, &u[j]);
    }
    czk_fr t;
    czk_test_rand_fr(&t);
    czk_g2_jac cur;
    g2_mul_fr(&cur, &CZK_G2_GENERATOR, &t);
    for (size_t i = 0; i < n; i++) {
        unsigned j = (unsigned)(czk_test_rand64() % NSTEPS);
        czk_g2_jac_add(&cur, &cur, &step[j]);
        czk_fr_add(&t, &t, &u[j]);
        jac[i] = cur;
        s->t[i] = t;
    }
    czk_g2s_jac_to_affine(s->p, jac, n, NULL);
    czk_free(jac);
}

static void g1_free(g1_set *s)
{
    czk_free(s->p);
    czk_free(s->t);
}

static void g2_free(g2_set *s)
{
    czk_free(s->p);
    czk_free(s->t);
}

/* Special bases: base i becomes infinity (log 0), a copy of base j, or minus base j. */
static void g1_set_inf(g1_set *s, size_t i)
{
    memset(&s->p[i], 0, sizeof s->p[i]);
    s->t[i] = CZK_FR_ZERO;
}
static void g1_set_copy(g1_set *s, size_t i, size_t j)
{
    s->p[i] = s->p[j];
    s->t[i] = s->t[j];
}
static void g1_set_neg(g1_set *s, size_t i, size_t j)
{
    czk_g1_affine_neg(&s->p[i], &s->p[j]);
    czk_fr_neg(&s->t[i], &s->t[j]);
}
static void g2_set_inf(g2_set *s, size_t i)
{
    memset(&s->p[i], 0, sizeof s->p[i]);
    s->t[i] = CZK_FR_ZERO;
}
static void g2_set_copy(g2_set *s, size_t i, size_t j)
{
    s->p[i] = s->p[j];
    s->t[i] = s->t[j];
}
static void g2_set_neg(g2_set *s, size_t i, size_t j)
{
    czk_g2_affine_neg(&s->p[i], &s->p[j]);
    czk_fr_neg(&s->t[i], &s->t[j]);
}

/* ------------------------------------------------------------------------------------ */
/* Checked runs                                                                         */
/* ------------------------------------------------------------------------------------ */

#define GUARD 256

/* czk_g1s_msm with caller scratch (exactly the advertised size, then a guard band) or
 * with NULL scratch, alternately. */
static void g1_msm_checked(czk_g1_jac *out, const czk_g1_affine *bases, const czk_scalar *s,
                           size_t n, const uint64_t *density, czk_pool *pool, bool own_scratch)
{
    if (!own_scratch) {
        czk_g1s_msm(out, bases, s, n, density, NULL, pool);
        return;
    }
    size_t sz = czk_g1s_msm_scratch_size(n, czk_pool_size(pool));
    uint8_t *mem = czk_malloc(sz + GUARD + 1);
    /* An odd address, so that the alignment slack in the size is exercised. */
    uint8_t *scratch = mem + 1;
    memset(scratch + sz, 0xa5, GUARD);
    czk_g1s_msm(out, bases, s, n, density, scratch, pool);
    bool intact = true;
    for (size_t i = 0; i < GUARD; i++) intact &= scratch[sz + i] == 0xa5;
    CHECK_MSG(intact, "g1 msm wrote past its scratch (n=%zu)", n);
    czk_free(mem);
}

static void g2_msm_checked(czk_g2_jac *out, const czk_g2_affine *bases, const czk_scalar *s,
                           size_t n, const uint64_t *density, czk_pool *pool, bool own_scratch)
{
    if (!own_scratch) {
        czk_g2s_msm(out, bases, s, n, density, NULL, pool);
        return;
    }
    size_t sz = czk_g2s_msm_scratch_size(n, czk_pool_size(pool));
    uint8_t *mem = czk_malloc(sz + GUARD + 1);
    uint8_t *scratch = mem + 1;
    memset(scratch + sz, 0xa5, GUARD);
    czk_g2s_msm(out, bases, s, n, density, scratch, pool);
    bool intact = true;
    for (size_t i = 0; i < GUARD; i++) intact &= scratch[sz + i] == 0xa5;
    CHECK_MSG(intact, "g2 msm wrote past its scratch (n=%zu)", n);
    czk_free(mem);
}

/* MSM of `set` against (sum s_i t_i)·G, on 1, 2 and 3 threads. */
static void g1_check_log(const g1_set *set, const czk_scalar *s, size_t n, const uint64_t *density,
                         const char *what)
{
    czk_fr e;
    expected_log(&e, set->t, s, n, density);
    czk_g1_jac want, got;
    g1_mul_fr(&want, &CZK_G1_GENERATOR, &e);
    for (unsigned th = 1; th <= 3; th++) {
        g1_msm_checked(&got, set->p, s, n, density, pools[th], th != 2);
        CHECK_MSG(czk_g1_jac_eq(&got, &want), "g1 %s n=%zu threads=%u", what, n, th);
    }
}

static void g2_check_log(const g2_set *set, const czk_scalar *s, size_t n, const uint64_t *density,
                         const char *what)
{
    czk_fr e;
    expected_log(&e, set->t, s, n, density);
    czk_g2_jac want, got;
    g2_mul_fr(&want, &CZK_G2_GENERATOR, &e);
    for (unsigned th = 1; th <= 3; th++) {
        g2_msm_checked(&got, set->p, s, n, density, pools[th], th != 2);
        CHECK_MSG(czk_g2_jac_eq(&got, &want), "g2 %s n=%zu threads=%u", what, n, th);
    }
}

/* ------------------------------------------------------------------------------------ */
/* Scalars, digits, densities                                                           */
/* ------------------------------------------------------------------------------------ */

/* The Booth digits of every window width rebuild the scalar exactly, each within
 * [−2^(c−1), 2^(c−1)], with ceil((bits + 1)/c) windows. */
static void test_booth_digits(void)
{
    for (int it = 0; it < 400; it++) {
        czk_scalar s;
        pick_scalar(&s, it < 40 ? (enum skind)(it % S_MIX) : S_WIDE);
        if (it % 7 == 0) s.l[3] |= (uint64_t)1 << 63; /* top bit set */
        unsigned nbits = 0;
        for (int l = 3; l >= 0; l--)
            if (s.l[l]) {
                nbits = 64 * (unsigned)l + 64 - (unsigned)__builtin_clzll(s.l[l]);
                break;
            }
        for (unsigned c = 1; c <= 24; c++) {
            unsigned nwin = (nbits + c) / c;
            /* acc = sum d_w 2^(wc), 320-bit two's complement, Horner from the top. */
            uint64_t acc[5] = {0, 0, 0, 0, 0};
            bool in_range = true;
            for (unsigned w = nwin; w-- > 0;) {
                int32_t d = czk__msm_booth_digit(&s, w, c);
                if (d > (1 << (c - 1)) || d < -(1 << (c - 1))) in_range = false;
                czk_test_horner320(acc, c, d);
            }
            /* Windows past the top are all zero. */
            for (unsigned w = nwin; w < nwin + 2; w++)
                in_range &= czk__msm_booth_digit(&s, w, c) == 0;
            CHECK_MSG(in_range, "digit out of range, c=%u", c);
            CHECK_MSG(memcmp(acc, s.l, 32) == 0 && acc[4] == 0,
                      "digits do not rebuild the "
                      "scalar, c=%u nbits=%u",
                      c, nbits);
        }
    }
}

static void test_frs_to_scalars(void)
{
    size_t n = 50000;
    czk_fr *f = czk_malloc(n * sizeof *f);
    czk_scalar *s = czk_malloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++) {
        if (i == 0)
            f[i] = CZK_FR_ZERO;
        else if (i == 1)
            f[i] = CZK_FR_ONE;
        else if (i == 2)
            czk_fr_neg(&f[i], &CZK_FR_ONE);
        else
            czk_test_rand_fr(&f[i]);
    }
    BIGNUM *bn = BN_new();
    for (unsigned th = 1; th <= 3; th++) {
        memset(s, 0x5a, n * sizeof *s);
        czk_frs_to_scalars(s, f, n, pools[th]);
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
            /* The canonical value, independently: the little-endian bytes via BIGNUM. */
            uint8_t b[32], le[32];
            czk_fr_to_bytes_le(b, &f[i]);
            BN_lebin2bn(b, 32, bn);
            BN_bn2lebinpad(bn, le, 32);
            for (int l = 0; l < 4; l++) {
                uint64_t w = 0;
                for (int j = 7; j >= 0; j--) w = (w << 8) | le[8 * l + j];
                if (w != s[i].l[l]) bad++;
            }
        }
        CHECK_MSG(bad == 0, "%d limbs differ (threads=%u)", bad, th);
    }
    CHECK(s[0].l[0] == 0 && s[1].l[0] == 1 && s[1].l[1] == 0);
    CHECK(s[2].l[0] == R_LIMBS[0] - 1 && s[2].l[3] == R_LIMBS[3]);
    CHECK(memcmp(R_LIMBS, CZK_FR_MODULUS, sizeof R_LIMBS) == 0);
    /* In place (a scalar and an Fr element have the same size). */
    czk_scalar *inplace = (czk_scalar *)f;
    czk_frs_to_scalars(inplace, f, n, pools[2]);
    CHECK(memcmp(inplace, s, n * sizeof *s) == 0);
    BN_free(bn);
    czk_free(f);
    czk_free(s);
}

static void test_density_count(void)
{
    uint64_t d[40];
    for (int it = 0; it < 200; it++) {
        for (int i = 0; i < 40; i++) {
            d[i] = czk_test_rand64();
            if (it % 5 == 0) d[i] = 0;
            if (it % 5 == 1) d[i] = ~(uint64_t)0;
            if (it % 5 == 2) d[i] &= czk_test_rand64() & czk_test_rand64();
        }
        size_t n = czk_test_rand64() % (40 * 64 + 1);
        size_t want = 0;
        for (size_t i = 0; i < n; i++) want += (d[i / 64] >> (i % 64)) & 1;
        CHECK_MSG(czk_density_count(d, n) == want, "n=%zu", n);
    }
    CHECK(czk_density_count(NULL, 0) == 0);
}

/* The plans that the tests below rely on to cover both bucket kinds; and every plan
 * stays within the caps its scratch was sized for. */
static void test_plans(void)
{
    czk__msm_plan p;
    czk__msm_layout L;
    const czk__msm_group *groups[2] = {&czk__msm_g1_group, &czk__msm_g2_group};
    for (int g = 0; g < 2; g++) {
        czk__msm_layout_compute(&L, 1 << 16, 2, groups[g]);
        czk__msm_plan_choose(&p, 1 << 16, 255, 0, 2, L.c_cap, L.batch_cap, groups[g]);
        CHECK_MSG(p.batch > 0, "2^16 points should use batch-affine buckets (g%d)", g + 1);
        czk__msm_layout_compute(&L, 17, 2, groups[g]);
        czk__msm_plan_choose(&p, 17, 255, 0, 2, L.c_cap, L.batch_cap, groups[g]);
        CHECK_MSG(p.batch == 0, "17 points should use XYZZ buckets (g%d)", g + 1);
        for (size_t n = 1; n < ((size_t)1 << 28); n = n * 3 + 1) {
            for (unsigned th = 1; th <= 64; th *= 4) {
                czk__msm_layout_compute(&L, n, th, groups[g]);
                for (unsigned nbits = 1; nbits <= 256; nbits += 51) {
                    size_t m = n - n / 3;
                    czk__msm_plan_choose(&p, m, nbits, n / 3, th, L.c_cap, L.batch_cap, groups[g]);
                    bool ok = p.c >= 1 && p.c <= L.c_cap && p.batch <= L.batch_cap &&
                              (size_t)p.nwin * p.nsplit <= CZK__MSM_TASKS_MAX &&
                              p.nones <= CZK__MSM_ONES_TASKS_MAX && p.nwin * p.c >= nbits + 1 &&
                              (p.nwin - 1) * p.c < nbits + 1;
                    CHECK_MSG(ok,
                              "plan n=%zu threads=%u nbits=%u: c=%u nwin=%u split=%u "
                              "batch=%u",
                              n, th, nbits, p.c, p.nwin, p.nsplit, p.batch);
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* G1                                                                                   */
/* ------------------------------------------------------------------------------------ */

static void test_g1_small_vs_naive(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 17, 1000};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        g1_set set;
        g1_make(&set, n);
        czk_scalar *s = czk_malloc((n + 1) * sizeof *s);
        for (int kind = 0; kind < 2; kind++) {
            fill_scalars(s, n, kind == 0 ? S_RANDOM : S_MIX);
            czk_g1_jac naive, got;
            czk_g1s_msm_naive(&naive, set.p, s, n, NULL);
            for (unsigned th = 1; th <= 3; th++) {
                g1_msm_checked(&got, set.p, s, n, NULL, pools[th], th == 3);
                CHECK_MSG(czk_g1_jac_eq(&got, &naive), "n=%zu threads=%u kind=%d", n, th, kind);
            }
            g1_check_log(&set, s, n, NULL, "small");
        }
        if (n == 0) {
            czk_g1_jac got;
            czk_g1s_msm(&got, NULL, NULL, 0, NULL, NULL, pools[2]);
            CHECK(czk_g1_jac_is_inf(&got));
        }
        czk_free(s);
        g1_free(&set);
    }
}

/* The naive reference itself against the logarithm reference (so that a shared mistake
 * in both references cannot hide). */
static void test_g1_naive_vs_log(void)
{
    size_t n = 40;
    g1_set set;
    g1_make(&set, n);
    czk_scalar s[40];
    fill_scalars(s, n, S_MIX);
    czk_fr e;
    expected_log(&e, set.t, s, n, NULL);
    czk_g1_jac want, naive;
    g1_mul_fr(&want, &CZK_G1_GENERATOR, &e);
    czk_g1s_msm_naive(&naive, set.p, s, n, NULL);
    CHECK(czk_g1_jac_eq(&naive, &want));
    g1_free(&set);
}

static void test_g1_edge_scalars(void)
{
    static const size_t sizes[] = {300, 4096};
    static const enum skind kinds[] = {S_ZERO,  S_ONE, S_RM1,    S_MAX,
                                       S_SMALL, S_TWO, S_BITS90, S_WIDE};
    for (size_t si = 0; si < 2; si++) {
        size_t n = sizes[si];
        g1_set set;
        g1_make(&set, n);
        czk_scalar *s = czk_malloc(n * sizeof *s);
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            fill_scalars(s, n, kinds[k]);
            g1_check_log(&set, s, n, NULL, "edge scalars");
            if (n == 300 && (kinds[k] == S_ZERO || kinds[k] == S_ONE)) {
                czk_g1_jac naive, got;
                czk_g1s_msm_naive(&naive, set.p, s, n, NULL);
                czk_g1s_msm(&got, set.p, s, n, NULL, NULL, pools[2]);
                CHECK(czk_g1_jac_eq(&got, &naive));
                if (kinds[k] == S_ZERO) CHECK(czk_g1_jac_is_inf(&got));
            }
        }
        /* Every scalar equal: each window sends every point into one bucket. */
        pick_scalar(&s[0], S_RANDOM);
        for (size_t i = 1; i < n; i++) s[i] = s[0];
        g1_check_log(&set, s, n, NULL, "equal scalars");
        /* One non-trivial scalar among zeros and ones. */
        fill_scalars(s, n, S_ZERO);
        for (size_t i = 0; i < n; i += 3) s[i].l[0] = 1;
        pick_scalar(&s[n / 2], S_RANDOM);
        g1_check_log(&set, s, n, NULL, "one other");
        czk_free(s);
        g1_free(&set);
    }
}

static void test_g1_edge_bases(void)
{
    size_t n = 2000;
    g1_set set;
    g1_make(&set, n);
    czk_scalar *s = czk_malloc(n * sizeof *s);
    /* Infinity, repeats and negatives scattered, some with equal scalars (so that P and −P
     * land in the same bucket and cancel, and P meets P and doubles). */
    for (size_t i = 0; i < n; i += 7) g1_set_inf(&set, i);
    for (size_t i = 3; i + 1 < n; i += 11) g1_set_copy(&set, i + 1, i);
    for (size_t i = 5; i + 2 < n; i += 13) g1_set_neg(&set, i + 2, i);
    for (int kind = 0; kind < 3; kind++) {
        fill_scalars(s, n, kind == 0 ? S_RANDOM : kind == 1 ? S_MIX : S_BITS90);
        if (kind == 0) {
            for (size_t i = 3; i + 1 < n; i += 22) s[i + 1] = s[i];
            for (size_t i = 5; i + 2 < n; i += 26) s[i + 2] = s[i];
        }
        g1_check_log(&set, s, n, NULL, "edge bases");
    }
    /* Only infinities. */
    for (size_t i = 0; i < n; i++) g1_set_inf(&set, i);
    fill_scalars(s, n, S_MIX);
    g1_check_log(&set, s, n, NULL, "infinite bases");
    czk_free(s);
    g1_free(&set);
}

/* The repeated-base check in a batch: many copies of one point with equal digits, plus
 * its negative, so that a batch meets doublings and cancellations. */
static void test_g1_repeated(void)
{
    size_t n = 3000;
    g1_set set;
    g1_make(&set, n);
    czk_scalar *s = czk_malloc(n * sizeof *s);
    for (size_t i = 1; i < n; i++) {
        if (i % 3 == 0)
            g1_set_neg(&set, i, 0);
        else
            g1_set_copy(&set, i, 0);
    }
    fill_scalars(s, n, S_RANDOM);
    g1_check_log(&set, s, n, NULL, "one base, random scalars");
    for (size_t i = 1; i < n; i++) s[i] = s[0];
    g1_check_log(&set, s, n, NULL, "one base, equal scalars");
    czk_free(s);
    g1_free(&set);
}

static void test_g1_density(void)
{
    static const size_t sizes[] = {1000, 16421};
    for (size_t si = 0; si < 2; si++) {
        size_t n = sizes[si], nw = (n + 63) / 64;
        g1_set set;
        g1_make(&set, n);
        czk_scalar *s = czk_malloc(n * sizeof *s), *cs = czk_malloc(n * sizeof *cs);
        uint64_t *d = czk_malloc((nw + 1) * sizeof *d);
        fill_scalars(s, n, S_MIX);
        for (int mode = 0; mode < 4; mode++) {
            for (size_t w = 0; w <= nw; w++) {
                d[w] = mode == 0   ? czk_test_rand64()
                       : mode == 1 ? 0
                       : mode == 2 ? ~(uint64_t)0
                                   : czk_test_rand64() & czk_test_rand64();
            }
            /* Bits past n are set too (mode 0, 2): they must be ignored. */
            size_t m = czk_density_count(d, n), k = 0;
            for (size_t i = 0; i < n; i++)
                if (dens_bit(d, i)) cs[k++] = s[i];
            CHECK(k == m);
            g1_check_log(&set, s, n, d, "density");
            /* Against the compacted problem with no density. */
            czk_g1_jac a, b;
            czk_g1s_msm(&a, set.p, s, n, d, NULL, pools[2]);
            czk_g1s_msm(&b, set.p, cs, m, NULL, NULL, pools[3]);
            CHECK_MSG(czk_g1_jac_eq(&a, &b), "density vs compaction, mode %d", mode);
            if (mode == 1) CHECK(czk_g1_jac_is_inf(&a));
            if (n == 1000 && mode == 0) {
                czk_g1s_msm_naive(&b, set.p, s, n, d);
                CHECK(czk_g1_jac_eq(&a, &b));
            }
        }
        czk_free(d);
        czk_free(cs);
        czk_free(s);
        g1_free(&set);
    }
}

static void test_g1_large(void)
{
    for (unsigned lg = 12; lg <= 16; lg += 2) {
        size_t n = (size_t)1 << lg;
        g1_set set;
        g1_make(&set, n);
        czk_scalar *s = czk_malloc(n * sizeof *s);
        fill_scalars(s, n, S_RANDOM);
        g1_check_log(&set, s, n, NULL, "large random");
        fill_scalars(s, n, S_BITS90);
        g1_check_log(&set, s, n, NULL, "large bits");
        if (lg == 12) {
            /* Split in two: the naive method on a few, the MSM on the rest. */
            size_t k = 100;
            czk_g1_jac a, b, all;
            czk_g1s_msm_naive(&a, set.p, s, k, NULL);
            czk_g1s_msm(&b, set.p + k, s + k, n - k, NULL, NULL, pools[2]);
            czk_g1_jac_add(&a, &a, &b);
            czk_g1s_msm(&all, set.p, s, n, NULL, NULL, pools[2]);
            CHECK(czk_g1_jac_eq(&a, &all));
        }
        czk_free(s);
        g1_free(&set);
    }
}

/*
 * The batch-affine 0/1 path sends the k-th base with scalar 1 to bucket k mod 1024. With
 * base 1024·(2q + 1) + i = −(base 1024·2q + i) for i < 512, buckets 0..511 cancel to
 * infinity (through cancellations in the batches), and the tree sum meets empty buckets.
 */
static void test_g1_ones_cancel(void)
{
    size_t n = 8192;
    g1_set set;
    g1_make(&set, n);
    czk_scalar *s = czk_malloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++) {
        if ((i / 1024) % 2 == 1 && i % 1024 < 512) g1_set_neg(&set, i, i - 1024);
    }
    fill_scalars(s, n, S_ONE);
    g1_check_log(&set, s, n, NULL, "ones cancel");
    /* And with a few other scalars mixed in, which shift nothing (others have their own
     * ordinals). */
    for (size_t i = 5; i < n; i += 97) pick_scalar(&s[i], S_RANDOM);
    g1_check_log(&set, s, n, NULL, "ones cancel mixed");
    czk_free(s);
    g1_free(&set);
}

/*
 * Bucket contents that make the batch-affine reduction and the XYZZ fold meet their
 * exceptional cases, with the plan forced (window 12: scalars below 2^11 are one digit
 * each, bucket = scalar − 1; batch 256). Bases are ±P for one P:
 *  A: scalar s uses P for even s, −P for odd s, so neighbouring buckets are ±kP and a
 *     segment's running sum cancels at every other step;
 *  B: every base P: the running sum meets its own value (a doubling);
 *  C: each scalar four times in a row with P, P, −P, −P: the second point is queued, the
 *     third and fourth find the bucket busy and go to the XYZZ bucket, which then cancels
 *     the affine one at the fold;
 *  D: buckets in pairs (2j + 1, 2j) holding (kP, −2kP): after the pair the running sum is
 *     −kP and the total kP − kP, which cancels.
 */
enum special { SP_ALTERNATE, SP_SAME, SP_FOLD, SP_TOTAL, SP_COUNT };

static void special_inputs(czk_scalar *s, int *sign, size_t n, enum special kind)
{
    for (size_t i = 0; i < n; i++) {
        memset(&s[i], 0, sizeof s[i]);
        sign[i] = 1;
        if (kind == SP_FOLD) {
            s[i].l[0] = 2 + (i / 4) % 2046;
            sign[i] = (i % 4) < 2 ? 1 : -1;
        } else if (kind == SP_TOTAL) {
            /* Triples (2j + 2, +P), (2j + 1, −P), (2j + 1, −P), twice over; then zeros. */
            if (i >= 2 * 3 * 1023) continue;
            size_t j = (i / 3) % 1023;
            s[i].l[0] = i % 3 == 0 ? 2 * j + 2 : 2 * j + 1;
            sign[i] = i % 3 == 0 ? 1 : -1;
        } else {
            s[i].l[0] = 2 + i % 2046;
            sign[i] = kind == SP_SAME || s[i].l[0] % 2 == 0 ? 1 : -1;
        }
    }
}

static void test_g1_reduction_special(void)
{
    size_t n = 4 * 2046;
    g1_set set;
    g1_make(&set, n);
    czk_scalar *s = czk_malloc(n * sizeof *s);
    int *sign = czk_malloc(n * sizeof *sign);
    czk__msm_force_c = 12;
    czk__msm_force_batch = 256;
    for (int kind = 0; kind < SP_COUNT; kind++) {
        special_inputs(s, sign, n, (enum special)kind);
        for (size_t i = 1; i < n; i++) {
            if (sign[i] > 0)
                g1_set_copy(&set, i, 0);
            else
                g1_set_neg(&set, i, 0);
        }
        g1_check_log(&set, s, n, NULL, "reduction special");
    }
    czk__msm_force_c = 0;
    czk__msm_force_batch = 0;
    czk_free(sign);
    czk_free(s);
    g1_free(&set);
}

/* The path taken when no scratch can be allocated (a small serial bucket method). */
static void test_fallback(void)
{
    size_t n = 500;
    g1_set s1;
    g2_set s2;
    g1_make(&s1, n);
    g2_make(&s2, n);
    czk_scalar *s = czk_malloc(n * sizeof *s);
    uint64_t d[8];
    for (int w = 0; w < 8; w++) d[w] = czk_test_rand64();
    fill_scalars(s, n, S_MIX);
    czk__msm_force_fallback = true;
    g1_check_log(&s1, s, n, NULL, "fallback");
    g1_check_log(&s1, s, n, d, "fallback density");
    g2_check_log(&s2, s, n, d, "fallback density");
    czk__msm_force_fallback = false;
    czk_free(s);
    g1_free(&s1);
    g2_free(&s2);
}

/* ------------------------------------------------------------------------------------ */
/* G2                                                                                   */
/* ------------------------------------------------------------------------------------ */

static void test_g2_small_vs_naive(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 17, 200};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        g2_set set;
        g2_make(&set, n);
        czk_scalar *s = czk_malloc((n + 1) * sizeof *s);
        fill_scalars(s, n, si % 2 ? S_MIX : S_RANDOM);
        czk_g2_jac naive, got;
        czk_g2s_msm_naive(&naive, set.p, s, n, NULL);
        for (unsigned th = 1; th <= 3; th++) {
            g2_msm_checked(&got, set.p, s, n, NULL, pools[th], th == 1);
            CHECK_MSG(czk_g2_jac_eq(&got, &naive), "n=%zu threads=%u", n, th);
        }
        g2_check_log(&set, s, n, NULL, "small");
        czk_free(s);
        g2_free(&set);
    }
}

static void test_g2_edge(void)
{
    size_t n = 600;
    g2_set set;
    g2_make(&set, n);
    czk_scalar *s = czk_malloc(n * sizeof *s);
    static const enum skind kinds[] = {S_ZERO, S_ONE, S_RM1, S_MAX, S_SMALL, S_BITS90};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        fill_scalars(s, n, kinds[k]);
        g2_check_log(&set, s, n, NULL, "edge scalars");
    }
    pick_scalar(&s[0], S_RANDOM);
    for (size_t i = 1; i < n; i++) s[i] = s[0];
    g2_check_log(&set, s, n, NULL, "equal scalars");
    for (size_t i = 0; i < n; i += 7) g2_set_inf(&set, i);
    for (size_t i = 3; i + 1 < n; i += 11) g2_set_copy(&set, i + 1, i);
    for (size_t i = 5; i + 2 < n; i += 13) g2_set_neg(&set, i + 2, i);
    fill_scalars(s, n, S_MIX);
    g2_check_log(&set, s, n, NULL, "edge bases");
    /* Density. */
    size_t nw = (n + 63) / 64;
    uint64_t d[16];
    for (size_t w = 0; w < nw; w++) d[w] = czk_test_rand64();
    g2_check_log(&set, s, n, d, "density");
    czk_scalar *cs = czk_malloc(n * sizeof *cs);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (dens_bit(d, i)) cs[k++] = s[i];
    czk_g2_jac a, b;
    czk_g2s_msm(&a, set.p, s, n, d, NULL, pools[2]);
    czk_g2s_msm(&b, set.p, cs, k, NULL, NULL, pools[1]);
    CHECK(czk_g2_jac_eq(&a, &b));
    czk_g2s_msm_naive(&b, set.p, s, n, d);
    CHECK(czk_g2_jac_eq(&a, &b));
    czk_free(cs);
    czk_free(s);
    g2_free(&set);
}

static void test_g2_reduction_special(void)
{
    size_t n = 4 * 2046;
    g2_set set;
    g2_make(&set, n);
    czk_scalar *s = czk_malloc(n * sizeof *s);
    int *sign = czk_malloc(n * sizeof *sign);
    czk__msm_force_c = 12;
    czk__msm_force_batch = 256;
    for (int kind = 0; kind < SP_COUNT; kind++) {
        special_inputs(s, sign, n, (enum special)kind);
        for (size_t i = 1; i < n; i++) {
            if (sign[i] > 0)
                g2_set_copy(&set, i, 0);
            else
                g2_set_neg(&set, i, 0);
        }
        g2_check_log(&set, s, n, NULL, "reduction special");
    }
    czk__msm_force_c = 0;
    czk__msm_force_batch = 0;
    czk_free(sign);
    czk_free(s);
    g2_free(&set);
}

static void test_g2_large(void)
{
    for (unsigned lg = 12; lg <= 14; lg += 2) {
        size_t n = (size_t)1 << lg;
        g2_set set;
        g2_make(&set, n);
        czk_scalar *s = czk_malloc(n * sizeof *s);
        fill_scalars(s, n, S_RANDOM);
        g2_check_log(&set, s, n, NULL, "large random");
        fill_scalars(s, n, S_BITS90);
        g2_check_log(&set, s, n, NULL, "large bits");
        czk_free(s);
        g2_free(&set);
    }
}

int main(void)
{
    czk_test_seed();
    pools[1] = NULL;
    for (unsigned t = 2; t <= 3; t++) {
        if (czk_pool_create(&pools[t], t, NULL) != CZK_OK) {
            fprintf(stderr, "cannot create a pool of %u threads\n", t);
            return 1;
        }
    }
    printf("field back end: %s\n", czk_ff_backend());
    RUN(test_booth_digits);
    RUN(test_frs_to_scalars);
    RUN(test_density_count);
    RUN(test_plans);
    RUN(test_g1_naive_vs_log);
    RUN(test_g1_small_vs_naive);
    RUN(test_g1_edge_scalars);
    RUN(test_g1_edge_bases);
    RUN(test_g1_repeated);
    RUN(test_g1_density);
    RUN(test_g1_large);
    RUN(test_g1_reduction_special);
    RUN(test_g1_ones_cancel);
    RUN(test_g2_small_vs_naive);
    RUN(test_g2_edge);
    RUN(test_g2_reduction_special);
    RUN(test_g2_large);
    RUN(test_fallback);
    for (unsigned t = 2; t <= 3; t++) czk_pool_destroy(pools[t]);
    return czk_test_finish();
}
