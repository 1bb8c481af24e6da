/*
 * SnapDeals vanilla proofs at sizes too slow for the unit tier: a real 8 MiB sector
 * (seal, update, prove and verify 4 partitions: about 25 s on 2 cores) and the 32 GiB
 * synthetic fixture against the full 81 M-constraint partition circuit (minutes, a few
 * GB). The helpers and the tests live in tests/unit/test_snap_post_vanilla.c.
 */
#define CZK_SNAP_POST_VANILLA_SLOW 1
/* The unit file's other tests are compiled in but not run here. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../unit/test_snap_post_vanilla.c"

int main(void)
{
    czk_test_seed();
    RUN(test_snap_real_8m);
    RUN(test_snap_fixture_32g_circuit);
    return czk_test_finish();
}
