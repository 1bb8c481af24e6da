/*
 * Runs one of the node test peers (the .mjs scripts in tests/peers) against the built czkd and czk:
 * `node SCRIPT CZKD CZK PROTO_DIR GRPC_PROTO_DIR WORK_DIR ARGS...`. Without node or the
 * peers' packages it returns 77 (CTest's skip) with a message saying what is missing.
 */
#ifndef CZK_TEST_NODE_PEER_H
#define CZK_TEST_NODE_PEER_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CZK_GRPC_PROTO_DIR
#define CZK_GRPC_PROTO_DIR "/usr/share/grpc-proto"
#endif

static int run_node_peer(const char *script, const char *work, const char *const *args, int nargs)
{
    struct stat st;
    if (stat(CZK_SOURCE_DIR "/tests/peers/node_modules/@grpc/grpc-js", &st) != 0) {
        fprintf(stderr, "SKIP: %s/tests/peers/node_modules has no @grpc/grpc-js: run scripts/deps.sh\n",
                CZK_SOURCE_DIR);
        return 77;
    }
    if (system("command -v node >/dev/null 2>&1") != 0) {
        fprintf(stderr, "SKIP: node is not installed\n");
        return 77;
    }
    const char *argv[16] = {"node", script, CZK_BINARY_DIR "/bin/czkd", CZK_BINARY_DIR "/bin/czk",
                            CZK_SOURCE_DIR "/proto", CZK_GRPC_PROTO_DIR, work};
    int n = 7;
    for (int i = 0; i < nargs && n < 15; i++) argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        execvp("node", (char *const *)argv);
        perror("node");
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

#endif /* CZK_TEST_NODE_PEER_H */
