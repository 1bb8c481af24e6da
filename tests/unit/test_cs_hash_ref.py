#!/usr/bin/env python3
"""Independent reference for tests/unit/test_cs.c: the R1CS hash of bellpepper-core's
TestConstraintSystem::hash (crates/bellpepper-core/src/util_cs/test_cs.rs), written from
the Rust source with Python integers and hashlib's BLAKE2s, for the test circuits of
test_cs.c, plus their counts and density counts.

Linear combinations follow bellpepper-core's LinearCombination: a map from variable to
coefficient where adding a present variable adds to its coefficient (Indexer), zero
coefficients included until hashing drops them (proc_lc). Nothing here shares code with
src/cs: the test circuits are re-stated below call for call, with the same splitmix64
stream deciding their structure.

Run: python3 tests/unit/test_cs_hash_ref.py  (prints the values embedded in test_cs.c)
"""
import hashlib
import struct

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
M64 = (1 << 64) - 1


class Cs:
    def __init__(self):
        self.n_inputs = 1  # ONE
        self.n_aux = 0
        self.rows = []

    def alloc(self):
        self.n_aux += 1
        return ('A', self.n_aux - 1)

    def alloc_input(self):
        self.n_inputs += 1
        return ('I', self.n_inputs - 1)

    def enforce(self, a, b, c):
        self.rows.append((dict(a), dict(b), dict(c)))


ONE = ('I', 0)


def lc_add(lc, var, coeff):
    lc[var] = (lc.get(var, 0) + coeff) % R


def lc_add_lc(lc, k, other):
    for var, c in list(other.items()):
        lc_add(lc, var, k * c)


def order(var):
    return (0 if var[0] == 'I' else 1, var[1])


def proc_lc(lc):
    return sorted(((v, c) for v, c in lc.items() if c % R != 0), key=lambda t: order(t[0]))


def r1cs_hash(cs):
    h = hashlib.blake2s(digest_size=32)
    h.update(struct.pack('>QQQ', cs.n_inputs, cs.n_aux, len(cs.rows)))
    for row in cs.rows:
        for lc in row:
            terms = proc_lc(lc)
            h.update(struct.pack('>Q', len(terms)))
            for (kind, idx), c in terms:
                h.update(kind.encode() + struct.pack('>Q', idx) + c.to_bytes(32, 'big'))
    return h.hexdigest()


def densities(cs):
    a_aux, b_in, b_aux = set(), set(), set()
    for a, b, _ in cs.rows:
        for (kind, idx), c in a.items():
            if c and kind == 'A':
                a_aux.add(idx)
        for (kind, idx), c in b.items():
            if c:
                (b_aux if kind == 'A' else b_in).add(idx)
    return len(a_aux), len(b_in), len(b_aux)


def cubic():
    cs = Cs()
    x = cs.alloc()
    x2 = cs.alloc()
    cs.enforce({x: 1}, {x: 1}, {x2: 1})
    x3 = cs.alloc()
    cs.enforce({x2: 1}, {x: 1}, {x3: 1})
    out = cs.alloc_input()
    a = {}
    lc_add(a, x3, 1)
    lc_add(a, x, 1)
    lc_add(a, ONE, 5)
    cs.enforce(a, {ONE: 1}, {out: 1})
    return cs


def bits(n):
    cs = Cs()
    num = cs.alloc()
    bs = []
    for _ in range(n):
        b = cs.alloc()
        a = {}
        lc_add(a, ONE, 1)
        lc_add(a, b, -1)
        cs.enforce(a, {b: 1}, {})
        bs.append(b)
    packed = {}
    for i, b in enumerate(bs):
        lc_add(packed, b, 1 << i)
    cs.enforce(packed, {ONE: 1}, {num: 1})
    inp = cs.alloc_input()
    cs.enforce(packed, {ONE: 1}, {inp: 1})
    return cs


class Rng:
    """splitmix64, as rng_next in test_cs.c."""

    def __init__(self, seed):
        self.s = seed & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def big(self):
        w = [self.next() for _ in range(4)]
        w[3] &= 0x3FFFFFFFFFFFFFFF
        return w[0] | (w[1] << 64) | (w[2] << 128) | (w[3] << 192)


def random_circuit(seed, n_cons):
    rng = Rng(seed)
    cs = Cs()
    vars_ = [ONE]
    for _ in range(3):
        vars_.append(cs.alloc_input())
    for _ in range(10):
        vars_.append(cs.alloc())

    def pick():
        return vars_[rng.next() % len(vars_)]

    def build():
        lc = {}
        n = rng.next() % 6
        if rng.next() % 16 == 0:
            n = 40 + rng.next() % 10
        for _ in range(n):
            v = pick()
            kind = rng.next() % 5
            if kind == 0:
                lc_add(lc, v, 1)
            elif kind == 1:
                lc_add(lc, v, -1)
            elif kind == 2:
                lc_add(lc, v, rng.next() % 5)
            elif kind == 3:
                lc_add(lc, v, rng.big())
            else:
                k = rng.next() % 3 + 1
                lc_add(lc, v, k)
                lc_add(lc, v, -k)
        return lc

    for _ in range(n_cons):
        a = build()
        b = build()
        c = build()
        op = rng.next() % 8
        if op == 0:
            lc_add_lc(a, 1, b)
        elif op == 1:
            lc_add_lc(c, -1, a)
        elif op == 2:
            lc_add_lc(b, rng.next() % 4 + 2, c)
        elif op == 3:
            lc_add_lc(b, -rng.big(), a)
        elif op == 4:
            lc_add_lc(a, rng.next() % 4 + 2, a)
        w = cs.alloc()
        vars_.append(w)
        lc_add(c, w, 1)
        cs.enforce(a, b, c)
    return cs


def show(name, cs):
    da, dbi, dba = densities(cs)
    print(f'{name}: inputs={cs.n_inputs} aux={cs.n_aux} constraints={len(cs.rows)} '
          f'a_aux={da} b_input={dbi} b_aux={dba}')
    print(f'  hash {r1cs_hash(cs)}')


if __name__ == '__main__':
    show('cubic', cubic())
    show('bits64', bits(64))
    show('random(42, 300)', random_circuit(42, 300))
