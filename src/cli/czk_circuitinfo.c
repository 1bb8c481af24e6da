/*
 * czk circuit-info: the size of one partition of a Filecoin proof circuit, from a
 * COUNT-mode synthesis (no witness, no parameters): constraints, inputs (ONE included),
 * aux variables and bellperson's three density counts. The numbers are those of the
 * published .params files' circuits, which must agree exactly for a proof to verify.
 *
 * Each proof kind has its own counting function in czk/circuits.h; --proof porep is here,
 * the other kinds join as their circuits land.
 */
#include "czk/api_version.h"
#include "czk/circuits.h"
#include "czk/post.h"
#include "czk/seal_proof.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: czk circuit-info --proof porep|snap|wpost|winning (--sector-size SIZE | "
               "--seal-proof NAME) [--json]\n"
               "\n"
               "Prints the constraints, inputs (counting ONE), aux variables and the a_aux,\n"
               "b_input and b_aux densities of one partition's circuit. SIZE is in bytes or\n"
               "with a KiB/MiB/GiB suffix (2KiB, 8MiB, 512MiB, 32GiB, 64GiB); it selects the\n"
               "V1_1 registered proof of that size. --seal-proof names any registered proof\n"
               "(StackedDrg32GiBV1_2_Feat_NonInteractivePoRep, ...). snap is one SnapDeals\n"
               "partition of that sector size, wpost one Window PoSt partition (V1_2), winning\n"
               "the Winning PoSt circuit (V1).\n");
}

/* The V1_1 interactive seal proof of a sector size. */
static bool proof_of_size(uint64_t size, czk_seal_proof *out)
{
    for (int p = 0; p < CZK_SEAL_PROOF_COUNT; p++) {
        const czk_seal_proof_info *i = czk_seal_proof_get((czk_seal_proof)p);
        if (i != NULL && i->sector_size == size && i->api_version == CZK_API_V1_1_0 &&
            i->feature == CZK_SEAL_FEATURE_INTERACTIVE) {
            *out = (czk_seal_proof)p;
            return true;
        }
    }
    return false;
}

int czk_cli_circuit_info(int argc, char **argv)
{
    const char *kind = NULL, *size_arg = NULL, *name = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--proof") == 0 && i + 1 < argc) {
            kind = argv[++i];
        } else if (strcmp(argv[i], "--sector-size") == 0 && i + 1 < argc) {
            size_arg = argv[++i];
        } else if (strcmp(argv[i], "--seal-proof") == 0 && i + 1 < argc) {
            name = argv[++i];
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "czk circuit-info: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (kind == NULL || (size_arg == NULL) == (name == NULL)) {
        usage(stderr);
        return 2;
    }

    czk_seal_proof proof = CZK_SEAL_StackedDrg2KiBV1_1;
    czk_err err;
    if (name != NULL) {
        if (czk_seal_proof_parse(name, &proof, &err) != CZK_OK) {
            fprintf(stderr, "czk circuit-info: %s\n", err.msg);
            return 2;
        }
    } else {
        uint64_t size = 0;
        if (!czk_cli_parse_size(size_arg, &size) || !proof_of_size(size, &proof)) {
            fprintf(stderr, "czk circuit-info: no registered sector size '%s'\n", size_arg);
            return 2;
        }
    }

    czk_circuit_info info;
    czk_status s;
    const char *post_name = NULL; /* wpost / winning: the registered PoSt proof */
    if (strcmp(kind, "porep") == 0) {
        s = czk_circuit_porep_count((int)proof, &info, &err);
    } else if (strcmp(kind, "snap") == 0) {
        s = czk_circuit_snap_count((int)proof, &info, &err);
    } else if (strcmp(kind, "wpost") == 0 || strcmp(kind, "winning") == 0) {
        bool winning = strcmp(kind, "winning") == 0;
        czk_post_proof pp = CZK_POST_StackedDrgWinning2KiBV1;
        s = czk_post_proof_for_size(czk_seal_proof_get(proof)->sector_size, winning, &pp, &err);
        if (s == CZK_OK) {
            post_name = czk_post_proof_name(pp);
            s = winning ? czk_circuit_winning_count((int)pp, &info, &err)
                        : czk_circuit_wpost_count((int)pp, &info, &err);
        }
    } else {
        fprintf(stderr, "czk circuit-info: unknown --proof '%s' (porep, snap, wpost, winning)\n",
                kind);
        return 2;
    }
    if (s != CZK_OK) {
        fprintf(stderr, "czk circuit-info: %s\n", err.msg);
        return 1;
    }
    if (json) {
        printf("{\"constraints\": %llu, \"inputs\": %llu, \"aux\": %llu, \"a_aux_density\": %llu, "
               "\"b_input_density\": %llu, \"b_aux_density\": %llu}\n",
               (unsigned long long)info.constraints, (unsigned long long)info.inputs,
               (unsigned long long)info.aux, (unsigned long long)info.a_aux_density,
               (unsigned long long)info.b_input_density, (unsigned long long)info.b_aux_density);
    } else {
        printf("%s %s\n", kind, post_name != NULL ? post_name : czk_seal_proof_name(proof));
        printf("constraints      %llu\n", (unsigned long long)info.constraints);
        printf("inputs           %llu\n", (unsigned long long)info.inputs);
        printf("aux              %llu\n", (unsigned long long)info.aux);
        printf("a_aux_density    %llu\n", (unsigned long long)info.a_aux_density);
        printf("b_input_density  %llu\n", (unsigned long long)info.b_input_density);
        printf("b_aux_density    %llu\n", (unsigned long long)info.b_aux_density);
    }
    return 0;
}
