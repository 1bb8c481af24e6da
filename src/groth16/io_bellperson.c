/*
 * bellperson / Filecoin encodings (specs/filecoin.md §2, §3.1): the 192-byte proof, the
 * verifying key and the .params file. Points are zcash-encoded, lengths are u32
 * big-endian, there is no header and no padding. Every byte is checked: lengths against
 * the file size before anything is allocated, coordinates below p, points on the curve,
 * in the subgroup where bellperson's checked reader would check, identity rejected where
 * bellperson rejects it.
 */
#include "czk/alloc.h"
#include "groth16/io_internal.h"

#include <inttypes.h>
#include <string.h>

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
        in + 868, ic_len,        vk.ic};
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

enum { SEC_H, SEC_L, SEC_A, SEC_B_G1, SEC_B_G2, N_SECS };
static const char *const sec_names[N_SECS] = {"h", "l", "a", "b_g1", "b_g2"};

czk_status czk_groth16_params_read_file(czk_groth16_params *out, const char *path,
                                        bool check_subgroup, czk_pool *pool, czk_err *err)
{
    memset(out, 0, sizeof *out);
    czk__map m;
    czk_status st = czk__map_open(&m, path, err);
    if (st != CZK_OK) return st;

    czk_groth16_params p;
    memset(&p, 0, sizeof p);
    p.conv = CZK_H_BELLPERSON;
    size_t off = 0;
    /* The VK is small (≤ a few hundred points): always decoded with subgroup checks, as
     * bellperson's MappedParameters does even for unchecked parameter reads. */
    st = vk_parse(&p.vk, m.data, m.len, &off, path, err);
    if (st != CZK_OK) goto fail;

    /* Walk the five length-prefixed sections against the file size before allocating. */
    uint32_t lens[N_SECS];
    const uint8_t *srcs[N_SECS];
    for (int k = 0; k < N_SECS; k++) {
        size_t esz = k == SEC_B_G2 ? 192 : 96;
        if (m.len - off < 4) {
            st = czk_err_set(err, CZK_ETRUNCATED,
                             "%s: truncated at offset %zu, before the length of %s", path, off,
                             sec_names[k]);
            goto fail;
        }
        lens[k] = czk__ld32be(m.data + off);
        off += 4;
        uint64_t bytes = (uint64_t)lens[k] * esz;
        if (bytes > m.len - off) {
            st = czk_err_set(err, CZK_ETRUNCATED,
                             "%s: %s truncated: %" PRIu32 " points need %" PRIu64
                             " bytes at offset %zu, %zu present",
                             path, sec_names[k], lens[k], bytes, off, m.len - off);
            goto fail;
        }
        srcs[k] = m.data + off;
        off += (size_t)bytes;
    }
    if (off != m.len) {
        st = czk_err_set(err, CZK_EFORMAT, "%s: %zu trailing bytes after b_g2", path, m.len - off);
        goto fail;
    }

    /* Consistency of the counts (bellperson's generator, specs/filecoin.md §3.1). */
    uint64_t m_dom = (uint64_t)lens[SEC_H] + 1;
    if ((m_dom & (m_dom - 1)) != 0 || m_dom > ((uint64_t)1 << 31)) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: h has %" PRIu32
                         " points; the domain size (points + 1) must be a power of two ≤ 2^31",
                         path, lens[SEC_H]);
        goto fail;
    }
    uint32_t log_m = 0;
    while (((uint64_t)1 << log_m) < m_dom) log_m++;
    uint64_t n_inputs = p.vk.ic_len, n_aux = lens[SEC_L], n_vars = n_inputs + n_aux;
    if (lens[SEC_A] < n_inputs || lens[SEC_A] > n_vars) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: a has %" PRIu32 " points; it needs one per input (%" PRIu64
                         ") plus at most one per aux variable (%" PRIu64 ")",
                         path, lens[SEC_A], n_inputs, n_aux);
        goto fail;
    }
    if (lens[SEC_B_G1] != lens[SEC_B_G2] || lens[SEC_B_G1] > n_vars) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: b_g1 has %" PRIu32 " points and b_g2 %" PRIu32
                         "; they must be equal and at most inputs + aux (%" PRIu64 ")",
                         path, lens[SEC_B_G1], lens[SEC_B_G2], n_vars);
        goto fail;
    }
    p.n_inputs = (uint32_t)n_inputs;
    p.n_aux = (uint32_t)n_aux;
    p.log_m = log_m;

    p.h_len = lens[SEC_H];
    p.l_len = lens[SEC_L];
    p.a_len = lens[SEC_A];
    p.b_g1_len = lens[SEC_B_G1];
    p.b_g2_len = lens[SEC_B_G2];
    p.h = czk__points_alloc(p.h_len, sizeof(czk_g1_affine));
    p.l = czk__points_alloc(p.l_len, sizeof(czk_g1_affine));
    p.a = czk__points_alloc(p.a_len, sizeof(czk_g1_affine));
    p.b_g1 = czk__points_alloc(p.b_g1_len, sizeof(czk_g1_affine));
    p.b_g2 = czk__points_alloc(p.b_g2_len, sizeof(czk_g2_affine));
    if ((p.h_len && !p.h) || (p.l_len && !p.l) || (p.a_len && !p.a) || (p.b_g1_len && !p.b_g1) ||
        (p.b_g2_len && !p.b_g2)) {
        st = czk_err_set(err, CZK_ENOMEM, "%s: out of memory for %zu bytes of points", path, m.len);
        goto fail;
    }

    /* bellperson rejects the identity in every section (its checked and mapped readers
     * alike); the subgroup check is the expensive part and is the caller's choice. */
    unsigned flags = CZK_DECODE_REJECT_INFINITY | (check_subgroup ? CZK_DECODE_CHECK_SUBGROUP : 0);
    czk__point_range ranges[N_SECS] = {
        {"h", CZK__G1_ZCASH, flags, srcs[SEC_H], p.h_len, p.h},
        {"l", CZK__G1_ZCASH, flags, srcs[SEC_L], p.l_len, p.l},
        {"a", CZK__G1_ZCASH, flags, srcs[SEC_A], p.a_len, p.a},
        {"b_g1", CZK__G1_ZCASH, flags, srcs[SEC_B_G1], p.b_g1_len, p.b_g1},
        {"b_g2", CZK__G2_ZCASH, flags, srcs[SEC_B_G2], p.b_g2_len, p.b_g2},
    };
    st = czk__points_decode(ranges, N_SECS, pool, path, err);
    if (st != CZK_OK) goto fail;

    czk__map_close(&m);
    *out = p;
    return CZK_OK;
fail:
    czk_groth16_params_free(&p);
    czk__map_close(&m);
    return st;
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
    const size_t lens[N_SECS] = {p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
    for (int k = 0; k < N_SECS; k++)
        if (lens[k] > UINT32_MAX)
            return czk_err_set(err, CZK_EINVAL, "%s: %s has %zu points, more than a u32 length",
                               path, sec_names[k], lens[k]);
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
