/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * trace-cmd .dat files through libtracecmd, behind a C interface of our own: its header
 * includes libtracefs', which does not compile as C++ (kmem_trace.h), so only
 * dat_trace.c includes it.
 */
#ifndef SLABCTL_DAT_TRACE_H
#define SLABCTL_DAT_TRACE_H

#include "kmem_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dat_trace_counts {
	uint64_t missed_events;	/* records' missed_events: what the ring buffers dropped */
	uint64_t other_events;	/* records of other events */
	uint64_t null_pointers;	/* failed allocations, kfree(NULL)/(ZERO_SIZE_PTR) */
};

/*
 * Every kmem allocation and free of the .dat file @file to @fn, in time order, the
 * fields read by name with libtraceevent from the file's own event formats: those of
 * the top buffer, or when it has none those of the first buffer instance that has some. Returns 0,
 * or -1 with errno set and *@what saying what failed.
 */
int dat_trace_read(const char *file, kmem_trace_fn fn, void *arg,
		   struct dat_trace_counts *counts, const char **what);

#ifdef __cplusplus
}
#endif

#endif /* SLABCTL_DAT_TRACE_H */
