# PCE file parser (src/r1cs/pce.c); corpus: small recorded mulchain circuits.
cz_fuzz(fuzz_pce SOURCES fuzz_pce.c LIBS cz_r1cs OpenSSL::Crypto)
