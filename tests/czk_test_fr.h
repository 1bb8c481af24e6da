/*
 * Random scalars for the tests: a uniform element of Fr drawn from the run's seeded stream
 * (czk_test.h), so a failing run replays with its printed CZK_TEST_SEED. 64 random bytes
 * reduced mod r: the bias is below 2^-250.
 */
#ifndef CZK_TEST_FR_H
#define CZK_TEST_FR_H

#include "czk/bls12_381.h"
#include "czk_test.h"

static inline void czk_test_rand_fr(czk_fr *a)
{
    uint8_t w[64];
    czk_test_rand_bytes(w, 64);
    czk_fr_from_wide_bytes(a, w);
}

#endif /* CZK_TEST_FR_H */
