// SPDX-License-Identifier: GPL-2.0
/*
 * stats_prom.c - the counters in Prometheus' text exposition format (version 0.0.4), and the
 * atomic replace of node_exporter's textfile that rxe-prometheus.service writes.
 *
 * Names are stable: rxe_<counter>_total for each RDMA netlink hardware counter, as `rdma
 * statistic` names it (so a counter a driver adds appears without a change here), plus
 * rxe_devices and rxe_port_active.  Labels: device, port, netdev.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stats_prom.h"

char *prom_escape_label(const char *value, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *s = value; *s; s++) {
		const char *esc = *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : *s == '\n' ? "\\n" : NULL;
		size_t l = esc ? 2 : 1;

		if (o + l + 1 > len)
			return NULL;
		if (esc)
			memcpy(buf + o, esc, 2);
		else
			buf[o] = *s;
		o += l;
	}
	if (o + 1 > len)
		return NULL;
	buf[o] = '\0';
	return buf;
}

void prom_metric_name(const char *counter, char *buf, size_t len)
{
	size_t o;

	snprintf(buf, len, "rxe_");
	o = strlen(buf);
	for (const char *s = counter; *s && o + 1 < len; s++, o++) {
		char c = *s;

		buf[o] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ?
			 c : '_';
	}
	buf[o] = '\0';
	snprintf(buf + o, len - o, "_total");
}

static int labels(const struct prom_port *p, char *buf, size_t len)
{
	char d[256], nd[256];

	if (!prom_escape_label(p->device, d, sizeof(d)) ||
	    !prom_escape_label(p->netdev, nd, sizeof(nd)))
		return -ENAMETOOLONG;
	/* in name order, as Prometheus and node_exporter print them */
	snprintf(buf, len, "{device=\"%s\",netdev=\"%s\",port=\"%u\"}", d, nd, p->port);
	return 0;
}

static bool has_counters(const struct prom_port *p)
{
	return p->st && !p->st->err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int prom_write(FILE *fp, const struct prom_port *ports, size_t n)
{
	const char **names = NULL;
	size_t nn = 0, cap = 0;
	char lab[600];

	fprintf(fp, "# HELP rxe_devices Number of RDMA ports rxectl reports on.\n"
		    "# TYPE rxe_devices gauge\nrxe_devices %zu\n", n);
	fprintf(fp, "# HELP rxe_port_active Whether the port is ACTIVE (1) or not (0).\n"
		    "# TYPE rxe_port_active gauge\n");
	for (size_t i = 0; i < n; i++)
		if (labels(&ports[i], lab, sizeof(lab)) == 0)
			fprintf(fp, "rxe_port_active%s %d\n", lab, ports[i].active ? 1 : 0);
	/* the union of every port's counter names, sorted, each once */
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; has_counters(&ports[i]) && j < ports[i].st->n; j++) {
			const char *name = ports[i].st->v[j].name;
			bool seen = false;

			for (size_t k = 0; k < nn && !seen; k++)
				seen = !strcmp(names[k], name);
			if (seen || !strcmp(name, "lifespan"))	/* an interval, not a counter */
				continue;
			if (nn == cap) {
				const char **v = realloc(names, (cap = cap ? 2 * cap : 64) *
							 sizeof(*v));
				if (!v) {
					free(names);
					return -ENOMEM;
				}
				names = v;
			}
			names[nn++] = name;
		}
	}
	qsort(names, nn, sizeof(*names), cmp_str);
	for (size_t k = 0; k < nn; k++) {
		char metric[128];

		prom_metric_name(names[k], metric, sizeof(metric));
		fprintf(fp, "# HELP %s rdma_rxe counter %s of the port (RDMA netlink, as `rdma "
			"statistic` shows it)%s.\n# TYPE %s counter\n", metric, names[k],
			rxe_stats_is_error(names[k]) ? "; an error counter" : "", metric);
		for (size_t i = 0; i < n; i++) {
			bool found = false;
			unsigned long long v;

			if (!has_counters(&ports[i]))
				continue;
			v = rxe_stats_value(ports[i].st, names[k], &found);
			if (found && labels(&ports[i], lab, sizeof(lab)) == 0)
				fprintf(fp, "%s%s %llu\n", metric, lab, v);
		}
	}
	free(names);
	return fflush(fp) == 0 && !ferror(fp) ? 0 : -EIO;
}
