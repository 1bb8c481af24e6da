/* Status table, error buffers, logging (format, escaping, level checks), allocator. */
#include "czk/alloc.h"
#include "czk/log.h"
#include "czk_test.h"

#include <stdio.h>

static void test_status_table(void)
{
    CHECK(strcmp(czk_status_name(CZK_OK), "OK") == 0);
    CHECK(strcmp(czk_status_name(CZK_ENOTONCURVE), "ENOTONCURVE") == 0);
    CHECK(strcmp(czk_strerror(CZK_ENOTINSUBGROUP), "point not in the prime-order subgroup") == 0);
    CHECK(strcmp(czk_status_name((czk_status)9999), "UNKNOWN") == 0);
    CHECK(strcmp(czk_strerror((czk_status)-1), "unknown status") == 0);
    /* Every status has a distinct name and a non-empty message. */
    for (int i = 0; i < CZK_STATUS_COUNT; i++) {
        CHECK(czk_strerror((czk_status)i)[0] != '\0');
        for (int j = 0; j < i; j++)
            CHECK(strcmp(czk_status_name((czk_status)i), czk_status_name((czk_status)j)) != 0);
    }
    czk_err err;
    CHECK(czk_err_set(&err, CZK_EFORMAT, "file %s: section %d", "x.zkey", 4) == CZK_EFORMAT);
    CHECK(err.status == CZK_EFORMAT);
    CHECK(strcmp(err.msg, "file x.zkey: section 4") == 0);
    CHECK(czk_err_set(NULL, CZK_EIO, "ignored") == CZK_EIO);
    czk_err_set(&err, CZK_ENOMEM, NULL);
    CHECK(strcmp(err.msg, "out of memory") == 0);
    czk_err_clear(&err);
    CHECK(err.status == CZK_OK && err.msg[0] == '\0');
}

static int evaluated;
static int side_effect(void)
{
    evaluated++;
    return 7;
}

static char *read_all(FILE *f)
{
    static char buf[8192];
    fflush(f);
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    return buf;
}

static void test_logging(void)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    czk_log_set_stream(f);
    czk_log_set_format(CZK_LOG_LOGFMT);
    czk_log_set_level(CZK_LOG_WARN);
    evaluated = 0;
    CZK_LOG_INFO("hidden", "value=%d", side_effect());
    CHECK(evaluated == 0); /* disabled levels do not evaluate their arguments */
    CZK_LOG_WARN("pool \"low\"", "job=%s partition=%d note=\"two words\"", "j1", side_effect());
    CHECK(evaluated == 1);
    char *out = read_all(f);
    CHECK(strstr(out, "hidden") == NULL);
    CHECK(strstr(out, "level=warn") != NULL);
    CHECK(strstr(out, "msg=\"pool \\\"low\\\"\"") != NULL);
    CHECK(strstr(out, " job=j1 partition=7 note=\"two words\"") != NULL);
    CHECK(strstr(out, "ts=20") == out);

    f = freopen(NULL, "w+", f);
    CHECK(f != NULL);
    czk_log_set_stream(f);
    czk_log_set_format(CZK_LOG_JSON);
    CZK_LOG_ERROR("gpu failed", "gpu=%d stage=%s", 1, "msm");
    out = read_all(f);
    CHECK(strstr(out, "\"level\":\"error\"") != NULL);
    CHECK(strstr(out, "\"msg\":\"gpu failed\"") != NULL);
    CHECK(strstr(out, "\"gpu\":1") != NULL);
    CHECK(strstr(out, "\"stage\":\"msm\"") != NULL);
    CHECK(out[0] == '{' && strchr(out, '\n') != NULL);
    czk_log_set_stream(NULL);
    czk_log_set_format(CZK_LOG_LOGFMT);
    czk_log_set_level(CZK_LOG_INFO);
    fclose(f);

    czk_log_level lv;
    CHECK(czk_log_level_parse("debug", &lv) && lv == CZK_LOG_DEBUG);
    CHECK(!czk_log_level_parse("verbose", &lv));
}

/* Ids and names czkd accepts: valid UTF-8 without control characters. */
static void test_text_check(void)
{
    static const struct {
        const char *s;
        size_t n;
        czk_text_fault want;
        size_t at;
    } v[] = {
        {"", 0, CZK_TEXT_OK, 0},
        {"porep-1000-7", 12, CZK_TEXT_OK, 12},
        {"wdpost-1000-3-[0 1]", 19, CZK_TEXT_OK, 19},
        {"\xc3\xa9t\xc3\xa9", 5, CZK_TEXT_OK, 5},         /* é t é */
        {"\xe6\x97\xa5\xf0\x9f\x98\x80", 7, CZK_TEXT_OK, 7}, /* 日 and an emoji */
        {"ab\0cd", 5, CZK_TEXT_CONTROL, 2},                /* a NUL inside */
        {"tab\there", 8, CZK_TEXT_CONTROL, 3},
        {"del\x7f", 4, CZK_TEXT_CONTROL, 3},
        {"x\xc2\x85", 3, CZK_TEXT_CONTROL, 1},             /* U+0085, a C1 control */
        {"x\xff", 2, CZK_TEXT_NOT_UTF8, 1},
        {"\xc0\x80", 2, CZK_TEXT_NOT_UTF8, 0},             /* an overlong NUL */
        {"\xe0\x80\xaf", 3, CZK_TEXT_NOT_UTF8, 0},         /* overlong '/' */
        {"\xed\xa0\x80", 3, CZK_TEXT_NOT_UTF8, 0},         /* a surrogate */
        {"\xf4\x90\x80\x80", 4, CZK_TEXT_NOT_UTF8, 0},     /* above U+10FFFF */
        {"ab\xe2\x82", 4, CZK_TEXT_NOT_UTF8, 2},           /* truncated */
        {"\x80", 1, CZK_TEXT_NOT_UTF8, 0},                 /* a lone continuation */
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t at = 999;
        czk_text_fault f = czk_text_check(v[i].s, v[i].n, &at);
        CHECK_MSG(f == v[i].want && at == v[i].at, "vector %zu: fault %d at %zu, want %d at %zu", i,
                  (int)f, at, (int)v[i].want, v[i].at);
    }
}

static void test_alloc(void)
{
    printf("  allocator: %s\n", czk_allocator_name());
    void *p = czk_aligned_alloc(4096, 100000);
    CHECK(p != NULL && ((uintptr_t)p & 4095) == 0);
    memset(p, 1, 100000);
    czk_free(p);
    p = czk_calloc(10, 10);
    CHECK(p != NULL && ((char *)p)[99] == 0);
    p = czk_realloc(p, 1 << 20);
    CHECK(p != NULL);
    czk_free(p);
}

int main(void)
{
    czk_test_seed();
    RUN(test_status_table);
    RUN(test_logging);
    RUN(test_text_check);
    RUN(test_alloc);
    return czk_test_finish();
}
