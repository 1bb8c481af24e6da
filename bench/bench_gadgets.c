/*
 * bench_gadgets: synthesis speed of the real gadgets, per core.
 *
 * Workloads (every input allocated, so every constraint of the gadget is paid):
 *   sha256     one SHA-256 of a (64·B − 9)-byte message: B compressions of 25,840
 *              constraints plus the input bits, the shape of PoRep's label hash
 *              (B = 20: 1,248 bytes, create_label_circuit);
 *   poseidonN  H hashes of arity N (11: column hashes, 8: tree_c / tree_r_last levels,
 *              2: comm_r and SnapDeals).
 *
 * Rows: eval (CZK_CS_EVAL into buffers allocated and touched once, the prover's mode) and
 * count (CZK_CS_COUNT), median of `reps` runs of thread CPU time after one warm-up run.
 * The target column is issue 6's: ≥ 5 M constraints/s per core in eval mode.
 *
 *   bench_gadgets [--blocks B] [--hashes H] [--reps N] [--json-only]
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/gadgets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
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

static void die(czk_status s, const czk_err *err, const char *what)
{
    fprintf(stderr, "bench_gadgets: %s: %s: %s\n", what, czk_status_name(s), err ? err->msg : "");
    exit(1);
}

/* ------------------------------------------------------------------------------------ */
/* Workloads                                                                            */
/* ------------------------------------------------------------------------------------ */

typedef struct work {
    int kind; /* 0 sha256, else the Poseidon arity */
    unsigned blocks, hashes;
    uint8_t *msg;
    czk_fr in[11];
} work;

static czk_status sha_work(czk_cs *cs, const work *w)
{
    size_t nbytes = 64 * (size_t)w->blocks - 9, n = 8 * nbytes;
    czk_bool *bits = czk_malloc(n * sizeof *bits);
    if (bits == NULL) return CZK_ENOMEM;
    for (size_t i = 0; i < n; i++) bits[i] = czk_bit_alloc(cs, (w->msg[i / 8] >> (7 - i % 8)) & 1);
    czk_bool out[256];
    czk_status s = czk_sha256_circuit(cs, out, bits, n);
    czk_free(bits);
    return s;
}

static czk_status poseidon_work(czk_cs *cs, const work *w)
{
    const czk_poseidon_params *p = czk_poseidon_params_get((unsigned)w->kind);
    czk_var v[11], out;
    for (unsigned h = 0; h < w->hashes; h++) {
        for (int i = 0; i < w->kind; i++) v[i] = czk_cs_alloc(cs, &w->in[i]);
        czk_status s = czk_poseidon_circuit(cs, &out, p, CZK_POSEIDON_MERKLE_TREE, 0, v);
        if (s != CZK_OK) return s;
    }
    return CZK_OK;
}

static czk_status run_work(czk_cs *cs, void *p)
{
    const work *w = p;
    return w->kind == 0 ? sha_work(cs, w) : poseidon_work(cs, w);
}

typedef struct result {
    const char *name;
    size_t constraints;
    double eval_ns, count_ns; /* medians per run */
    double unit_us;           /* eval µs per block / per hash */
    bool satisfied;
} result;

static void bench_one(work *w, const char *name, int reps, result *r)
{
    czk_err err;
    czk_status s;
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    if ((s = czk_cs_create(&cs, &cfg, &err)) != CZK_OK) die(s, &err, "create");
    double t[64];
    for (int k = 0; k <= reps; k++) {
        if ((s = czk_cs_reset(cs, &cfg, &err)) != CZK_OK) die(s, &err, "reset");
        double t0 = thread_ns();
        if ((s = run_work(cs, w)) != CZK_OK) die(s, NULL, name);
        if ((s = czk_cs_finish(cs, &err)) != CZK_OK) die(s, &err, "count");
        double t1 = thread_ns();
        if (k > 0) t[k - 1] = t1 - t0;
    }
    r->count_ns = median(t, reps);
    czk_cs_counts cnt;
    czk_cs_get_counts(cs, &cnt);
    size_t ni = cnt.n_inputs, na = cnt.n_aux, nc = cnt.n_constraints;

    czk_fr *z = czk_malloc((ni + na) * sizeof *z), *abc = czk_malloc(3 * nc * sizeof *abc);
    if (z == NULL || abc == NULL) die(CZK_ENOMEM, NULL, "buffers");
    memset(z, 0, (ni + na) * sizeof *z);
    memset(abc, 0, 3 * nc * sizeof *abc);
    czk_cs_config ecfg = {
        CZK_CS_EVAL, {z, ni, z + ni, na, abc, abc + nc, abc + 2 * nc, nc}, 0, 0, 0};
    for (int k = 0; k <= reps; k++) {
        if ((s = czk_cs_reset(cs, &ecfg, &err)) != CZK_OK) die(s, &err, "reset");
        double t0 = thread_ns();
        if ((s = run_work(cs, w)) != CZK_OK) die(s, NULL, name);
        if ((s = czk_cs_finish(cs, &err)) != CZK_OK) die(s, &err, "eval");
        double t1 = thread_ns();
        if (k > 0) t[k - 1] = t1 - t0;
    }
    r->eval_ns = median(t, reps);
    czk_cs_destroy(cs);

    /* The witness must satisfy every row, or the timing means nothing. */
    r->satisfied = true;
    for (size_t j = 0; j < nc; j++) {
        czk_fr ab;
        czk_fr_mul(&ab, &abc[j], &abc[nc + j]);
        if (!czk_fr_eq(&ab, &abc[2 * nc + j])) {
            r->satisfied = false;
            break;
        }
    }
    r->name = name;
    r->constraints = nc;
    r->unit_us = r->eval_ns / 1e3 / (w->kind == 0 ? w->blocks : w->hashes);
    czk_free(z);
    czk_free(abc);
}

int main(int argc, char **argv)
{
    unsigned blocks = 20, hashes = 200;
    int reps = 7;
    bool json_only = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--blocks") == 0 && i + 1 < argc) {
            blocks = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--hashes") == 0 && i + 1 < argc) {
            hashes = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--json-only") == 0) {
            json_only = true;
        } else {
            fprintf(stderr,
                    "usage: bench_gadgets [--blocks B] [--hashes H] [--reps N] [--json-only]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > 63) reps = 63;
    if (blocks < 1) blocks = 1;
    if (hashes < 1) hashes = 1;

    work w;
    memset(&w, 0, sizeof w);
    w.blocks = blocks;
    w.hashes = hashes;
    w.msg = czk_malloc(64 * (size_t)blocks);
    if (w.msg == NULL) die(CZK_ENOMEM, NULL, "message");
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < 64 * (size_t)blocks; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        w.msg[i] = (uint8_t)x;
    }
    for (int i = 0; i < 11; i++) czk_fr_from_u64(&w.in[i], x += 0x1234567ULL * (uint64_t)(i + 1));

    static const int kinds[] = {0, 11, 8, 2};
    static const char *names[] = {"sha256", "poseidon11", "poseidon8", "poseidon2"};
    result r[4];
    for (int k = 0; k < 4; k++) {
        w.kind = kinds[k];
        bench_one(&w, names[k], reps, &r[k]);
    }

    if (!json_only) {
        printf("bench_gadgets: backend %s, SHA-256 of %zu bytes (%u blocks), %u Poseidon hashes "
               "per arity, median of %d\n",
               czk_ff_backend(), 64 * (size_t)blocks - 9, blocks, hashes, reps);
        printf("%-11s %11s %14s %10s %14s %12s %8s %s\n", "workload", "constraints",
               "eval Mc/s/core", "eval ns/c", "count Mc/s/core", "eval µs/unit", "target",
               "witness");
        for (int k = 0; k < 4; k++)
            printf("%-11s %11zu %14.2f %10.1f %14.2f %12.1f %8s %s\n", r[k].name, r[k].constraints,
                   (double)r[k].constraints / r[k].eval_ns * 1e3,
                   r[k].eval_ns / (double)r[k].constraints,
                   (double)r[k].constraints / r[k].count_ns * 1e3, r[k].unit_us, ">= 5.00",
                   r[k].satisfied ? "ok" : "UNSATISFIED");
        printf("(unit: one SHA-256 block, one Poseidon hash)\n");
    }
    printf("JSON {\"bench\":\"gadgets\",\"backend\":\"%s\",\"blocks\":%u,\"hashes\":%u",
           czk_ff_backend(), blocks, hashes);
    for (int k = 0; k < 4; k++)
        printf(",\"%s\":{\"constraints\":%zu,\"eval_mcps\":%.3f,\"count_mcps\":%.3f,\"eval_us_per_"
               "unit\":%.2f,"
               "\"satisfied\":%s}",
               r[k].name, r[k].constraints, (double)r[k].constraints / r[k].eval_ns * 1e3,
               (double)r[k].constraints / r[k].count_ns * 1e3, r[k].unit_us,
               r[k].satisfied ? "true" : "false");
    printf(",\"target_eval_mcps\":5.0}\n");
    czk_free(w.msg);
    for (int k = 0; k < 4; k++)
        if (!r[k].satisfied) return 1;
    return 0;
}
