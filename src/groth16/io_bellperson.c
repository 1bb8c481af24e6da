/*
 * bellperson / Filecoin encodings (docs/formats.md §2, §3.1): the 192-byte proof, the
 * verifying key and the .params file. Points are zcash-encoded, lengths are u32
 * big-endian, there is no header and no padding. Every byte is checked: lengths against
 * the file size before anything is allocated, coordinates below p, points on the curve,
 * in the subgroup where bellperson's checked reader would check, identity rejected where
 * bellperson rejects it.
 */
#include "czk/alloc.h"
#include "groth16/io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes of the verifying key before the IC points: six points and the u32 ic_len. */
#define VK_FIXED_SIZE (3 * 96 + 3 * 192 + 4)
/* Points encoded per write call. */
#define WRITE_CHUNK 4096

/* ------------------------------------------------------------------------------------ */
/* Proof                                                                                */
/* ------------------------------------------------------------------------------------ */

void czk_groth16_proof_write(uint8_t out[192], const czk_groth16_proof *p)
{
    czk_g1_to_compressed(out, &p->a);
    czk_g2_to_compressed(out + 48, &p->b);
    czk_g1_to_compressed(out + 144, &p->c);
}

czk_status czk_groth16_proof_read(czk_groth16_proof *out, const uint8_t in[192], czk_err *err)
{
    /* bellperson's Proof::read: checked decoding (subgroup) and no identity anywhere. */
    const unsigned flags = CZK_DECODE_CHECK_SUBGROUP | CZK_DECODE_REJECT_INFINITY;
    czk_groth16_proof p;
    czk_status st = czk_g1_from_compressed(&p.a, in, flags);
    if (st != CZK_OK) return czk_err_set(err, st, "proof: A (bytes 0-47): %s", czk_strerror(st));
    st = czk_g2_from_compressed(&p.b, in + 48, flags);
    if (st != CZK_OK) return czk_err_set(err, st, "proof: B (bytes 48-143): %s", czk_strerror(st));
    st = czk_g1_from_compressed(&p.c, in + 144, flags);
    if (st != CZK_OK) return czk_err_set(err, st, "proof: C (bytes 144-191): %s", czk_strerror(st));
    *out = p;
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Verifying key                                                                        */
/* ------------------------------------------------------------------------------------ */

size_t czk_groth16_vk_size(const czk_groth16_vk *vk)
{
    return VK_FIXED_SIZE + 96 * vk->ic_len;
}

czk_status czk_groth16_vk_write(uint8_t *out, size_t cap, const czk_groth16_vk *vk, czk_err *err)
{
    if (vk->ic_len > UINT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "vk: ic_len %zu does not fit the u32 length",
                           vk->ic_len);
    size_t need = czk_groth16_vk_size(vk);
    if (cap < need)
        return czk_err_set(err, CZK_EINVAL, "vk: buffer holds %zu bytes, the key needs %zu", cap,
                           need);
    czk_g1_to_uncompressed(out, &vk->alpha_g1);
    czk_g1_to_uncompressed(out + 96, &vk->beta_g1);
    czk_g2_to_uncompressed(out + 192, &vk->beta_g2);
    czk_g2_to_uncompressed(out + 384, &vk->gamma_g2);
    czk_g1_to_uncompressed(out + 576, &vk->delta_g1);
    czk_g2_to_uncompressed(out + 672, &vk->delta_g2);
    czk__st32be(out + 864, (uint32_t)vk->ic_len);
    for (size_t i = 0; i < vk->ic_len; i++) czk_g1_to_uncompressed(out + 868 + 96 * i, &vk->ic[i]);
    return CZK_OK;
}

/*
 * Parse a verifying key at the start of `in` (len bytes available); *used gets its size.
 * `name` prefixes every message (the file, or "vk"). bellperson reads the key with
 * checked decoding and rejects an identity IC point; the other points may be anything in
 * the group.
 */
static czk_status vk_parse(czk_groth16_vk *out, const uint8_t *in, size_t len, size_t *used,
                           const char *name, czk_err *err)
{
    static const struct {
        const char *name;
        size_t off;
        bool g2;
    } fixed[6] = {{"alpha_g1", 0, false},  {"beta_g1", 96, false},   {"beta_g2", 192, true},
                  {"gamma_g2", 384, true}, {"delta_g1", 576, false}, {"delta_g2", 672, true}};
    memset(out, 0, sizeof *out);
    if (len < VK_FIXED_SIZE)
        return czk_err_set(err, CZK_ETRUNCATED,
                           "%s: verifying key truncated: %zu bytes, the fixed part needs %d", name,
                           len, VK_FIXED_SIZE);
    uint32_t ic_len = czk__ld32be(in + 864);
    uint64_t need = VK_FIXED_SIZE + (uint64_t)96 * ic_len;
    if (need > len)
        return czk_err_set(err, CZK_ETRUNCATED,
                           "%s: verifying key truncated: ic_len %" PRIu32 " needs %" PRIu64
                           " bytes, %zu present",
                           name, ic_len, need, len);
    if (ic_len == 0)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: ic_len is 0 (ic[0] belongs to the constant ONE input)", name);
    czk_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    czk_g1_affine *g1s[6] = {&vk.alpha_g1, &vk.beta_g1, NULL, NULL, &vk.delta_g1, NULL};
    czk_g2_affine *g2s[6] = {NULL, NULL, &vk.beta_g2, &vk.gamma_g2, NULL, &vk.delta_g2};
    for (int k = 0; k < 6; k++) {
        czk_status st =
            fixed[k].g2 ? czk_g2_from_uncompressed(g2s[k], in + fixed[k].off, CZK_DECODE_DEFAULT)
                        : czk_g1_from_uncompressed(g1s[k], in + fixed[k].off, CZK_DECODE_DEFAULT);
        if (st != CZK_OK)
            return czk_err_set(err, st, "%s: vk %s: %s", name, fixed[k].name, czk_strerror(st));
    }
    vk.ic_len = ic_len;
    vk.ic = czk__points_alloc(ic_len, sizeof(czk_g1_affine));
    if (vk.ic == NULL) return czk_err_set(err, CZK_ENOMEM, "%s: out of memory for ic", name);
    czk__point_range r = {
        "vk ic",  CZK__G1_ZCASH, CZK_DECODE_CHECK_SUBGROUP | CZK_DECODE_REJECT_INFINITY,
        in + 868, ic_len,        vk.ic, 0};
    czk_status st = czk__points_decode(&r, 1, NULL, name, err);
    if (st != CZK_OK) {
        czk_groth16_vk_free(&vk);
        return st;
    }
    *out = vk;
    *used = (size_t)need;
    return CZK_OK;
}

czk_status czk_groth16_vk_read(czk_groth16_vk *out, const uint8_t *in, size_t len, czk_err *err)
{
    size_t used = 0;
    czk_status st = vk_parse(out, in, len, &used, "vk", err);
    if (st != CZK_OK) return st;
    if (used != len) {
        czk_groth16_vk_free(out);
        return czk_err_set(err, CZK_EFORMAT, "vk: %zu trailing bytes after the last ic point",
                           len - used);
    }
    return CZK_OK;
}

czk_status czk_groth16_vk_read_file(czk_groth16_vk *out, const char *path, czk_err *err)
{
    memset(out, 0, sizeof *out);
    czk__map m;
    czk_status st = czk__map_open(&m, path, err);
    if (st != CZK_OK) return st;
    size_t used = 0;
    st = vk_parse(out, m.data, m.len, &used, path, err);
    if (st == CZK_OK && used != m.len) {
        czk_groth16_vk_free(out);
        st = czk_err_set(err, CZK_EFORMAT, "%s: %zu trailing bytes after the last ic point", path,
                         m.len - used);
    }
    czk__map_close(&m);
    return st;
}

/* ------------------------------------------------------------------------------------ */
/* .params                                                                              */
/* ------------------------------------------------------------------------------------ */

struct czk_groth16_params_file {
    czk__map m;
    int fd; /* the same file, for czk_groth16_params_file_read */
    char *path;
    const uint8_t *src[CZK_G16_SECTIONS]; /* each section's first encoded point */
    size_t len[CZK_G16_SECTIONS];
};

static size_t enc_size(czk_groth16_section s) { return s == CZK_G16_B_G2 ? 192 : 96; }

/*
 * Validate the layout of a mapped .params file: the verifying key, the five
 * length-prefixed sections against the file size, no trailing bytes, and the counts'
 * consistency (bellperson's generator, docs/formats.md §3.1). Fills shape (vk and
 * lengths) and f's section pointers; decodes no section point.
 */
static czk_status params_layout(czk_groth16_params_file *f, czk_groth16_params *shape,
                                czk_err *err)
{
    const czk__map *m = &f->m;
    const char *path = f->path;
    czk_groth16_params p;
    memset(&p, 0, sizeof p);
    p.conv = CZK_H_BELLPERSON;
    size_t off = 0;
    /* The VK is small (≤ a few hundred points): always decoded with subgroup checks, as
     * bellperson's MappedParameters does even for unchecked parameter reads. */
    czk_status st = vk_parse(&p.vk, m->data, m->len, &off, path, err);
    if (st != CZK_OK) return st;
    uint32_t lens[CZK_G16_SECTIONS];
    for (int k = 0; k < CZK_G16_SECTIONS; k++) {
        const char *name = czk_groth16_section_name((czk_groth16_section)k);
        size_t esz = enc_size((czk_groth16_section)k);
        if (m->len - off < 4) {
            st = czk_err_set(err, CZK_ETRUNCATED,
                             "%s: truncated at offset %zu, before the length of %s", path, off,
                             name);
            goto fail;
        }
        lens[k] = czk__ld32be(m->data + off);
        off += 4;
        uint64_t bytes = (uint64_t)lens[k] * esz;
        if (bytes > m->len - off) {
            st = czk_err_set(err, CZK_ETRUNCATED,
                             "%s: %s truncated: %" PRIu32 " points need %" PRIu64
                             " bytes at offset %zu, %zu present",
                             path, name, lens[k], bytes, off, m->len - off);
            goto fail;
        }
        f->src[k] = m->data + off;
        f->len[k] = lens[k];
        off += (size_t)bytes;
    }
    if (off != m->len) {
        st = czk_err_set(err, CZK_EFORMAT, "%s: %zu trailing bytes after b_g2", path, m->len - off);
        goto fail;
    }
    uint64_t m_dom = (uint64_t)lens[CZK_G16_H] + 1;
    if ((m_dom & (m_dom - 1)) != 0 || m_dom > ((uint64_t)1 << 31)) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: h has %" PRIu32
                         " points; the domain size (points + 1) must be a power of two ≤ 2^31",
                         path, lens[CZK_G16_H]);
        goto fail;
    }
    uint32_t log_m = 0;
    while (((uint64_t)1 << log_m) < m_dom) log_m++;
    uint64_t n_inputs = p.vk.ic_len, n_aux = lens[CZK_G16_L], n_vars = n_inputs + n_aux;
    if (lens[CZK_G16_A] < n_inputs || lens[CZK_G16_A] > n_vars) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: a has %" PRIu32 " points; it needs one per input (%" PRIu64
                         ") plus at most one per aux variable (%" PRIu64 ")",
                         path, lens[CZK_G16_A], n_inputs, n_aux);
        goto fail;
    }
    if (lens[CZK_G16_B_G1] != lens[CZK_G16_B_G2] || lens[CZK_G16_B_G1] > n_vars) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: b_g1 has %" PRIu32 " points and b_g2 %" PRIu32
                         "; they must be equal and at most inputs + aux (%" PRIu64 ")",
                         path, lens[CZK_G16_B_G1], lens[CZK_G16_B_G2], n_vars);
        goto fail;
    }
    p.n_inputs = (uint32_t)n_inputs;
    p.n_aux = (uint32_t)n_aux;
    p.log_m = log_m;
    p.h_len = lens[CZK_G16_H];
    p.l_len = lens[CZK_G16_L];
    p.a_len = lens[CZK_G16_A];
    p.b_g1_len = lens[CZK_G16_B_G1];
    p.b_g2_len = lens[CZK_G16_B_G2];
    *shape = p;
    return CZK_OK;
fail:
    czk_groth16_vk_free(&p.vk);
    return st;
}

czk_status czk_groth16_params_file_open(czk_groth16_params_file **out, const char *path,
                                        czk_groth16_params *shape, czk_err *err)
{
    *out = NULL;
    memset(shape, 0, sizeof *shape);
    czk_groth16_params_file *f = czk_calloc(1, sizeof *f);
    size_t n = strlen(path) + 1;
    if (f != NULL) f->path = czk_malloc(n);
    if (f == NULL || f->path == NULL) {
        czk_free(f);
        return czk_err_set(err, CZK_ENOMEM, "%s: out of memory", path);
    }
    memcpy(f->path, path, n);
    f->fd = -1;
    czk_status st = czk__map_open(&f->m, path, err);
    if (st == CZK_OK) st = params_layout(f, shape, err);
    if (st == CZK_OK) {
        /* Opened after the mapping: the same file unless it was replaced in between,
         * which its size would show (a load reads from one or the other, never both). */
        struct stat sb;
        f->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (f->fd < 0 || fstat(f->fd, &sb) != 0 || (uint64_t)sb.st_size != f->m.len)
            st = czk_err_set(err, CZK_EIO, "%s: %s", path,
                             f->fd < 0 ? strerror(errno) : "replaced while it was opened");
        else
            (void)posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    if (st != CZK_OK) {
        czk_groth16_params_file_close(f);
        return st;
    }
    *out = f;
    return CZK_OK;
}

/* The page-aligned span of the mapping that holds points [first, first + n) of sec. */
static void section_span(const czk_groth16_params_file *f, czk_groth16_section sec, size_t first,
                         size_t n, uint8_t **lo, size_t *len)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)(f->src[sec] + first * enc_size(sec));
    uintptr_t b = a + n * enc_size(sec);
    uintptr_t base = (uintptr_t)f->m.data;
    /* Whole pages inside the mapping only. */
    uintptr_t a0 = a & ~(page - 1);
    if (a0 < base) a0 = base;
    *lo = (uint8_t *)a0;
    *len = b > a0 ? (size_t)(b - a0) : 0;
}

void czk_groth16_params_file_prefetch(czk_groth16_params_file *f, czk_groth16_section sec,
                                      size_t first, size_t n)
{
    if (f == NULL || (unsigned)sec >= CZK_G16_SECTIONS || first >= f->len[sec]) return;
    if (n > f->len[sec] - first) n = f->len[sec] - first;
    uint8_t *lo;
    size_t len;
    section_span(f, sec, first, n, &lo, &len);
    if (len > 0) (void)madvise(lo, len, MADV_WILLNEED);
}

static void release(czk_groth16_params_file *f, czk_groth16_section sec, size_t first, size_t n)
{
    if (f == NULL || (unsigned)sec >= CZK_G16_SECTIONS || first >= f->len[sec]) return;
    if (n > f->len[sec] - first) n = f->len[sec] - first;
    /* The file's pages are not needed again soon (a resident key is read once; a streamed
     * one lives decoded elsewhere): out of the process's memory, not into its RSS. The
     * kernel's page cache may keep them. */
    uint8_t *lo;
    size_t len;
    section_span(f, sec, first, n, &lo, &len);
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    len = len / page * page; /* a partial last page may hold the next range's points */
    if (len > 0) (void)madvise(lo, len, MADV_DONTNEED);
}

czk_status czk_groth16_params_file_decode(czk_groth16_params_file *f, czk_groth16_section sec,
                                          size_t first, size_t n, void *dst, bool check_subgroup,
                                          czk_pool *pool, czk_err *err)
{
    if (f == NULL || (unsigned)sec >= CZK_G16_SECTIONS)
        return czk_err_set(err, CZK_EINVAL, "params decode: bad file or section");
    const char *name = czk_groth16_section_name(sec);
    if (first > f->len[sec] || n > f->len[sec] - first)
        return czk_err_set(err, CZK_EINVAL,
                           "%s: %s: points [%zu, %zu) are outside the section's %zu", f->path,
                           name, first, first + n, f->len[sec]);
    if (n == 0) return CZK_OK;
    if (dst == NULL) return czk_err_set(err, CZK_EINVAL, "params decode: NULL destination");
    /* bellperson rejects the identity in every section (its checked and mapped readers
     * alike); the subgroup check is the expensive part and is the caller's choice. */
    unsigned flags = CZK_DECODE_REJECT_INFINITY | (check_subgroup ? CZK_DECODE_CHECK_SUBGROUP : 0);
    czk__point_range r = {name, sec == CZK_G16_B_G2 ? CZK__G2_ZCASH : CZK__G1_ZCASH, flags,
                          f->src[sec] + first * enc_size(sec), n, dst, first};
    czk_status st = czk__points_decode(&r, 1, pool, f->path, err);
    release(f, sec, first, n);
    return st;
}

/* A raw read in pieces on a pool: the first failure's errno and offset. */
typedef struct raw_read {
    int fd;
    uint8_t *dst;
    uint64_t off;
    size_t n, piece;
    atomic_int bad_errno;
    uint64_t bad_off;
} raw_read;

static void raw_task(void *ctx, size_t task, unsigned worker)
{
    (void)worker;
    raw_read *r = ctx;
    size_t a = task * r->piece, end = a + r->piece < r->n ? a + r->piece : r->n;
    while (a < end && atomic_load_explicit(&r->bad_errno, memory_order_relaxed) == 0) {
        ssize_t k = pread(r->fd, r->dst + a, end - a, (off_t)(r->off + a));
        if (k > 0) {
            a += (size_t)k;
        } else if (k == 0 || errno != EINTR) {
            int e = k == 0 ? EIO : errno, zero = 0;
            if (atomic_compare_exchange_strong(&r->bad_errno, &zero, e)) r->bad_off = r->off + a;
            return;
        }
    }
}

czk_status czk_groth16_params_file_read(czk_groth16_params_file *f, czk_groth16_section sec,
                                        size_t first, size_t n, void *dst, czk_pool *pool,
                                        czk_err *err)
{
    if (f == NULL || (unsigned)sec >= CZK_G16_SECTIONS)
        return czk_err_set(err, CZK_EINVAL, "params read: bad file or section");
    if (first > f->len[sec] || n > f->len[sec] - first)
        return czk_err_set(err, CZK_EINVAL,
                           "%s: %s points [%zu, %zu) are outside the section's %zu", f->path,
                           czk_groth16_section_name(sec), first, first + n, f->len[sec]);
    if (n == 0) return CZK_OK;
    raw_read r;
    memset(&r, 0, sizeof r);
    r.fd = f->fd;
    r.dst = dst;
    r.off = (uint64_t)(f->src[sec] - f->m.data) + (uint64_t)first * enc_size(sec);
    r.n = n * enc_size(sec);
    /* Four pieces a thread, at least 1 MiB each. */
    const size_t threads = czk_pool_size(pool);
    r.piece = (r.n + 4 * threads - 1) / (4 * threads);
    if (r.piece < ((size_t)1 << 20)) r.piece = (size_t)1 << 20;
    atomic_init(&r.bad_errno, 0);
    czk_pool_run(pool, (r.n + r.piece - 1) / r.piece, raw_task, &r);
    const int e = atomic_load(&r.bad_errno);
    if (e == 0) return CZK_OK;
    return czk_err_set(err, CZK_EIO, "%s: reading %s at offset %" PRIu64 ": %s", f->path,
                       czk_groth16_section_name(sec), r.bad_off, strerror(e));
}

size_t czk_groth16_params_file_len(const czk_groth16_params_file *f, czk_groth16_section sec)
{
    return f != NULL && (unsigned)sec < CZK_G16_SECTIONS ? f->len[sec] : 0;
}

const char *czk_groth16_params_file_path(const czk_groth16_params_file *f)
{
    return f != NULL ? f->path : "";
}

uint64_t czk_groth16_params_file_size(const czk_groth16_params_file *f)
{
    return f != NULL ? f->m.len : 0;
}

void czk_groth16_params_file_close(czk_groth16_params_file *f)
{
    if (f == NULL) return;
    czk__map_close(&f->m);
    if (f->fd >= 0) close(f->fd);
    czk_free(f->path);
    czk_free(f);
}

czk_status czk_groth16_params_read_file(czk_groth16_params *out, const char *path,
                                        bool check_subgroup, czk_pool *pool, czk_err *err)
{
    memset(out, 0, sizeof *out);
    czk_groth16_params p;
    czk_groth16_params_file *f;
    czk_status st = czk_groth16_params_file_open(&f, path, &p, err);
    if (st != CZK_OK) return st;
    void **arr[CZK_G16_SECTIONS] = {(void **)&p.h, (void **)&p.l, (void **)&p.a,
                                    (void **)&p.b_g1, (void **)&p.b_g2};
    for (int k = 0; k < CZK_G16_SECTIONS && st == CZK_OK; k++) {
        czk_groth16_section sec = (czk_groth16_section)k;
        size_t n = czk_groth16_section_len(&p, sec);
        *arr[k] = czk__points_alloc(n, czk_groth16_section_elem(sec));
        if (n > 0 && *arr[k] == NULL)
            st = czk_err_set(err, CZK_ENOMEM, "%s: out of memory for %zu points of %s", path, n,
                             czk_groth16_section_name(sec));
        else
            st = czk_groth16_params_file_decode(f, sec, 0, n, *arr[k], check_subgroup, pool, err);
    }
    czk_groth16_params_file_close(f);
    if (st != CZK_OK) {
        czk_groth16_params_free(&p);
        return st;
    }
    *out = p;
    return CZK_OK;
}

/* Write n points of one group, length-prefixed, in chunks through `buf`. */
static void put_points(czk__wfile *w, uint8_t *buf, const void *pts, size_t n, bool g2)
{
    uint8_t len[4];
    czk__st32be(len, (uint32_t)n);
    czk__wfile_put(w, len, 4);
    size_t esz = g2 ? 192 : 96;
    for (size_t i = 0; i < n; i += WRITE_CHUNK) {
        size_t k = n - i < WRITE_CHUNK ? n - i : WRITE_CHUNK;
        for (size_t j = 0; j < k; j++) {
            if (g2)
                czk_g2_to_uncompressed(buf + j * esz, (const czk_g2_affine *)pts + i + j);
            else
                czk_g1_to_uncompressed(buf + j * esz, (const czk_g1_affine *)pts + i + j);
        }
        czk__wfile_put(w, buf, k * esz);
    }
}

czk_status czk_groth16_params_write_file(const czk_groth16_params *p, const char *path,
                                         czk_err *err)
{
    const size_t lens[CZK_G16_SECTIONS] = {p->h_len, p->l_len, p->a_len, p->b_g1_len,
                                           p->b_g2_len};
    for (int k = 0; k < CZK_G16_SECTIONS; k++)
        if (lens[k] > UINT32_MAX)
            return czk_err_set(err, CZK_EINVAL, "%s: %s has %zu points, more than a u32 length",
                               path, czk_groth16_section_name((czk_groth16_section)k), lens[k]);
    if (p->vk.ic_len > UINT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "%s: ic_len %zu does not fit a u32", path,
                           p->vk.ic_len);
    size_t vk_len = czk_groth16_vk_size(&p->vk);
    size_t buf_len = vk_len > WRITE_CHUNK * 192 ? vk_len : WRITE_CHUNK * 192;
    uint8_t *buf = czk_malloc(buf_len);
    if (buf == NULL) return czk_err_set(err, CZK_ENOMEM, "%s: out of memory", path);
    czk__wfile w;
    czk_status st = czk__wfile_open(&w, path, err);
    if (st != CZK_OK) {
        czk_free(buf);
        return st;
    }
    st = czk_groth16_vk_write(buf, buf_len, &p->vk, err);
    if (st != CZK_OK) {
        czk__wfile_abort(&w);
        czk_free(buf);
        return st;
    }
    czk__wfile_put(&w, buf, vk_len);
    put_points(&w, buf, p->h, p->h_len, false);
    put_points(&w, buf, p->l, p->l_len, false);
    put_points(&w, buf, p->a, p->a_len, false);
    put_points(&w, buf, p->b_g1, p->b_g1_len, false);
    put_points(&w, buf, p->b_g2, p->b_g2_len, true);
    czk_free(buf);
    return czk__wfile_commit(&w, err);
}
