// Generates BLS12-381 test vectors with @noble/curves, an implementation independent of czk,
// for tests/peers/noble_check.c.
//
//   node noble_vectors.mjs N SEED > vectors.json
//
// N is the number of random cases per section, SEED any string. Inputs come from this
// script's own generator (SHA-256 in counter mode over the seed), so the same N and SEED
// always give the same document and a failing run can be replayed. Every value is lowercase
// hex without 0x: field elements big-endian at their canonical width (Fp 48 bytes, Fr 32),
// Fp2 elements as [c0, c1], points as noble's zcash-format bytes, scalars as minimal hex.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { FpLegendre } from '@noble/curves/abstract/modular.js';

const { Fp, Fr, Fp2, Fp12 } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const P = Fp.ORDER;
const R = Fr.ORDER;

const n = Number.parseInt(process.argv[2] ?? '50', 10);
const seed = process.argv[3] ?? String(Date.now());
if (!Number.isInteger(n) || n < 1) {
    console.error('usage: node noble_vectors.mjs N SEED');
    process.exit(2);
}

// --- deterministic randomness -----------------------------------------------------------

let counter = 0n;
function randBytes(len) {
    const out = new Uint8Array(len);
    for (let off = 0; off < len; off += 32) {
        const h = createHash('sha256').update(`czk-noble:${seed}:${counter++}`).digest();
        out.set(h.subarray(0, Math.min(32, len - off)), off);
    }
    return out;
}
function randBig(bytes) {
    return BigInt('0x' + Buffer.from(randBytes(bytes)).toString('hex'));
}
function randBelow(m) {
    // 64 random bytes reduced mod m: the bias is below 2^-128 for both moduli.
    return randBig(64) % m;
}
function randInt(k) {
    return Number(randBig(4) % BigInt(k));
}

// Random field elements with edge values mixed in: zero, one, m-1, small values (a single
// limb), values just below m (carries through every limb), and uniform ones.
function pickField(m, i) {
    switch (i) {
        case 0: return 0n;
        case 1: return 1n;
        case 2: return m - 1n;
        case 3: return 2n;
        default:
            switch (randInt(8)) {
                case 0: return randBig(8);
                case 1: return m - 1n - randBig(8);
                default: return randBelow(m);
            }
    }
}

// --- encodings --------------------------------------------------------------------------

const hexN = (v, bytes) => v.toString(16).padStart(2 * bytes, '0');
const hexFp = (v) => hexN(v, 48);
const hexFr = (v) => hexN(v, 32);
const hexFp2 = (v) => [hexFp(v.c0), hexFp(v.c1)];
const hexScalar = (k) => k.toString(16);
const hexBytes = (b) => Buffer.from(b).toString('hex');

function check(cond, what) {
    if (!cond) throw new Error(`noble_vectors self-check failed: ${what}`);
}

// noble's sqrt throws on non-squares; this turns that into null.
function trySqrt(F, a) {
    try {
        return F.sqrt(a);
    } catch {
        return null;
    }
}

// --- prime fields -----------------------------------------------------------------------

function primeFieldCases(F, m, hex) {
    const cases = [];
    for (let i = 0; i < n; i++) {
        const a = pickField(m, i);
        const b = i === 4 ? a : pickField(m, i + 1 < 4 ? i + 1 : 99);
        const root = trySqrt(F, a);
        const leg = FpLegendre(F, a);
        // The square-root and Legendre answers come from different code in noble; make
        // sure they agree before handing them on.
        check((root !== null) === (leg !== -1), `sqrt/legendre disagree on ${a}`);
        if (root !== null) check(F.eql(F.sqr(root), a), `sqrt of ${a}`);
        const e = randBig(16); // a 128-bit exponent: two limbs
        cases.push({
            a: hex(a),
            b: hex(b),
            e: hexScalar(e),
            add: hex(F.add(a, b)),
            dbl: hex(F.add(a, a)),
            sub: hex(F.sub(a, b)),
            mul: hex(F.mul(a, b)),
            sqr: hex(F.sqr(a)),
            neg: hex(F.neg(a)),
            pow: hex(F.pow(a, e)),
            inv: F.is0(a) ? null : hex(F.inv(a)),
            sqrt: root === null ? null : hex(root),
            legendre: leg,
        });
    }
    return cases;
}

// --- Fp2 --------------------------------------------------------------------------------

function pickFp2(i) {
    switch (i) {
        case 0: return Fp2.ZERO;
        case 1: return Fp2.ONE;
        // A non-square of Fp as c0 with c1 = 0: a square in Fp2 whose root is purely
        // imaginary, the branch general sqrt code most often gets wrong.
        case 2: return Fp2.create({ c0: P - 1n, c1: 0n });
        case 3: return Fp2.create({ c0: 0n, c1: pickField(P, 99) });
        case 4: return Fp2.create({ c0: pickField(P, 99), c1: 0n });
        default: return Fp2.create({ c0: pickField(P, 99), c1: pickField(P, 99) });
    }
}

function fp2Cases() {
    const cases = [];
    for (let i = 0; i < n; i++) {
        const a = pickFp2(i);
        const b = pickFp2(i + 5);
        const root = trySqrt(Fp2, a);
        // Independent criterion: a is a square in Fp2 iff its norm c0^2 + c1^2 is a square
        // in Fp.
        const norm = Fp.add(Fp.sqr(a.c0), Fp.sqr(a.c1));
        check((root !== null) === (FpLegendre(Fp, norm) !== -1), `Fp2 sqrt/norm disagree`);
        if (root !== null) check(Fp2.eql(Fp2.sqr(root), a), 'Fp2 sqrt');
        const e = randBig(16);
        cases.push({
            a: hexFp2(a),
            b: hexFp2(b),
            e: hexScalar(e),
            add: hexFp2(Fp2.add(a, b)),
            sub: hexFp2(Fp2.sub(a, b)),
            mul: hexFp2(Fp2.mul(a, b)),
            sqr: hexFp2(Fp2.sqr(a)),
            neg: hexFp2(Fp2.neg(a)),
            pow: hexFp2(Fp2.pow(a, e)),
            inv: Fp2.is0(a) ? null : hexFp2(Fp2.inv(a)),
            is_square: root !== null,
            sqrt: root === null ? null : hexFp2(root),
        });
    }
    return cases;
}

// --- groups -----------------------------------------------------------------------------

// [k]G for any k >= 0 (noble's multiply() wants 1 <= k < r).
function mulBase(G, k) {
    const kr = k % R;
    return kr === 0n ? G.ZERO : G.BASE.multiply(kr);
}
const unc = (pt) => hexBytes(pt.toBytes(false));
const cmp = (pt) => hexBytes(pt.toBytes(true));

function groupCases(G) {
    const cases = [];
    for (let i = 0; i < n; i++) {
        // Mostly k < r; every fifth scalar is in [r, 2^256) to test reduction by the
        // caller-visible limb form.
        const k1 = i % 5 === 4 ? R + randBelow((1n << 256n) - R) : randBelow(R - 1n) + 1n;
        const k2 = randBelow(R - 1n) + 1n;
        const p = mulBase(G, k1);
        const q = mulBase(G, k2);
        cases.push({
            k1: hexScalar(k1),
            k2: hexScalar(k2),
            p_c: cmp(p),
            p_u: unc(p),
            q_c: cmp(q),
            q_u: unc(q),
            add: unc(p.add(q)),
            dbl: unc(p.double()),
            neg: unc(p.negate()),
            mul: unc(p.multiply(k2)),
        });
    }
    return cases;
}

function groupEdges(G) {
    const ks = [
        0n, 1n, 2n, R - 1n, R, R + 1n, 2n * R - 1n, (1n << 256n) - 1n,
        // Wider than Fr's four limbs: czk's [k]P takes any number of limbs.
        (1n << 384n) - 1n,
    ];
    return ks.map((k) => {
        const p = mulBase(G, k);
        return { k: hexScalar(k), c: cmp(p), u: unc(p), inf: p.is0() };
    });
}

// --- encodings that must be rejected ----------------------------------------------------

// What noble does with the bytes (full validation: canonical, on the curve, in the
// subgroup): "accept" or "reject: <message>".
function nobleVerdict(G, bytes) {
    try {
        G.fromBytes(bytes);
        return 'accept';
    } catch (e) {
        return `reject: ${e.message}`;
    }
}

function setFlags(bytes, flags) {
    const out = Uint8Array.from(bytes);
    out[0] = (out[0] & 0x1f) | flags;
    return out;
}

// x with no point on G1 (x^3 + 4 a non-square), and a point on G1's curve outside the
// subgroup (the cofactor is large, so almost any curve point is).
function g1Specials() {
    let nonCurveX, offPoint;
    for (;;) {
        const x = randBelow(P);
        const y = trySqrt(Fp, Fp.add(Fp.mul(Fp.sqr(x), x), 4n));
        if (y === null) {
            nonCurveX ??= x;
        } else if (!offPoint) {
            const pt = G1.fromAffine({ x, y });
            if (!pt.isTorsionFree()) offPoint = { x, y };
        }
        if (nonCurveX !== undefined && offPoint) return { nonCurveX, offPoint };
    }
}

function g2Specials() {
    const b2 = Fp2.create({ c0: 4n, c1: 4n });
    let nonCurveX, offPoint;
    for (;;) {
        const x = Fp2.create({ c0: randBelow(P), c1: randBelow(P) });
        const y = trySqrt(Fp2, Fp2.add(Fp2.mul(Fp2.sqr(x), x), b2));
        if (y === null) {
            nonCurveX ??= x;
        } else if (!offPoint) {
            const pt = G2.fromAffine({ x, y });
            if (!pt.isTorsionFree()) offPoint = { x, y };
        }
        if (nonCurveX !== undefined && offPoint) return { nonCurveX, offPoint };
    }
}

const beFp = (v) => Buffer.from(hexN(v, 48), 'hex');
const beFp2 = (v) => Buffer.concat([beFp(v.c1), beFp(v.c0)]); // zcash order: c1 || c0

// A valid point whose listed coordinates each stay below 2^381 when p is added, so that
// "coordinate + p" is an encoding that differs from a valid one only by not being reduced
// (a decoder that reduces mod p would accept it). About one point in four qualifies per
// coordinate.
function pointWithRoomAboveP(G, coords) {
    for (;;) {
        const pt = mulBase(G, randBelow(R - 1n) + 1n);
        if (coords(pt.toAffine()).every((c) => c + P < 1n << 381n)) return pt;
    }
}

// Each case: the bytes, the form to decode them as, czk's expected status, and noble's
// verdict for the record.
function rejectCases(G, isG2) {
    const W = isG2 ? 96 : 48;
    const enc = isG2 ? beFp2 : beFp;
    const { nonCurveX, offPoint } = isG2 ? g2Specials() : g1Specials();
    const valid = isG2
        ? pointWithRoomAboveP(G, (a) => [a.x.c1, a.y.c0])
        : pointWithRoomAboveP(G, (a) => [a.x, a.y]);
    const { x: vx, y: vy } = valid.toAffine();
    const vu = valid.toBytes(false);
    const vc = valid.toBytes(true);
    const sort = vc[0] & 0x20;
    check(cmpSortBit(vy, isG2) === (sort !== 0), 'sort bit rule agrees with noble');
    const cases = [];
    const add = (what, form, bytes, czk, extra = {}) =>
        cases.push({
            what, form, bytes: hexBytes(bytes), czk, noble: nobleVerdict(G, bytes), ...extra,
        });

    // Coordinates at or above p. In G2 each half is tried, since a decoder may check only
    // one of them.
    if (isG2) {
        add('compressed x.c1 = p', 'compressed',
            setFlags(Buffer.concat([beFp(P), beFp(vx.c0)]), 0x80 | sort), 'ENONCANONICAL');
        add('compressed x.c0 = p', 'compressed',
            setFlags(Buffer.concat([beFp(vx.c1), beFp(P)]), 0x80 | sort), 'ENONCANONICAL');
        add('compressed x.c1 + p (unreduced valid x)', 'compressed',
            setFlags(Buffer.concat([beFp(vx.c1 + P), beFp(vx.c0)]), 0x80 | sort), 'ENONCANONICAL');
        add('uncompressed y.c0 + p (unreduced valid y)', 'uncompressed',
            Buffer.concat([enc(vx), beFp(vy.c1), beFp(vy.c0 + P)]), 'ENONCANONICAL');
    } else {
        add('compressed x = p', 'compressed', setFlags(beFp(P), 0x80), 'ENONCANONICAL');
        add('compressed x = 2^381 - 1', 'compressed', setFlags(beFp((1n << 381n) - 1n), 0x80),
            'ENONCANONICAL');
        add('compressed x + p (unreduced valid x)', 'compressed',
            setFlags(beFp(vx + P), 0x80 | sort), 'ENONCANONICAL');
        add('uncompressed x + p (unreduced valid x)', 'uncompressed',
            Buffer.concat([beFp(vx + P), beFp(vy)]), 'ENONCANONICAL');
        add('uncompressed y + p (unreduced valid y)', 'uncompressed',
            Buffer.concat([beFp(vx), beFp(vy + P)]), 'ENONCANONICAL');
    }
    add('compressed x not on curve', 'compressed', setFlags(enc(nonCurveX), 0x80), 'ENOTONCURVE');
    add('compressed x not on curve, sort bit', 'compressed', setFlags(enc(nonCurveX), 0xa0),
        'ENOTONCURVE');

    // A valid x with y + 1.
    const yBad = isG2 ? Fp2.add(vy, Fp2.ONE) : Fp.add(vy, 1n);
    add('uncompressed y mismatched', 'uncompressed', Buffer.concat([enc(vx), enc(yBad)]),
        'ENOTONCURVE');

    // On the curve, outside the subgroup: both forms. czk without CHECK_SUBGROUP must accept
    // them and give back this point (point_u).
    const offU = Buffer.concat([enc(offPoint.x), enc(offPoint.y)]);
    const offC = setFlags(enc(offPoint.x), 0x80 | (cmpSortBit(offPoint.y, isG2) ? 0x20 : 0));
    check(!G.fromAffine(offPoint).isTorsionFree(), 'off-subgroup point');
    add('uncompressed not in subgroup', 'uncompressed', offU, 'ENOTINSUBGROUP',
        { point_u: hexBytes(offU) });
    add('compressed not in subgroup', 'compressed', offC, 'ENOTINSUBGROUP',
        { point_u: hexBytes(offU) });

    // Flag bits.
    add('compressed bytes without the compression bit', 'compressed', setFlags(vc, sort),
        'EBADFLAGS');
    add('uncompressed bytes with the compression bit', 'uncompressed', setFlags(vu, 0x80),
        'EBADFLAGS');
    add('uncompressed with the sort bit', 'uncompressed', setFlags(vu, 0x20), 'EBADFLAGS');
    const infC = new Uint8Array(W);
    infC[0] = 0xc0;
    const infU = new Uint8Array(2 * W);
    infU[0] = 0x40;
    add('compressed infinity with the sort bit', 'compressed', setFlags(infC, 0xe0), 'EBADFLAGS');
    const infCstray = Uint8Array.from(infC);
    infCstray[W - 1] = 1;
    add('compressed infinity with a stray bit', 'compressed', infCstray, 'EBADFLAGS');
    const infUstray = Uint8Array.from(infU);
    infUstray[W] = 1;
    add('uncompressed infinity with a stray bit', 'uncompressed', infUstray, 'EBADFLAGS');
    add('uncompressed infinity with the sort bit', 'uncompressed', setFlags(infU, 0x60),
        'EBADFLAGS');
    add('uncompressed infinity with the compression bit', 'uncompressed', setFlags(infU, 0xc0),
        'EBADFLAGS');
    // (0, 0) without the infinity flag is czk's in-memory infinity, but not a valid
    // encoding: it is not on the curve (b != 0), and the zcash format reserves a flag for
    // infinity. Either error class is a reasonable report, so any error passes.
    add('uncompressed all zero, no infinity flag', 'uncompressed', new Uint8Array(2 * W), 'any');
    return cases;
}

// zcash's sort bit: the y (for G2: y.c1, or y.c0 when y.c1 = 0) is > (p-1)/2.
function cmpSortBit(y, isG2) {
    const half = (P - 1n) / 2n;
    if (!isG2) return y > half;
    return y.c1 !== 0n ? y.c1 > half : y.c0 > half;
}

// --- pairing ----------------------------------------------------------------------------

// The 12 Fp coefficients in czk_fp12_to_bytes order: c0.c0.c0, c0.c0.c1, c0.c1.c0, ...,
// c1.c2.c1, read from noble's object fields.
function fp12Coeffs(f) {
    const out = [];
    for (const f6 of [f.c0, f.c1])
        for (const f2 of [f6.c0, f6.c1, f6.c2]) out.push(hexFp(f2.c0), hexFp(f2.c1));
    return out;
}

function pairingCases() {
    const cases = [];
    const count = Math.max(2, Math.ceil(n / 10)); // a pairing costs ~10 ms in noble
    for (let i = 0; i < count; i++) {
        const a = randBelow(R - 1n) + 1n;
        const b = randBelow(R - 1n) + 1n;
        const p = G1.BASE.multiply(a);
        const q = G2.BASE.multiply(b);
        const e = bls12_381.pairing(p, q);
        // Bilinearity inside noble, e(aG1, bG2) == e(G1, G2)^(ab), guards against reading
        // the fields of a value noble did not mean as the pairing.
        if (i === 0) check(Fp12.eql(e, Fp12.pow(bls12_381.pairing(G1.BASE, G2.BASE), (a * b) % R)),
                           'noble bilinearity');
        cases.push({ a: hexScalar(a), b: hexScalar(b), p: unc(p), q: unc(q), e: fp12Coeffs(e) });
    }
    // e(P, O) = e(O, Q) = 1.
    const one = fp12Coeffs(Fp12.ONE);
    cases.push({ a: '0', b: '1', p: unc(G1.ZERO), q: unc(G2.BASE), e: one });
    cases.push({ a: '1', b: '0', p: unc(G1.BASE), q: unc(G2.ZERO), e: one });
    return cases;
}

// --- self-checks of the field order of noble's Fp12 object ------------------------------

// fp12Coeffs relies on c0 + c1·w, c0 + c1·v + c2·v^2, c0 + c1·u with w^2 = v, v^3 = u + 1,
// u^2 = -1. Build w, v and u from the fields and check those relations with noble's own
// multiplication, so a changed layout in a later noble fails here, not as a czk mismatch.
function checkFp12Layout() {
    const f2 = (c0, c1) => Fp2.create({ c0, c1 });
    const f6 = (c0, c1, c2) => ({ c0, c1, c2 });
    const Z2 = Fp2.ZERO, O2 = Fp2.ONE;
    const Z6 = f6(Z2, Z2, Z2);
    const w = { c0: Z6, c1: f6(O2, Z2, Z2) };
    const v = { c0: f6(Z2, O2, Z2), c1: Z6 };
    const u = { c0: f6(f2(0n, 1n), Z2, Z2), c1: Z6 };
    const one = { c0: f6(O2, Z2, Z2), c1: Z6 };
    check(Fp12.eql(one, Fp12.ONE), 'Fp12 one layout');
    check(Fp12.eql(Fp12.sqr(w), v), 'w^2 = v');
    check(Fp12.eql(Fp12.mul(Fp12.sqr(v), v), Fp12.add(u, one)), 'v^3 = u + 1');
    check(Fp12.eql(Fp12.sqr(u), Fp12.neg(one)), 'u^2 = -1');
    // And the coefficient order: a basis element lands at the index fp12Coeffs promises.
    const idx = (f) => fp12Coeffs(f).findIndex((h) => BigInt('0x' + h) === 1n);
    check(idx(one) === 0 && idx(u) === 1 && idx(v) === 2 && idx(w) === 6, 'coefficient order');
}

// --- main -------------------------------------------------------------------------------

checkFp12Layout();
const nobleVersion = JSON.parse(
    readFileSync(new URL('./node_modules/@noble/curves/package.json', import.meta.url), 'utf8'),
).version;
const doc = {
    generator: 'tests/peers/noble_vectors.mjs',
    noble_version: nobleVersion,
    seed,
    n,
    fp: primeFieldCases(Fp, P, hexFp),
    fr: primeFieldCases(Fr, R, hexFr),
    fp2: fp2Cases(),
    g1: groupCases(G1),
    g1_edge: groupEdges(G1),
    g1_reject: rejectCases(G1, false),
    g2: groupCases(G2),
    g2_edge: groupEdges(G2),
    g2_reject: rejectCases(G2, true),
    pairing: pairingCases(),
};
process.stdout.write(JSON.stringify(doc, null, 1) + '\n');
