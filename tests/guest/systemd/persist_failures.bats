#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxe@.service in the systemd guest (issues 14 and 16): real failures (module missing, kernel
# refusal, malformed rxe.conf) fail the unit with their message in the journal; the netdev
# going away while the start runs is a clean stop; the sandboxed units work and score below 3
# in systemd-analyze security.  NIC churn is in persist_churn.bats.
#   tests/run-all tests/guest/systemd/persist_failures.bats
#   RXE_CHURN_ROUNDS=1000 tests/vm/vm-run --systemd --env RXE_CHURN_ROUNDS -- bats tests/guest/systemd/persist_failures.bats

bats_require_minimum_version 1.5.0

load persist_lib

# A drop-in for one instance, in /run (gone at reboot); $1 unit, stdin the [Service] lines.
dropin() {
	mkdir -p "/run/systemd/system/$1.d"
	{ echo '[Service]'; cat; } > "/run/systemd/system/$1.d/50-test.conf"
	systemctl daemon-reload
}
undrop() { rm -rf "/run/systemd/system/$1.d"; systemctl daemon-reload; systemctl reset-failed "$1" || true; }

# The journal lines of unit $1 since the test began, message only.
unit_journal() { journalctl -u "$1" --since "@$(cat "$BATS_FILE_TMPDIR/t0")" -o cat --no-pager; }

@test "a real failure still fails the unit: rdma_rxe cannot be loaded" {
	make_dummy rxf0 198.51.100.33
	"$RXECTL" down --all >/dev/null
	! grep -q '^rdma_rxe ' /proc/modules || rmmod rdma_rxe
	modprobe ib_uverbs
	# as if the module were not installed: the unit cannot see /lib/modules
	dropin rxe@rxf0.service <<<'InaccessiblePaths=/lib/modules'
	run systemctl start rxe@rxf0.service
	[ "$status" -ne 0 ]
	[ "$(systemctl is-active rxe@rxf0.service)" = failed ]
	run unit_journal rxe@rxf0.service
	echo "$output"
	[[ "$output" == *"rxectl: rdma_rxe is not available for kernel $(uname -r);"* ]]
	[[ "$output" == *"status=1/FAILURE"* ]]
}

@test "a real failure still fails the unit: the kernel refuses (no CAP_NET_ADMIN)" {
	# (an empty CapabilityBoundingSet= first: the lines of a unit and its drop-ins are merged)
	dropin rxe@rxf0.service <<<$'CapabilityBoundingSet=\nCapabilityBoundingSet=CAP_SYS_MODULE'
	[ "$(systemctl show -P CapabilityBoundingSet rxe@rxf0.service)" = cap_sys_module ]
	[ "$(systemctl is-active rxe@rxf0.service)" != active ]
	run systemctl start rxe@rxf0.service
	[ "$status" -ne 0 ]
	[ "$(systemctl is-active rxe@rxf0.service)" = failed ]
	run unit_journal rxe@rxf0.service
	echo "$output"
	[[ "$output" == *"rxectl: creating rxe_rxf0 on rxf0 needs the CAP_NET_ADMIN capability;"* ]]
	[ "$(count_on rxf0)" = 0 ]
}

@test "a real failure still fails the unit: a malformed rxe.conf" {
	[ "$(systemctl is-active rxe@rxf0.service)" != active ]
	printf '[rxf0]\nspeed = 9000\n' > "$CONF"
	run systemctl start rxe@rxf0.service
	[ "$status" -ne 0 ]
	[ "$(systemctl is-active rxe@rxf0.service)" = failed ]
	run unit_journal rxe@rxf0.service
	echo "$output"
	[[ "$output" == *"rxectl: $CONF:2: unknown key 'speed' in [rxf0]"* ]]
	[[ "$output" == *"status=2/INVALIDARGUMENT"* ]]
}

teardown() {
	# whatever a failure test left: a valid rxe.conf, no failed rxe@rxf0
	if [[ "$BATS_TEST_DESCRIPTION" == "a real failure"* ]]; then
		grep -q speed "$CONF" && printf '# rxe.conf for the persistence tests\n' > "$CONF"
		systemctl stop rxe@rxf0.service 2>/dev/null
		systemctl reset-failed rxe@rxf0.service 2>/dev/null
		rm -rf /run/systemd/system/rxe@rxf0.service.d
		systemctl daemon-reload
	fi
	true
}

@test "the sandboxed unit creates the device, and deletes it when stopped" {
	ip link del rxf0
	make_veth rxg0 198.51.100.41
	systemctl start rxe@rxg0.service
	wait_active rxg0 "$BOUND"
	[ "$(systemctl is-active rxe@rxg0.service)" = active ]
	systemctl stop rxe@rxg0.service
	[ "$(count_on rxg0)" = 0 ]
	systemctl start rxe@rxg0.service
	wait_active rxg0 "$BOUND"
	# the netdev going away stops the unit (BindsTo=): inactive, not failed
	ip link del rxg0
	settle
	[ "$(systemctl is-active rxe@rxg0.service)" = inactive ]
	[ -z "$(failed_units)" ]
}

@test "a device the sandboxed unit created carries RDMA CM off the host: no IP filter on the kernel's sockets the unit's process makes" {
	# The kernel's rdma_rxe (6.1) gives each QP, the CM's QP1 too, a UDP socket made by whoever
	# creates it: QP1's is made by `rdma link add`, i.e. by rxe@.service's process, and inherits
	# that unit's cgroup. IPAddressDeny=any on the unit (as once shipped) dropped every packet of
	# those sockets: send_err grew by millions, the CM's request never left, and an `rxectl ping`
	# that gave up hung in the kernel (cm_destroy_id) for good. Loopback never shows it: rxe
	# delivers to its own addresses without the IP stack, so the packet goes to a neighbour.
	make_veth rxg0 198.51.100.41
	systemctl start rxe@rxg0.service
	wait_active rxg0 "$BOUND"
	local dev pid c s0 s1 e
	dev=$(devs_on rxg0 | cut -d: -f1)
	c=/sys/class/infiniband/$dev/ports/1/hw_counters
	ip neigh replace 198.51.100.99 lladdr 02:00:00:00:00:99 dev rxg0 nud permanent
	s0=$(cat "$c/sent_pkts")
	"$RXECTL" ping 198.51.100.99 --timeout 3 > "$BATS_FILE_TMPDIR/ping.out" 2>&1 &
	pid=$!
	sleep 6
	s1=$(cat "$c/sent_pkts") e=$(cat "$c/send_err")
	echo "# $dev (created by the unit): sent_pkts $s0 -> $s1, send_err $e" >&3
	[ "$e" = 0 ]
	[ "$s1" -gt "$s0" ]	# the CM's request left through the unit-made QP1 socket
	# nobody answers 198.51.100.99: ping gives up and exits, it does not hang destroying its CM id
	for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	! kill -0 "$pid" 2>/dev/null
	run -1 wait "$pid"
	cat "$BATS_FILE_TMPDIR/ping.out"
	systemctl stop rxe@rxg0.service
	ip link del rxg0
	settle
}

@test "the netdev going away while the unit's start still runs stops it cleanly (SIGTERM), inactive, not failed" {
	make_veth rxg0 198.51.100.41
	# a start that takes long, to delete the netdev in the middle of it for sure
	dropin rxe@rxg0.service <<<$'ExecStart=\nExecStart=/bin/sleep 60'
	systemctl start --no-block rxe@rxg0.service
	for _ in $(seq 100); do [ "$(systemctl is-active rxe@rxg0.service)" = activating ] && break; sleep 0.1; done
	[ "$(systemctl is-active rxe@rxg0.service)" = activating ]
	ip link del rxg0
	settle
	run systemctl is-active rxe@rxg0.service
	[ "$output" = inactive ]
	run unit_journal rxe@rxg0.service
	echo "$output"
	! [[ "$output" == *"Failed with result"* ]]
	undrop rxe@rxg0.service
}

@test "the monitor does not wait for a held creation lock: its watchdog is answered, and it creates the device once the lock is free" {
	# only the monitor acts on rxl0 (its rxe@ unit is masked), while another rxectl holds the lock
	systemctl mask --runtime rxe@rxl0.service
	printf '[rxl0]\n' > "$CONF"
	systemctl restart rxe-monitor.service
	pid=$(systemctl show -P MainPID rxe-monitor.service)
	flock /run/rxectl.lock sleep 45 &
	holder=$!
	sleep 1
	make_dummy rxl0 198.51.100.49
	sleep 40	# longer than WatchdogSec=30s
	[ "$(count_on rxl0)" = 0 ]
	[ "$(systemctl show -P MainPID rxe-monitor.service)" = "$pid" ]
	[ "$(systemctl show -P NRestarts rxe-monitor.service)" = 0 ]
	wait "$holder"
	wait_active rxl0 "$BOUND"
	[ "$(systemctl show -P MainPID rxe-monitor.service)" = "$pid" ]
	ip link del rxl0
	systemctl unmask --runtime rxe@rxl0.service
	printf '# rxe.conf for the persistence tests\n' > "$CONF"
}

@test "the sandboxed units score better than 3 in systemd-analyze security" {
	local m u
	m=$(systemd-analyze security --no-pager rxe-monitor.service | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
	u=$(systemd-analyze security --no-pager rxe@rxg0.service | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
	echo "# systemd-analyze security: rxe-monitor.service $m, rxe@rxg0.service $u" >&3
	awk -v a="$m" -v b="$u" 'BEGIN { exit !(a < 3 && b < 3) }'
}
