/*
 * czk's small test harness: CHECK macros, a per-run random seed (printed, and settable
 * with CZK_TEST_SEED for replay), and a closing "N passed, N failed" line. Exit status 0
 * when every test passed, 1 otherwise, 77 (CTest's SKIP_RETURN_CODE) for a skip.
 */
#ifndef CZK_TEST_H
#define CZK_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int czk_test_failed_checks;
static int czk_test_passed, czk_test_failed;
static uint64_t czk_test_rng_state[4];

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            czk_test_failed_checks++;                                                          \
            fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
        }                                                                                      \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                   \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            czk_test_failed_checks++;                                                          \
            fprintf(stderr, "  %s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

#define CHECK_STATUS(expr, want)                                                               \
    do {                                                                                       \
        czk_status got_ = (expr);                                                              \
        if (got_ != (want)) {                                                                  \
            czk_test_failed_checks++;                                                          \
            fprintf(stderr, "  %s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__,      \
                    #expr, czk_status_name(got_), czk_status_name(want));                      \
        }                                                                                      \
    } while (0)

#define CHECK_MEM(a, b, n) CHECK_MSG(memcmp((a), (b), (n)) == 0, "%zu bytes differ", (size_t)(n))

/* xoshiro256** seeded from the run seed: fresh inputs every run, replayable on failure. */
static inline uint64_t czk_test_rand64(void)
{
    uint64_t *s = czk_test_rng_state;
    uint64_t r = s[1] * 5;
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

static inline void czk_test_rand_bytes(void *out, size_t n)
{
    uint8_t *p = (uint8_t *)out; /* cast: also included by C++ tests */
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = czk_test_rand64();
        for (size_t j = 0; j < 8 && i + j < n; j++) p[i + j] = (uint8_t)(v >> (8 * j));
    }
}

/* acc = acc·2^sh + d in 320-bit two's complement (five little-endian words), sh < 64: one
 * Horner step of rebuilding a scalar from signed window digits (the CPU and GPU MSM tests). */
static inline void czk_test_horner320(uint64_t acc[5], unsigned sh, int64_t d)
{
    if (sh > 0)
        for (int l = 4; l >= 0; l--)
            acc[l] = (acc[l] << sh) | (l > 0 ? acc[l - 1] >> (64 - sh) : 0);
    uint64_t ext = d < 0 ? ~(uint64_t)0 : 0;
    unsigned __int128 carry = 0;
    for (int l = 0; l < 5; l++) {
        carry += (unsigned __int128)acc[l] + (l == 0 ? (uint64_t)d : ext);
        acc[l] = (uint64_t)carry;
        carry >>= 64;
    }
}

static inline void czk_test_seed(void)
{
    uint64_t seed;
    const char *env = getenv("CZK_TEST_SEED");
    if (env != NULL) {
        seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
    }
    printf("seed: CZK_TEST_SEED=%" PRIu64 "\n", seed);
    uint64_t z = seed;
    for (int i = 0; i < 4; i++) {
        z += 0x9e3779b97f4a7c15ULL;
        uint64_t x = z;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        czk_test_rng_state[i] = x ^ (x >> 31);
    }
}

static inline void czk_test_run(const char *name, void (*fn)(void))
{
    int before = czk_test_failed_checks;
    clock_t t0 = clock();
    fn();
    double ms = 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (czk_test_failed_checks == before) {
        czk_test_passed++;
        printf("ok   %-40s %8.1f ms\n", name, ms);
    } else {
        czk_test_failed++;
        printf("FAIL %-40s %8.1f ms\n", name, ms);
    }
    fflush(stdout);
}

#define RUN(fn) czk_test_run(#fn, fn)

static inline int czk_test_finish(void)
{
    printf("%d passed, %d failed\n", czk_test_passed, czk_test_failed);
    return czk_test_failed == 0 ? 0 : 1;
}

/* Exit with CTest's skip code and a clear reason. */
#define CZK_TEST_SKIP(...)                                                                     \
    do {                                                                                       \
        printf("SKIP: ");                                                                      \
        printf(__VA_ARGS__);                                                                   \
        printf("\n");                                                                          \
        exit(77);                                                                              \
    } while (0)

#endif
