#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `make deb` (debian/): the two packages build, lintian finds no error and no warning (the tags
# that stay are overridden, with the reason, in debian/rxectl.lintian-overrides), each package
# holds what an operator needs, an upgrade stops no device (issue 40), and `make deb-src` builds
# the source package with its autopkgtest.
#   tests/run-all tests/host/pkg_deb.bats      (about two minutes: one package build)

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export TOP DEB_DIR="$BATS_FILE_TMPDIR/deb"
	command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null ||
		{ echo "dpkg-buildpackage or dh_dkms missing: run scripts/setup-deps" >&2; return 1; }
	make -C "$TOP" -s deb DEB_DIR="$DEB_DIR" >/dev/null
	RXECTL_DEB=$(ls "$DEB_DIR"/rxectl_*_amd64.deb)
	DKMS_DEB=$(ls "$DEB_DIR"/rxe-dkms_*_all.deb)
	export RXECTL_DEB DKMS_DEB
}

@test "make deb builds rxectl and rxe-dkms and leaves the checkout clean" {
	[ -f "$RXECTL_DEB" ] && [ -f "$DKMS_DEB" ]
	# no build product (debian/rxectl/, debian/files, *.debhelper ...) next to the sources
	run -0 git -C "$TOP" ls-files --others -- debian
	[ -z "$output" ]
}

@test "lintian reports no error and no warning, and every override is used" {
	run lintian --pedantic -I -E --show-overrides "$DEB_DIR"/*.changes
	echo "$output"
	! grep -q '^[EW]: ' <<< "$output"
	! grep -Eq 'unused-override|mismatched-override' <<< "$output"
	# what stays is overridden, with a reason in the overrides file
	[ "$(grep -c '^O: ' <<< "$output")" -ge 1 ]
	! grep -q '^lintian' "$TOP/debian/README.source"	# the reasons are in the overrides file
}

@test "rxectl ships the command, the units and the udev rule where pkg-config says, and the man pages" {
	run -0 dpkg-deb -c "$RXECTL_DEB"
	local units udev
	units=$(pkg-config --variable=systemdsystemunitdir systemd)
	udev=$(pkg-config --variable=udevdir udev)
	[ -n "$units" ] && [ -n "$udev" ]
	for f in ./usr/sbin/rxectl ."$units"/rxe@.service ."$units"/rxe-monitor.service \
		 ."$units"/rxe.target ."$udev"/rules.d/90-rxe.rules \
		 ./usr/share/man/man8/rxectl.8.gz ./usr/share/man/man5/rxe.conf.5.gz \
		 ./usr/share/man/man8/rxe@.service.8.gz; do
		[[ "$output" == *" $f"* ]] || { echo "missing $f"; false; }
	done
	# the udev rule is udev/90-rxe.rules, its one source
	[ -z "$(ls "$TOP"/debian/*.udev 2>/dev/null)" ]
	dpkg-deb --fsys-tarfile "$RXECTL_DEB" | tar -xOf - ."$udev"/rules.d/90-rxe.rules |
		cmp - "$TOP/udev/90-rxe.rules"
}

# Issue 40: an upgrade never stops rxe.target (each rxe@ is PartOf= it: stopping it deletes every
# device) nor an rxe@ instance; it try-restarts the monitor. The lifecycle guest test upgrades.
@test "rxectl's maintainer scripts stop nothing on upgrade but try-restart the monitor" {
	local c="$BATS_TEST_TMPDIR/ctl"
	dpkg-deb -e "$RXECTL_DEB" "$c"
	! grep -q 'deb-systemd-invoke stop' "$c/preinst" 2>/dev/null
	grep -q "deb-systemd-invoke try-restart 'rxe-monitor.service'" "$c/postinst"
	! grep -Eq "deb-systemd-invoke (restart|try-restart|stop) .*rxe(\.target|@)" "$c/postinst"
	# the only stop is prerm's, on remove
	run -0 grep -n 'deb-systemd-invoke stop' "$c/prerm"
	awk '/deb-systemd-invoke stop/ && !seen { exit !inremove } /"\$1" = remove/ { inremove = 1 }' "$c/prerm"
}

@test "rxe-dkms's postinst says a loaded rdma_rxe stays in use and the new module comes at its next load" {
	local c="$BATS_TEST_TMPDIR/ctl"
	dpkg-deb -e "$DKMS_DEB" "$c"
	run -0 grep -n 'common.postinst\|stays in use\|from its next load' "$c/postinst"
	echo "$output"
	# after DKMS's own part
	[ "$(sed -n 1p <<< "$output" | grep -c common.postinst)" = 1 ]
	[[ "$output" == *"not unloaded under running RDMA devices and QPs"* ]]
	sh -n "$c/postinst"
	! grep -q 'rmmod\|modprobe -r rdma_rxe *$\|modprobe -r rdma_rxe;' "$c/postinst"
}

@test "every file of etc/ is a conffile of rxectl" {
	run -0 dpkg-deb -f "$RXECTL_DEB" Package
	conffiles=$(dpkg-deb --ctrl-tarfile "$RXECTL_DEB" | tar -xOf - ./conffiles)
	echo "$conffiles"
	(cd "$TOP/etc" && find . -type f) | while read -r f; do
		case "$f" in ./rxe.conf) want=/etc/rxe/rxe.conf ;; *) want=/etc/${f#./} ;; esac
		grep -qx "$want" <<< "$conffiles" || { echo "not a conffile: $want"; exit 1; }
	done
}

@test "rxectl recommends rdma-core and ibverbs-providers and suggests rxe-dkms and what rxe-ci runs" {
	[ "$(dpkg-deb -f "$RXECTL_DEB" Recommends)" = "ibverbs-providers, rdma-core" ]
	[ "$(dpkg-deb -f "$RXECTL_DEB" Suggests)" = "rxe-dkms, qemu-system-x86, busybox-static, cpio, jq, python3" ]
}

# Issue 42: rxe-ci, its man page and the test bed it runs, in /usr/lib/rxectl/vm where the
# packaged rxe-ci looks; the guest runs are tests/bed/rxe_ci.bats (from the checkout).
@test "rxectl ships rxe-ci, its man page and the test bed's scripts it runs in /usr/lib/rxectl/vm" {
	root=$BATS_TEST_TMPDIR/root
	dpkg-deb -x "$RXECTL_DEB" "$root"
	[ -x "$root/usr/bin/rxe-ci" ] && [ -f "$root/usr/share/man/man1/rxe-ci.1.gz" ]
	# each bed file rxe-ci, vm-run and prepare use, as in the checkout (vm-common sourced: 0644)
	for f in vm-run prepare kernel-row default-kver guest-init guest-run initramfs-init \
		systemd-setup ci-guest debug-kernel; do
		[ -x "$root/usr/lib/rxectl/vm/$f" ] || { echo "missing or not executable: $f"; false; }
		cmp "$root/usr/lib/rxectl/vm/$f" "$TOP/tests/vm/$f"
	done
	for f in vm-common rows kernel-log-bad debug-kernel.config; do cmp "$root/usr/lib/rxectl/vm/$f" "$TOP/tests/vm/$f"; done
	# every file the bed scripts name beside themselves ($here/NAME) is shipped
	run -0 grep -ohE '\$here/[a-z-]+' "$root"/usr/lib/rxectl/vm/*
	for f in $(sed 's|\$here/||' <<< "$output" | sort -u); do
		[ -e "$root/usr/lib/rxectl/vm/$f" ] || { echo "the bed names $f, not shipped"; false; }
	done
	# the packaged rxe-ci looks for the bed and rxectl where the package puts them
	grep -qx '	bed=/usr/lib/rxectl/vm' "$root/usr/bin/rxe-ci"
	grep -q 'echo /usr/sbin/rxectl)$' "$root/usr/bin/rxe-ci"
	# and runs from there: --help, and a usage error before any guest
	run -0 env -u RXE_CI_BED "$root/usr/bin/rxe-ci" --help
	[[ "${lines[0]}" == "Usage: rxe-ci "* ]]
	RXE_CI_BED=$root/usr/lib/rxectl/vm RXE_CI_RXECTL=$root/usr/sbin/rxectl \
		run -2 "$root/usr/bin/rxe-ci" --kernel nosuch -- true
	[[ "$output" == *"'nosuch' is not a test bed row"* ]]
}

@test "the packaged rxectl reports the package's version" {
	ver=$(dpkg-deb -f "$RXECTL_DEB" Version)
	dpkg-deb -x "$RXECTL_DEB" "$BATS_TEST_TMPDIR/root"
	run -0 "$BATS_TEST_TMPDIR/root/usr/sbin/rxectl" --version
	[[ "$output" == *"${ver%%-*}"* ]]
}

@test "rxe-dkms holds the driver source for DKMS, at the package's version, and depends on dkms" {
	run -0 dpkg-deb -c "$DKMS_DEB"
	dir=$(sed -n 's|.* \./usr/src/\(rdma_rxe-[^/]*\)/dkms.conf$|\1|p' <<< "$output")
	ver=$(dpkg-deb -f "$DKMS_DEB" Version)
	[ "$dir" = "rdma_rxe-${ver%%-*}" ]
	for f in Kbuild Makefile rxe_main.c compat/compat.h; do
		[[ "$output" == *"./usr/src/$dir/$f"* ]] || { echo "missing $f"; false; }
	done
	# dh_dkms -V filled in #MODULE_VERSION#
	run -0 sh -c "dpkg-deb --fsys-tarfile '$DKMS_DEB' | tar -xOf - ./usr/src/$dir/dkms.conf"
	grep -qx "PACKAGE_VERSION=\"${ver%%-*}\"" <<< "$output"
	! grep -q '#MODULE_VERSION#' <<< "$output"
	[[ "$(dpkg-deb -f "$DKMS_DEB" Depends)" == *dkms* ]]
	dpkg-deb --ctrl-tarfile "$DKMS_DEB" | tar -xOf - ./postinst | grep -q 'common.postinst'
}

@test "driver/ is exactly what rxe-dkms ships (its tests live in tests/driver/)" {
	run -0 dpkg-deb -c "$DKMS_DEB"
	shipped=$(sed -n 's|^-.* \./usr/src/rdma_rxe-[^/]*/||p' <<< "$output" | sort)
	tree=$(git -C "$TOP/driver" ls-files --cached --others --exclude-standard | sort)
	diff <(echo "$tree") <(echo "$shipped")
}

@test "make deb-src builds the source package, with its autopkgtest, that dpkg-source unpacks and lintian passes" {
	local d="$BATS_FILE_TMPDIR/src"
	make -C "$TOP" -s deb-src DEB_DIR="$d" >/dev/null
	dsc=$(ls "$d"/rxectl_*.dsc)
	grep -qx 'Testsuite: autopkgtest, autopkgtest-pkg-dkms' "$dsc"
	grep -qx 'Format: 3.0 (native)' "$dsc"
	dpkg-source -x "$dsc" "$BATS_TEST_TMPDIR/x" >/dev/null
	# the tree, without build products
	[ -x "$BATS_TEST_TMPDIR/x/debian/tests/smoke" ] && [ -x "$BATS_TEST_TMPDIR/x/debian/tests/device" ]
	[ ! -e "$BATS_TEST_TMPDIR/x/rxectl" ] && [ ! -e "$BATS_TEST_TMPDIR/x/build" ]
	[ -z "$(find "$BATS_TEST_TMPDIR/x" -name '*.o' -o -name '*.ko')" ]
	# debian/tests/control names both tests, each with its script
	[ "$(sed -n 's/^Tests: //p' "$TOP/debian/tests/control" | tr '\n' ' ')" = "smoke device " ]
	run lintian --pedantic -I -E "$d"/rxectl_*_source.changes
	echo "$output"
	! grep -q '^[EW]: ' <<< "$output"
}

# Issue 40: a Secure Boot host refuses a module built here until DKMS's key is enrolled.
@test "rxe-dkms's README.Debian explains Secure Boot: DKMS's key, mokutil, MokManager, the kernel's own rdma_rxe" {
	dpkg-deb --fsys-tarfile "$DKMS_DEB" | tar -xOf - ./usr/share/doc/rxe-dkms/README.Debian > "$BATS_TEST_TMPDIR/r"
	cmp "$BATS_TEST_TMPDIR/r" "$TOP/debian/rxe-dkms.README.Debian"
	for s in 'Secure Boot' /var/lib/dkms/mok.key 'mokutil --import /var/lib/dkms/mok.pub' MokManager \
		 'DKMS module signing key' 'rxectl driver use kernel' driver.signature; do
		grep -qF -- "$s" "$BATS_TEST_TMPDIR/r" || { echo "README.Debian does not say '$s'"; false; }
	done
}
