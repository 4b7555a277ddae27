/*
 * tests/unit/test_stats.c - Check suite "stats": the statistics registry (util/stats) and the
 * host performance counters with their wall-time fallback (util/hostperf).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hostperf.h"
#include "util/stats.h"

/* ---- helpers -------------------------------------------------------------------------------- */

static struct cs_stats *new_stats(void)
{
	struct cs_stats *s = NULL;

	ck_assert_int_eq(cs_stats_create(&s), 0);
	ck_assert_ptr_nonnull(s);
	return s;
}

static double value_of(const struct cs_stats *s, const char *name)
{
	double v = -12345.0;

	ck_assert_msg(cs_stats_value(s, name, &v) == 0, "no stat '%s'", name);
	return v;
}

static void check_no_error(const struct cs_stats *s)
{
	struct cs_err e;

	ck_assert_msg(cs_stats_error(s, &e) == 0, "unexpected error: %s", e.msg);
}

static json_t *roundtrip_json(json_t *j)
{
	char *text;
	json_t *back;
	json_error_t jerr;

	ck_assert_ptr_nonnull(j);
	text = json_dumps(j, JSON_REAL_PRECISION(17));
	ck_assert_ptr_nonnull(text);
	back = json_loads(text, 0, &jerr);
	ck_assert_msg(back != NULL, "json_loads: %s", jerr.text);
	free(text);
	json_decref(j);
	return back;
}

static char *dump_json(const struct cs_stats *s)
{
	json_t *j = cs_stats_to_json(s);
	char *text;

	ck_assert_ptr_nonnull(j);
	text = json_dumps(j, JSON_REAL_PRECISION(17));
	json_decref(j);
	ck_assert_ptr_nonnull(text);
	return text;
}

/* Runs one of the FILE* writers into a string. */
static char *write_to_string(const struct cs_stats *s, int (*fn)(const struct cs_stats *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fn(s, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(buf);
	return buf;
}

/* Splits text into lines in place; returns how many (at most max). */
static size_t split_lines(char *text, char **lines, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	char *line;

	for (line = strtok_r(text, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save))
		lines[n++] = line;
	return n;
}

/* Minimal RFC 4180 field splitter for one line (fields written into out, 256 bytes each). */
static size_t csv_split(const char *line, char out[][256], size_t max)
{
	size_t n = 0;

	while (n < max) {
		size_t k = 0;

		if (*line == '"') {
			line++;
			for (;;) {
				if (*line == '"' && line[1] == '"') {
					out[n][k++] = '"';
					line += 2;
				} else if (*line == '"') {
					line++;
					break;
				} else {
					ck_assert_msg(*line != '\0', "unterminated quote");
					out[n][k++] = *line++;
				}
			}
		} else {
			while (*line && *line != ',')
				out[n][k++] = *line++;
		}
		out[n][k] = '\0';
		n++;
		if (*line != ',')
			break;
		line++;
	}
	return n;
}

struct sample_stats {
	uint64_t *hits;
	uint64_t *misses;
	uint64_t *accesses;
	struct cs_stat_avg *lat;
	struct cs_stat_dist *hist;
};

static double twice_hits(const void *ctx)
{
	const struct sample_stats *p = ctx;

	return 2.0 * (double)*p->hits;
}

/* A small system: one L1 with counters, a ratio, a formula, an average and a distribution. */
static void build_sample(struct cs_stats *s, struct sample_stats *p)
{
	struct cs_stat_group *l1 = cs_stat_group(cs_stats_root(s), "gpu.sm0.l1");

	p->hits = cs_stat_counter(l1, "hits", "count", "read hits");
	p->misses = cs_stat_counter(l1, "misses", "count", "read misses, \"cold\" or not");
	p->accesses = cs_stat_counter(l1, "accesses", "count", "reads");
	cs_stat_ratio(l1, "hit_rate", "hits / reads", p->hits, p->accesses);
	cs_stat_formula(l1, "twice_hits", "count", "2 * hits", twice_hits, p);
	p->lat = cs_stat_average(l1, "latency", "cycles", "read latency");
	p->hist =
	    cs_stat_distribution(l1, "lat_hist", "cycles", "read latency histogram", 0, 100, 4);
	check_no_error(s);
}

static void run_sample(struct sample_stats *p)
{
	int i;

	for (i = 0; i < 10; i++) {
		++*p->accesses;
		if (i % 4)
			++*p->hits;
		else
			++*p->misses;
		cs_stat_avg_sample(p->lat, i % 4 ? 4.0 : 120.5);
		cs_stat_dist_sample(p->hist, i % 4 ? 4.0 : 120.5);
	}
}

/* ---- names and counters --------------------------------------------------------------------- */

START_TEST(test_hierarchical_names)
{
	struct cs_stats *s = new_stats();
	struct cs_stat_group *root = cs_stats_root(s);
	struct cs_stat_group *gpu = cs_stat_group(root, "gpu");
	struct cs_stat_group *sm3 = cs_stat_group(gpu, "sm3");
	struct cs_stat_group *l1 = cs_stat_group(sm3, "l1");
	uint64_t *coh;
	uint64_t *top;

	ck_assert_str_eq(cs_stat_group_path(root), "");
	ck_assert_str_eq(cs_stat_group_path(l1), "gpu.sm3.l1");
	/* dotted names are nested groups, and a group is created once */
	ck_assert_ptr_eq(cs_stat_group(root, "gpu.sm3"), sm3);
	ck_assert_ptr_eq(cs_stat_group(root, "gpu.sm3.l1"), l1);
	ck_assert_ptr_eq(cs_stat_group(gpu, "sm3.l1"), l1);

	coh = cs_stat_counter(l1, "miss.coherence", "count", "coherence misses");
	top = cs_stat_counter(root, "cycles", "cycles", "simulated cycles");
	*coh += 3;
	*top = 7;
	check_no_error(s);
	ck_assert_uint_eq(cs_stats_count(s), 2);
	ck_assert_double_eq(value_of(s, "gpu.sm3.l1.miss.coherence"), 3.0);
	ck_assert_double_eq(value_of(s, "cycles"), 7.0);
	ck_assert_double_eq(value_of(s, "gpu.sm3.l1.miss.coherence"), 3.0);
	{
		double v;

		ck_assert_int_eq(cs_stats_value(s, "gpu.sm3.l1", &v), -CS_ENOENT);
		ck_assert_int_eq(cs_stats_value(s, "nope", &v), -CS_ENOENT);
	}
	cs_stats_destroy(s);
}
END_TEST

START_TEST(test_invalid_names)
{
	static const char *const bad[] = {"", "a..b", ".a", "a.", "has space", "tab\t"};
	struct cs_stats *s = new_stats();
	struct cs_stat_group *root = cs_stats_root(s);
	struct cs_stat_group *dummy;
	struct cs_err e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t *c = cs_stat_counter(root, bad[i], NULL, NULL);

		ck_assert_ptr_nonnull(c);
		++*c;
	}
	dummy = cs_stat_group(root, "x..y");
	ck_assert_ptr_nonnull(dummy);
	++*cs_stat_counter(dummy, "ok", NULL, NULL); /* dummy sink, no crash */
	cs_stat_avg_sample(cs_stat_average(dummy, "a", NULL, NULL), 1.0);
	cs_stat_dist_sample(cs_stat_distribution(dummy, "d", NULL, NULL, 0, 1, 2), 0.5);
	ck_assert_ptr_eq(cs_stat_group(dummy, "more"), dummy);
	ck_assert_ptr_null(cs_stat_group(NULL, "x"));
	ck_assert_ptr_null(cs_stat_counter(NULL, "x", NULL, NULL));

	ck_assert_int_eq(cs_stats_error(s, &e), -CS_EINVAL);
	ck_assert_int_eq(e.code, -CS_EINVAL);
	ck_assert_msg(strstr(e.msg, "invalid stat name ''") != NULL, "msg: %s", e.msg);
	ck_assert_msg(strstr(e.msg, "more registration errors") != NULL, "msg: %s", e.msg);
	ck_assert_uint_eq(cs_stats_count(s), 0);
	cs_stats_destroy(s);
}
END_TEST

START_TEST(test_counter_json)
{
	struct cs_stats *s = new_stats();
	struct cs_stat_group *g = cs_stat_group(cs_stats_root(s), "a.b");
	uint64_t *hits = cs_stat_counter(g, "hits", "count", "hits");
	uint64_t *big = cs_stat_counter(g, "big", "count", "near 2^63");
	json_t *j;
	int i;

	for (i = 0; i < 5; i++)
		++*hits;
	*big = (uint64_t)1 << 62;
	ck_assert_double_eq(value_of(s, "a.b.hits"), 5.0);
	j = roundtrip_json(cs_stats_to_json(s));
	ck_assert(json_is_integer(json_object_get(j, "a.b.hits")));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "a.b.hits")), 5);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "a.b.big")), (json_int_t)1 << 62);
	ck_assert_uint_eq(json_object_size(j), 2);
	json_decref(j);
	cs_stats_destroy(s);
}
END_TEST

START_TEST(test_duplicate)
{
	struct cs_stats *s = new_stats();
	struct cs_stat_group *g = cs_stat_group(cs_stats_root(s), "gpu.sm0");
	uint64_t *first = cs_stat_counter(g, "hits", "count", "hits");
	uint64_t *second;
	struct cs_err e;

	check_no_error(s);
	*first = 11;
	/* same full name through another path */
	second = cs_stat_counter(cs_stats_root(s), "gpu.sm0.hits", "count", "hits again");
	ck_assert_ptr_nonnull(second);
	ck_assert_ptr_ne(second, first);
	*second += 100; /* the dummy sink takes it */
	/* a different kind under the same name is a duplicate too */
	cs_stat_avg_sample(cs_stat_average(g, "hits", NULL, NULL), 3.0);
	ck_assert_int_eq(cs_stats_error(s, &e), -CS_EEXIST);
	ck_assert_msg(strstr(e.msg, "gpu.sm0.hits") != NULL, "msg: %s", e.msg);
	ck_assert_msg(strstr(e.msg, "duplicate") != NULL, "msg: %s", e.msg);
	ck_assert_msg(strstr(e.msg, "(and 1 more registration errors)") != NULL, "msg: %s", e.msg);
	ck_assert_uint_eq(cs_stats_count(s), 1);
	ck_assert_double_eq(value_of(s, "gpu.sm0.hits"), 11.0);
	/* NULL err is allowed */
	ck_assert_int_eq(cs_stats_error(s, NULL), -CS_EEXIST);
	cs_stats_destroy(s);
}
END_TEST

/* ---- averages, distributions, formulas ------------------------------------------------------ */

START_TEST(test_average)
{
	static const double samples[] = {2, 4, 4, 4, 5, 5, 7, 9};
	struct cs_stats *s = new_stats();
	struct cs_stat_group *g = cs_stat_group(cs_stats_root(s), "dram");
	struct cs_stat_avg *a = cs_stat_average(g, "lat", "ns", "latency");
	struct cs_stat_avg *empty = cs_stat_average(g, "empty", "ns", "never sampled");
	json_t *j;
	json_t *o;
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		cs_stat_avg_sample(a, samples[i]);
	check_no_error(s);
	ck_assert_uint_eq(a->count, 8);
	ck_assert_double_eq(a->min, 2.0);
	ck_assert_double_eq(a->max, 9.0);
	ck_assert_double_eq(value_of(s, "dram.lat"), 5.0);
	ck_assert_uint_eq(empty->count, 0);
	ck_assert_double_eq(value_of(s, "dram.empty"), 0.0);

	j = roundtrip_json(cs_stats_to_json(s));
	o = json_object_get(j, "dram.lat");
	ck_assert(json_is_object(o));
	ck_assert_int_eq(json_integer_value(json_object_get(o, "count")), 8);
	ck_assert_double_eq(json_real_value(json_object_get(o, "mean")), 5.0);
	/* sample stdev: sum of squared deviations 32, n - 1 = 7 */
	ck_assert_double_eq_tol(json_real_value(json_object_get(o, "stdev")), sqrt(32.0 / 7.0),
				1e-12);
	ck_assert_double_eq(json_number_value(json_object_get(o, "min")), 2.0);
	ck_assert_double_eq(json_number_value(json_object_get(o, "max")), 9.0);
	o = json_object_get(j, "dram.empty");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "count")), 0);
	ck_assert_double_eq(json_real_value(json_object_get(o, "stdev")), 0.0);
	ck_assert(json_is_null(json_object_get(o, "min")));
	ck_assert(json_is_null(json_object_get(o, "max")));
	json_decref(j);
	cs_stats_destroy(s);
}
END_TEST

START_TEST(test_distribution)
{
	static const double samples[] = {-1, 0, 1.9, 2, 5, 9.99, 10, 100};
	struct cs_stats *s = new_stats();
	struct cs_stat_group *g = cs_stat_group(cs_stats_root(s), "noc");
	struct cs_stat_dist *d = cs_stat_distribution(g, "hops", "hops", "hop count", 0, 10, 5);
	static const json_int_t expect[5] = {2, 1, 1, 0, 1};
	double sum = 0;
	json_t *j;
	json_t *o;
	json_t *b;
	struct cs_err e;
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		cs_stat_dist_sample(d, samples[i]);
		sum += samples[i];
	}
	check_no_error(s);
	ck_assert_double_eq_tol(value_of(s, "noc.hops"), sum / 8, 1e-12);
	j = roundtrip_json(cs_stats_to_json(s));
	o = json_object_get(j, "noc.hops");
	ck_assert(json_is_object(o));
	ck_assert_int_eq(json_integer_value(json_object_get(o, "count")), 8);
	ck_assert_double_eq(json_number_value(json_object_get(o, "min")), -1.0);
	ck_assert_double_eq(json_number_value(json_object_get(o, "max")), 100.0);
	ck_assert_double_eq(json_number_value(json_object_get(o, "lo")), 0.0);
	ck_assert_double_eq(json_number_value(json_object_get(o, "hi")), 10.0);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "underflow")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "overflow")), 2);
	b = json_object_get(o, "buckets");
	ck_assert_uint_eq(json_array_size(b), 5);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(json_integer_value(json_array_get(b, i)), expect[i]);
	json_decref(j);

	/* NaN is an overflow, not undefined behaviour */
	cs_stat_dist_sample(d, NAN);

	/* bad parameters are a recorded error, and the sink still works */
	d = cs_stat_distribution(g, "bad", NULL, NULL, 5, 5, 3);
	ck_assert_ptr_nonnull(d);
	cs_stat_dist_sample(d, 5);
	cs_stat_dist_sample(cs_stat_distribution(g, "bad0", NULL, NULL, 0, 1, 0), 0.5);
	ck_assert_int_eq(cs_stats_error(s, &e), -CS_EINVAL);
	ck_assert_msg(strstr(e.msg, "'bad'") != NULL, "msg: %s", e.msg);
	ck_assert_uint_eq(cs_stats_count(s), 1);
	cs_stats_destroy(s);
}
END_TEST

static double const_formula(const void *ctx)
{
	return *(const double *)ctx;
}

START_TEST(test_ratio_formula)
{
	struct cs_stats *s = new_stats();
	struct cs_stat_group *g = cs_stat_group(cs_stats_root(s), "l2");
	uint64_t *hits = cs_stat_counter(g, "hits", "count", "hits");
	uint64_t *acc = cs_stat_counter(g, "accesses", "count", "accesses");
	double k = 0.25;
	double nan = NAN;
	json_t *j;

	cs_stat_ratio(g, "hit_rate", "hits per access", hits, acc);
	cs_stat_formula(g, "quarter", "", "constant", const_formula, &k);
	cs_stat_formula(g, "broken", "", "not a number", const_formula, &nan);
	check_no_error(s);
	ck_assert_double_eq(value_of(s, "l2.hit_rate"), 0.0); /* den == 0 */
	*hits = 1;
	*acc = 4;
	ck_assert_double_eq(value_of(s, "l2.hit_rate"), 0.25);
	ck_assert_double_eq(value_of(s, "l2.quarter"), 0.25);
	ck_assert(isnan(value_of(s, "l2.broken")));
	j = roundtrip_json(cs_stats_to_json(s));
	ck_assert_double_eq(json_real_value(json_object_get(j, "l2.hit_rate")), 0.25);
	ck_assert(json_is_null(json_object_get(j, "l2.broken")));
	json_decref(j);
	cs_stats_destroy(s);
}
END_TEST

START_TEST(test_reset)
{
	struct cs_stats *s = new_stats();
	struct sample_stats p;
	json_t *j;
	json_t *o;

	build_sample(s, &p);
	run_sample(&p);
	ck_assert_double_eq(value_of(s, "gpu.sm0.l1.hits"), 7.0);
	ck_assert_double_eq(value_of(s, "gpu.sm0.l1.hit_rate"), 0.7);
	cs_stats_reset(s);
	ck_assert_uint_eq(*p.hits, 0);
	ck_assert_double_eq(value_of(s, "gpu.sm0.l1.hits"), 0.0);
	ck_assert_double_eq(value_of(s, "gpu.sm0.l1.hit_rate"), 0.0);
	ck_assert_double_eq(value_of(s, "gpu.sm0.l1.twice_hits"), 0.0);
	ck_assert_double_eq(value_of(s, "gpu.sm0.l1.latency"), 0.0);
	j = roundtrip_json(cs_stats_to_json(s));
	o = json_object_get(j, "gpu.sm0.l1.lat_hist");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "count")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "overflow")), 0);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(o, "buckets"), 0)), 0);
	ck_assert(json_is_null(json_object_get(o, "min")));
	json_decref(j);
	/* min/max start over after a reset */
	cs_stat_avg_sample(p.lat, 50.0);
	ck_assert_double_eq(p.lat->min, 50.0);
	ck_assert_double_eq(p.lat->max, 50.0);
	cs_stats_destroy(s);
}
END_TEST

/* ---- intervals ------------------------------------------------------------------------------ */

START_TEST(test_snapshots)
{
	struct cs_stats *s = new_stats();
	struct sample_stats p;
	json_t *j;
	json_t *iv;
	json_t *st;
	char *csv;
	char *lines[8];
	char fields[16][256];
	size_t n;

	build_sample(s, &p);
	/* interval 1: 3 accesses, 1 hit; latency samples 10 and 20 */
	*p.accesses += 3;
	*p.hits += 1;
	cs_stat_avg_sample(p.lat, 10);
	cs_stat_avg_sample(p.lat, 20);
	ck_assert_int_eq(cs_stats_snapshot(s, "warm,up", 1000), 0);
	/* interval 2: 5 accesses, 5 hits, 2 misses; latency samples 40 */
	*p.accesses += 5;
	*p.hits += 5;
	*p.misses += 2;
	cs_stat_avg_sample(p.lat, 40);
	ck_assert_int_eq(cs_stats_snapshot(s, "unit1", 2500), 0);
	/* interval 3: nothing happens */
	ck_assert_int_eq(cs_stats_snapshot(s, NULL, 3000), 0);
	ck_assert_uint_eq(cs_stats_interval_count(s), 3);

	j = roundtrip_json(cs_stats_intervals_to_json(s));
	ck_assert(json_is_array(j));
	ck_assert_uint_eq(json_array_size(j), 3);
	iv = json_array_get(j, 0);
	ck_assert_str_eq(json_string_value(json_object_get(iv, "label")), "warm,up");
	ck_assert_int_eq(json_integer_value(json_object_get(iv, "time_ps")), 1000);
	st = json_object_get(iv, "stats");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "gpu.sm0.l1.accesses")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "gpu.sm0.l1.hits")), 1);
	ck_assert_double_eq_tol(json_real_value(json_object_get(st, "gpu.sm0.l1.hit_rate")),
				1.0 / 3.0, 1e-15);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(st, "gpu.sm0.l1.latency"), "count")),
	    2);
	ck_assert_double_eq(
	    json_real_value(json_object_get(json_object_get(st, "gpu.sm0.l1.latency"), "mean")),
	    15.0);

	iv = json_array_get(j, 1);
	st = json_object_get(iv, "stats");
	ck_assert_int_eq(json_integer_value(json_object_get(iv, "time_ps")), 2500);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "gpu.sm0.l1.accesses")), 5);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "gpu.sm0.l1.hits")), 5);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "gpu.sm0.l1.misses")), 2);
	/* ratio over the interval's deltas, not over the totals (6 / 8) */
	ck_assert_double_eq(json_real_value(json_object_get(st, "gpu.sm0.l1.hit_rate")), 1.0);
	/* other formulas: current totals */
	ck_assert_double_eq(json_real_value(json_object_get(st, "gpu.sm0.l1.twice_hits")), 12.0);
	ck_assert_double_eq(
	    json_real_value(json_object_get(json_object_get(st, "gpu.sm0.l1.latency"), "mean")),
	    40.0);

	iv = json_array_get(j, 2);
	st = json_object_get(iv, "stats");
	ck_assert_str_eq(json_string_value(json_object_get(iv, "label")), "");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "gpu.sm0.l1.accesses")), 0);
	ck_assert_double_eq(json_real_value(json_object_get(st, "gpu.sm0.l1.hit_rate")), 0.0);
	json_decref(j);
	/* totals are untouched by snapshots */
	ck_assert_double_eq(value_of(s, "gpu.sm0.l1.accesses"), 8.0);

	csv = write_to_string(s, cs_stats_write_intervals_csv);
	n = split_lines(csv, lines, 8);
	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(lines[0],
			 "label,time_ps,gpu.sm0.l1.hits,gpu.sm0.l1.misses,gpu.sm0.l1.accesses");
	ck_assert_str_eq(lines[1], "\"warm,up\",1000,1,0,3");
	ck_assert_str_eq(lines[2], "unit1,2500,5,2,5");
	ck_assert_str_eq(lines[3], ",3000,0,0,0");
	ck_assert_uint_eq(csv_split(lines[1], fields, 16), 5);
	ck_assert_str_eq(fields[0], "warm,up");
	free(csv);

	/* after a reset the next interval starts from zero */
	*p.accesses += 4;
	cs_stats_reset(s);
	*p.accesses += 2;
	ck_assert_int_eq(cs_stats_snapshot(s, "after-reset", 4000), 0);
	j = roundtrip_json(cs_stats_intervals_to_json(s));
	st = json_object_get(json_array_get(j, 3), "stats");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "gpu.sm0.l1.accesses")), 2);
	json_decref(j);
	cs_stats_destroy(s);
}
END_TEST

START_TEST(test_snapshot_late_registration)
{
	struct cs_stats *s = new_stats();
	uint64_t *a = cs_stat_counter(cs_stats_root(s), "a", NULL, NULL);
	uint64_t *b;
	char *csv;
	char *lines[4];
	json_t *j;

	*a = 2;
	ck_assert_int_eq(cs_stats_snapshot(s, "one", 1), 0);
	b = cs_stat_counter(cs_stats_root(s), "b", NULL, NULL);
	*b = 5;
	ck_assert_int_eq(cs_stats_snapshot(s, "two", 2), 0);
	csv = write_to_string(s, cs_stats_write_intervals_csv);
	ck_assert_uint_eq(split_lines(csv, lines, 4), 3);
	ck_assert_str_eq(lines[0], "label,time_ps,a,b");
	ck_assert_str_eq(lines[1], "one,1,2,");
	ck_assert_str_eq(lines[2], "two,2,0,5");
	free(csv);
	j = roundtrip_json(cs_stats_intervals_to_json(s));
	ck_assert_uint_eq(json_object_size(json_object_get(json_array_get(j, 0), "stats")), 1);
	ck_assert_uint_eq(json_object_size(json_object_get(json_array_get(j, 1), "stats")), 2);
	json_decref(j);
	cs_stats_destroy(s);
}
END_TEST

/* ---- output formats ------------------------------------------------------------------------- */

START_TEST(test_json_output)
{
	struct cs_stats *s = new_stats();
	struct sample_stats p;
	json_t *j;
	json_t *o;
	const char *key;
	json_t *val;
	static const char *const order[] = {
	    "gpu.sm0.l1.hits",	   "gpu.sm0.l1.misses",	    "gpu.sm0.l1.accesses",
	    "gpu.sm0.l1.hit_rate", "gpu.sm0.l1.twice_hits", "gpu.sm0.l1.latency",
	    "gpu.sm0.l1.lat_hist",
	};
	size_t i = 0;

	build_sample(s, &p);
	run_sample(&p);
	j = roundtrip_json(cs_stats_to_json(s));
	ck_assert_uint_eq(json_object_size(j), 7);
	/* registration order is kept */
	json_object_foreach(j, key, val)
	{
		ck_assert_str_eq(key, order[i]);
		i++;
	}
	ck_assert_int_eq(json_integer_value(json_object_get(j, "gpu.sm0.l1.hits")), 7);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "gpu.sm0.l1.misses")), 3);
	ck_assert_double_eq(json_real_value(json_object_get(j, "gpu.sm0.l1.hit_rate")), 0.7);
	ck_assert_double_eq(json_real_value(json_object_get(j, "gpu.sm0.l1.twice_hits")), 14.0);
	o = json_object_get(j, "gpu.sm0.l1.latency");
	ck_assert_double_eq_tol(json_real_value(json_object_get(o, "mean")),
				(7 * 4.0 + 3 * 120.5) / 10, 1e-12);
	o = json_object_get(j, "gpu.sm0.l1.lat_hist");
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(o, "buckets"), 0)), 7);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "overflow")), 3);
	json_decref(j);
	cs_stats_destroy(s);
}
END_TEST

START_TEST(test_csv_output)
{
	struct cs_stats *s = new_stats();
	struct sample_stats p;
	char *csv;
	char *lines[16];
	char f[8][256];
	size_t n;

	build_sample(s, &p);
	run_sample(&p);
	csv = write_to_string(s, cs_stats_write_csv);
	n = split_lines(csv, lines, 16);
	ck_assert_uint_eq(n, 8);
	ck_assert_str_eq(lines[0], "name,value,unit,description");
	ck_assert_str_eq(lines[1], "gpu.sm0.l1.hits,7,count,read hits");
	/* the description with a comma and quotes is quoted, quotes doubled */
	ck_assert_str_eq(lines[2],
			 "gpu.sm0.l1.misses,3,count,\"read misses, \"\"cold\"\" or not\"");
	ck_assert_uint_eq(csv_split(lines[2], f, 8), 4);
	ck_assert_str_eq(f[3], "read misses, \"cold\" or not");
	ck_assert_str_eq(lines[4], "gpu.sm0.l1.hit_rate,0.7,ratio,hits / reads");
	ck_assert_uint_eq(csv_split(lines[6], f, 8), 4);
	ck_assert_str_eq(f[0], "gpu.sm0.l1.latency");
	ck_assert_double_eq_tol(strtod(f[1], NULL), 38.95, 1e-12);
	ck_assert_str_eq(f[2], "cycles");
	free(csv);
	cs_stats_destroy(s);
}
END_TEST

START_TEST(test_text_output)
{
	struct cs_stats *s = new_stats();
	struct sample_stats p;
	char *text;
	char *lines[64];
	size_t n;
	size_t i;
	size_t col = 0;

	build_sample(s, &p);
	run_sample(&p);
	text = write_to_string(s, cs_stats_write_text);
	ck_assert_msg(strstr(text, "\ngpu.sm0.l1.lat_hist::0-25 ") != NULL, "no bucket line");
	ck_assert_msg(strstr(text, "\ngpu.sm0.l1.lat_hist::75-100 ") != NULL, "no last bucket");
	n = split_lines(text, lines, 64);
	/* 5 plain + 5 average + (5 + underflow + 4 buckets + overflow) distribution lines */
	ck_assert_uint_eq(n, 5 + 5 + 11);
	ck_assert_msg(strncmp(lines[0], "gpu.sm0.l1.hits ", 16) == 0, "line: %s", lines[0]);
	ck_assert_msg(strstr(lines[0], " 7  # read hits (count)") != NULL, "line: %s", lines[0]);
	/* values end in the same column on every line */
	for (i = 0; i < n; i++) {
		char *hash = strstr(lines[i], "  #");
		size_t c = hash ? (size_t)(hash - lines[i]) : strlen(lines[i]);

		if (i == 0)
			col = c;
		ck_assert_msg(c == col, "misaligned line %zu: %s", i, lines[i]);
	}
	free(text);
	cs_stats_destroy(s);
}
END_TEST

START_TEST(test_determinism)
{
	struct cs_stats *a = new_stats();
	struct cs_stats *b = new_stats();
	struct sample_stats pa;
	struct sample_stats pb;
	char *ja;
	char *jb;
	int (*writers[])(const struct cs_stats *, FILE *) = {
	    cs_stats_write_csv, cs_stats_write_text, cs_stats_write_intervals_csv};
	size_t i;

	build_sample(a, &pa);
	build_sample(b, &pb);
	run_sample(&pa);
	run_sample(&pb);
	cs_stat_avg_sample(pa.lat, 0.1);
	cs_stat_avg_sample(pb.lat, 0.1);
	ck_assert_int_eq(cs_stats_snapshot(a, "u", 5), 0);
	ck_assert_int_eq(cs_stats_snapshot(b, "u", 5), 0);
	ja = dump_json(a);
	jb = dump_json(b);
	ck_assert_str_eq(ja, jb);
	free(ja);
	free(jb);
	for (i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
		ja = write_to_string(a, writers[i]);
		jb = write_to_string(b, writers[i]);
		ck_assert_str_eq(ja, jb);
		free(ja);
		free(jb);
	}
	{
		json_t *x = cs_stats_intervals_to_json(a);
		json_t *y = cs_stats_intervals_to_json(b);

		ja = json_dumps(x, JSON_REAL_PRECISION(17));
		jb = json_dumps(y, JSON_REAL_PRECISION(17));
		ck_assert_str_eq(ja, jb);
		free(ja);
		free(jb);
		json_decref(x);
		json_decref(y);
	}
	cs_stats_destroy(a);
	cs_stats_destroy(b);
}
END_TEST

#define MANY_GROUPS    1000
#define MANY_PER_GROUP 100
#define MANY_EARLY     256

START_TEST(test_many_stable_pointers)
{
	struct cs_stats *s = new_stats();
	uint64_t *early[MANY_EARLY];
	struct cs_stat_avg *early_avg;
	struct cs_stat_group *first_group = NULL;
	char name[64];
	unsigned g;
	unsigned i;
	size_t k = 0;

	for (g = 0; g < MANY_GROUPS; g++) {
		struct cs_stat_group *grp;

		snprintf(name, sizeof(name), "gpu.sm%u.l1", g);
		grp = cs_stat_group(cs_stats_root(s), name);
		if (!first_group)
			first_group = grp;
		for (i = 0; i < MANY_PER_GROUP; i++) {
			uint64_t *c;

			snprintf(name, sizeof(name), "c%u", i);
			c = cs_stat_counter(grp, name, "count", "a counter");
			if (k < MANY_EARLY)
				early[k] = c;
			k++;
		}
	}
	early_avg = cs_stat_average(first_group, "avg", "cycles", "late average");
	check_no_error(s);
	ck_assert_uint_eq(cs_stats_count(s), (size_t)MANY_GROUPS * MANY_PER_GROUP + 1);
	/* the group handed out first is still the same object */
	ck_assert_ptr_eq(cs_stat_group(cs_stats_root(s), "gpu.sm0.l1"), first_group);
	/* write through the earliest pointers after 10^5 registrations */
	for (k = 0; k < MANY_EARLY; k++)
		*early[k] += k + 1;
	cs_stat_avg_sample(early_avg, 3.0);
	for (k = 0; k < MANY_EARLY; k++) {
		snprintf(name, sizeof(name), "gpu.sm%zu.l1.c%zu", k / MANY_PER_GROUP,
			 k % MANY_PER_GROUP);
		ck_assert_double_eq(value_of(s, name), (double)(k + 1));
	}
	ck_assert_double_eq(value_of(s, "gpu.sm999.l1.c99"), 0.0);
	ck_assert_double_eq(value_of(s, "gpu.sm0.l1.avg"), 3.0);
	/* counters of one group are adjacent words */
	ck_assert_ptr_eq(early[1], early[0] + 1);
	ck_assert_int_eq(cs_stats_snapshot(s, "all", 1), 0);
	cs_stats_destroy(s);
}
END_TEST

/* ---- hostperf ------------------------------------------------------------------------------- */

START_TEST(test_hostperf)
{
	struct cs_hostperf *h = NULL;
	struct cs_hostperf_result r;
	volatile double x = 0;
	double first;
	int i;

	ck_assert_int_eq(cs_hostperf_open(&h), 0);
	ck_assert_ptr_nonnull(h);
	cs_hostperf_read(h, &r);
	ck_assert_double_eq(r.wall_s, 0.0);
	cs_hostperf_start(h);
	cs_hostperf_start(h); /* no-op */
	for (i = 0; i < 2000000; i++)
		x += i * 0.5;
	cs_hostperf_stop(h);
	cs_hostperf_stop(h); /* no-op */
	ck_assert(x > 0.0);
	cs_hostperf_read(h, &r);
	ck_assert(r.wall_s > 0.0);
	if (r.counters) {
		ck_assert_str_eq(r.why, "");
		ck_assert(r.cycles > 0);
		ck_assert(r.instructions > 0);
	} else {
		ck_assert_msg(r.why[0] != '\0', "no counters and no reason");
		ck_assert_uint_eq(r.cycles, 0);
	}
#ifndef HAVE_PAPI
	ck_assert_str_eq(r.why, "built without PAPI");
#endif
	fprintf(stderr,
		"hostperf: counters=%s wall=%.6fs cycles=%llu instructions=%llu why=\"%s\"\n",
		r.counters ? "yes" : "no", r.wall_s, (unsigned long long)r.cycles,
		(unsigned long long)r.instructions, r.why);
	/* stretches accumulate */
	first = r.wall_s;
	cs_hostperf_start(h);
	for (i = 0; i < 100000; i++)
		x += i;
	cs_hostperf_read(h, &r); /* while running */
	ck_assert(r.wall_s > first);
	cs_hostperf_stop(h);
	cs_hostperf_close(h);
	cs_hostperf_close(NULL);

	/* a second open/close cycle works as well */
	ck_assert_int_eq(cs_hostperf_open(&h), 0);
	cs_hostperf_start(h);
	cs_hostperf_close(h); /* closing while running is fine */
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("registry");
	TCase *out = tcase_create("output");
	TCase *host = tcase_create("hostperf");

	tcase_add_test(tc, test_hierarchical_names);
	tcase_add_test(tc, test_invalid_names);
	tcase_add_test(tc, test_counter_json);
	tcase_add_test(tc, test_duplicate);
	tcase_add_test(tc, test_average);
	tcase_add_test(tc, test_distribution);
	tcase_add_test(tc, test_ratio_formula);
	tcase_add_test(tc, test_reset);
	tcase_add_test(tc, test_snapshots);
	tcase_add_test(tc, test_snapshot_late_registration);
	tcase_add_test(tc, test_many_stable_pointers);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tcase_add_test(out, test_json_output);
	tcase_add_test(out, test_csv_output);
	tcase_add_test(out, test_text_output);
	tcase_add_test(out, test_determinism);
	suite_add_tcase(s, out);

	tcase_add_test(host, test_hostperf);
	suite_add_tcase(s, host);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
