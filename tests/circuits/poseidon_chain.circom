pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// acc_{i+1} = Poseidon(acc_i, salt): a hash chain with full-size field values in the
// witness (the opposite of a bit-heavy circuit). circomlib's Poseidon constants are
// BN254's; over BLS12-381 this is simply an arithmetic test circuit, not Filecoin's hash.
template PoseidonChain(n) {
    signal input seed;
    signal input salt;
    signal output out;
    component h[n];
    signal acc[n + 1];
    acc[0] <== seed;
    for (var i = 0; i < n; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== acc[i];
        h[i].inputs[1] <== salt;
        acc[i + 1] <== h[i].out;
    }
    out <== acc[n];
}

component main {public [salt]} = PoseidonChain(4);
