/*
 * NTT over Fr against independent references:
 *   - the snarkjs root table and the blstrs root (published constants), and the defining
 *     properties omega^n = 1, omega^(n/2) = -1;
 *   - a naive O(n^2) DFT (Horner evaluation at each root) on fresh random inputs, for all
 *     four transforms, both root families, sizes 2^1..2^11, every plan (direct and each
 *     four-step split);
 *   - known answers from @noble/curves' FFT (SHA-256 of the outputs);
 *   - at 2^12..2^20: round trips, spot checks of single outputs by Horner evaluation, and
 *     identical results for 1..4 and all threads;
 *   - linearity, polynomial products against schoolbook multiplication, bad arguments;
 *   - the inlined field operations against src/ff, and every tuning variant against the
 *     default plan.
 */
#include "czk/ntt.h"
#include "czk/pool.h"
#include "czk_test.h"
#include "czk_test_fr.h"
#include "ntt/ntt_arith.h"
#include "ntt/ntt_internal.h"

#include <openssl/sha.h>

static const czk_roots FAMILIES[2] = {CZK_ROOTS_BELLPERSON, CZK_ROOTS_SNARKJS};

static void rand_vec(czk_fr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) czk_test_rand_fr(&v[i]);
}

static czk_fr fr_hex(const char *hex)
{
    uint8_t b[32];
    for (int i = 0; i < 32; i++) {
        unsigned x;
        sscanf(hex + 2 * i, "%2x", &x);
        b[i] = (uint8_t)x;
    }
    czk_fr r;
    if (!czk_fr_from_bytes_be(&r, b)) r = CZK_FR_ZERO;
    return r;
}

static czk_fr *vec_alloc(size_t n)
{
    return malloc(n * sizeof(czk_fr));
}

static bool vec_eq(const czk_fr *a, const czk_fr *b, size_t n)
{
    return memcmp(a, b, n * sizeof(czk_fr)) == 0;
}

/* p(x) = sum v[i] x^i by Horner. */
static void horner(czk_fr *out, const czk_fr *v, size_t n, const czk_fr *x)
{
    czk_fr acc = CZK_FR_ZERO;
    for (size_t i = n; i-- > 0;) {
        czk_fr_mul(&acc, &acc, x);
        czk_fr_add(&acc, &acc, &v[i]);
    }
    *out = acc;
}

/* out[j] = s · sum_i v[i] (c·w^j)^i: every transform is one of these. */
static void naive_dft(czk_fr *out, const czk_fr *v, size_t n, const czk_fr *w, const czk_fr *c,
                      const czk_fr *s)
{
    czk_fr x = *c;
    for (size_t j = 0; j < n; j++) {
        horner(&out[j], v, n, &x);
        czk_fr_mul(&out[j], &out[j], s);
        czk_fr_mul(&x, &x, w);
    }
}

static void naive_scale(czk_fr *v, size_t n, const czk_fr *g)
{
    czk_fr gi = CZK_FR_ONE;
    for (size_t i = 0; i < n; i++) {
        czk_fr_mul(&v[i], &v[i], &gi);
        czk_fr_mul(&gi, &gi, g);
    }
}

static void fr_of_u64(czk_fr *out, uint64_t v)
{
    czk_fr_from_u64(out, v);
}

/* ------------------------------------------------------------------------------------ */

static void test_roots_table(void)
{
    /* snarkjs (ffjavascript) w[k] for the BLS12-381 scalar field. */
    static const struct {
        unsigned k;
        const char *hex;
    } snarkjs[] = {
        {3, "3f96405d25a31660a733b23a98ca5b22a032824078eaa4fe8dd702cb688bc087"},
        {10, "2f27b09858f43cef3ed6d55a6350721d79efd6b0570bf109d58a5af42d010ff9"},
        {11, "43527a8bca252472eb674a1a620890d7a534af14b61e0abe74a1f6718c130477"},
        {16, "6709c6cd56aa725b0409ee987a02402c0caba63a29c01b06137b458acfc35f7a"},
        {17, "05deb333f8727901ebe905bd4fb9ac5c77d85a937ff858ec10251f7d8831e03e"},
        {20, "3436287f5f686d91556c35f6537d6971870c46fac2f0fcbd20b53cbe41144dea"},
        {21, "6eee34d57e7046e036f8f165fb4460f767c6630f9116e877007e082a436ba2e7"},
        {32, "0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"},
    };
    for (size_t i = 0; i < sizeof snarkjs / sizeof snarkjs[0]; i++) {
        czk_fr w, want = fr_hex(snarkjs[i].hex);
        czk_fr_root_of_unity(&w, snarkjs[i].k, CZK_ROOTS_SNARKJS);
        CHECK_MSG(czk_fr_eq(&w, &want), "snarkjs root k=%u", snarkjs[i].k);
    }
    /* blstrs Scalar::ROOT_OF_UNITY = 7^t. */
    czk_fr w, want = fr_hex("16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
    czk_fr_root_of_unity(&w, 32, CZK_ROOTS_BELLPERSON);
    CHECK(czk_fr_eq(&w, &want));
    /* And 7^t computed here from t = (r - 1)/2^32. */
    static const uint64_t t[4] = {0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL,
                                  0x299d7d483339d808ULL, 0x0000000073eda753ULL};
    czk_fr seven, five;
    fr_of_u64(&seven, 7);
    fr_of_u64(&five, 5);
    czk_fr_pow(&want, &seven, t, 4);
    CHECK(czk_fr_eq(&w, &want));
    czk_fr_pow(&want, &five, t, 4);
    czk_fr_root_of_unity(&w, 32, CZK_ROOTS_SNARKJS);
    CHECK(czk_fr_eq(&w, &want));

    /* Every w[k] has order exactly 2^k, in both families; the families differ. */
    czk_fr minus_one;
    czk_fr_neg(&minus_one, &CZK_FR_ONE);
    for (int f = 0; f < 2; f++) {
        for (unsigned k = 0; k <= 32; k++) {
            czk_fr_root_of_unity(&w, k, FAMILIES[f]);
            czk_fr x = w;
            for (unsigned i = 1; i < k; i++) czk_fr_sqr(&x, &x); /* w^(2^(k-1)) */
            if (k >= 1) {
                CHECK_MSG(czk_fr_eq(&x, &minus_one), "family %d k=%u: w^(n/2) != -1", f, k);
                czk_fr_sqr(&x, &x);
            }
            CHECK_MSG(czk_fr_is_one(&x), "family %d k=%u: w^n != 1", f, k);
        }
    }
    czk_fr a, b;
    czk_fr_root_of_unity(&a, 20, CZK_ROOTS_BELLPERSON);
    czk_fr_root_of_unity(&b, 20, CZK_ROOTS_SNARKJS);
    CHECK(!czk_fr_eq(&a, &b));
    czk_fr_root_of_unity(&a, 33, CZK_ROOTS_BELLPERSON);
    CHECK(czk_fr_is_zero(&a));

    /* Domains report the root they use: omega^n = 1, omega^(n/2) = -1. */
    for (int f = 0; f < 2; f++) {
        for (unsigned log_n = 1; log_n <= 28; log_n += 3) {
            czk_ntt_domain *d = NULL;
            CHECK_STATUS(czk_ntt_domain_create(&d, log_n, FAMILIES[f], NULL), CZK_OK);
            if (d == NULL) continue;
            CHECK(czk_ntt_domain_log_size(d) == log_n);
            czk_fr om, x;
            czk_ntt_domain_omega(d, &om);
            czk_fr_root_of_unity(&w, log_n, FAMILIES[f]);
            CHECK(czk_fr_eq(&om, &w));
            uint64_t half = (uint64_t)1 << (log_n - 1);
            czk_fr_pow(&x, &om, &half, 1);
            CHECK_MSG(czk_fr_eq(&x, &minus_one), "log_n %u", log_n);
            czk_fr_sqr(&x, &x);
            CHECK(czk_fr_is_one(&x));
            czk_ntt_domain_destroy(d);
        }
    }
}

/*
 * One size, one family, one plan: all four transforms against the naive DFT of the same
 * random input, with g = 7 (bellperson) and g = omega_2n (snarkjs) for the cosets.
 */
static void check_against_naive(unsigned log_n, czk_roots fam, unsigned log_rows, czk_pool *pool,
                                const czk_fr *v, const czk_fr *want_fwd, const czk_fr *want_inv,
                                const czk_fr *g, const czk_fr *want_cfwd, const czk_fr *want_cinv)
{
    size_t n = (size_t)1 << log_n;
    czk_ntt_domain *d = NULL;
    CHECK_STATUS(czk__ntt_domain_create_plan(&d, log_n, fam, log_rows, NULL), CZK_OK);
    if (d == NULL) return;
    czk_fr *x = vec_alloc(n);
    memcpy(x, v, n * sizeof *x);
    czk_ntt_forward(d, x, pool);
    CHECK_MSG(vec_eq(x, want_fwd, n), "forward 2^%u fam %d rows 2^%u", log_n, fam, log_rows);
    memcpy(x, v, n * sizeof *x);
    czk_ntt_inverse(d, x, pool);
    CHECK_MSG(vec_eq(x, want_inv, n), "inverse 2^%u fam %d rows 2^%u", log_n, fam, log_rows);
    memcpy(x, v, n * sizeof *x);
    czk_ntt_coset_forward(d, x, g, pool);
    CHECK_MSG(vec_eq(x, want_cfwd, n), "coset fwd 2^%u fam %d rows 2^%u", log_n, fam, log_rows);
    memcpy(x, v, n * sizeof *x);
    czk_ntt_coset_inverse(d, x, g, pool);
    CHECK_MSG(vec_eq(x, want_cinv, n), "coset inv 2^%u fam %d rows 2^%u", log_n, fam, log_rows);
    free(x);
    czk_ntt_domain_destroy(d);
}

static void naive_all(unsigned log_n, czk_pool *pool)
{
    size_t n = (size_t)1 << log_n;
    czk_fr *v = vec_alloc(n), *fwd = vec_alloc(n), *inv = vec_alloc(n), *cfwd = vec_alloc(n),
           *cinv = vec_alloc(n);
    for (int f = 0; f < 2; f++) {
        rand_vec(v, n);
        czk_fr w, winv, ninv, nfr, g, ginv;
        czk_fr_root_of_unity(&w, log_n, FAMILIES[f]);
        czk_fr_inv(&winv, &w);
        fr_of_u64(&nfr, n);
        czk_fr_inv(&ninv, &nfr);
        /* bellperson's coset generator 7; snarkjs' omega_2n. */
        if (FAMILIES[f] == CZK_ROOTS_BELLPERSON)
            fr_of_u64(&g, 7);
        else
            czk_fr_root_of_unity(&g, log_n + 1, FAMILIES[f]);
        czk_fr_inv(&ginv, &g);
        naive_dft(fwd, v, n, &w, &CZK_FR_ONE, &CZK_FR_ONE);
        naive_dft(inv, v, n, &winv, &CZK_FR_ONE, &ninv);
        naive_dft(cfwd, v, n, &w, &g, &CZK_FR_ONE); /* sum v[i] (g w^j)^i */
        naive_dft(cinv, v, n, &winv, &CZK_FR_ONE, &ninv);
        naive_scale(cinv, n, &ginv);
        for (unsigned rows = 0; rows < log_n; rows++)
            check_against_naive(log_n, FAMILIES[f], rows, pool, v, fwd, inv, &g, cfwd, cinv);
        /* And the plan czk_ntt_domain_create picks, without a pool. */
        czk_ntt_domain *d = NULL;
        CHECK_STATUS(czk_ntt_domain_create(&d, log_n, FAMILIES[f], NULL), CZK_OK);
        if (d != NULL) {
            check_against_naive(log_n, FAMILIES[f], czk__ntt_domain_log_rows(d), NULL, v, fwd, inv,
                                &g, cfwd, cinv);
            czk_ntt_domain_destroy(d);
        }
    }
    free(v);
    free(fwd);
    free(inv);
    free(cfwd);
    free(cinv);
}

static void test_naive(void)
{
    /* Every plan of 2^1..2^11 on a pool (column groups and rows on several threads), and
     * the default plan on the caller alone too. */
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 3, NULL), CZK_OK);
    for (unsigned log_n = 1; log_n <= 11; log_n++) naive_all(log_n, pool);
    czk_pool_destroy(pool);
}

/* Known answers from @noble/curves 2.x abstract/fft.js (an independent implementation):
 *   const fft = FFT(rootsOfUnity(Field(r), gen), Field(r));  input v[i] = i^2 + 7i + 3,
 *   sha256 over the 32-byte big-endian outputs of fft.direct(v) / fft.inverse(v). */
static void test_noble_vectors(void)
{
    static const struct {
        czk_roots fam;
        unsigned log_n;
        bool inverse;
        const char *sha256;
        const char *out1;
    } kat[] = {
        {CZK_ROOTS_BELLPERSON, 3, false,
         "c64db1c6c039d71cb55bb79fd097e98c47da6f519483bc49cf1e2fdfab3fe900",
         "1e01a21535e2e773d674af08f0db32bcd30041d2683c324c4090f6efdba9cef7"},
        {CZK_ROOTS_BELLPERSON, 3, true,
         "eb3af42f9f19512a8d8da36dfa4f4e0ce8edbe35e9048e605a69113825c62c59",
         "300980624242a0ae215dc4b92d51d9a20555665d37bf7c86bbcfde85f640a4ae"},
        {CZK_ROOTS_BELLPERSON, 10, false,
         "16d04008275b6213efa840f865897b3d757fac87d09569fc0121afb083886e92",
         "0bac7b5b9c936de0bd307f6753b2a8a576f47be2da7e42a853cd20917d42ffef"},
        {CZK_ROOTS_BELLPERSON, 10, true,
         "c10fa0f9f560778fa90a2c5c73c6c1fef447ea62271d898ac2e4683fb9ecde97",
         "5a33703c565a2caded0106a2ae6f1049e0905f11110d82a955552f7b487a467a"},
        {CZK_ROOTS_BELLPERSON, 13, false,
         "df8bd239b778d8e53dcd1661153579919879378b09c26e540d17448289216193",
         "0b6ec47fad9396b35a07154025fcd2fe05ba14e8c5f476d521c8ecf2e79618cf"},
        {CZK_ROOTS_BELLPERSON, 13, true,
         "160d88db3da276ff127e8646c2426c09a576020753f5bde6e10ab06247b58c51",
         "1977da86d12b68c077e04ac081e69104b97ebe535304a2154cd0a495215925d1"},
        {CZK_ROOTS_SNARKJS, 3, false,
         "8cd3a8f20ed917c2c571a51ffa7097cdb24667a00798b71b8b839ef8a62a25e0",
         "55ec053df3ba95921e6d2837c75c6359df556109465a29b2bef7090f245630b2"},
        {CZK_ROOTS_SNARKJS, 3, true,
         "018b43ea3ea092387f3e753b759fcf8b1984248a813985fdd89d10cb0866e6d3",
         "43e426f0e75adca259a71367c67d46a122953dcab26bdf78443f217909bf5b48"},
        {CZK_ROOTS_SNARKJS, 10, false,
         "090b33b3ecd9e241aed9c71c743a81252247f83d2e1082f96ef5950ec4332eb2",
         "41fd25df7138d79089dd87ee3e933f7463ad5839479f2fc4e53f919536514d76"},
        {CZK_ROOTS_SNARKJS, 10, true,
         "9b6ca07261caa6f5d9e2350f15f9f9b3f2711c2d37e3168d662bf79db81a2bda",
         "4869ddc537c4c00a46b5bdfc96110f5f224c5f00f471d91e88c6799781f989be"},
        {CZK_ROOTS_SNARKJS, 13, false,
         "0c0205d4f5862ef793e6ec2ec6eefd22fb4a453311fe687b1aa43f4d90ae9ad4",
         "1dee704beb64e044ad1c960f6f9e73b65b03e2221452ce14cbb6a5d8476ffe65"},
        {CZK_ROOTS_SNARKJS, 13, true,
         "24fd1dfc883b275fb44150ba47575fee08dc14464846ec738ce5387eaec313fa",
         "2cb3432a13b9c5503e289c2666c1eb1cc9c1a9924feb30c5696dc338ae503a80"},
    };
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 2, NULL), CZK_OK);
    for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++) {
        size_t n = (size_t)1 << kat[k].log_n;
        czk_fr *v = vec_alloc(n);
        for (size_t i = 0; i < n; i++) fr_of_u64(&v[i], (uint64_t)i * i + 7 * i + 3);
        czk_ntt_domain *d = NULL;
        CHECK_STATUS(czk_ntt_domain_create(&d, kat[k].log_n, kat[k].fam, NULL), CZK_OK);
        if (d == NULL) {
            free(v);
            continue;
        }
        if (kat[k].inverse)
            czk_ntt_inverse(d, v, pool);
        else
            czk_ntt_forward(d, v, pool);
        uint8_t *bytes = malloc(n * 32), md[32];
        for (size_t i = 0; i < n; i++) czk_fr_to_bytes_be(bytes + 32 * i, &v[i]);
        SHA256(bytes, n * 32, md);
        free(bytes);
        char hex[65];
        for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
        CHECK_MSG(strcmp(hex, kat[k].sha256) == 0, "noble vector %zu (2^%u fam %d %s)", k,
                  kat[k].log_n, kat[k].fam, kat[k].inverse ? "inverse" : "forward");
        czk_fr want1 = fr_hex(kat[k].out1);
        CHECK(czk_fr_eq(&v[1], &want1));
        free(v);
        czk_ntt_domain_destroy(d);
    }
    czk_pool_destroy(pool);
}

/* ------------------------------------------------------------------------------------ */

/* Spot-check out[j] = sum v[i] (c·w^j)^i at a few j by Horner. */
static void spot_check(const czk_fr *out, const czk_fr *v, unsigned log_n, const czk_fr *w,
                       const czk_fr *c, const char *what)
{
    size_t n = (size_t)1 << log_n;
    for (int k = 0; k < 3; k++) {
        uint64_t j = (k == 0) ? n - 1 : czk_test_rand64() & (n - 1);
        czk_fr x, y;
        czk_fr_pow(&x, w, &j, 1);
        czk_fr_mul(&x, &x, c);
        horner(&y, v, n, &x);
        CHECK_MSG(czk_fr_eq(&y, &out[j]), "%s 2^%u: output %llu", what, log_n,
                  (unsigned long long)j);
    }
}

static void test_large_round_trips(void)
{
    enum { NPOOLS = 4 };
    static const unsigned nthreads[NPOOLS] = {1, 2, 4, 0};
    czk_pool *pools[NPOOLS];
    for (int p = 0; p < NPOOLS; p++)
        CHECK_STATUS(czk_pool_create(&pools[p], nthreads[p], NULL), CZK_OK);
    for (unsigned log_n = 12; log_n <= 20; log_n++) {
        size_t n = (size_t)1 << log_n;
        czk_roots fam = FAMILIES[log_n & 1];
        czk_ntt_domain *d = NULL;
        CHECK_STATUS(czk_ntt_domain_create(&d, log_n, fam, NULL), CZK_OK);
        if (d == NULL) continue;
        czk_fr *v = vec_alloc(n), *x = vec_alloc(n), *ref = vec_alloc(n);
        rand_vec(v, n);
        czk_fr w, g, winv;
        czk_ntt_domain_omega(d, &w);
        czk_fr_inv(&winv, &w);
        czk_test_rand_fr(&g);
        /* Every size on one pool in turn; 2^16 and 2^20 on all of them, compared. */
        bool all = (log_n == 16 || log_n == 20);
        int p0 = all ? 0 : (int)(log_n % NPOOLS), p1 = all ? NPOOLS : p0 + 1;
        for (int p = p0; p < p1; p++) {
            czk_pool *pool = pools[p];
            memcpy(x, v, n * sizeof *x);
            czk_ntt_forward(d, x, pool);
            if (p == p0) {
                spot_check(x, v, log_n, &w, &CZK_FR_ONE, "forward");
                memcpy(ref, x, n * sizeof *x);
            } else {
                CHECK_MSG(vec_eq(x, ref, n), "2^%u: %u threads differ", log_n, nthreads[p]);
            }
            czk_ntt_inverse(d, x, pool);
            CHECK_MSG(vec_eq(x, v, n), "2^%u: inverse(forward(v)) != v, %u threads", log_n,
                      nthreads[p]);
            czk_ntt_coset_forward(d, x, &g, pool);
            if (p == p0) spot_check(x, v, log_n, &w, &g, "coset forward");
            czk_ntt_coset_inverse(d, x, &g, pool);
            CHECK_MSG(vec_eq(x, v, n), "2^%u: coset round trip, %u threads", log_n, nthreads[p]);
            /* The other order: forward(inverse(v)) = v; inverse spot-checked. */
            czk_ntt_inverse(d, x, pool);
            if (p == p0) {
                czk_fr t[1];
                czk_fr nfr, ninv;
                fr_of_u64(&nfr, n);
                czk_fr_inv(&ninv, &nfr);
                uint64_t j = czk_test_rand64() & (n - 1);
                czk_fr xj;
                czk_fr_pow(&xj, &winv, &j, 1);
                horner(&t[0], v, n, &xj);
                czk_fr_mul(&t[0], &t[0], &ninv);
                CHECK_MSG(czk_fr_eq(&t[0], &x[j]), "inverse 2^%u output %llu", log_n,
                          (unsigned long long)j);
            }
            czk_ntt_forward(d, x, pool);
            CHECK_MSG(vec_eq(x, v, n), "2^%u: forward(inverse(v)) != v", log_n);
        }
        free(v);
        free(x);
        free(ref);
        czk_ntt_domain_destroy(d);
    }
    for (int p = 0; p < NPOOLS; p++) czk_pool_destroy(pools[p]);
}

static void test_structured_inputs(void)
{
    /* delta_1 -> (omega^j); all-ones -> (n, 0, ..., 0); delta_0 -> all ones. */
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 0, NULL), CZK_OK);
    for (unsigned log_n = 5; log_n <= 17; log_n += 6) {
        size_t n = (size_t)1 << log_n;
        czk_ntt_domain *d = NULL;
        CHECK_STATUS(czk_ntt_domain_create(&d, log_n, CZK_ROOTS_BELLPERSON, NULL), CZK_OK);
        if (d == NULL) continue;
        czk_fr *x = vec_alloc(n), w, wj = CZK_FR_ONE, nfr;
        czk_ntt_domain_omega(d, &w);
        memset(x, 0, n * sizeof *x);
        x[1] = CZK_FR_ONE;
        czk_ntt_forward(d, x, pool);
        size_t bad = 0;
        for (size_t j = 0; j < n; j++) {
            if (!czk_fr_eq(&x[j], &wj)) bad++;
            czk_fr_mul(&wj, &wj, &w);
        }
        CHECK_MSG(bad == 0, "delta_1 2^%u: %zu wrong", log_n, bad);
        for (size_t i = 0; i < n; i++) x[i] = CZK_FR_ONE;
        czk_ntt_forward(d, x, pool);
        fr_of_u64(&nfr, n);
        bad = !czk_fr_eq(&x[0], &nfr);
        for (size_t j = 1; j < n; j++) bad += !czk_fr_is_zero(&x[j]);
        CHECK_MSG(bad == 0, "ones 2^%u", log_n);
        czk_ntt_inverse(d, x, pool);
        bad = 0;
        for (size_t j = 0; j < n; j++) bad += !czk_fr_is_one(&x[j]);
        CHECK_MSG(bad == 0, "inverse of (n, 0, ...) 2^%u", log_n);
        free(x);
        czk_ntt_domain_destroy(d);
    }
    czk_pool_destroy(pool);
}

static void test_linearity(void)
{
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 3, NULL), CZK_OK);
    for (unsigned log_n = 9; log_n <= 15; log_n += 3) {
        size_t n = (size_t)1 << log_n;
        czk_ntt_domain *d = NULL;
        CHECK_STATUS(czk_ntt_domain_create(&d, log_n, CZK_ROOTS_SNARKJS, NULL), CZK_OK);
        if (d == NULL) continue;
        czk_fr *x = vec_alloc(n), *y = vec_alloc(n), *z = vec_alloc(n), a, g;
        rand_vec(x, n);
        rand_vec(y, n);
        czk_test_rand_fr(&a);
        czk_test_rand_fr(&g);
        for (size_t i = 0; i < n; i++) {
            czk_fr_mul(&z[i], &x[i], &a);
            czk_fr_add(&z[i], &z[i], &y[i]);
        }
        for (int kind = 0; kind < 4; kind++) {
            czk_fr *bufs[3] = {x, y, z};
            for (int b = 0; b < 3; b++) {
                switch (kind) {
                case 0:
                    czk_ntt_forward(d, bufs[b], pool);
                    break;
                case 1:
                    czk_ntt_inverse(d, bufs[b], pool);
                    break;
                case 2:
                    czk_ntt_coset_forward(d, bufs[b], &g, pool);
                    break;
                default:
                    czk_ntt_coset_inverse(d, bufs[b], &g, pool);
                    break;
                }
            }
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) {
                czk_fr t;
                czk_fr_mul(&t, &x[i], &a);
                czk_fr_add(&t, &t, &y[i]);
                bad += !czk_fr_eq(&t, &z[i]);
            }
            CHECK_MSG(bad == 0, "linearity 2^%u kind %d: %zu wrong", log_n, kind, bad);
        }
        free(x);
        free(y);
        free(z);
        czk_ntt_domain_destroy(d);
    }
    czk_pool_destroy(pool);
}

static void test_poly_mul(void)
{
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 2, NULL), CZK_OK);
    static const unsigned sizes[] = {1, 4, 9, 12};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        unsigned log_n = sizes[s];
        size_t n = (size_t)1 << log_n, h = n / 2;
        for (int f = 0; f < 2; f++) {
            czk_ntt_domain *d = NULL;
            CHECK_STATUS(czk_ntt_domain_create(&d, log_n, FAMILIES[f], NULL), CZK_OK);
            if (d == NULL) continue;
            czk_fr *a = vec_alloc(n), *b = vec_alloc(n), *want = vec_alloc(n), g;
            memset(a, 0, n * sizeof *a);
            memset(b, 0, n * sizeof *b);
            memset(want, 0, n * sizeof *want);
            rand_vec(a, h); /* degree < n/2 each: the product fits */
            rand_vec(b, h);
            for (size_t i = 0; i < h; i++)
                for (size_t k = 0; k < h; k++) {
                    czk_fr t;
                    czk_fr_mul(&t, &a[i], &b[k]);
                    czk_fr_add(&want[i + k], &want[i + k], &t);
                }
            czk_fr *a2 = vec_alloc(n), *b2 = vec_alloc(n);
            memcpy(a2, a, n * sizeof *a);
            memcpy(b2, b, n * sizeof *b);
            czk_ntt_forward(d, a, pool);
            czk_ntt_forward(d, b, pool);
            for (size_t i = 0; i < n; i++) czk_fr_mul(&a[i], &a[i], &b[i]);
            czk_ntt_inverse(d, a, pool);
            CHECK_MSG(vec_eq(a, want, n), "product 2^%u fam %d", log_n, f);
            /* The same on a coset. */
            fr_of_u64(&g, 7);
            czk_ntt_coset_forward(d, a2, &g, pool);
            czk_ntt_coset_forward(d, b2, &g, pool);
            for (size_t i = 0; i < n; i++) czk_fr_mul(&a2[i], &a2[i], &b2[i]);
            czk_ntt_coset_inverse(d, a2, &g, pool);
            CHECK_MSG(vec_eq(a2, want, n), "coset product 2^%u fam %d", log_n, f);
            free(a);
            free(b);
            free(a2);
            free(b2);
            free(want);
            czk_ntt_domain_destroy(d);
        }
    }
    czk_pool_destroy(pool);
}

/* The butterflies' inlined Fr add/sub/mul (assembly on x86-64) against src/ff's, which
 * test_ff checks against OpenSSL BIGNUM: random values and the edges 0, 1, r - 1. */
static void test_arith(void)
{
    czk_fr edge[6];
    edge[0] = CZK_FR_ZERO;
    edge[1] = CZK_FR_ONE;
    czk_fr_neg(&edge[2], &CZK_FR_ONE);
    fr_of_u64(&edge[3], 1);
    edge[4] = fr_hex("39f6d3a994cebea4199cec0404d0ec02a9ded2017fff2dff7fffffff80000000");
    edge[5] = fr_hex("39f6d3a994cebea4199cec0404d0ec02a9ded2017fff2dff7fffffff80000001");
    size_t bad_add = 0, bad_sub = 0, bad_mul = 0;
    for (int it = 0; it < 200000; it++) {
        czk_fr a, b, x, y;
        if (it < 36) {
            a = edge[it % 6];
            b = edge[it / 6];
        } else {
            czk_test_rand_fr(&a);
            czk_test_rand_fr(&b);
            if (it % 7 == 0) b = a;
        }
        ntt_add(&x, &a, &b);
        czk_fr_add(&y, &a, &b);
        bad_add += !czk_fr_eq(&x, &y);
        ntt_sub(&x, &a, &b);
        czk_fr_sub(&y, &a, &b);
        bad_sub += !czk_fr_eq(&x, &y);
        ntt_mul(&x, &a, &b);
        czk_fr_mul(&y, &a, &b);
        bad_mul += !czk_fr_eq(&x, &y);
        /* Aliased output, as the butterflies use it. */
        x = a;
        ntt_add(&x, &x, &b);
        czk_fr_add(&y, &a, &b);
        bad_add += !czk_fr_eq(&x, &y);
    }
    CHECK_MSG(bad_add == 0 && bad_sub == 0 && bad_mul == 0, "add %zu, sub %zu, mul %zu wrong",
              bad_add, bad_sub, bad_mul);
}

/* Every tuning knob changes the code path (recursion depth, column group width, gather or
 * in place, tile size, split), never the result: each variant against the default. */
static void test_tuning_variants(void)
{
    czk__ntt_tuning def, t;
    czk__ntt_get_tuning(&def);
    static const struct {
        unsigned direct_max_log, leaf_log, group_buf_log, tile_log, max_log_rows;
        bool in_place;
    } variants[] = {
        {0, 1, 1, 1, 1, false},   {0, 2, 20, 2, 3, false}, {12, 3, 10, 5, 16, false},
        {0, 10, 13, 3, 16, true}, {0, 1, 1, 5, 2, true},   {4, 6, 8, 4, 5, false},
    };
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 3, NULL), CZK_OK);
    static const unsigned sizes[] = {1, 2, 3, 5, 8, 11, 13, 16};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        unsigned log_n = sizes[si];
        size_t n = (size_t)1 << log_n;
        czk_fr *v = vec_alloc(n), *want = vec_alloc(4 * n), *x = vec_alloc(n), g;
        rand_vec(v, n);
        czk_test_rand_fr(&g);
        for (int vi = -1; vi < (int)(sizeof variants / sizeof variants[0]); vi++) {
            if (vi < 0) {
                t = def;
            } else {
                t.direct_max_log = variants[vi].direct_max_log;
                t.leaf_log = variants[vi].leaf_log;
                t.group_buf_log = variants[vi].group_buf_log;
                t.tile_log = variants[vi].tile_log;
                t.max_log_rows = variants[vi].max_log_rows;
                t.columns_in_place = variants[vi].in_place;
            }
            czk__ntt_set_tuning(&t);
            czk_ntt_domain *d = NULL;
            CHECK_STATUS(czk_ntt_domain_create(&d, log_n, CZK_ROOTS_SNARKJS, NULL), CZK_OK);
            if (d == NULL) continue;
            for (int kind = 0; kind < 4; kind++) {
                memcpy(x, v, n * sizeof *x);
                switch (kind) {
                case 0:
                    czk_ntt_forward(d, x, pool);
                    break;
                case 1:
                    czk_ntt_inverse(d, x, pool);
                    break;
                case 2:
                    czk_ntt_coset_forward(d, x, &g, pool);
                    break;
                default:
                    czk_ntt_coset_inverse(d, x, &g, pool);
                    break;
                }
                if (vi < 0)
                    memcpy(want + kind * n, x, n * sizeof *x);
                else
                    CHECK_MSG(vec_eq(x, want + kind * n, n), "2^%u variant %d kind %d (rows 2^%u)",
                              log_n, vi, kind, czk__ntt_domain_log_rows(d));
            }
            czk_ntt_domain_destroy(d);
        }
        free(v);
        free(want);
        free(x);
    }
    czk__ntt_set_tuning(&def);
    czk_pool_destroy(pool);
}

static void test_bad_arguments(void)
{
    czk_ntt_domain *d = (czk_ntt_domain *)&d; /* must be overwritten with NULL */
    czk_err err;
    CHECK_STATUS(czk_ntt_domain_create(&d, 0, CZK_ROOTS_BELLPERSON, &err), CZK_EINVAL);
    CHECK(d == NULL);
    CHECK(err.status == CZK_EINVAL && err.msg[0] != '\0');
    CHECK_STATUS(czk_ntt_domain_create(&d, 33, CZK_ROOTS_BELLPERSON, NULL), CZK_EINVAL);
    CHECK(d == NULL);
    CHECK_STATUS(czk_ntt_domain_create(&d, 1000, CZK_ROOTS_SNARKJS, NULL), CZK_EINVAL);
    CHECK_STATUS(czk_ntt_domain_create(&d, 10, (czk_roots)7, NULL), CZK_EINVAL);
    CHECK(d == NULL);
    CHECK_STATUS(czk_ntt_domain_create(NULL, 10, CZK_ROOTS_SNARKJS, NULL), CZK_EINVAL);
    CHECK_STATUS(czk__ntt_domain_create_plan(&d, 10, CZK_ROOTS_SNARKJS, 10, NULL), CZK_EINVAL);
    /* The largest domains are cheap to create: their tables are ~sqrt(n). */
    CHECK_STATUS(czk_ntt_domain_create(&d, 32, CZK_ROOTS_SNARKJS, NULL), CZK_OK);
    if (d) CHECK(czk_ntt_domain_log_size(d) == 32);
    czk_ntt_domain_destroy(d);
    czk_ntt_domain_destroy(NULL);
}

int main(void)
{
    czk_test_seed();
    RUN(test_roots_table);
    RUN(test_bad_arguments);
    RUN(test_arith);
    RUN(test_tuning_variants);
    RUN(test_naive);
    RUN(test_noble_vectors);
    RUN(test_structured_inputs);
    RUN(test_linearity);
    RUN(test_poly_mul);
    RUN(test_large_round_trips);
    return czk_test_finish();
}
