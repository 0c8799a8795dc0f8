# Filecoin FallbackPoSt request envelope and bincode sector proofs (cz_fil_post_request_parse).
cz_fuzz(fuzz_post SOURCES fuzz_post.c LIBS cz_filecoin)
