/*
 * The GPU layer's tuning table (cuda/tuning.c), built with and without CUDA: the defaults
 * are the values the code used before the table (blocking waits, windows, chunks, segments
 * and groups chosen by the code, the ones' tree to 2^22 points with 16 pairs a thread),
 * every knob parses by name with its bounds enforced, czk_gpu_set_tuning refuses a struct
 * out of bounds and changes nothing then, the format lists every knob, and spin_wait is
 * fixed once GPU discovery has read it.
 */
#include "czk/gpu.h"
#include "czk_test.h"

#include "../cuda/gpu_internal.h"

#include <string.h>

static void test_defaults(void)
{
    czk_gpu_tuning d, cur;
    czk_gpu_tuning_defaults(&d);
    CHECK(!d.spin_wait);
    CHECK(d.msm_window == 0 && d.msm_chunk == 0 && d.msm_red_threads == 0 && d.msm_group == 0);
    CHECK(d.msm_ones_stop == 1u << 22 && d.msm_ones_k == 16 && d.msm_ones_seg == 0);
    czk_gpu_get_tuning(&cur);
    CHECK(memcmp(&d, &cur, sizeof d) == 0);
}

static void test_parse(void)
{
    czk_gpu_tuning t;
    czk_err err;
    czk_gpu_tuning_defaults(&t);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_window", "20", &err), CZK_OK);
    CHECK(t.msm_window == 20);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_window", "0", &err), CZK_OK);
    CHECK(t.msm_window == 0);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_window", "3", &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "msm_window") && strstr(err.msg, "[4, 24]"), "%s", err.msg);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_window", "25", &err), CZK_EINVAL);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_window", "2x", &err), CZK_EINVAL);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_window", "-4", &err), CZK_EINVAL);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_window", "4294967300", &err), CZK_EINVAL);
    CHECK(t.msm_window == 0);
    /* A knob whose default is not zero takes no zero. */
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_ones_stop", "0", &err), CZK_EINVAL);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_ones_stop", "64", &err), CZK_OK);
    CHECK(t.msm_ones_stop == 64);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_ones_stop", NULL, &err), CZK_OK);
    CHECK(t.msm_ones_stop == 1u << 22);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_ones_seg", "1073741824", &err), CZK_OK);
    CHECK(t.msm_ones_seg == 1u << 30);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_ones_seg", "", &err), CZK_OK);
    CHECK(t.msm_ones_seg == 0);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "spin_wait", "true", &err), CZK_OK);
    CHECK(t.spin_wait);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "spin_wait", "off", &err), CZK_OK);
    CHECK(!t.spin_wait);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "spin_wait", "maybe", &err), CZK_EINVAL);
    CHECK_STATUS(czk_gpu_tuning_parse(&t, "msm_windows", "20", &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "msm_windows") != NULL, "%s", err.msg);
}

static void test_set(void)
{
    czk_gpu_tuning d, t, cur;
    czk_err err;
    czk_gpu_tuning_defaults(&d);
    t = d;
    t.msm_chunk = 256;
    t.msm_group = 4;
    CHECK_STATUS(czk_gpu_set_tuning(&t, &err), CZK_OK);
    czk_gpu_get_tuning(&cur);
    CHECK(cur.msm_chunk == 256 && cur.msm_group == 4);
    /* Out of bounds: refused by name, nothing changes. */
    czk_gpu_tuning bad = d;
    bad.msm_red_threads = 100;
    CHECK_STATUS(czk_gpu_set_tuning(&bad, &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "msm_red_threads") != NULL, "%s", err.msg);
    czk_gpu_get_tuning(&cur);
    CHECK(cur.msm_chunk == 256 && cur.msm_red_threads == 0);
    CHECK_STATUS(czk_gpu_set_tuning(NULL, &err), CZK_EINVAL);
    CHECK_STATUS(czk_gpu_set_tuning(&d, &err), CZK_OK);
}

static void test_format(void)
{
    czk_gpu_tuning t;
    czk_gpu_tuning_defaults(&t);
    t.msm_window = 21;
    char buf[512];
    size_t n = czk_gpu_tuning_format(&t, buf, sizeof buf);
    CHECK(n == strlen(buf));
    CHECK_MSG(strcmp(buf, "spin_wait=false msm_window=21 msm_chunk=0 msm_red_threads=0 "
                          "msm_group=0 msm_ones_stop=4194304 msm_ones_k=16 msm_ones_seg=0") == 0,
              "%s", buf);
    char small[8];
    CHECK(czk_gpu_tuning_format(&t, small, sizeof small) == n);
    CHECK(strlen(small) == sizeof small - 1);
}

/* Last: from here on spin_wait is fixed, as after the first GPU call. */
static void test_spin_fixed(void)
{
    czk_gpu_tuning t;
    czk_err err;
    czk_gpu_get_tuning(&t);
    const bool was = czk__gpu_tuning_take_spin_wait();
    CHECK(was == t.spin_wait);
    t.spin_wait = !was;
    CHECK_STATUS(czk_gpu_set_tuning(&t, &err), CZK_EBUSY);
    CHECK_MSG(strstr(err.msg, "spin_wait") != NULL, "%s", err.msg);
    czk_gpu_tuning cur;
    czk_gpu_get_tuning(&cur);
    CHECK(cur.spin_wait == was);
    /* The other knobs still change, with spin_wait as it is. */
    t.spin_wait = was;
    t.msm_window = 18;
    CHECK_STATUS(czk_gpu_set_tuning(&t, &err), CZK_OK);
    czk_gpu_get_tuning(&cur);
    CHECK(cur.msm_window == 18);
}

int main(void)
{
    czk_test_seed();
    RUN(test_defaults);
    RUN(test_parse);
    RUN(test_set);
    RUN(test_format);
    RUN(test_spin_fixed);
    return czk_test_finish();
}
