#!/usr/bin/env bash
# tools/scripts/install_deps.sh — installs the Debian packages this project builds and tests with.
#   bash tools/scripts/install_deps.sh            compiler, Boost.Test, stb, DejaVu font, graphviz
#   bash tools/scripts/install_deps.sh --bench    also OpenBLAS and PyTorch (only `make bench` uses them)
#   bash tools/scripts/install_deps.sh --fuzz     also clang and its libFuzzer runtime (`make fuzz`)
# Run as root: apt-get needs it, and the script does not call sudo.
set -euo pipefail
pkgs=(g++ make libboost-test-dev libstb-dev fonts-dejavu-core graphviz)
for arg in "$@"; do
  case "$arg" in
    --bench) pkgs+=(libopenblas-dev python3-torch time) ;;
    --fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
    *) echo "usage: $0 [--bench] [--fuzz]" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" -ne 0 ]; then
  echo "install_deps: run as root (apt-get needs it): ${pkgs[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${pkgs[@]}"
echo "install_deps: installed ${pkgs[*]}"
