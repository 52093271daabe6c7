#!/usr/bin/env bash
# Installs what loom needs to build and test on Debian 12 (bookworm), when it is missing.
set -euo pipefail
# Open MPI (libopenmpi-dev, openmpi-bin): examples/mpi_heat and its tests, built only with MPI.
packages=(cmake ninja-build g++ ccache llvm-19-dev llvm-19-tools libgtest-dev zlib1g-dev libzstd-dev
  dpkg-dev pkg-config
  clang-19 libclang-rt-19-dev
  libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "loom setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
