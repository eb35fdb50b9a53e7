#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# One firewall module (cli/firewall.c): for the same ruleset, `rxectl doctor`'s firewall.udp4791
# and `rxectl ping`'s verdict on this side agree (run in the VM test bed:
#   tests/run-all tests/guest/diag_firewall.bats).  eth0 is up with 192.0.2.1/24.
# The ping goes to 192.0.2.9, which a permanent neighbour entry makes resolvable but which nobody
# answers, so the connection request times out and ping judges this side's firewall.

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
}

setup() {
	use_empty_config
	"$RXECTL" up eth0 > /dev/null
	ip neigh replace 192.0.2.9 lladdr 02:00:00:00:00:09 dev eth0 nud permanent
}

teardown() {
	nft delete table inet rxfw 2>/dev/null || true
	iptables-legacy -F INPUT 2>/dev/null || true
	ip neigh del 192.0.2.9 dev eth0 2>/dev/null || true
	"$RXECTL" down --all > /dev/null 2>&1 || true
}

# doctor's firewall.udp4791: "STATUS<TAB>SUMMARY"
doctor_fw() {
	"$RXECTL" doctor --json | jq -r '.checks[] | select(.id == "firewall.udp4791") | [.status, .summary] | @tsv'
}

# ping's diagnosis: "LAYER<TAB>MESSAGE"
ping_diag() {
	"$RXECTL" ping 192.0.2.9 --timeout 2 --count 1 --sizes 64 --json 2> /dev/null |
		jq -r '[.diagnosis.layer, .diagnosis.message] | @tsv'
}

nft_drop() { # [MATCH...]
	nft add table inet rxfw
	nft add chain inet rxfw input '{ type filter hook input priority 0; }'
	nft add rule inet rxfw input "$@" udp dport 4791 drop
}

@test "no rules: doctor passes and ping says this side does not filter UDP 4791" {
	IFS=$'\t' read -r st sum < <(doctor_fw)
	[ "$st" = pass ] || { echo "doctor: $st $sum"; false; }
	IFS=$'\t' read -r layer msg < <(ping_diag)
	[ "$layer" = cm ] || { echo "ping: $layer $msg"; false; }
	[[ "$msg" == *"UDP 4791 is not filtered on this side"* ]]
}

@test "an nft rule dropping UDP 4791: doctor fails and ping names this side's firewall and the same rule" {
	nft_drop
	IFS=$'\t' read -r st sum < <(doctor_fw)
	[ "$st" = fail ]
	[[ "$sum" == "nftables inet table rxfw, chain input, rule handle "*"(\`udp dport 4791 drop\`) drops"* ]]
	IFS=$'\t' read -r layer msg < <(ping_diag)
	[ "$layer" = firewall ] || { echo "ping: $layer $msg"; false; }
	[[ "$msg" == *"nftables inet table rxfw, chain input, rule \`udp dport 4791 drop\` drops it"* ]]
}

@test "an iptables-legacy rule dropping UDP 4791: doctor fails and ping names this side's firewall too" {
	iptables-legacy -A INPUT -p udp --dport 4791 -j DROP ||
		skip "iptables-legacy cannot add rules in this guest"
	IFS=$'\t' read -r st sum < <(doctor_fw)
	[ "$st" = fail ]
	[[ "$sum" == "iptables table filter, chain INPUT (\`-p udp -m udp --dport 4791 -j DROP\`) drops"* ]]
	IFS=$'\t' read -r layer msg < <(ping_diag)
	[ "$layer" = firewall ] || { echo "ping: $layer $msg"; false; }
	[[ "$msg" == *"iptables table filter, chain INPUT, rule \`-p udp -m udp --dport 4791 -j DROP\` drops it"* ]]
}

@test "an nft rule that drops UDP 4791 from some sources: doctor warns and ping says it may drop" {
	nft_drop ip saddr 198.51.100.0/24
	IFS=$'\t' read -r st sum < <(doctor_fw)
	[ "$st" = warn ]
	[[ "$sum" == *"may drop inbound UDP 4791"* ]]
	IFS=$'\t' read -r layer msg < <(ping_diag)
	[ "$layer" = cm ] || { echo "ping: $layer $msg"; false; }
	[[ "$msg" == *"whether UDP 4791 is filtered on this side is not known (nftables inet table rxfw, chain input, rule \`"*"\` may drop it)"* ]]
}
