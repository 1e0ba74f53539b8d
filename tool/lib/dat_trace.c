// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * trace-cmd .dat files (dat_trace.h): libtracecmd opens the file and iterates its
 * records in time order across cpus; the kmem events' fields are read by name with
 * libtraceevent from the formats stored in the file (the recording kernel's), never
 * parsed from text.
 */
#include "dat_trace.h"

#include <trace-cmd/trace-cmd.h>

#include <errno.h>
#include <string.h>

/* the kernel's ZERO_OR_NULL_PTR() bound, as kmem_trace.c */
#define ZERO_SIZE_PTR 16ULL

struct dat_ctx {
	kmem_trace_fn fn;
	void *arg;
	struct dat_trace_counts *counts;
	int bad_field;
	uint64_t kmem_events;
};

static int is_alloc(const char *name)
{
	return !strcmp(name, "kmalloc") || !strcmp(name, "kmalloc_node") ||
	       !strcmp(name, "kmem_cache_alloc") || !strcmp(name, "kmem_cache_alloc_node");
}

static int on_record(struct tracecmd_input *handle, struct tep_record *record, int cpu,
		     void *data)
{
	struct dat_ctx *c = data;
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct tep_event *event = tep_find_event_by_record(tep, record);
	struct kmem_trace_event e = { 0 };
	unsigned long long v = 0;
	int alloc, is_free;

	if (record->missed_events > 0)
		c->counts->missed_events += (uint64_t)record->missed_events;
	if (!event || strcmp(event->system, "kmem")) {
		c->counts->other_events++;
		return 0;
	}
	alloc = is_alloc(event->name);
	is_free = !strcmp(event->name, "kfree") || !strcmp(event->name, "kmem_cache_free");
	if (!alloc && !is_free) {
		c->counts->other_events++;
		return 0;
	}
	if (tep_get_field_val(NULL, event, "ptr", record, &v, 0) < 0) {
		c->bad_field = 1;
		return 1;	/* stops the iteration */
	}
	c->kmem_events++;
	if (v <= ZERO_SIZE_PTR) {
		c->counts->null_pointers++;
		return 0;
	}
	e.ts_ns = record->ts;
	e.ptr = v;
	e.cpu = (uint16_t)cpu;
	e.free = (uint8_t)is_free;
	e.kmalloc = !strncmp(event->name, "kmalloc", 7) || !strcmp(event->name, "kfree");
	if (alloc) {
		if (tep_get_field_val(NULL, event, "bytes_req", record, &v, 0) < 0) {
			c->bad_field = 1;
			return 1;
		}
		e.bytes_req = (uint32_t)v;
		if (tep_get_field_val(NULL, event, "bytes_alloc", record, &v, 0) < 0) {
			c->bad_field = 1;
			return 1;
		}
		e.bytes_alloc = (uint32_t)v;
		if (!tep_get_field_val(NULL, event, "gfp_flags", record, &v, 0))
			e.gfp = (uint32_t)v;
	}
	/* kmem_cache_free's name, and 7.x's kmem_cache_alloc's */
	if (!e.kmalloc && tep_find_field(event, "name")) {
		int len = 0;
		const char *s = tep_get_field_raw(NULL, event, "name", record, &len, 0);

		if (s && len > 0) {
			e.cache = s;
			e.cache_len = strnlen(s, (size_t)len);
		}
	}
	c->fn(&e, c->arg);
	return 0;
}

int dat_trace_read(const char *file, kmem_trace_fn fn, void *arg,
		   struct dat_trace_counts *counts, const char **what)
{
	struct dat_ctx c = { fn, arg, counts, 0, 0 };
	struct tracecmd_input *handle;
	int rc, i;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	handle = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle) {
		*what = "not a readable trace-cmd .dat file (tracecmd_open failed: truncated, or "
			"a version libtracecmd does not read)";
		if (!errno)
			errno = EINVAL;
		return -1;
	}
	rc = tracecmd_iterate_events(handle, NULL, 0, on_record, &c);
	/*
	 * `trace-cmd extract -B NAME` (and record -B) store an instance as a buffer of the
	 * file: without kmem events in the top buffer, the first buffer that has some.
	 */
	for (i = 0; rc >= 0 && !c.bad_field && !c.kmem_events &&
		    i < tracecmd_buffer_instances(handle); i++) {
		struct tracecmd_input *buf = tracecmd_buffer_instance_handle(handle, i);

		if (!buf)
			continue;
		memset(counts, 0, sizeof(*counts));
		rc = tracecmd_iterate_events(buf, NULL, 0, on_record, &c);
		tracecmd_close(buf);
	}
	tracecmd_close(handle);
	if (c.bad_field) {
		*what = "a kmem event without its ptr, bytes_req or bytes_alloc field";
		errno = EINVAL;
		return -1;
	}
	if (rc < 0) {
		*what = "cannot read the records (truncated?)";
		errno = EIO;
		return -1;
	}
	return 0;
}
