// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * UD datagrams of the special QPs: building the packet a send WR describes,
 * and delivering a received packet into a receive WQE.
 */
#include <linux/slab.h>

#include "pib.h"

/* Receive buffers of UD QPs start with room for a GRH. */
#define PIB_UD_GRH_ROOM		40

/**
 * pib_ud_build() - the packet of a send WR on QP0 or QP1
 * @qp: the QP
 * @wr: the WR (already checked: SEND[_IMM], an AH, at most a MAD of data)
 * @buf: room for PIB_MAX_PKT_LEN bytes
 *
 * Return: the sealed packet's length.
 */
unsigned int pib_ud_build(struct pib_qp *qp, const struct ib_send_wr *wr,
			  u8 *buf)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	const struct ib_ud_wr *ud = ud_wr(wr);
	struct rdma_ah_attr *ah = &container_of(ud->ah, struct pib_ah, ibah)->attr;
	bool imm = wr->opcode == IB_WR_SEND_WITH_IMM;
	struct pib_lrh lrh = {
		.vl = qp->ibqp.qp_type == IB_QPT_SMI ? PIB_VL15 : 0,
		.sl = rdma_ah_get_sl(ah),
		.lnh = PIB_LNH_IBA_LOCAL,
		.dlid = rdma_ah_get_dlid(ah),
	};
	struct pib_bth bth = {
		.opcode = imm ? PIB_OP_UD_SEND_ONLY_IMM : PIB_OP_UD_SEND_ONLY,
		.se = !!(wr->send_flags & IB_SEND_SOLICITED),
		.dest_qp = ud->remote_qpn,
	};
	u32 qkey = ud->remote_qkey & IB_QP_SET_QKEY ? qp->qkey : ud->remote_qkey;
	unsigned int off = PIB_LRH_LEN + PIB_BTH_LEN, len = 0;
	u16 pkey_index = qp->ibqp.qp_type == IB_QPT_GSI ? ud->pkey_index :
							  qp->pkey_index;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&dev->port.lock, flags);
	/*
	 * A directed-route SMP leaves with the permissive DLID and SLID
	 * (IBA 14.2.2): its answer must come back by the path, not by a LID.
	 */
	if (lrh.dlid == PIB_PERMISSIVE_LID || !dev->port.lid)
		lrh.slid = PIB_PERMISSIVE_LID;
	else
		lrh.slid = dev->port.lid |
			   (rdma_ah_get_path_bits(ah) &
			    ((1 << dev->port.lmc) - 1));
	bth.pkey = dev->port.pkeys[pkey_index % PIB_PKEY_TABLE_LEN];
	spin_unlock_irqrestore(&dev->port.lock, flags);
	bth.psn = qp->sq_psn;
	qp->sq_psn = (qp->sq_psn + 1) & PIB_PSN_MASK;

	pib_put32(buf + off, qkey);
	pib_put24(buf + off + 5, qp->ibqp.qp_num);
	buf[off + 4] = 0;
	off += PIB_DETH_LEN;
	if (imm) {
		memcpy(buf + off, &wr->ex.imm_data, PIB_IMMDT_LEN);
		off += PIB_IMMDT_LEN;
	}
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(buf + off + len, (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	bth.pad = -len & 3;
	memset(buf + off + len, 0, bth.pad);
	pib_lrh_pack(buf, &lrh);
	pib_bth_pack(buf + PIB_LRH_LEN, &bth);
	return pib_pkt_seal(buf, off + len + bth.pad);
}

/* Index of @pkey (membership bit aside) in the port's table, or 0. */
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

static u16 pib_pkey_index(struct pib_port *port, u16 pkey)
{
	unsigned long flags;
	u16 i, found = 0;

	spin_lock_irqsave(&port->lock, flags);
	for (i = 0; i < PIB_PKEY_TABLE_LEN; i++) {
		if ((port->pkeys[i] & 0x7fff) == (pkey & 0x7fff)) {
			found = i;
			break;
		}
	}
	spin_unlock_irqrestore(&port->lock, flags);
	return found;
}

/* Scatter @len bytes into a receive WQE; false if they do not fit. */
static bool pib_ud_scatter(struct pib_rwqe *wqe, const u8 *grh, const u8 *data,
			   u32 len)
{
	u32 i, room = 0, done = 0, total = PIB_UD_GRH_ROOM + len;

	for (i = 0; i < wqe->num_sge; i++)
		room += wqe->sge[i].length;
	if (room < total)
		return false;
	for (i = 0; i < wqe->num_sge && done < total; i++) {
		u8 *to = (u8 *)(uintptr_t)wqe->sge[i].addr;
		u32 n = min(wqe->sge[i].length, total - done), j;

		for (j = 0; j < n; j++, done++)
			to[j] = done < PIB_UD_GRH_ROOM ? (grh ? grh[done] : 0) :
				data[done - PIB_UD_GRH_ROOM];
	}
	return true;
}

/**
 * pib_ud_deliver() - hand a received UD packet to a QP
 * @qp: the destination QP
 * @pkt: the parsed packet
 * @buf: its bytes
 * @dlid_path_bits: the DLID's bits below the port's LMC
 *
 * Return: true if the QP took it, false if it was dropped (QP not ready
 * to receive, no receive WQE posted).
 */
bool pib_ud_deliver(struct pib_qp *qp, const struct pib_pkt *pkt,
		    const u8 *buf, u8 dlid_path_bits)
{
	struct ib_wc wc = {
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
		.src_qp = pib_get24(buf + pkt->hdr_len + 5),
		.slid = pkt->lrh.slid,
		.sl = pkt->lrh.sl,
		.port_num = PIB_PORT_NUM,
		.byte_len = PIB_UD_GRH_ROOM + pkt->payload_len,
		.dlid_path_bits = dlid_path_bits,
	};
	const u8 *grh = pkt->lrh.lnh == PIB_LNH_IBA_GLOBAL ? buf + PIB_LRH_LEN : NULL;
	struct pib_rwqe *wqe;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if ((qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS) || !qp->rq.count) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return false;
	}
	wqe = pib_rq_slot(&qp->rq, qp->rq.head);
	wc.wr_id = wqe->wr_id;
	wc.status = pib_ud_scatter(wqe, grh, buf + pkt->payload_off,
				   pkt->payload_len) ? IB_WC_SUCCESS : IB_WC_LOC_LEN_ERR;
	qp->rq.head = (qp->rq.head + 1) % qp->rq.size;
	qp->rq.count--;
	spin_unlock_irqrestore(&qp->lock, flags);

	wc.pkey_index = pib_pkey_index(&to_pib_dev(qp->ibqp.device)->port,
				       pkt->bth.pkey);
	if (grh)
		wc.wc_flags |= IB_WC_GRH;
	if (pkt->bth.opcode == PIB_OP_UD_SEND_ONLY_IMM) {
		memcpy(&wc.ex.imm_data, buf + pkt->hdr_len + PIB_DETH_LEN,
		       PIB_IMMDT_LEN);
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	pib_cq_push(to_pib_cq(qp->ibqp.recv_cq), &wc, pkt->bth.se);
	return true;
}

/**
 * pib_hca_receive() - a packet arrives at the HCA's port from its switch
 * @dev: the device
 * @buf: the packet
 * @len: its length
 *
 * Only QP0 and QP1 exist so far: QP0 takes VL15 packets, QP1 takes packets
 * with the GSI Q_Key. Anything else is dropped, as for an unknown QP.
 */
void pib_hca_receive(struct pib_dev *dev, const u8 *buf, unsigned int len)
{
	struct pib_counters *c = &dev->port.counters;
	struct pib_pkt pkt;
	struct pib_qp *qp;
	u32 qpn;
	u8 bits;

	if (READ_ONCE(dev->port.state) == IB_PORT_DOWN)
		return;
	if (pib_pkt_parse(buf, len, &pkt)) {
		atomic64_inc(&c->rcv_errors);
		return;
	}
	if (!pib_port_owns_dlid(&dev->port, pkt.lrh.dlid, &bits) ||
	    (pkt.lrh.dlid == PIB_PERMISSIVE_LID && pkt.lrh.vl != PIB_VL15)) {
		atomic64_inc(&c->rcv_errors);
		return;
	}
	atomic64_inc(&c->rcv_packets);
	atomic64_add((len - PIB_VCRC_LEN) / 4, &c->rcv_words);
	qpn = pkt.bth.dest_qp;
	if (!(pkt.ext & PIB_EXT_DETH) || qpn >= PIB_NUM_SPECIAL_QPS)
		return;
	if (qpn == 0 && pkt.lrh.vl != PIB_VL15)
		return;
	if (qpn == 1 && pib_get32(buf + pkt.hdr_len) != IB_QP1_QKEY)
		return;
	rcu_read_lock();
	qp = rcu_dereference(dev->special_qp[qpn]);
	if (qp)
		pib_ud_deliver(qp, &pkt, buf, bits);
	rcu_read_unlock();
}
