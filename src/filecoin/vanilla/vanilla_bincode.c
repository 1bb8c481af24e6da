/*
 * bincode 1.3 "legacy" encoding (bincode::serialize: little-endian, fixed-width
 * integers, u64 sequence lengths, u32 enum tags, [u8; 32] as 32 raw bytes) of the
 * SnapDeals PartitionProof and the PoSt SectorProof (docs/formats.md §8.3).
 */
#include "czk/vanilla.h"
#include "czk/alloc.h"
#include "czk/snap_vanilla.h"
#include "czk/post_vanilla.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------
 * Reading
 * ------------------------------------------------------------------------------------- */

typedef struct rd {
    const uint8_t *p;
    size_t len, off;
    czk_vanilla_arena *arena;
    czk_err *err;
    const char *what; /* "PartitionProof" or "SectorProof" */
} rd;

static czk_status r_truncated(rd *r, const char *field, size_t need)
{
    return czk_err_set(r->err, CZK_ETRUNCATED,
                       "%s bincode: %s: needs %zu bytes at offset %zu, only %zu left", r->what,
                       field, need, r->off, r->len - r->off);
}

static czk_status r_u64(rd *r, const char *field, uint64_t *v)
{
    if (r->len - r->off < 8) return r_truncated(r, field, 8);
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = x << 8 | r->p[r->off + (size_t)i];
    r->off += 8;
    *v = x;
    return CZK_OK;
}

static czk_status r_u32(rd *r, const char *field, uint32_t *v)
{
    if (r->len - r->off < 4) return r_truncated(r, field, 4);
    const uint8_t *b = r->p + r->off;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    r->off += 4;
    return CZK_OK;
}

static czk_status r_bytes32(rd *r, const char *field, uint8_t out[32])
{
    if (r->len - r->off < 32) return r_truncated(r, field, 32);
    memcpy(out, r->p + r->off, 32);
    r->off += 32;
    return CZK_OK;
}

/* A sequence length, refused when the remaining input cannot hold `min_elem` bytes per
 * element: that bounds every allocation by the input size, so a garbage length is an
 * error and never a huge allocation. */
static czk_status r_len(rd *r, const char *field, size_t min_elem, size_t *n)
{
    uint64_t v = 0;
    czk_status s = r_u64(r, field, &v);
    if (s) return s;
    if (v > (r->len - r->off) / min_elem)
        return czk_err_set(r->err, CZK_EFORMAT,
                           "%s bincode: %s: length %llu at offset %zu exceeds the %zu bytes left",
                           r->what, field, (unsigned long long)v, r->off - 8, r->len - r->off);
    *n = (size_t)v;
    return CZK_OK;
}

static void *r_alloc(rd *r, size_t n, czk_status *s)
{
    void *p = czk_vanilla_arena_alloc(r->arena, n);
    if (!p) *s = czk_err_set(r->err, CZK_ENOMEM, "%s bincode: out of memory", r->what);
    return p;
}

static czk_status r_path(rd *r, const char *field, czk_vanilla_path *p)
{
    /* An empty level is 16 bytes (hash count and index). */
    czk_status s = r_len(r, field, 16, &p->len);
    if (s) return s;
    p->elems = r_alloc(r, p->len * sizeof *p->elems, &s);
    if (s) return s;
    for (size_t i = 0; i < p->len; i++) {
        czk_vanilla_path_elem *e = &p->elems[i];
        if ((s = r_len(r, field, 32, &e->nhashes))) return s;
        e->hashes = r_alloc(r, e->nhashes * 32, &s);
        if (s) return s;
        if (r->len - r->off < e->nhashes * 32) return r_truncated(r, field, e->nhashes * 32);
        memcpy(e->hashes, r->p + r->off, e->nhashes * 32);
        r->off += e->nhashes * 32;
        if ((s = r_u64(r, field, &e->index))) return s;
    }
    return CZK_OK;
}

static czk_status r_merkle(rd *r, const char *field, czk_vanilla_merkle_proof *mp)
{
    uint32_t tag = 0;
    czk_status s = r_u32(r, field, &tag);
    if (s) return s;
    switch (tag) {
    case CZK_VANILLA_SINGLE:
        mp->kind = CZK_VANILLA_SINGLE;
        if ((s = r_bytes32(r, field, mp->root)) || (s = r_bytes32(r, field, mp->leaf))) return s;
        return r_path(r, field, &mp->base);
    case CZK_VANILLA_SUB:
    case CZK_VANILLA_TOP:
        if ((s = r_path(r, field, &mp->base)) || (s = r_path(r, field, &mp->sub))) return s;
        if (tag == CZK_VANILLA_TOP && (s = r_path(r, field, &mp->top))) return s;
        if ((s = r_bytes32(r, field, mp->root)) || (s = r_bytes32(r, field, mp->leaf))) return s;
        mp->kind = (czk_vanilla_proof_kind)tag;
        return CZK_OK;
    default:
        return czk_err_set(r->err, CZK_EFORMAT,
                           "%s bincode: %s: MerkleProof tag %u at offset %zu is not 0 (Single), "
                           "1 (Sub) or 2 (Top)",
                           r->what, field, tag, r->off - 4);
    }
}

static czk_status r_end(rd *r)
{
    if (r->off != r->len)
        return czk_err_set(r->err, CZK_EFORMAT, "%s bincode: %zu trailing bytes after offset %zu",
                           r->what, r->len - r->off, r->off);
    return CZK_OK;
}

void czk_snap_partition_proof_free(czk_snap_partition_proof *p)
{
    if (!p) return;
    czk_vanilla_arena_destroy(p->arena);
    czk_free(p);
}

void czk_post_sector_proof_free(czk_post_sector_proof *p)
{
    if (!p) return;
    czk_vanilla_arena_destroy(p->arena);
    czk_free(p);
}

czk_status czk_snap_partition_proof_parse(czk_snap_partition_proof **out, const uint8_t *buf,
                                          size_t len, czk_err *err)
{
    *out = NULL;
    czk_snap_partition_proof *p = czk_calloc(1, sizeof *p);
    if (!p || !(p->arena = czk_vanilla_arena_create())) {
        czk_free(p);
        return czk_err_set(err, CZK_ENOMEM, "PartitionProof bincode: out of memory");
    }
    rd r = {.p = buf, .len = len, .arena = p->arena, .err = err, .what = "PartitionProof"};
    czk_status s = r_bytes32(&r, "comm_c", p->comm_c);
    if (!s) s = r_len(&r, "apex_leafs", 32, &p->napex_leafs);
    if (!s) p->apex_leafs = r_alloc(&r, p->napex_leafs * 32, &s);
    for (size_t i = 0; i < p->napex_leafs && !s; i++) s = r_bytes32(&r, "apex_leafs", p->apex_leafs[i]);
    /* The smallest ChallengeProof is three Single proofs with empty paths: 3·76 bytes. */
    if (!s) s = r_len(&r, "challenge_proofs", 3 * 76, &p->nchallenge_proofs);
    if (!s) p->challenge_proofs = r_alloc(&r, p->nchallenge_proofs * sizeof *p->challenge_proofs, &s);
    char field[64];
    for (size_t i = 0; i < p->nchallenge_proofs && !s; i++) {
        czk_snap_challenge_proof *c = &p->challenge_proofs[i];
        snprintf(field, sizeof field, "challenge_proofs[%zu].proof_r_old", i);
        s = r_merkle(&r, field, &c->proof_r_old);
        snprintf(field, sizeof field, "challenge_proofs[%zu].proof_d_new", i);
        if (!s) s = r_merkle(&r, field, &c->proof_d_new);
        snprintf(field, sizeof field, "challenge_proofs[%zu].proof_r_new", i);
        if (!s) s = r_merkle(&r, field, &c->proof_r_new);
    }
    if (!s) s = r_end(&r);
    if (s) {
        czk_snap_partition_proof_free(p);
        return s;
    }
    *out = p;
    return CZK_OK;
}

czk_status czk_post_sector_proof_parse(czk_post_sector_proof **out, const uint8_t *buf,
                                       size_t len, czk_err *err)
{
    *out = NULL;
    czk_post_sector_proof *p = czk_calloc(1, sizeof *p);
    if (!p || !(p->arena = czk_vanilla_arena_create())) {
        czk_free(p);
        return czk_err_set(err, CZK_ENOMEM, "SectorProof bincode: out of memory");
    }
    rd r = {.p = buf, .len = len, .arena = p->arena, .err = err, .what = "SectorProof"};
    czk_status s = r_len(&r, "inclusion_proofs", 76, &p->ninclusion_proofs);
    if (!s) p->inclusion_proofs = r_alloc(&r, p->ninclusion_proofs * sizeof *p->inclusion_proofs, &s);
    char field[64];
    for (size_t i = 0; i < p->ninclusion_proofs && !s; i++) {
        snprintf(field, sizeof field, "inclusion_proofs[%zu]", i);
        s = r_merkle(&r, field, &p->inclusion_proofs[i]);
    }
    if (!s) s = r_bytes32(&r, "comm_c", p->comm_c);
    if (!s) s = r_bytes32(&r, "comm_r_last", p->comm_r_last);
    if (!s) s = r_end(&r);
    if (s) {
        czk_post_sector_proof_free(p);
        return s;
    }
    *out = p;
    return CZK_OK;
}

/* ---------------------------------------------------------------------------------------
 * Writing: sizes first, then one exact allocation.
 * ------------------------------------------------------------------------------------- */

static size_t path_size(const czk_vanilla_path *p)
{
    size_t n = 8;
    for (size_t i = 0; i < p->len; i++) n += 16 + 32 * p->elems[i].nhashes;
    return n;
}

static size_t merkle_size(const czk_vanilla_merkle_proof *mp)
{
    size_t n = 4 + 64 + path_size(&mp->base);
    if (mp->kind != CZK_VANILLA_SINGLE) n += path_size(&mp->sub);
    if (mp->kind == CZK_VANILLA_TOP) n += path_size(&mp->top);
    return n;
}

static uint8_t *w_u64(uint8_t *o, uint64_t v)
{
    for (int i = 0; i < 8; i++) *o++ = (uint8_t)(v >> (8 * i));
    return o;
}

static uint8_t *w_bytes(uint8_t *o, const void *b, size_t n)
{
    memcpy(o, b, n);
    return o + n;
}

static uint8_t *w_path(uint8_t *o, const czk_vanilla_path *p)
{
    o = w_u64(o, p->len);
    for (size_t i = 0; i < p->len; i++) {
        o = w_u64(o, p->elems[i].nhashes);
        o = w_bytes(o, p->elems[i].hashes, 32 * p->elems[i].nhashes);
        o = w_u64(o, p->elems[i].index);
    }
    return o;
}

static uint8_t *w_merkle(uint8_t *o, const czk_vanilla_merkle_proof *mp)
{
    uint32_t tag = (uint32_t)mp->kind;
    for (int i = 0; i < 4; i++) *o++ = (uint8_t)(tag >> (8 * i));
    if (mp->kind == CZK_VANILLA_SINGLE) {
        o = w_bytes(o, mp->root, 32);
        o = w_bytes(o, mp->leaf, 32);
        return w_path(o, &mp->base);
    }
    o = w_path(o, &mp->base);
    o = w_path(o, &mp->sub);
    if (mp->kind == CZK_VANILLA_TOP) o = w_path(o, &mp->top);
    o = w_bytes(o, mp->root, 32);
    return w_bytes(o, mp->leaf, 32);
}

static bool kinds_valid(const czk_vanilla_merkle_proof *mp)
{
    return mp->kind == CZK_VANILLA_SINGLE || mp->kind == CZK_VANILLA_SUB ||
           mp->kind == CZK_VANILLA_TOP;
}

czk_status czk_snap_partition_proof_write(const czk_snap_partition_proof *p, uint8_t **out,
                                          size_t *len, czk_err *err)
{
    *out = NULL;
    *len = 0;
    size_t n = 32 + 8 + 32 * p->napex_leafs + 8;
    for (size_t i = 0; i < p->nchallenge_proofs; i++) {
        const czk_snap_challenge_proof *c = &p->challenge_proofs[i];
        if (!kinds_valid(&c->proof_r_old) || !kinds_valid(&c->proof_d_new) ||
            !kinds_valid(&c->proof_r_new))
            return czk_err_set(err, CZK_EINVAL, "PartitionProof: challenge_proofs[%zu]: bad kind", i);
        n += merkle_size(&c->proof_r_old) + merkle_size(&c->proof_d_new) +
             merkle_size(&c->proof_r_new);
    }
    uint8_t *buf = czk_malloc(n), *o = buf;
    if (!buf) return czk_err_set(err, CZK_ENOMEM, "PartitionProof: out of memory (%zu bytes)", n);
    o = w_bytes(o, p->comm_c, 32);
    o = w_u64(o, p->napex_leafs);
    o = w_bytes(o, p->apex_leafs, 32 * p->napex_leafs);
    o = w_u64(o, p->nchallenge_proofs);
    for (size_t i = 0; i < p->nchallenge_proofs; i++) {
        o = w_merkle(o, &p->challenge_proofs[i].proof_r_old);
        o = w_merkle(o, &p->challenge_proofs[i].proof_d_new);
        o = w_merkle(o, &p->challenge_proofs[i].proof_r_new);
    }
    *out = buf;
    *len = (size_t)(o - buf);
    return CZK_OK;
}

czk_status czk_post_sector_proof_write(const czk_post_sector_proof *p, uint8_t **out, size_t *len,
                                       czk_err *err)
{
    *out = NULL;
    *len = 0;
    size_t n = 8 + 64;
    for (size_t i = 0; i < p->ninclusion_proofs; i++) {
        if (!kinds_valid(&p->inclusion_proofs[i]))
            return czk_err_set(err, CZK_EINVAL, "SectorProof: inclusion_proofs[%zu]: bad kind", i);
        n += merkle_size(&p->inclusion_proofs[i]);
    }
    uint8_t *buf = czk_malloc(n), *o = buf;
    if (!buf) return czk_err_set(err, CZK_ENOMEM, "SectorProof: out of memory (%zu bytes)", n);
    o = w_u64(o, p->ninclusion_proofs);
    for (size_t i = 0; i < p->ninclusion_proofs; i++) o = w_merkle(o, &p->inclusion_proofs[i]);
    o = w_bytes(o, p->comm_c, 32);
    o = w_bytes(o, p->comm_r_last, 32);
    *out = buf;
    *len = (size_t)(o - buf);
    return CZK_OK;
}
