/* Subcommands of the czk tool, one file each (czk_<name>.c). */
#ifndef CZK_CLI_H
#define CZK_CLI_H

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
