/*
 * The Filecoin job layer (czk/fil_job.h): parameter file names against the published
 * parameters.json, circuit ids, and the rejection of bad requests with the right status
 * and a message naming the field, partition and challenge. Valid requests come from the
 * synthetic fixtures of czk/porep_vanilla.h, czk/snap_vanilla.h and czk/post_vanilla.h.
 */
#include "czk_test.h"

#include "czk/alloc.h"
#include "czk/fil_job.h"
#include "czk/porep_vanilla.h"
#include "czk/post_vanilla.h"
#include "czk/snap_vanilla.h"

/*
 * The published names: rust-fil-proofs parameters.json (commit 87348a74, the file every
 * Filecoin node downloads with `paramfetch`), whose entries give each file's sector size.
 * Window and Winning PoSt share a size and a prefix; which is which follows curio's cuzk
 * srs_manager.rs (WinningPost32G → 559e…, wpost-32g → 0377…) and, for the other sizes,
 * the FallbackPoSt identifiers (Window: 10 challenges over 2 / 2349 / 2300 sectors;
 * Winning: 1 challenge over 66 sectors).
 */
static const struct {
    const char *id;
    const char *name;
} published[] = {
    {"porep-2k", "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
                 "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f"},
    {"porep-8m", "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
                 "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb"},
    {"porep-512m", "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_"
                   "hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472"},
    {"porep-32g", "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
                  "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
    {"porep-64g", "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
                  "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2"},
    {"snap-2k", "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
                "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194"},
    {"snap-8m", "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
                "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63"},
    {"snap-512m", "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
                  "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c"},
    {"snap-32g", "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
                 "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18"},
    {"snap-64g", "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
                 "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7"},
    {"wpost-2k", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                 "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0"},
    {"wpost-8m", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                 "5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9"},
    {"wpost-512m", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                   "0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9"},
    {"wpost-32g", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
                  "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc"},
    {"wpost-64g", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
                  "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def"},
    {"winning-2k", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                   "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e"},
    {"winning-8m", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                   "50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331"},
    {"winning-512m", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                     "7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781"},
    {"winning-32g", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
                    "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e"},
    {"winning-64g", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
                    "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c"},
};

#define N_PUBLISHED (sizeof published / sizeof published[0])

static bool contains(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

/* Create a job expecting an error; the message must name every needle. */
static void expect_fail(const czk_fil_job_input *in, czk_status want, const char *n1,
                        const char *n2)
{
    czk_err e;
    czk_err_clear(&e);
    czk_fil_job *j = (czk_fil_job *)(uintptr_t)1;
    czk_status s = czk_fil_job_create(&j, in, &e);
    CHECK_MSG(s == want, "got %s (%s), expected %s", czk_status_name(s), e.msg,
              czk_status_name(want));
    CHECK(j == NULL);
    printf("    %s: %s\n", czk_status_name(s), e.msg);
    if (n1) CHECK_MSG(contains(e.msg, n1), "'%s' not in '%s'", n1, e.msg);
    if (n2) CHECK_MSG(contains(e.msg, n2), "'%s' not in '%s'", n2, e.msg);
    if (s == CZK_OK) czk_fil_job_destroy(j);
}

/* ------------------------------------------------------------------------------------ */

static void test_names(void)
{
    czk_err err;
    for (size_t i = 0; i < N_PUBLISHED; i++) {
        czk_fil_kind kind = 0;
        uint64_t rp = 99;
        const char *name = NULL;
        CHECK_STATUS(czk_fil_circuit_lookup(published[i].id, &kind, &rp, &name, &err), CZK_OK);
        CHECK_MSG(name != NULL && strcmp(name, published[i].name) == 0, "%s: %s", published[i].id,
                  name ? name : "(null)");
        const char *id = published[i].id;
        czk_fil_kind want = strncmp(id, "porep", 5) == 0   ? CZK_FIL_POREP
                            : strncmp(id, "snap", 4) == 0  ? CZK_FIL_SNAP
                            : strncmp(id, "wpost", 5) == 0 ? CZK_FIL_WPOST
                                                           : CZK_FIL_WINNING;
        CHECK(kind == want);
        /* cuzk's numbers: PoRep V1_1 (5..9), Update 0..4, Window V1_2 (Go V1_1, 10..14),
         * Winning 0..4, in size order. */
        uint64_t s = i % 5, want_rp = want == CZK_FIL_POREP   ? 5 + s
                                      : want == CZK_FIL_WPOST ? 10 + s
                                                              : s;
        CHECK_MSG(rp == want_rp, "%s: registered proof %llu", id, (unsigned long long)rp);
    }
    const char *name = NULL;
    CHECK_STATUS(czk_fil_circuit_lookup("porep-1t", NULL, NULL, &name, &err), CZK_EINVAL);
    CHECK(contains(err.msg, "porep-1t"));
    CHECK_STATUS(czk_fil_circuit_lookup(NULL, NULL, NULL, &name, &err), CZK_EINVAL);
}

/* Every circuit's input count is what its public inputs give, and shape synthesis works
 * for the small sizes (HASH-free COUNT mode). */
static void test_shapes(void)
{
    static const char *const ids[] = {"porep-2k", "snap-2k", "wpost-2k", "winning-2k"};
    static const uint64_t inputs[] = {40, 5, 2 * 11 + 1, 66 * 2 + 1};
    for (size_t i = 0; i < 4; i++) {
        czk_cs_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.mode = CZK_CS_COUNT;
        czk_cs *cs = NULL;
        czk_err err;
        CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
        CHECK_STATUS(czk_fil_circuit_synthesize_shape(ids[i], cs, &err), CZK_OK);
        CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
        czk_cs_counts c;
        czk_cs_get_counts(cs, &c);
        czk_cs_destroy(cs);
        CHECK_MSG(c.n_inputs == inputs[i], "%s: %llu inputs", ids[i],
                  (unsigned long long)c.n_inputs);
        printf("  %-10s %9llu constraints %9llu aux %4llu inputs\n", ids[i],
               (unsigned long long)c.n_constraints, (unsigned long long)c.n_aux,
               (unsigned long long)c.n_inputs);
    }
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_err err;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    CHECK_STATUS(czk_fil_circuit_synthesize_shape("snap-3k", cs, &err), CZK_EINVAL);
    czk_cs_destroy(cs);
}

/* ------------------------------------------------------------------------------------ */
/* PoRep                                                                                */
/* ------------------------------------------------------------------------------------ */

static uint8_t *fixture_json(czk_porep_c1_output *c1, size_t *len)
{
    uint8_t *json = NULL;
    czk_err err;
    CHECK_STATUS(czk_porep_c1_write_json(c1, &json, len, &err), CZK_OK);
    return json;
}

static void porep_input(czk_fil_job_input *in, const uint8_t *json, size_t len)
{
    memset(in, 0, sizeof *in);
    in->kind = CZK_FIL_POREP;
    in->registered_proof = CZK_SEAL_StackedDrg2KiBV1_1;
    in->vanilla_proof = json;
    in->vanilla_proof_len = len;
}

static void test_porep(void)
{
    czk_err err;
    czk_porep_c1_output *c1 = NULL;
    CHECK_STATUS(czk_porep_fixture(&c1, CZK_SEAL_StackedDrg2KiBV1_1, czk_test_rand64(), NULL, &err),
                 CZK_OK);
    if (c1 == NULL) return;
    size_t len = 0;
    uint8_t *json = fixture_json(c1, &len);
    czk_fil_job_input in;
    porep_input(&in, json, len);

    /* The valid request. */
    czk_fil_job *j = NULL;
    CHECK_STATUS(czk_fil_job_create(&j, &in, &err), CZK_OK);
    if (j != NULL) {
        CHECK(czk_fil_job_partitions(j) == 1);
        CHECK(strcmp(czk_fil_job_circuit_id(j), "porep-2k") == 0);
        CHECK(strcmp(czk_fil_job_params_name(j), published[0].name) == 0);
        czk_cs_counts c;
        czk_fil_job_counts(j, &c);
        CHECK(c.n_inputs == 40);
        czk_fr pub[39];
        size_t n = 0;
        CHECK_STATUS(czk_fil_job_public_inputs(j, 0, pub, 39, &n, &err), CZK_OK);
        CHECK(n == 39);
        czk_fr rid;
        CHECK(czk_fr_from_bytes_le(&rid, c1->replica_id));
        CHECK(czk_fr_eq(&pub[0], &rid));
        /* The challenge inputs are the fixture's challenges (labeling nodes). */
        czk_fr ch;
        czk_fr_from_u64(&ch, c1->vanilla_proofs[0][1].labeling_proofs[0].node);
        CHECK(czk_fr_eq(&pub[3 + 18], &ch));
        CHECK_STATUS(czk_fil_job_public_inputs(j, 0, pub, 38, &n, &err), CZK_EINVAL);
        CHECK_STATUS(czk_fil_job_public_inputs(j, 1, pub, 39, &n, &err), CZK_EINVAL);
        czk_fil_job_destroy(j);
    }

    /* The same C1 inside cuzk's envelope, and with a contradicting SectorSize. */
    uint8_t *env = NULL;
    size_t env_len = 0;
    CHECK_STATUS(czk_porep_envelope_encode(json, len, 7, 2048, &env, &env_len, &err), CZK_OK);
    czk_fil_job_input ein;
    porep_input(&ein, env, env_len);
    ein.sector_size = 2048;
    j = NULL;
    CHECK_STATUS(czk_fil_job_create(&j, &ein, &err), CZK_OK);
    czk_fil_job_destroy(j);
    czk_free(env);
    CHECK_STATUS(czk_porep_envelope_encode(json, len, 7, 8 << 20, &env, &env_len, &err), CZK_OK);
    porep_input(&ein, env, env_len);
    expect_fail(&ein, CZK_EINVAL, "SectorSize", NULL);
    czk_free(env);

    /* Garbage, truncated JSON, an empty request. */
    static const uint8_t garbage[] = "\x01\x02not json at all";
    porep_input(&ein, garbage, sizeof garbage - 1);
    expect_fail(&ein, CZK_EFORMAT, "vanilla_proof", NULL);
    porep_input(&ein, json, len / 2);
    expect_fail(&ein, CZK_EFORMAT, "vanilla_proof", NULL);
    porep_input(&ein, NULL, 0);
    expect_fail(&ein, CZK_EINVAL, "vanilla_proof", NULL);

    /* Registered proof: unknown, non-interactive, another size, contradicting size. */
    porep_input(&ein, json, len);
    ein.registered_proof = 99;
    expect_fail(&ein, CZK_EINVAL, "registered_proof", "99");
    ein.registered_proof = CZK_SEAL_StackedDrg2KiBV1_2_Feat_NonInteractivePoRep;
    expect_fail(&ein, CZK_EUNSUPPORTED, "registered_proof", NULL);
    ein.registered_proof = CZK_SEAL_StackedDrg8MiBV1_1;
    expect_fail(&ein, CZK_EINVAL, "registered_proof", NULL);
    ein.registered_proof = CZK_SEAL_StackedDrg2KiBV1_1;
    ein.sector_size = 8 << 20;
    expect_fail(&ein, CZK_EINVAL, "sector_size", NULL);

    /* A tampered challenge: the C1 stays self-consistent with another seed, but its
     * proofs answer the old seed's challenges. */
    uint8_t keep[32];
    memcpy(keep, c1->seed, 32);
    c1->seed[3] ^= 0x40;
    size_t tlen = 0;
    uint8_t *tjson = fixture_json(c1, &tlen);
    porep_input(&ein, tjson, tlen);
    /* (A 2 KiB sector has 64 nodes: a re-derived challenge can coincide with the old one,
     * so the first challenge named is not always challenge 0.) */
    expect_fail(&ein, CZK_EMISMATCH, "partition 0 challenge ", "give challenge");
    czk_free(tjson);
    memcpy(c1->seed, keep, 32);

    /* A tampered labeling node of challenge 1: named by the C1 checks. */
    c1->vanilla_proofs[0][1].labeling_proofs[1].node ^= 1;
    tjson = fixture_json(c1, &tlen);
    porep_input(&ein, tjson, tlen);
    expect_fail(&ein, CZK_EINVAL, "challenge 1", "labeling_proofs[1]");
    czk_free(tjson);
    c1->vanilla_proofs[0][1].labeling_proofs[1].node ^= 1;

    /* A data leaf that breaks its tree_d path. */
    c1->vanilla_proofs[0][0].comm_d_proofs.leaf[0] ^= 1;
    tjson = fixture_json(c1, &tlen);
    porep_input(&ein, tjson, tlen);
    expect_fail(&ein, CZK_EMISMATCH, "challenge 0", "comm_d_proofs");
    czk_free(tjson);
    c1->vanilla_proofs[0][0].comm_d_proofs.leaf[0] ^= 1;

    czk_free(json);
    czk_porep_c1_output_free(c1);
}

/* ------------------------------------------------------------------------------------ */
/* SnapDeals                                                                            */
/* ------------------------------------------------------------------------------------ */

static void test_snap(void)
{
    czk_err err;
    czk_snap_fixture *f = NULL;
    CHECK_STATUS(czk_snap_fixture_create(&f, 2048, czk_test_rand64(), &err), CZK_OK);
    if (f == NULL) return;
    CHECK(f->npartitions == 1);
    uint8_t *pb = NULL;
    size_t plen = 0;
    CHECK_STATUS(czk_snap_partition_proof_write(f->partitions[0], &pb, &plen, &err), CZK_OK);
    const uint8_t *vp[1] = {pb};
    size_t vl[1] = {plen};
    czk_fil_job_input in;
    memset(&in, 0, sizeof in);
    in.kind = CZK_FIL_SNAP;
    in.registered_proof = 0;
    in.vanilla_proofs = vp;
    in.vanilla_proof_lens = vl;
    in.n_vanilla_proofs = 1;
    in.comm_r_old = f->comms.comm_r_old;
    in.comm_r_new = f->comms.comm_r_new;
    in.comm_d_new = f->comms.comm_d_new;
    in.comm_r_old_len = in.comm_r_new_len = in.comm_d_new_len = 32;

    czk_fil_job *j = NULL;
    CHECK_STATUS(czk_fil_job_create(&j, &in, &err), CZK_OK);
    if (j != NULL) {
        CHECK(strcmp(czk_fil_job_circuit_id(j), "snap-2k") == 0);
        CHECK(strcmp(czk_fil_job_params_name(j), published[5].name) == 0);
        czk_fr pub[4];
        size_t n = 0;
        CHECK_STATUS(czk_fil_job_public_inputs(j, 0, pub, 4, &n, &err), CZK_OK);
        CHECK(n == 4);
        /* k = 0 and h_select = 1: at 2 KiB every allowed h is 1 (hs = [1; 6]), and
         * h_select is 2 to the first index of h in hs (docs/formats.md §6.1). */
        czk_fr khs;
        czk_fr_from_u64(&khs, 1);
        CHECK(czk_fr_eq(&pub[0], &khs));
        czk_fil_job_destroy(j);
    }

    czk_fil_job_input b = in;
    b.registered_proof = 5;
    expect_fail(&b, CZK_EINVAL, "registered_proof", NULL);
    b = in;
    b.sector_size = 4096;
    expect_fail(&b, CZK_EINVAL, "sector_size", NULL);
    b = in;
    b.comm_r_old_len = 31;
    expect_fail(&b, CZK_EINVAL, "comm_r_old", "31");
    b = in;
    b.comm_d_new = NULL;
    expect_fail(&b, CZK_EINVAL, "comm_d_new", NULL);
    uint8_t big[32];
    memset(big, 0xff, 32);
    b = in;
    b.comm_r_new = big;
    expect_fail(&b, CZK_ENONCANONICAL, "comm_r_new", NULL);
    b = in;
    b.n_vanilla_proofs = 0;
    expect_fail(&b, CZK_EINVAL, "vanilla_proofs", NULL);
    /* Truncated and garbage bincode. */
    size_t short_len[1] = {plen - 5};
    b = in;
    b.vanilla_proof_lens = short_len;
    expect_fail(&b, CZK_ETRUNCATED, "vanilla_proofs[0]", NULL);
    /* Another update's commitments: each is named as the request's field, a client fault
     * (EMISMATCH), before any path that fails to reach it. */
    uint8_t other[32];
    memcpy(other, f->comms.comm_r_new, 32);
    other[0] ^= 1;
    b = in;
    b.comm_r_new = other;
    expect_fail(&b, CZK_EMISMATCH, "comm_r_new: not Poseidon2", NULL);
    memcpy(other, f->comms.comm_r_old, 32);
    other[0] ^= 1;
    b = in;
    b.comm_r_old = other;
    expect_fail(&b, CZK_EMISMATCH, "comm_r_old: not Poseidon2", NULL);
    memcpy(other, f->comms.comm_d_new, 32);
    other[0] ^= 1;
    b = in;
    b.comm_d_new = other;
    expect_fail(&b, CZK_EMISMATCH, "comm_d_new: not the TreeDNew root", NULL);
    /* A tampered TreeRNew leaf in challenge 3. */
    czk_snap_challenge_proof *cp = &f->partitions[0]->challenge_proofs[3];
    cp->proof_r_new.leaf[1] ^= 2;
    uint8_t *tb = NULL;
    size_t tlen = 0;
    CHECK_STATUS(czk_snap_partition_proof_write(f->partitions[0], &tb, &tlen, &err), CZK_OK);
    const uint8_t *tvp[1] = {tb};
    size_t tvl[1] = {tlen};
    b = in;
    b.vanilla_proofs = tvp;
    b.vanilla_proof_lens = tvl;
    expect_fail(&b, CZK_EMISMATCH, "challenge 3", "proof_r_new");
    cp->proof_r_new.leaf[1] ^= 2;
    czk_free(tb);
    czk_free(pb);
    czk_snap_fixture_destroy(f);
}

/* ------------------------------------------------------------------------------------ */
/* PoSt                                                                                 */
/* ------------------------------------------------------------------------------------ */

typedef struct post_req {
    czk_post_fixture *f;
    uint8_t **bufs;
    size_t *lens;
    czk_fil_job_input in;
} post_req;

static bool post_req_make(post_req *r, czk_post_proof proof, size_t nsectors)
{
    czk_err err;
    memset(r, 0, sizeof *r);
    CHECK_STATUS(czk_post_fixture_create(&r->f, proof, czk_test_rand64(), nsectors, &err), CZK_OK);
    if (r->f == NULL) return false;
    r->bufs = czk_calloc(r->f->nsectors, sizeof *r->bufs);
    r->lens = czk_calloc(r->f->nsectors, sizeof *r->lens);
    for (size_t i = 0; i < r->f->nsectors; i++)
        CHECK_STATUS(czk_post_fallback_proof_write(r->f->sectors[i].id, r->f->sectors[i].comm_r,
                                                   r->f->proofs[i], &r->bufs[i], &r->lens[i], &err),
                     CZK_OK);
    r->in.kind = r->f->winning ? CZK_FIL_WINNING : CZK_FIL_WPOST;
    r->in.registered_proof = proof;
    r->in.vanilla_proofs = (const uint8_t *const *)r->bufs;
    r->in.vanilla_proof_lens = r->lens;
    r->in.n_vanilla_proofs = r->f->nsectors;
    r->in.randomness = r->f->randomness;
    r->in.randomness_len = 32;
    r->in.miner_id = r->f->miner_id;
    return true;
}

static void post_req_free(post_req *r)
{
    for (size_t i = 0; r->f != NULL && i < r->f->nsectors; i++) czk_free(r->bufs[i]);
    czk_free(r->bufs);
    czk_free(r->lens);
    czk_post_fixture_destroy(r->f);
}

static void test_post(void)
{
    czk_err err;
    post_req r;
    /* Window PoSt 2 KiB, one sector of a two-sector partition (the circuit repeats it). */
    if (post_req_make(&r, CZK_POST_StackedDrgWindow2KiBV1_2, 1)) {
        czk_fil_job *j = NULL;
        CHECK_STATUS(czk_fil_job_create(&j, &r.in, &err), CZK_OK);
        if (j != NULL) {
            CHECK(strcmp(czk_fil_job_circuit_id(j), "wpost-2k") == 0);
            CHECK(czk_fil_job_partitions(j) == 1);
            czk_fr pub[22];
            size_t n = 0;
            CHECK_STATUS(czk_fil_job_public_inputs(j, 0, pub, 22, &n, &err), CZK_OK);
            CHECK(n == 22);
            CHECK(memcmp(&pub[0], &pub[11], 11 * sizeof pub[0]) == 0);
            czk_fil_job_destroy(j);
        }
        czk_fil_job_input b = r.in;
        b.kind = CZK_FIL_WINNING;
        expect_fail(&b, CZK_EINVAL, "registered_proof", "Winning");
        b = r.in;
        b.registered_proof = 77;
        expect_fail(&b, CZK_EINVAL, "registered_proof", NULL);
        b = r.in;
        b.randomness_len = 31;
        expect_fail(&b, CZK_EINVAL, "randomness", NULL);
        b = r.in;
        b.sector_size = 8 << 20;
        expect_fail(&b, CZK_EINVAL, "sector_size", NULL);
        /* Other randomness: the challenged leaves are not the proofs'. A 2 KiB sector has
         * 64 leaves, so a re-derived challenge can coincide with the proof's and the first
         * one that differs (not always [0]) is named. */
        uint8_t rnd[32];
        memcpy(rnd, r.f->randomness, 32);
        rnd[5] ^= 1;
        b = r.in;
        b.randomness = rnd;
        expect_fail(&b, CZK_EMISMATCH, "inclusion_proofs[", "but the randomness challenges leaf");
        /* Truncated bincode, and too many sectors. */
        size_t l2[1] = {r.lens[0] - 1};
        b = r.in;
        b.vanilla_proof_lens = l2;
        expect_fail(&b, CZK_ETRUNCATED, "vanilla_proofs[0]", NULL);
        const uint8_t *three[3] = {r.bufs[0], r.bufs[0], r.bufs[0]};
        size_t l3[3] = {r.lens[0], r.lens[0], r.lens[0]};
        b = r.in;
        b.vanilla_proofs = three;
        b.vanilla_proof_lens = l3;
        b.n_vanilla_proofs = 3;
        expect_fail(&b, CZK_EINVAL, "vanilla_proofs", "3");
        /* A comm_r that is not the sector's. */
        r.bufs[0][8] ^= 1;
        expect_fail(&r.in, CZK_EMISMATCH, "comm_r", NULL);
        r.bufs[0][8] ^= 1;
        post_req_free(&r);
    }
    /* Winning PoSt 2 KiB. */
    if (post_req_make(&r, CZK_POST_StackedDrgWinning2KiBV1, 4)) {
        czk_fil_job *j = NULL;
        CHECK_STATUS(czk_fil_job_create(&j, &r.in, &err), CZK_OK);
        if (j != NULL) {
            CHECK(strcmp(czk_fil_job_circuit_id(j), "winning-2k") == 0);
            czk_cs_counts c;
            czk_fil_job_counts(j, &c);
            CHECK(c.n_inputs == 133);
            czk_fil_job_destroy(j);
        }
        czk_fil_job_input b = r.in;
        b.kind = CZK_FIL_WPOST;
        expect_fail(&b, CZK_EINVAL, "registered_proof", "Window");
        post_req_free(&r);
    }
    /* Not a kind at all. */
    czk_fil_job_input none;
    memset(&none, 0, sizeof none);
    none.kind = (czk_fil_kind)9;
    expect_fail(&none, CZK_EINVAL, "proof_kind", NULL);
}

int main(void)
{
    czk_test_seed();
    RUN(test_names);
    RUN(test_shapes);
    RUN(test_porep);
    RUN(test_snap);
    RUN(test_post);
    return czk_test_finish();
}
