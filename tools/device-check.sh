#!/usr/bin/env bash
# Device check of the CUDA backend (src/cuda/README.md).
#
#   tools/device-check.sh [--quick] [cuzk_cuda_check options...]
#
# Runs build-cuda/src/cuda/cuzk_cuda_check (built on the dev machine and
# carried: it links the CUDA runtime statically and needs only the driver),
# or builds it first when it is missing and nvcc is available. The program
# checks NTT, quotient, G1 MSM and full proofs against the CPU backend,
# times MSM 2^20..2^26, NTT/quotient 2^20..2^27 and a partition prove, and
# reports device free memory before/after a few hundred small proofs. One
# table on stdout; everything is also written under $OUT (default
# ./device-check-out): device-check.txt (the table), env.txt (GPU, driver,
# CPU), nvidia-smi-{before,after}.csv. Sized for well under 10 minutes on
# an H200 with 16 cores; --quick is a ~1 minute smoke run.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-check-out}
mkdir -p "$OUT"
BIN=${CUZK_CUDA_CHECK:-build-cuda/src/cuda/cuzk_cuda_check}
LIMIT=${CUZK_CHECK_TIMEOUT:-540}

{
  date -u
  uname -a
  echo "cpus: $(nproc)"
  nvidia-smi --query-gpu=name,memory.total,memory.used,memory.free,driver_version,compute_cap --format=csv 2>&1
} > "$OUT/env.txt"
cat "$OUT/env.txt"

if [ ! -x "$BIN" ]; then
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  if [ ! -x "$NVCC" ]; then
    echo "device-check: $BIN missing and no nvcc to build it" | tee "$OUT/device-check.txt"
    exit 2
  fi
  echo "device-check: building cuzk_cuda_check"
  cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
    cmake --build build-cuda -j"$(nproc)" --target cuzk_cuda_check >"$OUT/build.log" 2>&1 || {
      echo "device-check: build failed (see $OUT/build.log)"; tail -30 "$OUT/build.log"; exit 2; }
fi

nvidia-smi --query-gpu=memory.used,memory.free --format=csv > "$OUT/nvidia-smi-before.csv" 2>&1 || true
timeout "$LIMIT" "$BIN" "$@" 2>&1 | tee "$OUT/device-check.txt"
rc=${PIPESTATUS[0]}
nvidia-smi --query-gpu=memory.used,memory.free --format=csv > "$OUT/nvidia-smi-after.csv" 2>&1 || true
[ "$rc" = 124 ] && echo "device-check: TIMEOUT after ${LIMIT}s" | tee -a "$OUT/device-check.txt"
echo "device-check: exit $rc; results in $OUT"
exit "$rc"
