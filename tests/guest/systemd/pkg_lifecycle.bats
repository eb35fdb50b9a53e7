#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The Debian packages (make deb; tests/run-all builds them first) through their life in a systemd
# guest: install a previous version of rxectl + rxe-dkms (DKMS builds the module for the guest's
# kernel) -> `rxectl enable NIC --now` -> ACTIVE on the bundled driver -> the boot path again ->
# upgrade keeps the rxe.conf edits -> `apt remove` -> `apt purge` leaves no file behind.
# The tests build on each other in order (one boot for the file; DKMS under TCG takes minutes).
#   make deb && tests/run-all tests/guest/systemd/pkg_lifecycle.bats

bats_require_minimum_version 1.5.0

load ../lib

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
	# "The previous version": the same packages with a lower version (VERSION~prev1), so the
	# upgrade runs the real maintainer scripts from one version to the next.
	local d=$BATS_FILE_TMPDIR
	for deb in "$NEW_RXECTL" "$NEW_DKMS"; do
		rm -rf "$d/x"
		dpkg-deb -R "$deb" "$d/x"
		sed -i 's/^Version: \(.*\)$/Version: \1~prev1/' "$d/x/DEBIAN/control"
		dpkg-deb -Zgzip -b "$d/x" "$d/" >/dev/null
	done
	rm -rf "$d/x"
	OLD_RXECTL=$(ls "$d"/rxectl_*~prev1_amd64.deb) OLD_DKMS=$(ls "$d"/rxe-dkms_*~prev1_all.deb)
	export NEW_RXECTL NEW_DKMS OLD_RXECTL OLD_DKMS
	snapshot > "$BATS_FILE_TMPDIR/before"
}

# The bed's NIC: in systemd guests udev renames eth0 (e.g. to ens5) and the bed gives it no
# address, so find it (the netdev with a PCI device) and give it this guest's address.
setup_nic() {
	udevadm settle
	local d
	for d in /sys/class/net/*/device; do NIC=$(basename "$(dirname "$d")"); break; done
	[ -n "${NIC:-}" ] || { echo "the guest has no NIC" >&2; return 1; }
	ip link set "$NIC" up
	ip -4 addr show dev "$NIC" | grep -q "inet $VM_SELF_IP/" || ip addr add "$VM_SELF_IP/24" dev "$NIC"
	export NIC
}

snapshot() { # every file, link and directory under SNAP_DIRS, with its type
	find "${SNAP_DIRS[@]}" "/lib/modules/$(uname -r)" -xdev -printf '%y %p\n' 2>/dev/null | sort
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
	run -0 apt_get install "$OLD_RXECTL" "$OLD_DKMS"
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
	run -0 rxectl enable "$NIC" --now
	echo "$output"
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

@test "upgrading to the new version keeps the edits to rxe.conf and the device" {
	printf '# edited by the operator before the upgrade\n[%s]\nname = rxe_%s\n' "$NIC" "$NIC" > "$CONF"
	cp "$CONF" "$BATS_FILE_TMPDIR/conf.edited"
	local pid; pid=$(systemctl show -P MainPID rxe-monitor.service)
	local t0=$SECONDS
	run -0 apt_get install "$NEW_RXECTL" "$NEW_DKMS"
	echo "# apt upgrade (DKMS rebuild under TCG): $((SECONDS - t0)) s" >&3
	[ "$(dpkg-query -W -f '${Version}' rxectl)" = "$(dpkg-deb -f "$NEW_RXECTL" Version)" ]
	cmp "$CONF" "$BATS_FILE_TMPDIR/conf.edited"
	[ -z "$(ls /etc/rxe | grep -v '^rxe.conf$')" ]	# no rxe.conf.dpkg-new / .dpkg-old
	# the monitor runs the new rxectl
	[ "$(systemctl is-active rxe-monitor.service)" = active ]
	[ "$(systemctl show -P MainPID rxe-monitor.service)" != "$pid" ]
	wait_active "$NIC" "$BOUND"
	[[ "$(dkms status rdma_rxe)" == *"$(uname -r), x86_64: installed"* ]]
}

@test "apt remove stops the units, deletes the device and the DKMS module, and keeps rxe.conf" {
	run -0 apt_get remove rxectl rxe-dkms
	[ -z "$(devs_on "$NIC")" ]
	for u in rxe@$NIC.service rxe-monitor.service rxe.target; do
		run systemctl is-active "$u"
		[ "$output" != active ] || { echo "$u is still active"; false; }
	done
	[ -z "$(dkms status rdma_rxe)" ]
	[ ! -e "/lib/modules/$(uname -r)/updates/dkms/rdma_rxe.ko" ]
	[ ! -e /usr/sbin/rxectl ]
	# the devices' configuration stays: rxe.conf with the edits, and the enabled instance
	cmp "$CONF" "$BATS_FILE_TMPDIR/conf.edited"
	[ -L "/etc/systemd/system/rxe.target.wants/rxe@$NIC.service" ]
}

@test "apt purge leaves no file behind" {
	run -0 apt_get purge rxectl rxe-dkms
	snapshot > "$BATS_FILE_TMPDIR/after"
	run diff "$BATS_FILE_TMPDIR/before" "$BATS_FILE_TMPDIR/after"
	echo "$output"
	[ -z "$output" ]
	echo "# after purge: no difference in $(wc -l < "$BATS_FILE_TMPDIR/after") entries under ${SNAP_DIRS[*]} /lib/modules/$(uname -r)" >&3
}
