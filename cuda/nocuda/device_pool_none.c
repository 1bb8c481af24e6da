/* The device memory pool for builds without the CUDA backend: there is none to trim or
 * measure. */
#include "czk/gpu.h"

#include <string.h>

void czk_gpu_msm_trim(int gpu) { (void)gpu; }

void czk_gpu_pool_stats(int gpu, czk_gpu_pool_usage *out, bool reset_high)
{
    (void)gpu, (void)reset_high;
    memset(out, 0, sizeof *out);
}
