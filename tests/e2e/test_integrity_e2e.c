/*
 * End to end, by tests/peers/jobs_e2e.mjs in its "integrity" mode: czkd driven by
 * @grpc/grpc-js over a unix socket, proofs checked by snarkjs and `czk verify`: requests
 * naming another sector than their vanilla proofs', ids and names that are not strings,
 * stored proofs changed or swapped in the journal, a damaged journal page (python3's
 * sqlite3 edits the journal between runs). Without node, the peers or python3's sqlite3
 * it skips (77).
 */
#include "node_peer.h"

int main(void)
{
    if (system("python3 -c 'import sqlite3' 2>/dev/null") != 0) {
        fprintf(stderr, "SKIP: python3 with sqlite3 is not installed\n");
        return 77;
    }
    const char *args[] = {"integrity"};
    return run_node_peer(CZK_SOURCE_DIR "/tests/peers/jobs_e2e.mjs", CZK_BINARY_DIR "/jobs_e2e", args, 1);
}
