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

    /* Encodings: the generators' zcash compressed forms (zkcrypto's vectors, entry 1). */
    {
        uint8_t g1[48], g2[96];
        czk_g1_to_compressed(g1, &CZK_G1_GENERATOR);
        czk_g2_to_compressed(g2, &CZK_G2_GENERATOR);
        report("G1 generator, zcash compressed",
               hex_eq(g1, 48, "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac58"
                              "6c55e83ff97a1aeffb3af00adb22c6bb"));
        report("G2 generator, zcash compressed",
               hex_eq(g2, 96, "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049"
                              "334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051"
                              "c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"));
        czk_g1_affine back;
        report("G1 generator decodes with the subgroup check",
               czk_g1_from_compressed(&back, g1, CZK_DECODE_DEFAULT) == CZK_OK &&
                   czk_g1_affine_eq(&back, &CZK_G1_GENERATOR));
    }
    /* Pairing: bilinearity, e(2P, Q) = e(P, 2Q) = e(P, Q)^2, and e(P, Q) != 1. */
    {
        czk_g1_jac p2;
        czk_g2_jac q2;
        czk_g1_affine p2a;
        czk_g2_affine q2a;
        czk_g1_jac_from_affine(&p2, &CZK_G1_GENERATOR);
        czk_g1_jac_dbl(&p2, &p2);
        czk_g1_jac_to_affine(&p2a, &p2);
        czk_g2_jac_from_affine(&q2, &CZK_G2_GENERATOR);
        czk_g2_jac_dbl(&q2, &q2);
        czk_g2_jac_to_affine(&q2a, &q2);
        czk_fp12 e, e2p, e2q, esq;
        czk_pairing(&e, &CZK_G1_GENERATOR, &CZK_G2_GENERATOR);
        czk_pairing(&e2p, &p2a, &CZK_G2_GENERATOR);
        czk_pairing(&e2q, &CZK_G1_GENERATOR, &q2a);
        czk_fp12_sqr(&esq, &e);
        report("pairing bilinear and non-degenerate",
               czk_fp12_eq(&e2p, &esq) && czk_fp12_eq(&e2q, &esq) && !czk_fp12_is_one(&e));
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
