// SPDX-License-Identifier: GPL-2.0
/* firewall.c - the one firewall module: read the nftables and iptables-legacy rules, walk iptables-save text (nft JSON: firewall_nft.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "firewall.h"
#include "kmod.h"
#include "run_tool.h"
#include "util.h"

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

static enum fw_tri port_in_list(const char *list)
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

static enum fw_tri ipt_cond(char **argv, int argc, const char **target, bool *is_goto)
{
	enum fw_tri cond = T_YES;
	bool neg = false;

	*target = NULL;
	*is_goto = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
		enum fw_tri t = T_UNKNOWN;

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

static enum fw_chain_end ipt_walk(struct ipt *p, const char *table, const char *chain, int depth,
			       struct fw_finding *drop)
{
	if (depth > 16)
		return END_CONTINUE;
	for (size_t i = 0; i < p->n; i++) {
		const struct ipt_rule *r = &p->r[i];
		char copy[512], *argv[64];
		const char *target;
		bool is_goto;
		enum fw_tri cond;
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
			enum fw_chain_end sub;

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
		enum fw_chain_end end;

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

/* --- reading the rules ----------------------------------------------------------------- */

static bool have_tool(const char *name, char *path, size_t len)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, len, "%s/%s", dirs[i], name);
		if (access(path, X_OK) == 0)
			return true;
	}
	return false;
}

static bool file_nonempty(const char *path)
{
	FILE *f = fopen(path, "re");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c != EOF;
}

static void found(struct fw_report *r, const struct fw_finding *f, bool nft)
{
	r->state = f->verdict == FW_DROP ? FW_STATE_DROP : FW_STATE_MAYBE;
	r->finding = *f;
	r->nft = nft;
}

void firewall_inspect(struct fw_report *r)
{
	char path[128];
	struct fw_finding f, maybe = { .verdict = FW_ACCEPT };
	bool maybe_nft = false, read_any = false, denied = false;
	int status;
	char *out;

	memset(r, 0, sizeof(*r));
	/* nftables (and iptables-nft, whose rules live there).  Not when nf_tables is a
	 * module that is not loaded: then there are no rules, and listing them would
	 * load it.  (Built in, it may have no /sys/module entry.) */
	bool nft_possible = access("/sys/module/nf_tables", F_OK) == 0 ||
			    module_state("nf_tables") != MODULE_AVAILABLE;

	if (nft_possible && have_tool("nft", path, sizeof(path))) {
		const char *const nft[] = { path, "-j", "list", "ruleset", NULL };

		out = spawn_capture(nft, &status);
		if (status == 0 && out && fw_analyze_nft_json(out, &f) == 0) {
			read_any = true;
			if (f.verdict == FW_DROP) {
				free(out);
				found(r, &f, true);
				return;
			}
			if (f.verdict == FW_MAYBE_DROP) {
				maybe = f;
				maybe_nft = true;
			}
		} else {
			denied = true;
		}
		free(out);
	} else if (!nft_possible) {
		read_any = true;	/* no nf_tables: no nftables rules */
	}
	/* iptables-legacy keeps its own tables, which nft cannot see. */
	static const char *const legacy[][3] = {
		{ "iptables-legacy-save", "/proc/net/ip_tables_names", "iptables" },
		{ "ip6tables-legacy-save", "/proc/net/ip6_tables_names", "ip6tables" },
	};
	for (size_t i = 0; i < 2; i++) {
		if (access(legacy[i][1], F_OK) != 0)
			continue;	/* x_tables for this family not loaded: no rules */
		if (!file_nonempty(legacy[i][1]) && errno != EACCES)
			continue;
		if (!have_tool(legacy[i][0], path, sizeof(path)) &&
		    !have_tool(i ? "ip6tables-save" : "iptables-save", path, sizeof(path)))
			continue;
		const char *const save[] = { path, NULL };

		out = spawn_capture(save, &status);
		if (status == 0 && out && fw_analyze_iptables_save(out, legacy[i][2], &f) == 0) {
			read_any = true;
			if (f.verdict == FW_DROP) {
				free(out);
				found(r, &f, false);
				return;
			}
			if (f.verdict == FW_MAYBE_DROP && maybe.verdict == FW_ACCEPT)
				maybe = f;
		} else {
			denied = true;
		}
		free(out);
	}
	if (maybe.verdict == FW_MAYBE_DROP)
		found(r, &maybe, maybe_nft);
	else if (denied && geteuid() != 0)
		r->state = FW_STATE_DENIED;
	else if (denied && !read_any)
		r->state = FW_STATE_UNREADABLE;
	else
		r->state = FW_STATE_OPEN;
}
