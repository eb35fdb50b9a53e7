// SPDX-License-Identifier: GPL-2.0
/* rxectl.c - main(): global options, then dispatch through the command table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "opts.h"
#include "output.h"
#include "rxectl.h"
#include "version.h"

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
				msg = log_first_warning();
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
	enum { OPT_VERSION = 1 };
	static const struct opt_spec main_opts[] = {
		{ "version", 0, NULL, "show the version", NULL, OPT_VERSION },
		{ NULL },
	};
	struct rxectl ctx = { .config_path = RXECTL_DEFAULT_CONFIG };
	const char *env = getenv("RXECTL_CONFIG");
	const struct rxectl_command *cmd = NULL;
	struct opts o;
	int first = 0, arg;

	if (env && *env) {
		ctx.config_path = env;
		ctx.config_explicit = true;
	}
	log_init(0);
	/* --json anywhere asks for the JSON document, also when a usage error stops the parsers
	 * before they reach it. */
	ctx.json = opts_scan_json(main_opts, argc, argv, &arg);
	if (arg < argc)
		cmd = rxectl_command_find(argv[arg]);
	if (!ctx.json && cmd)
		ctx.json = opts_scan_json(cmd->opts, argc - arg, argv + arg, NULL);
	/* The global options before the command; the command's parser takes them after it too. */
	opts_init(&o, &ctx, NULL, main_opts, argc, argv);
	while (!first) {
		switch (opts_next(&o)) {
		case OPTS_ARG:
			first = o.i - 1;
			break;
		case OPT_VERSION:
			if (o.i < argc) {
				log_error(0, "--version takes no arguments, but got '%s'.", argv[o.i]);
				return finish(&ctx, RXECTL_USAGE);
			}
			printf("rxectl %s\n", RXECTL_VERSION);
			if (fflush(stdout) != 0 || ferror(stdout))
				return log_error(RXECTL_FAIL, "cannot write the version: %s.",
						 strerror(errno));
			return RXECTL_OK;
		case OPTS_HELP:
			return finish(&ctx, RXECTL_OK);
		case OPTS_ERROR:
			return finish(&ctx, RXECTL_USAGE);
		case OPTS_END:
			log_error(0, "no command given; run `rxectl --help` for the list of commands.");
			rxectl_help(stderr);
			return finish(&ctx, RXECTL_USAGE);
		}
	}

	cmd = rxectl_command_find(argv[first]);
	if (cmd) {
		ctx.out = output_new(ctx.json, stdout);
		if (!ctx.out)
			return log_error(RXECTL_FAIL, "out of memory.");
		return finish(&ctx, cmd->fn(&ctx, argc - first, argv + first));
	}
	log_error(0, "unknown command '%s'; run `rxectl --help` for the list of commands.",
		  argv[first]);
	return finish(&ctx, RXECTL_USAGE);
}
