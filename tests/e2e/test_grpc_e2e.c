/*
 * End to end: czkd served to independent gRPC clients (@grpc/grpc-js + @grpc/proto-loader,
 * snarkjs checking the proofs) and to the czk client, by tests/peers/grpc_e2e.mjs: health,
 * reflection, both APIs, bad input, dedup, 100 concurrent jobs, priorities, kill -9 and
 * restart, SIGTERM drain. This wrapper finds node and the peers and runs the script;
 * without them it skips (77) with a message saying what is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CZK_GRPC_PROTO_DIR
#define CZK_GRPC_PROTO_DIR "/usr/share/grpc-proto"
#endif

int main(void)
{
    const char *peers = CZK_SOURCE_DIR "/tests/peers";
    struct stat st;
    if (stat(CZK_SOURCE_DIR "/tests/peers/node_modules/@grpc/grpc-js", &st) != 0) {
        fprintf(stderr, "SKIP: %s/node_modules has no @grpc/grpc-js: run scripts/deps.sh\n", peers);
        return 77;
    }
    if (system("command -v node >/dev/null 2>&1") != 0) {
        fprintf(stderr, "SKIP: node is not installed\n");
        return 77;
    }
    char *const argv[] = {
        "node", CZK_SOURCE_DIR "/tests/peers/grpc_e2e.mjs", CZK_BINARY_DIR "/bin/czkd",
        CZK_BINARY_DIR "/bin/czk", CZK_SOURCE_DIR "/proto", CZK_GRPC_PROTO_DIR,
        CZK_BINARY_DIR "/grpc_e2e", NULL,
    };
    pid_t pid = fork();
    if (pid == 0) {
        execvp("node", argv);
        perror("node");
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
