pragma circom 2.0.0;
// Small fixture: a public input x, private a, b; out = (a*b + x)^2 chained.
template Fixture(n) {
    signal input x;
    signal input a;
    signal input b;
    signal output out;
    signal t[n];
    t[0] <== a * b + x;
    for (var i = 1; i < n; i++) {
        t[i] <== t[i-1] * t[i-1] + i;
    }
    out <== t[n-1] * a;
}
component main {public [x]} = Fixture(20);
