/*
 * Synthetic SnapDeals and PoSt vanilla proofs for any sector size, built in seconds.
 *
 * A real 32 GiB tree has 2^30 leaves; nothing proves with it without hashing them all.
 * The challenges, though, are drawn from the roots (SnapDeals: from comm_r_new; PoSt:
 * the leaves are public randomness but comm_r must commit to the tree), so a fixture
 * cannot pick the challenged paths first and invent the rest. Instead every tree here is
 * "virtual": the leaf at index i is template[i / R][i mod T] — a pseudo-random template
 * of T leaves repeated inside each aligned region of R leaves (T | R, both powers of
 * two). A node whose span is at least T and at most R then depends only on its region,
 * a node of a smaller span only on its region and its offset in the template, and a node
 * spanning several regions is one of few (nodes / span). Each level therefore holds at
 * most max(regions·T/span, regions, nodes/span) distinct values, all computed bottom-up as
 * true hashes of their children: a 32 GiB TreeR (1024 regions of 2^20 leaves, T = 64) is
 * about 14,000 Poseidon-8 hashes. Roots, paths and commitments are then exactly those of
 * a real sector holding that data.
 *
 * SnapDeals picks R = 2^(B − h): rho depends on a node only through its h high bits, i.e.
 * is constant on each region, so TreeRNew's leaves key + data·rho have the same virtual
 * form and TreeRNew is virtual too.
 */
#include <stddef.h>
#include <string.h>

#include "czk/alloc.h"
#include "czk/poseidon.h"
#include "czk/snap_post_vanilla.h"

/* ---------------------------------------------------------------------------------------
 * Virtual trees
 * ------------------------------------------------------------------------------------- */

typedef struct vtree {
    czk_merkle_hasher hasher;
    unsigned levels;
    unsigned arity[CZK_MERKLE_MAX_LEVELS];       /* arity[l]: children of a level-(l+1) node */
    uint64_t span[CZK_MERKLE_MAX_LEVELS + 1];    /* leaves under a node of level l */
    uint64_t nleaves, R, T;                      /* leaves, region size, template size */
    uint8_t *vals[CZK_MERKLE_MAX_LEVELS + 1];    /* the distinct nodes of each level */
} vtree;

static void vt_free(vtree *t)
{
    for (unsigned l = 0; l <= t->levels; l++) czk_free(t->vals[l]);
    memset(t, 0, sizeof *t);
}

/* Distinct nodes of level l. */
static uint64_t vt_count(const vtree *t, unsigned l)
{
    uint64_t S = t->span[l];
    if (S < t->T) return t->nleaves / t->R * (t->T / S);
    if (S <= t->R) return t->nleaves / t->R;
    return t->nleaves / S;
}

/* Where node j of level l is stored in vals[l]. */
static uint64_t vt_index(const vtree *t, unsigned l, uint64_t j)
{
    uint64_t S = t->span[l];
    if (S < t->T) {
        uint64_t per = t->T / S;
        return j * S / t->R * per + j % per;
    }
    if (S <= t->R) return j * S / t->R;
    return j;
}

/* A node index that is stored at entry e of level l. */
static uint64_t vt_rep(const vtree *t, unsigned l, uint64_t e)
{
    uint64_t S = t->span[l];
    if (S < t->T) {
        uint64_t per = t->T / S;
        return e / per * (t->R / S) + e % per;
    }
    if (S <= t->R) return e * (t->R / S);
    return e;
}

static const uint8_t *vt_node(const vtree *t, unsigned l, uint64_t j)
{
    return t->vals[l] + 32 * vt_index(t, l, j);
}

/* Shape the tree; vals[0] (regions · T leaves) is allocated for the caller to fill. */
static czk_status vt_init(vtree *t, czk_merkle_hasher hasher, unsigned base_arity,
                          unsigned base_levels, unsigned sub, unsigned top, uint64_t R, uint64_t T,
                          czk_err *err)
{
    memset(t, 0, sizeof *t);
    t->hasher = hasher;
    t->span[0] = 1;
    for (unsigned l = 0; l < base_levels; l++) t->arity[t->levels++] = base_arity;
    if (sub) t->arity[t->levels++] = sub;
    if (top) t->arity[t->levels++] = top;
    for (unsigned l = 0; l < t->levels; l++) t->span[l + 1] = t->span[l] * t->arity[l];
    t->nleaves = t->span[t->levels];
    t->R = R;
    t->T = T;
    if (T == 0 || R % T != 0 || t->nleaves % R != 0)
        return czk_err_set(err, CZK_EINTERNAL, "fixture: bad virtual tree layout");
    t->vals[0] = czk_malloc(32 * vt_count(t, 0));
    if (!t->vals[0]) return czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
    return CZK_OK;
}

/* Hash every level's distinct nodes from the level below. */
static czk_status vt_build(vtree *t, czk_err *err)
{
    for (unsigned l = 1; l <= t->levels; l++) {
        uint64_t n = vt_count(t, l);
        unsigned a = t->arity[l - 1];
        t->vals[l] = czk_malloc(32 * n);
        if (!t->vals[l]) return czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
        const czk_poseidon_params *pp = czk_poseidon_params_get(a);
        for (uint64_t e = 0; e < n; e++) {
            uint64_t j = vt_rep(t, l, e);
            uint8_t *out = t->vals[l] + 32 * e;
            if (t->hasher == CZK_MERKLE_SHA256) {
                uint8_t pair[64];
                memcpy(pair, vt_node(t, l - 1, 2 * j), 32);
                memcpy(pair + 32, vt_node(t, l - 1, 2 * j + 1), 32);
                czk_status s = czk_sha256_nodes(out, pair, 1);
                if (s != CZK_OK) return czk_err_set(err, s, "fixture: SHA-256 failed");
            } else {
                czk_fr in[16], h;
                for (unsigned c = 0; c < a; c++)
                    (void)czk_fr_from_bytes_le(&in[c], vt_node(t, l - 1, j * a + c));
                czk_poseidon_merkle(&h, pp, in);
                czk_fr_to_bytes_le(out, &h);
            }
        }
    }
    return CZK_OK;
}

static const uint8_t *vt_root(const vtree *t)
{
    return t->vals[t->levels];
}

/* The inclusion path of leaf c, as czk_merkle_prove gives it for a real tree. */
static void vt_path(const vtree *t, uint64_t c, czk_merkle_path *path)
{
    memset(path, 0, offsetof(czk_merkle_path, siblings));
    path->leaf_index = c;
    path->levels = t->levels;
    memcpy(path->leaf, vt_node(t, 0, c), 32);
    unsigned sib = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l];
        uint64_t j = c / t->span[l], first = j / a * a;
        path->arity[l] = (uint8_t)a;
        path->index[l] = (uint8_t)(j % a);
        for (unsigned q = 0; q < a; q++)
            if (first + q != j) memcpy(path->siblings[sib++], vt_node(t, l, first + q), 32);
    }
}

/* A pseudo-random field element: SHA-256(seed ‖ tag ‖ index) cut to 254 bits, so that it is
 * below r (as fr32-padded data and real labels are). */
static void prf(uint8_t out[32], uint64_t seed, uint32_t tag, uint64_t idx)
{
    uint8_t in[20];
    for (int i = 0; i < 8; i++) in[i] = (uint8_t)(seed >> (8 * i));
    for (int i = 0; i < 4; i++) in[8 + i] = (uint8_t)(tag >> (8 * i));
    for (int i = 0; i < 8; i++) in[12 + i] = (uint8_t)(idx >> (8 * i));
    (void)czk_sha256_trunc(out, in, sizeof in);
}

static void vt_fill_random(vtree *t, uint64_t seed, uint32_t tag)
{
    uint64_t n = vt_count(t, 0);
    for (uint64_t i = 0; i < n; i++) prf(t->vals[0] + 32 * i, seed, tag, i);
}

/* ---------------------------------------------------------------------------------------
 * SnapDeals
 * ------------------------------------------------------------------------------------- */

void czk_snap_fixture_destroy(czk_snap_fixture *f)
{
    if (!f) return;
    for (size_t k = 0; k < f->npartitions; k++)
        if (f->partitions) czk_snap_partition_proof_free(f->partitions[k]);
    czk_free(f->partitions);
    czk_free(f);
}

static unsigned log2u(uint64_t v)
{
    unsigned k = 0;
    while ((UINT64_C(1) << k) < v) k++;
    return k;
}

czk_status czk_snap_fixture_create(czk_snap_fixture **out, uint64_t sector_size, uint64_t seed,
                                   czk_err *err)
{
    *out = NULL;
    czk_snap_fixture *f = czk_calloc(1, sizeof *f);
    if (!f) return czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
    vtree r_old, d_new, r_new;
    memset(&r_old, 0, sizeof r_old);
    memset(&d_new, 0, sizeof d_new);
    memset(&r_new, 0, sizeof r_new);
    czk_merkle_path *path = czk_malloc(sizeof *path);
    uint32_t *ch = NULL;
    czk_status s = path ? czk_snap_params_get(&f->params, sector_size, err)
                        : czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
    if (s != CZK_OK) goto done;
    const czk_snap_params *p = &f->params;
    f->update_proof = log2u(sector_size) == 11   ? 0
                      : log2u(sector_size) == 23 ? 1
                      : log2u(sector_size) == 29 ? 2
                      : log2u(sector_size) == 35 ? 3
                      : log2u(sector_size) == 36 ? 4
                                                 : UINT64_MAX;
    unsigned h = czk_snap_h_default(p), B = p->challenge_bit_len;
    czk_snap_comms *c = &f->comms;
    c->h = h;
    uint64_t R = UINT64_C(1) << (B - h), T = R < 64 ? R : 64, regions = p->nodes / R;
    const czk_por_shape *tr = &p->tree_r;
    s = vt_init(&r_old, CZK_MERKLE_POSEIDON, tr->base_arity, tr->base_levels, tr->sub_arity,
                tr->top_arity, R, T, err);
    if (s == CZK_OK) s = vt_init(&d_new, CZK_MERKLE_SHA256, 2, B, 0, 0, R, T, err);
    if (s == CZK_OK)
        s = vt_init(&r_new, CZK_MERKLE_POSEIDON, tr->base_arity, tr->base_levels, tr->sub_arity,
                    tr->top_arity, R, T, err);
    if (s != CZK_OK) goto done;
    if (r_old.nleaves != p->nodes) {
        s = czk_err_set(err, CZK_EINTERNAL, "fixture: TreeR shape does not cover the sector");
        goto done;
    }
    /* TreeROld (the sector key) and TreeDNew (the new data): random templates. */
    vt_fill_random(&r_old, seed, 1);
    vt_fill_random(&d_new, seed, 2);
    prf(c->comm_c, seed, 3, 0);
    s = vt_build(&r_old, err);
    if (s == CZK_OK) s = vt_build(&d_new, err);
    if (s != CZK_OK) goto done;
    memcpy(c->root_r_old, vt_root(&r_old), 32);
    memcpy(c->comm_d_new, vt_root(&d_new), 32);
    s = czk_comm_r(c->comm_r_old, c->comm_c, c->root_r_old, err);
    /* TreeRNew = key + data·rho(region), leaf by leaf of the templates. */
    uint8_t phi[32];
    if (s == CZK_OK) s = czk_snap_phi(phi, c->comm_d_new, c->comm_r_old, err);
    for (uint64_t r = 0; s == CZK_OK && r < regions; r++) {
        czk_fr rho;
        s = czk_snap_rho(&rho, p, phi, r * R, h, err);
        for (uint64_t o = 0; s == CZK_OK && o < T; o++) {
            czk_fr a, d;
            (void)czk_fr_from_bytes_le(&a, r_old.vals[0] + 32 * (r * T + o));
            (void)czk_fr_from_bytes_le(&d, d_new.vals[0] + 32 * (r * T + o));
            czk_fr_mul(&d, &d, &rho);
            czk_fr_add(&a, &a, &d);
            czk_fr_to_bytes_le(r_new.vals[0] + 32 * (r * T + o), &a);
        }
    }
    if (s == CZK_OK) s = vt_build(&r_new, err);
    if (s != CZK_OK) goto done;
    memcpy(c->root_r_new, vt_root(&r_new), 32);
    s = czk_comm_r(c->comm_r_new, c->comm_c, c->root_r_new, err);
    if (s != CZK_OK) goto done;

    /* The partition proofs, exactly as prove_inner draws and proves the challenges. */
    f->partitions = czk_calloc(p->partition_count, sizeof *f->partitions);
    ch = czk_malloc(p->challenge_count * sizeof *ch);
    if (!f->partitions || !ch) {
        s = czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
        goto done;
    }
    f->npartitions = p->partition_count;
    unsigned apex_level = B - p->partition_bit_len - p->apex_leaf_bit_len;
    for (uint64_t k = 0; s == CZK_OK && k < p->partition_count; k++) {
        czk_snap_partition_proof *pp = czk_calloc(1, sizeof *pp);
        if (!pp || !(pp->arena = czk_vanilla_arena_create())) {
            czk_free(pp);
            s = czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
            break;
        }
        f->partitions[k] = pp;
        memcpy(pp->comm_c, c->comm_c, 32);
        pp->napex_leafs = p->apex_leaf_count;
        pp->nchallenge_proofs = p->challenge_count;
        pp->apex_leafs = czk_vanilla_arena_alloc(pp->arena, 32 * (size_t)p->apex_leaf_count);
        pp->challenge_proofs =
            czk_vanilla_arena_alloc(pp->arena, p->challenge_count * sizeof *pp->challenge_proofs);
        if (!pp->apex_leafs || !pp->challenge_proofs) {
            s = czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
            break;
        }
        for (unsigned i = 0; i < p->apex_leaf_count; i++)
            memcpy(pp->apex_leafs[i], vt_node(&d_new, apex_level, k * p->apex_leaf_count + i), 32);
        s = czk_snap_challenges(ch, p, c->comm_r_new, k, err);
        for (unsigned i = 0; s == CZK_OK && i < p->challenge_count; i++) {
            czk_snap_challenge_proof *cp = &pp->challenge_proofs[i];
            vt_path(&r_old, ch[i], path);
            s = czk_vanilla_from_path(&cp->proof_r_old, pp->arena, path, c->root_r_old,
                                      tr->sub_arity, tr->top_arity, err);
            vt_path(&d_new, ch[i], path);
            if (s == CZK_OK)
                s = czk_vanilla_from_path(&cp->proof_d_new, pp->arena, path, c->comm_d_new, 0, 0, err);
            vt_path(&r_new, ch[i], path);
            if (s == CZK_OK)
                s = czk_vanilla_from_path(&cp->proof_r_new, pp->arena, path, c->root_r_new,
                                          tr->sub_arity, tr->top_arity, err);
        }
    }
done:
    vt_free(&r_old);
    vt_free(&d_new);
    vt_free(&r_new);
    czk_free(path);
    czk_free(ch);
    if (s != CZK_OK) {
        czk_snap_fixture_destroy(f);
        return s;
    }
    *out = f;
    return CZK_OK;
}

/* ---------------------------------------------------------------------------------------
 * PoSt
 * ------------------------------------------------------------------------------------- */

void czk_post_fixture_destroy(czk_post_fixture *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->nsectors; i++)
        if (f->proofs) czk_post_sector_proof_free(f->proofs[i]);
    czk_free(f->proofs);
    czk_free(f->sectors);
    czk_free(f);
}

/* Distinct tree_r_last contents among the sectors of a fixture. A full 32 GiB Window PoSt
 * partition has 2349 sectors; giving each its own virtual tree would cost ~10 s of
 * hashing for nothing the prover can tell apart, so sectors share a few trees and differ
 * by comm_c (hence comm_r) and by their challenges (which hash the sector id). */
#define POST_TREES 4

czk_status czk_post_fixture_create(czk_post_fixture **out, czk_post_proof proof, uint64_t seed,
                                   size_t nsectors, czk_err *err)
{
    *out = NULL;
    czk_post_fixture *f = czk_calloc(1, sizeof *f);
    if (!f) return czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
    vtree trees[POST_TREES];
    memset(trees, 0, sizeof trees);
    czk_status s = czk_post_params_get(&f->params, proof, err);
    if (s != CZK_OK) goto done;
    const czk_post_params *p = &f->params;
    f->proof = proof;
    f->winning = czk_post_proof_is_winning(proof);
    f->miner_id = 1000 + seed % 100000;
    czk_prover_id_from_actor(f->prover_id, f->miner_id);
    prf(f->randomness, seed, 10, 0);
    size_t set_len = nsectors ? nsectors : f->winning ? 1 : p->sector_count;
    if (!f->winning && set_len > p->sector_count) {
        s = czk_err_set(err, CZK_EINVAL, "fixture: %zu sectors, a Window PoSt partition of %s holds %u",
                        set_len, czk_post_proof_name(proof), p->sector_count);
        goto done;
    }
    /* Sector ids of the set: distinct, deterministic in the seed. */
    uint64_t id0 = 1 + (seed % 1000) * 10000;
    uint64_t chosen = 0;
    if (f->winning) {
        f->sector_set_len = set_len;
        czk_post_winning_sectors(&chosen, 1, f->randomness, set_len, f->prover_id);
        f->nsectors = 1;
    } else {
        f->nsectors = set_len;
    }
    f->sectors = czk_calloc(f->nsectors, sizeof *f->sectors);
    f->proofs = czk_calloc(f->nsectors, sizeof *f->proofs);
    if (!f->sectors || !f->proofs) {
        s = czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
        goto done;
    }
    /* tree_r_last: 16 regions of random templates of up to 8 leaves. */
    unsigned ntrees = f->nsectors < POST_TREES ? (unsigned)f->nsectors : POST_TREES;
    uint64_t R = p->nodes / 16 ? p->nodes / 16 : 1, T = R < 8 ? R : 8;
    for (unsigned t = 0; t < ntrees && s == CZK_OK; t++) {
        s = vt_init(&trees[t], CZK_MERKLE_POSEIDON, p->tree.base_arity, p->tree.base_levels,
                    p->tree.sub_arity, p->tree.top_arity, R, T, err);
        if (s == CZK_OK) vt_fill_random(&trees[t], seed, 20 + t);
        if (s == CZK_OK) s = vt_build(&trees[t], err);
    }
    if (s != CZK_OK) goto done;
    unsigned count = czk_post_vanilla_challenge_count(p, f->winning);
    uint64_t *ch = czk_malloc(count * sizeof *ch);
    czk_merkle_path *path = czk_malloc(sizeof *path);
    if (!ch || !path) s = czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
    for (size_t i = 0; s == CZK_OK && i < f->nsectors; i++) {
        uint64_t set_index = f->winning ? chosen : i;
        const vtree *t = &trees[set_index % ntrees];
        czk_post_public_sector *ps = &f->sectors[i];
        ps->id = id0 + set_index;
        /* Window: the sector's place in the whole proof (partition 0); Winning: 0. */
        uint64_t sector_index = f->winning ? 0 : f->partition_index * p->sector_count + i;
        czk_post_sector_proof *sp = czk_calloc(1, sizeof *sp);
        if (!sp || !(sp->arena = czk_vanilla_arena_create())) {
            czk_free(sp);
            s = czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
            break;
        }
        f->proofs[i] = sp;
        prf(sp->comm_c, seed, 30, set_index);
        memcpy(sp->comm_r_last, vt_root(t), 32);
        s = czk_comm_r(ps->comm_r, sp->comm_c, sp->comm_r_last, err);
        sp->inclusion_proofs = czk_vanilla_arena_alloc(sp->arena, count * sizeof *sp->inclusion_proofs);
        sp->ninclusion_proofs = count;
        if (s == CZK_OK && !sp->inclusion_proofs)
            s = czk_err_set(err, CZK_ENOMEM, "fixture: out of memory");
        if (s == CZK_OK)
            czk_post_sector_challenges(ch, p, f->winning, f->randomness, ps->id, sector_index);
        for (unsigned n = 0; s == CZK_OK && n < count; n++) {
            vt_path(t, ch[n], path);
            s = czk_vanilla_from_path(&sp->inclusion_proofs[n], sp->arena, path, sp->comm_r_last,
                                      p->tree.sub_arity, p->tree.top_arity, err);
        }
    }
    czk_free(ch);
    czk_free(path);
done:
    for (unsigned t = 0; t < POST_TREES; t++) vt_free(&trees[t]);
    if (s != CZK_OK) {
        czk_post_fixture_destroy(f);
        return s;
    }
    *out = f;
    return CZK_OK;
}
