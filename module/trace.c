// SPDX-License-Identifier: GPL-2.0
/*
 * The slablab trace system's events, defined once here (trace.h declares them for
 * every file that fires one).
 */
#include "internal.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* The spec's design names (SLABLAB_DESIGNS), here and not the registry's: a leaf. */
#define SLABLAB_DESIGN_NAME(design, name)						\
	[SLABLAB_DESIGN_##design] = #name,
static const char *const design_names[__SLABLAB_DESIGN_MAX] = {
	SLABLAB_DESIGNS(SLABLAB_DESIGN_NAME)
};

#undef SLABLAB_DESIGN_NAME

/* The name an event gives a design (the spec's design enum). */
const char *slablab_design_name(unsigned int design)
{
	return design < __SLABLAB_DESIGN_MAX && design_names[design] ? design_names[design] :
	       "unknown";
}
