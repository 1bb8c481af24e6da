/* The file readers take paths: the fuzz input is written to a memfd and read back through
 * /proc/self/fd, which costs a syscall or two and no disk. */
#ifndef CZK_FUZZ_FILE_FORMATS_H
#define CZK_FUZZ_FILE_FORMATS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static int fuzz_memfd = -1;

/* Path of a file holding exactly data[0..size), or NULL. */
static const char *fuzz_path(const uint8_t *data, size_t size)
{
    static char path[64];
    if (fuzz_memfd < 0) fuzz_memfd = memfd_create("czk-fuzz", 0);
    if (fuzz_memfd < 0 || ftruncate(fuzz_memfd, 0) != 0) return NULL;
    if (size && pwrite(fuzz_memfd, data, size, 0) != (ssize_t)size) return NULL;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fuzz_memfd);
    return path;
}

#endif
