#!/usr/bin/env bash
# Regenerates tests/vectors/snarkjs/: a small circom circuit compiled for
# BLS12-381, a throw-away powers-of-tau (power 6: seconds, not the ~16 min of
# power 14), a Groth16 .zkey, a witness, and snarkjs's own proof. These are
# fixtures for cuzk's interop tests; CI never runs a ceremony.
#   usage: tools/gen-snarkjs-fixtures.sh        (needs node + npm)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/tests/interop"
[ -x node_modules/.bin/snarkjs ] || npm ci --no-audit --no-fund
S="$root/tests/interop/node_modules/.bin/snarkjs"
C="$root/tests/interop/node_modules/.bin/circom2"
out="$root/tests/vectors/snarkjs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
cd "$tmp"
"$C" "$root/tests/interop/circuits/fixture.circom" --r1cs --wasm --prime bls12381 -o . >/dev/null
"$S" powersoftau new bls12381 6 pot0.ptau >/dev/null
"$S" powersoftau contribute pot0.ptau pot1.ptau --name=cuzk -e="cuzk fixture $(date +%s%N)" >/dev/null
"$S" powersoftau prepare phase2 pot1.ptau pot.ptau >/dev/null
"$S" groth16 setup fixture.r1cs pot.ptau f0.zkey >/dev/null
"$S" zkey contribute f0.zkey fixture.zkey --name=cuzk -e="cuzk zkey $(date +%s%N)" >/dev/null
"$S" zkey export verificationkey fixture.zkey vk.json >/dev/null
echo '{"x":"3","a":"5","b":"7"}' > input.json
node fixture_js/generate_witness.js fixture_js/fixture.wasm input.json fixture.wtns
"$S" groth16 prove fixture.zkey fixture.wtns proof.json public.json
"$S" groth16 verify vk.json public.json proof.json
cp fixture.r1cs fixture.zkey fixture.wtns vk.json proof.json public.json input.json "$out/"
echo "wrote $out"
