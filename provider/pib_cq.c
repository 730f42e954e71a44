// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: the kernel writes CQEs into a ring the provider maps,
 * and poll_cq (or ibv_start_poll and friends) reads them with no system
 * call. Arming (req_notify_cq), resizing and destroying go to the kernel.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "pib.h"

/* The command responses: the core part, then pib's (the driver udata). */
struct pib_ucreate_cq_resp {
	struct ib_uverbs_create_cq_resp ibv_resp;
	struct pib_create_cq_resp drv;
};

struct pib_ucreate_cq_ex_resp {
	struct ib_uverbs_ex_create_cq_resp ibv_resp;
	struct pib_create_cq_resp drv;
};

struct pib_uresize_cq_resp {
	struct ib_uverbs_resize_cq_resp ibv_resp;
	struct pib_create_cq_resp drv;
};

static_assert(offsetof(struct pib_ucreate_cq_resp, drv) ==
	      sizeof(struct ib_uverbs_create_cq_resp), "udata follows");
static_assert(offsetof(struct pib_ucreate_cq_ex_resp, drv) ==
	      sizeof(struct ib_uverbs_ex_create_cq_resp), "udata follows");
static_assert(offsetof(struct pib_uresize_cq_resp, drv) ==
	      sizeof(struct ib_uverbs_resize_cq_resp), "udata follows");

/* What a CQE has: timestamps; no VLANs, flow tags or tag matching. */
#define PIB_CQ_WC_FLAGS	(IBV_WC_STANDARD_FLAGS | \
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | \
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

static void pib_cq_load_current(struct pib_cq *cq)
{
	cq->vcq.cq_ex.wr_id = cq->cursor.cqe->wr_id;
	cq->vcq.cq_ex.status = cq->cursor.cqe->status;
}

/*
 * The CQ lock is held from a successful start_poll to end_poll, as the
 * extended CQ API expects: the application reads the current CQE in
 * between.
 */
static int pib_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct pib_cq *cq = to_pib_cq_ex(ibcq);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pib_cq_lock(cq);
	ret = cq->ring.buf ? pib_cq_ring_start(&cq->ring, &cq->cursor) : EIO;
	if (ret) {
		pib_cq_unlock(cq);
		return ret;
	}
	pib_cq_load_current(cq);
	return 0;
}

static int pib_next_poll(struct ibv_cq_ex *ibcq)
{
	struct pib_cq *cq = to_pib_cq_ex(ibcq);
	int ret = pib_cq_ring_next(&cq->ring, &cq->cursor);

	if (!ret)
		pib_cq_load_current(cq);
	return ret;
}

static void pib_end_poll(struct ibv_cq_ex *ibcq)
{
	struct pib_cq *cq = to_pib_cq_ex(ibcq);

	pib_cq_ring_end(&cq->ring, &cq->cursor);
	pib_cq_unlock(cq);
}

static const struct pib_cqe *pib_cur(struct ibv_cq_ex *ibcq)
{
	return to_pib_cq_ex(ibcq)->cursor.cqe;
}

static enum ibv_wc_opcode pib_read_opcode(struct ibv_cq_ex *ibcq)
{
	return pib_cur(ibcq)->opcode;
}

static uint32_t pib_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return pib_cur(ibcq)->vendor_err;
}

static uint32_t pib_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return pib_cur(ibcq)->byte_len;
}

/* Also ibv_wc_read_invalidated_rkey(): both come from the CQE's ex. */
static __be32 pib_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return pib_cur(ibcq)->ex;
}

static uint32_t pib_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return pib_cur(ibcq)->qp_num;
}

static uint32_t pib_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return pib_cur(ibcq)->src_qp;
}

static unsigned int pib_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return pib_cqe_wc_flags(pib_cur(ibcq));
}

static uint32_t pib_read_slid(struct ibv_cq_ex *ibcq)
{
	return pib_cur(ibcq)->slid;
}

static uint8_t pib_read_sl(struct ibv_cq_ex *ibcq)
{
	return pib_cur(ibcq)->sl;
}

static uint8_t pib_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return pib_cur(ibcq)->dlid_path_bits;
}

/*
 * The kernel stamps completions in nanoseconds of CLOCK_REALTIME (a
 * hca_core_clock of 1 GHz), so the raw time is wall-clock time: 0 in a CQ
 * created without the timestamp flags.
 */
static uint64_t pib_read_timestamp(struct ibv_cq_ex *ibcq)
{
	return pib_cur(ibcq)->timestamp;
}

/* The clock completions are stamped with: CLOCK_REALTIME, in ns. */
int pib_query_rt_values(struct ibv_context *ctx, struct ibv_values_ex *values)
{
	struct timespec now;

	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EOPNOTSUPP;
	if (clock_gettime(CLOCK_REALTIME, &now))
		return errno;
	values->raw_clock = now;
	return 0;
}

/* Every CQ gets the extended API: it costs nothing and is always right. */
static void pib_cq_set_ex_ops(struct ibv_cq_ex *ex)
{
	ex->start_poll = pib_start_poll;
	ex->next_poll = pib_next_poll;
	ex->end_poll = pib_end_poll;
	ex->read_opcode = pib_read_opcode;
	ex->read_vendor_err = pib_read_vendor_err;
	ex->read_byte_len = pib_read_byte_len;
	ex->read_imm_data = pib_read_imm_data;
	ex->read_qp_num = pib_read_qp_num;
	ex->read_src_qp = pib_read_src_qp;
	ex->read_wc_flags = pib_read_wc_flags;
	ex->read_slid = pib_read_slid;
	ex->read_sl = pib_read_sl;
	ex->read_dlid_path_bits = pib_read_dlid_path_bits;
	ex->read_completion_ts = pib_read_timestamp;
	ex->read_completion_wallclock_ns = pib_read_timestamp;
}

/*
 * Map the ring of a CQ the kernel created. On error the kernel's CQ is
 * destroyed again (its mutex and condition, which libibverbs initialises
 * only once we return, are still zero: valid unlocked objects in glibc).
 */
static int pib_cq_setup(struct pib_cq *cq, struct ibv_context *ctx,
			const struct pib_create_cq_resp *resp)
{
	int ret = pib_ring_map(&cq->ring, ctx->cmd_fd, &resp->cq,
			       sizeof(struct pib_cqe));

	if (!ret) {
		ret = pthread_mutex_init(&cq->lock, NULL);
		if (ret)
			pib_ring_unmap(&cq->ring);
	}
	cq->need_lock = true;
	if (ret) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		return ret;
	}
	pib_cq_set_ex_ops(&cq->vcq.cq_ex);
	return 0;
}

struct ibv_cq *pib_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct pib_ucreate_cq_resp resp = {};
	struct ibv_create_cq cmd = {};
	struct pib_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (!ret)
		ret = pib_cq_setup(cq, ctx, &resp.drv);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	return &cq->vcq.cq;
}

/*
 * Refuse what pib's CQEs cannot provide, rather than report zeros. A
 * parent domain must be one (not a plain PD) of this context.
 */
static int pib_cq_attr_check(struct ibv_context *ctx,
			     const struct ibv_cq_init_attr_ex *attr)
{
	if (attr->wc_flags & ~(uint64_t)PIB_CQ_WC_FLAGS ||
	    attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD))
		return EOPNOTSUPP;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD &&
	    (!attr->parent_domain || attr->parent_domain->context != ctx ||
	     !to_pib_pd(attr->parent_domain)->parent_of))
		return EINVAL;
	/* Overrun is an error the kernel reports: it cannot be ignored. */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return EOPNOTSUPP;
	return 0;
}

struct ibv_cq_ex *pib_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct pib_ucreate_cq_ex_resp resp = {};
	struct ibv_create_cq_ex cmd = {};
	struct pib_cq *cq;
	int ret = pib_cq_attr_check(ctx, attr);

	if (ret) {
		errno = ret;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_cq_ex(ctx, attr, NULL, &cq->vcq, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp), 0);
	if (!ret)
		ret = pib_cq_setup(cq, ctx, &resp.drv);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	/* One thread at a time: a thread domain's, or as the flag says. */
	cq->need_lock = !((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD &&
			   pib_pd_single_threaded(attr->parent_domain)) ||
			  (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS &&
			   attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED));
	return &cq->vcq.cq_ex;
}

/* Return: completions polled, or -1 if the CQ lost its ring in a resize. */
int pib_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct pib_cq *cq = to_pib_cq(ibcq);
	int n;

	pib_cq_lock(cq);
	n = cq->ring.buf ? pib_cq_ring_poll(&cq->ring, ne, wc) : -1;
	pib_cq_unlock(cq);
	return n;
}

int pib_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/*
 * The kernel copies the CQEs not polled yet to the start of a new ring
 * and writes from then on only there, so the command and the switch of
 * mappings happen under the CQ lock: no poller may consume from the old
 * ring once the kernel has copied it. If the new ring cannot be mapped
 * the CQ is left without one, and polling it fails.
 */
int pib_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct pib_cq *cq = to_pib_cq(ibcq);
	struct pib_uresize_cq_resp resp = {};
	struct pib_ring ring = {};
	struct ibv_resize_cq cmd = {};
	int ret;

	pib_cq_lock(cq);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (!ret) {
		ret = pib_ring_map(&ring, ibcq->context->cmd_fd, &resp.drv.cq,
				   sizeof(struct pib_cqe));
		pib_ring_unmap(&cq->ring);
		cq->ring = ring;
	}
	pib_cq_unlock(cq);
	return ret;
}

int pib_destroy_cq(struct ibv_cq *ibcq)
{
	struct pib_cq *cq = to_pib_cq(ibcq);
	int ret = ibv_cmd_destroy_cq(ibcq);

	if (ret)
		return ret;
	pib_ring_unmap(&cq->ring);
	pthread_mutex_destroy(&cq->lock);
	free(cq);
	return 0;
}
