#!/usr/bin/env bash
# Installs the Debian packages cohscope needs to build, test and benchmark: every program that
# make, the tests (tests/cli/*.sh) and the bench/ scripts call beyond Debian's essential set
# (coreutils, diffutils, grep, sed, mawk, bash are there on any Debian, even debootstrap's minbase).
# Idempotent and non-interactive: installs only what dpkg says is missing (so a python3 elsewhere
# on PATH, e.g. pyenv's, does not hide a missing Debian python3).
# Usage: scripts/install-deps.sh [--with-systemc] [--with-fuzz]
set -euo pipefail

pkgs=(build-essential cmake pkg-config
      libconfig-dev libgsl-dev check libjansson-dev libpapi-dev libzstd-dev liblzma-dev
      valgrind gnuplot-nox parallel
      python3 bc)
for opt in "$@"; do
	case "$opt" in
	--with-systemc) pkgs+=(libsystemc-dev g++) ;;
	# scripts/fuzz.sh: clang 14 and its libFuzzer runtime (the corpus replay in CTest needs neither)
	--with-fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
	*) echo "usage: scripts/install-deps.sh [--with-systemc] [--with-fuzz]" >&2; exit 2 ;;
	esac
done

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ "${#missing[@]}" -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || {
		echo "install-deps: not root and no sudo: as root run apt-get install ${missing[*]}" >&2
		exit 1
	}
	sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq </dev/null
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null
