#!/usr/bin/env bash
# The AVX2 + MULX batch flush (src/msm/msm_x16.c) of another revision
# against the build's, timed in one process batch by batch (tools/flush_ab.c
# says why: on a shared VM only paired timings show a few per cent).
#
#   tools/flush-ab.sh OLD_REV [build-dir] [batches] [entries]
#
# build-dir defaults to build (a Release build of this tree; its cz_msm is
# rebuilt first), batches to 3000 and entries to 1022. The old revision's
# msm_x16.c is compiled against this tree's headers with the project's
# Release flags plus OLD_CFLAGS (e.g. OLD_CFLAGS=-fno-tree-vectorize to
# give it the flags this tree's CMakeLists.txt gives the file), its public
# names prefixed ab_old_. Prints a line per group (G1, G2: fastest and
# median ns an addition for each, and the median of the new/old ratios of
# the pairs) and a JSON line; exit 1 when the two leave different buckets.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
REV=${1:?usage: tools/flush-ab.sh OLD_REV [build-dir] [batches] [entries]}
B=${2:-build}
ROUNDS=${3:-3000}
N=${4:-1022}
[ -f "$B/CMakeCache.txt" ] || { echo "flush-ab: $B is not a CMake build directory" >&2; exit 2; }
cmake --build "$B" --target cz_msm cz_ec cz_poly cz_ff cz_common >/dev/null
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
git show "$REV:src/msm/msm_x16.c" >"$W/old_x16.c"
CF=(-D_GNU_SOURCE -I"$ROOT/include" -I"$ROOT/src" -I"$ROOT/src/msm" -O3 -DNDEBUG -fno-strict-aliasing -std=c17
    -Wall -Wextra -Werror)
REN=(-Dcz__msm_g1_flush_x16=ab_old_g1_flush -Dcz__msm_g2_flush_x16=ab_old_g2_flush
     -Dcz__msm_g1_x16_scratch=ab_old_g1_scratch -Dcz__msm_g2_x16_scratch=ab_old_g2_scratch
     -Dcz__msm_x16_supported=ab_old_supported -Dcz__msm_x16_time_ratio=ab_old_time_ratio
     -Dcz__msm_x16_red=ab_old_x16_red)
# shellcheck disable=SC2086
cc "${CF[@]}" "${REN[@]}" ${OLD_CFLAGS:-} -c "$W/old_x16.c" -o "$W/old_x16.o"
cc "${CF[@]}" -c tools/flush_ab.c -o "$W/flush_ab.o"
cc "$W/flush_ab.o" "$W/old_x16.o" -o "$W/flush_ab" "$B/src/msm/libcz_msm.a" "$B/src/ec/libcz_ec.a" \
   "$B/src/poly/libcz_poly.a" "$B/src/ff/libcz_ff.a" "$B/src/common/libcz_common.a" -lpthread -lm
echo "# flush-ab: $REV's msm_x16.c (${OLD_CFLAGS:-no extra flags}) against $B's, $ROUNDS batches of $N," \
     "on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
"$W/flush_ab" "$ROUNDS" "$N"
