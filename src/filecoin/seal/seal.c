/*
 * Sealing a sector on the CPU: rust-fil-proofs' seal_pre_commit_phase1 (tree_d, comm_d,
 * replica_id, labels) and seal_pre_commit_phase2 (tree_c, encoding, tree_r_last, comm_r)
 * — filecoin-proofs/src/api/seal.rs, storage-proofs-porep/src/stacked/vanilla/proof.rs
 * transform_and_replicate_layers, generate_tree_c_cpu, prepare_tree_r_data_cpu.
 *
 * Upstream keeps the layers and trees on disk and discards the lower rows of tree_r_last;
 * the roots and inclusion paths do not depend on that, so czk keeps everything in memory
 * for the sector sizes this path serves (up to 512 MiB).
 */
#include "filecoin/seal/seal_internal.h"

#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "czk/comm.h"
#include "czk/log.h"
#include "czk/poseidon.h"
#include "czk/sector.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* The largest sector this in-memory path seals: 512 MiB with 2 layers takes ~3.2 GiB;
 * 32 GiB with 11 layers would take ~460 GiB. */
#define MAX_SECTOR_SIZE (512ull << 20)

/* =======================================================================================
 * Fr on little-endian bytes, without the Montgomery round trip
 * ======================================================================================= */

static inline void load_le256(uint64_t l[4], const uint8_t *p)
{
    for (int i = 0; i < 4; i++) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--) v = v << 8 | p[8 * i + b];
        l[i] = v;
    }
}

static inline void store_le256(uint8_t *p, const uint64_t l[4])
{
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 8; b++) p[8 * i + b] = (uint8_t)(l[i] >> (8 * b));
}

/* a < r, limbs least significant first. */
static inline bool below_r(const uint64_t a[4])
{
    for (int i = 3; i >= 0; i--) {
        if (a[i] != CZK_FR_MODULUS[i]) return a[i] < CZK_FR_MODULUS[i];
    }
    return false;
}

/* out = a + b mod r for a, b < r: the sum is below 2r < 2^256, one subtraction at most. */
static inline void add_mod_r(uint64_t out[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t s[4], d[4];
    unsigned __int128 acc = 0;
    for (int i = 0; i < 4; i++) {
        acc += (unsigned __int128)a[i] + b[i];
        s[i] = (uint64_t)acc;
        acc >>= 64;
    }
    unsigned __int128 borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 t = (unsigned __int128)s[i] - CZK_FR_MODULUS[i] - borrow;
        d[i] = (uint64_t)t;
        borrow = (t >> 64) & 1;
    }
    bool keep_sum = borrow != 0; /* s < r */
    for (int i = 0; i < 4; i++) out[i] = keep_sum ? s[i] : d[i];
}

/* =======================================================================================
 * Column hashes and encoding, spread over the pool
 * ======================================================================================= */

/* 4096 nodes a task: ~0.1 s of Poseidon-2 or ~0.4 s of Poseidon-11 on one core, and
 * enough tasks (4096 at 512 MiB) to balance any pool. */
#define TASK_NODES 4096

typedef struct bulk_ctx {
    uint8_t *out;
    const uint8_t *a, *b; /* labels (columns) or data and key (encoding) */
    unsigned layers;
    uint64_t n;
    const czk_poseidon_params *params;
    atomic_uint_fast64_t first_bad; /* lowest offending node, UINT64_MAX for none */
} bulk_ctx;

static void record_bad(bulk_ctx *c, uint64_t node)
{
    uint_fast64_t cur = atomic_load_explicit(&c->first_bad, memory_order_relaxed);
    while (node < cur &&
           !atomic_compare_exchange_weak_explicit(&c->first_bad, &cur, node, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

static void column_task(void *arg, size_t task, unsigned worker)
{
    (void)worker;
    bulk_ctx *c = arg;
    uint64_t lo = (uint64_t)task * TASK_NODES;
    uint64_t hi = lo + TASK_NODES < c->n ? lo + TASK_NODES : c->n;
    czk_fr in[CZK_SDR_MAX_LAYERS], h;
    for (uint64_t v = lo; v < hi; v++) {
        bool ok = true;
        for (unsigned l = 0; l < c->layers; l++)
            ok &= czk_fr_from_bytes_le(&in[l], c->a + ((uint64_t)l * c->n + v) * 32);
        if (!ok) {
            record_bad(c, v);
            return;
        }
        czk_poseidon_merkle(&h, c->params, in);
        czk_fr_to_bytes_le(c->out + v * 32, &h);
    }
}

czk_status czk_sdr_column_hashes(uint8_t *out, const uint8_t *labels, unsigned layers,
                                 uint64_t nodes, czk_pool *pool, czk_err *err)
{
    if (out == NULL || labels == NULL)
        return czk_err_set(err, CZK_EINVAL, "column hashes: NULL argument");
    /* rust-fil-proofs hash_single_column supports exactly these two column sizes. */
    if (layers != 2 && layers != 11)
        return czk_err_set(err, CZK_EINVAL, "column hashes: %u layers (need 2 or 11)", layers);
    const czk_poseidon_params *params = czk_poseidon_params_get(layers);
    if (params == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "column hashes: no Poseidon-%u parameters", layers);
    bulk_ctx c = {.out = out, .a = labels, .layers = layers, .n = nodes, .params = params};
    atomic_init(&c.first_bad, UINT64_MAX);
    czk_pool_run(pool, (size_t)((nodes + TASK_NODES - 1) / TASK_NODES), column_task, &c);
    uint64_t bad = atomic_load(&c.first_bad);
    if (bad != UINT64_MAX)
        return czk_err_set(err, CZK_ENONCANONICAL,
                           "column hashes: a label of node %llu is not below r",
                           (unsigned long long)bad);
    return CZK_OK;
}

static void encode_task(void *arg, size_t task, unsigned worker)
{
    (void)worker;
    bulk_ctx *c = arg;
    uint64_t lo = (uint64_t)task * TASK_NODES;
    uint64_t hi = lo + TASK_NODES < c->n ? lo + TASK_NODES : c->n;
    for (uint64_t v = lo; v < hi; v++) {
        uint64_t d[4], k[4], s[4];
        load_le256(d, c->a + v * 32);
        load_le256(k, c->b + v * 32);
        if (!below_r(d) || !below_r(k)) {
            record_bad(c, v);
            return;
        }
        add_mod_r(s, d, k);
        store_le256(c->out + v * 32, s);
    }
}

czk_status czk_sdr_encode(uint8_t *replica, const uint8_t *data, const uint8_t *key, uint64_t n,
                          czk_pool *pool, czk_err *err)
{
    if (replica == NULL || data == NULL || key == NULL)
        return czk_err_set(err, CZK_EINVAL, "encoding: NULL argument");
    bulk_ctx c = {.out = replica, .a = data, .b = key, .n = n};
    atomic_init(&c.first_bad, UINT64_MAX);
    czk_pool_run(pool, (size_t)((n + TASK_NODES - 1) / TASK_NODES), encode_task, &c);
    uint64_t bad = atomic_load(&c.first_bad);
    if (bad != UINT64_MAX)
        return czk_err_set(err, CZK_ENONCANONICAL, "encoding: data or key node %llu is not below r",
                           (unsigned long long)bad);
    return CZK_OK;
}

/* =======================================================================================
 * The sealed sector
 * ======================================================================================= */

struct czk_sector {
    const czk_seal_proof_info *info;
    czk_sdr_graph *g;
    uint8_t *data;    /* sector_size: padded data, tree_d's leaves */
    uint8_t *labels;  /* layers · sector_size */
    uint8_t *columns; /* sector_size: column hashes, tree_c's leaves */
    uint8_t *replica; /* sector_size: tree_r_last's leaves */
    czk_merkle_tree *tree_d, *tree_c, *tree_r;
    czk_sector_seal_comms comms;
    czk_sector_seal_timings t;
};

void czk_sector_destroy(czk_sector *s)
{
    if (s == NULL) return;
    czk_merkle_destroy(s->tree_d);
    czk_merkle_destroy(s->tree_c);
    czk_merkle_destroy(s->tree_r);
    czk_free(s->data);
    czk_free(s->labels);
    czk_free(s->columns);
    czk_free(s->replica);
    czk_sdr_graph_destroy(s->g);
    czk_free(s);
}

/* First node of `data` (n nodes) that is not below r, or n. */
static uint64_t first_noncanonical(const uint8_t *data, uint64_t n)
{
    for (uint64_t v = 0; v < n; v++) {
        /* Top two bits clear (every fr32-padded node) is below 2^254 < r. */
        if ((data[v * 32 + 31] & 0xc0) == 0) continue;
        uint64_t l[4];
        load_le256(l, data + v * 32);
        if (!below_r(l)) return v;
    }
    return n;
}

czk_status czk_sector_seal(czk_sector **out, const czk_sector_seal_input *in, czk_pool *pool,
                           czk_err *err)
{
    if (out == NULL || in == NULL) return czk_err_set(err, CZK_EINVAL, "seal: NULL argument");
    *out = NULL;
    const czk_seal_proof_info *info = czk_seal_proof_get(in->proof);
    if (info == NULL)
        return czk_err_set(err, CZK_EINVAL, "seal: unknown registered seal proof %d",
                           (int)in->proof);
    if (info->sector_size > MAX_SECTOR_SIZE)
        return czk_err_set(err, CZK_EINVAL,
                           "seal: %s has %llu-byte sectors; the in-memory CPU seal takes "
                           "sectors up to 512 MiB",
                           info->name, (unsigned long long)info->sector_size);
    const uint64_t size = info->sector_size, nodes = info->nodes;
    if (in->data != NULL) {
        uint64_t bad = first_noncanonical(in->data, nodes);
        if (bad != nodes)
            return czk_err_set(err, CZK_ENONCANONICAL,
                               "seal: data node %llu is not below r (not fr32-padded data?)",
                               (unsigned long long)bad);
    }

    double t_start = czk_clock_s();
    czk_sector *s = czk_calloc(1, sizeof *s);
    if (s == NULL) return czk_err_set(err, CZK_ENOMEM, "seal: out of memory");
    s->info = info;
    czk_status st = czk_sdr_graph_create_for_proof(&s->g, in->proof, err);
    if (st != CZK_OK) goto fail;
    s->data = czk_malloc(size);
    s->labels = czk_malloc(size * info->layers);
    s->columns = czk_malloc(size);
    s->replica = czk_malloc(size);
    if (s->data == NULL || s->labels == NULL || s->columns == NULL || s->replica == NULL) {
        st = czk_err_set(err, CZK_ENOMEM, "seal: no memory for a %llu-byte sector",
                         (unsigned long long)size);
        goto fail;
    }
    if (in->data != NULL)
        memcpy(s->data, in->data, size);
    else
        memset(s->data, 0, size);

    /* Phase 1: tree_d and comm_d, replica_id, labels. */
    double t0 = czk_clock_s();
    czk_merkle_config cfg_d = czk_merkle_config_tree_d();
    st = czk_merkle_build(&s->tree_d, &cfg_d, s->data, nodes, pool, err);
    if (st != CZK_OK) goto fail;
    czk_merkle_root(s->tree_d, s->comms.comm_d);
    double t1 = czk_clock_s();
    s->t.tree_d = t1 - t0;

    uint8_t porep_id[32];
    czk_seal_porep_id(porep_id, in->proof);
    st = czk_seal_replica_id(s->comms.replica_id, in->prover_id, in->sector_id, in->ticket,
                             s->comms.comm_d, porep_id, err);
    if (st != CZK_OK) goto fail;

    st = czk_sdr_label_layers(s->labels, s->g, info->layers, s->comms.replica_id, NULL, pool, err);
    if (st != CZK_OK) goto fail;
    double t2 = czk_clock_s();
    s->t.labels = t2 - t1;

    /* Phase 2: tree_c, encoding, tree_r_last, comm_r. */
    czk_merkle_config cfg_r = czk_merkle_config_tree_r(size);
    st = czk_sdr_column_hashes(s->columns, s->labels, info->layers, nodes, pool, err);
    if (st != CZK_OK) goto fail;
    st = czk_merkle_build(&s->tree_c, &cfg_r, s->columns, nodes, pool, err);
    if (st != CZK_OK) goto fail;
    czk_merkle_root(s->tree_c, s->comms.comm_c);
    double t3 = czk_clock_s();
    s->t.tree_c = t3 - t2;

    const uint8_t *last = s->labels + (uint64_t)(info->layers - 1) * size;
    st = czk_sdr_encode(s->replica, s->data, last, nodes, pool, err);
    if (st != CZK_OK) goto fail;
    double t4 = czk_clock_s();
    s->t.encode = t4 - t3;

    st = czk_merkle_build(&s->tree_r, &cfg_r, s->replica, nodes, pool, err);
    if (st != CZK_OK) goto fail;
    czk_merkle_root(s->tree_r, s->comms.comm_r_last);
    st = czk_comm_r(s->comms.comm_r, s->comms.comm_c, s->comms.comm_r_last, err);
    if (st != CZK_OK) goto fail;
    double t5 = czk_clock_s();
    s->t.tree_r_last = t5 - t4;
    s->t.total = t5 - t_start;
    CZK_LOG_DEBUG("sector sealed",
                  "proof=%s sector_id=%llu tree_d_s=%.3f labels_s=%.3f tree_c_s=%.3f "
                  "encode_s=%.3f tree_r_last_s=%.3f",
                  info->name, (unsigned long long)in->sector_id, s->t.tree_d, s->t.labels,
                  s->t.tree_c, s->t.encode, s->t.tree_r_last);
    *out = s;
    return CZK_OK;

fail:
    czk_sector_destroy(s);
    return st;
}

const czk_seal_proof_info *czk_sector_info(const czk_sector *s)
{
    return s->info;
}

void czk_sector_comms(const czk_sector *s, czk_sector_seal_comms *out)
{
    *out = s->comms;
}

void czk_sector_timings(const czk_sector *s, czk_sector_seal_timings *out)
{
    *out = s->t;
}

const czk_sdr_graph *czk_sector_graph(const czk_sector *s)
{
    return s->g;
}

const uint8_t *czk_sector_data(const czk_sector *s)
{
    return s->data;
}

const uint8_t *czk_sector_replica(const czk_sector *s)
{
    return s->replica;
}

const uint8_t *czk_sector_columns(const czk_sector *s)
{
    return s->columns;
}

const uint8_t *czk_sector_layer(const czk_sector *s, unsigned layer)
{
    if (layer < 1 || layer > s->info->layers) return NULL;
    return s->labels + (uint64_t)(layer - 1) * s->info->sector_size;
}

static czk_status check_node(const czk_sector *s, uint64_t node, czk_err *err)
{
    if (node >= s->info->nodes)
        return czk_err_set(err, CZK_EINVAL, "node %llu outside a sector of %llu nodes",
                           (unsigned long long)node, (unsigned long long)s->info->nodes);
    return CZK_OK;
}

static czk_status check_layer(const czk_sector *s, unsigned layer, czk_err *err)
{
    if (layer < 1 || layer > s->info->layers)
        return czk_err_set(err, CZK_EINVAL, "layer %u outside 1..%u", layer, s->info->layers);
    return CZK_OK;
}

czk_status czk_sector_label(const czk_sector *s, unsigned layer, uint64_t node, uint8_t out[32],
                            czk_err *err)
{
    czk_status st = check_layer(s, layer, err);
    if (st == CZK_OK) st = check_node(s, node, err);
    if (st != CZK_OK) return st;
    memcpy(out, czk_sector_layer(s, layer) + node * 32, 32);
    return CZK_OK;
}

czk_status czk_sector_column(const czk_sector *s, uint64_t node, uint8_t *out, czk_err *err)
{
    czk_status st = check_node(s, node, err);
    if (st != CZK_OK) return st;
    for (unsigned l = 1; l <= s->info->layers; l++)
        memcpy(out + (l - 1) * 32, czk_sector_layer(s, l) + node * 32, 32);
    return CZK_OK;
}

czk_status czk_sector_label_parents(const czk_sector *s, unsigned layer, uint64_t node,
                                    uint8_t out[CZK_SDR_LABEL_PARENTS * 32], czk_err *err)
{
    czk_status st = check_layer(s, layer, err);
    if (st == CZK_OK) st = check_node(s, node, err);
    if (st != CZK_OK) return st;
    if (node == 0) return czk_err_set(err, CZK_EINVAL, "node 0 has no parents");
    czk_sdr_label_parents(out, s->g, layer, (uint32_t)node, czk_sector_layer(s, layer),
                          layer > 1 ? czk_sector_layer(s, layer - 1) : NULL);
    return CZK_OK;
}

const czk_merkle_tree *czk_sector_tree_d(const czk_sector *s)
{
    return s->tree_d;
}

const czk_merkle_tree *czk_sector_tree_c(const czk_sector *s)
{
    return s->tree_c;
}

const czk_merkle_tree *czk_sector_tree_r_last(const czk_sector *s)
{
    return s->tree_r;
}

czk_status czk_sector_prove_d(const czk_sector *s, uint64_t node, czk_merkle_path *path,
                              czk_err *err)
{
    czk_status st = check_node(s, node, err);
    return st != CZK_OK ? st : czk_merkle_prove(s->tree_d, node, s->data, path, err);
}

czk_status czk_sector_prove_c(const czk_sector *s, uint64_t node, czk_merkle_path *path,
                              czk_err *err)
{
    czk_status st = check_node(s, node, err);
    return st != CZK_OK ? st : czk_merkle_prove(s->tree_c, node, s->columns, path, err);
}

czk_status czk_sector_prove_r_last(const czk_sector *s, uint64_t node, czk_merkle_path *path,
                                   czk_err *err)
{
    czk_status st = check_node(s, node, err);
    return st != CZK_OK ? st : czk_merkle_prove(s->tree_r, node, s->replica, path, err);
}
