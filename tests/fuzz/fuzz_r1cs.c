/* libFuzzer: circom .r1cs reader. */
#include "czk/groth16.h"
#include "fuzz_file_formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fuzz_path(data, size);
    if (!p) return 0;
    czk_r1cs r;
    czk_err err;
    if (czk_r1cs_read_file(&r, p, &err) == CZK_OK) czk_r1cs_free(&r);
    return 0;
}
