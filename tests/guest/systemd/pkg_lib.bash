# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the package tests in systemd guests (tests/guest/systemd/pkg_*.bats and
# tests/guest/systemd/pair/pkg_*.bats; load with `load pkg_lib` or `load ../pkg_lib`).

# The bed's NIC: systemd guests boot with net.ifnames=0, so it is eth0 and guest-run has given it
# this guest's address (tests/vm/guest-run). Found as the netdev with a PCI device all the same
# (so a bed or machine that names NICs ens5 and the like works too), brought up and addressed
# only where it is not already. Sets and exports NIC.
setup_nic() {
	udevadm settle
	local d
	for d in /sys/class/net/*/device; do NIC=$(basename "$(dirname "$d")"); break; done
	[ -n "${NIC:-}" ] || { echo "the guest has no NIC" >&2; return 1; }
	ip link set "$NIC" up
	ip -4 addr show dev "$NIC" | grep -q "inet $VM_SELF_IP/" || ip addr add "$VM_SELF_IP/24" dev "$NIC"
	export NIC
}

# The guest has no network, so apt's package lists (the build machine's, ~63,000 packages, parsed
# again at every apt start where apt keeps no pkgcache.bin, as in Debian's container images) are
# of no use and cost each apt run tens of seconds under TCG (a minute for python-apt, Ansible's apt
# module): point the guest's apt (its own overlay of /etc) at no sources, so it sees the installed
# packages only. The packages' dependencies are installed; a missing one fails the install, as it
# would without a network anyway.
no_apt_lists() {
	mkdir -p /etc/apt/rxe-test-no-sources.d
	printf 'Dir::Etc::SourceList "/dev/null";\nDir::Etc::SourceParts "/etc/apt/rxe-test-no-sources.d";\n' \
		> /etc/apt/apt.conf.d/99rxe-test-no-lists
}
