#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The units and the files `make install` puts in /etc, read on the host: netdev churn is a success
# status of rxe@.service, both units are sandboxed (systemd-analyze security, offline), and the
# memlock limits and module loading are scoped or opt-in (issues 14 and 16); rxe.target orders the
# remote mounts after the devices, and the man page recommends x-systemd.after= (issue 40).
#   tests/run-all tests/host/units.bats

bats_require_minimum_version 1.5.0

TOP="$BATS_TEST_DIRNAME/../.."

setup_file() {
	export INST="$BATS_FILE_TMPDIR/root"
	make -C "$TOP" -s -o rxectl install DESTDIR="$INST" PREFIX=/usr SYSTEMDUNITDIR=/usr/lib/systemd/system \
		UDEVDIR=/usr/lib/udev WITH_SYSTEMDUNITS=yes >/dev/null
}

# The overall exposure systemd-analyze gives unit $1 (an instance name for the template).
exposure() {
	local dir="$BATS_TEST_TMPDIR/units"
	mkdir -p "$dir"
	cp "$INST/usr/lib/systemd/system/rxe-monitor.service" "$dir/"
	cp "$INST/usr/lib/systemd/system/rxe@.service" "$dir/rxe@eth0.service"
	(cd "$dir" && systemd-analyze security --offline=yes --no-pager "$1") |
		sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p'
}

@test "rxe@.service counts exit status 3 (netdev went away) and SIGTERM (stopped while starting) as success" {
	run -0 grep -x 'SuccessExitStatus=3 SIGTERM' "$INST/usr/lib/systemd/system/rxe@.service"
	# and nothing else: 1 and 2 (real failures) still fail the unit
	[ "$(grep -c '^SuccessExitStatus=' "$INST/usr/lib/systemd/system/rxe@.service")" = 1 ]
}

@test "rxe@.service is bound to and ordered after its netdev's device unit" {
	grep -qx 'BindsTo=sys-subsystem-net-devices-%i.device' "$INST/usr/lib/systemd/system/rxe@.service"
	grep -q '^After=sys-subsystem-net-devices-%i.device' "$INST/usr/lib/systemd/system/rxe@.service"
}

@test "rxe@.service is sandboxed: exposure below 3 (it was 9.5 unsandboxed)" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	e=$(exposure rxe@eth0.service)
	echo "# systemd-analyze security --offline: rxe@eth0.service $e" >&3
	[ -n "$e" ]
	awk -v e="$e" 'BEGIN { exit !(e < 3) }'
}

@test "rxe-monitor.service is sandboxed: exposure below 3 (it was 9.5 unsandboxed)" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	e=$(exposure rxe-monitor.service)
	echo "# systemd-analyze security --offline: rxe-monitor.service $e" >&3
	[ -n "$e" ]
	awk -v e="$e" 'BEGIN { exit !(e < 3) }'
}

@test "both units keep only CAP_NET_ADMIN and CAP_SYS_MODULE and only netlink and unix sockets" {
	for u in rxe@.service rxe-monitor.service; do
		grep -qx 'CapabilityBoundingSet=CAP_NET_ADMIN CAP_SYS_MODULE' "$INST/usr/lib/systemd/system/$u"
		grep -qx 'RestrictAddressFamilies=AF_NETLINK AF_UNIX' "$INST/usr/lib/systemd/system/$u"
		grep -qx 'ProtectSystem=strict' "$INST/usr/lib/systemd/system/$u"
		grep -qx 'NoNewPrivileges=yes' "$INST/usr/lib/systemd/system/$u"
	done
}

@test "install lifts the memlock limit for the group rdma only, not for every user" {
	f="$INST/etc/security/limits.d/50-rxe-memlock.conf"
	[ "$(grep -v '^#' "$f" | grep -c .)" = 2 ]
	grep -qP '^@rdma\tsoft\tmemlock\tunlimited$' "$f"
	grep -qP '^@rdma\thard\tmemlock\tunlimited$' "$f"
	! grep -q '^\*' "$f"
}

@test "install puts no drop-in for every service and loads no module at boot: both are opt-in files" {
	[ ! -e "$INST/etc/systemd/system/service.d" ]
	[ ! -e "$INST/etc/modules-load.d" ]
	grep -qx 'LimitMEMLOCK=infinity' "$INST/usr/share/rxectl/memlock.conf"
	grep -qx 'rdma_rxe' "$INST/usr/share/rxectl/modules-load.conf"
}

# rxectl memlock UNIT: the opt-in drop-in for one named service, printed, installed or removed.
RXECTL="$BATS_TEST_DIRNAME/../../rxectl"

@test "memlock UNIT prints the drop-in for that one service and where it goes, and changes nothing" {
	run -0 --separate-stderr "$RXECTL" memlock nginx
	[ "${lines[0]}" = "# /etc/systemd/system/nginx.service.d/50-rxe-memlock.conf" ]
	[[ "$output" == *$'\n[Service]\nLimitMEMLOCK=infinity' ]]
	run -0 "$RXECTL" --json memlock app@1.service
	[ "$(jq -r .path <<< "$output")" = /etc/systemd/system/app@1.service.d/50-rxe-memlock.conf ]
	[ "$(jq -r .dropin <<< "$output" | grep -c '^LimitMEMLOCK=infinity$')" = 1 ]
	[ "$(jq 'has("changed")' <<< "$output")" = false ]
}

@test "memlock refuses what is not one service's name (exit 2)" {
	run -2 "$RXECTL" memlock
	[[ "$output" == *"memlock takes exactly one UNIT"* ]]
	run -2 "$RXECTL" memlock a b
	run -2 "$RXECTL" memlock ../etc
	[[ "$output" == *"unit name '../etc' may only contain"* ]]
	run -2 "$RXECTL" memlock backup.timer
	[[ "$output" == *"is not a service"* ]]
	run -2 "$RXECTL" memlock -- -x
	run -2 "$RXECTL" memlock nginx --install --remove
	[[ "$output" == *"--remove undoes --install"* ]]
}

@test "memlock --install writes the drop-in for that service only, once; --remove takes it away and leaves the rest" {
	[ "$(id -u)" = 0 ] || skip "needs root for a private mount of /etc/systemd/system"
	[ -d /run/systemd/system ] && skip "systemd runs here: the guest test covers the reload"
	# a private, empty /etc/systemd/system: the host's is not touched
	run -0 unshare -m bash -c '
		set -e
		mount -t tmpfs rxtest /etc/systemd/system
		d=/etc/systemd/system/nginx.service.d
		"$0" memlock nginx --install
		[ "$(stat -c %a "$d/50-rxe-memlock.conf")" = 644 ]
		grep -qx "LimitMEMLOCK=infinity" "$d/50-rxe-memlock.conf"
		[ "$(ls /etc/systemd/system)" = nginx.service.d ]	# that service and no other
		"$0" memlock nginx.service --install
		touch "$d/override.conf"
		"$0" memlock nginx --remove
		[ "$(ls "$d")" = override.conf ]	# the admin'"'"'s own drop-in stays
		"$0" memlock nginx --remove
		rm "$d/override.conf"
		"$0" memlock other --install >/dev/null 2>&1
		"$0" memlock other --remove >/dev/null 2>&1
		[ ! -e /etc/systemd/system/other.service.d ]	# its empty directory goes too
	' "$RXECTL"
	[[ "$output" == *"nginx.service gets LimitMEMLOCK=infinity from /etc/systemd/system/nginx.service.d/50-rxe-memlock.conf; restart it"* ]]
	[[ "$output" == *"nginx.service already gets LimitMEMLOCK=infinity"* ]]
	[[ "$output" == *"nginx.service no longer gets rxectl's memlock drop-in"* ]]
	[[ "$output" == *"nginx.service had no rxectl memlock drop-in"* ]]
}

# Storage at boot (issue 40): remote mounts wait for the declared devices, ordered only.
@test "rxe.target is ordered before remote-fs-pre.target and pulls it in, without coupling mounts to it" {
	t="$INST/usr/lib/systemd/system/rxe.target"
	grep -qx 'Before=remote-fs-pre.target' "$t"
	grep -qx 'Wants=remote-fs-pre.target' "$t"
	# ordering only: no Requires=/BindsTo=/PartOf= that would stop or unmount anything with it,
	# and no ordering after remote-fs (a cycle with the mounts it is to precede)
	! grep -Eq '^(Requires|BindsTo|PartOf|Requisite)=' "$t"
	! grep -Eq '^After=.*remote-fs' "$t"
	! grep -q '^DefaultDependencies=no' "$t"
	# each rxe@ instance and the monitor come before rxe.target, so before the mounts
	grep -q '^Before=rxe.target' "$INST/usr/lib/systemd/system/rxe@.service"
	grep -q '^Before=rxe.target' "$INST/usr/lib/systemd/system/rxe-monitor.service"
}

@test "systemd-analyze verify finds nothing to say about the three units" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	local u="$INST/usr/lib/systemd/system"
	cp "$u/rxe@.service" "$u/rxe@eth0.service"
	mkdir -p "$INST/bin" && cp /bin/kill "$INST/bin/"	# ExecReload's, as on the machine
	run -0 systemd-analyze verify --root="$INST" --man=no "$u/rxe.target" "$u/rxe@eth0.service" \
		"$u/rxe-monitor.service"
	echo "$output"
	[ -z "$output" ]
}

@test "the man pages recommend x-systemd.after=rxe@NIC.service for mounts, not x-systemd.requires=" {
	m="$BATS_TEST_DIRNAME/../../man/rxe@.service.8"
	grep -q '^server:/ .*,x\\-systemd\.after=rxe@eth0\.service 0 0$' "$m"
	# requires= appears only where the page says why not to use it
	! grep -h 'x\\-systemd\.requires=rxe@' "$BATS_TEST_DIRNAME"/../../man/*
	grep -q 'Use \\fBx\\-systemd.after=\\fR, not \\fBx\\-systemd.requires=\\fR' "$m"
	grep -q 'remote\\-fs\\-pre.target' "$m"
}
