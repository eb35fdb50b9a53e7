/* SPDX-License-Identifier: GPL-2.0 */
/* opts.h - the one option parser of every command: a table per command, global options anywhere, errors naming the argument. */
#ifndef RXECTL_OPTS_H
#define RXECTL_OPTS_H

#include <stdbool.h>
#include <stdio.h>

struct rxectl;

/* One option of a command; tables end with { NULL }.  `id` is what opts_next() returns. */
struct opt_spec {
	const char *name;	/* long name, without "--" */
	char short_name;	/* 0: none (short options are few and all documented) */
	const char *value;	/* the value's placeholder, e.g. "SECONDS"; NULL for a flag */
	const char *help;	/* one line for `rxectl COMMAND --help` */
	const char *def;	/* the default, shown in --help; NULL: none */
	int id;			/* > 0 */
};

/* What opts_next() returns besides a spec's id. */
enum {
	OPTS_END = 0,		/* no more arguments */
	OPTS_ARG = -1,		/* a positional argument: o->arg */
	OPTS_HELP = -2,		/* --help was given and printed: return RXECTL_OK */
	OPTS_ERROR = -3,	/* a usage error was printed: return RXECTL_USAGE */
};

struct opts {
	struct rxectl *ctx;
	const char *cmd;		/* for messages; NULL for the global options before it */
	const struct opt_spec *specs;
	int argc;
	char **argv;
	int i;				/* next argv index */
	const char *cluster;		/* rest of a "-abc" cluster being read */
	bool positional_only;		/* after "--" */
	int npos;			/* positional arguments so far: argv[1..npos] */
	const char *arg;		/* OPTS_ARG: the argument */
	const char *value;		/* an option with a value: the value */
	const char *given;		/* the option as written, e.g. "--wait" or "-c" */
};

/*
 * The global options (--config/-c FILE, --json/-j, --verbose/-v, --help/-h) are accepted
 * by every command, before or after its name; a command's own short option takes precedence
 * (ping's -c is ping(8)'s count; --config still works there).  Long options take their value
 * as "--opt VALUE" or "--opt=VALUE", short ones as "-o VALUE" or "-oVALUE"; flags cluster
 * ("-jv"); "--" ends the options.  argv[0] is the command's name and is skipped.
 * Positional arguments are also moved, in order, to argv[1..o->npos], so a command may
 * ignore OPTS_ARG and read them after the loop.
 */
void opts_init(struct opts *o, struct rxectl *ctx, const char *cmd, const struct opt_spec *specs,
	       int argc, char **argv);
int opts_next(struct opts *o);

/*
 * Does argv[1..] ask for JSON (--json, -j, in a cluster too)?  Read as opts_next() would read it
 * with `specs` (option values skipped, unknown options passed over), nothing acted on; "--" ends
 * the scan.  With `first_arg`, the scan also ends at the first positional argument, whose index
 * (argc: none) goes there.  So a usage error before --json still gets the JSON document.
 */
bool opts_scan_json(const struct opt_spec *specs, int argc, char **argv, int *first_arg);

/* A number macro as a string, for `def`: OPTS_STR(PING_DEFAULT_PORT) is "7174". */
#define OPTS_STR_(x) #x
#define OPTS_STR(x) OPTS_STR_(x)

/* The global options' table (for main() and the help text). */
extern const struct opt_spec opts_global[];
enum { OPT_CONFIG = 1000, OPT_JSON, OPT_VERBOSE, OPT_HELP };

/*
 * Print the options of `specs` as help lines ("  -c, --count N   ...  (default: 5)"); a short
 * name that an option of `shadow` (NULL: none) also has is left out.
 */
void opts_print_help(FILE *fp, const struct opt_spec *specs, const struct opt_spec *shadow);

/* A whole number in [min, max] (decimal), or -1. */
int opts_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out);

#endif
