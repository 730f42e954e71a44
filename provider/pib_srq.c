// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues: a ring of receive WQEs like a QP's RQ, posted
 * to with no system call.
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

struct ibv_srq *pib_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct pib_ucreate_srq_resp resp = {};
	struct ibv_create_srq cmd = {};
	struct pib_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq || pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (!ret) {
		ret = pib_ring_map(&srq->rq.ring, pd->context->cmd_fd,
				   &resp.drv.rq, sizeof(struct pib_recv_wqe));
		if (ret)
			ibv_cmd_destroy_srq(&srq->vsrq.srq);
	}
	if (ret) {
		pthread_spin_destroy(&srq->lock);
		free(srq);
		errno = ret;
		return NULL;
	}
	/* What the kernel granted: the command wrote it back. */
	pib_rq_set_limits(&srq->rq, attr->attr.max_sge);
	return &srq->vsrq.srq;
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
	pthread_spin_lock(&srq->lock);
	ret = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
				 sizeof(cmd));
	if (!ret) {
		ret = pib_ring_map(&ring, ibsrq->context->cmd_fd, &info,
				   sizeof(struct pib_recv_wqe));
		pib_ring_unmap(&srq->rq.ring);
		srq->rq.ring = ring;
	}
	pthread_spin_unlock(&srq->lock);
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
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

int pib_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	struct pib_srq *srq = to_pib_srq(ibsrq);
	int ret;

	pthread_spin_lock(&srq->lock);
	if (srq->rq.ring.buf) {
		ret = pib_rq_post(&srq->rq, wr, bad_wr);
	} else {
		*bad_wr = wr;
		ret = ENOMEM;	/* it lost its ring in a resize */
	}
	pthread_spin_unlock(&srq->lock);
	return ret;
}
