/*
 * A Filecoin job through the engine: a synthetic Winning PoSt 2 KiB (helper B's fixture,
 * bincode vanilla proof as cuzk's clients send it), czk TEST parameters for the circuit
 * (czk_fil_test_params_generate, cached in the build tree), submit → synthesis into the
 * pinned buffers (EVAL mode) → CPU prover → self-verification → proof. The returned proof
 * is verified here with the generated .vk file read from disk and public inputs computed by
 * a separate czk_fil_job of the same request; a tampered vanilla proof is refused at submit.
 * Then the same job with the engine's test_params and no parameter files at all, and the
 * job at NORMAL priority with gpus.pack_copies: a Winning PoSt's rows are Poseidon's, more
 * than half of every vector neither 0 nor 1, so none is packed (the gpu_end note says
 * packed=0 where there is a GPU) and the proof is the same as without; then at its
 * default priority, through the express lane, on the same engine.
 */
#include "czk/alloc.h"
#include "czk/engine.h"
#include "czk/gpu.h"
#include "czk/fil_job.h"
#include "czk/groth16.h"
#include "czk/log.h"
#include "czk/post.h"
#include "czk/snap_post_vanilla.h"
#include "czk_test.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

/* The gpu_end events of a job: how many, and how many with no vector packed. */
typedef struct pack_rec {
    pthread_mutex_t mu;
    int gpu_ends, packed0;
} pack_rec;

static void on_gpu_end(void *ctx, const czk_job_event *ev)
{
    pack_rec *r = ctx;
    pthread_mutex_lock(&r->mu);
    if (ev->type == CZK_EV_GPU_END) {
        r->gpu_ends++;
        if (strstr(ev->message, "packed=0 ") != NULL) r->packed0++;
    }
    pthread_mutex_unlock(&r->mu);
}

/* packed: the job at NORMAL priority (through a pinned buffer, not the express lane's
 * heap one) with gpus.pack_copies on. */
static void winning_2k(bool packed)
{
    czk_err err;
    char param_dir[512], data_dir[512];
    /* CZK_TEST_PARAMS shares generated parameters between build trees (sanitizer builds). */
    const char *pd = getenv("CZK_TEST_PARAMS");
    snprintf(param_dir, sizeof param_dir, "%s", pd ? pd : CZK_BINARY_DIR "/test-params");
    snprintf(data_dir, sizeof data_dir, "/tmp/czk-test-engine-fil-%d", (int)getpid());
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 2, &err), CZK_OK);
    bool generated = false;
    czk_status st = czk_fil_test_params_generate("winning-2k", param_dir, false, pool, NULL, NULL,
                                                 &generated, &err);
    CHECK_MSG(st == CZK_OK, "test parameters: %s", err.msg);
    if (st != CZK_OK) {
        czk_pool_destroy(pool);
        return;
    }
    czk_post_fixture *f = NULL;
    st = czk_post_fixture_create(&f, CZK_POST_StackedDrgWinning2KiBV1, czk_test_rand64(), 1, &err);
    CHECK_MSG(st == CZK_OK, "fixture: %s", err.msg);
    if (st != CZK_OK) {
        czk_pool_destroy(pool);
        return;
    }
    uint8_t *vp = NULL;
    size_t vl = 0;
    CHECK_STATUS(czk_post_fallback_proof_write(f->sectors[0].id, f->sectors[0].comm_r,
                                               f->proofs[0], &vp, &vl, &err),
                 CZK_OK);

    czk_job_request req;
    memset(&req, 0, sizeof req);
    req.kind = CZK_JOB_WINNING;
    req.registered_proof = CZK_POST_StackedDrgWinning2KiBV1;
    const uint8_t *vps[1] = {vp};
    size_t vls[1] = {vl};
    req.vanilla_proofs = vps;
    req.vanilla_proof_lens = vls;
    req.n_vanilla_proofs = 1;
    req.miner_id = f->miner_id;
    req.randomness = f->randomness;
    req.randomness_len = 32;
    if (packed) req.priority = CZK_PRIO_NORMAL;

    czk_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.data_dir = data_dir;
    cfg.param_dir = param_dir;
    cfg.gpu_mode = czk_gpu_count() > 0 ? 2 : 1; /* the GPU path where there is one */
    cfg.synthesis_threads = 2;
    cfg.gpu_pack_copies = packed;
    czk_engine *e = NULL;
    CHECK_STATUS(czk_engine_create(&e, &cfg, &err), CZK_OK);
    if (e == NULL) goto out;
    czk_job_info info;
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    /* CRITICAL: Winning's default */
    CHECK(info.priority == (packed ? CZK_PRIO_NORMAL : CZK_PRIO_CRITICAL));
    CHECK(strcmp(info.circuit_id, "winning-2k") == 0);
    CHECK(info.partitions == 1);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 300000, &info, &err), CZK_OK);
    CHECK_MSG(info.state == CZK_JOB_DONE, "state %s: %s", czk_job_state_name(info.state),
              info.error_message);
    CHECK_MSG(strcmp(info.assigned_gpu, czk_gpu_count() > 0 ? "gpu0" : "cpu") == 0,
              "proved on %s", info.assigned_gpu);
    if (packed && czk_gpu_count() > 0) {
        /* Every vector too dense to pack (b, the sparsest, is 73 % values): all plain. The
         * packing of mostly-0/1 vectors is test_engine's test_gpu_packed. */
        pack_rec rec;
        memset(&rec, 0, sizeof rec);
        pthread_mutex_init(&rec.mu, NULL);
        uint64_t wh = 0;
        CHECK_STATUS(czk_engine_watch(e, info.job_id, on_gpu_end, &rec, &wh, &err), CZK_OK);
        czk_engine_unwatch(e, wh);
        CHECK_MSG(rec.gpu_ends == 1 && rec.packed0 == 1, "%d gpu_end events, %d with packed=0",
                  rec.gpu_ends, rec.packed0);
        pthread_mutex_destroy(&rec.mu);
    }
    if (info.state == CZK_JOB_DONE) {
        /* Verify with the .vk from disk and inputs from a separate job object. */
        czk_fil_job_input in;
        memset(&in, 0, sizeof in);
        in.kind = CZK_FIL_WINNING;
        in.registered_proof = req.registered_proof;
        in.vanilla_proofs = vps;
        in.vanilla_proof_lens = vls;
        in.n_vanilla_proofs = 1;
        in.miner_id = req.miner_id;
        in.randomness = req.randomness;
        in.randomness_len = 32;
        czk_fil_job *fj = NULL;
        CHECK_STATUS(czk_fil_job_create(&fj, &in, &err), CZK_OK);
        char vk_path[700];
        snprintf(vk_path, sizeof vk_path, "%s/%s.vk", param_dir, czk_fil_job_params_name(fj));
        czk_groth16_vk vk;
        CHECK_STATUS(czk_groth16_vk_read_file(&vk, vk_path, &err), CZK_OK);
        size_t npub = vk.ic_len - 1, got = 0;
        czk_fr *pub = czk_malloc(npub * sizeof *pub);
        CHECK_STATUS(czk_fil_job_public_inputs(fj, 0, pub, npub, &got, &err), CZK_OK);
        CHECK(got == npub);
        czk_groth16_proof proof;
        CHECK(info.proof_len == CZK_GROTH16_PROOF_SIZE);
        CHECK_STATUS(czk_groth16_proof_read(&proof, info.proof, &err), CZK_OK);
        czk_groth16_pvk pvk;
        czk_groth16_prepare_vk(&pvk, &vk);
        CHECK_STATUS(czk_groth16_verify(&pvk, &proof, pub, npub, &err), CZK_OK);
        /* And not for other inputs. */
        czk_fr_add(&pub[0], &pub[0], &CZK_FR_ONE);
        CHECK_STATUS(czk_groth16_verify(&pvk, &proof, pub, npub, &err), CZK_EVERIFY);
        czk_free(pub);
        czk_groth16_vk_free(&vk);
        czk_fil_job_destroy(fj);
    }
    czk_job_info_clear(&info);
    if (packed) {
        /* The same job at its default priority takes the express lane (ordinary memory,
         * never packed, so reserved without the pack area) on the same engine. */
        req.priority = CZK_PRIO_CRITICAL;
        CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
        CHECK_STATUS(czk_engine_await(e, info.job_id, 300000, &info, &err), CZK_OK);
        CHECK_MSG(info.state == CZK_JOB_DONE, "express: state %s: %s",
                  czk_job_state_name(info.state), info.error_message);
        /* Either of the GPU's provers may take it; what matters is that the partition,
         * admitted into a heap buffer without the pack area, proves. */
        CHECK_MSG(strncmp(info.assigned_gpu, czk_gpu_count() > 0 ? "gpu0" : "cpu", 3) == 0,
                  "express: proved on %s", info.assigned_gpu);
        czk_job_info_clear(&info);
        req.priority = CZK_PRIO_NORMAL;
    }

    /* A vanilla proof with a flipped byte in a Merkle path: refused at submit. */
    uint8_t *bad = czk_malloc(vl);
    memcpy(bad, vp, vl);
    bad[vl - 40] ^= 0x55;
    vps[0] = bad;
    st = czk_engine_submit(e, &req, &info, &err);
    CHECK_MSG(st != CZK_OK && strstr(err.msg, "vanilla_proofs") != NULL, "%s: %s",
              czk_status_name(st), err.msg);
    czk_free(bad);
    czk_engine_destroy(e);
out:
    czk_free(vp);
    czk_post_fixture_destroy(f);
    czk_pool_destroy(pool);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", data_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", data_dir);
}

static void test_winning_2k(void) { winning_2k(false); }

static void test_winning_2k_packed(void) { winning_2k(true); }

/*
 * params.test_generate: no parameter files at all; the engine makes winning-2k's test
 * parameters in memory (on the GPU when there is one), writes only the .vk and .meta, and
 * proves; the proof verifies with the .vk from disk. (That these are the seeded keys
 * czk_fil_test_params_generate writes is test_setup_stream's.) Without test_generate the
 * same submission is refused for the missing file.
 */
static void test_winning_2k_in_memory(void)
{
    czk_err err;
    char root[256], param_dir[300], data_dir[300], data_dir2[300];
    snprintf(root, sizeof root, "/tmp/czk-test-engine-fil-mem-%d", (int)getpid());
    snprintf(param_dir, sizeof param_dir, "%s/params", root);
    snprintf(data_dir, sizeof data_dir, "%s/data", root);
    snprintf(data_dir2, sizeof data_dir2, "%s/data2", root);
    CHECK(mkdir(root, 0755) == 0 && mkdir(param_dir, 0755) == 0);
    czk_post_fixture *f = NULL;
    CHECK_STATUS(czk_post_fixture_create(&f, CZK_POST_StackedDrgWinning2KiBV1, czk_test_rand64(),
                                         1, &err),
                 CZK_OK);
    if (f == NULL) return;
    uint8_t *vp = NULL;
    size_t vl = 0;
    CHECK_STATUS(czk_post_fallback_proof_write(f->sectors[0].id, f->sectors[0].comm_r,
                                               f->proofs[0], &vp, &vl, &err),
                 CZK_OK);
    const uint8_t *vps[1] = {vp};
    size_t vls[1] = {vl};
    czk_job_request req;
    memset(&req, 0, sizeof req);
    req.kind = CZK_JOB_WINNING;
    req.registered_proof = CZK_POST_StackedDrgWinning2KiBV1;
    req.vanilla_proofs = vps;
    req.vanilla_proof_lens = vls;
    req.n_vanilla_proofs = 1;
    req.miner_id = f->miner_id;
    req.randomness = f->randomness;
    req.randomness_len = 32;

    czk_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.data_dir = data_dir2;
    cfg.param_dir = param_dir;
    cfg.gpu_mode = 1;
    cfg.synthesis_threads = 2;
    czk_engine *e = NULL;
    czk_job_info info;
    CHECK_STATUS(czk_engine_create(&e, &cfg, &err), CZK_OK);
    if (e != NULL) {
        CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_ENOENT);
        CHECK_MSG(strstr(err.msg, ".params") != NULL, "%s", err.msg);
        czk_engine_destroy(e);
        e = NULL;
    }

    cfg.data_dir = data_dir;
    cfg.test_params = true;
    cfg.gpu_mode = czk_gpu_count() > 0 ? 2 : 1;
    CHECK_STATUS(czk_engine_create(&e, &cfg, &err), CZK_OK);
    if (e == NULL) goto out;
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 300000, &info, &err), CZK_OK);
    CHECK_MSG(info.state == CZK_JOB_DONE, "state %s: %s", czk_job_state_name(info.state),
              info.error_message);
    {
        czk_fil_kind kind;
        uint64_t rp;
        const char *name = NULL;
        CHECK_STATUS(czk_fil_circuit_lookup("winning-2k", &kind, &rp, &name, &err), CZK_OK);
        char pp[600], vkp[600], mp[600];
        snprintf(pp, sizeof pp, "%s/%s.params", param_dir, name);
        snprintf(vkp, sizeof vkp, "%s/%s.vk", param_dir, name);
        snprintf(mp, sizeof mp, "%s/%s.meta", param_dir, name);
        struct stat sb;
        CHECK_MSG(stat(pp, &sb) != 0, "%s was written", pp);
        CHECK_MSG(stat(mp, &sb) == 0, "%s missing", mp);
        czk_groth16_vk vk;
        memset(&vk, 0, sizeof vk);
        CHECK_STATUS(czk_groth16_vk_read_file(&vk, vkp, &err), CZK_OK);
        czk_fil_job_input in;
        memset(&in, 0, sizeof in);
        in.kind = CZK_FIL_WINNING;
        in.registered_proof = req.registered_proof;
        in.vanilla_proofs = vps;
        in.vanilla_proof_lens = vls;
        in.n_vanilla_proofs = 1;
        in.miner_id = req.miner_id;
        in.randomness = req.randomness;
        in.randomness_len = 32;
        czk_fil_job *fj = NULL;
        CHECK_STATUS(czk_fil_job_create(&fj, &in, &err), CZK_OK);
        size_t npub = vk.ic_len - 1, got = 0;
        czk_fr *pub = czk_malloc(npub * sizeof *pub);
        CHECK_STATUS(czk_fil_job_public_inputs(fj, 0, pub, npub, &got, &err), CZK_OK);
        czk_groth16_proof proof;
        CHECK_STATUS(czk_groth16_proof_read(&proof, info.proof, &err), CZK_OK);
        czk_groth16_pvk pvk;
        czk_groth16_prepare_vk(&pvk, &vk);
        CHECK_STATUS(czk_groth16_verify(&pvk, &proof, pub, npub, &err), CZK_OK);
        czk_free(pub);
        czk_fil_job_destroy(fj);
        czk_groth16_vk_free(&vk);
    }
    czk_job_info_clear(&info);
    czk_engine_destroy(e);
out:
    czk_free(vp);
    czk_post_fixture_destroy(f);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
}

int main(void)
{
    czk_test_seed();
    czk_log_set_level(CZK_LOG_ERROR);
    RUN(test_winning_2k);
    RUN(test_winning_2k_in_memory);
    RUN(test_winning_2k_packed);
    return czk_test_finish();
}
