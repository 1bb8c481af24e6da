/*
 * Poseidon (neptune-compatible) against published and independently derived answers:
 *
 *   - every known answer of docs/formats.md §7: neptune's MerkleTree digests of
 *     [0, 1, ..., arity − 1] for all seven arities, ConstantLength(4) at arities 4 and 8,
 *     rust-fil-proofs' Poseidon2 vectors, GenRandomness (Custom(1)) and the Poseidon-11
 *     column hash, and the first round constant of width 9 from neptune's parameter file;
 *   - the optimized form's constants (compressed round constants, pre-sparse and sparse
 *     matrices) against checksums printed by scripts/gen_poseidon.py, which runs neptune's
 *     own procedures literally (the C code uses closed forms);
 *   - the optimized permutation against the plain one on fresh random states;
 *   - the sparse factorization identity pre × S_0 × ... × S_{R_P−1} = M^(R_P+1);
 *   - argument checking, and concurrent first use of the lazily derived parameters.
 */
#include "czk/bls12_381.h"
#include "czk/poseidon.h"
#include "czk_test.h"
#include "hash/poseidon_internal.h"

#include <pthread.h>

static const unsigned ARITIES[] = {2, 4, 8, 11, 16, 24, 36};
#define NARITIES (sizeof ARITIES / sizeof ARITIES[0])

/* Big-endian hex ("0x..." or bare, up to 64 digits) to an element; the value must be < r. */
static czk_fr fr_hex(const char *hex)
{
    if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex += 2;
    size_t len = strlen(hex);
    uint8_t be[32] = {0};
    for (size_t k = 0; k < len; k++) {
        char c = hex[len - 1 - k];
        unsigned v = c >= 'a'   ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' ? (unsigned)(c - 'A' + 10)
                                : (unsigned)(c - '0');
        be[31 - k / 2] |= (uint8_t)(v << (4 * (k % 2)));
    }
    czk_fr out;
    if (!czk_fr_from_bytes_be(&out, be)) {
        fprintf(stderr, "bad test constant %s\n", hex);
        abort();
    }
    return out;
}

static czk_fr fr_u64(uint64_t v)
{
    czk_fr out;
    czk_fr_from_u64(&out, v);
    return out;
}

static void fr_print(const char *label, const czk_fr *a)
{
    uint8_t be[32];
    czk_fr_to_bytes_be(be, a);
    fprintf(stderr, "    %s = 0x", label);
    for (int i = 0; i < 32; i++) fprintf(stderr, "%02x", be[i]);
    fprintf(stderr, "\n");
}

#define CHECK_FR(got, want)                                                                        \
    do {                                                                                           \
        czk_fr got_ = (got), want_ = (want);                                                       \
        CHECK(czk_fr_eq(&got_, &want_));                                                           \
        if (!czk_fr_eq(&got_, &want_)) {                                                           \
            fr_print("got ", &got_);                                                               \
            fr_print("want", &want_);                                                              \
        }                                                                                          \
    } while (0)

static czk_fr fr_random(void)
{
    uint8_t wide[64];
    czk_test_rand_bytes(wide, sizeof wide);
    czk_fr out;
    czk_fr_from_wide_bytes(&out, wide);
    return out;
}

/* ------------------------------------------------------------------------------------ */

/* neptune src/poseidon.rs hash_values_aux: MerkleTree tag, preimage [0, 1, ..., arity − 1]. */
static const struct {
    unsigned arity;
    const char *digest;
} MERKLE_KAT[] = {
    {2, "0x396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff"},
    {4, "0x58a54b10a9e5848a00db3c6579229399fb6b4605bf1327ec019814ff6662075d"},
    {8, "0x2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6"},
    {11, "0x0c0fc1b2e5227f286ca537e232ebe87a09f3dcd8ccb08fc1cee3bbc32b693163"},
    {16, "0x2d3ae2663381ae8ac1c2fb5a6f871e635b8dbc6d30680a6f1291c74060266d37"},
    {24, "0x63beb8831f11ae15066f39bf783f3d9fc3e779f6468815b1d7ef3569f585b321"},
    {36, "0x699303082a6e5d5f540a30e03c10bbaa75cd368df8a8ac3c4473606dfa4e8140"},
};

/* First use from several threads at once: every thread must see complete constants. Runs
 * first, while no parameter set has been derived yet. */
#define NTHREADS 4
static czk_fr thread_digest[NTHREADS][NARITIES];

static void *concurrent_worker(void *arg)
{
    size_t id = (size_t)arg;
    for (size_t k = 0; k < NARITIES; k++) {
        size_t a = (k + id * 3) % NARITIES; /* threads start at different arities */
        const czk_poseidon_params *p = czk_poseidon_params_get(ARITIES[a]);
        czk_fr in[CZK_POSEIDON_MAX_ARITY];
        for (unsigned i = 0; i < ARITIES[a]; i++) in[i] = fr_u64(i);
        czk_poseidon_merkle(&thread_digest[id][a], p, in);
    }
    return NULL;
}

static void test_concurrent_first_use(void)
{
    pthread_t th[NTHREADS];
    for (size_t i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&th[i], NULL, concurrent_worker, (void *)i) == 0);
    for (size_t i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
    for (size_t i = 0; i < NTHREADS; i++)
        for (size_t a = 0; a < NARITIES; a++)
            CHECK_FR(thread_digest[i][a], fr_hex(MERKLE_KAT[a].digest));
}

static void test_merkle_known_answers(void)
{
    for (size_t k = 0; k < NARITIES; k++) {
        unsigned arity = MERKLE_KAT[k].arity;
        const czk_poseidon_params *p = czk_poseidon_params_get(arity);
        CHECK(p != NULL && czk_poseidon_arity(p) == arity);
        czk_fr in[CZK_POSEIDON_MAX_ARITY], want = fr_hex(MERKLE_KAT[k].digest), got;
        for (unsigned i = 0; i < arity; i++) in[i] = fr_u64(i);

        CHECK_STATUS(czk_poseidon_hash(&got, p, CZK_POSEIDON_MERKLE_TREE, 0, in, arity), CZK_OK);
        CHECK_FR(got, want);
        czk_poseidon_merkle(&got, p, in);
        CHECK_FR(got, want);

        /* The plain permutation on its own reaches the same digest. */
        czk_fr s[CZK_POSEIDON_MAX_WIDTH];
        czk_fr_from_u64(&s[0], ((uint64_t)1 << arity) - 1);
        memcpy(s + 1, in, arity * sizeof *in);
        czk__poseidon_permute_plain(p, s);
        CHECK_FR(s[1], want);
    }
}

/* neptune's ConstantLength(4) vectors of [0, 1, 2, 3]: a full preimage at arity 4, and
 * zero padding of the last four slots at arity 8. */
static void test_constant_length(void)
{
    const czk_fr in[4] = {fr_u64(0), fr_u64(1), fr_u64(2), fr_u64(3)};
    czk_fr got;
    CHECK_STATUS(
        czk_poseidon_hash(&got, czk_poseidon_params_get(4), CZK_POSEIDON_CONSTANT_LENGTH, 4, in, 4),
        CZK_OK);
    CHECK_FR(got, fr_hex("0x3a21a6ae86754a2939443980077d75934984de08542c99778935b00a07909d45"));
    CHECK_STATUS(
        czk_poseidon_hash(&got, czk_poseidon_params_get(8), CZK_POSEIDON_CONSTANT_LENGTH, 4, in, 4),
        CZK_OK);
    CHECK_FR(got, fr_hex("0x5c6de4b69de9d792cad8b9f8aeb1578f203e3c7c4a85c1f9370a94532f818897"));
}

/* rust-fil-proofs filecoin-hashers/src/poseidon.rs test_poseidon_hasher. */
static void test_filecoin_hasher(void)
{
    czk_fr h10, h01, h;
    const czk_fr zero = fr_u64(0), one = fr_u64(1);
    czk_poseidon_merkle2(&h10, &one, &zero);
    CHECK_FR(h10, fr_hex("0x042f94ffbe786bc393c003cc74a24f26ec5907b3dc3094afb339ff6079800b5e"));
    czk_poseidon_merkle2(&h01, &zero, &one);
    czk_poseidon_merkle2(&h, &h10, &h01);
    CHECK_FR(h, fr_hex("0x1effebb7b26ad9eb30eb6385ae6b74ae77cc72b8cb2b5ad2efbb8be3e291e671"));
}

/* GenRandomness: Custom(1), tag 2^40, arity 2 (derived values of docs/formats.md §7). */
static void test_custom_gen_randomness(void)
{
    const czk_poseidon_params *p = czk_poseidon_params_get(2);
    czk_fr in[2] = {fr_u64(1), fr_u64(2)}, got;
    CHECK_STATUS(czk_poseidon_hash(&got, p, CZK_POSEIDON_CUSTOM, 1, in, 2), CZK_OK);
    CHECK_FR(got, fr_hex("0x702c879bafdb05ab3018f4fbc1d4c74854af845cdbb6bb53e40d5f9cb5e92f3c"));
    in[0] = in[1] = fr_u64(0);
    CHECK_STATUS(czk_poseidon_hash(&got, p, CZK_POSEIDON_CUSTOM, 1, in, 2), CZK_OK);
    CHECK_FR(got, fr_hex("0x2378125c8da03c26753fb1b88e0e51952e811cc365e44bc06c4fc1b9a38df1b3"));
}

/* The SDR column hash: Poseidon-11 (MerkleTree tag 0x7ff) of [1, ..., 11]. */
static void test_column_hash(void)
{
    czk_fr in[11], got;
    for (unsigned i = 0; i < 11; i++) in[i] = fr_u64(i + 1);
    czk_poseidon_merkle(&got, czk_poseidon_params_get(11), in);
    CHECK_FR(got, fr_hex("0x04817ecd0e80961686791eaf49dabcca4c6f52adad43dff41c611158e92280bd"));
}

/* neptune parameters/round_constants-1-1-255-9-8-57-*.txt, first line. */
static void test_round_constants(void)
{
    const czk_poseidon_params *p = czk_poseidon_params_get(8);
    CHECK(p->t == 9 && p->rf == 8 && p->rp == 57);
    CHECK_FR(p->rc[0],
             fr_hex("0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9"));
    /* Every constant is a canonical element (rejection sampling kept only values < r),
     * and consecutive ones differ (a stuck LFSR would repeat). */
    for (size_t k = 0; k < NARITIES; k++) {
        const czk_poseidon_params *q = czk_poseidon_params_get(ARITIES[k]);
        size_t n = (size_t)(q->rf + q->rp) * q->t;
        for (size_t i = 1; i < n; i++) CHECK(!czk_fr_eq(&q->rc[i], &q->rc[i - 1]));
    }
}

static void test_round_numbers_and_mds(void)
{
    static const unsigned RP[] = {55, 56, 57, 57, 59, 59, 60};
    for (size_t k = 0; k < NARITIES; k++) {
        const czk_poseidon_params *p = czk_poseidon_params_get(ARITIES[k]);
        CHECK(p->arity == ARITIES[k] && p->t == ARITIES[k] + 1 && p->rf == 8 && p->rp == RP[k]);
        /* M[i][j]·(i + t + j) = 1. */
        for (unsigned i = 0; i < p->t; i++)
            for (unsigned j = 0; j < p->t; j++) {
                czk_fr x = fr_u64(i + p->t + j), y;
                czk_fr_mul(&y, &p->mds[i * p->t + j], &x);
                CHECK(czk_fr_is_one(&y));
            }
    }
}

static void test_domain_tags(void)
{
    const czk_poseidon_params *p8 = czk_poseidon_params_get(8), *p36 = czk_poseidon_params_get(36);
    czk_fr tag;
    uint64_t l[4];

    CHECK_STATUS(czk_poseidon_domain_tag(&tag, p8, CZK_POSEIDON_MERKLE_TREE, 0), CZK_OK);
    czk_fr_to_u64s(l, &tag);
    CHECK(l[0] == 0xff && l[1] == 0 && l[2] == 0 && l[3] == 0);
    CHECK_STATUS(czk_poseidon_domain_tag(&tag, p36, CZK_POSEIDON_MERKLE_TREE, 0), CZK_OK);
    czk_fr_to_u64s(l, &tag);
    CHECK(l[0] == 0xfffffffffULL && l[1] == 0);

    for (uint64_t len = 1; len <= 8; len++) {
        CHECK_STATUS(czk_poseidon_domain_tag(&tag, p8, CZK_POSEIDON_CONSTANT_LENGTH, len), CZK_OK);
        czk_fr_to_u64s(l, &tag);
        CHECK(l[0] == 0 && l[1] == len && l[2] == 0 && l[3] == 0);
    }
    for (uint64_t id = 1; id <= 256; id++) {
        CHECK_STATUS(czk_poseidon_domain_tag(&tag, p8, CZK_POSEIDON_CUSTOM, id), CZK_OK);
        czk_fr_to_u64s(l, &tag);
        CHECK(l[0] == 0x10000000000ULL * id && l[1] == 0 && l[2] == 0 && l[3] == 0);
    }
    CHECK_STATUS(czk_poseidon_domain_tag(&tag, p8, CZK_POSEIDON_ENCRYPTION, 0), CZK_OK);
    czk_fr_to_u64s(l, &tag);
    CHECK(l[0] == 0x100000000ULL && l[1] == 0 && l[2] == 0 && l[3] == 0);
    CHECK_STATUS(czk_poseidon_domain_tag(&tag, p8, CZK_POSEIDON_VARIABLE_LENGTH, 0), CZK_OK);
    czk_fr_to_u64s(l, &tag);
    CHECK(l[0] == 0 && l[1] == 1 && l[2] == 0 && l[3] == 0);

    /* An Encryption hash is the permutation of [2^32, preimage]. */
    czk_fr in[8], got, s[9];
    for (int i = 0; i < 8; i++) in[i] = fr_random();
    CHECK_STATUS(czk_poseidon_hash(&got, p8, CZK_POSEIDON_ENCRYPTION, 0, in, 8), CZK_OK);
    s[0] = fr_u64((uint64_t)1 << 32);
    memcpy(s + 1, in, sizeof in);
    czk__poseidon_permute_plain(p8, s);
    CHECK_FR(got, s[1]);
}

static void test_argument_checks(void)
{
    static const unsigned bad[] = {0, 1, 3, 5, 7, 9, 10, 12, 32, 37, 64, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(czk_poseidon_params_get(bad[i]) == NULL);

    const czk_poseidon_params *p = czk_poseidon_params_get(4);
    czk_fr in[5] = {fr_u64(1), fr_u64(2), fr_u64(3), fr_u64(4), fr_u64(5)}, out = fr_u64(77), tag;
    CHECK_STATUS(czk_poseidon_hash(&out, NULL, CZK_POSEIDON_MERKLE_TREE, 0, in, 4), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_hash(&out, p, CZK_POSEIDON_MERKLE_TREE, 0, in, 3), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_hash(&out, p, CZK_POSEIDON_MERKLE_TREE, 0, in, 5), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_hash(&out, p, CZK_POSEIDON_MERKLE_TREE, 0, NULL, 4), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_hash(&out, p, CZK_POSEIDON_CONSTANT_LENGTH, 0, in, 0), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_hash(&out, p, CZK_POSEIDON_CONSTANT_LENGTH, 5, in, 5), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_hash(&out, p, CZK_POSEIDON_CONSTANT_LENGTH, 3, in, 4), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_hash(&out, p, CZK_POSEIDON_CUSTOM, 0, in, 4), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_hash(&out, p, CZK_POSEIDON_CUSTOM, 257, in, 4), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_hash(&out, p, CZK_POSEIDON_VARIABLE_LENGTH, 0, in, 4),
                 CZK_EUNSUPPORTED);
    CHECK_STATUS(czk_poseidon_hash(&out, p, (czk_poseidon_hash_type)99, 0, in, 4), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_domain_tag(&tag, p, (czk_poseidon_hash_type)99, 0), CZK_EINVAL);
    CHECK_STATUS(czk_poseidon_domain_tag(&tag, NULL, CZK_POSEIDON_MERKLE_TREE, 0), CZK_EINVAL);
    /* Failed calls leave the output alone. */
    CHECK_FR(out, fr_u64(77));

    /* ConstantLength(L < arity) pads with zeros: same as the permutation of [L·2^64, x, 0...]. */
    CHECK_STATUS(czk_poseidon_hash(&out, p, CZK_POSEIDON_CONSTANT_LENGTH, 2, in, 2), CZK_OK);
    czk_fr s[5];
    const uint64_t l[4] = {0, 2, 0, 0};
    czk_fr_from_u64s(&s[0], l);
    s[1] = in[0];
    s[2] = in[1];
    s[3] = s[4] = CZK_FR_ZERO;
    czk__poseidon_permute_plain(p, s);
    CHECK_FR(out, s[1]);
}

/* Optimized and plain permutations agree on fresh random full states (any domain tag). */
static void test_optimized_matches_plain(void)
{
    for (size_t k = 0; k < NARITIES; k++) {
        const czk_poseidon_params *p = czk_poseidon_params_get(ARITIES[k]);
        int rounds = ARITIES[k] <= 11 ? 40 : 8;
        for (int n = 0; n < rounds; n++) {
            czk_fr a[CZK_POSEIDON_MAX_WIDTH], b[CZK_POSEIDON_MAX_WIDTH];
            for (unsigned i = 0; i < p->t; i++) a[i] = b[i] = fr_random();
            if (n == 0)
                for (unsigned i = 0; i < p->t; i++) a[i] = b[i] = CZK_FR_ZERO; /* all-zero state */
            czk__poseidon_permute_plain(p, a);
            czk_poseidon_permute(p, b);
            for (unsigned i = 0; i < p->t; i++) CHECK_FR(a[i], b[i]);
        }
    }
}

/* x × pre × S_0 × ... × S_{R_P−1} = x × M^(R_P+1), the identity the sparse factorization
 * must satisfy (checked on random vectors, sparse matrices expanded from w_hat/v_rest). */
static void vec_mat_ref(czk_fr *s, const czk_fr *a, unsigned t)
{
    czk_fr out[CZK_POSEIDON_MAX_WIDTH], tmp;
    for (unsigned j = 0; j < t; j++) {
        out[j] = CZK_FR_ZERO;
        for (unsigned i = 0; i < t; i++) {
            czk_fr_mul(&tmp, &s[i], &a[i * t + j]);
            czk_fr_add(&out[j], &out[j], &tmp);
        }
    }
    memcpy(s, out, t * sizeof *s);
}

static void test_sparse_factorization(void)
{
    static czk_fr sparse[CZK_POSEIDON_MAX_WIDTH * CZK_POSEIDON_MAX_WIDTH];
    for (size_t k = 0; k < NARITIES; k++) {
        const czk_poseidon_params *p = czk_poseidon_params_get(ARITIES[k]);
        const unsigned t = p->t;
        czk_fr x[CZK_POSEIDON_MAX_WIDTH], y[CZK_POSEIDON_MAX_WIDTH];
        for (unsigned i = 0; i < t; i++) x[i] = y[i] = fr_random();
        vec_mat_ref(x, p->pre_sparse, t);
        for (unsigned r = 0; r < p->rp; r++) {
            for (unsigned i = 0; i < t; i++)
                for (unsigned j = 0; j < t; j++)
                    sparse[i * t + j] = i == j ? CZK_FR_ONE : CZK_FR_ZERO;
            for (unsigned i = 0; i < t; i++) sparse[i * t] = p->w_hat[r * t + i];
            for (unsigned j = 1; j < t; j++) sparse[j] = p->v_rest[r * (t - 1) + j - 1];
            vec_mat_ref(x, sparse, t);
        }
        for (unsigned r = 0; r <= p->rp; r++) vec_mat_ref(y, p->mds, t);
        for (unsigned i = 0; i < t; i++) CHECK_FR(x[i], y[i]);
    }
}

/* Generated by scripts/gen_poseidon.py (neptune's procedures run literally): per arity,
 * sum((i + 1)·x[i]) mod r over the compressed round constants, the pre-sparse matrix
 * (row-major), w_hat and v_rest (matrix after matrix). */
static const struct {
    unsigned arity;
    const char *sum[4];
} OPT_CHECKSUMS[] = {
    {2,
     {"6bdda96e58fb62792ad4cc8bbf9d6ca1bfe274f52f105ee7fc3145529cace282",
      "58865bbb118e5ba80602b206bc63404a92115f06d6695bd39bec2d83eea5a357",
      "24b25befe026142f4a80ea3de579e7f8cbb618be8d12704492fda557a3c88ba6",
      "1661fa66922d0be12eabaab5fddd882fe1fa6782829609b900614fc32b1f58e7"}},
    {4,
     {"1e6c87d478c353dd7270f813b4d12a8e08579d712bf51bb9afdcf9b870ad3bdd",
      "104bdf19673844b5ff325fd39fd1dcf5359b2f91434ba0d65d6b2c1d81f6287a",
      "20cd6b9ae9d3905a54b5d49051cc1656f1311a483f5b42df58b5eb30eb32bce4",
      "6a751e98b8e289e1721477f58c2cc2cd188591decaabb1c849949524361525d9"}},
    {8,
     {"355fc2f3e73b837c0211ec7da2c76ef9a7519fce12daac8059c6c4f523312e46",
      "2c6aff369bb87ed7cc9974249ea4f40dedac127b39813d3098e1aba6b7480a6b",
      "1c3875a737e6bc1f27727ac251f1dcbfe6e09a7351b8aeaf5e8e1a0cc89d67b3",
      "0077d2e39f5631fdff6ac93997fda6aec2fa4438a6700e6a36165ad8f33fb70a"}},
    {11,
     {"69bf7bc326c21a57f24964f841b1aee3495f979adbdecc6642cdf2a0f66630d1",
      "12c83dbec6d40c8201d3f3ba40f4e9aefa7e471dd03c960481258c9dc9230f8d",
      "12cca112a52da932ed1fb6dac8c67963b521d70a81bf7985f84cfaadb8c9b8c8",
      "1a62b132f611b00dce77b8a7a6b4470c998502b998f6185acbd162e78cb3a452"}},
    {16,
     {"3beb446c8ac18492bc8920c636b31313fa08233b7f607025184ea2fa6da639dc",
      "253ab5e31a602dd8ececfbcf9d090aa809d0a7f4b9b7a704db0d76d726898324",
      "4d5c17c79de8a84c830b6b35a507aa8f3c672a86b0fe4a6f9619aefe2cff318c",
      "622019e62555c5be4537afd7b2c65d14a7662aac33b08cb52e447a9797f4b031"}},
    {24,
     {"5efce2aa5e2a4cc61f117fc2cfb2e51f0385fc545c9d9b049530db4e2486502a",
      "1477c12d9fbb1913f727b52de8edb6aecbba6b463a1153d6eb7e7cf7fa053fbd",
      "3e0816aa1acc7776396f44f3aa4f3fdd84cab0be91f3fed9c7e49fceeaac895a",
      "12642200f49e0d39c32a394c195328d9348b72eb17eb5d40945a4d036258e0dd"}},
    {36,
     {"6270fbe832a891cc65ca19ebde3453d1b73d3f331d81af55bc085ecc1099f18a",
      "34c736843c789088ef4ad986d7391c1db0ab4735c170d80a7d32701e8ecfdac5",
      "523067eadabf785e4a5c34e332f4883c1595f72b063006407a6ad52961d7b982",
      "0d53bd4e625e46c38dda5011ae0fed046f4f436b00d93b9973770adbc2fd7bc9"}},
};

static czk_fr weighted_sum(const czk_fr *x, size_t n)
{
    czk_fr acc = CZK_FR_ZERO, w, tmp;
    for (size_t i = 0; i < n; i++) {
        czk_fr_from_u64(&w, i + 1);
        czk_fr_mul(&tmp, &w, &x[i]);
        czk_fr_add(&acc, &acc, &tmp);
    }
    return acc;
}

/* The lazily reduced dot product against per-product reduction, at its largest inputs
 * (every representation r − 1, the worst case of its overflow analysis), at zero and at
 * random values, for every length up to the widest state. */
static void test_lazy_dot(void)
{
    czk_fr a[CZK_POSEIDON_MAX_WIDTH], b[CZK_POSEIDON_MAX_WIDTH];
    for (int pass = 0; pass < 40; pass++) {
        for (unsigned i = 0; i < CZK_POSEIDON_MAX_WIDTH; i++) {
            if (pass == 0) {
                for (int k = 0; k < 4; k++) a[i].l[k] = b[i].l[k] = CZK_FR_MODULUS[k];
                a[i].l[0] -= 1; /* r − 1 as a raw representation */
                b[i].l[0] -= 1;
            } else if (pass == 1) {
                a[i] = b[i] = CZK_FR_ZERO;
            } else {
                a[i] = fr_random();
                b[i] = fr_random();
            }
        }
        for (unsigned n = 1; n <= CZK_POSEIDON_MAX_WIDTH; n++) {
            czk_fr want = CZK_FR_ZERO, tmp, got;
            for (unsigned i = 0; i < n; i++) {
                czk_fr_mul(&tmp, &a[i], &b[i]);
                czk_fr_add(&want, &want, &tmp);
            }
            czk__poseidon_dot(&got, a, b, n);
            CHECK_FR(got, want);
            /* The representation itself is reduced below r, as every czk_fr must be. */
            int k = 3;
            while (k > 0 && got.l[k] == CZK_FR_MODULUS[k]) k--;
            CHECK(got.l[k] < CZK_FR_MODULUS[k]);
        }
    }
}

static void test_optimized_constants_reference(void)
{
    for (size_t k = 0; k < NARITIES; k++) {
        const czk_poseidon_params *p = czk_poseidon_params_get(OPT_CHECKSUMS[k].arity);
        const size_t t = p->t, rp = p->rp;
        CHECK_FR(weighted_sum(p->crc, 8 * t + rp), fr_hex(OPT_CHECKSUMS[k].sum[0]));
        CHECK_FR(weighted_sum(p->pre_sparse, t * t), fr_hex(OPT_CHECKSUMS[k].sum[1]));
        CHECK_FR(weighted_sum(p->w_hat, rp * t), fr_hex(OPT_CHECKSUMS[k].sum[2]));
        CHECK_FR(weighted_sum(p->v_rest, rp * (t - 1)), fr_hex(OPT_CHECKSUMS[k].sum[3]));
    }
}

int main(void)
{
    czk_test_seed();
    RUN(test_concurrent_first_use);
    RUN(test_merkle_known_answers);
    RUN(test_constant_length);
    RUN(test_filecoin_hasher);
    RUN(test_custom_gen_randomness);
    RUN(test_column_hash);
    RUN(test_round_constants);
    RUN(test_round_numbers_and_mds);
    RUN(test_domain_tags);
    RUN(test_argument_checks);
    RUN(test_lazy_dot);
    RUN(test_optimized_matches_plain);
    RUN(test_sparse_factorization);
    RUN(test_optimized_constants_reference);
    return czk_test_finish();
}
