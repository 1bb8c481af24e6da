/*
 * The PoRep circuit: rust-fil-proofs' StackedCircuit for one partition
 * (storage-proofs-porep src/stacked/circuit/{proof.rs, params.rs, column.rs,
 * column_proof.rs, hash.rs, create_label.rs}), built from czk's gadgets in upstream's
 * exact order of allocations and constraints, and StackedCompound's public inputs.
 *
 * Upstream's structure in short (proof.rs StackedCircuit::synthesize, params.rs
 * Proof::synthesize):
 *   - replica_id: alloc, inputize, to_bits_le, reverse_bit_numbering (256 bits);
 *   - comm_d, comm_r: alloc and inputize; comm_r_last, comm_c: alloc;
 *     hash2_circuit(comm_c, comm_r_last) (Poseidon arity 2) and equal(comm_r, hash);
 *   - per challenge: data_leaf alloc + tree_d PoR; per DRG parent then per expander
 *     parent: the column's rows allocated (column.rs), hash_single_column (Poseidon of
 *     arity `layers`, MerkleTree tag), tree_c PoR; UInt64 challenge alloc +
 *     pack_into_input; per layer 1..L: to_bits_le of every parent's row (DRG parents:
 *     row `layer`; expander parents, from layer 2: row `layer − 1`), the 37-parent list
 *     and create_label_circuit; encode = label_L + data_leaf and its tree_r_last PoR; the
 *     labels' column hash and its tree_c PoR.
 * Every PoR is PoRCircuit::synthesize with Root::Var leaf and root and private = true.
 */
#include "czk/alloc.h"
#include "czk/circuits.h"
#include "czk/gadgets.h"
#include "czk/pool.h"
#include "czk/porep.h"
#include "czk/poseidon.h"
#include "count.h"

#include <pthread.h>
#include <string.h>

/* create_label.rs: replica id (256 bits), layer and node, padded to 512 bits, then 37
 * parents of 256 bits each. */
#define LABEL_PARENTS  37
#define LABEL_PRE_BITS (512 + LABEL_PARENTS * 256)
#define PARENT_BITS    256

static unsigned log_base(uint64_t n, unsigned base, bool *ok)
{
    unsigned k = 0;
    *ok = false;
    if (base < 2) return 0;
    while (n > 1) {
        if (n % base != 0) return 0;
        n /= base;
        k++;
    }
    *ok = true;
    return k;
}

czk_status czk_porep_config_for_proof(czk_porep_config *out, czk_seal_proof proof, czk_err *err)
{
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    if (info == NULL)
        return czk_err_set(err, CZK_EINVAL, "porep: unknown seal proof %d", (int)proof);
    memset(out, 0, sizeof *out);
    out->nodes = info->nodes;
    out->layers = info->layers;
    out->challenges = info->challenges_per_partition;
    out->tree_base_arity = info->tree_base_arity;
    out->tree_sub_arity = info->tree_sub_arity;
    out->tree_top_arity = info->tree_top_arity;
    return CZK_OK;
}

size_t czk_porep_num_inputs(const czk_porep_config *cfg)
{
    return 3 + (size_t)cfg->challenges * (1 + CZK_SDR_DRG_DEGREE + CZK_SDR_EXP_DEGREE + 3);
}

/* The tree_d and tree_c / tree_r_last shapes of a config; false when it has none. */
static bool shapes_of(const czk_porep_config *cfg, czk_por_shape *d, czk_por_shape *r)
{
    bool ok;
    memset(d, 0, sizeof *d);
    memset(r, 0, sizeof *r);
    d->hasher = CZK_MERKLE_SHA256;
    d->base_arity = 2;
    d->base_levels = log_base(cfg->nodes, 2, &ok);
    if (!ok || d->base_levels == 0) return false;
    uint64_t upper = (uint64_t)(cfg->tree_sub_arity ? cfg->tree_sub_arity : 1) *
                     (cfg->tree_top_arity ? cfg->tree_top_arity : 1);
    if (upper == 0 || cfg->nodes % upper != 0) return false;
    r->hasher = CZK_MERKLE_POSEIDON;
    r->base_arity = cfg->tree_base_arity;
    r->sub_arity = cfg->tree_sub_arity;
    r->top_arity = cfg->tree_top_arity;
    r->base_levels = log_base(cfg->nodes / upper, cfg->tree_base_arity, &ok);
    return ok && r->base_levels > 0;
}

/* Scratch of one synthesis: the label preimage and the parents' bits of one layer. */
typedef struct porep_scratch {
    czk_bool pre[LABEL_PRE_BITS];
    czk_bool parents[CZK_SDR_DEGREE][PARENT_BITS];
    czk_var drg_rows[CZK_SDR_DRG_DEGREE][CZK_POREP_MAX_LAYERS];
    czk_var exp_rows[CZK_SDR_EXP_DEGREE][CZK_POREP_MAX_LAYERS];
} porep_scratch;

/* AllocatedNum::alloc of a 32-byte LE value (ignored without a witness). */
static czk_var alloc_bytes(czk_cs *cs, const uint8_t *bytes, const char *what)
{
    if (!czk_cs_has_witness(cs) || bytes == NULL) return czk_cs_alloc(cs, NULL);
    czk_fr v;
    if (!czk_fr_from_bytes_le(&v, bytes)) {
        czk_cs_fail(cs, CZK_EINVAL, "porep: %s is not a canonical field element", what);
        v = CZK_FR_ZERO;
    }
    return czk_cs_alloc(cs, &v);
}

/* to_bits_le then reverse_bit_numbering: the 32-byte LE repr as bits, MSB of each byte
 * first (256 bits, the last byte's top bit a constant false). */
static void num_repr_bits(czk_cs *cs, czk_var num, czk_bool out[PARENT_BITS])
{
    czk_bool le[255];
    czk_num_to_bits_le(cs, num, le);
    czk_bits_reverse_numbering(out, le, 255);
}

/* hash.rs hash_single_column: Poseidon of the column (arity = its length, 2 or 11),
 * with the MerkleTree tag of PoseidonConstants::new(). */
static czk_var column_hash(czk_cs *cs, const czk_var *rows, unsigned n)
{
    czk_var out = czk_cs_one();
    const czk_poseidon_params *p = czk_poseidon_params_get(n);
    if (p == NULL || (n != 2 && n != 11)) {
        czk_cs_fail(cs, CZK_EINVAL, "porep: no column hash for %u layers", n);
        return out;
    }
    czk_poseidon_circuit(cs, &out, p, CZK_POSEIDON_MERKLE_TREE, n, rows);
    return out;
}

/* create_label_circuit: SHA-256 of replica id ‖ layer (BE32) ‖ node (BE64) ‖ zero
 * padding to 64 bytes ‖ the 37 parents, bits reversed per byte, first 254 bits packed. */
static czk_var create_label(czk_cs *cs, porep_scratch *s, const czk_bool replica_id[256],
                            const czk_bool *const parents[LABEL_PARENTS], unsigned layer,
                            const czk_uint64 *node)
{
    size_t n = 0;
    memcpy(s->pre, replica_id, 256 * sizeof(czk_bool));
    n = 256;
    czk_uint32 layer_num;
    czk_uint32_constant(&layer_num, layer);
    czk_uint32_to_bits_be(s->pre + n, &layer_num);
    n += 32;
    czk_uint64_to_bits_be(s->pre + n, node);
    n += 64;
    while (n < 512) s->pre[n++] = czk_bool_const(false);
    for (unsigned i = 0; i < LABEL_PARENTS; i++) {
        memcpy(s->pre + n, parents[i], PARENT_BITS * sizeof(czk_bool));
        n += PARENT_BITS;
    }
    czk_var out = czk_cs_one();
    czk_sha256_circuit_hash_bits(cs, &out, s->pre, n);
    return out;
}

/* params.rs Proof::synthesize for one challenge. */
static void synth_challenge(czk_cs *cs, porep_scratch *s, const czk_porep_config *cfg,
                            const czk_por_shape *shape_d, const czk_por_shape *shape_r,
                            const czk_porep_challenge *w, czk_var comm_d, czk_var comm_c,
                            czk_var comm_r_last, const czk_bool replica_id[256])
{
    const unsigned L = cfg->layers;
    czk_var data_leaf = alloc_bytes(cs, w ? w->data_leaf : NULL, "data_leaf");
    czk_por_circuit(cs, shape_d, &data_leaf, NULL, &comm_d, NULL, w ? &w->comm_d_path : NULL, true);

    for (unsigned i = 0; i < CZK_SDR_DRG_DEGREE; i++) {
        for (unsigned l = 0; l < L; l++)
            s->drg_rows[i][l] = alloc_bytes(cs, w ? w->drg[i].rows[l] : NULL, "drg row");
        czk_var h = column_hash(cs, s->drg_rows[i], L);
        czk_por_circuit(cs, shape_r, &h, NULL, &comm_c, NULL, w ? &w->drg[i].path : NULL, true);
    }
    for (unsigned i = 0; i < CZK_SDR_EXP_DEGREE; i++) {
        for (unsigned l = 0; l < L; l++)
            s->exp_rows[i][l] = alloc_bytes(cs, w ? w->exp[i].rows[l] : NULL, "exp row");
        czk_var h = column_hash(cs, s->exp_rows[i], L);
        czk_por_circuit(cs, shape_r, &h, NULL, &comm_c, NULL, w ? &w->exp[i].path : NULL, true);
    }

    czk_uint64 challenge;
    czk_uint64_alloc(cs, &challenge, w ? w->challenge : 0);
    czk_uint64_pack_into_input(cs, &challenge);

    czk_var labels[CZK_POREP_MAX_LAYERS];
    for (unsigned layer = 1; layer <= L; layer++) {
        unsigned np = 0;
        for (unsigned i = 0; i < CZK_SDR_DRG_DEGREE; i++)
            num_repr_bits(cs, s->drg_rows[i][layer - 1], s->parents[np++]);
        if (layer > 1)
            for (unsigned i = 0; i < CZK_SDR_EXP_DEGREE; i++)
                num_repr_bits(cs, s->exp_rows[i][layer - 2], s->parents[np++]);
        /* The parent list repeats: 14 parents twice and the first 9 again, or on layer 1
         * the 6 DRG parents six times and the first once more: 37 either way. */
        const czk_bool *list[LABEL_PARENTS];
        for (unsigned i = 0; i < LABEL_PARENTS; i++) list[i] = s->parents[i % np];
        labels[layer - 1] = create_label(cs, s, replica_id, list, layer, &challenge);
    }

    czk_var encoded = czk_num_add(cs, labels[L - 1], data_leaf);
    czk_por_circuit(cs, shape_r, &encoded, NULL, &comm_r_last, NULL,
                    w ? &w->comm_r_last_path : NULL, true);

    czk_var ch = column_hash(cs, labels, L);
    czk_por_circuit(cs, shape_r, &ch, NULL, &comm_c, NULL, w ? &w->comm_c_path : NULL, true);
}

/* What every challenge uses from the prologue (StackedCircuit::synthesize's part before
 * the challenges): the shapes, the commitments' variables and replica_id's bits. */
typedef struct porep_prologue {
    czk_por_shape shape_d, shape_r;
    czk_var comm_d, comm_c, comm_r_last;
    czk_bool replica_bits[256];
} porep_prologue;

/* Check the config and the witness, and synthesize the prologue; *w gets the witness
 * (NULL without values). */
static czk_status synth_prologue(czk_cs *cs, const czk_porep_circuit_ctx *x,
                                 const czk_porep_witness **w_out, porep_prologue *pp)
{
    const czk_porep_config *cfg = &x->config;
    const czk_porep_witness *w = czk_cs_has_witness(cs) ? x->witness : NULL;
    *w_out = w;
    if (czk_cs_has_witness(cs) && (w == NULL || w->challenges == NULL))
        return czk_cs_fail(cs, CZK_EINVAL, "porep: a witness is needed in this mode");
    if (cfg->layers < 1 || cfg->layers > CZK_POREP_MAX_LAYERS || cfg->challenges == 0 ||
        !shapes_of(cfg, &pp->shape_d, &pp->shape_r))
        return czk_cs_fail(cs, CZK_EINVAL, "porep: unsupported config (%llu nodes, %u layers)",
                           (unsigned long long)cfg->nodes, cfg->layers);

    czk_var replica_id = alloc_bytes(cs, w ? w->replica_id : NULL, "replica_id");
    czk_num_inputize(cs, replica_id);
    num_repr_bits(cs, replica_id, pp->replica_bits);

    pp->comm_d = alloc_bytes(cs, w ? w->comm_d : NULL, "comm_d");
    czk_num_inputize(cs, pp->comm_d);
    czk_var comm_r = alloc_bytes(cs, w ? w->comm_r : NULL, "comm_r");
    czk_num_inputize(cs, comm_r);
    pp->comm_r_last = alloc_bytes(cs, w ? w->comm_r_last : NULL, "comm_r_last");
    pp->comm_c = alloc_bytes(cs, w ? w->comm_c : NULL, "comm_c");

    czk_var pre[2] = {pp->comm_c, pp->comm_r_last}, h = czk_cs_one();
    czk_poseidon_circuit(cs, &h, czk_poseidon_params_get(2), CZK_POSEIDON_MERKLE_TREE, 2, pre);
    czk_num_enforce_equal(cs, comm_r, h);
    return czk_cs_status(cs);
}

czk_status czk_porep_circuit(czk_cs *cs, void *ctx)
{
    const czk_porep_circuit_ctx *x = ctx;
    const czk_porep_config *cfg = &x->config;
    const czk_porep_witness *w;
    porep_prologue pp;
    czk_status s = synth_prologue(cs, x, &w, &pp);
    if (s != CZK_OK) return s;
    porep_scratch *sc = czk_malloc(sizeof *sc);
    if (sc == NULL) return czk_cs_fail(cs, CZK_ENOMEM, "porep: out of memory");
    for (unsigned i = 0; i < cfg->challenges && czk_cs_status(cs) == CZK_OK; i++) {
        /* A cancelled synthesis (czk_pool_cancelled) stops between challenges. */
        if (czk_pool_cancelled()) {
            czk_cs_fail(cs, CZK_ECANCELED, "porep: synthesis cancelled");
            break;
        }
        synth_challenge(cs, sc, cfg, &pp.shape_d, &pp.shape_r, w ? &w->challenges[i] : NULL,
                        pp.comm_d, pp.comm_c, pp.comm_r_last, pp.replica_bits);
    }
    czk_free(sc);
    return czk_cs_status(cs);
}

czk_status czk_porep_public_inputs(czk_fr *out, size_t out_cap, const czk_porep_config *cfg,
                                   const czk_sdr_graph *graph, const uint8_t replica_id[32],
                                   const uint8_t comm_d[32], const uint8_t comm_r[32],
                                   const uint64_t *challenges, czk_err *err)
{
    size_t n = czk_porep_num_inputs(cfg), k = 0;
    if (out_cap < n)
        return czk_err_set(err, CZK_EINVAL, "porep: %zu public inputs need room, %zu given", n,
                           out_cap);
    if (!czk_fr_from_bytes_le(&out[k++], replica_id) || !czk_fr_from_bytes_le(&out[k++], comm_d) ||
        !czk_fr_from_bytes_le(&out[k++], comm_r))
        return czk_err_set(err, CZK_EINVAL, "porep: a commitment is not a canonical field element");
    uint64_t nodes = czk_sdr_graph_nodes(graph);
    if (nodes != cfg->nodes)
        return czk_err_set(err, CZK_EINVAL, "porep: graph of %llu nodes for a %llu-node config",
                           (unsigned long long)nodes, (unsigned long long)cfg->nodes);
    for (unsigned c = 0; c < cfg->challenges; c++) {
        uint64_t ch = challenges[c];
        if (ch >= nodes)
            return czk_err_set(err, CZK_EINVAL, "porep: challenge %llu outside %llu nodes",
                               (unsigned long long)ch, (unsigned long long)nodes);
        uint32_t parents[CZK_SDR_DEGREE];
        czk_sdr_parents(graph, (uint32_t)ch, parents);
        czk_fr_from_u64(&out[k++], ch); /* tree_d inclusion: the challenge's index bits */
        for (unsigned i = 0; i < CZK_SDR_DEGREE; i++) czk_fr_from_u64(&out[k++], parents[i]);
        czk_fr_from_u64(&out[k++], ch); /* the challenge itself */
        czk_fr_from_u64(&out[k++], ch); /* tree_r_last inclusion */
        czk_fr_from_u64(&out[k++], ch); /* tree_c inclusion of the challenge's column */
    }
    return CZK_OK;
}

/* One COUNT-mode synthesis of a config. */
static czk_status count_synth(const czk_porep_config *cfg, czk_cs_counts *out, czk_err *err)
{
    czk_porep_circuit_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.config = *cfg;
    czk_cs *cs;
    czk_status s = czk__count_begin(&cs, err);
    if (s != CZK_OK) return s;
    czk_porep_circuit(cs, &ctx);
    s = czk_cs_finish(cs, err);
    if (s == CZK_OK) czk_cs_get_counts(cs, out);
    czk_cs_destroy(cs);
    return s;
}

/*
 * Every challenge is synthesized by the same code, whose structure never depends on
 * values, and challenges share only variables allocated before the first of them
 * (replica_id's bits, the commitments). So each challenge after the first adds exactly
 * what the second adds — densities too, as a shared variable's density bit is already set
 * by the first challenge. Two small syntheses give the whole partition: `one` (prologue
 * and one challenge) and `delta` (one more challenge).
 *
 * They are cached per structure (the config less its challenge count): the parallel
 * synthesis needs them for every partition, and a 32 GiB pair of counts takes 1.5 s
 * (two loaded cores). Few structures exist (one per registered proof, a few more in tests), so a
 * small table that stops caching when full is enough.
 */
typedef struct shape_counts {
    czk_porep_config key; /* challenges = 0 */
    czk_cs_counts one, delta;
} shape_counts;

#define SHAPE_CACHE 16
static shape_counts shape_cache[SHAPE_CACHE];
static size_t shape_cache_n;
static pthread_mutex_t shape_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static bool same_shape(const czk_porep_config *a, const czk_porep_config *b)
{
    return a->nodes == b->nodes && a->layers == b->layers &&
           a->tree_base_arity == b->tree_base_arity && a->tree_sub_arity == b->tree_sub_arity &&
           a->tree_top_arity == b->tree_top_arity;
}

static czk_status shape_counts_get(const czk_porep_config *cfg, czk_cs_counts *one,
                                   czk_cs_counts *delta, czk_err *err)
{
    pthread_mutex_lock(&shape_cache_lock);
    for (size_t i = 0; i < shape_cache_n; i++) {
        if (same_shape(&shape_cache[i].key, cfg)) {
            *one = shape_cache[i].one;
            *delta = shape_cache[i].delta;
            pthread_mutex_unlock(&shape_cache_lock);
            return CZK_OK;
        }
    }
    pthread_mutex_unlock(&shape_cache_lock);

    /* Counted outside the lock: two threads may both count a new shape, which is only
     * wasted work, where holding the lock would stall every other shape's lookup. */
    czk_porep_config c = *cfg;
    czk_cs_counts two;
    c.challenges = 1;
    czk_status s = count_synth(&c, one, err);
    if (s != CZK_OK) return s;
    c.challenges = 2;
    s = count_synth(&c, &two, err);
    if (s != CZK_OK) return s;
    delta->n_inputs = two.n_inputs - one->n_inputs;
    delta->n_aux = two.n_aux - one->n_aux;
    delta->n_constraints = two.n_constraints - one->n_constraints;
    delta->a_aux_density = two.a_aux_density - one->a_aux_density;
    delta->b_input_density = two.b_input_density - one->b_input_density;
    delta->b_aux_density = two.b_aux_density - one->b_aux_density;

    pthread_mutex_lock(&shape_cache_lock);
    bool have = false;
    for (size_t i = 0; i < shape_cache_n && !have; i++) have = same_shape(&shape_cache[i].key, cfg);
    if (!have && shape_cache_n < SHAPE_CACHE) {
        shape_counts *e = &shape_cache[shape_cache_n++];
        e->key = *cfg;
        e->key.challenges = 0;
        e->one = *one;
        e->delta = *delta;
    }
    pthread_mutex_unlock(&shape_cache_lock);
    return CZK_OK;
}

czk_status czk_porep_count(const czk_porep_config *cfg, czk_cs_counts *out, czk_err *err)
{
    if (cfg->challenges <= 2) return count_synth(cfg, out, err);
    czk_cs_counts one, d;
    czk_status s = shape_counts_get(cfg, &one, &d, err);
    if (s != CZK_OK) return s;
    uint64_t k = cfg->challenges - 1;
    out->n_inputs = one.n_inputs + k * d.n_inputs;
    out->n_aux = one.n_aux + k * d.n_aux;
    out->n_constraints = one.n_constraints + k * d.n_constraints;
    out->a_aux_density = one.a_aux_density + k * d.a_aux_density;
    out->b_input_density = one.b_input_density + k * d.b_input_density;
    out->b_aux_density = one.b_aux_density + k * d.b_aux_density;
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Parallel synthesis                                                                   */
/* ------------------------------------------------------------------------------------ */

typedef struct par_ctx {
    const czk_porep_config *cfg;
    const czk_porep_witness *w;
    const porep_prologue *pp;
    czk_cs **children;
} par_ctx;

/* One challenge on its own fork. Each task takes its own scratch (about 0.3 MB). */
static void par_task(void *arg, size_t i, unsigned worker)
{
    (void)worker;
    const par_ctx *p = arg;
    czk_cs *cs = p->children[i];
    if (czk_pool_cancelled()) { /* the join passes the child's error on */
        czk_cs_fail(cs, CZK_ECANCELED, "porep: synthesis cancelled");
        return;
    }
    porep_scratch *sc = czk_malloc(sizeof *sc);
    if (sc == NULL) {
        czk_cs_fail(cs, CZK_ENOMEM, "porep: out of memory");
        return;
    }
    synth_challenge(cs, sc, p->cfg, &p->pp->shape_d, &p->pp->shape_r, &p->w->challenges[i],
                    p->pp->comm_d, p->pp->comm_c, p->pp->comm_r_last, p->pp->replica_bits);
    czk_free(sc);
}

czk_status czk_porep_circuit_par(czk_cs *cs, const czk_porep_circuit_ctx *ctx, czk_pool *pool)
{
    const czk_porep_config *cfg = &ctx->config;
    if (czk_cs_get_mode(cs) != CZK_CS_EVAL || !czk_cs_has_witness(cs) || czk_pool_size(pool) < 2 ||
        cfg->challenges <= 2 || czk_cs_status(cs) != CZK_OK)
        return czk_porep_circuit(cs, (void *)ctx);

    /* Where the prologue must end and what each challenge adds, before anything is
     * synthesized: an unsupported config fails here as the serial circuit would. */
    czk_cs_counts one = {0}, delta = {0}, start;
    czk_err e;
    czk_err_clear(&e);
    czk_por_shape sd, sr;
    if (cfg->layers >= 1 && cfg->layers <= CZK_POREP_MAX_LAYERS && shapes_of(cfg, &sd, &sr) &&
        shape_counts_get(cfg, &one, &delta, &e) != CZK_OK)
        return czk_cs_fail(cs, e.status, "porep: counting the circuit: %s", e.msg);
    const czk_porep_witness *w;
    porep_prologue pp;
    czk_status s = synth_prologue(cs, ctx, &w, &pp);
    if (s != CZK_OK) return s;

    czk_cs_get_counts(cs, &start);
    if (start.n_inputs + delta.n_inputs != one.n_inputs || start.n_aux + delta.n_aux != one.n_aux ||
        start.n_constraints + delta.n_constraints != one.n_constraints)
        return czk_cs_fail(cs, CZK_EINTERNAL,
                           "porep: the prologue ended at %llu/%llu/%llu inputs/aux/constraints, "
                           "its count says %llu/%llu/%llu",
                           (unsigned long long)start.n_inputs, (unsigned long long)start.n_aux,
                           (unsigned long long)start.n_constraints,
                           (unsigned long long)(one.n_inputs - delta.n_inputs),
                           (unsigned long long)(one.n_aux - delta.n_aux),
                           (unsigned long long)(one.n_constraints - delta.n_constraints));

    size_t n = cfg->challenges;
    czk_cs **children = czk_calloc(n, sizeof *children);
    if (children == NULL) return czk_cs_fail(cs, CZK_ENOMEM, "porep: out of memory");
    size_t made = 0;
    for (; made < n; made++) {
        czk_cs_counts at = start;
        at.n_inputs += made * delta.n_inputs;
        at.n_aux += made * delta.n_aux;
        at.n_constraints += made * delta.n_constraints;
        if (czk_cs_fork(cs, &at, &children[made], &e) != CZK_OK) break;
    }
    if (made == n) {
        par_ctx p = {cfg, w, &pp, children};
        czk_pool_run(pool, n, par_task, &p);
        (void)czk_cs_join(cs, children, n, NULL); /* its error is the cs's sticky one */
    } else {
        /* Nothing was synthesized on the children made: drop them, keep the parent's
         * counts at the prologue's end, and fail. */
        for (size_t i = 0; i < made; i++) czk_cs_destroy(children[i]);
        czk_cs_fail(cs, e.status, "porep: %s", e.msg);
    }
    czk_free(children);
    return czk_cs_status(cs);
}

czk_status czk_circuit_porep_count(int seal_proof, czk_circuit_info *out, czk_err *err)
{
    czk_porep_config cfg;
    czk_status s = czk_porep_config_for_proof(&cfg, (czk_seal_proof)seal_proof, err);
    if (s != CZK_OK) return s;
    czk_cs_counts c;
    s = czk_porep_count(&cfg, &c, err);
    if (s != CZK_OK) return s;
    czk__circuit_info_of(out, &c);
    return CZK_OK;
}
