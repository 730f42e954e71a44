// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues, and XRC SRQs: a ring of receive WQEs like a QP's
 * RQ, posted to with no system call. An XRC SRQ has a number, which the
 * remote XRC INI QP names in each request, and a CQ of its own.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "pib.h"

/* The command response: the core part, then pib's (the driver udata). */
struct pib_ucreate_srq_resp {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct pib_create_srq_resp drv;
};

static_assert(offsetof(struct pib_ucreate_srq_resp, drv) ==
	      sizeof(struct ib_uverbs_create_srq_resp), "udata follows");

static struct pib_srq *pib_srq_alloc(void)
{
	struct pib_srq *srq = calloc(1, sizeof(*srq));

	if (!srq || pib_lock_init(&srq->lock)) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	return srq;
}

/*
 * Map the ring of an SRQ the kernel created on @pd (or destroy it), with
 * what the kernel granted (the command wrote it back into @attr).
 */
static struct ibv_srq *pib_srq_setup(struct pib_srq *srq, int ret,
				     struct ibv_context *ctx, struct ibv_pd *pd,
				     const struct pib_create_srq_resp *resp,
				     const struct ibv_srq_attr *attr)
{
	if (!ret) {
		ret = pib_ring_map(&srq->rq.ring, ctx->cmd_fd, &resp->rq,
				   sizeof(struct pib_recv_wqe));
		if (ret)
			ibv_cmd_destroy_srq(&srq->vsrq.srq);
	}
	if (ret) {
		pib_lock_destroy(&srq->lock);
		free(srq);
		errno = ret;
		return NULL;
	}
	/* On a parent domain with a thread domain: one thread at a time. */
	srq->lock.need = !pib_pd_single_threaded(pd);
	pib_rq_set_limits(&srq->rq, attr->max_sge);
	return &srq->vsrq.srq;
}

struct ibv_srq *pib_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct pib_ucreate_srq_resp resp = {};
	struct ibv_create_srq cmd = {};
	struct pib_srq *srq = pib_srq_alloc();
	int ret;

	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	return pib_srq_setup(srq, ret, pd->context, pd, &resp.drv, &attr->attr);
}

/* What ibv_create_srq_ex may ask for: basic and XRC SRQs. */
#define PIB_SRQ_COMP_MASK	(IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | \
				 IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ)

struct ibv_srq *pib_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr)
{
	struct pib_ucreate_srq_resp resp = {};
	struct ibv_create_xsrq cmd = {};
	struct pib_srq *srq;
	int ret;

	if ((attr->comp_mask & ~(uint32_t)PIB_SRQ_COMP_MASK) ||
	    ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	     attr->srq_type != IBV_SRQT_BASIC && attr->srq_type != IBV_SRQT_XRC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = pib_srq_alloc();
	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq_ex(ctx, &srq->vsrq, attr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	return pib_srq_setup(srq, ret, ctx,
			     attr->comp_mask & IBV_SRQ_INIT_ATTR_PD ? attr->pd : NULL,
			     &resp.drv, &attr->attr);
}

/* An XRC SRQ's number, which the command's answer gave. */
int pib_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct pib_srq *srq = to_pib_srq(ibsrq);

	if (srq->vsrq.srq_type != IBV_SRQT_XRC)
		return EINVAL;
	*srq_num = srq->vsrq.srq_num;
	return 0;
}

/* The command: the core part, then pib's (the driver udata). */
struct pib_umodify_srq {
	struct ibv_modify_srq ibv_cmd;
	struct pib_modify_srq drv;
};

static_assert(offsetof(struct pib_umodify_srq, drv) ==
	      sizeof(struct ibv_modify_srq), "udata follows");

/*
 * A new max_wr is a new ring: the kernel describes it in @info, copies
 * the WQEs it has not taken yet to its start, and takes WQEs only from it
 * from then on. The command and the switch of mappings happen under the
 * SRQ's lock, so no post goes to the old ring once the kernel copied it.
 * If the new ring cannot be mapped the SRQ is left without one, and
 * posting to it fails.
 */
int pib_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		   int attr_mask)
{
	struct pib_srq *srq = to_pib_srq(ibsrq);
	struct pib_umodify_srq cmd = {};
	struct pib_ring_info info = {};
	struct pib_ring ring = {};
	int ret;

	if (!(attr_mask & IBV_SRQ_MAX_WR))
		return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
					  sizeof(cmd));
	cmd.drv.ring_info = (uintptr_t)&info;
	pib_lock(&srq->lock);
	ret = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
				 sizeof(cmd));
	if (!ret) {
		ret = pib_ring_map(&ring, ibsrq->context->cmd_fd, &info,
				   sizeof(struct pib_recv_wqe));
		pib_ring_unmap(&srq->rq.ring);
		srq->rq.ring = ring;
	}
	pib_unlock(&srq->lock);
	return ret;
}

int pib_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int pib_destroy_srq(struct ibv_srq *ibsrq)
{
	struct pib_srq *srq = to_pib_srq(ibsrq);
	int ret = ibv_cmd_destroy_srq(ibsrq);

	if (ret)
		return ret;
	pib_ring_unmap(&srq->rq.ring);
	pib_lock_destroy(&srq->lock);
	free(srq);
	return 0;
}

int pib_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	struct pib_srq *srq = to_pib_srq(ibsrq);
	int ret;

	pib_lock(&srq->lock);
	if (srq->rq.ring.buf) {
		ret = pib_rq_post(&srq->rq, wr, bad_wr);
	} else {
		*bad_wr = wr;
		ret = ENOMEM;	/* it lost its ring in a resize */
	}
	pib_unlock(&srq->lock);
	return ret;
}
