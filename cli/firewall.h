/* SPDX-License-Identifier: GPL-2.0 */
/* firewall.h - the one firewall module: would this host's nftables or iptables-legacy rules drop an inbound RoCE v2 packet (UDP 4791)? */
#ifndef RXECTL_FIREWALL_H
#define RXECTL_FIREWALL_H

#include <stdbool.h>

/*
 * Firewall analysis of an nftables ruleset (the JSON of `nft -j list ruleset`)
 * for an inbound RoCE v2 packet: UDP, destination port 4791, a new flow, on
 * any interface and from any address.  Every base chain at the ingress,
 * prerouting and input hooks of the ip, ip6, inet and netdev families is
 * walked in order, following jump/goto.  A rule whose matches the packet
 * surely meets decides; one that depends on things we cannot know (source
 * address, interface, named sets) makes the outcome "maybe".
 */
enum fw_verdict { FW_ACCEPT, FW_DROP, FW_MAYBE_DROP };

struct fw_finding {
	enum fw_verdict verdict;
	char family[16], table[64], chain[64];
	long long handle;		/* the deciding rule, -1 for the chain policy */
	char rule[160];			/* a short rendering: "udp dport 4791 drop" */
};

/* 0 and *out, or -EINVAL when the text is not a ruleset. */
int fw_analyze_nft_json(const char *json, struct fw_finding *out);

/*
 * The same for `iptables-save`/`ip6tables-save` text (the legacy backend, whose
 * rules nft cannot see): the INPUT chain of the filter table and the chains it
 * jumps to, and the PREROUTING chains of raw and mangle.  `label` ("iptables")
 * goes into out->family.
 */
int fw_analyze_iptables_save(const char *text, const char *label, struct fw_finding *out);

/* Shared by the two walkers (firewall_nft.c, firewall.c): does a match hold for our packet
 * (yes, no, or cannot tell), and how a chain ended for it. */
enum fw_tri { T_NO, T_YES, T_UNKNOWN };
enum fw_chain_end { END_CONTINUE, END_ACCEPT, END_DROP };
#define ROCE_PORT 4791

/* What firewall_inspect() found about this network namespace. */
enum fw_state {
	FW_STATE_OPEN,		/* no rule drops it (or there are no rules) */
	FW_STATE_DROP,		/* `finding` drops it */
	FW_STATE_MAYBE,		/* `finding` may drop it (source address, interface, a set) */
	FW_STATE_DENIED,	/* the rules could not be read without root */
	FW_STATE_UNREADABLE,	/* the rules could not be read (`nft` failed) */
};

struct fw_report {
	enum fw_state state;
	struct fw_finding finding;	/* DROP, MAYBE */
	bool nft;			/* the finding is nftables' (else iptables-legacy's) */
};

/*
 * Read the rules the way the kernel applies them and run the analysis above: nftables (and
 * iptables-nft, whose rules live there) through `nft -j list ruleset`, unless nf_tables is a
 * module that is not loaded (then there are none, and listing them would load it); then the
 * iptables-legacy tables (`iptables-legacy-save`, `ip6tables-legacy-save`), which nft cannot
 * see, when their x_tables are loaded.  A sure drop anywhere decides; else the first "maybe".
 * The doctor's firewall.udp4791 and ping's local verdict are both this.
 */
void firewall_inspect(struct fw_report *r);

#endif
