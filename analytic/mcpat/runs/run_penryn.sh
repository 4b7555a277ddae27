#!/bin/sh
# HP McPAT v1.3 (64-bit build with cohscope per-access prints in main.cc) on Penryn.xml, power_gating=0, three nodes
cd /work/runs/mcpat/runs
for n in 22 45 32; do
  /usr/bin/time -f "%e s" ../hp2/mcpat -infile penryn_pg0_${n}nm.xml -print_level 5 > penryn_pg0_${n}nm.out 2> penryn_pg0_${n}nm.time
done
echo ALLDONE
