#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `rxectl stats --prometheus` where operators look: rxe-prometheus.timer (as `make install` puts
# it) writes the counters into the textfile directory of Debian's real prometheus-node-exporter,
# whose /metrics page then carries them, parsed without error, and they grow under traffic (the
# loopback self-test of an rxe device on a dummy netdev). Run in the systemd guest.

bats_require_minimum_version 1.5.0

RXECTL=/usr/sbin/rxectl
PROM=/var/lib/prometheus/node-exporter/rxe.prom

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "not in the systemd test bed guest"
	command -v prometheus-node-exporter >/dev/null || skip "no prometheus-node-exporter"
	cd "$BATS_TEST_DIRNAME/../../.."
	make -s -o rxectl install PREFIX=/usr >/dev/null
	systemctl daemon-reload
	ip link add rxprom0 type dummy
	ip addr add 198.51.100.7/24 dev rxprom0
	ip link set rxprom0 up
	rdma link add rxe_prom type rxe netdev rxprom0
	systemctl start prometheus-node-exporter
}

teardown_file() {
	systemctl stop rxe-prometheus.timer prometheus-node-exporter 2>/dev/null || true
	rdma link del rxe_prom 2>/dev/null || true
	ip link del rxprom0 2>/dev/null || true
	rm -f "$PROM"
}

# scrape: node_exporter's /metrics page (it may still be starting: TCG guests are slow)
scrape() {
	local i
	for i in $(seq 60); do
		curl -sf http://127.0.0.1:9100/metrics && return 0
		sleep 0.5
	done
	return 1
}

# sample METRIC PAGE: the value of METRIC for rxe_prom on PAGE (node_exporter sorts the labels)
sample() {
	grep -E "^$1\{device=\"rxe_prom\",netdev=\"rxprom0\",port=\"1\"\} " <<<"$2" | awk '{print $2}'
}

@test "the timer writes the textfile at once; node_exporter's /metrics carries the rxe counters" {
	systemctl start rxe-prometheus.timer
	for _ in $(seq 60); do [ -s "$PROM" ] && break; sleep 0.5; done
	[ -s "$PROM" ]
	[ "$(stat -c %a "$PROM")" = 644 ]
	systemctl is-active rxe-prometheus.timer
	[ "$(systemctl show -P Result rxe-prometheus.service)" = success ]
	run -0 scrape
	page=$output
	grep -E '^(# (HELP|TYPE) )?rxe_(devices|port_active|sent_pkts_total|rcvd_seq_err_total)\b' <<<"$page" |
		sed 's/^/# /' >&3
	# node_exporter parsed the file: its own error gauge is 0 and our families are there
	grep -qx 'node_textfile_scrape_error 0' <<<"$page"
	grep -qx '# TYPE rxe_sent_pkts_total counter' <<<"$page"
	grep -q '^# HELP rxe_sent_pkts_total ' <<<"$page"
	[ "$(sample rxe_port_active "$page")" = 1 ]
	[ -n "$(sample rxe_sent_pkts_total "$page")" ]
	[ -n "$(sample rxe_rcvd_pkts_total "$page")" ]
	echo "$page" > "$BATS_FILE_TMPDIR/page0"
}

@test "under traffic the scraped counters grow" {
	page0=$(cat "$BATS_FILE_TMPDIR/page0")
	sent0=$(sample rxe_sent_pkts_total "$page0")
	"$RXECTL" test rxe_prom >/dev/null
	systemctl start rxe-prometheus.service	# what the timer does every 30 s, now
	run -0 scrape
	sent1=$(sample rxe_sent_pkts_total "$output")
	rcvd1=$(sample rxe_rcvd_pkts_total "$output")
	echo "# sent_pkts $sent0 -> $sent1, rcvd_pkts now $rcvd1" >&3
	[ "$sent1" -gt "$sent0" ]
	[ "$rcvd1" -gt "$(sample rxe_rcvd_pkts_total "$page0")" ]
}

@test "without the textfile directory the service is skipped, not failed" {
	systemctl stop rxe-prometheus.timer
	mv /var/lib/prometheus/node-exporter /var/lib/prometheus/node-exporter.away
	systemctl start rxe-prometheus.service
	res=$(systemctl show -P ConditionResult rxe-prometheus.service)
	mv /var/lib/prometheus/node-exporter.away /var/lib/prometheus/node-exporter
	[ "$res" = no ]
	[ "$(systemctl show -P Result rxe-prometheus.service)" = success ]
}
