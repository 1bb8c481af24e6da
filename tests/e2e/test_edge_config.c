/*
 * czkd's edge, configuration side (tests/peers/edge_e2e.mjs config): a token source that
 * yields no token and faulty TLS material stop the start naming the file and the fault;
 * the HTTP endpoint answers 431, 400/413, 405 and 408 within bounded time, HEAD without a
 * body, and caps its connections; the unix socket never exists with a mode but its own
 * (a preloaded chmod that sleeps, czk_slow_chmod, would widen any window).
 */
#include "node_peer.h"

int main(void)
{
    const char *args[] = {"config", CZK_SLOW_CHMOD};
    return run_node_peer(CZK_SOURCE_DIR "/tests/peers/edge_e2e.mjs", CZK_BINARY_DIR "/edge_config", args, 2);
}
