# per-event arithmetic for section (a), from gw_gtx480_coeffs.out (GPUWattch McPAT, 40 nm)
import re,sys
f=open(sys.argv[1] if len(sys.argv)>1 else 'gw_gtx480_coeffs.out').read()
C={};S={}
for m in re.finditer(r'COEFF (\S+?),?\s+raw_J_per_event (\S+)\s+scaling (\S+)\s+scaled_J_per_event (\S+)',f):
    C[m.group(1)]=float(m.group(2)); S[m.group(1)]=float(m.group(4))
sub={}
for m in re.finditer(r'(\w+_J) (\S+)',f): sub[m.group(1)]=float(m.group(2))
pJ=1e12
def show(name,terms):
    r=sum(a*C[k] for k,a in terms); s=sum(a*S[k] for k,a in terms)
    print(f"{name}: " + " + ".join(f"{a:g}x{k}" for k,a in terms))
    print(f"   raw    = " + " + ".join(f"{a:g}x{C[k]*pJ:.4f}" for k,a in terms) + f" = {r*pJ:.2f} pJ")
    print(f"   scaled = " + " + ".join(f"{a:g}x{S[k]*pJ:.4f}" for k,a in terms) + f" = {s*pJ:.2f} pJ")
    return r,s
show("core_issue (IB+decode, I-cache hit, scheduler)",[('TOT_INST',1),('IC_H',1),('FP_INT',1)])
# pipeline term: PIPE_A coefficient is J per 500-cycle sample for 16 cores at duty 1
# one 32-thread warp instruction adds 0.5/(15 SMs*500 cycles) to the sample duty cycle (EX_WB width 2, 15 SMs)
pr=C['PIPE_A']*0.5/(15*500); ps=S['PIPE_A']*0.5/(15*500)
print(f"pipeline per warp inst: raw {C['PIPE_A']:.6e}*0.5/7500 = {pr*pJ:.2f} pJ; scaled {S['PIPE_A']:.6e}*0.5/7500 = {ps*pJ:.2f} pJ")
show("core_compute fma.f32 (FP__OP, latency 1): 32 FPU + 96 RF reads + 32 RF writes",[('FPU_ACC',32),('REG_RD',96),('REG_WR',32)])
show("core_compute mad.f32 (FP_MUL_OP, latency 1.8): 57.6 FPU + 96 RF reads + 32 RF writes",[('FPU_ACC',57.6),('REG_RD',96),('REG_WR',32)])
# ld/st: AGU = +1 FPU access per load/store warp instruction (power_stat.h get_tot_fpu_accessess), RF, coalescer+xbar part of DC coefficient
xr=sub['xbar_shared_J']; rc=sub['readcoalescing_J']; wc=sub['writecoalescing_J']
print(f"non-array part of DC_RH = xbar_shared {xr*pJ:.4f} + readcoalescing {rc*pJ:.4f} = {(xr+rc)*pJ:.4f} pJ raw; x22.14 = {(xr+rc)*22.14*pJ:.2f} pJ scaled")
print(f"non-array part of DC_WH = xbar_shared {xr*pJ:.4f} + writecoalescing {wc*pJ:.4f} = {(xr+wc)*pJ:.4f} pJ raw; x1.53 = {(xr+wc)*1.53*pJ:.2f} pJ scaled")
lr,ls=show("core_ldst load, excl. coalescer/array: 1 FPU(AGU) + 32 RF reads + 32 RF writes",[('FPU_ACC',1),('REG_RD',32),('REG_WR',32)])
print(f"   load incl. xbar+coalescer for 1 L1 access: raw {(lr+xr+rc)*pJ:.2f} pJ; scaled {(ls+(xr+rc)*22.14)*pJ:.2f} pJ")
sr,ss=show("core_ldst store, excl. coalescer/array: 1 FPU(AGU) + 64 RF reads",[('FPU_ACC',1),('REG_RD',64)])
print(f"   store incl. xbar+coalescer for 1 L1 access: raw {(sr+xr+wc)*pJ:.2f} pJ; scaled {(ss+(xr+wc)*1.53)*pJ:.2f} pJ")
print(f"L1D array only (for cross-check with CACTI): read {sub['dcache_read_J']*pJ:.3f} pJ, write {sub['dcache_write_J']*pJ:.3f} pJ per access (16KB 4-way 32B-line XML config)")
