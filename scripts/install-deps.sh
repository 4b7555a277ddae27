#!/usr/bin/env bash
# Installs the Debian packages cohscope needs to build, test and benchmark.
# Idempotent and non-interactive: installs only what dpkg says is missing.
# Usage: scripts/install-deps.sh [--with-systemc]
set -euo pipefail

pkgs=(build-essential cmake pkg-config
      libconfig-dev libgsl-dev check libjansson-dev libpapi-dev libzstd-dev liblzma-dev
      valgrind gnuplot-nox parallel)
if [ "${1:-}" = "--with-systemc" ]; then
	pkgs+=(libsystemc-dev g++)
fi

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ "${#missing[@]}" -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
