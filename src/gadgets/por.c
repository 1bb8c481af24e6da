/*
 * Merkle inclusion: rust-fil-proofs' por.rs (PoRCircuit and por_no_challenge_input),
 * constraint for constraint.
 *
 * One level of a path: the node's position among its siblings as log2(arity) index bits,
 * the arity − 1 siblings, the node inserted among them (insertion.rs: 2, 8 and 22
 * constraints for arities 2, 4 and 8), and the hash of the arity children: Poseidon with
 * the MerkleTree tag, or for SHA-256 trees filecoin-hashers' hash_multi_leaf_circuit
 * (each child's 255-bit decomposition as its 32-byte LE repr, SHA-256 of the
 * concatenation, the digest truncated to 254 bits and packed).
 */
#include "gadgets/gadgets_internal.h"

#define MAX_ARITY_BITS 5 /* arity ≤ 32 per level */

unsigned czk_por_shape_levels(const czk_por_shape *shape)
{
    return shape->base_levels + (shape->sub_arity > 0) + (shape->top_arity > 0);
}

/* The arity of level i, bottom first. */
static unsigned level_arity(const czk_por_shape *shape, unsigned i)
{
    if (i < shape->base_levels) return shape->base_arity;
    if (i == shape->base_levels && shape->sub_arity > 0) return shape->sub_arity;
    return shape->top_arity;
}

static bool arity_ok(unsigned a)
{
    return a >= 2 && a <= (1u << MAX_ARITY_BITS) && (a & (a - 1)) == 0;
}

static unsigned log2u(unsigned a)
{
    unsigned k = 0;
    while ((1u << k) < a) k++;
    return k;
}

static czk_status shape_check(czk_cs *cs, const czk_por_shape *shape)
{
    bool ok = arity_ok(shape->base_arity) &&
              (shape->sub_arity == 0 || arity_ok(shape->sub_arity)) &&
              (shape->top_arity == 0 || (arity_ok(shape->top_arity) && shape->sub_arity > 0)) &&
              czk_por_shape_levels(shape) <= CZK_MERKLE_MAX_LEVELS;
    if (shape->hasher == CZK_MERKLE_SHA256)
        ok = ok && shape->base_arity <= 8 && shape->sub_arity <= 8 && shape->top_arity <= 8;
    else if (shape->hasher == CZK_MERKLE_POSEIDON)
        ok = ok && czk_poseidon_params_get(shape->base_arity) != NULL &&
             (shape->sub_arity == 0 || czk_poseidon_params_get(shape->sub_arity) != NULL) &&
             (shape->top_arity == 0 || czk_poseidon_params_get(shape->top_arity) != NULL);
    else
        ok = false;
    if (!ok)
        return czk_cs_fail(cs, CZK_EINVAL, "gadgets: unsupported PoR shape %u-%u-%u (hasher %d)",
                           shape->base_arity, shape->sub_arity, shape->top_arity,
                           (int)shape->hasher);
    return CZK_OK;
}

/* Hash the arity children of one level (hash_multi_leaf_circuit). */
static czk_var hash_level(czk_cs *cs, const czk_por_shape *shape, const czk_var *children,
                          unsigned arity)
{
    czk_var out = czk_cs_one();
    if (shape->hasher == CZK_MERKLE_SHA256)
        czk_sha256_circuit_hash_nums(cs, &out, children, arity);
    else
        czk_poseidon_circuit(cs, &out, czk_poseidon_params_get(arity), CZK_POSEIDON_MERKLE_TREE, 0,
                             children);
    return out;
}

czk_status czk_por_circuit(czk_cs *cs, const czk_por_shape *shape, const czk_var *leaf,
                           const czk_fr *leaf_value, const czk_var *root, const czk_fr *root_value,
                           const czk_merkle_path *path, bool private_root)
{
    czk_status s = shape_check(cs, shape);
    if (s != CZK_OK) return s;
    unsigned levels = czk_por_shape_levels(shape);
    bool witness = czk_cs_has_witness(cs);
    if (witness && path == NULL)
        return czk_cs_fail(cs, CZK_EINVAL, "gadgets: PoR with a witness but no path");
    if (witness && path->levels != levels)
        return czk_cs_fail(cs, CZK_EINVAL, "gadgets: PoR path of %u levels for a %u-level shape",
                           path->levels, levels);

    if (witness && ((leaf == NULL && leaf_value == NULL) || (root == NULL && root_value == NULL)))
        return czk_cs_fail(cs, CZK_EINVAL, "gadgets: PoR with a witness but no leaf or root value");

    czk_var cur =
        leaf != NULL ? *leaf : czk_cs_alloc(cs, leaf_value != NULL ? leaf_value : &CZK_FR_ZERO);
    czk_bool bits[CZK_MERKLE_MAX_LEVELS * MAX_ARITY_BITS];
    unsigned nbits = 0;
    unsigned sib = 0; /* next sibling of the path */
    for (unsigned lv = 0; lv < levels; lv++) {
        unsigned arity = level_arity(shape, lv), k = log2u(arity);
        unsigned index = witness ? path->index[lv] : 0;
        if (witness && index >= arity)
            return czk_cs_fail(cs, CZK_EINVAL, "gadgets: PoR index %u at level %u of arity %u",
                               index, lv, arity);
        czk_bool *ib = bits + nbits;
        for (unsigned b = 0; b < k; b++) ib[b] = czk_bit_alloc(cs, (index >> b) & 1);
        nbits += k;
        czk_var sibs[1u << MAX_ARITY_BITS], children[1u << MAX_ARITY_BITS];
        for (unsigned i = 0; i + 1 < arity; i++) {
            czk_fr v = CZK_FR_ZERO;
            if (witness) {
                if (sib >= CZK_MERKLE_MAX_SIBLINGS ||
                    !czk_fr_from_bytes_le(&v, path->siblings[sib]))
                    return czk_cs_fail(cs, CZK_EINVAL,
                                       "gadgets: PoR sibling %u is not a field element", sib);
            }
            sib++;
            sibs[i] = czk_cs_alloc(cs, &v);
        }
        czk_num_insert(cs, cur, ib, k, sibs, children);
        cur = hash_level(cs, shape, children, arity);
    }
    czk_multipack_pack_into_inputs(cs, bits, nbits);
    czk_var rt =
        root != NULL ? *root : czk_cs_alloc(cs, root_value != NULL ? root_value : &CZK_FR_ZERO);
    czk_num_enforce_equal(cs, cur, rt);
    if (!private_root) czk_num_inputize(cs, rt);
    return czk_cs_status(cs);
}

czk_status czk_por_no_challenge_input(czk_cs *cs, const czk_por_shape *shape,
                                      const czk_bool *challenge_bits, czk_var leaf,
                                      const czk_var *siblings, czk_var root)
{
    czk_status s = shape_check(cs, shape);
    if (s != CZK_OK) return s;
    unsigned levels = czk_por_shape_levels(shape);
    czk_var cur = leaf;
    size_t nb = 0, ns = 0;
    for (unsigned lv = 0; lv < levels; lv++) {
        unsigned arity = level_arity(shape, lv), k = log2u(arity);
        czk_var children[1u << MAX_ARITY_BITS];
        czk_num_insert(cs, cur, challenge_bits + nb, k, siblings + ns, children);
        nb += k;
        ns += arity - 1;
        cur = hash_level(cs, shape, children, arity);
    }
    /* computed_root·1 = root */
    czk_num_enforce_equal(cs, cur, root);
    return czk_cs_status(cs);
}
