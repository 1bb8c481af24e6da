/*
 * A small blocking gRPC client over C-core, for the czk tool's remote commands: one
 * channel, one pluck completion queue per call, protobuf-c messages in and out.
 */
#include "server.h"

#include "czk/alloc.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include <errno.h>
#include <protobuf-c/protobuf-c.h>
#include <stdlib.h>
#include <string.h>

struct czk_client {
    grpc_channel *ch;
    char *auth; /* "Bearer TOKEN" or NULL */
};

static char *slurp(const char *path, czk_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        czk_err_set(err, CZK_ENOENT, "%s: %s", path, strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? czk_malloc((size_t)n + 1) : NULL;
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        czk_free(b);
        fclose(f);
        czk_err_set(err, CZK_EIO, "%s: cannot read", path);
        return NULL;
    }
    b[n] = 0;
    fclose(f);
    return b;
}

czk_status czk__client_open(czk_client **out, const czk_client_opts *o, czk_err *err)
{
    *out = NULL;
    czk_client *c = czk_calloc(1, sizeof *c);
    if (!c) return czk_err_set(err, CZK_ENOMEM, "client: out of memory");
    grpc_init();
    grpc_channel_credentials *cr;
    char *ca = NULL, *cert = NULL, *key = NULL;
    if (o->tls_ca || o->tls_cert) {
        if (o->tls_ca && !(ca = slurp(o->tls_ca, err))) goto fail;
        if (o->tls_cert && !(cert = slurp(o->tls_cert, err))) goto fail;
        if (o->tls_key && !(key = slurp(o->tls_key, err))) goto fail;
        if (!!cert != !!key) {
            czk_err_set(err, CZK_EINVAL, "--tls-cert and --tls-key go together");
            goto fail;
        }
        grpc_ssl_pem_key_cert_pair kp = {key, cert};
        cr = grpc_ssl_credentials_create(ca, cert ? &kp : NULL, NULL, NULL);
    } else {
        cr = grpc_insecure_credentials_create();
    }
    grpc_arg args[3];
    memset(args, 0, sizeof args);
    int nargs = 0;
    int max = o->max_message_size ? (int)o->max_message_size : 256 << 20;
    args[nargs].type = GRPC_ARG_INTEGER;
    args[nargs].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[nargs++].value.integer = max;
    args[nargs].type = GRPC_ARG_INTEGER;
    args[nargs].key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[nargs++].value.integer = max;
    if (o->server_name) {
        args[nargs].type = GRPC_ARG_STRING;
        args[nargs].key = (char *)GRPC_SSL_TARGET_NAME_OVERRIDE_ARG;
        args[nargs++].value.string = (char *)o->server_name;
    }
    grpc_channel_args ca_args = {(size_t)nargs, args};
    c->ch = grpc_channel_create(o->addr, cr, &ca_args);
    grpc_channel_credentials_release(cr);
    czk_free(ca);
    czk_free(cert);
    czk_free(key);
    if (o->token && *o->token) {
        size_t n = strlen(o->token) + 8;
        c->auth = czk_malloc(n);
        if (c->auth) snprintf(c->auth, n, "Bearer %s", o->token);
    }
    *out = c;
    return CZK_OK;
fail:
    czk_free(ca);
    czk_free(cert);
    czk_free(key);
    czk_free(c);
    grpc_shutdown();
    return err ? err->status : CZK_EINVAL;
}

void czk__client_close(czk_client *c)
{
    if (!c) return;
    grpc_channel_destroy(c->ch);
    czk_free(c->auth);
    czk_free(c);
    grpc_shutdown();
}

static gpr_timespec deadline_of(uint64_t timeout_ms)
{
    if (!timeout_ms) return gpr_inf_future(GPR_CLOCK_REALTIME);
    return gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                        gpr_time_from_millis((int64_t)timeout_ms, GPR_TIMESPAN));
}

static grpc_byte_buffer *pack(const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    grpc_slice sl = grpc_slice_malloc(n);
    protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(sl));
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&sl, 1);
    grpc_slice_unref(sl);
    return bb;
}

static ProtobufCMessage *unpack(const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb)
{
    grpc_byte_buffer_reader rd;
    if (!grpc_byte_buffer_reader_init(&rd, bb)) return NULL;
    grpc_slice sl = grpc_byte_buffer_reader_readall(&rd);
    ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, GRPC_SLICE_LENGTH(sl), GRPC_SLICE_START_PTR(sl));
    grpc_slice_unref(sl);
    grpc_byte_buffer_reader_destroy(&rd);
    return m;
}

static bool run_batch(grpc_call *call, grpc_completion_queue *cq, const grpc_op *ops, size_t n, void *tag)
{
    if (grpc_call_start_batch(call, ops, n, tag, NULL) != GRPC_CALL_OK) return false;
    grpc_event ev = grpc_completion_queue_pluck(cq, tag, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    return ev.type == GRPC_OP_COMPLETE && ev.success;
}

static grpc_status_code status_to_err(grpc_status_code code, grpc_slice details, czk_err *err)
{
    if (code != GRPC_STATUS_OK) {
        char *d = grpc_slice_to_c_string(details);
        czk_err_set(err, CZK_EIO, "%s: %s", czk__grpc_code_name(code), d);
        gpr_free(d);
    }
    return code;
}

typedef struct call_ctx {
    grpc_completion_queue *cq;
    grpc_call *call;
    grpc_metadata md[1];
    grpc_metadata_array recv_md, trail_md;
    grpc_status_code code;
    grpc_slice details;
} call_ctx;

static void call_begin(czk_client *c, call_ctx *x, const char *method, uint64_t timeout_ms)
{
    memset(x, 0, sizeof *x);
    x->cq = grpc_completion_queue_create_for_pluck(NULL);
    grpc_slice m = grpc_slice_from_copied_string(method);
    x->call = grpc_channel_create_call(c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, x->cq, m, NULL,
                                       deadline_of(timeout_ms), NULL);
    grpc_slice_unref(m);
    grpc_metadata_array_init(&x->recv_md);
    grpc_metadata_array_init(&x->trail_md);
    x->details = grpc_empty_slice();
    if (c->auth) {
        x->md[0].key = grpc_slice_from_static_string("authorization");
        x->md[0].value = grpc_slice_from_copied_string(c->auth);
    }
}

static void call_end(czk_client *c, call_ctx *x)
{
    grpc_call_unref(x->call);
    grpc_completion_queue_shutdown(x->cq);
    while (grpc_completion_queue_pluck(x->cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(x->cq);
    grpc_metadata_array_destroy(&x->recv_md);
    grpc_metadata_array_destroy(&x->trail_md);
    grpc_slice_unref(x->details);
    if (c->auth) grpc_slice_unref(x->md[0].value);
}

grpc_status_code czk__client_unary(czk_client *c, const char *method, const ProtobufCMessage *req,
                                   const ProtobufCMessageDescriptor *reply_desc, uint64_t timeout_ms,
                                   ProtobufCMessage **reply, czk_err *err)
{
    *reply = NULL;
    call_ctx x;
    call_begin(c, &x, method, timeout_ms);
    grpc_byte_buffer *send = pack(req), *recv = NULL;
    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].data.send_initial_metadata.count = c->auth ? 1 : 0;
    ops[0].data.send_initial_metadata.metadata = x.md;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &x.recv_md;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &x.trail_md;
    ops[5].data.recv_status_on_client.status = &x.code;
    ops[5].data.recv_status_on_client.status_details = &x.details;
    grpc_status_code code;
    if (!run_batch(x.call, x.cq, ops, 6, &x)) {
        code = GRPC_STATUS_INTERNAL;
        czk_err_set(err, CZK_EIO, "INTERNAL: call batch failed");
    } else {
        code = status_to_err(x.code, x.details, err);
        if (code == GRPC_STATUS_OK) {
            *reply = recv ? unpack(reply_desc, recv) : NULL;
            if (!*reply) {
                code = GRPC_STATUS_INTERNAL;
                czk_err_set(err, CZK_EFORMAT, "INTERNAL: cannot decode the reply as %s", reply_desc->name);
            }
        }
    }
    grpc_byte_buffer_destroy(send);
    if (recv) grpc_byte_buffer_destroy(recv);
    call_end(c, &x);
    return code;
}

grpc_status_code czk__client_stream(czk_client *c, const char *method, const ProtobufCMessage *req,
                                    const ProtobufCMessageDescriptor *msg_desc, uint64_t timeout_ms,
                                    bool (*on_msg)(void *ctx, const ProtobufCMessage *m), void *ctx,
                                    czk_err *err)
{
    call_ctx x;
    call_begin(c, &x, method, timeout_ms);
    grpc_byte_buffer *send = pack(req);
    grpc_op ops[4];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].data.send_initial_metadata.count = c->auth ? 1 : 0;
    ops[0].data.send_initial_metadata.metadata = x.md;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &x.recv_md;
    bool ok = run_batch(x.call, x.cq, ops, 4, &x);
    grpc_byte_buffer_destroy(send);
    grpc_status_code client_code = GRPC_STATUS_OK;
    while (ok) {
        grpc_byte_buffer *recv = NULL;
        grpc_op op;
        memset(&op, 0, sizeof op);
        op.op = GRPC_OP_RECV_MESSAGE;
        op.data.recv_message.recv_message = &recv;
        if (!run_batch(x.call, x.cq, &op, 1, &x) || !recv) break;
        ProtobufCMessage *m = unpack(msg_desc, recv);
        grpc_byte_buffer_destroy(recv);
        if (!m) {
            client_code = GRPC_STATUS_INTERNAL;
            czk_err_set(err, CZK_EFORMAT, "INTERNAL: cannot decode a stream message as %s", msg_desc->name);
            grpc_call_cancel(x.call, NULL);
            break;
        }
        bool more = on_msg(ctx, m);
        protobuf_c_message_free_unpacked(m, NULL);
        if (!more) {
            grpc_call_cancel(x.call, NULL);
            break;
        }
    }
    grpc_op st;
    memset(&st, 0, sizeof st);
    st.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    st.data.recv_status_on_client.trailing_metadata = &x.trail_md;
    st.data.recv_status_on_client.status = &x.code;
    st.data.recv_status_on_client.status_details = &x.details;
    grpc_status_code code;
    if (!run_batch(x.call, x.cq, &st, 1, &x)) {
        code = GRPC_STATUS_INTERNAL;
        czk_err_set(err, CZK_EIO, "INTERNAL: status batch failed");
    } else if (client_code != GRPC_STATUS_OK) {
        code = client_code;
    } else {
        code = status_to_err(x.code, x.details, err);
        /* We cancelled on purpose when on_msg asked to stop. */
        if (code == GRPC_STATUS_CANCELLED) code = GRPC_STATUS_OK;
    }
    call_end(c, &x);
    return code;
}
