// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completer: what comes back to an RC requester (ACKs, NAKs, READ
 * responses, atomic ACKs) completes send WQEs in order, or makes the
 * requester go back and retransmit; the retransmit and RNR timer; send
 * and receive completions, flushing, and the QP's CQ notifications.
 */
#include <rdma/pib-abi.h>

#include "pib.h"
#include "pib_trace.h"

/* Retransmit timeouts shorter than this are lengthened: a soft HCA is slow. */
#define PIB_MIN_TIMEOUT_MS	200
/*
 * Each timeout or sequence NAK in a row doubles the wait, up to this (or
 * the QP's own timeout if longer): a slow or congested peer answers late,
 * and sending the window again early only adds to its load. Any progress
 * starts over from the QP's timeout.
 */
#define PIB_MAX_BACKOFF_MS	4000
/*
 * A requester whose own ODP memory is being faulted in tries again after
 * this long (a jiffy at least): about what a fault of a few pages takes.
 */
#define PIB_ODP_WAIT_US		1000
/* rnr_retry 7: retry forever. */
#define PIB_RNR_INFINITE	7

/* RNR NAK timer values in microseconds (IBA Table 45), by the 5-bit code. */
static const u32 pib_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static struct pib_swqe *pib_sq_st(struct pib_qp *qp, u32 idx)
{
	return &qp->sq.st[idx & (qp->sq.ring.num - 1)];
}

/* Does a send WQE complete to the CQ: did it ask to, or fail? */
static bool pib_sq_wants_cqe(const struct pib_qp *qp,
			     const struct pib_send_wqe *wqe,
			     enum ib_wc_status status)
{
	return status != IB_WC_SUCCESS || qp->sig_all ||
	       (wqe->send_flags & PIB_SEND_SIGNALED);
}

/* Post the completion of a send WQE (the kernel's copy of it). */
static void pib_sq_cqe(struct pib_qp *qp, const struct pib_send_wqe *wqe,
		       const struct pib_swqe *st, enum ib_wc_status status)
{
	struct pib_cqe cqe = {
		.wr_id = wqe->wr_id,
		.status = status,
		.opcode = pib_wqe_wc_opcode(wqe),
		.qp_num = qp->ibqp.qp_num,
	};

	if (pib_wqe_has_response(wqe))
		cqe.byte_len = st->len;
	pib_cq_push(to_pib_cq(qp->ibqp.send_cq), &cqe, qp, false);
}

/**
 * pib_sq_complete() - complete the oldest send WQE
 * @qp: the QP, its lock held
 * @status: its status
 */
void pib_sq_complete(struct pib_qp *qp, enum ib_wc_status status)
{
	struct pib_sq *sq = &qp->sq;
	u32 cons = sq->ring.cons;
	struct pib_send_wqe *wqe = pib_sq_wqe(qp, cons);
	bool cqe = pib_sq_wants_cqe(qp, wqe, status);

	/*
	 * The slot is published free before the completion is: a program
	 * that has polled the completion may post into the slot at once
	 * (perftest keeps its SQ full so), and it would find the SQ full.
	 * The completion is read from the kernel's copy of the WQE, which a
	 * new post cannot touch while the QP's lock is held. Strict error
	 * mode frees the slot of an unsignaled send with the next
	 * completion, as HCAs do: until then the provider sees it used.
	 */
	if (cqe || !pib_strict_holds_sq(qp))
		pib_ring_consume(&sq->ring);
	else
		sq->ring.cons++;
	if (cqe)
		pib_sq_cqe(qp, wqe, pib_sq_st(qp, cons), status);
	if (qp->req.cur == cons) {
		qp->req.cur++;
		qp->req.offset = 0;
	}
}

/**
 * pib_sq_complete_error() - a local error on the WQE at req.cur
 * @qp: the QP, its lock held
 * @status: the error
 *
 * WQEs before it are flushed, it completes with @status, and the QP goes
 * to ERR, which flushes the rest.
 */
void pib_sq_complete_error(struct pib_qp *qp, enum ib_wc_status status)
{
	while (qp->sq.ring.cons != qp->req.cur)
		pib_sq_complete(qp, IB_WC_WR_FLUSH_ERR);
	if (qp->sq.fetched != qp->sq.ring.cons)
		pib_sq_complete(qp, status);
	pib_qp_error(qp);
}

/**
 * pib_rq_cqe() - post the completion of a receive WQE
 * @qp: the QP whose RQ (or SRQ) the WQE came from; an XRC TGT QP's came
 *	from the XRC SRQ of the request in hand (qp->resp.xsrq), whose CQ
 *	takes it
 * @cqe: the completion
 * @solicited: the message asked for a solicited event
 */
void pib_rq_cqe(struct pib_qp *qp, const struct pib_cqe *cqe, bool solicited)
{
	struct ib_cq *cq = qp->resp.xsrq ? qp->resp.xsrq->ibsrq.ext.cq :
					   qp->ibqp.recv_cq;

	if (cq)
		pib_cq_push(to_pib_cq(cq), cqe, qp, solicited);
}

/*
 * The receive WQE an XRC TGT QP had in hand flushed into the CQ of the
 * XRC SRQ it came from, if that is still there. The CQ is a process's
 * (pib_create_srq() makes XRC SRQs for processes only), whose handler
 * only wakes the process: it may run under the QP's lock.
 */
static void pib_xrc_flush_wqe(struct pib_qp *qp, const struct pib_cqe *cqe)
{
	struct pib_srq *srq;

	rcu_read_lock();
	srq = pib_xrc_srq_find(to_pib_dev(qp->ibqp.device), qp->resp.wqe_srqn,
			       qp->xrcd);
	if (srq) {
		pib_cq_push(to_pib_cq(srq->ibsrq.ext.cq), cqe, qp, false);
		pib_cq_notify(to_pib_cq(srq->ibsrq.ext.cq));
	}
	rcu_read_unlock();
}

static void pib_rq_flush_wqe(struct pib_qp *qp, struct pib_recv_wqe *wqe)
{
	struct pib_cqe cqe = {
		.wr_id = wqe->wr_id,
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp_num = qp->ibqp.qp_num,
	};

	/* (not the CQ of the request in hand: it may name another SRQ) */
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		pib_xrc_flush_wqe(qp, &cqe);
	else
		pib_rq_cqe(qp, &cqe, false);
}

/**
 * pib_qp_flush() - complete every outstanding WQE with IB_WC_WR_FLUSH_ERR
 * @qp: the QP, in ERR, its lock held
 *
 * What a user's rings hold is counted once, at most a ring's worth: a
 * thread that keeps moving a producer index must not keep this going with
 * interrupts off. WQEs posted meanwhile wait for the next flush (the next
 * doorbell, post_recv, or modify_qp).
 */
void pib_qp_flush(struct pib_qp *qp)
{
	struct pib_sq *sq = &qp->sq;
	u32 n;

	n = max(pib_ring_avail(&sq->ring, sq->ring.cons),
		sq->fetched - sq->ring.cons);
	for (; n; n--) {
		if (sq->fetched == sq->ring.cons) {
			memcpy(pib_sq_wqe(qp, sq->fetched),
			       pib_ring_entry(&sq->ring, sq->fetched),
			       sq->ring.stride);
			memset(pib_sq_st(qp, sq->fetched), 0, sizeof(*sq->st));
			sq->fetched++;
		}
		pib_sq_complete(qp, IB_WC_WR_FLUSH_ERR);
	}
	sq->fetched = sq->ring.cons;
	qp->req.cur = sq->ring.cons;
	qp->req.started = sq->ring.cons;
	qp->req.offset = 0;
	qp->req.rd_atomic = 0;
	if (qp->resp.have_wqe)
		pib_rq_flush_wqe(qp, qp->resp.wqe);
	qp->resp.have_wqe = false;
	pib_resp_set_msg_state(qp, PIB_RESP_MSG_NONE);
	if (!pib_qp_has_rq(qp))
		return;
	n = pib_ring_avail(&qp->rq, qp->rq.cons);
	for (; n && pib_rq_take(&qp->rq, qp->rq_max_sge, qp->resp.wqe); n--)
		pib_rq_flush_wqe(qp, qp->resp.wqe);
}

/* Raise an affiliated asynchronous event of the QP. No lock held. */
static void pib_qp_event(struct pib_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.event = type,
		.element.qp = &qp->ibqp,
	};

	trace_pib_async_event(qp->ibqp.device, type, qp->ibqp.qp_num);
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * pib_qp_notify_cqs() - raise what the QP's last locked section queued
 * @qp: the QP; no lock held
 *
 * Completion events of its CQs (and CQ overflows), IB_EVENT_SQ_DRAINED
 * IB_EVENT_PATH_MIG and IB_EVENT_QP_FATAL.
 */
void pib_qp_notify_cqs(struct pib_qp *qp)
{
	unsigned long flags;
	bool fatal, drained, mig;

	/* (an XRC TGT QP has no CQ, an XRC INI QP none for receives) */
	if (qp->ibqp.send_cq)
		pib_cq_notify(to_pib_cq(qp->ibqp.send_cq));
	if (qp->ibqp.recv_cq && qp->ibqp.recv_cq != qp->ibqp.send_cq)
		pib_cq_notify(to_pib_cq(qp->ibqp.recv_cq));
	if (!READ_ONCE(qp->req.fatal_pending) &&
	    !READ_ONCE(qp->req.drained_pending) &&
	    !READ_ONCE(qp->req.mig_pending))
		return;
	spin_lock_irqsave(&qp->lock, flags);
	fatal = qp->req.fatal_pending;
	drained = qp->req.drained_pending;
	mig = qp->req.mig_pending;
	qp->req.fatal_pending = false;
	qp->req.drained_pending = false;
	qp->req.mig_pending = false;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (mig)
		pib_qp_event(qp, IB_EVENT_PATH_MIG);
	if (drained)
		pib_qp_event(qp, IB_EVENT_SQ_DRAINED);
	if (fatal)
		pib_qp_event(qp, IB_EVENT_QP_FATAL);
}

/*
 * The retransmit timeout in jiffies, 0 for none (IBA: infinite): the QP's
 * local ACK timeout, doubled for each retry since the last progress
 * (PIB_MAX_BACKOFF_MS).
 */
static unsigned long pib_req_timeout(struct pib_qp *qp)
{
	unsigned long t, cap;
	int tries;
	u64 usecs;

	if (!qp->timeout)
		return 0;
	usecs = (4096ULL << min_t(u8, qp->timeout, 31)) / 1000;
	t = max(usecs_to_jiffies(usecs), msecs_to_jiffies(PIB_MIN_TIMEOUT_MS));
	cap = max(t, msecs_to_jiffies(PIB_MAX_BACKOFF_MS));
	tries = clamp(qp->retry_cnt - qp->req.retry_left, 0, 7);
	return min(t << tries, cap);
}

/*
 * Does the requester wait for its timer to send again (an RNR NAK, an ODP
 * fault)? Then the timer is that wait's, not the retransmit timeout.
 */
static bool pib_req_waiting(struct pib_qp *qp)
{
	return qp->req.state == PIB_REQ_RNR_WAIT ||
	       qp->req.state == PIB_REQ_ODP_WAIT;
}

/*
 * (Re)start the timer for the ACK timeout @t in jiffies (not 0), or for a
 * probe if one would come sooner (pib_rtt.h): none yet since the last
 * progress, and a round-trip estimate to time it by.
 */
static void pib_req_set_timer(struct pib_qp *qp, unsigned long t)
{
	struct pib_req *req = &qp->req;
	u32 us = req->probed ? 0 : pib_rtt_probe_us(&req->rtt);
	unsigned long p = us ? usecs_to_jiffies(us) : 0;

	req->probe_armed = p && p < t;
	mod_timer(&req->timer, jiffies + (req->probe_armed ? p : t));
}

/**
 * pib_req_arm_timer() - start the retransmit timer unless it runs
 * @qp: the QP, its lock held
 */
void pib_req_arm_timer(struct pib_qp *qp)
{
	unsigned long t = pib_req_timeout(qp);

	if (t && !pib_req_waiting(qp) && !timer_pending(&qp->req.timer))
		pib_req_set_timer(qp, t);
}

/**
 * pib_req_odp_wait() - the QP's own ODP memory is being faulted in: send
 *	nothing for a while (PIB_REQ_ODP_WAIT)
 * @qp: the QP, its lock held
 * @rewind: a response could not be placed and was dropped: go back to the
 *	oldest WQE not completed when the wait ends
 *
 * Neither retry count is spent: the fault either brings the pages in or
 * fails, and then the next access fails the WQE (pib_odp.c).
 */
void pib_req_odp_wait(struct pib_qp *qp, bool rewind)
{
	pib_stat_inc(qp->ibqp.device, PIB_STAT_ODP_REQ_FAULTS);
	qp->req.odp_rewind |= rewind;
	if (qp->req.state == PIB_REQ_ODP_WAIT)
		return;
	pib_req_set_state(qp, PIB_REQ_ODP_WAIT);
	qp->req.probe_armed = false;
	mod_timer(&qp->req.timer, jiffies + usecs_to_jiffies(PIB_ODP_WAIT_US));
}

/*
 * Are packets out that the responder has not answered? The WQE being sent
 * counts once a packet of it left.
 */
static bool pib_req_outstanding(struct pib_qp *qp)
{
	return qp->sq.ring.cons != qp->req.cur || qp->req.offset;
}

/**
 * pib_qp_sqd_check() - is the SQ of a QP in SQD drained now?
 * @qp: the QP, its lock held
 *
 * In SQD the requester finishes the message it was sending and starts no
 * other; once every WQE it started has completed, IB_EVENT_SQ_DRAINED is
 * raised if the move to SQD asked for it (IBA 11.6.3), once.
 */
void pib_qp_sqd_check(struct pib_qp *qp)
{
	if (qp->state == IB_QPS_SQD && qp->req.sqd_notify &&
	    (s32)(qp->sq.ring.cons - qp->req.started) >= 0) {
		qp->req.sqd_notify = false;
		qp->req.drained_pending = true;
	}
}

/* Go back to the oldest WQE not completed and send from there again. */
static void pib_req_rewind(struct pib_qp *qp)
{
	struct pib_req *req = &qp->req;
	u32 cons = qp->sq.ring.cons;
	struct pib_swqe *st;
	int d;

	if (!pib_req_outstanding(qp))
		return;
	st = pib_sq_st(qp, cons);
	req->psn = st->first_psn;
	req->offset = 0;
	pib_comp_set_state(qp, PIB_COMP_IN_ORDER);
	/* A READ asks again for what is missing, from its first lost byte. */
	st->resp_start = st->resp_off;
	if (pib_sq_wqe(qp, cons)->opcode == PIB_WR_RDMA_READ) {
		req->psn = (st->first_psn + st->resp_off / qp->mtu) & PIB_PSN_MASK;
		req->offset = st->resp_off;
	}
	/* A SEND or WRITE resumes after its acknowledged packets. */
	d = pib_psn_diff(req->acked_psn, st->first_psn);
	if (!pib_wqe_has_response(pib_sq_wqe(qp, cons)) && d >= 0 &&
	    pib_psn_diff(req->acked_psn, st->last_psn) < 0) {
		req->psn = (req->acked_psn + 1) & PIB_PSN_MASK;
		req->offset = (d + 1) * qp->mtu;
	}
	req->cur = cons;
	req->rd_atomic = 0;
	req->since_ack_req = 0;
	pib_rtt_cancel(&req->rtt);
}

/* The responder made progress: the timer and the retry counts start over. */
static void pib_comp_progress(struct pib_qp *qp)
{
	struct pib_req *req = &qp->req;
	unsigned long t;

	req->retry_left = qp->retry_cnt;
	req->rnr_left = qp->rnr_retry;
	req->probed = false;
	/*
	 * An RNR NAK rewound the requester, which sends again when the RNR
	 * timer fires: with nothing outstanding meanwhile, that timer must
	 * run on, or the requester waits for it for ever.
	 */
	if (pib_req_waiting(qp))
		return;
	t = pib_req_timeout(qp);	/* (no backoff any more) */
	if (!pib_req_outstanding(qp))
		timer_delete(&req->timer);
	else if (t)
		pib_req_set_timer(qp, t);
}

/**
 * pib_comp_advance() - complete the send WQEs that are done, in order
 * @qp: an RC QP, its lock held
 *
 * From the oldest on, up to the first the responder has not acknowledged
 * (or answered in full, for READs and atomics): local WQEs (REG_MR,
 * LOCAL_INV) the requester executed complete here, not before the
 * requests ahead of them (IBA 10.8.3: completions in the order posted).
 */
void pib_comp_advance(struct pib_qp *qp)
{
	struct pib_req *req = &qp->req;
	struct pib_send_wqe *wqe;
	struct pib_swqe *st;

	while (qp->sq.ring.cons != req->cur) {
		wqe = pib_sq_wqe(qp, qp->sq.ring.cons);
		st = pib_sq_st(qp, qp->sq.ring.cons);
		if (st->npkts &&
		    (pib_wqe_has_response(wqe) ? !st->resp_done :
		     pib_psn_diff(req->acked_psn, st->last_psn) < 0))
			break;
		pib_sq_complete(qp, IB_WC_SUCCESS);
	}
	pib_qp_sqd_check(qp);
}

/*
 * Everything up to @psn is acknowledged. Only WQEs the requester moved
 * past can complete, and pib_comp_rcv() took only PSNs that were sent.
 */
static void pib_comp_ack_to(struct pib_qp *qp, u32 psn)
{
	int n = pib_psn_diff(psn, qp->req.acked_psn);
	bool progress = n > 0;

	if (progress) {
		qp->req.acked_psn = psn;
		pib_rtt_acked(&qp->req.rtt, psn, ktime_get_ns());
		pib_cwnd_acked(&qp->req.cwnd, n, psn);
	}
	pib_comp_advance(qp);
	if (progress)
		pib_comp_progress(qp);
}

/* Fail the oldest WQE with @status: the QP goes to ERR. */
static void pib_comp_fail(struct pib_qp *qp, enum ib_wc_status status)
{
	if (pib_req_outstanding(qp))
		pib_sq_complete(qp, status);
	pib_qp_error(qp);
}

static void pib_comp_rnr(struct pib_qp *qp, u8 timer)
{
	struct pib_req *req = &qp->req;

	if (qp->rnr_retry != PIB_RNR_INFINITE && req->rnr_left-- <= 0) {
		pib_comp_fail(qp, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	trace_pib_rnr_wait(qp, pib_rnr_usecs[timer],
			   qp->rnr_retry == PIB_RNR_INFINITE ? -1 : req->rnr_left);
	pib_req_rewind(qp);
	pib_req_set_state(qp, PIB_REQ_RNR_WAIT);
	req->probe_armed = false;
	mod_timer(&req->timer, jiffies + usecs_to_jiffies(pib_rnr_usecs[timer]));
}

/*
 * Retransmit from the oldest WQE, counting against retry_cnt. Each cause
 * is a packet lost on the way: fewer go at once (pib_cwnd.h).
 */
static void pib_comp_retry(struct pib_qp *qp, enum pib_retry_cause cause)
{
	trace_pib_retransmit(qp, cause, qp->req.retry_left - 1);
	pib_cwnd_lost(&qp->req.cwnd, qp->req.sent_psn);
	if (qp->req.retry_left-- <= 0) {
		/*
		 * The primary path failed: an ARMED QP takes the alternate
		 * one, with its retries anew (IBA 17.2.8).
		 */
		if (qp->mig_state != IB_MIG_ARMED) {
			pib_comp_fail(qp, IB_WC_RETRY_EXC_ERR);
			return;
		}
		pib_qp_migrate(qp);
		qp->req.retry_left = qp->retry_cnt;
	}
	pib_req_rewind(qp);
}

/* An ACK or NAK (IBA 9.7.5) with syndrome @syn for @psn. */
static void pib_comp_aeth(struct pib_qp *qp, u32 psn, u8 syn)
{
	static const enum ib_wc_status nak_status[] = {
		[PIB_NAK_INVALID] = IB_WC_REM_INV_REQ_ERR,
		[PIB_NAK_ACCESS] = IB_WC_REM_ACCESS_ERR,
		[PIB_NAK_OPERATIONAL] = IB_WC_REM_OP_ERR,
		[PIB_NAK_INVALID_RD] = IB_WC_REM_INV_RD_REQ_ERR,
	};
	u8 code = pib_aeth_syn_value(syn);

	trace_pib_aeth_rx(qp, psn, syn);
	if (pib_aeth_syn_type(syn) == PIB_AETH_ACK) {
		pib_comp_ack_to(qp, psn);
		return;
	}
	pib_comp_ack_to(qp, (psn - 1) & PIB_PSN_MASK);
	if (!pib_req_outstanding(qp))
		return;		/* a NAK for what completed already */
	if (pib_aeth_syn_type(syn) == PIB_AETH_RNR) {
		pib_stat_inc(qp->ibqp.device, PIB_STAT_RNR_NAKS_RCVD);
		pib_comp_rnr(qp, code);
	} else if (pib_aeth_syn_type(syn) != PIB_AETH_NAK) {
		return;
	} else if (code == PIB_NAK_PSN_SEQ) {
		pib_stat_inc(qp->ibqp.device, PIB_STAT_SEQ_NAKS_RCVD);
		pib_comp_retry(qp, PIB_RETRY_SEQ_NAK);
	} else {
		pib_comp_fail(qp, code < ARRAY_SIZE(nak_status) && nak_status[code] ?
				  nak_status[code] : IB_WC_REM_INV_REQ_ERR);
	}
}

/*
 * Does a response fit where the READ at the head of the SQ stands? Each
 * request's responses start with FIRST (or ONLY) and end with LAST.
 */
static bool pib_comp_read_fits(struct pib_qp *qp, struct pib_swqe *st,
			       const struct pib_pkt *pkt)
{
	u32 f = pib_opcodes[pkt->bth.opcode].flags;
	bool last = f & PIB_OPF_LAST, starts = f & PIB_OPF_FIRST;
	u32 chunk = PIB_READ_CHUNK * qp->mtu;
	u32 end = pib_read_chunk_end(qp->mtu, st->len, st->resp_off);
	u32 n = pkt->payload_len;

	if (starts != (st->resp_off == st->resp_start ||
		       !(st->resp_off % chunk)))
		return false;
	if (last)
		return st->resp_off + n == end;
	return n == qp->mtu && st->resp_off + n < end;
}

/*
 * The READ response without payload that answers a FLUSH or an ATOMIC
 * WRITE: its one PSN, and the resource it took is free.
 */
static void pib_comp_empty(struct pib_qp *qp, struct pib_swqe *st,
			   const struct pib_pkt *pkt)
{
	if (st->resp_done || pkt->bth.psn != st->first_psn ||
	    pib_opcode_rc(pkt->bth.opcode) != IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY ||
	    pkt->payload_len)
		return;
	st->resp_done = true;
	if (qp->req.rd_atomic)
		qp->req.rd_atomic--;
	pib_comp_ack_to(qp, pkt->bth.psn);
	pib_comp_progress(qp);
}

/* A READ response packet. */
static void pib_comp_read(struct pib_qp *qp, const struct pib_pkt *pkt,
			  const u8 *buf)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	u32 psn = pkt->bth.psn, cons = qp->sq.ring.cons;
	struct pib_send_wqe *wqe;
	struct pib_swqe *st;
	bool last;
	int d, err;

	pib_comp_ack_to(qp, (psn - 1) & PIB_PSN_MASK);
	cons = qp->sq.ring.cons;
	/* A READ asked again in part is being sent still: cur == cons. */
	if (!pib_req_outstanding(qp))
		return;
	wqe = pib_sq_wqe(qp, cons);
	st = pib_sq_st(qp, cons);
	if (wqe->opcode == PIB_WR_FLUSH || wqe->opcode == PIB_WR_ATOMIC_WRITE) {
		pib_comp_empty(qp, st, pkt);
		return;
	}
	if (wqe->opcode != PIB_WR_RDMA_READ || st->resp_done)
		return;
	d = pib_psn_diff(psn, st->first_psn + st->resp_off / qp->mtu);
	/* (one was dropped for an ODP fault: the wait ends by asking again) */
	if (d > 0 && qp->req.state == PIB_REQ_ODP_WAIT)
		return;
	if (d > 0) {
		/* Responses were lost: ask again, once until the gap closes. */
		if (qp->req.comp_state != PIB_COMP_READ_GAP) {
			pib_stat_inc(qp->ibqp.device, PIB_STAT_READ_GAPS);
			pib_comp_retry(qp, PIB_RETRY_READ_GAP);
		}
		pib_comp_set_state(qp, PIB_COMP_READ_GAP);
		return;
	}
	if (d < 0 || !pib_comp_read_fits(qp, st, pkt))
		return;
	err = pib_sge_copy(dev, qp->ibqp.pd, PIB_WQE_SGE(wqe), wqe->num_sge,
			   st->resp_off, (void *)(buf + pkt->payload_off),
			   pkt->payload_len, true);
	if (err == -EAGAIN) {
		pib_req_odp_wait(qp, true);
		return;
	}
	if (err) {
		pib_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	st->resp_off += pkt->payload_len;
	pib_comp_set_state(qp, PIB_COMP_IN_ORDER);
	last = pib_opcodes[pkt->bth.opcode].flags & PIB_OPF_LAST;
	if (last && qp->req.rd_atomic)
		qp->req.rd_atomic--;	/* that request's resource is free */
	st->resp_done = st->resp_off == st->len && last;
	/* A response acknowledges every PSN up to its own. */
	pib_comp_ack_to(qp, st->resp_done ? st->last_psn : psn);
	/*
	 * Data that fits is progress even when acked_psn is past it already:
	 * responses beyond a gap, and ACKs of later requests, move acked_psn
	 * over the READ's missing PSNs. Unless the timer and the retry count
	 * start over here, filling a gap larger than a timeout's worth of
	 * packets times out again and again, and the READ fails with
	 * IB_WC_RETRY_EXC_ERR while its data is arriving.
	 */
	pib_comp_progress(qp);
}

/* An atomic ACK: the original value goes to the WQE's buffer. */
static void pib_comp_atomic(struct pib_qp *qp, const struct pib_pkt *pkt,
			    const u8 *buf)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	u32 psn = pkt->bth.psn, cons;
	struct pib_send_wqe *wqe;
	struct pib_swqe *st;
	u64 orig;
	int err;

	pib_comp_ack_to(qp, (psn - 1) & PIB_PSN_MASK);
	cons = qp->sq.ring.cons;
	if (cons == qp->req.cur)
		return;
	wqe = pib_sq_wqe(qp, cons);
	st = pib_sq_st(qp, cons);
	if ((wqe->opcode != PIB_WR_ATOMIC_CMP_AND_SWP &&
	     wqe->opcode != PIB_WR_ATOMIC_FETCH_AND_ADD) ||
	    st->first_psn != psn || st->resp_done)
		return;
	orig = pib_atmack_orig(pib_pkt_ext(buf, pkt, PIB_EXT_ATOMICACKETH));
	err = pib_sge_copy(dev, qp->ibqp.pd, PIB_WQE_SGE(wqe), wqe->num_sge, 0,
			   &orig, sizeof(orig), true);
	if (err == -EAGAIN) {
		/* The responder answers the atomic again from its resource. */
		pib_req_odp_wait(qp, true);
		return;
	}
	if (err) {
		pib_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	st->resp_done = true;
	if (qp->req.rd_atomic)
		qp->req.rd_atomic--;
	pib_comp_ack_to(qp, psn);
	/*
	 * Progress also when acked_psn is past it already (the ACK of a
	 * later request came, this one's was lost), as for READ data in
	 * pib_comp_read(): else the retries spent on it count on for the
	 * next WQE, which can fail with IB_WC_RETRY_EXC_ERR soon after.
	 */
	pib_comp_progress(qp);
}

/*
 * Responses count only for PSNs sent and not yet acknowledged, from the
 * oldest outstanding WQE on: a READ's responses may be asked again from
 * a gap that a later response acknowledged (pib_comp_read()). Older ones
 * are duplicates; newer ones answer what never left (forged, or meant for
 * another QP) and would complete WQEs that were never sent.
 */
static bool pib_comp_psn_ok(struct pib_qp *qp, u32 psn)
{
	struct pib_req *req = &qp->req;
	u32 oldest = pib_req_outstanding(qp) ?
		     pib_sq_st(qp, qp->sq.ring.cons)->first_psn :
		     (req->acked_psn + 1) & PIB_PSN_MASK;

	if (pib_psn_in_window(psn, oldest, req->sent_psn))
		return true;
	if (pib_psn_diff(psn, req->sent_psn) >= 0)
		pib_stat_inc(qp->ibqp.device, PIB_STAT_RESP_PSN_UNSENT);
	return false;
}

/**
 * pib_comp_rcv() - a response packet for an RC requester
 * @qp: the QP
 * @pkt: the parsed packet (an ACK, atomic ACK or READ response)
 * @buf: its bytes
 */
void pib_comp_rcv(struct pib_qp *qp, const struct pib_pkt *pkt, const u8 *buf)
{
	u8 op = pib_opcode_rc(pkt->bth.opcode), syn = 0;
	unsigned long flags;

	/* A READ response MIDDLE has no AETH: it goes to pib_comp_read(). */
	if (pkt->ext & PIB_EXT_AETH)
		syn = pib_aeth_syn(pib_pkt_ext(buf, pkt, PIB_EXT_AETH));
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
		pib_drop(to_pib_dev(qp->ibqp.device), buf, pkt->len,
			 PIB_DROP_QP_STATE, 0);
		goto out;
	}
	if (!pib_comp_psn_ok(qp, pkt->bth.psn))
		goto out;
	if (op == IB_OPCODE_RC_ACKNOWLEDGE)
		pib_comp_aeth(qp, pkt->bth.psn, syn);
	else if (op == IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE)
		pib_comp_atomic(qp, pkt, buf);
	else if (op == IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE ||
		 pib_aeth_syn_type(syn) == PIB_AETH_ACK)
		pib_comp_read(qp, pkt, buf);
	else
		pib_comp_aeth(qp, pkt->bth.psn, syn);
out:
	spin_unlock_irqrestore(&qp->lock, flags);
	pib_qp_notify_cqs(qp);
	/* What the ACK let go leaves now, not after a worker's wake-up. */
	pib_qp_run(qp);
}

/*
 * No ACK for the probe time: go back and send again from the oldest WQE,
 * without spending a retry (pib_rtt.h), and wait for the ACK timeout
 * from now on.
 */
static void pib_req_probe(struct pib_qp *qp)
{
	unsigned long t = pib_req_timeout(qp);

	qp->req.probe_armed = false;
	qp->req.probed = true;
	pib_stat_inc(qp->ibqp.device, PIB_STAT_RETRANSMIT_PROBES);
	trace_pib_retransmit(qp, PIB_RETRY_PROBE, qp->req.retry_left);
	pib_cwnd_lost(&qp->req.cwnd, qp->req.sent_psn);
	pib_req_rewind(qp);
	if (t)
		mod_timer(&qp->req.timer, jiffies + t);
}

/**
 * pib_req_timer() - the retransmit, probe or RNR timer of an RC QP fired
 * @t: the QP's timer
 */
void pib_req_timer(struct timer_list *t)
{
	struct pib_qp *qp = timer_container_of(qp, t, req.timer);
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		goto out;
	kick = true;
	if (qp->req.state == PIB_REQ_ODP_WAIT && qp->req.odp_rewind) {
		qp->req.odp_rewind = false;
		pib_req_rewind(qp);
	}
	if (pib_req_waiting(qp)) {
		pib_req_set_state(qp, PIB_REQ_SENDING);
	} else if (pib_req_outstanding(qp) && qp->req.probe_armed) {
		pib_req_probe(qp);
	} else if (pib_req_outstanding(qp)) {
		pib_stat_inc(qp->ibqp.device, PIB_STAT_RETRANSMIT_TIMEOUTS);
		pib_comp_retry(qp, PIB_RETRY_TIMEOUT);
	}
out:
	spin_unlock_irqrestore(&qp->lock, flags);
	pib_qp_notify_cqs(qp);
	if (kick)
		pib_qp_kick(qp);
}
