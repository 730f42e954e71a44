// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: the special QPs (QP0 SMI, QP1 GSI) of kernel MAD consumers,
 * their IBA state machine, receive queue and send path. Sends leave through
 * the port into the netdev's switch.
 */
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>

#include "pib.h"

/* Bytes of one receive WQE with room for @max_sge scatter entries. */
static size_t pib_rwqe_stride(u32 max_sge)
{
	return sizeof(struct pib_rwqe) + max_sge * sizeof(struct ib_sge);
}

static int pib_check_qp_caps(struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;

	if (cap->max_send_wr > PIB_MAX_QP_WR || cap->max_recv_wr > PIB_MAX_QP_WR ||
	    cap->max_send_sge > PIB_MAX_SGE || cap->max_recv_sge > PIB_MAX_SGE ||
	    cap->max_inline_data)
		return -EINVAL;
	if (!cap->max_recv_wr || !cap->max_recv_sge)
		return -EINVAL;
	return 0;
}

int pib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibqp->device);
	struct pib_qp *qp = to_pib_qp(ibqp);
	unsigned int num;
	int err;

	/* RC, UC and UD QPs come with the data path. */
	if (udata || (init->qp_type != IB_QPT_SMI && init->qp_type != IB_QPT_GSI))
		return -EOPNOTSUPP;
	if (init->srq || init->create_flags || init->port_num != PIB_PORT_NUM)
		return -EINVAL;
	err = pib_check_qp_caps(init);
	if (err)
		return err;

	num = init->qp_type == IB_QPT_SMI ? 0 : 1;
	qp->rq.stride = pib_rwqe_stride(init->cap.max_recv_sge);
	qp->rq.size = init->cap.max_recv_wr;
	qp->rq.buf = kvcalloc(qp->rq.size, qp->rq.stride, GFP_KERNEL);
	if (!qp->rq.buf)
		return -ENOMEM;
	spin_lock_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->sq_sig_type = init->sq_sig_type;
	qp->max_send_sge = init->cap.max_send_sge;
	qp->max_recv_sge = init->cap.max_recv_sge;
	ibqp->qp_num = num;
	/* Publish the QP to receivers only once it is whole. */
	if (cmpxchg((struct pib_qp **)&dev->special_qp[num], NULL, qp)) {
		kvfree(qp->rq.buf);
		return -EBUSY;
	}
	return 0;
}

int pib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibqp->device);
	struct pib_qp *qp = to_pib_qp(ibqp);

	/* Receivers find the QP under RCU: wait for them before it goes. */
	rcu_assign_pointer(dev->special_qp[ibqp->qp_num], NULL);
	synchronize_rcu();
	kvfree(qp->rq.buf);
	return 0;
}

/* Complete every posted receive with IB_WC_WR_FLUSH_ERR (QP in error). */
static void pib_qp_flush_rq(struct pib_qp *qp)
{
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
	};
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&qp->lock, flags);
		if (qp->state != IB_QPS_ERR || !qp->rq.count) {
			spin_unlock_irqrestore(&qp->lock, flags);
			return;
		}
		wc.wr_id = pib_rq_slot(&qp->rq, qp->rq.head)->wr_id;
		qp->rq.head = (qp->rq.head + 1) % qp->rq.size;
		qp->rq.count--;
		spin_unlock_irqrestore(&qp->lock, flags);
		pib_cq_push(to_pib_cq(qp->ibqp.recv_cq), &wc, false);
	}
}

static int pib_qp_apply_attrs(struct pib_qp *qp, struct ib_qp_attr *attr,
			      int mask)
{
	if (mask & IB_QP_PORT && attr->port_num != PIB_PORT_NUM)
		return -EINVAL;
	if (mask & IB_QP_PKEY_INDEX && attr->pkey_index >= PIB_PKEY_TABLE_LEN)
		return -EINVAL;
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn & PIB_PSN_MASK;
	return 0;
}

int pib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	enum ib_qp_state cur, new;
	unsigned long flags;
	int err = -EINVAL;

	spin_lock_irqsave(&qp->lock, flags);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (cur != qp->state ||
	    !ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask))
		goto out;
	err = pib_qp_apply_attrs(qp, attr, mask);
	if (err)
		goto out;
	qp->state = new;
	if (new == IB_QPS_RESET) {
		qp->rq.head = 0;
		qp->rq.count = 0;
	}
out:
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!err && new == IB_QPS_ERR)
		pib_qp_flush_rq(qp);
	return err;
}

int pib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	struct pib_rwqe *wqe;
	unsigned long flags;
	bool flush;
	int err = 0;

	spin_lock_irqsave(&qp->lock, flags);
	for (; wr; wr = wr->next) {
		if (qp->state == IB_QPS_RESET || wr->num_sge > qp->max_recv_sge) {
			err = -EINVAL;
			break;
		}
		if (qp->rq.count == qp->rq.size) {
			err = -ENOMEM;
			break;
		}
		wqe = pib_rq_slot(&qp->rq, qp->rq.head + qp->rq.count);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		memcpy(wqe->sge, wr->sg_list, wr->num_sge * sizeof(*wr->sg_list));
		qp->rq.count++;
	}
	flush = qp->state == IB_QPS_ERR;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (err)
		*bad_wr = wr;
	if (flush)
		pib_qp_flush_rq(qp);
	return err;
}

/* Why a send WR cannot be posted (an errno), or 0; *len gets its length. */
static int pib_check_send_wr(struct pib_qp *qp, const struct ib_send_wr *wr,
			     u32 *len)
{
	int i;

	if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (wr->num_sge > qp->max_send_sge || !ud_wr(wr)->ah)
		return -EINVAL;
	*len = 0;
	for (i = 0; i < wr->num_sge; i++)
		*len += wr->sg_list[i].length;
	return *len > IB_MGMT_MAD_SIZE ? -EINVAL : 0;
}

/*
 * Send a MAD out of the port. A port that is DOWN sends nothing, and only
 * SMPs may leave a port that is not ACTIVE (IBA 7.2): the others are
 * discarded there. Either way a UD send completes. The packet is queued
 * for the device's transmit work: post_send may run with interrupts off.
 */
static void pib_qp_xmit(struct pib_qp *qp, const struct ib_send_wr *wr)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	struct pib_counters *c = &dev->port.counters;
	enum ib_port_state state = READ_ONCE(dev->port.state);
	struct sk_buff *skb;

	if (state == IB_PORT_DOWN ||
	    (qp->ibqp.qp_type != IB_QPT_SMI && state != IB_PORT_ACTIVE)) {
		atomic64_inc(&c->xmit_discards);
		return;
	}
	skb = alloc_skb(PIB_MAX_PKT_LEN, GFP_ATOMIC);
	if (!skb) {
		atomic64_inc(&c->xmit_discards);
		return;
	}
	skb_put(skb, pib_ud_build(qp, wr, skb->data));
	atomic64_inc(&c->xmit_packets);
	atomic64_add((skb->len - PIB_VCRC_LEN) / 4, &c->xmit_words);
	skb_queue_tail(&dev->txq, skb);
	schedule_work(&dev->tx_work);
}

int pib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	struct ib_wc wc = { .opcode = IB_WC_SEND, .qp = ibqp };
	enum ib_qp_state state;
	int err = 0;
	u32 len;

	for (; wr; wr = wr->next) {
		state = READ_ONCE(qp->state);
		if (state != IB_QPS_RTS && state != IB_QPS_ERR) {
			err = -EINVAL;
			break;
		}
		err = pib_check_send_wr(qp, wr, &len);
		if (err)
			break;
		wc.status = state == IB_QPS_RTS ? IB_WC_SUCCESS : IB_WC_WR_FLUSH_ERR;
		if (wc.status == IB_WC_SUCCESS)
			pib_qp_xmit(qp, wr);
		wc.wr_id = wr->wr_id;
		if (wc.status != IB_WC_SUCCESS || qp->sq_sig_type == IB_SIGNAL_ALL_WR ||
		    wr->send_flags & IB_SEND_SIGNALED)
			pib_cq_push(to_pib_cq(ibqp->send_cq), &wc, false);
	}
	if (err)
		*bad_wr = wr;
	return err;
}
