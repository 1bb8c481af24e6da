pragma circom 2.0.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/gates.circom";

// A bit-heavy circuit in the spirit of SHA-256: decompose words into bits, XOR and AND
// them, and pack the result. Almost every witness value is 0 or 1.
template Bits(nwords) {
    signal input w[nwords];
    signal output packed;
    component n2b[nwords];
    for (var i = 0; i < nwords; i++) {
        n2b[i] = Num2Bits(32);
        n2b[i].in <== w[i];
    }
    component x[nwords - 1][32];
    component a[nwords - 1][32];
    signal mixed[nwords - 1][32];
    for (var i = 0; i + 1 < nwords; i++) {
        for (var j = 0; j < 32; j++) {
            x[i][j] = XOR();
            x[i][j].a <== n2b[i].out[j];
            x[i][j].b <== n2b[i + 1].out[(j + 7) % 32];
            a[i][j] = AND();
            a[i][j].a <== x[i][j].out;
            a[i][j].b <== n2b[i].out[(j + 13) % 32];
            mixed[i][j] <== a[i][j].out;
        }
    }
    component pack = Bits2Num(32);
    for (var j = 0; j < 32; j++) {
        var acc = 0;
        for (var i = 0; i + 1 < nwords; i++) acc += mixed[i][j];
        pack.in[j] <-- acc % 2;
        pack.in[j] * (pack.in[j] - 1) === 0;
    }
    packed <== pack.out;
}

component main = Bits(8);
