/*
 * snarkjs JSON for BLS12-381 (docs/formats.md §9.6): proof.json, public.json and
 * verification_key.json. Numbers are decimal strings of standard-form integers; points are
 * written affine with z = "1" (infinity ["0","1","0"]); G2 coordinates are [c0, c1].
 * Points read back follow snarkjs's fromObject: z = 0 is infinity, z = 1 affine, any other
 * z Jacobian (X/Z², Y/Z³). Every point read is checked on the curve and in the subgroup;
 * every number is checked decimal and below its modulus.
 */
#include "czk/alloc.h"
#include "groth16/io_internal.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

/* 2^384 has 116 decimal digits; anything longer (after leading zeros) is out of range. */
#define MAX_DIGITS 116
/* Longest string accepted for one number, leading zeros included. */
#define MAX_NUMBER_TEXT 256

/* ------------------------------------------------------------------------------------ */
/* Decimal conversion                                                                   */
/* ------------------------------------------------------------------------------------ */

/* Canonical little-endian limbs (nl ≤ 6) to a decimal string; out holds ≥ 120 bytes. */
static void limbs_to_dec(char *out, const uint64_t *in, size_t nl)
{
    const uint64_t chunk = 10000000000000000000ULL; /* 10^19, the largest power in a u64 */
    uint64_t t[6];
    char rev[140];
    size_t n = 0;
    memcpy(t, in, nl * sizeof *t);
    bool top;
    do {
        unsigned __int128 rem = 0;
        top = true;
        for (size_t i = nl; i-- > 0;) {
            unsigned __int128 cur = rem << 64 | t[i];
            t[i] = (uint64_t)(cur / chunk);
            rem = cur % chunk;
            if (t[i] != 0) top = false;
        }
        uint64_t r = (uint64_t)rem;
        /* Lower chunks are exactly 19 digits; the top one stops at its last non-zero digit. */
        for (int k = 0; k < 19; k++) {
            rev[n++] = (char)('0' + r % 10);
            r /= 10;
            if (top && r == 0) break;
        }
    } while (!top);
    for (size_t i = 0; i < n; i++) out[i] = rev[n - 1 - i];
    out[n] = '\0';
}

typedef enum { DEC_OK, DEC_SYNTAX, DEC_RANGE } dec_result;

/* A decimal string to canonical limbs, required below `mod` (nl limbs). */
static dec_result dec_to_limbs(uint64_t *out, size_t nl, const char *s, const uint64_t *mod)
{
    size_t len = strlen(s);
    if (len == 0 || len > MAX_NUMBER_TEXT) return len == 0 ? DEC_SYNTAX : DEC_RANGE;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9') return DEC_SYNTAX;
    while (len > 1 && *s == '0') s++, len--;
    if (len > MAX_DIGITS) return DEC_RANGE;
    memset(out, 0, nl * sizeof *out);
    for (size_t i = 0; i < len; i++) {
        uint64_t carry = (uint64_t)(s[i] - '0');
        for (size_t k = 0; k < nl; k++) {
            unsigned __int128 cur = (unsigned __int128)out[k] * 10 + carry;
            out[k] = (uint64_t)cur;
            carry = (uint64_t)(cur >> 64);
        }
        if (carry != 0) return DEC_RANGE;
    }
    for (size_t k = nl; k-- > 0;)
        if (out[k] != mod[k]) return out[k] < mod[k] ? DEC_OK : DEC_RANGE;
    return DEC_RANGE; /* equal to the modulus */
}

static json_t *fp_json(const czk_fp *a)
{
    uint64_t l[6];
    char buf[140];
    czk_fp_to_u64s(l, a);
    limbs_to_dec(buf, l, 6);
    return json_string(buf);
}

static json_t *fr_json(const czk_fr *a)
{
    uint64_t l[4];
    char buf[140];
    czk_fr_to_u64s(l, a);
    limbs_to_dec(buf, l, 4);
    return json_string(buf);
}

/* A JSON array of the given items; NULL (and every item released) if any is NULL. */
static json_t *jarr(size_t n, json_t *const *items)
{
    json_t *a = json_array();
    bool ok = a != NULL;
    for (size_t i = 0; i < n; i++) {
        if (ok && items[i] != NULL) {
            ok = json_array_append_new(a, items[i]) == 0;
        } else {
            ok = false;
            json_decref(items[i]);
        }
    }
    if (!ok) json_decref(a);
    return ok ? a : NULL;
}

static json_t *g1_json(const czk_g1_affine *p)
{
    if (czk_g1_affine_is_inf(p)) {
        json_t *it[3] = {json_string("0"), json_string("1"), json_string("0")};
        return jarr(3, it);
    }
    json_t *it[3] = {fp_json(&p->x), fp_json(&p->y), json_string("1")};
    return jarr(3, it);
}

static json_t *fp2_json(const czk_fp2 *a)
{
    json_t *it[2] = {fp_json(&a->c0), fp_json(&a->c1)};
    return jarr(2, it);
}

static json_t *g2_json(const czk_g2_affine *p)
{
    if (czk_g2_affine_is_inf(p)) {
        json_t *z0[2] = {json_string("0"), json_string("0")};
        json_t *o[2] = {json_string("1"), json_string("0")};
        json_t *z1[2] = {json_string("0"), json_string("0")};
        json_t *it[3] = {jarr(2, z0), jarr(2, o), jarr(2, z1)};
        return jarr(3, it);
    }
    json_t *one[2] = {json_string("1"), json_string("0")};
    json_t *it[3] = {fp2_json(&p->x), fp2_json(&p->y), jarr(2, one)};
    return jarr(3, it);
}

/* ------------------------------------------------------------------------------------ */
/* Reading                                                                              */
/* ------------------------------------------------------------------------------------ */

static czk_status load_json(json_t **out, const char *path, czk_err *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        int e = errno;
        return czk_err_set(err, e == ENOENT ? CZK_ENOENT : CZK_EIO, "%s: %s", path, strerror(e));
    }
    json_error_t je;
    json_t *j = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (j == NULL)
        return czk_err_set(err, CZK_EFORMAT, "%s: invalid JSON at line %d column %d: %s", path,
                           je.line, je.column, je.text);
    *out = j;
    return CZK_OK;
}

/* A number field: a decimal string below the modulus (nl limbs), as canonical limbs. */
static czk_status json_limbs(uint64_t *out, size_t nl, const uint64_t *mod, const char *mod_name,
                             const json_t *v, const char *path, const char *field, czk_err *err)
{
    if (v == NULL) return czk_err_set(err, CZK_EFORMAT, "%s: %s: missing", path, field);
    if (!json_is_string(v))
        return czk_err_set(err, CZK_EFORMAT, "%s: %s: expected a decimal string", path, field);
    const char *s = json_string_value(v);
    switch (dec_to_limbs(out, nl, s, mod)) {
    case DEC_OK:
        return CZK_OK;
    case DEC_SYNTAX:
        return czk_err_set(err, CZK_EFORMAT, "%s: %s: \"%.40s\" is not a decimal number", path,
                           field, s);
    case DEC_RANGE:
        break;
    }
    return czk_err_set(err, CZK_ENONCANONICAL, "%s: %s: value not below %s", path, field, mod_name);
}

static czk_status json_fp(czk_fp *out, const json_t *v, const char *path, const char *field,
                          czk_err *err)
{
    uint64_t l[6];
    czk_status st = json_limbs(l, 6, CZK_FP_MODULUS, "p", v, path, field, err);
    if (st == CZK_OK) czk_fp_from_u64s(out, l);
    return st;
}

static czk_status json_fr(czk_fr *out, const json_t *v, const char *path, const char *field,
                          czk_err *err)
{
    uint64_t l[4];
    czk_status st = json_limbs(l, 4, CZK_FR_MODULUS, "r", v, path, field, err);
    if (st == CZK_OK) czk_fr_from_u64s(out, l);
    return st;
}

/* An array of exactly / at least the given size. */
static czk_status json_array_n(const json_t *v, size_t min, size_t max, const char *path,
                               const char *field, czk_err *err)
{
    if (v == NULL) return czk_err_set(err, CZK_EFORMAT, "%s: %s: missing", path, field);
    if (!json_is_array(v) || json_array_size(v) < min || json_array_size(v) > max)
        return czk_err_set(err, CZK_EFORMAT, "%s: %s: expected an array of %zu%s elements", path,
                           field, min, max > min ? " or more" : "");
    return CZK_OK;
}

static czk_status point_check(bool on_curve, bool in_subgroup, const char *path, const char *field,
                              czk_err *err)
{
    if (!on_curve)
        return czk_err_set(err, CZK_ENOTONCURVE, "%s: %s: point not on the curve", path, field);
    if (!in_subgroup)
        return czk_err_set(err, CZK_ENOTINSUBGROUP, "%s: %s: point not in the prime-order subgroup",
                           path, field);
    return CZK_OK;
}

/* G1 as [x, y] or [x, y, z]. */
static czk_status json_g1(czk_g1_affine *out, const json_t *v, const char *path, const char *field,
                          czk_err *err)
{
    char f[96];
    czk_status st = json_array_n(v, 2, 3, path, field, err);
    if (st != CZK_OK) return st;
    czk_fp c[3];
    c[2] = CZK_FP_ONE;
    for (size_t i = 0; i < json_array_size(v); i++) {
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        if ((st = json_fp(&c[i], json_array_get(v, i), path, f, err)) != CZK_OK) return st;
    }
    czk_g1_affine p;
    if (czk_fp_is_zero(&c[2])) {
        memset(&p, 0, sizeof p);
    } else if (czk_fp_is_one(&c[2])) {
        p.x = c[0];
        p.y = c[1];
    } else {
        czk_g1_jac j = {c[0], c[1], c[2]};
        czk_g1_jac_to_affine(&p, &j);
    }
    /* (0, 0) cannot pass as the affine identity: only z = 0 makes infinity. */
    bool inf = czk_fp_is_zero(&c[2]);
    bool on = inf || (!czk_g1_affine_is_inf(&p) && czk_g1_affine_on_curve(&p));
    st = point_check(on, !on || inf || czk_g1_affine_in_subgroup(&p), path, field, err);
    if (st == CZK_OK) *out = p;
    return st;
}

static czk_status json_fp2(czk_fp2 *out, const json_t *v, const char *path, const char *field,
                           czk_err *err)
{
    char f[128];
    czk_status st = json_array_n(v, 2, 2, path, field, err);
    if (st != CZK_OK) return st;
    snprintf(f, sizeof f, "%s[0]", field);
    if ((st = json_fp(&out->c0, json_array_get(v, 0), path, f, err)) != CZK_OK) return st;
    snprintf(f, sizeof f, "%s[1]", field);
    return json_fp(&out->c1, json_array_get(v, 1), path, f, err);
}

/* G2 as [[x0, x1], [y0, y1]] or with a third pair z. */
static czk_status json_g2(czk_g2_affine *out, const json_t *v, const char *path, const char *field,
                          czk_err *err)
{
    char f[96];
    czk_status st = json_array_n(v, 2, 3, path, field, err);
    if (st != CZK_OK) return st;
    czk_fp2 c[3];
    c[2] = CZK_FP2_ONE;
    for (size_t i = 0; i < json_array_size(v); i++) {
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        if ((st = json_fp2(&c[i], json_array_get(v, i), path, f, err)) != CZK_OK) return st;
    }
    czk_g2_affine p;
    bool inf = czk_fp2_is_zero(&c[2]);
    if (inf) {
        memset(&p, 0, sizeof p);
    } else if (czk_fp2_is_one(&c[2])) {
        p.x = c[0];
        p.y = c[1];
    } else {
        czk_g2_jac j = {c[0], c[1], c[2]};
        czk_g2_jac_to_affine(&p, &j);
    }
    bool on = inf || (!czk_g2_affine_is_inf(&p) && czk_g2_affine_on_curve(&p));
    st = point_check(on, !on || inf || czk_g2_affine_in_subgroup(&p), path, field, err);
    if (st == CZK_OK) *out = p;
    return st;
}

/* Optional "protocol" and "curve" members: when present they must name Groth16 over
 * BLS12-381. */
static czk_status check_protocol_curve(const json_t *root, const char *path, czk_err *err)
{
    const json_t *pr = json_object_get(root, "protocol");
    if (pr != NULL && (!json_is_string(pr) || strcmp(json_string_value(pr), "groth16") != 0))
        return czk_err_set(err, CZK_EUNSUPPORTED, "%s: protocol: expected \"groth16\"", path);
    const json_t *cv = json_object_get(root, "curve");
    if (cv == NULL) return CZK_OK;
    const char *c = json_is_string(cv) ? json_string_value(cv) : "";
    if (strcmp(c, "bls12381") == 0) return CZK_OK;
    if (strcmp(c, "bn128") == 0 || strcmp(c, "bn254") == 0)
        return czk_err_set(err, CZK_EUNSUPPORTED,
                           "%s: curve \"%s\" is BN254; czk works over BLS12-381 only", path, c);
    return czk_err_set(err, CZK_EUNSUPPORTED, "%s: curve: expected \"bls12381\"", path);
}

static czk_status require_object(const json_t *root, const char *path, czk_err *err)
{
    if (!json_is_object(root))
        return czk_err_set(err, CZK_EFORMAT, "%s: expected a JSON object", path);
    return CZK_OK;
}

czk_status czk_snarkjs_proof_read_json(czk_groth16_proof *out, const char *path, czk_err *err)
{
    json_t *root;
    czk_status st = load_json(&root, path, err);
    if (st != CZK_OK) return st;
    czk_groth16_proof p;
    if ((st = require_object(root, path, err)) == CZK_OK &&
        (st = check_protocol_curve(root, path, err)) == CZK_OK &&
        (st = json_g1(&p.a, json_object_get(root, "pi_a"), path, "pi_a", err)) == CZK_OK &&
        (st = json_g2(&p.b, json_object_get(root, "pi_b"), path, "pi_b", err)) == CZK_OK &&
        (st = json_g1(&p.c, json_object_get(root, "pi_c"), path, "pi_c", err)) == CZK_OK)
        *out = p;
    json_decref(root);
    return st;
}

czk_status czk_snarkjs_public_read_json(czk_fr **out, size_t *n, const char *path, czk_err *err)
{
    *out = NULL;
    *n = 0;
    json_t *root;
    czk_status st = load_json(&root, path, err);
    if (st != CZK_OK) return st;
    if (!json_is_array(root)) {
        json_decref(root);
        return czk_err_set(err, CZK_EFORMAT, "%s: expected an array of decimal strings", path);
    }
    size_t count = json_array_size(root);
    czk_fr *v = count ? czk_malloc(count * sizeof *v) : NULL;
    if (count && v == NULL) {
        json_decref(root);
        return czk_err_set(err, CZK_ENOMEM, "%s: out of memory", path);
    }
    for (size_t i = 0; i < count && st == CZK_OK; i++) {
        char f[32];
        snprintf(f, sizeof f, "public[%zu]", i);
        st = json_fr(&v[i], json_array_get(root, i), path, f, err);
    }
    json_decref(root);
    if (st != CZK_OK) {
        czk_free(v);
        return st;
    }
    *out = v;
    *n = count;
    return CZK_OK;
}

czk_status czk_snarkjs_vk_read_json(czk_groth16_vk *out, const char *path, czk_err *err)
{
    memset(out, 0, sizeof *out);
    json_t *root;
    czk_status st = load_json(&root, path, err);
    if (st != CZK_OK) return st;
    czk_groth16_vk vk;
    memset(&vk, 0, sizeof vk); /* β₁ and δ₁ are not in snarkjs's file: left at infinity */
    const json_t *ic = json_object_get(root, "IC");
    if ((st = require_object(root, path, err)) != CZK_OK ||
        (st = check_protocol_curve(root, path, err)) != CZK_OK ||
        (st = json_g1(&vk.alpha_g1, json_object_get(root, "vk_alpha_1"), path, "vk_alpha_1",
                      err)) != CZK_OK ||
        (st = json_g2(&vk.beta_g2, json_object_get(root, "vk_beta_2"), path, "vk_beta_2", err)) !=
            CZK_OK ||
        (st = json_g2(&vk.gamma_g2, json_object_get(root, "vk_gamma_2"), path, "vk_gamma_2",
                      err)) != CZK_OK ||
        (st = json_g2(&vk.delta_g2, json_object_get(root, "vk_delta_2"), path, "vk_delta_2",
                      err)) != CZK_OK ||
        (st = json_array_n(ic, 1, SIZE_MAX, path, "IC", err)) != CZK_OK)
        goto done;
    const json_t *np = json_object_get(root, "nPublic");
    if (np != NULL && (!json_is_integer(np) || json_integer_value(np) < 0 ||
                       (uint64_t)json_integer_value(np) + 1 != json_array_size(ic))) {
        st = czk_err_set(err, CZK_EFORMAT,
                         "%s: nPublic: must be an integer equal to len(IC) - 1 = %zu", path,
                         json_array_size(ic) - 1);
        goto done;
    }
    vk.ic_len = json_array_size(ic);
    vk.ic = czk_malloc(vk.ic_len * sizeof *vk.ic);
    if (vk.ic == NULL) {
        st = czk_err_set(err, CZK_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t i = 0; i < vk.ic_len && st == CZK_OK; i++) {
        char f[32];
        snprintf(f, sizeof f, "IC[%zu]", i);
        st = json_g1(&vk.ic[i], json_array_get(ic, i), path, f, err);
    }
done:
    json_decref(root);
    if (st != CZK_OK) {
        czk_groth16_vk_free(&vk);
        return st;
    }
    *out = vk;
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Writing                                                                              */
/* ------------------------------------------------------------------------------------ */

/* Write (and release) a JSON value as snarkjs does: one-space indentation. */
static czk_status write_json(json_t *root, const char *path, czk_err *err)
{
    if (root == NULL) return czk_err_set(err, CZK_ENOMEM, "%s: out of memory building JSON", path);
    czk__wfile w;
    czk_status st = czk__wfile_open(&w, path, err);
    if (st != CZK_OK) {
        json_decref(root);
        return st;
    }
    int rc = json_dumpf(root, w.f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (rc != 0) w.err_no = errno != 0 ? errno : EIO;
    czk__wfile_put(&w, "\n", 1);
    return czk__wfile_commit(&w, err);
}

/* An object from alternating keys and values; NULL (values released) if any is NULL. */
static json_t *jobj(size_t n, const char *const *keys, json_t *const *vals)
{
    json_t *o = json_object();
    bool ok = o != NULL;
    for (size_t i = 0; i < n; i++) {
        if (ok && vals[i] != NULL) {
            ok = json_object_set_new(o, keys[i], vals[i]) == 0;
        } else {
            ok = false;
            json_decref(vals[i]);
        }
    }
    if (!ok) json_decref(o);
    return ok ? o : NULL;
}

czk_status czk_snarkjs_proof_write_json(const czk_groth16_proof *p, const char *path, czk_err *err)
{
    static const char *const keys[5] = {"pi_a", "pi_b", "pi_c", "protocol", "curve"};
    json_t *vals[5] = {g1_json(&p->a), g2_json(&p->b), g1_json(&p->c), json_string("groth16"),
                       json_string("bls12381")};
    return write_json(jobj(5, keys, vals), path, err);
}

czk_status czk_snarkjs_public_write_json(const czk_fr *pub, size_t n, const char *path,
                                         czk_err *err)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n && a != NULL; i++) {
        if (json_array_append_new(a, fr_json(&pub[i])) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    return write_json(a, path, err);
}

czk_status czk_snarkjs_vk_write_json(const czk_groth16_vk *vk, const char *path, czk_err *err)
{
    if (vk->ic_len == 0) return czk_err_set(err, CZK_EINVAL, "%s: the key has no IC points", path);
    json_t *ic = json_array();
    for (size_t i = 0; i < vk->ic_len && ic != NULL; i++) {
        if (json_array_append_new(ic, g1_json(&vk->ic[i])) != 0) {
            json_decref(ic);
            ic = NULL;
        }
    }
    /* vk_alphabeta_12 (e(α, β)) is left out: snarkjs's verifier does not read it. */
    static const char *const keys[8] = {"protocol",  "curve",      "nPublic",    "vk_alpha_1",
                                        "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC"};
    json_t *vals[8] = {json_string("groth16"),
                       json_string("bls12381"),
                       json_integer((json_int_t)(vk->ic_len - 1)),
                       g1_json(&vk->alpha_g1),
                       g2_json(&vk->beta_g2),
                       g2_json(&vk->gamma_g2),
                       g2_json(&vk->delta_g2),
                       ic};
    return write_json(jobj(8, keys, vals), path, err);
}
