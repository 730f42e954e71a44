// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The virtual switch of a netdev: its ports (the pib devices on the netdev
 * and the peers on the LAN), directed-route forwarding of SMPs and the
 * switch's own SMA.
 *
 * The switch's SMA is in pib_switch_sma.c. Multicast by the MFT comes
 * next.
 */
#include <linux/seq_file.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "pib.h"
#include "pib_trace.h"

/**
 * pib_switch_unrouted() - the switch drops a packet it has no route for
 * @sw: the switch
 * @buf: the packet
 * @len: its length
 */
void pib_switch_unrouted(struct pib_switch *sw, const u8 *buf, u32 len)
{
	atomic64_inc(&sw->unrouted);
	trace_pib_pkt_drop(netdev_name(sw->ndev), buf, len, PIB_DROP_UNROUTED,
			   0);
}

/**
 * pib_switch_attach() - connect a pib device to its switch port
 * @sw: the switch
 * @dev: the device, registered and about to receive
 */
void pib_switch_attach(struct pib_switch *sw, struct pib_dev *dev)
{
	rcu_assign_pointer(sw->hca[dev->index], dev);
	pib_switch_track_links(sw);
	pib_switch_speak(sw);
}

/**
 * pib_switch_detach() - disconnect a device; no packet reaches it after
 * @sw: the switch
 * @dev: the device
 */
void pib_switch_detach(struct pib_switch *sw, struct pib_dev *dev)
{
	RCU_INIT_POINTER(sw->hca[dev->index], NULL);
	pib_synchronize_rcu(sw->ndev);
	pib_switch_track_links(sw);
}

/**
 * pib_switch_track_links() - follow the physical links of the switch ports
 * @sw: the switch
 *
 * A port whose link came up starts at INIT, one whose link went down is
 * DOWN; either change raises SwitchInfo.PortStateChange and sends the SM
 * Trap 128 (at most one each PIB_TRAP_RESEND_MS, after a burst of
 * PIB_TRAP_BURST).
 */
void pib_switch_track_links(struct pib_switch *sw)
{
	bool up[PIB_SW_NUM_PORTS + 1], changed = false, queue = false;
	unsigned long flags, delay = 0;
	struct pib_dev *dev;
	unsigned int port;

	rcu_read_lock();
	for (port = 1; port <= PIB_SW_NUM_PORTS; port++)
		up[port] = pib_switch_port_up(sw, port, &dev);
	rcu_read_unlock();
	spin_lock_irqsave(&sw->lock, flags);
	for (port = 1; port <= PIB_SW_NUM_PORTS; port++) {
		struct pib_sw_port *p = &sw->ports[port];

		if (p->up == up[port])
			continue;
		p->up = up[port];
		p->state = up[port] ? IB_PORT_INIT : IB_PORT_DOWN;
		p->mtu = 0;
		sw->port_state_change = true;
		changed = true;
	}
	/*
	 * A trap already pending goes again on its own schedule, with the
	 * news, and a new one waits its turn at the traps' pace: links that
	 * change all the time (a flood of forged hellos) get one Trap 128
	 * per PIB_TRAP_RESEND_MS, not one each.
	 */
	if (changed) {
		queue = !sw->trap_pending && !sw->dying;
		sw->trap_pending = true;
		sw->trap_tries = 0;
		sw->trap_tid++;
		delay = sw->trap_tat - (PIB_TRAP_BURST - 1) *
				       msecs_to_jiffies(PIB_TRAP_RESEND_MS);
		delay = time_after(delay, jiffies) ? delay - jiffies : 0;
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	if (queue)
		mod_delayed_work(system_wq, &sw->trap_work, delay);
}

/**
 * pib_switch_bounce() - a port's link went down and came up again at once
 * @sw: the switch
 * @port: the port (its peer was made anew)
 *
 * The port starts again at INIT, as for any link that comes up, with
 * Trap 128 (pib_switch_track_links()).
 */
void pib_switch_bounce(struct pib_switch *sw, unsigned int port)
{
	unsigned long flags;

	if (port < 1 || port > PIB_SW_NUM_PORTS)
		return;
	spin_lock_irqsave(&sw->lock, flags);
	sw->ports[port].up = false;
	spin_unlock_irqrestore(&sw->lock, flags);
	pib_switch_track_links(sw);
}

/**
 * pib_switch_port_up() - is the physical link of a switch port up?
 * @sw: the switch
 * @port: a port, 1..PIB_SW_NUM_PORTS
 * @dev_out: the device on the port, if it is a device's and up
 *
 * A device's port is up with the device's link, a peer's port with the
 * peer's hellos. Must be called under rcu_read_lock() if @dev_out is used.
 *
 * Return: true if the port's link is up.
 */
bool pib_switch_port_up(struct pib_switch *sw, unsigned int port,
			struct pib_dev **dev_out)
{
	unsigned int peer = port - PIB_SW_FIRST_PEER_PORT;
	struct pib_dev *dev;
	unsigned long flags;
	bool up;

	*dev_out = NULL;
	if (port < PIB_SW_FIRST_PEER_PORT) {
		dev = rcu_dereference(sw->hca[port - 1]);
		up = dev && READ_ONCE(dev->port.phys_state) ==
			    IB_PORT_PHYS_STATE_LINK_UP;
		if (up)
			*dev_out = dev;
		return up;
	}
	spin_lock_irqsave(&sw->lock, flags);
	up = peer < PIB_MAX_PEERS && sw->peers.peer[peer].up;
	spin_unlock_irqrestore(&sw->lock, flags);
	return up;
}

/*
 * The address of the host behind a peer port, in @ip; false while its
 * link is down.
 */
static bool pib_switch_peer_addr(struct pib_switch *sw, unsigned int port,
				 struct pib_ip *ip)
{
	unsigned long flags;
	bool up;

	spin_lock_irqsave(&sw->lock, flags);
	up = pib_peers_dest(&sw->peers, port - PIB_SW_FIRST_PEER_PORT, ip);
	spin_unlock_irqrestore(&sw->lock, flags);
	return up;
}

/*
 * Send a packet (@pkt: its headers, as parsed where it entered this host)
 * out of a switch port: to a pib device, or to a peer if its hop budget
 * @ttl (PIB_TTL_HERE) allows.
 */
static void pib_switch_output(struct pib_switch *sw, unsigned int port,
			      const u8 *buf, unsigned int len,
			      const struct pib_pkt *pkt, u8 ttl)
{
	struct pib_dev *dev;
	struct pib_ip addr;

	if (port < PIB_SW_FIRST_PEER_PORT) {
		rcu_read_lock();
		dev = rcu_dereference(sw->hca[port - 1]);
		if (dev)
			pib_hca_receive(dev, buf, len, pkt);
		rcu_read_unlock();
		return;
	}
	if (!ttl) {
		atomic64_inc(&sw->hop_limit);
		return;
	}
	if (pib_switch_peer_addr(sw, port, &addr))
		pib_switch_xmit(sw, &addr, port - PIB_SW_FIRST_PEER_PORT, buf,
				len, ttl, GFP_ATOMIC);
}

/*
 * A directed-route SMP for this switch: answer it, turn the packet around
 * (to the sender's QP0, from the permissive LID) and route the reply back.
 */
static void pib_switch_sma(struct pib_switch *sw, unsigned int in_port,
			   u8 *buf, unsigned int len, const struct pib_pkt *pkt)
{
	struct ib_smp *smp = (struct ib_smp *)(buf + pkt->payload_off);
	struct pib_pkt reply = *pkt;
	unsigned int out;
	int status = pib_switch_sma_request(sw, in_port, smp);

	if (status < 0)
		return;
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->status = cpu_to_be16(status) | IB_SMP_DIRECTION;
	if (pib_dr_switch_route((u8 *)smp, 0, PIB_SW_NUM_PORTS, &out) !=
	    PIB_DR_FORWARD) {
		atomic64_inc(&sw->dr_discards);
		return;
	}
	reply.lrh.dlid = PIB_PERMISSIVE_LID;
	reply.lrh.slid = PIB_PERMISSIVE_LID;
	pib_lrh_pack(buf, &reply.lrh);
	pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
	pib_switch_output(sw, out, buf, len, &reply, PIB_TTL_HERE);
}

/*
 * Directed-route SMPs: forward along their path, or answer them here. The
 * hop count bounds their path, not the hop limit (PIB_TTL_HERE).
 */
static void pib_switch_dr(struct pib_switch *sw, unsigned int in_port,
			  u8 *buf, unsigned int len, const struct pib_pkt *pkt)
{
	unsigned int out;

	switch (pib_dr_switch_route(buf + pkt->payload_off, in_port,
				    PIB_SW_NUM_PORTS, &out)) {
	case PIB_DR_FORWARD:
		/* The path fields changed: the packet is a new one. */
		pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
		pib_switch_output(sw, out, buf, len, pkt, PIB_TTL_HERE);
		break;
	case PIB_DR_SMA:
		pib_switch_sma(sw, in_port, buf, len, pkt);
		break;
	default:
		atomic64_inc(&sw->dr_discards);
	}
}

/* Build Trap 128 (IBA 14.3.6) from the switch to the SM; returns its length. */
static unsigned int pib_switch_trap_build(struct pib_switch *sw, u8 *buf,
					  u16 slid, u16 dlid, u8 sl, u64 tid)
{
	struct pib_lrh lrh = {
		.vl = PIB_VL15, .sl = sl, .lnh = PIB_LNH_IBA_LOCAL,
		.dlid = dlid, .slid = slid,
	};
	struct pib_bth bth = {
		.opcode = IB_OPCODE_UD_SEND_ONLY, .pkey = PIB_DEFAULT_PKEY,
	};
	unsigned int off = PIB_LRH_LEN + PIB_BTH_LEN + PIB_DETH_LEN;
	struct ib_smp *smp = (struct ib_smp *)(buf + off);
	struct ib_mad_notice_attr *n = (struct ib_mad_notice_attr *)smp->data;

	memset(buf, 0, off + PIB_SMP_LEN);
	pib_lrh_pack(buf, &lrh);
	pib_bth_pack(buf + PIB_LRH_LEN, &bth);	/* DETH: Q_Key 0, QP0 */
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = PIB_SMP_CLASS_VERSION;
	smp->method = IB_MGMT_METHOD_TRAP;
	smp->tid = cpu_to_be64(tid);
	smp->attr_id = IB_SMP_ATTR_NOTICE;
	n->generic_type = IB_NOTICE_TYPE_URGENT;
	n->prod_type_lsb = IB_NOTICE_PROD_SWITCH;
	n->trap_num = cpu_to_be16(PIB_TRAP_LINK_STATE);
	n->issuer_lid = cpu_to_be16(slid);
	put_unaligned_be16(slid, n->details.raw_data.details);	/* LIDADDR */
	return pib_pkt_seal(buf, off + PIB_SMP_LEN);
}

/**
 * pib_switch_trap_work() - tell the SM that a port's link state changed
 * @work: the switch's trap_work
 *
 * Trap 128 goes to the SM's LID once the SM has given the switch a LID,
 * and again every PIB_TRAP_RESEND_MS until the SM represses it.
 */
void pib_switch_trap_work(struct work_struct *work)
{
	struct pib_switch *sw = container_of(to_delayed_work(work),
					     struct pib_switch, trap_work);
	u8 buf[PIB_LRH_LEN + PIB_BTH_LEN + PIB_DETH_LEN + PIB_SMP_LEN +
	       PIB_ICRC_LEN + PIB_VCRC_LEN];
	struct pib_pkt pkt;
	u16 slid, dlid;
	unsigned int len;
	u64 tid;
	u8 sl;

	spin_lock_bh(&sw->lock);
	slid = sw->lid;
	dlid = sw->sm_lid;
	sl = sw->sm_sl;
	tid = sw->trap_tid;
	if (!sw->trap_pending || !slid || !dlid || dlid >= PIB_LID_MCAST ||
	    sw->trap_tries >= PIB_TRAP_TRIES) {
		sw->trap_pending = false;
		spin_unlock_bh(&sw->lock);
		return;
	}
	sw->trap_tries++;
	/* (the pace: one per PIB_TRAP_RESEND_MS since the burst) */
	sw->trap_tat = (time_after(sw->trap_tat, jiffies) ? sw->trap_tat :
			jiffies) + msecs_to_jiffies(PIB_TRAP_RESEND_MS);
	spin_unlock_bh(&sw->lock);
	len = pib_switch_trap_build(sw, buf, slid, dlid, sl, tid);
	atomic64_inc(&sw->traps_tx);
	if (!WARN_ON_ONCE(pib_pkt_locate(buf, len, &pkt)))
		pib_switch_input(sw, 0, buf, len, &pkt, PIB_TTL_HERE);
	spin_lock_bh(&sw->lock);
	if (!sw->dying)
		schedule_delayed_work(&sw->trap_work,
				      msecs_to_jiffies(PIB_TRAP_RESEND_MS));
	spin_unlock_bh(&sw->lock);
}

/**
 * pib_switch_trap_repressed() - the SM repressed a trap
 * @sw: the switch
 * @smp: the TrapRepress
 *
 * Trap 128 is no longer sent if it is the one the SM represses.
 */
void pib_switch_trap_repressed(struct pib_switch *sw, const struct ib_smp *smp)
{
	spin_lock_bh(&sw->lock);
	if (smp->attr_id == IB_SMP_ATTR_NOTICE &&
	    be64_to_cpu(smp->tid) == sw->trap_tid)
		sw->trap_pending = false;
	spin_unlock_bh(&sw->lock);
}

/* A LID-routed SMP for the switch itself: answer it back to its sender. */
static void pib_switch_lid_sma(struct pib_switch *sw, unsigned int in_port,
			       u8 *buf, unsigned int len,
			       const struct pib_pkt *pkt)
{
	struct ib_smp *smp = (struct ib_smp *)(buf + pkt->payload_off);
	struct pib_pkt reply = *pkt;
	unsigned long flags;
	int status;
	u8 out;

	if (pkt->lrh.vl != PIB_VL15 || pkt->bth.dest_qp ||
	    pkt->payload_len != PIB_SMP_LEN ||
	    smp->mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED) {
		pib_switch_unrouted(sw, buf, len);
		return;
	}
	status = pib_switch_sma_request(sw, in_port, smp);
	if (status < 0)
		return;
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->status = cpu_to_be16(status);
	spin_lock_irqsave(&sw->lock, flags);
	reply.lrh.dlid = pkt->lrh.slid;
	reply.lrh.slid = sw->lid;
	out = reply.lrh.dlid < PIB_LID_MCAST ? sw->lft[reply.lrh.dlid] :
					       PIB_LFT_NO_PORT;
	spin_unlock_irqrestore(&sw->lock, flags);
	if (!out || out > PIB_SW_NUM_PORTS) {
		pib_switch_unrouted(sw, buf, len);
		return;
	}
	pib_lrh_pack(buf, &reply.lrh);
	pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
	pib_switch_output(sw, out, buf, len, &reply, PIB_TTL_HERE);
}

/*
 * Multicast by the MulticastForwardingTable: a copy out of every ACTIVE
 * port in the MLID's PortMask but the one it came in on. SMPs are never
 * multicast (IBA 14.2.5.11).
 */
static void pib_switch_mcast(struct pib_switch *sw, unsigned int in_port,
			     const u8 *buf, unsigned int len,
			     const struct pib_pkt *pkt, u8 ttl)
{
	u16 index = pkt->lrh.dlid - PIB_LID_MCAST;
	DECLARE_BITMAP(out, PIB_SW_NUM_PORTS + 1);
	const u16 *mask;
	unsigned long flags;
	unsigned int port;

	bitmap_zero(out, PIB_SW_NUM_PORTS + 1);
	spin_lock_irqsave(&sw->lock, flags);
	if (pkt->lrh.vl != PIB_VL15 && index < PIB_SW_MFT_CAP &&
	    pkt->lrh.dlid <= sw->mft_top &&
	    sw->ports[in_port].state == IB_PORT_ACTIVE) {
		mask = sw->mft[index];
		for (port = 1; port <= PIB_SW_NUM_PORTS; port++)
			if (mask[port / PIB_MFT_PORTS_PER_MASK] &
			    BIT(port % PIB_MFT_PORTS_PER_MASK) &&
			    port != in_port &&
			    sw->ports[port].state == IB_PORT_ACTIVE)
				__set_bit(port, out);
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	if (bitmap_empty(out, PIB_SW_NUM_PORTS + 1)) {
		pib_switch_unrouted(sw, buf, len);
		return;
	}
	for_each_set_bit(port, out, PIB_SW_NUM_PORTS + 1)
		pib_switch_output(sw, port, buf, len, pkt, ttl);
}

/* Where the LinearForwardingTable sends a unicast packet. */
enum pib_sw_route {
	PIB_SW_ROUTE_PORT,	/* out of a port */
	PIB_SW_ROUTE_SMA,	/* to the switch's own SMA */
	PIB_SW_ROUTE_NONE,	/* nowhere: no entry, or a port not ACTIVE */
};

/*
 * Unicast by the LinearForwardingTable. Only SMPs (VL15) may use a port
 * that is not ACTIVE; packets for the switch's own LID go to its SMA.
 */
static enum pib_sw_route pib_switch_lft(struct pib_switch *sw,
					unsigned int in_port,
					const struct pib_pkt *pkt,
					unsigned int *out)
{
	u16 dlid = pkt->lrh.dlid;
	unsigned long flags;
	bool mine, active;
	u8 port;

	spin_lock_irqsave(&sw->lock, flags);
	mine = sw->lid && (dlid & ~((1u << sw->lmc) - 1)) == sw->lid;
	port = sw->lft[dlid];
	active = sw->ports[in_port].state == IB_PORT_ACTIVE &&
		 port <= PIB_SW_NUM_PORTS &&
		 sw->ports[port].state == IB_PORT_ACTIVE;
	spin_unlock_irqrestore(&sw->lock, flags);
	if (mine)
		return PIB_SW_ROUTE_SMA;
	if (!port || port > PIB_SW_NUM_PORTS ||
	    (pkt->lrh.vl != PIB_VL15 && !active))
		return PIB_SW_ROUTE_NONE;
	*out = port;
	return PIB_SW_ROUTE_PORT;
}

static void pib_switch_lid_route(struct pib_switch *sw, unsigned int in_port,
				 u8 *buf, unsigned int len,
				 const struct pib_pkt *pkt, u8 ttl)
{
	unsigned int out;

	if (pkt->lrh.dlid == PIB_PERMISSIVE_LID) {
		pib_switch_unrouted(sw, buf, len);	/* only DR SMPs may carry it */
		return;
	}
	if (pkt->lrh.dlid >= PIB_LID_MCAST) {
		pib_switch_mcast(sw, in_port, buf, len, pkt, ttl);
		return;
	}
	switch (pib_switch_lft(sw, in_port, pkt, &out)) {
	case PIB_SW_ROUTE_PORT:
		pib_switch_output(sw, out, buf, len, pkt, ttl);
		break;
	case PIB_SW_ROUTE_SMA:
		pib_switch_lid_sma(sw, in_port, buf, len, pkt);
		break;
	default:
		pib_switch_unrouted(sw, buf, len);
	}
}

/* A directed-route SMP: LID-routed packets and raw hellos are not. */
static bool pib_switch_is_dr(const u8 *buf, const struct pib_pkt *pkt)
{
	return pkt->lrh.lnh != PIB_LNH_RAW && pkt->lrh.vl == PIB_VL15 &&
	       pkt->lrh.dlid == PIB_PERMISSIVE_LID && pkt->bth.dest_qp == 0 &&
	       pkt->payload_len == PIB_SMP_LEN &&
	       buf[pkt->payload_off + 1] == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
}

/**
 * pib_switch_input() - a packet enters the switch through a port
 * @sw: the switch
 * @in_port: the port (a device's or a peer's)
 * @buf: the packet, built on this host or checked where it came in from
 *	the LAN (pib_pkt_parse()); the switch may rewrite it
 * @len: its length
 * @pkt: its headers, as parsed there: the switch and the device it goes
 *	to take them from here, and parse the packet no more
 * @ttl: its hop budget: the TTL it may go out to the LAN with, or
 *	PIB_TTL_HERE for a packet built on this host
 *
 * May be called in any context; it does not sleep.
 */
void pib_switch_input(struct pib_switch *sw, unsigned int in_port, u8 *buf,
		      unsigned int len, const struct pib_pkt *pkt, u8 ttl)
{
	if (pib_switch_is_dr(buf, pkt))
		pib_switch_dr(sw, in_port, buf, len, pkt);
	else
		pib_switch_lid_route(sw, in_port, buf, len, pkt, ttl);
}

/*
 * The most a batch carries: IPv4's 64 KiB datagram, less its header and
 * the UDP header (some 60 packets of a 1024-byte IB MTU), and no more
 * than the netdev's GSO takes.
 */
#define PIB_BATCH_IP_MAX	(0xffff - sizeof(struct iphdr) - \
				 sizeof(struct udphdr))

/**
 * struct pib_sw_dest - where a packet for another host goes
 * @addr: the host's address
 * @slot: its switch's slot in the peer table (whose route is cached)
 */
struct pib_sw_dest {
	struct pib_ip addr;
	int slot;
};

/**
 * struct pib_batch - a run of packets for one peer, to leave as one skb
 * @to: the peer
 * @q: the packets, in order
 * @seg: the length of the first; all but the last have it
 * @bytes: their total length
 * @max_bytes: the most @bytes may be (pib_batch_init())
 * @max_segs: the most packets it may hold
 */
struct pib_batch {
	struct pib_sw_dest to;
	struct sk_buff_head q;
	unsigned int seg;
	unsigned int bytes;
	unsigned int max_bytes;
	unsigned int max_segs;
};

/*
 * An empty batch, and its bounds for this pass: PIB_BATCH_IP_MAX and what
 * the netdev's GSO takes.
 */
static void pib_batch_init(struct pib_switch *sw, struct pib_batch *b)
{
	unsigned int gso_max = READ_ONCE(sw->ndev->gso_max_size);
	unsigned int headroom = pib_tx_headroom(sw->ndev);

	memset(b, 0, sizeof(*b));
	__skb_queue_head_init(&b->q);
	b->max_bytes = gso_max > headroom ?
		min_t(unsigned int, gso_max - headroom, PIB_BATCH_IP_MAX) : 0;
	b->max_segs = READ_ONCE(sw->ndev->gso_max_segs);
}

/*
 * Send the batch: one packet alone, more as one UDP GSO skb whose
 * segments are the packets, each a whole datagram. The packets are not
 * copied: they hang on the batch's frag_list, each one segment, and
 * software GSO makes each datagram a clone of its packet, writing the
 * IP and UDP headers into the packet's headroom (which is why the
 * packets give their headers up: __skb_header_release()), and computing
 * its UDP checksum (pib_switch_xmit_skb() has GSO compute them). A NIC
 * that segments UDP itself gets the batch made linear by the stack
 * first. Without memory for the batch's head the packets go one by one.
 */
static void pib_batch_flush(struct pib_switch *sw, struct pib_batch *b)
{
	unsigned int headroom = pib_tx_headroom(sw->ndev);
	struct sk_buff *skb, *gso = NULL, **tail;
	unsigned int n = skb_queue_len(&b->q);

	if (n > 1)
		gso = alloc_skb(headroom, GFP_ATOMIC | __GFP_NOWARN);
	if (!gso) {
		while ((skb = __skb_dequeue(&b->q)))
			pib_switch_xmit_skb(sw, &b->to.addr, b->to.slot, skb,
					    PIB_TTL_HERE);
		return;
	}
	skb_reserve(gso, headroom);
	tail = &skb_shinfo(gso)->frag_list;
	while ((skb = __skb_dequeue(&b->q))) {
		__skb_header_release(skb);
		gso->len += skb->len;
		gso->data_len += skb->len;
		gso->truesize += skb->truesize;
		*tail = skb;
		tail = &skb->next;
	}
	skb_shinfo(gso)->gso_size = b->seg;
	skb_shinfo(gso)->gso_segs = n;
	skb_shinfo(gso)->gso_type = SKB_GSO_UDP_L4;
	atomic64_inc(&sw->batches_tx);
	atomic64_add(n, &sw->batched_tx);
	pib_switch_xmit_skb(sw, &b->to.addr, b->to.slot, gso, PIB_TTL_HERE);
}

/*
 * May @skb, for @to, join the batch? Same peer, no longer than the
 * first, after none shorter (GSO's segments are all of one size but the
 * last), within the batch's bounds.
 */
static bool pib_batch_takes(const struct pib_batch *b,
			    const struct pib_sw_dest *to,
			    const struct sk_buff *skb)
{
	return pib_ip_eq(&to->addr, &b->to.addr) && to->slot == b->to.slot &&
	       skb->len <= b->seg &&
	       skb_peek_tail(&b->q)->len == b->seg &&
	       b->bytes + skb->len <= b->max_bytes &&
	       skb_queue_len(&b->q) < b->max_segs;
}

/**
 * struct pib_route_memo - the last route of a pib_switch_send() pass to a
 *	peer: the packets of a run (a message, a window) have one DLID, and
 *	are routed once, not once each (the LFT's and the peer table's lock)
 * @dlid: its DLID
 * @to: the peer
 * @valid: @dlid and @to hold a route
 *
 * A route taken for a packet of the same pass is microseconds old: what
 * changes it (the SM's LFT, a peer going down) races with the pass either
 * way. Only data packets use it: VL15's route in any port state.
 */
struct pib_route_memo {
	u16 dlid;
	struct pib_sw_dest to;
	bool valid;
};

/*
 * The route of a data packet @pkt to a peer: from @memo if it has the
 * packet's DLID; else looked up, and kept in @memo. Return true with the
 * peer in @to; false if the packet does not go to a peer. @drop is set for
 * a peer that is not up.
 */
static bool pib_switch_peer_route(struct pib_switch *sw, unsigned int in_port,
				  const struct pib_pkt *pkt, const u8 *buf,
				  struct pib_route_memo *memo,
				  struct pib_sw_dest *to, bool *drop)
{
	bool data = pkt->lrh.vl != PIB_VL15;
	unsigned int out;

	*drop = false;
	if (data && memo->valid && memo->dlid == pkt->lrh.dlid) {
		*to = memo->to;
		return true;
	}
	memo->valid = false;
	if (pkt->lrh.dlid >= PIB_LID_MCAST || pib_switch_is_dr(buf, pkt) ||
	    pib_switch_lft(sw, in_port, pkt, &out) != PIB_SW_ROUTE_PORT ||
	    out < PIB_SW_FIRST_PEER_PORT)
		return false;
	if (!pib_switch_peer_addr(sw, out, &to->addr)) {
		*drop = true;
		return false;
	}
	to->slot = out - PIB_SW_FIRST_PEER_PORT;
	if (data) {
		memo->dlid = pkt->lrh.dlid;
		memo->to = *to;
		memo->valid = true;
	}
	return true;
}

/*
 * A packet from a local device: checked, and routed (@memo: the pass's
 * last route to a peer). Return true, with the peer in @to, if it leaves
 * for another host; else the switch has forwarded it (after the batch
 * @b, which came before it) or dropped it, and it is consumed.
 */
static bool pib_switch_send_route(struct pib_switch *sw, unsigned int in_port,
				  struct sk_buff *skb, struct pib_sw_dest *to,
				  struct pib_batch *b,
				  struct pib_route_memo *memo)
{
	enum pib_pkt_err err;
	struct pib_pkt pkt;
	bool drop;

	/*
	 * Packets of a device of this host are sound: only an injected
	 * corruption needs the CRC check that the LAN's packets get.
	 */
	if (unlikely(pib_skb_cb(skb)->check_crc))
		err = pib_pkt_parse(skb->data, skb->len, &pkt);
	else
		err = pib_pkt_locate(skb->data, skb->len, &pkt);
	if (err) {
		atomic64_inc(&sw->drops[err]);
		trace_pib_pkt_drop(netdev_name(sw->ndev), skb->data, skb->len,
				   PIB_DROP_MALFORMED, err);
		kfree_skb(skb);
		return false;
	}
	if (pib_switch_peer_route(sw, in_port, &pkt, skb->data, memo, to,
				  &drop))
		return true;
	if (drop) {
		kfree_skb(skb);
		return false;
	}
	pib_batch_flush(sw, b);
	pib_switch_input(sw, in_port, skb->data, skb->len, &pkt, PIB_TTL_HERE);
	consume_skb(skb);
	return false;
}

/**
 * pib_switch_send() - packets from a local device enter the switch
 * @sw: the switch
 * @in_port: the device's port
 * @list: the packets, in order, each built behind pib_tx_headroom();
 *	emptied
 *
 * As pib_switch_input(), but a unicast packet for another host leaves in
 * its own skb, with no copy, and a run of them for one host (the packets
 * of one message or more) leaves as one UDP GSO skb, with no copy either
 * (pib_batch_flush()): one pass down the IP stack and one doorbell of the
 * NIC for the run, which the NIC or GSO cuts into the datagrams. Another
 * host receives the same datagrams either way, but that those of a run
 * carry UDP checksums.
 */
void pib_switch_send(struct pib_switch *sw, unsigned int in_port,
		     struct sk_buff_head *list)
{
	struct pib_route_memo memo = {};
	struct pib_sw_dest to;
	struct pib_batch b;
	struct sk_buff *skb;

	pib_batch_init(sw, &b);
	while ((skb = __skb_dequeue(list))) {
		if (!pib_switch_send_route(sw, in_port, skb, &to, &b, &memo))
			continue;
		/* A batch takes its packets' headroom: a clone shares it. */
		if (skb_cloned(skb)) {
			pib_batch_flush(sw, &b);
			pib_switch_xmit_skb(sw, &to.addr, to.slot, skb,
					    PIB_TTL_HERE);
			continue;
		}
		if (!skb_queue_empty(&b.q) && !pib_batch_takes(&b, &to, skb))
			pib_batch_flush(sw, &b);
		if (skb_queue_empty(&b.q)) {
			b.to = to;
			b.seg = skb->len;
			b.bytes = 0;
		}
		__skb_queue_tail(&b.q, skb);
		b.bytes += skb->len;
	}
	pib_batch_flush(sw, &b);
}

/**
 * pib_switch_show_lft() - the switch's LinearForwardingTable as the SM set it
 * @m: debugfs's file (pib_debugfs.c)
 * @sw: the switch
 *
 * LinearFDBTop, then each LID up to it that has a port, with the port.
 */
void pib_switch_show_lft(struct seq_file *m, struct pib_switch *sw)
{
	unsigned long flags;
	u32 lid, top;

	spin_lock_irqsave(&sw->lock, flags);
	top = min_t(u32, sw->lft_top, PIB_SW_LFT_CAP - 1);
	seq_printf(m, "lft_top 0x%x\n", sw->lft_top);
	for (lid = 0; lid <= top; lid++)
		if (sw->lft[lid] != PIB_LFT_NO_PORT)
			seq_printf(m, "lid 0x%x port %u\n", lid, sw->lft[lid]);
	spin_unlock_irqrestore(&sw->lock, flags);
}

/**
 * pib_switch_show_mft() - the switch's MulticastForwardingTable as the SM
 *	set it
 * @m: debugfs's file (pib_debugfs.c)
 * @sw: the switch
 *
 * MulticastFDBTop, then each MLID up to it that has ports, with the ports.
 */
void pib_switch_show_mft(struct seq_file *m, struct pib_switch *sw)
{
	unsigned long flags;
	u32 i, n, port;
	const char *sep;

	spin_lock_irqsave(&sw->lock, flags);
	seq_printf(m, "mft_top 0x%x\n", sw->mft_top);
	n = sw->mft_top >= PIB_LID_MCAST ?
	    min_t(u32, sw->mft_top - PIB_LID_MCAST + 1, PIB_SW_MFT_CAP) : 0;
	for (i = 0; i < n; i++) {
		sep = "";
		for (port = 0; port <= PIB_SW_NUM_PORTS; port++) {
			if (!(sw->mft[i][port / PIB_MFT_PORTS_PER_MASK] &
			      BIT(port % PIB_MFT_PORTS_PER_MASK)))
				continue;
			if (!*sep)
				seq_printf(m, "mlid 0x%x ports ",
					   PIB_LID_MCAST + i);
			seq_printf(m, "%s%u", sep, port);
			sep = ",";
		}
		if (*sep)
			seq_putc(m, '\n');
	}
	spin_unlock_irqrestore(&sw->lock, flags);
}
