/*
 * Server reflection (grpc.reflection.v1 and v1alpha share one wire format). gRPC C-core
 * ships no reflection service (only C++ does), so it is done here: the FileDescriptorSet
 * that protoc wrote at build time is split into its files, and every symbol the files
 * define (packages' messages, nested messages, fields, enums, enum values, services,
 * methods) is indexed to its file, so file_containing_symbol answers with that file and
 * its imports rather than with everything.
 *
 * The set is parsed with a small protobuf wire walker: only names and nesting are needed,
 * and compiling descriptor.proto with protoc-c for that would drag in a large generated
 * file.
 */
#include "server.h"

#include "czk/alloc.h"

#include "grpc/reflection/v1/reflection.pb-c.h"

#include <stdlib.h>
#include <string.h>

typedef struct rfile {
    char *name;
    const uint8_t *data; /* serialized FileDescriptorProto, inside the set */
    size_t len;
    char **deps;
    size_t ndeps;
} rfile;

typedef struct rsym {
    char *name;
    size_t file;
} rsym;

struct czk_reflection {
    rfile *files;
    size_t nfiles;
    rsym *syms;
    size_t nsyms, capsyms;
};

/* ---- wire walker ---- */

typedef struct wire {
    const uint8_t *p, *end;
} wire;

static bool varint(wire *w, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned s = 0; s < 64; s += 7) {
        if (w->p >= w->end) return false;
        uint8_t b = *w->p++;
        x |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

/* Next field: its number, wire type, and for length-delimited ones the bytes. */
static bool next_field(wire *w, uint32_t *num, const uint8_t **data, size_t *len)
{
    uint64_t key, v;
    if (!varint(w, &key)) return false;
    *num = (uint32_t)(key >> 3);
    *data = NULL;
    *len = 0;
    switch (key & 7) {
    case 0: return varint(w, &v);
    case 1:
        if (w->end - w->p < 8) return false;
        w->p += 8;
        return true;
    case 5:
        if (w->end - w->p < 4) return false;
        w->p += 4;
        return true;
    case 2:
        if (!varint(w, &v) || v > (uint64_t)(w->end - w->p)) return false;
        *data = w->p;
        *len = (size_t)v;
        w->p += v;
        return true;
    default: return false; /* groups are not used by any descriptor we embed */
    }
}

static char *strndup_czk(const uint8_t *p, size_t n)
{
    char *s = czk_malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

/* The `name` (field 1) of a nested descriptor message. */
static char *field1_name(const uint8_t *p, size_t n)
{
    wire w = {p, p + n};
    uint32_t num;
    const uint8_t *d;
    size_t l;
    while (w.p < w.end) {
        if (!next_field(&w, &num, &d, &l)) return NULL;
        if (num == 1 && d) return strndup_czk(d, l);
    }
    return NULL;
}

static bool add_sym(czk_reflection *r, const char *scope, const char *name, size_t file)
{
    if (!name) return false;
    if (r->nsyms == r->capsyms) {
        size_t cap = r->capsyms ? 2 * r->capsyms : 256;
        rsym *s = czk_realloc(r->syms, cap * sizeof *s);
        if (!s) return false;
        r->syms = s;
        r->capsyms = cap;
    }
    size_t n = strlen(scope) + strlen(name) + 2;
    char *full = czk_malloc(n);
    if (!full) return false;
    snprintf(full, n, "%s%s%s", scope, *scope ? "." : "", name);
    r->syms[r->nsyms++] = (rsym){full, file};
    return true;
}

/* EnumDescriptorProto: the enum, and its values in the enclosing scope (protobuf's rule). */
static bool index_enum(czk_reflection *r, const char *scope, const uint8_t *p, size_t n, size_t file)
{
    char *name = field1_name(p, n);
    bool ok = add_sym(r, scope, name, file);
    wire w = {p, p + n};
    uint32_t num;
    const uint8_t *d;
    size_t l;
    while (ok && w.p < w.end) {
        if (!next_field(&w, &num, &d, &l)) ok = false;
        else if (num == 2 && d) {
            char *v = field1_name(d, l);
            ok = add_sym(r, scope, v, file);
            czk_free(v);
        }
    }
    czk_free(name);
    return ok;
}

/* DescriptorProto: the message, its fields, nested messages and enums. */
static bool index_message(czk_reflection *r, const char *scope, const uint8_t *p, size_t n,
                          size_t file, int depth)
{
    if (depth > 32) return false;
    char *name = field1_name(p, n);
    if (!name || !add_sym(r, scope, name, file)) {
        czk_free(name);
        return false;
    }
    char *full = r->syms[r->nsyms - 1].name;
    wire w = {p, p + n};
    uint32_t num;
    const uint8_t *d;
    size_t l;
    bool ok = true;
    while (ok && w.p < w.end) {
        if (!next_field(&w, &num, &d, &l)) ok = false;
        else if (!d) continue;
        else if (num == 2 || num == 6) { /* field, extension */
            char *f = field1_name(d, l);
            ok = add_sym(r, full, f, file);
            czk_free(f);
        } else if (num == 3) ok = index_message(r, full, d, l, file, depth + 1);
        else if (num == 4) ok = index_enum(r, full, d, l, file);
    }
    czk_free(name);
    return ok;
}

static bool index_service(czk_reflection *r, const char *scope, const uint8_t *p, size_t n, size_t file)
{
    char *name = field1_name(p, n);
    if (!name || !add_sym(r, scope, name, file)) {
        czk_free(name);
        return false;
    }
    char *full = r->syms[r->nsyms - 1].name;
    wire w = {p, p + n};
    uint32_t num;
    const uint8_t *d;
    size_t l;
    bool ok = true;
    while (ok && w.p < w.end) {
        if (!next_field(&w, &num, &d, &l)) ok = false;
        else if (num == 2 && d) {
            char *m = field1_name(d, l);
            ok = add_sym(r, full, m, file);
            czk_free(m);
        }
    }
    czk_free(name);
    return ok;
}

static bool index_file(czk_reflection *r, size_t fi)
{
    rfile *f = &r->files[fi];
    wire w = {f->data, f->data + f->len};
    uint32_t num;
    const uint8_t *d;
    size_t l;
    char *pkg = NULL;
    /* The package comes first in protoc's output, but do not rely on it: two passes. */
    while (w.p < w.end) {
        if (!next_field(&w, &num, &d, &l)) return false;
        if (num == 1 && d && !f->name) f->name = strndup_czk(d, l);
        else if (num == 2 && d && !pkg) pkg = strndup_czk(d, l);
        else if (num == 3 && d) {
            char **deps = czk_realloc(f->deps, (f->ndeps + 1) * sizeof *deps);
            if (!deps) return false;
            f->deps = deps;
            f->deps[f->ndeps++] = strndup_czk(d, l);
        }
    }
    if (!f->name) {
        czk_free(pkg);
        return false;
    }
    const char *scope = pkg ? pkg : "";
    bool ok = true;
    w = (wire){f->data, f->data + f->len};
    while (ok && w.p < w.end) {
        if (!next_field(&w, &num, &d, &l)) ok = false;
        else if (!d) continue;
        else if (num == 4) ok = index_message(r, scope, d, l, fi, 0);
        else if (num == 5) ok = index_enum(r, scope, d, l, fi);
        else if (num == 6) ok = index_service(r, scope, d, l, fi);
        else if (num == 7) {
            char *e = field1_name(d, l);
            ok = add_sym(r, scope, e, fi);
            czk_free(e);
        }
    }
    czk_free(pkg);
    return ok;
}

czk_status czk__reflection_create(czk_reflection **out, const uint8_t *set, size_t len, czk_err *err)
{
    *out = NULL;
    czk_reflection *r = czk_calloc(1, sizeof *r);
    if (!r) return czk_err_set(err, CZK_ENOMEM, "reflection: out of memory");
    wire w = {set, set + len};
    uint32_t num;
    const uint8_t *d;
    size_t l;
    while (w.p < w.end) {
        if (!next_field(&w, &num, &d, &l)) goto bad;
        if (num != 1 || !d) continue;
        rfile *fs = czk_realloc(r->files, (r->nfiles + 1) * sizeof *fs);
        if (!fs) goto bad;
        r->files = fs;
        r->files[r->nfiles] = (rfile){NULL, d, l, NULL, 0};
        r->nfiles++;
        if (!index_file(r, r->nfiles - 1)) goto bad;
    }
    *out = r;
    return CZK_OK;
bad:
    czk__reflection_destroy(r);
    return czk_err_set(err, CZK_EFORMAT, "reflection: descriptor set is malformed");
}

void czk__reflection_destroy(czk_reflection *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->nfiles; i++) {
        czk_free(r->files[i].name);
        for (size_t k = 0; k < r->files[i].ndeps; k++) czk_free(r->files[i].deps[k]);
        czk_free(r->files[i].deps);
    }
    czk_free(r->files);
    for (size_t i = 0; i < r->nsyms; i++) czk_free(r->syms[i].name);
    czk_free(r->syms);
    czk_free(r);
}

static long find_file(const czk_reflection *r, const char *name)
{
    for (size_t i = 0; i < r->nfiles; i++)
        if (r->files[i].name && !strcmp(r->files[i].name, name)) return (long)i;
    return -1;
}

static long find_symbol(const czk_reflection *r, const char *name)
{
    if (*name == '.') name++; /* fully-qualified type names may carry a leading dot */
    for (size_t i = 0; i < r->nsyms; i++)
        if (!strcmp(r->syms[i].name, name)) return (long)r->syms[i].file;
    return -1;
}

/* The file first, then every file it imports, transitively, each once. */
static void collect(const czk_reflection *r, size_t f, bool *seen, size_t *order, size_t *n)
{
    if (seen[f]) return;
    seen[f] = true;
    order[(*n)++] = f;
    for (size_t k = 0; k < r->files[f].ndeps; k++) {
        long d = find_file(r, r->files[f].deps[k]);
        if (d >= 0) collect(r, (size_t)d, seen, order, n);
    }
}

uint8_t *czk__reflection_answer(const czk_reflection *r, const uint8_t *req, size_t req_len,
                                const char *const *services, size_t nservices, size_t *out_len)
{
    Grpc__Reflection__V1__ServerReflectionRequest *q =
        grpc__reflection__v1__server_reflection_request__unpack(NULL, req_len, req);
    if (!q) return NULL;
    Grpc__Reflection__V1__ServerReflectionResponse resp = GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__INIT;
    Grpc__Reflection__V1__FileDescriptorResponse fdr = GRPC__REFLECTION__V1__FILE_DESCRIPTOR_RESPONSE__INIT;
    Grpc__Reflection__V1__ListServiceResponse lsr = GRPC__REFLECTION__V1__LIST_SERVICE_RESPONSE__INIT;
    Grpc__Reflection__V1__ErrorResponse er = GRPC__REFLECTION__V1__ERROR_RESPONSE__INIT;
    Grpc__Reflection__V1__ExtensionNumberResponse enr = GRPC__REFLECTION__V1__EXTENSION_NUMBER_RESPONSE__INIT;
    Grpc__Reflection__V1__ServiceResponse *svc = czk_calloc(nservices + 1, sizeof *svc);
    Grpc__Reflection__V1__ServiceResponse **svcp = czk_calloc(nservices + 1, sizeof *svcp);
    bool *seen = czk_calloc(r->nfiles + 1, sizeof *seen);
    size_t *order = czk_calloc(r->nfiles + 1, sizeof *order);
    ProtobufCBinaryData *files = czk_calloc(r->nfiles + 1, sizeof *files);
    uint8_t *out = NULL;
    char msg[300];
    if (!svc || !svcp || !seen || !order || !files) goto done;
    resp.valid_host = q->host;
    resp.original_request = q;
    long f = -1;
    const char *what = NULL;
    switch (q->message_request_case) {
    case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_LIST_SERVICES:
        for (size_t i = 0; i < nservices; i++) {
            grpc__reflection__v1__service_response__init(&svc[i]);
            svc[i].name = (char *)services[i];
            svcp[i] = &svc[i];
        }
        lsr.n_service = nservices;
        lsr.service = svcp;
        resp.message_response_case = GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_LIST_SERVICES_RESPONSE;
        resp.list_services_response = &lsr;
        break;
    case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_BY_FILENAME:
        f = find_file(r, q->file_by_filename);
        what = q->file_by_filename;
        goto file;
    case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_CONTAINING_SYMBOL:
        f = find_symbol(r, q->file_containing_symbol);
        what = q->file_containing_symbol;
    file:
        if (f < 0) {
            snprintf(msg, sizeof msg, "%s not found", what);
            er.error_code = 5; /* NOT_FOUND */
            er.error_message = msg;
            resp.message_response_case = GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ERROR_RESPONSE;
            resp.error_response = &er;
        } else {
            size_t n = 0;
            collect(r, (size_t)f, seen, order, &n);
            for (size_t i = 0; i < n; i++) {
                files[i].data = (uint8_t *)r->files[order[i]].data;
                files[i].len = r->files[order[i]].len;
            }
            fdr.n_file_descriptor_proto = n;
            fdr.file_descriptor_proto = files;
            resp.message_response_case = GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_FILE_DESCRIPTOR_RESPONSE;
            resp.file_descriptor_response = &fdr;
        }
        break;
    case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_ALL_EXTENSION_NUMBERS_OF_TYPE:
        /* None of czk's messages has extensions (proto3): an empty list for known types. */
        if (find_symbol(r, q->all_extension_numbers_of_type) < 0) {
            snprintf(msg, sizeof msg, "type %s not found", q->all_extension_numbers_of_type);
            er.error_code = 5;
            er.error_message = msg;
            resp.message_response_case = GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ERROR_RESPONSE;
            resp.error_response = &er;
        } else {
            enr.base_type_name = q->all_extension_numbers_of_type;
            resp.message_response_case = GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ALL_EXTENSION_NUMBERS_RESPONSE;
            resp.all_extension_numbers_response = &enr;
        }
        break;
    default:
        er.error_code = 5;
        er.error_message = (char *)(q->message_request_case ==
                                            GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_CONTAINING_EXTENSION
                                        ? "no extensions are defined"
                                        : "empty request");
        if (q->message_request_case == GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST__NOT_SET)
            er.error_code = 3; /* INVALID_ARGUMENT */
        resp.message_response_case = GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ERROR_RESPONSE;
        resp.error_response = &er;
        break;
    }
    *out_len = grpc__reflection__v1__server_reflection_response__get_packed_size(&resp);
    /* Plain malloc: the server hands it to grpc_slice_new(..., free). */
    out = malloc(*out_len ? *out_len : 1);
    if (out) grpc__reflection__v1__server_reflection_response__pack(&resp, out);
done:
    czk_free(svc);
    czk_free(svcp);
    czk_free(seen);
    czk_free(order);
    czk_free(files);
    grpc__reflection__v1__server_reflection_request__free_unpacked(q, NULL);
    return out;
}
