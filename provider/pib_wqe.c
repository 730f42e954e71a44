// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Work requests to WQEs: the rules of each QP type, the checks that give
 * the application a clear errno, and the encoding into the rings. See
 * pib_wqe.h for what the callers must hold.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "pib_wqe.h"

/* The ABI takes libibverbs' values as they are. */
#define PIB_SAME(pib, ibv)	static_assert((int)(pib) == (int)(ibv), #pib)
PIB_SAME(PIB_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE);
PIB_SAME(PIB_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM);
PIB_SAME(PIB_WR_SEND, IBV_WR_SEND);
PIB_SAME(PIB_WR_SEND_WITH_IMM, IBV_WR_SEND_WITH_IMM);
PIB_SAME(PIB_WR_RDMA_READ, IBV_WR_RDMA_READ);
PIB_SAME(PIB_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_CMP_AND_SWP);
PIB_SAME(PIB_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_FETCH_AND_ADD);
PIB_SAME(PIB_WR_LOCAL_INV, IBV_WR_LOCAL_INV);
PIB_SAME(PIB_WR_BIND_MW, IBV_WR_BIND_MW);
PIB_SAME(PIB_WR_SEND_WITH_INV, IBV_WR_SEND_WITH_INV);
PIB_SAME(PIB_WR_ATOMIC_WRITE, IBV_WR_ATOMIC_WRITE);
PIB_SAME(PIB_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE);
PIB_SAME(PIB_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_READ);
PIB_SAME(PIB_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_REMOTE_ATOMIC);
PIB_SAME(PIB_ACCESS_ZERO_BASED, IBV_ACCESS_ZERO_BASED);
PIB_SAME(PIB_SEND_FENCE, IBV_SEND_FENCE);
PIB_SAME(PIB_SEND_SIGNALED, IBV_SEND_SIGNALED);
PIB_SAME(PIB_SEND_SOLICITED, IBV_SEND_SOLICITED);
PIB_SAME(PIB_SEND_INLINE, IBV_SEND_INLINE);
static_assert(sizeof(struct pib_sge) == sizeof(struct ibv_sge), "sge");

/* The send flags pib implements; others (IP_CSUM) fail with EINVAL. */
#define PIB_SEND_FLAGS	(PIB_SEND_FENCE | PIB_SEND_SIGNALED | \
			 PIB_SEND_SOLICITED | PIB_SEND_INLINE)

#define PIB_OP(op)	(1u << (op))

/*
 * Opcodes per QP type, as the IBA has them for RC, UC and UD: memory
 * windows and their invalidation go with RDMA. FLUSH and ATOMIC WRITE
 * (IBA 1.5) are RC's, through ibv_wr_*() only: ibv_send_wr has no fields
 * for them.
 */
#define PIB_UD_OPS	(PIB_OP(IBV_WR_SEND) | PIB_OP(IBV_WR_SEND_WITH_IMM))
#define PIB_UC_OPS	(PIB_UD_OPS | PIB_OP(IBV_WR_RDMA_WRITE) | \
			 PIB_OP(IBV_WR_RDMA_WRITE_WITH_IMM) | \
			 PIB_OP(IBV_WR_LOCAL_INV) | PIB_OP(IBV_WR_BIND_MW))
#define PIB_RC_OPS	(PIB_UC_OPS | PIB_OP(IBV_WR_RDMA_READ) | \
			 PIB_OP(IBV_WR_ATOMIC_CMP_AND_SWP) | \
			 PIB_OP(IBV_WR_ATOMIC_FETCH_AND_ADD) | \
			 PIB_OP(IBV_WR_SEND_WITH_INV) | PIB_OP(PIB_WR_FLUSH) | \
			 PIB_OP(IBV_WR_ATOMIC_WRITE))
/* XRC's sending half: RC's, but windows, which its QP cannot serve. */
#define PIB_XRC_OPS	(PIB_RC_OPS & ~PIB_OP(IBV_WR_BIND_MW))

/*
 * The same sets as ibv_qp_init_attr_ex send_ops_flags, but FLUSH's, which
 * only some libibverbs have (pib_verbs_compat.h): pib_qp.c adds it.
 */
#define PIB_UD_SEND_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define PIB_UC_SEND_OPS	(PIB_UD_SEND_OPS | IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)
#define PIB_RC_SEND_OPS	(PIB_UC_SEND_OPS | IBV_QP_EX_WITH_RDMA_READ | \
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			 IBV_QP_EX_WITH_SEND_WITH_INV | \
			 IBV_QP_EX_WITH_ATOMIC_WRITE)
#define PIB_XRC_SEND_OPS (PIB_RC_SEND_OPS & ~(uint64_t)IBV_QP_EX_WITH_BIND_MW)

static uint32_t pib_qp_type_ops(enum ibv_qp_type qp_type)
{
	switch (qp_type) {
	case IBV_QPT_RC:
		return PIB_RC_OPS;
	case IBV_QPT_XRC_SEND:
		return PIB_XRC_OPS;
	case IBV_QPT_UC:
		return PIB_UC_OPS;
	case IBV_QPT_UD:
		return PIB_UD_OPS;
	default:
		return 0;
	}
}

/* May a QP of @qp_type post @op? */
bool pib_wr_opcode_allowed(enum ibv_qp_type qp_type, enum ibv_wr_opcode op)
{
	/* An application may pass any int: shift only in range. */
	if ((unsigned int)op >= 32)
		return false;
	return pib_qp_type_ops(qp_type) & PIB_OP(op);
}

/* The send_ops_flags that ibv_create_qp_ex may ask for on @qp_type. */
uint64_t pib_send_ops_supported(enum ibv_qp_type qp_type)
{
	switch (qp_type) {
	case IBV_QPT_RC:
		return PIB_RC_SEND_OPS;
	case IBV_QPT_XRC_SEND:
		return PIB_XRC_SEND_OPS;
	case IBV_QPT_UC:
		return PIB_UC_SEND_OPS;
	case IBV_QPT_UD:
		return PIB_UD_SEND_OPS;
	default:
		return 0;
	}
}

static uint32_t pib_min(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * The SQ takes what the kernel granted, but never more than one ring
 * entry holds: a kernel that promised more cannot make us write past it.
 * @sq->ring must be mapped.
 */
void pib_sq_set_limits(struct pib_sq *sq, uint32_t max_sge,
		       uint32_t max_inline)
{
	uint32_t room = sq->ring.stride - sizeof(struct pib_send_wqe);

	sq->max_sge = pib_min(max_sge, room / sizeof(struct pib_sge));
	sq->max_inline = pib_min(max_inline, room);
}

/* As pib_sq_set_limits(), for receive queues. */
void pib_rq_set_limits(struct pib_rq *rq, uint32_t max_sge)
{
	uint32_t room = rq->ring.stride - sizeof(struct pib_recv_wqe);

	rq->max_sge = pib_min(max_sge, room / sizeof(struct pib_sge));
}

static bool pib_wr_is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/* LOCAL_INV and BIND_MW: no message, no SGEs; the requester runs them. */
static bool pib_wr_is_local(enum ibv_wr_opcode op)
{
	return op == IBV_WR_LOCAL_INV || op == IBV_WR_BIND_MW;
}

/* FLUSH and ATOMIC WRITE: their builder gives all, no SGEs, no data. */
static bool pib_wr_is_iba15(enum ibv_wr_opcode op)
{
	return op == (int)PIB_WR_FLUSH || op == IBV_WR_ATOMIC_WRITE;
}

/*
 * READ and atomics write to local memory, and local work requests, FLUSH
 * and ATOMIC WRITE have none: there is nothing to inline.
 */
static bool pib_wr_may_inline(enum ibv_wr_opcode op)
{
	return op != IBV_WR_RDMA_READ && !pib_wr_is_atomic(op) &&
	       !pib_wr_is_local(op) && !pib_wr_is_iba15(op);
}

/* The access flags a bind may ask for (local write means nothing there). */
#define PIB_MW_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_ZERO_BASED | \
			 IBV_ACCESS_LOCAL_WRITE)

/*
 * A bind's window is of this context and of @type (ibv_bind_mw() binds
 * type 1, a work request type 2), its MR too if the length is not 0, and
 * it asks for window access flags only. The kernel checks the rest (the
 * bind completes with IBV_WC_MW_BIND_ERR).
 */
static int pib_bind_check(const struct pib_sq *sq,
			  const struct ibv_send_wr *wr, enum ibv_mw_type type)
{
	const struct ibv_mw_bind_info *b = &wr->bind_mw.bind_info;
	const struct ibv_mw *mw = wr->bind_mw.mw;

	if (!mw || mw->context != sq->ctx || mw->type != type)
		return EINVAL;
	if (b->length && (!b->mr || b->mr->context != sq->ctx))
		return EINVAL;
	return b->mw_access_flags & ~PIB_MW_ACCESS ? EINVAL : 0;
}

/*
 * The opcode and flags are right for @sq, an atomic's target is aligned, a
 * bind is of a type 2 window (@type: of the window type given).
 */
static int pib_wr_hdr_check_mw(const struct pib_sq *sq,
			       const struct ibv_send_wr *wr,
			       enum ibv_mw_type type)
{
	if (!pib_wr_opcode_allowed(sq->qp_type, wr->opcode))
		return EINVAL;
	if (wr->send_flags & ~PIB_SEND_FLAGS)
		return EINVAL;
	if ((wr->send_flags & IBV_SEND_INLINE) && !pib_wr_may_inline(wr->opcode))
		return EINVAL;
	if (pib_wr_is_atomic(wr->opcode) &&
	    wr->wr.atomic.remote_addr % sizeof(uint64_t))
		return EINVAL;
	if (wr->opcode == IBV_WR_BIND_MW)
		return pib_bind_check(sq, wr, type);
	return 0;
}

static int pib_wr_hdr_check(const struct pib_sq *sq,
			    const struct ibv_send_wr *wr)
{
	return pib_wr_hdr_check_mw(sq, wr, IBV_MW_TYPE_2);
}

/* An atomic returns the old 64-bit value into exactly one local buffer. */
static int pib_atomic_sge_check(size_t num_sge, const struct ibv_sge *sge)
{
	return num_sge == 1 && sge->length >= sizeof(uint64_t) ? 0 : EINVAL;
}

/*
 * Sum of @n lengths if it is at most @max, else EINVAL. The sum is kept
 * in 64 bits so that many large SGEs cannot wrap around to a small one.
 */
static int pib_inline_len(const struct ibv_sge *sge, size_t n, uint32_t max,
			  uint32_t *len)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		sum += sge[i].length;
		if (sum > max)
			return EINVAL;
	}
	*len = sum;
	return 0;
}

/* A UD destination: an AH of this context (so a struct pib_ah), a QPN. */
static int pib_ud_check(const struct pib_sq *sq, const struct ibv_ah *ah,
			uint32_t remote_qpn)
{
	if (!ah || ah->context != sq->ctx)
		return EINVAL;
	return remote_qpn > PIB_MAX_QPN ? EINVAL : 0;
}

/*
 * May @wr go to @sq as it is? EINVAL for an opcode the QP type does not
 * have, unknown send flags, more SGEs than @sq->max_sge, more inline bytes
 * than @sq->max_inline (their sum goes to @inline_len), inline data with
 * READ or atomics, an atomic that is misaligned or has not one 8-byte SGE,
 * a FLUSH or ATOMIC WRITE (which only their ibv_wr_*() builders post),
 * or a UD destination that is not an AH of this context or has a QPN of
 * more than 24 bits, or a bind of another window type than @mw_type.
 * @wr->next is not looked at.
 */
static int pib_send_wr_check(const struct pib_sq *sq,
			     const struct ibv_send_wr *wr, uint32_t *inline_len,
			     enum ibv_mw_type mw_type)
{
	int err = pib_wr_hdr_check_mw(sq, wr, mw_type);

	*inline_len = 0;
	if (!err && pib_wr_is_iba15(wr->opcode))
		err = EINVAL;	/* ibv_wr_flush(), ibv_wr_atomic_write() */
	if (err || pib_wr_is_local(wr->opcode))
		return err;	/* (a local work request's SGEs are not looked at) */
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > sq->max_sge)
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;
	if (pib_wr_is_atomic(wr->opcode)) {
		err = pib_atomic_sge_check(wr->num_sge, wr->sg_list);
		if (err)
			return err;
	}
	if (wr->send_flags & IBV_SEND_INLINE) {
		err = pib_inline_len(wr->sg_list, wr->num_sge, sq->max_inline,
				     inline_len);
		if (err)
			return err;
	}
	if (sq->qp_type == IBV_QPT_UD)
		return pib_ud_check(sq, wr->wr.ud.ah, wr->wr.ud.remote_qpn);
	if (sq->qp_type == IBV_QPT_XRC_SEND &&
	    wr->qp_type.xrc.remote_srqn > PIB_MAX_QPN)
		return EINVAL;
	return 0;
}

/* The immediate data or the rkey to invalidate, for the opcodes with one. */
static uint32_t pib_wr_ex(const struct ibv_send_wr *wr)
{
	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		/* Network order stays network order: the kernel sends it as is. */
		return (uint32_t)wr->imm_data;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		return wr->invalidate_rkey;
	default:
		return 0;
	}
}

/* A bind of @mw with the new R_Key @rkey. */
static void pib_wqe_set_bind(struct pib_send_wqe *wqe, const struct ibv_mw *mw,
			     uint32_t rkey, const struct ibv_mw_bind_info *b)
{
	wqe->wr.bind.addr = b->addr;
	wqe->wr.bind.length = b->length;
	wqe->wr.bind.mw_rkey = mw->rkey;
	wqe->wr.bind.rkey = rkey;
	wqe->wr.bind.lkey = b->length ? b->mr->lkey : 0;
	wqe->wr.bind.access = b->mw_access_flags;
	wqe->wr.bind.flags = mw->type == IBV_MW_TYPE_1 ? PIB_BIND_TYPE_1 : 0;
}

/* Everything of a checked @wr except its data and UD destination. */
static void pib_wqe_fill_hdr(struct pib_send_wqe *wqe,
			     const struct ibv_send_wr *wr)
{
	/* A slot holds an old WQE: no stale byte may reach the kernel. */
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	wqe->ex = pib_wr_ex(wr);
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->wr.rdma.rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		wqe->wr.atomic.swap = wr->wr.atomic.swap;
		wqe->wr.atomic.rkey = wr->wr.atomic.rkey;
		break;
	case IBV_WR_BIND_MW:
		pib_wqe_set_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
				 &wr->bind_mw.bind_info);
		break;
	default:
		break;
	}
}

static void pib_wqe_set_ud(struct pib_send_wqe *wqe, const struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	wqe->wr.ud.av = pib_ah_of(ah)->av;
	wqe->wr.ud.remote_qpn = remote_qpn;
	wqe->wr.ud.remote_qkey = remote_qkey;
}

static void pib_wqe_set_sges(struct pib_send_wqe *wqe, size_t n,
			     const struct ibv_sge *sge)
{
	struct pib_sge *dst = PIB_WQE_SGE(wqe);
	size_t i;

	for (i = 0; i < n; i++) {
		dst[i].addr = sge[i].addr;
		dst[i].length = sge[i].length;
		dst[i].lkey = sge[i].lkey;
	}
	wqe->num_sge = n;
	wqe->send_flags &= ~IBV_SEND_INLINE;
}

/* Copy the message itself; @len (their sum) fits the entry. */
static void pib_wqe_set_inline(struct pib_send_wqe *wqe, size_t n,
			       const struct ibv_data_buf *buf, uint32_t len)
{
	uint8_t *dst = PIB_WQE_INLINE(wqe);
	size_t i;

	for (i = 0; i < n; i++) {
		if (buf[i].length)
			memcpy(dst, buf[i].addr, buf[i].length);
		dst += buf[i].length;
	}
	wqe->num_sge = len;
	wqe->send_flags |= IBV_SEND_INLINE;
}

/* As pib_wqe_set_inline(), from SGEs whose addresses are the buffers. */
static void pib_wqe_set_inline_sges(struct pib_send_wqe *wqe, size_t n,
				    const struct ibv_sge *sge, uint32_t len)
{
	uint8_t *dst = PIB_WQE_INLINE(wqe);
	size_t i;

	for (i = 0; i < n; i++) {
		if (sge[i].length)
			memcpy(dst, (const void *)(uintptr_t)sge[i].addr,
			       sge[i].length);
		dst += sge[i].length;
	}
	wqe->num_sge = len;
	wqe->send_flags |= IBV_SEND_INLINE;
}

/*
 * Check @wr (a bind: of a window of @mw_type) and write it into slot
 * @prod, which is not published yet.
 */
static int pib_sq_write(struct pib_sq *sq, const struct ibv_send_wr *wr,
			uint32_t prod, enum ibv_mw_type mw_type)
{
	struct pib_send_wqe *wqe;
	uint32_t len;
	int err = pib_send_wr_check(sq, wr, &len, mw_type);

	if (err)
		return err;
	if (!pib_ring_room(&sq->ring, prod))
		return ENOMEM;
	wqe = pib_ring_entry(&sq->ring, prod);
	pib_wqe_fill_hdr(wqe, wr);
	if (pib_wr_is_local(wr->opcode))
		return 0;
	if (sq->qp_type == IBV_QPT_UD)
		pib_wqe_set_ud(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
			       wr->wr.ud.remote_qkey);
	if (sq->qp_type == IBV_QPT_XRC_SEND)
		wqe->xrc_srqn = wr->qp_type.xrc.remote_srqn;
	if (wr->send_flags & IBV_SEND_INLINE)
		pib_wqe_set_inline_sges(wqe, wr->num_sge, wr->sg_list, len);
	else
		pib_wqe_set_sges(wqe, wr->num_sge, wr->sg_list);
	return 0;
}

/**
 * pib_sq_post() - post a list of send work requests
 * @sq: the send queue
 * @wr: the first work request
 * @bad_wr: set to the first one that could not be posted
 * @posted: set to the number posted (the doorbell is the caller's)
 *
 * Each WQE is published as soon as it is written; the first bad work
 * request stops the list and leaves its slot unpublished.
 *
 * Return: 0, EINVAL (see pib_send_wr_check()) or ENOMEM if the SQ is full.
 */
int pib_sq_post(struct pib_sq *sq, struct ibv_send_wr *wr,
		struct ibv_send_wr **bad_wr, uint32_t *posted)
{
	uint32_t first = pib_ring_producer(&sq->ring);
	uint32_t prod = first;
	int err = 0;

	for (; wr; wr = wr->next) {
		err = pib_sq_write(sq, wr, prod, IBV_MW_TYPE_2);
		if (err) {
			*bad_wr = wr;
			break;
		}
		pib_ring_publish(&sq->ring, ++prod);
	}
	*posted = prod - first;
	return err;
}

/**
 * pib_sq_post_bind1() - post the bind of a type 1 window (ibv_bind_mw())
 * @sq: the send queue
 * @wr: a BIND_MW work request of the window, with its new R_Key
 *
 * Return: 0, EINVAL (see pib_bind_check()) or ENOMEM if the SQ is full.
 */
int pib_sq_post_bind1(struct pib_sq *sq, const struct ibv_send_wr *wr)
{
	uint32_t prod = pib_ring_producer(&sq->ring);
	int err = pib_sq_write(sq, wr, prod, IBV_MW_TYPE_1);

	if (!err)
		pib_ring_publish(&sq->ring, prod + 1);
	return err;
}

/**
 * pib_sq_batch_start() - begin an ibv_wr_start() batch
 * @sq: the send queue
 * @err: 0, or the error every work request of the batch gets (a QP in a
 *	 state that cannot send)
 *
 * WQEs of a batch are written from the producer index on and published
 * together by pib_sq_batch_commit(); the first error discards them all.
 */
void pib_sq_batch_start(struct pib_sq *sq, int err)
{
	sq->start = pib_ring_producer(&sq->ring);
	sq->next = sq->start;
	sq->err = err;
	sq->need_ud_addr = false;
}

/**
 * pib_sq_batch_add() - a builder (ibv_wr_send(), ibv_wr_rdma_write(), ...)
 * @sq: the send queue, in a batch
 * @wr: the opcode, wr_id, flags and remote fields (no SGEs, no UD address)
 *
 * Return: the new WQE, with no data yet; NULL after an error, which the
 * batch keeps: EINVAL for a bad opcode, flags or atomic address, or a UD
 * WQE before it that got no address; ENOMEM if the SQ is full.
 */
struct pib_send_wqe *pib_sq_batch_add(struct pib_sq *sq,
				      const struct ibv_send_wr *wr)
{
	struct ibv_send_wr hdr = *wr;
	struct pib_send_wqe *wqe;

	if (sq->err)
		return NULL;
	/* IBV_SEND_INLINE means nothing here: the setters decide. */
	hdr.send_flags &= ~IBV_SEND_INLINE;
	if (sq->need_ud_addr || pib_wr_hdr_check(sq, &hdr)) {
		sq->err = EINVAL;
		return NULL;
	}
	if (!pib_ring_room(&sq->ring, sq->next)) {
		sq->err = ENOMEM;
		return NULL;
	}
	wqe = pib_ring_entry(&sq->ring, sq->next++);
	pib_wqe_fill_hdr(wqe, &hdr);
	sq->need_ud_addr = sq->qp_type == IBV_QPT_UD;
	return wqe;
}

/**
 * pib_sq_batch_set_flush() - the fields of a FLUSH that pib_sq_batch_add()
 *	added (ibv_wr_flush())
 * @sq: the send queue, in a batch
 * @wqe: the WQE, or NULL after an error
 * @rkey: the remote MR's R_Key
 * @addr: the first byte to flush (IBV_FLUSH_RANGE)
 * @len: bytes (IBV_FLUSH_RANGE), at most what a RETH holds
 * @type: PIB_FLUSH_TYPE_* bits (IBV_FLUSH_GLOBAL, IBV_FLUSH_PERSISTENT), at
 *	least one
 * @level: PIB_FLUSH_LEVEL_RANGE or PIB_FLUSH_LEVEL_MR (IBV_FLUSH_RANGE,
 *	IBV_FLUSH_MR)
 *
 * Anything else makes the batch fail with EINVAL.
 */
void pib_sq_batch_set_flush(struct pib_sq *sq, struct pib_send_wqe *wqe,
			    uint32_t rkey, uint64_t addr, size_t len,
			    uint8_t type, uint8_t level)
{
	if (!wqe)
		return;
	if (len > UINT32_MAX || !type ||
	    (type & ~(PIB_FLUSH_TYPE_GLOBAL | PIB_FLUSH_TYPE_PERSISTENT)) ||
	    level > PIB_FLUSH_LEVEL_MR) {
		sq->err = EINVAL;
		return;
	}
	wqe->wr.flush.remote_addr = addr;
	wqe->wr.flush.rkey = rkey;
	wqe->wr.flush.length = len;
	wqe->wr.flush.type = type;
	wqe->wr.flush.level = level;
}

/**
 * pib_sq_batch_set_atomic_write() - the fields of an ATOMIC WRITE that
 *	pib_sq_batch_add() added (ibv_wr_atomic_write())
 * @sq: the send queue, in a batch
 * @wqe: the WQE, or NULL after an error
 * @rkey: the remote MR's R_Key
 * @addr: where the 8 bytes go, 8-byte aligned (else EINVAL)
 * @data: the 8 bytes
 */
void pib_sq_batch_set_atomic_write(struct pib_sq *sq, struct pib_send_wqe *wqe,
				   uint32_t rkey, uint64_t addr,
				   const void *data)
{
	if (!wqe)
		return;
	if (addr % sizeof(uint64_t) || !data) {
		sq->err = EINVAL;
		return;
	}
	wqe->wr.atomic_write.remote_addr = addr;
	wqe->wr.atomic_write.rkey = rkey;
	memcpy(wqe->wr.atomic_write.data, data,
	       sizeof(wqe->wr.atomic_write.data));
}

/* The WQE the setters work on; a setter before any builder is an error. */
static struct pib_send_wqe *pib_sq_batch_last(struct pib_sq *sq)
{
	if (sq->err)
		return NULL;
	if (sq->next == sq->start) {
		sq->err = EINVAL;
		return NULL;
	}
	return pib_ring_entry(&sq->ring, sq->next - 1);
}

/* ibv_wr_set_sge(), ibv_wr_set_sge_list(): EINVAL beyond max_sge. */
void pib_sq_batch_set_sge_list(struct pib_sq *sq, size_t num_sge,
			       const struct ibv_sge *sg_list)
{
	struct pib_send_wqe *wqe = pib_sq_batch_last(sq);

	if (!wqe)
		return;
	if (num_sge > sq->max_sge || (num_sge && !sg_list) ||
	    pib_wr_is_iba15(wqe->opcode) ||
	    (pib_wr_is_atomic(wqe->opcode) &&
	     pib_atomic_sge_check(num_sge, sg_list))) {
		sq->err = EINVAL;
		return;
	}
	pib_wqe_set_sges(wqe, num_sge, sg_list);
}

/* ibv_wr_set_inline_data(_list)(): EINVAL beyond max_inline_data. */
void pib_sq_batch_set_inline_list(struct pib_sq *sq, size_t num_buf,
				  const struct ibv_data_buf *buf_list)
{
	struct pib_send_wqe *wqe = pib_sq_batch_last(sq);
	uint64_t sum = 0;
	size_t i;

	if (!wqe)
		return;
	if (!pib_wr_may_inline(wqe->opcode) || (num_buf && !buf_list)) {
		sq->err = EINVAL;
		return;
	}
	for (i = 0; i < num_buf; i++) {
		sum += buf_list[i].length;
		if (sum > sq->max_inline) {
			sq->err = EINVAL;
			return;
		}
	}
	pib_wqe_set_inline(wqe, num_buf, buf_list, sum);
}

/* ibv_wr_set_ud_addr(): EINVAL on a QP that is not UD or a foreign AH. */
void pib_sq_batch_set_ud_addr(struct pib_sq *sq, struct ibv_ah *ah,
			      uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct pib_send_wqe *wqe = pib_sq_batch_last(sq);

	if (!wqe)
		return;
	if (sq->qp_type != IBV_QPT_UD || pib_ud_check(sq, ah, remote_qpn)) {
		sq->err = EINVAL;
		return;
	}
	pib_wqe_set_ud(wqe, ah, remote_qpn, remote_qkey);
	sq->need_ud_addr = false;
}

/**
 * pib_sq_batch_set_xrc_srqn() - the remote XRC SRQ of the WQE that
 *	pib_sq_batch_add() added last (ibv_wr_set_xrc_srqn())
 * @sq: the send queue of an XRC INI QP, in a batch
 * @remote_srqn: the XRC SRQ's number, 24 bits
 *
 * Anything else makes the batch fail with EINVAL.
 */
void pib_sq_batch_set_xrc_srqn(struct pib_sq *sq, uint32_t remote_srqn)
{
	struct pib_send_wqe *wqe = pib_sq_batch_last(sq);

	if (!wqe)
		return;
	if (sq->qp_type != IBV_QPT_XRC_SEND || remote_srqn > PIB_MAX_QPN) {
		sq->err = EINVAL;
		return;
	}
	wqe->xrc_srqn = remote_srqn;
}

/**
 * pib_sq_batch_commit() - end a batch: publish it unless it had an error
 * @sq: the send queue, in a batch
 * @posted: set to the number of WQEs published
 *
 * Return: 0, or the batch's first error (then nothing is published).
 */
int pib_sq_batch_commit(struct pib_sq *sq, uint32_t *posted)
{
	*posted = 0;
	if (!sq->err && sq->need_ud_addr)
		sq->err = EINVAL;
	if (sq->err)
		return sq->err;
	pib_ring_publish(&sq->ring, sq->next);
	*posted = sq->next - sq->start;
	return 0;
}

/* Check @wr and write it into slot @prod, which is not published yet. */
static int pib_rq_write(struct pib_rq *rq, const struct ibv_recv_wr *wr,
			uint32_t prod)
{
	struct pib_recv_wqe *wqe;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge)
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;
	if (!pib_ring_room(&rq->ring, prod))
		return ENOMEM;
	wqe = pib_ring_entry(&rq->ring, prod);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	wqe->reserved = 0;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i].addr = wr->sg_list[i].addr;
		wqe->sge[i].length = wr->sg_list[i].length;
		wqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

/**
 * pib_rq_post() - post a list of receive work requests (RQ or SRQ)
 * @rq: the receive queue
 * @wr: the first work request
 * @bad_wr: set to the first one that could not be posted
 *
 * Return: 0, EINVAL for more SGEs than @rq->max_sge, or ENOMEM if full.
 */
int pib_rq_post(struct pib_rq *rq, struct ibv_recv_wr *wr,
		struct ibv_recv_wr **bad_wr)
{
	uint32_t prod = pib_ring_producer(&rq->ring);
	int err;

	for (; wr; wr = wr->next) {
		err = pib_rq_write(rq, wr, prod);
		if (err) {
			*bad_wr = wr;
			return err;
		}
		pib_ring_publish(&rq->ring, ++prod);
	}
	return 0;
}

/**
 * pib_av_from_attr() - resolve an AH's attributes
 * @attr: what the application asked for
 * @gid_tbl_len: entries of the port's GID table
 * @av: filled in
 *
 * Return: 0, or EINVAL for another port than 1, an SL, path bits or flow
 * label out of their IBA range, or a source GID index beyond the table.
 */
int pib_av_from_attr(const struct ibv_ah_attr *attr, uint32_t gid_tbl_len,
		     struct pib_av *av)
{
	const struct ibv_global_route *grh = &attr->grh;

	if (attr->port_num != PIB_PORT_NUM || attr->sl > PIB_MAX_SL ||
	    attr->src_path_bits > PIB_MAX_PATH_BITS)
		return EINVAL;
	if (attr->is_global && (grh->sgid_index >= gid_tbl_len ||
				grh->flow_label > PIB_MAX_FLOW_LABEL))
		return EINVAL;
	memset(av, 0, sizeof(*av));
	av->dlid = attr->dlid;
	av->sl = attr->sl;
	av->src_path_bits = attr->src_path_bits;
	av->static_rate = attr->static_rate;
	av->port_num = PIB_PORT_NUM;
	if (!attr->is_global)
		return 0;
	av->is_global = 1;
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	av->flow_label = grh->flow_label;
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	return 0;
}
