#include "czk/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

volatile int czk_log_min_level = CZK_LOG_INFO;

static czk_log_format log_format = CZK_LOG_LOGFMT;
static FILE *log_stream = NULL;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const level_names[] = {"trace", "debug", "info", "warn", "error", "off"};

void czk_log_set_level(czk_log_level level) { czk_log_min_level = (int)level; }
void czk_log_set_format(czk_log_format format) { log_format = format; }
void czk_log_set_stream(FILE *f) { log_stream = f; }

const char *czk_log_level_name(czk_log_level level)
{
    if ((unsigned)level > CZK_LOG_OFF) return "unknown";
    return level_names[level];
}

bool czk_log_level_parse(const char *s, czk_log_level *out)
{
    for (int i = 0; i <= CZK_LOG_OFF; i++) {
        if (strcmp(s, level_names[i]) == 0) {
            *out = (czk_log_level)i;
            return true;
        }
    }
    return false;
}

/* Append `s` to buf as a quoted string, escaping quotes, backslashes and control bytes. */
static size_t put_quoted(char *buf, size_t pos, size_t cap, const char *s, size_t n)
{
    if (pos < cap) buf[pos++] = '"';
    for (size_t i = 0; i < n && pos + 7 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            buf[pos++] = '\\';
            buf[pos++] = (char)c;
        } else if (c == '\n') {
            buf[pos++] = '\\';
            buf[pos++] = 'n';
        } else if (c < 0x20) {
            pos += (size_t)snprintf(buf + pos, cap - pos, "\\u%04x", c);
        } else {
            buf[pos++] = (char)c;
        }
    }
    if (pos < cap) buf[pos++] = '"';
    return pos;
}

static bool needs_quotes(const char *s, size_t n)
{
    if (n == 0) return true;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '"' || s[i] == '=' || (unsigned char)s[i] < 0x20) return true;
    return false;
}

/*
 * Split "k1=v1 k2=v2" into pairs. A value may be double-quoted to hold spaces. JSON mode
 * writes every value as a string except plain integers.
 */
static size_t put_fields(char *buf, size_t pos, size_t cap, const char *kv)
{
    const char *p = kv;
    while (*p && pos + 8 < cap) {
        while (*p == ' ') p++;
        if (!*p) break;
        const char *k = p;
        while (*p && *p != '=' && *p != ' ') p++;
        size_t klen = (size_t)(p - k);
        const char *v = "";
        size_t vlen = 0;
        if (*p == '=') {
            p++;
            if (*p == '"') {
                v = ++p;
                while (*p && *p != '"') p++;
                vlen = (size_t)(p - v);
                if (*p == '"') p++;
            } else {
                v = p;
                while (*p && *p != ' ') p++;
                vlen = (size_t)(p - v);
            }
        }
        if (log_format == CZK_LOG_JSON) {
            buf[pos++] = ',';
            pos = put_quoted(buf, pos, cap, k, klen);
            if (pos < cap) buf[pos++] = ':';
            bool numeric = vlen > 0 && vlen < 19;
            for (size_t i = 0; i < vlen && numeric; i++)
                if (!((v[i] >= '0' && v[i] <= '9') || (i == 0 && v[i] == '-' && vlen > 1)))
                    numeric = false;
            if (numeric) {
                pos += (size_t)snprintf(buf + pos, cap - pos, "%.*s", (int)vlen, v);
            } else {
                pos = put_quoted(buf, pos, cap, v, vlen);
            }
        } else {
            pos += (size_t)snprintf(buf + pos, cap - pos, " %.*s=", (int)klen, k);
            if (pos >= cap) break;
            if (needs_quotes(v, vlen))
                pos = put_quoted(buf, pos, cap, v, vlen);
            else
                pos += (size_t)snprintf(buf + pos, cap - pos, "%.*s", (int)vlen, v);
        }
        if (pos >= cap) pos = cap - 1;
    }
    return pos;
}

void czk_log_write(czk_log_level level, const char *file, int line, const char *msg,
                   const char *kvfmt, ...)
{
    char ts[40];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    size_t tl = strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + tl, sizeof ts - tl, ".%03ldZ", now.tv_nsec / 1000000L);

    char kv[1024] = "";
    if (kvfmt != NULL) {
        va_list ap;
        va_start(ap, kvfmt);
        vsnprintf(kv, sizeof kv, kvfmt, ap);
        va_end(ap);
    }
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;

    char buf[2048];
    size_t cap = sizeof buf - 2, pos = 0;
    if (log_format == CZK_LOG_JSON) {
        pos += (size_t)snprintf(buf, cap, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":", ts,
                                czk_log_level_name(level));
        pos = put_quoted(buf, pos, cap, msg, strlen(msg));
        pos = put_fields(buf, pos, cap, kv);
        pos += (size_t)snprintf(buf + pos, cap - pos, ",\"src\":\"%s:%d\"}", base, line);
    } else {
        pos += (size_t)snprintf(buf, cap, "ts=%s level=%s msg=", ts, czk_log_level_name(level));
        pos = put_quoted(buf, pos, cap, msg, strlen(msg));
        pos = put_fields(buf, pos, cap, kv);
        if (pos < cap) pos += (size_t)snprintf(buf + pos, cap - pos, " src=%s:%d", base, line);
    }
    if (pos > cap) pos = cap;
    buf[pos++] = '\n';
    FILE *out = log_stream ? log_stream : stderr;
    pthread_mutex_lock(&log_lock);
    fwrite(buf, 1, pos, out);
    fflush(out);
    pthread_mutex_unlock(&log_lock);
}
