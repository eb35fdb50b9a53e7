# SPDX-License-Identifier: GPL-2.0
# Helpers of the persistence tests (persist_units.bats, persist_churn.bats, persist_failures.bats),
# loaded with `load persist_lib`: rxectl installed in the guest, an empty rxe.conf, device and unit probes.

RXECTL=/usr/sbin/rxectl
CONF=/etc/rxe/rxe.conf
BOUND=30	# seconds: generous bound for a device to come back (TCG is slow)

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "not in the systemd test bed guest"
	cd "$BATS_TEST_DIRNAME/../../.."
	make -s -o rxectl install PREFIX=/usr >/dev/null
	mkdir -p /etc/rxe
	printf '# rxe.conf for the persistence tests\n' > "$CONF"
	systemctl daemon-reload
	udevadm control --reload
	date +%s > "$BATS_FILE_TMPDIR/t0"
}

now() { date +%s.%N; }
secs_since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%d", a - b }'; }

devs_on() { # "name:state" of each rxe device on netdev $1
	rdma -j link show 2>/dev/null | jq -r --arg n "$1" '.[] | select(.netdev == $n) | "\(.ifname):\(.state)"'
}
count_on() { devs_on "$1" | grep -c . || true; }

wait_active() { # netdev bound: exactly one ACTIVE device on it, else fail
	local t0=$(now) d
	while [ "$(secs_since "$t0")" -lt "$2" ]; do
		d=$(devs_on "$1")
		[ "$(echo "$d" | grep -c .)" -le 1 ] || { echo "two devices on $1: $d"; return 1; }
		[[ "$d" == *:ACTIVE ]] && return 0
		sleep 0.05
	done
	echo "no ACTIVE device on $1 after $2 s: '$(devs_on "$1")'"
	ip -br link show "$1"
	journalctl -n 60 -o short-monotonic --no-pager -u "rxe@$1.service" -u rxe-monitor.service \
		-u "sys-subsystem-net-devices-$1.device"
	return 1
}

make_dummy() { # name address
	ip link add "$1" type dummy && ip addr add "$2/24" dev "$1" && ip link set "$1" up
}
make_veth() { # name address (the peer is NAMEp)
	ip link add "$1" type veth peer name "$1p" && ip addr add "$2/24" dev "$1" &&
		ip link set "$1p" up && ip link set "$1" up
}

failed_units() { systemctl list-units --failed --no-legend --plain | awk '{print $1}'; }

# Wait until udev and systemd have no work left (every start/stop job of the churn done; not the
# test bed's own rxevm.service, which runs these tests).
settle() {
	local t0=$(now)
	udevadm settle --timeout=60 || true
	while systemctl list-jobs --no-legend | grep -qE 'rxe@|rxe-monitor|rxe\.target|sys-subsystem-net'; do
		[ "$(secs_since "$t0")" -lt 120 ] || { systemctl list-jobs; return 1; }
		sleep 0.2
	done
}
