// SPDX-License-Identifier: GPL-2.0
/*
 * env.c - what each RDMA framework must be told about one device (`rxectl env`), as data.
 *
 * Every name below is the framework's own, checked against the version Debian 12 ships where it
 * ships one (`ucx_info -f`, `fi_info -e`, qperf(1), rping(1), perftest's --help) and against
 * the project's documentation otherwise (NCCL's environment variables, Open MPI's MCA
 * parameters, Ceph's ms_async_rdma_* options, SPDK's rpc.py).  Nothing here is guessed: a
 * framework that needs no GID (RDMA CM resolves it from the IP address) gets none.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "env.h"

static const struct {
	const char *name;
	const char *title;
} frameworks[ENV_FW_COUNT] = {
	[ENV_UCX]       = { "ucx",       "UCX (ucx_perftest, and what runs on UCX: Open MPI, "
					 "OpenSHMEM, UCX-Py)" },
	[ENV_NCCL]      = { "nccl",      "NCCL (its IB/RoCE transport)" },
	[ENV_OPENMPI]   = { "openmpi",   "Open MPI with the UCX PML" },
	[ENV_LIBFABRIC] = { "libfabric", "libfabric's verbs provider (fi_pingpong, MPICH, "
					 "Intel MPI)" },
	[ENV_PERFTEST]  = { "perftest",  "perftest (ib_write_bw, ib_read_lat, ...)" },
	[ENV_QPERF]     = { "qperf",     "qperf over RDMA CM" },
	[ENV_RPING]     = { "rping",     "rping (librdmacm's RDMA CM ping)" },
	[ENV_CEPH]      = { "ceph",      "Ceph's RDMA messenger (ceph.conf, [global])" },
	[ENV_SPDK]      = { "spdk",      "SPDK's NVMe-oF RDMA transport (scripts/rpc.py)" },
};

int env_framework_parse(const char *name)
{
	if (!strcmp(name, "all"))
		return ENV_FW_COUNT;
	for (int i = 0; i < ENV_FW_COUNT; i++)
		if (!strcmp(name, frameworks[i].name))
			return i;
	return -1;
}

const char *env_framework_name(enum env_fw fw)
{
	return fw < ENV_FW_COUNT ? frameworks[fw].name : "?";
}

const char *env_framework_title(enum env_fw fw)
{
	return fw < ENV_FW_COUNT ? frameworks[fw].title : "?";
}

struct items {
	struct env_item *v;
	size_t n, max;
};

static void add(struct items *it, enum env_kind kind, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(struct items *it, enum env_kind kind, const char *name, const char *fmt, ...)
{
	struct env_item *e;
	va_list ap;

	if (it->n >= it->max)
		return;
	e = &it->v[it->n++];
	e->kind = kind;
	snprintf(e->name, sizeof(e->name), "%s", name);
	va_start(ap, fmt);
	vsnprintf(e->value, sizeof(e->value), fmt, ap);
	va_end(ap);
}

/* Ceph reads ms_async_rdma_local_gid as eight groups of four hex digits, nothing compressed. */
static void ceph_gid(const uint8_t *raw, char *buf, size_t len)
{
	size_t o = 0;

	for (int i = 0; i < 16 && o < len; i += 2)
		o += (size_t)snprintf(buf + o, len - o, "%s%02x%02x", i ? ":" : "", raw[i], raw[i + 1]);
}

size_t env_items(const struct env_target *t, enum env_fw fw, struct env_item *out, size_t max)
{
	struct items it = { out, 0, max };
	const char *d = t->device, *ip = t->ip;
	unsigned int p = t->port;
	int g = t->gid_index;
	char gid[48];

	switch (fw) {
	case ENV_UCX:
		add(&it, ENV_VAR, "UCX_NET_DEVICES", "%s:%u", d, p);
		add(&it, ENV_VAR, "UCX_IB_GID_INDEX", "%d", g);
		add(&it, ENV_CMD, "server", "ucx_perftest -t tag_bw");
		add(&it, ENV_CMD, "client", "ucx_perftest SERVER -t tag_bw");
		break;
	case ENV_NCCL:
		/* a leading '=' makes NCCL match the name exactly, not as a prefix */
		add(&it, ENV_VAR, "NCCL_IB_HCA", "=%s:%u", d, p);
		add(&it, ENV_VAR, "NCCL_IB_GID_INDEX", "%d", g);
		add(&it, ENV_VAR, "NCCL_SOCKET_IFNAME", "=%s", t->netdev);
		break;
	case ENV_OPENMPI:
		add(&it, ENV_VAR, "OMPI_MCA_pml", "ucx");
		add(&it, ENV_VAR, "OMPI_MCA_osc", "ucx");
		add(&it, ENV_VAR, "UCX_NET_DEVICES", "%s:%u", d, p);
		add(&it, ENV_VAR, "UCX_IB_GID_INDEX", "%d", g);
		add(&it, ENV_CMD, "run", "mpirun --mca pml ucx -x UCX_NET_DEVICES=%s:%u "
		    "-x UCX_IB_GID_INDEX=%d -H HOST1,HOST2 PROGRAM", d, p, g);
		break;
	case ENV_LIBFABRIC:
		add(&it, ENV_VAR, "FI_PROVIDER", "verbs");
		add(&it, ENV_VAR, "FI_VERBS_DEVICE_NAME", "%s", d);
		add(&it, ENV_VAR, "FI_VERBS_IFACE", "%s", t->netdev);
		add(&it, ENV_VAR, "FI_VERBS_GID_IDX", "%d", g);
		add(&it, ENV_CMD, "server", "fi_pingpong -p verbs -e msg");
		add(&it, ENV_CMD, "client", "fi_pingpong -p verbs -e msg SERVER");
		break;
	case ENV_PERFTEST:
		add(&it, ENV_ARGS, "RXE_PERFTEST_ARGS", "-d %s -i %u -x %d", d, p, g);
		add(&it, ENV_CMD, "server", "ib_write_bw -d %s -i %u -x %d", d, p, g);
		add(&it, ENV_CMD, "client", "ib_write_bw -d %s -i %u -x %d SERVER", d, p, g);
		break;
	case ENV_QPERF:
		/* qperf takes no GID index and, over RDMA CM, no device either (it warns that -li
		 * is not used): -cm1 has RDMA CM pick both from the address; without it qperf
		 * takes the first device's GID 0, which is no RoCE v2 GID of an address */
		add(&it, ENV_ARGS, "RXE_QPERF_ARGS", "-cm1");
		add(&it, ENV_CMD, "server", "qperf");
		add(&it, ENV_CMD, "client", "qperf -cm1 SERVER rc_bw rc_lat");
		break;
	case ENV_RPING:
		add(&it, ENV_ARGS, "RXE_RPING_SERVER_ARGS", "-s -a %s", ip);
		add(&it, ENV_ARGS, "RXE_RPING_CLIENT_ARGS", "-c -I %s", ip);
		add(&it, ENV_CMD, "server", "rping -s -a %s -v -C 10", ip);
		add(&it, ENV_CMD, "client", "rping -c -I %s -a SERVER -v -C 10", ip);
		break;
	case ENV_CEPH:
		ceph_gid(t->gid_raw, gid, sizeof(gid));
		add(&it, ENV_CONF, "ms_type", "async+rdma");
		add(&it, ENV_CONF, "ms_async_rdma_device_name", "%s", d);
		add(&it, ENV_CONF, "ms_async_rdma_port_num", "%u", p);
		add(&it, ENV_CONF, "ms_async_rdma_gid_idx", "%d", g);
		add(&it, ENV_CONF, "ms_async_rdma_local_gid", "%s", gid);
		add(&it, ENV_CONF, "ms_async_rdma_roce_ver", "2");
		break;
	case ENV_SPDK:
		add(&it, ENV_ARGS, "RXE_SPDK_LISTEN_ARGS", "-t rdma -a %s -s 4420", ip);
		add(&it, ENV_CMD, "target", "scripts/rpc.py nvmf_create_transport -t RDMA");
		add(&it, ENV_CMD, "listener", "scripts/rpc.py nvmf_subsystem_add_listener NQN -t rdma "
		    "-a %s -s 4420", ip);
		add(&it, ENV_CMD, "initiator", "scripts/rpc.py bdev_nvme_attach_controller -b Nvme0 "
		    "-t rdma -a SERVER -s 4420 -n NQN");
		break;
	case ENV_FW_COUNT:
		break;
	}
	return it.n;
}

char *env_shell_quote(const char *value, char *buf, size_t len)
{
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				   "0123456789_@%+=:,./-";
	size_t o = 0;

	if (*value && strspn(value, safe) == strlen(value)) {
		if (strlen(value) >= len)
			return NULL;
		memcpy(buf, value, strlen(value) + 1);
		return buf;
	}
	if (len < 3)
		return NULL;
	buf[o++] = '\'';
	for (const char *s = value; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t pl = piece ? 4 : 1;

		if (o + pl + 2 > len)
			return NULL;
		if (piece)
			memcpy(buf + o, piece, pl);
		else
			buf[o] = *s;
		o += pl;
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}
