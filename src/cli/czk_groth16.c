/*
 * czk prove | verify | setup | r1cs-info: Groth16 on files.
 *
 * Formats are detected from content: JSON documents (snarkjs proof.json, public.json,
 * verification_key.json) start with '{' or '[' after white space; anything else is
 * bellperson binary (192-byte proof, .vk, public inputs as concatenated 32-byte
 * little-endian Fr values).
 */
#include "czk/alloc.h"
#include "czk/fil_job.h"
#include "czk/groth16.h"
#include "czk/log.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Read a whole (small) file. */
static czk_status slurp(const char *path, uint8_t **out, size_t *len, czk_err *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return czk_err_set(err, CZK_ENOENT, "%s: cannot open", path);
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = czk_malloc(cap);
    for (;;) {
        if (n == cap) {
            if (cap > ((size_t)1 << 32)) {
                fclose(f);
                czk_free(buf);
                return czk_err_set(err, CZK_EFORMAT, "%s: too large", path);
            }
            cap *= 2;
            buf = czk_realloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        czk_free(buf);
        return czk_err_set(err, CZK_EIO, "%s: read error", path);
    }
    *out = buf;
    *len = n;
    return CZK_OK;
}

/*
 * JSON: the first non-blank byte is '{' or '[', and the first 64 bytes (or all, if fewer)
 * are printable ASCII or blanks. The second test keeps binary files whose random first bytes
 * happen to be a blank and a '{' (a .vk's first coordinate, a public input's low bytes)
 * from being read as JSON: it passes 64 random bytes with odds of about 10^-26, and the
 * snarkjs files' first 64 bytes are ASCII.
 */
static bool looks_json(const uint8_t *b, size_t n)
{
    size_t i = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) i++;
    if (i == n || (b[i] != '{' && b[i] != '[')) return false;
    for (size_t k = 0; k < n && k < 64; k++)
        if ((b[k] < 0x20 || b[k] > 0x7e) && b[k] != '\n' && b[k] != '\r' && b[k] != '\t')
            return false;
    return true;
}

static czk_status write_file(const char *path, const void *data, size_t n, czk_err *err)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) return czk_err_set(err, CZK_EIO, "%s: cannot create", path);
    bool ok = fwrite(data, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    return ok ? CZK_OK : czk_err_set(err, CZK_EIO, "%s: write failed", path);
}

static void progress_bar(void *ctx, uint64_t done, uint64_t total)
{
    const char *what = ctx;
    static int last = -1;
    int pct = total ? (int)(100 * done / total) : 100;
    if (pct == last) return;
    last = pct;
    int width = 40, fill = pct * width / 100;
    fprintf(stderr, "\r%s [%.*s%*s] %3d%%", what, fill,
            "########################################", width - fill, "", pct);
    if (done >= total) {
        fputc('\n', stderr);
        last = -1;
    }
    fflush(stderr);
}

static int fail(const czk_err *err)
{
    fprintf(stderr, "czk: %s\n", err->msg[0] ? err->msg : czk_strerror(err->status));
    return 2;
}

/* ---- prove ------------------------------------------------------------------------ */

static void prove_usage(void)
{
    fprintf(stderr,
            "usage: czk prove --zkey X.zkey --wtns X.wtns --proof proof.json --public public.json\n"
            "       czk prove --params X.params --r1cs X.r1cs --wtns X.wtns --proof proof.bin\n"
            "                 [--public public.json]\n"
            "options: --threads N   worker threads (default: all CPUs)\n"
            "         --timings     print stage timings\n"
            "A proof path ending in .json gets snarkjs JSON, anything else 192 bellperson bytes.\n");
}

int czk_cli_prove(int argc, char **argv)
{
    static const struct option opts[] = {
        {"zkey", required_argument, 0, 'z'},   {"wtns", required_argument, 0, 'w'},
        {"proof", required_argument, 0, 'p'},  {"public", required_argument, 0, 'u'},
        {"params", required_argument, 0, 'k'}, {"r1cs", required_argument, 0, 'r'},
        {"threads", required_argument, 0, 't'}, {"timings", no_argument, 0, 'T'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *zkey = NULL, *wtns = NULL, *proof_path = NULL, *public_path = NULL;
    const char *params_path = NULL, *r1cs_path = NULL;
    unsigned threads = 0;
    bool show_timings = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'z': zkey = optarg; break;
        case 'w': wtns = optarg; break;
        case 'p': proof_path = optarg; break;
        case 'u': public_path = optarg; break;
        case 'k': params_path = optarg; break;
        case 'r': r1cs_path = optarg; break;
        case 't': threads = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'T': show_timings = true; break;
        case 'h': prove_usage(); return 0;
        default: prove_usage(); return 2;
        }
    }
    if (wtns == NULL || proof_path == NULL || (zkey == NULL) == (params_path == NULL) ||
        (params_path != NULL && r1cs_path == NULL) || (zkey != NULL && public_path == NULL)) {
        prove_usage();
        return 2;
    }

    czk_err err;
    czk_err_clear(&err);
    czk_pool *pool = NULL;
    czk_groth16_params pk;
    czk_r1cs r1cs;
    memset(&pk, 0, sizeof pk);
    memset(&r1cs, 0, sizeof r1cs);
    czk_fr *z = NULL, *a = NULL, *b = NULL, *cc = NULL;
    uint64_t *dens[3] = {NULL, NULL, NULL};
    size_t nz = 0;
    int rc = 2;
    double t0 = czk_clock_s();

    if (czk_pool_create(&pool, threads, &err) != CZK_OK) goto out;
    if (zkey != NULL) {
        if (czk_zkey_read_file(&pk, &r1cs, zkey, &err) != CZK_OK) goto out;
    } else {
        if (czk_groth16_params_read_file(&pk, params_path, false, pool, &err) != CZK_OK) goto out;
        if (czk_r1cs_read_file(&r1cs, r1cs_path, &err) != CZK_OK) goto out;
        if (r1cs.n_inputs != pk.n_inputs || r1cs.n_aux != pk.n_aux) {
            czk_err_set(&err, CZK_EINVAL,
                        "%s has %u inputs and %u aux variables, %s expects %u and %u", r1cs_path,
                        r1cs.n_inputs, r1cs.n_aux, params_path, pk.n_inputs, pk.n_aux);
            goto out;
        }
    }
    if (czk_wtns_read_file(&z, &nz, wtns, &err) != CZK_OK) goto out;
    if (nz != (size_t)pk.n_inputs + pk.n_aux) {
        czk_err_set(&err, CZK_EINVAL, "%s: %zu witness values, the key needs %u", wtns, nz,
                    pk.n_inputs + pk.n_aux);
        goto out;
    }
    if (!czk_fr_is_one(&z[0])) {
        czk_err_set(&err, CZK_EINVAL, "%s: witness[0] must be 1", wtns);
        goto out;
    }
    double t_load = czk_clock_s();

    size_t m = (size_t)1 << pk.log_m;
    a = czk_malloc(m * sizeof *a);
    b = czk_malloc(m * sizeof *b);
    cc = czk_malloc(m * sizeof *cc);
    if (!a || !b || !cc) {
        czk_err_set(&err, CZK_ENOMEM, "out of memory for a domain of 2^%u", pk.log_m);
        goto out;
    }
    if (r1cs.n_constraints > m) {
        czk_err_set(&err, CZK_EINVAL, "%u constraints exceed the key's domain 2^%u",
                    r1cs.n_constraints, pk.log_m);
        goto out;
    }
    uint32_t bad_row = 0;
    if (r1cs.has_c && !czk_r1cs_is_satisfied(&r1cs, z, &bad_row)) {
        czk_err_set(&err, CZK_EINVAL, "%s does not satisfy constraint %u of %s", wtns, bad_row,
                    r1cs_path);
        goto out;
    }
    czk_r1cs_eval(&r1cs, z, a, b, cc, pool);

    czk_groth16_assignment asg = {0};
    asg.inputs = z;
    asg.aux = z + pk.n_inputs;
    asg.a = a;
    asg.b = b;
    asg.c = cc;
    asg.n_rows = r1cs.n_constraints;
    if (pk.conv == CZK_H_BELLPERSON) {
        size_t wa = (pk.n_aux + 63) / 64 + 1, wi = (pk.n_inputs + 63) / 64 + 1;
        dens[0] = czk_calloc(wa, 8);
        dens[1] = czk_calloc(wi, 8);
        dens[2] = czk_calloc(wa, 8);
        czk_r1cs_densities(&r1cs, dens[0], dens[1], dens[2]);
        asg.a_aux_density = dens[0];
        asg.b_input_density = dens[1];
        asg.b_aux_density = dens[2];
    }
    double t_syn = czk_clock_s();
    czk_groth16_proof proof;
    czk_groth16_timings tm;
    if (czk_groth16_prove(&proof, &pk, &asg, NULL, NULL, pool, &tm, &err) != CZK_OK) goto out;
    double t_prove = czk_clock_s();

    /* Every proof is checked before it leaves. */
    czk_groth16_pvk pvk;
    czk_groth16_prepare_vk(&pvk, &pk.vk);
    if (czk_groth16_verify(&pvk, &proof, z + 1, pk.n_inputs - 1, &err) != CZK_OK) {
        czk_err_set(&err, CZK_EVERIFY,
                    "the proof does not verify against the key: is %s a witness of this circuit?",
                    wtns);
        rc = 1;
        goto out;
    }
    double t_verify = czk_clock_s();

    if (ends_with(proof_path, ".json")) {
        if (czk_snarkjs_proof_write_json(&proof, proof_path, &err) != CZK_OK) goto out;
    } else {
        uint8_t bytes[CZK_GROTH16_PROOF_SIZE];
        czk_groth16_proof_write(bytes, &proof);
        if (write_file(proof_path, bytes, sizeof bytes, &err) != CZK_OK) goto out;
    }
    if (public_path != NULL &&
        czk_snarkjs_public_write_json(z + 1, pk.n_inputs - 1, public_path, &err) != CZK_OK)
        goto out;
    if (show_timings) {
        fprintf(stderr,
                "czk prove: load %.3f s, a/b/c %.3f s, ntt %.3f s, msm h %.3f l %.3f a %.3f "
                "b1 %.3f b2 %.3f s, assemble %.3f s, verify %.3f s, total %.3f s (%u threads)\n",
                t_load - t0, t_syn - t_load, tm.ntt, tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b_g1,
                tm.msm_b_g2, tm.assemble, t_verify - t_prove, t_verify - t0,
                czk_pool_size(pool));
    }
    rc = 0;
out:
    if (rc == 2 || rc == 1) fail(&err);
    czk_free(z);
    czk_free(a);
    czk_free(b);
    czk_free(cc);
    for (int i = 0; i < 3; i++) czk_free(dens[i]);
    czk_groth16_params_free(&pk);
    czk_r1cs_free(&r1cs);
    czk_pool_destroy(pool);
    return rc;
}

/* ---- verify ----------------------------------------------------------------------- */

static czk_status read_public(czk_fr **out, size_t *n, const char *path, czk_err *err)
{
    uint8_t *buf;
    size_t len;
    czk_status st = slurp(path, &buf, &len, err);
    if (st != CZK_OK) return st;
    if (looks_json(buf, len)) {
        czk_free(buf);
        return czk_snarkjs_public_read_json(out, n, path, err);
    }
    if (len % 32 != 0) {
        czk_free(buf);
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: %zu bytes is not a whole number of 32-byte Fr values", path, len);
    }
    *n = len / 32;
    *out = czk_malloc((*n ? *n : 1) * sizeof **out);
    for (size_t i = 0; i < *n; i++) {
        if (!czk_fr_from_bytes_le(&(*out)[i], buf + 32 * i)) {
            czk_free(buf);
            czk_free(*out);
            return czk_err_set(err, CZK_ENONCANONICAL, "%s: public input %zu is not below r",
                               path, i);
        }
    }
    czk_free(buf);
    return CZK_OK;
}

/* Proofs of several partitions, proof k against PUBLIC.k; 0 all valid, 1 one invalid. */
static int verify_partitions(const czk_groth16_vk *vk, const uint8_t *proofs, size_t n,
                             const char *proof_path, const char *public_path, czk_err *err)
{
    czk_groth16_pvk pvk;
    czk_groth16_prepare_vk(&pvk, vk);
    size_t bad = 0;
    for (size_t k = 0; k < n; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s.%zu", public_path, k);
        czk_groth16_proof proof;
        czk_fr *pub = NULL;
        size_t npub = 0;
        if (czk_groth16_proof_read(&proof, proofs + k * CZK_GROTH16_PROOF_SIZE, err) != CZK_OK) {
            char why[CZK_ERR_MSG_MAX];
            snprintf(why, sizeof why, "%s", err->msg);
            czk_err_set(err, err->status, "%s: proof %zu: %s", proof_path, k, why);
            return 2;
        }
        if (read_public(&pub, &npub, path, err) != CZK_OK) return 2;
        if (npub + 1 != vk->ic_len) {
            czk_err_set(err, CZK_EINVAL, "%s: %zu public inputs, the key expects %zu", path, npub,
                        vk->ic_len - 1);
            czk_free(pub);
            return 2;
        }
        czk_status st = czk_groth16_verify(&pvk, &proof, pub, npub, err);
        czk_free(pub);
        if (st == CZK_EVERIFY) {
            printf("partition %zu: invalid\n", k);
            bad++;
        } else if (st != CZK_OK) {
            return 2;
        }
    }
    if (bad > 0) {
        printf("invalid (%zu of %zu partitions)\n", bad, n);
        return 1;
    }
    printf("valid (%zu partitions)\n", n);
    return 0;
}

static void verify_usage(void)
{
    fprintf(stderr, "usage: czk verify --vk VK --proof PROOF --public PUBLIC\n"
                    "  snarkjs JSON (verification_key.json, proof.json, public.json) or bellperson\n"
                    "  binary (.vk, 192-byte proof, 32-byte LE inputs), detected from content.\n"
                    "  A binary PROOF of N > 1 proofs (N x 192 bytes, one per partition, as czkd\n"
                    "  returns them) is checked against PUBLIC.0 .. PUBLIC.N-1 (what\n"
                    "  `czk submit --public-out PUBLIC` writes); every one must be valid.\n"
                    "exit status: 0 valid, 1 invalid, 2 bad input\n");
}

int czk_cli_verify(int argc, char **argv)
{
    static const struct option opts[] = {{"vk", required_argument, 0, 'v'},
                                         {"proof", required_argument, 0, 'p'},
                                         {"public", required_argument, 0, 'u'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *vk_path = NULL, *proof_path = NULL, *public_path = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'v': vk_path = optarg; break;
        case 'p': proof_path = optarg; break;
        case 'u': public_path = optarg; break;
        case 'h': verify_usage(); return 0;
        default: verify_usage(); return 2;
        }
    }
    if (!vk_path || !proof_path || !public_path) {
        verify_usage();
        return 2;
    }
    czk_err err;
    czk_err_clear(&err);
    czk_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    czk_fr *pub = NULL;
    size_t npub = 0;
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = 2;
    czk_groth16_proof proof;

    if (slurp(vk_path, &buf, &len, &err) != CZK_OK) goto out;
    if (looks_json(buf, len)) {
        if (czk_snarkjs_vk_read_json(&vk, vk_path, &err) != CZK_OK) goto out;
    } else if (czk_groth16_vk_read(&vk, buf, len, &err) != CZK_OK) {
        goto out;
    }
    czk_free(buf);
    buf = NULL;
    if (slurp(proof_path, &buf, &len, &err) != CZK_OK) goto out;
    if (looks_json(buf, len)) {
        if (czk_snarkjs_proof_read_json(&proof, proof_path, &err) != CZK_OK) goto out;
    } else {
        if (len == 0 || len % CZK_GROTH16_PROOF_SIZE != 0) {
            czk_err_set(&err, CZK_EFORMAT, "%s: %zu bytes, not a whole number of 192-byte proofs",
                        proof_path, len);
            goto out;
        }
        if (len > CZK_GROTH16_PROOF_SIZE) {
            rc = verify_partitions(&vk, buf, len / CZK_GROTH16_PROOF_SIZE, proof_path,
                                   public_path, &err);
            goto out;
        }
        if (czk_groth16_proof_read(&proof, buf, &err) != CZK_OK) goto out;
    }
    if (read_public(&pub, &npub, public_path, &err) != CZK_OK) goto out;
    if (npub + 1 != vk.ic_len) {
        czk_err_set(&err, CZK_EINVAL, "%s: %zu public inputs, the key expects %zu", public_path,
                    npub, vk.ic_len - 1);
        goto out;
    }
    czk_groth16_pvk pvk;
    czk_groth16_prepare_vk(&pvk, &vk);
    czk_status st = czk_groth16_verify(&pvk, &proof, pub, npub, &err);
    if (st == CZK_OK) {
        printf("valid\n");
        rc = 0;
    } else if (st == CZK_EVERIFY) {
        printf("invalid\n");
        rc = 1;
    }
out:
    if (rc == 2) fail(&err);
    czk_free(buf);
    czk_free(pub);
    czk_groth16_vk_free(&vk);
    return rc;
}

/* ---- setup ------------------------------------------------------------------------ */

static void setup_usage(void)
{
    fprintf(stderr,
            "usage: czk setup --r1cs X.r1cs --params OUT.params [--vk OUT.vk] [--seed HEX]\n"
            "                 [--threads N]\n"
            "       czk setup --r1cs X.r1cs --zkey OUT.zkey [--vk-json OUT.vk.json] [--threads N]\n"
            "       czk setup --circuit ID --param-dir DIR [--force] [--threads N]\n"
            "Generates Groth16 parameters from random toxic waste: bellperson's layout\n"
            "(--params), or a snarkjs .zkey (--zkey) that snarkjs proves and verifies with.\n"
            "--circuit records a Filecoin circuit (porep-2k, snap-8m, wpost-32g, winning-2k, ...)\n"
            "and writes DIR/<Filecoin parameter name>.params, .vk and .meta; existing files\n"
            "are kept unless --force. Its toxic waste is derived from the parameter name, so\n"
            "every run (and czkd's in-memory test parameters) makes the same keys.\n"
            "--seed (64 hex digits) derives the waste of --params from that seed instead of\n"
            "the OS's randomness: the same seed and R1CS give byte-identical files.\n"
            "INSECURE: the toxic waste was in this process and there is no ceremony; for\n"
            "tests and benchmarks only.\n");
}

/* czk setup --circuit ID --param-dir DIR: test parameters for a Filecoin circuit. */
static int setup_circuit(const char *circuit_id, const char *dir, bool force, unsigned threads)
{
    czk_err err;
    czk_err_clear(&err);
    const char *name = NULL;
    if (czk_fil_circuit_lookup(circuit_id, NULL, NULL, &name, &err) != CZK_OK) return fail(&err);
    fprintf(stderr,
            "czk setup: %s -> %s/%s.{params,vk,meta}\n"
            "czk setup: THESE ARE czk TEST PARAMETERS: their toxic waste is derived from the\n"
            "           parameter file name, so anyone can recompute it and forge proofs; they\n"
            "           are NOT the output of Filecoin's trusted-setup ceremony. Proofs made with\n"
            "           them do not verify on chain.\n",
            circuit_id, dir, name);
    czk_pool *pool = NULL;
    if (czk_pool_create(&pool, threads, &err) != CZK_OK) return fail(&err);
    bool generated = false;
    double t0 = czk_clock_s();
    czk_status s = czk_fil_test_params_generate(circuit_id, dir, force, pool, progress_bar,
                                                "setup", &generated, &err);
    czk_pool_destroy(pool);
    if (s != CZK_OK) return fail(&err);
    if (generated)
        fprintf(stderr, "czk setup: wrote %s/%s.params, .vk, .meta in %.1f s\n", dir, name,
                czk_clock_s() - t0);
    else
        fprintf(stderr, "czk setup: %s/%s.params, .vk and .meta exist; kept (use --force to "
                "regenerate)\n", dir, name);
    return 0;
}

/* 64 hex digits into 32 bytes, in the order written. */
static bool parse_seed(uint8_t out[32], const char *hex)
{
    if (strlen(hex) != 64) return false;
    for (size_t i = 0; i < 64; i++) {
        int c = (unsigned char)hex[i];
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0) return false;
        if (i % 2 == 0)
            out[i / 2] = (uint8_t)(v << 4);
        else
            out[i / 2] |= (uint8_t)v;
    }
    return true;
}

int czk_cli_setup(int argc, char **argv)
{
    static const struct option opts[] = {{"r1cs", required_argument, 0, 'r'},
                                         {"params", required_argument, 0, 'p'},
                                         {"vk", required_argument, 0, 'v'},
                                         {"zkey", required_argument, 0, 'z'},
                                         {"vk-json", required_argument, 0, 'j'},
                                         {"threads", required_argument, 0, 't'},
                                         {"circuit", required_argument, 0, 'c'},
                                         {"param-dir", required_argument, 0, 'd'},
                                         {"force", no_argument, 0, 'f'},
                                         {"seed", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *r1cs_path = NULL, *params_path = NULL, *vk_path = NULL;
    const char *zkey_path = NULL, *vk_json_path = NULL;
    const char *circuit_id = NULL, *param_dir = NULL;
    bool force = false, seeded = false;
    uint8_t seed[32];
    unsigned threads = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': r1cs_path = optarg; break;
        case 'p': params_path = optarg; break;
        case 'v': vk_path = optarg; break;
        case 'z': zkey_path = optarg; break;
        case 'j': vk_json_path = optarg; break;
        case 't': threads = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'c': circuit_id = optarg; break;
        case 'd': param_dir = optarg; break;
        case 'f': force = true; break;
        case 's':
            if (!(seeded = parse_seed(seed, optarg))) {
                fprintf(stderr, "czk setup: --seed takes 64 hex digits\n");
                return 2;
            }
            break;
        case 'h': setup_usage(); return 0;
        default: setup_usage(); return 2;
        }
    }
    if (circuit_id != NULL || param_dir != NULL) {
        if (circuit_id == NULL || param_dir == NULL || r1cs_path || params_path || zkey_path ||
            seeded) {
            setup_usage();
            return 2;
        }
        return setup_circuit(circuit_id, param_dir, force, threads);
    }
    if (!r1cs_path || (params_path == NULL) == (zkey_path == NULL) ||
        (zkey_path != NULL && vk_path != NULL) || (params_path != NULL && vk_json_path != NULL) ||
        (zkey_path != NULL && seeded)) {
        setup_usage();
        return 2;
    }
    czk_err err;
    czk_err_clear(&err);
    czk_r1cs r1cs;
    czk_groth16_params pk;
    memset(&r1cs, 0, sizeof r1cs);
    memset(&pk, 0, sizeof pk);
    czk_pool *pool = NULL;
    uint8_t *vkb = NULL;
    int rc = 2;
    if (czk_pool_create(&pool, threads, &err) != CZK_OK) goto out;
    if (czk_r1cs_read_file(&r1cs, r1cs_path, &err) != CZK_OK) goto out;
    fprintf(stderr, "czk setup: %u constraints, %u inputs, %u aux (TEST PARAMETERS, INSECURE)\n",
            r1cs.n_constraints, r1cs.n_inputs, r1cs.n_aux);
    if (zkey_path != NULL) {
        /* The snarkjs layout is written as it is computed, section by section. */
        if (czk_groth16_setup_zkey(zkey_path, &r1cs, &pk.vk, pool, progress_bar, "setup",
                                   &err) != CZK_OK)
            goto out;
        if (vk_json_path != NULL && czk_snarkjs_vk_write_json(&pk.vk, vk_json_path, &err) != CZK_OK)
            goto out;
        fprintf(stderr, "czk setup: wrote %s\n", zkey_path);
        rc = 0;
        goto out;
    }
    czk_groth16_setup_opts so;
    memset(&so, 0, sizeof so);
    so.seed = seeded ? seed : NULL;
    if (czk_groth16_setup_r1cs(&pk, &r1cs, &so, pool, progress_bar, "setup", &err) != CZK_OK)
        goto out;
    if (czk_groth16_params_write_file(&pk, params_path, &err) != CZK_OK) goto out;
    if (vk_path != NULL) {
        size_t n = czk_groth16_vk_size(&pk.vk);
        vkb = czk_malloc(n);
        if (czk_groth16_vk_write(vkb, n, &pk.vk, &err) != CZK_OK) goto out;
        if (write_file(vk_path, vkb, n, &err) != CZK_OK) goto out;
    }
    fprintf(stderr, "czk setup: wrote %s (domain 2^%u)\n", params_path, pk.log_m);
    rc = 0;
out:
    if (rc) fail(&err);
    czk_free(vkb);
    czk_groth16_params_free(&pk);
    czk_r1cs_free(&r1cs);
    czk_pool_destroy(pool);
    return rc;
}

/* ---- r1cs-info -------------------------------------------------------------------- */

int czk_cli_r1cs_info(int argc, char **argv)
{
    bool json = false;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: czk r1cs-info [--json] FILE.r1cs|FILE.zkey\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        } else
            path = argv[i];
    }
    if (path == NULL) {
        fprintf(stderr, "usage: czk r1cs-info [--json] FILE.r1cs|FILE.zkey\n");
        return 2;
    }
    czk_err err;
    czk_err_clear(&err);
    czk_r1cs r;
    czk_groth16_params pk;
    memset(&r, 0, sizeof r);
    memset(&pk, 0, sizeof pk);
    uint8_t magic[4] = {0};
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        czk_err_set(&err, CZK_ENOENT, "%s: cannot open", path);
        return fail(&err);
    }
    size_t got = fread(magic, 1, 4, f);
    fclose(f);
    bool is_zkey = got == 4 && memcmp(magic, "zkey", 4) == 0;
    czk_status st = is_zkey ? czk_zkey_read_file(&pk, &r, path, &err)
                            : czk_r1cs_read_file(&r, path, &err);
    if (st != CZK_OK) return fail(&err);
    const char *kind = is_zkey ? "zkey" : "r1cs";
    uint32_t n_pub = r.n_inputs - 1;
    if (json) {
        printf("{\"kind\":\"%s\",\"constraints\":%u,\"public\":%u,\"inputs\":%u,\"aux\":%u,"
               "\"variables\":%u,\"nnz_a\":%llu,\"nnz_b\":%llu,\"nnz_c\":%llu",
               kind, r.n_constraints, n_pub, r.n_inputs, r.n_aux, r.n_inputs + r.n_aux,
               (unsigned long long)r.a.nnz, (unsigned long long)r.b.nnz,
               (unsigned long long)(r.has_c ? r.c.nnz : 0));
        if (is_zkey) printf(",\"domain_log2\":%u", pk.log_m);
        printf("}\n");
    } else {
        printf("%s: %s\n", path, kind);
        printf("  constraints:    %u%s\n", r.n_constraints,
               is_zkey ? " (rows, including the extra input rows)" : "");
        printf("  public inputs:  %u (plus the constant ONE)\n", n_pub);
        printf("  private/aux:    %u\n", r.n_aux);
        printf("  variables:      %u\n", r.n_inputs + r.n_aux);
        printf("  non-zeros:      A %llu, B %llu, C %s\n", (unsigned long long)r.a.nnz,
               (unsigned long long)r.b.nnz, r.has_c ? "" : "(none: C = A·B)");
        if (r.has_c) printf("                  C %llu\n", (unsigned long long)r.c.nnz);
        if (is_zkey) printf("  domain:         2^%u\n", pk.log_m);
    }
    czk_r1cs_free(&r);
    czk_groth16_params_free(&pk);
    return 0;
}
