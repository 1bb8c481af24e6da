/*
 * czk — the version of the Filecoin proofs API a registered proof carries
 * (rust-fil-proofs `ApiVersion`), for seal and PoSt proofs alike: it selects the SDR
 * graph's parent order (czk/sdr.h) and PoSt's challenge indices (czk/post.h).
 */
#ifndef CZK_API_VERSION_H
#define CZK_API_VERSION_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Proofs API version of a registered proof (rust-fil-proofs `ApiVersion`). */
typedef enum czk_api_version {
    CZK_API_V1_0_0 = 0, /* StackedDrg*V1: legacy graph (predecessor last, u32 expander) */
    CZK_API_V1_1_0 = 1, /* StackedDrg*V1_1 */
    CZK_API_V1_2_0 = 2, /* the SyntheticPoRep and NonInteractivePoRep variants */
} czk_api_version;

/** "1.0.0", "1.1.0" or "1.2.0". */
CZK_API const char *czk_api_version_string(czk_api_version v);

#ifdef __cplusplus
}
#endif
#endif /* CZK_API_VERSION_H */
