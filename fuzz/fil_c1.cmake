# Filecoin C1 output reader (cz_fil_c1_parse: plain JSON and Curio's wrapper).
cz_fuzz(fuzz_fil_c1 SOURCES fuzz_fil_c1.c LIBS cz_filecoin)
