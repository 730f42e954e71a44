// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The requester: fetches send WQEs from the SQ ring (checked copies),
 * executes local operations, turns messages into packets segmented to the
 * path MTU (RC, XRC, UC) or single datagrams (UD), and sends them; RC and
 * XRC keep what they sent until the completer sees it acknowledged. An
 * XRC INI QP is an RC requester whose requests name an XRC SRQ of the
 * remote domain (the WQE's, in their XRCETH). Also the header writer
 * every packet of a QP goes through.
 */
#include <linux/skbuff.h>
#include <rdma/pib-abi.h>

#include "pib.h"
#include "pib_trace.h"

/*
 * An RC requester asks for an ACK at least this often, and at least twice
 * a window (its congestion window, pib_cwnd.h), so that a full window
 * always has an ACK coming.
 */
#define PIB_ACK_REQ_EVERY	32
/* Packets one round of a QP's sending sends before it yields. */
#define PIB_REQ_BUDGET		64
/* Rounds of pib_qp_run() before it leaves the rest to the QP's work. */
#define PIB_QP_ROUNDS		4

/*
 * A QP's transport (RC for XRC INI QPs, UD for the special QPs too), as an
 * index and a bit.
 */
enum pib_qpt_idx {
	PIB_QPT_IDX_RC,
	PIB_QPT_IDX_UC,
	PIB_QPT_IDX_UD,
	PIB_QPT_NUM
};

#define PIB_QPT_RC		BIT(PIB_QPT_IDX_RC)
#define PIB_QPT_UC		BIT(PIB_QPT_IDX_UC)
#define PIB_QPT_UD		BIT(PIB_QPT_IDX_UD)

/* What a WQE opcode does. */
#define PIB_WRF_SEND		BIT(0)	/* payload to a receive WQE */
#define PIB_WRF_WRITE		BIT(1)	/* payload to remote memory (RETH) */
#define PIB_WRF_READ		BIT(2)	/* remote memory to the SGEs */
#define PIB_WRF_ATOMIC		BIT(3)	/* 8 bytes, ATOMICETH */
#define PIB_WRF_IMM		BIT(4)	/* immediate data on the last packet */
#define PIB_WRF_INV		BIT(5)	/* IETH on the last packet */
#define PIB_WRF_LOCAL		BIT(6)	/* no packet: LOCAL_INV, REG_MR, BIND_MW */
#define PIB_WRF_FLUSH		BIT(7)	/* FETH and RETH, no payload */
#define PIB_WRF_ATOMIC_WRITE	BIT(8)	/* the WQE's 8 bytes (RETH) */
/* One request packet, answered by a response (READ: of many packets). */
#define PIB_WRF_RESPONSE	(PIB_WRF_READ | PIB_WRF_ATOMIC | PIB_WRF_FLUSH | \
				 PIB_WRF_ATOMIC_WRITE)

/**
 * struct pib_wr_rule - the rules of one send WQE opcode
 * @qp_types: PIB_QPT_* that may post it
 * @flags: PIB_WRF_*
 * @wc_opcode: enum ib_wc_opcode of its completion
 * @only: by enum pib_qpt_idx, the BTH opcode of a message in one packet;
 *	pib_opcodes[] names those of longer ones
 */
struct pib_wr_rule {
	u8 qp_types;
	u16 flags;
	u8 wc_opcode;
	u8 only[PIB_QPT_NUM];
};

static const struct pib_wr_rule pib_wr_rules[] = {
	[PIB_WR_RDMA_WRITE] = { PIB_QPT_RC | PIB_QPT_UC, PIB_WRF_WRITE,
		IB_WC_RDMA_WRITE, { IB_OPCODE_RC_RDMA_WRITE_ONLY,
				    IB_OPCODE_UC_RDMA_WRITE_ONLY } },
	[PIB_WR_RDMA_WRITE_WITH_IMM] = { PIB_QPT_RC | PIB_QPT_UC,
		PIB_WRF_WRITE | PIB_WRF_IMM, IB_WC_RDMA_WRITE,
		{ IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
		  IB_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE } },
	[PIB_WR_SEND] = { PIB_QPT_RC | PIB_QPT_UC | PIB_QPT_UD, PIB_WRF_SEND,
		IB_WC_SEND, { IB_OPCODE_RC_SEND_ONLY, IB_OPCODE_UC_SEND_ONLY,
			      IB_OPCODE_UD_SEND_ONLY } },
	[PIB_WR_SEND_WITH_IMM] = { PIB_QPT_RC | PIB_QPT_UC | PIB_QPT_UD,
		PIB_WRF_SEND | PIB_WRF_IMM, IB_WC_SEND,
		{ IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE,
		  IB_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE,
		  IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE } },
	[PIB_WR_RDMA_READ] = { PIB_QPT_RC, PIB_WRF_READ, IB_WC_RDMA_READ,
		{ IB_OPCODE_RC_RDMA_READ_REQUEST } },
	[PIB_WR_ATOMIC_CMP_AND_SWP] = { PIB_QPT_RC, PIB_WRF_ATOMIC,
		IB_WC_COMP_SWAP, { IB_OPCODE_RC_COMPARE_SWAP } },
	[PIB_WR_ATOMIC_FETCH_AND_ADD] = { PIB_QPT_RC, PIB_WRF_ATOMIC,
		IB_WC_FETCH_ADD, { IB_OPCODE_RC_FETCH_ADD } },
	[PIB_WR_LOCAL_INV] = { PIB_QPT_RC | PIB_QPT_UC | PIB_QPT_UD,
		PIB_WRF_LOCAL, IB_WC_LOCAL_INV },
	[PIB_WR_BIND_MW] = { PIB_QPT_RC | PIB_QPT_UC, PIB_WRF_LOCAL,
		IB_WC_BIND_MW },
	[PIB_WR_SEND_WITH_INV] = { PIB_QPT_RC, PIB_WRF_SEND | PIB_WRF_INV,
		IB_WC_SEND, { IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE } },
	[PIB_WR_FLUSH] = { PIB_QPT_RC, PIB_WRF_FLUSH, IB_UVERBS_WC_FLUSH,
		{ PIB_OPCODE_RC_FLUSH } },
	[PIB_WR_ATOMIC_WRITE] = { PIB_QPT_RC, PIB_WRF_ATOMIC_WRITE,
		IB_UVERBS_WC_ATOMIC_WRITE, { PIB_OPCODE_RC_ATOMIC_WRITE } },
};

/* The rule of a WQE opcode, or NULL for one pib does not know. */
static const struct pib_wr_rule *pib_wr_rule(u32 opcode)
{
	static const struct pib_wr_rule reg_mr = {
		PIB_QPT_RC | PIB_QPT_UC | PIB_QPT_UD, PIB_WRF_LOCAL, IB_WC_REG_MR
	};

	if (opcode == PIB_WR_REG_MR)
		return &reg_mr;
	if (opcode >= ARRAY_SIZE(pib_wr_rules) || !pib_wr_rules[opcode].qp_types)
		return NULL;
	return &pib_wr_rules[opcode];
}

static enum pib_qpt_idx pib_qpt_idx(struct pib_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
	case IB_QPT_XRC_INI:
		return PIB_QPT_IDX_RC;
	case IB_QPT_UC:
		return PIB_QPT_IDX_UC;
	default:
		return PIB_QPT_IDX_UD;
	}
}

static u8 pib_qpt_bit(struct pib_qp *qp)
{
	return BIT(pib_qpt_idx(qp));
}

/**
 * pib_wqe_has_response() - is a send WQE answered by a response, which
 *	takes one of the responder's resources?
 * @wqe: the WQE
 *
 * Return: true for a READ, an atomic, a FLUSH and an ATOMIC WRITE.
 */
bool pib_wqe_has_response(const struct pib_send_wqe *wqe)
{
	const struct pib_wr_rule *r = pib_wr_rule(wqe->opcode);

	return r && r->flags & PIB_WRF_RESPONSE;
}

/**
 * pib_wqe_wc_opcode() - the completion opcode of a send WQE
 * @wqe: the WQE
 *
 * Return: enum ib_wc_opcode.
 */
u8 pib_wqe_wc_opcode(const struct pib_send_wqe *wqe)
{
	const struct pib_wr_rule *r = pib_wr_rule(wqe->opcode);

	return r ? r->wc_opcode : IB_WC_SEND;
}

/**
 * pib_sq_wqe() - a WQE of the SQ, in the kernel's checked copy
 * @qp: the QP
 * @idx: an SQ index; it wraps
 *
 * Return: the WQE.
 */
struct pib_send_wqe *pib_sq_wqe(struct pib_qp *qp, u32 idx)
{
	return (void *)(qp->sq.shadow +
			(size_t)(idx & (qp->sq.ring.num - 1)) * qp->sq.ring.stride);
}

/**
 * pib_wr_fill_op() - the opcode's own fields of a kernel consumer's send WR
 * @qp: the QP
 * @wr: the WR
 * @wqe: the WQE to fill
 *
 * Return: 0, or -EINVAL for an opcode pib does not have.
 */
int pib_wr_fill_op(struct pib_qp *qp, const struct ib_send_wr *wr,
		   struct pib_send_wqe *wqe)
{
	const struct ib_ud_wr *ud;
	struct rdma_ah_attr *ah;

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		return 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		return 0;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		if (qp->ibqp.qp_type != IB_QPT_UD &&
		    qp->ibqp.qp_type != IB_QPT_SMI &&
		    qp->ibqp.qp_type != IB_QPT_GSI)
			return 0;
		ud = ud_wr(wr);
		if (!ud->ah)
			return -EINVAL;
		ah = &container_of(ud->ah, struct pib_ah, ibah)->attr;
		pib_av_from_ah(ah, &wqe->wr.ud.av);
		wqe->wr.ud.av.pkey_index = ud->pkey_index;
		wqe->wr.ud.remote_qpn = ud->remote_qpn;
		wqe->wr.ud.remote_qkey = ud->remote_qkey;
		return 0;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * pib_reg_wr_to_wqe() - a kernel consumer's REG_MR as a WQE
 * @qp: the QP
 * @wr: the WR
 * @wqe: the WQE to fill
 *
 * The WQE lives in the kernel's own ring: a user's SQ can never carry
 * this opcode (pib_wqe_ok()), so the MR pointer comes only from here.
 *
 * Return: 0.
 */
int pib_reg_wr_to_wqe(struct pib_qp *qp, const struct ib_reg_wr *wr,
		      struct pib_send_wqe *wqe)
{
	wqe->opcode = PIB_WR_REG_MR;
	wqe->wr.reg.mr = wr->mr;
	wqe->wr.reg.key = wr->key;
	wqe->wr.reg.access = wr->access;
	return 0;
}

/* Bytes of a WQE's message; -1 if the SGE lengths overflow. */
static s64 pib_wqe_len(const struct pib_send_wqe *wqe)
{
	u64 len = 0;
	u32 i;

	if (wqe->send_flags & PIB_SEND_INLINE)
		return wqe->num_sge;
	for (i = 0; i < wqe->num_sge; i++)
		len += PIB_WQE_SGE(wqe)[i].length;
	return len > PIB_MAX_MSG ? -1 : len;
}

/*
 * A FLUSH or ATOMIC WRITE WQE: no SGEs, fields the FETH can carry, an
 * aligned ATOMIC WRITE. The state's length is the bytes the RETH names.
 */
static bool pib_wqe_ok_iba15(const struct pib_send_wqe *wqe,
			     struct pib_swqe *st)
{
	if (wqe->num_sge)
		return false;
	if (wqe->opcode == PIB_WR_ATOMIC_WRITE) {
		st->len = sizeof(wqe->wr.atomic_write.data);
		return !(wqe->wr.atomic_write.remote_addr & 7);
	}
	st->len = wqe->wr.flush.length;
	/* (a FLUSH WQE's type and level are the FETH's: test_pkt.c) */
	return pib_flush_ok(wqe->wr.flush.type, wqe->wr.flush.level);
}

/* Is a fetched WQE one this QP may execute? Sets the state's length. */
static bool pib_wqe_ok(struct pib_qp *qp, struct pib_send_wqe *wqe,
		       struct pib_swqe *st)
{
	const struct pib_wr_rule *r = pib_wr_rule(wqe->opcode);
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	bool inl = wqe->send_flags & PIB_SEND_INLINE;
	s64 len;

	if (!r || !(r->qp_types & pib_qpt_bit(qp)) ||
	    qp->ibqp.qp_type == IB_QPT_XRC_TGT ||
	    (qp->user && wqe->opcode == PIB_WR_REG_MR) ||
	    (wqe->opcode == PIB_WR_BIND_MW &&
	     (!qp->user || wqe->num_sge || pib_qp_xrc(qp))))
		return false;
	if (inl && (r->flags & PIB_WRF_RESPONSE))
		return false;
	if (wqe->num_sge > (inl ? qp->sq.max_inline : qp->sq.max_sge))
		return false;
	len = pib_wqe_len(wqe);
	if (len < 0)
		return false;
	st->len = len;
	if (r->flags & PIB_WRF_ATOMIC)
		return len == sizeof(u64) && !(wqe->wr.atomic.remote_addr & 7);
	if (r->flags & (PIB_WRF_FLUSH | PIB_WRF_ATOMIC_WRITE))
		return pib_wqe_ok_iba15(wqe, st);
	if (pib_qpt_bit(qp) == PIB_QPT_UD)
		return len <= ib_mtu_enum_to_int(READ_ONCE(dev->port.active_mtu)) &&
		       wqe->wr.ud.av.sl <= 15 &&
		       (!wqe->wr.ud.av.is_global ||
			wqe->wr.ud.av.sgid_index < PIB_GID_TABLE_LEN);
	return true;
}

/* Packets of a WQE's request (READ: of its response). */
static u32 pib_wqe_npkts(struct pib_qp *qp, const struct pib_send_wqe *wqe,
			 u32 len)
{
	const struct pib_wr_rule *r = pib_wr_rule(wqe->opcode);

	if (r->flags & PIB_WRF_LOCAL)
		return 0;
	if (r->flags & (PIB_WRF_RESPONSE & ~PIB_WRF_READ))
		return 1;
	return max_t(u32, DIV_ROUND_UP(len, qp->mtu), 1);
}

/*
 * Copy the next WQE of the ring into the shadow and check it. Return
 * false if there is none; a bad one completes with IB_WC_LOC_QP_OP_ERR.
 */
static bool pib_req_fetch(struct pib_qp *qp)
{
	struct pib_sq *sq = &qp->sq;
	struct pib_send_wqe *wqe = pib_sq_wqe(qp, sq->fetched);
	struct pib_swqe *st = &sq->st[sq->fetched & (sq->ring.num - 1)];
	bool ok;

	if (!pib_ring_avail(&sq->ring, sq->fetched))
		return false;
	memcpy(wqe, pib_ring_entry(&sq->ring, sq->fetched), sq->ring.stride);
	memset(st, 0, sizeof(*st));
	sq->fetched++;
	ok = pib_wqe_ok(qp, wqe, st);
	if (unlikely(pib_strict(to_pib_dev(qp->ibqp.device))))
		pib_strict_wqe(qp, wqe);
	trace_pib_wqe_fetch(qp, sq->fetched - 1, wqe, st->len, ok);
	if (!ok) {
		pib_sq_complete_error(qp, IB_WC_LOC_QP_OP_ERR);
		return false;
	}
	st->npkts = pib_wqe_npkts(qp, wqe, st->len);
	return true;
}

/**
 * pib_pkt_new() - allocate a packet of a QP and write its LRH, GRH, BTH
 * @qp: the QP
 * @av: where it goes
 * @bth: its BTH; pad is set here
 * @ext_len: bytes of extension headers that follow the BTH
 * @pay_len: bytes of payload
 * @ext: set to where the extension headers go (the payload follows them)
 *
 * Return: the packet, its length final; pib_pkt_seal() it once filled.
 */
struct sk_buff *pib_pkt_new(struct pib_qp *qp, const struct pib_av *av,
			    struct pib_bth *bth, u32 ext_len, u32 pay_len,
			    u8 **ext)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	bool grh = av->is_global;
	u32 hdr = pib_hdr_len(grh ? PIB_LNH_IBA_GLOBAL : PIB_LNH_IBA_LOCAL);
	u32 body = hdr + ext_len + pay_len + (-pay_len & 3);
	struct pib_lrh lrh = {
		.vl = qp->ibqp.qp_type == IB_QPT_SMI ? PIB_VL15 : 0,
		.sl = av->sl,
		.lnh = grh ? PIB_LNH_IBA_GLOBAL : PIB_LNH_IBA_LOCAL,
		.dlid = av->dlid,
	};
	struct sk_buff *skb;
	unsigned long flags;
	u16 pkey_index;

	skb = alloc_skb(pib_tx_headroom(dev->ndev) + body + PIB_ICRC_LEN +
			PIB_VCRC_LEN, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, pib_tx_headroom(dev->ndev));
	skb_put(skb, body + PIB_ICRC_LEN + PIB_VCRC_LEN);
	pkey_index = qp->ibqp.qp_type == IB_QPT_GSI ? av->pkey_index :
						       qp->pkey_index;
	spin_lock_irqsave(&dev->port.lock, flags);
	/*
	 * A directed-route SMP leaves with the permissive DLID and SLID
	 * (IBA 14.2.2): its answer must come back by the path, not by a LID.
	 */
	if (lrh.dlid == PIB_PERMISSIVE_LID || !dev->port.lid)
		lrh.slid = PIB_PERMISSIVE_LID;
	else
		lrh.slid = dev->port.lid |
			   (av->src_path_bits & ((1 << dev->port.lmc) - 1));
	bth->pkey = dev->port.pkeys[pkey_index % PIB_PKEY_TABLE_LEN];
	spin_unlock_irqrestore(&dev->port.lock, flags);
	bth->pad = -pay_len & 3;
	/* BTH MigReq: the sender's path migration state is MIGRATED. */
	bth->mig = pib_qp_connected(qp) && qp->mig_state == IB_MIG_MIGRATED;
	pib_lrh_pack(skb->data, &lrh);
	if (grh)
		pib_pkt_put_grh(dev, av, skb->data, body);
	pib_bth_pack(skb->data + hdr - PIB_BTH_LEN, bth);
	memset(skb->data + body - bth->pad, 0, bth->pad);
	*ext = skb->data + hdr;
	return skb;
}

/**
 * pib_pkt_put_grh() - write the GRH of a packet to an address vector
 * @dev: the sending device
 * @av: the destination
 * @pkt: the packet, from its LRH
 * @body: bytes of the packet's headers, payload and pad
 */
void pib_pkt_put_grh(struct pib_dev *dev, const struct pib_av *av, u8 *pkt,
		     u32 body)
{
	struct pib_grh grh = {
		.ip_ver = PIB_GRH_IP_VERSION,
		.tclass = av->traffic_class,
		.flow_label = av->flow_label,
		.pay_len = body + PIB_ICRC_LEN - PIB_LRH_LEN - PIB_GRH_LEN,
		.next_hdr = PIB_GRH_NEXT_HDR_BTH,
		.hop_limit = av->hop_limit,
	};
	__be64 prefix = cpu_to_be64(READ_ONCE(dev->port.subnet_prefix));
	__be64 guid = pib_port_guid(dev, av->sgid_index % PIB_GID_TABLE_LEN);

	/* (an alias the SM took away since: the port GUID) */
	if (!guid)
		guid = dev->guid;
	memcpy(grh.sgid, &prefix, sizeof(prefix));
	memcpy(grh.sgid + sizeof(prefix), &guid, sizeof(guid));
	memcpy(grh.dgid, av->dgid, sizeof(grh.dgid));
	pib_grh_pack(pkt + PIB_LRH_LEN, &grh);
}

/**
 * pib_pkt_finish() - seal a packet that pib_pkt_new() allocated
 * @skb: the packet, filled in by the caller
 */
void pib_pkt_finish(struct sk_buff *skb)
{
	pib_pkt_seal(skb->data, skb->len - PIB_ICRC_LEN - PIB_VCRC_LEN);
}

/*
 * The message bytes of a WQE at @off: inline data, an ATOMIC WRITE's, or
 * gathered from SGEs.
 */
static int pib_req_gather(struct pib_qp *qp, struct pib_send_wqe *wqe,
			  u32 off, u8 *buf, u32 n)
{
	if (wqe->opcode == PIB_WR_ATOMIC_WRITE) {
		memcpy(buf, wqe->wr.atomic_write.data, n);
		return 0;
	}
	if (wqe->send_flags & PIB_SEND_INLINE) {
		memcpy(buf, PIB_WQE_INLINE(wqe) + off, n);
		return 0;
	}
	return pib_sge_copy(to_pib_dev(qp->ibqp.device), qp->ibqp.pd,
			    PIB_WQE_SGE(wqe), wqe->num_sge, off, buf, n, false);
}

/* The RETH of a request: @rlen bytes from @roff on of the WQE's memory. */
static void pib_req_reth(const struct pib_send_wqe *wqe, u32 roff, u32 rlen,
			 struct pib_reth *reth)
{
	if (wqe->opcode == PIB_WR_FLUSH)
		pib_reth_set(reth, wqe->wr.flush.remote_addr, wqe->wr.flush.rkey,
			     rlen);
	else if (wqe->opcode == PIB_WR_ATOMIC_WRITE)
		pib_reth_set(reth, wqe->wr.atomic_write.remote_addr,
			     wqe->wr.atomic_write.rkey, rlen);
	else
		pib_reth_set(reth, wqe->wr.rdma.remote_addr + roff,
			     wqe->wr.rdma.rkey, rlen);
}

/*
 * Extension headers of a request packet at @p. A RETH names @rlen bytes
 * from @roff on: a whole WRITE, or a chunk of a READ.
 */
static void pib_req_ext(struct pib_qp *qp, const struct pib_send_wqe *wqe,
			u32 roff, u32 rlen, u8 op, u8 *p)
{
	u32 ext = pib_opcodes[op].ext, qkey = wqe->wr.ud.remote_qkey;
	u64 swap_add;

	if (ext & PIB_EXT_DETH)
		pib_deth_set(pib_ext_at(p, ext, PIB_EXT_DETH),
			     qkey & 0x80000000 ? qp->qkey : qkey,
			     qp->ibqp.qp_num);
	if (ext & PIB_EXT_XRCETH)
		pib_xrceth_set(pib_ext_at(p, ext, PIB_EXT_XRCETH),
			       wqe->xrc_srqn);
	/* (a FLUSH WQE's type and level are the FETH's: test_pkt.c) */
	if (ext & PIB_EXT_FETH)
		pib_feth_set(pib_ext_at(p, ext, PIB_EXT_FETH),
			     wqe->wr.flush.type, wqe->wr.flush.level);
	if (ext & PIB_EXT_RETH)
		pib_req_reth(wqe, roff, rlen, pib_ext_at(p, ext, PIB_EXT_RETH));
	if (ext & PIB_EXT_ATOMICETH) {
		/* Fetch-and-add: the addend goes in the swap/add field. */
		swap_add = pib_opcode_rc(op) == IB_OPCODE_RC_FETCH_ADD ?
			   wqe->wr.atomic.compare_add : wqe->wr.atomic.swap;
		pib_atmeth_set(pib_ext_at(p, ext, PIB_EXT_ATOMICETH),
			       wqe->wr.atomic.remote_addr, wqe->wr.atomic.rkey,
			       swap_add, wqe->wr.atomic.compare_add);
	}
	/* ImmDt is kept in network order, the IETH's R_Key is not. */
	if (ext & PIB_EXT_IMMDT)
		pib_immdt_set(pib_ext_at(p, ext, PIB_EXT_IMMDT),
			      (__force __be32)wqe->ex);
	if (ext & PIB_EXT_IETH)
		pib_ieth_set(pib_ext_at(p, ext, PIB_EXT_IETH), wqe->ex);
}

/* The BTH opcode of the packet at @off of a message of @len bytes. */
static u8 pib_req_opcode(struct pib_qp *qp, const struct pib_wr_rule *r,
			 u32 off, u32 len)
{
	u8 only = pib_qp_opcode(qp, r->only[pib_qpt_idx(qp)]);
	const struct pib_opcode_info *op = &pib_opcodes[only];

	/* A UD datagram is one packet, a request answered by a response too. */
	if (pib_qpt_bit(qp) == PIB_QPT_UD || r->flags & PIB_WRF_RESPONSE ||
	    len <= qp->mtu)
		return only;
	if (!off)
		return op->first;
	return len - off <= qp->mtu ? op->last : op->middle;
}

/*
 * Build the next packet of the WQE at req.cur: NULL if out of memory, an
 * ERR_PTR() if its data cannot be gathered (-EAGAIN: ODP pages are being
 * faulted in). A READ goes as requests of at most PIB_READ_CHUNK packets
 * of response each, so that the window bounds the responses in flight
 * too. *psns is set to the PSNs the packet takes (a READ request: its
 * responses').
 */
static struct sk_buff *pib_req_packet(struct pib_qp *qp,
				      struct pib_send_wqe *wqe,
				      struct pib_swqe *st, bool *last,
				      u32 *psns)
{
	const struct pib_wr_rule *r = pib_wr_rule(wqe->opcode);
	struct pib_req *req = &qp->req;
	bool ud = pib_qpt_bit(qp) == PIB_QPT_UD;
	bool rd = r->flags & PIB_WRF_READ;
	/* A UD datagram is one packet: its length was checked on fetch. */
	u32 n = r->flags & (PIB_WRF_RESPONSE & ~PIB_WRF_ATOMIC_WRITE) ? 0 :
		ud ? st->len : min(st->len - req->offset, qp->mtu);
	u32 chunk = rd ? pib_read_chunk_end(qp->mtu, st->len, req->offset) -
			 req->offset : st->len;
	struct pib_bth bth = {
		.opcode = pib_req_opcode(qp, r, req->offset, st->len),
		.dest_qp = ud ? wqe->wr.ud.remote_qpn : qp->dest_qpn,
		.psn = req->psn,
	};
	struct sk_buff *skb;
	u32 ext_len;
	u8 *ext;
	int err;

	*last = req->offset + (rd ? chunk : n) >= st->len ||
		(r->flags & (PIB_WRF_ATOMIC | PIB_WRF_FLUSH));
	*psns = rd ? max_t(u32, DIV_ROUND_UP(chunk, qp->mtu), 1) : 1;
	bth.se = *last && (wqe->send_flags & PIB_SEND_SOLICITED) &&
		 (r->flags & PIB_WRF_SEND || r->flags & PIB_WRF_IMM);
	bth.ack_req = pib_qp_rc(qp) &&
		      (*last || req->since_ack_req + 1 >=
				min_t(u32, PIB_ACK_REQ_EVERY, req->cwnd.cwnd / 2));
	ext_len = pib_ext_len(pib_opcodes[bth.opcode].ext);
	skb = pib_pkt_new(qp, ud ? &wqe->wr.ud.av : &qp->av, &bth, ext_len, n,
			  &ext);
	if (!skb)
		return NULL;
	pib_req_ext(qp, wqe, rd ? req->offset : 0, chunk, bth.opcode, ext);
	err = pib_req_gather(qp, wqe, req->offset, ext + ext_len, n);
	if (err) {
		kfree_skb(skb);
		return ERR_PTR(err);
	}
	pib_pkt_finish(skb);
	if (bth.ack_req)
		pib_rtt_sent(&req->rtt, bth.psn, ktime_get_ns());
	req->offset += rd ? chunk : n;
	req->since_ack_req = bth.ack_req ? 0 : req->since_ack_req + 1;
	return skb;
}

/* LOCAL_INV, REG_MR and BIND_MW: done when the requester reaches them. */
static int pib_req_local(struct pib_qp *qp, struct pib_send_wqe *wqe)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);

	if (wqe->opcode == PIB_WR_LOCAL_INV)
		return pib_mr_invalidate(dev, qp->ibqp.pd, wqe->ex, qp);
	if (wqe->opcode == PIB_WR_BIND_MW)
		return pib_mw_bind(qp, wqe);
	return pib_mr_fast_reg(wqe->wr.reg.mr, qp->ibqp.pd, wqe->wr.reg.key,
			       wqe->wr.reg.access);
}

/*
 * Is the RC window full: as many packets in flight as its congestion
 * window allows? (After a go-back, @psn may be behind what the responder
 * acknowledged: a negative count, never full.)
 */
static bool pib_req_window_full(const struct pib_req *req)
{
	return pib_psn_diff(req->psn, req->acked_psn) > (int)req->cwnd.cwnd;
}

/* May the WQE at req.cur start now (fence, READ/atomic credits, window)? */
static bool pib_req_may_start(struct pib_qp *qp, struct pib_send_wqe *wqe)
{
	struct pib_req *req = &qp->req;
	struct pib_sq *sq = &qp->sq;
	u32 cons = sq->ring.cons;

	if (!pib_qp_rc(qp) || cons == req->cur)
		return true;
	if ((wqe->send_flags & PIB_SEND_FENCE) && req->rd_atomic)
		return false;
	if (pib_wqe_has_response(wqe) && req->rd_atomic >= qp->max_rd_atomic)
		return false;
	return !pib_req_window_full(req);
}

/*
 * The WQE at req.cur is all sent, or executed if local: move on. UC and
 * UD complete it now; RC when the responder acknowledged it, or a local
 * WQE once the requests before it are (at once if there are none: no ACK
 * will come for it).
 */
static void pib_req_wqe_done(struct pib_qp *qp, struct pib_send_wqe *wqe,
			     struct pib_swqe *st)
{
	struct pib_req *req = &qp->req;

	st->sent = true;
	req->cur++;
	req->offset = 0;
	if (!pib_qp_rc(qp)) {
		pib_sq_complete(qp, IB_WC_SUCCESS);
		pib_qp_sqd_check(qp);
	} else if (!st->npkts) {
		pib_comp_advance(qp);
	} else {
		pib_req_arm_timer(qp);
	}
}

/*
 * Send what the SQ holds, up to @budget packets, onto @q. Return true if
 * there is more to do right away.
 */
static bool pib_req_run(struct pib_qp *qp, struct sk_buff_head *q, int budget)
{
	struct pib_req *req = &qp->req;
	struct pib_sq *sq = &qp->sq;
	struct pib_send_wqe *wqe;
	struct pib_swqe *st;
	struct sk_buff *skb;
	bool last;
	u32 psns;

	/* (SQD: only what started before, sent again after a timeout too) */
	while (budget > 0 && req->state == PIB_REQ_SENDING &&
	       (qp->state == IB_QPS_RTS ||
		(qp->state == IB_QPS_SQD &&
		 (req->offset || (s32)(req->started - req->cur) > 0)))) {
		if (req->cur == sq->fetched && !pib_req_fetch(qp))
			return false;
		wqe = pib_sq_wqe(qp, req->cur);
		st = &sq->st[req->cur & (sq->ring.num - 1)];
		if (!req->offset) {
			if (!pib_req_may_start(qp, wqe))
				return false;
			if (!st->sent)
				st->first_psn = req->psn;
			if ((s32)(req->cur - req->started) >= 0)
				req->started = req->cur + 1;
		} else if (pib_qp_rc(qp) &&
			   (pib_req_window_full(req) ||
			    (pib_wqe_has_response(wqe) &&
			     req->rd_atomic >= qp->max_rd_atomic))) {
			pib_req_arm_timer(qp);
			return false;	/* a response will kick the work */
		}
		if (!st->npkts) {
			/* Once: a retransmission passes over what ran. */
			if (!st->sent && pib_req_local(qp, wqe)) {
				pib_sq_complete_error(qp, IB_WC_MW_BIND_ERR);
				return false;
			}
			pib_req_wqe_done(qp, wqe, st);
			continue;
		}
		skb = pib_req_packet(qp, wqe, st, &last, &psns);
		if (PTR_ERR_OR_ZERO(skb) == -EAGAIN) {
			pib_req_odp_wait(qp, false);
			return false;
		}
		if (IS_ERR(skb)) {
			pib_sq_complete_error(qp, IB_WC_LOC_PROT_ERR);
			return false;
		}
		if (!skb)
			return true;	/* out of memory: try again later */
		__skb_queue_tail(q, skb);
		budget--;
		if (pib_qp_rc(qp))
			pib_req_arm_timer(qp);
		if (pib_wqe_has_response(wqe))
			req->rd_atomic++;	/* a responder resource */
		req->psn = (req->psn + psns) & PIB_PSN_MASK;
		if (pib_psn_diff(req->psn, req->sent_psn) > 0)
			req->sent_psn = req->psn;
		st->last_psn = (req->psn - 1) & PIB_PSN_MASK;
		if (last)
			pib_req_wqe_done(qp, wqe, st);
	}
	return budget <= 0;
}

/*
 * One round of a QP's sending: responses, then requests. The responses
 * join the port's queue under the QP's lock, as the receive path's ACKs
 * do, which must not overtake them (pib_resp_send_due()).
 */
static bool pib_qp_send_round(struct pib_qp *qp)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	struct sk_buff_head rq, q;
	unsigned long flags;
	bool more, resp;

	__skb_queue_head_init(&rq);
	__skb_queue_head_init(&q);
	spin_lock_irqsave(&qp->lock, flags);
	more = pib_resp_send_due(qp, &rq, PIB_REQ_BUDGET);
	pib_qp_inject_tx(qp, &rq);
	resp = pib_dev_queue(dev, &rq, true);
	more |= pib_req_run(qp, &q, PIB_REQ_BUDGET);
	spin_unlock_irqrestore(&qp->lock, flags);
	pib_qp_inject_tx(qp, &q);
	if (pib_dev_queue(dev, &q, false) || resp)
		pib_dev_tx_kick(dev);
	pib_qp_notify_cqs(qp);
	return more;
}

/**
 * pib_qp_run() - send what a QP has to send, in this context
 * @qp: the QP
 *
 * One context at a time runs a QP: one that finds another at it asks it
 * to go round once more (PIB_QP_AGAIN) and leaves. A round sends at most a
 * budget of packets; when that runs out, or after PIB_QP_ROUNDS rounds,
 * the QP's work goes on, so that one busy QP does not starve the others
 * nor keep a system call or a softirq. Called from the QP's work, from a
 * user's doorbell, from the completer when an ACK comes in and from the
 * responder when READ responses are due, so that packets leave without
 * waiting for a worker; never with the QP's lock held or interrupts off.
 */
void pib_qp_run(struct pib_qp *qp)
{
	unsigned int rounds = PIB_QP_ROUNDS;
	bool more = false;

	set_bit(PIB_QP_AGAIN, &qp->run_flags);
	while (!test_and_set_bit(PIB_QP_RUNNING, &qp->run_flags)) {
		while (!more && test_and_clear_bit(PIB_QP_AGAIN, &qp->run_flags))
			more = pib_qp_send_round(qp) || !--rounds;
		clear_bit_unlock(PIB_QP_RUNNING, &qp->run_flags);
		/* Pairs with set_bit() and test_and_set_bit() of another task. */
		smp_mb__after_atomic();
		if (more || !test_bit(PIB_QP_AGAIN, &qp->run_flags))
			break;
	}
	if (more)
		pib_qp_kick(qp);
}

/**
 * pib_qp_work() - a QP's work: pib_qp_run() on the workqueue
 * @work: the QP's work
 */
void pib_qp_work(struct work_struct *work)
{
	pib_qp_run(container_of(work, struct pib_qp, work));
}
