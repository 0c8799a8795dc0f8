#!/usr/bin/env bash
# cuzkd's live status page (GET /) in a real browser: Debian's headless
# Chromium loads the page from a running cuzkd (test back-end, TCP on
# 127.0.0.1, a bearer token), the page's own JavaScript fetches
# /v1/status and /v1/timeline with the token from the URL fragment, and
# the rendered DOM must show the daemon's real numbers (read from
# /v1/status here) and circuit names; the screenshot must be a real
# picture of the page. Chromium missing is a failure, not a skip (CI
# installs it through tools/install-deps.sh).
#   usage: test_status_page.sh CUZKD
set -euo pipefail
cuzkd=$1
py=/usr/bin/python3 # not a pyenv one: only the standard library is used
ok()  { echo "ok - $*"; }
bad() { echo "not ok - $*"; [ -f "${t:-/nonexistent}/cuzkd.log" ] && sed 's/^/  log: /' "$t/cuzkd.log" | tail -40; exit 1; }

chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || bad "chromium is not installed (Debian package 'chromium'; run tools/install-deps.sh)"
[ -x "$py" ] || bad "$py is missing (Debian package python3)"

t=$(mktemp -d /tmp/cuzkd-page-XXXXXX)
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -rf "$t"
}
trap cleanup EXIT

token=page-test-token-0123456789
printf '%s\n' "$token" > "$t/token"
chmod 600 "$t/token"
# The slow job's synthesis (120 s, both synthesis workers) holds the queue
# still while the browser looks; shutdown cancels it (drain off).
cat > "$t/cuzkd.ini" <<EOF
[daemon]
listen = 127.0.0.1:0
token_file = $t/token
log_level = info
[backend]
type = test
param_dir = $t
[engine]
memory_budget = 1G
partition_workers = 2
workers_per_device = 1
drain_on_shutdown = false
[test]
synth_ms = 5
prove_ms = 5
finish_ms = 1
EOF
"$cuzkd" --config "$t/cuzkd.ini" > "$t/cuzkd.log" 2>&1 &
pid=$!
addr=
for _ in $(seq 200); do
  addr=$(grep -o 'ready: listening on tcp:[0-9.]*:[0-9]*' "$t/cuzkd.log" | sed 's/.*tcp://' || true)
  [ -n "$addr" ] && break
  kill -0 "$pid" 2>/dev/null || bad "cuzkd exited before it was ready"
  sleep 0.1
done
[ -n "$addr" ] || bad "cuzkd did not print its address in 20 s"
ok "cuzkd listening on $addr"

# Jobs: 2 done + 1 failed on test-done, 1 running on test-slow, 3 queued
# on test-q (one per priority). Then the status the page must show.
ADDR=$addr TOKEN=$token "$py" - > "$t/expect" <<'EOF' || bad "setting up the jobs"
import json, os, sys, time, urllib.request, urllib.error
base = "http://" + os.environ["ADDR"]
hdr = {"Authorization": "Bearer " + os.environ["TOKEN"], "Content-Type": "application/json"}
def call(method, path, body=None, headers=hdr):
    req = urllib.request.Request(base + path, method=method, headers=headers,
                                 data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
def job(body):
    code, b = call("POST", "/v1/jobs", body)
    assert code == 201, (code, b)
    return json.loads(b)["id"]
for p in ("a", "b", "fail=synth:0"):
    j = job({"circuit": "test-done", "payload": p, "partitions": 2})
    code, b = call("POST", "/v1/jobs/%d/await?timeout_ms=30000" % j)
    assert code == 200 and json.loads(b)["state"] in ("done", "failed"), b
job({"circuit": "test-slow", "payload": "synth_ms=120000", "partitions": 2})
# the slow job's two partitions hold both synthesis workers before the
# test-q jobs arrive: submitted at once, a busy machine could let the
# high-priority one take a worker first and finish, and the queue never
# showed three
deadline = time.time() + 30
while True:
    code, b = call("GET", "/v1/status")
    assert code == 200, (code, b)
    if json.loads(b)["engine"]["partitions_synthesizing"] == 2:
        break
    assert time.time() < deadline, "the slow job's partitions did not start: %r" % json.loads(b)["engine"]
    time.sleep(0.05)
for prio in ("high", "normal", "low"):
    job({"circuit": "test-q", "payload": "q-" + prio, "priority": prio})
deadline = time.time() + 30
while True:
    code, b = call("GET", "/v1/status")
    assert code == 200, (code, b)
    s = json.loads(b)
    e = s["engine"]
    if e["jobs_running"] == 1 and e["jobs_queued"] == 3 and e["partitions_synthesizing"] == 2:
        break
    assert time.time() < deadline, "queue did not settle: %r" % e
    time.sleep(0.05)
# the token rule: the page itself is public, its data is not
code, page = call("GET", "/", headers={})
assert code == 200 and b"<title>cuzkd status</title>" in page, code
code, _ = call("GET", "/v1/status", headers={})
assert code == 401, code
json.dump({"completed": e["jobs_completed"], "failed": e["jobs_failed"], "queued": e["jobs_queued"],
           "running": e["jobs_running"], "version": s["daemon"]["version"],
           "devices": [[str(v["index"]), v["name"]] for v in e["device"]],
           "queue": [c["circuit"] for c in s["circuits"]], "params": [p["circuit"] for p in s["params"]]},
          sys.stdout)
EOF
ok "jobs submitted; /v1/status: $(cat "$t/expect")"

# Virtual time: the page's fetches and its 2 s poll timer run to
# completion without real waiting; the budget covers a few polls.
chrome() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$t/chrome" --virtual-time-budget=6000 "$@" 2> "$t/chrome.err"
}
url="http://$addr/#token=$token"
chrome --dump-dom "$url" > "$t/dom.html" || bad "chromium --dump-dom failed: $(tail -5 "$t/chrome.err")"
[ -s "$t/dom.html" ] || bad "chromium dumped an empty DOM"
"$py" - "$t/expect" "$t/dom.html" <<'EOF' || bad "the rendered page does not show the daemon's numbers"
import json, re, sys
want = json.load(open(sys.argv[1]))
dom = open(sys.argv[2], encoding="utf-8").read()
def field(i):
    m = re.search(r'id="%s"[^>]*>([^<]*)<' % i, dom)
    return m.group(1) if m else None
errors = []
def check(what, got, expect):
    if got != expect:
        errors.append("%s: page shows %r, /v1/status says %r" % (what, got, expect))
check("jobs_completed", field("jobs_completed"), str(want["completed"]))
check("jobs_failed", field("jobs_failed"), str(want["failed"]))
check("jobs_queued", field("jobs_queued"), str(want["queued"]))
check("jobs_running", field("jobs_running"), str(want["running"]))
check("version", field("version"), want["version"])
state = field("state") or ""
if not state.startswith("updated"):
    errors.append("the page did not load its data: state %r" % state)
queue = re.findall(r'<tr class="circuit" data-circuit="([^"]*)"', dom)
params = re.findall(r'<tr class="param" data-circuit="([^"]*)"', dom)
check("queue circuits", queue, want["queue"])
check("resident parameter circuits", params, want["params"])
for name in ("test-q", "test-slow"):
    if name not in queue:
        errors.append("circuit %s missing from the queue table" % name)
if "test-done" not in params:
    errors.append("test-done missing from the resident parameters")
# the test-q row: one job queued at each of critical/high/normal/low = 0/1/1/1
m = re.search(r'data-circuit="test-q"><td>test-q</td>((?:<td>[^<]*</td>)+)</tr>', dom)
cells = re.findall(r"<td>([^<]*)</td>", m.group(1)) if m else []
check("test-q row (critical, high, normal, low, queued, running)", cells, ["0", "1", "1", "1", "3", "0"])
# one row per device of /v1/status (index and name); memory mode: no store section
devs = re.findall(r'<tr class="device" data-device="[0-9]+"><td>([^<]*)</td><td>([^<]*)</td>', dom)
check("device rows (index, name)", [list(d) for d in devs], want["devices"])
if not re.search(r'id="store_section" style="display: ?none;?"', dom):
    errors.append("the job-store section is shown without a job store")
if 'class="stage-synth"' not in dom:
    errors.append("the timeline chart was not drawn")
if errors:
    print("\n".join(errors), file=sys.stderr)
    sys.exit(1)
EOF
ok "the DOM shows completed/failed/queued/running, the version, the queue by circuit and priority, the parameters, the devices, the chart"

chrome --window-size=1280,1600 --screenshot="$t/page.png" "$url" > /dev/null || bad "chromium --screenshot failed: $(tail -5 "$t/chrome.err")"
"$py" - "$t/page.png" <<'EOF' || bad "the screenshot is not a picture of the page"
import struct, sys, zlib
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
assert len(b) > 20000, "only %d bytes" % len(b)
w, h = struct.unpack(">II", b[16:24])
assert (w, h) == (1280, 1600), "size %dx%d, asked for 1280x1600" % (w, h)
# decode the image data: a page of text, tables and a chart has many
# colours on many rows; a blank or single-colour image has one
off, idat = 8, b""
while off < len(b):
    n, kind = struct.unpack(">I4s", b[off:off + 8])
    if kind == b"IDAT":
        idat += b[off + 8:off + 8 + n]
    off += 12 + n
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}[b[25]]
stride = w * bpp + 1
rows = [raw[i * stride:(i + 1) * stride] for i in range(h)]
prev = bytearray(stride - 1)
pixels = set()
varied = 0
for r in rows:  # undo the PNG row filters (RFC 2083 6.3)
    f, cur = r[0], bytearray(r[1:])
    for i in range(len(cur)):
        a = cur[i - bpp] if i >= bpp else 0
        up = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: cur[i] = (cur[i] + a) & 255
        elif f == 2: cur[i] = (cur[i] + up) & 255
        elif f == 3: cur[i] = (cur[i] + (a + up) // 2) & 255
        elif f == 4:
            p = a + up - c; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
            cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
    row_px = {bytes(cur[i:i + 3]) for i in range(0, len(cur), bpp)}
    varied += len(row_px) > 1
    pixels |= row_px
    prev = cur
assert len(pixels) > 20, "only %d colours" % len(pixels)
assert varied > 100, "only %d rows are not a single colour" % varied
print("%d bytes, %dx%d, %d colours, %d varied rows" % (len(b), w, h, len(pixels), varied))
EOF
ok "screenshot: a 1280x1600 PNG of the page, many colours on many rows"

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
[ "$rc" = 0 ] || bad "cuzkd exited $rc after SIGTERM"
grep -q 'stopped cleanly' "$t/cuzkd.log" || bad "cuzkd did not log a clean stop"
ok "cuzkd stopped cleanly"
