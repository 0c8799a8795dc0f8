# MSM table file header and digest checks (src/prover/tables_file.c);
# corpus: fuzz/corpus/fuzz_tables_file/ (made by make_tables_corpus.py).
cz_fuzz(fuzz_tables_file SOURCES fuzz_tables_file.c LIBS cz_prover OpenSSL::Crypto)
