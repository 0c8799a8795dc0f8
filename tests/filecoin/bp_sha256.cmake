# bellperson-exact Boolean ops, UInt32, MultiEq, SHA-256 and filecoin-hashers'
# Sha256Function circuits (src/filecoin/bp_boolean.c, bp_uint32.c,
# bp_multieq.c, bp_sha256.c).
cz_test(test_fil_bp_sha256 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_fil_bp_sha256.c
        LIBS cz_filecoin TIMEOUT 120)
