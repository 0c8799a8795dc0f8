#!/usr/bin/python3
"""cuzkd's gRPC overhead: Prove round trips against cuzkd's test back-end
(no proving work: synth/prove/finish 0 ms), so what is measured is the
transport, the request mapping (the 2KiB C1 is parsed and its replica id
checked per request) and the engine's scheduling.

  /usr/bin/python3 tools/bench_grpc.py build/src/daemon/cuzkd [--calls N] [--clients C] [--json]

Prints the latency of sequential calls (p50/p90/p99) and the throughput of
C concurrent clients. Needs Debian's python3-grpcio and python3-grpc-tools.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cuzkd")
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    import grpc
    from grpc_tools import protoc
    work = tempfile.mkdtemp(prefix="cuzk-bench-grpc-")
    proc = None
    try:
        assert protoc.main(["protoc", f"-I{root}/proto", f"--python_out={work}", f"--grpc_python_out={work}",
                            f"{root}/proto/cuzk/v1/proving.proto"]) == 0
        sys.path.insert(0, work)
        from cuzk.v1 import proving_pb2 as pb, proving_pb2_grpc as pbg
        ini = os.path.join(work, "d.ini")
        with open(ini, "w") as f:
            f.write(f"[daemon]\nlisten = off\nlog_level = warn\n[grpc]\nlisten = unix:{work}/g.sock\n"
                    f"[backend]\ntype = test\n[engine]\nmemory_budget = 1G\nresult_retention_count = 100000\n"
                    f"[test]\nsynth_ms = 0\nprove_ms = 0\nfinish_ms = 0\n")
        log = open(os.path.join(work, "d.log"), "w+")
        proc = subprocess.Popen([a.cuzkd, "--config", ini], stdout=log, stderr=subprocess.STDOUT)
        for _ in range(600):
            if os.path.exists(f"{work}/g.sock"):
                break
            time.sleep(0.05)
        c1 = open(os.path.join(root, "tests/vectors/filecoin/porep-2k-v1.1/c1-curio.json"), "rb").read()
        ch = grpc.insecure_channel(f"unix:{work}/g.sock")
        st = pbg.ProvingEngineStub(ch)

        def req(rid):
            return pb.ProveRequest(submit=pb.SubmitProofRequest(
                request_id=rid, proof_kind=pb.POREP_SEAL_COMMIT, sector_size=2048, registered_proof=5,
                vanilla_proof=c1, sector_number=42, miner_id=1000))

        st.Prove(req("warm"))
        lat = []
        for i in range(a.calls):
            t0 = time.perf_counter()
            r = st.Prove(req(f"seq-{i}"))
            lat.append((time.perf_counter() - t0) * 1e3)
            assert r.result.status == pb.AwaitProofResponse.COMPLETED
        lat.sort()
        q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]  # noqa: E731
        per = max(1, a.calls // a.clients)
        errs = []

        def client(k):
            s2 = pbg.ProvingEngineStub(ch)
            for i in range(per):
                r = s2.Prove(req(f"par-{k}-{i}"))
                if r.result.status != pb.AwaitProofResponse.COMPLETED:
                    errs.append(r.result.error_message)

        th = [threading.Thread(target=client, args=(k,)) for k in range(a.clients)]
        t0 = time.perf_counter()
        for t in th:
            t.start()
        for t in th:
            t.join()
        wall = time.perf_counter() - t0
        assert not errs, errs[:3]
        cpu = open("/proc/cpuinfo").read()
        model = re.search(r"model name\s*:\s*(.*)", cpu)
        out = {
            "what": "gRPC Prove round trip, test back-end (no proving), 2KiB C1 payload",
            "cpu": model.group(1) if model else "?",
            "avx512ifma": "avx512ifma" in cpu,
            "payload_bytes": len(c1),
            "sequential_calls": a.calls,
            "latency_ms": {"p50": round(q(0.5), 3), "p90": round(q(0.9), 3), "p99": round(q(0.99), 3),
                           "mean": round(statistics.mean(lat), 3)},
            "concurrent_clients": a.clients,
            "concurrent_calls": per * a.clients,
            "calls_per_s": round(per * a.clients / wall, 1),
        }
        if a.json:
            print(json.dumps(out))
        else:
            print(f"{out['what']} ({out['cpu']}, AVX-512 IFMA: {out['avx512ifma']})")
            print(f"  sequential, {a.calls} calls: p50 {out['latency_ms']['p50']} ms, p90 {out['latency_ms']['p90']} ms, "
                  f"p99 {out['latency_ms']['p99']} ms")
            print(f"  {a.clients} concurrent clients, {out['concurrent_calls']} calls: {out['calls_per_s']} calls/s")
        ch.close()
    finally:
        if proc and proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
