/*
 * Structural checks of vanilla proofs against a registered proof, Merkle path
 * verification, and cuzk's PoRep envelope (docs/formats.md §5.1, §5.6, §8.1, §8.4).
 *
 * The C1 checks are what C2 relies on without checking itself: the circuit takes
 * comm_c and comm_r_last from the first challenge's proofs, the challenge from the
 * labeling proof and every path from its MerkleProof, so a C1 whose shapes or roots
 * disagree would make the prover fail late (or produce an invalid proof) instead of
 * being rejected up front with a message that names the bad value.
 */
#include "czk/vanilla.h"
#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "czk/poseidon.h"
#include "czk/comm.h"
#include "czk/sdr.h"
#include "czk/porep_vanilla.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static bool is_fr(const uint8_t b[32])
{
    czk_fr x;
    return czk_fr_from_bytes_le(&x, b);
}

static void hex32(char out[65], const uint8_t b[32])
{
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hx[b[i] >> 4];
        out[2 * i + 1] = hx[b[i] & 15];
    }
    out[64] = 0;
}

czk_status czk_vanilla_to_path(const czk_vanilla_merkle_proof *mp, czk_merkle_path *path,
                               uint64_t *leaf_index, czk_err *err)
{
    const czk_vanilla_path *parts[3] = {&mp->base, &mp->sub, &mp->top};
    unsigned nparts = mp->kind == CZK_VANILLA_SINGLE ? 1 : mp->kind == CZK_VANILLA_SUB ? 2 : 3;
    unsigned lv = 0, sib = 0;
    uint64_t leaf = 0, weight = 1;
    bool overflow = false;
    memcpy(path->leaf, mp->leaf, 32);
    for (unsigned p = 0; p < nparts; p++) {
        for (size_t i = 0; i < parts[p]->len; i++) {
            const czk_vanilla_path_elem *e = &parts[p]->elems[i];
            if (lv >= CZK_MERKLE_MAX_LEVELS)
                return czk_err_set(err, CZK_EINVAL, "more than %d path levels", CZK_MERKLE_MAX_LEVELS);
            if (e->nhashes < 1 || e->nhashes > 255 || sib + e->nhashes > CZK_MERKLE_MAX_SIBLINGS)
                return czk_err_set(err, CZK_EINVAL, "path level %u has %zu hashes", lv, e->nhashes);
            if (e->index > e->nhashes)
                return czk_err_set(err, CZK_EINVAL, "path level %u: index %llu is not below arity %zu",
                                   lv, (unsigned long long)e->index, e->nhashes + 1);
            path->arity[lv] = (uint8_t)(e->nhashes + 1);
            path->index[lv] = (uint8_t)e->index;
            memcpy(path->siblings[sib], e->hashes, 32 * e->nhashes);
            sib += (unsigned)e->nhashes;
            if (weight > UINT64_MAX / 256) overflow = true;
            leaf += e->index * weight;
            weight *= e->nhashes + 1;
            lv++;
        }
    }
    if (overflow) return czk_err_set(err, CZK_EINVAL, "path too long for a 64-bit leaf index");
    path->levels = lv;
    path->leaf_index = leaf;
    *leaf_index = leaf;
    return CZK_OK;
}

czk_status czk_vanilla_merkle_verify(const czk_vanilla_merkle_proof *mp, czk_merkle_hasher hasher,
                                     const uint8_t *want_root, const char *what, czk_err *err)
{
    if (!is_fr(mp->root)) return czk_err_set(err, CZK_ENONCANONICAL, "%s.root is not below r", what);
    if (!is_fr(mp->leaf)) return czk_err_set(err, CZK_ENONCANONICAL, "%s.leaf is not below r", what);
    const czk_vanilla_path *parts[3] = {&mp->base, &mp->sub, &mp->top};
    static const char *const pname[3][3] = {{"path", "", ""},
                                            {"base_proof", "sub_proof", ""},
                                            {"base_proof", "sub_proof", "top_proof"}};
    unsigned nparts = mp->kind == CZK_VANILLA_SINGLE ? 1 : mp->kind == CZK_VANILLA_SUB ? 2 : 3;
    for (unsigned p = 0; p < nparts; p++)
        for (size_t i = 0; i < parts[p]->len; i++)
            for (size_t h = 0; h < parts[p]->elems[i].nhashes; h++)
                if (!is_fr(parts[p]->elems[i].hashes[h]))
                    return czk_err_set(err, CZK_ENONCANONICAL,
                                       "%s.%s[%zu].hashes[%zu] is not below r", what,
                                       pname[mp->kind][p], i, h);
    czk_merkle_path *path = czk_malloc(sizeof *path);
    if (!path) return czk_err_set(err, CZK_ENOMEM, "%s: out of memory", what);
    uint64_t leaf;
    czk_err e2;
    uint8_t root[32];
    czk_status s = czk_vanilla_to_path(mp, path, &leaf, &e2);
    if (s == CZK_OK) s = czk_merkle_path_root(root, hasher, path, &e2);
    czk_free(path);
    if (s) return czk_err_set(err, s, "%s: %s", what, e2.msg);
    char a[65], b[65];
    if (memcmp(root, mp->root, 32) != 0) {
        hex32(a, root);
        hex32(b, mp->root);
        return czk_err_set(err, CZK_EVERIFY,
                           "%s: Merkle path does not verify: the leaf and siblings hash to %s, "
                           "the proof's root is %s",
                           what, a, b);
    }
    if (want_root && memcmp(want_root, mp->root, 32) != 0) {
        hex32(a, mp->root);
        hex32(b, want_root);
        return czk_err_set(err, CZK_EVERIFY, "%s.root is %s, expected %s", what, a, b);
    }
    return CZK_OK;
}

/* ---------------------------------------------------------------------------------------
 * C1 checks
 * ------------------------------------------------------------------------------------- */

typedef struct shape {
    czk_vanilla_proof_kind kind;
    size_t base_levels;
    unsigned base_arity, sub_arity, top_arity;
} shape;

static czk_status check_path_shape(const czk_vanilla_path *p, size_t levels, unsigned arity,
                                   const char *what, const char *name, czk_err *err)
{
    if (p->len != levels)
        return czk_err_set(err, CZK_EINVAL, "%s.%s has %zu levels, expected %zu", what, name,
                           p->len, levels);
    for (size_t i = 0; i < p->len; i++)
        if (p->elems[i].nhashes != arity - 1)
            return czk_err_set(err, CZK_EINVAL, "%s.%s[%zu].hashes has %zu values, expected %u",
                               what, name, i, p->elems[i].nhashes, arity - 1);
    return CZK_OK;
}

static const char *kind_name(czk_vanilla_proof_kind k)
{
    return k == CZK_VANILLA_SINGLE ? "Single" : k == CZK_VANILLA_SUB ? "Sub" : "Top";
}

static czk_status check_shape(const czk_vanilla_merkle_proof *mp, const shape *sh, const char *what,
                              czk_err *err)
{
    if (mp->kind != sh->kind)
        return czk_err_set(err, CZK_EINVAL, "%s is a %s proof, expected %s", what,
                           kind_name(mp->kind), kind_name(sh->kind));
    czk_status s = check_path_shape(&mp->base, sh->base_levels, sh->base_arity, what,
                                    sh->kind == CZK_VANILLA_SINGLE ? "path" : "base_proof", err);
    if (!s && sh->kind != CZK_VANILLA_SINGLE)
        s = check_path_shape(&mp->sub, 1, sh->sub_arity, what, "sub_proof", err);
    if (!s && sh->kind == CZK_VANILLA_TOP)
        s = check_path_shape(&mp->top, 1, sh->top_arity, what, "top_proof", err);
    return s;
}

/* Shape check, path verification and leaf index of one MerkleProof. */
static czk_status check_merkle(const czk_vanilla_merkle_proof *mp, const shape *sh,
                               czk_merkle_hasher hasher, const uint8_t *want_root,
                               uint64_t want_leaf, const char *what, czk_err *err)
{
    czk_status s = check_shape(mp, sh, what, err);
    if (s) return s;
    if ((s = czk_vanilla_merkle_verify(mp, hasher, want_root, what, err))) return s;
    czk_merkle_path *path = czk_malloc(sizeof *path);
    if (!path) return czk_err_set(err, CZK_ENOMEM, "out of memory");
    uint64_t leaf = 0;
    s = czk_vanilla_to_path(mp, path, &leaf, err);
    czk_free(path);
    if (s) return s;
    if (leaf != want_leaf)
        return czk_err_set(err, CZK_EVERIFY, "%s: path indices give leaf %llu, expected %llu",
                           what, (unsigned long long)leaf, (unsigned long long)want_leaf);
    return CZK_OK;
}

typedef struct cctx {
    const czk_seal_proof_info *info;
    shape tree_d, tree_r;
    const czk_poseidon_params *colp;
    const czk_sdr_graph *graph;
    bool have_roots;
    uint8_t comm_c[32], comm_r_last[32];
    char where[128];
    czk_err *err;
} cctx;

static czk_status check_column(cctx *c, const czk_vanilla_column_proof *cp, const char *name,
                               bool want_index, uint64_t index)
{
    char what[256];
    snprintf(what, sizeof what, "%s.replica_column_proofs.%s", c->where, name);
    if (cp->index >= c->info->nodes)
        return czk_err_set(c->err, CZK_EINVAL, "%s.column.index %u is not below %llu nodes", what,
                           cp->index, (unsigned long long)c->info->nodes);
    if (want_index && cp->index != index)
        return czk_err_set(c->err, CZK_EVERIFY, "%s.column.index is %u, expected %llu",
                           what, cp->index, (unsigned long long)index);
    if (cp->nrows != c->info->layers)
        return czk_err_set(c->err, CZK_EINVAL, "%s.column.rows has %zu values, expected %u layers",
                           what, cp->nrows, c->info->layers);
    czk_fr rows[16], h;
    for (size_t l = 0; l < cp->nrows; l++)
        if (!czk_fr_from_bytes_le(&rows[l], cp->rows[l]))
            return czk_err_set(c->err, CZK_ENONCANONICAL, "%s.column.rows[%zu] is not below r",
                               what, l);
    char ipwhat[300];
    snprintf(ipwhat, sizeof ipwhat, "%s.inclusion_proof", what);
    czk_status s = check_merkle(&cp->inclusion_proof, &c->tree_r, CZK_MERKLE_POSEIDON,
                                c->have_roots ? c->comm_c : NULL, cp->index, ipwhat, c->err);
    if (s) return s;
    if (!c->have_roots) memcpy(c->comm_c, cp->inclusion_proof.root, 32);
    /* tree_c's leaves are the column hashes: the path proves nothing about the rows
     * unless the leaf is their hash. */
    uint8_t leaf[32];
    czk_poseidon_merkle(&h, c->colp, rows);
    czk_fr_to_bytes_le(leaf, &h);
    if (memcmp(leaf, cp->inclusion_proof.leaf, 32) != 0)
        return czk_err_set(c->err, CZK_EVERIFY,
                           "%s.inclusion_proof.leaf is not the Poseidon hash of column.rows", what);
    return CZK_OK;
}

static czk_status check_labeling(cctx *c, const czk_vanilla_labeling_proof *lp, const char *what,
                                 uint32_t want_layer, uint64_t want_node)
{
    if (lp->layer_index != want_layer)
        return czk_err_set(c->err, CZK_EINVAL, "%s.layer_index is %u, expected %u", what,
                           lp->layer_index, want_layer);
    if (lp->node != want_node)
        return czk_err_set(c->err, CZK_EINVAL, "%s.node is %llu, expected the challenge %llu", what,
                           (unsigned long long)lp->node, (unsigned long long)want_node);
    for (size_t i = 0; i < lp->nparents; i++)
        if (!is_fr(lp->parents[i]))
            return czk_err_set(c->err, CZK_ENONCANONICAL, "%s.parents[%zu] is not below r", what, i);
    return CZK_OK;
}

static czk_status check_challenge(cctx *c, const czk_porep_vanilla_proof *p, const uint8_t comm_d[32])
{
    czk_err *err = c->err;
    unsigned layers = c->info->layers;
    char what[256];
    if (p->nlabeling_proofs != layers)
        return czk_err_set(err, CZK_EINVAL, "%s.labeling_proofs has %zu entries, expected %u layers",
                           c->where, p->nlabeling_proofs, layers);
    /* The circuit takes the challenge from the first labeling proof. */
    uint64_t ch = p->labeling_proofs[0].node;
    if (ch >= c->info->nodes)
        return czk_err_set(err, CZK_EINVAL, "%s.labeling_proofs[0].node %llu is not below %llu nodes",
                           c->where, (unsigned long long)ch, (unsigned long long)c->info->nodes);
    for (unsigned l = 0; l < layers; l++) {
        snprintf(what, sizeof what, "%s.labeling_proofs[%u]", c->where, l);
        czk_status s = check_labeling(c, &p->labeling_proofs[l], what, l + 1, ch);
        if (s) return s;
    }
    snprintf(what, sizeof what, "%s.encoding_proof", c->where);
    czk_status s = check_labeling(c, &p->encoding_proof, what, layers, ch);
    if (s) return s;

    snprintf(what, sizeof what, "%s.comm_d_proofs", c->where);
    if ((s = check_merkle(&p->comm_d_proofs, &c->tree_d, CZK_MERKLE_SHA256, NULL, ch, what, err)))
        return s;
    /* The path holds, so a root other than comm_d means the C1's comm_d (or this root) was
     * changed: name comm_d. */
    if (memcmp(p->comm_d_proofs.root, comm_d, 32) != 0) {
        char a[65], b[65];
        hex32(a, comm_d);
        hex32(b, p->comm_d_proofs.root);
        return czk_err_set(err, CZK_EVERIFY, "comm_d: the C1's comm_d is %s, but %s.root is %s", a,
                           what, b);
    }
    snprintf(what, sizeof what, "%s.comm_r_last_proof", c->where);
    if ((s = check_merkle(&p->comm_r_last_proof, &c->tree_r, CZK_MERKLE_POSEIDON,
                          c->have_roots ? c->comm_r_last : NULL, ch, what, err)))
        return s;
    if ((s = check_column(c, &p->c_x, "c_x", true, ch))) return s;
    if (!c->have_roots) {
        memcpy(c->comm_r_last, p->comm_r_last_proof.root, 32);
        c->have_roots = true;
    }
    if (p->ndrg_parents != CZK_SDR_DRG_DEGREE)
        return czk_err_set(err, CZK_EINVAL,
                           "%s.replica_column_proofs.drg_parents has %zu entries, expected %d",
                           c->where, p->ndrg_parents, CZK_SDR_DRG_DEGREE);
    if (p->nexp_parents != CZK_SDR_EXP_DEGREE)
        return czk_err_set(err, CZK_EINVAL,
                           "%s.replica_column_proofs.exp_parents has %zu entries, expected %d",
                           c->where, p->nexp_parents, CZK_SDR_EXP_DEGREE);
    /* The circuit's public inputs hold the parents' indices as the SDR graph gives
     * them, so columns of other nodes would make a proof that does not verify. */
    uint32_t parents[CZK_SDR_DEGREE];
    czk_sdr_parents(c->graph, (uint32_t)ch, parents);
    char name[48];
    for (size_t i = 0; i < CZK_SDR_DEGREE; i++) {
        bool drg = i < CZK_SDR_DRG_DEGREE;
        size_t j = drg ? i : i - CZK_SDR_DRG_DEGREE;
        snprintf(name, sizeof name, "%s[%zu]", drg ? "drg_parents" : "exp_parents", j);
        const czk_vanilla_column_proof *cp = drg ? &p->drg_parents[j] : &p->exp_parents[j];
        if ((s = check_column(c, cp, name, true, parents[i]))) return s;
    }
    /* The replica node is the data node plus the last layer's label (encode = add). */
    czk_fr d, key, r;
    czk_fr_from_bytes_le(&d, p->comm_d_proofs.leaf);
    czk_fr_from_bytes_le(&key, p->c_x.rows[layers - 1]);
    czk_fr_add(&r, &d, &key);
    uint8_t rb[32];
    czk_fr_to_bytes_le(rb, &r);
    if (memcmp(rb, p->comm_r_last_proof.leaf, 32) != 0)
        return czk_err_set(err, CZK_EVERIFY,
                           "%s.comm_r_last_proof.leaf is not comm_d_proofs.leaf + the last "
                           "layer's label (c_x.column.rows[%u])",
                           c->where, layers - 1);
    return CZK_OK;
}

static unsigned ilog(uint64_t n, unsigned base)
{
    unsigned k = 0;
    while (n > 1 && n % base == 0) {
        n /= base;
        k++;
    }
    return n == 1 ? k : 0;
}

czk_status czk_porep_c1_check(const czk_porep_c1_output *c1, czk_seal_proof proof, czk_err *err)
{
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    if (!info) return czk_err_set(err, CZK_EINVAL, "C1: unknown registered proof %d", (int)proof);
    if (c1->proof != proof)
        return czk_err_set(err, CZK_EINVAL, "C1: registered_proof is %s, expected %s",
                           czk_seal_proof_name(c1->proof), info->name);
    const char *key = czk_vanilla_seal_key(proof);
    if (!c1->vanilla_key || strcmp(c1->vanilla_key, key) != 0)
        return czk_err_set(err, CZK_EINVAL, "C1: vanilla_proofs variant is %s, expected %s for %s",
                           c1->vanilla_key ? c1->vanilla_key : "(none)", key, info->name);
    if (c1->npartitions != info->partitions)
        return czk_err_set(err, CZK_EINVAL, "C1: vanilla_proofs has %zu partitions, %s needs %u",
                           c1->npartitions, info->name, info->partitions);
    for (size_t k = 0; k < c1->npartitions; k++)
        if (c1->challenge_counts[k] != info->challenges_per_partition)
            return czk_err_set(err, CZK_EINVAL,
                               "C1: vanilla_proofs[%zu] has %zu challenge proofs, %s needs %u", k,
                               c1->challenge_counts[k], info->name, info->challenges_per_partition);
    static const struct {
        const char *name;
        size_t off;
    } commits[] = {{"comm_r", offsetof(czk_porep_c1_output, comm_r)},
                   {"comm_d", offsetof(czk_porep_c1_output, comm_d)},
                   {"replica_id", offsetof(czk_porep_c1_output, replica_id)}};
    for (size_t i = 0; i < 3; i++)
        if (!is_fr((const uint8_t *)c1 + commits[i].off))
            return czk_err_set(err, CZK_ENONCANONICAL, "C1: %s is not below r", commits[i].name);

    cctx c = {.info = info, .err = err};
    unsigned sub = info->tree_sub_arity, top = info->tree_top_arity;
    uint64_t base_leaves = info->nodes / (sub ? sub : 1) / (top ? top : 1);
    c.tree_d = (shape){CZK_VANILLA_SINGLE, ilog(info->nodes, 2), 2, 0, 0};
    c.tree_r = (shape){sub == 0 ? CZK_VANILLA_SINGLE : top == 0 ? CZK_VANILLA_SUB : CZK_VANILLA_TOP,
                       ilog(base_leaves, info->tree_base_arity), info->tree_base_arity, sub, top};
    c.colp = czk_poseidon_params_get(info->layers);
    if (!c.colp || info->layers > 16)
        return czk_err_set(err, CZK_EINTERNAL, "C1: no Poseidon-%u parameters", info->layers);
    czk_sdr_graph *graph = NULL;
    czk_status s = czk_sdr_graph_create_for_proof(&graph, proof, err);
    if (s) return s;
    c.graph = graph;
    for (size_t k = 0; k < c1->npartitions && !s; k++)
        for (size_t i = 0; i < c1->challenge_counts[k] && !s; i++) {
            snprintf(c.where, sizeof c.where, "partition %zu challenge %zu: vanilla_proofs[%zu][%zu]",
                     k, i, k, i);
            s = check_challenge(&c, &c1->vanilla_proofs[k][i], c1->comm_d);
        }
    czk_sdr_graph_destroy(graph);
    if (s) return s;
    uint8_t comm_r[32];
    s = czk_comm_r(comm_r, c.comm_c, c.comm_r_last, err);
    if (s) return s;
    if (memcmp(comm_r, c1->comm_r, 32) != 0) {
        char a[65], b[65];
        hex32(a, comm_r);
        hex32(b, c1->comm_r);
        return czk_err_set(err, CZK_EVERIFY,
                           "C1: comm_r is %s but Poseidon2(comm_c, comm_r_last) of the proofs is %s",
                           b, a);
    }
    return CZK_OK;
}

/* ---------------------------------------------------------------------------------------
 * cuzk envelope
 * ------------------------------------------------------------------------------------- */

czk_status czk_porep_envelope_decode(const void *buf, size_t len, uint8_t **c1_json, size_t *c1_len,
                                     uint64_t *sector_num, uint64_t *sector_size, czk_err *err)
{
    *c1_json = NULL;
    *c1_len = 0;
    json_error_t je;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return czk_err_set(err, CZK_EFORMAT, "JSON: line %d column %d: %s", je.line, je.column,
                           je.text);
    czk_status s = CZK_OK;
    const json_t *p1 = json_object_get(root, "Phase1Out");
    const json_t *sn = json_object_get(root, "SectorNum");
    const json_t *ss = json_object_get(root, "SectorSize");
    if (!p1) {
        s = czk_err_set(err, CZK_ENOENT, "not a cuzk envelope (no \"Phase1Out\" key)");
    } else if (!json_is_string(p1)) {
        s = czk_err_set(err, CZK_EFORMAT, "cuzk envelope: Phase1Out is not a base64 string");
    } else if (!json_is_integer(sn) || json_integer_value(sn) < 0) {
        s = czk_err_set(err, CZK_EFORMAT, "cuzk envelope: SectorNum is %s",
                        sn ? "not an unsigned integer" : "missing");
    } else if (!json_is_integer(ss) || json_integer_value(ss) < 0) {
        s = czk_err_set(err, CZK_EFORMAT, "cuzk envelope: SectorSize is %s",
                        ss ? "not an unsigned integer" : "missing");
    } else {
        size_t n = json_string_length(p1);
        const char *b64 = json_string_value(p1);
        size_t pad = 0;
        if (n % 4 != 0 || n > (size_t)INT32_MAX) {
            s = czk_err_set(err, CZK_EFORMAT,
                            "cuzk envelope: Phase1Out is not base64 (length %zu is not a multiple of 4)", n);
        } else {
            if (n >= 1 && b64[n - 1] == '=') pad++;
            if (n >= 2 && b64[n - 2] == '=') pad++;
            uint8_t *out = czk_malloc(n / 4 * 3 + 1);
            if (!out) {
                s = czk_err_set(err, CZK_ENOMEM, "cuzk envelope: out of memory");
            } else {
                /* EVP_DecodeBlock ignores padding in its count, so the padding is taken
                 * off by hand; it returns −1 for a character outside the alphabet. */
                int r = n ? EVP_DecodeBlock(out, (const unsigned char *)b64, (int)n) : 0;
                if (r < 0) {
                    czk_free(out);
                    s = czk_err_set(err, CZK_EFORMAT, "cuzk envelope: Phase1Out is not valid base64");
                } else {
                    *c1_json = out;
                    *c1_len = (size_t)r - pad;
                    *sector_num = (uint64_t)json_integer_value(sn);
                    *sector_size = (uint64_t)json_integer_value(ss);
                }
            }
        }
    }
    json_decref(root);
    return s;
}

czk_status czk_porep_envelope_encode(const uint8_t *c1_json, size_t c1_len, uint64_t sector_num,
                                     uint64_t sector_size, uint8_t **out, size_t *out_len,
                                     czk_err *err)
{
    *out = NULL;
    *out_len = 0;
    if (c1_len > (size_t)INT32_MAX / 4 * 3)
        return czk_err_set(err, CZK_EINVAL, "cuzk envelope: C1 of %zu bytes is too large", c1_len);
    size_t b64 = (c1_len + 2) / 3 * 4;
    size_t cap = b64 + 128;
    char *buf = czk_malloc(cap);
    if (!buf) return czk_err_set(err, CZK_ENOMEM, "cuzk envelope: out of memory");
    int n = snprintf(buf, cap, "{\"SectorNum\":%llu,\"Phase1Out\":\"", (unsigned long long)sector_num);
    size_t o = (size_t)n;
    o += (size_t)EVP_EncodeBlock((unsigned char *)buf + o, c1_json, (int)c1_len);
    n = snprintf(buf + o, cap - o, "\",\"SectorSize\":%llu}", (unsigned long long)sector_size);
    *out = (uint8_t *)buf;
    *out_len = o + (size_t)n;
    return CZK_OK;
}
