/*
 * czk — circuit gadgets: booleans, numbers, 32- and 64-bit words, SHA-256, Poseidon,
 * bit packing and Merkle inclusion, constraint for constraint the same as the Rust
 * gadgets Filecoin's circuits are built from:
 *
 *   bellpepper-core  boolean.rs (AllocatedBit, Boolean), num.rs (AllocatedNum, Num)
 *   bellperson       gadgets/{uint32,multieq,sha256,multipack}.rs (= bellpepper's)
 *   neptune          circuit.rs poseidon_hash (the "legacy" circuit of Filecoin's trusted
 *                    setups, which allocates the states of the optimized permutation)
 *   rust-fil-proofs  storage-proofs-core gadgets/{por,insertion,constraint,uint64,encode}.rs,
 *                    util.rs reverse_bit_numbering; filecoin-hashers' SHA-256 circuits
 *
 * "The same" means: variables are allocated in the same order, constraints are enforced in
 * the same order, and every constraint's three linear combinations have the same merged
 * terms and coefficients. Groth16 parameters encode one polynomial per variable, so only
 * an exact copy proves with the published Filecoin parameters; czk_cs_hash_circuit (the
 * R1CS hash of bellpepper's TestConstraintSystem) compares a circuit with upstream's.
 * Names and namespaces have no part in any of this and are left out.
 *
 * Values. Every gadget computes the witness as it goes when the cs has one
 * (czk_cs_has_witness) and allocates value-less variables otherwise; the structure never
 * depends on values, so one circuit function serves every mode. Values given to a gadget
 * without a witness are ignored, and NULL may be passed for them.
 *
 * Errors. Misuse (a Boolean where an allocated bit is required, an unsupported size)
 * records a sticky error on the cs (czk_cs_fail) and returns a harmless value, so a circuit
 * needs to check czk_cs_status only once, at the end; functions that can fail for a
 * circuit-level reason (an unsatisfiable constant equality) also return the status.
 */
#ifndef CZK_GADGETS_H
#define CZK_GADGETS_H

#include "czk/cs.h"
#include "czk/merkle.h"
#include "czk/poseidon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================
 * Booleans (bellpepper-core boolean.rs)
 * ====================================================================================== */

/** A Boolean: a constant, an allocated bit (AllocatedBit, "Is") or its negation ("Not"). */
typedef enum czk_bool_kind {
    CZK_BOOL_CONST = 0,
    CZK_BOOL_IS = 1,
    CZK_BOOL_NOT = 2,
} czk_bool_kind;

/**
 * 8 bytes, passed by value. `val` is the Boolean's own value (for NOT, the negation of the
 * bit's value); it is exact for constants and, with a witness, for allocated bits.
 */
typedef struct czk_bool {
    uint32_t var; /* czk_var id of the bit (IS, NOT); 0 for constants */
    uint8_t kind; /* czk_bool_kind */
    uint8_t val;
    uint16_t pad_;
} czk_bool;

static inline czk_bool czk_bool_const(bool b)
{
    czk_bool r = {0, CZK_BOOL_CONST, (uint8_t)(b ? 1 : 0), 0};
    return r;
}
/** Boolean::not: no constraint. */
static inline czk_bool czk_bool_not(czk_bool b)
{
    if (b.kind == CZK_BOOL_IS)
        b.kind = CZK_BOOL_NOT;
    else if (b.kind == CZK_BOOL_NOT)
        b.kind = CZK_BOOL_IS;
    b.val ^= 1;
    return b;
}
static inline bool czk_bool_is_const(czk_bool b)
{
    return b.kind == CZK_BOOL_CONST;
}
/** The variable of an allocated bit (IS or NOT). */
static inline czk_var czk_bool_var(czk_bool b)
{
    czk_var v = {b.var};
    return v;
}

/** AllocatedBit::alloc: a new bit and (1 − b)·b = 0. Returns an IS Boolean. */
CZK_API czk_bool czk_bit_alloc(czk_cs *cs, bool value);
/** AllocatedBit::alloc_conditionally: (1 − must_be_false − b)·b = 0; must_be_false is IS. */
CZK_API czk_bool czk_bit_alloc_conditionally(czk_cs *cs, bool value, czk_bool must_be_false);
/** AllocatedBit::xor / and / and_not (a ∧ ¬b) / nor: one new bit, one constraint. The
 *  operands must be IS Booleans (allocated bits), as upstream's types require. */
CZK_API czk_bool czk_bit_xor(czk_cs *cs, czk_bool a, czk_bool b);
CZK_API czk_bool czk_bit_and(czk_cs *cs, czk_bool a, czk_bool b);
CZK_API czk_bool czk_bit_and_not(czk_cs *cs, czk_bool a, czk_bool b);
CZK_API czk_bool czk_bit_nor(czk_cs *cs, czk_bool a, czk_bool b);

/** Boolean::xor / and / or, with upstream's constant folding and Is/Not case analysis. */
CZK_API czk_bool czk_bool_xor(czk_cs *cs, czk_bool a, czk_bool b);
CZK_API czk_bool czk_bool_and(czk_cs *cs, czk_bool a, czk_bool b);
CZK_API czk_bool czk_bool_or(czk_cs *cs, czk_bool a, czk_bool b);
/** Boolean::sha256_ch: (a ∧ b) ⊕ (¬a ∧ c). */
CZK_API czk_bool czk_bool_sha256_ch(czk_cs *cs, czk_bool a, czk_bool b, czk_bool c);
/** Boolean::sha256_maj: (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c). */
CZK_API czk_bool czk_bool_sha256_maj(czk_cs *cs, czk_bool a, czk_bool b, czk_bool c);
/**
 * Boolean::enforce_equal: 0·0 = a − b (or = 1 − a, = a against a constant). Two unequal
 * constants are unsatisfiable: CZK_EINVAL, also recorded on the cs.
 */
CZK_API czk_status czk_bool_enforce_equal(czk_cs *cs, czk_bool a, czk_bool b);

/** lc += coeff·b (Boolean::lc: coeff·ONE for true, coeff·(ONE − bit) for NOT); coeff NULL
 *  means 1. */
CZK_API void czk_bool_lc_add(czk_lc *lc, czk_bool b, const czk_fr *coeff);
/** lc −= coeff·b. */
CZK_API void czk_bool_lc_sub(czk_lc *lc, czk_bool b, const czk_fr *coeff);

/** u64_into_boolean_vec_le: 64 allocated bits of `value`, least significant first. */
CZK_API void czk_bits_alloc_u64_le(czk_cs *cs, uint64_t value, czk_bool out[64]);
/** field_into_allocated_bits_le: the 255 bits of a field element (NUM_BITS), least
 *  significant first, each allocated with its boolean constraint. */
CZK_API void czk_bits_alloc_fr_le(czk_cs *cs, const czk_fr *value, czk_bool out[255]);

/**
 * rust-fil-proofs' reverse_bit_numbering: pad with constant false bits to whole bytes,
 * then reverse the bit order inside every byte. Writes ceil(n/8)·8 Booleans to out (which
 * must not overlap in) and returns that count.
 */
CZK_API size_t czk_bits_reverse_numbering(czk_bool *out, const czk_bool *in, size_t n);

/* ======================================================================================
 * Numbers (bellpepper-core num.rs AllocatedNum; rust-fil-proofs constraint.rs,
 * insertion.rs). An AllocatedNum is a czk_var; its value is czk_cs_value's.
 * ====================================================================================== */

/** AllocatedNum::inputize: a new input x and x·1 = num. Returns the input. */
CZK_API czk_var czk_num_inputize(czk_cs *cs, czk_var num);
/** AllocatedNum::to_bits_le: 255 allocated bits (field_into_allocated_bits_le) and the
 *  unpacking constraint 0·0 = Σ 2^i·b_i − num. Not strict: x + r also decomposes. */
CZK_API void czk_num_to_bits_le(czk_cs *cs, czk_var num, czk_bool out[255]);
/** AllocatedNum::to_bits_le_strict: the decomposition constrained to be below r (runs of
 *  ones of r − 1 AND-ed, alloc_conditionally under them), then the unpacking constraint. */
CZK_API void czk_num_to_bits_le_strict(czk_cs *cs, czk_var num, czk_bool out[255]);
/** AllocatedNum::add and rust-fil-proofs constraint::add (the same circuit): a new c and
 *  (a + b)·1 = c. encode.rs's encode(key, value) is czk_num_add(key, value). */
CZK_API czk_var czk_num_add(czk_cs *cs, czk_var a, czk_var b);
/** constraint::sub: a new c = a − b and (c + b)·1 = a. decode(key, value) is
 *  czk_num_sub(value, key). */
CZK_API czk_var czk_num_sub(czk_cs *cs, czk_var a, czk_var b);
/** AllocatedNum::mul: a new c and a·b = c. */
CZK_API czk_var czk_num_mul(czk_cs *cs, czk_var a, czk_var b);
/** AllocatedNum::square: a new c and a·a = c. */
CZK_API czk_var czk_num_square(czk_cs *cs, czk_var a);
/** AllocatedNum::assert_nonzero: a new inv and a·inv = 1 (a zero a is a sticky EINVAL). */
CZK_API void czk_num_assert_nonzero(czk_cs *cs, czk_var a);
/** AllocatedNum::conditionally_reverse: (b, a) when cond, else (a, b); two new variables. */
CZK_API void czk_num_conditionally_reverse(czk_cs *cs, czk_var a, czk_var b, czk_bool cond,
                                           czk_var *c, czk_var *d);
/** constraint::equal: a·1 = b. */
CZK_API void czk_num_enforce_equal(czk_cs *cs, czk_var a, czk_var b);
/** constraint::sum: (a + b)·1 = sum. */
CZK_API void czk_num_enforce_sum(czk_cs *cs, czk_var a, czk_var b, czk_var sum);
/** constraint::difference: (diff + b)·1 = a. */
CZK_API void czk_num_enforce_difference(czk_cs *cs, czk_var a, czk_var b, czk_var diff);

/** insertion.rs pick: a new c = cond ? a : b and (b − a)·cond = b − c. */
CZK_API czk_var czk_num_pick(czk_cs *cs, czk_bool cond, czk_var a, czk_var b);
/** insertion.rs select: element `bits` (LSB first, nbits of them) of from[2^nbits], by a
 *  tree of picks, most significant bit first: 2^nbits − 1 constraints. */
CZK_API czk_var czk_num_select(czk_cs *cs, const czk_var *from, const czk_bool *bits,
                               unsigned nbits);
/**
 * insertion.rs insert: `element` inserted into elements[0 .. 2^nbits − 1) at position
 * `bits` (LSB first); out gets the 2^nbits results. Sizes 2, 4 and 8 take upstream's
 * hand-optimized circuits (2, 8, 22 constraints; size 8 needs IS bits), others the
 * general select per position.
 */
CZK_API void czk_num_insert(czk_cs *cs, czk_var element, const czk_bool *bits, unsigned nbits,
                            const czk_var *elements, czk_var *out);

/* ======================================================================================
 * Bit packing (bellperson multipack.rs)
 * ====================================================================================== */

/** Bits per packed field element: Fr::CAPACITY. */
#define CZK_MULTIPACK_CAPACITY 254

/** pack_into_inputs: per chunk of 254 bits a new input x and (Σ 2^i·bit_i)·1 = x. */
CZK_API void czk_multipack_pack_into_inputs(czk_cs *cs, const czk_bool *bits, size_t n);
/** pack_bits: the first min(n, 254) bits packed into a new aux variable, same constraint. */
CZK_API czk_var czk_multipack_pack_bits(czk_cs *cs, const czk_bool *bits, size_t n);
/** compute_multipacking: the inputs pack_into_inputs makes of `bits` (one byte per bit,
 *  non-zero = 1). Writes ceil(n/254) elements; returns the count. */
CZK_API size_t czk_multipack_compute(czk_fr *out, const uint8_t *bits, size_t n);
/** bytes_to_bits (most significant bit of each byte first): 8·n bits, one per byte. */
CZK_API void czk_multipack_bytes_to_bits(uint8_t *bits, const uint8_t *bytes, size_t n);
/** bytes_to_bits_le (least significant bit of each byte first). */
CZK_API void czk_multipack_bytes_to_bits_le(uint8_t *bits, const uint8_t *bytes, size_t n);

/* ======================================================================================
 * 32- and 64-bit words (bellperson uint32.rs, multieq.rs; rust-fil-proofs uint64.rs)
 * ====================================================================================== */

/** UInt32: 32 Booleans, least significant first, and the value they hold (exact for
 *  constants and with a witness). */
typedef struct czk_uint32 {
    czk_bool bits[32];
    uint32_t value;
} czk_uint32;

/** One side of a pending MultiEq batch: merged terms (private). */
typedef struct czk__multieq_terms {
    uint32_t *var; /* variable ids, in first-seen order */
    czk_fr *coeff; /* their merged coefficients */
    uint32_t n, cap;
    czk_fr one;          /* ONE's coefficient, from one_sum when the batch is enforced */
    uint64_t one_sum[4]; /* ONE's coefficient as an integer, below 2^254 */
    uint64_t sum[4];     /* EVAL: the batch's value Σ 2^offset_k·sum_k, below 2^254 */
} czk__multieq_terms;

/**
 * MultiEq: batches the equalities of several additions into one constraint
 * (Σ 2^offset_k·lhs_k)·1 = Σ 2^offset_k·rhs_k while the offsets fit in 254 bits. Private
 * fields; init it on a cs, hand it to czk_uint32_addmany, then czk_multieq_finish (which
 * enforces what is pending, as upstream's Drop does) and czk_multieq_free.
 */
typedef struct czk_multieq {
    czk_cs *cs;
    unsigned bits_used;
    unsigned cur;              /* which of the two batches is pending */
    czk__multieq_terms lhs[2]; /* the second batch takes a new addition while the pending
                                * one is enforced after that addition's result bits */
    czk_lc rhs[2];
    czk_lc lhs_lc;                /* the lhs of a batch being enforced */
    uint32_t *tab_var, *tab_info; /* var → term index of the batch being filled */
    uint32_t gen;
    bool rhs_lc; /* the rhs is built as an LC (RECORD and HASH: only they read C) */
} czk_multieq;

CZK_API void czk_multieq_init(czk_multieq *me, czk_cs *cs);
/** Enforce the pending batch, if any (MultiEq's Drop). */
CZK_API void czk_multieq_finish(czk_multieq *me);
CZK_API void czk_multieq_free(czk_multieq *me);

CZK_API void czk_uint32_constant(czk_uint32 *out, uint32_t value);
/** UInt32::alloc: 32 allocated bits. */
CZK_API void czk_uint32_alloc(czk_cs *cs, czk_uint32 *out, uint32_t value);
/** UInt32::from_bits_be: bits[0] is the most significant. */
CZK_API void czk_uint32_from_bits_be(czk_uint32 *out, const czk_bool bits[32]);
/** UInt32::from_bits: bits[0] is the least significant. */
CZK_API void czk_uint32_from_bits_le(czk_uint32 *out, const czk_bool bits[32]);
/** UInt32::into_bits_be. */
CZK_API void czk_uint32_to_bits_be(czk_bool out[32], const czk_uint32 *x);
/** rotr / shr: no constraints (shr shifts in constant zeros). out may alias x. */
CZK_API void czk_uint32_rotr(czk_uint32 *out, const czk_uint32 *x, unsigned by);
CZK_API void czk_uint32_shr(czk_uint32 *out, const czk_uint32 *x, unsigned by);
/** Bitwise Boolean::xor. out may alias an operand. */
CZK_API void czk_uint32_xor(czk_cs *cs, czk_uint32 *out, const czk_uint32 *a, const czk_uint32 *b);
/** Bitwise Boolean::sha256_ch / sha256_maj. */
CZK_API void czk_uint32_sha256_ch(czk_cs *cs, czk_uint32 *out, const czk_uint32 *a,
                                  const czk_uint32 *b, const czk_uint32 *c);
CZK_API void czk_uint32_sha256_maj(czk_cs *cs, czk_uint32 *out, const czk_uint32 *a,
                                   const czk_uint32 *b, const czk_uint32 *c);
/**
 * UInt32::addmany of 2..10 operands modulo 2^32: result and carry bits allocated, their
 * equality with the operands' sum batched into `me`. All-constant operands give a constant
 * and touch nothing. out may alias an operand.
 */
CZK_API void czk_uint32_addmany(czk_multieq *me, czk_uint32 *out, const czk_uint32 *ops,
                                unsigned n);

/** rust-fil-proofs UInt64: 64 Booleans, least significant first. */
typedef struct czk_uint64 {
    czk_bool bits[64];
    uint64_t value;
} czk_uint64;

CZK_API void czk_uint64_constant(czk_uint64 *out, uint64_t value);
/** UInt64::alloc: 64 allocated bits. */
CZK_API void czk_uint64_alloc(czk_cs *cs, czk_uint64 *out, uint64_t value);
/** UInt64::to_bits_be. */
CZK_API void czk_uint64_to_bits_be(czk_bool out[64], const czk_uint64 *x);
/** UInt64::pack_into_input: one input equal to the value. */
CZK_API void czk_uint64_pack_into_input(czk_cs *cs, const czk_uint64 *x);

/* ======================================================================================
 * SHA-256 (bellperson sha256.rs)
 * ====================================================================================== */

/** The initial hash value as constant words. */
CZK_API void czk_sha256_circuit_iv(czk_uint32 out[8]);
/** sha256_compression_function: one 512-bit block (bits MSB first per word) on `cur`;
 *  25,840 constraints for allocated input bits. out may alias cur. */
CZK_API void czk_sha256_circuit_compress(czk_cs *cs, czk_uint32 out[8], const czk_bool input[512],
                                         const czk_uint32 cur[8]);
/** sha256_block_no_padding: the compression of one block from the IV, as 256 bits. */
CZK_API void czk_sha256_circuit_block(czk_cs *cs, czk_bool out[256], const czk_bool input[512]);
/** sha256: the padded hash of n bits (n a multiple of 8, each byte MSB first), as 256
 *  bits in the same order; padding is constant bits. CZK_EINVAL for n % 8 != 0. */
CZK_API czk_status czk_sha256_circuit(czk_cs *cs, czk_bool out[256], const czk_bool *input,
                                      size_t n);
/**
 * filecoin-hashers Sha256Function::hash_circuit: sha256 of the bits, output bits reversed
 * inside each byte, the first 254 packed (pack_bits) into a new number — the circuit
 * form of trunc254(SHA-256(bytes)) read as a little-endian field element.
 */
CZK_API czk_status czk_sha256_circuit_hash_bits(czk_cs *cs, czk_var *out, const czk_bool *input,
                                                size_t n);
/**
 * filecoin-hashers Sha256Function::hash_multi_leaf_circuit (and hash2_circuit for n = 2):
 * each number's 255-bit to_bits_le decomposition, padded to 256 bits and bit-reversed per
 * byte (its 32-byte LE repr), concatenated and hashed with hash_bits.
 */
CZK_API czk_status czk_sha256_circuit_hash_nums(czk_cs *cs, czk_var *out, const czk_var *nums,
                                                size_t n);

/* ======================================================================================
 * Poseidon (neptune circuit.rs poseidon_hash)
 * ====================================================================================== */

/**
 * The hash of `preimage` (exactly arity(p) numbers) with the domain tag of `type`/`param`
 * (as czk_poseidon_hash; CONSTANT_LENGTH must have param = arity, as neptune's legacy
 * circuit requires), into a new number *out. 3·arity + 28·t + 4·R_P + 1 constraints
 * (t = arity + 1): 311, 377, 505, 598 for arities 2, 4, 8, 11.
 */
CZK_API czk_status czk_poseidon_circuit(czk_cs *cs, czk_var *out, const czk_poseidon_params *p,
                                        czk_poseidon_hash_type type, uint64_t param,
                                        const czk_var *preimage);

/* ======================================================================================
 * Merkle inclusion (rust-fil-proofs por.rs)
 * ====================================================================================== */

/**
 * A tree shape for the PoR circuits: cfg's hasher and base/sub/top arities (keep_from is
 * not used) and the number of base levels. SHA-256 takes base arities 2, 4 or 8 (one
 * hash of all children, as Sha256Function::hash_multi_leaf_circuit); Poseidon 2, 4, 8,
 * 11... any arity with parameters, the index bits being log2 of it (a power of two).
 */
typedef struct czk_por_shape {
    czk_merkle_hasher hasher;
    unsigned base_arity, sub_arity, top_arity; /* sub/top 0: absent */
    unsigned base_levels;
} czk_por_shape;

/** Levels of a shape's paths: base_levels + (sub > 0) + (top > 0). */
CZK_API unsigned czk_por_shape_levels(const czk_por_shape *shape);

/**
 * PoRCircuit::synthesize. The leaf is `*leaf` when given (Root::Var), else a new number of
 * value leaf_value (Root::Val, allocated first); per level (base, then sub, then top) the
 * index bits (AllocatedBit, LSB first) and the arity − 1 siblings are allocated, the node
 * is inserted among them (insertion.rs insert) and hashed. The index bits of all levels are
 * packed into inputs; then the root is `*root` or a new number of value root_value, the
 * computed root is constrained equal to it, and unless `private` the root is inputized.
 * `path` is the witness (index[] and siblings[] are read; leaf_index, leaf and arity[] are
 * not); NULL without a witness. CZK_EINVAL for a shape or path that does not fit.
 */
CZK_API czk_status czk_por_circuit(czk_cs *cs, const czk_por_shape *shape, const czk_var *leaf,
                                   const czk_fr *leaf_value, const czk_var *root,
                                   const czk_fr *root_value, const czk_merkle_path *path,
                                   bool private_root);

/**
 * por_no_challenge_input: the inclusion of `leaf` under `root` with index bits taken from
 * `challenge_bits` (IS Booleans, LSB first, log2 of each level's arity per level) and the
 * siblings already allocated (`siblings`: arity − 1 numbers per level, level by level);
 * ends with computed_root·1 = root. No inputs.
 */
CZK_API czk_status czk_por_no_challenge_input(czk_cs *cs, const czk_por_shape *shape,
                                              const czk_bool *challenge_bits, czk_var leaf,
                                              const czk_var *siblings, czk_var root);

#ifdef __cplusplus
}
#endif
#endif /* CZK_GADGETS_H */
