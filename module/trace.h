/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slablab's tracepoints: the "slablab" trace system (perf -e 'slablab:*', bpftrace
 * tracepoint:slablab:*, trace-cmd record -e slablab; docs/tracing.md).
 *
 * The allocation and free events carry kmem's field names (call_site, ptr, bytes_req,
 * bytes_alloc, gfp_flags, node: include/trace/events/kmem.h), so that a script written
 * for kmem:kmem_cache_alloc or kmem:kmalloc reads slablab's with the system name
 * changed, plus the cache's name (cache: kmem:kmem_cache_free calls it name) and its
 * design. Like kmem's they are static keys: a
 * disabled event costs a patched-out branch, and what an event computes beyond its
 * arguments (a slow path's duration) is computed only while it is enabled.
 *
 * Bulk allocations and frees fire no per-object event, as 6.1's kmem_cache_alloc_bulk()
 * fires none; the objects they take and give back show in slab_new/slab_free and the
 * designs' refills and drains.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM slablab

#ifndef _SLABLAB_TRACE_HELPERS_H
#define _SLABLAB_TRACE_HELPERS_H
#include "internal.h"

const char *slablab_design_name(unsigned int design);

/* Every event's cache and design: @s is NULL for a kmalloc the page allocator served. */
static inline const char *slablab_tp_cache(const struct slablab_cache *s)
{
	return s ? s->name : "page_alloc";
}

static inline const char *slablab_tp_design(const struct slablab_cache *s)
{
	return s ? slablab_design_name(READ_ONCE(s->design)) : "none";
}
#endif

#if !defined(_SLABLAB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SLABLAB_TRACE_H

#include <linux/tracepoint.h>
#include <trace/events/mmflags.h>

/* 6.10 dropped __assign_str()'s source argument: the field's __string() names it. */
#ifdef SLABLAB_HAVE_ASSIGN_STR_1
#define slablab_assign_str(dst, src)	__assign_str(dst)
#else
#define slablab_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * An object handed out (slablab_cache_alloc(), _node()) or a kmalloc class's
 * (slablab_kmalloc()): bytes_req what was asked, bytes_alloc the slot it got. kmem's
 * format, with the cache and its design after it.
 */
#define SLABLAB_TP_ALLOC_FMT \
	"call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d cache=%s design=%s"

DECLARE_EVENT_CLASS(slablab_alloc_class,
		    TP_PROTO(unsigned long call_site, const void *ptr,
			     const struct slablab_cache *s, size_t bytes_req, size_t bytes_alloc,
			     gfp_t gfp_flags, int node),
		    TP_ARGS(call_site, ptr, s, bytes_req, bytes_alloc, gfp_flags, node),
		    TP_STRUCT__entry(__field(unsigned long, call_site)
				     __field(const void *, ptr)
				     __field(size_t, bytes_req)
				     __field(size_t, bytes_alloc)
				     __field(unsigned long, gfp_flags)
				     __field(int, node)
				     __string(cache, slablab_tp_cache(s))
				     __string(design, slablab_tp_design(s))),
		    TP_fast_assign(__entry->call_site = call_site;
				   __entry->ptr = ptr;
				   __entry->bytes_req = bytes_req;
				   __entry->bytes_alloc = bytes_alloc;
				   __entry->gfp_flags = (__force unsigned long)gfp_flags;
				   __entry->node = node;
				   slablab_assign_str(cache, slablab_tp_cache(s));
				   slablab_assign_str(design, slablab_tp_design(s));),
		    TP_printk(SLABLAB_TP_ALLOC_FMT,
			      (void *)__entry->call_site, __entry->ptr, __entry->bytes_req,
			      __entry->bytes_alloc, show_gfp_flags(__entry->gfp_flags),
			      __entry->node, __get_str(cache), __get_str(design)));

DEFINE_EVENT(slablab_alloc_class, slablab_cache_alloc,
	     TP_PROTO(unsigned long call_site, const void *ptr, const struct slablab_cache *s,
		      size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags, int node),
	     TP_ARGS(call_site, ptr, s, bytes_req, bytes_alloc, gfp_flags, node));

DEFINE_EVENT(slablab_alloc_class, slablab_kmalloc,
	     TP_PROTO(unsigned long call_site, const void *ptr, const struct slablab_cache *s,
		      size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags, int node),
	     TP_ARGS(call_site, ptr, s, bytes_req, bytes_alloc, gfp_flags, node));

/* An object given back (slablab_cache_free(), slablab_kfree()). */
DECLARE_EVENT_CLASS(slablab_free_class,
		    TP_PROTO(unsigned long call_site, const void *ptr,
			     const struct slablab_cache *s),
		    TP_ARGS(call_site, ptr, s),
		    TP_STRUCT__entry(__field(unsigned long, call_site)
				     __field(const void *, ptr)
				     __string(cache, slablab_tp_cache(s))
				     __string(design, slablab_tp_design(s))),
		    TP_fast_assign(__entry->call_site = call_site;
				   __entry->ptr = ptr;
				   slablab_assign_str(cache, slablab_tp_cache(s));
				   slablab_assign_str(design, slablab_tp_design(s));),
		    TP_printk("call_site=%pS ptr=%p cache=%s design=%s", (void *)__entry->call_site,
			      __entry->ptr, __get_str(cache), __get_str(design)));

DEFINE_EVENT(slablab_free_class, slablab_cache_free,
	     TP_PROTO(unsigned long call_site, const void *ptr, const struct slablab_cache *s),
	     TP_ARGS(call_site, ptr, s));

DEFINE_EVENT(slablab_free_class, slablab_kfree,
	     TP_PROTO(unsigned long call_site, const void *ptr, const struct slablab_cache *s),
	     TP_ARGS(call_site, ptr, s));

/*
 * A slab taken from the page allocator, or given back (objects: its slots). On slob: a
 * heap page (order 0, no slots: 0) or a large object's pages (1).
 */
DECLARE_EVENT_CLASS(slablab_slab_class,
		    TP_PROTO(const struct slablab_cache *s, int node, unsigned int order,
			     unsigned int objects),
		    TP_ARGS(s, node, order, objects),
		    TP_STRUCT__entry(__field(int, node)
				     __field(unsigned int, order)
				     __field(unsigned int, objects)
				     __string(cache, slablab_tp_cache(s))
				     __string(design, slablab_tp_design(s))),
		    TP_fast_assign(__entry->node = node;
				   __entry->order = order;
				   __entry->objects = objects;
				   slablab_assign_str(cache, slablab_tp_cache(s));
				   slablab_assign_str(design, slablab_tp_design(s));),
		    TP_printk("cache=%s design=%s node=%d order=%u objects=%u", __get_str(cache),
			      __get_str(design), __entry->node, __entry->order, __entry->objects));

DEFINE_EVENT(slablab_slab_class, slablab_slab_new,
	     TP_PROTO(const struct slablab_cache *s, int node, unsigned int order,
		      unsigned int objects),
	     TP_ARGS(s, node, order, objects));

DEFINE_EVENT(slablab_slab_class, slablab_slab_free,
	     TP_PROTO(const struct slablab_cache *s, int node, unsigned int order,
		      unsigned int objects),
	     TP_ARGS(s, node, order, objects));

/*
 * An allocation past the design's per-cpu fast path, and how long it took: slub's
 * ___slab_alloc() (cpu partial, node partial, new slab), the sheaves' refill of the
 * main sheaf (barn, slabs) or objects straight from slabs, the SLAB array's refill
 * (shared array, node lists, a grow), slob's heap walk. ptr is NULL when it failed.
 * (ns is a C type, not u64: bpftrace on a kernel without BTF parses the format.)
 */
TRACE_EVENT(slablab_alloc_slow,
	    TP_PROTO(const struct slablab_cache *s, const void *ptr, int node, u64 ns),
	    TP_ARGS(s, ptr, node, ns),
	    TP_STRUCT__entry(__field(const void *, ptr)
			     __field(int, node)
			     __field(unsigned long long, ns)
			     __string(cache, slablab_tp_cache(s))
			     __string(design, slablab_tp_design(s))),
	    TP_fast_assign(__entry->ptr = ptr;
			   __entry->node = node;
			   __entry->ns = ns;
			   slablab_assign_str(cache, slablab_tp_cache(s));
			   slablab_assign_str(design, slablab_tp_design(s));),
	    TP_printk("cache=%s design=%s ptr=%p node=%d ns=%llu", __get_str(cache),
		      __get_str(design), __entry->ptr, __entry->node, __entry->ns));

/*
 * Objects a per-cpu layer gives back in one go: slub's cpu slab deactivated
 * (deactivate_slab()), a sheaf flushed to its slabs (sheaf_flush()), a SLAB array's
 * batch moved out (cache_flusharray()). where names which.
 */
TRACE_EVENT(slablab_drain,
	    TP_PROTO(const struct slablab_cache *s, const char *where, unsigned int objects),
	    TP_ARGS(s, where, objects),
	    TP_STRUCT__entry(__field(unsigned int, objects)
			     __string(cache, slablab_tp_cache(s))
			     __string(design, slablab_tp_design(s))
			     __string(where, where)),
	    TP_fast_assign(__entry->objects = objects;
			   slablab_assign_str(cache, slablab_tp_cache(s));
			   slablab_assign_str(design, slablab_tp_design(s));
			   slablab_assign_str(where, where);),
	    TP_printk("cache=%s design=%s where=%s objects=%u", __get_str(cache),
		      __get_str(design), __get_str(where), __entry->objects));

#endif /* _SLABLAB_TRACE_H */

/* An out-of-tree module's events: this header, found through ccflags' -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
