#!/bin/sh
# runs GPUWattch-McPAT driver on the GTX480 XML with cohscope's 5x5 NoC, 4 nodes + coverage check
cd /work/runs/mcpat/runs
D=../gw/src/gpuwattch/cohscope_driver
$D gtx480.xml 500 > gw_gtx480_coeffs.out 2>&1 &
$D gtx480_noc5x5_40nm.xml 500 > gw_noc5x5_40nm.out 2>&1
wait
$D gtx480_noc5x5_45nm.xml 500 > gw_noc5x5_45nm.out 2>&1 &
$D gtx480_noc5x5_32nm.xml 500 > gw_noc5x5_32nm.out 2>&1
wait
$D gtx480_noc5x5_22nm.xml 500 > gw_noc5x5_22nm.out 2>&1 &
$D gtx480_noc5x5_40nm_cov2.75.xml 500 > gw_noc5x5_40nm_cov2.75.out 2>&1
wait
echo ALLDONE
