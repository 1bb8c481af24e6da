/* libFuzzer: decoding of every request message the server accepts (protobuf-c), the
 * check of their string fields on the wire bytes (czk__proto_strings_ok, on any bytes, as
 * it must not trust what protobuf-c accepted), and the reflection service's answer to
 * arbitrary request bytes. The first byte picks the message type. */
#include "server.h"

#include "cuzk/v1/proving.pb-c.h"
#include "czk/v1/czk.pb-c.h"
#include "grpc/health/v1/health.pb-c.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const ProtobufCMessageDescriptor *const descs[] = {
    &cuzk__v1__submit_proof_request__descriptor, &cuzk__v1__await_proof_request__descriptor,
    &cuzk__v1__prove_request__descriptor,        &cuzk__v1__cancel_proof_request__descriptor,
    &cuzk__v1__preload_srs_request__descriptor,  &czk__v1__submit_request__descriptor,
    &czk__v1__await_request__descriptor,         &czk__v1__prove_request__descriptor,
    &czk__v1__list_jobs_request__descriptor,     &czk__v1__watch_job_request__descriptor,
    &czk__v1__get_job_request__descriptor,       &grpc__health__v1__health_check_request__descriptor,
    &czk__v1__forget_request__descriptor,        &czk__v1__cancel_request__descriptor,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static czk_reflection *refl;
    if (!refl && czk__reflection_create(&refl, czk__descset, czk__descset_len, NULL) != CZK_OK) abort();
    if (size < 1) return 0;
    unsigned k = data[0] % (sizeof descs / sizeof descs[0] + 1);
    if (k == sizeof descs / sizeof descs[0]) {
        const char *svc[] = {"czk.v1.Czk"};
        size_t n;
        free(czk__reflection_answer(refl, data + 1, size - 1, svc, 1, &n));
        return 0;
    }
    char field[128];
    czk_text_fault fault;
    (void)czk__proto_strings_ok(descs[k], data + 1, size - 1, field, sizeof field, &fault);
    ProtobufCMessage *m = protobuf_c_message_unpack(descs[k], NULL, size - 1, data + 1);
    if (m) {
        /* What decodes must re-encode (the server packs replies from such fields). */
        size_t n = protobuf_c_message_get_packed_size(m);
        uint8_t *buf = malloc(n ? n : 1);
        if (buf) protobuf_c_message_pack(m, buf);
        free(buf);
        protobuf_c_message_free_unpacked(m, NULL);
    }
    return 0;
}
