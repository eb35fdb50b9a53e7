#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl doctor, test and gid on a host without an RDMA kernel: arguments, exit codes, messages, JSON.

bats_require_minimum_version 1.5.0

setup() {
	RXECTL="$BATS_TEST_DIRNAME/../../rxectl"
	[ -x "$RXECTL" ] || skip "build rxectl first (make)"
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/rxe.conf"
	: > "$RXECTL_CONFIG"
}

no_rdma_kernel() {
	[ ! -d /sys/module/ib_core ] && ! modinfo ib_core >/dev/null 2>&1
}

check() { # json id [target] -> that check's object
	if [ $# -gt 2 ]; then
		jq -c --arg id "$2" --arg t "$3" '.checks[] | select(.id == $id and .target == $t)' <<<"$1"
	else
		jq -c --arg id "$2" '.checks[] | select(.id == $id)' <<<"$1"
	fi
}

@test "--help lists doctor, test and gid" {
	run -0 "$RXECTL" --help
	[[ "$output" == *"  doctor "* ]]
	[[ "$output" == *"  test "* ]]
	[[ "$output" == *"  gid "* ]]
}

@test "doctor --help, test --help and gid --help print their usage lines" {
	run -0 "$RXECTL" doctor --help
	[[ "$output" == "usage: rxectl doctor [NETDEV|DEVICE...] [--json]"* ]]
	run -0 "$RXECTL" test --help
	[[ "$output" == "usage: rxectl test [DEVICE|NETDEV] [--json]"* ]]
	run -0 "$RXECTL" gid --help
	[[ "$output" == "usage: rxectl gid [DEVICE|NETDEV] [--json] [--index-only]"* ]]
}

@test "doctor rejects an unknown option with exit 2 and its usage" {
	run -2 "$RXECTL" doctor --frob
	[[ "$output" == *"rxectl: unknown option '--frob' for doctor; \`rxectl doctor --help\` lists its options."* ]]
	[[ "$output" == *"usage: rxectl doctor"* ]]
}

@test "doctor rejects a name that is neither a netdev nor a device name with exit 2" {
	run -2 "$RXECTL" doctor 'bad/name'
	[[ "$output" == *"rxectl: 'bad/name' is neither a valid netdev name nor a valid RDMA device name."* ]]
}

@test "doctor with a malformed config file is a usage error" {
	printf '[eth0\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" doctor --host
	[[ "$output" == *"rxe.conf:1:"* ]]
}

@test "test and gid reject extra arguments and unknown options with exit 2" {
	run -2 "$RXECTL" test a b
	[[ "$output" == *"test takes at most one device, but got 'b' too."* ]]
	run -2 "$RXECTL" gid a b
	[[ "$output" == *"gid takes at most one device, but got 'b' too."* ]]
	run -2 "$RXECTL" gid --frob
	[[ "$output" == *"unknown option '--frob' for gid;"* ]]
	run -2 "$RXECTL" test --frob
	[[ "$output" == *"unknown option '--frob' for test;"* ]]
}

@test "doctor without an RDMA kernel fails kernel.rdma with the fix, and exits 1" {
	no_rdma_kernel || skip "this host has RDMA"
	run -1 "$RXECTL" doctor --host
	[[ "$output" == *"[FAIL] kernel.rdma"*"has no RDMA support: no ib_core module and no RDMA netlink"* ]]
	[[ "$output" == *"fix: boot a kernel built with CONFIG_INFINIBAND=m"* ]]
	[[ "$output" == *"result: fail ("* ]]
}

@test "doctor --json is one valid document with the issue's fields, and result fail" {
	no_rdma_kernel || skip "this host has RDMA"
	run -1 --separate-stderr "$RXECTL" doctor --host --json
	jq -e '.result == "fail" and (.checks | length > 5) and
		all(.checks[]; (keys == ["fix", "id", "status", "summary", "target"]) and
		    (.status | IN("pass", "warn", "fail", "skip")))' <<<"$output" >/dev/null
	[ "$(check "$output" kernel.rdma | jq -r .status)" = fail ]
	[ "$(check "$output" module.rdma_rxe | jq -r .status)" = fail ]
	# the fix names the target that installs the driver (`make driver` only builds it)
	[[ "$(check "$output" module.rdma_rxe | jq -r .fix)" == *"linux-modules-extra-"*"make -C driver module-install"* ]]
	[[ "$(check "$output" module.rdma_rxe | jq -r .fix)" != *"make driver"* ]]
}

@test "doctor skips what needs RDMA without it, and still checks the netdev" {
	no_rdma_kernel || skip "this host has RDMA"
	run -1 --separate-stderr "$RXECTL" doctor --host lo --json
	[ "$(check "$output" netdev.exists lo | jq -r .status)" = pass ]
	[ "$(check "$output" device.present lo | jq -r .status)" = skip ]
	[[ "$(check "$output" device.present lo | jq -r .summary)" == "skipped: the kernel has no RDMA support (kernel.rdma)." ]]
	[ "$(check "$output" port.active lo | jq -r .status)" = skip ]
}

@test "doctor warns that loopback reaches only this host" {
	run --separate-stderr "$RXECTL" doctor --host lo --json
	[ "$(check "$output" netdev.kind lo | jq -r .status)" = warn ]
	[[ "$(check "$output" netdev.kind lo | jq -r .summary)" == *"loopback interface"* ]]
}

@test "doctor on a netdev that does not exist fails netdev.exists and skips the rest" {
	run -1 --separate-stderr "$RXECTL" doctor --host nosuchdev0 --json
	[ "$(check "$output" netdev.exists nosuchdev0 | jq -r .status)" = fail ]
	[[ "$(check "$output" netdev.exists nosuchdev0 | jq -r .fix)" == *"ip link"* ]]
	[ "$(check "$output" netdev.up nosuchdev0 | jq -r .status)" = skip ]
}

@test "doctor's text is a checklist with one status column and a result line" {
	run "$RXECTL" doctor --host lo
	echo "$output" | grep -Eq '^\[(ok  |WARN|FAIL|skip)\] kernel\.rdma '
	echo "$output" | grep -Eq '^\[(ok  |WARN|FAIL|skip)\] netdev\.up \(lo\) '
	echo "$output" | tail -n1 | grep -Eq '^result: (pass|warn|fail) \([0-9]+ passed, [0-9]+ warnings?, [0-9]+ failed, [0-9]+ skipped\)$'
}

@test "memlock.limit for a user with a small limit: the fix is scoped (group rdma, a drop-in per unit), never every user or service" {
	[ "$(id -u)" = 0 ] || skip "needs root to become nobody"
	command -v setpriv >/dev/null || skip "needs setpriv"
	conf="$BATS_TEST_TMPDIR/rxe.conf"
	chmod 755 "$BATS_TEST_TMPDIR"
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		bash -c 'ulimit -l 64 && RXECTL_CONFIG="$1" exec "$0" doctor --host --json lo' "$RXECTL" "$conf"
	c=$(check "$output" memlock.limit)
	[ "$(jq -r .status <<< "$c")" = warn ]
	fix=$(jq -r .fix <<< "$c")
	[[ "$fix" == *"usermod -aG rdma USER"*"/etc/security/limits.d/50-rxe-memlock.conf"* ]]
	[[ "$fix" == *"rxectl memlock UNIT --install"*"/etc/systemd/system/UNIT.service.d/50-rxe-memlock.conf"* ]]
	# what issue 14 scoped away: '*' in limits.d, a drop-in for every service
	[[ "$fix" != *"* soft memlock"* ]]
	[[ "$fix" != *"system/service.d/"* ]]
}

@test "memlock.limit as root says CAP_IPC_LOCK lifts a small limit" {
	[ "$(id -u)" = 0 ] || skip "needs root"
	run --separate-stderr prlimit --memlock=65536:65536 "$RXECTL" doctor --host --json
	[ "$(check "$output" memlock.limit | jq -r .status)" = pass ]
	[[ "$(check "$output" memlock.limit | jq -r .summary)" == *"64 KiB"*"CAP_IPC_LOCK"* ]]
}

@test "test and gid without an RDMA kernel fail with the one sentence about the kernel" {
	no_rdma_kernel || skip "this host has RDMA"
	run -1 "$RXECTL" test
	[[ "$output" == "rxectl: kernel "*" has no RDMA support"* ]]
	run -1 "$RXECTL" gid --index-only
	[[ "$output" == "rxectl: kernel "*" has no RDMA support"* ]]
}

# Run doctor --json in a new network namespace after the firewall commands in $1.
doctor_in_netns() {
	unshare -n sh -c "$1 && exec \"\$0\" doctor --host lo --json" "$RXECTL" 2>/dev/null
}

fw_check() { jq -c '.checks[] | select(.id == "firewall.udp4791")' <<<"$1"; }

@test "firewall.udp4791: an nft drop of UDP 4791 in this netns fails, naming table, chain, handle" {
	[ "$(id -u)" = 0 ] && command -v nft >/dev/null && unshare -n true 2>/dev/null || skip "needs root, nft and unshare"
	run doctor_in_netns 'nft add table inet t && nft add chain inet t in "{ type filter hook input priority 0; }" && nft add rule inet t in udp dport { 53, 4791 } reject'
	c=$(fw_check "$output")
	[ "$(jq -r .status <<<"$c")" = fail ]
	[[ "$(jq -r .summary <<<"$c")" =~ ^nftables\ inet\ table\ t,\ chain\ in,\ rule\ handle\ ([0-9]+)\ \(\`udp\ dport\ \{\ 53,\ 4791\ \}\ reject\`\)\ drops\ inbound\ UDP\ 4791 ]]
	[[ "$(jq -r .fix <<<"$c")" == *"\`nft delete rule inet t in handle ${BASH_REMATCH[1]}\`"* ]]
}

@test "firewall.udp4791: an iptables-legacy REJECT of UDP 4791 fails with the iptables fix" {
	[ "$(id -u)" = 0 ] && command -v iptables-legacy >/dev/null && unshare -n true 2>/dev/null || skip "needs root, iptables-legacy and unshare"
	run doctor_in_netns 'iptables-legacy -A INPUT -p udp --dport 4791 -j REJECT'
	c=$(fw_check "$output")
	[ "$(jq -r .status <<<"$c")" = fail ]
	[[ "$(jq -r .summary <<<"$c")" == "iptables table filter, chain INPUT (\`-p udp -m udp --dport 4791 -j REJECT"* ]]
	[[ "$(jq -r .fix <<<"$c")" == *'`iptables -t filter -I INPUT -p udp --dport 4791 -j ACCEPT`'* ]]
}

@test "firewall.udp4791: a drop by source address warns that it may drop" {
	[ "$(id -u)" = 0 ] && command -v nft >/dev/null && unshare -n true 2>/dev/null || skip "needs root, nft and unshare"
	run doctor_in_netns 'nft add table inet t && nft add chain inet t in "{ type filter hook input priority 0; }" && nft add rule inet t in ip saddr 10.0.0.0/8 drop'
	c=$(fw_check "$output")
	[ "$(jq -r .status <<<"$c")" = warn ]
	[[ "$(jq -r .summary <<<"$c")" == *'(`ip saddr 10.0.0.0/8 drop`) may drop inbound UDP 4791'* ]]
}

@test "firewall.udp4791: policy drop with an accept for UDP 4791 first passes" {
	[ "$(id -u)" = 0 ] && command -v nft >/dev/null && unshare -n true 2>/dev/null || skip "needs root, nft and unshare"
	run doctor_in_netns 'nft add table inet t && nft add chain inet t in "{ type filter hook input priority 0; policy drop; }" && nft add rule inet t in iifname lo accept && nft add rule inet t in udp dport 4791 accept'
	[ "$(fw_check "$output" | jq -r .status)" = pass ]
}

@test "every check id doctor reports is documented under DOCTOR CHECKS in rxectl(8)" {
	man="$BATS_TEST_DIRNAME/../../man/rxectl.8"
	checks=$(sed -n '/^\.SS DOCTOR CHECKS/,/^\.S[HS] /p' "$man")
	run --separate-stderr "$RXECTL" doctor --host lo --json
	ids=$(jq -r '.checks[].id' <<<"$output" | sort -u)
	[ "$(wc -l <<<"$ids")" -eq 19 ]
	for id in $ids; do
		grep -q -- "$id" <<<"$checks" || { echo "$id is not in DOCTOR CHECKS"; false; }
	done
}
