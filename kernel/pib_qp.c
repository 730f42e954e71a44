// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: creation with their rings (mapped by the provider, or kept
 * in the kernel for kernel consumers), the IBA QP state machine and its
 * attributes, flushing, destruction, and post_send/post_recv for kernel
 * consumers, which fill the same rings the provider fills.
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/pib-abi.h>

#include "pib.h"
#include "pib_trace.h"

static struct workqueue_struct *pib_wq;

/*
 * The widest values of QP attributes that the IBA carries in a few bits:
 * the RNR NAK timer code in 5 (the AETH's, IBA Table 45), and as the CM's
 * REQ does, the local ACK timeout in 5 and the retry counts in 3.
 */
#define PIB_MAX_RNR_TIMER	31
#define PIB_MAX_ACK_TIMEOUT	31
#define PIB_MAX_RETRY		7

/* Bytes of a send WQE with room for @max_sge SGEs or @max_inline bytes. */
static u32 pib_swqe_stride(u32 max_sge, u32 max_inline)
{
	return roundup_pow_of_two(sizeof(struct pib_send_wqe) +
				  max_t(u32, max_sge * sizeof(struct pib_sge),
					max_inline));
}

static bool pib_qp_special(struct pib_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_SMI || qp->ibqp.qp_type == IB_QPT_GSI;
}

static int pib_check_qp_init(struct ib_device *ibdev,
			     struct ib_qp_init_attr *init,
			     struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		if (udata || init->srq)
			return pib_refuse(ibdev, -EINVAL,
					  "create_qp: QP0/QP1 from a user or with an SRQ");
		break;
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_XRC_INI:
		/* (the RDMA core's send WRs have no XRC SRQ for the kernel) */
		if (!udata)
			return pib_refuse(ibdev, -EOPNOTSUPP,
					  "create_qp: XRC INI QPs are for processes");
		break;
	case IB_QPT_XRC_TGT:
		/* (created through the core, which hands over no udata) */
		if (!init->xrcd)
			return pib_refuse(ibdev, -EINVAL,
					  "create_qp: an XRC TGT QP without an XRC domain");
		break;
	default:
		return pib_refuse(ibdev, -EOPNOTSUPP,
				  "create_qp: QP type %d (pib has RC, UC, UD, XRC)",
				  init->qp_type);
	}
	if (init->create_flags)
		return pib_refuse(ibdev, -EOPNOTSUPP,
				  "create_qp: create_flags 0x%x", init->create_flags);
	if (cap->max_send_wr > PIB_MAX_QP_WR || cap->max_recv_wr > PIB_MAX_QP_WR)
		return pib_refuse(ibdev, -EINVAL,
				  "create_qp: max_send_wr %u, max_recv_wr %u (at most %u)",
				  cap->max_send_wr, cap->max_recv_wr,
				  PIB_MAX_QP_WR);
	if (cap->max_send_sge > PIB_MAX_SGE || cap->max_recv_sge > PIB_MAX_SGE)
		return pib_refuse(ibdev, -EINVAL,
				  "create_qp: max_send_sge %u, max_recv_sge %u (at most %u)",
				  cap->max_send_sge, cap->max_recv_sge,
				  PIB_MAX_SGE);
	if (cap->max_inline_data > PIB_MAX_INLINE)
		return pib_refuse(ibdev, -EINVAL,
				  "create_qp: max_inline_data %u (at most %u)",
				  cap->max_inline_data, PIB_MAX_INLINE);
	if (udata && udata->outlen < sizeof(struct pib_create_qp_resp))
		return pib_refuse(ibdev, -EINVAL,
				  "create_qp: reply of %zu bytes (provider too old?)",
				  udata->outlen);
	return 0;
}

/* The SQ: its ring, the checked copies of WQEs and their state. */
static int pib_qp_alloc_sq(struct pib_qp *qp, struct ib_qp_cap *cap,
			   struct ib_udata *udata)
{
	struct pib_sq *sq = &qp->sq;
	u32 num = roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1));
	u32 stride;
	int err;

	sq->max_sge = max_t(u32, cap->max_send_sge, 1);
	sq->max_inline = cap->max_inline_data;
	stride = pib_swqe_stride(sq->max_sge, sq->max_inline);
	err = pib_ring_init(&sq->ring, num, stride, udata);
	if (err)
		return err;
	sq->shadow = kvzalloc(array_size(num, stride), PIB_GFP_USER);
	sq->st = kvcalloc(num, sizeof(*sq->st), PIB_GFP_USER);
	if (!sq->shadow || !sq->st)
		return -ENOMEM;
	/* What the stride holds is what the consumer gets. */
	sq->max_sge = (stride - sizeof(struct pib_send_wqe)) /
		      sizeof(struct pib_sge);
	sq->max_sge = min_t(u32, sq->max_sge, PIB_MAX_SGE);
	sq->max_inline = min_t(u32, stride - sizeof(struct pib_send_wqe),
			       PIB_MAX_INLINE);
	cap->max_send_wr = num;
	cap->max_send_sge = sq->max_sge;
	cap->max_inline_data = sq->max_inline;
	return 0;
}

/*
 * The RQ (unless the QP has an SRQ, or is XRC's) and the responder's
 * state: an XRC TGT QP takes receive WQEs of any size, from the SRQs its
 * requests name.
 */
static int pib_qp_alloc_rq(struct pib_qp *qp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 num = roundup_pow_of_two(max_t(u32, cap->max_recv_wr, 1));
	u32 stride;
	int err;

	if (!pib_qp_has_rq(qp)) {
		stride = qp->srq ? qp->srq->ring.stride :
			 pib_rwqe_stride(qp->ibqp.qp_type == IB_QPT_XRC_TGT ?
					 PIB_MAX_SGE : 1);
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	} else {
		qp->rq_max_sge = max_t(u32, cap->max_recv_sge, 1);
		stride = pib_rwqe_stride(qp->rq_max_sge);
		err = pib_ring_init(&qp->rq, num, stride, udata);
		if (err)
			return err;
		cap->max_recv_wr = num;
		cap->max_recv_sge = qp->rq_max_sge;
	}
	qp->resp.wqe = kzalloc(stride, PIB_GFP_USER);
	qp->resp.res = kcalloc(PIB_MAX_RD_ATOMIC, sizeof(*qp->resp.res),
			       PIB_GFP_USER);
	if (!qp->resp.wqe || !qp->resp.res)
		return -ENOMEM;
	return 0;
}

static void pib_qp_free_queues(struct pib_qp *qp)
{
	pib_ring_free(&qp->sq.ring);
	kvfree(qp->sq.shadow);
	kvfree(qp->sq.st);
	pib_ring_free(&qp->rq);
	kfree(qp->resp.wqe);
	kfree(qp->resp.res);
}

static int pib_qp_reply(struct pib_qp *qp, struct ib_udata *udata)
{
	struct pib_create_qp_resp resp = {};

	if (!udata)
		return 0;
	pib_ring_describe(&qp->sq.ring, &resp.sq);
	pib_ring_describe(&qp->rq, &resp.rq);
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

/* Give the QP its number: 0 or 1 for the special QPs, else from 2 up. */
static int pib_qp_number(struct pib_dev *dev, struct pib_qp *qp)
{
	u32 num;
	int err;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		num = qp->ibqp.qp_type == IB_QPT_SMI ? 0 : 1;
		if (rcu_access_pointer(dev->special_qp[num]))
			return pib_refuse(&dev->ibdev, -EBUSY,
					  "create_qp: QP%u exists", num);
		qp->ibqp.qp_num = num;
		return 0;
	default:
		err = xa_alloc_cyclic(&dev->qps, &num, NULL,
				      XA_LIMIT(PIB_NUM_SPECIAL_QPS,
					       PIB_MAX_QPN - 1),
				      &dev->next_qpn, GFP_KERNEL);
		if (err < 0)
			return err;
		qp->ibqp.qp_num = num;
		return 0;
	}
}

/* Make a whole QP visible to receivers. */
static void pib_qp_publish(struct pib_dev *dev, struct pib_qp *qp)
{
	if (pib_qp_special(qp))
		rcu_assign_pointer(dev->special_qp[qp->ibqp.qp_num], qp);
	else
		xa_store(&dev->qps, qp->ibqp.qp_num, qp, GFP_KERNEL);
}

static void pib_qp_unnumber(struct pib_dev *dev, struct pib_qp *qp)
{
	if (pib_qp_special(qp))
		RCU_INIT_POINTER(dev->special_qp[qp->ibqp.qp_num], NULL);
	else
		xa_erase(&dev->qps, qp->ibqp.qp_num);
}

/**
 * pib_create_qp() - the create_qp verb
 * @ibqp: the QP, allocated by the RDMA core
 * @init: its type, CQs, SRQ and queue sizes
 * @udata: the user's call, or NULL for a kernel consumer's QP
 *
 * Return: 0, or a negative errno.
 */
int pib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibqp->device);
	struct pib_qp *qp = to_pib_qp(ibqp);
	int err;

	err = pib_inject_verb_fail(dev, PIB_INJ_CREATE_QP) ?:
	      pib_check_qp_init(&dev->ibdev, init, udata);
	if (!err && unlikely(pib_strict(dev)))
		err = pib_strict_create_qp(dev, init);
	if (err)
		return err;
	err = pib_res_get(&dev->ibdev, &dev->qp_count, PIB_MAX_QP, "QPs");
	if (err)
		return err;
	spin_lock_init(&qp->lock);
	INIT_LIST_HEAD(&qp->mcast);
	INIT_WORK(&qp->work, pib_qp_work);
	timer_setup(&qp->req.timer, pib_req_timer, 0);
	qp->state = IB_QPS_RESET;
	qp->user = !!udata;
	pib_owner_set(&qp->owner, qp->user, ibqp->res.kern_name);
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->srq = init->srq ? to_pib_srq(init->srq) : NULL;
	qp->xrcd = init->xrcd;
	qp->mtu = ib_mtu_enum_to_int(READ_ONCE(dev->port.active_mtu));
	qp->max_rd_atomic = 1;
	qp->sq_wr = init->cap.max_send_wr;
	qp->rq_wr = pib_qp_has_rq(qp) ? init->cap.max_recv_wr : 0;
	err = pib_qp_alloc_sq(qp, &init->cap, udata);
	if (!err)
		err = pib_qp_alloc_rq(qp, init, udata);
	if (err)
		goto fail;
	err = pib_qp_number(dev, qp);
	if (err)
		goto fail;
	err = pib_qp_reply(qp, udata);
	if (err) {
		pib_qp_unnumber(dev, qp);
		goto fail;
	}
	pib_strict_cq_feed(qp, true);
	pib_qp_publish(dev, qp);
	trace_pib_qp_create(qp);
	return 0;

fail:
	pib_qp_free_queues(qp);
	atomic_dec(&dev->qp_count);
	return err;
}

/*
 * A kernel consumer's QP leaves no completions behind in its CQs. (An XRC
 * TGT QP has none: its receives complete in the CQs of processes' SRQs.)
 */
static void pib_qp_clean_cqs(struct pib_qp *qp)
{
	if (qp->ibqp.send_cq)
		pib_cq_clean(to_pib_cq(qp->ibqp.send_cq), qp);
	if (qp->ibqp.recv_cq && qp->ibqp.recv_cq != qp->ibqp.send_cq)
		pib_cq_clean(to_pib_cq(qp->ibqp.recv_cq), qp);
}

/**
 * pib_destroy_qp() - the destroy_qp verb
 * @ibqp: the QP
 * @udata: the user's call, or NULL
 *
 * Return: 0, once no receiver, timer or work uses the QP any more.
 */
int pib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibqp->device);
	struct pib_qp *qp = to_pib_qp(ibqp);
	unsigned long flags;

	trace_pib_qp_destroy(qp);
	pib_mcast_detach_all(qp);
	/* Receivers find the QP under RCU: wait for them before it goes. */
	pib_qp_unnumber(dev, qp);
	pib_synchronize_rcu(dev->ndev);
	spin_lock_irqsave(&qp->lock, flags);
	qp->state = IB_QPS_RESET;	/* the timer and the work stop here */
	spin_unlock_irqrestore(&qp->lock, flags);
	timer_delete_sync(&qp->req.timer);
	cancel_work_sync(&qp->work);
	if (!qp->user)
		pib_qp_clean_cqs(qp);
	pib_mw_qp_gone(dev, qp);
	pib_qp_free_queues(qp);
	pib_strict_cq_feed(qp, false);
	atomic_dec(&dev->qp_count);
	return 0;
}

/**
 * pib_qp_kick() - have the QP's work run: there may be packets to send
 * @qp: the QP
 */
void pib_qp_kick(struct pib_qp *qp)
{
	queue_work(pib_wq, &qp->work);
}

/* Names of the transport's progress states, for traces and debugging. */
static const char * const pib_req_state_names[] = {
	[PIB_REQ_SENDING] = "sending",
	[PIB_REQ_RNR_WAIT] = "rnr_wait",
	[PIB_REQ_ODP_WAIT] = "odp_wait",
};

static const char * const pib_comp_state_names[] = {
	[PIB_COMP_IN_ORDER] = "in_order",
	[PIB_COMP_READ_GAP] = "read_gap",
};

static const char * const pib_resp_state_names[] = {
	[PIB_RESP_IN_ORDER] = "in_order",
	[PIB_RESP_SEQ_NAK_SENT] = "seq_nak_sent",
};

static const char * const pib_resp_msg_state_names[] = {
	[PIB_RESP_MSG_NONE] = "none",
	[PIB_RESP_MSG_SEND] = "send",
	[PIB_RESP_MSG_WRITE] = "write",
};

/**
 * pib_req_state_name() - the name of a requester state
 * @state: the state
 *
 * Return: its name, "?" for a value that is not one.
 */
const char *pib_req_state_name(enum pib_req_state state)
{
	return pib_name_of(pib_req_state_names,
			   ARRAY_SIZE(pib_req_state_names), state);
}

/**
 * pib_comp_state_name() - the name of a completer state
 * @state: the state
 *
 * Return: its name, "?" for a value that is not one.
 */
const char *pib_comp_state_name(enum pib_comp_state state)
{
	return pib_name_of(pib_comp_state_names,
			   ARRAY_SIZE(pib_comp_state_names), state);
}

/**
 * pib_resp_state_name() - the name of a responder PSN state
 * @state: the state
 *
 * Return: its name, "?" for a value that is not one.
 */
const char *pib_resp_state_name(enum pib_resp_state state)
{
	return pib_name_of(pib_resp_state_names,
			   ARRAY_SIZE(pib_resp_state_names), state);
}

/**
 * pib_resp_msg_state_name() - the name of a responder message state
 * @state: the state
 *
 * Return: its name, "?" for a value that is not one.
 */
const char *pib_resp_msg_state_name(enum pib_resp_msg_state state)
{
	return pib_name_of(pib_resp_msg_state_names,
			   ARRAY_SIZE(pib_resp_msg_state_names), state);
}

/* Forget all transport state, as a move to RESET does. */
static void pib_qp_reset(struct pib_qp *qp)
{
	struct pib_sq *sq = &qp->sq;

	/*
	 * A kernel consumer's WQEs are dropped, and its completions not
	 * polled yet (the provider does both for a user's); a QP on an SRQ
	 * has no RQ.
	 */
	if (!qp->user) {
		pib_ring_consume_to(&sq->ring, sq->ring.prod);
		if (pib_qp_has_rq(qp))
			pib_ring_consume_to(&qp->rq, qp->rq.prod);
		pib_qp_clean_cqs(qp);
	}
	sq->fetched = sq->ring.cons;
	memset(&qp->req, 0, offsetof(struct pib_req, timer));
	pib_req_set_state(qp, PIB_REQ_SENDING);
	pib_comp_set_state(qp, PIB_COMP_IN_ORDER);
	qp->req.cur = sq->ring.cons;
	qp->req.started = sq->ring.cons;
	pib_resp_set_msg_state(qp, PIB_RESP_MSG_NONE);
	qp->resp.have_wqe = false;
	pib_resp_set_state(qp, PIB_RESP_IN_ORDER);
	qp->resp.ack_due = false;
	qp->resp.reads_due = false;
	qp->resp.res_head = 0;
	qp->resp.res_tail = 0;
	qp->has_alt = false;
	qp->mig_state = IB_MIG_MIGRATED;
	memset(qp->resp.res, 0, PIB_MAX_RD_ATOMIC * sizeof(*qp->resp.res));
}

/*
 * Is a path to the remote port of an RC/UC QP (the AH attributes @what,
 * ah_attr or alt_ah_attr, that modify_qp got) one pib has?
 */
static int pib_qp_ah_check(struct pib_qp *qp, struct rdma_ah_attr *ah,
			   const char *what)
{
	if (ah->type != RDMA_AH_ATTR_TYPE_IB ||
	    (rdma_ah_get_port_num(ah) && rdma_ah_get_port_num(ah) != PIB_PORT_NUM) ||
	    rdma_ah_get_sl(ah) > 15)
		return pib_refuse(qp->ibqp.device, -EINVAL,
				  "modify_qp: QP 0x%x: %s type %d, port %u, sl %u",
				  qp->ibqp.qp_num, what, ah->type,
				  rdma_ah_get_port_num(ah), rdma_ah_get_sl(ah));
	if ((rdma_ah_get_ah_flags(ah) & IB_AH_GRH) &&
	    rdma_ah_read_grh(ah)->sgid_index >= PIB_GID_TABLE_LEN)
		return pib_refuse(qp->ibqp.device, -EINVAL,
				  "modify_qp: QP 0x%x: %s sgid_index %u (at most %u)",
				  qp->ibqp.qp_num, what,
				  rdma_ah_read_grh(ah)->sgid_index,
				  PIB_GID_TABLE_LEN - 1);
	return 0;
}

/*
 * The alternate path (IB_QP_ALT_PATH) and the path migration state
 * (IB_QP_PATH_MIG_STATE) a modify_qp asks for: a path pib has, and an
 * alternate path to arm (IBA 17.2.8).
 */
static int pib_qp_alt_check(struct pib_qp *qp, struct ib_qp_attr *attr,
			    int mask)
{
	struct ib_device *ibdev = qp->ibqp.device;
	enum ib_mig_state mig = attr->path_mig_state;
	int err;

	if (mask & IB_QP_ALT_PATH) {
		err = pib_qp_ah_check(qp, &attr->alt_ah_attr, "alt_ah_attr");
		if (err)
			return err;
		if ((attr->alt_port_num && attr->alt_port_num != PIB_PORT_NUM) ||
		    attr->alt_pkey_index >= PIB_PKEY_TABLE_LEN ||
		    attr->alt_timeout > PIB_MAX_ACK_TIMEOUT)
			return pib_refuse(ibdev, -EINVAL,
					  "modify_qp: QP 0x%x: alt_port_num %u, alt_pkey_index %u, alt_timeout %u",
					  qp->ibqp.qp_num, attr->alt_port_num,
					  attr->alt_pkey_index, attr->alt_timeout);
	}
	if (!(mask & IB_QP_PATH_MIG_STATE))
		return 0;
	if (mig != IB_MIG_MIGRATED && mig != IB_MIG_REARM && mig != IB_MIG_ARMED)
		return pib_refuse(ibdev, -EINVAL,
				  "modify_qp: QP 0x%x: path_mig_state %d",
				  qp->ibqp.qp_num, mig);
	if (mig != IB_MIG_MIGRATED && !qp->has_alt && !(mask & IB_QP_ALT_PATH))
		return pib_refuse(ibdev, -EINVAL,
				  "modify_qp: QP 0x%x: path_mig_state %s without an alternate path",
				  qp->ibqp.qp_num,
				  mig == IB_MIG_ARMED ? "ARMED" : "REARM");
	return 0;
}

/**
 * pib_qp_migrate() - the QP takes its alternate path (IBA 17.2.8)
 * @qp: the QP, ARMED, its lock held
 *
 * The alternate path becomes the primary one (remote port, P_Key index,
 * ACK timeout) and the QP is MIGRATED: its packets say so (BTH MigReq).
 * IB_EVENT_PATH_MIG is raised once the lock is dropped
 * (pib_qp_notify_cqs()).
 */
void pib_qp_migrate(struct pib_qp *qp)
{
	qp->av = qp->alt_av;
	qp->pkey_index = qp->alt_pkey_index;
	qp->timeout = qp->alt_timeout;
	qp->mig_state = IB_MIG_MIGRATED;
	qp->req.mig_pending = true;
}

/* Apply the alternate path and migration state modify_qp asked for. */
static void pib_qp_apply_alt(struct pib_qp *qp, struct ib_qp_attr *attr,
			     int mask)
{
	if (mask & IB_QP_ALT_PATH) {
		pib_av_from_ah(&attr->alt_ah_attr, &qp->alt_av);
		qp->alt_pkey_index = attr->alt_pkey_index;
		qp->alt_timeout = attr->alt_timeout;
		qp->has_alt = true;
	}
	if (!(mask & IB_QP_PATH_MIG_STATE))
		return;
	/*
	 * The consumer's MIGRATED migrates an ARMED QP at once. A REARM is
	 * ARMED at once: the alternate path is loaded, nothing else to wait
	 * for.
	 */
	if (attr->path_mig_state == IB_MIG_MIGRATED) {
		if (qp->mig_state == IB_MIG_ARMED)
			pib_qp_migrate(qp);
	} else {
		qp->mig_state = IB_MIG_ARMED;
	}
}

static const char * const pib_qp_state_names[] = {
	[IB_QPS_RESET] = "RESET",
	[IB_QPS_INIT] = "INIT",
	[IB_QPS_RTR] = "RTR",
	[IB_QPS_RTS] = "RTS",
	[IB_QPS_SQD] = "SQD",
	[IB_QPS_SQE] = "SQE",
	[IB_QPS_ERR] = "ERR",
};

/**
 * pib_qp_state_name() - a QP state's name, as the IBA writes it
 * @state: the state
 *
 * Return: the name ("?" for no state).
 */
const char *pib_qp_state_name(enum ib_qp_state state)
{
	return pib_name_of(pib_qp_state_names, ARRAY_SIZE(pib_qp_state_names),
			   state);
}

static const char * const pib_qp_type_names[] = {
	[IB_QPT_SMI] = "SMI",
	[IB_QPT_GSI] = "GSI",
	[IB_QPT_RC] = "RC",
	[IB_QPT_UC] = "UC",
	[IB_QPT_XRC_INI] = "XRC_INI",
	[IB_QPT_XRC_TGT] = "XRC_TGT",
	[IB_QPT_UD] = "UD",
};

/**
 * pib_qp_type_name() - a QP type's name
 * @type: the type
 *
 * Return: the name ("?" for a type pib has not).
 */
const char *pib_qp_type_name(enum ib_qp_type type)
{
	return pib_name_of(pib_qp_type_names, ARRAY_SIZE(pib_qp_type_names),
			   type);
}

/**
 * struct pib_qp_limit - the most an attribute of modify_qp may be
 * @mask: its IB_QP_* bit
 * @name: its name in struct ib_qp_attr
 * @off: where it is there
 * @size: its size in bytes (1, 2 or 4)
 * @max: the most pib takes
 */
struct pib_qp_limit {
	int mask;
	const char *name;
	u16 off;
	u8 size;
	u32 max;
};

/* (@type: the field's type in struct ib_qp_attr) */
#define PIB_QP_LIMIT(bit, field, type, most) \
	{ IB_QP_##bit, #field, offsetof(struct ib_qp_attr, field), \
	  sizeof(type), most }

static const struct pib_qp_limit pib_qp_limits[] = {
	PIB_QP_LIMIT(PKEY_INDEX, pkey_index, u16, PIB_PKEY_TABLE_LEN - 1),
	PIB_QP_LIMIT(MAX_QP_RD_ATOMIC, max_rd_atomic, u8, PIB_MAX_RD_ATOMIC),
	PIB_QP_LIMIT(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic, u8,
		     PIB_MAX_RD_ATOMIC),
	PIB_QP_LIMIT(DEST_QPN, dest_qp_num, u32, PIB_MAX_QPN),
	/* The responder puts min_rnr_timer into its RNR NAKs as it is. */
	PIB_QP_LIMIT(MIN_RNR_TIMER, min_rnr_timer, u8, PIB_MAX_RNR_TIMER),
	PIB_QP_LIMIT(TIMEOUT, timeout, u8, PIB_MAX_ACK_TIMEOUT),
	PIB_QP_LIMIT(RETRY_CNT, retry_cnt, u8, PIB_MAX_RETRY),
	PIB_QP_LIMIT(RNR_RETRY, rnr_retry, u8, PIB_MAX_RETRY),
};

/* The value of a limited attribute. */
static u32 pib_qp_limit_val(const struct ib_qp_attr *attr,
			    const struct pib_qp_limit *l)
{
	const void *v = (const u8 *)attr + l->off;

	if (l->size == 1)
		return *(const u8 *)v;
	if (l->size == 2)
		return *(const u16 *)v;
	return *(const u32 *)v;
}

/* Check what modify_qp may change before anything changes. */
static int pib_qp_check_attrs(struct pib_qp *qp, struct ib_qp_attr *attr,
			      int mask)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	enum ib_mtu active = READ_ONCE(dev->port.active_mtu);
	const struct pib_qp_limit *l;
	int err;
	u32 v;

	if (mask & IB_QP_PORT && attr->port_num != PIB_PORT_NUM)
		return pib_refuse(&dev->ibdev, -EINVAL,
				  "modify_qp: QP 0x%x: port_num %u (pib has port 1)",
				  qp->ibqp.qp_num, attr->port_num);
	if (mask & IB_QP_PATH_MTU &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > active))
		return pib_refuse(&dev->ibdev, -EINVAL,
				  "modify_qp: QP 0x%x: path_mtu %d above the port's active MTU %d",
				  qp->ibqp.qp_num,
				  ib_mtu_enum_to_int(attr->path_mtu),
				  ib_mtu_enum_to_int(active));
	if (mask & IB_QP_AV) {
		err = pib_qp_ah_check(qp, &attr->ah_attr, "ah_attr");
		if (err)
			return err;
	}
	err = pib_qp_alt_check(qp, attr, mask);
	if (err)
		return err;
	for (l = pib_qp_limits; l < pib_qp_limits + ARRAY_SIZE(pib_qp_limits); l++) {
		if (!(mask & l->mask))
			continue;
		v = pib_qp_limit_val(attr, l);
		if (v > l->max)
			return pib_refuse(&dev->ibdev, -EINVAL,
					  "modify_qp: QP 0x%x: %s %u (at most %u)",
					  qp->ibqp.qp_num, l->name, v, l->max);
	}
	return 0;
}

static void pib_qp_apply_attrs(struct pib_qp *qp, struct ib_qp_attr *attr,
			       int mask)
{
	if (mask & IB_QP_AV)
		pib_av_from_ah(&attr->ah_attr, &qp->av);
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_PATH_MTU)
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		qp->resp.epsn = attr->rq_psn & PIB_PSN_MASK;
	if (mask & IB_QP_SQ_PSN) {
		qp->sq_psn = attr->sq_psn & PIB_PSN_MASK;
		qp->req.psn = qp->sq_psn;
		qp->req.acked_psn = (qp->sq_psn - 1) & PIB_PSN_MASK;
		qp->req.sent_psn = qp->sq_psn;
		pib_rtt_cancel(&qp->req.rtt);
		pib_cwnd_init(&qp->req.cwnd);
	}
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = max_t(u8, attr->max_rd_atomic, 1);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->resp.num_res = max_t(u8, attr->max_dest_rd_atomic, 1);
	if (mask & (IB_QP_RETRY_CNT | IB_QP_STATE))
		qp->req.retry_left = qp->retry_cnt;
	if (mask & (IB_QP_RNR_RETRY | IB_QP_STATE))
		qp->req.rnr_left = qp->rnr_retry;
	pib_qp_apply_alt(qp, attr, mask);
}

/**
 * pib_modify_qp() - the modify_qp verb
 * @ibqp: the QP
 * @attr: the new attributes
 * @mask: IB_QP_* bits: which of @attr to take
 * @udata: the user's call, or NULL
 *
 * Return: 0, or a negative errno (-EINVAL for a transition or attribute
 * the IBA does not allow).
 */
int pib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	enum ib_qp_state cur, new;
	unsigned long flags;
	int err;

	err = pib_inject_verb_fail(to_pib_dev(ibqp->device), PIB_INJ_MODIFY_QP);
	if (err)
		return err;
	err = -EINVAL;
	spin_lock_irqsave(&qp->lock, flags);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (cur != qp->state) {
		pib_refuse(ibqp->device, err,
			   "modify_qp: QP 0x%x: cur_qp_state %s, but the QP is in %s",
			   ibqp->qp_num, pib_qp_state_name(cur),
			   pib_qp_state_name(qp->state));
		goto out;
	}
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		pib_refuse(ibqp->device, err,
			   "modify_qp: QP 0x%x: %s -> %s with attr_mask 0x%x: no such transition, or not the attributes it must have",
			   ibqp->qp_num, pib_qp_state_name(cur),
			   pib_qp_state_name(new), mask);
		if (pib_strict(to_pib_dev(ibqp->device)))
			pib_strict_report(qp, PIB_STRICT_MODIFY_ATTRS,
					  "modify_qp %s -> %s with attr_mask 0x%x: no such transition, or attributes the IBA does not allow in it or misses ones it needs (-EINVAL)",
					  pib_qp_state_name(cur),
					  pib_qp_state_name(new), mask);
		goto out;
	}
	err = pib_qp_check_attrs(qp, attr, mask);
	if (err)
		goto out;
	if (new == IB_QPS_RESET)
		pib_qp_reset(qp);
	if (cur == IB_QPS_RESET && new == IB_QPS_INIT)
		qp->resp.num_res = max_t(u32, qp->resp.num_res, 1);
	pib_qp_apply_attrs(qp, attr, mask);
	if (new != IB_QPS_SQD || cur != IB_QPS_SQD)
		qp->req.sqd_notify = new == IB_QPS_SQD &&
				     mask & IB_QP_EN_SQD_ASYNC_NOTIFY &&
				     attr->en_sqd_async_notify;
	qp->state = new;
	if (new == IB_QPS_ERR)
		pib_qp_flush(qp);
	pib_qp_sqd_check(qp);
out:
	spin_unlock_irqrestore(&qp->lock, flags);
	trace_pib_qp_modify(qp, attr, mask, cur, new, err);
	if (!err) {
		pib_qp_notify_cqs(qp);
		if (new == IB_QPS_RTS || new == IB_QPS_SQD)
			pib_qp_kick(qp);
	}
	return err;
}

static void pib_qp_query_av(const struct pib_av *av, struct rdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_port_num(ah, PIB_PORT_NUM);
	rdma_ah_set_dlid(ah, av->dlid);
	rdma_ah_set_sl(ah, av->sl);
	rdma_ah_set_path_bits(ah, av->src_path_bits);
	rdma_ah_set_static_rate(ah, av->static_rate);
	if (av->is_global)
		rdma_ah_set_grh(ah, (union ib_gid *)av->dgid, av->flow_label,
				av->sgid_index, av->hop_limit,
				av->traffic_class);
}

/**
 * pib_query_qp() - the query_qp verb
 * @ibqp: the QP
 * @attr: where its attributes go
 * @mask: IB_QP_* bits asked for (all are given)
 * @init: where its creation attributes go
 *
 * Return: 0.
 */
int pib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_irqsave(&qp->lock, flags);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = ib_mtu_int_to_enum(qp->mtu);
	attr->qkey = qp->qkey;
	attr->rq_psn = qp->resp.epsn;
	attr->sq_psn = qp->req.psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->qp_access_flags = qp->access;
	attr->pkey_index = qp->pkey_index;
	attr->port_num = PIB_PORT_NUM;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->resp.num_res;
	attr->sq_draining = qp->state == IB_QPS_SQD &&
			    qp->sq.ring.cons != qp->req.cur;
	pib_qp_query_av(&qp->av, &attr->ah_attr);
	if (qp->has_alt) {
		pib_qp_query_av(&qp->alt_av, &attr->alt_ah_attr);
		attr->alt_pkey_index = qp->alt_pkey_index;
		attr->alt_port_num = PIB_PORT_NUM;
		attr->alt_timeout = qp->alt_timeout;
	}
	attr->path_mig_state = qp->mig_state;
	spin_unlock_irqrestore(&qp->lock, flags);

	attr->cap.max_send_wr = qp->sq.ring.num;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	attr->cap.max_recv_wr = pib_qp_has_rq(qp) ? qp->rq.num : 0;
	attr->cap.max_recv_sge = pib_qp_has_rq(qp) ? qp->rq_max_sge : 0;
	init->cap = attr->cap;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->xrcd = qp->xrcd;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->port_num = PIB_PORT_NUM;
	return 0;
}

/**
 * pib_qp_error() - a transport error took the QP to ERR
 * @qp: the QP, its lock held
 *
 * Flushes its work requests and queues IB_EVENT_QP_FATAL for the
 * consumer (raised by pib_qp_notify_cqs() once the lock is dropped).
 */
void pib_qp_error(struct pib_qp *qp)
{
	if (qp->state == IB_QPS_ERR || qp->state == IB_QPS_RESET)
		return;
	qp->state = IB_QPS_ERR;
	qp->req.fatal_pending = true;
	pib_qp_flush(qp);
}

/* Kernel consumers: a send WR into a send WQE. */
static int pib_send_wr_to_wqe(struct pib_qp *qp, const struct ib_send_wr *wr,
			      struct pib_send_wqe *wqe)
{
	u32 i, len = 0;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->send_flags = wr->send_flags & (IB_SEND_FENCE | IB_SEND_SIGNALED |
					    IB_SEND_SOLICITED | IB_SEND_INLINE);
	wqe->ex = wr->opcode == IB_WR_SEND_WITH_INV ||
		  wr->opcode == IB_WR_LOCAL_INV ? wr->ex.invalidate_rkey :
						  (__force u32)wr->ex.imm_data;
	if (wr->opcode == IB_WR_REG_MR)
		return pib_reg_wr_to_wqe(qp, reg_wr(wr), wqe);
	wqe->opcode = wr->opcode;
	if (wr->num_sge > (wr->send_flags & IB_SEND_INLINE ? PIB_MAX_SGE :
			   qp->sq.max_sge))
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		if (check_add_overflow(len, wr->sg_list[i].length, &len))
			return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE) {
		if (len > qp->sq.max_inline)
			return -EINVAL;
		wqe->num_sge = 0;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(PIB_WQE_INLINE(wqe) + wqe->num_sge,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			wqe->num_sge += wr->sg_list[i].length;
		}
	} else {
		wqe->num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			PIB_WQE_SGE(wqe)[i].addr = wr->sg_list[i].addr;
			PIB_WQE_SGE(wqe)[i].length = wr->sg_list[i].length;
			PIB_WQE_SGE(wqe)[i].lkey = wr->sg_list[i].lkey;
		}
	}
	return pib_wr_fill_op(qp, wr, wqe);
}

/**
 * pib_post_send() - the post_send verb, and a user's SQ doorbell
 * @ibqp: the QP
 * @wr: a kernel consumer's list of WRs (none for a user's QP, whose WQEs
 *	are in its ring already)
 * @bad_wr: the first WR not posted, on error
 *
 * Return: 0, or a negative errno.
 */
int pib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	struct pib_ring *ring = &qp->sq.ring;
	unsigned long flags;
	u32 posted = 0;
	int err = 0;

	/* An XRC TGT QP sends nothing but responses. */
	if (ibqp->qp_type == IB_QPT_XRC_TGT && wr) {
		*bad_wr = wr;
		return pib_refuse(ibqp->device, -EINVAL,
				  "post_send: QP 0x%x is an XRC TGT QP",
				  ibqp->qp_num);
	}
	/* Not a user's doorbell: its WQEs are posted already. */
	if (!qp->user) {
		err = pib_inject_verb_fail(to_pib_dev(ibqp->device),
					   PIB_INJ_POST_SEND);
		if (err) {
			*bad_wr = wr;
			return err;
		}
	}
	spin_lock_irqsave(&qp->lock, flags);
	/* A user's doorbell: the WQEs are in the ring already. */
	if (qp->user) {
		if (trace_pib_doorbell_enabled())
			posted = pib_ring_avail(ring, qp->sq.fetched);
		goto out;
	}
	for (; wr; wr = wr->next) {
		if (qp->state == IB_QPS_RESET || qp->state == IB_QPS_INIT ||
		    qp->state == IB_QPS_RTR) {
			err = -EINVAL;
			break;
		}
		if (!pib_ring_room(ring)) {
			err = -ENOMEM;
			break;
		}
		err = pib_send_wr_to_wqe(qp, wr, pib_ring_entry(ring, ring->prod));
		if (err)
			break;
		pib_ring_produce(ring);
		posted++;
	}
out:
	if (qp->state == IB_QPS_ERR)
		pib_qp_flush(qp);
	spin_unlock_irqrestore(&qp->lock, flags);
	trace_pib_doorbell(qp, posted, err);
	if (err) {
		*bad_wr = wr;
		pib_refuse(ibqp->device, err,
			   "post_send: QP 0x%x in %s, SQ %u of %u full: WR 0x%llx, opcode %d, %d SGEs (at most %u), flags 0x%x",
			   ibqp->qp_num, pib_qp_state_name(qp->state),
			   pib_ring_avail(ring, ring->cons), ring->num,
			   wr->wr_id, wr->opcode, wr->num_sge, qp->sq.max_sge,
			   wr->send_flags);
	}
	pib_qp_notify_cqs(qp);
	/*
	 * A user's doorbell is a system call that may send at once; kernel
	 * consumers may post with interrupts off or from a completion
	 * handler, and leave the sending to the QP's work.
	 */
	if (qp->user)
		pib_qp_run(qp);
	else
		pib_qp_kick(qp);
	return err;
}

/**
 * pib_recv_wr_put() - a kernel consumer's receive WR into an RQ or SRQ ring
 * @ring: the ring (its owner's lock held)
 * @max_sge: SGEs a WQE may have
 * @wr: the work request
 *
 * Return: 0, -EINVAL for too many SGEs, -ENOMEM if the ring is full.
 */
int pib_recv_wr_put(struct pib_ring *ring, u32 max_sge,
		    const struct ib_recv_wr *wr)
{
	struct pib_recv_wqe *wqe;
	int i;

	if (wr->num_sge > max_sge)
		return -EINVAL;
	if (!pib_ring_room(ring))
		return -ENOMEM;
	wqe = pib_ring_entry(ring, ring->prod);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i].addr = wr->sg_list[i].addr;
		wqe->sge[i].length = wr->sg_list[i].length;
		wqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	pib_ring_produce(ring);
	return 0;
}

/**
 * pib_post_recv() - the post_recv verb, for kernel consumers
 * @ibqp: the QP (not one with an SRQ)
 * @wr: the list of WRs
 * @bad_wr: the first WR not posted, on error
 *
 * The provider writes the RQ rings of user QPs itself.
 *
 * Return: 0, or a negative errno.
 */
int pib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	unsigned long flags;
	int err = 0;

	if (!pib_qp_has_rq(qp)) {
		*bad_wr = wr;
		return pib_refuse(ibqp->device, -EINVAL,
				  "post_recv: QP 0x%x has an SRQ, or is XRC's",
				  ibqp->qp_num);
	}
	err = pib_inject_verb_fail(to_pib_dev(ibqp->device), PIB_INJ_POST_RECV);
	if (err) {
		*bad_wr = wr;
		return err;
	}
	spin_lock_irqsave(&qp->lock, flags);
	for (; wr; wr = wr->next) {
		err = qp->state == IB_QPS_RESET ? -EINVAL :
		      pib_recv_wr_put(&qp->rq, qp->rq_max_sge, wr);
		if (err)
			break;
	}
	if (qp->state == IB_QPS_ERR)
		pib_qp_flush(qp);
	if (err) {
		*bad_wr = wr;
		pib_refuse(ibqp->device, err,
			   "post_recv: QP 0x%x in %s, RQ %u of %u full: WR 0x%llx with %d SGEs (at most %u)",
			   ibqp->qp_num, pib_qp_state_name(qp->state),
			   pib_ring_avail(&qp->rq, qp->rq.cons), qp->rq.num,
			   wr->wr_id, wr->num_sge, qp->rq_max_sge);
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	pib_qp_notify_cqs(qp);
	return err;
}

/**
 * pib_qp_init() - at module load: the workqueue that QP work runs on
 *
 * Return: 0, or -ENOMEM.
 */
int pib_qp_init(void)
{
	/* Unbound, as rxe's: from Linux 7.x on, a workqueue must say which. */
	pib_wq = alloc_workqueue("pib", WQ_UNBOUND | WQ_MEM_RECLAIM | WQ_HIGHPRI,
				 0);
	return pib_wq ? 0 : -ENOMEM;
}

/**
 * pib_qp_exit() - at module unload: destroy the QP workqueue
 */
void pib_qp_exit(void)
{
	destroy_workqueue(pib_wq);
}
