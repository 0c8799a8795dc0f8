#!/usr/bin/python3
"""PoSt latency through cuzkd's gRPC API on the real CPU prover (2KiB sectors).

  /usr/bin/python3 tools/bench_post.py build/src/daemon/cuzkd build/src/cli/cuzk PARAM_DIR
      [--runs N] [--porep-batch K] [--threads T] [--json]

PARAM_DIR holds local parameters of winning-2k and wpost-2k (made here with
`cuzk setup` when missing: seconds) and, for the mixed run, porep-2k
(`cuzk setup --circuit porep-2k`, minutes; the test suite's fixture cache
build/fixture-cache has one). Measures, submit -> proof as Curio sees it:
  1. WinningPoSt alone (priority CRITICAL, the gRPC default), N runs;
  2. one WindowPoSt partition of two sectors (HIGH), N runs;
  3. WinningPoSt submitted while a batch of K PoRep C2 jobs (NORMAL) is
     being proved in the same daemon, N runs (skipped when porep-2k's
     parameters are missing or K = 0).
Sectors are sealed with `cuzk seal`, vanilla proofs made with `cuzk post
vanilla` (the bincode Curio sends). Needs Debian's python3-grpcio and
python3-grpc-tools.
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}")


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def has_flag(flag):
    try:
        return any(flag in line.split() for line in open("/proc/cpuinfo") if line.startswith("flags"))
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cuzkd")
    ap.add_argument("cuzk")
    ap.add_argument("param_dir")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--porep-batch", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    import grpc
    from grpc_tools import protoc
    work = tempfile.mkdtemp(prefix="cuzk-bench-post-")
    proc = None
    try:
        assert protoc.main(["protoc", f"-I{root}/proto", f"--python_out={work}", f"--grpc_python_out={work}",
                            f"{root}/proto/cuzk/v1/proving.proto"]) == 0
        sys.path.insert(0, work)
        from cuzk.v1 import proving_pb2 as pb, proving_pb2_grpc as pbg
        os.makedirs(a.param_dir, exist_ok=True)
        for c in ("winning-2k", "wpost-2k"):
            if not os.path.exists(os.path.join(a.param_dir, f"{c}.meta")):
                run([a.cuzk, "setup", "--circuit", c, "-o", os.path.join(a.param_dir, f"{c}.params")])
        mixed = a.porep_batch > 0 and os.path.exists(os.path.join(a.param_dir, "porep-2k.params"))
        prover = "e807" + "00" * 30  # LEB128(1000)
        for sid in (1, 2):
            run([a.cuzk, "seal", "--registered-proof", "StackedDrg2KiBV1_1", "--rand-seed", str(sid), "--prover-id",
                 prover, "--sector-id", str(sid), "--ticket", "11" * 32, "--seed", "22" * 32, "--curio",
                 "--cache-dir", f"{work}/s{sid}", "-o", f"{work}/s{sid}.c1.json"])
        rnd = bytes((i * 37 + 5) & 0xFF for i in range(31)) + b"\x0b"
        run([a.cuzk, "post", "vanilla", "--registered-proof", "StackedDrgWinning2KiBV1", "--cache-dir", f"{work}/s1",
             "--sector-id", "1", "--miner-id", "1000", "--randomness", rnd.hex(), "--bincode-dir", f"{work}/win"])
        run([a.cuzk, "post", "vanilla", "--registered-proof", "StackedDrgWindow2KiBV1_2", "--cache-dir",
             f"{work}/s1,{work}/s2", "--sector-id", "1,2", "--miner-id", "1000", "--randomness", rnd.hex(),
             "--bincode-dir", f"{work}/wp"])
        rd = lambda d: [open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d))]
        win, wp = rd(f"{work}/win"), rd(f"{work}/wp")
        c1 = open(f"{work}/s1.c1.json", "rb").read()

        ini = os.path.join(work, "d.ini")
        with open(ini, "w") as f:
            f.write(f"[daemon]\nlisten = off\nlog_level = warn\n[grpc]\nlisten = unix:{work}/g.sock\n"
                    f"[backend]\ntype = groth16\nparam_dir = {a.param_dir}\nauto_setup = false\n"
                    f"threads = {a.threads}\n[engine]\nmemory_budget = 12G\nself_verify = true\n")
        log = open(os.path.join(work, "d.log"), "w+")
        proc = subprocess.Popen([a.cuzkd, "--config", ini], stdout=log, stderr=subprocess.STDOUT)
        for _ in range(1200):
            if re.search(r"ready: listening", open(log.name).read()):
                break
            if proc.poll() is not None:
                sys.exit(f"cuzkd exited:\n{open(log.name).read()}")
            time.sleep(0.05)
        ch = grpc.insecure_channel(f"unix:{work}/g.sock", options=[("grpc.max_receive_message_length", 256 << 20),
                                                                    ("grpc.max_send_message_length", 256 << 20)])
        st = pbg.ProvingEngineStub(ch)
        AW = pb.AwaitProofResponse
        for cid in ("winning-2k", "wpost-2k") + (("porep-2k",) if mixed else ()):
            st.PreloadSRS(pb.PreloadSrsRequest(circuit_id=cid))

        def winning(rid):
            return pb.SubmitProofRequest(request_id=rid, proof_kind=pb.WINNING_POST, registered_proof=0,
                                         vanilla_proofs=win, randomness=rnd, miner_id=1000)

        def window(rid):
            return pb.SubmitProofRequest(request_id=rid, proof_kind=pb.WINDOW_POST_PARTITION, registered_proof=10,
                                         vanilla_proofs=wp, randomness=rnd, miner_id=1000)

        def timed(sub):
            t0 = time.perf_counter()
            r = st.Prove(pb.ProveRequest(submit=sub), timeout=3600).result
            if r.status != AW.COMPLETED:
                sys.exit(f"{sub.request_id}: {r.status} {r.error_message}")
            return (time.perf_counter() - t0) * 1e3, r

        st.Prove(pb.ProveRequest(submit=winning("warm-w")), timeout=600)  # first-use costs out of the figures
        st.Prove(pb.ProveRequest(submit=window("warm-p")), timeout=600)
        res = {}
        alone = [timed(winning(f"w{i}"))[0] for i in range(a.runs)]
        res["winning_alone_ms"] = alone
        part = [timed(window(f"p{i}")) for i in range(a.runs)]
        res["window_partition_ms"] = [t for t, _ in part]
        res["window_partition_prove_ms"] = [r.gpu_compute_ms for _, r in part]
        if mixed:
            mix = []
            for i in range(a.runs):
                ids = []
                for k in range(a.porep_batch):
                    s = pb.SubmitProofRequest(request_id=f"porep-{i}-{k}", proof_kind=pb.POREP_SEAL_COMMIT,
                                              registered_proof=5, vanilla_proof=c1, sector_number=1, miner_id=1000)
                    ids.append(st.SubmitProof(s).job_id)
                # wait until the batch is being proved, not just queued
                while not any(q.in_progress for q in st.GetStatus(pb.GetStatusRequest()).queues
                              if q.proof_kind == "porep-c2"):
                    time.sleep(0.05)
                time.sleep(0.5)
                mix.append(timed(winning(f"wm{i}"))[0])
                for j in ids:
                    st.AwaitProof(pb.AwaitProofRequest(job_id=j, timeout_ms=0))
            res["winning_with_porep_batch_ms"] = mix
        ch.close()
        out = {"machine": {"cpu": cpu_model(), "avx512ifma": has_flag("avx512ifma"), "cpus": os.cpu_count()},
               "runs": a.runs, "porep_batch": a.porep_batch if mixed else 0}
        for k, v in res.items():
            out[k] = {"p50": statistics.median(v), "min": min(v), "max": max(v)}
        if a.json:
            print(json.dumps(out, indent=1))
        else:
            m = out["machine"]
            print(f"machine: {m['cpu']} ({m['cpus']} CPUs, AVX-512 IFMA {'yes' if m['avx512ifma'] else 'no'})")
            names = {"winning_alone_ms": "WinningPoSt 2KiB, alone",
                     "window_partition_ms": "WindowPoSt 2KiB partition (2 sectors)",
                     "window_partition_prove_ms": "  of which proving (engine)",
                     "winning_with_porep_batch_ms": f"WinningPoSt 2KiB, {a.porep_batch} PoRep C2 2KiB in flight"}
            for k in res:
                v = out[k]
                print(f"{names[k]:48s} p50 {v['p50']:8.0f} ms  (min {v['min']:.0f}, max {v['max']:.0f}, "
                      f"{a.runs} runs)")
    finally:
        if proc and proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=120)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
