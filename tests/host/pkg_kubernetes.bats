#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# contrib/kubernetes/ on the build machine, offline (no cluster): kubectl renders the kustomization
# and parses every object, every field is one the Kubernetes API knows
# (tests/host/pkg_kubernetes_schema.py, against python3-kubernetes' models), the DaemonSet has the
# node access rxe needs and rolls out without taking devices away (issue 40: devices kept on pod
# exit, one node at a time, readiness = devices + monitor, a liveness probe, no API token, Linux
# nodes), images: and the configMapGenerator do their part, the ConfigMap's rxe.conf is one
# rxectl reads, and the scripts are shellcheck-clean and refuse bad arguments.
# The image itself runs in tests/guest/systemd/pkg_container.bats.
#   tests/run-all tests/host/pkg_kubernetes.bats

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	K8S=$TOP/contrib/kubernetes
	SCHEMA=$TOP/tests/host/pkg_kubernetes_schema.py
	export TOP K8S SCHEMA
	command -v kubectl >/dev/null || { echo "kubectl is missing: run scripts/setup-deps" >&2; return 1; }
	/usr/bin/python3 -c 'import kubernetes.client, yaml' ||
		{ echo "python3-kubernetes is missing: run scripts/setup-deps" >&2; return 1; }
}

# The manifests as the cluster gets them: `kubectl kustomize` of contrib/kubernetes, or of $1.
render() {
	kubectl kustomize "${1:-$K8S}"
}

# obj KIND: the rendered object of that kind, as JSON
obj() {
	render | /usr/bin/python3 -c 'import json, sys, yaml
print(json.dumps([d for d in yaml.safe_load_all(sys.stdin) if d and d["kind"] == sys.argv[1]][0]))' "$1"
}

@test "kubectl renders the kustomization and reads every object (client side, no server)" {
	render > "$BATS_TEST_TMPDIR/all.yaml"
	run -0 kubectl annotate --local -f "$BATS_TEST_TMPDIR/all.yaml" checked=yes -o name
	echo "$output"
	[[ "$output" =~ ^configmap/rxectl-config-[a-z0-9]+$'\n'daemonset.apps/rxectl$ ]]
	# every object in kube-system
	[ "$(grep -c '^  namespace: kube-system$' "$BATS_TEST_TMPDIR/all.yaml")" = 2 ]
}

@test "every field of the rendered manifests and of rxectl.yaml is one of the Kubernetes API, of its type, with the required ones there" {
	render > "$BATS_TEST_TMPDIR/all.yaml"
	run "$SCHEMA" "$BATS_TEST_TMPDIR/all.yaml" "$K8S/rxectl.yaml"
	echo "$output"
	[ "$status" = 0 ] && [ -z "$output" ]
}

@test "the schema check fails on an unknown field, a wrong type and a missing required field" {
	sed -e 's/hostNetwork: true/hostNetwrok: true/' -e 's/periodSeconds: 10/periodSeconds: "10"/' \
	    -e 's/^        - name: rxectl$/        - image_: x/' "$K8S/rxectl.yaml" > "$BATS_TEST_TMPDIR/bad.yaml"
	run -1 "$SCHEMA" "$BATS_TEST_TMPDIR/bad.yaml"
	echo "$output"
	[[ "$output" == *"spec.template.spec.hostNetwrok: unknown field of V1PodSpec"* ]]
	[[ "$output" == *"readinessProbe.periodSeconds: must be int, not str ('10')"* ]]
	[[ "$output" == *"containers[0].name: required field of V1Container is missing"* ]]
	run -2 "$SCHEMA" /nonexistent.yaml
	[[ "$output" == *"cannot read it as YAML"* ]]
}

@test "the DaemonSet runs privileged on the node's network, system-node-critical, in kube-system" {
	ds=$(obj DaemonSet)
	[ "$(jq -r .metadata.namespace <<< "$ds")" = kube-system ]
	[ "$(jq -r .spec.template.spec.hostNetwork <<< "$ds")" = true ]
	[ "$(jq -r .spec.template.spec.priorityClassName <<< "$ds")" = system-node-critical ]
	[ "$(jq -r '.spec.template.spec.containers[0].securityContext.privileged' <<< "$ds")" = true ]
	# the selector selects the template's pods
	[ "$(jq -c .spec.selector.matchLabels <<< "$ds")" = "$(jq -c .spec.template.metadata.labels <<< "$ds")" ]
}

@test "the DaemonSet mounts the node's /lib/modules, /dev/infiniband, the lock, /var/run/cdi and the ConfigMap at /etc/rxe" {
	ds=$(obj DaemonSet)
	mount_of() { # mountPath -> "volume-name readOnly"
		jq -r --arg p "$1" '.spec.template.spec.containers[0].volumeMounts[] | select(.mountPath == $p) |
			"\(.name) \(.readOnly // false)"' <<< "$ds"
	}
	host_of() { jq -r --arg n "$1" '.spec.template.spec.volumes[] | select(.name == $n) | .hostPath.path // .configMap.name' <<< "$ds"; }
	[ "$(mount_of /lib/modules)" = "modules true" ] && [ "$(host_of modules)" = /lib/modules ]
	[ "$(mount_of /dev/infiniband)" = "infiniband false" ] && [ "$(host_of infiniband)" = /dev/infiniband ]
	[ "$(mount_of /run/rxectl.lock)" = "lock false" ] && [ "$(host_of lock)" = /run/rxectl.lock ]
	[ "$(mount_of /etc/rxe)" = "config true" ]
	[ "$(mount_of /var/run/cdi)" = "cdi false" ] && [ "$(host_of cdi)" = /var/run/cdi ]
	[ "$(host_of config)" = "$(obj ConfigMap | jq -r .metadata.name)" ]
	[ "$(jq -r '.spec.template.spec.containers[0].env[] | select(.name == "RXECTL_CONFIG") | .value' <<< "$ds")" = /etc/rxe/rxe.conf ]
}

@test "a rollout keeps the devices: kept on pod exit, one node at a time, with the time to stop" {
	ds=$(obj DaemonSet)
	[ "$(jq -r '.spec.template.spec.containers[0].env[] | select(.name == "RXE_REMOVE_ON_EXIT") | .value' <<< "$ds")" = no ]
	[ "$(jq -c .spec.updateStrategy <<< "$ds")" = '{"rollingUpdate":{"maxUnavailable":1},"type":"RollingUpdate"}' ]
	[ "$(jq -r .spec.template.spec.terminationGracePeriodSeconds <<< "$ds")" -ge 10 ]
	# rxe-node's own default is to keep them too
	grep -q '^case "${RXE_REMOVE_ON_EXIT:-no}" in$' "$K8S/rxe-node"
}

@test "readiness is the node's devices and the monitor (rxe-node --ready), liveness the monitor; doctor gates neither" {
	ds=$(obj DaemonSet)
	c='.spec.template.spec.containers[0]'
	[ "$(jq -c "$c.readinessProbe.exec.command" <<< "$ds")" = '["rxe-node","--ready"]' ]
	[ "$(jq -c "$c.livenessProbe.exec.command" <<< "$ds")" = '["rxe-node","--alive"]' ]
	[ "$(jq -r "$c.livenessProbe.initialDelaySeconds" <<< "$ds")" -ge "$(jq -r "$c.readinessProbe.initialDelaySeconds" <<< "$ds")" ]
	! jq -c "$c.readinessProbe, $c.livenessProbe, $c.startupProbe" <<< "$ds" | grep -q doctor
	# doctor's findings are reported in the pod's log by rxe-node
	grep -q 'rxectl doctor (reported, not gating readiness)' "$K8S/rxe-node"
}

@test "the pod gets no service-account token and runs on Linux nodes only" {
	ds=$(obj DaemonSet)
	[ "$(jq -r .spec.template.spec.automountServiceAccountToken <<< "$ds")" = false ]
	[ "$(jq -c .spec.template.spec.nodeSelector <<< "$ds")" = '{"kubernetes.io/os":"linux"}' ]
}

@test "images: sets the image, tagged with this release (VERSION) as build-image tags it" {
	[ "$(obj DaemonSet | jq -r '.spec.template.spec.containers[0].image')" = \
		"registry.example.org/rxectl-node:$(cat "$TOP/VERSION")" ]
	grep -q 'name=${name:-localhost/rxectl-node:$ver}' "$K8S/build-image"
}

@test "the configMapGenerator names the ConfigMap by its content, so an edit of rxe.conf rolls the DaemonSet" {
	cm1=$(obj ConfigMap | jq -r .metadata.name)
	ds1=$(obj DaemonSet | jq -r '.spec.template.spec.volumes[] | select(.name == "config") | .configMap.name')
	[[ "$cm1" == rxectl-config-* ]] && [ "$ds1" = "$cm1" ]
	cp -r "$K8S" "$BATS_TEST_TMPDIR/k"
	printf '[eth1]\n' >> "$BATS_TEST_TMPDIR/k/rxe.conf"
	render "$BATS_TEST_TMPDIR/k" > "$BATS_TEST_TMPDIR/edited.yaml"
	cm2=$(sed -n 's/^  name: \(rxectl-config-.*\)/\1/p' "$BATS_TEST_TMPDIR/edited.yaml")
	echo "$cm1 -> $cm2"
	[[ "$cm2" == rxectl-config-* ]] && [ "$cm2" != "$cm1" ]
	grep -q "^          name: $cm2\$" "$BATS_TEST_TMPDIR/edited.yaml"	# the DaemonSet's volume
}

# The probes' failing side, on the host (no RDMA here); tests/guest/systemd/pkg_container.bats
# runs them in the container on a node with devices.
@test "rxe-node --alive and --ready fail without a running monitor, and --alive passes with one" {
	local pf="$BATS_TEST_TMPDIR/monitor.pid"
	RXE_NODE_PIDFILE=$pf run -1 "$K8S/rxe-node" --alive
	[[ "$output" == *"the monitor has not started (no $pf)"* ]]
	RXE_NODE_PIDFILE=$pf run -1 "$K8S/rxe-node" --ready
	sleep 60 & local p=$!
	echo "$p" > "$pf"
	RXE_NODE_PIDFILE=$pf run -0 "$K8S/rxe-node" --alive
	[ "$output" = "rxectl monitor runs (pid $p)" ]
	kill -STOP "$p"
	RXE_NODE_PIDFILE=$pf run -1 "$K8S/rxe-node" --alive
	[[ "$output" == *"is in state T"* ]]
	kill -KILL "$p"
	wait "$p" 2>/dev/null || true
	RXE_NODE_PIDFILE=$pf run -1 "$K8S/rxe-node" --alive
	[[ "$output" == *"the monitor (pid $p) is gone"* ]]
	run -2 "$K8S/rxe-node" --bogus
	[[ "$output" == *"unknown argument '--bogus'"* ]]
}

@test "the ConfigMap's rxe.conf is a file rxectl reads, declaring eth0" {
	[ -x "$TOP/rxectl" ] || make -C "$TOP" -s rxectl
	obj ConfigMap | jq -r '.data["rxe.conf"]' > "$BATS_TEST_TMPDIR/rxe.conf"
	[ "$(cat "$BATS_TEST_TMPDIR/rxe.conf")" = "$(cat "$K8S/rxe.conf")" ]
	RXECTL_CONFIG=$BATS_TEST_TMPDIR/rxe.conf run --separate-stderr -0 "$TOP/rxectl" udev-env eth0
	[ -z "$stderr" ]
	[[ "$output" == *RXE_MANAGED=1* ]] && [[ "$output" == *RXE_NAME=rxe_eth0* ]]
}

@test "rxe-node and build-image are shellcheck-clean" {
	run -0 shellcheck -S warning "$K8S/rxe-node" "$K8S/build-image"
}

@test "build-image refuses an unknown argument, a missing .deb and a .deb that is not rxectl, with exit 2" {
	run -2 "$K8S/build-image" --bogus
	[[ "$output" == *"unknown argument '--bogus'"* ]]
	run -2 "$K8S/build-image" --deb /nonexistent.deb
	[[ "$output" == *"/nonexistent.deb is not a file; give the rxectl .deb with --deb FILE."* ]]
	run -2 "$K8S/build-image" --deb
	[[ "$output" == *"--deb needs a value."* ]]
	echo junk > "$BATS_TEST_TMPDIR/x.deb"
	run -2 "$K8S/build-image" --deb "$BATS_TEST_TMPDIR/x.deb"
	[[ "$output" == *"is not the rxectl package"* ]]
}
