// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Error injection: /sys/kernel/debug/pib/<device>/inject takes one command
 * per write, to see how a program copes with errors a real HCA may give:
 *
 *	qp QPN fatal		the QP goes to the error state with
 *				IB_EVENT_QP_FATAL; its WQEs are flushed
 *	qp QPN drop N		its next N packets out are lost
 *	qp QPN dup N		its next N packets out leave twice
 *				(a QP keeps a check per packet sent, an
 *				atomic read, once it had an injection)
 *	cq CQN fatal		IB_EVENT_CQ_ERR; the CQ completes nothing more
 *	srq SRQN fatal		IB_EVENT_SRQ_ERR
 *	verb NAME ERRNO		the device's next call of verb NAME fails
 *				with -ERRNO (NAME: pib_inject_verbs[];
 *				ERRNO a positive number, 12 for ENOMEM)
 *
 * CQN and SRQN are the numbers `rdma resource show` gives. Each injection
 * is logged once in the kernel log; a command it cannot take fails the
 * write with -EINVAL, or -ENOENT for an object the device does not have.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/skbuff.h>
#include <linux/uaccess.h>
#include <rdma/restrack.h>

#include "pib.h"
#include "pib_trace.h"

#define PIB_INJECT_CMD_MAX	64

/* The verbs whose next call can be made to fail, by enum pib_inject_verb. */
static const char *const pib_inject_verbs[PIB_INJ_NUM_VERBS] = {
	[PIB_INJ_ALLOC_PD] = "alloc_pd",
	[PIB_INJ_CREATE_AH] = "create_ah",
	[PIB_INJ_CREATE_CQ] = "create_cq",
	[PIB_INJ_CREATE_QP] = "create_qp",
	[PIB_INJ_MODIFY_QP] = "modify_qp",
	[PIB_INJ_CREATE_SRQ] = "create_srq",
	[PIB_INJ_REG_MR] = "reg_mr",
};

/**
 * pib_inject_verb_fail() - the verb's injected failure, if one is due
 * @dev: the device
 * @verb: the verb
 *
 * Return: 0, or the negative errno the verb is to fail with (once).
 */
int pib_inject_verb_fail(struct pib_dev *dev, enum pib_inject_verb verb)
{
	return -atomic_xchg(&dev->inject_verb[verb], 0);
}

/**
 * pib_inject_tx() - apply a QP's injected packet faults to what it sends
 * @qp: the QP (pib_qp_inject_tx() saw it has faults to inject)
 * @q: its packets, about to join the port's queue
 */
void pib_inject_tx(struct pib_qp *qp, struct sk_buff_head *q)
{
	struct sk_buff *skb, *tmp, *dup;

	skb_queue_walk_safe(q, skb, tmp) {
		if (atomic_dec_if_positive(&qp->inject[PIB_INJ_DROP]) >= 0) {
			__skb_unlink(skb, q);
			pib_drop(to_pib_dev(qp->ibqp.device), skb->data,
				 skb->len, PIB_DROP_INJECTED, 0);
			kfree_skb(skb);
		} else if (atomic_dec_if_positive(&qp->inject[PIB_INJ_DUP]) >= 0) {
			dup = skb_copy(skb, GFP_ATOMIC);
			if (dup)
				__skb_queue_after(q, skb, dup);
		}
	}
}

/* qp QPN fatal|drop N|dup N */
static int pib_inject_qp(struct pib_dev *dev, u32 qpn, const char *what, u32 n)
{
	int pkt = !strcmp(what, "drop") ? PIB_INJ_DROP :
		  !strcmp(what, "dup") ? PIB_INJ_DUP : -1;
	bool fatal = !strcmp(what, "fatal");
	unsigned long flags;
	struct pib_qp *qp;
	int err = 0;

	if (fatal ? n : pkt < 0 || !n)
		return -EINVAL;
	rcu_read_lock();
	qp = qpn >= PIB_NUM_SPECIAL_QPS ? xa_load(&dev->qps, qpn) : NULL;
	if (!qp) {
		err = -ENOENT;
	} else if (pkt >= 0) {
		atomic_set(&qp->inject[pkt], n);
		WRITE_ONCE(qp->injecting, true);
	} else {
		spin_lock_irqsave(&qp->lock, flags);
		if (qp->state == IB_QPS_RESET)
			err = -EINVAL;	/* no WQE, nothing to fail */
		else
			pib_qp_error(qp);
		spin_unlock_irqrestore(&qp->lock, flags);
		if (!err)
			pib_qp_notify_cqs(qp);
	}
	rcu_read_unlock();
	return err;
}

/* cq CQN fatal, srq SRQN fatal: the object's async error event. */
static int pib_inject_event(struct pib_dev *dev, enum rdma_restrack_type type,
			    u32 id)
{
	struct rdma_restrack_entry *res;
	struct ib_event ev = { .device = &dev->ibdev };
	struct pib_cq *cq = NULL;
	struct ib_srq *srq = NULL;
	unsigned long flags;

	res = rdma_restrack_get_byid(&dev->ibdev, type, id);
	if (IS_ERR(res))
		return -ENOENT;
	if (type == RDMA_RESTRACK_CQ) {
		cq = to_pib_cq(container_of(res, struct ib_cq, res));
		spin_lock_irqsave(&cq->lock, flags);
		cq->overflowed = true;	/* it completes nothing more */
		spin_unlock_irqrestore(&cq->lock, flags);
		ev.event = IB_EVENT_CQ_ERR;
		ev.element.cq = &cq->ibcq;
	} else {
		srq = container_of(res, struct ib_srq, res);
		ev.event = IB_EVENT_SRQ_ERR;
		ev.element.srq = srq;
	}
	trace_pib_async_event(&dev->ibdev, ev.event, id);
	if (cq && cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	if (srq && srq->event_handler)
		srq->event_handler(&ev, srq->srq_context);
	rdma_restrack_put(res);
	return 0;
}

/* verb NAME ERRNO */
static int pib_inject_verb(struct pib_dev *dev, const char *name, u32 err_no)
{
	int i;

	if (!err_no || err_no > MAX_ERRNO)
		return -EINVAL;
	for (i = 0; i < PIB_INJ_NUM_VERBS; i++) {
		if (!strcmp(name, pib_inject_verbs[i])) {
			atomic_set(&dev->inject_verb[i], err_no);
			return 0;
		}
	}
	return -EINVAL;
}

/* Run one command: "OBJECT ID WHAT [N]" or "verb NAME ERRNO". */
static int pib_inject_cmd(struct pib_dev *dev, const char *cmd)
{
	char obj[8], what[16];
	int fields, id;
	u32 n = 0;

	fields = sscanf(cmd, "%7s %15s %u", obj, what, &n);
	if (fields >= 3 && !strcmp(obj, "verb"))
		return pib_inject_verb(dev, what, n);
	fields = sscanf(cmd, "%7s %i %15s %u", obj, &id, what, &n);
	if (fields < 3 || id < 0)
		return -EINVAL;
	if (!strcmp(obj, "qp"))
		return pib_inject_qp(dev, id, what, fields == 4 ? n : 0);
	if (fields != 3 || strcmp(what, "fatal"))
		return -EINVAL;
	if (!strcmp(obj, "cq"))
		return pib_inject_event(dev, RDMA_RESTRACK_CQ, id);
	if (!strcmp(obj, "srq"))
		return pib_inject_event(dev, RDMA_RESTRACK_SRQ, id);
	return -EINVAL;
}

static ssize_t pib_inject_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pib_dev *dev = file->private_data;
	char cmd[PIB_INJECT_CMD_MAX];
	int err;

	if (!count || count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	strim(cmd);
	err = pib_inject_cmd(dev, cmd);
	if (err)
		return err;
	pr_info("%s: injected: %s\n", dev_name(&dev->ibdev.dev), cmd);
	return count;
}

static const struct file_operations pib_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pib_inject_write,
	.llseek = noop_llseek,
};

/**
 * pib_inject_dev_add() - the device's inject file
 * @dev: the device, with its debugfs directory
 */
void pib_inject_dev_add(struct pib_dev *dev)
{
	debugfs_create_file("inject", 0200, dev->debugfs, dev, &pib_inject_fops);
}
