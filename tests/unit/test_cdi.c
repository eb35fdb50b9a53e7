// SPDX-License-Identifier: GPL-2.0
/* test_cdi.c - the CDI spec: its content, its YAML (checked by python3's yaml against the JSON), names, the atomic write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cdi.h"
#include "tap.h"

/* python3: the YAML file parses to the JSON document, and follows CDI's rules for 0.5.0. */
static const char check_py[] =
	"import json, re, sys, yaml\n"
	"y = yaml.safe_load(open(sys.argv[1]))\n"
	"j = json.load(open(sys.argv[2]))\n"
	"assert y == j, 'YAML and JSON differ'\n"
	"assert set(y) <= {'cdiVersion', 'kind', 'devices', 'containerEdits'}, sorted(y)\n"
	"assert re.fullmatch(r'\\d+\\.\\d+\\.\\d+', y['cdiVersion'])\n"
	"vendor, cls = y['kind'].split('/')\n"
	"assert all(re.fullmatch(r'[a-z0-9]([a-z0-9-]*[a-z0-9])?', l) for l in vendor.split('.'))\n"
	"assert re.fullmatch(r'[A-Za-z0-9]([A-Za-z0-9_-]*[A-Za-z0-9])?', cls)\n"
	"assert y['devices'], 'no devices'\n"
	"names = [d['name'] for d in y['devices']]\n"
	"assert len(set(names)) == len(names)\n"
	"def edits(e):\n"
	"    assert set(e) <= {'env', 'deviceNodes', 'mounts', 'hooks'}, sorted(e)\n"
	"    for v in e.get('env', []): assert re.fullmatch(r'[A-Za-z_][A-Za-z0-9_]*=.*', v), v\n"
	"    for n in e.get('deviceNodes', []):\n"
	"        assert set(n) <= {'path', 'hostPath', 'type', 'major', 'minor', 'fileMode', 'permissions', 'uid', 'gid'}\n"
	"        assert n['path'].startswith('/dev/') and n['type'] in 'bcup'\n"
	"        assert isinstance(n['major'], int) and isinstance(n['minor'], int)\n"
	"        assert re.fullmatch(r'[rwm]+', n['permissions'])\n"
	"for d in y['devices']:\n"
	"    assert re.fullmatch(r'[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?', d['name']), d['name']\n"
	"    assert set(d) == {'name', 'containerEdits'}\n"
	"    edits(d['containerEdits'])\n"
	"edits(y.get('containerEdits', {}))\n";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = calloc(1, 65536);

	if (f && buf)
		buf[fread(buf, 1, 65535, f)] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static void test_names(void)
{
	ok(cdi_name_ok("rxe_eth0"), "rxe_eth0 is a CDI device name");
	ok(cdi_name_ok("rxe0") && cdi_name_ok("0rxe") && cdi_name_ok("a.b-c:d"), "letters, digits, . - : between");
	ok(!cdi_name_ok("rxe_") && !cdi_name_ok("-rxe") && !cdi_name_ok("") && !cdi_name_ok("a/b"),
	   "a name ending or starting with _ or -, empty, or with / is not");
}

static void test_spec(const char *dir)
{
	struct cdi_dev v[2] = { { .name = "rxe_eth0", .node = { "/dev/infiniband/uverbs0", 231, 192 } },
				{ .name = "rxe_k", .node = { "/dev/infiniband/uverbs1", 231, 193 } } };
	struct cdi_node cm = { "/dev/infiniband/rdma_cm", 10, 123 };
	struct json_object *spec = cdi_spec_build(v, 2, &cm), *devs, *d0, *all;
	char yml[512], js[512], py[512], cmd[2048];
	FILE *f;

	ok(cdi_spec_build(v, 0, &cm) == NULL, "no devices: no spec");
	ok(spec != NULL, "a spec for two devices");
	if (!spec)
		return;
	ok(!strcmp(json_object_get_string(json_object_object_get(spec, "cdiVersion")), "0.5.0") &&
	   !strcmp(json_object_get_string(json_object_object_get(spec, "kind")), "rxectl.io/rdma"),
	   "cdiVersion 0.5.0, kind rxectl.io/rdma");
	devs = json_object_object_get(spec, "devices");
	ok(json_object_array_length(devs) == 3, "one device each and all");
	d0 = json_object_array_get_idx(devs, 0);
	all = json_object_array_get_idx(devs, 2);
	ok(!strcmp(json_object_to_json_string_ext(d0, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
		   "{\"name\":\"rxe_eth0\",\"containerEdits\":{\"env\":[\"RXECTL_RDMA_DEVICES=rxe_eth0\","
		   "\"UCX_NET_DEVICES=rxe_eth0:1\"],\"deviceNodes\":[{\"path\":\"/dev/infiniband/uverbs0\","
		   "\"type\":\"c\",\"major\":231,\"minor\":192,\"permissions\":\"rw\"}]}}"),
	   "rxe_eth0: its uverbs node and the env naming it");
	ok(strstr(json_object_to_json_string(all), "\"RXECTL_RDMA_DEVICES=rxe_eth0,rxe_k\"") &&
	   strstr(json_object_to_json_string(all), "uverbs1") &&
	   !strcmp(json_object_get_string(json_object_object_get(all, "name")), "all"),
	   "all: every node, every name");
	ok(strstr(json_object_to_json_string_ext(json_object_object_get(spec, "containerEdits"), JSON_C_TO_STRING_NOSLASHESCAPE),
		  "/dev/infiniband/rdma_cm"), "rdma_cm goes with any device (the spec's containerEdits)");

	snprintf(yml, sizeof(yml), "%s/spec.yaml", dir);
	snprintf(js, sizeof(js), "%s/spec.json", dir);
	snprintf(py, sizeof(py), "%s/check.py", dir);
	f = fopen(yml, "w");
	cdi_yaml_print(f, spec);
	fclose(f);
	f = fopen(js, "w");
	fputs(json_object_to_json_string(spec), f);
	fclose(f);
	f = fopen(py, "w");
	fputs(check_py, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 %s %s %s", py, yml, js);
	ok(system(cmd) == 0, "the YAML parses (python3 yaml) to the JSON, and follows CDI's rules");
	{
		char *t = slurp(yml);

		ok(t && !strncmp(t, "# ", 2) && strstr(t, "memlock") &&
		   strstr(t, "\ncdiVersion: \"0.5.0\"\nkind: \"rxectl.io/rdma\"\ndevices:\n  - name: \"rxe_eth0\"\n"
			     "    containerEdits:\n      env:\n        - \"RXECTL_RDMA_DEVICES=rxe_eth0\"\n"),
		   "block YAML after the header comment with the memlock note");
		free(t);
	}
	/* a string that needs escaping still round-trips */
	json_object_object_add(spec, "containerEdits", json_object_new_object());
	json_object_object_add(json_object_object_get(spec, "containerEdits"), "env",
			       json_object_new_array());
	json_object_array_add(json_object_object_get(json_object_object_get(spec, "containerEdits"), "env"),
			      json_object_new_string("X=a \"q\" \\ \t: # -"));
	f = fopen(yml, "w");
	cdi_yaml_print(f, spec);
	fclose(f);
	f = fopen(js, "w");
	fputs(json_object_to_json_string(spec), f);
	fclose(f);
	ok(system(cmd) == 0, "quotes, backslashes, tabs, ': ' and ' #' in a value round-trip");

	/* the write: atomic, 0644, the same content left alone, removed without a spec */
	{
		char out[512], path[600];
		struct stat st;
		bool changed = false;

		snprintf(out, sizeof(out), "%s/cdi", dir);
		snprintf(path, sizeof(path), "%s/rxectl.yaml", out);
		umask(077);
		ok(cdi_write(out, spec, true, &changed) == 0 && changed, "written (directory created)");
		ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644, "mode 0644 whatever the umask");
		ok(cdi_write(out, spec, true, &changed) == 0 && !changed, "the same content: left alone");
		ok(cdi_write(out, spec, false, &changed) == 0 && changed, "without if_changed: written");
		snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) = 1", out);
		ok(system(cmd) == 0, "no temporary file left behind");
		ok(cdi_write(out, NULL, true, &changed) == 0 && changed && access(path, F_OK) != 0,
		   "no spec: the file is removed");
		ok(cdi_write(out, NULL, true, &changed) == 0 && !changed, "removing it again is no error");
		ok(cdi_write("/proc/nonexistent/x", spec, false, NULL) < 0, "an unwritable directory is an error");
	}
	json_object_put(spec);
}

int main(void)
{
	char dir[] = "/tmp/test_cdi.XXXXXX", cmd[64];

	if (!mkdtemp(dir))
		return 1;
	test_names();
	test_spec(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	tap_plan(tap_n);
	return tap_done();
}
