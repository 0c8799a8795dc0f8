cz_test(test_fil_porep_circuit SOURCES test_fil_porep_circuit.c LIBS cz_filecoin PkgConfig::JANSSON TIMEOUT 600)
