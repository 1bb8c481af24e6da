/*
 * Shared machinery of the Groth16 file formats: file mapping, atomic writes, the snarkjs
 * point encoding and the parallel validating point decoder (see io_internal.h).
 */
#include "czk/alloc.h"
#include "groth16/io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------ */
/* Files                                                                                */
/* ------------------------------------------------------------------------------------ */

static const char *errno_text(int e, char *buf, size_t cap)
{
    /* GNU strerror_r: thread-safe, returns the message (maybe not in buf). */
    return strerror_r(e, buf, cap);
}

czk_status czk__map_open(czk__map *m, const char *path, czk_err *err)
{
    char eb[128];
    m->data = NULL;
    m->len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return czk_err_set(err, e == ENOENT ? CZK_ENOENT : CZK_EIO, "%s: %s", path,
                           errno_text(e, eb, sizeof eb));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return czk_err_set(err, CZK_EIO, "%s: %s", path, errno_text(e, eb, sizeof eb));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return czk_err_set(err, CZK_EIO, "%s: not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return CZK_OK;
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        close(fd);
        return czk_err_set(err, CZK_ERESOURCE, "%s: too large to map", path);
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd); /* the mapping keeps its own reference */
    if (p == MAP_FAILED)
        return czk_err_set(err, CZK_EIO, "%s: mmap: %s", path, errno_text(e, eb, sizeof eb));
    m->data = p;
    m->len = (size_t)st.st_size;
    return CZK_OK;
}

void czk__map_close(czk__map *m)
{
    if (m->data != NULL) munmap((void *)m->data, m->len);
    m->data = NULL;
    m->len = 0;
}

czk_status czk__wfile_open(czk__wfile *w, const char *path, czk_err *err)
{
    char eb[128];
    memset(w, 0, sizeof *w);
    w->path = path;
    size_t n = strlen(path) + 8;
    w->tmp_path = czk_malloc(n);
    if (w->tmp_path == NULL) return czk_err_set(err, CZK_ENOMEM, "%s: out of memory", path);
    snprintf(w->tmp_path, n, "%s.XXXXXX", path);
    /* mkstemp gives each writer its own temporary name, even for one path written twice. */
    int fd = mkstemp(w->tmp_path);
    if (fd < 0) {
        int e = errno;
        czk_free(w->tmp_path);
        w->tmp_path = NULL;
        return czk_err_set(err, e == ENOENT ? CZK_ENOENT : CZK_EIO, "%s: cannot create: %s", path,
                           errno_text(e, eb, sizeof eb));
    }
    (void)fchmod(fd, 0644); /* mkstemp creates 0600; these files are meant to be shared */
    w->f = fdopen(fd, "wb");
    if (w->f == NULL) {
        int e = errno;
        close(fd);
        unlink(w->tmp_path);
        czk_free(w->tmp_path);
        w->tmp_path = NULL;
        return czk_err_set(err, CZK_EIO, "%s: %s", path, errno_text(e, eb, sizeof eb));
    }
    return CZK_OK;
}

void czk__wfile_put(czk__wfile *w, const void *p, size_t n)
{
    if (w->err_no != 0 || n == 0) return;
    if (fwrite(p, 1, n, w->f) != n) w->err_no = errno != 0 ? errno : EIO;
}

void czk__wfile_abort(czk__wfile *w)
{
    if (w->f != NULL) fclose(w->f);
    if (w->tmp_path != NULL) unlink(w->tmp_path);
    czk_free(w->tmp_path);
    memset(w, 0, sizeof *w);
}

czk_status czk__wfile_commit(czk__wfile *w, czk_err *err)
{
    char eb[128];
    const char *path = w->path;
    if (w->err_no == 0 && fflush(w->f) != 0) w->err_no = errno != 0 ? errno : EIO;
    if (w->err_no == 0 && ferror(w->f)) w->err_no = EIO;
    int rc = fclose(w->f);
    w->f = NULL;
    if (w->err_no == 0 && rc != 0) w->err_no = errno != 0 ? errno : EIO;
    if (w->err_no == 0 && rename(w->tmp_path, path) != 0) w->err_no = errno != 0 ? errno : EIO;
    int e = w->err_no;
    if (e != 0) {
        czk__wfile_abort(w);
        return czk_err_set(err, CZK_EIO, "%s: write failed: %s", path,
                           errno_text(e, eb, sizeof eb));
    }
    czk_free(w->tmp_path);
    memset(w, 0, sizeof *w);
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Moduli                                                                               */
/* ------------------------------------------------------------------------------------ */

/* BN254 (bn128, alt_bn128): r and q, least significant limb first. */
static const uint64_t BN254_R[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                                    0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const uint64_t BN254_Q[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                                    0xb85045b68181585dULL, 0x30644e72e131a029ULL};

static bool le_equals_limbs(const uint8_t *b, size_t n, const uint64_t *limbs, size_t nl)
{
    if (n != 8 * nl) return false;
    for (size_t i = 0; i < nl; i++)
        if (czk__ld64le(b + 8 * i) != limbs[i]) return false;
    return true;
}

/* a < b for nl little-endian limbs. */
static bool limbs_lt(const uint64_t *a, const uint64_t *b, size_t nl)
{
    for (size_t i = nl; i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i];
    return false;
}

bool czk__is_fr_modulus_le(const uint8_t *b, size_t n)
{
    return le_equals_limbs(b, n, CZK_FR_MODULUS, 4);
}

bool czk__is_fp_modulus_le(const uint8_t *b, size_t n)
{
    return le_equals_limbs(b, n, CZK_FP_MODULUS, 6);
}

bool czk__is_bn254_prime_le(const uint8_t *b, size_t n)
{
    return le_equals_limbs(b, n, BN254_R, 4) || le_equals_limbs(b, n, BN254_Q, 4);
}

void czk__fr_modulus_to_le(uint8_t out[32])
{
    for (int i = 0; i < 4; i++) czk__st64le(out + 8 * i, CZK_FR_MODULUS[i]);
}

bool czk__fr_from_double_mont_le(czk_fr *out, const uint8_t in[32])
{
    /* The stored integer s = c·R² mod r. As limbs it is the Montgomery form of c·R, and a
     * Montgomery product with the plain integer 1 divides by R once more: s·1·R⁻¹ = c·R,
     * which is the Montgomery form of c. */
    static const czk_fr raw_one = {{1, 0, 0, 0}};
    czk_fr s;
    for (int i = 0; i < 4; i++) s.l[i] = czk__ld64le(in + 8 * i);
    if (!limbs_lt(s.l, CZK_FR_MODULUS, 4)) return false;
    czk_fr_mul(out, &s, &raw_one);
    return true;
}

/* ------------------------------------------------------------------------------------ */
/* snarkjs points                                                                        */
/* ------------------------------------------------------------------------------------ */

bool czk__fp_from_mont_le(czk_fp *out, const uint8_t in[48])
{
    /* ffjavascript's Fq uses R = 2^384 like czk, so the stored limbs are czk's limbs. */
    for (int i = 0; i < 6; i++) out->l[i] = czk__ld64le(in + 8 * i);
    return limbs_lt(out->l, CZK_FP_MODULUS, 6);
}

void czk__fp_to_mont_le(uint8_t out[48], const czk_fp *a)
{
    for (int i = 0; i < 6; i++) czk__st64le(out + 8 * i, a->l[i]);
}

czk_status czk__g1_from_mont_le(czk_g1_affine *out, const uint8_t in[96], unsigned flags)
{
    czk_g1_affine p;
    if (!czk__fp_from_mont_le(&p.x, in) || !czk__fp_from_mont_le(&p.y, in + 48))
        return CZK_ENONCANONICAL;
    if (czk_g1_affine_is_inf(&p)) {
        if (flags & CZK_DECODE_REJECT_INFINITY) return CZK_EINFINITY;
    } else {
        if (!czk_g1_affine_on_curve(&p)) return CZK_ENOTONCURVE;
        if ((flags & CZK_DECODE_CHECK_SUBGROUP) && !czk_g1_affine_in_subgroup(&p))
            return CZK_ENOTINSUBGROUP;
    }
    *out = p;
    return CZK_OK;
}

czk_status czk__g2_from_mont_le(czk_g2_affine *out, const uint8_t in[192], unsigned flags)
{
    czk_g2_affine p;
    if (!czk__fp_from_mont_le(&p.x.c0, in) || !czk__fp_from_mont_le(&p.x.c1, in + 48) ||
        !czk__fp_from_mont_le(&p.y.c0, in + 96) || !czk__fp_from_mont_le(&p.y.c1, in + 144))
        return CZK_ENONCANONICAL;
    if (czk_g2_affine_is_inf(&p)) {
        if (flags & CZK_DECODE_REJECT_INFINITY) return CZK_EINFINITY;
    } else {
        if (!czk_g2_affine_on_curve(&p)) return CZK_ENOTONCURVE;
        if ((flags & CZK_DECODE_CHECK_SUBGROUP) && !czk_g2_affine_in_subgroup(&p))
            return CZK_ENOTINSUBGROUP;
    }
    *out = p;
    return CZK_OK;
}

void czk__g1_to_mont_le(uint8_t out[96], const czk_g1_affine *p)
{
    czk__fp_to_mont_le(out, &p->x);
    czk__fp_to_mont_le(out + 48, &p->y);
}

void czk__g2_to_mont_le(uint8_t out[192], const czk_g2_affine *p)
{
    czk__fp_to_mont_le(out, &p->x.c0);
    czk__fp_to_mont_le(out + 48, &p->x.c1);
    czk__fp_to_mont_le(out + 96, &p->y.c0);
    czk__fp_to_mont_le(out + 144, &p->y.c1);
}

czk_status czk__point_decode(void *dst, const uint8_t *src, czk__point_enc enc, unsigned flags)
{
    switch (enc) {
    case CZK__G1_ZCASH:
        return czk_g1_from_uncompressed(dst, src, flags);
    case CZK__G2_ZCASH:
        return czk_g2_from_uncompressed(dst, src, flags);
    case CZK__G1_MONT:
        return czk__g1_from_mont_le(dst, src, flags);
    case CZK__G2_MONT:
        return czk__g2_from_mont_le(dst, src, flags);
    }
    return CZK_EINTERNAL;
}

void *czk__points_alloc(size_t n, size_t elem_size)
{
    if (n == 0) return NULL;
    if (n > SIZE_MAX / elem_size) return NULL;
    return czk_aligned_alloc(64, n * elem_size);
}

/* ------------------------------------------------------------------------------------ */
/* Parallel decoding                                                                     */
/* ------------------------------------------------------------------------------------ */

/* Points per task: large enough that the atomic hand-out is noise (a G1 decode costs about
 * a microsecond), small enough to balance 16+ threads on the smallest sections. */
#define DECODE_CHUNK 2048

typedef struct decode_ctx {
    const czk__point_range *ranges;
    size_t n_ranges;
    size_t *first_task; /* n_ranges + 1 prefix sums of the ranges' task counts */
    /* The lowest task that failed so far; tasks above it are skipped, tasks below it still
     * run, so the reported point is the first bad one in file order. */
    atomic_size_t bad_task;
    pthread_mutex_t lock;
    czk_status bad_status;
    size_t bad_range, bad_index;
} decode_ctx;

static void decode_task(void *vctx, size_t task, unsigned worker)
{
    (void)worker;
    decode_ctx *c = vctx;
    if (task > atomic_load_explicit(&c->bad_task, memory_order_relaxed)) return;
    size_t k = 0;
    while (task >= c->first_task[k + 1]) k++;
    const czk__point_range *r = &c->ranges[k];
    size_t begin = (task - c->first_task[k]) * DECODE_CHUNK;
    size_t end = begin + DECODE_CHUNK < r->n ? begin + DECODE_CHUNK : r->n;
    size_t esz = czk__point_enc_size(r->enc);
    size_t dsz = czk__point_enc_is_g2(r->enc) ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine);
    uint8_t *dst = r->dst;
    for (size_t i = begin; i < end; i++) {
        czk_status st = czk__point_decode(dst + i * dsz, r->src + i * esz, r->enc, r->flags);
        if (st != CZK_OK) {
            pthread_mutex_lock(&c->lock);
            if (task < atomic_load_explicit(&c->bad_task, memory_order_relaxed)) {
                c->bad_status = st;
                c->bad_range = k;
                c->bad_index = r->first + i;
                atomic_store_explicit(&c->bad_task, task, memory_order_relaxed);
            }
            pthread_mutex_unlock(&c->lock);
            return;
        }
    }
}

czk_status czk__points_decode(const czk__point_range *ranges, size_t n_ranges, czk_pool *pool,
                              const char *file, czk_err *err)
{
    decode_ctx c;
    memset(&c, 0, sizeof c);
    c.ranges = ranges;
    c.n_ranges = n_ranges;
    c.first_task = czk_malloc((n_ranges + 1) * sizeof *c.first_task);
    if (c.first_task == NULL) return czk_err_set(err, CZK_ENOMEM, "%s: out of memory", file);
    c.first_task[0] = 0;
    for (size_t k = 0; k < n_ranges; k++)
        c.first_task[k + 1] = c.first_task[k] + (ranges[k].n + DECODE_CHUNK - 1) / DECODE_CHUNK;
    atomic_init(&c.bad_task, SIZE_MAX);
    pthread_mutex_init(&c.lock, NULL);
    czk_pool_run(pool, c.first_task[n_ranges], decode_task, &c);
    pthread_mutex_destroy(&c.lock);
    czk_free(c.first_task);
    if (atomic_load(&c.bad_task) == SIZE_MAX) return CZK_OK;
    return czk_err_set(err, c.bad_status, "%s: %s point %zu: %s", file, ranges[c.bad_range].what,
                       c.bad_index, czk_strerror(c.bad_status));
}
