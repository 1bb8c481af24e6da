/*
 * Test fault injection (LD_PRELOAD, test_edge_config): chmod() sleeps 400 ms before it
 * runs, so a unix socket that is bound with the umask's mode and chmod'ed afterwards
 * stays visible with the wrong mode long enough for the test to see it. Exported
 * despite the build's hidden default visibility, or the preload would interpose nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

__attribute__((visibility("default"))) int chmod(const char *path, mode_t mode)
{
    static int (*real)(const char *, mode_t);
    if (!real) real = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "chmod");
    usleep(400000);
    return real(path, mode);
}
