# cuzkd's gRPC request decoding (src/daemon/grpc_api.c + protobuf-c);
# corpus in fuzz/corpus/fuzz_grpc/ (made by fuzz/corpus/make_grpc_corpus.py).
cz_fuzz(fuzz_grpc SOURCES fuzz_grpc.c LIBS cz_daemon_grpc_api)
