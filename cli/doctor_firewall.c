// SPDX-License-Identifier: GPL-2.0
/* doctor_firewall.c - the doctor's firewall.udp4791 check: firewall.c's verdict on inbound RoCE v2, with its fix. */
#include <stdio.h>
#include <string.h>

#include "doctor_checks.h"

/* --- firewall -------------------------------------------------------------------------- */

static void report_fw(struct doctor *d, const struct fw_finding *f, bool nft)
{
	enum check_status st = f->verdict == FW_DROP ? CHECK_FAIL : CHECK_WARN;
	const char *how = f->verdict == FW_DROP ? "drops" : "may drop";
	const char *so = f->verdict == FW_DROP ?
		"so RoCE v2 packets from peers never arrive" :
		"depending on what cannot be known here (source address, interface, a named set), "
		"so RoCE v2 packets from some peers may never arrive";

	if (nft && f->handle >= 0) {
		ADD(d, "firewall.udp4791", st, NULL, NULL,
		    "nftables %s table %s, chain %s, rule handle %lld (`%s`) %s inbound UDP 4791, "
		    "%s.", f->family, f->table, f->chain, f->handle, f->rule, how, so);
		check_fix(&d->l, "delete it with `nft delete rule %s %s %s handle %lld`, or accept "
			  "RoCE before it: `nft insert rule %s %s %s udp dport 4791 accept`.",
			  f->family, f->table, f->chain, f->handle, f->family, f->table, f->chain);
	} else if (nft) {
		ADD(d, "firewall.udp4791", st, NULL, NULL,
		    "nftables %s table %s, chain %s has policy drop and no rule that surely accepts "
		    "inbound UDP 4791, so it %s RoCE v2 packets from peers.", f->family, f->table,
		    f->chain, how);
		check_fix(&d->l, "accept RoCE: `nft insert rule %s %s %s udp dport 4791 accept` "
			  "(and make it permanent in /etc/nftables.conf).", f->family, f->table,
			  f->chain);
	} else {
		const char *tool = !strcmp(f->family, "ip6tables") ? "ip6tables" : "iptables";

		ADD(d, "firewall.udp4791", st, NULL, NULL,
		    "%s table %s, chain %s (`%s`) %s inbound UDP 4791, %s.", tool, f->table, f->chain,
		    f->rule, how, so);
		check_fix(&d->l, "accept RoCE before it: `%s -t %s -I %s -p udp --dport 4791 -j "
			  "ACCEPT` (and save the rules).", tool, f->table, f->chain);
	}
}

void doctor_check_firewall(struct doctor *d)
{
	struct fw_report r;

	firewall_inspect(&r);
	switch (r.state) {
	case FW_STATE_DROP:
	case FW_STATE_MAYBE:
		report_fw(d, &r.finding, r.nft);
		break;
	case FW_STATE_DENIED:
		ADD(d, "firewall.udp4791", CHECK_SKIP, NULL, NULL,
		    "skipped: reading the firewall rules needs root (CAP_NET_ADMIN); run "
		    "`sudo rxectl doctor` to check that inbound UDP 4791 is allowed.");
		break;
	case FW_STATE_UNREADABLE:
		ADD(d, "firewall.udp4791", CHECK_SKIP, NULL, NULL,
		    "skipped: the firewall rules could not be read (`nft -j list ruleset` failed).");
		break;
	case FW_STATE_OPEN:
		ADD(d, "firewall.udp4791", CHECK_PASS, NULL, NULL,
		    "no nftables or iptables rule in this network namespace drops inbound UDP 4791.");
		break;
	}
}
