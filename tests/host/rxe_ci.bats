#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxe-ci (cli/rxe-ci) without a guest: its usage, its usage errors (exit 2 before any guest is
# booted or module loaded) and its documentation. The real runs (guests with the stock and the
# bundled driver, a pair, --host, passing and failing on purpose): tests/bed/rxe_ci.bats.
#   bats tests/host/rxe_ci.bats

bats_require_minimum_version 1.5.0

TOP="$BATS_TEST_DIRNAME/../.."

setup() {
	RXE_CI="$TOP/cli/rxe-ci"
	# a slot dir of our own: no usage error may take a guest slot (the tickets would show it)
	export RXE_VM_SLOT_DIR="$BATS_TEST_TMPDIR/slots"
}

# usage_error ARGS...: exits 2, names the problem on stderr, prints nothing on stdout, no guest
usage_error() {
	run -2 --separate-stderr "$RXE_CI" "$@"
	[ -z "$output" ]
	[[ "$stderr" == *"rxe-ci: "* ]]
	[ ! -e "$RXE_VM_SLOT_DIR" ]
}

@test "--help prints the usage, the options and the exit statuses on stdout" {
	run -0 --separate-stderr "$RXE_CI" --help
	[ "${lines[0]}" = "Usage: rxe-ci [OPTIONS] -- COMMAND [ARG...]" ]
	[ "${lines[1]}" = "       rxe-ci --pair [OPTIONS] --a 'COMMAND A' --b 'COMMAND B'" ]
	for o in --pair --a --kernel --driver --timeout --env --host --netdev --keep; do
		grep -qE "^  $o[ ,]" <<< "$output" || { echo "--help lacks $o"; false; }
	done
	for s in 2 123 124 125; do [[ "$output" == *" $s "* ]] || { echo "no exit status $s"; false; }; done
	[ -z "$stderr" ]
	run -0 "$RXE_CI" -h
	[ "${lines[0]}" = "Usage: rxe-ci [OPTIONS] -- COMMAND [ARG...]" ]
}

@test "no command, an unknown option or a missing value is a usage error" {
	usage_error
	[ "$stderr" = "rxe-ci: no command given (rxe-ci [OPTIONS] -- COMMAND [ARG...])
Try 'rxe-ci --help'." ]
	usage_error --
	usage_error --bogus -- true
	[[ "$stderr" == "rxe-ci: unknown option '--bogus'"* ]]
	usage_error --timeout
	[[ "$stderr" == "rxe-ci: --timeout needs a value"* ]]
}

@test "--driver takes stock or bundled, --timeout whole seconds, --env a variable name" {
	usage_error --driver soft -- true
	[[ "$stderr" == "rxe-ci: --driver is stock or bundled, not 'soft'"* ]]
	for t in 0 -1 1.5 abc ''; do usage_error --timeout "$t" -- true; done
	[[ "$stderr" == "rxe-ci: --timeout takes whole seconds (1 or more), not ''"* ]]
	usage_error --env 'A-B' -- true
	usage_error --env '1X' -- true
}

@test "--pair takes --a and --b, each non-empty, and no command after --" {
	usage_error --pair -- true
	[[ "$stderr" == "rxe-ci: with --pair the commands are --a 'CMD' and --b 'CMD', not after --"* ]]
	usage_error --pair --a true
	[[ "$stderr" == "rxe-ci: --pair needs both --a 'CMD' and --b 'CMD'"* ]]
	usage_error --pair --b true
	usage_error --pair --a '' --b true
	[[ "$stderr" == "rxe-ci: --a and --b need a command each"* ]]
	usage_error --a true --b true
	[[ "$stderr" == "rxe-ci: --a and --b go with --pair"* ]]
	usage_error --a true -- true
}

@test "--host refuses --pair, --kernel and --keep; --netdev needs --host" {
	usage_error --host --pair --a true --b true
	[[ "$stderr" == "rxe-ci: --pair and --host do not go together"* ]]
	usage_error --host --kernel 6.12 -- true
	usage_error --host --keep -- true
	usage_error --netdev eth0 -- true
	[[ "$stderr" == "rxe-ci: --netdev goes with --host"* ]]
}

@test "an unknown kernel row and a bad RXE_CI_ACCEL are refused before a guest slot is taken" {
	run -2 --separate-stderr "$RXE_CI" --kernel nosuch -- true
	[[ "$stderr" == *"'nosuch' is not a test bed row"* ]]
	[ ! -e "$RXE_VM_SLOT_DIR/tickets.counter" ]
	RXE_CI_ACCEL=xen run -2 --separate-stderr "$RXE_CI" -- true
	[[ "$stderr" == *"rxe-ci: RXE_CI_ACCEL is kvm or tcg, not 'xen'"* ]]
	[ ! -e "$RXE_VM_SLOT_DIR" ]
}

@test "it says which accelerator it uses: TCG when asked (or without /dev/kvm), KVM when asked" {
	# the bed's vm-run refuses the unknown row after rxe-ci chose: no guest boots either way
	RXE_CI_ACCEL=tcg run -2 --separate-stderr "$RXE_CI" --kernel nosuch -- true
	[[ "${stderr_lines[0]}" == "rxe-ci: TCG, no KVM (/dev/kvm not used: RXE_CI_ACCEL=tcg)"* ]]
	RXE_CI_ACCEL=kvm run -2 --separate-stderr "$RXE_CI" --kernel nosuch -- true
	[ "${stderr_lines[0]}" = "rxe-ci: KVM (/dev/kvm is usable)" ]
	if [ ! -e /dev/kvm ]; then
		run -2 --separate-stderr "$RXE_CI" --kernel nosuch -- true
		[ "${stderr_lines[0]}" = "rxe-ci: TCG, no KVM (/dev/kvm does not exist): expect ~10x slower guests" ]
	fi
}

@test "a missing test bed or rxectl is exit 125, named" {
	RXE_CI_BED=/nonexistent run -125 --separate-stderr "$RXE_CI" -- true
	[ "$stderr" = "rxe-ci: the test bed is not at /nonexistent (RXE_CI_BED names it)" ]
	RXE_CI_RXECTL=/nonexistent/rxectl run -125 --separate-stderr "$RXE_CI" -- true
	[ "$stderr" = "rxe-ci: no rxectl at /nonexistent/rxectl (build it: make; or RXE_CI_RXECTL)" ]
}

@test "the man page, the README and --help agree on the options and exit statuses" {
	man=$TOP/man/rxe-ci.1
	[ -f "$man" ]
	for o in pair a b kernel driver timeout env host netdev keep help; do
		grep -qE "^\.BR? .*\\\\-\\\\-$o\b" "$man" || grep -qF "\\-\\-$o" "$man" || { echo "man lacks --$o"; false; }
	done
	for s in 123 124 125; do grep -q "^\.B $s" "$man" || { echo "man lacks exit status $s"; false; }; done
	grep -q '^## Soft-RoCE in your CI' "$TOP/README.md"
	grep -q 'rxe-ci' "$TOP/README.md"
	run -0 man -l --warnings=w "$man"
	[[ "$output" != *warning* ]]
}

@test "the CI recipes' script steps are the commands tests/bed/rxe_ci.bats runs" {
	for f in github-actions.yml gitlab-ci.yml; do
		[ -f "$TOP/contrib/ci/$f" ]
		python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$TOP/contrib/ci/$f"
	done
	# every rxe-ci line of a recipe is run, as written, by the bed file
	run -0 grep -h 'rxe-ci ' "$TOP/contrib/ci/github-actions.yml" "$TOP/contrib/ci/gitlab-ci.yml"
	[ "${#lines[@]}" -ge 2 ]
	for l in "${lines[@]}"; do
		l=$(sed -E 's/^[[:space:]]*(- |run: )?//' <<< "$l")
		[[ "$l" == rxe-ci* ]] || continue
		grep -qF -- "$l" "$TOP/tests/bed/rxe_ci.bats" || { echo "tests/bed/rxe_ci.bats does not run: $l"; false; }
	done
}
