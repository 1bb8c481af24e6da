/*
 * The daemon's pieces that need no network: the configuration table (file, environment,
 * flags, sizes and durations, errors naming file:line and option), the czk_status → gRPC
 * code mapping, and the reflection index (checked against protoc-c's own descriptors of
 * the same files, and against malformed descriptor sets).
 */
#include "czk_test.h"
#include "server.h"

#include "czk/alloc.h"

#include "cuzk/v1/proving.pb-c.h"
#include "czk/v1/czk.pb-c.h"
#include "grpc/health/v1/health.pb-c.h"
#include "grpc/reflection/v1/reflection.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_sizes_durations(void)
{
    static const struct {
        const char *s;
        uint64_t v;
    } sizes[] = {
        {"0", 0}, {"1024", 1024}, {"4KiB", 4096}, {"4K", 4096}, {"4kb", 4096}, {"256MiB", 256ull << 20},
        {"5GiB", 5ull << 30}, {"5 GiB", 5ull << 30}, {"2T", 2ull << 40}, {"17179869183G", 17179869183ull << 30},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t v = 1;
        CHECK_MSG(czk__parse_bytes(sizes[i].s, &v) && v == sizes[i].v, "%s", sizes[i].s);
    }
    static const char *const bad_sizes[] = {"", "GiB", "-1", "5X", "5GiBs", "17179869184G", "99999999999999999999", " 5"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        uint64_t v;
        CHECK_MSG(!czk__parse_bytes(bad_sizes[i], &v), "'%s' accepted", bad_sizes[i]);
    }
    static const struct {
        const char *s;
        uint64_t ms;
    } durs[] = {{"250ms", 250}, {"30s", 30000}, {"30", 30000}, {"5m", 300000}, {"24h", 86400000}, {"2d", 172800000}};
    for (size_t i = 0; i < sizeof durs / sizeof durs[0]; i++) {
        uint64_t v = 1;
        CHECK_MSG(czk__parse_duration_ms(durs[i].s, &v) && v == durs[i].ms, "%s", durs[i].s);
    }
    static const char *const bad_durs[] = {"", "s", "5x", "5 s", "-3s", "18446744073709551615h"};
    for (size_t i = 0; i < sizeof bad_durs / sizeof bad_durs[0]; i++) {
        uint64_t v;
        CHECK_MSG(!czk__parse_duration_ms(bad_durs[i], &v), "'%s' accepted", bad_durs[i]);
    }
}

static void test_config_defaults_and_file(void)
{
    czk_daemon_config c;
    czk__config_defaults(&c);
    CHECK(strcmp(c.listen, "127.0.0.1:9820") == 0);
    CHECK(c.max_message_size == 256ull << 20);
    CHECK(c.unix_socket_mode == 0660);
    CHECK(c.drain_grace_ms == 60000 && c.retention_ms == 86400000ull);
    CHECK(c.memory_margin == 5ull << 30 && c.memory_budget == 0);
    CHECK(strcmp(c.gpu_mode, "auto") == 0 && c.gpu_workers_per_device == 2);
    czk_engine_config ec;
    int *gpus;
    czk_err err;
    CHECK_STATUS(czk__config_to_engine(&c, &ec, &gpus, &err), CZK_OK);
    CHECK(gpus == NULL && ec.param_dir == NULL && ec.gpu_mode == 0 && !ec.gpu_spin_wait);

    /* The sample file (every option at its default) parses back to the same values. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    czk__config_write(&c, f, true);
    fclose(f);
    CHECK(strstr(buf, "[daemon]") && strstr(buf, "[memory]") && strstr(buf, "[gpus]") &&
          strstr(buf, "[synthesis]") && strstr(buf, "[logging]") && strstr(buf, "[tls]"));
    czk_daemon_config d;
    czk__config_defaults(&d);
    czk__config_set(&d, "daemon", "listen", "changed", NULL);
    CHECK_STATUS(czk__config_parse_string(&d, buf, "sample", &err), CZK_OK);
    CHECK(strcmp(d.listen, "127.0.0.1:9820") == 0 && d.max_message_size == c.max_message_size &&
          d.unix_socket_mode == 0660 && d.srs_idle_evict_ms == c.srs_idle_evict_ms);
    free(buf);
    czk__config_free(&d);

    const char *text = "; comment\n[daemon]\nlisten = \"unix:/run/czk.sock\"\nmax_message_size = 64MiB\n"
                       "unix_socket_mode = 0600\ndrain_grace = 5m\n[memory]\nbudget = 200GiB\n"
                       "pageable_buffers = yes\n[gpus]\nmode = cpu\ndevices = 0, 2,3\n"
                       "spin_wait = on\n";
    CHECK_STATUS(czk__config_parse_string(&c, text, "t.conf", &err), CZK_OK);
    CHECK(strcmp(c.listen, "unix:/run/czk.sock") == 0);
    CHECK(c.max_message_size == 64ull << 20 && c.unix_socket_mode == 0600 && c.drain_grace_ms == 300000);
    CHECK(c.memory_budget == 200ull << 30 && c.pageable_buffers);
    CHECK_STATUS(czk__config_to_engine(&c, &ec, &gpus, &err), CZK_OK);
    CHECK(ec.gpu_mode == 1 && ec.ngpus == 3 && gpus && gpus[0] == 0 && gpus[1] == 2 && gpus[2] == 3);
    CHECK(ec.memory_budget == 200ull << 30 && ec.pageable_buffers && ec.gpu_spin_wait);
    czk_free(gpus);

    /* Errors name the file, the line or the option. */
    CHECK_STATUS(czk__config_parse_string(&c, "[daemon]\nlisten = x\nbogus = 1\n", "a.conf", &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "a.conf") && strstr(err.msg, "daemon.bogus"), "%s", err.msg);
    CHECK_STATUS(czk__config_parse_string(&c, "[memory]\nbudget = lots\n", "b.conf", &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "memory.budget") && strstr(err.msg, "lots"), "%s", err.msg);
    CHECK_STATUS(czk__config_parse_string(&c, "[daemon]\ngrpc_threads = 1000\n", "c.conf", &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "out of range"), "%s", err.msg);
    CHECK_STATUS(czk__config_parse_string(&c, "[daemon]\nlisten x\n", "d.conf", &err), CZK_EFORMAT);
    CHECK_MSG(strstr(err.msg, "d.conf:2"), "%s", err.msg);
    CHECK_STATUS(czk__config_load_file(&c, "/nonexistent/czkd.conf", &err), CZK_ENOENT);
    CHECK_MSG(strstr(err.msg, "/nonexistent/czkd.conf"), "%s", err.msg);
    CHECK_STATUS(czk__config_set(&c, "gpus", "mode", "quantum", NULL), CZK_OK);
    CHECK_STATUS(czk__config_to_engine(&c, &ec, &gpus, &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "gpus.mode"), "%s", err.msg);
    czk__config_set(&c, "gpus", "mode", "auto", NULL);
    CHECK_STATUS(czk__config_set(&c, "gpus", "devices", "0,x", NULL), CZK_OK);
    CHECK_STATUS(czk__config_to_engine(&c, &ec, &gpus, &err), CZK_EINVAL);
    czk__config_set(&c, "gpus", "devices", "", NULL);
    CHECK_STATUS(czk__config_set(&c, "tls", "cert", "/x.pem", NULL), CZK_OK);
    CHECK_STATUS(czk__config_to_engine(&c, &ec, &gpus, &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "tls.key"), "%s", err.msg);
    czk__config_set(&c, "tls", "cert", "", NULL);

    /* Flag spelling (dashes) and the environment; the environment beats the file. */
    CHECK_STATUS(czk__config_set(&c, "daemon", "max-concurrent-streams", "77", NULL), CZK_OK);
    CHECK(c.max_concurrent_streams == 77);
    setenv("CZKD_DAEMON_LISTEN", "127.0.0.1:1234", 1);
    setenv("CZKD_SYNTHESIS_THREADS", "12", 1);
    CHECK_STATUS(czk__config_load_env(&c, &err), CZK_OK);
    CHECK(strcmp(c.listen, "127.0.0.1:1234") == 0 && c.synthesis_threads == 12);
    setenv("CZKD_SYNTHESIS_THREADS", "twelve", 1);
    CHECK_STATUS(czk__config_load_env(&c, &err), CZK_EINVAL);
    CHECK_MSG(strstr(err.msg, "CZKD_SYNTHESIS_THREADS"), "%s", err.msg);
    unsetenv("CZKD_DAEMON_LISTEN");
    unsetenv("CZKD_SYNTHESIS_THREADS");
    /* rust-fil-proofs' FIL_PROOFS_PARAMETER_CACHE fills param_dir only where czk's own
     * settings leave it empty. */
    setenv("FIL_PROOFS_PARAMETER_CACHE", "/srv/fil-params", 1);
    czk__config_set(&c, "daemon", "param_dir", "", NULL);
    CHECK_STATUS(czk__config_load_env(&c, &err), CZK_OK);
    CHECK(c.param_dir != NULL && strcmp(c.param_dir, "/srv/fil-params") == 0);
    czk__config_set(&c, "daemon", "param_dir", "/etc/czk/params", NULL);
    CHECK_STATUS(czk__config_load_env(&c, &err), CZK_OK);
    CHECK(strcmp(c.param_dir, "/etc/czk/params") == 0);
    setenv("CZKD_DAEMON_PARAM_DIR", "/mnt/params", 1);
    czk__config_set(&c, "daemon", "param_dir", "", NULL);
    CHECK_STATUS(czk__config_load_env(&c, &err), CZK_OK);
    CHECK(strcmp(c.param_dir, "/mnt/params") == 0);
    unsetenv("CZKD_DAEMON_PARAM_DIR");
    unsetenv("FIL_PROOFS_PARAMETER_CACHE");

    /* A dump never shows the token. */
    czk__config_set(&c, "daemon", "auth_token", "s3cret", NULL);
    f = open_memstream(&buf, &len);
    czk__config_write(&c, f, false);
    fclose(f);
    CHECK(strstr(buf, "s3cret") == NULL && strstr(buf, "auth_token = <set>"));
    free(buf);
    czk__config_free(&c);
}

/* The mapping, written out independently of convert.c's switch. */
static void test_status_mapping(void)
{
    static const struct {
        czk_status s;
        grpc_status_code c;
    } want[] = {
        {CZK_OK, GRPC_STATUS_OK},
        {CZK_EINVAL, GRPC_STATUS_INVALID_ARGUMENT},
        {CZK_ENOMEM, GRPC_STATUS_RESOURCE_EXHAUSTED},
        {CZK_EIO, GRPC_STATUS_INTERNAL},
        {CZK_ENOENT, GRPC_STATUS_FAILED_PRECONDITION},
        {CZK_EFORMAT, GRPC_STATUS_INVALID_ARGUMENT},
        {CZK_ETRUNCATED, GRPC_STATUS_INVALID_ARGUMENT},
        {CZK_ENONCANONICAL, GRPC_STATUS_INVALID_ARGUMENT},
        {CZK_EBADFLAGS, GRPC_STATUS_INVALID_ARGUMENT},
        {CZK_ENOTONCURVE, GRPC_STATUS_INVALID_ARGUMENT},
        {CZK_ENOTINSUBGROUP, GRPC_STATUS_INVALID_ARGUMENT},
        {CZK_EINFINITY, GRPC_STATUS_INVALID_ARGUMENT},
        {CZK_EVERIFY, GRPC_STATUS_INTERNAL},
        {CZK_EUNSUPPORTED, GRPC_STATUS_UNIMPLEMENTED},
        {CZK_ENOGPU, GRPC_STATUS_FAILED_PRECONDITION},
        {CZK_ECUDA, GRPC_STATUS_INTERNAL},
        {CZK_EEXIST, GRPC_STATUS_ALREADY_EXISTS},
        {CZK_ECANCELED, GRPC_STATUS_CANCELLED},
        {CZK_ETIMEDOUT, GRPC_STATUS_DEADLINE_EXCEEDED},
        {CZK_EBUSY, GRPC_STATUS_UNAVAILABLE},
        {CZK_ERESOURCE, GRPC_STATUS_RESOURCE_EXHAUSTED},
        {CZK_EINTERNAL, GRPC_STATUS_INTERNAL},
        {CZK_EMISMATCH, GRPC_STATUS_INVALID_ARGUMENT},
    };
    /* Every status is in the table above: a new one must get a deliberate mapping. */
    CHECK_MSG(sizeof want / sizeof want[0] == CZK_STATUS_COUNT, "%zu statuses mapped, %d exist",
              sizeof want / sizeof want[0], (int)CZK_STATUS_COUNT);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK_MSG(czk__grpc_code(want[i].s, false) == want[i].c, "%s → %s", czk_status_name(want[i].s),
                  czk__grpc_code_name(czk__grpc_code(want[i].s, false)));
    /* Naming a job changes exactly one answer: ENOENT is then an unknown id. */
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK_MSG(czk__grpc_code(want[i].s, true) ==
                      (want[i].s == CZK_ENOENT ? GRPC_STATUS_NOT_FOUND : want[i].c),
                  "%s about a job", czk_status_name(want[i].s));
    CHECK(czk__grpc_code((czk_status)999, false) == GRPC_STATUS_INTERNAL);
    CHECK(strcmp(czk__grpc_code_name(GRPC_STATUS_UNAUTHENTICATED), "UNAUTHENTICATED") == 0);
    CHECK(strcmp(czk__grpc_code_name(GRPC_STATUS_RESOURCE_EXHAUSTED), "RESOURCE_EXHAUSTED") == 0);
    czk_job_kind k;
    CHECK(czk__kind_parse("circom", &k) && k == CZK_JOB_CIRCOM);
    CHECK(czk__kind_parse("wpost", &k) && k == CZK_JOB_WPOST && !czk__kind_parse("PoRep", &k));
    czk_job_priority p;
    CHECK(czk__priority_parse("critical", &p) && p == CZK_PRIO_CRITICAL && !czk__priority_parse("urgent", &p));
}

/* Ask the index which file holds `symbol`; returns the file names of the answer. */
static size_t ask_symbol(czk_reflection *r, const char *symbol, char names[][64], size_t max, int *error_code)
{
    Grpc__Reflection__V1__ServerReflectionRequest q = GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__INIT;
    q.message_request_case = GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_CONTAINING_SYMBOL;
    q.file_containing_symbol = (char *)symbol;
    uint8_t buf[512];
    size_t n = grpc__reflection__v1__server_reflection_request__pack(&q, buf);
    size_t out_len;
    const char *svc[] = {"a.B"};
    uint8_t *out = czk__reflection_answer(r, buf, n, svc, 1, &out_len);
    *error_code = -1;
    if (!out) return 0;
    Grpc__Reflection__V1__ServerReflectionResponse *resp =
        grpc__reflection__v1__server_reflection_response__unpack(NULL, out_len, out);
    free(out);
    size_t k = 0;
    if (resp && resp->message_response_case ==
                    GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ERROR_RESPONSE)
        *error_code = resp->error_response->error_code;
    else if (resp && resp->message_response_case ==
                         GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_FILE_DESCRIPTOR_RESPONSE) {
        *error_code = 0;
        Grpc__Reflection__V1__FileDescriptorResponse *f = resp->file_descriptor_response;
        for (size_t i = 0; i < f->n_file_descriptor_proto && k < max; i++) {
            /* FileDescriptorProto field 1 (name) comes first in protoc's output. */
            const uint8_t *d = f->file_descriptor_proto[i].data;
            if (f->file_descriptor_proto[i].len > 2 && d[0] == 0x0a && d[1] < 64) {
                memcpy(names[k], d + 2, d[1]);
                names[k][d[1]] = 0;
                k++;
            }
        }
    }
    if (resp) grpc__reflection__v1__server_reflection_response__free_unpacked(resp, NULL);
    return k;
}

static void test_reflection(void)
{
    czk_reflection *r;
    czk_err err;
    CHECK_STATUS(czk__reflection_create(&r, czk__descset, czk__descset_len, &err), CZK_OK);
    /* Every message protoc-c generated, by its full name, resolves to its own file. */
    static const struct {
        const ProtobufCMessageDescriptor *d;
        const char *file;
    } msgs[] = {
        {&cuzk__v1__submit_proof_request__descriptor, "cuzk/v1/proving.proto"},
        {&cuzk__v1__srsstatus__descriptor, "cuzk/v1/proving.proto"},
        {&czk__v1__job__descriptor, "czk/v1/czk.proto"},
        {&czk__v1__job_event__descriptor, "czk/v1/czk.proto"},
        {&grpc__health__v1__health_check_response__descriptor, "grpc/health/v1/health.proto"},
        {&grpc__reflection__v1__server_reflection_request__descriptor, "grpc/reflection/v1/reflection.proto"},
    };
    char names[8][64];
    int code;
    for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++) {
        size_t n = ask_symbol(r, msgs[i].d->name, names, 8, &code);
        CHECK_MSG(code == 0 && n >= 1 && strcmp(names[0], msgs[i].file) == 0, "%s", msgs[i].d->name);
        /* ... and each of its fields too. */
        char sym[256];
        snprintf(sym, sizeof sym, "%s.%s", msgs[i].d->name, msgs[i].d->fields[0].name);
        n = ask_symbol(r, sym, names, 8, &code);
        CHECK_MSG(code == 0 && n >= 1 && strcmp(names[0], msgs[i].file) == 0, "%s", sym);
    }
    /* czk.proto imports proving.proto: the answer carries both, and nothing else. */
    size_t n = ask_symbol(r, "czk.v1.Czk.WatchJob", names, 8, &code);
    CHECK(code == 0 && n == 2 && !strcmp(names[0], "czk/v1/czk.proto") && !strcmp(names[1], "cuzk/v1/proving.proto"));
    n = ask_symbol(r, "cuzk.v1.ProvingEngine", names, 8, &code);
    CHECK(code == 0 && n == 1);
    /* Enum values live in the enum's enclosing scope; nested enums in their message. */
    n = ask_symbol(r, "cuzk.v1.POREP_SEAL_COMMIT", names, 8, &code);
    CHECK(code == 0 && n == 1);
    n = ask_symbol(r, "cuzk.v1.AwaitProofResponse.Status", names, 8, &code);
    CHECK(code == 0 && n == 1);
    n = ask_symbol(r, ".czk.v1.Job", names, 8, &code);
    CHECK(code == 0 && n == 2);
    ask_symbol(r, "czk.v1.Nope", names, 8, &code);
    CHECK(code == 5);
    ask_symbol(r, "czk.v1", names, 8, &code); /* a package is not a symbol here */
    CHECK(code == 5);
    /* Garbage requests are refused (NULL), not answered with nonsense. */
    size_t out_len;
    const char *svc[] = {"a.B"};
    uint8_t junk[] = {0x22, 0xff, 0xff, 0xff, 0xff, 0x0f};
    CHECK(czk__reflection_answer(r, junk, sizeof junk, svc, 1, &out_len) == NULL);
    czk__reflection_destroy(r);

    /* A malformed descriptor set is refused; every truncation of the real one is either
     * refused or indexes fewer files without crashing. */
    uint8_t bad[] = {0x0a, 0x05, 0x0a, 0x10, 'x'};
    CHECK_STATUS(czk__reflection_create(&r, bad, sizeof bad, &err), CZK_EFORMAT);
    for (size_t cut = 1; cut < czk__descset_len; cut += 1 + czk_test_rand64() % 97) {
        czk_status st = czk__reflection_create(&r, czk__descset, cut, &err);
        if (st == CZK_OK) czk__reflection_destroy(r);
        else CHECK(st == CZK_EFORMAT);
    }
}

int main(void)
{
    czk_test_seed();
    RUN(test_sizes_durations);
    RUN(test_config_defaults_and_file);
    RUN(test_status_mapping);
    RUN(test_reflection);
    return czk_test_finish();
}
