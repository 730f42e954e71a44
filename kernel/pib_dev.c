// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lifetime of pib devices and the state of their port.
 *
 * Locking: pib_add_lock serializes device creation (it is held across
 * ib_register_device(), which may take the RTNL). pib_devs_lock protects
 * pib_devs and each device's @registered flag; it nests inside the RTNL and
 * is never held while taking the RTNL or pib_add_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/utsname.h>

#include "pib.h"
#include "pib_trace.h"

static DEFINE_MUTEX(pib_add_lock);
static DEFINE_MUTEX(pib_devs_lock);
static LIST_HEAD(pib_devs);

/* Netdev speed in Mbit/s, or 0 if the netdev does not know it. */
static u32 pib_netdev_mbps(struct net_device *ndev)
{
	struct ethtool_link_ksettings ks;

	ASSERT_RTNL();
	if (__ethtool_get_link_ksettings(ndev, &ks) ||
	    ks.base.speed == (u32)SPEED_UNKNOWN)
		return 0;
	return ks.base.speed;
}

/**
 * pib_dispatch_events() - tell consumers about port changes
 * @dev: the device
 * @events: bit set of (1 << enum ib_event_type) collected under the port lock
 */
void pib_dispatch_events(struct pib_dev *dev, u32 events)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.element.port_num = PIB_PORT_NUM,
	};

	while (events) {
		ev.event = __ffs(events);
		events &= events - 1;
		trace_pib_async_event(&dev->ibdev, ev.event, PIB_PORT_NUM);
		ib_dispatch_event(&ev);
	}
}

/**
 * pib_port_set_state() - move the port to a logical state
 * @dev: the device; its port lock is held
 * @state: the new state
 * @events: collects the events to dispatch once the lock is dropped
 *
 * Reaching ACTIVE raises IB_EVENT_PORT_ACTIVE; leaving INIT, ARMED or
 * ACTIVE for DOWN raises IB_EVENT_PORT_ERR and counts a LinkDowned.
 */
void pib_port_set_state(struct pib_dev *dev, enum ib_port_state state,
			u32 *events)
{
	struct pib_port *port = &dev->port;

	lockdep_assert_held(&port->lock);
	if (state == port->state)
		return;
	if (state == IB_PORT_ACTIVE)
		*events |= BIT(IB_EVENT_PORT_ACTIVE);
	if (state == IB_PORT_DOWN) {
		*events |= BIT(IB_EVENT_PORT_ERR);
		atomic64_inc(&port->counters.link_downed);
	}
	port->state = state;
}

/**
 * pib_port_link_update() - derive the port's link from its netdev
 * @dev: the device
 * @notify: dispatch the events this causes (the device is registered)
 *
 * A running netdev with carrier brings the link up (physical LinkUp); the
 * logical state then starts at INIT, where the subnet manager takes over. A
 * netdev that is down, has no carrier or cannot carry the smallest IB MTU,
 * or an SM that disabled the port, takes the port DOWN.
 */
void pib_port_link_update(struct pib_dev *dev, bool notify)
{
	struct net_device *ndev = dev->ndev;
	struct pib_port *port = &dev->port;
	enum ib_mtu mtu = pib_ib_mtu_for_netdev(READ_ONCE(ndev->mtu));
	bool running = netif_running(ndev);
	bool up = running && netif_carrier_ok(ndev) && mtu;
	unsigned long flags;
	u32 events = 0;

	spin_lock_irqsave(&port->lock, flags);
	up = up && !port->disabled;
	if (up && port->state == IB_PORT_DOWN)
		pib_port_set_state(dev, IB_PORT_INIT, &events);
	else if (!up)
		pib_port_set_state(dev, IB_PORT_DOWN, &events);
	if (up)
		port->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (running && !port->disabled)
		port->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		port->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	port->max_mtu = mtu ? mtu : IB_MTU_256;
	port->active_mtu = port->sm_mtu ? min(port->sm_mtu, port->max_mtu) :
					  port->max_mtu;
	spin_unlock_irqrestore(&port->lock, flags);
	if (notify)
		pib_dispatch_events(dev, events);
}

/* The port's width and speed from the netdev's link speed (under the RTNL). */
static void pib_port_rate_update(struct pib_dev *dev)
{
	const struct pib_ib_rate *rate;
	unsigned long flags;

	rate = pib_ib_rate_for_mbps(pib_netdev_mbps(dev->ndev));
	spin_lock_irqsave(&dev->port.lock, flags);
	dev->port.width = rate->width;
	dev->port.speed = rate->speed;
	spin_unlock_irqrestore(&dev->port.lock, flags);
}

/*
 * The netdev notifier cannot ask the link speed: from Linux 6.16 on, it runs
 * under the instance lock of a netdev that has one (dummy, ...), and the
 * ethtool query takes that lock again. A work asks it, under the RTNL,
 * which it only tries to take: the device's teardown may wait for the work
 * while holding the RTNL, and a work that requeues itself is still
 * cancelled by cancel_delayed_work_sync().
 */
static void pib_dev_rate_work(struct work_struct *work)
{
	struct pib_dev *dev = container_of(to_delayed_work(work),
					   struct pib_dev, rate_work);

	if (!rtnl_trylock()) {
		queue_delayed_work(system_unbound_wq, &dev->rate_work, HZ / 50);
		return;
	}
	pib_port_rate_update(dev);
	rtnl_unlock();
}

/* Follow the netdev: its link state now, its link rate soon. */
static void pib_port_refresh(struct pib_dev *dev, bool notify)
{
	pib_port_link_update(dev, notify);
	mod_delayed_work(system_unbound_wq, &dev->rate_work, 0);
}

static void pib_port_init(struct pib_port *port)
{
	spin_lock_init(&port->lock);
	port->state = IB_PORT_DOWN;
	port->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	port->subnet_prefix = PIB_GID_PREFIX;
	port->pkeys[0] = PIB_DEFAULT_PKEY;
	port->cap_flags = PIB_PORT_CAPS;
}

/* Lowest index not used by another pib device on @ndev, or -ENOSPC. */
static int pib_pick_index(struct net_device *ndev)
{
	DECLARE_BITMAP(used, PIB_MAX_DEVS_PER_NETDEV) = { 0 };
	struct pib_dev *dev;
	unsigned int index;

	mutex_lock(&pib_devs_lock);
	list_for_each_entry(dev, &pib_devs, list)
		if (dev->ndev == ndev)
			__set_bit(dev->index, used);
	mutex_unlock(&pib_devs_lock);
	index = find_first_zero_bit(used, PIB_MAX_DEVS_PER_NETDEV);
	return index < PIB_MAX_DEVS_PER_NETDEV ? index : -ENOSPC;
}

/* Why @ndev cannot carry pib (an errno), or 0 if it can. */
static int pib_check_netdev(struct net_device *ndev)
{
	if (ndev->type != ARPHRD_ETHER && ndev->type != ARPHRD_LOOPBACK) {
		pr_info_ratelimited("%s is not an Ethernet or loopback netdev\n",
				    ndev->name);
		return -EOPNOTSUPP;
	}
	if (!pib_ib_mtu_for_netdev(ndev->mtu)) {
		pr_info_ratelimited("MTU %u of %s is below %u\n", ndev->mtu,
				    ndev->name, pib_ib_mtu_bytes(IB_MTU_256) +
				    PIB_IB_MAX_FRAMING + PIB_UDP_IP_OVERHEAD);
		return -EINVAL;
	}
	return 0;
}

/*
 * Packets one context hands to the switch, with bottom halves off, before
 * it leaves the rest to the transmit work: the queues fill from every QP
 * of the device and from the receive softirq, as fast as they drain.
 */
#define PIB_TX_BUDGET	256

/*
 * The port hears a multicast packet it sends, as an HCA does (IPoIB drops
 * what it sent itself): the QPs of this port attached to the group get it
 * here, since the switch sends nothing back out the port it came in by.
 */
static void pib_dev_hear(struct pib_dev *dev, struct sk_buff *skb)
{
	struct pib_pkt pkt;

	if (!pib_pkt_locate(skb->data, skb->len, &pkt))
		pib_hca_receive(dev, skb->data, skb->len, &pkt);
}

/*
 * Hand what the port sent to the switch, in order. One context at a time
 * does it: one that finds another at it leaves its packets to that one,
 * which looks at the queues again once it is done and leaves what came
 * meanwhile, or what its budget did not cover, to the transmit work.
 */
static void pib_dev_tx(struct pib_dev *dev)
{
	unsigned int budget = PIB_TX_BUDGET;
	struct sk_buff_head q;
	struct sk_buff *skb;

	if (test_and_set_bit(PIB_TX_BUSY, &dev->tx_flags))
		return;
	__skb_queue_head_init(&q);
	/* Responses first: behind requests they would time out the peer's. */
	while (budget-- && ((skb = skb_dequeue(&dev->ackq)) ||
			    (skb = skb_dequeue(&dev->txq)))) {
		if (pib_lid_is_mcast(pib_lrh_dlid(skb->data)))
			pib_dev_hear(dev, skb);
		__skb_queue_tail(&q, skb);
	}
	pib_switch_send(dev->sw, pib_sw_hca_port(dev), &q);
	clear_bit_unlock(PIB_TX_BUSY, &dev->tx_flags);
	/* Pairs with test_and_set_bit() after a sender queued its packets. */
	smp_mb__after_atomic();
	if (!skb_queue_empty(&dev->ackq) || !skb_queue_empty(&dev->txq))
		schedule_work(&dev->tx_work);
}

/* Set while this CPU hands a device's packets to the switch. */
static DEFINE_PER_CPU(bool, pib_tx_active);

/**
 * pib_dev_tx_kick() - have the packets the port queued sent
 * @dev: the device
 *
 * They go at once, in this context (a QP's work, the doorbell of a user's
 * system call, the receive softirq that an ACK answers), without the
 * wake-up of a worker. Where that cannot be, they are left to the
 * device's transmit work: with interrupts off, and where this CPU is
 * handing over packets already, since a packet for a device on this host
 * makes that device answer from inside the sender's transmit: one level
 * of that, not a chain through every device on the host.
 */
void pib_dev_tx_kick(struct pib_dev *dev)
{
	if (irqs_disabled()) {
		schedule_work(&dev->tx_work);
		return;
	}
	local_bh_disable();
	if (__this_cpu_read(pib_tx_active)) {
		schedule_work(&dev->tx_work);
	} else {
		__this_cpu_write(pib_tx_active, true);
		pib_dev_tx(dev);
		__this_cpu_write(pib_tx_active, false);
	}
	local_bh_enable();
}

static void pib_dev_tx_work(struct work_struct *work)
{
	pib_dev_tx_kick(container_of(work, struct pib_dev, tx_work));
}

/*
 * Unregistrations that netdev removal starts (pib_dev_unreg_work()); module
 * unload drains it.
 */
static struct workqueue_struct *pib_dev_wq;

/*
 * The device's netdev is going. Its port went DOWN first (NETDEV_DOWN), and
 * the IB_EVENT_PORT_ERR that raised waits on the core's event workqueue:
 * the consumers learn of it before their removal starts, as they would of
 * a real HCA's link going down before it is unplugged. Unregistered before
 * that, IPoIB would leave its multicast groups by SA requests that can no
 * longer leave the port, and the core waits out their timeouts (about 14
 * s) while the netdev's unregistration waits for this device's references
 * and the kernel complains of it after 10 s. Knowing of the error, the core
 * drops the groups without a request.
 */
static void pib_dev_unreg_work(struct work_struct *work)
{
	struct pib_dev *dev = container_of(work, struct pib_dev, unreg_work);

	flush_workqueue(ib_wq);
	ib_unregister_device(&dev->ibdev);
	put_device(&dev->ibdev.dev);
}

/**
 * pib_dev_init() - at module load: the workqueue of netdev removals
 *
 * Return: 0 or -ENOMEM.
 */
int pib_dev_init(void)
{
	pib_dev_wq = alloc_workqueue("pib_dev", WQ_UNBOUND, 0);
	return pib_dev_wq ? 0 : -ENOMEM;
}

/**
 * pib_dev_exit() - at module unload, after pib_dev_remove_all()
 */
void pib_dev_exit(void)
{
	destroy_workqueue(pib_dev_wq);
}

static struct pib_dev *pib_dev_alloc(const char *name, struct net_device *ndev,
				     unsigned int index)
{
	struct pib_dev *dev = ib_alloc_device(pib_dev, ibdev);
	struct ib_device *ibdev;
	unsigned int i;

	if (!dev)
		return NULL;
	ibdev = &dev->ibdev;
	INIT_LIST_HEAD(&dev->list);
	dev->ndev = ndev;
	dev_hold(ndev);
	dev->index = index;
	dev->guid = cpu_to_be64(pib_guid_from_mac(ndev->dev_addr, index));
	pib_port_init(&dev->port);
	xa_init(&dev->mrs);
	xa_init_flags(&dev->qps, XA_FLAGS_ALLOC);
	dev->next_qpn = PIB_NUM_SPECIAL_QPS;
	xa_init_flags(&dev->xrc_srqs, XA_FLAGS_ALLOC1);
	dev->next_srqn = 1;
	spin_lock_init(&dev->mcast_lock);
	INIT_LIST_HEAD(&dev->mcast);
	spin_lock_init(&dev->atomic_lock);
	spin_lock_init(&dev->mw_lock);
	spin_lock_init(&dev->objs_lock);
	for (i = 0; i < PIB_NUM_OBJS; i++)
		INIT_LIST_HEAD(&dev->objs[i]);
	skb_queue_head_init(&dev->txq);
	skb_queue_head_init(&dev->ackq);
	INIT_WORK(&dev->tx_work, pib_dev_tx_work);
	INIT_WORK(&dev->unreg_work, pib_dev_unreg_work);
	INIT_DELAYED_WORK(&dev->rate_work, pib_dev_rate_work);
	pib_inject_dev_init(dev);

	ib_set_device_ops(ibdev, &pib_dev_ops);
	/*
	 * Beyond the core's defaults: the doorbell of user QPs (an empty
	 * post_send) and arming user CQs for completion events.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->node_guid = dev->guid;
	/* The host name of the UTS namespace that adds it: a container's. */
	snprintf(ibdev->node_desc, sizeof(ibdev->node_desc), "%s %s",
		 utsname()->nodename, name);
	return dev;
}

/*
 * Called with a device reference held, right after registration: mark the
 * device registered unless it is already being torn down, catch up with
 * netdev events that went by while it was unregistered, and report whether
 * its netdev is gone meanwhile.
 */
static bool pib_dev_go_live(struct pib_dev *dev, bool *gone)
{
	bool live;

	rtnl_lock();
	mutex_lock(&pib_devs_lock);
	live = !list_empty(&dev->list);
	if (live) {
		dev->registered = true;
		pib_capture_dev_add(dev, pib_debugfs_root());
		if (dev->debugfs) {
			pib_inject_dev_add(dev);
			pib_strict_dev_add(dev);
			pib_debugfs_dev_add(dev);
		}
		pib_switch_attach(dev->sw, dev);
		*gone = dev->ndev->reg_state != NETREG_REGISTERED;
		pib_port_refresh(dev, true);
	}
	mutex_unlock(&pib_devs_lock);
	rtnl_unlock();
	return live;
}

/**
 * pib_dev_add() - create and register a pib HCA on a netdev
 * @name: the RDMA device name asked for
 * @ndev: the netdev to attach to (the caller holds a reference)
 *
 * Return: 0, or a negative errno with nothing left behind.
 */
int pib_dev_add(const char *name, struct net_device *ndev)
{
	struct pib_dev *dev;
	bool gone = false;
	int index, err;

	err = pib_check_netdev(ndev);
	if (err)
		return err;
	mutex_lock(&pib_add_lock);
	index = pib_pick_index(ndev);
	if (index < 0) {
		err = index;
		goto out_unlock;
	}
	dev = pib_dev_alloc(name, ndev, index);
	if (!dev) {
		err = -ENOMEM;
		goto out_unlock;
	}
	dev->sw = pib_switch_get(ndev);
	if (IS_ERR(dev->sw)) {
		err = PTR_ERR(dev->sw);
		dev->sw = NULL;
		goto out_free;
	}
	/*
	 * No ib_device_set_netdev(): for the RDMA core that names the port's
	 * own IP interface (RoCE GIDs, rdma_cm's address to device lookup),
	 * and pib's port is InfiniBand: its IP interface is IPoIB's, the
	 * netdev only carries its packets (sysfs attribute "netdev").
	 */
	mutex_lock(&pib_devs_lock);
	list_add_tail(&dev->list, &pib_devs);
	mutex_unlock(&pib_devs_lock);
	rtnl_lock();
	pib_port_rate_update(dev);
	pib_port_link_update(dev, false);
	rtnl_unlock();

	/* The admin chose the name: udev's rdma_rename must keep it. */
	ib_mark_name_assigned_by_user(&dev->ibdev);
	dev->ibdev.dev.parent = pib_root;
	get_device(&dev->ibdev.dev);
	err = ib_register_device(&dev->ibdev, name, NULL);
	if (err) {
		put_device(&dev->ibdev.dev);
		goto out_free;
	}
	mutex_unlock(&pib_add_lock);

	if (pib_dev_go_live(dev, &gone) && gone) {
		ib_unregister_device(&dev->ibdev);
		err = -ENODEV;
	}
	put_device(&dev->ibdev.dev);
	return err;

out_free:
	/* pib_dev_dealloc() releases what the device holds, only there. */
	ib_dealloc_device(&dev->ibdev);
out_unlock:
	mutex_unlock(&pib_add_lock);
	/* ib_register_device() refuses a name in use with -ENFILE. */
	return err == -ENFILE ? -EEXIST : err;
}

/**
 * pib_dev_dealloc() - release what a device holds
 * @ibdev: the device
 *
 * The RDMA core calls this once, at the end of unregistration, whichever
 * way it was started (rdma link delete, netdev removal, module unload),
 * and from ib_dealloc_device() for a device that never got registered,
 * which may have no switch yet.
 */
void pib_dev_dealloc(struct ib_device *ibdev)
{
	struct pib_dev *dev = to_pib_dev(ibdev);

	pib_capture_dev_remove(dev);
	/* The switch forgets the device before another may take its index. */
	mutex_lock(&pib_devs_lock);
	if (dev->sw)
		pib_switch_detach(dev->sw, dev);
	list_del_init(&dev->list);
	mutex_unlock(&pib_devs_lock);
	xa_destroy(&dev->mrs);
	xa_destroy(&dev->qps);
	xa_destroy(&dev->xrc_srqs);
	cancel_delayed_work_sync(&dev->rate_work);
	pib_inject_dev_release(dev);
	cancel_work_sync(&dev->tx_work);
	skb_queue_purge(&dev->txq);
	skb_queue_purge(&dev->ackq);
	if (dev->sw)
		pib_switch_put(dev->sw);
	dev_put(dev->ndev);
}

/**
 * pib_dev_netdev_event() - follow a netdev event on every device it carries
 * @ndev: the netdev
 * @event: NETDEV_* event; called under the RTNL
 */
void pib_dev_netdev_event(struct net_device *ndev, unsigned long event)
{
	struct pib_dev *dev;

	mutex_lock(&pib_devs_lock);
	list_for_each_entry(dev, &pib_devs, list) {
		if (dev->ndev != ndev || !dev->registered)
			continue;
		if (event != NETDEV_UNREGISTER) {
			pib_port_refresh(dev, true);
			continue;
		}
		/*
		 * A device already going away needs no second unregister.
		 * (Not ib_unregister_device_queued(): pib_dev_unreg_work().)
		 */
		if (ib_device_try_get(&dev->ibdev)) {
			get_device(&dev->ibdev.dev);
			if (!queue_work(pib_dev_wq, &dev->unreg_work))
				put_device(&dev->ibdev.dev);
			ib_device_put(&dev->ibdev);
		}
	}
	mutex_unlock(&pib_devs_lock);
}

/**
 * pib_dev_remove_all() - unregister every pib device (module unload)
 *
 * Waits for unregistrations already queued by netdev removal, so that no
 * device callback can run once this returns.
 */
void pib_dev_remove_all(void)
{
	struct pib_dev *dev;

	flush_workqueue(pib_dev_wq);
	for (;;) {
		mutex_lock(&pib_devs_lock);
		dev = list_first_entry_or_null(&pib_devs, struct pib_dev, list);
		if (dev)
			get_device(&dev->ibdev.dev);
		mutex_unlock(&pib_devs_lock);
		if (!dev)
			return;
		ib_unregister_device(&dev->ibdev);
		put_device(&dev->ibdev.dev);
	}
}
