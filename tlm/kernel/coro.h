/*
 * tlm/kernel/coro.h - stackful asymmetric coroutines for SC_THREAD-style processes.
 *
 * A coroutine runs fn(arg) on its own stack. sim_coro_resume() switches into it from the
 * resumer (the kernel, or another coroutine); sim_coro_yield(), called inside it, switches
 * back to whoever resumed it last. When fn returns the coroutine is done and control returns
 * to the resumer; resuming a done coroutine is a no-op.
 *
 * Back ends: a hand-written switch saving only callee-saved registers on x86-64 and aarch64
 * (a few ns); ucontext elsewhere or with -DCOHSCOPE_UCONTEXT=1 (a system call per switch).
 * Stacks are mmap'ed with a guard page below, so an overflow faults instead of corrupting.
 * AddressSanitizer fiber annotations and valgrind stack registration are built in when those
 * tools are present.
 */
#ifndef COHSCOPE_TLM_KERNEL_CORO_H
#define COHSCOPE_TLM_KERNEL_CORO_H

#include <stdbool.h>
#include <stddef.h>

struct sim_coro;
typedef void (*sim_coro_fn)(void *arg);

/* stack_size is rounded up to whole pages (minimum 16 KiB). Returns 0 or -CS_ENOMEM /
 * -CS_EINVAL; *out is NULL on failure. */
int sim_coro_create(size_t stack_size, sim_coro_fn fn, void *arg, struct sim_coro **out);
/* Frees the stack; allowed whether or not the coroutine has finished (no unwinding). Must
 * not be called on the coroutine that is running. */
void sim_coro_destroy(struct sim_coro *c);
/* Runs c until it yields or finishes. */
void sim_coro_resume(struct sim_coro *c);
/* Inside c: back to the resumer. */
void sim_coro_yield(struct sim_coro *c);
bool sim_coro_done(const struct sim_coro *c);
size_t sim_coro_stack_size(const struct sim_coro *c);
/* "x86-64 asm", "aarch64 asm" or "ucontext". */
const char *sim_coro_backend(void);

#endif
