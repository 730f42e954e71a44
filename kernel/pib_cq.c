// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: a ring of struct pib_cqe that the provider polls
 * without a system call (or that poll_cq reads for kernel consumers), the
 * notification state machine (disarmed, next completion, next solicited
 * completion), resizing, and overflow reported as IB_EVENT_CQ_ERR.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/pib-abi.h>

#include "pib.h"
#include "pib_trace.h"

/* Entries of a ring for @cqe completions: one more, to a power of two. */
static u32 pib_cq_ring_num(u32 cqe)
{
	return roundup_pow_of_two(cqe + 1);
}

/*
 * A kernel consumer's CQ also remembers the QP of every entry, since a
 * struct ib_wc points to its QP and a CQE only names it.
 */
static int pib_cq_alloc(struct pib_cq *cq, u32 num, struct ib_udata *udata,
			struct pib_ring *ring, struct ib_qp ***qps)
{
	int err = pib_ring_init(ring, num, sizeof(struct pib_cqe), udata);

	*qps = NULL;
	if (err || udata)
		return err;
	*qps = kvcalloc(num, sizeof(**qps), PIB_GFP_USER);
	if (!*qps) {
		pib_ring_free(ring);
		return -ENOMEM;
	}
	return 0;
}

static int pib_cq_reply(struct pib_ring *ring, struct ib_udata *udata)
{
	struct pib_create_cq_resp resp;

	if (!udata)
		return 0;
	pib_ring_describe(ring, &resp.cq);
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

/**
 * pib_create_cq() - the create_cq verb
 * @ibcq: the CQ, allocated by the RDMA core
 * @attr: its size, completion vector and flags
 * @attrs: the user's uverbs call, or NULL for a kernel consumer's CQ
 *
 * Return: 0, or a negative errno.
 */
int pib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	struct pib_dev *dev = to_pib_dev(ibcq->device);
	struct pib_cq *cq = to_pib_cq(ibcq);
	int err;

	err = pib_inject_verb_fail(dev, PIB_INJ_CREATE_CQ);
	if (err)
		return err;
	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return pib_refuse(&dev->ibdev, -EOPNOTSUPP,
				  "create_cq: flags 0x%x (pib has completion timestamps)",
				  attr->flags);
	if (attr->cqe < 1 || attr->cqe > PIB_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return pib_refuse(&dev->ibdev, -EINVAL,
				  "create_cq: cqe %u (1 to %u), comp_vector %u (below %d)",
				  attr->cqe, PIB_MAX_CQE, attr->comp_vector,
				  ibcq->device->num_comp_vectors);
	if (udata && udata->outlen < sizeof(struct pib_create_cq_resp))
		return pib_refuse(&dev->ibdev, -EINVAL,
				  "create_cq: reply of %zu bytes (provider too old?)",
				  udata->outlen);
	err = pib_res_get(&dev->ibdev, &dev->cq_count, PIB_MAX_CQ, "CQs");
	if (err)
		return err;
	spin_lock_init(&cq->lock);
	cq->notify = PIB_CQ_DISARMED;
	cq->timestamps = attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	err = pib_cq_alloc(cq, pib_cq_ring_num(attr->cqe), udata, &cq->ring,
			   &cq->qps);
	if (err)
		goto out;
	err = pib_cq_reply(&cq->ring, udata);
	if (err) {
		pib_ring_free(&cq->ring);
		goto out;
	}
	ibcq->cqe = cq->ring.num - 1;
	pib_obj_add(dev, PIB_OBJ_CQ, &cq->obj, !!udata, ibcq->res.kern_name);
	trace_pib_cq_create(cq);
	return 0;
out:
	atomic_dec(&dev->cq_count);
	return err;
}

/**
 * pib_destroy_cq() - the destroy_cq verb
 * @ibcq: the CQ
 * @udata: the user's call, or NULL for a kernel consumer's CQ
 *
 * Return: 0; the RDMA core frees @ibcq.
 */
int pib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct pib_cq *cq = to_pib_cq(ibcq);

	trace_pib_cq_destroy(cq);
	pib_obj_del(to_pib_dev(ibcq->device), &cq->obj);
	pib_ring_free(&cq->ring);
	kvfree(cq->qps);
	atomic_dec(&to_pib_dev(ibcq->device)->cq_count);
	return 0;
}

/* Entries between the consumer's index and ours, as far as we believe. */
static u32 pib_cq_used(struct pib_cq *cq)
{
	return cq->ring.num - pib_ring_room(&cq->ring);
}

/**
 * pib_resize_cq() - the resize_user_cq verb
 * @ibcq: the CQ
 * @cqe: the number of entries asked for
 * @udata: the user's request and response, or NULL for a kernel consumer's CQ
 *
 * A new ring with the completions not polled yet at its start. A user's
 * old ring stays mapped until the provider unmaps it.
 *
 * Return: 0, or a negative errno.
 */
int pib_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
		  struct ib_udata *udata)
{
	struct pib_cq *cq = to_pib_cq(ibcq);
	struct ib_qp **qps, **old_qps;
	struct pib_ring ring;
	unsigned long flags;
	u32 i, used, cons;
	int err;

	err = pib_inject_verb_fail(to_pib_dev(ibcq->device), PIB_INJ_RESIZE_CQ);
	if (err)
		return err;
	if (!cqe || cqe > PIB_MAX_CQE)
		return pib_refuse(ibcq->device, -EINVAL,
				  "resize_cq: cqe %u (1 to %u)", cqe, PIB_MAX_CQE);
	if (udata && udata->outlen < sizeof(struct pib_create_cq_resp))
		return pib_refuse(ibcq->device, -EINVAL,
				  "resize_cq: reply of %zu bytes (provider too old?)",
				  udata->outlen);
	err = pib_cq_alloc(cq, pib_cq_ring_num(cqe), udata, &ring, &qps);
	if (err)
		return err;
	spin_lock_irqsave(&cq->lock, flags);
	used = pib_cq_used(cq);
	if (used >= ring.num) {
		spin_unlock_irqrestore(&cq->lock, flags);
		err = pib_refuse(ibcq->device, -EINVAL,
				 "resize_cq: %u completions wait, more than %u entries hold",
				 used, ring.num - 1);
		goto free;
	}
	cons = cq->ring.prod - used;
	for (i = 0; i < used; i++) {
		memcpy(pib_ring_entry(&ring, i),
		       pib_ring_entry(&cq->ring, cons + i), sizeof(struct pib_cqe));
		if (qps)
			qps[i] = cq->qps[(cons + i) & (cq->ring.num - 1)];
	}
	ring.prod = used;
	ring.hdr->producer = used;
	swap(ring, cq->ring);
	old_qps = cq->qps;
	cq->qps = qps;
	qps = old_qps;
	ibcq->cqe = cq->ring.num - 1;
	spin_unlock_irqrestore(&cq->lock, flags);
	trace_pib_cq_resize(cq);
	err = pib_cq_reply(&cq->ring, udata);
	/* On error the CQ keeps its new ring; the old one goes either way. */
free:
	pib_ring_free(&ring);
	kvfree(qps);
	return err;
}

static void pib_cq_to_wc(const struct pib_cqe *e, struct ib_qp *qp,
			 struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = e->status;
	wc->opcode = e->opcode;
	wc->vendor_err = e->vendor_err;
	wc->byte_len = e->byte_len;
	wc->qp = qp;
	wc->src_qp = e->src_qp;
	wc->pkey_index = e->pkey_index;
	wc->slid = e->slid;
	wc->sl = e->sl;
	wc->dlid_path_bits = e->dlid_path_bits;
	wc->port_num = PIB_PORT_NUM;
	if (e->wc_flags & PIB_WC_GRH)
		wc->wc_flags |= IB_WC_GRH;
	if (e->wc_flags & PIB_WC_WITH_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = (__force __be32)e->ex;
	}
	if (e->wc_flags & PIB_WC_WITH_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = e->ex;
	}
}

/**
 * pib_poll_cq() - the poll_cq verb, for kernel consumers
 * @ibcq: the CQ
 * @num_entries: room at @wc
 * @wc: where the completions go
 *
 * The provider polls the rings of user CQs itself.
 *
 * Return: the number of completions written to @wc.
 */
int pib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct pib_cq *cq = to_pib_cq(ibcq);
	struct pib_ring *r = &cq->ring;
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries && r->cons != r->prod; n++) {
		pib_cq_to_wc(pib_ring_entry(r, r->cons),
			     cq->qps[r->cons & (r->num - 1)], &wc[n]);
		pib_ring_consume(r);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * pib_cq_clean() - take a QP's completions out of a kernel consumer's CQ
 * @cq: the CQ; a user's is the provider's to clean
 * @qp: the QP, gone to RESET or being destroyed: its completions would
 *	name a QP without that work, or no QP at all
 *
 * The other completions move towards the producer index, in their order,
 * and the consumer index follows them.
 */
void pib_cq_clean(struct pib_cq *cq, struct pib_qp *qp)
{
	struct pib_ring *r = &cq->ring;
	u32 mask = r->num - 1, gone = 0, i, src;
	unsigned long flags;

	if (!cq->qps)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	for (i = r->prod - r->cons; i-- > 0;) {
		src = r->cons + i;
		if (cq->qps[src & mask] == &qp->ibqp) {
			gone++;
		} else if (gone) {
			memcpy(pib_ring_entry(r, src + gone),
			       pib_ring_entry(r, src), sizeof(struct pib_cqe));
			cq->qps[(src + gone) & mask] = cq->qps[src & mask];
		}
	}
	if (gone)
		pib_ring_consume_to(r, r->cons + gone);
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * pib_req_notify_cq() - the req_notify_cq verb: arm the CQ
 * @ibcq: the CQ
 * @flags: IB_CQ_NEXT_COMP or IB_CQ_SOLICITED, and IB_CQ_REPORT_MISSED_EVENTS
 *
 * Return: 1 if IB_CQ_REPORT_MISSED_EVENTS was asked for and the CQ holds
 * completions already, else 0.
 */
int pib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct pib_cq *cq = to_pib_cq(ibcq);
	unsigned long irqflags;
	int missed;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* Arming for any completion covers a pending solicited-only arm. */
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		cq->notify = PIB_CQ_NEXT_COMP;
	else if (cq->notify == PIB_CQ_DISARMED)
		cq->notify = PIB_CQ_NEXT_SOLICITED;
	missed = (flags & IB_CQ_REPORT_MISSED_EVENTS) && pib_cq_used(cq);
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

/*
 * A CQ overflowed (once in its life): IB_EVENT_CQ_ERR to its consumer, and
 * a line in the kernel log, since a kernel consumer's CQ from the CQ pool
 * has no event handler and would otherwise just stop completing.
 */
static void pib_cq_overflow(struct pib_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	pr_warn_ratelimited("%s: a CQ of %u entries overflowed: its later completions are lost\n",
			    cq->ibcq.device->name, cq->ibcq.cqe);
	trace_pib_async_event(cq->ibcq.device, IB_EVENT_CQ_ERR, cq->ibcq.res.id);
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/**
 * pib_cq_push() - add a completion, noting whether the consumer is owed
 *	an event
 * @cq: the completion queue
 * @cqe: the completion
 * @qp: its QP
 * @solicited: the completion is for a solicited message
 *
 * May be called with the QP's lock held; the completion handler and an
 * overflow's IB_EVENT_CQ_ERR wait for pib_cq_notify(), which the caller
 * calls once it holds no lock. A CQ that overflowed loses every later
 * completion until it is destroyed.
 */
void pib_cq_push(struct pib_cq *cq, const struct pib_cqe *cqe,
		 struct pib_qp *qp, bool solicited)
{
	unsigned long flags;
	struct pib_cqe *e;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflowed || !pib_ring_room(&cq->ring)) {
		if (!cq->overflowed)
			cq->overflow_pending = true;
		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		trace_pib_cqe(cq, cqe, true);
		return;
	}
	trace_pib_cqe(cq, cqe, false);
	e = pib_ring_entry(&cq->ring, cq->ring.prod);
	memcpy(e, cqe, sizeof(*cqe));
	if (cq->timestamps)
		e->timestamp = ktime_get_real_ns();
	if (cq->qps)
		cq->qps[cq->ring.prod & (cq->ring.num - 1)] = &qp->ibqp;
	pib_ring_produce(&cq->ring);
	if (cq->notify == PIB_CQ_NEXT_COMP ||
	    (cq->notify == PIB_CQ_NEXT_SOLICITED && solicited)) {
		cq->notify = PIB_CQ_DISARMED;
		cq->fire_pending = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * pib_cq_notify() - deliver what pib_cq_push() left pending
 * @cq: the completion queue; no lock held
 */
void pib_cq_notify(struct pib_cq *cq)
{
	unsigned long flags;
	bool fire, overflow;

	if (!READ_ONCE(cq->fire_pending) && !READ_ONCE(cq->overflow_pending))
		return;
	spin_lock_irqsave(&cq->lock, flags);
	fire = cq->fire_pending;
	overflow = cq->overflow_pending;
	cq->fire_pending = false;
	cq->overflow_pending = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (overflow)
		pib_cq_overflow(cq);
	if (fire && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}
