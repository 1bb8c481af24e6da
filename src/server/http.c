/*
 * The HTTP side of czkd, on the libuv loop: GET /metrics (Prometheus text: the engine's
 * metrics, then the gRPC server's and the process's), GET /status (the engine's JSON) and
 * GET /healthz (200 "ok" while serving, 503 while draining or not ready). Requests are
 * parsed with libhttp-parser; every response closes the connection, which is what a
 * scraper expects and keeps the state per connection trivial.
 */
#include "server.h"

#include "czk/alloc.h"
#include "czk/log.h"

#include <http_parser.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* A request line plus headers beyond this is not a scraper: 400. */
#define REQ_MAX 8192

struct czk_http {
    uv_tcp_t listener;
    czk_server *srv;
    bool closing;
};

typedef struct conn {
    uv_tcp_t tcp;
    czk_http *h;
    http_parser parser;
    char url[256];
    size_t url_len;
    size_t total;
    bool complete, url_too_long, responded;
    char buf[4096];
    uv_write_t wr;
    char *resp;
} conn;

static const http_parser_settings *settings(void);

static void conn_closed(uv_handle_t *h)
{
    conn *c = h->data;
    free(c->resp);
    czk_free(c);
}

static void write_done(uv_write_t *w, int status)
{
    (void)status;
    conn *c = w->data;
    uv_close((uv_handle_t *)&c->tcp, conn_closed);
}

static void respond(conn *c, int code, const char *reason, const char *ctype, const char *body)
{
    if (c->responded) return;
    c->responded = true;
    uv_read_stop((uv_stream_t *)&c->tcp);
    size_t blen = body ? strlen(body) : 0;
    size_t cap = blen + 256;
    c->resp = malloc(cap);
    if (!c->resp) {
        uv_close((uv_handle_t *)&c->tcp, conn_closed);
        return;
    }
    int n = snprintf(c->resp, cap,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                     code, reason, ctype, blen);
    if (blen) memcpy(c->resp + n, body, blen);
    uv_buf_t b = uv_buf_init(c->resp, (unsigned)(n + (int)blen));
    c->wr.data = c;
    if (uv_write(&c->wr, (uv_stream_t *)&c->tcp, &b, 1, write_done) != 0)
        uv_close((uv_handle_t *)&c->tcp, conn_closed);
}

static void route(conn *c)
{
    czk_server *s = c->h->srv;
    if (c->parser.method != HTTP_GET && c->parser.method != HTTP_HEAD) {
        respond(c, 405, "Method Not Allowed", "text/plain", "only GET\n");
        return;
    }
    /* The query string is ignored: /metrics?x=y is /metrics. */
    c->url[strcspn(c->url, "?")] = 0;
    if (!strcmp(c->url, "/metrics")) {
        char *t = czk__server_all_metrics(s);
        respond(c, t ? 200 : 500, t ? "OK" : "Internal Server Error", "text/plain; version=0.0.4",
                t ? t : "out of memory\n");
        free(t);
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

static int on_message_complete(http_parser *p)
{
    conn *c = p->data;
    c->complete = true;
    return 1; /* one request per connection: stop parsing here */
}

static const http_parser_settings *settings(void)
{
    static http_parser_settings s;
    static bool init;
    if (!init) {
        http_parser_settings_init(&s);
        s.on_url = on_url;
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

static void read_cb(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
    conn *c = st->data;
    if (c->responded) return;
    if (n < 0) {
        uv_close((uv_handle_t *)st, conn_closed);
        return;
    }
    c->total += (size_t)n;
    size_t used = http_parser_execute(&c->parser, settings(), buf->base, (size_t)n);
    if (c->complete) {
        if (c->url_too_long) respond(c, 414, "URI Too Long", "text/plain", "url too long\n");
        else route(c);
    } else if (HTTP_PARSER_ERRNO(&c->parser) != HPE_OK || used != (size_t)n) {
        respond(c, 400, "Bad Request", "text/plain", "bad request\n");
    } else if (c->total > REQ_MAX) {
        respond(c, 431, "Request Header Fields Too Large", "text/plain", "request too large\n");
    }
}

static void on_connection(uv_stream_t *server, int status)
{
    czk_http *h = server->data;
    if (status < 0 || h->closing) return;
    conn *c = czk_calloc(1, sizeof *c);
    if (!c) return;
    c->h = h;
    uv_tcp_init(server->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, conn_closed);
        return;
    }
    http_parser_init(&c->parser, HTTP_REQUEST);
    c->parser.data = c;
    uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb);
}

czk_status czk__http_start(czk_http **out, czk_server *srv, uv_loop_t *loop, const char *addr,
                           int *port, czk_err *err)
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
    CZK_LOG_INFO("http listening", "addr=%s port=%d paths=/metrics,/status,/healthz", addr, *port);
    *out = h;
    return CZK_OK;
}

static void listener_closed(uv_handle_t *hd)
{
    czk_free(hd->data);
}

void czk__http_stop(czk_http *h)
{
    if (!h || h->closing) return;
    h->closing = true;
    /* Open connections finish their one response and close themselves. */
    uv_close((uv_handle_t *)&h->listener, listener_closed);
}
