#!/bin/sh
cd /work/runs/mcpat/runs
for n in 22 32 45; do
  ../hp2/mcpat -infile penryn_uncore_${n}nm_100000.xml -print_level 5 > penryn_uncore_${n}nm_100000.out 2>&1 &
  ../hp2/mcpat -infile penryn_uncore_${n}nm_200000.xml -print_level 5 > penryn_uncore_${n}nm_200000.out 2>&1
  wait
done
echo ALLDONE
