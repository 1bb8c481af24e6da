/*
 * The proving engine end to end on the CPU with circom jobs: a random R1CS, a snarkjs-layout
 * zkey from czk_groth16_setup_zkey (whose verifying key this test keeps, independently of
 * the engine's own loading), witnesses as .wtns bytes. Every returned proof is decoded and
 * verified here against that key and the witness's public inputs; the engine's scheduling
 * (priority, budget backpressure), deduplication, cancellation, the journal's restart
 * recovery, self-verification retries, the pinned pool's fallback and bad input are each
 * checked by their observable effect.
 */
#include "czk/alloc.h"
#include "czk/engine.h"
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "czk/log.h"
#include "czk_test.h"
#include "czk_test_fr.h"
#include "engine/engine_internal.h"

#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256], param_dir[300];
static czk_groth16_vk vk;   /* from the setup, not from the engine */
static czk_groth16_pvk pvk;
static uint32_t n_inputs, n_vars;
static uint8_t *wtns_good, *wtns_bad, *wtns_short;
static size_t wtns_good_len, wtns_bad_len, wtns_short_len;
static czk_fr *z_good;
static int data_dir_counter;
/* t2: a circuit of mostly boolean rows, as a Filecoin partition is (test_gpu_packed). */
static czk_groth16_vk vk2; /* pvk2 borrows its IC */
static czk_groth16_pvk pvk2;
static czk_fr *z2;
static uint32_t n_inputs2;
static uint8_t *wtns2;
static size_t wtns2_len;

/*
 * A random satisfiable R1CS with n_pub public inputs and n_mul rows, each defining a new
 * aux variable: row j multiplies a random LC of earlier variables by one earlier variable,
 * or, for about bits_in_10 rows in ten, is x·x = x on a fresh bit x (A, B and C then 0 or
 * 1, as most of a PoRep's rows and witness are). Returns the witness.
 */
static czk_fr *random_circuit(czk_r1cs *r, uint32_t n_pub, uint32_t n_mul, unsigned bits_in_10)
{
    uint32_t ni = 1 + n_pub, na = n_mul + 1, nv = ni + na;
    czk_fr *z = czk_malloc(nv * sizeof *z);
    z[0] = CZK_FR_ONE;
    for (uint32_t i = 1; i < ni; i++) czk_test_rand_fr(&z[i]);
    czk_test_rand_fr(&z[ni]);
    uint64_t nnz = (uint64_t)n_mul * 2;
    CHECK_STATUS(czk_r1cs_alloc(r, ni, na, n_mul, nnz, nnz, nnz, NULL), CZK_OK);
    r->has_c = true;
    uint64_t ka = 0, kb = 0, kc = 0;
    for (uint32_t j = 0; j < n_mul; j++) {
        uint32_t out = ni + 1 + j;
        r->a.row_ptr[j] = ka;
        r->b.row_ptr[j] = kb;
        r->c.row_ptr[j] = kc;
        if (bits_in_10 > 0 && czk_test_rand64() % 10 < bits_in_10) {
            z[out] = czk_test_rand64() & 1 ? CZK_FR_ONE : CZK_FR_ZERO;
            r->a.col[ka] = out;
            r->a.val[ka++] = CZK_FR_ONE;
            r->b.col[kb] = out;
            r->b.val[kb++] = CZK_FR_ONE;
            r->c.col[kc] = out;
            r->c.val[kc++] = CZK_FR_ONE;
            continue;
        }
        czk_fr av = CZK_FR_ZERO, bv, coeff, t;
        uint32_t v0 = (uint32_t)(czk_test_rand64() % out), v1 = (uint32_t)(czk_test_rand64() % out);
        if (v1 == v0) v1 = (v0 + 1) % out;
        uint32_t lo = v0 < v1 ? v0 : v1, hi = v0 < v1 ? v1 : v0;
        czk_test_rand_fr(&coeff);
        r->a.col[ka] = lo;
        r->a.val[ka++] = coeff;
        czk_fr_mul(&av, &coeff, &z[lo]);
        czk_test_rand_fr(&coeff);
        r->a.col[ka] = hi;
        r->a.val[ka++] = coeff;
        czk_fr_mul(&t, &coeff, &z[hi]);
        czk_fr_add(&av, &av, &t);
        uint32_t vb = (uint32_t)(czk_test_rand64() % out);
        czk_test_rand_fr(&coeff);
        r->b.col[kb] = vb;
        r->b.val[kb++] = coeff;
        czk_fr_mul(&bv, &coeff, &z[vb]);
        czk_fr_mul(&z[out], &av, &bv);
        r->c.col[kc] = out;
        r->c.val[kc++] = CZK_FR_ONE;
    }
    r->a.row_ptr[n_mul] = ka;
    r->b.row_ptr[n_mul] = kb;
    r->c.row_ptr[n_mul] = kc;
    r->a.nnz = ka;
    r->b.nnz = kb;
    r->c.nnz = kc;
    return z;
}

static uint8_t *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = czk_malloc((size_t)n);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) {
        czk_free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static uint8_t *wtns_bytes(const czk_fr *w, size_t n, size_t *len)
{
    char path[400];
    snprintf(path, sizeof path, "%s/w.wtns", tmpdir);
    CHECK_STATUS(czk_wtns_write_file(w, n, path, NULL), CZK_OK);
    uint8_t *b = read_whole(path, len);
    unlink(path);
    return b;
}

static void setup_fixture(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/czk-test-engine-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) CZK_TEST_SKIP("mkdtemp failed");
    snprintf(param_dir, sizeof param_dir, "%s/params", tmpdir);
    mkdir(param_dir, 0700);
    czk_r1cs r;
    z_good = random_circuit(&r, 3, 120, 0);
    uint32_t bad = 0;
    CHECK(czk_r1cs_is_satisfied(&r, z_good, &bad));
    char path[400];
    snprintf(path, sizeof path, "%s/t1.zkey", param_dir);
    czk_err err;
    CHECK_STATUS(czk_groth16_setup_zkey(path, &r, &vk, NULL, NULL, NULL, &err), CZK_OK);
    czk_groth16_prepare_vk(&pvk, &vk);
    n_inputs = r.n_inputs;
    n_vars = r.n_inputs + r.n_aux;
    wtns_good = wtns_bytes(z_good, n_vars, &wtns_good_len);
    /* A well-formed witness that does not satisfy the circuit: one aux value changed. */
    czk_fr *zb = czk_malloc(n_vars * sizeof *zb);
    memcpy(zb, z_good, n_vars * sizeof *zb);
    czk_fr_add(&zb[n_vars - 1], &zb[n_vars - 1], &CZK_FR_ONE);
    wtns_bad = wtns_bytes(zb, n_vars, &wtns_bad_len);
    wtns_short = wtns_bytes(zb, n_vars - 1, &wtns_short_len);
    czk_free(zb);
    /* t2, the mostly-boolean circuit. */
    czk_r1cs r2;
    z2 = random_circuit(&r2, 2, 3000, 9);
    CHECK(czk_r1cs_is_satisfied(&r2, z2, &bad));
    snprintf(path, sizeof path, "%s/t2.zkey", param_dir);
    CHECK_STATUS(czk_groth16_setup_zkey(path, &r2, &vk2, NULL, NULL, NULL, &err), CZK_OK);
    czk_groth16_prepare_vk(&pvk2, &vk2);
    n_inputs2 = r2.n_inputs;
    wtns2 = wtns_bytes(z2, r2.n_inputs + r2.n_aux, &wtns2_len);
    czk_r1cs_free(&r2);
    /* A corrupt zkey: the right magic, garbage after. */
    snprintf(path, sizeof path, "%s/corrupt.zkey", param_dir);
    FILE *f = fopen(path, "wb");
    fwrite("zkey\x01\x00\x00\x00garbage-garbage-garbage", 1, 31, f);
    fclose(f);
    czk_r1cs_free(&r);
}

/* The prover backend the tests run: the GPU when one is present (then it is required, so
 * a GPU machine exercises the engine's GPU path and cannot fall back silently), the CPU
 * otherwise. */
static int test_gpu_mode(void)
{
    return czk_gpu_count() > 0 ? 2 : 1;
}

static const char *test_backend(void)
{
    return czk_gpu_count() > 0 ? "gpu0" : "cpu";
}

/* Tier of a parameter set a job has proved with: HOT, ready to prove, in either mode (on
 * the GPU with one; loaded in host memory, where the CPU back end proves, without). */
static int test_loaded_tier(void)
{
    return 0;
}

/* Prover workers per GPU for the next make_engine (0: the default, 2). */
static unsigned test_workers_per_device;
/* The next make_engine packs partitions for the GPU (gpus.pack_copies). */
static bool test_pack;
/* The next make_engine uses GPU 0 only (on a machine with several). */
static bool test_one_gpu;

static czk_engine *make_engine(const char *data_dir, uint64_t budget, unsigned synth_workers)
{
    czk_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.data_dir = data_dir;
    cfg.param_dir = param_dir;
    cfg.memory_budget = budget;
    cfg.synthesis_threads = 2;
    cfg.synthesis_workers = synth_workers;
    cfg.gpu_mode = test_gpu_mode();
    cfg.gpu_workers_per_device = test_workers_per_device;
    cfg.gpu_pack_copies = test_pack;
    static const int gpu0[1] = {0};
    if (test_one_gpu && czk_gpu_count() > 1) {
        cfg.gpus = gpu0;
        cfg.ngpus = 1;
    }
    czk_engine *e = NULL;
    czk_err err;
    czk_status st = czk_engine_create(&e, &cfg, &err);
    CHECK_MSG(st == CZK_OK, "create: %s", err.msg);
    return e;
}

static void new_data_dir(char *out, size_t cap)
{
    snprintf(out, cap, "%s/data%d", tmpdir, data_dir_counter++);
}

static czk_job_request circom_req(const char *request_id, const uint8_t *w, size_t wl,
                                  czk_job_priority prio)
{
    czk_job_request r;
    memset(&r, 0, sizeof r);
    r.request_id = request_id;
    r.kind = CZK_JOB_CIRCOM;
    r.priority = prio;
    r.vanilla_proof = w;
    r.vanilla_proof_len = wl;
    r.circuit = "t1";
    return r;
}

/* Decode the 192 bytes and verify them with the setup's own key. */
static bool proof_valid(const czk_job_info *info)
{
    if (info->proof == NULL || info->proof_len != CZK_GROTH16_PROOF_SIZE) return false;
    czk_groth16_proof p;
    if (czk_groth16_proof_read(&p, info->proof, NULL) != CZK_OK) return false;
    return czk_groth16_verify(&pvk, &p, z_good + 1, n_inputs - 1, NULL) == CZK_OK;
}

/* ------------------------------------------------------------------------------------ */

typedef struct ev_rec {
    pthread_mutex_t mu;
    int types[64];
    int n;
    int done_calls;
    czk_job_state done_state;
    bool done_proof_ok;
} ev_rec;

static void on_event(void *ctx, const czk_job_event *ev)
{
    ev_rec *r = ctx;
    pthread_mutex_lock(&r->mu);
    if (r->n < 64) r->types[r->n++] = ev->type;
    pthread_mutex_unlock(&r->mu);
}

static void on_done(void *ctx, const czk_job_info *info)
{
    ev_rec *r = ctx;
    pthread_mutex_lock(&r->mu);
    r->done_calls++;
    r->done_state = info->state;
    r->done_proof_ok = proof_valid(info);
    pthread_mutex_unlock(&r->mu);
}

static void test_end_to_end(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine *e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    ev_rec rec;
    memset(&rec, 0, sizeof rec);
    pthread_mutex_init(&rec.mu, NULL);
    czk_job_request req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_DEFAULT);
    czk_job_info info;
    czk_err err;
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK(strncmp(info.job_id, "j-", 2) == 0 && strlen(info.job_id) == 34);
    CHECK(strcmp(info.circuit_id, "circom:t1") == 0);
    CHECK(info.priority == CZK_PRIO_NORMAL);
    char id[CZK_JOB_ID_MAX];
    snprintf(id, sizeof id, "%s", info.job_id);
    uint64_t wh = 0, dh = 0;
    CHECK_STATUS(czk_engine_watch(e, id, on_event, &rec, &wh, &err), CZK_OK);
    CHECK_STATUS(czk_engine_on_done(e, id, on_done, &rec, &dh, &err), CZK_OK);
    czk_job_info fin;
    CHECK_STATUS(czk_engine_await(e, id, 60000, &fin, &err), CZK_OK);
    CHECK(fin.state == CZK_JOB_DONE);
    CHECK_MSG(proof_valid(&fin), "the returned proof does not verify against the setup's key");
    CHECK(fin.partitions == 1 && fin.partitions_proved == 1);
    CHECK_MSG(strcmp(fin.assigned_gpu, test_backend()) == 0, "proved on %s", fin.assigned_gpu);
    czk_job_info_clear(&fin);
    /* Callbacks arrive on the event thread: give it a moment. */
    for (int i = 0; i < 200; i++) {
        pthread_mutex_lock(&rec.mu);
        bool ok = rec.done_calls == 1 && rec.n > 0 && rec.types[rec.n - 1] == CZK_EV_DONE;
        pthread_mutex_unlock(&rec.mu);
        if (ok) break;
        usleep(10000);
    }
    pthread_mutex_lock(&rec.mu);
    CHECK(rec.done_calls == 1 && rec.done_state == CZK_JOB_DONE && rec.done_proof_ok);
    CHECK(rec.n >= 7 && rec.types[0] == CZK_EV_QUEUED && rec.types[rec.n - 1] == CZK_EV_DONE);
    bool seen[16] = {false};
    for (int i = 0; i < rec.n; i++) seen[rec.types[i]] = true;
    CHECK(seen[CZK_EV_PARAMS_LOADING] && seen[CZK_EV_PARAMS_LOADED] &&
          seen[CZK_EV_PARTITION_SYNTH_START] && seen[CZK_EV_PARTITION_SYNTHESIZED] &&
          seen[CZK_EV_GPU_START] && seen[CZK_EV_GPU_END] && seen[CZK_EV_VERIFIED]);
    pthread_mutex_unlock(&rec.mu);
    czk_engine_unwatch(e, wh);
    CHECK(!czk_engine_on_done_cancel(e, dh)); /* it has fired */

    /* on_done on a finished job runs on this thread before returning. */
    ev_rec rec2;
    memset(&rec2, 0, sizeof rec2);
    pthread_mutex_init(&rec2.mu, NULL);
    CHECK_STATUS(czk_engine_on_done(e, id, on_done, &rec2, &dh, &err), CZK_OK);
    CHECK(rec2.done_calls == 1 && rec2.done_proof_ok);
    /* A replaying watch on a finished job ends with its terminal event. */
    ev_rec rec3;
    memset(&rec3, 0, sizeof rec3);
    pthread_mutex_init(&rec3.mu, NULL);
    CHECK_STATUS(czk_engine_watch(e, id, on_event, &rec3, &wh, &err), CZK_OK);
    CHECK(rec3.n == rec.n && rec3.types[rec3.n - 1] == CZK_EV_DONE);
    czk_engine_unwatch(e, wh);

    CHECK_STATUS(czk_engine_get(e, id, true, &info, &err), CZK_OK);
    CHECK(proof_valid(&info));
    czk_job_info_clear(&info);
    CHECK_STATUS(czk_engine_get(e, "j-nonexistent", false, &info, &err), CZK_ENOENT);

    czk_job_info *list = NULL;
    size_t n = 0;
    CHECK_STATUS(czk_engine_list(e, 1u << CZK_JOB_DONE, 0, &list, &n, &err), CZK_OK);
    CHECK(n == 1 && strcmp(list[0].job_id, id) == 0);
    czk_engine_list_free(list, n);
    CHECK_STATUS(czk_engine_list(e, 1u << CZK_JOB_QUEUED, 0, &list, &n, &err), CZK_OK);
    CHECK(n == 0);
    czk_engine_list_free(list, n);

    char *m = czk_engine_metrics_text(e);
    CHECK(m != NULL && strstr(m, "czk_jobs_completed_total 1\n") != NULL);
    CHECK(m != NULL && strstr(m, "czk_jobs{kind=\"circom\",state=\"done\"} 1\n") != NULL);
    CHECK(m != NULL && strstr(m, "czk_stage_seconds_count{stage=\"total\"} 1\n") != NULL);
    CHECK(m != NULL && strstr(m, "czk_verification_failures_total 0\n") != NULL);
    czk_free(m);
    char *js = czk_engine_status_json(e);
    json_error_t jerr;
    json_t *root = js ? json_loads(js, 0, &jerr) : NULL;
    CHECK(root != NULL);
    CHECK(json_integer_value(json_object_get(json_object_get(root, "counters"), "completed")) == 1);
    CHECK(strcmp(json_string_value(json_object_get(root, "backend")),
                 czk_gpu_count() > 0 ? "gpu" : "cpu") == 0);
    json_decref(root);
    czk_free(js);
    czk_engine_status st;
    CHECK_STATUS(czk_engine_get_status(e, &st, &err), CZK_OK);
    CHECK(st.completed == 1 && st.ready && !st.draining && st.nsrs == 1);
    CHECK(st.nsrs == 1 && st.srs[0].tier == test_loaded_tier() && st.srs[0].size_bytes > 0);
    CHECK(st.queues[4].kind == CZK_JOB_CIRCOM && st.queues[4].pending == 0);
    czk_engine_status_clear(&st);

    /* Evict the idle parameters, preload them again. */
    bool was = false, already = true;
    uint64_t freed = 0, ms = 0;
    CHECK_STATUS(czk_engine_evict(e, "circom:t1", &was, &freed, &err), CZK_OK);
    CHECK(was && freed > 0);
    CHECK_STATUS(czk_engine_preload(e, "circom:t1", &already, &ms, &err), CZK_OK);
    CHECK(!already);
    CHECK_STATUS(czk_engine_preload(e, "circom:t1", &already, &ms, &err), CZK_OK);
    CHECK(already);
    CHECK_STATUS(czk_engine_preload(e, "circom:nope", &already, &ms, &err), CZK_ENOENT);
    CHECK_STATUS(czk_engine_preload(e, "porep-99g", &already, &ms, &err), CZK_EINVAL);

    /* Draining refuses new work. */
    czk_engine_drain(e, 1000);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_EBUSY);
    czk_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------ */

typedef struct submitter {
    czk_engine *e;
    int first, count;
    char (*ids)[CZK_JOB_ID_MAX];
    int failures;
} submitter;

static void *submit_thread(void *arg)
{
    submitter *s = arg;
    for (int i = 0; i < s->count; i++) {
        char rid[32];
        snprintf(rid, sizeof rid, "req-%d", s->first + i);
        czk_job_request req = circom_req(rid, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
        czk_job_info info;
        if (czk_engine_submit(s->e, &req, &info, NULL) != CZK_OK) {
            s->failures++;
            continue;
        }
        snprintf(s->ids[s->first + i], CZK_JOB_ID_MAX, "%s", info.job_id);
    }
    return NULL;
}

static void test_concurrent_100(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine *e = make_engine(dd, 0, 2);
    if (e == NULL) return;
    enum { N = 100, T = 4 };
    static char ids[N][CZK_JOB_ID_MAX];
    memset(ids, 0, sizeof ids);
    pthread_t th[T];
    submitter s[T];
    for (int t = 0; t < T; t++) {
        s[t] = (submitter){e, t * (N / T), N / T, ids, 0};
        pthread_create(&th[t], NULL, submit_thread, &s[t]);
    }
    int failures = 0;
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        failures += s[t].failures;
    }
    CHECK(failures == 0);
    int done = 0, valid = 0;
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < i; k++) CHECK(strcmp(ids[i], ids[k]) != 0);
        czk_job_info info;
        if (czk_engine_await(e, ids[i], 120000, &info, NULL) == CZK_OK &&
            info.state == CZK_JOB_DONE) {
            done++;
            if (proof_valid(&info)) valid++;
        }
        czk_job_info_clear(&info);
    }
    CHECK_MSG(done == N && valid == N, "%d done, %d valid of %d", done, valid, N);
    czk__pinned_stats ps;
    czk__engine_pinned_stats(e, &ps);
    /* Buffers are reused, not allocated per partition: at most one per partition that can
     * be in flight at once (2 synthesis workers and the express lane's, the prove queue of
     * 2 per ordinary prover, the provers: 10 on one GPU or the CPU, 3 + 7 per GPU). */
    unsigned ng = (unsigned)czk_gpu_count();
    unsigned long long bound = ng > 1 ? 3 + 7ull * ng : 10;
    CHECK_MSG(ps.reuses >= N - bound && ps.allocations <= bound,
              "allocations %llu reuses %llu (bound %llu)", (unsigned long long)ps.allocations,
              (unsigned long long)ps.reuses, bound);
    czk_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------ */

typedef struct order_rec {
    pthread_mutex_t mu;
    char order[32][CZK_JOB_ID_MAX];
    int n;
} order_rec;

static void on_done_order(void *ctx, const czk_job_info *info)
{
    order_rec *r = ctx;
    pthread_mutex_lock(&r->mu);
    if (r->n < 32) snprintf(r->order[r->n++], CZK_JOB_ID_MAX, "%s", info->job_id);
    pthread_mutex_unlock(&r->mu);
}

static void test_priority(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    /* One prover, so that completion order is dispatch order (with a GPU, two workers
     * share the device and their completions may cross; so would two GPUs'). */
    test_workers_per_device = 1;
    test_one_gpu = true;
    czk_engine *e = make_engine(dd, 0, 2);
    test_workers_per_device = 0;
    test_one_gpu = false;
    if (e == NULL) return;
    order_rec rec;
    memset(&rec, 0, sizeof rec);
    pthread_mutex_init(&rec.mu, NULL);
    /* Ten NORMAL jobs are waiting for the (single) prover when a CRITICAL one arrives. */
    czk__engine_pause_provers(e, true);
    char ids[11][CZK_JOB_ID_MAX];
    for (int i = 0; i < 11; i++) {
        czk_job_request req = circom_req(NULL, wtns_good, wtns_good_len,
                                         i == 10 ? CZK_PRIO_CRITICAL : CZK_PRIO_NORMAL);
        czk_job_info info;
        CHECK_STATUS(czk_engine_submit(e, &req, &info, NULL), CZK_OK);
        snprintf(ids[i], sizeof ids[i], "%s", info.job_id);
        CHECK_STATUS(czk_engine_on_done(e, ids[i], on_done_order, &rec, NULL, NULL), CZK_OK);
        if (i == 10) CHECK(info.priority == CZK_PRIO_CRITICAL);
    }
    usleep(300000);
    /* Queue positions: the CRITICAL job first, the others in submission order, 1..n. */
    czk_job_info *list = NULL;
    size_t nq = 0;
    CHECK_STATUS(czk_engine_list(e, 1u << CZK_JOB_QUEUED, 0, &list, &nq, NULL), CZK_OK);
    CHECK(nq >= 5);
    bool seen_pos[16] = {false};
    for (size_t i = 0; i < nq; i++) {
        uint32_t qp = list[i].queue_position;
        CHECK(qp >= 1 && qp <= nq && !seen_pos[qp]);
        if (qp < 16) seen_pos[qp] = true;
        if (strcmp(list[i].job_id, ids[10]) == 0) CHECK(qp == 1);
        /* newest first: positions fall along the list, the CRITICAL (newest) aside */
        if (i >= 2) CHECK(qp < list[i - 1].queue_position);
        czk_job_info one;
        czk_engine_get(e, list[i].job_id, false, &one, NULL);
        CHECK(one.queue_position == qp);
    }
    czk_engine_list_free(list, nq);
    czk__engine_pause_provers(e, false);
    for (int i = 0; i < 11; i++) {
        czk_job_info info;
        CHECK_STATUS(czk_engine_await(e, ids[i], 60000, &info, NULL), CZK_OK);
        CHECK(info.state == CZK_JOB_DONE);
        czk_job_info_clear(&info);
    }
    for (int i = 0; i < 100; i++) {
        pthread_mutex_lock(&rec.mu);
        int n = rec.n;
        pthread_mutex_unlock(&rec.mu);
        if (n == 11) break;
        usleep(10000);
    }
    int pos = -1;
    pthread_mutex_lock(&rec.mu);
    for (int i = 0; i < rec.n; i++)
        if (strcmp(rec.order[i], ids[10]) == 0) pos = i;
    /* FIFO within a priority: the NORMAL ones finish in submission order. */
    int last = -1;
    bool fifo = true;
    for (int i = 0; i < rec.n; i++)
        for (int k = 0; k < 10; k++)
            if (strcmp(rec.order[i], ids[k]) == 0) {
                if (k < last) fifo = false;
                last = k;
            }
    pthread_mutex_unlock(&rec.mu);
    /* At most the two partitions already in the prover's lookahead finish before it. */
    CHECK_MSG(pos >= 0 && pos <= 2, "the CRITICAL job finished at position %d of 11", pos);
    CHECK(fifo);
    czk_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------ */

static void test_dedup(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine *e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    czk_job_request req = circom_req("same-id", wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    czk_job_info a, b;
    czk_err err;
    CHECK_STATUS(czk_engine_submit(e, &req, &a, &err), CZK_OK);
    CHECK_STATUS(czk_engine_submit(e, &req, &b, &err), CZK_OK);
    CHECK(strcmp(a.job_id, b.job_id) == 0);
    CHECK(strcmp(b.request_id, "same-id") == 0);
    /* Another request under the id: a new job, which the id names from then on. */
    czk_job_request other = circom_req("same-id", wtns_bad, wtns_bad_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &other, &b, &err), CZK_OK);
    CHECK(strcmp(a.job_id, b.job_id) != 0);
    czk_job_info c;
    CHECK_STATUS(czk_engine_submit(e, &other, &c, &err), CZK_OK);
    CHECK(strcmp(c.job_id, b.job_id) == 0);
    /* No request id: never deduplicated. */
    czk_job_request anon = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &anon, &b, &err), CZK_OK);
    CHECK(strcmp(a.job_id, b.job_id) != 0);
    czk_job_info info;
    CHECK_STATUS(czk_engine_await(e, a.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE);
    czk_job_info_clear(&info);
    /* After it finished, the same request still answers with the same job. */
    CHECK_STATUS(czk_engine_submit(e, &req, &b, &err), CZK_OK);
    CHECK(strcmp(a.job_id, b.job_id) == 0 && b.state == CZK_JOB_DONE);
    char big[200];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    czk_job_request lng = circom_req(big, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &lng, &b, &err), CZK_EINVAL);
    czk_engine_destroy(e);
}

/* A job's state after waiting for it to end. */
static czk_job_state await_state(czk_engine *e, const char *id, czk_job_info *info)
{
    czk_err err;
    CHECK_STATUS(czk_engine_await(e, id, 60000, info, &err), CZK_OK);
    return info->state;
}

/*
 * Retries under one request_id: a failed or cancelled job does not block a new attempt
 * (a new job, the old one kept as history); a queued, running or done one is attached to
 * whatever the priority; Forget frees the id.
 */
static void test_retry_and_forget(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine *e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    czk_err err;
    czk_job_info a, b, c, info;
    /* Cancelled while queued (the provers paused): the retry is a new job that proves. */
    czk__engine_pause_provers(e, true);
    czk_job_request req = circom_req("retry-1", wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &req, &a, &err), CZK_OK);
    CHECK_STATUS(czk_engine_cancel(e, a.job_id, NULL, &err), CZK_OK);
    czk__engine_pause_provers(e, false);
    CHECK_STATUS(czk_engine_submit(e, &req, &b, &err), CZK_OK);
    CHECK(strcmp(a.job_id, b.job_id) != 0);
    CHECK(await_state(e, b.job_id, &info) == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    CHECK_STATUS(czk_engine_get(e, a.job_id, false, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_CANCELLED);
    /* The done one is attached to, at another priority too. */
    czk_job_request hi = circom_req("retry-1", wtns_good, wtns_good_len, CZK_PRIO_HIGH);
    CHECK_STATUS(czk_engine_submit(e, &hi, &c, &err), CZK_OK);
    CHECK(strcmp(c.job_id, b.job_id) == 0 && c.state == CZK_JOB_DONE);
    /* Another request under the id of a done job (a sector sealed again): a new job; the
     * done one stays under its own id. */
    czk_job_request other = circom_req("retry-1", wtns_bad, wtns_bad_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &other, &c, &err), CZK_OK);
    CHECK(strcmp(c.job_id, b.job_id) != 0);
    CHECK(await_state(e, c.job_id, &info) == CZK_JOB_FAILED);
    czk_job_info_clear(&info);
    CHECK_STATUS(czk_engine_get(e, b.job_id, false, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE);
    czk_job_info_clear(&info);
    /* A failed job (a witness that does not satisfy the circuit) does not block either. */
    czk_job_request bad = circom_req("retry-2", wtns_bad, wtns_bad_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &bad, &a, &err), CZK_OK);
    CHECK(await_state(e, a.job_id, &info) == CZK_JOB_FAILED);
    czk_job_info_clear(&info);
    czk_job_request fixed = circom_req("retry-2", wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &fixed, &b, &err), CZK_OK);
    CHECK(strcmp(a.job_id, b.job_id) != 0);
    CHECK(await_state(e, b.job_id, &info) == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);

    /* Forget a done job: gone from get, list and the journal; its request_id is free. */
    bool was_running = true;
    czk_job_state was = CZK_JOB_QUEUED;
    CHECK_STATUS(czk_engine_forget(e, b.job_id, &was_running, &was, &err), CZK_OK);
    CHECK(!was_running && was == CZK_JOB_DONE);
    CHECK_STATUS(czk_engine_get(e, b.job_id, false, &info, &err), CZK_ENOENT);
    CHECK_STATUS(czk_engine_forget(e, b.job_id, NULL, NULL, &err), CZK_ENOENT);
    CHECK_STATUS(czk_engine_cancel(e, b.job_id, NULL, &err), CZK_ENOENT);
    czk_job_info *list = NULL;
    size_t n = 0;
    CHECK_STATUS(czk_engine_list(e, 0, 0, &list, &n, &err), CZK_OK);
    for (size_t i = 0; i < n; i++) CHECK(strcmp(list[i].job_id, b.job_id) != 0);
    czk_engine_list_free(list, n);
    CHECK_STATUS(czk_engine_submit(e, &fixed, &c, &err), CZK_OK);
    CHECK(strcmp(c.job_id, b.job_id) != 0);
    CHECK(await_state(e, c.job_id, &info) == CZK_JOB_DONE);
    czk_job_info_clear(&info);
    /* Forget a queued job: cancelled first, a waiter is answered, nothing runs. */
    czk__engine_pause_provers(e, true);
    czk_job_request q = circom_req("forget-queued", wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &q, &a, &err), CZK_OK);
    CHECK_STATUS(czk_engine_forget(e, a.job_id, &was_running, &was, &err), CZK_OK);
    CHECK(was == CZK_JOB_QUEUED || was == CZK_JOB_RUNNING);
    CHECK_STATUS(czk_engine_await(e, a.job_id, 1000, &info, &err), CZK_ENOENT);
    czk__engine_pause_provers(e, false);
    czk_engine_destroy(e);

    /* After a restart the forgotten jobs stay forgotten; the others are back. */
    e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    CHECK_STATUS(czk_engine_get(e, b.job_id, false, &info, &err), CZK_ENOENT);
    CHECK_STATUS(czk_engine_get(e, a.job_id, false, &info, &err), CZK_ENOENT);
    CHECK_STATUS(czk_engine_get(e, c.job_id, true, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    /* Deduplication on meaning survives it: the same request is attached to c. */
    CHECK_STATUS(czk_engine_submit(e, &fixed, &b, &err), CZK_OK);
    CHECK(strcmp(b.job_id, c.job_id) == 0);
    czk_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------ */

/* Run one SQL statement on a stopped engine's journal (the test's own connection). */
static void journal_sql(const char *dd, const char *sql)
{
    char path[500];
    snprintf(path, sizeof path, "%s/journal.db", dd);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    char *msg = NULL;
    CHECK_MSG(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql, msg ? msg : "");
    sqlite3_free(msg);
    sqlite3_close(db);
}

static uint64_t metric(czk_engine *e, const char *name)
{
    char *m = czk_engine_metrics_text(e);
    uint64_t v = UINT64_MAX;
    char key[128];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *p = m ? strstr(m, key) : NULL;
    if (p != NULL) v = strtoull(p + strlen(key), NULL, 10);
    czk_free(m);
    return v;
}

/*
 * Nothing read back is served unchecked: a stored proof with a changed byte, one cut
 * short and two swapped between jobs are each proved again (never served), counted; a
 * verified partition a drain kept is used instead of proving it again; a journal with a
 * damaged page is moved aside, its readable rows recovered, and the engine works.
 */
static void test_stored_integrity(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine *e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    czk_err err;
    czk_job_info j[4], info;
    static const char *const rids[4] = {"rot-flip", "rot-cut", "rot-swap-a", "rot-swap-b"};
    for (int i = 0; i < 4; i++) {
        czk_job_request req = circom_req(rids[i], wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
        CHECK_STATUS(czk_engine_submit(e, &req, &j[i], &err), CZK_OK);
    }
    uint8_t orig[4][CZK_GROTH16_PROOF_SIZE];
    for (int i = 0; i < 4; i++) {
        CHECK(await_state(e, j[i].job_id, &info) == CZK_JOB_DONE);
        if (info.proof_len == CZK_GROTH16_PROOF_SIZE) memcpy(orig[i], info.proof, sizeof orig[i]);
        czk_job_info_clear(&info);
    }
    czk_engine_destroy(e);
    char sql[800];
    snprintf(sql, sizeof sql,
             "UPDATE jobs SET proof = substr(proof, 1, 20) || x'ff' || substr(proof, 22) "
             "WHERE job_id = '%s';"
             "UPDATE jobs SET proof = substr(proof, 1, 100) WHERE job_id = '%s';"
             "UPDATE jobs SET proof = (SELECT proof FROM jobs WHERE job_id = '%s'),"
             " proof_sum = (SELECT proof_sum FROM jobs WHERE job_id = '%s') WHERE job_id = '%s';",
             j[0].job_id, j[1].job_id, j[3].job_id, j[3].job_id, j[2].job_id);
    journal_sql(dd, sql);
    e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    CHECK(metric(e, "czk_proofs_damaged_total") == 3);
    for (int i = 0; i < 4; i++) {
        CHECK(await_state(e, j[i].job_id, &info) == CZK_JOB_DONE);
        CHECK_MSG(proof_valid(&info), "%s: the proof served verifies", rids[i]);
        /* b was not touched: its own proof; the others were proved again (fresh r, s). */
        bool same = info.proof_len == CZK_GROTH16_PROOF_SIZE &&
                    memcmp(info.proof, orig[i], CZK_GROTH16_PROOF_SIZE) == 0;
        CHECK_MSG(same == (i == 3), "%s: %s proof", rids[i], same ? "the old" : "a new");
        czk_job_info_clear(&info);
    }
    czk_engine_destroy(e);

    /* A drain kept partition 0 of an unfinished job: the restart does not prove it. The
     * kept proof is the one a done job of the same witness made (same public inputs). */
    new_data_dir(dd, sizeof dd);
    e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    czk__engine_pause_provers(e, true);
    czk_job_request req = circom_req("kept", wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &req, &j[0], &err), CZK_OK);
    czk__engine_crash(e);
    czk__journal *jr = NULL;
    CHECK_STATUS(czk__journal_open(&jr, dd, &err), CZK_OK);
    uint32_t idx = 0;
    CHECK_STATUS(czk__journal_save_parts(jr, j[0].job_id, &idx, orig[3], 1, &err), CZK_OK);
    czk__journal_close(jr);
    e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    CHECK(await_state(e, j[0].job_id, &info) == CZK_JOB_DONE && proof_valid(&info));
    CHECK(info.proof_len == 192 && memcmp(info.proof, orig[3], 192) == 0);
    CHECK(info.timings.gpu_compute_ms == 0 && info.partitions_proved == 1);
    czk_job_info_clear(&info);
    CHECK(metric(e, "czk_partitions_restored_total") == 1);
    czk_engine_destroy(e);

    /* A damaged journal page: moved aside, a fresh journal with the rows that read, and
     * new jobs work. The page overwritten is the jobs table's root. */
    e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    for (int i = 0; i < 3; i++) {
        char rid[32];
        snprintf(rid, sizeof rid, "page-%d", i);
        req = circom_req(rid, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
        CHECK_STATUS(czk_engine_submit(e, &req, &j[i], &err), CZK_OK);
        CHECK(await_state(e, j[i].job_id, &info) == CZK_JOB_DONE);
        czk_job_info_clear(&info);
    }
    czk_engine_destroy(e);
    char path[500];
    snprintf(path, sizeof path, "%s/journal.db", dd);
    sqlite3 *db = NULL;
    int root = 0;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_master WHERE name = 'jobs'", -1, &st,
                             NULL) == SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW) root = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    CHECK(root > 1);
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f != NULL) {
        uint8_t page[4096];
        memset(page, 0xa5, sizeof page);
        fseek(f, (long)(root - 1) * 4096, SEEK_SET);
        CHECK(fwrite(page, 1, sizeof page, f) == sizeof page);
        fclose(f);
    }
    e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    CHECK(metric(e, "czk_journal_damaged_total") == 1);
    czk_engine_status es;
    CHECK_STATUS(czk_engine_get_status(e, &es, &err), CZK_OK);
    CHECK(es.ready);
    czk_engine_status_clear(&es);
    req = circom_req("after-damage", wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &req, &j[3], &err), CZK_OK);
    CHECK(await_state(e, j[3].job_id, &info) == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    czk_engine_destroy(e);
    /* The damaged file is kept beside, named by its time. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s/journal.db.damaged-* >/dev/null 2>&1", dd);
    CHECK(system(cmd) == 0);
}

/* ------------------------------------------------------------------------------------ */

static void test_cancel(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    /* One synthesis worker and a tiny budget: the first job holds the budget (synthesized,
     * waiting for the paused prover), the second stays queued. */
    czk_engine *e = make_engine(dd, 1, 1);
    if (e == NULL) return;
    czk__engine_pause_provers(e, true);
    czk_job_request req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    czk_job_info a, b, info;
    czk_err err;
    CHECK_STATUS(czk_engine_submit(e, &req, &a, &err), CZK_OK);
    CHECK_STATUS(czk_engine_submit(e, &req, &b, &err), CZK_OK);
    for (int i = 0; i < 500; i++) {
        czk_engine_get(e, a.job_id, false, &info, NULL);
        if (info.partitions_synthesized == 1) break;
        usleep(10000);
    }
    CHECK(info.state == CZK_JOB_RUNNING && info.partitions_synthesized == 1);
    czk_engine_get(e, b.job_id, false, &info, NULL);
    CHECK(info.state == CZK_JOB_QUEUED && info.queue_position == 1);
    bool was_running = true;
    CHECK_STATUS(czk_engine_cancel(e, b.job_id, &was_running, &err), CZK_OK);
    CHECK(!was_running);
    CHECK_STATUS(czk_engine_cancel(e, a.job_id, &was_running, &err), CZK_OK);
    CHECK(was_running);
    /* Cancelling an ended job changes nothing. */
    CHECK_STATUS(czk_engine_cancel(e, a.job_id, &was_running, &err), CZK_OK);
    CHECK(!was_running);
    CHECK_STATUS(czk_engine_cancel(e, "j-none", &was_running, &err), CZK_ENOENT);
    czk_engine_get(e, a.job_id, false, &info, NULL);
    CHECK(info.state == CZK_JOB_CANCELLED);
    czk_engine_get(e, b.job_id, false, &info, NULL);
    CHECK(info.state == CZK_JOB_CANCELLED);
    /* Its memory is back: the partition's reservation and buffer are released. */
    czk_engine_status st;
    czk_engine_get_status(e, &st, NULL);
    CHECK(st.pinned_in_use == 0 && st.cancelled == 2);
    czk_engine_status_clear(&st);
    /* Cancel while proving: the job ends CANCELLED, the prover's result is dropped. */
    czk__engine_pause_provers(e, false);
    CHECK_STATUS(czk_engine_submit(e, &req, &a, &err), CZK_OK);
    for (int i = 0; i < 500; i++) {
        czk_engine_get(e, a.job_id, false, &info, NULL);
        if (info.state != CZK_JOB_QUEUED) break;
        usleep(1000);
    }
    czk_engine_cancel(e, a.job_id, &was_running, &err);
    CHECK_STATUS(czk_engine_await(e, a.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_CANCELLED || info.state == CZK_JOB_DONE);
    czk_job_info_clear(&info);
    /* The engine still works afterwards. */
    CHECK_STATUS(czk_engine_submit(e, &req, &a, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, a.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    czk_engine_get_status(e, &st, NULL);
    CHECK(st.pinned_in_use == 0);
    czk_engine_status_clear(&st);
    czk_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------ */

static void test_restart(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine *e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    czk_job_request req = circom_req("first", wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    czk_job_info done, run, info;
    czk_err err;
    CHECK_STATUS(czk_engine_submit(e, &req, &done, &err), CZK_OK);
    /* One engine per data directory. */
    czk_engine *e2 = NULL;
    czk_engine_config cfg2;
    memset(&cfg2, 0, sizeof cfg2);
    cfg2.data_dir = dd;
    cfg2.param_dir = param_dir;
    cfg2.gpu_mode = test_gpu_mode();
    CHECK_STATUS(czk_engine_create(&e2, &cfg2, &err), CZK_EBUSY);
    CHECK(e2 == NULL && strstr(err.msg, dd) != NULL);
    CHECK_STATUS(czk_engine_await(e, done.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE);
    czk_job_info_clear(&info);
    /* The second job is synthesized and waiting for the prover when the process "dies". */
    czk__engine_pause_provers(e, true);
    czk_job_request req2 = circom_req("second", wtns_good, wtns_good_len, CZK_PRIO_HIGH);
    CHECK_STATUS(czk_engine_submit(e, &req2, &run, &err), CZK_OK);
    for (int i = 0; i < 500; i++) {
        czk_engine_get(e, run.job_id, false, &info, NULL);
        if (info.partitions_synthesized == 1) break;
        usleep(10000);
    }
    CHECK(info.state == CZK_JOB_RUNNING);
    czk__engine_crash(e);

    e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    CHECK_STATUS(czk_engine_await(e, run.job_id, 60000, &info, &err), CZK_OK);
    CHECK_MSG(info.state == CZK_JOB_DONE, "state %s: %s", czk_job_state_name(info.state),
              info.error_message);
    CHECK(proof_valid(&info) && strcmp(info.request_id, "second") == 0);
    CHECK(info.priority == CZK_PRIO_HIGH);
    czk_job_info_clear(&info);
    /* The finished job and its proof are served from the journal. */
    CHECK_STATUS(czk_engine_get(e, done.job_id, true, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    CHECK(strcmp(info.circuit_id, "circom:t1") == 0);
    czk_job_info_clear(&info);
    /* Deduplication survives the restart. */
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK(strcmp(info.job_id, done.job_id) == 0);
    czk_job_request other = circom_req("first", wtns_bad, wtns_bad_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &other, &info, &err), CZK_OK);
    CHECK(strcmp(info.job_id, done.job_id) != 0);
    CHECK_STATUS(czk_engine_forget(e, info.job_id, NULL, NULL, &err), CZK_OK);
    czk_engine_destroy(e);

    /* A clean restart of a destroyed engine: nothing left to run, both still served. */
    e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    czk_job_info *list = NULL;
    size_t n = 0;
    CHECK_STATUS(czk_engine_list(e, 0, 0, &list, &n, &err), CZK_OK);
    CHECK(n == 2);
    for (size_t i = 0; i < n; i++) CHECK(list[i].state == CZK_JOB_DONE);
    if (n == 2) CHECK(strcmp(list[0].job_id, run.job_id) == 0); /* newest first */
    czk_engine_list_free(list, n);
    /* A drain whose grace ends before a job does leaves it journaled as queued: it runs
     * after the next start, same id. */
    czk__engine_pause_provers(e, true);
    czk_job_request req3 = circom_req("third", wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    czk_job_info third;
    CHECK_STATUS(czk_engine_submit(e, &req3, &third, &err), CZK_OK);
    czk_engine_drain(e, 50);
    czk_engine_get(e, third.job_id, false, &info, NULL);
    CHECK(info.state == CZK_JOB_QUEUED || info.state == CZK_JOB_RUNNING);
    czk_engine_destroy(e);
    e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    CHECK_STATUS(czk_engine_await(e, third.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    czk_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------ */

static void test_budget_backpressure(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    /* A budget far below one partition: everything runs one at a time, nothing fails. */
    czk_engine *e = make_engine(dd, 4096, 3);
    if (e == NULL) return;
    enum { N = 6 };
    char ids[N][CZK_JOB_ID_MAX];
    for (int i = 0; i < N; i++) {
        czk_job_request req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
        czk_job_info info;
        CHECK_STATUS(czk_engine_submit(e, &req, &info, NULL), CZK_OK);
        snprintf(ids[i], sizeof ids[i], "%s", info.job_id);
    }
    /* While they run, never more than one partition holds a buffer, and that one buffer
     * is reused rather than freed and allocated again. */
    uint64_t max_in_use = 0;
    for (int t = 0; t < 5000; t++) {
        czk_engine_status st;
        czk_engine_get_status(e, &st, NULL);
        bool all = st.completed == N;
        if (st.pinned_in_use > max_in_use) max_in_use = st.pinned_in_use;
        czk_engine_status_clear(&st);
        if (all) break;
        usleep(1000);
    }
    czk__pinned_stats ps;
    czk__engine_pinned_stats(e, &ps);
    CHECK_MSG(ps.allocations == 1 && max_in_use <= ps.total_bytes && max_in_use > 0,
              "allocations %llu, %llu bytes in use at most, %llu pooled",
              (unsigned long long)ps.allocations, (unsigned long long)max_in_use,
              (unsigned long long)ps.total_bytes);
    for (int i = 0; i < N; i++) {
        czk_job_info info;
        CHECK_STATUS(czk_engine_await(e, ids[i], 60000, &info, NULL), CZK_OK);
        CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
        czk_job_info_clear(&info);
    }
    czk_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------ */

static void test_bad_input(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine *e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    czk_err err;
    czk_job_info info;
    /* Garbage witness bytes: refused at submit, naming the field. */
    uint8_t garbage[100];
    czk_test_rand_bytes(garbage, sizeof garbage);
    czk_job_request req = circom_req(NULL, garbage, sizeof garbage, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_EFORMAT);
    CHECK(strstr(err.msg, "vanilla_proof") != NULL);
    /* Truncated witness. */
    req = circom_req(NULL, wtns_good, wtns_good_len - 7, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_ETRUNCATED);
    CHECK(strstr(err.msg, "vanilla_proof") != NULL);
    req = circom_req(NULL, NULL, 0, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_EINVAL);
    /* Missing zkey: refused at submit, naming the file. */
    req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    req.circuit = "missing";
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_ENOENT);
    CHECK(strstr(err.msg, "missing.zkey") != NULL);
    req.circuit = "../t1";
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_EINVAL);
    CHECK(strstr(err.msg, "circuit") != NULL);
    req.circuit = "t1";
    req.kind = (czk_job_kind)9;
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_EINVAL);
    CHECK(strstr(err.msg, "kind") != NULL);
    req.kind = CZK_JOB_CIRCOM;
    req.priority = (czk_job_priority)7;
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_EINVAL);

    /* Corrupt zkey: accepted (the file exists), FAILED at load time naming it. */
    req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    req.circuit = "corrupt";
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_FAILED && info.error != CZK_OK);
    CHECK_MSG(strstr(info.error_message, "corrupt.zkey") != NULL, "%s", info.error_message);
    czk_job_info_clear(&info);

    /* Witness of the wrong length: FAILED when the key is known. */
    req = circom_req(NULL, wtns_short, wtns_short_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_FAILED && info.error == CZK_EINVAL);
    CHECK(strstr(info.error_message, "witness values") != NULL);
    czk_job_info_clear(&info);

    /* A witness that does not satisfy the circuit proves, fails self-verification, is
     * retried once, and the job fails: an invalid proof is never returned. */
    req = circom_req(NULL, wtns_bad, wtns_bad_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_FAILED && info.error == CZK_EVERIFY);
    CHECK(info.proof == NULL);
    CHECK(strstr(info.error_message, "self-verification") != NULL);
    czk_job_info_clear(&info);
    char *m = czk_engine_metrics_text(e);
    CHECK(m != NULL && strstr(m, "czk_verification_failures_total 2\n") != NULL);
    czk_free(m);
    czk_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------ */

static void test_verify_retry_and_fallback(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine *e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    czk_err err;
    czk_job_info info;
    /* One bad proof: the partition is proved again and the job succeeds. */
    czk__engine_fail_next_verifications(e, 1);
    czk_job_request req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    char *m = czk_engine_metrics_text(e);
    CHECK(m != NULL && strstr(m, "czk_partition_retries_total 1\n") != NULL);
    czk_free(m);
    /* Two: the job fails with the details. */
    czk__engine_fail_next_verifications(e, 2);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_FAILED && info.error == CZK_EVERIFY && info.proof == NULL);
    czk_job_info_clear(&info);
    /* The pinned pool cannot grow: ordinary memory, counted, the job still succeeds. */
    czk__engine_pinned_fault(e, true);
    czk_engine_evict(e, "circom:t1", NULL, NULL, NULL);
    czk__pinned_stats before, after;
    czk__engine_pinned_stats(e, &before);
    /* Drop the idle pooled buffer so the next checkout must allocate. */
    czk_engine_status st;
    czk_engine_get_status(e, &st, NULL);
    czk_engine_status_clear(&st);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    czk__engine_pinned_stats(e, &after);
    /* The pooled buffer from before is reused when free; the fault only bites when the
     * pool must grow, so either it was reused or a fallback was counted. */
    CHECK(after.reuses > before.reuses || after.fallbacks > before.fallbacks);
    czk__engine_pinned_fault(e, false);
    czk_engine_destroy(e);

    /* pageable_buffers: every partition in ordinary memory, all counted as fallbacks. */
    new_data_dir(dd, sizeof dd);
    czk_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.data_dir = dd;
    cfg.param_dir = param_dir;
    cfg.gpu_mode = test_gpu_mode();
    cfg.synthesis_threads = 2;
    cfg.pageable_buffers = true;
    CHECK_STATUS(czk_engine_create(&e, &cfg, &err), CZK_OK);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    czk__engine_pinned_stats(e, &after);
    CHECK(after.allocations == 0 && after.total_bytes == 0);
    czk_engine_destroy(e);

    /* An unwritable data_dir is an error naming it. */
    cfg.data_dir = "/proc/czk-no-such-dir";
    cfg.pageable_buffers = false;
    CHECK(czk_engine_create(&e, &cfg, &err) != CZK_OK);
    CHECK(strstr(err.msg, "/proc/czk-no-such-dir") != NULL);
}

/* The gpu_end events' messages of a job (the GPU prover's note): how many, how many say
 * the proof was retried, and how many that all four of a, b, c and aux came packed. */
typedef struct note_rec {
    pthread_mutex_t mu;
    int gpu_ends, retried, packed4;
} note_rec;

static void on_note(void *ctx, const czk_job_event *ev)
{
    note_rec *r = ctx;
    pthread_mutex_lock(&r->mu);
    if (ev->type == CZK_EV_GPU_END) {
        r->gpu_ends++;
        if (strstr(ev->message, "retried=1") != NULL) r->retried++;
        if (strstr(ev->message, "packed=4 ") != NULL) r->packed4++;
    }
    pthread_mutex_unlock(&r->mu);
}

/* The counts of on_note over a job's events so far (the job has ended). */
static note_rec job_notes(czk_engine *e, const char *id)
{
    note_rec rec;
    memset(&rec, 0, sizeof rec);
    pthread_mutex_init(&rec.mu, NULL);
    uint64_t wh = 0;
    czk_err err;
    CHECK_STATUS(czk_engine_watch(e, id, on_note, &rec, &wh, &err), CZK_OK);
    czk_engine_unwatch(e, wh);
    pthread_mutex_destroy(&rec.mu);
    return rec;
}

/* A GPU proof that runs out of device memory (as one beside a proof that handed the GPU
 * on can) is proved again on the GPU with it to itself, not failed nor sent to the CPU. */
static void test_gpu_oom_retry(void)
{
    if (czk_gpu_count() == 0) {
        printf("     (skipped: no GPU; the retry is the GPU prover's)\n");
        return;
    }
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine *e = make_engine(dd, 0, 0);
    if (e == NULL) return;
    czk_err err;
    czk_job_info info;
    czk_job_request req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    czk__engine_fail_next_gpu_proofs_oom(e, 1);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    char id[CZK_JOB_ID_MAX];
    snprintf(id, sizeof id, "%s", info.job_id);
    CHECK_STATUS(czk_engine_await(e, id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    note_rec rec = job_notes(e, id);
    CHECK_MSG(rec.gpu_ends == 1 && rec.retried == 1, "%d gpu_end events, %d retried",
              rec.gpu_ends, rec.retried);
    /* The GPU's lock and in-flight count are back: the next job proves normally. */
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    czk_engine_destroy(e);
}

/*
 * gpus.pack_copies: t2's partition (nine rows in ten boolean) is packed after synthesis
 * and the GPU copies the packed a, b, c and aux (the gpu_end note says packed=4); the proof
 * verifies, as does one of t1 (random values, more than half of each vector neither 0 nor
 * 1: copied plain) from the same engine.
 */
static void test_gpu_packed(void)
{
    if (czk_gpu_count() == 0) {
        printf("     (skipped: no GPU; packing is for the GPU's copies)\n");
        return;
    }
    char dd[400];
    new_data_dir(dd, sizeof dd);
    test_pack = true;
    czk_engine *e = make_engine(dd, 0, 0);
    test_pack = false;
    if (e == NULL) return;
    czk_err err;
    czk_job_info info;
    czk_job_request req = circom_req(NULL, wtns2, wtns2_len, CZK_PRIO_NORMAL);
    req.circuit = "t2";
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    char id[CZK_JOB_ID_MAX];
    snprintf(id, sizeof id, "%s", info.job_id);
    CHECK_STATUS(czk_engine_await(e, id, 60000, &info, &err), CZK_OK);
    CHECK_MSG(info.state == CZK_JOB_DONE, "state %s: %s", czk_job_state_name(info.state),
              info.error_message);
    czk_groth16_proof p;
    CHECK(info.proof != NULL && info.proof_len == CZK_GROTH16_PROOF_SIZE &&
          czk_groth16_proof_read(&p, info.proof, NULL) == CZK_OK &&
          czk_groth16_verify(&pvk2, &p, z2 + 1, n_inputs2 - 1, NULL) == CZK_OK);
    czk_job_info_clear(&info);
    note_rec rec = job_notes(e, id);
    CHECK_MSG(rec.gpu_ends == 1 && rec.packed4 == 1, "%d gpu_end events, %d with packed=4",
              rec.gpu_ends, rec.packed4);
    req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    czk_engine_destroy(e);
}

/* czk_test_run reports CPU time; the engine's tests mostly wait, so show wall time too. */
static void run_wall(const char *name, void (*fn)(void))
{
    uint64_t t0 = czk_clock_us();
    czk_test_run(name, fn);
    printf("     %-40s %8.1f ms wall\n", name, (double)(czk_clock_us() - t0) / 1000.0);
}
#define RUNW(fn) run_wall(#fn, fn)

typedef struct storm_rec {
    pthread_mutex_t mu;
    int events, terminal;
} storm_rec;

static void storm_event(void *ctx, const czk_job_event *ev)
{
    storm_rec *r = ctx;
    pthread_mutex_lock(&r->mu);
    r->events++;
    if (ev->type == CZK_EV_DONE || ev->type == CZK_EV_FAILED || ev->type == CZK_EV_CANCELLED)
        r->terminal++;
    pthread_mutex_unlock(&r->mu);
}

/* Cancels racing the workers at every stage: every job ends DONE (with a valid proof) or
 * CANCELLED, the counters add up, and all memory is back. */
static void test_cancel_storm(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine *e = make_engine(dd, 0, 3);
    if (e == NULL) return;
    storm_rec rec;
    memset(&rec, 0, sizeof rec);
    pthread_mutex_init(&rec.mu, NULL);
    uint64_t wh = 0;
    CHECK_STATUS(czk_engine_watch(e, NULL, storm_event, &rec, &wh, NULL), CZK_OK);
    enum { N = 40 };
    char ids[N][CZK_JOB_ID_MAX];
    for (int i = 0; i < N; i++) {
        czk_job_request req = circom_req(NULL, wtns_good, wtns_good_len,
                                         (czk_job_priority)(1 + czk_test_rand64() % 4));
        czk_job_info info;
        CHECK_STATUS(czk_engine_submit(e, &req, &info, NULL), CZK_OK);
        snprintf(ids[i], sizeof ids[i], "%s", info.job_id);
        if (i >= 3 && czk_test_rand64() % 2) {
            usleep((useconds_t)(czk_test_rand64() % 3000));
            CHECK_STATUS(czk_engine_cancel(e, ids[czk_test_rand64() % (uint64_t)i], NULL, NULL),
                         CZK_OK);
        }
    }
    int done = 0, cancelled = 0;
    for (int i = 0; i < N; i++) {
        czk_job_info info;
        CHECK_STATUS(czk_engine_await(e, ids[i], 60000, &info, NULL), CZK_OK);
        if (info.state == CZK_JOB_DONE) {
            done++;
            CHECK(proof_valid(&info));
        } else {
            CHECK(info.state == CZK_JOB_CANCELLED && info.proof == NULL);
            cancelled++;
        }
        czk_job_info_clear(&info);
    }
    CHECK(done + cancelled == N);
    czk_engine_status st;
    CHECK_STATUS(czk_engine_get_status(e, &st, NULL), CZK_OK);
    CHECK(st.completed == (uint64_t)done && st.cancelled == (uint64_t)cancelled);
    czk_engine_status_clear(&st);
    /* A job cancelled while its partition was on a prover is terminal at once; the prover
     * hands the buffers back when its current call returns (a GPU proof cannot be
     * interrupted). Every buffer must come back, promptly. */
    uint64_t in_use = UINT64_MAX;
    for (int t = 0; t < 500 && in_use != 0; t++) {
        if (t) usleep(10000);
        CHECK_STATUS(czk_engine_get_status(e, &st, NULL), CZK_OK);
        in_use = st.pinned_in_use;
        czk_engine_status_clear(&st);
    }
    CHECK_MSG(in_use == 0, "%" PRIu64 " pinned bytes still in use 5 s after the storm", in_use);
    for (int t = 0; t < 200; t++) {
        pthread_mutex_lock(&rec.mu);
        int term = rec.terminal;
        pthread_mutex_unlock(&rec.mu);
        if (term == N) break;
        usleep(10000);
    }
    czk_engine_unwatch(e, wh);
    pthread_mutex_lock(&rec.mu);
    CHECK_MSG(rec.terminal == N, "%d terminal events for %d jobs", rec.terminal, N);
    CHECK(rec.events >= N * 2);
    pthread_mutex_unlock(&rec.mu);
    czk_engine_destroy(e);
}

/* Idle parameters give way under memory pressure; a pinned limit sends partitions to
 * ordinary memory without failing them. */
static void test_evict_under_pressure(void)
{
    char src[400], dst[400], cmd[900];
    snprintf(src, sizeof src, "%s/t1.zkey", param_dir);
    snprintf(dst, sizeof dst, "%s/t2.zkey", param_dir);
    snprintf(cmd, sizeof cmd, "cp %s %s", src, dst);
    CHECK(system(cmd) == 0);
    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.data_dir = dd;
    cfg.param_dir = param_dir;
    cfg.gpu_mode = test_gpu_mode();
    cfg.synthesis_threads = 2;
    cfg.memory_budget = 1;     /* everything is over budget */
    cfg.srs_idle_evict_s = 1;  /* idle for a second: evictable */
    cfg.pinned_limit = 4096;   /* smaller than one partition: the pool cannot grow */
    czk_engine *e = NULL;
    czk_err err;
    CHECK_STATUS(czk_engine_create(&e, &cfg, &err), CZK_OK);
    if (e == NULL) return;
    bool already = true;
    CHECK_STATUS(czk_engine_preload(e, "circom:t1", &already, NULL, &err), CZK_OK);
    CHECK(!already);
    usleep(1200000);
    czk_job_request req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
    req.circuit = "t2";
    czk_job_info info;
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE && proof_valid(&info));
    czk_job_info_clear(&info);
    czk_engine_status st;
    CHECK_STATUS(czk_engine_get_status(e, &st, &err), CZK_OK);
    int t1_tier = -1, t2_tier = -1;
    for (size_t i = 0; i < st.nsrs; i++) {
        if (strcmp(st.srs[i].circuit_id, "circom:t1") == 0) t1_tier = st.srs[i].tier;
        if (strcmp(st.srs[i].circuit_id, "circom:t2") == 0) t2_tier = st.srs[i].tier;
    }
    CHECK_MSG(t1_tier == 2 && t2_tier == test_loaded_tier(), "t1 tier %d, t2 tier %d", t1_tier,
              t2_tier);
    CHECK(st.pinned_bytes == 0);
    czk_engine_status_clear(&st);
    char *m = czk_engine_metrics_text(e);
    CHECK(m != NULL && strstr(m, "czk_pinned_fallbacks_total 1\n") != NULL);
    czk_free(m);
    /* Evicting parameters a job holds is refused. */
    czk__engine_pause_provers(e, true);
    CHECK_STATUS(czk_engine_submit(e, &req, &info, &err), CZK_OK);
    for (int i = 0; i < 500; i++) {
        czk_job_info one;
        czk_engine_get(e, info.job_id, false, &one, NULL);
        if (one.partitions_synthesized == 1) break;
        usleep(10000);
    }
    CHECK_STATUS(czk_engine_evict(e, "circom:t2", NULL, NULL, &err), CZK_EBUSY);
    czk__engine_pause_provers(e, false);
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &info, &err), CZK_OK);
    CHECK(info.state == CZK_JOB_DONE);
    czk_job_info_clear(&info);
    bool was = false;
    CHECK_STATUS(czk_engine_evict(e, "circom:t2", &was, NULL, &err), CZK_OK);
    CHECK(was);
    czk_engine_destroy(e);
    unlink(dst);
}

/*
 * The express lane: with the provers paused, one ordinary synthesis worker stops at the
 * lookahead limit (synthesized partitions waiting for a prover), so NORMAL jobs queue up
 * unsynthesized; a CRITICAL small job is synthesized at once anyway, by the express
 * worker ("synth-express"), and is proved first once the provers resume.
 */
typedef struct worker_rec {
    pthread_mutex_t mu;
    int type; /* the event whose worker is recorded */
    char worker[32];
} worker_rec;

static void on_worker_event(void *ctx, const czk_job_event *ev)
{
    worker_rec *r = ctx;
    if ((int)ev->type != r->type) return;
    pthread_mutex_lock(&r->mu);
    snprintf(r->worker, sizeof r->worker, "%s", ev->worker);
    pthread_mutex_unlock(&r->mu);
}

/* Watch job id for the worker of its `type` events into *r (its mutex initialized). */
static void watch_worker(czk_engine *e, const char *id, int type, worker_rec *r, uint64_t *wh)
{
    memset(r, 0, sizeof *r);
    r->type = type;
    pthread_mutex_init(&r->mu, NULL);
    CHECK_STATUS(czk_engine_watch(e, id, on_worker_event, r, wh, NULL), CZK_OK);
}

static void test_express_lane(void)
{
    char dd[400];
    new_data_dir(dd, sizeof dd);
    test_workers_per_device = 1;
    czk_engine *e = make_engine(dd, 0, 1);
    test_workers_per_device = 0;
    if (e == NULL) return;
    czk__engine_pause_provers(e, true);
    enum { N = 8 };
    char ids[N][CZK_JOB_ID_MAX];
    for (int i = 0; i < N; i++) {
        czk_job_request req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_NORMAL);
        czk_job_info info;
        CHECK_STATUS(czk_engine_submit(e, &req, &info, NULL), CZK_OK);
        snprintf(ids[i], sizeof ids[i], "%s", info.job_id);
    }
    /* Let the ordinary worker run into the lookahead limit. */
    usleep(500000);
    czk_job_request req = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_CRITICAL);
    czk_job_info info;
    CHECK_STATUS(czk_engine_submit(e, &req, &info, NULL), CZK_OK);
    char crit[CZK_JOB_ID_MAX];
    snprintf(crit, sizeof crit, "%s", info.job_id);
    worker_rec rec;
    uint64_t wh = 0;
    watch_worker(e, crit, CZK_EV_PARTITION_SYNTH_START, &rec, &wh);
    bool synthesized = false;
    for (int k = 0; k < 500 && !synthesized; k++) {
        czk_job_info one;
        if (czk_engine_get(e, crit, false, &one, NULL) == CZK_OK)
            synthesized = one.partitions_synthesized == 1;
        czk_job_info_clear(&one);
        if (!synthesized) usleep(10000);
    }
    CHECK_MSG(synthesized, "the CRITICAL job was not synthesized while the provers were paused");
    /* The NORMAL jobs behind the lookahead are still waiting for synthesis. */
    int waiting = 0;
    for (int i = 0; i < N; i++) {
        czk_job_info one;
        if (czk_engine_get(e, ids[i], false, &one, NULL) == CZK_OK &&
            one.partitions_synthesized == 0)
            waiting++;
        czk_job_info_clear(&one);
    }
    CHECK_MSG(waiting >= N - 4, "only %d NORMAL jobs still wait for synthesis", waiting);
    pthread_mutex_lock(&rec.mu);
    CHECK_MSG(strcmp(rec.worker, "synth-express") == 0, "synthesized by '%s'", rec.worker);
    pthread_mutex_unlock(&rec.mu);
    czk_engine_unwatch(e, wh);
    czk__engine_pause_provers(e, false);
    czk_job_info done;
    CHECK_STATUS(czk_engine_await(e, crit, 60000, &done, NULL), CZK_OK);
    CHECK(done.state == CZK_JOB_DONE && proof_valid(&done));
    CHECK_MSG(strcmp(done.assigned_gpu, czk_gpu_count() > 0 ? "gpu0-express" : "cpu-express") == 0,
              "proved by %s", done.assigned_gpu);
    czk_job_info_clear(&done);
    for (int i = 0; i < N; i++) {
        czk_job_info one;
        CHECK_STATUS(czk_engine_await(e, ids[i], 60000, &one, NULL), CZK_OK);
        CHECK(one.state == CZK_JOB_DONE);
        czk_job_info_clear(&one);
    }
    pthread_mutex_destroy(&rec.mu);
    czk_engine_destroy(e);
}

/*
 * The CPU back end's express lane: a CRITICAL small job submitted while a NORMAL proof is
 * on the CPU is proved at once by "cpu-express", on its own pool, and is done while that
 * proof is still running (a single CPU prover made a WinningPoSt wait for it).
 */
static void test_cpu_express_lane(void)
{
    /* t3: a NORMAL proof that keeps the CPU prover busy for seconds. */
    czk_r1cs r3;
    czk_fr *z3 = random_circuit(&r3, 2, 1u << 16, 5);
    char path[400];
    snprintf(path, sizeof path, "%s/t3.zkey", param_dir);
    czk_groth16_vk vk3;
    czk_err err;
    CHECK_STATUS(czk_groth16_setup_zkey(path, &r3, &vk3, NULL, NULL, NULL, &err), CZK_OK);
    czk_groth16_vk_free(&vk3);
    size_t w3_len = 0;
    uint8_t *w3 = wtns_bytes(z3, r3.n_inputs + r3.n_aux, &w3_len);
    czk_r1cs_free(&r3);
    czk_free(z3);

    char dd[400];
    new_data_dir(dd, sizeof dd);
    czk_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.data_dir = dd;
    cfg.param_dir = param_dir;
    cfg.synthesis_threads = 2;
    cfg.gpu_mode = 1; /* the CPU back end, with or without a GPU */
    czk_engine *e = NULL;
    CHECK_STATUS(czk_engine_create(&e, &cfg, &err), CZK_OK);
    if (e == NULL) {
        czk_free(w3);
        return;
    }
    czk_job_request big = circom_req(NULL, w3, w3_len, CZK_PRIO_NORMAL);
    big.circuit = "t3";
    czk_job_info info;
    CHECK_STATUS(czk_engine_submit(e, &big, &info, &err), CZK_OK);
    char big_id[CZK_JOB_ID_MAX];
    snprintf(big_id, sizeof big_id, "%s", info.job_id);
    worker_rec rec;
    uint64_t wh = 0;
    watch_worker(e, big_id, CZK_EV_GPU_START, &rec, &wh);
    bool proving = false;
    for (int k = 0; k < 6000 && !proving; k++) {
        pthread_mutex_lock(&rec.mu);
        proving = rec.worker[0] != '\0';
        pthread_mutex_unlock(&rec.mu);
        if (!proving) usleep(5000);
    }
    CHECK_MSG(proving, "the NORMAL job never reached its prover");
    czk_engine_unwatch(e, wh);
    CHECK_MSG(strcmp(rec.worker, "cpu") == 0, "the NORMAL job is proved by '%s'", rec.worker);

    czk_job_request crit = circom_req(NULL, wtns_good, wtns_good_len, CZK_PRIO_CRITICAL);
    CHECK_STATUS(czk_engine_submit(e, &crit, &info, &err), CZK_OK);
    czk_job_info done;
    CHECK_STATUS(czk_engine_await(e, info.job_id, 60000, &done, &err), CZK_OK);
    CHECK(done.state == CZK_JOB_DONE && proof_valid(&done));
    CHECK_MSG(strcmp(done.assigned_gpu, "cpu-express") == 0, "CRITICAL proved by %s",
              done.assigned_gpu);
    czk_job_info_clear(&done);
    czk_job_info one;
    CHECK_STATUS(czk_engine_get(e, big_id, false, &one, &err), CZK_OK);
    CHECK_MSG(one.state == CZK_JOB_RUNNING && one.partitions_proved == 0,
              "the NORMAL proof ended before the CRITICAL job (state %s)",
              czk_job_state_name(one.state));
    czk_job_info_clear(&one);
    CHECK_STATUS(czk_engine_await(e, big_id, 120000, &one, &err), CZK_OK);
    CHECK(one.state == CZK_JOB_DONE);
    czk_job_info_clear(&one);
    pthread_mutex_destroy(&rec.mu);
    czk_engine_destroy(e);
    czk_free(w3);
}

/*
 * Where an express lane exists only it takes its partitions: an ordinary GPU prover that
 * took a WinningPoSt's partition queued it for the GPU behind the 32 GiB proofs (14.4 s
 * on the H200 at 16 GiB). A small CRITICAL partition is the express lane's, a large or a
 * NORMAL one the ordinary workers'; before its parameters load, a CRITICAL one is express.
 */
static void test_sched_lanes(void)
{
    czk__params small, big;
    memset(&small, 0, sizeof small);
    memset(&big, 0, sizeof big);
    small.state = big.state = CZK__PE_LOADED;
    small.pk.log_m = 19;
    small.pk.n_aux = 375210;
    big.pk.log_m = 27;
    big.pk.n_aux = 130169893;
    czk__job jn, jc, jw;
    memset(&jn, 0, sizeof jn);
    memset(&jc, 0, sizeof jc);
    memset(&jw, 0, sizeof jw);
    jn.prio = CZK_PRIO_NORMAL;
    jn.seq = 1;
    jn.params = &big;
    jc.prio = CZK_PRIO_CRITICAL;
    jc.seq = 2;
    jc.params = &small;
    jw.prio = CZK_PRIO_CRITICAL; /* a WindowPoSt: CRITICAL, but 2^27 */
    jw.seq = 3;
    jw.params = &big;
    czk__part pn = {.job = &jn}, pc = {.job = &jc}, pw = {.job = &jw};
    czk__part *q[3] = {&pn, &pc, &pw};
    CHECK(czk__sched_express(&pc) && !czk__sched_express(&pn) && !czk__sched_express(&pw));
    CHECK(czk__sched_best(q, 3) == 1);
    CHECK(czk__sched_best_express(q, 3) == 1);
    CHECK(czk__sched_best_ordinary(q, 3) == 2);
    CHECK(czk__sched_best_ordinary(q, 2) == 0);
    CHECK(czk__sched_best_ordinary(&q[1], 1) == SIZE_MAX);
    small.state = CZK__PE_COLD;
    CHECK(czk__sched_express(&pc));
    jc.prio = CZK_PRIO_HIGH;
    CHECK(!czk__sched_express(&pc) && czk__sched_best_ordinary(&q[1], 1) == 0);
}

/* A thread that enters beside the GPU's holder (or takes it alone) and says when it has. */
typedef struct lock_try {
    czk__gpu_lock *l;
    bool alone;
    atomic_bool in;
} lock_try;

static void *lock_try_main(void *arg)
{
    lock_try *t = arg;
    if (t->alone)
        czk__sched_gpu_lock_ex(t->l, false, true);
    else
        czk__sched_gpu_enter(t->l);
    atomic_store(&t->in, true);
    return NULL;
}

static bool lock_try_wait(lock_try *t, int ms)
{
    for (int i = 0; i < ms && !atomic_load(&t->in); i++) usleep(1000);
    return atomic_load(&t->in);
}

/*
 * The GPU lock's beside entry (an express proof of a planned set): it does not wait for a
 * holder, but does wait while the holder asked for the GPU alone, and a proof that asks
 * for it alone waits for one beside it to leave.
 */
static void test_gpu_lock_beside(void)
{
    czk__gpu_lock l;
    memset(&l, 0, sizeof l);
    czk__sched_gpu_lock_init(&l);
    pthread_t th;
    /* Beside an ordinary holder: in at once. */
    czk__sched_gpu_lock(&l, false);
    lock_try b = {&l, false, false};
    CHECK(pthread_create(&th, NULL, lock_try_main, &b) == 0);
    CHECK(lock_try_wait(&b, 2000));
    pthread_join(th, NULL);
    czk__sched_gpu_done(&l); /* the beside proof leaves */
    czk__sched_gpu_unlock(&l);
    czk__sched_gpu_done(&l);
    /* Beside a holder that asked for the GPU alone: only once it has given it back. */
    czk__sched_gpu_lock_ex(&l, false, true);
    lock_try d = {&l, false, false};
    CHECK(pthread_create(&th, NULL, lock_try_main, &d) == 0);
    CHECK(!lock_try_wait(&d, 100));
    czk__sched_gpu_unlock(&l);
    CHECK(lock_try_wait(&d, 2000));
    pthread_join(th, NULL);
    czk__sched_gpu_done(&l); /* the alone holder */
    /* d is still beside: a proof that wants the GPU alone waits for it. */
    lock_try f = {&l, true, false};
    CHECK(pthread_create(&th, NULL, lock_try_main, &f) == 0);
    CHECK(!lock_try_wait(&f, 100));
    czk__sched_gpu_done(&l);
    CHECK(lock_try_wait(&f, 2000));
    pthread_join(th, NULL);
    czk__sched_gpu_unlock(&l);
    czk__sched_gpu_done(&l);
    czk__sched_gpu_lock_destroy(&l);
}

int main(void)
{
    czk_test_seed();
    czk_log_set_level(CZK_LOG_ERROR);
    setup_fixture();
    RUNW(test_end_to_end);
    RUNW(test_concurrent_100);
    RUNW(test_priority);
    RUNW(test_express_lane);
    RUN(test_sched_lanes);
    RUN(test_gpu_lock_beside);
    RUNW(test_cpu_express_lane);
    RUNW(test_dedup);
    RUNW(test_retry_and_forget);
    RUNW(test_stored_integrity);
    RUNW(test_cancel);
    RUNW(test_restart);
    RUNW(test_budget_backpressure);
    RUNW(test_bad_input);
    RUNW(test_verify_retry_and_fallback);
    RUNW(test_gpu_oom_retry);
    RUNW(test_gpu_packed);
    RUNW(test_evict_under_pressure);
    RUNW(test_cancel_storm);
    czk_free(wtns_good);
    czk_free(wtns_bad);
    czk_free(wtns_short);
    czk_free(z_good);
    czk_free(z2);
    czk_free(wtns2);
    czk_groth16_vk_free(&vk);
    czk_groth16_vk_free(&vk2);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return czk_test_finish();
}
