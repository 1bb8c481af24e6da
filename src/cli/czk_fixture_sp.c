/*
 * czk fixture snap|wpost|winning: write a synthetic SnapDeals or PoSt request — the
 * fields a client sends to czkd (cuzk.v1 SubmitProofRequest) — as one JSON file. The
 * vanilla proofs come from czk_snap_fixture_create / czk_post_fixture_create: consistent
 * commitments and Merkle proofs for any sector size, built in seconds (see
 * include/czk/snap_vanilla.h and include/czk/post_vanilla.h). They are test data: no real
 * sector stands behind them.
 */
#include "czk/alloc.h"
#include "czk/post_vanilla.h"
#include "czk/snap_vanilla.h"
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f, const char *kind)
{
    fprintf(f,
            "usage: czk fixture %s --registered-proof NAME --out FILE [--seed N] [--sectors N]\n"
            "\n"
            "Writes a synthetic request (test data, no real sector behind it) whose vanilla\n"
            "proofs verify and satisfy the circuit, for any sector size, in seconds.\n"
            "\n"
            "  --registered-proof NAME\n"
            "        snap:    RegisteredUpdateProof StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1\n"
            "        wpost:   RegisteredPoStProof StackedDrgWindow{2KiB,...,64GiB}V1 or V1_2\n"
            "                 (Go's V1_1 spelling is accepted for V1_2)\n"
            "        winning: StackedDrgWinning{2KiB,...,64GiB}V1\n"
            "        (Go's RegisteredUpdateProof_ / RegisteredPoStProof_ prefixes accepted)\n"
            "  --out FILE       the JSON request\n"
            "  --seed N         makes everything deterministic (default 1)\n"
            "  --sectors N      wpost: sectors in the partition (default: the circuit's full\n"
            "                   sector_count, e.g. 2349 at 32 GiB); winning: size of the\n"
            "                   sector set the challenged sector is drawn from (default 1)\n"
            "\n"
            "JSON schema (field names as cuzk.v1 SubmitProofRequest; 32-byte values are the\n"
            "raw bytes in order as 64 hex digits — little-endian Fr reprs, as Filecoin's\n"
            "Domain types and the request carry them; byte strings are standard base64):\n"
            "  proof_kind            2 SNAP_DEALS_UPDATE, 3 WINDOW_POST_PARTITION,\n"
            "                        4 WINNING_POST; proof_kind_name the enum name\n"
            "  registered_proof      the numeric RegisteredUpdateProof / RegisteredPoStProof\n"
            "                        (Go abi numbers); registered_proof_name its name\n"
            "  sector_size           bytes\n"
            "  vanilla_proofs        [base64, ...]: snap: one bincode PartitionProof per\n"
            "                        partition, in order; wpost/winning: one bincode\n"
            "                        FallbackPoStSectorProof {sector_id, comm_r,\n"
            "                        vanilla_proof: {sectors: [SectorProof]}} per sector\n"
            "  snap:    comm_r_old, comm_r_new, comm_d_new (hex), h (the encoding's h)\n"
            "  wpost/winning: randomness (hex), miner_id, prover_id (hex),\n"
            "           partition_index (wpost), sector_number (winning: the challenged\n"
            "           sector; wpost: the first), sectors [{sector_number, comm_r}] in\n"
            "           order, sector_set_len (winning)\n"
            "  synthetic (true), seed\n"
            "Exit 0 on success, 2 for bad arguments, 1 for other errors.\n",
            kind);
}

static char *hex32(char out[65], const uint8_t b[32])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
    return out;
}

static json_t *jhex(const uint8_t b[32])
{
    char h[65];
    return json_string(hex32(h, b));
}

/* Standard base64 (RFC 4648, padded), as Go's json.Marshal writes []byte. */
static json_t *jbase64(const uint8_t *b, size_t n)
{
    size_t cap = 4 * ((n + 2) / 3) + 1;
    char *s = czk_malloc(cap);
    if (!s) return NULL;
    EVP_EncodeBlock((unsigned char *)s, b, (int)n);
    json_t *j = json_string(s);
    czk_free(s);
    return j;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (*s == '\0' || *s == '-') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno != 0) return false;
    *out = v;
    return true;
}

typedef struct opts {
    const char *name, *out;
    uint64_t seed, sectors;
} opts;

/* 0 ok, 2 bad arguments (message printed), -1 --help printed. argv[0] and any leading
 * "fixture" / kind words the dispatcher leaves in front are skipped. */
static int parse_opts(int argc, char **argv, const char *kind, opts *o)
{
    static const struct option lo[] = {{"registered-proof", required_argument, NULL, 'p'},
                                       {"out", required_argument, NULL, 'o'},
                                       {"seed", required_argument, NULL, 's'},
                                       {"sectors", required_argument, NULL, 'n'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
    enum { MAX_ARGS = 64 };
    char *av[MAX_ARGS + 1];
    int ac = 0, i = 1;
    av[ac++] = (char *)"czk-fixture";
    while (i < argc && (strcmp(argv[i], kind) == 0 || strcmp(argv[i], "fixture") == 0)) i++;
    if (argc - i >= MAX_ARGS) {
        fprintf(stderr, "czk fixture %s: too many arguments\n", kind);
        return 2;
    }
    for (; i < argc; i++) av[ac++] = argv[i];
    av[ac] = NULL;
    memset(o, 0, sizeof *o);
    o->seed = 1;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(ac, av, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'p': o->name = optarg; break;
        case 'o': o->out = optarg; break;
        case 's':
            if (!parse_u64(optarg, &o->seed)) {
                fprintf(stderr, "czk fixture %s: --seed wants a non-negative integer, got '%s'\n",
                        kind, optarg);
                return 2;
            }
            break;
        case 'n':
            if (!parse_u64(optarg, &o->sectors) || o->sectors > 1000000) {
                fprintf(stderr,
                        "czk fixture %s: --sectors wants an integer up to 1000000, got '%s'\n",
                        kind, optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout, kind); return -1;
        default:
            fprintf(stderr, "czk fixture %s: unknown option or missing value: '%s'\n", kind,
                    av[optind - 1]);
            usage(stderr, kind);
            return 2;
        }
    }
    if (optind < ac) {
        fprintf(stderr, "czk fixture %s: unexpected argument '%s'\n", kind, av[optind]);
        return 2;
    }
    if (!o->name || !o->out) {
        fprintf(stderr, "czk fixture %s: --registered-proof and --out are required\n", kind);
        usage(stderr, kind);
        return 2;
    }
    return 0;
}

/* Write the JSON document; 0 or 1 (message printed). Steals `doc`. */
static int write_doc(json_t *doc, const char *path, const char *kind)
{
    int rc = 0;
    if (!doc || json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0) {
        fprintf(stderr, "czk fixture %s: cannot write %s: %s\n", kind, path,
                errno ? strerror(errno) : "out of memory");
        rc = 1;
    }
    json_decref(doc);
    return rc;
}

int czk_fixture_snap_main(int argc, char **argv)
{
    opts o;
    int rc = parse_opts(argc, argv, "snap", &o);
    if (rc) return rc < 0 ? 0 : rc;
    uint64_t id, size;
    czk_err err;
    if (czk_snap_update_proof_parse(o.name, &id, &size, &err) != CZK_OK) {
        fprintf(stderr, "czk fixture snap: %s\n", err.msg);
        return 2;
    }
    double t0 = czk_clock_s();
    czk_snap_fixture *f = NULL;
    if (czk_snap_fixture_create(&f, size, o.seed, &err) != CZK_OK) {
        fprintf(stderr, "czk fixture snap: %s\n", err.msg);
        return 1;
    }
    double t1 = czk_clock_s();
    json_t *doc = json_object(), *vp = json_array();
    size_t total = 0;
    for (size_t k = 0; k < f->npartitions && doc && vp; k++) {
        uint8_t *b = NULL;
        size_t len = 0;
        if (czk_snap_partition_proof_write(f->partitions[k], &b, &len, &err) != CZK_OK) {
            fprintf(stderr, "czk fixture snap: partition %zu: %s\n", k, err.msg);
            json_decref(doc);
            json_decref(vp);
            czk_snap_fixture_destroy(f);
            return 1;
        }
        json_array_append_new(vp, jbase64(b, len));
        total += len;
        czk_free(b);
    }
    const czk_snap_comms *c = &f->comms;
    json_object_set_new(doc, "proof_kind", json_integer(2));
    json_object_set_new(doc, "proof_kind_name", json_string("SNAP_DEALS_UPDATE"));
    json_object_set_new(doc, "registered_proof", json_integer((json_int_t)id));
    json_object_set_new(doc, "registered_proof_name", json_string(o.name));
    json_object_set_new(doc, "sector_size", json_integer((json_int_t)size));
    json_object_set_new(doc, "comm_r_old", jhex(c->comm_r_old));
    json_object_set_new(doc, "comm_r_new", jhex(c->comm_r_new));
    json_object_set_new(doc, "comm_d_new", jhex(c->comm_d_new));
    json_object_set_new(doc, "h", json_integer(c->h));
    json_object_set_new(doc, "vanilla_proofs", vp);
    json_object_set_new(doc, "synthetic", json_true());
    json_object_set_new(doc, "seed", json_integer((json_int_t)o.seed));
    size_t np = f->npartitions;
    czk_snap_fixture_destroy(f);
    rc = write_doc(doc, o.out, "snap");
    if (rc == 0)
        printf("czk fixture snap: %s, %zu partition proofs (%zu bytes of bincode), built in "
               "%.2f s, written to %s\n",
               o.name, np, total, t1 - t0, o.out);
    return rc;
}

/* A RegisteredPoStProof name of the wanted kind; Go's prefix and its V1_1 spelling of the
 * Window V1_2 proofs accepted. */
static bool post_proof_parse(const char *name, bool winning, czk_post_proof *out)
{
    const char *prefix = "RegisteredPoStProof_";
    if (strncmp(name, prefix, strlen(prefix)) == 0) name += strlen(prefix);
    char buf[64];
    size_t n = strlen(name);
    if (n >= sizeof buf) return false;
    memcpy(buf, name, n + 1);
    if (!winning && n > 4 && strcmp(buf + n - 4, "V1_1") == 0) buf[n - 1] = '2';
    for (int i = 0; i < CZK_POST_PROOF_COUNT; i++)
        if (strcmp(czk_post_proof_name((czk_post_proof)i), buf) == 0 &&
            czk_post_proof_is_winning((czk_post_proof)i) == winning) {
            *out = (czk_post_proof)i;
            return true;
        }
    return false;
}

int czk_fixture_post_main(int argc, char **argv, bool winning)
{
    const char *kind = winning ? "winning" : "wpost";
    opts o;
    int rc = parse_opts(argc, argv, kind, &o);
    if (rc) return rc < 0 ? 0 : rc;
    czk_post_proof proof;
    if (!post_proof_parse(o.name, winning, &proof)) {
        fprintf(stderr,
                "czk fixture %s: unknown %s PoSt proof '%s' (expected e.g. %s)\n", kind,
                winning ? "Winning" : "Window", o.name,
                winning ? "StackedDrgWinning32GiBV1" : "StackedDrgWindow32GiBV1_2");
        return 2;
    }
    czk_err err;
    czk_post_params p;
    if (czk_post_params_get(&p, proof, &err) != CZK_OK) {
        fprintf(stderr, "czk fixture %s: %s\n", kind, err.msg);
        return 2;
    }
    if (!winning && o.sectors > p.sector_count) {
        fprintf(stderr, "czk fixture wpost: --sectors %llu: a %s partition holds %u sectors\n",
                (unsigned long long)o.sectors, o.name, p.sector_count);
        return 2;
    }
    double t0 = czk_clock_s();
    czk_post_fixture *f = NULL;
    if (czk_post_fixture_create(&f, proof, o.seed, (size_t)o.sectors, &err) != CZK_OK) {
        fprintf(stderr, "czk fixture %s: %s\n", kind, err.msg);
        return 1;
    }
    double t1 = czk_clock_s();
    json_t *doc = json_object(), *vp = json_array(), *secs = json_array();
    size_t total = 0;
    for (size_t i = 0; i < f->nsectors; i++) {
        uint8_t *b = NULL;
        size_t len = 0;
        if (czk_post_fallback_proof_write(f->sectors[i].id, f->sectors[i].comm_r, f->proofs[i], &b,
                                          &len, &err) != CZK_OK) {
            fprintf(stderr, "czk fixture %s: sector %zu: %s\n", kind, i, err.msg);
            json_decref(doc);
            json_decref(vp);
            json_decref(secs);
            czk_post_fixture_destroy(f);
            return 1;
        }
        json_array_append_new(vp, jbase64(b, len));
        total += len;
        czk_free(b);
        json_t *s = json_object();
        json_object_set_new(s, "sector_number", json_integer((json_int_t)f->sectors[i].id));
        json_object_set_new(s, "comm_r", jhex(f->sectors[i].comm_r));
        json_array_append_new(secs, s);
    }
    json_object_set_new(doc, "proof_kind", json_integer(winning ? 4 : 3));
    json_object_set_new(doc, "proof_kind_name",
                        json_string(winning ? "WINNING_POST" : "WINDOW_POST_PARTITION"));
    json_object_set_new(doc, "registered_proof", json_integer((json_int_t)proof));
    json_object_set_new(doc, "registered_proof_name", json_string(czk_post_proof_name(proof)));
    json_object_set_new(doc, "sector_size", json_integer((json_int_t)p.sector_size));
    json_object_set_new(doc, "randomness", jhex(f->randomness));
    json_object_set_new(doc, "miner_id", json_integer((json_int_t)f->miner_id));
    json_object_set_new(doc, "prover_id", jhex(f->prover_id));
    if (!winning) json_object_set_new(doc, "partition_index", json_integer((json_int_t)f->partition_index));
    json_object_set_new(doc, "sector_number", json_integer((json_int_t)f->sectors[0].id));
    if (winning) json_object_set_new(doc, "sector_set_len", json_integer((json_int_t)f->sector_set_len));
    json_object_set_new(doc, "sectors", secs);
    json_object_set_new(doc, "vanilla_proofs", vp);
    json_object_set_new(doc, "synthetic", json_true());
    json_object_set_new(doc, "seed", json_integer((json_int_t)o.seed));
    size_t ns = f->nsectors;
    czk_post_fixture_destroy(f);
    rc = write_doc(doc, o.out, kind);
    if (rc == 0)
        printf("czk fixture %s: %s, %zu sector proof(s) (%zu bytes of bincode), built in %.2f s, "
               "written to %s\n",
               kind, czk_post_proof_name(proof), ns, total, t1 - t0, o.out);
    return rc;
}
