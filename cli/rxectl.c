// SPDX-License-Identifier: GPL-2.0
/* rxectl.c - main(): global options, then dispatch through the command table. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "output.h"
#include "rxectl.h"

/*
 * Every run ends here: with --json, stdout gets exactly one JSON document, with an `error`
 * member (the first error message and the exit code) when the run failed.
 */
static int finish(struct rxectl *ctx, int ret)
{
	if (!ctx->out)
		ctx->out = output_new(ctx->json, stdout);
	if (!ctx->out)
		return log_error(RXECTL_FAIL, "out of memory.");
	if (output_is_json(ctx->out) && !rxectl_help_shown()) {
		const char *msg = NULL;

		if (ret != RXECTL_OK) {
			msg = log_first_error();
			if (!msg)
				msg = ret == RXECTL_USAGE ? "usage error or bad input." :
				      "the operation failed; the other members say why.";
		}
		out_finish_json(ctx->out, msg, ret);
	}
	if (output_flush(ctx->out) < 0 && ret == RXECTL_OK)
		ret = log_error(RXECTL_FAIL, "cannot write the output.");
	ctx_release(ctx);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config",  required_argument, NULL, 'c' },
		{ "json",    no_argument,       NULL, 'j' },
		{ "verbose", no_argument,       NULL, 'v' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "version", no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct rxectl ctx = { .config_path = RXECTL_DEFAULT_CONFIG };
	const char *env = getenv("RXECTL_CONFIG");
	int opt, ret;

	if (env && *env) {
		ctx.config_path = env;
		ctx.config_explicit = true;
	}
	opterr = 0;
	/* '+': global options stop at the command; the command parses the rest. */
	while ((opt = getopt_long(argc, argv, "+c:jvhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			ctx.config_path = optarg;
			ctx.config_explicit = true;
			break;
		case 'j':
			ctx.json = true;
			break;
		case 'v':
			ctx.verbose++;
			break;
		case 'h':
			rxectl_help(stdout);
			return RXECTL_OK;
		case 'V':
			printf("rxectl %s\n", RXECTL_VERSION);
			return RXECTL_OK;
		default:
			log_init(0);
			if (optopt == 'c')
				log_error(0, "option -c needs a file name.");
			else
				log_error(0, "unknown option '%s'; run `rxectl --help` for the options.",
					  argv[optind - 1]);
			return finish(&ctx, RXECTL_USAGE);
		}
	}
	log_init(ctx.verbose);
	if (optind >= argc) {
		log_error(0, "no command given; run `rxectl --help` for the list of commands.");
		rxectl_help(stderr);
		return finish(&ctx, RXECTL_USAGE);
	}

	for (const struct rxectl_command *c = rxectl_commands; c->name; c++) {
		int first = optind;

		if (strcmp(c->name, argv[first]))
			continue;
		ctx.out = output_new(ctx.json, stdout);
		if (!ctx.out)
			return log_error(RXECTL_FAIL, "out of memory.");
		optind = 0;	/* reinitialise getopt for the command's own options */
		ret = c->fn(&ctx, argc - first, argv + first);
		return finish(&ctx, ret);
	}
	log_error(0, "unknown command '%s'; run `rxectl --help` for the list of commands.",
		  argv[optind]);
	return finish(&ctx, RXECTL_USAGE);
}
