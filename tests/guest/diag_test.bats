#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl test (the loopback verbs self-test) and rxectl gid on the guest kernel's real rdma_rxe
# (tests/vm/vm-run -- bats tests/guest/diag_test.bats).  eth0 is up with 192.0.2.1/24.

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
	ip link del rxt0 2>/dev/null || true
	ip link set eth0 up
	ip addr replace 192.0.2.1/24 dev eth0
}

# The GID index of the RoCE v2 GID for 192.0.2.1, read from sysfs (among the first 16 slots of
# the 1024: reading them all takes long under an emulated CPU).
sysfs_v4_index() {
	local dev=$1 i
	for i in $(seq 0 15); do
		[ "$(cat "/sys/class/infiniband/$dev/ports/1/gids/$i")" = "0000:0000:0000:0000:0000:ffff:c000:0201" ] || continue
		[ "$(cat "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$i"
		return
	done
}

@test "test passes every operation on stock rdma_rxe and exits 0" {
	run -0 "$RXECTL" up eth0
	run -0 "$RXECTL" test rxe_eth0
	[[ "${lines[0]}" == "testing rxe_eth0 port 1 on eth0, GID index "*" (RoCE v2, 192.0.2.1), path MTU 1024, 3000-byte messages:" ]]
	for op in send send_imm write write_imm read fetch_add cmp_swap; do
		echo "$output" | grep -Eq "^  $op +pass +[0-9]+ usec$"
	done
	echo "$output" | grep -Eq '^  write_bad_rkey +pass +[0-9]+ usec  \(failed with "remote access error", as expected\)$'
	[ "${lines[-1]}" = "result: pass (8 of 8 operations passed)" ]
}

@test "test --json has device, gid_index, results (op, status, usec) and result, exactly" {
	run -0 "$RXECTL" up eth0
	run -0 --separate-stderr "$RXECTL" test eth0 --json
	idx=$(sysfs_v4_index rxe_eth0)
	jq -e --argjson idx "$idx" '
		(keys == ["device", "gid_index", "result", "results"]) and .device == "rxe_eth0" and
		.gid_index == $idx and .result == "pass" and
		([.results[].op] == ["send", "send_imm", "write", "write_imm", "read", "fetch_add",
				     "cmp_swap", "write_bad_rkey"]) and
		all(.results[]; keys == ["op", "status", "usec"] and .status == "pass" and
		    (.usec | type) == "number")' <<<"$output" >/dev/null
}

@test "test without a device name uses the only rxe device" {
	run -0 "$RXECTL" up eth0
	run -0 "$RXECTL" test
	[[ "${lines[0]}" == "testing rxe_eth0 port 1 on eth0"* ]]
}

@test "test on a device whose netdev is down fails with exit 1 and says to bring it up" {
	run -0 "$RXECTL" up eth0
	ip link set eth0 down
	run -1 --separate-stderr "$RXECTL" test rxe_eth0
	[ "$stderr" = 'rxectl: rxe_eth0 port 1 is DOWN because eth0 is down, so nothing can be tested; bring it up with `ip link set eth0 up`.' ]
	[ "${lines[-1]}" = "result: fail" ]
	run -1 --separate-stderr "$RXECTL" test rxe_eth0 --json
	jq -e '.result == "fail" and .results == [] and .device == "rxe_eth0"' <<<"$output" >/dev/null
}

@test "test as a user who may not open the uverbs node fails with exit 1 saying so" {
	run -0 "$RXECTL" up eth0
	chmod 0600 /dev/infiniband/uverbs0
	run -1 --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$RXECTL" test rxe_eth0
	chmod 0666 /dev/infiniband/uverbs0
	[ "$stderr" = 'rxectl: libibverbs cannot open rxe_eth0: you (uid 65534) may not open /dev/infiniband/uverbs0; `rxectl doctor rxe_eth0` checks ib_uverbs, rdma-core'"'"'s provider and the permissions of /dev/infiniband.' ]
}

@test "test with no rxe device fails with exit 1 and says how to create one" {
	run -1 "$RXECTL" test
	[ "$output" = 'rxectl: there is no rxe device; create one with `rxectl up NETDEV`, or name an RDMA device: `rxectl test DEVICE`.' ]
}

@test "test on a name that is no device fails with exit 1 naming it" {
	run -1 "$RXECTL" test nosuch0
	[[ "$output" == "rxectl: there is no RDMA device named nosuch0 and no rxe device on a netdev nosuch0;"* ]]
}

@test "test with two rxe devices and no name is a usage error listing them" {
	ip link add rxt0 type veth peer name rxt1
	ip link set rxt1 up
	ip link set rxt0 up
	run -0 "$RXECTL" up eth0
	run -0 "$RXECTL" up rxt0
	run -2 "$RXECTL" test
	[[ "$output" == "rxectl: there are 2 rxe devices (rxe_eth0, rxe_rxt0); name one: \`rxectl test DEVICE\`."* ]]
}

@test "gid marks the RoCE v2 GID of the IPv4 address, the same index up reports" {
	run -0 "$RXECTL" up eth0
	[[ "$output" =~ GID\ index\ ([0-9]+) ]]
	idx=${BASH_REMATCH[1]}
	[ "$idx" = "$(sysfs_v4_index rxe_eth0)" ]
	run -0 "$RXECTL" gid rxe_eth0
	[ "${lines[0]}" = "rxe_eth0 on eth0: use GID index $idx (RoCE v2, 192.0.2.1): \`-x $idx\` for perftest, \`-g $idx\` for ibv_rc_pingpong" ]
	echo "$output" | grep -Eq "^\* $idx +::ffff:192\.0\.2\.1 +RoCE v2 +eth0 +192\.0\.2\.1$"
	[ "$(echo "$output" | grep -c '^\* ')" -eq 1 ]
}

@test "gid --index-only prints just the number, by device or by netdev" {
	run -0 "$RXECTL" up eth0
	idx=$(sysfs_v4_index rxe_eth0)
	run -0 "$RXECTL" gid --index-only
	[ "$output" = "$idx" ]
	run -0 "$RXECTL" gid eth0 --index-only
	[ "$output" = "$idx" ]
}

@test "gid --json lists every GID with index, gid, type, netdev, ip and one recommended" {
	run -0 "$RXECTL" up eth0
	idx=$(sysfs_v4_index rxe_eth0)
	run -0 --separate-stderr "$RXECTL" gid rxe_eth0 --json
	jq -e --argjson idx "$idx" '.devices | length == 1 and .[0].name == "rxe_eth0" and
		.[0].gid_index == $idx and
		all(.[0].gids[]; (keys == ["gid", "index", "ip", "netdev", "recommended", "type"]) and
		    .netdev == "eth0") and
		([.[0].gids[] | select(.recommended)] == [{"index": $idx, "gid": "::ffff:192.0.2.1",
			"type": "RoCE v2", "netdev": "eth0", "ip": "192.0.2.1", "recommended": true}])' \
		<<<"$output" >/dev/null
}

@test "gid as a user who may not open the uverbs node reads the same table from sysfs" {
	run -0 "$RXECTL" up eth0
	run -0 --separate-stderr "$RXECTL" gid rxe_eth0 --json
	want=$output
	chmod 0600 /dev/infiniband/uverbs0
	run -0 --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$RXECTL" gid rxe_eth0 --json
	chmod 0666 /dev/infiniband/uverbs0
	[ "$(jq -S . <<<"$output")" = "$(jq -S . <<<"$want")" ]
}

@test "gid --index-only without an address fails with exit 1 and says to add one" {
	run -0 "$RXECTL" up eth0
	ip addr flush dev eth0
	run -1 "$RXECTL" gid eth0 --index-only
	[[ "$output" == "rxectl: rxe_eth0 has no RoCE v2 GID for an IP address of eth0; add one with \`ip addr add ADDRESS/PREFIX dev eth0\`." ]]
}

@test "test passes every operation on the bundled driver too, and doctor names it" {
	load_bundled_driver
	run -0 "$RXECTL" up eth0
	run -0 "$RXECTL" test rxe_eth0
	out=$output
	run -0 --separate-stderr "$RXECTL" doctor eth0 --json
	drv=$(jq -r '.checks[] | select(.id == "module.rdma_rxe") | .summary' <<<"$output")
	"$RXECTL" down --all
	rmmod rdma_rxe
	[ "${out##*$'\n'}" = "result: pass (8 of 8 operations passed)" ]
	[ "$drv" = "rdma_rxe is loaded (the bundled driver)." ]
}
