/* SPDX-License-Identifier: GPL-2.0 */
/* util.h - the one home of rxectl's small helpers: array size, the monotonic clock, one-line files. */
#ifndef RXECTL_UTIL_H
#define RXECTL_UTIL_H

#include <stdint.h>
#include <string.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The bundled driver's module version and device firmware version start with this. */
#define RXE_BUNDLED_PREFIX "rxectl-bundled"
#define rxe_is_bundled_version(v) (strncmp((v), RXE_BUNDLED_PREFIX, sizeof(RXE_BUNDLED_PREFIX) - 1) == 0)

/* CLOCK_MONOTONIC in nanoseconds, and in seconds for deadlines that are doubles. */
static inline int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline double mono_sec(void)
{
	return (double)mono_ns() / 1e9;
}

/* One line of a (sysfs, proc) file into buf, without its newline; "" if it cannot be read. */
void read_line(const char *path, char *buf, size_t len);
/* Write text and a newline to a (sysfs, proc, control) file: 0 or -errno. */
int write_line(const char *path, const char *text);

#endif
