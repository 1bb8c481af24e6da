/* Private to src/ff and src/ec: the two multiplication back ends, tied by a test. */
#ifndef CZK_FF_INTERNAL_H
#define CZK_FF_INTERNAL_H

#include "czk/bls12_381.h"

/* Portable back end (unsigned __int128), always built. */
void czk__fp_mul_portable(czk_fp *out, const czk_fp *a, const czk_fp *b);
void czk__fp_sqr_portable(czk_fp *out, const czk_fp *a);
void czk__fr_mul_portable(czk_fr *out, const czk_fr *a, const czk_fr *b);
void czk__fr_sqr_portable(czk_fr *out, const czk_fr *a);

#if defined(CZK_FF_ADX)
/* x86-64 mulx/adcx/adox back end (src/ff/ff_adx.c), built when CZK_FF_ADX is on. */
void czk__fp_mul_adx(czk_fp *out, const czk_fp *a, const czk_fp *b);
void czk__fp_sqr_adx(czk_fp *out, const czk_fp *a);
void czk__fr_mul_adx(czk_fr *out, const czk_fr *a, const czk_fr *b);
void czk__fr_sqr_adx(czk_fr *out, const czk_fr *a);
#endif

#endif
