/*
 * SDR labelling (rust-fil-proofs storage-proofs-porep/src/stacked/vanilla/create_label/
 * {single,multi}.rs, graph.rs copy_parents_data_inner*, labeling_proof.rs).
 *
 * Cost. A label is 20 SHA-256 compressions: the 64-byte header block, 18 blocks of
 * parents (36 labels) and a last block holding the 37th parent and the padding. Node
 * v − 1 is always a parent of v, so a layer is one chain of dependent hashes: one thread
 * hashes, and the throughput of the whole labelling is that of one core's compression
 * function. Everything else is taken off that thread:
 *
 *   - SHA-256 is OpenSSL's (EVP), which runs on the x86 SHA extensions when the CPU has
 *     them: about 35 ns a block on the development machine (AMD EPYC with SHA-NI), so a
 *     label cannot take less than about 20 · 35 = 700 ns.
 *   - The parents of the nodes ahead (DRG: two ChaCha8 blocks and bucket sampling;
 *     expander: the Feistel walk; ~0.3 µs a node, a third of a label) and the copying
 *     of their labels out of the sector-sized layer arrays (random reads, mostly cache
 *     misses) happen on prefetch threads, as in upstream's multi.rs. A producer copies
 *     each node's 6 or 14 parent labels next to each other into a ring of chunks, except
 *     those not labelled yet when it gets there (the close DRG parents, which the hashing
 *     thread has in cache anyway); the hashing thread copies those itself. Measured:
 *     1053 ns a label on one thread computing parents inline, 812 ns on one thread with
 *     a parents array, 755 ns (1.06× the floor) with one prefetch thread at 8 MiB and
 *     793 ns at 512 MiB, where the parents' labels are mostly cache misses.
 *
 * Scheduling is lock-free and never blocks on a thread that may not be running: the
 * hashing task produces a chunk itself when no producer has claimed it, so the whole
 * labelling also completes when the pool runs its tasks one after another (a nested
 * run) or has one worker.
 */
#include "filecoin/seal/seal_internal.h"

#include "czk/alloc.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#if defined(__x86_64__)
#include <immintrin.h> /* _mm_pause in the spin back-off */
#endif

/* The SHA-256 of every label goes through OpenSSL's EVP interface, which takes the x86
 * SHA extensions (SHA-NI) by itself when the CPU has them. */
const char *czk_sdr_sha256_backend(void) { return "openssl"; }

/* =======================================================================================
 * One label
 * ======================================================================================= */


static void header_block(uint8_t blk[64], const uint8_t replica_id[32], uint32_t layer,
                         uint64_t node)
{
    memcpy(blk, replica_id, 32);
    for (int i = 0; i < 4; i++) blk[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++) blk[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    memset(blk + 44, 0, 20);
}

/* Finish a label: the digest with its top two bits cleared (an Fr element, LE). */
static void finish_label(uint8_t out[32], EVP_MD_CTX *md)
{
    unsigned int len = 32;
    EVP_DigestFinal_ex(md, out, &len);
    out[31] &= 0x3f;
}

/*
 * The label of a node > 0 from its gathered parents: `p` holds the node's 6 (layer 1) or
 * 14 (layer > 1) parent labels contiguously. The 37 expanded parents are p cycled:
 * 6 × 6 + parents[0], or 14 × 2 + parents[0..8] + parents[8]. Feeding the digest p's
 * bytes in that pattern hashes the 1248-byte preimage without building it.
 */
static void label_gathered(uint8_t out[32], EVP_MD_CTX *md, const uint8_t header[64],
                           const uint8_t *p, bool expander)
{
    EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    EVP_DigestUpdate(md, header, 64);
    if (!expander) {
        for (int r = 0; r < 6; r++) EVP_DigestUpdate(md, p, 6 * 32);
        EVP_DigestUpdate(md, p, 32); /* parent 37 = parents[0] */
    } else {
        EVP_DigestUpdate(md, p, 14 * 32);
        EVP_DigestUpdate(md, p, 14 * 32);
        EVP_DigestUpdate(md, p, 8 * 32);
        EVP_DigestUpdate(md, p + 8 * 32, 32); /* parent 37 = parents[8] */
    }
    finish_label(out, md);
}

/* Node 0 hashes only its 64-byte header (it has no parents). */
static void label_node0(uint8_t out[32], EVP_MD_CTX *md, const uint8_t header[64])
{
    EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    EVP_DigestUpdate(md, header, 64);
    finish_label(out, md);
}

void czk_sdr_label_hash(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer,
                        uint64_t node, const uint8_t *parents)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    uint8_t header[64];
    header_block(header, replica_id, layer, node);
    if (node == 0) {
        label_node0(out, md, header);
    } else {
        EVP_DigestInit_ex(md, EVP_sha256(), NULL);
        EVP_DigestUpdate(md, header, 64);
        EVP_DigestUpdate(md, parents, (size_t)CZK_SDR_LABEL_PARENTS * 32);
        finish_label(out, md);
    }
    EVP_MD_CTX_free(md);
}

bool czk_sdr_label_parents(uint8_t *out, const czk_sdr_graph *g, uint32_t layer, uint32_t node,
                           const uint8_t *cur, const uint8_t *prev)
{
    if (node == 0) {
        memset(out, 0, CZK_SDR_LABEL_PARENTS * 32);
        return false;
    }
    uint32_t par[CZK_SDR_DEGREE];
    czk_sdr_parents(g, node, par);
    unsigned np = layer == 1 ? CZK_SDR_DRG_DEGREE : CZK_SDR_DEGREE;
    for (unsigned i = 0; i < CZK_SDR_LABEL_PARENTS; i++) {
        unsigned k = i % np;
        const uint8_t *src = k < CZK_SDR_DRG_DEGREE ? cur : prev;
        memcpy(out + 32 * i, src + (size_t)par[k] * 32, 32);
    }
    return true;
}

/* =======================================================================================
 * Bulk labelling: one hashing task, prefetching producers, a ring of chunks
 * ======================================================================================= */

/*
 * 256 nodes a chunk (about 0.25 ms of hashing) and 16 chunks in the ring: 2 MiB of ring,
 * which stays in the L2/L3 caches between the producer writing a chunk and the hasher
 * reading it, and a lookahead of 4096 nodes so that a producer is never the one waited
 * for. Producers re-read the hasher's progress every 16 nodes: often enough that few
 * labels are reported missing, rarely enough not to bounce its cache line.
 */
#define CHUNK_NODES    256
#define RING_CHUNKS    16
#define PROGRESS_EVERY 16
#define MAX_PRODUCERS  3
/* Backoff rounds (64 spins, then yields) the hasher waits for a late producer before
 * producing the chunk itself: ~0.1 ms when the producer's core is taken. */
#define STEAL_AFTER 256

/* One node of a chunk: its parents and their labels side by side (one 512-byte unit). */
typedef struct gathered {
    uint8_t labels[CZK_SDR_DEGREE][32];
    uint32_t parents[CZK_SDR_DEGREE];
    uint16_t missing; /* bit k: labels[k] not copied yet */
    uint8_t pad[6];
} gathered;
_Static_assert(sizeof(gathered) == 512, "a gathered node is 512 bytes");

typedef struct labeler {
    const czk_sdr_graph *g;
    const uint32_t *parents; /* optional: 14 per node */
    uint8_t *labels;         /* layers · nodes · 32 */
    uint64_t nodes;
    unsigned layers;
    const uint8_t *replica_id;
    uint64_t chunks_per_layer, total_chunks;
    EVP_MD_CTX *md; /* used by the hashing thread only */
    gathered *ring;    /* RING_CHUNKS · CHUNK_NODES */
    gathered *scratch; /* CHUNK_NODES: chunks the hasher produces itself */
    /* Each on its own cache line: written by different threads. */
    _Alignas(64) atomic_uint_fast64_t next_claim; /* next chunk nobody produces yet */
    _Alignas(64) atomic_uint_fast64_t consumed;   /* chunks fully hashed */
    _Alignas(64) atomic_uint_fast64_t progress;   /* labels done, counted across layers */
    /* ready[s] = c + 1 once chunk c (c ≡ s mod RING) is published in slot s. */
    _Alignas(64) atomic_uint_fast64_t ready[RING_CHUNKS];
    atomic_bool busy[RING_CHUNKS]; /* a producer is writing slot s */
} labeler;

static void pause_cpu(void)
{
#if defined(__x86_64__)
    _mm_pause();
#endif
}

/* Waiting: spin briefly (the wait is usually short), then yield, then — only where
 * `may_sleep`, i.e. for a producer waiting for ring space — sleep, so that it leaves its
 * core to others on a shared machine. The hashing thread never sleeps: it is the
 * critical path, and a 20 µs sleep costs ~60 µs with timer slack, a quarter of a chunk. */
static void backoff(unsigned *round, bool may_sleep)
{
    unsigned r = (*round)++;
    if (r < 64) {
        pause_cpu();
    } else if (r < 128 || !may_sleep) {
        sched_yield();
    } else {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

/* Fill `slot` (CHUNK_NODES entries) for chunk c: parents, and the parent labels that are
 * labelled already. The caller publishes it. */
static void produce(labeler *L, uint64_t c, gathered *slot)
{
    unsigned layer = (unsigned)(c / L->chunks_per_layer) + 1;
    uint64_t first = (c % L->chunks_per_layer) * CHUNK_NODES;
    uint64_t count = L->nodes - first < CHUNK_NODES ? L->nodes - first : CHUNK_NODES;
    /* Global label indices: layer ℓ's node v is (ℓ − 1)·nodes + v in `labels`. */
    uint64_t base_cur = (uint64_t)(layer - 1) * L->nodes;
    uint64_t base_prev = layer > 1 ? base_cur - L->nodes : 0;
    unsigned np = layer == 1 ? CZK_SDR_DRG_DEGREE : CZK_SDR_DEGREE;
    uint64_t avail = 0;
    for (uint64_t i = 0; i < count; i++) {
        gathered *gn = &slot[i];
        uint32_t node = (uint32_t)(first + i);
        if (i % PROGRESS_EVERY == 0)
            avail = atomic_load_explicit(&L->progress, memory_order_acquire);
        if (L->parents != NULL)
            memcpy(gn->parents, L->parents + (size_t)node * CZK_SDR_DEGREE, sizeof gn->parents);
        else if (layer == 1)
            czk_sdr_drg_parents(L->g, node, gn->parents);
        else
            czk_sdr_parents(L->g, node, gn->parents);
        unsigned missing = 0;
        for (unsigned k = 0; k < np; k++) {
            uint64_t gi = (k < CZK_SDR_DRG_DEGREE ? base_cur : base_prev) + gn->parents[k];
            if (gi < avail)
                memcpy(gn->labels[k], L->labels + gi * 32, 32);
            else
                missing |= 1u << k;
        }
        gn->missing = (uint16_t)missing;
    }
}

/* Test hooks (seal_internal.h): chunks the hasher took over from a late producer, and
 * a delay that makes producers late. */
static atomic_ulong steals;
static atomic_uint producer_delay_us;

unsigned long czk__sdr_label_steals(void)
{
    return atomic_load(&steals);
}

void czk__sdr_set_producer_delay(unsigned usec)
{
    atomic_store(&producer_delay_us, usec);
}

static gathered *ring_slot(labeler *L, uint64_t c)
{
    return L->ring + (size_t)(c % RING_CHUNKS) * CHUNK_NODES;
}

/*
 * The hashing task: every chunk in order. A chunk comes from its ring slot once its
 * producer has published it. When nobody has claimed it yet, the hasher claims and
 * produces it itself; when a producer has claimed it but is late (descheduled on a busy
 * machine), the hasher waits only briefly and then produces it too. Both times it uses
 * its own scratch chunk and never touches the ring slot, which a late producer may still
 * be writing: producers hold a slot's busy flag while they write it, so the producer of
 * the slot's next chunk waits for the late one, and nothing else ever writes a slot.
 */
static void consume(labeler *L, gathered *scratch)
{
    uint8_t header[64];
    for (uint64_t c = 0; c < L->total_chunks; c++) {
        atomic_uint_fast64_t *ready = &L->ready[c % RING_CHUNKS];
        gathered *slot = ring_slot(L, c);
        if (atomic_load_explicit(ready, memory_order_acquire) != c + 1) {
            uint_fast64_t want = c;
            if (atomic_compare_exchange_strong_explicit(
                    &L->next_claim, &want, c + 1, memory_order_relaxed, memory_order_relaxed)) {
                produce(L, c, scratch);
                slot = scratch;
            } else {
                unsigned round = 0;
                while (atomic_load_explicit(ready, memory_order_acquire) != c + 1 &&
                       round < STEAL_AFTER)
                    backoff(&round, false);
                if (atomic_load_explicit(ready, memory_order_acquire) != c + 1) {
                    atomic_fetch_add_explicit(&steals, 1, memory_order_relaxed);
                    produce(L, c, scratch);
                    slot = scratch;
                }
            }
        }
        unsigned layer = (unsigned)(c / L->chunks_per_layer) + 1;
        uint64_t first = (c % L->chunks_per_layer) * CHUNK_NODES;
        uint64_t count = L->nodes - first < CHUNK_NODES ? L->nodes - first : CHUNK_NODES;
        uint64_t base_cur = (uint64_t)(layer - 1) * L->nodes;
        uint64_t base_prev = layer > 1 ? base_cur - L->nodes : 0;
        bool expander = layer > 1;
        header_block(header, L->replica_id, layer, 0);
        for (uint64_t i = 0; i < count; i++) {
            uint64_t v = first + i;
            gathered *gn = &slot[i];
            for (int b = 0; b < 8; b++) header[36 + b] = (uint8_t)(v >> (56 - 8 * b));
            uint8_t *dst = L->labels + (base_cur + v) * 32;
            if (v == 0) {
                label_node0(dst, L->md, header);
            } else {
                for (unsigned m = gn->missing; m != 0; m &= m - 1) {
                    unsigned k = (unsigned)__builtin_ctz(m);
                    uint64_t gi = (k < CZK_SDR_DRG_DEGREE ? base_cur : base_prev) + gn->parents[k];
                    memcpy(gn->labels[k], L->labels + gi * 32, 32);
                }
                label_gathered(dst, L->md, header, &gn->labels[0][0], expander);
            }
            atomic_store_explicit(&L->progress, base_cur + v + 1, memory_order_release);
        }
        atomic_store_explicit(&L->consumed, c + 1, memory_order_release);
    }
}

/* A prefetching task: claim the next unclaimed chunk while the ring has room. */
static void prefetch(labeler *L)
{
    unsigned round = 0;
    for (;;) {
        uint_fast64_t c = atomic_load_explicit(&L->next_claim, memory_order_relaxed);
        if (c >= L->total_chunks) return;
        if (c >= atomic_load_explicit(&L->consumed, memory_order_acquire) + RING_CHUNKS) {
            backoff(&round, true);
            continue;
        }
        if (!atomic_compare_exchange_weak_explicit(&L->next_claim, &c, c + 1, memory_order_relaxed,
                                                   memory_order_relaxed))
            continue;
        /* The hasher is past chunk c − RING, but that chunk's producer may be late and
         * still writing the slot: wait for it. */
        atomic_bool *busy = &L->busy[c % RING_CHUNKS];
        round = 0;
        while (atomic_exchange_explicit(busy, true, memory_order_acquire)) backoff(&round, true);
        unsigned delay = atomic_load_explicit(&producer_delay_us, memory_order_relaxed);
        if (delay != 0 && c % 3 == 1) {
            struct timespec ts = {0, (long)delay * 1000};
            nanosleep(&ts, NULL);
        }
        produce(L, c, ring_slot(L, c));
        atomic_store_explicit(&L->ready[c % RING_CHUNKS], c + 1, memory_order_release);
        atomic_store_explicit(busy, false, memory_order_release);
        round = 0;
    }
}

static void label_task(void *ctx, size_t task, unsigned worker)
{
    (void)worker;
    labeler *L = ctx;
    if (task == 0)
        consume(L, L->scratch);
    else
        prefetch(L);
}

czk_status czk_sdr_label_layers(uint8_t *labels, const czk_sdr_graph *g, unsigned layers,
                                const uint8_t replica_id[32], const uint32_t *parents,
                                czk_pool *pool, czk_err *err)
{
    if (labels == NULL || g == NULL || replica_id == NULL)
        return czk_err_set(err, CZK_EINVAL, "labelling: NULL argument");
    if (layers < 1 || layers > CZK_SDR_MAX_LAYERS)
        return czk_err_set(err, CZK_EINVAL, "labelling: %u layers (need 1..%d)", layers,
                           CZK_SDR_MAX_LAYERS);
    labeler *L = czk_aligned_alloc(64, sizeof *L);
    gathered *ring = czk_aligned_alloc(64, sizeof(gathered) * (RING_CHUNKS + 1) * CHUNK_NODES);
    if (L == NULL || ring == NULL) {
        czk_free(L);
        czk_free(ring);
        return czk_err_set(err, CZK_ENOMEM, "labelling: out of memory");
    }
    memset(L, 0, sizeof *L);
    L->g = g;
    L->parents = parents;
    L->labels = labels;
    L->nodes = czk_sdr_graph_nodes(g);
    L->layers = layers;
    L->replica_id = replica_id;
    L->chunks_per_layer = (L->nodes + CHUNK_NODES - 1) / CHUNK_NODES;
    L->total_chunks = L->chunks_per_layer * layers;
    L->md = EVP_MD_CTX_new();
    if (L->md == NULL) {
        czk_free(L);
        czk_free(ring);
        return czk_err_set(err, CZK_ENOMEM, "labelling: out of memory");
    }
    L->ring = ring;
    L->scratch = ring + (size_t)RING_CHUNKS * CHUNK_NODES;
    atomic_init(&L->next_claim, 0);
    atomic_init(&L->consumed, 0);
    atomic_init(&L->progress, 0);
    for (int i = 0; i < RING_CHUNKS; i++) {
        atomic_init(&L->ready[i], 0);
        atomic_init(&L->busy[i], false);
    }

    unsigned workers = czk_pool_size(pool);
    unsigned tasks = workers < 1 + MAX_PRODUCERS ? workers : 1 + MAX_PRODUCERS;
    if (tasks <= 1)
        consume(L, L->scratch);
    else
        czk_pool_run(pool, tasks, label_task, L);

    EVP_MD_CTX_free(L->md);
    czk_free(ring);
    czk_free(L);
    return CZK_OK;
}
