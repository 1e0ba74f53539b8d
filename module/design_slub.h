/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slub design's fast paths, inline: the cache API (cache.c) dispatches on
 * s->design with a switch and inlines these, so that an object's allocation or free
 * costs what it did before designs existed (no call through the ops table, see
 * cache.c). Their slow paths are in design_slub.c, whose top comment describes the
 * design and its locking.
 */
#ifndef _SLABLAB_DESIGN_SLUB_H
#define _SLABLAB_DESIGN_SLUB_H

#include <linux/jump_label.h>
#include "backend.h"

/* The tid advances by a power of two at least the cpu count, so tid % TID_STEP = cpu. */
#define TID_STEP roundup_pow_of_two(CONFIG_NR_CPUS)

static inline unsigned long next_tid(unsigned long tid)
{
	return tid + TID_STEP;
}

/*
 * The per-cpu freelist+tid cmpxchg. The kernel's this_cpu_cmpxchg_double() may call an
 * emulation helper that is not exported to modules, so issue cmpxchg16b on the %gs
 * per-cpu segment ourselves (x86-64 only; slablab_backend_init() refuses to load
 * without CX16: slablab_have_cmpxchg_double(), backend.c). No lock prefix: only this
 * cpu (and its interrupts) may touch the word, as in the kernel.
 * 6.8+'s this_cpu_try_cmpxchg128() is no way out: its ALTERNATIVE keeps a call to the
 * unexported this_cpu_cmpxchg16b_emu in the module's text. ZF comes out through the
 * "=@ccz" flag output where the compiler has flag outputs (gcc 6+, clang; 6.1 takes
 * gcc 5.1, Debian builds with gcc 12+), else through a setz; 7.x dropped the kernel's
 * CC_SET/CC_OUT, which chose so.
 */
#ifdef __my_cpu_var
/* 6.8+: the kernel's own per-cpu operand, a __seg_gs lvalue where 7.x's types carry it */
#define PCPU_PAIR_ARG __percpu_arg([var])
#define PCPU_PAIR(pc) __my_cpu_var((pc)->ft)
#else
#define PCPU_PAIR_ARG "%%gs:%[var]"
#define PCPU_PAIR(pc) (*(union slablab_pair __force *)&(pc)->ft)
#endif

static __always_inline bool cpu_pair_cmpxchg(struct slablab_cpu __percpu *pc,
					     union slablab_pair old, union slablab_pair new)
{
	void *o1 = old.freelist;
	unsigned long o2 = old.word;
	bool ok;

#ifdef __GCC_ASM_FLAG_OUTPUTS__
	asm volatile("cmpxchg16b " PCPU_PAIR_ARG
		     : "=@ccz" (ok), [var] "+m" (PCPU_PAIR(pc)),
		       "+a" (o1), "+d" (o2)
		     : "b" (new.freelist), "c" (new.word)
		     : "memory");
#else
	asm volatile("cmpxchg16b " PCPU_PAIR_ARG "\n\tsetz %[ok]"
		     : [ok] "=qm" (ok), [var] "+m" (PCPU_PAIR(pc)),
		       "+a" (o1), "+d" (o2)
		     : "b" (new.freelist), "c" (new.word)
		     : "memory", "cc");
#endif
	return ok;
}

/*
 * Test hook (selftests=1): runs in the cmpxchg fast path between reading the cpu
 * freelist and using it, where a preempted task can lose its cpu slab to the rest of
 * the system. See slablab_selftest_fastpath_race().
 */
DECLARE_STATIC_KEY_FALSE(slablab_race_hook);
void slablab_slub_race_hook(struct slablab_cache *s);

void *slablab_slub_alloc_slow(struct slablab_cache *s, gfp_t gfp, int node);
void slablab_slub_free_slow(struct slablab_cache *s, struct slablab_slab *slab, void *head,
			    void *tail, unsigned int cnt);

static __always_inline bool use_locked_fastpath(const struct slablab_cache *s)
{
	return IS_ENABLED(CONFIG_PREEMPT_RT) ||
	       READ_ONCE(s->fastpath) == SLABLAB_FASTPATH_IRQOFF;
}

static __always_inline void *slub_alloc(struct slablab_cache *s, gfp_t gfp, int node)
{
	struct slablab_cpu __percpu *pc = s->cpu;
	struct slablab_slab *slab;
	union slablab_pair old, new;
	struct slablab_cpu *c;
	unsigned long flags;
	void *obj;

	might_alloc(gfp);
	if (use_locked_fastpath(s)) {
		local_lock_irqsave(&pc->lock, flags);
		c = this_cpu_ptr(pc);
		obj = c->ft.freelist;
		if (unlikely(!obj || !c->slab || !node_match(c->slab, node))) {
			local_unlock_irqrestore(&pc->lock, flags);
			obj = slablab_slub_alloc_slow(s, gfp, node);
			goto out;
		}
		c->ft.freelist = get_fp(s, obj);
		c->ft.word = next_tid(c->ft.word);
		local_unlock_irqrestore(&pc->lock, flags);
		stat(s, SLABLAB_ALLOC_FASTPATH);
		goto out;
	}
redo:
	c = raw_cpu_ptr(pc);
	old.word = READ_ONCE(c->ft.word);
	barrier();	/* the tid first: a freelist read after it can't be newer */
	old.freelist = READ_ONCE(c->ft.freelist);
	slab = READ_ONCE(c->slab);
	if (static_branch_unlikely(&slablab_race_hook))
		slablab_slub_race_hook(s);
	if (unlikely(!old.freelist || !slab || !obj_node_match(old.freelist, node))) {
		obj = slablab_slub_alloc_slow(s, gfp, node);
		goto out;
	}
	new.freelist = get_fp_safe(s, old.freelist);
	new.word = next_tid(old.word);
	if (unlikely(!cpu_pair_cmpxchg(pc, old, new))) {
		stat(s, SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL);
		goto redo;
	}
	obj = old.freelist;
	stat(s, SLABLAB_ALLOC_FASTPATH);
out:
	if (likely(obj))
		alloc_hook(s, obj, gfp);
	return obj;
}

static __always_inline void slub_free(struct slablab_cache *s, struct slablab_slab *slab,
				      void *head, void *tail, unsigned int cnt)
{
	struct slablab_cpu __percpu *pc = s->cpu;
	union slablab_pair old, new;
	struct slablab_cpu *c;
	unsigned long flags;

	if (use_locked_fastpath(s)) {
		local_lock_irqsave(&pc->lock, flags);
		c = this_cpu_ptr(pc);
		if (unlikely(slab != c->slab)) {
			local_unlock_irqrestore(&pc->lock, flags);
			slablab_slub_free_slow(s, slab, head, tail, cnt);
			return;
		}
		set_fp(s, tail, c->ft.freelist);
		c->ft.freelist = head;
		c->ft.word = next_tid(c->ft.word);
		local_unlock_irqrestore(&pc->lock, flags);
		stat_add(s, SLABLAB_FREE_FASTPATH, cnt);
		return;
	}
redo:
	c = raw_cpu_ptr(pc);
	old.word = READ_ONCE(c->ft.word);
	barrier();	/* tid before slab: a slab change bumps the tid */
	if (unlikely(slab != READ_ONCE(c->slab))) {
		slablab_slub_free_slow(s, slab, head, tail, cnt);
		return;
	}
	old.freelist = READ_ONCE(c->ft.freelist);
	set_fp(s, tail, old.freelist);
	new.freelist = head;
	new.word = next_tid(old.word);
	if (unlikely(!cpu_pair_cmpxchg(pc, old, new))) {
		stat(s, SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL);
		goto redo;
	}
	stat_add(s, SLABLAB_FREE_FASTPATH, cnt);
}

/* One object, debug checks first (the selftest's free, which must not call upwards). */
static __always_inline void slub_free_one(struct slablab_cache *s, void *obj)
{
	struct slablab_slab *slab = obj_to_slab(obj);

	if (free_hook(s, slab, obj))
		slub_free(s, slab, obj, obj, 1);
}

#endif /* _SLABLAB_DESIGN_SLUB_H */
