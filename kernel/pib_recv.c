// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets in and out of the HCA's port: the receive checks (DLID, QP,
 * transport, P_Key, Q_Key of the special QPs) that send each packet to
 * the responder, the completer or a UD QP, and the transmit side that
 * hands what QPs built to the netdev's switch.
 */
#include <linux/skbuff.h>

#include "pib.h"
#include "pib_trace.h"

/*
 * Is a DLID this port's? Its LID with any path bits the LMC allows, the
 * permissive LID (which only a directed-route SMP may carry, IBA 7.11.1),
 * or a multicast LID (the QPs attached to the group decide).
 */
static bool pib_port_owns_dlid(struct pib_port *port, u16 dlid, u8 *bits)
{
	u16 lid = READ_ONCE(port->lid);
	u16 mask = (1u << READ_ONCE(port->lmc)) - 1;

	*bits = 0;
	if (dlid >= PIB_LID_MCAST)
		return true;
	*bits = dlid & mask;
	return lid && (dlid & ~mask) == lid;
}

/*
 * A unicast packet with a GRH is for this port's GID: the MAD layer and
 * the CM answer from the GRH, and a GID the port does not have only gives
 * them errors to log.
 */
static bool pib_port_owns_dgid(struct pib_dev *dev, const struct pib_pkt *pkt)
{
	return pkt->lrh.lnh != PIB_LNH_IBA_GLOBAL ||
	       pib_port_owns_gid(dev, pkt->grh.dgid);
}

/* Index of a packet's P_Key in the port's table; false if it is not there. */
static bool pib_pkey_find(struct pib_port *port, u16 pkey, u16 *index)
{
	unsigned long flags;
	bool found = false;
	u16 i;

	spin_lock_irqsave(&port->lock, flags);
	for (i = 0; i < PIB_PKEY_TABLE_LEN && !found; i++) {
		if (pib_pkey_match(port->pkeys[i], pkey)) {
			*index = i;
			found = true;
		}
	}
	spin_unlock_irqrestore(&port->lock, flags);
	return found;
}

/* Does the packet's P_Key match the QP's (any table entry for QP0/QP1)? */
static bool pib_qp_pkey_ok(struct pib_dev *dev, struct pib_qp *qp, u16 pkey,
			   u16 *index)
{
	u16 mine;

	if (qp->ibqp.qp_num < PIB_NUM_SPECIAL_QPS)
		return qp->ibqp.qp_num == 0 ||
		       pib_pkey_find(&dev->port, pkey, index);
	*index = READ_ONCE(qp->pkey_index);
	mine = READ_ONCE(dev->port.pkeys[*index]);
	return pib_pkey_match(mine, pkey);
}

/*
 * The transport of a BTH opcode must be the QP's; an XRC INI QP takes
 * responses only, an XRC TGT QP requests only.
 */
static bool pib_qp_takes_opcode(struct pib_qp *qp, u8 op)
{
	u32 f = pib_opcodes[op].flags;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		return f & PIB_OPF_RC;
	case IB_QPT_UC:
		return f & PIB_OPF_UC;
	case IB_QPT_XRC_INI:
		return (f & (PIB_OPF_XRC | PIB_OPF_RESP)) ==
		       (PIB_OPF_XRC | PIB_OPF_RESP);
	case IB_QPT_XRC_TGT:
		return (f & (PIB_OPF_XRC | PIB_OPF_RESP)) == PIB_OPF_XRC;
	default:
		return f & PIB_OPF_UD;
	}
}

/**
 * struct pib_drop_kind - what a device does with a packet it drops
 * @name: the reason's name, as the pkt_drop tracepoint prints it
 * @stat: the `rdma statistic` counter it adds to (enum pib_stat), or
 *	PIB_NUM_STATS for one no device drops for (the switch's)
 */
struct pib_drop_kind {
	const char *name;
	u8 stat;
};

#define PIB_DROP_KIND(reason, counter) \
	[PIB_DROP_##reason] = { #reason, PIB_STAT_##counter }

static const struct pib_drop_kind pib_drop_kinds[] = {
	PIB_DROP_KIND(PORT_DOWN, RCV_PORT_DOWN),
	PIB_DROP_KIND(MALFORMED, RCV_MALFORMED),
	PIB_DROP_KIND(DLID, RCV_BAD_DLID),
	PIB_DROP_KIND(DGID, RCV_BAD_DGID),
	PIB_DROP_KIND(NO_QP, RCV_NO_QP),
	PIB_DROP_KIND(TRANSPORT, RCV_BAD_TRANSPORT),
	PIB_DROP_KIND(PKEY, RCV_BAD_PKEY),
	PIB_DROP_KIND(MAD, RCV_BAD_MAD),
	PIB_DROP_KIND(SLID, RCV_BAD_SLID),
	PIB_DROP_KIND(NOT_ACTIVE, XMIT_NOT_ACTIVE),
	[PIB_DROP_UNROUTED] = { "UNROUTED", PIB_NUM_STATS },
	PIB_DROP_KIND(INJECTED, INJECTED_DROPS),
	PIB_DROP_KIND(MCAST_GID, RCV_MCAST_BAD_GID),
	PIB_DROP_KIND(QKEY, RCV_BAD_QKEY),
	PIB_DROP_KIND(NO_WQE, UD_DROPS),
	PIB_DROP_KIND(QP_STATE, RCV_QP_NOT_READY),
};

/**
 * pib_drop() - a device drops a packet
 * @dev: the device
 * @buf: the packet, which may be malformed; nothing beyond @len is read
 * @len: its length
 * @reason: why
 * @err: enum pib_pkt_err, for PIB_DROP_MALFORMED
 *
 * Every packet a device drops, received or about to be sent, goes
 * through here: the pkt_drop tracepoint, the reason's counter in `rdma
 * statistic`, and a line in the kernel log when dynamic debug asks for
 * one (`echo 'module pib +p' > /sys/kernel/debug/dynamic_debug/control`),
 * at most 10 each 5 s.
 */
void pib_drop(struct pib_dev *dev, const u8 *buf, u32 len,
	      enum pib_drop_reason reason, int err)
{
	const struct pib_drop_kind *k = &pib_drop_kinds[reason];
	struct pib_pkt_brief h;

	BUILD_BUG_ON(ARRAY_SIZE(pib_drop_kinds) != PIB_NUM_DROPS);
	trace_pib_pkt_drop(dev->ibdev.name, buf, len, reason, err);
	if (k->stat < PIB_NUM_STATS)
		atomic64_inc(&dev->stats[k->stat]);
	pib_pkt_brief(buf, len, &h);
	ibdev_dbg_ratelimited(&dev->ibdev,
			      "packet dropped (%s%s%s): slid 0x%x dlid 0x%x lnh %u opcode 0x%02x qpn 0x%x psn %u len %u\n",
			      k->name, err ? " " : "",
			      err ? pib_name_of(pib_pkt_err_names,
						PIB_PKT_NUM_ERRS, err) : "",
			      h.slid, h.dlid, h.lnh, h.opcode, h.dqpn, h.psn,
			      len);
}

/*
 * A request or response with MigReq set, to a connected QP whose
 * alternate path is ARMED, from that path's remote port: the peer
 * migrated, and so does the QP (IBA 17.2.8), before the packet is
 * checked against its (new) primary path.
 */
static void pib_qp_follow_migration(struct pib_dev *dev, struct pib_qp *qp,
				    const struct pib_pkt *pkt)
{
	unsigned long flags;
	bool migrated = false;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->mig_state == IB_MIG_ARMED &&
	    pkt->lrh.slid == qp->alt_av.dlid &&
	    pib_pkey_match(READ_ONCE(dev->port.pkeys[qp->alt_pkey_index]),
			   pkt->bth.pkey)) {
		pib_qp_migrate(qp);
		migrated = true;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	if (migrated)
		pib_qp_notify_cqs(qp);
}

/* Hand a unicast packet to its QP (under RCU). */
static void pib_qp_receive(struct pib_dev *dev, struct pib_qp *qp,
			   const struct pib_pkt *pkt, const u8 *buf, u8 bits)
{
	u8 op = pkt->bth.opcode;
	u16 pkey_index = 0;

	if (!pib_qp_takes_opcode(qp, op)) {
		pib_drop(dev, buf, pkt->len, PIB_DROP_TRANSPORT, 0);
		return;
	}
	if (pib_qp_connected(qp) && pkt->bth.mig &&
	    READ_ONCE(qp->mig_state) == IB_MIG_ARMED)
		pib_qp_follow_migration(dev, qp, pkt);
	if (!pib_qp_pkey_ok(dev, qp, pkt->bth.pkey, &pkey_index)) {
		pib_drop(dev, buf, pkt->len, PIB_DROP_PKEY, 0);
		return;
	}
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		if (pkt->lrh.slid != READ_ONCE(qp->av.dlid)) {
			pib_drop(dev, buf, pkt->len, PIB_DROP_SLID, 0);
			return;
		}
		if (pib_opcodes[op].flags & PIB_OPF_RESP)
			pib_comp_rcv(qp, pkt, buf);
		else
			pib_resp_rcv(qp, pkt, buf);
		return;
	default:
		pib_resp_ud(qp, pkt, buf, bits, pkey_index);
	}
}

/*
 * QP0 and QP1 take MADs only (pib_mad_check()): QP0 on VL15, QP1 with the
 * GSI Q_Key (IBA 9.6.1.5). The rest is dropped and counted here, before
 * it takes a receive WQE: the MAD layer never posts again the buffer of a
 * receive that completed in error (a datagram too long for it), and logs
 * every MAD of an unknown base version.
 */
static bool pib_special_qp_takes(struct pib_dev *dev,
				 const struct pib_pkt *pkt, const u8 *buf)
{
	u32 qpn = pkt->bth.dest_qp;

	if (pib_mad_check(qpn, pkt, buf) ||
	    (qpn == 0 && pkt->lrh.vl != PIB_VL15) ||
	    (qpn == 1 &&
	     pib_deth_qkey(pib_pkt_ext(buf, pkt, PIB_EXT_DETH)) != IB_QP1_QKEY)) {
		pib_drop(dev, buf, pkt->len, PIB_DROP_MAD, 0);
		return false;
	}
	return true;
}

/**
 * pib_hca_receive() - a packet arrives at the HCA's port from its switch
 * @dev: the device
 * @buf: the packet, from the switch: built on this host or checked where
 *	it came in from the LAN, so its CRCs are not checked again
 * @len: its length
 * @pkt: its headers, as parsed there (pib_pkt_parse() or
 *	pib_pkt_locate()): the packet is not parsed again
 *
 * Packets for no QP, another transport, a wrong P_Key or another LID are
 * dropped (and counted as receive errors where the IBA says so).
 */
void pib_hca_receive(struct pib_dev *dev, const u8 *buf, unsigned int len,
		     const struct pib_pkt *pkt)
{
	struct pib_counters *c = &dev->port.counters;
	struct pib_qp *qp;
	u32 qpn;
	u8 bits;

	trace_pib_pkt_rx(&dev->ibdev, buf, len);
	if (READ_ONCE(dev->port.state) == IB_PORT_DOWN) {
		pib_drop(dev, buf, len, PIB_DROP_PORT_DOWN, 0);
		return;
	}
	if (pkt->lrh.lnh == PIB_LNH_RAW ||
	    !pib_port_owns_dlid(&dev->port, pkt->lrh.dlid, &bits) ||
	    (pkt->lrh.dlid == PIB_PERMISSIVE_LID && pkt->lrh.vl != PIB_VL15)) {
		atomic64_inc(&c->rcv_errors);
		pib_drop(dev, buf, len, PIB_DROP_DLID, 0);
		return;
	}
	atomic64_inc(&c->rcv_packets);
	atomic64_add((len - PIB_VCRC_LEN) / 4, &c->rcv_words);
	atomic64_inc(pib_lid_is_mcast(pkt->lrh.dlid) ? &c->mcast_rcv_packets :
						      &c->ucast_rcv_packets);
	qpn = pkt->bth.dest_qp;
	rcu_read_lock();
	if (pib_lid_is_mcast(pkt->lrh.dlid)) {
		if (qpn == PIB_MCAST_QPN && pkt->ext & PIB_EXT_DETH)
			pib_mcast_deliver(dev, pkt, buf);
	} else if (!pib_port_owns_dgid(dev, pkt)) {
		atomic64_inc(&c->rcv_errors);
		pib_drop(dev, buf, len, PIB_DROP_DGID, 0);
	} else if (qpn >= PIB_NUM_SPECIAL_QPS ||
		   pib_special_qp_takes(dev, pkt, buf)) {
		qp = qpn < PIB_NUM_SPECIAL_QPS ?
		     rcu_dereference(dev->special_qp[qpn]) :
		     xa_load(&dev->qps, qpn);
		if (qp)
			pib_qp_receive(dev, qp, pkt, buf, bits);
		else
			pib_drop(dev, buf, len, PIB_DROP_NO_QP, 0);
	}
	rcu_read_unlock();
}

/**
 * pib_dev_queue() - queue packets to leave the HCA's port, in order
 * @dev: the device
 * @q: the packets (sealed); emptied
 * @resp: they are responses (ACKs, NAKs, READ responses, atomic ACKs),
 *	which overtake the requests waiting to leave but not each other
 *
 * A port that is DOWN sends nothing, and only SMPs (VL15) may leave a port
 * that is not ACTIVE (IBA 7.2): the others are discarded here. The caller
 * may hold a QP's lock (a QP's responses are queued under it, so that two
 * contexts answering for it keep their order); pib_dev_tx_kick() then
 * sends them once it is dropped.
 *
 * Return: true if a packet was queued.
 */
bool pib_dev_queue(struct pib_dev *dev, struct sk_buff_head *q, bool resp)
{
	struct sk_buff_head *txq = resp ? &dev->ackq : &dev->txq;
	struct pib_counters *c = &dev->port.counters;
	enum ib_port_state state = READ_ONCE(dev->port.state);
	struct sk_buff *skb;
	unsigned long flags;
	bool any = false;

	if (skb_queue_empty(q))
		return false;
	spin_lock_irqsave(&txq->lock, flags);
	while ((skb = __skb_dequeue(q))) {
		if (state == IB_PORT_DOWN ||
		    (state != IB_PORT_ACTIVE && pib_lrh_vl(skb->data) != PIB_VL15)) {
			atomic64_inc(&c->xmit_discards);
			pib_drop(dev, skb->data, skb->len,
				 PIB_DROP_NOT_ACTIVE, 0);
			kfree_skb(skb);
			continue;
		}
		if (pib_inject_sl_lost(dev, skb->data)) {
			pib_drop(dev, skb->data, skb->len, PIB_DROP_INJECTED, 0);
			kfree_skb(skb);
			continue;
		}
		trace_pib_pkt_tx(&dev->ibdev, skb->data, skb->len);
		atomic64_inc(&c->xmit_packets);
		atomic64_add((skb->len - PIB_VCRC_LEN) / 4, &c->xmit_words);
		atomic64_inc(pib_lid_is_mcast(pib_lrh_dlid(skb->data)) ?
			     &c->mcast_xmit_packets : &c->ucast_xmit_packets);
		__skb_queue_tail(txq, skb);
		any = true;
	}
	spin_unlock_irqrestore(&txq->lock, flags);
	return any;
}

/**
 * pib_dev_send() - send packets out of the HCA's port, in order
 * @dev: the device
 * @q: the packets (sealed); emptied
 * @resp: they are responses (pib_dev_queue())
 *
 * The packets go to the switch at once where pib_dev_tx_kick() can.
 */
void pib_dev_send(struct pib_dev *dev, struct sk_buff_head *q, bool resp)
{
	if (pib_dev_queue(dev, q, resp))
		pib_dev_tx_kick(dev);
}
