// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs (RC, UC, UD, XRC): creation maps the SQ and, without an SRQ,
 * the RQ that the kernel allocated; post_send writes WQEs into the SQ and
 * rings the doorbell once per call; post_recv writes WQEs into the RQ
 * with no system call. The rest (modify, query, destroy, multicast) goes
 * to the kernel. An XRC INI QP (IBV_QPT_XRC_SEND) has an SQ only; an XRC
 * TGT QP (IBV_QPT_XRC_RECV, also one that ibv_open_qp() opened) has no
 * ring at all: its receives come from the XRC SRQs its requests name.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "pib.h"

/* The command responses: the core part, then pib's (the driver udata). */
struct pib_ucreate_qp_resp {
	struct ib_uverbs_create_qp_resp ibv_resp;
	struct pib_create_qp_resp drv;
};

struct pib_ucreate_qp_ex_resp {
	struct ib_uverbs_ex_create_qp_resp ibv_resp;
	struct pib_create_qp_resp drv;
};

static_assert(offsetof(struct pib_ucreate_qp_resp, drv) ==
	      sizeof(struct ib_uverbs_create_qp_resp), "udata follows");
static_assert(offsetof(struct pib_ucreate_qp_ex_resp, drv) ==
	      sizeof(struct ib_uverbs_ex_create_qp_resp), "udata follows");

/* What ibv_create_qp_ex may ask for; no create flags are implemented. */
#define PIB_QP_COMP_MASK	(IBV_QP_INIT_ATTR_PD | \
				 IBV_QP_INIT_ATTR_XRCD | \
				 IBV_QP_INIT_ATTR_CREATE_FLAGS | \
				 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/*
 * An XRC TGT QP only through ibv_create_qp_ex, which names its XRC domain.
 * (libibverbs' ibv_create_qp_ex() with no more than a PD calls
 * ibv_create_qp(), XRC INI QPs too.)
 */
static bool pib_qp_type_supported(enum ibv_qp_type qp_type, bool ex)
{
	return qp_type == IBV_QPT_RC || qp_type == IBV_QPT_UC ||
	       qp_type == IBV_QPT_UD || qp_type == IBV_QPT_XRC_SEND ||
	       (ex && qp_type == IBV_QPT_XRC_RECV);
}

static struct pib_qp *pib_qp_alloc(void)
{
	struct pib_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	if (pib_lock_init(&qp->sq_lock))
		goto free;
	if (pib_lock_init(&qp->rq_lock))
		goto sq_lock;
	return qp;

sq_lock:
	pib_lock_destroy(&qp->sq_lock);
free:
	free(qp);
	return NULL;
}

static void pib_qp_free(struct pib_qp *qp)
{
	pib_ring_unmap(&qp->sq.ring);
	pib_ring_unmap(&qp->rq.ring);
	pib_lock_destroy(&qp->rq_lock);
	pib_lock_destroy(&qp->sq_lock);
	free(qp);
}

/*
 * Map the rings of a QP the kernel created. @cap is what the kernel
 * granted (the create command wrote it back); ibqp->qp_type and ->srq are
 * set by then.
 */
static int pib_qp_setup(struct pib_qp *qp, struct ibv_context *ctx,
			const struct pib_create_qp_resp *resp,
			const struct ibv_qp_cap *cap)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	int ret;

	/* On a parent domain with a thread domain: one thread at a time. */
	qp->sq_lock.need = !pib_pd_single_threaded(ibqp->pd);
	qp->rq_lock.need = qp->sq_lock.need;
	qp->state = IBV_QPS_RESET;
	qp->sq.ctx = ctx;
	qp->sq.qp_type = ibqp->qp_type;
	if (ibqp->qp_type == IBV_QPT_XRC_RECV)
		return 0;
	ret = pib_ring_map(&qp->sq.ring, ctx->cmd_fd, &resp->sq,
			   sizeof(struct pib_send_wqe));
	if (ret)
		return ret;
	pib_sq_set_limits(&qp->sq, cap->max_send_sge, cap->max_inline_data);
	if (ibqp->srq || ibqp->qp_type == IBV_QPT_XRC_SEND)
		return 0;
	ret = pib_ring_map(&qp->rq.ring, ctx->cmd_fd, &resp->rq,
			   sizeof(struct pib_recv_wqe));
	if (ret)
		return ret;
	pib_rq_set_limits(&qp->rq, cap->max_recv_sge);
	return 0;
}

/* Undo a QP whose creation failed at @ret, for the create verbs to return. */
static struct ibv_qp *pib_qp_fail(struct pib_qp *qp, bool created, int ret)
{
	if (created)
		ibv_cmd_destroy_qp(&qp->vqp.qp);
	pib_qp_free(qp);
	errno = ret;
	return NULL;
}

struct ibv_qp *pib_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct pib_ucreate_qp_resp resp = {};
	struct ibv_create_qp cmd = {};
	struct pib_qp *qp;
	int ret;

	if (!pib_qp_type_supported(attr->qp_type, false)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = pib_qp_alloc();
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		return pib_qp_fail(qp, false, ret);
	ret = pib_qp_setup(qp, pd->context, &resp.drv, &attr->cap);
	if (ret)
		return pib_qp_fail(qp, true, ret);
	return &qp->vqp.qp;
}

/* EOPNOTSUPP for what ibv_create_qp_ex may ask and pib does not have. */
static int pib_qp_attr_ex_check(const struct ibv_qp_init_attr_ex *attr)
{
	if (!pib_qp_type_supported(attr->qp_type, true))
		return EOPNOTSUPP;
	if (attr->comp_mask & ~(uint32_t)PIB_QP_COMP_MASK)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~(pib_send_ops_supported(attr->qp_type) |
				      (attr->qp_type == IBV_QPT_RC ||
				       attr->qp_type == IBV_QPT_XRC_SEND ?
				       PIB_QP_EX_WITH_FLUSH : 0))))
		return EOPNOTSUPP;
	return 0;
}

struct ibv_qp *pib_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct pib_ucreate_qp_ex_resp resp = {};
	struct ibv_create_qp_ex cmd = {};
	struct pib_qp *qp;
	int ret = pib_qp_attr_ex_check(attr);

	if (ret) {
		errno = ret;
		return NULL;
	}
	qp = pib_qp_alloc();
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_qp_ex2(ctx, &qp->vqp, attr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp), NULL);
	if (ret)
		return pib_qp_fail(qp, false, ret);
	ret = pib_qp_setup(qp, ctx, &resp.drv, &attr->cap);
	if (!ret && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		pib_qp_ex_set_ops(qp, attr->send_ops_flags);
	if (ret)
		return pib_qp_fail(qp, true, ret);
	return &qp->vqp.qp;
}

/* Take a QP's completions out of a CQ (none: nothing to do). */
static void pib_cq_clean(struct ibv_cq *ibcq, uint32_t qp_num)
{
	struct pib_cq *cq;

	if (!ibcq)
		return;
	cq = to_pib_cq(ibcq);
	pib_cq_lock(cq);
	pib_cq_ring_clean(&cq->ring, qp_num);
	pib_cq_unlock(cq);
}

/*
 * A QP in RESET has no work requests, and no completions left to poll
 * (mlx5 and others clean them out too: a program that resets a QP after an
 * error polls the new life's completions, not the old one's flushes).
 * Whatever the kernel did with its consumer indices, the rings restart
 * where they stand, so that the indices of both sides agree for the QP's
 * next life.
 */
static void pib_qp_discard(struct pib_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	pib_cq_clean(ibqp->send_cq, ibqp->qp_num);
	if (ibqp->recv_cq != ibqp->send_cq)
		pib_cq_clean(ibqp->recv_cq, ibqp->qp_num);
	if (qp->sq.ring.buf) {
		pib_lock(&qp->sq_lock);
		pib_ring_discard(&qp->sq.ring);
		pib_unlock(&qp->sq_lock);
	}
	if (!qp->rq.ring.buf)
		return;
	pib_lock(&qp->rq_lock);
	pib_ring_discard(&qp->rq.ring);
	pib_unlock(&qp->rq_lock);
}

int pib_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	struct ibv_modify_qp cmd = {};
	int ret;

	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (ret || !(attr_mask & IBV_QP_STATE))
		return ret;
	if (attr->qp_state == IBV_QPS_RESET)
		pib_qp_discard(qp);
	/* Read by posters without a lock: a plain atomic int. */
	__atomic_store_n(&qp->state, attr->qp_state, __ATOMIC_RELAXED);
	return 0;
}

int pib_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int pib_destroy_qp(struct ibv_qp *ibqp)
{
	int ret = ibv_cmd_destroy_qp(ibqp);

	if (ret)
		return ret;
	pib_qp_free(to_pib_qp(ibqp));
	return 0;
}

/*
 * Another process's XRC TGT QP, in a domain this one opened too: a handle
 * of this context on the same QP, which lives until its last handle goes.
 */
struct ibv_qp *pib_open_qp(struct ibv_context *ctx,
			   struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd;
	struct pib_qp *qp = pib_qp_alloc();
	int ret;

	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_open_qp(ctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (ret)
		return pib_qp_fail(qp, false, ret);
	qp->state = IBV_QPS_RESET;
	qp->sq.ctx = ctx;
	qp->sq.qp_type = IBV_QPT_XRC_RECV;
	return &qp->vqp.qp;
}

/*
 * Sends need an SQ (an XRC TGT QP has none) in RTS or SQD. In SQE and ERR
 * (which the kernel may enter on its own) they are accepted, and the
 * kernel completes them flushed, as the IBA wants.
 */
int pib_qp_send_err(struct pib_qp *qp)
{
	/* (an XRC TGT QP has no SQ) */
	if (!qp->sq.ring.buf)
		return EINVAL;
	switch (__atomic_load_n(&qp->state, __ATOMIC_RELAXED)) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		return EINVAL;
	default:
		return 0;
	}
}

/*
 * The doorbell: the uverbs post_send command with no work requests.
 * ibv_cmd_post_send() with an empty list sends exactly that (qp_handle,
 * wr_count 0, sge_count 0, wqe_size of struct ib_uverbs_send_wr), and
 * the kernel's post_send, given no work requests, looks at the SQ.
 */
int pib_qp_doorbell(struct pib_qp *qp)
{
	struct ibv_send_wr *bad = NULL;

	return ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad);
}

/*
 * If the doorbell fails the WQEs are in the ring already (a later
 * doorbell would send them): the error goes to the caller with the first
 * work request as *bad_wr, since one that fails must point somewhere.
 */
int pib_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	uint32_t posted;
	int ret = pib_qp_send_err(qp);
	int db;

	if (ret) {
		*bad_wr = wr;
		return ret;
	}
	pib_lock(&qp->sq_lock);
	ret = pib_sq_post(&qp->sq, wr, bad_wr, &posted);
	pib_unlock(&qp->sq_lock);
	if (!posted)
		return ret;
	db = pib_qp_doorbell(qp);
	if (db && !ret) {
		*bad_wr = wr;
		ret = db;
	}
	return ret;
}

/*
 * ibv_bind_mw(): a type 1 window is bound by a WQE on the SQ, as a type 2
 * is by an IBV_WR_BIND_MW work request, with the next R_Key; the window
 * has it once the WQE is posted (the bind's completion says whether the
 * kernel took it).
 */
int pib_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = mw_bind->bind_info,
		},
	};
	int ret = pib_qp_send_err(qp);

	if (ret)
		return ret;
	pib_lock(&qp->sq_lock);
	ret = pib_sq_post_bind1(&qp->sq, &wr);
	pib_unlock(&qp->sq_lock);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return pib_qp_doorbell(qp);
}

/*
 * Receives may be posted in every state but RESET; an SRQ's QP has no RQ.
 * In ERR the kernel must flush them: the doorbell makes it look.
 */
int pib_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct pib_qp *qp = to_pib_qp(ibqp);
	int state = __atomic_load_n(&qp->state, __ATOMIC_RELAXED);
	int ret;

	if (!qp->rq.ring.buf || state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	pib_lock(&qp->rq_lock);
	ret = pib_rq_post(&qp->rq, wr, bad_wr);
	pib_unlock(&qp->rq_lock);
	if (state == IBV_QPS_ERR)
		pib_qp_doorbell(qp);
	return ret;
}

int pib_attach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid,
		     uint16_t lid)
{
	return ibv_cmd_attach_mcast(ibqp, gid, lid);
}

int pib_detach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid,
		     uint16_t lid)
{
	return ibv_cmd_detach_mcast(ibqp, gid, lid);
}
