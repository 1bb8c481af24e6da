#!/usr/bin/env python3
"""Clean-room reference for SDR sealing of 2 KiB sectors (test_seal.c's expected values).

Written from docs/formats.md (§5.3 label hash, §5.5 parents, §5.6 replica_id, §7
Poseidon) and rust-fil-proofs' definitions, with nothing taken from czk's C:
ChaCha8 (Bernstein layout), bucket-sampling DRG, Feistel expander, labels with hashlib
SHA-256, fr32 padding, tree_d, column hashes, encoding, Poseidon octrees, comm_r.

Self-checks before printing anything:
  - Poseidon against the known answers of docs/formats.md §7 (neptune / rust-fil-proofs);
  - the parents of StackedDrg2KiBV1_1 nodes 2, 3, 63 against docs/formats.md §5.5;
  - the last label of the 11-layer labellings of rust-fil-proofs' tests
    (storage-proofs-porep/tests/stacked_vanilla.rs test_stacked_porep_generate_labels,
    also create_label/multi.rs test_create_labels): 64 and 128 nodes, replica_id [9; 32],
    porep_id [0; 32] with V1.0 and [123; 32] with V1.1.

Run once; it prints the C initialisers that test_seal.c embeds:
    python3 tests/unit/seal_ref.py            # the four 2 KiB sectors (about a second)
    python3 tests/unit/seal_ref.py --8mib     # the zero 8 MiB sector (several minutes)
"""
import hashlib
import struct
import sys

P = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001

# ---------------------------------------------------------------------------------------
# Poseidon (docs/formats.md §7: plain permutation, Grain constants, Cauchy MDS)
# ---------------------------------------------------------------------------------------
RP = {2: 55, 4: 56, 8: 57, 11: 57, 16: 59, 24: 59, 36: 60}
RF = 8
_consts = {}


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
        while not gen():
            gen()
        return gen()

    out = []
    while len(out) < (rf + rp) * t:
        v = 0
        for _ in range(n):
            v = (v << 1) | nxt()
        if v < P:
            out.append(v)
    return out


def poseidon_merkle(pre):
    """Poseidon with the MerkleTree tag 2^arity - 1 over exactly `arity` elements."""
    arity = len(pre)
    t = arity + 1
    rp = RP[arity]
    if arity not in _consts:
        rc = grain_constants(t, RF, rp)
        M = [[pow(i + t + j, P - 2, P) for j in range(t)] for i in range(t)]
        _consts[arity] = (rc, M)
    rc, M = _consts[arity]
    s = [(1 << arity) - 1] + [x % P for x in pre]
    for r in range(RF + rp):
        s = [(s[i] + rc[r * t + i]) % P for i in range(t)]
        if r < RF // 2 or r >= RF // 2 + rp:
            s = [pow(x, 5, P) for x in s]
        else:
            s[0] = pow(s[0], 5, P)
        s = [sum(s[i] * M[i][j] for i in range(t)) % P for j in range(t)]
    return s[1]


# ---------------------------------------------------------------------------------------
# ChaCha8 as rand_chacha 0.3 (key = seed, 64-bit block counter from 0, stream 0)
# ---------------------------------------------------------------------------------------
def _rotl(x, n):
    return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF


def chacha_block(key32, counter, rounds=8):
    const = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    k = list(struct.unpack("<8I", key32))
    s = const + k + [counter & 0xFFFFFFFF, counter >> 32, 0, 0]
    x = s[:]

    def qr(a, b, c, d):
        x[a] = (x[a] + x[b]) & 0xFFFFFFFF
        x[d] = _rotl(x[d] ^ x[a], 16)
        x[c] = (x[c] + x[d]) & 0xFFFFFFFF
        x[b] = _rotl(x[b] ^ x[c], 12)
        x[a] = (x[a] + x[b]) & 0xFFFFFFFF
        x[d] = _rotl(x[d] ^ x[a], 8)
        x[c] = (x[c] + x[d]) & 0xFFFFFFFF
        x[b] = _rotl(x[b] ^ x[c], 7)

    for _ in range(rounds // 2):
        qr(0, 4, 8, 12)
        qr(1, 5, 9, 13)
        qr(2, 6, 10, 14)
        qr(3, 7, 11, 15)
        qr(0, 5, 10, 15)
        qr(1, 6, 11, 12)
        qr(2, 7, 8, 13)
        qr(3, 4, 9, 14)
    return struct.pack("<16I", *[(x[i] + s[i]) & 0xFFFFFFFF for i in range(16)])


# ---------------------------------------------------------------------------------------
# The SDR graph (docs/formats.md §5.5)
# ---------------------------------------------------------------------------------------
class Graph:
    def __init__(self, nodes, porep_id, version):
        self.n = nodes
        self.v10 = version == "1.0"
        self.seed28 = hashlib.sha256(b"Filecoin_DRSample" + porep_id).digest()[:28]
        fk = hashlib.sha256(b"Filecoin_Feistel" + porep_id).digest()
        self.keys = [struct.unpack("<Q", fk[8 * i:8 * i + 8])[0] for i in range(4)]
        self.nexp = nodes * 8
        hb = 1
        while 4 ** hb < self.nexp:
            hb += 1
        self.hb = hb
        self.rmask = (1 << hb) - 1
        self.cache = {}

    def drg(self, node):
        if node < 2:
            return [0] * 6
        key = self.seed28 + struct.pack("<I", node)
        ks = chacha_block(key, 0) + chacha_block(key, 1)
        words = struct.unpack("<10Q", ks[:80])
        meta = node * 5
        import math
        nb = math.ceil(math.log2(meta))
        out = []
        for k in range(5):
            r1, r2 = words[2 * k], words[2 * k + 1]
            b = r1 % nb + 1
            hi = min(meta, 1 << b)
            lo = max(2, hi >> 1)
            d = lo + r2 % (hi - lo + 1)
            p = (meta - d) // 5
            if p == node:
                p = node - 1
            out.append(p)
        return out + [node - 1] if self.v10 else [node - 1] + out

    def _f(self, r, k):
        h = hashlib.blake2b(struct.pack(">QQ", r, k), digest_size=64).digest()
        return struct.unpack(">Q", h[:8])[0] & self.rmask

    def _encode(self, idx):
        left, right = idx >> self.hb, idx & self.rmask
        for i in range(3):
            left, right = right, left ^ self._f(right, self.keys[i])
        return (left << self.hb) | right

    def exp(self, node):
        out = []
        for i in range(8):
            u = self._encode(node * 8 + i)
            while u >= self.nexp:
                u = self._encode(u)
            out.append((u & 0xFFFFFFFF) // 8 if self.v10 else u // 8)
        return out

    def parents(self, node):
        if node not in self.cache:
            self.cache[node] = self.drg(node) + self.exp(node)
        return self.cache[node]


# ---------------------------------------------------------------------------------------
# Labels (docs/formats.md §5.3)
# ---------------------------------------------------------------------------------------
def trunc(d):
    return d[:31] + bytes([d[31] & 0x3F])


def label_layers(g, layers, replica_id):
    out = []
    for layer in range(1, layers + 1):
        cur = [None] * g.n
        for v in range(g.n):
            pre = replica_id + struct.pack(">I", layer) + struct.pack(">Q", v) + bytes(20)
            if v > 0:
                par = g.parents(v)
                if layer == 1:
                    labs = [cur[p] for p in par[:6]]
                else:
                    labs = [cur[p] for p in par[:6]] + [out[-1][p] for p in par[6:]]
                exp37 = [labs[i % len(labs)] for i in range(37)]
                pre += b"".join(exp37)
                assert len(pre) == 1248
            cur[v] = trunc(hashlib.sha256(pre).digest())
        out.append(cur)
    return out


# ---------------------------------------------------------------------------------------
# Data, trees, commitments
# ---------------------------------------------------------------------------------------
def fr32_pad(raw, size):
    """Fr32Reader: the raw bit stream (LSB first) in 254-bit units, one per 32 bytes."""
    bits = int.from_bytes(raw, "little")
    nbits = 8 * len(raw)
    out = bytearray()
    pos = 0
    while pos < nbits:
        unit = (bits >> pos) & ((1 << 254) - 1)
        out += unit.to_bytes(32, "little")
        pos += 254
    out += bytes(size - len(out))
    return bytes(out)


def tree_d_root(data):
    level = [data[i:i + 32] for i in range(0, len(data), 32)]
    while len(level) > 1:
        level = [trunc(hashlib.sha256(level[i] + level[i + 1]).digest())
                 for i in range(0, len(level), 2)]
    return level[0]


def octree_root(leaves):
    level = leaves
    while len(level) > 1:
        level = [poseidon_merkle(level[i:i + 8]) for i in range(0, len(level), 8)]
    return level[0]


def le(b):
    return int.from_bytes(b, "little")


def fr_bytes(x):
    return x.to_bytes(32, "little")


def porep_id(proof_id):
    return struct.pack("<QQ", proof_id, 0) + bytes(16)


def seal(proof_id, version, prover_id, sector_id, ticket, data):
    nodes = len(data) // 32
    comm_d = tree_d_root(data)
    pid = porep_id(proof_id)
    replica_id = trunc(hashlib.sha256(prover_id + struct.pack(">Q", sector_id) + ticket +
                                      comm_d + pid).digest())
    g = Graph(nodes, pid, version)
    labels = label_layers(g, 2, replica_id)
    columns = [poseidon_merkle([le(labels[0][v]), le(labels[1][v])]) for v in range(nodes)]
    comm_c = octree_root(columns)
    replica = [(le(data[32 * v:32 * v + 32]) + le(labels[1][v])) % P for v in range(nodes)]
    comm_r_last = octree_root(replica)
    comm_r = poseidon_merkle([comm_c, comm_r_last])
    return {
        "comm_d": comm_d, "replica_id": replica_id, "comm_c": fr_bytes(comm_c),
        "comm_r_last": fr_bytes(comm_r_last), "comm_r": fr_bytes(comm_r),
        "label_1_5": labels[0][5], "label_2_63": labels[1][63],
        "replica_63": fr_bytes(replica[63]),
    }


def self_checks():
    assert poseidon_merkle([1, 0]) == \
        0x042F94FFBE786BC393C003CC74A24F26EC5907B3DC3094AFB339FF6079800B5E
    assert poseidon_merkle(list(range(8))) == \
        0x2394611DA3A5DE5512010042116770774B682E9D9CC4AED92A9934F56D38A5E6
    g = Graph(64, porep_id(5), "1.1")
    assert g.parents(2) == [1, 1, 1, 0, 1, 0, 30, 28, 55, 63, 63, 36, 37, 36]
    assert g.parents(3) == [2, 1, 1, 2, 2, 2, 10, 46, 59, 7, 43, 29, 9, 16]
    assert g.parents(63) == [62, 15, 42, 62, 61, 62, 0, 15, 30, 30, 28, 42, 49, 38]
    for nodes, pid, ver, limbs in (
        (64, bytes(32), "1.0", (0xD3FAA96B9A0FBA04, 0xEA81A283D106485E,
                                0xE3D51B9AFA5AC2B3, 0x0462F4F4F1A68D37)),
        (128, bytes(32), "1.0", (0x7E191E52C4A8DA86, 0x5AE8A1C9E6FAC148,
                                 0xCE239F3B88A894B8, 0x234C00D1DC1D53BE)),
        (64, bytes([123]) * 32, "1.1", (0xABB3F38BB70DEFCF, 0x777A2E4D7769119F,
                                        0x3448959D495490BC, 0x06021188C7A71CB5)),
        (128, bytes([123]) * 32, "1.1", (0x22AB81CF68C4676D, 0x7A77A82FC7C9C189,
                                         0xC6C03D32C1E42D23, 0x0F777C18CC2C55BD)),
    ):
        labels = label_layers(Graph(nodes, pid, ver), 11, bytes([9]) * 32)
        want = sum(l << (64 * i) for i, l in enumerate(limbs))
        assert le(labels[10][nodes - 1]) == want, (nodes, ver)


def c_hex(b):
    return '"' + b.hex() + '"'


def main_8mib():
    """The same for an all-zero 8 MiB sector (StackedDrg8MiBV1_1, sector 7): ~5 minutes."""
    prover_id = bytes([0xE8, 0x07]) + bytes(30)
    ticket = bytes(range(1, 33))
    r = seal(6, "1.1", prover_id, 7, ticket, bytes(8 << 20))
    print("    /* StackedDrg8MiBV1_1, sector 7, zero data (seal_ref.py --8mib) */")
    for key in ("comm_d", "replica_id", "comm_c", "comm_r_last", "comm_r"):
        print("     %s, /* %s */" % (c_hex(r[key]), key))


def main():
    if "--8mib" in sys.argv:
        main_8mib()
        return
    self_checks()
    prover_id = bytes([0xE8, 0x07]) + bytes(30)  # actor 1000, LEB128
    ticket = bytes(range(1, 33))
    raw = bytes((37 * i + 11) & 0xFF for i in range(2032))
    cases = (
        ("StackedDrg2KiBV1_1", 5, "1.1", 7, bytes(2048), "zero"),
        ("StackedDrg2KiBV1_1", 5, "1.1", 7, fr32_pad(raw, 2048), "pattern"),
        ("StackedDrg2KiBV1", 0, "1.0", 7, bytes(2048), "zero"),
        ("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 15, "1.2", 1234567, bytes(2048), "zero"),
    )
    print("/* Generated by tests/unit/seal_ref.py: prover_id = actor 1000, ticket = 1..32,")
    print(" * pattern data = fr32_pad(bytes((37·i + 11) & 0xff for i < 2032)). */")
    for name, pid, ver, sector_id, data, kind in cases:
        r = seal(pid, ver, prover_id, sector_id, ticket, data)
        print("    {CZK_SEAL_%s, %d, %s," % (name, sector_id, "true" if kind == "pattern" else "false"))
        for key in ("comm_d", "replica_id", "comm_c", "comm_r_last", "comm_r", "label_1_5",
                    "label_2_63", "replica_63"):
            print("     %s," % c_hex(r[key]))
        print("    },")


if __name__ == "__main__":
    main()
