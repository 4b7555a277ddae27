#!/usr/bin/env bash
# tests/cli/ports_rodinia.sh BINARY SOURCE_DIR: the rodinia suite's ports verify at tiny under none,
# noncoherent and gtsc in detailed and hybrid mode, and fail their checks on a corrupted output
# (tests/cli/ports.bash).
. "$(dirname "$0")/lib.bash" "$@"
. "$(dirname "$0")/ports.bash"

ports_check rodinia bfs_rodinia btree mummer needle pathfinder srad heartwall leukocyte lud streamcluster
exit $((fails > 0))
