#!/usr/bin/env python3
"""R1CS fingerprint as bellpepper-core 0.2 TestConstraintSystem::hash().

An implementation independent of cuzk's C code (src/r1cs/fingerprint.c),
used by tests/r1cs/test_fingerprint.c to cross-check it. It reads

  * cuzk's raw JSON dump (`cuzk circuit-info --circuit ID --dump-json F`,
    cz_r1cs_dump_json): every linear combination as the circuit enforced
    it, duplicates and zero coefficients included, so the normalisation
    below is really exercised; or
  * a snarkjs/circom `.r1cs` file (binary, version 1). Wires map to
    bellpepper variables as: wire 0 (the constant one) -> Input(0), wires
    1 .. nPubOut+nPubIn (outputs, then public inputs) -> Input(1 ..),
    every later wire w -> Aux(w - 1 - nPubOut - nPubIn). inputs =
    1 + nPubOut + nPubIn, aux = nWires - inputs.

and prints the digest (64 hex digits), or with --json the counts, nnz and
digest in the field names of `cuzk circuit-info --json`.

The hash: BLAKE2s-256 over u64 BE inputs (with ONE), u64 BE aux, u64 BE
constraints, then per constraint A, B, C each normalised (same-variable
terms summed mod r, zero sums dropped, Input before Aux, ascending index)
as u64 BE term count + per term b'I' or b'A', u64 BE index, 32-byte BE
coefficient.
"""
import argparse
import hashlib
import json
import struct
import sys

# BLS12-381 scalar field order
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


def normalise(terms):
    """terms: iterable of (kind, index, coeff), kind 0 = Input, 1 = Aux."""
    acc = {}
    for kind, index, coeff in terms:
        key = (kind, index)
        acc[key] = (acc.get(key, 0) + coeff) % R
    return sorted((k, v) for k, v in acc.items() if v != 0)


class Fingerprint:
    def __init__(self, inputs, aux, constraints):
        self.h = hashlib.blake2s(digest_size=32)
        self.h.update(struct.pack(">QQQ", inputs, aux, constraints))
        self.inputs, self.aux, self.constraints = inputs, aux, constraints
        self.nnz = [0, 0, 0]
        self.rows = 0

    def row(self, lcs):
        for k, lc in enumerate(lcs):
            norm = normalise(lc)
            self.nnz[k] += len(norm)
            parts = [struct.pack(">Q", len(norm))]
            for (kind, index), coeff in norm:
                parts.append(b"A" if kind else b"I")
                parts.append(struct.pack(">Q", index))
                parts.append(coeff.to_bytes(32, "big"))
            self.h.update(b"".join(parts))
        self.rows += 1

    def result(self):
        if self.rows != self.constraints:
            raise ValueError("header says %d constraints, found %d" % (self.constraints, self.rows))
        return {
            "constraints": self.constraints,
            "inputs": self.inputs,
            "aux": self.aux,
            "nnz_a": self.nnz[0],
            "nnz_b": self.nnz[1],
            "nnz_c": self.nnz[2],
            "nnz_a_plus_input_rows": self.nnz[0] + self.inputs,
            "digest": self.h.hexdigest(),
        }


def from_json_dump(path):
    with open(path) as f:
        d = json.load(f)
    if d.get("format") != "cuzk-r1cs-raw-v1":
        raise ValueError("%s: not a cuzk-r1cs-raw-v1 dump" % path)
    inputs, aux = d["inputs"], d["aux"]
    fp = Fingerprint(inputs, aux, d["constraints"])
    for row in d["rows"]:
        if len(row) != 3:
            raise ValueError("a constraint must have 3 linear combinations")
        lcs = []
        for lc in row:
            terms = []
            for tag, index, coeff in lc:
                kind = {"I": 0, "A": 1}[tag]
                if index >= (aux if kind else inputs):
                    raise ValueError("term %s%d out of range" % (tag, index))
                c = int(coeff, 16)
                if c >= R:
                    raise ValueError("coefficient not canonical: %s" % coeff)
                terms.append((kind, index, c))
            lcs.append(terms)
        fp.row(lcs)
    return fp.result()


def from_r1cs(path):
    with open(path, "rb") as f:
        buf = f.read()
    if buf[:4] != b"r1cs":
        raise ValueError("%s: not a .r1cs file" % path)
    version, nsec = struct.unpack_from("<II", buf, 4)
    if version != 1:
        raise ValueError("unsupported .r1cs version %d" % version)
    off, sections = 12, {}
    for _ in range(nsec):
        typ, size = struct.unpack_from("<IQ", buf, off)
        off += 12
        sections.setdefault(typ, (off, size))
        off += size
    if 1 not in sections or 2 not in sections:
        raise ValueError("missing header or constraint section")
    ho, _ = sections[1]
    (n8,) = struct.unpack_from("<I", buf, ho)
    prime = int.from_bytes(buf[ho + 4:ho + 4 + n8], "little")
    if prime != R:
        raise ValueError("the .r1cs field is not BLS12-381 Fr")
    p = ho + 4 + n8
    n_wires, n_out, n_pub_in, _n_prv, _n_labels, m = struct.unpack_from("<IIIIQI", buf, p)
    n_pub = n_out + n_pub_in
    inputs = 1 + n_pub
    aux = n_wires - inputs
    fp = Fingerprint(inputs, aux, m)
    co, csize = sections[2]
    q, end = co, co + csize
    for _ in range(m):
        lcs = []
        for _k in range(3):
            (nt,) = struct.unpack_from("<I", buf, q)
            q += 4
            terms = []
            for _t in range(nt):
                (w,) = struct.unpack_from("<I", buf, q)
                c = int.from_bytes(buf[q + 4:q + 4 + n8], "little")
                q += 4 + n8
                if w >= n_wires or c >= R:
                    raise ValueError("bad term (wire %d)" % w)
                terms.append((0, w, c) if w < inputs else (1, w - inputs, c))
            lcs.append(terms)
        fp.row(lcs)
    if q > end:
        raise ValueError("constraint section overrun")
    return fp.result()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", help="cuzk raw JSON dump or snarkjs .r1cs")
    ap.add_argument("--json", action="store_true", help="print counts, nnz and digest as JSON")
    a = ap.parse_args()
    with open(a.file, "rb") as f:
        magic = f.read(4)
    res = from_r1cs(a.file) if magic == b"r1cs" else from_json_dump(a.file)
    if a.json:
        print(json.dumps(res))
    else:
        print(res["digest"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
