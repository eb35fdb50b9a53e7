// SPDX-License-Identifier: GPL-2.0
/* run_tool.c - posix_spawn a tool with its output on a pipe: no shell, no inherited descriptors of ours. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_tool.h"

#define SPAWN_OUTPUT_MAX (64u << 20)

extern char **environ;

char *spawn_capture(const char *const argv[], int *status)
{
	posix_spawn_file_actions_t fa;
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int fds[2], ws;
	pid_t pid;

	*status = -1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return NULL;
	if (posix_spawn_file_actions_init(&fa)) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	/* dup2 clears close-on-exec on the child's stdout; every other fd of ours is CLOEXEC */
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	for (;;) {
		ssize_t r;

		if (len + 4096 + 1 > cap) {
			char *nb = cap >= SPAWN_OUTPUT_MAX ? NULL : realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!nb)
				break;	/* keep what we have; the tool gets EPIPE */
			buf = nb;
		}
		r = read(fds[0], buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fds[0]);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(ws))
		*status = WEXITSTATUS(ws);
	if (buf)
		buf[len] = '\0';
	return buf;
}
