#!/usr/bin/env bash
# `make demo`: the main job on an embedded default. Creates the default
# parameters once (cached in $CUZK_DEMO_PARAMS), starts cuzkd on a private
# unix socket, generates PoRep-shaped vanilla proofs, proves them through
# the daemon (all submitted at once: the engine pipelines them), verifies
# every proof with `cuzk verify`, prints the figures, stops the daemon.
#   CUZK_DEMO_PRESET      circuit preset (default shaped-14)
#   CUZK_DEMO_PROOFS      number of proofs (default 4)
#   CUZK_DEMO_PARTITIONS  partitions per proof (default 2)
#   CUZK_DEMO_PARAMS      parameter directory (default ./cuzk-params)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuzk=$root/build/src/cli/cuzk
cuzkd=$root/build/src/daemon/cuzkd
preset=${CUZK_DEMO_PRESET:-shaped-14}
proofs=${CUZK_DEMO_PROOFS:-4}
parts=${CUZK_DEMO_PARTITIONS:-2}
params=${CUZK_DEMO_PARAMS:-$root/cuzk-params}
work=$(mktemp -d)
sock=$work/cuzkd.sock
dpid=
cleanup() {
  if [ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null; then kill -TERM "$dpid"; wait "$dpid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s.%N; }
jnum() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
jstr() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }

echo "== cuzk demo: $proofs PoRep-shaped proofs ($preset, $parts partitions each) through cuzkd"
mkdir -p "$params"
# Cached parameters fit only the circuit they were made for: the R1CS
# fingerprint of the preset is kept next to them, and a different one (the
# circuit changed in a newer cuzk) means a new setup.
digest=$("$cuzk" circuit-info --circuit "$preset" | awk '$1 == "digest" {print $2}')
if [ ! -s "$params/$preset.params" ] || [ ! -s "$params/$preset.meta" ]; then
  echo "-- parameters: none cached in $params; running a local trusted setup (once)"
  "$cuzk" setup --circuit "$preset" --force -o "$params/$preset.params"
  echo "$digest" >"$params/$preset.digest"
elif [ "$(cat "$params/$preset.digest" 2>/dev/null)" != "$digest" ]; then
  echo "-- parameters: $params/$preset.params was made for another version of $preset; a new setup"
  "$cuzk" setup --circuit "$preset" --force -o "$params/$preset.params"
  echo "$digest" >"$params/$preset.digest"
else
  echo "-- parameters: cached in $params/$preset.params"
fi

echo "-- vanilla proofs: generating $proofs random sectors"
for i in $(seq 1 "$proofs"); do
  "$cuzk" gen-vanilla --preset "$preset" --partitions "$parts" --seed "$i" -o "$work/v$i.json" >/dev/null
done

"$cuzkd" --listen "unix:$sock" --param-dir "$params" \
  --set daemon.timeline_file="$work/timeline.log" --set engine.result_retention_ms=600000 \
  >"$work/cuzkd.log" 2>&1 &
dpid=$!
for _ in $(seq 1 100); do
  [ -S "$sock" ] && "$cuzk" client --socket "$sock" health >/dev/null 2>&1 && break
  kill -0 "$dpid" 2>/dev/null || { cat "$work/cuzkd.log"; echo "cuzkd did not start"; exit 1; }
  sleep 0.1
done
echo "-- cuzkd up (pid $dpid, socket $sock); preloading parameters"
"$cuzk" client --socket "$sock" preload "$preset" >/dev/null

t0=$(now)
ids=()
for i in $(seq 1 "$proofs"); do
  id=$("$cuzk" client --socket "$sock" submit --circuit "$preset" --payload-file "$work/v$i.json" \
        --partitions "$parts" --request-id "demo-$i-$$" | jnum id)
  ids+=("$id")
done
fail=0
printf '%-6s %-6s %-12s %-10s %s\n' proof job total_ms verified partitions
for i in $(seq 1 "$proofs"); do
  id=${ids[$((i - 1))]}
  res=$("$cuzk" client --socket "$sock" --timeout-ms 3600000 await "$id" --proof-out "$work/p$i.bin")
  state=$(echo "$res" | jstr state)
  total=$(echo "$res" | jnum total_ms)
  if [ "$state" = done ] && "$cuzk" verify --circuit "$preset" --params "$params/$preset.params" \
       --payload "$work/v$i.json" --partitions "$parts" --proof "$work/p$i.bin" >/dev/null 2>&1; then
    ok=yes
  else
    ok=NO; fail=$((fail + 1))
  fi
  printf '%-6s %-6s %-12.1f %-10s %s\n' "$i" "$id" "${total:-0}" "$ok" "$parts"
done
t1=$(now)
echo "-- figures"
awk -v a="$t0" -v b="$t1" -v n="$proofs" -v p="$parts" 'BEGIN {
  w = b - a; printf "proofs: %d x %d partitions, wall %.2f s, throughput %.2f s/proof, %.2f s/partition\n", n, p, w, w / n, w / (n * p) }' 
st=$("$cuzk" client --socket "$sock" status)
printf 'engine: completed %s, failed %s; budget %s bytes, peak used %s; peak in-flight partitions %s\n' \
  "$(echo "$st" | jnum jobs_completed)" "$(echo "$st" | jnum jobs_failed)" "$(echo "$st" | jnum budget_total)" \
  "$(echo "$st" | jnum budget_peak)" "$(echo "$st" | jnum partitions_inflight_peak)"
echo "timeline (first lines; full log in the daemon's timeline_file):"
grep -m 8 TIMELINE "$work/timeline.log" || true
if [ "$fail" -ne 0 ]; then echo "demo: $fail proof(s) failed verification"; exit 1; fi
echo "demo: all $proofs proofs verified"
