cz_test(test_fil_fingerprints SOURCES test_fil_fingerprints.c LIBS cz_filecoin TIMEOUT 300)
