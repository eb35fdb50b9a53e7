// SPDX-License-Identifier: GPL-2.0
/* firewall_nft.c - the walk of an nftables ruleset (`nft -j list ruleset`) for an inbound RoCE v2 packet. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "firewall.h"
#include "util.h"

/* --- nftables ruleset ------------------------------------------------------------------ */


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
static enum fw_tri value_in(json_object *right, long long num, const char *const *names)
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
		enum fw_tri r = T_NO;

		for (size_t i = 0; i < json_object_array_length(right); i++) {
			enum fw_tri t = value_in(json_object_array_get_idx(right, i), num, names);

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

static enum fw_tri apply_op(const char *op, enum fw_tri in, json_object *right, long long num)
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
static enum fw_tri nft_match(json_object *m)
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


static enum fw_chain_end walk_chain(struct nft_walk *w, const char *chain, int depth,
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

static enum fw_chain_end walk_chain(struct nft_walk *w, const char *chain, int depth,
				 struct fw_finding *drop)
{
	size_t n = json_object_array_length(w->items);

	if (depth > 16)
		return END_CONTINUE;
	for (size_t i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(w->items, i), *rule, *expr;
		enum fw_tri cond = T_YES;
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
				enum fw_tri t = nft_match(x);
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
			enum fw_chain_end sub;
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
		enum fw_chain_end end;
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
