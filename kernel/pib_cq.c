// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues for kernel consumers: a ring of work completions,
 * the notification state machine (disarmed, next completion, next
 * solicited completion) and overflow reported as IB_EVENT_CQ_ERR.
 */
#include <linux/slab.h>

#include "pib.h"

int pib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibcq->device);
	struct pib_cq *cq = to_pib_cq(ibcq);
	int err;

	if (udata)
		return -EOPNOTSUPP;	/* user CQs come with the provider rings */
	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > PIB_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	err = pib_res_get(&dev->cq_count, PIB_MAX_CQ);
	if (err)
		return err;
	cq->wc = kvcalloc(attr->cqe, sizeof(*cq->wc), GFP_KERNEL);
	if (!cq->wc) {
		atomic_dec(&dev->cq_count);
		return -ENOMEM;
	}
	spin_lock_init(&cq->lock);
	cq->size = attr->cqe;
	cq->notify = PIB_CQ_DISARMED;
	ibcq->cqe = attr->cqe;
	return 0;
}

int pib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct pib_cq *cq = to_pib_cq(ibcq);

	kvfree(cq->wc);
	atomic_dec(&to_pib_dev(ibcq->device)->cq_count);
	return 0;
}

int pib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct pib_cq *cq = to_pib_cq(ibcq);
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries && cq->count; n++) {
		wc[n] = cq->wc[cq->head];
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

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
	missed = (flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

static void pib_cq_overflow(struct pib_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/**
 * pib_cq_push() - add a work completion and notify the consumer if armed
 * @cq: the completion queue
 * @wc: the completion
 * @solicited: the completion is for a solicited message
 *
 * Must not be called with a QP lock held: the completion handler may post.
 *
 * Return: 0, or -ENOSPC if the CQ overflowed (the consumer gets CQ_ERR).
 */
int pib_cq_push(struct pib_cq *cq, const struct ib_wc *wc, bool solicited)
{
	unsigned long flags;
	bool fire;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count == cq->size) {
		spin_unlock_irqrestore(&cq->lock, flags);
		pib_cq_overflow(cq);
		return -ENOSPC;
	}
	cq->wc[(cq->head + cq->count) % cq->size] = *wc;
	cq->count++;
	fire = cq->notify == PIB_CQ_NEXT_COMP ||
	       (cq->notify == PIB_CQ_NEXT_SOLICITED && solicited);
	if (fire)
		cq->notify = PIB_CQ_DISARMED;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (fire && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}
