#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The Debian packages (make deb; tests/run-all builds them first) through their life in a systemd
# guest: install a previous version of rxectl + rxe-dkms (DKMS builds the module for the guest's
# kernel) -> `rxectl enable NIC --now` -> ACTIVE on the bundled driver -> the boot path again ->
# upgrade keeps the rxe.conf edits, every declared device (same RDMA device index), its rxe@ unit
# (never stopped) and an RDMA consumer ordered after it (still sending) -> debian/tests
# (autopkgtest) -> `apt remove` (modprobe finds the kernel's own rdma_rxe again) -> `apt purge`
# leaves no file behind.
# The guest's kernel is made to look like Debian's cloud kernel first (its own rdma_rxe.ko set
# aside, as tests/guest/cli_nostock.bats does), so the device runs on the module DKMS built: on a
# kernel that ships rdma_rxe, `rxectl up` prefers the kernel's own (README, "The bundled driver").
# This is the default row's DKMS test in `make check-install` (tests/run-all: kernels_dkms.bats,
# DKMS by hand, runs on the other kernel rows). The tests build on each other in order (one boot
# for the file; the DKMS build under TCG alone takes ~8 min).
#   make deb && tests/run-all tests/guest/systemd/pkg_lifecycle.bats

bats_require_minimum_version 1.5.0

load ../lib
load pkg_lib

CONF=/etc/rxe/rxe.conf
BOUND=60	# seconds: generous bound for a device to become ACTIVE (TCG is slow)
# What the snapshots compare: everything the packages or their scripts could write, minus the
# package manager's own bookkeeping and logs.
SNAP_DIRS=(/etc /usr/sbin /usr/src /usr/share/man /usr/share/doc /usr/lib/systemd /usr/lib/udev
	   /var/lib/dkms /var/lib/systemd)

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "not in the systemd test bed guest"
	setup_nic
	NEW_RXECTL=$(ls "$TOP"/build/deb/rxectl_*_amd64.deb 2>/dev/null | tail -n1)
	NEW_DKMS=$(ls "$TOP"/build/deb/rxe-dkms_*_all.deb 2>/dev/null | tail -n1)
	[ -n "$NEW_RXECTL" ] && [ -n "$NEW_DKMS" ] ||
		{ echo "no packages in $TOP/build/deb: run make deb" >&2; return 1; }
	! dpkg-query -W rxectl rxe-dkms >/dev/null 2>&1 ||
		{ echo "rxectl or rxe-dkms is already installed in the guest's root (the host's)" >&2; return 1; }
	# The bed binds the modules of the kernel package only; on a real machine
	# linux-headers-KVER makes this link (DKMS builds against it).
	local k; k=$(uname -r)
	[ -e "/lib/modules/$k/build" ] || ln -s "/usr/src/linux-headers-$k" "/lib/modules/$k/build"
	[ -f "/lib/modules/$k/build/Makefile" ] ||
		{ echo "no headers for $k in /usr/src: run scripts/setup-deps" >&2; return 1; }
	# The host the bed borrows its root from is a container image whose policy-rc.d forbids
	# every service action (exit 101), so deb-systemd-invoke in the maintainer scripts would do
	# nothing; a Debian machine has none. Removed from the guest's overlay only.
	rm -f /usr/sbin/policy-rc.d
	no_apt_lists
	snapshot > "$BATS_FILE_TMPDIR/before"
	hide_stock
	# "The previous version": the same packages with a lower version (VERSION~prev1), so the
	# upgrade runs the real maintainer scripts from one version to the next.
	local d=$BATS_FILE_TMPDIR
	for deb in "$NEW_RXECTL"; do
		rm -rf "$d/x"
		dpkg-deb -R "$deb" "$d/x"
		sed -i 's/^Version: \(.*\)$/Version: \1~prev1/' "$d/x/DEBIAN/control"
		dpkg-deb -Zgzip -b "$d/x" "$d/" >/dev/null
	done
	rm -rf "$d/x"
	OLD_RXECTL=$(ls "$d"/rxectl_*~prev1_amd64.deb)
	export NEW_RXECTL NEW_DKMS OLD_RXECTL
}

# Debian's cloud kernel has no rdma_rxe: make this one look like it (lib.bash's hide_stock_rxe),
# keeping the kernel's own module and modules.order aside so `apt remove` can show modprobe going
# back to it, and the purge snapshot can compare with the machine as it was.
hide_stock() {
	local m="/lib/modules/$(uname -r)"
	STOCK_KO=$(find "$m/kernel" -name 'rdma_rxe.ko*' | head -n1)
	[ -n "$STOCK_KO" ] || { echo "the guest's kernel has no rdma_rxe: not the default row" >&2; return 1; }
	cp -a "$STOCK_KO" "$m/modules.order" "$BATS_FILE_TMPDIR/"
	export STOCK_KO
	hide_stock_rxe
}

restore_stock() {
	local m="/lib/modules/$(uname -r)"
	cp -a "$BATS_FILE_TMPDIR/$(basename "$STOCK_KO")" "$STOCK_KO"
	cp -a "$BATS_FILE_TMPDIR/modules.order" "$m/"
	depmod
}

# Not the packages': systemd's own state, written while the guest runs (logind's linger directory,
# timers' stamps), and DKMS's module signing key, which dkms makes at its first build and keeps as
# long as dkms is installed (dkms stays: it is the host's package, not one of ours).
NOT_OURS='^. (/var/lib/systemd/(linger|timers|random-seed|coredump|catalog|backlight|rfkill|pstore)|/var/lib/dkms/mok\.(key|pub))(/|$)'

snapshot() { # every file, link and directory under SNAP_DIRS, with its type
	find "${SNAP_DIRS[@]}" "/lib/modules/$(uname -r)" -xdev -printf '%y %p\n' 2>/dev/null |
		grep -Ev "$NOT_OURS" | sort
}

apt_get() {
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=60 -y -q --no-install-recommends "$@"
}

devs_on() { # "name:state" of the rxe devices on netdev $1
	rdma -j link show 2>/dev/null | jq -r --arg n "$1" '.[] | select(.netdev == $n) | "\(.ifname):\(.state)"'
}

wait_active() { # netdev seconds
	for _ in $(seq $(($2 * 10))); do
		[[ "$(devs_on "$1")" == *:ACTIVE ]] && return 0
		sleep 0.1
	done
	echo "no ACTIVE device on $1 after $2 s: '$(devs_on "$1")'"
	return 1
}

@test "installing both packages makes DKMS build and install the module for the guest's kernel" {
	local t0=$SECONDS
	run -0 apt_get install "$OLD_RXECTL" "$NEW_DKMS"
	echo "# apt install rxectl + rxe-dkms (DKMS build under TCG): $((SECONDS - t0)) s" >&3
	run -0 dkms status rdma_rxe
	echo "$output"
	[[ "$output" == *"$(uname -r), x86_64: installed"* ]]
	[ -f "/lib/modules/$(uname -r)/updates/dkms/rdma_rxe.ko" ]
	# modprobe finds DKMS's module before the kernel's own rdma_rxe
	[[ "$(modinfo -F version rdma_rxe)" == rxectl-bundled* ]]
}

@test "installing enables and starts nothing, and creates no device" {
	for u in rxe-monitor.service rxe.target; do
		run systemctl is-enabled "$u"
		[ "$output" = disabled ] || { echo "$u is $output"; false; }
		run systemctl is-active "$u"
		[ "$output" = inactive ] || { echo "$u is $output"; false; }
	done
	[ -z "$(rdma -j link show | jq -r '.[].ifname')" ]
}

@test "rxectl enable NIC --now gives an ACTIVE device on the bundled driver" {
	run rxectl enable "$NIC" --now
	echo "$output"
	[ "$status" = 0 ] || { # what systemd did with the job, for the log
		systemctl status --no-pager "sys-subsystem-net-devices-$NIC.device" "rxe@$NIC.service" | tail -n 20
		journalctl -b -u "rxe@$NIC.service" -u rxe-monitor.service --no-pager | tail -n 20
		false
	}
	wait_active "$NIC" "$BOUND"
	[ "$(devs_on "$NIC")" = "rxe_$NIC:ACTIVE" ]
	[[ "$(cat /sys/module/rdma_rxe/version)" == rxectl-bundled* ]]
	[ "$(systemctl is-active rxe@$NIC.service)" = active ]
	[ "$(systemctl is-active rxe-monitor.service)" = active ]
	grep -qx "\\[$NIC\\]" "$CONF"
}

# The bed cannot boot the same disk state twice (its root is a tmpfs overlay and the guest powers
# off), so this replays a boot on the running guest: everything rxectl set up is torn down (units
# stopped, device deleted, module unloaded), then what a boot does runs again: udev's add event
# for the NIC and the start of rxe.target (which multi-user.target wants once enabled).
@test "after the boot path runs again (units stopped, module unloaded) the device comes back" {
	[ "$(systemctl is-enabled rxe.target)" = enabled ]
	systemctl stop rxe.target rxe-monitor.service 'rxe@*.service'
	[ -z "$(devs_on "$NIC")" ]
	rmmod rdma_rxe
	udevadm trigger --action=add --settle "/sys/class/net/$NIC"
	systemctl start rxe.target
	wait_active "$NIC" "$BOUND"
	[[ "$(cat /sys/module/rdma_rxe/version)" == rxectl-bundled* ]]
	[ "$(systemctl is-active rxe-monitor.service)" = active ]
}

# state_of NETDEV: one line of what must not change across an upgrade: the rxe device on NETDEV
# (name and RDMA device index: a device deleted and re-created gets a new index) and its rxe@
# unit's state and invocation (a unit stopped and started again gets a new InvocationID).
state_of() {
	local u="rxe@$1.service"
	printf '%s: %s index %s, %s %s (invocation %s)\n' "$1" \
		"$(rdma -j link show | jq -r --arg n "$1" '.[] | select(.netdev == $n) | .ifname')" \
		"$(rdma -j link show | jq -r --arg n "$1" '.[] | select(.netdev == $n) | .ifindex')" \
		"$u" "$(systemctl is-active "$u")" "$(systemctl show -P InvocationID "$u")"
}

# rdma_work NETDEV: work the rxe device on NETDEV has done so far: packets sent, plus messages
# the bundled driver placed directly between two of this host's QPs (its loopback path sends no
# packet), plus SENDs (either driver).
rdma_work() {
	rdma -j statistic show link "rxe_$1/1" |
		jq -r '.[0] | [.sent_pkts, .loopback_placed, .rdma_sends] | map(. // 0) | add'
}

# work_grows NETDEV SECONDS: the device's work count grows within SECONDS
work_grows() {
	local w0 _; w0=$(rdma_work "$1")
	for _ in $(seq $(($2 * 2))); do
		sleep 0.5
		[ "$(rdma_work "$1")" -gt "$w0" ] && return 0
	done
	echo "rxe_$1's work count stayed at $w0 for $2 s"
	return 1
}

# A second declared netdev (a veth pair, both ends up) beside the NIC, so "every declared device"
# is more than one; and a long-running RDMA consumer as a unit that Requires= and is ordered
# After= rxe@NIC.service, as x-systemd.requires= makes of an fstab mount: an upgrade that stops
# rxe@NIC (or rxe.target, of which it is PartOf) stops it too, one that deletes the device
# under it breaks its QPs. ibv_rc_pingpong, server and client on rxe_NIC, sends until stopped.
@test "a second declared netdev and an RDMA consumer ordered after rxe@NIC run before the upgrade" {
	ip link add rxv0 type veth peer name rxv1
	ip link set rxv1 up
	ip link set rxv0 up
	run -0 rxectl enable rxv0 --now
	wait_active rxv0 "$BOUND"
	wait_active "$NIC" "$BOUND"
	local g; g=$(gid_index "rxe_$NIC")
	run -0 systemd-run --unit=rxe-test-consumer -p "Requires=rxe@$NIC.service" -p "After=rxe@$NIC.service" \
		bash -c "ibv_rc_pingpong -d rxe_$NIC -g $g -s 4096 -n 1000000000 & sleep 2;
			 ibv_rc_pingpong -d rxe_$NIC -g $g -s 4096 -n 1000000000 127.0.0.1; wait"
	work_grows "$NIC" 60	# the client connects (TCP) and the ping-pong runs
	[ "$(systemctl is-active rxe-test-consumer.service)" = active ]
}

# The upgrade must leave every declared device alone: same device (same index), its rxe@ unit never
# stopped (same invocation), rxe.target active, the consumer still running and sending; only the
# monitor restarts, to run the new rxectl.
@test "upgrading to the new version keeps the edits to rxe.conf, every device, its unit and the consumer" {
	printf '# edited by the operator before the upgrade\n[%s]\nname = rxe_%s\n[rxv0]\n' "$NIC" "$NIC" > "$CONF"
	cp "$CONF" "$BATS_FILE_TMPDIR/conf.edited"
	local pid; pid=$(systemctl show -P MainPID rxe-monitor.service)
	local before after n
	before=$(for n in "$NIC" rxv0; do state_of "$n"; done
		 echo "rxe.target $(systemctl is-active rxe.target), consumer $(systemctl is-active rxe-test-consumer.service)")
	local t0=$SECONDS
	run -0 apt_get install "$NEW_RXECTL"
	echo "$output"
	echo "# apt upgrade of rxectl: $((SECONDS - t0)) s" >&3
	local grows=no
	work_grows "$NIC" 10 && grows=yes
	after=$(for n in "$NIC" rxv0; do state_of "$n"; done
		echo "rxe.target $(systemctl is-active rxe.target), consumer $(systemctl is-active rxe-test-consumer.service)")
	echo "$before" | sed 's/^/# before the upgrade: /' >&3
	echo "$after" | sed 's/^/# after the upgrade:  /' >&3
	journalctl --since "-$((SECONDS - t0 + 5))s" --no-pager -o cat -u rxe.target -u "rxe@*" -u rxe-monitor.service \
		-u rxe-test-consumer.service | sed 's/^/# journal: /' >&3 || true
	[ "$(dpkg-query -W -f '${Version}' rxectl)" = "$(dpkg-deb -f "$NEW_RXECTL" Version)" ]
	cmp "$CONF" "$BATS_FILE_TMPDIR/conf.edited"
	[ -z "$(ls /etc/rxe | grep -v '^rxe.conf$')" ]	# no rxe.conf.dpkg-new / .dpkg-old
	# every device, unit and the consumer as they were
	[ "$after" = "$before" ]
	[[ "$after" == *"rxe.target active, consumer active"* ]]
	[ "$(grep -c ' index [0-9][0-9]*, rxe@.* active (invocation [0-9a-f]\{32\})$' <<< "$after")" = 2 ]
	# the consumer's QPs still send
	[ "$grows" = yes ]
	# the monitor runs the new rxectl
	[ "$(systemctl is-active rxe-monitor.service)" = active ]
	[ "$(systemctl show -P MainPID rxe-monitor.service)" != "$pid" ]
	[[ "$(dkms status rdma_rxe)" == *"$(uname -r), x86_64: installed"* ]]
}

@test "the consumer stops cleanly; rxv0 is disabled and goes" {
	systemctl stop rxe-test-consumer.service 2>/dev/null || true	# gone already if it failed
	run -0 rxectl disable rxv0 --now
	ip link del rxv0
	[ -z "$(devs_on rxv0)" ]
	! grep -q rxv0 "$CONF"
	grep -qx "\\[$NIC\\]" "$CONF"
	cp "$CONF" "$BATS_FILE_TMPDIR/conf.edited"	# what apt remove must keep
}

# debian/tests (autopkgtest) on the installed packages, as autopkgtest runs them in a testbed: the
# smoke test, and a device on a veth (on the module DKMS built: the kernel's own is hidden). After
# the upgrade: the version installed is the one the rxectl binary reports (the previous version
# above is this package relabelled).
@test "the autopkgtest's smoke and device tests pass against the installed packages" {
	local t
	for t in smoke device; do
		AUTOPKGTEST_TMP=$(mktemp -d) run "$TOP/debian/tests/$t"
		echo "$output"
		[ "$status" = 0 ] || { echo "debian/tests/$t: exit $status"; false; }
	done
	[ ! -e /sys/class/infiniband/rxe_autopkgtest ]
	[ "$(devs_on "$NIC")" = "rxe_$NIC:ACTIVE" ]
}

@test "apt remove stops the units, deletes the device and the DKMS module, and keeps rxe.conf" {
	run -0 apt_get remove rxectl rxe-dkms
	echo "$output"
	[ -z "$(devs_on "$NIC")" ]
	for u in rxe@$NIC.service rxe-monitor.service rxe.target; do
		run systemctl is-active "$u"
		[ "$output" != active ] || { echo "$u is still active"; false; }
	done
	[ -z "$(dkms status rdma_rxe)" ]
	[ ! -e "/lib/modules/$(uname -r)/updates/dkms/rdma_rxe.ko" ]
	[ ! -e /usr/sbin/rxectl ]
	# on a kernel that has its own rdma_rxe, modprobe finds that one again
	restore_stock
	[ "$(modinfo -n rdma_rxe)" = "$STOCK_KO" ]
	[[ "$(modinfo -F version rdma_rxe)" != rxectl-bundled* ]]
	# the devices' configuration stays: rxe.conf with the edits, and the enabled instance
	cmp "$CONF" "$BATS_FILE_TMPDIR/conf.edited"
	[ -L "/etc/systemd/system/rxe.target.wants/rxe@$NIC.service" ]
}

@test "apt purge leaves no file behind" {
	run -0 apt_get purge rxectl rxe-dkms
	snapshot > "$BATS_FILE_TMPDIR/after"
	# The guest's root is an overlay on the host's: an entry that a package of the host gained
	# while this file ran is not a leftover (it belongs to that package; rxectl and rxe-dkms
	# are gone, so dpkg -S names no owner for theirs).
	run comm -13 "$BATS_FILE_TMPDIR/before" "$BATS_FILE_TMPDIR/after"
	local added=$output
	local left; left=$(while read -r _ p; do
		[ -z "$p" ] || dpkg -S "$p" >/dev/null 2>&1 || echo "$p"
	done <<< "$added")
	run comm -23 "$BATS_FILE_TMPDIR/before" "$BATS_FILE_TMPDIR/after"
	local gone=$output
	echo "left behind: ${left:-none}"
	echo "gone: ${gone:-none}"
	[ -z "$left" ] && [ -z "$gone" ]
	echo "# after purge: nothing left behind or lost in $(wc -l < "$BATS_FILE_TMPDIR/after") entries under ${SNAP_DIRS[*]} /lib/modules/$(uname -r)" >&3
}

@test "the kernel log has no WARNING, BUG, Oops, refcount or lockdep message" {
	run dmesg -k
	! grep -E 'WARNING|BUG|Oops|refcount|lockdep|circular locking|general protection' <<<"$output"
}
