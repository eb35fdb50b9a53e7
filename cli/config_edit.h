/* SPDX-License-Identifier: GPL-2.0 */
/* config_edit.h - change rxe.conf in place for enable/disable: keep every other line, replace atomically. */
#ifndef RXECTL_CONFIG_EDIT_H
#define RXECTL_CONFIG_EDIT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The text functions never touch a byte they do not have to: comments,
 * blank lines, other sections and unknown keys stay as they are.  They
 * return 0 with a malloc'd *out (free() it) and *changed telling whether
 * it differs from `text`, or -ENOMEM.  `text` must already parse (check
 * with config_parse_string() first).
 */

/*
 * Declare `netdev`: append a "[netdev]" section (separated by a blank line)
 * if there is none.  With `name`, the section's `name =` line is set to it
 * (replaced, or added right after the header); with name NULL an existing
 * section is left as it is.
 */
int config_text_enable(const char *text, const char *netdev, const char *name,
		       char **out, bool *changed);

/*
 * Set one key of the existing "[netdev]" section (the `mtu =` that `tune --persist` writes):
 * its line is replaced where it is ("key = value", the rest of the line with it), or added right
 * after the header; with value NULL the line is removed.  -ENOENT when there is no such section
 * (nothing is declared here on the side), else as above.
 */
int config_text_set_key(const char *text, const char *netdev, const char *key,
			const char *value, char **out, bool *changed);

/*
 * Remove the "[netdev]" section: its header and every line up to its last
 * key line.  Comment lines right before the next section are kept (they
 * usually describe that section), and so is everything before the header.
 */
int config_text_disable(const char *text, const char *netdev, char **out, bool *changed);

/*
 * Serialise read-modify-write cycles of `path` between processes: take an exclusive flock() on
 * the directory that holds it (the file itself is replaced by rename, so its lock would not
 * last).  The directory is created (0755) if missing.  While another process holds it, says so
 * once (log_info) and waits up to CONFIG_LOCK_WAIT seconds.  Once held, removes the temporary
 * files (".BASE.XXXXXX") an edit killed mid-write left there.  Returns the descriptor holding
 * the lock (close() releases it), -ETIMEDOUT, or -errno.
 */
#define CONFIG_LOCK_WAIT 10
int config_lock(const char *path);

/*
 * "rxectl: cannot DOING PATH: why; what to do." for an error of config_lock() or
 * config_write_atomic(): a read-only file system, an immutable file (root), no root, the lock
 * held too long, a file over the size limit.  Returns `code`.
 */
int config_edit_error(int code, const char *path, const char *doing, int err);

/*
 * Replace `path` (following a symlink) atomically: write a temporary file in
 * the same directory with the old file's mode and owner (0644 root for a new
 * file), fsync it, rename it over the file, fsync the directory.  The
 * directory is created (0755) if missing.  0 or -errno (-EFBIG: `text` is over
 * RXE_CONF_FILE_MAX, which the reader refuses); on failure the old file is untouched and the
 * temporary file removed, also when SIGINT/SIGTERM/SIGHUP/SIGQUIT come meanwhile (they are
 * held until then).
 */
int config_write_atomic(const char *path, const char *text);

/*
 * Set `mtu = value` (NULL: remove the line) in the [netdev] section of the file `path`, under
 * config_lock(), checked before and after, replaced atomically; every other byte of the file
 * stays.  *old gets the value it had ("" for none).  `before_write`, when not NULL, runs once the
 * edit is known to change the file and before it does (tune --persist records the old value
 * there); anything but RXECTL_OK from it stops the edit and is returned.  Returns RXECTL_OK,
 * -ENOENT when the file or the section does not exist (nothing printed), or an exit code after
 * saying what is wrong.
 */
typedef int (*config_before_write_fn)(const char *path, const char *netdev, const char *old,
				      void *arg);
int config_file_set_mtu(const char *path, const char *netdev, const char *value, char *old,
			size_t oldlen, config_before_write_fn before_write, void *arg);

#endif
