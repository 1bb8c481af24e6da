/*
 * Synthetic PoRep C1 fixtures: TEST DATA for the prover, not the C1 of a sealed sector
 * (include/czk/porep_vanilla.h §3 says what it is and is not).
 *
 * A real 32 GiB C1 needs a sealed 32 GiB sector (hours of labelling). The circuit only
 * sees the challenged nodes, their 14 parents' columns and the Merkle paths of those, so
 * the fixture materialises exactly that: for 32 GiB, 180 challenges and about 2,700
 * columns. Every tree node off those paths is a pseudo-random Fr element (a function
 * of the fixture key, the tree, the level and the index, so it is the same wherever it
 * is read), and the trees are hashed only along the paths ("sparse trees"): level k+1
 * holds the parents of level k's materialised nodes, each hashed from its children, the
 * materialised ones where they exist and pseudo-random ones elsewhere. All paths of a
 * tree therefore meet in one root.
 *
 * What is real: the label of each challenged node on each layer is the SDR label hash of
 * its (pseudo-random or challenged) parents' labels, every column leaf is the Poseidon
 * hash of its rows, every replica leaf is data + last label in Fr and
 * comm_r = Poseidon2(comm_c, comm_r_last) — everything the circuit constrains.
 */
#include "filecoin/vanilla/porep_vanilla_internal.h"
#include "filecoin/seal/sdr_internal.h"

#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "czk/merkle.h"
#include "czk/poseidon.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Pseudo-random streams, one per kind of value. */
enum { TAG_TREE_D = 1, TAG_TREE_C, TAG_TREE_R, TAG_DATA, TAG_ROW, TAG_META };

/*
 * Value number `index` of stream (tag, level): the first 32 bytes of a ChaCha8 block keyed
 * by the fixture key, at block counter `index` and stream id (tag, level), trimmed to 254
 * bits so it is an Fr element. ChaCha8 because it is a pure function with no failure path
 * (OpenSSL calls can fail) and about 20x cheaper than a SHA-256 of the same inputs.
 */
static void prf(uint8_t out[32], const uint32_t key[8], unsigned tag, unsigned level,
                uint64_t index, bool trim)
{
    uint32_t blk[16];
    czk__chacha_block(blk, key, index, (uint64_t)tag << 32 | level, 8);
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 4; b++) out[4 * i + b] = (uint8_t)(blk[i] >> (8 * b));
    if (trim) czk_fr32_trim(out);
}

/* ---------------------------------------------------------------------------------------
 * Sparse trees
 * ------------------------------------------------------------------------------------- */

typedef struct snode {
    uint64_t idx;
    uint8_t v[32];
} snode;

typedef struct stree {
    czk_merkle_hasher hasher;
    unsigned tag;
    const uint32_t *key;
    unsigned levels;
    unsigned arity[CZK_MERKLE_MAX_LEVELS];
    snode *lv[CZK_MERKLE_MAX_LEVELS + 1]; /* materialised nodes of each level, by index */
    size_t n[CZK_MERKLE_MAX_LEVELS + 1];
} stree;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static const snode *find(const snode *a, size_t n, uint64_t idx)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].idx < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo].idx == idx ? &a[lo] : NULL;
}

static void node_value(const stree *t, unsigned level, uint64_t idx, uint8_t out[32])
{
    const snode *f = find(t->lv[level], t->n[level], idx);
    if (f)
        memcpy(out, f->v, 32);
    else
        prf(out, t->key, t->tag, level, idx, true);
}

typedef struct level_ctx {
    stree *t;
    unsigned level; /* the level being hashed into (≥ 1) */
    const czk_poseidon_params *pp;
    atomic_bool failed;
} level_ctx;

static void hash_task(void *vctx, size_t task, unsigned worker)
{
    (void)worker;
    level_ctx *x = vctx;
    stree *t = x->t;
    unsigned lv = x->level, a = t->arity[lv - 1];
    snode *out = &t->lv[lv][task];
    uint8_t kids[16][32];
    for (unsigned j = 0; j < a; j++) node_value(t, lv - 1, out->idx * a + j, kids[j]);
    if (t->hasher == CZK_MERKLE_SHA256) {
        if (czk_sha256_nodes(out->v, &kids[0][0], 1) != CZK_OK) x->failed = true;
    } else {
        czk_fr in[16], h;
        for (unsigned j = 0; j < a; j++) czk_fr_from_bytes_le(&in[j], kids[j]);
        czk_poseidon_merkle(&h, x->pp, in);
        czk_fr_to_bytes_le(out->v, &h);
    }
}

/* Hash the tree up from its leaves t->lv[0] (sorted, distinct indices). */
static czk_status stree_build(stree *t, czk_pool *pool, czk_err *err)
{
    for (unsigned lv = 1; lv <= t->levels; lv++) {
        unsigned a = t->arity[lv - 1];
        const snode *below = t->lv[lv - 1];
        size_t nb = t->n[lv - 1], np = 0;
        snode *up = czk_malloc((nb ? nb : 1) * sizeof *up);
        if (!up) return czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
        for (size_t i = 0; i < nb; i++)
            if (np == 0 || up[np - 1].idx != below[i].idx / a) up[np++].idx = below[i].idx / a;
        t->lv[lv] = up;
        t->n[lv] = np;
        level_ctx x = {t, lv, NULL, false};
        if (t->hasher == CZK_MERKLE_POSEIDON && !(x.pp = czk_poseidon_params_get(a)))
            return czk_err_set(err, CZK_EINTERNAL, "fixture: no Poseidon-%u parameters", a);
        czk_pool_run(pool, np, hash_task, &x);
        if (x.failed) return czk_err_set(err, CZK_EINTERNAL, "fixture: OpenSSL SHA-256 failed");
    }
    if (t->n[t->levels] != 1) return czk_err_set(err, CZK_EINTERNAL, "fixture: tree has no root");
    return CZK_OK;
}

static void stree_prove(const stree *t, uint64_t leaf, czk_merkle_path *p)
{
    p->leaf_index = leaf;
    p->levels = t->levels;
    node_value(t, 0, leaf, p->leaf);
    unsigned sib = 0;
    uint64_t x = leaf;
    for (unsigned lv = 0; lv < t->levels; lv++) {
        unsigned a = t->arity[lv];
        uint64_t parent = x / a;
        p->arity[lv] = (uint8_t)a;
        p->index[lv] = (uint8_t)(x % a);
        for (unsigned j = 0; j < a; j++)
            if (parent * a + j != x) node_value(t, lv, parent * a + j, p->siblings[sib++]);
        x = parent;
    }
}

static const uint8_t *stree_root(const stree *t)
{
    return t->lv[t->levels][0].v;
}

static void stree_free(stree *t)
{
    for (unsigned i = 0; i <= t->levels; i++) czk_free(t->lv[i]);
}

/* Levels of a tree of config `cfg` over `nodes` leaves, lowest first. */
static void stree_shape(stree *t, const czk_merkle_config *cfg, uint64_t nodes)
{
    unsigned sub = cfg->sub_arity, top = cfg->top_arity;
    uint64_t base = nodes / (sub ? sub : 1) / (top ? top : 1);
    t->hasher = cfg->hasher;
    t->levels = 0;
    for (uint64_t n = base; n > 1; n /= cfg->base_arity) t->arity[t->levels++] = cfg->base_arity;
    if (sub) t->arity[t->levels++] = sub;
    if (top) t->arity[t->levels++] = top;
}

/* ---------------------------------------------------------------------------------------
 * The fixture
 * ------------------------------------------------------------------------------------- */

typedef struct fixture {
    const czk_seal_proof_info *info;
    czk_sdr_graph *g;
    uint32_t key[8];
    uint8_t replica_id[32];
    uint64_t *ch;         /* all challenges, partition-major */
    size_t nch;           /* partitions · cpp */
    uint64_t *uch;        /* the distinct challenges, ascending */
    size_t nuch;
    uint8_t *labels;      /* nuch · layers · 32: labels of the distinct challenges */
    stree td, tc, tr;
    czk_c1_output *c1;
    czk_merkle_path *paths; /* one per worker */
} fixture;

/* Label of `node` on `layer` (1-based): computed for a challenged node, pseudo-random
 * for any other (the fixture never needs the labels of their own parents). */
static void column_row(const fixture *f, uint64_t node, unsigned layer, uint8_t out[32])
{
    const uint64_t *hit = bsearch(&node, f->uch, f->nuch, sizeof *f->uch, cmp_u64);
    if (hit)
        memcpy(out, f->labels + ((size_t)(hit - f->uch) * f->info->layers + layer - 1) * 32, 32);
    else
        prf(out, f->key, TAG_ROW, layer, node, true);
}

static void data_leaf(const fixture *f, uint64_t node, uint8_t out[32])
{
    prf(out, f->key, TAG_DATA, 0, node, true);
}

/* Labels layer by layer, challenges ascending: a DRG parent precedes its child, so a
 * challenged DRG parent's label on this layer exists by the time it is read, and
 * expander parents are read from the layer below, finished in the previous pass. */
static void compute_labels(fixture *f)
{
    unsigned L = f->info->layers;
    for (unsigned l = 1; l <= L; l++)
        for (size_t u = 0; u < f->nuch; u++) {
            uint64_t c = f->uch[u];
            uint32_t par[CZK_SDR_DEGREE];
            czk_sdr_parents(f->g, (uint32_t)c, par);
            uint8_t base[CZK_SDR_DEGREE][32], full[CZK_SDR_LABEL_PARENTS][32];
            unsigned n = 0;
            for (unsigned i = 0; i < CZK_SDR_DRG_DEGREE; i++) column_row(f, par[i], l, base[n++]);
            if (l > 1)
                for (unsigned i = 0; i < CZK_SDR_EXP_DEGREE; i++)
                    column_row(f, par[CZK_SDR_DRG_DEGREE + i], l - 1, base[n++]);
            for (unsigned i = 0; i < CZK_SDR_LABEL_PARENTS; i++) memcpy(full[i], base[i % n], 32);
            czk_sdr_label_hash(f->labels + (u * L + l - 1) * 32, f->replica_id, l, c, &full[0][0]);
        }
}

typedef struct col_ctx {
    const fixture *f;
    snode *leaves;
    const czk_poseidon_params *pp;
} col_ctx;

static void column_task(void *vctx, size_t task, unsigned worker)
{
    (void)worker;
    col_ctx *x = vctx;
    czk_fr rows[CZK_SDR_MAX_LAYERS], h;
    uint8_t b[32];
    for (unsigned l = 1; l <= x->f->info->layers; l++) {
        column_row(x->f, x->leaves[task].idx, l, b);
        czk_fr_from_bytes_le(&rows[l - 1], b);
    }
    czk_poseidon_merkle(&h, x->pp, rows);
    czk_fr_to_bytes_le(x->leaves[task].v, &h);
}

static bool fill_column(const fixture *f, czk_vanilla_column_proof *cp, uint64_t node,
                        czk_merkle_path *path)
{
    cp->index = (uint32_t)node;
    for (unsigned l = 1; l <= f->info->layers; l++) column_row(f, node, l, cp->rows[l - 1]);
    stree_prove(&f->tc, node, path);
    return czk__vanilla_fill(&cp->inclusion_proof, path, stree_root(&f->tc));
}

typedef struct fill_ctx {
    fixture *f;
    atomic_bool failed;
} fill_ctx;

static void fill_task(void *vctx, size_t task, unsigned worker)
{
    fill_ctx *x = vctx;
    fixture *f = x->f;
    size_t cpp = f->info->challenges_per_partition;
    czk_porep_vanilla_proof *p = &f->c1->vanilla_proofs[task / cpp][task % cpp];
    czk_merkle_path *path = &f->paths[worker];
    uint64_t c = f->ch[task];
    unsigned L = f->info->layers;
    bool ok = true;
    stree_prove(&f->td, c, path);
    ok &= czk__vanilla_fill(&p->comm_d_proofs, path, stree_root(&f->td));
    stree_prove(&f->tr, c, path);
    ok &= czk__vanilla_fill(&p->comm_r_last_proof, path, stree_root(&f->tr));
    ok &= fill_column(f, &p->c_x, c, path);
    uint32_t par[CZK_SDR_DEGREE];
    czk_sdr_parents(f->g, (uint32_t)c, par);
    for (unsigned i = 0; i < CZK_SDR_DRG_DEGREE; i++)
        ok &= fill_column(f, &p->drg_parents[i], par[i], path);
    for (unsigned i = 0; i < CZK_SDR_EXP_DEGREE; i++)
        ok &= fill_column(f, &p->exp_parents[i], par[CZK_SDR_DRG_DEGREE + i], path);
    for (unsigned l = 1; l <= L; l++) {
        czk_vanilla_labeling_proof *lp = &p->labeling_proofs[l - 1];
        lp->layer_index = l;
        lp->node = c;
        czk__label_parents_from_columns(lp->parents, p, l);
    }
    p->encoding_proof.layer_index = L;
    p->encoding_proof.node = c;
    memcpy(p->encoding_proof.parents, p->labeling_proofs[L - 1].parents, CZK_SDR_LABEL_PARENTS * 32);
    if (!ok) x->failed = true;
}

/* Sorted distinct copy of v[0..n). */
static size_t uniq(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

static czk_status build(fixture *f, uint64_t seed_value, czk_pool *pool, czk_err *err)
{
    const czk_seal_proof_info *info = f->info;
    size_t cpp = info->challenges_per_partition;
    unsigned L = info->layers;

    /* The fixture key: SHA-256 of a label, the proof and the seed value. */
    uint8_t kb[32], pre[48] = "czk PoRep fixture v1";
    for (int i = 0; i < 4; i++) pre[32 + i] = (uint8_t)((uint32_t)info->proof >> (8 * i));
    for (int i = 0; i < 8; i++) pre[40 + i] = (uint8_t)(seed_value >> (8 * i));
    if (czk_sha256(kb, pre, sizeof pre))
        return czk_err_set(err, CZK_EINTERNAL, "fixture: OpenSSL SHA-256 failed");
    for (int i = 0; i < 8; i++)
        f->key[i] = (uint32_t)kb[4 * i] | (uint32_t)kb[4 * i + 1] << 8 |
                    (uint32_t)kb[4 * i + 2] << 16 | (uint32_t)kb[4 * i + 3] << 24;

    czk_status st = czk__c1_skeleton(&f->c1, info->proof, err);
    if (st) return st;
    czk_c1_output *c1 = f->c1;
    prf(c1->replica_id, f->key, TAG_META, 0, 0, true);
    prf(c1->seed, f->key, TAG_META, 0, 1, false);
    prf(c1->ticket, f->key, TAG_META, 0, 2, false);
    memcpy(f->replica_id, c1->replica_id, 32);

    /* Challenges: the interactive rule for every feature (synthetic and non-interactive
     * challenges depend on comm_r, which depends on the challenged paths). */
    f->nch = info->partitions * cpp;
    f->ch = czk_malloc(f->nch * sizeof *f->ch);
    f->uch = czk_malloc(f->nch * sizeof *f->uch);
    if (!f->ch || !f->uch) return czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
    for (unsigned k = 0; k < info->partitions && !st; k++)
        st = czk__porep_interactive_challenges(f->ch + k * cpp, info->nodes, (unsigned)cpp,
                                               f->replica_id, c1->seed, k);
    if (st) return czk_err_set(err, st, "fixture: OpenSSL SHA-256 failed");
    memcpy(f->uch, f->ch, f->nch * sizeof *f->ch);
    f->nuch = uniq(f->uch, f->nch);

    f->labels = czk_malloc(f->nuch * L * 32);
    if (!f->labels) return czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
    compute_labels(f);

    /* tree_d and tree_r_last materialise the challenged leaves; tree_c the columns of the
     * challenges and of all their parents. */
    czk_merkle_config cd = czk_merkle_config_tree_d(), cr = czk_merkle_config_tree_r(info->sector_size);
    stree_shape(&f->td, &cd, info->nodes);
    stree_shape(&f->tc, &cr, info->nodes);
    stree_shape(&f->tr, &cr, info->nodes);
    f->td.tag = TAG_TREE_D;
    f->tc.tag = TAG_TREE_C;
    f->tr.tag = TAG_TREE_R;
    f->td.key = f->tc.key = f->tr.key = f->key;
    f->td.lv[0] = czk_malloc(f->nuch * sizeof(snode));
    f->tr.lv[0] = czk_malloc(f->nuch * sizeof(snode));
    uint64_t *touched = czk_malloc(f->nuch * (1 + CZK_SDR_DEGREE) * sizeof *touched);
    if (!f->td.lv[0] || !f->tr.lv[0] || !touched) {
        czk_free(touched);
        return czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
    }
    size_t nt = 0;
    for (size_t u = 0; u < f->nuch; u++) {
        uint64_t c = f->uch[u];
        czk_fr d, k, r;
        snode *dn = &f->td.lv[0][u], *rn = &f->tr.lv[0][u];
        dn->idx = rn->idx = c;
        data_leaf(f, c, dn->v);
        czk_fr_from_bytes_le(&d, dn->v);
        czk_fr_from_bytes_le(&k, f->labels + (u * L + L - 1) * 32);
        czk_fr_add(&r, &d, &k);
        czk_fr_to_bytes_le(rn->v, &r);
        uint32_t par[CZK_SDR_DEGREE];
        czk_sdr_parents(f->g, (uint32_t)c, par);
        touched[nt++] = c;
        for (unsigned i = 0; i < CZK_SDR_DEGREE; i++) touched[nt++] = par[i];
    }
    f->td.n[0] = f->tr.n[0] = f->nuch;
    nt = uniq(touched, nt);
    f->tc.lv[0] = czk_malloc(nt * sizeof(snode));
    if (!f->tc.lv[0]) {
        czk_free(touched);
        return czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
    }
    for (size_t i = 0; i < nt; i++) f->tc.lv[0][i].idx = touched[i];
    f->tc.n[0] = nt;
    czk_free(touched);
    col_ctx cx = {f, f->tc.lv[0], czk_poseidon_params_get(L)};
    if (!cx.pp) return czk_err_set(err, CZK_EINTERNAL, "fixture: no Poseidon-%u parameters", L);
    czk_pool_run(pool, nt, column_task, &cx);

    if ((st = stree_build(&f->td, pool, err)) || (st = stree_build(&f->tc, pool, err)) ||
        (st = stree_build(&f->tr, pool, err)))
        return st;
    memcpy(c1->comm_d, stree_root(&f->td), 32);
    if ((st = czk_comm_r(c1->comm_r, stree_root(&f->tc), stree_root(&f->tr), err))) return st;

    unsigned workers = pool ? czk_pool_size(pool) : 1;
    f->paths = czk_malloc(workers * sizeof *f->paths);
    if (!f->paths) return czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
    fill_ctx x = {f, false};
    czk_pool_run(pool, f->nch, fill_task, &x);
    if (x.failed) return czk_err_set(err, CZK_EINTERNAL, "fixture: a path does not fit %s", info->name);
    return CZK_OK;
}

czk_status czk_porep_fixture(czk_c1_output **out, czk_seal_proof proof, uint64_t seed_value,
                             czk_pool *pool, czk_err *err)
{
    *out = NULL;
    fixture f;
    memset(&f, 0, sizeof f);
    f.info = czk_seal_proof_get(proof);
    if (!f.info) return czk_err_set(err, CZK_EINVAL, "fixture: unknown registered proof %d", (int)proof);
    czk_status st = czk_sdr_graph_create_for_proof(&f.g, proof, err);
    if (!st) st = build(&f, seed_value, pool, err);
    if (!st) {
        *out = f.c1;
        f.c1 = NULL;
    }
    czk_c1_output_free(f.c1);
    czk_sdr_graph_destroy(f.g);
    czk_free(f.ch);
    czk_free(f.uch);
    czk_free(f.labels);
    stree_free(&f.td);
    stree_free(&f.tc);
    stree_free(&f.tr);
    czk_free(f.paths);
    return st;
}
