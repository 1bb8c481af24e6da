/* Private to src/ff: modular inversion by the Bernstein–Yang "safegcd" method. */
#ifndef CZK_FF_INVERSE_H
#define CZK_FF_INVERSE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * out = x^-1 mod p for canonical limbs x < p (an integer, no Montgomery factor), and 0
 * for x = 0. Variable time: for public values only. Returns false, leaving out
 * untouched, only if the iteration guard trips (never observed; callers then fall back
 * to Fermat inversion so that a result is always produced).
 */
bool czk__fp_inv_safegcd(uint64_t out[6], const uint64_t x[6]);

/* The same modulo r, the scalar field. */
bool czk__fr_inv_safegcd(uint64_t out[4], const uint64_t x[4]);

#endif
