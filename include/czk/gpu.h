/*
 * czk — GPU discovery. Works in every build: without the CUDA backend it reports no GPUs.
 */
#ifndef CZK_GPU_H
#define CZK_GPU_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_gpu_info {
    int ordinal;
    char name[128];
    int sm_major, sm_minor;
    int sm_count;
    size_t total_mem;
    size_t free_mem;
} czk_gpu_info;

/** True when this build contains the CUDA backend. */
CZK_API bool czk_gpu_built(void);
/** Number of usable CUDA devices (0 without a driver or a device); never fails. */
CZK_API int czk_gpu_count(void);
/** Properties of device `ordinal`. */
CZK_API czk_status czk_gpu_get_info(int ordinal, czk_gpu_info *out, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
