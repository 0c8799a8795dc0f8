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
$cuzk prove --zkey mc.zkey --wtns w.wtns --proof cp.json --public cpub.json 2>/dev/null || bad "cuzk proves from zkey"
$snarkjs groth16 verify vk.json cpub.json cp.json >/dev/null || bad "snarkjs verifies cuzk's proof"
$cuzk prove --zkey mc.zkey --wtns w.wtns --proof ck.json --public ckpub.json --check-key 2>/dev/null ||
    bad "cuzk proves from zkey with --check-key"
$snarkjs groth16 verify vk.json ckpub.json ck.json >/dev/null || bad "snarkjs verifies the --check-key proof"
sed -i 's/"[0-9]/"9/' cpub.json
if $snarkjs groth16 verify vk.json cpub.json cp.json >/dev/null 2>&1; then bad "snarkjs accepted a wrong input"; fi
if $cuzk verify --vk vk.json --proof cp.json --public cpub.json >/dev/null 2>&1; then bad "cuzk accepted a wrong input"; fi
ok "snarkjs interop both ways"
echo "7 passed, 0 failed"
