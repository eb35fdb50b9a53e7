/* SPDX-License-Identifier: GPL-2.0 */
/* run_tool.h - run a helper tool (nft, iptables-legacy-save) without a shell and read its output. */
#ifndef RXECTL_RUN_TOOL_H
#define RXECTL_RUN_TOOL_H

/*
 * Run argv[0] (an absolute path) with `argv` through posix_spawn: no shell, so nothing in
 * the arguments is interpreted; standard input and error are /dev/null, standard output
 * is read whole (up to 64 MiB).  Returns the output as a malloc'd NUL-terminated string,
 * or NULL (cannot run it, out of memory); *status is the exit status, or -1 when the tool
 * could not run or was killed.
 */
char *spawn_capture(const char *const argv[], int *status);

#endif
