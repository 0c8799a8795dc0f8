#!/usr/bin/env bash
# The `cuzk` command line behaves like a Unix tool (docs/cli.md): every
# command and bench suite refuses unknown options, missing values and bad
# numbers by name with exit 2 before doing any work, accepts --opt=value,
# prints its usage on stdout with exit 0 for --help; --version; the exit
# statuses 1 (invalid proof) vs 3 (unreadable input); -o - writes the proof
# to stdout; and `cuzk client` against a cuzkd with the test back-end exits
# 4 for a failed or cancelled job and 5 on a timeout, naming the job.
# usage: test_cli_conventions.sh CUZK CUZKD SOURCE_DIR
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/flip_bit.sh"
cuzk=$(realpath "$1")
cuzkd=$(realpath "$2")
src=$(realpath "$3")
t=$(mktemp -d)
dpid=
cleanup() {
  if [ -n "$dpid" ]; then kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; fi
  rm -rf "$t"
}
trap cleanup EXIT
cd "$t"
nfail=0
npass=0
ok()  { echo "ok - $*"; npass=$((npass + 1)); }
bad() { echo "not ok - $*"; nfail=$((nfail + 1)); }

# expect RC FRAGMENT CMD...: CMD exits RC and (if FRAGMENT is not empty)
# says FRAGMENT on stderr; stdout in out.txt, stderr in err.txt
expect() {
  local want=$1 frag=$2; shift 2
  "$@" >out.txt 2>err.txt </dev/null
  local rc=$?
  if [ "$rc" != "$want" ]; then
    bad "$(echo "$@" | cut -c1-120): exit $rc, expected $want; stderr: $(head -c 300 err.txt)"
    return 1
  fi
  if [ -n "$frag" ] && ! grep -qF -- "$frag" err.txt; then
    bad "$(echo "$@" | cut -c1-120): stderr lacks '$frag': $(head -c 300 err.txt)"
    return 1
  fi
  ok "$(echo "$@" | cut -c1-100) -> $rc"
}

nosock=$t/no-daemon.sock

# --- unknown options: named, exit 2, nothing runs -----------------------
for cmd in "setup --circuit mulchain-64" "prove --circuit mulchain-64 -o x.bin" \
           "verify --circuit mulchain-64 --proof x.bin" "export-wtns --circuit mulchain-64 -o w.wtns" \
           "export-json --circuit mulchain-64 -o js" "seal --sector-size 2KiB" "c1 check c1.json" \
           "circuit-info --circuit mulchain-8" "gen-vanilla --preset shaped-12 -o v.json" \
           "client --socket $nosock health" "client --socket $nosock status" \
           "bench ntt" "bench msm" "bench merkle" "bench r1cs" "bench synth" "bench sdr" "bench params" \
           "bench prove" "bench fil-synth" "bench field" "bench batch" "bench single" "bench stress"; do
  # shellcheck disable=SC2086
  expect 2 "unknown option '--frobnicate'" $cuzk $cmd --frobnicate
done
expect 2 "unknown option '--thread'" $cuzk prove --circuit mulchain-64 --thread 1 -o x.bin
expect 2 "unknown option '--param'" $cuzk prove --circuit mulchain-64 --param P -o x.bin
expect 2 "unknown option '--partitons'" $cuzk client --socket $nosock submit --circuit test --payload x --partitons 3
expect 2 "unknown option '--frobnicate'" $cuzk client --frobnicate health
expect 2 "unknown command 'frobnicate'" $cuzk client --socket $nosock frobnicate
expect 2 "unknown command 'frobnicate'" $cuzk frobnicate
expect 2 "unknown suite 'frobnicate'" $cuzk bench frobnicate
# the usage error says where to look
grep -qF "(see cuzk bench ntt --help)" <($cuzk bench ntt --frobnicate 2>&1) && ok "error points to --help" \
  || bad "unknown option error does not point to --help"

# --- missing values, duplicates, values given to flags ------------------
expect 2 "--circuit needs a value" $cuzk circuit-info --circuit
expect 2 "--payload needs a value" $cuzk prove --circuit shaped-12 --payload --partitions 2 -o x.bin
expect 2 "--threads given twice" $cuzk bench ntt --threads 1 --threads 2
expect 2 "--json takes no value" $cuzk circuit-info --circuit mulchain-8 --json=yes
expect 2 "unexpected argument 'extra'" $cuzk circuit-info --circuit mulchain-8 extra
expect 2 "does not apply" $cuzk prove --zkey z.zkey --wtns w.wtns --proof p.json --public q.json --partitions 2

# --- --help: usage on stdout, exit 0, for every command and suite ------
for cmd in setup prove verify export-wtns export-json seal c1 circuit-info gen-vanilla client \
           "client submit" "client prove" "client await" "client status" "client cancel" "client metrics" \
           "client trace" "client health" "client preload" "client evict" \
           "bench ntt" "bench msm" "bench merkle" "bench r1cs" "bench synth" "bench sdr" "bench params" \
           "bench prove" "bench fil-synth" "bench field" "bench batch" "bench single" "bench stress" \
           "help" "help prove" "help bench ntt"; do
  for h in --help -h; do
    [ "$cmd" = help ] || [ "${cmd#help }" != "$cmd" ] && [ $h = -h ] && continue
    if [ "${cmd%% *}" = help ]; then args="$cmd"; else args="$cmd $h"; fi
    # shellcheck disable=SC2086
    $cuzk $args >out.txt 2>err.txt </dev/null
    rc=$?
    if [ $rc = 0 ] && grep -q '^usage: ' out.txt && [ ! -s err.txt ]; then ok "cuzk $args: usage on stdout"
    else bad "cuzk $args: exit $rc, stdout '$(head -c 120 out.txt)', stderr '$(head -c 200 err.txt)'"; fi
  done
done
grep -q -- '--threads T' <($cuzk bench ntt --help) && ok "bench ntt --help lists --threads" \
  || bad "bench ntt --help does not list its options"

# --- numbers: decimal, no sign, no leading zeros, no junk, no overflow --
for v in 010 -5 abc 99999999999999999999 1x "" +3; do
  expect 2 "--partitions: expected an integer 1..65536, got '$v'" \
    $cuzk prove --circuit mulchain-64 --payload p.json --partitions "$v" -o x.bin
  expect 2 "--threads: expected an integer 1..1024, got '$v'" $cuzk bench ntt --threads "$v"
  expect 2 "--timeout-ms: expected an integer 0..2000000000, got '$v'" \
    $cuzk client --socket $nosock --timeout-ms "$v" health
done
expect 2 "cuzk prove: --threads: expected an integer 0..1024, got '-5'" \
  $cuzk prove --circuit mulchain-64 --threads -5 -o x.bin
expect 2 "--partitions: expected an integer 1..65536, got '010'" \
  $cuzk client --socket $nosock submit --circuit test --payload x --partitions 010
expect 2 "job ID: expected" $cuzk client --socket $nosock await 17abc
expect 2 "--sector-id: expected" $cuzk seal --sector-size 2KiB --sector-id 0x10

# --- --opt=value works like --opt value ---------------------------------
expect 0 "" $cuzk circuit-info --circuit=mulchain-8 --json
grep -q '"circuit":"mulchain-8"' out.txt && ok "--circuit=mulchain-8 is the circuit" || bad "--opt=value: $(cat out.txt)"
expect 0 "" $cuzk bench ntt --log-n=4 --threads=1 --samples=1 --json
grep -q '"suite":"ntt"' out.txt && ok "bench ntt --log-n=4 ran" || bad "bench ntt --log-n=4: $(cat out.txt)"

# --- --version / version: the project version ---------------------------
want=$(sed -n 's/^project(cuzk VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
for v in --version version; do
  expect 0 "" $cuzk $v
  head -1 out.txt | grep -qx "cuzk $want" && ok "cuzk $v prints cuzk $want" || bad "cuzk $v: $(head -1 out.txt)"
done
grep -q '^field back-end: ' out.txt && ok "version names the field back-end" || bad "version: $(cat out.txt)"

# --- missing payload: a usage error naming --payload ----------------------
expect 2 "--payload" $cuzk prove --circuit shaped-12 -o x.bin
expect 2 "--payload" $cuzk verify --circuit shaped-12 --proof x.bin
expect 2 "--payload" $cuzk client --socket $nosock submit --circuit test

# --- setup / prove / verify: 1 invalid, 3 unreadable, -o - --------------
expect 0 "" $cuzk setup --circuit mulchain-64 -o mc.params --threads 2
expect 1 "--force" $cuzk setup --circuit mulchain-64 -o mc.params --threads 2
expect 0 "" $cuzk setup --circuit mulchain-64 -o mc.params --threads 2 --force
echo '{"x0": "5"}' > p.json
echo '{"x0": "6"}' > q.json
P=(--circuit mulchain-64 --params mc.params --partitions 2)
expect 0 "" $cuzk prove "${P[@]}" --payload p.json -o proof.bin
expect 0 "" $cuzk verify "${P[@]}" --payload p.json --proof proof.bin
expect 1 "INVALID" $cuzk verify "${P[@]}" --payload q.json --proof proof.bin
cp proof.bin bad.bin
flip_bit bad.bin 200
expect 1 "INVALID" $cuzk verify "${P[@]}" --payload p.json --proof bad.bin
head -c 191 proof.bin > short.bin
expect 1 "INVALID" $cuzk verify "${P[@]}" --payload p.json --proof short.bin
expect 3 "missing.bin" $cuzk verify "${P[@]}" --payload p.json --proof missing.bin
expect 3 "missing.json" $cuzk verify "${P[@]}" --payload missing.json --proof proof.bin
expect 3 "nowhere.params" $cuzk verify --circuit mulchain-64 --params nowhere.params --payload p.json \
  --partitions 2 --proof proof.bin
echo '{"x0": 5' > broken.json
expect 3 "x0" $cuzk prove "${P[@]}" --payload broken.json -o x.bin
# -o -: the proof on stdout (the progress line stays on stderr)
$cuzk prove "${P[@]}" --payload p.json -o - > stdout.bin 2>err.txt
[ "$(stat -c %s stdout.bin)" = 384 ] && ok "prove -o - wrote 384 bytes to stdout" \
  || bad "prove -o -: $(stat -c %s stdout.bin) bytes, $(cat err.txt)"
$cuzk verify "${P[@]}" --payload p.json --proof - < stdout.bin >out.txt 2>err.txt \
  && ok "the proof from stdout verifies (--proof - reads stdin)" || bad "verify --proof -: $(cat err.txt)"

# --- one default parameter directory: $CUZK_PARAM_DIR, else ./cuzk-params
mkdir -p "$t/wd" && cd "$t/wd"
expect 0 "" env -u CUZK_PARAM_DIR $cuzk setup --circuit mulchain-64
[ -s "$t/wd/cuzk-params/mulchain-64.params" ] && ok "setup without --param-dir: ./cuzk-params" \
  || bad "setup without --param-dir did not write ./cuzk-params/mulchain-64.params"
expect 0 "" env CUZK_PARAM_DIR="$t/envp" $cuzk setup --circuit mulchain-64
[ -s "$t/envp/mulchain-64.params" ] && ok "setup honours \$CUZK_PARAM_DIR" \
  || bad "setup ignored CUZK_PARAM_DIR"
expect 0 "" env CUZK_PARAM_DIR="$t/envp" $cuzk prove --circuit mulchain-64 -o p.bin
expect 0 "" env CUZK_PARAM_DIR="$t/envp" $cuzk verify --circuit mulchain-64 --proof p.bin
env -u CUZK_PARAM_DIR $cuzkd --print-config > out.txt 2>&1
grep -qx "param_dir = cuzk-params" out.txt && ok "cuzkd: the same default" || bad "cuzkd default param_dir: $(grep param_dir out.txt)"
env CUZK_PARAM_DIR="$t/envp" $cuzkd --print-config > out.txt 2>&1
grep -qx "param_dir = $t/envp" out.txt && ok "cuzkd honours \$CUZK_PARAM_DIR" || bad "cuzkd param_dir: $(grep param_dir out.txt)"
# a relative directory: cuzkd says where it resolved it
$cuzkd --listen "unix:$t/rel.sock" --param-dir rel-params > rel.log 2>&1 &
rpid=$!
for _ in $(seq 100); do grep -q "ready:" rel.log && break; sleep 0.1; done
kill "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null
grep -qF "backend.param_dir 'rel-params' is relative: using $t/wd/rel-params" rel.log \
  && ok "cuzkd warns about a relative param_dir, naming the absolute path" \
  || bad "no relative-param_dir warning: $(head -c 400 rel.log)"
cd "$t"

# --- cuzk client: exit 4 (job failed / cancelled), 5 (timeout) ---------
mkdir dp
"$cuzkd" --listen "unix:$t/d.sock" --backend test --param-dir "$t/dp" --log-level warn \
  --set engine.drain_on_shutdown=false >cuzkd.log 2>&1 &
dpid=$!
C=(client --socket "$t/d.sock")
for _ in $(seq 1 200); do
  [ -S "$t/d.sock" ] && $cuzk "${C[@]}" health >/dev/null 2>&1 && break
  sleep 0.05
done
if ! $cuzk "${C[@]}" health >/dev/null 2>&1; then
  bad "cuzkd did not come up: $(cat cuzkd.log)"
else
  ok "cuzkd (test back-end) is up"
  expect 0 "" $cuzk "${C[@]}" prove --circuit test --payload ok-1 --partitions 2 --proof-out cp.bin
  [ "$(stat -c %s cp.bin)" = 384 ] && ok "client prove wrote the proof" || bad "client prove: no proof"
  $cuzk "${C[@]}" prove --circuit test --payload ok-2 --proof-out - > cs.bin 2>err.txt
  [ "$(stat -c %s cs.bin)" = 192 ] && ok "client --proof-out - wrote 192 bytes to stdout" \
    || bad "client --proof-out -: $(stat -c %s cs.bin) bytes, $(cat err.txt)"
  expect 4 "failed" $cuzk "${C[@]}" prove --circuit test --payload "fail=synth:0"
  # a wait shorter than the job: 5, naming the job and its state
  expect 5 "still" $cuzk "${C[@]}" --timeout-ms 100 prove --circuit test --payload "synth_ms=1500"
  id=$(sed -n 's/.*job \([0-9][0-9]*\) is still.*/\1/p' err.txt)
  if [ -n "$id" ]; then
    ok "timeout names job $id"
    expect 5 "job $id is still" $cuzk "${C[@]}" await "$id" --timeout-ms 10
    expect 0 "" $cuzk "${C[@]}" await "$id" --timeout-ms 20000 --proof-out late.bin
    [ "$(stat -c %s late.bin)" = 192 ] && ok "await after the timeout got the proof" || bad "late await: no proof"
  else
    bad "timeout message names no job: $(cat err.txt)"
  fi
  # a failed job awaited by id; a cancelled one
  expect 0 "" $cuzk "${C[@]}" submit --circuit test --payload "fail=prove:0"
  fid=$(grep -o '"id": *[0-9]*' out.txt | grep -o '[0-9]*$')
  expect 4 "job $fid failed" $cuzk "${C[@]}" await "$fid" --timeout-ms 20000
  expect 0 "" $cuzk "${C[@]}" submit --circuit test --payload "synth_ms=3000"
  cid=$(grep -o '"id": *[0-9]*' out.txt | grep -o '[0-9]*$')
  expect 0 "" $cuzk "${C[@]}" cancel "$cid"
  expect 4 "cancelled" $cuzk "${C[@]}" await "$cid" --timeout-ms 20000
  # connection options after the subcommand; given twice is a duplicate
  expect 0 "" $cuzk client health --socket "$t/d.sock"
  expect 2 "given twice" $cuzk "${C[@]}" health --socket "$t/d.sock"
  # a daemon error is 1, with its message
  expect 1 "HTTP 404" $cuzk "${C[@]}" status 424242
fi

echo "$npass passed, $nfail failed"
[ $nfail = 0 ]
