/*
 * The SnapDeals EmptySectorUpdateCircuit, ported statement by statement from
 * rust-fil-proofs storage-proofs-update/src/circuit.rs (synthesize) and gadgets.rs
 * (apex_por, gen_challenge_bits, get_challenge_high_bits, label_r_new). Variables are
 * allocated and constraints enforced in upstream's order, because the published Groth16
 * parameters fix both; the comments name the upstream step each block reproduces.
 */
#include <pthread.h>
#include <string.h>

#include "czk/alloc.h"
#include "czk/pool.h"
#include "czk/poseidon.h"
#include "czk/seal_proof.h"
#include "czk/snap.h"
#include "count.h"

/* ------------------------------------------------------------------------------------ */
/* Parameters (constants.rs, vanilla.rs PublicParams::from_sector_size)                  */
/* ------------------------------------------------------------------------------------ */

static unsigned log2u64(uint64_t v)
{
    unsigned k = 0;
    while (k < 64 && (UINT64_C(1) << k) < v) k++;
    return k;
}

czk_status czk_snap_params_get(czk_snap_params *out, uint64_t sector_size, czk_err *err)
{
    /* validate_tree_r_shape: the TreeR (sub, top) arities of every allowed size. */
    static const struct {
        unsigned log2_nodes, sub, top;
    } sizes[] = {
        {5, 4, 0},  {6, 0, 0},  {7, 2, 0},  {8, 4, 0},  {9, 8, 0},  {10, 8, 2},
        {18, 0, 0}, {19, 2, 0}, {24, 0, 0}, {30, 8, 0}, {31, 8, 2},
    };
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t nodes = UINT64_C(1) << sizes[i].log2_nodes;
        if (nodes * 32 != sector_size) continue;
        out->sector_size = sector_size;
        out->nodes = nodes;
        out->challenge_bit_len = sizes[i].log2_nodes;
        /* partition_count / challenge_count / apex_leaf_count / hs thresholds. */
        out->partition_count = nodes <= (1u << 8)    ? 1
                               : nodes <= (1u << 10) ? 2
                               : nodes <= (1u << 19) ? 4
                                                     : 16;
        out->partition_bit_len = log2u64(out->partition_count);
        out->challenge_count = nodes <= (1u << 19) ? 10 : 86;
        out->apex_leaf_count = nodes <= (1u << 8) ? 8 : 128;
        out->apex_leaf_bit_len = log2u64(out->apex_leaf_count);
        for (unsigned j = 0; j < CZK_SNAP_HS; j++) out->hs[j] = nodes <= (1u << 10) ? 1 : 7 + j;
        unsigned sub_bits = log2u64(sizes[i].sub), top_bits = log2u64(sizes[i].top);
        out->tree_r.hasher = CZK_MERKLE_POSEIDON;
        out->tree_r.base_arity = 8;
        out->tree_r.sub_arity = sizes[i].sub;
        out->tree_r.top_arity = sizes[i].top;
        out->tree_r.base_levels = (sizes[i].log2_nodes - sub_bits - top_bits) / 3;
        return CZK_OK;
    }
    return czk_err_set(err, CZK_EINVAL, "snap: sector size %llu is not one of SnapDeals' sizes",
                       (unsigned long long)sector_size);
}

unsigned czk_snap_h_default(const czk_snap_params *p)
{
    return p->hs[3];
}

/* Index of h in hs, or -1. */
static int h_index(const czk_snap_params *p, unsigned h)
{
    for (int i = 0; i < CZK_SNAP_HS; i++)
        if (p->hs[i] == h) return i;
    return -1;
}

static czk_status fr_from_le(czk_fr *out, const uint8_t in[32], const char *what, czk_err *err)
{
    if (!czk_fr_from_bytes_le(out, in))
        return czk_err_set(err, CZK_EINVAL, "snap: %s is not a field element", what);
    return CZK_OK;
}

czk_status czk_snap_public_inputs(czk_fr out[4], const czk_snap_params *p, uint64_t k, unsigned h,
                                  const uint8_t comm_r_old[32], const uint8_t comm_d_new[32],
                                  const uint8_t comm_r_new[32], czk_err *err)
{
    int hi = h_index(p, h);
    if (k >= p->partition_count)
        return czk_err_set(err, CZK_EINVAL, "snap: partition %llu of %u", (unsigned long long)k,
                           p->partition_count);
    if (hi < 0) return czk_err_set(err, CZK_EINVAL, "snap: h = %u is not allowed for this size", h);
    czk_fr_from_u64(&out[0], k | (UINT64_C(1) << hi) << p->partition_bit_len);
    czk_status s = fr_from_le(&out[1], comm_r_old, "comm_r_old", err);
    if (s == CZK_OK) s = fr_from_le(&out[2], comm_d_new, "comm_d_new", err);
    if (s == CZK_OK) s = fr_from_le(&out[3], comm_r_new, "comm_r_new", err);
    return s;
}

/* H = Poseidon-2 with HashType::Custom(CType::Arbitrary(1)) (POSEIDON_CONSTANTS_GEN_RANDOMNESS). */
static void gen_randomness(czk_fr *out, const czk_fr *a, const czk_fr *b)
{
    czk_fr in[2] = {*a, *b};
    (void)czk_poseidon_hash(out, czk_poseidon_params_get(2), CZK_POSEIDON_CUSTOM, 1, in, 2);
}

czk_status czk_snap_phi(uint8_t out[32], const uint8_t comm_d_new[32], const uint8_t comm_r_old[32],
                        czk_err *err)
{
    czk_fr d, r, phi;
    czk_status s = fr_from_le(&d, comm_d_new, "comm_d_new", err);
    if (s == CZK_OK) s = fr_from_le(&r, comm_r_old, "comm_r_old", err);
    if (s != CZK_OK) return s;
    gen_randomness(&phi, &d, &r);
    czk_fr_to_bytes_le(out, &phi);
    return CZK_OK;
}

czk_status czk_snap_rho(czk_fr *out, const czk_snap_params *p, const uint8_t phi[32], uint64_t c,
                        unsigned h, czk_err *err)
{
    if (h == 0 || h > p->challenge_bit_len)
        return czk_err_set(err, CZK_EINVAL, "snap: h = %u for %u-bit challenges", h,
                           p->challenge_bit_len);
    czk_fr f, high;
    czk_status s = fr_from_le(&f, phi, "phi", err);
    if (s != CZK_OK) return s;
    czk_fr_from_u64(&high, c >> (p->challenge_bit_len - h));
    gen_randomness(out, &f, &high);
    return CZK_OK;
}

/* challenges_per_digest and digests_per_partition of gen_challenge_bits / Challenges. */
static void digest_layout(const czk_snap_params *p, unsigned *per_digest, unsigned *digests)
{
    unsigned bits = p->challenge_bit_len - p->partition_bit_len;
    *per_digest = CZK_MULTIPACK_CAPACITY / bits;
    *digests = (p->challenge_count + *per_digest - 1) / *per_digest;
}

czk_status czk_snap_challenges(uint32_t *out, const czk_snap_params *p,
                               const uint8_t comm_r_new[32], uint64_t k, czk_err *err)
{
    if (k >= p->partition_count)
        return czk_err_set(err, CZK_EINVAL, "snap: partition %llu of %u", (unsigned long long)k,
                           p->partition_count);
    czk_fr comm;
    czk_status s = fr_from_le(&comm, comm_r_new, "comm_r_new", err);
    if (s != CZK_OK) return s;
    unsigned bits = p->challenge_bit_len - p->partition_bit_len, per_digest, digests;
    digest_layout(p, &per_digest, &digests);
    uint8_t le[32];
    for (unsigned i = 0; i < p->challenge_count; i++) {
        unsigned j = i / per_digest, pos = i % per_digest;
        if (pos == 0) {
            czk_fr idx, dig;
            czk_fr_from_u64(&idx, k * digests + j);
            gen_randomness(&dig, &comm, &idx);
            czk_fr_to_bytes_le(le, &dig);
        }
        uint32_t c = 0;
        for (unsigned b = 0; b < bits; b++) {
            unsigned at = pos * bits + b;
            c |= (uint32_t)((le[at / 8] >> (at % 8)) & 1) << b;
        }
        out[i] = c | (uint32_t)(k << bits);
    }
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Circuit                                                                              */
/* ------------------------------------------------------------------------------------ */

/* AllocatedNum::alloc of a 32-byte LE value (value-less without a witness). */
static czk_var alloc_le(czk_cs *cs, const uint8_t *bytes, const char *what)
{
    if (bytes == NULL || !czk_cs_has_witness(cs)) return czk_cs_alloc(cs, NULL);
    czk_fr v;
    if (!czk_fr_from_bytes_le(&v, bytes)) {
        czk_cs_fail(cs, CZK_EINVAL, "snap: %s is not a field element", what);
        v = CZK_FR_ZERO;
    }
    return czk_cs_alloc(cs, &v);
}

/* Σ 2^i·bits[i] added to lc (LinearCombination built with a doubling pow2). */
static void lc_add_bits(czk_lc *lc, const czk_bool *bits, size_t n)
{
    czk_fr pow2 = CZK_FR_ONE;
    for (size_t i = 0; i < n; i++) {
        czk_bool_lc_add(lc, bits[i], &pow2);
        czk_fr_dbl(&pow2, &pow2);
    }
}

/* enforce (Σ 2^i·bits[i])·1 = num: the "binary decomp" of allocated_num_to_allocated_bits
 * and of k_and_h_select. */
static void enforce_decomp(czk_cs *cs, const czk_bool *bits, size_t n, czk_var num)
{
    czk_lc a, b, c;
    czk_lc_init(&a, cs);
    czk_lc_init(&b, cs);
    czk_lc_init(&c, cs);
    lc_add_bits(&a, bits, n);
    czk_lc_add(&b, czk_cs_one());
    czk_lc_add(&c, num);
    czk_cs_enforce(cs, &a, &b, &c);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
}

static czk_var poseidon_gen(czk_cs *cs, czk_var a, czk_var b)
{
    czk_var in[2] = {a, b}, out = czk_cs_one();
    czk_poseidon_circuit(cs, &out, czk_poseidon_params_get(2), CZK_POSEIDON_CUSTOM, 1, in);
    return out;
}

static czk_var poseidon_merkle2(czk_cs *cs, czk_var a, czk_var b)
{
    czk_var in[2] = {a, b}, out = czk_cs_one();
    czk_poseidon_circuit(cs, &out, czk_poseidon_params_get(2), CZK_POSEIDON_MERKLE_TREE, 0, in);
    return out;
}

static czk_var sha_hash2(czk_cs *cs, czk_var a, czk_var b)
{
    czk_var in[2] = {a, b}, out = czk_cs_one();
    czk_sha256_circuit_hash_nums(cs, &out, in, 2);
    return out;
}

/* Siblings of a path, flat (level 0 first): the number a shape's path holds. */
static unsigned shape_siblings(const czk_por_shape *s)
{
    unsigned n = s->base_levels * (s->base_arity - 1);
    if (s->sub_arity) n += s->sub_arity - 1;
    if (s->top_arity) n += s->top_arity - 1;
    return n;
}

/* The witness's paths fit the parameters (circuit.rs's shape assertions). */
static czk_status check_witness(czk_cs *cs, const czk_snap_params *p, const czk_snap_witness *w,
                                int *hi)
{
    if (w->k >= p->partition_count)
        return czk_cs_fail(cs, CZK_EINVAL, "snap: partition %llu of %u", (unsigned long long)w->k,
                           p->partition_count);
    *hi = h_index(p, w->h);
    if (*hi < 0) return czk_cs_fail(cs, CZK_EINVAL, "snap: h = %u is not allowed", w->h);
    if (w->challenges == NULL || w->apex_leafs == NULL)
        return czk_cs_fail(cs, CZK_EINVAL, "snap: witness without challenges or apex leaves");
    unsigned rl = czk_por_shape_levels(&p->tree_r), B = p->challenge_bit_len;
    unsigned P = p->partition_bit_len;
    for (unsigned i = 0; i < p->challenge_count; i++) {
        const czk_snap_challenge_witness *c = &w->challenges[i];
        if (c->r_old.levels != rl || c->r_new.levels != rl || c->d_new.levels != B)
            return czk_cs_fail(cs, CZK_EINVAL, "snap: challenge %u has paths of the wrong height",
                               i);
        /* Every challenge of a partition shares the partition path (the top P levels). */
        for (unsigned l = B - P; l < B; l++)
            if (memcmp(c->d_new.siblings[l], w->challenges[0].d_new.siblings[l], 32) != 0)
                return czk_cs_fail(cs, CZK_EINVAL, "snap: challenge %u has another partition path",
                                   i);
    }
    return CZK_OK;
}

/* What every challenge uses from the prologue (circuit.rs before its challenge loop). */
typedef struct snap_shared {
    const czk_snap_params *p;
    const czk_snap_witness *w; /* NULL without a witness */
    const czk_bool *dbits, *partition_bits, *h_select_bits;
    const czk_var *apex;
    czk_var phi, root_r_old, root_r_new;
    unsigned per_digest, nr;
} snap_shared;

/*
 * One challenge of circuit.rs's loop. `lc` are three LCs on cs, `sib` room for 2·nr + B
 * variables. Its structure never depends on ci or on values, so every challenge adds the
 * same numbers of variables and constraints (czk_snap_synthesize_par relies on it).
 */
static void snap_challenge(czk_cs *cs, const snap_shared *sh, unsigned ci, czk_lc lc[3],
                           czk_var *sib)
{
    const czk_snap_params *p = sh->p;
    const czk_snap_witness *w = sh->w;
    const unsigned B = p->challenge_bit_len, P = p->partition_bit_len, A = p->apex_leaf_bit_len;
    const unsigned bits_per = B - P, per_digest = sh->per_digest, nr = sh->nr;
    const czk_bool *dbits = sh->dbits, *partition_bits = sh->partition_bits;
    const czk_bool *h_select_bits = sh->h_select_bits;
    const czk_var *apex = sh->apex;
    czk_var phi = sh->phi, root_r_old = sh->root_r_old, root_r_new = sh->root_r_new;
    czk_var *sib_old = sib, *sib_new = sib + nr, *sib_d = sib + 2 * nr;
    const czk_snap_challenge_witness *cp = w != NULL ? &w->challenges[ci] : NULL;
    czk_bool cbits[40];
    /* c_bits = this challenge's random bits ‖ partition bits (little-endian). */
    memcpy(cbits,
           dbits + (size_t)(ci / per_digest) * 255 + (size_t)(ci % per_digest) * bits_per,
           bits_per * sizeof *cbits);
    memcpy(cbits + bits_per, partition_bits, P * sizeof *cbits);

    /* get_challenge_high_bits: c_high_k = pack(top hs[k] bits) · h_select_bit_k,
     * summed. */
    czk_var or_zero[CZK_SNAP_HS];
    for (unsigned hk = 0; hk < CZK_SNAP_HS; hk++) {
        unsigned h = p->hs[hk];
        czk_var c_high = czk_multipack_pack_bits(cs, cbits + B - h, h);
        bool sel = czk_cs_value_bit(cs, czk_bool_var(h_select_bits[hk]));
        or_zero[hk] = czk_cs_alloc(cs, w == NULL ? NULL
                                       : sel     ? czk_cs_value(cs, c_high)
                                                 : &CZK_FR_ZERO);
        for (int i = 0; i < 3; i++) czk_lc_clear(&lc[i]);
        czk_lc_add(&lc[0], c_high);
        czk_lc_add(&lc[1], czk_bool_var(h_select_bits[hk]));
        czk_lc_add(&lc[2], or_zero[hk]);
        czk_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
    }
    czk_fr sum = CZK_FR_ZERO;
    if (w != NULL)
        for (unsigned hk = 0; hk < CZK_SNAP_HS; hk++)
            czk_fr_add(&sum, &sum, czk_cs_value(cs, or_zero[hk]));
    czk_var c_high = czk_cs_alloc(cs, w != NULL ? &sum : NULL);
    for (int i = 0; i < 3; i++) czk_lc_clear(&lc[i]);
    for (unsigned hk = 0; hk < CZK_SNAP_HS; hk++) czk_lc_add(&lc[0], or_zero[hk]);
    czk_lc_add(&lc[1], czk_cs_one());
    czk_lc_add(&lc[2], c_high);
    czk_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);

    /* rho = H(phi || c_high) */
    czk_var rho = poseidon_gen(cs, phi, c_high);

    czk_var leaf_r_old = alloc_le(cs, cp ? cp->r_old.leaf : NULL, "leaf_r_old");
    czk_var leaf_d_new = alloc_le(cs, cp ? cp->d_new.leaf : NULL, "leaf_d_new");
    /* label_r_new: leaf_r_new = leaf_r_old + leaf_d_new·rho */
    czk_var prod = czk_num_mul(cs, leaf_d_new, rho);
    czk_var leaf_r_new = czk_num_add(cs, leaf_r_old, prod);

    for (unsigned i = 0; i < nr; i++)
        sib_old[i] = alloc_le(cs, cp ? cp->r_old.siblings[i] : NULL, "path_r_old sibling");
    czk_por_no_challenge_input(cs, &p->tree_r, cbits, leaf_r_old, sib_old, root_r_old);
    for (unsigned i = 0; i < nr; i++)
        sib_new[i] = alloc_le(cs, cp ? cp->r_new.siblings[i] : NULL, "path_r_new sibling");
    czk_por_no_challenge_input(cs, &p->tree_r, cbits, leaf_r_new, sib_new, root_r_new);

    /* The apex leaf this challenge's TreeD path ends at, and the path up to it. */
    const unsigned to_apex = B - P - A;
    czk_var apex_leaf = czk_num_select(cs, apex, cbits + to_apex, A);
    for (unsigned i = 0; i < to_apex; i++)
        sib_d[i] = alloc_le(cs, cp ? cp->d_new.siblings[i] : NULL, "path_d_new sibling");
    czk_por_shape to_apex_shape = {CZK_MERKLE_SHA256, 2, 0, 0, to_apex};
    czk_por_no_challenge_input(cs, &to_apex_shape, cbits, leaf_d_new, sib_d, apex_leaf);
}

static void snap_challenges_par(czk_cs *cs, const snap_shared *sh, czk_pool *pool);

/* circuit.rs synthesize: the prologue, then the challenges here or (pool not NULL) on
 * forks of cs. */
static czk_status snap_run(czk_cs *cs, const czk_snap_params *p, const czk_snap_witness *w,
                           czk_pool *pool)
{
    bool wit = czk_cs_has_witness(cs);
    if (wit && w == NULL) return czk_cs_fail(cs, CZK_EINVAL, "snap: witness missing");
    if (!wit) w = NULL;
    const unsigned B = p->challenge_bit_len, P = p->partition_bit_len, A = p->apex_leaf_bit_len;
    const unsigned CC = p->challenge_count, NA = p->apex_leaf_count;
    if (P > 8 || B > 40 || B < P + A || NA != (1u << A))
        return czk_cs_fail(cs, CZK_EINVAL, "snap: bad parameters");
    int hi = 0;
    if (w != NULL) {
        czk_status s = check_witness(cs, p, w, &hi);
        if (s != CZK_OK) return s;
    }

    const unsigned NKH = P + CZK_SNAP_HS;
    czk_bool khbits[8 + CZK_SNAP_HS];
    czk_lc lc[3];
    for (int i = 0; i < 3; i++) czk_lc_init(&lc[i], cs);

    /* k_and_h_select: allocated, inputized, split into P partition bits and 6 h_select
     * bits with the "k_and_h_select binary decomp" constraint. */
    uint64_t khs = w != NULL ? (w->k | (UINT64_C(1) << hi) << P) : 0;
    czk_fr khs_fr;
    czk_fr_from_u64(&khs_fr, khs);
    czk_var khs_var = czk_cs_alloc(cs, w != NULL ? &khs_fr : NULL);
    czk_num_inputize(cs, khs_var);
    for (unsigned i = 0; i < NKH; i++) khbits[i] = czk_bit_alloc(cs, (khs >> i) & 1);
    enforce_decomp(cs, khbits, NKH, khs_var);
    const czk_bool *partition_bits = khbits, *h_select_bits = khbits + P;
    czk_var partition = czk_multipack_pack_bits(cs, partition_bits, P);

    czk_var comm_r_old = alloc_le(cs, w ? w->comm_r_old : NULL, "comm_r_old");
    czk_num_inputize(cs, comm_r_old);
    czk_var comm_d_new = alloc_le(cs, w ? w->comm_d_new : NULL, "comm_d_new");
    czk_num_inputize(cs, comm_d_new);
    czk_var comm_r_new = alloc_le(cs, w ? w->comm_r_new : NULL, "comm_r_new");
    czk_num_inputize(cs, comm_r_new);

    /* phi = H(comm_d_new || comm_r_old) */
    czk_var phi = poseidon_gen(cs, comm_d_new, comm_r_old);

    /* Private inputs other than the challenges' paths. */
    czk_var comm_c = alloc_le(cs, w ? w->comm_c : NULL, "comm_c");
    czk_var root_r_old = alloc_le(cs, w ? w->root_r_old : NULL, "root_r_old");
    czk_var root_r_new = alloc_le(cs, w ? w->root_r_new : NULL, "root_r_new");
    unsigned nr = shape_siblings(&p->tree_r);
    czk_var *apex = czk_malloc((2 * (size_t)NA + P + 2 * (size_t)nr + B) * sizeof *apex);
    unsigned per_digest, digests;
    digest_layout(p, &per_digest, &digests);
    czk_bool *dbits = czk_malloc(((size_t)digests * 255 + 1) * sizeof *dbits);
    if (apex == NULL || dbits == NULL) {
        czk_free(apex);
        czk_free(dbits);
        for (int i = 0; i < 3; i++) czk_lc_free(&lc[i]);
        return czk_cs_fail(cs, CZK_ENOMEM, "snap: out of memory");
    }
    czk_var *row = apex + NA, *ppath = row + NA, *sib = ppath + P;
    for (unsigned i = 0; i < NA; i++)
        apex[i] = alloc_le(cs, w ? w->apex_leafs[i] : NULL, "apex leaf");
    for (unsigned i = 0; i < P; i++)
        ppath[i] =
            alloc_le(cs, w ? w->challenges[0].d_new.siblings[B - P + i] : NULL, "partition path");

    /* comm_r_{old,new} = H_merkle(comm_c || root_r_{old,new}) */
    czk_num_enforce_equal(cs, poseidon_merkle2(cs, comm_c, root_r_old), comm_r_old);
    czk_num_enforce_equal(cs, poseidon_merkle2(cs, comm_c, root_r_new), comm_r_new);

    /* apex_por: the apex tree over this partition's apex leaves, then its root up the
     * partition path (index bits = k) to comm_d_new. */
    memcpy(row, apex, NA * sizeof *row);
    for (unsigned n = NA; n > 1; n /= 2)
        for (unsigned i = 0; i < n / 2; i++) row[i] = sha_hash2(cs, row[2 * i], row[2 * i + 1]);
    czk_por_shape tree_d = {CZK_MERKLE_SHA256, 2, 0, 0, P};
    czk_por_no_challenge_input(cs, &tree_d, partition_bits, row[0], ppath, comm_d_new);

    /* gen_challenge_bits: digest_j = H(comm_r_new || k·digests + j), 255 bits each. */
    uint64_t k = w != NULL ? w->k : 0;
    for (unsigned j = 0; j < digests; j++) {
        czk_fr idx, dcoef, jf;
        czk_fr_from_u64(&idx, k * digests + j);
        czk_fr_from_u64(&dcoef, digests);
        czk_fr_from_u64(&jf, j);
        czk_var digest_index = czk_cs_alloc(cs, w != NULL ? &idx : NULL);
        for (int i = 0; i < 3; i++) czk_lc_clear(&lc[i]);
        czk_lc_add_term(&lc[0], &dcoef, partition);
        czk_lc_add_const(&lc[0], &jf);
        czk_lc_add(&lc[1], czk_cs_one());
        czk_lc_add(&lc[2], digest_index);
        czk_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
        czk_var digest = poseidon_gen(cs, comm_r_new, digest_index);
        czk_bits_alloc_fr_le(cs, czk_cs_value(cs, digest), dbits + (size_t)j * 255);
        enforce_decomp(cs, dbits + (size_t)j * 255, 255, digest);
    }

    snap_shared sh = {p, w, dbits, partition_bits, h_select_bits, apex, phi, root_r_old,
                      root_r_new, per_digest, nr};
    if (pool != NULL && czk_cs_status(cs) == CZK_OK)
        snap_challenges_par(cs, &sh, pool);
    else
        for (unsigned ci = 0; ci < CC; ci++) {
            /* A cancelled synthesis (czk_pool_cancelled) stops between challenges. */
            if (czk_pool_cancelled()) {
                czk_cs_fail(cs, CZK_ECANCELED, "snap: synthesis cancelled");
                break;
            }
            snap_challenge(cs, &sh, ci, lc, sib);
        }

    czk_free(apex);
    czk_free(dbits);
    for (int i = 0; i < 3; i++) czk_lc_free(&lc[i]);
    return czk_cs_status(cs);
}

czk_status czk_snap_synthesize(czk_cs *cs, const czk_snap_params *p, const czk_snap_witness *w)
{
    return snap_run(cs, p, w, NULL);
}

/* ------------------------------------------------------------------------------------ */
/* Parallel synthesis                                                                   */
/* ------------------------------------------------------------------------------------ */

/*
 * What one challenge adds (variables, constraints), from COUNT syntheses of the same
 * parameters with one and with two challenges: both take one challenge digest (a digest
 * feeds 254 / (B − P) ≥ 6 challenges), so they differ by exactly one challenge. Cached
 * per parameters: a 32 GiB pair costs 1.3 s (two loaded cores), and there are 11 sizes.
 */
typedef struct snap_delta {
    czk_snap_params key; /* challenge_count = 0 */
    czk_cs_counts delta;
} snap_delta;

#define SNAP_DELTA_CACHE 16
static snap_delta delta_cache[SNAP_DELTA_CACHE];
static size_t delta_cache_n;
static pthread_mutex_t delta_lock = PTHREAD_MUTEX_INITIALIZER;

static czk_status count_with(const czk_snap_params *p, unsigned challenges, czk_cs_counts *out)
{
    czk_snap_params q = *p;
    q.challenge_count = challenges;
    czk_cs *cs;
    czk_status s = czk__count_begin(&cs, NULL);
    if (s != CZK_OK) return s;
    (void)czk_snap_synthesize(cs, &q, NULL);
    s = czk_cs_finish(cs, NULL);
    czk_cs_get_counts(cs, out);
    czk_cs_destroy(cs);
    return s;
}

static czk_status snap_delta_get(const czk_snap_params *p, czk_cs_counts *delta)
{
    czk_snap_params key = *p;
    key.challenge_count = 0;
    pthread_mutex_lock(&delta_lock);
    for (size_t i = 0; i < delta_cache_n; i++) {
        if (memcmp(&delta_cache[i].key, &key, sizeof key) == 0) {
            *delta = delta_cache[i].delta;
            pthread_mutex_unlock(&delta_lock);
            return CZK_OK;
        }
    }
    pthread_mutex_unlock(&delta_lock);
    czk_cs_counts one, two;
    czk_status s = count_with(p, 1, &one);
    if (s == CZK_OK) s = count_with(p, 2, &two);
    if (s != CZK_OK) return s;
    memset(delta, 0, sizeof *delta);
    delta->n_inputs = two.n_inputs - one.n_inputs;
    delta->n_aux = two.n_aux - one.n_aux;
    delta->n_constraints = two.n_constraints - one.n_constraints;
    pthread_mutex_lock(&delta_lock);
    if (delta_cache_n < SNAP_DELTA_CACHE) {
        delta_cache[delta_cache_n].key = key;
        delta_cache[delta_cache_n].delta = *delta;
        delta_cache_n++;
    }
    pthread_mutex_unlock(&delta_lock);
    return CZK_OK;
}

typedef struct snap_par {
    const snap_shared *sh;
    czk_cs **children;
} snap_par;

/* One challenge on its own fork, with its own LCs and sibling variables. */
static void snap_task(void *arg, size_t ci, unsigned worker)
{
    (void)worker;
    const snap_par *x = arg;
    czk_cs *cs = x->children[ci];
    if (czk_pool_cancelled()) { /* the join passes the child's error on */
        czk_cs_fail(cs, CZK_ECANCELED, "snap: synthesis cancelled");
        return;
    }
    const czk_snap_params *p = x->sh->p;
    czk_var *sib = czk_malloc((2 * (size_t)x->sh->nr + p->challenge_bit_len) * sizeof *sib);
    if (sib == NULL) {
        czk_cs_fail(cs, CZK_ENOMEM, "snap: out of memory");
        return;
    }
    czk_lc lc[3];
    for (int i = 0; i < 3; i++) czk_lc_init(&lc[i], cs);
    snap_challenge(cs, x->sh, (unsigned)ci, lc, sib);
    for (int i = 0; i < 3; i++) czk_lc_free(&lc[i]);
    czk_free(sib);
}

/* The challenges on forks of cs at the prologue's end plus ci times one challenge. */
static void snap_challenges_par(czk_cs *cs, const snap_shared *sh, czk_pool *pool)
{
    size_t n = sh->p->challenge_count;
    czk_cs_counts start, delta;
    czk_status s = snap_delta_get(sh->p, &delta);
    if (s != CZK_OK) {
        czk_cs_fail(cs, s, "snap: counting one challenge failed: %s", czk_strerror(s));
        return;
    }
    czk_cs_get_counts(cs, &start);
    czk_cs **children = czk_calloc(n, sizeof *children);
    if (children == NULL) {
        czk_cs_fail(cs, CZK_ENOMEM, "snap: out of memory");
        return;
    }
    czk_err e;
    czk_err_clear(&e);
    size_t made = 0;
    for (; made < n; made++) {
        czk_cs_counts at = start;
        at.n_inputs += made * delta.n_inputs;
        at.n_aux += made * delta.n_aux;
        at.n_constraints += made * delta.n_constraints;
        if (czk_cs_fork(cs, &at, &children[made], &e) != CZK_OK) break;
    }
    if (made == n) {
        snap_par x = {sh, children};
        czk_pool_run(pool, n, snap_task, &x);
        (void)czk_cs_join(cs, children, n, NULL); /* its error is the cs's sticky one */
    } else {
        for (size_t i = 0; i < made; i++) czk_cs_destroy(children[i]);
        czk_cs_fail(cs, e.status, "snap: %s", e.msg);
    }
    czk_free(children);
}

czk_status czk_snap_synthesize_par(czk_cs *cs, const czk_snap_params *p, const czk_snap_witness *w,
                                   czk_pool *pool)
{
    if (czk_cs_get_mode(cs) != CZK_CS_EVAL || !czk_cs_has_witness(cs) ||
        czk_pool_size(pool) < 2 || p->challenge_count <= 2)
        pool = NULL;
    return snap_run(cs, p, w, pool);
}

czk_status czk_snap_circuit(czk_cs *cs, void *ctx)
{
    const czk_snap_circuit_ctx *c = ctx;
    return czk_snap_synthesize(cs, c->params, c->witness);
}

/* ------------------------------------------------------------------------------------ */
/* Circuit info                                                                         */
/* ------------------------------------------------------------------------------------ */

czk_status czk_snap_count(const czk_snap_params *p, czk_circuit_info *out, czk_err *err)
{
    czk_cs *cs;
    czk_status s = czk__count_begin(&cs, err);
    if (s != CZK_OK) return s;
    (void)czk_snap_synthesize(cs, p, NULL);
    return czk__count_end(cs, out, err);
}

czk_status czk_circuit_snap_count(int seal_proof, czk_circuit_info *out, czk_err *err)
{
    const czk_seal_proof_info *info = czk_seal_proof_get((czk_seal_proof)seal_proof);
    if (info == NULL)
        return czk_err_set(err, CZK_EINVAL, "snap: unknown registered seal proof %d", seal_proof);
    czk_snap_params p;
    czk_status s = czk_snap_params_get(&p, info->sector_size, err);
    return s == CZK_OK ? czk_snap_count(&p, out, err) : s;
}
