// cacti_dump: CACTI 7's own driver (cacti_interface(infile), unchanged: it prints CACTI's usual
// text report and appends to <infile>.out), followed by one machine-readable line per array of
// the chosen solution. CACTI's text report gives the data and tag arrays' read energy and
// subthreshold leakage only; their write energy and gate leakage are in the same result structure
// (uca_org_t::data_array2 / tag_array2, whose sum is the cache total: uca_org_t::find_energy), so
// this prints them. Links CACTI's unmodified object files (all but main.o). Not part of CACTI.
#include "io.h"
#include "Ucache.h"
#include <cstdio>
#include <iostream>
using namespace std;

static void dump(const char *name, const powerDef &p, double area_um2, double acc_s, double cyc_s,
                 double h_um, double w_um, const mem_array *a)
{
  printf("DUMP array=%s read_nj=%.9g write_nj=%.9g search_nj=%.9g sub_leak_mw=%.9g gate_leak_mw=%.9g "
         "access_ns=%.9g cycle_ns=%.9g area_mm2=%.9g height_mm=%.9g width_mm=%.9g",
         name, p.readOp.dynamic * 1e9, p.writeOp.dynamic * 1e9, p.searchOp.dynamic * 1e9,
         p.readOp.leakage * 1e3, p.readOp.gate_leakage * 1e3, acc_s * 1e9, cyc_s * 1e9,
         area_um2 * 1e-6, h_um * 1e-3, w_um * 1e-3);
  if (a)
    printf(" Ndwl=%d Ndbl=%d Nspd=%g deg_bl_mux=%d Ndsam1=%d Ndsam2=%d",
           a->Ndwl, a->Ndbl, a->Nspd, a->deg_bl_muxing, a->Ndsam_lev_1, a->Ndsam_lev_2);
  printf("\n");
}

int main(int argc, char **argv)
{
  if (argc != 3 || string(argv[1]) != "-infile") {
    cerr << "usage: cacti_dump -infile FILE.cfg" << endl;
    return 1;
  }
  uca_org_t r = cacti_interface(string(argv[2]));
  cout.flush();
  if (!r.data_array2) { printf("DUMP error=no-solution\n"); return 2; }
  dump("total", r.power, r.area, r.access_time, r.cycle_time, r.cache_ht, r.cache_len, 0);
  mem_array *d = r.data_array2, *t = r.tag_array2;
  dump("data", d->power, d->area, d->access_time, d->cycle_time, d->height, d->width, d);
  if (t)
    dump("tag", t->power, t->area, t->access_time, t->cycle_time, t->height, t->width, t);
  fflush(stdout);
  return 0;
}
