/*
 * The job request as the journal stores it (the payload column) and as deduplication
 * compares it: a versioned little-endian encoding; parsing checks every length against
 * the buffer and borrows from it.
 */
#include "czk/alloc.h"
#include "engine/engine_internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t ld64(const uint8_t *p)
{
    return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

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
