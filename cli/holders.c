// SPDX-License-Identifier: GPL-2.0
/* holders.c - the processes that have an RDMA device open, from /proc/PID/fd. */
#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "holders.h"

/* Does process `pid` have `node` ("/dev/infiniband/uverbs0") open? */
static bool has_open(const char *pid, const char *node)
{
	char dir[288], path[576], target[256];
	struct dirent *e;
	bool found = false;
	DIR *fds;
	ssize_t n;

	snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
	fds = opendir(dir);
	if (!fds)
		return false;	/* gone meanwhile, or not ours to read */
	while (!found && (e = readdir(fds))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = !strcmp(target, node);
	}
	closedir(fds);
	return found;
}

static void comm_of(const char *pid, char *comm, size_t len)
{
	char path[288];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	snprintf(comm, len, "?");
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

int holders_of(const char *ibdev, char *buf, size_t len, int max)
{
	char uverbs[64], node[96], comm[32];
	struct dirent *e;
	int found = 0;
	size_t used;
	DIR *proc;

	if (len)
		buf[0] = '\0';
	if (!diag_find_uverbs(ibdev, uverbs, sizeof(uverbs)))
		return 0;
	snprintf(node, sizeof(node), "/dev/infiniband/%s", uverbs);
	proc = opendir("/proc");
	if (!proc)
		return 0;
	while ((e = readdir(proc))) {
		if (!isdigit((unsigned char)e->d_name[0]) || !has_open(e->d_name, node))
			continue;
		used = strlen(buf);
		if (found < max) {
			comm_of(e->d_name, comm, sizeof(comm));
			snprintf(buf + used, len - used, "%s%s (%s)", found ? ", " : "", e->d_name, comm);
		} else if (found == max) {
			snprintf(buf + used, len - used, ", ...");
		}
		found++;
	}
	closedir(proc);
	return found;
}
