/*
 * The status mapping (czk_status → gRPC code, in this one function) and the name tables
 * that the server and the czk client share.
 */
#include "server.h"

#include <string.h>

grpc_status_code czk__grpc_code(czk_status s, bool job_lookup)
{
    switch (s) {
    case CZK_OK: return GRPC_STATUS_OK;
    /* The client sent something wrong: retrying the same request cannot help. */
    case CZK_EINVAL:
    case CZK_EFORMAT:
    case CZK_ETRUNCATED:
    case CZK_ENONCANONICAL:
    case CZK_EBADFLAGS:
    case CZK_ENOTONCURVE:
    case CZK_ENOTINSUBGROUP:
    case CZK_EINFINITY: return GRPC_STATUS_INVALID_ARGUMENT;
    /* The engine answers ENOENT for an unknown job id and for a missing parameter file;
     * the latter is "the system is not in a state to run this", not the client's typo. */
    case CZK_ENOENT: return job_lookup ? GRPC_STATUS_NOT_FOUND : GRPC_STATUS_FAILED_PRECONDITION;
    case CZK_EUNSUPPORTED: return GRPC_STATUS_UNIMPLEMENTED;
    case CZK_ENOGPU: return GRPC_STATUS_FAILED_PRECONDITION;
    case CZK_EEXIST: return GRPC_STATUS_ALREADY_EXISTS;
    case CZK_ECANCELED: return GRPC_STATUS_CANCELLED;
    case CZK_ETIMEDOUT: return GRPC_STATUS_DEADLINE_EXCEEDED;
    /* EBUSY is the engine draining (or a parameter set in use): come back later. */
    case CZK_EBUSY: return GRPC_STATUS_UNAVAILABLE;
    case CZK_ENOMEM:
    case CZK_ERESOURCE: return GRPC_STATUS_RESOURCE_EXHAUSTED;
    /* A proof that fails its own verification, a CUDA or I/O failure: our fault. */
    case CZK_EVERIFY:
    case CZK_ECUDA:
    case CZK_EIO:
    case CZK_EINTERNAL:
    default: return GRPC_STATUS_INTERNAL;
    }
}

static const char *const grpc_code_names[] = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
};

const char *czk__grpc_code_name(grpc_status_code c)
{
    if ((unsigned)c < sizeof grpc_code_names / sizeof grpc_code_names[0])
        return grpc_code_names[c];
    return "UNKNOWN";
}

static const struct {
    const char *name;
    czk_job_kind kind;
} kinds[] = {
    {"porep", CZK_JOB_POREP}, {"snap", CZK_JOB_SNAP},       {"wpost", CZK_JOB_WPOST},
    {"winning", CZK_JOB_WINNING}, {"circom", CZK_JOB_CIRCOM},
};

bool czk__kind_parse(const char *s, czk_job_kind *out)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(s, kinds[i].name) == 0) {
            *out = kinds[i].kind;
            return true;
        }
    return false;
}

static const char *const prio_names[] = {"default", "low", "normal", "high", "critical"};

bool czk__priority_parse(const char *s, czk_job_priority *out)
{
    for (size_t i = 0; i < sizeof prio_names / sizeof prio_names[0]; i++)
        if (strcmp(s, prio_names[i]) == 0) {
            *out = (czk_job_priority)i;
            return true;
        }
    return false;
}

const char *czk__priority_name(czk_job_priority p)
{
    return (unsigned)p < 5 ? prio_names[p] : "unknown";
}
