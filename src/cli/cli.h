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
/* `czk fixture porep|snap|wpost|winning` (czk_fixture.c): synthetic C1 / vanilla proofs. */
int czk_cli_fixture(int argc, char **argv);
/* `czk fixture snap|wpost|winning` (czk_fixture_sp.c): argv[0] is the kind's word. */
int czk_fixture_snap_main(int argc, char **argv);
int czk_fixture_post_main(int argc, char **argv, bool winning);

/* czk submit|await|run-job|cancel|list|watch|status|metrics|preload|evict (czk_client.c):
 * argv[0] is the command; talks to czkd over gRPC. */
int czk_cli_client(int argc, char **argv);

/* czk timeline (czk_timeline.c): czkd's event log or a live daemon as an SVG waterfall. */
int czk_cli_timeline(int argc, char **argv);

#endif
