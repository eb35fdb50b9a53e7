#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# rxectl on a kernel that enforces module signatures, as under Secure Boot (issue 40): the guest
# boots with lockdown=integrity (diag_lockdown.append), as Debian's kernel locks itself down under
# Secure Boot; sig_enforce is turned on later, at run time (it can only be turned on). The bundled
# rdma_rxe that `make driver` builds is unsigned, so the kernel refuses it: driver, up and doctor
# must name that cause and the fix (DKMS's key enrolled with mokutil, or the kernel's own signed
# rdma_rxe), never "run rxectl as root". Debian's own rdma_rxe (signed) still loads.

bats_require_minimum_version 1.5.0
load lib

setup_file() {
	require_guest
	[ "$(cat /sys/kernel/security/lockdown)" = "none [integrity] confidentiality" ] || {
		echo "not locked down: the guest was booted without lockdown=integrity (diag_lockdown.append)" >&2
		return 1
	}
	# Installed as `make -C driver module-install` does, without its depmod (a minute under TCG):
	# rxectl finds it under updates/ all the same and loads it by file.
	mkdir -p "/lib/modules/$(uname -r)/updates"
	cp "$(bundled_ko)" "/lib/modules/$(uname -r)/updates/rdma_rxe.ko"
	modprobe ib_uverbs
}

setup() {
	use_empty_config
	# as rxectl names it: resolved (/lib is /usr/lib on a merged /usr)
	BUNDLED="$(realpath "/lib/modules/$(uname -r)/updates")/rdma_rxe.ko"
}

teardown() {
	"$RXECTL" down --all >/dev/null 2>&1 || true
}

# refused TEXT ERROR SIG_ENFORCE: TEXT is the sentence for the refused unsigned bundled module:
# the kernel's error, the cause with the policy, DKMS's key and mokutil, the kernel's rdma_rxe.
refused() {
	local want="the kernel refused to load $BUNDLED ($2): it is unsigned, and this kernel loads only modules signed by a key it trusts (lockdown integrity, sig_enforce $3, Secure Boot off, kernel command line \`lockdown=integrity\`); have it signed and enroll the key: build it with DKMS (the rxe-dkms package, or \`make -C driver dkms-install\`), which on Debian signs it with /var/lib/dkms/mok.key, then run \`mokutil --import /var/lib/dkms/mok.pub\`, reboot and confirm the enrollment in MokManager; or use the kernel's own signed rdma_rxe: \`rxectl driver use kernel\` (\`driver = auto\` or \`kernel\` in rxe.conf); or boot without \`lockdown=integrity\` on the kernel command line"
	[ "$1" = "$want" ] || [ "$1" = "$want." ] || { printf 'got:  %s\nwant: %s\n' "$1" "$want"; return 1; }
}

check() { # JSON ID: that check of doctor's --json output
	jq -c --arg id "$2" '.checks[] | select(.id == $id)' <<<"$1"
}

@test "lockdown: the kernel refuses the unsigned bundled module (EPERM)" {
	run insmod "$(bundled_ko)"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	[ ! -d /sys/module/rdma_rxe ]
	dmesg | grep -q "Lockdown: insmod: unsigned module loading is restricted"
}

@test "lockdown: driver use bundled and up name the cause and the fix, not root; --json the same" {
	run -1 "$RXECTL" driver use bundled
	refused "${output#rxectl: }" "Operation not permitted" N
	[[ "$output" != *"run rxectl as root"* ]]
	run -1 --separate-stderr "$RXECTL" driver use bundled --json
	refused "$(jq -r .error.message <<<"$output")" "Operation not permitted" N
	[ "$(jq -r .error.exit_code <<<"$output")" = 1 ]
	printf '[global]\ndriver = bundled\n\n[eth0]\n' > "$RXECTL_CONFIG"
	run -1 "$RXECTL" up eth0
	refused "${lines[0]#rxectl: }" "Operation not permitted" N
	[ ! -d /sys/module/rdma_rxe ]
}

@test "lockdown: doctor fails driver.signature after the refusal, with the fix; driver status shows it" {
	run -1 "$RXECTL" driver use bundled
	printf '[global]\ndriver = bundled\n' > "$RXECTL_CONFIG"
	run -1 --separate-stderr "$RXECTL" doctor --json
	c=$(check "$output" driver.signature)
	[ "$(jq -r .status <<<"$c")" = fail ]
	[[ "$(jq -r .summary <<<"$c")" == "the kernel refused to load $BUNDLED on this boot (Operation not permitted): it is unsigned, and this kernel loads only modules signed by a key it trusts (lockdown integrity, sig_enforce N, Secure Boot off, kernel command line \`lockdown=integrity\`)." ]]
	[[ "$(jq -r .fix <<<"$c")" == "have it signed and enroll the key: build it with DKMS"*"\`mokutil --import /var/lib/dkms/mok.pub\`"*"\`rxectl driver use kernel\`"* ]]
	m=$(check "$output" module.rdma_rxe)
	[ "$(jq -r .status <<<"$m")" = warn ]	# not "can be loaded"
	[ "$(jq -r .summary <<<"$m")" = "rdma_rxe is not loaded, and the kernel refused the file \`rxectl up\` loads ($BUNDLED) on this boot: Operation not permitted." ]
	run -1 "$RXECTL" doctor
	[[ "$output" == *"[FAIL] driver.signature"*"the kernel refused to load $BUNDLED on this boot"*"fix: have it signed"* ]]
	run -0 --separate-stderr "$RXECTL" driver --json
	[ "$(jq -c '.module_signatures | [.enforced, .lockdown, .sig_enforce, .secure_boot, .refused.file]' <<<"$output")" = "[true,\"integrity\",false,false,\"$BUNDLED\"]" ]
	[ "$(jq -c --arg f "$BUNDLED" '.module_signatures.files[] | select(.file == $f) | [.signed, .signer, .trusted]' <<<"$output")" = '[false,null,null]' ]
	run -0 "$RXECTL" driver
	[[ "$output" == *"module signatures: enforced (lockdown integrity, sig_enforce N, Secure Boot off, kernel command line \`lockdown=integrity\`)"*"$BUNDLED: unsigned, so the kernel refuses it"*"refused on this boot: $BUNDLED (Operation not permitted)"* ]]
}

@test "sig_enforce=1: the kernel rejects the key (EKEYREJECTED) and rxectl says so" {
	echo 1 > /sys/module/module/parameters/sig_enforce
	[ "$(cat /sys/module/module/parameters/sig_enforce)" = Y ]
	run -1 "$RXECTL" driver use bundled
	refused "${output#rxectl: }" "Key was rejected by service" Y
	dmesg | grep -q "Loading of unsigned module is rejected"
}

@test "sig_enforce=1: a module signed by a key the kernel does not trust: doctor warns, the load names the signer" {
	[ "$(cat /sys/module/module/parameters/sig_enforce)" = Y ]
	sign_file=$(ls /usr/lib/linux-kbuild-*/scripts/sign-file | head -n1)
	openssl req -new -x509 -nodes -days 1 -batch -subj "/CN=rxectl test key" -newkey ec \
		-pkeyopt ec_paramgen_curve:prime256v1 -keyout "$BATS_TEST_TMPDIR/k.pem" \
		-out "$BATS_TEST_TMPDIR/c.pem" 2>/dev/null
	"$sign_file" sha256 "$BATS_TEST_TMPDIR/k.pem" "$BATS_TEST_TMPDIR/c.pem" "$BUNDLED"
	[ "$(modinfo -F signer "$BUNDLED")" = "rxectl test key" ]
	# a new file: the earlier refusal was of the unsigned one
	run -1 --separate-stderr "$RXECTL" doctor --json
	c=$(check "$output" driver.signature)
	[ "$(jq -r .status <<<"$c")" = warn ]
	[ "$(jq -r .summary <<<"$c")" = "module signatures are enforced (lockdown integrity, sig_enforce Y, Secure Boot off, kernel command line \`lockdown=integrity\`), and the bundled rdma_rxe $BUNDLED is signed by 'rxectl test key', a key none of the kernel's trusted keyrings (.builtin_trusted_keys, .secondary_trusted_keys, .machine, .platform) holds, so the kernel will refuse it." ]
	[[ "$(jq -r .fix <<<"$c")" == "enroll the key it is signed with as a Machine Owner Key: for DKMS's key (Debian's dkms signs with /var/lib/dkms/mok.key) run \`mokutil --import /var/lib/dkms/mok.pub\`, reboot and confirm the enrollment in MokManager; or use the kernel's own signed rdma_rxe"* ]]
	run -1 "$RXECTL" driver use bundled
	[[ "$output" == "rxectl: the kernel refused to load $BUNDLED (Key was rejected by service): it is signed by 'rxectl test key', a key none of the kernel's trusted keyrings"*"; enroll the key it is signed with as a Machine Owner Key"* ]]
	dmesg | grep -q "Loading of module with unavailable key is rejected"
	run -1 --separate-stderr "$RXECTL" doctor --json
	[ "$(check "$output" driver.signature | jq -r .status)" = fail ]
}

@test "lockdown and sig_enforce: the kernel's own signed rdma_rxe still loads, and up works on it" {
	stock=$(find "/lib/modules/$(uname -r)/kernel/drivers/infiniband/sw/rxe" -name 'rdma_rxe.ko*')
	[ -n "$(modinfo -F signer "$stock")" ]	# Debian signs its modules
	run -0 "$RXECTL" driver use kernel
	[[ "$output" == "rdma_rxe is now the in-tree driver"* ]]
	[ -d /sys/module/rdma_rxe ]
	[[ "$(cat /sys/module/rdma_rxe/version 2>/dev/null)" != rxectl-bundled* ]]
	run -0 "$RXECTL" up eth0
	[[ "$output" == "rxe_eth0 on eth0 was created and is ACTIVE"* ]]
	run -0 --separate-stderr "$RXECTL" doctor --json
	c=$(check "$output" driver.signature)
	[ "$(jq -r .status <<<"$c")" = warn ]	# the bundled one was refused, the in-tree one runs
	[[ "$(jq -r .summary <<<"$c")" == *"; the in-tree rdma_rxe is loaded instead." ]]
}
