#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The test bed's guest-slot queue (tests/vm/vm-common, vm_acquire_slots) on the host, no guest
# booted: waiters get their slots in the order they asked (tickets), a single guest may take the
# slot a pair in its first RXE_VM_PASS_SECONDS cannot use yet (never past the window, never past an
# --exclusive run), and the ticket of a waiter that died does not block the queue.

bats_require_minimum_version 1.5.0

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	D=$BATS_TEST_TMPDIR
	export D TOP RXE_VM_SLOT_DIR=$D/slots
	# a fake guest: NAME WANT [strict] takes WANT slots, writes NAME to $D/order, holds the slots until
	# $D/release.NAME exists
	cat > "$D/guest" <<'G'
#!/bin/bash
source "$TOP/tests/vm/vm-common"
vm_acquire_slots "$2" $3
echo "$1" >> "$D/order"
while [ ! -e "$D/release.$1" ]; do sleep 0.05; done
G
	chmod +x "$D/guest"
	: > "$D/order"
}

teardown() {
	touch "$D"/release.{B,H,H2,P,S,W1,W2,W3,W4,W5,W6,K,X}
	wait
}

start() { # NAME WANT [strict]: a fake guest in the background
	"$D/guest" "$1" "$2" ${3:-} 2>>"$D/stderr" 3>&- &
}

wait_for() { # CONDITION...: up to 10 s
	local i
	for ((i = 0; i < 200; i++)); do "$@" && return 0; sleep 0.05; done
	echo "timed out waiting for: $*" >&2
	return 1
}
started() { grep -qx "$1" "$D/order"; }
tickets() { [ "$(find "$RXE_VM_SLOT_DIR/tickets" -name '[0-9]*' | wc -l)" = "$1" ]; }

@test "waiters get the slot in the order they asked for it" {
	export RXE_VM_SLOTS=1
	start H 1
	wait_for started H
	for i in 1 2 3 4 5 6; do
		touch "$D/release.W$i" # each lets go as soon as it has the slot
		start "W$i" 1
		wait_for tickets "$i"
	done
	touch "$D/release.H"
	wait_for started W6
	[ "$(tr '\n' ' ' < "$D/order")" = "H W1 W2 W3 W4 W5 W6 " ]
	grep -q 'waiting for a free guest slot' "$D/stderr"
	tickets 0 # every ticket is gone once served
}

@test "past its window a pair at the head keeps waiting for its second slot and a single guest behind it does not overtake it" {
	export RXE_VM_SLOTS=2 RXE_VM_PASS_SECONDS=0
	start H 1
	wait_for started H
	touch "$D/release.P" "$D/release.S"
	start P 2
	wait_for tickets 1
	start S 1
	wait_for tickets 2
	sleep 2 # one slot is free all this time: S must not take it
	[ "$(tr '\n' ' ' < "$D/order")" = "H " ]
	touch "$D/release.H"
	wait_for started S
	[ "$(tr '\n' ' ' < "$D/order")" = "H P S " ]
}

@test "a single guest behind a pair in its window takes the slot the pair cannot use; the pair goes when both are free" {
	export RXE_VM_SLOTS=2
	start H 1
	wait_for started H
	start P 2
	wait_for tickets 1
	start S 1
	wait_for started S # one slot free, the pair needs two: S passes it
	tickets 1
	touch "$D/release.H"
	sleep 2 # one slot is free again, but S holds the other: the pair holds none meanwhile
	[ "$(tr '\n' ' ' < "$D/order")" = "H S " ]
	start W1 1 # behind the pair too: takes the free slot
	wait_for started W1
	touch "$D/release.S" "$D/release.W1" "$D/release.P"
	wait_for started P
	[ "$(tr '\n' ' ' < "$D/order")" = "H S W1 P " ]
	tickets 0
}

@test "no single guest passes a pair while both slots are free, nor an --exclusive run" {
	export RXE_VM_SLOTS=2
	start H 1
	wait_for started H
	start X 2 strict # a benchmark
	wait_for tickets 1
	start S 1
	wait_for tickets 2
	sleep 2
	[ "$(tr '\n' ' ' < "$D/order")" = "H " ]
	touch "$D/release.X" "$D/release.H"
	wait_for started S
	[ "$(tr '\n' ' ' < "$D/order")" = "H X S " ]
	# two free slots and a pair queued ahead of a single: the pair goes first
	touch "$D/release.S"
	sleep 1 # S lets go of its slot
	start B 2
	wait_for started B # both slots busy
	start P 2
	wait_for tickets 1
	start W3 1
	wait_for tickets 2
	touch "$D/release.P" "$D/release.W3" "$D/release.B" # both free at once
	wait_for started W3
	[ "$(tr '\n' ' ' < "$D/order" | sed 's/.*B //')" = "P W3 " ]
}

@test "the ticket of a waiter that was killed does not hold up the ones behind it" {
	export RXE_VM_SLOTS=1
	start H 1
	wait_for started H
	start K 1
	wait_for tickets 1
	kpid=$!
	touch "$D/release.W1"
	start W1 1
	wait_for tickets 2
	kill -9 "$kpid"
	touch "$D/release.H"
	wait_for started W1
	[ "$(tr '\n' ' ' < "$D/order")" = "H W1 " ]
	tickets 0 # the dead one's ticket was removed by the next in line
}

@test "stale tickets are skipped: a pid that is gone, a pid reused by another process, an empty file" {
	export RXE_VM_SLOTS=1
	mkdir -p "$RXE_VM_SLOT_DIR/tickets"
	sleep 30 3>&- & alive=$!
	echo "9999999 12345" > "$RXE_VM_SLOT_DIR/tickets/000000000001" # no such pid (above pid_max)
	echo "$alive 1" > "$RXE_VM_SLOT_DIR/tickets/000000000002"     # alive, but started later
	: > "$RXE_VM_SLOT_DIR/tickets/000000000003"
	echo 3 > "$RXE_VM_SLOT_DIR/tickets.counter"
	touch "$D/release.W1"
	start W1 1
	wait_for started W1
	kill "$alive"
	tickets 0
	[ "$(cat "$RXE_VM_SLOT_DIR/tickets.counter")" = 4 ]
}

@test "a live waiter ahead in the queue is waited for" {
	export RXE_VM_SLOTS=1
	mkdir -p "$RXE_VM_SLOT_DIR/tickets"
	# this bats process holds ticket 1 (a live pid with its own start time)
	stat=$(cat /proc/$$/stat)
	stat=${stat##*) }
	read -ra f <<< "$stat"
	echo "$$ ${f[19]}" > "$RXE_VM_SLOT_DIR/tickets/000000000001"
	echo 1 > "$RXE_VM_SLOT_DIR/tickets.counter"
	touch "$D/release.W1"
	start W1 1
	sleep 2
	[ ! -s "$D/order" ] # the slot is free, but W1 is second in line
	rm "$RXE_VM_SLOT_DIR/tickets/000000000001"
	wait_for started W1
}
