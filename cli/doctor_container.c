// SPDX-License-Identifier: GPL-2.0
/* doctor_container.c - `rxectl doctor` inside a container: what a workload there needs (device nodes, memlock, the netns and its GIDs). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cdi.h"
#include "diag.h"
#include "doctor_checks.h"
#include "util.h"

/* How to hand a device to a container, for the fixes. */
#define GIVE_DEVICE(dev, node) \
	"on the host run `rxectl cdi` and start the container with `--device " CDI_KIND "=" dev \
	"` (podman, or docker 25+ with CDI enabled), or with `--device " node "` (podman, " \
	"docker); in Kubernetes, a node with containerd or CRI-O with CDI enabled and the spec " \
	"rxectl writes (see contrib/kubernetes/README.md), or a privileged pod"

/* Does a line of `path` start with or contain `what`? */
static bool file_has(const char *path, const char *what)
{
	FILE *f = fopen(path, "re");
	char line[512];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return found;
}

const char *doctor_container_detect(char *how, size_t len)
{
	char buf[256] = "";
	FILE *f;

	if (access("/run/.containerenv", F_OK) == 0) {
		snprintf(how, len, "/run/.containerenv");
		return "podman";
	}
	if (access("/.dockerenv", F_OK) == 0) {
		snprintf(how, len, "/.dockerenv");
		return "docker";
	}
	f = fopen("/run/systemd/container", "re");	/* systemd-nspawn, and systemd in containers */
	if (f && fgets(buf, sizeof(buf), f)) {
		static char name[64];

		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(name, sizeof(name), "%s", buf);
		snprintf(how, len, "/run/systemd/container");
		return name;
	}
	if (f)
		fclose(f);
	if (file_has("/proc/self/cgroup", "kubepods")) {
		snprintf(how, len, "the cgroup in /proc/self/cgroup");
		return "Kubernetes";
	}
	if (file_has("/proc/self/cgroup", "/docker/") || file_has("/proc/self/cgroup", "docker-")) {
		snprintf(how, len, "the cgroup in /proc/self/cgroup");
		return "docker";
	}
	if (file_has("/proc/self/cgroup", "libpod")) {
		snprintf(how, len, "the cgroup in /proc/self/cgroup");
		return "podman";
	}
	return NULL;
}

/* --- device nodes ---------------------------------------------------------------------- */

/* 0 usable, else the errno of opening it (ENOENT: not there). */
static int try_open(const char *node)
{
	struct stat st;
	int fd;

	if (stat(node, &st) < 0)
		return errno;
	if (!S_ISCHR(st.st_mode))
		return ENOTTY;
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* devnode.uverbs of one device, as a container sees it; true if usable.  `optional`: another
 * device is usable, so one not handed to this container is not a failure. */
static bool check_node(struct doctor *d, const struct rxe_dev *dev, bool optional)
{
	char uv[64], node[96];
	int err;

	if (!diag_find_uverbs(dev->name, uv, sizeof(uv))) {
		ADD(d, "devnode.uverbs", CHECK_FAIL, dev->name, NULL,
		    "%s has no uverbs device (sysfs lists none), so verbs programs cannot open it.",
		    dev->name);
		check_fix(&d->l, "on the host, load ib_uverbs (`modprobe ib_uverbs`; `rxectl up` "
			  "does) and check `rxectl doctor` there.");
		return false;
	}
	snprintf(node, sizeof(node), "/dev/infiniband/%s", uv);
	err = try_open(node);
	if (err == 0) {
		ADD(d, "devnode.uverbs", CHECK_PASS, dev->name, NULL,
		    "%s (%s's node) is in this container and opens read-write.", node, dev->name);
		return true;
	}
	if (err == ENOENT && optional) {
		ADD(d, "devnode.uverbs", CHECK_SKIP, dev->name, NULL,
		    "%s is not in this container (%s was not handed to it; another device was).",
		    node, dev->name);
		return false;
	}
	if (err == ENOENT) {
		ADD(d, "devnode.uverbs", CHECK_FAIL, dev->name, NULL,
		    "%s, the node of %s, is not in this container, so verbs programs here cannot "
		    "open %s (ibv_open_device fails; ibv_devinfo says \"Failed to open device\").",
		    node, dev->name, dev->name);
		check_fix(&d->l, GIVE_DEVICE("%s", "%s") ".", dev->name, node);
		return false;
	}
	if (err == EPERM) {
		ADD(d, "devnode.uverbs", CHECK_FAIL, dev->name, NULL,
		    "%s is in this container but opening it fails with EPERM: the container's "
		    "device cgroup does not allow it (a bind mount such as `-v /dev/infiniband:"
		    "/dev/infiniband` gives the node, not the permission).", node);
		check_fix(&d->l, "hand the device over with `--device`, which also allows it in "
			  "the device cgroup: " GIVE_DEVICE("%s", "%s") ".", dev->name, node);
		return false;
	}
	ADD(d, "devnode.uverbs", CHECK_FAIL, dev->name, NULL,
	    "%s is in this container but cannot be opened: %s.", node, strerror(err));
	if (err == EACCES)
		check_fix(&d->l, "the node's mode or owner shuts out this container's user (uid "
			  "%u); give the device with `--device %s` (the runtime creates the node "
			  "with mode 0666), or run as a user that may open it.", (unsigned)geteuid(),
			  node);
	return false;
}

static void check_rdma_cm(struct doctor *d)
{
	int err = try_open(CDI_RDMA_CM);

	if (err == 0)
		ADD(d, "devnode.rdma_cm", CHECK_PASS, NULL, NULL,
		    "%s is in this container and opens: RDMA CM programs (rping, rdma_cm based "
		    "MPI and storage) can run.", CDI_RDMA_CM);
	else
		ADD(d, "devnode.rdma_cm", CHECK_WARN, NULL, NULL,
		    "%s %s, so RDMA CM programs (rping, `rxectl ping`, rdma_cm based MPI and "
		    "storage) fail here; plain verbs programs (ibv_rc_pingpong) do not need it.",
		    CDI_RDMA_CM, err == ENOENT ? "is not in this container" :
		    err == EPERM ? "is here, but the device cgroup denies it (EPERM)" :
		    "cannot be opened");
	if (err)
		check_fix(&d->l, "%shand it over with the CDI device (`rxectl cdi` includes it when "
			  "rdma_ucm is loaded) or `--device %s`.", err == ENOENT ?
			  "on the host load rdma_ucm (`modprobe rdma_ucm`), and " : "",
			  CDI_RDMA_CM);
}

/* --- the network namespace and its GIDs ------------------------------------------------ */

/* netns.gid: a RoCE v2 GID for an address of this netns, on a usable device. */
static void check_netns_gid(struct doctor *d, const struct rxe_dev *devs, size_t n,
			    const bool *usable, bool host_netns)
{
	struct ifaddrs *ifa = NULL;
	char here[256] = "", found[160] = "";

	if (getifaddrs(&ifa) < 0)
		ifa = NULL;
	for (size_t i = 0; i < n && !found[0]; i++) {
		struct verbs_port p = { 0 };

		if (!usable[i])
			continue;
		diag_sysfs_gids(&devs[i], &p);
		for (size_t g = 0; g < p.n_gids && !found[0]; g++) {
			if (p.gids[g].type != GID_TYPE_ROCE_V2)
				continue;
			for (struct ifaddrs *a = ifa; a && !found[0]; a = a->ifa_next) {
				unsigned char raw[16] = { 0 };

				if (!a->ifa_addr)
					continue;
				if (a->ifa_addr->sa_family == AF_INET) {
					raw[10] = raw[11] = 0xff;
					memcpy(raw + 12, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, 4);
				} else if (a->ifa_addr->sa_family == AF_INET6) {
					memcpy(raw, &((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr, 16);
				} else {
					continue;
				}
				if (!memcmp(raw, p.gids[g].raw, 16))
					snprintf(found, sizeof(found), "%s has RoCE v2 GID index %u for "
						 "%s (on %s here)", devs[i].name, p.gids[g].index,
						 p.gids[g].ip, a->ifa_name);
			}
		}
		verbs_port_free(&p);
	}
	for (struct ifaddrs *a = ifa; a; a = a->ifa_next) {
		char ip[INET6_ADDRSTRLEN];
		const void *src;

		if (!a->ifa_addr || !strcmp(a->ifa_name, "lo") ||
		    (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6))
			continue;
		src = a->ifa_addr->sa_family == AF_INET ?
		      (const void *)&((struct sockaddr_in *)a->ifa_addr)->sin_addr :
		      (const void *)&((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr;
		if (!inet_ntop(a->ifa_addr->sa_family, src, ip, sizeof(ip)) ||
		    strlen(here) + strlen(ip) + 3 >= sizeof(here))
			continue;
		snprintf(here + strlen(here), sizeof(here) - strlen(here), "%s%s", here[0] ? ", " : "",
			 ip);
	}
	if (ifa)
		freeifaddrs(ifa);
	if (found[0]) {
		ADD(d, "netns.gid", CHECK_PASS, NULL, NULL,
		    "%s: RDMA CM and programs that pick the GID of their own address work here.",
		    found);
		return;
	}
	ADD(d, "netns.gid", host_netns ? CHECK_FAIL : CHECK_WARN, NULL, NULL,
	    "no rxe device handed to this container has a RoCE v2 GID for an address of its "
	    "network namespace (%s)%s.", here[0] ? here : "none but loopback",
	    host_netns ? "" : ": this container has a network namespace of its own, and rdma_rxe "
	    "sends and receives in the host's, so verbs programs work only with the host's GIDs "
	    "(ibv_rc_pingpong -g INDEX) and RDMA CM (rping, rdma_cm based MPI) cannot bind "
	    "an address here");
	if (host_netns)
		check_fix(&d->l, "on the host, give the netdev an address (`ip addr add ADDRESS/"
			  "PREFIX dev NETDEV`); the GID appears by itself.");
	else
		check_fix(&d->l, "run the container in the host's network namespace: `--network "
			  "host` (podman, docker), `hostNetwork: true` (Kubernetes); or, with a "
			  "kernel whose rdma_rxe supports network namespaces, create the rxe device "
			  "in this container's namespace.");
}

/* --- memlock --------------------------------------------------------------------------- */

static bool cap_ipc_lock(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "CapEff: %llx", &eff);
	if (f)
		fclose(f);
	return (eff >> 14) & 1;		/* CAP_IPC_LOCK */
}

static void check_memlock(struct doctor *d)
{
	struct rlimit rl;
	char cur[32];
	bool cap = cap_ipc_lock();

	getrlimit(RLIMIT_MEMLOCK, &rl);
	memlock_str(rl.rlim_cur, rl.rlim_cur == RLIM_INFINITY, cur, sizeof(cur));
	if (cap || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= MEMLOCK_SMALL) {
		ADD(d, "memlock.limit", CHECK_PASS, NULL, NULL,
		    "this container's RLIMIT_MEMLOCK is %s%s.", cur,
		    cap ? " and it has CAP_IPC_LOCK, so verbs programs may pin any amount of memory" :
		    ": verbs programs may pin that much memory");
		return;
	}
	ADD(d, "memlock.limit", CHECK_WARN, NULL, NULL,
	    "this container's RLIMIT_MEMLOCK is %s and it lacks CAP_IPC_LOCK: verbs programs "
	    "here can register (pin) only that much memory, and larger ibv_reg_mr() calls fail "
	    "with \"Cannot allocate memory\".", cur);
	check_fix(&d->l, "start the container with `--ulimit memlock=-1:-1` or `--cap-add "
		  "IPC_LOCK` (podman, docker); in Kubernetes add IPC_LOCK to the container's "
		  "securityContext.capabilities.add (its memlock limit is the container runtime's: "
		  "containerd's LimitMEMLOCK, CRI-O's default_ulimits).");
}

/* --- the run --------------------------------------------------------------------------- */

void doctor_check_container(struct doctor *d, char **args, int n_args)
{
	struct rxe_dev *devs = d->devs;
	size_t n = d->n_devs, usable_n = 0;
	bool host_netns = false, *usable;

	doctor_check_provider(d);
	doctor_check_netns(d);
	if (!d->rdma) {
		ADD(d, "device.present", CHECK_SKIP, NULL, NULL, "skipped: %s.", d->no_rdma_why);
		check_memlock(d);
		return;
	}
	usable = calloc(n + 1, sizeof(*usable));
	if (!usable)
		return;
	for (size_t i = 0; i < n; i++)
		host_netns |= devs[i].netdev[0] != '\0';	/* RDMA netlink names it only here */
	if (n == 0) {
		ADD(d, "device.present", CHECK_FAIL, NULL, NULL,
		    "no rxe device is visible in this container.");
		check_fix(&d->l, "create one on the host (`rxectl up NETDEV`, or the rxectl "
			  "DaemonSet on a Kubernetes node); in exclusive RDMA netns mode a device is "
			  "visible only in its own network namespace (`rdma dev set DEV netns NS`).");
	} else {
		char list[256] = "";

		for (size_t i = 0; i < n; i++)
			if (strlen(list) + strlen(devs[i].name) + 3 < sizeof(list))
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 i ? ", " : "", devs[i].name);
		ADD(d, "device.present", CHECK_PASS, NULL, NULL,
		    "%zu rxe device%s visible: %s; this container is in %s network namespace.", n,
		    n == 1 ? " is" : "s are", list, host_netns ? "the host's" :
		    "its own (see netns.gid)");
	}
	/* the devices asked for, else every one (one usable is enough then) */
	for (size_t i = 0; i < n; i++) {
		bool asked = n_args == 0;

		for (int k = 0; k < n_args; k++)
			asked |= !strcmp(args[k], devs[i].name) || !strcmp(args[k], devs[i].netdev);
		if (asked && try_open("/dev/infiniband") != ENOENT) {
			char uv[64], node[96];

			if (diag_find_uverbs(devs[i].name, uv, sizeof(uv)) &&
			    (snprintf(node, sizeof(node), "/dev/infiniband/%s", uv),
			     try_open(node) == 0))
				usable[i] = true, usable_n++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool asked = n_args == 0;

		for (int k = 0; k < n_args; k++)
			asked |= !strcmp(args[k], devs[i].name) || !strcmp(args[k], devs[i].netdev);
		if (asked)
			check_node(d, &devs[i], n_args == 0 && usable_n > 0);
	}
	for (int k = 0; k < n_args; k++) {
		bool known = false;

		for (size_t i = 0; i < n; i++)
			known |= !strcmp(args[k], devs[i].name) || !strcmp(args[k], devs[i].netdev);
		if (!known) {
			ADD(d, "device.present", CHECK_FAIL, args[k], NULL,
			    "there is no rxe device %s visible in this container.", args[k]);
			check_fix(&d->l, "list the devices with `rxectl status` (on the host too).");
		}
	}
	if (n)
		check_rdma_cm(d);
	if (usable_n)
		check_netns_gid(d, devs, n, usable, host_netns);
	else if (n)
		ADD(d, "netns.gid", CHECK_SKIP, NULL, NULL,
		    "skipped: no rxe device can be opened here (devnode.uverbs).");
	check_memlock(d);
	free(usable);
}
