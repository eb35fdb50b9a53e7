// SPDX-License-Identifier: GPL-2.0
/* cmd_debug.c - `rxectl debug on|off|status [DEVICE]`: rdma_rxe's debug log via dynamic debug. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "driver.h"
#include "log.h"
#include "util.h"
#include "output.h"

/*
 * rdma_rxe (the kernel's and the bundled one) logs through pr_debug()/ibdev_dbg(), which
 * CONFIG_DYNAMIC_DEBUG turns on and off per call site.  Neither driver has a debug module
 * parameter on the kernels we support; dynamic debug works per module, not per device.
 */
static const char *const control_files[] = {
	"/proc/dynamic_debug/control",		/* since 5.9, without debugfs */
	"/sys/kernel/debug/dynamic_debug/control",
};

static const char *control_file(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(control_files); i++)
		if (access(control_files[i], F_OK) == 0)
			return control_files[i];
	return NULL;
}

/* Count rdma_rxe's debug call sites and how many print ("=p" among the flags). */
static int count_sites(const char *path, unsigned int *total, unsigned int *on)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	*total = *on = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *flags;

		if (!strstr(line, " [rdma_rxe]"))
			continue;
		(*total)++;
		/* "file:line [rdma_rxe]function =FLAGS \"format\"" */
		flags = strstr(strstr(line, " [rdma_rxe]"), " =");
		if (flags && memchr(flags + 2, 'p', strcspn(flags + 2, " \n")))
			(*on)++;
	}
	fclose(f);
	return 0;
}

static int debug_report(struct rxectl *ctx, const char *path, const char *dev)
{
	struct output *o = ctx->out;
	unsigned int total, on;
	int err = count_sites(path, &total, &on);

	if (err < 0)
		return log_error(RXECTL_FAIL, "cannot read %s: %s; run rxectl as root.", path,
				 strerror(-err));
	out_obj_begin(o, NULL);
	out_bool(o, "enabled", NULL, on > 0);
	out_text(o, "rdma_rxe debug messages are %s", on > 0 ? "on" : "off");
	out_uint(o, "sites_enabled", ": %llu", on);
	out_uint(o, "sites", " of %llu call sites print", total);
	out_str(o, "control", " (%s)", path);
	if (dev)
		out_str(o, "device", "; this covers every rxe device, %s included", dev);
	out_str(o, "read_with", "; read them with %s.\n", "`dmesg -w` or `journalctl -k -f`");
	out_null(o, "module_parameter", NULL);
	out_obj_end(o);
	return RXECTL_OK;
}

int cmd_debug(struct rxectl *ctx, int argc, char **argv)
{
	const char *action, *dev = NULL, *path;
	struct rxe_dev d;
	struct opts o;
	int opt, err;

	opts_init(&o, ctx, "debug", NULL, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
	}
	if (!o.npos)
		return rxectl_usage_error("debug", "debug needs on, off or status.");
	action = argv[1];
	if (strcmp(action, "on") && strcmp(action, "off") && strcmp(action, "status"))
		return rxectl_usage_error("debug", "unknown debug action '%s'; use on, off or "
					  "status.", action);
	if (o.npos > 2)
		return rxectl_usage_error("debug", "debug takes at most one DEVICE, but got '%s' "
					  "too.", argv[3]);
	if (o.npos == 2) {
		err = diag_pick_device(ctx, "debug", argv[2], &d);
		if (err != RXECTL_OK)
			return err;
		dev = d.name;
	}
	if (access("/sys/module/rdma_rxe", F_OK) != 0)
		return log_error(RXECTL_FAIL, "rdma_rxe is not loaded, and its debug messages exist "
				 "only while it is; run `rxectl up` first.");
	path = control_file();
	if (!path) {
		if (access("/sys/kernel/debug", F_OK) == 0 && access("/proc/dynamic_debug", F_OK) != 0)
			return log_error(RXECTL_FAIL, "no dynamic debug control file: debugfs is not "
					 "mounted (`mount -t debugfs none /sys/kernel/debug`), or this "
					 "kernel is built without CONFIG_DYNAMIC_DEBUG.");
		return log_error(RXECTL_FAIL, "this kernel is built without CONFIG_DYNAMIC_DEBUG, so "
				 "rdma_rxe's debug messages are compiled out; only its warnings and "
				 "errors reach the kernel log (`dmesg`).");
	}
	if (strcmp(action, "status")) {
		err = write_line(path, !strcmp(action, "on") ? "module rdma_rxe +p" :
				    "module rdma_rxe -p");
		if (err == -EPERM || err == -EACCES)
			return log_error(RXECTL_FAIL, "writing %s was refused (%s); run rxectl as "
					 "root.", path, strerror(-err));
		if (err < 0)
			return log_error(RXECTL_FAIL, "writing %s failed: %s.", path, strerror(-err));
		if (!strcmp(action, "on"))
			log_info("debug messages last until rdma_rxe is unloaded; they can be many "
				 "under traffic, turn them off with `rxectl debug off`.");
	}
	return debug_report(ctx, path, dev);
}
