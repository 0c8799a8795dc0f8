#!/usr/bin/python3
"""Several cuzkd nodes on one job store ([store] backend = postgres).

A throw-away PostgreSQL (pg_harness_main), one set of real Groth16
parameters of a tiny circuit made once and shared by every node (so
partitions proved on different nodes assemble into a proof that verifies),
three cuzkd (backend groth16, node ids n1..n3, a lease of 1.5 s).

test_across_nodes: an await on n2 wakes when n1 (the only node serving the
circuit) finishes the job; a cancel on n3 of a job running on n1 ends it
everywhere and n1 lets its partitions go; one request id submitted to two
nodes is one job.

test_database_outage: PostgreSQL stopped for two leases: /v1/status still
answers (database_reachable false), submit and await answer 503, and the
jobs accepted before the outage all finish once it is back.

test_many_jobs: 2000 small jobs (1-4 partitions, random priorities)
submitted round-robin over the three nodes, 5% cancelled, n2 SIGKILLed
mid-run and restarted after its lease lapsed (the others reclaim its
work), n3 SIGKILLed and restarted at once (it gives its old claims back
itself), PostgreSQL restarted once under load; then
every job is awaited through a random node: each ends exactly once in the
expected state (a cancelled one CANCELLED unless it finished first), every
DONE proof verifies (cuzk verify, all of them), no partition of a DONE job
lacks its one stored proof or its completing node, nothing is left queued
or claimed, no job exists that was not submitted.

Usage: test_store_nodes.py CUZKD CUZK PG_HARNESS_MAIN [--jobs N]
Exit status 0 = pass; any failure prints what and exits 1.
"""
import base64
import concurrent.futures as cf
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

CIRCUIT = "mulchain-8"       # served by every node (the many-jobs run)
ONLY_N1 = "mulchain-2048"    # served by n1 only (the across-nodes checks)
LEASE_MS = 1500


def fail(msg):
    print("FAIL: " + msg, flush=True)
    raise SystemExit(1)


def log(msg):
    print("[%7.2f] %s" % (time.monotonic() - T0, msg), flush=True)


T0 = time.monotonic()


class UnixHTTP(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self.path_ = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.path_)
        self.sock = s


class Harness:
    """pg_harness_main: start, query, restart, stop."""

    def __init__(self, exe):
        self.p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        line = self.p.stdout.readline().strip()
        if not line.startswith("conninfo "):
            fail("pg_harness_main did not start PostgreSQL (got %r)" % line)
        self.conninfo = line[len("conninfo "):]
        self.mu = threading.Lock()

    def cmd(self, c):
        with self.mu:
            self.p.stdin.write(c + "\n")
            self.p.stdin.flush()
            return self.p.stdout.readline().strip()

    def query(self, sql):
        r = self.cmd("query " + sql.replace("\n", " "))
        try:
            return int(r)
        except ValueError:
            fail("query %r answered %r" % (sql, r))

    def stop(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        self.p.wait(timeout=60)


class Node:
    def __init__(self, work, name, exe, conninfo, params, circuits, backend="groth16", extra=""):
        self.name, self.exe, self.work = name, exe, work
        self.sock = os.path.join(work, name + ".sock")
        self.ini = os.path.join(work, name + ".ini")
        self.logf = os.path.join(work, name + ".log")
        with open(self.ini, "w") as f:
            f.write("[daemon]\nlisten = unix:%s\nlog_level = info\nmax_connections = 512\n"
                    "[backend]\ntype = %s\nparam_dir = %s\nthreads = 1\nauto_setup = false\ncircuits = %s\n"
                    "[engine]\nmemory_budget = 2G\npartition_workers = 1\nworkers_per_device = 1\n"
                    "[store]\nbackend = postgres\nconninfo = %s\nnode_id = %s\nlease_ms = %d\n"
                    "await_poll_ms = 500\nconnections = 8\n%s"
                    % (self.sock, backend, params, circuits, conninfo, name, LEASE_MS, extra))
        self.p = None

    def start(self):
        self.logfh = open(self.logf, "a")
        self.p = subprocess.Popen([self.exe, "--config", self.ini], stdout=self.logfh, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.p.poll() is not None:
                fail("%s exited at start (%d): see %s" % (self.name, self.p.returncode, self.logf))
            try:
                code, _ = self.call("GET", "/v1/health", timeout=2)
                if code == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        fail("%s did not answer within 30 s" % self.name)

    def call(self, method, path, body=None, timeout=30):
        c = UnixHTTP(self.sock, timeout)
        try:
            data = json.dumps(body) if body is not None else None
            c.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
            r = c.getresponse()
            raw = r.read()
            try:
                j = json.loads(raw) if raw else {}
            except ValueError:
                j = {"raw": raw.decode("utf-8", "replace")}
            return r.status, j
        finally:
            c.close()

    def kill(self):
        self.p.send_signal(signal.SIGKILL)
        self.p.wait()
        self.logfh.close()

    def stop(self):
        if self.p and self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                rc = self.p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.p.kill()
                fail("%s did not stop within 60 s of SIGTERM" % self.name)
            self.logfh.close()
            return rc
        return None


def retrying(nodes, fn, what, deadline_s=60):
    """fn(node) -> (done, value); tries nodes in turn (a node may be down,
    the database restarting) until done or the deadline."""
    end = time.monotonic() + deadline_s
    last = None
    i = random.randrange(len(nodes))
    while time.monotonic() < end:
        n = nodes[i % len(nodes)]
        i += 1
        try:
            done, v = fn(n)
            if done:
                return v
            last = v
        except OSError as e:  # refused (killed node), reset
            last = "%s: %s" % (n.name, e)
        time.sleep(0.05)
    fail("%s: no answer within %d s (last: %s)" % (what, deadline_s, last))


def submit(nodes, first, job):
    def fn(n):
        code, j = n.call("POST", "/v1/jobs", job)
        if code in (200, 201):
            return True, int(j["id"])
        if code == 503:
            return False, "%s 503 %s" % (n.name, j.get("error"))
        fail("submit %s to %s: %d %s" % (job.get("request_id"), n.name, code, j))
    order = nodes[first:] + nodes[:first]
    return retrying(order, fn, "submit " + job.get("request_id", "?"))


def await_terminal(nodes, jid):
    def fn(n):
        code, j = n.call("POST", "/v1/jobs/%d/await?timeout_ms=5000" % jid, timeout=30)
        if code == 200 and j.get("state") in ("done", "failed", "cancelled"):
            return True, j
        if code in (200, 202, 503):
            return False, "%s %d %s" % (n.name, code, j.get("state") or j.get("error"))
        fail("await %d on %s: %d %s" % (jid, n.name, code, j))
    return retrying(nodes, fn, "await job %d" % jid, deadline_s=150)


def verify(cuzk, params, work, circuit, x0, parts, proof_b64, tag):
    pl = os.path.join(work, "v-%s.json" % tag)
    pf = os.path.join(work, "v-%s.bin" % tag)
    with open(pl, "w") as f:
        json.dump({"x0": x0}, f)
    with open(pf, "wb") as f:
        f.write(base64.b64decode(proof_b64))
    r = subprocess.run([cuzk, "verify", "--circuit", circuit, "--param-dir", params, "--payload", pl,
                        "--partitions", str(parts), "--proof", pf, "--threads", "1"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    os.unlink(pl)
    os.unlink(pf)
    return r.returncode, r.stdout.strip()


def test_refusals(cuzkd, work):
    """[store] configuration errors name the key and value; a database that
    cannot be reached at start is one clear line and a non-zero exit."""
    sock = os.path.join(work, "refuse.sock")
    cases = [
        (["--set", "store.backend=mysql"], 2, "store.backend must be 'memory' or 'postgres', got 'mysql'"),
        (["--set", "store.lease_ms=5"], 2, "store.lease_ms must be an integer in 100..86400000, got '5'"),
        (["--set", "store.node_id=a b"], 2, "store.node_id must be 1..127 printable ASCII"),
        (["--set", "store.connections=0"], 2, "store.connections must be an integer in 1..1024, got '0'"),
        (["--set", "store.backend=postgres"], 1, "store.backend = postgres needs store.conninfo"),
        (["--set", "store.backend=postgres", "--set",
          "store.conninfo=host=%s/nodb dbname=x password=hunter2" % work], 1, "cannot connect to database 'x'"),
    ]
    for extra, want_rc, frag in cases:
        r = subprocess.run([cuzkd, "--listen", "unix:" + sock, "--backend", "test"] + extra,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        lines = [l for l in r.stdout.splitlines() if frag in l]
        if r.returncode != want_rc or len(lines) != 1:
            fail("cuzkd %s: exit %d (want %d), lines naming %r: %d\n%s" % (extra, r.returncode, want_rc, frag,
                                                                           len(lines), r.stdout[-2000:]))
        if "hunter2" in r.stdout:
            fail("cuzkd printed the conninfo's password")
    log("configuration refusals name their key and value; an unreachable database stops the start")


def test_across_nodes(h, nodes, cuzk, params, work):
    n1, n2, n3 = nodes
    # an await on n2 wakes when n1 (the only node serving ONLY_N1) finishes
    code, j = n2.call("POST", "/v1/jobs", {"circuit": ONLY_N1, "payload": {"x0": "11"}, "partitions": 2})
    if code != 201:
        fail("submit to n2: %d %s" % (code, j))
    jid = j["id"]
    code, j = n2.call("POST", "/v1/jobs/%d/await?timeout_ms=60000" % jid, timeout=90)
    if code != 200 or j.get("state") != "done":
        fail("await on n2 of job %d: %d %s" % (jid, code, j))
    by = h.query("SELECT count(*) FROM cuzk_partitions WHERE job_id = %d AND completed_by = 'n1'" % jid)
    if by != 2:
        fail("job %d: %d of its 2 partitions completed by n1 (the only node serving %s)" % (jid, by, ONLY_N1))
    rc, out = verify(cuzk, params, work, ONLY_N1, "11", 2, j["proof_b64"], "x")
    if rc != 0:
        fail("job %d's proof awaited on n2 does not verify: %s" % (jid, out))
    log("await on n2 woke with n1's proof of job %d (verified)" % jid)

    # a circuit no node could prove is refused at submission, as in memory
    # mode (a circuit another node serves, as above, is accepted)
    before = h.query("SELECT count(*) FROM cuzk_jobs")
    code, j = n2.call("POST", "/v1/jobs", {"circuit": "mulchain-x7", "payload": {"x0": "1"}, "partitions": 1})
    if code != 400 or "unknown circuit 'mulchain-x7'" not in j.get("error", ""):
        fail("submit of an unknown circuit to n2: %d %s (want 400 naming it)" % (code, j))
    if h.query("SELECT count(*) FROM cuzk_jobs") != before:
        fail("the refused submission of an unknown circuit left a job row")
    log("unknown circuit refused at submission: %s" % j["error"])

    # a cancel on n3 of a job running on n1
    code, j = n3.call("POST", "/v1/jobs", {"circuit": ONLY_N1, "payload": {"x0": "12"}, "partitions": 400})
    if code != 201:
        fail("submit to n3: %d %s" % (code, j))
    jid = j["id"]
    end = time.monotonic() + 60
    while True:
        code, j = n3.call("GET", "/v1/jobs/%d" % jid)
        if code == 200 and j["state"] == "running" and j["partitions_done"] >= 1:
            break
        if code != 200 or j["state"] not in ("queued", "running") or time.monotonic() > end:
            fail("job %d never ran on n1 (seen on n3: %d %s)" % (jid, code, j))
        time.sleep(0.05)
    code, j = n3.call("POST", "/v1/jobs/%d/cancel" % jid)
    if code != 200 or j.get("state") != "cancelled":
        fail("cancel on n3 of job %d: %d %s" % (jid, code, j))
    code, j = n1.call("POST", "/v1/jobs/%d/await?timeout_ms=10000" % jid)
    if code != 200 or j.get("state") != "cancelled":
        fail("job %d cancelled on n3 is not cancelled on n1: %d %s" % (jid, code, j))
    end = time.monotonic() + 3 * LEASE_MS / 1000 + 10
    while True:
        code, st = n1.call("GET", "/v1/status")
        left = h.query("SELECT count(*) FROM cuzk_partitions WHERE job_id = %d AND state IN ('queued', 'claimed')"
                       % jid)
        if st["store"]["held"] == 0 and left == 0:
            break
        if time.monotonic() > end:
            fail("after the cancel, n1 still holds %d partitions, %d queued or claimed in the store"
                 % (st["store"]["held"], left))
        time.sleep(0.1)
    done = h.query("SELECT count(*) FROM cuzk_partitions WHERE job_id = %d AND state = 'done'" % jid)
    log("cancel on n3 of job %d running on n1: cancelled everywhere, n1 let go (%d of 400 partitions done)"
        % (jid, done))

    # a payload by reference: file:// is read by the node, anything else
    # fails the job naming the URI
    pf = os.path.join(work, "payload-uri.json")
    with open(pf, "w") as f:
        json.dump({"x0": "77"}, f)
    jid = int(h.cmd("submit-uri %s 2 file://%s" % (CIRCUIT, pf)))
    r = await_terminal(nodes, jid)
    if r["state"] != "done":
        fail("job %d with payload file://%s: %s %s" % (jid, pf, r["state"], r.get("error")))
    rc, out = verify(cuzk, params, work, CIRCUIT, "77", 2, r["proof_b64"], "uri")
    if rc != 0:
        fail("job %d (payload by file:// URI) does not verify: %s" % (jid, out))
    jid = int(h.cmd("submit-uri %s 1 https://example.invalid/p.json" % CIRCUIT))
    r = await_terminal(nodes, jid)
    if r["state"] != "failed" or "https://example.invalid/p.json" not in r.get("error", ""):
        fail("job %d with an https:// payload URI: %s %s (want failed naming the URI)" % (jid, r["state"],
                                                                                        r.get("error")))
    log("payload by URI: file:// proved and verified; https:// failed: %s" % r["error"])

    # one request id, two nodes: one job
    job = {"circuit": CIRCUIT, "payload": {"x0": "13"}, "partitions": 1, "request_id": "shared-rid"}
    c1, a = n1.call("POST", "/v1/jobs", job)
    c3, b = n3.call("POST", "/v1/jobs", job)
    if c1 != 201 or c3 != 200 or a["id"] != b["id"] or not b.get("existing"):
        fail("request id on n1 then n3: %d %s / %d %s" % (c1, a, c3, b))
    await_terminal(nodes, a["id"])
    log("request id shared by n1 and n3: one job %d" % a["id"])


def test_grpc(h, nodes, cuzkd, params, work):
    """The gRPC front end on the store: SubmitProof/AwaitProof on a node
    (the test back-end, serving the PoRep circuits the groth16 nodes do
    not), the same job awaited over HTTP on another node, CancelProof of
    an unknown job. Skipped (said so) without Debian's grpcio."""
    try:
        import grpc
        from grpc_tools import protoc
    except ImportError:
        log("gRPC: SKIPPED (no python3-grpcio / python3-grpc-tools)")
        return None
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    out = os.path.join(work, "stubs")
    os.makedirs(out, exist_ok=True)
    proto = os.path.join(src, "proto")
    if protoc.main(["protoc", "-I" + proto, "--python_out=" + out, "--grpc_python_out=" + out,
                    os.path.join(proto, "cuzk", "v1", "proving.proto")]) != 0:
        fail("grpc_tools.protoc failed on proto/cuzk/v1/proving.proto")
    sys.path.insert(0, out)
    from cuzk.v1 import proving_pb2 as pb, proving_pb2_grpc as pbg
    c1 = open(os.path.join(src, "tests", "vectors", "filecoin", "porep-2k-v1.1", "c1-curio.json"), "rb").read()
    gsock = os.path.join(work, "g.grpc.sock")
    g = Node(work, "g1", cuzkd, h.conninfo, params, "porep-*,test-*", backend="test",
             extra="[grpc]\nlisten = unix:%s\n" % gsock)
    g.start()
    st = pbg.ProvingEngineStub(grpc.insecure_channel("unix:" + gsock))
    req = pb.SubmitProofRequest(request_id="grpc-porep-1", proof_kind=pb.ProofKind.POREP_SEAL_COMMIT,
                                sector_size=2048, registered_proof=5, vanilla_proof=c1, sector_number=42,
                                miner_id=1000)
    r = st.SubmitProof(req)
    a = st.AwaitProof(pb.AwaitProofRequest(job_id=r.job_id, timeout_ms=60000))
    # the test back-end's proof (docs/api.md): byte i = (fnv1a32(payload) + i) & 0xff
    hsh = 2166136261
    for b in c1:
        hsh = ((hsh ^ b) * 16777619) & 0xFFFFFFFF
    want = bytes((hsh + i) & 0xFF for i in range(192))
    if a.status != pb.AwaitProofResponse.COMPLETED or a.proof != want:
        fail("gRPC AwaitProof of job %s: %s (want the test back-end's proof of the C1)" % (r.job_id, a.status))
    code, j = nodes[1].call("POST", "/v1/jobs/%s/await?timeout_ms=10000" % r.job_id)
    if code != 200 or j.get("state") != "done" or base64.b64decode(j["proof_b64"]) != a.proof:
        fail("job %s (gRPC on g1) awaited over HTTP on n2: %d %s" % (r.job_id, code, j.get("state")))
    again = st.SubmitProof(req)
    if again.job_id != r.job_id:
        fail("gRPC resubmission under the same request id: job %s, then %s" % (r.job_id, again.job_id))
    try:
        st.CancelProof(pb.CancelProofRequest(job_id="999999"))
        fail("gRPC CancelProof of an unknown job succeeded")
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.NOT_FOUND:
            fail("gRPC CancelProof of an unknown job: %s %s" % (e.code(), e.details()))
    log("gRPC on the store: SubmitProof/AwaitProof on g1, the same proof over HTTP on n2, resubmission, "
        "NOT_FOUND cancel")

    # a partition g1's engine cannot take (test-huge: beyond any budget) is
    # given back, not failed and not counted as an attempt; g1 backs off.
    # Submitted to g1: a node checks a circuit's name against its own
    # back-end kind, and only the test back-end knows test-huge.
    code, j = g.call("POST", "/v1/jobs", {"circuit": "test-huge", "payload": "x", "partitions": 1})
    if code != 201:
        fail("submit test-huge to g1: %d %s" % (code, j))
    jid = j["id"]
    end = time.monotonic() + 15
    while g.call("GET", "/v1/status")[1]["store"]["released"] < 2:
        if time.monotonic() > end:
            fail("g1 never gave back the test-huge partition it cannot take: %s"
                 % g.call("GET", "/v1/status")[1]["store"])
        time.sleep(0.1)
    attempts = h.query("SELECT max(attempts) FROM cuzk_partitions WHERE job_id = %d" % jid)
    code, j = nodes[2].call("GET", "/v1/jobs/%d" % jid)
    if attempts > 1 or code != 200 or j["state"] not in ("queued", "running"):
        fail("test-huge job %d after its give-backs: attempts %d, %d %s" % (jid, attempts, code, j))
    code, j = nodes[2].call("POST", "/v1/jobs/%d/cancel" % jid)
    if code != 200:
        fail("cancel of test-huge job %d: %d %s" % (jid, code, j))
    log("a partition g1's budget cannot take: given back (attempts %d), the job still live until cancelled"
        % attempts)
    return g


def test_database_outage(h, nodes, cuzk, params, work):
    """PostgreSQL away for two leases: the nodes keep serving their local
    status (database_reachable false), front-end calls answer 503, and once
    it is back every job accepted before the outage finishes."""
    jobs = []
    # the slower circuit (n1 only): work is certainly in flight when the
    # database goes away
    for i in range(6):
        code, j = nodes[i % 3].call("POST", "/v1/jobs", {"circuit": ONLY_N1, "payload": {"x0": str(500 + i)},
                                                         "partitions": 8, "request_id": "outage-%d" % i})
        if code != 201:
            fail("submit before the outage: %d %s" % (code, j))
        jobs.append((j["id"], str(500 + i)))
    live = h.query("SELECT count(*) FROM cuzk_jobs WHERE state IN ('queued', 'running')")
    if not live:
        fail("the outage jobs ended before the outage: the test would not test it")
    if h.cmd("stop") != "stopped":
        fail("pg stop")
    log("PostgreSQL stopped (%d of the %d jobs queued or running)" % (live, len(jobs)))
    time.sleep(2 * LEASE_MS / 1000)
    for n in nodes:
        code, st = n.call("GET", "/v1/status")
        if code != 200 or st["store"]["database_reachable"]:
            fail("%s during the outage: /v1/status %d, store %s" % (n.name, code, st.get("store")))
    code, j = nodes[0].call("POST", "/v1/jobs", {"circuit": CIRCUIT, "payload": {"x0": "1"}, "partitions": 1})
    if code != 503 or "job store" not in j.get("error", ""):
        fail("submit during the outage: %d %s (want 503 naming the job store)" % (code, j))
    code, j = nodes[1].call("POST", "/v1/jobs/%d/await?timeout_ms=100" % jobs[0][0])
    if code != 503:
        fail("await during the outage: %d %s (want 503)" % (code, j))
    log("during the outage: status served (database_reachable false), submit and await 503: %s" % j["error"])
    if h.cmd("start") != "started":
        fail("pg start")
    log("PostgreSQL started again")
    for jid, x0 in jobs:
        r = await_terminal(nodes, jid)
        if r["state"] != "done":
            fail("job %d accepted before the outage ended %s: %s" % (jid, r["state"], r.get("error")))
        rc, out = verify(cuzk, params, work, ONLY_N1, x0, 8, r["proof_b64"], "o%d" % jid)
        if rc != 0:
            fail("job %d (outage) proof does not verify: %s" % (jid, out))
    end = time.monotonic() + 10
    while not all(n.call("GET", "/v1/status")[1]["store"]["database_reachable"] for n in nodes):
        if time.monotonic() > end:
            fail("a node still reports the database unreachable 10 s after it came back")
        time.sleep(0.1)
    log("after the outage: the %d jobs accepted before it are done and verify" % len(jobs))


def test_many_jobs(h, nodes, cuzk, params, work, njobs):
    rnd = random.Random(20261201)
    jobs = []
    for i in range(njobs):
        jobs.append({"i": i, "x0": str(rnd.randrange(1, 1 << 60)), "parts": rnd.randint(1, 4),
                     "prio": rnd.choice(["low", "normal", "high", "critical"]), "cancel": rnd.random() < 0.05})
    base_jobs = h.query("SELECT count(*) FROM cuzk_jobs")
    kill_at, pg_at = njobs // 4, njobs // 2
    events = {}

    def chaos():
        # SIGKILL n2 a quarter of the way in, back after two leases; n3
        # killed and restarted at once; PostgreSQL restarted halfway (or
        # as soon as the kills are done, if submission got there first)
        while len(done_sub) < kill_at:
            time.sleep(0.01)
        # n2 stays dead for longer than a lease: the other nodes reclaim
        # its partitions
        log("SIGKILL n2 (%d jobs submitted)" % len(done_sub))
        nodes[1].kill()
        time.sleep(2 * LEASE_MS / 1000 + 0.5)
        nodes[1].start()
        log("n2 restarted")
        # n3 comes back at once, within its lease: it gives its previous
        # run's claims back itself (its heartbeat would renew them)
        log("SIGKILL n3 and restart it at once (%d jobs submitted)" % len(done_sub))
        nodes[2].kill()
        nodes[2].start()
        log("n3 restarted")
        events["killed"] = True
        while len(done_sub) < pg_at:
            time.sleep(0.01)
        live = h.query("SELECT count(*) FROM cuzk_jobs WHERE state IN ('queued', 'running')")
        log("restarting PostgreSQL (%d jobs submitted, %d queued or running)" % (len(done_sub), live))
        if not live:
            fail("nothing was running when PostgreSQL restarted: the test would not test it")
        r = h.cmd("restart")
        if r != "restarted":
            fail("pg restart: %s" % r)
        log("PostgreSQL restarted")
        events["pg"] = True

    done_sub = []
    ids = {}
    ch = threading.Thread(target=chaos)
    ch.start()

    def one(jb):
        jid = submit(nodes, jb["i"] % 3, {"circuit": CIRCUIT, "payload": {"x0": jb["x0"]}, "partitions": jb["parts"],
                                          "priority": jb["prio"], "request_id": "many-%d" % jb["i"]})
        ids[jb["i"]] = jid
        done_sub.append(jb["i"])
        if jb["cancel"]:
            time.sleep(rnd.random() * 0.05)

            def fn(n):
                code, j = n.call("POST", "/v1/jobs/%d/cancel" % jid)
                if code == 200:
                    return True, "cancelled"
                if code == 409:
                    return True, j.get("state")
                if code == 503:
                    return False, "503"
                fail("cancel %d on %s: %d %s" % (jid, n.name, code, j))
            jb["cancel_answer"] = retrying(nodes, fn, "cancel %d" % jid)

    t_sub = time.monotonic()
    with cf.ThreadPoolExecutor(8) as ex:
        for f in [ex.submit(one, jb) for jb in jobs]:
            f.result()
    log("%d jobs submitted in %.1f s" % (njobs, time.monotonic() - t_sub))
    ch.join()
    if not events.get("killed") or not events.get("pg"):
        fail("the chaos did not happen: %s" % events)
    if len(set(ids.values())) != njobs:
        fail("%d distinct job ids for %d jobs" % (len(set(ids.values())), njobs))

    # every job awaited through a random node, twice (two nodes must agree)
    results = {}

    def wait_one(jb):
        jid = ids[jb["i"]]
        a = await_terminal(nodes, jid)
        b = await_terminal(nodes, jid)
        if a["state"] != b["state"] or a.get("proof_b64") != b.get("proof_b64"):
            fail("job %d ended twice differently: %s / %s" % (jid, a["state"], b["state"]))
        results[jb["i"]] = a

    with cf.ThreadPoolExecutor(8) as ex:
        for f in [ex.submit(wait_one, jb) for jb in jobs]:
            f.result()
    log("all %d jobs terminal" % njobs)
    ndone = ncanc = 0
    for jb in jobs:
        r = results[jb["i"]]
        if jb["cancel"]:
            want = "cancelled" if jb["cancel_answer"] == "cancelled" else jb["cancel_answer"]
            if r["state"] != want:
                fail("job %d (cancel answered %s) ended %s" % (ids[jb["i"]], jb["cancel_answer"], r["state"]))
        elif r["state"] != "done":
            fail("job %d ended %s: %s" % (ids[jb["i"]], r["state"], r.get("error")))
        if r["state"] == "done":
            ndone += 1
            if r["num_partitions"] != jb["parts"] or len(base64.b64decode(r["proof_b64"])) != 192 * jb["parts"]:
                fail("job %d: %d partitions, proof of %d bytes" % (ids[jb["i"]], r["num_partitions"],
                                                                    len(base64.b64decode(r["proof_b64"]))))
        else:
            ncanc += 1

    # every DONE proof verifies offline
    t_v = time.monotonic()
    bad = []

    def ver(jb):
        r = results[jb["i"]]
        if r["state"] != "done":
            return
        rc, out = verify(cuzk, params, work, CIRCUIT, jb["x0"], jb["parts"], r["proof_b64"], str(jb["i"]))
        if rc != 0:
            bad.append("job %d: %s" % (ids[jb["i"]], out))
    with cf.ThreadPoolExecutor(2) as ex:
        list(ex.map(ver, jobs))
    if bad:
        fail("%d proofs do not verify, e.g. %s" % (len(bad), bad[0]))
    log("%d DONE proofs verified in %.1f s (%d cancelled)" % (ndone, time.monotonic() - t_v, ncanc))

    # the store's rows
    q = h.query
    if q("SELECT count(*) FROM cuzk_jobs") - base_jobs != njobs:
        fail("the store holds %d jobs, %d were submitted" % (q("SELECT count(*) FROM cuzk_jobs") - base_jobs, njobs))
    left = q("SELECT count(*) FROM cuzk_partitions WHERE state IN ('queued', 'claimed')")
    live = q("SELECT count(*) FROM cuzk_jobs WHERE state IN ('queued', 'running')")
    if left or live:
        fail("left in the store: %d partitions queued or claimed, %d jobs queued or running" % (left, live))
    missing = q("SELECT count(*) FROM cuzk_partitions p JOIN cuzk_jobs j ON j.id = p.job_id WHERE j.state = 'done'"
                " AND (p.state <> 'done' OR p.proof IS NULL OR p.completed_by IS NULL OR p.completed_at IS NULL)")
    if missing:
        fail("%d partitions of DONE jobs lack their one stored proof or completing node" % missing)
    parts_done = q("SELECT count(*) FROM cuzk_partitions p JOIN cuzk_jobs j ON j.id = p.job_id"
                   " WHERE j.state = 'done' AND j.request_id LIKE 'many-%'")
    want = sum(jb["parts"] for jb in jobs if results[jb["i"]]["state"] == "done")
    if parts_done != want:
        fail("%d partition rows for DONE jobs, %d expected" % (parts_done, want))
    dup = q("SELECT count(*) FROM (SELECT job_id, k FROM cuzk_partitions GROUP BY job_id, k HAVING count(*) > 1) d")
    if dup:
        fail("%d (job, partition) pairs stored twice" % dup)
    nodes_used = q("SELECT count(DISTINCT completed_by) FROM cuzk_partitions p JOIN cuzk_jobs j ON j.id = p.job_id"
                   " WHERE j.request_id LIKE 'many-%'")
    if nodes_used < 3:
        fail("only %d nodes completed partitions" % nodes_used)
    st = {}
    for n in nodes:
        code, s = n.call("GET", "/v1/status")
        st[n.name] = s["store"]
    redone = q("SELECT count(*) FROM cuzk_partitions p JOIN cuzk_jobs j ON j.id = p.job_id"
               " WHERE j.request_id LIKE 'many-%' AND p.attempts > 1")
    for n in nodes[1:]:
        with open(n.logf) as f:
            back = [l.strip() for l in f if "from its previous run" in l]
        log("%s after its restart: %s" % (n.name, back[0] if back else "nothing of its previous run left"))
    log("partitions claimed more than once: %d" % redone)
    log("store counters: " + ", ".join("%s claims=%d completions=%d duplicates=%d lost=%d reclaimed=%d" % (
        k, v["claims"], v["completions"], v["duplicates"], v["lost_leases"], v["reclaimed"]) for k, v in st.items()))
    code, m = 0, None
    c = UnixHTTP(nodes[0].sock, 10)
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    c.close()
    if 'cuzk_store_completions_total{node_id="n1"}' not in text:
        fail("/metrics lacks cuzk_store_completions_total")


def test_operator_listing(h, cuzk):
    """`cuzk store nodes`: every node that ran is listed with what it proved,
    nothing is held once the queue is empty, and the listing registers
    nothing itself."""
    before = h.query("SELECT count(*) FROM cuzk_nodes")
    r = subprocess.run([cuzk, "store", "nodes", "--conninfo", h.conninfo, "--json"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    if r.returncode != 0:
        fail("cuzk store nodes --json: exit %d: %s" % (r.returncode, r.stderr))
    listed = {n["node_id"]: n for n in json.loads(r.stdout)["nodes"]}
    for name in ("n1", "n2", "n3", "g1"):
        if name not in listed:
            fail("cuzk store nodes does not list %s: %s" % (name, sorted(listed)))
    for name in ("n1", "n2", "n3"):
        n = listed[name]
        done = h.query("SELECT count(*) FROM cuzk_partitions WHERE completed_by = '%s' AND state = 'done'" % name)
        if n["completed"] != done or n["completed"] < 1 or n["claimed"] != 0 or n["assembling"] != 0:
            fail("cuzk store nodes: %s listed as %s (the store: %d partitions completed)" % (name, n, done))
    if not listed["n1"]["address"].startswith("http=unix:"):
        fail("cuzk store nodes: n1's address is %r (want its configured listener)" % listed["n1"]["address"])
    if h.query("SELECT count(*) FROM cuzk_nodes") != before:
        fail("cuzk store nodes registered itself in cuzk_nodes")
    r = subprocess.run([cuzk, "store", "nodes", "--conninfo", h.conninfo], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    if r.returncode != 0 or "last heartbeat" not in r.stdout or "%d nodes" % len(listed) not in r.stdout:
        fail("cuzk store nodes (table): exit %d:\n%s%s" % (r.returncode, r.stdout, r.stderr))
    print(r.stdout, end="", flush=True)
    for argv, rc, frag in ((["store"], 2, "a subcommand is required"),
                           (["store", "nodes"], 2, "--conninfo C is required"),
                           (["store", "nodez"], 2, "unknown subcommand 'nodez'"),
                           (["store", "nodes", "--conninfo", "host=/nonexistent-dir dbname=x"], 3,
                            "cannot connect")):
        r = subprocess.run([cuzk] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        if r.returncode != rc or frag not in r.stderr:
            fail("cuzk %s: exit %d (want %d), stderr: %s" % (" ".join(argv), r.returncode, rc, r.stderr))
    log("cuzk store nodes: %s" % ", ".join("%s completed %d" % (k, listed[k]["completed"])
                                          for k in ("n1", "n2", "n3")))


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        print(__doc__)
        return 2
    cuzkd, cuzk, harness = args[:3]
    njobs = 2000
    if "--jobs" in args:
        njobs = int(args[args.index("--jobs") + 1])
    work = tempfile.mkdtemp(prefix="cz-nodes-")
    os.chmod(work, 0o755)
    h = Harness(harness)
    nodes = []
    ok = False
    try:
        params = os.path.join(work, "params")
        for c in (CIRCUIT, ONLY_N1):
            r = subprocess.run([cuzk, "setup", "--circuit", c, "--param-dir", params, "--threads", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                fail("cuzk setup %s: %s" % (c, r.stdout))
        nodes = [Node(work, "n1", cuzkd, h.conninfo, params, "mulchain-*"),
                 Node(work, "n2", cuzkd, h.conninfo, params, CIRCUIT),
                 Node(work, "n3", cuzkd, h.conninfo, params, CIRCUIT)]
        for n in nodes:
            n.start()
        log("PostgreSQL and 3 nodes up (%s)" % h.conninfo)
        test_refusals(cuzkd, work)
        test_across_nodes(h, nodes, cuzk, params, work)
        g = test_grpc(h, nodes, cuzkd, params, work)
        if g and g.stop() != 0:
            fail("g1 exited %s after SIGTERM (see %s)" % (g.p.returncode, g.logf))
        test_database_outage(h, nodes, cuzk, params, work)
        test_many_jobs(h, nodes, cuzk, params, work, njobs)
        test_operator_listing(h, cuzk)
        for n in nodes:
            rc = n.stop()
            if rc != 0:
                fail("%s exited %s after SIGTERM (see %s)" % (n.name, rc, n.logf))
        # run with sanitizer builds of cuzkd: a report is a failure, also
        # from a node that was killed (and so never exited with one)
        for n in nodes:
            with open(n.logf) as f:
                text = f.read()
            for mark in ("WARNING: ThreadSanitizer", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                         "runtime error:"):
                if mark in text:
                    fail("%s's log has a sanitizer report (%s): see %s" % (n.name, mark, n.logf))
        log("PASS")
        ok = True
        return 0
    finally:
        for n in nodes:
            if n.p and n.p.poll() is None:
                n.p.kill()
                n.p.wait()
        h.stop()
        if ok:
            shutil.rmtree(work, ignore_errors=True)
        else:
            for n in nodes:
                try:
                    with open(n.logf) as f:
                        tail = f.readlines()[-15:]
                    print("---- %s (last lines) ----\n%s" % (n.name, "".join(tail)))
                except OSError:
                    pass
            print("work directory kept: " + work)


if __name__ == "__main__":
    sys.exit(main())
