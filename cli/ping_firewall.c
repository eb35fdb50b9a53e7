// SPDX-License-Identifier: GPL-2.0
/* ping_firewall.c - is inbound UDP 4791 filtered here?  The doctor's nftables analysis, run for ping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_tool.h"
#include "doctor.h"
#include "ping.h"
#include "util.h"

/*
 * The doctor (issue 3) owns the firewall rules: fw_analyze_nft_json() is its
 * check `firewall.udp4791`.  Its runner (nft, then iptables-legacy) is private
 * to doctor_checks.c, so this is the smallest runner that feeds it: nftables
 * only.  When the doctor exports its runner, call that instead.
 */
static char *read_ruleset(void)
{
	static const char *const tools[] = { "/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft" };
	const char *tool = NULL;
	char *buf;
	int status;

	for (size_t i = 0; i < ARRAY_SIZE(tools) && !tool; i++)
		if (access(tools[i], X_OK) == 0)
			tool = tools[i];
	if (!tool)
		return NULL;
	{
		const char *const argv[] = { tool, "-j", "list", "ruleset", NULL };

		buf = spawn_capture(argv, &status);
	}
	if (status != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

enum ping_fw ping_local_firewall(char *finding, size_t len)
{
	struct fw_finding f;
	char *json;
	int r;

	/* nf_tables not loaded: there are no nftables rules (and listing them would load it). */
	if (access("/sys/module/nf_tables", F_OK) != 0) {
		if (access("/proc/net/ip_tables_names", F_OK) == 0) {
			snprintf(finding, len, "iptables-legacy rules are loaded; run `rxectl doctor` "
				 "here to check them");
			return PING_FW_UNKNOWN;
		}
		snprintf(finding, len, "no firewall rules are loaded here");
		return PING_FW_OPEN;
	}
	json = read_ruleset();
	if (!json) {
		snprintf(finding, len, "the nftables rules could not be read%s; run `rxectl doctor` "
			 "here", geteuid() ? " without root" : "");
		return PING_FW_UNKNOWN;
	}
	r = fw_analyze_nft_json(json, &f);
	free(json);
	if (r < 0) {
		snprintf(finding, len, "the nftables rules could not be analysed; run `rxectl doctor` "
			 "here");
		return PING_FW_UNKNOWN;
	}
	if (f.verdict == FW_ACCEPT) {
		snprintf(finding, len, "no nftables rule here drops it");
		return PING_FW_OPEN;
	}
	if (f.handle >= 0)
		snprintf(finding, len, "nftables %s table %s, chain %s, rule `%s` %s it",
			 f.family, f.table, f.chain, f.rule,
			 f.verdict == FW_DROP ? "drops" : "may drop");
	else
		snprintf(finding, len, "nftables %s table %s, chain %s has policy drop",
			 f.family, f.table, f.chain);
	return f.verdict == FW_DROP ? PING_FW_FILTERED : PING_FW_UNKNOWN;
}
