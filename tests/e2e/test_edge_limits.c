/*
 * czkd's edge under load from hostile peers (tests/peers/edge_e2e.mjs limits): more
 * connections than the process has descriptors (refused beyond the cap, NOT_SERVING
 * meanwhile, served again after; accept4 failing with EMFILE, injected by the preloaded
 * czk_emfile_accept, likewise), 200 MiB-class Submits without a token (answered before
 * they are read), a gzip bomb (refused uninflated), HTTP/2 rapid reset (the connection is
 * closed), and queued payloads bounded in bytes.
 */
#include "node_peer.h"

int main(void)
{
    const char *args[] = {"limits", CZK_EMFILE_ACCEPT};
    return run_node_peer(CZK_SOURCE_DIR "/tests/peers/edge_e2e.mjs", CZK_BINARY_DIR "/edge_limits", args, 2);
}
