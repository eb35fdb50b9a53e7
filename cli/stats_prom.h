/* SPDX-License-Identifier: GPL-2.0 */
/* stats_prom.h - `rxectl stats --prometheus`: the counters in Prometheus' text exposition format. */
#ifndef RXECTL_STATS_PROM_H
#define RXECTL_STATS_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stats.h"

/* One port as the exposition shows it; st NULL or st->err set: no counters to show. */
struct prom_port {
	const char *device;
	unsigned int port;
	const char *netdev;		/* "" when gone */
	bool active;			/* port state ACTIVE */
	const struct rxe_stats *st;
};

/*
 * Write the metrics of `n` ports to fp (format 0.0.4): rxe_devices, rxe_port_active and one
 * counter family rxe_<counter>_total per counter any port has, names sorted, each family with
 * its HELP and TYPE lines once and one sample per port that has it, labelled device, netdev,
 * port.  Returns 0 or -EIO when writing failed.
 */
int prom_write(FILE *fp, const struct prom_port *ports, size_t n);

/* A label value escaped as the format wants (\\, \", \n) into buf; NULL when buf is too small. */
char *prom_escape_label(const char *value, char *buf, size_t len);

/* A counter's metric name: "rxe_" + name with anything but [a-zA-Z0-9_] as '_' + "_total". */
void prom_metric_name(const char *counter, char *buf, size_t len);

#endif
