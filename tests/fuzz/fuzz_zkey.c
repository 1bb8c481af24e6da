/* libFuzzer: snarkjs .zkey reader (sections, sizes, points on the curve). */
#include "czk/groth16.h"
#include "fuzz_file_formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fuzz_path(data, size);
    if (!p) return 0;
    czk_groth16_params pk;
    czk_r1cs ab;
    czk_err err;
    if (czk_zkey_read_file(&pk, &ab, p, &err) == CZK_OK) {
        czk_groth16_params_free(&pk);
        czk_r1cs_free(&ab);
    }
    return 0;
}
