/*
 * czk — a growing text buffer, for the Prometheus text and the status the engine and the
 * daemon write. printf appends; an allocation that fails stops the buffer and marks it, so
 * a writer checks once, at the end (czk_sbuf_take). The text comes from the czk allocator:
 * free it with czk_free.
 */
#ifndef CZK_STRBUF_H
#define CZK_STRBUF_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_sbuf {
    char *p;
    size_t n, cap;
    bool oom;
} czk_sbuf;

CZK_API void czk_sbuf_printf(czk_sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** The text written (NUL-terminated, "" when nothing was), or NULL after a failed
 *  allocation; the buffer is empty again either way. */
CZK_API char *czk_sbuf_take(czk_sbuf *b);

#ifdef __cplusplus
}
#endif
#endif /* CZK_STRBUF_H */
