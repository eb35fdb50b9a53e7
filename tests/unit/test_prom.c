// SPDX-License-Identifier: GPL-2.0
/* test_prom.c - `rxectl stats --prometheus`: the exposition text, label escaping, atomic replace. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_replace.h"
#include "stats_prom.h"
#include "tap.h"

static char *render(const struct prom_port *p, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	prom_write(fp, p, n);
	fclose(fp);
	return text;
}

int main(void)
{
	struct rxe_stats a = { .n = 3, .v = { { "sent_pkts", 10 }, { "rcvd_seq_err", 2 },
					      { "lifespan", 12 } } };
	struct rxe_stats b = { .n = 1, .v = { { "sent_pkts", 4294967296ull } } };
	struct rxe_stats none = { .err = -EOPNOTSUPP };
	struct prom_port ports[] = {
		{ "rxe_eth0", 1, "eth0", true, &a },
		{ "rxe\"x", 1, "", false, &b },
		{ "rxe_old", 1, "eth2", true, &none },
	};
	char buf[64], path[] = "/tmp/rxectl-test-prom.XXXXXX", file[128], *text, got[256] = "";
	struct stat sb;
	FILE *fp;

	tap_plan(10);
	text = render(ports, 3);
	ok(!strcmp(text,
		"# HELP rxe_devices Number of RDMA ports rxectl reports on.\n"
		"# TYPE rxe_devices gauge\n"
		"rxe_devices 3\n"
		"# HELP rxe_port_active Whether the port is ACTIVE (1) or not (0).\n"
		"# TYPE rxe_port_active gauge\n"
		"rxe_port_active{device=\"rxe_eth0\",netdev=\"eth0\",port=\"1\"} 1\n"
		"rxe_port_active{device=\"rxe\\\"x\",netdev=\"\",port=\"1\"} 0\n"
		"rxe_port_active{device=\"rxe_old\",netdev=\"eth2\",port=\"1\"} 1\n"
		"# HELP rxe_rcvd_seq_err_total rdma_rxe counter rcvd_seq_err of the port (RDMA "
		"netlink, as `rdma statistic` shows it); an error counter.\n"
		"# TYPE rxe_rcvd_seq_err_total counter\n"
		"rxe_rcvd_seq_err_total{device=\"rxe_eth0\",netdev=\"eth0\",port=\"1\"} 2\n"
		"# HELP rxe_sent_pkts_total rdma_rxe counter sent_pkts of the port (RDMA netlink, "
		"as `rdma statistic` shows it).\n"
		"# TYPE rxe_sent_pkts_total counter\n"
		"rxe_sent_pkts_total{device=\"rxe_eth0\",netdev=\"eth0\",port=\"1\"} 10\n"
		"rxe_sent_pkts_total{device=\"rxe\\\"x\",netdev=\"\",port=\"1\"} 4294967296\n"),
	   "families sorted, HELP/TYPE once each, one sample per port; lifespan and ports "
	   "without counters left out");
	if (strncmp(text, "# HELP rxe_devices", 18) || tap_failed)
		printf("# got:\n%s", text);
	free(text);
	text = render(NULL, 0);
	ok(strstr(text, "rxe_devices 0\n") && !strstr(text, "_total"),
	   "no ports: the gauges' HELP and TYPE, rxe_devices 0, no counter families");
	free(text);

	ok(!strcmp(prom_escape_label("a\\b\"c\nd", buf, sizeof(buf)), "a\\\\b\\\"c\\nd"),
	   "label values: backslash, quote, newline escaped");
	ok(prom_escape_label("abcd", buf, 4) == NULL && prom_escape_label("\"", buf, 2) == NULL,
	   "too small a buffer is refused");
	prom_metric_name("sent_pkts", buf, sizeof(buf));
	ok(!strcmp(buf, "rxe_sent_pkts_total"), "a counter's metric name");
	prom_metric_name("a-b.c", buf, sizeof(buf));
	ok(!strcmp(buf, "rxe_a_b_c_total"), "characters a metric name may not hold become _");

	ok(mkdtemp(path) != NULL, "a temporary directory");
	snprintf(file, sizeof(file), "%s/rxe.prom", path);
	ok(file_replace(file, "x 1\n", 4) == 0 && file_replace(file, "y 2\n", 4) == 0,
	   "the file is written, then replaced");
	fp = fopen(file, "r");
	if (fp) {
		fgets(got, sizeof(got), fp);
		fclose(fp);
	}
	ok(!strcmp(got, "y 2\n") && stat(file, &sb) == 0 && (sb.st_mode & 0777) == 0644,
	   "the new content, mode 0644 for node_exporter's user");
	snprintf(file, sizeof(file), "%s/missing/rxe.prom", path);
	ok(file_replace(file, "x\n", 2) == -ENOENT, "a missing directory is -ENOENT");
	snprintf(file, sizeof(file), "%s/rxe.prom", path);
	unlink(file);
	rmdir(path);
	return tap_done();
}
