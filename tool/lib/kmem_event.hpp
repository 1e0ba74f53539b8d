// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl (internal): one kmem event of the C readers (kmem_trace.c, dat_trace.c) as
// build_trace() takes it; the recorder and the .dat importer share it.
#pragma once

#include "kmem_trace.h"
#include "slabctl/trace.hpp"

namespace slabctl {

inline RawEvent raw_event(const kmem_trace_event& k)
{
	RawEvent e;
	e.ts_ns = k.ts_ns;
	e.ptr = k.ptr;
	e.bytes_req = k.bytes_req;
	e.bytes_alloc = k.bytes_alloc;
	e.gfp = k.gfp;
	e.cpu = k.cpu;
	e.kmalloc = k.kmalloc != 0;
	e.op = k.free ? TraceOp::free : TraceOp::alloc;
	if (k.cache)
		e.cache.assign(k.cache, k.cache_len);
	return e;
}

}  // namespace slabctl
