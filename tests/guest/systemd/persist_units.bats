#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Persistence in the systemd guest: rxe@.service, rxe.target, the udev rule and `rxectl monitor`
# keep the device of a declared netdev alive across boot, netdev re-creation, renames and address
# changes; unmanaged netdevs are never touched; `disable --now` undoes it all; two concurrent
# `rxectl up` make one device.  The tests build on each other in order (one boot for the file).
#   tests/run-all tests/guest/systemd/persist_units.bats

bats_require_minimum_version 1.5.0

load persist_lib

elapsed() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.3f", a - b }'; }

@test "enable declares the netdev and enables rxe@, rxe.target and the monitor" {
	run -0 "$RXECTL" enable rxd0
	[[ "$output" == *"rxd0 is now declared in $CONF."* ]]
	[[ "$output" == *"rxe@rxd0.service is enabled"* ]]
	grep -qx '\[rxd0\]' "$CONF"
	grep -q '^# rxe.conf for the persistence tests' "$CONF"
	[ "$(systemctl is-enabled rxe@rxd0.service)" = enabled ]
	[ "$(systemctl is-enabled rxe-monitor.service)" = enabled ]
	[ "$(systemctl is-enabled rxe.target)" = enabled ]
}

@test "the udev rule marks a declared netdev as managed and leaves others alone" {
	run -0 "$RXECTL" udev-env rxd0
	[ "${lines[0]}" = RXE_MANAGED=1 ]
	[ "${lines[1]}" = RXE_NAME=rxe_rxd0 ]
	[ "${lines[2]}" = RXE_UNIT=rxe@rxd0.service ]
	run -0 "$RXECTL" udev-env rxu0
	[ -z "$output" ]
}

@test "boot: a declared netdev that appears while rxe.target starts is ACTIVE once the target is reached" {
	# What boot does: rxe.target is started and waits for rxe@rxd0.service, which waits for
	# the netdev; the netdev appears a little later.
	systemctl start --no-block rxe.target
	sleep 2
	[ "$(systemctl is-active rxe.target)" != active ]
	t0=$(now)
	make_dummy rxd0 198.51.100.1
	while [ "$(systemctl is-active rxe.target)" != active ]; do
		[ "$(secs_since "$t0")" -lt 90 ] || { systemctl status rxe@rxd0 rxe.target; false; }
		sleep 0.05
	done
	t_target=$(elapsed "$t0")
	[ "$(devs_on rxd0)" = rxe_rxd0:ACTIVE ]
	echo "# boot: netdev appeared -> rxe.target reached with rxe_rxd0 ACTIVE in ${t_target} s" >&3
	[ "$(systemctl is-active rxe@rxd0.service)" = active ]
	[ "$(systemctl is-active rxe-monitor.service)" = active ]
	[ -z "$(failed_units)" ]
}

# 8 by default (persist_churn.bats deletes the netdev at every moment of the unit's work 40
# times); RXE_RECREATIONS=N for a longer run.
N_RECREATE=${RXE_RECREATIONS:-8}

@test "deleting and re-creating the netdev $N_RECREATE times brings the device back each time, never two" {
	local max=0 sum=0
	for i in $(seq 1 "$N_RECREATE"); do
		ip link del rxd0
		# the kernel unregisters the old device asynchronously; wait until it is gone
		t0=$(now)
		while rdma link show | grep -q 'rxe_rxd0'; do
			[ "$(secs_since "$t0")" -lt "$BOUND" ] || { echo "old device stays"; false; }
			sleep 0.05
		done
		t0=$(now)
		make_dummy rxd0 198.51.100.1
		wait_active rxd0 "$BOUND"
		t=$(elapsed "$t0")
		if [ "$i" = "$N_RECREATE" ]; then	# where the time goes, for the log
			echo "# last re-creation took $t s; its journal:" >&3
			journalctl -o short-monotonic --no-pager --since "@${t0%.*}" \
				-u rxe-monitor.service -u rxe@rxd0.service -u 'sys-subsystem-net-devices-rxd0.device' \
				| sed 's/^/#   /' >&3
		fi
		sum=$(awk -v a="$sum" -v b="$t" 'BEGIN { print a + b }')
		max=$(awk -v a="$max" -v b="$t" 'BEGIN { print (b > a ? b : a) }')
		[ "$(count_on rxd0)" = 1 ]
	done
	echo "# $N_RECREATE re-creations: average $(awk -v a="$sum" -v n="$N_RECREATE" 'BEGIN { printf "%.3f", a / n }') s, slowest $max s to ACTIVE" >&3
	sleep 3	# let the last unit jobs finish before looking for failures
	[ "$(count_on rxd0)" = 1 ]
	run failed_units
	[ -z "$output" ]
	[ "$(systemctl is-active rxe@rxd0.service)" = active ]
}

@test "five re-creations in quick succession end with one ACTIVE device and no failed unit" {
	for i in 1 2 3 4 5; do
		ip link del rxd0
		make_dummy rxd0 198.51.100.1
		sleep 0.3
	done
	t0=$(now)
	wait_active rxd0 "$BOUND"
	echo "# after 5 quick re-creations: ACTIVE in $(elapsed "$t0") s after the last" >&3
	sleep 5	# the units and the monitor settle; the device must stay
	[ "$(devs_on rxd0)" = rxe_rxd0:ACTIVE ]
	run failed_units
	[ -z "$output" ]
}

# The RDMA device index of the device on netdev $1 ("" if none).
dev_index_on() {
	rdma -j dev show 2>/dev/null | jq -r --arg d "$(devs_on "$1" | head -n1 | cut -d: -f1)" \
		'.[] | select(.ifname == $d) | .ifindex'
}

@test "the old unit's stop, running after the netdev was re-created, leaves the new netdev's device alone" {
	# What the churn test found: the netdev goes, its unit's stop starts, the netdev comes back
	# and the monitor creates its device, and only then the old stop's `rxectl down` runs.  A
	# drop-in holds that stop until the test says go, so the order is certain.
	local dropin=/run/systemd/system/rxe@rxd0.service.d go=/run/rxectl-test-stop-go
	rm -f "$go"
	mkdir -p "$dropin"
	printf '[Service]\nExecStop=\nExecStop=/bin/sh -c %s\nExecStop=%s down %%I\n' \
		"'i=0; until [ -e $go ] || [ \$\$i -ge 600 ]; do sleep 0.1; i=\$\$((i+1)); done'" "$RXECTL" \
		> "$dropin/slow-stop.conf"
	systemctl daemon-reload
	wait_active rxd0 "$BOUND"
	[ "$(systemctl is-active rxe@rxd0.service)" = active ]
	t_start=$(date +%s)
	ip link del rxd0
	t0=$(now)
	until [ "$(systemctl is-active rxe@rxd0.service)" = deactivating ]; do
		[ "$(secs_since "$t0")" -lt 10 ] || { systemctl status rxe@rxd0; false; }
		sleep 0.05
	done
	make_dummy rxd0 198.51.100.1
	wait_active rxd0 "$BOUND"	# the monitor's, while the old stop sleeps
	idx=$(dev_index_on rxd0)
	[ "$(systemctl is-active rxe@rxd0.service)" = deactivating ]
	touch "$go"
	t0=$(now)
	while [ "$(systemctl is-active rxe@rxd0.service)" = deactivating ]; do
		[ "$(secs_since "$t0")" -lt "$BOUND" ] || { systemctl status rxe@rxd0; false; }
		sleep 0.05
	done
	sleep 2	# a start that may follow the stop
	rm -r "$dropin" "$go"
	systemctl daemon-reload
	journalctl -o cat --no-pager --since "@$t_start" -u rxe@rxd0.service | grep -q 'leaving it' ||
		{ journalctl -o short-monotonic --no-pager --since "@$t_start" -u rxe@rxd0.service \
			-u rxe-monitor.service; false; }
	# the same device (not one deleted and made again) is still there, ACTIVE, and alone
	[ "$(dev_index_on rxd0)" = "$idx" ]
	wait_active rxd0 "$BOUND"
	[ -z "$(failed_units)" ]
}

@test "renaming the netdev away and back keeps one device, ACTIVE again" {
	ip link set rxd0 down
	ip link set rxd0 name rxdtmp
	sleep 2
	[ "$(count_on rxdtmp)" -le 1 ]
	ip link set rxdtmp name rxd0
	t0=$(now)
	ip link set rxd0 up
	wait_active rxd0 "$BOUND"
	echo "# rename away and back: ACTIVE again in $(elapsed "$t0") s" >&3
	[ "$(count_on rxd0)" = 1 ]
	[ "$(count_on rxdtmp)" = 0 ]
	sleep 2
	[ "$(systemctl is-active rxe@rxd0.service)" = active ]	# udev "move" started it again
	run failed_units
	[ -z "$output" ]
}

@test "the RoCE v2 GID comes back after the address is removed and re-added, and the monitor logs it" {
	local since
	since=$(date '+%Y-%m-%d %H:%M:%S')
	ip addr del 198.51.100.1/24 dev rxd0
	sleep 3
	run -0 "$RXECTL" status --json
	! echo "$output" | jq -e '.. | objects | select(.ip? == "198.51.100.1")' >/dev/null
	t0=$(now)
	ip addr add 198.51.100.1/24 dev rxd0
	until "$RXECTL" status --json | jq -e '.. | objects | select(.ip? == "198.51.100.1" and .type? == "RoCE v2")' >/dev/null; do
		[ "$(secs_since "$t0")" -lt "$BOUND" ] || false
		sleep 0.1
	done
	echo "# address re-added: RoCE v2 GID back in $(elapsed "$t0") s" >&3
	sleep 3
	run -0 journalctl -u rxe-monitor.service --since "$since" -o cat --no-pager
	echo "$output"
	[[ "$output" == *"rxe_rxd0 on rxd0 lost RoCE v2 GID index "*" (198.51.100.1): the address is no longer on rxd0."* ]]
	[[ "$output" == *"rxe_rxd0 on rxd0 has RoCE v2 GID index "*" for 198.51.100.1."* ]]
	[[ "$output" == *"rxe_rxd0 on rxd0 is ready: applications should use GID index "*" (RoCE v2, 198.51.100.1)."* ]]
}

@test "an unmanaged netdev never gets a device" {
	make_dummy rxu0 198.51.100.9
	sleep 5
	[ "$(count_on rxu0)" = 0 ]
	ip link del rxu0
	make_dummy rxu0 198.51.100.9
	sleep 5
	[ "$(count_on rxu0)" = 0 ]
	! systemctl list-units --all --no-legend --plain 'rxe@rxu0*' | grep -q .
	ip link del rxu0
}

@test "two rxectl up at once for one netdev make one device" {
	make_dummy rxc0 198.51.100.17
	for i in 1 2 3 4 5; do
		"$RXECTL" up rxc0 --name rxe_c_a > "$BATS_TEST_TMPDIR/a" 2>&1 & a=$!
		"$RXECTL" up rxc0 --name rxe_c_b > "$BATS_TEST_TMPDIR/b" 2>&1 & b=$!
		wait $a; ra=$?
		wait $b; rb=$?
		cat "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
		[ "$ra" = 0 ] && [ "$rb" = 0 ]
		[ "$(count_on rxc0)" = 1 ]
		"$RXECTL" down rxc0 >/dev/null
	done
	ip link del rxc0
}

@test "disable --now removes the device, the declaration and the unit" {
	run -0 "$RXECTL" disable rxd0 --now
	echo "$output"
	[[ "$output" == *"rxd0 is no longer declared in $CONF."* ]]
	[ "$(count_on rxd0)" = 0 ]
	! grep -q '\[rxd0\]' "$CONF"
	grep -q '^# rxe.conf for the persistence tests' "$CONF"
	[ "$(systemctl is-enabled rxe@rxd0.service)" = disabled ]
	[ "$(systemctl is-active rxe@rxd0.service)" = inactive ]
	# and it stays unmanaged when the netdev comes back
	ip link del rxd0
	make_dummy rxd0 198.51.100.1
	sleep 5
	[ "$(count_on rxd0)" = 0 ]
	run failed_units
	[ -z "$output" ]
}

@test "enable --now on a netdev that exists starts the unit, which creates the device" {
	run -0 "$RXECTL" enable rxd0 --now
	echo "$output"
	[[ "$output" == *"rxe@rxd0.service is started."* ]]
	[ "$(systemctl is-active rxe@rxd0.service)" = active ]
	[ "$(devs_on rxd0)" = rxe_rxd0:ACTIVE ]
}

@test "enable --now on a netdev that does not exist yet says so and exits 0" {
	run -0 "$RXECTL" enable rxn0 --now
	[[ "$output" == *"rxn0 does not exist yet; its rxe device is created when it appears."* ]]
	make_dummy rxn0 198.51.100.65
	wait_active rxn0 "$BOUND"
	run -0 "$RXECTL" disable rxn0 --now
	[ "$(count_on rxn0)" = 0 ]
	ip link del rxn0
}
