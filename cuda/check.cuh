/*
 * One check macro for every CUDA runtime call: it records the expression, file, line and
 * CUDA's error string in a czk_err and returns CZK_ECUDA from the enclosing function.
 * No exceptions and no heap strings cross the extern "C" boundary.
 */
#ifndef CZK_CUDA_CHECK_CUH
#define CZK_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include "czk/common.h"

#define CZK_CUDA_TRY(err, expr)                                                                \
    do {                                                                                       \
        cudaError_t e_ = (expr);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            return czk_err_set((err), CZK_ECUDA, "%s failed at %s:%d: %s (%s)", #expr,        \
                               __FILE__, __LINE__, cudaGetErrorString(e_),                     \
                               cudaGetErrorName(e_));                                          \
        }                                                                                      \
    } while (0)

/* After every kernel launch: launch-configuration errors surface here. */
#define CZK_CUDA_TRY_LAUNCH(err) CZK_CUDA_TRY(err, cudaGetLastError())

#endif
