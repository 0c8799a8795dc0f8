# FallbackPoSt (WinningPoSt / WindowPoSt): table, bincode, request envelope,
# challenges, native check, public inputs, circuit, vanilla generation.
cz_test(test_fil_post SOURCES test_fil_post.c LIBS cz_filecoin PkgConfig::JANSSON OpenSSL::Crypto TIMEOUT 120)
# window-post-32g streamed (about 45 s in Release; skipped under the sanitizers)
cz_test(test_fil_post_stream SOURCES test_fil_post_stream.c LIBS cz_filecoin PkgConfig::JANSSON TIMEOUT 300)
