// SPDX-License-Identifier: GPL-2.0
/* cmd_help.c - `rxectl help [COMMAND]`: the general help, or one command's usage. */
#include <string.h>

#include "log.h"
#include "opts.h"
#include "rxectl.h"

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
