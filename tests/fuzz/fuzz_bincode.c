/* libFuzzer: the bincode vanilla proofs of SnapDeals (PartitionProof) and PoSt
 * (FallbackPoStSectorProof); the first byte picks the parser. A parse that succeeds must
 * write back to the same bytes (bincode has one encoding per value). */
#include "czk/alloc.h"
#include "czk/post_vanilla.h"
#include "czk/snap_vanilla.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    czk_err err;
    uint8_t *out = NULL;
    size_t out_len = 0;
    if (data[0] & 1) {
        czk_snap_partition_proof *p = NULL;
        if (czk_snap_partition_proof_parse(&p, data + 1, size - 1, &err) == CZK_OK) {
            if (czk_snap_partition_proof_write(p, &out, &out_len, &err) == CZK_OK &&
                (out_len != size - 1 || memcmp(out, data + 1, out_len) != 0))
                abort();
            czk_snap_partition_proof_free(p);
        }
    } else {
        czk_post_sector_proof *p = NULL;
        if (czk_post_sector_proof_parse(&p, data + 1, size - 1, &err) == CZK_OK) {
            if (czk_post_sector_proof_write(p, &out, &out_len, &err) == CZK_OK &&
                (out_len != size - 1 || memcmp(out, data + 1, out_len) != 0))
                abort();
            czk_post_sector_proof_free(p);
        }
    }
    czk_free(out);
    return 0;
}
