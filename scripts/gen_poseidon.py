#!/usr/bin/env python3
"""
Clean-room reference for neptune's Poseidon constants, plain and optimized ("static").

czk derives every Poseidon constant at first use (src/hash/poseidon.c); no table is
generated. This script is the independent reference those derivations are checked
against: it follows neptune's own procedures literally (round constants from the Grain
LFSR, Cauchy MDS, `compress_round_constants`, and `factor_to_sparse_matrices`, which
re-inverts a fresh minor at every partial round), whereas the C code uses closed forms.
It prints the C lines of tests/unit/test_poseidon.c's OPT_CHECKSUMS table: for each
arity, index-weighted checksums sum((i + 1) * x[i]) mod r over the compressed round
constants, the pre-sparse matrix (row-major), w_hat and v_rest (sparse matrix by
sparse matrix), and it asserts every known answer of docs/formats.md §7.

    python3 scripts/gen_poseidon.py          # about a minute: arity 36 is slow in Python
"""
import sys

P = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
RF = 8
RP = {2: 55, 4: 56, 8: 57, 11: 57, 16: 59, 24: 59, 36: 60}


def inv(x):
    return pow(x % P, P - 2, P)


def grain_constants(t, rf, rp, n=255):
    st = []
    for bits, v in ((2, 1), (4, 1), (12, n), (12, t), (10, rf), (10, rp), (30, (1 << 30) - 1)):
        st += [(v >> i) & 1 for i in reversed(range(bits))]

    def gen():
        b = st[62] ^ st[51] ^ st[38] ^ st[23] ^ st[13] ^ st[0]
        st.pop(0)
        st.append(b)
        return b

    for _ in range(160):
        gen()

    def nxt():
        while not gen():  # first bit 0: drop the pair
            gen()
        return gen()  # first bit 1: emit the second

    out = []
    while len(out) < (rf + rp) * t:
        v = 0
        for _ in range(n):
            v = (v << 1) | nxt()
        if v < P:
            out.append(v)
    return out


def mds(t):
    return [[inv(i + t + j) for j in range(t)] for i in range(t)]


def mat_mul(a, b):
    n, m, k = len(a), len(b), len(b[0])
    return [[sum(a[i][l] * b[l][j] for l in range(m)) % P for j in range(k)] for i in range(n)]


def mat_inv(a):
    """Gauss-Jordan inverse (the inverse is unique, so this matches neptune's adjugate)."""
    n = len(a)
    m = [row[:] + [1 if i == j else 0 for j in range(n)] for i, row in enumerate(a)]
    for c in range(n):
        piv = next(r for r in range(c, n) if m[r][c] % P)
        m[c], m[piv] = m[piv], m[c]
        f = inv(m[c][c])
        m[c] = [x * f % P for x in m[c]]
        for r in range(n):
            if r != c and m[r][c]:
                g = m[r][c]
                m[r] = [(x - g * y) % P for x, y in zip(m[r], m[c])]
    return [row[n:] for row in m]


def apply(m, v):
    """neptune matrix::apply_matrix: m x v with v a column."""
    return [sum(x * y for x, y in zip(row, v)) % P for row in m]


def compress_round_constants(t, rp, rc, m_inv):
    """neptune preprocessing::compress_round_constants with partial_preprocessed = R_P."""
    keys = lambda r: rc[r * t:(r + 1) * t]
    half = RF // 2
    res = list(keys(0))
    for i in range(half - 1):
        res += apply(m_inv, keys(i + 1))
    partial = []
    acc = list(keys(half + rp))
    for i in range(rp):
        prev = keys(half + rp - i - 1)
        inverted = apply(m_inv, acc)
        partial.append(inverted[0])
        inverted[0] = 0
        acc = [(a + b) % P for a, b in zip(prev, inverted)]
    res += apply(m_inv, acc)
    res += partial[::-1]
    for i in range(1, half):
        res += apply(m_inv, keys(i + half + rp))
    assert len(res) == RF * t + rp
    return res


def factor_to_sparse(m, rp):
    """neptune mds::factor_to_sparse_matrices: returns (pre_sparse, [(w_hat, v_rest)])."""
    t = len(m)
    curr = m
    sparse = []
    for _ in range(rp):
        m_hat = [row[1:] for row in curr[1:]]
        w = [row[0] for row in curr[1:]]
        w_hat = apply(mat_inv(m_hat), w)
        sparse.append(([curr[0][0]] + w_hat, curr[0][1:]))
        m_prime = [[1] + [0] * (t - 1)] + [[0] + row for row in m_hat]
        curr = mat_mul(m, m_prime)
    return curr, sparse[::-1]


def sbox(x):
    return pow(x, 5, P)


def vec_mat(s, a):
    t = len(s)
    return [sum(s[i] * a[i][j] for i in range(t)) % P for j in range(t)]


def poseidon_plain(state, rc, m, rp):
    t = len(state)
    s = list(state)
    for r in range(RF + rp):
        s = [(s[i] + rc[r * t + i]) % P for i in range(t)]
        if r < RF // 2 or r >= RF // 2 + rp:
            s = [sbox(x) for x in s]
        else:
            s[0] = sbox(s[0])
        s = vec_mat(s, m)
    return s


def poseidon_opt(state, crc, m, pre, sparse, rp):
    t = len(state)
    s = [(x + c) % P for x, c in zip(state, crc[:t])]
    off = t
    half = RF // 2
    for r in range(half):
        s = [(sbox(x) + crc[off + i]) % P for i, x in enumerate(s)]
        off += t
        s = vec_mat(s, pre if r == half - 1 else m)
    for k in range(rp):
        s[0] = (sbox(s[0]) + crc[off]) % P
        off += 1
        w_hat, v_rest = sparse[k]
        s0 = s[0]
        s = [sum(w * x for w, x in zip(w_hat, s)) % P] + \
            [(s[j] + v_rest[j - 1] * s0) % P for j in range(1, t)]
    for r in range(half - 1):
        s = [(sbox(x) + crc[off + i]) % P for i, x in enumerate(s)]
        off += t
        s = vec_mat(s, m)
    s = vec_mat([sbox(x) for x in s], m)
    assert off == len(crc)
    return s


def checksum(xs):
    return sum((i + 1) * x for i, x in enumerate(xs)) % P


def tag_merkle(arity):
    return (1 << arity) - 1


def main():
    known = {
        2: 0x396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff,
        4: 0x58a54b10a9e5848a00db3c6579229399fb6b4605bf1327ec019814ff6662075d,
        8: 0x2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6,
        11: 0x0c0fc1b2e5227f286ca537e232ebe87a09f3dcd8ccb08fc1cee3bbc32b693163,
        16: 0x2d3ae2663381ae8ac1c2fb5a6f871e635b8dbc6d30680a6f1291c74060266d37,
        24: 0x63beb8831f11ae15066f39bf783f3d9fc3e779f6468815b1d7ef3569f585b321,
        36: 0x699303082a6e5d5f540a30e03c10bbaa75cd368df8a8ac3c4473606dfa4e8140,
    }
    print("/* Generated by scripts/gen_poseidon.py: arity, checksums of the compressed round")
    print(" * constants, pre-sparse matrix, w_hat and v_rest (big-endian hex). */")
    for arity in sorted(RP):
        t, rp = arity + 1, RP[arity]
        rc = grain_constants(t, RF, rp)
        if t == 9:
            assert rc[0] == 0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9
        m = mds(t)
        m_inv = mat_inv(m)
        crc = compress_round_constants(t, rp, rc, m_inv)
        pre, sparse = factor_to_sparse(m, rp)
        state = [tag_merkle(arity)] + list(range(arity))
        plain = poseidon_plain(state, rc, m, rp)
        opt = poseidon_opt(state, crc, m, pre, sparse, rp)
        assert plain == opt, arity
        assert plain[1] == known[arity], arity
        sums = (checksum(crc), checksum([x for row in pre for x in row]),
                checksum([x for w, _ in sparse for x in w]),
                checksum([x for _, v in sparse for x in v]))
        print("    {%d, {\"%s\",\n         \"%s\",\n         \"%s\",\n         \"%s\"}}," %
              ((arity,) + tuple("%064x" % s for s in sums)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
