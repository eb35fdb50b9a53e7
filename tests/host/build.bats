#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The Makefile as a packager uses it: CFLAGS from the command line, install/uninstall with
# DESTDIR, dist, the version, pkg-config errors; and the bash completion it installs.

bats_require_minimum_version 1.5.0

setup() {
	TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
	RXECTL="$TOP/rxectl"
	[ -x "$RXECTL" ] || skip "build rxectl first (make)"
}

@test "--version is VERSION plus +g<commit> in a git checkout" {
	run -0 "$RXECTL" --version
	[[ "$output" =~ ^rxectl\ [0-9]+\.[0-9]+\.[0-9]+\+g[0-9a-f]{7,}$ ]]
	[[ "$output" == "rxectl $(cat "$TOP/VERSION")+g"* ]]
}

@test "VERSION, the Debian packages' version and the DKMS module's version are one release" {
	local v deb dkms
	v=$(cat "$TOP/VERSION")
	deb=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
	# dkms.conf holds #MODULE_VERSION#, which dkms-install (and dh_dkms -V) fill in
	grep -qx 'PACKAGE_VERSION="#MODULE_VERSION#"' "$TOP/driver/dkms.conf"
	dkms=$(make -s -C "$TOP/driver" version)
	make -s -C "$TOP/driver" dkms-install DESTDIR="$BATS_TEST_TMPDIR/root"
	echo "VERSION $v, debian/changelog $deb, driver $dkms"
	[ "${deb%%-*}" = "$v" ]
	[ "$dkms" = "$v" ]
	grep -qx "PACKAGE_VERSION=\"$v\"" "$BATS_TEST_TMPDIR/root/usr/src/rdma_rxe-$v/dkms.conf"
}

@test "make names a missing library instead of silencing pkg-config" {
	run -2 make -C "$TOP" -n rxectl LIBS_PC="libmnl no-such-lib-rxectl"
	[[ "$output" == *"cannot find the libraries rxectl needs"*"no-such-lib-rxectl"* ]]
	[[ "$output" == *"scripts/setup-deps"* ]]
}

@test "make install puts the files in place, and make uninstall removes them all but rxe.conf" {
	dest="$BATS_TEST_TMPDIR/root"
	run -0 make -C "$TOP" install DESTDIR="$dest" BASHCOMPDIR=/usr/share/bash-completion/completions
	[ -x "$dest/usr/sbin/rxectl" ]
	[ -f "$dest/usr/share/man/man8/rxectl.8" ]
	[ -f "$dest/usr/share/man/man5/rxe.conf.5" ]
	[ -f "$dest/usr/share/bash-completion/completions/rxectl" ]
	run -0 make -C "$TOP" uninstall DESTDIR="$dest" BASHCOMPDIR=/usr/share/bash-completion/completions
	left=$(cd "$dest" && find . -type f | sort)
	[ "$left" = "./etc/rxe/rxe.conf" ] || { echo "left behind: $left"; false; }
}

@test "make dist makes a versioned tarball that builds with the user's CFLAGS and knows its version" {
	command -v git >/dev/null || skip "no git"
	version="$(cat "$TOP/VERSION")+g$(git -C "$TOP" rev-parse --short HEAD)"
	work="$BATS_TEST_TMPDIR/dist"
	mkdir -p "$work"
	# dist archives the committed tree (HEAD)
	run -0 make -C "$TOP" dist DISTDIR="$work"
	[ -f "$work/rxectl-$version.tar.gz" ]
	tar -C "$work" -xzf "$work/rxectl-$version.tar.gz"
	[ "$(cat "$work/rxectl-$version/VERSION")" = "$version" ]
	[ ! -e "$work/rxectl-$version/.git" ]
	# required flags survive CFLAGS from the command line
	run -0 make -C "$work/rxectl-$version" -j2 rxectl CFLAGS="-O0 -g0"
	run -0 "$work/rxectl-$version/rxectl" --version
	[ "$output" = "rxectl $version" ]
}

@test "two makes of one tree at once both succeed (CI runs check-install beside check-kernels)" {
	command -v git >/dev/null || skip "no git"
	work="$BATS_TEST_TMPDIR/two"
	mkdir -p "$work"
	git -C "$TOP" archive --format=tar HEAD | tar -x -C "$work"
	run -0 make -C "$work" -s -j2 rxectl CFLAGS="-O0 -g0"
	# Up to date, each make still regenerates cli/version.h (FORCE): its temporary file must not
	# be the other's. With one shared name 7 of 80 makes failed here ("mv: cannot stat").
	local i p1 p2 failed=0
	for i in $(seq 20); do
		make -C "$work" -s rxectl CFLAGS="-O0 -g0" > "$work/m1.log" 2>&1 & p1=$!
		make -C "$work" -s rxectl CFLAGS="-O0 -g0" > "$work/m2.log" 2>&1 & p2=$!
		wait "$p1" || { failed=$((failed + 1)); cat "$work/m1.log"; }
		wait "$p2" || { failed=$((failed + 1)); cat "$work/m2.log"; }
	done
	echo "failed makes: $failed of 40"
	[ "$failed" -eq 0 ]
	run -0 find "$work/cli" -name 'version.h.tmp*'
	[ -z "$output" ]
}

# complete WORDS...: the completions bash offers for the last word.
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rxectl
		 printf "%s\n" "${COMPREPLY[@]}"' _ "$TOP/completion/rxectl.bash" "$@"
}

@test "completion: commands, then a command's options from its --help" {
	run -0 complete_words "$RXECTL" sta
	[ "$(sort <<< "$output" | tr '\n' ' ')" = "stats status " ]
	run -0 complete_words "$RXECTL" ""
	# every command of the table, as --help lists it
	cmds=$("$RXECTL" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
	[ "$(wc -w <<< "$cmds")" -ge 16 ]
	[ "$(sort <<< "$output")" = "$(sort <<< "$cmds")" ]
	run -0 complete_words "$RXECTL" up --
	[ "$(sort <<< "$output" | tr '\n' ' ')" = "--config --help --json --name --verbose --wait " ]
	run -0 complete_words "$RXECTL" ping --c
	[ "$(sort <<< "$output" | tr '\n' ' ')" = "--config --count " ]
}

@test "completion: netdevs after up, netdevs and RDMA devices after down, files after -c" {
	run -0 complete_words "$RXECTL" -c /tmp/x up l
	grep -qx lo <<< "$output"
	run -0 complete_words "$RXECTL" down l
	grep -qx lo <<< "$output"
	touch "$BATS_TEST_TMPDIR/my.conf"
	run -0 complete_words "$RXECTL" status -c "$BATS_TEST_TMPDIR/my"
	[ "$output" = "$BATS_TEST_TMPDIR/my.conf" ]
	run -0 complete_words "$RXECTL" up lo --wait ""
	[ -z "$output" ]
	run -0 complete_words "$RXECTL" tune l
	grep -qx lo <<< "$output"
	run -0 complete_words "$RXECTL" stats --watch ""
	[ -z "$output" ]
	run -0 complete_words "$RXECTL" -c "$BATS_TEST_TMPDIR/my.conf" stats --watch 1 l
	grep -qx lo <<< "$output"
}

@test "completion: the words of debug and driver" {
	run -0 complete_words "$RXECTL" debug ""
	[ "$(sort <<< "$output" | tr '\n' ' ')" = "off on status " ]
	run -0 complete_words "$RXECTL" driver ""
	[ "$(sort <<< "$output" | tr '\n' ' ')" = "status use " ]
	run -0 complete_words "$RXECTL" driver use ""
	[ "$(sort <<< "$output" | tr '\n' ' ')" = "auto bundled kernel " ]
	run -0 complete_words "$RXECTL" --json driver use kernel ""
	[ -z "$output" ]
}

@test "make install puts the completion where pkg-config's bash-completion says, and installs every file once" {
	# a pkg-config that knows bash-completion's directory, and an install(1) that logs
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat > "$BATS_TEST_TMPDIR/bin/pkg-config" <<-'EOF'
	#!/bin/sh
	[ "$*" = "--variable=completionsdir bash-completion" ] && { echo /opt/bashcomp; exit 0; }
	exec /usr/bin/pkg-config "$@"
	EOF
	cat > "$BATS_TEST_TMPDIR/bin/install" <<-EOF
	#!/bin/sh
	for a; do last=\$a; done
	echo "\$last" >> "$BATS_TEST_TMPDIR/installed"
	exec /usr/bin/install "\$@"
	EOF
	chmod +x "$BATS_TEST_TMPDIR/bin/pkg-config" "$BATS_TEST_TMPDIR/bin/install"
	dest="$BATS_TEST_TMPDIR/root"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run -0 make -C "$TOP" -o rxectl install DESTDIR="$dest" \
		PKG_CONFIG="$BATS_TEST_TMPDIR/bin/pkg-config"
	[ -f "$dest/opt/bashcomp/rxectl" ]
	grep -q 'man8/rxectl.8$' "$BATS_TEST_TMPDIR/installed"
	grep -q 'man5/rxe.conf.5$' "$BATS_TEST_TMPDIR/installed"
	twice=$(sort "$BATS_TEST_TMPDIR/installed" | uniq -d)
	[ -z "$twice" ] || { echo "installed more than once: $twice"; false; }
}

@test "debian/control builds against exactly the libraries the Makefile links (no leftover -dev)" {
	command -v dpkg > /dev/null || skip "needs dpkg"
	libs=$(sed -n 's/^LIBS_PC := //p' "$TOP/Makefile")
	[ -n "$libs" ]
	want=()
	for lib in $libs; do
		pc="$(pkg-config --variable=pcfiledir "$lib")/$lib.pc"
		pkg=$(dpkg -S "$pc" | cut -d: -f1)
		[ -n "$pkg" ] || { echo "no package owns $pc"; false; }
		want+=("$pkg")
	done
	have=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$TOP/debian/control" | grep -o 'lib[a-z0-9.+-]*-dev' | sort -u)
	printf '%s\n' "${want[@]}" | sort -u > "$BATS_TEST_TMPDIR/want"
	echo "$have" > "$BATS_TEST_TMPDIR/have"
	diff -u "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/have"
}

@test "the man pages hold no control characters (a \\f written unescaped is a form feed)" {
	run grep -nP '[\x00-\x08\x0b-\x1f]' "$TOP"/man/*.[0-9]
	[ "$status" = 1 ] || { echo "$output"; false; }
}

@test "make -j2 clean all builds (clean does not race the compile and link of all)" {
	command -v git >/dev/null || skip "no git"
	work="$BATS_TEST_TMPDIR/clean"
	mkdir -p "$work"
	git -C "$TOP" ls-files -z --cached --others --exclude-standard |
		tar --null -T - -C "$TOP" --ignore-failed-read -cf - 2>/dev/null | tar -x -C "$work"
	run -0 make -C "$work" -s -j2 rxectl CFLAGS="-O0 -g0"
	# A slow rm makes the race certain: run in parallel, `all` finds the objects up to date and
	# links while clean waits, then clean deletes everything: make succeeds, and no rxectl.
	run -0 make -C "$work" -s -j2 clean all CFLAGS="-O0 -g0" RM='sh -c "sleep 2; rm -f \"\$@\"" rm'
	[ -x "$work/rxectl" ]
	run -0 "$work/rxectl" --version
}
