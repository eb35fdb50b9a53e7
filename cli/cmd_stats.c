// SPDX-License-Identifier: GPL-2.0
/* cmd_stats.c - `rxectl stats [DEVICE] [--json] [--watch SECONDS | --prometheus [--output FILE]]`:
 * counters, their deltas, or Prometheus' text format. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "log.h"
#include "output.h"
#include "rxe.h"
#include "stats.h"
#include "file_replace.h"
#include "stats_prom.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* One device: all counters (prev NULL), or the deltas since prev. */
static void print_device(struct rxectl *ctx, const struct rxe_dev *d, const struct rxe_stats *st,
			 const struct rxe_stats *prev)
{
	struct output *o = ctx->out;
	bool any = false;

	out_obj_begin(o, NULL);
	out_str(o, "name", "%s", d->name);
	out_str(o, "netdev", " on %s", d->netdev[0] ? d->netdev : "?");
	if (st->err) {
		if (rxe_stats_unsupported(st->err))
			out_null(o, "counters", ": no counters: its driver keeps none (both the "
				 "kernel's and the current bundled rdma_rxe have them: an old "
				 "build? see `rxectl driver`)\n");
		else
			out_null(o, "counters", ": the counters cannot be read\n");
		out_obj_end(o);
		return;
	}
	out_text(o, prev ? ", change:\n" : ":\n");
	out_obj_begin(o, prev ? "delta" : "counters");
	for (size_t i = 0; i < st->n; i++) {
		unsigned long long v = st->v[i].value;

		if (prev) {
			bool found;
			unsigned long long p = rxe_stats_value(prev, st->v[i].name, &found);

			v = found && v >= p ? v - p : v;
			if (!v && !output_is_json(o))
				continue;
		}
		any = true;
		out_text(o, "  %-24s", st->v[i].name);
		out_uint(o, st->v[i].name, prev ? "+%llu\n" : "%llu\n", v);
	}
	out_obj_end(o);
	if (prev && !any)
		out_text(o, "  (no change)\n");
	out_obj_end(o);
}

static int read_all(struct rxectl *ctx, const struct rxe_dev *devs, size_t n, struct rxe_stats *st)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		rxe_stats_read(ctx, &devs[i], &st[i]);
		if (st[i].err && !rxe_stats_unsupported(st[i].err)) {
			log_error(0, "reading the counters of %s failed: %s.", devs[i].name,
				  rdma_nl_strerror(ctx_rdma_nl(ctx), st[i].err));
			bad = 1;
		}
	}
	return bad;
}

static void print_all(struct rxectl *ctx, const struct rxe_dev *devs, size_t n,
		      const struct rxe_stats *st, const struct rxe_stats *prev, double interval)
{
	out_obj_begin(ctx->out, NULL);
	if (prev)
		out_uint(ctx->out, "interval_ms", NULL, (unsigned long long)(interval * 1000));
	out_arr_begin(ctx->out, "devices");
	for (size_t i = 0; i < n; i++)
		print_device(ctx, &devs[i], &st[i], prev ? &prev[i] : NULL);
	out_arr_end(ctx->out);
	out_obj_end(ctx->out);
	if (n == 0)
		out_text(ctx->out, "no rxe devices.\n");
}

/* Seconds as decimal digits with at most one '.': no sign, space, exponent, hex or "inf". */
static int parse_seconds(const char *s, double *out)
{
	size_t digits = strspn(s, "0123456789");
	char *end;
	double v;

	if (s[digits] == '.') {
		size_t frac = strspn(s + digits + 1, "0123456789");

		if (!frac)
			return -EINVAL;
		digits += 1 + frac;
	}
	if (!digits || s[digits])
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.1 && v <= 3600))
		return -EINVAL;
	*out = v;
	return 0;
}

/* --prometheus: the exposition of every port in devs, to stdout or atomically into `path`. */
static int print_prometheus(struct rxectl *ctx, const struct rxe_dev *devs, size_t n,
			    const struct rxe_stats *st, const char *path)
{
	struct prom_port *ports = calloc(n ? n : 1, sizeof(*ports));
	char *text = NULL;
	size_t len = 0;
	FILE *fp;
	int err;

	fp = ports ? open_memstream(&text, &len) : NULL;
	if (!fp) {
		free(ports);
		return log_error(RXECTL_FAIL, "out of memory.");
	}
	for (size_t i = 0; i < n; i++)
		ports[i] = (struct prom_port){ devs[i].name, devs[i].port ? devs[i].port : 1,
					       devs[i].netdev, devs[i].state == RDMA_PORT_ACTIVE,
					       &st[i] };
	err = prom_write(fp, ports, n);
	if (fclose(fp) != 0 && !err)
		err = -EIO;
	free(ports);
	if (err) {
		free(text);
		return log_error(RXECTL_FAIL, "building the metrics failed: %s.", strerror(-err));
	}
	if (!path) {
		out_text(ctx->out, "%s", text);
		free(text);
		return RXECTL_OK;
	}
	err = file_replace(path, text, len);
	free(text);
	if (err == -ENOENT)
		return log_error(RXECTL_FAIL, "cannot write %s: its directory does not exist (the "
				 "textfile directory of Debian's prometheus-node-exporter is "
				 "/var/lib/prometheus/node-exporter).", path);
	if (err)
		return log_error(RXECTL_FAIL, "cannot write %s: %s.", path, strerror(-err));
	log_debug("stats: wrote the metrics of %zu ports to %s", n, path);
	return RXECTL_OK;
}

enum { STATS_WATCH = 1, STATS_PROMETHEUS, STATS_OUTPUT };
const struct opt_spec cmd_stats_opts[] = {
	{ "watch", 0, "SECONDS", "print the counters' change every SECONDS (0.1 to 3600) until "
	  "interrupted", NULL, STATS_WATCH },
	{ "prometheus", 0, NULL, "print the counters in Prometheus' text exposition format",
	  NULL, STATS_PROMETHEUS },
	{ "output", 0, "FILE", "with --prometheus: replace FILE atomically instead of printing "
	  "(node_exporter's textfile collector)", NULL, STATS_OUTPUT },
	{ NULL },
};

int cmd_stats(struct rxectl *ctx, int argc, char **argv)
{
	struct rxe_dev *devs = NULL, one;
	struct rxe_stats *st = NULL, *prev = NULL;
	const char *output = NULL;
	bool prometheus = false;
	double watch = 0;
	size_t n = 0;
	struct opts o;
	int opt, ret = RXECTL_OK;

	opts_init(&o, ctx, "stats", cmd_stats_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
		if (opt == STATS_WATCH && parse_seconds(o.value, &watch) < 0)
			return rxectl_usage_error("stats", "--watch needs a number of seconds "
						  "from 0.1 to 3600, not '%s'.", o.value);
		if (opt == STATS_PROMETHEUS)
			prometheus = true;
		if (opt == STATS_OUTPUT)
			output = o.value;
	}
	if (output && !prometheus)
		return rxectl_usage_error("stats", "--output writes the --prometheus format; add "
					  "--prometheus.");
	if (prometheus && (watch || output_is_json(ctx->out)))
		return rxectl_usage_error("stats", "--prometheus is an output format of its own: "
					  "it takes neither --watch nor --json.");
	if (o.npos > 1)
		return rxectl_usage_error("stats", "stats takes at most one DEVICE or NETDEV, but "
					  "got '%s' too.", argv[2]);
	if (o.npos) {
		ret = diag_pick_device(ctx, "stats", argv[1], &one);
		if (ret != RXECTL_OK)
			return ret;
		devs = malloc(sizeof(*devs));
		if (!devs)
			return log_error(RXECTL_FAIL, "out of memory.");
		devs[0] = one;
		n = 1;
	} else if (rxe_list(ctx, &devs, &n) < 0) {
		return RXECTL_FAIL;
	}
	st = calloc(n ? n : 1, sizeof(*st));
	prev = calloc(n ? n : 1, sizeof(*prev));
	if (!st || !prev) {
		ret = log_error(RXECTL_FAIL, "out of memory.");
		goto out;
	}
	if (read_all(ctx, devs, n, st))
		ret = RXECTL_FAIL;
	if (prometheus) {
		ret = rxe_worse(ret, print_prometheus(ctx, devs, n, st, output));
		goto out;
	}
	if (!watch) {
		print_all(ctx, devs, n, st, NULL, 0);
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop && ret == RXECTL_OK) {
		struct timespec ts = { (time_t)watch, (long)((watch - (time_t)watch) * 1e9) };
		struct rxe_stats *t;

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop)
			;
		if (stop)
			break;
		t = prev;
		prev = st;
		st = t;
		if (read_all(ctx, devs, n, st))
			ret = RXECTL_FAIL;
		print_all(ctx, devs, n, st, prev, watch);
		if (output_flush(ctx->out) < 0)
			break;
	}
out:
	free(st);
	free(prev);
	free(devs);
	return ret;
}
