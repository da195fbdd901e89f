#!/usr/bin/env bash
# tools/scripts/install_deps.sh — the Debian packages this project builds, tests and fetches
# its data with.
#   bash tools/scripts/install_deps.sh            compiler, make, Boost.Test, stb, DejaVu font,
#                                                 graphviz; curl, unzip and ca-certificates for
#                                                 `make data`; zip (the suite builds small
#                                                 archives to test get_data.sh)
#   bash tools/scripts/install_deps.sh --bench    also OpenBLAS and PyTorch (only `make bench` uses them)
#   bash tools/scripts/install_deps.sh --fuzz     also clang and its libFuzzer runtime (`make fuzz`)
#   bash tools/scripts/install_deps.sh --browser  also Chromium, python3 and a Chinese font, for the
#                                                 suite's check of the companion pages (`make book`)
#                                                 in a headless browser (skipped without them), and
#                                                 emscripten, which compiles the engine for the pages'
#                                                 live panels (`make browser`)
#   bash tools/scripts/install_deps.sh --check    only check, never install (exit 1 if any is missing)
#
# It first asks dpkg which of the packages are installed. When all are, it says so and exits
# 0, as any user: nothing needs root. Otherwise it names the missing ones; as root it installs
# them with apt-get, as another user (or with --check) it prints the exact apt-get line to run
# as root and exits 1. It never calls sudo.
set -euo pipefail
pkgs=(g++ make libboost-test-dev libstb-dev fonts-dejavu-core graphviz curl unzip ca-certificates zip)
check_only=0
for arg in "$@"; do
  case "$arg" in
    --bench) pkgs+=(libopenblas-dev python3-torch time) ;;
    --fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
    --browser) pkgs+=(chromium python3 fonts-wqy-microhei emscripten) ;;
    --check) check_only=1 ;;
    *) echo "usage: $0 [--bench] [--fuzz] [--browser] [--check]" >&2; exit 2 ;;
  esac
done

# dpkg's own state of each package: "installed" when it is; "config-files", "not-installed"
# or no entry at all (dpkg-query fails) otherwise.
missing=()
for p in "${pkgs[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ $status == installed ]] || missing+=("$p")
done
if (( ${#missing[@]} == 0 )); then
  echo "install_deps: all ${#pkgs[@]} packages already installed: ${pkgs[*]}"
  exit 0
fi

if (( check_only == 1 )) || [[ $(id -u) -ne 0 ]]; then
  echo "install_deps: missing Debian packages: ${missing[*]}" >&2
  echo "install_deps: to install them, run as root:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "install_deps: installing the missing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install_deps: installed ${missing[*]}"
