#!/usr/bin/env bash
# cuzk seal / c1 check end to end against the reference's 2KiB sector
# (tests/vectors/filecoin/porep-2k-v1.1, made by rust-fil-proofs): the seal
# reproduces the reference's commitments and C1 file byte for byte, both C1
# layouts check, and every broken input fails with a message naming it.
set -euo pipefail
cuzk=$1
src=$2
F=$src/tests/vectors/filecoin/porep-2k-v1.1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t"
ok()  { echo "ok - $*"; }
bad() { echo "not ok - $*"; exit 1; }
# expect_fail "what" "message fragment" cmd...: cmd must exit 1 and say it
expect_fail() {
  local what=$1 frag=$2; shift 2
  set +e; "$@" >out.txt 2>err.txt; local rc=$?; set -e
  [ $rc -ne 0 ] || bad "$what: accepted"
  grep -qF -- "$frag" err.txt || { cat err.txt; bad "$what: message lacks '$frag'"; }
  ok "$what: refused ($(head -c 160 err.txt | tr '\n' ' '))"
}

ARGS=(--prover-id e807000000000000000000000000000000000000000000000000000000000000 --sector-id 42
      --ticket a5dbce745edfec13bff8d8fed7f9d353a6cfbdb21c2053ae6a1d849834770013
      --seed 2fdda4d4ed46c42e343de76bc466868746fd64fdfd14c16e4126f52c2259c08f)

$cuzk seal --registered-proof StackedDrg2KiBV1_1 --data $F/piece.bin "${ARGS[@]}" --threads 2 --json -o c1.json > seal.json
cmp -s c1.json $F/c1.json || bad "seal: C1 differs from the reference's"
for k in comm_d comm_r replica_id; do
  want=$(grep -o "\"${k}_hex\": *\"[0-9a-f]*\"" $F/fixture.json | grep -o '[0-9a-f]\{64\}' || true)
  [ -n "$want" ] || want=$(python3 -c "import json;d=json.load(open('$F/fixture.json'));v=d['$k'];print(v['le_hex'] if isinstance(v,dict) else v)")
  grep -q "\"$k\":\"$want\"" seal.json || bad "seal: $k is not $want"
done
ok "seal reproduces comm_d, comm_r, replica_id and the C1 file of rust-fil-proofs"

# --cache-dir: the sealed sector's challenged nodes are the replica leaves
# the reference's C1 proves; p_aux holds comm_c and comm_r_last
$cuzk seal --registered-proof 5 --data $F/piece.bin "${ARGS[@]}" --cache-dir cache >/dev/null
[ "$(stat -c %s cache/sealed)" = 2048 ] && [ "$(stat -c %s cache/p_aux)" = 64 ] || bad "cache dir sizes"
python3 - "$F/c1.json" "$F/fixture.json" <<'PY' || bad "sealed sector / p_aux differ from the reference"
import json, sys
c1 = json.load(open(sys.argv[1])); fx = json.load(open(sys.argv[2]))
sealed = open("cache/sealed", "rb").read(); paux = open("cache/p_aux", "rb").read()
for p in c1["vanilla_proofs"]["StackedDrg2KiBV1"][0]:
    node = p["comm_d_proofs"]["data"]["Single"]["path"]["path"]
    idx = p["replica_column_proofs"]["c_x"]["column"]["index"]
    leaf = bytes(p["comm_r_last_proof"]["data"]["Single"]["leaf"])
    assert sealed[32 * idx:32 * idx + 32] == leaf, idx
assert paux.hex() == fx["comm_c_hex"] + fx["comm_r_last_hex"]
PY
ok "--cache-dir: sealed sector and p_aux agree with the reference"

$cuzk seal --sector-size 2KiB --api v1.1 --data $F/piece.bin "${ARGS[@]}" --curio -o curio.json >/dev/null
cmp -s curio.json $F/c1-curio.json || bad "seal --curio differs from Curio's wrapper of the reference"
ok "seal --curio writes Curio's wrapper"

$cuzk c1 check $F/c1.json | grep -q "ok" || bad "c1 check of the reference"
$cuzk c1 check $F/c1-curio.json | grep -q "ok" || bad "c1 check of Curio's wrapper"
$cuzk c1 check c1.json | grep -q "ok" || bad "c1 check of cuzk's C1"
ok "c1 check accepts the reference's and cuzk's C1 outputs"

for rp in 0 10 15; do
  $cuzk seal --registered-proof $rp --rand-seed $rp "${ARGS[@]}" -o v$rp.json >/dev/null || bad "seal proof $rp"
  $cuzk c1 check v$rp.json >/dev/null || bad "c1 check proof $rp"
done
ok "seal + c1 check for API 1.0, synthetic and non-interactive 2KiB proofs"

# tampering: a value inside a labeling proof's parents (first byte of the
# 10th parent of layer 2 of the first challenge), the seed, a Curio size
python3 - "$F/c1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]
p["labeling_proofs"][1]["parents"][9][0] ^= 1
open("t_parent.json", "w").write(json.dumps(d, separators=(",", ":")))
d = json.load(open(sys.argv[1])); d["seed"][0] ^= 1
open("t_seed.json", "w").write(json.dumps(d, separators=(",", ":")))
d = json.load(open(sys.argv[1])); d["vanilla_proofs"]["StackedDrg2KiBV1"][0][1]["comm_d_proofs"]["data"]["Single"]["leaf"][3] = 256
open("t_range.json", "w").write(json.dumps(d, separators=(",", ":")))
PY
expect_fail "tampered labeling parent" "labeling_proofs[1].parents[9]" $cuzk c1 check t_parent.json
expect_fail "tampered seed" "partition 0, challenge 0" $cuzk c1 check t_seed.json
expect_fail "byte out of range" "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single.leaf[3]" $cuzk c1 check t_range.json
sed 's/"SectorSize": 2048/"SectorSize": 4096/' $F/c1-curio.json > t_size.json
expect_fail "Curio wrapper of another size" "SectorSize" $cuzk c1 check t_size.json
head -c 5000 $F/c1.json > t_trunc.json
expect_fail "truncated C1" "t_trunc.json" $cuzk c1 check t_trunc.json
expect_fail "missing file" "nope.json" $cuzk c1 check nope.json

# usage and input errors
head -c 2033 /dev/zero > big.bin
expect_fail "data larger than the sector" "2033" $cuzk seal --sector-size 2KiB --data big.bin "${ARGS[@]}"
expect_fail "32GiB is not sealed in memory" "not sealed in memory" $cuzk seal --sector-size 32GiB "${ARGS[@]}"
expect_fail "unknown registered proof" "unknown registered proof" $cuzk seal --registered-proof StackedDrg3KiB "${ARGS[@]}"
expect_fail "bad ticket" "--ticket" $cuzk seal --sector-size 2KiB --prover-id 00 --sector-id 1 --ticket xyz --seed 00
echo "all cuzk seal / c1 check tests passed"
