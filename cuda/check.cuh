/*
 * One check for every CUDA runtime call: it records the expression, file, line and CUDA's
 * error string in a czk_err and returns the status from the enclosing function. No
 * exceptions and no heap strings cross the extern "C" boundary.
 */
#ifndef CZK_CUDA_CHECK_CUH
#define CZK_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include "czk/common.h"

/* A failed CUDA call as a czk status: out of device memory is CZK_ERESOURCE (the caller
 * may retry smaller), no device or driver CZK_ENOGPU, the rest CZK_ECUDA with the
 * expression, file and line. It clears CUDA's last error so the next check does not
 * report this one again. */
czk_status czk__cuda_fail(czk_err *err, cudaError_t e, const char *what, const char *file,
                          int line);

#define CZK_CUDA_TRY(err, expr)                                                                \
    do {                                                                                       \
        cudaError_t e_ = (expr);                                                               \
        if (e_ != cudaSuccess) return czk__cuda_fail((err), e_, #expr, __FILE__, __LINE__);    \
    } while (0)

/* After every kernel launch: launch-configuration errors surface here. */
#define CZK_CUDA_TRY_LAUNCH(err) CZK_CUDA_TRY(err, cudaGetLastError())

/* A czk call inside the CUDA code: its failure returns from the enclosing function (the
 * czk_err already says what failed). */
#define TRY_STATUS(expr)                                                                       \
    do {                                                                                       \
        czk_status s_ = (expr);                                                                \
        if (s_ != CZK_OK) return s_;                                                           \
    } while (0)

#endif
