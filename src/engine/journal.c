/*
 * The job journal: SQLite at <data_dir>/journal.db in WAL mode with synchronous=FULL, so
 * an accepted job is on disk before czk_engine_submit returns and a finished proof is on
 * disk before anybody is told. On start the engine re-queues the unfinished rows (same
 * ids) and serves the finished ones until their retention ends.
 *
 * Nothing read back is trusted: every stored proof carries a SHA-256 of its job id and
 * bytes (a changed byte, a cut proof or two proofs swapped between jobs fail it), and the
 * file is checked with PRAGMA quick_check when it is opened. A damaged file is moved aside
 * (journal.db.damaged-<unix ms>), the rows that still read are copied into a fresh
 * journal, and the engine says so in its log and metrics; only if that cannot be done does
 * it refuse to start. A write that finds the file damaged while running marks the engine
 * not ready, so that health never says SERVING while every submission fails.
 */
#include "czk/alloc.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct czk__journal {
    sqlite3 *db;
    pthread_mutex_t mu;
    int lock_fd; /* <data_dir>/lock, flock'ed: one engine per data directory */
    char path[4200];
    czk__journal_health health;
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS jobs ("
    " job_id TEXT PRIMARY KEY, request_id TEXT NOT NULL, seq INTEGER NOT NULL,"
    " kind INTEGER NOT NULL, priority INTEGER NOT NULL, state INTEGER NOT NULL,"
    " payload BLOB NOT NULL, submitted_ms INTEGER NOT NULL, finished_ms INTEGER NOT NULL,"
    " proof BLOB, error INTEGER NOT NULL, error_message TEXT NOT NULL,"
    " t_queue INTEGER, t_srs INTEGER, t_synth INTEGER, t_gpu INTEGER, t_fin INTEGER,"
    " t_total INTEGER);"
    "CREATE INDEX IF NOT EXISTS jobs_request ON jobs(request_id);"
    /* Verified partition proofs of jobs a drain left unfinished: not proved again. */
    "CREATE TABLE IF NOT EXISTS parts ("
    " job_id TEXT NOT NULL, idx INTEGER NOT NULL, proof BLOB NOT NULL, sum BLOB NOT NULL,"
    " PRIMARY KEY (job_id, idx));";

/* Columns added to `jobs` after the first schema; a row written before them reads NULL. */
static const struct {
    const char *name, *decl;
} added_columns[] = {
    {"meaning", "BLOB"},   /* the request's meaning (request_id dedup); NULL: compare bytes */
    {"proof_sum", "BLOB"}, /* proof_sum() of the proof; NULL: stored before sums existed */
};

/* A write that finds the file damaged: from now on the engine is not ready. */
static void note_damage(czk__journal *jr, int rc)
{
    int prim = rc & 0xff;
    if (prim != SQLITE_CORRUPT && prim != SQLITE_NOTADB) return;
    if (!__atomic_exchange_n(&jr->health.damaged_now, true, __ATOMIC_RELAXED))
        CZK_LOG_ERROR("journal damaged while running: submissions refused until a restart "
                      "moves it aside",
                      "path=%s error=\"%s\"", jr->path, sqlite3_errstr(rc));
    __atomic_add_fetch(&jr->health.damage_events, 1, __ATOMIC_RELAXED);
}

static czk_status db_err(czk__journal *jr, czk_err *err, const char *what)
{
    note_damage(jr, sqlite3_extended_errcode(jr->db));
    return czk_err_set(err, CZK_EIO, "%s: %s: %s", jr->path, what, sqlite3_errmsg(jr->db));
}

/*
 * The checksum stored with a proof: SHA-256 of a domain, the job id, the partition (-1
 * for a whole job's proof) and the bytes. Bound to the job and partition, so that a proof
 * moved to another row fails it as a changed one does.
 */
static void proof_sum(uint8_t out[32], const char *job_id, int64_t idx, const uint8_t *p,
                      size_t n)
{
    static const char domain[] = "czk stored proof v1";
    uint8_t le[8];
    for (int i = 0; i < 8; i++) le[i] = (uint8_t)((uint64_t)idx >> (8 * i));
    uint64_t len = n;
    uint8_t ln[8];
    for (int i = 0; i < 8; i++) ln[i] = (uint8_t)(len >> (8 * i));
    unsigned olen = 0;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md != NULL && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 &&
              EVP_DigestUpdate(md, domain, sizeof domain - 1) == 1 &&
              EVP_DigestUpdate(md, job_id, strlen(job_id) + 1) == 1 &&
              EVP_DigestUpdate(md, le, 8) == 1 && EVP_DigestUpdate(md, ln, 8) == 1 &&
              EVP_DigestUpdate(md, p, n) == 1 && EVP_DigestFinal_ex(md, out, &olen) == 1;
    EVP_MD_CTX_free(md);
    /* A failed digest gives a sum no proof matches: the proof is then treated as damaged
     * and re-made, never served unchecked. */
    if (!ok) memset(out, 0, 32);
}

static bool has_column(sqlite3 *db, const char *name)
{
    sqlite3_stmt *s = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(db, "PRAGMA table_info(jobs)", -1, &s, NULL) != SQLITE_OK) return false;
    while (!found && sqlite3_step(s) == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(s, 1);
        found = n != NULL && strcmp(n, name) == 0;
    }
    sqlite3_finalize(s);
    return found;
}

static czk_status migrate(czk__journal *jr, czk_err *err)
{
    for (size_t i = 0; i < sizeof added_columns / sizeof added_columns[0]; i++) {
        if (has_column(jr->db, added_columns[i].name)) continue;
        char sql[160];
        snprintf(sql, sizeof sql, "ALTER TABLE jobs ADD COLUMN %s %s", added_columns[i].name,
                 added_columns[i].decl);
        if (sqlite3_exec(jr->db, sql, NULL, NULL, NULL) != SQLITE_OK)
            return db_err(jr, err, "cannot add a column to the journal");
    }
    return CZK_OK;
}

/* PRAGMA quick_check: true when the file is sound; else `why` says what SQLite found. */
static bool db_sound(sqlite3 *db, char *why, size_t cap)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &s, NULL);
    if (rc != SQLITE_OK) {
        snprintf(why, cap, "%s", sqlite3_errmsg(db));
        return false;
    }
    rc = sqlite3_step(s);
    bool ok = false;
    if (rc == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        ok = t != NULL && strcmp(t, "ok") == 0;
        snprintf(why, cap, "%s", t ? t : "no answer");
        if (ok && sqlite3_step(s) == SQLITE_ROW) ok = false; /* more than one line */
    } else {
        snprintf(why, cap, "%s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(s);
    return ok;
}

static czk_status db_open(czk__journal *jr, bool create, czk_err *err)
{
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(jr->path, &jr->db, flags, NULL);
    if (rc != SQLITE_OK) {
        czk_status st = czk_err_set(err, CZK_EIO, "cannot open %s: %s", jr->path,
                                    jr->db ? sqlite3_errmsg(jr->db) : sqlite3_errstr(rc));
        sqlite3_close(jr->db);
        jr->db = NULL;
        return st;
    }
    sqlite3_busy_timeout(jr->db, 5000);
    return CZK_OK;
}

/* WAL: a submit costs one append and one fsync; FULL: that fsync happens before the commit
 * returns, which is what "journaled before submit returns" means. */
static czk_status db_init(czk__journal *jr, czk_err *err)
{
    if (sqlite3_exec(jr->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", NULL, NULL,
                     NULL) != SQLITE_OK ||
        sqlite3_exec(jr->db, schema, NULL, NULL, NULL) != SQLITE_OK)
        return db_err(jr, err, "cannot initialise the journal");
    return migrate(jr, err);
}

/*
 * Copy the rows of `table` that still read from the damaged file `from` into the fresh
 * journal, one rowid at a time: a damaged page loses the rows on it, not the ones after.
 * Stops at the end of the table or after a long run of unreadable rowids (a damaged root
 * or interior page: nothing past it can be found), then returns false. *lost counts the
 * rowids that failed before a later one read.
 */
static bool copy_rows(sqlite3 *from, sqlite3 *to, const char *table, size_t *copied,
                      size_t *lost)
{
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT rowid, * FROM %s WHERE rowid >= ?1 ORDER BY rowid LIMIT 1",
             table);
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(from, sql, -1, &q, NULL) != SQLITE_OK) return false;
    sqlite3_int64 next = 1;
    unsigned bad_run = 0;
    bool whole = true;
    for (;;) {
        if (bad_run == 10000) {
            whole = false;
            break;
        }
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, next);
        int rc = sqlite3_step(q);
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) {
            bad_run++;
            next++;
            continue;
        }
        *lost += bad_run;
        bad_run = 0;
        sqlite3_int64 rowid = sqlite3_column_int64(q, 0);
        next = rowid + 1;
        /* The insert names the damaged table's own columns (an older schema has fewer). */
        int nc = sqlite3_column_count(q);
        char ins[2048];
        size_t k = (size_t)snprintf(ins, sizeof ins, "INSERT OR IGNORE INTO %s (", table);
        for (int c = 1; c < nc && k < sizeof ins; c++)
            k += (size_t)snprintf(ins + k, sizeof ins - k, "%s%s", c > 1 ? "," : "",
                                  sqlite3_column_name(q, c));
        for (int c = 1; c < nc && k < sizeof ins; c++)
            k += (size_t)snprintf(ins + k, sizeof ins - k, "%s?", c > 1 ? "," : ") VALUES (");
        if (k < sizeof ins) snprintf(ins + k, sizeof ins - k, ")");
        sqlite3_stmt *w = NULL;
        bool ok = k < sizeof ins && sqlite3_prepare_v2(to, ins, -1, &w, NULL) == SQLITE_OK;
        for (int c = 1; ok && c < nc; c++)
            ok = sqlite3_bind_value(w, c, sqlite3_column_value(q, c)) == SQLITE_OK;
        ok = ok && sqlite3_step(w) == SQLITE_DONE;
        sqlite3_finalize(w);
        if (ok) (*copied)++;
        else (*lost)++;
    }
    sqlite3_finalize(q);
    return whole;
}

/*
 * The journal failed its check: move it (and its WAL, which holds committed rows) aside,
 * start a fresh one, and copy into it what still reads. An error only when the fresh
 * journal cannot be made.
 */
static czk_status recover_damaged(czk__journal *jr, const char *why, czk_err *err)
{
    sqlite3_close(jr->db);
    jr->db = NULL;
    uint64_t ms = czk_unix_ms();
    czk__journal_health *h = &jr->health;
    snprintf(h->aside, sizeof h->aside, "%s.damaged-%" PRIu64, jr->path, ms);
    snprintf(h->check, sizeof h->check, "%s", why);
    char from[4400], to[4400];
    if (rename(jr->path, h->aside) != 0)
        return czk_err_set(err, CZK_EIO,
                           "journal %s is damaged (%s) and cannot be moved aside: %s", jr->path,
                           why, strerror(errno));
    snprintf(from, sizeof from, "%s-wal", jr->path);
    snprintf(to, sizeof to, "%s-wal", h->aside);
    if (rename(from, to) != 0 && errno != ENOENT)
        CZK_LOG_WARN("cannot move the damaged journal's WAL aside", "path=%s error=\"%s\"", from,
                     strerror(errno));
    snprintf(from, sizeof from, "%s-shm", jr->path);
    unlink(from); /* an index of the WAL, rebuilt from it */
    h->damaged_at_open = true;
    h->damage_events++;
    czk_status st = db_open(jr, true, err);
    if (st == CZK_OK) st = db_init(jr, err);
    if (st != CZK_OK)
        return czk_err_set(err, st,
                           "journal %s is damaged (%s) and a fresh one cannot be made: %s",
                           jr->path, why, err ? err->msg : "");
    sqlite3 *old = NULL;
    bool whole = false;
    if (sqlite3_open_v2(h->aside, &old, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
        sqlite3_exec(jr->db, "BEGIN", NULL, NULL, NULL);
        whole = copy_rows(old, jr->db, "jobs", &h->rows_recovered, &h->rows_lost);
        size_t parts_lost = 0, parts = 0;
        (void)copy_rows(old, jr->db, "parts", &parts, &parts_lost);
        if (sqlite3_exec(jr->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
            sqlite3_exec(jr->db, "ROLLBACK", NULL, NULL, NULL);
            h->rows_lost += h->rows_recovered;
            h->rows_recovered = 0;
        }
    }
    sqlite3_close(old);
    CZK_LOG_ERROR("journal damaged: moved aside; the rows that read are in a fresh journal",
                  "path=%s aside=%s check=\"%s\" rows_recovered=%zu rows_lost=%zu%s", jr->path,
                  h->aside, why, h->rows_recovered, h->rows_lost,
                  whole ? "" : " rest_unreadable=true");
    return CZK_OK;
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
    czk_status st = db_open(jr, true, err);
    if (st != CZK_OK) {
        czk_err_set(err, st, "data_dir %s: %s", data_dir, err ? err->msg : "");
        goto fail;
    }
    char why[256];
    if (!db_sound(jr->db, why, sizeof why)) st = recover_damaged(jr, why, err);
    else st = db_init(jr, err);
    if (st != CZK_OK) goto fail;
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

/* Without the journal's lock, which a write holds through its fsync: status calls read
 * this. The counters change atomically, the rest only while the journal opens. */
void czk__journal_health_get(czk__journal *jr, czk__journal_health *out)
{
    const czk__journal_health *h = &jr->health;
    out->damaged_at_open = h->damaged_at_open;
    out->damaged_now = __atomic_load_n(&h->damaged_now, __ATOMIC_RELAXED);
    out->damage_events = __atomic_load_n(&h->damage_events, __ATOMIC_RELAXED);
    out->rows_recovered = h->rows_recovered;
    out->rows_lost = h->rows_lost;
    memcpy(out->aside, h->aside, sizeof out->aside);
    memcpy(out->check, h->check, sizeof out->check);
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

/* Run one statement (no rows) with the text parameter ?1 = job_id. */
static czk_status exec_job(czk__journal *jr, const char *sql, const char *job_id, czk_err *err,
                           const char *what)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(jr->db, sql, -1, &s, NULL) != SQLITE_OK) return db_err(jr, err, what);
    sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    czk_status st = sqlite3_step(s) == SQLITE_DONE ? CZK_OK : db_err(jr, err, what);
    sqlite3_finalize(s);
    return st;
}

czk_status czk__journal_insert(czk__journal *jr, const czk__job *j, czk_err *err)
{
    static const char sql[] =
        "INSERT INTO jobs (job_id, request_id, seq, kind, priority, state, payload,"
        " submitted_ms, finished_ms, proof, error, error_message, meaning)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, NULL, 0, '', ?9)";
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
    if (j->has_meaning) sqlite3_bind_blob(s, 9, j->meaning, 32, SQLITE_STATIC);
    else sqlite3_bind_null(s, 9);
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
        " t_fin = ?11, t_total = ?12, proof_sum = ?13 WHERE job_id = ?1";
    pthread_mutex_lock(&jr->mu);
    sqlite3_stmt *s = NULL;
    czk_status st = CZK_OK;
    uint8_t sum[32];
    if (sqlite3_prepare_v2(jr->db, sql, -1, &s, NULL) != SQLITE_OK) {
        st = db_err(jr, err, "prepare update");
        goto out;
    }
    sqlite3_bind_text(s, 1, j->id, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 2, (int)j->state);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)j->finished_unix_ms);
    if (j->proof != NULL) {
        sqlite3_bind_blob64(s, 4, j->proof, j->proof_len, SQLITE_STATIC);
        proof_sum(sum, j->id, -1, j->proof, j->proof_len);
        sqlite3_bind_blob(s, 13, sum, 32, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(s, 4);
        sqlite3_bind_null(s, 13);
    }
    sqlite3_bind_int(s, 5, (int)j->error);
    sqlite3_bind_text(s, 6, j->error_message, -1, SQLITE_STATIC);
    bind_timings(s, 7, &j->timings);
    if (sqlite3_step(s) != SQLITE_DONE) st = db_err(jr, err, "update job");
    /* A finished job needs no partition proofs kept for a restart. */
    if (st == CZK_OK)
        st = exec_job(jr, "DELETE FROM parts WHERE job_id = ?1", j->id, err, "delete parts");
out:
    sqlite3_finalize(s);
    pthread_mutex_unlock(&jr->mu);
    return st;
}

czk_status czk__journal_requeue(czk__journal *jr, const char *job_id, czk_err *err)
{
    pthread_mutex_lock(&jr->mu);
    czk_status st = exec_job(jr,
                             "UPDATE jobs SET state = 0, finished_ms = 0, proof = NULL,"
                             " proof_sum = NULL, error = 0, error_message = '' WHERE job_id = ?1",
                             job_id, err, "requeue job");
    pthread_mutex_unlock(&jr->mu);
    return st;
}

czk_status czk__journal_delete(czk__journal *jr, const char *job_id, czk_err *err)
{
    pthread_mutex_lock(&jr->mu);
    czk_status st = exec_job(jr, "DELETE FROM jobs WHERE job_id = ?1", job_id, err, "delete job");
    if (st == CZK_OK)
        st = exec_job(jr, "DELETE FROM parts WHERE job_id = ?1", job_id, err, "delete parts");
    pthread_mutex_unlock(&jr->mu);
    return st;
}

czk_status czk__journal_save_parts(czk__journal *jr, const char *job_id, const uint32_t *idx,
                                   const uint8_t *proofs, size_t n, czk_err *err)
{
    if (n == 0) return CZK_OK;
    pthread_mutex_lock(&jr->mu);
    sqlite3_stmt *s = NULL;
    czk_status st = CZK_OK;
    if (sqlite3_exec(jr->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(jr->db,
                           "INSERT OR REPLACE INTO parts (job_id, idx, proof, sum)"
                           " VALUES (?1, ?2, ?3, ?4)",
                           -1, &s, NULL) != SQLITE_OK) {
        st = db_err(jr, err, "prepare parts");
        goto out;
    }
    for (size_t i = 0; i < n && st == CZK_OK; i++) {
        const uint8_t *p = proofs + i * CZK_GROTH16_PROOF_SIZE;
        uint8_t sum[32];
        proof_sum(sum, job_id, idx[i], p, CZK_GROTH16_PROOF_SIZE);
        sqlite3_reset(s);
        sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 2, idx[i]);
        sqlite3_bind_blob(s, 3, p, CZK_GROTH16_PROOF_SIZE, SQLITE_STATIC);
        sqlite3_bind_blob(s, 4, sum, 32, SQLITE_TRANSIENT);
        if (sqlite3_step(s) != SQLITE_DONE) st = db_err(jr, err, "save a partition proof");
    }
out:
    sqlite3_finalize(s);
    if (st == CZK_OK && sqlite3_exec(jr->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        st = db_err(jr, err, "commit partition proofs");
    if (st != CZK_OK) sqlite3_exec(jr->db, "ROLLBACK", NULL, NULL, NULL);
    pthread_mutex_unlock(&jr->mu);
    return st;
}

czk_status czk__journal_load_parts(czk__journal *jr, czk__journal_part **out, size_t *n,
                                   size_t *damaged, czk_err *err)
{
    *out = NULL;
    *n = 0;
    *damaged = 0;
    pthread_mutex_lock(&jr->mu);
    sqlite3_stmt *s = NULL;
    czk__journal_part *v = NULL;
    size_t cnt = 0, cap = 0;
    czk_status st = CZK_OK;
    if (sqlite3_prepare_v2(jr->db, "SELECT job_id, idx, proof, sum FROM parts", -1, &s, NULL) !=
        SQLITE_OK) {
        st = db_err(jr, err, "prepare parts load");
        goto out;
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(s, 0);
        sqlite3_int64 idx = sqlite3_column_int64(s, 1);
        const void *p = sqlite3_column_blob(s, 2);
        int plen = sqlite3_column_bytes(s, 2);
        const void *sum = sqlite3_column_blob(s, 3);
        int slen = sqlite3_column_bytes(s, 3);
        uint8_t want[32];
        bool ok = id != NULL && strlen(id) < CZK_JOB_ID_MAX && idx >= 0 && idx < (1 << 20) &&
                  p != NULL && plen == CZK_GROTH16_PROOF_SIZE && sum != NULL && slen == 32;
        if (ok) proof_sum(want, id, idx, p, (size_t)plen);
        if (!ok || memcmp(want, sum, 32) != 0) {
            (*damaged)++;
            continue;
        }
        if (cnt == cap) {
            cap = cap ? 2 * cap : 16;
            czk__journal_part *nv = czk_realloc(v, cap * sizeof *nv);
            if (nv == NULL) {
                st = czk_err_set(err, CZK_ENOMEM, "journal: out of memory");
                goto out;
            }
            v = nv;
        }
        snprintf(v[cnt].job_id, sizeof v[cnt].job_id, "%s", id);
        v[cnt].idx = (uint32_t)idx;
        memcpy(v[cnt].proof, p, CZK_GROTH16_PROOF_SIZE);
        cnt++;
    }
    if (rc != SQLITE_DONE) st = db_err(jr, err, "read parts");
out:
    sqlite3_finalize(s);
    pthread_mutex_unlock(&jr->mu);
    if (st != CZK_OK) {
        czk_free(v);
        return st;
    }
    *out = v;
    *n = cnt;
    return CZK_OK;
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
        " t_total, meaning, proof_sum FROM jobs ORDER BY seq";
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
        if (sqlite3_column_bytes(s, 18) == 32) {
            memcpy(w->meaning, sqlite3_column_blob(s, 18), 32);
            w->has_meaning = true;
        }
        /* A DONE row's proof is served only if it is what was stored: its sum matches
         * (or, written before sums existed, it is whole proofs of 192 bytes). */
        if (w->state == CZK_JOB_DONE) {
            const void *sum = sqlite3_column_blob(s, 19);
            int slen = sqlite3_column_bytes(s, 19);
            bool whole = w->proof != NULL && w->proof_len % CZK_GROTH16_PROOF_SIZE == 0;
            bool ok;
            if (sum == NULL) {
                ok = whole;
            } else {
                uint8_t want[32];
                if (w->proof != NULL) proof_sum(want, w->job_id, -1, w->proof, w->proof_len);
                ok = w->proof != NULL && slen == 32 && memcmp(want, sum, 32) == 0;
            }
            if (!ok) {
                w->proof_damaged = true;
                czk_free(w->proof);
                w->proof = NULL;
                w->proof_len = 0;
            }
        }
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
