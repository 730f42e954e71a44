// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The virtual switch of a netdev: its ports (the pib devices on the netdev
 * and the peers on the LAN), directed-route forwarding of SMPs and the
 * switch's own SMA.
 *
 * So far the SMA answers NodeInfo, NodeDescription and PortInfo (Get);
 * port states set by the SM, SwitchInfo, LID routing by the LFT, multicast
 * by the MFT and the rest of the switch SMA come next.
 */
#include <linux/utsname.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "pib.h"

#define PIB_SW_NODE_TYPE	RDMA_NODE_IB_SWITCH

/**
 * pib_switch_attach() - connect a pib device to its switch port
 * @sw: the switch
 * @dev: the device, registered and about to receive
 */
void pib_switch_attach(struct pib_switch *sw, struct pib_dev *dev)
{
	rcu_assign_pointer(sw->hca[dev->index], dev);
}

/**
 * pib_switch_detach() - disconnect a device; no packet reaches it after
 * @sw: the switch
 * @dev: the device
 */
void pib_switch_detach(struct pib_switch *sw, struct pib_dev *dev)
{
	RCU_INIT_POINTER(sw->hca[dev->index], NULL);
	synchronize_rcu();
}

/* Send a packet out of a switch port: to a pib device, or to a peer. */
static void pib_switch_output(struct pib_switch *sw, unsigned int port,
			      const u8 *buf, unsigned int len)
{
	unsigned int peer = port - PIB_SW_FIRST_PEER_PORT;
	struct pib_dev *dev;
	__be32 addr = 0;

	if (port < PIB_SW_FIRST_PEER_PORT) {
		rcu_read_lock();
		dev = rcu_dereference(sw->hca[port - 1]);
		if (dev)
			pib_hca_receive(dev, buf, len);
		rcu_read_unlock();
		return;
	}
	spin_lock_bh(&sw->lock);
	if (peer < sw->num_peers && sw->peers[peer].up)
		addr = sw->peers[peer].addr;
	spin_unlock_bh(&sw->lock);
	if (addr)
		pib_switch_xmit(sw, addr, buf, len, GFP_ATOMIC);
}

static void pib_switch_node_info(struct pib_switch *sw, unsigned int in_port,
				 struct ib_smp *smp)
{
	struct ib_node_info *ni = (struct ib_node_info *)smp->data;

	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = PIB_SMP_CLASS_VERSION;
	ni->node_type = PIB_SW_NODE_TYPE;
	ni->num_ports = PIB_SW_NUM_PORTS;
	ni->sys_guid = cpu_to_be64(sw->guid);
	ni->node_guid = cpu_to_be64(sw->guid);
	ni->port_guid = cpu_to_be64(sw->guid);
	ni->partition_cap = cpu_to_be16(PIB_PKEY_TABLE_LEN);
	ni->local_port_num = in_port;
}

/* Physical link of a switch port: a device with its link up, a live peer. */
static bool pib_switch_port_up(struct pib_switch *sw, unsigned int port,
			       struct pib_dev **dev_out)
{
	unsigned int peer = port - PIB_SW_FIRST_PEER_PORT;
	struct pib_dev *dev;
	bool up;

	if (port < PIB_SW_FIRST_PEER_PORT) {
		rcu_read_lock();
		dev = rcu_dereference(sw->hca[port - 1]);
		up = dev && READ_ONCE(dev->port.phys_state) ==
			    IB_PORT_PHYS_STATE_LINK_UP;
		*dev_out = up ? dev : NULL;
		rcu_read_unlock();
		return up;
	}
	*dev_out = NULL;
	spin_lock_bh(&sw->lock);
	up = peer < sw->num_peers && sw->peers[peer].up;
	spin_unlock_bh(&sw->lock);
	return up;
}

/*
 * PortInfo of a switch port. Port 0 is the switch's management port; the
 * others show their link. The SM cannot set them yet: every port with a
 * link is INIT.
 */
static u16 pib_switch_port_info(struct pib_switch *sw, unsigned int in_port,
				struct ib_smp *smp)
{
	const struct pib_ib_rate *rate = pib_ib_rate_for_mbps(0);
	unsigned int port = be32_to_cpu(smp->attr_mod);
	struct pib_portinfo pi = {
		.gid_prefix = PIB_GID_PREFIX,
		.local_port_num = in_port,
		.link_down_default = PIB_PHYS_POLLING,
		.vl_cap = 1,
		.operational_vls = 1,
		.resp_time_value = PIB_SMA_RESP_TIME,
	};
	struct pib_dev *dev;
	bool up;

	if (port > PIB_SW_NUM_PORTS)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	up = !port || pib_switch_port_up(sw, port, &dev);
	if (up && port && port < PIB_SW_FIRST_PEER_PORT) {
		/* A device's link runs at the device's rate and MTU. */
		pi.link_width_active = READ_ONCE(dev->port.width);
		pi.link_speed_active = min_t(u8, READ_ONCE(dev->port.speed),
					     IB_SPEED_QDR);
		pi.mtu_cap = READ_ONCE(dev->port.max_mtu);
	} else {
		pi.link_width_active = rate->width;
		pi.link_speed_active = rate->speed;
		pi.mtu_cap = pib_ib_mtu_for_netdev(READ_ONCE(sw->ndev->mtu));
	}
	pi.link_width_supported = pi.link_width_active;
	pi.link_width_enabled = pi.link_width_active;
	pi.link_speed_supported = pi.link_speed_active;
	pi.link_speed_enabled = pi.link_speed_active;
	pi.neighbor_mtu = pi.mtu_cap;
	pi.port_state = up ? PIB_PORT_INIT : PIB_PORT_DOWN;
	pi.phys_state = up ? PIB_PHYS_LINK_UP : PIB_PHYS_POLLING;
	pib_portinfo_pack(smp->data, &pi);
	return 0;
}

/* The switch SMA: answer the SMP in place. Returns a MAD status. */
static u16 pib_switch_sma_answer(struct pib_switch *sw, unsigned int in_port,
				 struct ib_smp *smp)
{
	if (smp->method != IB_MGMT_METHOD_GET)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	memset(smp->data, 0, IB_SMP_DATA_SIZE);
	if (smp->attr_id == IB_SMP_ATTR_NODE_INFO) {
		pib_switch_node_info(sw, in_port, smp);
		return 0;
	}
	if (smp->attr_id == IB_SMP_ATTR_PORT_INFO)
		return pib_switch_port_info(sw, in_port, smp);
	if (smp->attr_id == IB_SMP_ATTR_NODE_DESC) {
		snprintf(smp->data, IB_SMP_DATA_SIZE, "pib switch %s %s",
			 init_utsname()->nodename, netdev_name(sw->ndev));
		return 0;
	}
	return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
}

/*
 * A directed-route SMP for this switch: answer it, turn the packet around
 * (to the sender's QP0, from the permissive LID) and route the reply back.
 */
static void pib_switch_sma(struct pib_switch *sw, unsigned int in_port,
			   u8 *buf, unsigned int len, const struct pib_pkt *pkt)
{
	struct ib_smp *smp = (struct ib_smp *)(buf + pkt->payload_off);
	struct pib_lrh lrh = pkt->lrh;
	unsigned int out;
	u16 status;

	switch (smp->method) {
	case IB_MGMT_METHOD_GET:
	case IB_MGMT_METHOD_SET:
		break;
	default:
		return;		/* responses and traps are the SM's, not ours */
	}
	status = pib_switch_sma_answer(sw, in_port, smp);
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->status = cpu_to_be16(status) | IB_SMP_DIRECTION;
	if (pib_dr_switch_route((u8 *)smp, 0, PIB_SW_NUM_PORTS, &out) !=
	    PIB_DR_FORWARD) {
		atomic64_inc(&sw->dr_discards);
		return;
	}
	lrh.dlid = PIB_PERMISSIVE_LID;
	lrh.slid = PIB_PERMISSIVE_LID;
	pib_lrh_pack(buf, &lrh);
	pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
	pib_switch_output(sw, out, buf, len);
}

/* Directed-route SMPs: forward along their path, or answer them here. */
static void pib_switch_dr(struct pib_switch *sw, unsigned int in_port,
			  u8 *buf, unsigned int len, const struct pib_pkt *pkt)
{
	unsigned int out;

	switch (pib_dr_switch_route(buf + pkt->payload_off, in_port,
				    PIB_SW_NUM_PORTS, &out)) {
	case PIB_DR_FORWARD:
		/* The path fields changed: the packet is a new one. */
		pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
		pib_switch_output(sw, out, buf, len);
		break;
	case PIB_DR_SMA:
		pib_switch_sma(sw, in_port, buf, len, pkt);
		break;
	default:
		atomic64_inc(&sw->dr_discards);
	}
}

/**
 * pib_switch_input() - a packet enters the switch through a port
 * @sw: the switch
 * @in_port: the port (a device's or a peer's)
 * @buf: the packet; the switch may rewrite it
 * @len: its length
 *
 * May be called in any context; it does not sleep.
 */
void pib_switch_input(struct pib_switch *sw, unsigned int in_port, u8 *buf,
		      unsigned int len)
{
	enum pib_pkt_err err;
	struct pib_pkt pkt;

	err = pib_pkt_parse(buf, len, &pkt);
	if (err) {
		atomic64_inc(&sw->drops[err]);
		return;
	}
	if (pkt.lrh.lnh != PIB_LNH_RAW && pkt.lrh.vl == PIB_VL15 &&
	    pkt.lrh.dlid == PIB_PERMISSIVE_LID && pkt.bth.dest_qp == 0 &&
	    pkt.payload_len == PIB_SMP_LEN &&
	    buf[pkt.payload_off + 1] == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		pib_switch_dr(sw, in_port, buf, len, &pkt);
		return;
	}
	atomic64_inc(&sw->unrouted);	/* LID routing comes with the LFT */
}
