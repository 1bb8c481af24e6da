/*
 * End to end, by tests/peers/jobs_e2e.mjs in its "curio" mode: czkd driven by @grpc/grpc-js
 * over a unix socket, proofs checked by snarkjs and `czk verify`. Issue 21: retries
 * under one request_id (after a cancel, a failure, a Forget), the same C1 re-encoded as the
 * same job, client faults as INVALID_ARGUMENT, a missing parameter file refused before the
 * payload is read, refused calls logged and counted, cuzk.v1 GetStatus without circom and
 * in milliseconds under a CPU proof, the drain bounded by its grace on the CPU back end.
 * This wrapper finds node and the peers and runs the script; without them it skips (77).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CZK_GRPC_PROTO_DIR
#define CZK_GRPC_PROTO_DIR "/usr/share/grpc-proto"
#endif

int main(void)
{
    struct stat st;
    if (stat(CZK_SOURCE_DIR "/tests/peers/node_modules/@grpc/grpc-js", &st) != 0) {
        printf("SKIP: tests/peers/node_modules has no @grpc/grpc-js: run scripts/deps.sh\n");
        return 77;
    }
    if (system("command -v node >/dev/null 2>&1") != 0) {
        printf("SKIP: node is not installed\n");
        return 77;
    }

    char *const argv[] = {
        "node", CZK_SOURCE_DIR "/tests/peers/jobs_e2e.mjs", CZK_BINARY_DIR "/bin/czkd",
        CZK_BINARY_DIR "/bin/czk", CZK_SOURCE_DIR "/proto", CZK_GRPC_PROTO_DIR,
        CZK_BINARY_DIR "/jobs_e2e", "curio", NULL,
    };
    fflush(stdout);
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
