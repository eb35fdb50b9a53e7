// SPDX-License-Identifier: GPL-2.0
/* rxe_main.c - module entry, "rxe" link type, device registration and netdev event tracking. */

#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>
#include "rxe.h"
#include "compat/ops.h"

MODULE_AUTHOR("rxectl project");
MODULE_DESCRIPTION("Soft-RoCE (RoCE v2) driver, rxectl bundled build");
MODULE_LICENSE("GPL");
MODULE_VERSION(RXE_BUNDLED_VERSION);
MODULE_ALIAS_RDMA_LINK("rxe");

struct workqueue_struct *rxe_wq;

static void rxe_dealloc_driver(struct ib_device *ib)
{
	struct rxe_dev *dev = to_rdev(ib);

	WARN_ON(!xa_empty(&dev->qps));
	rxe_mcast_cleanup(dev);
	xa_destroy(&dev->qps);
	xa_destroy(&dev->mrs);
	xa_destroy(&dev->mws);
	xa_destroy(&dev->ahs);
	netdev_put(dev->ndev, &dev->ndev_tracker);
}

static void rxe_get_dev_fw_str(struct ib_device *ib, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%s", RXE_BUNDLED_VERSION);
}

static const struct ib_device_ops rxe_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = 2,

	.alloc_hw_port_stats = rxe_alloc_hw_port_stats,
	.alloc_mr = rxe_alloc_mr,
	.alloc_mw = rxe_alloc_mw,
	.alloc_pd = rxe_alloc_pd,
	.alloc_ucontext = rxe_alloc_ucontext,
	.attach_mcast = rxe_attach_mcast,
	.create_ah = rxe_create_ah,
	.create_cq = rxe_compat_create_cq,
	.create_qp = rxe_create_qp,
	.create_srq = rxe_create_srq,
	.create_user_ah = rxe_create_ah,
	.dealloc_driver = rxe_dealloc_driver,
	.dealloc_mw = rxe_dealloc_mw,
	.dealloc_pd = rxe_dealloc_pd,
	.dealloc_ucontext = rxe_dealloc_ucontext,
	.dereg_mr = rxe_dereg_mr,
	.destroy_ah = rxe_destroy_ah,
	.destroy_cq = rxe_destroy_cq,
	.destroy_qp = rxe_destroy_qp,
	.destroy_srq = rxe_destroy_srq,
	.detach_mcast = rxe_detach_mcast,
	.get_dev_fw_str = rxe_get_dev_fw_str,
	.get_dma_mr = rxe_get_dma_mr,
	.get_hw_stats = rxe_get_hw_stats,
	.get_link_layer = rxe_get_link_layer,
	.get_port_immutable = rxe_get_port_immutable,
	.map_mr_sg = rxe_map_mr_sg,
	.mmap = rxe_mmap,
	.mmap_free = rxe_mmap_free,
	.modify_qp = rxe_modify_qp,
	.modify_srq = rxe_modify_srq,
	.poll_cq = rxe_poll_cq,
	.post_recv = rxe_post_recv,
	.post_send = rxe_post_send,
	.post_srq_recv = rxe_post_srq_recv,
	.query_ah = rxe_query_ah,
	.query_device = rxe_query_device,
	.query_pkey = rxe_query_pkey,
	.query_port = rxe_query_port,
	.query_qp = rxe_query_qp,
	.query_srq = rxe_query_srq,
	.reg_user_mr = rxe_compat_reg_user_mr,
	.req_notify_cq = rxe_req_notify_cq,
	RXE_OP_RESIZE_CQ,

	INIT_RDMA_OBJ_SIZE(ib_ah, rxe_ah, ib),
	INIT_RDMA_OBJ_SIZE(ib_cq, rxe_cq, ib),
	INIT_RDMA_OBJ_SIZE(ib_mw, rxe_mw, ib),
	INIT_RDMA_OBJ_SIZE(ib_pd, rxe_pd, ib),
	INIT_RDMA_OBJ_SIZE(ib_qp, rxe_qp, ib),
	INIT_RDMA_OBJ_SIZE(ib_srq, rxe_srq, ib),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, rxe_ucontext, ib),
};

/* "rdma link add NAME type rxe netdev DEV" */
static int rxe_newlink(const char *name, struct net_device *ndev)
{
	struct ib_device *exist;
	struct rxe_dev *dev;
	int err;

	if (ndev->type != ARPHRD_ETHER || is_vlan_dev(ndev))
		return -EINVAL;
	exist = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (exist) {
		ib_device_put(exist);
		return -EEXIST;
	}

	dev = ib_alloc_device(rxe_dev, ib);
	if (!dev)
		return -ENOMEM;
	dev->ndev = ndev;
	netdev_hold(ndev, &dev->ndev_tracker, GFP_KERNEL);
	xa_init_flags(&dev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->mrs, XA_FLAGS_ALLOC1);
	xa_init_flags(&dev->mws, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	dev->next_qpn = RXE_MIN_QPN;
	INIT_LIST_HEAD(&dev->mcgs);
	mutex_init(&dev->mcg_lock);
	dev->port_state = IB_PORT_DOWN;

	dev->ib.node_type = RDMA_NODE_IB_CA;
	dev->ib.phys_port_cnt = 1;
	dev->ib.num_comp_vectors = 1;
	dev->ib.local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&dev->ib.node_guid, ndev->dev_addr);
	strscpy(dev->ib.node_desc, "rxe", sizeof(dev->ib.node_desc));
	dev->ib.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				   BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ib_set_device_ops(&dev->ib, &rxe_dev_ops);
	err = ib_device_set_netdev(&dev->ib, ndev, 1);
	if (err)
		goto err_put;
	if (netif_running(ndev) && netif_carrier_ok(ndev))
		dev->port_state = IB_PORT_ACTIVE;

	err = ib_register_device(&dev->ib, name, NULL);
	if (err)
		goto err_put;
	rxe_dbg(dev, "added on %s\n", netdev_name(ndev));
	return 0;

err_put:
	/* Not registered: dealloc_driver is not called, drop the netdev ourselves. */
	netdev_put(ndev, &dev->ndev_tracker);
	xa_destroy(&dev->qps);
	ib_dealloc_device(&dev->ib);
	return err;
}

static struct rdma_link_ops rxe_link_ops = {
	.type = "rxe",
	.newlink = rxe_newlink,
};

static void rxe_port_event(struct rxe_dev *dev, enum ib_port_state state)
{
	struct ib_event ev = { .device = &dev->ib, .element.port_num = 1 };

	if (dev->port_state == state)
		return;
	if (dev->port_state == IB_PORT_ACTIVE && state == IB_PORT_DOWN)
		rxe_counter_inc(dev, RXE_CNT_LINK_DOWNED);
	dev->port_state = state;
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

static int rxe_netdev_event(struct notifier_block *nb, unsigned long event, void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct ib_device *ib = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	struct rxe_dev *dev;

	if (!ib)
		return NOTIFY_DONE;
	dev = to_rdev(ib);
	switch (event) {
	case NETDEV_UNREGISTER:
		ib_unregister_device_queued(ib);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		rxe_port_event(dev, netif_running(ndev) && netif_carrier_ok(ndev) ?
			       IB_PORT_ACTIVE : IB_PORT_DOWN);
		break;
	default:
		break;
	}
	ib_device_put(ib);
	return NOTIFY_OK;
}

static struct notifier_block rxe_netdev_nb = {
	.notifier_call = rxe_netdev_event,
};

static int __init rxe_init(void)
{
	int err;

	rxe_opcode_init();
	rxe_icrc_init();
	rxe_rx_batch_init();
	/*
	 * QP runs left to the worker (wire receive, timers, kernel QPs, what a caller's run hands
	 * over): on the CPU that asked, at high priority. An unbound, normal-priority worker
	 * waited behind busy-polling verbs processes for tens of milliseconds on a loaded CPU:
	 * long enough for the peer's retransmit timer (4 timeouts a 6 s two-way ib_send_bw).
	 */
	rxe_wq = alloc_workqueue("rxe_bundled", RXE_WQ_PERCPU | WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!rxe_wq)
		return -ENOMEM;
	err = rxe_net_init();
	if (err)
		goto err_wq;
	err = register_netdevice_notifier(&rxe_netdev_nb);
	if (err)
		goto err_net;
	rdma_link_register(&rxe_link_ops);
	pr_info("loaded (%s)\n", RXE_BUNDLED_VERSION);
	return 0;

err_net:
	rxe_net_exit();
err_wq:
	destroy_workqueue(rxe_wq);
	rxe_icrc_exit();
	return err;
}

static void __exit rxe_exit(void)
{
	rdma_link_unregister(&rxe_link_ops);
	ib_unregister_driver(RDMA_DRIVER_RXE);
	unregister_netdevice_notifier(&rxe_netdev_nb);
	rxe_net_exit();
	rxe_rx_batch_exit();
	destroy_workqueue(rxe_wq);
	rxe_icrc_exit();
	pr_info("unloaded\n");
}

module_init(rxe_init);
module_exit(rxe_exit);
