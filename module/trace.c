// SPDX-License-Identifier: GPL-2.0
/*
 * The slablab trace system's events, defined once here (trace.h declares them for
 * every file that fires one).
 */
#include "internal.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static const char *const design_names[__SLABLAB_DESIGN_MAX] = {
	[SLABLAB_DESIGN_SLUB] = "slub",
	[SLABLAB_DESIGN_SHEAVES] = "sheaves",
	[SLABLAB_DESIGN_SLAB] = "slab",
	[SLABLAB_DESIGN_SLOB] = "slob",
};

/* The name an event gives a design (the spec's design enum). */
const char *slablab_design_name(unsigned int design)
{
	return design < __SLABLAB_DESIGN_MAX && design_names[design] ? design_names[design] :
	       "unknown";
}
