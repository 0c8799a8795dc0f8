cz_test(test_fil_seal SOURCES test_fil_seal.c LIBS cz_filecoin PkgConfig::JANSSON TIMEOUT 120 LABELS threads)
