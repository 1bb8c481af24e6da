/*
 * The optimal ate pairing of BLS12-381: a Miller loop over |x| with G2 in homogeneous
 * projective coordinates on the M-twist, and the final exponentiation (easy part, then the
 * hard part by the x-chain of Hayashida–Hayasaka–Teruya with cyclotomic squarings).
 *
 * The result is f^(3 (p^12 − 1)/r), the value zkcrypto/bls12_381 computes (test_pairing
 * checks its published e(G1, G2)); scripts/gen_consts.py checks the exponent identity.
 */
#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "ff/consts.h"
#include "ff/tower_internal.h"

/* |x| = 0xd201000000010000; x is negative. */
#define X_ABS CZK__BLS_X_ABS

/* Pairs kept on the stack; longer products allocate their per-pair state once. */
#define STACK_PAIRS 8

/* The per-pair state of the Miller loop: the running point T = [k]Q, the affine Q, and
 * the G1 coordinates in the forms the line evaluations use. */
typedef struct pair_state {
    czk_fp2 x, y, z;    /* T, homogeneous projective: (X/Z, Y/Z) */
    czk_fp2 qx, qy;     /* Q, affine */
    czk_fp neg_xp;      /* −xP */
    czk_fp neg_3xp;     /* −3 xP */
    czk_fp yp;          /* yP */
} pair_state;

/* The Miller accumulator f, with a flag for f = 1: the first line then becomes f itself
 * instead of costing a sparse product with one. */
typedef struct miller_acc {
    czk_fp12 f;
    bool one;
} miller_acc;

static void acc_mul_line(miller_acc *acc, const czk_fp2 *l0, const czk_fp2 *l1,
                         const czk_fp2 *l4)
{
    if (acc->one) {
        acc->f.c0.c0 = *l0;
        acc->f.c0.c1 = *l1;
        acc->f.c0.c2 = CZK_FP2_ZERO;
        acc->f.c1.c0 = CZK_FP2_ZERO;
        acc->f.c1.c1 = *l4;
        acc->f.c1.c2 = CZK_FP2_ZERO;
        acc->one = false;
    } else {
        czk__fp12_mul_by_014(&acc->f, l0, l1, l4);
    }
}

/* a · 3b' for the twist constant b' = 4 ξ: 12 (a ξ), by additions. */
static void mul_by_3b(czk_fp2 *out, const czk_fp2 *a)
{
    czk_fp2 t4, t8;
    fp2_mul_by_nonresidue(&t4, a);
    fp2_dbl(&t4, &t4);
    fp2_dbl(&t4, &t4);
    fp2_dbl(&t8, &t4);
    fp2_add(out, &t8, &t4);
}

/*
 * T ← 2T and f ·= the tangent line at T evaluated at P.
 *
 * On the M-twist y^2 = x^3 + b', ψ(x, y) = (x w^−2, y w^−3) maps to E. The tangent at an
 * affine T' with slope λ, evaluated at P and multiplied by w^3·2y_T (factors in proper
 * subfields, which the final exponentiation removes), is
 *   (3 x_T^3 − 2 y_T^2) − 3 x_T^2 xP w^2 + 2 y_T yP w^3;
 * in projective coordinates, times Z^2 and with Y^2 Z = X^3 + b' Z^3:
 *   (Y^2 − 3b' Z^2) − 3 X^2 xP · v + 2 Y Z yP · v w     (w^2 = v, w^3 = v w).
 * The doubling is Costello–Lange–Naehrig's (eprint 2009/615) scaled by 4 to avoid the
 * halvings: with B = Y^2, C = Z^2, E = 3b' C, F = 3E, H = (Y + Z)^2 − B − C = 2YZ,
 *   X' = 2XY (B − F),  Y' = (B + F)^2 − 12 E^2,  Z' = 4 B H.
 */
static void dbl_step(pair_state *s, miller_acc *acc)
{
    czk_fp2 B, C, E, F, H, J, XY, t, l0, l1, l4;
    fp2_sqr(&J, &s->x);
    fp2_sqr(&B, &s->y);
    fp2_sqr(&C, &s->z);
    mul_by_3b(&E, &C);
    fp2_dbl(&F, &E);
    fp2_add(&F, &F, &E);

    fp2_add(&XY, &s->x, &s->y);
    fp2_sqr(&XY, &XY);
    fp2_sub(&XY, &XY, &J);
    fp2_sub(&XY, &XY, &B); /* 2XY */
    fp2_add(&H, &s->y, &s->z);
    fp2_sqr(&H, &H);
    fp2_sub(&H, &H, &B);
    fp2_sub(&H, &H, &C); /* 2YZ */

    /* Line coefficients. */
    fp2_sub(&l0, &B, &E);
    fp2_mul_fp(&l1, &J, &s->neg_3xp);
    fp2_mul_fp(&l4, &H, &s->yp);

    /* X' = 2XY (B − F) */
    fp2_sub(&t, &B, &F);
    fp2_mul(&s->x, &XY, &t);
    /* Z' = 4 B H */
    fp2_mul(&s->z, &B, &H);
    fp2_dbl(&s->z, &s->z);
    fp2_dbl(&s->z, &s->z);
    /* Y' = (B + F)^2 − 12 E^2 */
    fp2_add(&t, &B, &F);
    fp2_sqr(&t, &t);
    fp2_sqr(&E, &E);
    fp2_dbl(&E, &E);
    fp2_dbl(&E, &E); /* 4 E^2 */
    fp2_sub(&t, &t, &E);
    fp2_sub(&t, &t, &E);
    fp2_sub(&s->y, &t, &E);

    acc_mul_line(acc, &l0, &l1, &l4);
}

/*
 * T ← T + Q and f ·= the line through T and Q evaluated at P. With θ = Y − yQ Z and
 * λ = X − xQ Z (slope θ/λ), the line times λ w^3 is
 *   (θ xQ − λ yQ) − θ xP · v + λ yP · v w,
 * and the mixed addition (Aranha et al., eprint 2010/526) is, with D = λ^2, E = λ D,
 * G = X D, H = E + Z θ^2 − 2G:  X' = λ H,  Y' = θ (G − H) − Y E,  Z' = Z E.
 */
static void add_step(pair_state *s, miller_acc *acc)
{
    czk_fp2 theta, lambda, C, D, E, G, H, t, l0, l1, l4;
    fp2_mul(&t, &s->qy, &s->z);
    fp2_sub(&theta, &s->y, &t);
    fp2_mul(&t, &s->qx, &s->z);
    fp2_sub(&lambda, &s->x, &t);

    /* Line coefficients. */
    fp2_mul(&l0, &theta, &s->qx);
    fp2_mul(&t, &lambda, &s->qy);
    fp2_sub(&l0, &l0, &t);
    fp2_mul_fp(&l1, &theta, &s->neg_xp);
    fp2_mul_fp(&l4, &lambda, &s->yp);

    fp2_sqr(&C, &theta);
    fp2_sqr(&D, &lambda);
    fp2_mul(&E, &lambda, &D);
    fp2_mul(&G, &s->x, &D);
    fp2_mul(&H, &s->z, &C);
    fp2_add(&H, &H, &E);
    fp2_sub(&H, &H, &G);
    fp2_sub(&H, &H, &G);

    fp2_mul(&s->x, &lambda, &H);
    fp2_sub(&t, &G, &H);
    fp2_mul(&t, &theta, &t);
    fp2_mul(&C, &s->y, &E);
    fp2_sub(&s->y, &t, &C);
    fp2_mul(&s->z, &s->z, &E);

    acc_mul_line(acc, &l0, &l1, &l4);
}

/* Affine infinity is (0, 0) (bls12_381.h). */
static bool g1_is_inf(const czk_g1_affine *p)
{
    return czk_fp_is_zero(&p->x) && czk_fp_is_zero(&p->y);
}

static bool g2_is_inf(const czk_g2_affine *q)
{
    return czk_fp2_is_zero(&q->x) && czk_fp2_is_zero(&q->y);
}

static void pair_init(pair_state *s, const czk_g1_affine *p, const czk_g2_affine *q)
{
    s->x = q->x;
    s->y = q->y;
    s->z = CZK_FP2_ONE;
    s->qx = q->x;
    s->qy = q->y;
    fp_neg(&s->neg_xp, &p->x);
    fp_dbl(&s->neg_3xp, &s->neg_xp);
    fp_add(&s->neg_3xp, &s->neg_3xp, &s->neg_xp);
    s->yp = p->y;
}

void czk_miller_loop(czk_fp12 *out, const czk_g1_affine *p, const czk_g2_affine *q, size_t n)
{
    pair_state stack[STACK_PAIRS];
    pair_state *st = stack;
    if (n > STACK_PAIRS) st = czk_malloc(n * sizeof *st);

    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (g1_is_inf(&p[i]) || g2_is_inf(&q[i])) continue;
        pair_init(&st[m++], &p[i], &q[i]);
    }

    /* One shared f for all pairs: the squaring per bit is paid once, and each pair adds
     * only its sparse line products. The top bit of |x| is the starting T = Q, and f = 1
     * needs no squaring before the first lines. */
    miller_acc acc = {.one = true};
    for (int bit = 62; bit >= 0 && m > 0; bit--) {
        if (!acc.one) czk_fp12_sqr(&acc.f, &acc.f);
        for (size_t i = 0; i < m; i++) dbl_step(&st[i], &acc);
        if ((X_ABS >> bit) & 1) {
            for (size_t i = 0; i < m; i++) add_step(&st[i], &acc);
        }
    }
    /* x < 0: f_{x,Q} = 1/f_{|x|,Q} up to factors the final exponentiation removes, and the
     * inverse is the conjugate once f is raised to p^6 − 1 there. */
    if (acc.one)
        czk_fp12_set_one(out);
    else
        czk_fp12_conj(out, &acc.f);

    if (st != stack) czk_free(st);
}

/* out = a^x for a in the cyclotomic subgroup (where a^-1 is the conjugate, so the sign of
 * x costs one conjugation). */
static void cyclotomic_exp_x(czk_fp12 *out, const czk_fp12 *a)
{
    czk_fp12 acc = *a;
    for (int bit = 62; bit >= 0; bit--) {
        czk__fp12_cyclotomic_sqr(&acc, &acc);
        if ((X_ABS >> bit) & 1) czk_fp12_mul(&acc, &acc, a);
    }
    czk_fp12_conj(out, &acc);
}

void czk_final_exp(czk_fp12 *out, const czk_fp12 *f)
{
    czk_fp12 m, t, a, b, c;

    /* Easy part: m = f^((p^6 − 1)(p^2 + 1)), which lands in the cyclotomic subgroup. */
    czk_fp12_inv(&t, f);
    czk_fp12_conj(&m, f);
    czk_fp12_mul(&m, &m, &t);
    czk_fp12_frobenius(&t, &m, 2);
    czk_fp12_mul(&m, &m, &t);

    /* Hard part, 3Λ = (x − 1)^2 (x + p)(x^2 + p^2 − 1) + 3 with Λ = (p^4 − p^2 + 1)/r
     * (Hayashida, Hayasaka and Teruya, eprint 2020/875): five exponentiations by x. */
    /* a = m^((x − 1)^2) */
    cyclotomic_exp_x(&a, &m);
    czk_fp12_conj(&t, &m);
    czk_fp12_mul(&a, &a, &t);
    cyclotomic_exp_x(&t, &a);
    czk_fp12_conj(&a, &a);
    czk_fp12_mul(&a, &t, &a);
    /* b = a^(x + p) */
    cyclotomic_exp_x(&b, &a);
    czk_fp12_frobenius(&t, &a, 1);
    czk_fp12_mul(&b, &b, &t);
    /* c = b^(x^2 + p^2 − 1) */
    cyclotomic_exp_x(&c, &b);
    cyclotomic_exp_x(&c, &c);
    czk_fp12_frobenius(&t, &b, 2);
    czk_fp12_mul(&c, &c, &t);
    czk_fp12_conj(&t, &b);
    czk_fp12_mul(&c, &c, &t);
    /* out = c · m^3 */
    czk__fp12_cyclotomic_sqr(&t, &m);
    czk_fp12_mul(&t, &t, &m);
    czk_fp12_mul(out, &c, &t);
}

void czk_pairing(czk_fp12 *out, const czk_g1_affine *p, const czk_g2_affine *q)
{
    czk_fp12 f;
    czk_miller_loop(&f, p, q, 1);
    czk_final_exp(out, &f);
}

bool czk_pairing_product_is_one(const czk_g1_affine *p, const czk_g2_affine *q, size_t n)
{
    czk_fp12 f, e;
    czk_miller_loop(&f, p, q, n);
    czk_final_exp(&e, &f);
    return czk_fp12_is_one(&e);
}
