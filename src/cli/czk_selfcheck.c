/* czk selfcheck: known-answer checks of the arithmetic, and what this machine offers. */
#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "czk/gpu.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void report(const char *what, bool ok)
{
    printf("  %-52s %s\n", what, ok ? "ok" : "FAILED");
    if (!ok) failures++;
}

static bool hex_eq(const uint8_t *b, size_t n, const char *hex)
{
    char buf[2 * 192 + 1];
    for (size_t i = 0; i < n; i++) snprintf(buf + 2 * i, 3, "%02x", b[i]);
    return strcmp(buf, hex) == 0;
}

int czk_cli_selfcheck(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("czk %s selfcheck\n", czk_version());
    printf("  field back end: %s, allocator: %s\n", czk_ff_backend(), czk_allocator_name());

    /* Fr: the 2^32-th root of unity blstrs states, 7^((r-1)/2^32). */
    {
        czk_fr seven, root;
        czk_fr_from_u64(&seven, 7);
        uint64_t t[4] = {0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL, 0x299d7d483339d808ULL,
                         0x0000000073eda753ULL};
        czk_fr_pow(&root, &seven, t, 4);
        uint8_t b[32];
        czk_fr_to_bytes_be(b, &root);
        report("Fr root of unity 7^((r-1)/2^32)",
               hex_eq(b, 32, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b"));
    }
    /* Fp: sqrt(4) squares back, inverse of 3 times 3 is 1. */
    {
        czk_fp four, s, s2, three, inv, one;
        czk_fp_from_u64(&four, 4);
        bool ok = czk_fp_sqrt(&s, &four);
        czk_fp_sqr(&s2, &s);
        czk_fp_from_u64(&three, 3);
        czk_fp_inv(&inv, &three);
        czk_fp_mul(&one, &inv, &three);
        report("Fp sqrt and inverse", ok && czk_fp_eq(&s2, &four) && czk_fp_is_one(&one));
    }

    int ngpu = czk_gpu_count();
    printf("  CUDA backend: %s, GPUs: %d\n", czk_gpu_built() ? "built" : "not built", ngpu);
    for (int i = 0; i < ngpu; i++) {
        czk_gpu_info info;
        czk_err err;
        if (czk_gpu_get_info(i, &info, &err) == CZK_OK)
            printf("    GPU %d: %s, sm_%d%d, %d SMs, %.1f GiB (%.1f free)\n", i, info.name,
                   info.sm_major, info.sm_minor, info.sm_count, info.total_mem / 1073741824.0,
                   info.free_mem / 1073741824.0);
        else
            printf("    GPU %d: %s\n", i, err.msg);
    }
    printf("selfcheck: %s\n", failures == 0 ? "all checks passed" : "FAILED");
    return failures == 0 ? 0 : 1;
}
