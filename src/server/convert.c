/*
 * The status mapping (czk_status → gRPC code, in this one function) and the name tables
 * that the server and the czk client share.
 */
#include "server.h"

#include <protobuf-c/protobuf-c.h>
#include <stdio.h>
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
    case CZK_EINFINITY:
    /* A vanilla proof that does not match its commitments, randomness or the sector the
     * request names: what the client sent is wrong, not the daemon. */
    case CZK_EMISMATCH: return GRPC_STATUS_INVALID_ARGUMENT;
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

/* ----------------------------------------------------------------------------------- */
/* String fields, by their wire bytes                                                    */
/* ----------------------------------------------------------------------------------- */

static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

static bool check_message(const ProtobufCMessageDescriptor *d, const uint8_t *p,
                          const uint8_t *end, char *field, size_t cap, size_t at,
                          czk_text_fault *fault, unsigned depth)
{
    while (p < end) {
        uint64_t key, len = 0;
        if (!read_varint(&p, end, &key)) return true; /* protobuf-c refused it already */
        unsigned wire = (unsigned)(key & 7);
        uint32_t number = (uint32_t)(key >> 3);
        if (wire == 0) {
            if (!read_varint(&p, end, &len)) return true;
            continue;
        }
        if (wire == 1 || wire == 5) {
            size_t w = wire == 1 ? 8 : 4;
            if ((size_t)(end - p) < w) return true;
            p += w;
            continue;
        }
        if (wire != 2 || !read_varint(&p, end, &len) || len > (uint64_t)(end - p)) return true;
        const uint8_t *v = p;
        p += len;
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(d, number);
        if (f == NULL) continue;
        if (f->type == PROTOBUF_C_TYPE_STRING) {
            czk_text_fault ft = czk_text_check((const char *)v, (size_t)len, NULL);
            if (ft != CZK_TEXT_OK) {
                if (at < cap) snprintf(field + at, cap - at, "%s", f->name);
                *fault = ft;
                return false;
            }
        } else if (f->type == PROTOBUF_C_TYPE_MESSAGE && depth < 16) {
            size_t k = at < cap ? at + (size_t)snprintf(field + at, cap - at, "%s.", f->name) : at;
            if (!check_message(f->descriptor, v, v + len, field, cap, k, fault, depth + 1))
                return false;
            if (at < cap) field[at] = 0;
        }
    }
    return true;
}

/*
 * protobuf-c hands string fields over NUL-terminated and drops their length, so a
 * request_id holding a NUL would reach the engine cut at it (two ids colliding), and
 * protobuf-c does not check UTF-8. This walks the message's wire bytes (after protobuf-c
 * has accepted them) with its descriptor and checks every string field, nested ones too.
 */
bool czk__proto_strings_ok(const ProtobufCMessageDescriptor *d, const uint8_t *data, size_t len,
                           char *field, size_t cap, czk_text_fault *fault)
{
    if (cap > 0) field[0] = 0;
    *fault = CZK_TEXT_OK;
    return check_message(d, data, data + len, field, cap, 0, fault, 0);
}

/*
 * The field a refusal names: its message's leading identifier (after the czk status name
 * reply_err puts in front), as in "EINVAL: request_id: a control character at byte 3" or
 * "vanilla_proofs[2] (sector 7): ..."; "" when the message does not start with one.
 */
void czk__refusal_field(const char *msg, char *out, size_t cap)
{
    if (cap == 0) return;
    out[0] = 0;
    if (msg == NULL) return;
    const char *p = msg;
    size_t k = 0;
    while (p[k] >= 'A' && p[k] <= 'Z') k++;
    if (k > 1 && p[k] == ':' && p[k + 1] == ' ' && p[0] == 'E') p += k + 2;
    size_t n = 0;
    if (!((p[0] >= 'a' && p[0] <= 'z') || p[0] == '_')) return;
    while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
           (p[n] >= '0' && p[n] <= '9') || p[n] == '_' || p[n] == '.' || p[n] == '[' ||
           p[n] == ']')
        n++;
    if (p[n] != ':' && p[n] != ',' && p[n] != ' ') return;
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
}

void czk__log_text(const char *s, size_t n, char *out, size_t cap)
{
    if (cap == 0) return;
    bool text = czk_text_check(s, n, NULL) == CZK_TEXT_OK;
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        /* Quotes and backslashes would end or escape the log's quoted value. */
        bool keep = c != '"' && c != '\\' && (text ? c >= 0x20 : c >= 0x20 && c < 0x7f);
        out[k++] = keep ? (char)c : '?';
    }
    out[k] = 0;
}
