// SPDX-License-Identifier: GPL-2.0
/* sdbus.c - enable/disable/start/stop units through systemd's D-Bus API (libsystemd sd-bus). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "sdbus.h"
#include "util.h"

#define SD_DEST  "org.freedesktop.systemd1"
#define SD_PATH  "/org/freedesktop/systemd1"
#define SD_IFACE "org.freedesktop.systemd1.Manager"

bool sdbus_systemd_running(void)
{
	return sd_booted() > 0;
}

int sdbus_rxe_unit(const char *netdev, char *buf, size_t len)
{
	size_t k = 0;
	int w = snprintf(buf, len, "rxe@");

	if (w < 0 || (size_t)w >= len)
		return -ENAMETOOLONG;
	k = (size_t)w;
	for (const char *p = netdev; *p; p++) {
		unsigned char c = (unsigned char)*p;
		char tmp[8];

		if (c == '/')
			snprintf(tmp, sizeof(tmp), "-");
		else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == ':' || c == '_' || (c == '.' && p != netdev))
			snprintf(tmp, sizeof(tmp), "%c", c);
		else
			snprintf(tmp, sizeof(tmp), "\\x%02x", c);
		if (k + strlen(tmp) >= len)
			return -ENAMETOOLONG;
		memcpy(buf + k, tmp, strlen(tmp) + 1);
		k += strlen(tmp);
	}
	if (k + sizeof(".service") > len)
		return -ENAMETOOLONG;
	memcpy(buf + k, ".service", sizeof(".service"));
	return 0;
}

static int bus_open(sd_bus **bus)
{
	int err = sd_bus_open_system(bus);

	if (err < 0)
		log_msg(LOG_ERR, "cannot connect to the system D-Bus to talk to systemd: %s.",
			strerror(-err));
	return err;
}

int sdbus_default_memlock(uint64_t *soft)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus *bus = NULL;
	int r = sd_bus_open_system(&bus);	/* quiet: the doctor words what it cannot learn */

	if (r >= 0)
		r = sd_bus_get_property_trivial(bus, "org.freedesktop.systemd1",
						"/org/freedesktop/systemd1",
						"org.freedesktop.systemd1.Manager",
						"DefaultLimitMEMLOCKSoft", &e, 't', soft);
	sd_bus_error_free(&e);
	sd_bus_unref(bus);
	return r < 0 ? r : 0;
}

/* The one sentence for a failed call: systemd's message if it sent one. */
static int call_failed(const char *what, const sd_bus_error *e, int err)
{
	if (sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED) || err == -EACCES || err == -EPERM)
		log_msg(LOG_ERR, "systemd refused %s (%s); run rxectl as root.", what,
			e->message ? e->message : strerror(-err));
	else
		log_msg(LOG_ERR, "systemd could not %s: %s.", what,
			e->message ? e->message : strerror(-err));
	return err < 0 ? err : -EIO;
}

/* The a(sss) list of changes EnableUnitFiles/DisableUnitFiles return. */
static int read_changes(sd_bus_message *reply, bool *changed)
{
	const char *type, *from, *to;
	int err;

	*changed = false;
	err = sd_bus_message_enter_container(reply, 'a', "(sss)");
	if (err < 0)
		return err;
	while ((err = sd_bus_message_read(reply, "(sss)", &type, &from, &to)) > 0) {
		log_debug("systemd: %s %s -> %s", type, from, to);
		*changed = true;
	}
	if (err < 0)
		return err;
	return sd_bus_message_exit_container(reply);
}

static int unit_files(const char *method, const char *const *units, bool *changed)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	sd_bus *bus = NULL;
	bool enable = !strcmp(method, "EnableUnitFiles");
	char what[128];
	int carries, err;

	snprintf(what, sizeof(what), "%s %s", enable ? "enable" : "disable", units[0]);
	err = bus_open(&bus);
	if (err < 0)
		return err;
	err = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_IFACE, method);
	if (err >= 0)
		err = sd_bus_message_append_strv(m, (char **)units);
	if (err >= 0)
		err = enable ? sd_bus_message_append(m, "bb", 0, 0) : sd_bus_message_append(m, "b", 0);
	if (err < 0) {
		log_msg(LOG_ERR, "cannot build the D-Bus call %s: %s.", method, strerror(-err));
		goto out;
	}
	err = sd_bus_call(bus, m, 0, &e, &reply);
	if (err < 0) {
		err = call_failed(what, &e, err);
		goto out;
	}
	if (enable && sd_bus_message_read(reply, "b", &carries) < 0)
		carries = 0;
	err = read_changes(reply, changed);
	if (err < 0) {
		log_msg(LOG_ERR, "cannot read systemd's reply to %s: %s.", method, strerror(-err));
		goto out;
	}
	sd_bus_error_free(&e);
	if (!*changed)		/* no link made or removed: nothing for systemd to reload */
		goto out;
	/* A reload can take long on a loaded or slow machine: systemctl daemon-reload waits 6 min. */
	sd_bus_set_method_call_timeout(bus, 6 * 60 * 1000000ULL);
	err = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_IFACE, "Reload", &e, NULL, "");
	if (err < 0)
		err = call_failed("reload its units", &e, err);
out:
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
	return err < 0 ? err : 0;
}

int sdbus_reload(void)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus *bus = NULL;
	int err = bus_open(&bus);

	if (err < 0)
		return err;
	err = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_IFACE, "Reload", &e, NULL, "");
	if (err < 0)
		err = call_failed("reload its units", &e, err);
	sd_bus_error_free(&e);
	sd_bus_flush_close_unref(bus);
	return err < 0 ? err : 0;
}

int sdbus_enable(const char *const *units, bool *changed)
{
	return unit_files("EnableUnitFiles", units, changed);
}

int sdbus_disable(const char *const *units, bool *changed)
{
	return unit_files("DisableUnitFiles", units, changed);
}

struct job_wait {
	char path[256];		/* our job, once StartUnit/StopUnit answered */
	char result[32];
	bool done;
};

/* JobRemoved(u id, o job, s unit, s result) */
static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct job_wait *w = userdata;
	const char *path, *unit, *result;
	uint32_t id;

	if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
		return 0;
	if (w->path[0] && !strcmp(path, w->path)) {
		snprintf(w->result, sizeof(w->result), "%s", result);
		w->done = true;
	}
	return 0;
}


static int unit_job(const char *method, const char *unit, int timeout)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	sd_bus_slot *slot = NULL;
	struct job_wait w = { 0 };
	bool start = !strcmp(method, "StartUnit");
	const char *path;
	char what[160];
	sd_bus *bus = NULL;
	double deadline;
	int err;

	snprintf(what, sizeof(what), "%s %s", start ? "start" : "stop", unit);
	err = bus_open(&bus);
	if (err < 0)
		return err;
	err = sd_bus_match_signal(bus, &slot, SD_DEST, SD_PATH, SD_IFACE, "JobRemoved",
				  on_job_removed, &w);
	if (err >= 0)
		err = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_IFACE, "Subscribe", &e, NULL, "");
	if (err < 0) {
		err = call_failed("send job notifications", &e, err);
		goto out;
	}
	err = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_IFACE, method, &e, &reply, "ss",
				 unit, "replace");
	if (err < 0) {
		err = call_failed(what, &e, err);
		goto out;
	}
	err = sd_bus_message_read(reply, "o", &path);
	if (err < 0) {
		log_msg(LOG_ERR, "cannot read systemd's reply to %s: %s.", method, strerror(-err));
		goto out;
	}
	snprintf(w.path, sizeof(w.path), "%s", path);
	log_debug("systemd job %s: %s", w.path, what);
	deadline = mono_sec() + timeout;
	while (!w.done) {
		double left = deadline - mono_sec();

		err = sd_bus_process(bus, NULL);
		if (err < 0) {
			log_msg(LOG_ERR, "lost the D-Bus connection to systemd: %s.", strerror(-err));
			goto out;
		}
		if (err > 0)
			continue;
		if (left <= 0) {
			err = log_error(-ETIMEDOUT, "systemd did not finish the job to %s within %d s; "
					"see `systemctl status %s`.", what, timeout, unit);
			goto out;
		}
		sd_bus_wait(bus, (uint64_t)(left * 1e6));
	}
	err = 0;
	if (strcmp(w.result, "done")) {
		err = log_error(-EIO, "systemd could not %s (job result: %s); see `journalctl -u %s`.",
				what, w.result, unit);
	}
out:
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	sd_bus_slot_unref(slot);
	sd_bus_flush_close_unref(bus);
	return err;
}

int sdbus_start(const char *unit, int timeout)
{
	return unit_job("StartUnit", unit, timeout);
}

int sdbus_stop(const char *unit, int timeout)
{
	return unit_job("StopUnit", unit, timeout);
}
