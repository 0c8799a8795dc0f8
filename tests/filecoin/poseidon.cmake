# neptune Poseidon with Filecoin's constants and filecoin-hashers'
# PoseidonHasher (src/filecoin/neptune_*.c).
cz_test(test_fil_poseidon SOURCES test_fil_poseidon.c LIBS cz_filecoin PkgConfig::JANSSON TIMEOUT 120
        LABELS threads)
