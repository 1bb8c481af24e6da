/*
 * Test fault injection (LD_PRELOAD, test_edge_limits): while the file named by
 * $CZK_TEST_EMFILE exists and holds the port of the listening socket, every other
 * accept4() on that socket fails with EMFILE, as when the process has no descriptor left
 * and one is freed to take a connection off the queue. Other sockets are left alone.
 * Exported despite the build's hidden default visibility, or nothing is interposed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

static int injected_port(void)
{
    const char *flag = getenv("CZK_TEST_EMFILE");
    FILE *f = flag ? fopen(flag, "r") : NULL;
    int port = -1;
    if (f) {
        if (fscanf(f, "%d", &port) != 1) port = -1;
        fclose(f);
    }
    return port;
}

__attribute__((visibility("default"))) int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    static int (*real)(int, struct sockaddr *, socklen_t *, int);
    static unsigned calls;
    if (!real) real = (int (*)(int, struct sockaddr *, socklen_t *, int))dlsym(RTLD_NEXT, "accept4");
    int port = injected_port();
    if (port > 0) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int mine = getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
                   ((ss.ss_family == AF_INET && ntohs(((struct sockaddr_in *)&ss)->sin_port) == port) ||
                    (ss.ss_family == AF_INET6 && ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) == port));
        if (mine && __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED) % 2 == 0) {
            errno = EMFILE;
            return -1;
        }
    }
    return real(fd, addr, len, flags);
}
