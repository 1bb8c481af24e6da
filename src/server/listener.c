/*
 * czkd's gRPC front door: the listening sockets of daemon.listen, owned by czkd on the
 * libuv loop rather than by gRPC C-core. C-core 1.51 stops accepting for good after one
 * failed accept4 (EMFILE: every descriptor in use), has no connection limit and cannot
 * tell which connection a call came from; owning the accept gives all three:
 *
 * - a cap (daemon.max_connections): connections beyond it are accepted and closed at
 *   once, and so is every connection while accept4 fails for want of descriptors (a
 *   reserved descriptor is freed to take it off the queue), so the listener lives on and
 *   serves again as soon as descriptors come back; health says NOT_SERVING meanwhile;
 * - a first-bytes deadline (daemon.handshake_timeout) for connections that send nothing;
 * - per-connection accounting of calls the client cancels, to close a connection that
 *   resets streams as fast as it opens them (HTTP/2 rapid reset, CVE-2023-44487).
 *
 * Plaintext connections are handed to gRPC by descriptor (grpc_server_add_channel_from_fd;
 * the call's peer is then "fd:N"). czkd keeps a duplicate of each descriptor and watches
 * it for the connection's end: gRPC shuts a socket down before closing it, so the
 * duplicate sees the hang-up; a duplicate is also how a flooding connection is cut.
 * That API takes no TLS credentials, so TLS connections are relayed byte for byte to
 * gRPC's own TLS listener on a unix socket in a private directory (mode 0700), where
 * TLS and mTLS terminate as before.
 *
 * A unix socket is bound inside a fresh 0700 directory next to its path, given its mode
 * there and renamed into place, so that it never exists with the umask's mode.
 */
#include "server.h"

#include "czk/alloc.h"
#include "czk/log.h"

#include <grpc/grpc_posix.h>
#include <grpc/grpc_security.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#define MAX_SOCKETS 4
/* Connections taken off the accept queue per wake-up, so that a flood cannot hold the
 * loop (timers, /metrics, the inbox) for long. */
#define ACCEPT_BATCH 64
/* The window over which cancelled calls are counted (daemon.max_client_resets per it). */
#define RESET_WINDOW_MS 10000
/* A relayed direction stops reading while this much waits to be written to the other. */
#define RELAY_HIGH_WATER (4u << 20)
#define RELAY_CHUNK 65536

typedef enum conn_state { C_WAITING, C_GRPC, C_RELAY } conn_state;

typedef struct lconn lconn;

typedef struct lsock {
    czk_listener *l;
    int fd;
    uv_poll_t poll;
    bool open;
} lsock;

struct czk_listener {
    uv_loop_t *loop;
    grpc_server *gs;
    grpc_server_credentials *insecure;
    char relay_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    bool is_unix;
    char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int nsock;
    lsock socks[MAX_SOCKETS];
    int reserve_fd; /* freed to take a connection off the queue when descriptors run out */
    uv_timer_t fd_timer; /* while out of descriptors: looks for some coming back */
    bool fd_timer_open, fd_timer_running;
    unsigned max_connections;
    uint64_t handshake_ms;
    unsigned max_resets;
    atomic_bool closed; /* no longer accepting (drain) */
    bool stopping; /* every handle is being closed; freed when the last one is */
    int handles;   /* uv handles still open (listening sockets and connections) */
    lconn *conns;  /* every connection, loop thread only */
    atomic_uint nconns;
    atomic_bool out_of_fds;
    atomic_ulong accepted, refused_limit, refused_fds, closed_idle, closed_resets;
    bool warned_limit, warned_fds;
    /* Plaintext connections by the descriptor gRPC knows them by ("fd:N"), for the
     * cancellations counted on the completion-queue threads. */
    pthread_mutex_t mu;
    lconn **by_fd;
    size_t by_fd_cap;
};

struct lconn {
    czk_listener *l;
    lconn *prev, *next;
    conn_state state;
    int fd;       /* the connection (plaintext: gRPC owns it once handed over) */
    int watch_fd; /* plaintext: czkd's duplicate of fd */
    int handles;  /* uv handles of this connection still open */
    bool ending;
    bool indexed; /* in by_fd under fd */
    uv_poll_t poll;
    uv_timer_t timer;
    bool timer_open;
    /* Cancelled calls: a token bucket of max_resets tokens refilled over RESET_WINDOW_MS. */
    double tokens;
    uint64_t tokens_ms;
    bool cut;
    /* TLS relay. */
    union {
        uv_tcp_t tcp;
        uv_pipe_t pipe;
    } front;
    uv_pipe_t back;
    uv_connect_t connect_req;
    bool front_paused, back_paused;
};

static uint64_t now_ms(void) { return czk_clock_us() / 1000u; }

static void listener_maybe_free(czk_listener *l)
{
    if (!l->stopping || l->handles > 0) return;
    if (l->reserve_fd >= 0) close(l->reserve_fd);
    if (l->insecure) grpc_server_credentials_release(l->insecure);
    pthread_mutex_destroy(&l->mu);
    czk_free(l->by_fd);
    czk_free(l);
}

/* ----------------------------------------------------------------------------------- */
/* Connections                                                                           */
/* ----------------------------------------------------------------------------------- */

static void index_remove_locked(czk_listener *l, lconn *c)
{
    if (c->indexed && (size_t)c->fd < l->by_fd_cap && l->by_fd[c->fd] == c) l->by_fd[c->fd] = NULL;
    c->indexed = false;
}

static void conn_free_if_done(lconn *c)
{
    if (c->handles > 0) return;
    czk_listener *l = c->l;
    if (c->watch_fd >= 0) close(c->watch_fd);
    /* A connection never handed to gRPC is still ours to close. */
    if (c->state == C_WAITING && c->fd >= 0) close(c->fd);
    if (c->prev) c->prev->next = c->next;
    else l->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    czk_free(c);
    unsigned n = atomic_fetch_sub(&l->nconns, 1) - 1;
    if (n + 1 == l->max_connections && l->warned_limit && !l->closed) {
        l->warned_limit = false;
        CZK_LOG_INFO("grpc listener below its connection limit again: accepting", "connections=%u", n);
    }
    l->handles--;
    listener_maybe_free(l);
}

static void conn_handle_closed(uv_handle_t *h)
{
    lconn *c = h->data;
    c->handles--;
    conn_free_if_done(c);
}

static void conn_end(lconn *c)
{
    if (c->ending) return;
    c->ending = true;
    czk_listener *l = c->l;
    if (c->indexed) {
        pthread_mutex_lock(&l->mu);
        index_remove_locked(l, c);
        pthread_mutex_unlock(&l->mu);
    }
    if (c->timer_open) {
        c->timer_open = false;
        uv_close((uv_handle_t *)&c->timer, conn_handle_closed);
    }
    if (c->state == C_RELAY) {
        uv_close((uv_handle_t *)&c->front, conn_handle_closed);
        uv_close((uv_handle_t *)&c->back, conn_handle_closed);
        c->fd = -1; /* closed with the front handle */
    } else {
        uv_close((uv_handle_t *)&c->poll, conn_handle_closed);
    }
}

static void on_conn_end(uv_poll_t *p, int status, int events)
{
    (void)status;
    (void)events;
    conn_end(p->data);
}

static bool index_put(czk_listener *l, lconn *c)
{
    pthread_mutex_lock(&l->mu);
    if ((size_t)c->fd >= l->by_fd_cap) {
        size_t cap = l->by_fd_cap ? l->by_fd_cap : 256;
        while (cap <= (size_t)c->fd) cap *= 2;
        lconn **n = czk_realloc(l->by_fd, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&l->mu);
            return false;
        }
        memset(n + l->by_fd_cap, 0, (cap - l->by_fd_cap) * sizeof *n);
        l->by_fd = n;
        l->by_fd_cap = cap;
    }
    /* A descriptor number is reused only after gRPC closed it, so an entry still there
     * belongs to a connection whose hang-up has not been seen yet. */
    lconn *old = l->by_fd[c->fd];
    if (old) old->indexed = false;
    l->by_fd[c->fd] = c;
    c->indexed = true;
    pthread_mutex_unlock(&l->mu);
    return true;
}

/* The first bytes arrived (or the peer left): hand the connection to gRPC. */
static void on_first_bytes(uv_poll_t *p, int status, int events)
{
    lconn *c = p->data;
    czk_listener *l = c->l;
    if (status < 0 || (events & UV_DISCONNECT) || l->closed) {
        conn_end(c);
        return;
    }
    if (c->timer_open) {
        c->timer_open = false;
        uv_close((uv_handle_t *)&c->timer, conn_handle_closed);
    }
    if (!index_put(l, c)) {
        conn_end(c);
        return;
    }
    c->state = C_GRPC;
    c->tokens = l->max_resets;
    c->tokens_ms = now_ms();
    grpc_server_add_channel_from_fd(l->gs, c->fd, l->insecure);
    uv_poll_start(&c->poll, UV_DISCONNECT, on_conn_end);
}

static void on_idle(uv_timer_t *t)
{
    lconn *c = t->data;
    atomic_fetch_add(&c->l->closed_idle, 1);
    conn_end(c);
}

/* TLS relay ---------------------------------------------------------------------------- */

static void relay_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    char *p = czk_malloc(RELAY_CHUNK);
    *buf = uv_buf_init(p, p ? RELAY_CHUNK : 0);
}

typedef struct relay_write {
    uv_write_t req;
    lconn *c;
    uv_stream_t *from;
    char *data;
} relay_write;

static void relay_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);

static void relay_written(uv_write_t *req, int status)
{
    relay_write *w = (relay_write *)req;
    lconn *c = w->c;
    czk_free(w->data);
    uv_stream_t *from = w->from;
    czk_free(w);
    if (c->ending) return;
    if (status < 0) {
        conn_end(c);
        return;
    }
    uv_stream_t *to = from == (uv_stream_t *)&c->front ? (uv_stream_t *)&c->back : (uv_stream_t *)&c->front;
    bool *paused = from == (uv_stream_t *)&c->front ? &c->front_paused : &c->back_paused;
    if (*paused && uv_stream_get_write_queue_size(to) < RELAY_HIGH_WATER / 4) {
        *paused = false;
        uv_read_start(from, relay_alloc, relay_read);
    }
}

static void relay_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    lconn *c = s->data;
    if (n <= 0 || c->ending) {
        czk_free(buf->base);
        /* gRPC never half-closes a connection and then reads on: end both sides. */
        if (n < 0 || c->ending) conn_end(c);
        return;
    }
    uv_stream_t *to = s == (uv_stream_t *)&c->front ? (uv_stream_t *)&c->back : (uv_stream_t *)&c->front;
    relay_write *w = czk_malloc(sizeof *w);
    if (!w) {
        czk_free(buf->base);
        conn_end(c);
        return;
    }
    w->c = c;
    w->from = s;
    w->data = buf->base;
    uv_buf_t b = uv_buf_init(buf->base, (unsigned)n);
    if (uv_write(&w->req, to, &b, 1, relay_written) != 0) {
        czk_free(w->data);
        czk_free(w);
        conn_end(c);
        return;
    }
    if (uv_stream_get_write_queue_size(to) >= RELAY_HIGH_WATER) {
        uv_read_stop(s);
        if (s == (uv_stream_t *)&c->front) c->front_paused = true;
        else c->back_paused = true;
    }
}

static void relay_connected(uv_connect_t *req, int status)
{
    lconn *c = req->data;
    if (c->ending) return;
    if (status < 0) {
        CZK_LOG_WARN("tls relay: cannot reach grpc's listener", "path=%s error=\"%s\"", c->l->relay_path,
                     uv_strerror(status));
        conn_end(c);
        return;
    }
    uv_read_start((uv_stream_t *)&c->front, relay_alloc, relay_read);
    uv_read_start((uv_stream_t *)&c->back, relay_alloc, relay_read);
}

static void relay_start(czk_listener *l, lconn *c)
{
    c->state = C_RELAY;
    int rc = l->is_unix ? uv_pipe_init(l->loop, &c->front.pipe, 0) : uv_tcp_init(l->loop, &c->front.tcp);
    c->front.tcp.data = c;
    if (rc == 0) rc = l->is_unix ? uv_pipe_open(&c->front.pipe, c->fd) : uv_tcp_open(&c->front.tcp, c->fd);
    uv_pipe_init(l->loop, &c->back, 0);
    c->back.data = c;
    c->handles += 2;
    if (rc != 0) {
        close(c->fd);
        conn_end(c);
        return;
    }
    c->connect_req.data = c;
    uv_pipe_connect(&c->connect_req, &c->back, l->relay_path, relay_connected);
}

/* ----------------------------------------------------------------------------------- */
/* Accepting                                                                             */
/* ----------------------------------------------------------------------------------- */

static void on_fd_timer(uv_timer_t *t);

/* No descriptor left: NOT_SERVING until the timer finds one free again. */
static void note_out_of_fds(czk_listener *l)
{
    atomic_store(&l->out_of_fds, true);
    if (l->fd_timer_open && !l->fd_timer_running) {
        l->fd_timer_running = true;
        uv_timer_start(&l->fd_timer, on_fd_timer, 250, 250);
    }
    if (!l->warned_fds) {
        l->warned_fds = true;
        CZK_LOG_WARN("grpc listener: no file descriptor left; refusing connections until some are closed",
                     "connections=%u", atomic_load(&l->nconns));
    }
}

static void take_connection(czk_listener *l, int fd, bool tcp)
{
    atomic_store(&l->out_of_fds, false);
    if (l->warned_fds) {
        l->warned_fds = false;
        CZK_LOG_INFO("grpc listener has file descriptors again: accepting", NULL);
    }
    unsigned n = atomic_load(&l->nconns);
    if (n >= l->max_connections) {
        close(fd);
        atomic_fetch_add(&l->refused_limit, 1);
        if (!l->warned_limit) {
            l->warned_limit = true;
            CZK_LOG_WARN("grpc listener at its connection limit: refusing new connections",
                         "connections=%u max_connections=%u", n, l->max_connections);
        }
        return;
    }
    if (tcp) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    lconn *c = czk_calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return;
    }
    c->l = l;
    c->fd = fd;
    c->watch_fd = -1;
    c->next = l->conns;
    if (l->conns) l->conns->prev = c;
    l->conns = c;
    atomic_fetch_add(&l->nconns, 1);
    atomic_fetch_add(&l->accepted, 1);
    l->handles++; /* the connection as a whole; dropped by conn_free_if_done */
    if (l->relay_path[0]) {
        relay_start(l, c);
        return;
    }
    c->watch_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (c->watch_fd < 0 || uv_poll_init(l->loop, &c->poll, c->watch_fd) != 0) {
        /* Without its duplicate the connection could not be watched: refuse it. */
        if (c->watch_fd < 0) note_out_of_fds(l);
        atomic_fetch_add(&l->refused_fds, 1);
        c->handles = 0;
        conn_free_if_done(c);
        return;
    }
    c->poll.data = c;
    c->handles++;
    uv_timer_init(l->loop, &c->timer);
    c->timer.data = c;
    c->timer_open = true;
    c->handles++;
    uv_timer_start(&c->timer, on_idle, l->handshake_ms, 0);
    uv_poll_start(&c->poll, UV_READABLE | UV_DISCONNECT, on_first_bytes);
}

/* Out of descriptors, health says NOT_SERVING until one is free again: noticed here even
 * when no connection arrives to be accepted. */
static void on_fd_timer(uv_timer_t *t)
{
    czk_listener *l = t->data;
    int probe = l->reserve_fd >= 0 ? fcntl(l->reserve_fd, F_DUPFD_CLOEXEC, 0) : open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (probe < 0) return;
    if (l->reserve_fd < 0) l->reserve_fd = probe;
    else close(probe);
    atomic_store(&l->out_of_fds, false);
    l->fd_timer_running = false;
    uv_timer_stop(t);
    if (l->warned_fds) {
        l->warned_fds = false;
        CZK_LOG_INFO("grpc listener has file descriptors again: accepting", NULL);
    }
}

/* accept4 failed for want of descriptors: free the reserved one, take the connection off
 * the queue and close it, so that the peer hears at once and the queue cannot wedge. */
static void refuse_without_fds(czk_listener *l, lsock *s)
{
    note_out_of_fds(l);
    atomic_fetch_add(&l->refused_fds, 1);
    if (l->reserve_fd >= 0) {
        close(l->reserve_fd);
        l->reserve_fd = -1;
    }
    int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) close(fd);
    l->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void on_listen_readable(uv_poll_t *p, int status, int events)
{
    (void)events;
    lsock *s = p->data;
    czk_listener *l = s->l;
    if (status < 0 || l->closed) return;
    for (int k = 0; k < ACCEPT_BATCH; k++) {
        int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            take_connection(l, fd, !l->is_unix);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        if (errno == EMFILE || errno == ENFILE) {
            refuse_without_fds(l, s);
            if (l->reserve_fd < 0) return; /* still none: wait for the next wake-up */
            continue;
        }
        /* ENOBUFS, ENOMEM, a peer that left: the socket stays armed and is tried again. */
        CZK_LOG_WARN("grpc listener: accept4 failed", "error=\"%s\"", strerror(errno));
        return;
    }
}

/* ----------------------------------------------------------------------------------- */
/* Binding                                                                               */
/* ----------------------------------------------------------------------------------- */

static int listen_fd(int family)
{
    return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

/* Is a live daemon answering on this unix socket path? */
static bool unix_in_use(const struct sockaddr_un *sa)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    bool live = connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0;
    close(fd);
    return live;
}

static czk_status bind_unix(czk_listener *l, const char *path, unsigned mode, czk_err *err)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    char dir[sizeof sa.sun_path], tmpdir[sizeof sa.sun_path], tmp[sizeof sa.sun_path];
    if (snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path) >= (int)sizeof sa.sun_path)
        return czk_err_set(err, CZK_EINVAL, "daemon.listen: unix:%s: longer than a unix socket path can be (%zu)",
                           path, sizeof sa.sun_path - 1);
    const char *slash = strrchr(path, '/');
    if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    else snprintf(dir, sizeof dir, ".");
    if (snprintf(tmpdir, sizeof tmpdir, "%s/.czkd-XXXXXX", dir) >= (int)sizeof tmpdir ||
        snprintf(tmp, sizeof tmp, "%s/.czkd-XXXXXX/s", dir) >= (int)sizeof tmp)
        return czk_err_set(err, CZK_EINVAL,
                           "daemon.listen: unix:%s: the directory's name leaves no room for the "
                           "private directory the socket is made in (16 bytes)", path);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return czk_err_set(err, CZK_EINVAL, "daemon.listen: unix:%s exists and is not a socket", path);
        if (unix_in_use(&sa))
            return czk_err_set(err, CZK_EIO, "daemon.listen: unix:%s: another process is listening there", path);
    }
    if (!mkdtemp(tmpdir))
        return czk_err_set(err, CZK_EIO, "daemon.listen: unix:%s: cannot make a directory in %s: %s", path, dir,
                           strerror(errno));
    size_t tl = strlen(tmpdir);
    memcpy(tmp, tmpdir, tl); /* fits: checked with the template above */
    memcpy(tmp + tl, "/s", 3);
    struct sockaddr_un ta = sa;
    snprintf(ta.sun_path, sizeof ta.sun_path, "%s", tmp);
    int fd = listen_fd(AF_UNIX);
    czk_status st2 = CZK_OK;
    const char *step = NULL;
    if (fd < 0) step = "socket";
    else if (bind(fd, (struct sockaddr *)&ta, sizeof ta) != 0) step = "bind";
    else if (chmod(tmp, (mode_t)mode) != 0) step = "chmod";
    else if (listen(fd, SOMAXCONN) != 0) step = "listen";
    else if (rename(tmp, path) != 0) step = "rename";
    if (step) {
        st2 = czk_err_set(err, CZK_EIO, "daemon.listen: unix:%s: %s: %s", path, step, strerror(errno));
        if (fd >= 0) close(fd);
        unlink(tmp);
    }
    rmdir(tmpdir);
    if (st2 != CZK_OK) return st2;
    l->socks[0].fd = fd;
    l->nsock = 1;
    l->is_unix = true;
    snprintf(l->unix_path, sizeof l->unix_path, "%s", path);
    return CZK_OK;
}

static czk_status bind_tcp(czk_listener *l, const char *addr, int *port, czk_err *err)
{
    char host[256];
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof host || !colon[1])
        return czk_err_set(err, CZK_EINVAL, "daemon.listen: '%s' is not host:port or unix:PATH", addr);
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = 0;
    char *h = host;
    if (h[0] == '[' && h[strlen(h) - 1] == ']') { /* [::1]:9820 */
        h[strlen(h) - 1] = 0;
        h++;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(*h ? h : NULL, colon + 1, &hints, &res);
    if (gai != 0)
        return czk_err_set(err, CZK_EINVAL, "daemon.listen: '%s': %s", addr, gai_strerror(gai));
    czk_status st = CZK_OK;
    int bound_port = 0;
    for (struct addrinfo *ai = res; ai && l->nsock < MAX_SOCKETS; ai = ai->ai_next) {
        /* Port 0 on a name with several addresses: every socket takes the first's port. */
        if (bound_port) {
            if (ai->ai_family == AF_INET) ((struct sockaddr_in *)ai->ai_addr)->sin_port = htons((uint16_t)bound_port);
            else if (ai->ai_family == AF_INET6) ((struct sockaddr_in6 *)ai->ai_addr)->sin6_port = htons((uint16_t)bound_port);
        }
        int fd = listen_fd(ai->ai_family);
        int one = 1;
        if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        /* "[::]" listens on IPv4 as well; a name that resolves to both gets two sockets. */
        if (fd >= 0 && ai->ai_family == AF_INET6 && res->ai_next) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
            st = czk_err_set(err, CZK_EIO, "daemon.listen: cannot bind %s: %s", addr, strerror(errno));
            if (fd >= 0) close(fd);
            break;
        }
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        getsockname(fd, (struct sockaddr *)&ss, &sl);
        bound_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                    : ((struct sockaddr_in *)&ss)->sin_port);
        l->socks[l->nsock++].fd = fd;
    }
    freeaddrinfo(res);
    if (st == CZK_OK && l->nsock == 0)
        st = czk_err_set(err, CZK_EINVAL, "daemon.listen: '%s' resolves to no address", addr);
    *port = bound_port;
    return st;
}

/* ----------------------------------------------------------------------------------- */
/* Public                                                                                */
/* ----------------------------------------------------------------------------------- */

static void fd_timer_closed(uv_handle_t *h)
{
    czk_listener *l = h->data;
    l->handles--;
    listener_maybe_free(l);
}

static void sock_closed(uv_handle_t *h)
{
    lsock *s = h->data;
    czk_listener *l = s->l;
    close(s->fd);
    s->fd = -1;
    l->handles--;
    listener_maybe_free(l);
}

czk_status czk__listener_start(czk_listener **out, uv_loop_t *loop, const czk_listener_opts *o,
                               int *port, czk_err *err)
{
    *out = NULL;
    *port = 0;
    czk_listener *l = czk_calloc(1, sizeof *l);
    if (!l) return czk_err_set(err, CZK_ENOMEM, "listener: out of memory");
    l->loop = loop;
    l->gs = o->gs;
    l->max_connections = o->max_connections;
    l->handshake_ms = o->handshake_timeout_ms;
    l->max_resets = o->max_client_resets;
    l->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pthread_mutex_init(&l->mu, NULL);
    for (int i = 0; i < MAX_SOCKETS; i++) l->socks[i].fd = -1;
    if (o->relay_path) snprintf(l->relay_path, sizeof l->relay_path, "%s", o->relay_path);
    else l->insecure = grpc_insecure_server_credentials_create();
    czk_status st;
    if (!strncmp(o->addr, "unix:", 5)) {
        const char *p = o->addr + 5;
        if (!strncmp(p, "//", 2)) p += 2; /* unix:///abs/path */
        st = bind_unix(l, p, o->unix_mode, err);
    } else {
        st = bind_tcp(l, o->addr, port, err);
    }
    if (st != CZK_OK) {
        for (int i = 0; i < l->nsock; i++) close(l->socks[i].fd);
        l->stopping = true;
        listener_maybe_free(l);
        return st;
    }
    uv_timer_init(loop, &l->fd_timer);
    l->fd_timer.data = l;
    l->fd_timer_open = true;
    l->handles++;
    for (int i = 0; i < l->nsock; i++) {
        lsock *s = &l->socks[i];
        s->l = l;
        uv_poll_init(loop, &s->poll, s->fd);
        s->poll.data = s;
        s->open = true;
        l->handles++;
        uv_poll_start(&s->poll, UV_READABLE, on_listen_readable);
    }
    *out = l;
    return CZK_OK;
}

bool czk__listener_accepting(czk_listener *l)
{
    return !l->closed && !atomic_load(&l->out_of_fds) && atomic_load(&l->nconns) < l->max_connections;
}

void czk__listener_client_cancel(czk_listener *l, const char *peer)
{
    int fd;
    if (!l || !l->max_resets || !peer || sscanf(peer, "fd:%d", &fd) != 1 || fd < 0) return;
    pthread_mutex_lock(&l->mu);
    lconn *c = (size_t)fd < l->by_fd_cap ? l->by_fd[fd] : NULL;
    if (c && !c->cut) {
        uint64_t t = now_ms();
        c->tokens += (double)(t - c->tokens_ms) * l->max_resets / RESET_WINDOW_MS;
        if (c->tokens > l->max_resets) c->tokens = l->max_resets;
        c->tokens_ms = t;
        c->tokens -= 1;
        if (c->tokens < 0) {
            /* The duplicate is open while the entry is indexed (both under mu), so this
             * reaches the right socket; gRPC then sees the connection fail and ends it. */
            c->cut = true;
            shutdown(c->watch_fd, SHUT_RDWR);
            atomic_fetch_add(&l->closed_resets, 1);
            CZK_LOG_WARN("closing a connection whose client cancels calls faster than allowed",
                         "peer=%s max_client_resets=%u window_s=%d", peer, l->max_resets, RESET_WINDOW_MS / 1000);
        }
    }
    pthread_mutex_unlock(&l->mu);
}

void czk__listener_stats(czk_listener *l, czk_listener_stats *s)
{
    memset(s, 0, sizeof *s);
    if (!l) return;
    s->open = atomic_load(&l->nconns);
    s->max = l->max_connections;
    s->accepted = atomic_load(&l->accepted);
    s->refused_limit = atomic_load(&l->refused_limit);
    s->refused_fds = atomic_load(&l->refused_fds);
    s->closed_idle = atomic_load(&l->closed_idle);
    s->closed_resets = atomic_load(&l->closed_resets);
}

void czk__listener_close(czk_listener *l)
{
    if (!l || l->closed) return;
    l->closed = true;
    if (l->fd_timer_open) {
        l->fd_timer_open = false;
        uv_close((uv_handle_t *)&l->fd_timer, fd_timer_closed);
    }
    for (int i = 0; i < l->nsock; i++) {
        lsock *s = &l->socks[i];
        if (!s->open) continue;
        s->open = false;
        uv_close((uv_handle_t *)&s->poll, sock_closed);
    }
    /* gRPC used to remove its socket file when it stopped listening; so do we. */
    if (l->is_unix) unlink(l->unix_path);
}

void czk__listener_stop(czk_listener *l)
{
    if (!l || l->stopping) return;
    czk__listener_close(l);
    l->stopping = true;
    for (lconn *c = l->conns; c; c = c->next) conn_end(c);
    listener_maybe_free(l);
}
