cz_test(test_fil_hash SOURCES test_fil_hash.c LIBS cz_filecoin OpenSSL::Crypto TIMEOUT 60)
