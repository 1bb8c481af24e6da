/* czk — the client and offline tool. Subcommands are dispatched from one table. */
#include "czk/bls12_381.h"
#include "czk/gpu.h"
#include "czk/log.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct czk_cli_cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"selfcheck", czk_cli_selfcheck, "check the arithmetic against known answers and report the machine"},
    {"prove", czk_cli_prove, "prove a circom circuit (zkey + wtns) or an R1CS with .params"},
    {"verify", czk_cli_verify, "verify a proof (snarkjs JSON or bellperson binary)"},
    {"setup", czk_cli_setup, "generate INSECURE test parameters for an .r1cs (bellperson .params or snarkjs .zkey)"},
    {"r1cs-info", czk_cli_r1cs_info, "print the sizes of an .r1cs or .zkey"},
    {"gen-circuit", czk_cli_gen_circuit, "write a large test circuit (.r1cs + .wtns) without circom"},
    {"parent-cache", czk_cli_parent_cache, "generate or verify a Filecoin SDR parent-cache file"},
    {"comm-d", czk_cli_comm_d, "print the comm_d (unsealed CID) of an all-zero sector"},
    {"seal", czk_cli_seal, "seal a sector of up to 512 MiB on the CPU (SDR labels, tree_c, tree_r_last, comm_r)"},
    {"fixture", czk_cli_fixture, "write a synthetic TEST C1 / vanilla proof for any sector size (porep, snap, wpost, winning)"},
    {"vanilla-verify", czk_cli_vanilla_verify, "check a vanilla proof before proving: PoRep C1/envelope, SnapDeals, Window/Winning PoSt (JSON or bincode)"},
    {"circuit-info", czk_cli_circuit_info, "print the size of a Filecoin proof circuit (one partition)"},
    {"submit", czk_cli_client, "daemon: queue a job on czkd (circom, porep, snap, wpost, winning)"},
    {"await", czk_cli_client, "daemon: wait for a job and fetch its proof"},
    {"run-job", czk_cli_client, "daemon: submit and await in one call"},
    {"cancel", czk_cli_client, "daemon: cancel a job"},
    {"forget", czk_cli_client, "daemon: drop a job and its proof; its request id is free again"},
    {"list", czk_cli_client, "daemon: list jobs"},
    {"watch", czk_cli_client, "daemon: stream a job's events (partition progress) live"},
    {"status", czk_cli_client, "daemon: engine, GPUs, queues and parameters as a table"},
    {"metrics", czk_cli_client, "daemon: Prometheus metrics"},
    {"preload", czk_cli_client, "daemon: load a parameter set now"},
    {"evict", czk_cli_client, "daemon: drop a parameter set from memory"},
    {"timeline", czk_cli_timeline, "draw a run as an SVG waterfall (czkd's timeline.jsonl or a live daemon)"},
    {"version", cmd_version, "print the version and build configuration"},
    {"help", cmd_help, "list the commands"},
};

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("czk %s (field back end: %s, CUDA backend: %s)\n", czk_version(), czk_ff_backend(),
           czk_gpu_built() ? "built" : "not built");
    return 0;
}

static int cmd_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("usage: czk COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        printf("  %-12s %s\n", commands[i].name, commands[i].help);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cmd_help(0, NULL);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "czk: unknown command '%s' (try 'czk help')\n", argv[1]);
    return 2;
}
