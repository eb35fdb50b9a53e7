#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The documents keep their shape (issue 37): docs/ARCHITECTURE.md is a short map, each part's
# README names every file of its part, tables stay readable, results live in dated files, and
# every relative link between the documents leads somewhere.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$TOP"
	DOCS=(docs/ARCHITECTURE.md cli/README.md driver/README.md bench/README.md tests/vm/README.md)
}

# tracked files under DIR (a plain copy of the tree without git: every file but build output)
tracked() {
	if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$TOP" ls-files -- "$1"
	else
		find "$1" -type f ! -name '*.o' ! -name '*.ko' ! -name '*.mod*' ! -name '.*'
	fi
}

@test "docs/ARCHITECTURE.md is a map: at most 250 lines" {
	n=$(wc -l < docs/ARCHITECTURE.md)
	echo "docs/ARCHITECTURE.md: $n lines"
	[ "$n" -le 250 ]
}

@test "no table cell of the documents is over 300 characters" {
	# cells split on | that is not escaped (\| inside a cell is text)
	run awk '/^\|/ { line = $0; gsub(/\\\|/, "xx", line); n = split(line, c, "|")
		for (i = 2; i < n; i++) if (length(c[i]) > 300) print FILENAME ":" FNR ": " length(c[i]) " characters" }' "${DOCS[@]}"
	[ -z "$output" ] || { echo "$output"; false; }
}

@test "cli/README.md names every file of cli/" {
	for f in $(tracked cli | sed -n 's|^cli/\(.*\.[ch]\)$|\1|p'); do
		grep -qF "\`$f\`" cli/README.md || { echo "cli/README.md does not name $f"; false; }
	done
}

@test "driver/README.md names every file of driver/, which holds no test programs" {
	for f in $(tracked driver | sed 's|^driver/||'); do
		case $f in README.md | .* | */.*) continue ;; esac
		case $f in tools/*) echo "driver/$f: the driver's test programs live in tests/driver/"; false ;; esac
		grep -qF "\`$f\`" driver/README.md || grep -qF "\`$(basename "$f")\`" driver/README.md ||
			{ echo "driver/README.md does not name $f"; false; }
	done
}

@test "bench/README.md says how to run and what the figures mean; every results file is dated and linked from it" {
	grep -q '^## How to run' bench/README.md
	grep -q '^## What each figure means' bench/README.md
	n=0
	for f in bench/results/*.md; do
		[[ "$(basename "$f")" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}(-[a-z0-9-]+)?\.md$ ]] || { echo "$f is not dated"; false; }
		grep -qF "(results/$(basename "$f"))" bench/README.md || { echo "bench/README.md does not link $f"; false; }
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
	# the how-to holds no results of its own: no table of measured MB/s or µs
	! grep -qE '^\|.*[0-9] (MB/s|µs) \|' bench/README.md
}

@test "every relative link of the documents leads to a file that exists" {
	for d in "${DOCS[@]}" bench/results/*.md; do
		dir=$(dirname "$d")
		for l in $(grep -oE '\]\([^)#: ]+(#[^)]*)?\)' "$d" | sed 's/^](//; s/)$//; s/#.*//'); do
			[ -e "$dir/$l" ] || { echo "$d links $l, which does not exist"; false; }
		done
	done
}
