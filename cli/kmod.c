// SPDX-License-Identifier: GPL-2.0
/* kmod.c - kernel modules through libkmod: state, loading, and which rdma_rxe is loaded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <libkmod.h>

#include "driver.h"
#include "kmod.h"
#include "log.h"
#include "util.h"

static struct kmod_ctx *kctx_new(void)
{
	struct kmod_ctx *k = kmod_new(NULL, NULL);

	if (k)
		kmod_load_resources(k);
	return k;
}

/* Lookup by name or alias; NULL-terminated list or NULL. */
static struct kmod_list *lookup(struct kmod_ctx *k, const char *name)
{
	struct kmod_list *list = NULL;

	if (kmod_module_new_from_lookup(k, name, &list) < 0)
		return NULL;
	return list;
}

static int sys_module_exists(const char *name)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	f = fopen(path, "re");
	if (!f)
		return errno == EISDIR;	/* a directory: it exists */
	fclose(f);
	return 1;
}

int module_state(const char *name)
{
	struct kmod_ctx *k;
	struct kmod_list *list, *it;
	int state = MODULE_NOT_AVAILABLE;

	if (sys_module_exists(name))
		return MODULE_LOADED;
	k = kctx_new();
	if (!k)
		return -ENOMEM;
	list = lookup(k, name);
	kmod_list_foreach(it, list) {
		struct kmod_module *m = kmod_module_get_module(it);
		int init = kmod_module_get_initstate(m);

		if (init == KMOD_MODULE_BUILTIN || init == KMOD_MODULE_LIVE ||
		    init == KMOD_MODULE_COMING)
			state = MODULE_LOADED;
		else if (kmod_module_get_path(m) && state != MODULE_LOADED)
			state = MODULE_AVAILABLE;
		kmod_module_unref(m);
	}
	kmod_module_unref_list(list);
	kmod_unref(k);
	return state;
}

int module_load(const char *name)
{
	struct kmod_ctx *k;
	struct kmod_list *list, *it;
	int err = -ENOENT;

	if (sys_module_exists(name))
		return 0;
	k = kctx_new();
	if (!k)
		return -ENOMEM;
	list = lookup(k, name);
	kmod_list_foreach(it, list) {
		struct kmod_module *m = kmod_module_get_module(it);

		err = kmod_module_probe_insert_module(m, KMOD_PROBE_APPLY_BLACKLIST_ALIAS_ONLY,
						      NULL, NULL, NULL, NULL);
		kmod_module_unref(m);
		if (err > 0)		/* blacklisted */
			err = -EPERM;
		if (err == 0 || err == -EEXIST) {
			err = 0;
			break;
		}
	}
	kmod_module_unref_list(list);
	kmod_unref(k);
	log_debug("kmod: loading %s: %s", name, err ? strerror(-err) : "ok");
	return err;
}

void report_no_rdma_kernel(void)
{
	struct utsname u;

	uname(&u);
	log_msg(LOG_ERR, "kernel %s has no RDMA support (no ib_core module, no RDMA netlink), so it "
		"cannot run rdma_rxe; boot a kernel built with CONFIG_INFINIBAND, such as your "
		"distribution's stock kernel.", u.release);
}

int modules_load_rxe(void)
{
	return rxe_driver_ensure(RXE_DRIVER_AUTO);
}

int rxe_driver_version(char *buf, size_t len)
{
	FILE *f = fopen("/sys/module/rdma_rxe/version", "re");

	if (len)
		buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

const char *rxe_driver_kind(void)
{
	char v[128];

	if (!sys_module_exists("rdma_rxe"))
		return NULL;
	rxe_driver_version(v, sizeof(v));
	return rxe_is_bundled_version(v) ? "bundled" : "in-tree";
}

int module_load_policy(const char *name, char *install_cmd, size_t len, int *blacklisted)
{
	struct kmod_ctx *k;
	struct kmod_list *list = NULL, *filtered = NULL;
	int err = 0;

	if (len)
		install_cmd[0] = '\0';
	*blacklisted = 0;
	k = kctx_new();
	if (!k)
		return -ENOMEM;
	list = lookup(k, name);
	if (list) {
		struct kmod_module *m = kmod_module_get_module(list);
		const char *path = kmod_module_get_path(m);
		const char *cmd = kmod_module_get_install_commands(m);

		/* modules.dep may still name a file that is gone */
		if (path && access(path, R_OK) != 0 && errno == ENOENT)
			err = -ENOENT;
		if (cmd)
			snprintf(install_cmd, len, "%s", cmd);
		if (kmod_module_apply_filter(k, KMOD_FILTER_BLACKLIST, list, &filtered) == 0) {
			*blacklisted = filtered == NULL;
			kmod_module_unref_list(filtered);
		}
		kmod_module_unref(m);
	}
	kmod_module_unref_list(list);
	kmod_unref(k);
	return err;
}
