#!/usr/bin/env bash
# Installs everything czk needs to build, test and run on Debian 12: apt packages, and the
# node packages of the test peers (pinned by tests/peers/package-lock.json). Safe to run
# any number of times: it only installs what is missing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

apt_pkgs=(build-essential cmake pkg-config git ca-certificates
          libssl-dev libjansson-dev libuv1-dev libjemalloc-dev libsqlite3-dev
          libprotobuf-c-dev protobuf-c-compiler libgrpc-dev
          libinih-dev libhttp-parser-dev grpc-proto
          clang libclang-rt-14-dev) # clang: the libFuzzer targets of the test run
command -v node >/dev/null 2>&1 || apt_pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || apt_pkgs+=(npm)

missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Test peers (@noble/curves, snarkjs, circom2): installed from the lock file, again only
# when the lock changed since the last install.
peers="$here/tests/peers"
if [ -f "$peers/package-lock.json" ]; then
  stamp="$peers/node_modules/.czk-lock.sha256"
  want=$(sha256sum "$peers/package-lock.json" | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "deps: installing node test peers"
    (cd "$peers" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > "$stamp"
  fi
fi
