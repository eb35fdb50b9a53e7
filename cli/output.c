// SPDX-License-Identifier: GPL-2.0
/* output.c - the one printer layer: each field printed once, as text or into a json-c document. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "escape.h"
#include "output.h"

#define OUT_DEPTH 16

struct output {
	bool json;
	FILE *fp;
	json_object *root;
	json_object *stack[OUT_DEPTH];
	int depth;			/* number of open containers */
};

struct output *output_new(bool json, FILE *fp)
{
	struct output *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->json = json;
	o->fp = fp ? fp : stdout;
	return o;
}

void output_free(struct output *o)
{
	if (!o)
		return;
	json_object_put(o->root);
	free(o);
}

bool output_is_json(const struct output *o)
{
	return o && o->json;
}

void output_set_json(struct output *o, bool json)
{
	o->json = json;
}

int output_flush(struct output *o)
{
	if (o->json && o->root) {
		const char *s = json_object_to_json_string_ext(o->root,
				JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
				JSON_C_TO_STRING_NOSLASHESCAPE);

		fprintf(o->fp, "%s\n", s);
		json_object_put(o->root);
		o->root = NULL;
		o->depth = 0;
	}
	return fflush(o->fp) ? -errno : 0;
}

/* A JSON string of `s`: bytes that are not UTF-8 become the text \xNN (JSON is UTF-8). */
static json_object *json_str(const char *s)
{
	json_object *j;
	char *esc;

	if (str_utf8_valid(s))
		return json_object_new_string(s);
	esc = str_utf8_escape(s);
	j = json_object_new_string(esc ? esc : "");
	free(esc);
	return j;
}

/* Attach `val` to the innermost container under `key`. */
static void json_add(struct output *o, const char *key, json_object *val)
{
	json_object *cur;
	char *esc = NULL;

	if (o->depth == 0) {
		/* A bare value at top level: wrap it in an object. */
		if (!o->root)
			o->root = json_object_new_object();
		o->stack[0] = o->root;
		o->depth = 1;
	}
	cur = o->stack[o->depth - 1];
	if (json_object_is_type(cur, json_type_array)) {
		json_object_array_add(cur, val);
		return;
	}
	if (key && !str_utf8_valid(key))
		key = esc = str_utf8_escape(key);
	json_object_object_add(cur, key ? key : "", val);
	free(esc);
}

static void open_container(struct output *o, const char *key, json_object *c)
{
	if (!o->json)
		return;
	if (o->depth == 0 && !o->root) {
		o->root = c;
	} else {
		if (o->depth == 0) {
			/* A second top-level container: nest it in the root. */
			o->stack[0] = o->root;
			o->depth = 1;
		}
		json_add(o, key, c);
	}
	if (o->depth < OUT_DEPTH)
		o->stack[o->depth++] = c;
}

static void close_container(struct output *o)
{
	if (o->json && o->depth > 0)
		o->depth--;
}

void out_obj_begin(struct output *o, const char *key)
{
	if (o->json)
		open_container(o, key, json_object_new_object());
}

void out_obj_end(struct output *o)
{
	close_container(o);
}

void out_arr_begin(struct output *o, const char *key)
{
	if (o->json)
		open_container(o, key, json_object_new_array());
}

void out_arr_end(struct output *o)
{
	close_container(o);
}

/* The format strings come from callers inside rxectl, never from input. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void out_str(struct output *o, const char *key, const char *fmt, const char *val)
{
	if (o->json) {
		if (key)
			json_add(o, key, val ? json_str(val) : NULL);
	} else if (fmt) {
		char esc[1024];

		/* values may come from the network, files or the kernel: no control characters */
		fprintf(o->fp, fmt, val && str_needs_escape(val) ? str_escape(val, esc, sizeof(esc))
			: val ? val : "");
	}
}

void out_uint(struct output *o, const char *key, const char *fmt, unsigned long long val)
{
	if (o->json) {
		if (key)
			json_add(o, key, json_object_new_uint64(val));
	} else if (fmt) {
		fprintf(o->fp, fmt, val);
	}
}

void out_int(struct output *o, const char *key, const char *fmt, long long val)
{
	if (o->json) {
		if (key)
			json_add(o, key, json_object_new_int64(val));
	} else if (fmt) {
		fprintf(o->fp, fmt, val);
	}
}

void out_bool(struct output *o, const char *key, const char *fmt, bool val)
{
	if (o->json) {
		if (key)
			json_add(o, key, json_object_new_boolean(val));
	} else if (fmt) {
		fprintf(o->fp, fmt, val ? "yes" : "no");
	}
}

void out_null(struct output *o, const char *key, const char *fmt)
{
	if (o->json) {
		if (key)
			json_add(o, key, NULL);
	} else if (fmt) {
		fputs(fmt, o->fp);
	}
}

void out_finish_json(struct output *o, const char *message, int exit_code)
{
	json_object *err;

	if (!o->json)
		return;
	if (o->root && !json_object_is_type(o->root, json_type_object)) {
		json_object *wrap = json_object_new_object();

		json_object_object_add(wrap, "data", o->root);
		o->root = wrap;
	}
	if (!o->root)
		o->root = json_object_new_object();
	o->depth = 0;
	if (!message)
		return;
	err = json_object_new_object();
	json_object_object_add(err, "message", json_str(message));
	json_object_object_add(err, "exit_code", json_object_new_int(exit_code));
	json_object_object_add(o->root, "error", err);
}

/* Text lines are formatted first, then written with their control characters escaped (but
 * newlines and tabs): the names and strings formatted in may come from the kernel or a peer. */
void out_text(struct output *o, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (o->json)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fputs_escaped_text(s, o->fp);
	free(s);
}

#pragma GCC diagnostic pop
