/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The kmem tracepoints through libtracefs and libtraceevent, behind a C interface of
 * our own: libtracefs 1.6's header does not compile as C++ (a C-only implicit int to
 * enum conversion in an inline), so only kmem_trace.c includes it.
 */
#ifndef SLABCTL_KMEM_TRACE_H
#define SLABCTL_KMEM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kmem_trace;

/* One kmem event, pointers still addresses (the caller maps them to ids). */
struct kmem_trace_event {
	uint64_t ts_ns;
	uint64_t ptr;
	uint32_t bytes_req, bytes_alloc, gfp;
	uint16_t cpu;
	uint8_t free;		/* 1: kfree / kmem_cache_free */
	uint8_t kmalloc;	/* kmalloc* / kfree rather than kmem_cache_* */
	const char *cache;	/* kmem_cache_free's cache name, not NUL-terminated */
	size_t cache_len;
};

typedef void (*kmem_trace_fn)(const struct kmem_trace_event *e, void *arg);
/* The same for the streaming reader: nonzero stops the reading (the sink keeps errno). */
typedef int (*kmem_trace_sink)(const struct kmem_trace_event *e, void *arg);

/*
 * A tracefs instance @name with @buffer_kb a cpu, clock mono, the kmalloc and/or
 * kmem_cache events enabled (those this kernel has). NULL with *@what set to the step
 * that failed and errno set.
 */
struct kmem_trace *kmem_trace_open(const char *name, size_t buffer_kb, int kmalloc,
				   int cache, const char **what);
void kmem_trace_on(struct kmem_trace *t);
void kmem_trace_off(struct kmem_trace *t);
/* Events the ring buffers dropped: their overruns, commit overruns and dropped events. */
uint64_t kmem_trace_overruns(struct kmem_trace *t);
/* Removes the instance. */
void kmem_trace_close(struct kmem_trace *t);

struct kmem_trace_reader;

/*
 * Consuming readers of @t's per-cpu ring buffers (per_cpu/cpuN/trace_pipe_raw through
 * libtracefs' tracefs_cpu) and the kmem formats to parse what they read: opened before
 * tracing starts, so that what cannot be read fails before the command runs. NULL with
 * *@what and errno set.
 */
struct kmem_trace_reader *kmem_trace_reader_open(struct kmem_trace *t, const char **what);
/*
 * Reads each cpu's ring buffer as it fills (poll(), woken by the instance's
 * buffer_percent watermark) and hands every event to @sink as it is parsed, until
 * @stop_fd is readable; then reads what is left (tracing must be off by then: the reader
 * stops at what the buffers hold) and returns. Returns the events the sub-buffers said
 * were lost, or -1 with errno and *@what set (@sink's failure: "the sink").
 */
long long kmem_trace_reader_run(struct kmem_trace_reader *r, int stop_fd,
				kmem_trace_sink sink, void *arg, const char **what);
void kmem_trace_reader_close(struct kmem_trace_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* SLABCTL_KMEM_TRACE_H */
