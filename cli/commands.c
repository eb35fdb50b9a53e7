// SPDX-License-Identifier: GPL-2.0
/* commands.c - the dispatch table: one line per command; usage.c prints help from it. */
#include <stddef.h>

#include "rxectl.h"

/* One line per command; keep in the order `rxectl --help` should show. */
const struct rxectl_command rxectl_commands[] = {
	{ "up",     cmd_up,     "[NETDEV [--name NAME]] [--wait SECONDS] [--json]",
	  "create the rxe device on NETDEV, or on every netdev in the config file", cmd_up_opts },
	{ "down",   cmd_down,   "NETDEV|DEVICE|--all [--json]",
	  "delete the rxe device on NETDEV, or named DEVICE, or all of them", cmd_down_opts },
	{ "status", cmd_status, "[--json]",
	  "show every rxe device and every configured netdev that has none", NULL },
	{ "enable",  cmd_enable,  "NETDEV [--name NAME] [--now]",
	  "declare NETDEV in the config file and enable its rxe@.service", cmd_enable_opts },
	{ "disable", cmd_disable, "NETDEV [--now]",
	  "remove NETDEV from the config file and disable its rxe@.service", cmd_disable_opts },
	{ "monitor", cmd_monitor, "",
	  "keep the configured devices alive across netdev changes (rxe-monitor.service)", NULL },
	{ "udev-env", cmd_udev_env, "NETDEV",
	  "print udev environment lines saying whether NETDEV is managed (for the udev rule)", NULL },
	{ "ping",   cmd_ping,   "--listen [--port P] [DEVICE|ADDRESS] | HOST [--port P] [--count N] "
	  "[--timeout SEC] [--sizes LIST] [--json]",
	  "test RDMA to another host over RDMA CM, and name the layer that fails", cmd_ping_opts },
	{ "doctor", cmd_doctor, "[NETDEV|DEVICE...] [--json] [--host|--container]",
	  "check everything Soft-RoCE needs, and say how to fix what is wrong", cmd_doctor_opts },
	{ "test",   cmd_test,   "[DEVICE|NETDEV] [--json]",
	  "loopback verbs self-test of every RC operation on one device", NULL },
	{ "gid",    cmd_gid,    "[DEVICE|NETDEV] [--json] [--index-only]",
	  "show the GID table and the GID index applications should use", cmd_gid_opts },
	{ "stats",  cmd_stats,  "[DEVICE|NETDEV] [--json] [--watch SECONDS | --prometheus "
	  "[--output FILE]]",
	  "show the devices' counters (RDMA netlink), or their change every SECONDS",
	  cmd_stats_opts },
	{ "env",    cmd_env,    "[DEVICE|NETDEV] [--for FRAMEWORK] [--json|--shell] | --ibdev2netdev",
	  "print what UCX, NCCL, MPI, libfabric, perftest, Ceph... must be told to use a device",
	  cmd_env_opts },
	{ "debug",  cmd_debug,  "on|off|status [DEVICE] [--json]",
	  "turn rdma_rxe's debug messages in the kernel log on or off (dynamic debug)", NULL },
	{ "driver", cmd_driver, "[status | use kernel|bundled|auto [--force]] [--json]",
	  "show which rdma_rxe is loaded and installed, or switch between them", cmd_driver_opts },
	{ "tune",   cmd_tune,   "[NETDEV] [--apply [--persist | --from-config]] | --revert [--json]",
	  "show MTU, buffers, IRQ, RPS/XPS and CPU settings to tune; apply or revert them",
	  cmd_tune_opts },
	{ "memlock", cmd_memlock, "UNIT [--install | --remove] [--json]",
	  "print, install or remove the drop-in lifting a service's memlock limit for RDMA",
	  cmd_memlock_opts },
	{ "cdi",    cmd_cdi,    "[--output DIR] [--json]",
	  "write the CDI spec that hands the rxe devices to containers (podman, containerd)",
	  cmd_cdi_opts },
	{ "help",   cmd_help,   "",
	  "show this help", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};
