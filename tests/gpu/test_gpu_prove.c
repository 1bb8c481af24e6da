/*
 * The GPU Groth16 prover (src/groth16/gpu_prove.cu) against the CPU prover and the verifier, on fresh
 * random circuits every run. Skips (exit 77) without a GPU.
 *
 *  - Same bytes: with fixed random r, s (and r = s = 0), czk_gpu_prove's proof encodes to
 *    exactly czk_groth16_prove's 192 bytes, for random satisfiable R1CS of about 2^10 to
 *    2^20 constraints (row counts not powers of two, partial A/B densities, witnesses
 *    that are mostly 0/1 as in PoRep), with the SRS resident, streamed in small chunks
 *    (srs NULL), and with B_G2 on the CPU. The proofs also pass czk_groth16_verify, a
 *    pairing check independent of both provers.
 *  - The snarkjs convention: a zkey written by czk_groth16_setup_zkey (snarkjs's layout,
 *    checked against snarkjs in the interop test) and read back; same bytes as the CPU.
 *  - Edge cases: a witness of only zeros and ones; infinity bases in H, L, A, B_G1 and
 *    B_G2 (the proof no longer verifies, but both provers must agree); pageable and
 *    page-locked host buffers.
 *  - Concurrency: two provers on one GPU at once (one SRS, separate buffers); two GPUs at
 *    once when there are two.
 *  - Packed copies (include/czk/pack.h): a, b, c and the witness packed, and some of them,
 *    each with the CPU's bytes; a packed vector of the wrong length refused by name.
 *  - Device memory plans (czk_gpu_plan): every order forced by hand with the SRS resident,
 *    partly resident and streamed, MSM calls cut by size and by a scratch cap, and a plan
 *    of the planner's; each with the CPU's bytes.
 *  - Errors: an SRS of another shape, a GPU that does not exist.
 *
 * CZK_TEST_GPU_SMALL=1 caps the sizes at 2^12 (for compute-sanitizer runs); CZK_TEST_ONLY
 * names the one test to run.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "czk/pack.h"
#include "czk/r1cs.h"
#include "czk_test.h"
#include "czk_test_fr.h"

static czk_pool *pool;
static int small_mode;
static czk_gpu_prove_stats last_stats; /* gpu_check's last proof */

/* Witness flavours. */
enum { W_MIXED, W_BITS };

/*
 * A random satisfiable circuit of n_rows constraints. Even rows are booleans x·x = x on a
 * fresh aux variable x (value 0 or 1, as most of a PoRep witness); odd rows multiply a
 * random LC of earlier variables by one earlier variable into a fresh aux variable, with
 * B restricted to inputs and the first aux variables so that the B density is partial.
 * The last aux variable occurs nowhere (A density partial). With W_BITS the products are
 * replaced by booleans too (a witness of only 0 and 1, the ONE input aside).
 */
static czk_fr *random_circuit(czk_r1cs *r, uint32_t n_pub, uint32_t n_rows, int flavour)
{
    uint32_t ni = 1 + n_pub, na = n_rows + 1, nv = ni + na;
    czk_fr *z = czk_malloc((size_t)nv * sizeof *z);
    z[0] = CZK_FR_ONE;
    for (uint32_t i = 1; i < ni; i++) czk_test_rand_fr(&z[i]);
    czk_test_rand_fr(&z[nv - 1]); /* the unused aux variable */
    uint64_t nnz = (uint64_t)n_rows * 3;
    CHECK_STATUS(czk_r1cs_alloc(r, ni, na, n_rows, nnz, nnz, nnz, NULL), CZK_OK);
    r->has_c = true;
    uint64_t ka = 0, kb = 0, kc = 0;
    for (uint32_t j = 0; j < n_rows; j++) {
        uint32_t out = ni + j;
        r->a.row_ptr[j] = ka;
        r->b.row_ptr[j] = kb;
        r->c.row_ptr[j] = kc;
        if (j % 2 == 0 || flavour == W_BITS || out < ni + 2) {
            czk_fr_from_u64(&z[out], czk_test_rand64() & 1);
            r->a.col[ka] = out;
            r->a.val[ka++] = CZK_FR_ONE;
            r->b.col[kb] = out;
            r->b.val[kb++] = CZK_FR_ONE;
        } else {
            czk_fr av = CZK_FR_ZERO, bv, coeff, tmp;
            uint32_t last = UINT32_MAX;
            for (int t = 0; t < 2; t++) {
                uint32_t v = (uint32_t)(czk_test_rand64() % out);
                if (v == last) continue;
                last = v;
                czk_test_rand_fr(&coeff);
                r->a.col[ka] = v;
                r->a.val[ka++] = coeff;
                czk_fr_mul(&tmp, &coeff, &z[v]);
                czk_fr_add(&av, &av, &tmp);
            }
            uint32_t v = (uint32_t)(czk_test_rand64() % (ni + (out - ni) / 4 + 1));
            czk_test_rand_fr(&coeff);
            r->b.col[kb] = v;
            r->b.val[kb++] = coeff;
            czk_fr_mul(&bv, &coeff, &z[v]);
            czk_fr_mul(&z[out], &av, &bv);
        }
        r->c.col[kc] = out;
        r->c.val[kc++] = CZK_FR_ONE;
    }
    r->a.row_ptr[n_rows] = ka;
    r->b.row_ptr[n_rows] = kb;
    r->c.row_ptr[n_rows] = kc;
    r->a.nnz = ka;
    r->b.nnz = kb;
    r->c.nnz = kc;
    return z;
}

struct fixture {
    czk_r1cs r;
    czk_fr *z;
    czk_groth16_params pk;
    uint64_t *a_aux, *b_in, *b_aux;
    size_t m;
    bool dens; /* densities in the assignment (bellperson) */
};

static void fixture_init(struct fixture *f, uint32_t n_pub, uint32_t n_rows, int flavour)
{
    memset(f, 0, sizeof *f);
    f->z = random_circuit(&f->r, n_pub, n_rows, flavour);
    uint32_t bad = 0;
    CHECK(czk_r1cs_is_satisfied(&f->r, f->z, &bad));
    czk_err err;
    CHECK_STATUS(czk_groth16_setup(&f->pk, &f->r, pool, NULL, NULL, &err), CZK_OK);
    f->m = (size_t)1 << f->pk.log_m;
    size_t wa = (f->r.n_aux + 63) / 64 + 1, wi = (f->r.n_inputs + 63) / 64 + 1;
    f->a_aux = czk_calloc(wa, 8);
    f->b_in = czk_calloc(wi, 8);
    f->b_aux = czk_calloc(wa, 8);
    czk_r1cs_densities(&f->r, f->a_aux, f->b_in, f->b_aux);
    f->dens = true;
}

static void fixture_free(struct fixture *f)
{
    czk_r1cs_free(&f->r);
    czk_free(f->z);
    czk_groth16_params_free(&f->pk);
    czk_free(f->a_aux);
    czk_free(f->b_in);
    czk_free(f->b_aux);
}

/* Row buffers: malloc'd or page-locked. */
struct bufs {
    czk_fr *a, *b, *c;
    bool pinned;
};

static void bufs_alloc(struct bufs *b, size_t m, bool pinned)
{
    memset(b, 0, sizeof *b);
    czk_fr **v[3] = {&b->a, &b->b, &b->c};
    b->pinned = pinned;
    for (int k = 0; k < 3; k++) {
        void *p = NULL;
        if (pinned && czk_gpu_host_alloc(&p, m * sizeof(czk_fr), NULL) == CZK_OK) {
            *v[k] = p;
        } else {
            CHECK(!pinned);
            b->pinned = false;
            *v[k] = czk_malloc(m * sizeof(czk_fr));
        }
    }
}

static void bufs_free(struct bufs *b)
{
    czk_fr *v[3] = {b->a, b->b, b->c};
    for (int k = 0; k < 3; k++) {
        if (b->pinned)
            czk_gpu_host_free(v[k]);
        else
            czk_free(v[k]);
    }
}

/* Evaluate the rows into the buffers (the provers overwrite them) and fill asg. */
static void assign(const struct fixture *f, struct bufs *b, czk_groth16_assignment *asg)
{
    czk_r1cs_eval(&f->r, f->z, b->a, b->b, b->c, pool);
    memset(asg, 0, sizeof *asg);
    asg->inputs = f->z;
    asg->aux = f->z + f->r.n_inputs;
    asg->a = b->a;
    asg->b = b->b;
    asg->c = b->c;
    asg->n_rows = f->r.n_constraints;
    if (f->dens) {
        asg->a_aux_density = f->a_aux;
        asg->b_input_density = f->b_in;
        asg->b_aux_density = f->b_aux;
    }
}

static void proof_bytes(uint8_t out[192], const czk_groth16_proof *p)
{
    czk_groth16_proof_write(out, p);
}

/* CPU reference bytes for (r, s). */
static void cpu_bytes(uint8_t out[192], const struct fixture *f, struct bufs *b,
                      const czk_fr *r, const czk_fr *s)
{
    czk_groth16_assignment asg;
    assign(f, b, &asg);
    czk_groth16_proof p;
    czk_err err;
    CHECK_STATUS(czk_groth16_prove(&p, &f->pk, &asg, r, s, pool, NULL, &err), CZK_OK);
    proof_bytes(out, &p);
}

/* GPU bytes with the given SRS (NULL: streamed) and options; also verified when `valid`. */
static void gpu_check(const struct fixture *f, struct bufs *b, const czk_gpu_srs *srs,
                      const czk_gpu_prove_opts *o, const czk_fr *r, const czk_fr *s,
                      const uint8_t want[192], bool valid, const char *what)
{
    czk_groth16_assignment asg;
    assign(f, b, &asg);
    czk_groth16_proof p;
    czk_err err = {0};
    czk_gpu_prove_stats st;
    czk_status rc = czk_gpu_prove_ex(&p, 0, &f->pk, srs, &asg, r, s, pool, o, NULL, &st, &err);
    last_stats = st;
    CHECK_MSG(rc == CZK_OK, "%s: %s: %s", what, czk_status_name(rc), err.msg);
    if (rc != CZK_OK) return;
    uint8_t got[192];
    proof_bytes(got, &p);
    CHECK_MSG(memcmp(got, want, 192) == 0, "%s (2^%u, %u rows): GPU proof bytes differ", what,
              f->pk.log_m, f->r.n_constraints);
    /* The witness (f->z) is ordinary memory in every case here, so "all page-locked" is
     * never true; the benchmark shows the page-locked case. */
    CHECK(!st.host_pinned);
    CHECK(st.h2d_bytes > 0);
    if (valid) {
        czk_groth16_pvk pvk;
        czk_groth16_prepare_vk(&pvk, &f->pk.vk);
        CHECK_STATUS(czk_groth16_verify(&pvk, &p, f->z + 1, f->r.n_inputs - 1, &err), CZK_OK);
    }
}

/* ------------------------------------------------------------------------------------ */

static void one_size(uint32_t n_pub, uint32_t n_rows, int flavour, bool streamed)
{
    struct fixture f;
    fixture_init(&f, n_pub, n_rows, flavour);
    struct bufs b;
    bufs_alloc(&b, f.m, (n_rows & 1) == 0);
    czk_err err;
    czk_gpu_srs *srs = NULL;
    CHECK_STATUS(czk_gpu_srs_create(&srs, 0, &f.pk, &err), CZK_OK);
    CHECK(czk_gpu_srs_bytes(srs) > 0 && czk_gpu_srs_gpu(srs) == 0);
    czk_fr r, s;
    czk_test_rand_fr(&r);
    czk_test_rand_fr(&s);
    uint8_t want[192];
    cpu_bytes(want, &f, &b, &r, &s);
    czk_gpu_prove_opts o = {0};
    o.b2 = CZK_GPU_B2_GPU;
    gpu_check(&f, &b, srs, &o, &r, &s, want, true, "resident, B2 on the GPU");
    o.b2 = CZK_GPU_B2_CPU;
    gpu_check(&f, &b, srs, &o, &r, &s, want, true, "resident, B2 on the CPU");
    if (streamed) {
        /* Chunks of 1024 scalars: several chunks per MSM at every size tested. */
        o.b2 = CZK_GPU_B2_GPU;
        o.stream_chunk = 1024;
        gpu_check(&f, &b, NULL, &o, &r, &s, want, true, "streamed");
    }
    /* Zero blinding (snarkjs's deterministic oracle) and the plain call. */
    czk_fr zero = CZK_FR_ZERO;
    cpu_bytes(want, &f, &b, &zero, &zero);
    gpu_check(&f, &b, srs, NULL, &zero, &zero, want, true, "r = s = 0");
    czk_gpu_srs_destroy(srs);
    bufs_free(&b);
    fixture_free(&f);
}

static void test_sizes(void)
{
    /* Rows: not powers of two; the domain is the next power of two above rows + inputs. */
    static const uint32_t rows[] = {1000, 4096 + 37, 65536 - 300, 1048576 - 1000};
    size_t n = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < n; i++) {
        if (small_mode && rows[i] > 5000) break;
        one_size(1 + (uint32_t)(czk_test_rand64() % 8), rows[i], W_MIXED, rows[i] < 100000);
    }
}

static void test_bits_witness(void)
{
    one_size(2, 3000, W_BITS, true);
}

/* Infinity bases in every section: both provers must still agree. */
static void test_infinity_bases(void)
{
    struct fixture f;
    fixture_init(&f, 3, 2000, W_MIXED);
    const czk_g1_affine inf1 = {CZK_FP_ZERO, CZK_FP_ZERO};
    czk_g2_affine inf2;
    memset(&inf2, 0, sizeof inf2);
    for (int k = 0; k < 20; k++) {
        f.pk.h[czk_test_rand64() % f.pk.h_len] = inf1;
        f.pk.l[czk_test_rand64() % f.pk.l_len] = inf1;
        f.pk.a[czk_test_rand64() % f.pk.a_len] = inf1;
        size_t j = czk_test_rand64() % f.pk.b_g1_len;
        f.pk.b_g1[j] = inf1;
        f.pk.b_g2[j] = inf2;
    }
    struct bufs b;
    bufs_alloc(&b, f.m, true);
    czk_gpu_srs *srs = NULL;
    czk_err err;
    CHECK_STATUS(czk_gpu_srs_create(&srs, 0, &f.pk, &err), CZK_OK);
    czk_fr r, s;
    czk_test_rand_fr(&r);
    czk_test_rand_fr(&s);
    uint8_t want[192];
    cpu_bytes(want, &f, &b, &r, &s);
    gpu_check(&f, &b, srs, NULL, &r, &s, want, false, "infinity bases");
    czk_gpu_srs_destroy(srs);
    bufs_free(&b);
    fixture_free(&f);
}

/* The snarkjs convention through a zkey written in snarkjs's layout. */
static void test_snarkjs(void)
{
    struct fixture f;
    memset(&f, 0, sizeof f);
    czk_r1cs r1;
    f.z = random_circuit(&r1, 2, 3000, W_MIXED);
    char path[] = "/tmp/czk_test_gpu_prove_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    czk_err err;
    CHECK_STATUS(czk_groth16_setup_zkey(path, &r1, NULL, pool, NULL, NULL, &err), CZK_OK);
    CHECK_STATUS(czk_zkey_read_file(&f.pk, &f.r, path, &err), CZK_OK);
    unlink(path);
    czk_r1cs_free(&r1);
    CHECK(f.pk.conv == CZK_H_SNARKJS);
    f.m = (size_t)1 << f.pk.log_m;
    f.dens = false;
    struct bufs b;
    bufs_alloc(&b, f.m, false);
    czk_gpu_srs *srs = NULL;
    CHECK_STATUS(czk_gpu_srs_create(&srs, 0, &f.pk, &err), CZK_OK);
    czk_fr r, s;
    czk_test_rand_fr(&r);
    czk_test_rand_fr(&s);
    uint8_t want[192];
    cpu_bytes(want, &f, &b, &r, &s);
    gpu_check(&f, &b, srs, NULL, &r, &s, want, true, "snarkjs resident");
    czk_gpu_prove_opts o = {0};
    o.stream_chunk = 512;
    gpu_check(&f, &b, NULL, &o, &r, &s, want, true, "snarkjs streamed");
    czk_gpu_srs_destroy(srs);
    bufs_free(&b);
    fixture_free(&f);
}

/* ------------------------------------------------------------------------------------ */
/* Concurrency                                                                          */
/* ------------------------------------------------------------------------------------ */

struct worker {
    const struct fixture *f;
    const czk_gpu_srs *srs;
    int gpu;
    struct bufs b;
    czk_fr r, s;
    czk_groth16_proof p;
    czk_status rc;
    czk_err err;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    czk_groth16_assignment asg;
    for (int k = 0; k < 3 && w->rc == CZK_OK; k++) {
        assign(w->f, &w->b, &asg);
        w->rc = czk_gpu_prove(&w->p, w->gpu, &w->f->pk, w->srs, &asg, &w->r, &w->s, NULL, NULL,
                              &w->err);
    }
    return NULL;
}

static void run_pair(const struct fixture *f, czk_gpu_srs *srs0, czk_gpu_srs *srs1, int gpu1)
{
    struct worker w[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].f = f;
        w[i].srs = i == 0 ? srs0 : srs1;
        w[i].gpu = i == 0 ? 0 : gpu1;
        bufs_alloc(&w[i].b, f->m, true);
        czk_test_rand_fr(&w[i].r);
        czk_test_rand_fr(&w[i].s);
    }
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, worker_main, &w[i]) == 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        CHECK_MSG(w[i].rc == CZK_OK, "worker %d: %s", i, w[i].err.msg);
        uint8_t want[192], got[192];
        struct bufs b;
        bufs_alloc(&b, f->m, false);
        cpu_bytes(want, f, &b, &w[i].r, &w[i].s);
        bufs_free(&b);
        proof_bytes(got, &w[i].p);
        CHECK_MSG(memcmp(got, want, 192) == 0, "worker %d on GPU %d: bytes differ", i, w[i].gpu);
        bufs_free(&w[i].b);
    }
}

static void test_concurrent(void)
{
    struct fixture f;
    fixture_init(&f, 4, small_mode ? 3000 : 60000, W_MIXED);
    czk_err err;
    czk_gpu_srs *srs = NULL;
    CHECK_STATUS(czk_gpu_srs_create(&srs, 0, &f.pk, &err), CZK_OK);
    run_pair(&f, srs, srs, 0);
    if (czk_gpu_count() >= 2) {
        czk_gpu_srs *srs1 = NULL;
        CHECK_STATUS(czk_gpu_srs_create(&srs1, 1, &f.pk, &err), CZK_OK);
        run_pair(&f, srs, srs1, 1);
        czk_gpu_srs_destroy(srs1);
    } else {
        printf("     (one GPU: the two-GPU case is not run)\n");
    }
    czk_gpu_srs_destroy(srs);
    fixture_free(&f);
}

/* ------------------------------------------------------------------------------------ */

/* A packed vector in ordinary memory, room for every element. */
static czk_packed_vec *pack_new(const czk_fr *v, size_t n)
{
    czk_packed_vec *p = czk_calloc(1, sizeof *p);
    size_t w = czk_packed_words(n) + 1;
    p->ones = czk_malloc(w * 8);
    p->others = czk_malloc(w * 8);
    p->prefix = czk_malloc(w * 4);
    p->vals = czk_malloc((n + 1) * sizeof(czk_fr));
    p->vals_cap = n;
    czk_err err;
    CHECK_STATUS(czk_pack_vec(p, v, n, pool, &err), CZK_OK);
    return p;
}

static void pack_free(czk_packed_vec *p)
{
    if (p == NULL) return;
    czk_free(p->ones);
    czk_free(p->others);
    czk_free(p->prefix);
    czk_free(p->vals);
    czk_free(p);
}

/* The copies of packed vectors, and the witness copied first, against the CPU's bytes. */
static void test_packed(void)
{
    struct fixture f;
    fixture_init(&f, 3, small_mode ? 3000 : 65536 - 300, W_MIXED);
    struct bufs b;
    bufs_alloc(&b, f.m, true);
    czk_err err;
    czk_gpu_srs *srs = NULL;
    CHECK_STATUS(czk_gpu_srs_create(&srs, 0, &f.pk, &err), CZK_OK);
    czk_fr r, s;
    czk_test_rand_fr(&r);
    czk_test_rand_fr(&s);
    uint8_t want[192];
    cpu_bytes(want, &f, &b, &r, &s);
    /* The rows as the prover gets them (assign evaluates them the same way every time). */
    czk_groth16_assignment asg;
    assign(&f, &b, &asg);
    czk_packed_vec *pv[4] = {pack_new(b.a, f.r.n_constraints), pack_new(b.b, f.r.n_constraints),
                             pack_new(b.c, f.r.n_constraints),
                             pack_new(f.z + f.r.n_inputs, f.r.n_aux)};
    /* The circuit's witness is half booleans: the packed forms are much smaller. */
    CHECK_MSG(pv[1]->n_other < f.r.n_constraints / 2 && pv[3]->n_other < f.r.n_aux,
              "b %zu, aux %zu values", pv[1]->n_other, pv[3]->n_other);
    czk_gpu_prove_opts o = {0};
    o.b2 = CZK_GPU_B2_GPU;
    gpu_check(&f, &b, srs, &o, &r, &s, want, true, "plain copies");
    const uint64_t plain_bytes = last_stats.h2d_bytes;
    CHECK(last_stats.packed_vectors == 0);
    for (int k = 0; k < 3; k++) o.packed_abc[k] = pv[k];
    o.packed_aux = pv[3];
    gpu_check(&f, &b, srs, &o, &r, &s, want, true, "a, b, c and aux packed");
    CHECK_MSG(last_stats.packed_vectors == 4 && last_stats.h2d_bytes < plain_bytes,
              "%d packed, %llu bytes copied against %llu", last_stats.packed_vectors,
              (unsigned long long)last_stats.h2d_bytes, (unsigned long long)plain_bytes);
    o.b2 = CZK_GPU_B2_CPU;
    gpu_check(&f, &b, srs, &o, &r, &s, want, true, "all packed, B2 on the CPU");
    /* Some packed. */
    o.b2 = CZK_GPU_B2_GPU;
    o.packed_abc[1] = NULL;
    o.packed_abc[2] = NULL;
    gpu_check(&f, &b, srs, &o, &r, &s, want, true, "a and aux packed");
    CHECK(last_stats.packed_vectors == 2);
    /* A packed vector of another length: refused, by name. */
    o.packed_abc[1] = pv[3];
    assign(&f, &b, &asg);
    czk_groth16_proof p;
    CHECK_STATUS(czk_gpu_prove_ex(&p, 0, &f.pk, srs, &asg, &r, &s, pool, &o, NULL, NULL, &err),
                 CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "packed_abc[1]") != NULL, "%s", err.msg);
    for (int k = 0; k < 4; k++) pack_free(pv[k]);
    czk_gpu_srs_destroy(srs);
    bufs_free(&b);
    fixture_free(&f);
}

/* An SRS holding plan->resident[s] points of each section, filled from the key's host
 * arrays, the rest streamed from those arrays (czk_gpu_srs_set_host). */
static czk_gpu_srs *srs_for_plan(const struct fixture *f, const czk_gpu_plan *plan)
{
    czk_err err;
    czk_gpu_srs *srs = NULL;
    CHECK_STATUS(czk_gpu_srs_create_plan(&srs, 0, &f->pk, plan, &err), CZK_OK);
    if (srs == NULL) return NULL;
    const void *pts[CZK_G16_SECTIONS] = {f->pk.h, f->pk.l, f->pk.a, f->pk.b_g1, f->pk.b_g2};
    uint64_t bytes = 0;
    for (int k = 0; k < CZK_G16_SECTIONS; k++) {
        czk_groth16_section sec = (czk_groth16_section)k;
        size_t res = czk_gpu_srs_resident(srs, sec), el = czk_groth16_section_elem(sec);
        CHECK(res == plan->resident[k]);
        /* In two writes, to cover offsets. */
        size_t half = res / 2;
        CHECK_STATUS(czk_gpu_srs_write(srs, sec, 0, pts[k], half, &err), CZK_OK);
        CHECK_STATUS(czk_gpu_srs_write(srs, sec, half, (const uint8_t *)pts[k] + half * el,
                                       res - half, &err),
                     CZK_OK);
        if (res < czk_groth16_section_len(&f->pk, sec))
            czk_gpu_srs_set_host(srs, sec, (const uint8_t *)pts[k] + res * el);
        bytes += (uint64_t)res * el;
    }
    CHECK(czk_gpu_srs_bytes(srs) == bytes);
    /* A write past the resident points is refused by name. */
    CHECK_STATUS(czk_gpu_srs_write(srs, CZK_G16_L, czk_gpu_srs_resident(srs, CZK_G16_L), pts[1], 1,
                                   &err),
                 CZK_EINVAL);
    CHECK(strstr(err.msg, "outside") != NULL);
    return srs;
}

/*
 * Every order a plan can ask for, forced by hand on a small key: resident sections whole,
 * partly (a prefix that ends inside a density word) and not at all; a, b, c at once and two
 * at a time; the witness early and after the H MSM; the witness MSMs beside H or after it;
 * MSM calls whole, cut, and cut again by a scratch cap too small for them. Each proof has
 * the CPU's bytes, in both H conventions' bellperson case here (snarkjs in test_snarkjs).
 */
static void test_plans(void)
{
    const uint32_t rows = small_mode ? 3000 : 65536 - 300;
    struct fixture f;
    fixture_init(&f, 5, rows, W_MIXED);
    struct bufs b;
    bufs_alloc(&b, f.m, true);
    czk_fr r, s;
    czk_test_rand_fr(&r);
    czk_test_rand_fr(&s);
    uint8_t want[192];
    cpu_bytes(want, &f, &b, &r, &s);
    /* Residency: all, L and A whole with 61 % of B_G1 (not a multiple of 64), nothing. */
    for (int res_case = 0; res_case < 3; res_case++) {
        for (int order = 0; order < 5; order++) {
            czk_gpu_plan plan;
            memset(&plan, 0, sizeof plan);
            for (int k = 0; k < CZK_G16_SECTIONS; k++) {
                size_t len = czk_groth16_section_len(&f.pk, (czk_groth16_section)k);
                plan.resident[k] = res_case == 0 ? len : 0;
            }
            if (res_case == 1) {
                plan.resident[CZK_G16_L] = f.pk.l_len;
                plan.resident[CZK_G16_A] = f.pk.a_len;
                plan.resident[CZK_G16_B_G1] = f.pk.b_g1_len * 61 / 100 | 1;
            }
            plan.abc_in_turn = order >= 2;
            plan.witness_late = order == 4;
            plan.overlap = order == 0 || order == 2;
            plan.whole_tables = true;
            /* Whole calls only with everything resident; otherwise several calls a section. */
            plan.msm_chunk = res_case == 0 && order == 0 ? 0 : 4096;
            /* Order D also caps each call's scratch at 640 KiB: a 4096-scalar G1 call's
             * buckets alone are 0.8 MB, while a 256-scalar G2 call (the smallest a cut
             * makes) takes about 0.33 MB, so calls are cut in halves until they fit. */
            plan.msm_scratch = order == 3 ? 640u << 10 : 0;
            czk_gpu_srs *srs = srs_for_plan(&f, &plan);
            if (srs == NULL) continue;
            czk_gpu_prove_opts o = {0};
            o.b2 = CZK_GPU_B2_GPU;
            o.plan = &plan;
            char what[96];
            snprintf(what, sizeof what, "plan residency %d order %c", res_case, "ABCDE"[order]);
            gpu_check(&f, &b, srs, &o, &r, &s, want, true, what);
            if (res_case == 0) CHECK(last_stats.srs_h2d_bytes == 0);
            if (res_case == 2) CHECK(last_stats.srs_h2d_bytes > 0);
            CHECK(last_stats.msm_calls >= (plan.msm_chunk ? 9u : 8u));
            CHECK((last_stats.msm_cuts > 0) == (order == 3));
            czk_gpu_srs_destroy(srs);
        }
    }
    bufs_free(&b);
    fixture_free(&f);
    if (small_mode) return;

    /* The planner's own choices for a 2^20 key, from a budget that holds it whole down to
     * its minimum: an SRS made by each plan proves with the CPU's bytes. */
    fixture_init(&f, 5, 1048576 - 1000, W_MIXED);
    bufs_alloc(&b, f.m, true);
    cpu_bytes(want, &f, &b, &r, &s);
    czk_gpu_plan plan;
    czk_err err;
    czk_gpu_plan_opts po = {0};
    CHECK_STATUS(czk_gpu_plan_make(&plan, &f.pk, 4ull << 30, &po, &err), CZK_OK);
    CHECK(czk_gpu_plan_all_resident(&plan, &f.pk));
    const uint64_t budgets[] = {4ull << 30, plan.min_budget + (plan.min_budget >> 3),
                                plan.min_budget};
    bool partial = false;
    for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
        CHECK_STATUS(czk_gpu_plan_make(&plan, &f.pk, budgets[i], &po, &err), CZK_OK);
        partial |= !czk_gpu_plan_all_resident(&plan, &f.pk);
        czk_gpu_srs *srs = srs_for_plan(&f, &plan);
        czk_gpu_prove_opts o = {0};
        o.plan = &plan;
        char what[96];
        snprintf(what, sizeof what, "planned, %.0f MiB", (double)budgets[i] / (1 << 20));
        czk_gpu_pool_usage pu;
        czk_gpu_pool_stats(0, &pu, true);
        gpu_check(&f, &b, srs, &o, &r, &s, want, true, what);
        /* The planner's model held: what the proof took from the pool (buffers and MSM
         * scratch; copy buffers and tables come from elsewhere) is within its working
         * bytes. */
        czk_gpu_pool_stats(0, &pu, false);
        CHECK_MSG(pu.used_high <= plan.peak_bytes - plan.resident_bytes,
                  "%s: the pool's high mark %llu exceeds the plan's %llu working bytes", what,
                  (unsigned long long)pu.used_high,
                  (unsigned long long)(plan.peak_bytes - plan.resident_bytes));
        czk_gpu_srs_destroy(srs);
    }
    CHECK(partial);
    bufs_free(&b);
    fixture_free(&f);
}

static void test_errors(void)
{
    struct fixture f, g;
    fixture_init(&f, 2, 500, W_MIXED);
    fixture_init(&g, 2, 700, W_MIXED);
    czk_err err;
    czk_gpu_srs *srs = NULL;
    CHECK_STATUS(czk_gpu_srs_create(&srs, 0, &g.pk, &err), CZK_OK);
    struct bufs b;
    bufs_alloc(&b, f.m, false);
    czk_groth16_assignment asg;
    assign(&f, &b, &asg);
    czk_groth16_proof p;
    CHECK_STATUS(czk_gpu_prove(&p, 0, &f.pk, srs, &asg, NULL, NULL, pool, NULL, &err),
                 CZK_EINVAL);
    assign(&f, &b, &asg);
    CHECK_STATUS(czk_gpu_prove(&p, czk_gpu_count(), &f.pk, NULL, &asg, NULL, NULL, pool, NULL,
                               &err),
                 CZK_ENOGPU);
    czk_gpu_srs *none = NULL;
    CHECK_STATUS(czk_gpu_srs_create(&none, -1, &g.pk, &err), CZK_ENOGPU);
    CHECK(none == NULL);
    /* Random blinding: a valid proof, different from the fixed-r one. */
    assign(&f, &b, &asg);
    CHECK_STATUS(czk_gpu_prove(&p, 0, &f.pk, NULL, &asg, NULL, NULL, pool, NULL, &err), CZK_OK);
    czk_groth16_pvk pvk;
    czk_groth16_prepare_vk(&pvk, &f.pk.vk);
    CHECK_STATUS(czk_groth16_verify(&pvk, &p, f.z + 1, f.r.n_inputs - 1, &err), CZK_OK);
    bufs_free(&b);
    czk_gpu_srs_destroy(srs);
    fixture_free(&f);
    fixture_free(&g);
}

int main(void)
{
    czk_test_seed();
    if (czk_gpu_count() == 0) CZK_TEST_SKIP("no CUDA device (or a build without CUDA)");
    small_mode = getenv("CZK_TEST_GPU_SMALL") != NULL;
    czk_err err;
    if (czk_pool_create(&pool, 0, &err) != CZK_OK) {
        fprintf(stderr, "pool: %s\n", err.msg);
        return 1;
    }
    /* CZK_TEST_ONLY=name runs one test (compute-sanitizer's racecheck is too slow for all). */
    const char *only = getenv("CZK_TEST_ONLY");
#define RUN_SEL(fn)                                                                            \
    do {                                                                                       \
        if (only == NULL || strcmp(only, #fn) == 0) RUN(fn);                                   \
    } while (0)
    RUN_SEL(test_errors);
    RUN_SEL(test_sizes);
    RUN_SEL(test_bits_witness);
    RUN_SEL(test_infinity_bases);
    RUN_SEL(test_snarkjs);
    RUN_SEL(test_concurrent);
    RUN_SEL(test_packed);
    RUN_SEL(test_plans);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
