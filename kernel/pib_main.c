// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * module entry: the "pib" rdma link type and the netdev
 * notifier that keeps pib devices in step with their netdevs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netdevice.h>
#include <rdma/rdma_netlink.h>

#include "pib.h"

unsigned short pib_udp_port = PIB_DEFAULT_UDP_PORT;
module_param_named(udp_port, pib_udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port, "UDP port that carries pib's IB packets (default 4792)");

static int pib_newlink(const char *ibdev_name, struct net_device *ndev)
{
	return pib_dev_add(ibdev_name, ndev);
}

static struct rdma_link_ops pib_link_ops = {
	.type = "pib",
	.newlink = pib_newlink,
};

static int pib_netdev_notify(struct notifier_block *nb, unsigned long event,
			     void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_UNREGISTER:
		pib_dev_netdev_event(ndev, event);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block pib_netdev_nb = {
	.notifier_call = pib_netdev_notify,
};

/*
 * The parent device of every pib HCA, /sys/devices/pib. An HCA needs one:
 * IPoIB makes it its interfaces' parent, and names it for ethtool -i (which
 * udev asks of every new interface); with none, that is a NULL pointer.
 */
struct device *pib_root;

static int __init pib_init(void)
{
	int err;

	if (!pib_udp_port) {
		pr_err("udp_port must be 1..65535\n");
		return -EINVAL;
	}
	err = pib_qp_init();
	if (err)
		return err;
	err = pib_dev_init();
	if (err)
		goto out_qp;
	err = register_netdevice_notifier(&pib_netdev_nb);
	if (err)
		goto out_dev;
	pib_root = root_device_register("pib");
	if (IS_ERR(pib_root)) {
		err = PTR_ERR(pib_root);
		goto out_notifier;
	}
	pib_net_init();
	rdma_link_register(&pib_link_ops);
	return 0;

out_notifier:
	unregister_netdevice_notifier(&pib_netdev_nb);
out_dev:
	pib_dev_exit();
out_qp:
	pib_qp_exit();
	return err;
}

static void __exit pib_exit(void)
{
	/* No new devices once the link type is gone (it waits for newlink). */
	rdma_link_unregister(&pib_link_ops);
	pib_dev_remove_all();
	pib_dev_exit();
	root_device_unregister(pib_root);
	unregister_netdevice_notifier(&pib_netdev_nb);
	pib_net_exit();
	pib_qp_exit();
}

module_init(pib_init);
module_exit(pib_exit);

MODULE_ALIAS_RDMA_LINK("pib");
MODULE_DESCRIPTION("pib: InfiniBand HCA and fabric over any Ethernet/UDP netdev");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(PIB_DRV_VERSION);
