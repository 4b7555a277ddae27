/*
 * tlm/kernel/coro.c - stackful asymmetric coroutines (coro.h) for SC_THREAD-style processes.
 *
 * Why hand-written switches: glibc swapcontext saves and restores the signal mask with a
 * system call on every switch (~260 ns measured), while a switch that saves only what the ABI
 * says a callee must preserve costs a few ns (anchors §1.3, §2.1). The x86-64 (System V) and
 * aarch64 (AAPCS64) switches live in top-level __asm__ blocks below; every other target, or a
 * build with -DCOHSCOPE_UCONTEXT=1, uses getcontext/makecontext/swapcontext.
 *
 * A switch is a plain function call cs_coro_switch(&save_sp, load_sp): it pushes the
 * callee-saved registers and the floating-point control state on the current stack, stores
 * the stack pointer in *save_sp, loads load_sp and pops the same frame from there. A new
 * coroutine's stack is prepared so that its first switch-in "returns" into cs_coro_entry,
 * which calls coro_main(c) with the ABI's stack alignment.
 *
 * Stacks are mmap'ed with a PROT_NONE guard page at the low end, so an overflow faults
 * instead of silently corrupting the neighbouring stack. AddressSanitizer is told about every
 * switch (fiber annotations), and valgrind about every stack, so both tools keep working.
 * There is no global state: everything a switch needs is in struct sim_coro.
 */
#include "tlm/kernel/coro.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/error.h"

/* ---- back-end and tool selection ------------------------------------------------------- */

#if defined(COHSCOPE_UCONTEXT) && COHSCOPE_UCONTEXT
#define CORO_UCONTEXT 1
#elif defined(__x86_64__) && defined(__ELF__) && !defined(__ILP32__)
#define CORO_X86_64 1
#elif defined(__aarch64__) && defined(__ELF__) && !defined(__ILP32__)
#define CORO_AARCH64 1
#else
#define CORO_UCONTEXT 1
#endif

#ifdef CORO_UCONTEXT
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define CORO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORO_ASAN 1
#endif
#endif

#ifdef CORO_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define CORO_VALGRIND 1
#endif
#endif

#define CORO_MIN_STACK ((size_t)16 * 1024)

struct sim_coro {
	void *sp;	 /* asm: the coroutine's stack pointer while it is suspended */
	void *caller_sp; /* asm: the resumer's stack pointer while the coroutine runs */
	sim_coro_fn fn;
	void *arg;
	void *map; /* guard page + stack, as mmap'ed */
	size_t map_size;
	char *stack_lo;	   /* lowest usable byte, just above the guard page */
	size_t stack_size; /* usable bytes */
	bool done;
	bool running; /* between switch-in and the matching switch-out (also while nested) */
	unsigned vg_stack_id;
	/* ASan fiber bookkeeping: fake stacks of both sides, and the resumer's stack bounds as
	 * reported on the last switch in (the resumer may differ from one resume to the next). */
	void *caller_fake;
	void *coro_fake;
	const void *caller_bottom;
	size_t caller_size;
#ifdef CORO_UCONTEXT
	ucontext_t ctx;
	ucontext_t caller_ctx;
#endif
};

/* ---- AddressSanitizer and valgrind hooks (empty without the tools) ---------------------- */

static inline void fiber_start(void **fake_save, const void *bottom, size_t size)
{
#ifdef CORO_ASAN
	__sanitizer_start_switch_fiber(fake_save, bottom, size);
#else
	(void)fake_save;
	(void)bottom;
	(void)size;
#endif
}

static inline void fiber_finish(void *fake_save, const void **bottom_old, size_t *size_old)
{
#ifdef CORO_ASAN
	__sanitizer_finish_switch_fiber(fake_save, bottom_old, size_old);
#else
	(void)fake_save;
	(void)bottom_old;
	(void)size_old;
#endif
}

static void stack_register(struct sim_coro *c)
{
#ifdef CORO_VALGRIND
	/* Without this memcheck takes the first switch for a huge stack-pointer move. */
	c->vg_stack_id = VALGRIND_STACK_REGISTER(c->stack_lo, c->stack_lo + c->stack_size - 1);
#else
	(void)c;
#endif
}

static void stack_release(struct sim_coro *c)
{
#ifdef CORO_VALGRIND
	VALGRIND_STACK_DEREGISTER(c->vg_stack_id);
#endif
#ifdef CORO_ASAN
	/* An unfinished coroutine leaves its frames' redzones poisoned; a later mapping at the
	 * same address must not inherit them. */
	ASAN_UNPOISON_MEMORY_REGION(c->stack_lo, c->stack_size);
#endif
	(void)c;
}

/* ---- the switch ------------------------------------------------------------------------ */

static void coro_main(struct sim_coro *c) __attribute__((noreturn));

#if defined(CORO_X86_64)

/*
 * Frame pushed by cs_coro_switch, from the saved stack pointer upwards:
 *   +0 x87 control word, +8 MXCSR, +16 r15, r14, r13, r12, rbx, rbp, +64 return address.
 * The ABI makes the control bits of MXCSR and the x87 control word callee-saved, so each
 * context keeps its own rounding mode. The CFI describes the same frame on both stacks,
 * which lets debuggers unwind through a suspended switch.
 */
__asm__(".text\n"
	".globl cs_coro_switch\n"
	".hidden cs_coro_switch\n"
	".type cs_coro_switch, @function\n"
	".p2align 4\n"
	"cs_coro_switch:\n"
	"	.cfi_startproc\n"
	"	pushq %rbp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %rbp, 0\n"
	"	pushq %rbx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %rbx, 0\n"
	"	pushq %r12\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %r12, 0\n"
	"	pushq %r13\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %r13, 0\n"
	"	pushq %r14\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %r14, 0\n"
	"	pushq %r15\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %r15, 0\n"
	"	subq $16, %rsp\n"
	"	.cfi_adjust_cfa_offset 16\n"
	"	stmxcsr 8(%rsp)\n"
	"	fnstcw (%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr 8(%rsp)\n"
	"	fldcw (%rsp)\n"
	"	addq $16, %rsp\n"
	"	.cfi_adjust_cfa_offset -16\n"
	"	popq %r15\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %r15\n"
	"	popq %r14\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %r14\n"
	"	popq %r13\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %r13\n"
	"	popq %r12\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %r12\n"
	"	popq %rbx\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %rbx\n"
	"	popq %rbp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %rbp\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size cs_coro_switch, .-cs_coro_switch\n"
	/* First switch-in returns here with rbx = c, r12 = coro_main and rsp 16-byte aligned, so
	 * the call leaves rsp + 8 aligned at coro_main's entry, as the ABI requires. rip is
	 * undefined for the unwinder: this is the outermost frame of the coroutine. */
	".globl cs_coro_entry\n"
	".hidden cs_coro_entry\n"
	".type cs_coro_entry, @function\n"
	".p2align 4\n"
	"cs_coro_entry:\n"
	"	.cfi_startproc\n"
	"	.cfi_undefined %rip\n"
	"	movq %rbx, %rdi\n"
	"	callq *%r12\n"
	"	ud2\n"
	"	.cfi_endproc\n"
	".size cs_coro_entry, .-cs_coro_entry\n");

#define CORO_FRAME_WORDS 11 /* switch frame (9 words) + 16 bytes of zeroed padding above */

#elif defined(CORO_AARCH64)

/*
 * Frame pushed by cs_coro_switch (176 bytes, sp stays 16-byte aligned):
 *   +0 x19..x28, +80 x29 (fp), +88 x30 (lr), +96 d8..d15, +160 FPCR.
 * FPCR keeps the rounding mode per context, like MXCSR on x86-64.
 */
__asm__(".text\n"
	".globl cs_coro_switch\n"
	".hidden cs_coro_switch\n"
	".type cs_coro_switch, %function\n"
	".p2align 4\n"
	"cs_coro_switch:\n"
	"	sub sp, sp, #176\n"
	"	stp x19, x20, [sp, #0]\n"
	"	stp x21, x22, [sp, #16]\n"
	"	stp x23, x24, [sp, #32]\n"
	"	stp x25, x26, [sp, #48]\n"
	"	stp x27, x28, [sp, #64]\n"
	"	stp x29, x30, [sp, #80]\n"
	"	stp d8, d9, [sp, #96]\n"
	"	stp d10, d11, [sp, #112]\n"
	"	stp d12, d13, [sp, #128]\n"
	"	stp d14, d15, [sp, #144]\n"
	"	mrs x9, fpcr\n"
	"	str x9, [sp, #160]\n"
	"	mov x9, sp\n"
	"	str x9, [x0]\n"
	"	mov sp, x1\n"
	"	ldp x19, x20, [sp, #0]\n"
	"	ldp x21, x22, [sp, #16]\n"
	"	ldp x23, x24, [sp, #32]\n"
	"	ldp x25, x26, [sp, #48]\n"
	"	ldp x27, x28, [sp, #64]\n"
	"	ldp x29, x30, [sp, #80]\n"
	"	ldp d8, d9, [sp, #96]\n"
	"	ldp d10, d11, [sp, #112]\n"
	"	ldp d12, d13, [sp, #128]\n"
	"	ldp d14, d15, [sp, #144]\n"
	"	ldr x9, [sp, #160]\n"
	"	msr fpcr, x9\n"
	"	add sp, sp, #176\n"
	"	ret\n"
	".size cs_coro_switch, .-cs_coro_switch\n"
	/* First switch-in returns here with x19 = c, x20 = coro_main, fp = 0 (end of chain). */
	".globl cs_coro_entry\n"
	".hidden cs_coro_entry\n"
	".type cs_coro_entry, %function\n"
	".p2align 4\n"
	"cs_coro_entry:\n"
	"	mov x0, x19\n"
	"	blr x20\n"
	"	brk #0\n"
	".size cs_coro_entry, .-cs_coro_entry\n");

#define CORO_FRAME_WORDS 22 /* 176 bytes */

#endif

#ifndef CORO_UCONTEXT

/* Defined in the __asm__ blocks above; hidden, so they never clash with another library. */
__attribute__((visibility("hidden"))) void cs_coro_switch(void **save_sp, void *load_sp);
__attribute__((visibility("hidden"))) void cs_coro_entry(void);

/* Lays out the frame that the first cs_coro_switch into c pops. */
static int coro_init_context(struct sim_coro *c)
{
	uint64_t *top = (uint64_t *)(void *)(c->stack_lo + c->stack_size);
	uint64_t *f = top - CORO_FRAME_WORDS;
	int i;

	for (i = 0; i < CORO_FRAME_WORDS; i++)
		f[i] = 0;
#if defined(CORO_X86_64)
	{
		/* Start with the creator's rounding and exception masks, as a new thread would. */
		uint16_t fpucw;
		uint32_t mxcsr;

		__asm__ volatile("fnstcw %0" : "=m"(fpucw));
		__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
		f[0] = fpucw;
		f[1] = mxcsr;
		f[5] = (uint64_t)(uintptr_t)coro_main; /* r12 */
		f[6] = (uint64_t)(uintptr_t)c;	       /* rbx */
		f[8] = (uint64_t)(uintptr_t)cs_coro_entry;
	}
#elif defined(CORO_AARCH64)
	{
		uint64_t fpcr;

		__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
		f[0] = (uint64_t)(uintptr_t)c;		    /* x19 */
		f[1] = (uint64_t)(uintptr_t)coro_main;	    /* x20 */
		f[11] = (uint64_t)(uintptr_t)cs_coro_entry; /* x30 */
		f[20] = fpcr;
	}
#endif
	c->sp = f;
	return 0;
}

static inline void coro_switch_in(struct sim_coro *c)
{
	cs_coro_switch(&c->caller_sp, c->sp);
}

static inline void coro_switch_out(struct sim_coro *c)
{
	cs_coro_switch(&c->sp, c->caller_sp);
}

#else /* CORO_UCONTEXT */

/* makecontext passes int arguments only, so the pointer travels in two halves. */
static void coro_uc_entry(unsigned int hi, unsigned int lo)
{
	uintptr_t p = ((uintptr_t)hi << 16 << 16) | (uintptr_t)lo;

	coro_main((struct sim_coro *)p);
}

static int coro_init_context(struct sim_coro *c)
{
	uintptr_t p = (uintptr_t)c;

	if (getcontext(&c->ctx))
		return -CS_EINVAL;
	c->ctx.uc_stack.ss_sp = c->stack_lo;
	c->ctx.uc_stack.ss_size = c->stack_size;
	c->ctx.uc_link = NULL; /* coro_main never returns: it switches back by hand */
	makecontext(&c->ctx, (void (*)(void))coro_uc_entry, 2, (unsigned int)(p >> 16 >> 16),
		    (unsigned int)(p & 0xffffffffu));
	return 0;
}

static inline void coro_switch_in(struct sim_coro *c)
{
	swapcontext(&c->caller_ctx, &c->ctx);
}

static inline void coro_switch_out(struct sim_coro *c)
{
	swapcontext(&c->ctx, &c->caller_ctx);
}

#endif

/* ---- coroutine life cycle -------------------------------------------------------------- */

/* Runs on the coroutine's own stack, entered on the first resume. */
static void coro_main(struct sim_coro *c)
{
	/* First entry: no fake stack of ours to restore; learn the resumer's stack bounds. */
	fiber_finish(NULL, &c->caller_bottom, &c->caller_size);
	c->fn(c->arg);
	c->done = true;
	/* Leaving for good: a NULL fake-stack save lets ASan free this fiber's fake stack. */
	fiber_start(NULL, c->caller_bottom, c->caller_size);
	coro_switch_out(c);
	__builtin_trap(); /* a done coroutine is never switched into again */
}

static size_t coro_page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

int sim_coro_create(size_t stack_size, sim_coro_fn fn, void *arg, struct sim_coro **out)
{
	struct sim_coro *c;
	size_t page, size;
	void *map;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	int err;

	if (!out)
		return -CS_EINVAL;
	*out = NULL;
	if (!fn)
		return -CS_EINVAL;
	page = coro_page_size();
	if (stack_size < CORO_MIN_STACK)
		stack_size = CORO_MIN_STACK;
	if (stack_size > SIZE_MAX - 2 * page)
		return -CS_EINVAL;
	size = (stack_size + page - 1) / page * page;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -CS_ENOMEM;
#ifdef MAP_STACK
	flags |= MAP_STACK; /* a hint only; newer kernels then skip transparent huge pages */
#endif
	map = mmap(NULL, size + page, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (map == MAP_FAILED) {
		err = -CS_ENOMEM;
		goto err_free;
	}
	if (mprotect(map, page, PROT_NONE)) {
		err = -CS_ENOMEM;
		goto err_unmap;
	}
	c->map = map;
	c->map_size = size + page;
	c->stack_lo = (char *)map + page;
	c->stack_size = size;
	c->fn = fn;
	c->arg = arg;
	err = coro_init_context(c);
	if (err)
		goto err_unmap;
	stack_register(c);
	*out = c;
	return 0;

err_unmap:
	munmap(map, size + page);
err_free:
	free(c);
	return err;
}

void sim_coro_destroy(struct sim_coro *c)
{
	if (!c)
		return;
	assert(!c->running);
	stack_release(c);
	munmap(c->map, c->map_size);
	free(c);
}

void sim_coro_resume(struct sim_coro *c)
{
	if (c->done)
		return;
	/* Resuming a coroutine that is running (or waiting in a nested resume) would overwrite
	 * the saved resumer context: a caller bug. */
	assert(!c->running);
	c->running = true;
	fiber_start(&c->caller_fake, c->stack_lo, c->stack_size);
	coro_switch_in(c);
	fiber_finish(c->caller_fake, NULL, NULL);
	c->running = false;
}

void sim_coro_yield(struct sim_coro *c)
{
	assert(c->running);
	fiber_start(&c->coro_fake, c->caller_bottom, c->caller_size);
	coro_switch_out(c);
	/* The next resumer may be someone else (kernel vs. another coroutine): refresh. */
	fiber_finish(c->coro_fake, &c->caller_bottom, &c->caller_size);
}

bool sim_coro_done(const struct sim_coro *c)
{
	return c->done;
}

size_t sim_coro_stack_size(const struct sim_coro *c)
{
	return c->stack_size;
}

const char *sim_coro_backend(void)
{
#if defined(CORO_UCONTEXT)
	return "ucontext";
#elif defined(CORO_X86_64)
	return "x86-64 asm";
#else
	return "aarch64 asm";
#endif
}
