// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Strict mode: pib looks for the mistakes that make a program that runs on
 * pib (or on rdma_rxe) fail on other hardware, and says so in the kernel
 * log, once per QP and mistake, with the process that owns the QP.
 *
 * /sys/kernel/debug/pib/<device>/strict holds the device's mode:
 *
 *	off	nothing is checked (the default)
 *	warn	each mistake is reported
 *	error	reported, and where the IBA leaves an implementation room,
 *		it is also an error, as it is on the strictest hardware:
 *		- an SQ slot of an unsignaled send is freed only when a
 *		  later signaled send completes (the SQ looks full to a
 *		  program that never signals);
 *		- create_qp fails with -EINVAL when a CQ has fewer entries
 *		  than the queues that complete into it;
 *		- a READ or atomic beyond the responder resources is NAK'd
 *		  as an invalid request instead of being answered.
 *
 * Every report also counts in the strict_reports counter of `rdma
 * statistic`.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ratelimit.h>
#include <linux/uaccess.h>

#include "pib.h"

/* The modes, by enum pib_strict_mode, as the strict file reads them. */
static const char *const pib_strict_modes[PIB_STRICT_NUM_MODES] = {
	[PIB_STRICT_OFF] = "off",
	[PIB_STRICT_WARN] = "warn",
	[PIB_STRICT_ERROR] = "error",
};

/* What each check is called at the end of its report. */
static const char *const pib_strict_names[PIB_STRICT_NUM_CHECKS] = {
	[PIB_STRICT_UNSIGNALED] = "unsignaled-wrap",
	[PIB_STRICT_CQ_SIZE] = "cq-too-small",
	[PIB_STRICT_RECV_LEN] = "recv-too-short",
	[PIB_STRICT_MR_BUSY] = "dereg-mr-in-use",
	[PIB_STRICT_RKEY_INVALID] = "rkey-invalidated",
	[PIB_STRICT_ATOMIC_ALIGN] = "atomic-unaligned",
	[PIB_STRICT_MODIFY_ATTRS] = "modify-qp-attrs",
	[PIB_STRICT_RD_ATOMIC] = "rd-atomic-exceeded",
};

/* Reports of many QPs at once do not flood the log. */
static DEFINE_RATELIMIT_STATE(pib_strict_rs, 5 * HZ, 20);

static void pib_strict_print(struct pib_dev *dev, const struct pib_owner *o,
			     u32 qpn, enum pib_strict_check check,
			     struct va_format *vaf)
{
	pib_stat_inc(&dev->ibdev, PIB_STAT_STRICT_REPORTS);
	if (!__ratelimit(&pib_strict_rs))
		return;
	if (qpn)
		pr_warn("%s: strict: %s[%d]: QP 0x%x: %pV (%s)\n",
			dev_name(&dev->ibdev.dev), o->comm, o->pid, qpn, vaf,
			pib_strict_names[check]);
	else
		pr_warn("%s: strict: %s[%d]: %pV (%s)\n",
			dev_name(&dev->ibdev.dev), o->comm, o->pid, vaf,
			pib_strict_names[check]);
}

/**
 * pib_strict_report() - report a QP's mistake, the first time it makes it
 * @qp: the QP
 * @check: the mistake
 * @fmt: what happened, and what other hardware does with it
 * @...: the format's arguments
 */
void pib_strict_report(struct pib_qp *qp, enum pib_strict_check check,
		       const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (test_and_set_bit(check, &qp->strict_seen))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pib_strict_print(to_pib_dev(qp->ibqp.device), &qp->owner,
			 qp->ibqp.qp_num, check, &vaf);
	va_end(args);
}

/* Report a mistake of the calling process that no QP made yet. */
static __printf(3, 4)
void pib_strict_report_caller(struct pib_dev *dev, enum pib_strict_check check,
			      const char *fmt, ...)
{
	struct pib_owner o = { .pid = task_tgid_nr(current) };
	struct va_format vaf;
	va_list args;

	get_task_comm(o.comm, current);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pib_strict_print(dev, &o, 0, check, &vaf);
	va_end(args);
}

/* The WQEs a QP makes its CQs hold room for, as it asked at create_qp. */
static void pib_strict_cq_add(struct ib_cq *ibcq, s64 n)
{
	struct pib_cq *cq = to_pib_cq(ibcq);
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->fed += n;
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * pib_strict_cq_feed() - count a QP's queues against its CQs, or uncount
 * @qp: the QP, created with its @qp->sq_wr and @qp->rq_wr
 * @add: true at create_qp, false at destroy_qp
 *
 * Always kept, so that strict mode turned on later knows them.
 */
void pib_strict_cq_feed(struct pib_qp *qp, bool add)
{
	s64 sign = add ? 1 : -1;

	/* (an XRC TGT QP has no CQ, an XRC INI QP none for receives) */
	if (qp->ibqp.send_cq)
		pib_strict_cq_add(qp->ibqp.send_cq, sign * qp->sq_wr);
	if (qp->ibqp.recv_cq)
		pib_strict_cq_add(qp->ibqp.recv_cq, sign * qp->rq_wr);
}

/* Entries a CQ would need with @n more WQEs completing into it. */
static u64 pib_strict_cq_need(struct ib_cq *ibcq, u32 n)
{
	struct pib_cq *cq = to_pib_cq(ibcq);
	unsigned long flags;
	u64 need;

	spin_lock_irqsave(&cq->lock, flags);
	need = cq->fed + n;
	spin_unlock_irqrestore(&cq->lock, flags);
	return need;
}

/**
 * pib_strict_create_qp() - are the CQs of a new QP deep enough for it?
 * @dev: the device, in strict mode
 * @init: the QP's attributes
 *
 * A CQ that the queues completing into it can overrun loses completions
 * (IB_EVENT_CQ_ERR) on any HCA once they all fill.
 *
 * Return: 0, or -EINVAL in error mode for a CQ too small.
 */
int pib_strict_create_qp(struct pib_dev *dev,
			 const struct ib_qp_init_attr *init)
{
	u32 s = init->cap.max_send_wr, r = init->srq ? 0 : init->cap.max_recv_wr;
	bool same = init->send_cq == init->recv_cq;
	u64 need[2] = { 0, 0 };
	struct ib_cq *cqs[2] = { init->send_cq, init->recv_cq };
	bool bad = false;
	int i;

	if (cqs[0])
		need[0] = pib_strict_cq_need(cqs[0], same ? s + r : s);
	if (!same && cqs[1])
		need[1] = pib_strict_cq_need(cqs[1], r);
	for (i = 0; i < 2; i++) {
		if (!cqs[i] || need[i] <= cqs[i]->cqe)
			continue;
		pib_strict_report_caller(dev, PIB_STRICT_CQ_SIZE,
					 "create_qp: CQ 0x%x has %d entries, and the queues that complete into it, this QP's with them, hold %llu WQEs: a CQ overrun loses completions",
					 cqs[i]->res.id, cqs[i]->cqe, need[i]);
		bad = true;
	}
	return bad && pib_strict(dev) == PIB_STRICT_ERROR ? -EINVAL : 0;
}

/**
 * pib_strict_wqe() - look at a send WQE the requester fetched
 * @qp: the QP, its lock held, its device in strict mode
 * @wqe: the WQE (the kernel's checked copy)
 */
void pib_strict_wqe(struct pib_qp *qp, const struct pib_send_wqe *wqe)
{
	u64 va = wqe->opcode == PIB_WR_ATOMIC_WRITE ?
		 wqe->wr.atomic_write.remote_addr : wqe->wr.atomic.remote_addr;

	if ((wqe->opcode == PIB_WR_ATOMIC_CMP_AND_SWP ||
	     wqe->opcode == PIB_WR_ATOMIC_FETCH_AND_ADD ||
	     wqe->opcode == PIB_WR_ATOMIC_WRITE) && va & 7)
		pib_strict_report(qp, PIB_STRICT_ATOMIC_ALIGN,
				  "an atomic on address 0x%llx, not 8-byte aligned: it fails (IBV_WC_LOC_QP_OP_ERR here; a NAK or an error elsewhere)",
				  va);
	if (qp->sig_all || wqe->send_flags & PIB_SEND_SIGNALED) {
		qp->strict_unsignaled = 0;
		return;
	}
	if (++qp->strict_unsignaled >= qp->sq.ring.num)
		pib_strict_report(qp, PIB_STRICT_UNSIGNALED,
				  "%u sends in a row posted unsignaled, as many as its SQ holds: most HCAs free an SQ slot only when a later signaled send completes, so this SQ would be full for good",
				  qp->strict_unsignaled);
}

/**
 * pib_strict_holds_sq() - does a completed unsignaled send keep its slot?
 * @qp: the QP, its lock held
 *
 * Return: true in error mode: the slot is freed with the next signaled
 * send's completion, as HCAs do.
 */
bool pib_strict_holds_sq(struct pib_qp *qp)
{
	return pib_strict(to_pib_dev(qp->ibqp.device)) == PIB_STRICT_ERROR;
}

/**
 * pib_strict_recv_len() - a message longer than its receive WQE
 * @qp: the receiving QP, its device in strict mode
 * @room: bytes the WQE has
 * @ud: a datagram: the WQE also needs room for a GRH
 * @len: a UD message's bytes
 */
void pib_strict_recv_len(struct pib_qp *qp, u64 room, bool ud, u32 len)
{
	if (ud)
		pib_strict_report(qp, PIB_STRICT_RECV_LEN,
				  "a %u-byte datagram for a receive WQE of %llu bytes: UD receive buffers need 40 bytes for the GRH before the payload (IBV_WC_LOC_LEN_ERR)",
				  len, room);
	else
		pib_strict_report(qp, PIB_STRICT_RECV_LEN,
				  "a message longer than its receive WQE of %llu bytes (IBV_WC_LOC_LEN_ERR, and both QPs in ERR)",
				  room);
}

/* Does one of @n SGEs (at most @max) name @key? */
static bool pib_strict_sges_name(const struct pib_sge *sge, u32 n, u32 max,
				 u32 key)
{
	u32 i;

	for (i = 0; i < min(n, max); i++)
		if (READ_ONCE(sge[i].lkey) == key)
			return true;
	return false;
}

/* A send WQE that names @key: fetched ones in the copy, the rest in the ring. */
static bool pib_strict_sq_names(struct pib_qp *qp, u32 key, u64 *wr_id)
{
	struct pib_sq *sq = &qp->sq;
	u32 i, end = sq->fetched + pib_ring_avail(&sq->ring, sq->fetched);
	const struct pib_send_wqe *wqe;

	for (i = sq->ring.cons; i != end; i++) {
		wqe = i - sq->fetched < end - sq->fetched ?
		      pib_ring_entry(&sq->ring, i) : pib_sq_wqe(qp, i);
		if (READ_ONCE(wqe->send_flags) & PIB_SEND_INLINE)
			continue;
		if (pib_strict_sges_name(PIB_WQE_SGE(wqe),
					 READ_ONCE(wqe->num_sge), sq->max_sge,
					 key)) {
			*wr_id = READ_ONCE(wqe->wr_id);
			return true;
		}
	}
	return false;
}

/* A receive WQE of the QP's own RQ that names @key. */
static bool pib_strict_rq_names(struct pib_qp *qp, u32 key, u64 *wr_id)
{
	struct pib_ring *rq = &qp->rq;
	u32 i, n = rq->num ? pib_ring_avail(rq, rq->cons) : 0;
	const struct pib_recv_wqe *wqe;

	for (i = 0; i < n; i++) {
		wqe = pib_ring_entry(rq, rq->cons + i);
		if (pib_strict_sges_name(wqe->sge, READ_ONCE(wqe->num_sge),
					 qp->rq_max_sge, key)) {
			*wr_id = READ_ONCE(wqe->wr_id);
			return true;
		}
	}
	return false;
}

/**
 * pib_strict_mr_busy() - is an MR being deregistered named by posted work?
 * @dev: the device, in strict mode
 * @mr: the MR
 *
 * Looks at the send and receive WQEs posted and not completed of every QP
 * of the MR's PD (at most a ring's worth each). The deregistration goes
 * on: the work that names the MR fails with a protection error later, as
 * it does on hardware.
 */
void pib_strict_mr_busy(struct pib_dev *dev, struct pib_mr *mr)
{
	u32 key = READ_ONCE(mr->key);
	unsigned long idx, flags;
	struct pib_qp *qp;
	bool sq, rq;
	u64 wr_id;

	rcu_read_lock();
	xa_for_each(&dev->qps, idx, qp) {
		if (qp->ibqp.pd != mr->ibmr.pd)
			continue;
		spin_lock_irqsave(&qp->lock, flags);
		sq = pib_strict_sq_names(qp, key, &wr_id);
		rq = !sq && !qp->srq && pib_strict_rq_names(qp, key, &wr_id);
		spin_unlock_irqrestore(&qp->lock, flags);
		if (sq || rq)
			pib_strict_report(qp, PIB_STRICT_MR_BUSY,
					  "MR with lkey 0x%x deregistered while a posted %s WQE (wr_id 0x%llx) names it: that work fails with a protection error",
					  key, sq ? "send" : "receive", wr_id);
	}
	rcu_read_unlock();
}

/**
 * pib_strict_rkey() - an R_Key that failed: was its MR invalidated?
 * @qp: the responder's QP, its device in strict mode
 * @rkey: the R_Key the request carried
 */
void pib_strict_rkey(struct pib_qp *qp, u32 rkey)
{
	if (pib_mr_key_invalidated(to_pib_dev(qp->ibqp.device), rkey))
		pib_strict_report(qp, PIB_STRICT_RKEY_INVALID,
				  "R_Key 0x%x used after its MR was invalidated (LOCAL_INV or SEND_WITH_INV): remote access error",
				  rkey);
}

/**
 * pib_strict_rd_atomic() - a READ or atomic beyond the responder resources
 * @qp: the responder's QP, its lock held
 * @dup: a duplicate READ or atomic came whose resource a later one took
 *	(else a new one came while every resource was still answering)
 *
 * Either way the requester has had more READs and atomics outstanding
 * than this QP's max_dest_rd_atomic: its max_rd_atomic is above it. A
 * requester within it finds its outstanding ones among the last
 * max_dest_rd_atomic resources when it asks again.
 *
 * Return: true if the request is to be NAK'd (error mode).
 */
bool pib_strict_rd_atomic(struct pib_qp *qp, bool dup)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);

	if (!pib_strict(dev))
		return false;
	pib_strict_report(qp, PIB_STRICT_RD_ATOMIC,
			  "%s, beyond its %u responder resources (max_dest_rd_atomic): the requester's max_rd_atomic is above it; HCAs NAK it or lose the oldest",
			  dup ? "a READ or atomic came again whose resource a later one took" :
				"a READ or atomic came while every resource was answering another",
			  qp->resp.num_res);
	return pib_strict(dev) == PIB_STRICT_ERROR;
}

static ssize_t pib_strict_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pib_dev *dev = file->private_data;
	char buf[8];
	int n;

	n = scnprintf(buf, sizeof(buf), "%s\n",
		      pib_strict_modes[pib_strict(dev)]);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static ssize_t pib_strict_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pib_dev *dev = file->private_data;
	char buf[8];
	int mode;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	mode = match_string(pib_strict_modes, PIB_STRICT_NUM_MODES, strim(buf));
	if (mode < 0)
		return -EINVAL;
	if (mode != pib_strict(dev))
		pr_info("%s: strict mode %s\n", dev_name(&dev->ibdev.dev),
			pib_strict_modes[mode]);
	WRITE_ONCE(dev->strict, mode);
	return count;
}

static const struct file_operations pib_strict_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = pib_strict_read,
	.write = pib_strict_write,
	.llseek = default_llseek,
};

/**
 * pib_strict_dev_add() - the device's strict file
 * @dev: the device, with its debugfs directory
 */
void pib_strict_dev_add(struct pib_dev *dev)
{
	debugfs_create_file("strict", 0600, dev->debugfs, dev, &pib_strict_fops);
}
