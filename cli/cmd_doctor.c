// SPDX-License-Identifier: GPL-2.0
/* cmd_doctor.c - `rxectl doctor [NETDEV|DEVICE...] [--json]`: the Soft-RoCE checklist. */

#include "doctor.h"
#include "rxectl.h"

const struct opt_spec cmd_doctor_opts[] = {
	{ "host", 0, NULL, "check as on a host even inside a container", NULL, DOCTOR_HOST },
	{ "container", 0, NULL, "check what a container's workload needs (detected by default)",
	  NULL, DOCTOR_CONTAINER },
	{ NULL },
};

int cmd_doctor(struct rxectl *ctx, int argc, char **argv)
{
	enum doctor_where where = DOCTOR_AUTO;
	struct opts o;
	int opt;

	opts_init(&o, ctx, "doctor", cmd_doctor_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
		if (opt == DOCTOR_HOST || opt == DOCTOR_CONTAINER) {
			if (where != DOCTOR_AUTO && where != (enum doctor_where)opt)
				return rxectl_usage_error("doctor", "--host and --container exclude each "
							  "other.");
			where = opt;
		}
	}
	return doctor_run_in(ctx, argv + 1, o.npos, where);
}
