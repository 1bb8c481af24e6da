#!/usr/bin/env python3
"""Generate src/ff/consts.h: every BLS12-381 constant czk needs, in the limb form the C
code uses, derived here from the two moduli and the curve definition so that each value
is written once and its meaning is stated. Run: python3 scripts/gen_consts.py > src/ff/consts.h
"""
P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
X = -0xd201000000010000  # the BLS parameter x (negative)

def limbs(v, n):
    return "{" + ", ".join("0x%016xULL" % ((v >> (64 * i)) & (2**64 - 1)) for i in range(n)) + "}"

def mont(v, m, n):
    return (v * pow(2, 64 * n, m)) % m

out = []
def emit(name, value, n, comment):
    out.append("/* %s */" % comment)
    out.append("#define %s %s" % (name, limbs(value, n)))

for (pre, m, n) in (("FP", P, 6), ("FR", R, 4)):
    Rm = pow(2, 64 * n, m)
    emit("CZK__%s_P" % pre, m, n, "%s modulus, canonical limbs" % pre)
    emit("CZK__%s_R" % pre, Rm, n, "R = 2^%d mod modulus: Montgomery form of 1" % (64 * n))
    emit("CZK__%s_R2" % pre, Rm * Rm % m, n, "R^2 mod modulus: converts canonical to Montgomery")
    emit("CZK__%s_R3" % pre, Rm ** 3 % m, n, "R^3 mod modulus: reduces the high half of a 2n-limb value")
    out.append("/* -modulus^-1 mod 2^64 */")
    out.append("#define CZK__%s_INV 0x%016xULL" % (pre, (-pow(m, -1, 2**64)) % 2**64))
    emit("CZK__%s_PM2" % pre, m - 2, n, "modulus - 2: Fermat inversion exponent")
    emit("CZK__%s_PM1H" % pre, (m - 1) // 2, n, "(modulus - 1)/2: Legendre exponent")
    out.append("")

emit("CZK__FP_PP1Q", (P + 1) // 4, 6, "(p + 1)/4: square root exponent, p = 3 mod 4")
emit("CZK__FP_PM3Q", (P - 3) // 4, 6, "(p - 3)/4: Fp2 square root (Adj-Rodriguez alg. 9)")
# Fr square root by Tonelli-Shanks: r - 1 = 2^32 * t, t odd.
t = (R - 1) >> 32
assert t & 1 and (t << 32) == R - 1
emit("CZK__FR_T", t, 4, "t = (r - 1)/2^32, odd part of r - 1 (two-adicity 32)")
emit("CZK__FR_TM1H", (t - 1) // 2, 4, "(t - 1)/2: Tonelli-Shanks exponent")
root = pow(7, t, R)  # 7 is the multiplicative generator (blstrs); 7^t has order 2^32
assert pow(root, 2**31, R) != 1 and pow(root, 2**32, R) == 1
emit("CZK__FR_ROOT_OF_UNITY_MONT", mont(root, R, 4), 4, "7^t mod r, primitive 2^32-th root of unity, Montgomery")
emit("CZK__FR_GENERATOR_MONT", mont(7, R, 4), 4, "7, multiplicative generator of Fr*, Montgomery")

# Generators (Montgomery form).
g1x = 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb
g1y = 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1
assert (g1y * g1y - g1x ** 3 - 4) % P == 0
g2x0 = 0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8
g2x1 = 0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e
g2y0 = 0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801
g2y1 = 0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be
out.append("")
emit("CZK__G1_GEN_X", mont(g1x, P, 6), 6, "G1 generator x (Montgomery)")
emit("CZK__G1_GEN_Y", mont(g1y, P, 6), 6, "G1 generator y (Montgomery)")
emit("CZK__G2_GEN_X0", mont(g2x0, P, 6), 6, "G2 generator x.c0 (Montgomery)")
emit("CZK__G2_GEN_X1", mont(g2x1, P, 6), 6, "G2 generator x.c1 (Montgomery)")
emit("CZK__G2_GEN_Y0", mont(g2y0, P, 6), 6, "G2 generator y.c0 (Montgomery)")
emit("CZK__G2_GEN_Y1", mont(g2y1, P, 6), 6, "G2 generator y.c1 (Montgomery)")
emit("CZK__FP_FOUR_MONT", mont(4, P, 6), 6, "b = 4, G1 curve constant (Montgomery)")
# beta: a primitive cube root of unity in Fp, used by the G1 endomorphism phi(x, y) = (beta x, y).
# Pick the one for which phi acts as [x^2 - 1]... callers in src/ec decide; both are listed.
w = pow(2, (P - 1) // 3, P)
assert w != 1 and pow(w, 3, P) == 1
b1, b2 = w, w * w % P
emit("CZK__FP_CUBE_ROOT_A", mont(min(b1, b2), P, 6), 6, "the smaller primitive cube root of unity in Fp (Montgomery)")
emit("CZK__FP_CUBE_ROOT_B", mont(max(b1, b2), P, 6), 6, "the larger primitive cube root of unity in Fp (Montgomery)")
out.append("/* |x| for the BLS parameter x = -0xd201000000010000 */")
out.append("#define CZK__BLS_X_ABS 0x%016xULL" % (-X))

# G2 endomorphism psi = untwist-Frobenius-twist on the M-twist y^2 = x^3 + 4(u + 1):
# psi(x, y) = (conj(x)·cx, conj(y)·cy) with cx = 1/(u + 1)^((p-1)/3), cy = 1/(u + 1)^((p-1)/2).
# On G2 it acts as [p] = [x] (p = x mod r for BLS12), which the subgroup test uses (Scott 2021).
def f2mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)
def f2pow(a, e):
    r = (1, 0)
    while e:
        if e & 1: r = f2mul(r, a)
        a = f2mul(a, a); e >>= 1
    return r
def f2inv(a):
    n = pow(a[0] * a[0] + a[1] * a[1], P - 2, P)
    return (a[0] * n % P, -a[1] * n % P)
def f2sub(a, b):
    return ((a[0] - b[0]) % P, (a[1] - b[1]) % P)
def conj(a):
    return (a[0], -a[1] % P)
psi_cx = f2inv(f2pow((1, 1), (P - 1) // 3))
psi_cy = f2inv(f2pow((1, 1), (P - 1) // 2))
b2 = (4, 4)
# psi maps the twist to itself: cy^2 = cx^3 and cy^2·conj(b) = b.
assert f2mul(psi_cy, psi_cy) == f2mul(psi_cx, f2mul(psi_cx, psi_cx))
assert f2mul(f2mul(psi_cy, psi_cy), conj(b2)) == b2
# And psi(G2) = [x]G2, checked with affine arithmetic on the twist.
def g2_add(a, b):
    if a is None: return b
    if b is None: return a
    if a[0] == b[0]:
        if a[1] != b[1] or a[1] == (0, 0): return None
        lam = f2mul(f2mul((3, 0), f2mul(a[0], a[0])), f2inv(f2mul((2, 0), a[1])))
    else:
        lam = f2mul(f2sub(b[1], a[1]), f2inv(f2sub(b[0], a[0])))
    x3 = f2sub(f2sub(f2mul(lam, lam), a[0]), b[0])
    return (x3, f2sub(f2mul(lam, f2sub(a[0], x3)), a[1]))
def g2_mul(pt, k):
    acc = None
    while k:
        if k & 1: acc = g2_add(acc, pt)
        pt = g2_add(pt, pt); k >>= 1
    return acc
g2 = ((g2x0, g2x1), (g2y0, g2y1))
xg = g2_mul(g2, -X)
xg = (xg[0], f2sub((0, 0), xg[1]))  # x < 0: [x]G = -[|x|]G
assert (f2mul(conj(g2[0]), psi_cx), f2mul(conj(g2[1]), psi_cy)) == xg
emit("CZK__G2_PSI_CX0", mont(psi_cx[0], P, 6), 6, "psi: cx = 1/(u+1)^((p-1)/3), c0 (Montgomery)")
emit("CZK__G2_PSI_CX1", mont(psi_cx[1], P, 6), 6, "psi: cx = 1/(u+1)^((p-1)/3), c1 (Montgomery)")
emit("CZK__G2_PSI_CY0", mont(psi_cy[0], P, 6), 6, "psi: cy = 1/(u+1)^((p-1)/2), c0 (Montgomery)")
emit("CZK__G2_PSI_CY1", mont(psi_cy[1], P, 6), 6, "psi: cy = 1/(u+1)^((p-1)/2), c1 (Montgomery)")

# --- Fp12 Frobenius coefficients (pairing helper) -------------------------------------------
# Fp12 = Fp2[w]/(w^6 - xi), xi = u + 1, in the tower basis w^e (e = 0..5: c0.c0, c1.c0,
# c0.c1, c1.c1, c0.c2, c1.c2 for e = 0, 1, 2, 3, 4, 5). Because p = 1 mod 6, for an element
# sum a_e w^e, (a_e w^e)^(p^k) = conj^k(a_e) * xi^(e (p^k - 1)/6) * w^e, so the k-th power
# of Frobenius is a coefficient-wise conjugation followed by a product with the constants
# gamma[k][e] = xi^(e (p^k - 1)/6), tabulated here for k = 1..11 and e = 1..5.
def _f2mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)

def _f2pow(a, e):
    r = (1, 0)
    while e:
        if e & 1:
            r = _f2mul(r, a)
        a = _f2mul(a, a)
        e >>= 1
    return r

def _f2conj(a):
    return (a[0], (-a[1]) % P)

assert P % 6 == 1
_xi = (1, 1)
_gamma = {(k, e): _f2pow(_xi, e * (P ** k - 1) // 6) for k in range(1, 12) for e in range(1, 6)}
for e in range(1, 6):
    # Composition: frob^(k+1) = frob o frob^k gives gamma[k+1][e] = conj(gamma[k][e]) * gamma[1][e]
    # (conjugation is the p-th power on Fp2).
    for k in range(1, 11):
        assert _gamma[(k + 1, e)] == _f2mul(_f2conj(_gamma[(k, e)]), _gamma[(1, e)])
    # frob^12 is the identity and frob^6 is the conjugation of Fp12 over Fp6 (w -> -w).
    assert _f2mul(_f2conj(_gamma[(11, e)]), _gamma[(1, e)]) == (1, 0)
    assert _gamma[(6, e)] == ((-1) ** e % P, 0)
    # Even powers fix Fp2, and xi^((p^k - 1)/6) then lies in Fp.
    for k in range(2, 12, 2):
        assert _gamma[(k, e)][1] == 0
out.append("")
out.append("/* Fp12 Frobenius: gamma[k-1][e-1] = xi^(e (p^k - 1)/6), xi = u + 1, k = 1..11, e = 1..5;")
out.append(" * an initializer for czk_fp2[11][5], each {c0, c1} in Montgomery form. */")
out.append("#define CZK__FP12_FROB_GAMMA { \\")
for k in range(1, 12):
    row = []
    for e in range(1, 6):
        g = _gamma[(k, e)]
        row.append("{{%s}, {%s}}" % (limbs(mont(g[0], P, 6), 6), limbs(mont(g[1], P, 6), 6)))
    out.append("    { " + ", \\\n      ".join(row) + " }%s \\" % ("," if k < 11 else ""))
out.append("}")
# Final exponentiation, hard part (Hayashida-Hayasaka-Teruya, eprint 2020/875): with
# Lambda = (p^4 - p^2 + 1)/r, 3 Lambda = (x - 1)^2 (x + p) (x^2 + p^2 - 1) + 3. The pairing
# therefore computes f^(3 (p^12 - 1)/r), the same value as zkcrypto/bls12_381 and blst; gcd(3, r) = 1
# keeps it non-degenerate and bilinear.
assert (P ** 4 - P ** 2 + 1) % R == 0
assert 3 * ((P ** 4 - P ** 2 + 1) // R) == (X - 1) ** 2 * (X + P) * (X ** 2 + P ** 2 - 1) + 3
assert R % 3 != 0

# NTT (src/ntt): snarkjs/ffjavascript take their roots of unity from the generator 5 instead
# of 7. 5 is also a non-residue, so 5^t has order exactly 2^32 and spans the same subgroup.
root5 = pow(5, t, R)
assert pow(root5, 2**31, R) != 1 and pow(root5, 2**32, R) == 1
assert root5 == 0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f
emit("CZK__FR_ROOT_OF_UNITY_5_MONT", mont(root5, R, 4), 4, "5^t mod r, primitive 2^32-th root of unity of snarkjs, Montgomery")

# Constraint-system fast paths (src/cs/cs_internal.h): the small row values -2..2 in Fr,
# Montgomery form, as written straight into a/b/c by the boolean gadgets.
for k, name in ((-2, "M2"), (-1, "M1"), (2, "2")):
    emit("CZK__FR_SMALL_%s_MONT" % name, mont(k % R, R, 4), 4, "%d mod r, Montgomery" % k)

print("/* Generated by scripts/gen_consts.py: do not edit. */")
print("#ifndef CZK_FF_CONSTS_H\n#define CZK_FF_CONSTS_H\n")
print("\n".join(out))
print("\n#endif")
