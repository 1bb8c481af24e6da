/* libFuzzer: PoRep C1 input as the daemon gets it: cuzk's envelope, then the C1 JSON
 * parser, then the structural check (2 KiB shape, so each input is cheap). */
#include "czk/alloc.h"
#include "czk/porep_vanilla.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    czk_err err;
    uint8_t *inner = NULL;
    size_t inner_len = 0;
    uint64_t num, sz;
    const uint8_t *json = data;
    size_t len = size;
    if (czk_porep_envelope_decode(data, size, &inner, &inner_len, &num, &sz, &err) == CZK_OK) {
        json = inner;
        len = inner_len;
    }
    czk_porep_c1_output *c1 = NULL;
    if (czk_porep_c1_parse_json(&c1, json, len, &err) == CZK_OK) {
        (void)czk_porep_c1_check(c1, CZK_SEAL_StackedDrg2KiBV1_1, &err);
        czk_porep_c1_output_free(c1);
    }
    czk_free(inner);
    return 0;
}
