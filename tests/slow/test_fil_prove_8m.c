/*
 * End to end on the CPU, PoRep C2 at 8 MiB (label slow: the test parameters take many
 * minutes to generate on two cores the first time and are then kept in the build tree):
 * an 8 MiB sector sealed on the CPU (czk_sector_seal) → C1 (czk_porep_c1_from_sector) →
 * C1 JSON inside cuzk's envelope → czk_fil_job → prove → verify, and the same from a
 * synthetic C1 fixture (czk_porep_fixture); each proof fails against the other's inputs.
 */
#include "e2e/fil_prove_porep.h"

static czk_pool *pool;

static void test_porep_8m(void)
{
    fp_porep_sealed_and_fixture(CZK_SEAL_StackedDrg8MiBV1_1, "porep-8m", pool);
}

int main(void)
{
    czk_test_seed();
    czk_err err;
    if (czk_pool_create(&pool, 0, &err) != CZK_OK) {
        fprintf(stderr, "pool: %s\n", err.msg);
        return 1;
    }
    RUN(test_porep_8m);
    czk_pool_destroy(pool);
    return czk_test_finish();
}
