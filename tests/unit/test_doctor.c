// SPDX-License-Identifier: GPL-2.0
/* test_doctor.c - the doctor's pure rules: RoCE MTU, memlock text, firewall rulesets, results. */
#include <string.h>

#include "doctor.h"
#include "tap.h"

/* Real `nft -j list ruleset` output (nft 1.0.6), trimmed of metainfo where it does not matter. */
#define NFT_HEAD "{\"nftables\": [{\"metainfo\": {\"version\": \"1.0.6\", \"json_schema_version\": 1}}, " \
	"{\"table\": {\"family\": \"inet\", \"name\": \"filter\", \"handle\": 1}}, "
#define INPUT_CHAIN(policy) "{\"chain\": {\"family\": \"inet\", \"table\": \"filter\", " \
	"\"name\": \"input\", \"handle\": 1, \"type\": \"filter\", \"hook\": \"input\", " \
	"\"prio\": 0, \"policy\": \"" policy "\"}}"
#define RULE(handle, exprs) ", {\"rule\": {\"family\": \"inet\", \"table\": \"filter\", " \
	"\"chain\": \"input\", \"handle\": " #handle ", \"expr\": [" exprs "]}}"
#define CT_EST "{\"match\": {\"op\": \"in\", \"left\": {\"ct\": {\"key\": \"state\"}}, " \
	"\"right\": [\"established\", \"related\"]}}, {\"accept\": null}"
#define IIF_LO "{\"match\": {\"op\": \"==\", \"left\": {\"meta\": {\"key\": \"iifname\"}}, " \
	"\"right\": \"lo\"}}, {\"accept\": null}"
#define UDP_DPORT(v) "{\"match\": {\"op\": \"==\", \"left\": {\"payload\": {\"protocol\": " \
	"\"udp\", \"field\": \"dport\"}}, \"right\": " v "}}"
#define TCP_DPORT(v) "{\"match\": {\"op\": \"==\", \"left\": {\"payload\": {\"protocol\": " \
	"\"tcp\", \"field\": \"dport\"}}, \"right\": " v "}}"
#define SADDR "{\"match\": {\"op\": \"==\", \"left\": {\"payload\": {\"protocol\": \"ip\", " \
	"\"field\": \"saddr\"}}, \"right\": {\"prefix\": {\"addr\": \"10.0.0.0\", \"len\": 8}}}}"
#define COUNTER "{\"counter\": {\"packets\": 0, \"bytes\": 0}}"
#define END "]}"

static enum fw_verdict nft(const char *json, struct fw_finding *f)
{
	int err = fw_analyze_nft_json(json, f);

	return err ? (enum fw_verdict)-1 : f->verdict;
}

static void test_mtu(void)
{
	ok(roce_mtu_for_netdev_mtu(1500) == 1024, "netdev MTU 1500 gives RoCE MTU 1024");
	ok(roce_mtu_for_netdev_mtu(9000) == 4096, "netdev MTU 9000 gives RoCE MTU 4096");
	ok(roce_mtu_for_netdev_mtu(4176) == 4096, "netdev MTU 4176 is the smallest for 4096");
	ok(roce_mtu_for_netdev_mtu(4175) == 2048, "netdev MTU 4175 gives only 2048");
	ok(roce_mtu_for_netdev_mtu(576) == 256, "netdev MTU 576 gives 256");
	ok(roce_mtu_for_netdev_mtu(100) == 256, "a tiny netdev MTU still gives 256");
	ok(netdev_mtu_for_roce_4096() == 4176, "4176 is the netdev MTU named for 4096");
}

static void test_memlock(void)
{
	char b[32];

	memlock_str(65536, false, b, sizeof(b));
	ok(!strcmp(b, "64 KiB"), "64 KiB is spelled so (%s)", b);
	memlock_str(8ull << 20, false, b, sizeof(b));
	ok(!strcmp(b, "8 MiB"), "8 MiB is spelled so (%s)", b);
	memlock_str(0, true, b, sizeof(b));
	ok(!strcmp(b, "unlimited"), "infinity is unlimited");
	memlock_str(1000, false, b, sizeof(b));
	ok(!strcmp(b, "1000 bytes"), "odd sizes are in bytes (%s)", b);
}

static void test_nft(void)
{
	struct fw_finding f;

	ok(nft("{\"nftables\": [{\"metainfo\": {}}]}", &f) == FW_ACCEPT,
	   "an empty ruleset lets RoCE in");
	ok(nft("not json", &f) == (enum fw_verdict)-1, "text that is not a ruleset is an error");
	ok(nft(NFT_HEAD INPUT_CHAIN("accept") RULE(4, UDP_DPORT("4791") ", " COUNTER
						   ", {\"drop\": null}") END, &f) == FW_DROP &&
	   f.handle == 4 && !strcmp(f.family, "inet") && !strcmp(f.table, "filter") &&
	   !strcmp(f.chain, "input"),
	   "udp dport 4791 drop is found, with family, table, chain and handle");
	ok(!strcmp(f.rule, "udp dport 4791 drop"), "the rule is rendered as nft would (%s)", f.rule);
	ok(nft(NFT_HEAD INPUT_CHAIN("accept") RULE(2, CT_EST) RULE(3, IIF_LO)
	       RULE(4, UDP_DPORT("4791") ", {\"drop\": null}") END, &f) == FW_DROP && f.handle == 4,
	   "ct state established and iifname lo accepts do not save a new RoCE flow");
	ok(nft(NFT_HEAD INPUT_CHAIN("accept")
	       RULE(6, UDP_DPORT("{\"set\": [53, {\"range\": [4000, 5000]}]}")
		    ", {\"reject\": {\"type\": \"icmpx\", \"expr\": \"port-unreachable\"}}") END,
	       &f) == FW_DROP && f.handle == 6, "a reject of a port range holding 4791 is a drop");
	ok(nft(NFT_HEAD INPUT_CHAIN("accept") RULE(4, UDP_DPORT("53") ", {\"drop\": null}") END, &f)
	   == FW_ACCEPT, "a drop of another UDP port is no concern");
	ok(nft(NFT_HEAD INPUT_CHAIN("accept") RULE(4, TCP_DPORT("4791") ", {\"drop\": null}") END, &f)
	   == FW_ACCEPT, "a drop of TCP 4791 is no concern");
	ok(nft(NFT_HEAD INPUT_CHAIN("drop") RULE(2, CT_EST) END, &f) == FW_DROP && f.handle == -1 &&
	   !strcmp(f.rule, "policy drop"), "policy drop without an accept for 4791 drops it");
	ok(nft(NFT_HEAD INPUT_CHAIN("drop") RULE(2, UDP_DPORT("4791") ", {\"accept\": null}") END,
	       &f) == FW_ACCEPT, "policy drop with udp dport 4791 accept lets RoCE in");
	ok(nft(NFT_HEAD INPUT_CHAIN("accept") RULE(5, SADDR ", {\"drop\": null}") END, &f)
	   == FW_MAYBE_DROP && f.handle == 5, "a drop by source address may drop RoCE");
	ok(nft(NFT_HEAD INPUT_CHAIN("drop") RULE(5, SADDR ", {\"accept\": null}") END, &f)
	   == FW_MAYBE_DROP, "policy drop after a source-address accept may drop RoCE");
	ok(nft(NFT_HEAD INPUT_CHAIN("accept") RULE(2, "{\"jump\": {\"target\": \"udp_in\"}}")
	       ", {\"chain\": {\"family\": \"inet\", \"table\": \"filter\", \"name\": \"udp_in\", "
	       "\"handle\": 9}}, {\"rule\": {\"family\": \"inet\", \"table\": \"filter\", "
	       "\"chain\": \"udp_in\", \"handle\": 10, \"expr\": [" UDP_DPORT("4791")
	       ", {\"drop\": null}]}}" END, &f) == FW_DROP && !strcmp(f.chain, "udp_in") &&
	   f.handle == 10, "a drop in a chain jumped to is found there");
	ok(nft("{\"nftables\": [{\"chain\": {\"family\": \"inet\", \"table\": \"filter\", "
	       "\"name\": \"output\", \"handle\": 1, \"type\": \"filter\", \"hook\": \"output\", "
	       "\"prio\": 0, \"policy\": \"drop\"}}]}", &f) == FW_ACCEPT,
	   "an output chain does not see inbound packets");
	/* iptables-nft: the comment match shows as an opaque xt expression */
	ok(nft("{\"nftables\": [{\"chain\": {\"family\": \"ip\", \"table\": \"filter\", \"name\": "
	       "\"INPUT\", \"handle\": 1, \"type\": \"filter\", \"hook\": \"input\", \"prio\": 0, "
	       "\"policy\": \"accept\"}}, {\"rule\": {\"family\": \"ip\", \"table\": \"filter\", "
	       "\"chain\": \"INPUT\", \"handle\": 3, \"expr\": [" UDP_DPORT("4791") ", {\"xt\": "
	       "{\"type\": \"match\", \"name\": \"comment\"}}, " COUNTER ", {\"drop\": null}]}}]}",
	       &f) == FW_DROP && f.handle == 3 && !strcmp(f.family, "ip"),
	   "an iptables-nft rule with a comment still drops");
}

static void test_iptables(void)
{
	struct fw_finding f;

	ok(fw_analyze_iptables_save("*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n", "iptables", &f) == 0 &&
	   f.verdict == FW_ACCEPT, "iptables: an empty INPUT chain accepts");
	ok(fw_analyze_iptables_save("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -i lo -j ACCEPT\n"
				    "-A INPUT -p udp -m udp --dport 4791 -m comment --comment \"no roce\" "
				    "-j DROP\nCOMMIT\n", "iptables", &f) == 0 &&
	   f.verdict == FW_DROP && !strcmp(f.chain, "INPUT") && !strcmp(f.table, "filter") &&
	   strstr(f.rule, "--dport 4791"), "iptables: -p udp --dport 4791 -j DROP is found (%s)",
	   f.rule);
	ok(fw_analyze_iptables_save("*filter\n:INPUT DROP [0:0]\n-A INPUT -m conntrack --ctstate "
				    "RELATED,ESTABLISHED -j ACCEPT\nCOMMIT\n", "iptables", &f) == 0 &&
	   f.verdict == FW_DROP && !strcmp(f.rule, "policy DROP"),
	   "iptables: policy DROP without an accept drops");
	ok(fw_analyze_iptables_save("*filter\n:INPUT DROP [0:0]\n-A INPUT -p udp -m multiport "
				    "--dports 53,4000:5000 -j ACCEPT\nCOMMIT\n", "iptables", &f) == 0 &&
	   f.verdict == FW_ACCEPT, "iptables: a multiport range accept lets RoCE in");
	ok(fw_analyze_iptables_save("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s 10.0.0.0/8 -j REJECT "
				    "--reject-with icmp-port-unreachable\nCOMMIT\n", "iptables", &f)
	   == 0 && f.verdict == FW_MAYBE_DROP, "iptables: a reject by source may drop");
	ok(fw_analyze_iptables_save("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p udp -m udp --dport "
				    "4791 -j REJECT --reject-with icmp-port-unreachable\nCOMMIT\n",
				    "iptables", &f) == 0 && f.verdict == FW_DROP,
	   "iptables: the target's own options do not make a reject conditional");
	ok(fw_analyze_iptables_save("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp --dport 4791 -j "
				    "DROP\nCOMMIT\n", "iptables", &f) == 0 && f.verdict == FW_ACCEPT,
	   "iptables: a TCP drop is no concern");
	ok(fw_analyze_iptables_save("*raw\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING -p udp --dport "
				    "4791 -j DROP\nCOMMIT\n", "iptables", &f) == 0 &&
	   f.verdict == FW_DROP && !strcmp(f.table, "raw"), "iptables: a drop in raw PREROUTING");
}

static void test_results(void)
{
	struct checklist l = { 0 };

	ok(checklist_result(&l) == CHECK_PASS, "no checks: pass");
	check_add(&l, "a.b", CHECK_PASS, NULL, NULL, "fine");
	check_add(&l, "c.d", CHECK_SKIP, "eth0", NULL, "skipped: %s", "why");
	ok(checklist_result(&l) == CHECK_PASS, "pass and skip: pass");
	check_add(&l, "e.f", CHECK_WARN, "eth0", "do this", "hmm");
	ok(checklist_result(&l) == CHECK_WARN, "a warning makes the result warn");
	check_add(&l, "g.h", CHECK_FAIL, NULL, NULL, "bad");
	check_fix(&l, "fix it with `%s`", "x");
	ok(checklist_result(&l) == CHECK_FAIL, "a failure makes the result fail");
	ok(!strcmp(l.v[3].fix, "fix it with `x`") && !strcmp(l.v[1].summary, "skipped: why") &&
	   !strcmp(l.v[1].target, "eth0") && !l.v[0].target, "fields are kept as given");
	checklist_free(&l);
}

int main(void)
{
	tap_plan(7 + 4 + 15 + 8 + 5);
	test_mtu();
	test_memlock();
	test_nft();
	test_iptables();
	test_results();
	return tap_done();
}
