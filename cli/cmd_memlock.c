// SPDX-License-Identifier: GPL-2.0
/* cmd_memlock.c - `rxectl memlock UNIT [--install | --remove]`: the memlock drop-in for one named service. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "config_edit.h"
#include "log.h"
#include "opts.h"
#include "output.h"
#include "rxectl.h"
#include "sdbus.h"

/*
 * RDMA programs pin their buffers, so a service that runs them needs
 * LimitMEMLOCK=infinity.  rxectl lifts the limit for no service by itself
 * (issue 14: least privilege); this command prints the drop-in that does it
 * for one service, or installs it as
 * /etc/systemd/system/UNIT.service.d/50-rxe-memlock.conf (the same text as
 * /usr/share/rxectl/memlock.conf), or removes it.
 */
#define DROPIN_NAME "50-rxe-memlock.conf"
#define DROPIN_TEXT "# written by `rxectl memlock`: RDMA programs pin their buffers (rxe@.service(8))\n" \
		    "[Service]\nLimitMEMLOCK=infinity\n"

enum { MEMLOCK_INSTALL = 1, MEMLOCK_REMOVE };
const struct opt_spec cmd_memlock_opts[] = {
	{ "install", 0, NULL, "write the drop-in for UNIT and reload systemd", NULL,
	  MEMLOCK_INSTALL },
	{ "remove", 0, NULL, "remove rxectl's drop-in for UNIT and reload systemd", NULL,
	  MEMLOCK_REMOVE },
	{ NULL },
};

/* A service's name as systemd takes it: "nginx" means nginx.service; other unit types have no
 * memlock limit of their own.  NULL if valid, else why not. */
static const char *service_name(const char *arg, char *unit, size_t len)
{
	const char *dot = strrchr(arg, '.');
	size_t n = strlen(arg);

	if (!n)
		return "is empty";
	for (const char *p = arg; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr(":-_.\\@", *p)))
			return "may only contain letters, digits and ':-_.\\@' (a systemd unit name)";
	if (arg[0] == '.' || arg[0] == '-')
		return "may not start with '.' or '-'";
	if (dot && strcmp(dot, ".service") &&
	    (!strcmp(dot, ".socket") || !strcmp(dot, ".target") || !strcmp(dot, ".timer") ||
	     !strcmp(dot, ".mount") || !strcmp(dot, ".path") || !strcmp(dot, ".slice") ||
	     !strcmp(dot, ".scope") || !strcmp(dot, ".device") || !strcmp(dot, ".swap") ||
	     !strcmp(dot, ".automount")))
		return "is not a service (only a service's processes pin memory for RDMA)";
	if (snprintf(unit, len, "%s%s", arg, dot && !strcmp(dot, ".service") ? "" : ".service") >=
	    (int)len)
		return "is too long for a unit name";
	return NULL;
}

static int reload(void)
{
	if (!sdbus_systemd_running()) {
		log_info("systemd is not running here: nothing to reload.");
		return RXECTL_OK;
	}
	return sdbus_reload() < 0 ? RXECTL_FAIL : RXECTL_OK;
}

int cmd_memlock(struct rxectl *ctx, int argc, char **argv)
{
	bool install = false, remove_ = false, changed = false;
	char unit[256 + sizeof(".service")], dir[512], path[512 + sizeof("/" DROPIN_NAME)];
	const char *why;
	struct opts o;
	int opt, err, ret = RXECTL_OK;

	opts_init(&o, ctx, "memlock", cmd_memlock_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
		install |= opt == MEMLOCK_INSTALL;
		remove_ |= opt == MEMLOCK_REMOVE;
	}
	if (install && remove_)
		return rxectl_usage_error("memlock", "--remove undoes --install; give one of them.");
	if (o.npos != 1)
		return rxectl_usage_error("memlock", "memlock takes exactly one UNIT, the service "
					  "that runs RDMA programs (e.g. nginx.service).");
	if (strlen(argv[1]) > 256)
		return log_error(RXECTL_USAGE, "unit name '%.40s...' is longer than 256 characters.",
				 argv[1]);
	why = service_name(argv[1], unit, sizeof(unit));
	if (why)
		return log_error(RXECTL_USAGE, "unit name '%s' %s.", argv[1], why);
	snprintf(dir, sizeof(dir), "%s/systemd/system/%s.d", RXECTL_SYSCONFDIR, unit);
	snprintf(path, sizeof(path), "%s/" DROPIN_NAME, dir);

	if (install) {
		char *old = NULL;
		size_t len;

		changed = !(config_read_text(path, &old, &len) == 0 && !strcmp(old, DROPIN_TEXT));
		free(old);
		if (changed) {
			err = config_write_atomic(path, DROPIN_TEXT);
			if (err == -EACCES || err == -EPERM || err == -EROFS)
				return log_error(RXECTL_FAIL, "cannot write %s: %s; run rxectl as root.",
						 path, strerror(-err));
			if (err == -ENOENT)
				return log_error(RXECTL_FAIL, "cannot write %s: %s/systemd/system does "
						 "not exist (is systemd installed?).", path,
						 RXECTL_SYSCONFDIR);
			if (err < 0)
				return log_error(RXECTL_FAIL, "cannot write %s: %s.", path,
						 strerror(-err));
			ret = reload();
		}
		out_text(ctx->out, changed ? "%s gets LimitMEMLOCK=infinity from %s; restart it "
			 "(systemctl restart %s) for its processes to have it.\n" :
			 "%s already gets LimitMEMLOCK=infinity from %s.\n", unit, path, unit);
	} else if (remove_) {
		changed = unlink(path) == 0;
		if (!changed && errno != ENOENT)
			return log_error(RXECTL_FAIL, "cannot remove %s: %s%s.", path, strerror(errno),
					 errno == EACCES || errno == EPERM ? "; run rxectl as root" : "");
		if (changed) {
			rmdir(dir);	/* only if nothing else is in it */
			ret = reload();
		}
		out_text(ctx->out, changed ? "%s no longer gets rxectl's memlock drop-in (%s removed); "
			 "restart it for its processes to lose it.\n" :
			 "%s had no rxectl memlock drop-in (%s).\n", unit, path);
	} else {
		out_text(ctx->out, "# %s\n" DROPIN_TEXT, path);
	}
	out_obj_begin(ctx->out, NULL);
	out_str(ctx->out, "unit", NULL, unit);
	out_str(ctx->out, "path", NULL, path);
	out_str(ctx->out, "dropin", NULL, DROPIN_TEXT);
	if (install || remove_) {
		out_bool(ctx->out, "installed", NULL, install);
		out_bool(ctx->out, "changed", NULL, changed);
	}
	out_obj_end(ctx->out);
	return ret;
}
