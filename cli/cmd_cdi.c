// SPDX-License-Identifier: GPL-2.0
/* cmd_cdi.c - `rxectl cdi [--output DIR] [--json]`: write the CDI spec of the rxe devices for container runtimes. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cdi.h"
#include "log.h"
#include "output.h"
#include "rxectl.h"

enum { CDI_OUTPUT = 1 };

const struct opt_spec cmd_cdi_opts[] = {
	{ "output", 'o', "DIR", "write DIR/" CDI_FILE " instead (kept current only in the default)",
	  CDI_DIR, CDI_OUTPUT },
	{ NULL },
};

/* The spec in the JSON document, as written (output.h has no raw JSON, so walk it). An array's
 * members get the key "": output.c adds a value without a key to nothing, and a key to an array
 * is ignored (the env lists came out empty). */
static void out_json(struct output *o, const char *key, struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_object:
		out_obj_begin(o, key);
		json_object_object_foreach(v, k, val)
			out_json(o, k, val);
		out_obj_end(o);
		break;
	case json_type_array:
		out_arr_begin(o, key);
		for (size_t i = 0; i < json_object_array_length(v); i++)
			out_json(o, "", json_object_array_get_idx(v, i));
		out_arr_end(o);
		break;
	case json_type_int:
		out_int(o, key, NULL, json_object_get_int64(v));
		break;
	case json_type_boolean:
		out_bool(o, key, NULL, json_object_get_boolean(v));
		break;
	case json_type_null:
		out_null(o, key, NULL);
		break;
	default:
		out_str(o, key, NULL, json_object_get_string(v));
		break;
	}
}

int cmd_cdi(struct rxectl *ctx, int argc, char **argv)
{
	const char *dir = CDI_DIR;
	bool custom = false;
	struct output *o = ctx->out;
	struct json_object *spec;
	struct cdi_dev *v = NULL;
	struct cdi_node cm;
	char path[PATH_MAX];
	bool have_cm;
	struct opts op;
	struct stat st;
	size_t n = 0;
	int opt, err;

	opts_init(&op, ctx, "cdi", cmd_cdi_opts, argc, argv);
	while ((opt = opts_next(&op)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
		if (opt == OPTS_ARG)
			return rxectl_usage_error("cdi", "cdi takes no arguments, but got '%s'.", op.arg);
		if (opt == CDI_OUTPUT)
			dir = op.value, custom = true;
	}
	if (!dir[0])
		return rxectl_usage_error("cdi", "--output needs a directory, not ''.");
	/* --output names a directory that must be there; the default one is created */
	if (custom && stat(dir, &st) < 0)
		return rxectl_usage_error("cdi", "--output %s: %s; give an existing directory.", dir,
					  strerror(errno));
	if (custom && !S_ISDIR(st.st_mode))
		return rxectl_usage_error("cdi", "--output %s is not a directory.", dir);
	snprintf(path, sizeof(path), "%s/%s", dir, CDI_FILE);
	if (!ctx_rdma_nl(ctx))
		return RXECTL_FAIL;
	if (cdi_collect(ctx, &v, &n, &cm, &have_cm, true) < 0)
		return RXECTL_FAIL;
	spec = cdi_spec_build(v, n, have_cm ? &cm : NULL);
	err = cdi_write(dir, spec, false, NULL);
	if (err < 0) {
		json_object_put(spec);
		free(v);
		return log_error(RXECTL_FAIL, "cannot write %s: %s.", path, strerror(-err));
	}

	out_obj_begin(o, NULL);
	out_str(o, "path", NULL, path);
	out_str(o, "kind", NULL, CDI_KIND);
	if (!spec) {
		log_warn("there is no rxe device with a uverbs node, so there is no CDI spec: "
			 "removed %s if it was there; create a device with `rxectl up NETDEV`.", path);
		out_arr_begin(o, "devices");
		out_arr_end(o);
		out_null(o, "spec", NULL);
		out_obj_end(o);
		free(v);
		return RXECTL_OK;
	}
	out_text(o, "wrote %s (CDI %s):\n", path, CDI_VERSION);
	out_arr_begin(o, "devices");
	for (size_t i = 0; i <= n; i++) {
		char q[128];

		snprintf(q, sizeof(q), "%s=%s", CDI_KIND, i < n ? v[i].name : "all");
		out_str(o, "device", "  %s", q);
		if (i < n)
			out_text(o, "  %s\n", v[i].node.path);
		else
			out_text(o, "  every device above\n");
	}
	out_arr_end(o);
	if (have_cm)
		out_text(o, "  with each: %s (RDMA CM)\n", CDI_RDMA_CM);
	else
		out_text(o, "  (no %s: load rdma_ucm for RDMA CM programs, then run `rxectl cdi` "
			 "again)\n", CDI_RDMA_CM);
	out_text(o, "use: podman run --device %s=%s IMAGE\n", CDI_KIND, v[0].name);
	out_str(o, "memlock", "memlock: %s\n", cdi_memlock_note);
	out_json(o, "spec", spec);
	out_obj_end(o);
	json_object_put(spec);
	free(v);
	return RXECTL_OK;
}
