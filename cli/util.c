// SPDX-License-Identifier: GPL-2.0
/* util.c - the one home of rxectl's small file helpers: one line of a sysfs/proc file, one value
 * written to one. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

int write_line(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	int err = 0;

	if (!f)
		return -errno;
	if (fprintf(f, "%s\n", text) < 0)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	return err;
}
