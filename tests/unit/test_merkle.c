/*
 * SHA-256 helpers, fr32 padding, the Merkle trees of a sector and the commitments built
 * from them, against published answers and independent references:
 *
 *   - SHA-256: FIPS 180-2 vectors; node hashing against OpenSSL's one-shot EVP_Digest.
 *   - Zero ladder: every entry of go-commp-utils' zerocomm.PieceComms (zero-piece
 *     commitments of 2^7 .. 2^41 bytes), rust-fil-proofs' test_compute_comm_d_empty
 *     (2 KiB and 128 B), and the ladder base f5a5fd42… of docs/formats.md §5.6.
 *   - comm_p: go-commp-utils commp_test.go TestZeroPadding ("i am the biggest cat…" in a
 *     127-byte piece, and its 4× zero-padded form); go-fil-commcid's fixture
 *     "127OfEach0-1-2-3"; zero pieces against the table.
 *   - comm_d from pieces: go-commp-utils commd_test.go TestGenerateUnsealedCID (a live
 *     32 GiB mainnet sector, f01392893 sector 139074, from its ten deal pieces), and
 *     rust-fil-proofs tests/pieces.rs test_verify_simple_pieces / _padded_pieces.
 *   - tree_d of random data against a recursive SHA-256 Merkle root written here on
 *     EVP_Digest; every storage option, one thread and a pool.
 *   - Poseidon trees of shapes 8-0-0, 8-8-0, 8-8-2 (and 2-, 4-, 16-ary bases) against a
 *     recursive root built the way merkletree's from_trees / from_sub_trees compose
 *     trees, hashing with the plain (unoptimized) permutation; rust-fil-proofs'
 *     test_poseidon_hasher tree over [1, 0, 0, 1].
 *   - Inclusion paths for every shape and storage option: they verify, and tampering
 *     with any part (sibling, leaf, index, leaf index, root) makes them fail.
 *   - fr32: rust-fil-proofs fr32 reader.rs test_exotic, test_simple_single and
 *     test_simple_127 byte for byte; random data against a bit-by-bit reference; round
 *     trips with offsets; the sizes of padding.rs.
 */
#include "czk/bls12_381.h"
#include "czk/comm.h"
#include "czk/fr32.h"
#include "czk/merkle.h"
#include "czk/pool.h"
#include "czk/poseidon.h"
#include "czk/seal_proof.h"
#include "czk_test.h"
#include "hash/poseidon_internal.h"

#include <openssl/evp.h>

static czk_pool *pool4;

static void hex_to_bytes(uint8_t *out, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* A big-endian field value in hex ("0x…") as its 32-byte little-endian repr. */
static void be_hex_to_le(uint8_t out[32], const char *hex)
{
    uint8_t be[32];
    if (hex[0] == '0' && hex[1] == 'x') hex += 2;
    hex_to_bytes(be, hex, 32);
    for (int i = 0; i < 32; i++) out[i] = be[31 - i];
}

static bool eq_hex(const uint8_t *got, const char *hex)
{
    uint8_t want[64];
    size_t n = strlen(hex) / 2;
    hex_to_bytes(want, hex, n);
    return memcmp(got, want, n) == 0;
}

static void rand_fr_bytes(uint8_t *out, size_t n)
{
    czk_test_rand_bytes(out, 32 * n);
    for (size_t i = 0; i < n; i++) out[32 * i + 31] &= 0x3f; /* < 2^254 < r */
}

/* ---------------------------------------------------------------------------------------
 * Independent references
 * ------------------------------------------------------------------------------------- */

/* trunc254(SHA-256(a ‖ b)) with OpenSSL's one-shot API, not czk's code path. */
static void ref_sha_node(uint8_t out[32], const uint8_t a[32], const uint8_t b[32])
{
    uint8_t buf[64];
    unsigned len;
    memcpy(buf, a, 32);
    memcpy(buf + 32, b, 32);
    EVP_Digest(buf, 64, out, &len, EVP_sha256(), NULL);
    out[31] &= 0x3f;
}

static void ref_sha_root(uint8_t out[32], const uint8_t *leaves, uint64_t n)
{
    if (n == 1) {
        memcpy(out, leaves, 32);
        return;
    }
    uint8_t l[32], r[32];
    ref_sha_root(l, leaves, n / 2);
    ref_sha_root(r, leaves + 32 * (n / 2), n / 2);
    ref_sha_node(out, l, r);
}

/* Poseidon Merkle node with the plain permutation. */
static void ref_poseidon_node(uint8_t out[32], unsigned arity, const uint8_t *children)
{
    const czk_poseidon_params *p = czk_poseidon_params_get(arity);
    czk_fr st[CZK_POSEIDON_MAX_WIDTH];
    st[0] = p->merkle_tag;
    for (unsigned i = 0; i < arity; i++) CHECK(czk_fr_from_bytes_le(&st[1 + i], children + 32 * i));
    czk__poseidon_permute_plain(p, st);
    czk_fr_to_bytes_le(out, &st[1]);
}

/* The root of `levels` levels whose arities are ar[0] (bottom) .. ar[levels−1] (top),
 * composed top-down: the top node hashes the roots of ar[top] trees over consecutive
 * equal slices of the leaves (merkletree from_trees / from_sub_trees). */
static void ref_poseidon_root(uint8_t out[32], const uint8_t *leaves, uint64_t n,
                              const unsigned *ar, unsigned levels)
{
    if (levels == 0) {
        memcpy(out, leaves, 32);
        return;
    }
    unsigned a = ar[levels - 1];
    uint8_t kids[16 * 32];
    for (unsigned i = 0; i < a; i++)
        ref_poseidon_root(kids + 32 * i, leaves + 32 * (n / a) * i, n / a, ar, levels - 1);
    ref_poseidon_node(out, a, kids);
}

/* fr32 padding bit by bit: raw bit k goes to bit k mod 254 of element k / 254. */
static void ref_fr32_pad(uint8_t *out, const uint8_t *in, size_t n)
{
    size_t nel = (8 * n + 253) / 254;
    memset(out, 0, 32 * nel);
    for (size_t k = 0; k < 8 * n; k++) {
        if ((in[k / 8] >> (k % 8)) & 1) {
            size_t e = k / 254, b = k % 254;
            out[32 * e + b / 8] |= (uint8_t)(1u << (b % 8));
        }
    }
}

/* ---------------------------------------------------------------------------------------
 * SHA-256
 * ------------------------------------------------------------------------------------- */

static void test_sha256_vectors(void)
{
    uint8_t h[32];
    CHECK_STATUS(czk_sha256(h, "abc", 3), CZK_OK);
    CHECK(eq_hex(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    CHECK_STATUS(czk_sha256(h, "", 0), CZK_OK);
    CHECK(eq_hex(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK_STATUS(czk_sha256(h, m, strlen(m)), CZK_OK);
    CHECK(eq_hex(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    /* Truncation clears exactly the two top bits of byte 31 (0xc1 → 0x01). */
    CHECK_STATUS(czk_sha256_trunc(h, m, strlen(m)), CZK_OK);
    CHECK(eq_hex(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db0601"));
    uint8_t t[32];
    memset(t, 0xff, 32);
    czk_fr32_trim(t);
    CHECK(t[31] == 0x3f && t[30] == 0xff);
}

static void test_sha256_nodes(void)
{
    enum { N = 37 };
    static uint8_t in[64 * N], out[32 * N], inplace[64 * N];
    czk_test_rand_bytes(in, sizeof in);
    memcpy(inplace, in, sizeof in);
    CHECK_STATUS(czk_sha256_nodes(out, in, N), CZK_OK);
    CHECK_STATUS(czk_sha256_nodes(inplace, inplace, N), CZK_OK);
    for (int i = 0; i < N; i++) {
        uint8_t want[32];
        ref_sha_node(want, in + 64 * i, in + 64 * i + 32);
        CHECK_MEM(out + 32 * i, want, 32);
        CHECK_MEM(inplace + 32 * i, want, 32);
    }
}

/* ---------------------------------------------------------------------------------------
 * Zero ladder and commitments
 * ------------------------------------------------------------------------------------- */

/* go-commp-utils zerocomm/zerocomm.go PieceComms (v2 @ 3493ca3): the commitment of a
 * zero piece of 2^k padded bytes, k = 7 .. 41 (the first entry is 128 bytes). */
static const char *const PIECE_COMMS[] = {
    "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333", /* 2^7 */
    "642a607ef886b004bf2c1978463ae1d4693ac0f410eb2d1b7a47fe205e5e750f", /* 2^8 */
    "57a2381a28652bf47f6bef7aca679be4aede5871ab5cf3eb2c08114488cb8526", /* 2^9 */
    "1f7ac9595510e09ea41c460b176430bb322cd6fb412ec57cb17d989a4310372f", /* 2^10 */
    "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833", /* 2^11 */
    "08c47b38ee13bc43f41b915c0eed9911a26086b3ed62401bf9d58b8d19dff624", /* 2^12 */
    "b2e47bfb11facd941f62af5c750f3ea5cc4df517d5c4f16db2b4d77baec1a32f", /* 2^13 */
    "f9226160c8f927bfdcc418cdf203493146008eaefb7d02194d5e548189005108", /* 2^14 */
    "2c1a964bb90b59ebfe0f6da29ad65ae3e417724a8f7c11745a40cac1e5e74011", /* 2^15 */
    "fee378cef16404b199ede0b13e11b624ff9d784fbbed878d83297e795e024f02", /* 2^16 */
    "8e9e2403fa884cf6237f60df25f83ee40dca9ed879eb6f6352d15084f5ad0d3f", /* 2^17 */
    "752d9693fa167524395476e317a98580f00947afb7a30540d625a9291cc12a07", /* 2^18 */
    "7022f60f7ef6adfa17117a52619e30cea82c68075adf1c667786ec506eef2d19", /* 2^19 */
    "d99887b973573a96e11393645236c17b1f4c7034d723c7a99f709bb4da61162b", /* 2^20 */
    "d0b530dbb0b4f25c5d2f2a28dfee808b53412a02931f18c499f5a254086b1326", /* 2^21 */
    "84c0421ba0685a01bf795a2344064fe424bd52a9d24377b394ff4c4b4568e811", /* 2^22 */
    "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c", /* 2^23 */
    "a2247508285850965b7e334b3127b0c042b1d046dc54402137627cd8799ce13a", /* 2^24 */
    "dafdab6da9364453c26d33726b9fefe343be8f81649ec009aad3faff50617508", /* 2^25 */
    "d941d5e0d6314a995c33ffbd4fbe69118d73d4e5fd2cd31f0f7c86ebdd14e706", /* 2^26 */
    "514c435c3d04d349a5365fbd59ffc713629111785991c1a3c53af22079741a2f", /* 2^27 */
    "ad06853969d37d34ff08e09f56930a4ad19a89def60cbfee7e1d3381c1e71c37", /* 2^28 */
    "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06", /* 2^29 */
    "ccc3c012f5b05e811a2bbfdd0f6833b84275b47bf229c0052a82484f3c1a5b3d", /* 2^30 */
    "7df29b69773199e8f2b40b77919d048509eed768e2c7297b1f1437034fc3c62c", /* 2^31 */
    "66ce05a3667552cf45c02bcc4e8392919bdeac35de2ff56271848e9f7b675107", /* 2^32 */
    "d8610218425ab5e95b1ca6239d29a2e420d706a96f373e2f9c9a91d759d19b01", /* 2^33 */
    "6d364b1ef846441a5a4a68862314acc0a46f016717e53443e839eedf83c2853c", /* 2^34 */
    "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e", /* 2^35 */
    "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02", /* 2^36 */
    "259d3d6b1f4d876d1185e1123af6f5501af0f67cf15b5216255b7b178d12051d", /* 2^37 */
    "3f9a4d411da4ef1b36f35ff0a195ae392ab23fee7967b7c41b03d1613fc29239", /* 2^38 */
    "fe4ef328c61aa39cfdb2484eaa32a151b1fe3dfd1f96dd8c9711fd86d6c58113", /* 2^39 */
    "f55d68900e2d8381eccb8164cb9976f24b2de0dd61a31b97ce6eb23850d5e819", /* 2^40 */
    "aaaa8c4cb40aacee1e02dc65424b2a6c8e99f803b72f7929c4101d7fae6bff32", /* 2^41 */
};
#define NPIECE_COMMS (sizeof PIECE_COMMS / sizeof PIECE_COMMS[0])

static void test_zero_ladder(void)
{
    uint8_t z[32], zero[32] = {0};
    CHECK_STATUS(czk_comm_zero(z, 0), CZK_OK);
    CHECK_MEM(z, zero, 32);
    /* docs/formats.md §5.6 (also curio lib/proof/treed_build_test.go). */
    CHECK_STATUS(czk_comm_zero(z, 1), CZK_OK);
    CHECK(eq_hex(z, "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b"));
    for (unsigned i = 0; i < NPIECE_COMMS; i++) {
        CHECK_STATUS(czk_comm_zero(z, i + 2), CZK_OK);
        CHECK_MSG(eq_hex(z, PIECE_COMMS[i]), "zero piece of 2^%u bytes", i + 7);
        CHECK_STATUS(czk_comm_d_zero(z, UINT64_C(1) << (i + 7), NULL), CZK_OK);
        CHECK(eq_hex(z, PIECE_COMMS[i]));
    }
    /* Beyond the table: each level is the hash of the previous one twice. */
    uint8_t prev[32], want[32];
    CHECK_STATUS(czk_comm_zero(prev, 0), CZK_OK);
    for (unsigned k = 1; k < 64; k++) {
        ref_sha_node(want, prev, prev);
        CHECK_STATUS(czk_comm_zero(z, k), CZK_OK);
        CHECK_MEM(z, want, 32);
        memcpy(prev, z, 32);
    }
    CHECK_STATUS(czk_comm_zero(z, 64), CZK_EINVAL);
    /* rust-fil-proofs filecoin-proofs/tests/pieces.rs test_compute_comm_d_empty. */
    static const uint8_t comm_d_2k[32] = {252, 126, 146, 130, 150, 229, 22,  250, 173, 233, 134,
                                          178, 143, 146, 212, 74,  79,  36,  185, 53,  72,  82,
                                          35,  55,  106, 121, 144, 39,  188, 24,  248, 51};
    CHECK_STATUS(czk_comm_d_from_pieces(z, 2048, NULL, 0, NULL), CZK_OK);
    CHECK_MEM(z, comm_d_2k, 32);
    CHECK_STATUS(czk_comm_d_from_pieces(z, 128, NULL, 0, NULL), CZK_OK);
    CHECK(eq_hex(z, "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333"));
    /* Every registered sector size. */
    for (unsigned p = 0; p < CZK_SEAL_PROOF_COUNT; p++) {
        const czk_seal_proof_info *info = czk_seal_proof_get((czk_seal_proof)p);
        unsigned lg = (unsigned)__builtin_ctzll(info->sector_size);
        CHECK_STATUS(czk_comm_d_zero(z, info->sector_size, NULL), CZK_OK);
        CHECK(eq_hex(z, PIECE_COMMS[lg - 7]));
    }
    CHECK_STATUS(czk_comm_d_zero(z, 3000, NULL), CZK_EINVAL);
    CHECK_STATUS(czk_comm_d_zero(z, 16, NULL), CZK_EINVAL);
}

static void test_comm_p_vectors(void)
{
    /* go-commp-utils commp_test.go TestZeroPadding: the CID
     * baga6ea4seaqozp3abki6vgdf7ztbipcycmxfyt2o64cpuyvdkczsjxsg7bqmioi, "value calculated
     * using separate tooling", whose digest (after the CID prefix 01 81e203 922020) is: */
    static uint8_t data[127 * 4];
    const char *content = "i am the biggest cat, what do you think about that";
    memcpy(data, content, strlen(content));
    uint8_t c[32], d[32];
    CHECK_STATUS(czk_comm_p(c, data, 127, NULL, NULL), CZK_OK);
    CHECK(eq_hex(c, "ecbf600a91ea9865fe66143c58132e5c4f4ef704fa62a350b324de46f860c439"));
    /* The same test: the 4× piece with the content up front equals the small piece
     * zero-padded to that size (ZeroPadPieceCommitment), i.e. followed by zero pieces of
     * 128 and 256 bytes. (compute_comm_d does not pad up to the sector by itself: a
     * lone piece is its own comm_d.) */
    czk_comm_piece_info pi[3] = {{.padded_size = 128}, {.padded_size = 128}, {.padded_size = 256}};
    memcpy(pi[0].comm_p, c, 32);
    CHECK_STATUS(czk_comm_d_from_pieces(d, 512, pi, 1, NULL), CZK_OK);
    CHECK_MEM(d, c, 32);
    CHECK_STATUS(czk_comm_d_zero(pi[1].comm_p, 128, NULL), CZK_OK);
    CHECK_STATUS(czk_comm_d_zero(pi[2].comm_p, 256, NULL), CZK_OK);
    CHECK_STATUS(czk_comm_p(c, data, 127 * 4, pool4, NULL), CZK_OK);
    CHECK_STATUS(czk_comm_d_from_pieces(d, 512, pi, 3, NULL), CZK_OK);
    CHECK_MEM(c, d, 32);
    /* go-fil-commcid commcid_test.go fixture "127OfEach0-1-2-3": 127 bytes each of 0, 1,
     * 2 and 3, CID baga6ea4seaqes3nobte6ezpp4wqan2age2s5yxcatzotcvobhgcmv5wi2xh5mbi. */
    for (int i = 0; i < 4; i++) memset(data + 127 * i, i, 127);
    CHECK_STATUS(czk_comm_p(c, data, 127 * 4, NULL, NULL), CZK_OK);
    CHECK(eq_hex(c, "496dae0cc9e265efe5a006e80626a5dc5c409e5d3155c13984caf6c8d5cfd605"));
    /* Zero pieces of 4 KiB and 2 MiB (the latter spans 16 chunks) against the table. */
    uint8_t *zeros = calloc(127 << 14, 1);
    CHECK_STATUS(czk_comm_p(c, zeros, 127 * 32, NULL, NULL), CZK_OK);
    CHECK(eq_hex(c, PIECE_COMMS[12 - 7]));
    CHECK_STATUS(czk_comm_p(c, zeros, 127 << 14, pool4, NULL), CZK_OK);
    CHECK(eq_hex(c, PIECE_COMMS[21 - 7]));
    free(zeros);
    /* Random data: chunked comm_p = the tree over the whole padded piece. */
    size_t raw = 127 << 13;
    uint8_t *rd = malloc(raw), *padded = malloc(raw / 127 * 128);
    czk_test_rand_bytes(rd, raw);
    czk_fr32_pad(padded, rd, raw);
    uint8_t want[32];
    ref_sha_root(want, padded, raw / 127 * 4);
    CHECK_STATUS(czk_comm_p(c, rd, raw, pool4, NULL), CZK_OK);
    CHECK_MEM(c, want, 32);
    CHECK_STATUS(czk_comm_p(c, rd, raw, NULL, NULL), CZK_OK);
    CHECK_MEM(c, want, 32);
    free(rd);
    free(padded);
    CHECK_STATUS(czk_comm_p(c, data, 254 + 127, NULL, NULL), CZK_EINVAL);
    CHECK_STATUS(czk_comm_p(c, data, 100, NULL, NULL), CZK_EINVAL);
    CHECK_STATUS(czk_comm_p(c, data, 0, NULL, NULL), CZK_EINVAL);
}

static void test_comm_d_live_sector(void)
{
    /* go-commp-utils commd_test.go TestGenerateUnsealedCID: mainnet sector f01392893
     * 139074 (32 GiB), CommD baga6ea4seaqiw3gbmstmexb7sqwkc5r23o3i7zcyx5kr76pfobpykes3af62kca,
     * from its ten deals' piece CIDs plus zero pieces of 8 and 16 GiB; digests decoded
     * from the CIDs (baga… = 01 81e203 922020 ‖ digest). */
    static const struct {
        const char *comm;
        uint64_t size;
    } pieces[] = {
        {"a6e59ad224d3caf3d4b836db9d5171661c8d69a10db45f4d482029c207952c1f", 256 << 20},
        {"d879ddb50961bea8c38056bb911be0d72b3e31ea6d2304c1430b98561ad3a219", 1024 << 20},
        {"f45d5c4142ac826ed9e99c093e9e3c65ae16034e37cab742816c2fa1368fce32", 512 << 20},
        {"0bd89d1e3cd9ed4eecda69b3357c2f042add60ec54c0c0b96d3c91a2f04d9026", 512 << 20},
        {"fc6f6d09240e0fce9eb062531cde393f8182e2333ee98b74e046d84c6e958001", 1024 << 20},
        {"f3d6bcbea5aaff0a30b7434b4a52e61190df40af29a96a89a15aff4cd5768d00", 256 << 20},
        {"5ed3bdcb55e4d8e3944e4dfc8cc9d843a3154ddf2b5b5fe17c546367e605300f", 512 << 20},
        {"0dc0200c82caaba48fa2792733ff0247af26a2e670319ad2684e64d015259715", 1024 << 20},
        {"822aa5f6b6ca27c97dcdeaca0042b16dc78e0f69fdfb79fe44045e152c242d25", 256 << 20},
        {"7912d5f773a1f19d772aef76abebbd9e044430ea66d2555cff103b9c345dbf3d", 512 << 20},
    };
    czk_comm_piece_info pi[12];
    for (int i = 0; i < 10; i++) {
        hex_to_bytes(pi[i].comm_p, pieces[i].comm, 32);
        pi[i].padded_size = pieces[i].size;
    }
    pi[10].padded_size = UINT64_C(8) << 30;
    CHECK_STATUS(czk_comm_d_zero(pi[10].comm_p, pi[10].padded_size, NULL), CZK_OK);
    pi[11].padded_size = UINT64_C(16) << 30;
    CHECK_STATUS(czk_comm_d_zero(pi[11].comm_p, pi[11].padded_size, NULL), CZK_OK);
    uint8_t d[32];
    const uint64_t g32 = UINT64_C(32) << 30;
    CHECK_STATUS(czk_comm_d_from_pieces(d, g32, pi, 12, NULL), CZK_OK);
    CHECK(eq_hex(d, "8b6cc164a6c25c3f942ca1763adbb68fe458bf551ff9e5705f85125b017da508"));
    /* rust's compute_comm_d pads to a single node itself: the ten deals alone give the
     * same root once it is padded up, which the 8 + 16 GiB zero pieces do. */
    uint8_t ten[32];
    CHECK_STATUS(czk_comm_d_from_pieces(ten, g32, pi, 10, NULL), CZK_OK);
    CHECK(memcmp(ten, d, 32) != 0); /* an 8 GiB root, not the sector's */
    czk_comm_piece_info two[2] = {{.padded_size = UINT64_C(8) << 30}, pi[10]};
    memcpy(two[0].comm_p, ten, 32);
    czk_comm_piece_info three[2] = {{.padded_size = UINT64_C(16) << 30}, pi[11]};
    CHECK_STATUS(czk_comm_d_from_pieces(three[0].comm_p, g32, two, 2, NULL), CZK_OK);
    CHECK_STATUS(czk_comm_d_from_pieces(ten, g32, three, 2, NULL), CZK_OK);
    CHECK_MEM(ten, d, 32);
    /* Bad inputs. */
    CHECK_STATUS(czk_comm_d_from_pieces(d, UINT64_C(16) << 30, pi, 12, NULL), CZK_EINVAL);
    pi[0].padded_size = 300;
    CHECK_STATUS(czk_comm_d_from_pieces(d, g32, pi, 12, NULL), CZK_EINVAL);
    pi[0].padded_size = 64;
    CHECK_STATUS(czk_comm_d_from_pieces(d, g32, pi, 12, NULL), CZK_EINVAL);
    CHECK_STATUS(czk_comm_d_from_pieces(d, 1000, pi, 1, NULL), CZK_EINVAL);
    czk_comm_piece_info many[5];
    for (int i = 0; i < 5; i++) many[i] = (czk_comm_piece_info){.padded_size = 128};
    CHECK_STATUS(czk_comm_d_from_pieces(d, 512, many, 4, NULL), CZK_OK);
    CHECK_STATUS(czk_comm_d_from_pieces(d, 512, many, 5, NULL), CZK_EINVAL);
}

static void piece(czk_comm_piece_info *p, uint8_t fill, uint64_t units)
{
    memset(p->comm_p, fill, 32);
    p->padded_size = 128 * units;
}

static void test_comm_d_rust_pieces(void)
{
    /* rust-fil-proofs tests/pieces.rs test_verify_simple_pieces: four 127-byte pieces
     * a..d under e = H(a,b), f = H(c,d), g = H(e,f); every grouping gives g. */
    czk_comm_piece_info a, b, c, d, e, f, g;
    czk_test_rand_bytes(a.comm_p, 32);
    czk_test_rand_bytes(b.comm_p, 32);
    czk_test_rand_bytes(c.comm_p, 32);
    czk_test_rand_bytes(d.comm_p, 32);
    a.padded_size = b.padded_size = c.padded_size = d.padded_size = 128;
    ref_sha_node(e.comm_p, a.comm_p, b.comm_p);
    ref_sha_node(f.comm_p, c.comm_p, d.comm_p);
    ref_sha_node(g.comm_p, e.comm_p, f.comm_p);
    e.padded_size = f.padded_size = 256;
    g.padded_size = 512;
    czk_comm_piece_info l1[] = {a, b, c, d}, l2[] = {e, c, d}, l3[] = {e, f}, l4[] = {a, b, f},
                   l5[] = {g};
    uint8_t r[32];
    CHECK_STATUS(czk_comm_d_from_pieces(r, 512, l1, 4, NULL), CZK_OK);
    CHECK_MEM(r, g.comm_p, 32);
    CHECK_STATUS(czk_comm_d_from_pieces(r, 512, l2, 3, NULL), CZK_OK);
    CHECK_MEM(r, g.comm_p, 32);
    CHECK_STATUS(czk_comm_d_from_pieces(r, 512, l3, 2, NULL), CZK_OK);
    CHECK_MEM(r, g.comm_p, 32);
    CHECK_STATUS(czk_comm_d_from_pieces(r, 512, l4, 3, NULL), CZK_OK);
    CHECK_MEM(r, g.comm_p, 32);
    CHECK_STATUS(czk_comm_d_from_pieces(r, 512, l5, 1, NULL), CZK_OK);
    CHECK_MEM(r, g.comm_p, 32);

    /* test_verify_padded_pieces: pieces A(1) B(4) C(2) D(8) (in 128-byte units) in a
     * 32-unit sector lay out as A P P P B B B B C C P P P P P P D×8 P×8 (P = zero piece):
     * build that layout's tree directly, unit by unit, and compare. */
    czk_comm_piece_info pcs[4];
    piece(&pcs[0], 1, 1);
    piece(&pcs[1], 2, 4);
    piece(&pcs[2], 3, 2);
    piece(&pcs[3], 4, 8);
    uint8_t p1[32], p2[32], p4[32], p8[32];
    CHECK_STATUS(czk_comm_zero(p1, 2), CZK_OK);
    ref_sha_node(p2, p1, p1);
    ref_sha_node(p4, p2, p2);
    ref_sha_node(p8, p4, p4);
    uint8_t ap[32], app[32], x[32], cp[32], cpp[32], left[32], right[32], want[32];
    ref_sha_node(ap, pcs[0].comm_p, p1);    /* A P */
    ref_sha_node(app, ap, p2);              /* A P P P */
    ref_sha_node(x, app, pcs[1].comm_p);    /* + B(4): 8 units */
    ref_sha_node(cp, pcs[2].comm_p, p2);    /* C(2) P P */
    ref_sha_node(cpp, cp, p4);              /* + P×4: 8 units */
    ref_sha_node(left, x, cpp);             /* 16 units */
    ref_sha_node(right, pcs[3].comm_p, p8); /* D(8) P×8 */
    ref_sha_node(want, left, right);
    CHECK_STATUS(czk_comm_d_from_pieces(r, 32 * 128, pcs, 4, NULL), CZK_OK);
    CHECK_MEM(r, want, 32);
}

static void test_comm_r(void)
{
    /* rust-fil-proofs filecoin-hashers poseidon.rs test_poseidon_hasher: Poseidon2(1, 0). */
    uint8_t one[32] = {1}, zero[32] = {0}, r[32], want[32];
    CHECK_STATUS(czk_comm_r(r, one, zero, NULL), CZK_OK);
    be_hex_to_le(want, "0x042f94ffbe786bc393c003cc74a24f26ec5907b3dc3094afb339ff6079800b5e");
    CHECK_MEM(r, want, 32);
    for (int i = 0; i < 4; i++) {
        uint8_t in[64];
        rand_fr_bytes(in, 2);
        CHECK_STATUS(czk_comm_r(r, in, in + 32, NULL), CZK_OK);
        ref_poseidon_node(want, 2, in);
        CHECK_MEM(r, want, 32);
    }
    uint8_t big[32];
    memset(big, 0xff, 32);
    CHECK_STATUS(czk_comm_r(r, big, zero, NULL), CZK_ENONCANONICAL);
    CHECK_STATUS(czk_comm_r(r, zero, big, NULL), CZK_ENONCANONICAL);
}

/* ---------------------------------------------------------------------------------------
 * Trees and paths
 * ------------------------------------------------------------------------------------- */

/* Prove `leaf` and check the path verifies, then that every kind of tampering fails. */
static void check_path(const czk_merkle_tree *t, czk_merkle_hasher h, const uint8_t *leaves,
                       uint64_t leaf, const czk_merkle_path *ref)
{
    static czk_merkle_path p, q;
    uint8_t root[32];
    czk_merkle_root(t, root);
    czk_err err;
    CHECK_STATUS(czk_merkle_prove(t, leaf, leaves, &p, &err), CZK_OK);
    CHECK_MEM(p.leaf, leaves + 32 * leaf, 32);
    CHECK(p.leaf_index == leaf && p.levels == czk_merkle_levels(t));
    CHECK_STATUS(czk_merkle_path_verify(&p, h, root, leaf, &err), CZK_OK);
    if (ref != NULL) {
        unsigned nsib = 0;
        for (unsigned l = 0; l < p.levels; l++) nsib += p.arity[l] - 1u;
        CHECK(memcmp(p.arity, ref->arity, sizeof p.arity) == 0);
        CHECK(memcmp(p.index, ref->index, sizeof p.index) == 0);
        CHECK_MEM(p.siblings, ref->siblings, 32 * nsib);
    }
    unsigned nsib = 0;
    for (unsigned l = 0; l < p.levels; l++) nsib += p.arity[l] - 1u;
    /* A sibling, the leaf, an index, the leaf index, the root. */
    q = p;
    q.siblings[czk_test_rand64() % nsib][czk_test_rand64() % 31] ^= 1;
    CHECK(czk_merkle_path_verify(&q, h, root, leaf, NULL) != CZK_OK);
    q = p;
    q.leaf[0] ^= 0x10;
    CHECK(czk_merkle_path_verify(&q, h, root, leaf, NULL) != CZK_OK);
    q = p;
    unsigned l = (unsigned)(czk_test_rand64() % p.levels);
    q.index[l] = (uint8_t)((q.index[l] + 1) % q.arity[l]);
    CHECK_STATUS(czk_merkle_path_verify(&q, h, root, leaf, NULL), CZK_EVERIFY);
    CHECK_STATUS(czk_merkle_path_verify(&p, h, root, (leaf + 1) % czk_merkle_leaf_count(t), NULL),
                 CZK_EVERIFY);
    CHECK_STATUS(czk_merkle_path_verify(&p, h, root, leaf + czk_merkle_leaf_count(t), NULL),
                 CZK_EVERIFY);
    uint8_t bad_root[32];
    memcpy(bad_root, root, 32);
    bad_root[5] ^= 0x40;
    CHECK_STATUS(czk_merkle_path_verify(&p, h, bad_root, leaf, NULL), CZK_EVERIFY);
    /* Malformed paths. */
    q = p;
    q.arity[0] = 3;
    CHECK_STATUS(czk_merkle_path_verify(&q, h, root, leaf, NULL), CZK_EINVAL);
    q = p;
    q.index[0] = q.arity[0];
    CHECK_STATUS(czk_merkle_path_verify(&q, h, root, leaf, NULL), CZK_EINVAL);
    q = p;
    q.levels = 0;
    CHECK_STATUS(czk_merkle_path_verify(&q, h, root, leaf, NULL), CZK_EINVAL);
    if (h == CZK_MERKLE_POSEIDON) {
        q = p;
        memset(q.siblings[0], 0xff, 32);
        CHECK_STATUS(czk_merkle_path_verify(&q, h, root, leaf, NULL), CZK_ENONCANONICAL);
    }
}

/* Build with every storage option, on one thread and on the pool; compare roots with
 * `want`, stored levels with the keep-everything tree, and paths of sample leaves. */
static void check_tree(czk_merkle_config cfg, const uint8_t *leaves, uint64_t n,
                       const uint8_t want[32])
{
    czk_err err;
    unsigned height = czk_merkle_height(&cfg, n);
    CHECK(height > 0);
    czk_merkle_tree *full = NULL;
    cfg.keep_from = 0;
    CHECK_STATUS(czk_merkle_build(&full, &cfg, leaves, n, NULL, &err), CZK_OK);
    if (full == NULL) return;
    uint8_t root[32];
    czk_merkle_root(full, root);
    CHECK_MEM(root, want, 32);
    CHECK(czk_merkle_levels(full) == height && czk_merkle_leaf_count(full) == n);
    uint64_t cnt;
    const uint8_t *lv0 = czk_merkle_level_nodes(full, 0, &cnt);
    CHECK(lv0 != NULL && cnt == n && memcmp(lv0, leaves, 32 * n) == 0);

    uint64_t samples[6] = {
        0, n - 1, n / 2, czk_test_rand64() % n, czk_test_rand64() % n, czk_test_rand64() % n};
    static czk_merkle_path ref[6];
    for (int s = 0; s < 6; s++) {
        check_path(full, cfg.hasher, leaves, samples[s], NULL);
        CHECK_STATUS(czk_merkle_prove(full, samples[s], NULL, &ref[s], &err), CZK_OK);
    }
    for (unsigned keep = 1; keep <= height + 1; keep++) {
        for (int threads = 0; threads < 2; threads++) {
            cfg.keep_from = keep;
            czk_merkle_tree *t = NULL;
            CHECK_STATUS(czk_merkle_build(&t, &cfg, leaves, n, threads ? pool4 : NULL, &err),
                         CZK_OK);
            if (t == NULL) continue;
            czk_merkle_root(t, root);
            CHECK_MSG(memcmp(root, want, 32) == 0, "keep_from %u, %s", keep,
                      threads ? "pool" : "one thread");
            uint64_t stored = 0;
            for (unsigned l = 0; l <= height; l++) {
                const uint8_t *a = czk_merkle_level_nodes(t, l, &cnt);
                CHECK((a != NULL) == (l >= keep || l == height));
                if (a != NULL) {
                    stored += cnt;
                    uint64_t c0;
                    const uint8_t *b = czk_merkle_level_nodes(full, l, &c0);
                    CHECK(cnt == c0 && memcmp(a, b, 32 * cnt) == 0);
                }
            }
            CHECK(czk_merkle_storage_bytes(&cfg, n) == 32 * stored);
            for (int s = 0; s < 3; s++) check_path(t, cfg.hasher, leaves, samples[s], &ref[s]);
            /* Proofs from a tree without its leaves need them; wrong ones are caught. */
            static czk_merkle_path p;
            CHECK_STATUS(czk_merkle_prove(t, 0, NULL, &p, NULL), CZK_EINVAL);
            uint8_t *wrong = malloc(32 * n);
            memcpy(wrong, leaves, 32 * n);
            wrong[32 * samples[3] + 3] ^= 1;
            CHECK_STATUS(czk_merkle_prove(t, samples[3], wrong, &p, NULL), CZK_EINVAL);
            free(wrong);
            czk_merkle_destroy(t);
        }
    }
    czk_merkle_destroy(full);
    uint8_t r2[32];
    CHECK_STATUS(czk_merkle_root_of(r2, &cfg, leaves, n, pool4, &err), CZK_OK);
    CHECK_MEM(r2, want, 32);
}

static void test_tree_d_random(void)
{
    czk_merkle_config cfg = czk_merkle_config_tree_d();
    for (unsigned lg = 1; lg <= 13; lg += 3) {
        uint64_t n = UINT64_C(1) << lg;
        uint8_t *leaves = malloc(32 * n);
        czk_test_rand_bytes(leaves, 32 * n); /* SHA trees take any 32 bytes */
        uint8_t want[32];
        ref_sha_root(want, leaves, n);
        check_tree(cfg, leaves, n, want);
        free(leaves);
    }
    /* A tree big enough for many phase-1 chunks on the pool. */
    uint64_t n = UINT64_C(1) << 17;
    uint8_t *leaves = malloc(32 * n), want[32], got[32];
    czk_test_rand_bytes(leaves, 32 * n);
    ref_sha_root(want, leaves, n);
    CHECK_STATUS(czk_merkle_root_of(got, &cfg, leaves, n, pool4, NULL), CZK_OK);
    CHECK_MEM(got, want, 32);
    CHECK_STATUS(czk_merkle_root_of(got, &cfg, leaves, n, NULL, NULL), CZK_OK);
    CHECK_MEM(got, want, 32);
    free(leaves);
}

static void test_tree_d_sector(void)
{
    /* tree_d of a zero 2 KiB sector: fr32 padding of 2032 zero bytes, root = comm_d. */
    static uint8_t raw[2032], padded[2048];
    czk_fr32_pad(padded, raw, sizeof raw);
    czk_merkle_config cfg = czk_merkle_config_tree_d();
    uint8_t r[32];
    CHECK_STATUS(czk_merkle_root_of(r, &cfg, padded, 64, NULL, NULL), CZK_OK);
    CHECK(eq_hex(r, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833"));
    /* And of random data: comm_p of the raw bytes is the same root. */
    czk_test_rand_bytes(raw, sizeof raw);
    czk_fr32_pad(padded, raw, sizeof raw);
    uint8_t c[32];
    CHECK_STATUS(czk_merkle_root_of(r, &cfg, padded, 64, NULL, NULL), CZK_OK);
    CHECK_STATUS(czk_comm_p(c, raw, sizeof raw, NULL, NULL), CZK_OK);
    CHECK_MEM(r, c, 32);
}

static void test_poseidon_rust_vector(void)
{
    /* rust-fil-proofs filecoin-hashers poseidon.rs test_poseidon_hasher: a binary
     * Poseidon tree over [1, 0, 0, 1]; node 4 = H(1, 0), root = node 6. */
    uint8_t leaves[4 * 32] = {0};
    leaves[0] = 1;
    leaves[96] = 1;
    czk_merkle_config cfg = {CZK_MERKLE_POSEIDON, 2, 0, 0, 0};
    czk_merkle_tree *t = NULL;
    CHECK_STATUS(czk_merkle_build(&t, &cfg, leaves, 4, NULL, NULL), CZK_OK);
    if (t == NULL) return;
    uint8_t want[32], root[32];
    const uint8_t *l1 = czk_merkle_level_nodes(t, 1, NULL);
    be_hex_to_le(want, "0x042f94ffbe786bc393c003cc74a24f26ec5907b3dc3094afb339ff6079800b5e");
    CHECK(l1 != NULL && memcmp(l1, want, 32) == 0);
    be_hex_to_le(want, "0x1effebb7b26ad9eb30eb6385ae6b74ae77cc72b8cb2b5ad2efbb8be3e291e671");
    czk_merkle_root(t, root);
    CHECK_MEM(root, want, 32);
    /* test_path: leaf 0 of four ones has path indices [0, 0] and validates. */
    static czk_merkle_path p;
    CHECK_STATUS(czk_merkle_prove(t, 0, NULL, &p, NULL), CZK_OK);
    CHECK(p.levels == 2 && p.index[0] == 0 && p.index[1] == 0);
    CHECK_STATUS(czk_merkle_path_verify(&p, CZK_MERKLE_POSEIDON, root, 0, NULL), CZK_OK);
    czk_merkle_destroy(t);
}

static void test_poseidon_shapes(void)
{
    static const struct {
        unsigned b, s, t;
        uint64_t n;
    } shapes[] = {
        {8, 0, 0, 64},        /* 2 KiB tree_c / tree_r_last */
        {8, 0, 0, 4096},      /* 4 octree levels */
        {8, 8, 0, 8 * 64},    /* 32 GiB shape, base trees of 64 leaves */
        {8, 8, 2, 2 * 8 * 8}, /* 64 GiB shape, base trees of 8 leaves */
        {8, 8, 2, 2 * 8 * 64}, {2, 0, 0, 16},        {4, 4, 0, 4 * 16},
        {16, 0, 0, 256},       {2, 8, 2, 2 * 8 * 4},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        czk_merkle_config cfg = {CZK_MERKLE_POSEIDON, shapes[i].b, shapes[i].s, shapes[i].t, 1};
        uint64_t n = shapes[i].n;
        unsigned height = czk_merkle_height(&cfg, n);
        unsigned ar[CZK_MERKLE_MAX_LEVELS];
        unsigned kb = height - (shapes[i].s != 0) - (shapes[i].t != 0);
        for (unsigned l = 0; l < height; l++)
            ar[l] = l < kb ? shapes[i].b : (l == kb ? shapes[i].s : shapes[i].t);
        uint8_t *leaves = malloc(32 * n), want[32];
        rand_fr_bytes(leaves, n);
        ref_poseidon_root(want, leaves, n, ar, height);
        check_tree(cfg, leaves, n, want);
        /* The compound root is the sub/top hash of separately built base trees. */
        if (shapes[i].s != 0) {
            czk_merkle_config base = {CZK_MERKLE_POSEIDON, shapes[i].b, 0, 0, 1};
            unsigned groups = shapes[i].s * (shapes[i].t ? shapes[i].t : 1);
            uint64_t per = n / groups;
            uint8_t roots[16 * 16 * 32], subs[16 * 32], top[32];
            for (unsigned g = 0; g < groups; g++)
                CHECK_STATUS(czk_merkle_root_of(roots + 32 * g, &base, leaves + 32 * per * g, per,
                                                NULL, NULL),
                             CZK_OK);
            unsigned nsub = shapes[i].t ? shapes[i].t : 1;
            for (unsigned s = 0; s < nsub; s++)
                ref_poseidon_node(subs + 32 * s, shapes[i].s, roots + 32 * shapes[i].s * s);
            if (shapes[i].t)
                ref_poseidon_node(top, shapes[i].t, subs);
            else
                memcpy(top, subs, 32);
            CHECK_MSG(memcmp(top, want, 32) == 0, "compound shape %u-%u-%u", shapes[i].b,
                      shapes[i].s, shapes[i].t);
        }
        free(leaves);
    }
}

static void test_poseidon_pool_large(void)
{
    /* 8^5 leaves: phase 1 splits into chunks and phase 2 runs several levels. */
    czk_merkle_config cfg = czk_merkle_config_tree_r(UINT64_C(1) << 20);
    uint64_t n = 32768;
    uint8_t *leaves = malloc(32 * n), a[32], b[32];
    rand_fr_bytes(leaves, n);
    CHECK_STATUS(czk_merkle_root_of(a, &cfg, leaves, n, pool4, NULL), CZK_OK);
    CHECK_STATUS(czk_merkle_root_of(b, &cfg, leaves, n, NULL, NULL), CZK_OK);
    CHECK_MEM(a, b, 32);
    /* The same root by hand: level 4 from the library's level 4 nodes (8 of them). */
    czk_merkle_tree *t = NULL;
    CHECK_STATUS(czk_merkle_build(&t, &cfg, leaves, n, pool4, NULL), CZK_OK);
    if (t != NULL) {
        uint64_t cnt;
        const uint8_t *l4 = czk_merkle_level_nodes(t, 4, &cnt);
        uint8_t r[32];
        CHECK(l4 != NULL && cnt == 8);
        if (l4 != NULL) ref_poseidon_node(r, 8, l4);
        CHECK_MEM(r, a, 32);
        /* Spot-check a level-1 node. */
        const uint8_t *l1 = czk_merkle_level_nodes(t, 1, &cnt);
        uint64_t k = czk_test_rand64() % cnt;
        ref_poseidon_node(r, 8, leaves + 32 * 8 * k);
        CHECK(l1 != NULL && memcmp(l1 + 32 * k, r, 32) == 0);
        check_path(t, CZK_MERKLE_POSEIDON, leaves, czk_test_rand64() % n, NULL);
        czk_merkle_destroy(t);
    }
    /* A non-canonical leaf is refused, and named. */
    memset(leaves + 32 * 12345, 0xff, 32);
    czk_err err;
    CHECK_STATUS(czk_merkle_root_of(a, &cfg, leaves, n, pool4, &err), CZK_ENONCANONICAL);
    CHECK(strstr(err.msg, "12345") != NULL);
    free(leaves);
}

static void test_shapes_and_configs(void)
{
    /* Sector shapes: tree_r per registered proof matches the registry. */
    for (unsigned p = 0; p < CZK_SEAL_PROOF_COUNT; p++) {
        const czk_seal_proof_info *info = czk_seal_proof_get((czk_seal_proof)p);
        czk_merkle_config c = czk_merkle_config_tree_r(info->sector_size);
        CHECK(c.hasher == CZK_MERKLE_POSEIDON && c.base_arity == info->tree_base_arity &&
              c.sub_arity == info->tree_sub_arity && c.top_arity == info->tree_top_arity);
    }
    /* Heights (docs/formats.md §5.1): 2 KiB 2 octree levels, 8 MiB 6, 512 MiB 8,
     * 32 GiB 9 + 1, 64 GiB 9 + 1 + 1; tree_d depth = log2(nodes). */
    static const struct {
        unsigned lg;
        unsigned poseidon, sha;
    } h[] = {{11, 2, 6}, {23, 6, 18}, {29, 8, 24}, {35, 10, 30}, {36, 11, 31}};
    czk_merkle_config d = czk_merkle_config_tree_d();
    for (int i = 0; i < 5; i++) {
        uint64_t size = UINT64_C(1) << h[i].lg, nodes = size / 32;
        czk_merkle_config r = czk_merkle_config_tree_r(size);
        CHECK(czk_merkle_height(&r, nodes) == h[i].poseidon);
        CHECK(czk_merkle_height(&d, nodes) == h[i].sha);
    }
    /* 32 GiB tree_r_last: 8 base trees of 2^27 leaves (9 levels) under one arity-8 node;
     * keeping levels ≥ 2 costs (2^24 + 2^21 + … + 1) nodes. */
    czk_merkle_config r32 = czk_merkle_config_tree_r(UINT64_C(32) << 30);
    r32.keep_from = 2;
    uint64_t want = 0;
    for (unsigned l = 2; l <= 10; l++) want += (UINT64_C(1) << 30) >> (3 * l);
    CHECK(czk_merkle_storage_bytes(&r32, UINT64_C(1) << 30) == 32 * want);
    /* Invalid shapes and counts. */
    czk_merkle_config bad = {CZK_MERKLE_SHA256, 8, 0, 0, 1};
    CHECK(czk_merkle_height(&bad, 64) == 0);
    bad = (czk_merkle_config){CZK_MERKLE_POSEIDON, 8, 0, 2, 1}; /* top without sub */
    CHECK(czk_merkle_height(&bad, 128) == 0);
    bad = (czk_merkle_config){CZK_MERKLE_POSEIDON, 3, 0, 0, 1};
    CHECK(czk_merkle_height(&bad, 9) == 0);
    bad = (czk_merkle_config){CZK_MERKLE_POSEIDON, 8, 8, 0, 1};
    CHECK(czk_merkle_height(&bad, 8) == 0);      /* base trees of one leaf */
    CHECK(czk_merkle_height(&bad, 8 * 16) == 0); /* 16 is not a power of 8 */
    CHECK(czk_merkle_height(&d, 1) == 0 && czk_merkle_height(&d, 6) == 0);
    CHECK(czk_merkle_config_tree_r(3000).base_arity == 0);
    uint8_t leaves[64 * 32] = {0};
    czk_merkle_tree *t = NULL;
    czk_err err;
    bad = (czk_merkle_config){CZK_MERKLE_SHA256, 8, 0, 0, 1};
    CHECK_STATUS(czk_merkle_build(&t, &bad, leaves, 64, NULL, &err), CZK_EINVAL);
    bad = (czk_merkle_config){(czk_merkle_hasher)7, 2, 0, 0, 1};
    CHECK_STATUS(czk_merkle_build(&t, &bad, leaves, 64, NULL, &err), CZK_EINVAL);
    CHECK(t == NULL);
    CHECK_STATUS(czk_merkle_build(&t, &d, NULL, 64, NULL, &err), CZK_EINVAL);
    CHECK_STATUS(czk_merkle_build(&t, &d, leaves, 64, NULL, &err), CZK_OK);
    static czk_merkle_path p;
    CHECK_STATUS(czk_merkle_prove(t, 64, leaves, &p, &err), CZK_EINVAL);
    czk_merkle_destroy(t);
}

/* ---------------------------------------------------------------------------------------
 * fr32
 * ------------------------------------------------------------------------------------- */

static void test_fr32_vectors(void)
{
    /* rust-fil-proofs fr32/src/reader.rs test_exotic. */
    uint8_t src[68], buf[96];
    for (int i = 0; i < 31; i++) src[i] = (uint8_t)(i + 1);
    src[31] = 0xff;
    for (int i = 0; i < 31; i++) src[32 + i] = (uint8_t)(i + 1);
    src[63] = 0xff;
    src[64] = 9;
    src[65] = 9;
    src[66] = 9;
    src[67] = 0xff;
    CHECK(czk_fr32_pad_output_size(68) == 96);
    czk_fr32_pad(buf, src, 68);
    for (int i = 0; i < 31; i++) CHECK(buf[i] == i + 1);
    CHECK(buf[31] == 63);             /* six low bits of 0xff */
    CHECK(buf[32] == ((1 << 2) | 3)); /* 7 */
    for (int i = 33; i < 63; i++) CHECK(buf[i] == (uint8_t)((i - 31) << 2));
    CHECK(buf[63] == (0x0f << 2));
    CHECK(buf[64] == (0x0f | 9 << 4));
    CHECK(buf[65] == (uint8_t)(9 << 4));
    CHECK(buf[66] == (uint8_t)(9 << 4));
    CHECK(buf[67] == 0xf0);
    CHECK(buf[68] == 0x0f);
    for (int i = 69; i < 96; i++) CHECK(buf[i] == 0);

    /* test_simple_single: 32 bytes of 0xff → 64 bytes. */
    uint8_t ff[127], out[128];
    memset(ff, 0xff, sizeof ff);
    CHECK(czk_fr32_pad_output_size(32) == 64);
    czk_fr32_pad(out, ff, 32);
    for (int i = 0; i < 31; i++) CHECK(out[i] == 0xff);
    CHECK(out[31] == 0x3f && out[32] == 0x03);
    for (int i = 33; i < 64; i++) CHECK(out[i] == 0);
    /* test_simple_127: 127 bytes of 0xff → 128 bytes, every element 2^254 − 1. */
    czk_fr32_pad(out, ff, 127);
    for (int e = 0; e < 4; e++) {
        for (int i = 0; i < 31; i++) CHECK(out[32 * e + i] == 0xff);
        CHECK(out[32 * e + 31] == 0x3f);
    }
    /* test_simple_short: 30 bytes of 3 are copied into one element. */
    uint8_t three[30];
    memset(three, 3, sizeof three);
    czk_fr32_pad(out, three, 30);
    CHECK(czk_fr32_pad_output_size(30) == 32 && memcmp(out, three, 30) == 0 && out[30] == 0 &&
          out[31] == 0);

    /* Sizes (padding.rs): 40 raw bytes = 254 + 66 bits → 32 + 9 padded bytes. */
    CHECK(czk_fr32_padded_size(127) == 128 && czk_fr32_unpadded_size(128) == 127);
    CHECK(czk_fr32_padded_size(1016) == 1024 && czk_fr32_unpadded_size(1024) == 1016);
    CHECK(czk_fr32_padded_size(40) == 41);
    CHECK(czk_fr32_padded_size(UINT64_C(34359738368) / 128 * 127) == UINT64_C(34359738368));
    CHECK(czk_fr32_unpadded_size(UINT64_C(1) << 36) == (UINT64_C(1) << 36) / 128 * 127);
    CHECK(czk_fr32_padded_size(0) == 0 && czk_fr32_pad_output_size(0) == 0);
    CHECK(czk_comm_piece_size_valid(128) && czk_comm_piece_size_valid(UINT64_C(1) << 36));
    CHECK(!czk_comm_piece_size_valid(64) && !czk_comm_piece_size_valid(384) &&
          !czk_comm_piece_size_valid(0));
}

static void test_fr32_random(void)
{
    static const size_t lens[] = {1,   31,  32,  33,   126,  127,  128,  200,
                                  254, 381, 508, 1016, 1017, 4064, 12345};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        size_t n = lens[i], pn = (size_t)czk_fr32_pad_output_size(n);
        uint8_t *raw = malloc(n), *got = malloc(pn), *want = malloc(pn), *back = malloc(n);
        czk_test_rand_bytes(raw, n);
        czk_fr32_pad(got, raw, n);
        ref_fr32_pad(want, raw, n);
        CHECK_MSG(memcmp(got, want, pn) == 0, "pad of %zu bytes", n);
        for (size_t e = 0; e < pn / 32; e++) CHECK((got[32 * e + 31] & 0xc0) == 0);
        /* Round trip, whole and in random sub-ranges. */
        CHECK(czk_fr32_unpadded_size(pn) >= n);
        CHECK_STATUS(czk_fr32_unpad(back, got, pn, 0, n, NULL), CZK_OK);
        CHECK_MEM(back, raw, n);
        for (int k = 0; k < 8; k++) {
            size_t off = (size_t)(czk_test_rand64() % n),
                   len = (size_t)(czk_test_rand64() % (n - off + 1));
            CHECK_STATUS(czk_fr32_unpad(back, got, pn, off, len, NULL), CZK_OK);
            CHECK(memcmp(back, raw + off, len) == 0);
        }
        /* Exactly the padded size of padding.rs is enough to unpad n bytes. */
        size_t exact = (size_t)czk_fr32_padded_size(n);
        CHECK(czk_fr32_unpadded_size(exact) == n);
        CHECK_STATUS(czk_fr32_unpad(back, got, exact, 0, n, NULL), CZK_OK);
        CHECK_MEM(back, raw, n);
        /* Padding bits are ignored when unpadding. */
        for (size_t e = 0; e + 1 <= pn / 32; e++) got[32 * e + 31] |= 0xc0;
        CHECK_STATUS(czk_fr32_unpad(back, got, pn, 0, n, NULL), CZK_OK);
        CHECK_MEM(back, raw, n);
        free(raw);
        free(got);
        free(want);
        free(back);
    }
    /* padding.rs test_read_write_padded_offset: 1016 raw bytes; ranges running past the
     * end are refused. */
    static uint8_t raw[1016], pad[1024], back[1016];
    czk_test_rand_bytes(raw, sizeof raw);
    czk_fr32_pad(pad, raw, sizeof raw);
    CHECK_STATUS(czk_fr32_unpad(back, pad, sizeof pad, 0, 44, NULL), CZK_OK);
    CHECK_MEM(back, raw, 44);
    for (uint64_t start = 1016 - 35 + 2; start < 1016; start++)
        CHECK_STATUS(czk_fr32_unpad(back, pad, sizeof pad, start, 35, NULL), CZK_EINVAL);
    CHECK_STATUS(czk_fr32_unpad(back, pad, sizeof pad, 1017, 0, NULL), CZK_EINVAL);
}

int main(void)
{
    czk_test_seed();
    if (czk_pool_create(&pool4, 4, NULL) != CZK_OK) return 1;
    RUN(test_sha256_vectors);
    RUN(test_sha256_nodes);
    RUN(test_zero_ladder);
    RUN(test_comm_p_vectors);
    RUN(test_comm_d_live_sector);
    RUN(test_comm_d_rust_pieces);
    RUN(test_comm_r);
    RUN(test_fr32_vectors);
    RUN(test_fr32_random);
    RUN(test_tree_d_random);
    RUN(test_tree_d_sector);
    RUN(test_poseidon_rust_vector);
    RUN(test_poseidon_shapes);
    RUN(test_poseidon_pool_large);
    RUN(test_shapes_and_configs);
    czk_pool_destroy(pool4);
    return czk_test_finish();
}
