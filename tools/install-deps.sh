#!/usr/bin/env bash
# Installs the Debian 12 packages cuzk needs, skipping what is present.
# Non-interactive; retries apt operations (mirrors can be flaky).
set -euo pipefail

PKGS=(build-essential cmake pkg-config git
      libgmp-dev libssl-dev libcmocka-dev
      libjansson-dev libmicrohttpd-dev libinih-dev
      libgrpc-dev libprotobuf-c-dev protobuf-c-compiler   # cuzkd's gRPC API (C core + protobuf-c)
      python3-grpcio python3-grpc-tools                   # test_grpc: the independent gRPC client
      clang libclang-rt-14-dev gnuplot-nox
      python3    # tests: the independent R1CS fingerprint, C1 tampering
      valgrind   # tests/ctime: constant-time checks under memcheck (and its memcheck.h)
      postgresql # test_store: the job store's tests start their own server (initdb, postgres)
      libpq-dev  # cz_store: the PostgreSQL client library (the job store)
      chromium fonts-dejavu-core)  # test_status_page: cuzkd's status page in a headless browser (large: about 360 MB installed, with chromium-common)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js + npm: used by the interop tests (snarkjs, @noble/curves) only.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm  >/dev/null 2>&1 || missing+=(npm)

root=$(cd "$(dirname "$0")/.." && pwd)

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  ok=0
  for attempt in 1 2 3; do
    if $SUDO apt-get update -qq && \
       $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
      ok=1
      break
    fi
    echo "install-deps: apt attempt $attempt failed; retrying in $((attempt * 10)) s" >&2
    sleep $((attempt * 10))
  done
  if [ $ok -ne 1 ]; then
    echo "install-deps: could not install: ${missing[*]}" >&2
    exit 1
  fi
fi

# snarkjs + circom2 for the interop tests, pinned by package-lock.json.
# Re-installed when the lockfile is newer than the installed tree.
lock="$root/tests/interop/package-lock.json"
stamp="$root/tests/interop/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ]; then
  echo "install-deps: npm ci in tests/interop"
  for attempt in 1 2 3; do
    if (cd "$root/tests/interop" && npm ci --no-audit --no-fund --loglevel=error); then
      exit 0
    fi
    echo "install-deps: npm attempt $attempt failed; retrying in $((attempt * 10)) s" >&2
    sleep $((attempt * 10))
  done
  echo "install-deps: could not install the npm packages of tests/interop" >&2
  exit 1
fi
