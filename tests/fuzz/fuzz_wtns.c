/* libFuzzer: circom .wtns reader (what a circom job's client uploads). */
#include "czk/alloc.h"
#include "czk/groth16.h"
#include "fuzz_file_formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fuzz_path(data, size);
    if (!p) return 0;
    czk_fr *w = NULL;
    size_t n = 0;
    czk_err err;
    if (czk_wtns_read_file(&w, &n, p, &err) == CZK_OK) czk_free(w);
    return 0;
}
