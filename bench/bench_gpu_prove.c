/*
 * GPU Groth16 partition prover benchmark (src/groth16/gpu_prove.cu).
 *
 *  1. H2D: 3 buffers of --h2d-gib GiB (default 4) copied to the device back to back, from
 *     page-locked (czk_gpu_host_alloc) and from ordinary malloc'd memory; median of 3.
 *     Target ≥ 50 GB/s pinned (55.5 measured by a plain copy; pageable 8.2).
 *  2. One full partition of 2^--log constraints (default 27) with a PoRep-like witness:
 *     n_rows = 130,278,541 at 2^27 (the 32 GiB PoRep partition; m − n_inputs − 2^16
 *     otherwise), --ni inputs (328), n_aux = n_rows, a share --f (default 0.0131) of the
 *     aux scalars uniform and the rest 1 (47.35% of all) or 0, as bench_synth's witness
 *     profile measured on the 32 GiB PoRep circuit (0 51.34%, 1 47.35%, other 1.31%;
 *     SnapDeals 32 GiB: other 1.19%); --f 0.1 gives the earlier, pessimistic 90% {0, 1}.
 *     Densities like PoRep (A aux 99.7%, B aux 25%, B inputs all). a, b, c are random field elements (the H scalars are then as random as
 *     a real H; the proof is not valid, which the timing does not depend on). The SRS is
 *     resident and SYNTHESIZED on the device (czk_gpu_srs_synthesize: distinct pseudo-
 *     random subgroup points), since real 2^27 bases take hours to make on a CPU. For
 *     B_G2 on the CPU the host key holds 256 distinct G2 points tiled (same work per point).
 *     One warm-up, then the median of --reps (5) of each stage: H2D, NTT (H: transforms
 *     and elementwise steps, overlapped with the copies), MSM H, L, A, B_G1, B_G2 (CUDA
 *     events; B_G2 on the CPU: wall time) and the whole proof (wall time from the first copy
 *     to the last MSM result), for B_G2 on the GPU and on the CPU. "H ready" runs from the
 *     device buffers' allocation to H (copies of a, b, c and the transforms). Then two
 *     proofs at once on the GPU (threads, separate a, b, c: the per-partition throughput
 *     when an engine overlaps partitions); --pipeline N (8) partitions back to back the
 *     engine's way (a lock handed on at czk_gpu_prove_opts.on_compute, so each proof's
 *     copies overlap the previous one's MSMs), reporting the steady completion interval;
 *     and one proof from pageable buffers.
 *
 * The floor printed beside the total is the one the issue states: ≈ 1.0 s + 3.9·f s, with
 * f the fraction of aux scalars that are neither 0 nor 1 (measured from the L MSM).
 *
 *   bench_gpu_prove [--log 27] [--reps 5] [--ni 328] [--h2d-gib 4] [--b2 both|gpu|cpu]
 *                   [--no-pageable] [--no-pair] [--gpu 0] [--f 0.0131] [--pipeline 8]
 *                   [--real [--real-only]] [--pipeline-only] [--hog N[:NICE]] [--pack]
 *                   [--plan GIB,... [--force O:K,...]]
 *
 * --real proves partition 0 of a real 32 GiB PoRep circuit instead of drawn scalars: a
 * synthetic C1 (czk_porep_fixture, the data `czk fixture porep` writes) parsed into a job
 * as czkd does (czk_fil_job_create) and synthesized in EVAL mode straight into the pinned
 * a, b, c and witness buffers, with its own density bitmaps. The SRS stays synthesized, so
 * the proof does not verify; the GPU's work is the real partition's. --real-only stops after
 * the synthesis and prints the witness profile (runs without a GPU). --pipeline-only skips
 * the one-at-a-time, pair and pageable runs. --hog N[:NICE] spins N threads at nice NICE
 * during the pipeline: the host load of czkd's synthesis threads. --pack (or
 * CZK_BENCH_PACK=1) packs a, b, c and aux once (include/czk/pack.h; the packing's host
 * time is printed, not counted) and every proof copies the packed forms;
 * CZK_BENCH_PACK=b, bw, ... packs only the vectors named (a, b, c, w: the witness).
 *
 * Prints a table and closes with a "JSON {...}" line.
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/fil_job.h"
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "czk/msm.h"
#include "czk/pack.h"
#include "czk/pool.h"
#include "czk/porep_vanilla.h"
#include "czk/seal_proof.h"
#include "czk/vanilla.h"
#include "groth16/gpu_prove.cuh"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Parallel fills: TASK elements per task, each task its own generator. */
#define TASK ((size_t)1 << 20)

struct fill_ctx {
    czk_fr *v;
    size_t n;
    uint64_t seed;
    int kind; /* 0: random < 2^254; 1: witness (share f uniform, else 0/1) */
};

/* The witness profile in parts per million: uniform scalars, and ones (of all scalars). */
static uint64_t g_sig_ppm = 13100, g_one_ppm = 473500;
/* --pack: the packed a, b, c and aux every proof of the run is given (NULL: plain). */
static const czk_packed_vec *g_packed[4];

static void fill_task(void *p, size_t t, unsigned w)
{
    (void)w;
    struct fill_ctx *x = p;
    size_t lo = t * TASK, hi = lo + TASK < x->n ? lo + TASK : x->n;
    uint64_t s = mix(x->seed ^ (t * 0x632be59bd9b4e019ULL));
    for (size_t i = lo; i < hi; i++) {
        s = mix(s);
        uint64_t u = s % 1000000;
        if (x->kind == 1 && u >= g_sig_ppm) {
            x->v[i] = u < g_sig_ppm + g_one_ppm ? CZK_FR_ONE : CZK_FR_ZERO;
            continue;
        }
        for (int j = 0; j < 4; j++) x->v[i].l[j] = mix(s + (uint64_t)j);
        x->v[i].l[3] &= (1ULL << 62) - 1; /* < 2^254 < r: a valid Montgomery value */
    }
}

static void fill(czk_pool *pool, czk_fr *v, size_t n, uint64_t seed, int kind)
{
    struct fill_ctx x = {v, n, seed, kind};
    czk_pool_run(pool, (n + TASK - 1) / TASK, fill_task, &x);
}

/* Density bitmap with each of n bits set with probability p. */
static uint64_t *density(size_t n, double p, uint64_t seed)
{
    size_t words = (n + 63) / 64;
    uint64_t *d = czk_calloc(words + 1, 8);
    uint64_t s = seed;
    uint64_t thr = (uint64_t)(p * 18446744073709551615.0);
    for (size_t i = 0; i < n; i++) {
        s = mix(s);
        if (s <= thr) d[i / 64] |= 1ULL << (i % 64);
    }
    return d;
}

static void *host_buf(size_t bytes, int pinned)
{
    void *p = NULL;
    if (pinned) {
        czk_err err;
        if (czk_gpu_host_alloc(&p, bytes, &err) != CZK_OK) {
            fprintf(stderr, "pinned %zu bytes: %s\n", bytes, err.msg);
            exit(1);
        }
        return p;
    }
    p = malloc(bytes);
    if (p == NULL) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

enum { S_H2D, S_NTT, S_H, S_L, S_A, S_B1, S_B2, S_TOTAL, S_N };
static const char *stage_names[S_N] = {"H2D", "H ready", "MSM H",  "MSM L",
                                       "MSM A", "MSM B_G1", "MSM B_G2", "total"};

/* Two proofs at once on one GPU (an engine's way to hide one partition's copies behind
 * the other's MSMs): each thread proves with its own a, b, c. */
struct pair_arg {
    int gpu;
    const czk_groth16_params *pk;
    const czk_gpu_srs *srs;
    czk_groth16_assignment asg;
    const czk_fr *r, *s;
    czk_status rc;
    czk_err err;
};

static void *pair_main(void *p)
{
    struct pair_arg *a = p;
    czk_groth16_proof proof;
    czk_gpu_prove_opts o = {0};
    for (int k = 0; k < 3; k++) o.packed_abc[k] = g_packed[k];
    o.packed_aux = g_packed[3];
    a->rc = czk_gpu_prove_ex(&proof, a->gpu, a->pk, a->srs, &a->asg, a->r, a->s, NULL, &o,
                             NULL, NULL, &a->err);
    return NULL;
}

/*
 * The engine's way of running partitions back to back on one GPU: each proof takes the
 * GPU's lock and hands it on at czk_gpu_prove_opts.on_compute (its copies done, only MSMs
 * left), so the next proof's copies overlap its MSMs. Two threads, each with its own a, b,
 * c, take proofs from a shared counter.
 */
struct pipe_shared {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int busy;
    unsigned next, total, overlapped;
    double t_end[64];
    int who[64]; /* the thread that proved it (0 or 1) */
    /* Per proof, as czkd's gpu_end note: lock taken -> handed on, lock taken -> done,
     * and the prover's stage times (CUDA events, stretched by the overlapping proof). */
    double held[64], call[64], msm_h[64], msm_l[64], ntt[64];
    double m_q[64], m_h[64], m_ho[64], m_mh[64], m_l[64], m_b2[64]; /* the stats' wall marks */
};

struct pipe_arg {
    struct pair_arg base;
    struct pipe_shared *sh;
    int id;
    int released;
    double t_lock, t_released;
};

static void pipe_release(void *p)
{
    struct pipe_arg *a = p;
    pthread_mutex_lock(&a->sh->mu);
    a->sh->busy = 0;
    a->sh->overlapped++;
    pthread_cond_broadcast(&a->sh->cv);
    pthread_mutex_unlock(&a->sh->mu);
    a->released = 1;
    a->t_released = now();
}

static void *pipe_main(void *p)
{
    struct pipe_arg *a = p;
    struct pipe_shared *sh = a->sh;
    for (;;) {
        pthread_mutex_lock(&sh->mu);
        if (sh->next >= sh->total) {
            pthread_mutex_unlock(&sh->mu);
            return NULL;
        }
        unsigned k = sh->next++;
        while (sh->busy) pthread_cond_wait(&sh->cv, &sh->mu);
        sh->busy = 1;
        pthread_mutex_unlock(&sh->mu);
        czk_gpu_prove_opts o = {0};
        for (int q = 0; q < 3; q++) o.packed_abc[q] = g_packed[q];
        o.packed_aux = g_packed[3];
        o.on_compute = pipe_release;
        o.on_compute_arg = a;
        a->released = 0;
        a->t_lock = now();
        a->t_released = 0;
        czk_groth16_proof proof;
        czk_gpu_prove_stats st;
        memset(&st, 0, sizeof st);
        a->base.rc = czk_gpu_prove_ex(&proof, a->base.gpu, a->base.pk, a->base.srs,
                                      &a->base.asg, a->base.r, a->base.s, NULL, &o, NULL, &st,
                                      &a->base.err);
        pthread_mutex_lock(&sh->mu);
        if (!a->released) {
            sh->busy = 0;
            pthread_cond_broadcast(&sh->cv);
        }
        sh->t_end[k] = now();
        sh->who[k] = a->id;
        sh->call[k] = sh->t_end[k] - a->t_lock;
        sh->held[k] = (a->released ? a->t_released : sh->t_end[k]) - a->t_lock;
        sh->msm_h[k] = st.msm_h_s;
        sh->msm_l[k] = st.msm_l_s;
        sh->ntt[k] = st.ntt_s;
        sh->m_q[k] = st.t_queued_s;
        sh->m_h[k] = st.t_h_s;
        sh->m_ho[k] = st.t_handoff_s;
        sh->m_mh[k] = st.t_msm_h_s;
        sh->m_l[k] = st.t_l_s;
        sh->m_b2[k] = st.t_b2_s;
        pthread_mutex_unlock(&sh->mu);
        if (a->base.rc != CZK_OK) return NULL;
    }
}

/*
 * CPU load beside the pipeline (--hog N[:NICE]): N threads that spin at nice NICE, as
 * czkd's synthesis threads load the host while partitions are proved. Shows whether the
 * GPU's feeding threads (woken from blocking syncs between the MSMs' phases) lose time to
 * them, and whether a nice level on the load gives it back.
 */
static volatile int g_hog_stop;
static int g_hog_nice;

static void *hog_main(void *p)
{
    (void)p;
    if (g_hog_nice != 0)
        (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), g_hog_nice);
    volatile uint64_t x = 1;
    while (!g_hog_stop) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return NULL;
}

/* A real 32 GiB PoRep partition (--real): shape and buffers filled by synthesis. */
struct real_part {
    czk_cs_counts n;
    uint64_t *d_a, *d_bi, *d_b;
};

/*
 * Synthesize partition 0 of a synthetic 32 GiB PoRep C1 into a, b, c (m elements each),
 * inputs (ni_cap) and aux (na_cap, pinned): the engine's path from a Submit to a partition.
 */
static int real_porep_partition(czk_pool *pool, czk_fr *a, czk_fr *b, czk_fr *c, size_t m,
                                czk_fr *inputs, size_t ni_cap, czk_fr *aux, size_t na_cap,
                                struct real_part *out)
{
    czk_err err;
    czk_seal_proof proof;
    if (czk_seal_proof_parse("StackedDrg32GiBV1_1", &proof, &err) != CZK_OK) {
        fprintf(stderr, "real: %s\n", err.msg);
        return 1;
    }
    double t0 = now();
    czk_porep_c1_output *c1 = NULL;
    uint8_t *json = NULL;
    size_t len = 0;
    if (czk_porep_fixture(&c1, proof, 1, pool, &err) != CZK_OK ||
        czk_porep_c1_write_json(c1, &json, &len, &err) != CZK_OK) {
        fprintf(stderr, "real: fixture: %s\n", err.msg);
        czk_porep_c1_output_free(c1);
        return 1;
    }
    czk_porep_c1_output_free(c1);
    czk_fil_job_input in;
    memset(&in, 0, sizeof in);
    in.kind = CZK_FIL_POREP;
    in.registered_proof = (uint64_t)proof;
    in.vanilla_proof = json;
    in.vanilla_proof_len = len;
    czk_fil_job *j = NULL;
    czk_status st = czk_fil_job_create(&j, &in, &err);
    czk_free(json);
    if (st != CZK_OK) {
        fprintf(stderr, "real: job: %s\n", err.msg);
        return 1;
    }
    double t1 = now();
    czk_cs_config cc;
    memset(&cc, 0, sizeof cc);
    cc.mode = CZK_CS_EVAL;
    cc.buf.inputs = inputs;
    cc.buf.inputs_cap = ni_cap;
    cc.buf.aux = aux;
    cc.buf.aux_cap = na_cap;
    cc.buf.a = a;
    cc.buf.b = b;
    cc.buf.c = c;
    cc.buf.rows_cap = m;
    czk_cs *cs = NULL;
    st = czk_cs_create(&cs, &cc, &err);
    if (st == CZK_OK) st = czk_fil_job_synthesize_pool(j, 0, cs, pool, &err);
    if (st == CZK_OK) st = czk_cs_finish(cs, &err);
    czk_fil_job_destroy(j);
    if (st != CZK_OK) {
        fprintf(stderr, "real: synthesis: %s\n", err.msg);
        czk_cs_destroy(cs);
        return 1;
    }
    czk_cs_get_counts(cs, &out->n);
    size_t wa = (out->n.n_aux + 63) / 64, wi = (out->n.n_inputs + 63) / 64;
    out->d_a = czk_calloc(wa + 1, 8);
    out->d_bi = czk_calloc(wi + 1, 8);
    out->d_b = czk_calloc(wa + 1, 8);
    if (out->d_a == NULL || out->d_bi == NULL || out->d_b == NULL) {
        czk_cs_destroy(cs);
        return 1;
    }
    czk_cs_get_densities(cs, out->d_a, out->d_bi, out->d_b);
    czk_cs_destroy(cs);
    uint64_t zero = 0, one = 0;
    for (size_t i = 0; i < (size_t)out->n.n_aux; i++) {
        if (czk_fr_is_zero(&aux[i]))
            zero++;
        else if (czk_fr_eq(&aux[i], &CZK_FR_ONE))
            one++;
    }
    double na = (double)(out->n.n_aux ? out->n.n_aux : 1);
    printf("real 32 GiB PoRep partition 0: fixture + job %.1f s, synthesis %.1f s on %u threads; "
           "%llu rows, %llu inputs, %llu aux (0 %.2f%%, 1 %.2f%%, other %.2f%%), A aux %.2f%%, "
           "B aux %.2f%%\n",
           t1 - t0, now() - t1, czk_pool_size(pool), (unsigned long long)out->n.n_constraints,
           (unsigned long long)out->n.n_inputs, (unsigned long long)out->n.n_aux,
           100.0 * (double)zero / na, 100.0 * (double)one / na,
           100.0 * (double)(out->n.n_aux - zero - one) / na,
           100.0 * (double)out->n.a_aux_density / na, 100.0 * (double)out->n.b_aux_density / na);
    return 0;
}

/*
 * --plan B1,B2,...: the partition proved under device-memory plans (czk_gpu_plan_make for a
 * budget of B GiB, as czkd plans a key of this shape), the SRS's sections copied once to
 * page-locked host memory, as czkd holds the bases a plan streams. --force O:K,... adds,
 * for each budget, the planner's resident sections with order O (A..E, include/czk/gpu.h:
 * A at once + overlap, B at once, C in turn + overlap, D in turn, E in turn + witness late)
 * and MSM calls of 2^K: what the planner's estimate weighs. Every proof is one call, as
 * czkd runs a plan that streams. With --pack each variant runs again with the packed
 * copies ("+p"; the prover copies plain in the orders that hold two vectors or the witness
 * late, the "pk" column counts the packed vectors). Prints the medians of the wall marks
 * and the device's high-water mark (pool + SRS + copy buffers), which a forced variant may
 * take past B.
 */
struct plan_variant {
    char order; /* 0: the planner's own */
    unsigned chunk_log;
};

static void plan_force(czk_gpu_plan *p, char order, unsigned chunk_log)
{
    p->abc_in_turn = order >= 'C';
    p->witness_late = order == 'E';
    p->overlap = order == 'A' || order == 'C';
    p->msm_chunk = (size_t)1 << chunk_log;
    uint64_t s1 = czk_gpu_msm_scratch_bound(1, p->msm_chunk),
             s2 = czk_gpu_msm_scratch_bound(2, p->msm_chunk / 2);
    p->msm_scratch = s1 > s2 ? s1 : s2;
}

static int plan_study(int gpu, czk_groth16_params *pk, czk_gpu_srs *full,
                      const czk_groth16_assignment *asg, const czk_fr *r, const czk_fr *s,
                      czk_pool *pool, const char *budgets, const struct plan_variant *forced,
                      int nforced, unsigned reps)
{
    czk_err err;
    uint8_t *host[CZK_G16_SECTIONS];
    double t = now();
    for (int k = 0; k < CZK_G16_SECTIONS; k++) {
        const czk_groth16_section sec = (czk_groth16_section)k;
        const size_t len = czk_groth16_section_len(pk, sec), el = czk_groth16_section_elem(sec);
        host[k] = host_buf(len * el + 1, 1);
        if (czk_gpu_srs_download(full, sec, 0, len, host[k], &err) != CZK_OK) {
            fprintf(stderr, "srs download: %s\n", err.msg);
            return 1;
        }
    }
    czk_gpu_srs_destroy(full);
    printf("\nplans: the SRS in page-locked host memory in %.1f s\n", now() - t);
    printf("%-6s %-8s %8s %8s %8s %8s %8s %8s %8s %8s %7s %7s %6s %3s  %s\n", "GiB", "variant",
           "call", "H", "MSM H", "L", "A", "B_G1", "B_G2", "est", "str GB", "dev GB", "cuts",
           "pk", "plan");
    for (const char *b = budgets; b != NULL && *b != '\0';) {
        const double gib = atof(b);
        const char *comma = strchr(b, ',');
        b = comma != NULL ? comma + 1 : NULL;
        czk_gpu_plan base;
        czk_gpu_plan_opts po = {55.0, 0, 0};
        if (czk_gpu_plan_make(&base, pk, (uint64_t)(gib * (double)(1ull << 30)), &po, &err) !=
            CZK_OK) {
            printf("%-6.0f %s\n", gib, err.msg);
            continue;
        }
        const int packs = g_packed[0] || g_packed[1] || g_packed[2] || g_packed[3] ? 2 : 1;
        for (int v = -1; v < nforced; v++)
        for (int packed = 0; packed < packs; packed++) {
            czk_gpu_plan plan = base;
            char name[16] = "planner";
            if (v >= 0) {
                plan_force(&plan, forced[v].order, forced[v].chunk_log);
                snprintf(name, sizeof name, "%c:%u", forced[v].order, forced[v].chunk_log);
            }
            if (packed) strncat(name, "+p", sizeof name - strlen(name) - 1);
            czk_gpu_srs *srs = NULL;
            if (czk_gpu_srs_create_plan(&srs, gpu, pk, &plan, &err) != CZK_OK) {
                printf("%-6.0f %-8s srs: %s\n", gib, name, err.msg);
                continue;
            }
            int bad = 0;
            for (int k = 0; k < CZK_G16_SECTIONS && !bad; k++) {
                const czk_groth16_section sec = (czk_groth16_section)k;
                const size_t res = czk_gpu_srs_resident(srs, sec), el = czk_groth16_section_elem(sec);
                if (res > 0 && czk_gpu_srs_write(srs, sec, 0, host[k], res, &err) != CZK_OK) bad = 1;
                czk_gpu_srs_set_host(srs, sec, host[k] + res * el);
            }
            if (bad) {
                printf("%-6.0f %-8s srs write: %s\n", gib, name, err.msg);
                czk_gpu_srs_destroy(srs);
                continue;
            }
            czk_gpu_msm_trim(gpu);
            czk_gpu_pool_usage pu;
            czk_gpu_pool_stats(gpu, &pu, true);
            czk_gpu_prove_opts o = {0};
            o.plan = &plan;
            o.b2 = CZK_GPU_B2_GPU;
            if (packed) {
                for (int k = 0; k < 3; k++) o.packed_abc[k] = g_packed[k];
                o.packed_aux = g_packed[3];
            }
            double v_call[32], v_h[32], v_mh[32], v_l[32], v_a[32], v_b1[32], v_b2[32];
            czk_gpu_prove_stats st;
            memset(&st, 0, sizeof st);
            czk_status rc = CZK_OK;
            for (unsigned rep = 0; rep <= reps && rc == CZK_OK; rep++) {
                czk_groth16_proof proof;
                const double t0 = now();
                rc = czk_gpu_prove_ex(&proof, gpu, pk, srs, asg, r, s, pool, &o, NULL, &st, &err);
                if (rep == 0 || rc != CZK_OK) continue;
                v_call[rep - 1] = now() - t0;
                v_h[rep - 1] = st.t_h_s;
                v_mh[rep - 1] = st.t_msm_h_s;
                v_l[rep - 1] = st.t_l_s;
                v_a[rep - 1] = st.t_a_s;
                v_b1[rep - 1] = st.t_b1_s;
                v_b2[rep - 1] = st.t_b2_s;
            }
            czk_gpu_pool_stats(gpu, &pu, false);
            const uint64_t bufs = 2ull * plan.msm_chunk * sizeof(czk_g1_affine) *
                                  (plan.overlap ? 2 : 1);
            char line[600];
            czk_gpu_plan_format(&plan, pk, line, sizeof line);
            if (rc != CZK_OK) {
                printf("%-6.0f %-8s prove: %s | %s\n", gib, name, err.msg, line);
            } else {
                const int n = (int)reps;
                printf("%-6.0f %-8s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %7.2f %7.2f "
                       "%6u %3d  %s\n",
                       gib, name, median(v_call, n), median(v_h, n), median(v_mh, n),
                       median(v_l, n), median(v_a, n), median(v_b1, n), median(v_b2, n),
                       v < 0 ? plan.est_s : 0.0, (double)st.srs_h2d_bytes / 1e9,
                       (double)(pu.used_high + czk_gpu_srs_bytes(srs) + bufs) / 1e9,
                       st.msm_cuts, st.packed_vectors, line);
            }
            czk_gpu_srs_destroy(srs);
        }
    }
    for (int k = 0; k < CZK_G16_SECTIONS; k++) czk_gpu_host_free(host[k]);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned log_m = 27, reps = 5, ni = 328;
    double h2d_gib = 4;
    const char *b2_mode = "both";
    int gpu = 0, pageable = 1, pair = 1;
    unsigned pipe_n = 8;
    /* Line-buffered even into a file: a device call that times out keeps what was printed. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    int real = 0, real_only = 0, pipe_only = 0;
    const char *plan_budgets = NULL;
    struct plan_variant forced[16];
    int nforced = 0;
    unsigned hogs = 0;
    /* CZK_BENCH_PACK=1 is --pack, for A/B runs that differ in their environment only
     * (`CZK_BENCH_PACK=1 bash bench/run.sh prove`); letters instead pack only those vectors
     * (CZK_BENCH_PACK=b: b alone; a, b, c, w). */
    int pack = 0;
    if (getenv("CZK_BENCH_PACK") != NULL) {
        const char *pv = getenv("CZK_BENCH_PACK");
        if (strcmp(pv, "0") == 0) pack = 0;
        else if (strspn(pv, "abcw") != strlen(pv)) pack = 0xf;
        else
            for (const char *q = pv; *q != '\0'; q++) pack |= 1 << (strchr("abcw", *q) - "abcw");
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--log") && i + 1 < argc) log_m = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ni") && i + 1 < argc) ni = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--h2d-gib") && i + 1 < argc) h2d_gib = atof(argv[++i]);
        else if (!strcmp(argv[i], "--b2") && i + 1 < argc) b2_mode = argv[++i];
        else if (!strcmp(argv[i], "--gpu") && i + 1 < argc) gpu = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-pageable")) pageable = 0;
        else if (!strcmp(argv[i], "--real")) real = 1;
        else if (!strcmp(argv[i], "--real-only")) real = real_only = 1;
        else if (!strcmp(argv[i], "--pipeline") && i + 1 < argc) {
            pipe_n = (unsigned)atoi(argv[++i]);
            if (pipe_n > 64) pipe_n = 64;
        }
        else if (!strcmp(argv[i], "--f") && i + 1 < argc) {
            /* The ones keep their share of the 0/1 scalars (47.35 / 98.69). */
            double f = atof(argv[++i]);
            if (f < 0 || f > 1) {
                fprintf(stderr, "--f: a share in [0, 1]\n");
                return 2;
            }
            g_sig_ppm = (uint64_t)(f * 1e6 + 0.5);
            g_one_ppm = (uint64_t)((1e6 - (double)g_sig_ppm) * (47.35 / 98.69) + 0.5);
        }
        else if (!strcmp(argv[i], "--plan") && i + 1 < argc) plan_budgets = argv[++i];
        else if (!strcmp(argv[i], "--force") && i + 1 < argc) {
            for (const char *q = argv[++i]; *q != '\0' && nforced < 16;) {
                unsigned lg = 0;
                if (*q < 'A' || *q > 'E' || q[1] != ':' || sscanf(q + 2, "%u", &lg) != 1 ||
                    lg < 16 || lg > 27) {
                    fprintf(stderr, "--force: O:K,... with O in A..E and K in 16..27\n");
                    return 2;
                }
                forced[nforced].order = *q;
                forced[nforced++].chunk_log = lg;
                const char *c = strchr(q, ',');
                q = c != NULL ? c + 1 : "";
            }
        }
        else if (!strcmp(argv[i], "--no-pair")) pair = 0;
        else if (!strcmp(argv[i], "--pack")) pack = 0xf;
        else if (!strcmp(argv[i], "--pipeline-only")) pipe_only = 1;
        else if (!strcmp(argv[i], "--hog") && i + 1 < argc) {
            const char *v = argv[++i];
            hogs = (unsigned)atoi(v);
            const char *c = strchr(v, ':');
            g_hog_nice = c != NULL ? atoi(c + 1) : 0;
            if (hogs > 256) hogs = 256;
        }
        else {
            fprintf(stderr,
                    "usage: %s [--log 27] [--reps 5] [--ni 328] [--h2d-gib 4] "
                    "[--b2 both|gpu|cpu] [--no-pageable] [--no-pair] [--gpu 0] [--f 0.0131] "
                    "[--pipeline 8] [--real | --real-only] [--pipeline-only] [--hog N[:NICE]] "
                    "[--pack] [--plan GIB,... [--force O:K,...]]\n",
                    argv[0]);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > 32) reps = 32;
    if (real) log_m = 27;
    if (real_only) { /* the synthesis alone, in ordinary memory: no GPU needed */
        czk_err e0;
        czk_pool *p0;
        if (czk_pool_create(&p0, 0, &e0) != CZK_OK) return 1;
        size_t mm = (size_t)1 << log_m;
        czk_fr *v[3], *in = czk_malloc(1024 * sizeof(czk_fr)), *ax = host_buf(mm * sizeof(czk_fr), 0);
        for (int k = 0; k < 3; k++) v[k] = host_buf(mm * sizeof(czk_fr), 0);
        struct real_part rp;
        memset(&rp, 0, sizeof rp);
        int rc = real_porep_partition(p0, v[0], v[1], v[2], mm, in, 1024, ax, mm, &rp);
        for (int k = 0; k < 3; k++) free(v[k]);
        free(ax);
        czk_free(in);
        czk_free(rp.d_a);
        czk_free(rp.d_bi);
        czk_free(rp.d_b);
        czk_pool_destroy(p0);
        return rc;
    }
    if (czk_gpu_count() <= gpu) {
        printf("SKIP: no CUDA device %d\n", gpu);
        return 0;
    }
    czk_gpu_info info;
    czk_err err;
    if (czk_gpu_get_info(gpu, &info, &err) == CZK_OK)
        printf("GPU %d: %s, %d SMs, %.1f GiB\n", gpu, info.name, info.sm_count,
               (double)info.total_mem / (1 << 30));
    czk_pool *pool;
    if (czk_pool_create(&pool, 0, &err) != CZK_OK) return 1;
    printf("host threads: %u\n", czk_pool_size(pool));

    const size_t m = (size_t)1 << log_m;
    const size_t fb = sizeof(czk_fr);
    /* ---- 1. H2D ---- */
    double h2d_pinned = 0, h2d_pageable = 0;
    czk_fr *pin[3], *pag[3] = {NULL, NULL, NULL};
    size_t buf_bytes = m * fb;
    size_t h2d_bytes = (size_t)(h2d_gib * (double)(1ULL << 30));
    if (h2d_bytes > buf_bytes) h2d_bytes = buf_bytes;
    double t = now();
    for (int k = 0; k < 3; k++) pin[k] = host_buf(buf_bytes, 1);
    printf("pinned 3 x %.2f GiB in %.1f s\n", (double)buf_bytes / (1 << 30), now() - t);
    for (int k = 0; k < 3; k++) fill(pool, pin[k], m, 11 + (uint64_t)k, 0);
    if (pageable) {
        for (int k = 0; k < 3; k++) {
            pag[k] = host_buf(buf_bytes, 0);
            memcpy(pag[k], pin[k], buf_bytes);
        }
    }
    double h2d_pinned_malloc = 0;
    if (h2d_bytes > 0) {
        /* Into device buffers from the prover's pool (the figure reported), then from
         * cudaMalloc (the earlier sessions' figure), then from pageable memory. */
        double v[3];
        for (int pooled = 1; pooled >= 0; pooled--) {
            for (int rep = 0; rep < 3; rep++)
                if (czk__gpu_h2d_rate(gpu, (void *const *)pin, 3, h2d_bytes, pooled, &v[rep],
                                      &err) != CZK_OK) {
                    fprintf(stderr, "h2d: %s\n", err.msg);
                    return 1;
                }
            *(pooled ? &h2d_pinned : &h2d_pinned_malloc) = median(v, 3);
        }
        if (pageable) {
            for (int rep = 0; rep < 3; rep++)
                if (czk__gpu_h2d_rate(gpu, (void *const *)pag, 3, h2d_bytes, 1, &v[rep],
                                      &err) != CZK_OK) {
                    fprintf(stderr, "h2d: %s\n", err.msg);
                    return 1;
                }
            h2d_pageable = median(v, 3);
        }
        printf("H2D 3 x %.2f GiB: pinned %.1f GB/s into pooled device buffers, %.1f into "
               "cudaMalloc ones (target >= 50, plain copy 55.5), pageable %.1f GB/s (8.2 "
               "measured before)\n",
               (double)h2d_bytes / (1 << 30), h2d_pinned, h2d_pinned_malloc, h2d_pageable);
    }

    /* ---- 2. The partition ---- */
    size_t n_rows = log_m == 27 ? 130278541 : m - ni - ((size_t)1 << 16);
    if (log_m < 18) n_rows = m - ni - 16;
    size_t na = n_rows;
    struct real_part rp;
    memset(&rp, 0, sizeof rp);
    czk_fr *inputs = NULL, *aux = NULL;
    if (real) {
        inputs = czk_malloc(1024 * fb);
        aux = host_buf(m * fb, 1);
        if (real_porep_partition(pool, pin[0], pin[1], pin[2], m, inputs, 1024, aux, m, &rp))
            return 1;
        ni = (unsigned)rp.n.n_inputs;
        na = (size_t)rp.n.n_aux;
        n_rows = (size_t)rp.n.n_constraints;
        for (int k = 0; k < 3 && pageable; k++) memcpy(pag[k], pin[k], buf_bytes);
    }
    czk_groth16_params pk;
    memset(&pk, 0, sizeof pk);
    pk.conv = CZK_H_BELLPERSON;
    pk.n_inputs = ni;
    pk.n_aux = (uint32_t)na;
    pk.log_m = log_m;
    pk.vk.alpha_g1 = CZK_G1_GENERATOR;
    pk.vk.beta_g1 = CZK_G1_GENERATOR;
    pk.vk.delta_g1 = CZK_G1_GENERATOR;
    pk.vk.beta_g2 = CZK_G2_GENERATOR;
    pk.vk.gamma_g2 = CZK_G2_GENERATOR;
    pk.vk.delta_g2 = CZK_G2_GENERATOR;
    pk.vk.ic_len = ni;
    uint64_t *d_a = real ? rp.d_a : density(na, 0.997, 101),
             *d_bi = real ? rp.d_bi : density(ni, 1.0, 102),
             *d_b = real ? rp.d_b : density(na, 0.25, 103);
    size_t a_cnt = czk_density_count(d_a, na), bi_cnt = czk_density_count(d_bi, ni),
           b_cnt = czk_density_count(d_b, na);
    pk.h_len = m - 1;
    pk.l_len = na;
    pk.a_len = ni + a_cnt;
    pk.b_g1_len = pk.b_g2_len = bi_cnt + b_cnt;
    printf("partition: 2^%u domain, %zu rows, %u inputs, %zu aux; A aux %zu (%.1f%%), B %zu\n",
           log_m, n_rows, ni, na, a_cnt, 100.0 * (double)a_cnt / (double)na, pk.b_g1_len);

    if (!real) {
        inputs = czk_malloc(ni * fb);
        fill(pool, inputs, ni, 7, 0);
        inputs[0] = CZK_FR_ONE;
        aux = host_buf(na * fb, 1);
        fill(pool, aux, na, 8, 1);
    }

    t = now();
    czk_gpu_srs *srs = NULL;
    if (czk_gpu_srs_synthesize(&srs, gpu, &pk, 0x5eed, &err) != CZK_OK) {
        fprintf(stderr, "srs: %s\n", err.msg);
        return 1;
    }
    printf("SRS synthesized on the device: %.2f GB in %.1f s\n",
           (double)czk_gpu_srs_bytes(srs) / 1e9, now() - t);

    /* Configurations: B_G2 on the GPU with the witness MSMs beside H (the default), the
     * same with every MSM after H (no overlap), and B_G2 on the CPU. */
    int modes[3], serial[3], nmodes = 0;
    if (strcmp(b2_mode, "cpu") != 0) {
        modes[nmodes] = CZK_GPU_B2_GPU;
        serial[nmodes++] = 0;
        modes[nmodes] = CZK_GPU_B2_GPU;
        serial[nmodes++] = 1;
    }
    if (strcmp(b2_mode, "gpu") != 0) {
        modes[nmodes] = CZK_GPU_B2_CPU;
        serial[nmodes++] = 0;
    }
    if (modes[nmodes - 1] == CZK_GPU_B2_CPU) {
        /* B_G2 on the CPU reads host bases: 256 distinct points, tiled. */
        pk.b_g2 = czk_malloc(pk.b_g2_len * sizeof(czk_g2_affine));
        czk_g2_jac g, p;
        czk_g2_jac_from_affine(&g, &CZK_G2_GENERATOR);
        p = g;
        czk_g2_affine tile[256];
        for (int i = 0; i < 256; i++) {
            czk_g2_jac_to_affine(&tile[i], &p);
            czk_g2_jac_add(&p, &p, &g);
        }
        for (size_t i = 0; i < pk.b_g2_len; i++) pk.b_g2[i] = tile[i % 256];
    }

    czk_groth16_assignment asg;
    memset(&asg, 0, sizeof asg);
    asg.inputs = inputs;
    asg.aux = aux;
    asg.a = pin[0];
    asg.b = pin[1];
    asg.c = pin[2];
    asg.n_rows = n_rows;
    asg.a_aux_density = d_a;
    asg.b_input_density = d_bi;
    asg.b_aux_density = d_b;
    czk_fr r, s;
    czk_fr_from_u64(&r, 12345);
    czk_fr_from_u64(&s, 67890);
    /* --pack: a, b, c and aux packed once (include/czk/pack.h), in page-locked buffers with
     * room for half the elements as values; every proof below copies the packed forms
     * (--plan: each plan plain, then packed). The packing is host work before the call
     * (czkd's synthesis workers would do it), timed here on the pool's threads, median of 3. */
    czk_packed_vec packed[4];
    memset(packed, 0, sizeof packed);
    if (pack) {
        const czk_fr *src[4] = {pin[0], pin[1], pin[2], aux};
        const size_t len[4] = {n_rows, n_rows, n_rows, na};
        double pack_total = 0;
        uint64_t plain_total = 0, packed_total = 0;
        for (int k = 0; k < 4; k++) {
            czk_packed_vec *p = &packed[k];
            if (!((pack >> k) & 1)) {
                printf("pack %c: not asked for; copied plain\n", "abcw"[k]);
                plain_total += (uint64_t)len[k] * fb;
                packed_total += (uint64_t)len[k] * fb;
                continue;
            }
            size_t w = czk_packed_words(len[k]);
            p->ones = host_buf(w * 8, 1);
            p->others = host_buf(w * 8, 1);
            p->prefix = host_buf(w * 4, 1);
            p->vals_cap = len[k] / 2;
            p->vals = host_buf(p->vals_cap * fb + fb, 1);
            double tv[3];
            czk_status ps = CZK_OK;
            for (int rep = 0; rep < 3; rep++) {
                double t0 = now();
                ps = czk_pack_vec(p, src[k], len[k], pool, &err);
                tv[rep] = now() - t0;
                if (ps != CZK_OK) break;
            }
            plain_total += (uint64_t)len[k] * fb;
            if (ps != CZK_OK) {
                printf("pack %c: %s; copied plain\n", "abcw"[k], err.msg);
                packed_total += (uint64_t)len[k] * fb;
                continue;
            }
            g_packed[k] = p;
            const double tk = median(tv, 3);
            pack_total += tk;
            packed_total += czk_packed_bytes(p);
            printf("pack %c: %zu elements, %.2f%% neither 0 nor 1, %.3f GB packed (%.1f%% of "
                   "plain), %.1f ms on %u threads (%.1f GB/s read)\n",
                   "abcw"[k], len[k], 100.0 * (double)p->n_other / (double)len[k],
                   (double)czk_packed_bytes(p) / 1e9,
                   100.0 * (double)czk_packed_bytes(p) / ((double)len[k] * fb), 1e3 * tk,
                   czk_pool_size(pool), (double)len[k] * fb / tk / 1e9);
        }
        printf("packed copies: %.2f GB against %.2f GB plain; packing %.1f ms of host time "
               "before the call (not in the figures below)\n",
               (double)packed_total / 1e9, (double)plain_total / 1e9, 1e3 * pack_total);
    }

    if (plan_budgets != NULL)
        return plan_study(gpu, &pk, srs, &asg, &r, &s, pool, plan_budgets, forced, nforced, reps);

    double med[3][S_N];
    memset(med, 0, sizeof med);
    double frac_sig = 0;
    /* --pipeline-only: straight to the partitions back to back (f then comes from there). */
    for (int mi = 0; mi < (pipe_only ? 0 : nmodes); mi++) {
        czk_gpu_prove_opts o = {0};
        for (int k = 0; k < 3; k++) o.packed_abc[k] = g_packed[k];
        o.packed_aux = g_packed[3];
        o.b2 = (czk_gpu_b2_where)modes[mi];
        o.no_overlap = serial[mi] != 0;
        double v[S_N][32], hready[32];
        czk_groth16_proof proof;
        czk_gpu_prove_stats st;
        for (unsigned rep = 0; rep <= reps; rep++) {
            if (czk_gpu_prove_ex(&proof, gpu, &pk, srs, &asg, &r, &s, pool, &o, NULL, &st,
                                 &err) != CZK_OK) {
                fprintf(stderr, "prove: %s\n", err.msg);
                return 1;
            }
            if (rep == 0) continue; /* warm-up: tables, pools, first launches */
            double *x[S_N] = {&v[S_H2D][rep - 1], &v[S_NTT][rep - 1], &v[S_H][rep - 1],
                              &v[S_L][rep - 1],   &v[S_A][rep - 1],   &v[S_B1][rep - 1],
                              &v[S_B2][rep - 1],  &v[S_TOTAL][rep - 1]};
            *x[S_H2D] = st.h2d_s;
            *x[S_NTT] = st.ntt_s;
            *x[S_H] = st.msm_h_s;
            *x[S_L] = st.msm_l_s;
            *x[S_A] = st.msm_a_s;
            *x[S_B1] = st.msm_b1_s;
            *x[S_B2] = st.msm_b2_s;
            *x[S_TOTAL] = st.gpu_s;
            hready[rep - 1] = st.t_h_s;
            frac_sig = (double)st.l_sig / (double)na;
        }
        for (int k = 0; k < S_N; k++) med[mi][k] = median(v[k], (int)reps);
        printf("\nB_G2 on the %s, witness MSMs %s H (median of %u after a warm-up; H2D %.2f GB, "
               "pinned %s)\n",
               modes[mi] == CZK_GPU_B2_CPU ? "CPU" : "GPU", serial[mi] ? "after" : "beside", reps,
               (double)st.h2d_bytes / 1e9, st.host_pinned ? "yes" : "no");
        printf("  %-10s %10s\n", "stage", "ms");
        for (int k = 0; k < S_N; k++) printf("  %-10s %10.1f\n", stage_names[k], 1e3 * med[mi][k]);
        printf("  H ready %.1f ms into the call (median wall mark); %d vectors packed\n",
               1e3 * median(hready, (int)reps), st.packed_vectors);
        printf("  (H2D and NTT overlap%s%s; stage times are CUDA-event times of each stage, "
               "which overlapping stages stretch)\n",
               serial[mi] ? "" : ", L/A/B MSMs beside NTT and MSM H",
               modes[mi] == CZK_GPU_B2_CPU ? ", B_G2 on the CPU beside all of it" : "");
    }
    double floor_s = 1.0 + 3.9 * frac_sig;
    printf("\nf (aux scalars not 0/1) = %.3f; floor 1.0 s + 3.9 f s = %.2f s; target <= 1.2 s\n",
           frac_sig, floor_s);

    /* ---- 3. Two partitions at once: the throughput an engine gets by overlapping them ---- */
    double pair_s = 0, pipe_s = 0;
    if (pair) {
        czk_fr *pin2[3];
        for (int k = 0; k < 3; k++) {
            pin2[k] = host_buf(buf_bytes, 1);
            memcpy(pin2[k], pin[k], buf_bytes);
        }
        /* Partitions back to back, handed on at on_compute (first, while pin2 exists). */
        if (pipe_n >= 3) {
            struct pipe_shared sh;
            memset(&sh, 0, sizeof sh);
            pthread_mutex_init(&sh.mu, NULL);
            pthread_cond_init(&sh.cv, NULL);
            sh.total = pipe_n;
            struct pipe_arg pp[2];
            for (int i = 0; i < 2; i++) {
                memset(&pp[i], 0, sizeof pp[i]);
                pp[i].sh = &sh;
                pp[i].id = i;
                pp[i].base.gpu = gpu;
                pp[i].base.pk = &pk;
                pp[i].base.srs = srs;
                pp[i].base.asg = asg;
                pp[i].base.asg.a = i ? pin2[0] : pin[0];
                pp[i].base.asg.b = i ? pin2[1] : pin[1];
                pp[i].base.asg.c = i ? pin2[2] : pin[2];
                pp[i].base.r = &r;
                pp[i].base.s = &s;
            }
            pthread_t hog_th[256];
            g_hog_stop = 0;
            for (unsigned i = 0; i < hogs; i++) pthread_create(&hog_th[i], NULL, hog_main, NULL);
            if (hogs > 0)
                printf("CPU load during the pipeline: %u spinning threads at nice %d\n", hogs,
                       g_hog_nice);
            double tp = now();
            pthread_t th[2];
            for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, pipe_main, &pp[i]);
            for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
            double dt = now() - tp;
            g_hog_stop = 1;
            for (unsigned i = 0; i < hogs; i++) pthread_join(hog_th[i], NULL);
            int ok = pp[0].base.rc == CZK_OK && pp[1].base.rc == CZK_OK;
            if (ok) {
                /*
                 * Steady state: the two threads' rates added, each thread's rate from its own
                 * whole cycles between its second completion and its second-to-last (the
                 * first is the pipeline filling; the last may be the drain, where the last
                 * proof runs alone once the other thread has finished). Earlier rules over
                 * the merged completions read low: the first-to-last interval (before the
                 * eighth session) by ~7 % (1.082 s where half the median call was 1.158 s),
                 * since nine gaps hold one more short gap (the lock's hand-on) than long
                 * ones; completions 4..10 by ~4 % (1.108 against 1.160), and 3..9 by ~5 %
                 * (1.100 against 1.156): the threads' cycles differ, so which thread ends
                 * the window matters. Half the median call and the raw completion times are
                 * printed beside it.
                 */
                double rate = 0;
                int threads_ok = 1;
                for (int th_i = 0; th_i < 2; th_i++) {
                    double tt[64];
                    unsigned cnt = 0;
                    for (unsigned k = 0; k < pipe_n; k++)
                        if (sh.who[k] == th_i) tt[cnt++] = sh.t_end[k];
                    qsort(tt, cnt, sizeof tt[0], cmp_double);
                    unsigned lo = cnt >= 4 ? 1 : 0;
                    unsigned hi = cnt >= 4 ? cnt - 2 : (cnt > 0 ? cnt - 1 : 0);
                    if (hi > lo)
                        rate += (double)(hi - lo) / (tt[hi] - tt[lo]);
                    else
                        threads_ok = 0;
                }
                double te[64];
                memcpy(te, sh.t_end, pipe_n * sizeof te[0]);
                qsort(te, pipe_n, sizeof te[0], cmp_double);
                const double first_last = (te[pipe_n - 1] - te[0]) / (double)(pipe_n - 1);
                pipe_s = threads_ok && rate > 0 ? 1.0 / rate : first_last;
                const double half_call = median(sh.call + 2, (int)pipe_n - 2) / 2;
                printf("pipelined on one GPU (lock handed on at on_compute): %u partitions in "
                       "%.1f ms; %.1f ms a partition in steady state (the two threads' rates "
                       "added; half the median call %.1f ms; first to last %.1f ms), %u of %u "
                       "handed on early\n",
                       pipe_n, 1e3 * dt, 1e3 * pipe_s, 1e3 * half_call, 1e3 * first_last,
                       sh.overlapped, pipe_n);
                printf("  completions (s from the start, thread):");
                for (unsigned k = 0; k < pipe_n; k++)
                    printf(" %.3f/%d", sh.t_end[k] - tp, sh.who[k]);
                printf("\n");
                /* The figures czkd's gpu_end notes carry, to set the two side by side. */
                printf("  per proof (median of %u after the first two): held %.3f s, call %.3f "
                       "s, H ready %.3f s, MSM H %.3f s, MSM L %.3f s\n",
                       pipe_n - 2, median(sh.held + 2, (int)pipe_n - 2),
                       median(sh.call + 2, (int)pipe_n - 2), median(sh.ntt + 2, (int)pipe_n - 2),
                       median(sh.msm_h + 2, (int)pipe_n - 2),
                       median(sh.msm_l + 2, (int)pipe_n - 2));
                int nm = (int)pipe_n - 2;
                printf("  wall marks from the call's start (median): queued %.3f, H ready %.3f, "
                       "handed on %.3f, MSM H done %.3f, L done %.3f, B_G2 done %.3f s\n",
                       median(sh.m_q + 2, nm), median(sh.m_h + 2, nm), median(sh.m_ho + 2, nm),
                       median(sh.m_mh + 2, nm), median(sh.m_l + 2, nm), median(sh.m_b2 + 2, nm));
            } else {
                for (int i = 0; i < 2; i++)
                    if (pp[i].base.rc != CZK_OK)
                        printf("pipelined: %s: %s\n", czk_status_name(pp[i].base.rc),
                               pp[i].base.err.msg);
            }
            pthread_cond_destroy(&sh.cv);
            pthread_mutex_destroy(&sh.mu);
        }
        struct pair_arg pa[2];
        for (int i = 0; i < 2 && !pipe_only; i++) {
            memset(&pa[i], 0, sizeof pa[i]);
            pa[i].gpu = gpu;
            pa[i].pk = &pk;
            pa[i].srs = srs;
            pa[i].asg = asg;
            pa[i].asg.a = i ? pin2[0] : pin[0];
            pa[i].asg.b = i ? pin2[1] : pin[1];
            pa[i].asg.c = i ? pin2[2] : pin[2];
            pa[i].r = &r;
            pa[i].s = &s;
        }
        double v[8];
        int ok = 1;
        unsigned preps = reps < 3 ? reps : 3;
        if (pipe_only) ok = 0;
        for (unsigned rep = 0; rep <= preps && ok; rep++) {
            pthread_t th[2];
            double tp = now();
            for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, pair_main, &pa[i]);
            for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
            double dt = now() - tp;
            for (int i = 0; i < 2; i++)
                if (pa[i].rc != CZK_OK) {
                    printf("two at once: %s: %s\n", czk_status_name(pa[i].rc), pa[i].err.msg);
                    ok = 0;
                }
            if (rep > 0) v[rep - 1] = dt;
        }
        if (ok) {
            pair_s = median(v, (int)preps);
            printf("two partitions at once on one GPU: %.1f ms for the pair, %.1f ms a partition "
                   "(median of %u after a warm-up)\n",
                   1e3 * pair_s, 5e2 * pair_s, preps);
        }
        for (int k = 0; k < 3; k++) czk_gpu_host_free(pin2[k]);
    }

    /* ---- 4. One proof from pageable buffers ---- */
    double pag_total = 0, pag_h2d = 0;
    if (pageable) {
        czk_fr *aux_p = host_buf(na * fb, 0);
        memcpy(aux_p, aux, na * fb);
        asg.a = pag[0];
        asg.b = pag[1];
        asg.c = pag[2];
        asg.aux = aux_p;
        czk_gpu_prove_opts o = {0};
        o.b2 = (czk_gpu_b2_where)modes[0];
        czk_groth16_proof proof;
        czk_gpu_prove_stats st;
        if (czk_gpu_prove_ex(&proof, gpu, &pk, srs, &asg, &r, &s, pool, &o, NULL, &st, &err) !=
            CZK_OK) {
            fprintf(stderr, "prove (pageable): %s\n", err.msg);
            return 1;
        }
        pag_total = st.gpu_s;
        pag_h2d = st.h2d_s;
        printf("pageable buffers: H2D %.1f ms (%.1f GB/s), total %.1f ms (pinned %s)\n",
               1e3 * pag_h2d, (double)st.h2d_bytes / pag_h2d / 1e9, 1e3 * pag_total,
               st.host_pinned ? "yes?" : "no");
        free(aux_p);
    }

    printf("JSON {\"bench\":\"gpu_prove\",\"log\":%u,\"rows\":%zu,\"reps\":%u,"
           "\"h2d_pinned_gbps\":%.2f,\"h2d_pinned_malloc_gbps\":%.2f,\"h2d_pageable_gbps\":%.2f,"
           "\"frac_sig\":%.4f,\"floor_s\":%.3f",
           log_m, n_rows, reps, h2d_pinned, h2d_pinned_malloc, h2d_pageable, frac_sig, floor_s);
    for (int mi = 0; mi < nmodes; mi++) {
        printf(",\"b2_%s%s\":{", modes[mi] == CZK_GPU_B2_CPU ? "cpu" : "gpu",
               serial[mi] ? "_serial" : "");
        for (int k = 0; k < S_N; k++)
            printf("%s\"%s_ms\":%.2f", k ? "," : "",
                   (const char *[]){"h2d", "ntt", "msm_h", "msm_l", "msm_a", "msm_b1",
                                    "msm_b2", "total"}[k],
                   1e3 * med[mi][k]);
        printf("}");
    }
    printf(",\"pair_per_partition_ms\":%.1f,\"pipelined_per_partition_ms\":%.1f,"
           "\"pageable_total_ms\":%.1f,\"pageable_h2d_ms\":%.1f}\n",
           5e2 * pair_s, 1e3 * pipe_s, 1e3 * pag_total, 1e3 * pag_h2d);

    czk_gpu_srs_destroy(srs);
    czk_free(pk.b_g2);
    for (int k = 0; k < 3; k++) {
        czk_gpu_host_free(pin[k]);
        free(pag[k]);
    }
    czk_gpu_host_free(aux);
    czk_free(inputs);
    czk_free(d_a);
    czk_free(d_bi);
    czk_free(d_b);
    czk_pool_destroy(pool);
    return 0;
}
