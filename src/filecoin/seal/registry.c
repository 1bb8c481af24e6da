/*
 * Registered seal proofs, porep_id, prover_id and replica_id.
 *
 * Sources: rust-filecoin-proofs-api src/registry.rs (names, ids, versions, porep_id,
 * partitions), rust-fil-proofs filecoin-proofs/src/constants.rs (layers, partitions,
 * minimum challenges, sector shapes) and parameters.rs (challenges per partition =
 * ceil(min / partitions)), storage-proofs-porep/src/stacked/vanilla/params.rs
 * (generate_replica_id).
 */
#include "filecoin/seal/sdr_internal.h"

#include <openssl/evp.h>
#include <string.h>

#define GO_PREFIX "RegisteredSealProof_"

static czk_seal_proof_info infos[CZK_SEAL_PROOF_COUNT];
static bool infos_ready;

/* The per-size numbers: production sizes (32 and 64 GiB) have 11 layers, 10 interactive
 * partitions and 176 minimum challenges; the test sizes 2 layers, 1 partition and 2.
 * Non-interactive PoRep needs 2253 (production) or 26 challenges over 126 or 13
 * partitions, chosen so that a partition again holds 18 or 2 challenges and the same
 * circuits and parameter files serve. */
static void fill_info(czk_seal_proof_info *info, czk_seal_proof proof, const char *name,
                      unsigned log2size, czk_api_version ver, czk_seal_feature feat)
{
    bool production = log2size >= 35;
    info->proof = proof;
    info->name = name;
    info->sector_size = 1ULL << log2size;
    info->nodes = info->sector_size / 32;
    info->api_version = ver;
    info->feature = feat;
    info->layers = production ? 11 : 2;
    if (feat == CZK_SEAL_FEATURE_NON_INTERACTIVE) {
        info->partitions = production ? 126 : 13;
        info->min_challenges = production ? 2253 : 26;
    } else {
        info->partitions = production ? 10 : 1;
        info->min_challenges = production ? 176 : 2;
    }
    info->challenges_per_partition =
        (info->min_challenges + info->partitions - 1) / info->partitions;
    /* SectorShapeBase (8-0-0) for 2 KiB, 8 MiB and 512 MiB; Sub8 (8-8-0) for 32 GiB;
     * Top2 (8-8-2) for 64 GiB. */
    info->tree_base_arity = 8;
    info->tree_sub_arity = log2size >= 35 ? 8 : 0;
    info->tree_top_arity = log2size >= 36 ? 2 : 0;
}

/* The table is a pure function of the X-macro, so filling it twice from two threads
 * writes the same bytes; the flag only saves the work. */
static void ensure_infos(void)
{
    if (__atomic_load_n(&infos_ready, __ATOMIC_ACQUIRE)) return;
#define CZK__SEAL_FILL(name, id, log2size, ver, feat)                                              \
    fill_info(&infos[id], (czk_seal_proof)(id), #name, log2size, ver, feat);
    CZK_SEAL_PROOF_MAP(CZK__SEAL_FILL)
#undef CZK__SEAL_FILL
    __atomic_store_n(&infos_ready, true, __ATOMIC_RELEASE);
}

const czk_seal_proof_info *czk_seal_proof_get(czk_seal_proof proof)
{
    if ((unsigned)proof >= CZK_SEAL_PROOF_COUNT) return NULL;
    ensure_infos();
    return &infos[proof];
}

const char *czk_seal_proof_name(czk_seal_proof proof)
{
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    return info != NULL ? info->name : NULL;
}

const char *czk_api_version_string(czk_api_version v)
{
    switch (v) {
    case CZK_API_V1_0_0:
        return "1.0.0";
    case CZK_API_V1_1_0:
        return "1.1.0";
    case CZK_API_V1_2_0:
        return "1.2.0";
    }
    return "unknown";
}

czk_status czk_seal_proof_parse(const char *name, czk_seal_proof *out, czk_err *err)
{
    if (name == NULL || out == NULL)
        return czk_err_set(err, CZK_EINVAL, "registered seal proof: no name given");
    const char *bare = name;
    if (strncmp(bare, GO_PREFIX, strlen(GO_PREFIX)) == 0) bare += strlen(GO_PREFIX);
    for (unsigned i = 0; i < CZK_SEAL_PROOF_COUNT; i++) {
        const czk_seal_proof_info *info = czk_seal_proof_get((czk_seal_proof)i);
        if (strcmp(bare, info->name) == 0) {
            *out = info->proof;
            return CZK_OK;
        }
    }
    /* The twenty names do not fit the error buffer one by one; their product form does. */
    return czk_err_set(err, CZK_EINVAL,
                       "unknown registered seal proof '%.100s'; valid names are "
                       "StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB} followed by one of "
                       "V1, V1_1, V1_1_Feat_SyntheticPoRep, V1_2_Feat_NonInteractivePoRep "
                       "(e.g. StackedDrg32GiBV1_1)",
                       name);
}

static void store64_le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void czk_seal_porep_id(uint8_t out[32], czk_seal_proof proof)
{
    /* Every registered proof has nonce 0 (registry.rs `nonce`). */
    const uint64_t nonce = 0;
    memset(out, 0, 32);
    store64_le(out, (uint64_t)proof);
    store64_le(out + 8, nonce);
}

void czk_seal_prover_id_from_actor(uint8_t out[32], uint64_t actor_id)
{
    memset(out, 0, 32);
    size_t i = 0;
    do {
        uint8_t b = actor_id & 0x7f;
        actor_id >>= 7;
        out[i++] = actor_id != 0 ? (uint8_t)(b | 0x80) : b;
    } while (actor_id != 0);
}

czk_status czk__sha256_parts(uint8_t out[32], const void *const *parts, const size_t *lens,
                             size_t n)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL) return CZK_EINTERNAL;
    bool ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
    for (size_t i = 0; ok && i < n; i++) ok = EVP_DigestUpdate(ctx, parts[i], lens[i]) == 1;
    unsigned len = 0;
    ok = ok && EVP_DigestFinal_ex(ctx, out, &len) == 1 && len == 32;
    EVP_MD_CTX_free(ctx);
    return ok ? CZK_OK : CZK_EINTERNAL;
}

czk_status czk_seal_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                               const uint8_t ticket[32], const uint8_t comm_d[32],
                               const uint8_t porep_id[32], czk_err *err)
{
    uint8_t sector_be[8];
    for (int i = 0; i < 8; i++) sector_be[i] = (uint8_t)(sector_id >> (56 - 8 * i));
    const void *parts[5] = {prover_id, sector_be, ticket, comm_d, porep_id};
    const size_t lens[5] = {32, 8, 32, 32, 32};
    if (czk__sha256_parts(out, parts, lens, 5) != CZK_OK)
        return czk_err_set(err, CZK_EINTERNAL, "replica_id: OpenSSL SHA-256 failed");
    /* bytes_into_fr_repr_safe: clear the top two bits so the LE value is below r. */
    out[31] &= 0x3f;
    return CZK_OK;
}
