// SPDX-License-Identifier: GPL-2.0
/* doctor_memlock.c - the doctor's memlock.limit check: this process's locked-memory limit and what services get (a drop-in, systemd's default). */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "doctor_checks.h"
#include "sdbus.h"
#include "util.h"

/* --- memlock --------------------------------------------------------------------------- */

static bool have_cap_ipc_lock(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;
	bool found = false;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			found = true;
	if (f)
		fclose(f);
	return found ? (eff >> 14) & 1 : geteuid() == 0;	/* CAP_IPC_LOCK is 14 */
}

/* "infinity", "65536", "64K", "8M", "1G" (systemd's LimitMEMLOCK= values); false if not. */
static bool parse_limit(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (!strncmp(v, "infinity", 8)) {
		*out = UINT64_MAX;
		return true;
	}
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v)
		return false;
	switch (*end) {
	case 'K': case 'k': n <<= 10; break;
	case 'M': case 'm': n <<= 20; break;
	case 'G': case 'g': n <<= 30; break;
	case 'T': case 't': n <<= 40; break;
	default: break;
	}
	*out = n;
	return true;
}

/*
 * A LimitMEMLOCK= in a drop-in for every service (service.d/, as rxectl's
 * 50-rxe-memlock.conf), which overrides DefaultLimitMEMLOCK.  The first
 * directory that has one wins, as /etc overrides /run overrides /usr.
 */
static bool service_dropin_memlock(uint64_t *lim, char *file, size_t len)
{
	static const char *const dirs[] = { "/etc/systemd/system/service.d",
		"/run/systemd/system/service.d", "/usr/local/lib/systemd/system/service.d",
		"/usr/lib/systemd/system/service.d", "/lib/systemd/system/service.d" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char pattern[96];
		bool found = false;
		glob_t g;

		snprintf(pattern, sizeof(pattern), "%s/*.conf", dirs[i]);
		if (glob(pattern, 0, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++) {	/* sorted: the last one wins */
			FILE *f = fopen(g.gl_pathv[k], "re");
			char line[256];

			while (f && fgets(line, sizeof(line), f)) {
				const char *v = line + strspn(line, " \t");

				if (!strncmp(v, "LimitMEMLOCK=", 13) && parse_limit(v + 13, lim)) {
					snprintf(file, len, "%s", g.gl_pathv[k]);
					found = true;
				}
			}
			if (f)
				fclose(f);
		}
		globfree(&g);
		if (found)
			return true;
	}
	return false;
}

/* How a service gets rxectl's opt-in memlock drop-in (rxe@.service(8)). */
#define SERVICE_DROPIN_FIX \
	"`rxectl memlock UNIT --install` (it writes /usr/share/rxectl/memlock.conf's two lines " \
	"to /etc/systemd/system/UNIT.service.d/50-rxe-memlock.conf and reloads systemd), then " \
	"restart UNIT (or `systemctl edit UNIT`)."

/* What services get: a service.d drop-in's LimitMEMLOCK=, else systemd's DefaultLimitMEMLOCK. */
static int service_memlock(uint64_t *soft, char *from, size_t len)
{
	if (access("/run/systemd/system", F_OK) != 0)
		return -ENOENT;
	if (service_dropin_memlock(soft, from, len))
		return 0;
	snprintf(from, len, "DefaultLimitMEMLOCK");
	return sdbus_default_memlock(soft);
}

void doctor_check_memlock(struct doctor *d)
{
	struct rlimit rl;
	char cur[32], max[32], svc[32] = "", from[256] = "";
	bool cap = have_cap_ipc_lock(), small, svc_small = false;
	uint64_t s = 0;
	/* Scoped, never for everyone (issue 14): the group rdma, and services by name. */
	const char *fix = "add the users who run RDMA programs to the group rdma (`usermod -aG rdma "
			  "USER`, then log in again): rxectl's /etc/security/limits.d/"
			  "50-rxe-memlock.conf lifts the limit for that group only; a service that runs "
			  "them needs `LimitMEMLOCK=infinity`: " SERVICE_DROPIN_FIX;

	getrlimit(RLIMIT_MEMLOCK, &rl);
	memlock_str(rl.rlim_cur, rl.rlim_cur == RLIM_INFINITY, cur, sizeof(cur));
	memlock_str(rl.rlim_max, rl.rlim_max == RLIM_INFINITY, max, sizeof(max));
	small = rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < MEMLOCK_SMALL;
	if (service_memlock(&s, from, sizeof(from)) == 0) {
		memlock_str(s, s == UINT64_MAX, svc, sizeof(svc));
		svc_small = s != UINT64_MAX && s < MEMLOCK_SMALL;
	}
	if (small && !cap) {
		ADD(d, "memlock.limit", CHECK_WARN, NULL, fix,
		    "your RLIMIT_MEMLOCK is %s (hard limit %s): verbs programs you run can register "
		    "(pin) only that much memory, and larger ibv_reg_mr() calls fail with \"Cannot "
		    "allocate memory\"%s%s%s%s%s.", cur, max, svc[0] ? "; systemd services get " : "",
		    svc, svc[0] ? " (" : "", from, svc[0] ? ")" : "");
	} else if (svc_small) {
		ADD(d, "memlock.limit", CHECK_WARN, NULL, NULL,
		    "your RLIMIT_MEMLOCK is %s%s, but systemd services get %s (%s): a service "
		    "without CAP_IPC_LOCK can pin only that much memory for RDMA.",
		    cur, cap ? " and you have CAP_IPC_LOCK" : "", svc, from);
		check_fix(&d->l, "give each service that runs RDMA programs `LimitMEMLOCK=infinity`, "
			  "by name and no other: " SERVICE_DROPIN_FIX);
	} else if (small) {
		ADD(d, "memlock.limit", CHECK_PASS, NULL, NULL,
		    "your RLIMIT_MEMLOCK is %s (hard limit %s), but you run with CAP_IPC_LOCK (as "
		    "root), which lets the kernel pin memory for RDMA beyond that limit; users and "
		    "services without CAP_IPC_LOCK are held to their own limit (limits.d, "
		    "LimitMEMLOCK=)%s%s%s%s%s.", cur, max, svc[0] ? "; systemd services get " : "",
		    svc, svc[0] ? " (" : "", from, svc[0] ? ")" : "");
	} else {
		ADD(d, "memlock.limit", CHECK_PASS, NULL, NULL,
		    "your RLIMIT_MEMLOCK is %s%s%s%s%s%s%s.", cur,
		    cap ? " (and CAP_IPC_LOCK lifts it anyway)" : "",
		    svc[0] ? "; systemd services get " : "", svc, svc[0] ? " (" : "", from,
		    svc[0] ? ")" : "");
	}
}
