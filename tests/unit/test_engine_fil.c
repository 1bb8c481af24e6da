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
 * default priority, through the express lane, on the same engine. Damaged .params files
 * fail their jobs by name while other circuits prove; with a GPU, memory another process
 * holds is left out of the plan, and a gpus.memory_limit below the minimum is refused.
 */
#include "czk/alloc.h"
#include "czk/engine.h"
#include "czk/gpu.h"
#include "czk/fil_job.h"
#include "czk/groth16.h"
#include "czk/log.h"
#include "czk/post.h"
#include "czk/post_vanilla.h"
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

/* A Winning PoSt 2 KiB job: a synthetic sector's vanilla proof (bincode, as cuzk's
 * clients send it) and the request naming it, at the kind's default priority. */
typedef struct winning_job {
    czk_post_fixture *f;
    uint8_t *vp;
    size_t vl;
    const uint8_t *vps[1];
    size_t vls[1];
    czk_job_request req;
} winning_job;

static bool winning_job_make(winning_job *w)
{
    czk_err err;
    memset(w, 0, sizeof *w);
    czk_status st = czk_post_fixture_create(&w->f, CZK_POST_StackedDrgWinning2KiBV1,
                                            czk_test_rand64(), 1, &err);
    CHECK_MSG(st == CZK_OK, "fixture: %s", err.msg);
    if (st != CZK_OK) return false;
    CHECK_STATUS(czk_post_fallback_proof_write(w->f->sectors[0].id, w->f->sectors[0].comm_r,
                                               w->f->proofs[0], &w->vp, &w->vl, &err),
                 CZK_OK);
    w->vps[0] = w->vp;
    w->vls[0] = w->vl;
    czk_job_request *r = &w->req;
    r->kind = CZK_JOB_WINNING;
    r->registered_proof = CZK_POST_StackedDrgWinning2KiBV1;
    r->vanilla_proofs = w->vps;
    r->vanilla_proof_lens = w->vls;
    r->n_vanilla_proofs = 1;
    r->miner_id = w->f->miner_id;
    r->randomness = w->f->randomness;
    r->randomness_len = 32;
    return true;
}

static void winning_job_free(winning_job *w)
{
    czk_free(w->vp);
    czk_post_fixture_destroy(w->f);
    memset(w, 0, sizeof *w);
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
    winning_job w;
    if (!winning_job_make(&w)) {
        czk_pool_destroy(pool);
        return;
    }
    czk_job_request req = w.req;
    const uint8_t **vps = w.vps;
    size_t *vls = w.vls, vl = w.vl;
    uint8_t *vp = w.vp;
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
    /* At CRITICAL, the express lane's prover; at NORMAL, an ordinary one. */
    const char *prover = czk_gpu_count() == 0 ? (packed ? "cpu" : "cpu-express")
                         : packed ? "gpu0" : "gpu0-express";
    CHECK_MSG(strcmp(info.assigned_gpu, prover) == 0, "proved on %s, not %s", info.assigned_gpu,
              prover);
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
        /* Admitted into a heap buffer without the pack area, and proved by the express
         * lane's prover, which alone takes such partitions where it exists. */
        CHECK_MSG(strcmp(info.assigned_gpu, czk_gpu_count() > 0 ? "gpu0-express" : "cpu-express") == 0,
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
    winning_job_free(&w);
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
    winning_job w;
    if (!winning_job_make(&w)) return;
    const czk_job_request req = w.req;
    const uint8_t **vps = w.vps;
    size_t *vls = w.vls;

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
    winning_job_free(&w);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
}

/* A circom circuit of squares: x, x^2, x^4, ... (one public input, `n` rows), its zkey in
 * dir/NAME.zkey and its witness's .wtns bytes. */
static uint8_t *squares_circuit(const char *dir, const char *name, uint32_t n, size_t *wl)
{
    czk_r1cs r;
    czk_err err;
    CHECK_STATUS(czk_r1cs_alloc(&r, 2, n, n, n, n, n, &err), CZK_OK);
    r.has_c = true;
    czk_fr *z = czk_malloc((size_t)(n + 2) * sizeof *z);
    z[0] = CZK_FR_ONE;
    czk_fr_from_u64(&z[1], 3 + czk_test_rand64() % 1000);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t in = j + 1, out = j + 2;
        czk_fr_sqr(&z[out], &z[in]);
        r.a.row_ptr[j] = r.b.row_ptr[j] = r.c.row_ptr[j] = j;
        r.a.col[j] = r.b.col[j] = in;
        r.c.col[j] = out;
        r.a.val[j] = r.b.val[j] = r.c.val[j] = CZK_FR_ONE;
    }
    r.a.row_ptr[n] = r.b.row_ptr[n] = r.c.row_ptr[n] = n;
    r.a.nnz = r.b.nnz = r.c.nnz = n;
    char path[700];
    snprintf(path, sizeof path, "%s/%s.zkey", dir, name);
    czk_groth16_vk vk;
    CHECK_STATUS(czk_groth16_setup_zkey(path, &r, &vk, NULL, NULL, NULL, &err), CZK_OK);
    czk_groth16_vk_free(&vk);
    snprintf(path, sizeof path, "%s/%s.wtns", dir, name);
    CHECK_STATUS(czk_wtns_write_file(z, n + 2, path, &err), CZK_OK);
    FILE *f = fopen(path, "rb");
    uint8_t *w = NULL;
    *wl = 0;
    if (f != NULL) {
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        w = czk_malloc((size_t)len);
        if (fread(w, 1, (size_t)len, f) == (size_t)len) *wl = (size_t)len;
        fclose(f);
    }
    unlink(path);
    czk_free(z);
    czk_r1cs_free(&r);
    return w;
}

/* Offsets in a .params image: each section's u32 length prefix (file order h, l, a, b_g1,
 * b_g2), parsed here from the format (specs: the VK, then length-prefixed sections). */
static void params_offsets(const uint8_t *img, size_t n, size_t off[5], uint32_t len[5])
{
    size_t o = 864;
    uint32_t ic = (uint32_t)img[o] << 24 | (uint32_t)img[o + 1] << 16 | (uint32_t)img[o + 2] << 8 |
                  img[o + 3];
    o = 868 + 96 * (size_t)ic;
    for (int k = 0; k < 5 && o + 4 <= n; k++) {
        off[k] = o;
        len[k] = (uint32_t)img[o] << 24 | (uint32_t)img[o + 1] << 16 |
                 (uint32_t)img[o + 2] << 8 | img[o + 3];
        o += 4 + (size_t)len[k] * (k == 4 ? 192 : 96);
    }
    CHECK(o == n);
}

/*
 * A damaged .params file (cut short, a point off the curve, a section length that
 * disagrees with the file's size) fails its job with the file, the section and the point named,
 * each time it is tried, and the daemon keeps proving other circuits meanwhile; put back,
 * the same file loads and proves.
 */
static void test_corrupt_params(void)
{
    czk_err err;
    char root[256], param_dir[300], data_dir[300], good[600], path[700];
    snprintf(root, sizeof root, "/tmp/czk-test-engine-fil-bad-%d", (int)getpid());
    snprintf(param_dir, sizeof param_dir, "%s/params", root);
    snprintf(data_dir, sizeof data_dir, "%s/data", root);
    CHECK(mkdir(root, 0755) == 0 && mkdir(param_dir, 0755) == 0);
    const char *pd = getenv("CZK_TEST_PARAMS");
    snprintf(good, sizeof good, "%s", pd ? pd : CZK_BINARY_DIR "/test-params");
    czk_pool *pool = NULL;
    CHECK_STATUS(czk_pool_create(&pool, 2, &err), CZK_OK);
    bool generated = false;
    CHECK_STATUS(czk_fil_test_params_generate("winning-2k", good, false, pool, NULL, NULL,
                                              &generated, &err),
                 CZK_OK);
    czk_fil_kind kind;
    uint64_t rp;
    const char *name = NULL;
    CHECK_STATUS(czk_fil_circuit_lookup("winning-2k", &kind, &rp, &name, &err), CZK_OK);
    /* The good file's bytes, and its .vk beside the copies. */
    char src[700];
    snprintf(src, sizeof src, "%s/%s.params", good, name);
    FILE *f = fopen(src, "rb");
    CHECK(f != NULL);
    if (f == NULL) goto out0;
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *img = czk_malloc(n), *bad = czk_malloc(n);
    CHECK(fread(img, 1, n, f) == n);
    fclose(f);
    size_t off[5] = {0};
    uint32_t len[5] = {0};
    params_offsets(img, n, off, len);
    snprintf(path, sizeof path, "%s/%s.params", param_dir, name);

    size_t wl = 0;
    uint8_t *w = squares_circuit(param_dir, "sq", 200, &wl);
    winning_job wj;
    CHECK(winning_job_make(&wj));
    const czk_job_request wr = wj.req;
    czk_job_request cr;
    memset(&cr, 0, sizeof cr);
    cr.kind = CZK_JOB_CIRCOM;
    cr.circuit = "sq";
    cr.vanilla_proof = w;
    cr.vanilla_proof_len = wl;

    czk_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.data_dir = data_dir;
    cfg.param_dir = param_dir;
    cfg.gpu_mode = czk_gpu_count() > 0 ? 2 : 1;
    cfg.synthesis_threads = 2;
    czk_engine *e = NULL;
    CHECK_STATUS(czk_engine_create(&e, &cfg, &err), CZK_OK);
    if (e == NULL) goto out;
    /* Each damage, with what the failure must name. */
    struct {
        const char *what;
        size_t cut;           /* write only the first `cut` bytes (0: all) */
        size_t flip;          /* XOR 4 into this byte (0: none) */
        size_t dec_len;       /* decrement the length prefix at this offset (0: none) */
        const char *needle[2];
    } cases[3] = {
        {"cut in l", off[1] + 4 + 96 * (len[1] / 2), 0, 0, {"l truncated", ""}},
        {"a point off the curve", 0, off[2] + 4 + 96 * 5 + 95, 0, {"a point 5", "curve"}},
        {"b_g2 one short", 0, 0, off[4], {"trailing bytes after b_g2", "192"}},
    };
    for (int c = 0; c < 3; c++) {
        memcpy(bad, img, n);
        if (cases[c].flip) bad[cases[c].flip] ^= 4;
        if (cases[c].dec_len) bad[cases[c].dec_len + 3] -= 1;
        f = fopen(path, "wb");
        fwrite(bad, 1, cases[c].cut ? cases[c].cut : n, f);
        fclose(f);
        czk_job_info info;
        CHECK_STATUS(czk_engine_submit(e, &wr, &info, &err), CZK_OK);
        CHECK_STATUS(czk_engine_await(e, info.job_id, 300000, &info, &err), CZK_OK);
        CHECK_MSG(info.state == CZK_JOB_FAILED, "%s: state %s", cases[c].what,
                  czk_job_state_name(info.state));
        for (int k = 0; k < 2; k++)
            CHECK_MSG(strstr(info.error_message, cases[c].needle[k]) != NULL &&
                          strstr(info.error_message, name) != NULL,
                      "%s: \"%s\" lacks \"%s\" or the file", cases[c].what,
                      info.error_message, cases[c].needle[k]);
        czk_job_info_clear(&info);
        /* Another circuit meanwhile: proved. */
        CHECK_STATUS(czk_engine_submit(e, &cr, &info, &err), CZK_OK);
        CHECK_STATUS(czk_engine_await(e, info.job_id, 300000, &info, &err), CZK_OK);
        CHECK_MSG(info.state == CZK_JOB_DONE, "%s: the circom job: %s %s", cases[c].what,
                  czk_job_state_name(info.state), info.error_message);
        czk_job_info_clear(&info);
    }
    /* The good file: loads, proves, and the status says where its points are. */
    f = fopen(path, "wb");
    fwrite(img, 1, n, f);
    fclose(f);
    {
        czk_job_info info;
        CHECK_STATUS(czk_engine_submit(e, &wr, &info, &err), CZK_OK);
        CHECK_STATUS(czk_engine_await(e, info.job_id, 300000, &info, &err), CZK_OK);
        CHECK_MSG(info.state == CZK_JOB_DONE, "restored: %s %s", czk_job_state_name(info.state),
                  info.error_message);
        czk_job_info_clear(&info);
        czk_engine_status st;
        CHECK_STATUS(czk_engine_get_status(e, &st, &err), CZK_OK);
        bool seen = false;
        for (size_t i = 0; i < st.nsrs; i++) {
            if (strcmp(st.srs[i].circuit_id, "winning-2k") != 0) continue;
            seen = true;
            const czk_engine_srs_status *x = &st.srs[i];
            uint64_t points = n - off[0] - 20; /* the sections' points, without VK and lengths */
            CHECK(x->load_ms > 0 || x->host_bytes > 0);
            CHECK(x->ngpus == (size_t)(czk_gpu_count() > 0 ? st.ngpus : 0));
            if (czk_gpu_count() == 0) {
                /* The CPU prover holds the whole key, decoded (the same size as encoded). */
                CHECK_MSG(x->host_bytes >= points && x->pinned_bytes == 0,
                          "host %llu pinned %llu for %llu bytes of points",
                          (unsigned long long)x->host_bytes, (unsigned long long)x->pinned_bytes,
                          (unsigned long long)points);
            } else {
                /* A small key fits every GPU whole: nothing on the host, all resident. */
                CHECK(x->gpus[0].resident_bytes == points && x->gpus[0].streamed_bytes == 0);
                CHECK(x->host_bytes < points / 100);
                CHECK(strstr(x->gpus[0].plan, "resident=h,l,a,b_g1,b_g2") != NULL);
            }
        }
        CHECK(seen);
        czk_engine_status_clear(&st);
        char *metrics = czk_engine_metrics_text(e);
        CHECK(metrics != NULL && strstr(metrics, "czk_params_host_bytes{circuit=\"winning-2k\"}") != NULL &&
              strstr(metrics, "czk_params_load_seconds{circuit=\"winning-2k\"}") != NULL);
        czk_free(metrics);
    }
    czk_engine_destroy(e);
out:
    winning_job_free(&wj);
    czk_free(w);
    czk_free(img);
    czk_free(bad);
out0:
    czk_pool_destroy(pool);
    snprintf(path, sizeof path, "rm -rf %s", root);
    if (system(path) != 0) fprintf(stderr, "could not remove %s\n", root);
}

/*
 * GPU memory that another process holds (here: this one, through a block of bases made on
 * the device) is left out of every plan: the engine plans within what is free at its start,
 * and the job proves. A gpus.memory_limit below what a 2^27 partition needs is refused at
 * start, naming the minimum. (GPU only.)
 */
static void test_gpu_memory_budget(void)
{
    if (czk_gpu_count() == 0) {
        printf("# skipped: no GPU\n");
        return;
    }
    czk_err err;
    char root[256], data_dir[300];
    snprintf(root, sizeof root, "/tmp/czk-test-engine-fil-gpumem-%d", (int)getpid());
    snprintf(data_dir, sizeof data_dir, "%s/data", root);
    CHECK(mkdir(root, 0755) == 0);
    const char *pd = getenv("CZK_TEST_PARAMS");
    char param_dir[512];
    snprintf(param_dir, sizeof param_dir, "%s", pd ? pd : CZK_BINARY_DIR "/test-params");
    czk_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.data_dir = data_dir;
    cfg.param_dir = param_dir;
    cfg.gpu_mode = 2;
    cfg.synthesis_threads = 2;
    cfg.gpu_memory_limit = 4ull << 30;
    czk_engine *e = NULL;
    CHECK_STATUS(czk_engine_create(&e, &cfg, &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "gpus.memory_limit") != NULL && strstr(err.msg, "8.48 GiB") != NULL,
              "%s", err.msg);
    czk_engine_destroy(e);
    e = NULL;

    /* All but 2 GiB past the engine's margin (2 % of what is free, at least 512 MiB) held
     * elsewhere. */
    czk_gpu_info gi;
    CHECK_STATUS(czk_gpu_get_info(0, &gi, &err), CZK_OK);
    const uint64_t margin = 512ull << 20;
    const uint64_t keep = margin + (2ull << 30);
    czk_gpu_bases *ballast = NULL;
    if (gi.free_mem > keep)
        CHECK_STATUS(czk_gpu_bases_synthesize(0, 1, (gi.free_mem - keep) / sizeof(czk_g1_affine),
                                              1, &ballast, &err),
                     CZK_OK);
    cfg.gpu_memory_limit = 0;
    CHECK_STATUS(czk_engine_create(&e, &cfg, &err), CZK_OK);
    if (e != NULL) {
        winning_job w;
        CHECK(winning_job_make(&w));
        czk_job_info info;
        CHECK_STATUS(czk_engine_submit(e, &w.req, &info, &err), CZK_OK);
        CHECK_STATUS(czk_engine_await(e, info.job_id, 300000, &info, &err), CZK_OK);
        CHECK_MSG(info.state == CZK_JOB_DONE, "state %s: %s", czk_job_state_name(info.state),
                  info.error_message);
        czk_job_info_clear(&info);
        czk_engine_status st;
        CHECK_STATUS(czk_engine_get_status(e, &st, &err), CZK_OK);
        for (size_t i = 0; i < st.nsrs; i++)
            if (strcmp(st.srs[i].circuit_id, "winning-2k") == 0)
                CHECK_MSG(st.srs[i].gpus[0].budget_bytes > 0 &&
                              st.srs[i].gpus[0].budget_bytes <= keep,
                          "planned within %llu bytes, %llu were free",
                          (unsigned long long)st.srs[i].gpus[0].budget_bytes,
                          (unsigned long long)keep);
        czk_engine_status_clear(&st);
        czk_engine_destroy(e);
        winning_job_free(&w);
    }
    czk_gpu_bases_destroy(ballast);
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
    RUN(test_corrupt_params);
    RUN(test_gpu_memory_budget);
    return czk_test_finish();
}
