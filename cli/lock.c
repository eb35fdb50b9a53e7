// SPDX-License-Identifier: GPL-2.0
/* lock.c - the creation lock shared by `up`, the units and the monitor: flock(2) on a file in /run. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lock.h"
#include "log.h"

#ifndef RXECTL_RUNSTATEDIR
#define RXECTL_RUNSTATEDIR "/run"
#endif

const char *rxe_lock_path(void)
{
	const char *env = getenv("RXECTL_LOCK");

	return env && *env ? env : RXECTL_RUNSTATEDIR "/rxectl.lock";
}

static int open_lock(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600), err;

	if (fd >= 0)
		return fd;
	err = -errno;
	if (err == -EACCES || err == -EPERM || err == -EROFS)
		log_msg(LOG_ERR, "creating rxe devices needs root (rxectl cannot create its "
			"lock file %s); run rxectl as root (for example with sudo).", path);
	else
		log_msg(LOG_ERR, "cannot open the lock file %s: %s.", path, strerror(-err));
	return err;
}

int rxe_trylock(struct rxectl *ctx)
{
	const char *path = rxe_lock_path();
	int fd, err;

	if (ctx->locked)
		return 0;
	fd = open_lock(path);
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		ctx->lock_fd = fd;
		ctx->locked = true;
		log_debug("holding %s", path);
		return 0;
	}
	err = errno == EINTR ? -EWOULDBLOCK : -errno;
	close(fd);
	if (err != -EWOULDBLOCK)
		log_msg(LOG_ERR, "cannot lock %s: %s.", path, strerror(-err));
	return err;
}

int rxe_lock(struct rxectl *ctx)
{
	const char *path = rxe_lock_path();
	struct timespec pause = { .tv_sec = 0, .tv_nsec = 50 * 1000000L };
	bool said = false;
	int fd, err;

	if (ctx->locked)
		return 0;
	fd = open_lock(path);
	if (fd < 0)
		return fd;
	for (int i = 0; i < RXE_LOCK_WAIT * 20; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			ctx->lock_fd = fd;
			ctx->locked = true;
			log_debug("holding %s", path);
			return 0;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			err = -errno;
			close(fd);
			log_msg(LOG_ERR, "cannot lock %s: %s.", path, strerror(-err));
			return err;
		}
		if (!said) {
			log_debug("waiting for another rxectl to release %s", path);
			said = true;
		}
		nanosleep(&pause, NULL);
	}
	close(fd);
	log_msg(LOG_ERR, "another rxectl has held %s for %d s; check for a stuck process with "
		"`fuser -v %s`.", path, RXE_LOCK_WAIT, path);
	return -ETIMEDOUT;
}

void rxe_unlock(struct rxectl *ctx)
{
	if (!ctx->locked)
		return;
	flock(ctx->lock_fd, LOCK_UN);
	close(ctx->lock_fd);
	ctx->locked = false;
	ctx->lock_fd = -1;
}
