/*
 * The Filecoin job layer for SnapDeals (EmptySectorUpdate): one bincode PartitionProof per
 * partition plus comm_r_old, comm_r_new and comm_d_new become one
 * EmptySectorUpdateCircuit witness per partition (storage-proofs-update circuit.rs
 * PublicInputs::new / PrivateInputs::new with h = the default h, as filecoin-proofs'
 * generate_empty_sector_update_proof_with_vanilla uses), and the public inputs of
 * EmptySectorUpdateCompound::generate_public_inputs.
 *
 * Everything the circuit will enforce is checked natively first, so that a bad vanilla
 * proof is an error naming its partition, challenge and field rather than a proof that
 * does not verify: the shapes, every Merkle path, the challenged leaf indices (derived
 * from comm_r_new and k), the apex leaves being TreeDNew's nodes on each path, the two
 * comm_r = Poseidon2(comm_c, root) relations and leaf_r_new = leaf_r_old + leaf_d_new·rho.
 */
#include "filecoin/job/fil_job_internal.h"

#include "czk/alloc.h"
#include "czk/comm.h"
#include "czk/merkle.h"
#include "czk/snap.h"
#include "czk/snap_vanilla.h"
#include "czk/vanilla.h"

#include <stdio.h>
#include <string.h>

typedef struct snap_impl {
    czk_snap_params params;
    unsigned h;
    size_t partitions;
    czk_snap_challenge_witness *ch; /* partitions × challenge_count */
    uint8_t (*apex)[32];            /* partitions × apex_leaf_count */
    czk_snap_witness *w;            /* partitions */
} snap_impl;

static void snap_destroy(void *p)
{
    snap_impl *x = p;
    if (x == NULL) return;
    czk_free(x->ch);
    czk_free(x->apex);
    czk_free(x->w);
    czk_free(x);
}

static czk_status snap_synthesize(const czk_fil_job *j, size_t p, czk_cs *cs)
{
    const snap_impl *x = j->impl;
    return czk_snap_synthesize(cs, &x->params, &x->w[p]);
}

static czk_status snap_synthesize_pool(const czk_fil_job *j, size_t p, czk_cs *cs,
                                       czk_pool *pool)
{
    const snap_impl *x = j->impl;
    return czk_snap_synthesize_par(cs, &x->params, &x->w[p], pool);
}

czk_status czk__fil_snap_shape(const czk__fil_circuit *c, czk_cs *cs)
{
    czk_snap_params p;
    czk_status s = czk_snap_params_get(&p, UINT64_C(1) << c->log2_size, NULL);
    return s != CZK_OK ? s : czk_snap_synthesize(cs, &p, NULL);
}

czk_status czk__fil_snap_count(const czk__fil_circuit *c, czk_cs_counts *out, czk_err *err)
{
    czk_snap_params p;
    czk_circuit_info info;
    czk_status s = czk_snap_params_get(&p, UINT64_C(1) << c->log2_size, err);
    if (s == CZK_OK) s = czk_snap_count(&p, &info, err);
    if (s != CZK_OK) return s;
    out->n_inputs = info.inputs;
    out->n_aux = info.aux;
    out->n_constraints = info.constraints;
    out->a_aux_density = info.a_aux_density;
    out->b_input_density = info.b_input_density;
    out->b_aux_density = info.b_aux_density;
    return CZK_OK;
}

/* A 32-byte commitment field of the request: present, 32 bytes, below r. */
static czk_status check_comm(const uint8_t *b, size_t len, const char *name, czk_err *err)
{
    if (b == NULL || len != 32)
        return czk_err_set(err, CZK_EINVAL, "%s: %zu bytes, expected 32", name, b ? len : 0);
    czk_fr x;
    if (!czk_fr_from_bytes_le(&x, b))
        return czk_err_set(err, CZK_ENONCANONICAL, "%s is not a field element (not below r)", name);
    return CZK_OK;
}

/* One MerkleProof of a challenge: shape, path to its root (and `want_root` if given), and
 * the leaf index it proves; converted into `path`. */
static czk_status check_proof(const czk_vanilla_merkle_proof *mp, czk_merkle_hasher hasher,
                              unsigned levels, const uint8_t *want_root, uint64_t want_leaf,
                              czk_merkle_path *path, const char *where, const char *what,
                              czk_err *err)
{
    char name[160];
    snprintf(name, sizeof name, "%s.%s", where, what);
    czk_err e;
    czk_err_clear(&e);
    uint64_t leaf = 0;
    czk_status s = czk_vanilla_to_path(mp, path, &leaf, &e);
    if (s != CZK_OK) return czk__fil_err_wrap(err, s, name, &e);
    if (path->levels != levels)
        return czk_err_set(err, CZK_EINVAL, "%s: path has %u levels, expected %u", name,
                           path->levels, levels);
    if ((s = czk_vanilla_merkle_verify(mp, hasher, want_root, name, &e)) != CZK_OK)
        return czk_err_set(err, s, "%s", e.msg);
    if (leaf != want_leaf)
        return czk_err_set(err, CZK_EVERIFY, "%s: proves leaf %llu, but the challenge is %llu",
                           name, (unsigned long long)leaf, (unsigned long long)want_leaf);
    return CZK_OK;
}

/* comm = Poseidon2(comm_c, root), the relation the circuit enforces for both replicas. */
static czk_status check_comm_r(const uint8_t comm[32], const uint8_t comm_c[32],
                               const uint8_t root[32], const char *what, size_t k, czk_err *err)
{
    uint8_t got[32];
    czk_status s = czk_comm_r(got, comm_c, root, err);
    if (s != CZK_OK) return s;
    if (memcmp(got, comm, 32) != 0)
        return czk_err_set(err, CZK_EVERIFY,
                           "%s: not Poseidon2(comm_c, the %s root) of vanilla_proofs[%zu]", what,
                           strcmp(what, "comm_r_old") == 0 ? "TreeROld" : "TreeRNew", k);
    return CZK_OK;
}

/* comm_d_new is the root the partition's TreeDNew paths lead to (a path of the wrong
 * shape is left to check_proof, which names it). */
static czk_status check_comm_d(const uint8_t comm[32], const czk_vanilla_merkle_proof *mp,
                               unsigned levels, size_t k, czk_err *err)
{
    czk_merkle_path path;
    uint64_t leaf = 0;
    czk_err e;
    czk_err_clear(&e);
    uint8_t root[32];
    if (czk_vanilla_to_path(mp, &path, &leaf, &e) != CZK_OK || path.levels != levels ||
        czk_merkle_path_root(root, CZK_MERKLE_SHA256, &path, &e) != CZK_OK)
        return CZK_OK;
    if (memcmp(root, comm, 32) != 0)
        return czk_err_set(err, CZK_EVERIFY,
                           "comm_d_new: not the TreeDNew root of vanilla_proofs[%zu] (its "
                           "proof_d_new paths lead elsewhere)",
                           k);
    return CZK_OK;
}

/* Check and convert partition k. */
static czk_status convert_partition(snap_impl *x, size_t k, const czk_snap_partition_proof *pp,
                                    const czk_fil_job_input *in, const uint8_t phi[32],
                                    czk_err *err)
{
    const czk_snap_params *p = &x->params;
    const unsigned CC = p->challenge_count, NA = p->apex_leaf_count;
    const unsigned B = p->challenge_bit_len, P = p->partition_bit_len, A = p->apex_leaf_bit_len;
    const unsigned rl = czk_por_shape_levels(&p->tree_r);
    if (pp->napex_leafs != NA)
        return czk_err_set(err, CZK_EINVAL, "vanilla_proofs[%zu]: %zu apex_leafs, expected %u", k,
                           pp->napex_leafs, NA);
    if (pp->nchallenge_proofs != CC)
        return czk_err_set(err, CZK_EINVAL,
                           "vanilla_proofs[%zu]: %zu challenge_proofs, expected %u", k,
                           pp->nchallenge_proofs, CC);
    for (unsigned a = 0; a < NA; a++) {
        czk_fr v;
        if (!czk_fr_from_bytes_le(&v, pp->apex_leafs[a]))
            return czk_err_set(err, CZK_ENONCANONICAL,
                               "vanilla_proofs[%zu]: apex_leafs[%u] is not below r", k, a);
    }
    uint32_t *chal = czk_calloc(CC, sizeof *chal);
    czk_merkle_path *tmp = czk_malloc(sizeof *tmp);
    if (chal == NULL || tmp == NULL) {
        czk_free(chal);
        czk_free(tmp);
        return czk_err_set(err, CZK_ENOMEM, "snap: out of memory");
    }
    const uint8_t *root_old = pp->challenge_proofs[0].proof_r_old.root;
    const uint8_t *root_new = pp->challenge_proofs[0].proof_r_new.root;
    /* The request's commitments first: a wrong one is then named as such, not as the first
     * path that fails to reach it (the challenges themselves come from comm_r_new). */
    czk_status s = check_comm_r(in->comm_r_old, pp->comm_c, root_old, "comm_r_old", k, err);
    if (s == CZK_OK) s = check_comm_r(in->comm_r_new, pp->comm_c, root_new, "comm_r_new", k, err);
    if (s == CZK_OK)
        s = check_comm_d(in->comm_d_new, &pp->challenge_proofs[0].proof_d_new, B, k, err);
    if (s == CZK_OK) s = czk_snap_challenges(chal, p, in->comm_r_new, k, err);
    for (unsigned i = 0; i < CC && s == CZK_OK; i++) {
        const czk_snap_challenge_proof *cp = &pp->challenge_proofs[i];
        czk_snap_challenge_witness *cw = &x->ch[k * CC + i];
        char where[128];
        snprintf(where, sizeof where,
                 "vanilla_proofs[%zu]: partition %zu challenge %u: challenge_proofs[%u]", k, k, i,
                 i);
        s = check_proof(&cp->proof_r_old, CZK_MERKLE_POSEIDON, rl, root_old, chal[i], &cw->r_old,
                        where, "proof_r_old", err);
        if (s == CZK_OK)
            s = check_proof(&cp->proof_d_new, CZK_MERKLE_SHA256, B, in->comm_d_new, chal[i],
                            &cw->d_new, where, "proof_d_new", err);
        if (s == CZK_OK)
            s = check_proof(&cp->proof_r_new, CZK_MERKLE_POSEIDON, rl, root_new, chal[i],
                            &cw->r_new, where, "proof_r_new", err);
        if (s != CZK_OK) break;
        /* The apex leaf above the challenge: TreeDNew's node B − P − A levels up. */
        *tmp = cw->d_new;
        tmp->levels = B - P - A;
        uint8_t node[32];
        unsigned a = (unsigned)(chal[i] >> (B - P - A)) & (NA - 1);
        if ((s = czk_merkle_path_root(node, CZK_MERKLE_SHA256, tmp, err)) != CZK_OK) break;
        if (memcmp(node, pp->apex_leafs[a], 32) != 0) {
            s = czk_err_set(err, CZK_EVERIFY,
                            "%s.proof_d_new: its node at apex height is not apex_leafs[%u]", where,
                            a);
            break;
        }
        /* leaf_r_new = leaf_r_old + leaf_d_new · rho(c) (vanilla.rs encode). */
        czk_fr old, d, nw, rho, want;
        czk_fr_from_bytes_le(&old, cw->r_old.leaf);
        czk_fr_from_bytes_le(&d, cw->d_new.leaf);
        czk_fr_from_bytes_le(&nw, cw->r_new.leaf);
        if ((s = czk_snap_rho(&rho, p, phi, chal[i], x->h, err)) != CZK_OK) break;
        czk_fr_mul(&want, &d, &rho);
        czk_fr_add(&want, &want, &old);
        if (!czk_fr_eq(&want, &nw)) {
            s = czk_err_set(err, CZK_EVERIFY,
                            "%s: proof_r_new.leaf is not proof_r_old.leaf + proof_d_new.leaf·rho",
                            where);
            break;
        }
    }
    if (s == CZK_OK) {
        czk_snap_witness *w = &x->w[k];
        w->k = k;
        w->h = x->h;
        memcpy(w->comm_r_old, in->comm_r_old, 32);
        memcpy(w->comm_d_new, in->comm_d_new, 32);
        memcpy(w->comm_r_new, in->comm_r_new, 32);
        memcpy(w->comm_c, pp->comm_c, 32);
        memcpy(w->root_r_old, root_old, 32);
        memcpy(w->root_r_new, root_new, 32);
        memcpy(x->apex[k * NA], pp->apex_leafs, (size_t)NA * 32);
        w->apex_leafs = (const uint8_t(*)[32])x->apex[k * NA];
        w->challenges = &x->ch[k * CC];
    }
    czk_free(chal);
    czk_free(tmp);
    return s;
}

czk_status czk__fil_snap_create(czk_fil_job *j, const czk_fil_job_input *in, czk_err *err)
{
    /* czk__fil_circuit_resolve checked the registered proof and the sector size. */
    uint64_t size = UINT64_C(1) << j->circuit->log2_size;
    czk_status s = check_comm(in->comm_r_old, in->comm_r_old_len, "comm_r_old", err);
    if (s == CZK_OK) s = check_comm(in->comm_r_new, in->comm_r_new_len, "comm_r_new", err);
    if (s == CZK_OK) s = check_comm(in->comm_d_new, in->comm_d_new_len, "comm_d_new", err);
    if (s != CZK_OK) return s;
    snap_impl *x = czk_calloc(1, sizeof *x);
    if (x == NULL) return czk_err_set(err, CZK_ENOMEM, "snap: out of memory");
    j->impl = x;
    j->destroy_impl = snap_destroy;
    j->synthesize = snap_synthesize;
    j->synthesize_pool = snap_synthesize_pool;
    if ((s = czk_snap_params_get(&x->params, size, err)) != CZK_OK) return s;
    const czk_snap_params *p = &x->params;
    x->h = czk_snap_h_default(p);
    const size_t P = p->partition_count;
    if (in->n_vanilla_proofs != P)
        return czk_err_set(err, CZK_EINVAL, "vanilla_proofs: %zu partition proofs, %s has %zu",
                           in->n_vanilla_proofs, j->circuit->id, P);
    x->partitions = P;
    x->ch = czk_calloc(P * p->challenge_count, sizeof *x->ch);
    x->apex = czk_calloc(P * p->apex_leaf_count, 32);
    x->w = czk_calloc(P, sizeof *x->w);
    j->n_inputs = 4;
    j->inputs = czk_calloc(P * 4, sizeof *j->inputs);
    if (x->ch == NULL || x->apex == NULL || x->w == NULL || j->inputs == NULL)
        return czk_err_set(err, CZK_ENOMEM, "snap: out of memory");
    j->partitions = P;
    uint8_t phi[32];
    if ((s = czk_snap_phi(phi, in->comm_d_new, in->comm_r_old, err)) != CZK_OK) return s;
    for (size_t k = 0; k < P && s == CZK_OK; k++) {
        char name[48];
        snprintf(name, sizeof name, "vanilla_proofs[%zu]", k);
        if (in->vanilla_proofs == NULL || in->vanilla_proofs[k] == NULL ||
            in->vanilla_proof_lens == NULL)
            return czk_err_set(err, CZK_EINVAL, "%s: missing", name);
        czk_snap_partition_proof *pp = NULL;
        czk_err e;
        czk_err_clear(&e);
        s = czk_snap_partition_proof_parse(&pp, in->vanilla_proofs[k], in->vanilla_proof_lens[k], &e);
        if (s != CZK_OK) return czk__fil_err_wrap(err, s, name, &e);
        s = convert_partition(x, k, pp, in, phi, err);
        czk_snap_partition_proof_free(pp);
        if (s == CZK_OK)
            s = czk_snap_public_inputs(j->inputs + 4 * k, p, k, x->h, in->comm_r_old,
                                       in->comm_d_new, in->comm_r_new, err);
    }
    return s;
}
