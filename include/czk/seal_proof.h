/*
 * czk — Filecoin's registered seal proofs and the ids they fix, byte for byte as
 * rust-fil-proofs and rust-filecoin-proofs-api compute them (docs/formats.md §5.1, §5.5,
 * §5.6): names, Go abi numbers, per-size parameters, porep_id, prover_id and replica_id.
 */
#ifndef CZK_SEAL_PROOF_H
#define CZK_SEAL_PROOF_H

#include "czk/api_version.h"
#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** PoRep feature of a registered proof (rust-fil-proofs `ApiFeature`). */
typedef enum czk_seal_feature {
    CZK_SEAL_FEATURE_INTERACTIVE = 0,
    CZK_SEAL_FEATURE_SYNTHETIC = 1,
    CZK_SEAL_FEATURE_NON_INTERACTIVE = 2,
} czk_seal_feature;

/*
 * RegisteredSealProof, one row per variant: name as rust-filecoin-proofs-api spells it
 * (also Go's abi.RegisteredSealProof_<name>), id (the abi number, which is also the
 * first u64 of porep_id), log2 of the sector size, API version and feature. The enum
 * value of CZK_SEAL_<name> is the id.
 */
#define CZK_SEAL_PROOF_MAP(X)                                                                      \
    X(StackedDrg2KiBV1, 0, 11, CZK_API_V1_0_0, CZK_SEAL_FEATURE_INTERACTIVE)                       \
    X(StackedDrg8MiBV1, 1, 23, CZK_API_V1_0_0, CZK_SEAL_FEATURE_INTERACTIVE)                       \
    X(StackedDrg512MiBV1, 2, 29, CZK_API_V1_0_0, CZK_SEAL_FEATURE_INTERACTIVE)                     \
    X(StackedDrg32GiBV1, 3, 35, CZK_API_V1_0_0, CZK_SEAL_FEATURE_INTERACTIVE)                      \
    X(StackedDrg64GiBV1, 4, 36, CZK_API_V1_0_0, CZK_SEAL_FEATURE_INTERACTIVE)                      \
    X(StackedDrg2KiBV1_1, 5, 11, CZK_API_V1_1_0, CZK_SEAL_FEATURE_INTERACTIVE)                     \
    X(StackedDrg8MiBV1_1, 6, 23, CZK_API_V1_1_0, CZK_SEAL_FEATURE_INTERACTIVE)                     \
    X(StackedDrg512MiBV1_1, 7, 29, CZK_API_V1_1_0, CZK_SEAL_FEATURE_INTERACTIVE)                   \
    X(StackedDrg32GiBV1_1, 8, 35, CZK_API_V1_1_0, CZK_SEAL_FEATURE_INTERACTIVE)                    \
    X(StackedDrg64GiBV1_1, 9, 36, CZK_API_V1_1_0, CZK_SEAL_FEATURE_INTERACTIVE)                    \
    X(StackedDrg2KiBV1_1_Feat_SyntheticPoRep, 10, 11, CZK_API_V1_2_0, CZK_SEAL_FEATURE_SYNTHETIC)  \
    X(StackedDrg8MiBV1_1_Feat_SyntheticPoRep, 11, 23, CZK_API_V1_2_0, CZK_SEAL_FEATURE_SYNTHETIC)  \
    X(StackedDrg512MiBV1_1_Feat_SyntheticPoRep, 12, 29, CZK_API_V1_2_0,                            \
      CZK_SEAL_FEATURE_SYNTHETIC)                                                                  \
    X(StackedDrg32GiBV1_1_Feat_SyntheticPoRep, 13, 35, CZK_API_V1_2_0, CZK_SEAL_FEATURE_SYNTHETIC) \
    X(StackedDrg64GiBV1_1_Feat_SyntheticPoRep, 14, 36, CZK_API_V1_2_0, CZK_SEAL_FEATURE_SYNTHETIC) \
    X(StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, 15, 11, CZK_API_V1_2_0,                         \
      CZK_SEAL_FEATURE_NON_INTERACTIVE)                                                            \
    X(StackedDrg8MiBV1_2_Feat_NonInteractivePoRep, 16, 23, CZK_API_V1_2_0,                         \
      CZK_SEAL_FEATURE_NON_INTERACTIVE)                                                            \
    X(StackedDrg512MiBV1_2_Feat_NonInteractivePoRep, 17, 29, CZK_API_V1_2_0,                       \
      CZK_SEAL_FEATURE_NON_INTERACTIVE)                                                            \
    X(StackedDrg32GiBV1_2_Feat_NonInteractivePoRep, 18, 35, CZK_API_V1_2_0,                        \
      CZK_SEAL_FEATURE_NON_INTERACTIVE)                                                            \
    X(StackedDrg64GiBV1_2_Feat_NonInteractivePoRep, 19, 36, CZK_API_V1_2_0,                        \
      CZK_SEAL_FEATURE_NON_INTERACTIVE)

typedef enum czk_seal_proof {
#define CZK__SEAL_ENUM(name, id, log2size, ver, feat) CZK_SEAL_##name = id,
    CZK_SEAL_PROOF_MAP(CZK__SEAL_ENUM)
#undef CZK__SEAL_ENUM
        CZK_SEAL_PROOF_COUNT = 20
} czk_seal_proof;

/** Everything the proof system fixes for one registered seal proof. */
typedef struct czk_seal_proof_info {
    czk_seal_proof proof;
    const char *name;     /* "StackedDrg32GiBV1_1" */
    uint64_t sector_size; /* bytes */
    uint64_t nodes;       /* sector_size / 32 */
    czk_api_version api_version;
    czk_seal_feature feature;
    unsigned layers;                   /* 2 (test sizes) or 11 */
    unsigned partitions;               /* 1 / 10 interactive; 13 / 126 non-interactive */
    unsigned min_challenges;           /* 2 / 176 interactive; 26 / 2253 non-interactive */
    unsigned challenges_per_partition; /* ceil(min_challenges / partitions): 2 or 18 */
    /* Shape of tree_c and tree_r_last: base arity (8), sub-tree arity (0 or 8) and top
     * arity (0 or 2), as filecoin-proofs' SectorShape types. */
    unsigned tree_base_arity, tree_sub_arity, tree_top_arity;
} czk_seal_proof_info;

/** The info of a registered seal proof; NULL for a value outside the enum. */
CZK_API const czk_seal_proof_info *czk_seal_proof_get(czk_seal_proof proof);

/** "StackedDrg2KiBV1" etc.; NULL for a value outside the enum. */
CZK_API const char *czk_seal_proof_name(czk_seal_proof proof);

/**
 * Parse a registered seal proof name, as spelled by rust-filecoin-proofs-api
 * ("StackedDrg32GiBV1_1") or with Go's "RegisteredSealProof_" prefix. Case-sensitive.
 * CZK_EINVAL for anything else, with a message naming the unknown name and the valid ones.
 */
CZK_API czk_status czk_seal_proof_parse(const char *name, czk_seal_proof *out, czk_err *err);

/** porep_id = u64 LE proof id ‖ u64 LE nonce (0 for every proof) ‖ 16 zero bytes. */
CZK_API void czk_seal_porep_id(uint8_t out[32], czk_seal_proof proof);

/**
 * prover_id of a miner actor id: the payload of its Filecoin ID address, i.e. the
 * unsigned LEB128 encoding of the id, zero-padded to 32 bytes.
 */
CZK_API void czk_seal_prover_id_from_actor(uint8_t out[32], uint64_t actor_id);

/**
 * replica_id = SHA-256(prover_id ‖ sector_id as u64 BE ‖ ticket ‖ comm_d ‖ porep_id) with
 * the two top bits of byte 31 cleared, so that it is a canonical Fr element in
 * little-endian bytes (rust-fil-proofs `generate_replica_id`). CZK_EINTERNAL only when
 * OpenSSL fails.
 */
CZK_API czk_status czk_seal_replica_id(uint8_t out[32], const uint8_t prover_id[32],
                                       uint64_t sector_id, const uint8_t ticket[32],
                                       const uint8_t comm_d[32], const uint8_t porep_id[32],
                                       czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_SEAL_PROOF_H */
