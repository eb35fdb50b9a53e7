#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The Ansible role contrib/ansible/roles/rxectl, run with Debian's ansible-core on the systemd
# guest itself (ansible-playbook -c local): it installs the rxectl package of `make deb`, picks the NIC
# by CIDR, declares it, passes the doctor gate; a second run changes nothing; `--tags teardown`
# disables the NIC and removes the package.  Tests run in order.
# Under TCG the first run takes ~500 s, the file ~15 min. Not run in a guest (each would be
# another install under TCG, past check-install's ~15 min): the doctor gate's failure path and the
# role on a pair with its rxectl ping.
#   make deb && tests/run-all tests/guest/systemd/pkg_ansible.bats

bats_require_minimum_version 1.5.0

load ../lib
load pkg_lib

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "not in the systemd test bed guest"
	setup_nic
	command -v ansible-playbook >/dev/null ||
		{ echo "ansible-playbook is missing: run scripts/setup-deps (ansible-core)" >&2; return 1; }
	DEB=$(ls "$TOP"/build/deb/rxectl_*_amd64.deb 2>/dev/null | tail -n1)
	[ -n "$DEB" ] || { echo "no package in $TOP/build/deb: run make deb" >&2; return 1; }
	export DEB PB="$TOP/contrib/ansible/playbook.yml" INV="$BATS_FILE_TMPDIR/inventory.ini"
	export ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP="$BATS_FILE_TMPDIR/ansible" ANSIBLE_HOME="$BATS_FILE_TMPDIR/ansible"
	cat > "$INV" <<I
[rxe]
guest ansible_connection=local ansible_python_interpreter=/usr/bin/python3
[rxe:vars]
rxectl_debs=["$DEB"]
rxectl_netdevs=[{"cidr": "192.0.2.0/24"}]
I
}

playbook() { ansible-playbook -i "$INV" "$PB" "$@"; }

recap() { # the "changed=N" of the play recap
	sed -n 's/^guest *:.* changed=\([0-9]*\).*/\1/p' <<< "$1"
}

devs_on() {
	rdma -j link show 2>/dev/null | jq -r --arg n "$1" '.[] | select(.netdev == $n) | "\(.ifname):\(.state)"'
}

@test "the first run installs rxectl, picks the NIC by CIDR, declares it and passes the doctor gate" {
	local t0=$SECONDS
	run playbook
	echo "$output"
	[ "$status" = 0 ]
	echo "# first run: $((SECONDS - t0)) s, changed=$(recap "$output")" >&3
	[ "$(recap "$output")" -gt 0 ]
	dpkg-query -W rxectl
	grep -qx "\\[$NIC\\]" /etc/rxe/rxe.conf
	[ "$(devs_on "$NIC")" = "rxe_$NIC:ACTIVE" ]
	[ "$(systemctl is-enabled rxe@$NIC.service)" = enabled ]
}

@test "a second run changes nothing (changed=0)" {
	run playbook
	echo "$output"
	[ "$status" = 0 ]
	echo "# second run: changed=$(recap "$output")" >&3
	[ "$(recap "$output")" = 0 ]
}

@test "--tags teardown disables the NIC (its device is deleted) and removes the package" {
	local t0=$SECONDS
	run playbook --tags teardown
	echo "$output"
	[ "$status" = 0 ]
	echo "# teardown run: $((SECONDS - t0)) s, changed=$(recap "$output")" >&3
	[ "$(recap "$output")" -gt 0 ]
	[ -z "$(devs_on "$NIC")" ]
	run systemctl is-enabled "rxe@$NIC.service"
	[ "$output" != enabled ]
	# removed, not purged (rxectl_teardown_packages: remove): rxe.conf stays, without the NIC
	[ "$(dpkg-query -W -f '${Status}' rxectl)" = "deinstall ok config-files" ]
	[ ! -e /usr/sbin/rxectl ]
	! grep -qx "\\[$NIC\\]" /etc/rxe/rxe.conf
}
