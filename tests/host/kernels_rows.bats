#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The test bed's kernel rows on the host: row names, the mirror taken from the host's apt sources
# (one-line and deb822), and bad input (unknown rows, kernels without headers) with exit 2.

bats_require_minimum_version 1.5.0

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	KR=$TOP/tests/vm/kernel-row
	A=$BATS_TEST_TMPDIR/apt
	mkdir -p "$A/sources.list.d"
	export RXE_VM_HOST_APT=$A
	CODENAME=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
}

@test "list names the five rows, the default first with the default kernel" {
	run "$KR" list
	[ "$status" = 0 ]
	[ "$(echo "$output" | awk '{ print $1 }' | tr '\n' ' ')" = "6.1 6.1-cloud 6.12 6.12-cloud newest " ]
	[ "$(echo "$output" | head -n1 | awk '{ print $2 }')" = "$("$TOP/tests/vm/default-kver")" ]
	[ "$(echo "$output" | awk '$1 == "6.1-cloud" || $1 == "6.12-cloud" { print $3 }' | sort -u)" = no ]
}

@test "the mirror comes from a deb822 .sources file, the security one too" {
	cat > "$A/sources.list.d/debian.sources" <<S
Types: deb
URIs: http://mirror.example/debian
Suites: $CODENAME $CODENAME-updates
Components: main

Types: deb
URIs: http://security.example/debian-security
Suites: $CODENAME-security
Components: main
S
	run "$KR" mirrors
	[ "$status" = 0 ]
	[ "$output" = "http://mirror.example/debian http://security.example/debian-security" ]
}

@test "the mirror comes from a one-line sources.list with options; deb-src is ignored" {
	cat > "$A/sources.list" <<S
deb-src http://src.example/debian $CODENAME main
deb [arch=amd64 signed-by=/x.gpg] http://one.example/debian $CODENAME main
S
	run "$KR" mirrors
	[ "$status" = 0 ]
	[ "$output" = "http://one.example/debian -" ]
}

@test "no Debian mirror in the host's apt sources is an error that says where it looked" {
	echo "deb http://other.example/x nodistro main" > "$A/sources.list"
	run "$KR" mirrors
	[ "$status" = 1 ]
	[[ "$output" == *"cannot find a Debian mirror for $CODENAME in $A/sources.list"* ]]
}

@test "an unknown row is bad input (exit 2) that names the rows" {
	run "$KR" stock-rxe no-such-row
	[ "$status" = 2 ]
	[[ "$output" == *"'no-such-row' is not a test bed row; rows: 6.1 6.1-cloud 6.12 6.12-cloud newest"* ]]
	RXE_VM_KERNEL=no-such-row run "$TOP/tests/vm/vm-run" -- true
	[ "$status" = 2 ]
}

@test "make driver for a kernel without headers is bad input (exit 2) that says what to do" {
	run make -s -C "$TOP" driver KVER=0.0.0-nothing
	[ "$status" = 2 ]
	[[ "$output" == *"no headers for 0.0.0-nothing (a row name from tests/vm/rows, or install linux-headers-0.0.0-nothing)"* ]]
}

@test "check-kernels refuses an unknown row before it downloads or boots anything" {
	run "$TOP/tests/vm/check-kernels" 6.12 no-such-row
	[ "$status" = 2 ]
	[[ "$output" == *"'no-such-row' is not a test bed row"* ]]
	[[ "$output" != *"== check-kernels: row"* ]]
}

@test "check-kernels refuses an unknown option with exit 2 and names the ones it has" {
	run "$TOP/tests/vm/check-kernels" --paralel 6.12
	[ "$status" = 2 ]
	[[ "$output" == *"unknown option '--paralel' (--list, --serial, --skip)"* ]]
	[[ "$output" != *"== check-kernels: row"* ]]
}

@test "6.12-cloud boots on a CPU without CX16 (qemu 7.2 TCG bug, tests/vm/rows); other rows use max" {
	run "$KR" qemu-cpu 6.12-cloud
	[ "$status" = 0 ]
	[ "$output" = "max,-cx16" ]
	for r in 6.1 6.1-cloud 6.12 newest 0.0.0-no-row; do
		[ "$("$KR" qemu-cpu "$r")" = max ]
	done
	run "$KR" qemu-cpu
	[ "$status" = 2 ]
}

@test "check-kernels --list: the driver suites and rxectl on every row, the pair on cloud rows, interop on stock rows, trimmed for CI" {
	run -0 "$TOP/tests/vm/check-kernels" --list
	# the cloud rows (no stock rdma_rxe: the bundled driver's hosts) ask for guests first
	[ "$(echo "$output" | awk '{ print $1 }' | tr '\n' ' ')" = "6.1-cloud 6.12-cloud 6.12 newest " ]
	[ "$(echo "$output" | grep -c "tests/guest/driver_link.bats")" = 4 ]
	for r in 6.1-cloud 6.12-cloud; do
		l=$(echo "$output" | awk -v r="$r" '$1 == r')
		[[ "$l" == *driver_verbs.bats*driver_data.bats*driver_place.bats*cli_bundled.bats*cli_nostock.bats* ]]
	done
	l=$(echo "$output" | awk '$1 == "newest"')
	[[ "$l" == *driver_verbs.bats*driver_data.bats*driver_place.bats*cli_bundled.bats* && "$l" != *cli_nostock* ]]
	for r in 6.1-cloud 6.12-cloud; do
		l=$(echo "$output" | awk -v r="$r" '$1 == r')
		[[ "$l" == *pair/kernels_bundled_pair.bats* && "$l" != *driver_interop* ]]
	done
	! grep -q driver_extra <<<"$output" # issue 11's verbs: RXE_CHECK_KERNELS_FULL=1 only
	# DKMS on one cloud row, not the one CI runs; 6.12 shares its kernel with 6.12-cloud and adds interop
	[ "$(echo "$output" | grep -c kernels_dkms)" = 1 ]
	[[ "$(echo "$output" | awk '$1 == "6.12-cloud"')" == *kernels_dkms.bats* ]]
	[ "$(echo "$output" | awk '$1 == "6.12"' | sed 's|tests/guest/||g')" = "6.12 driver_link.bats pair/driver_interop.bats" ]
	l=$(echo "$output" | awk '$1 == "newest"')
	[[ "$l" == *pair/driver_interop.bats* && "$l" != *kernels_dkms* ]]
}

@test "RXE_CHECK_KERNELS_FULL=1 --list: every file on every row, driver_extra too, rxectl on the stock module too" {
	RXE_CHECK_KERNELS_FULL=1 run -0 "$TOP/tests/vm/check-kernels" --list
	for f in driver_link driver_verbs driver_data driver_place driver_extra cli_bundled cli_nostock pair/kernels_bundled_pair kernels_dkms; do
		[ "$(echo "$output" | grep -c "tests/guest/$f.bats")" = 4 ]
	done
	RXE_CHECK_KERNELS_FULL=1 run -0 "$TOP/tests/vm/check-kernels" --list 6.12
	# the longest file (DKMS) first: the row's others fill the second guest slot beside it
	[[ "$output" == "6.12 tests/guest/kernels_dkms.bats "*driver_verbs.bats*driver_interop.bats*cli_up.bats*diag_doctor.bats* ]]
	# DKMS on newest (gcc-16) in a guest whose root is its build root; on the others the host's
	RXE_CHECK_KERNELS_FULL=1 run -0 "$TOP/tests/vm/check-kernels" --list
	[ "$(echo "$output" | grep -o '[^ ]*@build-root' | tr '\n' ' ')" = "tests/guest/kernels_dkms.bats@build-root " ]
	[[ "$(echo "$output" | awk '$1 == "newest"')" == *" tests/guest/kernels_dkms.bats@build-root" ]]
}

@test "check-kernels --skip leaves the named files out on every row (CI: DKMS); a bad list is exit 2" {
	run -0 "$TOP/tests/vm/check-kernels" --list --skip kernels_dkms,cli_nostock 6.1-cloud 6.12-cloud
	! grep -q 'kernels_dkms\|cli_nostock' <<<"$output"
	[ "$(echo "$output" | grep -c driver_verbs.bats)" = 2 ]
	run -0 make -s -C "$TOP" -n check-kernels KERNEL_ROWS=6.12-cloud KERNEL_SKIP=kernels_dkms
	[[ "$output" == *"tests/vm/check-kernels --skip kernels_dkms 6.12-cloud"* ]]
	for bad in "" "a b" "../x"; do
		run "$TOP/tests/vm/check-kernels" --list --skip "$bad" 6.12
		[ "$status" = 2 ]
		[[ "$output" == *"--skip wants file names"* ]]
	done
	run "$TOP/tests/vm/check-kernels" --list --skip
	[ "$status" = 2 ]
}

# check-kernels in a copy of the tree whose run-all and kernel-row are fakes: no download, no guest
fake_check_kernels_tree() {
	F=$BATS_TEST_TMPDIR/tree
	mkdir -p "$F/tests/vm"
	cp "$TOP/tests/vm/check-kernels" "$F/tests/vm/"
	cat > "$F/tests/vm/kernel-row" <<'K'
#!/bin/bash
case $1 in
list) printf '%s\n' "6.1 k61 yes" "6.1-cloud k61c no" "6.12 k612 yes" "6.12-cloud k612c no" "newest k72 yes" ;;
stock-rxe) case $2 in *-cloud) echo no ;; *) echo yes ;; esac ;;
build-root) case $2 in newest) echo unstable ;; *) echo host ;; esac ;;
kver) echo "kver-of-$2" ;;
fetch) ;;
esac
K
	cat > "$F/tests/run-all" <<'R'
#!/bin/bash
echo "$RXE_VM_KERNEL start $(date +%s%N) ${RXE_VM_GUEST_ROOT:-host} $*" >> "$(dirname "$0")/../starts"
sleep 2
echo "vm-run: guest time 7 s, slot wait 0 s"
echo "vm-run: guest time 5 s, slot wait 3 s"
[ "$RXE_VM_KERNEL" = 6.12 ] && { echo "1 passed, 1 failed, 0 skipped"; exit 1; }
echo "$# passed, 0 failed, 0 skipped"
R
	chmod +x "$F/tests/run-all" "$F/tests/vm/kernel-row" "$F/tests/vm/check-kernels"
}

@test "check-kernels starts the rows at once, cloud rows first, sums guest time, fails if a row fails" {
	fake_check_kernels_tree
	run "$F/tests/vm/check-kernels"
	[ "$status" = 1 ] # the fake 6.12 row failed
	[ "$(awk '{ print $1 }' "$F/starts" | tr '\n' ' ')" = "6.1-cloud 6.12-cloud 6.12 newest " ]
	first=$(awk 'NR == 1 { print $3 }' "$F/starts") last=$(awk 'END { print $3 }' "$F/starts")
	[ $(((last - first) / 1000000000)) -lt 5 ] # four 2 s rows overlapped (started 1 s apart)
	[[ "$output" == *"6.1-cloud kver-of-6.1-cloud: 7 passed, 0 failed, 0 skipped ("*" s wall, 12 s of guest time)"* ]]
	[[ "$output" == *"6.12 kver-of-6.12: 1 passed, 1 failed, 0 skipped"* ]]
}

@test "check-kernels --serial runs one row after the other and exits 0 when every row passed" {
	fake_check_kernels_tree
	run -0 "$F/tests/vm/check-kernels" --serial 6.12-cloud newest
	first=$(awk 'NR == 1 { print $3 }' "$F/starts") last=$(awk 'END { print $3 }' "$F/starts")
	[ $(((last - first) / 1000000000)) -ge 2 ]
	[[ "$output" == *"newest kver-of-newest: 6 passed, 0 failed, 0 skipped"* ]]
}

@test "RXE_VM_GUEST_ROOT is host or build, build only on a row with a build root and in a plain guest: exit 2 before any slot" {
	# both guest slots held: a run that got as far as the slot queue would wait until timeout (124)
	export RXE_VM_SLOT_DIR=$BATS_TEST_TMPDIR/slots
	mkdir -p "$RXE_VM_SLOT_DIR"
	exec 8>"$RXE_VM_SLOT_DIR/0" 9>"$RXE_VM_SLOT_DIR/1"
	flock 8; flock 9
	RXE_VM_GUEST_ROOT=chroot run timeout 30 "$TOP/tests/vm/vm-run" -- true
	[ "$status" = 2 ]
	[[ "$output" == *"RXE_VM_GUEST_ROOT is 'host' (the default) or 'build', not 'chroot'"* ]]
	for r in 6.1 6.1-cloud 6.12 6.12-cloud; do
		RXE_VM_GUEST_ROOT=build RXE_VM_KERNEL=$r run timeout 30 "$TOP/tests/vm/vm-run" -- true
		[ "$status" = 2 ]
		[[ "$output" == *"row $r is built on the host's root, which its guests boot already; a build root as the guest's root is for the rows with one: newest (tests/vm/rows)"* ]]
	done
	RXE_VM_GUEST_ROOT=build run timeout 30 "$TOP/tests/vm/vm-run" -- true # the default row
	[ "$status" = 2 ]
	[[ "$output" == *"row 6.1 is built on the host's root"* ]]
	RXE_VM_GUEST_ROOT=build RXE_VM_KERNEL=newest run timeout 30 "$TOP/tests/vm/vm-run" --systemd -- true
	[ "$status" = 2 ]
	[[ "$output" == *"RXE_VM_GUEST_ROOT=build boots plain guests only"* ]]
	run "$KR" guest-root no-such-row
	[ "$status" = 2 ]
	[[ "$output" == *"'no-such-row' is not a test bed row"* ]]
}

@test "guest-root: the row's build root once it has the guest's packages; when installing them fails, exit 1 and where to look" {
	# a cache whose newest row is fetched and whose build root exists, but is no real root
	export RXE_VM_CACHE=$BATS_TEST_TMPDIR/cache
	C=$RXE_VM_CACHE
	mkdir -p "$C/rows" "$C/headers/9.9.9-fake/" "$C/9.9.9-fake" "$C/build-roots/unstable"
	echo 9.9.9-fake > "$C/rows/newest"
	touch "$C/headers/9.9.9-fake/.done" "$C/9.9.9-fake/.prepared-v7" "$C/build-roots/unstable/.has-9.9.9-fake"
	run "$KR" guest-root newest
	[ "$status" = 1 ]
	[[ "$output" == *"installing dkms bats iproute2 busybox in the unstable build root failed (see $C/build-roots/unstable.guest.log)"* ]]
	touch "$C/build-roots/unstable/.guest-v1"
	run -0 "$KR" guest-root newest
	[ "$output" = "$C/build-roots/unstable" ]
	run -0 "$KR" guest-root 9.9.9-fake # the row's kernel version names it too
	[ "$output" = "$C/build-roots/unstable" ]
}

@test "check-kernels runs DKMS on newest in a second run-all with the build root as the guest's root, and adds up both" {
	fake_check_kernels_tree
	RXE_CHECK_KERNELS_FULL=1 run -0 "$F/tests/vm/check-kernels" --serial newest 6.12-cloud
	# newest: everything else on the host's root, then kernels_dkms alone on its build root
	[ "$(awk '$1 == "newest" { print $4 }' "$F/starts" | tr '\n' ' ')" = "host build " ]
	[ "$(awk '$1 == "newest" && $4 == "build" { $1 = $2 = $3 = $4 = ""; print }' "$F/starts" | xargs)" = tests/guest/kernels_dkms.bats ]
	[[ "$(awk '$1 == "newest" && $4 == "host"' "$F/starts")" != *kernels_dkms* ]]
	# 6.12-cloud (built with the host's gcc): one run-all, DKMS in it
	[ "$(awk '$1 == "6.12-cloud" { print $4 }' "$F/starts")" = host ]
	[[ "$(awk '$1 == "6.12-cloud"' "$F/starts")" == *kernels_dkms* ]]
	# the fake run-all passes one test a file: 11 + 1 on newest, two runs of 2 guests' time each
	[[ "$output" == *"newest kver-of-newest: 12 passed, 0 failed, 0 skipped ("*" s wall, 24 s of guest time)"* ]]
	[[ "$output" == *"row newest, with its build root as the guest's root"* ]]
}

# setup-deps in a copy of the tree whose prepare and kernel-row only record their calls, with every
# package reported installed: which kernels does the first command fetch?
@test "setup-deps prepares the default kernel only: no other row, no build root (make check-kernels and .ci/run fetch theirs)" {
	F=$BATS_TEST_TMPDIR/tree
	B=$BATS_TEST_TMPDIR/bin
	mkdir -p "$F/scripts" "$F/tests/vm" "$B"
	cp "$TOP/scripts/setup-deps" "$F/scripts/"
	for t in prepare kernel-row; do
		printf '#!/bin/sh\necho "%s $*" >> "$(dirname "$0")/../../calls"\n' "$t" > "$F/tests/vm/$t"
	done
	printf '#!/bin/sh\necho "install ok installed"\n' > "$B/dpkg-query"
	printf '#!/bin/sh\necho "apt-get $*" >> "%s/calls"; exit 1\n' "$F" > "$B/apt-get"
	printf '#!/bin/sh\necho 0\n' > "$B/id"
	chmod +x "$F/tests/vm/"* "$B/"*
	PATH=$B:$PATH run -0 "$F/scripts/setup-deps"
	[ "$(cat "$F/calls")" = "prepare " ]
	# and what runs the other rows fetches each of them before its guests boot
	grep -q '^	tests/vm/kernel-row fetch "$row"' "$TOP/tests/vm/check-kernels"
	grep -q '"$here/kernel-row" fetch "$RXE_VM_KERNEL"' "$TOP/tests/vm/vm-run"
	grep -q '^tests/vm/kernel-row fetch $rows' "$TOP/.ci/run"
}

@test "check-kernels fetches every row it runs, before the first guest" {
	fake_check_kernels_tree
	sed -i 's|^fetch) ;;|fetch) echo "fetch $2 $(date +%s%N)" >> "$(dirname "$0")/../../fetches" ;;|' "$F/tests/vm/kernel-row"
	run "$F/tests/vm/check-kernels" 6.1-cloud newest
	[ "$(awk '{ print $2 }' "$F/fetches" | tr '\n' ' ')" = "6.1-cloud newest " ]
	[ "$(awk 'END { print $3 }' "$F/fetches")" -lt "$(sort -k3n "$F/starts" | awk 'NR == 1 { print $3 }')" ]
}

@test "the debug row is opt-in: named it is a row (stock rxe, cpu max, host-built), but not in list, fetch-all or check-kernels' default" {
	run -0 "$KR" stock-rxe 6.1-debug
	[ "$output" = yes ]
	run -0 "$KR" qemu-cpu 6.1-debug
	[ "$output" = max ]
	run -0 "$KR" build-root 6.1-debug
	[ "$output" = host ]
	run -0 "$KR" list
	[[ "$output" != *6.1-debug* ]]
	run -0 "$TOP/tests/vm/check-kernels" --list
	[[ "$output" != *6.1-debug* ]]
	run -0 "$TOP/tests/vm/check-kernels" --list 6.1-debug
	[[ "$output" == "6.1-debug "*driver_data.bats* ]]
}

@test "check-debug refuses an unknown option or a missing file with exit 2, before it builds anything" {
	RXE_VM_CACHE=$BATS_TEST_TMPDIR/cache run -2 "$TOP/tests/vm/check-debug" --nope
	[[ "$output" == *"unknown option '--nope'"* ]]
	RXE_VM_CACHE=$BATS_TEST_TMPDIR/cache run -2 "$TOP/tests/vm/check-debug" tests/guest/no_such.bats
	[[ "$output" == *"no such guest file 'tests/guest/no_such.bats'"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/cache" ]
	run -0 "$TOP/tests/vm/debug-kernel" --help
	[[ "$output" == *"debug-kernel build"* ]]
}

@test "a built debug kernel resolves as row 6.1-debug from its cache record; no image in the cache is a clear error" {
	export RXE_VM_CACHE=$BATS_TEST_TMPDIR/cache
	mkdir -p "$RXE_VM_CACHE/debug-src"
	printf '%s\n%s\n%s\n' "$("$TOP/tests/vm/debug-kernel" key)" 6.1.0-fake-rxedebug '1 s' > "$RXE_VM_CACHE/debug-src/built"
	run -0 "$TOP/tests/vm/debug-kernel" kver
	[ "$output" = 6.1.0-fake-rxedebug ]
	run -0 "$KR" kver 6.1-debug
	[ "$output" = 6.1.0-fake-rxedebug ]
	run -0 "$KR" qemu-cpu 6.1.0-fake-rxedebug
	[ "$output" = max ]
	run -0 "$KR" stock-rxe 6.1.0-fake-rxedebug
	[ "$output" = yes ]
	run -1 "$KR" fetch 6.1-debug
	[[ "$output" == *"linux-image-6.1.0-fake-rxedebug is not in the cache"* ]]
	# an edited fragment (or a new linux-source-6.1) is another key: not built
	sed -i 1s/.*/other-key/ "$RXE_VM_CACHE/debug-src/built"
	run -1 "$TOP/tests/vm/debug-kernel" kver
}
