# SPDX-License-Identifier: GPL-2.0
# Kernel storage over RDMA in a test bed guest, on the guest's own address (VM_SELF_IP) over
# whichever rxe device is on eth0: an NVMe-oF target (nvmet-rdma exporting a memory-backed
# null_blk) and its initiator (nvme-rdma), an NFS server (nfsd, svcrdma) and its mount (xprtrdma).
# One home for driver_nvmeof.bats, driver_nfsrdma.bats and bench/guest-ulp-vs-stock.

ULP_NQN=nqn.2026-12.io.rxectl:driver-nvmeof
ULP_CFS=/sys/kernel/config/nvmet
ULP_NFS_EXPORT=/srv/rxectl-nfsrdma
ULP_NFS_MNT=/mnt/rxectl-nfsrdma
ULP_NFS_PORT=20049

# ulp_driver: load the driver RXE_ULP_DRIVER names (bundled, the default, or stock: the kernel's
# own rdma_rxe, for reference runs) and put rxe0 on eth0.
ulp_driver() {
	rxe0_up "${RXE_ULP_DRIVER:-bundled}"
}

# nvmet_export: nvmet-rdma exports a 1 GiB memory-backed null_blk (/dev/nullb0) as ULP_NQN on
# VM_SELF_IP:4420. nvmet_unexport undoes it and unloads the target's modules.
nvmet_export() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 && modprobe nvmet && modprobe nvmet-rdma ||
		return 1
	[ -d "$ULP_CFS" ] || mount -t configfs none /sys/kernel/config || return 1
	mkdir "$ULP_CFS/subsystems/$ULP_NQN" &&
	echo 1 > "$ULP_CFS/subsystems/$ULP_NQN/attr_allow_any_host" &&
	mkdir "$ULP_CFS/subsystems/$ULP_NQN/namespaces/1" &&
	echo /dev/nullb0 > "$ULP_CFS/subsystems/$ULP_NQN/namespaces/1/device_path" &&
	echo 1 > "$ULP_CFS/subsystems/$ULP_NQN/namespaces/1/enable" &&
	mkdir "$ULP_CFS/ports/1" &&
	echo rdma > "$ULP_CFS/ports/1/addr_trtype" &&
	echo ipv4 > "$ULP_CFS/ports/1/addr_adrfam" &&
	echo "$VM_SELF_IP" > "$ULP_CFS/ports/1/addr_traddr" &&
	echo 4420 > "$ULP_CFS/ports/1/addr_trsvcid" &&
	ln -s "$ULP_CFS/subsystems/$ULP_NQN" "$ULP_CFS/ports/1/subsystems/$ULP_NQN"
}
nvmet_unexport() {
	rm -f "$ULP_CFS/ports/1/subsystems/$ULP_NQN"
	rmdir "$ULP_CFS/ports/1" "$ULP_CFS/subsystems/$ULP_NQN/namespaces/1" \
		"$ULP_CFS/subsystems/$ULP_NQN" || return 1
	timeout 120 modprobe -r nvmet-rdma nvmet null_blk
}

# nvme_disk: the block device of the connected namespace: the guest has no other NVMe disk, so
# it is the one nvmeXnY (native multipath's head; its hidden paths are nvmeXcYnZ).
nvme_disk() {
	local d
	d=$(ls /sys/block | grep -E '^nvme[0-9]+n[0-9]+$') || return 1
	[ "$(wc -l <<<"$d")" = 1 ] || return 1
	echo "/dev/$d"
}

# nvme_rdma_connect [OPTION...]: nvme connect -t rdma to ULP_NQN on ULP_TARGET_IP (default
# VM_SELF_IP; a pair sets the peer's) with OPTIONs, and
# wait up to 20 s for its namespace's block device; prints nvme's output.
nvme_rdma_connect() {
	modprobe nvme-rdma || return 1
	timeout 120 nvme connect -t rdma -a "${ULP_TARGET_IP:-$VM_SELF_IP}" -s 4420 -n "$ULP_NQN" \
		--hostnqn "nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)" "$@" ||
		return 1
	for _ in $(seq 100); do nvme_disk >/dev/null && return 0; sleep 0.2; done
	echo "nvme connect: no namespace block device after 20 s" >&2
	return 1
}

# nvme_roundtrip PATTERN MIB LABEL: MIB MiB of random bytes into PATTERN, written to the connected
# namespace with O_DIRECT and read back and compared; the times go to fd 3 (bats) as "# LABEL...".
nvme_roundtrip() {
	local p=$1 mib=$2 label=$3 disk start back=$1.back
	disk=$(nvme_disk) || return 1
	head -c "${mib}M" /dev/urandom > "$p"
	start=$(date +%s.%N)
	timeout 600 dd if="$p" of="$disk" bs=1M oflag=direct conv=fsync status=none || return 1
	echo "# ${label}write: $mib MiB in $(secs "$start") s" >&3
	start=$(date +%s.%N)
	timeout 600 dd if="$disk" of="$back" bs=1M count="$mib" iflag=direct status=none || return 1
	echo "# ${label}read: $mib MiB in $(secs "$start") s" >&3
	cmp "$p" "$back" || return 1
	rm -f "$back"
}

# nfsrdma_export SIZE_MB: nfsd exports a tmpfs of SIZE_MB at ULP_NFS_EXPORT to ULP_NFS_CLIENT
# (default VM_SELF_IP; a pair's server sets its peer's) and
# listens for RDMA on ULP_NFS_PORT. NFSv4 only (no rpcbind, no statd), with a 10-s grace period
# (the first OPEN would wait 90 s).
nfsrdma_export() {
	modprobe nfsd && modprobe rpcrdma || return 1
	grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	mkdir -p "$ULP_NFS_EXPORT" "$ULP_NFS_MNT" &&
	mount -t tmpfs -o size="$1"m tmpfs "$ULP_NFS_EXPORT" &&
	echo 10 > /proc/fs/nfsd/nfsv4gracetime && echo 10 > /proc/fs/nfsd/nfsv4leasetime &&
	exportfs -o rw,no_root_squash,insecure,fsid=0 "${ULP_NFS_CLIENT:-$VM_SELF_IP}/32:$ULP_NFS_EXPORT" &&
	rpc.mountd -N 3 &&
	rpc.nfsd -N 3 --rdma="$ULP_NFS_PORT" 2
}

# nfsrdma_mount: NFSv4.2 over RDMA from the nfsd at ULP_TARGET_IP (default: the guest's own) at
# ULP_NFS_MNT.
nfsrdma_mount() {
	timeout 120 mount -t nfs -o vers=4.2,proto=rdma,port="$ULP_NFS_PORT" "${ULP_TARGET_IP:-$VM_SELF_IP}:/" "$ULP_NFS_MNT"
}

# nfsrdma_stop: unmount, stop nfsd and mountd, drop the export and its tmpfs.
nfsrdma_stop() {
	! grep -q " $ULP_NFS_MNT " /proc/mounts || timeout 120 umount "$ULP_NFS_MNT" || return 1
	timeout 120 rpc.nfsd 0 && exportfs -ua || return 1
	pkill -x rpc.mountd
	umount /proc/fs/nfsd "$ULP_NFS_EXPORT"
}

# secs START: seconds since START (date +%s.%N), two decimals.
secs() {
	awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }'
}
