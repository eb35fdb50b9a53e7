// SPDX-License-Identifier: GPL-2.0
/* doctor.c - the doctor's check list and printer, and the pure rules: RoCE MTU, memlock, firewall. */
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

/* --- nftables ruleset ------------------------------------------------------------------ */

/* Does a match hold for our packet?  Yes, no, or cannot tell. */
enum tri { T_NO, T_YES, T_UNKNOWN };

#define ROCE_PORT 4791

struct nft_walk {
	json_object *items;		/* the "nftables" array */
	const char *family, *table;
	struct fw_finding maybe;	/* the first conditional drop seen */
	bool have_maybe;
	bool cond_accept;		/* some earlier rule may have accepted the packet */
};

static void put(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static const char *obj_str(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return json_object_get_string(v);
}

static void render_value(json_object *v, char *buf, size_t len)
{
	json_object *x;

	switch (json_object_get_type(v)) {
	case json_type_int:
		put(buf, len, "%lld", (long long)json_object_get_int64(v));
		break;
	case json_type_string:
		put(buf, len, "%s", json_object_get_string(v));
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			put(buf, len, i ? "," : "");
			render_value(json_object_array_get_idx(v, i), buf, len);
		}
		break;
	case json_type_object:
		if (json_object_object_get_ex(v, "set", &x)) {
			put(buf, len, "{ ");
			if (json_object_is_type(x, json_type_array))
				for (size_t i = 0; i < json_object_array_length(x); i++) {
					put(buf, len, i ? ", " : "");
					render_value(json_object_array_get_idx(x, i), buf, len);
				}
			else
				render_value(x, buf, len);
			put(buf, len, " }");
		} else if (json_object_object_get_ex(v, "prefix", &x)) {
			put(buf, len, "%s/%s", obj_str(x, "addr") ?: "?", obj_str(x, "len") ?: "?");
		} else if (json_object_object_get_ex(v, "range", &x) &&
			   json_object_array_length(x) == 2) {
			render_value(json_object_array_get_idx(x, 0), buf, len);
			put(buf, len, "-");
			render_value(json_object_array_get_idx(x, 1), buf, len);
		} else {
			put(buf, len, "...");
		}
		break;
	default:
		put(buf, len, "...");
	}
}


static void render_left(json_object *left, char *buf, size_t len)
{
	json_object *x;

	if (json_object_object_get_ex(left, "payload", &x))
		put(buf, len, "%s %s", obj_str(x, "protocol") ? obj_str(x, "protocol") : "?",
		    obj_str(x, "field") ? obj_str(x, "field") : "?");
	else if (json_object_object_get_ex(left, "meta", &x))
		put(buf, len, "meta %s", obj_str(x, "key") ? obj_str(x, "key") : "?");
	else if (json_object_object_get_ex(left, "ct", &x))
		put(buf, len, "ct %s", obj_str(x, "key") ? obj_str(x, "key") : "?");
	else
		put(buf, len, "...");
}

/* Is our value (a number, or one of the names) in `right`? */
static enum tri value_in(json_object *right, long long num, const char *const *names)
{
	json_object *x;

	switch (json_object_get_type(right)) {
	case json_type_int:
		return json_object_get_int64(right) == num ? T_YES : T_NO;
	case json_type_string: {
		const char *s = json_object_get_string(right);

		if (s[0] == '@' || s[0] == '$')
			return T_UNKNOWN;	/* a named set or variable */
		for (size_t i = 0; names && names[i]; i++)
			if (!strcmp(s, names[i]))
				return T_YES;
		return num >= 0 && atoll(s) == num && s[0] >= '0' && s[0] <= '9' ? T_YES : T_NO;
	}
	case json_type_array: {
		enum tri r = T_NO;

		for (size_t i = 0; i < json_object_array_length(right); i++) {
			enum tri t = value_in(json_object_array_get_idx(right, i), num, names);

			if (t == T_YES)
				return T_YES;
			if (t == T_UNKNOWN)
				r = T_UNKNOWN;
		}
		return r;
	}
	case json_type_object:
		if (json_object_object_get_ex(right, "set", &x))
			return value_in(x, num, names);
		if (json_object_object_get_ex(right, "range", &x) &&
		    json_object_array_length(x) == 2) {
			json_object *a = json_object_array_get_idx(x, 0);
			json_object *b = json_object_array_get_idx(x, 1);

			if (json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int))
				return json_object_get_int64(a) <= num && num <= json_object_get_int64(b)
					? T_YES : T_NO;
		}
		return T_UNKNOWN;
	default:
		return T_UNKNOWN;
	}
}

static enum tri apply_op(const char *op, enum tri in, json_object *right, long long num)
{
	if (!op || !strcmp(op, "==") || !strcmp(op, "in"))
		return in;
	if (!strcmp(op, "!="))
		return in == T_UNKNOWN ? T_UNKNOWN : in == T_YES ? T_NO : T_YES;
	if (json_object_is_type(right, json_type_int)) {
		long long r = json_object_get_int64(right);

		if (!strcmp(op, "<"))
			return num < r ? T_YES : T_NO;
		if (!strcmp(op, "<="))
			return num <= r ? T_YES : T_NO;
		if (!strcmp(op, ">"))
			return num > r ? T_YES : T_NO;
		if (!strcmp(op, ">="))
			return num >= r ? T_YES : T_NO;
	}
	return T_UNKNOWN;
}

/* One "match" expression against an inbound UDP packet to port 4791 of a new flow. */
static enum tri nft_match(json_object *m)
{
	static const char *const udp_names[] = { "udp", NULL };
	static const char *const new_names[] = { "new", NULL };
	json_object *left, *right, *x;
	const char *op = obj_str(m, "op");

	if (!json_object_object_get_ex(m, "left", &left) ||
	    !json_object_object_get_ex(m, "right", &right))
		return T_UNKNOWN;
	if (json_object_object_get_ex(left, "payload", &x)) {
		const char *proto = obj_str(x, "protocol"), *field = obj_str(x, "field");

		if (!proto || !field)
			return T_UNKNOWN;
		if (!strcmp(proto, "udp") || !strcmp(proto, "th")) {
			if (!strcmp(field, "dport"))
				return apply_op(op, value_in(right, ROCE_PORT, NULL), right, ROCE_PORT);
			return T_UNKNOWN;
		}
		if ((!strcmp(proto, "ip") && !strcmp(field, "protocol")) ||
		    (!strcmp(proto, "ip6") && !strcmp(field, "nexthdr")))
			return apply_op(op, value_in(right, 17, udp_names), right, 17);
		if (!strcmp(proto, "tcp") || !strcmp(proto, "sctp") || !strcmp(proto, "dccp") ||
		    !strcmp(proto, "icmp") || !strcmp(proto, "icmpv6") || !strcmp(proto, "udplite") ||
		    !strcmp(proto, "esp") || !strcmp(proto, "ah") || !strcmp(proto, "arp"))
			return T_NO;	/* a header our packet does not have */
		return T_UNKNOWN;
	}
	if (json_object_object_get_ex(left, "meta", &x)) {
		const char *key = obj_str(x, "key");

		if (key && !strcmp(key, "l4proto"))
			return apply_op(op, value_in(right, 17, udp_names), right, 17);
		/* Peers' packets never arrive on lo (rxe loops local traffic back itself),
		 * so "iifname lo accept" does not accept them. */
		if (key && (!strcmp(key, "iifname") || !strcmp(key, "iif")) &&
		    json_object_is_type(right, json_type_string) &&
		    !strcmp(json_object_get_string(right), "lo"))
			return apply_op(op, T_NO, right, -1);
		return T_UNKNOWN;
	}
	if (json_object_object_get_ex(left, "ct", &x)) {
		const char *key = obj_str(x, "key");

		if (key && !strcmp(key, "state"))
			return apply_op(op, value_in(right, -1, new_names), right, -1);
		return T_UNKNOWN;
	}
	return T_UNKNOWN;
}

enum chain_end { END_CONTINUE, END_ACCEPT, END_DROP };

static enum chain_end walk_chain(struct nft_walk *w, const char *chain, int depth,
				 struct fw_finding *drop);

static void fill_finding(struct nft_walk *w, const char *chain, json_object *rule,
			 const char *text, enum fw_verdict v, struct fw_finding *f)
{
	json_object *h;

	memset(f, 0, sizeof(*f));
	f->verdict = v;
	snprintf(f->family, sizeof(f->family), "%s", w->family);
	snprintf(f->table, sizeof(f->table), "%s", w->table);
	snprintf(f->chain, sizeof(f->chain), "%s", chain);
	f->handle = rule && json_object_object_get_ex(rule, "handle", &h) ?
		    json_object_get_int64(h) : -1;
	snprintf(f->rule, sizeof(f->rule), "%s", text);
}

static enum chain_end walk_chain(struct nft_walk *w, const char *chain, int depth,
				 struct fw_finding *drop)
{
	size_t n = json_object_array_length(w->items);

	if (depth > 16)
		return END_CONTINUE;
	for (size_t i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(w->items, i), *rule, *expr;
		enum tri cond = T_YES;
		char text[160] = "";
		const char *verdict = NULL, *target = NULL;

		if (!json_object_object_get_ex(it, "rule", &rule))
			continue;
		if (strcmp(obj_str(rule, "family") ?: "", w->family) ||
		    strcmp(obj_str(rule, "table") ?: "", w->table) ||
		    strcmp(obj_str(rule, "chain") ?: "", chain))
			continue;
		if (!json_object_object_get_ex(rule, "expr", &expr) ||
		    !json_object_is_type(expr, json_type_array))
			continue;
		for (size_t k = 0; k < json_object_array_length(expr); k++) {
			json_object *e = json_object_array_get_idx(expr, k), *x;

			if (json_object_object_get_ex(e, "match", &x)) {
				enum tri t = nft_match(x);
				json_object *l, *r;
				const char *op = obj_str(x, "op");

				if (json_object_object_get_ex(x, "left", &l) &&
				    json_object_object_get_ex(x, "right", &r)) {
					render_left(l, text, sizeof(text));
					put(text, sizeof(text), " %s", op && strcmp(op, "==") &&
					    strcmp(op, "in") ? op : "");
					if (op && strcmp(op, "==") && strcmp(op, "in"))
						put(text, sizeof(text), " ");
					render_value(r, text, sizeof(text));
					put(text, sizeof(text), " ");
				}
				if (t == T_NO)
					cond = T_NO;
				else if (t == T_UNKNOWN && cond == T_YES)
					cond = T_UNKNOWN;
			} else if (json_object_object_get_ex(e, "accept", &x)) {
				verdict = "accept";
			} else if (json_object_object_get_ex(e, "drop", &x)) {
				verdict = "drop";
			} else if (json_object_object_get_ex(e, "reject", &x)) {
				verdict = "reject";
			} else if (json_object_object_get_ex(e, "return", &x)) {
				verdict = "return";
			} else if (json_object_object_get_ex(e, "jump", &x) ||
				   json_object_object_get_ex(e, "goto", &x)) {
				verdict = json_object_object_get_ex(e, "jump", NULL) ? "jump" : "goto";
				target = obj_str(x, "target");
			} else if ((json_object_object_get_ex(e, "xt", &x) &&
				    obj_str(x, "name") && !strcmp(obj_str(x, "name"), "comment")) ||
				   json_object_object_get_ex(e, "counter", &x) ||
				   json_object_object_get_ex(e, "log", &x) ||
				   json_object_object_get_ex(e, "comment", &x)) {
				/* statements that do not change the packet's fate */
			} else {
				/* limit, quota, xt (an iptables-nft match nft cannot show) ... */
				put(text, sizeof(text), "... ");
				if (cond == T_YES)
					cond = T_UNKNOWN;
			}
		}
		if (!verdict || cond == T_NO)
			continue;
		put(text, sizeof(text), "%s%s%s", verdict, target ? " " : "", target ? target : "");
		if (!strcmp(verdict, "accept")) {
			if (cond == T_YES)
				return END_ACCEPT;
			w->cond_accept = true;
		} else if (!strcmp(verdict, "drop") || !strcmp(verdict, "reject")) {
			if (cond == T_YES && !w->cond_accept) {
				fill_finding(w, chain, rule, text, FW_DROP, drop);
				return END_DROP;
			}
			if (!w->have_maybe) {
				fill_finding(w, chain, rule, text, FW_MAYBE_DROP, &w->maybe);
				w->have_maybe = true;
			}
			if (cond == T_YES)
				return END_DROP;	/* reached only by what was not accepted */
		} else if (!strcmp(verdict, "return")) {
			if (cond == T_YES)
				return END_CONTINUE;
		} else if (target) {
			bool saved = w->cond_accept;
			enum chain_end sub;
			struct fw_finding sub_drop = { .verdict = FW_ACCEPT };

			if (cond != T_YES)
				w->cond_accept = true;	/* the sub-chain's drops become "maybe" */
			sub = walk_chain(w, target, depth + 1, &sub_drop);
			if (cond != T_YES) {
				w->cond_accept = saved;
				if (sub == END_ACCEPT)
					w->cond_accept = true;
				if (sub == END_DROP && !w->have_maybe) {
					w->maybe = sub_drop;
					w->maybe.verdict = FW_MAYBE_DROP;
					w->have_maybe = true;
				}
				continue;
			}
			if (sub == END_DROP) {
				*drop = sub_drop;
				return END_DROP;
			}
			if (sub == END_ACCEPT)
				return END_ACCEPT;
			if (!strcmp(verdict, "goto"))
				return END_CONTINUE;
		}
	}
	return END_CONTINUE;
}

static bool hook_on_path(const char *family, const char *hook)
{
	if (!hook)
		return false;
	if (!strcmp(family, "netdev"))
		return !strcmp(hook, "ingress");
	if (!strcmp(family, "ip") || !strcmp(family, "ip6") || !strcmp(family, "inet"))
		return !strcmp(hook, "prerouting") || !strcmp(hook, "input") ||
		       !strcmp(hook, "ingress");
	return false;
}

int fw_analyze_nft_json(const char *json, struct fw_finding *out)
{
	json_object *root = json_tokener_parse(json), *items;
	bool have_maybe = false;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->verdict = FW_ACCEPT;
	out->handle = -1;
	if (!root || !json_object_object_get_ex(root, "nftables", &items) ||
	    !json_object_is_type(items, json_type_array)) {
		json_object_put(root);
		return -EINVAL;
	}
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *it = json_object_array_get_idx(items, i), *ch;
		struct nft_walk w = { .items = items };
		struct fw_finding drop = { .verdict = FW_ACCEPT };
		enum chain_end end;
		const char *policy, *name;

		if (!json_object_object_get_ex(it, "chain", &ch))
			continue;
		w.family = obj_str(ch, "family");
		w.table = obj_str(ch, "table");
		name = obj_str(ch, "name");
		if (!w.family || !w.table || !name || !hook_on_path(w.family, obj_str(ch, "hook")))
			continue;
		policy = obj_str(ch, "policy");
		end = walk_chain(&w, name, 0, &drop);
		if (end == END_CONTINUE && policy && !strcmp(policy, "drop")) {
			fill_finding(&w, name, NULL, "policy drop",
				     w.cond_accept ? FW_MAYBE_DROP : FW_DROP, &drop);
			end = END_DROP;
			if (drop.verdict == FW_MAYBE_DROP && !w.have_maybe) {
				w.maybe = drop;
				w.have_maybe = true;
			}
		}
		if (end == END_DROP && drop.verdict == FW_DROP && !w.cond_accept) {
			*out = drop;
			goto done;
		}
		if (w.have_maybe && !have_maybe) {
			*out = w.maybe;
			have_maybe = true;
		}
	}
done:
	json_object_put(root);
	return ret;
}

/* --- iptables-save --------------------------------------------------------------------- */

struct ipt_rule {
	char table[16], chain[64];
	char *line;		/* the rule as iptables-save printed it, after "-A CHAIN " */
};

struct ipt {
	struct ipt_rule *r;
	size_t n;
	char policies[8][2][64];	/* chain, policy for the built-in chains of one table */
	char pol_table[8][16];
	size_t n_pol;
	const char *label;
	bool cond_accept, have_maybe;
	struct fw_finding maybe;
};

/* Split one rule into words, honouring "double quotes" (comments). */
static int words(char *s, char **argv, int max)
{
	int n = 0;

	while (*s && n < max) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (*s == '"') {
			argv[n++] = ++s;
			while (*s && *s != '"')
				s += s[0] == '\\' && s[1] ? 2 : 1;
		} else {
			argv[n++] = s;
			while (*s && *s != ' ' && *s != '\t')
				s++;
		}
		if (*s)
			*s++ = '\0';
	}
	return n;
}

static enum tri port_in_list(const char *list)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		long a = atol(p), b = a;
		char *colon = strchr(p, ':');

		if (colon)
			b = colon[1] ? atol(colon + 1) : 65535;
		if (a <= ROCE_PORT && ROCE_PORT <= b)
			return T_YES;
	}
	return T_NO;
}

static enum tri ipt_cond(char **argv, int argc, const char **target, bool *is_goto)
{
	enum tri cond = T_YES;
	bool neg = false;

	*target = NULL;
	*is_goto = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
		enum tri t = T_UNKNOWN;

		if (!strcmp(a, "!")) {
			neg = true;
			continue;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "--jump") || !strcmp(a, "-g") || !strcmp(a, "--goto")) {
			*target = v;
			*is_goto = a[1] == 'g' || !strcmp(a, "--goto");
			break;		/* what follows are the target's own options */
		}
		if (!strcmp(a, "-m") || !strcmp(a, "--match")) {
			i++;			/* the module name; its options follow */
			continue;
		}
		if (!strcmp(a, "--comment")) {
			i++;
			continue;
		}
		if (!strcmp(a, "-p") || !strcmp(a, "--protocol"))
			t = !strcmp(v, "udp") || !strcmp(v, "17") || !strcmp(v, "all") ? T_YES : T_NO;
		else if (!strcmp(a, "--dport") || !strcmp(a, "--destination-port") ||
			 !strcmp(a, "--dports") || !strcmp(a, "--destination-ports") ||
			 !strcmp(a, "--ports"))
			t = port_in_list(v);
		else if (!strcmp(a, "--state") || !strcmp(a, "--ctstate"))
			t = strstr(v, "NEW") ? T_YES : T_NO;
		else if ((!strcmp(a, "-i") || !strcmp(a, "--in-interface")) && !strcmp(v, "lo"))
			t = T_NO;	/* peers' packets never arrive on lo */
		if (neg && t != T_UNKNOWN)
			t = t == T_YES ? T_NO : T_YES;
		neg = false;
		if (a[0] == '-' && i + 1 < argc && argv[i + 1][0] != '-')
			i++;		/* skip the option's value */
		if (t == T_NO)
			cond = T_NO;
		else if (t == T_UNKNOWN && cond == T_YES)
			cond = T_UNKNOWN;
	}
	return cond;
}

static void ipt_finding(struct ipt *p, const struct ipt_rule *r, const char *table,
			const char *chain, enum fw_verdict v, struct fw_finding *f)
{
	memset(f, 0, sizeof(*f));
	f->verdict = v;
	f->handle = -1;
	snprintf(f->family, sizeof(f->family), "%s", p->label);
	snprintf(f->table, sizeof(f->table), "%s", table);
	snprintf(f->chain, sizeof(f->chain), "%s", chain);
	snprintf(f->rule, sizeof(f->rule), "%s", r ? r->line : "policy DROP");
}

static enum chain_end ipt_walk(struct ipt *p, const char *table, const char *chain, int depth,
			       struct fw_finding *drop)
{
	if (depth > 16)
		return END_CONTINUE;
	for (size_t i = 0; i < p->n; i++) {
		const struct ipt_rule *r = &p->r[i];
		char copy[512], *argv[64];
		const char *target;
		bool is_goto;
		enum tri cond;
		int argc;

		if (strcmp(r->table, table) || strcmp(r->chain, chain))
			continue;
		snprintf(copy, sizeof(copy), "%s", r->line);
		argc = words(copy, argv, 64);
		cond = ipt_cond(argv, argc, &target, &is_goto);
		if (!target || cond == T_NO)
			continue;
		if (!strcmp(target, "ACCEPT")) {
			if (cond == T_YES)
				return END_ACCEPT;
			p->cond_accept = true;
		} else if (!strcmp(target, "DROP") || !strcmp(target, "REJECT")) {
			if (cond == T_YES && !p->cond_accept) {
				ipt_finding(p, r, table, chain, FW_DROP, drop);
				return END_DROP;
			}
			if (!p->have_maybe) {
				ipt_finding(p, r, table, chain, FW_MAYBE_DROP, &p->maybe);
				p->have_maybe = true;
			}
			if (cond == T_YES)
				return END_DROP;
		} else if (!strcmp(target, "RETURN")) {
			if (cond == T_YES)
				return END_CONTINUE;
		} else {
			bool user = false;

			for (size_t k = 0; k < p->n && !user; k++)
				user = !strcmp(p->r[k].table, table) && !strcmp(p->r[k].chain, target);
			if (!user)
				continue;	/* LOG, MARK, ...: non-terminating targets */
			bool saved = p->cond_accept;
			struct fw_finding sub_drop = { .verdict = FW_ACCEPT };
			enum chain_end sub;

			if (cond != T_YES)
				p->cond_accept = true;
			sub = ipt_walk(p, table, target, depth + 1, &sub_drop);
			if (cond != T_YES) {
				p->cond_accept = saved || sub == END_ACCEPT;
				continue;
			}
			if (sub == END_DROP) {
				*drop = sub_drop;
				return END_DROP;
			}
			if (sub == END_ACCEPT)
				return END_ACCEPT;
			if (is_goto)
				return END_CONTINUE;
		}
	}
	return END_CONTINUE;
}

int fw_analyze_iptables_save(const char *text, const char *label, struct fw_finding *out)
{
	static const char *const path[][2] = {
		{ "raw", "PREROUTING" }, { "mangle", "PREROUTING" }, { "mangle", "INPUT" },
		{ "filter", "INPUT" },
	};
	struct ipt p = { .label = label };
	char *copy = strdup(text), *save = NULL, table[16] = "";
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->verdict = FW_ACCEPT;
	out->handle = -1;
	if (!copy)
		return -ENOMEM;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '*') {
			snprintf(table, sizeof(table), "%s", l + 1);
		} else if (l[0] == ':' && p.n_pol < 8) {
			char name[64], pol[64];

			if (sscanf(l + 1, "%63s %63s", name, pol) == 2 && strcmp(pol, "-")) {
				snprintf(p.policies[p.n_pol][0], 64, "%s", name);
				snprintf(p.policies[p.n_pol][1], 64, "%s", pol);
				snprintf(p.pol_table[p.n_pol], 16, "%s", table);
				p.n_pol++;
			}
		} else if (!strncmp(l, "-A ", 3)) {
			struct ipt_rule *v = realloc(p.r, (p.n + 1) * sizeof(*v));
			const char *chain = l + 3, *sp = strchr(chain, ' ');

			if (!v)
				break;
			p.r = v;
			memset(&p.r[p.n], 0, sizeof(p.r[p.n]));
			snprintf(p.r[p.n].table, sizeof(p.r[p.n].table), "%s", table);
			snprintf(p.r[p.n].chain, sizeof(p.r[p.n].chain), "%.*s",
				 (int)(sp ? sp - chain : (long)strlen(chain)), chain);
			p.r[p.n].line = strdup(sp ? sp + 1 : "");
			p.n++;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(path); i++) {
		struct fw_finding drop = { .verdict = FW_ACCEPT };
		enum chain_end end;

		p.cond_accept = false;
		p.have_maybe = false;
		end = ipt_walk(&p, path[i][0], path[i][1], 0, &drop);
		if (end == END_CONTINUE) {
			for (size_t k = 0; k < p.n_pol; k++)
				if (!strcmp(p.pol_table[k], path[i][0]) &&
				    !strcmp(p.policies[k][0], path[i][1]) &&
				    !strcmp(p.policies[k][1], "DROP")) {
					ipt_finding(&p, NULL, path[i][0], path[i][1],
						    p.cond_accept ? FW_MAYBE_DROP : FW_DROP, &drop);
					end = END_DROP;
					if (p.cond_accept && !p.have_maybe) {
						p.maybe = drop;
						p.have_maybe = true;
					}
				}
		}
		if (end == END_DROP && drop.verdict == FW_DROP && !p.cond_accept) {
			*out = drop;
			break;
		}
		if (p.have_maybe && out->verdict == FW_ACCEPT)
			*out = p.maybe;
	}
	for (size_t i = 0; i < p.n; i++)
		free(p.r[i].line);
	free(p.r);
	free(copy);
	return ret;
}
