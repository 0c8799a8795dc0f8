# PoRep C2 public inputs, bellperson .vk reader, C2 proof verification and
# parameter-file identity: src/filecoin/porep_inputs.c, fil_params.c,
# fil_params_table.c. fil_params.c needs cz_groth16 (not yet a dependency
# of cz_filecoin), hence the explicit link.
cz_test(test_fil_c2_inputs SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_fil_c2_inputs.c
        LIBS cz_filecoin cz_groth16 PkgConfig::JANSSON OpenSSL::Crypto TIMEOUT 120)
