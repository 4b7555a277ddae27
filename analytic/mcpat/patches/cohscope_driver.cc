// cohscope helper driver (not upstream): feeds one sample of synthetic activity
// into GPUWattch's wrapper (same calls as src/gpgpu-sim/power_interface.cc mcpat_cycle)
// and prints the per-event energy coefficients the wrapper computes.
#include "gpgpu_sim_wrapper.h"
#include <cstdlib>
int main(int argc, char** argv) {
  char* xml = argv[1];
  int freq = argc > 2 ? atoi(argv[2]) : 500;
  gpgpu_sim_wrapper* w = new gpgpu_sim_wrapper(true, xml);
  char pf[] = "cohscope_power.log";
  char t1[] = "t1.gz", t2[] = "t2.gz", t3[] = "t3.gz";
  w->init_mcpat(xml, pf, t1, t2, t3, true, false, false, false, 0, 0, 6, 0, freq);
  // synthetic sample: 1000 warp insts, all FP, per power_interface.cc units
  double N = 1000;
  w->set_inst_power(false, freq, freq, N, 0, N, 0, 0, N);
  w->set_regfile_power(3 * 32 * N, 32 * N, 0);
  w->set_icache_power(N, 0);
  w->set_ccache_power(0, 0);
  w->set_tcache_power(0, 0);
  w->set_shrd_mem_power(0);
  w->set_l1cache_power(0, 0, 0, 0);
  w->set_l2cache_power(0, 0, 0, 0);
  w->set_idle_core_power(0);
  w->set_duty_cycle_power(0.5);
  w->set_mem_ctrl_power(0, 0, 0);
  w->set_exec_unit_power(32 * N, 0, 0);
  w->set_active_lanes_power(32, 0);
  w->set_NoC_power(0, 0);
  w->compute();
  w->update_components_power();
  w->cohscope_print_coeffs();
  return 0;
}
