/*
 * tests/fuzz/replay_main.c - runs fuzz targets without libFuzzer: a target's entry on every file
 * named on the command line and on every file of a directory named (in name order, dot files
 * left out). Each input is read into a buffer of exactly its size, so AddressSanitizer sees a
 * read past its end. Exit status 0, or 1 when a file cannot be read or nothing was replayed.
 *
 * Built with one fuzz_NAME.c it calls its LLVMFuzzerTestOneInput: `replay FILE|DIR...`. The
 * build's fuzz_replay holds every target, each fuzz_NAME.c compiled with
 * -DLLVMFuzzerTestOneInput=fz_entry_NAME and FZ_TARGET_LIST = X(NAME)X(NAME)...:
 * `fuzz_replay NAME FILE|DIR...` (CTest's fuzz.NAME replays tests/fuzz/corpus/NAME this way).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/harness.h"

typedef int (*fz_entry)(const uint8_t *data, size_t size);

#ifdef FZ_TARGET_LIST
#define X(name) int fz_entry_##name(const uint8_t *data, size_t size);
FZ_TARGET_LIST
#undef X
#endif

static int replay_file(fz_entry one, const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t size = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (size == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? cap * 2 : 4096);

			if (!nb) {
				fclose(f);
				free(buf);
				fprintf(stderr, "replay: %s: out of memory\n", path);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + size, 1, cap - size, f);
		size += n;
	} while (n);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		fprintf(stderr, "replay: %s: cannot read\n", path);
		return -1;
	}
	fclose(f);
	{
		/* exactly size bytes, so that a read past the input's end is one ASan sees */
		uint8_t *exact = malloc(size ? size : 1);

		if (!exact) {
			free(buf);
			fprintf(stderr, "replay: %s: out of memory\n", path);
			return -1;
		}
		memcpy(exact, buf, size);
		free(buf);
		fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
		one(exact, size);
		free(exact);
	}
	return 0;
}

static int cmp_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_dot(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* The entry point argv[1] names (*first: the first path's index), or NULL. */
static fz_entry pick(int argc, char **argv, int *first)
{
#ifdef FZ_TARGET_LIST
	static const struct {
		const char *name;
		fz_entry one;
	} targets[] = {
#define X(name) {#name, fz_entry_##name},
	    FZ_TARGET_LIST
#undef X
	};

	*first = 2;
	for (size_t i = 0; argc > 1 && i < sizeof(targets) / sizeof(targets[0]); i++)
		if (!strcmp(argv[1], targets[i].name))
			return targets[i].one;
	fprintf(stderr, "usage: %s TARGET FILE|DIR... (TARGET:", argv[0]);
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		fprintf(stderr, " %s", targets[i].name);
	fprintf(stderr, ")\n");
	return NULL;
#else
	(void)argc;
	(void)argv;
	*first = 1;
	return LLVMFuzzerTestOneInput;
#endif
}

int main(int argc, char **argv)
{
	unsigned long done = 0;
	int bad = 0, first;
	fz_entry one = pick(argc, argv, &first);

	if (!one)
		return 2;
	if (argc <= first) {
		fprintf(stderr, "usage: %s%s FILE|DIR...\n", argv[0], first > 1 ? " TARGET" : "");
		return 2;
	}
	for (int i = first; i < argc; i++) {
		struct dirent **list;
		struct stat st;
		int n;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			bad = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= replay_file(one, argv[i]) != 0;
			done += 1;
			continue;
		}
		n = scandir(argv[i], &list, not_dot, cmp_name);
		if (n < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			bad = 1;
			continue;
		}
		for (int j = 0; j < n; j++) {
			char path[FZ_PATH];

			snprintf(path, sizeof(path), "%s/%s", argv[i], list[j]->d_name);
			if (!stat(path, &st) && S_ISREG(st.st_mode)) {
				bad |= replay_file(one, path) != 0;
				done++;
			}
			free(list[j]);
		}
		free(list);
	}
	fprintf(stderr, "replay: %lu inputs%s\n", done, bad ? ", some unreadable" : "");
	return bad || !done;
}
