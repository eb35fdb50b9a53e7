// SPDX-License-Identifier: GPL-2.0
/* cmd_ping.c - `rxectl ping`: its options; the client (ping_client.c) and listener (ping_listen.c) do the work. */
#include <stdlib.h>

#include "log.h"
#include "ping.h"
#include "rxectl.h"
#include "ping_conn.h"

enum { PING_LISTEN = 1, PING_PORT, PING_COUNT, PING_TIMEOUT, PING_SIZES };
const struct opt_spec cmd_ping_opts[] = {
	{ "listen",  0,   NULL,  "wait for clients (on DEVICE or ADDRESS, else on all)", NULL,
	  PING_LISTEN },
	{ "port",    0,   "P",   "RDMA CM port, 1-65535", OPTS_STR(PING_DEFAULT_PORT), PING_PORT },
	{ "count",   'c', "N",   "round trips per message size, 1-1000000 (-c as in ping(8))",
	  OPTS_STR(PING_DEFAULT_COUNT), PING_COUNT },
	{ "timeout", 0,   "SEC", "seconds for every single wait, 1-3600",
	  OPTS_STR(PING_DEFAULT_TIMEOUT), PING_TIMEOUT },
	{ "sizes",   0,   "LIST", "message sizes, e.g. 64,4K,1-1M", PING_DEFAULT_SIZES, PING_SIZES },
	{ NULL },
};

int cmd_ping(struct rxectl *ctx, int argc, char **argv)
{
	struct ping_opts o = { .port = PING_DEFAULT_PORT, .count = PING_DEFAULT_COUNT,
			       .timeout = PING_DEFAULT_TIMEOUT };
	const char *sizes = PING_DEFAULT_SIZES;
	struct opts p;
	char err[160];
	unsigned long v;
	int opt, ret;

	opts_init(&p, ctx, "ping", cmd_ping_opts, argc, argv);
	while ((opt = opts_next(&p)) != OPTS_END) {
		switch (opt) {
		case PING_LISTEN:
			o.listen = true;
			break;
		case PING_PORT:
			if (opts_uint(p.value, 1, 65535, &v))
				return rxectl_usage_error("ping", "%s takes a port number from 1 to "
							  "65535, not '%s'.", p.given, p.value);
			o.port = (uint16_t)v;
			break;
		case PING_COUNT:
			if (opts_uint(p.value, 1, 1000000, &v))
				return rxectl_usage_error("ping", "%s takes a number from 1 to "
							  "1000000, not '%s'.", p.given, p.value);
			o.count = (unsigned int)v;
			break;
		case PING_TIMEOUT:
			if (opts_uint(p.value, 1, 3600, &v))
				return rxectl_usage_error("ping", "%s takes seconds from 1 to "
							  "3600, not '%s'.", p.given, p.value);
			o.timeout = (unsigned int)v;
			break;
		case PING_SIZES:
			sizes = p.value;
			break;
		case OPTS_HELP:
			return RXECTL_OK;
		case OPTS_ERROR:
			return RXECTL_USAGE;
		}
	}
	if (p.npos)
		o.target = argv[1];
	if (p.npos > 1)
		return rxectl_usage_error("ping", "ping takes one HOST (or, with --listen, one DEVICE "
					  "or ADDRESS), but also got '%s'.", argv[2]);
	if (!o.listen && !o.target)
		return rxectl_usage_error("ping", "give the HOST to ping, or --listen on the other "
					  "side.");
	if (ping_parse_sizes(sizes, &o.sizes, &o.n_sizes, err, sizeof(err)))
		return rxectl_usage_error("ping", "--sizes: %s.", err);
	ret = o.listen ? ping_run_listener(ctx, &o) : ping_run_client(ctx, &o);
	free(o.sizes);
	return ret;
}
