/*
 * The Fallback PoSt circuit (Window and Winning PoSt), ported from rust-fil-proofs
 * storage-proofs-post/src/fallback/circuit.rs (Sector::synthesize, synthesize_default),
 * with the public inputs of compound.rs and the challenge derivations of vanilla.rs and
 * utils.rs. synthesize_extendable (used by provers whose constraint system can be
 * extended) concatenates per-chunk systems in sector order, which gives the same
 * variables and constraints as the sequential form reproduced here.
 */
#include <string.h>

#include "czk/pool.h"
#include "czk/post.h"
#include "count.h"

static const struct {
    const char *name;
    unsigned log2size;
    bool winning;
    czk_api_version version;
} post_proofs[CZK_POST_PROOF_COUNT] = {
#define CZK__POST_ROW(name, id, log2size, winning, ver) [id] = {#name, log2size, winning, ver},
    CZK_POST_PROOF_MAP(CZK__POST_ROW)
#undef CZK__POST_ROW
};

const char *czk_post_proof_name(czk_post_proof proof)
{
    if ((unsigned)proof >= CZK_POST_PROOF_COUNT) return NULL;
    return post_proofs[proof].name;
}

bool czk_post_proof_is_winning(czk_post_proof proof)
{
    return (unsigned)proof < CZK_POST_PROOF_COUNT && post_proofs[proof].winning;
}

static unsigned log2u(uint64_t v)
{
    unsigned k = 0;
    while (k < 64 && (UINT64_C(1) << k) < v) k++;
    return k;
}

czk_status czk_post_params_custom(czk_post_params *out, uint64_t nodes, unsigned challenge_count,
                                  unsigned sector_count, unsigned base_arity, unsigned sub_arity,
                                  unsigned top_arity, czk_api_version version, czk_err *err)
{
    memset(out, 0, sizeof *out);
    unsigned lb = log2u(base_arity), ls = sub_arity ? log2u(sub_arity) : 0;
    unsigned lt = top_arity ? log2u(top_arity) : 0, ln = log2u(nodes);
    bool ok = nodes >= 2 && (nodes & (nodes - 1)) == 0 && base_arity >= 2 &&
              (base_arity & (base_arity - 1)) == 0 && (sub_arity & (sub_arity - 1)) == 0 &&
              (top_arity & (top_arity - 1)) == 0 && (top_arity == 0 || sub_arity > 0) &&
              ln > ls + lt && (ln - ls - lt) % lb == 0 && challenge_count > 0 && sector_count > 0;
    if (!ok)
        return czk_err_set(err, CZK_EINVAL, "post: no %u-%u-%u tree over %llu leaves", base_arity,
                           sub_arity, top_arity, (unsigned long long)nodes);
    out->sector_size = nodes * 32;
    out->nodes = nodes;
    out->challenge_count = challenge_count;
    out->sector_count = sector_count;
    out->api_version = version;
    out->tree.hasher = CZK_MERKLE_POSEIDON;
    out->tree.base_arity = base_arity;
    out->tree.sub_arity = sub_arity;
    out->tree.top_arity = top_arity;
    out->tree.base_levels = (ln - ls - lt) / lb;
    return CZK_OK;
}

czk_status czk_post_params_get(czk_post_params *out, czk_post_proof proof, czk_err *err)
{
    if ((unsigned)proof >= CZK_POST_PROOF_COUNT)
        return czk_err_set(err, CZK_EINVAL, "post: unknown registered PoSt proof %d", (int)proof);
    unsigned l2 = post_proofs[proof].log2size;
    /* Sector shapes: 8-0-0 up to 512 MiB, 8-8-0 at 32 GiB, 8-8-2 at 64 GiB. */
    unsigned sub = l2 >= 35 ? 8 : 0, top = l2 >= 36 ? 2 : 0;
    unsigned challenges, sectors;
    if (post_proofs[proof].winning) {
        /* winning_post_setup_params: 66 challenges over 1 sector become 66 circuit
         * "sectors" of one challenge each. */
        sectors = CZK_POST_WINNING_CHALLENGE_COUNT / CZK_POST_WINNING_SECTOR_COUNT;
        challenges = CZK_POST_WINNING_CHALLENGE_COUNT / sectors;
    } else {
        challenges = CZK_POST_WINDOW_CHALLENGE_COUNT;
        sectors = l2 == 35 ? 2349 : l2 == 36 ? 2300 : 2; /* WINDOW_POST_SECTOR_COUNT */
    }
    return czk_post_params_custom(out, UINT64_C(1) << (l2 - 5), challenges, sectors, 8, sub, top,
                                  post_proofs[proof].version, err);
}

/* AllocatedNum::alloc of a 32-byte LE value (value-less without a witness). */
static czk_var alloc_le(czk_cs *cs, const uint8_t *bytes, const char *what)
{
    if (bytes == NULL || !czk_cs_has_witness(cs)) return czk_cs_alloc(cs, NULL);
    czk_fr v;
    if (!czk_fr_from_bytes_le(&v, bytes)) {
        czk_cs_fail(cs, CZK_EINVAL, "post: %s is not a field element", what);
        v = CZK_FR_ZERO;
    }
    return czk_cs_alloc(cs, &v);
}

/* Sector::synthesize */
static void sector_synthesize(czk_cs *cs, const czk_post_params *p,
                              const czk_post_sector_witness *w)
{
    czk_var comm_r_last = alloc_le(cs, w ? w->comm_r_last : NULL, "comm_r_last");
    czk_var comm_c = alloc_le(cs, w ? w->comm_c : NULL, "comm_c");
    czk_var comm_r = alloc_le(cs, w ? w->comm_r : NULL, "comm_r");
    czk_num_inputize(cs, comm_r);

    /* H(comm_c || comm_r_last) == comm_r (constraint::equal: comm_r·1 = hash) */
    czk_var in[2] = {comm_c, comm_r_last}, hash = czk_cs_one();
    czk_poseidon_circuit(cs, &hash, czk_poseidon_params_get(2), CZK_POSEIDON_MERKLE_TREE, 0, in);
    czk_num_enforce_equal(cs, comm_r, hash);

    /* PoRCircuit::synthesize(Root::Val(leaf), path, Root::Var(comm_r_last), private). */
    for (unsigned i = 0; i < p->challenge_count; i++) {
        const czk_merkle_path *path = w ? &w->paths[i] : NULL;
        czk_fr leaf = CZK_FR_ZERO;
        if (path != NULL && !czk_fr_from_bytes_le(&leaf, path->leaf))
            czk_cs_fail(cs, CZK_EINVAL, "post: leaf of challenge %u is not a field element", i);
        czk_por_circuit(cs, &p->tree, NULL, path ? &leaf : NULL, &comm_r_last, NULL, path, true);
    }
}

czk_status czk_post_synthesize(czk_cs *cs, const czk_post_params *p,
                               const czk_post_sector_witness *sectors)
{
    bool wit = czk_cs_has_witness(cs);
    if (wit && sectors == NULL) return czk_cs_fail(cs, CZK_EINVAL, "post: witness missing");
    if (!wit) sectors = NULL;
    for (unsigned s = 0; s < p->sector_count; s++) {
        if (sectors != NULL && sectors[s].paths == NULL)
            return czk_cs_fail(cs, CZK_EINVAL, "post: sector %u has no paths", s);
        /* A cancelled synthesis (czk_pool_cancelled) stops between sectors. */
        if (czk_pool_cancelled())
            return czk_cs_fail(cs, CZK_ECANCELED, "post: synthesis cancelled");
        sector_synthesize(cs, p, sectors ? &sectors[s] : NULL);
        if (czk_cs_status(cs) != CZK_OK) break;
    }
    return czk_cs_status(cs);
}

czk_status czk_post_circuit(czk_cs *cs, void *ctx)
{
    const czk_post_circuit_ctx *c = ctx;
    return czk_post_synthesize(cs, c->params, c->sectors);
}

uint64_t czk_post_challenge_index(czk_api_version v, uint64_t sector_index,
                                  uint64_t challenge_count, uint64_t n)
{
    return v == CZK_API_V1_2_0 ? n : sector_index * challenge_count + n;
}

static uint64_t le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

static void put_le64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
}

uint64_t czk_post_leaf_challenge(const czk_post_params *p, const uint8_t randomness[32],
                                 uint64_t sector_id, uint64_t challenge_index)
{
    uint8_t msg[48], h[32];
    memcpy(msg, randomness, 32);
    put_le64(msg + 32, sector_id);
    put_le64(msg + 40, challenge_index);
    (void)czk_sha256(h, msg, sizeof msg);
    return le64(h) % p->nodes;
}

uint64_t czk_post_sector_challenge(const uint8_t randomness[32], uint64_t n,
                                   uint64_t sector_set_len, const uint8_t prover_id[32])
{
    uint8_t msg[72], h[32];
    memcpy(msg, prover_id, 32);
    memcpy(msg + 32, randomness, 32);
    put_le64(msg + 64, n); /* usize::to_le_bytes: 8 bytes on 64-bit hosts */
    (void)czk_sha256(h, msg, sizeof msg);
    return le64(h) % sector_set_len;
}

size_t czk_post_num_inputs(const czk_post_params *p)
{
    return (size_t)p->sector_count * (1 + (size_t)p->challenge_count);
}

czk_status czk_post_public_inputs(czk_fr *out, const czk_post_params *p,
                                  const uint8_t randomness[32],
                                  const czk_post_public_sector *sectors, size_t nsectors,
                                  uint64_t k, czk_err *err)
{
    size_t first = (size_t)k * p->sector_count;
    if (first >= nsectors)
        return czk_err_set(err, CZK_EINVAL, "post: no sectors for partition %llu",
                           (unsigned long long)k);
    size_t n = nsectors - first < p->sector_count ? nsectors - first : p->sector_count;
    size_t per = 1 + (size_t)p->challenge_count, at = 0;
    for (size_t i = 0; i < n; i++) {
        const czk_post_public_sector *s = &sectors[first + i];
        if (!czk_fr_from_bytes_le(&out[at++], s->comm_r))
            return czk_err_set(err, CZK_EINVAL,
                               "post: comm_r of sector %llu is not a field element",
                               (unsigned long long)s->id);
        for (unsigned c = 0; c < p->challenge_count; c++) {
            uint64_t idx =
                czk_post_challenge_index(p->api_version, first + i, p->challenge_count, c);
            /* PoRCompound::generate_public_inputs: the packed index bits = the leaf index. */
            czk_fr_from_u64(&out[at++], czk_post_leaf_challenge(p, randomness, s->id, idx));
        }
    }
    /* Duplicate the last sector's inputs when the chunk is short. */
    for (size_t i = n; i < p->sector_count; i++, at += per)
        memcpy(&out[at], &out[at - per], per * sizeof *out);
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Registered proofs and circuit info                                                   */
/* ------------------------------------------------------------------------------------ */

czk_status czk_post_proof_for_size(uint64_t sector_size, bool winning, czk_post_proof *out,
                                   czk_err *err)
{
    for (unsigned i = 0; i < CZK_POST_PROOF_COUNT; i++) {
        bool want_version = winning ? post_proofs[i].version == CZK_API_V1_0_0
                                    : post_proofs[i].version == CZK_API_V1_2_0;
        if (post_proofs[i].winning == winning && want_version &&
            (UINT64_C(1) << post_proofs[i].log2size) == sector_size) {
            *out = (czk_post_proof)i;
            return CZK_OK;
        }
    }
    return czk_err_set(err, CZK_EINVAL, "post: no %s PoSt proof for sector size %llu",
                       winning ? "Winning" : "Window", (unsigned long long)sector_size);
}

czk_status czk_post_count(const czk_post_params *p, czk_circuit_info *out, czk_err *err)
{
    czk_cs *cs;
    czk_status s = czk__count_begin(&cs, err);
    if (s != CZK_OK) return s;
    (void)czk_post_synthesize(cs, p, NULL);
    return czk__count_end(cs, out, err);
}

czk_status czk_post_count_fast(const czk_post_params *p, czk_circuit_info *out, czk_err *err)
{
    if (p->sector_count <= 2) return czk_post_count(p, out, err);
    czk_post_params one = *p, two = *p;
    one.sector_count = 1;
    two.sector_count = 2;
    czk_circuit_info c1, c2;
    czk_status s = czk_post_count(&one, &c1, err);
    if (s == CZK_OK) s = czk_post_count(&two, &c2, err);
    if (s != CZK_OK) return s;
    uint64_t n = p->sector_count - 1;
#define CZK__EXTRAPOLATE(f) out->f = c1.f + n * (c2.f - c1.f)
    CZK__EXTRAPOLATE(constraints);
    CZK__EXTRAPOLATE(inputs);
    CZK__EXTRAPOLATE(aux);
    CZK__EXTRAPOLATE(a_aux_density);
    CZK__EXTRAPOLATE(b_input_density);
    CZK__EXTRAPOLATE(b_aux_density);
#undef CZK__EXTRAPOLATE
    return CZK_OK;
}

static czk_status post_kind_count(int post_proof, bool winning, czk_circuit_info *out, czk_err *err)
{
    if ((unsigned)post_proof >= CZK_POST_PROOF_COUNT || post_proofs[post_proof].winning != winning)
        return czk_err_set(err, CZK_EINVAL, "post: %d is not a registered %s PoSt proof",
                           post_proof, winning ? "Winning" : "Window");
    czk_post_params p;
    czk_status s = czk_post_params_get(&p, (czk_post_proof)post_proof, err);
    return s == CZK_OK ? czk_post_count_fast(&p, out, err) : s;
}

czk_status czk_circuit_wpost_count(int post_proof, czk_circuit_info *out, czk_err *err)
{
    return post_kind_count(post_proof, false, out, err);
}

czk_status czk_circuit_winning_count(int post_proof, czk_circuit_info *out, czk_err *err)
{
    return post_kind_count(post_proof, true, out, err);
}
