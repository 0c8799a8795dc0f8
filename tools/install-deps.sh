#!/usr/bin/env bash
# Installs the Debian 12 packages cuzk needs, skipping what is present.
# Non-interactive; retries apt operations (mirrors can be flaky).
set -euo pipefail

PKGS=(build-essential cmake pkg-config git
      libgmp-dev libssl-dev libcmocka-dev
      libjansson-dev libmicrohttpd-dev libinih-dev
      clang libclang-rt-14-dev gnuplot-nox)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js + npm: used by the interop tests (snarkjs, @noble/curves) only.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm  >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
for attempt in 1 2 3; do
  if $SUDO apt-get update -qq && \
     $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    exit 0
  fi
  echo "install-deps: apt attempt $attempt failed; retrying in $((attempt * 10)) s" >&2
  sleep $((attempt * 10))
done
echo "install-deps: could not install: ${missing[*]}" >&2
exit 1
