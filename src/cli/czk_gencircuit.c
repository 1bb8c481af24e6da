/*
 * czk gen-circuit: large test circuits written straight to circom's .r1cs and .wtns,
 * for sizes circom2 cannot compile (its wasm32 build runs out of memory near 2^18
 * constraints, docs/formats.md §10.2). For tests and benchmarks only.
 *
 * power5: the chain x_(i+1) = (x_i + k_i)^5, k_i = i + 1, over R = floor(N/3) rounds, three
 * constraints per round (t = x_i + k_i folded into the linear combinations):
 *     t · t = s2      s2 · s2 = s4      s4 · t = x_(i+1)
 * Wires, in circom's order: 0 = ONE, 1 = the public output x_R, 2 = the private input x_0,
 * then s2, s4, x_(i+1) per round (the last round's x_(i+1) is wire 1). So 3R constraints,
 * 3R + 2 wires and one public signal: with N = 2^k − 2 the snarkjs domain is exactly 2^k.
 * The witness values are full-size field elements after the first rounds, like a hash
 * chain's (the hard case for the MSMs, as opposed to bit-heavy circuits).
 */
#include "czk/alloc.h"
#include "czk/groth16.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    fprintf(stderr,
            "usage: czk gen-circuit --kind power5 --constraints N --r1cs OUT.r1cs --wtns OUT.wtns\n"
            "                       [--seed X0]\n"
            "Writes a test circuit and a satisfying witness in circom's formats (BLS12-381).\n"
            "  power5  x -> (x + k_i)^5 chain, floor(N/3) rounds of 3 constraints, one public\n"
            "          output; N = 2^k - 2 gives snarkjs's domain 2^k exactly.\n"
            "  --seed  the private input x_0 (default 3).\n");
}

/* Append one term to the row being built in `c`. */
static void term(czk_csr *c, uint32_t col, const czk_fr *v)
{
    c->col[c->nnz] = col;
    c->val[c->nnz] = *v;
    c->nnz++;
}

static void end_row(czk_r1cs *r, uint32_t row)
{
    r->a.row_ptr[row + 1] = r->a.nnz;
    r->b.row_ptr[row + 1] = r->b.nnz;
    r->c.row_ptr[row + 1] = r->c.nnz;
}

/* Build the power-5 chain and its witness z (3R + 2 values, Montgomery). */
static czk_status build_power5(czk_r1cs *r, czk_fr **z_out, uint32_t rounds, uint64_t seed,
                               czk_err *err)
{
    const uint32_t n_cons = 3 * rounds, n_wires = 3 * rounds + 2;
    /* Per round: A has 2 + 1 + 1 terms, B 2 + 1 + 2, C 1 + 1 + 1. */
    czk_status st = czk_r1cs_alloc(r, 2, n_wires - 2, n_cons, (uint64_t)4 * rounds,
                                   (uint64_t)5 * rounds, (uint64_t)3 * rounds, err);
    if (st != CZK_OK) return st;
    czk_fr *z = czk_malloc((size_t)n_wires * sizeof *z);
    if (z == NULL) {
        czk_r1cs_free(r);
        return czk_err_set(err, CZK_ENOMEM, "gen-circuit: out of memory for %u wires", n_wires);
    }
    r->a.row_ptr[0] = r->b.row_ptr[0] = r->c.row_ptr[0] = 0;
    r->a.nnz = r->b.nnz = r->c.nnz = 0;
    z[0] = CZK_FR_ONE;
    czk_fr_from_u64(&z[2], seed);
    uint32_t x = 2; /* wire of x_i */
    for (uint32_t i = 0; i < rounds; i++) {
        const uint32_t s2 = 3 + 3 * i, s4 = 4 + 3 * i;
        const uint32_t next = i + 1 == rounds ? 1 : 5 + 3 * i;
        const uint32_t row = 3 * i;
        czk_fr k, t;
        czk_fr_from_u64(&k, (uint64_t)i + 1);
        czk_fr_add(&t, &z[x], &k);
        czk_fr_sqr(&z[s2], &t);
        czk_fr_sqr(&z[s4], &z[s2]);
        czk_fr_mul(&z[next], &z[s4], &t);
        /* (x + k) · (x + k) = s2 */
        term(&r->a, x, &CZK_FR_ONE);
        term(&r->a, 0, &k);
        term(&r->b, x, &CZK_FR_ONE);
        term(&r->b, 0, &k);
        term(&r->c, s2, &CZK_FR_ONE);
        end_row(r, row);
        /* s2 · s2 = s4 */
        term(&r->a, s2, &CZK_FR_ONE);
        term(&r->b, s2, &CZK_FR_ONE);
        term(&r->c, s4, &CZK_FR_ONE);
        end_row(r, row + 1);
        /* s4 · (x + k) = x_next */
        term(&r->a, s4, &CZK_FR_ONE);
        term(&r->b, x, &CZK_FR_ONE);
        term(&r->b, 0, &k);
        term(&r->c, next, &CZK_FR_ONE);
        end_row(r, row + 2);
        x = next;
    }
    *z_out = z;
    return CZK_OK;
}

int czk_cli_gen_circuit(int argc, char **argv)
{
    static const struct option opts[] = {{"kind", required_argument, 0, 'k'},
                                         {"constraints", required_argument, 0, 'n'},
                                         {"r1cs", required_argument, 0, 'r'},
                                         {"wtns", required_argument, 0, 'w'},
                                         {"seed", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *kind = NULL, *r1cs_path = NULL, *wtns_path = NULL;
    unsigned long long n = 0, seed = 3;
    char *end;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'k': kind = optarg; break;
        case 'n':
            n = strtoull(optarg, &end, 10);
            if (*end != '\0' || optarg[0] == '-') n = 0;
            break;
        case 'r': r1cs_path = optarg; break;
        case 'w': wtns_path = optarg; break;
        case 's':
            seed = strtoull(optarg, &end, 10);
            if (*end != '\0') {
                usage();
                return 2;
            }
            break;
        case 'h': usage(); return 0;
        default: usage(); return 2;
        }
    }
    if (kind == NULL || r1cs_path == NULL || wtns_path == NULL || n == 0) {
        usage();
        return 2;
    }
    if (strcmp(kind, "power5") != 0) {
        fprintf(stderr, "czk: unknown circuit kind '%s' (known: power5)\n", kind);
        return 2;
    }
    /* 3R + 2 wires must fit circom's u32 wire ids. */
    if (n < 3 || n / 3 > (UINT32_MAX - 2) / 3) {
        fprintf(stderr, "czk: --constraints must be between 3 and %u\n", UINT32_MAX - 2);
        return 2;
    }
    czk_err err;
    czk_err_clear(&err);
    czk_r1cs r;
    memset(&r, 0, sizeof r);
    czk_fr *z = NULL;
    int rc = 2;
    uint32_t bad = 0;
    if (build_power5(&r, &z, (uint32_t)(n / 3), seed, &err) != CZK_OK) goto out;
    /* Our own consistency check; snarkjs's `wtns check` is the independent one. */
    if (!czk_r1cs_is_satisfied(&r, z, &bad)) {
        czk_err_set(&err, CZK_EINTERNAL, "gen-circuit: constraint %u does not hold", bad);
        goto out;
    }
    if (czk_r1cs_write_file(&r, r1cs_path, &err) != CZK_OK) goto out;
    if (czk_wtns_write_file(z, (size_t)r.n_inputs + r.n_aux, wtns_path, &err) != CZK_OK) goto out;
    fprintf(stderr, "czk gen-circuit: %s, %u constraints, %u wires, 1 public output\n", kind,
            r.n_constraints, r.n_inputs + r.n_aux);
    rc = 0;
out:
    if (rc != 0) fprintf(stderr, "czk: %s\n", err.msg[0] ? err.msg : czk_strerror(err.status));
    czk_free(z);
    czk_r1cs_free(&r);
    return rc;
}
