/*
 * Packed vectors (include/czk/pack.h, src/groth16/pack.c) and their expansion on the GPU
 * (cuda/pack.cuh's expand_body, replayed here on the CPU for every element).
 *
 * Vectors mix zeros, Montgomery ones, random elements and the element whose canonical limbs
 * are 1 (stored as such it is not one: it must travel as a value), with lengths around
 * 64-element words and the packer's 2^20-element tasks. Checked against a direct
 * classification of each element: every bit of both bitmaps, every running count, the
 * values in order, and the expansion, as stored and as canonical limbs (the latter against
 * the CPU library's czk_fr_to_u64s, another reduction than the device's).
 */
#include <string.h>

#include <vector>

#include "czk/alloc.h"
#include "czk/pack.h"
#include "czk_test.h"
#include "czk_test_fr.h"
#include "ff.cuh"
#include "pack.cuh"

using czk_gpu::fr_t;

namespace {

enum kind { ZERO, ONE, OTHER };

/* Fill v: each element 0 with probability p0, one with p1, else random (now and then the
 * canonical 1, R^-1 in Montgomery form, which is not one). */
void fill(std::vector<czk_fr> &v, unsigned p0, unsigned p1)
{
    for (czk_fr &e : v) {
        unsigned r = (unsigned)(czk_test_rand64() % 100);
        if (r < p0) {
            e = CZK_FR_ZERO;
        } else if (r < p0 + p1) {
            e = CZK_FR_ONE;
        } else if (czk_test_rand64() % 50 == 0) {
            const uint64_t one_limbs[4] = {1, 0, 0, 0};
            czk_fr_from_u64s(&e, one_limbs);
        } else {
            czk_test_rand_fr(&e);
        }
    }
}

kind classify(const czk_fr &e)
{
    if (czk_fr_is_zero(&e)) return ZERO;
    if (czk_fr_eq(&e, &CZK_FR_ONE)) return ONE;
    return OTHER;
}

struct packed {
    std::vector<uint64_t> ones, others;
    std::vector<uint32_t> prefix;
    std::vector<czk_fr> vals;
    czk_packed_vec p;
    packed(size_t n, size_t cap)
        : ones(czk_packed_words(n) + 1), others(czk_packed_words(n) + 1),
          prefix(czk_packed_words(n) + 1), vals(cap + 1)
    {
        memset(&p, 0, sizeof p);
        p.ones = ones.data();
        p.others = others.data();
        p.prefix = prefix.data();
        p.vals = vals.data();
        p.vals_cap = cap;
    }
};

bool same(const czk_fr &a, const czk_fr &b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Pack v with `pool` and check everything against the direct classification. */
void check_vector(const std::vector<czk_fr> &v, czk_pool *pool)
{
    const size_t n = v.size();
    packed k(n, n);
    czk_err err;
    czk_status s = czk_pack_vec(&k.p, v.data(), n, pool, &err);
    CHECK_MSG(s == CZK_OK, "n %zu: %s", n, s == CZK_OK ? "" : err.msg);
    if (s != CZK_OK) return;
    CHECK(k.p.n == n);
    size_t other = 0, bad_bits = 0, bad_prefix = 0, bad_vals = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t w = i / 64;
        const uint64_t bit = (uint64_t)1 << (i % 64);
        if (i % 64 == 0 && k.prefix[w] != other) bad_prefix++;
        kind c = classify(v[i]);
        if (((k.ones[w] & bit) != 0) != (c == ONE)) bad_bits++;
        if (((k.others[w] & bit) != 0) != (c == OTHER)) bad_bits++;
        if (c == OTHER) {
            if (other >= n || !same(k.vals[other], v[i])) bad_vals++;
            other++;
        }
    }
    /* Bits past n in the last word stay clear. */
    if (n % 64) {
        const uint64_t past = ~(((uint64_t)1 << (n % 64)) - 1);
        if ((k.ones[n / 64] | k.others[n / 64]) & past) bad_bits++;
    }
    CHECK_MSG(bad_bits == 0 && bad_prefix == 0 && bad_vals == 0,
              "n %zu: %zu wrong bits, %zu wrong counts, %zu wrong values", n, bad_bits,
              bad_prefix, bad_vals);
    CHECK_MSG(k.p.n_other == other, "n %zu: n_other %zu, want %zu", n, k.p.n_other, other);
    const size_t words = czk_packed_words(n);
    CHECK(czk_packed_bytes(&k.p) == words * 20 + other * sizeof(czk_fr));

    /* The host reference expansion, and the device body for every element, both forms. */
    std::vector<czk_fr> back(n + 1);
    back[n] = CZK_FR_ONE; /* a sentinel: nothing past n is written */
    czk_unpack_vec(back.data(), &k.p);
    size_t bad_host = 0, bad_dev = 0, bad_canon = 0;
    for (size_t i = 0; i < n; i++)
        if (!same(back[i], v[i])) bad_host++;
    CHECK(same(back[n], CZK_FR_ONE));
    std::vector<fr_t> dev(n), canon(n);
    const fr_t *vals = reinterpret_cast<const fr_t *>(k.vals.data());
    fr_t one_canon = fr_t::zero();
    one_canon.v[0] = 1;
    for (size_t i = 0; i < n; i++) {
        czk_gpu::pack::expand_body<false>(i, dev.data(), k.ones.data(), k.others.data(),
                                          k.prefix.data(), vals, fr_t::one());
        czk_gpu::pack::expand_body<true>(i, canon.data(), k.ones.data(), k.others.data(),
                                         k.prefix.data(), vals, one_canon);
    }
    for (size_t i = 0; i < n; i++) {
        czk_fr d;
        czk_gpu::fr_to(&d, dev[i]);
        if (!same(d, v[i])) bad_dev++;
        uint64_t want[4];
        czk_fr_to_u64s(want, &v[i]);
        czk_fr c;
        czk_gpu::fr_to(&c, canon[i]);
        if (memcmp(c.l, want, sizeof want) != 0) bad_canon++;
    }
    CHECK_MSG(bad_host == 0 && bad_dev == 0 && bad_canon == 0,
              "n %zu: expansion wrong at %zu (host), %zu (device body), %zu (canonical)", n,
              bad_host, bad_dev, bad_canon);
}

void test_lengths()
{
    czk_pool *pool = nullptr;
    czk_err err;
    CHECK_STATUS(czk_pool_create(&pool, 3, &err), CZK_OK);
    const size_t lens[] = {0, 1, 63, 64, 65, 127, 1000, 4096 + 17};
    for (size_t n : lens) {
        std::vector<czk_fr> v(n);
        fill(v, 50, 40);
        check_vector(v, nullptr);
        check_vector(v, pool);
    }
    /* Several of the packer's 2^20-element tasks, the last one partial, on the pool; a
     * dense vector (a's profile) and one without any value. */
    std::vector<czk_fr> big(((size_t)1 << 21) + 77);
    fill(big, 49, 18);
    check_vector(big, pool);
    fill(big, 60, 40);
    check_vector(big, pool);
    fill(big, 0, 0);
    check_vector(big, pool);
    czk_pool_destroy(pool);
}

void test_errors()
{
    std::vector<czk_fr> v(300);
    fill(v, 40, 40);
    size_t other = 0;
    for (const czk_fr &e : v) other += classify(e) == OTHER;
    CHECK(other > 10);
    czk_err err;
    /* Room for one value too few: ERESOURCE, and the count the caller needs. */
    packed k(v.size(), other - 1);
    CHECK_STATUS(czk_pack_vec(&k.p, v.data(), v.size(), nullptr, &err), CZK_ERESOURCE);
    CHECK_MSG(strstr(err.msg, "neither 0 nor 1") != nullptr, "%s", err.msg);
    CHECK(k.p.n_other == other);
    packed ok(v.size(), other);
    CHECK_STATUS(czk_pack_vec(&ok.p, v.data(), v.size(), nullptr, &err), CZK_OK);
    /* n past what 32-bit counts hold, and missing buffers, each named. */
    CHECK_STATUS(czk_pack_vec(&ok.p, v.data(), (size_t)1 << 32, nullptr, &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "2^32") != nullptr, "%s", err.msg);
    packed nb(v.size(), other);
    nb.p.others = nullptr;
    CHECK_STATUS(czk_pack_vec(&nb.p, v.data(), v.size(), nullptr, &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "others") != nullptr, "%s", err.msg);
    CHECK_STATUS(czk_pack_vec(nullptr, v.data(), v.size(), nullptr, &err), CZK_EINVAL);
}

} // namespace

int main()
{
    czk_test_seed();
    RUN(test_lengths);
    RUN(test_errors);
    return czk_test_finish();
}
