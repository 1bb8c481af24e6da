/*
 * The SnapDeals vanilla side: the replica encoding, an updated sector's trees, its
 * partition proofs and their verification (rust-fil-proofs storage-proofs-update
 * vanilla.rs encode_into / decode_from / prove_inner / verify, docs/formats.md §6).
 */
#include <stdio.h>
#include <string.h>

#include "czk/alloc.h"
#include "czk/comm.h"
#include "czk/snap_vanilla.h"
#include "czk/vanilla.h"
#include "filecoin/vanilla/snap_post_internal.h"

/* ---------------------------------------------------------------------------------------
 * Encoding
 * ------------------------------------------------------------------------------------- */

static int h_index(const czk_snap_params *p, unsigned h)
{
    for (int i = 0; i < CZK_SNAP_HS; i++)
        if (p->hs[i] == h) return i;
    return -1;
}

/* The 2^h rho values (vanilla.rs rhos): rho depends on the node only through its h high
 * bits, so the sector needs 2^h ≤ 1024 Poseidon hashes, not one per node. With
 * `invert` the inverses, for decoding. */
static czk_status make_rhos(czk_fr **out, const czk_snap_params *p, unsigned h,
                            const uint8_t comm_d_new[32], const uint8_t comm_r_old[32],
                            bool invert, czk_err *err)
{
    *out = NULL;
    if (h_index(p, h) < 0) return czk_err_set(err, CZK_EINVAL, "snap: h = %u is not allowed", h);
    uint8_t phi[32];
    czk_status s = czk_snap_phi(phi, comm_d_new, comm_r_old, err);
    if (s != CZK_OK) return s;
    size_t n = (size_t)1 << h;
    czk_fr *r = czk_malloc(n * sizeof *r);
    if (!r) return czk_err_set(err, CZK_ENOMEM, "snap: out of memory");
    uint64_t shift = p->challenge_bit_len - h;
    for (size_t i = 0; i < n && s == CZK_OK; i++) {
        s = czk_snap_rho(&r[i], p, phi, (uint64_t)i << shift, h, err);
        if (s == CZK_OK && invert) czk_fr_inv(&r[i], &r[i]);
    }
    if (s != CZK_OK) {
        czk_free(r);
        return s;
    }
    *out = r;
    return CZK_OK;
}

typedef struct code_job {
    uint8_t *out;
    const uint8_t *a, *b; /* encode: key, data; decode: replica, key */
    const czk_fr *rhos;
    unsigned shift;
    uint64_t n, chunk;
    bool decode;
    uint64_t bad; /* first node not below r, UINT64_MAX when none */
} code_job;

static void code_chunk(void *ctx, size_t task, unsigned worker)
{
    (void)worker;
    code_job *j = ctx;
    uint64_t lo = task * j->chunk, hi = lo + j->chunk < j->n ? lo + j->chunk : j->n;
    for (uint64_t i = lo; i < hi; i++) {
        czk_fr a, b;
        if (!czk_fr_from_bytes_le(&a, j->a + 32 * i) || !czk_fr_from_bytes_le(&b, j->b + 32 * i)) {
            /* Keep the lowest bad node across workers (a CAS loop: C11 has no atomic min). */
            uint64_t cur = __atomic_load_n(&j->bad, __ATOMIC_RELAXED);
            while (i < cur && !__atomic_compare_exchange_n(&j->bad, &cur, i, false,
                                                           __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            }
            continue;
        }
        const czk_fr *rho = &j->rhos[i >> j->shift];
        if (j->decode) {
            czk_fr_sub(&a, &a, &b); /* (replica − key)·rho⁻¹ */
            czk_fr_mul(&a, &a, rho);
        } else {
            czk_fr_mul(&b, &b, rho); /* key + data·rho */
            czk_fr_add(&a, &a, &b);
        }
        czk_fr_to_bytes_le(j->out + 32 * i, &a);
    }
}

static czk_status code_run(uint8_t *out, const uint8_t *a, const uint8_t *b,
                           const czk_snap_params *p, unsigned h, const uint8_t comm_d_new[32],
                           const uint8_t comm_r_old[32], bool decode, czk_pool *pool, czk_err *err)
{
    czk_fr *rhos;
    czk_status s = make_rhos(&rhos, p, h, comm_d_new, comm_r_old, decode, err);
    if (s != CZK_OK) return s;
    code_job j = {.out = out, .a = a, .b = b, .rhos = rhos, .shift = p->challenge_bit_len - h,
                  .n = p->nodes, .chunk = 1u << 14, .decode = decode, .bad = UINT64_MAX};
    czk_pool_run(pool, (size_t)((j.n + j.chunk - 1) / j.chunk), code_chunk, &j);
    czk_free(rhos);
    if (j.bad != UINT64_MAX)
        return czk_err_set(err, CZK_ENONCANONICAL, "snap %s: node %llu is not below r",
                           decode ? "decode" : "encode", (unsigned long long)j.bad);
    return CZK_OK;
}

czk_status czk_snap_encode(uint8_t *new_replica, const uint8_t *sector_key, const uint8_t *data,
                           const czk_snap_params *p, unsigned h, const uint8_t comm_d_new[32],
                           const uint8_t comm_r_old[32], czk_pool *pool, czk_err *err)
{
    return code_run(new_replica, sector_key, data, p, h, comm_d_new, comm_r_old, false, pool, err);
}

czk_status czk_snap_decode(uint8_t *data, const uint8_t *new_replica, const uint8_t *sector_key,
                           const czk_snap_params *p, unsigned h, const uint8_t comm_d_new[32],
                           const uint8_t comm_r_old[32], czk_pool *pool, czk_err *err)
{
    return code_run(data, new_replica, sector_key, p, h, comm_d_new, comm_r_old, true, pool, err);
}

/* ---------------------------------------------------------------------------------------
 * An updated sector
 * ------------------------------------------------------------------------------------- */

struct czk_snap_sector {
    czk_snap_params p;
    czk_snap_comms c;
    uint8_t *key, *data, *replica; /* the leaves of TreeROld, TreeDNew, TreeRNew */
    czk_merkle_tree *t_r_old, *t_d_new, *t_r_new;
};

void czk_snap_sector_destroy(czk_snap_sector *s)
{
    if (!s) return;
    czk_merkle_destroy(s->t_r_old);
    czk_merkle_destroy(s->t_d_new);
    czk_merkle_destroy(s->t_r_new);
    czk_free(s->key);
    czk_free(s->data);
    czk_free(s->replica);
    czk_free(s);
}

const czk_snap_params *czk_snap_sector_params(const czk_snap_sector *s)
{
    return &s->p;
}

void czk_snap_sector_comms(const czk_snap_sector *s, czk_snap_comms *out)
{
    *out = s->c;
}

const uint8_t *czk_snap_sector_replica(const czk_snap_sector *s)
{
    return s->replica;
}

czk_status czk_snap_sector_update(czk_snap_sector **out, const czk_snap_update_input *in,
                                  czk_pool *pool, czk_err *err)
{
    *out = NULL;
    czk_snap_sector *s = czk_calloc(1, sizeof *s);
    if (!s) return czk_err_set(err, CZK_ENOMEM, "snap: out of memory");
    czk_status st = czk_snap_params_get(&s->p, in->sector_size, err);
    if (st != CZK_OK) goto fail;
    unsigned h = in->h ? in->h : czk_snap_h_default(&s->p);
    if (h_index(&s->p, h) < 0) {
        st = czk_err_set(err, CZK_EINVAL, "snap: h = %u is not allowed for this size", h);
        goto fail;
    }
    s->c.h = h;
    size_t bytes = (size_t)s->p.sector_size;
    s->key = czk_malloc(bytes);
    s->data = czk_malloc(bytes);
    s->replica = czk_malloc(bytes);
    if (!s->key || !s->data || !s->replica) {
        st = czk_err_set(err, CZK_ENOMEM, "snap: out of memory for a %zu-byte sector", bytes);
        goto fail;
    }
    memcpy(s->key, in->sector_key, bytes);
    memcpy(s->data, in->data, bytes);
    memcpy(s->c.comm_c, in->comm_c, 32);
    czk_merkle_config cr = {CZK_MERKLE_POSEIDON, s->p.tree_r.base_arity, s->p.tree_r.sub_arity,
                            s->p.tree_r.top_arity, 1};
    czk_merkle_config cd = czk_merkle_config_tree_d();
    /* comm_r_old = H(comm_c, root of TreeROld), as encode_into recomputes it. */
    st = czk_merkle_build(&s->t_r_old, &cr, s->key, s->p.nodes, pool, err);
    if (st == CZK_OK) {
        czk_merkle_root(s->t_r_old, s->c.root_r_old);
        st = czk_comm_r(s->c.comm_r_old, s->c.comm_c, s->c.root_r_old, err);
    }
    if (st == CZK_OK) st = czk_merkle_build(&s->t_d_new, &cd, s->data, s->p.nodes, pool, err);
    if (st == CZK_OK) {
        czk_merkle_root(s->t_d_new, s->c.comm_d_new);
        st = czk_snap_encode(s->replica, s->key, s->data, &s->p, h, s->c.comm_d_new,
                             s->c.comm_r_old, pool, err);
    }
    if (st == CZK_OK) st = czk_merkle_build(&s->t_r_new, &cr, s->replica, s->p.nodes, pool, err);
    if (st == CZK_OK) {
        czk_merkle_root(s->t_r_new, s->c.root_r_new);
        st = czk_comm_r(s->c.comm_r_new, s->c.comm_c, s->c.root_r_new, err);
    }
    if (st != CZK_OK) goto fail;
    *out = s;
    return CZK_OK;
fail:
    czk_snap_sector_destroy(s);
    return st;
}

czk_status czk_snap_sector_update_sealed(czk_snap_sector **out, const czk_sector *key,
                                         const uint8_t *data, unsigned h, czk_pool *pool,
                                         czk_err *err)
{
    czk_sector_seal_comms c;
    czk_sector_comms(key, &c);
    czk_snap_update_input in = {.sector_size = czk_sector_info(key)->sector_size,
                                .sector_key = czk_sector_replica(key),
                                .data = data,
                                .h = h};
    memcpy(in.comm_c, c.comm_c, 32);
    return czk_snap_sector_update(out, &in, pool, err);
}

/* A PartitionProof with its arrays allocated. */
static czk_status new_partition_proof(czk_snap_partition_proof **out, size_t napex, size_t nch,
                                      czk_err *err)
{
    czk_snap_partition_proof *pp = czk_calloc(1, sizeof *pp);
    if (pp && (pp->arena = czk_vanilla_arena_create()) != NULL) {
        pp->apex_leafs = czk_vanilla_arena_alloc(pp->arena, 32 * napex);
        pp->challenge_proofs = czk_vanilla_arena_alloc(pp->arena, nch * sizeof *pp->challenge_proofs);
        pp->napex_leafs = napex;
        pp->nchallenge_proofs = nch;
        if (pp->apex_leafs && pp->challenge_proofs) {
            *out = pp;
            return CZK_OK;
        }
    }
    czk_snap_partition_proof_free(pp);
    return czk_err_set(err, CZK_ENOMEM, "snap: out of memory");
}

czk_status czk_snap_sector_prove(const czk_snap_sector *s, uint64_t k,
                                 czk_snap_partition_proof **out, czk_err *err)
{
    const czk_snap_params *p = &s->p;
    *out = NULL;
    if (k >= p->partition_count)
        return czk_err_set(err, CZK_EINVAL, "snap: partition %llu of %u", (unsigned long long)k,
                           p->partition_count);
    czk_snap_partition_proof *pp = NULL;
    czk_status st = new_partition_proof(&pp, p->apex_leaf_count, p->challenge_count, err);
    if (st != CZK_OK) return st;
    memcpy(pp->comm_c, s->c.comm_c, 32);
    /* The apex leaves: TreeDNew's row at height B − P − A, this partition's slice. */
    unsigned level = p->challenge_bit_len - p->partition_bit_len - p->apex_leaf_bit_len;
    uint64_t count = 0;
    const uint8_t *row = level == 0 ? s->data : czk_merkle_level_nodes(s->t_d_new, level, &count);
    if (level == 0) count = p->nodes;
    if (!row || count != (uint64_t)p->partition_count * p->apex_leaf_count) {
        czk_snap_partition_proof_free(pp);
        return czk_err_set(err, CZK_EINTERNAL, "snap: TreeDNew row %u not available", level);
    }
    memcpy(pp->apex_leafs, row + 32 * k * p->apex_leaf_count, 32 * (size_t)p->apex_leaf_count);
    uint32_t *ch = czk_malloc(p->challenge_count * sizeof *ch);
    czk_merkle_path *path = czk_malloc(sizeof *path);
    if (!ch || !path) st = czk_err_set(err, CZK_ENOMEM, "snap: out of memory");
    if (st == CZK_OK) st = czk_snap_challenges(ch, p, s->c.comm_r_new, k, err);
    const czk_por_shape *t = &p->tree_r;
    for (unsigned i = 0; st == CZK_OK && i < p->challenge_count; i++) {
        czk_snap_challenge_proof *cp = &pp->challenge_proofs[i];
        st = czk_merkle_prove(s->t_r_old, ch[i], s->key, path, err);
        if (st == CZK_OK)
            st = czk_vanilla_from_path(&cp->proof_r_old, pp->arena, path, s->c.root_r_old,
                                       t->sub_arity, t->top_arity, err);
        if (st == CZK_OK) st = czk_merkle_prove(s->t_d_new, ch[i], s->data, path, err);
        if (st == CZK_OK)
            st = czk_vanilla_from_path(&cp->proof_d_new, pp->arena, path, s->c.comm_d_new, 0, 0, err);
        if (st == CZK_OK) st = czk_merkle_prove(s->t_r_new, ch[i], s->replica, path, err);
        if (st == CZK_OK)
            st = czk_vanilla_from_path(&cp->proof_r_new, pp->arena, path, s->c.root_r_new,
                                       t->sub_arity, t->top_arity, err);
    }
    czk_free(ch);
    czk_free(path);
    if (st != CZK_OK) {
        czk_snap_partition_proof_free(pp);
        return st;
    }
    *out = pp;
    return CZK_OK;
}

/* ---------------------------------------------------------------------------------------
 * Verification
 * ------------------------------------------------------------------------------------- */

/* The nodes of a binary SHA-256 path from its leaf up: nodes[ℓ] for ℓ = 0..levels. */
static czk_status sha_path_nodes(uint8_t (*nodes)[32], const czk_merkle_path *path)
{
    memcpy(nodes[0], path->leaf, 32);
    for (unsigned l = 0; l < path->levels; l++) {
        uint8_t pair[64];
        unsigned own = path->index[l] & 1;
        memcpy(pair + 32 * own, nodes[l], 32);
        memcpy(pair + 32 * (1 - own), path->siblings[l], 32);
        czk_status s = czk_sha256_nodes(nodes[l + 1], pair, 1);
        if (s != CZK_OK) return s;
    }
    return CZK_OK;
}

static bool fr_ok(czk_fr *out, const uint8_t b[32])
{
    return czk_fr_from_bytes_le(out, b);
}

czk_status czk_snap_partition_verify(const czk_snap_partition_proof *pp, const czk_snap_params *p,
                                     uint64_t k, unsigned h, const uint8_t comm_r_old[32],
                                     const uint8_t comm_d_new[32], const uint8_t comm_r_new[32],
                                     czk_err *err)
{
    if (k >= p->partition_count)
        return czk_err_set(err, CZK_EINVAL, "snap: partition %llu of %u", (unsigned long long)k,
                           p->partition_count);
    if (h_index(p, h) < 0) return czk_err_set(err, CZK_EINVAL, "snap: h = %u is not allowed", h);
    if (pp->napex_leafs != p->apex_leaf_count)
        return czk_err_set(err, CZK_EINVAL, "partition %llu: %zu apex leafs, expected %u",
                           (unsigned long long)k, pp->napex_leafs, p->apex_leaf_count);
    if (pp->nchallenge_proofs != p->challenge_count)
        return czk_err_set(err, CZK_EINVAL, "partition %llu: %zu challenge proofs, expected %u",
                           (unsigned long long)k, pp->nchallenge_proofs, p->challenge_count);
    czk_fr x;
    for (size_t i = 0; i < pp->napex_leafs; i++)
        if (!fr_ok(&x, pp->apex_leafs[i]))
            return czk_err_set(err, CZK_ENONCANONICAL, "partition %llu: apex_leafs[%zu] is not below r",
                               (unsigned long long)k, i);
    /* comm_r_old / comm_r_new against comm_c and challenge 0's roots (vanilla.rs verify). */
    const uint8_t *root_r_old = pp->challenge_proofs[0].proof_r_old.root;
    const uint8_t *root_r_new = pp->challenge_proofs[0].proof_r_new.root;
    uint8_t calc[32];
    czk_err e2;
    czk_status s = czk_comm_r(calc, pp->comm_c, root_r_old, &e2);
    if (s == CZK_OK && memcmp(calc, comm_r_old, 32) != 0)
        return czk_err_set(err, CZK_EVERIFY, "partition %llu: H(comm_c, root_r_old) is not comm_r_old",
                           (unsigned long long)k);
    if (s == CZK_OK) s = czk_comm_r(calc, pp->comm_c, root_r_new, &e2);
    if (s == CZK_OK && memcmp(calc, comm_r_new, 32) != 0)
        return czk_err_set(err, CZK_EVERIFY, "partition %llu: H(comm_c, root_r_new) is not comm_r_new",
                           (unsigned long long)k);
    if (s != CZK_OK) return czk_err_set(err, s, "partition %llu: %s", (unsigned long long)k, e2.msg);

    /* The apex tree over the partition's apex leafs: its root must be the TreeDNew node at
     * height B − P above every challenge of this partition. */
    unsigned A = p->apex_leaf_bit_len, B = p->challenge_bit_len, P = p->partition_bit_len;
    unsigned apex_h = B - P - A;
    uint8_t *apex = czk_malloc(32 * (size_t)p->apex_leaf_count);
    uint32_t *ch = czk_malloc(p->challenge_count * sizeof *ch);
    czk_merkle_path *path = czk_malloc(sizeof *path);
    uint8_t(*nodes)[32] = czk_malloc(32 * (size_t)(B + 1));
    uint8_t phi[32];
    if (!apex || !ch || !path || !nodes) s = czk_err_set(err, CZK_ENOMEM, "snap: out of memory");
    if (s == CZK_OK) {
        memcpy(apex, pp->apex_leafs, 32 * (size_t)p->apex_leaf_count);
        for (size_t n = p->apex_leaf_count; n > 1 && s == CZK_OK; n /= 2)
            s = czk_sha256_nodes(apex, apex, n / 2);
    }
    if (s == CZK_OK) s = czk_snap_challenges(ch, p, comm_r_new, k, err);
    if (s == CZK_OK) s = czk_snap_phi(phi, comm_d_new, comm_r_old, err);
    czk_por_shape tree_d = {CZK_MERKLE_SHA256, 2, 0, 0, B};
    char what[96];
    for (unsigned i = 0; s == CZK_OK && i < p->challenge_count; i++) {
        const czk_snap_challenge_proof *cp = &pp->challenge_proofs[i];
        const czk_vanilla_merkle_proof *mps[3] = {&cp->proof_r_old, &cp->proof_d_new, &cp->proof_r_new};
        static const char *const names[3] = {"proof_r_old", "proof_d_new", "proof_r_new"};
        const uint8_t *roots[3] = {root_r_old, comm_d_new, root_r_new};
        for (int t = 0; t < 3 && s == CZK_OK; t++) {
            snprintf(what, sizeof what, "partition %llu challenge %u (node %u) %s",
                     (unsigned long long)k, i, ch[i], names[t]);
            s = czk__vanilla_check_shape(mps[t], t == 1 ? &tree_d : &p->tree_r, what, err);
            uint64_t leaf = 0;
            if (s == CZK_OK && (s = czk_vanilla_to_path(mps[t], path, &leaf, &e2)) != CZK_OK)
                s = czk_err_set(err, s, "%s: %s", what, e2.msg);
            if (s == CZK_OK && leaf != ch[i])
                s = czk_err_set(err, CZK_EVERIFY, "%s: proves node %llu, not the challenge", what,
                                (unsigned long long)leaf);
            if (s == CZK_OK)
                s = czk_vanilla_merkle_verify(mps[t], t == 1 ? CZK_MERKLE_SHA256 : CZK_MERKLE_POSEIDON,
                                              roots[t], what, err);
        }
        if (s != CZK_OK) break;
        /* The encoding: leaf_r_new = leaf_r_old + leaf_d_new·rho(c). */
        czk_fr o, d, n, rho;
        if (!fr_ok(&o, cp->proof_r_old.leaf) || !fr_ok(&d, cp->proof_d_new.leaf) ||
            !fr_ok(&n, cp->proof_r_new.leaf)) {
            s = czk_err_set(err, CZK_ENONCANONICAL, "partition %llu challenge %u: a leaf is not below r",
                            (unsigned long long)k, i);
            break;
        }
        s = czk_snap_rho(&rho, p, phi, ch[i], h, err);
        if (s != CZK_OK) break;
        czk_fr_mul(&d, &d, &rho);
        czk_fr_add(&o, &o, &d);
        if (!czk_fr_eq(&o, &n)) {
            s = czk_err_set(err, CZK_EVERIFY,
                            "partition %llu challenge %u (node %u): leaf_r_new is not "
                            "leaf_r_old + leaf_d_new·rho",
                            (unsigned long long)k, i, ch[i]);
            break;
        }
        /* The apex leaf on the TreeDNew path, and the apex root above it. */
        (void)czk_vanilla_to_path(&cp->proof_d_new, path, &(uint64_t){0}, NULL);
        s = sha_path_nodes(nodes, path);
        if (s != CZK_OK) break;
        uint64_t j = (ch[i] >> apex_h) & (p->apex_leaf_count - 1u);
        if (memcmp(nodes[apex_h], pp->apex_leafs[j], 32) != 0 || memcmp(nodes[apex_h + A], apex, 32) != 0)
            s = czk_err_set(err, CZK_EVERIFY,
                            "partition %llu challenge %u (node %u): the TreeDNew path does not "
                            "pass through apex leaf %llu and the apex root",
                            (unsigned long long)k, i, ch[i], (unsigned long long)j);
    }
    czk_free(apex);
    czk_free(ch);
    czk_free(path);
    czk_free(nodes);
    return s;
}

/* ---------------------------------------------------------------------------------------
 * RegisteredUpdateProof
 * ------------------------------------------------------------------------------------- */

czk_status czk_snap_update_proof_parse(const char *name, uint64_t *id, uint64_t *sector_size,
                                       czk_err *err)
{
    static const struct {
        const char *name;
        uint64_t id;
        unsigned log2size;
    } tab[] = {
#define CZK__UPDATE_ROW(n, i, l) {#n, i, l},
        CZK_SNAP_UPDATE_PROOF_MAP(CZK__UPDATE_ROW)
#undef CZK__UPDATE_ROW
    };
    const char *prefix = "RegisteredUpdateProof_";
    if (strncmp(name, prefix, strlen(prefix)) == 0) name += strlen(prefix);
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(name, tab[i].name) == 0) {
            *id = tab[i].id;
            *sector_size = UINT64_C(1) << tab[i].log2size;
            return CZK_OK;
        }
    return czk_err_set(err, CZK_EINVAL,
                       "unknown registered update proof '%s' (expected StackedDrg2KiBV1, "
                       "StackedDrg8MiBV1, StackedDrg512MiBV1, StackedDrg32GiBV1 or StackedDrg64GiBV1)",
                       name);
}
