#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl ping names the layer that fails: no listener, a firewall dropping UDP 4791, no rxe device
# on the peer, loss after full-size frames passed, and an MTU mismatch.  Guest a is the peer
# (192.0.2.1); guest b runs the client, except where a test says otherwise.  Every test ends at a
# barrier so the guests stay in step.

bats_require_minimum_version 1.5.0
load ping_lib

setup_file() {
	[ -n "${VM_ROLE:-}" ] || skip "not in a pair of test bed guests"
	rxe_up
	barrier up
}

teardown() {
	end_barriers
}

teardown_file() {
	stop_listener
	nft delete table inet rxectl_test 2>/dev/null || true
	ip link set eth0 mtu 1500 2>/dev/null || true
	"$RXECTL" down --all >/dev/null 2>&1 || true
}

@test "a peer whose listener has stopped: named as the listener not running" {
	end_barrier no-listener no-listener-done
	if [ "$VM_ROLE" = a ]; then
		start_listener
		stop_listener
	fi
	barrier no-listener
	if [ "$VM_ROLE" = b ]; then
		run -1 --separate-stderr "$RXECTL" ping "$VM_PEER_IP" --json --count 1 --timeout 15
		echo "$output"; echo "$stderr"
		jq -e '.result == "fail" and .diagnosis.layer == "listener"' <<< "$output"
		[[ "$stderr" == *"rxectl: 192.0.2.1 has an RDMA device and answers RDMA CM, but nothing listens on that port: the listener is not running."* ]]
	fi
	barrier no-listener-done
}

@test "a peer dropping inbound UDP 4791: the client fails within its timeout and names the CM layer and the firewall" {
	end_barrier firewall-up firewall-done
	if [ "$VM_ROLE" = a ]; then
		nft add table inet rxectl_test
		nft add chain inet rxectl_test in '{ type filter hook input priority 0; }'
		nft add rule inet rxectl_test in udp dport 4791 drop
		start_listener
	fi
	barrier firewall-up
	if [ "$VM_ROLE" = b ]; then
		start=$SECONDS
		run -1 --separate-stderr "$RXECTL" ping "$VM_PEER_IP" --json --count 1 --timeout 5
		elapsed=$((SECONDS - start))
		echo "$output"; echo "$stderr"; echo "took ${elapsed}s"
		# 5 s for RDMA CM, about 1 s probing UDP 4791, and slack for a slow guest.
		[ "$elapsed" -le 30 ]
		jq -e '.diagnosis.layer == "cm"' <<< "$output"
		[[ "$stderr" == *"RDMA CM got no answer from 192.0.2.1 before the timeout"* ]]
		[[ "$stderr" == *"firewall on 192.0.2.1 dropping inbound UDP 4791"* ]]
		[[ "$stderr" == *"UDP 4791 is not filtered on this side."* ]]
		[[ "$stderr" == *"\`rxectl doctor\` on 192.0.2.1 (check firewall.udp4791)"* ]]
	fi
	barrier firewall-done
	if [ "$VM_ROLE" = a ]; then
		nft delete table inet rxectl_test
		stop_listener
		# The listener never saw the request.
		! grep -q "connected" "$BATS_FILE_TMPDIR/listener.log"
	fi
}

@test "this side dropping inbound UDP 4791: named as this side's firewall, with the rule" {
	end_barrier local-firewall-up local-firewall-done
	[ "$VM_ROLE" = a ] && start_listener
	if [ "$VM_ROLE" = b ]; then
		nft add table inet rxectl_test
		nft add chain inet rxectl_test in '{ type filter hook input priority 0; }'
		nft add rule inet rxectl_test in udp dport 4791 drop
	fi
	barrier local-firewall-up
	if [ "$VM_ROLE" = b ]; then
		run -1 --separate-stderr "$RXECTL" ping "$VM_PEER_IP" --json --count 1 --timeout 5
		echo "$output"; echo "$stderr"
		nft delete table inet rxectl_test
		jq -e '.diagnosis.layer == "firewall"' <<< "$output"
		[[ "$stderr" == *"inbound UDP 4791 (RoCE v2) is filtered on this side: nftables inet table rxectl_test, chain in, rule \`udp dport 4791 drop\` drops it"* ]]
	fi
	barrier local-firewall-done
	[ "$VM_ROLE" = a ] && stop_listener
	true
}

@test "a peer without an rxe device: named as no rxe device there" {
	end_barrier no-rxe no-rxe-done
	if [ "$VM_ROLE" = a ]; then
		"$RXECTL" down --all >/dev/null
		modprobe -r rdma_rxe
	fi
	barrier no-rxe
	if [ "$VM_ROLE" = b ]; then
		run -1 --separate-stderr "$RXECTL" ping "$VM_PEER_IP" --json --count 1 --timeout 10
		echo "$output"; echo "$stderr"
		jq -e '.diagnosis.layer == "no_rxe"' <<< "$output"
		[[ "$stderr" == *"192.0.2.1 has no rxe (or other RoCE) device on that address. Run \`rxectl up NETDEV\` on 192.0.2.1"* ]]
	fi
	barrier no-rxe-done
	if [ "$VM_ROLE" = a ]; then
		rxe_up
	fi
}

@test "full-size frames passed, then the path drops them: named as loss with both sides' counters, not the MTU" {
	end_barrier loss-up loss-done loss-stopped
	[ "$VM_ROLE" = a ] && start_listener
	barrier loss-up
	if [ "$VM_ROLE" = b ]; then
		# Once 4K (four full-size packets) has passed, this side drops every RoCE packet over
		# 600 bytes both ways: the 32M operations stall, RDMA CM's requests (~300 bytes) pass.
		nft add table inet rxectl_loss
		nft add chain inet rxectl_loss out '{ type filter hook output priority 0; }'
		nft add chain inet rxectl_loss in '{ type filter hook input priority 0; }'
		"$RXECTL" ping "$VM_PEER_IP" --sizes 4K,32M --count 1 --timeout 3 \
			> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
		local pid=$! st=0
		for _ in $(seq 400); do
			grep -qE '^ +4K +read .* yes$' "$BATS_TEST_TMPDIR/out" && break
			sleep 0.05
		done
		nft add rule inet rxectl_loss out udp dport 4791 meta length gt 600 drop
		nft add rule inet rxectl_loss in udp dport 4791 meta length gt 600 drop
		wait "$pid" || st=$?
		nft delete table inet rxectl_loss
		cat "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err"
		[ "$st" -eq 1 ]
		grep -qE '^ +4K +read .* yes$' "$BATS_TEST_TMPDIR/out"
		grep -q "messages up to 4K bytes pass (4 packets of up to 1024 bytes each" "$BATS_TEST_TMPDIR/err"
		grep -q "of 32M bytes did not complete in the 3 s waited" "$BATS_TEST_TMPDIR/err"
		grep -q "this side, during the test: completer_retry_err [0-9]" "$BATS_TEST_TMPDIR/err"
		grep -q "192.0.2.1, since its device was created: completer_retry_err [0-9]" "$BATS_TEST_TMPDIR/err"
		! grep -q "drops large frames" "$BATS_TEST_TMPDIR/err"
	fi
	barrier loss-done
	if [ "$VM_ROLE" = a ]; then
		listener_log
		grep -q "sent this side's loss counters" "$BATS_FILE_TMPDIR/listener.log"
		stop_listener
	fi
	barrier loss-stopped
}

@test "the larger-MTU side connecting: large messages never complete, named as an MTU mismatch with both MTUs" {
	end_barrier mtu-up mtu-done mtu-stopped
	if [ "$VM_ROLE" = a ]; then
		start_listener
	else
		ip link set eth0 mtu 9000
		for _ in $(seq 50); do
			"$RXECTL" status --json | jq -e '.devices[0].active_mtu == 4096' >/dev/null && break
			sleep 0.2
		done
	fi
	barrier mtu-up
	if [ "$VM_ROLE" = b ]; then
		run -1 --separate-stderr "$RXECTL" ping "$VM_PEER_IP" --json --sizes 1-8K --count 2 --timeout 10
		echo "$output"; echo "$stderr"
		jq -e '.diagnosis.layer == "mtu" and .local.netdev_mtu == 9000 and .peer.netdev_mtu == 1500
			and .local.active_mtu == 4096 and .peer.active_mtu == 1024' <<< "$output"
		# Everything up to the peer's RoCE MTU passed; the first size above it failed.
		jq -e '[.results[] | select(.passed) | .size] | max == 1024' <<< "$output"
		jq -e '.results[-1].passed == false and .results[-1].size == 2048' <<< "$output"
		[[ "$stderr" == *"MTU mismatch: messages up to 1K bytes pass"* ]]
		[[ "$stderr" == *"this side's netdev eth0 has MTU 9000 (RoCE active MTU 4096), the peer 192.0.2.1 has MTU 1500 (RoCE active MTU 1024)"* ]]
		[[ "$stderr" == *"\`ip link set dev eth0 mtu 1500\` here"* ]]
	fi
	barrier mtu-done
	[ "$VM_ROLE" = a ] && stop_listener
	barrier mtu-stopped
}

@test "the smaller-MTU side connecting passes, and warns that the other direction would not" {
	end_barrier mtu-reverse-up mtu-reverse-done
	[ "$VM_ROLE" = b ] && start_listener
	barrier mtu-reverse-up
	if [ "$VM_ROLE" = a ]; then
		run -0 --separate-stderr "$RXECTL" ping "$VM_PEER_IP" --sizes 1-8K --count 2 --timeout 15
		echo "$output"; echo "$stderr"
		[[ "$stderr" == *"the RoCE active MTUs differ: 1024 here, 4096 on 192.0.2.2"* ]]
		[[ "$stderr" == *"Give both netdevs the same MTU."* ]]
	fi
	barrier mtu-reverse-done
	[ "$VM_ROLE" = b ] && stop_listener
	true
}
