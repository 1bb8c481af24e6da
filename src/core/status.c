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
