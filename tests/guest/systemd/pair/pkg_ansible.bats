#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The Ansible role contrib/ansible/roles/rxectl on a pair of systemd guests, each running Debian's
# ansible-core on itself (ansible-playbook -c local) as a host of the sample inventory: guest a is
# node1 (listens for the pair ping), guest b node2 (pings node1). Two runs per guest, side by side:
#   a: the first run installs the rxectl package of `make deb`, picks the NIC by CIDR, declares it,
#      passes the doctor gate and starts the listener; after b's ping, `--tags teardown` disables
#      the NIC and removes the package.
#   b: the first run, with an nft rule dropping UDP 4791, installs and declares, then the doctor
#      gate fails the host naming firewall.udp4791 and its fix; without the rule, the second run
#      changes nothing (changed=0: the first did all the work before the gate) and its `rxectl
#      ping` to node1 over RDMA passes.
# Each test is one guest's (the other guest skips it); the guests meet at barriers. Every
# transcript line starts with the seconds since its run began, and each run's time per task goes
# to the TAP output (TCG is slow: an ansible-playbook run takes minutes).
#   make deb && tests/run-all tests/guest/systemd/pair/pkg_ansible.bats

bats_require_minimum_version 1.5.0

load ../../pair/pair_lib
load ../pkg_lib

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "not in the systemd test bed guest"
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	setup_nic
	command -v ansible-playbook >/dev/null ||
		{ echo "ansible-playbook is missing: run scripts/setup-deps (ansible-core)" >&2; return 1; }
	DEB=$(ls "$TOP"/build/deb/rxectl_*_amd64.deb 2>/dev/null | tail -n1)
	[ -n "$DEB" ] || { echo "no package in $TOP/build/deb: run make deb" >&2; return 1; }
	export DEB PB="$TOP/contrib/ansible/playbook.yml" INV="$BATS_FILE_TMPDIR/inventory.ini"
	export ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP="$BATS_FILE_TMPDIR/ansible" ANSIBLE_HOME="$BATS_FILE_TMPDIR/ansible"
	# TCG: pipelining saves each task the temporary files; the controller's 1 ms poll for results
	# would take the guest's one CPU from the task it waits for.
	export ANSIBLE_PIPELINING=1 ANSIBLE_INTERNAL_POLL_INTERVAL=0.05
	# The pair ping as the sample inventory has it: node1 (a) listens, node2 (b) pings node1. The
	# listener's window covers b's two runs.
	local ping="rxectl_ping_listen=true rxectl_ping_window=1200"
	# TCG on a loaded machine: node1's answer can take longer than rxectl ping's 10 s
	[ "$VM_ROLE" = b ] && ping="rxectl_ping_peer=$VM_PEER_IP rxectl_ping_timeout=30"
	cat > "$INV" <<I
[rxe]
guest ansible_connection=local ansible_python_interpreter=/usr/bin/python3 $ping
[rxe:vars]
rxectl_debs=["$DEB"]
rxectl_netdevs=[{"cidr": "192.0.2.0/24"}]
I
	no_apt_lists
}

teardown() {
	pair_teardown	# a failure here fails the other guest's barriers at once, not in 10 min
}

teardown_file() {
	nft delete table inet rxe_gate_test 2>/dev/null || true
}

playbook() { # args... : the transcript, each line prefixed with the seconds since the start
	local t0=$SECONDS line
	set -o pipefail
	ansible-playbook -i "$INV" "$PB" "$@" 2>&1 | while IFS= read -r line; do
		printf '%4d %s\n' $((SECONDS - t0)) "$line"
	done
}

# took OUTPUT: ansible-playbook's start and each task, "NAME N s" (from the transcript's seconds), for >&3
took() {
	awk '$2 == "PLAY" && $3 != "RECAP" { printf "start %d s; ", $1 }
		$2 == "TASK" { if (name != "") printf "%s %d s; ", name, $1 - t; t = $1; name = $0
		sub(/^ *[0-9]+ TASK \[(rxectl : )?/, "", name); sub(/\].*/, "", name) }
		$2 == "PLAY" && $3 == "RECAP" && name != "" { printf "%s %d s", name, $1 - t }' <<< "$1"
}

recap() { # the "changed=N" of the play recap
	sed -n 's/^ *[0-9]* guest *:.* changed=\([0-9]*\).*/\1/p' <<< "$1"
}

devs_on() {
	rdma -j link show 2>/dev/null | jq -r --arg n "$1" '.[] | select(.netdev == $n) | "\(.ifname):\(.state)"'
}

drop_roce() { # an nft rule dropping inbound UDP 4791 (RoCE v2)
	nft add table inet rxe_gate_test
	nft add chain inet rxe_gate_test input '{ type filter hook input priority 0; policy accept; }'
	nft add rule inet rxe_gate_test input udp dport 4791 drop
}

@test "guest a: the first run installs rxectl, picks the NIC by CIDR, declares it, passes the doctor gate and listens" {
	[ "$VM_ROLE" = a ] || skip "guest a's (node1's) first run"
	local t0=$SECONDS
	run playbook
	echo "$output"
	[ "$status" = 0 ]
	echo "# a: first run: $((SECONDS - t0)) s, changed=$(recap "$output"): $(took "$output")" >&3
	[ "$(recap "$output")" -gt 0 ]
	dpkg-query -W rxectl
	grep -qx "\\[$NIC\\]" /etc/rxe/rxe.conf
	[ "$(devs_on "$NIC")" = "rxe_$NIC:ACTIVE" ]
	[ "$(systemctl is-enabled rxe@$NIC.service)" = enabled ]
	# the listener runs on (async) after the run, for node2's ping
	grep -A1 "TASK \\[rxectl : Listen for rxectl ping for a while\\]" <<< "$output" | grep -q "ok: \\[guest\\]"
	pgrep -f "rxectl ping --listen"
}

@test "guest b: with UDP 4791 dropped, the first run installs and declares, then the doctor gate fails the host naming firewall.udp4791 and its fix" {
	[ "$VM_ROLE" = b ] || skip "guest b's (node2's) first run"
	drop_roce
	local t0=$SECONDS
	run playbook
	echo "$output"
	echo "# b: first run (UDP 4791 dropped): $((SECONDS - t0)) s, changed=$(recap "$output"): $(took "$output")" >&3
	[ "$status" != 0 ]
	grep -E "^ *[0-9]+ guest +:.* changed=[1-9][0-9]* .* failed=1 " <<< "$output"
	# the failure is the gate's: one line per failing check, with its id, what it found and the fix
	grep -A1 "TASK \\[rxectl : Fail the host on failing doctor checks" <<< "$output" | grep -q "fatal: \\[guest\\]: FAILED!"
	local msg
	msg=$(grep -o "rxectl doctor $NIC: \\[firewall\\.udp4791\\][^\"]*" <<< "$output")
	echo "# $msg" >&3
	[[ "$msg" == *"] nftables inet table rxe_gate_test, chain input, rule handle "* ]]
	[[ "$msg" == *"drops inbound UDP 4791"* ]]
	[[ "$msg" == *" fix: delete it with \`nft delete rule inet rxe_gate_test input handle "* ]]
	# the pair ping, after the gate, did not run
	! grep -q "rxectl ping $VM_PEER_IP:" <<< "$output"
	# the gate only reports: the package is installed, the NIC declared and its device up
	dpkg-query -W rxectl
	grep -qx "\\[$NIC\\]" /etc/rxe/rxe.conf
	[ "$(devs_on "$NIC")" = "rxe_$NIC:ACTIVE" ]
}

@test "guest b: without the rule, a second run changes nothing (changed=0) and its rxectl ping to node1 passes" {
	barrier configured
	[ "$VM_ROLE" = b ] || skip "guest b's (node2's) second run"
	nft delete table inet rxe_gate_test
	local t0=$SECONDS
	run playbook
	echo "$output"
	[ "$status" = 0 ]
	echo "# b: second run: $((SECONDS - t0)) s, changed=$(recap "$output"): $(took "$output")" >&3
	[ "$(recap "$output")" = 0 ]
	grep "rxectl ping $VM_PEER_IP: send, write and read passed at " <<< "$output" >&3
}

@test "guest a: --tags teardown disables the NIC (its device is deleted) and removes the package" {
	barrier pinged
	[ "$VM_ROLE" = a ] || skip "guest a's (node1's) teardown"
	local t0=$SECONDS
	run playbook --tags teardown
	echo "$output"
	[ "$status" = 0 ]
	echo "# a: teardown run: $((SECONDS - t0)) s, changed=$(recap "$output"): $(took "$output")" >&3
	[ "$(recap "$output")" -gt 0 ]
	# the listener the first run started (it kept the device open, so its deletion would wait) is gone
	grep -A1 "TASK \\[rxectl : Stop the pair ping listener this role started\\]" <<< "$output" | grep -q "changed: \\[guest\\]"
	! pgrep -f "rxectl ping --listen"
	[ -z "$(devs_on "$NIC")" ]
	run systemctl is-enabled "rxe@$NIC.service"
	[ "$output" != enabled ]
	# removed, not purged (rxectl_teardown_packages: remove): rxe.conf stays, without the NIC
	[ "$(dpkg-query -W -f '${Status}' rxectl)" = "deinstall ok config-files" ]
	[ ! -e /usr/sbin/rxectl ]
	! grep -qx "\\[$NIC\\]" /etc/rxe/rxe.conf
}
