// SPDX-License-Identifier: GPL-2.0
/* usage.c - the help and usage text generated from the command table, and usage errors. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "opts.h"
#include "rxectl.h"

const struct rxectl_command *rxectl_command_find(const char *name)
{
	for (const struct rxectl_command *c = rxectl_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

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
