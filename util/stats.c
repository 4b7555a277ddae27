/*
 * util/stats.c - the statistics registry: groups, registration, intervals and output.
 *
 * Layout: two chunked arenas per registry. The "data" arena holds what the hot path touches
 * (counter words, averages, distributions and their buckets), packed in registration order; the
 * "meta" arena holds stat records, groups and strings. Arena chunks are never moved or freed
 * before cs_stats_destroy(), which is what keeps the registered pointers stable. Three hash
 * tables (open addressing, only used at build and output time) map full names to stats, full
 * paths to groups and counter addresses to stats; a fourth interns units and descriptions.
 * Outputs walk the registration-order list, never a hash table, so they are deterministic.
 */
#include "util/stats.h"

#include <inttypes.h>
#include <math.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/mix.h"

#define CS_ARENA_CHUNK	     (64 * 1024)
#define CS_HTAB_MIN_CAP	     64
#define CS_DIST_MAX_BUCKETS  (1u << 20)
#define CS_STATS_RATIO_UNIT  "ratio"
#define CS_STATS_DOUBLE_SIZE 40

/* ---- arena ---------------------------------------------------------------------------------- */

struct cs_arena_chunk {
	struct cs_arena_chunk *next;
	size_t size;
	size_t used;
	max_align_t data[];
};

struct cs_arena {
	struct cs_arena_chunk *head; /* the chunk being filled */
};

static void arena_free(struct cs_arena *a)
{
	struct cs_arena_chunk *c = a->head;

	while (c) {
		struct cs_arena_chunk *next = c->next;

		free(c);
		c = next;
	}
	a->head = NULL;
}

/* Zeroed memory, aligned to align (a power of two <= alignof(max_align_t)), or NULL. */
static void *arena_alloc(struct cs_arena *a, size_t size, size_t align)
{
	struct cs_arena_chunk *c = a->head;
	size_t cap;

	if (c) {
		size_t off = (c->used + align - 1) & ~(align - 1);

		if (off <= c->size && size <= c->size - off) {
			c->used = off + size;
			return (char *)c->data + off;
		}
	}
	cap = size > CS_ARENA_CHUNK / 4 ? size : CS_ARENA_CHUNK;
	if (cap > SIZE_MAX - sizeof(*c))
		return NULL;
	c = calloc(1, sizeof(*c) + cap);
	if (!c)
		return NULL;
	c->size = cap;
	c->used = size;
	if (cap != size || !a->head) {
		c->next = a->head;
		a->head = c;
	} else {
		/* a dedicated big block: keep filling the current chunk */
		c->next = a->head->next;
		a->head->next = c;
	}
	return c->data;
}

static char *arena_strndup(struct cs_arena *a, const char *str, size_t len)
{
	char *p = arena_alloc(a, len + 1, 1);

	if (p)
		memcpy(p, str, len); /* the terminator is already 0 */
	return p;
}

/* ---- hash table (string or pointer keys) ---------------------------------------------------- */

struct cs_htab_ent {
	uint64_t hash;
	const void *key; /* NULL = empty slot */
	void *val;
};

struct cs_htab {
	struct cs_htab_ent *ents;
	size_t cap; /* power of two */
	size_t n;
	bool strkey;
};

static uint64_t hash_str(const char *str)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	while (*str) {
		h ^= (unsigned char)*str++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t hash_ptr(const void *p)
{
	return cs_mix64((uint64_t)(uintptr_t)p);
}

static bool htab_key_eq(const struct cs_htab *t, const struct cs_htab_ent *e, uint64_t hash,
			const void *key)
{
	if (e->hash != hash)
		return false;
	return t->strkey ? strcmp(e->key, key) == 0 : e->key == key;
}

static void *htab_find(const struct cs_htab *t, const void *key, uint64_t hash)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		const struct cs_htab_ent *e = &t->ents[i];

		if (!e->key)
			return NULL;
		if (htab_key_eq(t, e, hash, key))
			return e->val;
	}
}

static void htab_put(struct cs_htab_ent *ents, size_t cap, uint64_t hash, const void *key,
		     void *val)
{
	size_t i = hash & (cap - 1);

	while (ents[i].key)
		i = (i + 1) & (cap - 1);
	ents[i].hash = hash;
	ents[i].key = key;
	ents[i].val = val;
}

/* Makes room for one more entry so that the next htab_insert() cannot fail. */
static int htab_reserve(struct cs_htab *t)
{
	struct cs_htab_ent *ents;
	size_t cap;
	size_t i;

	if ((t->n + 1) * 2 <= t->cap)
		return 0;
	cap = t->cap ? t->cap * 2 : CS_HTAB_MIN_CAP;
	ents = calloc(cap, sizeof(*ents));
	if (!ents)
		return -CS_ENOMEM;
	for (i = 0; i < t->cap; i++)
		if (t->ents[i].key)
			htab_put(ents, cap, t->ents[i].hash, t->ents[i].key, t->ents[i].val);
	free(t->ents);
	t->ents = ents;
	t->cap = cap;
	return 0;
}

/* The key must be absent and htab_reserve() must have succeeded. */
static void htab_insert(struct cs_htab *t, const void *key, uint64_t hash, void *val)
{
	htab_put(t->ents, t->cap, hash, key, val);
	t->n++;
}

static void htab_free(struct cs_htab *t)
{
	free(t->ents);
	t->ents = NULL;
	t->cap = 0;
	t->n = 0;
}

/* ---- registry types ------------------------------------------------------------------------- */

enum cs_stat_kind {
	CS_STAT_COUNTER,
	CS_STAT_AVERAGE,
	CS_STAT_DIST,
	CS_STAT_FORMULA,
	CS_STAT_RATIO,
};

struct cs_stat_dist {
	struct cs_stat_avg avg;
	double lo;
	double hi;
	double scale; /* nbuckets / (hi - lo) */
	unsigned nbuckets;
	uint64_t underflow;
	uint64_t overflow;
	uint64_t *buckets;
};

struct cs_stat {
	struct cs_stat *next; /* registration order */
	size_t idx;	      /* position in registration order */
	enum cs_stat_kind kind;
	const char *name; /* full dotted name */
	const char *unit;
	const char *desc;
	union {
		uint64_t *ctr;
		struct cs_stat_avg *avg;
		struct cs_stat_dist *dist;
		struct {
			cs_stat_formula_fn fn;
			const void *ctx;
		} formula;
		struct {
			const uint64_t *num;
			const uint64_t *den;
		} ratio;
	} u;
	uint64_t base_count; /* counter value / sample count at the last snapshot or reset */
	double base_sum;     /* sample sum at the last snapshot or reset */
};

struct cs_stat_group {
	struct cs_stats *s;
	struct cs_stat_group *parent;
	const char *path; /* full dotted path, "" for the root */
	size_t len;
	bool dummy; /* registrations go to the dummy sinks */
};

/* One recorded value per stat of an interval: u = counter delta or sample count, d = ratio,
 * formula value or interval mean. */
struct cs_ivl_val {
	uint64_t u;
	double d;
};

struct cs_interval {
	struct cs_interval *next;
	char *label;
	uint64_t time_ps;
	size_t n; /* number of stats registered when it was recorded */
	struct cs_ivl_val *vals;
};

struct cs_stats {
	struct cs_arena meta;
	struct cs_arena data;
	struct cs_htab by_name; /* full name -> struct cs_stat */
	struct cs_htab by_ptr;	/* counter address -> struct cs_stat */
	struct cs_htab groups;	/* full path -> struct cs_stat_group */
	struct cs_htab strings; /* interned units and descriptions */
	struct cs_stat *first;
	struct cs_stat *last;
	size_t nstats;
	struct cs_stat_group root;
	struct cs_stat_group dummy_group;
	struct cs_interval *ivl_first;
	struct cs_interval *ivl_last;
	size_t nintervals;
	struct cs_err err; /* first registration error */
	unsigned long nerrors;
	/* sinks handed out when a registration fails */
	uint64_t dummy_ctr;
	struct cs_stat_avg dummy_avg;
	struct cs_stat_dist dummy_dist;
};

/* ---- helpers -------------------------------------------------------------------------------- */

static void avg_clear(struct cs_stat_avg *a)
{
	a->count = 0;
	a->sum = 0.0;
	a->sumsq = 0.0;
	a->min = INFINITY;
	a->max = -INFINITY;
}

static void dist_clear(struct cs_stat_dist *d)
{
	avg_clear(&d->avg);
	d->underflow = 0;
	d->overflow = 0;
	if (d->nbuckets)
		memset(d->buckets, 0, d->nbuckets * sizeof(*d->buckets));
}

static double avg_mean(const struct cs_stat_avg *a)
{
	return a->count ? a->sum / (double)a->count : 0.0;
}

/* Sample standard deviation (n - 1 in the denominator); 0 below two samples. */
static double avg_stdev(const struct cs_stat_avg *a)
{
	double n = (double)a->count;
	double var;

	if (a->count < 2)
		return 0.0;
	var = (a->sumsq - a->sum * a->sum / n) / (n - 1.0);
	return var > 0.0 ? sqrt(var) : 0.0;
}

static double ratio_of(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

static void record_error(struct cs_stats *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void record_error(struct cs_stats *s, int code, const char *fmt, ...)
{
	va_list ap;

	if (s->nerrors++)
		return;
	s->err.code = code;
	va_start(ap, fmt);
	vsnprintf(s->err.msg, sizeof(s->err.msg), fmt, ap);
	va_end(ap);
}

/* Dotted name: non-empty components, no white space or control characters. */
static bool valid_name(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;
	bool empty_component = true;

	if (!name)
		return false;
	for (; *p; p++) {
		if (*p <= ' ' || *p == 0x7f)
			return false;
		if (*p == '.') {
			if (empty_component)
				return false;
			empty_component = true;
		} else {
			empty_component = false;
		}
	}
	return !empty_component;
}

/* Interned copy of str ("" for NULL), or NULL when out of memory. */
static const char *intern(struct cs_stats *s, const char *str)
{
	uint64_t h;
	char *copy;

	if (!str || !*str)
		return "";
	h = hash_str(str);
	copy = htab_find(&s->strings, str, h);
	if (copy)
		return copy;
	if (htab_reserve(&s->strings))
		return NULL;
	copy = arena_strndup(&s->meta, str, strlen(str));
	if (!copy)
		return NULL;
	htab_insert(&s->strings, copy, h, copy);
	return copy;
}

/* "<prefix>.<name>" (or name for the root) in the meta arena. */
static char *join_name(struct cs_stats *s, const struct cs_stat_group *g, const char *name)
{
	size_t nlen = strlen(name);
	size_t len = g->len ? g->len + 1 + nlen : nlen;
	char *full = arena_alloc(&s->meta, len + 1, 1);

	if (!full)
		return NULL;
	if (g->len) {
		memcpy(full, g->path, g->len);
		full[g->len] = '.';
		memcpy(full + g->len + 1, name, nlen);
	} else {
		memcpy(full, name, nlen);
	}
	return full;
}

/* ---- registry ------------------------------------------------------------------------------- */

int cs_stats_create(struct cs_stats **out)
{
	struct cs_stats *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -CS_ENOMEM;
	s->by_name.strkey = true;
	s->groups.strkey = true;
	s->strings.strkey = true;
	s->root.s = s;
	s->root.path = "";
	s->dummy_group.s = s;
	s->dummy_group.path = "";
	s->dummy_group.dummy = true;
	avg_clear(&s->dummy_avg);
	/* empty range: every sample is an underflow or an overflow, buckets are never touched */
	avg_clear(&s->dummy_dist.avg);
	*out = s;
	return 0;
}

void cs_stats_destroy(struct cs_stats *s)
{
	struct cs_interval *iv;

	if (!s)
		return;
	iv = s->ivl_first;
	while (iv) {
		struct cs_interval *next = iv->next;

		free(iv->label);
		free(iv->vals);
		free(iv);
		iv = next;
	}
	htab_free(&s->by_name);
	htab_free(&s->by_ptr);
	htab_free(&s->groups);
	htab_free(&s->strings);
	arena_free(&s->data);
	arena_free(&s->meta);
	free(s);
}

struct cs_stat_group *cs_stats_root(struct cs_stats *s)
{
	return &s->root;
}

const char *cs_stat_group_path(const struct cs_stat_group *g)
{
	return g->path;
}

struct cs_stat_group *cs_stat_group(struct cs_stat_group *parent, const char *name)
{
	struct cs_stats *s;
	struct cs_stat_group *g = parent;
	char *path = NULL;
	size_t nlen;
	size_t start;
	size_t end;

	if (!parent)
		return NULL;
	s = parent->s;
	if (parent->dummy)
		return parent;
	if (!valid_name(name)) {
		record_error(s, -CS_EINVAL, "stats: invalid group name '%s' in '%s'",
			     name ? name : "(null)", parent->path);
		return &s->dummy_group;
	}
	nlen = strlen(name);
	/* scratch copy of the full path; each component's prefix is looked up in turn */
	path = malloc(parent->len + 1 + nlen + 1);
	if (!path)
		goto out_nomem;
	start = 0;
	if (parent->len) {
		memcpy(path, parent->path, parent->len);
		path[parent->len] = '.';
		start = parent->len + 1;
	}
	memcpy(path + start, name, nlen + 1);
	for (end = start;; end++) {
		char c = path[end];
		struct cs_stat_group *child;
		uint64_t h;

		if (c != '.' && c != '\0')
			continue;
		path[end] = '\0';
		h = hash_str(path);
		child = htab_find(&s->groups, path, h);
		if (!child) {
			if (htab_reserve(&s->groups))
				goto out_nomem;
			child =
			    arena_alloc(&s->meta, sizeof(*child), alignof(struct cs_stat_group));
			if (!child)
				goto out_nomem;
			child->path = arena_strndup(&s->meta, path, end);
			if (!child->path)
				goto out_nomem;
			child->s = s;
			child->parent = g;
			child->len = end;
			htab_insert(&s->groups, child->path, h, child);
		}
		g = child;
		path[end] = c;
		if (c == '\0')
			break;
	}
	free(path);
	return g;

out_nomem:
	record_error(s, -CS_ENOMEM, "stats: out of memory creating group '%s' in '%s'", name,
		     parent->path);
	free(path);
	return &s->dummy_group;
}

/*
 * First half of a registration: validates, builds the full name, checks for duplicates and
 * allocates the record. Returns NULL (error recorded unless g is the dummy group) on failure.
 */
static struct cs_stat *stat_prepare(struct cs_stat_group *g, const char *name, const char *unit,
				    const char *desc, enum cs_stat_kind kind)
{
	struct cs_stats *s = g->s;
	struct cs_stat *st;
	char *full;

	if (g->dummy)
		return NULL;
	if (!valid_name(name)) {
		record_error(s, -CS_EINVAL, "stats: invalid stat name '%s' in group '%s'",
			     name ? name : "(null)", g->path);
		return NULL;
	}
	full = join_name(s, g, name);
	if (!full)
		goto out_nomem;
	if (htab_find(&s->by_name, full, hash_str(full))) {
		record_error(s, -CS_EEXIST, "stats: duplicate stat '%s'", full);
		return NULL;
	}
	st = arena_alloc(&s->meta, sizeof(*st), alignof(struct cs_stat));
	if (!st)
		goto out_nomem;
	st->kind = kind;
	st->name = full;
	st->unit = intern(s, unit);
	st->desc = intern(s, desc);
	if (!st->unit || !st->desc)
		goto out_nomem;
	if (htab_reserve(&s->by_name))
		goto out_nomem;
	if (kind == CS_STAT_COUNTER && htab_reserve(&s->by_ptr))
		goto out_nomem;
	return st;

out_nomem:
	record_error(s, -CS_ENOMEM, "stats: out of memory registering '%s' in group '%s'", name,
		     g->path);
	return NULL;
}

/* Second half: the value is set; link it in (cannot fail after stat_prepare()). */
static void stat_commit(struct cs_stats *s, struct cs_stat *st)
{
	htab_insert(&s->by_name, st->name, hash_str(st->name), st);
	if (st->kind == CS_STAT_COUNTER)
		htab_insert(&s->by_ptr, st->u.ctr, hash_ptr(st->u.ctr), st);
	st->idx = s->nstats++;
	if (s->last)
		s->last->next = st;
	else
		s->first = st;
	s->last = st;
}

uint64_t *cs_stat_counter(struct cs_stat_group *g, const char *name, const char *unit,
			  const char *desc)
{
	struct cs_stat *st;

	if (!g)
		return NULL;
	st = stat_prepare(g, name, unit, desc, CS_STAT_COUNTER);
	if (!st)
		return &g->s->dummy_ctr;
	st->u.ctr = arena_alloc(&g->s->data, sizeof(uint64_t), alignof(uint64_t));
	if (!st->u.ctr) {
		record_error(g->s, -CS_ENOMEM, "stats: out of memory registering '%s'", st->name);
		return &g->s->dummy_ctr;
	}
	stat_commit(g->s, st);
	return st->u.ctr;
}

struct cs_stat_avg *cs_stat_average(struct cs_stat_group *g, const char *name, const char *unit,
				    const char *desc)
{
	struct cs_stat *st;

	if (!g)
		return NULL;
	st = stat_prepare(g, name, unit, desc, CS_STAT_AVERAGE);
	if (!st)
		return &g->s->dummy_avg;
	st->u.avg = arena_alloc(&g->s->data, sizeof(*st->u.avg), alignof(struct cs_stat_avg));
	if (!st->u.avg) {
		record_error(g->s, -CS_ENOMEM, "stats: out of memory registering '%s'", st->name);
		return &g->s->dummy_avg;
	}
	avg_clear(st->u.avg);
	stat_commit(g->s, st);
	return st->u.avg;
}

struct cs_stat_dist *cs_stat_distribution(struct cs_stat_group *g, const char *name,
					  const char *unit, const char *desc, double lo, double hi,
					  unsigned nbuckets)
{
	struct cs_stats *s;
	struct cs_stat_dist *d;
	struct cs_stat *st;

	if (!g)
		return NULL;
	s = g->s;
	if (g->dummy)
		return &s->dummy_dist;
	if (!isfinite(lo) || !isfinite(hi) || !(lo < hi) || nbuckets == 0 ||
	    nbuckets > CS_DIST_MAX_BUCKETS || !isfinite((double)nbuckets / (hi - lo))) {
		record_error(
		    s, -CS_EINVAL,
		    "stats: distribution '%s' in group '%s' needs finite lo < hi and 1..%u "
		    "buckets (got lo=%g hi=%g nbuckets=%u)",
		    name ? name : "(null)", g->path, CS_DIST_MAX_BUCKETS, lo, hi, nbuckets);
		return &s->dummy_dist;
	}
	st = stat_prepare(g, name, unit, desc, CS_STAT_DIST);
	if (!st)
		return &s->dummy_dist;
	d = arena_alloc(&s->data, sizeof(*d), alignof(struct cs_stat_dist));
	if (!d)
		goto out_nomem;
	d->buckets = arena_alloc(&s->data, nbuckets * sizeof(*d->buckets), alignof(uint64_t));
	if (!d->buckets)
		goto out_nomem;
	d->lo = lo;
	d->hi = hi;
	d->nbuckets = nbuckets;
	d->scale = (double)nbuckets / (hi - lo);
	avg_clear(&d->avg);
	st->u.dist = d;
	stat_commit(s, st);
	return d;

out_nomem:
	record_error(s, -CS_ENOMEM, "stats: out of memory registering '%s'", st->name);
	return &s->dummy_dist;
}

void cs_stat_dist_sample(struct cs_stat_dist *d, double v)
{
	cs_stat_avg_sample(&d->avg, v);
	if (v >= d->lo && v < d->hi) {
		size_t i = (size_t)((v - d->lo) * d->scale);

		if (i >= d->nbuckets) /* rounding just below hi */
			i = d->nbuckets - 1;
		d->buckets[i]++;
	} else if (v < d->lo) {
		d->underflow++;
	} else {
		d->overflow++;
	}
}

void cs_stat_formula(struct cs_stat_group *g, const char *name, const char *unit, const char *desc,
		     cs_stat_formula_fn fn, const void *ctx)
{
	struct cs_stat *st;

	if (!g || g->dummy)
		return;
	if (!fn) {
		record_error(g->s, -CS_EINVAL, "stats: formula '%s' in group '%s' has no function",
			     name ? name : "(null)", g->path);
		return;
	}
	st = stat_prepare(g, name, unit, desc, CS_STAT_FORMULA);
	if (!st)
		return;
	st->u.formula.fn = fn;
	st->u.formula.ctx = ctx;
	stat_commit(g->s, st);
}

void cs_stat_ratio(struct cs_stat_group *g, const char *name, const char *desc, const uint64_t *num,
		   const uint64_t *den)
{
	struct cs_stat *st;

	if (!g || g->dummy)
		return;
	if (!num || !den) {
		record_error(g->s, -CS_EINVAL, "stats: ratio '%s' in group '%s' needs two counters",
			     name ? name : "(null)", g->path);
		return;
	}
	st = stat_prepare(g, name, CS_STATS_RATIO_UNIT, desc, CS_STAT_RATIO);
	if (!st)
		return;
	st->u.ratio.num = num;
	st->u.ratio.den = den;
	stat_commit(g->s, st);
}

int cs_stats_error(const struct cs_stats *s, struct cs_err *err)
{
	if (!s->nerrors) {
		cs_err_clear(err);
		return 0;
	}
	if (s->nerrors == 1)
		return cs_err_set(err, s->err.code, "%s", s->err.msg);
	return cs_err_set(err, s->err.code, "%s (and %lu more registration errors)", s->err.msg,
			  s->nerrors - 1);
}

size_t cs_stats_count(const struct cs_stats *s)
{
	return s->nstats;
}

size_t cs_stats_interval_count(const struct cs_stats *s)
{
	return s->nintervals;
}

/* ---- reset, snapshot, value ----------------------------------------------------------------- */

void cs_stats_reset(struct cs_stats *s)
{
	struct cs_stat *st;

	for (st = s->first; st; st = st->next) {
		switch (st->kind) {
		case CS_STAT_COUNTER:
			*st->u.ctr = 0;
			break;
		case CS_STAT_AVERAGE:
			avg_clear(st->u.avg);
			break;
		case CS_STAT_DIST:
			dist_clear(st->u.dist);
			break;
		case CS_STAT_FORMULA:
		case CS_STAT_RATIO:
			break;
		}
		st->base_count = 0;
		st->base_sum = 0.0;
	}
}

static double stat_value(const struct cs_stat *st)
{
	switch (st->kind) {
	case CS_STAT_COUNTER:
		return (double)*st->u.ctr;
	case CS_STAT_AVERAGE:
		return avg_mean(st->u.avg);
	case CS_STAT_DIST:
		return avg_mean(&st->u.dist->avg);
	case CS_STAT_FORMULA:
		return st->u.formula.fn(st->u.formula.ctx);
	case CS_STAT_RATIO:
		return ratio_of(*st->u.ratio.num, *st->u.ratio.den);
	}
	return 0.0;
}

static void snapshot_avg(struct cs_stat *st, const struct cs_stat_avg *a, struct cs_ivl_val *v)
{
	uint64_t dc = a->count - st->base_count;

	v->u = dc;
	v->d = dc ? (a->sum - st->base_sum) / (double)dc : 0.0;
	st->base_count = a->count;
	st->base_sum = a->sum;
}

int cs_stats_snapshot(struct cs_stats *s, const char *label, uint64_t time_ps)
{
	struct cs_interval *iv;
	struct cs_stat *st;

	iv = calloc(1, sizeof(*iv));
	if (!iv)
		return -CS_ENOMEM;
	iv->label = strdup(label ? label : "");
	if (!iv->label)
		goto out_free_iv;
	iv->vals = calloc(s->nstats ? s->nstats : 1, sizeof(*iv->vals));
	if (!iv->vals)
		goto out_free_label;
	iv->n = s->nstats;
	iv->time_ps = time_ps;

	/* counters and averages first: ratios below read their deltas */
	for (st = s->first; st; st = st->next) {
		struct cs_ivl_val *v = &iv->vals[st->idx];
		uint64_t cur;

		switch (st->kind) {
		case CS_STAT_COUNTER:
			cur = *st->u.ctr;
			/* a counter lowered behind our back: count from 0 */
			v->u = cur >= st->base_count ? cur - st->base_count : cur;
			st->base_count = cur;
			break;
		case CS_STAT_AVERAGE:
			snapshot_avg(st, st->u.avg, v);
			break;
		case CS_STAT_DIST:
			snapshot_avg(st, &st->u.dist->avg, v);
			break;
		case CS_STAT_FORMULA:
		case CS_STAT_RATIO:
			break;
		}
	}
	for (st = s->first; st; st = st->next) {
		struct cs_ivl_val *v = &iv->vals[st->idx];
		const struct cs_stat *num;
		const struct cs_stat *den;

		if (st->kind == CS_STAT_FORMULA) {
			v->d = stat_value(st);
		} else if (st->kind == CS_STAT_RATIO) {
			num = htab_find(&s->by_ptr, st->u.ratio.num, hash_ptr(st->u.ratio.num));
			den = htab_find(&s->by_ptr, st->u.ratio.den, hash_ptr(st->u.ratio.den));
			if (num && den)
				v->d = ratio_of(iv->vals[num->idx].u, iv->vals[den->idx].u);
			else
				v->d = stat_value(st);
		}
	}

	if (s->ivl_last)
		s->ivl_last->next = iv;
	else
		s->ivl_first = iv;
	s->ivl_last = iv;
	s->nintervals++;
	return 0;

out_free_label:
	free(iv->label);
out_free_iv:
	free(iv);
	return -CS_ENOMEM;
}

int cs_stats_value(const struct cs_stats *s, const char *full_name, double *out)
{
	const struct cs_stat *st;

	if (!full_name)
		return -CS_ENOENT;
	st = htab_find(&s->by_name, full_name, hash_str(full_name));
	if (!st)
		return -CS_ENOENT;
	*out = stat_value(st);
	return 0;
}

const uint64_t *cs_stats_counter_find(const struct cs_stats *s, const char *full_name)
{
	const struct cs_stat *st = htab_find(&s->by_name, full_name, hash_str(full_name));

	return st && st->kind == CS_STAT_COUNTER ? st->u.ctr : NULL;
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static json_t *json_u64(uint64_t v)
{
	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	return json_real((double)v);
}

/* Non-finite doubles have no JSON form: null. */
static json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Steals v; returns -1 (and drops v) if v is NULL or on failure. */
static int json_put(json_t *obj, const char *key, json_t *v)
{
	if (!v)
		return -1;
	return json_object_set_new(obj, key, v);
}

static json_t *avg_json(const struct cs_stat_avg *a)
{
	json_t *o = json_object();
	bool empty = a->count == 0;

	if (!o)
		return NULL;
	if (json_put(o, "count", json_u64(a->count)) ||
	    json_put(o, "mean", json_num(avg_mean(a))) ||
	    json_put(o, "stdev", json_num(avg_stdev(a))) ||
	    json_put(o, "min", empty ? json_null() : json_num(a->min)) ||
	    json_put(o, "max", empty ? json_null() : json_num(a->max))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *dist_json(const struct cs_stat_dist *d)
{
	json_t *o = avg_json(&d->avg);
	json_t *b;
	unsigned i;

	if (!o)
		return NULL;
	b = json_array();
	if (json_put(o, "lo", json_num(d->lo)) || json_put(o, "hi", json_num(d->hi)) || !b)
		goto out_free;
	for (i = 0; i < d->nbuckets; i++) {
		if (json_array_append_new(b, json_u64(d->buckets[i])))
			goto out_free;
	}
	if (json_put(o, "buckets", b)) {
		b = NULL; /* stolen */
		goto out_free;
	}
	if (json_put(o, "underflow", json_u64(d->underflow)) ||
	    json_put(o, "overflow", json_u64(d->overflow))) {
		json_decref(o);
		return NULL;
	}
	return o;

out_free:
	json_decref(b);
	json_decref(o);
	return NULL;
}

static json_t *stat_json(const struct cs_stat *st)
{
	switch (st->kind) {
	case CS_STAT_COUNTER:
		return json_u64(*st->u.ctr);
	case CS_STAT_AVERAGE:
		return avg_json(st->u.avg);
	case CS_STAT_DIST:
		return dist_json(st->u.dist);
	case CS_STAT_FORMULA:
	case CS_STAT_RATIO:
		return json_num(stat_value(st));
	}
	return NULL;
}

json_t *cs_stats_to_json(const struct cs_stats *s)
{
	json_t *obj = json_object();
	const struct cs_stat *st;

	if (!obj)
		return NULL;
	for (st = s->first; st; st = st->next) {
		if (json_put(obj, st->name, stat_json(st))) {
			json_decref(obj);
			return NULL;
		}
	}
	return obj;
}

static json_t *ivl_val_json(const struct cs_stat *st, const struct cs_ivl_val *v)
{
	json_t *o;

	switch (st->kind) {
	case CS_STAT_COUNTER:
		return json_u64(v->u);
	case CS_STAT_AVERAGE:
	case CS_STAT_DIST:
		o = json_object();
		if (!o)
			return NULL;
		if (json_put(o, "count", json_u64(v->u)) || json_put(o, "mean", json_num(v->d))) {
			json_decref(o);
			return NULL;
		}
		return o;
	case CS_STAT_FORMULA:
	case CS_STAT_RATIO:
		return json_num(v->d);
	}
	return NULL;
}

static json_t *interval_json(const struct cs_stats *s, const struct cs_interval *iv)
{
	json_t *o = json_object();
	json_t *stats = json_object();
	const struct cs_stat *st;

	if (!o || !stats)
		goto out_free;
	for (st = s->first; st && st->idx < iv->n; st = st->next) {
		if (json_put(stats, st->name, ivl_val_json(st, &iv->vals[st->idx])))
			goto out_free;
	}
	if (json_put(o, "label", json_string(iv->label)) ||
	    json_put(o, "time_ps", json_u64(iv->time_ps)))
		goto out_free;
	if (json_object_set_new(o, "stats", stats)) {
		json_decref(o);
		return NULL;
	}
	return o;

out_free:
	json_decref(stats);
	json_decref(o);
	return NULL;
}

json_t *cs_stats_intervals_to_json(const struct cs_stats *s)
{
	json_t *arr = json_array();
	const struct cs_interval *iv;

	if (!arr)
		return NULL;
	for (iv = s->ivl_first; iv; iv = iv->next) {
		json_t *o = interval_json(s, iv);

		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* ---- CSV and text --------------------------------------------------------------------------- */

/* Shortest "%.Ng" (N = 15..17) that reads back as v; fixed spellings for nan and inf. */
static void fmt_double(char *buf, size_t size, double v)
{
	int prec;

	if (isnan(v)) {
		snprintf(buf, size, "nan");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, v > 0 ? "inf" : "-inf");
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, size, "%.17g", v);
}

/* RFC 4180: quote fields holding a comma, quote, CR or LF, or leading/trailing blanks. */
static void csv_field(FILE *f, const char *str)
{
	size_t len = strlen(str);
	const char *p;

	if (!strpbrk(str, ",\"\r\n") && !(len && (str[0] == ' ' || str[len - 1] == ' '))) {
		fputs(str, f);
		return;
	}
	fputc('"', f);
	for (p = str; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

static void stat_value_str(const struct cs_stat *st, char *buf, size_t size)
{
	if (st->kind == CS_STAT_COUNTER)
		snprintf(buf, size, "%" PRIu64, *st->u.ctr);
	else
		fmt_double(buf, size, stat_value(st));
}

static int finish_output(FILE *f)
{
	if (fflush(f) || ferror(f))
		return -CS_EIO;
	return 0;
}

int cs_stats_write_csv(const struct cs_stats *s, FILE *f)
{
	const struct cs_stat *st;
	char val[CS_STATS_DOUBLE_SIZE];

	if (!f)
		return -CS_EINVAL;
	fputs("name,value,unit,description\n", f);
	for (st = s->first; st; st = st->next) {
		stat_value_str(st, val, sizeof(val));
		csv_field(f, st->name);
		fprintf(f, ",%s,", val);
		csv_field(f, st->unit);
		fputc(',', f);
		csv_field(f, st->desc);
		fputc('\n', f);
	}
	return finish_output(f);
}

int cs_stats_write_intervals_csv(const struct cs_stats *s, FILE *f)
{
	const struct cs_interval *iv;
	const struct cs_stat *st;

	if (!f)
		return -CS_EINVAL;
	fputs("label,time_ps", f);
	for (st = s->first; st; st = st->next) {
		if (st->kind != CS_STAT_COUNTER)
			continue;
		fputc(',', f);
		csv_field(f, st->name);
	}
	fputc('\n', f);
	for (iv = s->ivl_first; iv; iv = iv->next) {
		csv_field(f, iv->label);
		fprintf(f, ",%" PRIu64, iv->time_ps);
		for (st = s->first; st; st = st->next) {
			if (st->kind != CS_STAT_COUNTER)
				continue;
			if (st->idx < iv->n)
				fprintf(f, ",%" PRIu64, iv->vals[st->idx].u);
			else
				fputc(',', f);
		}
		fputc('\n', f);
	}
	return finish_output(f);
}

/* Text output runs twice over the same lines: once to measure the columns, once to print. */
struct cs_text_out {
	FILE *f; /* NULL while measuring */
	size_t wname;
	size_t wval;
};

static void text_line(struct cs_text_out *t, const char *name, const char *suffix, const char *val,
		      const char *unit, const char *desc)
{
	size_t nlen = strlen(name) + strlen(suffix);
	size_t vlen = strlen(val);

	if (!t->f) {
		if (nlen > t->wname)
			t->wname = nlen;
		if (vlen > t->wval)
			t->wval = vlen;
		return;
	}
	fprintf(t->f, "%s%s%*s  %*s", name, suffix, (int)(t->wname - nlen), "", (int)t->wval, val);
	if (*desc || *unit) {
		fputs("  #", t->f);
		if (*desc)
			fprintf(t->f, " %s", desc);
		if (*unit)
			fprintf(t->f, " (%s)", unit);
	}
	fputc('\n', t->f);
}

static void text_double(struct cs_text_out *t, const struct cs_stat *st, const char *suffix,
			double v, const char *unit, const char *desc)
{
	char val[CS_STATS_DOUBLE_SIZE];

	fmt_double(val, sizeof(val), v);
	text_line(t, st->name, suffix, val, unit, desc);
}

static void text_u64(struct cs_text_out *t, const struct cs_stat *st, const char *suffix,
		     uint64_t v, const char *unit, const char *desc)
{
	char val[CS_STATS_DOUBLE_SIZE];

	snprintf(val, sizeof(val), "%" PRIu64, v);
	text_line(t, st->name, suffix, val, unit, desc);
}

static void text_avg(struct cs_text_out *t, const struct cs_stat *st, const struct cs_stat_avg *a)
{
	bool empty = a->count == 0;

	text_u64(t, st, "::count", a->count, "", st->desc);
	text_double(t, st, "::mean", avg_mean(a), st->unit, "");
	text_double(t, st, "::stdev", avg_stdev(a), st->unit, "");
	text_double(t, st, "::min", empty ? NAN : a->min, st->unit, "");
	text_double(t, st, "::max", empty ? NAN : a->max, st->unit, "");
}

static void text_dist(struct cs_text_out *t, const struct cs_stat *st)
{
	const struct cs_stat_dist *d = st->u.dist;
	double width = (d->hi - d->lo) / d->nbuckets;
	unsigned i;

	text_avg(t, st, &d->avg);
	text_u64(t, st, "::underflow", d->underflow, "", "");
	for (i = 0; i < d->nbuckets; i++) {
		char lo[CS_STATS_DOUBLE_SIZE];
		char hi[CS_STATS_DOUBLE_SIZE];
		char suffix[2 * CS_STATS_DOUBLE_SIZE + 4];

		fmt_double(lo, sizeof(lo), d->lo + i * width);
		fmt_double(hi, sizeof(hi), i + 1 == d->nbuckets ? d->hi : d->lo + (i + 1) * width);
		snprintf(suffix, sizeof(suffix), "::%s-%s", lo, hi);
		text_u64(t, st, suffix, d->buckets[i], "", "");
	}
	text_u64(t, st, "::overflow", d->overflow, "", "");
}

static void text_all(const struct cs_stats *s, struct cs_text_out *t)
{
	const struct cs_stat *st;
	char val[CS_STATS_DOUBLE_SIZE];

	for (st = s->first; st; st = st->next) {
		switch (st->kind) {
		case CS_STAT_AVERAGE:
			text_avg(t, st, st->u.avg);
			break;
		case CS_STAT_DIST:
			text_dist(t, st);
			break;
		case CS_STAT_COUNTER:
		case CS_STAT_FORMULA:
		case CS_STAT_RATIO:
			stat_value_str(st, val, sizeof(val));
			text_line(t, st->name, "", val, st->unit, st->desc);
			break;
		}
	}
}

int cs_stats_write_text(const struct cs_stats *s, FILE *f)
{
	struct cs_text_out t = {0};

	if (!f)
		return -CS_EINVAL;
	text_all(s, &t);
	t.f = f;
	text_all(s, &t);
	return finish_output(f);
}
