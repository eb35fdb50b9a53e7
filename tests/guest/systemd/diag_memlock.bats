#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl doctor's memlock.limit in the systemd guest: what services really get, from systemd's
# DefaultLimitMEMLOCK or from rxectl's service.d drop-in.  The tests build on each other in order.
#   tests/run-all tests/guest/systemd/diag_memlock.bats

bats_require_minimum_version 1.5.0

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "not in the systemd test bed guest"
}

setup() {
	RXECTL="$BATS_TEST_DIRNAME/../../../rxectl"
	DROPIN=/etc/systemd/system/service.d/50-rxe-memlock.conf
	export RXECTL_CONFIG="$BATS_TEST_TMPDIR/rxe.conf"
	: > "$RXECTL_CONFIG"
}

memlock_check() { # field -> that field of doctor's memlock.limit
	"$RXECTL" doctor --json 2>/dev/null | jq -r --arg f "$1" '.checks[] | select(.id == "memlock.limit") | .[$f]'
}

# What a service really gets: `ulimit -l` in a transient unit (in KiB, or "unlimited").
service_ulimit() {
	systemd-run --quiet --wait --pipe --collect sh -c 'ulimit -l'
}

@test "without a drop-in, doctor warns that services get systemd's small DefaultLimitMEMLOCK" {
	rm -f "$DROPIN"
	systemctl daemon-reload
	[ "$(service_ulimit)" != unlimited ] || skip "this systemd gives services no memlock limit"
	[ "$(memlock_check status)" = warn ]
	[[ "$(memlock_check summary)" == *"systemd services get "*"(DefaultLimitMEMLOCK)"* ]]
	# the fix names the drop-in per unit, not one for every service (issue 14)
	[[ "$(memlock_check fix)" == *"LimitMEMLOCK=infinity"*"by name"*"/etc/systemd/system/UNIT.service.d/50-rxe-memlock.conf"* ]]
}

@test "with rxectl's drop-in installed, services really get unlimited and doctor passes" {
	install -D -m 0644 "$BATS_TEST_DIRNAME/../../../systemd/memlock.conf" "$DROPIN"
	systemctl daemon-reload
	[ "$(service_ulimit)" = unlimited ]
	[ "$(memlock_check status)" = pass ]
	[[ "$(memlock_check summary)" == *"systemd services get unlimited ($DROPIN)"* ]]
	rm -f "$DROPIN"
	systemctl daemon-reload
}

# limit_of UNIT: the memlock limit (ulimit -l) a run of the oneshot service UNIT gets
limit_of() {
	systemctl start "$1"
	cat "/run/$1.limit"
}

@test "rxectl memlock NAME --install: that service really gets unlimited, another does not; --remove undoes it" {
	rm -f "$DROPIN"
	for u in rxmemtest rxmemother; do
		printf '[Service]\nType=oneshot\nExecStart=/bin/sh -c "ulimit -l > /run/%s.limit"\n' "$u" \
			> "/etc/systemd/system/$u.service"
	done
	systemctl daemon-reload
	[ "$(limit_of rxmemtest)" != unlimited ] || skip "this systemd gives services no memlock limit"
	run -0 "$RXECTL" memlock rxmemtest --install
	[[ "$output" == *"rxmemtest.service gets LimitMEMLOCK=infinity"* ]]
	# rxectl reloaded systemd: the named service has the drop-in, the other has not
	[ "$(limit_of rxmemtest)" = unlimited ]
	[ "$(limit_of rxmemother)" != unlimited ]
	run -0 "$RXECTL" memlock rxmemtest --remove
	[ ! -e /etc/systemd/system/rxmemtest.service.d ]
	[ "$(limit_of rxmemtest)" != unlimited ]
	rm -f /etc/systemd/system/rxmemtest.service /etc/systemd/system/rxmemother.service
	systemctl daemon-reload
}
