// SPDX-License-Identifier: GPL-2.0
/* opts.c - the one option parser: each command's table plus the global options, before or after the command. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "opts.h"
#include "rxectl.h"

const struct opt_spec opts_global[] = {
	{ "config",  'c', "FILE", "configuration file ($RXECTL_CONFIG)", RXECTL_DEFAULT_CONFIG,
	  OPT_CONFIG },
	{ "json",    'j', NULL, "print one JSON document on standard output", NULL, OPT_JSON },
	{ "verbose", 'v', NULL, "say more about what is done (repeatable)", NULL, OPT_VERBOSE },
	{ "help",    'h', NULL, "show the usage and options", NULL, OPT_HELP },
	{ NULL },
};

void opts_init(struct opts *o, struct rxectl *ctx, const char *cmd, const struct opt_spec *specs,
	       int argc, char **argv)
{
	static const struct opt_spec none[] = { { NULL } };

	memset(o, 0, sizeof(*o));
	o->ctx = ctx;
	o->cmd = cmd;
	o->specs = specs ? specs : none;
	o->argc = argc;
	o->argv = argv;
	o->i = 1;
}

static int usage_error(struct opts *o, const char *fmt, const char *a, const char *b)
	__attribute__((format(printf, 2, 0)));


#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/* "rxectl: MESSAGE" and the command's usage line; the formats are this file's own. */
static int usage_error(struct opts *o, const char *fmt, const char *a, const char *b)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, a, b, b);
	if (o->cmd)
		rxectl_usage_error(o->cmd, "%s", msg);
	else
		log_error(0, "%s", msg);
	return OPTS_ERROR;
}
#pragma GCC diagnostic pop

static const struct opt_spec *find_long(const struct opts *o, const char *name, size_t len)
{
	const struct opt_spec *tables[] = { o->specs, opts_global };

	for (size_t t = 0; t < 2; t++)
		for (const struct opt_spec *s = tables[t]; s->name; s++)
			if (strlen(s->name) == len && !strncmp(s->name, name, len))
				return s;
	return NULL;
}

static const struct opt_spec *find_short(const struct opts *o, char c)
{
	const struct opt_spec *tables[] = { o->specs, opts_global };

	for (size_t t = 0; t < 2; t++)
		for (const struct opt_spec *s = tables[t]; s->name; s++)
			if (s->short_name && s->short_name == c)
				return s;
	return NULL;
}

/* The global options act here; a command's own options go back to it. */
static int found(struct opts *o, const struct opt_spec *s)
{
	struct rxectl *ctx = o->ctx;

	switch (s->id) {
	case OPT_CONFIG:
		if (!*o->value)
			return usage_error(o, "option %s needs a file name, not an empty string.",
					   o->given, NULL);
		ctx->config_path = o->value;
		ctx->config_explicit = true;
		return 0;
	case OPT_JSON:
		ctx_set_json(ctx);
		return 0;
	case OPT_VERBOSE:
		ctx->verbose++;
		log_init(ctx->verbose);
		return 0;
	case OPT_HELP:
		if (o->cmd)
			rxectl_command_usage(o->cmd, true);
		else
			rxectl_help(stdout);
		return OPTS_HELP;
	default:
		return s->id;
	}
}

static int unknown(struct opts *o, const char *arg)
{
	if (!o->cmd)
		return usage_error(o, "unknown option '%s'; run `rxectl --help` for the options.",
				   arg, NULL);
	return usage_error(o, "unknown option '%s' for %s; `rxectl %s --help` lists its options.",
			   arg, o->cmd);
}

static int next_long(struct opts *o, const char *a)
{
	const char *name = a + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct opt_spec *s = find_long(o, name, len);
	static char given[64];

	snprintf(given, sizeof(given), "--%.*s", (int)(len < 60 ? len : 60), name);
	o->given = given;
	if (!s)
		return unknown(o, eq ? given : a);
	if (!s->value) {
		if (eq)
			return usage_error(o, "option %s takes no value, but got '%s'.", given, eq + 1);
		o->value = NULL;
	} else if (eq) {
		o->value = eq + 1;
	} else if (o->i < o->argc) {
		o->value = o->argv[o->i++];
	} else {
		return usage_error(o, "option %s needs a value (%s).", given, s->value);
	}
	return found(o, s);
}

static int next_short(struct opts *o)
{
	const char *arg = o->argv[o->i - 1];
	const struct opt_spec *s = find_short(o, *o->cluster);
	static char given[3] = "-";

	given[1] = *o->cluster;
	o->given = given;
	if (!s) {
		o->cluster = NULL;
		/* name the whole argument: "-eth0" is not "-e" */
		return unknown(o, arg);
	}
	o->cluster++;
	if (!s->value) {
		o->value = NULL;
		if (!*o->cluster)
			o->cluster = NULL;
	} else if (*o->cluster) {
		o->value = o->cluster;
		o->cluster = NULL;
	} else if (o->i < o->argc) {
		o->value = o->argv[o->i++];
		o->cluster = NULL;
	} else {
		o->cluster = NULL;
		return usage_error(o, "option %s needs a value (%s).", given, s->value);
	}
	return found(o, s);
}

int opts_next(struct opts *o)
{
	for (;;) {
		const char *a;
		int ret;

		if (o->cluster)
			ret = next_short(o);
		else if (o->i >= o->argc)
			return OPTS_END;
		else if (a = o->argv[o->i++], o->positional_only || a[0] != '-' || !a[1]) {
			o->arg = a;
			o->argv[1 + o->npos++] = (char *)a;	/* index <= o->i - 1: already read */
			return OPTS_ARG;
		} else if (!strcmp(a, "--")) {
			o->positional_only = true;
			continue;
		} else if (a[1] == '-') {
			ret = next_long(o, a);
		} else {
			o->cluster = a + 1;
			ret = next_short(o);
		}
		if (ret != 0)
			return ret;
	}
}

bool opts_scan_json(const struct opt_spec *specs, int argc, char **argv, int *first_arg)
{
	struct opts o;

	opts_init(&o, NULL, NULL, specs, argc, argv);
	if (first_arg)
		*first_arg = argc;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct opt_spec *s;

		if (!strcmp(a, "--"))
			return false;
		if (a[0] != '-' || !a[1]) {
			if (first_arg) {
				*first_arg = i;
				return false;
			}
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');

			s = find_long(&o, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
			if (s && s->id == OPT_JSON)
				return true;
			if (s && s->value && !eq)
				i++;	/* its value */
			continue;
		}
		for (const char *c = a + 1; *c; c++) {
			s = find_short(&o, *c);
			if (!s)
				break;	/* an error: the rest of the cluster is not read either */
			if (s->id == OPT_JSON)
				return true;
			if (s->value) {
				i += !c[1];	/* "-c FILE": the value is the next argument */
				break;
			}
		}
	}
	return false;
}

void opts_print_help(FILE *fp, const struct opt_spec *specs, const struct opt_spec *shadow)
{
	for (const struct opt_spec *s = specs; s && s->name; s++) {
		bool short_name = s->short_name;
		char left[64];

		for (const struct opt_spec *t = shadow; t && t->name && short_name; t++)
			short_name = t->short_name != s->short_name;
		if (short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", s->short_name, s->name,
				 s->value ? " " : "", s->value ? s->value : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", s->name, s->value ? " " : "",
				 s->value ? s->value : "");
		fprintf(fp, "  %-22s %s", left, s->help);
		if (s->def)
			fprintf(fp, " (default: %s)", s->def);
		fprintf(fp, "\n");
	}
}

int opts_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
