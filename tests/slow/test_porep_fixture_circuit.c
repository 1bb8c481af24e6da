/*
 * Slow tier: synthetic PoRep fixtures of the production sizes satisfy the PoRep circuit.
 * For StackedDrg32GiBV1_1 (tree 8-8-0: Sub proofs) and StackedDrg64GiBV1_1 (8-8-2: Top
 * proofs), one challenge of the fixture's last partition is synthesized in EVAL mode
 * with the production circuit reduced to one challenge (11 layers, about 7.2 M
 * constraints, 1 GiB of buffers) and every row must hold (a·b = c); a changed parent row
 * must break it. Before that, each fixture (and a StackedDrg64GiBV1 one: the legacy
 * graph) must pass czk_porep_c1_verify, challenges included. The unit tier checks the
 * same for 2 KiB and 8 MiB in full.
 */
#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "czk/cs.h"
#include "czk/porep.h"
#include "czk/porep_vanilla.h"
#include "czk/vanilla.h"
#include "czk_test.h"

static bool to_path(const czk_vanilla_merkle_proof *mp, czk_merkle_path *path)
{
    uint64_t leaf;
    czk_err err;
    return czk_vanilla_to_path(mp, path, &leaf, &err) == CZK_OK;
}

/* EVAL of one challenge: −1 when every row holds, the first bad row, or −2. */
static long eval_one(const czk_porep_c1_output *c1, const czk_porep_vanilla_proof *v,
                     czk_seal_proof proof, bool tamper)
{
    czk_err err;
    czk_porep_config cfg;
    CHECK_STATUS(czk_porep_config_for_proof(&cfg, proof, &err), CZK_OK);
    cfg.challenges = 1;
    czk_porep_challenge *c = czk_calloc(1, sizeof *c);
    czk_porep_witness w;
    memset(&w, 0, sizeof w);
    memcpy(w.replica_id, c1->replica_id, 32);
    memcpy(w.comm_d, c1->comm_d, 32);
    memcpy(w.comm_r, c1->comm_r, 32);
    memcpy(w.comm_r_last, v->comm_r_last_proof.root, 32);
    memcpy(w.comm_c, v->c_x.inclusion_proof.root, 32);
    c->challenge = v->labeling_proofs[0].node;
    memcpy(c->data_leaf, v->comm_d_proofs.leaf, 32);
    CHECK(to_path(&v->comm_d_proofs, &c->comm_d_path));
    CHECK(to_path(&v->comm_r_last_proof, &c->comm_r_last_path));
    CHECK(to_path(&v->c_x.inclusion_proof, &c->comm_c_path));
    for (unsigned l = 0; l < cfg.layers; l++) memcpy(c->c_x[l], v->c_x.rows[l], 32);
    for (unsigned j = 0; j < CZK_SDR_DEGREE; j++) {
        const czk_vanilla_column_proof *cp =
            j < CZK_SDR_DRG_DEGREE ? &v->drg_parents[j] : &v->exp_parents[j - CZK_SDR_DRG_DEGREE];
        czk_porep_column *pc = j < CZK_SDR_DRG_DEGREE ? &c->drg[j] : &c->exp[j - CZK_SDR_DRG_DEGREE];
        for (unsigned l = 0; l < cfg.layers; l++) memcpy(pc->rows[l], cp->rows[l], 32);
        CHECK(to_path(&cp->inclusion_proof, &pc->path));
    }
    if (tamper) c->exp[3].rows[4][9] ^= 1;
    w.challenges = c;
    czk_porep_circuit_ctx ctx = {cfg, &w}, blank = {cfg, NULL};

    czk_cs_config cc;
    memset(&cc, 0, sizeof cc);
    cc.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_cs_counts cnt;
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
    czk_porep_circuit(cs, &blank);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    czk_cs_get_counts(cs, &cnt);
    czk_cs_destroy(cs);

    size_t nc = cnt.n_constraints;
    czk_fr *z = czk_malloc((cnt.n_inputs + cnt.n_aux) * sizeof *z);
    czk_fr *abc = czk_malloc(3 * nc * sizeof *abc);
    long bad = -2;
    if (z && abc) {
        memset(&cc, 0, sizeof cc);
        cc.mode = CZK_CS_EVAL;
        cc.buf.inputs = z;
        cc.buf.inputs_cap = cnt.n_inputs;
        cc.buf.aux = z + cnt.n_inputs;
        cc.buf.aux_cap = cnt.n_aux;
        cc.buf.a = abc;
        cc.buf.b = abc + nc;
        cc.buf.c = abc + 2 * nc;
        cc.buf.rows_cap = nc;
        CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
        czk_status st = czk_porep_circuit(cs, &ctx);
        if (st == CZK_OK) st = czk_cs_finish(cs, &err);
        czk_cs_destroy(cs);
        if (st == CZK_OK) {
            bad = -1;
            for (size_t j = 0; j < nc; j++) {
                czk_fr ab;
                czk_fr_mul(&ab, &abc[j], &abc[nc + j]);
                if (!czk_fr_eq(&ab, &abc[2 * nc + j])) {
                    bad = (long)j;
                    break;
                }
            }
        }
        printf("  %s, one challenge: %zu constraints, first bad row %ld\n",
               czk_seal_proof_name(proof), nc, bad);
    }
    czk_free(abc);
    czk_free(z);
    czk_free(c);
    return bad;
}

static void test_production_fixtures(void)
{
    static const czk_seal_proof proofs[] = {CZK_SEAL_StackedDrg32GiBV1_1, CZK_SEAL_StackedDrg64GiBV1_1,
                                            CZK_SEAL_StackedDrg64GiBV1};
    for (size_t t = 0; t < 3; t++) {
        czk_err err;
        czk_porep_c1_output *c1 = NULL;
        CHECK_STATUS(czk_porep_fixture(&c1, proofs[t], czk_test_rand64(), NULL, &err), CZK_OK);
        if (!c1) continue;
        czk_status st = czk_porep_c1_verify(c1, proofs[t], 0, &err);
        CHECK_MSG(st == CZK_OK, "%s: %s", czk_seal_proof_name(proofs[t]), err.msg);
        if (t == 2) {
            czk_porep_c1_output_free(c1);
            continue;
        }
        const czk_porep_vanilla_proof *v = &c1->vanilla_proofs[c1->npartitions - 1][0];
        CHECK(eval_one(c1, v, proofs[t], false) == -1);
        if (t == 0) CHECK(eval_one(c1, v, proofs[t], true) >= 0);
        czk_porep_c1_output_free(c1);
    }
}

int main(void)
{
    czk_test_seed();
    RUN(test_production_fixtures);
    return czk_test_finish();
}
