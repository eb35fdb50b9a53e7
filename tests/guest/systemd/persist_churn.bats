#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# NIC churn in the systemd guest (issue 16): a declared netdev deleted and re-created ROUNDS
# times, at every moment of rxe@.service's and the monitor's work, leaves one device per present
# declared netdev, none for absent ones, no failed unit and no error in their journals; then 20
# concurrent `rxectl up` with the unit and the monitor acting make one device.  The real
# failures, the sandbox and the SIGTERM stop are in persist_failures.bats.
#   tests/run-all tests/guest/systemd/persist_churn.bats
#   RXE_CHURN_ROUNDS=1000 tests/vm/vm-run --systemd --env RXE_CHURN_ROUNDS -- \
#	bats tests/guest/systemd/persist_churn.bats

bats_require_minimum_version 1.5.0
load persist_lib

# 25 rounds (5 of each netdev lifetime below) in make check: 40 took 290-370 s of guest time in
# CI's runs, 100 took 471 s; the deep runs use RXE_CHURN_ROUNDS as above.
ROUNDS=${RXE_CHURN_ROUNDS:-25}

@test "churn: a declared netdev deleted at every moment of the unit's work, ROUNDS times, never leaves a failed unit" {
	# The race this test found (an old netdev's unit stop deleting the device the monitor had
	# just given the re-created netdev) is fixed by unit_state.c; persist_units.bats forces it.
	"$RXECTL" enable rxk0 >/dev/null
	"$RXECTL" enable rxk1 >/dev/null
	systemctl start rxe-monitor.service
	local since=$(date +%s) created=0 dups=0 t0=$(now)
	# how long each netdev lives in a round, in turn: gone before `up` runs, during it, while
	# it waits, after the device is ACTIVE (then the unit's stop runs `down`)
	local lives=(0 0.05 0.2 0.6 active)
	for i in $(seq 1 "$ROUNDS"); do
		local life=${lives[$((i % ${#lives[@]}))]}
		local side=$((i % 5 == 1))	# every 5th round: the other netdevs churn too
		make_veth rxk0 198.51.100.1
		if [ "$side" = 1 ]; then
			make_dummy rxk1 198.51.100.2	# declared, gone at the end
			make_dummy rxz0 198.51.100.3	# undeclared: never gets a device
		fi
		if [ "$life" = active ]; then
			wait_active rxk0 "$BOUND"
			created=$((created + 1))
		else
			sleep "$life"
		fi
		[ "$(count_on rxk0)" -le 1 ] || dups=$((dups + 1))
		ip link del rxk0
		if [ "$side" = 1 ]; then
			ip link del rxk1
			# a rename of an undeclared netdev (the kernel renames only a netdev that is down)
			ip link set rxz0 down && ip link set rxz0 name rxz1 && ip link set rxz1 up
			ip link del rxz1
		fi
	done
	local took=$(secs_since "$t0")
	# the end state: rxk0 present, rxk1 absent
	make_veth rxk0 198.51.100.1
	settle
	wait_active rxk0 "$BOUND"
	sleep 3	# the monitor's recheck, and any late job
	settle
	echo "# $ROUNDS rounds in $took s: $created devices seen ACTIVE in 'active' rounds, $dups rounds with two devices" >&3
	[ "$dups" = 0 ]
	[ "$(devs_on rxk0)" = rxe_rxk0:ACTIVE ]
	[ "$(count_on rxk1)" = 0 ]
	[ "$(rdma -j link show | jq length)" = 1 ]
	run failed_units
	echo "failed: $output"
	[ -z "$output" ]
	run systemctl is-system-running
	echo "is-system-running: $output"
	[ "$output" != degraded ]
	[ "$(systemctl is-active rxe@rxk0.service)" = active ]
	[ "$(systemctl is-active rxe@rxk1.service)" = inactive ]
	[ "$(systemctl is-active rxe-monitor.service)" = active ]
	# the rxe@ and monitor journals: no error, no failure, for any of the races
	run journalctl --since "@$since" -u 'rxe@*' -u rxe-monitor.service -p err -o cat --no-pager
	echo "errors: $output"
	[ -z "$output" ]
	run journalctl --since "@$since" -u 'rxe@*' -u rxe-monitor.service -o cat --no-pager
	! echo "$output" | grep -E "Failed with result|status=1/FAILURE|status=2/|code=dumped"
	local gone_lines=$(echo "$output" | grep -c "went away\|does not exist" || true)
	echo "# journal: $(echo "$output" | grep -c .) lines of rxe@ and rxe-monitor for $ROUNDS rounds ($gone_lines netdev-gone lines)" >&3
}

@test "20 concurrent rxectl up on one declared netdev, while the unit and the monitor act, make one device" {
	"$RXECTL" enable rxk0 >/dev/null
	systemctl start rxe-monitor.service
	for r in 1 2 3; do
		! ip link show rxk0 >/dev/null 2>&1 || ip link del rxk0
		settle
		make_veth rxk0 198.51.100.1
		# udev starts rxe@rxk0.service and the monitor sees the new netdev, meanwhile:
		local pids=()
		for i in $(seq 1 20); do
			"$RXECTL" up rxk0 --wait 0 > "$BATS_TEST_TMPDIR/up$i" 2>&1 &
			pids+=($!)
		done
		local bad=0
		for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
		cat "$BATS_TEST_TMPDIR"/up*
		[ "$bad" = 0 ]
		[ "$(grep -l 'was created' "$BATS_TEST_TMPDIR"/up* | wc -l)" -le 1 ]
		wait_active rxk0 "$BOUND"
		settle
		sleep 2
		[ "$(devs_on rxk0)" = rxe_rxk0:ACTIVE ]
		[ -z "$(failed_units)" ]
		[ "$(systemctl is-active rxe@rxk0.service)" = active ]
	done
}

