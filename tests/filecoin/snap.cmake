# SnapDeals (EmptySectorUpdate): constants, challenges, circuit counts and
# satisfaction, bincode and the request envelope.
cz_test(test_fil_snap SOURCES test_fil_snap.c regression_data.c LIBS cz_filecoin PkgConfig::JANSSON TIMEOUT 300)
cz_test(test_fil_snap_32g SOURCES test_fil_snap_32g.c LIBS cz_filecoin PkgConfig::JANSSON TIMEOUT 300)
