// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The kmem tracepoints through libtracefs and libtraceevent (kmem_trace.h): C, because
 * libtracefs' header is not C++. The fields are read by name from the kernel's own
 * format files (libtraceevent), never parsed from text.
 */
#include "kmem_trace.h"

#include <tracefs/tracefs.h>
#include <traceevent/kbuffer.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the kernel's ZERO_OR_NULL_PTR() bound: kmalloc(0)'s pointer, never an object */
#define ZERO_SIZE_PTR 16ULL

/* a sub-buffer header's commit word: the kernel's RB_MISSED_* flags, BUF_PAGE_SIZE bits */
#define SUBBUF_MISSED_EVENTS (1ULL << 31)
#define SUBBUF_MISSED_STORED (1ULL << 30)
#define SUBBUF_COMMIT_MASK ((1ULL << 27) - 1)

/*
 * The instance's buffer_percent: poll() on a cpu's trace_pipe_raw wakes the reader once
 * this much of the cpu's buffer is unread. Low, so that a small --buffer-kb still leaves
 * most of the buffer for what is traced while the reader is on its way; never less than
 * two sub-buffers (watermark_pct()): 6.1 counts the sub-buffer being written as unread
 * after every read, so a watermark of one would wake the reader at once, every time (a
 * busy loop: 80,000 polls for 15,000 reads of a 32 KiB buffer, measured in the VM).
 */
#define READER_WATERMARK_PCT 10
#define READER_WATERMARK_MAX_PCT 50	/* 100 never wakes on 6.1 (dirty < nr_pages) */

struct kmem_trace {
	struct tracefs_instance *inst;
	size_t buffer_kb;
};

/*
 * READER_WATERMARK_PCT of a cpu's buffer, but 1.5 sub-buffers at least: the kernel wakes
 * the reader when unread sub-buffers * 100 > pct * nr_sub-buffers, so two unread ones,
 * give or take the kernel's rounding of the size to whole sub-buffers.
 */
static int watermark_pct(size_t buffer_kb)
{
	/* the data of a sub-buffer: a page less its header (time stamp, commit) */
	size_t data = (size_t)sysconf(_SC_PAGESIZE) - 16;
	size_t nr = (buffer_kb * 1024 + data - 1) / data;
	size_t pct = nr ? (150 + nr - 1) / nr : READER_WATERMARK_MAX_PCT;

	if (pct < READER_WATERMARK_PCT)
		pct = READER_WATERMARK_PCT;
	return pct > READER_WATERMARK_MAX_PCT ? READER_WATERMARK_MAX_PCT : (int)pct;
}

/* 6.1 and later; the _node variants are those of kernels before 6.1 (merged then). */
static const char *const alloc_events[] = { "kmalloc", "kmalloc_node", "kmem_cache_alloc",
					    "kmem_cache_alloc_node" };
static const char *const free_events[] = { "kfree", "kmem_cache_free" };

struct kmem_trace *kmem_trace_open(const char *name, size_t buffer_kb, int kmalloc,
				   int cache, const char **what)
{
	struct kmem_trace *t = calloc(1, sizeof(*t));
	char pct[16];
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
	t->buffer_kb = buffer_kb;
	/* kernels before 5.0 have no watermark: their poll() wakes on any event */
	snprintf(pct, sizeof(pct), "%d", watermark_pct(buffer_kb));
	tracefs_instance_file_write(t->inst, "buffer_percent", pct);
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

/*
 * @record of @event as a kmem_trace_event; 0 for what the trace leaves out: a failed
 * allocation, kfree(NULL), or kfree(ZERO_SIZE_PTR) (16), which 6.1 traces though
 * kmalloc(0) is not: it frees nothing.
 */
static int parse_event(struct tep_event *event, struct tep_record *record, int cpu,
		       struct kmem_trace_event *e)
{
	unsigned long long v = 0;
	const char *name = event->name;

	memset(e, 0, sizeof(*e));
	if (tep_get_field_val(NULL, event, "ptr", record, &v, 0) < 0 || v <= ZERO_SIZE_PTR)
		return 0;
	e->ts_ns = record->ts;
	e->ptr = v;
	e->cpu = (uint16_t)cpu;
	e->kmalloc = !strncmp(name, "kmalloc", 7) || !strcmp(name, "kfree");
	/* kmem_cache_free's cache name, and 7.x's kmem_cache_alloc's (as the importers) */
	if (!e->kmalloc && tep_find_field(event, "name")) {
		int len = 0;
		const char *s = tep_get_field_raw(NULL, event, "name", record, &len, 0);

		if (s && len > 0) {
			e->cache = s;
			e->cache_len = strnlen(s, (size_t)len);
		}
	}
	if (!strcmp(name, "kfree") || !strcmp(name, "kmem_cache_free")) {
		e->free = 1;
	} else {
		if (!tep_get_field_val(NULL, event, "bytes_req", record, &v, 0))
			e->bytes_req = (uint32_t)v;
		if (!tep_get_field_val(NULL, event, "bytes_alloc", record, &v, 0))
			e->bytes_alloc = (uint32_t)v;
		if (!tep_get_field_val(NULL, event, "gfp_flags", record, &v, 0))
			e->gfp = (uint32_t)v;
	}
	return 1;
}

/* @field's value in a per_cpu/cpuN/stats text ("overrun: 12"), 0 when absent */
static uint64_t stats_field(const char *text, const char *field)
{
	size_t len = strlen(field);
	const char *line;

	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, field, len) && line[len] == ':')
			return strtoull(line + len + 1, NULL, 10);
	return 0;
}

uint64_t kmem_trace_overruns(struct kmem_trace *t)
{
	uint64_t lost = 0;
	long cpu;

	for (cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF); cpu++) {
		char file[64], *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%ld/stats", cpu);
		text = tracefs_instance_file_read(t->inst, file, NULL);
		if (!text)
			continue;
		/*
		 * overrun: overwritten before they were read; commit overrun: nested
		 * writes that found no room; dropped events: the same without overwrite
		 */
		lost += stats_field(text, "overrun") + stats_field(text, "commit overrun") +
			stats_field(text, "dropped events");
		free(text);
	}
	return lost;
}

void kmem_trace_close(struct kmem_trace *t)
{
	if (!t)
		return;
	if (t->inst) {
		if (tracefs_instance_destroy(t->inst) < 0)
			fprintf(stderr,
				"slabctl: record: cannot remove the tracefs instance %s: %s "
				"(rmdir it under /sys/kernel/tracing/instances/)\n",
				tracefs_instance_get_name(t->inst), strerror(errno));
		tracefs_instance_free(t->inst);
	}
	free(t);
}

/* One cpu's trace_pipe_raw, opened non-blocking: poll() does the waiting. */
struct cpu_reader {
	int cpu;
	int fd;
	struct tracefs_cpu *tcpu;
};

struct kmem_trace_reader {
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	void *subbuf;		/* one sub-buffer, as read */
	int subbuf_size;
	int nr_subbufs;		/* a cpu's buffer, in sub-buffers */
	int nr_cpus;
	struct cpu_reader *cpus;
	long long missed;
};

void kmem_trace_reader_close(struct kmem_trace_reader *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < r->nr_cpus; i++) {
		/* tracefs_cpu_alloc_fd()'s: frees what libtracefs made, the fd is ours */
		if (r->cpus[i].tcpu)
			tracefs_cpu_free_fd(r->cpus[i].tcpu);
		if (r->cpus[i].fd >= 0)
			close(r->cpus[i].fd);
	}
	free(r->cpus);
	free(r->subbuf);
	if (r->kbuf)
		kbuffer_free(r->kbuf);
	if (r->tep)
		tep_free(r->tep);
	free(r);
}

struct kmem_trace_reader *kmem_trace_reader_open(struct kmem_trace *t, const char **what)
{
	const char *systems[] = { "kmem", NULL };
	long nr_possible = sysconf(_SC_NPROCESSORS_CONF);
	struct kmem_trace_reader *r = calloc(1, sizeof(*r));
	long cpu;

	if (!r || nr_possible < 1) {
		*what = "out of memory";
		errno = ENOMEM;
		goto fail;
	}
	/* the kmem formats, and events/header_page: the sub-buffers' layout */
	r->tep = tracefs_local_events_system(NULL, systems);
	if (!r->tep) {
		*what = "cannot read the kmem event formats";
		goto fail;
	}
	r->kbuf = tep_kbuffer(r->tep);
	r->subbuf_size = tep_get_sub_buffer_size(r->tep);
	if (r->subbuf_size <= 0)
		r->subbuf_size = (int)sysconf(_SC_PAGESIZE);
	r->subbuf = malloc((size_t)r->subbuf_size);
	r->cpus = calloc((size_t)nr_possible, sizeof(*r->cpus));
	if (!r->kbuf || !r->subbuf || !r->cpus) {
		*what = "out of memory";
		errno = ENOMEM;
		goto fail;
	}
	r->nr_subbufs = (int)(t->buffer_kb * 1024 / (size_t)r->subbuf_size) + 1;
	for (cpu = 0; cpu < nr_possible; cpu++) {
		struct cpu_reader *c = &r->cpus[r->nr_cpus];
		char file[64];

		snprintf(file, sizeof(file), "per_cpu/cpu%ld/trace_pipe_raw", cpu);
		/*
		 * Close-on-exec: the recorded command must not inherit them; an open fd holds
		 * the instance, and a child that outlives the command would keep rmdir from
		 * removing it (and could read the recorder's events)
		 */
		c->fd = tracefs_instance_file_open(t->inst, file,
						   O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fd < 0) {
			if (errno == ENOENT)	/* a cpu the ring buffer does not have */
				continue;
			*what = "cannot open a cpu's trace_pipe_raw";
			goto fail;
		}
		c->cpu = (int)cpu;
		r->nr_cpus++;
		c->tcpu = tracefs_cpu_alloc_fd(c->fd, r->subbuf_size, 1);
		if (!c->tcpu) {
			*what = "out of memory";
			errno = ENOMEM;
			goto fail;
		}
	}
	if (!r->nr_cpus) {
		*what = "the instance has no per-cpu trace_pipe_raw";
		errno = ENOENT;
		goto fail;
	}
	return r;
fail:
	{
		int err = errno ? errno : EIO;

		kmem_trace_reader_close(r);
		errno = err;
	}
	return NULL;
}

/* A kernel long (4 or 8 bytes, this host's order) of a sub-buffer, unaligned. */
static unsigned long long subbuf_long(const unsigned char *p, size_t long_size)
{
	uint64_t v8;
	uint32_t v4;

	if (long_size == 8) {
		memcpy(&v8, p, sizeof(v8));
		return v8;
	}
	memcpy(&v4, p, sizeof(v4));
	return v4;
}

/*
 * The events lost before the sub-buffer just read (-1: lost, count unknown), from its
 * header: kbuffer_missed_events() says 0 whenever the sub-buffer starts with a time
 * extend, so the flags of the header's commit word (the kernel's RB_MISSED_EVENTS and
 * RB_MISSED_STORED, the count after the data when stored) are read here.
 */
static long long subbuf_missed(struct kmem_trace_reader *r)
{
	const unsigned char *sb = r->subbuf;
	/* after the header's u64 time stamp and its commit word, a kernel long */
	size_t start = (size_t)kbuffer_start_of_data(r->kbuf), long_size = start - 8, size;
	unsigned long long commit;

	commit = subbuf_long(sb + 8, long_size);
	if (!(commit & SUBBUF_MISSED_EVENTS))
		return 0;
	size = (size_t)(commit & SUBBUF_COMMIT_MASK);
	if (!(commit & SUBBUF_MISSED_STORED) ||
	    start + size + long_size > (size_t)r->subbuf_size)
		return -1;
	return (long long)subbuf_long(sb + start + size, long_size);
}

/* Every event of the sub-buffer just read to @sink; -1 when the sink fails. */
static int parse_subbuf(struct kmem_trace_reader *r, int cpu, kmem_trace_sink sink,
			void *arg)
{
	unsigned long long ts;
	void *data;
	long long missed;

	if (kbuffer_load_subbuffer(r->kbuf, r->subbuf) < 0)
		return 0;
	missed = subbuf_missed(r);
	if (missed)	/* -1: some, but the sub-buffer had no room to say how many */
		r->missed += missed > 0 ? missed : 1;
	for (data = kbuffer_read_event(r->kbuf, &ts); data;
	     data = kbuffer_next_event(r->kbuf, &ts)) {
		struct tep_record record = { 0 };
		struct kmem_trace_event e;
		struct tep_event *event;

		record.ts = ts;
		record.cpu = cpu;
		record.data = data;
		record.size = kbuffer_event_size(r->kbuf);
		event = tep_find_event_by_record(r->tep, &record);
		if (event && parse_event(event, &record, cpu, &e) && sink(&e, arg))
			return -1;
	}
	return 0;
}

/*
 * Reads up to @max sub-buffers of @c (fewer when it is empty); 0 when all went well, -1
 * with errno and *@what.
 */
static int drain_cpu(struct kmem_trace_reader *r, struct cpu_reader *c, int max,
		     kmem_trace_sink sink, void *arg, const char **what)
{
	int i;

	for (i = 0; i < max; i++) {
		int n = tracefs_cpu_read(c->tcpu, r->subbuf, 1);

		if (n < 0) {
			*what = "cannot read a cpu's trace_pipe_raw";
			return -1;
		}
		if (!n)		/* EAGAIN: read up */
			return 0;
		if (parse_subbuf(r, c->cpu, sink, arg) < 0) {
			*what = "the sink";
			return -1;
		}
	}
	return 0;
}

long long kmem_trace_reader_run(struct kmem_trace_reader *r, int stop_fd,
				kmem_trace_sink sink, void *arg, const char **what)
{
	struct pollfd *fds = calloc((size_t)r->nr_cpus + 1, sizeof(*fds));
	int i, stopping = 0;

	if (!fds) {
		*what = "out of memory";
		errno = ENOMEM;
		return -1;
	}
	r->missed = 0;
	fds[0].fd = stop_fd;
	fds[0].events = POLLIN;
	for (i = 0; i < r->nr_cpus; i++) {
		fds[i + 1].fd = r->cpus[i].fd;
		fds[i + 1].events = POLLIN;
	}
	while (!stopping) {
		if (poll(fds, (nfds_t)r->nr_cpus + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			*what = "poll";
			goto fail;
		}
		stopping = fds[0].revents != 0;
		for (i = 0; i < r->nr_cpus && !stopping; i++) {
			short ev = fds[i + 1].revents;

			/* a cpu not in the ring buffer's mask (offline): never readable */
			if (ev & (POLLERR | POLLNVAL))
				fds[i + 1].fd = -1;
			/* a buffer's worth at most: the other cpus get their turn */
			else if ((ev & POLLIN) &&
				 drain_cpu(r, &r->cpus[i], r->nr_subbufs, sink, arg, what) < 0)
				goto fail;
		}
	}
	/*
	 * Tracing is off: what the buffers hold, and no more than they can hold (twice, for
	 * the sub-buffer being written and the reader's own) if tracing were still on.
	 */
	for (i = 0; i < r->nr_cpus; i++)
		if (drain_cpu(r, &r->cpus[i], 2 * r->nr_subbufs + 2, sink, arg, what) < 0)
			goto fail;
	free(fds);
	return r->missed;
fail:
	{
		int err = errno ? errno : EIO;

		free(fds);
		errno = err;
	}
	return -1;
}
