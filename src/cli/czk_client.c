/*
 * The czk tool's remote commands: talk to a running czkd over czk.v1 (gRPC).
 *   czk submit | await | run-job | cancel | forget | list | watch | status | metrics | preload |
 *   evict
 * `run-job` is submit + await in one call (czk.v1 Prove); it is not `czk prove`, which
 * proves offline without a daemon.
 */
#include "czk/alloc.h"
#include "czk/engine.h"
#include "czk/fil_job.h"
#include "cli.h"
#include "server.h"

#include "czk/v1/czk.pb-c.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct copts {
    czk_client_opts conn;
    const char *kind, *circuit, *wtns, *c1, *request_id, *priority, *proof_out, *state, *fixture;
    const char *public_out;
    const char *vanilla[256];
    size_t nvanilla;
    const char *randomness, *comm_r_old, *comm_r_new, *comm_d_new;
    uint64_t sector_size, registered_proof, sector_number, miner_id, partition, timeout_ms, limit;
    bool all;
    char *token_buf;
    char *owned[4]; /* hex strings copied out of a --fixture file */
} copts;

static void usage(FILE *f, const char *cmd)
{
    fprintf(f,
            "usage: czk %s [connection] ...\n"
            "  czk submit  --kind porep|snap|wpost|winning|circom JOB-OPTIONS   queue a job, print its id\n"
            "  czk await   JOB_ID [--timeout MS] [--proof-out FILE]           wait for a job\n"
            "  czk run-job JOB-OPTIONS [--timeout MS] [--proof-out FILE]        submit and wait\n"
            "  czk cancel  JOB_ID\n"
            "  czk forget  JOB_ID                                             cancel if running, drop it and\n"
            "                                                                 its proof; its request id is free\n"
            "  czk list    [--state queued|running|done|failed|cancelled] [--limit N]\n"
            "  czk watch   JOB_ID | --all                                     stream the job's events\n"
            "  czk status                                                     engine, GPUs, queues\n"
            "  czk metrics                                                    Prometheus text\n"
            "  czk preload CIRCUIT_ID   /   czk evict CIRCUIT_ID               (porep-32g, circom:NAME)\n"
            "\n"
            "connection: --addr ADDR (host:port or unix:PATH; default $CZK_ADDR or 127.0.0.1:9820)\n"
            "            --token T | --token-file F (default $CZK_TOKEN)\n"
            "            --tls-ca PEM [--tls-cert PEM --tls-key PEM] [--tls-server-name NAME]\n"
            "JOB-OPTIONS: [--request-id ID] [--priority low|normal|high|critical]\n"
            "  circom:    --circuit NAME (the daemon proves with <param_dir>/NAME.zkey) --wtns FILE\n"
            "  porep:     --c1 FILE (C1 output JSON or cuzk envelope) [--sector-size SIZE]\n"
            "             [--registered-proof N] [--sector-number N] [--miner-id N]\n"
            "  snap/post: --vanilla FILE (repeat, one per partition/sector) --registered-proof N\n"
            "             [--randomness HEX] [--partition N] [--comm-r-old HEX --comm-r-new HEX\n"
            "             --comm-d-new HEX] [--sector-size SIZE]\n"
            "  or:        --fixture FILE: a request as `czk fixture snap|wpost|winning` writes it\n"
            "             (JSON, field names as cuzk.v1 SubmitProofRequest; flags override it)\n"
            "  Filecoin kinds, submit and run-job: --public-out FILE writes the job's public\n"
            "  inputs, computed here from the request (32-byte little-endian values, what\n"
            "  `czk verify --public` reads); FILE.0, FILE.1, ... when there are several partitions\n",
            cmd);
}

static bool read_file(const char *path, uint8_t **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "czk: %s: %s\n", path, strerror(errno));
        return false;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = n >= 0 ? czk_malloc((size_t)n + 1) : NULL;
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "czk: %s: cannot read\n", path);
        czk_free(b);
        fclose(f);
        return false;
    }
    fclose(f);
    *data = b;
    *len = (size_t)n;
    return true;
}

static bool parse_hex(const char *s, const char *what, ProtobufCBinaryData *out)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n -= 2;
    }
    if (n % 2) goto bad;
    out->data = czk_malloc(n / 2 + 1);
    out->len = n / 2;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) goto bad;
        out->data[i] = (uint8_t)v;
    }
    return true;
bad:
    fprintf(stderr, "czk: %s: '%s' is not hex\n", what, s);
    return false;
}

static bool parse_u64(const char *s, const char *what, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || !*s || *end) {
        fprintf(stderr, "czk: %s: '%s' is not a number\n", what, s);
        return false;
    }
    *out = v;
    return true;
}

enum {
    O_ADDR = 256, O_TOKEN, O_TOKEN_FILE, O_TLS_CA, O_TLS_CERT, O_TLS_KEY, O_TLS_NAME, O_KIND,
    O_CIRCUIT, O_WTNS, O_C1, O_VANILLA, O_REQID, O_PRIO, O_PROOF_OUT, O_TIMEOUT, O_STATE, O_LIMIT,
    O_ALL, O_SECTOR_SIZE, O_REGPROOF, O_SECTOR_NUM, O_MINER, O_PARTITION, O_RAND, O_CRO,
    O_CRN, O_CDN, O_FIXTURE, O_PUBLIC_OUT,
};

static const struct option long_opts[] = {
    {"addr", required_argument, NULL, O_ADDR},
    {"token", required_argument, NULL, O_TOKEN},
    {"token-file", required_argument, NULL, O_TOKEN_FILE},
    {"tls-ca", required_argument, NULL, O_TLS_CA},
    {"tls-cert", required_argument, NULL, O_TLS_CERT},
    {"tls-key", required_argument, NULL, O_TLS_KEY},
    {"tls-server-name", required_argument, NULL, O_TLS_NAME},
    {"kind", required_argument, NULL, O_KIND},
    {"circuit", required_argument, NULL, O_CIRCUIT},
    {"wtns", required_argument, NULL, O_WTNS},
    {"c1", required_argument, NULL, O_C1},
    {"vanilla", required_argument, NULL, O_VANILLA},
    {"request-id", required_argument, NULL, O_REQID},
    {"priority", required_argument, NULL, O_PRIO},
    {"proof-out", required_argument, NULL, O_PROOF_OUT},
    {"timeout", required_argument, NULL, O_TIMEOUT},
    {"state", required_argument, NULL, O_STATE},
    {"limit", required_argument, NULL, O_LIMIT},
    {"all", no_argument, NULL, O_ALL},
    {"sector-size", required_argument, NULL, O_SECTOR_SIZE},
    {"registered-proof", required_argument, NULL, O_REGPROOF},
    {"sector-number", required_argument, NULL, O_SECTOR_NUM},
    {"miner-id", required_argument, NULL, O_MINER},
    {"partition", required_argument, NULL, O_PARTITION},
    {"randomness", required_argument, NULL, O_RAND},
    {"comm-r-old", required_argument, NULL, O_CRO},
    {"comm-r-new", required_argument, NULL, O_CRN},
    {"comm-d-new", required_argument, NULL, O_CDN},
    {"fixture", required_argument, NULL, O_FIXTURE},
    {"public-out", required_argument, NULL, O_PUBLIC_OUT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Returns the index of the first positional argument, or -1 on error (usage printed). */
static int parse_opts(int argc, char **argv, copts *o)
{
    memset(o, 0, sizeof *o);
    o->conn.addr = getenv("CZK_ADDR") ? getenv("CZK_ADDR") : "127.0.0.1:9820";
    o->conn.token = getenv("CZK_TOKEN");
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
        switch (c) {
        case O_ADDR: o->conn.addr = optarg; break;
        case O_TOKEN: o->conn.token = optarg; break;
        case O_TOKEN_FILE: {
            uint8_t *b;
            size_t n;
            if (!read_file(optarg, &b, &n)) return -1;
            b[n] = 0;
            b[strcspn((char *)b, "\r\n")] = 0;
            o->token_buf = (char *)b;
            o->conn.token = o->token_buf;
            break;
        }
        case O_TLS_CA: o->conn.tls_ca = optarg; break;
        case O_TLS_CERT: o->conn.tls_cert = optarg; break;
        case O_TLS_KEY: o->conn.tls_key = optarg; break;
        case O_TLS_NAME: o->conn.server_name = optarg; break;
        case O_KIND: o->kind = optarg; break;
        case O_CIRCUIT: o->circuit = optarg; break;
        case O_WTNS: o->wtns = optarg; break;
        case O_C1: o->c1 = optarg; break;
        case O_FIXTURE: o->fixture = optarg; break;
        case O_PUBLIC_OUT: o->public_out = optarg; break;
        case O_VANILLA:
            if (o->nvanilla == sizeof o->vanilla / sizeof o->vanilla[0]) {
                fprintf(stderr, "czk: too many --vanilla files\n");
                return -1;
            }
            o->vanilla[o->nvanilla++] = optarg;
            break;
        case O_REQID: o->request_id = optarg; break;
        case O_PRIO: o->priority = optarg; break;
        case O_PROOF_OUT: o->proof_out = optarg; break;
        case O_STATE: o->state = optarg; break;
        case O_ALL: o->all = true; break;
        case O_RAND: o->randomness = optarg; break;
        case O_CRO: o->comm_r_old = optarg; break;
        case O_CRN: o->comm_r_new = optarg; break;
        case O_CDN: o->comm_d_new = optarg; break;
        case O_TIMEOUT: if (!parse_u64(optarg, "--timeout", &o->timeout_ms)) return -1; break;
        case O_LIMIT: if (!parse_u64(optarg, "--limit", &o->limit)) return -1; break;
        case O_SECTOR_SIZE:
            if (!czk_cli_parse_size(optarg, &o->sector_size)) {
                fprintf(stderr, "czk: --sector-size: '%s' is not a size\n", optarg);
                return -1;
            }
            break;
        case O_REGPROOF: if (!parse_u64(optarg, "--registered-proof", &o->registered_proof)) return -1; break;
        case O_SECTOR_NUM: if (!parse_u64(optarg, "--sector-number", &o->sector_number)) return -1; break;
        case O_MINER: if (!parse_u64(optarg, "--miner-id", &o->miner_id)) return -1; break;
        case O_PARTITION: if (!parse_u64(optarg, "--partition", &o->partition)) return -1; break;
        case 'h': usage(stdout, argv[0]); exit(0);
        default: usage(stderr, argv[0]); return -1;
        }
    }
    return optind;
}

static const char *state_name(Czk__V1__JobState s)
{
    return czk_job_state_name((czk_job_state)s);
}

static const char *kind_name(Czk__V1__Kind k)
{
    return czk_job_kind_name((czk_job_kind)k);
}

static void print_job(const Czk__V1__Job *j)
{
    printf("job_id=%s state=%s kind=%s circuit=%s priority=%s partitions=%u synthesized=%u "
           "proved=%u queue_position=%u gpu=%s",
           j->job_id, state_name(j->state), kind_name(j->kind), j->circuit_id,
           czk__priority_name((czk_job_priority)j->priority), j->partitions,
           j->partitions_synthesized, j->partitions_proved, j->queue_position,
           *j->assigned_gpu ? j->assigned_gpu : "-");
    if (j->timings)
        printf(" queue_wait_ms=%llu srs_load_ms=%llu synthesis_ms=%llu gpu_compute_ms=%llu "
               "finalize_ms=%llu total_ms=%llu",
               (unsigned long long)j->timings->queue_wait_ms, (unsigned long long)j->timings->srs_load_ms,
               (unsigned long long)j->timings->synthesis_ms, (unsigned long long)j->timings->gpu_compute_ms,
               (unsigned long long)j->timings->finalize_ms, (unsigned long long)j->timings->total_ms);
    if (*j->error_message) printf(" error=%s message=\"%s\"", j->error_code, j->error_message);
    if (j->proof.len) printf(" proof_bytes=%zu", j->proof.len);
    printf("\n");
}

static int fail_rpc(grpc_status_code code, const czk_err *err)
{
    fprintf(stderr, "czk: %s\n", err->msg);
    /* Distinct exit codes: 2 usage, 3 the daemon said no, 4 cannot reach it. */
    return code == GRPC_STATUS_UNAVAILABLE || code == GRPC_STATUS_DEADLINE_EXCEEDED ? 4 : 3;
}

static void free_bin(ProtobufCBinaryData *b)
{
    czk_free(b->data);
    b->data = NULL;
}

static bool b64_decode(const char *s, ProtobufCBinaryData *out)
{
    size_t n = strlen(s);
    if (n % 4) return false;
    out->data = czk_malloc(n / 4 * 3 + 1);
    if (!out->data) return false;
    int k = EVP_DecodeBlock(out->data, (const unsigned char *)s, (int)n);
    if (k < 0) return false;
    /* EVP_DecodeBlock counts the padding as zero bytes. */
    size_t pad = n >= 1 && s[n - 1] == '=' ? (n >= 2 && s[n - 2] == '=' ? 2 : 1) : 0;
    out->len = (size_t)k - pad;
    return true;
}

/*
 * A request written by `czk fixture snap|wpost|winning`: the cuzk.v1 SubmitProofRequest's
 * fields by name, 32-byte values as hex, byte strings as base64. Flags given on the
 * command line win over the file.
 */
static bool load_fixture(const char *path, copts *o, Cuzk__V1__SubmitProofRequest *f, czk_job_kind *kind)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j || !json_is_object(j)) {
        fprintf(stderr, "czk: %s:%d: %s\n", path, je.line, j ? "not a JSON object" : je.text);
        json_decref(j);
        return false;
    }
    bool ok = true;
    json_t *v;
    if ((v = json_object_get(j, "proof_kind")) && json_is_integer(v) && !o->kind) *kind = (czk_job_kind)json_integer_value(v);
    if ((v = json_object_get(j, "registered_proof")) && json_is_integer(v) && !o->registered_proof)
        o->registered_proof = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(j, "sector_size")) && json_is_integer(v) && !o->sector_size)
        o->sector_size = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(j, "miner_id")) && json_is_integer(v) && !o->miner_id) o->miner_id = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(j, "sector_number")) && json_is_integer(v) && !o->sector_number)
        o->sector_number = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(j, "partition_index")) && json_is_integer(v) && !o->partition)
        o->partition = (uint64_t)json_integer_value(v);
    static const struct {
        const char *key;
        size_t off;
    } hex[] = {
        {"randomness", offsetof(copts, randomness)}, {"comm_r_old", offsetof(copts, comm_r_old)},
        {"comm_r_new", offsetof(copts, comm_r_new)}, {"comm_d_new", offsetof(copts, comm_d_new)},
    };
    for (size_t i = 0; i < sizeof hex / sizeof hex[0]; i++) {
        const char **dst = (const char **)((char *)o + hex[i].off);
        if (!*dst && (v = json_object_get(j, hex[i].key)) && json_is_string(v)) {
            /* The strings live as long as the options: copy them out of the JSON. */
            size_t n = strlen(json_string_value(v)) + 1;
            char *c = czk_malloc(n);
            if (c) memcpy(c, json_string_value(v), n);
            *dst = c;
            o->owned[i] = c;
        }
    }
    json_t *arr = json_object_get(j, "vanilla_proofs");
    if (arr && json_is_array(arr) && !o->nvanilla) {
        size_t n = json_array_size(arr);
        f->vanilla_proofs = czk_calloc(n + 1, sizeof *f->vanilla_proofs);
        for (size_t i = 0; ok && i < n; i++) {
            json_t *e = json_array_get(arr, i);
            if (!json_is_string(e) || !b64_decode(json_string_value(e), &f->vanilla_proofs[i])) {
                fprintf(stderr, "czk: %s: vanilla_proofs[%zu] is not base64\n", path, i);
                ok = false;
            }
            f->n_vanilla_proofs = i + 1;
        }
    }
    if ((v = json_object_get(j, "vanilla_proof")) && json_is_string(v) && !o->c1 &&
        !b64_decode(json_string_value(v), &f->vanilla_proof)) {
        fprintf(stderr, "czk: %s: vanilla_proof is not base64\n", path);
        ok = false;
    }
    json_decref(j);
    return ok;
}

/* Builds the SubmitRequest from the options; the buffers are released by free_submit. */
static bool build_submit(copts *o, Czk__V1__SubmitRequest *s, Cuzk__V1__SubmitProofRequest *f)
{
    czk__v1__submit_request__init(s);
    cuzk__v1__submit_proof_request__init(f);
    czk_job_kind kind = (czk_job_kind)0;
    if (o->fixture && !load_fixture(o->fixture, o, f, &kind)) return false;
    if (o->kind ? !czk__kind_parse(o->kind, &kind) : kind < CZK_JOB_POREP || kind > CZK_JOB_WINNING) {
        fprintf(stderr, "czk: --kind must be porep, snap, wpost, winning or circom\n");
        return false;
    }
    s->kind = (Czk__V1__Kind)kind;
    if (o->request_id) s->request_id = (char *)o->request_id;
    if (o->priority) {
        czk_job_priority p;
        if (!czk__priority_parse(o->priority, &p)) {
            fprintf(stderr, "czk: --priority must be low, normal, high or critical\n");
            return false;
        }
        s->priority = (Cuzk__V1__Priority)p;
    }
    if (kind == CZK_JOB_CIRCOM) {
        if (!o->circuit || !o->wtns) {
            fprintf(stderr, "czk: a circom job needs --circuit NAME and --wtns FILE\n");
            return false;
        }
        s->circuit = (char *)o->circuit;
        return read_file(o->wtns, &s->witness.data, &s->witness.len);
    }
    s->filecoin = f;
    f->proof_kind = (Cuzk__V1__ProofKind)kind;
    f->sector_size = o->sector_size;
    f->registered_proof = o->registered_proof;
    f->sector_number = o->sector_number;
    f->miner_id = o->miner_id;
    f->partition_index = (uint32_t)o->partition;
    if (o->c1 && !read_file(o->c1, &f->vanilla_proof.data, &f->vanilla_proof.len)) return false;
    if (o->nvanilla && !f->vanilla_proofs) {
        f->vanilla_proofs = czk_calloc(o->nvanilla, sizeof *f->vanilla_proofs);
        for (size_t i = 0; i < o->nvanilla; i++) {
            if (!read_file(o->vanilla[i], &f->vanilla_proofs[i].data, &f->vanilla_proofs[i].len)) return false;
            f->n_vanilla_proofs = i + 1;
        }
    }
    if (o->randomness && !parse_hex(o->randomness, "--randomness", &f->randomness)) return false;
    if (o->comm_r_old && !parse_hex(o->comm_r_old, "--comm-r-old", &f->comm_r_old)) return false;
    if (o->comm_r_new && !parse_hex(o->comm_r_new, "--comm-r-new", &f->comm_r_new)) return false;
    if (o->comm_d_new && !parse_hex(o->comm_d_new, "--comm-d-new", &f->comm_d_new)) return false;
    return true;
}

static void free_submit(Czk__V1__SubmitRequest *s, Cuzk__V1__SubmitProofRequest *f)
{
    free_bin(&s->witness);
    free_bin(&f->vanilla_proof);
    for (size_t i = 0; i < f->n_vanilla_proofs; i++) free_bin(&f->vanilla_proofs[i]);
    czk_free(f->vanilla_proofs);
    free_bin(&f->randomness);
    free_bin(&f->comm_r_old);
    free_bin(&f->comm_r_new);
    free_bin(&f->comm_d_new);
}

/*
 * --public-out: the public inputs of every partition, recomputed in this process from the
 * request through czk_fil_job (the same code path as the daemon's, but none of its state),
 * so that `czk verify` can check the daemon's proof against inputs the daemon did not
 * supply. Written before the job is submitted: a request that does not parse here fails
 * without reaching the daemon.
 */
static bool write_public_inputs(const Cuzk__V1__SubmitProofRequest *f, const char *path)
{
    czk_fil_job_input in;
    memset(&in, 0, sizeof in);
    in.kind = (czk_fil_kind)f->proof_kind;
    in.registered_proof = f->registered_proof;
    in.sector_size = f->sector_size;
    in.vanilla_proof = f->vanilla_proof.data;
    in.vanilla_proof_len = f->vanilla_proof.len;
    const uint8_t **bufs = czk_calloc(f->n_vanilla_proofs + 1, sizeof *bufs);
    size_t *lens = czk_calloc(f->n_vanilla_proofs + 1, sizeof *lens);
    if (!bufs || !lens) {
        czk_free(bufs);
        czk_free(lens);
        fprintf(stderr, "czk: --public-out: out of memory\n");
        return false;
    }
    for (size_t i = 0; i < f->n_vanilla_proofs; i++) {
        bufs[i] = f->vanilla_proofs[i].data;
        lens[i] = f->vanilla_proofs[i].len;
    }
    in.vanilla_proofs = bufs;
    in.vanilla_proof_lens = lens;
    in.n_vanilla_proofs = f->n_vanilla_proofs;
    in.sector_number = f->sector_number;
    in.miner_id = f->miner_id;
    in.randomness = f->randomness.data;
    in.randomness_len = f->randomness.len;
    in.partition_index = f->partition_index;
    in.comm_r_old = f->comm_r_old.data;
    in.comm_r_old_len = f->comm_r_old.len;
    in.comm_r_new = f->comm_r_new.data;
    in.comm_r_new_len = f->comm_r_new.len;
    in.comm_d_new = f->comm_d_new.data;
    in.comm_d_new_len = f->comm_d_new.len;

    czk_err err;
    czk_err_clear(&err);
    czk_fil_job *j = NULL;
    czk_fr *x = NULL;
    uint8_t *bytes = NULL;
    bool ok = false;
    if (czk_fil_job_create(&j, &in, &err) != CZK_OK) {
        fprintf(stderr, "czk: --public-out: %s\n", err.msg);
        goto out;
    }
    size_t parts = czk_fil_job_partitions(j), n = 0;
    /* A first call with no room only reports the count. */
    czk_fil_job_public_inputs(j, 0, NULL, 0, &n, &err);
    x = czk_calloc(n + 1, sizeof *x);
    bytes = czk_malloc(32 * n + 1);
    if (!x || !bytes) {
        fprintf(stderr, "czk: --public-out: out of memory\n");
        goto out;
    }
    for (size_t p = 0; p < parts; p++) {
        if (czk_fil_job_public_inputs(j, p, x, n, &n, &err) != CZK_OK) {
            fprintf(stderr, "czk: --public-out: %s\n", err.msg);
            goto out;
        }
        for (size_t i = 0; i < n; i++) czk_fr_to_bytes_le(bytes + 32 * i, &x[i]);
        char name[4096];
        if (parts == 1) snprintf(name, sizeof name, "%s", path);
        else snprintf(name, sizeof name, "%s.%zu", path, p);
        FILE *o = fopen(name, "wb");
        bool wrote = o && fwrite(bytes, 1, 32 * n, o) == 32 * n;
        if (o && fclose(o) != 0) wrote = false;
        if (!wrote) {
            fprintf(stderr, "czk: %s: cannot write\n", name);
            goto out;
        }
    }
    fprintf(stderr, "czk: public inputs of %s: %zu partition(s) of %zu inputs -> %s%s\n",
            czk_fil_job_circuit_id(j), parts, n, path, parts == 1 ? "" : ".N");
    ok = true;
out:
    czk_free(x);
    czk_free(bytes);
    czk_fil_job_destroy(j);
    czk_free(bufs);
    czk_free(lens);
    return ok;
}

static int finish_await(const copts *o, Czk__V1__AwaitResponse *a)
{
    if (!a->job) {
        fprintf(stderr, "czk: the daemon's reply has no job\n");
        return 3;
    }
    print_job(a->job);
    if (a->timed_out) {
        fprintf(stderr, "czk: timed out after %llu ms; the job is still %s\n",
                (unsigned long long)o->timeout_ms, state_name(a->job->state));
        return 5;
    }
    if (a->job->state != CZK__V1__JOB_STATE__DONE) return 1;
    if (o->proof_out) {
        FILE *f = fopen(o->proof_out, "wb");
        if (!f || fwrite(a->job->proof.data, 1, a->job->proof.len, f) != a->job->proof.len) {
            fprintf(stderr, "czk: %s: cannot write\n", o->proof_out);
            if (f) fclose(f);
            return 1;
        }
        fclose(f);
    }
    return 0;
}

static bool on_event(void *ctx, const ProtobufCMessage *m)
{
    const Czk__V1__JobEvent *e = (const Czk__V1__JobEvent *)m;
    (void)ctx;
    time_t t = (time_t)(e->unix_us / 1000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char ts[32];
    strftime(ts, sizeof ts, "%H:%M:%S", &tm);
    printf("%s.%03u %s %-22s", ts, (unsigned)(e->unix_us / 1000 % 1000), e->job_id, e->type);
    if (e->partition >= 0) printf(" partition=%d", e->partition);
    if (*e->worker) printf(" worker=%s", e->worker);
    if (*e->message) printf(" message=\"%s\"", e->message);
    printf("\n");
    fflush(stdout);
    return true;
}

static void human_bytes(uint64_t b, char *out, size_t n)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int i = 0;
    while (v >= 1024 && i < 4) {
        v /= 1024;
        i++;
    }
    snprintf(out, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
}

static void print_status(const Czk__V1__StatusResponse *s)
{
    const Cuzk__V1__GetStatusResponse *e = s->engine;
    char a[32], b[32];
    printf("czkd %s  backend %s  %s%s  uptime %llus\n", s->version, s->backend,
           s->ready ? "ready" : "NOT READY", s->draining ? " (draining)" : "",
           e ? (unsigned long long)e->uptime_seconds : 0ull);
    if (!e) return;
    printf("proofs: %llu completed, %llu failed, %llu cancelled\n",
           (unsigned long long)e->total_proofs_completed, (unsigned long long)e->total_proofs_failed,
           (unsigned long long)s->total_proofs_cancelled);
    human_bytes(s->memory_budget_used_bytes, a, sizeof a);
    human_bytes(s->memory_budget_bytes, b, sizeof b);
    printf("memory budget: %s of %s", a, b);
    human_bytes(s->pinned_memory_in_use_bytes, a, sizeof a);
    human_bytes(e->pinned_memory_bytes, b, sizeof b);
    printf("; pinned: %s in use of %s\n\n", a, b);
    printf("%-8s %8s %12s\n", "QUEUE", "PENDING", "IN PROGRESS");
    for (size_t i = 0; i < e->n_queues; i++)
        printf("%-8s %8u %12u\n", e->queues[i]->proof_kind, e->queues[i]->pending, e->queues[i]->in_progress);
    printf("\n%-4s %-28s %12s %12s %-36s %s\n", "GPU", "NAME", "VRAM", "FREE", "JOB", "KIND");
    if (!e->n_gpus) printf("(none: proving on the CPU)\n");
    for (size_t i = 0; i < e->n_gpus; i++) {
        const Cuzk__V1__GPUStatus *g = e->gpus[i];
        human_bytes(g->vram_total_bytes, a, sizeof a);
        human_bytes(g->vram_free_bytes, b, sizeof b);
        printf("%-4u %-28.28s %12s %12s %-36s %s\n", g->ordinal, g->name, a, b,
               *g->current_job_id ? g->current_job_id : "-", *g->current_proof_kind ? g->current_proof_kind : "-");
    }
    printf("\n%-40s %-5s %12s %5s\n", "PARAMETERS", "TIER", "SIZE", "REFS");
    if (!e->n_loaded_srs) printf("(none loaded)\n");
    static const char *const tiers[] = {"hot", "warm", "cold"};
    for (size_t i = 0; i < e->n_loaded_srs; i++) {
        const Cuzk__V1__SRSStatus *x = e->loaded_srs[i];
        human_bytes(x->size_bytes, a, sizeof a);
        printf("%-40s %-5s %12s %5u\n", x->circuit_id, (unsigned)x->tier < 3 ? tiers[x->tier] : "?", a, x->ref_count);
    }
    /* Where each set's points are (czk.v1 only): host, page-locked, per GPU with its plan. */
    if (s->n_parameters == 0) return;
    printf("\n%-40s %12s %12s %9s\n", "PARAMETER MEMORY", "HOST", "PINNED", "LOAD");
    for (size_t i = 0; i < s->n_parameters; i++) {
        const Czk__V1__ParameterSet *p = s->parameters[i];
        char c[32];
        human_bytes(p->host_bytes, a, sizeof a);
        human_bytes(p->pinned_bytes, b, sizeof b);
        snprintf(c, sizeof c, "%.1fs", (double)p->load_ms / 1e3);
        printf("%-40s %12s %12s %9s\n", p->circuit_id, a, b, c);
        for (size_t g = 0; g < p->n_gpus; g++) {
            const Czk__V1__ParameterGpu *x = p->gpus[g];
            human_bytes(x->resident_bytes, a, sizeof a);
            human_bytes(x->streamed_bytes, b, sizeof b);
            printf("  gpu%u: resident %s, streamed %s a proof\n", x->ordinal, a, b);
            if (x->plan && *x->plan) printf("    plan: %s\n", x->plan);
        }
    }
}

int czk_cli_client(int argc, char **argv)
{
    const char *cmd = argv[0];
    copts o;
    int pos = parse_opts(argc, argv, &o);
    if (pos < 0) return 2;
    const char *arg = pos < argc ? argv[pos] : NULL;
    czk_client *cl = NULL;
    czk_err err;
    czk_err_clear(&err);
    int rc = 2;
    if (czk__client_open(&cl, &o.conn, &err) != CZK_OK) {
        fprintf(stderr, "czk: %s\n", err.msg);
        goto out;
    }
    ProtobufCMessage *reply = NULL;
    grpc_status_code code;
    if (!strcmp(cmd, "submit") || !strcmp(cmd, "run-job")) {
        Czk__V1__SubmitRequest s;
        Cuzk__V1__SubmitProofRequest f;
        if (!build_submit(&o, &s, &f)) {
            free_submit(&s, &f);
            goto out;
        }
        if (o.public_out) {
            if (s.kind == CZK__V1__KIND__CIRCOM || !s.filecoin) {
                fprintf(stderr, "czk: --public-out is for Filecoin jobs (circom: `czk prove` "
                                "writes public.json)\n");
                free_submit(&s, &f);
                goto out;
            }
            /* A request that does not parse here is bad input: exit 2, as for usage. */
            if (!write_public_inputs(&f, o.public_out)) {
                free_submit(&s, &f);
                goto out;
            }
        }
        if (!strcmp(cmd, "submit")) {
            code = czk__client_unary(cl, "/czk.v1.Czk/Submit", &s.base, &czk__v1__submit_response__descriptor,
                                     0, &reply, &err);
            if (code == GRPC_STATUS_OK) {
                Czk__V1__SubmitResponse *r = (Czk__V1__SubmitResponse *)reply;
                if (r->job) print_job(r->job);
                rc = 0;
            } else {
                rc = fail_rpc(code, &err);
            }
        } else {
            Czk__V1__ProveRequest p = CZK__V1__PROVE_REQUEST__INIT;
            p.submit = &s;
            p.timeout_ms = o.timeout_ms;
            code = czk__client_unary(cl, "/czk.v1.Czk/Prove", &p.base, &czk__v1__await_response__descriptor,
                                     0, &reply, &err);
            rc = code == GRPC_STATUS_OK ? finish_await(&o, (Czk__V1__AwaitResponse *)reply) : fail_rpc(code, &err);
        }
        free_submit(&s, &f);
    } else if (!strcmp(cmd, "await") || !strcmp(cmd, "cancel") || !strcmp(cmd, "watch") ||
               !strcmp(cmd, "preload") || !strcmp(cmd, "evict") || !strcmp(cmd, "forget")) {
        if (!arg && !(o.all && !strcmp(cmd, "watch"))) {
            usage(stderr, cmd);
            goto out;
        }
        if (!strcmp(cmd, "await")) {
            Czk__V1__AwaitRequest a = CZK__V1__AWAIT_REQUEST__INIT;
            a.job_id = (char *)arg;
            a.timeout_ms = o.timeout_ms;
            code = czk__client_unary(cl, "/czk.v1.Czk/Await", &a.base, &czk__v1__await_response__descriptor,
                                     0, &reply, &err);
            rc = code == GRPC_STATUS_OK ? finish_await(&o, (Czk__V1__AwaitResponse *)reply) : fail_rpc(code, &err);
        } else if (!strcmp(cmd, "cancel")) {
            Czk__V1__CancelRequest c = CZK__V1__CANCEL_REQUEST__INIT;
            c.job_id = (char *)arg;
            code = czk__client_unary(cl, "/czk.v1.Czk/Cancel", &c.base, &czk__v1__cancel_response__descriptor,
                                     o.timeout_ms, &reply, &err);
            if (code == GRPC_STATUS_OK) {
                printf("cancelled job_id=%s was_running=%s\n", arg,
                       ((Czk__V1__CancelResponse *)reply)->was_running ? "true" : "false");
                rc = 0;
            } else {
                rc = fail_rpc(code, &err);
            }
        } else if (!strcmp(cmd, "forget")) {
            Czk__V1__ForgetRequest f = CZK__V1__FORGET_REQUEST__INIT;
            f.job_id = (char *)arg;
            code = czk__client_unary(cl, "/czk.v1.Czk/Forget", &f.base, &czk__v1__forget_response__descriptor,
                                     o.timeout_ms, &reply, &err);
            if (code == GRPC_STATUS_OK) {
                static const char *const names[] = {"queued", "running", "done", "failed", "cancelled"};
                Czk__V1__ForgetResponse *r = (Czk__V1__ForgetResponse *)reply;
                printf("forgot job_id=%s state=%s was_running=%s\n", arg,
                       (unsigned)r->state < 5 ? names[r->state] : "unknown", r->was_running ? "true" : "false");
                rc = 0;
            } else {
                rc = fail_rpc(code, &err);
            }
        } else if (!strcmp(cmd, "watch")) {
            Czk__V1__WatchJobRequest w = CZK__V1__WATCH_JOB_REQUEST__INIT;
            w.job_id = (char *)(o.all ? "" : arg);
            code = czk__client_stream(cl, "/czk.v1.Czk/WatchJob", &w.base, &czk__v1__job_event__descriptor,
                                      o.timeout_ms, on_event, NULL, &err);
            rc = code == GRPC_STATUS_OK ? 0 : fail_rpc(code, &err);
        } else if (!strcmp(cmd, "preload")) {
            Czk__V1__PreloadRequest p = CZK__V1__PRELOAD_REQUEST__INIT;
            p.circuit_id = (char *)arg;
            code = czk__client_unary(cl, "/czk.v1.Czk/Preload", &p.base, &cuzk__v1__preload_srs_response__descriptor,
                                     o.timeout_ms, &reply, &err);
            if (code == GRPC_STATUS_OK) {
                Cuzk__V1__PreloadSrsResponse *r = (Cuzk__V1__PreloadSrsResponse *)reply;
                printf("circuit=%s already_loaded=%s load_time_ms=%llu\n", arg, r->already_loaded ? "true" : "false",
                       (unsigned long long)r->load_time_ms);
                rc = 0;
            } else {
                rc = fail_rpc(code, &err);
            }
        } else {
            Czk__V1__EvictRequest e = CZK__V1__EVICT_REQUEST__INIT;
            e.circuit_id = (char *)arg;
            code = czk__client_unary(cl, "/czk.v1.Czk/Evict", &e.base, &cuzk__v1__evict_srs_response__descriptor,
                                     o.timeout_ms, &reply, &err);
            if (code == GRPC_STATUS_OK) {
                Cuzk__V1__EvictSrsResponse *r = (Cuzk__V1__EvictSrsResponse *)reply;
                printf("circuit=%s was_loaded=%s freed_bytes=%llu\n", arg, r->was_loaded ? "true" : "false",
                       (unsigned long long)r->freed_bytes);
                rc = 0;
            } else {
                rc = fail_rpc(code, &err);
            }
        }
    } else if (!strcmp(cmd, "list")) {
        Czk__V1__ListJobsRequest l = CZK__V1__LIST_JOBS_REQUEST__INIT;
        Czk__V1__JobState st;
        if (o.state) {
            static const char *const names[] = {"queued", "running", "done", "failed", "cancelled"};
            size_t i = 0;
            while (i < 5 && strcmp(o.state, names[i])) i++;
            if (i == 5) {
                fprintf(stderr, "czk: --state must be queued, running, done, failed or cancelled\n");
                goto out;
            }
            st = (Czk__V1__JobState)i;
            l.n_states = 1;
            l.states = &st;
        }
        l.limit = (uint32_t)o.limit;
        code = czk__client_unary(cl, "/czk.v1.Czk/ListJobs", &l.base, &czk__v1__list_jobs_response__descriptor,
                                 o.timeout_ms, &reply, &err);
        if (code == GRPC_STATUS_OK) {
            Czk__V1__ListJobsResponse *r = (Czk__V1__ListJobsResponse *)reply;
            for (size_t i = 0; i < r->n_jobs; i++) print_job(r->jobs[i]);
            rc = 0;
        } else {
            rc = fail_rpc(code, &err);
        }
    } else if (!strcmp(cmd, "status")) {
        Czk__V1__GetStatusRequest q = CZK__V1__GET_STATUS_REQUEST__INIT;
        code = czk__client_unary(cl, "/czk.v1.Czk/GetStatus", &q.base, &czk__v1__status_response__descriptor,
                                 o.timeout_ms, &reply, &err);
        if (code == GRPC_STATUS_OK) {
            print_status((Czk__V1__StatusResponse *)reply);
            rc = 0;
        } else {
            rc = fail_rpc(code, &err);
        }
    } else if (!strcmp(cmd, "metrics")) {
        Cuzk__V1__GetMetricsRequest q = CUZK__V1__GET_METRICS_REQUEST__INIT;
        code = czk__client_unary(cl, "/czk.v1.Czk/GetMetrics", &q.base, &cuzk__v1__get_metrics_response__descriptor,
                                 o.timeout_ms, &reply, &err);
        if (code == GRPC_STATUS_OK) {
            fputs(((Cuzk__V1__GetMetricsResponse *)reply)->prometheus_text, stdout);
            rc = 0;
        } else {
            rc = fail_rpc(code, &err);
        }
    } else {
        usage(stderr, cmd);
    }
    if (reply) protobuf_c_message_free_unpacked(reply, NULL);
out:
    czk__client_close(cl);
    czk_free(o.token_buf);
    for (size_t i = 0; i < sizeof o.owned / sizeof o.owned[0]; i++) czk_free(o.owned[i]);
    fflush(stdout);
    return rc;
}
