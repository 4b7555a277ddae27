/*
 * tests/unit/test_config.c - Check suite "config": parameter tables (util/params.c) and config
 * loading (util/config.c): defaults, file values, --set overrides, every error message shape,
 * libconfig 1.5 integer quirks, @include, unused names and the --dump round trip.
 */
#include <check.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/config.h"
#include "util/error.h"
#include "util/params.h"

/* A table with one parameter of every type. */
struct sim_cfg {
	bool trace;
	int64_t offset;
	uint64_t seed;
	double rate;
	char label[CS_PARAM_STR_MAX];
	unsigned queue;
};

static const char *const queue_names[] = {"wheel", "heap", NULL};

static const struct cs_param sim_params[] = {
    {.key = "trace",
     .type = CS_P_BOOL,
     .offset = offsetof(struct sim_cfg, trace),
     .def = "false",
     .unit = "",
     .help = "log every event"},
    {.key = "offset",
     .type = CS_P_INT,
     .offset = offsetof(struct sim_cfg, offset),
     .def = "-5",
     .unit = "ns",
     .help = "start time offset"},
    {.key = "seed",
     .type = CS_P_UINT,
     .offset = offsetof(struct sim_cfg, seed),
     .def = "1",
     .unit = "",
     .help = "random seed"},
    {.key = "rate",
     .type = CS_P_DOUBLE,
     .offset = offsetof(struct sim_cfg, rate),
     .def = "1.5",
     .unit = "GHz",
     .help = "clock rate",
     .min = 0.001,
     .max = 100},
    {.key = "label",
     .type = CS_P_STRING,
     .offset = offsetof(struct sim_cfg, label),
     .def = "run",
     .unit = "",
     .help = "run label"},
    {.key = "queue",
     .type = CS_P_ENUM,
     .offset = offsetof(struct sim_cfg, queue),
     .def = "wheel",
     .unit = "",
     .help = "event queue",
     .choices = queue_names},
    {.key = NULL},
};

static const struct cs_param_table sim_table = {.section = "sim",
						.help = "simulation control",
						.params = sim_params,
						.size = sizeof(struct sim_cfg)};

struct l1_cfg {
	uint64_t ways;
	uint64_t size;
	int64_t latency;
};

static const struct cs_param l1_params[] = {
    {.key = "ways",
     .type = CS_P_UINT,
     .offset = offsetof(struct l1_cfg, ways),
     .def = "8",
     .unit = "",
     .help = "associativity",
     .min = 1,
     .max = 64},
    {.key = "size",
     .type = CS_P_UINT,
     .offset = offsetof(struct l1_cfg, size),
     .def = "32",
     .unit = "KiB",
     .help = "capacity"},
    {.key = "latency",
     .type = CS_P_INT,
     .offset = offsetof(struct l1_cfg, latency),
     .def = "4",
     .unit = "cycles",
     .help = "hit latency",
     .min = 0,
     .max = 1000},
    {.key = NULL},
};

static const struct cs_param_table l1_table = {.section = "l1",
					       .help = "private L1 data cache",
					       .params = l1_params,
					       .size = sizeof(struct l1_cfg)};

/* Per-test temporary directory (a checked fixture: runs in the forked child, or inline). */
static char tmpdir[64];
static char cfgpath[128];

static void setup(void)
{
	strcpy(tmpdir, "/tmp/cs_test_config.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(cfgpath, sizeof(cfgpath), "%s/a.cfg", tmpdir);
}

static void teardown(void)
{
	static const char *const names[] = {"a.cfg", "inc.cfg", "dump.cfg"};
	char p[160];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpdir, names[i]);
		unlink(p);
	}
	rmdir(tmpdir);
}

static void write_file(const char *name, const char *text)
{
	char p[160];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Writes a.cfg, opens it, applies the overrides, loads sim (and l1); returns the first error. */
static int load(const char *text, const char *const *sets, struct sim_cfg *sim, struct l1_cfg *l1,
		struct cs_err *err)
{
	struct cs_config *c;
	int rc;

	write_file("a.cfg", text);
	cs_err_clear(err);
	rc = cs_config_open(cfgpath, &c, err);
	if (rc)
		return rc;
	for (; sets && *sets; sets++) {
		rc = cs_config_set(c, *sets, err);
		if (rc)
			goto out;
	}
	rc = cs_config_section(c, &sim_table, sim, err);
	if (rc)
		goto out;
	if (l1)
		rc = cs_config_section(c, &l1_table, l1, err);
out:
	cs_config_close(c);
	return rc;
}

/* The message must be exactly "a.cfg-path" + rest. */
static void expect_file_msg(const struct cs_err *err, const char *rest)
{
	char want[600];

	snprintf(want, sizeof(want), "%s%s", cfgpath, rest);
	ck_assert_str_eq(err->msg, want);
}

#define expect_has(err, sub)                                                                    \
	ck_assert_msg(strstr((err)->msg, (sub)) != NULL, "message '%s' lacks '%s'", (err)->msg, \
		      (sub))

START_TEST(test_defaults)
{
	struct cs_config *c;
	struct cs_err err;
	struct sim_cfg sim;
	struct l1_cfg l1;

	ck_assert_int_eq(cs_config_open(NULL, &c, &err), 0);
	ck_assert_ptr_null(cs_config_path(c));
	ck_assert(!cs_config_has_section(c, "sim"));
	ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), 0);
	ck_assert_int_eq(cs_config_section(c, &l1_table, &l1, &err), 0);
	ck_assert(!sim.trace);
	ck_assert_int_eq(sim.offset, -5);
	ck_assert_uint_eq(sim.seed, 1);
	ck_assert_double_eq(sim.rate, 1.5);
	ck_assert_str_eq(sim.label, "run");
	ck_assert_uint_eq(sim.queue, 0);
	ck_assert_uint_eq(l1.ways, 8);
	ck_assert_uint_eq(l1.size, 32);
	ck_assert_int_eq(l1.latency, 4);
	ck_assert_int_eq(cs_config_check_unused(c, NULL, 0, &err), 0);
	cs_config_close(c);
}
END_TEST

START_TEST(test_file_values)
{
	struct cs_err err;
	struct sim_cfg sim;
	struct l1_cfg l1;

	ck_assert_int_eq(load("# comment\n"
			      "sim = {\n"
			      "  trace = true;\n"
			      "  seed = 42;\n"
			      "  rate = 2;  // an integer is fine for a double\n"
			      "  label = \"a\\\"b\";\n"
			      "  queue = \"heap\";\n"
			      "};\n"
			      "l1 = { ways = 16; };\n",
			      NULL, &sim, &l1, &err),
			 0);
	ck_assert(sim.trace);
	ck_assert_int_eq(sim.offset, -5); /* not in the file: default */
	ck_assert_uint_eq(sim.seed, 42);
	ck_assert_double_eq(sim.rate, 2.0);
	ck_assert_str_eq(sim.label, "a\"b");
	ck_assert_uint_eq(sim.queue, 1);
	ck_assert_uint_eq(l1.ways, 16);
	ck_assert_uint_eq(l1.size, 32);
}
END_TEST

START_TEST(test_set_overrides_file)
{
	static const char *const sets[] = {"sim.seed=7", "sim.queue=wheel", "sim.seed=9",
					   "sim.label=", "l1.latency=0x10", "sim.trace=OFF",
					   NULL};
	struct cs_err err;
	struct sim_cfg sim;
	struct l1_cfg l1;

	ck_assert_int_eq(load("sim = { seed = 42; queue = \"heap\"; trace = true; };\n"
			      "l1 = { latency = 3; };\n",
			      sets, &sim, &l1, &err),
			 0);
	ck_assert_uint_eq(sim.seed, 9); /* the later --set wins */
	ck_assert_uint_eq(sim.queue, 0);
	ck_assert_str_eq(sim.label, "");
	ck_assert(!sim.trace);
	ck_assert_int_eq(l1.latency, 16);
}
END_TEST

START_TEST(test_set_syntax)
{
	static const char *const bad[] = {"sim.seed", "simseed=1", "sim.a.b=1", ".seed=1",
					  "sim.=1",   "=1",	   ""};
	struct cs_config *c;
	struct cs_err err;
	size_t i;

	ck_assert_int_eq(cs_config_open(NULL, &c, &err), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];

		ck_assert_int_eq(cs_config_set(c, bad[i], &err), -CS_ECONFIG);
		snprintf(want, sizeof(want), "--set %s: expected section.key=value", bad[i]);
		ck_assert_str_eq(err.msg, want);
	}
	/* A dot or '=' in the value is fine. */
	ck_assert_int_eq(cs_config_set(c, "sim.label=a.b=c", &err), 0);
	ck_assert(cs_config_has_section(c, "sim"));
	cs_config_close(c);
}
END_TEST

START_TEST(test_missing_file)
{
	struct cs_config *c = (struct cs_config *)1;
	struct cs_err err;
	char path[160], want[256];

	snprintf(path, sizeof(path), "%s/nope.cfg", tmpdir);
	ck_assert_int_eq(cs_config_open(path, &c, &err), -CS_EIO);
	ck_assert_ptr_null(c);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory", path);
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(err.code, -CS_EIO);
	/* A directory opens but cannot be read. */
	ck_assert_int_eq(cs_config_open(tmpdir, &c, &err), -CS_EIO);
	expect_has(&err, ": cannot open: Is a directory");
}
END_TEST

START_TEST(test_syntax_error)
{
	struct cs_err err;
	struct sim_cfg sim;
	struct cs_config *c;

	ck_assert_int_eq(load("sim = {\n  seed = 1;\n  rate = ;\n};\n", NULL, &sim, NULL, &err),
			 -CS_ECONFIG);
	expect_file_msg(&err, ":3: syntax error");
	ck_assert_int_eq(cs_config_open_string("a = 1;\nb = {\n", "inline", &c, &err), -CS_ECONFIG);
	expect_has(&err, "inline:");
	expect_has(&err, ": syntax error");
}
END_TEST

START_TEST(test_unknown_key)
{
	struct cs_err err;
	struct sim_cfg sim;

	ck_assert_int_eq(load("sim = {\n  seed = 1;\n  sede = 2;\n};\n", NULL, &sim, NULL, &err),
			 -CS_ECONFIG);
	expect_file_msg(&err, ":3: unknown key 'sede' in section 'sim' (did you mean 'seed'?)");
	ck_assert_int_eq(load("sim = {\n\n  zzzzzz = 2;\n};\n", NULL, &sim, NULL, &err),
			 -CS_ECONFIG);
	expect_file_msg(&err, ":3: unknown key 'zzzzzz' in section 'sim'");
}
END_TEST

START_TEST(test_type_errors)
{
	struct cs_err err;
	struct sim_cfg sim;
	struct l1_cfg l1;

	ck_assert_int_eq(load("sim = {\n  seed = \"abc\";\n};\n", NULL, &sim, NULL, &err),
			 -CS_ECONFIG);
	expect_file_msg(&err, ":2: sim.seed: expected an unsigned integer, got a string");
	ck_assert_int_eq(load("sim = { trace = 1; };\n", NULL, &sim, NULL, &err), -CS_ECONFIG);
	expect_file_msg(&err, ":1: sim.trace: expected a boolean, got an integer");
	ck_assert_int_eq(load("sim = { offset = 1.5; };\n", NULL, &sim, NULL, &err), -CS_ECONFIG);
	expect_file_msg(&err, ":1: sim.offset: expected an integer, got a float");
	ck_assert_int_eq(load("sim = { rate = true; };\n", NULL, &sim, NULL, &err), -CS_ECONFIG);
	expect_file_msg(&err, ":1: sim.rate: expected a number, got a boolean");
	ck_assert_int_eq(load("sim = { label = 3; };\n", NULL, &sim, NULL, &err), -CS_ECONFIG);
	expect_file_msg(&err, ":1: sim.label: expected a string, got an integer");
	ck_assert_int_eq(load("sim = {};\nl1 = {\n ways = [1, 2];\n};\n", NULL, &sim, &l1, &err),
			 -CS_ECONFIG);
	expect_file_msg(&err, ":3: l1.ways: expected an unsigned integer, got an array");
}
END_TEST

START_TEST(test_range)
{
	struct cs_err err;
	struct sim_cfg sim;
	struct l1_cfg l1;

	ck_assert_int_eq(load("sim = {};\nl1 = {\n  ways = 0;\n};\n", NULL, &sim, &l1, &err),
			 -CS_ERANGE);
	expect_file_msg(&err, ":3: l1.ways = 0: out of range [1, 64]");
	ck_assert_int_eq(load("sim = {};\nl1 = { latency = -1; };\n", NULL, &sim, &l1, &err),
			 -CS_ERANGE);
	expect_file_msg(&err, ":2: l1.latency = -1: out of range [0, 1000]");
	ck_assert_int_eq(load("sim = { rate = 100.5; };\n", NULL, &sim, NULL, &err), -CS_ERANGE);
	expect_file_msg(&err, ":1: sim.rate = 100.5: out of range [0.001, 100]");
	ck_assert_int_eq(
	    load("sim = {};\nl1 = { ways = 64; latency = 1000; };\n", NULL, &sim, &l1, &err), 0);
	ck_assert_uint_eq(l1.ways, 64);
}
END_TEST

START_TEST(test_enum)
{
	struct cs_err err;
	struct sim_cfg sim;

	ck_assert_int_eq(load("sim = {\n queue = \"whel\";\n};\n", NULL, &sim, NULL, &err),
			 -CS_ECONFIG);
	expect_file_msg(&err, ":2: sim.queue = \"whel\": not one of wheel, heap "
			      "(did you mean 'wheel'?)");
	ck_assert_int_eq(load("sim = { queue = \"calendar\"; };\n", NULL, &sim, NULL, &err),
			 -CS_ECONFIG);
	expect_file_msg(&err, ":1: sim.queue = \"calendar\": not one of wheel, heap");
}
END_TEST

START_TEST(test_not_group)
{
	struct cs_err err;
	struct sim_cfg sim;

	ck_assert_int_eq(load("x = 1;\nsim = 5;\n", NULL, &sim, NULL, &err), -CS_ECONFIG);
	expect_file_msg(&err, ":2: 'sim' must be a group { ... }");
}
END_TEST

START_TEST(test_set_errors)
{
	struct cs_err err;
	struct sim_cfg sim;
	struct l1_cfg l1;
	const char *sets[2] = {NULL, NULL};

	sets[0] = "sim.seed=abc";
	ck_assert_int_eq(load("", sets, &sim, NULL, &err), -CS_ECONFIG);
	ck_assert_str_eq(err.msg, "--set sim.seed=abc: expected an unsigned integer");
	sets[0] = "sim.sede=1";
	ck_assert_int_eq(load("", sets, &sim, NULL, &err), -CS_ECONFIG);
	ck_assert_str_eq(
	    err.msg,
	    "--set sim.sede=1: unknown key 'sede' in section 'sim' (did you mean 'seed'?)");
	sets[0] = "l1.ways=65";
	ck_assert_int_eq(load("", sets, &sim, &l1, &err), -CS_ERANGE);
	ck_assert_str_eq(err.msg, "--set l1.ways=65: out of range [1, 64]");
	sets[0] = "sim.queue=hep";
	ck_assert_int_eq(load("", sets, &sim, NULL, &err), -CS_ECONFIG);
	ck_assert_str_eq(err.msg,
			 "--set sim.queue=hep: not one of wheel, heap (did you mean 'heap'?)");
	sets[0] = "sim.trace=maybe";
	ck_assert_int_eq(load("", sets, &sim, NULL, &err), -CS_ECONFIG);
	expect_has(&err, "--set sim.trace=maybe: expected a boolean");
	sets[0] = "sim.rate=fast";
	ck_assert_int_eq(load("", sets, &sim, NULL, &err), -CS_ECONFIG);
	ck_assert_str_eq(err.msg, "--set sim.rate=fast: expected a number");
}
END_TEST

static int parse(const struct cs_param_table *t, const char *key, const char *text, void *dst,
		 struct cs_err *err)
{
	return cs_param_parse(cs_param_find(t, key), text, dst, "W", err);
}

START_TEST(test_parse_integers)
{
	struct sim_cfg sim;
	struct cs_err err;

	ck_assert_int_eq(cs_params_defaults(&sim_table, &sim, &err), 0);
	ck_assert_int_eq(parse(&sim_table, "seed", "0x10", &sim, &err), 0);
	ck_assert_uint_eq(sim.seed, 16);
	ck_assert_int_eq(parse(&sim_table, "seed", "0XfF", &sim, &err), 0);
	ck_assert_uint_eq(sim.seed, 255);
	ck_assert_int_eq(parse(&sim_table, "seed", "010", &sim, &err), 0); /* not octal */
	ck_assert_uint_eq(sim.seed, 10);
	ck_assert_int_eq(parse(&sim_table, "seed", "18446744073709551615", &sim, &err), 0);
	ck_assert_uint_eq(sim.seed, UINT64_MAX);
	ck_assert_int_eq(parse(&sim_table, "seed", "18446744073709551616", &sim, &err), -CS_ERANGE);
	ck_assert_str_eq(err.msg, "W: out of range for a 64-bit unsigned integer");
	ck_assert_int_eq(parse(&sim_table, "seed", "-1", &sim, &err), -CS_ECONFIG);
	ck_assert_str_eq(err.msg, "W: expected an unsigned integer");
	ck_assert_int_eq(parse(&sim_table, "seed", "12abc", &sim, &err), -CS_ECONFIG);
	ck_assert_int_eq(parse(&sim_table, "seed", " 5", &sim, &err), -CS_ECONFIG);
	ck_assert_int_eq(parse(&sim_table, "seed", "5 ", &sim, &err), -CS_ECONFIG);
	ck_assert_int_eq(parse(&sim_table, "seed", "", &sim, &err), -CS_ECONFIG);
	ck_assert_int_eq(parse(&sim_table, "seed", "0x", &sim, &err), -CS_ECONFIG);
	ck_assert_int_eq(parse(&sim_table, "seed", "0x0x5", &sim, &err), -CS_ECONFIG);
	ck_assert_int_eq(parse(&sim_table, "seed", "+-5", &sim, &err), -CS_ECONFIG);
	ck_assert_uint_eq(sim.seed, UINT64_MAX); /* failed parses leave the value alone */

	ck_assert_int_eq(parse(&sim_table, "offset", "-9223372036854775808", &sim, &err), 0);
	ck_assert_int_eq(sim.offset, INT64_MIN);
	ck_assert_int_eq(parse(&sim_table, "offset", "9223372036854775807", &sim, &err), 0);
	ck_assert_int_eq(sim.offset, INT64_MAX);
	ck_assert_int_eq(parse(&sim_table, "offset", "9223372036854775808", &sim, &err),
			 -CS_ERANGE);
	ck_assert_str_eq(err.msg, "W: out of range for a 64-bit integer");
	ck_assert_int_eq(parse(&sim_table, "offset", "-9223372036854775809", &sim, &err),
			 -CS_ERANGE);
	ck_assert_int_eq(parse(&sim_table, "offset", "-0x20", &sim, &err), 0);
	ck_assert_int_eq(sim.offset, -32);
	ck_assert_int_eq(parse(&sim_table, "offset", "1.0", &sim, &err), -CS_ECONFIG);
	ck_assert_str_eq(err.msg, "W: expected an integer");
}
END_TEST

START_TEST(test_parse_doubles_bools)
{
	static const char *const yes[] = {"true", "TRUE", "1", "yes", "Yes", "on", "ON"};
	static const char *const no[] = {"false", "False", "0", "no", "NO", "off", "Off"};
	static const char *const bad_d[] = {"nan",   "NAN",  "inf", "-inf", "infinity",
					    "1e999", "1.5x", "",    " 1",   "0x"};
	struct sim_cfg sim;
	struct cs_err err;
	size_t i;

	ck_assert_int_eq(cs_params_defaults(&sim_table, &sim, &err), 0);
	ck_assert_int_eq(parse(&sim_table, "rate", "1e-3", &sim, &err), 0);
	ck_assert_double_eq(sim.rate, 1e-3);
	ck_assert_int_eq(parse(&sim_table, "rate", "42", &sim, &err), 0);
	ck_assert_double_eq(sim.rate, 42.0);
	for (i = 0; i < sizeof(bad_d) / sizeof(bad_d[0]); i++)
		ck_assert_msg(parse(&sim_table, "rate", bad_d[i], &sim, &err) < 0, "'%s' accepted",
			      bad_d[i]);
	ck_assert_double_eq(sim.rate, 42.0);
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		sim.trace = false;
		ck_assert_int_eq(parse(&sim_table, "trace", yes[i], &sim, &err), 0);
		ck_assert(sim.trace);
		ck_assert_int_eq(parse(&sim_table, "trace", no[i], &sim, &err), 0);
		ck_assert(!sim.trace);
	}
	ck_assert_int_eq(parse(&sim_table, "trace", "2", &sim, &err), -CS_ECONFIG);
	ck_assert_int_eq(parse(&sim_table, "trace", "", &sim, &err), -CS_ECONFIG);
}
END_TEST

START_TEST(test_file_integers)
{
	struct cs_err err;
	struct sim_cfg sim;
	struct l1_cfg l1;

	ck_assert_int_eq(load("sim = { seed = 5000000000L; offset = -5000000000L; };\n"
			      "l1 = { size = 0xFFFFFFFFFFFFFFFFL; latency = 0x10; };\n",
			      NULL, &sim, &l1, &err),
			 0);
	ck_assert_uint_eq(sim.seed, 5000000000ULL);
	ck_assert_int_eq(sim.offset, -5000000000LL);
	ck_assert_uint_eq(l1.size, UINT64_MAX);
	ck_assert_int_eq(l1.latency, 16);
	/* libconfig stores 0xFFFFFFFF as the int -1: it must come out unsigned. */
	ck_assert_int_eq(load("sim = { seed = 0xFFFFFFFF; offset = -9223372036854775808L; };\n",
			      NULL, &sim, NULL, &err),
			 0);
	ck_assert_uint_eq(sim.seed, 4294967295ULL);
	ck_assert_int_eq(sim.offset, INT64_MIN);

	ck_assert_int_eq(load("sim = {\n  seed = -1;\n};\n", NULL, &sim, NULL, &err), -CS_ECONFIG);
	expect_file_msg(&err, ":2: sim.seed: expected an unsigned integer, got a negative integer");
	ck_assert_int_eq(load("sim = {};\nl1 = { size = -3L; };\n", NULL, &sim, &l1, &err),
			 -CS_ECONFIG);
	expect_file_msg(&err, ":2: l1.size: expected an unsigned integer, got a negative integer");
	ck_assert_int_eq(load("sim = { offset = 0xFFFFFFFFFFFFFFFFL; };\n", NULL, &sim, NULL, &err),
			 -CS_ERANGE);
	expect_file_msg(&err, ":1: sim.offset = 18446744073709551615: out of range for a 64-bit "
			      "integer");

	/* libconfig 1.5 would silently wrap these: they must be refused. */
	ck_assert_int_eq(
	    load("sim = {\n  l1 = 3;\n  seed = 5000000000;\n};\n", NULL, &sim, NULL, &err),
	    -CS_ECONFIG);
	expect_file_msg(&err, ":3: integer 5000000000 needs the L suffix (5000000000L): libconfig "
			      "reads it wrapped to 32 bits");
	ck_assert_int_eq(
	    load("# 5000000000 in a comment is fine\n/* 9999999999 */\n"
		 "sim = { label = \"7777777777\"; offset = -2147483648; rate = 1e1; };\n"
		 "x-9 = 1;\n",
		 NULL, &sim, NULL, &err),
	    0);
	ck_assert_int_eq(sim.offset, INT32_MIN);
	ck_assert_str_eq(sim.label, "7777777777");
	ck_assert_int_eq(load("\nsim = { offset = -2147483649; };\n", NULL, &sim, NULL, &err),
			 -CS_ECONFIG);
	expect_has(&err, ":2: integer -2147483649 needs the L suffix");
	ck_assert_int_eq(load("sim = { seed = 0x100000000; };\n", NULL, &sim, NULL, &err),
			 -CS_ECONFIG);
	expect_has(&err, ":1: integer 0x100000000 needs the L suffix");
	ck_assert_int_eq(load("sim = { seed = 99999999999999999999L; };\n", NULL, &sim, NULL, &err),
			 -CS_ERANGE);
	expect_file_msg(&err, ":1: integer 99999999999999999999 does not fit in 64 bits");
}
END_TEST

START_TEST(test_include)
{
	struct cs_err err;
	struct sim_cfg sim;
	struct l1_cfg l1;
	char cwd[PATH_MAX], want[512];

	/* Run from elsewhere: @include must be relative to the file, not to the cwd. */
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir("/"), 0);
	write_file("inc.cfg", "l1 = {\n  ways = 2;\n};\n");
	ck_assert_int_eq(
	    load("sim = { seed = 3; };\n@include \"inc.cfg\"\n", NULL, &sim, &l1, &err), 0);
	ck_assert_uint_eq(sim.seed, 3);
	ck_assert_uint_eq(l1.ways, 2);
	/* An error inside the included file names it by its path. */
	write_file("inc.cfg", "l1 = {\n  ways = 2;\n  wyas = 3;\n};\n");
	ck_assert_int_eq(load("sim = {};\n@include \"inc.cfg\"\n", NULL, &sim, &l1, &err),
			 -CS_ECONFIG);
	snprintf(want, sizeof(want),
		 "%s/inc.cfg:3: unknown key 'wyas' in section 'l1' (did you mean 'ways'?)", tmpdir);
	ck_assert_str_eq(err.msg, want);
	write_file("inc.cfg", "l1 = {\n  size = 4294967296;\n};\n");
	ck_assert_int_eq(load("sim = {};\n@include \"inc.cfg\"\n", NULL, &sim, &l1, &err),
			 -CS_ECONFIG);
	expect_has(&err, "/inc.cfg:2: integer 4294967296 needs the L suffix");
	/* Issue 43, cases 11, 13 and 16: every bad include is one line at the @include. */
	ck_assert_int_eq(load("sim = {};\n@include \"missing.cfg\"\n", NULL, &sim, &l1, &err),
			 -CS_EIO);
	expect_has(&err, "a.cfg:2: @include \"missing.cfg\": cannot open ");
	expect_has(&err, "/missing.cfg: No such file or directory");
	ck_assert_int_eq(load("sim = {};\n@include \".\"\n", NULL, &sim, &l1, &err), -CS_EIO);
	expect_has(&err, "a.cfg:2: @include \".\": ");
	expect_has(&err, "is a directory, not a file");
	ck_assert_int_eq(load("sim = {};\n\n@include \"/etc/hostname\"\n", NULL, &sim, &l1, &err),
			 -CS_ECONFIG);
	expect_has(&err, "a.cfg:3: @include \"/etc/hostname\": an absolute path");
	write_file("inc.cfg", "l1 = {\n  ways = 2;\n};\n");
	ck_assert_int_eq(load("sim = {};\nx\n@include \"inc.cfg\"\n", NULL, &sim, &l1, &err),
			 -CS_ECONFIG);
	expect_has(&err, "a.cfg:3: syntax error before @include \"inc.cfg\"");
	/* a file that includes itself */
	ck_assert_int_eq(load("sim = {};\n@include \"a.cfg\"\n", NULL, &sim, &l1, &err),
			 -CS_ECONFIG);
	expect_has(&err, "/a.cfg:2: @include \"a.cfg\": includes nested more than 10 deep");
	ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

START_TEST(test_check_unused)
{
	static const char *const extra[] = {"dram", "noc"};
	struct cs_config *c;
	struct cs_err err;
	struct sim_cfg sim;
	struct l1_cfg l1;
	char want[256];

	write_file("a.cfg", "sim = {};\nl1 = {};\n\nl2 = { ways = 4; };\n");
	ck_assert_int_eq(cs_config_open(cfgpath, &c, &err), 0);
	ck_assert_str_eq(cs_config_path(c), cfgpath);
	ck_assert(cs_config_has_section(c, "l2"));
	ck_assert(!cs_config_has_section(c, "l3"));
	ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), 0);
	ck_assert_int_eq(cs_config_section(c, &l1_table, &l1, &err), 0);
	ck_assert_int_eq(cs_config_check_unused(c, NULL, 0, &err), -CS_ECONFIG);
	expect_file_msg(&err, ":4: unknown section 'l2' (did you mean 'l1'?)");
	cs_config_close(c);

	write_file("a.cfg", "sim = {};\nnocc = {};\n");
	ck_assert_int_eq(cs_config_open(cfgpath, &c, &err), 0);
	ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), 0);
	ck_assert_int_eq(cs_config_check_unused(c, extra, 2, &err), -CS_ECONFIG);
	expect_file_msg(&err, ":2: unknown section 'nocc' (did you mean 'noc'?)");
	cs_config_close(c);

	write_file("a.cfg", "sim = {};\nxyzzy = 1;\n");
	ck_assert_int_eq(cs_config_open(cfgpath, &c, &err), 0);
	ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), 0);
	ck_assert_int_eq(cs_config_check_unused(c, extra, 2, &err), -CS_ECONFIG);
	expect_file_msg(&err, ":2: unknown section 'xyzzy'");
	cs_config_close(c);

	write_file("a.cfg", "sim = {};\ndram = {};\n");
	ck_assert_int_eq(cs_config_open(cfgpath, &c, &err), 0);
	ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), 0);
	ck_assert_int_eq(cs_config_check_unused(c, extra, 2, &err), -CS_ECONFIG);
	expect_file_msg(&err, ":2: section 'dram' is not used by this configuration");
	cs_config_close(c);

	/* Overrides of sections nobody loaded. */
	ck_assert_int_eq(cs_config_open(NULL, &c, &err), 0);
	ck_assert_int_eq(cs_config_set(c, "sm.seed=1", &err), 0);
	ck_assert(cs_config_has_section(c, "sm"));
	ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), 0);
	ck_assert_int_eq(cs_config_check_unused(c, NULL, 0, &err), -CS_ECONFIG);
	ck_assert_str_eq(err.msg, "--set sm.seed=1: unknown section 'sm' (did you mean 'sim'?)");
	cs_config_close(c);

	ck_assert_int_eq(cs_config_open(NULL, &c, &err), 0);
	ck_assert_int_eq(cs_config_set(c, "foo.bar=1", &err), 0);
	ck_assert_int_eq(cs_config_check_unused(c, NULL, 0, &err), -CS_ECONFIG);
	ck_assert_str_eq(err.msg, "--set foo.bar=1: unknown section 'foo'");
	cs_config_close(c);

	/* An override recorded after its section was loaded never took effect. */
	ck_assert_int_eq(cs_config_open(NULL, &c, &err), 0);
	ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), 0);
	ck_assert_int_eq(cs_config_set(c, "sim.seed=5", &err), 0);
	ck_assert_int_eq(cs_config_check_unused(c, NULL, 0, &err), -CS_ECONFIG);
	snprintf(want, sizeof(want),
		 "--set sim.seed=5: given after section 'sim' was loaded "
		 "(ignored)");
	ck_assert_str_eq(err.msg, want);
	cs_config_close(c);
}
END_TEST

START_TEST(test_section_twice)
{
	static const struct cs_param_table other = {
	    .section = "sim", .help = "", .params = l1_params, .size = sizeof(struct l1_cfg)};
	struct cs_config *c;
	struct cs_err err;
	struct sim_cfg a, b;
	struct l1_cfg l1;

	ck_assert_int_eq(cs_config_open_string("sim = { seed = 11; };", NULL, &c, &err), 0);
	ck_assert_str_eq(cs_config_path(c), "<string>");
	ck_assert_int_eq(cs_config_section(c, &sim_table, &a, &err), 0);
	memset(&b, 0xAA, sizeof(b));
	ck_assert_int_eq(cs_config_section(c, &sim_table, &b, &err), 0);
	ck_assert_int_eq(memcmp(&a, &b, sizeof(a)), 0);
	ck_assert_uint_eq(b.seed, 11);
	ck_assert_int_eq(cs_config_section(c, &other, &l1, &err), -CS_ECONFIG);
	ck_assert_str_eq(err.msg,
			 "<string>:1: section 'sim' is read as two different things (a node "
			 "group's, network's or range's name must not be a component's "
			 "section)");
	cs_config_close(c);
}
END_TEST

/* One table read under other names (the builder's groups): the file's values over the given
 * base, overrides on top; each name dumped as its own section; a name already read with another
 * table is -CS_EEXIST. */
START_TEST(test_section_as)
{
	struct cs_config *c;
	struct cs_err err;
	struct sim_cfg base, a, b, again;
	struct l1_cfg l1;
	int64_t def;
	char text[8192];
	size_t len;
	FILE *f;

	ck_assert_int_eq(
	    cs_config_open_string("ga = { seed = 5; };\ngb = { rate = 0.5; };", "t.cfg", &c, &err),
	    0);
	ck_assert_int_eq(cs_config_set(c, "gb.seed=9", &err), 0);
	ck_assert_int_eq(cs_params_defaults(&sim_table, &base, &err), 0);
	def = base.offset;
	ck_assert_int_ne(def, -3);
	base.offset = -3;
	ck_assert_int_eq(cs_config_section_as(c, &sim_table, "ga", &base, &a, &err), 0);
	ck_assert_int_eq(cs_config_section_as(c, &sim_table, "gb", NULL, &b, &err), 0);
	ck_assert_uint_eq(a.seed, 5);
	ck_assert_int_eq(a.offset, -3); /* from the base */
	ck_assert_uint_eq(b.seed, 9);	/* the override */
	ck_assert(b.rate == 0.5);
	ck_assert_int_eq(b.offset, def); /* the table's default, not the base */
	ck_assert_int_eq(cs_config_section_as(c, &sim_table, "ga", NULL, &again, &err), 0);
	ck_assert_int_eq(memcmp(&a, &again, sizeof(a)), 0);
	ck_assert_int_eq(cs_config_section_as(c, &l1_table, "ga", NULL, &l1, &err), -CS_EEXIST);
	ck_assert_int_eq(cs_config_check_unused(c, NULL, 0, &err), 0);
	f = tmpfile();
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(cs_config_dump(c, f), 0);
	rewind(f);
	len = fread(text, 1, sizeof(text) - 1, f);
	text[len] = 0;
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "\nga = {\n"));
	ck_assert_ptr_nonnull(strstr(text, "\ngb = {\n"));
	ck_assert_ptr_nonnull(strstr(text, "  offset = -3;\n"));
	cs_config_close(c);
}
END_TEST

START_TEST(test_dst_untouched_on_error)
{
	struct cs_config *c;
	struct cs_err err;
	struct sim_cfg sim, before;

	memset(&sim, 0x5A, sizeof(sim));
	before = sim;
	ck_assert_int_eq(cs_config_open_string("sim = { seed = 3; rate = 0.0; };", "s", &c, &err),
			 0);
	ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), -CS_ERANGE);
	ck_assert_str_eq(err.msg, "s:1: sim.rate = 0: out of range [0.001, 100]");
	ck_assert_int_eq(memcmp(&sim, &before, sizeof(sim)), 0);
	cs_config_close(c);
}
END_TEST

START_TEST(test_long_string)
{
	char text[600], big[400];
	struct cs_config *c;
	struct cs_err err;
	struct sim_cfg sim;

	memset(big, 'x', 300);
	big[300] = '\0';
	snprintf(text, sizeof(text), "sim = { label = \"%s\"; };", big);
	ck_assert_int_eq(cs_config_open_string(text, "s", &c, &err), 0);
	ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), -CS_ERANGE);
	expect_has(&err, "s:1: sim.label = \"xxxx");
	expect_has(&err, "...\": string longer than 255 bytes");
	cs_config_close(c);
	memset(big, 'y', 255);
	big[255] = '\0';
	ck_assert_int_eq(cs_param_parse(cs_param_find(&sim_table, "label"), big, &sim, "W", &err),
			 0);
	ck_assert_str_eq(sim.label, big);
}
END_TEST

START_TEST(test_bad_tables)
{
	static const struct cs_param bad_def[] = {
	    {.key = "n", .type = CS_P_UINT, .offset = 0, .def = "-1", .unit = "", .help = ""},
	    {.key = NULL}};
	static const struct cs_param bad_range[] = {{.key = "n",
						     .type = CS_P_UINT,
						     .offset = 0,
						     .def = "0",
						     .unit = "",
						     .help = "",
						     .min = 1,
						     .max = 4},
						    {.key = NULL}};
	static const struct cs_param bad_off[] = {
	    {.key = "n", .type = CS_P_UINT, .offset = 4, .def = "0", .unit = "", .help = ""},
	    {.key = NULL}};
	static const struct cs_param dup[] = {
	    {.key = "n", .type = CS_P_UINT, .offset = 0, .def = "0", .unit = "", .help = ""},
	    {.key = "n", .type = CS_P_UINT, .offset = 0, .def = "0", .unit = "", .help = ""},
	    {.key = NULL}};
	static const struct cs_param no_choices[] = {
	    {.key = "n", .type = CS_P_ENUM, .offset = 0, .def = "a", .unit = "", .help = ""},
	    {.key = NULL}};
	const struct cs_param *const tables[] = {bad_def, bad_range, bad_off, dup, no_choices};
	uint64_t v;
	struct cs_err err;
	size_t i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		struct cs_param_table t = {
		    .section = "t", .help = "", .params = tables[i], .size = sizeof(v)};

		cs_err_clear(&err);
		ck_assert_int_eq(cs_params_defaults(&t, &v, &err), -CS_EINVAL);
		ck_assert_int_eq(err.code, -CS_EINVAL);
		ck_assert_msg(strstr(err.msg, "t.n") != NULL,
			      "message '%s' does not name the parameter", err.msg);
	}
}
END_TEST

START_TEST(test_nearest)
{
	static const char *const words[] = {"seed", "rate", "label", NULL, "queue", "latency"};

	ck_assert_str_eq(cs_nearest("sede", words, 6), "seed");
	ck_assert_str_eq(cs_nearest("SEED", words, 6), "seed");
	ck_assert_str_eq(cs_nearest("lable", words, 6), "label");
	ck_assert_str_eq(cs_nearest("latncy", words, 6), "latency");
	ck_assert_str_eq(cs_nearest("queu", words, 6), "queue");
	ck_assert_ptr_null(cs_nearest("zzzzzz", words, 6));
	ck_assert_ptr_null(cs_nearest("x", words, 6));
	ck_assert_ptr_null(cs_nearest("", words, 6));
	ck_assert_ptr_null(cs_nearest("seed", words, 0));
}
END_TEST

START_TEST(test_format)
{
	struct sim_cfg sim;
	struct cs_err err;
	char buf[64];

	ck_assert_int_eq(cs_params_defaults(&sim_table, &sim, &err), 0);
	sim.rate = 0.1;
	ck_assert_int_eq(cs_param_format(cs_param_find(&sim_table, "rate"), &sim, buf, sizeof(buf)),
			 3);
	ck_assert_str_eq(buf, "0.1");
	sim.rate = 3;
	cs_param_format(cs_param_find(&sim_table, "rate"), &sim, buf, sizeof(buf));
	ck_assert_str_eq(buf, "3.0");
	sim.offset = INT64_MIN;
	cs_param_format(cs_param_find(&sim_table, "offset"), &sim, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-9223372036854775808L");
	sim.seed = 2147483648ULL;
	cs_param_format(cs_param_find(&sim_table, "seed"), &sim, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2147483648L");
	sim.seed = UINT64_MAX;
	cs_param_format(cs_param_find(&sim_table, "seed"), &sim, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0xFFFFFFFFFFFFFFFFL");
	strcpy(sim.label, "a\"b\\c\n\x01");
	cs_param_format(cs_param_find(&sim_table, "label"), &sim, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\"a\\\"b\\\\c\\n\\x01\"");
	/* Too small a buffer: truncated, NUL-terminated, full length returned. */
	ck_assert_int_eq(cs_param_format(cs_param_find(&sim_table, "label"), &sim, buf, 4), 15);
	ck_assert_str_eq(buf, "\"a\\");
	sim.queue = 7;
	ck_assert_int_eq(
	    cs_param_format(cs_param_find(&sim_table, "queue"), &sim, buf, sizeof(buf)),
	    -CS_EINVAL);
}
END_TEST

/* Dumps c to a string (caller frees). */
static char *dump_to_string(struct cs_config *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(cs_config_dump(c, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

START_TEST(test_dump_round_trip)
{
	static const char *const sets[] = {"sim.label=q\"uote\\back\tslash\x01", "l1.latency=0",
					   "sim.rate=0.1"};
	struct sim_cfg sim, sim2;
	struct l1_cfg l1, l12;
	struct cs_config *c, *c2;
	struct cs_err err;
	size_t i;
	char *text;

	write_file("a.cfg", "sim = { trace = true; offset = -5000000000L; seed = 5000000000L;\n"
			    "  queue = \"heap\"; };\n"
			    "l1 = { ways = 64; size = 0xFFFFFFFFFFFFFFFFL; latency = 999; };\n");
	ck_assert_int_eq(cs_config_open(cfgpath, &c, &err), 0);
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		ck_assert_int_eq(cs_config_set(c, sets[i], &err), 0);
	ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), 0);
	ck_assert_int_eq(cs_config_section(c, &l1_table, &l1, &err), 0);
	ck_assert_double_eq(sim.rate, 0.1);
	ck_assert_str_eq(sim.label, "q\"uote\\back\tslash\x01");
	text = dump_to_string(c);
	cs_config_close(c);

	ck_assert_msg(!strncmp(text, "# cohscope effective configuration (source: ", 44), "%s",
		      text);
	ck_assert_ptr_nonnull(strstr(text, cfgpath));
	ck_assert_ptr_nonnull(strstr(text, "  seed = 5000000000L;\n"));
	ck_assert_ptr_nonnull(strstr(text, "  rate = 0.1;\n"));
	ck_assert_ptr_nonnull(strstr(text, "  queue = \"heap\";\n"));
	ck_assert_ptr_nonnull(strstr(text, "  trace = true;\n"));
	ck_assert_ptr_nonnull(strstr(text, "  label = \"q\\\"uote\\\\back\\tslash\\x01\";\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "  # clock rate [GHz] (range 0.001..100) (default: 1.5)\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "  # event queue (one of: wheel, heap) (default: \"wheel\")\n"));
	/* The sections come in load order. */
	ck_assert_ptr_nonnull(strstr(text, "sim = {"));
	ck_assert(strstr(text, "sim = {") < strstr(text, "l1 = {"));

	ck_assert_int_eq(cs_config_open_string(text, "dump", &c2, &err), 0);
	ck_assert_int_eq(cs_config_section(c2, &sim_table, &sim2, &err), 0);
	ck_assert_int_eq(cs_config_section(c2, &l1_table, &l12, &err), 0);
	ck_assert_int_eq(cs_config_check_unused(c2, NULL, 0, &err), 0);
	ck_assert_int_eq(memcmp(&sim, &sim2, sizeof(sim)), 0);
	ck_assert_int_eq(memcmp(&l1, &l12, sizeof(l1)), 0);
	cs_config_close(c2);
	free(text);
}
END_TEST

START_TEST(test_dump_doubles)
{
	static const double vals[] = {0.1,
				      1.0 / 3,
				      100,
				      0.001,
				      12.125,
				      0.30000000000000004,
				      2.5e-3,
				      99.99999999999999,
				      1.0000000000000002,
				      7e1};
	struct cs_config *c, *c2;
	struct sim_cfg sim, sim2;
	struct cs_err err;
	char set[64], *text;
	size_t i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		snprintf(set, sizeof(set), "sim.rate=%.17g", vals[i]);
		ck_assert_int_eq(cs_config_open(NULL, &c, &err), 0);
		ck_assert_int_eq(cs_config_set(c, set, &err), 0);
		ck_assert_int_eq(cs_config_section(c, &sim_table, &sim, &err), 0);
		ck_assert(sim.rate == vals[i]);
		text = dump_to_string(c);
		ck_assert_ptr_nonnull(strstr(text, "(source: defaults, 1 --set override)"));
		cs_config_close(c);
		ck_assert_int_eq(cs_config_open_string(text, "dump", &c2, &err), 0);
		ck_assert_int_eq(cs_config_section(c2, &sim_table, &sim2, &err), 0);
		ck_assert_msg(sim2.rate == vals[i], "%.17g came back as %.17g", vals[i], sim2.rate);
		ck_assert_int_eq(memcmp(&sim, &sim2, sizeof(sim)), 0);
		cs_config_close(c2);
		free(text);
	}
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_file_values);
	tcase_add_test(tc, test_set_overrides_file);
	tcase_add_test(tc, test_set_syntax);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_syntax_error);
	tcase_add_test(tc, test_unknown_key);
	tcase_add_test(tc, test_type_errors);
	tcase_add_test(tc, test_range);
	tcase_add_test(tc, test_enum);
	tcase_add_test(tc, test_not_group);
	tcase_add_test(tc, test_set_errors);
	tcase_add_test(tc, test_parse_integers);
	tcase_add_test(tc, test_parse_doubles_bools);
	tcase_add_test(tc, test_file_integers);
	tcase_add_test(tc, test_include);
	tcase_add_test(tc, test_check_unused);
	tcase_add_test(tc, test_section_twice);
	tcase_add_test(tc, test_section_as);
	tcase_add_test(tc, test_dst_untouched_on_error);
	tcase_add_test(tc, test_long_string);
	tcase_add_test(tc, test_bad_tables);
	tcase_add_test(tc, test_nearest);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_dump_round_trip);
	tcase_add_test(tc, test_dump_doubles);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(config_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
