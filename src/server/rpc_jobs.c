/*
 * What the two job APIs share beneath their handlers: the engine's job as czk.v1's Job and
 * as cuzk.v1's AwaitProofResponse, a Filecoin request's fields for the engine, and
 * submission from either API with the checks the engine leaves to the edge.
 */
#include "server_internal.h"

static void fill_timings(Czk__V1__Timings *t, const czk_job_timings *src)
{
    t->queue_wait_ms = src->queue_wait_ms;
    t->srs_load_ms = src->srs_load_ms;
    t->synthesis_ms = src->synthesis_ms;
    t->gpu_compute_ms = src->gpu_compute_ms;
    t->finalize_ms = src->finalize_ms;
    t->total_ms = src->total_ms;
}

void czk__jobs_fill_job(Czk__V1__Job *j, Czk__V1__Timings *t, const czk_job_info *in, bool proof)
{
    j->job_id = CZK__S(in->job_id);
    j->request_id = CZK__S(in->request_id);
    j->kind = (Czk__V1__Kind)in->kind;
    j->priority = (Cuzk__V1__Priority)in->priority;
    j->state = (Czk__V1__JobState)in->state;
    j->circuit_id = CZK__S(in->circuit_id);
    j->partitions = in->partitions;
    j->partitions_synthesized = in->partitions_synthesized;
    j->partitions_proved = in->partitions_proved;
    j->queue_position = in->queue_position;
    j->assigned_gpu = CZK__S(in->assigned_gpu);
    j->submitted_unix_ms = in->submitted_unix_ms;
    j->finished_unix_ms = in->finished_unix_ms;
    fill_timings(t, &in->timings);
    j->timings = t;
    if (in->state == CZK_JOB_FAILED || in->state == CZK_JOB_CANCELLED) {
        j->error_code = CZK__S(in->error != CZK_OK ? czk_status_name(in->error) : "");
        j->error_message = CZK__S(in->error_message);
    }
    if (proof && in->proof) {
        j->proof.data = in->proof;
        j->proof.len = in->proof_len;
    }
}

void czk__jobs_fill_await_proof(Cuzk__V1__AwaitProofResponse *a, const czk_job_info *in,
                                bool timed_out)
{
    a->job_id = CZK__S(in->job_id);
    if (timed_out) a->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
    else if (in->state == CZK_JOB_DONE) a->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
    else if (in->state == CZK_JOB_FAILED) a->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
    else if (in->state == CZK_JOB_CANCELLED) a->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED;
    else a->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__UNKNOWN;
    if (in->state == CZK_JOB_DONE && in->proof) {
        a->proof.data = in->proof;
        a->proof.len = in->proof_len;
    }
    a->error_message = CZK__S(in->error_message);
    a->queue_wait_ms = in->timings.queue_wait_ms;
    a->srs_load_ms = in->timings.srs_load_ms;
    a->synthesis_ms = in->timings.synthesis_ms;
    a->gpu_compute_ms = in->timings.gpu_compute_ms;
    a->total_ms = in->timings.total_ms;
}

/* The request's filecoin fields into the engine's request (borrowing the message). */
czk_status czk__jobs_fil_request(czk_job_request *q, const Cuzk__V1__SubmitProofRequest *p,
                                 const uint8_t **ptrs, size_t *lens, czk_err *err)
{
    q->sector_size = p->sector_size;
    q->registered_proof = p->registered_proof;
    q->vanilla_proof = p->vanilla_proof.data;
    q->vanilla_proof_len = p->vanilla_proof.len;
    for (size_t i = 0; i < p->n_vanilla_proofs; i++) {
        ptrs[i] = p->vanilla_proofs[i].data;
        lens[i] = p->vanilla_proofs[i].len;
    }
    q->vanilla_proofs = ptrs;
    q->vanilla_proof_lens = lens;
    q->n_vanilla_proofs = p->n_vanilla_proofs;
    q->sector_number = p->sector_number;
    q->miner_id = p->miner_id;
    q->randomness = p->randomness.data;
    q->randomness_len = p->randomness.len;
    q->partition_index = p->partition_index;
    q->comm_r_old = p->comm_r_old.data;
    q->comm_r_old_len = p->comm_r_old.len;
    q->comm_r_new = p->comm_r_new.data;
    q->comm_r_new_len = p->comm_r_new.len;
    q->comm_d_new = p->comm_d_new.data;
    q->comm_d_new_len = p->comm_d_new.len;
    (void)err;
    return CZK_OK;
}

static bool valid_priority(int p) { return p >= 0 && p <= 4; }

/*
 * Submit from either API. Checks what the engine's header leaves to the edge (enum ranges,
 * draining), then the engine validates the payload and journals it.
 */
czk_status czk__jobs_submit(czk__rpc *r, czk_job_request *q, czk_job_info *out, czk_err *err)
{
    if (atomic_load(&r->srv->draining))
        return czk_err_set(err, CZK_EBUSY, "the daemon is draining; submit to another or retry later");
    if (!valid_priority((int)q->priority))
        return czk_err_set(err, CZK_EINVAL, "priority: %d is not a known Priority", (int)q->priority);
    return czk_engine_submit(r->srv->engine, q, out, err);
}
