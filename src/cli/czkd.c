/*
 * czkd — the proving daemon: configuration (file, environment, flags), the engine, the
 * gRPC server and the HTTP endpoint on one libuv loop, and an orderly drain on
 * SIGTERM/SIGINT (a second signal cancels what is still running; exit status 0 either
 * way, since unfinished jobs stay journaled and run after the next start).
 */
#include "czk/alloc.h"
#include "czk/engine.h"
#include "czk/log.h"
#include "server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <uv.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: czkd [--config FILE] [--listen ADDR] [--metrics-listen ADDR] [--data-dir DIR]\n"
            "            [--param-dir DIR] [--SECTION-KEY=VALUE ...] [--dump-config] [--sample-config]\n"
            "\n"
            "  ADDR is host:port or unix:PATH (the metrics address: host:port, or \"\" for none).\n"
            "  Every option of the configuration file can be given as a flag, e.g.\n"
            "  --memory-budget=200GiB, --gpus-mode=cpu, --daemon-auth-token-file=/etc/czk/token,\n"
            "  or in the environment as CZKD_<SECTION>_<KEY> (CZKD_MEMORY_BUDGET=200GiB).\n"
            "  Precedence, lowest first: defaults, file, environment, flags.\n"
            "  --dump-config prints the resulting configuration and exits; --sample-config\n"
            "  prints every option with its default and meaning (docker/czkd.conf).\n");
}

typedef struct daemon_state {
    uv_loop_t loop;
    uv_signal_t sigterm, sigint;
    czk_server *srv;
    uint64_t grace_ms;
    int signals;
} daemon_state;

static void close_walk(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

static void on_stopped(void *ctx)
{
    daemon_state *d = ctx;
    uv_walk(&d->loop, close_walk, NULL);
}

static void on_signal(uv_signal_t *h, int signum)
{
    daemon_state *d = h->data;
    if (d->signals++ == 0) {
        CZK_LOG_INFO("signal: draining", "signal=%s", signum == SIGTERM ? "SIGTERM" : "SIGINT");
        czk__server_drain(d->srv, d->grace_ms, on_stopped, d);
    } else {
        CZK_LOG_WARN("second signal: cancelling every call now", "signal=%d", signum);
        czk__server_cancel_all(d->srv);
    }
}

/* Every connection costs descriptors; the soft limit (often 1024) is what a hostile peer
 * would exhaust first, and the hard one is what the administrator granted. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    rlim_t was = rl.rlim_cur;
    if (rl.rlim_cur != rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            CZK_LOG_WARN("cannot raise the file descriptor limit", "soft=%llu hard=%llu error=\"%s\"",
                         (unsigned long long)was, (unsigned long long)rl.rlim_max, strerror(errno));
            return;
        }
    }
    CZK_LOG_INFO("file descriptor limit", "soft=%llu was=%llu hard=%llu", (unsigned long long)rl.rlim_cur,
                 (unsigned long long)was, (unsigned long long)rl.rlim_max);
}

static bool write_text_file(const char *path, const char *text)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    ok = fclose(f) == 0 && ok;
    /* Rename so that a reader never sees half a file. */
    return ok && rename(tmp, path) == 0;
}

int main(int argc, char **argv)
{
    /* Heavy handlers (submission checks, parameter loading) run on libuv's pool; its
     * default of 4 threads would let four preloads stall every submission. */
    setenv("UV_THREADPOOL_SIZE", "16", 0);
    signal(SIGPIPE, SIG_IGN);

    czk_daemon_config cfg;
    czk__config_defaults(&cfg);
    czk_err err;
    czk_err_clear(&err);
    bool dump = false, sample = false;

    /* The file comes first whatever the flags' order, so that flags override it. */
    for (int i = 1; i < argc; i++) {
        const char *path = NULL;
        if (!strcmp(argv[i], "--config") && i + 1 < argc) path = argv[i + 1];
        else if (!strncmp(argv[i], "--config=", 9)) path = argv[i] + 9;
        if (path && czk__config_load_file(&cfg, path, &err) != CZK_OK) {
            fprintf(stderr, "czkd: %s\n", err.msg);
            return 2;
        }
    }
    if (czk__config_load_env(&cfg, &err) != CZK_OK) {
        fprintf(stderr, "czkd: %s\n", err.msg);
        return 2;
    }
    static const struct {
        const char *flag, *section, *key;
    } shortcuts[] = {
        {"listen", "daemon", "listen"},       {"metrics-listen", "daemon", "metrics_listen"},
        {"data-dir", "daemon", "data_dir"},   {"param-dir", "daemon", "param_dir"},
        {"log-level", "logging", "level"},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("czkd %s\n", czk_version());
            return 0;
        }
        if (!strcmp(a, "--dump-config")) {
            dump = true;
            continue;
        }
        if (!strcmp(a, "--sample-config")) {
            sample = true;
            continue;
        }
        if (!strcmp(a, "--config")) {
            i++;
            continue;
        }
        if (!strncmp(a, "--config=", 9)) continue;
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "czkd: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
        char name[128];
        const char *value;
        const char *eq = strchr(a, '=');
        if (eq) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a - 2), a + 2);
            value = eq + 1;
        } else {
            if (i + 1 >= argc) {
                fprintf(stderr, "czkd: %s needs a value\n", a);
                return 2;
            }
            snprintf(name, sizeof name, "%s", a + 2);
            value = argv[++i];
        }
        const char *section = NULL, *key = NULL;
        char sec[64];
        for (size_t k = 0; k < sizeof shortcuts / sizeof shortcuts[0]; k++)
            if (!strcmp(name, shortcuts[k].flag)) {
                section = shortcuts[k].section;
                key = shortcuts[k].key;
            }
        if (!section) {
            /* --SECTION-KEY: the section is the part before the first dash. */
            const char *dash = strchr(name, '-');
            if (!dash || (size_t)(dash - name) >= sizeof sec) {
                fprintf(stderr, "czkd: unknown flag %s\n", a);
                usage(stderr);
                return 2;
            }
            snprintf(sec, sizeof sec, "%.*s", (int)(dash - name), name);
            section = sec;
            key = dash + 1;
        }
        if (czk__config_set(&cfg, section, key, value, &err) != CZK_OK) {
            fprintf(stderr, "czkd: %s\n", err.msg);
            return 2;
        }
    }
    if (sample) {
        czk_daemon_config def;
        czk__config_defaults(&def);
        czk__config_write(&def, stdout, true);
        czk__config_free(&def);
        czk__config_free(&cfg);
        return 0;
    }
    czk_engine_config ec;
    int *gpus = NULL;
    if (czk__config_to_engine(&cfg, &ec, &gpus, &err) != CZK_OK) {
        fprintf(stderr, "czkd: %s\n", err.msg);
        return 2;
    }
    if (dump) {
        czk__config_write(&cfg, stdout, false);
        czk_free(gpus);
        czk__config_free(&cfg);
        return 0;
    }
    czk_log_level lv;
    czk_log_level_parse(cfg.log_level, &lv);
    czk_log_set_level(lv);
    czk_log_set_format(!strcmp(cfg.log_format, "json") ? CZK_LOG_JSON : CZK_LOG_LOGFMT);
    if (cfg.auth_token[0])
        CZK_LOG_WARN("auth_token is set in the configuration; auth_token_file keeps it out of "
                     "process listings and config dumps", NULL);

    raise_fd_limit();

    int rc = 1;
    czk_engine *engine = NULL;
    if (czk_engine_create(&engine, &ec, &err) != CZK_OK) {
        CZK_LOG_ERROR("cannot start the engine", "error=%s detail=\"%s\"", czk_status_name(err.status), err.msg);
        goto out;
    }
    /* The timeline starts before the server so that it sees the jobs the journal
     * re-queued; failing to open it is a warning, since proving does not need it. */
    czk_timeline *timeline = NULL;
    if (cfg.timeline_enabled) {
        char tpath[4096];
        if (cfg.timeline_path[0])
            snprintf(tpath, sizeof tpath, "%s", cfg.timeline_path);
        else
            snprintf(tpath, sizeof tpath, "%s/timeline.jsonl", cfg.data_dir[0] ? cfg.data_dir : "./czk-data");
        czk_err terr;
        if (czk__timeline_start(&timeline, engine, tpath, cfg.timeline_max_size,
                                (unsigned)cfg.timeline_keep, &terr) != CZK_OK)
            CZK_LOG_WARN("timeline off", "error=%s detail=\"%s\"", czk_status_name(terr.status), terr.msg);
    }
    static daemon_state d;
    uv_loop_init(&d.loop);
    d.grace_ms = cfg.drain_grace_ms;
    int grpc_port = 0, metrics_port = 0;
    if (czk__server_start(&d.srv, engine, &cfg, &d.loop, &grpc_port, &metrics_port, &err) != CZK_OK) {
        CZK_LOG_ERROR("cannot start the server", "error=%s detail=\"%s\"", czk_status_name(err.status), err.msg);
        if (d.srv) { /* started halfway: stop it the orderly way */
            czk__server_drain(d.srv, 0, on_stopped, &d);
            uv_run(&d.loop, UV_RUN_DEFAULT);
            czk__server_free(d.srv);
        }
        uv_loop_close(&d.loop);
        czk__timeline_stop(timeline);
        goto out;
    }
    uv_signal_init(&d.loop, &d.sigterm);
    uv_signal_init(&d.loop, &d.sigint);
    d.sigterm.data = d.sigint.data = &d;
    uv_signal_start(&d.sigterm, on_signal, SIGTERM);
    uv_signal_start(&d.sigint, on_signal, SIGINT);
    char buf[256];
    if (cfg.pid_file[0]) {
        snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
        if (!write_text_file(cfg.pid_file, buf))
            CZK_LOG_WARN("cannot write the pid file", "path=%s error=\"%s\"", cfg.pid_file, strerror(errno));
    }
    if (cfg.ready_file[0]) {
        snprintf(buf, sizeof buf, "{\"pid\":%ld,\"grpc_port\":%d,\"metrics_port\":%d}\n", (long)getpid(),
                 grpc_port, metrics_port);
        if (!write_text_file(cfg.ready_file, buf))
            CZK_LOG_WARN("cannot write the ready file", "path=%s error=\"%s\"", cfg.ready_file, strerror(errno));
    }
    CZK_LOG_INFO("czkd ready", "version=%s pid=%ld", czk_version(), (long)getpid());
    uv_run(&d.loop, UV_RUN_DEFAULT);
    uv_loop_close(&d.loop);
    czk__timeline_stop(timeline);
    czk_engine_destroy(engine);
    engine = NULL;
    czk__server_free(d.srv);
    if (cfg.pid_file[0]) unlink(cfg.pid_file);
    CZK_LOG_INFO("czkd stopped", NULL);
    rc = 0;
out:
    if (engine) czk_engine_destroy(engine);
    czk_free(gpus);
    czk__config_free(&cfg);
    return rc;
}
