/* Subcommands of the czk tool, one file each (czk_<name>.c). */
#ifndef CZK_CLI_H
#define CZK_CLI_H

#include <stdbool.h>
#include <stdint.h>

/** A size in bytes: a decimal number with an optional K/M/G/T suffix, optionally followed
 *  by iB or B (2KiB, 32GiB, 536870912). False for anything else, zero or overflow. */
bool czk_cli_parse_size(const char *s, uint64_t *out);

int czk_cli_selfcheck(int argc, char **argv);
int czk_cli_prove(int argc, char **argv);
int czk_cli_verify(int argc, char **argv);
int czk_cli_setup(int argc, char **argv);
int czk_cli_r1cs_info(int argc, char **argv);
int czk_cli_gen_circuit(int argc, char **argv);
int czk_cli_parent_cache(int argc, char **argv);
int czk_cli_comm_d(int argc, char **argv);
int czk_cli_seal(int argc, char **argv);
int czk_cli_circuit_info(int argc, char **argv);
int czk_cli_vanilla_verify(int argc, char **argv);

#endif
