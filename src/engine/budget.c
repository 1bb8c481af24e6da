/*
 * The memory budget: what a partition's buffer takes (its packed copies included),
 * whether a reservation fits and what is given back when it does not (idle pinned
 * buffers, then idle parameter sets), the parameter cache's entries it accounts, the
 * pinned pool warmed for a newly loaded set, and the GPU room a parameter load plans in.
 */
#include "czk/alloc.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

#include <inttypes.h>
#include <string.h>

uint64_t czk__budget_used(czk_engine *e)
{
    return e->reserved + e->params_bytes + czk__pinned_free_bytes(&e->pinned);
}

bool czk__budget_params_loading(czk_engine *e)
{
    for (czk__params *pe = e->params; pe != NULL; pe = pe->next)
        if (pe->state == CZK__PE_LOADING) return true;
    return false;
}

/*
 * Can `need` more bytes be reserved now? Over budget, give memory back first: idle pinned
 * buffers, then parameter sets no job holds that have been idle long enough. When nothing
 * at all is in flight the request is admitted even over budget: one partition larger
 * than the budget must still run (alone), or its job would wait forever (mu held).
 */
bool czk__budget_fit(czk_engine *e, uint64_t need, bool pinned)
{
    uint64_t used = czk__budget_used(e);
    if (used + need <= e->budget_total) return true;
    /* An idle pooled buffer that fits serves the partition without growing memory: the
     * budget only counts it once (as idle now, as reserved later). Shrinking it to make
     * room would free and re-allocate the very buffer the partition is about to use. */
    if (pinned && (used <= e->budget_total || e->inflight_parts == 0) &&
        czk__pinned_has_fit(&e->pinned, need))
        return true;
    uint64_t over = used + need - e->budget_total;
    uint64_t freed = czk__pinned_shrink(&e->pinned, over);
    if (freed >= over) return true;
    over -= freed;
    uint64_t now = czk_unix_ms();
    while (over > 0) {
        czk__params *victim = NULL;
        for (czk__params *pe = e->params; pe != NULL; pe = pe->next) {
            if (pe->state != CZK__PE_LOADED || pe->refs != 0) continue;
            if (now - pe->last_used_ms < e->srs_idle_evict_s * 1000u) continue;
            if (victim == NULL || pe->last_used_ms < victim->last_used_ms) victim = pe;
        }
        if (victim == NULL) break;
        uint64_t b = victim->bytes;
        CZK_LOG_INFO("parameters evicted", "circuit=%s bytes=%" PRIu64 " reason=budget",
                     victim->id, b);
        czk__params_unload(victim);
        victim->evictions++;
        e->params_bytes -= b;
        victim->bytes = 0;
        over = b >= over ? 0 : over - b;
    }
    if (over == 0) return true;
    if (e->inflight_parts == 0 && !czk__budget_params_loading(e)) {
        CZK_LOG_WARN("memory budget: admitting alone over budget",
                     "need=%" PRIu64 " used=%" PRIu64 " budget=%" PRIu64, need,
                     czk__budget_used(e), e->budget_total);
        return true;
    }
    return false;
}

czk__params *czk__budget_params_get(czk_engine *e, const char *id, const char *path, bool circom)
{
    for (czk__params *pe = e->params; pe != NULL; pe = pe->next)
        if (strcmp(pe->id, id) == 0) return pe;
    czk__params *pe = czk_calloc(1, sizeof *pe);
    if (pe == NULL) return NULL;
    snprintf(pe->id, sizeof pe->id, "%s", id);
    snprintf(pe->path, sizeof pe->path, "%s", path);
    pe->circom = circom;
    pe->next = e->params;
    e->params = pe;
    return pe;
}

/* Bytes of one partition: a, b, c over the domain and the witness. */
uint64_t czk__budget_part_base_bytes(const czk__params *pe)
{
    uint64_t m = (uint64_t)1 << pe->pk.log_m;
    uint64_t nv = (uint64_t)pe->pk.n_inputs + pe->pk.n_aux;
    return (3 * m + nv) * sizeof(czk_fr) + 3 * ((nv + 63) / 64 + 1) * 8;
}

/*
 * Packed copies (gpus.pack_copies, include/czk/pack.h): a partition's buffer also holds the
 * packed forms of a, b, c and the aux values, which the GPU prover copies instead of the
 * plain vectors. Their bitmaps and counts (20 bytes per 64 elements) and values up to a
 * sixth of the plain bytes: a 32 GiB PoRep partition's values take 13 % (a 33 % of its
 * bytes, c 17 %, b and the witness 1 %), bitmaps and counts 1 % more. A vector whose values
 * do not fit in what is left is copied plain.
 */
#define PACK_VALS_DIV 6

static uint64_t pack_area_bytes(const czk__params *pe)
{
    uint64_t m = (uint64_t)1 << pe->pk.log_m, na = pe->pk.n_aux;
    uint64_t words = 3 * czk_packed_words(m) + czk_packed_words(na);
    return words * 20 + 4 * 3 * 64 + (3 * m + na) * sizeof(czk_fr) / PACK_VALS_DIV;
}

/* Express partitions (ordinary memory, see czk__sched_express) are never packed: their buffers
 * and reservations have no pack area (czk__synth_main's admission), and pack_partition skips
 * heap buffers. */
bool czk__budget_part_packs(const czk_engine *e, const czk__params *pe)
{
    if (!e->gpu_pack || !e->use_gpu) return false;
    /* A plan that holds two vectors at a time, or the witness late, saves the very staging
     * memory packed copies need: the prover copies those plain. */
    if (pe->planned)
        for (size_t g = 0; g < e->ngpus; g++)
            if (pe->plan[g].abc_in_turn || pe->plan[g].witness_late) return false;
    return true;
}

/* Bytes a partition's buffer takes (and its budget reservation). */
uint64_t czk__budget_part_bytes(const czk_engine *e, const czk__params *pe)
{
    return czk__budget_part_base_bytes(pe) +
           (czk__budget_part_packs(e, pe) ? pack_area_bytes(pe) : 0);
}

/*
 * GPU engines: page-lock the partition buffers a newly loaded parameter set will need now,
 * while it is still LOADING, rather than when its first partitions are synthesized:
 * registering memory with the driver holds its lock (0.4 s for 16 GiB), stalling the
 * proofs' copies meanwhile. As many buffers as the budget has room for
 * (the loading set charged at its file's size), at most one per synthesis worker and two
 * per GPU, less those already idle. (mu not held)
 */
static uint64_t prewarm(czk_engine *e, const czk__params *pe)
{
    if (!e->use_gpu || e->pinned.disabled) return 0;
    uint64_t need = czk__budget_part_bytes(e, pe);
    if (need <= CZK__EXPRESS_MAX_BYTES) return 0;
    pthread_mutex_lock(&e->mu);
    uint64_t used = czk__budget_used(e);
    uint64_t room = used < e->budget_total ? e->budget_total - used : 0;
    pthread_mutex_unlock(&e->mu);
    uint64_t k = room / need, want = e->n_synth_workers + 2 * (uint64_t)e->ngpus;
    uint64_t idle = czk__pinned_count_fit(&e->pinned, need);
    want = want > idle ? want - idle : 0;
    if (k > want) k = want;
    if (k == 0) return 0;
    uint64_t t0 = czk_clock_us();
    size_t made = czk__pinned_prewarm(&e->pinned, (size_t)need, (size_t)k);
    CZK_LOG_INFO("pinned pool warmed", "circuit=%s buffers=%zu bytes_each=%" PRIu64 " ms=%" PRIu64,
                 pe->id, made, need, (czk_clock_us() - t0) / 1000u);
    return (uint64_t)made * ((need + 4095) & ~(uint64_t)4095);
}

/* What czk__params_load needs for a set (test parameters, each GPU's room for a plan), and
 * the buffers warmed beside the load on a thread of its own. */
typedef struct gen_ctx {
    czk__params_gen gen;
    uint64_t budget[CZK_GPU_MAX], other[CZK_GPU_MAX];
    czk_engine *e;
    const czk__params *pe;
    pthread_t warm;
    bool warming;
    uint64_t warmed;
} gen_ctx;

/* The load's buffers, page-locked while its points are read and decoded. */
static void *prewarm_main(void *arg)
{
    gen_ctx *c = arg;
    c->warmed = prewarm(c->e, c->pe);
    return NULL;
}

static void prewarm_start(void *arg)
{
    gen_ctx *c = arg;
    if (c->warming || !c->e->use_gpu || c->e->pinned.disabled) return;
    c->warming = pthread_create(&c->warm, NULL, prewarm_main, c) == 0;
}

/* After the load of c (mu not held): wait for the buffers warmed beside it, then warm those
 * that did not start (a load without a plan); after a failed load give them back. */
static void gen_finish(gen_ctx *c, czk_status st)
{
    bool warmed = c->warming;
    if (c->warming) pthread_join(c->warm, NULL);
    c->warming = false;
    if (st != CZK_OK) {
        if (c->warmed > 0) czk__pinned_shrink(&c->e->pinned, c->warmed);
        c->warmed = 0;
        return;
    }
    if (!warmed) c->warmed = prewarm(c->e, c->pe);
}

/* What czk__params_load needs for pe: test parameters, and with GPUs a plan on each
 * within its limit less what the other loaded sets keep there, leaving room for the
 * largest working memory of their proofs (mu held). */
static void gen_fill(czk_engine *e, const czk__params *pe, gen_ctx *c)
{
    memset(c, 0, sizeof *c);
    c->e = e;
    c->pe = pe;
    c->gen.planned = prewarm_start;
    c->gen.planned_arg = c;
    c->gen.test = e->test_params;
    c->gen.gpus = e->gpu_ordinals;
    c->gen.ngpus = e->ngpus;
    c->gen.plan = e->use_gpu;
    c->gen.gpu_budget = c->budget;
    c->gen.other_working = c->other;
    c->gen.h2d_gbps = e->gpu_h2d_gbps;
    for (size_t g = 0; g < e->ngpus; g++) {
        uint64_t held = 0;
        for (const czk__params *q = e->params; q != NULL; q = q->next) {
            if (q == pe || q->state != CZK__PE_LOADED) continue;
            held += czk__params_gpu_resident(q, g);
            uint64_t w = czk__params_gpu_working(q, g);
            if (w > c->other[g]) c->other[g] = w;
        }
        c->budget[g] = e->gpu_limit[g] > held ? e->gpu_limit[g] - held : 0;
    }
}

czk_status czk__budget_load(czk_engine *e, czk__params *pe, uint64_t est, czk_err *err)
{
    pe->state = CZK__PE_LOADING;
    pe->bytes = est;
    e->params_bytes += est;
    gen_ctx gen;
    gen_fill(e, pe, &gen);
    pthread_mutex_unlock(&e->mu);
    czk_status st = czk__params_load(pe, &gen.gen, e->pool, err);
    pthread_mutex_lock(&e->mu);
    e->params_bytes -= est;
    /* The real size now, so that a warm-up after the load sees the budget's true room; the
     * entry stays LOADING meanwhile, so no partition competes with it. */
    pe->bytes = st == CZK_OK ? czk__params_size(pe) : 0;
    e->params_bytes += pe->bytes;
    pthread_mutex_unlock(&e->mu);
    gen_finish(&gen, st);
    pthread_mutex_lock(&e->mu);
    e->params_bytes -= pe->bytes;
    pe->bytes = 0;
    return st;
}

void czk__budget_load_ended(czk_engine *e, czk__params *pe, czk_status st, uint64_t dt_us)
{
    if (st != CZK_OK) {
        pe->state = CZK__PE_COLD;
        pe->bytes = 0;
        return;
    }
    pe->bytes = czk__params_size(pe);
    e->params_bytes += pe->bytes;
    pe->state = CZK__PE_LOADED;
    pe->load_ms = dt_us / 1000u;
    pe->loads++;
    pe->last_used_ms = czk_unix_ms();
    czk__hist_add(&e->hist[CZK__ST_PARAMS], (double)dt_us / 1e6);
}

