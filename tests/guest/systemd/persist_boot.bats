#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A real boot: persist_boot.pre-boot installs rxectl's units, udev rule and an rxe.conf declaring
# rxb0 before systemd starts, and a unit creates the dummy netdev rxb0 during boot.  The device
# must be ACTIVE once rxe.target is reached.
#   tests/run-all tests/guest/systemd/persist_boot.bats

bats_require_minimum_version 1.5.0

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "not in the systemd test bed guest"
	[ -f /etc/systemd/system/rxe-test-netdev.service ] || skip "booted without persist_boot.pre-boot"
	# The test runs once basic.target is reached; the boot goes on around it.
	for _ in $(seq 1 1200); do
		[ "$(systemctl is-active rxe.target)" = active ] && break
		sleep 0.1
	done
}

mono_s() { # a unit's ActiveEnterTimestampMonotonic, in seconds
	awk -v u="$(systemctl show -P ActiveEnterTimestampMonotonic "$1")" 'BEGIN { printf "%.3f", u / 1e6 }'
}

@test "rxe.target is reached at boot" {
	run systemctl is-active rxe.target
	[ "$output" = active ] || { systemctl status rxe.target 'rxe@rxb0.service' rxe-test-netdev.service; false; }
}

@test "the device on the netdev that appeared during boot is ACTIVE once rxe.target is reached" {
	created=$(cat /run/rxb0-created)
	unit=$(mono_s rxe@rxb0.service)
	target=$(mono_s rxe.target)
	[ "$(rdma -j link show | jq -r '.[] | select(.netdev == "rxb0") | "\(.ifname):\(.state)"')" = rxe_rxb0:ACTIVE ]
	# rxe@rxb0.service is active once `rxectl up --wait 0` created the device
	[ "$(systemctl is-active rxe@rxb0.service)" = active ]
	awk -v u="$unit" -v t="$target" 'BEGIN { exit !(u <= t) }'
	echo "# boot: rxb0 appeared at ${created} s; rxe@rxb0 done (device ACTIVE) $(awk -v a="$unit" -v b="$created" 'BEGIN { printf "%.3f", a - b }') s later; rxe.target reached at ${target} s" >&3
	# where the time went: udev done with rxb0 (device unit active), then `rxectl up` ran
	dev=$(mono_s 'sys-subsystem-net-devices-rxb0.device')
	start=$(awk -v u="$(systemctl show -P InactiveExitTimestampMonotonic rxe@rxb0.service)" 'BEGIN { printf "%.3f", u / 1e6 }')
	echo "# boot: sys-subsystem-net-devices-rxb0.device active at ${dev} s, rxe@rxb0 started at ${start} s, done at ${unit} s" >&3
	echo "# boot: sysinit.target reached at $(mono_s sysinit.target) s, basic.target at $(mono_s basic.target) s" >&3
}

@test "the monitor runs and logged the device at boot" {
	[ "$(systemctl is-active rxe-monitor.service)" = active ]
	run -0 journalctl -b -u rxe-monitor.service -o cat --no-pager
	echo "$output"
	[[ "$output" == *"rxe_rxb0 on rxb0 is ready: applications should use GID index "* ]]
}

@test "the udev rule marked rxb0 as managed and wants its unit" {
	run -0 udevadm info -q property /sys/class/net/rxb0
	[[ "$output" == *"RXE_MANAGED=1"* ]]
	[[ "$output" == *"SYSTEMD_WANTS="*"rxe@rxb0.service"* ]]
}

@test "no unit failed during boot" {
	run systemctl list-units --failed --no-legend --plain
	echo "$output"
	[ -z "$output" ]
}
