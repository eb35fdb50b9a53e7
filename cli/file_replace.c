// SPDX-License-Identifier: GPL-2.0
/* file_replace.c - replace a file atomically (the Prometheus textfile, the CDI spec). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_replace.h"

int file_replace(const char *path, const char *text, size_t len)
{
	char tmp[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, err = 0;
	size_t off = 0;

	/* the same directory, so rename() is atomic; a hidden name with a random suffix, which
	 * readers of a directory of *.prom or *.yaml files skip */
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0)
		err = -errno;
	while (!err && off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			err = -errno;
		else
			off += (size_t)w;
	}
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
