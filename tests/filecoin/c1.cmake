# C1 output (SealCommitPhase1Output JSON, Curio's wrapper) and base64:
# src/filecoin/c1_json.c, src/filecoin/base64.c.
cz_test(test_fil_c1 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_fil_c1.c
        LIBS cz_filecoin PkgConfig::JANSSON OpenSSL::Crypto TIMEOUT 120)
