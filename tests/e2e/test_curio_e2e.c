/*
 * End to end, by tests/peers/jobs_e2e.mjs in its "curio" mode: czkd driven by @grpc/grpc-js
 * over a unix socket, proofs checked by snarkjs and `czk verify`: retries under one
 * request_id (after a cancel, a failure, a Forget), the same C1 re-encoded as the same
 * job, client faults as INVALID_ARGUMENT, a missing parameter file refused before the
 * payload is read, refused calls logged and counted, cuzk.v1 GetStatus without circom and
 * in milliseconds under a CPU proof, the drain bounded by its grace on the CPU back end.
 * Without node or the peers it skips (77).
 */
#include "node_peer.h"

int main(void)
{
    const char *args[] = {"curio"};
    return run_node_peer(CZK_SOURCE_DIR "/tests/peers/jobs_e2e.mjs", CZK_BINARY_DIR "/jobs_e2e", args, 1);
}
