# bellperson-exact number gadgets, multipack, UInt64 and neptune's Poseidon
# circuit (src/filecoin/bp_num.c, bp_multipack.c, bp_uint64.c, bp_poseidon.c).
cz_test(test_fil_bp_num SOURCES test_fil_bp_num.c LIBS cz_filecoin PkgConfig::JANSSON TIMEOUT 120)
