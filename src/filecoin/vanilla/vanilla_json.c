/*
 * C1 output (SealCommitPhase1Output) as serde_json reads and writes it
 * (docs/formats.md §8.1), plus the arena that owns every parsed vanilla object.
 *
 * Parsing goes through jansson; writing is done by hand because serde_json::to_vec's
 * exact bytes (struct field order, no whitespace, integers only) are simpler to produce
 * directly than to coax out of a generic serializer.
 */
#include "czk/vanilla.h"
#include "czk/alloc.h"
#include "czk/porep_vanilla.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------
 * Arena
 * ------------------------------------------------------------------------------------- */

struct czk_vanilla_arena {
    struct arena_chunk *head;
};

struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

#define ARENA_CHUNK (1u << 20)

czk_vanilla_arena *czk_vanilla_arena_create(void)
{
    return czk_calloc(1, sizeof(czk_vanilla_arena));
}

void czk_vanilla_arena_destroy(czk_vanilla_arena *a)
{
    if (!a) return;
    for (struct arena_chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        czk_free(c);
    }
    czk_free(a);
}

void *czk_vanilla_arena_alloc(czk_vanilla_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n == 0) n = 16;
    struct arena_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        /* Large requests get a chunk of their own so small ones keep filling the current. */
        size_t cap = n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK;
        if (cap > SIZE_MAX - sizeof *c) return NULL;
        struct arena_chunk *nc = czk_malloc(sizeof *nc + cap);
        if (!nc) return NULL;
        nc->used = 0;
        nc->cap = cap;
        if (c && cap != ARENA_CHUNK) {
            nc->next = c->next;
            c->next = nc;
            c = nc;
        } else {
            nc->next = c;
            a->head = c = nc;
        }
    }
    void *p = c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

void czk_porep_c1_output_free(czk_porep_c1_output *c1)
{
    if (!c1) return;
    czk_vanilla_arena_destroy(c1->arena);
    czk_free(c1);
}

static const char *const vanilla_keys[] = {
    "StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1",
    "StackedDrg32GiBV1", "StackedDrg64GiBV1",
};

const char *czk_vanilla_seal_key(czk_seal_proof proof)
{
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    if (!info) return NULL;
    switch (info->sector_size) {
    case 2048: return vanilla_keys[0];
    case 8u << 20: return vanilla_keys[1];
    case 512u << 20: return vanilla_keys[2];
    case 32ull << 30: return vanilla_keys[3];
    case 64ull << 30: return vanilla_keys[4];
    default: return NULL;
    }
}

/* ---------------------------------------------------------------------------------------
 * Parsing
 * ------------------------------------------------------------------------------------- */

/* The path of the value being parsed, kept as a stack of keys and indices and only
 * formatted when an error is reported, so that parsing a 50 MB C1 formats nothing. */
#define PATH_MAX_DEPTH 32

typedef struct pctx {
    czk_vanilla_arena *arena;
    czk_err *err;
    int depth;
    const char *key[PATH_MAX_DEPTH]; /* NULL: an index */
    size_t idx[PATH_MAX_DEPTH];
} pctx;

static void push_key(pctx *c, const char *k)
{
    if (c->depth < PATH_MAX_DEPTH) c->key[c->depth] = k;
    c->depth++;
}

static void push_idx(pctx *c, size_t i)
{
    if (c->depth < PATH_MAX_DEPTH) {
        c->key[c->depth] = NULL;
        c->idx[c->depth] = i;
    }
    c->depth++;
}

static void pop(pctx *c) { c->depth--; }

static void format_path(const pctx *c, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    int d = c->depth < PATH_MAX_DEPTH ? c->depth : PATH_MAX_DEPTH;
    for (int i = 0; i < d && n < cap; i++) {
        int w = c->key[i] ? snprintf(buf + n, cap - n, "%s%s", n ? "." : "", c->key[i])
                          : snprintf(buf + n, cap - n, "[%zu]", c->idx[i]);
        if (w < 0) break;
        n += (size_t)w;
    }
    if (n == 0) snprintf(buf, cap, "(top level)");
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static czk_status perr(pctx *c, const char *fmt, ...)
{
    char path[256], msg[256];
    format_path(c, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return czk_err_set(c->err, CZK_EFORMAT, "C1 JSON: %s: %s", path, msg);
}

static czk_status pnomem(pctx *c)
{
    return czk_err_set(c->err, CZK_ENOMEM, "C1 JSON: out of memory");
}

static const char *json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a floating-point number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

/* An object with exactly the keys listed (serde would ignore extra keys; czk rejects
 * them, since a real C1 never has any and an unknown key is most likely a typo). */
static czk_status expect_object(pctx *c, const json_t *v, const char *const *keys, size_t nkeys)
{
    if (!json_is_object(v)) return perr(c, "expected an object, found %s", json_type_name(v));
    const char *k;
    json_t *val;
    json_object_foreach((json_t *)v, k, val)
    {
        size_t i;
        for (i = 0; i < nkeys; i++)
            if (strcmp(k, keys[i]) == 0) break;
        if (i == nkeys) return perr(c, "unknown key \"%s\"", k);
    }
    for (size_t i = 0; i < nkeys; i++)
        if (!json_object_get(v, keys[i])) return perr(c, "missing key \"%s\"", keys[i]);
    return CZK_OK;
}

static czk_status get_uint(pctx *c, const json_t *v, uint64_t max, uint64_t *out)
{
    if (!json_is_integer(v))
        return perr(c, "expected an unsigned integer, found %s", json_type_name(v));
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x > max)
        return perr(c, "%lld is out of range 0..%" PRIu64, (long long)x, max);
    *out = (uint64_t)x;
    return CZK_OK;
}

static czk_status get_bytes32(pctx *c, const json_t *v, uint8_t out[32])
{
    if (!json_is_array(v)) return perr(c, "expected an array of 32 bytes, found %s",
                                       json_type_name(v));
    size_t n = json_array_size(v);
    if (n != 32) return perr(c, "expected an array of 32 bytes, found %zu elements", n);
    for (size_t i = 0; i < 32; i++) {
        const json_t *e = json_array_get(v, i);
        if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) > 255) {
            push_idx(c, i);
            czk_status s = json_is_integer(e)
                               ? perr(c, "byte value %lld is out of range 0..255",
                                      (long long)json_integer_value(e))
                               : perr(c, "expected a byte, found %s", json_type_name(e));
            pop(c);
            return s;
        }
        out[i] = (uint8_t)json_integer_value(e);
    }
    return CZK_OK;
}

static czk_status get_field_bytes32(pctx *c, const json_t *obj, const char *key, uint8_t out[32])
{
    push_key(c, key);
    czk_status s = get_bytes32(c, json_object_get(obj, key), out);
    pop(c);
    return s;
}

static czk_status get_field_uint(pctx *c, const json_t *obj, const char *key, uint64_t max,
                                 uint64_t *out)
{
    push_key(c, key);
    czk_status s = get_uint(c, json_object_get(obj, key), max, out);
    pop(c);
    return s;
}

/* A JSON array of Domain values into an arena array. */
static czk_status get_dom_vec(pctx *c, const json_t *v, uint8_t (**out)[32], size_t *n)
{
    if (!json_is_array(v)) return perr(c, "expected an array, found %s", json_type_name(v));
    size_t len = json_array_size(v);
    uint8_t(*a)[32] = czk_vanilla_arena_alloc(c->arena, len * 32);
    if (!a) return pnomem(c);
    for (size_t i = 0; i < len; i++) {
        push_idx(c, i);
        czk_status s = get_bytes32(c, json_array_get(v, i), a[i]);
        pop(c);
        if (s) return s;
    }
    *out = a;
    *n = len;
    return CZK_OK;
}

static czk_status get_field_dom_vec(pctx *c, const json_t *obj, const char *key,
                                    uint8_t (**out)[32], size_t *n)
{
    push_key(c, key);
    czk_status s = get_dom_vec(c, json_object_get(obj, key), out, n);
    pop(c);
    return s;
}

static czk_status parse_path(pctx *c, const json_t *v, czk_vanilla_path *p)
{
    static const char *const pk[] = {"path"};
    static const char *const ek[] = {"hashes", "index"};
    czk_status s = expect_object(c, v, pk, 1);
    if (s) return s;
    push_key(c, "path");
    const json_t *arr = json_object_get(v, "path");
    if (!json_is_array(arr)) {
        s = perr(c, "expected an array, found %s", json_type_name(arr));
        pop(c);
        return s;
    }
    p->len = json_array_size(arr);
    p->elems = czk_vanilla_arena_alloc(c->arena, p->len * sizeof *p->elems);
    if (!p->elems) {
        pop(c);
        return pnomem(c);
    }
    for (size_t i = 0; i < p->len && !s; i++) {
        const json_t *e = json_array_get(arr, i);
        push_idx(c, i);
        s = expect_object(c, e, ek, 2);
        if (!s) s = get_field_dom_vec(c, e, "hashes", &p->elems[i].hashes, &p->elems[i].nhashes);
        if (!s) s = get_field_uint(c, e, "index", UINT64_MAX, &p->elems[i].index);
        pop(c);
    }
    pop(c);
    return s;
}

static czk_status get_field_path(pctx *c, const json_t *obj, const char *key, czk_vanilla_path *p)
{
    push_key(c, key);
    czk_status s = parse_path(c, json_object_get(obj, key), p);
    pop(c);
    return s;
}

static czk_status parse_merkle(pctx *c, const json_t *v, czk_vanilla_merkle_proof *mp)
{
    static const char *const dk[] = {"data"};
    static const char *const single_k[] = {"root", "leaf", "path"};
    static const char *const sub_k[] = {"base_proof", "sub_proof", "root", "leaf"};
    static const char *const top_k[] = {"base_proof", "sub_proof", "top_proof", "root", "leaf"};
    czk_status s = expect_object(c, v, dk, 1);
    if (s) return s;
    const json_t *d = json_object_get(v, "data");
    push_key(c, "data");
    if (!json_is_object(d) || json_object_size(d) != 1) {
        s = json_is_object(d) ? perr(c, "expected one of \"Single\", \"Sub\", \"Top\" as the only key")
                              : perr(c, "expected an object, found %s", json_type_name(d));
        pop(c);
        return s;
    }
    const char *tag = json_object_iter_key(json_object_iter((json_t *)d));
    const json_t *body = json_object_get(d, tag);
    if (strcmp(tag, "Single") == 0) {
        mp->kind = CZK_VANILLA_SINGLE;
        push_key(c, "Single");
        s = expect_object(c, body, single_k, 3);
        if (!s) s = get_field_bytes32(c, body, "root", mp->root);
        if (!s) s = get_field_bytes32(c, body, "leaf", mp->leaf);
        if (!s) s = get_field_path(c, body, "path", &mp->base);
    } else if (strcmp(tag, "Sub") == 0) {
        mp->kind = CZK_VANILLA_SUB;
        push_key(c, "Sub");
        s = expect_object(c, body, sub_k, 4);
        if (!s) s = get_field_path(c, body, "base_proof", &mp->base);
        if (!s) s = get_field_path(c, body, "sub_proof", &mp->sub);
        if (!s) s = get_field_bytes32(c, body, "root", mp->root);
        if (!s) s = get_field_bytes32(c, body, "leaf", mp->leaf);
    } else if (strcmp(tag, "Top") == 0) {
        mp->kind = CZK_VANILLA_TOP;
        push_key(c, "Top");
        s = expect_object(c, body, top_k, 5);
        if (!s) s = get_field_path(c, body, "base_proof", &mp->base);
        if (!s) s = get_field_path(c, body, "sub_proof", &mp->sub);
        if (!s) s = get_field_path(c, body, "top_proof", &mp->top);
        if (!s) s = get_field_bytes32(c, body, "root", mp->root);
        if (!s) s = get_field_bytes32(c, body, "leaf", mp->leaf);
    } else {
        s = perr(c, "unknown variant \"%s\" (expected Single, Sub or Top)", tag);
        pop(c);
        return s;
    }
    pop(c);
    pop(c);
    return s;
}

static czk_status get_field_merkle(pctx *c, const json_t *obj, const char *key,
                                   czk_vanilla_merkle_proof *mp)
{
    push_key(c, key);
    czk_status s = parse_merkle(c, json_object_get(obj, key), mp);
    pop(c);
    return s;
}

static czk_status parse_column_proof(pctx *c, const json_t *v, czk_vanilla_column_proof *cp)
{
    static const char *const ck[] = {"column", "inclusion_proof"};
    static const char *const colk[] = {"index", "rows", "_h"};
    czk_status s = expect_object(c, v, ck, 2);
    if (s) return s;
    const json_t *col = json_object_get(v, "column");
    push_key(c, "column");
    s = expect_object(c, col, colk, 3);
    uint64_t idx = 0;
    if (!s) s = get_field_uint(c, col, "index", UINT32_MAX, &idx);
    cp->index = (uint32_t)idx;
    if (!s) s = get_field_dom_vec(c, col, "rows", &cp->rows, &cp->nrows);
    if (!s && !json_is_null(json_object_get(col, "_h"))) {
        push_key(c, "_h");
        s = perr(c, "expected null, found %s", json_type_name(json_object_get(col, "_h")));
        pop(c);
    }
    pop(c);
    if (!s) s = get_field_merkle(c, v, "inclusion_proof", &cp->inclusion_proof);
    return s;
}

static czk_status parse_column_vec(pctx *c, const json_t *obj, const char *key,
                                   czk_vanilla_column_proof **out, size_t *n)
{
    push_key(c, key);
    const json_t *arr = json_object_get(obj, key);
    czk_status s = CZK_OK;
    if (!json_is_array(arr)) {
        s = perr(c, "expected an array, found %s", json_type_name(arr));
    } else {
        *n = json_array_size(arr);
        *out = czk_vanilla_arena_alloc(c->arena, *n * sizeof **out);
        if (!*out) s = pnomem(c);
        for (size_t i = 0; i < *n && !s; i++) {
            push_idx(c, i);
            s = parse_column_proof(c, json_array_get(arr, i), &(*out)[i]);
            pop(c);
        }
    }
    pop(c);
    return s;
}

static czk_status parse_labeling(pctx *c, const json_t *v, czk_vanilla_labeling_proof *lp)
{
    static const char *const lk[] = {"parents", "layer_index", "node"};
    czk_status s = expect_object(c, v, lk, 3);
    uint64_t li = 0;
    if (!s) s = get_field_dom_vec(c, v, "parents", &lp->parents, &lp->nparents);
    if (!s) s = get_field_uint(c, v, "layer_index", UINT32_MAX, &li);
    if (!s) s = get_field_uint(c, v, "node", UINT64_MAX, &lp->node);
    lp->layer_index = (uint32_t)li;
    return s;
}

static czk_status parse_porep_proof(pctx *c, const json_t *v, czk_porep_vanilla_proof *p)
{
    static const char *const pk[] = {"comm_d_proofs", "comm_r_last_proof",
                                     "replica_column_proofs", "labeling_proofs",
                                     "encoding_proof"};
    static const char *const rk[] = {"c_x", "drg_parents", "exp_parents"};
    czk_status s = expect_object(c, v, pk, 5);
    if (!s) s = get_field_merkle(c, v, "comm_d_proofs", &p->comm_d_proofs);
    if (!s) s = get_field_merkle(c, v, "comm_r_last_proof", &p->comm_r_last_proof);
    if (s) return s;
    const json_t *r = json_object_get(v, "replica_column_proofs");
    push_key(c, "replica_column_proofs");
    s = expect_object(c, r, rk, 3);
    if (!s) {
        push_key(c, "c_x");
        s = parse_column_proof(c, json_object_get(r, "c_x"), &p->c_x);
        pop(c);
    }
    if (!s) s = parse_column_vec(c, r, "drg_parents", &p->drg_parents, &p->ndrg_parents);
    if (!s) s = parse_column_vec(c, r, "exp_parents", &p->exp_parents, &p->nexp_parents);
    pop(c);
    if (s) return s;
    const json_t *lab = json_object_get(v, "labeling_proofs");
    push_key(c, "labeling_proofs");
    if (!json_is_array(lab)) {
        s = perr(c, "expected an array, found %s", json_type_name(lab));
    } else {
        p->nlabeling_proofs = json_array_size(lab);
        p->labeling_proofs =
            czk_vanilla_arena_alloc(c->arena, p->nlabeling_proofs * sizeof *p->labeling_proofs);
        if (!p->labeling_proofs) s = pnomem(c);
        for (size_t i = 0; i < p->nlabeling_proofs && !s; i++) {
            push_idx(c, i);
            s = parse_labeling(c, json_array_get(lab, i), &p->labeling_proofs[i]);
            pop(c);
        }
    }
    pop(c);
    if (s) return s;
    push_key(c, "encoding_proof");
    s = parse_labeling(c, json_object_get(v, "encoding_proof"), &p->encoding_proof);
    pop(c);
    return s;
}

static char *arena_strdup(czk_vanilla_arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = czk_vanilla_arena_alloc(a, n);
    if (d) memcpy(d, s, n);
    return d;
}

static czk_status parse_c1(pctx *c, const json_t *root, czk_porep_c1_output *c1)
{
    static const char *const ck[] = {"registered_proof", "vanilla_proofs", "comm_r", "comm_d",
                                     "replica_id", "seed", "ticket"};
    czk_status s = expect_object(c, root, ck, 7);
    if (s) return s;
    const json_t *rp = json_object_get(root, "registered_proof");
    push_key(c, "registered_proof");
    if (!json_is_string(rp)) {
        s = perr(c, "expected a string, found %s", json_type_name(rp));
    } else {
        czk_err e2;
        if (czk_seal_proof_parse(json_string_value(rp), &c1->proof, &e2) != CZK_OK)
            s = perr(c, "unknown registered proof \"%s\"", json_string_value(rp));
        else if (!(c1->registered_proof = arena_strdup(c->arena, json_string_value(rp))))
            s = pnomem(c);
    }
    pop(c);
    if (s) return s;

    const json_t *vp = json_object_get(root, "vanilla_proofs");
    push_key(c, "vanilla_proofs");
    if (!json_is_object(vp) || json_object_size(vp) != 1) {
        s = json_is_object(vp) ? perr(c, "expected exactly one StackedDrg<size>V1 key")
                               : perr(c, "expected an object, found %s", json_type_name(vp));
        pop(c);
        return s;
    }
    const char *key = json_object_iter_key(json_object_iter((json_t *)vp));
    size_t ki;
    for (ki = 0; ki < sizeof vanilla_keys / sizeof vanilla_keys[0]; ki++)
        if (strcmp(key, vanilla_keys[ki]) == 0) break;
    if (ki == sizeof vanilla_keys / sizeof vanilla_keys[0]) {
        s = perr(c, "unknown variant \"%s\" (expected StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1)",
                 key);
        pop(c);
        return s;
    }
    c1->vanilla_key = vanilla_keys[ki];
    push_key(c, c1->vanilla_key);
    const json_t *parts = json_object_get(vp, key);
    if (!json_is_array(parts)) {
        s = perr(c, "expected an array of partitions, found %s", json_type_name(parts));
    } else {
        c1->npartitions = json_array_size(parts);
        c1->vanilla_proofs = czk_vanilla_arena_alloc(c->arena, c1->npartitions * sizeof(void *));
        c1->challenge_counts = czk_vanilla_arena_alloc(c->arena, c1->npartitions * sizeof(size_t));
        if (!c1->vanilla_proofs || !c1->challenge_counts) s = pnomem(c);
        for (size_t k = 0; k < c1->npartitions && !s; k++) {
            const json_t *part = json_array_get(parts, k);
            push_idx(c, k);
            if (!json_is_array(part)) {
                s = perr(c, "expected an array of challenge proofs, found %s",
                         json_type_name(part));
            } else {
                size_t n = json_array_size(part);
                c1->challenge_counts[k] = n;
                c1->vanilla_proofs[k] = czk_vanilla_arena_alloc(c->arena, n * sizeof **c1->vanilla_proofs);
                if (!c1->vanilla_proofs[k]) s = pnomem(c);
                for (size_t i = 0; i < n && !s; i++) {
                    push_idx(c, i);
                    s = parse_porep_proof(c, json_array_get(part, i), &c1->vanilla_proofs[k][i]);
                    pop(c);
                }
            }
            pop(c);
        }
    }
    pop(c);
    pop(c);
    if (!s) s = get_field_bytes32(c, root, "comm_r", c1->comm_r);
    if (!s) s = get_field_bytes32(c, root, "comm_d", c1->comm_d);
    if (!s) s = get_field_bytes32(c, root, "replica_id", c1->replica_id);
    if (!s) s = get_field_bytes32(c, root, "seed", c1->seed);
    if (!s) s = get_field_bytes32(c, root, "ticket", c1->ticket);
    return s;
}

czk_status czk_porep_c1_parse_json(czk_porep_c1_output **out, const void *json, size_t len,
                                   czk_err *err)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return czk_err_set(err, CZK_EFORMAT, "C1 JSON: line %d column %d: %s", je.line,
                           je.column, je.text);
    czk_porep_c1_output *c1 = czk_calloc(1, sizeof *c1);
    pctx c = {.err = err};
    czk_status s;
    if (!c1 || !(c1->arena = c.arena = czk_vanilla_arena_create())) {
        s = czk_err_set(err, CZK_ENOMEM, "C1 JSON: out of memory");
    } else {
        s = parse_c1(&c, root, c1);
    }
    json_decref(root);
    if (s) {
        czk_porep_c1_output_free(c1);
        return s;
    }
    *out = c1;
    return CZK_OK;
}

/* ---------------------------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------------------------- */

typedef struct wbuf {
    uint8_t *p;
    size_t len, cap;
    bool oom;
} wbuf;

static void w_reserve(wbuf *w, size_t n)
{
    if (w->oom || w->cap - w->len >= n) return;
    size_t cap = w->cap ? w->cap : 4096;
    while (cap - w->len < n) cap *= 2;
    uint8_t *np = czk_realloc(w->p, cap);
    if (!np) {
        w->oom = true;
        return;
    }
    w->p = np;
    w->cap = cap;
}

static void w_str(wbuf *w, const char *s)
{
    size_t n = strlen(s);
    w_reserve(w, n);
    if (w->oom) return;
    memcpy(w->p + w->len, s, n);
    w->len += n;
}

static void w_u64(wbuf *w, uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%" PRIu64, v);
    w_str(w, b);
}

/* A [u8; 32] as serde_json writes it: "[1,2,…]". */
static void w_bytes32(wbuf *w, const uint8_t b[32])
{
    w_reserve(w, 32 * 4 + 2);
    if (w->oom) return;
    char *o = (char *)w->p + w->len;
    *o++ = '[';
    for (int i = 0; i < 32; i++) {
        unsigned v = b[i];
        if (i) *o++ = ',';
        if (v >= 100) *o++ = (char)('0' + v / 100);
        if (v >= 10) *o++ = (char)('0' + v / 10 % 10);
        *o++ = (char)('0' + v % 10);
    }
    *o++ = ']';
    w->len = (size_t)(o - (char *)w->p);
}

static void w_dom_vec(wbuf *w, uint8_t (*v)[32], size_t n)
{
    w_str(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) w_str(w, ",");
        w_bytes32(w, v[i]);
    }
    w_str(w, "]");
}

static void w_path(wbuf *w, const czk_vanilla_path *p)
{
    w_str(w, "{\"path\":[");
    for (size_t i = 0; i < p->len; i++) {
        if (i) w_str(w, ",");
        w_str(w, "{\"hashes\":");
        w_dom_vec(w, p->elems[i].hashes, p->elems[i].nhashes);
        w_str(w, ",\"index\":");
        w_u64(w, p->elems[i].index);
        w_str(w, "}");
    }
    w_str(w, "]}");
}

static void w_merkle(wbuf *w, const czk_vanilla_merkle_proof *mp)
{
    switch (mp->kind) {
    case CZK_VANILLA_SINGLE:
        w_str(w, "{\"data\":{\"Single\":{\"root\":");
        w_bytes32(w, mp->root);
        w_str(w, ",\"leaf\":");
        w_bytes32(w, mp->leaf);
        w_str(w, ",\"path\":");
        w_path(w, &mp->base);
        break;
    case CZK_VANILLA_SUB:
    case CZK_VANILLA_TOP:
        w_str(w, mp->kind == CZK_VANILLA_SUB ? "{\"data\":{\"Sub\":{\"base_proof\":"
                                             : "{\"data\":{\"Top\":{\"base_proof\":");
        w_path(w, &mp->base);
        w_str(w, ",\"sub_proof\":");
        w_path(w, &mp->sub);
        if (mp->kind == CZK_VANILLA_TOP) {
            w_str(w, ",\"top_proof\":");
            w_path(w, &mp->top);
        }
        w_str(w, ",\"root\":");
        w_bytes32(w, mp->root);
        w_str(w, ",\"leaf\":");
        w_bytes32(w, mp->leaf);
        break;
    }
    w_str(w, "}}}");
}

static void w_column(wbuf *w, const czk_vanilla_column_proof *cp)
{
    w_str(w, "{\"column\":{\"index\":");
    w_u64(w, cp->index);
    w_str(w, ",\"rows\":");
    w_dom_vec(w, cp->rows, cp->nrows);
    w_str(w, ",\"_h\":null},\"inclusion_proof\":");
    w_merkle(w, &cp->inclusion_proof);
    w_str(w, "}");
}

static void w_columns(wbuf *w, const czk_vanilla_column_proof *v, size_t n)
{
    w_str(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) w_str(w, ",");
        w_column(w, &v[i]);
    }
    w_str(w, "]");
}

static void w_labeling(wbuf *w, const czk_vanilla_labeling_proof *lp)
{
    w_str(w, "{\"parents\":");
    w_dom_vec(w, lp->parents, lp->nparents);
    w_str(w, ",\"layer_index\":");
    w_u64(w, lp->layer_index);
    w_str(w, ",\"node\":");
    w_u64(w, lp->node);
    w_str(w, "}");
}

static void w_porep(wbuf *w, const czk_porep_vanilla_proof *p)
{
    w_str(w, "{\"comm_d_proofs\":");
    w_merkle(w, &p->comm_d_proofs);
    w_str(w, ",\"comm_r_last_proof\":");
    w_merkle(w, &p->comm_r_last_proof);
    w_str(w, ",\"replica_column_proofs\":{\"c_x\":");
    w_column(w, &p->c_x);
    w_str(w, ",\"drg_parents\":");
    w_columns(w, p->drg_parents, p->ndrg_parents);
    w_str(w, ",\"exp_parents\":");
    w_columns(w, p->exp_parents, p->nexp_parents);
    w_str(w, "},\"labeling_proofs\":[");
    for (size_t i = 0; i < p->nlabeling_proofs; i++) {
        if (i) w_str(w, ",");
        w_labeling(w, &p->labeling_proofs[i]);
    }
    w_str(w, "],\"encoding_proof\":");
    w_labeling(w, &p->encoding_proof);
    w_str(w, "}");
}

/* serde_json escapes '"', '\\' and control characters; a registered-proof name has none,
 * but the writer refuses them rather than emit something serde would write otherwise. */
static bool plain_string(const char *s)
{
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) return false;
    return true;
}

czk_status czk_porep_c1_write_json(const czk_porep_c1_output *c1, uint8_t **out, size_t *len,
                                   czk_err *err)
{
    *out = NULL;
    *len = 0;
    const char *rp = c1->registered_proof ? c1->registered_proof : czk_seal_proof_name(c1->proof);
    const char *vk = c1->vanilla_key ? c1->vanilla_key : czk_vanilla_seal_key(c1->proof);
    if (!rp || !vk || !plain_string(rp) || !plain_string(vk))
        return czk_err_set(err, CZK_EINVAL, "C1 JSON: no valid registered proof to write");
    wbuf w = {0};
    w_str(&w, "{\"registered_proof\":\"");
    w_str(&w, rp);
    w_str(&w, "\",\"vanilla_proofs\":{\"");
    w_str(&w, vk);
    w_str(&w, "\":[");
    for (size_t k = 0; k < c1->npartitions; k++) {
        if (k) w_str(&w, ",");
        w_str(&w, "[");
        for (size_t i = 0; i < c1->challenge_counts[k]; i++) {
            if (i) w_str(&w, ",");
            w_porep(&w, &c1->vanilla_proofs[k][i]);
        }
        w_str(&w, "]");
    }
    w_str(&w, "]},\"comm_r\":");
    w_bytes32(&w, c1->comm_r);
    w_str(&w, ",\"comm_d\":");
    w_bytes32(&w, c1->comm_d);
    w_str(&w, ",\"replica_id\":");
    w_bytes32(&w, c1->replica_id);
    w_str(&w, ",\"seed\":");
    w_bytes32(&w, c1->seed);
    w_str(&w, ",\"ticket\":");
    w_bytes32(&w, c1->ticket);
    w_str(&w, "}");
    if (w.oom) {
        czk_free(w.p);
        return czk_err_set(err, CZK_ENOMEM, "C1 JSON: out of memory writing %zu bytes", w.len);
    }
    *out = w.p;
    *len = w.len;
    return CZK_OK;
}
