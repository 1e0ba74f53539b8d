/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels slablab builds for (Debian's 6.1, 6.12 and 7.x), in
 * one place, so that the code elsewhere reads as it would upstream on the newest. Kbuild
 * probes the kernel's headers for each interface (SLABLAB_HAVE_*): a version number
 * would be wrong on a kernel that backported it.
 */
#ifndef _SLABLAB_COMPAT_H
#define _SLABLAB_COMPAT_H

#include <linux/workqueue.h>

/*
 * 6.17 made a workqueue say whether it is per-cpu or unbound (a missing flag warns: it
 * will become unbound by default); before, per-cpu was the default and there was no flag.
 */
#ifdef SLABLAB_HAVE_WQ_PERCPU
#define SLABLAB_WQ_PERCPU WQ_PERCPU
#else
#define SLABLAB_WQ_PERCPU 0
#endif

#endif /* _SLABLAB_COMPAT_H */
