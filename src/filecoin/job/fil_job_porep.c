/*
 * The Filecoin job layer for PoRep C2: a C1 output (filecoin-proofs'
 * SealCommitPhase1Output JSON, bare or inside cuzk's envelope) becomes one StackedCircuit
 * witness per partition, as rust-fil-proofs' StackedCompound::circuit builds them from the
 * vanilla proofs (storage-proofs-porep stacked/circuit/params.rs From<VanillaProof>), and
 * the public inputs of StackedCompound::generate_public_inputs.
 *
 * The C1 is checked completely before anything else (czk_porep_c1_verify: shapes, roots,
 * every Merkle path, the parents being the SDR graph's, the labels, and each challenge
 * against the one the C1's own replica_id and seed derive): a C1 whose proofs are
 * internally consistent but answer other challenges would otherwise be proven, and the
 * proof would only fail when the chain verifies it.
 */
#include "filecoin/job/fil_job_internal.h"

#include "czk/alloc.h"
#include "czk/merkle.h"
#include "czk/porep.h"
#include "czk/porep_vanilla.h"
#include "czk/vanilla.h"

#include <stdio.h>
#include <string.h>

typedef struct porep_impl {
    czk_porep_config cfg;
    size_t partitions;
    czk_porep_challenge *ch; /* partitions × cfg.challenges */
    czk_porep_witness *w;    /* partitions */
} porep_impl;

static void porep_destroy(void *p)
{
    porep_impl *x = p;
    if (x == NULL) return;
    czk_free(x->ch);
    czk_free(x->w);
    czk_free(x);
}

static czk_status porep_synthesize(const czk_fil_job *j, size_t p, czk_cs *cs)
{
    const porep_impl *x = j->impl;
    czk_porep_circuit_ctx ctx;
    ctx.config = x->cfg;
    ctx.witness = &x->w[p];
    return czk_porep_circuit(cs, &ctx);
}

static czk_status porep_synthesize_pool(const czk_fil_job *j, size_t p, czk_cs *cs,
                                        czk_pool *pool)
{
    const porep_impl *x = j->impl;
    czk_porep_circuit_ctx ctx;
    ctx.config = x->cfg;
    ctx.witness = &x->w[p];
    return czk_porep_circuit_par(cs, &ctx, pool);
}

static czk_status config_of(const czk__fil_circuit *c, czk_porep_config *cfg)
{
    return czk_porep_config_for_proof(cfg, (czk_seal_proof)c->registered_proof, NULL);
}

czk_status czk__fil_porep_shape(const czk__fil_circuit *c, czk_cs *cs)
{
    czk_porep_circuit_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    czk_status s = config_of(c, &ctx.config);
    return s != CZK_OK ? s : czk_porep_circuit(cs, &ctx);
}

czk_status czk__fil_porep_count(const czk__fil_circuit *c, czk_cs_counts *out, czk_err *err)
{
    czk_porep_config cfg;
    czk_status s = czk_porep_config_for_proof(&cfg, (czk_seal_proof)c->registered_proof, err);
    return s != CZK_OK ? s : czk_porep_count(&cfg, out, err);
}

/* One vanilla MerkleProof into a czk_merkle_path. */
static czk_status to_path(const czk_vanilla_merkle_proof *mp, czk_merkle_path *path,
                          const char *where, const char *what, czk_err *err)
{
    uint64_t leaf;
    czk_err e;
    czk_err_clear(&e);
    czk_status s = czk_vanilla_to_path(mp, path, &leaf, &e);
    if (s != CZK_OK)
        return czk_err_set(err, s, "vanilla_proof: %s: %s: %s", where, what, e.msg);
    return CZK_OK;
}

/* params.rs Proof::from(VanillaProof) for one challenge. */
static czk_status convert_challenge(czk_porep_challenge *c, const czk_porep_vanilla_proof *v,
                                    unsigned layers, const char *where, czk_err *err)
{
    c->challenge = v->labeling_proofs[0].node;
    memcpy(c->data_leaf, v->comm_d_proofs.leaf, 32);
    czk_status s = to_path(&v->comm_d_proofs, &c->comm_d_path, where, "comm_d_proofs", err);
    if (s == CZK_OK)
        s = to_path(&v->comm_r_last_proof, &c->comm_r_last_path, where, "comm_r_last_proof", err);
    if (s == CZK_OK)
        s = to_path(&v->c_x.inclusion_proof, &c->comm_c_path, where,
                    "replica_column_proofs.c_x.inclusion_proof", err);
    for (unsigned l = 0; l < layers; l++) memcpy(c->c_x[l], v->c_x.rows[l], 32);
    for (unsigned i = 0; s == CZK_OK && i < CZK_SDR_DEGREE; i++) {
        bool drg = i < CZK_SDR_DRG_DEGREE;
        unsigned k = drg ? i : i - CZK_SDR_DRG_DEGREE;
        const czk_vanilla_column_proof *cp = drg ? &v->drg_parents[k] : &v->exp_parents[k];
        czk_porep_column *col = drg ? &c->drg[k] : &c->exp[k];
        for (unsigned l = 0; l < layers; l++) memcpy(col->rows[l], cp->rows[l], 32);
        char what[80];
        snprintf(what, sizeof what, "replica_column_proofs.%s[%u].inclusion_proof",
                 drg ? "drg_parents" : "exp_parents", k);
        s = to_path(&cp->inclusion_proof, &col->path, where, what, err);
    }
    return s;
}

/* The C1 JSON of the request: the envelope's Phase1Out or the bytes themselves. */
static czk_status parse_c1(czk_porep_c1_output **c1, const czk_fil_job_input *in,
                           const czk_seal_proof_info *info, czk_err *err)
{
    uint8_t *json = NULL;
    size_t json_len = 0;
    uint64_t env_num = 0, env_size = 0;
    czk_err e;
    czk_err_clear(&e);
    czk_status s = czk_porep_envelope_decode(in->vanilla_proof, in->vanilla_proof_len, &json,
                                             &json_len, &env_num, &env_size, &e);
    if (s == CZK_ENOENT) {
        s = czk_porep_c1_parse_json(c1, in->vanilla_proof, in->vanilla_proof_len, &e);
        if (s != CZK_OK) return czk__fil_err_wrap(err, s, "vanilla_proof: C1", &e);
        return CZK_OK;
    }
    if (s != CZK_OK) return czk__fil_err_wrap(err, s, "vanilla_proof", &e);
    if (env_size != 0 && env_size != info->sector_size) {
        czk_free(json);
        return czk_err_set(err, CZK_EINVAL,
                           "vanilla_proof: envelope SectorSize is %llu, %s seals %llu bytes",
                           (unsigned long long)env_size, info->name,
                           (unsigned long long)info->sector_size);
    }
    s = czk_porep_c1_parse_json(c1, json, json_len, &e);
    czk_free(json);
    if (s != CZK_OK) return czk__fil_err_wrap(err, s, "vanilla_proof: Phase1Out C1", &e);
    return CZK_OK;
}

static void hex8(char out[17], const uint8_t *b)
{
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < 8; i++) {
        out[2 * i] = hx[b[i] >> 4];
        out[2 * i + 1] = hx[b[i] & 15];
    }
    out[16] = 0;
}

/*
 * The sector the request names (miner_id, sector_number) must be the C1's: its replica_id
 * is SHA-256(prover_id, sector_id, ticket, comm_d, porep_id), which is what rust-fil-proofs'
 * seal_commit_phase2 recomputes from the sector it is asked to prove. Without this a C1 of
 * another sector (or with another ticket) is proved as the request's. Miner id 0 is the
 * system actor, never a miner: a request with none names no sector and is not checked.
 */
static czk_status check_sector(const czk_porep_c1_output *c1, const czk_fil_job_input *in,
                               const czk_seal_proof_info *info, czk_err *err)
{
    if (in->miner_id == 0) return CZK_OK;
    uint8_t prover_id[32], porep_id[32], want[32];
    czk_seal_prover_id_from_actor(prover_id, in->miner_id);
    czk_seal_porep_id(porep_id, info->proof);
    czk_status s = czk_seal_replica_id(want, prover_id, in->sector_number, c1->ticket, c1->comm_d,
                                       porep_id, err);
    if (s != CZK_OK) return s;
    if (memcmp(want, c1->replica_id, 32) == 0) return CZK_OK;
    char a[17], b[17];
    hex8(a, want);
    hex8(b, c1->replica_id);
    return czk_err_set(err, CZK_EMISMATCH,
                       "miner_id, sector_number: miner %llu sector %llu with the C1's ticket and "
                       "comm_d and %s's porep_id give replica_id %s..., the C1's is %s... (a C1 "
                       "of another sector, or a changed ticket)",
                       (unsigned long long)in->miner_id, (unsigned long long)in->sector_number,
                       info->name, a, b);
}

czk_status czk__fil_porep_create(czk_fil_job *j, const czk_fil_job_input *in, czk_err *err)
{
    /* czk__fil_circuit_resolve checked the registered proof and the sector size. */
    const czk_seal_proof_info *info = czk_seal_proof_get((czk_seal_proof)in->registered_proof);
    if (in->vanilla_proof == NULL || in->vanilla_proof_len == 0)
        return czk_err_set(err, CZK_EINVAL, "vanilla_proof: empty (the C1 output is required)");

    czk_porep_c1_output *c1 = NULL;
    czk_status s = parse_c1(&c1, in, info, err);
    if (s != CZK_OK) return s;
    czk_err e;
    czk_err_clear(&e);
    /* What rust-fil-proofs' prove_with_vanilla checks before proving
     * (StackedDrg::verify_all_partitions): czk_porep_c1_check's shapes, roots and paths, the
     * labels being the label hashes of their parents, and each challenge being the one
     * the C1's replica_id and seed (synthetic: and comm_r) derive. */
    s = czk_porep_c1_verify(c1, info->proof, 0, &e);
    if (s != CZK_OK) {
        czk_porep_c1_output_free(c1);
        return czk__fil_err_wrap(err, s, "vanilla_proof", &e);
    }
    if ((s = check_sector(c1, in, info, err)) != CZK_OK) {
        czk_porep_c1_output_free(c1);
        return s;
    }
    /* What the request means, for request_id deduplication: the C1 as czk writes it,
     * however the client's JSON was spaced, ordered or wrapped in cuzk's envelope. For a
     * 32 GiB fixture C1 (38.6 MB) writing and hashing it took 0.10-0.18 s, next to the
     * 2.3 s its parse takes (2-core dev machine). */
    uint8_t *canon = NULL;
    size_t canon_len = 0;
    s = czk_porep_c1_write_json(c1, &canon, &canon_len, &e);
    if (s == CZK_OK) s = czk_sha256(j->digest, canon, canon_len);
    czk_free(canon);
    if (s != CZK_OK) {
        czk_porep_c1_output_free(c1);
        return czk__fil_err_wrap(err, s, "vanilla_proof: canonical form", &e);
    }
    j->has_digest = true;

    porep_impl *x = czk_calloc(1, sizeof *x);
    czk_sdr_graph *graph = NULL;
    uint64_t *chal = NULL;
    if (x == NULL) {
        s = czk_err_set(err, CZK_ENOMEM, "porep: out of memory");
        goto out;
    }
    j->impl = x;
    j->destroy_impl = porep_destroy;
    j->synthesize = porep_synthesize;
    j->synthesize_pool = porep_synthesize_pool;
    if ((s = czk_porep_config_for_proof(&x->cfg, info->proof, err)) != CZK_OK) goto out;
    const size_t P = c1->npartitions, C = x->cfg.challenges;
    x->partitions = P;
    x->ch = czk_calloc(P * C, sizeof *x->ch);
    x->w = czk_calloc(P, sizeof *x->w);
    chal = czk_calloc(C, sizeof *chal);
    j->n_inputs = czk_porep_num_inputs(&x->cfg);
    j->inputs = czk_calloc(P * j->n_inputs, sizeof *j->inputs);
    if (x->ch == NULL || x->w == NULL || chal == NULL || j->inputs == NULL) {
        s = czk_err_set(err, CZK_ENOMEM, "porep: out of memory for %zu partitions", P);
        goto out;
    }
    j->partitions = P;

    for (size_t k = 0; k < P && s == CZK_OK; k++) {
        for (size_t i = 0; i < C && s == CZK_OK; i++) {
            const czk_porep_vanilla_proof *v = &c1->vanilla_proofs[k][i];
            char where[64];
            snprintf(where, sizeof where, "partition %zu challenge %zu", k, i);
            chal[i] = v->labeling_proofs[0].node;
            s = convert_challenge(&x->ch[k * C + i], v, x->cfg.layers, where, err);
        }
        if (s != CZK_OK) break;
        czk_porep_witness *w = &x->w[k];
        memcpy(w->replica_id, c1->replica_id, 32);
        memcpy(w->comm_d, c1->comm_d, 32);
        memcpy(w->comm_r, c1->comm_r, 32);
        /* czk_porep_c1_check made every challenge agree on these two roots. */
        memcpy(w->comm_r_last, c1->vanilla_proofs[k][0].comm_r_last_proof.root, 32);
        memcpy(w->comm_c, c1->vanilla_proofs[k][0].c_x.inclusion_proof.root, 32);
        w->challenges = &x->ch[k * C];
        if (graph == NULL && (s = czk_sdr_graph_create_for_proof(&graph, info->proof, err)) != CZK_OK)
            break;
        s = czk_porep_public_inputs(j->inputs + k * j->n_inputs, j->n_inputs, &x->cfg, graph,
                                    c1->replica_id, c1->comm_d, c1->comm_r, chal, err);
    }
out:
    czk_free(chal);
    czk_sdr_graph_destroy(graph);
    czk_porep_c1_output_free(c1);
    return s;
}
