#!/usr/bin/env bash
# tools/device-check-cuzkd.sh — cuzkd proving on the GPU, end to end.
#
# The last stage of tools/device-check.sh (which checks the kernels); also
# runnable alone. Builds nothing: it takes an existing build directory
# (configured with the CUDA layer, e.g. cmake -DCUZK_CUDA=ON).
#
#   tools/device-check-cuzkd.sh [--dry-run] [BUILD_DIR] [TIME_LIMIT_S]
#     BUILD_DIR     default: build
#     TIME_LIMIT_S  the whole check, default 240 (each step gets what is left)
#   Environment (optional):
#     CUZK_DC_CIRCUIT     circuit (default mulchain-65000: a 2^16 domain)
#     CUZK_DC_JOBS        jobs (default 30)
#     CUZK_DC_PARTITIONS  partitions per job (default 10: 300 partitions)
#     CUZK_DC_PARAM_DIR   a parameter directory to reuse (default: a fresh
#                         one; the daemon's auto_setup makes the set once)
#     OUT                 where device-check-cuzkd.txt is written (if set)
#     CUZK_DC_ALLOW_CPU=1 run the whole flow on a machine without a GPU (the
#                         script's own test: GPU_END lines then time the
#                         CPU device's lock; GPU memory is not measured)
#
# What it does: starts cuzkd on the GPU(s) with a temporary config
# (backend.gpus = auto, auto_setup, a TIMELINE file), waits for its socket,
# refuses to go on without a GPU ("no CUDA device", exit 2), proves one
# warm-up job (parameters uploaded to the GPUs, pools warmed), reads
# /v1/status and the GPUs' memory, runs `cuzk bench batch --daemon` for the
# partitions (proofs verified by the bench against the parameter files),
# reads /v1/status and the GPUs' memory again, stops the daemon, and
# prints: s/proof, gpu_ms per partition p50/p90 (TIMELINE GPU_END lines),
# peak daemon RSS (VmHWM), each GPU's memory before/after (FAIL above 4 MiB of
# drift: device memory must stay flat over proofs), device failures and
# quarantines from /v1/status, then `RESULT: PASS|FAIL (reasons)`.
# Exit status: 0 PASS, 1 FAIL, 2 no CUDA device / missing binaries / usage.
set -u -o pipefail

DRY=0
ARGS=()
for a in "$@"; do
    case "$a" in
    --dry-run) DRY=1 ;;
    -h | --help)
        sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    -*)
        echo "device-check-cuzkd: unknown option '$a' (see --help)" >&2
        exit 2
        ;;
    *) ARGS+=("$a") ;;
    esac
done
BUILD=${ARGS[0]:-build}
LIMIT=${ARGS[1]:-240}
case "$LIMIT" in
'' | *[!0-9]*)
    echo "device-check-cuzkd: TIME_LIMIT_S must be a number of seconds, got '$LIMIT'" >&2
    exit 2
    ;;
esac
CIRCUIT=${CUZK_DC_CIRCUIT:-mulchain-65000}
JOBS=${CUZK_DC_JOBS:-30}
PARTS=${CUZK_DC_PARTITIONS:-10}
DRIFT_MAX_MIB=4
CUZKD="$BUILD/src/daemon/cuzkd"
CUZK="$BUILD/src/cli/cuzk"
T0=$(date +%s)

left() { echo $((LIMIT - ($(date +%s) - T0))); }
say() { echo "$*"; [ -n "${REPORT:-}" ] && echo "$*" >>"$REPORT"; return 0; }

gpu_visible() { [ -e /dev/nvidiactl ] || [ -e /dev/nvidia0 ] || command -v nvidia-smi >/dev/null 2>&1; }

if [ "$DRY" = 1 ]; then
    cat <<EOF
device-check-cuzkd (dry run): nothing is started.
  build dir      $BUILD ($( [ -x "$CUZKD" ] && echo "cuzkd found" || echo "cuzkd NOT found: $CUZKD" ); $( [ -x "$CUZK" ] && echo "cuzk found" || echo "cuzk NOT found: $CUZK" ))
  time limit     ${LIMIT} s
  GPU visible    $(gpu_visible && echo yes || echo "no (a real run would say 'no CUDA device' and exit 2)")
  1. temp dir with cuzkd.ini: [daemon] listen = unix:<tmp>/cuzkd.sock, timeline_file = <tmp>/timeline.log;
     [backend] gpus = auto, auto_setup = true, param_dir = ${CUZK_DC_PARAM_DIR:-<tmp>/params}
  2. $CUZKD --config <tmp>/cuzkd.ini (log <tmp>/cuzkd.log); wait for the socket;
     its log must say "proving on N GPU(s)" (else: no CUDA device, exit 2)
  3. warm-up: $CUZK bench batch --daemon unix:<tmp>/cuzkd.sock --circuit $CIRCUIT --count 1 --partitions 2 --concurrency 1
  4. before: $CUZK client --socket unix:<tmp>/cuzkd.sock status; nvidia-smi --query-gpu=index,memory.used
  5. $CUZK bench batch --daemon unix:<tmp>/cuzkd.sock --daemon-pid <pid> --circuit $CIRCUIT --count $JOBS --partitions $PARTS --concurrency 4
     ($((JOBS * PARTS)) partitions; proofs verified by the bench)
  6. after: status and GPU memory again; SIGTERM to cuzkd; VmHWM of cuzkd read before it exits
  7. report: s/proof, gpu_ms p50/p90 (GPU_END lines of the main batch), peak RSS,
     GPU memory before/after (FAIL above ${DRIFT_MAX_MIB} MiB drift), device failures/quarantines,
     then RESULT: PASS|FAIL
EOF
    exit 0
fi

for b in "$CUZKD" "$CUZK"; do
    if [ ! -x "$b" ]; then
        echo "device-check-cuzkd: $b not found: build it first (cmake --build $BUILD --target cuzkd cuzk)" >&2
        exit 2
    fi
done
CPU_OK=${CUZK_DC_ALLOW_CPU:-0}
if [ "$CPU_OK" != 1 ] && ! gpu_visible; then
    echo "no CUDA device (no /dev/nvidia*, no nvidia-smi): nothing to check here"
    exit 2
fi
command -v python3 >/dev/null 2>&1 || { echo "device-check-cuzkd: python3 is needed to read the results" >&2; exit 2; }

TMP=$(mktemp -d /tmp/cuzk-dc-cuzkd.XXXXXX)
REPORT=${OUT:+$OUT/device-check-cuzkd.txt}
[ -n "$REPORT" ] && : >"$REPORT"
PD=${CUZK_DC_PARAM_DIR:-$TMP/params}
SOCK="$TMP/cuzkd.sock"
PID=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -TERM "$PID" 2>/dev/null
        for _ in $(seq 1 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$PID" 2>/dev/null
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

# CUDA ordinals in PCI order, as nvidia-smi numbers the GPUs
export CUDA_DEVICE_ORDER=PCI_BUS_ID
cat >"$TMP/cuzkd.ini" <<EOF
[daemon]
listen = unix:$SOCK
timeline_file = $TMP/timeline.log
[backend]
param_dir = $PD
auto_setup = true
gpus = auto
[engine]
device_memory = auto
device_quarantine_after = 3
EOF

FAILS=()
"$CUZKD" --config "$TMP/cuzkd.ini" >"$TMP/cuzkd.log" 2>&1 &
PID=$!
for _ in $(seq 1 150); do
    [ -S "$SOCK" ] && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.2
done
if [ ! -S "$SOCK" ]; then
    say "cuzkd did not start (log below)"
    tail -20 "$TMP/cuzkd.log"
    if grep -q "no CUDA device\|CUDA not built" "$TMP/cuzkd.log"; then say "no CUDA device"; exit 2; fi
    say "RESULT: FAIL (cuzkd did not start)"
    exit 1
fi
if [ "$CPU_OK" != 1 ] && ! grep -q "proving on [0-9]* GPU(s)" "$TMP/cuzkd.log"; then
    grep -m1 "no CUDA device\|CUDA not built\|proving on the CPU" "$TMP/cuzkd.log"
    say "no CUDA device: cuzkd proves on the CPU here; nothing to check"
    exit 2
fi
say "$(grep -m1 "proving on" "$TMP/cuzkd.log")"

status_json() { timeout 20 "$CUZK" client --socket "unix:$SOCK" status 2>/dev/null; }
gpu_mem_mib() { # "index:MiB,index:MiB,..." of memory.used per GPU ("" if nvidia-smi is missing)
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits 2>/dev/null |
        awk -F', *' '{printf "%s%s:%s", NR > 1 ? "," : "", $1, $2}'
}
NGPU=$(grep -m1 -o "proving on [0-9]* GPU(s)" "$TMP/cuzkd.log" | grep -o "[0-9][0-9]*" || echo 1)

# 3. warm-up: parameters made (auto_setup) and made resident on every GPU
# that proves one of its partitions (a GPU first used after the warm-up
# would count its parameter upload as drift: the report says which GPUs
# the drift check covers), pools warmed
T=$(left)
WPARTS=$((NGPU * 4 > 2 ? NGPU * 4 : 2))
if ! timeout "$T" "$CUZK" bench batch --daemon "unix:$SOCK" --param-dir "$PD" --circuit "$CIRCUIT" --count 2 \
    --partitions "$WPARTS" --concurrency 2 >"$TMP/warmup.txt" 2>&1; then
    say "warm-up job failed or ran past the time limit:"
    tail -15 "$TMP/warmup.txt"
    say "RESULT: FAIL (warm-up)"
    exit 1
fi
TL_SKIP=$(wc -l <"$TMP/timeline.log")
status_json >"$TMP/status-before.json"
MEM0=$(gpu_mem_mib)

# 5. the batch
T=$(left)
BRC=0
timeout "$T" "$CUZK" bench batch --daemon "unix:$SOCK" --daemon-pid "$PID" --param-dir "$PD" --circuit "$CIRCUIT" \
    --count "$JOBS" --partitions "$PARTS" --concurrency 4 >"$TMP/batch.txt" 2>&1 || BRC=$?
[ "$BRC" = 124 ] && FAILS+=("batch ran past the time limit (${LIMIT} s)")
[ "$BRC" != 0 ] && [ "$BRC" != 124 ] && FAILS+=("bench batch exit status $BRC (failed or unverified proofs)")
sleep 1 # a finished job's device memory is freed before its proof is returned; settle the counters anyway
status_json >"$TMP/status-after.json"
MEM1=$(gpu_mem_mib)
HWM=$(awk '/^VmHWM/ {print $2 " " $3}' "/proc/$PID/status" 2>/dev/null)
kill -TERM "$PID" 2>/dev/null
wait "$PID" 2>/dev/null
PID=

python3 - "$TMP" "$TL_SKIP" "$((JOBS * PARTS))" "${MEM0:-}" "${MEM1:-}" "$DRIFT_MAX_MIB" "${HWM:-?}" "$CPU_OK" \
    "${FAILS[@]+"${FAILS[@]}"}" \
    <<'EOF' | tee -a "${REPORT:-/dev/null}"
import json, re, sys
tmp, skip, want, mem0, mem1, drift_max, hwm, cpu_ok = sys.argv[1:9]
fails = list(sys.argv[9:])
skip, want, drift_max = int(skip), int(want), float(drift_max)
batch = open(tmp + "/batch.txt", errors="replace").read()
m = re.search(r"throughput \(batch wall / proofs\)\s+([0-9.]+)\s+s/proof", batch)
print("s/proof                 %s" % (m.group(1) if m else "?"))
if not m:
    fails.append("no throughput line in the bench output")
gpu, bad = [], 0
for i, line in enumerate(open(tmp + "/timeline.log", errors="replace")):
    if i < skip or " GPU_END " not in line:
        continue
    g = re.search(r"gpu_ms=([0-9.]+)", line)
    if g:
        gpu.append(float(g.group(1)))
    if "status=ok" not in line:
        bad += 1
gpu.sort()
def pct(p):
    return gpu[min(len(gpu) - 1, int(p * len(gpu)))] if gpu else float("nan")
print("gpu_ms per partition    p50 %.2f  p90 %.2f  (%d GPU_END lines, %d not ok)" % (pct(0.5), pct(0.9), len(gpu), bad))
if len(gpu) < want:
    fails.append("%d GPU_END lines for %d partitions" % (len(gpu), want))
if bad:
    fails.append("%d partitions failed on a device" % bad)
print("peak RSS (cuzkd VmHWM)  %s" % hwm)
def dev(path):
    try:
        return json.load(open(path))["engine"]
    except Exception as e:
        fails.append("cannot read %s: %s" % (path.rsplit("/", 1)[1], e))
        return None
b, a = dev(tmp + "/status-before.json"), dev(tmp + "/status-after.json")
def per_gpu(text):
    return {int(k): float(v) for k, v in (x.split(":") for x in text.split(",") if ":" in x)}
if mem0 and mem1:
    m0, m1 = per_gpu(mem0), per_gpu(mem1)
    warmed = {}  # CUDA ordinal -> proved in the warm-up (engine device names are "GPU <ordinal>: ...")
    for d in (b or {}).get("device", []):
        g = re.match(r"GPU (\d+):", d["name"])
        if g:
            warmed[int(g.group(1))] = d["partitions"] > 0
    checked = 0
    for k in sorted(m0):
        if k not in m1:
            continue
        dm = m1[k] - m0[k]
        note = ""
        if k in warmed and not warmed[k]:
            note = "  (first used after the warm-up: its parameter upload is in the drift, not checked)"
        elif k not in warmed:
            note = "  (not a cuzkd device, not checked)"
        print("GPU %d memory used (MiB) before %.0f  after %.0f  drift %+.0f%s" % (k, m0[k], m1[k], dm, note))
        if note:
            continue
        checked += 1
        if dm > drift_max:
            fails.append("GPU %d memory grew by %.0f MiB over the batch (limit %g MiB)" % (k, dm, drift_max))
    if not checked and cpu_ok != "1":
        fails.append("no GPU's memory drift could be checked")
else:
    print("GPU memory used         not measured (nvidia-smi missing)")
    if cpu_ok != "1":
        fails.append("GPU memory not measured")
if a:
    for d in a.get("device", []):
        print("device %d %-40s partitions %d  failures %d  quarantined %s  busy %.0f%%  memory %d/%d" % (
            d["index"], d["name"][:40], d["partitions"], d["failures"], d["quarantined"],
            100 * d["busy_fraction"], d["memory_used"], d["memory_total"]))
        if d["quarantined"]:
            fails.append("device %d quarantined: %s" % (d["index"], d["last_error"]))
    if b and a["jobs_failed"] != b["jobs_failed"]:
        fails.append("%d jobs failed" % (a["jobs_failed"] - b["jobs_failed"]))
    if a.get("device_retries", 0):
        print("device retries          %d" % a["device_retries"])
print("RESULT: %s%s" % ("FAIL" if fails else "PASS", " (" + "; ".join(fails) + ")" if fails else ""))
sys.exit(1 if fails else 0)
EOF
RC=${PIPESTATUS[0]}
if [ "$RC" != 0 ]; then
    echo "--- cuzkd log (tail) ---"
    tail -15 "$TMP/cuzkd.log"
    echo "--- bench (tail) ---"
    tail -15 "$TMP/batch.txt"
fi
exit "$RC"
