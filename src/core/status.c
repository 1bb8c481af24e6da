#include "czk/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifndef CZK_VERSION_STRING
#define CZK_VERSION_STRING "0.0.0"
#endif

static const char *const status_names[] = {
#define X(name, msg) #name,
    CZK_STATUS_MAP(X)
#undef X
};

static const char *const status_msgs[] = {
#define X(name, msg) msg,
    CZK_STATUS_MAP(X)
#undef X
};

const char *czk_status_name(czk_status s)
{
    if ((unsigned)s >= CZK_STATUS_COUNT) return "UNKNOWN";
    return status_names[s];
}

const char *czk_strerror(czk_status s)
{
    if ((unsigned)s >= CZK_STATUS_COUNT) return "unknown status";
    return status_msgs[s];
}

czk_status czk_err_set(czk_err *err, czk_status s, const char *fmt, ...)
{
    if (err == NULL) return s;
    err->status = s;
    if (fmt == NULL) {
        snprintf(err->msg, sizeof err->msg, "%s", czk_strerror(s));
        return s;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return s;
}

void czk_err_clear(czk_err *err)
{
    if (err == NULL) return;
    err->status = CZK_OK;
    err->msg[0] = '\0';
}

const char *czk_version(void) { return CZK_VERSION_STRING; }

czk_text_fault czk_text_check(const char *str, size_t n, size_t *at)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        if (at != NULL) *at = i;
        unsigned c = s[i];
        if (c < 0x20 || c == 0x7f) return CZK_TEXT_CONTROL;
        if (c < 0x80) {
            i++;
            continue;
        }
        /* The length of the sequence and the smallest code point it may encode, so that
         * overlong forms are refused (RFC 3629). */
        size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
        if (len == 0 || c > 0xf4 || i + len > n) return CZK_TEXT_NOT_UTF8;
        uint32_t cp = c & (0xff >> (len + 1));
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return CZK_TEXT_NOT_UTF8;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return CZK_TEXT_NOT_UTF8;
        if (cp >= 0x80 && cp <= 0x9f) return CZK_TEXT_CONTROL;
        i += len;
    }
    if (at != NULL) *at = n;
    return CZK_TEXT_OK;
}
