/*
 * The HTTP side of czkd, on the libuv loop: GET /metrics (Prometheus text: the engine's
 * metrics, then the gRPC server's and the process's), GET /status (the engine's JSON) and
 * GET /healthz (200 "ok" while serving, 503 while draining or not ready); HEAD answers the
 * same headers without the body. Requests are parsed with libhttp-parser; every response
 * closes the connection, which is what a scraper expects and keeps the state per
 * connection trivial.
 *
 * Nothing here waits on a peer for long: at most daemon.metrics_max_connections at once
 * (more are closed on accept), each request whole within daemon.metrics_timeout (else
 * 408), a request with a body answered 400 or 413 at its headers, oversized headers 431.
 * After a response the connection is shut down for writing and what the client still
 * sends is read and dropped for a moment before the close ("lingering close"): closing
 * with unread bytes would reset the connection and lose the response.
 */
#include "server.h"

#include "czk/alloc.h"
#include "czk/log.h"

#include <http_parser.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* A request line plus headers beyond this is not a scraper: 431. */
#define REQ_MAX 8192
/* After the response: how long, and how many bytes, a client's unread request is drained. */
#define LINGER_MS 2000
#define LINGER_MAX (4u << 20)

typedef struct conn conn;

struct czk_http {
    uv_tcp_t listener;
    czk_server *srv;
    bool closing, listener_closed;
    conn *conns; /* open connections (closed with the listener) */
    unsigned max_connections, nconns;
    uint64_t timeout_ms;
    atomic_ulong refused, timed_out;
};

struct conn {
    conn *prev, *next;
    uv_tcp_t tcp;
    uv_timer_t timer;
    int open_handles;
    czk_http *h;
    http_parser parser;
    char url[256];
    size_t url_len;
    size_t total, drained;
    bool complete, url_too_long, has_body, responded, closing;
    uint64_t body_len; /* Content-Length when given, else 0 */
    char buf[4096];
    uv_write_t wr;
    uv_shutdown_t sd;
    char *resp;
};

static const http_parser_settings *settings(void);
static void respond(conn *c, int code, const char *reason, const char *ctype, const char *body);

static void http_maybe_free(czk_http *h)
{
    if (h->listener_closed && h->nconns == 0) czk_free(h);
}

static void handle_closed(uv_handle_t *hd)
{
    conn *c = hd->data;
    if (--c->open_handles > 0) return;
    czk_http *h = c->h;
    if (c->prev) c->prev->next = c->next;
    else h->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    h->nconns--;
    free(c->resp);
    czk_free(c);
    http_maybe_free(h);
}

static void conn_close(conn *c)
{
    if (c->closing) return;
    c->closing = true;
    uv_close((uv_handle_t *)&c->timer, handle_closed);
    uv_close((uv_handle_t *)&c->tcp, handle_closed);
}

static void on_timer(uv_timer_t *t)
{
    conn *c = t->data;
    if (c->responded) { /* the linger, or a client that does not read its response */
        conn_close(c);
        return;
    }
    atomic_fetch_add(&c->h->timed_out, 1);
    /* Whatever it still sends is drained like after any response. */
    respond(c, 408, "Request Timeout", "text/plain", "request not received in time\n");
    if (!c->closing) uv_timer_start(&c->timer, on_timer, LINGER_MS, 0);
}

static void write_done(uv_write_t *w, int status)
{
    conn *c = w->data;
    if (status < 0) conn_close(c);
}

static void shutdown_done(uv_shutdown_t *sd, int status)
{
    conn *c = sd->data;
    if (status < 0 || c->closing) {
        conn_close(c);
        return;
    }
    uv_timer_start(&c->timer, on_timer, LINGER_MS, 0);
}

static void respond(conn *c, int code, const char *reason, const char *ctype, const char *body)
{
    if (c->responded || c->closing) return;
    c->responded = true;
    bool head = c->complete && c->parser.method == HTTP_HEAD;
    size_t blen = body ? strlen(body) : 0;
    size_t cap = blen + 256;
    c->resp = malloc(cap);
    if (!c->resp) {
        conn_close(c);
        return;
    }
    int n = snprintf(c->resp, cap,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                     code, reason, ctype, blen);
    /* HEAD: the headers a GET would get, Content-Length included, and no body. */
    if (blen && !head) memcpy(c->resp + n, body, blen);
    uv_buf_t b = uv_buf_init(c->resp, (unsigned)(n + (head ? 0 : (int)blen)));
    c->wr.data = c;
    c->sd.data = c;
    /* The whole exchange, response included, stays within the request's timeout. */
    if (uv_write(&c->wr, (uv_stream_t *)&c->tcp, &b, 1, write_done) != 0 ||
        uv_shutdown(&c->sd, (uv_stream_t *)&c->tcp, shutdown_done) != 0)
        conn_close(c);
}

static void route(conn *c)
{
    czk_server *s = c->h->srv;
    /* The query string is ignored: /metrics?x=y is /metrics. */
    c->url[strcspn(c->url, "?")] = 0;
    if (!strcmp(c->url, "/metrics")) {
        char *t = czk__server_all_metrics(s);
        respond(c, t ? 200 : 500, t ? "OK" : "Internal Server Error", "text/plain; version=0.0.4",
                t ? t : "out of memory\n");
        czk_free(t);
    } else if (!strcmp(c->url, "/status")) {
        char *j = czk_engine_status_json(czk__server_engine(s));
        respond(c, j ? 200 : 500, j ? "OK" : "Internal Server Error", "application/json",
                j ? j : "{}");
        czk_free(j); /* the engine's strings are czk_malloc'd */
    } else if (!strcmp(c->url, "/healthz")) {
        if (czk__server_serving(s)) respond(c, 200, "OK", "text/plain", "ok\n");
        else respond(c, 503, "Service Unavailable", "text/plain", "not serving\n");
    } else {
        respond(c, 404, "Not Found", "text/plain", "try /metrics, /status or /healthz\n");
    }
}

static int on_url(http_parser *p, const char *at, size_t len)
{
    conn *c = p->data;
    if (c->url_len + len >= sizeof c->url) {
        c->url_too_long = true;
        return 0;
    }
    memcpy(c->url + c->url_len, at, len);
    c->url_len += len;
    c->url[c->url_len] = 0;
    return 0;
}

/* A scraper's request has no body: one announced is refused before a byte of it is
 * waited for (a GET with "Content-Length: 10000000000" would otherwise hold the
 * connection until the timeout). */
static int on_headers_complete(http_parser *p)
{
    conn *c = p->data;
    c->has_body = (p->flags & F_CHUNKED) || ((p->flags & F_CONTENTLENGTH) && p->content_length > 0);
    c->body_len = (p->flags & F_CONTENTLENGTH) ? p->content_length : 0;
    c->complete = true;
    return 0;
}

static int on_message_complete(http_parser *p)
{
    (void)p;
    return 1; /* one request per connection: stop parsing here */
}

static const http_parser_settings *settings(void)
{
    static http_parser_settings s;
    static bool init;
    if (!init) {
        http_parser_settings_init(&s);
        s.on_url = on_url;
        s.on_headers_complete = on_headers_complete;
        s.on_message_complete = on_message_complete;
        init = true;
    }
    return &s;
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    conn *c = h->data;
    *buf = uv_buf_init(c->buf, sizeof c->buf);
}

/* The request as far as it has been parsed, once there is enough to answer it. */
static void answer(conn *c)
{
    if (c->parser.method != HTTP_GET && c->parser.method != HTTP_HEAD)
        respond(c, 405, "Method Not Allowed", "text/plain", "only GET and HEAD\n");
    else if (c->has_body && c->body_len > REQ_MAX)
        respond(c, 413, "Content Too Large", "text/plain", "a GET or HEAD request has no body\n");
    else if (c->has_body)
        respond(c, 400, "Bad Request", "text/plain", "a GET or HEAD request has no body\n");
    else if (c->url_too_long)
        respond(c, 414, "URI Too Long", "text/plain", "url too long\n");
    else
        route(c);
}

static void read_cb(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
    conn *c = st->data;
    if (c->closing) return;
    if (n < 0) { /* EOF or an error: nothing more will be answered */
        conn_close(c);
        return;
    }
    if (c->responded) {
        c->drained += (size_t)n;
        if (c->drained > LINGER_MAX) conn_close(c);
        return;
    }
    c->total += (size_t)n;
    http_parser_execute(&c->parser, settings(), buf->base, (size_t)n);
    enum http_errno e = HTTP_PARSER_ERRNO(&c->parser);
    if (c->complete && (e == HPE_OK || e == HPE_CB_message_complete)) answer(c);
    else if (e == HPE_HEADER_OVERFLOW || (!c->complete && c->total > REQ_MAX))
        respond(c, 431, "Request Header Fields Too Large", "text/plain", "request headers too large\n");
    else if (e != HPE_OK)
        respond(c, 400, "Bad Request", "text/plain", "bad request\n");
}

static void on_connection(uv_stream_t *server, int status)
{
    czk_http *h = server->data;
    if (status < 0 || h->closing) return;
    conn *c = czk_calloc(1, sizeof *c);
    if (!c) return;
    c->h = h;
    uv_tcp_init(server->loop, &c->tcp);
    uv_timer_init(server->loop, &c->timer);
    c->tcp.data = c->timer.data = c;
    c->open_handles = 2;
    c->next = h->conns;
    if (h->conns) h->conns->prev = c;
    h->conns = c;
    h->nconns++;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        conn_close(c);
        return;
    }
    /* Over the limit: taken off the queue and closed, so the queue never wedges. */
    if (h->nconns > h->max_connections) {
        atomic_fetch_add(&h->refused, 1);
        conn_close(c);
        return;
    }
    http_parser_init(&c->parser, HTTP_REQUEST);
    c->parser.data = c;
    uv_timer_start(&c->timer, on_timer, h->timeout_ms, 0);
    uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb);
}

czk_status czk__http_start(czk_http **out, czk_server *srv, uv_loop_t *loop, const char *addr,
                           unsigned max_connections, uint64_t timeout_ms, int *port, czk_err *err)
{
    *out = NULL;
    char host[256];
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof host)
        return czk_err_set(err, CZK_EINVAL, "daemon.metrics_listen: '%s' is not host:port", addr);
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (*end || p < 0 || p > 65535)
        return czk_err_set(err, CZK_EINVAL, "daemon.metrics_listen: '%s': bad port", addr);
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = 0;
    /* [::1]:9821 */
    char *h6 = host;
    if (h6[0] == '[' && h6[strlen(h6) - 1] == ']') {
        h6[strlen(h6) - 1] = 0;
        h6++;
    }
    struct sockaddr_storage sa;
    if (uv_ip4_addr(h6, (int)p, (struct sockaddr_in *)&sa) != 0 &&
        uv_ip6_addr(h6, (int)p, (struct sockaddr_in6 *)&sa) != 0)
        return czk_err_set(err, CZK_EINVAL, "daemon.metrics_listen: '%s': host must be a numeric IP", addr);
    czk_http *h = czk_calloc(1, sizeof *h);
    if (!h) return czk_err_set(err, CZK_ENOMEM, "http: out of memory");
    h->srv = srv;
    h->max_connections = max_connections;
    h->timeout_ms = timeout_ms;
    uv_tcp_init(loop, &h->listener);
    h->listener.data = h;
    int rc = uv_tcp_bind(&h->listener, (struct sockaddr *)&sa, 0);
    if (rc == 0) rc = uv_listen((uv_stream_t *)&h->listener, 128, on_connection);
    if (rc != 0) {
        uv_close((uv_handle_t *)&h->listener, NULL);
        /* The handle is closed on the loop's next turn; h must outlive it, so it is
         * leaked deliberately on this (fatal) startup path. */
        return czk_err_set(err, CZK_EIO, "daemon.metrics_listen: cannot listen on %s: %s", addr,
                           uv_strerror(rc));
    }
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    uv_tcp_getsockname(&h->listener, (struct sockaddr *)&bound, &blen);
    *port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                              : ((struct sockaddr_in *)&bound)->sin_port);
    CZK_LOG_INFO("http listening", "addr=%s port=%d paths=/metrics,/status,/healthz max_connections=%u",
                 addr, *port, max_connections);
    *out = h;
    return CZK_OK;
}

void czk__http_counts(const czk_http *h, uint64_t *refused, uint64_t *timed_out)
{
    *refused = h ? atomic_load(&((czk_http *)h)->refused) : 0;
    *timed_out = h ? atomic_load(&((czk_http *)h)->timed_out) : 0;
}

static void listener_closed(uv_handle_t *hd)
{
    czk_http *h = hd->data;
    h->listener_closed = true;
    http_maybe_free(h);
}

void czk__http_stop(czk_http *h)
{
    if (!h || h->closing) return;
    h->closing = true;
    for (conn *c = h->conns; c; c = c->next) conn_close(c);
    uv_close((uv_handle_t *)&h->listener, listener_closed);
}
