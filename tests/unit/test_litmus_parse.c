/*
 * tests/unit/test_litmus_parse.c - the herdtools7 `.litmus` parser (workloads/litmus/parse.c):
 * exact in-memory form of upstream LKMM / C11 / OpenCL / X86 / PTX tests, every upstream copy under
 * tests/litmus/upstream parses, other dialects and bad inputs give one-line "FILE:LINE: ..."
 * errors, limits, and a small fuzz (truncations, mutations, garbage) that must never crash.
 */
#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/litmus/litmus.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static const char *src_dir(void)
{
	const char *s = getenv("COHSCOPE_SRC");

	return s && *s ? s : "/work/main";
}

static char *upstream_path(const char *rel)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s/tests/litmus/upstream/%s", src_dir(), rel);
	return buf;
}

static struct litmus_test *parse_ok_file(const char *rel)
{
	struct litmus_test *t = NULL;
	struct cs_err err = {0};
	int rc = litmus_parse_file(upstream_path(rel), &t, &err);

	if (rc || !t)
		ck_abort_msg("%s: rc %d: %s", rel, rc, err.msg);
	return t;
}

static struct litmus_test *parse_ok(const char *text)
{
	struct litmus_test *t = NULL;
	struct cs_err err = {0};
	int rc = litmus_parse_string(text, "mem.litmus", &t, &err);

	if (rc || !t)
		ck_abort_msg("rc %d: %s\n--- input:\n%s", rc, err.msg, text);
	return t;
}

/* Parsing must fail with -CS_EINVAL and a message containing `want`. */
static void parse_bad(const char *text, const char *want)
{
	struct litmus_test *t = (struct litmus_test *)1;
	struct cs_err err = {0};
	int rc = litmus_parse_string(text, "bad.litmus", &t, &err);

	if (rc == 0) {
		litmus_free(t);
		ck_abort_msg("parsed, expected '%s'\n--- input:\n%s", want, text);
	}
	ck_assert_int_eq(rc, -CS_EINVAL);
	ck_assert_ptr_null(t);
	if (!strstr(err.msg, want))
		ck_abort_msg("message '%s' lacks '%s'", err.msg, want);
	if (strncmp(err.msg, "bad.litmus:", 11) || strchr(err.msg, '\n'))
		ck_abort_msg("message '%s' is not one 'FILE:LINE: ...' line", err.msg);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

#define MAX_FILES 128

/* The upstream files (relative paths), sorted by directory listing order. */
static unsigned list_upstream(char names[][300], unsigned max)
{
	static const char *const dirs[] = {"c-lkmm", "c11", "opencl", "x86", "ptx", "ptx-legacy"};
	unsigned n = 0;

	for (unsigned d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		DIR *dir = opendir(upstream_path(dirs[d]));
		struct dirent *e;

		ck_assert_msg(dir != NULL, "cannot list %s", upstream_path(dirs[d]));
		while ((e = readdir(dir))) {
			size_t l = strlen(e->d_name);

			if (l < 8 || strcmp(e->d_name + l - 7, ".litmus") || n >= max)
				continue;
			snprintf(names[n++], 300, "%s/%s", dirs[d], e->d_name);
		}
		closedir(dir);
	}
	return n;
}

static void check_op(const struct lit_op *op, int kind, int order, int loc, int reg, int64_t k)
{
	if (op->kind != kind || op->order != order || (loc >= 0 && op->loc != loc) ||
	    op->reg != reg || (kind != LIT_LOAD && kind != LIT_FENCE && op->val.k != k))
		ck_abort_msg("op line %u: kind %d order %d loc %d reg %d k %lld; want %d %d %d %d "
			     "%lld",
			     op->line, op->kind, op->order, op->loc, op->reg, (long long)op->val.k,
			     kind, order, loc, reg, (long long)k);
}

static void check_atom_reg(const struct lit_atom *a, unsigned th, unsigned reg, int64_t v)
{
	ck_assert(!a->is_loc);
	ck_assert_uint_eq(a->thread, th);
	ck_assert_uint_eq(a->reg, reg);
	ck_assert_int_eq(a->value, v);
}

/* ---- upstream content ---------------------------------------------------------------------- */

START_TEST(test_lkmm_mp_release_acquire)
{
	struct litmus_test *t = parse_ok_file("c-lkmm/MP+pooncerelease+poacquireonce.litmus");
	const struct lit_thread *p0 = &t->threads[0], *p1 = &t->threads[1];

	ck_assert_str_eq(t->arch, "C");
	ck_assert_str_eq(t->name, "MP+pooncerelease+poacquireonce");
	ck_assert(strstr(t->path, "MP+pooncerelease+poacquireonce.litmus") != NULL);
	ck_assert_uint_eq(t->nthreads, 2);
	ck_assert_uint_eq(t->nlocs, 2);
	ck_assert_str_eq(t->locs[0].name, "buf");
	ck_assert_str_eq(t->locs[1].name, "flag");
	ck_assert_int_eq(t->locs[0].init, 0);
	ck_assert(!t->locs[0].atomic && !t->locs[1].local);
	ck_assert(!t->coherence);
	ck_assert_str_eq(t->expect_sc, "");
	ck_assert_str_eq(p0->name, "P0");
	ck_assert_int_eq(p0->wg, -1);
	ck_assert_int_eq(p0->dev, -1);
	/* P0: WRITE_ONCE(*buf, 1); smp_store_release(flag, 1); */
	ck_assert_uint_eq(p0->nops, 2);
	check_op(&p0->ops[0], LIT_STORE, LIT_ONCE, 0, -1, 1);
	check_op(&p0->ops[1], LIT_STORE, LIT_RELEASE, 1, -1, 1);
	ck_assert(!p0->ops[0].val.is_reg);
	ck_assert_uint_eq(p0->ops[0].scope, LIT_SCOPE_DEFAULT);
	ck_assert_uint_eq(p0->ops[0].line, 15);
	/* P1: r0 = smp_load_acquire(flag); r1 = READ_ONCE(*buf); */
	ck_assert_uint_eq(p1->nregs, 2);
	ck_assert_str_eq(p1->regs[0], "r0");
	ck_assert_str_eq(p1->regs[1], "r1");
	ck_assert_uint_eq(p1->nops, 2);
	check_op(&p1->ops[0], LIT_LOAD, LIT_ACQUIRE, 1, 0, 0);
	check_op(&p1->ops[1], LIT_LOAD, LIT_ONCE, 0, 1, 0);
	/* exists (1:r0=1 /\ 1:r1=0) (* Bad outcome. *) */
	ck_assert(!t->cond.negated);
	ck_assert_uint_eq(t->cond.natoms, 2);
	check_atom_reg(&t->cond.atoms[0], 1, 0, 1);
	check_atom_reg(&t->cond.atoms[1], 1, 1, 0);
	litmus_free(t);
}
END_TEST

START_TEST(test_lkmm_fences_and_coherence)
{
	struct litmus_test *t = parse_ok_file("c-lkmm/MP+fencewmbonceonce+fencermbonceonce.litmus");

	ck_assert_uint_eq(t->threads[0].nops, 3);
	ck_assert_uint_eq(t->threads[0].ops[1].kind, LIT_FENCE);
	ck_assert_uint_eq(t->threads[0].ops[1].fence, LIT_FENCE_WMB);
	ck_assert_uint_eq(t->threads[1].ops[1].kind, LIT_FENCE);
	ck_assert_uint_eq(t->threads[1].ops[1].fence, LIT_FENCE_RMB);
	litmus_free(t);

	t = parse_ok_file("c-lkmm/SB+fencembonceonces.litmus");
	ck_assert_uint_eq(t->threads[1].ops[1].fence, LIT_FENCE_MB);
	check_op(&t->threads[1].ops[0], LIT_STORE, LIT_ONCE, 1, -1, 1);
	check_op(&t->threads[1].ops[2], LIT_LOAD, LIT_ONCE, 0, 0, 0);
	litmus_free(t);

	/* CoRW: exists (x=2 /\ 0:r0=2) with a location atom */
	t = parse_ok_file("c-lkmm/CoRW+poonceonce+Once.litmus");
	ck_assert(t->coherence);
	ck_assert_uint_eq(t->nlocs, 1);
	ck_assert_uint_eq(t->cond.natoms, 2);
	ck_assert(t->cond.atoms[0].is_loc);
	ck_assert_uint_eq(t->cond.atoms[0].loc, 0);
	ck_assert_int_eq(t->cond.atoms[0].value, 2);
	check_atom_reg(&t->cond.atoms[1], 0, 0, 2);
	litmus_free(t);

	t = parse_ok_file("c-lkmm/CoRR+poonceonce+Once.litmus");
	ck_assert(t->coherence);
	litmus_free(t);
	t = parse_ok_file("c-lkmm/C-2+2W+o-o+o-o.litmus");
	ck_assert(!t->coherence);
	ck_assert_str_eq(t->locs[0].name, "x0");
	check_op(&t->threads[1].ops[1], LIT_STORE, LIT_ONCE, 0, -1, 2);
	litmus_free(t);
}
END_TEST

START_TEST(test_c11_orders)
{
	struct litmus_test *t = parse_ok_file("c11/RWC-sc-acq-sc-sc-sc.litmus");

	ck_assert_uint_eq(t->nthreads, 3);
	ck_assert(t->locs[0].atomic && t->locs[1].atomic);
	ck_assert_uint_eq(t->threads[0].nops, 1);
	check_op(&t->threads[0].ops[0], LIT_STORE, LIT_SC, 0, -1, 1);
	check_op(&t->threads[1].ops[0], LIT_LOAD, LIT_ACQUIRE, 0, 0, 0);
	check_op(&t->threads[1].ops[1], LIT_LOAD, LIT_SC, 1, 1, 0);
	check_op(&t->threads[2].ops[0], LIT_STORE, LIT_SC, 1, -1, 1);
	check_op(&t->threads[2].ops[1], LIT_LOAD, LIT_SC, 0, 0, 0);
	ck_assert_str_eq(t->threads[2].regs[0], "r3");
	ck_assert_uint_eq(t->cond.natoms, 3);
	check_atom_reg(&t->cond.atoms[2], 2, 0, 0);
	litmus_free(t);

	/* relaxed stores / loads and `if (r1)` */
	t = parse_ok_file("c11/mp-c11-relaxed.litmus");
	check_op(&t->threads[0].ops[1], LIT_STORE, LIT_ONCE, 1, -1, 1);
	ck_assert_uint_eq(t->threads[1].nops, 4);
	check_op(&t->threads[1].ops[0], LIT_MOVE, LIT_ONCE, -1, 0, 0); /* int r2 = 0 */
	check_op(&t->threads[1].ops[1], LIT_LOAD, LIT_ONCE, 1, 1, 0);
	ck_assert_uint_eq(t->threads[1].ops[2].kind, LIT_BRANCH);
	ck_assert_uint_eq(t->threads[1].ops[2].cmp, LIT_TRUE);
	ck_assert(t->threads[1].ops[2].a.is_reg);
	ck_assert_uint_eq(t->threads[1].ops[2].a.reg, 1);
	ck_assert_uint_eq(t->threads[1].ops[2].skip, 1);
	check_op(&t->threads[1].ops[3], LIT_LOAD, LIT_ONCE, 0, 0, 0);
	litmus_free(t);

	/* fences and `if (1 == r0)` */
	t = parse_ok_file("c11/mp_fences.litmus");
	ck_assert_str_eq(t->locs[0].name, "x");
	ck_assert(t->locs[1].atomic && !t->locs[0].atomic);
	ck_assert_uint_eq(t->threads[0].ops[1].kind, LIT_FENCE);
	ck_assert_uint_eq(t->threads[0].ops[1].fence, LIT_FENCE_REL);
	ck_assert_uint_eq(t->threads[1].ops[1].fence, LIT_FENCE_ACQ);
	check_op(&t->threads[1].ops[2], LIT_MOVE, LIT_ONCE, -1, 1, -1);
	ck_assert_uint_eq(t->threads[1].ops[3].cmp, LIT_EQ);
	ck_assert(!t->threads[1].ops[3].a.is_reg);
	ck_assert_int_eq(t->threads[1].ops[3].a.k, 1);
	ck_assert(t->threads[1].ops[3].b.is_reg);
	ck_assert_uint_eq(t->threads[1].ops[3].b.reg, 0);
	litmus_free(t);
}
END_TEST

START_TEST(test_opencl_isa2)
{
	struct litmus_test *t = parse_ok_file("opencl/ISA2.litmus");
	const struct lit_thread *p1 = &t->threads[1], *p2 = &t->threads[2];

	ck_assert_str_eq(t->arch, "OPENCL");
	ck_assert_str_eq(t->name, "ISA2");
	ck_assert_uint_eq(t->nthreads, 3);
	/* placement: P0@wg 0, dev 0; P1@wg 0, dev 0; P2@wg 1, dev 0 */
	ck_assert_int_eq(t->threads[0].wg, 0);
	ck_assert_int_eq(p1->wg, 0);
	ck_assert_int_eq(p2->wg, 1);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_int_eq(t->threads[i].dev, 0);
	ck_assert(!t->locs[0].atomic && t->locs[1].atomic && t->locs[2].atomic);
	ck_assert(!t->locs[1].local);
	/* P0: *x = 1; store_explicit(y, 1, release, work_group) */
	check_op(&t->threads[0].ops[0], LIT_STORE, LIT_ONCE, 0, -1, 1);
	check_op(&t->threads[0].ops[1], LIT_STORE, LIT_RELEASE, 1, -1, 1);
	ck_assert_uint_eq(t->threads[0].ops[0].scope, LIT_SCOPE_DEFAULT);
	ck_assert_uint_eq(t->threads[0].ops[1].scope, LIT_SCOPE_WG);
	/* P1: r0 = load(y, acquire, wg); if (1 == r0) { store(z, 1, release, device) } */
	ck_assert_uint_eq(p1->nops, 3);
	check_op(&p1->ops[0], LIT_LOAD, LIT_ACQUIRE, 1, 0, 0);
	ck_assert_uint_eq(p1->ops[0].scope, LIT_SCOPE_WG);
	ck_assert_uint_eq(p1->ops[1].kind, LIT_BRANCH);
	ck_assert_uint_eq(p1->ops[1].skip, 1);
	check_op(&p1->ops[2], LIT_STORE, LIT_RELEASE, 2, -1, 1);
	ck_assert_uint_eq(p1->ops[2].scope, LIT_SCOPE_DEVICE);
	/* P2: r1 = load(z, acquire, dev); int r2 = -1; if (1 == r1) { r2 = *x; } */
	ck_assert_uint_eq(p2->nops, 4);
	check_op(&p2->ops[0], LIT_LOAD, LIT_ACQUIRE, 2, 0, 0);
	ck_assert_uint_eq(p2->ops[0].scope, LIT_SCOPE_DEVICE);
	check_op(&p2->ops[1], LIT_MOVE, LIT_ONCE, -1, 1, -1);
	ck_assert_uint_eq(p2->ops[2].kind, LIT_BRANCH);
	ck_assert_uint_eq(p2->ops[2].skip, 1);
	ck_assert_uint_eq(p2->ops[2].cmp, LIT_EQ);
	check_op(&p2->ops[3], LIT_LOAD, LIT_ONCE, 0, 1, 0);
	ck_assert_uint_eq(t->cond.natoms, 3);
	check_atom_reg(&t->cond.atoms[0], 1, 0, 1);
	check_atom_reg(&t->cond.atoms[1], 2, 0, 1);
	check_atom_reg(&t->cond.atoms[2], 2, 1, 0);
	litmus_free(t);

	t = parse_ok_file("opencl/ISA2_broken.litmus");
	ck_assert(t->locs[1].local && !t->locs[0].local && !t->locs[2].local);
	litmus_free(t);

	t = parse_ok_file("opencl/MP_ra_dev_broken.litmus");
	ck_assert_int_eq(t->threads[1].wg, 0);
	ck_assert_int_eq(t->threads[1].dev, 1);
	litmus_free(t);
}
END_TEST

START_TEST(test_opencl_scope_tree)
{
	struct litmus_test *t = parse_ok_file("opencl/2+2W_herd.litmus");

	ck_assert_str_eq(t->arch, "OpenCL");
	ck_assert_str_eq(t->name, "2+2W_xaG_yaG_sc--sc_sc--sc_0||1");
	ck_assert_int_eq(t->threads[0].wg, 0);
	ck_assert_int_eq(t->threads[1].wg, 1);
	ck_assert_int_eq(t->threads[0].dev, 0);
	ck_assert_int_eq(t->threads[1].dev, 0);
	check_op(&t->threads[0].ops[0], LIT_STORE, LIT_SC, 0, -1, 2);
	check_op(&t->threads[1].ops[1], LIT_STORE, LIT_SC, 0, -1, 1);
	ck_assert(t->cond.atoms[0].is_loc && t->cond.atoms[1].is_loc);
	ck_assert_int_eq(t->cond.atoms[0].value, 1);
	ck_assert_uint_eq(t->cond.atoms[1].loc, 1);
	litmus_free(t);

	/* two devices, sub-groups ignored */
	t = parse_ok("OpenCL T\n{}\nP0(global int *x) { *x = 1; }\nP1(global int *x) { }\n"
		     "P2(global int *x) { }\nscopeTree\n(device (work_group (sub_group P0)) "
		     "(work_group P1)) (device (work_group P2))\nexists (x=1)\n");
	ck_assert_int_eq(t->threads[0].wg, 0);
	ck_assert_int_eq(t->threads[1].wg, 1);
	ck_assert_int_eq(t->threads[2].wg, 2);
	ck_assert_int_eq(t->threads[2].dev, 1);
	litmus_free(t);
	parse_bad("OpenCL T\n{}\nP0(global int *x) { }\nscopeTree\n(device (work_group P3))\n"
		  "exists (x=0)\n",
		  ":5: scopeTree names P3");
	parse_bad("OpenCL T\n{}\nP0(global int *x) { }\nscopeTree\n(device (cta P0))\n"
		  "exists (x=0)\n",
		  ":5: unsupported: scope level cta");
}
END_TEST

START_TEST(test_every_upstream_file_parses)
{
	static char names[MAX_FILES][300];
	unsigned n = list_upstream(names, MAX_FILES), per[2] = {0, 0};

	ck_assert_uint_ge(n, 58);
	for (unsigned i = 0; i < n; i++) {
		struct litmus_test *t = parse_ok_file(names[i]);

		if (t->nthreads < 1 || t->cond.natoms < 1 || t->nlocs < 1)
			ck_abort_msg("%s: empty test", names[i]);
		for (unsigned j = 0; j < t->nthreads; j++)
			if (t->threads[j].nops < 1)
				ck_abort_msg("%s: P%u has no ops", names[i], j);
		per[strcmp(t->arch, "C") != 0]++;
		if (!strncmp(names[i], "opencl/", 7))
			ck_assert(strcmp(t->arch, "C") != 0);
		litmus_free(t);
	}
	ck_assert_uint_ge(per[0], 28);
	ck_assert_uint_ge(per[1], 30);
}
END_TEST

/* GPU_PTX (herd 2015): .reg declarations, addresses in registers, cache operators, scopeTree. */
START_TEST(test_ptx_legacy)
{
	struct litmus_test *t = parse_ok_file("ptx-legacy/coRR.litmus");
	const struct lit_thread *p0 = &t->threads[0], *p1 = &t->threads[1];

	ck_assert_str_eq(t->arch, "GPU_PTX");
	ck_assert_str_eq(t->name, "CoRR");
	ck_assert_uint_eq(t->nthreads, 2);
	ck_assert_uint_eq(t->nlocs, 1);
	ck_assert_str_eq(t->locs[0].name, "x");
	ck_assert(!t->locs[0].local);
	/* P0: mov r0,1; st.cg [r1],r0 (r1 holds x's address: no op) */
	ck_assert_uint_eq(p0->nops, 2);
	ck_assert_uint_eq(p0->nregs, 2);
	ck_assert_str_eq(p0->regs[1], "r1");
	check_op(&p0->ops[0], LIT_MOVE, LIT_ONCE, -1, 0, 1);
	ck_assert_uint_eq(p0->ops[1].kind, LIT_STORE);
	ck_assert(p0->ops[1].val.is_reg && p0->ops[1].val.reg == 0);
	ck_assert_uint_eq(p0->ops[1].co, LIT_CO_CG);
	ck_assert(!p0->ops[1].atomic);
	ck_assert_uint_eq(p0->ops[1].line, 12);
	/* P1: two ld.cg of x into r0, r2 */
	ck_assert_uint_eq(p1->nops, 2);
	check_op(&p1->ops[0], LIT_LOAD, LIT_ONCE, 0, 0, 0);
	check_op(&p1->ops[1], LIT_LOAD, LIT_ONCE, 0, 1, 0);
	ck_assert_uint_eq(p1->ops[1].co, LIT_CO_CG);
	/* two CTAs of one device */
	ck_assert_int_eq(p0->wg, 0);
	ck_assert_int_eq(p1->wg, 1);
	ck_assert_int_eq(p0->dev, 0);
	ck_assert_int_eq(p1->dev, 0);
	check_atom_reg(&t->cond.atoms[0], 1, 0, 1);
	check_atom_reg(&t->cond.atoms[1], 1, 1, 0);
	ck_assert(!t->coherence || !strcmp(t->name, "CoRR")); /* the name makes it a Co shape */
	litmus_free(t);

	/* membar.gl: an acq_rel fence of device scope */
	t = parse_ok_file("ptx-legacy/mp+membar.gls.litmus");
	ck_assert_uint_eq(t->threads[0].nops, 5);
	ck_assert_uint_eq(t->threads[0].ops[2].kind, LIT_FENCE);
	ck_assert_uint_eq(t->threads[0].ops[2].fence, LIT_FENCE_ACQ_REL);
	ck_assert_uint_eq(t->threads[0].ops[2].scope, LIT_SCOPE_DEVICE);
	ck_assert_uint_eq(t->threads[1].ops[1].scope, LIT_SCOPE_DEVICE);
	ck_assert_str_eq(t->locs[0].name, "x");
	ck_assert_str_eq(t->locs[1].name, "y");
	check_op(&t->threads[1].ops[0], LIT_LOAD, LIT_ONCE, 1, 0, 0);
	litmus_free(t);

	/* every operator and membar, direct [x] addresses, shared memory, CTA-mates */
	t = parse_ok("GPU_PTX T\n{\n0:.reg .s32 r0 = 5;\n0:.reg .b64 r1 = x;\n}\n"
		     " P0                 | P1                   ;\n"
		     " ld.ca.s32 r2,[r1]  | ld.global.cv.u32 r0,[x] ;\n"
		     " st.cv.s32 [r1],r0  | ld.volatile.s32 r1,[x]  ;\n"
		     " membar.cta         | st.volatile.b32 [x],-1  ;\n"
		     " membar.sys         | ld.s32 r2,[x]           ;\n"
		     "scopeTree\n(device(kernel(cta(warp P0)(warp P1))))\nx: shared\n"
		     "exists (0:r2=0 /\\ 1:r0=1)\n");
	ck_assert_uint_eq(t->threads[0].nops, 5); /* the MOVE of r0 = 5 first */
	check_op(&t->threads[0].ops[0], LIT_MOVE, LIT_ONCE, -1, 0, 5);
	ck_assert_uint_eq(t->threads[0].ops[1].co, LIT_CO_CA);
	ck_assert_uint_eq(t->threads[0].ops[2].co, LIT_CO_CV);
	ck_assert_uint_eq(t->threads[0].ops[3].scope, LIT_SCOPE_WG);
	ck_assert_uint_eq(t->threads[0].ops[4].scope, LIT_SCOPE_SYSTEM);
	ck_assert_uint_eq(t->threads[1].ops[0].co, LIT_CO_CV);
	ck_assert_uint_eq(t->threads[1].ops[1].co, LIT_CO_CV); /* .volatile read as .cv */
	ck_assert_uint_eq(t->threads[1].ops[2].co, LIT_CO_CV);
	ck_assert_int_eq(t->threads[1].ops[2].val.k, -1);
	ck_assert_uint_eq(t->threads[1].ops[3].co, LIT_CO_NONE);
	ck_assert_int_eq(t->threads[0].wg, t->threads[1].wg);
	ck_assert(t->locs[0].local);
	litmus_free(t);
}
END_TEST

/* PTX 6 (Dat3M): semantics and scopes, fences, `@cta N,gpu N` placement, `==` / `!=`. */
START_TEST(test_ptx6)
{
	struct litmus_test *t = parse_ok_file("ptx/MP-gpu.litmus");
	const struct lit_op *op;

	ck_assert_str_eq(t->arch, "PTX");
	ck_assert_uint_eq(t->nthreads, 2);
	ck_assert_int_eq(t->threads[0].wg, 0);
	ck_assert_int_eq(t->threads[1].wg, 0);
	ck_assert_int_eq(t->threads[1].dev, 0);
	/* P1:r1=0; P1:r2=0 in the init block: two MOVEs, then the loads */
	ck_assert_uint_eq(t->threads[1].nops, 4);
	op = &t->threads[0].ops[0]; /* st.weak x, 1 */
	check_op(op, LIT_STORE, LIT_ONCE, 0, -1, 1);
	ck_assert(!op->atomic);
	op = &t->threads[0].ops[1]; /* st.release.gpu y, 1 */
	check_op(op, LIT_STORE, LIT_RELEASE, 1, -1, 1);
	ck_assert(op->atomic);
	ck_assert_uint_eq(op->scope, LIT_SCOPE_DEVICE);
	op = &t->threads[1].ops[2]; /* ld.acquire.gpu r1, y */
	check_op(op, LIT_LOAD, LIT_ACQUIRE, 1, 0, 0);
	ck_assert(op->atomic);
	op = &t->threads[1].ops[3]; /* ld.weak r2, x */
	check_op(op, LIT_LOAD, LIT_ONCE, 0, 1, 0);
	ck_assert(!op->atomic);
	ck_assert(t->cond.negated);
	ck_assert(!t->cond.atoms[0].ne);
	ck_assert(t->cond.atoms[1].ne);
	check_atom_reg(&t->cond.atoms[1], 1, 1, 1);
	litmus_free(t);

	t = parse_ok_file("ptx/SB+sc-gpu.litmus");
	op = &t->threads[0].ops[2]; /* after the MOVE of P0:r1=0 and st.weak */
	ck_assert_uint_eq(op->kind, LIT_FENCE);
	ck_assert_uint_eq(op->fence, LIT_FENCE_SC);
	ck_assert(op->atomic);
	ck_assert_uint_eq(op->scope, LIT_SCOPE_DEVICE);
	ck_assert_int_eq(t->threads[1].wg, 1);
	litmus_free(t);

	t = parse_ok_file("ptx/MP-sys-fence.litmus");
	op = &t->threads[0].ops[1];
	ck_assert_uint_eq(op->fence, LIT_FENCE_ACQ_REL);
	ck_assert_uint_eq(op->scope, LIT_SCOPE_SYSTEM);
	op = &t->threads[0].ops[2]; /* st.relaxed.sys */
	check_op(op, LIT_STORE, LIT_ONCE, 1, -1, 1);
	ck_assert(op->atomic);
	litmus_free(t);

	/* two GPUs: placement kept as written (run on the one GPU, docs/litmus.md) */
	t = parse_ok_file("ptx/CoRR-weak-weak.litmus");
	ck_assert_int_eq(t->threads[0].dev, 0);
	ck_assert_int_eq(t->threads[1].dev, 1);
	ck_assert(t->coherence);
	litmus_free(t);
}
END_TEST

/* X86: herd's SB+rfi-pos as kept upstream, column by column. */
START_TEST(test_x86_sb_rfi)
{
	struct litmus_test *t = parse_ok_file("x86/SB+rfi-pos.litmus");

	ck_assert_str_eq(t->arch, "X86");
	ck_assert_str_eq(t->name, "SB+rfi-pos");
	ck_assert_uint_eq(t->nthreads, 2);
	ck_assert_uint_eq(t->nlocs, 2);
	ck_assert_str_eq(t->locs[0].name, "x");
	ck_assert_str_eq(t->locs[1].name, "y");
	for (unsigned i = 0; i < 2; i++) {
		const struct lit_thread *th = &t->threads[i];

		ck_assert_uint_eq(th->nops, 3);
		ck_assert_uint_eq(th->nregs, 2);
		ck_assert_str_eq(th->regs[0], "EAX");
		ck_assert_str_eq(th->regs[1], "EBX");
		check_op(&th->ops[0], LIT_STORE, LIT_ONCE, (int)i, -1, 1);
		check_op(&th->ops[1], LIT_LOAD, LIT_ONCE, (int)i, 0, 0);
		check_op(&th->ops[2], LIT_LOAD, LIT_ONCE, (int)(1 - i), 1, 0);
		ck_assert_uint_eq(th->ops[0].line, 10);
	}
	ck_assert(!t->cond.negated);
	ck_assert_uint_eq(t->cond.natoms, 4);
	check_atom_reg(&t->cond.atoms[0], 0, 0, 1);
	check_atom_reg(&t->cond.atoms[3], 1, 1, 0);
	litmus_free(t);
}
END_TEST

/* X86: fences, locked read-modify-writes, register moves and initial values, blank cells. */
START_TEST(test_x86_instructions)
{
	struct litmus_test *t = parse_ok("X86 rmw\n\"doc\"\nCohscope.tso=Forbid\n"
					 "{ x=1; 0:EAX=5; }\n"
					 " P0              | P1              ;\n"
					 " MFENCE          | XCHG EBX,[x]    ;\n"
					 " LOCK XADD [x],EAX | LOCK CMPXCHG [y],ECX ;\n"
					 " LOCK INC [y]    | LOCK ADD [x],$-2 ;\n"
					 " MOV ECX,$3      | lfence          ;\n"
					 " MOV [y],ECX     |                 ;\n"
					 "exists (0:EAX=1 /\\ 1:EBX=6 /\\ y=3)\n");
	const struct lit_thread *p0 = &t->threads[0], *p1 = &t->threads[1];

	ck_assert_str_eq(t->expect_tso, "Forbid");
	ck_assert_int_eq(t->locs[0].init, 1);
	ck_assert_uint_eq(p0->nops, 6); /* the init MOVE, then 5 */
	check_op(&p0->ops[0], LIT_MOVE, LIT_ONCE, -1, 0, 5);
	ck_assert_uint_eq(p0->ops[1].kind, LIT_FENCE);
	ck_assert_uint_eq(p0->ops[1].fence, LIT_FENCE_MB);
	ck_assert_uint_eq(p0->ops[2].kind, LIT_RMW);
	ck_assert_uint_eq(p0->ops[2].rmw, LIT_RMW_ADD);
	ck_assert_int_eq(p0->ops[2].reg, 0);
	ck_assert(p0->ops[2].val.is_reg && p0->ops[2].val.reg == 0);
	ck_assert_uint_eq(p0->ops[3].rmw, LIT_RMW_ADD);
	ck_assert_int_eq(p0->ops[3].reg, -1);
	ck_assert_int_eq(p0->ops[3].val.k, 1);
	check_op(&p0->ops[4], LIT_MOVE, LIT_ONCE, -1, 1, 3);
	ck_assert_uint_eq(p0->ops[5].kind, LIT_STORE);
	ck_assert(p0->ops[5].val.is_reg && p0->ops[5].val.reg == 1);
	ck_assert_uint_eq(p1->nops, 4);
	ck_assert_uint_eq(p1->ops[0].rmw, LIT_RMW_XCHG);
	ck_assert_uint_eq(p1->ops[0].loc, 0);
	ck_assert_str_eq(p1->regs[p1->ops[0].reg], "EBX");
	ck_assert_uint_eq(p1->ops[1].rmw, LIT_RMW_CAS);
	ck_assert_str_eq(p1->regs[p1->ops[1].reg], "EAX");
	ck_assert(p1->ops[1].val.is_reg && p1->ops[1].val.reg == (uint8_t)p1->ops[1].reg);
	ck_assert(p1->ops[1].val2.is_reg);
	ck_assert_str_eq(p1->regs[p1->ops[1].val2.reg], "ECX");
	ck_assert_int_eq(p1->ops[2].val.k, -2);
	ck_assert_uint_eq(p1->ops[3].fence, LIT_FENCE_RMB);
	ck_assert_uint_eq(t->cond.natoms, 3);
	litmus_free(t);
}
END_TEST

/* ---- syntax accepted ----------------------------------------------------------------------- */

START_TEST(test_syntax_variants)
{
	struct litmus_test *t;

	/* header keys, comments everywhere, no init block, brace on the header line, register
	 * init, `int x = 1` in init, C comments in the body, RMWs */
	t = parse_ok("(* leading *) C CoXY-test\n"
		     "\"doc string\" \"another\"\n"
		     "Cohscope.sc=Forbid\n"
		     "Cohscope.rc = allow\n"
		     "Cycle=Rfe PodRR Fre\n"
		     "{ int x = 3; [y]=-2; 1:r5=7; P0:r9 = 4; (* init comment *) }\n"
		     "P0 (atomic_int* x, int *y) { // hi\n"
		     "  int r0 = xchg(x, 5); /* c comment */\n"
		     "  r1 = cmpxchg_acquire(x, r0, 6);\n"
		     "  atomic_fetch_add_explicit(x, 2, memory_order_acq_rel, "
		     "memory_scope_all_svm_devices);\n"
		     "  atomic_compare_exchange_strong_explicit(x, &r0, 9, memory_order_release, "
		     "memory_order_relaxed);\n"
		     "  WRITE_ONCE(*y, r1);\n"
		     "  if (r0 != 2) { if (!r1) { r0 = 1; } ; }\n"
		     "  atomic_thread_fence(memory_order_relaxed);\n"
		     "  atomic_thread_fence(memory_order_seq_cst, memory_scope_device);\n"
		     "}\n"
		     "P1(int *y)\n{\n  int r2 = (READ_ONCE(*y));\n}\n"
		     "~exists (0:r0=1 /\\ (1:r2=-2 /\\ [y]=3) /\\ x=0 /\\ 1:r5=7)\n(* end *)\n");
	ck_assert_str_eq(t->name, "CoXY-test");
	ck_assert_str_eq(t->expect_sc, "Forbid");
	ck_assert_str_eq(t->expect_rc, "Allow");
	ck_assert(t->coherence);
	ck_assert(t->cond.negated);
	ck_assert_uint_eq(t->cond.natoms, 5);
	ck_assert_int_eq(t->cond.atoms[1].value, -2);
	ck_assert_uint_eq(t->nlocs, 2);
	ck_assert_int_eq(t->locs[0].init, 3);
	ck_assert_int_eq(t->locs[1].init, -2);
	ck_assert(t->locs[0].atomic);
	{
		const struct lit_thread *p0 = &t->threads[0];
		const struct lit_op *o = p0->ops;

		ck_assert_uint_eq(p0->nops, 10);
		ck_assert_str_eq(p0->regs[0], "r9"); /* from the init block */
		check_op(&o[0], LIT_MOVE, LIT_ONCE, -1, 0, 4);
		ck_assert_uint_eq(o[1].kind, LIT_RMW);
		ck_assert_uint_eq(o[1].rmw, LIT_RMW_XCHG);
		ck_assert_uint_eq(o[1].order, LIT_SC);
		ck_assert_int_eq(o[1].reg, 1);
		ck_assert_int_eq(o[1].val.k, 5);
		ck_assert_uint_eq(o[2].rmw, LIT_RMW_CAS);
		ck_assert_uint_eq(o[2].order, LIT_ACQUIRE);
		ck_assert_int_eq(o[2].reg, 2);
		ck_assert(o[2].val.is_reg && o[2].val.reg == 1);
		ck_assert_int_eq(o[2].val2.k, 6);
		ck_assert_uint_eq(o[3].rmw, LIT_RMW_ADD);
		ck_assert_uint_eq(o[3].order, LIT_ACQ_REL);
		ck_assert_uint_eq(o[3].scope, LIT_SCOPE_SYSTEM);
		ck_assert_int_eq(o[3].reg, -1);
		ck_assert_uint_eq(o[4].rmw, LIT_RMW_CAS);
		ck_assert_uint_eq(o[4].order, LIT_RELEASE);
		ck_assert_int_eq(o[4].reg, 1); /* the expected value is written back */
		ck_assert(o[4].val.is_reg && o[4].val.reg == 1);
		ck_assert_int_eq(o[4].val2.k, 9);
		ck_assert_uint_eq(o[5].kind, LIT_STORE);
		ck_assert(o[5].val.is_reg && o[5].val.reg == 2);
		ck_assert_uint_eq(o[6].kind, LIT_BRANCH);
		ck_assert_uint_eq(o[6].cmp, LIT_NE);
		ck_assert_uint_eq(o[6].skip, 2);
		ck_assert_uint_eq(o[7].kind, LIT_BRANCH);
		ck_assert_uint_eq(o[7].cmp, LIT_EQ); /* !r1 */
		ck_assert_uint_eq(o[7].skip, 1);
		check_op(&o[8], LIT_MOVE, LIT_ONCE, -1, 1, 1);
		/* relaxed fence: no op */
		ck_assert_uint_eq(o[9].kind, LIT_FENCE);
		ck_assert_uint_eq(o[9].fence, LIT_FENCE_SC);
		ck_assert_uint_eq(o[9].scope, LIT_SCOPE_DEVICE);
	}
	ck_assert_uint_eq(t->threads[1].nops, 2);
	check_op(&t->threads[1].ops[0], LIT_MOVE, LIT_ONCE, -1, 0, 7);
	ck_assert_str_eq(t->threads[1].regs[0], "r5");
	ck_assert_str_eq(t->threads[1].regs[1], "r2");
	litmus_free(t);
}
END_TEST

START_TEST(test_syntax_variants_2)
{
	struct litmus_test *t;

	t = parse_ok("C t\n{}\nP0(int *x) {\n int r0; int r1 = 4;\n r0 = READ_ONCE(*x);\n"
		     " r1 = r0;\n atomic_add(3, x); r0 = atomic_fetch_sub_release(2, x);\n"
		     " r1 = atomic_fetch_add(x, 1);\n}\nexists(0:r0=0)");
	ck_assert_uint_eq(t->threads[0].nops, 6);
	check_op(&t->threads[0].ops[0], LIT_MOVE, LIT_ONCE, -1, 1, 4);
	check_op(&t->threads[0].ops[1], LIT_LOAD, LIT_ONCE, 0, 0, 0);
	ck_assert(t->threads[0].ops[2].val.is_reg);
	ck_assert_uint_eq(t->threads[0].ops[2].kind, LIT_MOVE);
	ck_assert_uint_eq(t->threads[0].ops[3].rmw, LIT_RMW_ADD);
	ck_assert_int_eq(t->threads[0].ops[3].val.k, 3);
	ck_assert_int_eq(t->threads[0].ops[3].reg, -1);
	ck_assert_int_eq(t->threads[0].ops[4].val.k, -2);
	ck_assert_uint_eq(t->threads[0].ops[4].order, LIT_RELEASE);
	ck_assert_int_eq(t->threads[0].ops[4].reg, 0);
	ck_assert_int_eq(t->threads[0].ops[5].val.k, 1);
	ck_assert_uint_eq(t->threads[0].ops[5].order, LIT_SC);
	ck_assert_uint_eq(t->nlocs, 1);
	ck_assert(!t->coherence);
	litmus_free(t);

	/* Cohscope.shape, memory map, locations section, consume, all_devices */
	t = parse_ok("OpenCL MP\nCohscope.shape=coherence\n{ x = 0; }\n"
		     "P0@wg 3, dev 2 (global atomic_int *x) {\n"
		     " int r0 = atomic_load_explicit(x, memory_order_consume, "
		     "memory_scope_all_devices);\n}\n"
		     "x: local\nlocations [x; 0:r0;]\nexists 0:r0=1 /\\ x=0\n");
	ck_assert(t->coherence);
	ck_assert(t->locs[0].local);
	ck_assert_int_eq(t->threads[0].wg, 3);
	ck_assert_int_eq(t->threads[0].dev, 2);
	check_op(&t->threads[0].ops[0], LIT_LOAD, LIT_ACQUIRE, 0, 0, 0);
	ck_assert_uint_eq(t->threads[0].ops[0].scope, LIT_SCOPE_SYSTEM);
	ck_assert_uint_eq(t->cond.natoms, 2);
	litmus_free(t);
}
END_TEST

/* ---- errors -------------------------------------------------------------------------------- */

START_TEST(test_errors)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"", ":1: empty file"},
	    {"\n\n(* c *)\n", ":4: empty file"},
	    {"ARM MP\n{ }\n P0 | P1 ;\n", ":1: unsupported: architecture ARM"},
	    {"X86 t\n{ }\n P0 | P1 ;\n MOV [x],$1 ;\nexists (x=1)\n",
	     ":4: row has 1 cells, expected 2"},
	    {"X86 t\n{ }\n P0 ;\n ADD [x],$1 ;\nexists (x=1)\n",
	     ":4: unsupported: X86 instruction ADD"},
	    {"X86 t\n{ }\n P0 ;\n LOCK MOV [x],$1 ;\nexists (x=1)\n",
	     ":4: unsupported: X86 instruction LOCK MOV"},
	    {"X86 t\n{ }\n P0 ;\n MOV [x],1 ;\nexists (x=1)\n",
	     ":4: expected '$' before the immediate 1"},
	    {"X86 t\n{ }\n P0 ;\n MOV [x],[y] ;\nexists (x=1)\n", ":4: MOV from memory to memory"},
	    {"X86 t\n{ }\n P0 ;\n MOV EAX,[EBX] ;\nexists (x=1)\n",
	     ":4: unsupported: indirect address [EBX]"},
	    {"X86 t\n{ }\n P0 ;\n XCHG EAX,EBX ;\nexists (x=1)\n",
	     ":4: XCHG needs a memory operand first"},
	    {"X86 t\n{ }\n P1 | P0 ;\n", ":3: thread P1 out of order (expected P0)"},
	    {"X86 t\n{ }\n P0 | P1\n MOV [x],$1 | MOV [y],$1 ;\n", ":4: expected '|' between"},
	    {"X86 t\n{ }\n P0 ;\n MOV EAX,[x] ;\nexists (0:EBX=1)\n", ":5: unknown register 0:EBX"},
	    {"X86 t\n{ }\n P0 ;\n MOV EAX,[x] \nexists (x=1)\n", ":5: expected ';' at the end"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n ld.relaxed r1, x ;\nexists (P0:r1=0)\n",
	     ":4: ld needs a scope (.cta, .gpu or .sys)"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n st.acquire.gpu x, 1 ;\nexists (x=0)\n",
	     ":4: st cannot be .acquire"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n ld.weak.gpu r1, x ;\nexists (x=0)\n",
	     ":4: ld: a scope needs .relaxed, .acquire or .release"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n ld.relaxed.cg.gpu r1, x ;\nexists (x=0)\n",
	     ":4: ld: a cache operator on a strong access"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n ld.weak.weak r1, x ;\nexists (x=0)\n",
	     ":4: ld: .weak repeats a kind of qualifier"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n atom.add.gpu r1, x, 1 ;\nexists (x=0)\n",
	     ":4: unsupported: PTX instruction atom"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n ld.lu r1, x ;\nexists (x=0)\n",
	     ":4: unsupported: .lu in ld"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n ld.weak.s64 r1, x ;\nexists (x=0)\n",
	     ":4: unsupported: .s64 in ld"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n fence.sc ;\nexists (x=0)\n",
	     ":4: fence needs a scope (.cta, .gpu or .sys)"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n fence.gpu ;\nexists (x=0)\n",
	     ":4: fence needs .acq_rel or .sc"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n fence.sc.gl ;\nexists (x=0)\n",
	     ":4: fence needs a scope"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n membar.gpu ;\nexists (x=0)\n",
	     ":4: membar needs a scope (.cta, .gl or .sys)"},
	    {"PTX t\n{ y = 0; }\n P0@cta 0,gpu 0 ;\n st.weak x, y ;\nexists (x=0)\n",
	     ":4: 'y' is a location, expected a register as the value"},
	    {"PTX t\n{}\n P0@wg 0, dev 0 ;\n st.weak x, 1 ;\nexists (x=0)\n",
	     ":3: unsupported: scope tag '@wg'"},
	    {"PTX t\n{}\n P0@cta 0,dev 0 ;\n st.weak x, 1 ;\nexists (x=0)\n",
	     ":3: expected 'gpu N' in the scope tag"},
	    {"PTX t\n{}\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x<1)\n",
	     ":5: expected '=' in the condition"},
	    {"X86 t\n{ }\n P0@cta 0,gpu 0 ;\n MOV [x],$1 ;\nexists (x=1)\n",
	     ":3: unsupported: scope tag in an X86 test"},
	    {"GPU_PTX t\n{\n0:.reg .s32 r0;\n}\n P0 ;\n ld.cg.s32 r0,[r5] ;\nexists (0:r0=1)\n",
	     ":6: unknown address 'r5'"},
	    {"GPU_PTX t\n{\n0:.reg .s32 r0;\n}\n P0 ;\n ld.cg.s32 r0,[r0] ;\nexists (0:r0=1)\n",
	     ":6: register 'r0' holds no address"},
	    {"GPU_PTX t\n{\n0:.reg .b64 r1 = x;\n}\n P0 ;\n ld.cg.s32 r0,[r1+4] ;\n"
	     "exists (0:r0=1)\n",
	     ":6: unsupported: address offset"},
	    {"GPU_PTX t\n{\n0:.reg .b64 r1 = x;\n}\n P0 ;\n st.cg.s32 [r1],r1 ;\n"
	     "exists (x=1)\n",
	     ":6: unsupported: address register 'r1' as the value"},
	    {"GPU_PTX t\n{\n0:.reg .b64 r1 = x;\n}\n P0 ;\n mov.s32 r1,1 ;\nexists (x=1)\n",
	     ":6: unsupported: address register 'r1' as the destination"},
	    {"GPU_PTX t\n{\n0:.reg .f32 r0;\n}\n", ":3: unsupported: register type .f32"},
	    {"GPU_PTX t\n{\n0:.pred p;\n}\n", ":3: unsupported: .pred in the init block"},
	    {"GPU_PTX t\n{\n0:.reg .b64 r1 = x;\n}\n P0 ;\n st.cg.s32 [r1],1 ;\n"
	     "scopeTree\n(device (kernel (cta (warp P0 P0))))\nexists (x=1)\n",
	     ":8: P0 appears twice"},
	    {"GPU_PTX t\n{\n0:.reg .b64 r1 = x;\n}\n P0 | P1 ;\n st.cg.s32 [r1],1 | ;\n"
	     "scopeTree\n(device (kernel (cta (warp P0 P1))))\nexists (x=1)\n",
	     ":8: unsupported: two threads in one warp"},
	    {"GPU_PTX t\n{\n0:.reg .b64 r1 = x;\n}\n P0 ;\n st.cg.s32 [r1],1 ;\n"
	     "scopeTree\n(device (work_group P0))\nexists (x=1)\n",
	     ":8: unsupported: scope level work_group"},
	    {"GPU_PTX t\n{\n0:.reg .b64 r1 = x;\n}\n P0 ;\n st.cg.s32 [r1],1 ;\n"
	     "scopeTree\n(device (kernel P0))\nexists (x=1)\n",
	     ":8: P0 is not inside a cta"},
	    {"GPU_PTX t\n{\n0:.reg .b64 r1 = x;\n}\n P0 ;\n st.cg.s32 [r1],1 ;\n"
	     "x: texture\nexists (x=1)\n",
	     ":7: expected 'global' or 'local'"},
	    {"Vulkan corr\n", ":1: unsupported: architecture Vulkan"},
	    {"C\n", ":1: missing test name"},
	    {"C t extra\n", ":1: unexpected text after the test name"},
	    {"C t\n\"unterminated\n\n", ":2: unterminated string"},
	    {"C t\nCohscope.sc=Maybe\n", ":2: bad value 'Maybe' for Cohscope.sc"},
	    {"C t\n{ x = 0; }\nP0(int *x) {\n int r0;\n foo(x);\n}\nexists (x=0)\n",
	     ":5: unsupported: foo"},
	    {"C t\n{}\nP0(int *x) {\n int r0;\n if (r0 == 1) {\n } else {\n }\n}\n"
	     "exists (x=0)\n",
	     ":6: unsupported: else"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, 1);\n}\nexists (x=1 \\/ x=0)\n",
	     ":6: unsupported: disjunction"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, 1);\n}\nforall (x=1)\n",
	     ":6: unsupported: forall"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, 1);\n}\nexists (0:r0=1)\n",
	     ":6: unknown register 0:r0"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, 1);\n}\nexists (2:r0=1)\n",
	     ":6: condition names thread 2"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, 1);\n}\nexists (x!=1)\n",
	     ":6: unsupported: '!='"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, 1);\n}\n", ":6: expected 'exists'"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, 1);\n}\nexists (x=1) junk\n",
	     ":6: unexpected 'junk' after the final condition"},
	    {"C t\n{}\nP1(int *x) {\n}\nexists (x=1)\n", ":3: thread P1 out of order"},
	    {"C t\n{}\nP0(int *x) {\n}\nP0(int *x) {\n}\nexists (x=1)\n",
	     ":5: thread P0 defined twice"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*y, 1);\n}\nexists (x=1)\n",
	     ":4: unknown location 'y' (not a parameter of P0)"},
	    {"C t\n{}\nP0(int *x) {\n r0 = READ_ONCE(*x) + 1;\n}\nexists (x=1)\n",
	     ":4: unsupported: operator '+'"},
	    {"C t\n{}\nP0(int *x) {\n int r0;\n int r0;\n}\nexists (x=1)\n",
	     ":5: register 'r0' declared twice"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, r7);\n}\nexists (x=1)\n",
	     ":4: unknown register 'r7'"},
	    {"C t\n{}\nP0(int *x) {\n while (1) { }\n}\nexists (x=1)\n", ":4: unsupported: while"},
	    {"C t\n{}\nP0(int *x) {\n spin_lock(x);\n}\nexists (x=1)\n",
	     ":4: unsupported: spin_lock"},
	    {"C t\n{}\nP0(spinlock_t *x) {\n}\nexists (x=1)\n",
	     ":3: unsupported: parameter type 'spinlock_t'"},
	    {"C t\n{}\nP0(int x) {\n}\nexists (x=1)\n", ":3: unsupported: non-pointer parameter"},
	    {"C t\n{}\nP0(int *x) {\n int r0 = READ_ONCE(*x);\n if (r0 < 1) { }\n}\n"
	     "exists (x=1)\n",
	     ":5: unsupported: '<' in an if condition"},
	    {"C t\n{}\nP0(int *x) {\n int r0 = atomic_load_explicit(x, memory_order_rlx);\n}\n"
	     "exists (x=1)\n",
	     ":4: unknown memory order 'memory_order_rlx'"},
	    {"C t\n{}\nP0(int *x) {\n atomic_store_explicit(x, 1, memory_order_acquire);\n}\n"
	     "exists (x=1)\n",
	     ":4: memory order not valid for a store"},
	    {"C t\n{}\nP0(int *x) {\n int r0 = atomic_load_explicit(x, memory_order_seq_cst, "
	     "memory_scope_sub_group);\n}\nexists (x=1)\n",
	     ":4: unsupported: memory_scope_sub_group"},
	    {"C t\n{}\nP0(int *x) {\n READ_ONCE(*x);\n}\nexists (x=1)\n",
	     ":4: unsupported: discarded result of READ_ONCE"},
	    {"C t\n{}\nP0(int *x) {\n int r0 = smp_mb();\n}\nexists (x=1)\n",
	     ":4: unsupported: using the result of smp_mb"},
	    {"C t\n{}\nP0(int *x) {\n int r0 = atomic_compare_exchange_strong(x, &r0, 1);\n}\n"
	     "exists (x=1)\n",
	     ":4: unsupported: using the result of atomic_compare_exchange_strong"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, 1);\n", ":3: unterminated body of P0"},
	    {"C t\n{ x = y; }\n", ":2: unsupported: non-integer initial value 'y'"},
	    {"C t\n{ x = 0; x = 1; }\n", ":2: location x initialised twice"},
	    {"C t\n{ 3:r0 = 1; }\nP0(int *x) {\n}\nexists (x=0)\n",
	     ":2: register initialised for P3"},
	    {"C t\n{\nx=0;\n(* open\n", ":4: unterminated comment"},
	    {"C t\n{}\nP0@cta 0, gpu 0 (int *x) {\n}\nexists (x=0)\n",
	     ":3: unsupported: scope tag '@cta'"},
	    {"C t\n{}\nP0(int *x) {\n x = 1;\n}\nexists (x=0)\n",
	     ":4: unsupported: assignment to pointer 'x'"},
	    {"C t\n{}\nP0(int *x) {\n int r0 = 99999999999999999999;\n}\nexists (x=0)\n",
	     ":4: number '99999999999999999999' out of range"},
	    {"C t\n{}\nP0(int *x) {\n \x01;\n}\nexists (x=0)\n", ":4: unsupported: character 0x01"},
	    {"C t\n{}\nfoo\n", ":3: unsupported: foo"},
	    {"C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, 1);\nP1(int *x) {\n}\n",
	     ":5: missing '}' at the end of P0 (found 'P1')"},
	    {"C t\n{}\nP0(int *x) {\n}\nexists (x=1)\n x=2\n",
	     ":6: unexpected 'x' after the final condition"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		parse_bad(cases[i].text, cases[i].want);
}
END_TEST

START_TEST(test_negated_and_disjunction)
{
	struct litmus_test *t;
	const char *body = "C t\n{}\nP0(int *x) {\n int r0 = READ_ONCE(*x);\n}\n";
	char buf[256];

	snprintf(buf, sizeof(buf), "%s~exists (0:r0=1)\n", body);
	t = parse_ok(buf);
	ck_assert(t->cond.negated);
	litmus_free(t);
	snprintf(buf, sizeof(buf), "%s~ exists(0:r0=1)", body);
	t = parse_ok(buf);
	ck_assert(t->cond.negated);
	litmus_free(t);
	snprintf(buf, sizeof(buf), "%sexists\n(0:r0 = 1)", body);
	t = parse_ok(buf);
	ck_assert(!t->cond.negated);
	ck_assert_uint_eq(t->cond.natoms, 1);
	litmus_free(t);
	snprintf(buf, sizeof(buf), "%sexists (0:r0=1 /\\ (x=1 \\/ x=2))\n", body);
	parse_bad(buf, ":6: unsupported: disjunction");
}
END_TEST

/* Builds a test text with n threads / ops / regs / locs / atoms. */
static void build_big(char *buf, size_t size, unsigned threads, unsigned ops, unsigned regs,
		      unsigned locs, unsigned atoms)
{
	size_t n = 0;

	n += (size_t)snprintf(buf + n, size - n, "C big\n{}\n");
	for (unsigned t = 0; t < threads; t++) {
		n += (size_t)snprintf(buf + n, size - n, "P%u(", t);
		for (unsigned l = 0; l < locs; l++)
			n += (size_t)snprintf(buf + n, size - n, "%sint *l%u", l ? ", " : "", l);
		n += (size_t)snprintf(buf + n, size - n, ") {\n");
		for (unsigned r = 0; r < regs; r++)
			n += (size_t)snprintf(buf + n, size - n, "int r%u;\n", r);
		for (unsigned o = 0; o < ops; o++)
			n += (size_t)snprintf(buf + n, size - n, "WRITE_ONCE(*l0, %u);\n", o);
		n += (size_t)snprintf(buf + n, size - n, "}\n");
	}
	n += (size_t)snprintf(buf + n, size - n, "exists (");
	for (unsigned a = 0; a < atoms; a++)
		n += (size_t)snprintf(buf + n, size - n, "%sl0=%u", a ? " /\\ " : "", a);
	snprintf(buf + n, size - n, ")\n");
}

START_TEST(test_limits)
{
	static char buf[65536];
	struct litmus_test *t;

	build_big(buf, sizeof(buf), LIT_MAX_THREADS, LIT_MAX_OPS, LIT_MAX_REGS, LIT_MAX_LOCS,
		  LIT_MAX_ATOMS);
	t = parse_ok(buf);
	ck_assert_uint_eq(t->nthreads, LIT_MAX_THREADS);
	ck_assert_uint_eq(t->threads[LIT_MAX_THREADS - 1].nops, LIT_MAX_OPS);
	ck_assert_uint_eq(t->threads[0].nregs, LIT_MAX_REGS);
	ck_assert_uint_eq(t->nlocs, LIT_MAX_LOCS);
	ck_assert_uint_eq(t->cond.natoms, LIT_MAX_ATOMS);
	litmus_free(t);

	build_big(buf, sizeof(buf), LIT_MAX_THREADS + 1, 1, 0, 1, 1);
	parse_bad(buf, "too many threads");
	/* line of the 9th thread header: 2 header lines + 8 threads of 3 lines */
	ck_assert(strstr(buf, "P8(") != NULL);
	parse_bad(buf, ":27: too many threads (max 8)");
	build_big(buf, sizeof(buf), 1, LIT_MAX_OPS + 1, 0, 1, 1);
	parse_bad(buf, ":68: too many operations in P0 (max 64)");
	build_big(buf, sizeof(buf), 1, 1, LIT_MAX_REGS + 1, 1, 1);
	parse_bad(buf, ":20: too many registers in P0 (max 16)");
	build_big(buf, sizeof(buf), 1, 1, 0, LIT_MAX_LOCS + 1, 1);
	parse_bad(buf, ":3: too many locations (max 16)");
	build_big(buf, sizeof(buf), 1, 1, 0, 1, LIT_MAX_ATOMS + 1);
	parse_bad(buf, ":6: too many atoms in the condition (max 16)");

	/* deep nesting is refused, not a stack overflow */
	{
		size_t n = (size_t)snprintf(buf, sizeof(buf), "C t\n{}\nP0(int *x) {\n");

		for (unsigned i = 0; i < 10000; i++)
			buf[n++] = '{';
		buf[n] = '\0';
		parse_bad(buf, "nested too deeply");
		n = (size_t)snprintf(buf, sizeof(buf), "C t\n{}\nP0(int *x) {\n}\nexists ");
		for (unsigned i = 0; i < 10000; i++)
			buf[n++] = '(';
		buf[n] = '\0';
		parse_bad(buf, "nested too deeply");
	}
}
END_TEST

/* Issue 43, cases 7 and 10: values are the 32-bit words a location holds, and a location named
 * only in the condition holds 0, as herd7 gives it. */
START_TEST(test_words_and_condition_locations)
{
	struct litmus_test *t;

	t = parse_ok("X86 big\n{}\n P0 ;\n MOV [x],$4294967295 ;\n MOV EAX,[x] ;\n"
		     "exists (0:EAX=4294967295 /\\ x=-1)\n");
	ck_assert_int_eq(t->threads[0].ops[0].val.k, -1);
	ck_assert_uint_eq(t->cond.natoms, 2);
	ck_assert_int_eq(t->cond.atoms[0].value, -1);
	ck_assert_int_eq(t->cond.atoms[1].value, -1);
	litmus_free(t);
	parse_bad("X86 big\n{}\n P0 ;\n MOV [x],$4294967297 ;\nexists (x=1)\n",
		  "bad.litmus:4: 4294967297 does not fit in 32 bits");
	parse_bad("X86 big\n{}\n P0 ;\n MOV [x],$1 ;\nexists (x=-2147483649)\n",
		  "bad.litmus:5: -2147483649 does not fit in 32 bits");
	parse_bad("C big\n{ [x] = 4294967296; }\nP0(int *x) {\n WRITE_ONCE(*x, 1);\n}\n"
		  "exists (x=1)\n",
		  "bad.litmus:2: 4294967296 does not fit in 32 bits");
	t = parse_ok("C t\n{}\nP0(int *x) {\n WRITE_ONCE(*x, 1);\n}\nexists (x=1 /\\ w=0)\n");
	ck_assert_uint_eq(t->nlocs, 2);
	ck_assert_str_eq(t->locs[1].name, "w");
	ck_assert_int_eq(t->locs[1].init, 0);
	ck_assert(t->cond.atoms[1].is_loc);
	ck_assert_uint_eq(t->cond.atoms[1].loc, 1);
	litmus_free(t);
}
END_TEST

START_TEST(test_file_errors)
{
	struct litmus_test *t = (struct litmus_test *)1;
	struct cs_err err = {0};
	char path[1100];

	ck_assert_int_eq(litmus_parse_file("/nonexistent/x.litmus", &t, &err), -CS_EIO);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(err.msg, "/nonexistent/x.litmus: cannot open: No such file or directory");

	snprintf(path, sizeof(path), "%s/tests/litmus/upstream", src_dir());
	t = (struct litmus_test *)1;
	ck_assert_int_eq(litmus_parse_file(path, &t, &err), -CS_EIO);
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(err.msg, ": cannot open: Is a directory"), "%s", err.msg);

	/* a file that does parse: the path is in the test and in messages of later errors */
	t = parse_ok_file("c11/b.litmus");
	ck_assert_str_eq(t->path, upstream_path("c11/b.litmus"));
	litmus_free(t);
}
END_TEST

/* ---- fuzz ---------------------------------------------------------------------------------- */

static unsigned fuzz_one(const char *text, unsigned *ok)
{
	struct litmus_test *t = (struct litmus_test *)1;
	struct cs_err err = {0};
	int rc = litmus_parse_string(text, "fz.litmus", &t, &err);

	if (rc == 0) {
		if (!t || t->nthreads < 1 || t->nthreads > LIT_MAX_THREADS)
			ck_abort_msg("bad test from fuzz input");
		(*ok)++;
		litmus_free(t);
		return 0;
	}
	if (t != NULL || rc != -CS_EINVAL || strncmp(err.msg, "fz.litmus:", 10) ||
	    strchr(err.msg, '\n'))
		ck_abort_msg("bad failure rc %d t %p msg '%s'", rc, (void *)t, err.msg);
	return 1;
}

START_TEST(test_fuzz)
{
	static char names[MAX_FILES][300];
	unsigned n = list_upstream(names, MAX_FILES), ok = 0, bad = 0, whole = 0;
	uint64_t rng = 12345;

	for (unsigned i = 0; i < n; i++) {
		size_t len;
		char *text = read_all(upstream_path(names[i]), &len);
		char *copy = malloc(len + 1);

		ck_assert_ptr_nonnull(copy);
		/* truncations at every 7th byte: parse or fail cleanly */
		for (size_t cut = 0; cut <= len; cut += 7) {
			memcpy(copy, text, cut);
			copy[cut] = '\0';
			bad += fuzz_one(copy, &ok);
		}
		memcpy(copy, text, len + 1);
		whole += !fuzz_one(copy, &ok);
		/* byte mutations */
		for (unsigned m = 0; m < 60; m++) {
			memcpy(copy, text, len + 1);
			for (unsigned k = 0; k < 3 && len; k++) {
				rng = rng * 6364136223846793005ull + 1442695040888963407ull;
				copy[(rng >> 33) % len] = (char)(1 + (rng >> 20) % 255);
			}
			bad += fuzz_one(copy, &ok);
		}
		free(copy);
		free(text);
	}
	ck_assert_uint_eq(whole, n);
	/* garbage: random bytes and random tokens after a valid header */
	{
		static const char *const toks[] = {
		    "P0",	  "(",	       ")",	   "{",		"}",	  "int", "*x",
		    "x",	  "r0",	       "=",	   "1",		";",	  ",",	 "if",
		    "==",	  "/\\",       "\\/",	   "~",		"exists", "(*",	 "*)",
		    "//",	  "\n",	       "[x]",	   "0:",	"-",	  "@wg", "dev",
		    "WRITE_ONCE", "READ_ONCE", "smp_mb()", "scopeTree", "device", "\"",	 "&"};
		char buf[512];

		for (unsigned g = 0; g < 3000; g++) {
			size_t l = 0;

			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			if (g & 1) {
				l = (size_t)snprintf(buf, sizeof(buf), "C g\n");
				while (l < 400) {
					const char *w;

					rng = rng * 6364136223846793005ull + 1442695040888963407ull;
					w = toks[(rng >> 33) % (sizeof(toks) / sizeof(toks[0]))];
					l += (size_t)snprintf(buf + l, sizeof(buf) - l, "%s ", w);
				}
			} else {
				size_t want = (rng >> 40) % 300;

				while (l < want) {
					rng = rng * 6364136223846793005ull + 1442695040888963407ull;
					buf[l++] = (char)(1 + (rng >> 33) % 255);
				}
				buf[l] = '\0';
			}
			bad += fuzz_one(buf, &ok);
		}
	}
	ck_assert_uint_gt(bad, 0);
	ck_assert_uint_ge(ok, n);
}
END_TEST

static Suite *litmus_parse_suite(void)
{
	Suite *s = suite_create("litmus_parse");
	TCase *tc = tcase_create("upstream");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_lkmm_mp_release_acquire);
	tcase_add_test(tc, test_lkmm_fences_and_coherence);
	tcase_add_test(tc, test_c11_orders);
	tcase_add_test(tc, test_opencl_isa2);
	tcase_add_test(tc, test_opencl_scope_tree);
	tcase_add_test(tc, test_every_upstream_file_parses);
	tcase_add_test(tc, test_x86_sb_rfi);
	tcase_add_test(tc, test_x86_instructions);
	tcase_add_test(tc, test_ptx_legacy);
	tcase_add_test(tc, test_ptx6);
	suite_add_tcase(s, tc);

	tc = tcase_create("syntax");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_syntax_variants);
	tcase_add_test(tc, test_syntax_variants_2);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_negated_and_disjunction);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_file_errors);
	tcase_add_test(tc, test_words_and_condition_locations);
	suite_add_tcase(s, tc);

	tc = tcase_create("fuzz");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fuzz);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(litmus_parse_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
