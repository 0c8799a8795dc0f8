# replica_id, PoRep challenges (interactive, synthetic, non-interactive) and
# the rust-fil-proofs seal regression records.
cz_test(test_fil_challenges
  SOURCES test_fil_challenges.c regression_data.c
  LIBS cz_filecoin PkgConfig::JANSSON OpenSSL::Crypto
  TIMEOUT 120)
