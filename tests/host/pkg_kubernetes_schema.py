#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Check Kubernetes manifests against the API's types, offline: the models of Debian's
# python3-kubernetes (the API of its release) know every field's name, type and whether it is
# required. Prints one line per problem ("FILE: Kind/name: path: what is wrong") and exits 1 if there
# is any, 2 on bad usage or unreadable YAML, 0 when every object conforms.
#   tests/host/pkg_kubernetes_schema.py FILE...
import re
import sys

import yaml
import kubernetes.client as k8s

KINDS = {  # apiVersion/kind -> model class
    "v1/ConfigMap": k8s.V1ConfigMap,
    "apps/v1/DaemonSet": k8s.V1DaemonSet,
    "v1/Pod": k8s.V1Pod,
    "v1/Namespace": k8s.V1Namespace,
    "v1/ServiceAccount": k8s.V1ServiceAccount,
}
PRIMITIVE = {"str": str, "int": int, "bool": bool, "float": (int, float)}


def check(value, typ, path, errs):
    """Check `value` against the openapi type string `typ` of python-kubernetes."""
    if value is None:
        return
    m = re.fullmatch(r"list\[(.+)\]", typ)
    if m:
        if not isinstance(value, list):
            errs.append(f"{path}: must be a list, not {type(value).__name__}")
            return
        for i, v in enumerate(value):
            check(v, m.group(1), f"{path}[{i}]", errs)
        return
    m = re.fullmatch(r"dict\(str, (.+)\)", typ)
    if m:
        if not isinstance(value, dict):
            errs.append(f"{path}: must be a map, not {type(value).__name__}")
            return
        for k, v in value.items():
            check(v, m.group(1), f"{path}.{k}", errs)
        return
    if typ == "object":
        return  # IntOrString, Quantity ... : any scalar
    if typ in PRIMITIVE:
        ok = isinstance(value, PRIMITIVE[typ]) and not (typ != "bool" and isinstance(value, bool))
        if not ok:
            errs.append(f"{path}: must be {typ}, not {type(value).__name__} ({value!r})")
        return
    if typ == "datetime":
        return
    cls = getattr(k8s, typ, None)
    if cls is None:
        errs.append(f"{path}: the checker does not know type {typ}")
        return
    if not isinstance(value, dict):
        errs.append(f"{path}: must be a {typ} object, not {type(value).__name__}")
        return
    by_json = {j: p for p, j in cls.attribute_map.items()}
    for k, v in value.items():
        if k not in by_json:
            errs.append(f"{path}.{k}: unknown field of {typ}")
            continue
        check(v, cls.openapi_types[by_json[k]], f"{path}.{k}", errs)
    # Required fields: the model's setters refuse None for them.
    cfg = k8s.Configuration()
    cfg.client_side_validation = True
    for p, j in cls.attribute_map.items():
        if value.get(j) is not None:
            continue
        try:
            obj = cls.__new__(cls)
            obj.local_vars_configuration = cfg
            setattr(obj, p, None)
        except ValueError:
            errs.append(f"{path}.{j}: required field of {typ} is missing")


def main(files):
    if not files:
        print("usage: pkg_kubernetes_schema.py FILE...", file=sys.stderr)
        return 2
    bad = False
    for f in files:
        try:
            with open(f) as fh:
                docs = [d for d in yaml.safe_load_all(fh) if d is not None]
        except (OSError, yaml.YAMLError) as e:
            print(f"{f}: cannot read it as YAML: {e}", file=sys.stderr)
            return 2
        for d in docs:
            if not isinstance(d, dict):
                print(f"{f}: a document is not an object")
                bad = True
                continue
            key = f"{d.get('apiVersion')}/{d.get('kind')}"
            name = f"{d.get('kind')}/{(d.get('metadata') or {}).get('name')}"
            cls = KINDS.get(key)
            if cls is None:
                print(f"{f}: {name}: the checker does not know {key}")
                bad = True
                continue
            errs = []
            check(d, cls.__name__, "", errs)
            for e in errs:
                print(f"{f}: {name}: {e.lstrip('.')}")
            bad = bad or bool(errs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
