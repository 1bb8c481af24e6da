/*
 * Filecoin registry, porep_id / replica_id, ChaCha, and the SDR graph and parent caches.
 *
 * References, none of them this code's own output:
 *  - ChaCha: draft-strombergson-chacha-test-vectors-01 (8 and 20 rounds, 64-bit nonce =
 *    rand_chacha's stream), rand_chacha 0.3's own ChaCha20Rng tests (IETF draft vectors),
 *    and OpenSSL's ChaCha20 on random keys.
 *  - parents: the examples of docs/formats.md §5.5 (2 KiB V1_1, from a clean-room port
 *    that reproduced parent_cache.json).
 *  - parent caches: the SHA-256 digests and file names of rust-fil-proofs'
 *    storage-proofs-porep/parent_cache.json for 2 KiB and 8 MiB, V1 and V1_1.
 *  - replica_id: Python hashlib, one-off (inputs and outputs below).
 */
#include "czk/api_version.h"
#include "czk/parent_cache.h"
#include "czk/pool.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"
#include "czk_test.h"
#include "filecoin/seal/sdr_internal.h"

#include <math.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

static czk_pool *pool;

static void hex_decode(uint8_t *out, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void hex_encode(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* ------------------------------------------------------------------------------------- */

/* 128 bytes of keystream (blocks 0 and 1) for key and 64-bit nonce, from
 * draft-strombergson-chacha-test-vectors-01. */
static const struct {
    const char *key, *nonce;
    unsigned rounds;
    const char *stream;
} strombergson[] = {
    {"0000000000000000000000000000000000000000000000000000000000000000", "0000000000000000", 8,
     "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e"
     "984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42"
     "d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b"
     "5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa"},
    {"0000000000000000000000000000000000000000000000000000000000000000", "0000000000000000", 20,
     "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
     "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
     "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
     "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"},
    {"00112233445566778899aabbccddeeffffeeddccbbaa99887766554433221100", "0f1e2d3c4b5a6978", 8,
     "db43ad9d1e842d1272e4530e276b3f568f8859b3f7cf6d9d2c74fa53808cb515"
     "7a8ebf46ad3dcc4b6c7dadde131784b0120e0e22f6d5f9ffa7407d4a21b695d9"
     "c5dd30bf55612fab9bdd118920c19816470c7f5dcd42325dbbed8c57a56281c1"
     "44cb0f03e81b3004624e0650a1ce5afaf9a7cd8163f6dbd72602257dd96e471e"},
    {"00112233445566778899aabbccddeeffffeeddccbbaa99887766554433221100", "0f1e2d3c4b5a6978", 20,
     "9fadf409c00811d00431d67efbd88fba59218d5d6708b1d685863fabbb0e961e"
     "ea480fd6fb532bfd494b2151015057423ab60a63fe4f55f7a212e2167ccab931"
     "fbfd29cf7bc1d279eddf25dd316bb8843d6edee0bd1ef121d12fa17cbc2c574c"
     "ccab5e275167b08bd686f8a09df87ec3ffb35361b94ebfa13fec0e4889d18da5"},
    {"c46ec1b18ce8a878725a37e780dfb7351f68ed2e194c79fbc6aebee1a667975d", "1ada31d5cf688221", 8,
     "838751b42d8ddd8a3d77f48825a2ba752cf4047cb308a5978ef274973be374c9"
     "6ad848065871417b08f034e681fe46a93f7d5c61d1306614d4aaf257a7cff08b"
     "16f2fda170cc18a4b58a2667ed962774af792a6e7f3c77992540711a7a136d7e"
     "8a2f8d3f93816709d45a3fa5f8ce72fde15be7b841acba3a2abd557228d9fe4f"},
};

static void test_chacha_vectors(void)
{
    for (size_t v = 0; v < sizeof strombergson / sizeof strombergson[0]; v++) {
        uint8_t key[32], nonce[8], want[128], got[128];
        hex_decode(key, strombergson[v].key, 32);
        hex_decode(nonce, strombergson[v].nonce, 8);
        hex_decode(want, strombergson[v].stream, 128);
        uint64_t stream = 0;
        for (int i = 7; i >= 0; i--) stream = stream << 8 | nonce[i];
        czk__chacha_rng r;
        czk__chacha_rng_init(&r, key, stream, strombergson[v].rounds);
        czk__chacha_rng_bytes(&r, got, 128);
        CHECK_MSG(memcmp(got, want, 128) == 0, "vector %zu (%u rounds)", v, strombergson[v].rounds);
    }
}

/* rand_chacha 0.3 src/chacha.rs tests: ChaCha20Rng words after from_seed. */
static void test_chacha_rand_chacha(void)
{
    /* test_chacha_true_values_a: zero seed, words 0..31. */
    static const uint32_t a[32] = {
        0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0, 0xccef36a8,
        0xc70d778b, 0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8, 0xf4b8436a, 0x1ca11815,
        0x69b687c3, 0x8665eeb2, 0xbee7079f, 0x7a385155, 0x7c97ba98, 0x0d082d73, 0xa0290fcb,
        0x6965e348, 0x3e53c612, 0xed7aee32, 0x7621b729, 0x434ee69c, 0xb03371d5, 0xd539d874,
        0x281fed31, 0x45fb0a51, 0x1f0ae1ac, 0x6f4d794b};
    uint8_t seed[32] = {0};
    czk__chacha_rng r;
    czk__chacha_rng_init(&r, seed, 0, 20);
    for (int i = 0; i < 32; i++) CHECK(czk__chacha_rng_u32(&r) == a[i]);

    /* test_chacha_multiple_blocks: seed words 0..7, the i-th word of the i-th block. */
    static const uint32_t mb[16] = {0xf225c81a, 0x6ab1be57, 0x04d42951, 0x70858036,
                                    0x49884684, 0x64efec72, 0x4be2d186, 0x3615b384,
                                    0x11cfa18e, 0xd3c50049, 0x75c775f6, 0x434c6530,
                                    0x2c5bad8f, 0x898881dc, 0x5f1c86d9, 0xc1f8e7f4};
    for (int i = 0; i < 32; i++) seed[i] = (i % 4 == 0) ? (uint8_t)(i / 4) : 0;
    czk__chacha_rng_init(&r, seed, 0, 20);
    for (int i = 0; i < 16; i++) {
        CHECK(czk__chacha_rng_u32(&r) == mb[i]);
        for (int j = 0; j < 16; j++) (void)czk__chacha_rng_u32(&r);
    }

    /* next_u64 = two words, low first, also across a block boundary (word 15 | 16). */
    memset(seed, 0, 32);
    czk__chacha_rng_init(&r, seed, 0, 20);
    CHECK(czk__chacha_rng_u64(&r) == ((uint64_t)a[1] << 32 | a[0]));
    for (int i = 2; i < 15; i++) (void)czk__chacha_rng_u32(&r);
    CHECK(czk__chacha_rng_u64(&r) == ((uint64_t)a[16] << 32 | a[15]));
}

/* The 20-round path against OpenSSL's ChaCha20 on random keys and streams. OpenSSL's IV
 * is state words 12..15 (counter low, counter high, stream low, stream high), the same
 * layout rand_chacha uses; 8 blocks keep the counter in its low word. */
static void test_chacha_vs_openssl(void)
{
    for (int t = 0; t < 32; t++) {
        uint8_t key[32], iv[16] = {0}, zero[512] = {0}, want[512], got[512];
        czk_test_rand_bytes(key, 32);
        uint64_t stream = czk_test_rand64();
        for (int i = 0; i < 8; i++) iv[8 + i] = (uint8_t)(stream >> (8 * i));
        EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
        int len = 0;
        CHECK(EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key, iv) == 1);
        CHECK(EVP_EncryptUpdate(c, want, &len, zero, sizeof zero) == 1 && len == 512);
        EVP_CIPHER_CTX_free(c);
        czk__chacha_rng r;
        czk__chacha_rng_init(&r, key, stream, 20);
        czk__chacha_rng_bytes(&r, got, sizeof got);
        CHECK_MEM(got, want, sizeof got);
    }
}

/* ------------------------------------------------------------------------------------- */

static void test_registry(void)
{
    static const char *names[20] = {"StackedDrg2KiBV1",
                                    "StackedDrg8MiBV1",
                                    "StackedDrg512MiBV1",
                                    "StackedDrg32GiBV1",
                                    "StackedDrg64GiBV1",
                                    "StackedDrg2KiBV1_1",
                                    "StackedDrg8MiBV1_1",
                                    "StackedDrg512MiBV1_1",
                                    "StackedDrg32GiBV1_1",
                                    "StackedDrg64GiBV1_1",
                                    "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
                                    "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
                                    "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
                                    "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
                                    "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
                                    "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
                                    "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
                                    "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
                                    "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
                                    "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep"};
    static const uint64_t sizes[5] = {2048, 8ULL << 20, 512ULL << 20, 32ULL << 30, 64ULL << 30};
    for (unsigned i = 0; i < 20; i++) {
        const czk_seal_proof_info *info = czk_seal_proof_get((czk_seal_proof)i);
        CHECK(info != NULL && info->proof == (czk_seal_proof)i);
        CHECK(strcmp(czk_seal_proof_name((czk_seal_proof)i), names[i]) == 0);
        czk_seal_proof p;
        CHECK_STATUS(czk_seal_proof_parse(names[i], &p, NULL), CZK_OK);
        CHECK(p == (czk_seal_proof)i);
        char go[80];
        snprintf(go, sizeof go, "RegisteredSealProof_%s", names[i]);
        CHECK_STATUS(czk_seal_proof_parse(go, &p, NULL), CZK_OK);
        CHECK(p == (czk_seal_proof)i);

        bool prod = i % 5 >= 3;
        CHECK(info->sector_size == sizes[i % 5] && info->nodes == sizes[i % 5] / 32);
        CHECK(info->api_version == (i < 5    ? CZK_API_V1_0_0
                                    : i < 10 ? CZK_API_V1_1_0
                                             : CZK_API_V1_2_0));
        CHECK(info->layers == (prod ? 11u : 2u));
        CHECK(info->challenges_per_partition == (prod ? 18u : 2u));
        if (i >= 15) {
            CHECK(info->feature == CZK_SEAL_FEATURE_NON_INTERACTIVE);
            CHECK(info->partitions == (prod ? 126u : 13u));
            CHECK(info->min_challenges == (prod ? 2253u : 26u));
        } else {
            CHECK(info->partitions == (prod ? 10u : 1u));
            CHECK(info->min_challenges == (prod ? 176u : 2u));
        }
        CHECK(info->tree_base_arity == 8);
        CHECK(info->tree_sub_arity == (i % 5 >= 3 ? 8u : 0u));
        CHECK(info->tree_top_arity == (i % 5 == 4 ? 2u : 0u));
    }
    CHECK(czk_seal_proof_get(CZK_SEAL_PROOF_COUNT) == NULL);
    CHECK(czk_seal_proof_get((czk_seal_proof)-1) == NULL);
    CHECK(strcmp(czk_api_version_string(CZK_API_V1_1_0), "1.1.0") == 0);
    CHECK(strcmp(czk_api_version_string(CZK_API_V1_2_0), "1.2.0") == 0);
    CHECK(CZK_SEAL_StackedDrg32GiBV1_1 == 8 &&
          CZK_SEAL_StackedDrg64GiBV1_2_Feat_NonInteractivePoRep == 19);
}

static void test_parse_errors(void)
{
    const char *bad[] = {"",
                         "StackedDrg32GiB",
                         "stackeddrg32gibv1_1",
                         "StackedDrg32GiBV1_2",
                         "StackedDrg16GiBV1_1",
                         "StackedDrg32GiBV1_1 ",
                         "8",
                         "RegisteredSealProof_",
                         "StackedDrg2KiBV1_2_Feat_SyntheticPoRep"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        czk_err err;
        czk_seal_proof p = CZK_SEAL_StackedDrg2KiBV1_1;
        CHECK_STATUS(czk_seal_proof_parse(bad[i], &p, &err), CZK_EINVAL);
        CHECK(err.status == CZK_EINVAL);
        /* The message names the unknown name and the valid ones. */
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
        CHECK_MSG(strstr(err.msg, quoted) != NULL, "%s", err.msg);
        CHECK(strstr(err.msg, "V1_2_Feat_NonInteractivePoRep") != NULL);
        CHECK(strstr(err.msg, "512MiB") != NULL);
    }
    CHECK_STATUS(czk_seal_proof_parse(NULL, NULL, NULL), CZK_EINVAL);
}

static void test_porep_id(void)
{
    /* registry.rs porep_id: id u64 LE, nonce 0 u64 LE, 16 zero bytes. */
    uint8_t id[32];
    czk_seal_porep_id(id, CZK_SEAL_StackedDrg2KiBV1);
    for (int i = 0; i < 32; i++) CHECK(id[i] == 0);
    czk_seal_porep_id(id, CZK_SEAL_StackedDrg32GiBV1_1);
    char hex[65];
    hex_encode(hex, id, 32);
    CHECK(strcmp(hex, "0800000000000000000000000000000000000000000000000000000000000000") == 0);
    czk_seal_porep_id(id, CZK_SEAL_StackedDrg64GiBV1_2_Feat_NonInteractivePoRep);
    hex_encode(hex, id, 32);
    CHECK(strcmp(hex, "1300000000000000000000000000000000000000000000000000000000000000") == 0);
    czk_seal_porep_id(id, CZK_SEAL_StackedDrg512MiBV1_1_Feat_SyntheticPoRep);
    CHECK(id[0] == 12);
}

static void test_prover_id(void)
{
    /* Unsigned LEB128 (Go's binary.PutUvarint, the ID-address payload). */
    static const struct {
        uint64_t id;
        const char *hex;
    } cases[] = {{0, "00"},           {1, "01"},
                 {127, "7f"},         {128, "8001"},
                 {1000, "e807"},      {16384, "808001"},
                 {1234567, "87ad4b"}, {UINT64_MAX, "ffffffffffffffffff01"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t out[32], want[32] = {0};
        memset(out, 0xee, 32);
        czk_seal_prover_id_from_actor(out, cases[i].id);
        hex_decode(want, cases[i].hex, strlen(cases[i].hex) / 2);
        CHECK_MSG(memcmp(out, want, 32) == 0, "actor %" PRIu64, cases[i].id);
    }
}

static void test_replica_id(void)
{
    /* Expected values from Python, one-off:
     *   sha256(prover ‖ sector.to_bytes(8,'big') ‖ ticket ‖ comm_d ‖ porep), byte 31 &= 0x3f */
    uint8_t prover[32], ticket[32], comm_d[32], porep[32], out[32];
    char hex[65];
    czk_seal_prover_id_from_actor(prover, 1000);
    for (int i = 0; i < 32; i++) ticket[i] = (uint8_t)i;
    hex_decode(comm_d, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833", 32);
    czk_seal_porep_id(porep, CZK_SEAL_StackedDrg32GiBV1_1);
    CHECK_STATUS(czk_seal_replica_id(out, prover, 42, ticket, comm_d, porep, NULL), CZK_OK);
    hex_encode(hex, out, 32);
    CHECK_MSG(strcmp(hex, "009ebda45bef4d85d2173ce5b5543f31872e7781f198a0208fe9e5df5bce4d33") == 0,
              "%s", hex);

    memset(prover, 0xa5, 32);
    memset(ticket, 0xff, 32);
    memset(comm_d, 0, 32);
    czk_seal_porep_id(porep, CZK_SEAL_StackedDrg2KiBV1_2_Feat_NonInteractivePoRep);
    CHECK_STATUS(
        czk_seal_replica_id(out, prover, 0x0102030405060708ULL, ticket, comm_d, porep, NULL),
        CZK_OK);
    hex_encode(hex, out, 32);
    CHECK_MSG(strcmp(hex, "708d7870c0f857bc92f20a6070c2802af0ad54cb24c701d979ed48f0449d9613") == 0,
              "%s", hex);
}

/* ------------------------------------------------------------------------------------- */

static czk_sdr_graph *graph_for(czk_seal_proof p)
{
    czk_sdr_graph *g = NULL;
    czk_err err;
    czk_status s = czk_sdr_graph_create_for_proof(&g, p, &err);
    CHECK_MSG(s == CZK_OK, "%s", err.msg);
    return g;
}

static void test_spec_examples(void)
{
    /* docs/formats.md §5.5, StackedDrg2KiBV1_1. */
    static const struct {
        uint32_t node;
        uint32_t parents[14];
    } ex[] = {
        {2, {1, 1, 1, 0, 1, 0, 30, 28, 55, 63, 63, 36, 37, 36}},
        {3, {2, 1, 1, 2, 2, 2, 10, 46, 59, 7, 43, 29, 9, 16}},
        {63, {62, 15, 42, 62, 61, 62, 0, 15, 30, 30, 28, 42, 49, 38}},
    };
    czk_sdr_graph *g = graph_for(CZK_SEAL_StackedDrg2KiBV1_1);
    if (g == NULL) return;
    CHECK(czk_sdr_graph_nodes(g) == 64 && czk_sdr_graph_version(g) == CZK_API_V1_1_0);
    for (size_t i = 0; i < 3; i++) {
        uint32_t p[14];
        czk_sdr_parents(g, ex[i].node, p);
        CHECK_MSG(memcmp(p, ex[i].parents, sizeof p) == 0, "node %u", ex[i].node);
        uint32_t d[6], e[8];
        czk_sdr_drg_parents(g, ex[i].node, d);
        czk_sdr_exp_parents(g, ex[i].node, e);
        CHECK(memcmp(d, ex[i].parents, sizeof d) == 0 &&
              memcmp(e, ex[i].parents + 6, sizeof e) == 0);
    }
    /* Nodes 0 and 1: six DRG zeros. */
    uint32_t p[14];
    czk_sdr_parents(g, 0, p);
    for (int i = 0; i < 6; i++) CHECK(p[i] == 0);
    czk_sdr_parents(g, 1, p);
    for (int i = 0; i < 6; i++) CHECK(p[i] == 0);
    czk_sdr_graph_destroy(g);
}

/* V1.0 samples the same five DRG parents as V1.1 of the same porep_id, only the
 * predecessor moves from first to last; and the graph rejects bad sizes. */
static void test_versions_and_limits(void)
{
    uint8_t porep[32];
    czk_test_rand_bytes(porep, 32);
    czk_sdr_graph *g0 = NULL, *g1 = NULL;
    CHECK_STATUS(czk_sdr_graph_create(&g0, 1000, porep, CZK_API_V1_0_0, NULL), CZK_OK);
    CHECK_STATUS(czk_sdr_graph_create(&g1, 1000, porep, CZK_API_V1_1_0, NULL), CZK_OK);
    if (g0 != NULL && g1 != NULL) {
        for (uint32_t n = 2; n < 1000; n++) {
            uint32_t a[14], b[14];
            czk_sdr_parents(g0, n, a);
            czk_sdr_parents(g1, n, b);
            CHECK(a[5] == n - 1 && b[0] == n - 1);
            CHECK(memcmp(a, b + 1, 5 * sizeof a[0]) == 0);
            CHECK(memcmp(a + 6, b + 6, 8 * sizeof a[0]) == 0);
            for (int i = 0; i < 6; i++) CHECK(b[i] < n);
            for (int i = 6; i < 14; i++) CHECK(b[i] < 1000);
        }
    }
    czk_sdr_graph_destroy(g0);
    czk_sdr_graph_destroy(g1);

    czk_sdr_graph *g = NULL;
    czk_err err;
    CHECK_STATUS(czk_sdr_graph_create(&g, 1, porep, CZK_API_V1_1_0, &err), CZK_EINVAL);
    CHECK_STATUS(czk_sdr_graph_create(&g, 1ULL << 32, porep, CZK_API_V1_1_0, &err), CZK_EINVAL);
    CHECK_STATUS(czk_sdr_graph_create(&g, 64, porep, (czk_api_version)7, &err), CZK_EINVAL);
    CHECK(g == NULL);
}

/* n_buckets: the integer form equals rust-fil-proofs' ceil(log2(meta as f64)). */
static void test_bucket_count(void)
{
    for (uint64_t meta = 10; meta < (1u << 20); meta++)
        CHECK((uint64_t)ceil(log2((double)meta)) == 64 - (uint64_t)__builtin_clzll(meta - 1));
    for (int k = 4; k < 36; k++) {
        for (int64_t d = -3; d <= 3; d++) {
            uint64_t meta = (1ULL << k) + (uint64_t)d;
            CHECK((uint64_t)ceil(log2((double)meta)) == 64 - (uint64_t)__builtin_clzll(meta - 1));
        }
    }
    for (int i = 0; i < 100000; i++) {
        uint64_t meta = 10 + czk_test_rand64() % ((5ULL << 32) - 10);
        CHECK((uint64_t)ceil(log2((double)meta)) == 64 - (uint64_t)__builtin_clzll(meta - 1));
    }
}

/* The Feistel table against freshly hashed round functions, and permutation sanity. */
static void test_feistel(void)
{
    czk_sdr_graph *g = graph_for(CZK_SEAL_StackedDrg32GiBV1_1);
    if (g == NULL) return;
    CHECK(g->half_bits == 17 && g->exp_nodes == 1ULL << 33);
    size_t width = (size_t)1 << g->half_bits;
    for (int t = 0; t < 300; t++) {
        unsigned round = (unsigned)(t % 3);
        uint64_t r = czk_test_rand64() & g->right_mask;
        uint64_t f = 0;
        CHECK_STATUS(czk__feistel_round_hash(&f, r, g->feistel_keys[round], g->right_mask), CZK_OK);
        CHECK(f == g->round_tab[round * width + r]);
    }
    /* Production graph: expander parents reach the upper half (V1.1 lifted the u32
     * truncation), V1 never does (rust-fil-proofs test_graph_distribution_pathology). */
    bool high = false;
    for (uint32_t n = 0; n < 1000 && !high; n++) {
        uint32_t e[8];
        czk_sdr_exp_parents(g, n, e);
        for (int i = 0; i < 8; i++) high |= e[i] >= (1u << 29);
    }
    CHECK(high);
    czk_sdr_graph_destroy(g);
    g = graph_for(CZK_SEAL_StackedDrg32GiBV1);
    if (g == NULL) return;
    for (uint32_t n = 0; n < 1000; n++) {
        uint32_t e[8];
        czk_sdr_exp_parents(g, n, e);
        for (int i = 0; i < 8; i++) CHECK(e[i] < (1u << 29));
    }
    czk_sdr_graph_destroy(g);

    /* On a small graph the walk is a permutation of [0, 8·nodes). */
    uint8_t porep[32];
    czk_test_rand_bytes(porep, 32);
    g = NULL;
    CHECK_STATUS(czk_sdr_graph_create(&g, 3000, porep, CZK_API_V1_1_0, NULL), CZK_OK);
    if (g == NULL) return;
    uint8_t *seen = calloc(24000, 1);
    for (uint64_t i = 0; i < 24000; i++) {
        uint64_t u = czk__sdr_feistel_permute(g, i);
        CHECK(u < 24000);
        if (u < 24000) seen[u]++;
    }
    for (size_t i = 0; i < 24000; i++) CHECK(seen[i] == 1);
    free(seen);
    czk_sdr_graph_destroy(g);
}

/* The bulk generator (threaded) equals the per-node function. */
static void test_range(void)
{
    czk_sdr_graph *g = graph_for(CZK_SEAL_StackedDrg8MiBV1_1);
    if (g == NULL) return;
    uint64_t first = 100000, count = 20000;
    uint32_t *out = malloc(count * 14 * sizeof(uint32_t));
    CHECK_STATUS(czk_sdr_parents_range(g, first, count, out, pool, NULL), CZK_OK);
    for (uint64_t i = 0; i < count; i += 7) {
        uint32_t p[14];
        czk_sdr_parents(g, (uint32_t)(first + i), p);
        CHECK(memcmp(p, out + i * 14, sizeof p) == 0);
    }
    czk_err err;
    CHECK_STATUS(czk_sdr_parents_range(g, (1u << 18) - 5, 6, out, pool, &err), CZK_EINVAL);
    free(out);
    czk_sdr_graph_destroy(g);
}

/* ------------------------------------------------------------------------------------- */

/* parent_cache.json (rust-fil-proofs @ 87348a74): file names and digests. */
static const struct {
    czk_seal_proof proof;
    const char *name, *digest;
} json_entries[] = {
    {CZK_SEAL_StackedDrg2KiBV1,
     "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
     "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"},
    {CZK_SEAL_StackedDrg2KiBV1_1,
     "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
     "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"},
    {CZK_SEAL_StackedDrg8MiBV1,
     "v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc",
     "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"},
    {CZK_SEAL_StackedDrg8MiBV1_1,
     "v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5",
     "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab"},
    /* Larger sizes: only the names are checked here. */
    {CZK_SEAL_StackedDrg512MiBV1,
     "v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42", NULL},
    {CZK_SEAL_StackedDrg512MiBV1_1,
     "v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34", NULL},
    {CZK_SEAL_StackedDrg32GiBV1,
     "v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13", NULL},
    {CZK_SEAL_StackedDrg32GiBV1_1,
     "v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117", NULL},
    {CZK_SEAL_StackedDrg64GiBV1,
     "v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6", NULL},
    {CZK_SEAL_StackedDrg64GiBV1_1,
     "v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b", NULL},
};

static void test_cache_names(void)
{
    for (size_t i = 0; i < sizeof json_entries / sizeof json_entries[0]; i++) {
        czk_sdr_graph *g = graph_for(json_entries[i].proof);
        if (g == NULL) continue;
        char name[CZK_PARENT_CACHE_NAME_SIZE], want[128];
        CHECK_STATUS(czk_parent_cache_name(g, name, NULL), CZK_OK);
        snprintf(want, sizeof want, "%s.cache", json_entries[i].name);
        CHECK_MSG(strcmp(name, want) == 0, "%s: %s", czk_seal_proof_name(json_entries[i].proof),
                  name);
        CHECK(czk_parent_cache_known_digest(name) != NULL);
        czk_sdr_graph_destroy(g);
    }
    /* Lookups: with a directory, without ".cache", and misses. */
    CHECK(czk_parent_cache_known_digest(
              "/x/y/"
              "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b."
              "cache") != NULL);
    CHECK(czk_parent_cache_known_digest(
              "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b") !=
          NULL);
    CHECK(czk_parent_cache_known_digest(
              "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554") ==
          NULL);
    CHECK(czk_parent_cache_known_digest("") == NULL);
    /* Synthetic and NI proofs have their own porep_id, so their own (unlisted) caches. */
    czk_sdr_graph *g = graph_for(CZK_SEAL_StackedDrg2KiBV1_1_Feat_SyntheticPoRep);
    if (g != NULL) {
        char name[CZK_PARENT_CACHE_NAME_SIZE];
        CHECK_STATUS(czk_parent_cache_name(g, name, NULL), CZK_OK);
        CHECK(czk_parent_cache_known_digest(name) == NULL);
        czk_sdr_graph_destroy(g);
    }
}

static void test_cache_dir(void)
{
    char dir[256];
    CHECK_STATUS(czk_parent_cache_dir(NULL, NULL, dir, sizeof dir, NULL), CZK_OK);
    CHECK(strcmp(dir, "/var/tmp/filecoin-parents") == 0);
    CHECK_STATUS(czk_parent_cache_dir("", "", dir, sizeof dir, NULL), CZK_OK);
    CHECK(strcmp(dir, "/var/tmp/filecoin-parents") == 0);
    CHECK_STATUS(czk_parent_cache_dir(NULL, "/srv/cache/", dir, sizeof dir, NULL), CZK_OK);
    CHECK(strcmp(dir, "/srv/cache/filecoin-parents") == 0);
    CHECK_STATUS(czk_parent_cache_dir("/data/parents", "/srv/cache/", dir, sizeof dir, NULL),
                 CZK_OK);
    CHECK(strcmp(dir, "/data/parents") == 0);
    CHECK_STATUS(czk_parent_cache_dir("/data/parents", NULL, dir, 5, NULL), CZK_EINVAL);
    czk_sdr_graph *g = graph_for(CZK_SEAL_StackedDrg2KiBV1);
    if (g != NULL) {
        char path[256];
        const char *name = "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167c"
                           "ec18cd81764f6d998836c9899.cache";
        CHECK_STATUS(czk_parent_cache_path(g, "/data/parents", path, sizeof path, NULL), CZK_OK);
        CHECK(strcmp(path + strlen("/data/parents/"), name) == 0);
        CHECK(strncmp(path, "/data/parents/", strlen("/data/parents/")) == 0);
        /* a directory given with its trailing slash gets no second one */
        CHECK_STATUS(czk_parent_cache_path(g, "/data/parents/", path, sizeof path, NULL), CZK_OK);
        CHECK(strncmp(path, "/data/parents/v28", 17) == 0);
        CHECK_STATUS(czk_parent_cache_path(g, "/data/parents", path, 20, NULL), CZK_EINVAL);
        czk_sdr_graph_destroy(g);
    }
}

/* Generate the 2 KiB and 8 MiB caches into a scratch directory and compare the file's
 * SHA-256 with parent_cache.json. */
static void test_cache_digests(void)
{
    char dir[] = "/tmp/czk-test-sdr-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    for (size_t i = 0; i < 4; i++) {
        czk_sdr_graph *g = graph_for(json_entries[i].proof);
        if (g == NULL) continue;
        char path[256];
        snprintf(path, sizeof path, "%s/sub/%s.cache", dir, json_entries[i].name);
        uint8_t d[32], f[32];
        char hex[65];
        czk_err err;
        czk_status s = czk_parent_cache_generate(g, path, pool, 0, d, &err);
        CHECK_MSG(s == CZK_OK, "%s", err.msg);
        hex_encode(hex, d, 32);
        CHECK_MSG(strcmp(hex, json_entries[i].digest) == 0, "%s: %s",
                  czk_seal_proof_name(json_entries[i].proof), hex);
        /* The file on disk: right size, same digest read back. */
        struct stat st;
        CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size == czk_sdr_graph_nodes(g) * 56);
        CHECK_STATUS(czk_parent_cache_file_digest(path, f, NULL), CZK_OK);
        CHECK(memcmp(d, f, 32) == 0);
        /* The streamed digest, on one thread, agrees. */
        CHECK_STATUS(czk_parent_cache_compute_digest(g, NULL, 0, f, NULL), CZK_OK);
        CHECK(memcmp(d, f, 32) == 0);
        unlink(path);
        czk_sdr_graph_destroy(g);
    }
    /* No temporary files left behind. */
    char sub[300];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    CHECK(rmdir(sub) == 0);
    CHECK(rmdir(dir) == 0);
    uint8_t d[32];
    CHECK_STATUS(czk_parent_cache_file_digest("/nonexistent/czk", d, NULL), CZK_ENOENT);
}

int main(void)
{
    czk_test_seed();
    if (czk_pool_create(&pool, 0, NULL) != CZK_OK) return 1;
    RUN(test_chacha_vectors);
    RUN(test_chacha_rand_chacha);
    RUN(test_chacha_vs_openssl);
    RUN(test_registry);
    RUN(test_parse_errors);
    RUN(test_porep_id);
    RUN(test_prover_id);
    RUN(test_replica_id);
    RUN(test_spec_examples);
    RUN(test_versions_and_limits);
    RUN(test_bucket_count);
    RUN(test_feistel);
    RUN(test_range);
    RUN(test_cache_names);
    RUN(test_cache_dir);
    RUN(test_cache_digests);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
