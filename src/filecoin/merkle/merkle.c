/*
 * Merkle trees of a sector and the commitments built from them, as rust-fil-proofs
 * computes them (storage-proofs-core/src/merkle, the merkletree crate 0.23,
 * filecoin-proofs/src/pieces.rs, storage-proofs-porep stacked/vanilla/proof.rs).
 *
 * A tree of shape B-S-T is one tree whose levels have arities B…B, S, T from the bottom
 * (see czk/merkle.h). Its stored levels live in one array, bottom first. Building runs in
 * two phases:
 *   1. the leaves are cut into chunks of B^h leaves (h base levels, at most 2^15 leaves
 *      so that a chunk's levels stay in the cache); one task hashes a chunk up h levels,
 *      writing stored levels into the tree and discarded ones into per-worker scratch;
 *   2. the levels above h, level by level, each split into runs of parents.
 * Proofs of a tree that discarded its lower levels rebuild the one small sub-tree that
 * holds the leaf from the caller's leaves, as LevelCacheStore proofs do.
 */
#include "czk/comm.h"
#include "czk/merkle.h"

#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "czk/fr32.h"
#include "czk/poseidon.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define NB           CZK_MERKLE_NODE_BYTES
#define MAX_ARITY    16
#define CHUNK_LEAVES (UINT64_C(1) << 15) /* 1 MiB of leaves per phase-1 task */
#define SHA_RUN      4096                /* phase-2 parents per task: ~0.7 ms of SHA-256 */
#define POSEIDON_RUN 32                  /* ~1 ms of Poseidon-8 */

struct czk_merkle_tree {
    czk_merkle_config cfg;
    uint64_t nleaves;
    unsigned levels;
    unsigned keep_from;                         /* effective: ≤ levels */
    unsigned arity[CZK_MERKLE_MAX_LEVELS + 1];  /* arity[l]: the hash producing level l */
    uint64_t count[CZK_MERKLE_MAX_LEVELS + 1];  /* nodes of level l */
    uint64_t offset[CZK_MERKLE_MAX_LEVELS + 1]; /* first node of level l in `nodes` */
    uint8_t *nodes;
    uint8_t root[NB];
};

/* ---------------------------------------------------------------------------------------
 * Shapes
 * ------------------------------------------------------------------------------------- */

static bool poseidon_arity_ok(unsigned a)
{
    return a == 2 || a == 4 || a == 8 || a == 16;
}

/* Arities and counts of every level; returns the number of levels, 0 if invalid. */
static unsigned shape(const czk_merkle_config *cfg, uint64_t nleaves,
                      unsigned arity[CZK_MERKLE_MAX_LEVELS + 1],
                      uint64_t count[CZK_MERKLE_MAX_LEVELS + 1])
{
    if (cfg == NULL || nleaves < 2) return 0;
    unsigned b = cfg->base_arity, s = cfg->sub_arity, t = cfg->top_arity;
    if (cfg->hasher == CZK_MERKLE_SHA256) {
        if (b != 2 || s != 0 || t != 0) return 0;
    } else if (cfg->hasher == CZK_MERKLE_POSEIDON) {
        if (!poseidon_arity_ok(b) || (s != 0 && !poseidon_arity_ok(s)) ||
            (t != 0 && !poseidon_arity_ok(t)) || (t != 0 && s == 0))
            return 0;
    } else {
        return 0;
    }
    uint64_t m = nleaves;
    if (t != 0) {
        if (m % t != 0) return 0;
        m /= t;
    }
    if (s != 0) {
        if (m % s != 0) return 0;
        m /= s;
    }
    unsigned kb = 0;
    while (m > 1) {
        if (m % b != 0) return 0;
        m /= b;
        kb++;
    }
    unsigned levels = kb + (s != 0) + (t != 0);
    if (kb == 0 || levels > CZK_MERKLE_MAX_LEVELS) return 0;
    unsigned siblings = kb * (b - 1) + (s != 0 ? s - 1 : 0) + (t != 0 ? t - 1 : 0);
    if (siblings > CZK_MERKLE_MAX_SIBLINGS) return 0;
    count[0] = nleaves;
    for (unsigned l = 1; l <= levels; l++) {
        arity[l] = l <= kb ? b : (l == kb + 1 && s != 0) ? s : t;
        count[l] = count[l - 1] / arity[l];
    }
    arity[0] = 0;
    return levels;
}

unsigned czk_merkle_height(const czk_merkle_config *cfg, uint64_t nleaves)
{
    unsigned arity[CZK_MERKLE_MAX_LEVELS + 1];
    uint64_t count[CZK_MERKLE_MAX_LEVELS + 1];
    return shape(cfg, nleaves, arity, count);
}

uint64_t czk_merkle_storage_bytes(const czk_merkle_config *cfg, uint64_t nleaves)
{
    unsigned arity[CZK_MERKLE_MAX_LEVELS + 1];
    uint64_t count[CZK_MERKLE_MAX_LEVELS + 1];
    unsigned levels = shape(cfg, nleaves, arity, count);
    if (levels == 0) return 0;
    unsigned keep = cfg->keep_from < levels ? cfg->keep_from : levels;
    uint64_t total = 0;
    for (unsigned l = keep; l <= levels; l++) total += count[l];
    return total * NB;
}

czk_merkle_config czk_merkle_config_tree_d(void)
{
    czk_merkle_config c = {CZK_MERKLE_SHA256, 2, 0, 0, 1};
    return c;
}

czk_merkle_config czk_merkle_config_tree_r(uint64_t sector_size)
{
    czk_merkle_config c = {CZK_MERKLE_POSEIDON, 8, 0, 0, 1};
    if (sector_size == 0 || (sector_size & (sector_size - 1)) != 0) {
        c.base_arity = 0;
        return c;
    }
    /* filecoin-proofs constants.rs: SectorShapeBase below 32 GiB, SectorShapeSub8 at
     * 32 GiB, SectorShapeTop2 at 64 GiB. */
    if (sector_size >= (UINT64_C(32) << 30)) c.sub_arity = 8;
    if (sector_size >= (UINT64_C(64) << 30)) c.top_arity = 2;
    return c;
}

/* ---------------------------------------------------------------------------------------
 * Node hashing
 * ------------------------------------------------------------------------------------- */

/* What one level's hashing needs, resolved before any task runs. */
typedef struct hasher {
    czk_merkle_hasher kind;
    unsigned arity;
    const czk_poseidon_params *params; /* Poseidon only */
} hasher;

static czk_status hasher_init(hasher *h, czk_merkle_hasher kind, unsigned arity)
{
    h->kind = kind;
    h->arity = arity;
    h->params = NULL;
    if (kind == CZK_MERKLE_SHA256) return arity == 2 ? CZK_OK : CZK_EINVAL;
    if (kind != CZK_MERKLE_POSEIDON || !poseidon_arity_ok(arity)) return CZK_EINVAL;
    h->params = czk_poseidon_params_get(arity);
    return h->params != NULL ? CZK_OK : CZK_EINTERNAL;
}

/* One Poseidon node over `arity` contiguous children. `bad` gets the child position of
 * a non-canonical input. */
static czk_status poseidon_node(uint8_t out[NB], const hasher *h, const uint8_t *children,
                                unsigned *bad)
{
    czk_fr in[MAX_ARITY], r;
    for (unsigned c = 0; c < h->arity; c++) {
        if (!czk_fr_from_bytes_le(&in[c], children + (size_t)NB * c)) {
            *bad = c;
            return CZK_ENONCANONICAL;
        }
    }
    czk_poseidon_merkle(&r, h->params, in);
    czk_fr_to_bytes_le(out, &r);
    return CZK_OK;
}

/* `n` parents from `n·arity` contiguous children. On CZK_ENONCANONICAL, *bad is the
 * index of the offending child within `src`. `dst` may alias `src`. */
static czk_status hash_run(const hasher *h, uint8_t *dst, const uint8_t *src, uint64_t n,
                           uint64_t *bad)
{
    if (h->kind == CZK_MERKLE_SHA256) return czk_sha256_nodes(dst, src, (size_t)n);
    for (uint64_t p = 0; p < n; p++) {
        unsigned c = 0;
        uint8_t out[NB];
        if (poseidon_node(out, h, src + (size_t)NB * h->arity * p, &c) != CZK_OK) {
            *bad = p * h->arity + c;
            return CZK_ENONCANONICAL;
        }
        memcpy(dst + (size_t)NB * p, out, NB);
    }
    return CZK_OK;
}

/* ---------------------------------------------------------------------------------------
 * Building
 * ------------------------------------------------------------------------------------- */

typedef struct build_ctx {
    czk_merkle_tree *t;
    const uint8_t *leaves;
    hasher h[CZK_MERKLE_MAX_LEVELS + 1]; /* per level */
    unsigned hc;                         /* phase-1 height */
    uint64_t chunk_leaves;               /* base^hc */
    uint8_t *scratch;                    /* per worker: two buffers of base^(hc−1) nodes */
    size_t scratch_nodes;
    uint8_t *temp[2]; /* phase-2 levels that are not kept */
    unsigned level;   /* phase 2: the level being built */
    const uint8_t *src;
    uint8_t *dst;
    uint64_t run;
    _Atomic int status;
    _Atomic uint64_t bad_leaf; /* smallest non-canonical leaf index seen */
} build_ctx;

static uint8_t *level_ptr(const czk_merkle_tree *t, unsigned l)
{
    return t->nodes + (size_t)NB * t->offset[l];
}

static void record_error(build_ctx *c, czk_status s, uint64_t bad_leaf)
{
    int expected = CZK_OK;
    atomic_compare_exchange_strong(&c->status, &expected, (int)s);
    if (s == CZK_ENONCANONICAL) {
        uint64_t cur = atomic_load(&c->bad_leaf);
        while (bad_leaf < cur && !atomic_compare_exchange_weak(&c->bad_leaf, &cur, bad_leaf)) {
        }
    }
}

static void chunk_task(void *arg, size_t chunk, unsigned worker)
{
    build_ctx *c = arg;
    czk_merkle_tree *t = c->t;
    if (atomic_load_explicit(&c->status, memory_order_relaxed) != CZK_OK) return;
    uint64_t first = (uint64_t)chunk * c->chunk_leaves;
    const uint8_t *src = c->leaves + (size_t)NB * first;
    if (t->keep_from == 0)
        memcpy(level_ptr(t, 0) + (size_t)NB * first, src, (size_t)NB * c->chunk_leaves);
    uint8_t *scratch = c->scratch + (size_t)NB * 2 * c->scratch_nodes * worker;
    uint64_t n = c->chunk_leaves;
    for (unsigned l = 1; l <= c->hc; l++) {
        n /= t->arity[l];
        uint64_t first_l = (uint64_t)chunk * n; /* this chunk's first node of level l */
        uint8_t *dst;
        if (l >= t->keep_from)
            dst = level_ptr(t, l) + (size_t)NB * first_l;
        else if (l == c->hc)
            dst = c->temp[0] + (size_t)NB * first_l;
        else
            dst = scratch + (size_t)NB * c->scratch_nodes * (l & 1);
        uint64_t bad = 0;
        czk_status s = hash_run(&c->h[l], dst, src, n, &bad);
        if (s != CZK_OK) {
            record_error(c, s, first + bad); /* only level 1 reads leaves */
            return;
        }
        src = dst;
    }
}

static void level_task(void *arg, size_t task, unsigned worker)
{
    (void)worker;
    build_ctx *c = arg;
    if (atomic_load_explicit(&c->status, memory_order_relaxed) != CZK_OK) return;
    const czk_merkle_tree *t = c->t;
    unsigned l = c->level, a = t->arity[l];
    uint64_t first = (uint64_t)task * c->run, n = t->count[l] - first;
    if (n > c->run) n = c->run;
    uint64_t bad = 0;
    czk_status s =
        hash_run(&c->h[l], c->dst + (size_t)NB * first, c->src + (size_t)NB * a * first, n, &bad);
    if (s != CZK_OK) record_error(c, s, a * first + bad);
}

czk_status czk_merkle_build(czk_merkle_tree **out, const czk_merkle_config *cfg,
                            const uint8_t *leaves, uint64_t nleaves, czk_pool *pool, czk_err *err)
{
    *out = NULL;
    czk_merkle_tree *t = czk_calloc(1, sizeof *t);
    build_ctx *c = czk_calloc(1, sizeof *c);
    czk_status s = CZK_OK;
    if (t == NULL || c == NULL) {
        s = czk_err_set(err, CZK_ENOMEM, "merkle: out of memory");
        goto fail;
    }
    t->levels = shape(cfg, nleaves, t->arity, t->count);
    if (t->levels == 0 || leaves == NULL) {
        s = czk_err_set(err, CZK_EINVAL,
                        "merkle: %s: %llu leaves do not fit shape %u-%u-%u of hasher %d",
                        leaves == NULL ? "no leaves" : "bad shape", (unsigned long long)nleaves,
                        cfg != NULL ? cfg->base_arity : 0, cfg != NULL ? cfg->sub_arity : 0,
                        cfg != NULL ? cfg->top_arity : 0, cfg != NULL ? (int)cfg->hasher : -1);
        goto fail;
    }
    t->cfg = *cfg;
    t->nleaves = nleaves;
    t->keep_from = cfg->keep_from < t->levels ? cfg->keep_from : t->levels;
    uint64_t total = 0;
    for (unsigned l = t->keep_from; l <= t->levels; l++) {
        t->offset[l] = total;
        total += t->count[l];
    }
    t->nodes = czk_malloc((size_t)(total * NB));
    if (t->nodes == NULL) {
        s = czk_err_set(err, CZK_ENOMEM, "merkle: cannot allocate %llu bytes of tree",
                        (unsigned long long)(total * NB));
        goto fail;
    }
    for (unsigned l = 1; l <= t->levels; l++) {
        if (hasher_init(&c->h[l], cfg->hasher, t->arity[l]) != CZK_OK) {
            s = czk_err_set(err, CZK_EINTERNAL, "merkle: no Poseidon parameters of arity %u",
                            t->arity[l]);
            goto fail;
        }
    }

    /* Phase-1 height: the most base levels whose chunk fits CHUNK_LEAVES, lowered while
     * there would be fewer than four chunks per worker. */
    unsigned workers = czk_pool_size(pool), base = cfg->base_arity;
    unsigned kb = t->levels - (cfg->sub_arity != 0) - (cfg->top_arity != 0); /* base levels */
    unsigned hc = 1;
    uint64_t chunk = base;
    while (hc < kb && chunk * base <= CHUNK_LEAVES) {
        hc++;
        chunk *= base;
    }
    while (hc > 1 && nleaves / chunk < 4ull * workers) {
        hc--;
        chunk /= base;
    }
    c->t = t;
    c->leaves = leaves;
    c->hc = hc;
    c->chunk_leaves = chunk;
    c->scratch_nodes = (size_t)(chunk / base);
    atomic_init(&c->status, CZK_OK);
    atomic_init(&c->bad_leaf, UINT64_MAX);
    uint64_t nchunks = nleaves / chunk;
    c->scratch = czk_malloc((size_t)NB * 2 * c->scratch_nodes * workers);
    /* Levels hc..levels−1 that are not kept go through two ping-pong buffers of the
     * width of level hc. */
    bool need_temp = hc < t->keep_from;
    if (need_temp) {
        c->temp[0] = czk_malloc((size_t)(NB * t->count[hc]));
        c->temp[1] = czk_malloc((size_t)(NB * t->count[hc]));
    }
    if (c->scratch == NULL || (need_temp && (c->temp[0] == NULL || c->temp[1] == NULL))) {
        s = czk_err_set(err, CZK_ENOMEM, "merkle: out of memory for scratch");
        goto fail;
    }
    czk_pool_run(pool, (size_t)nchunks, chunk_task, c);

    unsigned cur = 0; /* temp buffer holding the last unkept level */
    for (unsigned l = hc + 1; l <= t->levels && atomic_load(&c->status) == CZK_OK; l++) {
        c->level = l;
        c->src = l - 1 >= t->keep_from ? level_ptr(t, l - 1) : c->temp[cur];
        c->dst = l >= t->keep_from ? level_ptr(t, l) : c->temp[cur ^ 1];
        if (l < t->keep_from) cur ^= 1;
        c->run = cfg->hasher == CZK_MERKLE_SHA256 ? SHA_RUN : POSEIDON_RUN;
        czk_pool_run(pool, (size_t)((t->count[l] + c->run - 1) / c->run), level_task, c);
    }
    s = (czk_status)atomic_load(&c->status);
    if (s == CZK_ENONCANONICAL) {
        czk_err_set(err, s, "merkle: leaf %llu is not a canonical Fr element (≥ r)",
                    (unsigned long long)atomic_load(&c->bad_leaf));
        goto fail;
    } else if (s != CZK_OK) {
        czk_err_set(err, s, "merkle: hashing failed (OpenSSL)");
        goto fail;
    }
    memcpy(t->root, level_ptr(t, t->levels), NB);
    czk_free(c->scratch);
    czk_free(c->temp[0]);
    czk_free(c->temp[1]);
    czk_free(c);
    *out = t;
    return CZK_OK;

fail:
    if (c != NULL) {
        czk_free(c->scratch);
        czk_free(c->temp[0]);
        czk_free(c->temp[1]);
        czk_free(c);
    }
    czk_merkle_destroy(t);
    return s;
}

czk_status czk_merkle_root_of(uint8_t root[32], const czk_merkle_config *cfg, const uint8_t *leaves,
                              uint64_t nleaves, czk_pool *pool, czk_err *err)
{
    if (cfg == NULL) return czk_err_set(err, CZK_EINVAL, "merkle: no config");
    czk_merkle_config top = *cfg;
    top.keep_from = CZK_MERKLE_MAX_LEVELS; /* clamped to the height: the root alone */
    czk_merkle_tree *t;
    czk_status s = czk_merkle_build(&t, &top, leaves, nleaves, pool, err);
    if (s != CZK_OK) return s;
    memcpy(root, t->root, NB);
    czk_merkle_destroy(t);
    return CZK_OK;
}

void czk_merkle_destroy(czk_merkle_tree *tree)
{
    if (tree == NULL) return;
    czk_free(tree->nodes);
    czk_free(tree);
}

void czk_merkle_root(const czk_merkle_tree *tree, uint8_t root[32])
{
    memcpy(root, tree->root, NB);
}

uint64_t czk_merkle_leaf_count(const czk_merkle_tree *tree)
{
    return tree->nleaves;
}

unsigned czk_merkle_levels(const czk_merkle_tree *tree)
{
    return tree->levels;
}

unsigned czk_merkle_level_arity(const czk_merkle_tree *tree, unsigned level)
{
    return level >= 1 && level <= tree->levels ? tree->arity[level] : 0;
}

const uint8_t *czk_merkle_level_nodes(const czk_merkle_tree *tree, unsigned level, uint64_t *count)
{
    if (level > tree->levels || level < tree->keep_from) return NULL;
    if (count != NULL) *count = tree->count[level];
    return level_ptr(tree, level);
}

/* ---------------------------------------------------------------------------------------
 * Proofs
 * ------------------------------------------------------------------------------------- */

czk_status czk_merkle_prove(const czk_merkle_tree *t, uint64_t leaf_index, const uint8_t *leaves,
                            czk_merkle_path *path, czk_err *err)
{
    if (leaf_index >= t->nleaves)
        return czk_err_set(err, CZK_EINVAL, "merkle: leaf %llu out of range (%llu leaves)",
                           (unsigned long long)leaf_index, (unsigned long long)t->nleaves);
    unsigned k = t->keep_from;
    if (k > 0 && leaves == NULL)
        return czk_err_set(err, CZK_EINVAL,
                           "merkle: the tree keeps levels >= %u only; pass its leaves", k);

    /* Levels below k come from the sub-tree of level-k node leaf_index / g, rebuilt from
     * its g leaves into `local` (levels 1..k−1, each after the previous). */
    uint64_t g = 1;
    for (unsigned l = 1; l <= k; l++) g *= t->arity[l];
    uint64_t start = leaf_index / g * g;
    uint8_t *local = NULL;
    uint64_t local_off[CZK_MERKLE_MAX_LEVELS + 1] = {0};
    if (k > 1) {
        uint64_t total = 0, n = g;
        for (unsigned l = 1; l < k; l++) {
            n /= t->arity[l];
            local_off[l] = total;
            total += n;
        }
        local = czk_malloc((size_t)(total * NB));
        if (local == NULL) return czk_err_set(err, CZK_ENOMEM, "merkle: out of memory");
    }
    czk_status s = CZK_OK;
    uint64_t n = g;
    const uint8_t *src = leaves != NULL && k > 0 ? leaves + (size_t)NB * start : NULL;
    for (unsigned l = 1; l <= k; l++) {
        hasher h;
        uint64_t bad = 0;
        n /= t->arity[l];
        if ((s = hasher_init(&h, t->cfg.hasher, t->arity[l])) != CZK_OK) break;
        if (l < k) {
            uint8_t *dst = local + (size_t)NB * local_off[l];
            if ((s = hash_run(&h, dst, src, n, &bad)) != CZK_OK) break;
            src = dst;
        } else {
            /* Level k: one node, which must equal the stored one, or `leaves` is not the
             * array the tree was built from. */
            uint8_t node[NB];
            if ((s = hash_run(&h, node, src, 1, &bad)) != CZK_OK) break;
            if (memcmp(node, level_ptr(t, k) + (size_t)NB * (leaf_index / g), NB) != 0) {
                s = CZK_EINVAL;
                czk_err_set(err, s, "merkle: the leaves passed are not the tree's leaves");
                czk_free(local);
                return s;
            }
        }
    }
    if (s != CZK_OK) {
        czk_free(local);
        return czk_err_set(err, s == CZK_ENONCANONICAL ? s : CZK_EINTERNAL,
                           "merkle: rebuilding the sub-tree of leaf %llu failed",
                           (unsigned long long)leaf_index);
    }

    memset(path, 0, offsetof(czk_merkle_path, siblings));
    path->leaf_index = leaf_index;
    path->levels = t->levels;
    uint64_t pos = leaf_index, sub_start = start;
    unsigned off = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l + 1];
        const uint8_t *level;
        uint64_t base_pos; /* index of the level's first node available in `level` */
        if (l >= k) {
            level = level_ptr(t, l);
            base_pos = 0;
        } else if (l == 0) {
            level = leaves + (size_t)NB * start;
            base_pos = start;
        } else {
            level = local + (size_t)NB * local_off[l];
            base_pos = sub_start;
        }
        if (l == 0) memcpy(path->leaf, level + (size_t)NB * (pos - base_pos), NB);
        unsigned d = (unsigned)(pos % a);
        path->arity[l] = (uint8_t)a;
        path->index[l] = (uint8_t)d;
        for (unsigned j = 0; j < a; j++) {
            if (j == d) continue;
            memcpy(path->siblings[off++], level + (size_t)NB * (pos - d + j - base_pos), NB);
        }
        pos /= a;
        sub_start /= a;
    }
    czk_free(local);
    return CZK_OK;
}

czk_status czk_merkle_path_root(uint8_t root[32], czk_merkle_hasher kind,
                                const czk_merkle_path *path, czk_err *err)
{
    if (path->levels == 0 || path->levels > CZK_MERKLE_MAX_LEVELS)
        return czk_err_set(err, CZK_EINVAL, "merkle path: %u levels", path->levels);
    uint8_t cur[NB];
    memcpy(cur, path->leaf, NB);
    unsigned off = 0;
    for (unsigned l = 0; l < path->levels; l++) {
        unsigned a = path->arity[l], d = path->index[l];
        hasher h;
        if (hasher_init(&h, kind, a) != CZK_OK || d >= a || off + a - 1 > CZK_MERKLE_MAX_SIBLINGS)
            return czk_err_set(err, CZK_EINVAL, "merkle path: level %u has arity %u and index %u",
                               l, a, d);
        uint8_t children[MAX_ARITY * NB];
        for (unsigned j = 0, sj = off; j < a; j++)
            memcpy(children + NB * j, j == d ? cur : path->siblings[sj++], NB);
        off += a - 1;
        uint64_t bad = 0;
        czk_status s = hash_run(&h, cur, children, 1, &bad);
        if (s == CZK_ENONCANONICAL)
            return czk_err_set(err, s, "merkle path: level %u child %llu is not below r", l,
                               (unsigned long long)bad);
        if (s != CZK_OK) return czk_err_set(err, s, "merkle path: hashing failed");
    }
    memcpy(root, cur, NB);
    return CZK_OK;
}

czk_status czk_merkle_path_verify(const czk_merkle_path *path, czk_merkle_hasher kind,
                                  const uint8_t root[32], uint64_t leaf_index, czk_err *err)
{
    uint8_t got[NB];
    czk_status s = czk_merkle_path_root(got, kind, path, err);
    if (s != CZK_OK) return s;
    uint64_t pos = leaf_index;
    for (unsigned l = 0; l < path->levels; l++) {
        if (pos % path->arity[l] != path->index[l])
            return czk_err_set(
                err, CZK_EVERIFY, "merkle path: index at level %u is %u, leaf %llu needs %u", l,
                path->index[l], (unsigned long long)leaf_index, (unsigned)(pos % path->arity[l]));
        pos /= path->arity[l];
    }
    if (pos != 0)
        return czk_err_set(err, CZK_EVERIFY, "merkle path: leaf %llu is beyond the tree",
                           (unsigned long long)leaf_index);
    if (memcmp(got, root, NB) != 0)
        return czk_err_set(err, CZK_EVERIFY, "merkle path: root mismatch");
    return CZK_OK;
}

/* ---------------------------------------------------------------------------------------
 * Commitments
 * ------------------------------------------------------------------------------------- */

#define ZERO_LEVELS 64

static pthread_once_t zero_once = PTHREAD_ONCE_INIT;
static uint8_t zero_ladder[ZERO_LEVELS][NB];
static bool zero_ok;

static void zero_init(void)
{
    bool ok = true;
    memset(zero_ladder[0], 0, NB);
    for (unsigned k = 1; k < ZERO_LEVELS && ok; k++) {
        uint8_t pair[2 * NB];
        memcpy(pair, zero_ladder[k - 1], NB);
        memcpy(pair + NB, zero_ladder[k - 1], NB);
        ok = czk_sha256_nodes(zero_ladder[k], pair, 1) == CZK_OK;
    }
    zero_ok = ok;
}

czk_status czk_comm_zero(uint8_t out[32], unsigned level)
{
    if (level >= ZERO_LEVELS) return CZK_EINVAL;
    pthread_once(&zero_once, zero_init);
    if (!zero_ok) return CZK_EINTERNAL;
    memcpy(out, zero_ladder[level], NB);
    return CZK_OK;
}

static unsigned log2_u64(uint64_t v)
{
    return 63u - (unsigned)__builtin_clzll(v);
}

czk_status czk_comm_d_zero(uint8_t out[32], uint64_t padded_size, czk_err *err)
{
    if (padded_size < NB || (padded_size & (padded_size - 1)) != 0)
        return czk_err_set(err, CZK_EINVAL,
                           "comm_d: size %llu is not a power of two of at least 32 bytes",
                           (unsigned long long)padded_size);
    czk_status s = czk_comm_zero(out, log2_u64(padded_size) - 5);
    if (s != CZK_OK) return czk_err_set(err, s, "comm_d: SHA-256 failed");
    return CZK_OK;
}

/* A frame of compute_comm_d's stack. */
typedef struct piece_frame {
    uint64_t size;
    uint8_t comm[NB];
} piece_frame;

/* Push `f` and merge equal-sized neighbours (pieces.rs Stack::shift_reduce). */
static czk_status shift_reduce(piece_frame *stack, unsigned *depth, const piece_frame *f)
{
    stack[(*depth)++] = *f;
    while (*depth >= 2 && stack[*depth - 1].size == stack[*depth - 2].size) {
        piece_frame *l = &stack[*depth - 2];
        uint8_t pair[2 * NB];
        memcpy(pair, l->comm, NB);
        memcpy(pair + NB, stack[*depth - 1].comm, NB);
        if (czk_sha256_nodes(l->comm, pair, 1) != CZK_OK) return CZK_EINTERNAL;
        l->size *= 2;
        (*depth)--;
    }
    return CZK_OK;
}

static czk_status zero_frame(piece_frame *f, uint64_t size)
{
    f->size = size;
    return czk_comm_zero(f->comm, log2_u64(size) - 5);
}

czk_status czk_comm_d_from_pieces(uint8_t out[32], uint64_t sector_size,
                                  const czk_comm_piece_info *pieces, size_t npieces, czk_err *err)
{
    if (!czk_comm_piece_size_valid(sector_size))
        return czk_err_set(err, CZK_EINVAL, "comm_d: bad sector size %llu",
                           (unsigned long long)sector_size);
    if (npieces == 0) return czk_comm_d_zero(out, sector_size, err);
    /* MINIMUM_RESERVED_BYTES_FOR_PIECE_IN_FULLY_ALIGNED_SECTOR = 4·32 − 1 = 127. */
    uint64_t max_pieces = czk_fr32_unpadded_size(sector_size) / 127;
    if (npieces > max_pieces)
        return czk_err_set(err, CZK_EINVAL, "comm_d: %zu pieces, a %llu-byte sector holds %llu",
                           npieces, (unsigned long long)sector_size,
                           (unsigned long long)max_pieces);
    uint64_t sum = 0;
    for (size_t i = 0; i < npieces; i++) {
        if (!czk_comm_piece_size_valid(pieces[i].padded_size) ||
            pieces[i].padded_size > sector_size)
            return czk_err_set(err, CZK_EINVAL,
                               "comm_d: piece %zu: padded size %llu is not a power of two in "
                               "[128, %llu]",
                               i, (unsigned long long)pieces[i].padded_size,
                               (unsigned long long)sector_size);
        sum += pieces[i].padded_size;
        if (sum > sector_size)
            return czk_err_set(err, CZK_EINVAL, "comm_d: pieces exceed the %llu-byte sector",
                               (unsigned long long)sector_size);
    }
    /* Sizes on the stack strictly decrease from the bottom, so 64 frames always do. */
    piece_frame stack[65], f;
    unsigned depth = 0;
    czk_status s = CZK_OK;
    for (size_t i = 0; i < npieces && s == CZK_OK; i++) {
        while (s == CZK_OK && depth > 0 && stack[depth - 1].size < pieces[i].padded_size) {
            if ((s = zero_frame(&f, stack[depth - 1].size)) == CZK_OK)
                s = shift_reduce(stack, &depth, &f);
        }
        if (s != CZK_OK) break;
        f.size = pieces[i].padded_size;
        memcpy(f.comm, pieces[i].comm_p, NB);
        s = shift_reduce(stack, &depth, &f);
    }
    while (s == CZK_OK && depth > 1) {
        if ((s = zero_frame(&f, stack[depth - 1].size)) == CZK_OK)
            s = shift_reduce(stack, &depth, &f);
    }
    if (s != CZK_OK) return czk_err_set(err, s, "comm_d: SHA-256 failed");
    memcpy(out, stack[0].comm, NB);
    return CZK_OK;
}

/* comm_p: chunks of CP_CHUNK padded bytes, each padded and reduced to its root by one
 * task in a per-worker buffer; then the chunk roots are reduced. */
#define CP_CHUNK (UINT64_C(128) << 10) /* 128 KiB padded: 4096 leaves */

typedef struct comm_p_ctx {
    const uint8_t *data;
    uint64_t chunk_padded;
    uint8_t *bufs; /* per worker, chunk_padded bytes */
    uint8_t *roots;
    _Atomic int status;
} comm_p_ctx;

static czk_status reduce_in_place(uint8_t *nodes, uint64_t n)
{
    for (; n > 1; n /= 2) {
        czk_status s = czk_sha256_nodes(nodes, nodes, (size_t)(n / 2));
        if (s != CZK_OK) return s;
    }
    return CZK_OK;
}

static void comm_p_task(void *arg, size_t chunk, unsigned worker)
{
    comm_p_ctx *c = arg;
    uint64_t raw = c->chunk_padded / 128 * 127;
    uint8_t *buf = c->bufs + (size_t)c->chunk_padded * worker;
    czk_fr32_pad(buf, c->data + (size_t)raw * chunk, (size_t)raw);
    if (reduce_in_place(buf, c->chunk_padded / NB) != CZK_OK) {
        atomic_store(&c->status, CZK_EINTERNAL);
        return;
    }
    memcpy(c->roots + (size_t)NB * chunk, buf, NB);
}

czk_status czk_comm_p(uint8_t out[32], const uint8_t *data, uint64_t len, czk_pool *pool,
                      czk_err *err)
{
    if (len == 0 || len % 127 != 0 || !czk_comm_piece_size_valid(len / 127 * 128))
        return czk_err_set(err, CZK_EINVAL,
                           "comm_p: %llu bytes is not an unpadded piece size (127·2^k)",
                           (unsigned long long)len);
    uint64_t padded = len / 127 * 128;
    comm_p_ctx c = {.data = data, .chunk_padded = padded < CP_CHUNK ? padded : CP_CHUNK};
    uint64_t nchunks = padded / c.chunk_padded;
    atomic_init(&c.status, CZK_OK);
    c.bufs = czk_malloc((size_t)c.chunk_padded * czk_pool_size(pool));
    c.roots = czk_malloc((size_t)(NB * nchunks));
    czk_status s = CZK_OK;
    if (c.bufs == NULL || c.roots == NULL) {
        s = czk_err_set(err, CZK_ENOMEM, "comm_p: out of memory");
    } else {
        czk_pool_run(pool, (size_t)nchunks, comm_p_task, &c);
        s = (czk_status)atomic_load(&c.status);
        if (s == CZK_OK) s = reduce_in_place(c.roots, nchunks);
        if (s == CZK_OK)
            memcpy(out, c.roots, NB);
        else
            czk_err_set(err, s, "comm_p: SHA-256 failed");
    }
    czk_free(c.bufs);
    czk_free(c.roots);
    return s;
}

czk_status czk_comm_r(uint8_t out[32], const uint8_t comm_c[32], const uint8_t comm_r_last[32],
                      czk_err *err)
{
    czk_fr a, b, r;
    if (!czk_fr_from_bytes_le(&a, comm_c))
        return czk_err_set(err, CZK_ENONCANONICAL, "comm_r: comm_c is not below r");
    if (!czk_fr_from_bytes_le(&b, comm_r_last))
        return czk_err_set(err, CZK_ENONCANONICAL, "comm_r: comm_r_last is not below r");
    czk_poseidon_merkle2(&r, &a, &b);
    czk_fr_to_bytes_le(out, &r);
    return CZK_OK;
}
