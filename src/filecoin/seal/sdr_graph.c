/*
 * The SDR graph: rust-fil-proofs' StackedBucketGraph (storage-proofs-core/src/drgraph.rs
 * BucketGraph::parents, crypto/feistel.rs, storage-proofs-porep/src/stacked/vanilla/
 * graph.rs). Each node has 6 DRG parents drawn by bucket sampling from a ChaCha8 stream
 * seeded per node, and 8 expander parents from a 3-round Feistel permutation of the
 * expanded index space [0, 8·nodes), walked until it lands inside that space.
 */
#include "filecoin/seal/sdr_internal.h"

#include "czk/alloc.h"

#include <openssl/evp.h>
#include <string.h>

#define DRG_M_PRIME    (CZK_SDR_DRG_DEGREE - 1) /* parents sampled; the 6th is node − 1 */
#define FEISTEL_ROUNDS 3

static const char DRSAMPLE_DST[] = "Filecoin_DRSample";
static const char FEISTEL_DST[] = "Filecoin_Feistel";

/* SHA-256(dst ‖ porep_id): rust-fil-proofs' derive_porep_domain_seed. */
static czk_status domain_seed(uint8_t out[32], const char *dst, const uint8_t porep_id[32])
{
    const void *parts[2] = {dst, porep_id};
    const size_t lens[2] = {strlen(dst), 32};
    return czk__sha256_parts(out, parts, lens, 2);
}

/* One round-function value through a caller-held EVP context (the table fill reuses
 * one context for all of its calls; init per call costs ~0.25 µs, a fresh context
 * twice that). */
static bool round_hash_ctx(EVP_MD_CTX *ctx, const EVP_MD *md, uint64_t *out, uint64_t right,
                           uint64_t key, uint64_t right_mask)
{
    uint8_t data[16], h[EVP_MAX_MD_SIZE];
    for (int i = 0; i < 8; i++) {
        data[i] = (uint8_t)(right >> (56 - 8 * i));
        data[8 + i] = (uint8_t)(key >> (56 - 8 * i));
    }
    unsigned len = 0;
    if (EVP_DigestInit_ex(ctx, md, NULL) != 1 || EVP_DigestUpdate(ctx, data, 16) != 1 ||
        EVP_DigestFinal_ex(ctx, h, &len) != 1 || len != 64)
        return false;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | h[i];
    *out = v & right_mask;
    return true;
}

czk_status czk__feistel_round_hash(uint64_t *out, uint64_t right, uint64_t key, uint64_t right_mask)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL) return CZK_EINTERNAL;
    bool ok = round_hash_ctx(ctx, EVP_blake2b512(), out, right, key, right_mask);
    EVP_MD_CTX_free(ctx);
    return ok ? CZK_OK : CZK_EINTERNAL;
}

/* Every right half and every value the round function returns lies below 2^half_bits,
 * so each round's function is a table of 2^half_bits entries (2^17 at 64 GiB), filled
 * once here. A parent query then costs table loads instead of ~6 BLAKE2b calls. */
static czk_status fill_round_table(czk_sdr_graph *g, czk_err *err)
{
    size_t width = (size_t)1 << g->half_bits;
    g->round_tab = czk_malloc(FEISTEL_ROUNDS * width * sizeof(uint32_t));
    if (g->round_tab == NULL)
        return czk_err_set(err, CZK_ENOMEM, "SDR graph: no memory for the Feistel table");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    const EVP_MD *md = EVP_blake2b512();
    bool ok = ctx != NULL && md != NULL;
    for (unsigned round = 0; ok && round < FEISTEL_ROUNDS; round++) {
        for (size_t r = 0; ok && r < width; r++) {
            uint64_t v = 0;
            ok = round_hash_ctx(ctx, md, &v, r, g->feistel_keys[round], g->right_mask);
            g->round_tab[round * width + r] = (uint32_t)v;
        }
    }
    EVP_MD_CTX_free(ctx);
    if (!ok) return czk_err_set(err, CZK_EINTERNAL, "SDR graph: OpenSSL BLAKE2b-512 failed");
    return CZK_OK;
}

czk_status czk_sdr_graph_create(czk_sdr_graph **out, uint64_t nodes, const uint8_t porep_id[32],
                                czk_api_version version, czk_err *err)
{
    if (out == NULL || porep_id == NULL)
        return czk_err_set(err, CZK_EINVAL, "SDR graph: NULL argument");
    *out = NULL;
    /* rust-fil-proofs keeps node indexes in u32 (StackedGraph::new: nodes ≤ u32::MAX). */
    if (nodes < 2 || nodes > UINT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "SDR graph: %llu nodes (need 2 .. 2^32-1)",
                           (unsigned long long)nodes);
    if ((unsigned)version > CZK_API_V1_2_0)
        return czk_err_set(err, CZK_EINVAL, "SDR graph: unknown API version %d", (int)version);

    czk_sdr_graph *g = czk_calloc(1, sizeof *g);
    if (g == NULL) return czk_err_set(err, CZK_ENOMEM, "SDR graph: out of memory");
    g->nodes = nodes;
    g->version = version;
    memcpy(g->porep_id, porep_id, 32);

    uint8_t seed[32];
    if (domain_seed(seed, DRSAMPLE_DST, porep_id) != CZK_OK) goto hash_failed;
    memcpy(g->drg_seed, seed, 28);
    /* The per-node RNG seed is drg_seed ‖ u32 LE node: key words 0..6 are fixed. */
    for (int i = 0; i < 7; i++)
        g->drg_key[i] = (uint32_t)seed[4 * i] | (uint32_t)seed[4 * i + 1] << 8 |
                        (uint32_t)seed[4 * i + 2] << 16 | (uint32_t)seed[4 * i + 3] << 24;

    if (domain_seed(seed, FEISTEL_DST, porep_id) != CZK_OK) goto hash_failed;
    for (int k = 0; k < 4; k++) {
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--) v = v << 8 | seed[8 * k + i];
        g->feistel_keys[k] = v;
    }

    /* feistel::precompute: the smallest even bit count 2k (k ≥ 1) covering 8·nodes. */
    g->exp_nodes = nodes * CZK_SDR_EXP_DEGREE;
    unsigned k = 1;
    while ((1ULL << (2 * k)) < g->exp_nodes) k++;
    g->half_bits = k;
    g->right_mask = (1ULL << k) - 1;

    czk_status s = fill_round_table(g, err);
    if (s != CZK_OK) {
        czk_sdr_graph_destroy(g);
        return s;
    }
    *out = g;
    return CZK_OK;

hash_failed:
    czk_sdr_graph_destroy(g);
    return czk_err_set(err, CZK_EINTERNAL, "SDR graph: OpenSSL SHA-256 failed");
}

czk_status czk_sdr_graph_create_for_proof(czk_sdr_graph **out, czk_seal_proof proof, czk_err *err)
{
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    if (info == NULL) {
        if (out != NULL) *out = NULL;
        return czk_err_set(err, CZK_EINVAL, "unknown registered seal proof %d", (int)proof);
    }
    uint8_t porep_id[32];
    czk_seal_porep_id(porep_id, proof);
    return czk_sdr_graph_create(out, info->nodes, porep_id, info->api_version, err);
}

void czk_sdr_graph_destroy(czk_sdr_graph *g)
{
    if (g == NULL) return;
    czk_free(g->round_tab);
    czk_free(g);
}

uint64_t czk_sdr_graph_nodes(const czk_sdr_graph *g)
{
    return g->nodes;
}

czk_api_version czk_sdr_graph_version(const czk_sdr_graph *g)
{
    return g->version;
}

void czk_sdr_graph_drg_seed(const czk_sdr_graph *g, uint8_t out[28])
{
    memcpy(out, g->drg_seed, 28);
}

void czk_sdr_graph_feistel_keys(const czk_sdr_graph *g, uint64_t out[4])
{
    memcpy(out, g->feistel_keys, sizeof g->feistel_keys);
}

/* ---------------------------------------------------------------------------------------
 * DRG parents
 * ------------------------------------------------------------------------------------- */

void czk_sdr_drg_parents(const czk_sdr_graph *g, uint32_t node, uint32_t out[6])
{
    /* Node 0 references itself and node 1 only node 0: six zeros for both. */
    if (node < 2) {
        memset(out, 0, CZK_SDR_DRG_DEGREE * sizeof out[0]);
        return;
    }
    /* ChaCha8Rng::from_seed(drg_seed ‖ node LE): the five parents draw ten u64 values,
     * twenty keystream words, i.e. exactly the first two blocks. */
    uint32_t key[8], ks[32];
    memcpy(key, g->drg_key, sizeof key);
    key[7] = node;
    czk__chacha_block(ks, key, 0, 0, 8);
    czk__chacha_block(ks + 16, key, 1, 0, 8);

    /* Bucket sampling on the metagraph of m' = 5 copies of every node. rust-fil-proofs
     * takes n_buckets = ceil(log2(metagraph_node as f64)); for 10 ≤ meta < 2^54 that is
     * exactly the bit length of meta − 1 (log2 is exact at powers of two and no other
     * value rounds onto an integer at this magnitude; test_sdr checks the two agree). */
    uint64_t meta = (uint64_t)node * DRG_M_PRIME;
    uint64_t n_buckets = 64 - (uint64_t)__builtin_clzll(meta - 1);

    /* V1.0 put the immediate predecessor last; V1.1 moved it first so that labelling
     * can start hashing before the random parents are fetched. */
    uint32_t *sampled = g->version == CZK_API_V1_0_0 ? out : out + 1;
    out[g->version == CZK_API_V1_0_0 ? DRG_M_PRIME : 0] = node - 1;
    for (int k = 0; k < DRG_M_PRIME; k++) {
        uint64_t r1 = (uint64_t)ks[4 * k] | (uint64_t)ks[4 * k + 1] << 32;
        uint64_t r2 = (uint64_t)ks[4 * k + 2] | (uint64_t)ks[4 * k + 3] << 32;
        uint64_t bucket = r1 % n_buckets + 1;
        uint64_t largest = (1ULL << bucket) < meta ? (1ULL << bucket) : meta;
        uint64_t smallest = (largest >> 1) > 2 ? (largest >> 1) : 2;
        uint64_t distance = smallest + r2 % (largest - smallest + 1);
        uint32_t parent = (uint32_t)((meta - distance) / DRG_M_PRIME);
        sampled[k] = parent == node ? node - 1 : parent;
    }
}

/* ---------------------------------------------------------------------------------------
 * Expander parents
 * ------------------------------------------------------------------------------------- */

static inline uint64_t feistel_encode(const czk_sdr_graph *g, uint64_t index)
{
    const unsigned hb = g->half_bits;
    const uint32_t *tab = g->round_tab;
    const size_t width = (size_t)1 << hb;
    /* index < 4^hb always (the domain and every re-encoded value are), so the left half
     * is simply the high bits. */
    uint64_t left = index >> hb, right = index & g->right_mask;
    for (unsigned i = 0; i < FEISTEL_ROUNDS; i++) {
        uint64_t next = left ^ tab[i * width + right];
        left = right;
        right = next;
    }
    return left << hb | right;
}

uint64_t czk__sdr_feistel_permute(const czk_sdr_graph *g, uint64_t index)
{
    /* Cycle-walking: the 4^hb space exceeds 8·nodes, so re-encode until inside. */
    uint64_t u = feistel_encode(g, index);
    while (u >= g->exp_nodes) u = feistel_encode(g, u);
    return u;
}

void czk_sdr_exp_parents(const czk_sdr_graph *g, uint32_t node, uint32_t out[8])
{
    /* The eight walks are independent, so they run in lockstep: each step re-encodes
     * every lane and keeps the result only where the lane is still outside the domain.
     * Branch-free lanes let the CPU overlap eight chains of dependent table loads, where
     * one walk after another stalls on every load and mispredicts every walk's end:
     * 97 ns a node against 170 ns at 512 MiB (EPYC, one thread). */
    uint64_t u[CZK_SDR_EXP_DEGREE];
    uint64_t base = (uint64_t)node * CZK_SDR_EXP_DEGREE;
    bool pending = false;
    for (unsigned i = 0; i < CZK_SDR_EXP_DEGREE; i++) {
        u[i] = feistel_encode(g, base + i);
        pending |= u[i] >= g->exp_nodes;
    }
    while (pending) {
        pending = false;
        for (unsigned i = 0; i < CZK_SDR_EXP_DEGREE; i++) {
            uint64_t v = feistel_encode(g, u[i]);
            u[i] = u[i] >= g->exp_nodes ? v : u[i];
            pending |= u[i] >= g->exp_nodes;
        }
    }
    for (unsigned i = 0; i < CZK_SDR_EXP_DEGREE; i++) {
        /* V1.0 truncated the permuted index to u32 before dividing, which at 32 and
         * 64 GiB (8·nodes > 2^32) keeps every expander parent in the lower part of the
         * layer. The published V1 graphs (and their parent caches) carry that bug. */
        out[i] = g->version == CZK_API_V1_0_0 ? (uint32_t)u[i] / CZK_SDR_EXP_DEGREE
                                              : (uint32_t)(u[i] / CZK_SDR_EXP_DEGREE);
    }
}

void czk_sdr_parents(const czk_sdr_graph *g, uint32_t node, uint32_t out[14])
{
    czk_sdr_drg_parents(g, node, out);
    czk_sdr_exp_parents(g, node, out + CZK_SDR_DRG_DEGREE);
}

/* ---------------------------------------------------------------------------------------
 * Bulk generation
 * ------------------------------------------------------------------------------------- */

/* 4096 nodes (about a millisecond of work) per task: small enough to balance two to a
 * hundred threads over a 1 Mi-node chunk, large enough that the task counter is cold. */
#define RANGE_TASK_NODES 4096

struct range_ctx {
    const czk_sdr_graph *g;
    uint64_t first, count;
    uint32_t *out;
};

static void range_task(void *arg, size_t task, unsigned worker)
{
    (void)worker;
    const struct range_ctx *c = arg;
    uint64_t lo = (uint64_t)task * RANGE_TASK_NODES;
    uint64_t hi = lo + RANGE_TASK_NODES < c->count ? lo + RANGE_TASK_NODES : c->count;
    for (uint64_t i = lo; i < hi; i++)
        czk_sdr_parents(c->g, (uint32_t)(c->first + i), c->out + i * CZK_SDR_DEGREE);
}

czk_status czk_sdr_parents_range(const czk_sdr_graph *g, uint64_t first, uint64_t count,
                                 uint32_t *out, czk_pool *pool, czk_err *err)
{
    if (g == NULL || (out == NULL && count > 0))
        return czk_err_set(err, CZK_EINVAL, "SDR parents: NULL argument");
    if (first > g->nodes || count > g->nodes - first)
        return czk_err_set(
            err, CZK_EINVAL, "SDR parents: nodes [%llu, +%llu) outside the %llu-node graph",
            (unsigned long long)first, (unsigned long long)count, (unsigned long long)g->nodes);
    struct range_ctx c = {g, first, count, out};
    size_t tasks = (size_t)((count + RANGE_TASK_NODES - 1) / RANGE_TASK_NODES);
    czk_pool_run(pool, tasks, range_task, &c);
    return CZK_OK;
}
