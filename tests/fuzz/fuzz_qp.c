// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_qp.c: pib's transport under fuzzing. One device (LID 1, MTU 4096)
 * has these QPs, all in RTS, made and driven through pib's own verbs
 * (pib_create_qp, pib_modify_qp, pib_post_send, ...):
 *
 *   0 RC with its own RQ       4 GSI (QP1)
 *   1 RC on an SRQ             5 RC of a "user": a hostile provider
 *   2 UC                         writes its rings (its own CQ)
 *   3 UD (on group 0xc001)     6 SMI (QP0)
 *   7 XRC TGT, in an XRC domain with one XRC SRQ; another domain has
 *     another, whose WQEs nothing may take
 *
 * plus a user MR of three pages at FUZZ_MR_VA. The peer is LID 2.
 *
 * Input: 6 bytes of configuration, then events until the input ends:
 *   config: path MTU, PSN choice, retry_cnt|rnr_retry<<3, timeout,
 *           min_rnr_timer|sig_all<<5, max_rd_atomic|max_dest_rd_atomic<<4
 *   event:  one byte, then its arguments (fuzz_qp_event() lists them).
 *
 * Packets are templated (the harness writes LRH, GRH, BTH and seals; the
 * input gives the opcode, QP, PSN offset, flags and the bytes after the
 * BTH) or raw. After every event the harness runs queued work and checks
 * the QPs' ring and PSN invariants; every packet pib sends must parse
 * with valid CRCs; at the end everything is destroyed, and nothing may be
 * left queued, pending or allocated.
 */
#include "fuzz.h"
#include "fuzz_qp.h"

#define FQ_NQP			8
#define FQ_USER			5	/* the user's RC QP */
#define FQ_TGT			7	/* the XRC TGT QP */
#define FQ_PEER_LID		2
#define FQ_PEER_QPN		0x40	/* + QP index */
#define FQ_MCAST_LID		0xc001
#define FQ_QKEY			0x11111111
#define FUZZ_MR_VA		0x10010ULL
#define FUZZ_MR_LEN		(3 * PAGE_SIZE)
#define FQ_REMOTE_VA		0x900000ULL
#define FQ_REMOTE_RKEY		0x4242
#define FQ_MAX_EVENTS		256
#define FQ_SQ_DEPTH		16
#define FQ_RQ_DEPTH		16

/**
 * struct fq - the objects of one run
 * @dev: the device
 * @pd: the PD everything is on
 * @cq: the kernel QPs' CQ
 * @ucq: the user QP's CQ
 * @srq: the SRQ of QP 1
 * @xrcd: the XRC TGT QP's domain, and another
 * @xsrq: an XRC SRQ in each (as a process made them: pib makes them for
 *	processes only)
 * @mr: the user MR
 * @pd2: another PD, that rereg_mr may move the MR to
 * @ah: the AH of UD sends (to the peer)
 * @qp: the QPs
 * @wr_id: the next work request's id (they only grow)
 * @last_wc: the id of each QP's latest send and receive completion
 * @mode: responder or requester
 * @resp_psn: the PSN of each QP's latest response sent (ACK, NAK, atomic
 *	ACK, READ response), valid if @resp_any
 * @resp_any: a response went out since the last duplicate request
 */
struct fq {
	struct pib_dev *dev;
	struct pib_pd pd;
	struct pib_cq *cq;
	struct pib_cq *ucq;
	struct pib_srq *srq;
	struct ib_xrcd xrcd[2];
	struct pib_srq *xsrq[2];
	struct ib_mr *mr;
	struct pib_pd pd2;
	struct pib_mw *mw[2];
	struct pib_ah ah;
	struct pib_qp *qp[FQ_NQP];
	u64 wr_id;
	u64 last_wc[FQ_NQP][2];
	enum fuzz_qp_mode mode;
	u32 resp_psn[FQ_NQP];
	bool resp_any[FQ_NQP];
};

/* The run in progress, for fq_tx(). */
static struct fq *fq_current;

static const enum ib_qp_type fq_types[FQ_NQP] = {
	IB_QPT_RC, IB_QPT_RC, IB_QPT_UC, IB_QPT_UD, IB_QPT_GSI, IB_QPT_RC,
	IB_QPT_SMI, IB_QPT_XRC_TGT,
};

/* Starting PSNs: ordinary ones, and ones at the edge of the 24-bit space. */
static const u32 fq_psns[8] = {
	0, 0x100, 0xfffff0, 0xffffff, 0x7ffff8, 0x800000, 0x123456, 1,
};

static void fq_event_handler(struct ib_event *ev, void *ctx)
{
	struct pib_qp *qp;

	FUZZ_CHECK(ev->event <= IB_EVENT_GID_CHANGE);
	if (ev->event != IB_EVENT_SQ_DRAINED)
		return;
	/* Raised in SQD, with every WQE the requester started completed. */
	qp = to_pib_qp(ev->element.qp);
	FUZZ_CHECK(qp->state == IB_QPS_SQD && !qp->req.offset &&
		   qp->sq.ring.cons == qp->req.cur);
}

static void fq_comp_handler(struct ib_cq *cq, void *ctx)
{
}

static struct pib_cq *fq_cq_new(struct fq *f)
{
	struct pib_cq *cq = calloc(1, sizeof(*cq));
	struct ib_cq_init_attr attr = { .cqe = 127 };

	cq->ibcq.device = &f->dev->ibdev;
	cq->ibcq.comp_handler = fq_comp_handler;
	cq->ibcq.event_handler = fq_event_handler;
	FUZZ_CHECK(!pib_create_cq(&cq->ibcq, &attr, NULL));
	return cq;
}

/*
 * An XRC SRQ of domain @i on the kernel QPs' CQ, as pib_create_srq() makes
 * one for a process: a numbered SRQ that XRCETHs can name.
 */
static struct pib_srq *fq_xrc_srq_new(struct fq *f, unsigned int i)
{
	struct ib_srq_init_attr sattr = {
		.event_handler = fq_event_handler,
		.attr = { .max_wr = FQ_RQ_DEPTH, .max_sge = 2 },
	};
	struct pib_srq *srq = calloc(1, sizeof(*srq));
	u32 num;

	f->xrcd[i].device = &f->dev->ibdev;
	srq->ibsrq.device = &f->dev->ibdev;
	srq->ibsrq.pd = &f->pd.ibpd;
	srq->ibsrq.event_handler = fq_event_handler;
	FUZZ_CHECK(!pib_create_srq(&srq->ibsrq, &sattr, NULL));
	FUZZ_CHECK(xa_alloc_cyclic(&f->dev->xrc_srqs, &num, srq,
				   XA_LIMIT(1, PIB_MAX_QPN),
				   &f->dev->next_srqn, GFP_KERNEL) >= 0);
	srq->ibsrq.srq_type = IB_SRQT_XRC;
	srq->ibsrq.ext.cq = &f->cq->ibcq;
	srq->ibsrq.ext.xrc.xrcd = &f->xrcd[i];
	srq->ibsrq.ext.xrc.srq_num = num;
	return srq;
}

static void fq_setup_objects(struct fq *f)
{
	unsigned int i;
	struct ib_srq_init_attr sattr = {
		.event_handler = fq_event_handler,
		.attr = { .max_wr = FQ_RQ_DEPTH, .max_sge = 2, .srq_limit = 4 },
		.srq_type = IB_SRQT_BASIC,
	};

	f->pd.ibpd.device = &f->dev->ibdev;
	f->pd2.ibpd.device = &f->dev->ibdev;
	f->cq = fq_cq_new(f);
	f->ucq = fq_cq_new(f);
	f->srq = calloc(1, sizeof(*f->srq));
	f->srq->ibsrq.device = &f->dev->ibdev;
	f->srq->ibsrq.pd = &f->pd.ibpd;
	f->srq->ibsrq.event_handler = fq_event_handler;
	FUZZ_CHECK(!pib_create_srq(&f->srq->ibsrq, &sattr, NULL));
	for (i = 0; i < 2; i++)
		f->xsrq[i] = fq_xrc_srq_new(f, i);
	f->mr = pib_reg_user_mr(&f->pd.ibpd, FUZZ_MR_VA, FUZZ_MR_LEN, FUZZ_MR_VA,
				IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
				IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
				IB_ACCESS_MW_BIND | IB_ACCESS_FLUSH_GLOBAL, NULL,
				NULL);
	FUZZ_CHECK(!IS_ERR(f->mr));
	/* What the RDMA core sets once the driver made the MR. */
	f->mr->device = &f->dev->ibdev;
	f->mr->pd = &f->pd.ibpd;
	for (i = 0; i < 2; i++) {
		f->mw[i] = calloc(1, sizeof(*f->mw[i]));
		f->mw[i]->ibmw.device = &f->dev->ibdev;
		f->mw[i]->ibmw.pd = &f->pd.ibpd;
		f->mw[i]->ibmw.type = i ? IB_MW_TYPE_2 : IB_MW_TYPE_1;
		FUZZ_CHECK(!pib_alloc_mw(&f->mw[i]->ibmw, NULL));
	}
	f->ah.ibah.device = &f->dev->ibdev;
	f->ah.attr.type = RDMA_AH_ATTR_TYPE_IB;
	f->ah.attr.port_num = PIB_PORT_NUM;
	f->ah.attr.ib.dlid = FQ_PEER_LID;
}

/* Move a QP through INIT and RTR to RTS, as a consumer would. */
static void fq_qp_connect(struct fq *f, struct pib_qp *qp, unsigned int i,
			  const u8 *cfg)
{
	bool conn = fq_types[i] == IB_QPT_RC || fq_types[i] == IB_QPT_UC ||
		    fq_types[i] == IB_QPT_XRC_TGT;
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = PIB_PORT_NUM,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_FLUSH_GLOBAL,
		.qkey = fq_types[i] == IB_QPT_GSI ? IB_QP1_QKEY :
			fq_types[i] == IB_QPT_SMI ? 0 : FQ_QKEY,
	};
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
		   (conn ? IB_QP_ACCESS_FLAGS : IB_QP_QKEY);

	FUZZ_CHECK(!pib_modify_qp(&qp->ibqp, &a, mask, NULL));
	a.qp_state = IB_QPS_RTR;
	mask = IB_QP_STATE;
	if (conn) {
		a.path_mtu = IB_MTU_256 + cfg[0] % 5;
		a.dest_qp_num = FQ_PEER_QPN + i;
		a.rq_psn = fq_psns[cfg[1] & 7];
		a.max_dest_rd_atomic = cfg[5] >> 4;
		a.min_rnr_timer = cfg[4] & 31;
		a.ah_attr = f->ah.attr;
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			IB_QP_MIN_RNR_TIMER;
	}
	FUZZ_CHECK(!pib_modify_qp(&qp->ibqp, &a, mask, NULL));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = fq_psns[(cfg[1] >> 3) & 7];
	a.timeout = cfg[3] & 31;
	a.retry_cnt = cfg[2] & 7;
	a.rnr_retry = (cfg[2] >> 3) & 7;
	a.max_rd_atomic = cfg[5] & 15;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (pib_qp_rc(qp))
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	FUZZ_CHECK(!pib_modify_qp(&qp->ibqp, &a, mask, NULL));
}

/* (An XRC TGT QP has no PD, no CQ and no SRQ: its requests name SRQs.) */
static struct pib_qp *fq_qp_new(struct fq *f, unsigned int i, const u8 *cfg)
{
	struct pib_qp *qp = calloc(1, sizeof(*qp));
	bool tgt = i == FQ_TGT;
	struct ib_qp_init_attr init = {
		.event_handler = fq_event_handler,
		.send_cq = tgt ? NULL : i == FQ_USER ? &f->ucq->ibcq : &f->cq->ibcq,
		.recv_cq = tgt ? NULL : i == FQ_USER ? &f->ucq->ibcq : &f->cq->ibcq,
		.srq = i == 1 ? &f->srq->ibsrq : NULL,
		.xrcd = tgt ? &f->xrcd[0] : NULL,
		.cap = { .max_send_wr = FQ_SQ_DEPTH, .max_recv_wr = FQ_RQ_DEPTH,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.sq_sig_type = cfg[4] & 32 ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR,
		.qp_type = fq_types[i],
	};

	/* What the RDMA core fills in before it calls create_qp. */
	qp->ibqp.device = &f->dev->ibdev;
	qp->ibqp.pd = tgt ? NULL : &f->pd.ibpd;
	qp->ibqp.send_cq = init.send_cq;
	qp->ibqp.recv_cq = init.recv_cq;
	qp->ibqp.srq = init.srq;
	qp->ibqp.qp_type = init.qp_type;
	qp->ibqp.event_handler = fq_event_handler;
	FUZZ_CHECK(!pib_create_qp(&qp->ibqp, &init, NULL));
	/* A user QP: the same rings, written by a provider the kernel distrusts. */
	qp->user = i == FQ_USER;
	fq_qp_connect(f, qp, i, cfg);
	return qp;
}

/* An SGE into the MR: @off bytes in, @len bytes long, clipped to the MR. */
static struct ib_sge fq_sge(struct fq *f, u32 off, u32 len)
{
	off %= FUZZ_MR_LEN;
	return (struct ib_sge){
		.addr = FUZZ_MR_VA + off,
		.length = min_t(u32, len, FUZZ_MR_LEN - off),
		.lkey = f->mr->lkey,
	};
}

/* A receive WR of @len bytes (and 512 more) into the MR. */
static struct ib_recv_wr fq_recv_wr(struct fq *f, struct ib_sge *sge, u32 len)
{
	sge[0] = fq_sge(f, len * 7, 512);
	sge[1] = fq_sge(f, 0, len);
	return (struct ib_recv_wr){
		.wr_id = f->wr_id++, .sg_list = sge, .num_sge = 2,
	};
}

static void fq_post_srq(struct fq *f, struct pib_srq *srq, u32 len)
{
	struct ib_sge sge[2];
	struct ib_recv_wr wr = fq_recv_wr(f, sge, len);
	const struct ib_recv_wr *bad;

	pib_post_srq_recv(&srq->ibsrq, &wr, &bad);
}

/* (The XRC TGT QP's receives: on the XRC SRQ of its domain.) */
static void fq_post_recv(struct fq *f, struct pib_qp *qp, u32 len)
{
	struct ib_sge sge[2];
	struct ib_recv_wr wr;
	const struct ib_recv_wr *bad;

	if (qp->srq || qp->ibqp.qp_type == IB_QPT_XRC_TGT) {
		fq_post_srq(f, qp->srq ?: f->xsrq[0], len);
		return;
	}
	wr = fq_recv_wr(f, sge, len);
	pib_post_recv(&qp->ibqp, &wr, &bad);
}

/* Post one send WR of a kind (0..9) with @len bytes from the MR. */
static void fq_post_send(struct fq *f, struct pib_qp *qp, u8 kind, u16 len,
			 u8 flags)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_SEND, IB_WR_SEND_WITH_IMM, IB_WR_RDMA_WRITE,
		IB_WR_RDMA_WRITE_WITH_IMM, IB_WR_RDMA_READ,
		IB_WR_ATOMIC_CMP_AND_SWP, IB_WR_ATOMIC_FETCH_AND_ADD,
		IB_WR_SEND_WITH_INV, IB_WR_LOCAL_INV, IB_WR_SEND,
	};
	bool smi = qp->ibqp.qp_type == IB_QPT_SMI;
	enum ib_wr_opcode op = smi ? IB_WR_SEND : ops[kind % ARRAY_SIZE(ops)];
	bool atomic = op == IB_WR_ATOMIC_CMP_AND_SWP ||
		      op == IB_WR_ATOMIC_FETCH_AND_ADD;
	/* The MAD layer sends SMPs on QP0: one MAD each, to QP0. */
	struct ib_sge sge = smi ? fq_sge(f, len % 256, PIB_SMP_LEN) :
			    fq_sge(f, (len >> 4) * 8, atomic ? 8 : len);
	u8 inline_buf[64];
	union {
		struct ib_rdma_wr rdma;
		struct ib_atomic_wr atomic;
		struct ib_ud_wr ud;
	} w = { 0 };
	const struct ib_send_wr *bad;
	struct ib_send_wr *wr = &w.rdma.wr;

	wr->wr_id = f->wr_id++;
	wr->opcode = op;
	wr->send_flags = flags & (IB_SEND_FENCE | IB_SEND_SIGNALED |
				  IB_SEND_SOLICITED);
	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->ex.invalidate_rkey = op == IB_WR_LOCAL_INV ? f->mr->rkey : 0x1234;
	if (kind % ARRAY_SIZE(ops) == 9 && !smi) {
		memset(inline_buf, 0x5a, sizeof(inline_buf));
		sge.addr = (uintptr_t)inline_buf;
		sge.length = len % (sizeof(inline_buf) + 1);
		wr->send_flags |= IB_SEND_INLINE;
	}
	if (op == IB_WR_RDMA_WRITE || op == IB_WR_RDMA_WRITE_WITH_IMM ||
	    op == IB_WR_RDMA_READ) {
		w.rdma.remote_addr = FQ_REMOTE_VA;
		w.rdma.rkey = FQ_REMOTE_RKEY;
	} else if (atomic) {
		w.atomic.remote_addr = FQ_REMOTE_VA;
		w.atomic.rkey = FQ_REMOTE_RKEY;
		w.atomic.compare_add = 1;
		w.atomic.swap = 2;
	} else if (qp->ibqp.qp_type == IB_QPT_UD ||
		   qp->ibqp.qp_type == IB_QPT_GSI ||
		   qp->ibqp.qp_type == IB_QPT_SMI) {
		w.ud.ah = &f->ah.ibah;
		w.ud.remote_qpn = smi ? 0 : FQ_PEER_QPN;
		w.ud.remote_qkey = FQ_QKEY;
	}
	pib_post_send(&qp->ibqp, wr, &bad);
}

/*
 * The user's provider writes a send WQE into its SQ (or a receive WQE
 * into its RQ) and publishes it: anything at all, or, with "aim", SGEs
 * that point into the MR.
 */
/*
 * Make @wqe (random bytes) a bind of one of the windows onto the MR, at an
 * address near it, its other fields as they came: @how bit 0 picks the
 * window, bit 1 keeps the SGE count (a bind with SGEs is refused), bit 2
 * the flags (else the window's type).
 */
static void fq_user_bind(struct fq *f, struct pib_send_wqe *wqe, u8 how)
{
	u32 key = f->mw[how & 1]->mr->key;

	wqe->opcode = PIB_WR_BIND_MW;
	if (!(how & 2))
		wqe->num_sge = 0;
	wqe->wr.bind.mw_rkey = key;
	wqe->wr.bind.rkey = (key & ~0xffu) | (wqe->wr.bind.rkey & 0xff);
	wqe->wr.bind.lkey = f->mr->lkey;
	wqe->wr.bind.addr = FUZZ_MR_VA + wqe->wr.bind.addr % (FUZZ_MR_LEN + 64);
	wqe->wr.bind.length %= FUZZ_MR_LEN + 64;
	if (!(how & 4))
		wqe->wr.bind.flags = how & 1 ? 0 : PIB_BIND_TYPE_1;
}

/*
 * Make @wqe (random bytes) a FLUSH or an ATOMIC WRITE (@how bit 0) to the
 * peer's memory, its other fields as they came, or (bit 1) with no SGEs.
 */
static void fq_user_iba15(struct fq *f, struct pib_send_wqe *wqe, u8 how)
{
	wqe->opcode = how & 1 ? PIB_WR_FLUSH : PIB_WR_ATOMIC_WRITE;
	if (how & 2)
		wqe->num_sge = 0;
	if (how & 1) {
		wqe->wr.flush.rkey = FQ_REMOTE_RKEY;
		wqe->wr.flush.type = 1 + wqe->wr.flush.type % 3;
		wqe->wr.flush.level &= 1;
	} else {
		wqe->wr.atomic_write.rkey = FQ_REMOTE_RKEY;
		wqe->wr.atomic_write.remote_addr = FQ_REMOTE_VA;
	}
}

static void fq_user_wqe(struct fq *f, struct fuzz_in *in)
{
	struct pib_qp *qp = f->qp[FQ_USER];
	u8 how = fuzz_u8(in);
	bool rq = how & 1, aim = how & 2;
	struct pib_ring *ring = rq ? &qp->rq : &qp->sq.ring;
	u32 prod = READ_ONCE(ring->hdr->producer);
	u8 *e = pib_ring_entry(ring, prod);
	struct pib_sge *sge;
	u32 i, nsge;

	fuzz_bytes(in, e, ring->stride);
	if (rq) {
		sge = ((struct pib_recv_wqe *)e)->sge;
		nsge = ((struct pib_recv_wqe *)e)->num_sge;
	} else {
		sge = PIB_WQE_SGE((struct pib_send_wqe *)e);
		nsge = ((struct pib_send_wqe *)e)->num_sge;
		/* Kernel-only opcodes are refused from users; see that they are. */
		if (how & 4)
			((struct pib_send_wqe *)e)->opcode = PIB_WR_REG_MR;
		if (how & 8)
			fq_user_bind(f, (struct pib_send_wqe *)e, how >> 4);
		else if (how & 0x80)
			fq_user_iba15(f, (struct pib_send_wqe *)e, how >> 4);
	}
	nsge = min_t(u32, nsge, (ring->stride - (u32)((u8 *)sge - e)) /
				sizeof(*sge));
	for (i = 0; aim && i < nsge; i++) {
		sge[i].lkey = f->mr->lkey;
		sge[i].addr = FUZZ_MR_VA + sge[i].addr % (FUZZ_MR_LEN + 64);
	}
	WRITE_ONCE(ring->hdr->producer, prod + 1);
}

/* The user's provider writes any value into a ring index it owns. */
static void fq_user_index(struct fq *f, struct fuzz_in *in)
{
	struct pib_qp *qp = f->qp[FQ_USER];
	u8 which = fuzz_u8(in);
	u32 v = fuzz_u32(in);

	switch (which % 3) {
	case 0:
		WRITE_ONCE(qp->sq.ring.hdr->producer,
			   which & 4 ? v : qp->sq.ring.cons + (v & 0x3f));
		break;
	case 1:
		WRITE_ONCE(qp->rq.hdr->producer,
			   which & 4 ? v : qp->rq.cons + (v & 0x3f));
		break;
	default:
		WRITE_ONCE(f->ucq->ring.hdr->consumer,
			   which & 4 ? v : f->ucq->ring.prod - (v & 0xff));
	}
}

/*
 * A packet reaches the port, in the UDP receive softirq, if it parses
 * (where it entered the host: pib_net.c, or the switch for a device's).
 */
static void fq_receive(struct fq *f, const u8 *buf, u32 len)
{
	struct pib_pkt pkt;

	if (pib_pkt_locate(buf, len, &pkt))
		return;
	local_bh_disable();
	pib_hca_receive(f->dev, buf, len, &pkt);
	local_bh_enable();
}

static bool fq_is_response(u8 op)
{
	op = pib_opcode_rc(op);
	return op >= IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST &&
	       op <= IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE;
}

/*
 * With "aim", an XRCETH names an XRC SRQ (of the TGT QP's domain, now and
 * then of the other), and a RETH or AtomicETH names the MR: its key, and
 * an address from the MR's start (a little past its end too) by the
 * input's address. @ext holds @n bytes after the BTH.
 */
static void fq_aim(struct fq *f, u8 op, u8 *ext, u32 n)
{
	unsigned int rules = pib_opcodes[op].ext;
	bool reth = rules & PIB_EXT_RETH;
	u32 off = pib_ext_off(rules, reth ? PIB_EXT_RETH : PIB_EXT_ATOMICETH);

	if (rules & PIB_EXT_XRCETH && n >= PIB_XRCETH_LEN)
		pib_xrceth_set((struct pib_xrceth *)ext,
			       f->xsrq[(n & 0x18) == 0x18]->ibsrq.ext.xrc.srq_num);

	if (!(rules & (PIB_EXT_RETH | PIB_EXT_ATOMICETH)) ||
	    n < off + (reth ? PIB_RETH_LEN : PIB_ATOMICETH_LEN))
		return;
	/* A FLUSH's FETH: a placement, now and then reserved bits too. */
	if (rules & PIB_EXT_FETH && !(ext[3] & 0x40))
		pib_feth_set((struct pib_feth *)ext, 1 + ext[3] % 3,
			     (ext[3] >> 7) & 1);
	put_unaligned_be64(FUZZ_MR_VA + get_unaligned_be64(ext + off) %
			     (FUZZ_MR_LEN + 64), ext + off);
	/* (a window's R_Key now and then: its own, or the one a bind gave) */
	put_unaligned_be32((n & 7) == 7 ? f->mw[(n >> 3) & 1]->mr->key :
			   f->mr->rkey, ext + off + 8);
}

/*
 * A packet to one of the QPs. Arguments: QP (bit 7: to the multicast
 * group; bit 6: BTH MigReq), opcode, flags, PSN offset (s16, from the PSN the QP expects
 * next), length (u16), then the bytes after the BTH (extension headers,
 * payload). Flags: 0 AckReq, 1 SE, 2 GRH, 3-4 BTH.PadCnt if not 0 (else
 * the pad the length needs), 5 VL15, 6 aim at the MR, 7 a foreign SLID.
 */
static void fq_packet(struct fq *f, struct fuzz_in *in)
{
	u8 sel = fuzz_u8(in), op = fuzz_u8(in), flags = fuzz_u8(in);
	s16 dpsn = (s16)fuzz_u16(in);
	u32 n = fuzz_u16(in) % (PIB_MAX_PAYLOAD + PIB_ATOMICETH_LEN + 1);
	struct pib_qp *qp = f->qp[(sel & 0x3f) % FQ_NQP];
	bool mcast = sel & 0x80, grh = flags & 4;
	u32 base = fq_is_response(op) ? qp->req.acked_psn + 1 : qp->resp.epsn;
	u32 fill = -n & 3, hdr = pib_hdr_len(grh ? PIB_LNH_IBA_GLOBAL :
						   PIB_LNH_IBA_LOCAL);
	u32 len = hdr + n + fill + PIB_ICRC_LEN + PIB_VCRC_LEN;
	struct pib_lrh lrh = {
		.vl = flags & 0x20 ? PIB_VL15 : 0,
		.lnh = grh ? PIB_LNH_IBA_GLOBAL : PIB_LNH_IBA_LOCAL,
		.dlid = mcast ? FQ_MCAST_LID : f->dev->port.lid,
		.slid = flags & 0x80 ? 77 : FQ_PEER_LID,
	};
	struct pib_bth bth = {
		.opcode = op, .se = flags & 2, .ack_req = flags & 1,
		.mig = sel & 0x40,
		.pad = flags & 0x18 ? (flags >> 3) & 3 : fill,
		.pkey = PIB_DEFAULT_PKEY,
		.dest_qp = mcast ? PIB_MCAST_QPN : qp->ibqp.qp_num,
		.psn = (base + dpsn) & PIB_PSN_MASK,
	};
	struct pib_grh g = {
		.ip_ver = PIB_GRH_IP_VERSION, .next_hdr = PIB_GRH_NEXT_HDR_BTH,
		.hop_limit = 1, .pay_len = len - PIB_VCRC_LEN - PIB_LRH_LEN -
					   PIB_GRH_LEN,
	};
	u8 *buf = calloc(1, len);

	/* A duplicate request is answered again: its responses start over. */
	if (!fq_is_response(op) && dpsn < 0)
		f->resp_any[(sel & 0x3f) % FQ_NQP] = false;
	pib_lrh_pack(buf, &lrh);
	if (grh)
		pib_grh_pack(buf + PIB_LRH_LEN, &g);
	pib_bth_pack(buf + hdr - PIB_BTH_LEN, &bth);
	fuzz_bytes(in, buf + hdr, n);
	if (flags & 0x40)
		fq_aim(f, op, buf + hdr, n);
	FUZZ_CHECK(pib_pkt_seal(buf, hdr + n + fill) == len);
	fq_receive(f, buf, len);
	free(buf);
}

/* Any bytes at all, as the switch would hand them over. */
static void fq_raw(struct fq *f, struct fuzz_in *in)
{
	u32 len = fuzz_u16(in) % (PIB_MAX_PKT_LEN + 8);
	u8 *buf = malloc(len ? len : 1);

	/* (it may be a duplicate request of any QP) */
	memset(f->resp_any, 0, sizeof(f->resp_any));
	fuzz_bytes(in, buf, len);
	fq_receive(f, buf, len);
	free(buf);
}

/*
 * Poll the kernel QPs' CQ. Each WR completes once, and a QP's sends, and
 * its receives, complete in the order they were posted (IBA 10.8.6).
 */
static void fq_poll(struct fq *f, u8 n)
{
	struct ib_wc wc[16];
	int i, got = pib_poll_cq(&f->cq->ibcq, n % 17, wc);
	unsigned int q;
	u64 *last;

	FUZZ_CHECK(got >= 0 && got <= n % 17);
	for (i = 0; i < got; i++) {
		FUZZ_CHECK(wc[i].status <= IB_WC_GENERAL_ERR);
		for (q = 0; q < FQ_NQP && wc[i].qp != &f->qp[q]->ibqp; q++)
			;
		FUZZ_CHECK(q < FQ_NQP && q != FQ_USER);
		last = &f->last_wc[q][!!(wc[i].opcode & IB_WC_RECV)];
		FUZZ_CHECK(wc[i].wr_id > *last);
		*last = wc[i].wr_id;
	}
}

/*
 * A state change a consumer may ask for: to ERR, SQD and back, a new
 * timeout and retry count in RTS, or RESET and all the way up again.
 */
static void fq_modify(struct fq *f, struct fuzz_in *in, const u8 *cfg)
{
	u8 sel = fuzz_u8(in), what = fuzz_u8(in);
	unsigned int i = sel % FQ_NQP;
	struct pib_qp *qp = f->qp[i];
	struct ib_qp_attr a = { .timeout = what & 31, .retry_cnt = sel >> 5 };

	f->resp_any[i] = false;		/* (RESET starts new PSNs) */
	switch (what >> 5) {
	case 0:
		a.qp_state = IB_QPS_ERR;
		pib_modify_qp(&qp->ibqp, &a, IB_QP_STATE, NULL);
		break;
	case 1:
		/* (now and then asking for IB_EVENT_SQ_DRAINED) */
		a.qp_state = IB_QPS_SQD;
		a.en_sqd_async_notify = sel & 1;
		pib_modify_qp(&qp->ibqp, &a, IB_QP_STATE |
			      (sel & 2 ? IB_QP_EN_SQD_ASYNC_NOTIFY : 0), NULL);
		break;
	case 2:
		a.qp_state = IB_QPS_RTS;
		pib_modify_qp(&qp->ibqp, &a, IB_QP_STATE, NULL);
		break;
	case 3:
		a.qp_state = IB_QPS_RTS;
		pib_modify_qp(&qp->ibqp, &a, IB_QP_STATE | IB_QP_TIMEOUT |
			      IB_QP_RETRY_CNT, NULL);
		break;
	case 4:
		a.qp_state = IB_QPS_RESET;
		if (!pib_modify_qp(&qp->ibqp, &a, IB_QP_STATE, NULL))
			fq_qp_connect(f, qp, i, cfg);
		break;
	case 5:
		/* An alternate path (SL 1) armed, or a migration asked for. */
		a.qp_state = IB_QPS_RTS;
		a.alt_ah_attr = f->ah.attr;
		a.alt_ah_attr.sl = 1;
		a.alt_timeout = what & 31;
		a.path_mig_state = sel & 1 ? IB_MIG_MIGRATED : IB_MIG_ARMED;
		pib_modify_qp(&qp->ibqp, &a, IB_QP_STATE | IB_QP_PATH_MIG_STATE |
			      (sel & 2 ? IB_QP_ALT_PATH : 0), NULL);
		break;
	default:
		/* Time passes: the retransmit and RNR timers run. */
		jiffies += what * HZ / 8;
		break;
	}
}

/* The SM moves the port to another state, as a PortInfo Set does. */
static void fq_port(struct fq *f, u8 state)
{
	struct pib_port *port = &f->dev->port;
	unsigned long flags;
	u32 events = 0;

	spin_lock_irqsave(&port->lock, flags);
	pib_port_set_state(f->dev, IB_PORT_DOWN + state % 4, &events);
	spin_unlock_irqrestore(&port->lock, flags);
	pib_dispatch_events(f->dev, events);
}

/*
 * Packets that arrive while the QPs' work runs on another CPU: the
 * receive path finds each QP running (pib_qp_run()) and cannot send its
 * READ responses itself. Then that CPU finishes and runs the QPs again.
 * Arguments: a count (1 to 8), then each packet as for fq_packet().
 */
static void fq_burst(struct fq *f, struct fuzz_in *in)
{
	unsigned int i, n = fuzz_u8(in) % 8 + 1;

	for (i = 0; i < FQ_NQP; i++)
		set_bit(PIB_QP_RUNNING, &f->qp[i]->run_flags);
	for (i = 0; i < n && in->n; i++)
		fq_packet(f, in);
	for (i = 0; i < FQ_NQP; i++) {
		clear_bit(PIB_QP_RUNNING, &f->qp[i]->run_flags);
		pib_qp_run(f->qp[i]);
	}
}

/*
 * Every response a QP sends comes in PSN order (IBA 9.7.5.1: a responder
 * answers requests in the order they came), unless a duplicate request
 * asked for older ones again: no ACK overtakes a READ response still owed.
 */
static void fq_tx(struct pib_dev *dev, const u8 *pkt, unsigned int len)
{
	struct fq *f = fq_current;
	struct pib_pkt p;
	u32 i;

	if (pib_pkt_parse(pkt, len, &p) || !fq_is_response(p.bth.opcode))
		return;
	i = p.bth.dest_qp - FQ_PEER_QPN;
	if (i >= FQ_NQP)
		return;
	if (f->resp_any[i] && pib_psn_diff(p.bth.psn, f->resp_psn[i]) < 0) {
		fprintf(stderr, "QP %u: response opcode 0x%02x PSN 0x%06x after PSN 0x%06x\n",
			i, p.bth.opcode, p.bth.psn, f->resp_psn[i]);
		FUZZ_CHECK(!"responses in PSN order");
	}
	f->resp_psn[i] = p.bth.psn;
	f->resp_any[i] = true;
}

/*
 * Reregister the MR as the RDMA core would ask (flags that it lets through,
 * the same page offset), with any length and access: the MR changes, or
 * it is refused (-EBUSY with windows bound to it) and stays as it was;
 * valid either way, and in no access.
 */
static void fq_rereg(struct fq *f, struct fuzz_in *in)
{
	struct pib_mr *mr = to_pib_mr(f->mr);
	int flags = fuzz_u8(in) & 7, access = fuzz_u8(in);
	u64 len = fuzz_u16(in), iova = f->mr->iova, mlen = f->mr->length;
	struct ib_pd *pd = fuzz_u8(in) & 1 ? &f->pd2.ibpd : &f->pd.ibpd;
	bool bound = f->mw[0]->mr->parent || f->mw[1]->mr->parent;
	int old_access = mr->access;
	struct ib_mr *r;

	if (!flags)
		return;
	if (!(flags & IB_MR_REREG_PD))
		pd = f->mr->pd;
	r = pib_rereg_user_mr(f->mr, flags, FUZZ_MR_VA, len, FUZZ_MR_VA,
			      access, pd, NULL);
	FUZZ_CHECK(!r || IS_ERR(r));
	FUZZ_CHECK(!bound || IS_ERR(r));
	FUZZ_CHECK(mr->valid && refcount_read(&mr->users) == 1);
	if (r) {
		FUZZ_CHECK(mr->access == old_access && f->mr->iova == iova &&
			   f->mr->length == mlen);
		return;
	}
	FUZZ_CHECK(f->mr->pd == pd);
	if (flags & IB_MR_REREG_TRANS)
		FUZZ_CHECK(f->mr->length == len && mr->pin.umem->length == len);
}

/*
 * One event. Its first byte picks it:
 *   0     a templated packet (fq_packet)
 *   1     a raw packet: length (u16), bytes
 *   2     the first pending timer fires
 *   3     post send: QP, kind, length (u16), send flags
 *   4     post receive: QP, length (u16)
 *   5     poll the CQ: entries
 *   6     modify: QP, what (fq_modify)
 *   7     the user writes a WQE (fq_user_wqe) and rings the doorbell
 *   8     the user writes a ring index (fq_user_index), doorbell
 *   9     a burst of packets while the QPs are busy (fq_burst)
 *   10    the SM moves the port: state (DOWN, INIT, ARMED, ACTIVE)
 *   11    resize the CQ: entries (u8)
 *   12    modify the SRQ: limit (u8), max_wr (u8; odd: resize too)
 *   13    reregister the MR (fq_rereg)
 */
static void fq_event(struct fq *f, struct fuzz_in *in, const u8 *cfg)
{
	const struct ib_send_wr *bad;
	struct ib_srq_attr sattr = { 0 };
	u8 e = fuzz_u8(in) % 14, sel;
	u16 len;

	switch (e) {
	case 1:
		fq_raw(f, in);
		break;
	case 2:
		kshim_run_timers();
		break;
	case 3:
		sel = fuzz_u8(in);
		e = fuzz_u8(in);
		len = fuzz_u16(in);
		fq_post_send(f, f->qp[sel % FQ_NQP], e, len, fuzz_u8(in));
		break;
	case 4:
		sel = fuzz_u8(in);
		fq_post_recv(f, f->qp[sel % FQ_NQP], fuzz_u16(in));
		break;
	case 5:
		fq_poll(f, fuzz_u8(in));
		break;
	case 6:
		fq_modify(f, in, cfg);
		break;
	case 7:
	case 8:
		if (e == 7)
			fq_user_wqe(f, in);
		else
			fq_user_index(f, in);
		pib_post_send(&f->qp[FQ_USER]->ibqp, NULL, &bad);
		break;
	case 9:
		fq_burst(f, in);
		break;
	case 10:
		fq_port(f, fuzz_u8(in));
		break;
	case 11:
		pib_resize_cq(&f->cq->ibcq, fuzz_u8(in), NULL);
		break;
	case 12:
		sattr.srq_limit = fuzz_u8(in);
		sattr.max_wr = fuzz_u8(in);
		pib_modify_srq(&f->srq->ibsrq, &sattr, IB_SRQ_LIMIT |
			       (sattr.max_wr & 1 ? IB_SRQ_MAX_WR : 0), NULL);
		break;
	case 13:
		fq_rereg(f, in);
		break;
	default:
		fq_packet(f, in);
	}
}

/* The state of the WQEs a requester fetched is within their messages. */
static void fq_check_wqes(struct pib_qp *qp)
{
	struct pib_sq *sq = &qp->sq;
	struct pib_swqe *st;
	u32 i;

	for (i = sq->ring.cons; i != sq->fetched; i++) {
		st = &sq->st[i & (sq->ring.num - 1)];
		FUZZ_CHECK(st->resp_start <= st->resp_off &&
			   st->resp_off <= st->len);
		if (i == qp->req.cur)
			FUZZ_CHECK(qp->req.offset <= st->len);
	}
}

/* What must hold between events, whatever the packets said. */
static void fq_check(struct fq *f)
{
	unsigned int i;

	FUZZ_CHECK(!kshim_locks_held && !kshim_atomic);
	FUZZ_CHECK(f->cq->ring.prod - f->cq->ring.cons <= f->cq->ring.num);
	FUZZ_CHECK(f->srq->ring.prod - f->srq->ring.cons <= f->srq->ring.num);
	FUZZ_CHECK(f->srq->limit <= f->srq->ring.num);
	/* Nothing takes the WQEs of an XRC SRQ of another domain. */
	FUZZ_CHECK(f->xsrq[0]->ring.prod - f->xsrq[0]->ring.cons <=
		   f->xsrq[0]->ring.num);
	FUZZ_CHECK(f->xsrq[1]->ring.cons == 0 && f->xsrq[1]->ring.prod == 2);
	/* The MR counts the windows bound to it, and only those. */
	FUZZ_CHECK(atomic_read(&to_pib_mr(f->mr)->bound_mws) ==
		   (f->mw[0]->mr->parent != NULL) + (f->mw[1]->mr->parent != NULL));
	for (i = 0; i < FQ_NQP; i++) {
		struct pib_qp *qp = f->qp[i];
		struct pib_sq *sq = &qp->sq;
		u32 cons = sq->ring.cons;

		if (!qp->user)
			FUZZ_CHECK(sq->ring.prod - cons <= sq->ring.num);
		FUZZ_CHECK(sq->fetched - cons <= sq->ring.num);
		FUZZ_CHECK(qp->req.cur - cons <= sq->fetched - cons);
		FUZZ_CHECK(!((qp->req.psn | qp->req.acked_psn | qp->resp.epsn |
			      qp->resp.msn) & ~PIB_PSN_MASK));
		FUZZ_CHECK(qp->resp.num_res >= 1 &&
			   qp->resp.num_res <= PIB_MAX_RD_ATOMIC);
		FUZZ_CHECK(qp->resp.res_head - qp->resp.res_tail <=
			   qp->resp.num_res);
		FUZZ_CHECK(qp->req.rd_atomic <= qp->max_rd_atomic);
		FUZZ_CHECK(qp->state <= IB_QPS_ERR);
		/* An armed QP has an alternate path to migrate to. */
		FUZZ_CHECK(qp->mig_state == IB_MIG_MIGRATED ||
			   (qp->mig_state == IB_MIG_ARMED && qp->has_alt));
		fq_check_wqes(qp);
	}
}

static void fq_setup(struct fq *f, const u8 *cfg)
{
	unsigned int i, k;
	union ib_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff } };

	fuzz_world_init(1, false);
	fq_current = f;
	fuzz_world.tx_hook = fq_tx;
	f->dev = fuzz_world.dev[0];
	fuzz_port_up(f->dev, FUZZ_DEV_LID(0), IB_MTU_4096);
	f->dev->port.pkeys[1] = 0x8001;		/* a full member... */
	f->dev->port.pkeys[2] = 0x0002;		/* ...and a limited one */
	fq_setup_objects(f);
	for (i = 0; i < FQ_NQP; i++)
		f->qp[i] = fq_qp_new(f, i, cfg);
	FUZZ_CHECK(!pib_attach_mcast(&f->qp[3]->ibqp, &mgid, FQ_MCAST_LID));
	for (i = 0; i < FQ_NQP; i++)
		for (k = 0; k < 4 && i != FQ_USER; k++)
			fq_post_recv(f, f->qp[i], 1000 + 1500 * k);
	for (k = 0; k < 2; k++)
		fq_post_srq(f, f->xsrq[1], 500);
	/*
	 * A requester has work out: one of each kind on RC (but LOCAL_INV,
	 * which fails on a user MR and takes the QP to ERR), some on UC, UD.
	 */
	for (k = 0; f->mode == FUZZ_QP_REQUESTER && k < 10; k++)
		if (k != 8)
			fq_post_send(f, f->qp[0], k, 700 * k + 8,
				     IB_SEND_SIGNALED);
	for (k = 0; f->mode == FUZZ_QP_REQUESTER && k < 3; k++) {
		fq_post_send(f, f->qp[2], k, 3000, 0);
		fq_post_send(f, f->qp[3], 0, 100 * k, 0);
	}
	kshim_run_work();
	fq_check(f);
}

static void fq_teardown(struct fq *f)
{
	unsigned int i;

	for (i = 0; i < FQ_NQP; i++) {
		FUZZ_CHECK(!pib_destroy_qp(&f->qp[i]->ibqp, NULL));
		free(f->qp[i]);
	}
	FUZZ_CHECK(!pib_destroy_srq(&f->srq->ibsrq, NULL));
	for (i = 0; i < 2; i++) {
		FUZZ_CHECK(!pib_destroy_srq(&f->xsrq[i]->ibsrq, NULL));
		free(f->xsrq[i]);
	}
	FUZZ_CHECK(!pib_destroy_cq(&f->cq->ibcq, NULL));
	FUZZ_CHECK(!pib_destroy_cq(&f->ucq->ibcq, NULL));
	/* (an MR with a window bound to it cannot go) */
	for (i = 0; i < 2; i++) {
		FUZZ_CHECK(!pib_dealloc_mw(&f->mw[i]->ibmw));
		free(f->mw[i]);
	}
	FUZZ_CHECK(!pib_dereg_mr(f->mr, NULL));
	free(f->srq);
	free(f->cq);
	free(f->ucq);
	FUZZ_CHECK(!atomic_read(&f->dev->qp_count) &&
		   !atomic_read(&f->dev->mr_count));
	fuzz_world_fini();
}

/**
 * fuzz_qp_run() - one fuzz input through the transport
 * @data: the input
 * @size: its length
 * @mode: responder or requester
 *
 * Return: 0 (libFuzzer's convention); failures abort.
 */
int fuzz_qp_run(const uint8_t *data, size_t size, enum fuzz_qp_mode mode)
{
	struct fuzz_in in = { data, size };
	struct fq f = { .mode = mode, .wr_id = 1 };
	unsigned int n;
	u8 cfg[6];

	fuzz_bytes(&in, cfg, sizeof(cfg));
	fq_setup(&f, cfg);
	for (n = 0; in.n && n < FQ_MAX_EVENTS; n++) {
		fq_event(&f, &in, cfg);
		kshim_run_work();
		fq_check(&f);
	}
	fq_teardown(&f);
	return 0;
}
