/*
 * The Filecoin job layer for Window PoSt (one partition) and Winning PoSt: one bincode
 * FallbackPoStSectorProof per sector (filecoin-proofs types/mod.rs:
 * sector_id u64 ‖ comm_r ‖ vanilla_proof = Proof { sectors: Vec<SectorProof> }, with
 * one SectorProof of challenge_count inclusion proofs, as generate_single_vanilla_proof
 * writes it) plus the randomness become the FallbackPoStCircuit witness, and the public
 * inputs of FallbackPoStCompound::generate_public_inputs.
 *
 * The sector list travels inside the vanilla proofs: cuzk's request carries one
 * sector_number, but each FallbackPoStSectorProof holds its own sector_id and comm_r,
 * which is all rust-fil-proofs' generate_single_window_post_with_vanilla and
 * generate_winning_post_with_vanilla take from the caller besides randomness and
 * prover_id (the circuit does not use prover_id). As there, a Window PoSt partition job
 * carries only its own sectors: they are chunk 0 of the job's sector list, and
 * partition_index does not enter the inputs (the V1_2 challenge index does not depend on
 * the sector's position). A short partition repeats its last sector to fill the circuit.
 *
 * Winning PoSt's vanilla proof is one sector with 66 inclusion proofs; its circuit has 66
 * "sectors" of one challenge each (winning_post_setup_params), slot i taking inclusion
 * proof i of the same sector, as filecoin-proofs' partition_vanilla_proofs splits it.
 */
#include "filecoin/job/fil_job_internal.h"

#include "czk/alloc.h"
#include "czk/comm.h"
#include "czk/merkle.h"
#include "czk/post.h"
#include "czk/post_vanilla.h"
#include "czk/vanilla.h"

#include <stdio.h>
#include <string.h>

typedef struct post_impl {
    czk_post_params params;
    czk_merkle_path *paths;           /* sector_count × challenge_count, circuit order */
    czk_post_sector_witness *sectors; /* sector_count */
} post_impl;

static void post_destroy(void *p)
{
    post_impl *x = p;
    if (x == NULL) return;
    czk_free(x->paths);
    czk_free(x->sectors);
    czk_free(x);
}

static czk_status post_synthesize(const czk_fil_job *j, size_t p, czk_cs *cs)
{
    const post_impl *x = j->impl;
    (void)p;
    return czk_post_synthesize(cs, &x->params, x->sectors);
}

czk_status czk__fil_post_shape(const czk__fil_circuit *c, czk_cs *cs)
{
    czk_post_params p;
    czk_status s = czk_post_params_get(&p, (czk_post_proof)c->registered_proof, NULL);
    return s != CZK_OK ? s : czk_post_synthesize(cs, &p, NULL);
}

czk_status czk__fil_post_count(const czk__fil_circuit *c, czk_cs_counts *out, czk_err *err)
{
    czk_post_params p;
    czk_circuit_info info;
    czk_status s = czk_post_params_get(&p, (czk_post_proof)c->registered_proof, err);
    if (s == CZK_OK) s = czk_post_count_fast(&p, &info, err);
    if (s != CZK_OK) return s;
    out->n_inputs = info.inputs;
    out->n_aux = info.aux;
    out->n_constraints = info.constraints;
    out->a_aux_density = info.a_aux_density;
    out->b_input_density = info.b_input_density;
    out->b_aux_density = info.b_aux_density;
    return CZK_OK;
}

/* A parsed FallbackPoStSectorProof. */
typedef struct sector_in {
    uint64_t id;
    uint8_t comm_r[32];
    czk_post_sector_proof *proof;
} sector_in;

static uint64_t le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

static czk_status parse_sector(sector_in *out, const uint8_t *buf, size_t len, size_t i,
                               czk_err *err)
{
    if (buf == NULL || len < 48)
        return czk_err_set(err, CZK_ETRUNCATED,
                           "vanilla_proofs[%zu]: %zu bytes, a FallbackPoStSectorProof needs at "
                           "least 48 (sector_id, comm_r, sector count)",
                           i, buf ? len : 0);
    out->id = le64(buf);
    memcpy(out->comm_r, buf + 8, 32);
    uint64_t n = le64(buf + 40);
    if (n != 1)
        return czk_err_set(err, CZK_EFORMAT,
                           "vanilla_proofs[%zu]: vanilla_proof.sectors has %llu entries, a sector's "
                           "vanilla proof has 1",
                           i, (unsigned long long)n);
    czk_err e;
    czk_err_clear(&e);
    czk_status s = czk_post_sector_proof_parse(&out->proof, buf + 48, len - 48, &e);
    if (s != CZK_OK) {
        char name[64];
        snprintf(name, sizeof name, "vanilla_proofs[%zu]: vanilla_proof.sectors[0]", i);
        return czk__fil_err_wrap(err, s, name, &e);
    }
    czk_fr v;
    if (!czk_fr_from_bytes_le(&v, out->comm_r))
        return czk_err_set(err, CZK_ENONCANONICAL, "vanilla_proofs[%zu] (sector %llu): comm_r is "
                           "not below r", i, (unsigned long long)out->id);
    uint8_t got[32];
    if ((s = czk_comm_r(got, out->proof->comm_c, out->proof->comm_r_last, &e)) != CZK_OK)
        return czk_err_set(err, s, "vanilla_proofs[%zu] (sector %llu): %s", i,
                           (unsigned long long)out->id, e.msg);
    if (memcmp(got, out->comm_r, 32) != 0)
        return czk_err_set(err, CZK_EVERIFY,
                           "vanilla_proofs[%zu] (sector %llu): comm_r is not Poseidon2(comm_c, "
                           "comm_r_last)",
                           i, (unsigned long long)out->id);
    return CZK_OK;
}

czk_status czk__fil_post_create(czk_fil_job *j, const czk_fil_job_input *in, czk_err *err)
{
    /* czk__fil_circuit_resolve checked the registered proof and the sector size. */
    bool winning = in->kind == CZK_FIL_WINNING;
    post_impl *x = czk_calloc(1, sizeof *x);
    if (x == NULL) return czk_err_set(err, CZK_ENOMEM, "post: out of memory");
    j->impl = x;
    j->destroy_impl = post_destroy;
    j->synthesize = post_synthesize;
    czk_post_params *p = &x->params;
    czk_status s = czk_post_params_get(p, (czk_post_proof)in->registered_proof, err);
    if (s != CZK_OK) return s;
    if (in->randomness == NULL || in->randomness_len != 32)
        return czk_err_set(err, CZK_EINVAL, "randomness: %zu bytes, expected 32",
                           in->randomness ? in->randomness_len : 0);
    czk_fr rv;
    if (!czk_fr_from_bytes_le(&rv, in->randomness))
        return czk_err_set(err, CZK_ENONCANONICAL, "randomness is not a field element (not below r)");
    /* Vanilla proofs: Winning one sector of 66 challenges; Window up to sector_count
     * sectors of challenge_count challenges each. */
    size_t nvp = in->n_vanilla_proofs;
    size_t max = winning ? CZK_POST_WINNING_SECTOR_COUNT : p->sector_count;
    size_t per = winning ? CZK_POST_WINNING_CHALLENGE_COUNT : p->challenge_count;
    if (nvp == 0 || nvp > max)
        return czk_err_set(err, CZK_EINVAL, "vanilla_proofs: %zu sector proofs, %s takes 1..%zu",
                           nvp, j->circuit->id, max);
    if (in->vanilla_proofs == NULL || in->vanilla_proof_lens == NULL)
        return czk_err_set(err, CZK_EINVAL, "vanilla_proofs: missing");

    const size_t S = p->sector_count, CC = p->challenge_count;
    sector_in *sec = czk_calloc(nvp, sizeof *sec);
    czk_post_public_sector *pub = czk_calloc(S, sizeof *pub);
    x->paths = czk_calloc(S * CC, sizeof *x->paths);
    x->sectors = czk_calloc(S, sizeof *x->sectors);
    j->n_inputs = czk_post_num_inputs(p);
    j->inputs = czk_calloc(j->n_inputs, sizeof *j->inputs);
    if (sec == NULL || pub == NULL || x->paths == NULL || x->sectors == NULL || j->inputs == NULL) {
        s = czk_err_set(err, CZK_ENOMEM, "post: out of memory");
        goto out;
    }
    j->partitions = 1;
    for (size_t i = 0; i < nvp && s == CZK_OK; i++) {
        s = parse_sector(&sec[i], in->vanilla_proofs[i], in->vanilla_proof_lens[i], i, err);
        if (s == CZK_OK && sec[i].proof->ninclusion_proofs != per)
            s = czk_err_set(err, CZK_EINVAL,
                            "vanilla_proofs[%zu] (sector %llu): %zu inclusion proofs, expected %zu",
                            i, (unsigned long long)sec[i].id, sec[i].proof->ninclusion_proofs, per);
    }
    if (s != CZK_OK) goto out;
    /* The sector the request names, where it names one (proto3 cannot tell sector 0 from
     * none, so 0 is not checked): Winning's one sector, or one of a Window partition's. */
    if (in->sector_number != 0) {
        bool named = false;
        for (size_t i = 0; i < nvp; i++) named = named || sec[i].id == in->sector_number;
        if (!named) {
            s = czk_err_set(err, CZK_EMISMATCH,
                            "sector_number: %llu, but the vanilla proofs are of sector %llu%s",
                            (unsigned long long)in->sector_number, (unsigned long long)sec[0].id,
                            nvp > 1 ? " and others" : "");
            goto out;
        }
    }
    /* The circuit's sectors: Window's real ones, Winning's one sector repeated. */
    size_t nreal = winning ? S : nvp;
    for (size_t i = 0; i < nreal; i++) {
        const sector_in *v = &sec[winning ? 0 : i];
        pub[i].id = v->id;
        memcpy(pub[i].comm_r, v->comm_r, 32);
    }
    if ((s = czk_post_public_inputs(j->inputs, p, in->randomness, pub, nreal, 0, err)) != CZK_OK)
        goto out;
    const unsigned levels = czk_por_shape_levels(&p->tree);
    for (size_t slot = 0; slot < S && s == CZK_OK; slot++) {
        size_t src = slot < nreal ? slot : nreal - 1; /* a short partition repeats the last */
        const sector_in *v = &sec[winning ? 0 : src];
        czk_post_sector_witness *w = &x->sectors[slot];
        memcpy(w->comm_r, v->comm_r, 32);
        memcpy(w->comm_c, v->proof->comm_c, 32);
        memcpy(w->comm_r_last, v->proof->comm_r_last, 32);
        w->paths = &x->paths[slot * CC];
        for (size_t c = 0; c < CC && s == CZK_OK; c++) {
            size_t ip = winning ? src : c;
            const czk_vanilla_merkle_proof *mp = &v->proof->inclusion_proofs[ip];
            char name[96];
            snprintf(name, sizeof name, "vanilla_proofs[%zu] (sector %llu): inclusion_proofs[%zu]",
                     winning ? 0 : src, (unsigned long long)v->id, ip);
            czk_merkle_path *path = &x->paths[slot * CC + c];
            czk_err e;
            czk_err_clear(&e);
            uint64_t leaf = 0;
            s = czk_vanilla_to_path(mp, path, &leaf, &e);
            if (s != CZK_OK) {
                s = czk__fil_err_wrap(err, s, name, &e);
                break;
            }
            if (slot >= nreal) continue; /* a copy, checked as its original */
            if (path->levels != levels) {
                s = czk_err_set(err, CZK_EINVAL, "%s: path has %u levels, expected %u", name,
                                path->levels, levels);
                break;
            }
            if ((s = czk_vanilla_merkle_verify(mp, CZK_MERKLE_POSEIDON, v->proof->comm_r_last,
                                               name, &e)) != CZK_OK) {
                s = czk_err_set(err, s, "%s", e.msg);
                break;
            }
            /* The circuit's index input is the challenged leaf: the path must prove it. */
            czk_fr want;
            czk_fr_from_u64(&want, leaf);
            const czk_fr *input = &j->inputs[slot * (1 + CC) + 1 + c];
            if (!czk_fr_eq(&want, input)) {
                uint8_t b[32];
                czk_fr_to_bytes_le(b, input);
                s = czk_err_set(err, CZK_EVERIFY,
                                "%s: proves leaf %llu, but the randomness challenges leaf %llu", name,
                                (unsigned long long)leaf, (unsigned long long)le64(b));
            }
        }
    }
out:
    for (size_t i = 0; sec != NULL && i < nvp; i++) czk_post_sector_proof_free(sec[i].proof);
    czk_free(sec);
    czk_free(pub);
    return s;
}
