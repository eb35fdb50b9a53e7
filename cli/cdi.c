// SPDX-License-Identifier: GPL-2.0
/* cdi.c - the CDI (Container Device Interface) spec of the rxe devices: build, print as YAML, write, keep current. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cdi.h"
#include "diag.h"
#include "file_replace.h"
#include "log.h"
#include "rxe.h"

const char cdi_memlock_note[] =
	"verbs programs pin the memory they register (ibv_reg_mr), which a container's "
	"RLIMIT_MEMLOCK limits unless it has CAP_IPC_LOCK: run it with `--ulimit memlock=-1:-1` "
	"(podman, docker) or `--cap-add IPC_LOCK`; in Kubernetes add IPC_LOCK to the container's "
	"securityContext.capabilities.";

bool cdi_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || !isalnum((unsigned char)name[0]) || !isalnum((unsigned char)name[len - 1]))
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-.:", *p))
			return false;
	return true;
}

static struct json_object *node_json(const struct cdi_node *nd)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "path", json_object_new_string(nd->path));
	json_object_object_add(o, "type", json_object_new_string("c"));
	json_object_object_add(o, "major", json_object_new_int64(nd->major));
	json_object_object_add(o, "minor", json_object_new_int64(nd->minor));
	json_object_object_add(o, "permissions", json_object_new_string("rw"));
	return o;
}

/* A device entry: its nodes, and the environment naming the devices (a verbs program opens a
 * device by name; UCX, so Open MPI and friends, takes UCX_NET_DEVICES). */
static struct json_object *device_json(const char *name, const struct cdi_dev *v, size_t n)
{
	struct json_object *dev = json_object_new_object(), *edits = json_object_new_object();
	struct json_object *env = json_object_new_array(), *nodes = json_object_new_array();
	size_t len = 32;
	char *names, *ucx;

	for (size_t i = 0; i < n; i++)
		len += 2 * strlen(v[i].name) + 4;
	names = calloc(1, len);
	ucx = calloc(1, len);
	for (size_t i = 0; names && ucx && i < n; i++) {
		snprintf(names + strlen(names), len - strlen(names), "%s%s", i ? "," : "", v[i].name);
		snprintf(ucx + strlen(ucx), len - strlen(ucx), "%s%s:1", i ? "," : "", v[i].name);
		json_object_array_add(nodes, node_json(&v[i].node));
	}
	if (names && ucx) {
		char *s = NULL;

		if (asprintf(&s, "RXECTL_RDMA_DEVICES=%s", names) > 0)
			json_object_array_add(env, json_object_new_string(s));
		free(s);
		s = NULL;
		if (asprintf(&s, "UCX_NET_DEVICES=%s", ucx) > 0)
			json_object_array_add(env, json_object_new_string(s));
		free(s);
	}
	free(names);
	free(ucx);
	json_object_object_add(dev, "name", json_object_new_string(name));
	json_object_object_add(edits, "env", env);
	json_object_object_add(edits, "deviceNodes", nodes);
	json_object_object_add(dev, "containerEdits", edits);
	return dev;
}

struct json_object *cdi_spec_build(const struct cdi_dev *v, size_t n, const struct cdi_node *cm)
{
	struct json_object *spec, *devs;

	if (!n)
		return NULL;
	spec = json_object_new_object();
	devs = json_object_new_array();
	json_object_object_add(spec, "cdiVersion", json_object_new_string(CDI_VERSION));
	json_object_object_add(spec, "kind", json_object_new_string(CDI_KIND));
	for (size_t i = 0; i < n; i++)
		json_object_array_add(devs, device_json(v[i].name, &v[i], 1));
	json_object_array_add(devs, device_json("all", v, n));
	json_object_object_add(spec, "devices", devs);
	if (cm) {
		struct json_object *edits = json_object_new_object(), *nodes = json_object_new_array();

		json_object_array_add(nodes, node_json(cm));
		json_object_object_add(edits, "deviceNodes", nodes);
		json_object_object_add(spec, "containerEdits", edits);
	}
	return spec;
}

/* --- YAML ------------------------------------------------------------------------------ */

static void y_scalar(FILE *f, struct json_object *v)
{
	const char *s;

	switch (json_object_get_type(v)) {
	case json_type_null:
		fputs("null", f);
		return;
	case json_type_boolean:
		fputs(json_object_get_boolean(v) ? "true" : "false", f);
		return;
	case json_type_int:
		fprintf(f, "%lld", (long long)json_object_get_int64(v));
		return;
	case json_type_double:
		fprintf(f, "%.17g", json_object_get_double(v));
		return;
	default:
		break;
	}
	/* a double-quoted YAML string: only '"', '\\' and control characters escaped */
	s = json_object_get_string(v);
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static bool is_container(struct json_object *v)
{
	return json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array);
}

static bool is_empty(struct json_object *v)
{
	return json_object_is_type(v, json_type_object) ? json_object_object_length(v) == 0 :
	       json_object_is_type(v, json_type_array) ? json_object_array_length(v) == 0 : false;
}

static void y_node(FILE *f, struct json_object *v, int ind, bool inline_first);

/* After "key:" or "-": a scalar or empty container on the same line, else a nested block. */
static void y_value(FILE *f, struct json_object *v, int ind)
{
	if (!is_container(v)) {
		fputc(' ', f);
		y_scalar(f, v);
		fputc('\n', f);
	} else if (is_empty(v)) {
		fputs(json_object_is_type(v, json_type_object) ? " {}\n" : " []\n", f);
	} else {
		fputc('\n', f);
		y_node(f, v, ind, false);
	}
}

/* A non-empty object or array at indentation `ind`; with inline_first the first line's
 * indentation is already printed (an object as an item of a sequence: "- key: ..."). */
static void y_node(FILE *f, struct json_object *v, int ind, bool inline_first)
{
	bool first = true;

	if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val) {
			if (!(first && inline_first))
				fprintf(f, "%*s", ind, "");
			first = false;
			fprintf(f, "%s:", key);
			y_value(f, val, ind + 2);
		}
		return;
	}
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *e = json_object_array_get_idx(v, i);

		if (!(first && inline_first))
			fprintf(f, "%*s", ind, "");
		first = false;
		fputc('-', f);
		if (json_object_is_type(e, json_type_object) && !is_empty(e)) {
			fputc(' ', f);
			y_node(f, e, ind + 2, true);
		} else {
			y_value(f, e, ind + 2);
		}
	}
}

void cdi_yaml_print(FILE *f, struct json_object *spec)
{
	const char *p = cdi_memlock_note;

	fputs("# The Soft-RoCE (rxe) devices of this host for containers, as CDI devices: written by\n"
	      "# `rxectl cdi`, kept current by rxectl (up, down, rxe@.service, rxe-monitor.service).\n"
	      "# Use: podman run --device " CDI_KIND "=DEVICE (or =all) IMAGE; see rxectl(8).\n"
	      "# Memory locking:\n#", f);
	/* the note, wrapped at ~96 columns */
	while (*p) {
		size_t n = strlen(p), cut = n;

		if (n > 90) {
			cut = 90;
			while (cut && p[cut] != ' ')
				cut--;
			if (!cut)
				cut = n;
		}
		fprintf(f, " %.*s\n#", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
	fputs("\n", f);
	y_node(f, spec, 0, false);
}

/* --- gathering and writing -------------------------------------------------------------- */

static bool node_of(const char *path, struct cdi_node *nd)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
		return false;
	snprintf(nd->path, sizeof(nd->path), "%s", path);
	nd->major = major(st.st_rdev);
	nd->minor = minor(st.st_rdev);
	return true;
}

int cdi_collect(struct rxectl *ctx, struct cdi_dev **out, size_t *n, struct cdi_node *cm,
		bool *have_cm, bool say)
{
	struct rxe_dev *devs = NULL;
	struct cdi_dev *v;
	size_t nd = 0;
	int err;

	*out = NULL;
	*n = 0;
	*have_cm = node_of(CDI_RDMA_CM, cm);
	err = rxe_list(ctx, &devs, &nd);
	if (err < 0)
		return err;
	v = calloc(nd + 1, sizeof(*v));
	if (!v) {
		free(devs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nd; i++) {
		char uv[64], path[96];
		int lvl = say ? LOG_WARNING : LOG_DEBUG;

		if (!cdi_name_ok(devs[i].name) || !strcmp(devs[i].name, "all")) {
			log_msg(lvl, "%s is left out of the CDI spec: a CDI device name begins and ends "
				"with a letter or digit (and `all` names every device).", devs[i].name);
			continue;
		}
		if (!diag_find_uverbs(devs[i].name, uv, sizeof(uv)) ||
		    (snprintf(path, sizeof(path), "/dev/infiniband/%s", uv),
		     !node_of(path, &v[*n].node))) {
			log_msg(lvl, "%s is left out of the CDI spec: it has no uverbs device node "
				"(is ib_uverbs loaded? `rxectl doctor %s`).", devs[i].name,
				devs[i].name);
			continue;
		}
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", devs[i].name);
		(*n)++;
	}
	free(devs);
	*out = v;
	return 0;
}

static char *spec_text(struct json_object *spec, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	cdi_yaml_print(f, spec);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool same_content(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "re");
	char *old = NULL;
	size_t olen = 0;
	bool same = false;

	if (!f)
		return false;
	old = malloc(len + 2);
	if (old)
		olen = fread(old, 1, len + 1, f);
	fclose(f);
	same = old && olen == len && !memcmp(old, text, len);
	free(old);
	return same;
}

int cdi_write(const char *dir, struct json_object *spec, bool if_changed, bool *changed)
{
	char path[PATH_MAX];
	size_t len = 0;
	char *text;
	int err = 0;
	bool dummy;

	changed = changed ? changed : &dummy;
	*changed = false;
	if (snprintf(path, sizeof(path), "%s/%s", dir, CDI_FILE) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (!spec) {
		if (unlink(path) == 0)
			*changed = true;
		else if (errno != ENOENT)
			return -errno;
		return 0;
	}
	text = spec_text(spec, &len);
	if (!text)
		return -ENOMEM;
	if (if_changed && same_content(path, text, len)) {
		free(text);
		return 0;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		err = -errno;
		free(text);
		return err;
	}
	/* a hidden name CDI's readers skip (neither .yaml nor .json) until the rename */
	err = file_replace(path, text, len);
	if (!err)
		*changed = true;
	free(text);
	return err;
}

void cdi_refresh(struct rxectl *ctx)
{
	struct json_object *spec;
	struct cdi_dev *v = NULL;
	struct cdi_node cm;
	bool have_cm, changed;
	size_t n = 0;
	int err;

	if (getenv("RXECTL_CDI") && !strcmp(getenv("RXECTL_CDI"), "no"))
		return;
	if (cdi_collect(ctx, &v, &n, &cm, &have_cm, false) < 0)
		return;	/* said why */
	spec = cdi_spec_build(v, n, have_cm ? &cm : NULL);
	err = cdi_write(CDI_DIR, spec, true, &changed);
	if (err < 0)
		log_warn("cannot update the CDI spec %s/%s: %s; run `rxectl cdi` to write it.",
			 CDI_DIR, CDI_FILE, strerror(-err));
	else if (changed)
		log_debug("%s %s/%s (%zu device%s)", spec ? "updated" : "removed", CDI_DIR, CDI_FILE,
			  n, n == 1 ? "" : "s");
	json_object_put(spec);
	free(v);
}
