# PoRep-shaped circuit: vanilla-proof JSON parser (src/circuits/porep_json.c).
cz_fuzz(fuzz_vanilla SOURCES fuzz_vanilla.c LIBS cz_circuits)
