/* SPDX-License-Identifier: GPL-2.0 */
/* file_replace.h - replace a file atomically (the Prometheus textfile, the CDI spec). */
#ifndef RXECTL_FILE_REPLACE_H
#define RXECTL_FILE_REPLACE_H

#include <stddef.h>

/*
 * Replace `path` atomically with `text`: a temporary file in the same directory, mode 0644,
 * written and fsync'd, then renamed over path (a reader -- node_exporter, a container runtime
 * reading CDI specs -- sees the old file or the new one, never half of one).  0 or a negative
 * errno; the temporary file is removed.
 */
int file_replace(const char *path, const char *text, size_t len);

#endif
