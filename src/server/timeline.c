/*
 * The daemon's timeline: every engine event (czk_engine_watch with job_id NULL) as one
 * JSON object per line in <data_dir>/timeline.jsonl, which `czk timeline` draws as a
 * waterfall. The watch callback runs on the engine's event thread and must not block, so
 * it only formats the line into a memory buffer; a thread of our own writes the buffer
 * out, rotates the file by size and keeps `keep` old files (timeline.jsonl.1 is the
 * newest of them). If the disk stalls for long enough that the buffer passes BUF_MAX,
 * events are dropped and counted rather than letting the daemon's memory grow.
 */
#include "server.h"

#include "czk/alloc.h"
#include "czk/log.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* About 40,000 events at ~200 bytes a line: minutes of a busy 8-GPU host. */
#define BUF_MAX (8u << 20)

struct czk_timeline {
    czk_engine *engine;
    uint64_t watch;
    char *path;
    uint64_t max_size;
    unsigned keep;
    FILE *f;
    uint64_t size; /* bytes in the current file */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *buf; /* lines not yet written (mu) */
    size_t n, cap;
    bool stop;
    uint64_t dropped; /* events lost to a full buffer (mu) */
};

/* Append text to the pending buffer (mu held); false when it would pass BUF_MAX. */
static bool buf_add(czk_timeline *t, const char *s, size_t len)
{
    if (t->n + len > BUF_MAX) return false;
    if (t->n + len > t->cap) {
        size_t cap = t->cap ? t->cap : 16384;
        while (cap < t->n + len) cap *= 2;
        char *nb = czk_realloc(t->buf, cap);
        if (nb == NULL) return false;
        t->buf = nb;
        t->cap = cap;
    }
    memcpy(t->buf + t->n, s, len);
    t->n += len;
    return true;
}

/* A JSON string body: quotes, backslashes and control characters escaped. */
static size_t json_escape(char *out, size_t cap, const char *s)
{
    size_t k = 0;
    for (; *s && k + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[k++] = '\\';
            out[k++] = (char)c;
        } else if (c < 0x20) {
            k += (size_t)snprintf(out + k, cap - k, "\\u%04x", c);
        } else {
            out[k++] = (char)c;
        }
    }
    out[k] = 0;
    return k;
}

static void on_event(void *ctx, const czk_job_event *ev)
{
    czk_timeline *t = ctx;
    char line[1024], msg[600];
    json_escape(msg, sizeof msg, ev->message);
    int n = snprintf(line, sizeof line,
                     "{\"t_us\":%" PRIu64 ",\"job\":\"%s\",\"event\":\"%s\",\"partition\":%d,"
                     "\"worker\":\"%s\"",
                     ev->unix_us, ev->job_id, czk_job_event_name(ev->type), (int)ev->partition,
                     ev->worker);
    /* The queued event names the job's kind and circuit once, so that the drawing can
     * label rows without asking the daemon (czk_engine_get is allowed from a watch). */
    if (ev->type == CZK_EV_QUEUED) {
        czk_job_info info;
        memset(&info, 0, sizeof info);
        if (czk_engine_get(t->engine, ev->job_id, false, &info, NULL) == CZK_OK)
            n += snprintf(line + n, sizeof line - (size_t)n,
                          ",\"kind\":\"%s\",\"circuit\":\"%s\",\"priority\":%d",
                          czk_job_kind_name(info.kind), info.circuit_id, (int)info.priority);
        czk_job_info_clear(&info);
    }
    if (msg[0]) n += snprintf(line + n, sizeof line - (size_t)n, ",\"message\":\"%s\"", msg);
    n += snprintf(line + n, sizeof line - (size_t)n, "}\n");
    if (n >= (int)sizeof line) return; /* cannot happen with the field sizes above */
    pthread_mutex_lock(&t->mu);
    if (buf_add(t, line, (size_t)n)) pthread_cond_signal(&t->cv);
    else t->dropped++;
    pthread_mutex_unlock(&t->mu);
}

/* timeline.jsonl → .1 → .2 ... (the oldest beyond `keep` is overwritten), then a new file. */
static void rotate(czk_timeline *t)
{
    if (t->f) fclose(t->f);
    t->f = NULL;
    size_t cap = strlen(t->path) + 24;
    char *from = czk_malloc(cap), *to = czk_malloc(cap);
    if (from && to) {
        if (t->keep == 0) {
            remove(t->path);
        } else {
            for (unsigned i = t->keep; i > 1; i--) {
                snprintf(from, cap, "%s.%u", t->path, i - 1);
                snprintf(to, cap, "%s.%u", t->path, i);
                rename(from, to); /* a missing file is fine: fewer rotations so far */
            }
            snprintf(to, cap, "%s.1", t->path);
            rename(t->path, to);
        }
    }
    czk_free(from);
    czk_free(to);
    t->f = fopen(t->path, "a");
    t->size = 0;
    if (t->f == NULL)
        CZK_LOG_WARN("timeline: cannot reopen after rotation", "path=%s error=\"%s\"", t->path,
                     strerror(errno));
}

static void *writer_main(void *arg)
{
    czk_timeline *t = arg;
    char *out = NULL;
    size_t out_cap = 0;
    uint64_t reported_drops = 0;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (t->n == 0 && !t->stop) pthread_cond_wait(&t->cv, &t->mu);
        if (t->n == 0 && t->stop) break;
        /* Swap buffers so that the engine's thread never waits for the disk. */
        char *b = t->buf;
        size_t n = t->n, c = t->cap;
        t->buf = out;
        t->cap = out_cap;
        t->n = 0;
        uint64_t dropped = t->dropped;
        pthread_mutex_unlock(&t->mu);
        if (dropped != reported_drops) {
            CZK_LOG_WARN("timeline: events dropped (the writer fell behind)", "dropped=%" PRIu64,
                         dropped);
            reported_drops = dropped;
        }
        if (t->f != NULL) {
            /* Rotate at line boundaries only: each file stays valid JSON lines. */
            size_t at = 0;
            while (at < n && t->f != NULL) {
                const char *nl = memchr(b + at, '\n', n - at);
                size_t len = nl ? (size_t)(nl - (b + at)) + 1 : n - at;
                if (t->size > 0 && t->size + len > t->max_size) rotate(t);
                if (t->f == NULL) break;
                if (fwrite(b + at, 1, len, t->f) != len) {
                    CZK_LOG_WARN("timeline: write failed", "path=%s error=\"%s\"", t->path,
                                 strerror(errno));
                }
                t->size += len;
                at += len;
            }
            if (t->f) fflush(t->f);
        }
        out = b;
        out_cap = c;
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    czk_free(out);
    return NULL;
}

czk_status czk__timeline_start(czk_timeline **out, czk_engine *engine, const char *path,
                               uint64_t max_size, unsigned keep, czk_err *err)
{
    *out = NULL;
    czk_timeline *t = czk_calloc(1, sizeof *t);
    size_t plen = strlen(path) + 1;
    if (t == NULL || (t->path = czk_malloc(plen)) == NULL) {
        czk_free(t);
        return czk_err_set(err, CZK_ENOMEM, "timeline: out of memory");
    }
    memcpy(t->path, path, plen);
    t->engine = engine;
    t->max_size = max_size;
    t->keep = keep;
    t->f = fopen(path, "a");
    if (t->f == NULL) {
        czk_status st = czk_err_set(err, CZK_EIO, "timeline.path: cannot open %s: %s", path,
                                    strerror(errno));
        czk_free(t->path);
        czk_free(t);
        return st;
    }
    struct stat sb;
    t->size = fstat(fileno(t->f), &sb) == 0 ? (uint64_t)sb.st_size : 0;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    if (pthread_create(&t->thread, NULL, writer_main, t) != 0) {
        fclose(t->f);
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        czk_free(t->path);
        czk_free(t);
        return czk_err_set(err, CZK_ENOMEM, "timeline: cannot start the writer thread");
    }
    czk_status st = czk_engine_watch(engine, NULL, on_event, t, &t->watch, err);
    if (st != CZK_OK) {
        t->watch = 0;
        czk__timeline_stop(t);
        return st;
    }
    *out = t;
    return CZK_OK;
}

void czk__timeline_stop(czk_timeline *t)
{
    if (t == NULL) return;
    /* After unwatch returns the callback is not running and will not run again, so the
     * writer's last pass sees every event the engine delivered. */
    if (t->watch) czk_engine_unwatch(t->engine, t->watch);
    pthread_mutex_lock(&t->mu);
    t->stop = true;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
    if (t->f) fclose(t->f);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    czk_free(t->buf);
    czk_free(t->path);
    czk_free(t);
}
