/*
 * tlm/mem/cohcheck.h - the coherence checker (DESIGN.md §8).
 *
 * Per 4-byte word it keeps the order of writes as the point of coherence (system gpu: the L2
 * bank that owns the word) performs them, starting from the value the host wrote (or zero).
 * Every value a reader (a warp; on system apu also a CPU core) loads is then checked: it must be
 * a value some write produced, and no reader may read an older write of a word than one it has
 * already seen. A write may be entered more than once, at each place where a new group of
 * readers starts to see it (system apu: the TCC for the GPU, the directory for the CPU;
 * docs/apu.md §11): a read matches the newest entry of its value not older than what the reader
 * saw, so the extra entries only make the check more permissive. Violations are counted; the
 * first is kept as a message. Costly (hash look-ups per word): tests turn it on with gpu.check.
 */
#ifndef COHSCOPE_TLM_MEM_COHCHECK_H
#define COHSCOPE_TLM_MEM_COHCHECK_H

#include <stdbool.h>
#include <stdint.h>

struct cohcheck;

int cohcheck_create(struct cohcheck **out);
void cohcheck_destroy(struct cohcheck *c);
/* A write of `bytes` (4 or 8, aligned) performed at the point of coherence. */
void cohcheck_write(struct cohcheck *c, uint64_t addr, unsigned bytes, uint64_t v);
/* Reader `who` (a global warp slot; on system apu the CPU cores follow the warps) loaded v. */
void cohcheck_read(struct cohcheck *c, unsigned who, uint64_t addr, unsigned bytes, uint64_t v);
uint64_t cohcheck_violations(const struct cohcheck *c);
uint64_t cohcheck_reads(const struct cohcheck *c);
/* The value of the latest write of the 4-byte word at addr, in the write order (false if the
 * word was never written): what every copy of it must hold once the system is quiet. */
bool cohcheck_latest(struct cohcheck *c, uint64_t addr, uint32_t *v);
/* The first violation, or "". */
const char *cohcheck_first(const struct cohcheck *c);

#endif
