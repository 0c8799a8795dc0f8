#!/usr/bin/env bash
# ctest fixture: local (random) parameters of porep-2k in the build tree's
# fixture cache, made once (about four minutes on two cores) and shared by
# the Filecoin daemon tests. Usage: fixture_porep2k.sh CUZK FIXTURE_DIR
set -euo pipefail
cuzk=$1 dir=$2
mkdir -p "$dir"
if [ -s "$dir/porep-2k.params" ] && [ -s "$dir/porep-2k.meta" ]; then
  echo "fixture_porep2k: $dir/porep-2k.params present"
  exit 0
fi
exec "$cuzk" setup --circuit porep-2k --threads 2 -o "$dir/porep-2k.params"
