/*
 * Parameter sets (loading, sizes), the in-memory .wtns decoder, and the request's
 * serialized form that the journal stores.
 */
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "engine/engine_internal.h"

#include "czk/fil_job.h"
#include "czk/log.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------------------ */
/* Parameter sets                                                                       */
/* ------------------------------------------------------------------------------------ */

/* Test parameters' generation progress, in the log every tenth. */
typedef struct gen_progress {
    const char *id;
    uint64_t t0_us;
    int last_tenth;
} gen_progress;

static void gen_progress_fn(void *ctx, uint64_t done, uint64_t total)
{
    gen_progress *g = ctx;
    int tenth = total ? (int)(done * 10 / total) : 10;
    if (tenth <= g->last_tenth) return;
    g->last_tenth = tenth;
    CZK_LOG_INFO("making test parameters", "circuit=%s done=%d%% s=%.1f", g->id, tenth * 10,
                 (double)(czk_clock_us() - g->t0_us) / 1e6);
}

static czk_status params_make_test(czk__params *pe, const czk__params_gen *gen, czk_pool *pool,
                                   czk_err *err)
{
    CZK_LOG_WARN("no parameter file: making TEST parameters in memory", "circuit=%s path=%s gpus=%zu",
                 pe->id, pe->path, gen->ngpus);
    gen_progress gp = {pe->id, czk_clock_us(), -1};
    czk_gpu_srs *srs[CZK_GPU_MAX] = {0};
    size_t ng = gen->ngpus < CZK_GPU_MAX ? gen->ngpus : CZK_GPU_MAX;
    czk_status st = czk_fil_test_params_make(pe->id, gen->gpus, ng, &pe->pk, srs, pool,
                                             gen_progress_fn, &gp, err);
    if (st != CZK_OK) return st;
    for (size_t g = 0; g < ng; g++) pe->gpu_srs[g] = srs[g];
    pe->generated = true;
    /* The directory is the .params file's: the .vk and .meta go beside it. */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", pe->path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    st = czk_fil_test_vk_write(pe->id, dir, &pe->pk.vk, err);
    CZK_LOG_INFO("test parameters made", "circuit=%s s=%.1f on_gpus=%zu", pe->id,
                 (double)(czk_clock_us() - gp.t0_us) / 1e6, ng);
    return st;
}

/* Staging for the resident points that no streamed tail holds: decoded a chunk at a
 * time, then copied to every GPU that keeps them. 2^21 G2 points (384 MiB): the decode of a
 * chunk (about 0.2 s on 16 threads) dwarfs its copies. */
#define STAGE_POINTS ((size_t)1 << 21)

size_t czk__params_tail_layout(const czk_groth16_params *shape, const czk_gpu_plan *plans,
                               size_t ngpus, size_t first[CZK_G16_SECTIONS],
                               size_t off[CZK_G16_SECTIONS])
{
    size_t len = 0;
    for (int k = 0; k < CZK_G16_SECTIONS; k++) {
        const czk_groth16_section sec = (czk_groth16_section)k;
        const size_t n = czk_groth16_section_len(shape, sec);
        size_t f = n;
        for (size_t g = 0; g < ngpus; g++)
            if (plans[g].resident[k] < f) f = plans[g].resident[k];
        first[k] = f;
        off[k] = len;
        len += ((n - f) * czk_groth16_section_elem(sec) + 4095) / 4096 * 4096;
    }
    return len;
}

static void tail_free(czk__params *pe)
{
    if (pe->tail_mem != NULL) {
        if (pe->tail_pinned) czk_gpu_host_unregister(pe->tail_mem);
        munmap(pe->tail_mem, pe->tail_len);
    }
    pe->tail_mem = NULL;
    pe->tail_len = 0;
    pe->tail_pinned = false;
    memset(pe->tail, 0, sizeof pe->tail);
    memset(pe->tail_first, 0, sizeof pe->tail_first);
}

/*
 * A .params file for GPUs, without a host copy of what they keep. Each GPU gets its plan
 * (czk_gpu_plan_make within its budget); the points some GPU streams (a section from the
 * least resident prefix on) are decoded once into one anonymous mapping and page-locked;
 * the points every GPU keeps are decoded through a staging buffer and copied to each; the
 * file's pages are dropped as they are read (czk_groth16_params_file_decode). Every point
 * is decoded, so every point is checked, as by the host reader. On failure nothing stays.
 */
static czk_status params_load_planned(czk__params *pe, const czk__params_gen *gen,
                                      czk_pool *pool, czk_err *err)
{
    czk_groth16_params_file *f = NULL;
    czk_status st = czk_groth16_params_file_open(&f, pe->path, &pe->pk, err);
    if (st != CZK_OK) return st;
    const size_t ng = gen->ngpus < CZK_GPU_MAX ? gen->ngpus : CZK_GPU_MAX;
    size_t len[CZK_G16_SECTIONS];
    for (int k = 0; k < CZK_G16_SECTIONS; k++)
        len[k] = czk_groth16_section_len(&pe->pk, (czk_groth16_section)k);
    for (size_t g = 0; g < ng && st == CZK_OK; g++) {
        czk_gpu_plan_opts o = {gen->h2d_gbps[g], gen->other_working[g], 0};
        czk_err perr;
        st = czk_gpu_plan_make(&pe->plan[g], &pe->pk, gen->gpu_budget[g], &o, &perr);
        if (st != CZK_OK)
            czk_err_set(err, st, "%s on gpu%d: %s", pe->id, gen->gpus[g], perr.msg);
    }
    size_t off[CZK_G16_SECTIONS];
    size_t tail_len = 0;
    if (st == CZK_OK) tail_len = czk__params_tail_layout(&pe->pk, pe->plan, ng, pe->tail_first, off);
    if (st == CZK_OK && tail_len > 0) {
        void *m = mmap(NULL, tail_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            st = czk_err_set(err, CZK_ENOMEM, "%s: cannot map %zu bytes for its streamed bases: %s",
                             pe->path, tail_len, strerror(errno));
        } else {
            (void)madvise(m, tail_len, MADV_HUGEPAGE);
            pe->tail_mem = m;
            pe->tail_len = tail_len;
            for (int k = 0; k < CZK_G16_SECTIONS; k++)
                pe->tail[k] = (uint8_t *)m + off[k];
        }
    }
    for (int k = 0; k < CZK_G16_SECTIONS && st == CZK_OK; k++) {
        czk_groth16_section sec = (czk_groth16_section)k;
        size_t n = len[k] - pe->tail_first[k];
        czk_groth16_params_file_prefetch(f, sec, pe->tail_first[k], n);
        st = czk_groth16_params_file_decode(f, sec, pe->tail_first[k], n, pe->tail[k], false,
                                            pool, err);
    }
    if (st == CZK_OK && pe->tail_mem != NULL) {
        czk_err rerr;
        if (czk_gpu_host_register(pe->tail_mem, pe->tail_len, &rerr) == CZK_OK)
            pe->tail_pinned = true;
        else
            CZK_LOG_WARN("streamed bases stay pageable: their copies run slower", "circuit=%s "
                         "bytes=%zu error=\"%s\"", pe->id, pe->tail_len, rerr.msg);
    }

    /* Each GPU's SRS: the shared prefix through the staging buffer, the rest of its
     * resident points from the tails. */
    czk_gpu_srs *srs[CZK_GPU_MAX] = {0};
    for (size_t g = 0; g < ng && st == CZK_OK; g++)
        st = czk_gpu_srs_create_plan(&srs[g], gen->gpus[g], &pe->pk, &pe->plan[g], err);
    void *stage = NULL;
    bool stage_pinned = false;
    size_t stage_bytes = STAGE_POINTS * sizeof(czk_g2_affine);
    if (st == CZK_OK) {
        if (czk_gpu_host_alloc(&stage, stage_bytes, NULL) == CZK_OK) {
            stage_pinned = true;
        } else {
            stage = czk_aligned_alloc(64, stage_bytes);
            if (stage == NULL) st = czk_err_set(err, CZK_ENOMEM, "%s: out of memory", pe->path);
        }
    }
    for (int k = 0; k < CZK_G16_SECTIONS && st == CZK_OK; k++) {
        czk_groth16_section sec = (czk_groth16_section)k;
        const size_t el = czk_groth16_section_elem(sec);
        const size_t shared = pe->tail_first[k];
        for (size_t i = 0; i < shared && st == CZK_OK; i += STAGE_POINTS) {
            size_t n = shared - i < STAGE_POINTS ? shared - i : STAGE_POINTS;
            if (i + n < shared)
                czk_groth16_params_file_prefetch(f, sec, i + n,
                                                 shared - i - n < STAGE_POINTS ? shared - i - n
                                                                                : STAGE_POINTS);
            st = czk_groth16_params_file_decode(f, sec, i, n, stage, false, pool, err);
            for (size_t g = 0; g < ng && st == CZK_OK; g++)
                st = czk_gpu_srs_write(srs[g], sec, i, stage, n, err);
        }
        for (size_t g = 0; g < ng && st == CZK_OK; g++) {
            const size_t res = pe->plan[g].resident[k];
            if (res > shared)
                st = czk_gpu_srs_write(srs[g], sec, shared, pe->tail[k], res - shared, err);
            if (res < len[k])
                czk_gpu_srs_set_host(srs[g], sec, pe->tail[k] + (res - shared) * el);
        }
    }
    if (stage_pinned)
        czk_gpu_host_free(stage);
    else
        czk_free(stage);
    czk_groth16_params_file_close(f);
    if (st != CZK_OK) {
        for (size_t g = 0; g < ng; g++) czk_gpu_srs_destroy(srs[g]);
        tail_free(pe);
        czk_groth16_params_free(&pe->pk);
        return st;
    }
    for (size_t g = 0; g < ng; g++) {
        pe->gpu_srs[g] = srs[g];
        char line[400];
        czk_gpu_plan_format(&pe->plan[g], &pe->pk, line, sizeof line);
        CZK_LOG_INFO("parameters planned", "circuit=%s gpu=%d %s", pe->id, gen->gpus[g], line);
    }
    pe->planned = true;
    return CZK_OK;
}

bool czk__params_on_host(const czk__params *pe)
{
    const czk_groth16_params *p = &pe->pk;
    return !((p->h_len && !p->h) || (p->l_len && !p->l) || (p->a_len && !p->a) ||
             (p->b_g1_len && !p->b_g1) || (p->b_g2_len && !p->b_g2));
}

czk_status czk__params_load(czk__params *pe, const czk__params_gen *gen, czk_pool *pool,
                            czk_err *err)
{
    memset(&pe->pk, 0, sizeof pe->pk);
    memset(&pe->ab, 0, sizeof pe->ab);
    pe->generated = false;
    pe->planned = false;
    czk_status st;
    struct stat sb;
    if (!pe->circom && gen != NULL && gen->test && stat(pe->path, &sb) != 0 && errno == ENOENT) {
        st = params_make_test(pe, gen, pool, err);
    } else if (pe->circom) {
        st = czk_zkey_read_file_ex(&pe->pk, &pe->ab, pe->path, false, pool, err);
        if (st == CZK_OK && pe->ab.n_constraints > ((size_t)1 << pe->pk.log_m)) {
            st = czk_err_set(err, CZK_EFORMAT, "%s: %u constraints exceed the key's domain 2^%u",
                             pe->path, pe->ab.n_constraints, pe->pk.log_m);
        }
    } else if (gen != NULL && gen->plan && gen->ngpus > 0) {
        st = params_load_planned(pe, gen, pool, err);
    } else {
        st = czk_groth16_params_read_file(&pe->pk, pe->path, false, pool, err);
    }
    if (st != CZK_OK) {
        for (int g = 0; g < CZK_GPU_MAX; g++) {
            czk_gpu_srs_destroy(pe->gpu_srs[g]);
            pe->gpu_srs[g] = NULL;
        }
        czk_groth16_params_free(&pe->pk);
        czk_r1cs_free(&pe->ab);
        return st;
    }
    czk_groth16_prepare_vk(&pe->pvk, &pe->pk.vk);
    return CZK_OK;
}


void czk__params_unload(czk__params *pe)
{
    for (int g = 0; g < CZK_GPU_MAX; g++) {
        czk_gpu_srs_destroy(pe->gpu_srs[g]);
        pe->gpu_srs[g] = NULL;
        pe->gpu_srs_failed[g] = false;
    }
    czk_groth16_params_free(&pe->pk);
    czk_r1cs_free(&pe->ab);
    tail_free(pe);
    memset(&pe->pk, 0, sizeof pe->pk);
    memset(&pe->ab, 0, sizeof pe->ab);
    memset(&pe->pvk, 0, sizeof pe->pvk);
    memset(pe->plan, 0, sizeof pe->plan);
    pe->planned = false;
    pe->state = CZK__PE_COLD;
}

static uint64_t csr_bytes(const czk_csr *m, uint32_t rows)
{
    if (m->row_ptr == NULL) return 0;
    return (uint64_t)(rows + 1) * sizeof(uint64_t) + m->nnz * (sizeof(uint32_t) + sizeof(czk_fr));
}

uint64_t czk__params_size(const czk__params *pe)
{
    const czk_groth16_params *p = &pe->pk;
    /* Planned: the streamed tails are the host's part; the key's arrays are NULL. */
    if (pe->planned) return pe->tail_len + (uint64_t)p->vk.ic_len * sizeof(czk_g1_affine);
    /* Only what is on the host: test parameters made on the GPUs have no point arrays. */
    uint64_t g1 = (uint64_t)(p->h ? p->h_len : 0) + (p->l ? p->l_len : 0) +
                  (p->a ? p->a_len : 0) + (p->b_g1 ? p->b_g1_len : 0) + p->vk.ic_len;
    uint64_t n = g1 * sizeof(czk_g1_affine) +
                 (uint64_t)(p->b_g2 ? p->b_g2_len : 0) * sizeof(czk_g2_affine);
    n += csr_bytes(&pe->ab.a, pe->ab.n_constraints) + csr_bytes(&pe->ab.b, pe->ab.n_constraints);
    return n;
}

uint64_t czk__params_gpu_resident(const czk__params *pe, size_t g)
{
    return g < CZK_GPU_MAX ? czk_gpu_srs_bytes(pe->gpu_srs[g]) : 0;
}

uint64_t czk__params_gpu_working(const czk__params *pe, size_t g)
{
    if (g >= CZK_GPU_MAX || !pe->planned) return 0;
    const czk_gpu_plan *p = &pe->plan[g];
    return p->peak_bytes > p->resident_bytes ? p->peak_bytes - p->resident_bytes : 0;
}

/* ------------------------------------------------------------------------------------ */
/* .wtns from memory                                                                    */
/* ------------------------------------------------------------------------------------ */

static uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t ld64(const uint8_t *p)
{
    return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

/* r, little-endian: (r − 1) + 1, so the constant comes from the field code itself. */
static void fr_modulus_le(uint8_t out[32])
{
    czk_fr m1;
    czk_fr_sub(&m1, &CZK_FR_ZERO, &CZK_FR_ONE);
    czk_fr_to_bytes_le(out, &m1);
    for (int i = 0; i < 32 && ++out[i] == 0; i++) {
    }
}

czk_status czk__wtns_parse(const uint8_t *buf, size_t len, czk_fr *out, size_t cap, size_t *n,
                           czk_err *err)
{
    static const char *const what = "vanilla_proof (.wtns)";
    *n = 0;
    if (len < 12)
        return czk_err_set(err, CZK_ETRUNCATED, "%s: %zu bytes, shorter than the 12-byte header",
                           what, len);
    if (memcmp(buf, "wtns", 4) != 0)
        return czk_err_set(err, CZK_EFORMAT, "%s: bad magic, expected \"wtns\"", what);
    if (ld32(buf + 4) != 2)
        return czk_err_set(err, CZK_EFORMAT, "%s: version %" PRIu32 ", expected 2", what,
                           ld32(buf + 4));
    uint32_t nsec = ld32(buf + 8);
    const uint8_t *hdr = NULL, *wit = NULL;
    uint64_t hdr_len = 0, wit_len = 0;
    size_t off = 12;
    for (uint32_t i = 0; i < nsec; i++) {
        if (len - off < 12)
            return czk_err_set(err, CZK_ETRUNCATED, "%s: truncated in section header %" PRIu32,
                               what, i);
        uint32_t id = ld32(buf + off);
        uint64_t sz = ld64(buf + off + 4);
        off += 12;
        if (sz > len - off)
            return czk_err_set(err, CZK_ETRUNCATED,
                               "%s: section %" PRIu32 " truncated (%" PRIu64 " bytes, %zu present)",
                               what, id, sz, len - off);
        if ((id == 1 && hdr != NULL) || (id == 2 && wit != NULL))
            return czk_err_set(err, CZK_EFORMAT, "%s: duplicate section %" PRIu32, what, id);
        if (id == 1) hdr = buf + off, hdr_len = sz;
        if (id == 2) wit = buf + off, wit_len = sz;
        off += (size_t)sz;
    }
    if (off != len)
        return czk_err_set(err, CZK_EFORMAT, "%s: %zu stray bytes after the last section", what,
                           len - off);
    if (hdr == NULL || wit == NULL)
        return czk_err_set(err, CZK_EFORMAT, "%s: missing section %d (%s)", what,
                           hdr == NULL ? 1 : 2, hdr == NULL ? "header" : "witness");
    uint8_t r[32];
    fr_modulus_le(r);
    if (hdr_len != 40 || ld32(hdr) != 32 || memcmp(hdr + 4, r, 32) != 0)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: header is not a BLS12-381 scalar-field witness (need n8 = 32 and "
                           "prime r)",
                           what);
    uint32_t count = ld32(hdr + 36);
    if (count == 0 || wit_len != (uint64_t)32 * count)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: witness section is %" PRIu64 " bytes for %" PRIu32 " values", what,
                           wit_len, count);
    czk_fr tmp;
    for (uint32_t i = 0; i < count; i++) {
        czk_fr *dst = out != NULL && i < cap ? &out[i] : &tmp;
        if (!czk_fr_from_bytes_le(dst, wit + 32 * (size_t)i))
            return czk_err_set(err, CZK_ENONCANONICAL, "%s: value %" PRIu32 " is not below r",
                               what, i);
        if (i == 0 && !czk_fr_is_one(dst))
            return czk_err_set(err, CZK_EFORMAT, "%s: value 0 must be 1 (the ONE wire)", what);
    }
    *n = count;
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* The request, serialized                                                              */
/* ------------------------------------------------------------------------------------ */

/*
 * Layout (little-endian): "CZKR", u32 version 1, u32 kind, u32 priority, u64 sector_size,
 * registered_proof, sector_number, miner_id, u32 partition_index, then byte strings as
 * u64 length + bytes (length 2^64−1 for NULL): vanilla_proof, u32 count + each of
 * vanilla_proofs, randomness, comm_r_old, comm_r_new, comm_d_new, circuit. The request id
 * is not part of it: the payload is what deduplication compares.
 */
typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
    bool oom;
} wbuf;

static void put(wbuf *w, const void *d, size_t n)
{
    if (w->oom) return;
    if (w->n + n > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->n + n) cap *= 2;
        uint8_t *p = czk_realloc(w->p, cap);
        if (p == NULL) {
            w->oom = true;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    if (n) memcpy(w->p + w->n, d, n);
    w->n += n;
}

static void put32(wbuf *w, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, 4);
}

static void put64(wbuf *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, 8);
}

static void putbytes(wbuf *w, const void *d, size_t n)
{
    if (d == NULL && n == 0) {
        put64(w, UINT64_MAX);
        return;
    }
    put64(w, n);
    put(w, d, n);
}

uint8_t *czk__request_serialize(const czk_job_request *req, size_t *len)
{
    wbuf w = {0};
    put(&w, "CZKR", 4);
    put32(&w, 1);
    put32(&w, (uint32_t)req->kind);
    put32(&w, (uint32_t)req->priority);
    put64(&w, req->sector_size);
    put64(&w, req->registered_proof);
    put64(&w, req->sector_number);
    put64(&w, req->miner_id);
    put32(&w, req->partition_index);
    putbytes(&w, req->vanilla_proof, req->vanilla_proof_len);
    put32(&w, (uint32_t)req->n_vanilla_proofs);
    for (size_t i = 0; i < req->n_vanilla_proofs; i++)
        putbytes(&w, req->vanilla_proofs[i], req->vanilla_proof_lens[i]);
    putbytes(&w, req->randomness, req->randomness_len);
    putbytes(&w, req->comm_r_old, req->comm_r_old_len);
    putbytes(&w, req->comm_r_new, req->comm_r_new_len);
    putbytes(&w, req->comm_d_new, req->comm_d_new_len);
    putbytes(&w, req->circuit, req->circuit ? strlen(req->circuit) + 1 : 0);
    if (w.oom) {
        czk_free(w.p);
        return NULL;
    }
    *len = w.n;
    return w.p;
}

typedef struct rbuf {
    const uint8_t *p;
    size_t n, off;
    bool bad;
} rbuf;

static uint32_t get32(rbuf *r)
{
    if (r->bad || r->n - r->off < 4) {
        r->bad = true;
        return 0;
    }
    uint32_t v = ld32(r->p + r->off);
    r->off += 4;
    return v;
}

static uint64_t get64(rbuf *r)
{
    if (r->bad || r->n - r->off < 8) {
        r->bad = true;
        return 0;
    }
    uint64_t v = ld64(r->p + r->off);
    r->off += 8;
    return v;
}

static const uint8_t *getbytes(rbuf *r, size_t *len)
{
    uint64_t n = get64(r);
    *len = 0;
    if (r->bad || n == UINT64_MAX) return NULL;
    if (n > r->n - r->off) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->p + r->off;
    r->off += (size_t)n;
    *len = (size_t)n;
    return p;
}

czk_status czk__request_parse(const uint8_t *buf, size_t len, czk_job_request *req,
                              const uint8_t ***vp_store, size_t **vl_store, czk_err *err)
{
    memset(req, 0, sizeof *req);
    *vp_store = NULL;
    *vl_store = NULL;
    rbuf r = {buf, len, 0, false};
    if (len < 8 || memcmp(buf, "CZKR", 4) != 0 || ld32(buf + 4) != 1)
        return czk_err_set(err, CZK_EFORMAT, "journal payload: bad header");
    r.off = 8;
    req->kind = (czk_job_kind)get32(&r);
    req->priority = (czk_job_priority)get32(&r);
    req->sector_size = get64(&r);
    req->registered_proof = get64(&r);
    req->sector_number = get64(&r);
    req->miner_id = get64(&r);
    req->partition_index = get32(&r);
    req->vanilla_proof = getbytes(&r, &req->vanilla_proof_len);
    uint32_t nv = get32(&r);
    if (!r.bad && nv > (len - r.off) / 8) r.bad = true;
    if (!r.bad && nv > 0) {
        *vp_store = czk_calloc(nv, sizeof **vp_store);
        *vl_store = czk_calloc(nv, sizeof **vl_store);
        if (*vp_store == NULL || *vl_store == NULL) {
            czk_free(*vp_store);
            czk_free(*vl_store);
            *vp_store = NULL;
            *vl_store = NULL;
            return czk_err_set(err, CZK_ENOMEM, "journal payload: out of memory");
        }
        for (uint32_t i = 0; i < nv; i++) (*vp_store)[i] = getbytes(&r, &(*vl_store)[i]);
        req->vanilla_proofs = *vp_store;
        req->vanilla_proof_lens = *vl_store;
        req->n_vanilla_proofs = nv;
    }
    req->randomness = getbytes(&r, &req->randomness_len);
    req->comm_r_old = getbytes(&r, &req->comm_r_old_len);
    req->comm_r_new = getbytes(&r, &req->comm_r_new_len);
    req->comm_d_new = getbytes(&r, &req->comm_d_new_len);
    size_t cl = 0;
    const uint8_t *c = getbytes(&r, &cl);
    if (c != NULL && (cl == 0 || c[cl - 1] != 0)) r.bad = true;
    req->circuit = (const char *)c;
    if (r.bad || r.off != len) {
        czk_free(*vp_store);
        czk_free(*vl_store);
        *vp_store = NULL;
        *vl_store = NULL;
        return czk_err_set(err, CZK_EFORMAT, "journal payload: malformed");
    }
    return CZK_OK;
}
