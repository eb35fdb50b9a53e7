// SPDX-License-Identifier: GPL-2.0
/* test_output.c - the printer: one call per field gives text or JSON. */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "output.h"
#include "tap.h"

static char *render(bool json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	struct output *o = output_new(json, fp);

	out_obj_begin(o, NULL);
	out_arr_begin(o, "devices");
	out_obj_begin(o, NULL);
	out_str(o, "name", "%s", "rxe_eth0");
	out_str(o, "netdev", " on %s", "eth0");
	out_uint(o, "active_mtu", ", MTU %llu", 1024);
	out_int(o, "gid_index", NULL, -1);
	out_null(o, "driver", ", driver unknown");
	out_bool(o, "created", NULL, true);
	out_str(o, "quote", NULL, "a \"b\"\n");
	out_text(o, "\n");
	out_obj_end(o);
	out_arr_end(o);
	out_arr_begin(o, "missing");
	out_arr_end(o);
	out_obj_end(o);
	output_flush(o);
	output_free(o);
	fclose(fp);
	return text;
}

int main(void)
{
	char *text = render(false), *js = render(true);
	json_object *root = json_tokener_parse(js), *devs = NULL, *dev = NULL, *v = NULL, *miss = NULL;

	tap_plan(9);
	ok(!strcmp(text, "rxe_eth0 on eth0, MTU 1024, driver unknown\n"),
	   "text mode prints the text formats only");
	ok(root != NULL, "JSON mode prints one valid JSON document");
	ok(root && json_object_object_get_ex(root, "devices", &devs) &&
	   json_object_is_type(devs, json_type_array) && json_object_array_length(devs) == 1,
	   "devices is an array of one");
	dev = devs ? json_object_array_get_idx(devs, 0) : NULL;
	ok(dev && json_object_object_get_ex(dev, "name", &v) &&
	   !strcmp(json_object_get_string(v), "rxe_eth0"), "name is a string");
	ok(dev && json_object_object_get_ex(dev, "active_mtu", &v) && json_object_get_int(v) == 1024,
	   "active_mtu is a number");
	ok(dev && json_object_object_get_ex(dev, "gid_index", &v) && json_object_get_int(v) == -1,
	   "JSON-only fields appear in JSON");
	ok(dev && json_object_object_get_ex(dev, "driver", &v) && v == NULL, "null is null");
	ok(dev && json_object_object_get_ex(dev, "quote", &v) &&
	   !strcmp(json_object_get_string(v), "a \"b\"\n"), "strings are escaped by json-c and survive");
	ok(root && json_object_object_get_ex(root, "missing", &miss) &&
	   json_object_array_length(miss) == 0, "an empty array stays an empty array");
	json_object_put(root);
	free(text);
	free(js);
	return tap_done();
}
