/* libFuzzer: bellperson .params (header, section lengths, points) and .vk readers; the
 * first byte picks which. */
#include "czk/groth16.h"
#include "fuzz_file_formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    czk_err err;
    if (data[0] & 1) {
        czk_groth16_vk vk;
        if (czk_groth16_vk_read(&vk, data + 1, size - 1, &err) == CZK_OK) czk_groth16_vk_free(&vk);
        return 0;
    }
    const char *p = fuzz_path(data + 1, size - 1);
    if (!p) return 0;
    czk_groth16_params pk;
    if (czk_groth16_params_read_file(&pk, p, false, NULL, &err) == CZK_OK) czk_groth16_params_free(&pk);
    return 0;
}
