#!/usr/bin/python3
"""Figures for the job store (BENCHMARKS.md "Job store (PostgreSQL)"); not a test.

Throughput of tiny real Groth16 jobs (mulchain-8, ~5 ms a partition) on
N = 1, 2, 3 cuzkd nodes sharing one PostgreSQL (pg_harness_main: a
throw-away server, fsync off), and the per-partition overhead of postgres
mode against memory mode (the same jobs on one node). Every node runs one
synthesis and one prover worker with one compute thread, so the figures
measure the store's coordination, not the prover.

Usage: tools/bench_store.py BUILD_DIR [--jobs N] [--partitions P] [--json FILE]
  BUILD_DIR: a build with cuzkd, cuzk and tests/store/pg_harness_main.
Prints a table, then one JSON object (also written to --json FILE).
"""
import concurrent.futures as cf
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "store"))
import test_store_nodes as t  # noqa: E402  (the harness and node helpers)

CIRCUIT = "mulchain-8"


class MemNode(t.Node):
    """A node in memory mode (no [store] section)."""

    def __init__(self, work, name, exe, params):
        super().__init__(work, name, exe, "unused", params, "")
        with open(self.ini, "w") as f:
            f.write("[daemon]\nlisten = unix:%s\nlog_level = warn\nmax_connections = 512\n"
                    "[backend]\ntype = groth16\nparam_dir = %s\nthreads = 1\nauto_setup = false\n"
                    "[engine]\nmemory_budget = 2G\npartition_workers = 1\nworkers_per_device = 1\n"
                    % (self.sock, params))


def run_jobs(nodes, njobs, parts, tag):
    """Submits njobs jobs of parts partitions round-robin, awaits all;
    returns seconds from the first submission to the last proof."""
    rnd = random.Random(7)
    ids = [None] * njobs
    t0 = time.monotonic()

    def sub(i):
        ids[i] = t.submit(nodes, i % len(nodes), {"circuit": CIRCUIT, "payload": {"x0": str(rnd.randrange(1, 1 << 60))},
                                                  "partitions": parts, "request_id": "%s-%d" % (tag, i)})

    def wait(i):
        r = t.await_terminal(nodes, ids[i])
        if r["state"] != "done":
            t.fail("bench job %d ended %s: %s" % (ids[i], r["state"], r.get("error")))

    with cf.ThreadPoolExecutor(8) as ex:
        list(ex.map(sub, range(njobs)))
        list(ex.map(wait, range(njobs)))
    return time.monotonic() - t0


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    build = args[0]
    njobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else 300
    parts = int(args[args.index("--partitions") + 1]) if "--partitions" in args else 2
    out_json = args[args.index("--json") + 1] if "--json" in args else None
    cuzkd = os.path.join(build, "src/daemon/cuzkd")
    cuzk = os.path.join(build, "src/cli/cuzk")
    harness = os.path.join(build, "tests/store/pg_harness_main")
    work = tempfile.mkdtemp(prefix="cz-bench-store-")
    os.chmod(work, 0o755)
    params = os.path.join(work, "params")
    r = subprocess.run([cuzk, "setup", "--circuit", CIRCUIT, "--param-dir", params, "--threads", "2"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        t.fail("cuzk setup: " + r.stdout)
    h = t.Harness(harness)
    rows = []
    try:
        m = MemNode(work, "mem", cuzkd, params)
        m.start()
        run_jobs([m], 20, parts, "warm-mem")
        secs = run_jobs([m], njobs, parts, "mem")
        m.stop()
        rows.append({"mode": "memory", "nodes": 1, "seconds": secs})
        for n in (1, 2, 3):
            nodes = [t.Node(work, "b%d-n%d" % (n, i + 1), cuzkd, h.conninfo, params, "") for i in range(n)]
            for nd in nodes:
                nd.start()
            run_jobs(nodes, 20, parts, "warm-%d" % n)
            secs = run_jobs(nodes, njobs, parts, "pg%d" % n)
            for nd in nodes:
                nd.stop()
            rows.append({"mode": "postgres", "nodes": n, "seconds": secs})
    finally:
        h.stop()
        shutil.rmtree(work, ignore_errors=True)
    np_ = njobs * parts
    for row in rows:
        row["jobs_per_s"] = njobs / row["seconds"]
        row["partitions_per_s"] = np_ / row["seconds"]
        row["ms_per_partition"] = 1000 * row["seconds"] / np_
    mem = rows[0]["ms_per_partition"]
    overhead = rows[1]["ms_per_partition"] - mem
    cpu = subprocess.run("lscpu | grep 'Model name' | sed 's/.*: *//'", shell=True, stdout=subprocess.PIPE,
                         text=True).stdout.strip()
    avx512 = "avx512f" in open("/proc/cpuinfo").read()
    print("%d jobs of %d partitions (%s), per configuration; CPU: %s (%s), %d online CPUs"
          % (njobs, parts, CIRCUIT, cpu, "AVX-512" if avx512 else "no AVX-512", os.cpu_count()))
    print("%-9s %5s %9s %7s %12s %14s" % ("mode", "nodes", "seconds", "jobs/s", "partitions/s", "ms/partition"))
    for row in rows:
        print("%-9s %5d %9.2f %7.1f %12.1f %14.2f" % (row["mode"], row["nodes"], row["seconds"], row["jobs_per_s"],
                                                      row["partitions_per_s"], row["ms_per_partition"]))
    print("postgres overhead per partition (1 node vs memory): %.2f ms" % overhead)
    res = {"circuit": CIRCUIT, "jobs": njobs, "partitions_per_job": parts, "cpu": cpu, "avx512": avx512,
           "cpus": os.cpu_count(), "rows": rows, "postgres_overhead_ms_per_partition": overhead}
    print(json.dumps(res))
    if out_json:
        with open(out_json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
