/*
 * Private to src/gadgets: constants and small helpers shared by the gadget files.
 */
#ifndef CZK_GADGETS_INTERNAL_H
#define CZK_GADGETS_INTERNAL_H

#include "czk/gadgets.h"

/* Powers of two 2^0 .. 2^(CZK__POW2_COUNT − 1), Montgomery form: packing coefficients
 * (up to 2^253), MultiEq offsets (below 2^254) and to_bits' 2^254. */
#define CZK__POW2_COUNT 256

/** The table, derived on first use (thread-safe). */
const czk_fr *czk__gadget_pow2(void);

/** An IS Boolean for variable v with value `val`. */
static inline czk_bool czk__bool_is(czk_var v, bool val)
{
    czk_bool b = {v.id, CZK_BOOL_IS, (uint8_t)(val ? 1 : 0), 0};
    return b;
}

/** The value of a number: zero without a witness. */
static inline const czk_fr *czk__num_value(czk_cs *cs, czk_var v)
{
    return czk_cs_value(cs, v);
}

/**
 * Free an LC that was built once from czk_lc_init, without clears: one that never held
 * more than CZK_LC_INLINE terms never took heap memory (cs.h), so the call is skipped —
 * the free(NULL) of every small constraint was 4% of SHA-256 synthesis.
 */
static inline void czk__lc_release(czk_lc *lc)
{
    if (czk_lc_len(lc) > CZK_LC_INLINE) czk_lc_free(lc);
}

#endif
