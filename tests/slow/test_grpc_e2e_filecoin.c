/*
 * End to end, Filecoin: czkd proves a WindowPoSt 2 KiB partition (from `czk fixture wpost`,
 * with parameters from `czk setup --circuit wpost-2k`) for @grpc/grpc-js through cuzk.v1
 * (what Curio sends), and for `czk run-job --fixture`; tests/peers/grpc_e2e.mjs in its
 * filecoin mode. Slow: the parameter setup takes ~20 s and the CPU proof ~10 s on a loaded
 * 2-core machine. Skips (77) without node or the peers.
 */
#include "e2e/node_peer.h"

int main(void)
{
    const char *args[] = {"filecoin"};
    return run_node_peer(CZK_SOURCE_DIR "/tests/peers/grpc_e2e.mjs", CZK_BINARY_DIR "/grpc_e2e_filecoin", args, 1);
}
