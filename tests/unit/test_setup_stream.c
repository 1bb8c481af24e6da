/*
 * Seeded and streaming test-parameter generation (czk_groth16_setup_r1cs,
 * czk_groth16_setup_circuit, czk_fil_test_params_make / _generate):
 *   - the seeded waste is the documented derivation: α, β, γ, δ recomputed here with
 *     OpenSSL (SHA-512, BIGNUM mod r) and multiplied by the generators match the vk;
 *   - the streaming entry on a random circuit (±1, general and duplicate coefficients,
 *     constants, dense and sparse B) equals the R1CS entry on the same circuit's recorded
 *     R1CS, byte for byte, every point and the vk; one seed twice gives the same keys,
 *     another seed other keys;
 *   - proofs made with the streamed keys (witness from an EVAL run) verify, and fail for
 *     a wrong public input;
 *   - czk_fil_test_params_generate's files hold the keys czk_fil_test_params_make gives in
 *     memory for the same circuit.
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/fil_job.h"
#include "czk/groth16.h"
#include "czk_test.h"
#include "groth16/setup_internal.h"
#include "unit/setup_circuit.h"

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <unistd.h>

static czk_pool *pool;

/* The documented seeded derivation, recomputed with OpenSSL alone: the scalar of `label`
 * as 32 little-endian bytes (counter 0; a zero there has probability 2^-255). */
static void ref_scalar(uint8_t out[32], const uint8_t seed[32], const char *label)
{
    static const char DOMAIN[] = "czk groth16 setup v1";
    static const uint8_t R_BE[32] = {0x73, 0xed, 0xa7, 0x53, 0x29, 0x9d, 0x7d, 0x48,
                                     0x33, 0x39, 0xd8, 0x08, 0x09, 0xa1, 0xd8, 0x05,
                                     0x53, 0xbd, 0xa4, 0x02, 0xff, 0xfe, 0x5b, 0xfe,
                                     0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01};
    uint8_t ctr[4] = {0}, wide[64];
    unsigned len = 0;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_DigestInit_ex(md, EVP_sha512(), NULL);
    EVP_DigestUpdate(md, DOMAIN, sizeof DOMAIN - 1);
    EVP_DigestUpdate(md, seed, 32);
    EVP_DigestUpdate(md, label, strlen(label));
    EVP_DigestUpdate(md, ctr, 4);
    EVP_DigestFinal_ex(md, wide, &len);
    EVP_MD_CTX_free(md);
    BN_CTX *bctx = BN_CTX_new();
    BIGNUM *w = BN_lebin2bn(wide, 64, NULL), *r = BN_bin2bn(R_BE, 32, NULL), *k = BN_new();
    BN_mod(k, w, r, bctx);
    BN_bn2lebinpad(k, out, 32);
    BN_free(w);
    BN_free(r);
    BN_free(k);
    BN_CTX_free(bctx);
}

static void test_seed_derivation(void)
{
    struct rc x = {czk_test_rand64(), 2, 3, 20, NULL};
    uint8_t seed[32];
    czk_test_rand_bytes(seed, sizeof seed);
    czk_groth16_setup_opts o;
    memset(&o, 0, sizeof o);
    o.seed = seed;
    czk_groth16_params pk;
    czk_err err;
    CHECK_STATUS(czk_groth16_setup_circuit(&pk, rand_circuit, &x, &o, pool, NULL, NULL, &err),
                 CZK_OK);
    static const char *const labels[4] = {"alpha", "beta", "gamma", "delta"};
    czk_fr k[4];
    for (int i = 0; i < 4; i++) {
        uint8_t le[32];
        ref_scalar(le, seed, labels[i]);
        CHECK(czk_fr_from_bytes_le(&k[i], le));
    }
    czk_g1_jac g1, t1;
    czk_g2_jac g2, t2;
    czk_g1_affine p1;
    czk_g2_affine p2;
    czk_g1_jac_from_affine(&g1, &CZK_G1_GENERATOR);
    czk_g2_jac_from_affine(&g2, &CZK_G2_GENERATOR);
    czk_g1_jac_mul_fr(&t1, &g1, &k[0]);
    czk_g1_jac_to_affine(&p1, &t1);
    CHECK_MEM(&p1, &pk.vk.alpha_g1, sizeof p1);
    czk_g2_jac_mul_fr(&t2, &g2, &k[1]);
    czk_g2_jac_to_affine(&p2, &t2);
    CHECK_MEM(&p2, &pk.vk.beta_g2, sizeof p2);
    czk_g2_jac_mul_fr(&t2, &g2, &k[2]);
    czk_g2_jac_to_affine(&p2, &t2);
    CHECK_MEM(&p2, &pk.vk.gamma_g2, sizeof p2);
    czk_g1_jac_mul_fr(&t1, &g1, &k[3]);
    czk_g1_jac_to_affine(&p1, &t1);
    CHECK_MEM(&p1, &pk.vk.delta_g1, sizeof p1);
    czk_groth16_params_free(&pk);
}

/* The circuit's R1CS, recorded. */
static void record(czk_r1cs *r, struct rc *x)
{
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_RECORD;
    czk_cs *cs = NULL;
    czk_err err;
    CHECK_STATUS(czk_cs_create(&cs, &cfg, &err), CZK_OK);
    CHECK_STATUS(rand_circuit(cs, x), CZK_OK);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    CHECK_STATUS(czk_cs_take_r1cs(cs, r, &err), CZK_OK);
    czk_cs_destroy(cs);
}

struct progress_seen {
    uint64_t calls, last_done, total;
    bool monotone;
};

static void progress_cb(void *p, uint64_t done, uint64_t total)
{
    struct progress_seen *s = p;
    if (s->calls > 0 && (done < s->last_done || total != s->total)) s->monotone = false;
    s->calls++;
    s->last_done = done;
    s->total = total;
}

/* Prove with pk (witness from an EVAL run of the circuit) and verify; a wrong public
 * input must fail. */
static void prove_verify(const czk_groth16_params *pk, struct rc *x)
{
    struct setup_eval e;
    setup_eval(&e, pk, x);
    czk_err err;
    czk_groth16_proof proof;
    CHECK_STATUS(czk_groth16_prove(&proof, pk, &e.asg, NULL, NULL, pool, NULL, &err), CZK_OK);
    czk_groth16_pvk pvk;
    czk_groth16_prepare_vk(&pvk, &pk->vk);
    CHECK_STATUS(czk_groth16_verify(&pvk, &proof, e.inputs + 1, x->n_pub, &err), CZK_OK);
    czk_fr bad = e.inputs[1];
    czk_fr_add(&e.inputs[1], &bad, &CZK_FR_ONE);
    CHECK_STATUS(czk_groth16_verify(&pvk, &proof, e.inputs + 1, x->n_pub, &err), CZK_EVERIFY);
    setup_eval_free(&e);
}

static void stream_equals_r1cs(uint32_t n_pub, uint32_t n_mul)
{
    czk_fr pub[8];
    for (uint32_t i = 0; i < n_pub && i < 8; i++) {
        uint64_t s = czk_test_rand64();
        fr_of(&pub[i], &s);
    }
    struct rc x = {czk_test_rand64(), n_pub, 5, n_mul, pub};
    uint8_t seed[32], seed2[32];
    czk_test_rand_bytes(seed, sizeof seed);
    memcpy(seed2, seed, 32);
    seed2[31] ^= 1;
    czk_groth16_setup_opts o;
    memset(&o, 0, sizeof o);
    o.seed = seed;
    czk_err err;

    czk_r1cs r;
    record(&r, &x);
    czk_groth16_params p_r1cs, p_stream, p_again, p_other;
    struct progress_seen ps = {0, 0, 0, true};
    CHECK_STATUS(czk_groth16_setup_r1cs(&p_r1cs, &r, &o, pool, NULL, NULL, &err), CZK_OK);
    CHECK_STATUS(
        czk_groth16_setup_circuit(&p_stream, rand_circuit, &x, &o, pool, progress_cb, &ps, &err),
        CZK_OK);
    CHECK_MSG(params_equal(&p_r1cs, &p_stream), "n_pub %u n_mul %u", n_pub, n_mul);
    CHECK(ps.calls > 0 && ps.monotone && ps.last_done == ps.total);
    CHECK_STATUS(czk_groth16_setup_circuit(&p_again, rand_circuit, &x, &o, pool, NULL, NULL, &err),
                 CZK_OK);
    CHECK(params_equal(&p_stream, &p_again));
    o.seed = seed2;
    CHECK_STATUS(czk_groth16_setup_circuit(&p_other, rand_circuit, &x, &o, pool, NULL, NULL, &err),
                 CZK_OK);
    CHECK(!vk_equal(&p_stream.vk, &p_other.vk));
    CHECK(p_stream.h_len == p_other.h_len &&
          memcmp(p_stream.h, p_other.h, p_stream.h_len * sizeof *p_stream.h) != 0);
    /* Random waste (no seed) is other keys again, and still valid ones. */
    czk_groth16_params p_rand;
    CHECK_STATUS(czk_groth16_setup_circuit(&p_rand, rand_circuit, &x, NULL, pool, NULL, NULL, &err),
                 CZK_OK);
    CHECK(!vk_equal(&p_stream.vk, &p_rand.vk));
    prove_verify(&p_stream, &x);
    prove_verify(&p_rand, &x);
    czk_groth16_params_free(&p_r1cs);
    czk_groth16_params_free(&p_stream);
    czk_groth16_params_free(&p_again);
    czk_groth16_params_free(&p_other);
    czk_groth16_params_free(&p_rand);
    czk_r1cs_free(&r);
}

static void test_stream_small(void) { stream_equals_r1cs(1, 30); }
static void test_stream_mid(void) { stream_equals_r1cs(3, 1000); }
static void test_stream_larger(void) { stream_equals_r1cs(8, 5000); }

/* The QAP pass with its accumulating threads (a pool of 4, 60 000 rows: many batches per
 * matrix) gives the serial pass's L(τ), u, v, w bit for bit. */
static void test_qap_threaded(void)
{
    czk_fr pub[2];
    uint64_t sd = czk_test_rand64();
    fr_of(&pub[0], &sd);
    fr_of(&pub[1], &sd);
    struct rc x = {czk_test_rand64(), 2, 5, 60000, pub};
    uint8_t seed[32];
    czk_test_rand_bytes(seed, sizeof seed);
    czk__setup_qap q1, q2;
    czk__setup_waste w1, w2;
    czk__progress p1 = {NULL, NULL, 0, 0}, p2 = {NULL, NULL, 0, 0};
    czk_err err;
    CHECK_STATUS(czk__setup_stream_qap(&q1, &w1, rand_circuit, &x, seed, NULL, &p1, &err), CZK_OK);
    czk_pool *pool4 = NULL; /* the lanes need a pool of 4 (more threads than cores is fine) */
    CHECK_STATUS(czk_pool_create(&pool4, 4, &err), CZK_OK);
    CHECK_STATUS(czk__setup_stream_qap(&q2, &w2, rand_circuit, &x, seed, pool4, &p2, &err),
                 CZK_OK);
    czk_pool_destroy(pool4);
    size_t nv = q1.ni + q1.na, m = (size_t)1 << q1.log_m;
    CHECK(q1.n_terms == q2.n_terms && q1.n_terms > 4 * 16384);
    CHECK(q2.ni == q1.ni && q2.na == q1.na && q2.log_m == q1.log_m);
    CHECK(memcmp(q1.lag, q2.lag, m * sizeof(czk_fr)) == 0);
    CHECK(memcmp(q1.u, q2.u, nv * sizeof(czk_fr)) == 0);
    CHECK(memcmp(q1.v, q2.v, nv * sizeof(czk_fr)) == 0);
    CHECK(memcmp(q1.w, q2.w, nv * sizeof(czk_fr)) == 0);
    CHECK(p2.done == q2.n_constraints);
    czk__setup_qap_free(&q1);
    czk__setup_qap_free(&q2);
    czk__setup_scrub(&w1);
    czk__setup_scrub(&w2);
}

/* A circuit that changes between its two passes is an error, not wrong keys. */
static czk_status growing_circuit(czk_cs *cs, void *p)
{
    int *runs = p;
    struct rc x = {7, 1, 2, (uint32_t)(10 + 5 * (*runs)++), NULL};
    return rand_circuit(cs, &x);
}

static czk_status growing_big(czk_cs *cs, void *p)
{
    int *runs = p;
    struct rc x = {9, 1, 2, (uint32_t)(5000 + 50 * (*runs)++), NULL};
    return rand_circuit(cs, &x);
}

static czk_status failing_circuit(czk_cs *cs, void *p)
{
    (void)p;
    return czk_cs_fail(cs, CZK_EFORMAT, "no such thing");
}

static void test_errors(void)
{
    czk_groth16_params pk;
    czk_err err;
    int runs = 0;
    CHECK_STATUS(czk_groth16_setup_circuit(&pk, growing_circuit, &runs, NULL, pool, NULL, NULL,
                                           &err),
                 CZK_EINVAL);
    CHECK(strstr(err.msg, "changed between passes") != NULL);
    CHECK(pk.h == NULL && pk.vk.ic == NULL);
    /* Larger, with the accumulating threads running when the stray rows come. */
    runs = 0;
    czk_pool *pool4 = NULL;
    CHECK_STATUS(czk_pool_create(&pool4, 4, &err), CZK_OK);
    CHECK_STATUS(czk_groth16_setup_circuit(&pk, growing_big, &runs, NULL, pool4, NULL, NULL, &err),
                 CZK_EINVAL);
    czk_pool_destroy(pool4);
    CHECK(strstr(err.msg, "changed between passes") != NULL);
    /* A circuit's own failure is reported as such. */
    CHECK_STATUS(czk_groth16_setup_circuit(&pk, failing_circuit, NULL, NULL, pool, NULL, NULL,
                                           &err),
                 CZK_EFORMAT);
    CHECK(strstr(err.msg, "no such thing") != NULL);
    CHECK_STATUS(czk_groth16_setup_circuit(&pk, NULL, NULL, NULL, pool, NULL, NULL, &err),
                 CZK_EINVAL);
    /* GPUs asked for without room for their SRS. */
    int gpu = 0;
    czk_groth16_setup_opts o;
    memset(&o, 0, sizeof o);
    o.gpus = &gpu;
    o.ngpus = 1;
    struct rc x = {1, 1, 1, 4, NULL};
    CHECK_STATUS(czk_groth16_setup_circuit(&pk, rand_circuit, &x, &o, pool, NULL, NULL, &err),
                 CZK_EINVAL);
}

/* czk_fil_test_params_generate's files are czk_fil_test_params_make's keys. */
static void test_fil_files(void)
{
    const char *id = "wpost-2k"; /* the smallest Filecoin circuit: 21 866 rows */
    char dir[] = "/tmp/czk_test_setup_stream_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    czk_err err;
    bool generated = false;
    czk_status st = czk_fil_test_params_generate(id, dir, false, pool, NULL, NULL, &generated,
                                                 &err);
    CHECK_MSG(st == CZK_OK, "%s: %s", id, err.msg);
    CHECK(generated);
    const char *name = NULL;
    CHECK_STATUS(czk_fil_circuit_lookup(id, NULL, NULL, &name, &err), CZK_OK);
    char pp[4200], vp[4200], mp[4200];
    snprintf(pp, sizeof pp, "%s/%s.params", dir, name);
    snprintf(vp, sizeof vp, "%s/%s.vk", dir, name);
    snprintf(mp, sizeof mp, "%s/%s.meta", dir, name);
    czk_groth16_params from_file, in_mem;
    czk_groth16_vk vk_file;
    memset(&vk_file, 0, sizeof vk_file);
    CHECK_STATUS(czk_groth16_params_read_file(&from_file, pp, false, pool, &err), CZK_OK);
    CHECK_STATUS(czk_groth16_vk_read_file(&vk_file, vp, &err), CZK_OK);
    CHECK_STATUS(czk_fil_test_params_make(id, NULL, 0, &in_mem, NULL, pool, NULL, NULL, &err),
                 CZK_OK);
    /* The file derives n_inputs and log_m from its lengths; compare what it stores. */
    CHECK(vk_equal(&from_file.vk, &in_mem.vk));
    CHECK(vk_equal(&vk_file, &in_mem.vk));
    CHECK(from_file.h_len == in_mem.h_len && from_file.l_len == in_mem.l_len &&
          from_file.a_len == in_mem.a_len && from_file.b_g1_len == in_mem.b_g1_len);
    CHECK(memcmp(from_file.h, in_mem.h, in_mem.h_len * sizeof *in_mem.h) == 0);
    CHECK(memcmp(from_file.l, in_mem.l, in_mem.l_len * sizeof *in_mem.l) == 0);
    CHECK(memcmp(from_file.a, in_mem.a, in_mem.a_len * sizeof *in_mem.a) == 0);
    CHECK(memcmp(from_file.b_g1, in_mem.b_g1, in_mem.b_g1_len * sizeof *in_mem.b_g1) == 0);
    CHECK(memcmp(from_file.b_g2, in_mem.b_g2, in_mem.b_g2_len * sizeof *in_mem.b_g2) == 0);
    /* The keys are those of the documented seed, SHA-256("czk test parameters v1" ‖ name):
     * α from it (OpenSSL alone) times G1 is the vk's α. */
    {
        static const char DOMAIN[] = "czk test parameters v1";
        uint8_t seed[32], le[32];
        unsigned len = 0;
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        EVP_DigestInit_ex(md, EVP_sha256(), NULL);
        EVP_DigestUpdate(md, DOMAIN, sizeof DOMAIN - 1);
        EVP_DigestUpdate(md, name, strlen(name));
        EVP_DigestFinal_ex(md, seed, &len);
        EVP_MD_CTX_free(md);
        ref_scalar(le, seed, "alpha");
        czk_fr alpha;
        CHECK(czk_fr_from_bytes_le(&alpha, le));
        czk_g1_jac g, t;
        czk_g1_affine want;
        czk_g1_jac_from_affine(&g, &CZK_G1_GENERATOR);
        czk_g1_jac_mul_fr(&t, &g, &alpha);
        czk_g1_jac_to_affine(&want, &t);
        CHECK_MEM(&want, &in_mem.vk.alpha_g1, sizeof want);
    }
    /* A second generate finds the files and does nothing. */
    CHECK_STATUS(czk_fil_test_params_generate(id, dir, false, pool, NULL, NULL, &generated, &err),
                 CZK_OK);
    CHECK(!generated);
    czk_groth16_params_free(&from_file);
    czk_groth16_params_free(&in_mem);
    czk_groth16_vk_free(&vk_file);
    unlink(pp);
    unlink(vp);
    unlink(mp);
    rmdir(dir);
}

int main(void)
{
    czk_test_seed();
    czk_err err;
    if (czk_pool_create(&pool, 2, &err) != CZK_OK) return 1;
    RUN(test_seed_derivation);
    RUN(test_stream_small);
    RUN(test_stream_mid);
    RUN(test_stream_larger);
    RUN(test_qap_threaded);
    RUN(test_errors);
    RUN(test_fil_files);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
