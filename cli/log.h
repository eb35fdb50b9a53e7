/* SPDX-License-Identifier: GPL-2.0 */
/* log.h - the one error path: every message starts with "rxectl: ". */
#ifndef RXECTL_LOG_H
#define RXECTL_LOG_H

#include <stdarg.h>
#include <syslog.h>

/*
 * Messages go to stderr as "rxectl: <sentence>".  When stderr is connected
 * to the journal (systemd sets $JOURNAL_STREAM), they go through
 * sd_journal_print() instead, with a proper priority and without being
 * duplicated.  log.c holds the only process-wide state: the verbosity and
 * an optional capture hook for tests.
 */
void log_init(int verbose);
int log_verbosity(void);

/* level is a syslog priority: LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG. */
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_vmsg(int level, const char *fmt, va_list ap);

/* The first LOG_ERR message of this run (without "rxectl: "), or NULL: the JSON `error` member. */
const char *log_first_error(void);
/* The first LOG_WARNING message, or NULL: the `error` member of a run that ends with a warning
 * only (exit 3, the netdev is not there). */
const char *log_first_warning(void);

/* log_error() returns `code` so a command can `return log_error(RXECTL_FAIL, ...)`. */
int log_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only with -v. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Tests: send every message (without the "rxectl: " prefix) to `fn` instead
 * of stderr/journal.  Pass NULL to restore.
 */
typedef void (*log_sink_fn)(int level, const char *msg, void *arg);
void log_set_sink(log_sink_fn fn, void *arg);

#endif
