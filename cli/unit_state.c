// SPDX-License-Identifier: GPL-2.0
/* unit_state.c - the record of the netdev instance an rxe@ unit's start acted on (see unit_state.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "unit_state.h"
#include "util.h"

#ifndef RXECTL_RUNSTATEDIR
#define RXECTL_RUNSTATEDIR "/run"
#endif
#define UNIT_STATE_DIR RXECTL_RUNSTATEDIR "/rxectl/units"

/* The record's path, or NULL when not run by a unit (or the names are unusable as a file name). */
static const char *state_path(char *buf, size_t len, const char **invocation)
{
	const char *unit = getenv("RXECTL_UNIT"), *inv = getenv("INVOCATION_ID");

	if (!unit || !*unit || !inv || !*inv || strchr(unit, '/') || unit[0] == '.' ||
	    strlen(inv) > 64 || strchr(inv, ' ') || strchr(inv, '\n'))
		return NULL;
	if ((size_t)snprintf(buf, len, "%s/%s", UNIT_STATE_DIR, unit) >= len)
		return NULL;
	*invocation = inv;
	return buf;
}

int unit_state_record(const char *netdev, int ifindex)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], line[160];
	const char *inv;
	int err;

	if (!state_path(path, sizeof(path), &inv))
		return 0;
	if ((mkdir(RXECTL_RUNSTATEDIR "/rxectl", 0755) < 0 && errno != EEXIST) ||
	    (mkdir(UNIT_STATE_DIR, 0755) < 0 && errno != EEXIST))
		goto fail;
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	snprintf(line, sizeof(line), "%s %d %s", inv, ifindex, netdev);
	err = write_line(tmp, line);
	if (err == 0 && rename(tmp, path) < 0)
		err = -errno;
	if (err < 0) {
		unlink(tmp);
		errno = -err;
		goto fail;
	}
	log_debug("recorded %s (ifindex %d) for this unit in %s", netdev, ifindex, path);
	return 0;
fail:
	err = -errno;
	/* Not fatal: the stop then deletes by name, as outside a unit. */
	log_warn("cannot record which %s this unit was started for in %s: %s; its stop deletes "
		 "the rxe device on %s by name.", netdev, UNIT_STATE_DIR, strerror(-err), netdev);
	return err;
}

int unit_state_ifindex(const char *netdev)
{
	char path[PATH_MAX], line[256], inv_rec[72], nd_rec[64];
	const char *inv;
	int ifindex;

	if (!state_path(path, sizeof(path), &inv))
		return -1;
	read_line(path, line, sizeof(line));
	if (!line[0])
		return -1;	/* none recorded */
	if (sscanf(line, "%71s %d %63s", inv_rec, &ifindex, nd_rec) != 3 || ifindex < 0) {
		log_warn("ignoring %s: it is not a record written by rxectl up.", path);
		return -1;
	}
	if (strcmp(inv_rec, inv) || strcmp(nd_rec, netdev))
		return -1;	/* an earlier invocation's, or another netdev's: not ours */
	return ifindex;
}

void unit_state_forget(void)
{
	char path[PATH_MAX];
	const char *inv;

	if (state_path(path, sizeof(path), &inv))
		unlink(path);
}
