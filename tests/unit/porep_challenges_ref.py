#!/usr/bin/env python3
"""Clean-room PoRep challenge derivation (rust-fil-proofs storage-proofs-porep
stacked/vanilla/challenges.rs), written from the specification with hashlib only, as the
independent reference of tests/unit/test_porep_vanilla.c.

usage: porep_challenges_ref.py FEATURE NODES CPP PARTITION REPLICA_ID SEED COMM_R
  FEATURE   interactive | synthetic | ni
  NODES     sector nodes (sector size / 32)
  CPP       challenges per partition
  PARTITION partition index k
  REPLICA_ID, SEED, COMM_R  64 hex digits each (32 bytes, as stored)
Prints the partition's challenges, space-separated.

ChaCha20 is RFC 8439's (32-bit block counter, 96-bit nonce), written here from the RFC
so that the C side's reuse of its Bernstein-layout block function is checked. This port
reproduces upstream's published answers (rust-fil-proofs fil-proofs-bin/Justfile: the 180
interactive 32 GiB challenges and the synthetic challenge indexes for replica_id = seed =
0x0011..ee00), which test_porep_vanilla.c also checks directly.
"""
import hashlib
import struct
import sys

MASK = 0xFFFFFFFF


def to_challenge(b, nodes):
    return int.from_bytes(b, "little") % (nodes - 1) + 1


def rotl(x, n):
    return ((x << n) | (x >> (32 - n))) & MASK


def chacha20_block(key, counter, nonce):
    st = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    st += list(struct.unpack("<8I", key))
    st += [counter & MASK]
    st += list(struct.unpack("<3I", nonce))
    x = st[:]

    def qr(a, b, c, d):
        x[a] = (x[a] + x[b]) & MASK; x[d] = rotl(x[d] ^ x[a], 16)
        x[c] = (x[c] + x[d]) & MASK; x[b] = rotl(x[b] ^ x[c], 12)
        x[a] = (x[a] + x[b]) & MASK; x[d] = rotl(x[d] ^ x[a], 8)
        x[c] = (x[c] + x[d]) & MASK; x[b] = rotl(x[b] ^ x[c], 7)

    for _ in range(10):
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)
    return struct.pack("<16I", *[(x[i] + st[i]) & MASK for i in range(16)])


def keystream(key, pos, n):
    nonce = b"synth-porep\x00"
    out = b""
    block = pos // 64
    while len(out) < (pos % 64) + n:
        out += chacha20_block(key, block, nonce)
        block += 1
    return out[pos % 64:pos % 64 + n]


def derive(feature, nodes, cpp, k, replica_id, seed, comm_r):
    out = []
    if feature == "interactive":
        for i in range(cpp):
            j = cpp * k + i
            h = hashlib.sha256(replica_id + seed + struct.pack("<I", j)).digest()
            out.append(to_challenge(h, nodes))
    elif feature == "ni":
        tag = b"filecoin.io|PoRep|1|NonInteractive|1"
        for i in range(cpp):
            j = cpp * k + i
            h = hashlib.sha256(tag + replica_id + comm_r + struct.pack("<I", j)).digest()
            out.append(to_challenge(h, nodes))
    elif feature == "synthetic":
        gen = hashlib.blake2b(replica_id + comm_r, digest_size=32,
                              key=b"filecoin.io|PoRep|1|Synthetic|1|Generation").digest()
        sel = hashlib.blake2b(replica_id + seed, digest_size=32,
                              key=b"filecoin.io|PoRep|1|Synthetic|1|Selection").digest()
        nsynth = min(nodes, 1 << 18)
        for i in range(cpp):
            idx = struct.unpack("<I", keystream(sel, 4 * (cpp * k + i), 4))[0] % nsynth
            out.append(to_challenge(keystream(gen, 32 * idx, 32), nodes))
    else:
        raise SystemExit("unknown feature " + feature)
    return out


def main():
    if len(sys.argv) != 8:
        raise SystemExit(__doc__)
    feature = sys.argv[1]
    nodes, cpp, k = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rid, seed, comm_r = (bytes.fromhex(a) for a in sys.argv[5:8])
    print(" ".join(str(c) for c in derive(feature, nodes, cpp, k, rid, seed, comm_r)))


if __name__ == "__main__":
    main()
