/*
 * czk timeline: draw a run of czkd as an SVG waterfall.
 *
 * Input: the daemon's event log (<data_dir>/timeline.jsonl, one JSON object per engine
 * event) or a live daemon (--addr: the jobs it lists, each job's event history through
 * czk.v1 WatchJob). Output: one row per partition (queue wait, synthesis, wait for a
 * prover, the prover span with its worker) and, above them, one lane per prover device
 * (gpu0, gpu1, ..., cpu) with its busy time and the idle gaps between its first and last
 * span highlighted, since those gaps are what a pipelined prover exists to close. The
 * title gives each device's busy share of that interval.
 *
 * The SVG is written by hand: it is our output, and every element carries a class and
 * data-* attributes so that tests (and scripts) can read the drawing back.
 */
#include "czk/alloc.h"
#include "czk/engine.h"
#include "cli.h"
#include "server.h"

#include "czk/v1/czk.pb-c.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------ */
/* The model: jobs, their partitions, and the prover lanes                               */
/* ------------------------------------------------------------------------------------ */

typedef struct part {
    int idx;
    uint64_t synth_start, synth_end, prove_start, prove_end; /* unix µs, 0 = not seen */
    char synth_worker[32], prove_worker[32];
} part;

typedef struct job {
    char id[CZK_JOB_ID_MAX];
    char kind[16], circuit[64];
    uint64_t t_queued, t_first, t_last, t_end;
    char end_state[16]; /* "done", "failed", "cancelled", "" while running */
    uint64_t params_start, params_end;
    part *parts;
    size_t nparts, cap;
} job;

typedef struct model {
    job *jobs;
    size_t njobs, cap;
    uint64_t nevents;
    /* Job index by id: open addressing, slot = index + 1 (0 empty). A full 64 MiB log
     * holds some 400,000 events of up to tens of thousands of jobs, too many for a scan
     * per event. */
    size_t *slots;
    size_t nslots;
} model;

static uint64_t hash_id(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static bool rehash(model *m, size_t nslots)
{
    size_t *ns = czk_calloc(nslots, sizeof *ns);
    if (ns == NULL) return false;
    for (size_t i = 0; i < m->njobs; i++) {
        size_t k = (size_t)hash_id(m->jobs[i].id) & (nslots - 1);
        while (ns[k]) k = (k + 1) & (nslots - 1);
        ns[k] = i + 1;
    }
    czk_free(m->slots);
    m->slots = ns;
    m->nslots = nslots;
    return true;
}

static job *find_or_add_job(model *m, const char *id)
{
    if (2 * (m->njobs + 1) > m->nslots && !rehash(m, m->nslots ? 2 * m->nslots : 64)) return NULL;
    size_t k = (size_t)hash_id(id) & (m->nslots - 1);
    for (; m->slots[k]; k = (k + 1) & (m->nslots - 1))
        if (!strcmp(m->jobs[m->slots[k] - 1].id, id)) return &m->jobs[m->slots[k] - 1];
    if (m->njobs == m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 16;
        job *nj = czk_realloc(m->jobs, nc * sizeof *nj);
        if (nj == NULL) return NULL;
        m->jobs = nj;
        m->cap = nc;
    }
    job *j = &m->jobs[m->njobs++];
    memset(j, 0, sizeof *j);
    snprintf(j->id, sizeof j->id, "%s", id);
    m->slots[k] = m->njobs;
    return j;
}

static part *find_or_add_part(job *j, int idx)
{
    for (size_t i = 0; i < j->nparts; i++)
        if (j->parts[i].idx == idx) return &j->parts[i];
    if (j->nparts == j->cap) {
        size_t nc = j->cap ? 2 * j->cap : 16;
        part *np = czk_realloc(j->parts, nc * sizeof *np);
        if (np == NULL) return NULL;
        j->parts = np;
        j->cap = nc;
    }
    part *p = &j->parts[j->nparts++];
    memset(p, 0, sizeof *p);
    p->idx = idx;
    return p;
}

static void model_free(model *m)
{
    for (size_t i = 0; i < m->njobs; i++) czk_free(m->jobs[i].parts);
    czk_free(m->jobs);
    czk_free(m->slots);
    memset(m, 0, sizeof *m);
}

/* One event into the model. Unknown event names are ignored: newer daemons may add some. */
static bool model_add(model *m, const char *job_id, const char *ev, int partition,
                      const char *worker, uint64_t t, const char *kind, const char *circuit)
{
    if (!job_id[0] || t == 0) return true;
    job *j = find_or_add_job(m, job_id);
    if (j == NULL) return false;
    m->nevents++;
    if (j->t_first == 0 || t < j->t_first) j->t_first = t;
    if (t > j->t_last) j->t_last = t;
    if (kind && kind[0]) snprintf(j->kind, sizeof j->kind, "%s", kind);
    if (circuit && circuit[0]) snprintf(j->circuit, sizeof j->circuit, "%s", circuit);
    if (!strcmp(ev, "queued")) {
        j->t_queued = t;
    } else if (!strcmp(ev, "params_loading")) {
        j->params_start = t;
    } else if (!strcmp(ev, "params_loaded")) {
        j->params_end = t;
    } else if (!strcmp(ev, "done") || !strcmp(ev, "failed") || !strcmp(ev, "cancelled")) {
        if (t < j->t_end) return true; /* an older terminal event of a resubmitted id */
        j->t_end = t;
        snprintf(j->end_state, sizeof j->end_state, "%s", ev);
    } else if (partition >= 0 && (!strcmp(ev, "partition_synth_start") ||
                                  !strcmp(ev, "partition_synthesized") ||
                                  !strcmp(ev, "gpu_start") || !strcmp(ev, "gpu_end"))) {
        part *p = find_or_add_part(j, partition);
        if (p == NULL) return false;
        /* A retried partition keeps its last attempt, whatever order the events come in
         * (rotated files may be given in any order): a start replaces an earlier start
         * and drops an end that precedes it; an end counts if it is the latest one and
         * not before the start. */
        if (!strcmp(ev, "partition_synth_start")) {
            if (t >= p->synth_start) {
                p->synth_start = t;
                snprintf(p->synth_worker, sizeof p->synth_worker, "%s", worker);
                if (p->synth_end < t) p->synth_end = 0;
            }
        } else if (!strcmp(ev, "partition_synthesized")) {
            if (t > p->synth_end && t >= p->synth_start) p->synth_end = t;
        } else if (!strcmp(ev, "gpu_start")) {
            if (t >= p->prove_start) {
                p->prove_start = t;
                snprintf(p->prove_worker, sizeof p->prove_worker, "%s", worker);
                if (p->prove_end < t) p->prove_end = 0;
            }
        } else if (t > p->prove_end && t >= p->prove_start) {
            p->prove_end = t;
        }
    }
    return true;
}

static int load_jsonl(model *m, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "czk timeline: %s: %s\n", path, strerror(errno));
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned lineno = 0, bad = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (n <= 1) continue;
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        const char *id = o ? json_string_value(json_object_get(o, "job")) : NULL;
        const char *ev = o ? json_string_value(json_object_get(o, "event")) : NULL;
        json_t *tj = o ? json_object_get(o, "t_us") : NULL;
        if (!id || !ev || !json_is_integer(tj)) {
            /* A torn last line (the daemon was killed mid-write) must not stop the drawing. */
            if (bad++ < 3) fprintf(stderr, "czk timeline: %s:%u: not an event, skipped\n", path, lineno);
            json_decref(o);
            continue;
        }
        json_t *pj = json_object_get(o, "partition");
        const char *w = json_string_value(json_object_get(o, "worker"));
        bool ok = model_add(m, id, ev, json_is_integer(pj) ? (int)json_integer_value(pj) : -1,
                            w ? w : "", (uint64_t)json_integer_value(tj),
                            json_string_value(json_object_get(o, "kind")),
                            json_string_value(json_object_get(o, "circuit")));
        json_decref(o);
        if (!ok) {
            fprintf(stderr, "czk timeline: out of memory\n");
            free(line);
            fclose(f);
            return 1;
        }
    }
    free(line);
    fclose(f);
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* From a live daemon                                                                    */
/* ------------------------------------------------------------------------------------ */

static bool on_watch_event(void *ctx, const ProtobufCMessage *msg)
{
    model *m = ctx;
    const Czk__V1__JobEvent *e = (const Czk__V1__JobEvent *)msg;
    model_add(m, e->job_id, e->type, e->partition, e->worker, e->unix_us, NULL, NULL);
    /* The history of a finished job ends with its terminal event: stop there. */
    return strcmp(e->type, "done") && strcmp(e->type, "failed") && strcmp(e->type, "cancelled");
}

static int load_daemon(model *m, const czk_client_opts *co, uint64_t limit)
{
    czk_client *cl = NULL;
    czk_err err;
    czk_err_clear(&err);
    if (czk__client_open(&cl, co, &err) != CZK_OK) {
        fprintf(stderr, "czk timeline: %s\n", err.msg);
        return 4;
    }
    Czk__V1__ListJobsRequest l = CZK__V1__LIST_JOBS_REQUEST__INIT;
    l.limit = (uint32_t)limit;
    ProtobufCMessage *reply = NULL;
    grpc_status_code code = czk__client_unary(cl, "/czk.v1.Czk/ListJobs", &l.base,
                                              &czk__v1__list_jobs_response__descriptor, 10000,
                                              &reply, &err);
    if (code != GRPC_STATUS_OK) {
        fprintf(stderr, "czk timeline: ListJobs: %s: %s\n", czk__grpc_code_name(code), err.msg);
        czk__client_close(cl);
        return code == GRPC_STATUS_UNAVAILABLE ? 4 : 3;
    }
    Czk__V1__ListJobsResponse *r = (Czk__V1__ListJobsResponse *)reply;
    /* Newest first from the daemon; oldest first reads better top to bottom. */
    for (size_t i = r->n_jobs; i-- > 0;) {
        const Czk__V1__Job *jb = r->jobs[i];
        job *j = find_or_add_job(m, jb->job_id);
        if (j == NULL) break;
        snprintf(j->kind, sizeof j->kind, "%s", czk_job_kind_name((czk_job_kind)jb->kind));
        snprintf(j->circuit, sizeof j->circuit, "%s", jb->circuit_id);
        bool terminal = jb->state == CZK__V1__JOB_STATE__DONE ||
                        jb->state == CZK__V1__JOB_STATE__FAILED ||
                        jb->state == CZK__V1__JOB_STATE__CANCELLED;
        Czk__V1__WatchJobRequest w = CZK__V1__WATCH_JOB_REQUEST__INIT;
        w.job_id = jb->job_id;
        /* A running job's history is replayed at once and then the stream waits for new
         * events: a short deadline takes what has happened so far. */
        czk_err werr;
        czk_err_clear(&werr);
        grpc_status_code wc = czk__client_stream(cl, "/czk.v1.Czk/WatchJob", &w.base,
                                                 &czk__v1__job_event__descriptor,
                                                 terminal ? 10000 : 1000, on_watch_event, m, &werr);
        if (wc != GRPC_STATUS_OK && wc != GRPC_STATUS_DEADLINE_EXCEEDED &&
            wc != GRPC_STATUS_CANCELLED && wc != GRPC_STATUS_NOT_FOUND)
            fprintf(stderr, "czk timeline: WatchJob %s: %s: %s\n", jb->job_id,
                    czk__grpc_code_name(wc), werr.msg);
    }
    protobuf_c_message_free_unpacked(reply, NULL);
    czk__client_close(cl);
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* Selection                                                                             */
/* ------------------------------------------------------------------------------------ */

/* Keep the jobs named in `ids` (comma-separated ids or id prefixes; NULL = all) whose
 * last event is at or after `since_us`. */
static void model_filter(model *m, const char *ids, uint64_t since_us)
{
    size_t k = 0;
    for (size_t i = 0; i < m->njobs; i++) {
        job *j = &m->jobs[i];
        bool keep = j->t_last >= since_us && j->t_first != 0;
        if (keep && ids != NULL) {
            keep = false;
            for (const char *p = ids; *p;) {
                size_t n = strcspn(p, ",");
                if (n > 0 && !strncmp(j->id, p, n)) keep = true;
                p += n;
                if (*p == ',') p++;
            }
        }
        if (keep) m->jobs[k++] = *j;
        else czk_free(j->parts);
    }
    m->njobs = k;
    /* The id index points at old positions; nothing looks jobs up after filtering. */
    czk_free(m->slots);
    m->slots = NULL;
    m->nslots = 0;
}

static int cmp_part(const void *a, const void *b)
{
    const part *x = a, *y = b;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_job(const void *a, const void *b)
{
    const job *x = a, *y = b;
    uint64_t tx = x->t_queued ? x->t_queued : x->t_first;
    uint64_t ty = y->t_queued ? y->t_queued : y->t_first;
    return (tx > ty) - (tx < ty);
}

/* ------------------------------------------------------------------------------------ */
/* Lanes: one per prover device, busy = the union of its workers' spans                  */
/* ------------------------------------------------------------------------------------ */

typedef struct ival {
    uint64_t a, b;
} ival;

typedef struct lane {
    char name[32];
    ival *iv; /* merged, sorted */
    size_t n, cap;
    uint64_t busy_us, first, last;
} lane;

static int cmp_ival(const void *a, const void *b)
{
    const ival *x = a, *y = b;
    return (x->a > y->a) - (x->a < y->a);
}

static int cmp_lane(const void *a, const void *b)
{
    const lane *x = a, *y = b;
    /* GPUs first, in ordinal order ("gpu2" < "gpu10"), then anything else by name. */
    bool gx = !strncmp(x->name, "gpu", 3), gy = !strncmp(y->name, "gpu", 3);
    if (gx != gy) return gx ? -1 : 1;
    if (gx) {
        long ox = strtol(x->name + 3, NULL, 10), oy = strtol(y->name + 3, NULL, 10);
        if (ox != oy) return ox < oy ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

static bool build_lanes(const model *m, lane **out, size_t *nout)
{
    lane *ls = NULL;
    size_t nl = 0, cl = 0;
    for (size_t i = 0; i < m->njobs; i++)
        for (size_t k = 0; k < m->jobs[i].nparts; k++) {
            const part *p = &m->jobs[i].parts[k];
            if (!p->prove_start || !p->prove_end || p->prove_end < p->prove_start) continue;
            lane *l = NULL;
            for (size_t q = 0; q < nl; q++)
                if (!strcmp(ls[q].name, p->prove_worker)) l = &ls[q];
            if (l == NULL) {
                if (nl == cl) {
                    size_t nc = cl ? 2 * cl : 4;
                    lane *nls = czk_realloc(ls, nc * sizeof *nls);
                    if (nls == NULL) goto oom;
                    ls = nls;
                    cl = nc;
                }
                l = &ls[nl++];
                memset(l, 0, sizeof *l);
                snprintf(l->name, sizeof l->name, "%s", p->prove_worker[0] ? p->prove_worker : "prover");
            }
            if (l->n == l->cap) {
                size_t nc = l->cap ? 2 * l->cap : 16;
                ival *ni = czk_realloc(l->iv, nc * sizeof *ni);
                if (ni == NULL) goto oom;
                l->iv = ni;
                l->cap = nc;
            }
            l->iv[l->n++] = (ival){p->prove_start, p->prove_end};
        }
    for (size_t q = 0; q < nl; q++) {
        lane *l = &ls[q];
        qsort(l->iv, l->n, sizeof *l->iv, cmp_ival);
        /* Two workers per device overlap: the device is busy while either is. */
        size_t k = 0;
        for (size_t i = 0; i < l->n; i++) {
            if (k > 0 && l->iv[i].a <= l->iv[k - 1].b) {
                if (l->iv[i].b > l->iv[k - 1].b) l->iv[k - 1].b = l->iv[i].b;
            } else {
                l->iv[k++] = l->iv[i];
            }
        }
        l->n = k;
        l->busy_us = 0;
        for (size_t i = 0; i < k; i++) l->busy_us += l->iv[i].b - l->iv[i].a;
        l->first = k ? l->iv[0].a : 0;
        l->last = k ? l->iv[k - 1].b : 0;
    }
    qsort(ls, nl, sizeof *ls, cmp_lane);
    *out = ls;
    *nout = nl;
    return true;
oom:
    for (size_t q = 0; q < nl; q++) czk_free(ls[q].iv);
    czk_free(ls);
    return false;
}

/* ------------------------------------------------------------------------------------ */
/* Drawing                                                                               */
/* ------------------------------------------------------------------------------------ */

#define LEFT 230    /* row labels */
#define PLOT_W 1100 /* the time axis, pixels */
#define RIGHT 30
#define ROW_H 16
#define LANE_H 22

typedef struct canvas {
    FILE *f;
    uint64_t t0, t1;
} canvas;

static double xpos(const canvas *c, uint64_t t)
{
    double span = (double)(c->t1 - c->t0);
    double v = t < c->t0 ? 0 : (double)(t - c->t0);
    return LEFT + (span > 0 ? v / span * PLOT_W : 0);
}

static double ms(uint64_t us) { return (double)us / 1000.0; }

/* Text is escaped: job ids and worker names come from the daemon, i.e. from outside. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20) fputc(*s, f);
        }
    }
}

/* A span at least one pixel wide, so that a 2 ms gap in a 10 minute run stays visible. */
static void rect(const canvas *c, uint64_t a, uint64_t b, double y, double h, const char *cls,
                 const char *fill, const char *attrs, const char *tip)
{
    double x0 = xpos(c, a), x1 = xpos(c, b);
    double w = x1 - x0 < 1 ? 1 : x1 - x0;
    fprintf(c->f,
            "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
            "data-start-ms=\"%.3f\" data-dur-ms=\"%.3f\"%s><title>",
            cls, x0, y, w, h, fill, ms(a - c->t0), ms(b - a), attrs ? attrs : "");
    xml_text(c->f, tip);
    fputs("</title></rect>\n", c->f);
}

static void xml_attr_safe(char *out, size_t cap, const char *s)
{
    size_t k = 0;
    for (; *s && k + 1 < cap; s++) {
        char ch = *s;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '-' || ch == '_' || ch == ':' || ch == '.';
        out[k++] = ok ? ch : '_';
    }
    out[k] = 0;
}

/* A tick step of 1, 2 or 5 times a power of ten giving at most about 12 ticks. */
static double tick_step_ms(double span_ms)
{
    if (span_ms <= 0) return 1;
    double raw = span_ms / 12.0;
    double p = pow(10.0, floor(log10(raw)));
    double steps[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (steps[i] * p >= raw) return steps[i] * p;
    return 10 * p;
}

static void fmt_dur(char *out, size_t n, double msv)
{
    if (msv < 1000) snprintf(out, n, "%.0f ms", msv);
    else if (msv < 120000) snprintf(out, n, "%.3g s", msv / 1000);
    else snprintf(out, n, "%.1f min", msv / 60000);
}

/* Device colours stay clear of the idle-gap red and the synthesis blue. */
static const char *const lane_colors[] = {"#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                          "#edc948", "#9c755f", "#ff9da7", "#bab0ac"};

static const char *lane_color(const lane *ls, size_t nl, const char *worker)
{
    for (size_t i = 0; i < nl; i++)
        if (!strcmp(ls[i].name, worker)) return lane_colors[i % 8];
    return lane_colors[0];
}

#define C_QUEUE "#bdbdbd"
#define C_SYNTH "#3182bd"
#define C_WAIT "#fee391"
#define C_PARAMS "#9e9ac8"
#define C_GAP "url(#gap)"
#define C_IDLE_BG "#fff5f0"

static int draw(const model *m, const char *out_path, uint64_t min_gap_us)
{
    lane *ls = NULL;
    size_t nl = 0;
    if (!build_lanes(m, &ls, &nl)) {
        fprintf(stderr, "czk timeline: out of memory\n");
        return 1;
    }
    canvas c = {NULL, UINT64_MAX, 0};
    size_t nrows = 0, nparts = 0;
    for (size_t i = 0; i < m->njobs; i++) {
        const job *j = &m->jobs[i];
        if (j->t_first < c.t0) c.t0 = j->t_first;
        if (j->t_last > c.t1) c.t1 = j->t_last;
        nrows += j->nparts ? j->nparts : 1;
        nparts += j->nparts;
    }
    if (m->njobs == 0) c.t0 = c.t1 = 0;
    FILE *f = !strcmp(out_path, "-") ? stdout : fopen(out_path, "w");
    if (f == NULL) {
        fprintf(stderr, "czk timeline: %s: %s\n", out_path, strerror(errno));
        for (size_t q = 0; q < nl; q++) czk_free(ls[q].iv);
        czk_free(ls);
        return 2;
    }
    c.f = f;

    /* Busy shares: of each device's own first-to-last interval, and over the GPUs. */
    uint64_t gpu_busy = 0, gpu_span = 0, all_busy = 0, all_span = 0;
    size_t ngpu = 0;
    for (size_t q = 0; q < nl; q++) {
        uint64_t span = ls[q].last - ls[q].first;
        all_busy += ls[q].busy_us;
        all_span += span;
        if (!strncmp(ls[q].name, "gpu", 3)) {
            gpu_busy += ls[q].busy_us;
            gpu_span += span;
            ngpu++;
        }
    }
    double busy_pct = ngpu ? (gpu_span ? 100.0 * (double)gpu_busy / (double)gpu_span : 100.0)
                           : (all_span ? 100.0 * (double)all_busy / (double)all_span : 0.0);

    const double title_h = 30, legend_h = 26, axis_h = 26;
    double lanes_y = title_h + legend_h + axis_h;
    double rows_y = lanes_y + (double)nl * LANE_H + 12;
    double height = rows_y + (double)nrows * ROW_H + 20;
    double width = LEFT + PLOT_W + RIGHT;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\" "
            "data-t0-us=\"%" PRIu64 "\" data-span-ms=\"%.3f\" data-jobs=\"%zu\" "
            "data-partitions=\"%zu\" data-busy-pct=\"%.2f\">\n",
            width, height, width, height, c.t0, ms(c.t1 - c.t0), m->njobs, nparts, busy_pct);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", width, height);
    /* Idle gaps: red hatching, unmistakable next to any device colour. */
    fprintf(f, "<defs><pattern id=\"gap\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
               "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fcbba1\"/>"
               "<rect width=\"3\" height=\"6\" fill=\"#de2d26\"/></pattern></defs>\n");

    /* Title: what was drawn and how busy the devices were. */
    char span_s[32];
    fmt_dur(span_s, sizeof span_s, ms(c.t1 - c.t0));
    fprintf(f, "<text class=\"title\" x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">"
               "czk timeline: %zu job%s, %zu partition%s over %s; %s busy %.1f%%",
            m->njobs, m->njobs == 1 ? "" : "s", nparts, nparts == 1 ? "" : "s", span_s,
            ngpu ? "GPU" : "prover", busy_pct);
    for (size_t q = 0; q < nl; q++) {
        uint64_t span = ls[q].last - ls[q].first;
        fprintf(f, "%s", q == 0 ? " (" : ", ");
        xml_text(f, ls[q].name);
        fprintf(f, " %.1f%%", span ? 100.0 * (double)ls[q].busy_us / (double)span : 100.0);
    }
    fprintf(f, "%s</text>\n", nl ? ")" : "");

    /* Legend. */
    static const struct {
        const char *label, *color;
    } legend[] = {{"queue wait", C_QUEUE},   {"parameter load", C_PARAMS},
                  {"synthesis", C_SYNTH},    {"waiting for a prover", C_WAIT},
                  {"prover (colour per device)", "#f28e2b"}, {"device idle gap", C_GAP}};
    double lx = 10;
    fprintf(f, "<g class=\"legend\">\n");
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                lx, title_h + 4, legend[i].color, lx + 16, title_h + 14, legend[i].label);
        lx += 30 + 6.2 * (double)strlen(legend[i].label);
    }
    fprintf(f, "<path d=\"M%.0f %.0f l5 6 l-5 6 l-5 -6 z\" fill=\"#31a354\"/><text x=\"%.0f\" y=\"%.0f\">"
               "done (red: failed, grey: cancelled)</text>\n</g>\n",
            lx + 5, title_h + 4, lx + 16, title_h + 14);

    /* Time axis with grid lines through lanes and rows. */
    double span_ms = ms(c.t1 - c.t0), step = tick_step_ms(span_ms);
    fprintf(f, "<g class=\"axis\">\n");
    fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#000\"/>\n", LEFT,
            lanes_y - 4, LEFT + PLOT_W, lanes_y - 4);
    for (double t = 0; t <= span_ms + 1e-9; t += step) {
        double x = LEFT + (span_ms > 0 ? t / span_ms * PLOT_W : 0);
        char lbl[32];
        if (step >= 1000) snprintf(lbl, sizeof lbl, "%g s", t / 1000);
        else snprintf(lbl, sizeof lbl, "%g ms", t);
        fprintf(f, "<line class=\"tick\" x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
                   "<text x=\"%.2f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
                x, lanes_y - 4, x, height - 16, x, lanes_y - 9, lbl);
        if (span_ms <= 0) break;
    }
    fprintf(f, "</g>\n");

    /* Device lanes: busy spans, and the idle gaps between the first and last. */
    char tip[256], attrs[256], safe[64];
    for (size_t q = 0; q < nl; q++) {
        const lane *l = &ls[q];
        double y = lanes_y + (double)q * LANE_H;
        xml_attr_safe(safe, sizeof safe, l->name);
        uint64_t span = l->last - l->first;
        fprintf(f, "<g class=\"lane\" data-lane=\"%s\" data-busy-pct=\"%.2f\">\n<text x=\"%d\" y=\"%.0f\" "
                   "font-weight=\"bold\">",
                safe, span ? 100.0 * (double)l->busy_us / (double)span : 100.0, 10, y + 15);
        xml_text(f, l->name);
        fprintf(f, "</text>\n");
        rect(&c, l->first, l->last, y + 2, LANE_H - 4, "lane-bg", C_IDLE_BG, NULL, "device interval");
        for (size_t i = 0; i < l->n; i++) {
            snprintf(tip, sizeof tip, "%s busy %.1f ms", safe, ms(l->iv[i].b - l->iv[i].a));
            snprintf(attrs, sizeof attrs, " data-lane=\"%s\"", safe);
            rect(&c, l->iv[i].a, l->iv[i].b, y + 2, LANE_H - 4, "busy", lane_colors[q % 8], attrs, tip);
            if (i + 1 < l->n && l->iv[i + 1].a - l->iv[i].b >= min_gap_us) {
                snprintf(tip, sizeof tip, "%s idle %.1f ms", safe, ms(l->iv[i + 1].a - l->iv[i].b));
                rect(&c, l->iv[i].b, l->iv[i + 1].a, y + 2, LANE_H - 4, "gap", C_GAP, attrs, tip);
            }
        }
        fprintf(f, "</g>\n");
    }

    /* One row per partition, grouped by job, oldest job first. */
    double y = rows_y;
    for (size_t i = 0; i < m->njobs; i++) {
        const job *j = &m->jobs[i];
        xml_attr_safe(safe, sizeof safe, j->id);
        uint64_t tq = j->t_queued ? j->t_queued : j->t_first;
        char ksafe[24];
        xml_attr_safe(ksafe, sizeof ksafe, j->kind);
        fprintf(f, "<g class=\"job\" data-job=\"%s\" data-kind=\"%s\" data-state=\"%s\">\n", safe,
                ksafe, j->end_state[0] ? j->end_state : "running");
        /* Separator and the job's label on its first row. */
        fprintf(f, "<line x1=\"0\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", y, width, y);
        size_t rows = j->nparts ? j->nparts : 1;
        for (size_t r = 0; r < rows; r++) {
            const part *p = j->nparts ? &j->parts[r] : NULL;
            double ry = y + (double)r * ROW_H;
            fprintf(f, "<text x=\"10\" y=\"%.1f\">", ry + 12);
            if (r == 0) {
                char shortid[20];
                snprintf(shortid, sizeof shortid, "%.14s", j->id);
                xml_text(f, shortid);
                if (j->kind[0]) {
                    fputs(" ", f);
                    xml_text(f, j->circuit[0] ? j->circuit : j->kind);
                }
            }
            if (p) fprintf(f, "<tspan x=\"%d\" text-anchor=\"end\">p%d</tspan>", LEFT - 6, p->idx);
            fprintf(f, "</text>\n");
            if (r == 0 && j->params_start && j->params_end > j->params_start) {
                snprintf(attrs, sizeof attrs, " data-job=\"%s\"", safe);
                snprintf(tip, sizeof tip, "%s: parameter load %.1f ms", safe, ms(j->params_end - j->params_start));
                rect(&c, j->params_start, j->params_end, ry + 2, 4, "params", C_PARAMS, attrs, tip);
            }
            if (p == NULL) {
                uint64_t end = j->t_end ? j->t_end : j->t_last;
                snprintf(attrs, sizeof attrs, " data-job=\"%s\" data-partition=\"-1\"", safe);
                snprintf(tip, sizeof tip, "%s: queued %.1f ms", safe, ms(end - tq));
                if (end > tq) rect(&c, tq, end, ry + 4, ROW_H - 6, "queue", C_QUEUE, attrs, tip);
                continue;
            }
            snprintf(attrs, sizeof attrs, " data-job=\"%s\" data-partition=\"%d\"", safe, p->idx);
            if (p->synth_start > tq) {
                snprintf(tip, sizeof tip, "%s p%d: queue wait %.1f ms", safe, p->idx, ms(p->synth_start - tq));
                rect(&c, tq, p->synth_start, ry + 4, ROW_H - 6, "queue", C_QUEUE, attrs, tip);
            }
            if (p->synth_start && p->synth_end >= p->synth_start) {
                snprintf(tip, sizeof tip, "%s p%d: synthesis %.1f ms on %s", safe, p->idx,
                         ms(p->synth_end - p->synth_start), p->synth_worker);
                rect(&c, p->synth_start, p->synth_end, ry + 2, ROW_H - 3, "synth", C_SYNTH, attrs, tip);
            }
            if (p->synth_end && p->prove_start > p->synth_end) {
                snprintf(tip, sizeof tip, "%s p%d: waiting for a prover %.1f ms", safe, p->idx,
                         ms(p->prove_start - p->synth_end));
                rect(&c, p->synth_end, p->prove_start, ry + 4, ROW_H - 6, "wait", C_WAIT, attrs, tip);
            }
            if (p->prove_start && p->prove_end >= p->prove_start) {
                char wsafe[40];
                xml_attr_safe(wsafe, sizeof wsafe, p->prove_worker);
                snprintf(tip, sizeof tip, "%s p%d: prover %.1f ms on %s", safe, p->idx,
                         ms(p->prove_end - p->prove_start), wsafe);
                snprintf(attrs, sizeof attrs, " data-job=\"%s\" data-partition=\"%d\" data-worker=\"%s\"",
                         safe, p->idx, wsafe);
                rect(&c, p->prove_start, p->prove_end, ry + 2, ROW_H - 3, "prove",
                     lane_color(ls, nl, p->prove_worker), attrs, tip);
            }
        }
        if (j->t_end) {
            const char *mc = !strcmp(j->end_state, "done")     ? "#31a354"
                             : !strcmp(j->end_state, "failed") ? "#de2d26"
                                                               : "#969696";
            fprintf(f, "<path class=\"end\" data-state=\"%s\" d=\"M%.2f %.1f l5 6 l-5 6 l-5 -6 z\" "
                       "fill=\"%s\"><title>%s %s at %.1f ms</title></path>\n",
                    j->end_state, xpos(&c, j->t_end), y + 2, mc, safe,
                    j->end_state, ms(j->t_end - c.t0));
        }
        fprintf(f, "</g>\n");
        y += (double)rows * ROW_H;
    }
    fprintf(f, "</svg>\n");
    bool ok = !ferror(f);
    if (f != stdout) ok = fclose(f) == 0 && ok;
    else fflush(f);
    printf("%s: %zu jobs, %zu partitions, %.1f ms; busy", out_path, m->njobs, nparts, ms(c.t1 - c.t0));
    for (size_t q = 0; q < nl; q++) {
        uint64_t span = ls[q].last - ls[q].first;
        printf(" %s=%.1f%%", ls[q].name, span ? 100.0 * (double)ls[q].busy_us / (double)span : 100.0);
    }
    printf("\n");
    for (size_t q = 0; q < nl; q++) czk_free(ls[q].iv);
    czk_free(ls);
    if (!ok) {
        fprintf(stderr, "czk timeline: %s: write failed\n", out_path);
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* Command line                                                                          */
/* ------------------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: czk timeline [--in FILE ... | --addr ADDR] --out FILE.svg [--jobs ID[,ID...]]\n"
            "                    [--since DURATION] [--limit N] [--min-gap MS]\n"
            "  --in FILE       czkd's event log (<data_dir>/timeline.jsonl); repeat it for the\n"
            "                  rotated files (timeline.jsonl.1 ...), in any order\n"
            "  --addr ADDR     a running czkd: the jobs it lists and their event histories\n"
            "                  (--token/--token-file/--tls-ca/--tls-cert/--tls-key as for czk status)\n"
            "  --out FILE      the SVG waterfall (- for stdout)\n"
            "  --jobs LIST     only these jobs (ids or id prefixes, comma-separated)\n"
            "  --since D       only jobs with events in the last D (30s, 10m, 2h) before the\n"
            "                  newest event\n"
            "  --limit N       with --addr: the N newest jobs (default 100)\n"
            "  --min-gap MS    idle gaps shorter than this are not highlighted (default 0)\n"
            "Rows: one per partition (queue wait, synthesis, waiting for a prover, prover span).\n"
            "Lanes: one per device (gpu0, gpu1, ..., cpu), busy spans and idle gaps in red;\n"
            "the title gives each device's busy share between its first and last span.\n");
}

enum { T_IN = 300, T_OUT, T_ADDR, T_JOBS, T_SINCE, T_LIMIT, T_MINGAP, T_TOKEN, T_TOKEN_FILE,
       T_TLS_CA, T_TLS_CERT, T_TLS_KEY, T_TLS_NAME };

/* "30s", "10m", "2h", "250ms", "1d"; a bare number is seconds (as in czkd's options). */
static bool parse_duration_ms(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9') return false;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mul;
    if (!strcmp(end, "ms")) mul = 1;
    else if (!*end || !strcmp(end, "s")) mul = 1000;
    else if (!strcmp(end, "m")) mul = 60000;
    else if (!strcmp(end, "h")) mul = 3600000;
    else if (!strcmp(end, "d")) mul = 86400000;
    else return false;
    if (errno || v > UINT64_MAX / mul) return false;
    *out = v * mul;
    return true;
}

static char *read_token(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char buf[1024];
    char *r = fgets(buf, sizeof buf, f) ? buf : NULL;
    fclose(f);
    if (!r) return NULL;
    buf[strcspn(buf, "\r\n")] = 0;
    size_t n = strlen(buf) + 1;
    char *t = czk_malloc(n);
    if (t) memcpy(t, buf, n);
    return t;
}

int czk_cli_timeline(int argc, char **argv)
{
    static const struct option opts[] = {
        {"in", required_argument, NULL, T_IN},
        {"out", required_argument, NULL, T_OUT},
        {"addr", required_argument, NULL, T_ADDR},
        {"jobs", required_argument, NULL, T_JOBS},
        {"since", required_argument, NULL, T_SINCE},
        {"limit", required_argument, NULL, T_LIMIT},
        {"min-gap", required_argument, NULL, T_MINGAP},
        {"token", required_argument, NULL, T_TOKEN},
        {"token-file", required_argument, NULL, T_TOKEN_FILE},
        {"tls-ca", required_argument, NULL, T_TLS_CA},
        {"tls-cert", required_argument, NULL, T_TLS_CERT},
        {"tls-key", required_argument, NULL, T_TLS_KEY},
        {"tls-server-name", required_argument, NULL, T_TLS_NAME},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *in[16], *out = NULL, *ids = NULL;
    size_t nin = 0;
    uint64_t since_ms = 0, limit = 100;
    double min_gap_ms = 0;
    bool have_addr = false;
    char *token_buf = NULL;
    czk_client_opts co;
    memset(&co, 0, sizeof co);
    co.addr = getenv("CZK_ADDR") ? getenv("CZK_ADDR") : "127.0.0.1:9820";
    co.token = getenv("CZK_TOKEN");
    co.max_message_size = 256u << 20;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case T_IN:
            if (nin == sizeof in / sizeof in[0]) {
                fprintf(stderr, "czk timeline: at most 16 --in files\n");
                return 2;
            }
            in[nin++] = optarg;
            break;
        case T_OUT: out = optarg; break;
        case T_ADDR: co.addr = optarg; have_addr = true; break;
        case T_JOBS: ids = optarg; break;
        case T_SINCE:
            if (!parse_duration_ms(optarg, &since_ms)) {
                fprintf(stderr, "czk timeline: --since: '%s' is not a duration (30s, 10m, 2h)\n", optarg);
                return 2;
            }
            break;
        case T_LIMIT: limit = strtoull(optarg, NULL, 10); break;
        case T_MINGAP: min_gap_ms = strtod(optarg, NULL); break;
        case T_TOKEN: co.token = optarg; break;
        case T_TOKEN_FILE:
            czk_free(token_buf);
            token_buf = read_token(optarg);
            if (token_buf == NULL) {
                fprintf(stderr, "czk timeline: --token-file %s: cannot read\n", optarg);
                return 2;
            }
            co.token = token_buf;
            break;
        case T_TLS_CA: co.tls_ca = optarg; break;
        case T_TLS_CERT: co.tls_cert = optarg; break;
        case T_TLS_KEY: co.tls_key = optarg; break;
        case T_TLS_NAME: co.server_name = optarg; break;
        case 'h': usage(stdout); czk_free(token_buf); return 0;
        default: usage(stderr); czk_free(token_buf); return 2;
        }
    }
    if (out == NULL || (nin > 0) == have_addr || optind != argc) {
        if (nin == 0 && !have_addr && out != NULL)
            fprintf(stderr, "czk timeline: give --in FILE or --addr ADDR\n");
        usage(stderr);
        czk_free(token_buf);
        return 2;
    }
    model m;
    memset(&m, 0, sizeof m);
    /* Rotated files may come in any order: spans are assembled per job and partition. */
    int rc = 0;
    for (size_t i = 0; i < nin && rc == 0; i++) rc = load_jsonl(&m, in[i]);
    if (!nin) rc = load_daemon(&m, &co, limit);
    czk_free(token_buf);
    if (rc != 0) {
        model_free(&m);
        return rc;
    }
    uint64_t newest = 0;
    for (size_t i = 0; i < m.njobs; i++)
        if (m.jobs[i].t_last > newest) newest = m.jobs[i].t_last;
    uint64_t since_us = since_ms && newest > since_ms * 1000 ? newest - since_ms * 1000 : 0;
    model_filter(&m, ids, since_us);
    qsort(m.jobs, m.njobs, sizeof *m.jobs, cmp_job);
    for (size_t i = 0; i < m.njobs; i++)
        qsort(m.jobs[i].parts, m.jobs[i].nparts, sizeof *m.jobs[i].parts, cmp_part);
    if (m.njobs == 0) fprintf(stderr, "czk timeline: no events matched; drawing an empty chart\n");
    rc = draw(&m, out, (uint64_t)(min_gap_ms * 1000));
    model_free(&m);
    return rc;
}
