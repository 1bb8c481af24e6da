/*
 * End to end: czkd served to independent gRPC clients (@grpc/grpc-js + @grpc/proto-loader,
 * snarkjs checking the proofs) and to the czk client, by tests/peers/grpc_e2e.mjs: health,
 * reflection, both APIs, bad input, dedup, 100 concurrent jobs, priorities, kill -9 and
 * restart, SIGTERM drain.
 * Without node or the peers it skips (77) with a message saying what is missing.
 */
#include "node_peer.h"

int main(void)
{
    return run_node_peer(CZK_SOURCE_DIR "/tests/peers/grpc_e2e.mjs", CZK_BINARY_DIR "/grpc_e2e", NULL, 0);
}
