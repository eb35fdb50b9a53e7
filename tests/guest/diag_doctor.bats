#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl doctor against the guest's real rdma_rxe: each check is proven by building its failure
# for real (tests/vm/vm-run -- bats tests/guest/diag_doctor.bats).  eth0 is up with 192.0.2.1/24.

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
}

setup() {
	use_empty_config
}

teardown() {
	"$RXECTL" down --all >/dev/null 2>&1 || true
	ip link del rxd0 2>/dev/null || true
	ip link del br-rxd 2>/dev/null || true
	ip link del eth0.7 2>/dev/null || true
	ip link del bond-rxd 2>/dev/null || true
	rdma system set netns shared 2>/dev/null || true
	nft delete table inet rxtest 2>/dev/null || true
	rm -f /etc/modprobe.d/rxtest-no-rxe.conf
	[ -c /dev/infiniband/uverbs0 ] && chmod 0666 /dev/infiniband/uverbs0 || true
	sysctl -qw net.ipv6.conf.eth0.disable_ipv6=0 2>/dev/null || true
	ip link set eth0 up mtu 1500
	ip addr replace 192.0.2.1/24 dev eth0
}

# A veth pair rxd0/rxd1, both up, MTU $1 (default 1500); rxd0 gets 198.51.100.1/24.
make_veth() {
	ip link add rxd0 mtu "${1:-1500}" type veth peer name rxd1 mtu "${1:-1500}"
	ip addr add 198.51.100.1/24 dev rxd0
	ip link set rxd1 up
	ip link set rxd0 up
}

# Run doctor with the arguments, then load its JSON into ST/SUM/FIX["id/target"] (target "" for
# the system-wide checks) and RESULT with one jq call: jq is slow under an emulated CPU.
run_doctor() { # expected exit status or "any", command...
	local want=$1 key st sum fix
	shift
	if [ "$want" = any ]; then
		run --separate-stderr "$@" --json
	else
		run "-$want" --separate-stderr "$@" --json
	fi
	declare -gA ST=() SUM=() FIX=()
	while IFS=$'\t' read -r key st sum fix; do
		ST[$key]=$st SUM[$key]=$sum FIX[$key]=$fix
	done < <(jq -r '.checks[] | [.id + "/" + (.target // ""), .status, .summary, (.fix // "")] | @tsv' <<<"$output")
	RESULT=$(jq -r .result <<<"$output")
}

as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

@test "a healthy setup (veth with MTU 9000, an address, an rxe device) passes every check" {
	make_veth 9000
	run -0 "$RXECTL" up rxd0
	run_doctor 0 "$RXECTL" doctor rxd0
	for k in "${!ST[@]}"; do
		[ "${ST[$k]}" = pass ] || { echo "$k: ${ST[$k]}: ${SUM[$k]}"; false; }
		[ -z "${FIX[$k]}" ]
	done
	[ "$RESULT" = pass ]
	[ "${#ST[@]}" -eq 19 ]
	for id in kernel.rdma module.ib_core module.ib_uverbs module.rdma_rxe driver.signature provider.rxe netns.mode \
		firewall.udp4791 memlock.limit; do
		[ "${ST[$id/]}" = pass ]
	done
	for id in netdev.exists netdev.up netdev.address netdev.kind device.present mtu.active; do
		[ "${ST[$id/rxd0]}" = pass ]
	done
	for id in port.active devnode.uverbs gid.rocev2 counters.errors; do
		[ "${ST[$id/rxe_rxd0]}" = pass ]
	done
	[[ "${SUM[gid.rocev2/rxe_rxd0]}" == *"RoCE v2 GID for 198.51.100.1 at index "* ]]
	run -0 "$RXECTL" doctor rxd0
	[ "$(echo "$output" | tail -n1)" = "result: pass (19 passed, 0 warnings, 0 failed, 0 skipped)" ]
}

@test "doctor with no arguments checks every rxe device" {
	run -0 "$RXECTL" up eth0
	run_doctor 0 "$RXECTL" doctor
	[ "${ST[device.present/eth0]}" = pass ]
	[ "${ST[port.active/rxe_eth0]}" = pass ]
}

@test "doctor accepts the device name as well as the netdev" {
	run -0 "$RXECTL" up eth0
	run_doctor 0 "$RXECTL" doctor rxe_eth0
	[ "${ST[device.present/eth0]}" = pass ]
}

@test "netdev down: netdev.up and port.active fail and the fix is ip link set up" {
	run -0 "$RXECTL" up eth0
	ip link set eth0 down
	run_doctor 1 "$RXECTL" doctor eth0
	[ "$RESULT" = fail ]
	[ "${ST[netdev.up/eth0]}" = fail ]
	[[ "${SUM[netdev.up/eth0]}" == "eth0 is administratively down, so its rxe port is DOWN." ]]
	[ "${FIX[netdev.up/eth0]}" = 'bring it up with `ip link set eth0 up`.' ]
	[ "${ST[port.active/rxe_eth0]}" = fail ]
	[[ "${FIX[port.active/rxe_eth0]}" == *'`ip link set eth0 up`'* ]]
}

@test "a netdev without carrier fails netdev.up and port.active and names the other end" {
	make_veth
	run -0 "$RXECTL" up rxd0
	ip link set rxd1 down
	run_doctor 1 "$RXECTL" doctor rxd0
	[ "${ST[netdev.up/rxd0]}" = fail ]
	[[ "${SUM[netdev.up/rxd0]}" == "rxd0 is up but has no carrier"* ]]
	[[ "${FIX[netdev.up/rxd0]}" == *"bring up the other end of rxd0"* ]]
	[ "${ST[port.active/rxe_rxd0]}" = fail ]
}

@test "with no RDMA module loaded, doctor loads none, says rxectl up loads them, and fails device.present" {
	"$RXECTL" down --all >/dev/null 2>&1 || true
	modprobe -r rdma_rxe ib_uverbs rdma_ucm ib_ipoib ib_umad rdma_cm iw_cm ib_cm ib_core 2>/dev/null || true
	[ ! -d /sys/module/ib_core ] || skip "ib_core cannot be unloaded here"
	run_doctor 1 "$RXECTL" doctor eth0
	[ "${ST[kernel.rdma/]}" = pass ]
	[[ "${SUM[kernel.rdma/]}" == *"(ib_core) that is not loaded yet; \`rxectl up\` loads it." ]]
	[ "${ST[module.rdma_rxe/]}" = pass ]
	[ "${SUM[module.rdma_rxe/]}" = 'rdma_rxe is not loaded but can be loaded; `rxectl up` loads it.' ]
	[ "${ST[device.present/eth0]}" = fail ]
	[ "${FIX[device.present/eth0]}" = 'create it with `rxectl up eth0` (it loads them).' ]
	[ "${ST[port.active/eth0]}" = skip ]
	[ ! -d /sys/module/ib_core ]	# doctor loaded nothing
}

@test "netdev without an address: netdev.address and gid.rocev2 fail and the fix adds one" {
	run -0 "$RXECTL" up eth0
	sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ip addr flush dev eth0
	run_doctor 1 "$RXECTL" doctor eth0
	[ "${ST[netdev.address/eth0]}" = fail ]
	[[ "${SUM[netdev.address/eth0]}" == "eth0 has no IP address"* ]]
	[[ "${FIX[netdev.address/eth0]}" == *'`ip addr add ADDRESS/PREFIX dev eth0`'* ]]
	[ "${ST[gid.rocev2/rxe_eth0]}" = fail ]
	[[ "${FIX[gid.rocev2/rxe_eth0]}" == *'`ip addr add ADDRESS/PREFIX dev eth0`'* ]]
}

@test "an nft rule dropping UDP 4791 fails firewall.udp4791, naming table, chain and rule" {
	nft add table inet rxtest
	nft add chain inet rxtest input '{ type filter hook input priority 0; policy accept; }'
	nft add rule inet rxtest input ct state established,related accept
	nft add rule inet rxtest input udp dport 4791 counter drop
	handle=$(nft -j -a list chain inet rxtest input | jq '[.nftables[].rule | select(.) | .handle] | last')
	run_doctor 1 "$RXECTL" doctor eth0
	[ "${ST[firewall.udp4791/]}" = fail ]
	[[ "${SUM[firewall.udp4791/]}" == "nftables inet table rxtest, chain input, rule handle $handle (\`udp dport 4791 drop\`) drops inbound UDP 4791"* ]]
	[[ "${FIX[firewall.udp4791/]}" == *"\`nft delete rule inet rxtest input handle $handle\`"* ]]
	[[ "${FIX[firewall.udp4791/]}" == *'`nft insert rule inet rxtest input udp dport 4791 accept`'* ]]
}

@test "an nft accept for UDP 4791 before a policy drop passes firewall.udp4791" {
	nft add table inet rxtest
	nft add chain inet rxtest input '{ type filter hook input priority 0; policy drop; }'
	nft add rule inet rxtest input udp dport 4791 accept
	run_doctor any "$RXECTL" doctor eth0
	[ "${ST[firewall.udp4791/]}" = pass ]
	nft flush chain inet rxtest input
	run_doctor 1 "$RXECTL" doctor eth0
	[ "${ST[firewall.udp4791/]}" = fail ]
	[[ "${SUM[firewall.udp4791/]}" == *"chain input has policy drop"* ]]
}

@test "doctor as a user skips the firewall check, saying it needs root" {
	nft add table inet rxtest
	run_doctor any as_nobody "$RXECTL" doctor eth0
	[ "${ST[firewall.udp4791/]}" = skip ]
	[[ "${SUM[firewall.udp4791/]}" == *"needs root (CAP_NET_ADMIN)"* ]]
}

@test "ulimit -l 64 for a user: memlock.limit warns with the limits.d and LimitMEMLOCK= fix" {
	run -0 "$RXECTL" up eth0
	run_doctor 0 as_nobody bash -c 'ulimit -l 64 && exec "$0" "$@"' "$RXECTL" doctor eth0
	[ "${ST[memlock.limit/]}" = warn ]
	[[ "${SUM[memlock.limit/]}" == "your RLIMIT_MEMLOCK is 64 KiB (hard limit 64 KiB)"* ]]
	[[ "${FIX[memlock.limit/]}" == *"/etc/security/limits.d/"* ]]
	[[ "${FIX[memlock.limit/]}" == *"LimitMEMLOCK=infinity"* ]]
}

@test "ulimit -l 64 for root: memlock.limit passes because CAP_IPC_LOCK lifts it, and says so" {
	run -0 "$RXECTL" up eth0
	run_doctor 0 prlimit --memlock=65536:65536 "$RXECTL" doctor eth0
	[ "${ST[memlock.limit/]}" = pass ]
	[[ "${SUM[memlock.limit/]}" == *"64 KiB"*"CAP_IPC_LOCK"*"users and services without CAP_IPC_LOCK are held to their own limit"* ]]
}

@test "rdma_rxe made unloadable by an install line fails module.rdma_rxe, naming the file" {
	"$RXECTL" down --all >/dev/null 2>&1 || true
	modprobe -r rdma_rxe
	echo 'install rdma_rxe /bin/false' > /etc/modprobe.d/rxtest-no-rxe.conf
	run ! modprobe rdma_rxe
	run -1 "$RXECTL" up eth0
	run_doctor 1 "$RXECTL" doctor eth0
	[ "${ST[module.rdma_rxe/]}" = fail ]
	[[ "${SUM[module.rdma_rxe/]}" == *"\`install rdma_rxe /bin/false\`"* ]]
	[[ "${FIX[module.rdma_rxe/]}" == *"/etc/modprobe.d/rxtest-no-rxe.conf"* ]]
}

@test "rdma_rxe missing from the kernel's modules fails module.rdma_rxe with the package hint" {
	"$RXECTL" down --all >/dev/null 2>&1 || true
	modprobe -r rdma_rxe
	ko=$(modinfo -n rdma_rxe)
	cp "$ko" "$BATS_TEST_TMPDIR/rdma_rxe.ko.saved"
	rm -f "$ko"
	run ! modprobe rdma_rxe
	run_doctor 1 "$RXECTL" doctor eth0
	cp "$BATS_TEST_TMPDIR/rdma_rxe.ko.saved" "$ko"
	[ "${ST[module.rdma_rxe/]}" = fail ]
	[[ "${SUM[module.rdma_rxe/]}" == "rdma_rxe is not available for kernel $(uname -r)"* ]]
	[[ "${FIX[module.rdma_rxe/]}" == *"linux-modules-extra-$(uname -r)"*'`make -C driver module-install`'* ]]
	run -0 modprobe rdma_rxe
}

@test "MTU 1500 warns that RoCE gets 1024 and names 4176/9000; MTU 9000 passes with 4096" {
	make_veth 1500
	run -0 "$RXECTL" up rxd0
	run_doctor 0 "$RXECTL" doctor rxd0
	[ "${ST[mtu.active/rxd0]}" = warn ]
	[[ "${SUM[mtu.active/rxd0]}" == "rxd0's MTU 1500 gives a RoCE active MTU of only 1024 bytes; a netdev MTU of 4176 or more gives 4096." ]]
	[[ "${FIX[mtu.active/rxd0]}" == *'`ip link set rxd0 mtu 9000`'* ]]
	ip link set rxd1 mtu 9000
	ip link set rxd0 mtu 9000
	run_doctor 0 "$RXECTL" doctor rxd0
	[ "${ST[mtu.active/rxd0]}" = pass ]
	[[ "${SUM[mtu.active/rxd0]}" == *"MTU 9000 gives a RoCE active MTU of 4096"* ]]
	ibv_devinfo -d rxe_rxd0 | grep -Eq 'active_mtu:[[:space:]]+4096 \(5\)'
}

@test "uverbs node mode 0600: a user fails devnode.uverbs with the chmod fix, root gets a warning" {
	run -0 "$RXECTL" up eth0
	chmod 0600 /dev/infiniband/uverbs0
	run_doctor 1 as_nobody "$RXECTL" doctor eth0
	[ "${ST[devnode.uverbs/rxe_eth0]}" = fail ]
	[[ "${SUM[devnode.uverbs/rxe_eth0]}" == "you (uid 65534) cannot open /dev/infiniband/uverbs0 (mode 0600, owner root:root)"* ]]
	[[ "${FIX[devnode.uverbs/rxe_eth0]}" == *'`chmod 0666 /dev/infiniband/uverbs0`'* ]]
	[ "${ST[gid.rocev2/rxe_eth0]}" = pass ]	# read from sysfs: needs no uverbs access
	run_doctor 0 "$RXECTL" doctor eth0
	[ "${ST[devnode.uverbs/rxe_eth0]}" = warn ]
	[[ "${SUM[devnode.uverbs/rxe_eth0]}" == *"other users cannot (mode 0600"* ]]
}

@test "without rdma-core's rxe provider: provider.rxe fails naming the package, GIDs still read" {
	run -0 "$RXECTL" up eth0
	mv /etc/libibverbs.d/rxe.driver "$BATS_TEST_TMPDIR/rxe.driver"
	run_doctor 1 "$RXECTL" doctor eth0
	mv "$BATS_TEST_TMPDIR/rxe.driver" /etc/libibverbs.d/rxe.driver
	[ "${ST[provider.rxe/]}" = fail ]
	[[ "${SUM[provider.rxe/]}" == "rdma-core's rxe provider is not installed (no \`driver rxe\` in /etc/libibverbs.d)"* ]]
	[[ "${FIX[provider.rxe/]}" == *'`apt install ibverbs-providers`'* ]]
	[ "${ST[gid.rocev2/rxe_eth0]}" = pass ]
}

@test "a netdev without an rxe device fails device.present with the up command" {
	run_doctor 1 "$RXECTL" doctor eth0
	[ "${ST[device.present/eth0]}" = fail ]
	[ "${FIX[device.present/eth0]}" = 'create it with `rxectl up eth0`.' ]
	[ "${ST[port.active/eth0]}" = skip ]
}

@test "a bridge port warns in netdev.kind and names the bridge; a VLAN fails, naming its real device" {
	make_veth
	ip link add br-rxd type bridge
	ip link set rxd0 master br-rxd
	run_doctor any "$RXECTL" doctor rxd0
	[ "${ST[netdev.kind/rxd0]}" = warn ]
	[[ "${FIX[netdev.kind/rxd0]}" == *'`rxectl up br-rxd`'* ]]
	ip link add link eth0 name eth0.7 type vlan id 7
	run_doctor any "$RXECTL" doctor eth0.7
	[ "${ST[netdev.kind/eth0.7]}" = fail ]
	[[ "${SUM[netdev.kind/eth0.7]}" == *"VLAN"*"rxe device on eth0"* ]]
	[[ "${FIX[netdev.kind/eth0.7]}" == *'`rxectl up eth0`'* ]]
}

@test "a bond slave warns in netdev.kind and says to put the device on the bond" {
	make_veth
	ip link add bond-rxd type bond
	ip link set rxd1 down
	ip link set rxd1 master bond-rxd
	run_doctor any "$RXECTL" doctor rxd1
	[ "${ST[netdev.kind/rxd1]}" = warn ]
	[[ "${SUM[netdev.kind/rxd1]}" == "rxd1 is a slave of bond bond-rxd"* ]]
	[ "${FIX[netdev.kind/rxd1]}" = 'create the rxe device on bond-rxd instead: `rxectl up bond-rxd`.' ]
}

@test "netns.mode reports shared, and exclusive after rdma system set netns exclusive" {
	run_doctor any "$RXECTL" doctor eth0
	[ "${ST[netns.mode/]}" = pass ]
	[[ "${SUM[netns.mode/]}" == *"shared netns mode"* ]]
	rdma system set netns exclusive
	run_doctor any "$RXECTL" doctor eth0
	rdma system set netns shared
	[ "${ST[netns.mode/]}" = pass ]
	[[ "${SUM[netns.mode/]}" == *"exclusive netns mode"* ]]
}

@test "doctor's text output puts the fix under the failed check" {
	run -0 "$RXECTL" up eth0
	ip link set eth0 down
	run -1 "$RXECTL" doctor eth0
	echo "$output" | grep -A1 '^\[FAIL\] netdev.up (eth0) ' | grep -q '^       fix: bring it up with `ip link set eth0 up`.$'
	[[ "$(echo "$output" | tail -n1)" == "result: fail ("* ]]
}
