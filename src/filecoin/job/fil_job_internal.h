/*
 * czk — internals of the Filecoin job layer (czk/fil_job.h): the job object every kind
 * fills, the table of circuits, and the per-kind constructors in fil_job_porep.c,
 * fil_job_snap.c and fil_job_post.c.
 */
#ifndef CZK_FILECOIN_JOB_FIL_JOB_INTERNAL_H
#define CZK_FILECOIN_JOB_FIL_JOB_INTERNAL_H

#include "czk/fil_job.h"

/* Longest circuit id ("winning-512m") and parameter file name (PoRep's: 4 + 72 + 1 + 64). */
#define CZK__FIL_ID_MAX   16
#define CZK__FIL_NAME_MAX 160

/** One circuit of the table: a proof kind at one sector size. */
typedef struct czk__fil_circuit {
    czk_fil_kind kind;
    unsigned log2_size;        /* 11, 23, 29, 35, 36 */
    uint64_t registered_proof; /* what cuzk's PreloadSRS maps the id to */
    char id[CZK__FIL_ID_MAX];
    char params_name[CZK__FIL_NAME_MAX];
} czk__fil_circuit;

/** The circuit of a kind and sector size; NULL when there is none. */
const czk__fil_circuit *czk__fil_circuit_find(czk_fil_kind kind, uint64_t sector_size);

/**
 * Sizes of one partition of a circuit, computed by a COUNT synthesis on first use and
 * cached for the life of the process (a 32 GiB count takes seconds).
 */
czk_status czk__fil_circuit_counts(const czk__fil_circuit *c, czk_cs_counts *out, czk_err *err);

/** A job. Every kind fills the common part and its own `impl`. */
struct czk_fil_job {
    const czk__fil_circuit *circuit;
    size_t partitions;
    czk_cs_counts counts;
    size_t n_inputs;  /* public inputs per partition, ONE excluded */
    czk_fr *inputs;   /* partitions × n_inputs, computed at creation */
    /* PoRep: SHA-256 of the C1 in canonical form (czk_porep_c1_write_json of the parsed C1). */
    bool has_digest;
    uint8_t digest[32];
    void *impl;
    czk_status (*synthesize)(const czk_fil_job *j, size_t p, czk_cs *cs);
    /* The same on a thread pool; NULL: the kind has no parallel synthesis. */
    czk_status (*synthesize_pool)(const czk_fil_job *j, size_t p, czk_cs *cs, czk_pool *pool);
    void (*destroy_impl)(void *impl);
};

/**
 * The circuit a request names by its kind, registered proof and sector size alone, with
 * those three fields checked (errors name them); the payload is not looked at.
 */
czk_status czk__fil_circuit_resolve(const czk_fil_job_input *in, const czk__fil_circuit **out,
                                    czk_err *err);

/* Per-kind constructors, called with j->circuit already resolved: check the rest of `in`
 * completely and fill `j` (partitions, n_inputs, inputs, impl, synthesize, destroy_impl);
 * on error leave nothing allocated in `j` that destroy_impl and czk_free(j->inputs) would
 * not release. */
czk_status czk__fil_porep_create(czk_fil_job *j, const czk_fil_job_input *in, czk_err *err);
czk_status czk__fil_snap_create(czk_fil_job *j, const czk_fil_job_input *in, czk_err *err);
czk_status czk__fil_post_create(czk_fil_job *j, const czk_fil_job_input *in, czk_err *err);

/* Shape-only synthesis of one circuit (no witness), used by
 * czk_fil_circuit_synthesize_shape and by the counts. */
czk_status czk__fil_porep_shape(const czk__fil_circuit *c, czk_cs *cs);
czk_status czk__fil_snap_shape(const czk__fil_circuit *c, czk_cs *cs);
czk_status czk__fil_post_shape(const czk__fil_circuit *c, czk_cs *cs);

/* COUNT-mode sizes of one partition, by each kind's fastest exact method. */
czk_status czk__fil_porep_count(const czk__fil_circuit *c, czk_cs_counts *out, czk_err *err);
czk_status czk__fil_snap_count(const czk__fil_circuit *c, czk_cs_counts *out, czk_err *err);
czk_status czk__fil_post_count(const czk__fil_circuit *c, czk_cs_counts *out, czk_err *err);

/** Format an error with a prefix in front of a message from a lower layer. */
czk_status czk__fil_err_wrap(czk_err *err, czk_status s, const char *prefix, const czk_err *inner);

#endif /* CZK_FILECOIN_JOB_FIL_JOB_INTERNAL_H */
