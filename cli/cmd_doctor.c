// SPDX-License-Identifier: GPL-2.0
/* cmd_doctor.c - `rxectl doctor [NETDEV|DEVICE...] [--json]`: the Soft-RoCE checklist. */
#include <getopt.h>

#include "doctor.h"
#include "rxectl.h"

int cmd_doctor(struct rxectl *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			ctx_set_json(ctx);
			break;
		case 'h':
			rxectl_command_usage("doctor", true);
			return RXECTL_OK;
		default:
			return rxectl_usage_error("doctor", "unknown option '%s' for doctor.",
						  argv[optind - 1]);
		}
	}
	return doctor_run(ctx, argv + optind, argc - optind);
}
