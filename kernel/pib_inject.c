// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Error injection: /sys/kernel/debug/pib/<device>/inject takes one command
 * per write, to see how a program copes with errors a real HCA may give:
 *
 *	qp QPN fatal		the QP goes to the error state with
 *				IB_EVENT_QP_FATAL; its WQEs are flushed
 *	qp QPN drop N		its next N packets out are lost
 *	qp QPN dup N		its next N packets out leave twice
 *	qp QPN corrupt N	its next N packets out leave with a bit
 *				flipped, which the next hop's VCRC check
 *				catches: the packet is lost there
 *	qp QPN delay N MS	its next N packets out are held back MS
 *				milliseconds (1 to 10000): later packets
 *				overtake them
 *	qp QPN nak KIND N	its RC responder answers the next N requests
 *				that start a message with a NAK, instead of
 *				executing them. KIND: rnr, seq (PSN sequence
 *				error), invalid (invalid request), access
 *				(remote access error), operational (remote
 *				operational error). As for a real one, the
 *				last three fail the requester's WQE and put
 *				both QPs in the error state
 *	sl SL drop N		the device's next N packets out with service
 *				level SL are lost (0: none more), as if
 *				the paths on SL failed: for path migration
 *				(SMPs, on VL15, are not: the SM keeps the
 *				port)
 *	cq CQN fatal		IB_EVENT_CQ_ERR; the CQ completes nothing more
 *	srq SRQN fatal		IB_EVENT_SRQ_ERR
 *	verb NAME ERRNO		the device's next call of verb NAME fails
 *				with -ERRNO (NAME: pib_inject_verbs[];
 *				ERRNO a positive number, 12 for ENOMEM)
 *
 * Each packet fault may end in "opcode OP": only packets with that BTH
 * opcode (its IBA name, RC_ACKNOWLEDGE, or its number) count. A QP keeps a
 * check per packet, an atomic read, once it had an injection.
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
/* Words in a command, at most: "qp QPN delay N MS opcode OP". */
#define PIB_INJECT_MAX_ARGS	7
#define PIB_INJECT_MAX_DELAY_MS	10000

/* The verbs whose next call can be made to fail, by enum pib_inject_verb. */
static const char *const pib_inject_verbs[PIB_INJ_NUM_VERBS] = {
	[PIB_INJ_ALLOC_PD] = "alloc_pd",
	[PIB_INJ_CREATE_AH] = "create_ah",
	[PIB_INJ_CREATE_CQ] = "create_cq",
	[PIB_INJ_CREATE_QP] = "create_qp",
	[PIB_INJ_MODIFY_QP] = "modify_qp",
	[PIB_INJ_CREATE_SRQ] = "create_srq",
	[PIB_INJ_REG_MR] = "reg_mr",
	[PIB_INJ_ALLOC_UCONTEXT] = "alloc_ucontext",
	[PIB_INJ_ALLOC_MR] = "alloc_mr",
	[PIB_INJ_ATTACH_MCAST] = "attach_mcast",
	[PIB_INJ_RESIZE_CQ] = "resize_cq",
	[PIB_INJ_MODIFY_SRQ] = "modify_srq",
	[PIB_INJ_POST_SEND] = "post_send",
	[PIB_INJ_POST_RECV] = "post_recv",
	[PIB_INJ_POST_SRQ_RECV] = "post_srq_recv",
};

/* The packet faults of "qp QPN WHAT ...", by enum pib_inject_pkt. */
static const char *const pib_inject_pkts[PIB_INJ_NUM_PKT] = {
	[PIB_INJ_DROP] = "drop",
	[PIB_INJ_DUP] = "dup",
	[PIB_INJ_CORRUPT] = "corrupt",
	[PIB_INJ_DELAY] = "delay",
	[PIB_INJ_NAK] = "nak",
};

/* The NAKs "qp QPN nak KIND N" answers with: KIND and AETH syndrome. */
static const struct {
	const char *name;
	u8 syn;
} pib_inject_naks[] = {
	{ "rnr", PIB_AETH_SYN(PIB_AETH_RNR, 0) },
	{ "seq", PIB_AETH_SYN(PIB_AETH_NAK, PIB_NAK_PSN_SEQ) },
	{ "invalid", PIB_AETH_SYN(PIB_AETH_NAK, PIB_NAK_INVALID) },
	{ "access", PIB_AETH_SYN(PIB_AETH_NAK, PIB_NAK_ACCESS) },
	{ "operational", PIB_AETH_SYN(PIB_AETH_NAK, PIB_NAK_OPERATIONAL) },
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
	return -atomic_xchg(&dev->inject.verb[verb], 0);
}

/* Whether a packet of @opcode is due for fault @f of @qp; counts it. */
static bool pib_inject_due(struct pib_qp *qp, enum pib_inject_pkt f,
			   u8 opcode)
{
	struct pib_qp_fault *fault = &qp->inject[f];
	u16 want;

	if (atomic_read(&fault->left) <= 0)
		return false;
	want = READ_ONCE(fault->opcode);
	if (want != PIB_INJ_ANY_OPCODE && want != opcode)
		return false;
	return atomic_dec_if_positive(&fault->left) >= 0;
}

/* Hold @skb back for @ms milliseconds (pib_inject_delay_work()). */
static void pib_inject_hold(struct pib_dev *dev, struct sk_buff *skb, u32 ms)
{
	struct pib_dev_inject *inj = &dev->inject;
	unsigned long flags, due = jiffies + msecs_to_jiffies(ms);

	pib_skb_cb(skb)->due = due;
	spin_lock_irqsave(&inj->delayq.lock, flags);
	__skb_queue_tail(&inj->delayq, skb);
	if (!inj->armed || time_before(due, inj->next)) {
		inj->armed = true;
		inj->next = due;
		mod_delayed_work(system_wq, &inj->delay_work, due - jiffies);
	}
	spin_unlock_irqrestore(&inj->delayq.lock, flags);
}

/* Send on the held-back packets that are due; wake again for the rest. */
static void pib_inject_delay_work(struct work_struct *work)
{
	struct pib_dev_inject *inj = container_of(to_delayed_work(work),
						  struct pib_dev_inject,
						  delay_work);
	struct pib_dev *dev = container_of(inj, struct pib_dev, inject);
	struct sk_buff *skb, *tmp;
	struct sk_buff_head q;
	unsigned long flags;

	__skb_queue_head_init(&q);
	spin_lock_irqsave(&inj->delayq.lock, flags);
	inj->armed = false;
	skb_queue_walk_safe(&inj->delayq, skb, tmp) {
		unsigned long due = pib_skb_cb(skb)->due;

		if (time_after_eq(jiffies, due)) {
			__skb_unlink(skb, &inj->delayq);
			__skb_queue_tail(&q, skb);
		} else if (!inj->armed || time_before(due, inj->next)) {
			inj->armed = true;
			inj->next = due;
		}
	}
	if (inj->armed)
		mod_delayed_work(system_wq, &inj->delay_work,
				 inj->next - jiffies);
	spin_unlock_irqrestore(&inj->delayq.lock, flags);
	pib_dev_send(dev, &q, false);
}

/* Fault one packet of @qp as @f says. */
static void pib_inject_pkt(struct pib_qp *qp, struct sk_buff_head *q,
			   struct sk_buff *skb, enum pib_inject_pkt f)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	struct sk_buff *dup;

	switch (f) {
	case PIB_INJ_DROP:
		__skb_unlink(skb, q);
		pib_drop(dev, skb->data, skb->len, PIB_DROP_INJECTED, 0);
		kfree_skb(skb);
		return;
	case PIB_INJ_DUP:
		dup = skb_copy(skb, GFP_ATOMIC);
		if (dup)
			__skb_queue_after(q, skb, dup);
		break;
	case PIB_INJ_CORRUPT:
		/* The last byte before the CRCs, which cover it. */
		skb->data[skb->len - PIB_ICRC_LEN - PIB_VCRC_LEN - 1] ^= 0x01;
		pib_skb_cb(skb)->check_crc = true;
		break;
	default:
		__skb_unlink(skb, q);
		pib_inject_hold(dev, skb, READ_ONCE(qp->inject_delay_ms));
		break;
	}
	pib_stat_inc(&dev->ibdev, PIB_STAT_INJECTED_FAULTS);
}

/**
 * pib_inject_tx() - apply a QP's injected packet faults to what it sends
 * @qp: the QP (pib_qp_inject_tx() saw it has faults to inject)
 * @q: its packets, sealed, about to join the port's queue
 *
 * A packet takes at most one fault, the first of enum pib_inject_pkt that
 * is due for its opcode.
 */
void pib_inject_tx(struct pib_qp *qp, struct sk_buff_head *q)
{
	struct sk_buff *skb, *tmp;
	enum pib_inject_pkt f;
	struct pib_pkt pkt;

	skb_queue_walk_safe(q, skb, tmp) {
		if (pib_pkt_locate(skb->data, skb->len, &pkt))
			continue;
		for (f = 0; f < PIB_INJ_NAK; f++) {
			if (pib_inject_due(qp, f, pkt.bth.opcode)) {
				pib_inject_pkt(qp, q, skb, f);
				break;
			}
		}
	}
}

/**
 * pib_inject_nak() - whether an RC responder is to NAK a request
 * @qp: the QP, its lock held
 * @opcode: the request's opcode, of the first packet of a message
 * @syn: set to the AETH syndrome to answer with (an RNR NAK's timer
 *	field is the caller's)
 *
 * Return: true if the request gets the NAK and is not executed.
 */
bool pib_inject_nak(struct pib_qp *qp, u8 opcode, u8 *syn)
{
	if (likely(!READ_ONCE(qp->injecting)) ||
	    !pib_inject_due(qp, PIB_INJ_NAK, opcode))
		return false;
	*syn = READ_ONCE(qp->inject_nak);
	pib_stat_inc(qp->ibqp.device, PIB_STAT_INJECTED_FAULTS);
	return true;
}

/* "opcode OP" at the end of a packet fault: the opcode, or -EINVAL. */
static int pib_inject_opcode(int argc, char **argv)
{
	unsigned int i;
	u8 op;

	if (!argc)
		return PIB_INJ_ANY_OPCODE;
	if (argc != 2 || strcmp(argv[0], "opcode"))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(pib_opcodes); i++)
		if (pib_opcodes[i].name && !strcmp(argv[1], pib_opcodes[i].name))
			return i;
	if (kstrtou8(argv[1], 0, &op) || !pib_opcodes[op].name)
		return -EINVAL;
	return op;
}

/*
 * The arguments of packet fault @f before its count and the count:
 * "N", "N MS" for a delay, "KIND N" for a NAK. Return: words taken, or
 * -EINVAL.
 */
static int pib_inject_args(enum pib_inject_pkt f, int argc, char **argv,
			   u32 *n, u32 *param)
{
	unsigned int i;

	if (f == PIB_INJ_NAK) {
		for (i = 0; i < ARRAY_SIZE(pib_inject_naks); i++)
			if (argc && !strcmp(argv[0], pib_inject_naks[i].name))
				break;
		if (i == ARRAY_SIZE(pib_inject_naks) || argc < 2 ||
		    kstrtou32(argv[1], 0, n))
			return -EINVAL;
		*param = pib_inject_naks[i].syn;
		return 2;
	}
	if (!argc || kstrtou32(argv[0], 0, n))
		return -EINVAL;
	if (f != PIB_INJ_DELAY)
		return 1;
	if (argc < 2 || kstrtou32(argv[1], 0, param) || !*param ||
	    *param > PIB_INJECT_MAX_DELAY_MS)
		return -EINVAL;
	return 2;
}

/* qp QPN FAULT ARGS [opcode OP]: arm fault @f of @qp. */
static int pib_inject_qp_pkt(struct pib_qp *qp, enum pib_inject_pkt f,
			     int argc, char **argv)
{
	u32 n = 0, param = 0;
	int used, opcode;

	used = pib_inject_args(f, argc, argv, &n, &param);
	if (used < 0 || !n || n > INT_MAX)
		return -EINVAL;
	opcode = pib_inject_opcode(argc - used, argv + used);
	if (opcode < 0)
		return opcode;
	if (f == PIB_INJ_NAK && !pib_qp_rc(qp))
		return -EINVAL;
	if (f == PIB_INJ_DELAY)
		WRITE_ONCE(qp->inject_delay_ms, param);
	if (f == PIB_INJ_NAK)
		WRITE_ONCE(qp->inject_nak, param);
	WRITE_ONCE(qp->inject[f].opcode, opcode);
	atomic_set_release(&qp->inject[f].left, n);
	WRITE_ONCE(qp->injecting, true);
	return 0;
}

/* qp QPN fatal: the QP's async error. */
static int pib_inject_qp_fatal(struct pib_qp *qp)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == IB_QPS_RESET)
		err = -EINVAL;	/* no WQE, nothing to fail */
	else
		pib_qp_error(qp);
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!err)
		pib_qp_notify_cqs(qp);
	return err;
}

/* qp QPN fatal | qp QPN FAULT ...: argv[0] is the QPN. */
static int pib_inject_qp(struct pib_dev *dev, int argc, char **argv)
{
	struct pib_qp *qp;
	int f, err;
	u32 qpn;

	if (argc < 2 || kstrtou32(argv[0], 0, &qpn))
		return -EINVAL;
	f = match_string(pib_inject_pkts, PIB_INJ_NUM_PKT, argv[1]);
	if (f < 0 && (strcmp(argv[1], "fatal") || argc != 2))
		return -EINVAL;
	rcu_read_lock();
	qp = qpn >= PIB_NUM_SPECIAL_QPS ? xa_load(&dev->qps, qpn) : NULL;
	if (!qp)
		err = -ENOENT;
	else if (f < 0)
		err = pib_inject_qp_fatal(qp);
	else
		err = pib_inject_qp_pkt(qp, f, argc - 2, argv + 2);
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

/* sl SL drop N */
static int pib_inject_sl(struct pib_dev *dev, int argc, char **argv)
{
	u32 n;
	u8 sl;

	if (argc != 3 || kstrtou8(argv[0], 0, &sl) || sl > 15 ||
	    strcmp(argv[1], "drop") || kstrtou32(argv[2], 0, &n) || n > INT_MAX)
		return -EINVAL;
	atomic_set(&dev->inject.sl_drop[sl], n);
	return 0;
}

/**
 * pib_inject_sl_lost() - is a packet leaving the device lost to an "sl SL
 *	drop N" fault? Counts it.
 * @dev: the device
 * @pkt: the packet, from its LRH
 *
 * Return: true if the caller is to drop it.
 */
bool pib_inject_sl_lost(struct pib_dev *dev, const u8 *pkt)
{
	atomic_t *left = &dev->inject.sl_drop[pib_lrh_sl(pkt)];

	if (likely(atomic_read(left) <= 0) || pib_lrh_vl(pkt) == PIB_VL15 ||
	    atomic_dec_if_positive(left) < 0)
		return false;
	pib_stat_inc(&dev->ibdev, PIB_STAT_INJECTED_FAULTS);
	return true;
}

/* verb NAME ERRNO */
static int pib_inject_verb(struct pib_dev *dev, int argc, char **argv)
{
	u32 err_no;
	int i;

	if (argc != 2 || kstrtou32(argv[1], 0, &err_no) || !err_no ||
	    err_no > MAX_ERRNO)
		return -EINVAL;
	i = match_string(pib_inject_verbs, PIB_INJ_NUM_VERBS, argv[0]);
	if (i < 0)
		return -EINVAL;
	atomic_set(&dev->inject.verb[i], err_no);
	return 0;
}

/* cq CQN fatal, srq SRQN fatal */
static int pib_inject_obj(struct pib_dev *dev, enum rdma_restrack_type type,
			  int argc, char **argv)
{
	u32 id;

	if (argc != 2 || kstrtou32(argv[0], 0, &id) || strcmp(argv[1], "fatal"))
		return -EINVAL;
	return pib_inject_event(dev, type, id);
}

/* Run one command, split into words: OBJECT then its arguments. */
static int pib_inject_cmd(struct pib_dev *dev, int argc, char **argv)
{
	if (!argc)
		return -EINVAL;
	if (!strcmp(argv[0], "qp"))
		return pib_inject_qp(dev, argc - 1, argv + 1);
	if (!strcmp(argv[0], "cq"))
		return pib_inject_obj(dev, RDMA_RESTRACK_CQ, argc - 1, argv + 1);
	if (!strcmp(argv[0], "srq"))
		return pib_inject_obj(dev, RDMA_RESTRACK_SRQ, argc - 1, argv + 1);
	if (!strcmp(argv[0], "verb"))
		return pib_inject_verb(dev, argc - 1, argv + 1);
	if (!strcmp(argv[0], "sl"))
		return pib_inject_sl(dev, argc - 1, argv + 1);
	return -EINVAL;
}

/* Split @cmd into at most PIB_INJECT_MAX_ARGS words. Return: how many. */
static int pib_inject_split(char *cmd, char **argv)
{
	int argc = 0;
	char *word;

	while ((word = strsep(&cmd, " \t"))) {
		if (!*word)
			continue;
		if (argc == PIB_INJECT_MAX_ARGS)
			return -EINVAL;
		argv[argc++] = word;
	}
	return argc;
}

static ssize_t pib_inject_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pib_dev *dev = file->private_data;
	char cmd[PIB_INJECT_CMD_MAX], line[PIB_INJECT_CMD_MAX];
	char *argv[PIB_INJECT_MAX_ARGS], *c;
	int argc, err;

	if (!count || count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	c = strim(cmd);
	strscpy(line, c, sizeof(line));
	argc = pib_inject_split(line, argv);
	err = argc < 0 ? argc : pib_inject_cmd(dev, argc, argv);
	if (err)
		return err;
	pr_info("%s: injected: %s\n", dev_name(&dev->ibdev.dev), c);
	return count;
}

static const struct file_operations pib_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pib_inject_write,
	.llseek = noop_llseek,
};

/**
 * pib_inject_dev_init() - a new device has no fault injected
 * @dev: the device
 */
void pib_inject_dev_init(struct pib_dev *dev)
{
	skb_queue_head_init(&dev->inject.delayq);
	INIT_DELAYED_WORK(&dev->inject.delay_work, pib_inject_delay_work);
}

/**
 * pib_inject_dev_release() - drop the packets a going device holds back
 * @dev: the device; its QPs are gone, so none is held back any more
 */
void pib_inject_dev_release(struct pib_dev *dev)
{
	cancel_delayed_work_sync(&dev->inject.delay_work);
	skb_queue_purge(&dev->inject.delayq);
}

/**
 * pib_inject_dev_add() - the device's inject file
 * @dev: the device, with its debugfs directory
 */
void pib_inject_dev_add(struct pib_dev *dev)
{
	debugfs_create_file("inject", 0200, dev->debugfs, dev, &pib_inject_fops);
}
