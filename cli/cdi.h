/* SPDX-License-Identifier: GPL-2.0 */
/* cdi.h - the CDI (Container Device Interface) spec of the rxe devices: build, print as YAML, write, keep current. */
#ifndef RXECTL_CDI_H
#define RXECTL_CDI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

#include "rxectl.h"

#define CDI_KIND	"rxectl.io/rdma"
/* 0.5.0, not newer: Debian 12's podman 4.3 ignores a spec of a later version ("unresolvable
 * CDI devices"); containerd and CRI-O read every version up to theirs. */
#define CDI_VERSION	"0.5.0"
#define CDI_DIR		"/var/run/cdi"
#define CDI_FILE	"rxectl.yaml"
#define CDI_RDMA_CM	"/dev/infiniband/rdma_cm"

/* One device node a spec hands to containers. */
struct cdi_node {
	char path[64];		/* /dev/infiniband/uverbs0 */
	unsigned int major, minor;
};

/* One rxe device with its uverbs node. */
struct cdi_dev {
	char name[64];
	struct cdi_node node;
};

/* Is `name` usable as a CDI device name (alphanumeric at both ends; '_', '-', '.', ':' between)? */
bool cdi_name_ok(const char *name);

/*
 * The spec (a json-c object, json_object_put() it): one device per entry of `v` and `all`;
 * `cm` (NULL: none) goes to every container given any of them.  NULL if n is 0.
 */
struct json_object *cdi_spec_build(const struct cdi_dev *v, size_t n, const struct cdi_node *cm);
/* Print a spec (any json-c tree of objects, arrays, strings, numbers) as block YAML, after the
 * header comment lines of the spec. */
void cdi_yaml_print(FILE *f, struct json_object *spec);
/* The memlock note the spec's header carries and `rxectl cdi` prints. */
extern const char cdi_memlock_note[];

/*
 * The rxe devices with a uverbs node (skipped ones are said with log_warn when `say`, else
 * log_debug), and rdma_cm in *cm if present (*have_cm).  *out malloc'd.  0 or -errno (said).
 */
int cdi_collect(struct rxectl *ctx, struct cdi_dev **out, size_t *n, struct cdi_node *cm,
		bool *have_cm, bool say);
/*
 * Write `spec` to DIR/rxectl.yaml atomically (mode 0644, DIR created), or remove that file when
 * spec is NULL.  With `if_changed`, a file with the same content is left alone and *changed
 * says whether anything happened.  0 or -errno (nothing printed).
 */
int cdi_write(const char *dir, struct json_object *spec, bool if_changed, bool *changed);
/*
 * Bring CDI_DIR/rxectl.yaml in line with the devices there are now (up, down and the monitor
 * call this after devices come and go).  Quiet unless it fails (a warning).
 */
void cdi_refresh(struct rxectl *ctx);

#endif
