/*
 * One description per group for the host replays of the device code (test_ff_device_host,
 * test_msm_host): the device field type, the C library's point types and the C library's
 * operations on them, the independent side those tests check the device formulas against.
 * Include after ff.cuh and ec.cuh.
 */
#ifndef CZK_TESTS_HOST_GROUPS_HPP
#define CZK_TESTS_HOST_GROUPS_HPP

#include <stddef.h>
#include <stdint.h>

#include "czk/bls12_381.h"

struct g1_side {
    using F = czk_gpu::fp_t;
    using A = czk_g1_affine;
    using J = czk_g1_jac;
    using X = czk_g1_xyzz;
    static constexpr const char *name = "G1";
    static const A *gen() { return &CZK_G1_GENERATOR; }
    static void jac_from_affine(J *o, const A *p) { czk_g1_jac_from_affine(o, p); }
    static void jac_to_affine(A *o, const J *p) { czk_g1_jac_to_affine(o, p); }
    static void jac_mul(J *o, const J *p, const uint64_t *k, size_t nk) { czk_g1_jac_mul(o, p, k, nk); }
    static void jac_add(J *o, const J *a, const J *b) { czk_g1_jac_add(o, a, b); }
    static void jac_add_affine(J *o, const J *a, const A *b) { czk_g1_jac_add_affine(o, a, b); }
    static void jac_set_inf(J *o) { czk_g1_jac_set_inf(o); }
    static void xyzz_add_affine(X *o, const X *a, const A *b) { czk_g1_xyzz_add_affine(o, a, b); }
    static void xyzz_add(X *o, const X *a, const X *b) { czk_g1_xyzz_add(o, a, b); }
    static void xyzz_to_affine(A *o, const X *p) { czk_g1_xyzz_to_affine(o, p); }
    static void xyzz_to_jac(J *o, const X *p) { czk_g1_xyzz_to_jac(o, p); }
    static void neg(A *o, const A *p) { czk_g1_affine_neg(o, p); }
    static bool eq(const A *a, const A *b) { return czk_g1_affine_eq(a, b); }
    static bool is_inf(const A *a) { return czk_g1_affine_is_inf(a); }
};

struct g2_side {
    using F = czk_gpu::fp2_t;
    using A = czk_g2_affine;
    using J = czk_g2_jac;
    using X = czk_g2_xyzz;
    static constexpr const char *name = "G2";
    static const A *gen() { return &CZK_G2_GENERATOR; }
    static void jac_from_affine(J *o, const A *p) { czk_g2_jac_from_affine(o, p); }
    static void jac_to_affine(A *o, const J *p) { czk_g2_jac_to_affine(o, p); }
    static void jac_mul(J *o, const J *p, const uint64_t *k, size_t nk) { czk_g2_jac_mul(o, p, k, nk); }
    static void jac_add(J *o, const J *a, const J *b) { czk_g2_jac_add(o, a, b); }
    static void jac_add_affine(J *o, const J *a, const A *b) { czk_g2_jac_add_affine(o, a, b); }
    static void jac_set_inf(J *o) { czk_g2_jac_set_inf(o); }
    static void xyzz_add_affine(X *o, const X *a, const A *b) { czk_g2_xyzz_add_affine(o, a, b); }
    static void xyzz_add(X *o, const X *a, const X *b) { czk_g2_xyzz_add(o, a, b); }
    static void xyzz_to_affine(A *o, const X *p) { czk_g2_xyzz_to_affine(o, p); }
    static void xyzz_to_jac(J *o, const X *p) { czk_g2_xyzz_to_jac(o, p); }
    static void neg(A *o, const A *p) { czk_g2_affine_neg(o, p); }
    static bool eq(const A *a, const A *b) { return czk_g2_affine_eq(a, b); }
    static bool is_inf(const A *a) { return czk_g2_affine_is_inf(a); }
};

#endif /* CZK_TESTS_HOST_GROUPS_HPP */
