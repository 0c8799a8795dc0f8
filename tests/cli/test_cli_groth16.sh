#!/usr/bin/env bash
# cuzk setup / prove / verify / export-wtns end to end, with snarkjs as the
# independent prover and verifier of the exported .zkey. Every step that
# must fail is checked to fail.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/flip_bit.sh"
cuzk=$1
src=$2
snarkjs="node $src/tests/interop/node_modules/snarkjs/build/cli.cjs"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t"
ok()  { echo "ok - $*"; }
bad() { echo "not ok - $*"; exit 1; }

$cuzk setup --circuit mulchain-200 -o mc.params --zkey mc.zkey --threads 2 >/dev/null 2>&1 || bad "setup"
for f in mc.params mc.meta mc.cache mc.pce mc.zkey; do [ -s $f ] || bad "setup wrote $f"; done
ok "setup wrote params, sidecar, cache, pce, zkey"

echo '{"x0": "5"}' > p.json
echo '{"x0": "6"}' > q.json
$cuzk prove --circuit mulchain-200 --params mc.params --payload p.json --partitions 3 -o proof.bin 2>/dev/null || bad "prove"
[ "$(stat -c %s proof.bin)" = 576 ] || bad "3 partitions give 576 bytes"
$cuzk verify --circuit mulchain-200 --params mc.params --payload p.json --partitions 3 --proof proof.bin >/dev/null || bad "verify"
ok "prove + verify (3 partitions)"
if $cuzk verify --circuit mulchain-200 --params mc.params --payload q.json --partitions 3 --proof proof.bin 2>/dev/null; then
  bad "verify accepted a proof for other public inputs"; fi
cp proof.bin bad.bin
flip_bit bad.bin 300
if $cuzk verify --circuit mulchain-200 --params mc.params --payload p.json --partitions 3 --proof bad.bin 2>/dev/null; then
  bad "verify accepted a corrupted proof"; fi
ok "wrong inputs and corrupted proofs refused"

# snarkjs JSON export of cuzk's native proofs: snarkjs verifies every partition
$cuzk export-json --circuit mulchain-200 --params mc.params --payload p.json --partitions 3 --proof proof.bin -o js \
  || bad "export-json"
for i in 0 1 2; do
  $snarkjs groth16 verify js/vk.json js/public_$i.json js/proof_$i.json >/dev/null || bad "snarkjs verifies partition $i"
done
ok "snarkjs verifies the exported JSON of all 3 partitions"

# a payload that is not valid is refused with a message naming the problem
echo '{"x0": 5' > broken.json
msg=$($cuzk prove --circuit mulchain-200 --params mc.params --payload broken.json -o x.bin 2>&1) && bad "broken payload accepted"
echo "$msg" | grep -q x0 || bad "error names the field: $msg"
ok "malformed payload refused: $msg"

# parameters of another circuit are refused before proving (sidecar)
cp mc.params other.params; cp mc.meta other.meta
if $cuzk prove --circuit mulchain-201 --params other.params -o y.bin 2>err.txt; then bad "foreign params accepted"; fi
grep -q "another circuit" err.txt || bad "sidecar mismatch named: $(cat err.txt)"
ok "foreign parameter file refused: $(cat err.txt)"

# snarkjs: proves with cuzk's zkey and a cuzk witness, cuzk verifies; and back
$cuzk export-wtns --circuit mulchain-200 --payload p.json --partitions 3 --partition 2 -o w.wtns || bad "export-wtns"
$snarkjs zkey export verificationkey mc.zkey vk.json >/dev/null || bad "snarkjs reads cuzk's zkey"
$snarkjs groth16 prove mc.zkey w.wtns sp.json spub.json || bad "snarkjs proves with cuzk's zkey"
$cuzk verify --vk vk.json --proof sp.json --public spub.json >/dev/null || bad "cuzk verifies snarkjs's proof"
$cuzk prove --zkey mc.zkey --wtns w.wtns --proof cp.json --public cpub.json 2>cp.err || bad "cuzk proves from zkey"
$snarkjs groth16 verify vk.json cpub.json cp.json >/dev/null || bad "snarkjs verifies cuzk's proof"
$cuzk prove --zkey mc.zkey --wtns w.wtns --proof ck.json --public ckpub.json --check-key 2>/dev/null ||
    bad "cuzk proves from zkey with --check-key"
$snarkjs groth16 verify vk.json ckpub.json ck.json >/dev/null || bad "snarkjs verifies the --check-key proof"
# --timings: one line naming every phase, each a number of ms
$cuzk prove --zkey mc.zkey --wtns w.wtns --proof ct.json --public ctpub.json --timings 2>ct.err ||
    bad "cuzk proves from zkey with --timings"
grep -Eq '^timings \(ms\): read key [0-9.]+, witness [0-9.]+, r1cs check [0-9.]+, tables [0-9.]+; proof: a b c [0-9.]+, quotient [0-9.]+, msm A [0-9.]+, B1 [0-9.]+, B2 [0-9.]+, C \+ H [0-9.]+, finish and self-check [0-9.]+$' ct.err ||
    bad "--timings prints its line: $(cat ct.err)"
grep -q '^timings' cp.err 2>/dev/null && bad "no timings line without --timings"
$snarkjs groth16 verify vk.json ctpub.json ct.json >/dev/null || bad "snarkjs verifies the --timings proof"
# a key point off its curve: cuzk prove reads the key without testing its
# query points, so the proof that point reaches is refused and the point is
# named; --check-key names it before proving
python3 - mc.zkey offc.zkey <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n, o = struct.unpack_from("<I", b, 8)[0], 12
for _ in range(n):
    sid, ln = struct.unpack_from("<IQ", b, o)
    o += 12
    if sid == 5:
        b[o + 48 + 5] ^= 1  # A[0].y (the constant one's point): off the curve, still < p
    o += ln
open(sys.argv[2], "wb").write(b)
EOF
if $cuzk prove --zkey offc.zkey --wtns w.wtns --proof oc.json --public ocp.json 2>oc.err; then
  bad "a key point off its curve gave a proof"; fi
grep -q "A (section 5) point 0 is not on its curve" oc.err || bad "the off-curve point is named: $(cat oc.err)"
[ -s oc.json ] && bad "no proof written for the off-curve key"
if $cuzk prove --zkey offc.zkey --wtns w.wtns --proof oc.json --public ocp.json --check-key 2>oc2.err; then
  bad "--check-key accepted a key point off its curve"; fi
grep -q "section 5 (A) point 0" oc2.err || bad "--check-key names the off-curve point: $(cat oc2.err)"
ok "a key point off its curve: no proof, the point named"
sed -i 's/"[0-9]/"9/' cpub.json
if $snarkjs groth16 verify vk.json cpub.json cp.json >/dev/null 2>&1; then bad "snarkjs accepted a wrong input"; fi
if $cuzk verify --vk vk.json --proof cp.json --public cpub.json >/dev/null 2>&1; then bad "cuzk accepted a wrong input"; fi
ok "snarkjs interop both ways"

# --tables: the key's MSM tables built and kept in <key>.tables by the first
# run, mapped by the next; a flipped bit in a point (the load reads no
# whole-file digest) costs a second proof and the file, never a wrong proof;
# snarkjs verifies every proof
$cuzk setup --circuit mulchain-5000 -o t5.params --zkey t5.zkey --threads 2 >/dev/null 2>&1 || bad "setup mulchain-5000"
$cuzk export-wtns --circuit mulchain-5000 -o t5.wtns || bad "export-wtns mulchain-5000"
$snarkjs zkey export verificationkey t5.zkey t5vk.json >/dev/null || bad "snarkjs reads the mulchain-5000 zkey"
tz() {
  $cuzk prove --zkey t5.zkey --wtns t5.wtns --proof "$1.json" --public "$1p.json" --threads 2 "${@:2}" 2>"$1.err"
}
tz tb1 --tables || bad "prove --tables (first run): $(cat tb1.err)"
grep -q "built in .*kept in t5.zkey.tables" tb1.err || bad "the first --tables run builds and keeps: $(cat tb1.err)"
[ -s t5.zkey.tables ] || bad "t5.zkey.tables written"
tz tb2 --tables || bad "prove --tables (second run): $(cat tb2.err)"
grep -q "built" tb2.err && bad "the second --tables run maps the file: $(cat tb2.err)"
size=$(stat -c %s t5.zkey.tables)
flip_bit t5.zkey.tables $((4096 + 96 * 10 + 1000))
tz tb3 --tables || bad "prove --tables with a flipped point: $(cat tb3.err)"
grep -q "failed its check" tb3.err || bad "a damaged table file is named: $(cat tb3.err)"
[ -e t5.zkey.tables ] && bad "the damaged table file is removed"
for k in tb1 tb2 tb3; do
  $snarkjs groth16 verify t5vk.json "${k}p.json" "$k.json" >/dev/null || bad "snarkjs verifies the --tables proof $k"
done
tz tb4 --tables || bad "prove --tables rebuilds: $(cat tb4.err)"
[ "$(stat -c %s t5.zkey.tables)" = "$size" ] || bad "the rebuilt table file has the size of the first"
tz tb5 --tables --msm-tables 1000 || bad "--msm-tables 1000 with the file there"
grep -q "built" tb5.err && bad "a kept file is mapped whatever --msm-tables says: $(cat tb5.err)"
rm t5.zkey.tables
tz tb6 --tables --msm-tables 1000 || bad "--msm-tables 1000"
grep -q "no MSM tables pay" tb6.err || bad "nothing within 1000 bytes is said: $(cat tb6.err)"
[ -e t5.zkey.tables ] && bad "no table file written when nothing pays"
if tz tb7 --msm-tables 4G; then bad "--msm-tables without --tables accepted"; fi
grep -q "needs --tables" tb7.err || bad "--msm-tables without --tables named: $(cat tb7.err)"
ok "prove --zkey --tables: built, kept, mapped, a damaged file caught and rebuilt"

# bench prove --vs-snarkjs: cuzk's proofs, snarkjs and `cuzk prove --zkey`
# interleave in rounds; every figure must come out, and a snarkjs that
# fails is reported and leaves its rows out (the bench itself still succeeds)
rows() { python3 -c 'import json,sys; r=json.load(sys.stdin)["results"]; print("\n".join("%s=%g" % (x["name"], x["value"]) for x in r))'; }
$cuzk bench prove --circuit mulchain-200 --param-dir bp --threads 2 --samples 5 --vs-snarkjs --snarkjs-samples 2 \
    --msm-tables 64M --json 2>/dev/null | rows > bp.txt || bad "bench prove --vs-snarkjs"
for k in "total per partition (median)" "snarkjs groth16 prove (wall, median)" "speed-up vs snarkjs" \
         "cuzk prove --zkey, same files (wall, median)" "speed-up vs snarkjs, process against process" \
         "cuzk prove --zkey --tables, same files (wall, median)" \
         "speed-up vs snarkjs, process against process, --tables"; do
  v=$(grep -F "$k=" bp.txt | cut -d= -f2)
  [ -n "$v" ] && python3 -c "import sys; sys.exit(0 if float('$v') > 0 else 1)" || bad "bench prove: $k ($v)"
done
CZ_SNARKJS=/nonexistent/cli.cjs $cuzk bench prove --circuit mulchain-200 --param-dir bp --threads 2 --samples 3 \
    --vs-snarkjs --snarkjs-samples 2 --json 2>bp.err | rows > bp2.txt || bad "bench prove with a failing snarkjs"
grep -q "snarkjs failed" bp.err || bad "a failing snarkjs is reported"
grep -q "snarkjs" bp2.txt && bad "a failing snarkjs leaves no figure"
grep -q "total per partition (median)" bp2.txt || bad "bench prove without snarkjs still reports cuzk"
ok "bench prove --vs-snarkjs reports all four, and a failing snarkjs"
echo "9 passed, 0 failed"
