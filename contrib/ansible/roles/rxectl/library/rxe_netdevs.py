#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Ansible module of the rxectl role: pick the netdevs that carry rxe by name, by MAC address or by
# an IPv4/IPv6 network (CIDR) one of their addresses is in.  Read-only: it changes nothing.
"""Pick the netdevs that should carry a Soft-RoCE (rxe) device."""

import ipaddress
import json
import os
import subprocess

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
module: rxe_netdevs
short_description: pick netdevs by name, MAC or CIDR for rxectl
description:
  - Returns the netdevs that match each selector, with their MAC, MTU and addresses.
    Fails when a selector matches no netdev, or when one selector has no key.
options:
  select:
    description: list of selectors, each with one of name, mac, cidr (and optionally mtu)
    type: list
    required: true
"""

RETURN = r"""
netdevs:
  description: one entry per selected netdev, in selector order, without duplicates
  type: list
  elements: dict
  returned: always
  sample: [{"name": "eth0", "mac": "52:54:00:00:02:01", "mtu": 1500, "want_mtu": 9000,
            "addresses": ["192.0.2.1/24"], "selector": "cidr=192.0.2.0/24"}]
"""


def netdevs():
    """The host's netdevs as {name: {mac, mtu, addresses}} (from `ip -j addr`)."""
    out = subprocess.run(["ip", "-j", "addr", "show"], check=True, capture_output=True, text=True)
    devs = {}
    for link in json.loads(out.stdout):
        name = link["ifname"]
        if name == "lo" or not os.path.exists("/sys/class/net/" + name):
            continue
        devs[name] = {
            "mac": (link.get("address") or "").lower(),
            "mtu": link.get("mtu"),
            "addresses": ["%s/%s" % (a["local"], a["prefixlen"]) for a in link.get("addr_info", [])],
        }
    return devs


def matches(sel, name, dev):
    if "name" in sel:
        return name == sel["name"]
    if "mac" in sel:
        return dev["mac"] == str(sel["mac"]).lower()
    net = ipaddress.ip_network(sel["cidr"], strict=False)
    return any(ipaddress.ip_interface(a).ip in net for a in dev["addresses"])


def main():
    module = AnsibleModule(argument_spec={"select": {"type": "list", "required": True}},
                           supports_check_mode=True)
    devs = netdevs()
    picked, seen = [], set()
    for sel in module.params["select"]:
        if not isinstance(sel, dict):
            module.fail_json(msg="rxectl_netdevs entry %r is not a mapping such as {name: eth0}" % (sel,))
        keys = [k for k in ("name", "mac", "cidr") if k in sel]
        if len(keys) != 1:
            module.fail_json(msg="rxectl_netdevs entry %r needs exactly one of name, mac, cidr" % (sel,))
        key = keys[0]
        if key == "cidr":
            try:
                ipaddress.ip_network(sel["cidr"], strict=False)
            except ValueError as e:
                module.fail_json(msg="rxectl_netdevs entry %r: %s" % (sel, e))
        found = [n for n in sorted(devs) if matches(sel, n, devs[n])]
        if not found:
            module.fail_json(msg="rxectl_netdevs: no netdev on this host has %s %s (netdevs: %s)"
                             % (key, sel[key], ", ".join(sorted(devs)) or "none"))
        for n in found:
            if n in seen:
                continue
            seen.add(n)
            picked.append(dict(devs[n], name=n, want_mtu=sel.get("mtu"),
                               selector="%s=%s" % (key, sel[key])))
    module.exit_json(changed=False, netdevs=picked)


if __name__ == "__main__":
    main()
