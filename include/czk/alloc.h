/*
 * czk — the one allocator wrapper. jemalloc or libc is chosen at build time
 * (CZK_ALLOCATOR); every heap allocation of the library goes through these, and the same
 * functions are handed to protobuf-c and libuv. Pinned host memory is a separate pool.
 */
#ifndef CZK_ALLOC_H
#define CZK_ALLOC_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

CZK_API void *czk_malloc(size_t n);
CZK_API void *czk_calloc(size_t count, size_t size);
CZK_API void *czk_realloc(void *p, size_t n);
/** Memory aligned to `align` (a power of two ≥ sizeof(void*)); free with czk_free. */
CZK_API void *czk_aligned_alloc(size_t align, size_t n);
CZK_API void czk_free(void *p);
/** "jemalloc 5.3.0-..." or "libc". */
CZK_API const char *czk_allocator_name(void);

#ifdef __cplusplus
}
#endif
#endif
