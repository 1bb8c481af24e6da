/*
 * GPU NTT benchmark: single transforms at 2^24, 2^26, 2^27 (data on the device, CUDA events
 * around each call, one warm-up, median of --reps) and the Groth16 H step of a 2^27
 * partition (seven transforms and the pointwise step), each printed next to its floor and
 * the sppark figure measured on the same H200.
 *
 * Floor: the radix-2 multiplication count (n/2)·log n at the measured Fr multiplication
 * rate of an H200, 52.2 G/s (docs/gpu.md §5-6); the memory floor is ~6x lower.
 *
 *   bench_gpu_ntt [--sizes 24,26,27] [--reps 5] [--h 27 (0: skip)] [--gpu 0] [--check]
 *
 * --check also verifies, at the largest size, one random output of the forward NN transform
 * against a Horner evaluation on the CPU, and that inverse(forward) is the identity.
 */
#include "czk/gpu.h"
#include "czk/ntt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CZK_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define FR_MUL_RATE 52.2e9 /* Fr Montgomery multiplications per second, H200 [measured] */

static double floor_ms(unsigned L, double transforms)
{
    double n = (double)((size_t)1 << L);
    return transforms * (n / 2) * L / FR_MUL_RATE * 1e3;
}

#ifdef CZK_HAVE_CUDA

static uint64_t rng_s[4] = {0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL, 0x94d049bb133111ebULL,
                            0x2545f4914f6cdd1dULL};

static uint64_t rng64(void)
{
    uint64_t *s = rng_s, r = s[1] * 5;
    r = ((r << 7) | (r >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return r;
}

/* Random values below 2^254 < r: valid Montgomery representations, never all zero. */
static void fill_random(czk_fr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < 4; j++) v[i].l[j] = rng64();
        v[i].l[3] >>= 2;
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

#define CU(expr)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_));                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct variant {
    const char *name;
    czk_gpu_ntt_kind kind;
    czk_gpu_ntt_order order;
    double peer27, peer26, peer24; /* sppark on the H200, ms; 0 = none */
} variant;

static const variant VARIANTS[] = {
    {"forward NR (bit-reversed out)", CZK_GPU_NTT_FORWARD, CZK_GPU_NTT_NR, 42.3, 20.9, 4.45},
    {"forward RN", CZK_GPU_NTT_FORWARD, CZK_GPU_NTT_RN, 0, 0, 0},
    {"forward NN", CZK_GPU_NTT_FORWARD, CZK_GPU_NTT_NN, 0, 0, 0},
    {"inverse NR", CZK_GPU_NTT_INVERSE, CZK_GPU_NTT_NR, 0, 0, 0},
    {"coset forward NN", CZK_GPU_NTT_COSET_FORWARD, CZK_GPU_NTT_NN, 49.1, 0, 0},
};

static int reps = 5;

typedef czk_status (*op_fn)(void *ctx, czk_err *err);

/* Median of `reps` event-timed calls after one warm-up. */
static double time_op(op_fn fn, void *ctx)
{
    cudaEvent_t a, b;
    CU(cudaEventCreate(&a));
    CU(cudaEventCreate(&b));
    czk_err err;
    float t[64];
    for (int r = -1; r < reps; r++) {
        CU(cudaEventRecord(a, NULL));
        if (fn(ctx, &err) != CZK_OK) {
            fprintf(stderr, "failed: %s\n", err.msg);
            exit(1);
        }
        CU(cudaEventRecord(b, NULL));
        CU(cudaEventSynchronize(b));
        if (r >= 0) CU(cudaEventElapsedTime(&t[r], a, b));
    }
    CU(cudaEventDestroy(a));
    CU(cudaEventDestroy(b));
    qsort(t, (size_t)reps, sizeof *t, cmp_float);
    return t[reps / 2];
}

struct ntt_ctx {
    int gpu;
    czk_fr *d;
    unsigned L;
    const variant *v;
    czk_fr g;
};

static czk_status ntt_op(void *p, czk_err *err)
{
    struct ntt_ctx *x = p;
    return czk_gpu_ntt_dev(x->gpu, x->d, x->L, CZK_ROOTS_BELLPERSON, x->v->kind, &x->g, x->v->order,
                           NULL, err);
}

struct h_ctx {
    int gpu;
    czk_fr *d[3];
    unsigned L;
    czk_h_convention conv;
};

static czk_status h_op(void *p, czk_err *err)
{
    struct h_ctx *x = p;
    return czk_gpu_groth16_h_dev(x->gpu, x->d[0], x->d[1], x->d[2], x->L, x->conv, NULL, err);
}

static void report(const char *name, unsigned L, double ms, double flo, double peer, double target)
{
    printf("%-34s 2^%-3u %9.2f ms   floor %8.2f ms (%4.0f%%)", name, L, ms, flo, 100.0 * flo / ms);
    if (peer > 0) printf("   sppark %7.2f ms (%.2fx)", peer, peer / ms);
    if (target > 0) printf("   target <= %.0f ms", target);
    printf("\n");
    printf("{\"bench\":\"gpu_ntt\",\"op\":\"%s\",\"log_n\":%u,\"median_ms\":%.3f,"
           "\"floor_ms\":%.3f,\"peer_ms\":%.3f,\"reps\":%d}\n",
           name, L, ms, flo, peer, reps);
    fflush(stdout);
}

/* sum_i v[i]·x^i by Horner. */
static void horner(czk_fr *out, const czk_fr *v, size_t n, const czk_fr *x)
{
    czk_fr acc = CZK_FR_ZERO;
    for (size_t i = n; i-- > 0;) {
        czk_fr_mul(&acc, &acc, x);
        czk_fr_add(&acc, &acc, &v[i]);
    }
    *out = acc;
}

static int check_large(int gpu, unsigned L)
{
    size_t n = (size_t)1 << L;
    czk_fr *v = malloc(n * sizeof *v), *orig = malloc(n * sizeof *v);
    if (v == NULL || orig == NULL) return 1;
    fill_random(orig, n);
    memcpy(v, orig, n * sizeof *v);
    czk_err err;
    int bad = 0;
    if (czk_gpu_ntt(gpu, v, L, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_FORWARD, NULL, &err) != CZK_OK) {
        fprintf(stderr, "check: %s\n", err.msg);
        return 1;
    }
    czk_fr w, x, y;
    czk_fr_root_of_unity(&w, L, CZK_ROOTS_BELLPERSON);
    size_t js[1] = {(size_t)(rng64() & (n - 1))};
    for (int t = 0; t < 1; t++) {
        uint64_t e = js[t];
        czk_fr_pow(&x, &w, &e, 1);
        horner(&y, orig, n, &x);
        if (!czk_fr_eq(&y, &v[js[t]])) {
            printf("CHECK FAILED: 2^%u forward output %zu differs from Horner\n", L, js[t]);
            bad = 1;
        }
    }
    if (czk_gpu_ntt(gpu, v, L, CZK_ROOTS_BELLPERSON, CZK_GPU_NTT_INVERSE, NULL, &err) != CZK_OK ||
        memcmp(v, orig, n * sizeof *v) != 0) {
        printf("CHECK FAILED: 2^%u inverse(forward) is not the identity\n", L);
        bad = 1;
    }
    if (!bad)
        printf("check 2^%u: forward matches Horner at one random point, round trip exact\n", L);
    free(v);
    free(orig);
    return bad;
}

int main(int argc, char **argv)
{
    unsigned sizes[8] = {24, 26, 27}, nsizes = 3, hlog = 27;
    int gpu = 0, check = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            nsizes = 0;
            for (char *s = strtok(argv[++i], ","); s != NULL && nsizes < 8; s = strtok(NULL, ","))
                sizes[nsizes++] = (unsigned)atoi(s);
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1) reps = 1;
            if (reps > 64) reps = 64;
        } else if (!strcmp(argv[i], "--h") && i + 1 < argc) {
            hlog = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--gpu") && i + 1 < argc) {
            gpu = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--check")) {
            check = 1;
        } else {
            fprintf(stderr,
                    "usage: %s [--sizes 24,26,27] [--reps 5] [--h 27] [--gpu 0] [--check]\n",
                    argv[0]);
            return 2;
        }
    }
    if (czk_gpu_count() <= gpu) {
        printf("SKIP: no GPU %d\n", gpu);
        return 0;
    }
    czk_gpu_info info;
    czk_err err;
    if (czk_gpu_get_info(gpu, &info, &err) == CZK_OK)
        printf("GPU %d: %s, %d SMs, %.1f GiB; median of %d after a warm-up\n", gpu, info.name,
               info.sm_count, (double)info.total_mem / (1 << 30), reps);
    CU(cudaSetDevice(gpu));

    unsigned maxL = hlog;
    for (unsigned i = 0; i < nsizes; i++)
        if (sizes[i] > maxL) maxL = sizes[i];
    size_t nmax = (size_t)1 << maxL;
    czk_fr *host = malloc(nmax * sizeof *host);
    if (host == NULL) return 1;
    fill_random(host, nmax);

    for (unsigned i = 0; i < nsizes; i++) {
        unsigned L = sizes[i];
        size_t n = (size_t)1 << L;
        void *d = NULL;
        CU(cudaMalloc(&d, n * sizeof(czk_fr)));
        CU(cudaMemcpy(d, host, n * sizeof(czk_fr), cudaMemcpyHostToDevice));
        for (size_t vi = 0; vi < sizeof VARIANTS / sizeof *VARIANTS; vi++) {
            const variant *v = &VARIANTS[vi];
            struct ntt_ctx x = {gpu, d, L, v, {{0}}};
            czk_fr_from_u64(&x.g, 7);
            double ms = time_op(ntt_op, &x);
            double peer = L == 27 ? v->peer27 : L == 26 ? v->peer26 : L == 24 ? v->peer24 : 0;
            double target = (L == 27 && vi == 0) ? 40 : 0;
            report(v->name, L, ms, floor_ms(L, 1), peer, target);
        }
        CU(cudaFree(d));
    }

    if (hlog >= CZK_GPU_NTT_MIN_LOG && hlog <= CZK_GPU_NTT_MAX_LOG) {
        size_t m = (size_t)1 << hlog;
        struct h_ctx x = {gpu, {NULL, NULL, NULL}, hlog, CZK_H_BELLPERSON};
        for (int k = 0; k < 3; k++) {
            void *p = NULL;
            CU(cudaMalloc(&p, m * sizeof(czk_fr)));
            x.d[k] = p;
            CU(cudaMemcpy(p, host, m * sizeof(czk_fr), cudaMemcpyHostToDevice));
        }
        for (int conv = 0; conv < 2; conv++) {
            x.conv = (czk_h_convention)conv;
            double ms = time_op(h_op, &x);
            report(conv == 0 ? "Groth16 H, bellperson (7 NTTs)" : "Groth16 H, snarkjs (6 NTTs)",
                   hlog, ms, floor_ms(hlog, conv == 0 ? 7 : 6), 0, conv == 0 ? 280 : 0);
        }
        for (int k = 0; k < 3; k++) CU(cudaFree(x.d[k]));
    }
    free(host);
    int rc = 0;
    if (check) rc = check_large(gpu, maxL);
    czk_gpu_ntt_release(gpu);
    return rc;
}

#else

int main(void)
{
    printf("SKIP: built without the CUDA backend (floor at 2^27: %.1f ms)\n", floor_ms(27, 1));
    return 0;
}

#endif
