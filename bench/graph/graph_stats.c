/*
 * bench/graph/graph_stats.c - statistics and generation time of the graph inputs
 * (workloads/graph, docs/graphs.md): every shape at every tier, or graph files.
 *
 *   graph_stats [--seed N] [--tier tiny|small|default|full|all] [--shape NAME|all]
 *               [--nodes N] [--write DIR] [FILE.mtx|FILE.gr ...]
 *
 * One line per graph: the statistics of graph_stats_line, the digest and the generation (or
 * reading) time in milliseconds. --write DIR also writes each generated graph as
 * DIR/NAME-TIER.mtx. Wall time is a figure, never a check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workloads/graph/graph.h"

static const char *const tier_names[] = {"tiny", "small", "default", "full"};

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int report(const char *name, const char *tier, const struct graph *g, double ms)
{
	struct graph_stats s;
	char line[512];

	if (graph_stats(g, &s) != 0) {
		fprintf(stderr, "graph_stats: out of memory\n");
		return 1;
	}
	printf("%-14s %-7s %s digest %016llx ms %.1f\n", name, tier,
	       graph_stats_line(&s, line, sizeof(line)), (unsigned long long)graph_digest(g), ms);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: graph_stats [--seed N] [--tier tiny|small|default|full|all] "
			"[--shape NAME|all] [--nodes N] [--write DIR] [FILE ...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	int tier = -1, shape = -1, files = 0, bad = 0;
	unsigned long nodes = 0;
	const char *dir = NULL;
	struct cs_err err = {0};

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-') {
			files++;
			continue;
		}
		if (!v)
			return usage();
		i++;
		if (strcmp(a, "--seed") == 0) {
			seed = strtoull(v, NULL, 0);
		} else if (strcmp(a, "--nodes") == 0) {
			nodes = strtoul(v, NULL, 0);
		} else if (strcmp(a, "--write") == 0) {
			dir = v;
		} else if (strcmp(a, "--tier") == 0) {
			for (tier = 0; tier < 4 && strcmp(v, tier_names[tier]) != 0; tier++)
				;
			if (tier == 4 && strcmp(v, "all") != 0)
				return usage();
			tier = tier == 4 ? -1 : tier;
		} else if (strcmp(a, "--shape") == 0) {
			enum graph_shape s;

			if (strcmp(v, "all") == 0) {
				shape = -1;
			} else if (graph_shape_find(v, &s, &err) == 0) {
				shape = (int)s;
			} else {
				fprintf(stderr, "graph_stats: %s\n", err.msg);
				return 2;
			}
		} else {
			return usage();
		}
	}
	for (int i = 1; i < argc; i++) {
		struct graph *g;
		double t0;

		if (argv[i][0] == '-') {
			i++;
			continue;
		}
		t0 = now_ms();
		if (graph_read(argv[i], &g, NULL, &err) != 0) {
			fprintf(stderr, "graph_stats: %s\n", err.msg);
			bad = 1;
			continue;
		}
		bad |= report(argv[i], "file", g, now_ms() - t0);
		graph_free(g);
	}
	if (files)
		return bad;
	for (int s = 0; s < GRAPH_SHAPES; s++) {
		if (shape >= 0 && s != shape)
			continue;
		for (int t = 0; t < 4; t++) {
			struct graph *g;
			uint32_t n;
			double t0;

			if (tier >= 0 && t != tier)
				continue;
			n = nodes ? (uint32_t)nodes : graph_tier_nodes(s, (enum graph_tier)t);
			t0 = now_ms();
			if (graph_generate(s, n, seed, &g, &err) != 0) {
				fprintf(stderr, "graph_stats: %s\n", err.msg);
				bad = 1;
				continue;
			}
			bad |= report(graph_original(s)->name, tier_names[t], g, now_ms() - t0);
			if (dir) {
				char path[4096];

				snprintf(path, sizeof(path), "%s/%s-%s.mtx", dir,
					 graph_original(s)->name, tier_names[t]);
				if (graph_write_mtx(g, path, &err) != 0) {
					fprintf(stderr, "graph_stats: %s\n", err.msg);
					bad = 1;
				}
			}
			graph_free(g);
			if (nodes)
				break;
		}
	}
	return bad;
}
