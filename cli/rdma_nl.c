// SPDX-License-Identifier: GPL-2.0
/* rdma_nl.c - RDMA netlink over libmnl: prepare a message, send it, parse the replies. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "log.h"
#include "rdma_nl.h"
#include "util.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif

#define RDMA_NL_BUFSIZE 32768

struct rdma_nl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	char ext_ack[256];
	char errbuf[512];
	char buf[RDMA_NL_BUFSIZE];
};

/* One policy table for the nldev family: the attributes we read and their types.
 * Anything else (including attributes newer than our headers) is skipped. */
static const enum mnl_attr_data_type nldev_policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_DEV_NAME]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_PORT_INDEX]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_FW_VERSION]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_NODE_GUID]		= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_PORT_STATE]		= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]	= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]		= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_NDEV_INDEX]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_NDEV_NAME]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_LINK_TYPE]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_DEV_PROTOCOL]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_CHARDEV_TYPE]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_CHARDEV_NAME]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID]	= MNL_TYPE_U32,
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]	= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]	= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY]	= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = MNL_TYPE_U64,
};

static int nldev_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, RDMA_NLDEV_ATTR_MAX - 1) < 0)
		return MNL_CB_OK;			/* newer than us: skip */
	if (nldev_policy[type] == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;			/* not one we read: skip */
	if (mnl_attr_validate(attr, nldev_policy[type]) < 0)
		return MNL_CB_ERROR;			/* known but malformed */
	tb[type] = attr;
	return MNL_CB_OK;
}

static int nldev_parse(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	memset(tb, 0, sizeof(*tb) * RDMA_NLDEV_ATTR_MAX);
	if (nlh->nlmsg_len < sizeof(*nlh))
		return -EINVAL;
	if (mnl_attr_parse(nlh, 0, nldev_attr_cb, tb) != MNL_CB_OK)
		return -EINVAL;
	return 0;
}

static void copy_str(char *dst, size_t len, const struct nlattr *attr)
{
	snprintf(dst, len, "%s", attr ? mnl_attr_get_str(attr) : "");
}

int rdma_nl_parse_dev(const struct nlmsghdr *nlh, struct rdma_dev_info *out)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];

	memset(out, 0, sizeof(*out));
	if (nldev_parse(nlh, tb) < 0)
		return -EINVAL;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return -EINVAL;
	out->index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	copy_str(out->name, sizeof(out->name), tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		out->num_ports = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE])
		out->node_type = mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]);
	if (tb[RDMA_NLDEV_ATTR_NODE_GUID])
		out->node_guid = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
	copy_str(out->protocol, sizeof(out->protocol), tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL]);
	copy_str(out->fw_version, sizeof(out->fw_version), tb[RDMA_NLDEV_ATTR_FW_VERSION]);
	return 0;
}

int rdma_nl_parse_port(const struct nlmsghdr *nlh, struct rdma_port_info *out)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];

	memset(out, 0, sizeof(*out));
	if (nldev_parse(nlh, tb) < 0)
		return -EINVAL;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME] ||
	    !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EINVAL;
	out->dev_index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	copy_str(out->dev_name, sizeof(out->dev_name), tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	out->port = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_PORT_STATE])
		out->state = mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_PORT_STATE]);
	if (tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE])
		out->phys_state = mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]);
	if (tb[RDMA_NLDEV_ATTR_NDEV_INDEX] && tb[RDMA_NLDEV_ATTR_NDEV_NAME]) {
		out->has_ndev = true;
		out->ndev_index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]);
		copy_str(out->ndev_name, sizeof(out->ndev_name), tb[RDMA_NLDEV_ATTR_NDEV_NAME]);
	}
	return 0;
}

static int err_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NLMSGERR_ATTR_MAX) < 0)
		return MNL_CB_OK;
	if (type == NLMSGERR_ATTR_MSG && mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
		return MNL_CB_OK;
	tb[type] = attr;
	return MNL_CB_OK;
}

int rdma_nl_parse_error(const struct nlmsghdr *nlh, char *ext_ack, size_t len)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = { 0 };
	size_t hlen = sizeof(*err);

	if (ext_ack && len)
		ext_ack[0] = '\0';
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err)))
		return -EBADMSG;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || !ext_ack)
		return err->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		hlen += mnl_nlmsg_get_payload_len(&err->msg);
	if (mnl_nlmsg_get_payload_len(nlh) > hlen &&
	    mnl_attr_parse(nlh, hlen, err_attr_cb, tb) == MNL_CB_OK &&
	    tb[NLMSGERR_ATTR_MSG])
		snprintf(ext_ack, len, "%s", mnl_attr_get_str(tb[NLMSGERR_ATTR_MSG]));
	return err->error;
}

int rdma_nl_open(struct rdma_nl **out)
{
	struct rdma_nl *nl = calloc(1, sizeof(*nl));
	int one = 1, err;

	if (!nl)
		return -ENOMEM;
	nl->sock = mnl_socket_open2(NETLINK_RDMA, SOCK_CLOEXEC);
	if (!nl->sock) {
		err = -errno;
		free(nl);
		return err;
	}
	/* Best effort: older kernels have no extended ACKs. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		mnl_socket_close(nl->sock);
		free(nl);
		return err;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (uint32_t)time(NULL);
	*out = nl;
	return 0;
}

void rdma_nl_close(struct rdma_nl *nl)
{
	if (!nl)
		return;
	mnl_socket_close(nl->sock);
	free(nl);
}

const char *rdma_nl_ext_ack(const struct rdma_nl *nl)
{
	return nl ? nl->ext_ack : "";
}

const char *rdma_nl_strerror(const struct rdma_nl *nl, int err)
{
	static char fallback[256];
	char *buf = nl ? (char *)nl->errbuf : fallback;
	size_t len = nl ? sizeof(nl->errbuf) : sizeof(fallback);

	if (err < 0)
		err = -err;
	if (nl && nl->ext_ack[0])
		snprintf(buf, len, "%s (%s)", nl->ext_ack, strerror(err));
	else
		snprintf(buf, len, "%s", strerror(err));
	return buf;
}

static struct nlmsghdr *prepare(void *buf, size_t len, uint32_t seq, int cmd, uint16_t flags)
{
	struct nlmsghdr *nlh;

	if (len < MNL_NLMSG_HDRLEN)
		return NULL;
	memset(buf, 0, MNL_NLMSG_HDRLEN);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	return nlh;
}

struct nlmsghdr *rdma_nl_build_newlink(void *buf, size_t len, uint32_t seq,
				       const char *dev_name, const char *link_type,
				       const char *ndev)
{
	struct nlmsghdr *nlh = prepare(buf, len, seq, RDMA_NLDEV_CMD_NEWLINK, NLM_F_ACK);

	if (!nlh)
		return NULL;
	if (!mnl_attr_put_strz_check(nlh, len, RDMA_NLDEV_ATTR_DEV_NAME, dev_name) ||
	    !mnl_attr_put_strz_check(nlh, len, RDMA_NLDEV_ATTR_LINK_TYPE, link_type) ||
	    !mnl_attr_put_strz_check(nlh, len, RDMA_NLDEV_ATTR_NDEV_NAME, ndev))
		return NULL;
	return nlh;
}

struct nlmsghdr *rdma_nl_build_dellink(void *buf, size_t len, uint32_t seq, uint32_t dev_index)
{
	struct nlmsghdr *nlh = prepare(buf, len, seq, RDMA_NLDEV_CMD_DELLINK, NLM_F_ACK);

	if (!nlh || !mnl_attr_put_u32_check(nlh, len, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index))
		return NULL;
	return nlh;
}

typedef int (*reply_fn)(const struct nlmsghdr *nlh, void *data);

/*
 * Send nlh and read replies until the ACK (requests) or NLMSG_DONE (dumps).
 * Every data message is passed to fn.  Returns 0 or the kernel's -errno,
 * with its extended-ACK text saved in nl->ext_ack.
 */
static int transact(struct rdma_nl *nl, struct nlmsghdr *nlh, reply_fn fn, void *data)
{
	uint32_t seq = nlh->nlmsg_seq;
	int result = 0;

	nl->ext_ack[0] = '\0';
	if (log_verbosity() > 1)
		log_debug("netlink: sending RDMA_NLDEV command %u (%u bytes)",
			  RDMA_NL_GET_OP(nlh->nlmsg_type), nlh->nlmsg_len);
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;

	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		const struct nlmsghdr *r = (const struct nlmsghdr *)nl->buf;
		int rem;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		rem = (int)n;
		for (; mnl_nlmsg_ok(r, rem); r = mnl_nlmsg_next(r, &rem)) {
			if (!mnl_nlmsg_seq_ok(r, seq) || !mnl_nlmsg_portid_ok(r, nl->portid))
				continue;
			if (r->nlmsg_type == NLMSG_ERROR) {
				int err = rdma_nl_parse_error(r, nl->ext_ack, sizeof(nl->ext_ack));

				if (err < 0)
					log_debug("netlink: error %d%s%s", err,
						  nl->ext_ack[0] ? ": " : "", nl->ext_ack);
				return err < 0 ? err : result;
			}
			if (r->nlmsg_type == NLMSG_DONE) {
				/* A failed dump reports its error here. */
				if (r->nlmsg_len >= mnl_nlmsg_size(sizeof(int))) {
					int err = *(const int *)mnl_nlmsg_get_payload(r);

					if (err < 0)
						return err;
				}
				return result;
			}
			if (r->nlmsg_type < NLMSG_MIN_TYPE)
				continue;
			if (fn && result == 0)
				result = fn(r, data);
		}
	}
}

struct vec {
	void *items;
	size_t n, cap, size;
};

static void *vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		void *p = realloc(v->items, cap * v->size);

		if (!p)
			return NULL;
		v->items = p;
		v->cap = cap;
	}
	return (char *)v->items + v->size * v->n++;
}

static int dev_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rdma_dev_info *d = vec_push(data);

	if (!d)
		return -ENOMEM;
	if (rdma_nl_parse_dev(nlh, d) < 0)
		((struct vec *)data)->n--;	/* malformed: skip it */
	return 0;
}

static int port_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rdma_port_info *p = vec_push(data);

	if (!p)
		return -ENOMEM;
	if (rdma_nl_parse_port(nlh, p) < 0)
		((struct vec *)data)->n--;
	return 0;
}

int rdma_nl_list_devs(struct rdma_nl *nl, struct rdma_dev_info **out, size_t *n)
{
	struct vec v = { .size = sizeof(struct rdma_dev_info) };
	struct nlmsghdr *nlh = prepare(nl->buf, sizeof(nl->buf), ++nl->seq,
				       RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
	int err = transact(nl, nlh, dev_cb, &v);

	if (err < 0) {
		free(v.items);
		return err;
	}
	*out = v.items;
	*n = v.n;
	return 0;
}

/* The kernel dumps ports one device at a time (RDMA_NLDEV_ATTR_DEV_INDEX is required). */
int rdma_nl_list_ports(struct rdma_nl *nl, struct rdma_port_info **out, size_t *n)
{
	struct vec v = { .size = sizeof(struct rdma_port_info) };
	struct rdma_dev_info *devs = NULL;
	size_t ndevs = 0;
	int err = rdma_nl_list_devs(nl, &devs, &ndevs);

	for (size_t i = 0; err == 0 && i < ndevs; i++) {
		struct nlmsghdr *nlh = prepare(nl->buf, sizeof(nl->buf), ++nl->seq,
					       RDMA_NLDEV_CMD_PORT_GET, NLM_F_DUMP);

		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, devs[i].index);
		err = transact(nl, nlh, port_cb, &v);
		if (err == -ENODEV || err == -EINVAL)
			err = 0;	/* the device went away meanwhile */
	}
	free(devs);
	if (err < 0) {
		free(v.items);
		return err;
	}
	*out = v.items;
	*n = v.n;
	return 0;
}

static int one_port_cb(const struct nlmsghdr *nlh, void *data)
{
	return rdma_nl_parse_port(nlh, data);
}

int rdma_nl_get_port(struct rdma_nl *nl, uint32_t dev_index, uint32_t port,
		     struct rdma_port_info *out)
{
	struct nlmsghdr *nlh = prepare(nl->buf, sizeof(nl->buf), ++nl->seq,
				       RDMA_NLDEV_CMD_PORT_GET, NLM_F_ACK);

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	memset(out, 0, sizeof(*out));
	return transact(nl, nlh, one_port_cb, out);
}

static int chardev_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	uint32_t *id = data;

	if (nldev_parse(nlh, tb) < 0 || !tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID])
		return -ENOENT;
	*id = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID]);
	return 0;
}

int rdma_nl_driver_id(struct rdma_nl *nl, uint32_t dev_index, uint32_t *driver_id)
{
	struct nlmsghdr *nlh = prepare(nl->buf, sizeof(nl->buf), ++nl->seq,
				       RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_ACK);

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs");
	return transact(nl, nlh, chardev_cb, driver_id);
}

int rdma_nl_newlink(struct rdma_nl *nl, const char *dev_name, const char *link_type,
		    const char *ndev)
{
	struct nlmsghdr *nlh = rdma_nl_build_newlink(nl->buf, sizeof(nl->buf), ++nl->seq,
						     dev_name, link_type, ndev);

	if (!nlh)
		return -EINVAL;
	return transact(nl, nlh, NULL, NULL);
}

int rdma_nl_dellink(struct rdma_nl *nl, uint32_t dev_index)
{
	struct nlmsghdr *nlh = rdma_nl_build_dellink(nl->buf, sizeof(nl->buf), ++nl->seq,
						     dev_index);

	if (!nlh)
		return -EINVAL;
	return transact(nl, nlh, NULL, NULL);
}

const char *rdma_port_state_str(uint8_t state)
{
	static const char *const names[] = {
		[0] = "NOP", [1] = "DOWN", [2] = "INIT", [3] = "ARMED",
		[4] = "ACTIVE", [5] = "ACTIVE_DEFER",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "UNKNOWN";
}

const char *rdma_phys_state_str(uint8_t phys_state)
{
	static const char *const names[] = {
		[0] = "UNKNOWN", [1] = "SLEEP", [2] = "POLLING", [3] = "DISABLED",
		[4] = "TRAINING", [5] = "LINK_UP", [6] = "LINK_ERROR_RECOVERY",
		[7] = "PHY_TEST",
	};

	return phys_state < ARRAY_SIZE(names) ? names[phys_state] : "UNKNOWN";
}

static int sys_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];

	if (nldev_parse(nlh, tb) < 0 || !tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE])
		return -EOPNOTSUPP;
	*(int *)data = mnl_attr_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]);
	return 0;
}

int rdma_nl_netns_mode(struct rdma_nl *nl, int *shared)
{
	struct nlmsghdr *nlh = prepare(nl->buf, sizeof(nl->buf), ++nl->seq,
				       RDMA_NLDEV_CMD_SYS_GET, NLM_F_ACK);

	*shared = -1;
	return transact(nl, nlh, sys_cb, shared);
}

struct nlmsghdr *rdma_nl_build_stat_get(void *buf, size_t len, uint32_t seq, uint32_t dev_index,
					uint32_t port)
{
	struct nlmsghdr *nlh = prepare(buf, len, seq, RDMA_NLDEV_CMD_STAT_GET, NLM_F_ACK);

	if (!nlh || !mnl_attr_put_u32_check(nlh, len, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index) ||
	    !mnl_attr_put_u32_check(nlh, len, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		return NULL;
	return nlh;
}

/* One RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY: a name and a value. */
static int stat_entry_parse(const struct nlattr *entry, struct rdma_stat *out)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];

	memset(tb, 0, sizeof(tb));
	if (mnl_attr_parse_nested(entry, nldev_attr_cb, tb) != MNL_CB_OK ||
	    !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] ||
	    !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE])
		return -EINVAL;
	copy_str(out->name, sizeof(out->name), tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME]);
	out->value = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE]);
	return 0;
}

int rdma_nl_parse_stats(const struct nlmsghdr *nlh, struct rdma_stat *out, size_t max, size_t *n)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX], *entry;

	*n = 0;
	if (nldev_parse(nlh, tb) < 0 || !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		return -EINVAL;
	mnl_attr_for_each_nested(entry, tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]) {
		if (mnl_attr_get_type(entry) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
			continue;
		if (*n == max)
			break;
		if (stat_entry_parse(entry, &out[*n]) == 0)
			(*n)++;
	}
	return 0;
}

struct stats_arg {
	struct rdma_stat *out;
	size_t max, *n;
};

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	struct stats_arg *a = data;

	return rdma_nl_parse_stats(nlh, a->out, a->max, a->n);
}

int rdma_nl_get_stats(struct rdma_nl *nl, uint32_t dev_index, uint32_t port,
		      struct rdma_stat *out, size_t max, size_t *n)
{
	struct stats_arg a = { out, max, n };
	struct nlmsghdr *nlh = rdma_nl_build_stat_get(nl->buf, sizeof(nl->buf), ++nl->seq,
						      dev_index, port);

	*n = 0;
	if (!nlh)
		return -EINVAL;
	return transact(nl, nlh, stats_cb, &a);
}
