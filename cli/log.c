// SPDX-License-Identifier: GPL-2.0
/* log.c - the one error path: "rxectl: " on stderr, or the journal when stderr is the journal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "escape.h"
#include "log.h"

/* The only process-wide state in rxectl: set once in main(). */
static struct {
	int verbose;
	int journal;		/* -1 unknown, 0 stderr, 1 journal */
	log_sink_fn sink;
	void *sink_arg;
	char first_error[2048];	/* the first LOG_ERR message, for --json's `error` member */
	char first_warning[2048];	/* the first LOG_WARNING: why an exit 3 happened */
} log_state = { .journal = -1 };

const char *log_first_error(void)
{
	return log_state.first_error[0] ? log_state.first_error : NULL;
}

const char *log_first_warning(void)
{
	return log_state.first_warning[0] ? log_state.first_warning : NULL;
}

void log_init(int verbose)
{
	log_state.verbose = verbose;
	log_state.journal = -1;
}

int log_verbosity(void)
{
	return log_state.verbose;
}

void log_set_sink(log_sink_fn fn, void *arg)
{
	log_state.sink = fn;
	log_state.sink_arg = arg;
}

/*
 * systemd sets $JOURNAL_STREAM to "DEV:INODE" of the stream it connected
 * to stdout/stderr.  If stderr is still that stream, writing there would put
 * the message in the journal at the unit's default priority; using the
 * native protocol instead keeps the priority and adds no duplicate line.
 */
static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(STDERR_FILENO, &st) < 0)
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_vmsg(int level, const char *fmt, va_list ap)
{
	char raw[2048], msg[2048];

	if (level >= LOG_DEBUG && log_state.verbose <= 0)
		return;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	/* Messages quote config values, file contents and peers' strings: no control characters
	 * reach the terminal or the journal (messages are one line each, so none is lost). */
	if (str_needs_escape(raw))
		str_escape(raw, msg, sizeof(msg));
	else
		memcpy(msg, raw, sizeof(msg));
	if (level <= LOG_ERR && !log_state.first_error[0])
		memcpy(log_state.first_error, msg, sizeof(msg));
	if (level == LOG_WARNING && !log_state.first_warning[0])
		memcpy(log_state.first_warning, msg, sizeof(msg));

	if (log_state.sink) {
		log_state.sink(level, msg, log_state.sink_arg);
		return;
	}
	if (log_state.journal < 0)
		log_state.journal = stderr_is_journal();
	if (log_state.journal &&
	    sd_journal_print(level, "rxectl: %s", msg) == 0)
		return;
	fprintf(stderr, "rxectl: %s\n", msg);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

int log_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_ERR, fmt, ap);
	va_end(ap);
	return code;
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_WARNING, fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_INFO, fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_DEBUG, fmt, ap);
	va_end(ap);
}
