/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pib's tracepoints (TRACE_SYSTEM pib), for trace-cmd, perf and tracefs:
 * verbs (create, modify, destroy), doorbells and the WQEs the requester
 * fetches, packets sent, received and dropped (with the reason), ACKs,
 * NAKs and RNR NAKs, retransmits, completions, async events, and MADs at
 * the SMA, the PMA and the switch's SMA. Enable them all with
 *
 *	echo 1 > /sys/kernel/tracing/events/pib/enable
 *
 * docs/debugging.md lists them. Only pib_trace.c defines them
 * (CREATE_TRACE_POINTS); every other file includes this header after
 * pib.h.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pib

#if !defined(PIB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define PIB_TRACE_H

#include <linux/tracepoint.h>

/* The device (or, for the switch, the netdev) an event is about. */
#define PIB_TR_WHERE		__array(char, where, IB_DEVICE_NAME_MAX)
#define PIB_TR_SET_WHERE(name)	strscpy(__entry->where, (name), IB_DEVICE_NAME_MAX)

#define PIB_TR_QPT			\
	pib_tr_qpt(SMI)			\
	pib_tr_qpt(GSI)			\
	pib_tr_qpt(RC)			\
	pib_tr_qpt(UC)			\
	pib_tr_qpt(UD)			\
	pib_tr_qpt(XRC_INI)		\
	pib_tr_qpt_end(XRC_TGT)

#define PIB_TR_QPS			\
	pib_tr_qps(RESET)			\
	pib_tr_qps(INIT)			\
	pib_tr_qps(RTR)			\
	pib_tr_qps(RTS)			\
	pib_tr_qps(SQD)			\
	pib_tr_qps(SQE)			\
	pib_tr_qps_end(ERR)

#define PIB_TR_WC_STATUS		\
	pib_tr_wcs(SUCCESS)		\
	pib_tr_wcs(LOC_LEN_ERR)		\
	pib_tr_wcs(LOC_QP_OP_ERR)		\
	pib_tr_wcs(LOC_EEC_OP_ERR)		\
	pib_tr_wcs(LOC_PROT_ERR)		\
	pib_tr_wcs(WR_FLUSH_ERR)		\
	pib_tr_wcs(MW_BIND_ERR)		\
	pib_tr_wcs(BAD_RESP_ERR)		\
	pib_tr_wcs(LOC_ACCESS_ERR)		\
	pib_tr_wcs(REM_INV_REQ_ERR)	\
	pib_tr_wcs(REM_ACCESS_ERR)		\
	pib_tr_wcs(REM_OP_ERR)		\
	pib_tr_wcs(RETRY_EXC_ERR)		\
	pib_tr_wcs(RNR_RETRY_EXC_ERR)	\
	pib_tr_wcs(LOC_RDD_VIOL_ERR)	\
	pib_tr_wcs(REM_INV_RD_REQ_ERR)	\
	pib_tr_wcs(REM_ABORT_ERR)		\
	pib_tr_wcs(INV_EECN_ERR)		\
	pib_tr_wcs(INV_EEC_STATE_ERR)	\
	pib_tr_wcs(FATAL_ERR)		\
	pib_tr_wcs(RESP_TIMEOUT_ERR)	\
	pib_tr_wcs_end(GENERAL_ERR)

#define PIB_TR_EVENTS			\
	pib_tr_ev(CQ_ERR)			\
	pib_tr_ev(QP_FATAL)		\
	pib_tr_ev(QP_REQ_ERR)		\
	pib_tr_ev(QP_ACCESS_ERR)		\
	pib_tr_ev(COMM_EST)		\
	pib_tr_ev(SQ_DRAINED)		\
	pib_tr_ev(PATH_MIG)		\
	pib_tr_ev(PATH_MIG_ERR)		\
	pib_tr_ev(DEVICE_FATAL)		\
	pib_tr_ev(PORT_ACTIVE)		\
	pib_tr_ev(PORT_ERR)		\
	pib_tr_ev(LID_CHANGE)		\
	pib_tr_ev(PKEY_CHANGE)		\
	pib_tr_ev(SM_CHANGE)		\
	pib_tr_ev(SRQ_ERR)			\
	pib_tr_ev(SRQ_LIMIT_REACHED)	\
	pib_tr_ev(QP_LAST_WQE_REACHED)	\
	pib_tr_ev(CLIENT_REREGISTER)	\
	pib_tr_ev(GID_CHANGE)		\
	pib_tr_ev_end(WQ_FATAL)

#define PIB_TR_DROPS			\
	pib_tr_drop(PORT_DOWN)		\
	pib_tr_drop(MALFORMED)		\
	pib_tr_drop(DLID)			\
	pib_tr_drop(DGID)			\
	pib_tr_drop(NO_QP)			\
	pib_tr_drop(TRANSPORT)		\
	pib_tr_drop(PKEY)			\
	pib_tr_drop(MAD)			\
	pib_tr_drop(SLID)			\
	pib_tr_drop(NOT_ACTIVE)		\
	pib_tr_drop(UNROUTED)		\
	pib_tr_drop(INJECTED)		\
	pib_tr_drop(MCAST_GID)		\
	pib_tr_drop(QKEY)			\
	pib_tr_drop(NO_WQE)		\
	pib_tr_drop_end(QP_STATE)

#define PIB_TR_RETRIES			\
	pib_tr_retry(TIMEOUT)		\
	pib_tr_retry(SEQ_NAK)		\
	pib_tr_retry(READ_GAP)		\
	pib_tr_retry_end(PROBE)

#define PIB_TR_MR_TYPES			\
	pib_tr_mr(DMA)			\
	pib_tr_mr(USER)			\
	pib_tr_mr(FAST)			\
	pib_tr_mr_end(MW)

#define PIB_TR_WR_OPCODES		\
	pib_tr_wr(RDMA_WRITE)		\
	pib_tr_wr(RDMA_WRITE_WITH_IMM)	\
	pib_tr_wr(SEND)			\
	pib_tr_wr(SEND_WITH_IMM)	\
	pib_tr_wr(RDMA_READ)		\
	pib_tr_wr(ATOMIC_CMP_AND_SWP)	\
	pib_tr_wr(ATOMIC_FETCH_AND_ADD)	\
	pib_tr_wr(LOCAL_INV)		\
	pib_tr_wr(BIND_MW)		\
	pib_tr_wr(SEND_WITH_INV)	\
	pib_tr_wr(FLUSH)		\
	pib_tr_wr(ATOMIC_WRITE)		\
	pib_tr_wr_end(REG_MR)

#define PIB_TR_PKT_ERRS			\
	pib_tr_perr_ok(OK)		\
	pib_tr_perr(SHORT)		\
	pib_tr_perr(BAD_LEN)		\
	pib_tr_perr(BAD_VCRC)		\
	pib_tr_perr(BAD_LVER)		\
	pib_tr_perr(BAD_LNH)		\
	pib_tr_perr(BAD_GRH)		\
	pib_tr_perr(BAD_TVER)		\
	pib_tr_perr(BAD_OPCODE)		\
	pib_tr_perr(BAD_PAYLOAD)	\
	pib_tr_perr(BAD_ICRC)		\
	pib_tr_perr(BAD_VL15)		\
	pib_tr_perr_end(BAD_SLID)

#define PIB_TR_OPCODES							\
	pib_tr_op(RC_SEND_FIRST) pib_tr_op(RC_SEND_MIDDLE)		\
	pib_tr_op(RC_SEND_LAST) pib_tr_op(RC_SEND_LAST_WITH_IMMEDIATE)	\
	pib_tr_op(RC_SEND_ONLY) pib_tr_op(RC_SEND_ONLY_WITH_IMMEDIATE)	\
	pib_tr_op(RC_RDMA_WRITE_FIRST) pib_tr_op(RC_RDMA_WRITE_MIDDLE)	\
	pib_tr_op(RC_RDMA_WRITE_LAST)					\
	pib_tr_op(RC_RDMA_WRITE_LAST_WITH_IMMEDIATE)			\
	pib_tr_op(RC_RDMA_WRITE_ONLY)					\
	pib_tr_op(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)			\
	pib_tr_op(RC_RDMA_READ_REQUEST)					\
	pib_tr_op(RC_RDMA_READ_RESPONSE_FIRST)				\
	pib_tr_op(RC_RDMA_READ_RESPONSE_MIDDLE)				\
	pib_tr_op(RC_RDMA_READ_RESPONSE_LAST)				\
	pib_tr_op(RC_RDMA_READ_RESPONSE_ONLY)				\
	pib_tr_op(RC_ACKNOWLEDGE) pib_tr_op(RC_ATOMIC_ACKNOWLEDGE)	\
	pib_tr_op(RC_COMPARE_SWAP) pib_tr_op(RC_FETCH_ADD)		\
	pib_tr_op(RC_SEND_LAST_WITH_INVALIDATE)				\
	pib_tr_op(RC_SEND_ONLY_WITH_INVALIDATE)				\
	pib_tr_pop(RC_FLUSH) pib_tr_pop(RC_ATOMIC_WRITE)		\
	pib_tr_op(UC_SEND_FIRST) pib_tr_op(UC_SEND_MIDDLE)		\
	pib_tr_op(UC_SEND_LAST) pib_tr_op(UC_SEND_LAST_WITH_IMMEDIATE)	\
	pib_tr_op(UC_SEND_ONLY) pib_tr_op(UC_SEND_ONLY_WITH_IMMEDIATE)	\
	pib_tr_op(UC_RDMA_WRITE_FIRST) pib_tr_op(UC_RDMA_WRITE_MIDDLE)	\
	pib_tr_op(UC_RDMA_WRITE_LAST)					\
	pib_tr_op(UC_RDMA_WRITE_LAST_WITH_IMMEDIATE)			\
	pib_tr_op(UC_RDMA_WRITE_ONLY)					\
	pib_tr_op(UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)			\
	pib_tr_op(UD_SEND_ONLY)						\
	pib_tr_op_end(UD_SEND_ONLY_WITH_IMMEDIATE)

/* Tell userspace tools the enums' values, then make the symbol lists. */
#undef pib_tr_qpt
#undef pib_tr_qpt_end
#undef pib_tr_qps
#undef pib_tr_qps_end
#undef pib_tr_wcs
#undef pib_tr_wcs_end
#undef pib_tr_ev
#undef pib_tr_ev_end
#undef pib_tr_drop
#undef pib_tr_drop_end
#undef pib_tr_retry
#undef pib_tr_retry_end
#undef pib_tr_mr
#undef pib_tr_mr_end
#undef pib_tr_wr
#undef pib_tr_wr_end
#undef pib_tr_perr
#undef pib_tr_perr_end
#undef pib_tr_perr_ok
#undef pib_tr_op
#undef pib_tr_op_end
#undef pib_tr_pop
#define pib_tr_qpt(x)		TRACE_DEFINE_ENUM(IB_QPT_##x);
#define pib_tr_qpt_end(x)	TRACE_DEFINE_ENUM(IB_QPT_##x);
#define pib_tr_qps(x)		TRACE_DEFINE_ENUM(IB_QPS_##x);
#define pib_tr_qps_end(x)	TRACE_DEFINE_ENUM(IB_QPS_##x);
#define pib_tr_wcs(x)		TRACE_DEFINE_ENUM(IB_WC_##x);
#define pib_tr_wcs_end(x)	TRACE_DEFINE_ENUM(IB_WC_##x);
#define pib_tr_ev(x)		TRACE_DEFINE_ENUM(IB_EVENT_##x);
#define pib_tr_ev_end(x)	TRACE_DEFINE_ENUM(IB_EVENT_##x);
#define pib_tr_drop(x)		TRACE_DEFINE_ENUM(PIB_DROP_##x);
#define pib_tr_drop_end(x)	TRACE_DEFINE_ENUM(PIB_DROP_##x);
#define pib_tr_retry(x)		TRACE_DEFINE_ENUM(PIB_RETRY_##x);
#define pib_tr_retry_end(x)	TRACE_DEFINE_ENUM(PIB_RETRY_##x);
#define pib_tr_mr(x)		TRACE_DEFINE_ENUM(PIB_MR_##x);
#define pib_tr_mr_end(x)	TRACE_DEFINE_ENUM(PIB_MR_##x);
#define pib_tr_wr(x)		TRACE_DEFINE_ENUM(PIB_WR_##x);
#define pib_tr_wr_end(x)	TRACE_DEFINE_ENUM(PIB_WR_##x);
#define pib_tr_perr(x)		TRACE_DEFINE_ENUM(PIB_PKT_##x);
#define pib_tr_perr_end(x)	TRACE_DEFINE_ENUM(PIB_PKT_##x);
#define pib_tr_perr_ok(x)	TRACE_DEFINE_ENUM(PIB_PKT_##x);
#define pib_tr_op(x)		TRACE_DEFINE_ENUM(IB_OPCODE_##x);
#define pib_tr_op_end(x)	TRACE_DEFINE_ENUM(IB_OPCODE_##x);
#define pib_tr_pop(x)		/* pib's own macros: no enum to tell */

PIB_TR_QPT
PIB_TR_QPS
PIB_TR_WC_STATUS
PIB_TR_EVENTS
PIB_TR_DROPS
PIB_TR_RETRIES
PIB_TR_MR_TYPES
PIB_TR_WR_OPCODES
PIB_TR_PKT_ERRS
PIB_TR_OPCODES

#undef pib_tr_qpt
#undef pib_tr_qpt_end
#undef pib_tr_qps
#undef pib_tr_qps_end
#undef pib_tr_wcs
#undef pib_tr_wcs_end
#undef pib_tr_ev
#undef pib_tr_ev_end
#undef pib_tr_drop
#undef pib_tr_drop_end
#undef pib_tr_retry
#undef pib_tr_retry_end
#undef pib_tr_mr
#undef pib_tr_mr_end
#undef pib_tr_wr
#undef pib_tr_wr_end
#undef pib_tr_perr
#undef pib_tr_perr_end
#undef pib_tr_perr_ok
#undef pib_tr_op
#undef pib_tr_op_end
#undef pib_tr_pop
#define pib_tr_qpt(x)		{ IB_QPT_##x, #x },
#define pib_tr_qpt_end(x)	{ IB_QPT_##x, #x }
#define pib_tr_qps(x)		{ IB_QPS_##x, #x },
#define pib_tr_qps_end(x)	{ IB_QPS_##x, #x }
#define pib_tr_wcs(x)		{ IB_WC_##x, #x },
#define pib_tr_wcs_end(x)	{ IB_WC_##x, #x }
#define pib_tr_ev(x)		{ IB_EVENT_##x, #x },
#define pib_tr_ev_end(x)	{ IB_EVENT_##x, #x }
#define pib_tr_drop(x)		{ PIB_DROP_##x, #x },
#define pib_tr_drop_end(x)	{ PIB_DROP_##x, #x }
#define pib_tr_retry(x)		{ PIB_RETRY_##x, #x },
#define pib_tr_retry_end(x)	{ PIB_RETRY_##x, #x }
#define pib_tr_mr(x)		{ PIB_MR_##x, #x },
#define pib_tr_mr_end(x)	{ PIB_MR_##x, #x }
#define pib_tr_wr(x)		{ PIB_WR_##x, #x },
#define pib_tr_wr_end(x)	{ PIB_WR_##x, #x }
#define pib_tr_perr(x)		{ PIB_PKT_##x, #x },
#define pib_tr_perr_end(x)	{ PIB_PKT_##x, #x }
#define pib_tr_perr_ok(x)	{ PIB_PKT_##x, "-" },
#define pib_tr_op(x)		{ IB_OPCODE_##x, #x },
#define pib_tr_op_end(x)	{ IB_OPCODE_##x, #x }
#define pib_tr_pop(x)		{ PIB_OPCODE_##x, #x },

#define pib_show_qpt(v)		__print_symbolic(v, PIB_TR_QPT)
#define pib_show_qps(v)		__print_symbolic(v, PIB_TR_QPS)
#define pib_show_wcs(v)		__print_symbolic(v, PIB_TR_WC_STATUS)
#define pib_show_event(v)	__print_symbolic(v, PIB_TR_EVENTS)
#define pib_show_drop(v)	__print_symbolic(v, PIB_TR_DROPS)
#define pib_show_retry(v)	__print_symbolic(v, PIB_TR_RETRIES)
#define pib_show_mr(v)		__print_symbolic(v, PIB_TR_MR_TYPES)
#define pib_show_wr(v)		__print_symbolic(v, PIB_TR_WR_OPCODES)
#define pib_show_perr(v)	__print_symbolic(v, PIB_TR_PKT_ERRS)
#define pib_show_op(v)		__print_symbolic(v, PIB_TR_OPCODES)
/* AETH syndromes (IBA 9.7.5.2.7): the type in bits 6-5. */
#define pib_show_aeth(syn)	__print_symbolic(((syn) >> 5) & 3, \
						 { 0, "ACK" }, { 1, "RNR" }, \
						 { 2, "reserved" }, { 3, "NAK" })

/* ---- Verbs ---- */

DECLARE_EVENT_CLASS(pib_qp_class,
	TP_PROTO(const struct pib_qp *qp),
	TP_ARGS(qp),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(u32, qpn)
		__field(u32, type)
		__field(u32, state)
		__field(u32, sq)
		__field(u32, rq)
		__field(bool, srq)
		__field(bool, user)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(qp->ibqp.device->name);
		__entry->qpn = qp->ibqp.qp_num;
		__entry->type = qp->ibqp.qp_type;
		__entry->state = qp->state;
		__entry->sq = qp->sq.ring.num;
		__entry->rq = qp->rq.num;
		__entry->srq = !!qp->srq;
		__entry->user = qp->user;
	),
	TP_printk("%s qpn 0x%x %s %s sq %u rq %u%s%s",
		  __entry->where, __entry->qpn, pib_show_qpt(__entry->type),
		  pib_show_qps(__entry->state), __entry->sq, __entry->rq,
		  __entry->srq ? " srq" : "", __entry->user ? " user" : "")
);

DEFINE_EVENT(pib_qp_class, pib_qp_create,
	TP_PROTO(const struct pib_qp *qp),
	TP_ARGS(qp));

DEFINE_EVENT(pib_qp_class, pib_qp_destroy,
	TP_PROTO(const struct pib_qp *qp),
	TP_ARGS(qp));

TRACE_EVENT(pib_qp_modify,
	TP_PROTO(const struct pib_qp *qp, const struct ib_qp_attr *attr,
		 int mask, u32 cur, u32 new, int err),
	TP_ARGS(qp, attr, mask, cur, new, err),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(u32, qpn)
		__field(u32, cur)
		__field(u32, new)
		__field(u32, mask)
		__field(int, err)
		__field(u32, dest_qpn)
		__field(u32, rq_psn)
		__field(u32, sq_psn)
		__field(u32, mtu)
		__field(u16, dlid)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(qp->ibqp.device->name);
		__entry->qpn = qp->ibqp.qp_num;
		__entry->cur = cur;
		__entry->new = new;
		__entry->mask = mask;
		__entry->err = err;
		__entry->dest_qpn = mask & IB_QP_DEST_QPN ? attr->dest_qp_num : 0;
		__entry->rq_psn = mask & IB_QP_RQ_PSN ? attr->rq_psn : 0;
		__entry->sq_psn = mask & IB_QP_SQ_PSN ? attr->sq_psn : 0;
		__entry->mtu = mask & IB_QP_PATH_MTU ?
			       ib_mtu_enum_to_int(attr->path_mtu) : 0;
		__entry->dlid = mask & IB_QP_AV ?
				rdma_ah_get_dlid(&attr->ah_attr) : 0;
	),
	TP_printk("%s qpn 0x%x %s -> %s mask 0x%x dest_qpn 0x%x rq_psn %u sq_psn %u mtu %u dlid 0x%x: %d",
		  __entry->where, __entry->qpn, pib_show_qps(__entry->cur),
		  pib_show_qps(__entry->new), __entry->mask, __entry->dest_qpn,
		  __entry->rq_psn, __entry->sq_psn, __entry->mtu,
		  __entry->dlid, __entry->err)
);

DECLARE_EVENT_CLASS(pib_cq_class,
	TP_PROTO(const struct pib_cq *cq),
	TP_ARGS(cq),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(const void *, cq)
		__field(int, cqe)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(cq->ibcq.device->name);
		__entry->cq = cq;
		__entry->cqe = cq->ibcq.cqe;
	),
	TP_printk("%s cq %p cqe %d", __entry->where, __entry->cq,
		  __entry->cqe)
);

DEFINE_EVENT(pib_cq_class, pib_cq_create,
	TP_PROTO(const struct pib_cq *cq),
	TP_ARGS(cq));

DEFINE_EVENT(pib_cq_class, pib_cq_resize,
	TP_PROTO(const struct pib_cq *cq),
	TP_ARGS(cq));

DEFINE_EVENT(pib_cq_class, pib_cq_destroy,
	TP_PROTO(const struct pib_cq *cq),
	TP_ARGS(cq));

DECLARE_EVENT_CLASS(pib_srq_class,
	TP_PROTO(const struct pib_srq *srq),
	TP_ARGS(srq),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(const void *, srq)
		__field(u32, max_wr)
		__field(u32, max_sge)
		__field(u32, limit)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(srq->ibsrq.device->name);
		__entry->srq = srq;
		__entry->max_wr = srq->ring.num;
		__entry->max_sge = srq->max_sge;
		__entry->limit = srq->limit;
	),
	TP_printk("%s srq %p max_wr %u max_sge %u limit %u",
		  __entry->where, __entry->srq, __entry->max_wr,
		  __entry->max_sge, __entry->limit)
);

DEFINE_EVENT(pib_srq_class, pib_srq_create,
	TP_PROTO(const struct pib_srq *srq),
	TP_ARGS(srq));

DEFINE_EVENT(pib_srq_class, pib_srq_modify,
	TP_PROTO(const struct pib_srq *srq),
	TP_ARGS(srq));

DEFINE_EVENT(pib_srq_class, pib_srq_destroy,
	TP_PROTO(const struct pib_srq *srq),
	TP_ARGS(srq));

DECLARE_EVENT_CLASS(pib_mr_class,
	TP_PROTO(const struct pib_dev *dev, const struct pib_mr *mr),
	TP_ARGS(dev, mr),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(u32, type)
		__field(u32, key)
		__field(u64, iova)
		__field(u64, length)
		__field(int, access)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(dev->ibdev.name);
		__entry->type = mr->type;
		__entry->key = mr->key;
		__entry->iova = mr->ibmr.iova;
		__entry->length = mr->ibmr.length;
		__entry->access = mr->access;
	),
	TP_printk("%s %s key 0x%08x iova 0x%llx length %llu access 0x%x",
		  __entry->where,
		  pib_show_mr(__entry->type),
		  __entry->key, __entry->iova,
		  __entry->length, __entry->access)
);

DEFINE_EVENT(pib_mr_class, pib_mr_reg,
	TP_PROTO(const struct pib_dev *dev, const struct pib_mr *mr),
	TP_ARGS(dev, mr));

DEFINE_EVENT(pib_mr_class, pib_mr_dereg,
	TP_PROTO(const struct pib_dev *dev, const struct pib_mr *mr),
	TP_ARGS(dev, mr));

/* ---- Work requests ---- */

TRACE_EVENT(pib_doorbell,
	TP_PROTO(const struct pib_qp *qp, u32 posted, int err),
	TP_ARGS(qp, posted, err),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(u32, qpn)
		__field(u32, posted)
		__field(int, err)
		__field(bool, user)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(qp->ibqp.device->name);
		__entry->qpn = qp->ibqp.qp_num;
		__entry->posted = posted;
		__entry->err = err;
		__entry->user = qp->user;
	),
	TP_printk("%s qpn 0x%x %s %u WQEs: %d", __entry->where, __entry->qpn,
		  __entry->user ? "user doorbell," : "posted",
		  __entry->posted, __entry->err)
);

TRACE_EVENT(pib_wqe_fetch,
	TP_PROTO(const struct pib_qp *qp, u32 idx,
		 const struct pib_send_wqe *wqe, u64 len, bool ok),
	TP_ARGS(qp, idx, wqe, len, ok),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(u32, qpn)
		__field(u32, idx)
		__field(u64, wr_id)
		__field(u32, opcode)
		__field(u32, flags)
		__field(u32, num_sge)
		__field(u64, len)
		__field(bool, ok)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(qp->ibqp.device->name);
		__entry->qpn = qp->ibqp.qp_num;
		__entry->idx = idx;
		__entry->wr_id = wqe->wr_id;
		__entry->opcode = wqe->opcode;
		__entry->flags = wqe->send_flags;
		__entry->num_sge = wqe->num_sge;
		__entry->len = len;
		__entry->ok = ok;
	),
	TP_printk("%s qpn 0x%x wqe %u wr_id 0x%llx %s flags 0x%x sge %u len %llu%s",
		  __entry->where, __entry->qpn, __entry->idx, __entry->wr_id,
		  pib_show_wr(__entry->opcode),
		  __entry->flags, __entry->num_sge, __entry->len,
		  __entry->ok ? "" : " (invalid: LOC_QP_OP_ERR)")
);

/* ---- Packets ---- */

#define PIB_TR_PKT_FIELDS		\
	PIB_TR_WHERE			\
	__field(u32, pkt_len)	\
	__field(u32, dqpn)		\
	__field(u32, psn)		\
	__field(u16, slid)		\
	__field(u16, dlid)		\
	__field(u8, vl)			\
	__field(u8, lnh)		\
	__field(u8, opcode)

#define PIB_TR_PKT_ASSIGN(buf, len)					\
	do {								\
		struct pib_pkt_brief h;					\
									\
		__entry->pkt_len = (len);				\
		pib_pkt_brief((buf), __entry->pkt_len, &h);		\
		__entry->dqpn = h.dqpn;					\
		__entry->psn = h.psn;					\
		__entry->slid = h.slid;					\
		__entry->dlid = h.dlid;					\
		__entry->vl = h.vl;					\
		__entry->lnh = h.lnh;					\
		__entry->opcode = h.opcode;				\
	} while (0)

#define PIB_TR_PKT_FMT "slid 0x%x dlid 0x%x vl %u %s qpn 0x%x psn %u len %u"
#define PIB_TR_PKT_ARGS							\
	__entry->slid, __entry->dlid, __entry->vl,			\
	__entry->lnh < 2 ? (__entry->lnh ? "IPv6" : "raw") :		\
	pib_show_op(__entry->opcode),					\
	__entry->dqpn, __entry->psn, __entry->pkt_len

DECLARE_EVENT_CLASS(pib_pkt_class,
	TP_PROTO(const struct ib_device *ibdev, const u8 *buf, u32 len),
	TP_ARGS(ibdev, buf, len),
	TP_STRUCT__entry(
		PIB_TR_PKT_FIELDS
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(ibdev->name);
		PIB_TR_PKT_ASSIGN(buf, len);
	),
	TP_printk("%s " PIB_TR_PKT_FMT, __entry->where, PIB_TR_PKT_ARGS)
);

/* A packet leaves the HCA's port for its switch. */
DEFINE_EVENT(pib_pkt_class, pib_pkt_tx,
	TP_PROTO(const struct ib_device *ibdev, const u8 *buf, u32 len),
	TP_ARGS(ibdev, buf, len));

/* A packet reaches the HCA's port from its switch. */
DEFINE_EVENT(pib_pkt_class, pib_pkt_rx,
	TP_PROTO(const struct ib_device *ibdev, const u8 *buf, u32 len),
	TP_ARGS(ibdev, buf, len));

/*
 * A packet dropped by the HCA (@where: the device) or by the switch
 * (@where: its netdev), for @reason; @err is enum pib_pkt_err for a
 * malformed one.
 */
TRACE_EVENT(pib_pkt_drop,
	TP_PROTO(const char *where, const u8 *buf, u32 len, int reason,
		 int err),
	TP_ARGS(where, buf, len, reason, err),
	TP_STRUCT__entry(
		PIB_TR_PKT_FIELDS
		__field(int, reason)
		__field(int, err)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(where);
		PIB_TR_PKT_ASSIGN(buf, len);
		__entry->reason = reason;
		__entry->err = err;
	),
	TP_printk("%s %s %s " PIB_TR_PKT_FMT, __entry->where,
		  pib_show_drop(__entry->reason), pib_show_perr(__entry->err),
		  PIB_TR_PKT_ARGS)
);

/* ---- RC transport ---- */

DECLARE_EVENT_CLASS(pib_aeth_class,
	TP_PROTO(const struct pib_qp *qp, u32 psn, u8 syn),
	TP_ARGS(qp, psn, syn),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(u32, qpn)
		__field(u32, psn)
		__field(u8, syn)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(qp->ibqp.device->name);
		__entry->qpn = qp->ibqp.qp_num;
		__entry->psn = psn;
		__entry->syn = syn;
	),
	TP_printk("%s qpn 0x%x psn %u %s %u (syndrome 0x%02x)",
		  __entry->where, __entry->qpn, __entry->psn,
		  pib_show_aeth(__entry->syn), __entry->syn & 0x1f,
		  __entry->syn)
);

/* The requester gets an ACK, NAK or RNR NAK. */
DEFINE_EVENT(pib_aeth_class, pib_aeth_rx,
	TP_PROTO(const struct pib_qp *qp, u32 psn, u8 syn),
	TP_ARGS(qp, psn, syn));

/* The responder sends one. */
DEFINE_EVENT(pib_aeth_class, pib_aeth_tx,
	TP_PROTO(const struct pib_qp *qp, u32 psn, u8 syn),
	TP_ARGS(qp, psn, syn));

/*
 * The requester goes back to its oldest unacknowledged WQE, with
 * @retry_left retries left after this one; below zero, none was left and
 * the WQE fails with RETRY_EXC_ERR.
 */
TRACE_EVENT(pib_retransmit,
	TP_PROTO(const struct pib_qp *qp, int cause, int retry_left),
	TP_ARGS(qp, cause, retry_left),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(u32, qpn)
		__field(u32, acked_psn)
		__field(int, cause)
		__field(u32, retry_left)
		__field(bool, exceeded)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(qp->ibqp.device->name);
		__entry->qpn = qp->ibqp.qp_num;
		__entry->acked_psn = qp->req.acked_psn;
		__entry->cause = cause;
		__entry->retry_left = retry_left < 0 ? 0 : retry_left;
		__entry->exceeded = retry_left < 0;
	),
	TP_printk("%s qpn 0x%x after psn %u: %s, %s, %d retries left",
		  __entry->where, __entry->qpn, __entry->acked_psn,
		  pib_show_retry(__entry->cause),
		  __entry->exceeded ? "retry exceeded" : "retransmit",
		  __entry->retry_left)
);

/* An RNR NAK: the requester waits, then sends again. */
TRACE_EVENT(pib_rnr_wait,
	TP_PROTO(const struct pib_qp *qp, u32 usecs, int rnr_left),
	TP_ARGS(qp, usecs, rnr_left),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(u32, qpn)
		__field(u32, usecs)
		__field(u32, rnr_left)
		__field(bool, forever)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(qp->ibqp.device->name);
		__entry->qpn = qp->ibqp.qp_num;
		__entry->usecs = usecs;
		__entry->rnr_left = rnr_left < 0 ? 0 : rnr_left;
		__entry->forever = rnr_left < 0;
	),
	TP_printk("%s qpn 0x%x waits %u us, RNR retries left %u%s",
		  __entry->where, __entry->qpn, __entry->usecs,
		  __entry->rnr_left, __entry->forever ? " (retries forever)" : "")
);

/* ---- Completions and events ---- */

TRACE_EVENT(pib_cqe,
	TP_PROTO(const struct pib_cq *cq, const struct pib_cqe *cqe, bool lost),
	TP_ARGS(cq, cqe, lost),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(u64, wr_id)
		__field(const void *, cq)
		__field(u32, cqn)
		__field(u32, qpn)
		__field(u32, status)
		__field(u32, opcode)
		__field(u32, byte_len)
		__field(u32, vendor_err)
		__field(bool, lost)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(cq->ibcq.device->name);
		__entry->wr_id = cqe->wr_id;
		__entry->cq = cq;
		__entry->cqn = cq->ibcq.res.id;
		__entry->qpn = cqe->qp_num;
		__entry->status = cqe->status;
		__entry->opcode = cqe->opcode;
		__entry->byte_len = cqe->byte_len;
		__entry->vendor_err = cqe->vendor_err;
		__entry->lost = lost;
	),
	TP_printk("%s cq %p cqn %u qpn 0x%x wr_id 0x%llx %s opcode %u byte_len %u vendor_err %u%s",
		  __entry->where, __entry->cq, __entry->cqn, __entry->qpn, __entry->wr_id,
		  pib_show_wcs(__entry->status), __entry->opcode,
		  __entry->byte_len, __entry->vendor_err,
		  __entry->lost ? " LOST (CQ overflow)" : "")
);

/* An async event; @id is the QP number, CQ or SRQ number, or port. */
TRACE_EVENT(pib_async_event,
	TP_PROTO(const struct ib_device *ibdev, int event, u32 id),
	TP_ARGS(ibdev, event, id),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(int, event)
		__field(u32, id)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(ibdev->name);
		__entry->event = event;
		__entry->id = id;
	),
	TP_printk("%s %s %u", __entry->where, pib_show_event(__entry->event),
		  __entry->id)
);

/* ---- MADs ---- */

/*
 * A MAD for an agent of pib's (@where: the device's SMA and PMA, or the
 * switch's SMA under its netdev's name), and its reply's status (-1: no
 * reply).
 */
TRACE_EVENT(pib_mad,
	TP_PROTO(const char *where, u32 port, const struct ib_mad_hdr *mad,
		 int status),
	TP_ARGS(where, port, mad, status),
	TP_STRUCT__entry(
		PIB_TR_WHERE
		__field(u64, tid)
		__field(u32, port)
		__field(u32, attr_mod)
		__field(u16, status)
		__field(bool, reply)
		__field(u16, attr_id)
		__field(u8, mgmt_class)
		__field(u8, method)
	),
	TP_fast_assign(
		PIB_TR_SET_WHERE(where);
		__entry->tid = be64_to_cpu(mad->tid);
		__entry->port = port;
		__entry->attr_mod = be32_to_cpu(mad->attr_mod);
		__entry->status = status < 0 ? 0 : status;
		__entry->reply = status >= 0;
		__entry->attr_id = be16_to_cpu(mad->attr_id);
		__entry->mgmt_class = mad->mgmt_class;
		__entry->method = mad->method;
	),
	TP_printk("%s port %u class 0x%02x method 0x%02x attr 0x%04x mod 0x%x tid 0x%llx: %s 0x%x",
		  __entry->where, __entry->port, __entry->mgmt_class,
		  __entry->method, __entry->attr_id, __entry->attr_mod,
		  __entry->tid, __entry->reply ? "status" : "no reply",
		  __entry->status)
);

#endif /* PIB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE pib_trace
#include <trace/define_trace.h>
