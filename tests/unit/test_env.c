// SPDX-License-Identifier: GPL-2.0
/* test_env.c - `rxectl env`'s settings per framework, the --for words, shell quoting. */
#include <string.h>
#include <sys/socket.h>

#include "env.h"
#include "tap.h"

static const uint8_t raw4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1 };
static const struct env_target t4 = {
	.device = "rxe_eth0", .port = 1, .netdev = "eth0", .gid_index = 1, .gid_raw = raw4,
	.gid = "::ffff:192.0.2.1", .ip = "192.0.2.1", .ip_family = AF_INET, .active_mtu = 1024,
};

/* The value of item `name` of framework fw, or NULL. */
static const char *item(enum env_fw fw, enum env_kind kind, const char *name)
{
	static struct env_item it[16];
	size_t n = env_items(&t4, fw, it, 16);

	for (size_t i = 0; i < n; i++)
		if (it[i].kind == kind && !strcmp(it[i].name, name))
			return it[i].value;
	return NULL;
}

static int eq(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

int main(void)
{
	char q[64];
	struct env_item few[2];

	tap_plan(26);
	ok(env_framework_parse("ucx") == ENV_UCX && env_framework_parse("spdk") == ENV_SPDK,
	   "--for words name their framework");
	ok(env_framework_parse("all") == ENV_FW_COUNT, "--for all is every framework");
	ok(env_framework_parse("UCX") == -1 && env_framework_parse("") == -1 &&
	   env_framework_parse("mpi") == -1, "unknown --for words are refused (exact, lower case)");
	for (int i = 0; i < ENV_FW_COUNT; i++)
		if (env_framework_parse(env_framework_name(i)) != i)
			ok(0, "framework %d's name parses back", i);

	ok(eq(item(ENV_UCX, ENV_VAR, "UCX_NET_DEVICES"), "rxe_eth0:1"), "UCX: device:port");
	ok(eq(item(ENV_UCX, ENV_VAR, "UCX_IB_GID_INDEX"), "1"), "UCX: the GID index");
	ok(eq(item(ENV_NCCL, ENV_VAR, "NCCL_IB_HCA"), "=rxe_eth0:1"), "NCCL: the HCA, exact match");
	ok(eq(item(ENV_NCCL, ENV_VAR, "NCCL_IB_GID_INDEX"), "1"), "NCCL: the GID index");
	ok(eq(item(ENV_NCCL, ENV_VAR, "NCCL_SOCKET_IFNAME"), "=eth0"), "NCCL: the netdev, exact");
	ok(eq(item(ENV_OPENMPI, ENV_VAR, "OMPI_MCA_pml"), "ucx"), "Open MPI: the UCX PML");
	ok(eq(item(ENV_OPENMPI, ENV_CMD, "run"), "mpirun --mca pml ucx -x UCX_NET_DEVICES=rxe_eth0:1 "
	      "-x UCX_IB_GID_INDEX=1 -H HOST1,HOST2 PROGRAM"), "Open MPI: the mpirun line");
	ok(eq(item(ENV_LIBFABRIC, ENV_VAR, "FI_PROVIDER"), "verbs") &&
	   eq(item(ENV_LIBFABRIC, ENV_VAR, "FI_VERBS_DEVICE_NAME"), "rxe_eth0") &&
	   eq(item(ENV_LIBFABRIC, ENV_VAR, "FI_VERBS_IFACE"), "eth0") &&
	   eq(item(ENV_LIBFABRIC, ENV_VAR, "FI_VERBS_GID_IDX"), "1"), "libfabric: verbs, device, "
	   "netdev, GID index");
	ok(eq(item(ENV_PERFTEST, ENV_ARGS, "RXE_PERFTEST_ARGS"), "-d rxe_eth0 -i 1 -x 1"),
	   "perftest: -d -i -x");
	ok(eq(item(ENV_PERFTEST, ENV_CMD, "client"), "ib_write_bw -d rxe_eth0 -i 1 -x 1 SERVER"),
	   "perftest: the client line");
	ok(eq(item(ENV_QPERF, ENV_ARGS, "RXE_QPERF_ARGS"), "-cm1"),
	   "qperf: RDMA CM (which picks device and GID from the address)");
	ok(eq(item(ENV_RPING, ENV_ARGS, "RXE_RPING_SERVER_ARGS"), "-s -a 192.0.2.1") &&
	   eq(item(ENV_RPING, ENV_ARGS, "RXE_RPING_CLIENT_ARGS"), "-c -I 192.0.2.1"),
	   "rping: the address the GID maps to");
	ok(eq(item(ENV_CEPH, ENV_CONF, "ms_async_rdma_local_gid"),
	      "0000:0000:0000:0000:0000:ffff:c000:0201"), "Ceph: the GID as 8 groups of 4 digits");
	ok(eq(item(ENV_CEPH, ENV_CONF, "ms_async_rdma_device_name"), "rxe_eth0") &&
	   eq(item(ENV_CEPH, ENV_CONF, "ms_async_rdma_gid_idx"), "1") &&
	   eq(item(ENV_CEPH, ENV_CONF, "ms_type"), "async+rdma"), "Ceph: messenger, device, index");
	ok(eq(item(ENV_SPDK, ENV_ARGS, "RXE_SPDK_LISTEN_ARGS"), "-t rdma -a 192.0.2.1 -s 4420"),
	   "SPDK: the listener's address");
	ok(item(ENV_RPING, ENV_VAR, "RXE_RPING_SERVER_ARGS") == NULL,
	   "rxectl's own variables are not framework variables");
	ok(env_items(&t4, ENV_UCX, few, 2) == 2, "env_items stops at max");

	ok(eq(env_shell_quote("rxe_eth0:1", q, sizeof(q)), "rxe_eth0:1"), "plain words unquoted");
	ok(eq(env_shell_quote("-d rxe0 -x 1", q, sizeof(q)), "'-d rxe0 -x 1'"), "spaces quoted");
	ok(eq(env_shell_quote("a'b", q, sizeof(q)), "'a'\\''b'"), "a quote closed, escaped, reopened");
	ok(eq(env_shell_quote("$(reboot)`x`", q, sizeof(q)), "'$(reboot)`x`'"),
	   "command substitution stays text");
	ok(eq(env_shell_quote("", q, sizeof(q)), "''"), "the empty value is ''");
	ok(env_shell_quote("a b c d", q, 5) == NULL && env_shell_quote("abcdef", q, 6) == NULL,
	   "too small a buffer is refused");
	return tap_done();
}
