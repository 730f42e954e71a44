// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver details for the RDMA core's resource tracker: what iproute2's
 * `rdma resource show qp|cq|mr -dd` prints after the core's own fields,
 * and the same in debugfs lines (pib_debugfs.c).
 *
 * Each callback copies what it shows into a snapshot under the lock the
 * data path takes for those fields, so that the numbers of one line belong
 * together, then drops the lock and writes the snapshot out as netlink
 * attributes through a table of fields. Ring indices that a process can
 * write are read once and not believed beyond the ring's size. The core
 * holds a reference on the object meanwhile: destroy waits for it.
 */
#include <linux/capability.h>
#include <linux/seq_file.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "pib.h"

/*
 * When a field is shown: one bit per condition, and an object shows the
 * fields whose condition its mask has.
 */
enum pib_res_when {
	PIB_RES_ALWAYS,
	PIB_RES_OWN_RQ,		/* a QP with its own RQ, not an SRQ */
	PIB_RES_CONN,		/* an RC or UC QP */
	PIB_RES_RC,		/* an RC QP */
	PIB_RES_ADMIN,		/* the requester may see addresses and keys */
	PIB_RES_FAST_MR,	/* a fast-register MR */
	PIB_RES_ODP_MR,		/* a user MR with on-demand paging */
};

/* How a field is written out. */
enum pib_res_fmt {
	PIB_RES_U32,
	PIB_RES_X32,		/* u32, printed in hex */
	PIB_RES_X64,		/* u64, printed in hex */
	PIB_RES_STR,		/* a const char * to a static name */
};

/**
 * struct pib_res_field - one driver attribute of a snapshot
 * @name: the attribute's name, as `rdma res show -dd` prints it
 * @off: where its value is in the snapshot
 * @fmt: enum pib_res_fmt
 * @when: enum pib_res_when
 */
struct pib_res_field {
	const char *name;
	size_t off;
	u8 fmt;
	u8 when;
};

#define PIB_RES_FIELD(snap, member, fmt, when) \
	{ #member, offsetof(struct snap, member), fmt, when }

/* Write one field of @snap. Return: 0, or -EMSGSIZE if @msg is full. */
static int pib_res_put(struct sk_buff *msg, const void *snap,
		       const struct pib_res_field *f)
{
	const void *v = (const u8 *)snap + f->off;

	switch (f->fmt) {
	case PIB_RES_STR:
		return rdma_nl_put_driver_string(msg, f->name,
						 *(const char * const *)v);
	case PIB_RES_X64:
		return rdma_nl_put_driver_u64_hex(msg, f->name,
						  *(const u64 *)v);
	case PIB_RES_X32:
		return rdma_nl_put_driver_u32_hex(msg, f->name,
						  *(const u32 *)v);
	default:
		return rdma_nl_put_driver_u32(msg, f->name, *(const u32 *)v);
	}
}

/*
 * The fields of @table whose condition is in @when, as the nested
 * RDMA_NLDEV_ATTR_DRIVER table that the rdma tool prints with -dd.
 * Return: 0, or -EMSGSIZE with @msg as it was (the core then sends the
 * object in the next message).
 */
static int pib_res_put_table(struct sk_buff *msg, const void *snap,
			     const struct pib_res_field *table, size_t n,
			     unsigned long when)
{
	struct nlattr *nest = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	size_t i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (!(when & BIT(table[i].when)))
			continue;
		if (pib_res_put(msg, snap, &table[i])) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* The fields of @table whose condition is in @when, as text: " name value". */
static void pib_res_show_table(struct seq_file *m, const void *snap,
			       const struct pib_res_field *table, size_t n,
			       unsigned long when)
{
	const void *v;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(when & BIT(table[i].when)))
			continue;
		v = (const u8 *)snap + table[i].off;
		switch (table[i].fmt) {
		case PIB_RES_STR:
			seq_printf(m, " %s %s", table[i].name,
				   *(const char * const *)v);
			break;
		case PIB_RES_X64:
			seq_printf(m, " %s 0x%llx", table[i].name,
				   *(const u64 *)v);
			break;
		case PIB_RES_X32:
			seq_printf(m, " %s 0x%x", table[i].name,
				   *(const u32 *)v);
			break;
		default:
			seq_printf(m, " %s %u", table[i].name, *(const u32 *)v);
		}
	}
}

/**
 * struct pib_res_qp - what `rdma res show qp -dd` shows of a QP
 * @req_state: the requester's state (enum pib_req_state)
 * @comp_state: the completer's state (enum pib_comp_state)
 * @resp_state: the responder's PSN state (enum pib_resp_state)
 * @resp_msg_state: the message the responder is in (enum pib_resp_msg_state)
 * @sq_depth: SQ entries
 * @sq_fill: WQEs posted to the SQ and not completed
 * @rq_depth: RQ entries
 * @rq_fill: WQEs posted to the RQ and not completed: those in the ring and
 *	the one the responder is filling
 * @next_psn: the PSN the requester sends next (behind @sent_psn after a
 *	go-back)
 * @sent_psn: the PSN after the newest one sent
 * @una_psn: the oldest PSN not acknowledged
 * @epsn: the PSN the responder expects
 * @msn: the responder's message sequence number
 * @rd_atomic: READs and atomics outstanding
 * @max_rd_atomic: READs and atomics the requester may have outstanding
 * @retry_left: retries left after a timeout
 * @rnr_left: retries left after an RNR NAK (7: infinite)
 * @srtt_us: the smoothed round trip, microseconds (0: none measured yet)
 * @probe_us: how long the requester waits for an ACK before it goes back
 *	early (pib_rtt.h; 0: it waits for the ACK timeout)
 * @cwnd: packets the requester may have in flight (halved on each loss)
 * @cwnd_losses: times it was halved
 */
struct pib_res_qp {
	const char *req_state;
	const char *comp_state;
	const char *resp_state;
	const char *resp_msg_state;
	u32 sq_depth;
	u32 sq_fill;
	u32 rq_depth;
	u32 rq_fill;
	u32 next_psn;
	u32 sent_psn;
	u32 una_psn;
	u32 epsn;
	u32 msn;
	u32 rd_atomic;
	u32 max_rd_atomic;
	u32 retry_left;
	u32 rnr_left;
	u32 srtt_us;
	u32 probe_us;
	u32 cwnd;
	u32 cwnd_losses;
};

#define PIB_RES_QP(member, fmt, when) \
	PIB_RES_FIELD(pib_res_qp, member, fmt, when)

static const struct pib_res_field pib_res_qp_fields[] = {
	PIB_RES_QP(req_state, PIB_RES_STR, PIB_RES_RC),
	PIB_RES_QP(comp_state, PIB_RES_STR, PIB_RES_RC),
	PIB_RES_QP(resp_state, PIB_RES_STR, PIB_RES_RC),
	PIB_RES_QP(resp_msg_state, PIB_RES_STR, PIB_RES_CONN),
	PIB_RES_QP(sq_depth, PIB_RES_U32, PIB_RES_ALWAYS),
	PIB_RES_QP(sq_fill, PIB_RES_U32, PIB_RES_ALWAYS),
	PIB_RES_QP(rq_depth, PIB_RES_U32, PIB_RES_OWN_RQ),
	PIB_RES_QP(rq_fill, PIB_RES_U32, PIB_RES_OWN_RQ),
	PIB_RES_QP(next_psn, PIB_RES_U32, PIB_RES_CONN),
	PIB_RES_QP(sent_psn, PIB_RES_U32, PIB_RES_CONN),
	PIB_RES_QP(una_psn, PIB_RES_U32, PIB_RES_RC),
	PIB_RES_QP(epsn, PIB_RES_U32, PIB_RES_CONN),
	PIB_RES_QP(msn, PIB_RES_U32, PIB_RES_RC),
	PIB_RES_QP(rd_atomic, PIB_RES_U32, PIB_RES_RC),
	PIB_RES_QP(max_rd_atomic, PIB_RES_U32, PIB_RES_RC),
	PIB_RES_QP(retry_left, PIB_RES_U32, PIB_RES_RC),
	PIB_RES_QP(rnr_left, PIB_RES_U32, PIB_RES_RC),
	PIB_RES_QP(srtt_us, PIB_RES_U32, PIB_RES_RC),
	PIB_RES_QP(probe_us, PIB_RES_U32, PIB_RES_RC),
	PIB_RES_QP(cwnd, PIB_RES_U32, PIB_RES_RC),
	PIB_RES_QP(cwnd_losses, PIB_RES_U32, PIB_RES_RC),
};

/* The QP's fields, its lock held. */
static void pib_res_qp_read(struct pib_qp *qp, struct pib_res_qp *s)
{
	struct pib_ring *sq = &qp->sq.ring;

	s->req_state = pib_req_state_name(qp->req.state);
	s->comp_state = pib_comp_state_name(qp->req.comp_state);
	s->resp_state = pib_resp_state_name(qp->resp.state);
	s->resp_msg_state = pib_resp_msg_state_name(qp->resp.msg_state);
	/* The SQ's cons is the oldest WQE not completed. */
	s->sq_depth = sq->num;
	s->sq_fill = pib_ring_avail(sq, sq->cons);
	if (pib_qp_has_rq(qp)) {
		s->rq_depth = qp->rq.num;
		s->rq_fill = pib_ring_avail(&qp->rq, qp->rq.cons) +
			     qp->resp.have_wqe;
	}
	s->next_psn = qp->req.psn;
	s->sent_psn = qp->req.sent_psn;
	s->una_psn = (qp->req.acked_psn + 1) & PIB_PSN_MASK;
	s->epsn = qp->resp.epsn;
	s->msn = qp->resp.msn;
	s->rd_atomic = qp->req.rd_atomic;
	s->max_rd_atomic = qp->max_rd_atomic;
	/* The count goes below 0 as the last retry fails. */
	s->retry_left = max(qp->req.retry_left, 0);
	s->rnr_left = max(qp->req.rnr_left, 0);
	s->srtt_us = qp->req.rtt.srtt_us;
	s->probe_us = pib_rtt_probe_us(&qp->req.rtt);
	s->cwnd = qp->req.cwnd.cwnd;
	s->cwnd_losses = qp->req.cwnd.losses;
}

/* A snapshot of the QP under its lock. Return: the conditions it meets. */
static unsigned long pib_res_qp_snap(struct pib_qp *qp, struct pib_res_qp *s)
{
	unsigned long when = BIT(PIB_RES_ALWAYS);
	unsigned long flags;

	if (pib_qp_has_rq(qp))
		when |= BIT(PIB_RES_OWN_RQ);
	if (pib_qp_rc(qp) || qp->ibqp.qp_type == IB_QPT_UC)
		when |= BIT(PIB_RES_CONN);
	if (pib_qp_rc(qp))
		when |= BIT(PIB_RES_RC);
	spin_lock_irqsave(&qp->lock, flags);
	pib_res_qp_read(qp, s);
	spin_unlock_irqrestore(&qp->lock, flags);
	return when;
}

/**
 * pib_fill_res_qp_entry() - a QP's details for the resource tracker
 * @msg: the netlink message the core is filling
 * @ibqp: the QP; the core holds a reference, so destroy waits
 *
 * The transport's states by name, the PSNs, the queues' depth and fill,
 * READs and atomics outstanding, and the retries left; each only for the
 * QP types that have it. Read under the QP's lock, as the data path
 * changes them; written out after it is dropped. An SQ or RQ producer
 * index that claims more WQEs than the ring holds counts as none posted,
 * as the data path takes it (pib_ring_avail()).
 *
 * Return: 0, or -EMSGSIZE if @msg has no room for them.
 */
int pib_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct pib_res_qp s = {};
	unsigned long when = pib_res_qp_snap(to_pib_qp(ibqp), &s);

	return pib_res_put_table(msg, &s, pib_res_qp_fields,
				 ARRAY_SIZE(pib_res_qp_fields), when);
}

/**
 * pib_res_qp_show() - the same details in a debugfs line
 * @m: the line's file
 * @qp: the QP (its table's lock held: destroy waits)
 */
void pib_res_qp_show(struct seq_file *m, struct pib_qp *qp)
{
	struct pib_res_qp s = {};
	unsigned long when = pib_res_qp_snap(qp, &s);

	pib_res_show_table(m, &s, pib_res_qp_fields,
			   ARRAY_SIZE(pib_res_qp_fields), when);
}

static const char * const pib_cq_notify_names[] = {
	[PIB_CQ_DISARMED] = "disarmed",
	[PIB_CQ_NEXT_COMP] = "next_comp",
	[PIB_CQ_NEXT_SOLICITED] = "solicited",
};

/**
 * struct pib_res_cq - what `rdma res show cq -dd` shows of a CQ
 * @notify: what the consumer armed it for (enum pib_cq_notify)
 * @cq_depth: entries the ring holds
 * @cq_fill: completions waiting to be polled
 * @overflowed: 1 if a completion was lost (the CQ is in error)
 */
struct pib_res_cq {
	const char *notify;
	u32 cq_depth;
	u32 cq_fill;
	u32 overflowed;
};

#define PIB_RES_CQ(member, fmt) \
	PIB_RES_FIELD(pib_res_cq, member, fmt, PIB_RES_ALWAYS)

static const struct pib_res_field pib_res_cq_fields[] = {
	PIB_RES_CQ(cq_depth, PIB_RES_U32),
	PIB_RES_CQ(cq_fill, PIB_RES_U32),
	PIB_RES_CQ(overflowed, PIB_RES_U32),
	PIB_RES_CQ(notify, PIB_RES_STR),
};

/* A snapshot of the CQ under its lock. */
static void pib_res_cq_snap(struct pib_cq *cq, struct pib_res_cq *s)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	s->cq_depth = cq->ring.num;
	s->cq_fill = cq->ring.num - pib_ring_room(&cq->ring);
	s->overflowed = cq->overflowed;
	s->notify = pib_name_of(pib_cq_notify_names,
				ARRAY_SIZE(pib_cq_notify_names), cq->notify);
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * pib_fill_res_cq_entry() - a CQ's details for the resource tracker
 * @msg: the netlink message the core is filling
 * @ibcq: the CQ; the core holds a reference, so destroy waits
 *
 * Depth, fill, overflow and armed state, read under the CQ's lock (which
 * resize_cq also takes to swap the ring). A consumer index that claims to
 * be ahead of the kernel, or further behind than the ring holds, counts
 * as a full ring, as the data path takes it (pib_ring_room()).
 *
 * Return: 0, or -EMSGSIZE if @msg has no room for them.
 */
int pib_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct pib_res_cq s;

	pib_res_cq_snap(to_pib_cq(ibcq), &s);
	return pib_res_put_table(msg, &s, pib_res_cq_fields,
				 ARRAY_SIZE(pib_res_cq_fields),
				 BIT(PIB_RES_ALWAYS));
}

/**
 * pib_res_cq_show() - the same details in a debugfs line
 * @m: the line's file
 * @cq: the CQ (its list's lock held: destroy waits)
 */
void pib_res_cq_show(struct seq_file *m, struct pib_cq *cq)
{
	struct pib_res_cq s;

	pib_res_cq_snap(cq, &s);
	pib_res_show_table(m, &s, pib_res_cq_fields,
			   ARRAY_SIZE(pib_res_cq_fields), BIT(PIB_RES_ALWAYS));
}

static const char * const pib_mr_type_names[] = {
	[PIB_MR_DMA] = "dma",
	[PIB_MR_USER] = "user",
	[PIB_MR_FAST] = "fast",
	[PIB_MR_MW] = "mw",
};

/**
 * struct pib_res_mr - what `rdma res show mr -dd` shows of an MR
 * @mr_type: how its addresses become memory (enum pib_mr_type): "user" is
 *	pinned user memory (ib_umem), "mw" a memory window onto a user MR
 * @iova: the address it starts at
 * @access: IB_ACCESS_* flags
 * @key: the key it answers to (pib_mr.key)
 * @valid: 1 if it answers to it (a fast-register MR: registered and not
 *	invalidated)
 * @npages: pages a user MR pinned, or a fast-register MR has mapped
 * @max_pages: pages a fast-register MR can map
 * @odp_faults: faults an ODP MR's work did (pib_odp.c)
 * @odp_fault_errors: those that failed
 * @odp_invalidations: invalidations that took its pages away
 */
struct pib_res_mr {
	const char *mr_type;
	u64 iova;
	u32 access;
	u32 key;
	u32 valid;
	u32 npages;
	u32 max_pages;
	u32 odp_faults;
	u32 odp_fault_errors;
	u32 odp_invalidations;
};

#define PIB_RES_MR(member, fmt, when) \
	PIB_RES_FIELD(pib_res_mr, member, fmt, when)

static const struct pib_res_field pib_res_mr_fields[] = {
	PIB_RES_MR(mr_type, PIB_RES_STR, PIB_RES_ALWAYS),
	PIB_RES_MR(iova, PIB_RES_X64, PIB_RES_ADMIN),
	PIB_RES_MR(access, PIB_RES_X32, PIB_RES_ALWAYS),
	PIB_RES_MR(key, PIB_RES_X32, PIB_RES_ADMIN),
	PIB_RES_MR(valid, PIB_RES_U32, PIB_RES_ALWAYS),
	PIB_RES_MR(npages, PIB_RES_U32, PIB_RES_ALWAYS),
	PIB_RES_MR(max_pages, PIB_RES_U32, PIB_RES_FAST_MR),
	PIB_RES_MR(odp_faults, PIB_RES_U32, PIB_RES_ODP_MR),
	PIB_RES_MR(odp_fault_errors, PIB_RES_U32, PIB_RES_ODP_MR),
	PIB_RES_MR(odp_invalidations, PIB_RES_U32, PIB_RES_ODP_MR),
};

/* A counter of an ODP MR, as a u32 that stops at its largest. */
static u32 pib_res_count(const atomic64_t *c)
{
	return min_t(u64, atomic64_read(c), U32_MAX);
}

/* A snapshot of the MR. Return: the conditions it meets, but ADMIN. */
static unsigned long pib_res_mr_snap(struct pib_mr *mr, struct pib_res_mr *s)
{
	unsigned long when = BIT(PIB_RES_ALWAYS);

	s->mr_type = pib_name_of(pib_mr_type_names,
				 ARRAY_SIZE(pib_mr_type_names), mr->type);
	s->iova = READ_ONCE(mr->ibmr.iova);
	s->access = READ_ONCE(mr->access);
	s->key = READ_ONCE(mr->key);
	s->valid = READ_ONCE(mr->valid);
	if (mr->type == PIB_MR_USER && mr->odp) {
		when |= BIT(PIB_RES_ODP_MR);	/* (it pins no page) */
		s->odp_faults = pib_res_count(&mr->odp->faults);
		s->odp_fault_errors = pib_res_count(&mr->odp->fault_errors);
		s->odp_invalidations = pib_res_count(&mr->odp->invalidations);
	} else if (mr->type == PIB_MR_USER) {
		s->npages = min_t(unsigned long, mr->pin.npages, U32_MAX);
	} else if (mr->type == PIB_MR_FAST) {
		when |= BIT(PIB_RES_FAST_MR);
		s->npages = READ_ONCE(mr->nfast);
		s->max_pages = mr->max_fast;
	}
	return when;
}

/**
 * pib_fill_res_mr_entry() - an MR's details for the resource tracker
 * @msg: the netlink message the core is filling
 * @ibmr: the MR; the core holds a reference, so deregistration waits
 *
 * Type, access, validity and pages. The address and the key only for a
 * requester with CAP_NET_ADMIN, as the core shows lkey and rkey: a key is
 * all a peer needs to reach the memory, and a kernel MR's address is a
 * kernel address. An MR has no lock: REG_MR and LOCAL_INV change a
 * fast-register MR under the lock of the QP that runs them, and the data
 * path reads its key and validity once each (pib_mr_get()), as this does;
 * a line read while a REG_MR runs may show the old access with the new key.
 *
 * Return: 0, or -EMSGSIZE if @msg has no room for them.
 */
int pib_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct pib_res_mr s = {};
	unsigned long when = pib_res_mr_snap(to_pib_mr(ibmr), &s);

	/*
	 * The core's rule for lkey and rkey, which it checks against the
	 * netlink socket; the callback is not told the answer, so it asks
	 * about the task that reads the socket (the requester, for the rdma
	 * tool), without an audit record for a user who may not.
	 */
	if (ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN))
		when |= BIT(PIB_RES_ADMIN);
	return pib_res_put_table(msg, &s, pib_res_mr_fields,
				 ARRAY_SIZE(pib_res_mr_fields), when);
}

/**
 * pib_res_mr_show() - the same details in a debugfs line, address and key
 *	included (debugfs is root's)
 * @m: the line's file
 * @mr: the MR (its table's lock held: deregistration waits)
 */
void pib_res_mr_show(struct seq_file *m, struct pib_mr *mr)
{
	struct pib_res_mr s = {};
	unsigned long when = pib_res_mr_snap(mr, &s);

	pib_res_show_table(m, &s, pib_res_mr_fields,
			   ARRAY_SIZE(pib_res_mr_fields),
			   when | BIT(PIB_RES_ADMIN));
}
