/*
 * czk — the constraint system: the C API that circuits are written in.
 *
 * A circuit is one C function, czk_cs_circuit_fn, that allocates variables and enforces
 * rank-1 constraints <A,z>·<B,z> = <C,z> on a czk_cs. The same function runs in four modes:
 *
 *   CZK_CS_EVAL    the prover's mode. Witness values go straight into caller buffers (the
 *                  pinned pool's), and so do <A_j,z>, <B_j,z>, <C_j,z> for every row j;
 *                  the density bitmaps bellperson keeps (a_aux, b_input, b_aux) are tracked.
 *   CZK_CS_COUNT   numbers of inputs, aux variables and constraints and the densities only:
 *                  for sizing buffers and for circuit info. No per-constraint storage.
 *   CZK_CS_RECORD  the A, B, C matrices in CSR form (czk_r1cs), the pre-compiled constraint
 *                  evaluator: czk_r1cs_eval then computes a/b/c from a witness alone.
 *   CZK_CS_HASH    the R1CS hash of bellpepper's TestConstraintSystem::hash (BLAKE2s-256
 *                  over the counts and every merged LC; src/cs/cs.c states the exact
 *                  bytes), so circuits can be compared with upstream's constraint for
 *                  constraint. Variable and constraint names take no part in that hash,
 *                  so this API has none.
 *   CZK_CS_WITNESS the pre-compiled constraint evaluator's mode (czk/pce.h): witness
 *                  values only. LCs keep their terms but sum them only when a gadget reads
 *                  czk_lc_value (few do), and czk_cs_enforce only counts: a/b/c and the
 *                  densities come from a recording of the same circuit, so the counts'
 *                  densities are 0.
 *
 * Semantics are bellpepper's (bellpepper-core 0.4, which bellperson uses):
 *   - Input 0 is ONE (value 1), allocated at creation. Inputs and aux variables are
 *     numbered separately, in allocation order.
 *   - A linear combination is a map variable -> coefficient: adding a variable that is
 *     already present adds to its coefficient (bellpepper's Indexer). Terms whose merged
 *     coefficient is zero are skipped everywhere: in evaluation, in the densities, in the
 *     recorded matrices and in the hash.
 *   - Constraint j is the j-th czk_cs_enforce call.
 *   - Densities are bellperson's ProvingAssignment trackers: a_aux bit k when aux k has a
 *     non-zero coefficient in some A row; b_input / b_aux likewise for B. The prover's extra
 *     rows x_i·0 = 0 for the inputs are not part of the circuit: the prover adds them.
 *
 * Errors are sticky: the first error (buffer too small, unknown variable, out of memory,
 * a circuit's own czk_cs_fail) is kept, later calls keep counting but store nothing more,
 * and czk_cs_finish reports it. So a too-small buffer never crashes, and the counts after
 * such a run say how large the buffers must be.
 *
 * Without a witness (COUNT, RECORD and HASH modes when no witness buffers are given)
 * czk_cs_value returns zero: circuit code must not branch on values, which R1CS structure
 * never does anyway. czk_cs_has_witness tells a circuit when it may skip witness work.
 *
 * Threading: a czk_cs and the czk_lc built on it belong to one thread at a time; separate
 * czk_cs objects are independent. In EVAL mode czk_cs_fork splits one synthesis over
 * threads: children that write disjoint ranges of the same buffers, joined back in order.
 */
#ifndef CZK_CS_H
#define CZK_CS_H

#include "czk/bls12_381.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Variables                                                                            */
/* ------------------------------------------------------------------------------------ */

/**
 * A variable: input i is id i, aux i is id CZK_VAR_AUX | i. The numeric order of ids is
 * bellpepper's order of variables (every input before every aux, each by index).
 */
typedef struct czk_var {
    uint32_t id;
} czk_var;

#define CZK_VAR_AUX 0x80000000u
/** Largest number of aux variables (and of inputs) one constraint system can hold. */
#define CZK_CS_MAX_VARS 0x7fffffffu

/** The ONE input. */
static inline czk_var czk_cs_one(void)
{
    czk_var v = {0};
    return v;
}
static inline bool czk_var_is_aux(czk_var v)
{
    return (v.id & CZK_VAR_AUX) != 0;
}
/** Index among the inputs or among the aux variables. */
static inline uint32_t czk_var_index(czk_var v)
{
    return v.id & ~CZK_VAR_AUX;
}

/* ------------------------------------------------------------------------------------ */
/* Constraint system                                                                    */
/* ------------------------------------------------------------------------------------ */

typedef struct czk_cs czk_cs;

typedef enum czk_cs_mode {
    CZK_CS_EVAL = 0,
    CZK_CS_COUNT = 1,
    CZK_CS_RECORD = 2,
    CZK_CS_HASH = 3,
    CZK_CS_WITNESS = 4,
} czk_cs_mode;

/**
 * Caller memory. The witness buffers (inputs, aux) are required in EVAL and WITNESS modes
 * and optional in the others (given, the witness is stored there too). a, b, c are used in
 * EVAL mode only: rows_cap elements each. Capacities are in elements; running past one is a
 * sticky CZK_ERESOURCE, never a write past the end.
 */
typedef struct czk_cs_buffers {
    czk_fr *inputs; /* inputs[0] = 1 is written at creation */
    size_t inputs_cap;
    czk_fr *aux;
    size_t aux_cap;
    czk_fr *a, *b, *c;
    size_t rows_cap;
} czk_cs_buffers;

/**
 * RECORD mode's alternative to keeping the matrices (czk_cs_set_record_sink): called once
 * per LC of every constraint, in order (row, then matrix 0 = A, 1 = B, 2 = C), with the LC
 * in bellpepper's merged form (ids strictly increasing, no zero coefficient). The terms
 * are only valid during the call. A status other than CZK_OK becomes the cs's sticky error.
 */
struct czk_lc_term;
typedef czk_status (*czk_cs_record_sink)(void *ctx, unsigned matrix, uint64_t row,
                                         const struct czk_lc_term *terms, uint32_t n);

typedef struct czk_cs_config {
    czk_cs_mode mode;
    czk_cs_buffers buf;
    /*
     * HASH mode only: the counts a COUNT run of the same circuit gave. bellpepper's hash
     * starts with them, before the first constraint, so a streaming hash needs them up
     * front; czk_cs_finish fails with CZK_EINVAL if the circuit's real counts differ.
     * czk_cs_hash_circuit runs both passes.
     */
    uint64_t hash_n_inputs, hash_n_aux, hash_n_constraints;
} czk_cs_config;

/** Sizes and density counts (number of set bits) of what was synthesized so far. */
typedef struct czk_cs_counts {
    uint64_t n_inputs; /* including ONE */
    uint64_t n_aux;
    uint64_t n_constraints;
    uint64_t a_aux_density, b_input_density, b_aux_density;
} czk_cs_counts;

/** The circuit: synthesizes itself into cs. Returns CZK_OK or its own error. */
typedef czk_status (*czk_cs_circuit_fn)(czk_cs *cs, void *ctx);

/** Create a constraint system in cfg->mode. */
CZK_API czk_status czk_cs_create(czk_cs **out, const czk_cs_config *cfg, czk_err *err);
CZK_API void czk_cs_destroy(czk_cs *cs);
/**
 * Start over with a new configuration, keeping the internal allocations (density bitmaps,
 * scratch, recording arrays): a synthesis worker reuses one czk_cs for every partition.
 * LCs initialised on cs stay valid.
 */
CZK_API czk_status czk_cs_reset(czk_cs *cs, const czk_cs_config *cfg, czk_err *err);

/**
 * RECORD mode, before the first constraint: send rows to `sink` instead of keeping them
 * (czk_cs_take_r1cs then has nothing to give). czk/pce.h uses it to build its compact form
 * without holding 40 bytes per term. A reset removes the sink. CZK_EINVAL in another mode
 * or after a constraint.
 */
CZK_API czk_status czk_cs_set_record_sink(czk_cs *cs, czk_cs_record_sink sink, void *ctx);

CZK_API czk_cs_mode czk_cs_get_mode(const czk_cs *cs);
/** True when variable values are kept (EVAL, or another mode given witness buffers). */
CZK_API bool czk_cs_has_witness(const czk_cs *cs);
/** The sticky status: CZK_OK until the first error. */
CZK_API czk_status czk_cs_status(const czk_cs *cs);
/** Record a circuit's own error (first error wins); returns the sticky status. */
CZK_API czk_status czk_cs_fail(czk_cs *cs, czk_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/**
 * Allocate an aux variable with the given value (Montgomery form). `value` may be NULL only
 * when the cs has no witness; with a witness NULL is an error (a missing value is a bug).
 */
CZK_API czk_var czk_cs_alloc(czk_cs *cs, const czk_fr *value);
/** Allocate an aux variable whose value is 0 or 1 (bit != 0 means 1). */
CZK_API czk_var czk_cs_alloc_bit(czk_cs *cs, bool bit);
/** Allocate a public input, after ONE and the inputs before it. */
CZK_API czk_var czk_cs_alloc_input(czk_cs *cs, const czk_fr *value);

/** The value of v; zero when the cs has no witness (or v is unknown: a sticky EINVAL). */
CZK_API const czk_fr *czk_cs_value(czk_cs *cs, czk_var v);
/** v's value is not zero (for bits: the bit). */
CZK_API bool czk_cs_value_bit(czk_cs *cs, czk_var v);

/* ------------------------------------------------------------------------------------ */
/* Linear combinations                                                                  */
/* ------------------------------------------------------------------------------------ */

/** Terms held inside the czk_lc itself before it takes heap memory. */
#define CZK_LC_INLINE 8

/* Coefficient kinds of a term: ±1 take paths with no multiplication. */
enum { CZK_LC_COEFF_GENERAL = 0, CZK_LC_COEFF_ONE = 1, CZK_LC_COEFF_MINUS_ONE = 2 };

/** One term; `coeff` is only meaningful for CZK_LC_COEFF_GENERAL. */
typedef struct czk_lc_term {
    uint32_t var;  /* czk_var id */
    uint32_t kind; /* CZK_LC_COEFF_* */
    czk_fr coeff;
} czk_lc_term;

/**
 * A linear combination bound to one cs. The fields are private; the struct is public so
 * an LC can live on the stack or inside a gadget. Keep one and czk_lc_clear it between
 * uses: once its storage has grown, building never allocates again. With a witness the LC
 * accumulates its value as terms are added, so czk_cs_enforce does no multiplications.
 * Do not copy an LC by assignment (use czk_lc_assign); free it with czk_lc_free.
 */
typedef struct czk_lc {
    czk_cs *cs;
    czk_lc_term *heap; /* NULL while the terms fit in `inl` */
    uint32_t len, cap;
    uint32_t unsorted; /* ids not strictly increasing: may hold duplicates */
    uint32_t pad_;
    czk_fr value;
    czk_lc_term inl[CZK_LC_INLINE];
} czk_lc;

/** An empty LC on cs. */
CZK_API void czk_lc_init(czk_lc *lc, czk_cs *cs);
CZK_API void czk_lc_free(czk_lc *lc);
/** Make it empty again (zero value), keeping its storage. */
CZK_API void czk_lc_clear(czk_lc *lc);
/** lc = src (both on the same cs). */
CZK_API void czk_lc_assign(czk_lc *lc, const czk_lc *src);
/** + v */
CZK_API void czk_lc_add(czk_lc *lc, czk_var v);
/** − v */
CZK_API void czk_lc_sub(czk_lc *lc, czk_var v);
/** + coeff·v (coeff in Montgomery form; a zero coeff adds nothing). */
CZK_API void czk_lc_add_term(czk_lc *lc, const czk_fr *coeff, czk_var v);
/** − coeff·v */
CZK_API void czk_lc_sub_term(czk_lc *lc, const czk_fr *coeff, czk_var v);
/** + k·ONE */
CZK_API void czk_lc_add_const(czk_lc *lc, const czk_fr *k);
/** + coeff·other (coeff NULL means 1); other may be lc itself. */
CZK_API void czk_lc_add_lc(czk_lc *lc, const czk_fr *coeff, const czk_lc *other);
/** − coeff·other (coeff NULL means 1). */
CZK_API void czk_lc_sub_lc(czk_lc *lc, const czk_fr *coeff, const czk_lc *other);
/** The value <lc, z>; zero when the cs has no witness. In WITNESS mode it is summed from
 *  the terms on each call. */
CZK_API const czk_fr *czk_lc_value(const czk_lc *lc);
/** Number of terms as added (before duplicates are merged). */
CZK_API size_t czk_lc_len(const czk_lc *lc);

/* ------------------------------------------------------------------------------------ */
/* Constraints and results                                                              */
/* ------------------------------------------------------------------------------------ */

/**
 * Enforce <a,z>·<b,z> = <c,z>; NULL stands for the empty (zero) LC, and one LC may be
 * passed more than once. The LCs are only read: clear and reuse them afterwards.
 */
CZK_API void czk_cs_enforce(czk_cs *cs, const czk_lc *a, const czk_lc *b, const czk_lc *c);

CZK_API void czk_cs_get_counts(const czk_cs *cs, czk_cs_counts *out);

/**
 * Copy the density bitmaps out: ceil(n_aux/64) words for a_aux and b_aux, ceil(n_inputs/64)
 * for b_input, LSB-first, bits past the count zero. Any pointer may be NULL.
 */
CZK_API void czk_cs_get_densities(const czk_cs *cs, uint64_t *a_aux, uint64_t *b_input,
                                  uint64_t *b_aux);

/**
 * End synthesis: finalize the hash (HASH) or the matrices (RECORD), and return the sticky
 * status with its message in err. Nothing may be allocated or enforced afterwards.
 */
CZK_API czk_status czk_cs_finish(czk_cs *cs, czk_err *err);

/** RECORD mode, after a successful finish: move the matrices into *out (czk_r1cs_free). */
CZK_API czk_status czk_cs_take_r1cs(czk_cs *cs, czk_r1cs *out, czk_err *err);

/**
 * HASH mode, after a successful finish: the BLAKE2s-256 digest and/or its lowercase hex
 * (as TestConstraintSystem::hash returns it). Either pointer may be NULL.
 */
CZK_API czk_status czk_cs_get_hash(const czk_cs *cs, uint8_t digest[32], char hex[65],
                                   czk_err *err);

/**
 * Run `circuit` in COUNT mode then in HASH mode and write the hash's hex. `circuit` must
 * synthesize the same structure both times (it sees no witness).
 */
CZK_API czk_status czk_cs_hash_circuit(czk_cs_circuit_fn circuit, void *ctx, char hex[65],
                                       czk_cs_counts *counts, czk_err *err);

/* ------------------------------------------------------------------------------------ */
/* Fork/join: one EVAL synthesis on several threads                                     */
/* ------------------------------------------------------------------------------------ */

/**
 * A child EVAL cs that synthesizes a later part of the parent's circuit on another thread,
 * straight into the parent's buffers: its counters start at `at` (n_inputs, n_aux,
 * n_constraints; each at least the parent's current count; densities ignored), which the
 * caller knows from the circuit's structure (e.g. a prologue, then identical challenges
 * of known size). The child shares the parent's caller buffers and density bitmaps (it
 * sets bits atomically, and never grows a bitmap: running past them is a sticky
 * CZK_ERESOURCE) and owns its scratch and its sticky status and message.
 *
 * A child may use the parent's variables allocated before the fork and its own; any
 * other id (between the parent's counts and `at`: another child's) is a sticky CZK_EINVAL
 * like an unknown variable. The parent must be an unfinished EVAL cs without an error
 * (CZK_EINVAL otherwise, or its own error); it must not be used from its first fork until
 * czk_cs_join. A child cannot be reset or forked; it is destroyed by the join.
 */
CZK_API czk_status czk_cs_fork(czk_cs *parent, const czk_cs_counts *at, czk_cs **child,
                               czk_err *err);

/**
 * Join children (in synthesis order) back into their parent, after their threads are
 * done: the first child error becomes the parent's sticky error with its message; else
 * child k must end exactly where child k+1 started (a mismatch is CZK_EINTERNAL naming k
 * and both counts). The parent's counters then continue from the last child's end, and
 * czk_cs_get_counts / czk_cs_get_densities / czk_cs_finish see the whole synthesis, as if
 * it had run serially. Every child is destroyed. Returns the parent's sticky status.
 */
CZK_API czk_status czk_cs_join(czk_cs *parent, czk_cs *const *children, size_t n, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif /* CZK_CS_H */
