/*
 * PoRep vanilla proofs of a sealed sector and the C1 output built from them, as
 * rust-fil-proofs' StackedDrg::prove_layers (storage-proofs-porep stacked/vanilla/
 * proof.rs) and filecoin-proofs' seal_commit_phase1 produce them; and the full C1
 * verification (labels and challenges) that czk_porep_c1_check leaves out.
 *
 * A C1 is built in two passes: a serial pass allocates every array of every proof in
 * the C1's arena (czk__c1_skeleton; the arena is a bump allocator without a lock), then
 * the challenges are filled concurrently, each task writing only its own proof.
 */
#include "filecoin/vanilla/porep_vanilla_internal.h"

#include "czk/alloc.h"
#include "czk/bls12_381.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------
 * Skeleton
 * ------------------------------------------------------------------------------------- */

typedef struct pshape {
    czk_vanilla_proof_kind kind;
    size_t base_levels;
    unsigned base_arity, sub_arity, top_arity;
} pshape;

static unsigned ilog(uint64_t n, unsigned base)
{
    unsigned k = 0;
    while (n > 1 && n % base == 0) {
        n /= base;
        k++;
    }
    return n == 1 ? k : 0;
}

static void shapes(const czk_seal_proof_info *info, pshape *d, pshape *r)
{
    unsigned sub = info->tree_sub_arity, top = info->tree_top_arity;
    uint64_t base_leaves = info->nodes / (sub ? sub : 1) / (top ? top : 1);
    *d = (pshape){CZK_VANILLA_SINGLE, ilog(info->nodes, 2), 2, 0, 0};
    *r = (pshape){sub == 0 ? CZK_VANILLA_SINGLE : top == 0 ? CZK_VANILLA_SUB : CZK_VANILLA_TOP,
                  ilog(base_leaves, info->tree_base_arity), info->tree_base_arity, sub, top};
}

static bool alloc_path(czk_vanilla_arena *a, czk_vanilla_path *p, size_t levels, unsigned arity)
{
    p->len = levels;
    p->elems = czk_vanilla_arena_alloc(a, levels * sizeof *p->elems);
    if (!p->elems) return false;
    for (size_t i = 0; i < levels; i++) {
        p->elems[i].nhashes = arity - 1;
        p->elems[i].hashes = czk_vanilla_arena_alloc(a, (arity - 1) * 32);
        if (!p->elems[i].hashes) return false;
    }
    return true;
}

static bool alloc_merkle(czk_vanilla_arena *a, czk_vanilla_merkle_proof *mp, const pshape *sh)
{
    mp->kind = sh->kind;
    if (!alloc_path(a, &mp->base, sh->base_levels, sh->base_arity)) return false;
    if (sh->kind != CZK_VANILLA_SINGLE && !alloc_path(a, &mp->sub, 1, sh->sub_arity)) return false;
    if (sh->kind == CZK_VANILLA_TOP && !alloc_path(a, &mp->top, 1, sh->top_arity)) return false;
    return true;
}

static bool alloc_column(czk_vanilla_arena *a, czk_vanilla_column_proof *cp, unsigned layers,
                         const pshape *r)
{
    cp->nrows = layers;
    cp->rows = czk_vanilla_arena_alloc(a, layers * 32);
    return cp->rows && alloc_merkle(a, &cp->inclusion_proof, r);
}

static bool alloc_labeling(czk_vanilla_arena *a, czk_vanilla_labeling_proof *lp)
{
    lp->nparents = CZK_SDR_LABEL_PARENTS;
    lp->parents = czk_vanilla_arena_alloc(a, CZK_SDR_LABEL_PARENTS * 32);
    return lp->parents != NULL;
}

static bool alloc_proof(czk_vanilla_arena *a, czk_porep_vanilla_proof *p,
                        const czk_seal_proof_info *info)
{
    pshape d, r;
    shapes(info, &d, &r);
    unsigned L = info->layers;
    if (!alloc_merkle(a, &p->comm_d_proofs, &d) || !alloc_merkle(a, &p->comm_r_last_proof, &r) ||
        !alloc_column(a, &p->c_x, L, &r))
        return false;
    p->ndrg_parents = CZK_SDR_DRG_DEGREE;
    p->nexp_parents = CZK_SDR_EXP_DEGREE;
    p->drg_parents = czk_vanilla_arena_alloc(a, CZK_SDR_DRG_DEGREE * sizeof *p->drg_parents);
    p->exp_parents = czk_vanilla_arena_alloc(a, CZK_SDR_EXP_DEGREE * sizeof *p->exp_parents);
    p->nlabeling_proofs = L;
    p->labeling_proofs = czk_vanilla_arena_alloc(a, L * sizeof *p->labeling_proofs);
    if (!p->drg_parents || !p->exp_parents || !p->labeling_proofs) return false;
    for (unsigned i = 0; i < CZK_SDR_DRG_DEGREE; i++)
        if (!alloc_column(a, &p->drg_parents[i], L, &r)) return false;
    for (unsigned i = 0; i < CZK_SDR_EXP_DEGREE; i++)
        if (!alloc_column(a, &p->exp_parents[i], L, &r)) return false;
    for (unsigned l = 0; l < L; l++)
        if (!alloc_labeling(a, &p->labeling_proofs[l])) return false;
    return alloc_labeling(a, &p->encoding_proof);
}

czk_status czk__c1_skeleton(czk_porep_c1_output **out, czk_seal_proof proof, czk_err *err)
{
    *out = NULL;
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    if (!info) return czk_err_set(err, CZK_EINVAL, "C1: unknown registered proof %d", (int)proof);
    czk_porep_c1_output *c1 = czk_calloc(1, sizeof *c1);
    if (!c1) return czk_err_set(err, CZK_ENOMEM, "C1: out of memory");
    czk_vanilla_arena *a = c1->arena = czk_vanilla_arena_create();
    bool ok = a != NULL;
    c1->proof = proof;
    c1->registered_proof = info->name;
    c1->vanilla_key = czk_vanilla_seal_key(proof);
    size_t np = info->partitions, cpp = info->challenges_per_partition;
    c1->npartitions = np;
    if (ok) {
        c1->challenge_counts = czk_vanilla_arena_alloc(a, np * sizeof *c1->challenge_counts);
        c1->vanilla_proofs = czk_vanilla_arena_alloc(a, np * sizeof *c1->vanilla_proofs);
        ok = c1->challenge_counts && c1->vanilla_proofs;
    }
    for (size_t k = 0; k < np && ok; k++) {
        c1->challenge_counts[k] = cpp;
        c1->vanilla_proofs[k] = czk_vanilla_arena_alloc(a, cpp * sizeof **c1->vanilla_proofs);
        ok = c1->vanilla_proofs[k] != NULL;
        for (size_t i = 0; i < cpp && ok; i++) ok = alloc_proof(a, &c1->vanilla_proofs[k][i], info);
    }
    if (!ok) {
        czk_porep_c1_output_free(c1);
        return czk_err_set(err, CZK_ENOMEM, "C1: out of memory for %s's vanilla proofs", info->name);
    }
    *out = c1;
    return CZK_OK;
}

bool czk__vanilla_fill(czk_vanilla_merkle_proof *mp, const czk_merkle_path *path,
                       const uint8_t root[32])
{
    czk_vanilla_path *parts[3] = {&mp->base, &mp->sub, &mp->top};
    unsigned nparts = mp->kind == CZK_VANILLA_SINGLE ? 1 : mp->kind == CZK_VANILLA_SUB ? 2 : 3;
    unsigned lv = 0, sib = 0;
    for (unsigned p = 0; p < nparts; p++)
        for (size_t i = 0; i < parts[p]->len; i++, lv++) {
            czk_vanilla_path_elem *e = &parts[p]->elems[i];
            if (lv >= path->levels || path->arity[lv] != e->nhashes + 1) return false;
            memcpy(e->hashes, path->siblings[sib], 32 * e->nhashes);
            e->index = path->index[lv];
            sib += (unsigned)e->nhashes;
        }
    if (lv != path->levels) return false;
    memcpy(mp->leaf, path->leaf, 32);
    memcpy(mp->root, root, 32);
    return true;
}

void czk__label_parents_from_columns(uint8_t out[CZK_SDR_LABEL_PARENTS][32],
                                     const czk_porep_vanilla_proof *p, unsigned layer)
{
    const uint8_t *base[CZK_SDR_DEGREE];
    unsigned n = 0;
    for (unsigned i = 0; i < CZK_SDR_DRG_DEGREE; i++) base[n++] = p->drg_parents[i].rows[layer - 1];
    if (layer > 1)
        for (unsigned i = 0; i < CZK_SDR_EXP_DEGREE; i++)
            base[n++] = p->exp_parents[i].rows[layer - 2];
    for (unsigned i = 0; i < CZK_SDR_LABEL_PARENTS; i++) memcpy(out[i], base[i % n], 32);
}

/* ---------------------------------------------------------------------------------------
 * Proofs of a sealed sector
 * ------------------------------------------------------------------------------------- */

/* One challenge into a skeleton proof. `path` is scratch (a czk_merkle_path is 8 KiB). */
static czk_status sector_fill(czk_porep_vanilla_proof *p, const czk_sector *s, uint64_t c,
                              czk_merkle_path *path, czk_err *err)
{
    const czk_seal_proof_info *info = czk_sector_info(s);
    if (c == 0 || c >= info->nodes)
        return czk_err_set(err, CZK_EINVAL, "vanilla proof: challenge %llu is not in 1..%llu",
                           (unsigned long long)c, (unsigned long long)info->nodes - 1);
    czk_sector_seal_comms cm;
    czk_sector_comms(s, &cm);
    czk_status st = czk_sector_prove_d(s, c, path, err);
    if (st) return st;
    if (!czk__vanilla_fill(&p->comm_d_proofs, path, cm.comm_d)) goto shape;
    if ((st = czk_sector_prove_r_last(s, c, path, err))) return st;
    if (!czk__vanilla_fill(&p->comm_r_last_proof, path, cm.comm_r_last)) goto shape;

    uint32_t parents[CZK_SDR_DEGREE];
    czk_sdr_parents(czk_sector_graph(s), (uint32_t)c, parents);
    for (unsigned j = 0; j <= CZK_SDR_DEGREE; j++) {
        czk_vanilla_column_proof *cp = j == 0                     ? &p->c_x
                                       : j <= CZK_SDR_DRG_DEGREE ? &p->drg_parents[j - 1]
                                                                 : &p->exp_parents[j - 1 - CZK_SDR_DRG_DEGREE];
        uint64_t node = j == 0 ? c : parents[j - 1];
        cp->index = (uint32_t)node;
        if ((st = czk_sector_column(s, node, &cp->rows[0][0], err))) return st;
        if ((st = czk_sector_prove_c(s, node, path, err))) return st;
        if (!czk__vanilla_fill(&cp->inclusion_proof, path, cm.comm_c)) goto shape;
    }
    for (unsigned l = 1; l <= info->layers; l++) {
        czk_vanilla_labeling_proof *lp = &p->labeling_proofs[l - 1];
        lp->layer_index = l;
        lp->node = c;
        if ((st = czk_sector_label_parents(s, l, c, &lp->parents[0][0], err))) return st;
    }
    p->encoding_proof.layer_index = info->layers;
    p->encoding_proof.node = c;
    memcpy(p->encoding_proof.parents, p->labeling_proofs[info->layers - 1].parents,
           CZK_SDR_LABEL_PARENTS * 32);
    return CZK_OK;
shape:
    return czk_err_set(err, CZK_EINTERNAL, "vanilla proof: a sector path does not have %s's shape",
                       info->name);
}

czk_status czk_porep_vanilla_prove(czk_porep_vanilla_proof *out, czk_vanilla_arena *arena,
                                   const czk_sector *s, uint64_t challenge, czk_err *err)
{
    memset(out, 0, sizeof *out);
    if (!alloc_proof(arena, out, czk_sector_info(s)))
        return czk_err_set(err, CZK_ENOMEM, "vanilla proof: out of memory");
    czk_merkle_path *path = czk_malloc(sizeof *path);
    if (!path) return czk_err_set(err, CZK_ENOMEM, "vanilla proof: out of memory");
    czk_status st = sector_fill(out, s, challenge, path, err);
    czk_free(path);
    return st;
}

typedef struct fill_ctx {
    czk_porep_c1_output *c1;
    const czk_sector *s;
    const uint64_t *challenges; /* partitions · cpp */
    size_t cpp;
    czk_merkle_path *paths; /* one per worker */
    czk_status *status;     /* one per task */
    czk_err *errs;          /* one per task */
} fill_ctx;

static void fill_task(void *vctx, size_t task, unsigned worker)
{
    fill_ctx *x = vctx;
    size_t k = task / x->cpp, i = task % x->cpp;
    x->status[task] = sector_fill(&x->c1->vanilla_proofs[k][i], x->s, x->challenges[task],
                                  &x->paths[worker], &x->errs[task]);
}

czk_status czk_porep_c1_from_sector(czk_porep_c1_output **out, const czk_sector *s,
                                    const uint8_t ticket[32], const uint8_t seed[32],
                                    czk_pool *pool, czk_err *err)
{
    *out = NULL;
    const czk_seal_proof_info *info = czk_sector_info(s);
    czk_sector_seal_comms cm;
    czk_sector_comms(s, &cm);
    size_t np = info->partitions, cpp = info->challenges_per_partition, n = np * cpp;
    unsigned workers = pool ? czk_pool_size(pool) : 1;
    uint64_t *ch = czk_malloc(n * sizeof *ch);
    czk_merkle_path *paths = czk_malloc(workers * sizeof *paths);
    czk_status *status = czk_calloc(n, sizeof *status);
    czk_err *errs = czk_calloc(n, sizeof *errs);
    czk_porep_c1_output *c1 = NULL;
    czk_status st = CZK_OK;
    if (!ch || !paths || !status || !errs) st = czk_err_set(err, CZK_ENOMEM, "C1: out of memory");
    for (size_t k = 0; k < np && !st; k++)
        st = czk_porep_challenges(ch + k * cpp, info->proof, cm.replica_id, seed, cm.comm_r,
                                  (unsigned)k, err);
    if (!st) st = czk__c1_skeleton(&c1, info->proof, err);
    if (!st) {
        fill_ctx x = {c1, s, ch, cpp, paths, status, errs};
        czk_pool_run(pool, n, fill_task, &x);
        for (size_t t = 0; t < n && !st; t++)
            if (status[t])
                st = czk_err_set(err, status[t], "C1: partition %zu challenge %zu: %s", t / cpp,
                                 t % cpp, errs[t].msg);
    }
    if (!st) {
        memcpy(c1->comm_r, cm.comm_r, 32);
        memcpy(c1->comm_d, cm.comm_d, 32);
        memcpy(c1->replica_id, cm.replica_id, 32);
        memcpy(c1->seed, seed, 32);
        memcpy(c1->ticket, ticket, 32);
        *out = c1;
    } else {
        czk_porep_c1_output_free(c1);
    }
    czk_free(ch);
    czk_free(paths);
    czk_free(status);
    czk_free(errs);
    return st;
}

/* ---------------------------------------------------------------------------------------
 * Full verification
 * ------------------------------------------------------------------------------------- */

static czk_status verify_labels(const czk_porep_vanilla_proof *p, const uint8_t replica_id[32],
                                unsigned layers, size_t k, size_t i, czk_err *err)
{
    uint8_t want[CZK_SDR_LABEL_PARENTS][32], label[32];
    uint64_t c = p->labeling_proofs[0].node;
    for (unsigned l = 1; l <= layers; l++) {
        const czk_vanilla_labeling_proof *lp = &p->labeling_proofs[l - 1];
        czk__label_parents_from_columns(want, p, l);
        if (lp->nparents != CZK_SDR_LABEL_PARENTS)
            return czk_err_set(err, CZK_EINVAL,
                               "partition %zu challenge %zu: labeling_proofs[%u].parents has %zu "
                               "values, expected %d",
                               k, i, l - 1, lp->nparents, CZK_SDR_LABEL_PARENTS);
        for (unsigned j = 0; j < CZK_SDR_LABEL_PARENTS; j++)
            if (memcmp(lp->parents[j], want[j], 32) != 0)
                return czk_err_set(err, CZK_EVERIFY,
                                   "partition %zu challenge %zu: labeling_proofs[%u].parents[%u] "
                                   "is not the parent columns' label",
                                   k, i, l - 1, j);
        /* The label is recomputed from the parent columns, so a label or parent row that
         * was changed alone cannot pass. */
        czk_sdr_label_hash(label, replica_id, l, c, &want[0][0]);
        if (memcmp(label, p->c_x.rows[l - 1], 32) != 0)
            return czk_err_set(err, CZK_EVERIFY,
                               "partition %zu challenge %zu: c_x.column.rows[%u] is not the label "
                               "of node %llu on layer %u (SHA-256 of replica_id and its parents)",
                               k, i, l - 1, (unsigned long long)c, l);
    }
    const czk_vanilla_labeling_proof *ep = &p->encoding_proof;
    if (ep->nparents != CZK_SDR_LABEL_PARENTS ||
        memcmp(ep->parents, p->labeling_proofs[layers - 1].parents, CZK_SDR_LABEL_PARENTS * 32) != 0)
        return czk_err_set(err, CZK_EVERIFY,
                           "partition %zu challenge %zu: encoding_proof.parents are not the last "
                           "layer's parents",
                           k, i);
    return CZK_OK;
}

czk_status czk_porep_c1_verify(const czk_porep_c1_output *c1, czk_seal_proof proof, unsigned flags,
                               czk_err *err)
{
    czk_status st = czk_porep_c1_check(c1, proof, err);
    if (st) return st;
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    uint64_t want[64];
    if (info->challenges_per_partition > 64)
        return czk_err_set(err, CZK_EINTERNAL, "C1: more than 64 challenges per partition");
    for (size_t k = 0; k < c1->npartitions; k++) {
        if (!(flags & CZK_POREP_VERIFY_ANY_CHALLENGES)) {
            st = czk_porep_challenges(want, proof, c1->replica_id, c1->seed, c1->comm_r,
                                      (unsigned)k, err);
            if (st) return st;
        }
        for (size_t i = 0; i < c1->challenge_counts[k]; i++) {
            const czk_porep_vanilla_proof *p = &c1->vanilla_proofs[k][i];
            uint64_t c = p->labeling_proofs[0].node;
            if (!(flags & CZK_POREP_VERIFY_ANY_CHALLENGES) && c != want[i])
                return czk_err_set(err, CZK_EVERIFY,
                                   "partition %zu challenge %zu: the proof is for node %llu, but "
                                   "replica_id, seed and comm_r give challenge %llu",
                                   k, i, (unsigned long long)c, (unsigned long long)want[i]);
            if ((st = verify_labels(p, c1->replica_id, info->layers, k, i, err))) return st;
        }
    }
    return CZK_OK;
}
