#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `make deb` (debian/): the two packages build, lintian finds no error (the warnings left are the
# ones debian/README.source explains), and each package holds what an operator needs.
#   tests/run-all tests/host/pkg_deb.bats      (about a minute: one package build)

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

@test "lintian reports no error, and no warning that README.source does not explain" {
	run lintian --pedantic -I -E "$DEB_DIR"/*.changes
	echo "$output"
	! grep -q '^E: ' <<< "$output"
	while read -r tag; do
		grep -q -- "$tag" "$TOP/debian/README.source" || { echo "unexplained: $tag"; false; }
	done < <(sed -n 's/^[WIX]: [^ ]*: \([^ ]*\).*/\1/p' <<< "$output" | sort -u)
}

@test "rxectl ships the command, the units, the udev rule as 90-rxe.rules and the man pages" {
	run -0 dpkg-deb -c "$RXECTL_DEB"
	for f in ./usr/sbin/rxectl ./lib/systemd/system/rxe@.service ./lib/systemd/system/rxe-monitor.service \
		 ./lib/systemd/system/rxe.target ./lib/udev/rules.d/90-rxe.rules \
		 ./usr/share/man/man8/rxectl.8.gz ./usr/share/man/man5/rxe.conf.5.gz \
		 ./usr/share/man/man8/rxe@.service.8.gz; do
		[[ "$output" == *" $f"* ]] || { echo "missing $f"; false; }
	done
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

@test "rxectl recommends rdma-core and ibverbs-providers and suggests rxe-dkms" {
	[ "$(dpkg-deb -f "$RXECTL_DEB" Recommends)" = "ibverbs-providers, rdma-core" ]
	[ "$(dpkg-deb -f "$RXECTL_DEB" Suggests)" = "rxe-dkms" ]
}

@test "the packaged rxectl reports the package's version" {
	ver=$(dpkg-deb -f "$RXECTL_DEB" Version)
	dpkg-deb -x "$RXECTL_DEB" "$BATS_TEST_TMPDIR/root"
	run -0 "$BATS_TEST_TMPDIR/root/usr/sbin/rxectl" --version
	[[ "$output" == *"${ver%%-*}"* ]]
}

@test "rxe-dkms holds the driver source for DKMS and depends on dkms" {
	run -0 dpkg-deb -c "$DKMS_DEB"
	dir=$(sed -n 's|.* \./usr/src/\(rdma_rxe-[^/]*\)/dkms.conf$|\1|p' <<< "$output")
	[ -n "$dir" ]
	for f in Kbuild Makefile rxe_main.c compat/compat.h; do
		[[ "$output" == *"./usr/src/$dir/$f"* ]] || { echo "missing $f"; false; }
	done
	[[ "$(dpkg-deb -f "$DKMS_DEB" Depends)" == *dkms* ]]
	dpkg-deb --ctrl-tarfile "$DKMS_DEB" | tar -xOf - ./postinst | grep -q 'common.postinst'
}

@test "driver/ is exactly what rxe-dkms ships (its tests live in tests/driver/)" {
	run -0 dpkg-deb -c "$DKMS_DEB"
	shipped=$(sed -n 's|^-.* \./usr/src/rdma_rxe-[^/]*/||p' <<< "$output" | sort)
	tree=$(git -C "$TOP/driver" ls-files --cached --others --exclude-standard | sort)
	diff <(echo "$tree") <(echo "$shipped")
}
