/*
 * The pre-compiled constraint evaluator (include/czk/pce.h): recording into the compact
 * form, the file (save, mmap'ed load with validation), and the row-blocked SpMV.
 */
#include "czk/pce.h"
#include "czk/alloc.h"
#include "ff/consts.h"
#include "ff/mont.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 4

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the PCE file is little-endian and is mapped as it is: a little-endian host is needed"
#endif

static const uint64_t P[N] = CZK__FR_P;
static const czk_fr FR_ONE = {CZK__FR_R};
/* p − R: the Montgomery form of −1. */
static const czk_fr FR_MINUS_ONE = {
    {0xfffffffd00000003ULL, 0xfb38ec08fffb13fcULL, 0x99ad88181ce5880fULL, 0x5bc8f5f97cd877d8ULL}};

/* A row length byte of 255 means the length is in the escape list. */
#define LEN_ESCAPE 255u
/* Dictionary entries 0 and 1 are always +1 and −1: the SpMV's no-multiplication paths. */
#define COEFF_PLUS_ONE  0u
#define COEFF_MINUS_ONE 1u
/* Bounds that keep every size computation far from 64-bit overflow. */
#define MAX_NNZ (1ULL << 40)

static const uint8_t MAGIC[8] = {'C', 'Z', 'K', 'P', 'C', 'E', 0, 1};
#define FILE_VERSION 1u

/* The file header: 256 bytes, little-endian, every field naturally aligned. */
typedef struct pce_header {
    uint8_t magic[8];
    uint32_t version;
    uint32_t header_bytes;
    char id[CZK_PCE_ID_MAX + 1];
    uint64_t n_inputs, n_aux, n_constraints;
    uint32_t n_coeffs, coeff_width, block_rows, reserved0;
    uint64_t nnz[3];
    uint64_t n_esc[3];
    uint64_t density[3]; /* popcounts of a_aux, b_input, b_aux */
    uint64_t file_bytes;
    uint8_t r1cs_hash[32];
    uint8_t reserved[32];
    uint64_t checksum; /* of bytes [0, 248) and [256, file_bytes) */
} pce_header;

_Static_assert(sizeof(pce_header) == 256, "PCE header is 256 bytes");
#define CHECKSUM_OFFSET 248u

/* One matrix in compact form; the arrays point into the mapping or into owned memory. */
typedef struct pce_mat {
    const uint8_t *len;      /* n_rows */
    const uint32_t *esc;     /* n_esc lengths of rows whose byte is LEN_ESCAPE */
    const uint64_t *blk_nnz; /* n_blocks + 1: first term of each block */
    const uint32_t *blk_esc; /* n_blocks + 1: first escape of each block */
    const uint32_t *col;     /* nnz czk_var ids */
    const void *cidx;        /* nnz dictionary indices of coeff_width bytes */
    uint64_t nnz, n_esc;
} pce_mat;

/* Where each section starts in the file; sections follow in this order. */
enum { S_DICT, S_M0, S_DENS = S_M0 + 3 * 6, S_COUNT = S_DENS + 3 };

typedef struct pce_layout {
    uint64_t off[S_COUNT], size[S_COUNT];
    uint64_t total;
} pce_layout;

struct czk_pce {
    pce_header h;
    const czk_fr *dict;
    pce_mat m[3];
    const uint64_t *dens[3]; /* a_aux, b_input, b_aux */
    void *map;               /* the mapped file, or NULL */
    size_t map_len;
    void *own[S_COUNT]; /* memory of a recorded PCE */
};

static inline uint64_t n_blocks(uint64_t rows)
{
    return (rows + CZK_PCE_BLOCK_ROWS - 1) / CZK_PCE_BLOCK_ROWS;
}

static inline uint64_t align64(uint64_t x)
{
    return (x + 63) & ~(uint64_t)63;
}

/* The sections' offsets and sizes for the header's counts. */
static void layout_of(const pce_header *h, pce_layout *l)
{
    uint64_t aux_words = (h->n_aux + 63) / 64, in_words = (h->n_inputs + 63) / 64;
    uint64_t nb = n_blocks(h->n_constraints);
    l->size[S_DICT] = (uint64_t)h->n_coeffs * sizeof(czk_fr);
    for (int m = 0; m < 3; m++) {
        uint64_t *s = l->size + S_M0 + 6 * m;
        s[0] = h->n_constraints;
        s[1] = h->n_esc[m] * 4;
        s[2] = (nb + 1) * 8;
        s[3] = (nb + 1) * 4;
        s[4] = h->nnz[m] * 4;
        s[5] = h->nnz[m] * h->coeff_width;
    }
    l->size[S_DENS] = aux_words * 8;
    l->size[S_DENS + 1] = in_words * 8;
    l->size[S_DENS + 2] = aux_words * 8;
    uint64_t o = sizeof(pce_header);
    for (int s = 0; s < S_COUNT; s++) {
        l->off[s] = o;
        o = align64(o + l->size[s]);
    }
    l->total = o;
}

/* Point the PCE's arrays at the sections of a file image (or of an owned copy). */
static void bind(czk_pce *p, const uint8_t *base, const pce_layout *l)
{
    p->dict = (const czk_fr *)(base + l->off[S_DICT]);
    for (int m = 0; m < 3; m++) {
        const uint64_t *o = l->off + S_M0 + 6 * m;
        pce_mat *x = &p->m[m];
        x->len = base + o[0];
        x->esc = (const uint32_t *)(base + o[1]);
        x->blk_nnz = (const uint64_t *)(base + o[2]);
        x->blk_esc = (const uint32_t *)(base + o[3]);
        x->col = (const uint32_t *)(base + o[4]);
        x->cidx = base + o[5];
        x->nnz = p->h.nnz[m];
        x->n_esc = p->h.n_esc[m];
    }
    for (int d = 0; d < 3; d++) p->dens[d] = (const uint64_t *)(base + l->off[S_DENS + d]);
}

/* ------------------------------------------------------------------------------------ */
/* Checksum                                                                             */
/* ------------------------------------------------------------------------------------ */

/*
 * A 64-bit checksum over a byte stream: four lanes of h = rotl(h ^ w, 23) · K over 64-bit
 * words. Each step is a bijection of the lane for a fixed word, so changing any one word
 * always changes the result; it runs near memory speed (several GB/s), where SHA-256
 * would add seconds to every load of a 32 GiB partition's PCE. It guards against
 * corruption, not against an adversary: the file is the operator's own.
 */
typedef struct cksum {
    uint64_t lane[4];
    uint64_t total;
    uint8_t buf[32];
    unsigned nbuf;
} cksum;

#define CK_K 0x9e3779b97f4a7c15ULL

static void ck_init(cksum *c)
{
    c->lane[0] = 0x243f6a8885a308d3ULL;
    c->lane[1] = 0x13198a2e03707344ULL;
    c->lane[2] = 0xa4093822299f31d0ULL;
    c->lane[3] = 0x082efa98ec4e6c89ULL;
    c->total = 0;
    c->nbuf = 0;
}

static inline uint64_t rotl64(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

static inline void ck_block(cksum *c, const uint8_t *p)
{
    for (int i = 0; i < 4; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        c->lane[i] = rotl64(c->lane[i] ^ w, 23) * CK_K;
    }
}

static void ck_update(cksum *c, const void *data, size_t n)
{
    const uint8_t *p = data;
    c->total += n;
    if (c->nbuf > 0) {
        size_t take = 32 - c->nbuf < n ? 32 - c->nbuf : n;
        memcpy(c->buf + c->nbuf, p, take);
        c->nbuf += (unsigned)take;
        p += take;
        n -= take;
        if (c->nbuf < 32) return;
        ck_block(c, c->buf);
        c->nbuf = 0;
    }
    for (; n >= 32; p += 32, n -= 32) ck_block(c, p);
    memcpy(c->buf, p, n);
    c->nbuf = (unsigned)n;
}

static void ck_zeros(cksum *c, size_t n)
{
    static const uint8_t z[64];
    while (n > 0) {
        size_t k = n < sizeof z ? n : sizeof z;
        ck_update(c, z, k);
        n -= k;
    }
}

static uint64_t ck_final(cksum *c)
{
    if (c->nbuf > 0) {
        memset(c->buf + c->nbuf, 0, 32 - c->nbuf);
        ck_block(c, c->buf);
    }
    uint64_t h = c->total * CK_K;
    for (int i = 0; i < 4; i++) h = rotl64(h ^ c->lane[i], 31) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 29);
}

/* Header bytes before the checksum, then every section with its padding, in file order. */
static uint64_t checksum_of(const czk_pce *p, const pce_layout *l)
{
    cksum c;
    ck_init(&c);
    ck_update(&c, &p->h, CHECKSUM_OFFSET);
    if (p->map != NULL) {
        /* A file image: its padding bytes are checked too, so they must be the zeros that
         * czk_pce_save wrote. */
        ck_zeros(&c, sizeof(pce_header) - CHECKSUM_OFFSET);
        ck_update(&c, (const uint8_t *)p->map + sizeof(pce_header),
                  (size_t)(l->total - sizeof(pce_header)));
        return ck_final(&c);
    }
    const void *sec[S_COUNT];
    sec[S_DICT] = p->dict;
    for (int m = 0; m < 3; m++) {
        const void **s = sec + S_M0 + 6 * m;
        s[0] = p->m[m].len;
        s[1] = p->m[m].esc;
        s[2] = p->m[m].blk_nnz;
        s[3] = p->m[m].blk_esc;
        s[4] = p->m[m].col;
        s[5] = p->m[m].cidx;
    }
    for (int d = 0; d < 3; d++) sec[S_DENS + d] = p->dens[d];
    ck_zeros(&c, sizeof(pce_header) - CHECKSUM_OFFSET);
    for (int s = 0; s < S_COUNT; s++) {
        ck_update(&c, sec[s], (size_t)l->size[s]);
        uint64_t end = s + 1 < S_COUNT ? l->off[s + 1] : l->total;
        ck_zeros(&c, (size_t)(end - l->off[s] - l->size[s]));
    }
    return ck_final(&c);
}

/* ------------------------------------------------------------------------------------ */
/* Recording                                                                            */
/* ------------------------------------------------------------------------------------ */

typedef struct rec_mat {
    uint8_t *len;
    uint64_t rows, rows_cap;
    uint32_t *esc;
    uint64_t n_esc, esc_cap;
    uint32_t *col;
    uint32_t *cidx; /* 4 bytes while recording, narrowed at the end */
    uint64_t nnz, nnz_cap;
} rec_mat;

typedef struct builder {
    rec_mat m[3];
    /* The dictionary and its open-addressing index (slot: entry + 1, 0 empty). */
    czk_fr *dict;
    uint32_t n_dict, dict_cap;
    uint32_t *tab;
    uint32_t tab_log;
} builder;

static bool grow(void **p, uint64_t *cap, uint64_t need, size_t elem, uint64_t first)
{
    if (need <= *cap) return true;
    uint64_t c = *cap > 0 ? *cap : first;
    while (c < need) c *= 2;
    void *q = czk_realloc(*p, (size_t)(c * elem));
    if (q == NULL) return false;
    *p = q;
    *cap = c;
    return true;
}

static inline uint32_t fr_hash(const czk_fr *x, uint32_t log)
{
    uint64_t h = (x->l[0] ^ rotl64(x->l[1], 17) ^ rotl64(x->l[2], 34) ^ rotl64(x->l[3], 51)) * CK_K;
    return (uint32_t)(h >> (64 - log));
}

static bool dict_rehash(builder *b, uint32_t log)
{
    uint32_t *tab = czk_calloc((size_t)1 << log, sizeof *tab);
    if (tab == NULL) return false;
    uint32_t mask = (1u << log) - 1;
    for (uint32_t i = 0; i < b->n_dict; i++) {
        uint32_t h = fr_hash(&b->dict[i], log);
        while (tab[h] != 0) h = (h + 1) & mask;
        tab[h] = i + 1;
    }
    czk_free(b->tab);
    b->tab = tab;
    b->tab_log = log;
    return true;
}

/* The dictionary index of a coefficient, adding it if new; UINT32_MAX when out of memory. */
static uint32_t dict_index(builder *b, const czk_fr *x)
{
    uint32_t mask = (1u << b->tab_log) - 1, h = fr_hash(x, b->tab_log);
    for (; b->tab[h] != 0; h = (h + 1) & mask)
        if (limbs_eq(b->dict[b->tab[h] - 1].l, x->l, N)) return b->tab[h] - 1;
    if (b->n_dict == UINT32_MAX - 1) return UINT32_MAX;
    if (b->n_dict == b->dict_cap) {
        uint64_t cap = b->dict_cap;
        void *d = b->dict;
        if (!grow(&d, &cap, (uint64_t)b->n_dict + 1, sizeof(czk_fr), 64)) return UINT32_MAX;
        b->dict = d;
        b->dict_cap = (uint32_t)cap;
    }
    uint32_t i = b->n_dict++;
    b->dict[i] = *x;
    b->tab[h] = i + 1;
    /* Keep the table at most half full. */
    if (2 * (uint64_t)b->n_dict > ((uint64_t)1 << b->tab_log) && !dict_rehash(b, b->tab_log + 1))
        return UINT32_MAX;
    return i;
}

static czk_status record_sink(void *ctx, unsigned matrix, uint64_t row, const czk_lc_term *t,
                              uint32_t n)
{
    builder *b = ctx;
    rec_mat *r = &b->m[matrix];
    if (row != r->rows) return CZK_EINTERNAL; /* rows arrive in order, once per matrix */
    void *p = r->len;
    if (!grow(&p, &r->rows_cap, r->rows + 1, 1, 1 << 16)) return CZK_ENOMEM;
    r->len = p;
    if (n >= LEN_ESCAPE) {
        p = r->esc;
        if (!grow(&p, &r->esc_cap, r->n_esc + 1, 4, 1024)) return CZK_ENOMEM;
        r->esc = p;
        r->esc[r->n_esc++] = n;
        r->len[r->rows++] = LEN_ESCAPE;
    } else {
        r->len[r->rows++] = (uint8_t)n;
    }
    if (r->nnz + n > MAX_NNZ) return CZK_ERESOURCE;
    if (r->nnz + n > r->nnz_cap) {
        uint64_t cap = r->nnz_cap;
        p = r->col;
        if (!grow(&p, &cap, r->nnz + n, 4, 1 << 16)) return CZK_ENOMEM;
        r->col = p;
        cap = r->nnz_cap;
        p = r->cidx;
        if (!grow(&p, &cap, r->nnz + n, 4, 1 << 16)) return CZK_ENOMEM;
        r->cidx = p;
        r->nnz_cap = cap;
    }
    uint32_t *col = r->col + r->nnz, *ci = r->cidx + r->nnz;
    for (uint32_t i = 0; i < n; i++) {
        col[i] = t[i].var;
        if (t[i].kind == CZK_LC_COEFF_ONE) {
            ci[i] = COEFF_PLUS_ONE;
        } else if (t[i].kind == CZK_LC_COEFF_MINUS_ONE) {
            ci[i] = COEFF_MINUS_ONE;
        } else {
            ci[i] = dict_index(b, &t[i].coeff);
            if (ci[i] == UINT32_MAX) return CZK_ENOMEM;
        }
    }
    r->nnz += n;
    return CZK_OK;
}

static void builder_free(builder *b)
{
    for (int m = 0; m < 3; m++) {
        czk_free(b->m[m].len);
        czk_free(b->m[m].esc);
        czk_free(b->m[m].col);
        czk_free(b->m[m].cidx);
    }
    czk_free(b->dict);
    czk_free(b->tab);
}

/* SHA-256 of the counts, the dictionary and the matrices' length, escape, column and
 * coefficient-index sections (the block index and densities are derived from them). */
static czk_status r1cs_hash(czk_pce *p, const pce_layout *l, czk_err *err)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md != NULL && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1;
    uint64_t counts[3] = {p->h.n_inputs, p->h.n_aux, p->h.n_constraints};
    uint32_t dict_meta[2] = {p->h.n_coeffs, p->h.coeff_width};
    ok = ok && EVP_DigestUpdate(md, counts, sizeof counts) == 1;
    ok = ok && EVP_DigestUpdate(md, dict_meta, sizeof dict_meta) == 1;
    ok = ok && EVP_DigestUpdate(md, p->dict, (size_t)l->size[S_DICT]) == 1;
    for (int m = 0; m < 3 && ok; m++) {
        const uint64_t *s = l->size + S_M0 + 6 * m;
        ok = EVP_DigestUpdate(md, p->m[m].len, (size_t)s[0]) == 1 &&
             EVP_DigestUpdate(md, p->m[m].esc, (size_t)s[1]) == 1 &&
             EVP_DigestUpdate(md, p->m[m].col, (size_t)s[4]) == 1 &&
             EVP_DigestUpdate(md, p->m[m].cidx, (size_t)s[5]) == 1;
    }
    unsigned len = 0;
    ok = ok && EVP_DigestFinal_ex(md, p->h.r1cs_hash, &len) == 1 && len == 32;
    EVP_MD_CTX_free(md);
    return ok ? CZK_OK : czk_err_set(err, CZK_EINTERNAL, "pce: SHA-256 failed");
}

static uint64_t popcount_words(const uint64_t *w, uint64_t n)
{
    uint64_t c = 0;
    for (uint64_t i = 0; i < n; i++) c += (uint64_t)__builtin_popcountll(w[i]);
    return c;
}

/* Turn a finished recording into the PCE's arrays (taking the builder's memory). */
static czk_status finish_record(czk_pce *p, builder *b, czk_cs *cs, czk_err *err)
{
    czk_cs_counts cnt;
    czk_cs_get_counts(cs, &cnt);
    if (cnt.n_inputs > UINT32_MAX || cnt.n_aux > CZK_CS_MAX_VARS || cnt.n_constraints > UINT32_MAX)
        return czk_err_set(err, CZK_ERESOURCE, "pce: circuit too large for 32-bit indices");
    pce_header *h = &p->h;
    h->n_inputs = cnt.n_inputs;
    h->n_aux = cnt.n_aux;
    h->n_constraints = cnt.n_constraints;
    h->n_coeffs = b->n_dict;
    h->coeff_width = b->n_dict <= 256 ? 1 : b->n_dict <= 65536 ? 2 : 4;
    h->block_rows = CZK_PCE_BLOCK_ROWS;
    h->density[0] = cnt.a_aux_density;
    h->density[1] = cnt.b_input_density;
    h->density[2] = cnt.b_aux_density;
    for (int m = 0; m < 3; m++) {
        if (b->m[m].rows != cnt.n_constraints)
            return czk_err_set(err, CZK_EINTERNAL,
                               "pce: matrix %d has %" PRIu64 " rows of %" PRIu64, m, b->m[m].rows,
                               cnt.n_constraints);
        h->nnz[m] = b->m[m].nnz;
        h->n_esc[m] = b->m[m].n_esc;
    }
    pce_layout l;
    layout_of(h, &l);
    h->file_bytes = l.total;

    p->own[S_DICT] = b->dict;
    b->dict = NULL;
    uint64_t nb = n_blocks(cnt.n_constraints);
    for (int m = 0; m < 3; m++) {
        rec_mat *r = &b->m[m];
        void **own = p->own + S_M0 + 6 * m;
        uint64_t *bn = czk_malloc((size_t)(nb + 1) * 8);
        uint32_t *be = czk_malloc((size_t)(nb + 1) * 4);
        own[2] = bn;
        own[3] = be;
        if (bn == NULL || be == NULL) return czk_err_set(err, CZK_ENOMEM, "pce: out of memory");
        uint64_t k = 0, e = 0;
        for (uint64_t blk = 0; blk < nb; blk++) {
            bn[blk] = k;
            be[blk] = (uint32_t)e;
            uint64_t hi = (blk + 1) * CZK_PCE_BLOCK_ROWS;
            if (hi > cnt.n_constraints) hi = cnt.n_constraints;
            for (uint64_t j = blk * CZK_PCE_BLOCK_ROWS; j < hi; j++)
                k += r->len[j] == LEN_ESCAPE ? r->esc[e++] : r->len[j];
        }
        bn[nb] = k;
        be[nb] = (uint32_t)e;
        if (e > UINT32_MAX) return czk_err_set(err, CZK_ERESOURCE, "pce: too many long rows");
        /* Narrow the coefficient indices in place: entry i of the narrow array lies at or
         * before entry i of the wide one, so a forward pass never overwrites unread data. */
        if (h->coeff_width == 1) {
            uint8_t *d = (uint8_t *)r->cidx;
            for (uint64_t i = 0; i < r->nnz; i++) d[i] = (uint8_t)r->cidx[i];
        } else if (h->coeff_width == 2) {
            uint16_t *d = (uint16_t *)r->cidx;
            for (uint64_t i = 0; i < r->nnz; i++) d[i] = (uint16_t)r->cidx[i];
        }
        /* Give back the growth slack: a 32 GiB partition's PCE is kept for long. */
        size_t keep = r->nnz > 0 ? (size_t)r->nnz : 1;
        void *q = czk_realloc(r->cidx, keep * h->coeff_width);
        if (q != NULL) r->cidx = q;
        q = czk_realloc(r->col, keep * 4);
        if (q != NULL) r->col = q;
        own[0] = r->len;
        own[1] = r->esc;
        own[4] = r->col;
        own[5] = r->cidx;
        memset(r, 0, sizeof *r);
        if (own[0] == NULL) own[0] = czk_malloc(1);
        if (own[1] == NULL) own[1] = czk_malloc(4);
        if (own[4] == NULL) own[4] = czk_malloc(4);
        if (own[5] == NULL) own[5] = czk_malloc(4);
        if (own[0] == NULL || own[1] == NULL || own[4] == NULL || own[5] == NULL)
            return czk_err_set(err, CZK_ENOMEM, "pce: out of memory");
    }
    uint64_t aux_words = (cnt.n_aux + 63) / 64, in_words = (cnt.n_inputs + 63) / 64;
    for (int d = 0; d < 3; d++) {
        uint64_t words = d == 1 ? in_words : aux_words;
        p->own[S_DENS + d] = czk_calloc(words > 0 ? (size_t)words : 1, 8);
        if (p->own[S_DENS + d] == NULL) return czk_err_set(err, CZK_ENOMEM, "pce: out of memory");
    }
    czk_cs_get_densities(cs, p->own[S_DENS], p->own[S_DENS + 1], p->own[S_DENS + 2]);

    /* Bind the owned arrays like a file image's sections. */
    p->dict = p->own[S_DICT];
    for (int m = 0; m < 3; m++) {
        void **own = p->own + S_M0 + 6 * m;
        pce_mat *x = &p->m[m];
        x->len = own[0];
        x->esc = own[1];
        x->blk_nnz = own[2];
        x->blk_esc = own[3];
        x->col = own[4];
        x->cidx = own[5];
        x->nnz = h->nnz[m];
        x->n_esc = h->n_esc[m];
    }
    for (int d = 0; d < 3; d++) p->dens[d] = p->own[S_DENS + d];
    czk_status s = r1cs_hash(p, &l, err);
    if (s != CZK_OK) return s;
    h->checksum = checksum_of(p, &l);
    return CZK_OK;
}

czk_status czk_pce_record(czk_pce **out, czk_cs_circuit_fn circuit, void *ctx,
                          const char *circuit_id, czk_err *err)
{
    *out = NULL;
    if (circuit_id == NULL || strlen(circuit_id) > CZK_PCE_ID_MAX)
        return czk_err_set(err, CZK_EINVAL, "pce: circuit id missing or longer than %d",
                           CZK_PCE_ID_MAX);
    czk_pce *p = czk_calloc(1, sizeof *p);
    builder b;
    memset(&b, 0, sizeof b);
    czk_status s = CZK_OK;
    czk_cs *cs = NULL;
    if (p == NULL || !dict_rehash(&b, 6)) {
        s = czk_err_set(err, CZK_ENOMEM, "pce: out of memory");
        goto out;
    }
    /* Entries 0 and 1 are fixed: the SpMV tests indices, not coefficients. */
    if (dict_index(&b, &FR_ONE) != COEFF_PLUS_ONE ||
        dict_index(&b, &FR_MINUS_ONE) != COEFF_MINUS_ONE) {
        s = czk_err_set(err, CZK_ENOMEM, "pce: out of memory");
        goto out;
    }
    memcpy(p->h.magic, MAGIC, sizeof MAGIC);
    p->h.version = FILE_VERSION;
    p->h.header_bytes = sizeof(pce_header);
    strcpy(p->h.id, circuit_id);

    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_RECORD;
    s = czk_cs_create(&cs, &cfg, err);
    if (s != CZK_OK) goto out;
    s = czk_cs_set_record_sink(cs, record_sink, &b);
    if (s != CZK_OK) {
        czk_err_set(err, s, "pce: cannot record into a sink");
        goto out;
    }
    s = circuit(cs, ctx);
    if (s != CZK_OK) czk_cs_fail(cs, s, "pce: the circuit failed: %s", czk_strerror(s));
    s = czk_cs_finish(cs, err);
    if (s != CZK_OK) goto out;
    s = finish_record(p, &b, cs, err);
out:
    czk_cs_destroy(cs);
    builder_free(&b);
    if (s != CZK_OK) {
        czk_pce_destroy(p);
        return s;
    }
    *out = p;
    return CZK_OK;
}

void czk_pce_destroy(czk_pce *p)
{
    if (p == NULL) return;
    if (p->map != NULL) munmap(p->map, p->map_len);
    for (int s = 0; s < S_COUNT; s++) czk_free(p->own[s]);
    czk_free(p);
}

void czk_pce_get_info(const czk_pce *p, czk_pce_info *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->circuit_id, p->h.id, sizeof out->circuit_id);
    out->circuit_id[CZK_PCE_ID_MAX] = '\0';
    out->n_inputs = p->h.n_inputs;
    out->n_aux = p->h.n_aux;
    out->n_constraints = p->h.n_constraints;
    for (int m = 0; m < 3; m++) {
        out->nnz[m] = p->h.nnz[m];
        out->long_rows[m] = p->h.n_esc[m];
    }
    out->n_coeffs = p->h.n_coeffs;
    out->coeff_width = p->h.coeff_width;
    out->a_aux_density = p->h.density[0];
    out->b_input_density = p->h.density[1];
    out->b_aux_density = p->h.density[2];
    out->bytes = p->h.file_bytes;
    memcpy(out->r1cs_hash, p->h.r1cs_hash, 32);
}

void czk_pce_get_densities(const czk_pce *p, uint64_t *a_aux, uint64_t *b_input, uint64_t *b_aux)
{
    size_t aux_words = (size_t)((p->h.n_aux + 63) / 64),
           in_words = (size_t)((p->h.n_inputs + 63) / 64);
    if (a_aux != NULL) memcpy(a_aux, p->dens[0], aux_words * 8);
    if (b_input != NULL) memcpy(b_input, p->dens[1], in_words * 8);
    if (b_aux != NULL) memcpy(b_aux, p->dens[2], aux_words * 8);
}

/* ------------------------------------------------------------------------------------ */
/* File                                                                                 */
/* ------------------------------------------------------------------------------------ */

static bool write_all(int fd, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

czk_status czk_pce_save(const czk_pce *p, const char *path, czk_err *err)
{
    pce_layout l;
    layout_of(&p->h, &l);
    char tmp[4096];
    int k = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (k < 0 || (size_t)k >= sizeof tmp)
        return czk_err_set(err, CZK_EINVAL, "pce: path too long: %s", path);
    /* The temporary file sits next to the target, so rename() replaces it atomically. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return czk_err_set(err, CZK_EIO, "pce: cannot create %s: %s", tmp, strerror(errno));
    const void *sec[S_COUNT];
    sec[S_DICT] = p->dict;
    for (int m = 0; m < 3; m++) {
        const void **s = sec + S_M0 + 6 * m;
        s[0] = p->m[m].len;
        s[1] = p->m[m].esc;
        s[2] = p->m[m].blk_nnz;
        s[3] = p->m[m].blk_esc;
        s[4] = p->m[m].col;
        s[5] = p->m[m].cidx;
    }
    for (int d = 0; d < 3; d++) sec[S_DENS + d] = p->dens[d];
    static const uint8_t zeros[64];
    bool ok = write_all(fd, &p->h, sizeof p->h);
    for (int s = 0; s < S_COUNT && ok; s++) {
        ok = write_all(fd, sec[s], (size_t)l.size[s]);
        uint64_t end = s + 1 < S_COUNT ? l.off[s + 1] : l.total;
        ok = ok && write_all(fd, zeros, (size_t)(end - l.off[s] - l.size[s]));
    }
    ok = ok && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        unlink(tmp);
        return czk_err_set(err, CZK_EIO, "pce: writing %s failed: %s", path, strerror(e));
    }
    return CZK_OK;
}

/* Fail a load with a message that names the file and what is wrong. */
#define BAD(st, ...)                                                                               \
    do {                                                                                           \
        char m_[256];                                                                              \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                      \
        return czk_err_set(err, (st), "pce: %s: %s", path, m_);                                    \
    } while (0)

static inline uint32_t cidx_at(const void *ci, unsigned width, uint64_t k)
{
    if (width == 1) return ((const uint8_t *)ci)[k];
    if (width == 2) return ((const uint16_t *)ci)[k];
    return ((const uint32_t *)ci)[k];
}

/* Every structural property the evaluator relies on, so that a bad file cannot make it
 * read outside the mapping or the caller's witness. */
static czk_status validate(const czk_pce *p, const char *path, czk_err *err)
{
    const pce_header *h = &p->h;
    for (uint32_t i = 0; i < h->n_coeffs; i++) {
        if (!limbs_lt(p->dict[i].l, P, N) || limbs_is_zero(p->dict[i].l, N))
            BAD(CZK_EFORMAT, "coefficient %u is zero or not below the modulus", i);
    }
    if (!limbs_eq(p->dict[0].l, FR_ONE.l, N) || !limbs_eq(p->dict[1].l, FR_MINUS_ONE.l, N))
        BAD(CZK_EFORMAT, "dictionary entries 0 and 1 are not +1 and -1");
    uint64_t nb = n_blocks(h->n_constraints);
    uint64_t max_row = h->n_inputs + h->n_aux; /* merged rows name each variable once */
    for (int m = 0; m < 3; m++) {
        const pce_mat *x = &p->m[m];
        const char *name = m == 0 ? "A" : m == 1 ? "B" : "C";
        if (x->blk_nnz[0] != 0 || x->blk_esc[0] != 0)
            BAD(CZK_EFORMAT, "matrix %s: block index does not start at 0", name);
        for (uint64_t blk = 0; blk < nb; blk++) {
            uint64_t k = x->blk_nnz[blk], e = x->blk_esc[blk];
            uint64_t hi = (blk + 1) * CZK_PCE_BLOCK_ROWS;
            if (hi > h->n_constraints) hi = h->n_constraints;
            for (uint64_t j = blk * CZK_PCE_BLOCK_ROWS; j < hi; j++) {
                uint64_t n = x->len[j];
                if (n == LEN_ESCAPE) {
                    if (e >= x->n_esc)
                        BAD(CZK_EFORMAT, "matrix %s: row %" PRIu64 " has no escape entry", name, j);
                    n = x->esc[e++];
                    if (n < LEN_ESCAPE || n > max_row)
                        BAD(CZK_EFORMAT, "matrix %s: row %" PRIu64 " length %" PRIu64 " invalid",
                            name, j, n);
                }
                k += n;
            }
            /* Bounded at every block, the running sums cannot wrap around. */
            if (k > x->nnz)
                BAD(CZK_EFORMAT, "matrix %s: block %" PRIu64 " runs past the %" PRIu64 " terms",
                    name, blk, x->nnz);
            if (k != x->blk_nnz[blk + 1] || e != x->blk_esc[blk + 1])
                BAD(CZK_EFORMAT, "matrix %s: block %" PRIu64 " index disagrees with its rows", name,
                    blk);
        }
        if (x->blk_nnz[nb] != x->nnz || x->blk_esc[nb] != x->n_esc)
            BAD(CZK_EFORMAT, "matrix %s: rows hold %" PRIu64 " terms, header says %" PRIu64, name,
                x->blk_nnz[nb], x->nnz);
        for (uint64_t k = 0; k < x->nnz; k++) {
            uint32_t id = x->col[k];
            bool ok = (id & CZK_VAR_AUX) ? (id & ~CZK_VAR_AUX) < h->n_aux : id < h->n_inputs;
            if (!ok)
                BAD(CZK_EFORMAT, "matrix %s: term %" PRIu64 " names unknown variable 0x%08x", name,
                    k, id);
            if (cidx_at(x->cidx, h->coeff_width, k) >= h->n_coeffs)
                BAD(CZK_EFORMAT, "matrix %s: term %" PRIu64 " has coefficient index %u of %u", name,
                    k, cidx_at(x->cidx, h->coeff_width, k), h->n_coeffs);
        }
    }
    uint64_t counts[3] = {h->n_aux, h->n_inputs, h->n_aux};
    for (int d = 0; d < 3; d++) {
        uint64_t words = (counts[d] + 63) / 64;
        if (counts[d] % 64 != 0 && (p->dens[d][words - 1] >> (counts[d] % 64)) != 0)
            BAD(CZK_EFORMAT, "density bitmap %d has bits past its count", d);
        if (popcount_words(p->dens[d], words) != h->density[d])
            BAD(CZK_EFORMAT, "density bitmap %d disagrees with the header", d);
    }
    return CZK_OK;
}

czk_status czk_pce_load(czk_pce **out, const char *path, const char *expect_id,
                        const uint8_t expect_hash[32], unsigned flags, czk_err *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return czk_err_set(err, e == ENOENT ? CZK_ENOENT : CZK_EIO, "pce: cannot open %s: %s", path,
                           strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        BAD(CZK_EIO, "stat failed: %s", strerror(e));
    }
    uint64_t size = (uint64_t)st.st_size;
    if (size < sizeof(pce_header)) {
        close(fd);
        BAD(CZK_ETRUNCATED, "%" PRIu64 " bytes, shorter than the header", size);
    }
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (map == MAP_FAILED) BAD(CZK_EIO, "mmap failed: %s", strerror(e));
    czk_pce *p = czk_calloc(1, sizeof *p);
    if (p == NULL) {
        munmap(map, (size_t)size);
        return czk_err_set(err, CZK_ENOMEM, "pce: out of memory");
    }
    p->map = map;
    p->map_len = (size_t)size;
    memcpy(&p->h, map, sizeof p->h);
    czk_status s = CZK_OK;
    const pce_header *h = &p->h;
    char msg[256];
    msg[0] = '\0';
#define FAIL(st, ...)                                                                              \
    do {                                                                                           \
        s = (st);                                                                                  \
        snprintf(msg, sizeof msg, __VA_ARGS__);                                                    \
        goto fail;                                                                                 \
    } while (0)
    if (memcmp(h->magic, MAGIC, sizeof MAGIC) != 0) FAIL(CZK_EFORMAT, "not a czk PCE file (magic)");
    if (h->version != FILE_VERSION)
        FAIL(CZK_EFORMAT, "version %u, expected %u", h->version, FILE_VERSION);
    if (h->header_bytes != sizeof(pce_header)) FAIL(CZK_EFORMAT, "header size %u", h->header_bytes);
    if (memchr(h->id, 0, sizeof h->id) == NULL) FAIL(CZK_EFORMAT, "circuit id not terminated");
    if (expect_id != NULL && strcmp(h->id, expect_id) != 0)
        FAIL(CZK_EINVAL, "holds circuit '%s', expected '%s'", h->id, expect_id);
    if (h->n_inputs < 1 || h->n_inputs > UINT32_MAX || h->n_aux > CZK_CS_MAX_VARS ||
        h->n_constraints > UINT32_MAX)
        FAIL(CZK_EFORMAT,
             "counts out of range (%" PRIu64 " inputs, %" PRIu64 " aux, %" PRIu64 " constraints)",
             h->n_inputs, h->n_aux, h->n_constraints);
    if (h->n_coeffs < 2 || (h->coeff_width != 1 && h->coeff_width != 2 && h->coeff_width != 4) ||
        (h->coeff_width == 1 && h->n_coeffs > 256) || (h->coeff_width == 2 && h->n_coeffs > 65536))
        FAIL(CZK_EFORMAT, "dictionary of %u coefficients with %u-byte indices", h->n_coeffs,
             h->coeff_width);
    if (h->block_rows != CZK_PCE_BLOCK_ROWS)
        FAIL(CZK_EFORMAT, "block of %u rows, expected %u", h->block_rows, CZK_PCE_BLOCK_ROWS);
    for (int m = 0; m < 3; m++) {
        if (h->nnz[m] > MAX_NNZ || h->n_esc[m] > h->n_constraints)
            FAIL(CZK_EFORMAT, "matrix %d: %" PRIu64 " terms, %" PRIu64 " long rows", m, h->nnz[m],
                 h->n_esc[m]);
    }
    if (expect_hash != NULL && memcmp(h->r1cs_hash, expect_hash, 32) != 0)
        FAIL(CZK_EINVAL, "R1CS hash differs from the expected one (another circuit version)");
    pce_layout l;
    layout_of(h, &l);
    if (h->file_bytes != l.total)
        FAIL(CZK_EFORMAT, "header says %" PRIu64 " bytes, its counts need %" PRIu64, h->file_bytes,
             l.total);
    if (size < l.total) FAIL(CZK_ETRUNCATED, "%" PRIu64 " bytes of %" PRIu64, size, l.total);
    if (size > l.total) FAIL(CZK_EFORMAT, "%" PRIu64 " bytes, expected %" PRIu64, size, l.total);
    bind(p, map, &l);
    if (!(flags & CZK_PCE_LOAD_NO_CHECKSUM) && checksum_of(p, &l) != h->checksum)
        FAIL(CZK_EFORMAT, "checksum mismatch (the file is corrupt)");
#undef FAIL
    s = validate(p, path, err);
    if (s != CZK_OK) {
        czk_pce_destroy(p);
        return s;
    }
    /* The evaluator streams the file once per proof. */
    madvise(map, (size_t)size, MADV_WILLNEED);
    *out = p;
    return CZK_OK;
fail:
    czk_pce_destroy(p);
    return czk_err_set(err, s, "pce: %s: %s", path, msg);
}

/* ------------------------------------------------------------------------------------ */
/* Evaluation                                                                           */
/* ------------------------------------------------------------------------------------ */

/*
 * acc ± x mod p with the accumulator in registers. mont.h's add and subtract read and
 * write memory and clobber all of it, which keeps a row's accumulator bouncing through
 * the stack; here x is the only memory operand. Both operands are below p < 2^255, so
 * acc + x never carries out of 256 bits.
 */
typedef struct acc4 {
    uint64_t a0, a1, a2, a3;
} acc4;

static inline __attribute__((always_inline)) void acc_add(acc4 *r, const uint64_t *x)
{
#if defined(__x86_64__)
    uint64_t s0, s1, s2, s3;
    __asm__("add %[x0], %[a0]\n\t"
            "adc %[x1], %[a1]\n\t"
            "adc %[x2], %[a2]\n\t"
            "adc %[x3], %[a3]\n\t"
            "mov %[a0], %[s0]\n\t"
            "mov %[a1], %[s1]\n\t"
            "mov %[a2], %[s2]\n\t"
            "mov %[a3], %[s3]\n\t"
            "sub %[p0], %[s0]\n\t"
            "sbb %[p1], %[s1]\n\t"
            "sbb %[p2], %[s2]\n\t"
            "sbb %[p3], %[s3]\n\t"
            "cmovnc %[s0], %[a0]\n\t"
            "cmovnc %[s1], %[a1]\n\t"
            "cmovnc %[s2], %[a2]\n\t"
            "cmovnc %[s3], %[a3]\n\t"
            : [a0] "+r"(r->a0), [a1] "+r"(r->a1), [a2] "+r"(r->a2), [a3] "+r"(r->a3),
              [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
            : [x0] "m"(x[0]), [x1] "m"(x[1]), [x2] "m"(x[2]), [x3] "m"(x[3]), [p0] "m"(P[0]),
              [p1] "m"(P[1]), [p2] "m"(P[2]), [p3] "m"(P[3])
            : "cc");
#else
    uint64_t a[4] = {r->a0, r->a1, r->a2, r->a3};
    mont_add(a, a, x, P, N);
    r->a0 = a[0], r->a1 = a[1], r->a2 = a[2], r->a3 = a[3];
#endif
}

static inline __attribute__((always_inline)) void acc_sub(acc4 *r, const uint64_t *x)
{
#if defined(__x86_64__)
    uint64_t s0, s1, s2, s3;
    /* t = acc − x (wrapping); t + p carries exactly when the subtraction borrowed. */
    __asm__("sub %[x0], %[a0]\n\t"
            "sbb %[x1], %[a1]\n\t"
            "sbb %[x2], %[a2]\n\t"
            "sbb %[x3], %[a3]\n\t"
            "mov %[a0], %[s0]\n\t"
            "mov %[a1], %[s1]\n\t"
            "mov %[a2], %[s2]\n\t"
            "mov %[a3], %[s3]\n\t"
            "add %[p0], %[s0]\n\t"
            "adc %[p1], %[s1]\n\t"
            "adc %[p2], %[s2]\n\t"
            "adc %[p3], %[s3]\n\t"
            "cmovc %[s0], %[a0]\n\t"
            "cmovc %[s1], %[a1]\n\t"
            "cmovc %[s2], %[a2]\n\t"
            "cmovc %[s3], %[a3]\n\t"
            : [a0] "+r"(r->a0), [a1] "+r"(r->a1), [a2] "+r"(r->a2), [a3] "+r"(r->a3),
              [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
            : [x0] "m"(x[0]), [x1] "m"(x[1]), [x2] "m"(x[2]), [x3] "m"(x[3]), [p0] "m"(P[0]),
              [p1] "m"(P[1]), [p2] "m"(P[2]), [p3] "m"(P[3])
            : "cc");
#else
    uint64_t a[4] = {r->a0, r->a1, r->a2, r->a3};
    mont_sub(a, a, x, P, N);
    r->a0 = a[0], r->a1 = a[1], r->a2 = a[2], r->a3 = a[3];
#endif
}

/*
 * <row, z> for one row. Coefficient index 0 (+1) and 1 (−1) add or subtract the value
 * with no test on it: the PoRep rows are mostly ±1 and a branch on a bit's value is a
 * coin flip. A general coefficient (packing's 2^i, Poseidon's constants) against a value
 * of 0 or 1 adds the coefficient masked, and only a general value multiplies.
 * PoRep's rows average under two terms (boolean constraints: A = 1 − b, B = b, C = 0),
 * so per-row costs count as much as per-term ones: an empty row and a one-term row need
 * no accumulator. (Lazy 320-bit accumulators with one reduction per row measured 30%
 * slower than this on the 2 KiB partition, for that reason; non-temporal stores of a/b/c
 * and software prefetch of z made no difference: the loop is latency-bound, not
 * bandwidth-bound, on one core.)
 */
static inline __attribute__((always_inline)) void row_dot(czk_fr *out, const uint32_t *col,
                                                          const void *ci, unsigned width,
                                                          uint64_t n, const czk_fr *dict,
                                                          const czk_fr *in, const czk_fr *aux)
{
    if (n == 0) {
        memset(out, 0, sizeof *out);
        return;
    }
    if (n == 1) {
        uint32_t id = col[0], c = cidx_at(ci, width, 0);
        const czk_fr *x = (id & CZK_VAR_AUX) ? &aux[id & ~CZK_VAR_AUX] : &in[id];
        if (c == COEFF_PLUS_ONE) {
            *out = *x;
        } else if (c == COEFF_MINUS_ONE) {
            mont_neg(out->l, x->l, P, N);
        } else {
            bool is0 = limbs_is_zero(x->l, N), is1 = limbs_eq(x->l, FR_ONE.l, N);
            if (is0 | is1) {
                uint64_t mask = (uint64_t)0 - (uint64_t)is1;
                for (int i = 0; i < N; i++) out->l[i] = dict[c].l[i] & mask;
            } else {
                czk_fr_mul(out, &dict[c], x);
            }
        }
        return;
    }
    acc4 acc = {0, 0, 0, 0};
    for (uint64_t k = 0; k < n; k++) {
        uint32_t id = col[k];
        const czk_fr *x = (id & CZK_VAR_AUX) ? &aux[id & ~CZK_VAR_AUX] : &in[id];
        uint32_t c = cidx_at(ci, width, k);
        if (c == COEFF_PLUS_ONE) {
            acc_add(&acc, x->l);
        } else if (c == COEFF_MINUS_ONE) {
            acc_sub(&acc, x->l);
        } else {
            bool is0 = limbs_is_zero(x->l, N), is1 = limbs_eq(x->l, FR_ONE.l, N);
            czk_fr t;
            if (is0 | is1) {
                uint64_t mask = (uint64_t)0 - (uint64_t)is1;
                for (int i = 0; i < N; i++) t.l[i] = dict[c].l[i] & mask;
            } else {
                czk_fr_mul(&t, &dict[c], x);
            }
            acc_add(&acc, t.l);
        }
    }
    out->l[0] = acc.a0;
    out->l[1] = acc.a1;
    out->l[2] = acc.a2;
    out->l[3] = acc.a3;
}

struct eval_ctx {
    const czk_pce *p;
    const czk_fr *in, *aux;
    czk_fr *out[3];
};

static inline __attribute__((always_inline)) void eval_block(const struct eval_ctx *e, uint64_t blk,
                                                             unsigned width)
{
    const czk_pce *p = e->p;
    uint64_t lo = blk * CZK_PCE_BLOCK_ROWS, hi = lo + CZK_PCE_BLOCK_ROWS;
    if (hi > p->h.n_constraints) hi = p->h.n_constraints;
    for (int m = 0; m < 3; m++) {
        const pce_mat *x = &p->m[m];
        uint64_t k = x->blk_nnz[blk], esc = x->blk_esc[blk];
        czk_fr *o = e->out[m];
        const uint8_t *ci = x->cidx;
        for (uint64_t j = lo; j < hi; j++) {
            uint64_t n = x->len[j];
            if (n == LEN_ESCAPE) n = x->esc[esc++];
            row_dot(&o[j], x->col + k, ci + k * width, width, n, p->dict, e->in, e->aux);
            k += n;
        }
    }
}

/* One instance per index width, so the width is a constant inside the loops. */
static void eval_task1(void *ctx, size_t task, unsigned worker)
{
    (void)worker;
    eval_block(ctx, task, 1);
}
static void eval_task2(void *ctx, size_t task, unsigned worker)
{
    (void)worker;
    eval_block(ctx, task, 2);
}
static void eval_task4(void *ctx, size_t task, unsigned worker)
{
    (void)worker;
    eval_block(ctx, task, 4);
}

void czk_pce_eval(const czk_pce *p, const czk_fr *inputs, const czk_fr *aux, czk_fr *a, czk_fr *b,
                  czk_fr *c, czk_pool *pool)
{
    struct eval_ctx e = {p, inputs, aux, {a, b, c}};
    czk_pool_fn fn = p->h.coeff_width == 1   ? eval_task1
                     : p->h.coeff_width == 2 ? eval_task2
                                             : eval_task4;
    czk_pool_run(pool, (size_t)n_blocks(p->h.n_constraints), fn, &e);
}

czk_status czk_pce_synthesize(const czk_pce *p, czk_cs_circuit_fn circuit, void *ctx,
                              const czk_cs_buffers *buf, czk_pool *pool, czk_cs_counts *counts,
                              czk_err *err)
{
    if (buf->rows_cap < p->h.n_constraints || buf->a == NULL || buf->b == NULL || buf->c == NULL)
        return czk_err_set(err, CZK_EINVAL, "pce: a/b/c buffers need %" PRIu64 " rows",
                           p->h.n_constraints);
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_WITNESS;
    cfg.buf = *buf;
    cfg.buf.a = cfg.buf.b = cfg.buf.c = NULL;
    cfg.buf.rows_cap = 0;
    czk_cs *cs = NULL;
    czk_status s = czk_cs_create(&cs, &cfg, err);
    if (s != CZK_OK) return s;
    s = circuit(cs, ctx);
    if (s != CZK_OK) czk_cs_fail(cs, s, "pce: the circuit failed: %s", czk_strerror(s));
    s = czk_cs_finish(cs, err);
    czk_cs_counts cnt;
    czk_cs_get_counts(cs, &cnt);
    czk_cs_destroy(cs);
    if (s != CZK_OK) return s;
    if (cnt.n_inputs != p->h.n_inputs || cnt.n_aux != p->h.n_aux ||
        cnt.n_constraints != p->h.n_constraints)
        return czk_err_set(err, CZK_EINVAL,
                           "pce: the circuit gave %" PRIu64 "/%" PRIu64 "/%" PRIu64
                           " inputs/aux/constraints, the PCE '%s' has %" PRIu64 "/%" PRIu64
                           "/%" PRIu64,
                           cnt.n_inputs, cnt.n_aux, cnt.n_constraints, p->h.id, p->h.n_inputs,
                           p->h.n_aux, p->h.n_constraints);
    czk_pce_eval(p, buf->inputs, buf->aux, buf->a, buf->b, buf->c, pool);
    if (counts != NULL) {
        *counts = cnt;
        counts->a_aux_density = p->h.density[0];
        counts->b_input_density = p->h.density[1];
        counts->b_aux_density = p->h.density[2];
    }
    return CZK_OK;
}

/*
 * The default path per circuit family, by bench_synth's CPU time (core-seconds) on
 * dev-2c (2 cores shared with other jobs, so ±10% between runs; medians of 3 runs):
 *
 *   circuit (synthetic witness)      rows     eval   witness  spmv   pce (witness + spmv)
 *   PoRep 32 GiB shape, 1 challenge  7.24 M   0.565  0.335    0.245  0.580
 *   PoRep 512 MiB partition          4.42 M   0.364  0.227    0.174  0.401
 *   SnapDeals 8 MiB partition        10.0 M   0.750  0.446    0.333  0.779
 *   SnapDeals 2 KiB partition        1.71 M   0.131  0.080    0.060  0.141
 *
 * Per core the two paths are within 3–10% of each other, the evaluating one ahead: the
 * witness pass still costs ~60% of the evaluating pass (a circuit's time is mostly its
 * own gadget code: COUNT mode, which computes no value at all, costs as much as WITNESS),
 * and the SpMV costs about what the LC bookkeeping it replaces did. So the evaluating
 * path stays the default: no recording to make, store and keep in memory (4.4 GiB for
 * a 32 GiB PoRep partition), and the same or better constraints per core-second. The PCE
 * path is the one to choose for LATENCY when idle cores can take the SpMV: one
 * partition's synthesis drops to the witness pass plus SpMV/threads (0.35 s against
 * 0.57 s above with 16 threads, −40%), which matters when partitions in flight are
 * limited by memory rather than by cores. PoSt circuits were not measured and stay on
 * the evaluating path.
 */
bool czk_pce_recommended(czk_pce_circuit circuit)
{
    switch (circuit) {
    case CZK_PCE_CIRCUIT_POREP:
    case CZK_PCE_CIRCUIT_SNAP:
    case CZK_PCE_CIRCUIT_WINDOW_POST:
    case CZK_PCE_CIRCUIT_WINNING_POST:
    default:
        return false;
    }
}
