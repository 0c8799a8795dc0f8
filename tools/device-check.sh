#!/usr/bin/env bash
# Device check of the CUDA backend (src/cuda/README.md, "Device check").
#
#   tools/device-check.sh [build-dir] [--quick] [--dry-run] [cuzk_cuda_check options...]
#
# One command, one report: $OUT/device-check.txt (OUT defaults to
# ./device-check-out), also on stdout, ending in "RESULT: PASS" or
# "RESULT: FAIL (...)". Exit status 0 on PASS, 1 on FAIL, 2 when there is
# nothing to check on (no CUDA device, no binary and no nvcc to build it).
#
# Order: ldd of the check binary and `nvidia-smi -L` first; then
# cuzk_cuda_check (<build-dir>/src/cuda/, default build-cuda; built first
# when missing and nvcc is there), which verifies the kernels against the
# CPU up to MSM 2^26 / NTT 2^27 and measures device memory drift; then, as
# the last stage and only if it exists, tools/device-check-cuzkd.sh
# <build-dir> <seconds left>.
#
# Time budget (the device machine: one H200, 16 cores): CUZK_CHECK_BUDGET
# seconds for everything (default 480 = 8 minutes; --quick 240), of which the
# cuzkd stage is promised CUZK_CHECK_CUZKD_S (default 150; --quick 120) when
# its script exists; it is passed all the time that is left. The
# check program gets the rest as its timeout and, 30 s earlier, as its
# --deadline (a correctness stage not started by then counts as a failure).
# --quick: a smoke run (the kernel checks take about a minute).
# --dry-run: prints the plan (and runs the CPU-only self-test of the MSM
# reference when the binary exists); touches no device.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

BUILD=build-cuda
DRY=0
QUICK=0
ARGS=()
first=1
for a in "$@"; do
  case "$a" in
    --dry-run) DRY=1 ;;
    --quick) QUICK=1; ARGS+=("$a") ;;
    -*) ARGS+=("$a") ;;
    *)
      if [ "$first" = 1 ]; then BUILD=$a; else ARGS+=("$a"); fi ;;
  esac
  first=0
done

OUT=${OUT:-$ROOT/device-check-out}
mkdir -p "$OUT"
REPORT=$OUT/device-check.txt
: > "$REPORT"
BIN=${CUZK_CUDA_CHECK:-$BUILD/src/cuda/cuzk_cuda_check}
BUDGET=${CUZK_CHECK_BUDGET:-480}
[ "$QUICK" = 1 ] && BUDGET=${CUZK_CHECK_BUDGET:-240}
CUZKD=$ROOT/tools/device-check-cuzkd.sh
CUZKD_S=0
if [ -f "$CUZKD" ]; then
  CUZKD_S=${CUZK_CHECK_CUZKD_S:-150}
  [ "$QUICK" = 1 ] && CUZKD_S=${CUZK_CHECK_CUZKD_S:-120}
fi
START=$(date +%s)

say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
left() { echo $(( BUDGET - ($(date +%s) - START) )); }
finish() { # $1: PASS or FAIL, $2: reason (FAIL), $3: exit status
  if [ "$1" = PASS ]; then say "RESULT: PASS"; else say "RESULT: FAIL ($2)"; fi
  exit "$3"
}

say "device-check: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n) ($(nproc) cpus), build dir $BUILD"
say "== ldd $BIN"
if [ -x "$BIN" ]; then ldd "$BIN" 2>&1 | tee -a "$REPORT"; else say "(not built yet)"; fi
say "== nvidia-smi -L"
GPUS=$(nvidia-smi -L 2>&1); smi_rc=$?
say "$GPUS"

PROG_S=$(( BUDGET - CUZKD_S ))
DEADLINE=$(( PROG_S > 60 ? PROG_S - 30 : PROG_S ))
if [ "$DRY" = 1 ]; then
  say "== plan (dry run: no device is touched)"
  say "budget ${BUDGET}s: cuzk_cuda_check timeout ${PROG_S}s (--deadline ${DEADLINE}), cuzkd stage ${CUZKD_S}s"
  if [ -f "$CUZKD" ]; then
    say "last stage: $CUZKD $BUILD <seconds left, at least ${CUZKD_S}>; its dry run:"
    bash "$CUZKD" --dry-run "$BUILD" "$CUZKD_S" 2>&1 | tee -a "$REPORT"
  else
    say "last stage: none ($CUZKD does not exist)"
  fi
  if [ -x "$BIN" ]; then
    "$BIN" --plan "${ARGS[@]}" 2>&1 | tee -a "$REPORT"
    say "== CPU self-test of the MSM reference (2^17 points, no device)"
    "$BIN" --host-selftest 17 2>&1 | tee -a "$REPORT"
    [ "${PIPESTATUS[0]}" = 0 ] || finish FAIL "dry run: the MSM reference self-test failed" 1
  else
    say "$BIN missing: it is built from $BUILD before the run (needs nvcc)"
  fi
  say "dry run: nothing was run on a device"
  exit 0
fi

if [ "$smi_rc" != 0 ] || ! grep -q '^GPU ' <<<"$GPUS"; then
  say "device-check: no CUDA device (nvidia-smi -L: exit $smi_rc)"
  finish FAIL "no CUDA device" 2
fi

if [ ! -x "$BIN" ]; then
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  if [ ! -x "$NVCC" ]; then
    say "device-check: $BIN missing and no nvcc to build it"
    finish FAIL "no check binary" 2
  fi
  say "device-check: building cuzk_cuda_check in $BUILD"
  if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
           >"$OUT/build.log" 2>&1 &&
         cmake --build "$BUILD" -j"$(nproc)" --target cuzk_cuda_check >>"$OUT/build.log" 2>&1; }; then
    tail -30 "$OUT/build.log" | tee -a "$REPORT"
    finish FAIL "build failed, see $OUT/build.log" 2
  fi
  say "== ldd $BIN"
  ldd "$BIN" 2>&1 | tee -a "$REPORT"
fi

nvidia-smi --query-gpu=name,memory.total,memory.used,memory.free,driver_version,compute_cap --format=csv \
  2>&1 | tee -a "$REPORT"
PROG_S=$(( $(left) - CUZKD_S ))
DEADLINE=$(( PROG_S > 60 ? PROG_S - 30 : PROG_S ))
say "== cuzk_cuda_check (timeout ${PROG_S}s, deadline ${DEADLINE}s)"
timeout "$PROG_S" "$BIN" --deadline "$DEADLINE" "${ARGS[@]}" 2>&1 | tee -a "$REPORT"
rc=${PIPESTATUS[0]}
fails=()
case "$rc" in
  0) ;;
  124) say "device-check: cuzk_cuda_check TIMEOUT after ${PROG_S}s"; fails+=("cuzk_cuda_check timed out") ;;
  3) finish FAIL "no usable CUDA device (cuzk_cuda_check exit 3)" 2 ;;
  *) fails+=("cuzk_cuda_check exit $rc") ;;
esac
nvidia-smi --query-gpu=memory.used,memory.free --format=csv 2>&1 | tee -a "$REPORT"

if [ -f "$CUZKD" ]; then
  L=$(left)
  say "== $CUZKD $BUILD $L"
  if [ "$L" -le 0 ]; then
    fails+=("no time left for the cuzkd stage")
  else
    timeout "$L" bash "$CUZKD" "$BUILD" "$L" 2>&1 | tee -a "$REPORT"
    crc=${PIPESTATUS[0]}
    [ "$crc" = 0 ] || fails+=("device-check-cuzkd.sh exit $crc")
  fi
fi

say "device-check: $(( $(date +%s) - START ))s of ${BUDGET}s; report $REPORT"
if [ "${#fails[@]}" = 0 ]; then finish PASS "" 0; fi
finish FAIL "$(IFS=';'; echo "${fails[*]}")" 1
