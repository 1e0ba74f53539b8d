// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The kmem tracepoints through libtracefs and libtraceevent (kmem_trace.h): C, because
 * libtracefs' header is not C++. The fields are read by name from the kernel's own
 * format files (libtraceevent), never parsed from text.
 */
#include "kmem_trace.h"

#include <tracefs/tracefs.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the kernel's ZERO_OR_NULL_PTR() bound: kmalloc(0)'s pointer, never an object */
#define ZERO_SIZE_PTR 16ULL

struct kmem_trace {
	struct tracefs_instance *inst;
	kmem_trace_fn fn;
	void *arg;
	long long missed;
};

/* 6.1 and later; the _node variants are those of kernels before 6.1 (merged then). */
static const char *const alloc_events[] = { "kmalloc", "kmalloc_node", "kmem_cache_alloc",
					    "kmem_cache_alloc_node" };
static const char *const free_events[] = { "kfree", "kmem_cache_free" };

struct kmem_trace *kmem_trace_open(const char *name, size_t buffer_kb, int kmalloc,
				   int cache, const char **what)
{
	struct kmem_trace *t = calloc(1, sizeof(*t));
	int enabled = 0;
	size_t i;

	if (!t) {
		*what = "out of memory";
		return NULL;
	}
	t->inst = tracefs_instance_create(name);
	if (!t->inst) {
		*what = "cannot create a tracefs instance (is tracefs mounted, are you root?)";
		goto fail;
	}
	/*
	 * A new instance traces from its creation: off until kmem_trace_on(), or the
	 * events enabled first record the path walks of enabling the others (libtracefs
	 * opens a file per event), kmem_cache_free last: hundreds of names_cache objects
	 * whose frees were not traced yet, allocated again at a live address.
	 */
	if (tracefs_trace_off(t->inst) < 0) {
		*what = "cannot turn the instance's tracing off";
		goto fail;
	}
	if (tracefs_instance_set_buffer_size(t->inst, buffer_kb, -1) < 0) {
		*what = "cannot size the ring buffers";
		goto fail;
	}
	/* one clock for every cpu: the replay orders events across cpus by it */
	if (tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0) {
		*what = "cannot set trace_clock mono";
		goto fail;
	}
	for (i = 0; i < sizeof(alloc_events) / sizeof(alloc_events[0]); i++) {
		int is_kmalloc = !strncmp(alloc_events[i], "kmalloc", 7);

		if ((is_kmalloc ? kmalloc : cache) &&
		    !tracefs_event_enable(t->inst, "kmem", alloc_events[i]))
			enabled++;
	}
	for (i = 0; i < sizeof(free_events) / sizeof(free_events[0]); i++) {
		int is_kmalloc = !strcmp(free_events[i], "kfree");

		if ((is_kmalloc ? kmalloc : cache) &&
		    !tracefs_event_enable(t->inst, "kmem", free_events[i]))
			enabled++;
	}
	if (!enabled) {
		*what = "this kernel has none of the kmem tracepoints";
		errno = ENOENT;
		goto fail;
	}
	return t;
fail:
	{
		int err = errno ? errno : EIO;

		kmem_trace_close(t);
		errno = err;
	}
	return NULL;
}

void kmem_trace_on(struct kmem_trace *t)
{
	tracefs_trace_on(t->inst);
}

void kmem_trace_off(struct kmem_trace *t)
{
	tracefs_trace_off(t->inst);
}

static int on_event(struct tep_event *event, struct tep_record *record, int cpu, void *arg)
{
	struct kmem_trace *t = arg;
	struct kmem_trace_event e = { 0 };
	unsigned long long v = 0;
	const char *name = event->name;

	if (record->missed_events > 0)
		t->missed += record->missed_events;
	/*
	 * A failed allocation, or kfree(NULL); or kfree(ZERO_SIZE_PTR) (16), which 6.1
	 * traces though kmalloc(0) is not: it frees nothing.
	 */
	if (tep_get_field_val(NULL, event, "ptr", record, &v, 0) < 0 || v <= ZERO_SIZE_PTR)
		return 0;
	e.ts_ns = record->ts;
	e.ptr = v;
	e.cpu = (uint16_t)cpu;
	e.kmalloc = !strncmp(name, "kmalloc", 7) || !strcmp(name, "kfree");
	/* kmem_cache_free's cache name, and 7.x's kmem_cache_alloc's (as the importers) */
	if (!e.kmalloc && tep_find_field(event, "name")) {
		int len = 0;
		const char *s = tep_get_field_raw(NULL, event, "name", record, &len, 0);

		if (s && len > 0) {
			e.cache = s;
			e.cache_len = strnlen(s, (size_t)len);
		}
	}
	if (!strcmp(name, "kfree") || !strcmp(name, "kmem_cache_free")) {
		e.free = 1;
	} else {
		if (!tep_get_field_val(NULL, event, "bytes_req", record, &v, 0))
			e.bytes_req = (uint32_t)v;
		if (!tep_get_field_val(NULL, event, "bytes_alloc", record, &v, 0))
			e.bytes_alloc = (uint32_t)v;
		if (!tep_get_field_val(NULL, event, "gfp_flags", record, &v, 0))
			e.gfp = (uint32_t)v;
	}
	t->fn(&e, t->arg);
	return 0;
}

long long kmem_trace_read(struct kmem_trace *t, kmem_trace_fn fn, void *arg)
{
	const char *systems[] = { "kmem", NULL };
	struct tep_handle *tep = tracefs_local_events_system(NULL, systems);

	if (!tep)
		return -1;
	t->fn = fn;
	t->arg = arg;
	t->missed = 0;
	tracefs_iterate_raw_events(tep, t->inst, NULL, 0, on_event, t);
	tep_free(tep);
	return t->missed;
}

uint64_t kmem_trace_overruns(struct kmem_trace *t)
{
	uint64_t lost = 0;
	long cpu;

	for (cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF); cpu++) {
		char file[64], *text, *line;

		snprintf(file, sizeof(file), "per_cpu/cpu%ld/stats", cpu);
		text = tracefs_instance_file_read(t->inst, file, NULL);
		if (!text)
			continue;
		line = strstr(text, "overrun:");
		if (line && (line == text || line[-1] == '\n'))
			lost += strtoull(line + 8, NULL, 10);
		free(text);
	}
	return lost;
}

void kmem_trace_close(struct kmem_trace *t)
{
	if (!t)
		return;
	if (t->inst) {
		tracefs_instance_destroy(t->inst);
		tracefs_instance_free(t->inst);
	}
	free(t);
}
