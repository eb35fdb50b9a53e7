// SPDX-License-Identifier: GPL-2.0
/* cmd_enable.c - `rxectl enable|disable NETDEV`: declare it in rxe.conf and (un)hook its rxe@.service. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "config_edit.h"
#include "lock.h"
#include "log.h"
#include "names.h"
#include "netdev.h"
#include "output.h"
#include "rxe.h"
#include "sdbus.h"

#define UNIT_JOB_TIMEOUT 60	/* seconds to wait for systemd to start or stop a unit */
#define NOW_WAIT 10		/* seconds --now waits for the port, as `up` does by default */

enum { EDIT_NAME = 1, EDIT_NOW };
const struct opt_spec cmd_enable_opts[] = {
	{ "name", 0, "NAME", "the device name to write as `name =`", "rxe_NETDEV", EDIT_NAME },
	{ "now", 0, NULL, "also create the device now (start the unit)", NULL, EDIT_NOW },
	{ NULL },
};
const struct opt_spec cmd_disable_opts[] = {
	{ "now", 0, NULL, "also delete the device now (stop the unit)", NULL, EDIT_NOW },
	{ NULL },
};

/* Options shared by enable and disable; returns -1 to go on, else an exit code. */
static int parse_args(const char *cmd, struct rxectl *ctx, int argc, char **argv,
		      const char **netdev, const char **name, bool *now_)
{
	bool enable = !strcmp(cmd, "enable");
	const char *why;
	struct opts o;
	int opt;

	opts_init(&o, ctx, cmd, enable ? cmd_enable_opts : cmd_disable_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		switch (opt) {
		case EDIT_NAME:
			*name = o.value;
			break;
		case EDIT_NOW:
			*now_ = true;
			break;
		case OPTS_HELP:
			return RXECTL_OK;
		case OPTS_ERROR:
			return RXECTL_USAGE;
		}
	}
	if (!o.npos)
		return rxectl_usage_error(cmd, "say which NETDEV to %s.", cmd);
	*netdev = argv[1];
	if (o.npos > 1)
		return rxectl_usage_error(cmd, "%s takes one NETDEV, but also got '%s'.", cmd, argv[2]);
	if ((why = netdev_name_invalid(*netdev)))
		return log_error(RXECTL_USAGE, "netdev name '%s' %s.", *netdev, why);
	if (!strcmp(*netdev, RXE_CONF_GLOBAL))
		return log_error(RXECTL_USAGE, "[%s] is rxe.conf's section of settings, not a netdev, "
				 "so %s cannot %s it; edit that section by hand (rxe.conf(5)).",
				 RXE_CONF_GLOBAL, cmd, cmd);
	if (*name && (why = ibdev_name_invalid(*name)))
		return log_error(RXECTL_USAGE, "device name '%s' %s.", *name, why);
	return -1;
}

static int missing_file(struct rxectl *ctx)
{
	return log_error(RXECTL_USAGE, "the configuration file %s does not exist; check the path "
			 "given with -c or $RXECTL_CONFIG (to start a new file there, create it first: "
			 "touch %s).", ctx->config_path, ctx->config_path);
}

/*
 * Lock the config file's directory against other enable/disable runs, then read the file ("" if
 * the default file does not exist) and check it.  -1 to go on, else an exit code.
 */
static int load_text(struct rxectl *ctx, int *lock_fd, char **text, struct rxe_conf *conf)
{
	size_t len = 0;
	int err;

	/* A mistyped -c path is not silently created (nor its directory). */
	if (ctx->config_explicit && access(ctx->config_path, F_OK) < 0 && errno == ENOENT)
		return missing_file(ctx);
	*lock_fd = config_lock(ctx->config_path);
	if (*lock_fd < 0)
		return config_edit_error(RXECTL_FAIL, ctx->config_path, "lock for editing",
					 *lock_fd);
	err = config_read_text(ctx->config_path, text, &len);
	if (err == -ENOENT && ctx->config_explicit)
		return missing_file(ctx);
	if (err == -ENOENT) {
		*text = strdup("");
		if (!*text)
			return log_error(RXECTL_FAIL, "out of memory.");
	} else if (err < 0) {
		config_report_read_error(ctx->config_path, err);
		return RXECTL_USAGE;
	}
	/* Never edit a file we could not parse: say where it is broken instead. */
	if (config_parse_buf(*text, len, ctx->config_path, conf) < 0) {
		log_msg(LOG_ERR, "%s was not changed; fix the line above first.", ctx->config_path);
		return RXECTL_USAGE;
	}
	return -1;
}

static int save_text(struct rxectl *ctx, const char *text)
{
	struct rxe_conf check;
	int err;

	if (config_parse_string(text, ctx->config_path, &check) < 0)
		return log_error(RXECTL_FAIL, "the edited %s would not parse, so it was not written; "
				 "please report this as a bug.", ctx->config_path);
	config_free(&check);
	err = config_write_atomic(ctx->config_path, text);
	if (err < 0)
		return config_edit_error(RXECTL_FAIL, ctx->config_path, "write", err);
	return RXECTL_OK;
}

/* Does the netdev exist now?  (Errors count as "no": the unit waits for it anyway.) */
static bool netdev_exists(struct rxectl *ctx, const char *netdev)
{
	struct netdev_info info;
	struct netdev_ctx *nd = ctx_netdev(ctx);

	return nd && netdev_get_by_name(nd, netdev, &info) == 0;
}

/*
 * enable --now where systemd does not run: create the device as `rxectl up NETDEV` would, with
 * the name the edited file declares (the device model, not the up command, does the work).
 */
static int up_now(struct rxectl *ctx, const char *netdev, const char *text)
{
	const struct rxe_conf_entry *e;
	struct rxe_conf conf;
	int ret;

	if (config_parse_string(text, ctx->config_path, &conf) < 0)
		return log_error(RXECTL_FAIL, "%s does not parse after the edit; please report this "
				 "as a bug.", ctx->config_path);
	e = config_find_netdev(&conf, netdev);
	if (!e) {
		config_free(&conf);
		return log_error(RXECTL_FAIL, "%s is not declared in %s after the edit; please "
				 "report this as a bug.", netdev, ctx->config_path);
	}
	out_arr_begin(ctx->out, "devices");
	ret = rxe_up(ctx, netdev, e->name, NOW_WAIT);
	out_arr_end(ctx->out);
	config_free(&conf);
	return ret;
}

/*
 * What enable and disable share before they edit: their arguments, the unit name, the JSON
 * object's first members, and the config file's text and parse.  Returns -1 to go on, else the exit code.
 */
static int begin_edit(struct rxectl *ctx, const char *cmd, int argc, char **argv,
		      const char **netdev, const char **name, bool *now_, char *unit,
		      size_t unit_len, int *lock_fd, char **text, struct rxe_conf *conf)
{
	int ret;

	ret = parse_args(cmd, ctx, argc, argv, netdev, name, now_);
	if (ret >= 0)
		return ret;
	if (sdbus_rxe_unit(*netdev, unit, unit_len) < 0)
		return log_error(RXECTL_USAGE, "netdev name '%s' is too long for a unit name.", *netdev);
	/* --json: one object of what changed, for configuration tools (Ansible's changed_when). */
	out_obj_begin(ctx->out, NULL);
	out_str(ctx->out, "netdev", NULL, *netdev);
	out_str(ctx->out, "config", NULL, ctx->config_path);
	out_str(ctx->out, "unit", NULL, unit);
	return load_text(ctx, lock_fd, text, conf);
}

/*
 * The JSON members a successful enable or disable ends with: "config_changed" (rxe.conf was
 * written), "unit_changed" (the unit was enabled or disabled; null where systemd does not run)
 * and "changed" (either). What --now starts or stops is in "devices"/"removed", not in
 * "changed": starting an active unit or stopping an inactive one changes nothing.
 */
static void edit_result(struct rxectl *ctx, bool config_changed, int unit_changed)
{
	out_bool(ctx->out, "config_changed", NULL, config_changed);
	if (unit_changed < 0)
		out_null(ctx->out, "unit_changed", NULL);
	else
		out_bool(ctx->out, "unit_changed", NULL, unit_changed);
	out_bool(ctx->out, "changed", NULL, config_changed || unit_changed > 0);
}

int cmd_enable(struct rxectl *ctx, int argc, char **argv)
{
	const char *netdev = NULL, *name = NULL, *name_check, *why;
	const struct rxe_conf_entry *other;
	char unit[128], defname[RXE_IBDEV_NAME_MAX], *text = NULL, *edited = NULL;
	struct rxe_conf conf = { 0 };
	bool now_ = false, changed = false, units_changed = false;
	int ret, lock_fd = -1;

	ret = begin_edit(ctx, "enable", argc, argv, &netdev, &name, &now_, unit, sizeof(unit),
			 &lock_fd, &text, &conf);
	if (ret >= 0)
		goto out;
	/* A new section without --name gets the default name: it must be valid and free. */
	name_check = name;
	if (!name && !config_find_netdev(&conf, netdev) &&
	    default_ibdev_name(netdev, defname, sizeof(defname)) == 0) {
		name_check = defname;
		if ((why = ibdev_name_invalid(defname))) {
			ret = log_error(RXECTL_USAGE, "the default device name of %s, %s, %s; give "
					"one with --name.", netdev, defname, why);
			goto out;
		}
	}
	other = name_check ? config_find_name(&conf, name_check) : NULL;
	if (other && strcmp(other->netdev, netdev)) {
		ret = log_error(RXECTL_USAGE, "the device name %s is already given to %s (line %u of "
				"%s); choose another with --name.", name_check, other->netdev, other->line,
				ctx->config_path);
		goto out;
	}
	if (config_text_enable(text, netdev, name, &edited, &changed) < 0) {
		ret = log_error(RXECTL_FAIL, "out of memory.");
		goto out;
	}
	if (changed && (ret = save_text(ctx, edited)) != RXECTL_OK)
		goto out;
	close(lock_fd);		/* the file is written: let the next edit in */
	lock_fd = -1;
	out_text(ctx->out, changed ? "%s is now declared in %s.\n" : "%s was already declared in %s.\n",
		 netdev, ctx->config_path);

	if (!sdbus_systemd_running()) {
		log_info("systemd is not running, so no unit was enabled; the device is created by "
			 "`rxectl up` (or at boot where systemd runs).");
		ret = RXECTL_OK;
		if (now_)
			ret = up_now(ctx, netdev, changed ? edited : text);
		edit_result(ctx, changed, -1);
		goto out;
	}
	{
		const char *units[] = { unit, NULL };

		if (sdbus_enable(units, &units_changed) < 0) {
			ret = RXECTL_FAIL;
			goto out;
		}
	}
	out_text(ctx->out, units_changed ? "%s is enabled; it runs at boot and whenever %s appears.\n"
		 : "%s was already enabled.\n", unit, netdev);
	ret = RXECTL_OK;
	if (!now_) {
		edit_result(ctx, changed, units_changed);
		goto out;
	}
	if (!netdev_exists(ctx, netdev)) {
		log_info("%s does not exist yet; its rxe device is created when it appears.", netdev);
		edit_result(ctx, changed, units_changed);
		goto out;
	}
	if (sdbus_start("rxe-monitor.service", UNIT_JOB_TIMEOUT) < 0 ||
	    sdbus_start(unit, UNIT_JOB_TIMEOUT) < 0) {
		ret = RXECTL_FAIL;
		goto out;
	}
	out_text(ctx->out, "%s is started.\n", unit);
	edit_result(ctx, changed, units_changed);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	free(text);
	free(edited);
	config_free(&conf);
	return ret;
}

int cmd_disable(struct rxectl *ctx, int argc, char **argv)
{
	const char *netdev = NULL, *name = NULL;
	char unit[128], *text = NULL, *edited = NULL;
	struct rxe_conf conf = { 0 };
	bool now_ = false, changed = false, units_changed = false;
	int ret, lock_fd = -1;

	ret = begin_edit(ctx, "disable", argc, argv, &netdev, &name, &now_, unit, sizeof(unit),
			 &lock_fd, &text, &conf);
	if (ret >= 0)
		goto out;
	/* The config first: from here on the monitor leaves the netdev alone. */
	if (config_text_disable(text, netdev, &edited, &changed) < 0) {
		ret = log_error(RXECTL_FAIL, "out of memory.");
		goto out;
	}
	if (changed && (ret = save_text(ctx, edited)) != RXECTL_OK)
		goto out;
	close(lock_fd);		/* the file is written: let the next edit in */
	lock_fd = -1;
	out_text(ctx->out, changed ? "%s is no longer declared in %s.\n"
		 : "%s was not declared in %s.\n", netdev, ctx->config_path);
	ret = RXECTL_OK;
	if (sdbus_systemd_running()) {
		const char *units[] = { unit, NULL };

		if (sdbus_disable(units, &units_changed) < 0) {
			ret = RXECTL_FAIL;
			goto out;
		}
		out_text(ctx->out, units_changed ? "%s is disabled.\n" : "%s was not enabled.\n", unit);
		edit_result(ctx, changed, units_changed);
		if (now_ && sdbus_stop(unit, UNIT_JOB_TIMEOUT) < 0) {
			ret = RXECTL_FAIL;
			goto out;
		}
	} else {
		edit_result(ctx, changed, -1);
	}
	if (now_) {
		/* The unit's ExecStop removed the device if the unit ran; a device made by
		 * hand or by the monitor is removed here, under the creation lock. */
		struct rxe_dev *devs = NULL;
		size_t n = 0;

		if (!ctx_rdma_nl(ctx) || rxe_lock(ctx) < 0 || rxe_list(ctx, &devs, &n) < 0) {
			ret = RXECTL_FAIL;
			goto out;
		}
		if (rxe_find_by_netdev(devs, n, netdev)) {
			out_arr_begin(ctx->out, "removed");
			ret = rxe_down(ctx, netdev);
			out_arr_end(ctx->out);
		}
		free(devs);
		rxe_unlock(ctx);
	}
out:
	if (lock_fd >= 0)
		close(lock_fd);
	free(text);
	free(edited);
	config_free(&conf);
	return ret;
}
