#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The rxectl node image (contrib/kubernetes/build-image: mmdebstrap + this tree's rxectl .deb, an
# OCI archive) under podman in a systemd guest, run as the DaemonSet runs it: privileged, host
# network, the node's /lib/modules and /dev/infiniband, rxe.conf at /etc/rxe. Its entrypoint
# (rxe-node) creates the declared devices, re-creates one whose netdev is deleted and re-added,
# passes its readiness and liveness probes, leaves the devices and exits 0 on SIGTERM (deletes
# them with RXE_REMOVE_ON_EXIT=yes), and refuses bad configuration with exit 2.
# The node's /var/run/cdi is mounted as the DaemonSet mounts it: the spec rxectl keeps there
# (`rxectl cdi`) hands a device to a workload container (`podman run --device rxectl.io/rdma=DEV`),
# which runs ibv_devinfo, a loopback ibv_rc_pingpong and `rxectl doctor` (its container checks);
# without the device, or with the nodes bind-mounted but not allowed, doctor names what is missing.
# Kubernetes itself (kubelet, the DaemonSet controller) is not run here: tests/host/pkg_kubernetes.bats
# checks the manifest. Tests build on each other in order (one container for most of them).
#   make deb && contrib/kubernetes/build-image && tests/run-all tests/guest/systemd/pkg_container.bats

bats_require_minimum_version 1.5.0

load ../lib
load pkg_lib

BOUND=90	# seconds: a generous bound for a device to appear or go (TCG, podman)

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "not in the systemd test bed guest"
	command -v podman >/dev/null || { echo "podman is missing: run scripts/setup-deps" >&2; return 1; }
	IMAGE_ARCHIVE=$(ls "$TOP"/build/oci/rxectl-node_*.oci.tar 2>/dev/null | tail -n1)
	[ -n "$IMAGE_ARCHIVE" ] ||
		{ echo "no image in $TOP/build/oci: run make deb && contrib/kubernetes/build-image" >&2; return 1; }
	setup_nic
	# podman's storage in a tmpfs of its own (the guest's root is an overlay, which cannot be
	# the upper layer of podman's overlay storage).
	STORE=$BATS_FILE_TMPDIR/store
	mkdir -p "$STORE" && mount -t tmpfs -o size=400m tmpfs "$STORE"
	CONFDIR=$BATS_FILE_TMPDIR/conf
	mkdir -p "$CONFDIR"
	printf '[%s]\n[rxk0]\nname = rxe_k\n' "$NIC" > "$CONFDIR/rxe.conf"
	# podman with that storage, as a command (timeout(1) runs commands, not functions)
	PM=$BATS_FILE_TMPDIR/pm
	printf '#!/bin/sh\nexec podman --root "%s/root" --runroot "%s/run" --storage-driver overlay --cgroup-manager cgroupfs --events-backend file "$@"\n' \
		"$STORE" "$STORE" > "$PM"
	chmod +x "$PM"
	export PM
	touch /run/rxectl.lock			# hostPath type FileOrCreate
	mkdir -p /var/run/cdi			# hostPath type DirectoryOrCreate
	modprobe rdma_ucm			# /dev/infiniband/rdma_cm, in the CDI spec
	rm -f /var/run/cdi/rxectl.yaml
	mkdir -p /dev/infiniband		# hostPath type DirectoryOrCreate
	export STORE CONFDIR IMAGE_ARCHIVE
	local out
	out=$(pm load -i "$IMAGE_ARCHIVE" 2>&1) || { echo "podman load failed: $out" >&2; return 1; }
	IMAGE=$(sed -n 's/^Loaded image[^:]*: *//p' <<< "$out" | tail -n1)
	[ -n "$IMAGE" ] || { echo "podman load printed no image name: $out" >&2; return 1; }
	export IMAGE
}

teardown_file() {
	pm rm -f -t 0 rxe-node rxe-bad >/dev/null 2>&1
	rm -f /var/run/cdi/rxectl.yaml
	ip link del rxk0 2>/dev/null
	umount "$STORE" 2>/dev/null
	true
}

pm() { "$PM" "$@"; }

# The container as the DaemonSet runs it (contrib/kubernetes/rxectl.yaml), with extra podman args.
run_node() { # name [podman run args...]
	local name=$1; shift
	pm run -d --name "$name" --privileged --network host \
		-v /lib/modules:/lib/modules:ro -v "$CONFDIR:/etc/rxe:ro" \
		-v /dev/infiniband:/dev/infiniband -v /run/rxectl.lock:/run/rxectl.lock \
		-v /var/run/cdi:/var/run/cdi "$@" "$IMAGE"
}

devs_on() { # "name:state" of the rxe devices on netdev $1
	rdma -j link show 2>/dev/null | jq -r --arg n "$1" '.[] | select(.netdev == $n) | "\(.ifname):\(.state)"'
}

wait_for() { # netdev expected-"name:state"-or-empty
	for _ in $(seq $((BOUND * 5))); do
		[ "$(devs_on "$1")" = "$2" ] && return 0
		sleep 0.2
	done
	echo "on $1: wanted '$2', have '$(devs_on "$1")'"
	pm logs rxe-node 2>&1 | tail -n 20
	return 1
}

make_veth() { # name address (the peer is NAMEp)
	ip link add "$1" type veth peer name "$1p" && ip addr add "$2/24" dev "$1" &&
		ip link set "$1p" up && ip link set "$1" up
}

@test "the image runs rxe-node, which creates the declared device on the guest's NIC" {
	[ "$(pm image inspect -f '{{json .Config.Entrypoint}}' "$IMAGE")" = '["/usr/sbin/rxe-node"]' ]
	[ -z "$(devs_on "$NIC")" ]
	run -0 run_node rxe-node
	wait_for "$NIC" "rxe_$NIC:ACTIVE"
	[ "$(pm inspect -f '{{.State.Running}}' rxe-node)" = true ]
}

@test "a declared netdev that appears later gets its device, and again after it is deleted and re-added" {
	make_veth rxk0 198.51.100.1
	wait_for rxk0 rxe_k:ACTIVE
	ip link del rxk0
	wait_for rxk0 ""
	make_veth rxk0 198.51.100.1
	wait_for rxk0 rxe_k:ACTIVE
	run -0 pm logs rxe-node
	echo "$output"
	[ "$(pm inspect -f '{{.State.Running}}' rxe-node)" = true ]
}

@test "the readiness and liveness probes pass in the container, and doctor's report is in its log" {
	run pm exec rxe-node rxe-node --ready
	echo "$output"
	[ "$status" = 0 ]
	[ "$output" = "the monitor runs and every declared netdev present has its rxe device" ]
	run -0 pm exec rxe-node rxe-node --alive
	[[ "$output" == "rxectl monitor runs (pid "* ]]
	run -0 pm logs rxe-node
	[[ "$output" == *"rxe-node: rxectl doctor (reported, not gating readiness):"* ]]
	[[ "$output" == *"rxe_$NIC"* ]]
}

# A workload container: the node image (it has rxectl and ibverbs-utils), another entrypoint.
run_work() { # podman run args... -- command [args...]
	local a=()
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	timeout 300 "$PM" run --rm "${a[@]}" --entrypoint "$1" "$IMAGE" "${@:2}"
}

@test "the node container keeps the CDI spec on the node, and rxectl cdi writes the same" {
	local spec=/var/run/cdi/rxectl.yaml
	for _ in $(seq 50); do grep -q "rxe_k" "$spec" 2>/dev/null && break; sleep 0.2; done
	cat "$spec"
	grep -q "name: \"rxe_$NIC\"" "$spec" && grep -q 'name: "rxe_k"' "$spec"
	run -0 --separate-stderr "$RXECTL" cdi --json
	echo "$output"
	[ "$(jq -r .path <<< "$output")" = "$spec" ]
	[ "$(jq -r '.devices | join(" ")' <<< "$output")" = "rxectl.io/rdma=rxe_$NIC rxectl.io/rdma=rxe_k rxectl.io/rdma=all" ]
	[ "$(jq -r .spec.cdiVersion <<< "$output")" = 0.5.0 ]
	[ "$(jq -r .spec.kind <<< "$output")" = rxectl.io/rdma ]
	uv=$(basename "$(grep -l "^rxe_$NIC\$" /sys/class/infiniband_verbs/uverbs*/ibdev | head -n1 | xargs dirname)")
	[ "$(jq -r --arg n "rxe_$NIC" '.spec.devices[] | select(.name == $n) | .containerEdits.deviceNodes[0].path' <<< "$output")" = "/dev/infiniband/$uv" ]
	[ "$(jq -r '.spec.containerEdits.deviceNodes[0].path' <<< "$output")" = /dev/infiniband/rdma_cm ]
	# the YAML file is the JSON document's spec, and parses as YAML
	python3 -c 'import json, sys, yaml; sys.exit(yaml.safe_load(open(sys.argv[1])) != json.loads(sys.argv[2])["spec"])' \
		"$spec" "$output"
	# a device that comes and goes by rxectl up/down on the node is in the spec, then not
	make_veth rxk1 198.51.100.5
	run -0 "$RXECTL" up rxk1 --wait 0
	grep -q 'name: "rxe_rxk1"' "$spec"
	run -0 "$RXECTL" down rxk1
	# (the node container's monitor rewrites it too: wait out one of its runs)
	for _ in $(seq 50); do grep -q 'rxe_rxk1' "$spec" || break; sleep 0.2; done
	! grep -q 'rxe_rxk1' "$spec"
	ip link del rxk1
}

@test "podman --device rxectl.io/rdma=DEV: ibv_devinfo, a loopback ibv_rc_pingpong and rxectl doctor pass in the container" {
	local dev=rxe_$NIC gid
	gid=$("$RXECTL" gid "$dev" --index-only)
	run -0 run_work --network host --device "rxectl.io/rdma=$dev" --ulimit memlock=-1:-1 -- ibv_devinfo -d "$dev"
	echo "$output"
	grep -Eq "^hca_id:[[:space:]]+$dev\$" <<< "$output"
	grep -Eq "^[[:space:]]+state:[[:space:]]+PORT_ACTIVE" <<< "$output"
	run -0 run_work --network host --device "rxectl.io/rdma=$dev" --ulimit memlock=-1:-1 -- sh -c \
		"ibv_rc_pingpong -d $dev -g $gid -n 20 -p 18515 & sleep 3; ibv_rc_pingpong -d $dev -g $gid -n 20 -p 18515 127.0.0.1; r=\$?; wait \$! && exit \$r"
	echo "$output"
	[ "$(grep -c ' bytes in .* seconds' <<< "$output")" = 2 ]
	run -0 run_work --network host --device "rxectl.io/rdma=$dev" --ulimit memlock=-1:-1 -- rxectl doctor
	echo "$output"
	[[ "$output" == *"[ok  ] container "*"(podman, from /run/.containerenv)"* ]]
	[[ "$output" == *"[ok  ] devnode.uverbs ($dev)"* ]]
	[[ "$output" == *"[skip] devnode.uverbs (rxe_k)"*"not in this container"* ]]
	[[ "$output" == *"[ok  ] devnode.rdma_cm"* ]]
	[[ "$output" == *"[ok  ] netns.gid"*"$dev has RoCE v2 GID index"* ]]
	[[ "$output" == *"[ok  ] memlock.limit"* ]]
	[[ "$output" == *"result: pass"* ]]
	# the spec's environment reaches the workload
	run -0 run_work --network host --device "rxectl.io/rdma=$dev" -- sh -c 'echo "$RXECTL_RDMA_DEVICES $UCX_NET_DEVICES"'
	[ "$output" = "$dev $dev:1" ]
}

@test "without the device, doctor in the container says exactly what is missing and how to give it" {
	local dev=rxe_$NIC uv
	uv=$(basename "$(grep -l "^$dev\$" /sys/class/infiniband_verbs/uverbs*/ibdev | head -n1 | xargs dirname)")
	run -1 run_work --network host --ulimit memlock=65536:65536 -- rxectl doctor "$dev"
	echo "$output"
	[[ "$output" == *"[FAIL] devnode.uverbs ($dev)"*"/dev/infiniband/$uv, the node of $dev, is not in this container"* ]]
	[[ "$output" == *"fix: on the host run \`rxectl cdi\` and start the container with \`--device rxectl.io/rdma=$dev\`"* ]]
	[[ "$output" == *"[WARN] devnode.rdma_cm"*"is not in this container"* ]]
	[[ "$output" == *"[WARN] memlock.limit"*"lacks CAP_IPC_LOCK"*"fix: start the container with \`--ulimit memlock=-1:-1\` or \`--cap-add IPC_LOCK\`"* ]]
	[[ "$output" == *"result: fail"* ]]
	# the nodes bind-mounted but not allowed by the device cgroup: EPERM, and the fix says --device
	run -1 run_work --network host -v /dev/infiniband:/dev/infiniband -- rxectl doctor "$dev"
	echo "$output"
	[[ "$output" == *"[FAIL] devnode.uverbs ($dev)"*"opening it fails with EPERM: the container's device cgroup does not allow it"* ]]
	# its own network namespace: no GID for its address, and the fix names the host's
	run -0 run_work --network none --device "rxectl.io/rdma=$dev" --cap-add IPC_LOCK -- rxectl doctor --json "$dev"
	echo "$output"
	[ "$(jq -r '.checks[] | select(.id == "netns.gid") | .status' <<< "$output")" = warn ]
	[[ "$(jq -r '.checks[] | select(.id == "netns.gid") | .fix' <<< "$output")" == *"--network host"*"hostNetwork: true"* ]]
}

@test "SIGTERM: the container leaves the declared devices (the default) and exits 0" {
	run -0 pm kill --signal TERM rxe-node
	run -0 pm wait rxe-node
	echo "$output"
	[ "$output" = 0 ]
	[ "$(devs_on "$NIC")" = "rxe_$NIC:ACTIVE" ]
	[ "$(devs_on rxk0)" = rxe_k:ACTIVE ]
	run -0 pm logs rxe-node
	[[ "$output" == *"RXE_REMOVE_ON_EXIT=no: the declared devices stay"* ]]
	pm rm rxe-node
}

@test "the next container takes the devices over; with RXE_REMOVE_ON_EXIT=yes it deletes them when it stops" {
	run -0 run_node rxe-node -e RXE_REMOVE_ON_EXIT=yes
	for _ in $(seq $((BOUND * 2))); do
		pm exec rxe-node rxe-node --ready >/dev/null 2>&1 && break
		sleep 0.5
	done
	run -0 pm exec rxe-node rxe-node --ready
	[ "$(devs_on "$NIC")" = "rxe_$NIC:ACTIVE" ]
	run -0 pm stop -t 60 rxe-node
	[ "$(pm inspect -f '{{.State.ExitCode}}' rxe-node)" = 0 ]
	[ -z "$(devs_on "$NIC")" ]
	[ -z "$(devs_on rxk0)" ]
	pm rm rxe-node
}

@test "a malformed rxe.conf stops the container with exit 2, a message and no device" {
	local bad=$BATS_TEST_TMPDIR/bad
	mkdir -p "$bad"
	printf '[%s]\nspeed = 9000\n' "$NIC" > "$bad/rxe.conf"
	timeout 300 "$PM" run --name rxe-bad --privileged --network host -v /lib/modules:/lib/modules:ro \
		-v "$bad:/etc/rxe:ro" "$IMAGE" > "$BATS_TEST_TMPDIR/out" 2>&1 && false
	run -0 pm inspect -f '{{.State.ExitCode}}' rxe-bad
	[ "$output" = 2 ]
	cat "$BATS_TEST_TMPDIR/out"
	grep -q "unknown key 'speed'" "$BATS_TEST_TMPDIR/out"
	grep -q 'rxe-node: /etc/rxe/rxe.conf is not valid (above); fix the ConfigMap.' "$BATS_TEST_TMPDIR/out"
	[ -z "$(devs_on "$NIC")" ]
	pm rm rxe-bad
}

@test "a bad RXE_REMOVE_ON_EXIT or a missing rxe.conf stops the container with exit 2 and says so" {
	run -2 timeout 300 "$PM" run --rm --privileged --network host -v "$CONFDIR:/etc/rxe:ro" \
		-e RXE_REMOVE_ON_EXIT=maybe "$IMAGE"
	[[ "$output" == *"RXE_REMOVE_ON_EXIT must be 'yes' or 'no', not 'maybe'"* ]]
	run -2 timeout 300 "$PM" run --rm --privileged --network host "$IMAGE"
	[[ "$output" == *"there is no configuration file /etc/rxe/rxe.conf; mount the ConfigMap"* ]]
}
