#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# contrib/kubernetes/ on the build machine, offline (no cluster): kubectl parses the manifest,
# every field is one the Kubernetes API knows (tests/host/pkg_kubernetes_schema.py, against
# python3-kubernetes' models), the DaemonSet has the node access rxe needs, the ConfigMap's rxe.conf
# is one rxectl reads, and the scripts are shellcheck-clean and refuse bad arguments.
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

# obj KIND: the manifest's object of that kind, as JSON
obj() {
	/usr/bin/python3 -c 'import json, sys, yaml
print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == sys.argv[2]][0]))' \
		"$K8S/rxectl.yaml" "$1"
}

@test "kubectl reads every object of rxectl.yaml (client side, no server)" {
	run -0 kubectl annotate --local -f "$K8S/rxectl.yaml" checked=yes -o name
	[ "$output" = $'configmap/rxectl-config\ndaemonset.apps/rxectl' ]
}

@test "every field of rxectl.yaml is one of the Kubernetes API, of its type, with the required ones there" {
	run "$SCHEMA" "$K8S/rxectl.yaml"
	echo "$output"
	[ "$status" = 0 ] && [ -z "$output" ]
}

@test "the schema check fails on an unknown field, a wrong type and a missing required field" {
	sed -e 's/hostNetwork: true/hostNetwrok: true/' -e 's/periodSeconds: 30/periodSeconds: "30"/' \
	    -e 's/^        - name: rxectl$/        - image_: x/' "$K8S/rxectl.yaml" > "$BATS_TEST_TMPDIR/bad.yaml"
	run -1 "$SCHEMA" "$BATS_TEST_TMPDIR/bad.yaml"
	echo "$output"
	[[ "$output" == *"spec.template.spec.hostNetwrok: unknown field of V1PodSpec"* ]]
	[[ "$output" == *"readinessProbe.periodSeconds: must be int, not str ('30')"* ]]
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

@test "the DaemonSet mounts the node's /lib/modules, /dev/infiniband, the lock and the ConfigMap at /etc/rxe" {
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
	[ "$(host_of config)" = "$(obj ConfigMap | jq -r .metadata.name)" ]
	[ "$(jq -r '.spec.template.spec.containers[0].env[] | select(.name == "RXECTL_CONFIG") | .value' <<< "$ds")" = /etc/rxe/rxe.conf ]
}

@test "readiness is rxectl doctor, and the pod has time to delete its devices on SIGTERM" {
	ds=$(obj DaemonSet)
	[ "$(jq -c '.spec.template.spec.containers[0].readinessProbe.exec.command' <<< "$ds")" = '["rxectl","doctor"]' ]
	[ "$(jq -r .spec.template.spec.terminationGracePeriodSeconds <<< "$ds")" -ge 10 ]
	[ "$(jq -r '.spec.template.spec.containers[0].env[] | select(.name == "RXE_REMOVE_ON_EXIT") | .value' <<< "$ds")" = yes ]
}

@test "the ConfigMap's rxe.conf is a file rxectl reads, declaring eth0" {
	[ -x "$TOP/rxectl" ] || make -C "$TOP" -s rxectl
	obj ConfigMap | jq -r '.data["rxe.conf"]' > "$BATS_TEST_TMPDIR/rxe.conf"
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
