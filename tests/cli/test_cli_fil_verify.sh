#!/usr/bin/env bash
# `cuzk verify --c1` on the reference's 2KiB C2 proof
# (tests/vectors/filecoin/porep-2k-v1.1: bellperson's random-params.vk and
# proof.bin for c1.json): the proof is accepted with either C1 layout, and
# a corrupted proof, a corrupted key, a mismatched --circuit, a wrong
# proof length or a missing published key are refused with a message.
# usage: test_cli_fil_verify.sh CUZK SOURCE_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/flip_bit.sh"
cuzk=$1
src=$2
v=$src/tests/vectors/filecoin/porep-2k-v1.1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok()  { echo "ok - $*"; }
bad() { echo "not ok - $*"; exit 1; }
# refuses [-N] WHAT CMD...: the command must exit N (default 1: invalid
# proof; 3: an input could not be read or parsed, docs/cli.md) and say why
# on stderr
refuses() {
  local want=1
  case $1 in -[0-9]) want=${1#-}; shift ;; esac
  local what=$1; shift
  set +e
  "$@" >"$t/out" 2>"$t/err"
  local rc=$?
  set -e
  [ $rc = $want ] || { cat "$t/out" "$t/err"; bad "$what: exit status $rc, expected $want"; }
  [ -s "$t/err" ] || bad "$what: no message"
  grep -q '^ok' "$t/out" && bad "$what: printed ok"
  return 0
}

out=$($cuzk verify --circuit porep-2k --vk $v/random-params.vk --c1 $v/c1.json --proof $v/proof.bin) \
  || bad "verify the reference proof"
case $out in ok:*StackedDrg2KiBV1_1*) ;; *) bad "verify printed '$out'" ;; esac
ok "reference 2KiB proof verifies ($out)"
$cuzk verify --vk $v/random-params.vk --c1 $v/c1-curio.json --proof $v/proof.bin >/dev/null \
  || bad "verify with Curio's C1 wrapper"
ok "Curio's C1 layout gives the same inputs"

cp $v/proof.bin $t/bad.bin
flip_bit $t/bad.bin 170
refuses "corrupted proof" $cuzk verify --circuit porep-2k --vk $v/random-params.vk --c1 $v/c1.json --proof $t/bad.bin
grep -qi 'partition 0' "$t/err" || bad "corrupted proof: message names the partition: $(cat $t/err)"
ok "corrupted proof refused: $(cat $t/err)"

# A and C swapped: both valid points, so the pairing check is what fails
{ dd if=$v/proof.bin bs=1 skip=144 count=48; dd if=$v/proof.bin bs=1 skip=48 count=96;
  dd if=$v/proof.bin bs=1 skip=0 count=48; } 2>/dev/null > $t/swap.bin
refuses "swapped proof" $cuzk verify --vk $v/random-params.vk --c1 $v/c1.json --proof $t/swap.bin
grep -qi 'invalid' "$t/err" || bad "swapped proof: $(cat $t/err)"
ok "well-formed wrong proof refused"

head -c 191 $v/proof.bin > $t/short.bin
refuses "short proof" $cuzk verify --vk $v/random-params.vk --c1 $v/c1.json --proof $t/short.bin
ok "wrong proof length refused"

cp $v/random-params.vk $t/bad.vk
flip_bit $t/bad.vk 2000
refuses -3 "corrupted vk" $cuzk verify --vk $t/bad.vk --c1 $v/c1.json --proof $v/proof.bin
ok "corrupted vk refused: $(cat $t/err)"

refuses -3 "wrong circuit" $cuzk verify --circuit porep-32g --vk $v/random-params.vk --c1 $v/c1.json --proof $v/proof.bin
ok "--circuit mismatch refused"

# no --vk: the published key is looked up (and would be digest-checked)
mkdir $t/params
refuses -3 "missing published vk" $cuzk verify --c1 $v/c1.json --proof $v/proof.bin --params-dir $t/params
grep -q 'v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk' "$t/err" \
  || bad "missing vk: message names the published file: $(cat $t/err)"
cp $v/random-params.vk $t/params/v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk
FIL_PROOFS_PARAMETER_CACHE=$t/params refuses -3 "unpublished vk under the published name" \
  $cuzk verify --c1 $v/c1.json --proof $v/proof.bin
grep -q 'dc1ade9929ade1708238f155343044ac' "$t/err" || bad "digest message names the expected digest: $(cat $t/err)"
ok "published key looked up in FIL_PROOFS_PARAMETER_CACHE, digest mismatch reported: $(cat $t/err)"

refuses -3 "missing C1" $cuzk verify --vk $v/random-params.vk --c1 $t/none.json --proof $v/proof.bin
grep -q 'none.json' "$t/err" || bad "missing C1: message names the file: $(cat $t/err)"
ok "missing C1 file refused"

set +e
$cuzk verify --c1 $v/c1.json >/dev/null 2>&1; rc=$?
set -e
[ $rc = 2 ] || bad "usage error exits 2 (got $rc)"
ok "usage"
