# SDR graph, labelling and encoding (src/filecoin/graph.c, feistel.c, labels.c).
cz_test(test_fil_graph SOURCES test_fil_graph.c LIBS cz_filecoin PkgConfig::JANSSON TIMEOUT 120
        LABELS threads)
