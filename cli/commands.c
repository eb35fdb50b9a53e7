// SPDX-License-Identifier: GPL-2.0
/* commands.c - the dispatch table, and the help and usage text generated from it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "opts.h"
#include "output.h"
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
	{ "doctor", cmd_doctor, "[NETDEV|DEVICE...] [--json]",
	  "check everything Soft-RoCE needs, and say how to fix what is wrong", NULL },
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
	{ "tune",   cmd_tune,   "[NETDEV] [--apply [--persist | --from-config] | --revert] [--json]",
	  "show MTU, buffers, IRQ, RPS/XPS and CPU settings to tune; apply or revert them",
	  cmd_tune_opts },
	{ "memlock", cmd_memlock, "UNIT [--install | --remove] [--json]",
	  "print, install or remove the drop-in lifting a service's memlock limit for RDMA",
	  cmd_memlock_opts },
	{ "help",   cmd_help,   "",
	  "show this help", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static bool help_shown;

bool rxectl_help_shown(void)
{
	return help_shown;
}

void rxectl_help(FILE *fp)
{
	static const struct opt_spec version[] = {
		{ "version", 0, NULL, "show the version", NULL, 1 },
		{ NULL },
	};

	help_shown |= fp == stdout;
	fprintf(fp,
		"usage: rxectl [-c FILE] [--json] [-v] COMMAND [ARGS...]\n"
		"       rxectl --version | --help\n"
		"\n"
		"Manage Soft-RoCE (rdma_rxe) devices.\n"
		"\n"
		"Commands:\n");
	for (const struct rxectl_command *c = rxectl_commands; c->name; c++)
		fprintf(fp, "  %-8s %s\n", c->name, c->help);
	fprintf(fp,
		"\n"
		"Options (before or after the command):\n");
	opts_print_help(fp, opts_global, NULL);
	opts_print_help(fp, version, NULL);
	fprintf(fp,
		"`rxectl COMMAND --help` shows a command's usage and options.\n"
		"\n"
		"Exit status: 0 success, 1 the operation failed, 2 usage error or bad input,\n"
		"3 the netdev is not there or went away (up, the units' tune hook; a warning).\n"
		"See rxectl(8) and rxe.conf(5).\n");
}

void rxectl_command_usage(const char *name, bool to_stdout)
{
	FILE *fp = to_stdout ? stdout : stderr;

	help_shown |= to_stdout;
	for (const struct rxectl_command *c = rxectl_commands; c->name; c++)
		if (!strcmp(c->name, name)) {
			fprintf(fp, "usage: rxectl %s%s%s\n", c->name, *c->args ? " " : "", c->args);
			if (!to_stdout)
				return;
			fprintf(fp, "%s.\n", c->help);
			if (c->opts && c->opts[0].name) {
				fprintf(fp, "\nOptions:\n");
				opts_print_help(fp, c->opts, NULL);
			}
			fprintf(fp, "\nGlobal options (before or after the command):\n");
			opts_print_help(fp, opts_global, c->opts);
			return;
		}
}

int rxectl_usage_error(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_ERR, fmt, ap);
	va_end(ap);
	rxectl_command_usage(name, false);
	return RXECTL_USAGE;
}

void ctx_set_json(struct rxectl *ctx)
{
	ctx->json = true;
	if (ctx->out)
		output_set_json(ctx->out, true);
}

int cmd_help(struct rxectl *ctx, int argc, char **argv)
{
	struct opts o;
	int opt;

	opts_init(&o, ctx, "help", NULL, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
	}
	argc = 1 + o.npos;
	if (argc > 2)
		return rxectl_usage_error("help", "'help' takes at most one command name.");
	if (argc == 2) {
		for (const struct rxectl_command *c = rxectl_commands; c->name; c++)
			if (!strcmp(c->name, argv[1])) {
				rxectl_command_usage(c->name, true);
				return RXECTL_OK;
			}
		return log_error(RXECTL_USAGE, "unknown command '%s'; run `rxectl help` for the "
				 "list of commands.", argv[1]);
	}
	rxectl_help(stdout);
	return RXECTL_OK;
}
