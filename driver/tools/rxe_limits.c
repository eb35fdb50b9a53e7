// SPDX-License-Identifier: GPL-2.0
/* rxe_limits.c - create verbs objects until the device refuses, and check where it does. */

/*
 * Usage: rxe_limits DEVICE pd|cq|srq
 * Creates objects of one kind on DEVICE until creation fails, then reports how many it made
 * and why it stopped. Exit 0 when the device stopped at the limit query_device reports, with
 * ENOMEM or EINVAL: never past it, and at most 8 short of it (the kernel's own users of the
 * device, such as the MAD layer's PD, CQ and QP, count too); 1 when it stopped elsewhere or
 * not at all (it gives up 16 objects past the limit); 2 on bad usage.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_device_attr da;
	struct ibv_pd *pd;
	long made = 0, max;
	int i, n, err = 0;

	if (argc != 3 || (strcmp(argv[2], "pd") && strcmp(argv[2], "cq") && strcmp(argv[2], "srq"))) {
		fprintf(stderr, "usage: rxe_limits DEVICE pd|cq|srq\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx || ibv_query_device(ctx, &da)) {
		fprintf(stderr, "rxe_limits: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		fprintf(stderr, "rxe_limits: alloc_pd: %s\n", strerror(errno));
		return 1;
	}
	made = 1;
	max = !strcmp(argv[2], "pd") ? da.max_pd : !strcmp(argv[2], "cq") ? da.max_cq : da.max_srq;
	if (strcmp(argv[2], "pd"))
		made = 0;	/* the one PD above does not count for CQs and SRQs */
	for (; made <= max + 16; made++) {
		void *o;

		errno = 0;
		if (!strcmp(argv[2], "pd")) {
			o = ibv_alloc_pd(ctx);
		} else if (!strcmp(argv[2], "cq")) {
			o = ibv_create_cq(ctx, 1, NULL, NULL, 0);
		} else {
			struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };

			o = ibv_create_srq(pd, &sa);
		}
		if (!o) {
			err = errno;
			break;
		}
	}
	printf("created %ld %s, device limit %ld, stopped by: %s\n", made, argv[2], max,
	       err ? strerror(err) : "nothing");
	if (made > max || made < max - 8) {
		fprintf(stderr, "rxe_limits: the device did not stop at its limit of %ld\n", max);
		return 1;
	}
	if (err != ENOMEM && err != EINVAL) {
		fprintf(stderr, "rxe_limits: stopped with %s, not ENOMEM or EINVAL\n", strerror(err));
		return 1;
	}
	return 0;
}
