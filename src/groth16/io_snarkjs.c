/*
 * circom / snarkjs binary files (docs/formats.md §9): .r1cs, .wtns and Groth16 .zkey, in
 * the iden3 "binfile" container. All integers are little-endian; sections are found by
 * id, in any order, each at most once. Everything is checked before use: the container
 * against the file size, every section size against the header counts (so no allocation
 * exceeds what the file itself backs), the BLS12-381 primes, every index against its
 * bound, every field element against its modulus and every point against the curve.
 */
#include "czk/alloc.h"
#include "groth16/io_internal.h"

#include <inttypes.h>
#include <string.h>

/* snarkjs writes at most 10 sections and circom 5; the cap keeps the duplicate check
 * cheap on hostile files. */
#define MAX_SECTIONS 1024
/* Values per write call for the witness writer. */
#define WRITE_CHUNK 4096

/* ------------------------------------------------------------------------------------ */
/* Container                                                                            */
/* ------------------------------------------------------------------------------------ */

typedef struct bin_section {
    uint32_t id;
    const uint8_t *data;
    uint64_t size;
} bin_section;

typedef struct binfile {
    const char *path;
    const char *const *names; /* section names by id, for messages; NULL past the end */
    size_t n_names;
    bin_section *secs;
    size_t n;
} binfile;

static const char *sec_name(const binfile *bf, uint32_t id)
{
    return id < bf->n_names && bf->names[id] != NULL ? bf->names[id] : "unknown";
}

static void bin_close(binfile *bf)
{
    czk_free(bf->secs);
    bf->secs = NULL;
    bf->n = 0;
}

static czk_status bin_open(binfile *bf, const czk__map *m, const char *path, const char *magic,
                           uint32_t version, const char *const *names, size_t n_names, czk_err *err)
{
    memset(bf, 0, sizeof *bf);
    bf->path = path;
    bf->names = names;
    bf->n_names = n_names;
    const uint8_t *d = m->data;
    size_t len = m->len;
    if (len < 12)
        return czk_err_set(err, CZK_ETRUNCATED,
                           "%s: %zu bytes, shorter than the 12-byte %s file header", path, len,
                           magic);
    if (memcmp(d, magic, 4) != 0)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: bad magic %02x %02x %02x %02x, expected \"%s\" (is this a .%s "
                           "file?)",
                           path, d[0], d[1], d[2], d[3], magic, magic);
    uint32_t v = czk__ld32le(d + 4);
    if (v != version)
        return czk_err_set(err, CZK_EUNSUPPORTED, "%s: %s version %" PRIu32 ", expected %" PRIu32,
                           path, magic, v, version);
    uint32_t n = czk__ld32le(d + 8);
    if (n > MAX_SECTIONS)
        return czk_err_set(err, CZK_EFORMAT, "%s: %" PRIu32 " sections (at most %d accepted)", path,
                           n, MAX_SECTIONS);
    bf->secs = czk_calloc(n ? n : 1, sizeof *bf->secs);
    if (bf->secs == NULL) return czk_err_set(err, CZK_ENOMEM, "%s: out of memory", path);
    size_t off = 12;
    for (uint32_t i = 0; i < n; i++) {
        if (len - off < 12) {
            bin_close(bf);
            return czk_err_set(
                err, CZK_ETRUNCATED,
                "%s: truncated at offset %zu, in the header of section entry %" PRIu32
                " of %" PRIu32,
                path, off, i, n);
        }
        uint32_t id = czk__ld32le(d + off);
        uint64_t size = czk__ld64le(d + off + 4);
        off += 12;
        if (size > len - off) {
            bin_close(bf);
            return czk_err_set(err, CZK_ETRUNCATED,
                               "%s: section %" PRIu32 " (%s) truncated: %" PRIu64
                               " bytes at offset %zu, %zu present",
                               path, id, sec_name(bf, id), size, off, len - off);
        }
        for (uint32_t j = 0; j < i; j++) {
            if (bf->secs[j].id == id) {
                bin_close(bf);
                return czk_err_set(err, CZK_EFORMAT, "%s: duplicate section %" PRIu32 " (%s)", path,
                                   id, sec_name(bf, id));
            }
        }
        bf->secs[i].id = id;
        bf->secs[i].data = d + off;
        bf->secs[i].size = size;
        off += (size_t)size;
    }
    bf->n = n;
    if (off != len) {
        bin_close(bf);
        return czk_err_set(err, CZK_EFORMAT, "%s: %zu stray bytes after the last section", path,
                           len - off);
    }
    return CZK_OK;
}

/* Look a section up; a required one that is absent is an error. */
static czk_status bin_section_get(const binfile *bf, uint32_t id, bool required,
                                  const bin_section **out, czk_err *err)
{
    *out = NULL;
    for (size_t i = 0; i < bf->n; i++) {
        if (bf->secs[i].id == id) {
            *out = &bf->secs[i];
            return CZK_OK;
        }
    }
    if (!required) return CZK_OK;
    return czk_err_set(err, CZK_EFORMAT, "%s: missing section %" PRIu32 " (%s)", bf->path, id,
                       sec_name(bf, id));
}

/* Put the 12-byte container header and section headers. */
static void put_bin_header(czk__wfile *w, const char *magic, uint32_t version, uint32_t n_secs)
{
    uint8_t h[12];
    memcpy(h, magic, 4);
    czk__st32le(h + 4, version);
    czk__st32le(h + 8, n_secs);
    czk__wfile_put(w, h, 12);
}

static void put_section_header(czk__wfile *w, uint32_t id, uint64_t size)
{
    uint8_t h[12];
    czk__st32le(h, id);
    czk__st64le(h + 4, size);
    czk__wfile_put(w, h, 12);
}

static void put_u32(czk__wfile *w, uint32_t v)
{
    uint8_t b[4];
    czk__st32le(b, v);
    czk__wfile_put(w, b, 4);
}

/*
 * Check a field header: u32 n8 then the prime, n8 bytes. `want_n8` and `is_ours` say
 * which prime is expected; `what` names it ("r", "q"). *used gets 4 + n8.
 */
static czk_status check_prime(const binfile *bf, const bin_section *s, uint64_t off,
                              uint32_t want_n8, bool (*is_ours)(const uint8_t *, size_t),
                              const char *what, czk_err *err)
{
    const char *path = bf->path;
    if (s->size < off + 4)
        return czk_err_set(err, CZK_EFORMAT, "%s: section %" PRIu32 " (%s) too short for n8%s",
                           path, s->id, sec_name(bf, s->id), what);
    uint32_t n8 = czk__ld32le(s->data + off);
    if (s->size < off + 4 + n8)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: section %" PRIu32 " (%s) too short for a %" PRIu32 "-byte prime %s",
                           path, s->id, sec_name(bf, s->id), n8, what);
    const uint8_t *prime = s->data + off + 4;
    if (n8 == want_n8 && is_ours(prime, n8)) return CZK_OK;
    if (czk__is_bn254_prime_le(prime, n8))
        return czk_err_set(err, CZK_EUNSUPPORTED,
                           "%s: section %" PRIu32 " (%s): the prime %s is BN254's (bn128); czk "
                           "proves over BLS12-381 only (compile with circom --prime bls12381)",
                           path, s->id, sec_name(bf, s->id), what);
    if (n8 != want_n8)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: section %" PRIu32 " (%s): n8%s = %" PRIu32
                           ", BLS12-381 needs %" PRIu32,
                           path, s->id, sec_name(bf, s->id), what, n8, want_n8);
    /* Name the offending prime: its top 8 bytes, big-endian, suffice to recognise it. */
    char hex[17];
    for (int i = 0; i < 8; i++) snprintf(hex + 2 * i, 3, "%02x", prime[n8 - 1 - i]);
    return czk_err_set(err, CZK_EUNSUPPORTED,
                       "%s: section %" PRIu32 " (%s): prime %s = 0x%s... is not BLS12-381's", path,
                       s->id, sec_name(bf, s->id), what, hex);
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0) return false;
    return true;
}

/* ------------------------------------------------------------------------------------ */
/* .r1cs                                                                                */
/* ------------------------------------------------------------------------------------ */

static const char *const r1cs_names[] = {
    NULL, "header", "constraints", "wire-to-label map", "custom gates", "custom gate uses"};
static const char mtx_letter[3] = {'A', 'B', 'C'};

czk_status czk_r1cs_read_file(czk_r1cs *out, const char *path, czk_err *err)
{
    memset(out, 0, sizeof *out);
    czk__map m;
    czk_status st = czk__map_open(&m, path, err);
    if (st != CZK_OK) return st;
    binfile bf;
    st = bin_open(&bf, &m, path, "r1cs", 1, r1cs_names, 6, err);
    if (st != CZK_OK) {
        czk__map_close(&m);
        return st;
    }
    const bin_section *hs, *cs, *ws;
    if ((st = bin_section_get(&bf, 1, true, &hs, err)) != CZK_OK) goto done;
    if ((st = bin_section_get(&bf, 2, true, &cs, err)) != CZK_OK) goto done;
    if ((st = bin_section_get(&bf, 3, false, &ws, err)) != CZK_OK) goto done;

    /* Header: n8, r, nWires, nOutputs, nPubInputs, nPrvInputs, nLabels (u64), nConstraints. */
    if ((st = check_prime(&bf, hs, 0, 32, czk__is_fr_modulus_le, "r", err)) != CZK_OK) goto done;
    if (hs->size != 64) {
        st =
            czk_err_set(err, CZK_EFORMAT,
                        "%s: section 1 (header) is %" PRIu64 " bytes, expected 64", path, hs->size);
        goto done;
    }
    const uint8_t *h = hs->data + 36;
    uint32_t n_wires = czk__ld32le(h), n_out = czk__ld32le(h + 4), n_pub = czk__ld32le(h + 8);
    uint32_t n_prv = czk__ld32le(h + 12), n_cons = czk__ld32le(h + 24);
    uint64_t n_inputs = 1 + (uint64_t)n_out + n_pub;
    if (n_wires == 0 || n_inputs > n_wires || n_prv > n_wires - n_inputs) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: section 1 (header): nWires %" PRIu32 " cannot hold the ONE wire, "
                         "%" PRIu32 " outputs, %" PRIu32 " public and %" PRIu32 " private inputs",
                         path, n_wires, n_out, n_pub, n_prv);
        goto done;
    }
    if (ws != NULL && ws->size != (uint64_t)8 * n_wires) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: section 3 (wire-to-label map) is %" PRIu64 " bytes, nWires %" PRIu32
                         " needs %" PRIu64,
                         path, ws->size, n_wires, (uint64_t)8 * n_wires);
        goto done;
    }

    /* Pass 1: walk the constraints, check every term, count the non-zero ones. Each
     * constraint takes at least 12 bytes, so the walk is bounded by the section size. */
    uint64_t nnz[3] = {0, 0, 0};
    const uint8_t *q = cs->data;
    uint64_t left = cs->size;
    for (uint32_t j = 0; j < n_cons; j++) {
        for (int x = 0; x < 3; x++) {
            if (left < 4) {
                st = czk_err_set(err, CZK_EFORMAT,
                                 "%s: section 2 (constraints) ends inside constraint %" PRIu32
                                 " (%c) of nConstraints %" PRIu32,
                                 path, j, mtx_letter[x], n_cons);
                goto done;
            }
            uint32_t nt = czk__ld32le(q);
            q += 4;
            left -= 4;
            if ((uint64_t)nt * 36 > left) {
                st = czk_err_set(err, CZK_EFORMAT,
                                 "%s: section 2 (constraints) constraint %" PRIu32 " %c: %" PRIu32
                                 " terms need %" PRIu64 " bytes, %" PRIu64 " left",
                                 path, j, mtx_letter[x], nt, (uint64_t)nt * 36, left);
                goto done;
            }
            for (uint32_t t = 0; t < nt; t++, q += 36, left -= 36) {
                uint32_t wire = czk__ld32le(q);
                czk_fr v;
                if (wire >= n_wires) {
                    st = czk_err_set(err, CZK_EFORMAT,
                                     "%s: section 2 (constraints) constraint %" PRIu32
                                     " %c term %" PRIu32 ": wire %" PRIu32 " ≥ nWires %" PRIu32,
                                     path, j, mtx_letter[x], t, wire, n_wires);
                    goto done;
                }
                if (!czk_fr_from_bytes_le(&v, q + 4)) {
                    st = czk_err_set(err, CZK_ENONCANONICAL,
                                     "%s: section 2 (constraints) constraint %" PRIu32
                                     " %c term %" PRIu32 ": coefficient not below r",
                                     path, j, mtx_letter[x], t);
                    goto done;
                }
                /* Zero terms carry nothing; the matrices keep only non-zero entries. */
                if (!czk_fr_is_zero(&v)) nnz[x]++;
            }
        }
    }
    if (left != 0) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: section 2 (constraints) has %" PRIu64
                         " bytes after constraint %" PRIu32 " (nConstraints %" PRIu32 ")",
                         path, left, n_cons, n_cons);
        goto done;
    }

    st = czk_r1cs_alloc(out, (uint32_t)n_inputs, (uint32_t)(n_wires - n_inputs), n_cons, nnz[0],
                        nnz[1], nnz[2], err);
    if (st != CZK_OK) goto done;
    out->has_c = true;

    /* Pass 2: fill the three CSR matrices; the structure is known to be sound. */
    czk_csr *csr[3] = {&out->a, &out->b, &out->c};
    for (int x = 0; x < 3; x++) {
        csr[x]->nnz = 0;
        csr[x]->row_ptr[0] = 0;
    }
    q = cs->data;
    for (uint32_t j = 0; j < n_cons; j++) {
        for (int x = 0; x < 3; x++) {
            czk_csr *c = csr[x];
            uint32_t nt = czk__ld32le(q);
            q += 4;
            for (uint32_t t = 0; t < nt; t++, q += 36) {
                czk_fr v;
                czk_fr_from_bytes_le(&v, q + 4);
                if (czk_fr_is_zero(&v)) continue;
                c->col[c->nnz] = czk__ld32le(q);
                c->val[c->nnz] = v;
                c->nnz++;
            }
            c->row_ptr[j + 1] = c->nnz;
        }
    }
    st = CZK_OK;
done:
    if (st != CZK_OK) czk_r1cs_free(out);
    bin_close(&bf);
    czk__map_close(&m);
    return st;
}

/* Check that a CSR matrix is well formed before it is written out. */
static bool csr_ok(const czk_csr *c, uint32_t n_rows, uint64_t n_wires)
{
    if (c->row_ptr == NULL) return n_rows == 0 && c->nnz == 0;
    if (c->row_ptr[0] != 0 || c->row_ptr[n_rows] != c->nnz) return false;
    for (uint32_t j = 0; j < n_rows; j++)
        if (c->row_ptr[j + 1] < c->row_ptr[j]) return false;
    for (uint64_t k = 0; k < c->nnz; k++)
        if (c->col[k] >= n_wires) return false;
    return true;
}

czk_status czk_r1cs_write_file(const czk_r1cs *r, const char *path, czk_err *err)
{
    uint64_t n_wires = (uint64_t)r->n_inputs + r->n_aux;
    if (!r->has_c)
        return czk_err_set(err, CZK_EINVAL,
                           "%s: this r1cs has no C matrix (it came from a zkey); a .r1cs needs one",
                           path);
    if (r->n_inputs == 0 || n_wires > UINT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "%s: %" PRIu32 " inputs and %" PRIu32 " aux: invalid",
                           path, r->n_inputs, r->n_aux);
    const czk_csr *csr[3] = {&r->a, &r->b, &r->c};
    for (int x = 0; x < 3; x++)
        if (!csr_ok(csr[x], r->n_constraints, n_wires))
            return czk_err_set(err, CZK_EINVAL, "%s: matrix %c is not a valid CSR matrix", path,
                               mtx_letter[x]);
    uint64_t nnz = r->a.nnz + r->b.nnz + r->c.nnz;
    uint64_t cons_size = (uint64_t)12 * r->n_constraints + 36 * nnz;

    czk__wfile w;
    czk_status st = czk__wfile_open(&w, path, err);
    if (st != CZK_OK) return st;
    put_bin_header(&w, "r1cs", 1, 3);

    /* Section 1: all public inputs are written as public inputs (none as outputs); the
     * Groth16 public values are wires 1 .. nOutputs + nPubInputs either way. */
    uint8_t hdr[64];
    czk__st32le(hdr, 32);
    czk__fr_modulus_to_le(hdr + 4);
    czk__st32le(hdr + 36, (uint32_t)n_wires);
    czk__st32le(hdr + 40, 0);
    czk__st32le(hdr + 44, r->n_inputs - 1);
    czk__st32le(hdr + 48, 0);
    czk__st64le(hdr + 52, n_wires);
    czk__st32le(hdr + 60, r->n_constraints);
    put_section_header(&w, 1, sizeof hdr);
    czk__wfile_put(&w, hdr, sizeof hdr);

    /* Section 2: per constraint the A, B and C terms, coefficients in standard form. */
    put_section_header(&w, 2, cons_size);
    for (uint32_t j = 0; j < r->n_constraints; j++) {
        for (int x = 0; x < 3; x++) {
            const czk_csr *c = csr[x];
            uint64_t b = c->row_ptr[j], e = c->row_ptr[j + 1];
            put_u32(&w, (uint32_t)(e - b));
            for (uint64_t k = b; k < e; k++) {
                uint8_t term[36];
                czk__st32le(term, c->col[k]);
                czk_fr_to_bytes_le(term + 4, &c->val[k]);
                czk__wfile_put(&w, term, sizeof term);
            }
        }
    }

    /* Section 3: wire i has label i (there is no .sym file behind these circuits). */
    put_section_header(&w, 3, 8 * n_wires);
    for (uint64_t i = 0; i < n_wires; i++) {
        uint8_t b[8];
        czk__st64le(b, i);
        czk__wfile_put(&w, b, 8);
    }
    return czk__wfile_commit(&w, err);
}

/* ------------------------------------------------------------------------------------ */
/* .wtns                                                                                */
/* ------------------------------------------------------------------------------------ */

static const char *const wtns_names[] = {NULL, "header", "witness"};

/* The witness section of a validated .wtns and its value count. */
static czk_status wtns_open(binfile *bf, const czk__map *m, const char *name,
                            const bin_section **ws, uint32_t *count, czk_err *err)
{
    czk_status st = bin_open(bf, m, name, "wtns", 2, wtns_names, 3, err);
    if (st != CZK_OK) return st;
    const bin_section *hs;
    if ((st = bin_section_get(bf, 1, true, &hs, err)) != CZK_OK ||
        (st = bin_section_get(bf, 2, true, ws, err)) != CZK_OK ||
        (st = check_prime(bf, hs, 0, 32, czk__is_fr_modulus_le, "r", err)) != CZK_OK)
        goto fail;
    if (hs->size != 40) {
        st = czk_err_set(err, CZK_EFORMAT, "%s: section 1 (header) is %" PRIu64 " bytes, expected 40",
                         name, hs->size);
        goto fail;
    }
    *count = czk__ld32le(hs->data + 36);
    if (*count == 0) {
        st = czk_err_set(err, CZK_EFORMAT, "%s: section 1 (header): nWitness is 0", name);
        goto fail;
    }
    if ((*ws)->size != (uint64_t)32 * *count) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: section 2 (witness) is %" PRIu64 " bytes, nWitness %" PRIu32
                         " needs %" PRIu64,
                         name, (*ws)->size, *count, (uint64_t)32 * *count);
        goto fail;
    }
    return CZK_OK;
fail:
    bin_close(bf);
    return st;
}

/* The values, each checked below r, into out[0, cap) (the rest only checked). */
static czk_status wtns_values(const bin_section *ws, uint32_t count, czk_fr *out, size_t cap,
                              const char *name, czk_err *err)
{
    czk_fr tmp;
    for (uint32_t i = 0; i < count; i++) {
        czk_fr *dst = out != NULL && i < cap ? &out[i] : &tmp;
        if (!czk_fr_from_bytes_le(dst, ws->data + 32 * (size_t)i))
            return czk_err_set(err, CZK_ENONCANONICAL,
                               "%s: section 2 (witness) value %" PRIu32 ": not below r", name, i);
        /* Wire 0 is the constant 1 in every circom witness; anything else cannot prove. */
        if (i == 0 && !czk_fr_is_one(dst))
            return czk_err_set(err, CZK_EFORMAT,
                               "%s: section 2 (witness) value 0 must be 1 (the ONE wire)", name);
    }
    return CZK_OK;
}

czk_status czk_wtns_read_file(czk_fr **out, size_t *n, const char *path, czk_err *err)
{
    *out = NULL;
    *n = 0;
    czk__map m;
    czk_status st = czk__map_open(&m, path, err);
    if (st != CZK_OK) return st;
    binfile bf;
    const bin_section *ws;
    uint32_t count;
    st = wtns_open(&bf, &m, path, &ws, &count, err);
    if (st != CZK_OK) {
        czk__map_close(&m);
        return st;
    }
    czk_fr *w = czk_aligned_alloc(64, (size_t)count * sizeof *w);
    if (w == NULL)
        st = czk_err_set(err, CZK_ENOMEM, "%s: out of memory for %" PRIu32 " values", path, count);
    else st = wtns_values(ws, count, w, count, path, err);
    if (st == CZK_OK) {
        *out = w;
        *n = count;
    } else {
        czk_free(w);
    }
    bin_close(&bf);
    czk__map_close(&m);
    return st;
}

czk_status czk_wtns_decode(const uint8_t *buf, size_t len, const char *name, czk_fr *out,
                           size_t cap, size_t *n, czk_err *err)
{
    *n = 0;
    const czk__map m = {.data = buf, .len = len};
    binfile bf;
    const bin_section *ws;
    uint32_t count;
    czk_status st = wtns_open(&bf, &m, name, &ws, &count, err);
    if (st != CZK_OK) return st;
    st = wtns_values(ws, count, out, cap, name, err);
    bin_close(&bf);
    if (st == CZK_OK) *n = count;
    return st;
}

czk_status czk_wtns_write_file(const czk_fr *w, size_t n, const char *path, czk_err *err)
{
    if (n == 0 || n > UINT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "%s: %zu witness values (1 .. 2^32-1 allowed)", path,
                           n);
    uint8_t *buf = czk_malloc(WRITE_CHUNK * 32);
    if (buf == NULL) return czk_err_set(err, CZK_ENOMEM, "%s: out of memory", path);
    czk__wfile f;
    czk_status st = czk__wfile_open(&f, path, err);
    if (st != CZK_OK) {
        czk_free(buf);
        return st;
    }
    put_bin_header(&f, "wtns", 2, 2);
    uint8_t hdr[40];
    czk__st32le(hdr, 32);
    czk__fr_modulus_to_le(hdr + 4);
    czk__st32le(hdr + 36, (uint32_t)n);
    put_section_header(&f, 1, sizeof hdr);
    czk__wfile_put(&f, hdr, sizeof hdr);
    /* The u64 size is written correctly here also past 2^32 bytes (circom_runtime's is
     * not, docs/formats.md §9.2). */
    put_section_header(&f, 2, (uint64_t)32 * n);
    for (size_t i = 0; i < n; i += WRITE_CHUNK) {
        size_t k = n - i < WRITE_CHUNK ? n - i : WRITE_CHUNK;
        for (size_t j = 0; j < k; j++) czk_fr_to_bytes_le(buf + 32 * j, &w[i + j]);
        czk__wfile_put(&f, buf, 32 * k);
    }
    czk_free(buf);
    return czk__wfile_commit(&f, err);
}

/* ------------------------------------------------------------------------------------ */
/* .zkey                                                                                */
/* ------------------------------------------------------------------------------------ */

static const char *const zkey_names[] = {
    NULL, "header", "Groth16 header", "IC", "coefficients", "A", "B1", "B2",
    "C",  "H",      "contributions"};

/* Size of section 2 with 48-byte q and 32-byte r: the counts and three G1 + three G2. */
#define ZKEY_HEADER_SIZE (4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192)

/* Check that a section holds exactly `count` items of `item` bytes (after `extra`). */
static czk_status want_size(const binfile *bf, const bin_section *s, uint64_t extra, uint64_t count,
                            uint64_t item, const char *count_what, czk_err *err)
{
    uint64_t need = extra + count * item; /* count < 2^33, item ≤ 192: no overflow */
    if (s->size == need) return CZK_OK;
    return czk_err_set(err, CZK_EFORMAT,
                       "%s: section %" PRIu32 " (%s) is %" PRIu64 " bytes; %s = %" PRIu64
                       " needs %" PRIu64,
                       bf->path, s->id, sec_name(bf, s->id), s->size, count_what, count, need);
}

czk_status czk_zkey_read_file_ex(czk_groth16_params *pk, czk_r1cs *ab, const char *path,
                                 bool check_subgroup, czk_pool *pool, czk_err *err)
{
    memset(pk, 0, sizeof *pk);
    if (ab != NULL) memset(ab, 0, sizeof *ab);
    czk__map m;
    czk_status st = czk__map_open(&m, path, err);
    if (st != CZK_OK) return st;
    binfile bf;
    st = bin_open(&bf, &m, path, "zkey", 1, zkey_names, 11, err);
    if (st != CZK_OK) {
        czk__map_close(&m);
        return st;
    }
    czk_groth16_params p;
    memset(&p, 0, sizeof p);
    p.conv = CZK_H_SNARKJS;

    const bin_section *s[10] = {NULL};
    for (uint32_t id = 1; id <= 9; id++)
        if ((st = bin_section_get(&bf, id, true, &s[id], err)) != CZK_OK) goto fail;

    /* Section 1: the protocol. */
    if (s[1]->size != 4) {
        st =
            czk_err_set(err, CZK_EFORMAT, "%s: section 1 (header) is %" PRIu64 " bytes, expected 4",
                        path, s[1]->size);
        goto fail;
    }
    uint32_t protocol = czk__ld32le(s[1]->data);
    if (protocol != 1) {
        st = czk_err_set(err, CZK_EUNSUPPORTED,
                         "%s: section 1 (header): protocol %" PRIu32
                         " (%s); only Groth16 (1) is supported",
                         path, protocol,
                         protocol == 2    ? "PLONK"
                         : protocol == 10 ? "FFLONK"
                                          : "unknown");
        goto fail;
    }

    /* Section 2: q, r, counts, then α₁ β₁ β₂ γ₂ δ₁ δ₂ (the order of the code, not of the
     * comment in zkey_utils.js). */
    const bin_section *hs = s[2];
    if ((st = check_prime(&bf, hs, 0, 48, czk__is_fp_modulus_le, "q", err)) != CZK_OK) goto fail;
    if ((st = check_prime(&bf, hs, 52, 32, czk__is_fr_modulus_le, "r", err)) != CZK_OK) goto fail;
    if (hs->size != ZKEY_HEADER_SIZE) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: section 2 (Groth16 header) is %" PRIu64 " bytes, expected %d", path,
                         hs->size, ZKEY_HEADER_SIZE);
        goto fail;
    }
    const uint8_t *h = hs->data + 88;
    uint32_t n_vars = czk__ld32le(h), n_public = czk__ld32le(h + 4), domain = czk__ld32le(h + 8);
    if ((uint64_t)n_public + 1 > n_vars) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: section 2 (Groth16 header): nPublic %" PRIu32
                         " + 1 exceeds nVars %" PRIu32,
                         path, n_public, n_vars);
        goto fail;
    }
    if (domain == 0 || (domain & (domain - 1)) != 0 || domain < (uint64_t)n_public + 1) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: section 2 (Groth16 header): domainSize %" PRIu32
                         " is not a power of two > nPublic %" PRIu32,
                         path, domain, n_public);
        goto fail;
    }
    p.n_inputs = n_public + 1;
    p.n_aux = n_vars - n_public - 1;
    while (((uint32_t)1 << p.log_m) < domain) p.log_m++;

    static const struct {
        const char *name;
        size_t off;
        bool g2;
    } hp[6] = {{"alpha1", 100, false}, {"beta1", 196, false},  {"beta2", 292, true},
               {"gamma2", 484, true},  {"delta1", 676, false}, {"delta2", 772, true}};
    czk_g1_affine *g1s[6] = {&p.vk.alpha_g1, &p.vk.beta_g1, NULL, NULL, &p.vk.delta_g1, NULL};
    czk_g2_affine *g2s[6] = {NULL, NULL, &p.vk.beta_g2, &p.vk.gamma_g2, NULL, &p.vk.delta_g2};
    for (int k = 0; k < 6; k++) {
        /* Key elements from real toxic waste are never the identity; always subgroup-checked
         * since they are few and the verifier relies on them. */
        const unsigned fl = CZK_DECODE_CHECK_SUBGROUP | CZK_DECODE_REJECT_INFINITY;
        czk_status ps = hp[k].g2 ? czk__g2_from_mont_le(g2s[k], hs->data + hp[k].off, fl)
                                 : czk__g1_from_mont_le(g1s[k], hs->data + hp[k].off, fl);
        if (ps != CZK_OK) {
            st = czk_err_set(err, ps, "%s: section 2 (Groth16 header) %s: %s", path, hp[k].name,
                             czk_strerror(ps));
            goto fail;
        }
    }

    /* Sizes of every point section against the header counts, before any allocation. */
    if ((st = want_size(&bf, s[3], 0, (uint64_t)n_public + 1, 96, "nPublic + 1", err)) ||
        (st = want_size(&bf, s[5], 0, n_vars, 96, "nVars", err)) ||
        (st = want_size(&bf, s[6], 0, n_vars, 96, "nVars", err)) ||
        (st = want_size(&bf, s[7], 0, n_vars, 192, "nVars", err)) ||
        (st = want_size(&bf, s[8], 0, p.n_aux, 96, "nVars - nPublic - 1", err)) ||
        (st = want_size(&bf, s[9], 0, domain, 96, "domainSize", err)))
        goto fail;
    if (s[4]->size < 4) {
        st = czk_err_set(err, CZK_EFORMAT, "%s: section 4 (coefficients) has no count", path);
        goto fail;
    }
    uint32_t n_coef = czk__ld32le(s[4]->data);
    if ((st = want_size(&bf, s[4], 4, n_coef, 44, "nCoef", err)) != CZK_OK) goto fail;

    /* Section 4, pass 1: check every entry; count the non-zero ones and the rows. */
    const uint8_t *co = s[4]->data + 4;
    uint64_t nnz[2] = {0, 0};
    uint32_t rows = 0;
    for (uint32_t i = 0; i < n_coef; i++) {
        const uint8_t *e = co + 44 * (size_t)i;
        uint32_t mtx = czk__ld32le(e), row = czk__ld32le(e + 4), sig = czk__ld32le(e + 8);
        if (mtx > 1 || row >= domain || sig >= n_vars) {
            st = czk_err_set(err, CZK_EFORMAT,
                             "%s: section 4 (coefficients) entry %" PRIu32 ": matrix %" PRIu32
                             " (0 = A, 1 = B), constraint %" PRIu32 " (< domainSize %" PRIu32
                             "), signal %" PRIu32 " (< nVars %" PRIu32 ")",
                             path, i, mtx, row, domain, sig, n_vars);
            goto fail;
        }
        czk_fr v;
        if (!czk__fr_from_double_mont_le(&v, e + 12)) {
            st = czk_err_set(err, CZK_ENONCANONICAL,
                             "%s: section 4 (coefficients) entry %" PRIu32 ": value not below r",
                             path, i);
            goto fail;
        }
        if (all_zero(e + 12, 32)) continue;
        nnz[mtx]++;
        if (row + 1 > rows) rows = row + 1;
    }

    /* Points: allocate (every count is now backed by the file) and decode in parallel. */
    p.vk.ic_len = (size_t)n_public + 1;
    p.vk.ic = czk__points_alloc(p.vk.ic_len, sizeof(czk_g1_affine));
    p.a_len = p.b_g1_len = p.b_g2_len = n_vars;
    p.a = czk__points_alloc(n_vars, sizeof(czk_g1_affine));
    p.b_g1 = czk__points_alloc(n_vars, sizeof(czk_g1_affine));
    p.b_g2 = czk__points_alloc(n_vars, sizeof(czk_g2_affine));
    p.l_len = p.n_aux;
    p.l = czk__points_alloc(p.l_len, sizeof(czk_g1_affine));
    p.h_len = domain;
    p.h = czk__points_alloc(domain, sizeof(czk_g1_affine));
    if (!p.vk.ic || !p.a || !p.b_g1 || !p.b_g2 || (p.l_len && !p.l) || !p.h) {
        st = czk_err_set(err, CZK_ENOMEM, "%s: out of memory for %zu bytes of points", path, m.len);
        goto fail;
    }
    /* Zero points are normal in A, B1, B2 (wires absent from a matrix) and possible in the
     * others, so infinity is accepted everywhere but in the key elements above. */
    unsigned fl = check_subgroup ? CZK_DECODE_CHECK_SUBGROUP : 0;
    czk__point_range ranges[6] = {
        {"section 3 (IC)", CZK__G1_MONT, CZK_DECODE_CHECK_SUBGROUP, s[3]->data, p.vk.ic_len,
         p.vk.ic, 0},
        {"section 5 (A)", CZK__G1_MONT, fl, s[5]->data, n_vars, p.a, 0},
        {"section 6 (B1)", CZK__G1_MONT, fl, s[6]->data, n_vars, p.b_g1, 0},
        {"section 7 (B2)", CZK__G2_MONT, fl, s[7]->data, n_vars, p.b_g2, 0},
        {"section 8 (C)", CZK__G1_MONT, fl, s[8]->data, p.l_len, p.l, 0},
        {"section 9 (H)", CZK__G1_MONT, fl, s[9]->data, domain, p.h, 0},
    };
    st = czk__points_decode(ranges, 6, pool, path, err);
    if (st != CZK_OK) goto fail;

    /* Section 4, passes 2 and 3: counting sort of the entries by row into A and B, stable,
     * so each row keeps the file's term order. */
    if (ab != NULL) {
        st = czk_r1cs_alloc(ab, p.n_inputs, p.n_aux, rows, nnz[0], nnz[1], 0, err);
        if (st != CZK_OK) goto fail;
        ab->has_c = false;
        czk_csr *csr[2] = {&ab->a, &ab->b};
        for (int x = 0; x < 2; x++)
            memset(csr[x]->row_ptr, 0, ((size_t)rows + 1) * sizeof(uint64_t));
        memset(ab->c.row_ptr, 0, ((size_t)rows + 1) * sizeof(uint64_t));
        ab->c.nnz = 0;
        for (uint32_t i = 0; i < n_coef; i++) {
            const uint8_t *e = co + 44 * (size_t)i;
            if (all_zero(e + 12, 32)) continue;
            csr[czk__ld32le(e)]->row_ptr[czk__ld32le(e + 4) + 1]++;
        }
        for (int x = 0; x < 2; x++)
            for (uint32_t j = 0; j < rows; j++) csr[x]->row_ptr[j + 1] += csr[x]->row_ptr[j];
        /* Place each entry at its row's cursor; afterwards row_ptr[j] holds the end of row
         * j, and shifting by one restores the starts. */
        for (uint32_t i = 0; i < n_coef; i++) {
            const uint8_t *e = co + 44 * (size_t)i;
            if (all_zero(e + 12, 32)) continue;
            czk_csr *c = csr[czk__ld32le(e)];
            uint64_t at = c->row_ptr[czk__ld32le(e + 4)]++;
            c->col[at] = czk__ld32le(e + 8);
            czk__fr_from_double_mont_le(&c->val[at], e + 12);
        }
        for (int x = 0; x < 2; x++) {
            for (uint32_t j = rows; j > 0; j--) csr[x]->row_ptr[j] = csr[x]->row_ptr[j - 1];
            csr[x]->row_ptr[0] = 0;
            csr[x]->nnz = nnz[x];
        }
    }

    bin_close(&bf);
    czk__map_close(&m);
    *pk = p;
    return CZK_OK;
fail:
    czk_groth16_params_free(&p);
    if (ab != NULL) czk_r1cs_free(ab);
    bin_close(&bf);
    czk__map_close(&m);
    return st;
}

czk_status czk_zkey_read_file(czk_groth16_params *pk, czk_r1cs *ab, const char *path, czk_err *err)
{
    return czk_zkey_read_file_ex(pk, ab, path, false, NULL, err);
}
