#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxe.conf's `tune = yes` under the units: rxe@.service's unsandboxed ExecStartPre= hook
# (`rxectl tune %I --apply --from-config`) sets tune's values (not the MTU) while `up` stays
# sandboxed; `tune = no` leaves them alone; the `mtu =` that `tune --persist` writes is applied by
# a unit restart.  In order, one boot:  tests/run-all tests/guest/systemd/cli_tune_unit.bats

bats_require_minimum_version 1.5.0

load persist_lib

SYSCTLS="net.core.rmem_max net.core.wmem_max net.core.rmem_default net.core.wmem_default"

small_buffers() { for s in $SYSCTLS; do sysctl -qw "$s=212992"; done; }
buffers() { for s in $SYSCTLS; do sysctl -n "$s"; done | tr '\n' ' '; }
unit_log() { journalctl -b -o cat --no-pager -u rxe@eth0.service; }

teardown_file() {
	"$RXECTL" disable eth0 --now >/dev/null 2>&1 || true
	"$RXECTL" tune --revert >/dev/null 2>&1 || true
}

@test "tune = yes: enable --now sets tune's values through the unit's hook, not the MTU; --revert restores them" {
	small_buffers
	want=$("$RXECTL" tune eth0 --json | jq -r '[.tunables[] | select(.id | startswith("net.core.")) | .recommended] | join(" ")')
	[ "$want" = "16777216 16777216 1048576 1048576" ]
	printf '# tune test\n[global]\ntune = yes\n' > "$CONF"
	run -0 "$RXECTL" enable eth0 --now
	wait_active eth0 "$BOUND"
	settle
	[ "$(buffers)" = "$want " ]
	[ "$(cat /sys/class/net/eth0/mtu)" = 1500 ]	# the MTU is `mtu =`'s, never tune = yes's
	unit_log > "$BATS_TEST_TMPDIR/log"
	grep -q "tuning eth0, as $CONF says tune = yes" "$BATS_TEST_TMPDIR/log"
	grep -q "changed net.core.rmem_max (/proc/sys/net/core/rmem_max): 212992 -> 16777216" "$BATS_TEST_TMPDIR/log"
	! grep -q 'read-only' "$BATS_TEST_TMPDIR/log"
	[ "$(systemctl is-active rxe@eth0.service)" = active ]
	[ -z "$(failed_units)" ]
	# `up` itself stays sandboxed: the hook is the only unsandboxed line
	[ "$(systemctl show -p ExecStartPre --value rxe@eth0.service | grep -c 'tune eth0 --apply --from-config')" = 1 ]
	[ "$(systemctl show -p ProtectKernelTunables --value rxe@eth0.service)" = yes ]
	run -0 "$RXECTL" tune --revert
	[[ "$output" == *"restored /proc/sys/net/core/rmem_max: 16777216 -> 212992"* ]]
	[ "$(buffers)" = "212992 212992 212992 212992 " ]
}

@test "tune = no: the unit's hook changes nothing" {
	printf '# tune test\n[global]\ntune = no\n\n[eth0]\n' > "$CONF"
	t0=$(date '+%Y-%m-%d %H:%M:%S')
	sleep 1
	systemctl restart rxe@eth0.service
	wait_active eth0 "$BOUND"
	[ "$(buffers)" = "212992 212992 212992 212992 " ]
	[ ! -e /run/rxectl/tune.state ]
	journalctl -o cat --no-pager --since "$t0" -u rxe@eth0.service > "$BATS_TEST_TMPDIR/log"
	grep -q "$CONF does not say tune = yes: nothing changed." "$BATS_TEST_TMPDIR/log"
	! grep -q 'changed ' "$BATS_TEST_TMPDIR/log"
	[ -z "$(failed_units)" ]
}

@test "tune --persist writes mtu = under [eth0], and a unit restart (as at boot) applies it" {
	printf '# tune test: keep me\n[global]\ntune = no\n\n[eth0]   # the wire\n' > "$CONF"
	run -0 "$RXECTL" tune eth0 --apply --persist
	[ "$(cat "$CONF")" = "$(printf '# tune test: keep me\n[global]\ntune = no\n\n[eth0]   # the wire\nmtu = 9000')" ]
	ip link set eth0 mtu 1500	# what a reboot gives
	systemctl restart rxe@eth0.service
	wait_active eth0 "$BOUND"
	[ "$(cat /sys/class/net/eth0/mtu)" = 9000 ]
	[ "$("$RXECTL" status --json | jq '.devices[] | select(.netdev == "eth0") | .active_mtu')" = 4096 ]
	run -0 "$RXECTL" tune --revert
	[ "$(cat "$CONF")" = "$(printf '# tune test: keep me\n[global]\ntune = no\n\n[eth0]   # the wire')" ]
	[ "$(cat /sys/class/net/eth0/mtu)" = 1500 ]
}
