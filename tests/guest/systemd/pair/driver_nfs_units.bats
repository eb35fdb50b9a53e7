#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# NFS over RDMA the way an operator runs it, on a pair of systemd guests with the bundled driver
# (issue 11): each guest has rxectl installed, `driver = bundled` in rxe.conf and its NIC enabled
# with `rxectl enable` (rxe@NIC.service). Guest a is the server: Debian's nfs-server.service with
# RDMA switched on in /etc/nfs.conf.d (rdma=y, port 20049) exporting a tmpfs. Guest b is the
# client: an /etc/fstab line with proto=rdma and x-systemd.requires=rxe@NIC.service (what
# rxe@.service(8) tells operators to write), so that starting the mount - as boot does - with the
# device not yet there brings rxe@NIC.service up first. b writes NFS_MIB MiB, a finds them in its
# file, b reads them back with O_DIRECT; the mount and nfs-server stop; kernel logs clean.
#   tests/run-all tests/guest/systemd/pair/driver_nfs_units.bats

bats_require_minimum_version 1.5.0

load ../../pair/pair_lib
load ../pkg_lib
load ../../ulp	# secs

RXECTL=/usr/sbin/rxectl
CONF=/etc/rxe/rxe.conf
EXPORT=/srv/rxectl-nfs-units
MNT=/mnt/rxectl-nfs-units
PORT=20049
NFS_MIB=16

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "not in the systemd test bed guest"
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	local m
	for m in nfsd nfsv4 rpcrdma; do
		modinfo "$m" >/dev/null 2>&1 || skip "kernel $(uname -r) has no $m module"
	done
	systemctl cat nfs-server.service >/dev/null 2>&1 ||
		{ echo "nfs-kernel-server is not installed: run scripts/setup-deps" >&2; return 1; }
	setup_nic
	(cd "$TOP" && make -s -o rxectl install PREFIX=/usr >/dev/null)
	install_bundled_driver
	mkdir -p /etc/rxe
	printf '# rxe.conf of driver_nfs_units.bats\n[global]\ndriver = bundled\n' > "$CONF"
	# the test bed masks NFS's units (a test rarely needs them): this one does
	systemctl unmask nfs-server.service rpcbind.socket rpcbind.service >/dev/null 2>&1
	systemctl daemon-reload
	export MOUNT_UNIT
	MOUNT_UNIT=$(systemd-escape -p --suffix=mount "$MNT")
	dmesg -C
}

teardown() {
	pair_teardown
}

teardown_file() {
	systemctl stop "$MOUNT_UNIT" 2>/dev/null || true
	umount -f "$MNT" 2>/dev/null || true
	sed -i '/rxectl-nfs-units/d' /etc/fstab 2>/dev/null || true
	systemctl stop nfs-server 2>/dev/null || true
	rm -f /etc/nfs.conf.d/rxectl-test.conf /etc/exports.d/rxectl-test.exports
	"$RXECTL" disable "${NIC:-eth0}" --now >/dev/null 2>&1 || true
}

@test "both: driver = bundled and rxectl enable NIC: rxe@NIC.service runs the device on the bundled rdma_rxe" {
	run -0 "$RXECTL" enable "$NIC" --now
	echo "$output"
	[ "$(systemctl is-active "rxe@$NIC.service")" = active ]
	[[ "$(cat /sys/module/rdma_rxe/version)" == rxectl-bundled-* ]]
	rdma link show "rxe_$NIC/1" | grep -q 'state ACTIVE'
	if [ "$VM_ROLE" = b ]; then	# the mount is to bring it up again (as at boot)
		systemctl stop "rxe@$NIC.service"
		! rdma link show "rxe_$NIC/1" 2>/dev/null
	fi
	barrier units-up
}

@test "a: nfs-server.service with rdma=y in /etc/nfs.conf.d listens for RDMA on $PORT and exports a tmpfs" {
	if [ "$VM_ROLE" = a ]; then
		mkdir -p "$EXPORT" /etc/nfs.conf.d /etc/exports.d
		mount -t tmpfs -o size=$((NFS_MIB * 2))m tmpfs "$EXPORT"
		printf '[nfsd]\nrdma=y\nrdma-port=%s\nvers3=n\ngrace-time=10\nlease-time=10\n' "$PORT" \
			> /etc/nfs.conf.d/rxectl-test.conf
		echo "$EXPORT $VM_PEER_IP/32(rw,no_root_squash,insecure,fsid=0)" \
			> /etc/exports.d/rxectl-test.exports
		run -0 timeout 180 systemctl restart nfs-server.service
		[ "$(systemctl is-active nfs-server.service)" = active ]
		grep -qx "rdma $PORT" /proc/fs/nfsd/portlist
		exportfs | grep -q "^$EXPORT"
	fi
	barrier exported
}

@test "b: the fstab line with proto=rdma and x-systemd.requires=rxe@NIC.service: starting its mount brings rxe@NIC up first and mounts over RDMA" {
	local t0
	if [ "$VM_ROLE" = b ]; then
		mkdir -p "$MNT"
		echo "$VM_PEER_IP:/ $MNT nfs vers=4.2,proto=rdma,port=$PORT,_netdev,x-systemd.requires=rxe@$NIC.service 0 0" \
			>> /etc/fstab
		systemctl daemon-reload
		# the generator's unit is ordered after the device's unit
		systemctl show -p After --value "$MOUNT_UNIT" | tr ' ' '\n' | grep -qx "rxe@$NIC.service"
		[ "$(systemctl is-active "rxe@$NIC.service")" != active ]
		t0=$(date +%s.%N)
		run timeout 180 systemctl start "$MOUNT_UNIT"
		[ "$status" = 0 ] || { journalctl -n 80 --no-pager -u "$MOUNT_UNIT" -u "rxe@$NIC.service"; false; }
		echo "# mount unit active $(secs "$t0") s after its start, rxe@$NIC pulled in" >&3
		[ "$(systemctl is-active "rxe@$NIC.service")" = active ]
		[ "$(systemctl is-active "$MOUNT_UNIT")" = active ]
		findmnt -no OPTIONS "$MNT" | grep -q 'proto=rdma'
	fi
	barrier mounted
}

@test "b writes $NFS_MIB MiB through the mount, a finds them in its file, b reads them back identical (O_DIRECT)" {
	local p="$BATS_FILE_TMPDIR/pattern" start
	if [ "$VM_ROLE" = b ]; then
		head -c "${NFS_MIB}M" /dev/urandom > "$p"
		start=$(date +%s.%N)
		timeout 300 dd if="$p" of="$MNT/data" bs=1M oflag=direct conv=fsync status=none
		echo "# write $NFS_MIB MiB in $(secs "$start") s" >&3
		sha256sum < "$p" > "$VM_SHARED/nfs-units-sum"
	fi
	barrier written
	if [ "$VM_ROLE" = a ]; then
		[ "$(sha256sum < "$EXPORT/data")" = "$(cat "$VM_SHARED/nfs-units-sum")" ]
	else
		start=$(date +%s.%N)
		timeout 300 dd if="$MNT/data" of="$p.back" bs=1M iflag=direct status=none
		echo "# read $NFS_MIB MiB in $(secs "$start") s" >&3
		cmp "$p" "$p.back"
	fi
	barrier checked
}

@test "the mount and nfs-server stop; rxectl disable --now removes the device; the kernel log is clean" {
	if [ "$VM_ROLE" = b ]; then
		run -0 timeout 120 systemctl stop "$MOUNT_UNIT"
		! grep -q " $MNT " /proc/mounts
	fi
	barrier unmounted
	if [ "$VM_ROLE" = a ]; then
		run -0 timeout 120 systemctl stop nfs-server.service
		umount "$EXPORT"
	fi
	run -0 timeout 120 "$RXECTL" disable "$NIC" --now
	! rdma link show "rxe_$NIC/1" 2>/dev/null
	kernel_log_clean
	barrier done
}
