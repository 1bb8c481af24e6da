#include "czk/alloc.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef CZK_USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

/*
 * Debian's libjemalloc replaces malloc/free themselves when linked, so the wrapper calls
 * the standard names in both builds; what changes is which library answers them.
 */
void *czk_malloc(size_t n) { return malloc(n ? n : 1); }
void *czk_calloc(size_t count, size_t size) { return calloc(count ? count : 1, size ? size : 1); }
void *czk_realloc(void *p, size_t n) { return realloc(p, n ? n : 1); }
void czk_free(void *p) { free(p); }

void *czk_aligned_alloc(size_t align, size_t n)
{
    void *p = NULL;
    if (align < sizeof(void *)) align = sizeof(void *);
    if (posix_memalign(&p, align, n ? n : 1) != 0) return NULL;
    return p;
}

const char *czk_allocator_name(void)
{
#ifdef CZK_USE_JEMALLOC
    static char name[64];
    const char *v = NULL;
    size_t sz = sizeof v;
    if (mallctl("version", (void *)&v, &sz, NULL, 0) == 0 && v != NULL) {
        snprintf(name, sizeof name, "jemalloc %s", v);
        return name;
    }
    return "jemalloc";
#else
    return "libc";
#endif
}
