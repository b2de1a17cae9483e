#!/usr/bin/env bash
# Installs what building and testing mlprof needs, when it is missing. Idempotent: on a
# machine that has everything it only checks and exits. Run as root or with sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config git ccache
  libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc
  libsimdjson-dev zlib1g-dev libzstd-dev libcpp-httplib-dev libcli11-dev libfmt-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  libtorch-dev python3-torch python3-dev pybind11-dev
  libisal-dev
  chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm build the web UI. A Node.js from elsewhere already brings npm; the Debian
# npm package would conflict with it, so only ask Debian when the command is absent.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Front-end packages for the UI build and the browser tests, from package-lock.json.
if [[ -f ui/package-lock.json && ! -f ui/node_modules/.package-lock.json ]] ||
   [[ -f ui/package-lock.json && ui/package-lock.json -nt ui/node_modules/.package-lock.json ]]; then
  echo "bootstrap: installing UI packages"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error)
fi
exit 0
