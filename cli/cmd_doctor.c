// SPDX-License-Identifier: GPL-2.0
/* cmd_doctor.c - `rxectl doctor [NETDEV|DEVICE...] [--json]`: the Soft-RoCE checklist. */

#include "doctor.h"
#include "rxectl.h"

int cmd_doctor(struct rxectl *ctx, int argc, char **argv)
{
	struct opts o;
	int opt;

	opts_init(&o, ctx, "doctor", NULL, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
	}
	return doctor_run(ctx, argv + 1, o.npos);
}
