/*
 * tlm/mem/cache.h - a set-associative cache array: tags, line state, data and replacement.
 *
 * Pure data structure (no kernel, no TLM): every cache controller (GPU L1, L2 banks, coherence
 * protocols) owns one and decides what the states mean. The array knows only "valid"
 * (state != 0), line addresses, sector masks and the replacement order.
 *
 * Geometry: sets = size_bytes / (assoc * line_bytes), a power of two; set index =
 * (addr / line_bytes) % sets (GPGPU-Sim's linear set index 'L'). A bank of an interleaved cache
 * (index_banks > 1) takes the set index from the address inside the bank: the interleave's bank
 * bits are removed first, as GPGPU-Sim does for its L2 sub-partitions. Without that, a bank sees
 * only the addresses whose low line bits equal its own number and uses one set in index_banks
 * (with line-grain interleave). Sectored caches
 * (sector_bytes != 0) have line_bytes / sector_bytes <= 8 sectors, one bit each in
 * valid_sectors / dirty_sectors. A cache that is not sectored has one "sector" and its full mask
 * is CACHE_ALL_SECTORS (0xff, every bit set): controllers compare against cache_all_sectors().
 *
 * Replacement: LRU (exact, per-way age stamps), tree pseudo-LRU (assoc a power of two), FIFO
 * (insertion order; hits do not reorder). Victim choice never changes anything; cache_install()
 * and cache_touch() are the only calls that move a line in the order.
 *
 * A line is valid while its state is not 0. Controllers change l->state, sectors, flags, meta
 * and data in place; they must use cache_install() to make a line valid and should use
 * cache_invalidate() to drop it (setting state to 0 directly is also respected by every call).
 */
#ifndef COHSCOPE_TLM_MEM_CACHE_H
#define COHSCOPE_TLM_MEM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CACHE_MAX_SECTORS 8
#define CACHE_ALL_SECTORS 0xffu /* sector mask of a whole line in a cache that is not sectored */

enum cache_repl { CACHE_REPL_LRU = 0, CACHE_REPL_PLRU /* tree pseudo-LRU */, CACHE_REPL_FIFO };

struct cache_geom {
	uint64_t size_bytes;
	unsigned assoc;
	unsigned line_bytes;
	unsigned sector_bytes; /* 0 = not sectored */
	enum cache_repl repl;
	bool tags_only; /* no data array: every line's data is NULL (directories, filters) */
	/* A bank of a cache interleaved over index_banks banks in chunks of 2^index_chunk_shift
	 * bytes (chunk c lives in bank c % index_banks): sets are indexed by the bank-local address
	 * (c / index_banks, then the offset in the chunk). 0 or 1 = not banked. The chunk must be at
	 * least a line. */
	unsigned index_banks;
	unsigned index_chunk_shift;
};

struct cache_line {	       /* public so controllers read it inline */
	uint64_t addr;	       /* line address (addr & ~(line_bytes-1)) */
	uint8_t state;	       /* 0 = invalid; meaning above 0 belongs to the controller/protocol */
	uint8_t valid_sectors; /* bit per sector (all bits set when not sectored) */
	uint8_t dirty_sectors;
	uint8_t flags;	  /* controller use (e.g. reserved/pinned) */
	uint64_t meta[2]; /* protocol fields: timestamps, lease, owner */
	uint8_t *data;	  /* line_bytes of data, owned by the cache */
};

struct cache;

/* Validates: power-of-two line_bytes and sets, assoc >= 1, size a whole number of sets,
 * sector_bytes divides line_bytes with at most 8 sectors, PLRU only with a power-of-two assoc,
 * a known policy. -CS_EINVAL otherwise, -CS_ENOMEM. Every line starts invalid, data zeroed. */
int cache_create(const struct cache_geom *g, struct cache **out);
void cache_destroy(struct cache *c);

const struct cache_geom *cache_geometry(const struct cache *c);
unsigned cache_sets(const struct cache *c);
/* Sectors per line: line_bytes / sector_bytes, or 1 when not sectored. */
unsigned cache_sectors(const struct cache *c);
/* The sector mask of a whole line: (1 << sectors) - 1, or CACHE_ALL_SECTORS when not sectored. */
uint8_t cache_all_sectors(const struct cache *c);
uint64_t cache_line_addr(const struct cache *c, uint64_t addr);
unsigned cache_set_of(const struct cache *c, uint64_t addr);
/* Frames in the cache (sets x assoc), and l's frame number below that: an index for a
 * controller's own per-frame arrays (what is not the line's state, e.g. times). */
size_t cache_lines(const struct cache *c);
size_t cache_line_index(const struct cache *c, const struct cache_line *l);
/* Way of a line of this cache (0..assoc-1). */
unsigned cache_way_of(const struct cache *c, const struct cache_line *l);
/* Line (valid or not) at set, way: for tests, dumps and flush walks. */
struct cache_line *cache_line_at(struct cache *c, unsigned set, unsigned way);

/* Valid line holding addr or NULL; does not touch replacement state. */
struct cache_line *cache_lookup(struct cache *c, uint64_t addr);
/* An access: update LRU / PLRU (FIFO: no-op). */
void cache_touch(struct cache *c, struct cache_line *l);
/* Victim for addr's set: the lowest invalid way first; else by policy among lines for which
 * may_evict(ctx, line) is true (may_evict NULL = all). NULL when every way is excluded. Does not
 * change anything. With exclusions PLRU walks its tree and turns away from a subtree that has
 * no evictable line. */
struct cache_line *cache_victim(struct cache *c, uint64_t addr,
				bool (*may_evict)(void *ctx, const struct cache_line *l),
				void *ctx);
/* Make l (a way of addr's set) hold addr: sets addr and state (not 0), clears sectors, flags,
 * meta and data, touches (insertion = MRU; FIFO: newest). */
void cache_install(struct cache *c, struct cache_line *l, uint64_t addr, uint8_t state);
/* state = 0, sectors/flags/meta cleared. The way keeps its place in the replacement order
 * (irrelevant: invalid ways are chosen first). */
void cache_invalidate(struct cache *c, struct cache_line *l);
/* Every line invalid and the replacement state back to that of a new cache. */
void cache_invalidate_all(struct cache *c);
/* Visit every valid line (set order, way order): for flushes and for comparing states. fn may
 * change or invalidate the line it is given, not install lines. */
void cache_for_each(struct cache *c, void (*fn)(void *ctx, struct cache_line *l), void *ctx);
/* FNV-1a over valid lines (set, way, addr, state, sectors, flags, meta, data) in set/way order,
 * plus the replacement state: LRU/FIFO the order of the valid ways of each set (not the raw
 * stamps, so equal orders hash equal), PLRU the tree bits. */
uint64_t cache_digest(const struct cache *c);

#endif
