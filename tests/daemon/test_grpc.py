#!/usr/bin/python3
"""cuzkd's gRPC API (cuzk.v1.ProvingEngine) through a real cuzkd process,
with an independent client: Python's grpcio, its stubs generated at test
time by grpc_tools from the repository's proto/cuzk/v1/proving.proto.

  test_grpc.py api    CUZKD SOURCE_DIR   every method and error path, token
                                         rules, hundreds of concurrent
                                         clients mixed with HTTP (test
                                         back-end, real C1 payloads)
  test_grpc.py porep  CUZKD SOURCE_DIR CUZK FIXTURE_DIR
                                         PoRep C2 of the reference's 2KiB C1
                                         through Prove, verified by
                                         `cuzk verify`; a tampered C1 fails

Each check raises on failure; the script exits non-zero on the first one.
"""
import base64
import http.client
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

SELF = os.path.basename(__file__)
LIVE = []  # cuzkd processes to kill if a check fails
LOGS = []  # (name, log path) of every cuzkd started: their tails are printed on a failure


def die(msg):
    print(f"{SELF}: FAIL: {msg}", file=sys.stderr, flush=True)
    for name, path in LOGS:
        # the daemon's side of a failure (a crash, a sanitizer report) is in its log
        try:
            with open(path, errors="replace") as f:
                tail = f.read()[-4000:]
        except OSError:
            continue
        print(f"--- the last of cuzkd {name}'s log ({path}):\n{tail}", file=sys.stderr, flush=True)
    for p in LIVE:
        if p.poll() is None:
            p.kill()
    sys.exit(1)


def check(cond, msg):
    if not cond:
        die(msg)


def load_stubs(source_dir, work):
    """Generates the Python messages and stubs from the repository's proto."""
    from grpc_tools import protoc
    out = os.path.join(work, "stubs")
    os.makedirs(out, exist_ok=True)
    proto_dir = os.path.join(source_dir, "proto")
    rc = protoc.main(["protoc", f"-I{proto_dir}", f"--python_out={out}", f"--grpc_python_out={out}",
                      os.path.join(proto_dir, "cuzk", "v1", "proving.proto")])
    check(rc == 0, "grpc_tools.protoc failed on proto/cuzk/v1/proving.proto")
    sys.path.insert(0, out)
    from cuzk.v1 import proving_pb2, proving_pb2_grpc  # noqa: E402
    return proving_pb2, proving_pb2_grpc


class Daemon:
    """A cuzkd process with an INI config; addresses read from its log."""

    def __init__(self, cuzkd, work, name, ini, expect_fail=False):
        self.path = os.path.join(work, f"{name}.ini")
        with open(self.path, "w") as f:
            f.write(ini)
        self.log_path = os.path.join(work, f"{name}.log")
        self.log = open(self.log_path, "w+")
        self.proc = subprocess.Popen([cuzkd, "--config", self.path], stdout=self.log, stderr=subprocess.STDOUT)
        LIVE.append(self.proc)
        LOGS.append((name, self.log_path))
        self.http = self.grpc = None
        deadline = time.time() + 60
        while time.time() < deadline:
            text = open(self.log_path).read()
            m = re.search(r"ready: listening on (\S+)(?: and grpc on (\S+))? \(", text)
            if m:
                self.http, self.grpc = m.group(1), m.group(2)
                return
            if self.proc.poll() is not None:
                if expect_fail:
                    self.exit_text = text
                    return
                die(f"cuzkd {name} exited with {self.proc.returncode}:\n{text}")
            time.sleep(0.05)
        die(f"cuzkd {name} did not become ready:\n{open(self.log_path).read()}")

    def text(self):
        return open(self.log_path).read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                die("cuzkd did not stop within 60 s of SIGTERM")
        check(self.proc.returncode == 0, f"cuzkd exited with {self.proc.returncode}:\n{self.text()[-3000:]}")


def grpc_target(addr):
    # cuzkd prints unix:/path or tcp:HOST:PORT; grpcio wants unix:/path or HOST:PORT
    return addr[4:] if addr.startswith("tcp:") else addr


def expect_code(fn, code, frag, what, transport_retries=0):
    """fn() must fail with code and a message naming frag. transport_retries:
    how many times a call that only saw its connection close ("Socket
    closed", UNAVAILABLE) is made again: when gRPC core refuses an oversize
    message it answers the status and closes the stream at once, and a
    client can see the close before the status (seen under TSan's timing).
    The daemon's answer is the status; the race is the transport's."""
    import grpc
    for attempt in range(transport_retries + 1):
        try:
            fn()
        except grpc.RpcError as e:
            closed = e.code() == grpc.StatusCode.UNAVAILABLE and "socket closed" in (e.details() or "").lower()
            if closed and attempt < transport_retries:
                print(f"  {what}: the connection closed before the status arrived; again")
                continue
            check(e.code() == code, f"{what}: expected {code}, got {e.code()} ({e.details()})")
            check(frag.lower() in (e.details() or "").lower(),
                  f"{what}: message should name '{frag}', got: {e.details()}")
            print(f"  {what}: {e.code().name}: {e.details()}")
            return
        die(f"{what}: expected {code}, the call succeeded")


def fake_proof(payload, parts, proof_bytes):
    """The test back-end's proof: byte i of partition k = (fnv1a32(payload) + 7k + i) & 0xff."""
    h = 2166136261
    for b in payload:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return bytes(((h + 7 * k + i) & 0xFF) for k in range(parts) for i in range(proof_bytes))


def http_call(addr, method, path, body=None, token=None):
    if addr.startswith("unix:"):
        class UConn(http.client.HTTPConnection):
            def connect(self):
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(addr[5:])
        conn = UConn("localhost", timeout=120)
    else:
        host, port = addr[4:].rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=120)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, json.loads(data) if data and data[:1] in b"{[" else data


# ---------------------------------------------------------------------------------------------
def test_api(cuzkd, source_dir):
    import grpc
    work = tempfile.mkdtemp(prefix="cuzk-grpc-")
    try:
        pb, pbg = load_stubs(source_dir, work)
        vec = os.path.join(source_dir, "tests", "vectors", "filecoin", "porep-2k-v1.1")
        c1_curio = open(os.path.join(vec, "c1-curio.json"), "rb").read()
        c1_plain = open(os.path.join(vec, "c1.json"), "rb").read()
        fixture = json.load(open(os.path.join(vec, "fixture.json")))
        check(fixture["sector_id"] == 42 and fixture["prover_id_hex"].startswith("e807"), "vector fixture changed")
        MINER, SECTOR, RP_2K_V11 = 1000, 42, 5  # prover id e807.. = LEB128(1000)

        ini = f"""[daemon]
listen = unix:{work}/http.sock
socket_mode = 0660
socket_group = {os.getgid()}
log_level = info
max_payload_bytes = 8M
[grpc]
listen = unix:{work}/grpc.sock
max_message_bytes = 2M
[backend]
type = test
[engine]
partition_workers = 1
workers_per_device = 1
memory_budget = 1G
result_retention_ms = 600000
[test]
synth_ms = 600
prove_ms = 20
finish_ms = 5
params_bytes = 1048576
proof_bytes = 192
"""
        d = Daemon(cuzkd, work, "api", ini)
        check(d.grpc == f"unix:{work}/grpc.sock", f"grpc address {d.grpc}")
        mode = os.stat(f"{work}/grpc.sock").st_mode & 0o777
        check(mode == 0o660, f"grpc socket mode {oct(mode)}, configured 0660")
        for sock in ("grpc.sock", "http.sock"):
            sb = os.stat(f"{work}/{sock}")
            check(sb.st_mode & 0o777 == 0o660 and sb.st_gid == os.getgid(), f"{sock}: mode {oct(sb.st_mode)} gid {sb.st_gid}")
        ch = grpc.insecure_channel(grpc_target(d.grpc), options=[
            ("grpc.max_send_message_length", 64 << 20), ("grpc.max_receive_message_length", 64 << 20)])
        st = pbg.ProvingEngineStub(ch)
        K = pb.ProofKind

        def req(**kw):
            base = dict(request_id="", proof_kind=K.POREP_SEAL_COMMIT, sector_size=2048,
                        registered_proof=RP_2K_V11, vanilla_proof=c1_curio, sector_number=SECTOR, miner_id=MINER)
            base.update(kw)
            return pb.SubmitProofRequest(**base)

        expected = fake_proof(c1_curio, 1, 192)
        AW = pb.AwaitProofResponse

        print("SubmitProof + AwaitProof(timeout 0 = forever)")
        r = st.SubmitProof(req(request_id="porep-1000-42"))
        check(r.job_id.isdigit(), f"job id {r.job_id!r}")
        a = st.AwaitProof(pb.AwaitProofRequest(job_id=r.job_id, timeout_ms=0))
        check(a.status == AW.COMPLETED, f"await: {a}")
        check(a.proof == expected, "proof bytes are not the test back-end's for this payload")
        check(a.total_ms >= a.synthesis_ms >= 500, f"timings: total {a.total_ms} synthesis {a.synthesis_ms}")
        check(a.gpu_compute_ms >= 20 and a.srs_load_ms < 60000, f"timings: {a}")
        first = r.job_id

        print("idempotent resubmission (same request_id, same request: same job)")
        r2 = st.SubmitProof(req(request_id="porep-1000-42"))
        check(r2.job_id == first, f"resubmission got job {r2.job_id}, expected {first}")
        expect_code(lambda: st.SubmitProof(req(request_id="porep-1000-42", vanilla_proof=c1_plain)),
                    grpc.StatusCode.ALREADY_EXISTS, "request id 'porep-1000-42' is in use", "same id, other payload")

        print("Prove (submit + await), filecoin-proofs-api JSON accepted too")
        p = st.Prove(pb.ProveRequest(submit=req(request_id="plain-json", vanilla_proof=c1_plain)))
        check(p.result.status == AW.COMPLETED and p.result.proof == fake_proof(c1_plain, 1, 192), f"prove: {p}")

        print("AwaitProof with a timeout; cancel of queued and running jobs")
        j1 = st.SubmitProof(req(request_id="slow-1")).job_id
        j2 = st.SubmitProof(req(request_id="slow-2")).job_id
        j3 = st.SubmitProof(req(request_id="slow-3")).job_id
        t = st.AwaitProof(pb.AwaitProofRequest(job_id=j3, timeout_ms=150))
        check(t.status == AW.TIMEOUT and t.job_id == j3, f"await with timeout: {t}")
        s = st.GetStatus(pb.GetStatusRequest())
        q = {x.proof_kind: x for x in s.queues}
        check("porep-c2" in q and q["porep-c2"].pending + q["porep-c2"].in_progress == 3,
              f"queues while 3 jobs are unfinished: {s.queues}")
        time.sleep(0.1)
        c3 = st.CancelProof(pb.CancelProofRequest(job_id=j3))
        check(not c3.was_running, "job 3 was queued behind two 600 ms jobs on one worker")
        deadline = time.time() + 10
        while True:  # job 1 is running once its synthesis started
            s = st.GetStatus(pb.GetStatusRequest())
            q = {x.proof_kind: x for x in s.queues}
            if q.get("porep-c2") and q["porep-c2"].in_progress >= 1:
                break
            check(time.time() < deadline, "job 1 never started")
            time.sleep(0.02)
        c1 = st.CancelProof(pb.CancelProofRequest(job_id=j1))
        check(c1.was_running, "job 1 was running")
        for j in (j1, j3):
            a = st.AwaitProof(pb.AwaitProofRequest(job_id=j, timeout_ms=0))
            check(a.status == AW.CANCELLED and not a.proof, f"cancelled job {j}: {a}")
        a = st.AwaitProof(pb.AwaitProofRequest(job_id=j2, timeout_ms=0))
        check(a.status == AW.COMPLETED, f"job 2 survives its neighbours' cancellation: {a}")
        expect_code(lambda: st.CancelProof(pb.CancelProofRequest(job_id=j2)), grpc.StatusCode.FAILED_PRECONDITION,
                    "already ended", "cancel of a finished job")
        print("a cancelled job gives its request_id up: the retry is a new job")
        r4 = st.SubmitProof(req(request_id="slow-1"))
        check(r4.job_id not in (j1, j2, j3), f"retry of a cancelled request got old job {r4.job_id}")
        check(st.AwaitProof(pb.AwaitProofRequest(job_id=r4.job_id)).status == AW.COMPLETED, "retry completes")

        print("GetStatus, GetMetrics")
        s = st.GetStatus(pb.GetStatusRequest())
        srs = {x.circuit_id: x for x in s.loaded_srs}
        check("porep-2k" in srs and srs["porep-2k"].tier == pb.SRSStatus.HOT and srs["porep-2k"].size_bytes == 1 << 20,
              f"loaded_srs: {s.loaded_srs}")
        check(len(s.gpus) == 1 and s.total_proofs_completed == 4, f"status: gpus {len(s.gpus)}, "
              f"completed {s.total_proofs_completed}")
        check(s.pinned_memory_limit_bytes == 1 << 30, f"budget {s.pinned_memory_limit_bytes}")
        m = st.GetMetrics(pb.GetMetricsRequest()).prometheus_text
        check('cuzkd_grpc_calls_total{method="SubmitProof"}' in m and "cuzk_jobs" in m, "metrics text")
        status, hm = http_call(d.http, "GET", "/metrics")
        check(status == 200 and b'cuzkd_grpc_calls_total{method="Prove"} 1' in hm, "HTTP /metrics has the gRPC counters")

        print("PreloadSRS / EvictSRS by Curio's circuit ids")
        pr = st.PreloadSRS(pb.PreloadSrsRequest(circuit_id="porep-8m"))
        check(not pr.already_loaded, f"preload: {pr}")
        pr = st.PreloadSRS(pb.PreloadSrsRequest(circuit_id="porep-8m"))
        check(pr.already_loaded and pr.load_time_ms == 0, f"preload again: {pr}")
        ev = st.EvictSRS(pb.EvictSrsRequest(circuit_id="porep-8m"))
        check(ev.was_loaded and ev.freed_bytes == 1 << 20, f"evict: {ev}")
        ev = st.EvictSRS(pb.EvictSrsRequest(circuit_id="porep-8m"))
        check(not ev.was_loaded and ev.freed_bytes == 0, f"evict again: {ev}")
        for cid in ("wpost-32g", "winning-32g", "snap-64g"):
            pr = st.PreloadSRS(pb.PreloadSrsRequest(circuit_id=cid))
            check(not pr.already_loaded, f"preload {cid}: {pr}")
            check(st.EvictSRS(pb.EvictSrsRequest(circuit_id=cid)).was_loaded, f"evict {cid}")
        expect_code(lambda: st.PreloadSRS(pb.PreloadSrsRequest(circuit_id="porep-16g")),
                    grpc.StatusCode.INVALID_ARGUMENT, "sector size", "preload of an unknown size")
        expect_code(lambda: st.PreloadSRS(pb.PreloadSrsRequest(circuit_id="../etc")),
                    grpc.StatusCode.INVALID_ARGUMENT, "circuit_id", "preload of a path")

        print("bad requests get the right codes, naming the problem")
        expect_code(lambda: st.SubmitProof(req(proof_kind=9)), grpc.StatusCode.INVALID_ARGUMENT, "proof_kind 9",
                    "unknown proof kind")
        expect_code(lambda: st.SubmitProof(req(proof_kind=0)), grpc.StatusCode.INVALID_ARGUMENT, "proof_kind is unset",
                    "unset proof kind")
        rnd = bytes(range(31)) + b"\x01"
        expect_code(lambda: st.SubmitProof(req(proof_kind=K.WINNING_POST, registered_proof=3, sector_size=32 << 30,
                                               vanilla_proof=b"", vanilla_proofs=[b"x"])),
                    grpc.StatusCode.INVALID_ARGUMENT, "randomness must be 32 bytes, got 0", "WinningPoSt, no randomness")
        expect_code(lambda: st.SubmitProof(req(proof_kind=K.WINNING_POST, registered_proof=3, sector_size=0, vanilla_proof=b"",
                                               randomness=rnd)),
                    grpc.StatusCode.INVALID_ARGUMENT, "vanilla_proofs is empty", "WinningPoSt, no vanilla proofs")
        expect_code(lambda: st.SubmitProof(req(proof_kind=K.WINNING_POST, registered_proof=3, sector_size=0, vanilla_proof=b"",
                                               randomness=rnd, vanilla_proofs=[b"x" * 50], partition_index=1)),
                    grpc.StatusCode.INVALID_ARGUMENT, "partition_index must be 0", "WinningPoSt, partition 1")
        expect_code(lambda: st.SubmitProof(req(proof_kind=K.WINDOW_POST_PARTITION, registered_proof=13,
                                               sector_size=32 << 30, vanilla_proof=b"", randomness=rnd,
                                               vanilla_proofs=[bytes(40) + (1).to_bytes(8, "little") + b"\x0a"])),
                    grpc.StatusCode.INVALID_ARGUMENT, "truncated", "WindowPoSt, truncated sector proof")
        expect_code(lambda: st.SubmitProof(req(proof_kind=K.WINDOW_POST_PARTITION, registered_proof=13, sector_size=0,
                                               vanilla_proof=b"", randomness=b"\xff" * 32,
                                               vanilla_proofs=[b"x" * 50])),
                    grpc.StatusCode.INVALID_ARGUMENT, "randomness", "WindowPoSt, randomness not a field element")
        expect_code(lambda: st.SubmitProof(req(proof_kind=K.SNAP_DEALS_UPDATE, registered_proof=3,
                                               sector_size=32 << 30, vanilla_proof=b"")),
                    grpc.StatusCode.INVALID_ARGUMENT, "comm_r_old must be 32 bytes", "SnapDeals, no commitments")
        expect_code(lambda: st.SubmitProof(req(proof_kind=K.SNAP_DEALS_UPDATE, registered_proof=3, sector_size=0, vanilla_proof=b"",
                                               comm_r_old=rnd, comm_r_new=rnd, comm_d_new=rnd,
                                               vanilla_proofs=[b"x"])),
                    grpc.StatusCode.INVALID_ARGUMENT, "has 16 partitions", "SnapDeals, one of 16 partition proofs")
        expect_code(lambda: st.SubmitProof(req(proof_kind=K.SNAP_DEALS_UPDATE, registered_proof=0, vanilla_proof=b"",
                                               comm_r_old=rnd, comm_r_new=rnd, comm_d_new=rnd,
                                               vanilla_proofs=[b"x" * 40])),
                    grpc.StatusCode.INVALID_ARGUMENT, "partition 0", "SnapDeals, truncated partition proof")
        expect_code(lambda: st.SubmitProof(req(proof_kind=K.WINDOW_POST_PARTITION, registered_proof=13,
                                               sector_size=2048)),
                    grpc.StatusCode.INVALID_ARGUMENT, "sector_size 2048 does not match", "WindowPoSt size mismatch")
        expect_code(lambda: st.SubmitProof(req(sector_size=8 << 20)), grpc.StatusCode.INVALID_ARGUMENT,
                    "sector_size 8388608 does not match registered_proof 5", "wrong registered_proof for the size")
        expect_code(lambda: st.SubmitProof(req(registered_proof=6, sector_size=8 << 20)),
                    grpc.StatusCode.INVALID_ARGUMENT, "C1 output of StackedDrg2KiBV1_1", "C1 of another proof")
        expect_code(lambda: st.SubmitProof(req(registered_proof=77)), grpc.StatusCode.INVALID_ARGUMENT,
                    "not a RegisteredSealProof", "unknown registered proof")
        expect_code(lambda: st.SubmitProof(req(registered_proof=15)), grpc.StatusCode.UNIMPLEMENTED,
                    "non-interactive", "NI-PoRep")
        expect_code(lambda: st.SubmitProof(req(vanilla_proof=b'{"SectorNum": 42, "Phase1Out": "bm90IGpzb24="')),
                    grpc.StatusCode.INVALID_ARGUMENT, "vanilla_proof", "malformed vanilla JSON")
        bad = json.loads(c1_plain)
        bad["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["comm_d_proofs"]["data"]["Single"]["leaf"] = [1, 2]
        expect_code(lambda: st.SubmitProof(req(vanilla_proof=json.dumps(bad).encode())),
                    grpc.StatusCode.INVALID_ARGUMENT, "leaf", "C1 with a 2-byte leaf")
        expect_code(lambda: st.SubmitProof(req(vanilla_proof=b"")), grpc.StatusCode.INVALID_ARGUMENT,
                    "vanilla_proof is empty", "no vanilla proof")
        expect_code(lambda: st.SubmitProof(req(miner_id=1001)), grpc.StatusCode.INVALID_ARGUMENT,
                    "not the one of miner 1001, sector 42", "C1 of another miner")
        expect_code(lambda: st.SubmitProof(req(sector_number=43)), grpc.StatusCode.INVALID_ARGUMENT,
                    "sector 43", "C1 of another sector")
        expect_code(lambda: st.SubmitProof(req(request_id="has space")), grpc.StatusCode.INVALID_ARGUMENT,
                    "request_id", "bad request id")
        expect_code(lambda: st.SubmitProof(req(priority=9)), grpc.StatusCode.INVALID_ARGUMENT, "priority",
                    "bad priority")
        expect_code(lambda: st.SubmitProof(req(vanilla_proof=b"x" * (3 << 20))), grpc.StatusCode.RESOURCE_EXHAUSTED,
                    "larger than max", "oversize message (grpc.max_message_bytes = 2M)", transport_retries=3)
        expect_code(lambda: st.AwaitProof(pb.AwaitProofRequest(job_id="999999")), grpc.StatusCode.NOT_FOUND,
                    "unknown job 999999", "await of an unknown job")
        expect_code(lambda: st.AwaitProof(pb.AwaitProofRequest(job_id="abc")), grpc.StatusCode.INVALID_ARGUMENT,
                    "job_id 'abc'", "await of a malformed id")
        expect_code(lambda: st.CancelProof(pb.CancelProofRequest(job_id="424242")), grpc.StatusCode.NOT_FOUND,
                    "unknown job", "cancel of an unknown job")
        expect_code(lambda: st.Prove(pb.ProveRequest()), grpc.StatusCode.INVALID_ARGUMENT, "submit is missing",
                    "Prove without submit")
        nope = ch.unary_unary("/cuzk.v1.ProvingEngine/Nope", request_serializer=lambda x: x,
                              response_deserializer=lambda x: x)
        expect_code(lambda: nope(b""), grpc.StatusCode.UNIMPLEMENTED, "unknown method", "unknown method")
        garbage = ch.unary_unary("/cuzk.v1.ProvingEngine/SubmitProof", request_serializer=lambda x: x,
                                 response_deserializer=lambda x: x)
        expect_code(lambda: garbage(b"\xff\xff\xff"), grpc.StatusCode.INVALID_ARGUMENT, "cannot decode",
                    "undecodable message")
        print("  ... and the daemon keeps serving")
        p = st.Prove(pb.ProveRequest(submit=req(request_id="after-errors")))
        check(p.result.status == AW.COMPLETED and p.result.proof == expected, f"prove after errors: {p}")
        logtext = d.text()
        check(re.search(r"grpc job=\d+ accepted circuit=porep-2k partitions=1 priority=normal "
                        r"request_id=after-errors miner=1000 sector=42", logtext), "log line of an accepted job")

        ch.close()
        d.stop()
        check(not os.path.exists(f"{work}/grpc.sock"), "the gRPC socket is removed at shutdown")

        print("load: 240 concurrent gRPC clients mixed with 60 HTTP clients on one engine")
        load_ini = (f"[daemon]\nlisten = unix:{work}/lhttp.sock\nmax_connections = 512\n"
                    f"[grpc]\nlisten = unix:{work}/lgrpc.sock\n[backend]\ntype = test\n"
                    f"[engine]\npartition_workers = 2\nmemory_budget = 1G\n"
                    f"[test]\nsynth_ms = 2\nprove_ms = 1\nfinish_ms = 1\nproof_bytes = 192\n")
        ld = Daemon(cuzkd, work, "load", load_ini)
        load_test(pb, pbg, ld, req, c1_curio)
        ld.stop()

        print("token rules on TCP")
        tok = os.path.join(work, "token")
        with open(tok, "w") as f:
            f.write("s3cret-token\n")
        bad_ini = f"[daemon]\nlisten = off\n[grpc]\nlisten = 0.0.0.0:0\n[backend]\ntype = test\n"
        b = Daemon(cuzkd, work, "notoken", bad_ini, expect_fail=True)
        check(b.proc.returncode == 1 and "without a token" in b.exit_text,
              f"non-loopback gRPC without a token must refuse to start: {getattr(b, 'exit_text', '')}")
        t_ini = (f"[daemon]\nlisten = tcp:127.0.0.1:0\ntoken_file = {tok}\n[grpc]\nlisten = 127.0.0.1:0\n"
                 f"[backend]\ntype = test\n[engine]\nmemory_budget = 1G\n[test]\nsynth_ms = 1\n")
        t = Daemon(cuzkd, work, "token", t_ini)
        check(t.grpc.startswith("tcp:127.0.0.1:") and not t.grpc.endswith(":0"), f"bound address {t.grpc}")
        tch = grpc.insecure_channel(grpc_target(t.grpc))
        ts = pbg.ProvingEngineStub(tch)
        expect_code(lambda: ts.GetStatus(pb.GetStatusRequest()), grpc.StatusCode.UNAUTHENTICATED, "token",
                    "no token")
        expect_code(lambda: ts.GetStatus(pb.GetStatusRequest(), metadata=[("authorization", "Bearer wrong")]),
                    grpc.StatusCode.UNAUTHENTICATED, "token", "wrong token")
        expect_code(lambda: ts.SubmitProof(req(), metadata=[("authorization", "s3cret-token")]),
                    grpc.StatusCode.UNAUTHENTICATED, "Bearer", "token without 'Bearer'")
        ok = ts.Prove(pb.ProveRequest(submit=req(request_id="tok")), metadata=[("authorization", "Bearer s3cret-token")])
        check(ok.result.status == AW.COMPLETED, f"with the token: {ok}")
        tch.close()
        t.stop()
        print(f"{SELF} api: all checks passed")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def load_test(pb, pbg, d, req, c1):
    import grpc
    NG, NH, DUP = 240, 60, 20
    AW = pb.AwaitProofResponse
    results, errors, lock = {}, [], threading.Lock()
    expected = fake_proof(c1, 1, 192)
    channels = [grpc.insecure_channel(grpc_target(d.grpc)) for _ in range(8)]
    before = pbg.ProvingEngineStub(channels[0]).GetStatus(pb.GetStatusRequest()).total_proofs_completed
    start = threading.Barrier(NG + NH)

    def grpc_client(i):
        try:
            stub = pbg.ProvingEngineStub(channels[i % len(channels)])
            rid = f"load-dup-{i % DUP}" if i < 2 * DUP else f"load-{i}"
            pr = pb.PRIORITY_UNSPECIFIED if i % 3 else pb.HIGH
            start.wait()
            r = stub.Prove(pb.ProveRequest(submit=req(request_id=rid, priority=pr)), timeout=600)
            with lock:
                results[("g", i)] = (rid, r.result)
        except Exception as e:  # noqa: BLE001
            with lock:
                errors.append(f"grpc client {i}: {e!r}")

    def http_client(i):
        try:
            payload = f"http job {i}"
            start.wait()
            status, j = http_call(d.http, "POST", "/v1/prove?timeout_ms=600000",
                                  {"circuit": "test", "payload": payload, "request_id": f"http-{i}"})
            with lock:
                results[("h", i)] = (payload, status, j)
        except Exception as e:  # noqa: BLE001
            with lock:
                errors.append(f"http client {i}: {e!r}")

    th = [threading.Thread(target=grpc_client, args=(i,)) for i in range(NG)]
    th += [threading.Thread(target=http_client, args=(i,)) for i in range(NH)]
    for x in th:
        x.start()
    for x in th:
        x.join(timeout=900)
    check(not errors, "load: " + "; ".join(errors[:5]))
    check(len(results) == NG + NH, f"load: {len(results)} of {NG + NH} clients answered")
    job_of_rid = {}
    for (kind, i), v in results.items():
        if kind == "g":
            rid, r = v
            check(r.status == AW.COMPLETED and r.proof == expected, f"load: gRPC client {i}: {r.status} {r.error_message}")
            check(job_of_rid.setdefault(rid, r.job_id) == r.job_id,
                  f"load: request id {rid} answered by jobs {job_of_rid[rid]} and {r.job_id}")
        else:
            payload, status, j = v
            check(status == 200 and j.get("state") == "done", f"load: HTTP client {i}: {status} {j}")
            check(base64.b64decode(j["proof_b64"]) == fake_proof(payload.encode(), 1, 192),
                  f"load: HTTP client {i}: wrong proof")
            check(job_of_rid.setdefault(f"http-{i}", str(j["id"])) == str(j["id"]), "load: http id reused")
    jobs = set(job_of_rid.values())
    # every distinct request became exactly one job, and every job ended once
    check(len(jobs) == (NG - DUP) + NH, f"load: {len(jobs)} distinct jobs for {(NG - DUP) + NH} distinct requests")
    after = pbg.ProvingEngineStub(channels[0]).GetStatus(pb.GetStatusRequest())
    check(after.total_proofs_completed - before == len(jobs),
          f"load: engine completed {after.total_proofs_completed - before} jobs, clients saw {len(jobs)}")
    check(not after.queues, f"load: queues not empty after every client returned: {after.queues}")
    for c in channels:
        c.close()
    print(f"  {NG} gRPC + {NH} HTTP clients: {len(jobs)} jobs, each ended exactly once, none lost")


# ---------------------------------------------------------------------------------------------
def groth16_daemon(pbg, cuzkd, work, fixture_dir, name):
    """A cuzkd on gRPC only (unix:work/grpc.sock) with the groth16 back-end
    over fixture_dir's parameters and self-verification on; returns the
    daemon, a channel allowing 256 MiB messages, and the ProvingEngine stub."""
    import grpc
    ini = f"""[daemon]
listen = off
[grpc]
listen = unix:{work}/grpc.sock
[backend]
type = groth16
param_dir = {fixture_dir}
auto_setup = false
threads = 2
[engine]
memory_budget = 8G
self_verify = true
"""
    d = Daemon(cuzkd, work, name, ini)
    ch = grpc.insecure_channel(grpc_target(d.grpc), options=[("grpc.max_receive_message_length", 256 << 20),
                                                             ("grpc.max_send_message_length", 256 << 20)])
    return d, ch, pbg.ProvingEngineStub(ch)


def test_porep(cuzkd, source_dir, cuzk, fixture_dir):
    import grpc
    work = tempfile.mkdtemp(prefix="cuzk-grpc-porep-")
    try:
        pb, pbg = load_stubs(source_dir, work)
        vec = os.path.join(source_dir, "tests", "vectors", "filecoin", "porep-2k-v1.1")
        c1_path = os.path.join(vec, "c1-curio.json")
        c1 = open(c1_path, "rb").read()
        params = os.path.join(fixture_dir, "porep-2k.params")
        check(os.path.exists(params), f"{params} missing (the fixture_porep2k test makes it)")
        # the verifying key: the .params prefix (bellperson's layout)
        with open(params, "rb") as f:
            head = f.read(868)
            nic = struct.unpack(">I", head[864:868])[0]
            vk = head + f.read(96 * nic)
        vk_path = os.path.join(work, "porep-2k.vk")
        open(vk_path, "wb").write(vk)
        d, ch, st = groth16_daemon(pbg, cuzkd, work, fixture_dir, "porep")
        AW = pb.AwaitProofResponse
        sub = pb.SubmitProofRequest(request_id="porep-1000-42", proof_kind=pb.POREP_SEAL_COMMIT, sector_size=2048,
                                    registered_proof=5, priority=pb.NORMAL, vanilla_proof=c1, sector_number=42,
                                    miner_id=1000)
        pre = st.PreloadSRS(pb.PreloadSrsRequest(circuit_id="porep-2k"))
        print(f"PreloadSRS porep-2k: already_loaded={pre.already_loaded} load_time_ms={pre.load_time_ms}")
        t0 = time.time()
        r = st.Prove(pb.ProveRequest(submit=sub), timeout=1200).result
        check(r.status == AW.COMPLETED, f"Prove: {r.status} {r.error_message}")
        check(len(r.proof) == 192, f"proof of one partition is 192 bytes, got {len(r.proof)}")
        print(f"Prove: {time.time() - t0:.1f} s; queue {r.queue_wait_ms} ms, load {r.srs_load_ms} ms, "
              f"synthesis {r.synthesis_ms} ms, prove {r.gpu_compute_ms} ms, total {r.total_ms} ms")
        check(r.synthesis_ms > 0 and r.gpu_compute_ms > 0 and r.total_ms >= r.synthesis_ms, f"timings: {r}")
        proof_path = os.path.join(work, "proof.bin")
        open(proof_path, "wb").write(r.proof)
        v = subprocess.run([cuzk, "verify", "--c1", c1_path, "--proof", proof_path, "--vk", vk_path],
                           capture_output=True, text=True)
        check(v.returncode == 0, f"cuzk verify of the gRPC proof: {v.returncode} {v.stdout} {v.stderr}")
        print(f"cuzk verify: {v.stdout.strip()}")
        flipped = bytearray(r.proof)
        flipped[100] ^= 1
        open(proof_path, "wb").write(bytes(flipped))
        v = subprocess.run([cuzk, "verify", "--c1", c1_path, "--proof", proof_path, "--vk", vk_path],
                           capture_output=True, text=True)
        check(v.returncode != 0, "cuzk verify accepted a tampered proof")

        print("a C1 whose values are wrong (a Merkle leaf) fails its job, naming the problem")
        w = json.loads(c1)
        inner = json.loads(base64.b64decode(w["Phase1Out"]))
        leaf = inner["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["comm_d_proofs"]["data"]["Single"]["leaf"]
        leaf[0] ^= 1
        w["Phase1Out"] = base64.b64encode(json.dumps(inner).encode()).decode()
        bad = pb.SubmitProofRequest()
        bad.CopyFrom(sub)
        bad.request_id = "porep-bad"
        bad.vanilla_proof = json.dumps(w).encode()
        r = st.Prove(pb.ProveRequest(submit=bad), timeout=600).result
        check(r.status == AW.FAILED and "comm_d" in r.error_message, f"tampered C1: {r.status} {r.error_message}")
        print(f"  FAILED: {r.error_message}")
        s = st.GetStatus(pb.GetStatusRequest())
        check(s.total_proofs_completed == 1 and s.total_proofs_failed == 1, f"totals: {s}")
        check(any(x.circuit_id == "porep-2k" and x.tier == pb.SRSStatus.HOT for x in s.loaded_srs),
              f"loaded_srs: {s.loaded_srs}")
        ch.close()
        d.stop()
        print(f"{SELF} porep: all checks passed")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True)
    check(r.returncode == 0, f"{what}: exit {r.returncode}\n{' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r


def bins(d):
    """The bincode files a `--bincode-dir` holds, in name order."""
    return [open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d))]


def test_post(cuzkd, source_dir, cuzk, fixture_dir):
    """WinningPoSt, WindowPoSt and SnapDeals through gRPC on the real prover.

    Two 2KiB sectors are sealed by `cuzk seal`; `cuzk post vanilla` and
    `cuzk snap` make the bincode vanilla proofs as Curio would send them
    (and the request envelopes, which `cuzk verify` checks the daemon's
    proofs against); cuzkd proves them with local parameters."""
    import grpc
    work = tempfile.mkdtemp(prefix="cuzk-grpc-post-")
    try:
        pb, pbg = load_stubs(source_dir, work)
        for c in ("winning-2k", "wpost-2k"):  # small: seconds
            if not os.path.exists(os.path.join(fixture_dir, f"{c}.meta")):
                run([cuzk, "setup", "--circuit", c, "--threads", "2", "-o", os.path.join(fixture_dir, f"{c}.params")],
                    f"setup {c}")
        check(os.path.exists(os.path.join(fixture_dir, "snap-2k.params")),
              "snap-2k.params missing (the fixture_snap2k test makes it)")
        miner = 1000
        prover = bytearray(32)
        prover[0], prover[1] = 0xe8, 0x07  # LEB128(1000)
        hx = lambda b: bytes(b).hex()
        for sid in (1, 2):
            run([cuzk, "seal", "--registered-proof", "StackedDrg2KiBV1_1", "--rand-seed", str(sid), "--prover-id",
                 hx(prover), "--sector-id", str(sid), "--ticket", "11" * 31 + "01", "--seed", "22" * 32,
                 "--cache-dir", os.path.join(work, f"s{sid}"), "-o", os.path.join(work, f"s{sid}.c1.json")],
                f"seal sector {sid}")
        rnd = bytes((i * 37 + 5) & 0xFF for i in range(31)) + b"\x0b"
        run([cuzk, "post", "vanilla", "--registered-proof", "StackedDrgWinning2KiBV1", "--cache-dir",
             os.path.join(work, "s1"), "--sector-id", "1", "--miner-id", str(miner), "--randomness", rnd.hex(),
             "--bincode-dir", os.path.join(work, "win"), "-o", os.path.join(work, "win.req")], "post vanilla (winning)")
        run([cuzk, "post", "vanilla", "--registered-proof", "StackedDrgWindow2KiBV1_2", "--cache-dir",
             os.path.join(work, "s1") + "," + os.path.join(work, "s2"), "--sector-id", "1,2", "--miner-id", str(miner),
             "--randomness", rnd.hex(), "--partition", "0", "--bincode-dir", os.path.join(work, "wp"), "-o",
             os.path.join(work, "wp.req")], "post vanilla (window)")
        d, ch, st = groth16_daemon(pbg, cuzkd, work, fixture_dir, "post")
        AW = pb.AwaitProofResponse

        def prove_and_verify(sub, circuit, req_file, parts):
            t0 = time.time()
            r = st.Prove(pb.ProveRequest(submit=sub), timeout=900).result
            check(r.status == AW.COMPLETED, f"{circuit}: {r.status} {r.error_message}")
            check(len(r.proof) == 192 * parts, f"{circuit}: proof is {len(r.proof)} bytes, want {192 * parts}")
            print(f"  {circuit}: proved in {time.time() - t0:.1f} s (synthesis {r.synthesis_ms} ms, "
                  f"prove {r.gpu_compute_ms} ms, total {r.total_ms} ms)")
            proof_path = os.path.join(work, f"{circuit}.proof")
            open(proof_path, "wb").write(r.proof)
            params = os.path.join(fixture_dir, f"{circuit}.params")
            v = [cuzk, "verify", "--circuit", circuit, "--params", params, "--payload", req_file, "--proof", proof_path]
            run(v, f"cuzk verify of the {circuit} proof")
            bad = bytearray(r.proof)
            bad[50] ^= 1
            open(proof_path, "wb").write(bytes(bad))
            check(subprocess.run(v, capture_output=True).returncode != 0, f"cuzk verify accepted a tampered {circuit} proof")
            return r

        print("WinningPoSt (default priority: CRITICAL)")
        win = bins(os.path.join(work, "win"))
        check(len(win) == 1, f"winning: {len(win)} sector proofs")
        sub = pb.SubmitProofRequest(request_id="win-1", proof_kind=pb.WINNING_POST, registered_proof=0,
                                    sector_size=2048, vanilla_proofs=win, randomness=rnd, miner_id=miner)
        prove_and_verify(sub, "winning-2k", os.path.join(work, "win.req"), 1)

        print("WindowPoSt, one partition of two sectors (default priority: HIGH)")
        wp = bins(os.path.join(work, "wp"))
        check(len(wp) == 2, f"window: {len(wp)} sector proofs")
        sub = pb.SubmitProofRequest(request_id="wpost-1", proof_kind=pb.WINDOW_POST_PARTITION, registered_proof=10,
                                    vanilla_proofs=wp, randomness=rnd, miner_id=miner, partition_index=0)
        prove_and_verify(sub, "wpost-2k", os.path.join(work, "wp.req"), 1)

        print("bad PoSt input: refused or failed, naming the problem; the daemon keeps serving")
        expect_code(lambda: st.SubmitProof(pb.SubmitProofRequest(
            proof_kind=pb.WINDOW_POST_PARTITION, registered_proof=10, vanilla_proofs=[wp[0][:-5]], randomness=rnd,
            miner_id=miner)), grpc.StatusCode.INVALID_ARGUMENT, "truncated", "truncated sector proof")
        expect_code(lambda: st.SubmitProof(pb.SubmitProofRequest(
            proof_kind=pb.WINNING_POST, registered_proof=0, vanilla_proofs=win + win, randomness=rnd,
            miner_id=miner)), grpc.StatusCode.INVALID_ARGUMENT, "vanilla proofs", "two winning sector proofs")
        expect_code(lambda: st.SubmitProof(pb.SubmitProofRequest(
            proof_kind=pb.WINDOW_POST_PARTITION, registered_proof=10, vanilla_proofs=wp, randomness=rnd[:31],
            miner_id=miner)), grpc.StatusCode.INVALID_ARGUMENT, "randomness must be 32 bytes", "31-byte randomness")
        other = bytes(rnd[:31]) + b"\x0c"
        r = st.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(
            request_id="wpost-wrong-rnd", proof_kind=pb.WINDOW_POST_PARTITION, registered_proof=10, vanilla_proofs=wp,
            randomness=other, miner_id=miner)), timeout=600).result
        check(r.status == AW.FAILED and "challenge" in r.error_message,
              f"vanilla proofs of other randomness: {r.status} {r.error_message}")
        print(f"  other randomness: FAILED: {r.error_message}")
        tampered = bytearray(wp[1])
        tampered[200] ^= 1
        r = st.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(
            request_id="wpost-tampered", proof_kind=pb.WINDOW_POST_PARTITION, registered_proof=10,
            vanilla_proofs=[wp[0], bytes(tampered)], randomness=rnd, miner_id=miner)), timeout=600).result
        check(r.status == AW.FAILED and "sector proof 1" in r.error_message,
              f"tampered sector proof: {r.status} {r.error_message}")
        print(f"  tampered path: FAILED: {r.error_message}")

        print("SnapDeals: sector 1 updated with new data (default priority: NORMAL)")
        run([cuzk, "snap", "encode", "--registered-proof", "snap-2k", "--cache-dir", os.path.join(work, "s1"),
             "--rand-seed", "5", "-o", os.path.join(work, "up")], "snap encode")
        run([cuzk, "snap", "vanilla", "--registered-proof", "snap-2k", "--cache-dir", os.path.join(work, "s1"),
             "--rand-seed", "5", "--bincode-dir", os.path.join(work, "snapbc"), "-o", os.path.join(work, "snap.req")],
            "snap vanilla")
        up = json.load(open(os.path.join(work, "up", "update.json")))
        comms = {k: bytes.fromhex(up[k]) for k in ("comm_r_old", "comm_r_new", "comm_d_new")}
        parts = bins(os.path.join(work, "snapbc"))
        check(len(parts) == 1, f"snap-2k: {len(parts)} partition proofs")
        sub = pb.SubmitProofRequest(request_id="snap-1", proof_kind=pb.SNAP_DEALS_UPDATE, registered_proof=0,
                                    sector_size=2048, vanilla_proofs=parts, **comms)
        prove_and_verify(sub, "snap-2k", os.path.join(work, "snap.req"), 1)
        wrong = dict(comms)
        wrong["comm_r_new"] = comms["comm_r_old"]
        r = st.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(
            request_id="snap-wrong", proof_kind=pb.SNAP_DEALS_UPDATE, registered_proof=0, vanilla_proofs=parts,
            **wrong)), timeout=600).result
        check(r.status == AW.FAILED and "partition 0" in r.error_message, f"snap, wrong comm_r_new: {r.status} "
              f"{r.error_message}")
        print(f"  wrong comm_r_new: FAILED: {r.error_message}")

        s = st.GetStatus(pb.GetStatusRequest())
        check(s.total_proofs_completed == 3 and s.total_proofs_failed == 3, f"totals: {s}")
        ch.close()
        d.stop()
        print(f"{SELF} post: all checks passed")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        import grpc  # noqa: F401
        import grpc_tools  # noqa: F401
    except ImportError as e:
        die(f"{e}: install Debian's python3-grpcio and python3-grpc-tools (tools/install-deps.sh does)")
    if len(sys.argv) == 4 and sys.argv[1] == "api":
        test_api(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "porep":
        test_porep(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif len(sys.argv) == 6 and sys.argv[1] == "post":
        test_post(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        die(f"usage: {SELF} api CUZKD SOURCE_DIR | porep|post CUZKD SOURCE_DIR CUZK FIXTURE_DIR")
