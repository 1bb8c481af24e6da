/*
 * .params points decoded on the GPU (czk_gpu_loader, src/groth16/gpu_load.cu) against the
 * host reader (czk_groth16_params_file_decode) on one file of about 1 GB: h of 2^22 − 1
 * points and b_g2 of 1.5 M, so both groups run through more chunks than there are staging
 * slots and every slot is reused (CZK_TEST_GPU_SMALL, for sanitizer runs: a few chunks).
 * Skips (exit 77) without a GPU.
 *
 *  - Every section, whole, back to the host: the host reader's bytes.
 *  - Into an SRS that keeps a prefix of each section (czk_gpu_srs_create_plan), the rest
 *    back to the host, as a planned load does: the SRS's points (downloaded) and the host's
 *    are the host reader's; a range that starts mid-chunk too.
 *  - Damage the host reader refuses, far into a section (past the first round of slots):
 *    off the curve, a coordinate ≥ p, the infinity flag, the compression flag, (0, 0);
 *    each refused with the file, the section, the index and the host reader's reason, the
 *    first bad point in file order when there are two, and the loader decodes good ranges
 *    again afterwards.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "czk/log.h"
#include "czk_test.h"
#include "czk_test_fr.h"

static czk_pool *pool;
static char path[256];

enum { IC = 3, A_AUX = 1000 };
/* The sizes; CZK_TEST_GPU_SMALL (sanitizer runs) takes a file of a few chunks. */
static size_t H_LEN = ((size_t)1 << 22) - 1, AUX = 1500000, B_LEN = 1500001;
static unsigned LOG_M = 22;

static void *xmalloc(size_t n)
{
    void *p = czk_malloc(n > 0 ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* n distinct points: a random one, then a random step added n − 1 times. */
static void chain_g1(czk_g1_affine *out, size_t n)
{
    czk_fr k;
    czk_g1_jac g, p, q;
    czk_g1_affine step;
    czk_g1_jac_from_affine(&g, &CZK_G1_GENERATOR);
    czk_test_rand_fr(&k);
    czk_g1_jac_mul_fr(&p, &g, &k);
    czk_test_rand_fr(&k);
    czk_g1_jac_mul_fr(&q, &g, &k);
    czk_g1_jac_to_affine(&step, &q);
    czk_g1_jac *j = xmalloc(n * sizeof *j);
    j[0] = p;
    for (size_t i = 1; i < n; i++) czk_g1_jac_add_affine(&j[i], &j[i - 1], &step);
    czk_g1s_jac_to_affine(out, j, n, NULL);
    czk_free(j);
}

static void chain_g2(czk_g2_affine *out, size_t n)
{
    czk_fr k;
    czk_g2_jac g, p, q;
    czk_g2_affine step;
    czk_g2_jac_from_affine(&g, &CZK_G2_GENERATOR);
    czk_test_rand_fr(&k);
    czk_g2_jac_mul_fr(&p, &g, &k);
    czk_test_rand_fr(&k);
    czk_g2_jac_mul_fr(&q, &g, &k);
    czk_g2_jac_to_affine(&step, &q);
    czk_g2_jac *j = xmalloc(n * sizeof *j);
    j[0] = p;
    for (size_t i = 1; i < n; i++) czk_g2_jac_add_affine(&j[i], &j[i - 1], &step);
    czk_g2s_jac_to_affine(out, j, n, NULL);
    czk_free(j);
}

static czk_groth16_params key;
static const void *want[CZK_G16_SECTIONS];
static size_t sec_off[CZK_G16_SECTIONS]; /* file offset of each section's point 0 */

static void make_key(void)
{
    memset(&key, 0, sizeof key);
    key.conv = CZK_H_BELLPERSON;
    czk_groth16_vk *vk = &key.vk;
    czk_g1_affine g1[3];
    czk_g2_affine g2[3];
    chain_g1(g1, 3);
    chain_g2(g2, 3);
    vk->alpha_g1 = g1[0], vk->beta_g1 = g1[1], vk->delta_g1 = g1[2];
    vk->beta_g2 = g2[0], vk->gamma_g2 = g2[1], vk->delta_g2 = g2[2];
    vk->ic_len = IC;
    vk->ic = xmalloc(IC * sizeof *vk->ic);
    chain_g1(vk->ic, IC);
    key.h_len = H_LEN;
    key.l_len = AUX;
    key.a_len = IC + A_AUX;
    key.b_g1_len = key.b_g2_len = B_LEN;
    key.h = xmalloc((size_t)H_LEN * sizeof *key.h);
    key.l = xmalloc((size_t)AUX * sizeof *key.l);
    key.a = xmalloc((size_t)key.a_len * sizeof *key.a);
    key.b_g1 = xmalloc((size_t)B_LEN * sizeof *key.b_g1);
    key.b_g2 = xmalloc((size_t)B_LEN * sizeof *key.b_g2);
    chain_g1(key.h, H_LEN);
    chain_g1(key.l, AUX);
    chain_g1(key.a, key.a_len);
    chain_g1(key.b_g1, B_LEN);
    chain_g2(key.b_g2, B_LEN);
    key.n_inputs = IC;
    key.n_aux = AUX;
    key.log_m = LOG_M;
    want[CZK_G16_H] = key.h;
    want[CZK_G16_L] = key.l;
    want[CZK_G16_A] = key.a;
    want[CZK_G16_B_G1] = key.b_g1;
    want[CZK_G16_B_G2] = key.b_g2;
    size_t off = czk_groth16_vk_size(vk);
    for (int k = 0; k < CZK_G16_SECTIONS; k++) {
        off += 4;
        sec_off[k] = off;
        off += czk_groth16_section_len(&key, (czk_groth16_section)k) *
               (k == CZK_G16_B_G2 ? 192 : 96);
    }
}

static void write_key(void)
{
    czk_err err;
    CHECK_STATUS(czk_groth16_params_write_file(&key, path, &err), CZK_OK);
}

static czk_gpu_loader *open_loader(czk_groth16_params_file **pf)
{
    czk_err err;
    czk_groth16_params shape;
    *pf = NULL;
    CHECK_STATUS(czk_groth16_params_file_open(pf, path, &shape, &err), CZK_OK);
    czk_groth16_params_free(&shape);
    if (*pf == NULL) return NULL;
    czk_gpu_loader *l = NULL;
    const int gpu = 0;
    CHECK_STATUS(czk_gpu_loader_create(&l, *pf, &gpu, 1, pool, &err), CZK_OK);
    return l;
}

static void test_host(void)
{
    czk_groth16_params_file *pf;
    czk_gpu_loader *l = open_loader(&pf);
    if (l == NULL) return;
    uint8_t *got = xmalloc((size_t)H_LEN * 96);
    czk_err err;
    for (int k = 0; k < CZK_G16_SECTIONS; k++) {
        czk_groth16_section sec = (czk_groth16_section)k;
        size_t n = czk_groth16_section_len(&key, sec), el = czk_groth16_section_elem(sec);
        memset(got, 0xa5, n * el);
        CHECK_STATUS(czk_gpu_loader_decode(l, sec, 0, n, NULL, 0, got, &err), CZK_OK);
        CHECK_MSG(memcmp(got, want[k], n * el) == 0, "section %s differs from the host reader",
                  czk_groth16_section_name(sec));
    }
    /* A range that starts and ends mid-chunk. */
    const size_t first = H_LEN / 34, n = H_LEN / 2;
    CHECK_STATUS(czk_gpu_loader_decode(l, CZK_G16_H, first, n, NULL, 0, got, &err), CZK_OK);
    CHECK(memcmp(got, key.h + first, n * 96) == 0);
    /* Outside the section. */
    CHECK_STATUS(czk_gpu_loader_decode(l, CZK_G16_A, key.a_len - 5, 6, NULL, 0, got, &err),
                 CZK_EINVAL);
    CHECK(strstr(err.msg, "a points") != NULL);
    czk_free(got);
    czk_gpu_loader_destroy(l);
    czk_groth16_params_file_close(pf);
}

/* As a planned load: each section's prefix into the SRS, the rest to the host. */
static void test_srs_and_tail(void)
{
    czk_groth16_params_file *pf;
    czk_gpu_loader *l = open_loader(&pf);
    if (l == NULL) return;
    czk_err err;
    czk_gpu_plan plan;
    memset(&plan, 0, sizeof plan);
    const size_t res[CZK_G16_SECTIONS] = {H_LEN, AUX * 3 / 5 + 1, 0, 777, B_LEN / 3};
    memcpy(plan.resident, res, sizeof res);
    czk_gpu_srs *srs = NULL;
    CHECK_STATUS(czk_gpu_srs_create_plan(&srs, 0, &key, &plan, &err), CZK_OK);
    uint8_t *got = xmalloc((size_t)H_LEN * 96);
    for (int k = 0; k < CZK_G16_SECTIONS && srs != NULL; k++) {
        czk_groth16_section sec = (czk_groth16_section)k;
        size_t n = czk_groth16_section_len(&key, sec), el = czk_groth16_section_elem(sec);
        CHECK_STATUS(czk_gpu_loader_decode(l, sec, 0, res[k], &srs, 1, NULL, &err), CZK_OK);
        CHECK_STATUS(czk_gpu_loader_decode(l, sec, res[k], n - res[k], NULL, 0, got, &err),
                     CZK_OK);
        CHECK_MSG(memcmp(got, (const uint8_t *)want[k] + res[k] * el, (n - res[k]) * el) == 0,
                  "%s: the host's points differ", czk_groth16_section_name(sec));
        memset(got, 0, res[k] * el);
        CHECK_STATUS(czk_gpu_srs_download(srs, sec, 0, res[k], got, &err), CZK_OK);
        CHECK_MSG(memcmp(got, want[k], res[k] * el) == 0, "%s: the SRS's points differ",
                  czk_groth16_section_name(sec));
    }
    czk_free(got);
    czk_gpu_srs_destroy(srs);
    czk_gpu_loader_destroy(l);
    czk_groth16_params_file_close(pf);
}

/* Damage the host reader refuses: the GPU refuses it too, with the host reader's words. */
static void test_damage(void)
{
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL);
    if (fp == NULL) return;
    fseek(fp, 0, SEEK_END);
    const size_t size = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *img = xmalloc(size);
    CHECK(fread(img, 1, size, fp) == size);
    fclose(fp);
    struct {
        const char *what;
        czk_groth16_section sec;
        size_t index;
        size_t byte; /* within the point's encoding */
        uint8_t xor_, set;
        const char *needle;
    } cases[] = {
        {"off the curve", CZK_G16_H, H_LEN / 6 * 5 + 1, 95, 4, 0, "curve"},
        {"x ≥ p", CZK_G16_L, AUX / 15 * 14, 0, 0, 0x1f, "modulus"},
        {"infinity flag", CZK_G16_B_G2, B_LEN / 15 * 14 + 3, 0, 0x40, 0, "flag"},
        {"compression flag", CZK_G16_B_G1, 5, 0, 0x80, 0, "flag"},
        {"(0, 0)", CZK_G16_B_G2, B_LEN / 3 * 2, 0, 0, 0, "curve"},
    };
    char want_idx[96];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const size_t el = cases[c].sec == CZK_G16_B_G2 ? 192 : 96;
        uint8_t *pt = img + sec_off[cases[c].sec] + cases[c].index * el;
        uint8_t keep[192];
        memcpy(keep, pt, el);
        if (strcmp(cases[c].what, "(0, 0)") == 0)
            memset(pt, 0, el);
        else if (cases[c].set)
            memset(pt, 0xff, 48), pt[0] = cases[c].set;
        else
            pt[cases[c].byte] ^= cases[c].xor_;
        /* A second bad point later in the section: the first is named. */
        uint8_t *later = pt + 200 * el, keep2 = later[el - 1];
        later[el - 1] ^= 1;
        fp = fopen(path, "wb");
        CHECK(fp != NULL && fwrite(img, 1, size, fp) == size);
        if (fp != NULL) fclose(fp);
        memcpy(pt, keep, el);
        later[el - 1] = keep2;

        czk_groth16_params_file *pf;
        czk_gpu_loader *l = open_loader(&pf);
        if (l == NULL) continue;
        const size_t n = czk_groth16_section_len(&key, cases[c].sec);
        uint8_t *dst = xmalloc(n * el);
        czk_err err, herr;
        czk_status st = czk_gpu_loader_decode(l, cases[c].sec, 0, n, NULL, 0, dst, &err);
        czk_status hst = czk_groth16_params_file_decode(pf, cases[c].sec, 0, n, dst, false, pool,
                                                        &herr);
        snprintf(want_idx, sizeof want_idx, "%s point %zu:", czk_groth16_section_name(cases[c].sec),
                 cases[c].index);
        CHECK_MSG(st == hst && st != CZK_OK && strcmp(err.msg, herr.msg) == 0,
                  "%s: GPU %d \"%s\", host %d \"%s\"", cases[c].what, st, err.msg, hst, herr.msg);
        CHECK_MSG(strstr(err.msg, want_idx) != NULL && strstr(err.msg, cases[c].needle) != NULL &&
                      strstr(err.msg, "gpu-load-") != NULL,
                  "%s: \"%s\" lacks \"%s\" or \"%s\"", cases[c].what, err.msg, want_idx,
                  cases[c].needle);
        /* The loader goes on: a good section decodes. */
        CHECK_STATUS(czk_gpu_loader_decode(l, CZK_G16_A, 0, key.a_len, NULL, 0, dst, &err),
                     CZK_OK);
        CHECK(memcmp(dst, key.a, key.a_len * 96) == 0);
        czk_free(dst);
        czk_gpu_loader_destroy(l);
        czk_groth16_params_file_close(pf);
    }
    czk_free(img);
    write_key();
}

int main(void)
{
    if (czk_gpu_count() == 0) CZK_TEST_SKIP("no GPU");
    czk_test_seed();
    czk_log_set_level(CZK_LOG_ERROR);
    czk_err err;
    CHECK_STATUS(czk_pool_create(&pool, 0, &err), CZK_OK);
    if (getenv("CZK_TEST_GPU_SMALL") != NULL) H_LEN = ((size_t)1 << 18) - 1, AUX = 150000, B_LEN = 90001, LOG_M = 18;
    /* A fresh file in the temporary directory ($TMPDIR, else the system's). */
    const char *td = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/czk-test-gpu-load-XXXXXX.params",
             td != NULL && td[0] != '\0' ? td : P_tmpdir);
    int fd = mkstemps(path, (int)strlen(".params"));
    if (fd < 0) {
        perror("mkstemps");
        return 1;
    }
    close(fd);
    make_key();
    write_key();
    RUN(test_host);
    RUN(test_srs_and_tail);
    RUN(test_damage);
    unlink(path);
    czk_groth16_params_free(&key);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
