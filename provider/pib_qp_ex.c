// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The extended post-send API (ibv_wr_start, ibv_wr_send, ibv_wr_set_sge,
 * ..., ibv_wr_complete) on a pib QP. wr_start takes the SQ lock, the
 * builders and setters write WQEs after the producer index without
 * publishing them, and wr_complete publishes the whole batch and rings
 * the doorbell once, or, after any error, publishes nothing and returns
 * the first error. wr_abort publishes nothing.
 */
#include "pib.h"

static struct pib_sq *pib_sq_of(struct ibv_qp_ex *qpx)
{
	return &to_pib_qp_ex(qpx)->sq;
}

/* The fields every builder takes from the ibv_qp_ex. */
static struct ibv_send_wr pib_wr_of(struct ibv_qp_ex *qpx,
				    enum ibv_wr_opcode opcode)
{
	struct ibv_send_wr wr = {
		.wr_id = qpx->wr_id,
		.opcode = opcode,
		.send_flags = qpx->wr_flags,
	};

	return wr;
}

static void pib_wr_send(struct ibv_qp_ex *qpx)
{
	struct ibv_send_wr wr = pib_wr_of(qpx, IBV_WR_SEND);

	pib_sq_batch_add(pib_sq_of(qpx), &wr);
}

static void pib_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct ibv_send_wr wr = pib_wr_of(qpx, IBV_WR_SEND_WITH_IMM);

	wr.imm_data = imm_data;
	pib_sq_batch_add(pib_sq_of(qpx), &wr);
}

static void pib_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct ibv_send_wr wr = pib_wr_of(qpx, IBV_WR_SEND_WITH_INV);

	wr.invalidate_rkey = invalidate_rkey;
	pib_sq_batch_add(pib_sq_of(qpx), &wr);
}

static void pib_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct ibv_send_wr wr = pib_wr_of(qpx, IBV_WR_LOCAL_INV);

	wr.invalidate_rkey = invalidate_rkey;
	pib_sq_batch_add(pib_sq_of(qpx), &wr);
}

/* A type 2 window (type 1: ibv_bind_mw()). */
static void pib_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			   uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct ibv_send_wr wr = pib_wr_of(qpx, IBV_WR_BIND_MW);

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = *info;
	pib_sq_batch_add(pib_sq_of(qpx), &wr);
}

static void pib_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			uint32_t rkey, uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr wr = pib_wr_of(qpx, opcode);

	wr.wr.rdma.rkey = rkey;
	wr.wr.rdma.remote_addr = remote_addr;
	wr.imm_data = imm_data;
	pib_sq_batch_add(pib_sq_of(qpx), &wr);
}

static void pib_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	pib_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void pib_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, __be32 imm_data)
{
	pib_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		    imm_data);
}

static void pib_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t remote_addr)
{
	pib_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void pib_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			  uint32_t rkey, uint64_t remote_addr,
			  uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr wr = pib_wr_of(qpx, opcode);

	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.remote_addr = remote_addr;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	pib_sq_batch_add(pib_sq_of(qpx), &wr);
}

static void pib_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, uint64_t compare,
				  uint64_t swap)
{
	pib_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
		      compare, swap);
}

static void pib_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t add)
{
	pib_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
		      add, 0);
}

/* IBA 1.5: make remote memory reach a placement (pib: global visibility). */
static void pib_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey,
			 uint64_t remote_addr, size_t len, uint8_t type,
			 uint8_t level)
{
	struct ibv_send_wr wr = pib_wr_of(qpx, (enum ibv_wr_opcode)PIB_WR_FLUSH);
	struct pib_sq *sq = pib_sq_of(qpx);

	pib_sq_batch_set_flush(sq, pib_sq_batch_add(sq, &wr), rkey,
			       remote_addr, len, type, level);
}

/* IBA 1.5: 8 bytes written to remote memory at once. */
static void pib_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr, const void *atomic_wr)
{
	struct ibv_send_wr wr = pib_wr_of(qpx, IBV_WR_ATOMIC_WRITE);
	struct pib_sq *sq = pib_sq_of(qpx);

	pib_sq_batch_set_atomic_write(sq, pib_sq_batch_add(sq, &wr), rkey,
				      remote_addr, atomic_wr);
}

static void pib_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	pib_sq_batch_set_sge_list(pib_sq_of(qpx), 1, &sge);
}

static void pib_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				const struct ibv_sge *sg_list)
{
	pib_sq_batch_set_sge_list(pib_sq_of(qpx), num_sge, sg_list);
}

static void pib_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				   size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	pib_sq_batch_set_inline_list(pib_sq_of(qpx), 1, &buf);
}

static void pib_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	pib_sq_batch_set_inline_list(pib_sq_of(qpx), num_buf, buf_list);
}

static void pib_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	pib_sq_batch_set_ud_addr(pib_sq_of(qpx), ah, remote_qpn, remote_qkey);
}

static void pib_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	pib_sq_batch_set_xrc_srqn(pib_sq_of(qpx), remote_srqn);
}

/* A QP that cannot send makes the whole batch fail in wr_complete. */
static void pib_wr_start(struct ibv_qp_ex *qpx)
{
	struct pib_qp *qp = to_pib_qp_ex(qpx);

	pib_lock(&qp->sq_lock);
	pib_sq_batch_start(&qp->sq, pib_qp_send_err(qp));
}

static int pib_wr_complete(struct ibv_qp_ex *qpx)
{
	struct pib_qp *qp = to_pib_qp_ex(qpx);
	uint32_t posted;
	int ret = pib_sq_batch_commit(&qp->sq, &posted);

	pib_unlock(&qp->sq_lock);
	if (posted)
		ret = pib_qp_doorbell(qp);
	return ret;
}

/* The batch's WQEs lie past the producer index: dropping them is free. */
static void pib_wr_abort(struct ibv_qp_ex *qpx)
{
	pib_unlock(&to_pib_qp_ex(qpx)->sq_lock);
}

/**
 * pib_qp_ex_set_ops() - install the wr_* functions of a new QP
 * @qp: the QP
 * @send_ops_flags: the builders asked for; pib_create_qp_ex() checked
 *		    that the QP type has them
 *
 * Setters are always there: a setter the QP type cannot use makes the
 * batch fail with EINVAL rather than call through NULL. VERBS_QP_EX makes
 * ibv_qp_to_qp_ex() hand out the wr_* API; without it (a QP created
 * without send_ops_flags) that answers NULL.
 */
void pib_qp_ex_set_ops(struct pib_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	if (send_ops_flags & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = pib_wr_send;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = pib_wr_send_imm;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = pib_wr_send_inv;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = pib_wr_rdma_write;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = pib_wr_rdma_write_imm;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = pib_wr_rdma_read;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = pib_wr_atomic_cmp_swp;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = pib_wr_atomic_fetch_add;
	if (send_ops_flags & IBV_QP_EX_WITH_LOCAL_INV)
		qpx->wr_local_inv = pib_wr_local_inv;
	if (send_ops_flags & IBV_QP_EX_WITH_BIND_MW)
		qpx->wr_bind_mw = pib_wr_bind_mw;
	if (send_ops_flags & PIB_QP_EX_WITH_FLUSH)
		pib_qp_ex_set_wr_flush(qpx, pib_wr_flush);
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_WRITE)
		qpx->wr_atomic_write = pib_wr_atomic_write;
	qpx->wr_set_sge = pib_wr_set_sge;
	qpx->wr_set_sge_list = pib_wr_set_sge_list;
	qpx->wr_set_inline_data = pib_wr_set_inline_data;
	qpx->wr_set_inline_data_list = pib_wr_set_inline_data_list;
	qpx->wr_set_ud_addr = pib_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = pib_wr_set_xrc_srqn;
	qpx->wr_start = pib_wr_start;
	qpx->wr_complete = pib_wr_complete;
	qpx->wr_abort = pib_wr_abort;
	qp->vqp.comp_mask |= VERBS_QP_EX;
}
