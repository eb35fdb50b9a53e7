#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl up/down/status against the guest kernel's real rdma_rxe (run inside the VM test bed:
#   tests/vm/vm-run -- bats tests/guest/cli_up.bats).  eth0 is up with 192.0.2.1/24.

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
}

# A veth pair rxt0/rxt1, both up; rxt0 gets 198.51.100.1/24.
make_veth() {
	ip link add rxt0 type veth peer name rxt1
	ip addr add 198.51.100.1/24 dev rxt0
	ip link set rxt1 up
	ip link set rxt0 up
}

rdma_links() {
	rdma -j link show | jq -c '[.[] | {name: .ifname, netdev, state, physical_state}] | sort_by(.name)'
}

# sysfs spells GIDs as eight groups of four hex digits.
sysfs_gid() {
	cat "/sys/class/infiniband/$1/ports/1/gids/$2"
}

@test "up creates an ACTIVE device with a RoCE v2 GID for the netdev's IPv4 address" {
	run -0 "$RXECTL" up eth0
	[[ "$output" =~ ^rxe_eth0\ on\ eth0\ was\ created\ and\ is\ ACTIVE,\ active\ MTU\ [0-9]+\;\ applications\ should\ use\ GID\ index\ ([0-9]+)\ \(RoCE\ v2,\ 192\.0\.2\.1\)\.$ ]]
	idx=${BASH_REMATCH[1]}
	[ "$(rdma_links)" = '[{"name":"rxe_eth0","netdev":"eth0","state":"ACTIVE","physical_state":"LINK_UP"}]' ]
	[ "$(cat /sys/class/infiniband/rxe_eth0/ports/1/gid_attrs/types/$idx)" = "RoCE v2" ]
	[ "$(sysfs_gid rxe_eth0 "$idx")" = "0000:0000:0000:0000:0000:ffff:c000:0201" ]
}

@test "up --json reports the same device, GID index and IP" {
	run -0 --separate-stderr "$RXECTL" up eth0 --json
	echo "$output" | jq -e '.devices | length == 1' >/dev/null
	echo "$output" | jq -e '.devices[0] | .name == "rxe_eth0" and .netdev == "eth0" and
		.state == "ACTIVE" and .created == true and .ip == "192.0.2.1" and
		.gid == "::ffff:192.0.2.1" and (.gid_index | type) == "number" and
		(.active_mtu | type) == "number"' >/dev/null
}

@test "up twice leaves one device and exits 0 both times" {
	run -0 "$RXECTL" up eth0
	run -0 "$RXECTL" up eth0
	[[ "$output" == "rxe_eth0 on eth0 already existed and is ACTIVE"* ]]
	[ "$(rdma -j link show | jq length)" -eq 1 ]
}

@test "up on a netdev that already has a device under another name keeps it and succeeds" {
	run -0 "$RXECTL" up eth0 --name roce0
	run -0 "$RXECTL" up eth0
	[[ "$output" == *"eth0 already has the rxe device roce0, so rxe_eth0 was not created"* ]]
	[[ "$output" == *"roce0 on eth0 already existed and is ACTIVE"* ]]
	[ "$(rdma -j link show | jq -r '.[].ifname')" = "roce0" ]
}

@test "up --name gives the device that name" {
	run -0 "$RXECTL" up eth0 --name roce_a
	[ "$(rdma -j link show | jq -r '.[0].ifname')" = "roce_a" ]
}

@test "up refuses a name another netdev's device already has" {
	make_veth
	run -0 "$RXECTL" up eth0 --name shared0
	run -1 "$RXECTL" up rxt0 --name shared0
	[[ "$output" == "rxectl: the device name shared0 is already used by the rxe device on eth0; choose another"* ]]
}

@test "down NETDEV removes the device" {
	run -0 "$RXECTL" up eth0
	run -0 "$RXECTL" down eth0
	[ "$output" = "removed rxe_eth0 from eth0." ]
	[ "$(rdma -j link show | jq length)" -eq 0 ]
}

@test "down DEVICE removes the device" {
	run -0 "$RXECTL" up eth0 --name roce_b
	run -0 "$RXECTL" down roce_b
	[ "$(rdma -j link show | jq length)" -eq 0 ]
}

@test "down of a device a process has open names the process, waits for it, and finishes once it exits" {
	local pp dn err=$BATS_TEST_TMPDIR/down.err
	run -0 "$RXECTL" up eth0
	# a pingpong server holds rxe_eth0 open (a user context) while it waits for its client
	ibv_rc_pingpong -d rxe_eth0 -g 1 -p 18650 >/dev/null 2>&1 &
	pp=$!
	for _ in $(seq 50); do
		ls -l /proc/$pp/fd 2>/dev/null | grep -q /dev/infiniband/uverbs && break
		sleep 0.1
	done
	"$RXECTL" down eth0 >/dev/null 2>"$err" &
	dn=$!
	for _ in $(seq 50); do grep -q "open by" "$err" && break; sleep 0.1; done
	cat "$err"
	grep -q "rxe_eth0 is open by 1 process: $pp (ibv_rc_pingpong)" "$err"
	grep -q "waits until it exits: stop it to let it finish" "$err"
	sleep 1
	kill -0 "$dn"	# still waiting: the kernel's delete waits for the pingpong to close it
	kill "$pp"
	wait "$dn"	# and the delete finishes (exit 0) once it has gone
	[ "$(rdma -j link show | jq length)" -eq 0 ]
}

@test "down of a device nobody has open says nothing about processes" {
	run -0 "$RXECTL" up eth0
	run -0 --separate-stderr "$RXECTL" down eth0
	[ -z "$stderr" ]
}

@test "down of a device that is not there is not an error" {
	run -0 "$RXECTL" down eth0
	[ "$output" = "no rxe device is named eth0 or sits on it; nothing to remove." ]
}

@test "down --all removes every rxe device" {
	make_veth
	run -0 "$RXECTL" up eth0
	run -0 "$RXECTL" up rxt0
	run -0 "$RXECTL" down --all
	[ "${#lines[@]}" -eq 2 ]
	[ "$(rdma -j link show | jq length)" -eq 0 ]
}

@test "status --json agrees with rdma -j link" {
	make_veth
	"$RXECTL" up eth0
	"$RXECTL" up rxt0
	mine=$("$RXECTL" status --json | jq -c '[.devices[] | {name, netdev, state, physical_state}] | sort_by(.name)')
	[ "$mine" = "$(rdma_links)" ]
	[ "$(echo "$mine" | jq length)" -eq 2 ]
}

@test "status --json has the documented fields for each device" {
	"$RXECTL" up eth0
	run -0 --separate-stderr "$RXECTL" status --json
	echo "$output" | jq -e '(.missing | length) == 0' >/dev/null
	echo "$output" | jq -e '.devices[0] |
		(.name, .netdev, .state, .physical_state, .driver | type) == "string" and
		(.active_mtu, .netdev_mtu, .gid_index, .index, .port | type) == "number" and
		.driver == "in-tree" and .netdev_mtu == 1500 and
		any(.gids[]; .type == "RoCE v2" and .ip == "192.0.2.1" and .index == $r.gid_index)' \
		--argjson r "$(echo "$output" | jq '.devices[0]')" >/dev/null
}

@test "status shows the device's capabilities as ibv_devinfo reports them (fast-reg, MW, limits)" {
	"$RXECTL" up eth0
	mine=$("$RXECTL" status --json | jq -cS '.devices[0].capabilities')
	echo "rxectl: $mine"; echo "devinfo: $(devinfo_caps rxe_eth0)"
	[ "$mine" = "$(devinfo_caps rxe_eth0)" ]
	# stock 6.1 rxe has fast-register MRs and memory windows (what NVMe-oF and NFS/RDMA need)
	[ "$(jq -r .fast_reg_mr <<< "$mine")" = true ]
	run -0 "$RXECTL" status
	[[ "${lines[2]}" == "    capabilities: fast-register MRs yes, memory windows yes (type 2 yes), atomics yes, max MR size "[0-9]*" bytes" ]]
	[[ "${lines[3]}" == "    limits: $(jq -r .max_qp <<< "$mine") QPs, "*" multicast groups" ]]
}

@test "status text shows the same device, state and GID index as --json" {
	"$RXECTL" up eth0
	idx=$("$RXECTL" status --json | jq '.devices[0].gid_index')
	mtu=$("$RXECTL" status --json | jq '.devices[0].active_mtu')
	run -0 "$RXECTL" status
	[ "${lines[0]}" = "rxe_eth0 on eth0: ACTIVE (LINK_UP), active MTU $mtu, netdev MTU 1500, driver in-tree" ]
	[ "${lines[1]}" = "    applications should use GID index $idx (RoCE v2, 192.0.2.1)" ]
}

@test "up on a netdev without carrier waits, then says why it is not ready" {
	ip link add rxt0 type veth peer name rxt1
	ip addr add 198.51.100.1/24 dev rxt0
	ip link set rxt0 up
	run -1 "$RXECTL" up rxt0 --wait 1
	[[ "$output" == *"rxectl: rxe_rxt0 on rxt0 is not ready after 1 s: rxt0 has no carrier"* ]]
	ip link set rxt1 up
	run -0 "$RXECTL" up rxt0
	[[ "$output" == "rxe_rxt0 on rxt0 already existed and is ACTIVE"*"(RoCE v2, 198.51.100.1)." ]]
}

@test "up on a netdev without an IP address says how to add one" {
	ip link add rxt0 type veth peer name rxt1
	sysctl -qw net.ipv6.conf.rxt0.disable_ipv6=1
	ip link set rxt1 up
	ip link set rxt0 up
	run -1 "$RXECTL" up rxt0 --wait 1
	[[ "$output" == *"rxt0 has no IP address, so rxe_rxt0 has no RoCE v2 GID; add one with \`ip addr add ADDRESS/PREFIX dev rxt0\`."* ]]
}

@test "up with no netdev brings up every netdev in the config file" {
	make_veth
	printf '[eth0]\n[rxt0]\nname = roce_veth\n' > "$RXECTL_CONFIG"
	run -0 "$RXECTL" up
	[ "$(rdma -j link show | jq -c '[.[].ifname] | sort')" = '["roce_veth","rxe_eth0"]' ]
}

@test "up NETDEV takes the device name from the config file" {
	printf '[eth0]\nname = from_conf\n' > "$RXECTL_CONFIG"
	run -0 "$RXECTL" up eth0
	[ "$(rdma -j link show | jq -r '.[0].ifname')" = "from_conf" ]
}

@test "a malformed config file changes nothing" {
	printf '[eth0]\n[rxt0\n' > "$RXECTL_CONFIG"
	run -2 "$RXECTL" up
	[[ "$output" == "rxectl: $RXECTL_CONFIG:2: "* ]]
	[ "$(rdma -j link show | jq length)" -eq 0 ]
}

@test "up on a netdev that does not exist exits 3 (the netdev is not there), naming it" {
	run -3 "$RXECTL" up nosuch0
	[ "$output" = "rxectl: netdev nosuch0 does not exist; check the name with \`ip link\`." ]
	[ "$(rdma -j link show | jq length)" -eq 0 ]
}

@test "up on a VLAN device exits 2 and names its real device (the kernel refuses rxe on a VLAN)" {
	make_veth
	ip link add link rxt0 name rxt0.9 type vlan id 9
	ip link set rxt0.9 up
	run -2 "$RXECTL" up rxt0.9
	[[ "$output" == "rxectl: rxt0.9 is a VLAN device, and an rxe device cannot sit on one: put it on rxt0 (\`rxectl up rxt0\`"* ]]
	[ "$(rdma -j link show | jq length)" -eq 0 ]
	# what it says works: the device on rxt0 has a GID for the VLAN's address
	ip addr add 198.51.100.9/24 dev rxt0.9
	run -0 "$RXECTL" up rxt0
	for _ in $(seq 50); do
		grep -qx '0000:0000:0000:0000:0000:ffff:c633:6409' /sys/class/infiniband/rxe_rxt0/ports/1/gids/* && break
		sleep 0.2
	done
	grep -qx '0000:0000:0000:0000:0000:ffff:c633:6409' /sys/class/infiniband/rxe_rxt0/ports/1/gids/*
}

@test "up with a bad netdev name fails with exit 2, naming it" {
	run -2 "$RXECTL" up 'eth0 x'
	[[ "$output" == "rxectl: netdev name 'eth0 x' contains"* ]]
	run -2 "$RXECTL" up eth0 --name 'x/y'
	[[ "$output" == "rxectl: device name 'x/y' may only contain"* ]]
	[ "$(rdma -j link show | jq length)" -eq 0 ]
}

@test "up without privilege says root is needed, in one sentence" {
	modprobe rdma_rxe
	modprobe ib_uverbs
	# (the test's config file sits in a directory only root can read)
	run -1 setpriv --reuid=65534 --regid=65534 --clear-groups env -u RXECTL_CONFIG "$RXECTL" up eth0
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "rxectl: creating rxe"*" needs "*"; run rxectl as root (for example with sudo)." ]]
	# past the creation lock, the kernel's refusal gets the same kind of sentence
	touch /run/rxectl.lock.test
	chmod 666 /run/rxectl.lock.test
	run -1 setpriv --reuid=65534 --regid=65534 --clear-groups env -u RXECTL_CONFIG RXECTL_LOCK=/run/rxectl.lock.test "$RXECTL" up eth0
	[ "$output" = "rxectl: creating rxe_eth0 on eth0 needs the CAP_NET_ADMIN capability; run rxectl as root (for example with sudo)." ]
	rm -f /run/rxectl.lock.test
}

@test "down without privilege says root is needed" {
	"$RXECTL" up eth0
	run -1 setpriv --reuid=65534 --regid=65534 --clear-groups "$RXECTL" down eth0
	[ "$output" = "rxectl: deleting rxe_eth0 needs the CAP_NET_ADMIN capability; run rxectl as root (for example with sudo)." ]
}

@test "the in-tree driver is reported as in-tree" {
	"$RXECTL" up eth0
	[ "$("$RXECTL" status --json | jq -r '.devices[0].driver')" = "in-tree" ]
}

@test "enable --now without systemd creates the declared device, disable --now removes it" {
	run -0 "$RXECTL" enable eth0 --name rxen0 --now
	[[ "$output" == *"eth0 is now declared in $RXECTL_CONFIG."* ]]
	[[ "$output" == *"rxen0 on eth0 was created and is ACTIVE"* ]]
	[ "$(rdma_links)" = '[{"name":"rxen0","netdev":"eth0","state":"ACTIVE","physical_state":"LINK_UP"}]' ]
	# already declared: --now keeps the declared name and the device
	run -0 "$RXECTL" enable eth0 --now
	[[ "$output" == *"rxen0 on eth0 already existed"* ]]
	run -0 "$RXECTL" disable eth0 --now
	[[ "$output" == *"eth0 is no longer declared"* ]]
	[ "$(rdma_links)" = '[]' ]
	! grep -q eth0 "$RXECTL_CONFIG"
}
