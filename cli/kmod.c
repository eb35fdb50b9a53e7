// SPDX-License-Identifier: GPL-2.0
/* kmod.c - the libkmod adapter: module state, lookup, modinfo, load, insert, remove; no policy. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libkmod.h>

#include "kmod.h"
#include "log.h"

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

void module_dir(char *buf, size_t len)
{
	struct kmod_ctx *k = kmod_new(NULL, NULL);

	snprintf(buf, len, "%s", k && kmod_get_dirname(k) ? kmod_get_dirname(k) : "");
	if (k)
		kmod_unref(k);
}

int module_path(const char *name, char *buf, size_t len)
{
	struct kmod_ctx *k = kmod_new(NULL, NULL);
	struct kmod_list *list = NULL;
	int err = -ENOENT;

	if (len)
		buf[0] = '\0';
	if (!k)
		return -ENOMEM;
	if (kmod_module_new_from_lookup(k, name, &list) == 0 && list) {
		struct kmod_module *m = kmod_module_get_module(list);
		const char *p = kmod_module_get_path(m);

		if (p) {
			snprintf(buf, len, "%s", p);
			err = 0;
		}
		kmod_module_unref(m);
		kmod_module_unref_list(list);
	}
	kmod_unref(k);
	return err;
}

int module_file_info(const char *path, struct module_file_info *mi)
{
	struct kmod_ctx *k = kmod_new(NULL, NULL);
	struct kmod_module *m = NULL;
	struct kmod_list *info = NULL, *it;
	int err;

	memset(mi, 0, sizeof(*mi));
	if (!k)
		return -ENOMEM;
	err = kmod_module_new_from_path(k, path, &m);
	if (err == 0 && (err = kmod_module_get_info(m, &info)) >= 0) {
		err = 0;
		kmod_list_foreach(it, info) {
			const char *key = kmod_module_info_get_key(it);
			const char *val = kmod_module_info_get_value(it);

			if (!val)
				continue;
			if (!strcmp(key, "version"))
				snprintf(mi->version, sizeof(mi->version), "%s", val);
			else if (!strcmp(key, "srcversion"))
				snprintf(mi->srcversion, sizeof(mi->srcversion), "%s", val);
			else if (!strcmp(key, "depends"))
				snprintf(mi->depends, sizeof(mi->depends), "%s", val);
			else if (!strcmp(key, "sig_id"))
				snprintf(mi->sig_id, sizeof(mi->sig_id), "%s", val);
			else if (!strcmp(key, "signer"))
				snprintf(mi->signer, sizeof(mi->signer), "%s", val);
			else if (!strcmp(key, "sig_key"))
				snprintf(mi->sig_key, sizeof(mi->sig_key), "%s", val);
		}
		kmod_module_info_free_list(info);
	}
	if (m)
		kmod_module_unref(m);
	kmod_unref(k);
	return err;
}

int module_insert_file(const char *path)
{
	struct kmod_ctx *k = kmod_new(NULL, NULL);
	struct kmod_module *m = NULL;
	int err;

	if (!k)
		return -ENOMEM;
	kmod_load_resources(k);
	err = kmod_module_new_from_path(k, path, &m);
	if (err == 0)
		err = kmod_module_insert_module(m, 0, NULL);
	if (err == -EEXIST)
		err = 0;
	if (m)
		kmod_module_unref(m);
	kmod_unref(k);
	return err;
}

int module_remove(const char *name)
{
	struct kmod_ctx *k = kmod_new(NULL, NULL);
	struct kmod_module *m = NULL;
	int err;

	if (!k)
		return -ENOMEM;
	err = kmod_module_new_from_name(k, name, &m);
	if (err == 0)
		err = kmod_module_remove_module(m, 0);
	if (m)
		kmod_module_unref(m);
	kmod_unref(k);
	return err;
}
