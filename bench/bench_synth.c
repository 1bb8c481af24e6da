/*
 * bench_synth: synthesis of one Filecoin partition (issue #6), the evaluating path against
 * the pre-compiled constraint evaluator (PCE) path.
 *
 * The witness is SYNTHETIC: random field elements for the data leaf, parent rows,
 * commitments and Merkle siblings, random path positions, with every shape exactly as a
 * real partition's. The circuit computes its own labels and hashes from them, so the work
 * per constraint (SHA-256, Poseidon, bit decompositions, packing) is that of a real proof;
 * only the constraints are not satisfied, which neither path looks at.
 *
 * Rows (one partition, median of --reps runs after one warm-up):
 *   count     CZK_CS_COUNT: structure only (no values), for reference
 *   witness   CZK_CS_WITNESS: values only (what the PCE path synthesizes)
 *   eval      CZK_CS_EVAL: values and a/b/c into caller buffers, one thread
 *   eval_par  (--par) the same on --threads threads: the prologue on the caller, then
 *             one challenge per task on a czk_cs_fork (czk_porep_circuit_par,
 *             czk_snap_synthesize_par); its witness and a/b/c must hash the same as the
 *             serial run's
 *   spmv      czk_pce_eval on --threads threads
 *   pce       witness + spmv: the PCE path
 * Per-core figures divide by core-seconds, measured as the process's CPU time
 * (CLOCK_PROCESS_CPUTIME_ID, all threads), so a machine shared with other jobs inflates
 * the wall column but not the per-core one; on a quiet machine a one-thread stage has
 * CPU ≈ wall. Printed beside issue 6's target (5 M constraints/s per
 * core) and cuzk's PCE path (about 0.4 M per core: 10 partitions in 35 s on 96 cores).
 *
 *   bench_synth [--size 2k|8m|512m|32g] [--snap] [--threads N] [--reps N]
 *               [--pce-file PATH] [--no-eval] [--challenges N] [--par] [--par-only]
 *
 * --par adds the eval_par row; --par-only runs only eval and eval_par (no count, witness
 * or PCE path: a 32 GiB recording takes minutes and its own memory).
 *
 * --challenges N (PoRep) synthesizes only N of the partition's challenges: every
 * challenge is the same circuit, so a 32 GiB partition's rates can be measured in a
 * fraction of its 17 GiB (witness + a/b/c) and 130 M constraints on a small machine.
 *
 * --pce-file saves the recording there, loads it back (mmap) and evaluates the loaded
 * copy, timing both. Peak RSS is getrusage's, for the whole process (so after the PCE
 * path it includes the recording); the per-partition buffer sizes are printed as well.
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/merkle.h"
#include "czk/pce.h"
#include "czk/pack.h"
#include "czk/pool.h"
#include "czk/porep.h"
#include "czk/snap.h"
#include "czk/seal_proof.h"
#include "czk/sdr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define TARGET_PER_CORE 5.0e6
#define CUZK_PER_CORE   0.4e6

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of every thread of the process: core-seconds, which a loaded machine does
 * not inflate the way it inflates wall time. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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

static double peak_rss_gib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / (1024.0 * 1024.0); /* ru_maxrss is in KiB on Linux */
}

/* ------------------------------------------------------------------------------------ */
/* Synthetic witnesses                                                                  */
/* ------------------------------------------------------------------------------------ */

static uint64_t rng = 0x853c49e6748fea9bULL;

static uint64_t rand64(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A random value below 2^254 < r, as 32 LE bytes. */
static void rand_fr_bytes(uint8_t b[32])
{
    for (int i = 0; i < 4; i++) {
        uint64_t w = rand64();
        memcpy(b + 8 * i, &w, 8);
    }
    b[31] &= 0x3f;
}

/* A path of the given shape with random positions and siblings. */
static void rand_path(czk_merkle_path *p, unsigned base_arity, unsigned base_levels, unsigned sub,
                      unsigned top)
{
    memset(p, 0, sizeof *p);
    unsigned ar[CZK_MERKLE_MAX_LEVELS], n = 0, sib = 0;
    for (unsigned i = 0; i < base_levels; i++) ar[n++] = base_arity;
    if (sub) ar[n++] = sub;
    if (top) ar[n++] = top;
    p->levels = n;
    for (unsigned i = 0; i < n; i++) {
        p->arity[i] = (uint8_t)ar[i];
        p->index[i] = (uint8_t)(rand64() % ar[i]);
        p->leaf_index = p->leaf_index * ar[i] + p->index[i];
        for (unsigned k = 0; k + 1 < ar[i]; k++) rand_fr_bytes(p->siblings[sib++]);
    }
    rand_fr_bytes(p->leaf);
}

static unsigned log_base(uint64_t n, unsigned base)
{
    unsigned l = 0;
    while (n > 1) {
        n /= base;
        l++;
    }
    return l;
}

typedef struct porep_fixture {
    czk_porep_circuit_ctx ctx;
    czk_porep_witness w;
    czk_porep_challenge *ch;
} porep_fixture;

static bool porep_fixture_make(porep_fixture *f, czk_seal_proof proof, unsigned challenges)
{
    czk_err err;
    memset(f, 0, sizeof *f);
    if (czk_porep_config_for_proof(&f->ctx.config, proof, &err) != CZK_OK) {
        fprintf(stderr, "bench_synth: %s\n", err.msg);
        return false;
    }
    if (challenges > 0 && challenges < f->ctx.config.challenges)
        f->ctx.config.challenges = challenges;
    const czk_porep_config *cfg = &f->ctx.config;
    unsigned upper = (cfg->tree_sub_arity ? cfg->tree_sub_arity : 1) *
                     (cfg->tree_top_arity ? cfg->tree_top_arity : 1);
    unsigned d_levels = log_base(cfg->nodes, 2);
    unsigned r_levels = log_base(cfg->nodes / upper, cfg->tree_base_arity);
    f->ch = czk_calloc(cfg->challenges, sizeof *f->ch);
    if (f->ch == NULL) return false;
    rand_fr_bytes(f->w.replica_id);
    rand_fr_bytes(f->w.comm_d);
    rand_fr_bytes(f->w.comm_r);
    rand_fr_bytes(f->w.comm_r_last);
    rand_fr_bytes(f->w.comm_c);
    for (unsigned i = 0; i < cfg->challenges; i++) {
        czk_porep_challenge *c = &f->ch[i];
        c->challenge = rand64() % cfg->nodes;
        rand_fr_bytes(c->data_leaf);
        rand_path(&c->comm_d_path, 2, d_levels, 0, 0);
        rand_path(&c->comm_r_last_path, cfg->tree_base_arity, r_levels, cfg->tree_sub_arity,
                  cfg->tree_top_arity);
        rand_path(&c->comm_c_path, cfg->tree_base_arity, r_levels, cfg->tree_sub_arity,
                  cfg->tree_top_arity);
        for (unsigned j = 0; j < CZK_SDR_DRG_DEGREE + CZK_SDR_EXP_DEGREE; j++) {
            czk_porep_column *col =
                j < CZK_SDR_DRG_DEGREE ? &f->ch[i].drg[j] : &f->ch[i].exp[j - CZK_SDR_DRG_DEGREE];
            for (unsigned l = 0; l < cfg->layers; l++) rand_fr_bytes(col->rows[l]);
            rand_path(&col->path, cfg->tree_base_arity, r_levels, cfg->tree_sub_arity,
                      cfg->tree_top_arity);
        }
    }
    f->w.challenges = f->ch;
    f->ctx.witness = &f->w;
    return true;
}

typedef struct snap_fixture {
    czk_snap_params p;
    czk_snap_witness w;
    czk_snap_challenge_witness *ch;
    uint8_t (*apex)[32];
    czk_snap_circuit_ctx ctx;
} snap_fixture;

static bool snap_fixture_make(snap_fixture *f, uint64_t sector_size)
{
    czk_err err;
    memset(f, 0, sizeof *f);
    if (czk_snap_params_get(&f->p, sector_size, &err) != CZK_OK) {
        fprintf(stderr, "bench_synth: %s\n", err.msg);
        return false;
    }
    const czk_snap_params *p = &f->p;
    f->ch = czk_calloc(p->challenge_count, sizeof *f->ch);
    f->apex = czk_calloc(p->apex_leaf_count + 1, 32);
    if (f->ch == NULL || f->apex == NULL) return false;
    for (unsigned i = 0; i < p->apex_leaf_count; i++) rand_fr_bytes(f->apex[i]);
    const czk_por_shape *r = &p->tree_r;
    for (unsigned i = 0; i < p->challenge_count; i++) {
        rand_path(&f->ch[i].r_old, r->base_arity, r->base_levels, r->sub_arity, r->top_arity);
        rand_path(&f->ch[i].r_new, r->base_arity, r->base_levels, r->sub_arity, r->top_arity);
        rand_path(&f->ch[i].d_new, 2, p->challenge_bit_len, 0, 0);
        /* The challenges of one partition share its path's top partition_bit_len levels
         * (TreeDNew above the partition's apex), as the circuit checks. */
        for (unsigned l = p->challenge_bit_len - p->partition_bit_len; l < p->challenge_bit_len;
             l++) {
            memcpy(f->ch[i].d_new.siblings[l], f->ch[0].d_new.siblings[l], 32);
            f->ch[i].d_new.index[l] = f->ch[0].d_new.index[l];
        }
    }
    f->w.k = 0;
    f->w.h = czk_snap_h_default(p);
    rand_fr_bytes(f->w.comm_r_old);
    rand_fr_bytes(f->w.comm_d_new);
    rand_fr_bytes(f->w.comm_r_new);
    rand_fr_bytes(f->w.comm_c);
    rand_fr_bytes(f->w.root_r_old);
    rand_fr_bytes(f->w.root_r_new);
    f->w.apex_leafs = (const uint8_t(*)[32])f->apex;
    f->w.challenges = f->ch;
    f->ctx.params = &f->p;
    f->ctx.witness = &f->w;
    return true;
}

/* ------------------------------------------------------------------------------------ */
/* Timing                                                                               */
/* ------------------------------------------------------------------------------------ */

typedef struct job {
    czk_cs_circuit_fn fn;
    void *ctx;
    czk_pool *par; /* EVAL through czk_porep_circuit_par / czk_snap_synthesize_par */
    bool snap;
    czk_cs_counts n;
    czk_fr *z, *abc;
    czk_cs_buffers buf;
} job;

typedef struct timing {
    double wall, cpu; /* seconds; cpu = core-seconds */
} timing;

/* One synthesis of the circuit in `mode` into the job's buffers; wall seconds, or −1
 * (CPU seconds into *cpu when not NULL). */
static double synth_once(job *j, czk_cs_mode mode, double *cpu)
{
    czk_cs_config cc;
    memset(&cc, 0, sizeof cc);
    cc.mode = mode;
    if (mode == CZK_CS_EVAL || mode == CZK_CS_WITNESS) cc.buf = j->buf;
    if (mode == CZK_CS_WITNESS) {
        cc.buf.a = cc.buf.b = cc.buf.c = NULL;
        cc.buf.rows_cap = 0;
    }
    czk_cs *cs = NULL;
    czk_err err;
    double t0 = wall_s(), c0 = cpu_s();
    if (czk_cs_create(&cs, &cc, &err) != CZK_OK) {
        fprintf(stderr, "bench_synth: %s\n", err.msg);
        return -1;
    }
    if (mode == CZK_CS_EVAL && j->par != NULL && j->snap) {
        const czk_snap_circuit_ctx *sc = j->ctx;
        czk_snap_synthesize_par(cs, sc->params, sc->witness, j->par);
    } else if (mode == CZK_CS_EVAL && j->par != NULL)
        czk_porep_circuit_par(cs, j->ctx, j->par);
    else
        j->fn(cs, j->ctx);
    czk_status s = czk_cs_finish(cs, &err);
    czk_cs_counts got;
    czk_cs_get_counts(cs, &got);
    czk_cs_destroy(cs);
    double t = wall_s() - t0;
    if (cpu != NULL) *cpu = cpu_s() - c0;
    if (s != CZK_OK) {
        fprintf(stderr, "bench_synth: synthesis failed: %s\n", err.msg);
        return -1;
    }
    if (got.n_constraints != j->n.n_constraints || got.n_aux != j->n.n_aux) {
        fprintf(stderr, "bench_synth: counts differ between runs\n");
        return -1;
    }
    return t;
}

/* Medians of wall and CPU time over reps runs after a warm-up (page faults, caches). */
static bool median_synth(job *j, czk_cs_mode mode, int reps, timing *out)
{
    double w[64], c[64];
    if (synth_once(j, mode, NULL) < 0) return false;
    for (int r = 0; r < reps; r++)
        if ((w[r] = synth_once(j, mode, &c[r])) < 0) return false;
    out->wall = median(w, reps);
    out->cpu = median(c, reps);
    return true;
}

/* A 64-bit digest of the witness and a/b/c (multiply-xorshift over the words): the serial
 * and parallel results are compared this way, as a 32 GiB partition has no room for a
 * second copy. */
static uint64_t buffers_digest(const job *j)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    const czk_fr *parts[2] = {j->z, j->abc};
    size_t lens[2] = {(size_t)(j->n.n_inputs + j->n.n_aux), (size_t)(3 * j->n.n_constraints)};
    for (int p = 0; p < 2; p++) {
        for (size_t i = 0; i < lens[p]; i++) {
            for (int k = 0; k < 4; k++) {
                h = (h ^ parts[p][i].l[k]) * 0xff51afd7ed558ccdULL;
                h ^= h >> 29;
            }
        }
    }
    return h;
}

static void median_spmv(job *j, const czk_pce *pce, czk_pool *pool, int reps, timing *out)
{
    double w[64], c[64];
    size_t nc = j->n.n_constraints;
    czk_pce_eval(pce, j->buf.inputs, j->buf.aux, j->abc, j->abc + nc, j->abc + 2 * nc, pool);
    for (int r = 0; r < reps; r++) {
        double t0 = wall_s(), c0 = cpu_s();
        czk_pce_eval(pce, j->buf.inputs, j->buf.aux, j->abc, j->abc + nc, j->abc + 2 * nc, pool);
        w[r] = wall_s() - t0;
        c[r] = cpu_s() - c0;
    }
    out->wall = median(w, reps);
    out->cpu = median(c, reps);
}

/*
 * The witness's scalar profile, which sets the GPU's MSM work (docs/gpu.md §6.4:
 * ≈ 1.0 s + 3.9·f s per 2^27 partition, f the share of aux scalars that are neither 0 nor
 * 1): the GPU MSM skips zeros, batch-adds the bases of ones and runs Pippenger on the rest.
 */
static void profile01(const czk_fr *v, size_t n, uint64_t out[3])
{
    out[0] = out[1] = out[2] = 0;
    for (size_t i = 0; i < n; i++) {
        if (czk_fr_is_zero(&v[i]))
            out[0]++;
        else if (czk_fr_eq(&v[i], &CZK_FR_ONE))
            out[1]++;
        else
            out[2]++;
    }
}

/* Pack v (include/czk/pack.h) on `pool`, median of 3: the host's cost of a packed copy. */
static void pack_cost(char name, const czk_fr *v, size_t n, czk_pool *pool)
{
    czk_packed_vec p;
    memset(&p, 0, sizeof p);
    size_t w = czk_packed_words(n);
    p.ones = czk_malloc(w * 8 + 8);
    p.others = czk_malloc(w * 8 + 8);
    p.prefix = czk_malloc(w * 4 + 4);
    p.vals = czk_malloc(n * sizeof(czk_fr) + 32);
    p.vals_cap = n;
    double t[3], c[3];
    czk_err err;
    for (int r = 0; r < 3; r++) {
        double w0 = wall_s(), c0 = cpu_s();
        if (czk_pack_vec(&p, v, n, pool, &err) != CZK_OK) {
            printf("pack %c: %s\n", name, err.msg);
            break;
        }
        t[r] = wall_s() - w0;
        c[r] = cpu_s() - c0;
    }
    double tm = median(t, 3), cm = median(c, 3);
    printf("pack %c: %zu elements to %.1f%% of their bytes in %.1f ms wall on %u threads, %.1f "
           "ms CPU (%.2f GB/s a core)\n",
           name, n, 100.0 * (double)czk_packed_bytes(&p) / ((double)n * sizeof(czk_fr)),
           1e3 * tm, czk_pool_size(pool), 1e3 * cm, (double)n * sizeof(czk_fr) / cm / 1e9);
    czk_free(p.ones);
    czk_free(p.others);
    czk_free(p.prefix);
    czk_free(p.vals);
}

static void witness_profile(const job *j, uint64_t rows)
{
    uint64_t w[3];
    profile01(j->buf.aux, (size_t)j->n.n_aux, w);
    double n = (double)(j->n.n_aux ? j->n.n_aux : 1);
    printf("witness profile: %" PRIu64 " aux scalars: 0 %.2f%%, 1 %.2f%%, other (f) %.2f%%; "
           "density A %.2f%%, B %.2f%% of aux\n",
           (uint64_t)j->n.n_aux, 100.0 * w[0] / n, 100.0 * w[1] / n, 100.0 * w[2] / n,
           100.0 * (double)j->n.a_aux_density / n, 100.0 * (double)j->n.b_aux_density / n);
    printf("{\"bench\":\"witness_profile\",\"aux\":%" PRIu64 ",\"zero\":%" PRIu64
           ",\"one\":%" PRIu64 ",\"other\":%" PRIu64 "}\n",
           (uint64_t)j->n.n_aux, w[0], w[1], w[2]);
    /* The rows' evaluations a, b, c, which the GPU copies and transforms: how much of each
     * is 0 or 1 bounds what a packed copy (bitmaps and the other values) would save. */
    const czk_fr *v[3] = {j->buf.a, j->buf.b, j->buf.c};
    double r = (double)(rows ? rows : 1);
    for (int k = 0; k < 3; k++) {
        uint64_t p[3];
        profile01(v[k], (size_t)rows, p);
        printf("row profile %c: %" PRIu64 " rows: 0 %.2f%%, 1 %.2f%%, other %.2f%%\n", "abc"[k],
               rows, 100.0 * p[0] / r, 100.0 * p[1] / r, 100.0 * p[2] / r);
    }
    for (int k = 0; k < 3; k++) pack_cost("abc"[k], v[k], (size_t)rows, j->par);
    pack_cost('w', j->buf.aux, (size_t)j->n.n_aux, j->par);
}

static void row(const char *name, timing t, uint64_t constraints)
{
    double cps = (double)constraints / t.wall, per_core = (double)constraints / t.cpu;
    printf("| %-8s | %9.3f s | %9.3f s | %10.2f M/s | %8.2f M/s | %5.2fx | %5.1fx |\n", name,
           t.wall, t.cpu, cps / 1e6, per_core / 1e6, per_core / TARGET_PER_CORE,
           per_core / CUZK_PER_CORE);
}

static void summary(const char *path, const char *size, unsigned threads, uint64_t constraints,
                    timing t, double rss)
{
    double wall = t.wall, core_s = t.cpu;
    printf("SUMMARY path=%s size=%s threads=%u constraints=%" PRIu64
           " wall_s=%.3f cps=%.0f cps_per_core=%.0f peak_rss_gib=%.2f target_per_core=%.0f "
           "cuzk_per_core=%.0f\n",
           path, size, threads, constraints, wall, (double)constraints / wall,
           (double)constraints / core_s, rss, TARGET_PER_CORE, CUZK_PER_CORE);
    printf("{\"bench\":\"synth\",\"path\":\"%s\",\"size\":\"%s\",\"threads\":%u,"
           "\"constraints\":%" PRIu64 ",\"wall_s\":%.4f,\"cps_per_core\":%.0f,"
           "\"peak_rss_gib\":%.3f}\n",
           path, size, threads, constraints, wall, (double)constraints / core_s, rss);
}

int main(int argc, char **argv)
{
    const char *size = "512m", *pce_file = NULL;
    unsigned threads = 0, challenges = 0;
    int reps = 3;
    bool snap = false, do_eval = true, par = false, par_only = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--pce-file") && i + 1 < argc)
            pce_file = argv[++i];
        else if (!strcmp(argv[i], "--snap"))
            snap = true;
        else if (!strcmp(argv[i], "--challenges") && i + 1 < argc)
            challenges = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-eval"))
            do_eval = false;
        else if (!strcmp(argv[i], "--par"))
            par = true;
        else if (!strcmp(argv[i], "--par-only"))
            par = par_only = true;
        else {
            fprintf(stderr, "usage: bench_synth [--size 2k|8m|512m|32g] [--snap] [--threads N] "
                            "[--reps N] [--pce-file PATH] [--no-eval] [--challenges N] [--par] "
                            "[--par-only]\n");
            return 2;
        }
    }
    if (par_only) do_eval = true;
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    if (threads == 0) threads = czk_cpu_count();

    czk_seal_proof proof;
    uint64_t bytes;
    if (!strcmp(size, "2k")) {
        proof = CZK_SEAL_StackedDrg2KiBV1_1;
        bytes = 2048;
    } else if (!strcmp(size, "8m")) {
        proof = CZK_SEAL_StackedDrg8MiBV1_1;
        bytes = 8ull << 20;
    } else if (!strcmp(size, "512m")) {
        proof = CZK_SEAL_StackedDrg512MiBV1_1;
        bytes = 512ull << 20;
    } else if (!strcmp(size, "32g")) {
        proof = CZK_SEAL_StackedDrg32GiBV1_1;
        bytes = 32ull << 30;
    } else {
        fprintf(stderr, "bench_synth: unknown size %s\n", size);
        return 2;
    }

    job j;
    memset(&j, 0, sizeof j);
    porep_fixture pf;
    snap_fixture sf;
    czk_err err;
    const char *circuit_name = snap ? "snap" : "porep";
    j.snap = snap;
    if (snap) {
        if (!snap_fixture_make(&sf, bytes)) return 1;
        j.fn = czk_snap_circuit;
        j.ctx = &sf.ctx;
        czk_circuit_info info;
        if (czk_snap_count(&sf.p, &info, &err) != CZK_OK) {
            fprintf(stderr, "bench_synth: %s\n", err.msg);
            return 1;
        }
        j.n.n_inputs = info.inputs;
        j.n.n_aux = info.aux;
        j.n.n_constraints = info.constraints;
    } else {
        if (!porep_fixture_make(&pf, proof, challenges)) return 1;
        j.fn = czk_porep_circuit;
        j.ctx = &pf.ctx;
        if (czk_porep_count(&pf.ctx.config, &j.n, &err) != CZK_OK) {
            fprintf(stderr, "bench_synth: %s\n", err.msg);
            return 1;
        }
    }
    uint64_t nc = j.n.n_constraints, nz = j.n.n_inputs + j.n.n_aux;
    double z_gib = (double)nz * 32 / (1u << 30), abc_gib = (double)nc * 96 / (1u << 30);
    if (!snap && challenges > 0)
        printf("bench_synth: only %u of the partition's challenges\n", pf.ctx.config.challenges);
    printf("bench_synth: %s %s partition, %" PRIu64 " constraints, %" PRIu64 " inputs, %" PRIu64
           " aux; witness %.2f GiB, a/b/c %.2f GiB; %u threads, %d reps; SYNTHETIC witness "
           "(random values of the right shapes)\n",
           circuit_name, size, nc, j.n.n_inputs, j.n.n_aux, z_gib, abc_gib, threads, reps);
    j.z = czk_malloc((size_t)nz * sizeof(czk_fr));
    j.abc = czk_malloc((size_t)(3 * nc + 1) * sizeof(czk_fr));
    if (j.z == NULL || j.abc == NULL) {
        fprintf(stderr, "bench_synth: out of memory for the buffers\n");
        return 1;
    }
    j.buf.inputs = j.z;
    j.buf.inputs_cap = j.n.n_inputs;
    j.buf.aux = j.z + j.n.n_inputs;
    j.buf.aux_cap = j.n.n_aux;
    j.buf.a = j.abc;
    j.buf.b = j.abc + nc;
    j.buf.c = j.abc + 2 * nc;
    j.buf.rows_cap = nc;
    czk_pool *pool = NULL;
    if (czk_pool_create(&pool, threads, &err) != CZK_OK) {
        fprintf(stderr, "bench_synth: %s\n", err.msg);
        return 1;
    }

    printf("| stage    | wall (median) | CPU (core-s) | constraints/s (wall) | per core (CPU) "
           "| vs 5M/core | vs cuzk 0.4M/core |\n");
    printf("|---|---|---|---|---|---|---|\n");
    timing t_count, t_eval = {-1, -1}, t_wit, t_spmv;
    if (!par_only) {
        if (!median_synth(&j, CZK_CS_COUNT, reps, &t_count)) return 1;
        row("count", t_count, nc);
    }
    double rss_eval = 0;
    if (do_eval) {
        if (!median_synth(&j, CZK_CS_EVAL, reps, &t_eval)) return 1;
        rss_eval = peak_rss_gib();
        row("eval", t_eval, nc);
        witness_profile(&j, nc);
    }
    if (par) {
        uint64_t want = buffers_digest(&j);
        memset(j.abc, 0, (size_t)(3 * nc) * sizeof(czk_fr));
        timing t_par;
        j.par = pool;
        bool ok = median_synth(&j, CZK_CS_EVAL, reps, &t_par);
        j.par = NULL;
        if (!ok) return 1;
        row("eval_par", t_par, nc);
        unsigned nch = snap ? sf.p.challenge_count : pf.ctx.config.challenges;
        if (nch <= 2)
            printf("eval_par: %u challenges: the parallel path runs the serial circuit\n", nch);
        bool same = buffers_digest(&j) == want;
        printf("eval_par: %u threads, partition wall %.3f s vs %.3f s serial (%.2fx); witness "
               "and a/b/c %s the serial run's (64-bit digest)\n",
               threads, t_par.wall, t_eval.wall, t_eval.wall / t_par.wall,
               same ? "EQUAL" : "DIFFER FROM");
        summary("eval_par", size, threads, nc, t_par, peak_rss_gib());
        if (!same) return 1;
        if (par_only) {
            summary("eval", size, 1, nc, t_eval, rss_eval);
            czk_pool_destroy(pool);
            czk_free(j.z);
            czk_free(j.abc);
            return 0;
        }
    }
    if (!median_synth(&j, CZK_CS_WITNESS, reps, &t_wit)) return 1;
    row("witness", t_wit, nc);

    /* The reference a/b/c of the EVAL path, to check the PCE path's output. */
    czk_fr *ref = NULL;
    if (do_eval && nc <= (64u << 20)) {
        ref = czk_malloc((size_t)(3 * nc + 1) * sizeof(czk_fr));
        if (ref != NULL && synth_once(&j, CZK_CS_EVAL, NULL) >= 0)
            memcpy(ref, j.abc, (size_t)(3 * nc) * sizeof(czk_fr));
    }

    double t0 = wall_s();
    czk_pce *pce = NULL;
    if (czk_pce_record(&pce, j.fn, j.ctx, circuit_name, &err) != CZK_OK) {
        fprintf(stderr, "bench_synth: record: %s\n", err.msg);
        return 1;
    }
    double t_rec = wall_s() - t0;
    czk_pce_info info;
    czk_pce_get_info(pce, &info);
    uint64_t nnz = info.nnz[0] + info.nnz[1] + info.nnz[2];
    printf("record: %.2f s; nnz A %" PRIu64 " B %" PRIu64 " C %" PRIu64 " (%" PRIu64
           "); %u distinct coefficients (%u-byte indices); %" PRIu64 " long rows; %.3f GiB = "
           "%.2f bytes/nnz (cuzk: 25.7 GiB for 722 M nnz, 38 bytes/nnz)\n",
           t_rec, info.nnz[0], info.nnz[1], info.nnz[2], nnz, info.n_coeffs, info.coeff_width,
           info.long_rows[0] + info.long_rows[1] + info.long_rows[2],
           (double)info.bytes / (1u << 30), (double)info.bytes / (double)nnz);
    if (pce_file != NULL) {
        t0 = wall_s();
        if (czk_pce_save(pce, pce_file, &err) != CZK_OK) {
            fprintf(stderr, "bench_synth: save: %s\n", err.msg);
            return 1;
        }
        double t_save = wall_s() - t0;
        czk_pce_destroy(pce);
        pce = NULL;
        t0 = wall_s();
        if (czk_pce_load(&pce, pce_file, circuit_name, info.r1cs_hash, 0, &err) != CZK_OK) {
            fprintf(stderr, "bench_synth: load: %s\n", err.msg);
            return 1;
        }
        printf("file %s: save %.2f s, load+validate %.2f s (cuzk: save 22.3 s, load 9.2 s at "
               "32 GiB)\n",
               pce_file, t_save, wall_s() - t0);
    }

    median_spmv(&j, pce, pool, reps, &t_spmv);
    row("spmv", t_spmv, nc);
    timing t_pce = {t_wit.wall + t_spmv.wall, t_wit.cpu + t_spmv.cpu};
    row("pce", t_pce, nc);

    /* The PCE path end to end once, checked against the EVAL path's a/b/c. */
    czk_cs_counts got;
    t0 = wall_s();
    if (czk_pce_synthesize(pce, j.fn, j.ctx, &j.buf, pool, &got, &err) != CZK_OK) {
        fprintf(stderr, "bench_synth: pce synthesize: %s\n", err.msg);
        return 1;
    }
    printf("czk_pce_synthesize once: %.3f s wall\n", wall_s() - t0);
    if (ref != NULL) {
        bool same = memcmp(ref, j.abc, (size_t)(3 * nc) * sizeof(czk_fr)) == 0;
        printf("PCE a/b/c %s the EVAL path's (bit for bit)\n", same ? "EQUAL" : "DIFFER FROM");
        if (!same) return 1;
    }
    double rss = peak_rss_gib();
    printf("CPU split: eval − witness = %.3f s (LC terms, densities, a/b/c stores); "
           "witness − count = %.3f s (values); count = %.3f s (circuit code and LC structure)\n",
           do_eval ? t_eval.cpu - t_wit.cpu : 0.0, t_wit.cpu - t_count.cpu, t_count.cpu);
    if (do_eval) summary("eval", size, 1, nc, t_eval, rss_eval);
    summary("pce", size, threads, nc, t_pce, rss);
    printf("memory per partition: eval path %.2f GiB (witness + a/b/c); pce path the same plus "
           "the shared PCE %.2f GiB\n",
           z_gib + abc_gib, (double)info.bytes / (1u << 30));
    czk_free(ref);
    czk_pce_destroy(pce);
    czk_pool_destroy(pool);
    czk_free(j.z);
    czk_free(j.abc);
    return 0;
}
