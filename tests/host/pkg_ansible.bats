#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# contrib/ansible on the host: ansible-lint is clean, the playbook parses, and the role's netdev
# picker (library/rxe_netdevs.py) selects this machine's netdevs by name, MAC and CIDR and says
# what is wrong with a bad selector.  Read-only; the role's full run is pkg_ansible.bats (guest).
#   tests/run-all tests/host/pkg_ansible.bats

bats_require_minimum_version 1.5.0

setup_file() {
	command -v ansible >/dev/null || { echo "ansible is missing: run scripts/setup-deps (ansible-core)" >&2; return 1; }
	export ANSIBLE_NOCOLOR=1 ANSIBLE_HOME="$BATS_FILE_TMPDIR/ansible" ANSIBLE_LOCAL_TEMP="$BATS_FILE_TMPDIR/ansible"
	export ANS="$BATS_TEST_DIRNAME/../../contrib/ansible"
	export ANSIBLE_LIBRARY="$ANS/roles/rxectl/library"
}

pick() { # JSON list of selectors -> the module's JSON result, and ansible's exit status
	set -o pipefail
	ansible localhost -c local -o -m rxe_netdevs -a "{\"select\": $1}" 2>&1 | sed 's/^[^{]*//'
}

# The first netdev of this machine other than lo, with its MAC and its first IPv4 address.
first_netdev() {
	for d in /sys/class/net/*; do
		[ "${d##*/}" = lo ] || { echo "${d##*/}"; return; }
	done
}

@test "ansible-lint (production profile) finds nothing in the role and the sample playbook" {
	command -v ansible-lint >/dev/null || skip "ansible-lint is not installed (Debian package ansible-lint)"
	cd "$ANS"
	run env NO_COLOR=1 ansible-lint --profile production -p playbook.yml roles/rxectl
	echo "$output"
	[ "$status" = 0 ]
	[[ "$(sed 's/\x1b\[[0-9;]*m//g; s/\x1b\][^\\]*\\//g' <<< "$output")" == *" 0 failure(s), 0 warning(s) "* ]]
}

@test "the sample playbook and inventory parse" {
	run -0 ansible-playbook -i "$ANS/inventory.ini" "$ANS/playbook.yml" --syntax-check
}

@test "a netdev is picked by name, by MAC and by CIDR, once even when two selectors match" {
	nd=$(first_netdev)
	[ -n "$nd" ] || skip "this machine has no netdev besides lo"
	mac=$(cat "/sys/class/net/$nd/address" | tr a-f A-F)
	run -0 pick "[{\"name\": \"$nd\"}, {\"mac\": \"$mac\", \"mtu\": 9000}]"
	echo "$output"
	[ "$(jq -r '.netdevs | map(.name) | join(",")' <<< "$output")" = "$nd" ]
	[ "$(jq -r '.netdevs[0].selector' <<< "$output")" = "name=$nd" ]
	addr=$(ip -j -4 addr show dev "$nd" | jq -r '.[0].addr_info[0] | "\(.local)/\(.prefixlen)"')
	[ "$addr" != "null/null" ] || skip "$nd has no IPv4 address for the CIDR case"
	run -0 pick "[{\"cidr\": \"$addr\"}]"
	echo "$output"
	[[ "$(jq -r '.netdevs | map(.name) | join(",")' <<< "$output")" == *"$nd"* ]]
	[ "$(jq -r '.changed' <<< "$output")" = false ]
}

@test "a selector that matches nothing fails and lists the netdevs there are" {
	run pick '[{"cidr": "203.0.113.0/24"}]'
	echo "$output"
	[ "$status" != 0 ]
	[[ "$output" == *"no netdev on this host has cidr 203.0.113.0/24 (netdevs: "* ]]
	[[ "$output" != *"netdevs: lo"* ]]
}

@test "a selector with two keys, none, a bad CIDR or no mapping is refused with the reason" {
	run pick '[{"name": "eth0", "mac": "02:00:00:00:00:01"}]'
	[ "$status" != 0 ]
	[[ "$output" == *"needs exactly one of name, mac, cidr"* ]]
	run pick '[{"mtu": 9000}]'
	[[ "$output" == *"needs exactly one of name, mac, cidr"* ]]
	run pick '[{"cidr": "192.0.2.0/33"}]'
	[[ "$output" == *"'192.0.2.0/33' does not appear to be an IPv4 or IPv6 network"* ]]
	run pick '["eth0"]'
	[[ "$output" == *"is not a mapping such as {name: eth0}"* ]]
}

# The role's gate task on its own (--start-at-task), on this machine, fed a registered doctor
# result: nothing before it runs, and the tasks after it (the pair ping) have nothing to do.
gate() { # doctor JSON of netdev eth0
	local pb="$BATS_TEST_TMPDIR/gate.yml"
	cat > "$pb" <<Y
- name: The doctor gate alone
  hosts: localhost
  gather_facts: false
  vars:
    rxectl_netdevs: [{name: eth0}]
    rxectl_doctor: {results: [{item: {name: eth0}, rc: 1, stdout: '$1'}]}
  roles:
    - role: rxectl
Y
	ANSIBLE_ROLES_PATH="$ANS/roles" ansible-playbook -c local -i localhost, "$pb" \
		--start-at-task "Fail the host on failing doctor checks (id, target, fix)" 2>&1
}

@test "the doctor gate fails the host with one line per failing check: id, target, summary, fix" {
	run gate '{"checks": [{"id": "kernel.module", "status": "pass", "target": null, "summary": "ok", "fix": null},
		{"id": "firewall.udp4791", "status": "fail", "target": null, "summary": "a rule drops UDP 4791.", "fix": "delete it with `nft delete rule inet f input handle 2`."},
		{"id": "netdev.up", "status": "fail", "target": "eth0", "summary": "eth0 is down.", "fix": "ip link set eth0 up"},
		{"id": "mtu.active", "status": "warn", "target": "eth0", "summary": "MTU 1024.", "fix": "ip link set eth0 mtu 9000"}],
		"result": "fail"}'
	echo "$output"
	[ "$status" = 2 ]
	line=$(grep '^fatal: \[localhost\]: FAILED!' <<< "$output")
	[ "$(sed 's/^[^{]*//' <<< "$line" | jq -c .msg)" = '["rxectl doctor eth0: [firewall.udp4791] a rule drops UDP 4791. fix: delete it with `nft delete rule inet f input handle 2`.","rxectl doctor eth0: [netdev.up (eth0)] eth0 is down. fix: ip link set eth0 up"]' ]
}

@test "warnings pass the doctor gate" {
	run gate '{"checks": [{"id": "mtu.active", "status": "warn", "target": "eth0", "summary": "MTU 1024.", "fix": "ip link set eth0 mtu 9000"}], "result": "warn"}'
	echo "$output"
	[ "$status" = 0 ]
	grep -A1 "TASK \[rxectl : Fail the host on failing doctor checks" <<< "$output" | grep -q "skipping: \[localhost\]"
}

# meta/argument_specs.yml (issue 40): Ansible checks the role's variables before any task, so a
# misspelt value fails the host instead of being ignored. Only the check runs here: the play is
# limited to a tag no task has (the check is tagged always).
validate() { # extra vars (JSON) -> ansible-playbook's output and status
	printf -- '- hosts: localhost\n  gather_facts: false\n  roles: [rxectl]\n' > "$BATS_TEST_TMPDIR/p.yml"
	ANSIBLE_ROLES_PATH="$ANS/roles" ANSIBLE_LOCALHOST_WARNING=false \
		ansible-playbook -c local -i localhost, "$BATS_TEST_TMPDIR/p.yml" --tags rxe-check-only -e "$1" 2>&1
}

@test "the role's argument spec refuses a misspelt choice and wrong types, and takes the defaults" {
	run -2 validate '{"rxectl_teardown_packages": "purg"}'
	[[ "$output" == *"value of rxectl_teardown_packages must be one of: keep, remove, purge, got: purg"* ]]
	run -2 validate '{"rxectl_netdevs": [{"name": "eth0", "mtu": "big"}]}'
	[[ "$output" == *"argument 'mtu' is of type"*"cannot be converted to an int"* ]]
	run -2 validate '{"rxectl_dkms": "sometimes"}'
	[[ "$output" == *"rxectl_dkms"* ]]
	run -0 validate '{"rxectl_netdevs": [{"cidr": "192.0.2.0/24"}], "rxectl_ping_window": "1200"}'
	[[ "$output" == *"ok=1 "*"failed=0"* ]]
	# every variable of defaults/main.yml is in the spec, with the same default
	run -0 /usr/bin/python3 -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1])); s = yaml.safe_load(open(sys.argv[2]))["argument_specs"]["main"]["options"]
bad = [k for k in d if k not in s or s[k].get("default") != d[k]] + [k for k in s if k not in d]
print(bad); sys.exit(1 if bad else 0)' "$ANS/roles/rxectl/defaults/main.yml" "$ANS/roles/rxectl/meta/argument_specs.yml"
}
