# SPDX-License-Identifier: GPL-2.0
# Helpers for the `rxectl ping` pair tests: guest a listens on 192.0.2.1, guest b pings it.

. "$BATS_TEST_DIRNAME/pair_lib.bash"

# Both guests: an rxe device on eth0.
rxe_up() {
	export RXECTL_CONFIG="$BATS_FILE_TMPDIR/rxe.conf"
	: > "$RXECTL_CONFIG"
	"$RXECTL" up eth0 --wait 20 >/dev/null
}

# start_listener [ARGS...]: run the listener in the background, wait until it listens.
start_listener() {
	rm -f "$BATS_FILE_TMPDIR/listener.pid"
	(
		"$RXECTL" ping --listen "$@" &
		echo $! > "$BATS_FILE_TMPDIR/listener.pid"
		wait $!
		echo "exit status $?"
	) > "$BATS_FILE_TMPDIR/listener.log" 2>&1 3>&- &
	for _ in $(seq 50); do [ -s "$BATS_FILE_TMPDIR/listener.pid" ] && break; sleep 0.1; done
	for _ in $(seq 300); do
		grep -q '^listening on' "$BATS_FILE_TMPDIR/listener.log" && return 0
		kill -0 "$(cat "$BATS_FILE_TMPDIR/listener.pid")" 2>/dev/null || break
		sleep 0.2
	done
	cat "$BATS_FILE_TMPDIR/listener.log" >&2
	return 1
}

stop_listener() {
	local pid
	[ -f "$BATS_FILE_TMPDIR/listener.pid" ] || return 0
	pid=$(cat "$BATS_FILE_TMPDIR/listener.pid")
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
	rm -f "$BATS_FILE_TMPDIR/listener.pid"
}

listener_log() {
	cat "$BATS_FILE_TMPDIR/listener.log"
}

# end_barrier NAME...: the barriers this test meets, in order.  A test that fails half-way
# meets the rest in teardown (end_barriers), so the other guest is not left waiting.
end_barrier() {
	END_BARRIERS=("$@")
}

end_barriers() {
	local b
	for b in "${END_BARRIERS[@]}"; do
		barrier "$b" || return 1
	done
	END_BARRIERS=()
}
