/* The text buffer of include/czk/strbuf.h. */
#include "czk/strbuf.h"

#include "czk/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void czk_sbuf_printf(czk_sbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = true;
            return;
        }
        if (b->p != NULL && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->n + (size_t)k) cap *= 2;
        char *q = czk_realloc(b->p, cap);
        if (q == NULL) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

char *czk_sbuf_take(czk_sbuf *b)
{
    char *out = b->oom ? NULL : b->p;
    if (b->oom) czk_free(b->p);
    if (!b->oom && out == NULL) {
        out = czk_malloc(1);
        if (out != NULL) out[0] = '\0';
    }
    memset(b, 0, sizeof *b);
    return out;
}
