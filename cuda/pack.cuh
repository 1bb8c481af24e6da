/*
 * The GPU side of packed vectors (include/czk/pack.h): the expansion of a packed vector of
 * Fr into the plain one, in the form the prover wants it. Per element: its word of each
 * bitmap and the word's running count (one 20-byte load shared by 64 threads through the
 * cache), a population count below the element, and a load of its value when it has one.
 * It writes the whole vector once: at 2^27 elements 4 GiB at ~4 TB/s, about a millisecond,
 * against the 76 ms a plain 4 GiB copy takes over PCIe.
 *
 * The body takes its element index explicitly and is __host__ __device__, so the host test
 * (tests/unit/test_pack.cpp) runs it on the CPU against czk_unpack_vec.
 */
#ifndef CZK_CUDA_PACK_CUH
#define CZK_CUDA_PACK_CUH

#include <stddef.h>
#include <stdint.h>

#include "ff.cuh"

namespace czk_gpu {
namespace pack {

/* Element i of the vector: 0, one (`one`, in the output's form) or its value, which
 * CANON turns from Montgomery form into canonical limbs (the witness, as the MSMs read it);
 * otherwise it is written as stored (a, b, c for the transforms). */
template <bool CANON>
CZK_HD void expand_body(size_t i, fr_t *dst, const uint64_t *ones, const uint64_t *others,
                        const uint32_t *prefix, const fr_t *vals, const fr_t &one)
{
    const size_t w = i / 64;
    const uint64_t bit = (uint64_t)1 << (i % 64);
    const uint64_t ow = others[w];
    if (ow & bit) {
        const fr_t v = vals[prefix[w] + popc64(ow & (bit - 1))];
        dst[i] = CANON ? v.from_mont() : v;
    } else {
        dst[i] = (ones[w] & bit) ? one : fr_t::zero();
    }
}

#if defined(__CUDACC__)
template <bool CANON>
__global__ void expand_kernel(fr_t *dst, size_t n, const uint64_t *ones, const uint64_t *others,
                              const uint32_t *prefix, const fr_t *vals, fr_t one)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        expand_body<CANON>(i, dst, ones, others, prefix, vals, one);
}
#endif

} // namespace pack
} // namespace czk_gpu

#endif
