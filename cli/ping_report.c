// SPDX-License-Identifier: GPL-2.0
/* ping_report.c - `rxectl ping`'s output: the facts of both sides side by side, one row per size and operation. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "log.h"
#include "output.h"
#include "ping.h"
#include "rxectl.h"
#include "escape.h"
#include "util.h"
#include "ping_conn.h"

void ping_print_facts(struct output *o, const char *key, const struct ping_facts *f)
{
	char gid[INET6_ADDRSTRLEN];

	ping_gid_str(f->gid, gid, sizeof(gid));
	out_obj_begin(o, key);
	out_str(o, "rxectl_version", NULL, f->version);
	out_str(o, "device", NULL, f->device);
	out_str(o, "driver", NULL, ping_driver_str(f->driver));
	out_str(o, "gid", NULL, gid);
	out_uint(o, "netdev_mtu", NULL, f->netdev_mtu);
	out_uint(o, "active_mtu", NULL, f->active_mtu);
	out_obj_end(o);
}

void ping_print_facts_text(struct output *o, const struct client *cl)
{
	const struct ping_facts *l = &cl->c.local, *p = &cl->c.peer;
	char lg[INET6_ADDRSTRLEN], pg[INET6_ADDRSTRLEN], ln[16], pn[16], la[16], pa[16];
	char pv[4 * sizeof(p->version)], pd[4 * sizeof(p->device)];

	if (output_is_json(o))
		return;
	/* the peer's strings came over the network: no control characters to the terminal */
	str_escape(p->version, pv, sizeof(pv));
	str_escape(p->device, pd, sizeof(pd));
	ping_gid_str(l->gid, lg, sizeof(lg));
	ping_gid_str(p->gid, pg, sizeof(pg));
#define NUM(buf, v) (snprintf(buf, sizeof(buf), v ? "%u" : "unknown", v), buf)
	out_text(o, "%-16s %-24s %s\n", "", "this side", cl->o->target);
	out_text(o, "%-16s %-24s %s\n", "rxectl", l->version, pv);
	out_text(o, "%-16s %-24s %s\n", "device", l->device, pd);
	out_text(o, "%-16s %-24s %s\n", "driver", ping_driver_str(l->driver),
		 ping_driver_str(p->driver));
	out_text(o, "%-16s %-24s %s\n", "GID", lg, pg);
	out_text(o, "%-16s %-24s %s\n", "netdev MTU", NUM(ln, l->netdev_mtu), NUM(pn, p->netdev_mtu));
	out_text(o, "%-16s %-24s %s\n", "RoCE active MTU", NUM(la, l->active_mtu),
		 NUM(pa, p->active_mtu));
#undef NUM
	out_text(o, "\n%8s  %-5s %9s %9s %9s %10s  %s\n", "size", "op", "min us", "avg us",
		 "max us", "MB/s", "verified");
	fflush(stdout);
	if (l->active_mtu && p->active_mtu && l->active_mtu < p->active_mtu)
		log_warn("the RoCE active MTUs differ: %u here, %u on %s. This side opens the "
			 "connection, so it uses %u-byte packets and may pass; connections %s opens to "
			 "this host use %u-byte packets that this side's netdev (MTU %u) does not "
			 "take. Give both netdevs the same MTU.", l->active_mtu, p->active_mtu,
			 cl->o->target, l->active_mtu, cl->o->target, p->active_mtu, l->netdev_mtu);
	else if (l->active_mtu && p->active_mtu && l->active_mtu != p->active_mtu)
		log_warn("the RoCE active MTUs differ: %u here, %u on %s; messages larger than %u "
			 "bytes may not get through.", l->active_mtu, p->active_mtu, cl->o->target,
			 p->active_mtu);
}

void ping_print_row(struct output *o, const struct ping_row *r)
{
	char sz[16];

	ping_size_str(r->size, sz, sizeof(sz));
	out_obj_begin(o, NULL);
	out_str(o, "op", NULL, r->op);
	out_uint(o, "size", NULL, r->size);
	out_uint(o, "count", NULL, r->count);
	out_uint(o, "latency_min_ns", NULL, r->lat_min_ns);
	out_uint(o, "latency_avg_ns", NULL, r->lat_avg_ns);
	out_uint(o, "latency_max_ns", NULL, r->lat_max_ns);
	out_uint(o, "bandwidth_bytes_per_sec", NULL, r->bandwidth_bps);
	out_bool(o, "passed", NULL, r->passed);
	out_obj_end(o);
	if (r->count)
		out_text(o, "%8s  %-5s %9.1f %9.1f %9.1f %10.2f  %s\n", sz, r->op,
			 r->lat_min_ns / 1e3, r->lat_avg_ns / 1e3, r->lat_max_ns / 1e3,
			 r->bandwidth_bps / 1e6, r->passed ? "yes" : "FAILED");
	else
		out_text(o, "%8s  %-5s %9s %9s %9s %10s  %s\n", sz, r->op, "-", "-", "-", "-",
			 "FAILED");
	fflush(stdout);
}
