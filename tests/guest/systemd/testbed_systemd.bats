#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The systemd test bed: systemd is PID 1 and udev runs.

@test "systemd is PID 1 and udev is running" {
	[ "$(cat /proc/1/comm)" = systemd ]
	systemctl is-active systemd-udevd
}
