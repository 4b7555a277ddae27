/*
 * tlm/mem/mshr.h - miss status holding registers with merging.
 *
 * Pure data structure (no kernel, no TLM). A table of `entries` entries, each tracking one
 * outstanding line and up to `max_merge` target records of `target_bytes` each (what the
 * controller needs to answer each merged request: its payload, lane mask, offset...), plus 4
 * uint64_t of controller state. Everything is preallocated at creation: alloc, merge and free
 * never call malloc.
 *
 * Allocation is deterministic: mshr_alloc() takes the lowest free index, so the same sequence of
 * alloc/free calls gives the same indices. An entry's index (0..entries-1) is stable while it is
 * allocated and serves as the transaction id carried in mem_msg.txn. mshr_find() is a hash
 * lookup (chained, 2 buckets per entry), O(1) on average.
 */
#ifndef COHSCOPE_TLM_MEM_MSHR_H
#define COHSCOPE_TLM_MEM_MSHR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MSHR_USER_WORDS 4

struct mshr_table;
struct mshr_entry; /* opaque: use the accessors below */

/* entries >= 1, max_merge >= 1, target_bytes >= 1; -CS_EINVAL otherwise, -CS_ENOMEM. Target
 * records are aligned to max_align_t. */
int mshr_create(unsigned entries, unsigned max_merge, size_t target_bytes, struct mshr_table **out);
void mshr_destroy(struct mshr_table *t);

unsigned mshr_capacity(const struct mshr_table *t); /* entries */
unsigned mshr_max_merge(const struct mshr_table *t);

/* The allocated entry for line_addr, or NULL. */
struct mshr_entry *mshr_find(struct mshr_table *t, uint64_t line_addr);
/* A new entry for line_addr (no targets, user words zeroed) at the lowest free index; NULL when
 * full. The line must not be present already (asserted). */
struct mshr_entry *mshr_alloc(struct mshr_table *t, uint64_t line_addr);
bool mshr_full(const struct mshr_table *t);
unsigned mshr_used(const struct mshr_table *t);
/* Appends a target record (target_bytes copied). false when the entry already has max_merge
 * targets. */
bool mshr_merge(struct mshr_table *t, struct mshr_entry *e, const void *target);
unsigned mshr_targets(const struct mshr_entry *e);
/* Target i (0..mshr_targets()-1) in arrival order; writable in place. */
void *mshr_target(struct mshr_entry *e, unsigned i);
/* Removes target i; later ones move up one place (arrival order kept). */
void mshr_remove(struct mshr_entry *e, unsigned i);
uint64_t mshr_line(const struct mshr_entry *e);
/* 0..entries-1, stable while allocated: used as a transaction id. */
unsigned mshr_index(const struct mshr_table *t, const struct mshr_entry *e);
/* The allocated entry at index, NULL if that index is free (or out of range). */
struct mshr_entry *mshr_at(struct mshr_table *t, unsigned index);
void mshr_free(struct mshr_table *t, struct mshr_entry *e);
/* MSHR_USER_WORDS uint64_t of controller state (e.g. flags, issue time), zeroed at alloc. */
uint64_t *mshr_user(struct mshr_entry *e);

#endif
