/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What debugfs.c and selftest.c share: reading a word written to a file, and the calls
 * through which debugfs.c, which makes slablab's debugfs directories, has selftest.c
 * add the test hooks' files to them (selftests=1 only). Included by those two alone.
 *
 * Locking: none here. debugfs.c calls slablab_selftest_debugfs_init() at module init,
 * before any cache exists, and slablab_selftest_debugfs_add_cache() from cache.c's
 * observer, slablab_mutex held; selftest.c's top has the hooks' own locks.
 */
#ifndef _SLABLAB_DEBUGFS_H
#define _SLABLAB_DEBUGFS_H

#include <linux/uaccess.h>
#include <linux/string.h>
#include "internal.h"

struct dentry;

/* A word written to a file, without surrounding white space, into @buf of @size. */
static inline int copy_word(char *buf, size_t size, const char __user *ubuf, size_t len)
{
	char *word;

	if (len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	word = strim(buf);
	memmove(buf, word, strlen(word) + 1);
	return 0;
}

/* Which of @names[0..@n) a word written to a file is (NULL entries match none). */
static inline int parse_name(const char __user *ubuf, size_t len, const char *const *names,
			     int n)
{
	char buf[16];
	int i, err;

	err = copy_word(buf, sizeof(buf), ubuf, len);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(buf, names[i]))
			return i;
	return -EINVAL;
}

/* selftest.c: the test hooks' files (selftests=1 only) */
void slablab_selftest_debugfs_init(struct dentry *root);
void slablab_selftest_debugfs_add_cache(struct slablab_cache *s, struct dentry *dir);

#endif /* _SLABLAB_DEBUGFS_H */
