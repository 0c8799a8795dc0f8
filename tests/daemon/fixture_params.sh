#!/usr/bin/env bash
# ctest fixture: local (random) parameters of one Filecoin circuit in the
# build tree's fixture cache, made once and shared by the daemon tests that
# need them (porep-2k: about four minutes on two cores; snap-2k: about
# three). Usage: fixture_params.sh CUZK FIXTURE_DIR CIRCUIT
set -euo pipefail
cuzk=$1 dir=$2 circuit=$3
mkdir -p "$dir"
if [ -s "$dir/$circuit.params" ] && [ -s "$dir/$circuit.meta" ]; then
  echo "fixture $circuit: $dir/$circuit.params present"
  exit 0
fi
exec "$cuzk" setup --circuit "$circuit" --threads 2 -o "$dir/$circuit.params"
