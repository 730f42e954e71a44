// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder: RC, XRC and UC requests (SEND, RDMA WRITE, RDMA READ,
 * atomics) with their PSN and opcode sequence checks, ACKs and NAKs,
 * duplicates answered from the responder resources, READ responses sent
 * by the QP's work; and UD datagrams delivered into receive WQEs.
 *
 * An XRC TGT QP is an RC responder whose requests each name an XRC SRQ of
 * its domain (the XRCETH): a SEND takes its receive WQE from that SRQ and
 * completes in the SRQ's CQ, and memory is checked against the SRQ's PD.
 */
#include <linux/skbuff.h>
#include <rdma/pib-abi.h>

#include "pib.h"
#include "pib_trace.h"

#define PIB_UD_GRH_ROOM		40

/* How a request ends: executed, or the NAK (or silence) it gets. */
enum pib_resp_verdict {
	PIB_RESP_OK,
	PIB_RESP_DROP,
	PIB_RESP_RNR,
	PIB_RESP_NAK_SEQ = PIB_AETH_SYN(PIB_AETH_NAK, PIB_NAK_PSN_SEQ),
	PIB_RESP_NAK_INVALID = PIB_AETH_SYN(PIB_AETH_NAK, PIB_NAK_INVALID),
	PIB_RESP_NAK_ACCESS = PIB_AETH_SYN(PIB_AETH_NAK, PIB_NAK_ACCESS),
	PIB_RESP_NAK_OP = PIB_AETH_SYN(PIB_AETH_NAK, PIB_NAK_OPERATIONAL),
	PIB_RESP_NAK_INV_RD = PIB_AETH_SYN(PIB_AETH_NAK, PIB_NAK_INVALID_RD),
};

/*
 * The PD that memory a request names must be in: the QP's, or for an XRC
 * TGT QP the PD of the XRC SRQ the request names.
 */
static struct ib_pd *pib_resp_pd(struct pib_qp *qp)
{
	return qp->resp.xsrq ? qp->resp.xsrq->ibsrq.pd : qp->ibqp.pd;
}

/*
 * What a request opcode does (enum pib_opcode_flags); 0 for a response,
 * which no responder takes. pib_hca_receive() let only opcodes of the
 * QP's transport through.
 */
static u32 pib_rq_flags(u8 op)
{
	u32 f = pib_opcodes[op].flags;

	return f & PIB_OPF_RESP ? 0 : f;
}

/* An ACK, NAK or atomic ACK for @psn onto @q. */
static void pib_resp_ack(struct pib_qp *qp, struct sk_buff_head *q, u32 psn,
			 u8 syn, const u64 *orig)
{
	struct pib_bth bth = {
		.opcode = pib_qp_opcode(qp, orig ? IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE :
						   IB_OPCODE_RC_ACKNOWLEDGE),
		.dest_qp = qp->dest_qpn,
		.psn = psn,
	};
	u32 ext_hdrs = pib_opcodes[bth.opcode].ext;
	struct sk_buff *skb;
	u8 *ext;

	trace_pib_aeth_tx(qp, psn, syn);
	skb = pib_pkt_new(qp, &qp->av, &bth, pib_ext_len(ext_hdrs), 0, &ext);
	if (!skb)
		return;
	pib_aeth_set(pib_ext_at(ext, ext_hdrs, PIB_EXT_AETH), syn,
		     qp->resp.msn);
	if (orig)
		pib_atmack_set(pib_ext_at(ext, ext_hdrs, PIB_EXT_ATOMICACKETH),
			       *orig);
	pib_pkt_finish(skb);
	__skb_queue_tail(q, skb);
}

/*
 * An ACK or NAK for @psn, in PSN order: responses leave in the order of
 * the requests (IBA 9.7.5.1), so behind READ or atomic responses still
 * owed it waits for them. Each one acknowledges every PSN before its own:
 * the latest waiting one stands for those before it, but a duplicate's
 * ACK for an older PSN does not replace a NAK.
 */
static void pib_resp_reply(struct pib_qp *qp, struct sk_buff_head *q, u32 psn,
			   u8 syn)
{
	struct pib_resp *resp = &qp->resp;

	if (resp->res_tail == resp->res_head) {
		pib_resp_ack(qp, q, psn, syn, NULL);
		return;
	}
	if (resp->ack_due && pib_psn_diff(psn, resp->ack_psn) < 0)
		return;
	resp->ack_due = true;
	resp->ack_psn = psn;
	resp->ack_syn = syn;
	resp->reads_due = true;
}

/*
 * The resource of a READ or atomic request, answered in turn by
 * pib_resp_send_due(). Its response acknowledges every PSN before it, so
 * no ACK need wait any more.
 */
static struct pib_rd_res *pib_resp_new_res(struct pib_qp *qp,
					   const struct pib_pkt *pkt, u32 npsn)
{
	struct pib_resp *resp = &qp->resp;
	struct pib_rd_res *res = &resp->res[resp->res_head++ % resp->num_res];

	if (resp->res_head - resp->res_tail > resp->num_res)
		resp->res_tail = resp->res_head - resp->num_res;
	memset(res, 0, sizeof(*res));
	res->opcode = pkt->bth.opcode;
	res->srqn = resp->xsrqn;
	res->psn = pkt->bth.psn;
	res->end_psn = (pkt->bth.psn + npsn) & PIB_PSN_MASK;
	resp->ack_due = false;
	resp->reads_due = true;
	return res;
}

/*
 * Every responder resource holds a READ or atomic not yet answered in
 * full: a new one would take the oldest's place.
 */
static bool pib_resp_res_busy(struct pib_qp *qp)
{
	return qp->resp.res_head - qp->resp.res_tail >= qp->resp.num_res;
}

/* Bytes a receive WQE's SGEs hold (a process's lengths: no u32 sum). */
static u64 pib_recv_wqe_room(const struct pib_recv_wqe *wqe)
{
	u64 room = 0;
	u32 i;

	for (i = 0; i < wqe->num_sge; i++)
		room += wqe->sge[i].length;
	return room;
}

/*
 * The receive WQE of a message: the one in hand, or the next posted (in
 * the XRC SRQ the request names, for an XRC TGT QP).
 */
static bool pib_resp_get_wqe(struct pib_qp *qp)
{
	struct pib_resp *resp = &qp->resp;
	struct pib_srq *srq = resp->xsrq ?: qp->srq;

	if (resp->have_wqe)
		return true;
	resp->have_wqe = srq ? pib_srq_take(srq, resp->wqe) :
			 pib_rq_take(&qp->rq, qp->rq_max_sge, resp->wqe);
	resp->wqe_srqn = resp->xsrqn;
	return resp->have_wqe;
}

/* Complete the receive WQE in hand. */
static void pib_resp_complete(struct pib_qp *qp, const struct pib_pkt *pkt,
			      const u8 *buf, enum ib_wc_status status, u32 f)
{
	struct pib_cqe cqe = {
		.wr_id = qp->resp.wqe->wr_id,
		.status = status,
		.opcode = f & PIB_OPF_WRITE ? IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV,
		.byte_len = qp->resp.offset,
		.qp_num = qp->ibqp.qp_num,
		.src_qp = qp->dest_qpn,
		.slid = pkt->lrh.slid,
		.sl = pkt->lrh.sl,
		.pkey_index = qp->pkey_index,
	};

	/* ImmDt stays in network order, the IETH's R_Key does not. */
	if (status == IB_WC_SUCCESS && f & PIB_OPF_INV) {
		cqe.ex = pib_ieth_rkey(pib_pkt_ext(buf, pkt, PIB_EXT_IETH));
		cqe.wc_flags = PIB_WC_WITH_INV;
	} else if (status == IB_WC_SUCCESS && f & PIB_OPF_IMM) {
		cqe.ex = (__force u32)pib_immdt_get(pib_pkt_ext(buf, pkt,
								PIB_EXT_IMMDT));
		cqe.wc_flags = PIB_WC_WITH_IMM;
	}
	qp->resp.have_wqe = false;
	pib_resp_set_msg_state(qp, PIB_RESP_MSG_NONE);
	pib_rq_cqe(qp, &cqe, pkt->bth.se);
}

/*
 * The packet needs pages of an ODP MR that are being faulted in
 * (pib_odp.c), and was not executed: an RC requester sends it again after
 * an RNR NAK, as to a ConnectX; a UC message is lost, as with a PSN gap.
 * The responder stays as it found it, but a FIRST packet starts nothing.
 */
static enum pib_resp_verdict pib_resp_odp_miss(struct pib_qp *qp, u32 f)
{
	if (!pib_qp_rc(qp) || f & PIB_OPF_FIRST)
		pib_resp_set_msg_state(qp, PIB_RESP_MSG_NONE);
	pib_stat_inc(qp->ibqp.device, PIB_STAT_ODP_RESP_FAULTS);
	return pib_qp_rc(qp) ? PIB_RESP_RNR : PIB_RESP_DROP;
}

/* A SEND packet: its payload into the receive WQE. */
static enum pib_resp_verdict pib_resp_send(struct pib_qp *qp,
					   const struct pib_pkt *pkt,
					   const u8 *buf, u32 f)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	struct pib_resp *resp = &qp->resp;
	struct pib_recv_wqe *wqe = resp->wqe;
	enum ib_wc_status status;
	int err;

	if (f & PIB_OPF_FIRST) {
		if (!pib_resp_get_wqe(qp))
			return pib_qp_rc(qp) ? PIB_RESP_RNR : PIB_RESP_DROP;
		pib_resp_set_msg_state(qp, PIB_RESP_MSG_SEND);
		resp->offset = 0;
	}
	err = pib_sge_copy(dev, pib_resp_pd(qp), wqe->sge, wqe->num_sge,
			   resp->offset, (void *)(buf + pkt->payload_off),
			   pkt->payload_len, true);
	if (err == -EAGAIN)
		return pib_resp_odp_miss(qp, f);
	if (err) {
		status = err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR : IB_WC_LOC_PROT_ERR;
		if (status == IB_WC_LOC_LEN_ERR && unlikely(pib_strict(dev)))
			pib_strict_recv_len(qp, pib_recv_wqe_room(wqe), false, 0);
		pib_resp_complete(qp, pkt, buf, status, f);
		return err == -EMSGSIZE ? PIB_RESP_NAK_INVALID : PIB_RESP_NAK_OP;
	}
	resp->offset += pkt->payload_len;
	if (!(f & PIB_OPF_LAST))
		return PIB_RESP_OK;
	if (f & PIB_OPF_INV &&
	    pib_mr_invalidate(dev, pib_resp_pd(qp),
			      pib_ieth_rkey(pib_pkt_ext(buf, pkt, PIB_EXT_IETH)),
			      qp)) {
		pib_resp_complete(qp, pkt, buf, IB_WC_LOC_PROT_ERR, f);
		return PIB_RESP_NAK_OP;
	}
	pib_resp_complete(qp, pkt, buf, IB_WC_SUCCESS, f);
	return PIB_RESP_OK;
}

/* An RDMA WRITE packet: its payload into the memory the RETH named. */
static enum pib_resp_verdict pib_resp_write(struct pib_qp *qp,
					    const struct pib_pkt *pkt,
					    const u8 *buf, u32 f)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	struct pib_resp *resp = &qp->resp;
	const struct pib_reth *reth;
	u32 n = pkt->payload_len;
	int err;

	if (f & PIB_OPF_FIRST) {
		if (!(qp->access & IB_ACCESS_REMOTE_WRITE))
			return PIB_RESP_NAK_ACCESS;
		reth = pib_pkt_ext(buf, pkt, PIB_EXT_RETH);
		resp->va = pib_reth_va(reth);
		resp->rkey = pib_reth_rkey(reth);
		resp->remaining = pib_reth_len(reth);
		resp->offset = 0;
		pib_resp_set_msg_state(qp, PIB_RESP_MSG_WRITE);
	}
	if (n > resp->remaining || (f & PIB_OPF_LAST && n != resp->remaining))
		return PIB_RESP_NAK_INVALID;
	if (f & PIB_OPF_IMM && !pib_resp_get_wqe(qp)) {
		/*
		 * An RNR NAK'd packet was not executed, and comes again:
		 * the responder stays as it found it. An ONLY packet starts
		 * no message, or its retry is refused as a FIRST in one.
		 */
		if (f & PIB_OPF_FIRST)
			pib_resp_set_msg_state(qp, PIB_RESP_MSG_NONE);
		return pib_qp_rc(qp) ? PIB_RESP_RNR : PIB_RESP_DROP;
	}
	err = n ? pib_mr_copy(dev, pib_resp_pd(qp), resp->rkey, qp, resp->va,
			      (void *)(buf + pkt->payload_off), n,
			      IB_ACCESS_REMOTE_WRITE, true) : 0;
	if (err == -EAGAIN)
		return pib_resp_odp_miss(qp, f);
	if (err) {
		if (unlikely(pib_strict(dev)))
			pib_strict_rkey(qp, resp->rkey);
		return PIB_RESP_NAK_ACCESS;
	}
	resp->va += n;
	resp->remaining -= n;
	resp->offset += n;
	if (!(f & PIB_OPF_LAST))
		return PIB_RESP_OK;
	pib_resp_set_msg_state(qp, PIB_RESP_MSG_NONE);
	if (f & PIB_OPF_IMM)
		pib_resp_complete(qp, pkt, buf, IB_WC_SUCCESS, f);
	return PIB_RESP_OK;
}

/* A READ request: a resource that the QP's work answers from. */
static enum pib_resp_verdict pib_resp_read(struct pib_qp *qp,
					   const struct pib_pkt *pkt,
					   const u8 *buf)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	const struct pib_reth *reth = pib_pkt_ext(buf, pkt, PIB_EXT_RETH);
	u64 va = pib_reth_va(reth);
	u32 rkey = pib_reth_rkey(reth), len = pib_reth_len(reth);
	struct pib_rd_res *res;
	int err;

	if (!(qp->access & IB_ACCESS_REMOTE_READ))
		return PIB_RESP_NAK_ACCESS;
	if (len > PIB_MAX_MSG)
		return PIB_RESP_NAK_INVALID;
	err = len ? pib_mr_check(dev, pib_resp_pd(qp), rkey, qp, va, len,
				 IB_ACCESS_REMOTE_READ | PIB_ACCESS_RESIDENT) : 0;
	if (err == -EAGAIN)
		return pib_resp_odp_miss(qp, PIB_OPF_FIRST);
	if (err) {
		if (unlikely(pib_strict(dev)))
			pib_strict_rkey(qp, rkey);
		return PIB_RESP_NAK_ACCESS;
	}
	if (pib_resp_res_busy(qp) && pib_strict_rd_atomic(qp, false))
		return PIB_RESP_NAK_INVALID;
	res = pib_resp_new_res(qp, pkt,
			       max_t(u32, DIV_ROUND_UP(len, qp->mtu), 1));
	res->va = va;
	res->rkey = rkey;
	res->len = len;
	return PIB_RESP_OK;
}

/* An atomic request: done now, its result kept for its ACK and a duplicate. */
static enum pib_resp_verdict pib_resp_atomic(struct pib_qp *qp,
					     const struct pib_pkt *pkt,
					     const u8 *buf)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	const struct pib_atmeth *eth = pib_pkt_ext(buf, pkt, PIB_EXT_ATOMICETH);
	bool cas = pib_opcode_rc(pkt->bth.opcode) == IB_OPCODE_RC_COMPARE_SWAP;
	u64 swap_add = pib_atmeth_swap_add(eth), cmp = pib_atmeth_compare(eth);
	u64 orig;
	int err;

	if (!(qp->access & IB_ACCESS_REMOTE_ATOMIC))
		return PIB_RESP_NAK_ACCESS;
	if (pib_resp_res_busy(qp) && pib_strict_rd_atomic(qp, false))
		return PIB_RESP_NAK_INVALID;
	err = pib_mr_atomic(dev, pib_resp_pd(qp), pib_atmeth_rkey(eth), qp,
			    pib_atmeth_va(eth), cas, cas ? cmp : swap_add,
			    swap_add, &orig);
	if (err == -EAGAIN)
		return pib_resp_odp_miss(qp, PIB_OPF_FIRST);
	if (err == -EACCES && unlikely(pib_strict(dev)))
		pib_strict_rkey(qp, pib_atmeth_rkey(eth));
	if (err)
		return err == -EINVAL ? PIB_RESP_NAK_INVALID : PIB_RESP_NAK_ACCESS;
	pib_resp_new_res(qp, pkt, 1)->orig = orig;
	return PIB_RESP_OK;
}

/*
 * A FLUSH (IBA 1.5, A19.4.1): the memory it names must allow each
 * placement its type asks for, as the QP must. pib's memory is the host's
 * RAM, written by the CPU before the request is answered: a barrier makes
 * it globally visible. Persistence needs memory no MR of pib's has
 * (pib_mr.c refuses IB_ACCESS_FLUSH_PERSISTENT). Answered, as a READ of
 * nothing, by pib_resp_send_due().
 */
static enum pib_resp_verdict pib_resp_flush(struct pib_qp *qp,
					    const struct pib_pkt *pkt,
					    const u8 *buf)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	const struct pib_feth *feth = pib_pkt_ext(buf, pkt, PIB_EXT_FETH);
	const struct pib_reth *reth = pib_pkt_ext(buf, pkt, PIB_EXT_RETH);
	u8 type = pib_feth_type(feth);
	u32 rkey = pib_reth_rkey(reth), len = pib_reth_len(reth);
	int access = (type & PIB_FLUSH_GLOBAL ? IB_ACCESS_FLUSH_GLOBAL : 0) |
		     (type & PIB_FLUSH_PERSISTENT ? IB_ACCESS_FLUSH_PERSISTENT : 0);
	int err;

	if (pib_feth_bad(feth))
		return PIB_RESP_NAK_INVALID;
	if ((qp->access & access) != access)
		return PIB_RESP_NAK_ACCESS;
	if (pib_resp_res_busy(qp) && pib_strict_rd_atomic(qp, false))
		return PIB_RESP_NAK_INVALID;
	err = pib_feth_level(feth) == PIB_FLUSH_MR ?
	      pib_mr_check_key(dev, pib_resp_pd(qp), rkey, access) :
	      pib_mr_check(dev, pib_resp_pd(qp), rkey, qp, pib_reth_va(reth),
			   len, access);
	if (err) {
		if (unlikely(pib_strict(dev)))
			pib_strict_rkey(qp, rkey);
		return PIB_RESP_NAK_ACCESS;
	}
	/* What the requests before it wrote is visible before its answer. */
	smp_wmb();
	pib_resp_new_res(qp, pkt, 1);
	return PIB_RESP_OK;
}

/*
 * An ATOMIC WRITE (IBA 1.5, A19.4.2): 8 bytes to an aligned address at
 * once, with remote write access; answered as a READ of nothing.
 */
static enum pib_resp_verdict pib_resp_atomic_write(struct pib_qp *qp,
						   const struct pib_pkt *pkt,
						   const u8 *buf)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	const struct pib_reth *reth = pib_pkt_ext(buf, pkt, PIB_EXT_RETH);
	u32 rkey = pib_reth_rkey(reth);
	u64 val;
	int err;

	if (!(qp->access & IB_ACCESS_REMOTE_WRITE))
		return PIB_RESP_NAK_ACCESS;
	/* oA19-28: exactly 8 bytes */
	if (pib_reth_len(reth) != sizeof(val) || pkt->payload_len != sizeof(val))
		return PIB_RESP_NAK_INVALID;
	if (pib_resp_res_busy(qp) && pib_strict_rd_atomic(qp, false))
		return PIB_RESP_NAK_INVALID;
	memcpy(&val, buf + pkt->payload_off, sizeof(val));
	err = pib_mr_atomic_write(dev, pib_resp_pd(qp), rkey, qp,
				  pib_reth_va(reth), val);
	if (err == -EAGAIN)
		return pib_resp_odp_miss(qp, PIB_OPF_FIRST);
	if (err == -EACCES && unlikely(pib_strict(dev)))
		pib_strict_rkey(qp, rkey);
	if (err)
		return err == -EINVAL ? PIB_RESP_NAK_INVALID : PIB_RESP_NAK_ACCESS;
	pib_resp_new_res(qp, pkt, 1);
	return PIB_RESP_OK;
}

/*
 * An XRC TGT QP's request must name an XRC SRQ of its domain, and every
 * packet of a SEND the one its receive WQE came from.
 */
static enum pib_resp_verdict pib_resp_xrc_check(struct pib_qp *qp, u32 f)
{
	struct pib_resp *resp = &qp->resp;

	if (!resp->xsrq)
		return PIB_RESP_NAK_INV_RD;
	if (f & PIB_OPF_SEND && !(f & PIB_OPF_FIRST) &&
	    resp->wqe_srqn != resp->xsrqn)
		return PIB_RESP_NAK_INVALID;
	return PIB_RESP_OK;
}

/* Check the opcode sequence, then execute a request whose PSN is due. */
static enum pib_resp_verdict pib_resp_execute(struct pib_qp *qp,
					      const struct pib_pkt *pkt,
					      const u8 *buf, u32 f)
{
	struct pib_resp *resp = &qp->resp;
	bool rc = pib_qp_rc(qp);
	enum pib_resp_verdict v;

	if (!f)
		return rc ? PIB_RESP_NAK_INVALID : PIB_RESP_DROP;
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT) {
		v = pib_resp_xrc_check(qp, f);
		if (v != PIB_RESP_OK)
			return v;
	}
	if (f & PIB_OPF_FIRST && resp->msg_state != PIB_RESP_MSG_NONE) {
		if (rc)
			return PIB_RESP_NAK_INVALID;
		/* UC: the last message lost its end */
		pib_resp_set_msg_state(qp, PIB_RESP_MSG_NONE);
	}
	if (!(f & PIB_OPF_FIRST) &&
	    resp->msg_state != (f & PIB_OPF_WRITE ? PIB_RESP_MSG_WRITE :
						    PIB_RESP_MSG_SEND))
		return rc ? PIB_RESP_NAK_INVALID : PIB_RESP_DROP;
	if (f & PIB_OPF_SEND)
		return pib_resp_send(qp, pkt, buf, f);
	if (f & PIB_OPF_WRITE)
		return pib_resp_write(qp, pkt, buf, f);
	if (f & PIB_OPF_READ)
		return pib_resp_read(qp, pkt, buf);
	if (f & PIB_OPF_FLUSH)
		return pib_resp_flush(qp, pkt, buf);
	if (f & PIB_OPF_ATOMIC_WRITE)
		return pib_resp_atomic_write(qp, pkt, buf);
	return pib_resp_atomic(qp, pkt, buf);
}

/* The resource of a READ or atomic request with PSN @psn, or NULL. */
static struct pib_rd_res *pib_resp_find_res(struct pib_qp *qp, u32 psn,
					    u32 *idx)
{
	struct pib_resp *resp = &qp->resp;
	struct pib_rd_res *res;
	u32 i;

	for (i = resp->res_head; resp->res_head - i < resp->num_res; i--) {
		res = &resp->res[(i - 1) % resp->num_res];
		if (!res->opcode)
			break;
		if (pib_psn_diff(psn, res->psn) >= 0 &&
		    pib_psn_diff(psn, res->end_psn) < 0) {
			*idx = i - 1;
			return res;
		}
	}
	return NULL;
}

/*
 * A request with a PSN before the expected one (IBA 9.7.5.1.1): READs
 * are answered again, atomics get their saved result, FLUSHes and ATOMIC
 * WRITEs their empty READ response (not executed again: oA19-14), in turn
 * with the responses owed; the rest an ACK.
 */
static void pib_resp_duplicate(struct pib_qp *qp, const struct pib_pkt *pkt,
			       u32 f, struct sk_buff_head *q)
{
	struct pib_resp *resp = &qp->resp;
	struct pib_rd_res *res;
	u32 idx;

	if (!(f & PIB_OPF_RD_RES)) {
		if (pkt->bth.ack_req)
			pib_resp_reply(qp, q, (resp->epsn - 1) & PIB_PSN_MASK,
				       PIB_AETH_SYN_ACK);
		return;
	}
	res = pib_resp_find_res(qp, pkt->bth.psn, &idx);
	if (!res && pib_strict_rd_atomic(qp, true)) {
		pib_resp_ack(qp, q, pkt->bth.psn, PIB_RESP_NAK_INVALID, NULL);
		pib_qp_error(qp);
		return;
	}
	if (!res || res->opcode != pkt->bth.opcode)
		return;
	if (f & PIB_OPF_READ) {
		res->sent = ((pkt->bth.psn - res->psn) & PIB_PSN_MASK) * qp->mtu;
		if (res->sent > res->len)
			res->sent = 0;
		res->start = res->sent;
	}
	res->done = false;
	if ((s32)(resp->res_tail - idx) > 0)
		resp->res_tail = idx;
	resp->reads_due = true;
}

/* The end of an executed request: PSN, MSN, and the ACK it asks for. */
static void pib_resp_done(struct pib_qp *qp, const struct pib_pkt *pkt, u32 f,
			  struct sk_buff_head *q)
{
	struct pib_resp *resp = &qp->resp;

	resp->epsn = (pkt->bth.psn + 1) & PIB_PSN_MASK;
	if (f & PIB_OPF_LAST)
		resp->msn = (resp->msn + 1) & PIB_PSN_MASK;
	if (!pib_qp_rc(qp))
		return;
	/* What a resource holds is answered by pib_resp_send_due(). */
	if (f & PIB_OPF_READ)
		resp->epsn = resp->res[(resp->res_head - 1) % resp->num_res].end_psn;
	else if (!(f & PIB_OPF_RD_RES) && pkt->bth.ack_req)
		pib_resp_reply(qp, q, pkt->bth.psn, PIB_AETH_SYN_ACK);
}

/* A PSN sequence error NAK for the expected PSN, once until it comes. */
static void pib_resp_seq_nak(struct pib_qp *qp, struct sk_buff_head *q)
{
	if (qp->resp.state != PIB_RESP_SEQ_NAK_SENT) {
		pib_stat_inc(qp->ibqp.device, PIB_STAT_SEQ_NAKS_SENT);
		pib_resp_reply(qp, q, qp->resp.epsn, PIB_RESP_NAK_SEQ);
	}
	pib_resp_set_state(qp, PIB_RESP_SEQ_NAK_SENT);
}

/*
 * The verdict on a request with the expected PSN: its execution's, or a
 * NAK injected for the first packet of a message (pib_inject.c).
 */
static enum pib_resp_verdict pib_resp_verdict(struct pib_qp *qp,
					      const struct pib_pkt *pkt,
					      const u8 *buf, u32 f)
{
	u8 syn;

	if (!(f & PIB_OPF_FIRST) || !pib_inject_nak(qp, pkt->bth.opcode, &syn))
		return pib_resp_execute(qp, pkt, buf, f);
	return pib_aeth_syn_type(syn) == PIB_AETH_RNR ? PIB_RESP_RNR : syn;
}

/* An RC request: PSN check (IBA 9.7.5.1), execution, ACK or NAK. */
static void pib_resp_rc(struct pib_qp *qp, const struct pib_pkt *pkt,
			const u8 *buf, struct sk_buff_head *q)
{
	struct pib_resp *resp = &qp->resp;
	u32 f = pib_rq_flags(pkt->bth.opcode);
	enum pib_resp_verdict v;
	int d = pib_psn_diff(pkt->bth.psn, resp->epsn);

	if (d < 0) {
		pib_stat_inc(qp->ibqp.device, PIB_STAT_DUP_REQUESTS);
		pib_resp_duplicate(qp, pkt, f, q);
		return;
	}
	if (d > 0) {
		pib_resp_seq_nak(qp, q);
		return;
	}
	pib_resp_set_state(qp, PIB_RESP_IN_ORDER);
	v = pib_resp_verdict(qp, pkt, buf, f);
	switch (v) {
	case PIB_RESP_OK:
		pib_resp_done(qp, pkt, f, q);
		return;
	case PIB_RESP_DROP:
		return;
	case PIB_RESP_NAK_SEQ:
		pib_resp_seq_nak(qp, q);
		return;
	case PIB_RESP_RNR:
		pib_stat_inc(qp->ibqp.device, PIB_STAT_RNR_NAKS_SENT);
		pib_resp_reply(qp, q, resp->epsn,
			       PIB_AETH_SYN(PIB_AETH_RNR, qp->min_rnr_timer));
		return;
	default:
		/*
		 * The requester fails the message; so does this QP, which
		 * sends no response it still owes: the NAK leaves now.
		 */
		pib_resp_ack(qp, q, resp->epsn, v, NULL);
		pib_qp_error(qp);
	}
}

/* A UC request: a PSN gap loses the message in progress (IBA 9.8.3). */
static void pib_resp_uc(struct pib_qp *qp, const struct pib_pkt *pkt,
			const u8 *buf)
{
	struct pib_resp *resp = &qp->resp;
	u32 f = pib_rq_flags(pkt->bth.opcode);

	if (pkt->bth.psn != resp->epsn) {
		pib_resp_set_msg_state(qp, PIB_RESP_MSG_NONE);
		resp->epsn = pkt->bth.psn;
	}
	resp->epsn = (pkt->bth.psn + 1) & PIB_PSN_MASK;
	if (pib_resp_execute(qp, pkt, buf, f) == PIB_RESP_OK && f & PIB_OPF_LAST)
		resp->msn = (resp->msn + 1) & PIB_PSN_MASK;
}

static bool pib_resp_ready(struct pib_qp *qp)
{
	return qp->state == IB_QPS_RTR || qp->state == IB_QPS_RTS ||
	       qp->state == IB_QPS_SQD || qp->state == IB_QPS_SQE;
}

/*
 * The XRC SRQ of the domain of XRC TGT QP @qp that the request's XRCETH
 * names (NULL if none), and its number; under RCU.
 */
static struct pib_srq *pib_resp_xrc_srq(struct pib_qp *qp,
					const struct pib_pkt *pkt,
					const u8 *buf, u32 *srqn)
{
	*srqn = pib_xrceth_srqn(pib_pkt_ext(buf, pkt, PIB_EXT_XRCETH));
	return pib_xrc_srq_find(to_pib_dev(qp->ibqp.device), *srqn, qp->xrcd);
}

/**
 * pib_resp_rcv() - a request packet for an RC, XRC TGT or UC QP
 * @qp: the QP
 * @pkt: the parsed packet
 * @buf: its bytes
 */
void pib_resp_rcv(struct pib_qp *qp, const struct pib_pkt *pkt, const u8 *buf)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	struct pib_srq *xsrq = NULL;
	struct sk_buff_head q;
	unsigned long flags;
	bool reads, queued;
	u32 srqn = 0;

	__skb_queue_head_init(&q);
	rcu_read_lock();
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		xsrq = pib_resp_xrc_srq(qp, pkt, buf, &srqn);
	spin_lock_irqsave(&qp->lock, flags);
	qp->resp.xsrq = xsrq;
	qp->resp.xsrqn = srqn;
	if (!pib_resp_ready(qp))
		pib_drop(dev, buf, pkt->len, PIB_DROP_QP_STATE, 0);
	else if (pib_qp_rc(qp))
		pib_resp_rc(qp, pkt, buf, &q);
	else
		pib_resp_uc(qp, pkt, buf);
	qp->resp.xsrq = NULL;
	reads = qp->resp.reads_due;
	qp->resp.reads_due = false;
	/* (under the lock: the QP's work may be answering for it too) */
	pib_qp_inject_tx(qp, &q);
	queued = pib_dev_queue(dev, &q, true);
	spin_unlock_irqrestore(&qp->lock, flags);
	if (queued)
		pib_dev_tx_kick(dev);
	if (xsrq)
		pib_cq_notify(to_pib_cq(xsrq->ibsrq.ext.cq));
	rcu_read_unlock();
	pib_qp_notify_cqs(qp);
	/* Responses leave now, not after a worker's wake-up. */
	if (reads)
		pib_qp_run(qp);
}

/*
 * The PD of a READ's memory: the QP's, or that of the XRC SRQ the request
 * named, if it is still there (under RCU).
 */
static struct ib_pd *pib_resp_res_pd(struct pib_qp *qp,
				     const struct pib_rd_res *res)
{
	struct pib_srq *srq;

	if (qp->ibqp.qp_type != IB_QPT_XRC_TGT)
		return qp->ibqp.pd;
	srq = pib_xrc_srq_find(to_pib_dev(qp->ibqp.device), res->srqn,
			       qp->xrcd);
	return srq ? srq->ibsrq.pd : NULL;
}

/*
 * The next packet of a READ response. Return: 0 (also when out of memory:
 * the QP's work tries again), -EAGAIN if an ODP page is being faulted in,
 * or another error if the memory went away.
 */
static int pib_resp_read_packet(struct pib_qp *qp, struct pib_rd_res *res,
				struct sk_buff_head *q)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	u32 n = min(res->len - res->sent, qp->mtu);
	bool first = res->sent == res->start, last = res->sent + n >= res->len;
	struct pib_bth bth = {
		.opcode = pib_qp_opcode(qp, first && last ?
					IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY :
					first ? IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST :
					last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST :
					IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE),
		.dest_qp = qp->dest_qpn,
		.psn = (res->psn + res->sent / qp->mtu) & PIB_PSN_MASK,
	};
	u32 ext_hdrs = pib_opcodes[bth.opcode].ext;
	u32 ext_len = pib_ext_len(ext_hdrs);
	struct sk_buff *skb;
	int err = 0;
	u8 *ext;

	skb = pib_pkt_new(qp, &qp->av, &bth, ext_len, n, &ext);
	if (!skb)
		return 0;
	if (ext_hdrs & PIB_EXT_AETH)
		pib_aeth_set(pib_ext_at(ext, ext_hdrs, PIB_EXT_AETH),
			     PIB_AETH_SYN_ACK, qp->resp.msn);
	rcu_read_lock();
	if (n)
		err = pib_mr_copy(dev, pib_resp_res_pd(qp, res), res->rkey, qp,
				  res->va + res->sent, ext + ext_len, n,
				  IB_ACCESS_REMOTE_READ, false);
	rcu_read_unlock();
	if (err) {
		kfree_skb(skb);
		return err;
	}
	pib_pkt_finish(skb);
	__skb_queue_tail(q, skb);
	res->sent += n;
	if (last) {
		res->done = true;
		qp->resp.res_tail++;
	}
	return 0;
}

/**
 * pib_resp_send_due() - answer the requests that hold responder resources
 *	(READ, atomics, FLUSH, ATOMIC WRITE), from the QP's work
 * @qp: the QP, its lock held
 * @q: where the packets go
 * @budget: packets at most
 *
 * The responses leave in the order of the requests, and then the ACK or
 * NAK that waited behind them (pib_resp_reply()).
 *
 * Return: true if there is more to send.
 */
bool pib_resp_send_due(struct pib_qp *qp, struct sk_buff_head *q, int budget)
{
	struct pib_resp *resp = &qp->resp;
	struct pib_rd_res *res;
	int err;

	if (!pib_qp_rc(qp) || !pib_resp_ready(qp))
		return false;
	while (resp->res_tail != resp->res_head && budget-- > 0) {
		res = &resp->res[resp->res_tail % resp->num_res];
		if (res->done) {
			resp->res_tail++;
			continue;
		}
		if (pib_opcodes[res->opcode].flags & PIB_OPF_ATOMIC) {
			pib_resp_ack(qp, q, res->psn, PIB_AETH_SYN_ACK,
				     &res->orig);
			res->done = true;
			resp->res_tail++;
			continue;
		}
		err = pib_resp_read_packet(qp, res, q);
		if (err == -EAGAIN) {
			/*
			 * An ODP page went away since the request came: the
			 * rest is lost, and the requester asks for it again
			 * (pib_resp_duplicate()) once it is faulted in.
			 */
			res->done = true;
			resp->res_tail++;
		} else if (err) {
			pib_resp_ack(qp, q, res->psn, PIB_RESP_NAK_ACCESS, NULL);
			pib_qp_error(qp);
			return false;
		}
	}
	if (resp->res_tail != resp->res_head)
		return true;
	if (resp->ack_due) {
		resp->ack_due = false;
		pib_resp_ack(qp, q, resp->ack_psn, resp->ack_syn, NULL);
	}
	return false;
}

/* Scatter a UD datagram (behind room for a GRH) into the receive WQE. */
static int pib_resp_ud_scatter(struct pib_qp *qp, const struct pib_pkt *pkt,
			       const u8 *buf)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	struct pib_recv_wqe *wqe = qp->resp.wqe;
	u64 room = pib_recv_wqe_room(wqe);
	int err = 0;

	if (room < PIB_UD_GRH_ROOM + pkt->payload_len) {
		if (unlikely(pib_strict(dev)))
			pib_strict_recv_len(qp, room, true, pkt->payload_len);
		return -EMSGSIZE;
	}
	if (pkt->lrh.lnh == PIB_LNH_IBA_GLOBAL)
		err = pib_sge_copy(dev, qp->ibqp.pd, wqe->sge, wqe->num_sge, 0,
				   (void *)(buf + PIB_LRH_LEN), PIB_GRH_LEN,
				   true);
	if (!err)
		err = pib_sge_copy(dev, qp->ibqp.pd, wqe->sge, wqe->num_sge,
				   PIB_UD_GRH_ROOM,
				   (void *)(buf + pkt->payload_off),
				   pkt->payload_len, true);
	return err;
}

/**
 * pib_resp_ud() - hand a UD datagram to a UD, SMI or GSI QP
 * @qp: the QP
 * @pkt: the parsed packet
 * @buf: its bytes
 * @dlid_path_bits: the DLID's bits below the port's LMC
 * @pkey_index: the index of the packet's P_Key in the port's table
 *
 * Datagrams for a QP that is not ready, with another Q_Key, or with no
 * receive WQE posted are dropped, as UD allows (pib_drop()).
 */
void pib_resp_ud(struct pib_qp *qp, const struct pib_pkt *pkt, const u8 *buf,
		 u8 dlid_path_bits, u16 pkey_index)
{
	const struct pib_deth *deth = pib_pkt_ext(buf, pkt, PIB_EXT_DETH);
	struct pib_cqe cqe = {
		.opcode = IB_WC_RECV,
		.qp_num = qp->ibqp.qp_num,
		.src_qp = pib_deth_sqp(deth),
		.slid = pkt->lrh.slid,
		.sl = pkt->lrh.sl,
		.byte_len = PIB_UD_GRH_ROOM + pkt->payload_len,
		.dlid_path_bits = dlid_path_bits,
		.pkey_index = pkey_index,
	};
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	enum pib_drop_reason drop;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&qp->lock, flags);
	if (!pib_resp_ready(qp)) {
		drop = PIB_DROP_QP_STATE;
		goto drop;
	}
	/* (checked before a WQE is taken: the WQE stays for the next one) */
	if (qp->ibqp.qp_type == IB_QPT_UD && pib_deth_qkey(deth) != qp->qkey) {
		drop = PIB_DROP_QKEY;
		goto drop;
	}
	if (!pib_resp_get_wqe(qp)) {
		drop = PIB_DROP_NO_WQE;
		goto drop;
	}
	err = pib_resp_ud_scatter(qp, pkt, buf);
	cqe.wr_id = qp->resp.wqe->wr_id;
	cqe.status = !err ? IB_WC_SUCCESS : err == -EMSGSIZE ?
		     IB_WC_LOC_LEN_ERR : IB_WC_LOC_PROT_ERR;
	if (pkt->lrh.lnh == PIB_LNH_IBA_GLOBAL)
		cqe.wc_flags |= PIB_WC_GRH;
	if (pkt->ext & PIB_EXT_IMMDT) {
		cqe.ex = (__force u32)pib_immdt_get(pib_pkt_ext(buf, pkt,
								PIB_EXT_IMMDT));
		cqe.wc_flags |= PIB_WC_WITH_IMM;
	}
	qp->resp.have_wqe = false;
	pib_rq_cqe(qp, &cqe, pkt->bth.se);
	spin_unlock_irqrestore(&qp->lock, flags);
	pib_qp_notify_cqs(qp);
	return;
drop:
	pib_drop(dev, buf, pkt->len, drop, 0);
	spin_unlock_irqrestore(&qp->lock, flags);
}
