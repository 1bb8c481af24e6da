/*
 * grpc.health.v1.Health: Check, and Watch with the poll of the serving status that pushes
 * each change to every watch and ends them all at the end of a drain. Serving means not
 * draining, able to take a connection, and the engine ready.
 */
#include "server_internal.h"

#include "czk/alloc.h"

#include "grpc/health/v1/health.pb-c.h"

#include <stdio.h>
#include <string.h>

bool czk__server_serving(czk_server *s)
{
    if (atomic_load(&s->draining)) return false;
    /* A daemon that cannot take a new connection is not serving, whatever its engine says. */
    if (s->listener && !czk__listener_accepting(s->listener)) return false;
    czk_engine_status st;
    if (czk_engine_get_status(s->engine, &st, NULL) != CZK_OK) return false;
    bool ready = st.ready && !st.draining;
    czk_engine_status_clear(&st);
    return ready;
}

void czk__health_check(czk__rpc *r, ProtobufCMessage *m)
{
    Grpc__Health__V1__HealthCheckRequest *q = (Grpc__Health__V1__HealthCheckRequest *)m;
    bool known = !*q->service;
    for (size_t i = 0; i < CZK__NSERVICES && !known; i++) known = !strcmp(q->service, czk__service_names[i]);
    if (!known) {
        char msg[300];
        snprintf(msg, sizeof msg, "service: unknown service '%.200s'", q->service);
        czk__rpc_reply(r, GRPC_STATUS_NOT_FOUND, msg, NULL);
        return;
    }
    Grpc__Health__V1__HealthCheckResponse o = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
    o.status = czk__server_serving(r->srv) ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING
                                           : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING;
    czk__rpc_reply(r, GRPC_STATUS_OK, NULL, &o.base);
}

/* Health/Watch (grpc health-checking protocol): the current status at once, then one
 * message per change, while the call lasts. One send is outstanding at a time: a change
 * during a send is sent from that send's completion, and changes in between collapse to
 * the latest (the protocol allows skipping intermediate states). */

static int health_status(czk_server *s)
{
    return czk__server_serving(s) ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING
                                  : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING;
}

/* Called with r->mu held: sends hw_want unless it was the last sent or a send is out. */
static void hw_pump_locked(czk__rpc *r)
{
    if (r->sending || r->watch_ended || r->hw_want == r->hw_sent) return;
    Grpc__Health__V1__HealthCheckResponse o = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
    o.status = (Grpc__Health__V1__HealthCheckResponse__ServingStatus)r->hw_want;
    r->hw_sent = r->hw_want;
    r->sending = true;
    czk__rpc_send_msg(r, &o.base);
}

static void hw_set(czk__rpc *r, int status)
{
    pthread_mutex_lock(&r->mu);
    if (r->hw_want != GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVICE_UNKNOWN)
        r->hw_want = status;
    hw_pump_locked(r);
    pthread_mutex_unlock(&r->mu);
}

void czk__health_sent(czk__rpc *r)
{
    pthread_mutex_lock(&r->mu);
    r->sending = false;
    hw_pump_locked(r);
    pthread_mutex_unlock(&r->mu);
}

/* Loop thread: pushes a changed serving status to every watch. */
void czk__health_poll(uv_timer_t *t)
{
    czk_server *s = t->data;
    pthread_mutex_lock(&s->pend_mu);
    bool any = s->list_head[CZK__RPC_LIST_HEALTH] != NULL;
    pthread_mutex_unlock(&s->pend_mu);
    if (!any) {
        s->hw_last = -1; /* a later watch re-reads the status itself */
        return;
    }
    int st = health_status(s);
    if (st == s->hw_last) return;
    s->hw_last = st;
    size_t n;
    czk__rpc **list = czk__server_list_snapshot(s, CZK__RPC_LIST_HEALTH, &n);
    for (size_t i = 0; i < n; i++) {
        hw_set(list[i], st);
        czk__rpc_unref(list[i]);
    }
    czk_free(list);
}

/* End of a drain: the watches end with UNAVAILABLE (a send still outstanding is ended
 * by the cancellation that follows). */
void czk__health_end_all(czk_server *s)
{
    size_t n;
    czk__rpc **list = czk__server_list_snapshot(s, CZK__RPC_LIST_HEALTH, &n);
    for (size_t i = 0; i < n; i++) {
        czk__rpc *r = list[i];
        pthread_mutex_lock(&r->mu);
        r->watch_ended = true;
        bool can_send = !r->sending;
        pthread_mutex_unlock(&r->mu);
        if (can_send) czk__rpc_reply(r, GRPC_STATUS_UNAVAILABLE, "the daemon is shutting down", NULL);
        czk__rpc_unref(r);
    }
    czk_free(list);
}

void czk__health_watch(czk__rpc *r, ProtobufCMessage *m)
{
    Grpc__Health__V1__HealthCheckRequest *q = (Grpc__Health__V1__HealthCheckRequest *)m;
    czk_server *s = r->srv;
    bool known = !*q->service;
    for (size_t i = 0; i < CZK__NSERVICES && !known; i++) known = !strcmp(q->service, czk__service_names[i]);
    r->health_watch = true;
    r->hw_sent = -1;
    /* An unknown service stays open with SERVICE_UNKNOWN: the protocol lets it appear
     * later, although ours is a fixed set. */
    r->hw_want = known ? health_status(s) : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVICE_UNKNOWN;
    /* Listed before the first send so that no change is missed in between; a watch
     * that arrives during a drain is ended by czk__health_end_all like the others. */
    czk__rpc_list_add(r, CZK__RPC_LIST_HEALTH);
    pthread_mutex_lock(&r->mu);
    if (r->cancelled) r->watch_ended = true;
    hw_pump_locked(r);
    pthread_mutex_unlock(&r->mu);
    /* Re-read after listing: a change between the first read and the listing would
     * otherwise reach this watch only at the poll after next. */
    if (known) hw_set(r, health_status(s));
}
