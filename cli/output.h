/* SPDX-License-Identifier: GPL-2.0 */
/* output.h - the one printer layer: each field is printed once, to text or JSON (json-c). */
#ifndef RXECTL_OUTPUT_H
#define RXECTL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Every out_*() value call takes a JSON key and a text format:
 *   - key  NULL -> text only (nothing in JSON),
 *   - fmt  NULL -> JSON only (nothing in text).
 * `fmt` is a printf format with exactly one conversion for the value
 * (%s for strings, %llu/%lld for numbers, %s for booleans printed as yes/no).
 * Keys are stable snake_case.  In JSON mode nothing is written until
 * output_flush(), which prints the whole document (pretty) to the stream;
 * in text mode text goes straight to the stream.
 *
 * Containers: out_obj_begin(o, key)/out_obj_end(o), out_arr_begin/out_arr_end.
 * The key is ignored inside an array and for the top-level object.
 * They print no text: lay out text with the fmt strings and out_text().
 */
struct output;

struct output *output_new(bool json, FILE *fp);
void output_free(struct output *o);
bool output_is_json(const struct output *o);
/* Switch mode before anything is printed (a command's own --json). */
void output_set_json(struct output *o, bool json);
/* JSON: print the document and reset.  Text: fflush.  Returns 0 or -errno. */
int output_flush(struct output *o);

void out_obj_begin(struct output *o, const char *key);
void out_obj_end(struct output *o);
void out_arr_begin(struct output *o, const char *key);
void out_arr_end(struct output *o);

void out_str(struct output *o, const char *key, const char *fmt, const char *val);
void out_uint(struct output *o, const char *key, const char *fmt, unsigned long long val);
void out_int(struct output *o, const char *key, const char *fmt, long long val);
void out_bool(struct output *o, const char *key, const char *fmt, bool val);
/* JSON null; in text `fmt` is printed as is (no conversion), e.g. "unknown". */
void out_null(struct output *o, const char *key, const char *fmt);

/*
 * JSON: make sure there is a document, and with `message` add the member
 *   "error": { "message": MESSAGE, "exit_code": CODE }
 * to it (a top-level array is moved under "data" first).  Text: nothing.
 * main() calls this, so every command prints one JSON document on every path.
 */
void out_finish_json(struct output *o, const char *message, int exit_code);

/* Text only (ignored in JSON mode). */
void out_text(struct output *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
