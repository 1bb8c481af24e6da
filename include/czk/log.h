/*
 * czk — level-checked structured logging.
 *
 * CZK_LOG_INFO("job accepted", "job=%s kind=%s", id, kind) writes one line
 *   ts=2026-11-30T04:50:01.123Z level=info msg="job accepted" job=... kind=...
 * (logfmt), or the same fields as one JSON object in JSON mode. The level test happens in
 * the macro, before any argument is evaluated, so disabled levels cost one load and
 * one branch.
 */
#ifndef CZK_LOG_H
#define CZK_LOG_H

#include "czk/common.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum czk_log_level {
    CZK_LOG_TRACE = 0,
    CZK_LOG_DEBUG = 1,
    CZK_LOG_INFO = 2,
    CZK_LOG_WARN = 3,
    CZK_LOG_ERROR = 4,
    CZK_LOG_OFF = 5
} czk_log_level;

typedef enum czk_log_format { CZK_LOG_LOGFMT = 0, CZK_LOG_JSON = 1 } czk_log_format;

/* Read by the macros; change it only through czk_log_set_level(). */
CZK_API extern volatile int czk_log_min_level;

CZK_API void czk_log_set_level(czk_log_level level);
CZK_API void czk_log_set_format(czk_log_format format);
/** Send log lines to `f` (default stderr). Not thread-safe against concurrent logging. */
CZK_API void czk_log_set_stream(FILE *f);
/** Parse "trace|debug|info|warn|error|off"; returns false for anything else. */
CZK_API bool czk_log_level_parse(const char *s, czk_log_level *out);
CZK_API const char *czk_log_level_name(czk_log_level level);

/**
 * Write one line. `msg` is the human message; `kvfmt` (may be NULL) is a printf format
 * producing space-separated key=value pairs, appended as fields.
 */
CZK_API void czk_log_write(czk_log_level level, const char *file, int line, const char *msg,
                           const char *kvfmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#define CZK_LOG(level, msg, ...)                                                               \
    do {                                                                                       \
        if ((int)(level) >= czk_log_min_level)                                                 \
            czk_log_write((level), __FILE__, __LINE__, (msg), __VA_ARGS__);                    \
    } while (0)

#define CZK_LOG_TRACE(msg, ...) CZK_LOG(CZK_LOG_TRACE, msg, __VA_ARGS__)
#define CZK_LOG_DEBUG(msg, ...) CZK_LOG(CZK_LOG_DEBUG, msg, __VA_ARGS__)
#define CZK_LOG_INFO(msg, ...)  CZK_LOG(CZK_LOG_INFO, msg, __VA_ARGS__)
#define CZK_LOG_WARN(msg, ...)  CZK_LOG(CZK_LOG_WARN, msg, __VA_ARGS__)
#define CZK_LOG_ERROR(msg, ...) CZK_LOG(CZK_LOG_ERROR, msg, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif /* CZK_LOG_H */
