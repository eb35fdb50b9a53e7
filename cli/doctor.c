// SPDX-License-Identifier: GPL-2.0
/* doctor.c - the doctor's check list and printer, and the pure rules: RoCE MTU, memlock (the firewall's are in firewall.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "doctor.h"
#include "output.h"
#include "util.h"

static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	return s;
}

void check_add(struct checklist *l, const char *id, enum check_status st, const char *target,
	       const char *fix, const char *fmt, ...)
{
	struct check *c;
	va_list ap;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct check *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return;
		l->v = v;
		l->cap = cap;
	}
	c = &l->v[l->n++];
	c->id = id;
	c->status = st;
	c->target = target ? strdup(target) : NULL;
	c->fix = fix ? strdup(fix) : NULL;
	va_start(ap, fmt);
	c->summary = vfmt(fmt, ap);
	va_end(ap);
}

void check_fix(struct checklist *l, const char *fmt, ...)
{
	va_list ap;

	if (!l->n)
		return;
	free(l->v[l->n - 1].fix);
	va_start(ap, fmt);
	l->v[l->n - 1].fix = vfmt(fmt, ap);
	va_end(ap);
}

void checklist_free(struct checklist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].target);
		free(l->v[i].summary);
		free(l->v[i].fix);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

enum check_status checklist_result(const struct checklist *l)
{
	enum check_status r = CHECK_PASS;

	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].status == CHECK_FAIL)
			return CHECK_FAIL;
		if (l->v[i].status == CHECK_WARN)
			r = CHECK_WARN;
	}
	return r;
}

const char *check_status_str(enum check_status st)
{
	switch (st) {
	case CHECK_PASS:	return "pass";
	case CHECK_WARN:	return "warn";
	case CHECK_FAIL:	return "fail";
	default:		return "skip";
	}
}

/* Text: one line per check, status first so the eye runs down the column;
 * the fix indented below the problem it fixes. */
void checklist_print(struct rxectl *ctx, const struct checklist *l)
{
	static const char *const tag[] = { "ok  ", "WARN", "FAIL", "skip" };
	struct output *o = ctx->out;
	size_t count[4] = { 0 };

	out_obj_begin(o, NULL);
	out_arr_begin(o, "checks");
	for (size_t i = 0; i < l->n; i++) {
		const struct check *c = &l->v[i];
		char label[96];

		count[c->status]++;
		snprintf(label, sizeof(label), "%s%s%s%s", c->id, c->target ? " (" : "",
			 c->target ? c->target : "", c->target ? ")" : "");
		out_obj_begin(o, NULL);
		out_text(o, "[%s] %-28s ", tag[c->status], label);
		out_str(o, "id", NULL, c->id);
		out_str(o, "status", NULL, check_status_str(c->status));
		if (c->target)
			out_str(o, "target", NULL, c->target);
		else
			out_null(o, "target", NULL);
		out_str(o, "summary", "%s\n", c->summary ? c->summary : "");
		if (c->fix)
			out_str(o, "fix", "       fix: %s\n", c->fix);
		else
			out_null(o, "fix", NULL);
		out_obj_end(o);
	}
	out_arr_end(o);
	out_str(o, "result", "result: %s", check_status_str(checklist_result(l)));
	out_text(o, " (%zu passed, %zu warning%s, %zu failed, %zu skipped)\n", count[CHECK_PASS],
		 count[CHECK_WARN], count[CHECK_WARN] == 1 ? "" : "s", count[CHECK_FAIL],
		 count[CHECK_SKIP]);
	out_obj_end(o);
}

/* --- RoCE MTU -------------------------------------------------------------------------- */

#define RXE_HDR_OVERHEAD 80	/* RXE_MAX_HDR_LENGTH in drivers/infiniband/sw/rxe/rxe_param.h */

unsigned int roce_mtu_for_netdev_mtu(unsigned int netdev_mtu)
{
	unsigned int room = netdev_mtu > RXE_HDR_OVERHEAD ? netdev_mtu - RXE_HDR_OVERHEAD : 0;

	for (unsigned int m = 4096; m >= 256; m /= 2)
		if (room >= m)
			return m;
	return 256;
}

unsigned int netdev_mtu_for_roce_4096(void)
{
	return 4096 + RXE_HDR_OVERHEAD;
}

void memlock_str(uint64_t bytes, bool infinite, char *buf, size_t len)
{
	if (infinite)
		snprintf(buf, len, "unlimited");
	else if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(bytes >> 30));
	else if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
}
