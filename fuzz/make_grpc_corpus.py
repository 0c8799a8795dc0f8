#!/usr/bin/python3
"""Writes the seed corpus of fuzz_grpc (fuzz/corpus/fuzz_grpc/): one
selector byte then a serialized request of cuzk.v1.ProvingEngine, made
with protobuf from the repository's proto (Debian's python3-grpc-tools).
Run from the repository root: /usr/bin/python3 fuzz/make_grpc_corpus.py"""
import os
import sys
import tempfile

from grpc_tools import protoc

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
gen = tempfile.mkdtemp()
assert protoc.main(["protoc", f"-I{root}/proto", f"--python_out={gen}", f"{root}/proto/cuzk/v1/proving.proto"]) == 0
sys.path.insert(0, gen)
from cuzk.v1 import proving_pb2 as pb  # noqa: E402

out = os.path.join(root, "fuzz", "corpus", "fuzz_grpc")
os.makedirs(out, exist_ok=True)
c1 = open(os.path.join(root, "tests/vectors/filecoin/porep-2k-v1.1/c1-curio.json"), "rb").read()


def sub(**kw):
    base = dict(request_id="porep-1000-42", proof_kind=pb.POREP_SEAL_COMMIT, sector_size=2048, registered_proof=5,
                vanilla_proof=c1, sector_number=42, miner_id=1000)
    base.update(kw)
    return pb.SubmitProofRequest(**base)


seeds = {
    "submit_porep_2k": (0, sub()),
    "submit_other_miner": (0, sub(miner_id=1001)),
    "submit_bad_json": (0, sub(vanilla_proof=b'{"SectorNum":1,"Phase1Out":"e30="}')),
    "submit_wpost": (0, sub(proof_kind=pb.WINDOW_POST_PARTITION, registered_proof=13, sector_size=32 << 30,
                            vanilla_proof=b"", vanilla_proofs=[b"a", b"b"], randomness=b"r" * 32, partition_index=3)),
    "submit_snap": (0, sub(proof_kind=pb.SNAP_DEALS_UPDATE, registered_proof=3, vanilla_proof=b"", comm_r_old=b"o" * 32,
                           comm_r_new=b"n" * 32, comm_d_new=b"d" * 32)),
    "prove_porep_2k": (1, pb.ProveRequest(submit=sub(priority=pb.HIGH))),
    "await": (2, pb.AwaitProofRequest(job_id="17", timeout_ms=0)),
    "await_bad_id": (2, pb.AwaitProofRequest(job_id="017")),
    "preload_porep": (3, pb.PreloadSrsRequest(circuit_id="porep-32g")),
    "preload_wpost": (3, pb.PreloadSrsRequest(circuit_id="wpost-32g")),
    "cancel": (4, pb.CancelProofRequest(job_id="18446744073709551615")),
}
for name, (sel, msg) in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes([sel]) + msg.SerializeToString())
print(f"wrote {len(seeds)} seeds to {out}")
