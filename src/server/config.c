/*
 * czkd's configuration: one table of options. Each row is a section, a key, a type, the
 * default, bounds and a help line; the same rows parse the INI file (libinih), the
 * CZKD_<SECTION>_<KEY> environment variables and the --section-key flags, print the
 * current configuration and write the sample file docker/czkd.conf. Precedence, lowest
 * first: defaults, file, environment, flags.
 */
#include "server.h"

#include "czk/alloc.h"
#include "czk/log.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum opt_type { T_STR, T_U64, T_BYTES, T_DURATION, T_BOOL, T_MODE } opt_type;

typedef struct opt {
    const char *section;
    const char *key;
    opt_type type;
    size_t off;
    const char *def;
    uint64_t min, max; /* numeric bounds (inclusive); strings ignore them */
    const char *help;
} opt;

#define O(f) offsetof(czk_daemon_config, f)
#define U64MAX UINT64_MAX

static const opt opts[] = {
    {"daemon", "listen", T_STR, O(listen), "127.0.0.1:9820", 0, 0,
     "gRPC address: host:port (0.0.0.0:9820: every IPv4 interface, [::]:9820: IPv4 and IPv6) "
     "or unix:PATH"},
    {"daemon", "metrics_listen", T_STR, O(metrics_listen), "127.0.0.1:9821", 0, 0,
     "HTTP address of /metrics, /status and /healthz (host:port); empty turns it off"},
    {"daemon", "data_dir", T_STR, O(data_dir), "./czk-data", 0, 0,
     "directory of the job journal (created if missing)"},
    {"daemon", "param_dir", T_STR, O(param_dir), "", 0, 0,
     "Filecoin .params/.vk and circom .zkey files; empty: $FIL_PROOFS_PARAMETER_CACHE or "
     "/var/tmp/filecoin-proof-parameters"},
    {"daemon", "pid_file", T_STR, O(pid_file), "", 0, 0, "write the process id here (empty: no file)"},
    {"daemon", "ready_file", T_STR, O(ready_file), "", 0, 0,
     "once listening, write {\"pid\",\"grpc_port\",\"metrics_port\"} JSON here (for scripts and tests)"},
    {"daemon", "grpc_threads", T_U64, O(grpc_threads), "2", 1, 64,
     "gRPC polling threads, one completion queue each (they never block: proofs run on the "
     "engine's threads)"},
    {"daemon", "max_message_size", T_BYTES, O(max_message_size), "256MiB", 1024, 2147483647,
     "largest request or reply message (a 32 GiB PoRep C1 output is about 51 MB)"},
    {"daemon", "max_concurrent_streams", T_U64, O(max_concurrent_streams), "1000", 1, 1u << 20,
     "HTTP/2 streams per connection (each holds at most a 64 KiB window of unread request bytes)"},
    {"daemon", "max_connections", T_U64, O(max_connections), "1024", 1, 1u << 20,
     "gRPC connections at once; more are refused, and health says NOT_SERVING while the limit "
     "is reached (lowered at start to fit the process's file descriptor limit)"},
    {"daemon", "handshake_timeout", T_DURATION, O(handshake_timeout_ms), "10s", 100, 600000,
     "a gRPC connection that sends nothing (or, with TLS, completes no handshake) this long is closed"},
    {"daemon", "max_client_resets", T_U64, O(max_client_resets), "1000", 0, 1u << 30,
     "a connection whose client cancels more calls than this in 10 s is closed (HTTP/2 rapid "
     "reset, CVE-2023-44487); 0 = no limit"},
    {"daemon", "max_concurrent_receives", T_U64, O(max_concurrent_receives), "8", 1, 4096,
     "authorized requests whose messages are read at once (each up to max_message_size); the "
     "others wait, holding only their stream's window"},
    {"daemon", "max_queued_bytes", T_BYTES, O(max_queued_bytes), "8GiB", 0, U64MAX,
     "payload bytes (C1 outputs, witnesses, vanilla proofs) held by unfinished jobs, outside "
     "memory.budget; submissions beyond it get RESOURCE_EXHAUSTED; 0 = no limit"},
    {"daemon", "metrics_max_connections", T_U64, O(metrics_max_connections), "64", 1, 65536,
     "HTTP connections at once on metrics_listen; more are closed at once"},
    {"daemon", "metrics_timeout", T_DURATION, O(metrics_timeout_ms), "10s", 100, 600000,
     "an HTTP request must arrive whole within this; slower connections get 408 and are closed"},
    {"daemon", "unix_socket_mode", T_MODE, O(unix_socket_mode), "0660", 0, 0777,
     "file mode of the unix socket (octal)"},
    {"daemon", "drain_grace", T_DURATION, O(drain_grace_ms), "60s", 0, 86400000,
     "on SIGTERM/SIGINT: how long running partitions may finish before the rest is "
     "cancelled (unfinished jobs stay journaled and run after the next start)"},
    {"daemon", "retention", T_DURATION, O(retention_ms), "24h", 1000, 365ull * 86400000,
     "finished jobs and their proofs are kept this long"},
    {"daemon", "max_queued_jobs", T_U64, O(max_queued_jobs), "10000", 1, 10000000,
     "submissions beyond this many queued jobs get RESOURCE_EXHAUSTED"},
    {"daemon", "auth_token", T_STR, O(auth_token), "", 0, 0,
     "if set, every call except health checks needs the metadata 'authorization: Bearer TOKEN'"},
    {"daemon", "auth_token_file", T_STR, O(auth_token_file), "", 0, 0,
     "read the token from this file instead (its first line, surrounding blanks removed); a "
     "file that is unreadable or holds no token stops the start"},
    {"memory", "budget", T_BYTES, O(memory_budget), "0", 0, U64MAX,
     "bytes the engine may use for parameters and partitions; 0 = physical memory minus the margin"},
    {"memory", "margin", T_BYTES, O(memory_margin), "5GiB", 0, U64MAX,
     "memory left to the system when the budget is automatic"},
    {"memory", "pinned_limit", T_BYTES, O(pinned_limit), "0", 0, U64MAX,
     "pinned (page-locked) host memory; 0 = no limit beyond the budget"},
    {"memory", "pageable_buffers", T_BOOL, O(pageable_buffers), "false", 0, 0,
     "true: no pinned pool (slower host-device copies; to measure what pinning buys)"},
    {"memory", "srs_idle_evict", T_DURATION, O(srs_idle_evict_ms), "5m", 0, U64MAX,
     "parameter sets unused this long may be evicted under memory pressure"},
    {"params", "test_generate", T_BOOL, O(test_params), "false", 0, 0,
     "INSECURE, for benchmarks: make czk TEST parameters in memory for a Filecoin circuit "
     "whose .params is missing (on the GPUs; .vk and .meta written to param_dir)"},
    {"gpus", "mode", T_STR, O(gpu_mode), "auto", 0, 0,
     "auto (GPUs when present, else the CPU prover), cpu, or gpu (fail without one)"},
    {"gpus", "devices", T_STR, O(gpu_devices), "", 0, 0,
     "comma-separated CUDA ordinals to use; empty = all"},
    {"gpus", "workers_per_device", T_U64, O(gpu_workers_per_device), "2", 1, 16,
     "prove workers per GPU (two overlap one's host work with the other's kernels)"},
    {"gpus", "memory_limit", T_BYTES, O(gpu_memory_limit), "0", 0, U64MAX,
     "device memory czk plans each GPU's proofs within (resident bases, the rest streamed); "
     "0 = what the GPU has free at start, less a margin"},
    {"gpus", "pack_copies", T_BOOL, O(gpu_pack_copies), "false", 0, 0,
     "pack partitions after synthesis (bitmaps of their 0s and 1s, the other values): the GPU "
     "copies a fraction of the bytes; costs pinned memory (up to a sixth of a partition)"},
    {"gpus", "spin_wait", T_BOOL, O(gpu_spin_wait), "false", 0, 0,
     "threads waiting for a GPU spin (CUDA's default) instead of blocking; blocking leaves "
     "their cores to synthesis"},
    {"synthesis", "threads", T_U64, O(synthesis_threads), "0", 0, 4096,
     "threads of the math pool; 0 = all CPUs"},
    {"synthesis", "workers", T_U64, O(synthesis_workers), "0", 0, 1024,
     "partitions synthesized at once; 0 = sized from the memory budget"},
    {"synthesis", "nice", T_U64, O(synthesis_nice), "10", 0, 19,
     "synthesis threads run this many nice steps below the GPU-feeding threads, which then "
     "get a core at once on a full host"},
    {"logging", "level", T_STR, O(log_level), "info", 0, 0, "trace, debug, info, warn, error or off"},
    {"logging", "format", T_STR, O(log_format), "logfmt", 0, 0, "logfmt or json (one object per line)"},
    {"logging", "grpc_verbosity", T_STR, O(grpc_verbosity), "error", 0, 0,
     "gRPC's own messages passed into the log: error, info or debug"},
    {"tls", "cert", T_STR, O(tls_cert), "", 0, 0, "PEM server certificate (chain); set with key to serve TLS"},
    {"tls", "key", T_STR, O(tls_key), "", 0, 0, "PEM private key of the certificate"},
    {"tls", "client_ca", T_STR, O(tls_client_ca), "", 0, 0,
     "PEM CA bundle: clients must present a certificate it signed (mTLS)"},
    {"timeline", "enabled", T_BOOL, O(timeline_enabled), "true", 0, 0,
     "write every engine event (queued, per-partition synthesis and prover spans, done) as a "
     "JSON line, for `czk timeline` to draw"},
    {"timeline", "path", T_STR, O(timeline_path), "", 0, 0,
     "the event log; empty = <data_dir>/timeline.jsonl"},
    {"timeline", "max_size", T_BYTES, O(timeline_max_size), "64MiB", 4096, U64MAX,
     "rotate the event log when it passes this size (a 32 GiB PoRep job writes about 6 KiB: 45 lines)"},
    {"timeline", "keep", T_U64, O(timeline_keep), "3", 0, 100,
     "rotated event logs kept (timeline.jsonl.1 is the newest)"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

static char **str_field(czk_daemon_config *c, const opt *o) { return (char **)((char *)c + o->off); }
static uint64_t *u64_field(czk_daemon_config *c, const opt *o) { return (uint64_t *)((char *)c + o->off); }
static bool *bool_field(czk_daemon_config *c, const opt *o) { return (bool *)((char *)c + o->off); }

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = czk_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

bool czk__parse_bytes(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s)) return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return false;
    while (*end == ' ') end++;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    /* 5GiB, 5GB and 5G all mean 5 * 2^30: memory is counted in binary units. */
    if (shift && (end[0] == 'i' || end[0] == 'I') && (end[1] == 'B' || end[1] == 'b')) end += 2;
    else if (*end == 'B' || *end == 'b') end++;
    if (*end) return false;
    if (shift && v > (UINT64_MAX >> shift)) return false;
    *out = (uint64_t)v << shift;
    return true;
}

bool czk__parse_duration_ms(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s)) return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return false;
    uint64_t mul;
    if (strcmp(end, "ms") == 0) mul = 1;
    else if (*end == 0 || strcmp(end, "s") == 0) mul = 1000;
    else if (strcmp(end, "m") == 0) mul = 60000;
    else if (strcmp(end, "h") == 0) mul = 3600000;
    else if (strcmp(end, "d") == 0) mul = 86400000;
    else return false;
    if (v > UINT64_MAX / mul) return false;
    *out = v * mul;
    return true;
}

static czk_status set_opt(czk_daemon_config *c, const opt *o, const char *v, czk_err *err)
{
    uint64_t x = 0;
    switch (o->type) {
    case T_STR: {
        char *d = dupstr(v);
        if (!d) return czk_err_set(err, CZK_ENOMEM, "%s.%s: out of memory", o->section, o->key);
        czk_free(*str_field(c, o));
        *str_field(c, o) = d;
        return CZK_OK;
    }
    case T_BOOL:
        if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1"))
            *bool_field(c, o) = true;
        else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0"))
            *bool_field(c, o) = false;
        else
            return czk_err_set(err, CZK_EINVAL, "%s.%s: '%s' is not true or false", o->section,
                               o->key, v);
        return CZK_OK;
    case T_U64: {
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)*v)) goto bad;
        x = strtoull(v, &end, 10);
        if (errno || *end) goto bad;
        break;
    }
    case T_MODE: {
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)*v)) goto bad;
        x = strtoull(v, &end, 8);
        if (errno || *end) goto bad;
        break;
    }
    case T_BYTES:
        if (!czk__parse_bytes(v, &x)) goto bad;
        break;
    case T_DURATION:
        if (!czk__parse_duration_ms(v, &x)) goto bad;
        break;
    }
    if (x < o->min || x > o->max)
        return czk_err_set(err, CZK_EINVAL, "%s.%s: %s is out of range [%llu, %llu]", o->section,
                           o->key, v, (unsigned long long)o->min, (unsigned long long)o->max);
    *u64_field(c, o) = x;
    return CZK_OK;
bad: {
    static const char *const what[] = {"", "a number", "a size (e.g. 5GiB)",
                                       "a duration (e.g. 30s, 5m, 24h)", "", "an octal mode"};
    return czk_err_set(err, CZK_EINVAL, "%s.%s: '%s' is not %s", o->section, o->key, v,
                       what[o->type]);
}
}

void czk__config_defaults(czk_daemon_config *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < NOPTS; i++) {
        czk_status st = set_opt(c, &opts[i], opts[i].def, NULL);
        (void)st; /* the defaults are in range: test_server_units checks every row */
    }
}

void czk__config_free(czk_daemon_config *c)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (opts[i].type == T_STR) {
            czk_free(*str_field(c, &opts[i]));
            *str_field(c, &opts[i]) = NULL;
        }
}

/* Flags spell "section-key" with dashes ("daemon-max-message-size"); the file uses
 * "max_message_size". Both are accepted everywhere. */
static bool key_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '-' ? '_' : (char)tolower((unsigned char)*a);
        char y = *b == '-' ? '_' : (char)tolower((unsigned char)*b);
        if (x != y) return false;
    }
    return *a == *b;
}

czk_status czk__config_set(czk_daemon_config *c, const char *section, const char *key,
                           const char *value, czk_err *err)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (key_eq(opts[i].section, section) && key_eq(opts[i].key, key))
            return set_opt(c, &opts[i], value, err);
    return czk_err_set(err, CZK_EINVAL, "unknown option %s.%s", section, key);
}

typedef struct ini_ctx {
    czk_daemon_config *c;
    czk_err *err;
    czk_status st;
    const char *name;
} ini_ctx;

static int on_ini_entry(void *user, const char *section, const char *name, const char *value)
{
    ini_ctx *x = user;
    if (x->st != CZK_OK) return 0;
    char v[4096];
    size_t n = strlen(value);
    /* TOML-style quoting ("unix:/run/czk.sock") is accepted and stripped. */
    if (n >= 2 && ((value[0] == '"' && value[n - 1] == '"') || (value[0] == '\'' && value[n - 1] == '\''))) {
        value++;
        n -= 2;
    }
    if (n >= sizeof v) {
        x->st = czk_err_set(x->err, CZK_EINVAL, "%s: %s.%s: value too long", x->name, section, name);
        return 0;
    }
    memcpy(v, value, n);
    v[n] = 0;
    czk_err e;
    x->st = czk__config_set(x->c, section, name, v, &e);
    if (x->st != CZK_OK) {
        czk_err_set(x->err, x->st, "%s: %s", x->name, e.msg);
        return 0;
    }
    return 1;
}

czk_status czk__config_parse_string(czk_daemon_config *c, const char *text, const char *name,
                                    czk_err *err)
{
    ini_ctx x = {c, err, CZK_OK, name};
    int line = ini_parse_string(text, on_ini_entry, &x);
    if (x.st != CZK_OK) return x.st;
    if (line != 0)
        return czk_err_set(err, CZK_EFORMAT, "%s:%d: syntax error (expected [section] or key = value)",
                           name, line);
    return CZK_OK;
}

czk_status czk__config_load_file(czk_daemon_config *c, const char *path, czk_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f) return czk_err_set(err, CZK_ENOENT, "config file %s: %s", path, strerror(errno));
    ini_ctx x = {c, err, CZK_OK, path};
    int line = ini_parse_file(f, on_ini_entry, &x);
    fclose(f);
    if (x.st != CZK_OK) return x.st;
    if (line != 0)
        return czk_err_set(err, CZK_EFORMAT, "%s:%d: syntax error (expected [section] or key = value)",
                           path, line);
    return CZK_OK;
}

czk_status czk__config_load_env(czk_daemon_config *c, czk_err *err)
{
    for (size_t i = 0; i < NOPTS; i++) {
        char name[96];
        int n = snprintf(name, sizeof name, "CZKD_%s_%s", opts[i].section, opts[i].key);
        for (int k = 0; k < n; k++) name[k] = (char)toupper((unsigned char)name[k]);
        const char *v = getenv(name);
        if (!v) continue;
        czk_err e;
        czk_status st = set_opt(c, &opts[i], v, &e);
        if (st != CZK_OK) return czk_err_set(err, st, "environment %s: %s", name, e.msg);
    }
    /* rust-fil-proofs' own setting, where czk's leaves the parameter directory unset. */
    const char *fil = getenv("FIL_PROOFS_PARAMETER_CACHE");
    if ((c->param_dir == NULL || c->param_dir[0] == '\0') && fil != NULL && fil[0] != '\0') {
        for (size_t i = 0; i < NOPTS; i++) {
            if (strcmp(opts[i].section, "daemon") != 0 || strcmp(opts[i].key, "param_dir") != 0)
                continue;
            czk_err e;
            czk_status st = set_opt(c, &opts[i], fil, &e);
            if (st != CZK_OK)
                return czk_err_set(err, st, "environment FIL_PROOFS_PARAMETER_CACHE: %s", e.msg);
        }
    }
    return CZK_OK;
}

static void format_value(const czk_daemon_config *c, const opt *o, char *buf, size_t n)
{
    czk_daemon_config *m = (czk_daemon_config *)c;
    uint64_t v = o->type == T_STR || o->type == T_BOOL ? 0 : *u64_field(m, o);
    switch (o->type) {
    case T_STR: {
        const char *s = *str_field(m, o);
        snprintf(buf, n, "%s", s ? s : "");
        break;
    }
    case T_BOOL: snprintf(buf, n, "%s", *bool_field(m, o) ? "true" : "false"); break;
    case T_MODE: snprintf(buf, n, "0%03llo", (unsigned long long)v); break;
    case T_U64: snprintf(buf, n, "%llu", (unsigned long long)v); break;
    case T_BYTES: {
        static const char *const units[] = {"", "KiB", "MiB", "GiB", "TiB"};
        unsigned u = 0;
        while (u < 4 && v && (v & 1023) == 0) {
            v >>= 10;
            u++;
        }
        snprintf(buf, n, "%llu%s", (unsigned long long)v, units[u]);
        break;
    }
    case T_DURATION:
        if (v % 3600000 == 0 && v) snprintf(buf, n, "%lluh", (unsigned long long)(v / 3600000));
        else if (v % 60000 == 0 && v) snprintf(buf, n, "%llum", (unsigned long long)(v / 60000));
        else if (v % 1000 == 0) snprintf(buf, n, "%llus", (unsigned long long)(v / 1000));
        else snprintf(buf, n, "%llums", (unsigned long long)v);
        break;
    }
}

void czk__config_write(const czk_daemon_config *c, FILE *f, bool with_help)
{
    if (with_help)
        fprintf(f, "# czkd configuration: every option, set to its default.\n"
                   "# Precedence, lowest first: defaults, this file (czkd --config FILE), the\n"
                   "# environment (CZKD_<SECTION>_<KEY>, e.g. CZKD_DAEMON_LISTEN), then flags\n"
                   "# (--listen, --metrics-listen, --data-dir, --param-dir, or --SECTION-KEY=VALUE\n"
                   "# for any option, e.g. --memory-budget=200GiB). Sizes take KiB/MiB/GiB/TiB,\n"
                   "# durations ms/s/m/h/d. Generated by `czkd --sample-config`.\n");
    const char *cur = "";
    for (size_t i = 0; i < NOPTS; i++) {
        const opt *o = &opts[i];
        if (strcmp(cur, o->section) != 0) {
            fprintf(f, "%s[%s]\n", i ? "\n" : (with_help ? "\n" : ""), o->section);
            cur = o->section;
        }
        char v[4096];
        format_value(c, o, v, sizeof v);
        if (with_help) fprintf(f, "# %s\n", o->help);
        /* Never print the secret itself in a dump. */
        if (!with_help && o->off == O(auth_token) && v[0]) snprintf(v, sizeof v, "<set>");
        fprintf(f, "%s = %s\n", o->key, v);
    }
}

czk_status czk__config_to_engine(const czk_daemon_config *c, czk_engine_config *ec, int **gpus,
                                 czk_err *err)
{
    memset(ec, 0, sizeof *ec);
    *gpus = NULL;
    ec->data_dir = c->data_dir && *c->data_dir ? c->data_dir : NULL;
    ec->param_dir = c->param_dir && *c->param_dir ? c->param_dir : NULL;
    ec->memory_budget = c->memory_budget;
    ec->memory_margin = c->memory_margin;
    ec->pinned_limit = c->pinned_limit;
    ec->pageable_buffers = c->pageable_buffers;
    ec->test_params = c->test_params;
    ec->synthesis_threads = (unsigned)c->synthesis_threads;
    ec->synthesis_workers = (unsigned)c->synthesis_workers;
    ec->synthesis_nice = (unsigned)c->synthesis_nice;
    ec->gpu_workers_per_device = (unsigned)c->gpu_workers_per_device;
    ec->gpu_pack_copies = c->gpu_pack_copies;
    ec->gpu_spin_wait = c->gpu_spin_wait;
    ec->gpu_memory_limit = c->gpu_memory_limit;
    /* Zero means "default" in the engine's config, so a 0 s value becomes 1 ms. */
    ec->retention_s = c->retention_ms / 1000 ? c->retention_ms / 1000 : 1;
    ec->srs_idle_evict_s = c->srs_idle_evict_ms / 1000 ? c->srs_idle_evict_ms / 1000 : 1;
    ec->max_queued_jobs = (unsigned)c->max_queued_jobs;
    ec->max_queued_bytes = c->max_queued_bytes;
    if (!strcmp(c->gpu_mode, "auto")) ec->gpu_mode = 0;
    else if (!strcmp(c->gpu_mode, "cpu")) ec->gpu_mode = 1;
    else if (!strcmp(c->gpu_mode, "gpu")) ec->gpu_mode = 2;
    else return czk_err_set(err, CZK_EINVAL, "gpus.mode: '%s' is not auto, cpu or gpu", c->gpu_mode);
    if (c->gpu_devices && *c->gpu_devices) {
        size_t n = 1;
        for (const char *p = c->gpu_devices; *p; p++) n += *p == ',';
        int *g = czk_malloc(n * sizeof *g);
        if (!g) return czk_err_set(err, CZK_ENOMEM, "gpus.devices: out of memory");
        const char *p = c->gpu_devices;
        for (size_t i = 0; i < n; i++) {
            char *end;
            while (*p == ' ') p++;
            long v = strtol(p, &end, 10);
            while (*end == ' ') end++;
            if (end == p || v < 0 || v > 1023 || (*end && *end != ',')) {
                czk_free(g);
                return czk_err_set(err, CZK_EINVAL,
                                   "gpus.devices: '%s' is not a comma-separated list of ordinals",
                                   c->gpu_devices);
            }
            g[i] = (int)v;
            p = *end ? end + 1 : end;
        }
        ec->gpus = g;
        ec->ngpus = n;
        *gpus = g;
    }
    czk_log_level lv;
    if (!czk_log_level_parse(c->log_level, &lv))
        return czk_err_set(err, CZK_EINVAL, "logging.level: '%s' is not trace, debug, info, warn, "
                                            "error or off", c->log_level);
    if (strcmp(c->log_format, "logfmt") && strcmp(c->log_format, "json"))
        return czk_err_set(err, CZK_EINVAL, "logging.format: '%s' is not logfmt or json", c->log_format);
    if (strcmp(c->grpc_verbosity, "error") && strcmp(c->grpc_verbosity, "info") &&
        strcmp(c->grpc_verbosity, "debug"))
        return czk_err_set(err, CZK_EINVAL, "logging.grpc_verbosity: '%s' is not error, info or debug",
                           c->grpc_verbosity);
    if ((c->tls_cert[0] != 0) != (c->tls_key[0] != 0))
        return czk_err_set(err, CZK_EINVAL, "tls.cert and tls.key must be set together");
    if (c->tls_client_ca[0] && !c->tls_cert[0])
        return czk_err_set(err, CZK_EINVAL, "tls.client_ca needs tls.cert and tls.key");
    return CZK_OK;
}
