/*
 * Server reflection's stream (grpc.reflection.v1 and v1alpha ServerReflectionInfo): one
 * answer from the index (reflection.c) for each request, until the client half-closes.
 */
#include "server_internal.h"

#include <grpc/byte_buffer_reader.h>

#include <stdlib.h>
#include <string.h>

/* One message in, one out, until the client half-closes (then status OK). */
void czk__reflection_recv_done(czk__rpc *r, bool ok)
{
    grpc_byte_buffer *bb = r->recv_bb;
    r->recv_bb = NULL;
    if (!ok) {
        if (bb) grpc_byte_buffer_destroy(bb);
        return;
    }
    if (!bb) {
        czk__rpc_reply(r, GRPC_STATUS_OK, NULL, NULL);
        return;
    }
    grpc_byte_buffer_reader rd;
    if (!grpc_byte_buffer_reader_init(&rd, bb)) {
        grpc_byte_buffer_destroy(bb);
        czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT, "request: unreadable message", NULL);
        return;
    }
    grpc_slice sl = grpc_byte_buffer_reader_readall(&rd);
    grpc_byte_buffer_reader_destroy(&rd);
    grpc_byte_buffer_destroy(bb);
    size_t n = 0;
    uint8_t *out = czk__reflection_answer(r->srv->refl, GRPC_SLICE_START_PTR(sl), GRPC_SLICE_LENGTH(sl),
                                          czk__service_names, CZK__NSERVICES, &n);
    grpc_slice_unref(sl);
    if (!out) {
        czk__rpc_reply(r, GRPC_STATUS_INVALID_ARGUMENT,
                       "request: cannot decode grpc.reflection.v1.ServerReflectionRequest", NULL);
        return;
    }
    grpc_slice os = grpc_slice_new(out, n, free);
    grpc_op ops[2];
    memset(ops, 0, sizeof ops);
    size_t k = 0;
    if (!r->md_sent) {
        ops[k++].op = GRPC_OP_SEND_INITIAL_METADATA;
        r->md_sent = true;
    }
    r->send_bb = grpc_raw_byte_buffer_create(&os, 1);
    grpc_slice_unref(os);
    ops[k].op = GRPC_OP_SEND_MESSAGE;
    ops[k].data.send_message.send_message = r->send_bb;
    k++;
    czk__rpc_ref(r);
    if (grpc_call_start_batch(r->call, ops, k, &r->t_send, NULL) != GRPC_CALL_OK) czk__rpc_unref(r);
}
