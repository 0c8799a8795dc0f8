# cuzkd request parsing (src/daemon/api.c); corpus in fuzz/corpus/fuzz_api/.
cz_fuzz(fuzz_api SOURCES fuzz_api.c LIBS cz_daemon_api)
