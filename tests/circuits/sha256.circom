pragma circom 2.0.0;

include "circomlib/circuits/sha256/sha256.circom";
include "circomlib/circuits/bitify.circom";

// SHA-256 of 64 private bytes (one 512-bit message, two compression blocks with padding),
// the digest packed into two public 128-bit outputs. Almost every witness value is a bit:
// the profile of Filecoin's SHA-256-heavy circuits.
template Sha256Bytes(nbytes) {
    signal input in[nbytes];
    signal output hi;
    signal output lo;
    component bytes[nbytes];
    component sha = Sha256(nbytes * 8);
    for (var i = 0; i < nbytes; i++) {
        bytes[i] = Num2Bits(8);
        bytes[i].in <== in[i];
        for (var j = 0; j < 8; j++) {
            sha.in[i * 8 + j] <== bytes[i].out[7 - j];
        }
    }
    component phi = Bits2Num(128);
    component plo = Bits2Num(128);
    for (var j = 0; j < 128; j++) {
        phi.in[j] <== sha.out[127 - j];
        plo.in[j] <== sha.out[255 - j];
    }
    hi <== phi.out;
    lo <== plo.out;
}

component main = Sha256Bytes(64);
