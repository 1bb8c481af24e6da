/*
 * The Prometheus text of the gRPC server's own counters: calls started and handled per
 * method and code (go-grpc-prometheus names), refusal log lines dropped, cancellations,
 * calls in flight, the gRPC and HTTP connections, and the process's CPU time and memory.
 * /metrics and GetMetrics serve it after the engine's.
 */
#include "server_internal.h"

#include "czk/alloc.h"
#include "czk/strbuf.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

static const char *type_label(czk__mtype t)
{
    return t == CZK__M_UNARY ? "unary" : t == CZK__M_STREAM ? "server_stream" : "bidi_stream";
}

char *czk__server_metrics_text(czk_server *s)
{
    czk_sbuf b = {0};
    czk_sbuf_printf(&b, "# HELP grpc_server_started_total Total number of RPCs started on the server.\n"
                  "# TYPE grpc_server_started_total counter\n");
    for (int i = 0; i <= CZK__NMETHODS; i++) {
        unsigned long v = atomic_load(&s->started[i]);
        if (i < CZK__NMETHODS)
            czk_sbuf_printf(&b, "grpc_server_started_total{grpc_service=\"%s\",grpc_method=\"%s\",grpc_type=\"%s\"} %lu\n",
                      czk__methods[i].service, czk__methods[i].name, type_label(czk__methods[i].type), v);
        else if (v)
            czk_sbuf_printf(&b, "grpc_server_started_total{grpc_service=\"unknown\",grpc_method=\"unknown\",grpc_type=\"unary\"} %lu\n", v);
    }
    czk_sbuf_printf(&b, "# HELP grpc_server_handled_total Total number of RPCs completed on the server, by code.\n"
                  "# TYPE grpc_server_handled_total counter\n");
    for (int i = 0; i <= CZK__NMETHODS; i++)
        for (int c = 0; c < CZK__NCODES; c++) {
            unsigned long v = atomic_load(&s->handled[i][c]);
            if (!v) continue;
            czk_sbuf_printf(&b, "grpc_server_handled_total{grpc_service=\"%s\",grpc_method=\"%s\",grpc_type=\"%s\",grpc_code=\"%s\"} %lu\n",
                      i < CZK__NMETHODS ? czk__methods[i].service : "unknown", i < CZK__NMETHODS ? czk__methods[i].name : "unknown",
                      i < CZK__NMETHODS ? type_label(czk__methods[i].type) : "unary", czk__grpc_code_name((grpc_status_code)c), v);
        }
    czk_sbuf_printf(&b, "# HELP czk_refusal_log_lines_dropped_total Refused calls whose log line the rate limit "
                  "dropped (each is still in grpc_server_handled_total).\n"
                  "# TYPE czk_refusal_log_lines_dropped_total counter\nczk_refusal_log_lines_dropped_total %lu\n",
              atomic_load(&s->refusal_dropped_total));
    czk_sbuf_printf(&b, "# HELP grpc_server_cancelled_total RPCs cancelled by the client or their deadline.\n"
                  "# TYPE grpc_server_cancelled_total counter\ngrpc_server_cancelled_total %lu\n",
              atomic_load(&s->cancelled_calls));
    czk_sbuf_printf(&b, "# HELP grpc_server_calls_in_flight Calls the server holds now.\n"
                  "# TYPE grpc_server_calls_in_flight gauge\ngrpc_server_calls_in_flight %d\n",
              atomic_load(&s->calls_held));
    czk_listener_stats ls;
    czk__listener_stats(s->listener, &ls);
    czk_sbuf_printf(&b, "# HELP czk_grpc_connections gRPC connections open, and the limit (daemon.max_connections).\n"
                  "# TYPE czk_grpc_connections gauge\nczk_grpc_connections %llu\n"
                  "# TYPE czk_grpc_connections_max gauge\nczk_grpc_connections_max %llu\n"
                  "# TYPE czk_grpc_connections_accepted_total counter\n"
                  "czk_grpc_connections_accepted_total %llu\n"
                  "# HELP czk_grpc_connections_refused_total Connections closed on accept: at the limit, "
                  "or with no file descriptor left.\n"
                  "# TYPE czk_grpc_connections_refused_total counter\n"
                  "czk_grpc_connections_refused_total{reason=\"limit\"} %llu\n"
                  "czk_grpc_connections_refused_total{reason=\"no_fds\"} %llu\n"
                  "# HELP czk_grpc_connections_closed_total Connections closed by czkd: silent past "
                  "daemon.handshake_timeout, or cancelling calls past daemon.max_client_resets.\n"
                  "# TYPE czk_grpc_connections_closed_total counter\n"
                  "czk_grpc_connections_closed_total{reason=\"idle\"} %llu\n"
                  "czk_grpc_connections_closed_total{reason=\"resets\"} %llu\n",
              (unsigned long long)ls.open, (unsigned long long)ls.max, (unsigned long long)ls.accepted,
              (unsigned long long)ls.refused_limit, (unsigned long long)ls.refused_fds,
              (unsigned long long)ls.closed_idle, (unsigned long long)ls.closed_resets);
    uint64_t h_refused, h_timed_out;
    czk__http_counts(s->http, &h_refused, &h_timed_out);
    czk_sbuf_printf(&b, "# HELP czk_http_connections_refused_total HTTP connections closed on accept at "
                  "daemon.metrics_max_connections.\n"
                  "# TYPE czk_http_connections_refused_total counter\nczk_http_connections_refused_total %llu\n"
                  "# HELP czk_http_requests_timed_out_total HTTP requests not whole within daemon.metrics_timeout.\n"
                  "# TYPE czk_http_requests_timed_out_total counter\nczk_http_requests_timed_out_total %llu\n",
              (unsigned long long)h_refused, (unsigned long long)h_timed_out);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    long rss_pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        long size;
        if (fscanf(f, "%ld %ld", &size, &rss_pages) != 2) rss_pages = 0;
        fclose(f);
    }
    czk_sbuf_printf(&b, "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
                  "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %.3f\n"
                  "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
                  "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %ld\n"
                  "# HELP process_max_resident_memory_bytes Peak resident memory size in bytes.\n"
                  "# TYPE process_max_resident_memory_bytes gauge\nprocess_max_resident_memory_bytes %ld\n",
              cpu, rss_pages * sysconf(_SC_PAGESIZE), ru.ru_maxrss * 1024L);
    return czk_sbuf_take(&b);
}

char *czk__server_all_metrics(czk_server *s)
{
    char *eng = czk_engine_metrics_text(s->engine);
    char *own = czk__server_metrics_text(s);
    czk_sbuf b = {0};
    czk_sbuf_printf(&b, "%s%s", eng ? eng : "", own ? own : "");
    czk_free(eng);
    czk_free(own);
    return czk_sbuf_take(&b);
}
