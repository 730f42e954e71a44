// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues, XRC SRQs (numbered, found by the XRCETH of a
 * request to an XRC TGT QP), and taking receive WQEs out of an RQ or SRQ
 * ring: a checked copy of each WQE, and the SRQ limit event.
 */
#include <linux/slab.h>
#include <rdma/pib-abi.h>

#include "pib.h"
#include "pib_trace.h"

/**
 * pib_rwqe_stride() - bytes of a receive WQE with room for @max_sge SGEs
 * @max_sge: SGEs
 *
 * Return: a power of two, as the rings want.
 */
u32 pib_rwqe_stride(u32 max_sge)
{
	return roundup_pow_of_two(sizeof(struct pib_recv_wqe) +
				  max_sge * sizeof(struct pib_sge));
}

/**
 * pib_rq_take() - take the next receive WQE out of an RQ or SRQ ring
 * @ring: the ring (its owner's lock held)
 * @max_sge: SGEs a WQE may have
 * @wqe: where the checked copy goes (one stride)
 *
 * A WQE that claims more SGEs than the queue allows gets none, so that
 * any message for it fails with a length error.
 *
 * Return: true if a WQE was taken.
 */
bool pib_rq_take(struct pib_ring *ring, u32 max_sge, struct pib_recv_wqe *wqe)
{
	if (!pib_ring_avail(ring, ring->cons))
		return false;
	memcpy(wqe, pib_ring_entry(ring, ring->cons), ring->stride);
	pib_ring_consume(ring);
	if (wqe->num_sge > max_sge)
		wqe->num_sge = 0;
	return true;
}

/**
 * pib_srq_take() - take a receive WQE for a QP on an SRQ
 * @srq: the SRQ
 * @wqe: where the copy goes
 *
 * Raises IB_EVENT_SRQ_LIMIT_REACHED (once per arming) when fewer WQEs
 * than the limit are left.
 *
 * Return: true if a WQE was taken.
 */
bool pib_srq_take(struct pib_srq *srq, struct pib_recv_wqe *wqe)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
		.element.srq = &srq->ibsrq,
	};
	unsigned long flags;
	bool taken, fire = false;

	spin_lock_irqsave(&srq->lock, flags);
	taken = pib_rq_take(&srq->ring, srq->max_sge, wqe);
	if (taken && srq->limit &&
	    pib_ring_avail(&srq->ring, srq->ring.cons) < srq->limit) {
		srq->limit = 0;
		fire = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (fire)
		trace_pib_async_event(srq->ibsrq.device, ev.event,
				      srq->ibsrq.res.id);
	if (fire && srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	return taken;
}

/**
 * pib_xrc_srq_find() - the XRC SRQ an XRCETH names, in an XRC domain
 * @dev: the device
 * @srqn: the SRQ number
 * @xrcd: the domain of the XRC TGT QP the request came to
 *
 * Under RCU: pib_destroy_srq() waits for its readers.
 *
 * Return: the SRQ, or NULL if @srqn names none in @xrcd.
 */
struct pib_srq *pib_xrc_srq_find(struct pib_dev *dev, u32 srqn,
				 struct ib_xrcd *xrcd)
{
	struct pib_srq *srq = xa_load(&dev->xrc_srqs, srqn);

	return srq && srq->ibsrq.ext.xrc.xrcd == xrcd ? srq : NULL;
}

/*
 * An XRC SRQ's number, reserved now and published by pib_xrc_srq_publish()
 * once the SRQ is whole. Return: 0, or a negative errno.
 */
static int pib_xrc_srq_number(struct pib_dev *dev, struct pib_srq *srq,
			      struct ib_udata *udata)
{
	u32 num;
	int err;

	if (!udata)
		return pib_refuse(&dev->ibdev, -EOPNOTSUPP,
				  "create_srq: XRC is for processes (ibv_create_srq_ex)");
	err = xa_alloc_cyclic(&dev->xrc_srqs, &num, NULL,
			      XA_LIMIT(1, PIB_MAX_QPN), &dev->next_srqn,
			      GFP_KERNEL);
	if (err < 0)
		return err;
	srq->ibsrq.ext.xrc.srq_num = num;
	return 0;
}

static void pib_xrc_srq_unnumber(struct pib_dev *dev, struct pib_srq *srq)
{
	if (srq->ibsrq.srq_type == IB_SRQT_XRC)
		xa_erase(&dev->xrc_srqs, srq->ibsrq.ext.xrc.srq_num);
}

/* Check what create_srq asks for. Return: 0, or a negative errno. */
static int pib_check_srq_init(struct pib_dev *dev,
			      const struct ib_srq_init_attr *init,
			      struct ib_udata *udata)
{
	const struct ib_srq_attr *attr = &init->attr;

	if (init->srq_type != IB_SRQT_BASIC && init->srq_type != IB_SRQT_XRC)
		return pib_refuse(&dev->ibdev, -EOPNOTSUPP,
				  "create_srq: srq_type %d (pib has basic and XRC SRQs)",
				  init->srq_type);
	if (!attr->max_wr || attr->max_wr > PIB_MAX_QP_WR ||
	    attr->max_sge > PIB_MAX_SGE || attr->srq_limit > attr->max_wr)
		return pib_refuse(&dev->ibdev, -EINVAL,
				  "create_srq: max_wr %u (1 to %u), max_sge %u (at most %u), srq_limit %u (at most max_wr)",
				  attr->max_wr, PIB_MAX_QP_WR, attr->max_sge,
				  PIB_MAX_SGE, attr->srq_limit);
	if (udata && udata->outlen < sizeof(struct pib_create_srq_resp))
		return pib_refuse(&dev->ibdev, -EINVAL,
				  "create_srq: reply of %zu bytes (provider too old?)",
				  udata->outlen);
	return 0;
}

/**
 * pib_create_srq() - the create_srq verb
 * @ibsrq: the SRQ, allocated by the RDMA core
 * @init: its type, size and limit (and an XRC SRQ's domain and CQ)
 * @udata: the user's call, or NULL for a kernel consumer's SRQ
 *
 * An XRC SRQ gets a number, which requests to XRC TGT QPs of its domain
 * name in their XRCETH, and completes its receives in its own CQ.
 *
 * Return: 0, or a negative errno.
 */
int pib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibsrq->device);
	struct pib_srq *srq = to_pib_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct pib_create_srq_resp resp = {};
	int err;

	err = pib_inject_verb_fail(dev, PIB_INJ_CREATE_SRQ) ?:
	      pib_check_srq_init(dev, init, udata);
	if (err)
		return err;
	err = pib_res_get(&dev->ibdev, &dev->srq_count, PIB_MAX_SRQ, "SRQs");
	if (err)
		return err;
	if (init->srq_type == IB_SRQT_XRC) {
		err = pib_xrc_srq_number(dev, srq, udata);
		if (err)
			goto out;
	}
	spin_lock_init(&srq->lock);
	srq->max_sge = max_t(u32, attr->max_sge, 1);
	err = pib_ring_init(&srq->ring, roundup_pow_of_two(attr->max_wr),
			    pib_rwqe_stride(srq->max_sge), udata);
	if (err)
		goto unnumber;
	attr->max_wr = srq->ring.num;
	attr->max_sge = srq->max_sge;
	srq->limit = attr->srq_limit;
	if (udata) {
		pib_ring_describe(&srq->ring, &resp.rq);
		if (init->srq_type == IB_SRQT_XRC)
			resp.srq_num = ibsrq->ext.xrc.srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			pib_ring_free(&srq->ring);
			goto unnumber;
		}
	}
	if (init->srq_type == IB_SRQT_XRC)
		xa_store(&dev->xrc_srqs, ibsrq->ext.xrc.srq_num, srq, GFP_KERNEL);
	pib_obj_add(dev, PIB_OBJ_SRQ, &srq->obj, !!udata,
		    ibsrq->res.kern_name);
	trace_pib_srq_create(srq);
	return 0;
unnumber:
	pib_xrc_srq_unnumber(dev, srq);
out:
	atomic_dec(&dev->srq_count);
	return err;
}

/*
 * Describe @ring where the user's modify_srq command says, before it
 * replaces the old one: a provider that cannot learn of its new ring
 * keeps the old. Return: 0, or a negative errno.
 */
static int pib_srq_tell_user(struct ib_srq *ibsrq, const struct pib_ring *ring,
			     struct ib_udata *udata)
{
	struct pib_modify_srq cmd = {};
	struct pib_ring_info info;

	if (udata->inlen < sizeof(cmd))
		return pib_refuse(ibsrq->device, -EOPNOTSUPP,
				  "modify_srq: IB_SRQ_MAX_WR with a request of %zu bytes (provider too old?)",
				  udata->inlen);
	if (ib_copy_from_udata(&cmd, udata, sizeof(cmd)))
		return -EFAULT;
	pib_ring_describe(ring, &info);
	if (copy_to_user(u64_to_user_ptr(cmd.ring_info), &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/*
 * A new ring of @attr->max_wr WQEs (rounded up to a power of two) for
 * @srq, the WQEs not taken yet at its start; it must hold them, and
 * @limit. Return: 0, or a negative errno.
 */
static int pib_srq_resize(struct pib_srq *srq, struct ib_srq_attr *attr,
			  u32 limit, struct ib_udata *udata)
{
	struct ib_srq *ibsrq = &srq->ibsrq;
	struct pib_ring ring;
	unsigned long flags;
	u32 i, used;
	int err;

	if (!attr->max_wr || attr->max_wr > PIB_MAX_QP_WR)
		return pib_refuse(ibsrq->device, -EINVAL,
				  "modify_srq: max_wr %u (1 to %u)", attr->max_wr,
				  PIB_MAX_QP_WR);
	err = pib_ring_init(&ring, roundup_pow_of_two(attr->max_wr),
			    srq->ring.stride, udata);
	if (err)
		return err;
	if (udata) {
		err = pib_srq_tell_user(ibsrq, &ring, udata);
		if (err)
			goto free;
	}
	spin_lock_irqsave(&srq->lock, flags);
	used = pib_ring_avail(&srq->ring, srq->ring.cons);
	if (used > ring.num || limit > ring.num) {
		spin_unlock_irqrestore(&srq->lock, flags);
		err = pib_refuse(ibsrq->device, -EINVAL,
				 "modify_srq: max_wr %u below the %u WQEs posted or the limit %u",
				 ring.num, used, limit);
		goto free;
	}
	for (i = 0; i < used; i++)
		memcpy(pib_ring_entry(&ring, i),
		       pib_ring_entry(&srq->ring, srq->ring.cons + i), ring.stride);
	ring.prod = used;
	/* Pairs with pib_ring_avail()'s acquire: the WQEs are copied. */
	smp_store_release(&ring.hdr->producer, used);
	swap(ring, srq->ring);
	spin_unlock_irqrestore(&srq->lock, flags);
	attr->max_wr = srq->ring.num;
free:
	pib_ring_free(&ring);
	return err;
}

/**
 * pib_modify_srq() - the modify_srq verb: resize, set the limit
 * @ibsrq: the SRQ
 * @attr: the new size and limit
 * @mask: IB_SRQ_MAX_WR, IB_SRQ_LIMIT
 * @udata: the user's call (struct pib_modify_srq), or NULL
 *
 * A resize gives the SRQ a new ring, with the WQEs not taken yet: a
 * user's is described at the address the request gives, and the provider
 * maps it in place of the old one.
 *
 * Return: 0, or a negative errno.
 */
int pib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct pib_srq *srq = to_pib_srq(ibsrq);
	unsigned long flags;
	int err;

	err = pib_inject_verb_fail(to_pib_dev(ibsrq->device), PIB_INJ_MODIFY_SRQ);
	if (err)
		return err;
	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return pib_refuse(ibsrq->device, -EINVAL,
				  "modify_srq: attr_mask 0x%x", mask);
	if (mask & IB_SRQ_MAX_WR) {
		err = pib_srq_resize(srq, attr, mask & IB_SRQ_LIMIT ?
				     attr->srq_limit : READ_ONCE(srq->limit),
				     udata);
		if (err)
			return err;
		trace_pib_srq_modify(srq);
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	spin_lock_irqsave(&srq->lock, flags);
	err = attr->srq_limit > srq->ring.num ? -EINVAL : 0;
	if (!err)
		srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		return pib_refuse(ibsrq->device, err,
				  "modify_srq: srq_limit %u above max_wr %u",
				  attr->srq_limit, srq->ring.num);
	trace_pib_srq_modify(srq);
	return 0;
}

/**
 * pib_query_srq() - the query_srq verb
 * @ibsrq: the SRQ
 * @attr: where its size and limit go
 *
 * Return: 0.
 */
int pib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct pib_srq *srq = to_pib_srq(ibsrq);

	attr->max_wr = srq->ring.num;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

/**
 * pib_destroy_srq() - the destroy_srq verb
 * @ibsrq: the SRQ
 * @udata: the user's call, or NULL
 *
 * Return: 0.
 */
int pib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct pib_srq *srq = to_pib_srq(ibsrq);

	trace_pib_srq_destroy(srq);
	if (ibsrq->srq_type == IB_SRQT_XRC) {
		/* XRC TGT QPs find it under RCU: wait for them. */
		pib_xrc_srq_unnumber(to_pib_dev(ibsrq->device), srq);
		pib_synchronize_rcu(to_pib_dev(ibsrq->device)->ndev);
	}
	pib_obj_del(to_pib_dev(ibsrq->device), &srq->obj);
	pib_ring_free(&srq->ring);
	atomic_dec(&to_pib_dev(ibsrq->device)->srq_count);
	return 0;
}

/**
 * pib_post_srq_recv() - the post_srq_recv verb, for kernel consumers
 * @ibsrq: the SRQ
 * @wr: the list of WRs
 * @bad_wr: the first WR not posted, on error
 *
 * The provider writes the rings of user SRQs itself.
 *
 * Return: 0, or a negative errno.
 */
int pib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct pib_srq *srq = to_pib_srq(ibsrq);
	unsigned long flags;
	int err;

	err = pib_inject_verb_fail(to_pib_dev(ibsrq->device),
				   PIB_INJ_POST_SRQ_RECV);
	if (err) {
		*bad_wr = wr;
		return err;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		err = pib_recv_wr_put(&srq->ring, srq->max_sge, wr);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err) {
		*bad_wr = wr;
		pib_refuse(ibsrq->device, err,
			   "post_srq_recv: WR 0x%llx with %d SGEs (at most %u), or the SRQ of %u full",
			   wr->wr_id, wr->num_sge, srq->max_sge, srq->ring.num);
	}
	return err;
}
