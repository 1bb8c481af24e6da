/*
 * The PoSt vanilla side (storage-proofs-post fallback/vanilla.rs prove_all_partitions /
 * verify_all_partitions for one sector; filecoin-proofs api/post_util.rs and
 * api/winning_post.rs for the challenges and the FallbackPoStSectorProof wrapper), and
 * the MerkleProof shaping shared with the SnapDeals side.
 */
#include <stdio.h>
#include <string.h>

#include "czk/alloc.h"
#include "czk/comm.h"
#include "czk/post_vanilla.h"
#include "czk/vanilla.h"
#include "filecoin/vanilla/snap_post_internal.h"

/* ---------------------------------------------------------------------------------------
 * MerkleProof from a czk_merkle_path
 * ------------------------------------------------------------------------------------- */

czk_status czk_vanilla_from_path(czk_vanilla_merkle_proof *out, czk_vanilla_arena *a,
                                 const czk_merkle_path *path, const uint8_t root[32],
                                 unsigned sub_arity, unsigned top_arity, czk_err *err)
{
    memset(out, 0, sizeof *out);
    unsigned extra = (sub_arity > 0) + (top_arity > 0);
    if (top_arity > 0 && sub_arity == 0)
        return czk_err_set(err, CZK_EINVAL, "MerkleProof: a top arity needs a sub arity");
    if (path->levels < extra + 1)
        return czk_err_set(err, CZK_EINVAL, "MerkleProof: %u path levels for a %s tree",
                           path->levels, extra == 2 ? "top" : extra == 1 ? "sub" : "single");
    unsigned base_levels = path->levels - extra;
    if (sub_arity > 0 && path->arity[base_levels] != sub_arity)
        return czk_err_set(err, CZK_EINVAL, "MerkleProof: level %u has arity %u, not the sub arity %u",
                           base_levels, path->arity[base_levels], sub_arity);
    if (top_arity > 0 && path->arity[base_levels + 1] != top_arity)
        return czk_err_set(err, CZK_EINVAL, "MerkleProof: level %u has arity %u, not the top arity %u",
                           base_levels + 1, path->arity[base_levels + 1], top_arity);
    out->kind = top_arity > 0   ? CZK_VANILLA_TOP
                : sub_arity > 0 ? CZK_VANILLA_SUB
                                : CZK_VANILLA_SINGLE;
    memcpy(out->root, root, 32);
    memcpy(out->leaf, path->leaf, 32);
    czk_vanilla_path *parts[3] = {&out->base, &out->sub, &out->top};
    unsigned lens[3] = {base_levels, sub_arity > 0, top_arity > 0};
    unsigned lv = 0, sib = 0;
    for (unsigned p = 0; p < 3; p++) {
        if (lens[p] == 0) continue;
        parts[p]->elems = czk_vanilla_arena_alloc(a, lens[p] * sizeof *parts[p]->elems);
        if (!parts[p]->elems) return czk_err_set(err, CZK_ENOMEM, "MerkleProof: out of memory");
        parts[p]->len = lens[p];
        for (unsigned i = 0; i < lens[p]; i++, lv++) {
            czk_vanilla_path_elem *e = &parts[p]->elems[i];
            unsigned n = path->arity[lv] - 1u;
            e->hashes = czk_vanilla_arena_alloc(a, 32 * (size_t)n);
            if (!e->hashes) return czk_err_set(err, CZK_ENOMEM, "MerkleProof: out of memory");
            memcpy(e->hashes, path->siblings[sib], 32 * (size_t)n);
            e->nhashes = n;
            e->index = path->index[lv];
            sib += n;
        }
    }
    return CZK_OK;
}

/* ---------------------------------------------------------------------------------------
 * Challenges
 * ------------------------------------------------------------------------------------- */

unsigned czk_post_vanilla_challenge_count(const czk_post_params *p, bool winning)
{
    return winning ? p->sector_count * p->challenge_count : p->challenge_count;
}

void czk_post_sector_challenges(uint64_t *out, const czk_post_params *p, bool winning,
                                const uint8_t randomness[32], uint64_t sector_id,
                                uint64_t sector_index)
{
    unsigned count = czk_post_vanilla_challenge_count(p, winning);
    for (unsigned n = 0; n < count; n++) {
        uint64_t ci = czk_post_challenge_index(p->api_version, sector_index, count, n);
        out[n] = czk_post_leaf_challenge(p, randomness, sector_id, ci);
    }
}

void czk_post_winning_sectors(uint64_t *out, unsigned count, const uint8_t randomness[32],
                              uint64_t sector_set_len, const uint8_t prover_id[32])
{
    for (unsigned n = 0; n < count; n++)
        out[n] = czk_post_sector_challenge(randomness, n, sector_set_len, prover_id);
}

/* ---------------------------------------------------------------------------------------
 * Proving and verifying one sector
 * ------------------------------------------------------------------------------------- */

static czk_status new_sector_proof(czk_post_sector_proof **out, size_t n, czk_err *err)
{
    czk_post_sector_proof *sp = czk_calloc(1, sizeof *sp);
    if (!sp || !(sp->arena = czk_vanilla_arena_create())) {
        czk_free(sp);
        return czk_err_set(err, CZK_ENOMEM, "SectorProof: out of memory");
    }
    sp->inclusion_proofs = czk_vanilla_arena_alloc(sp->arena, n * sizeof *sp->inclusion_proofs);
    if (!sp->inclusion_proofs) {
        czk_post_sector_proof_free(sp);
        return czk_err_set(err, CZK_ENOMEM, "SectorProof: out of memory");
    }
    sp->ninclusion_proofs = n;
    *out = sp;
    return CZK_OK;
}

czk_status czk_post_sector_prove(czk_post_sector_proof **out, const czk_post_params *p,
                                 bool winning, const czk_merkle_tree *tree_r_last,
                                 const uint8_t *leaves, const uint8_t comm_c[32],
                                 const uint8_t randomness[32], uint64_t sector_id,
                                 uint64_t sector_index, czk_err *err)
{
    *out = NULL;
    if (czk_merkle_leaf_count(tree_r_last) != p->nodes)
        return czk_err_set(err, CZK_EINVAL, "PoSt: tree_r_last has %llu leaves, the proof wants %llu",
                           (unsigned long long)czk_merkle_leaf_count(tree_r_last),
                           (unsigned long long)p->nodes);
    unsigned count = czk_post_vanilla_challenge_count(p, winning);
    uint64_t *ch = czk_malloc(count * sizeof *ch);
    czk_merkle_path *path = czk_malloc(sizeof *path);
    czk_post_sector_proof *sp = NULL;
    czk_status s = ch && path ? new_sector_proof(&sp, count, err)
                              : czk_err_set(err, CZK_ENOMEM, "PoSt: out of memory");
    if (s == CZK_OK) {
        czk_post_sector_challenges(ch, p, winning, randomness, sector_id, sector_index);
        czk_merkle_root(tree_r_last, sp->comm_r_last);
        memcpy(sp->comm_c, comm_c, 32);
    }
    for (unsigned n = 0; s == CZK_OK && n < count; n++) {
        s = czk_merkle_prove(tree_r_last, ch[n], leaves, path, err);
        if (s == CZK_OK)
            s = czk_vanilla_from_path(&sp->inclusion_proofs[n], sp->arena, path, sp->comm_r_last,
                                      p->tree.sub_arity, p->tree.top_arity, err);
    }
    czk_free(ch);
    czk_free(path);
    if (s != CZK_OK) {
        czk_post_sector_proof_free(sp);
        return s;
    }
    *out = sp;
    return CZK_OK;
}

czk_status czk_post_sector_prove_sealed(czk_post_sector_proof **out, const czk_post_params *p,
                                        bool winning, const czk_sector *s,
                                        const uint8_t randomness[32], uint64_t sector_id,
                                        uint64_t sector_index, czk_err *err)
{
    czk_sector_seal_comms c;
    czk_sector_comms(s, &c);
    return czk_post_sector_prove(out, p, winning, czk_sector_tree_r_last(s), czk_sector_replica(s),
                                 c.comm_c, randomness, sector_id, sector_index, err);
}

/* The MerkleProof kind and level count a tree_r_last of p's shape gives. */
static czk_status check_shape(const czk_vanilla_merkle_proof *mp, const czk_por_shape *t,
                              const char *what, czk_err *err)
{
    czk_vanilla_proof_kind want = t->top_arity > 0   ? CZK_VANILLA_TOP
                                  : t->sub_arity > 0 ? CZK_VANILLA_SUB
                                                     : CZK_VANILLA_SINGLE;
    if (mp->kind != want)
        return czk_err_set(err, CZK_EINVAL, "%s: a %s proof, the tree shape %u-%u-%u wants %s",
                           what,
                           mp->kind == CZK_VANILLA_SINGLE ? "Single"
                           : mp->kind == CZK_VANILLA_SUB  ? "Sub"
                                                          : "Top",
                           t->base_arity, t->sub_arity, t->top_arity,
                           want == CZK_VANILLA_SINGLE ? "Single"
                           : want == CZK_VANILLA_SUB  ? "Sub"
                                                      : "Top");
    const czk_vanilla_path *parts[3] = {&mp->base, &mp->sub, &mp->top};
    unsigned lens[3] = {t->base_levels, t->sub_arity > 0, t->top_arity > 0};
    unsigned arity[3] = {t->base_arity, t->sub_arity, t->top_arity};
    for (unsigned p = 0; p < 3; p++) {
        if (lens[p] == 0) continue;
        if (parts[p]->len != lens[p])
            return czk_err_set(err, CZK_EINVAL, "%s: path part %u has %zu levels, the shape %u", what,
                               p, parts[p]->len, lens[p]);
        for (size_t i = 0; i < parts[p]->len; i++)
            if (parts[p]->elems[i].nhashes + 1 != arity[p])
                return czk_err_set(err, CZK_EINVAL, "%s: path part %u level %zu has %zu hashes, "
                                   "arity %u wants %u", what, p, i, parts[p]->elems[i].nhashes,
                                   arity[p], arity[p] - 1);
    }
    return CZK_OK;
}

czk_status czk__vanilla_check_shape(const czk_vanilla_merkle_proof *mp, const czk_por_shape *t,
                                    const char *what, czk_err *err)
{
    return check_shape(mp, t, what, err);
}

czk_status czk_post_sector_verify(const czk_post_sector_proof *sp, const czk_post_params *p,
                                  bool winning, const uint8_t randomness[32], uint64_t sector_id,
                                  uint64_t sector_index, const uint8_t comm_r[32], czk_err *err)
{
    uint8_t calc[32];
    czk_err e2;
    czk_status s = czk_comm_r(calc, sp->comm_c, sp->comm_r_last, &e2);
    if (s != CZK_OK) return czk_err_set(err, s, "SectorProof %llu: %s", (unsigned long long)sector_id, e2.msg);
    if (memcmp(calc, comm_r, 32) != 0)
        return czk_err_set(err, CZK_EVERIFY,
                           "SectorProof %llu: Poseidon2(comm_c, comm_r_last) is not comm_r",
                           (unsigned long long)sector_id);
    unsigned count = czk_post_vanilla_challenge_count(p, winning);
    if (sp->ninclusion_proofs != count)
        return czk_err_set(err, CZK_EINVAL, "SectorProof %llu: %zu inclusion proofs, expected %u",
                           (unsigned long long)sector_id, sp->ninclusion_proofs, count);
    uint64_t *ch = czk_malloc(count * sizeof *ch);
    czk_merkle_path *path = czk_malloc(sizeof *path);
    if (!ch || !path) {
        czk_free(ch);
        czk_free(path);
        return czk_err_set(err, CZK_ENOMEM, "SectorProof: out of memory");
    }
    czk_post_sector_challenges(ch, p, winning, randomness, sector_id, sector_index);
    char what[96];
    for (unsigned n = 0; s == CZK_OK && n < count; n++) {
        const czk_vanilla_merkle_proof *mp = &sp->inclusion_proofs[n];
        snprintf(what, sizeof what, "SectorProof %llu inclusion_proofs[%u]",
                 (unsigned long long)sector_id, n);
        s = check_shape(mp, &p->tree, what, err);
        uint64_t leaf = 0;
        if (s == CZK_OK && (s = czk_vanilla_to_path(mp, path, &leaf, &e2)) != CZK_OK)
            s = czk_err_set(err, s, "%s: %s", what, e2.msg);
        if (s == CZK_OK && leaf != ch[n])
            s = czk_err_set(err, CZK_EVERIFY, "%s: proves leaf %llu, the challenge is %llu", what,
                            (unsigned long long)leaf, (unsigned long long)ch[n]);
        if (s == CZK_OK)
            s = czk_vanilla_merkle_verify(mp, CZK_MERKLE_POSEIDON, sp->comm_r_last, what, err);
    }
    czk_free(ch);
    czk_free(path);
    return s;
}

/* ---------------------------------------------------------------------------------------
 * FallbackPoStSectorProof bincode
 * ------------------------------------------------------------------------------------- */

static void put_u64(uint8_t *o, uint64_t v)
{
    for (int i = 0; i < 8; i++) o[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

/* sector_id (u64) ‖ comm_r ‖ sectors length (u64): the wrapper's prefix. */
#define FALLBACK_PREFIX 48

czk_status czk_post_fallback_proof_write(uint64_t sector_id, const uint8_t comm_r[32],
                                         const czk_post_sector_proof *p, uint8_t **out,
                                         size_t *len, czk_err *err)
{
    uint8_t *inner = NULL;
    size_t ilen = 0;
    *out = NULL;
    *len = 0;
    czk_status s = czk_post_sector_proof_write(p, &inner, &ilen, err);
    if (s != CZK_OK) return s;
    uint8_t *buf = czk_malloc(FALLBACK_PREFIX + ilen);
    if (!buf) {
        czk_free(inner);
        return czk_err_set(err, CZK_ENOMEM, "FallbackPoStSectorProof: out of memory");
    }
    put_u64(buf, sector_id);
    memcpy(buf + 8, comm_r, 32);
    put_u64(buf + 40, 1);
    memcpy(buf + FALLBACK_PREFIX, inner, ilen);
    czk_free(inner);
    *out = buf;
    *len = FALLBACK_PREFIX + ilen;
    return CZK_OK;
}

czk_status czk_post_fallback_proof_parse(uint64_t *sector_id, uint8_t comm_r[32],
                                         czk_post_sector_proof **out, const uint8_t *buf,
                                         size_t len, czk_err *err)
{
    *out = NULL;
    if (len < FALLBACK_PREFIX)
        return czk_err_set(err, CZK_ETRUNCATED,
                           "FallbackPoStSectorProof bincode: %zu bytes, the header alone is %d", len,
                           FALLBACK_PREFIX);
    uint64_t n = get_u64(buf + 40);
    if (n != 1)
        return czk_err_set(err, CZK_EFORMAT,
                           "FallbackPoStSectorProof bincode: vanilla_proof.sectors has %llu "
                           "entries, expected 1",
                           (unsigned long long)n);
    czk_err e2;
    czk_status s = czk_post_sector_proof_parse(out, buf + FALLBACK_PREFIX, len - FALLBACK_PREFIX, &e2);
    if (s != CZK_OK)
        return czk_err_set(err, s, "FallbackPoStSectorProof: vanilla_proof.sectors[0]: %s (offsets "
                           "from byte %d)", e2.msg, FALLBACK_PREFIX);
    *sector_id = get_u64(buf);
    memcpy(comm_r, buf + 8, 32);
    return CZK_OK;
}
