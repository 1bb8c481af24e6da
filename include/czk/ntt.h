/*
 * czk — number-theoretic transforms over Fr (CPU, multithreaded).
 *
 * A domain of size n = 2^log_n (1 <= log_n <= 28 on the CPU; Fr's two-adicity allows 32)
 * holds its roots of unity and twiddle tables. Two families of roots exist in practice:
 * bellperson/blstrs take omega from the generator 7 (7^((r-1)/2^32)), snarkjs/ffjavascript
 * from 5. Both give the same subgroup in a different order, and a proof only verifies with
 * the family its parameters were made with.
 *
 * All vectors are in natural order in and out, Montgomery form.
 */
#ifndef CZK_NTT_H
#define CZK_NTT_H

#include "czk/bls12_381.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum czk_roots {
    CZK_ROOTS_BELLPERSON = 0, /* omega = 7^((r-1)/2^32) squared down to 2^log_n */
    CZK_ROOTS_SNARKJS = 1     /* omega = 5^((r-1)/2^32) squared down to 2^log_n */
} czk_roots;

typedef struct czk_ntt_domain czk_ntt_domain;

/** Build a domain of size 2^log_n with its twiddles. */
CZK_API czk_status czk_ntt_domain_create(czk_ntt_domain **out, unsigned log_n, czk_roots roots,
                                         czk_err *err);
CZK_API void czk_ntt_domain_destroy(czk_ntt_domain *d);
CZK_API unsigned czk_ntt_domain_log_size(const czk_ntt_domain *d);
/** Primitive n-th root of unity omega of the domain. */
CZK_API void czk_ntt_domain_omega(const czk_ntt_domain *d, czk_fr *out);
/** Primitive (2^k)-th root of unity of the given family, 0 <= k <= 32. */
CZK_API void czk_fr_root_of_unity(czk_fr *out, unsigned k, czk_roots roots);

/** v[j] <- sum_i v[i]·omega^(ij)  (evaluation at the n-th roots of unity). */
CZK_API void czk_ntt_forward(const czk_ntt_domain *d, czk_fr *v, czk_pool *pool);
/** Inverse of czk_ntt_forward, including the factor 1/n. */
CZK_API void czk_ntt_inverse(const czk_ntt_domain *d, czk_fr *v, czk_pool *pool);
/** v[j] <- sum_i v[i]·(g·omega^j)^i: coefficients to evaluations on the coset g·H. */
CZK_API void czk_ntt_coset_forward(const czk_ntt_domain *d, czk_fr *v, const czk_fr *g,
                                   czk_pool *pool);
/** Inverse of czk_ntt_coset_forward: evaluations on g·H to coefficients. */
CZK_API void czk_ntt_coset_inverse(const czk_ntt_domain *d, czk_fr *v, const czk_fr *g,
                                   czk_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
