/*
 * The job journal: one SQLite table at <data_dir>/journal.db in WAL mode with
 * synchronous=FULL, so an accepted job is on disk before czk_engine_submit returns and a
 * finished proof is on disk before anybody is told. On start the engine re-queues the
 * unfinished rows (same ids) and serves the finished ones until their retention ends.
 */
#include "czk/alloc.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct czk__journal {
    sqlite3 *db;
    pthread_mutex_t mu;
    int lock_fd; /* <data_dir>/lock, flock'ed: one engine per data directory */
    char path[4200];
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS jobs ("
    " job_id TEXT PRIMARY KEY, request_id TEXT NOT NULL, seq INTEGER NOT NULL,"
    " kind INTEGER NOT NULL, priority INTEGER NOT NULL, state INTEGER NOT NULL,"
    " payload BLOB NOT NULL, submitted_ms INTEGER NOT NULL, finished_ms INTEGER NOT NULL,"
    " proof BLOB, error INTEGER NOT NULL, error_message TEXT NOT NULL,"
    " t_queue INTEGER, t_srs INTEGER, t_synth INTEGER, t_gpu INTEGER, t_fin INTEGER,"
    " t_total INTEGER);"
    "CREATE INDEX IF NOT EXISTS jobs_request ON jobs(request_id);";

static czk_status db_err(czk__journal *jr, czk_err *err, const char *what)
{
    return czk_err_set(err, CZK_EIO, "%s: %s: %s", jr->path, what, sqlite3_errmsg(jr->db));
}

czk_status czk__journal_open(czk__journal **out, const char *data_dir, czk_err *err)
{
    *out = NULL;
    if (mkdir(data_dir, 0700) != 0 && errno != EEXIST)
        return czk_err_set(err, CZK_EIO, "data_dir %s: cannot create: %s", data_dir,
                           strerror(errno));
    czk__journal *jr = czk_calloc(1, sizeof *jr);
    if (jr == NULL) return czk_err_set(err, CZK_ENOMEM, "out of memory");
    snprintf(jr->path, sizeof jr->path, "%s/journal.db", data_dir);
    pthread_mutex_init(&jr->mu, NULL);
    /* Two engines on one journal would both re-queue its unfinished jobs. */
    char lock_path[4200];
    snprintf(lock_path, sizeof lock_path, "%s/lock", data_dir);
    jr->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (jr->lock_fd < 0) {
        czk_status st = czk_err_set(err, CZK_EIO, "data_dir %s: cannot open %s: %s", data_dir,
                                    lock_path, strerror(errno));
        pthread_mutex_destroy(&jr->mu);
        czk_free(jr);
        return st;
    }
    if (flock(jr->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        czk_status st = czk_err_set(err, CZK_EBUSY, "data_dir %s is in use by another engine (%s)",
                                    data_dir, lock_path);
        close(jr->lock_fd);
        pthread_mutex_destroy(&jr->mu);
        czk_free(jr);
        return st;
    }
    int rc = sqlite3_open_v2(jr->path, &jr->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                             NULL);
    czk_status st = CZK_OK;
    if (rc != SQLITE_OK) {
        st = czk_err_set(err, CZK_EIO, "data_dir %s: cannot open %s: %s", data_dir, jr->path,
                         jr->db ? sqlite3_errmsg(jr->db) : sqlite3_errstr(rc));
        goto fail;
    }
    sqlite3_busy_timeout(jr->db, 5000);
    /* WAL: a submit costs one append and one fsync; FULL: that fsync happens before the
     * commit returns, which is what "journaled before submit returns" means. */
    if (sqlite3_exec(jr->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", NULL, NULL,
                     NULL) != SQLITE_OK ||
        sqlite3_exec(jr->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
        st = db_err(jr, err, "cannot initialise the journal");
        goto fail;
    }
    *out = jr;
    return CZK_OK;
fail:
    if (jr->db) sqlite3_close(jr->db);
    close(jr->lock_fd);
    pthread_mutex_destroy(&jr->mu);
    czk_free(jr);
    return st;
}

void czk__journal_close(czk__journal *jr)
{
    if (jr == NULL) return;
    sqlite3_close(jr->db);
    close(jr->lock_fd); /* releases the flock */
    pthread_mutex_destroy(&jr->mu);
    czk_free(jr);
}

static void bind_timings(sqlite3_stmt *s, int first, const czk_job_timings *t)
{
    sqlite3_bind_int64(s, first + 0, (sqlite3_int64)t->queue_wait_ms);
    sqlite3_bind_int64(s, first + 1, (sqlite3_int64)t->srs_load_ms);
    sqlite3_bind_int64(s, first + 2, (sqlite3_int64)t->synthesis_ms);
    sqlite3_bind_int64(s, first + 3, (sqlite3_int64)t->gpu_compute_ms);
    sqlite3_bind_int64(s, first + 4, (sqlite3_int64)t->finalize_ms);
    sqlite3_bind_int64(s, first + 5, (sqlite3_int64)t->total_ms);
}

czk_status czk__journal_insert(czk__journal *jr, const czk__job *j, czk_err *err)
{
    static const char sql[] =
        "INSERT INTO jobs (job_id, request_id, seq, kind, priority, state, payload,"
        " submitted_ms, finished_ms, proof, error, error_message)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, NULL, 0, '')";
    pthread_mutex_lock(&jr->mu);
    sqlite3_stmt *s = NULL;
    czk_status st = CZK_OK;
    if (sqlite3_prepare_v2(jr->db, sql, -1, &s, NULL) != SQLITE_OK) {
        st = db_err(jr, err, "prepare insert");
        goto out;
    }
    sqlite3_bind_text(s, 1, j->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, j->request_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)j->seq);
    sqlite3_bind_int(s, 4, (int)j->kind);
    sqlite3_bind_int(s, 5, (int)j->prio);
    sqlite3_bind_int(s, 6, (int)CZK_JOB_QUEUED);
    sqlite3_bind_blob64(s, 7, j->payload, j->payload_len, SQLITE_STATIC);
    sqlite3_bind_int64(s, 8, (sqlite3_int64)j->submitted_unix_ms);
    if (sqlite3_step(s) != SQLITE_DONE) st = db_err(jr, err, "insert job");
out:
    sqlite3_finalize(s);
    pthread_mutex_unlock(&jr->mu);
    return st;
}

czk_status czk__journal_finish(czk__journal *jr, const czk__job *j, czk_err *err)
{
    static const char sql[] =
        "UPDATE jobs SET state = ?2, finished_ms = ?3, proof = ?4, error = ?5,"
        " error_message = ?6, t_queue = ?7, t_srs = ?8, t_synth = ?9, t_gpu = ?10,"
        " t_fin = ?11, t_total = ?12 WHERE job_id = ?1";
    pthread_mutex_lock(&jr->mu);
    sqlite3_stmt *s = NULL;
    czk_status st = CZK_OK;
    if (sqlite3_prepare_v2(jr->db, sql, -1, &s, NULL) != SQLITE_OK) {
        st = db_err(jr, err, "prepare update");
        goto out;
    }
    sqlite3_bind_text(s, 1, j->id, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 2, (int)j->state);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)j->finished_unix_ms);
    if (j->proof != NULL)
        sqlite3_bind_blob64(s, 4, j->proof, j->proof_len, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 4);
    sqlite3_bind_int(s, 5, (int)j->error);
    sqlite3_bind_text(s, 6, j->error_message, -1, SQLITE_STATIC);
    bind_timings(s, 7, &j->timings);
    if (sqlite3_step(s) != SQLITE_DONE) st = db_err(jr, err, "update job");
out:
    sqlite3_finalize(s);
    pthread_mutex_unlock(&jr->mu);
    return st;
}

czk_status czk__journal_delete(czk__journal *jr, const char *job_id, czk_err *err)
{
    pthread_mutex_lock(&jr->mu);
    sqlite3_stmt *s = NULL;
    czk_status st = CZK_OK;
    if (sqlite3_prepare_v2(jr->db, "DELETE FROM jobs WHERE job_id = ?1", -1, &s, NULL) !=
        SQLITE_OK) {
        st = db_err(jr, err, "prepare delete");
        goto out;
    }
    sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_DONE) st = db_err(jr, err, "delete job");
out:
    sqlite3_finalize(s);
    pthread_mutex_unlock(&jr->mu);
    return st;
}

static uint8_t *dup_blob(sqlite3_stmt *s, int col, size_t *len)
{
    const void *p = sqlite3_column_blob(s, col);
    int n = sqlite3_column_bytes(s, col);
    *len = 0;
    if (p == NULL || n <= 0) return NULL;
    uint8_t *d = czk_malloc((size_t)n);
    if (d == NULL) return NULL;
    memcpy(d, p, (size_t)n);
    *len = (size_t)n;
    return d;
}

czk_status czk__journal_load(czk__journal *jr, uint64_t min_finished_ms, czk__journal_row **rows,
                             size_t *n, czk_err *err)
{
    *rows = NULL;
    *n = 0;
    pthread_mutex_lock(&jr->mu);
    czk_status st = CZK_OK;
    sqlite3_stmt *s = NULL;
    czk__journal_row *r = NULL;
    size_t cnt = 0, cap = 0;
    if (sqlite3_prepare_v2(jr->db, "DELETE FROM jobs WHERE state >= 2 AND finished_ms < ?1", -1,
                           &s, NULL) != SQLITE_OK) {
        st = db_err(jr, err, "prepare expiry");
        goto out;
    }
    sqlite3_bind_int64(s, 1, (sqlite3_int64)min_finished_ms);
    if (sqlite3_step(s) != SQLITE_DONE) {
        st = db_err(jr, err, "expire jobs");
        goto out;
    }
    sqlite3_finalize(s);
    s = NULL;
    static const char sql[] =
        "SELECT job_id, request_id, seq, kind, priority, state, payload, submitted_ms,"
        " finished_ms, proof, error, error_message, t_queue, t_srs, t_synth, t_gpu, t_fin,"
        " t_total FROM jobs ORDER BY seq";
    if (sqlite3_prepare_v2(jr->db, sql, -1, &s, NULL) != SQLITE_OK) {
        st = db_err(jr, err, "prepare load");
        goto out;
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (cnt == cap) {
            cap = cap ? 2 * cap : 64;
            czk__journal_row *nr = czk_realloc(r, cap * sizeof *nr);
            if (nr == NULL) {
                st = czk_err_set(err, CZK_ENOMEM, "journal: out of memory");
                goto out;
            }
            r = nr;
        }
        czk__journal_row *w = &r[cnt];
        memset(w, 0, sizeof *w);
        const char *t = (const char *)sqlite3_column_text(s, 0);
        snprintf(w->job_id, sizeof w->job_id, "%s", t ? t : "");
        t = (const char *)sqlite3_column_text(s, 1);
        snprintf(w->request_id, sizeof w->request_id, "%s", t ? t : "");
        w->seq = (uint64_t)sqlite3_column_int64(s, 2);
        w->kind = sqlite3_column_int(s, 3);
        w->priority = sqlite3_column_int(s, 4);
        w->state = sqlite3_column_int(s, 5);
        w->payload = dup_blob(s, 6, &w->payload_len);
        w->submitted_ms = (uint64_t)sqlite3_column_int64(s, 7);
        w->finished_ms = (uint64_t)sqlite3_column_int64(s, 8);
        w->proof = dup_blob(s, 9, &w->proof_len);
        w->error = sqlite3_column_int(s, 10);
        t = (const char *)sqlite3_column_text(s, 11);
        snprintf(w->error_message, sizeof w->error_message, "%s", t ? t : "");
        w->timings.queue_wait_ms = (uint64_t)sqlite3_column_int64(s, 12);
        w->timings.srs_load_ms = (uint64_t)sqlite3_column_int64(s, 13);
        w->timings.synthesis_ms = (uint64_t)sqlite3_column_int64(s, 14);
        w->timings.gpu_compute_ms = (uint64_t)sqlite3_column_int64(s, 15);
        w->timings.finalize_ms = (uint64_t)sqlite3_column_int64(s, 16);
        w->timings.total_ms = (uint64_t)sqlite3_column_int64(s, 17);
        cnt++;
    }
    if (rc != SQLITE_DONE) st = db_err(jr, err, "read jobs");
out:
    sqlite3_finalize(s);
    pthread_mutex_unlock(&jr->mu);
    if (st != CZK_OK) {
        czk__journal_rows_free(r, cnt);
        return st;
    }
    *rows = r;
    *n = cnt;
    return CZK_OK;
}

void czk__journal_rows_free(czk__journal_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        czk_free(rows[i].payload);
        czk_free(rows[i].proof);
    }
    czk_free(rows);
}
