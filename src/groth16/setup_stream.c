/*
 * Test parameters straight from a circuit, without its R1CS: the QAP is evaluated at τ
 * while the circuit is synthesized (a RECORD-mode sink adds coeff·L_row(τ) to u, v or w
 * of the term's variable), so no CSR is ever built. For a 32 GiB PoRep partition the CSR
 * would take about 29 GB; here the host holds L(τ), u, v, w (32 bytes a row or variable
 * each) and the density bitmaps. The rest is czk__setup_keys, shared with setup.c, so the
 * keys are byte for byte those of czk_groth16_setup_r1cs on the recorded R1CS.
 */
#include "czk/alloc.h"
#include "czk/cs.h"
#include "czk/groth16.h"
#include "czk/log.h"
#include "groth16/setup_internal.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

/* Rows between two progress reports of the QAP pass. */
#define ROWS_PER_REPORT ((uint64_t)1 << 16)
/* Terms per batch handed to a matrix's accumulating thread (768 KB a batch; the hand-over,
 * a few microseconds, is against about 0.5 ms of accumulation). */
#define BATCH ((size_t)1 << 14)
/* Rows from which the accumulating threads are used. */
#define THREADED_MIN_ROWS 4096

/*
 * The accumulation runs beside the synthesis: the sink (on the synthesizing thread) copies
 * each term into its matrix's batch, and one thread per matrix adds the batches into u, v
 * or w, so the three never write the same array. Two batches a matrix: the sink fills one
 * while the thread empties the other. Field addition is exact, so the order of the terms
 * does not matter and the result is the serial one bit for bit. Measured on porep-2k (two
 * shared cores): the synthesis costs about 16 ns a term, the accumulation about 30.
 */
typedef struct qterm {
    uint32_t row, var, kind, pad_;
    czk_fr coeff;
} qterm;

typedef struct lane {
    pthread_t th;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    qterm *buf[2];
    size_t len[2];
    bool full[2]; /* handed to the thread, not yet emptied */
    int fill;     /* the batch the sink fills */
    bool stop;
    czk_fr *out;
    const czk_fr *lag;
    size_t ni, nv;
    czk_status st; /* the thread's: a variable out of range */
} lane;

struct sink_ctx {
    const czk_fr *lag;
    czk_fr *uvw[3];
    size_t ni, nv;
    uint64_t n_rows, n_terms;
    czk__progress *pr;
    lane *lanes;  /* NULL: accumulate on the synthesizing thread */
    bool changed; /* a row or variable beyond the COUNT pass's */
};

/* out[var] += coeff · lag. ±1 coefficients (most of a Filecoin circuit's terms) cost an
 * addition only. False for a variable out of range. */
static inline bool accumulate(czk_fr *out, size_t ni, size_t nv, const czk_fr *lag,
                              uint32_t id, uint32_t kind, const czk_fr *coeff)
{
    size_t idx = (id & CZK_VAR_AUX) ? ni + (id & ~CZK_VAR_AUX) : id;
    if (idx >= nv) return false;
    czk_fr *o = &out[idx];
    if (kind == CZK_LC_COEFF_ONE) {
        czk_fr_add(o, o, lag);
    } else if (kind == CZK_LC_COEFF_MINUS_ONE) {
        czk_fr_sub(o, o, lag);
    } else {
        czk_fr s;
        czk_fr_mul(&s, coeff, lag);
        czk_fr_add(o, o, &s);
    }
    return true;
}

static void *lane_main(void *p)
{
    lane *l = p;
    int cur = 0;
    for (;;) {
        pthread_mutex_lock(&l->mu);
        while (!l->full[cur] && !l->stop) pthread_cond_wait(&l->cv, &l->mu);
        if (!l->full[cur]) { /* stopped, and nothing left */
            pthread_mutex_unlock(&l->mu);
            return NULL;
        }
        size_t n = l->len[cur];
        pthread_mutex_unlock(&l->mu);
        const qterm *t = l->buf[cur];
        for (size_t i = 0; i < n; i++)
            if (!accumulate(l->out, l->ni, l->nv, &l->lag[t[i].row], t[i].var, t[i].kind,
                            &t[i].coeff))
                l->st = CZK_EINVAL;
        pthread_mutex_lock(&l->mu);
        l->full[cur] = false;
        l->len[cur] = 0;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
        cur ^= 1;
    }
}

/* Hand the batch being filled to the thread and wait until the other one is empty. */
static void lane_flush(lane *l)
{
    pthread_mutex_lock(&l->mu);
    if (l->len[l->fill] > 0) {
        l->full[l->fill] = true;
        pthread_cond_broadcast(&l->cv);
        l->fill ^= 1;
    }
    while (l->full[l->fill]) pthread_cond_wait(&l->cv, &l->mu);
    pthread_mutex_unlock(&l->mu);
}

/* Start the three lanes; false (nothing left running) when threads or memory are short. */
static bool lanes_start(lane *ls, struct sink_ctx *x)
{
    memset(ls, 0, 3 * sizeof *ls);
    for (int m = 0; m < 3; m++) {
        lane *l = &ls[m];
        pthread_mutex_init(&l->mu, NULL);
        pthread_cond_init(&l->cv, NULL);
        l->out = x->uvw[m];
        l->lag = x->lag;
        l->ni = x->ni;
        l->nv = x->nv;
        l->buf[0] = czk_malloc(BATCH * sizeof(qterm));
        l->buf[1] = czk_malloc(BATCH * sizeof(qterm));
        l->started = l->buf[0] != NULL && l->buf[1] != NULL &&
                     pthread_create(&l->th, NULL, lane_main, l) == 0;
    }
    return ls[0].started && ls[1].started && ls[2].started;
}

/* Flush, stop and join the lanes (those that started), free them; the first lane error. */
static czk_status lanes_stop(lane *ls)
{
    czk_status st = CZK_OK;
    for (int m = 0; m < 3; m++) {
        lane *l = &ls[m];
        if (l->started) {
            lane_flush(l);
            pthread_mutex_lock(&l->mu);
            l->stop = true;
            pthread_cond_broadcast(&l->cv);
            pthread_mutex_unlock(&l->mu);
            pthread_join(l->th, NULL);
            if (st == CZK_OK) st = l->st;
        }
        czk_free(l->buf[0]);
        czk_free(l->buf[1]);
        pthread_mutex_destroy(&l->mu);
        pthread_cond_destroy(&l->cv);
    }
    return st;
}

/* One merged LC of row `row`, accumulated here or queued to its matrix's lane. */
static czk_status qap_sink(void *p, unsigned matrix, uint64_t row, const czk_lc_term *t,
                           uint32_t n)
{
    struct sink_ctx *x = p;
    if (row >= x->n_rows || matrix > 2) { /* not the counted circuit */
        x->changed = true;
        return CZK_EINVAL;
    }
    x->n_terms += n;
    if (x->lanes == NULL) {
        for (uint32_t i = 0; i < n; i++)
            if (!accumulate(x->uvw[matrix], x->ni, x->nv, &x->lag[row], t[i].var, t[i].kind,
                            &t[i].coeff)) {
                x->changed = true;
                return CZK_EINVAL;
            }
    } else {
        lane *l = &x->lanes[matrix];
        for (uint32_t i = 0; i < n; i++) {
            if (l->len[l->fill] == BATCH) lane_flush(l);
            qterm *q = &l->buf[l->fill][l->len[l->fill]++];
            q->row = (uint32_t)row;
            q->var = t[i].var;
            q->kind = t[i].kind;
            if (t[i].kind == CZK_LC_COEFF_GENERAL) q->coeff = t[i].coeff;
        }
    }
    if (matrix == 2 && (row + 1) % ROWS_PER_REPORT == 0) czk__progress_add(x->pr, ROWS_PER_REPORT);
    return CZK_OK;
}

/* Run `circuit` once in `mode` (with `sink` in RECORD mode); *out gets the finished cs
 * (its counts and densities) on success. */
static czk_status run_pass(czk_cs_mode mode, czk_cs_circuit_fn circuit, void *circuit_ctx,
                           struct sink_ctx *sink, czk_cs **out, czk_err *err)
{
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = mode;
    czk_cs *cs = NULL;
    czk_status st = czk_cs_create(&cs, &cfg, err);
    if (st != CZK_OK) return st;
    if (sink != NULL && (st = czk_cs_set_record_sink(cs, qap_sink, sink)) != CZK_OK) {
        st = czk_err_set(err, st, "setup: the record sink was refused");
        goto done;
    }
    st = circuit(cs, circuit_ctx);
    czk_status fin = czk_cs_finish(cs, err); /* the cs's own error, with its message */
    if (fin != CZK_OK) {
        st = fin;
        goto done;
    }
    if (st != CZK_OK) {
        st = czk_err_set(err, st, "setup: the circuit failed (%s)", czk_strerror(st));
        goto done;
    }
    *out = cs;
    return CZK_OK;
done:
    czk_cs_destroy(cs);
    return st;
}

czk_status czk__setup_stream_qap(czk__setup_qap *q, czk__setup_waste *tw,
                                 czk_cs_circuit_fn circuit, void *circuit_ctx,
                                 const uint8_t *seed, czk_pool *pool, czk__progress *pr,
                                 czk_err *err)
{
    memset(q, 0, sizeof *q);
    memset(tw, 0, sizeof *tw);
    czk_cs_counts cnt, rec;
    czk_cs *cs = NULL;
    double t0 = czk_clock_s();

    /* Pass 1: sizes and densities. */
    czk_status st = run_pass(CZK_CS_COUNT, circuit, circuit_ctx, NULL, &cs, err);
    if (st != CZK_OK) goto done;
    czk_cs_get_counts(cs, &cnt);
    q->ni = cnt.n_inputs;
    q->na = cnt.n_aux;
    q->n_constraints = cnt.n_constraints;
    const size_t nv = q->ni + q->na, rows = q->n_constraints + q->ni;
    if ((q->log_m = czk__setup_log_m(rows)) == 0) {
        st = czk_err_set(err, CZK_EINVAL, "setup: %zu rows is too many", rows);
        goto done;
    }
    size_t words_a = (q->na + 63) / 64 + 1, words_bi = (q->ni + 63) / 64 + 1;
    q->lag = czk_malloc(((size_t)1 << q->log_m) * sizeof *q->lag);
    q->u = czk_calloc(nv, sizeof *q->u);
    q->v = czk_calloc(nv, sizeof *q->v);
    q->w = czk_calloc(nv, sizeof *q->w);
    q->a_aux = czk_calloc(words_a, 8);
    q->b_in = czk_calloc(words_bi, 8);
    q->b_aux = czk_calloc(words_a, 8);
    if (!q->lag || !q->u || !q->v || !q->w || !q->a_aux || !q->b_in || !q->b_aux) {
        st = czk_err_set(err, CZK_ENOMEM, "setup: out of memory for %zu variables", nv);
        goto done;
    }
    czk_cs_get_densities(cs, q->a_aux, q->b_in, q->b_aux);
    czk_cs_destroy(cs);
    cs = NULL;
    double t1 = czk_clock_s();

    /* Pass 2: the QAP at τ, row by row as the circuit makes them. One bar: the rows of
     * this pass, then the points. */
    if ((st = czk__setup_draw(tw, seed, err)) != CZK_OK ||
        (st = czk__setup_lagrange(q->lag, &tw->tau, q->log_m, pool, err)) != CZK_OK)
        goto done;
    double t2 = czk_clock_s();
    pr->done = 0;
    pr->total = q->n_constraints + czk__setup_units(q);
    struct sink_ctx sc = {q->lag, {q->u, q->v, q->w}, q->ni, nv, q->n_constraints, 0, pr, NULL,
                          false};
    lane lanes[3];
    /* The lanes pay only where the synthesis and three accumulating threads each have a
     * core (the pool's size stands for the cores the caller gives this work): on two
     * shared cores, porep-2k's record pass took 0.82 s threaded against 0.75 s serial. */
    bool threaded = czk_pool_size(pool) >= 4 && q->n_constraints >= THREADED_MIN_ROWS;
    if (threaded) {
        if (lanes_start(lanes, &sc))
            sc.lanes = lanes;
        else
            (void)lanes_stop(lanes);
    }
    st = run_pass(CZK_CS_RECORD, circuit, circuit_ctx, &sc, &cs, err);
    if (sc.lanes != NULL && lanes_stop(lanes) != CZK_OK) sc.changed = true;
    if (sc.changed) {
        st = czk_err_set(err, CZK_EINVAL,
                         "setup: the circuit changed between passes (more rows or variables "
                         "than the count's %llu/%llu/%llu inputs/aux/rows)",
                         (unsigned long long)cnt.n_inputs, (unsigned long long)cnt.n_aux,
                         (unsigned long long)cnt.n_constraints);
        goto done;
    }
    if (st != CZK_OK) goto done;
    czk_cs_get_counts(cs, &rec);
    czk_cs_destroy(cs);
    cs = NULL;
    if (rec.n_inputs != cnt.n_inputs || rec.n_aux != cnt.n_aux ||
        rec.n_constraints != cnt.n_constraints) {
        st = czk_err_set(err, CZK_EINVAL,
                         "setup: the circuit changed between passes (%llu/%llu/%llu inputs/aux/"
                         "rows, then %llu/%llu/%llu)",
                         (unsigned long long)cnt.n_inputs, (unsigned long long)cnt.n_aux,
                         (unsigned long long)cnt.n_constraints, (unsigned long long)rec.n_inputs,
                         (unsigned long long)rec.n_aux, (unsigned long long)rec.n_constraints);
        goto done;
    }
    q->n_terms = sc.n_terms;
    czk__progress_add(pr, q->n_constraints - pr->done);
    double t3 = czk_clock_s();
    CZK_LOG(q->n_constraints >= ((uint64_t)1 << 20) ? CZK_LOG_INFO : CZK_LOG_DEBUG,
            "setup QAP pass", "rows=%zu terms=%llu count_s=%.2f lagrange_s=%.2f record_s=%.2f",
            q->n_constraints, (unsigned long long)q->n_terms, t1 - t0, t2 - t1, t3 - t2);
    return CZK_OK;
done:
    czk_cs_destroy(cs);
    czk__setup_qap_free(q);
    czk__setup_scrub(tw);
    return st;
}

czk_status czk_groth16_setup_circuit(czk_groth16_params *out, czk_cs_circuit_fn circuit,
                                     void *circuit_ctx, const czk_groth16_setup_opts *opts,
                                     czk_pool *pool, czk_progress_fn progress,
                                     void *progress_ctx, czk_err *err)
{
    memset(out, 0, sizeof *out);
    if (circuit == NULL) return czk_err_set(err, CZK_EINVAL, "setup: no circuit");
    czk__setup_waste tw;
    czk__setup_qap q;
    czk__progress pr = {progress, progress_ctx, 0, 0};
    czk_status st = czk__setup_stream_qap(&q, &tw, circuit, circuit_ctx,
                                          opts != NULL ? opts->seed : NULL, pool, &pr, err);
    if (st == CZK_OK) st = czk__setup_keys(out, &tw, &q, opts, pool, &pr, err);
    czk__setup_qap_free(&q);
    czk__setup_scrub(&tw);
    return st;
}
