#!/usr/bin/env python3
"""Seeds for fuzz_tables_file: small MSM table files in the layout of
src/prover/tables_file.c (points are arbitrary bytes: the checks under
fuzzing read the header and the digest, not the points). The first byte of
each seed is the fuzz target's mode byte (0: the file as it is).

Usage: python3 fuzz/make_tables_corpus.py fuzz/corpus/fuzz_tables_file
"""
import hashlib
import os
import struct
import sys

HDR, CHUNK, G1, G2 = 4096, 16 << 20, 96, 192


def table_file(queries, a_off=1, b_off=1):
    """queries: five (n, t, bits) tuples, (0, 0, 0) for none."""
    h = bytearray(HDR)
    body = bytearray()
    for q, (n, t, bits) in enumerate(queries):
        struct.pack_into("<QII", h, 48 + 16 * q, n, t, bits)
        if t > 1:
            pb = G2 if q == 4 else G1
            body += bytes((i * 7 + q) & 0xFF for i in range((t - 1) * n * pb))
    h[0:8] = b"CUZKMSMT"
    struct.pack_into("<IIII", h, 8, 1, G1, G2, CHUNK)
    struct.pack_into("<QQQ", h, 24, HDR + len(body) + 32, a_off, b_off)
    h[128:160] = hashlib.sha256(b"bases").digest()
    data = bytes(h) + bytes(body)
    pieces = b"".join(hashlib.sha256(data[i:i + CHUNK]).digest() for i in range(0, len(data), CHUNK))
    return data + hashlib.sha256(pieces).digest()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    none = (0, 0, 0)
    seeds = {
        "h_only": [(3, 8, 32), none, none, none, none],
        "all_five": [(2, 8, 32), (1, 8, 32), (2, 16, 16), (1, 8, 32), (1, 8, 32)],
        "g2_only": [none, none, none, none, (2, 16, 16)],
        "no_tables": [none] * 5,
    }
    for name, q in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(b"\x00" + table_file(q))


if __name__ == "__main__":
    main()
