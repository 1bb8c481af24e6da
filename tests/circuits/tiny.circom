pragma circom 2.0.0;

// out = a * b * k with k public: the smallest circuit with both a public input and an
// output, so public.json has two values (output first, then the public input).
template Tiny() {
    signal input a;
    signal input b;
    signal input k;
    signal ab;
    signal output out;
    ab <== a * b;
    out <== ab * k;
}

component main {public [k]} = Tiny();
