#!/bin/sh
# Rebuild the whole CACTI 7 table for cohscope's cache/SRAM geometries with one command:
#   CACTI_GIT=/path/to/a/clone/of/HewlettPackard/cacti/.git analytic/cacti/run.sh
# (15-25 minutes on 2 cores; README.md has the times). CACTI is unpacked, built and run in
# CACTI_WORK (default /tmp/cohscope-cacti), outside the project; the table and its companions
# are written here. Needs git, g++, make and python3. Then scripts/cacti-table.sh turns the
# table into analytic/cacti_table.c.
# Steps: (1) unpack CACTI 7 at the pinned commit into src/ (if src/ has no CACTI yet), apply
# build.patch if it has any change, build `make opt NTHREADS=1`; (2) build tools/cacti_dump
# (CACTI's own cacti_interface() plus a printout of the per-array results, linked against
# CACTI's unmodified objects); (3) write one .cfg per run (tools/gen.py: the shipped cache.cfg
# with the settings of README.md replaced); (4) run them, JOBS at a time; (5) for the runs CACTI
# refuses for too few sets, run the nearest accepted settings; (6) parse into cacti-table.csv,
# refused.tsv and fallbacks.tsv (tools/parse.py).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${CACTI_WORK:-/tmp/cohscope-cacti}
SRC=$WORK/src
OUT=$WORK/out
mkdir -p "$WORK/tools"
cp "$HERE/tools/"* "$WORK/tools/"
TOOLS=$WORK/tools
CACTI_GIT=${CACTI_GIT:?set CACTI_GIT to a git clone of https://github.com/HewlettPackard/cacti}
CACTI_COMMIT=1ffd8dfb10303d306ecd8d215320aea07651e878
JOBS=${JOBS:-2}
CXXFLAGS="-m64 -Wno-unknown-pragmas -g -msse2 -mfpmath=sse -DNTHREADS=1"   # = cacti.mk's opt flags

# (1) CACTI
if [ ! -f "$SRC/cacti.mk" ]; then
  mkdir -p "$SRC"
  git --git-dir="$CACTI_GIT" archive "$CACTI_COMMIT" | tar -x -C "$SRC"
  # CACTI builds unmodified on Debian 12 (g++ 12.2): no patch
fi
if [ ! -x "$SRC/cacti" ]; then
  (cd "$SRC" && make opt NTHREADS=1) > "$WORK/build.log" 2>&1
fi

# (2) the per-array printout
if [ ! -x "$TOOLS/cacti_dump" ] || [ "$TOOLS/cacti_dump.cc" -nt "$TOOLS/cacti_dump" ]; then
  g++ $CXXFLAGS -I"$SRC" -c "$TOOLS/cacti_dump.cc" -o "$TOOLS/cacti_dump.o"
  g++ -m64 -o "$TOOLS/cacti_dump" "$TOOLS/cacti_dump.o" \
      $(ls "$SRC"/obj_opt/*.o | grep -v '/main\.o$') -lm -pthread
fi

# (3) input files
rm -rf "$OUT"
mkdir -p "$OUT/txt"
python3 "$TOOLS/gen.py" "$SRC" "$OUT"

# (4) runs; CACTI reads tech_params/ relative to the working directory, so run inside src/.
# Each run appends CACTI's own csv line to out/cfg/<run>.cfg.out.
run_jobs() {   # $1: jobs file; runs the jobs that have no output yet, JOBS at a time
  tail -n +2 "$1" | cut -f1 | sort -u | while read -r r; do [ -f "$OUT/txt/$r.txt" ] || echo "$r"; done | \
    xargs -r -P "$JOBS" -I{} sh -c 'cd "$1" && "$2" -infile "$3/cfg/{}.cfg" > "$3/txt/{}.txt" 2>&1 || echo "rc=$?" >> "$3/txt/{}.txt"' \
      _ "$SRC" "$TOOLS/cacti_dump" "$OUT"
}
run_jobs "$OUT/jobs.tsv"
python3 "$TOOLS/parse.py" "$OUT" "$HERE/cacti-table.csv" "$HERE/refused.tsv"

# (5) fallbacks for the cache runs CACTI refused in normal mode (too few sets): sequential
# access mode, and, for the configuration geometries, the largest associativity it accepts in
# normal mode (tools/gen.py)
python3 "$TOOLS/gen.py" "$SRC" "$OUT" --fallback "$HERE/refused.tsv"
run_jobs "$OUT/fallback-jobs.tsv"

# (6) table
python3 "$TOOLS/parse.py" "$OUT" "$HERE/cacti-table.csv" "$HERE/refused.tsv"
cp "$OUT/fallbacks.tsv" "$HERE/fallbacks.tsv"

# (7) sensitivity of gpu_l1 / gpu_l2_bank / apu_llc to the settings that are a choice (README)
python3 "$TOOLS/sens.py" "$SRC" "$OUT" "$TOOLS/cacti_dump" "$HERE/sensitivity.csv"

# (8) are the 40 / 28 nm values (CACTI's interpolation) between the neighbouring nodes' (README)
python3 "$TOOLS/interp_check.py" "$HERE/cacti-table.csv" "$OUT" > "$HERE/interp-check.txt"
