#!/usr/bin/env bash
# Regenerates the parameter reference at the end of docs/configuration.md from the parameter
# tables (the `config --dump` outputs that page names), keeping everything above it.
# Usage: scripts/gen-config-doc.sh [BUILD_DIR]   (default build; run from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/cohscope"
doc=docs/configuration.md
head_end=$(grep -n '^### System `gpu` (configs/gtsc-16sm.cfg)$' "$doc" | cut -d: -f1)
[ -n "$head_end" ] || { echo "gen-config-doc: $doc: no '### System \`gpu\`' heading" >&2; exit 1; }
tmp=$(mktemp "$doc.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
	head -n "$head_end" "$doc"
	echo
	echo '```'
	"$bin" config -c configs/gtsc-16sm.cfg --dump
	echo '```'
	echo
	echo '### System `cpu` (configs/cpu-tso.cfg)'
	echo
	echo '```'
	"$bin" config -c configs/cpu-tso.cfg --dump
	echo '```'
	echo
	echo '### System `cpu` on the APU memory side (configs/cpu-apu.cfg)'
	echo
	echo '```'
	"$bin" config -c configs/cpu-apu.cfg --dump
	echo '```'
	echo
	echo '### System `apu` (configs/apu-2200g.cfg)'
	echo
	echo '```'
	"$bin" config -c configs/apu-2200g.cfg --dump
	echo '```'
	echo
	echo '### System `selfcheck` (defaults)'
	echo
	echo '```'
	"$bin" config --dump
	echo '```'
} >"$tmp"
mv "$tmp" "$doc"
trap - EXIT
